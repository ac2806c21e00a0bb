/*
 * resonio.h — the native API of resonio, an implementation of MPI-IO.
 *
 * Every MPI_File_* function of the MPI standard's I/O chapter has a twin
 * here named rio_file_* with the same arguments, except that the file handle
 * is a `rio_file *` instead of an MPI_File, and RIO_FILE_NULL (a null
 * pointer) stands for MPI_FILE_NULL.  Semantics are the standard's: the
 * description of each function in the MPI standard applies word for word.
 *
 * Conventions that hold for every function below:
 *  - The return value is MPI_SUCCESS or an MPI error code whose class
 *    (MPI_Error_class) is one of the standard classes and whose string
 *    (MPI_Error_string) names the operation, the file and the cause.
 *  - Before an error code is returned the file's error handler is invoked
 *    (for calls with no file, or with RIO_FILE_NULL, the default file error
 *    handler, which is MPI_ERRORS_RETURN unless changed with
 *    rio_file_set_errhandler(RIO_FILE_NULL, ...)).
 *  - Functions documented as collective in the standard are collective over
 *    the communicator the file was opened with; an error on any rank of a
 *    collective call is returned on every rank.
 *  - Requests returned by the nonblocking calls are ordinary MPI requests:
 *    complete them with MPI_Wait, MPI_Test, MPI_Waitall and friends.
 *  - Handles: rio_file_open allocates the handle; rio_file_close frees it and
 *    sets *fh to RIO_FILE_NULL.  Pointers passed in are borrowed for the call.
 *
 * The drop-in library libresonio-mpiio defines MPI_File_* and PMPI_File_*
 * as thin forwards to these functions.
 */
#ifndef RESONIO_H
#define RESONIO_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library is built with hidden visibility; its API is exported. */
#pragma GCC visibility push(default)

#define RESONIO_VERSION_MAJOR 0
#define RESONIO_VERSION_MINOR 1

/** An open file.  Opaque; one per rank per MPI_File_open. */
typedef struct rio_file rio_file;

/** The null file handle (MPI_FILE_NULL of the native API). */
#define RIO_FILE_NULL ((rio_file *)0)

/* ---- file manipulation ------------------------------------------------ */
int rio_file_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, rio_file **fh);
int rio_file_close(rio_file **fh);
int rio_file_delete(const char *filename, MPI_Info info);
int rio_file_set_size(rio_file *fh, MPI_Offset size);
int rio_file_preallocate(rio_file *fh, MPI_Offset size);
int rio_file_get_size(rio_file *fh, MPI_Offset *size);
int rio_file_get_group(rio_file *fh, MPI_Group *group);
int rio_file_get_amode(rio_file *fh, int *amode);
int rio_file_set_info(rio_file *fh, MPI_Info info);
int rio_file_get_info(rio_file *fh, MPI_Info *info_used);

/* ---- views ------------------------------------------------------------ */
int rio_file_set_view(rio_file *fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info);
int rio_file_get_view(rio_file *fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep);

/* ---- explicit offsets ------------------------------------------------- */
int rio_file_read_at(rio_file *fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status);
int rio_file_read_at_all(rio_file *fh, MPI_Offset offset, void *buf, int count,
                         MPI_Datatype datatype, MPI_Status *status);
int rio_file_write_at(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status);
int rio_file_write_at_all(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status);
int rio_file_iread_at(rio_file *fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request);
int rio_file_iwrite_at(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request);
int rio_file_iread_at_all(rio_file *fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Request *request);
int rio_file_iwrite_at_all(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request);

/* ---- individual file pointer ------------------------------------------ */
int rio_file_read(rio_file *fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int rio_file_read_all(rio_file *fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status);
int rio_file_write(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status);
int rio_file_write_all(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status);
int rio_file_iread(rio_file *fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request);
int rio_file_iwrite(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request);
int rio_file_iread_all(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request);
int rio_file_iwrite_all(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request);
int rio_file_seek(rio_file *fh, MPI_Offset offset, int whence);
int rio_file_get_position(rio_file *fh, MPI_Offset *offset);
int rio_file_get_byte_offset(rio_file *fh, MPI_Offset offset, MPI_Offset *disp);

/* ---- shared file pointer ---------------------------------------------- */
int rio_file_read_shared(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status);
int rio_file_write_shared(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int rio_file_iread_shared(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request);
int rio_file_iwrite_shared(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request);
int rio_file_read_ordered(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status);
int rio_file_write_ordered(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status);
int rio_file_seek_shared(rio_file *fh, MPI_Offset offset, int whence);
int rio_file_get_position_shared(rio_file *fh, MPI_Offset *offset);

/* ---- split collective ------------------------------------------------- */
int rio_file_read_at_all_begin(rio_file *fh, MPI_Offset offset, void *buf, int count,
                               MPI_Datatype datatype);
int rio_file_read_at_all_end(rio_file *fh, void *buf, MPI_Status *status);
int rio_file_write_at_all_begin(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype);
int rio_file_write_at_all_end(rio_file *fh, const void *buf, MPI_Status *status);
int rio_file_read_all_begin(rio_file *fh, void *buf, int count, MPI_Datatype datatype);
int rio_file_read_all_end(rio_file *fh, void *buf, MPI_Status *status);
int rio_file_write_all_begin(rio_file *fh, const void *buf, int count, MPI_Datatype datatype);
int rio_file_write_all_end(rio_file *fh, const void *buf, MPI_Status *status);
int rio_file_read_ordered_begin(rio_file *fh, void *buf, int count, MPI_Datatype datatype);
int rio_file_read_ordered_end(rio_file *fh, void *buf, MPI_Status *status);
int rio_file_write_ordered_begin(rio_file *fh, const void *buf, int count, MPI_Datatype datatype);
int rio_file_write_ordered_end(rio_file *fh, const void *buf, MPI_Status *status);

/* ---- misc ------------------------------------------------------------- */
int rio_file_get_type_extent(rio_file *fh, MPI_Datatype datatype, MPI_Aint *extent);
int rio_file_set_atomicity(rio_file *fh, int flag);
int rio_file_get_atomicity(rio_file *fh, int *flag);
int rio_file_sync(rio_file *fh);

/* ---- error handling ----------------------------------------------------
 * File error handlers are MPI_Errhandler objects; those made by
 * rio_file_create_errhandler are freed with MPI_Errhandler_free.  The
 * function receives an MPI_File * that holds the rio_file handle.        */
int rio_file_create_errhandler(MPI_File_errhandler_function *function, MPI_Errhandler *errhandler);
int rio_file_set_errhandler(rio_file *fh, MPI_Errhandler errhandler);
int rio_file_get_errhandler(rio_file *fh, MPI_Errhandler *errhandler);
int rio_file_call_errhandler(rio_file *fh, int errorcode);

/* ---- data representations and Fortran handles ------------------------- */
int rio_register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);
/** Fortran integer for a handle; 0 for RIO_FILE_NULL.  Valid until close. */
MPI_Fint rio_file_c2f(rio_file *fh);
/** Handle for a Fortran integer; RIO_FILE_NULL for 0 or an unknown value. */
rio_file *rio_file_f2c(MPI_Fint fh);

/* ---- large-count variants (MPI-4), present when the MPI headers are MPI-4 */
#if MPI_VERSION >= 4
#define RIO_HAVE_LARGE_COUNT 1
int rio_file_read_at_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Status *status);
int rio_file_read_at_all_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Status *status);
int rio_file_write_at_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status);
int rio_file_write_at_all_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status);
int rio_file_iread_at_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Request *request);
int rio_file_iwrite_at_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request);
int rio_file_iread_at_all_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Request *request);
int rio_file_iwrite_at_all_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request);
int rio_file_read_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Status *status);
int rio_file_read_all_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Status *status);
int rio_file_write_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status);
int rio_file_write_all_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status);
int rio_file_iread_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Request *request);
int rio_file_iwrite_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request);
int rio_file_iread_all_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request);
int rio_file_iwrite_all_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request);
int rio_file_read_shared_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Status *status);
int rio_file_write_shared_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int rio_file_iread_shared_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Request *request);
int rio_file_iwrite_shared_c(rio_file *fh, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request);
int rio_file_read_ordered_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status);
int rio_file_write_ordered_c(rio_file *fh, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status);
int rio_file_read_at_all_begin_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                                 MPI_Datatype datatype);
int rio_file_write_at_all_begin_c(rio_file *fh, MPI_Offset offset, const void *buf,
                                  MPI_Count count, MPI_Datatype datatype);
int rio_file_read_all_begin_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype);
int rio_file_write_all_begin_c(rio_file *fh, const void *buf, MPI_Count count,
                               MPI_Datatype datatype);
int rio_file_read_ordered_begin_c(rio_file *fh, void *buf, MPI_Count count,
                                  MPI_Datatype datatype);
int rio_file_write_ordered_begin_c(rio_file *fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype);
int rio_file_get_type_extent_c(rio_file *fh, MPI_Datatype datatype, MPI_Count *extent);
int rio_register_datarep_c(const char *datarep,
                           MPI_Datarep_conversion_function_c *read_conversion_fn,
                           MPI_Datarep_conversion_function_c *write_conversion_fn,
                           MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state);
#endif

/* ---- statistics --------------------------------------------------------
 * The structs this API fills (struct rio_stats, struct rio_coll_info,
 * struct rio_select_info) grow at their end in later versions without
 * breaking programs built against an earlier one.  Their first member is
 * `size`, which the caller sets before the call:
 *
 *     struct rio_stats s;
 *     s.size = sizeof s;
 *     rio_stats_get(fh, &s);
 *
 * The library writes only the first `size` bytes of *out (no more than
 * its own struct has) and sets `size` to the bytes it wrote, so a program
 * built against a newer header learns which members an older library
 * filled.  A `size` below the first published version (RIO_STATS_SIZE_V1,
 * RIO_COLL_INFO_SIZE_V1, RIO_SELECT_INFO_SIZE_V1), 0 (unset) included, is
 * an error of class MPI_ERR_ARG whose string names the operation and the
 * size, and *out is left as it was.  New members only ever go at the end;
 * an array's capacity is a constant that stays, with the true count
 * beside it (when the count exceeds the capacity the array holds its first
 * entries).
 *
 * Counters of one open file on the calling rank.  Local; valid until close.
 * RESONIO_STATS=1 prints them (summed over ranks, on rank 0) at close.    */
/** The bytes of struct type up to the end of its member: the size of the
 *  version whose last member that is. */
#define RIO_SIZE_THROUGH(type, member) (offsetof(type, member) + sizeof(((type *)0)->member))
/** Slots of req_method: independent methods the struct can count (the
 *  library checks at build time that its methods fit). */
#define RIO_STATS_MAX_METHODS 16
struct rio_stats {
    size_t size;                           /**< set by the caller, see above */
    long long calls_read, calls_write;     /**< data-access calls */
    long long bytes_read, bytes_written;   /**< bytes the calls asked for and moved */
    long long regions;                     /**< file regions (contiguous pieces) touched */
    long long bytes_accessed;              /**< bytes moved to or from storage */
    double time_storage;                   /**< seconds inside storage requests */
    long long copies;                      /**< bytes copied in memory by independent
                                                requests (staging of small pieces) */
    double time_agree;                     /**< seconds in the error agreement that ends
                                                each collective data-access call, waiting
                                                for the other ranks included */
    int nmethods;                          /**< independent methods the library has,
                                                rio_indep_method_count() */
    long long req_method[RIO_STATS_MAX_METHODS]; /**< storage requests made by independent
                                                method i (its name:
                                                rio_indep_method_name(i)), for
                                                i < nmethods; 0 beyond */
    /* version 2 */
    long long nb_queued;                   /**< nonblocking independent calls handed to
                                                resonio's I/O threads (the others, and
                                                collective ones, complete at issue) */
    long long nb_background;               /**< of those, jobs that have run (cancelled
                                                ones not counted) */
    double time_nb_overlap;                /**< seconds from issue to the end of the I/O,
                                                summed over those jobs: time the caller was
                                                free to compute, whether or not it waited
                                                in MPI_Wait meanwhile */
    /* version 3 */
    long long comms_made;                  /**< private communicators the file's open, its
                                                collective engine and its background lane
                                                made with MPI_Comm_dup or
                                                MPI_Comm_split_type */
    long long comms_reused;                /**< of the same, taken instead from those an
                                                earlier file on the same communicator
                                                gave back at its close */
    /* version 4 */
    long long nb_copied;                   /**< bytes that nonblocking collective writes
                                                below MPI_THREAD_MULTIPLE copied from the
                                                engine's buffers, to write them in the
                                                background (hint resonio_nb_copy) */
    /* version 5 */
    double time_nb_start;                  /**< seconds from issue until a thread of
                                                resonio's started the job, summed over the
                                                jobs that ran in the background (the time a
                                                woken thread took to get a processor) */
    long long nb_near;                     /**< nonblocking calls whose issue woke a
                                                waiting thread of resonio's on the issuing
                                                thread's processor (RESONIO_IO_WAKE) */
    /* version 6 */
    long long shared_staged;               /**< bytes of collective writes that other ranks
                                                of this host wrote into the file at the
                                                same time, copied through a small buffer
                                                before each storage call to shorten its
                                                hold on the file's lock (page-cache
                                                storage) */
};
/** The size of the first version of struct rio_stats. */
#define RIO_STATS_SIZE_V1 RIO_SIZE_THROUGH(struct rio_stats, req_method)
/** The size of the second version (the nonblocking counters). */
#define RIO_STATS_SIZE_V2 RIO_SIZE_THROUGH(struct rio_stats, time_nb_overlap)
/** The size of the third version (the communicator counters). */
#define RIO_STATS_SIZE_V3 RIO_SIZE_THROUGH(struct rio_stats, comms_reused)
/** The size of the fourth version (the copies of nonblocking writes). */
#define RIO_STATS_SIZE_V4 RIO_SIZE_THROUGH(struct rio_stats, nb_copied)
/** The size of the fifth version (how background jobs started). */
#define RIO_STATS_SIZE_V5 RIO_SIZE_THROUGH(struct rio_stats, nb_near)
/** The size of the sixth version (the staged shared writes). */
#define RIO_STATS_SIZE_V6 RIO_SIZE_THROUGH(struct rio_stats, shared_staged)
/** Copy the calling rank's counters for fh into *out (out->size set by the
 *  caller, see above).  Local.  Errors: MPI_ERR_ARG for a NULL out or a
 *  size below RIO_STATS_SIZE_V1. */
int rio_stats_get(rio_file *fh, struct rio_stats *out);

/* ---- collective calls --------------------------------------------------
 * Strategies (hint resonio_strategy): rio_strategy_name(i) for
 * 0 <= i < rio_strategy_count(), or "auto" (the default), which chooses
 * among them by measuring.                                              */
/** How many collective strategies there are ("auto" not counted).  Local;
 *  needs no MPI_Init. */
int rio_strategy_count(void);
/** The name of strategy i, a value of the resonio_strategy hint, for
 *  0 <= i < rio_strategy_count(), in the order auto examines them when no
 *  rule puts one first; NULL for any other i.  Static storage, never to be
 *  freed.  Local; needs no MPI_Init. */
const char *rio_strategy_name(int i);
/** How many independent methods there are (hint resonio_indep_method;
 *  "auto", which chooses among them by the access shape, not counted).
 *  Local; needs no MPI_Init. */
int rio_indep_method_count(void);
/** The name of independent method i, a value of resonio_indep_method, for
 *  0 <= i < rio_indep_method_count(); NULL for any other i.  Static
 *  storage.  Local; needs no MPI_Init. */
const char *rio_indep_method_name(int i);
/** Capacities of struct rio_coll_info's arrays; naggs and ntargets are the
 *  true counts.  Targets as many as resonio-emud serves (256). */
#define RIO_COLL_MAX_AGGS 256
#define RIO_COLL_MAX_TARGETS 256
/** What the last collective data call on a file did, over all ranks. */
struct rio_coll_info {
    size_t size;                 /**< set by the caller (statistics, above) */
    char strategy[32];           /**< strategy that ran */
    char reason[160];            /**< why it ran (or why another fell back to it) */
    int nprocs;                  /**< ranks in the call */
    int naggs;                   /**< aggregators (agents); 0 if none */
    int aggs[RIO_COLL_MAX_AGGS]; /**< their ranks, the first RIO_COLL_MAX_AGGS */
    int rounds;                  /**< exchange/I-O rounds */
    long long bytes;             /**< data bytes of all ranks */
    long long exchanged;         /**< bytes sent between ranks ("resent") */
    long long storage_reqs;      /**< storage requests of all ranks */
    long long copies;            /**< bytes copied in memory by resonio (pack, staging) */
    double time_exchange;        /**< seconds, slowest rank */
    double time_storage;         /**< seconds, slowest rank */
    int ntargets;                /**< targets of the layout (1 without striping): its
                                   stripe columns, or the servers that hold its objects */
    long long target_reqs[RIO_COLL_MAX_TARGETS];      /**< storage requests per target, the
                                   first RIO_COLL_MAX_TARGETS targets */
    long long target_ascending[RIO_COLL_MAX_TARGETS]; /**< of those, how many arrived (in
                                   time order, all ranks) at an offset above the previous
                                   request to the same target */
    int target_server[RIO_COLL_MAX_TARGETS]; /**< the server of each target where
                                   storage maps objects to servers (CephFS: the OSD id);
                                   -1 where targets are stripe columns */
    double time_plan;            /**< CPU seconds of planning (the strategy's plan made
                                   from the summary: domains, aggregators, rounds),
                                   slowest rank */
};
/** The size of the first version of struct rio_coll_info. */
#define RIO_COLL_INFO_SIZE_V1 RIO_SIZE_THROUGH(struct rio_coll_info, target_ascending)
/** The size with target_server. */
#define RIO_COLL_INFO_SIZE_V2 RIO_SIZE_THROUGH(struct rio_coll_info, target_server)
/** The size with time_plan. */
#define RIO_COLL_INFO_SIZE_V3 RIO_SIZE_THROUGH(struct rio_coll_info, time_plan)
/** Fill *out (out->size set by the caller) for the last collective data
 *  call on fh.  Collective over the file's communicator (it gathers the
 *  ranks' request traces); a bad out on one rank fails there only, after
 *  the collective part, so the other ranks are not left waiting.  Errors:
 *  MPI_ERR_ARG for no collective call yet, a NULL out or a size below
 *  RIO_COLL_INFO_SIZE_V1. */
int rio_coll_last(rio_file *fh, struct rio_coll_info *out);
/** The server that holds each of the n objects first.. of fh, by the map
 *  the collective engine plans with (a file striped into objects whose
 *  storage places them by hash: on CephFS the primary OSD's id):
 *  server[i] for object first + i, -1 for an object no collective call
 *  has reached yet, or every entry -1 when the file has no map (its
 *  targets are stripe columns; rio_coll_last's reason says why).  Local.
 *  Errors: MPI_ERR_ARG for first < 0, n < 0 or a NULL server with n > 0. */
int rio_file_get_servers(rio_file *fh, long long first, int n, int *server);

/* ---- adaptive selection ------------------------------------------------
 * With resonio_strategy=auto (the default) each new call signature starts
 * an examination: the applicable candidates run in turn, each for
 * resonio_select_calls calls, and the fastest is kept until the signature
 * changes or its throughput deviates more than resonio_select_threshold
 * from its examined average.  Decisions can be kept in a profile
 * (resonio_profile / RESONIO_PROFILE) for later runs.                    */
/** Capacity of the per-candidate arrays of struct rio_select_info; the
 *  library checks at build time that it holds every strategy, so ncand
 *  never exceeds it.  Twice the strategies there are, so that new ones
 *  (a file and a row of src/coll/strategies/list.h each) change no ABI. */
#define RIO_SELECT_MAX_CAND 16
#define RIO_SELECT_MAX_CAUSES 4
/** What the selector knows of one call signature of a file. */
struct rio_select_info {
    size_t size;                 /**< set by the caller (statistics, above) */
    int write;                   /**< 1 writes, 0 reads */
    int nprocs;                  /**< ranks */
    long long bytes;             /**< bytes of all ranks per call */
    long long regions;           /**< regions of all ranks per call */
    long long relgap;            /**< mean relative offset (orthrus.txt §2.1) */
    int ncand;                   /**< candidates examined */
    char cand[RIO_SELECT_MAX_CAND][16];
    double tput[RIO_SELECT_MAX_CAND];  /**< mean examined throughput, bytes/s (0: not yet) */
    int tput_calls[RIO_SELECT_MAX_CAND];
    char chosen[16];             /**< the strategy in use ("" while examining) */
    int examining;               /**< 1 during an examination period */
    int from_profile;            /**< the choice came from the profile */
    int from_earlier;            /**< the choice came from an earlier file of this process
                                      with the same signature and storage (the selector
                                      keeps its decisions across files unless
                                      resonio_select_reuse=disable); while examining: the
                                      examination goes on from where an earlier file left
                                      it (resonio_select_reuse=enable), tput and tput_calls
                                      holding its results */
    long long calls;             /**< calls seen with this signature */
    long long exam_calls;        /**< of those, calls spent examining */
    int reexams;                 /**< re-examinations so far */
    char causes[RIO_SELECT_MAX_CAUSES][96]; /**< the last re-examinations' causes */
    double select_time;          /**< seconds this rank spent selecting (recording the last
                                      call's throughput, examining, choosing) over all calls */
    double select_time_chosen;   /**< of those, seconds in calls made once a strategy was
                                      chosen (calls - exam_calls of them): the steady cost */
    int patience;                /**< deviating calls in a row that start the next
                                      re-examination: resonio_select_patience, doubled (up
                                      to 64, or that value if larger) each time a
                                      re-examination kept the choice, back to it when one
                                      changed the choice */
};
/** The size of the first version of struct rio_select_info. */
#define RIO_SELECT_INFO_SIZE_V1 RIO_SIZE_THROUGH(struct rio_select_info, patience)
/** Number of signatures the selector holds for fh.  Local. */
int rio_select_count(rio_file *fh, int *count);
/** Signature i (0 <= i < count) into *out (out->size set by the caller).
 *  Local; the same on every rank.  Errors: MPI_ERR_ARG for an i out of
 *  range, a NULL out or a size below RIO_SELECT_INFO_SIZE_V1. */
int rio_select_get(rio_file *fh, int i, struct rio_select_info *out);

/* ---- memory ------------------------------------------------------------
 * Freed blocks of 64 KiB and more (piece lists, metadata, round buffers)
 * are kept for the process's later calls and files, up to
 * RESONIO_POOL_MIB mebibytes (default 128), and released at MPI_Finalize. */
/** Release the kept blocks now: for a program done with I/O for a while,
 *  or one that measures its own memory.  *released (may be NULL) gets
 *  their bytes.  Local and thread-safe; a later call that needs such a
 *  block allocates it again.  Returns MPI_SUCCESS. */
int rio_release_memory(size_t *released);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* RESONIO_H */
