/*
 * file_int.h — the file object shared by the files of src/file.
 *
 * src/file is the top of the native library: it defines the rio_file_*
 * functions of include/resonio.h.  Each of them checks its arguments, does
 * its work through the layers below (dtype, indep, store) and ends at one
 * edge, rio__file_return(), which turns an internal code into an MPI error
 * code and calls the file's error handler.
 */
#ifndef RIO_FILE_INT_H
#define RIO_FILE_INT_H

#include "../common/agree.h"
#include "../common/common.h"
#include "../dtype/dtype.h"
#include "../store/store.h"
#include "../coll/coll.h"

struct rio_datarep;

struct rio_file {
    MPI_Comm comm;              /* private duplicate of the open communicator */
    int rank, nprocs;
    char *filename;             /* as the user gave it, prefix included */
    int amode;
    struct rio_hints hints;
    int write_only;             /* this rank's file cannot be read (opened write-only):
                                   the hints whose effect reads the file stay disabled */
    struct rio_store st;
    int store_open;

    /* view */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;   /* duplicates, or predefined handles */
    struct rio_dtype *etype_dt, *filetype_dt;
    MPI_Offset etype_size;
    char datarep[MPI_MAX_DATAREP_STRING];
    const struct rio_datarep *drep; /* NULL for native and internal */
    int view_overlaps;              /* the filetype's regions overlap (a read-only file):
                                       accessed region by region in stream order */
    int views_overlap;              /* some rank's view does (agreed at set_view): collective
                                       calls bypass the engine on every rank */

    /* file pointers, in etypes of the current view */
    MPI_Offset fp_ind;
    MPI_Win shared_win;             /* one MPI_Offset on rank 0; MPI_WIN_NULL when the
                                       MPI library could not make it (shared_why) */
    MPI_Offset *shared_mem;
    char *shared_why;               /* the MPI library's error, or NULL */

    int atomic;
    MPI_Errhandler errh;
    MPI_Fint fint;                  /* Fortran handle, 0 until asked */

    /* split collective in progress */
    int split_active;
    int split_err;
    MPI_Status split_status;
    struct rio_job *split_job;      /* its job on the lane, when it runs there */

    /* requests of nonblocking calls the user has not yet completed or
       freed (async.c's list, under its lock) */
    struct rio_job *jobs;
    int jobs_running, writes_running; /* its jobs not yet settled (async.c) */
    struct rio_lane *lane;          /* collective calls in the background (async.c) */
    struct rio_copies *copies;      /* blocks for the copies of such calls (capture.c) */

    rio_stats stats;
    int report;                     /* RESONIO_STATS at open: print reports */
    struct rio_coll_ctx *coll;      /* made at open, else by the first collective call */
};

/* A registered data representation (MPI_Register_datarep). */
struct rio_datarep {
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *read_fn, *write_fn;
#if MPI_VERSION >= 4
    MPI_Datarep_conversion_function_c *read_fn_c, *write_fn_c;
#endif
    MPI_Datarep_extent_function *extent_fn;
    void *extra_state;
    int external32;                 /* the predefined "external32" */
};

/* ---- errors (errh.c) ---------------------------------------------------
 * The API edge: err (0 or internal) becomes an MPI error code naming op and
 * the file, and the file's error handler (the default one for fh == NULL)
 * is called.  Returns the MPI code.                                       */
int rio__file_return(rio_file *fh, int err, const char *op);
/** Same, for calls that name a file but have no handle (open, delete). */
int rio__file_return_name(int err, const char *op, const char *name);
/** Give a new file (fh->comm set) the default handler, holding a
 *  reference to it while attached. */
void rio__file_errh_init(rio_file *fh);

/* ---- hints (hints.c) --------------------------------------------------- */
/* The file layer's own hints. */
struct rio_file_settings {
    int file_perm;   /* -1 = default (0666 & ~umask) */
    int no_indep_rw; /* romio_no_indep_rw */
    int nb_copy;     /* resonio_nb_copy: bytes (capture.c) */
};
extern const struct rio_settings_owner rio__file_settings_owner;
static inline const struct rio_file_settings *rio__file_settings(const struct rio_hints *h)
{
    return rio__settings_get(h, &rio__file_settings_owner);
}
/** The i-th owner of hints (the file layer's, the storage layer's and its
 *  drivers', the collective engine's, the selector's, the independent
 *  layer's); NULL past the last.  Static storage. */
const struct rio_settings_owner *rio__hints_owner_at(int i);
/** Set h to every owner's defaults.  Local.  Returns 0 or RIO_E_NOMEM (h
 *  then holds no owners and reads the defaults; rio__hints_free is safe). */
int rio__hints_defaults(struct rio_hints *h);
/** Apply info (may be MPI_INFO_NULL) and then RESONIO_HINTS on top.  With
 *  no_reads (the file cannot be read) the keys whose effect reads the file
 *  are left alone. */
void rio__hints_apply(struct rio_hints *h, MPI_Info info, int at_open, int no_reads);
/** Turn off, for good, every key whose effect reads the file (romio_ds_write,
 *  ds_in_coll): the file was opened write-only.  Local. */
void rio__hints_no_reads(struct rio_hints *h);
/** Set one key from its text as an info value at open would.  Returns 0,
 *  or -1 for an unknown key or a malformed value.  Local (tests, tools). */
int rio__hints_set(struct rio_hints *h, const char *key, const char *val);
/* The hints file (ROMIO_HINTS, else /etc/romio-hints): read on one rank,
 * broadcast by the caller, applied at open beneath the info. */
#define RIO_HINTFILE_MAX 16384
/** Read the hints file into text (RIO_HINTFILE_MAX + 1 bytes, given by the
 *  caller; NUL-terminated) and its name into name (may be NULL).  Local.
 *  Returns its length, or -1 when there is no readable hints file (not an
 *  error).  A longer file is cut at RIO_HINTFILE_MAX bytes. */
int rio__hints_file_read(char *text, char *name, size_t name_len);
/** Apply the hints file's text (NUL-terminated, or NULL) at open: each
 *  well-formed "key value" line whose key info (may be MPI_INFO_NULL) does
 *  not hold, as unknown and malformed hints are handled.  Malformed lines
 *  are reported on stderr when RESONIO_VERBOSE is set and report is
 *  nonzero (one rank), as name's line.  Local; the text is modified. */
void rio__hints_file_apply(struct rio_hints *h, MPI_Info info, char *text, const char *name,
                           int report);
void rio__hints_free(struct rio_hints *h);
/** A new info object with every hint in effect.  Errors: RIO_E_NOMEM. */
int rio__hints_to_info(const struct rio_hints *h, MPI_Info *out);

/* ---- views and data representations (view.c) ------------------------- */
/** Set the default view: disp 0, etype and filetype MPI_BYTE, native. */
int rio__view_default(rio_file *fh);
void rio__view_free(rio_file *fh);
/** The datarep called name, or NULL; "native"/"internal" give NULL in
 *  *out and return 0; unknown names return RIO_E_DATAREP. */
int rio__datarep_find(const char *name, const struct rio_datarep **out);
/** Stream position (bytes) of the view at the end of a file of size
 *  bytes, rounded up to a whole etype. */
MPI_Offset rio__view_eof_etypes(rio_file *fh, MPI_Offset size);

/* ---- shared file pointer (shared.c) ----------------------------------- */
/** Make the pointer's window.  When the MPI library cannot make one (every
 *  rank agrees), the file opens all the same without a shared pointer:
 *  its calls then fail with RIO_E_NO_SHARED_FP.  Collective; returns 0 or
 *  RIO_E_NOMEM. */
int rio__shared_create(rio_file *fh);
void rio__shared_free(rio_file *fh);
/** Atomically add delta to the shared pointer; *old gets its prior value. */
int rio__shared_fetch_add(rio_file *fh, MPI_Offset delta, MPI_Offset *old);
/** Set it (rank 0 calls; collective callers barrier afterwards). */
int rio__shared_set(rio_file *fh, MPI_Offset value);

/* ---- handles (open.c) ------------------------------------------------- */
/** Local check of a handle: RIO_E_FILE for NULL. */
int rio__file_check(rio_file *fh);

/* ---- nonblocking independent calls in the background (async.c) -------- */
/* How nonblocking independent calls complete in this process, decided at
 * the first call from the thread level MPI provided and the library. */
enum { RIO_ASYNC_NONE, RIO_ASYNC_THREAD, RIO_ASYNC_POLL, RIO_ASYNC_PROGRESS };
/** RIO_ASYNC_NONE: do the work at issue time (none of the below, or
 *  RESONIO_IO_THREADS=0);
 *  RIO_ASYNC_THREAD: an I/O thread completes the request;
 *  RIO_ASYNC_POLL: MPI_Test/MPI_Wait complete it through the poll hook;
 *  RIO_ASYNC_PROGRESS: a function in Open MPI's progress loop completes
 *  it (inside MPI_Test, MPI_Wait and every other call that progresses).
 *  Local; calls MPI_Query_thread the first time. */
int rio__async_mode(void);
/** Queue a job on fh and give the user its request.  run(arg, &done) runs
 *  on an I/O thread and must not call MPI; it returns 0 or an internal
 *  code and sets the bytes moved.  release(arg) runs once after it (or
 *  instead of it, for a cancelled job), also without MPI, and frees arg.
 *  On success the job owns arg.  op is static storage.  Local; the mode
 *  must not be RIO_ASYNC_NONE.  Errors: RIO_E_NOMEM (arg still the
 *  caller's, *request untouched). */
int rio__async_submit(rio_file *fh, const char *op, int write, int (*run)(void *, MPI_Offset *),
                      void (*release)(void *), void *arg, MPI_Request *request);
/** Wait until every job of fh (only writes with writes_only) has run.
 *  Local. */
void rio__async_drain(rio_file *fh, int writes_only);
/** Requests of fh the user has not completed or freed.  Local. */
int rio__async_pending(rio_file *fh);
/** At close: wait for fh's jobs, then detach the requests still
 *  outstanding from fh (they stay valid for a later wait).  Returns how
 *  many there were.  Collective when fh has a lane (it is ended and its
 *  communicator freed), else local. */
int rio__async_detach(rio_file *fh);

/** Generalized requests resonio started and has not completed yet, after
 *  completing those the user freed early whose jobs have run (poll mode).
 *  Local; for tests. */
int rio__async_requests_open(void);

/** Can collective calls on fh run in the background (thread mode: a
 *  thread of the file's own may call MPI)?  Local. */
int rio__async_coll_ok(void);
/** Queue a collective job on fh's lane: one thread of the file's own runs
 *  the lane's jobs one at a time in issue order, so every rank runs them
 *  in the same order.  run(arg, comm, &done) may call MPI; comm is the
 *  lane's duplicate of fh->comm, made here by the first job (so the first
 *  call is collective: every rank's first background collective call on
 *  fh).  With request NULL the job is internal (a split collective's):
 *  rio__async_wait_job collects it.  Otherwise as rio__async_submit.
 *  When this rank has no memory for the job, fail(arg, RIO_E_NOMEM) marks
 *  the call failed and it runs here, after the lane's jobs (the other
 *  ranks' lanes meet it; its agreement makes the error theirs); no request
 *  is made and its error is returned.  Errors: RIO_E_NOMEM, RIO_E_MPI (the
 *  duplicate failed; agreed), or the failed call's agreed error. */
int rio__async_submit_coll(rio_file *fh, const char *op, int write,
                           int (*run)(void *, MPI_Comm, MPI_Offset *), void (*release)(void *),
                           void (*fail)(void *, int), void *arg, MPI_Request *request,
                           struct rio_job **internal);
/** A collective call this rank could not even describe for the lane (its
 *  arguments' allocation failed): run(arg, comm, &done) with arg marking
 *  the call failed, here and now, after the lane's jobs, as above.
 *  Collective (with the other ranks' lanes).  Returns the agreed error. */
int rio__async_run_coll_now(rio_file *fh, int (*run)(void *, MPI_Comm, MPI_Offset *), void *arg);
/** Wait for an internal job; its error (an internal code, the detail set)
 *  and bytes moved.  Frees the job.  Local. */
int rio__async_wait_job(struct rio_job *j, MPI_Offset *done);
/** Wait until fh's lane has run every job queued on it: a blocking
 *  collective call, which uses the engine's state, comes after them.
 *  Local. */
void rio__async_lane_drain(rio_file *fh);

/** Below MULTIPLE, where a poll or progress hook completes requests: a
 *  collective call runs its engine at issue with its storage transfers
 *  kept (capture.c) and leaves them to its lane.  Local. */
int rio__async_behind_ok(void);
/** Queue such a call's kept transfers (writes when write, else reads) on
 *  fh's lane (made here by the first background collective call:
 *  collective): run(arg, &done) makes them, calling no MPI.  Its request
 *  completes once every rank's transfers are made and the ranks have
 *  agreed on the outcome, in whichever call
 *  drives the lane first after that: MPI_Test or
 *  MPI_Wait on it (MPICH's hooks) or any call that progresses (Open
 *  MPI's), a resonio nonblocking call, the split collective's end, a
 *  blocking collective call on fh, close.  request NULL: internal (a split
 *  collective's, rio__async_wait_job).  When this rank has no memory for
 *  the job, its transfers are made here and it agrees at once, after the
 *  lane's jobs.  Returns 0 or an error of this rank's (no request made). */
int rio__async_submit_behind(rio_file *fh, const char *op, int write,
                             int (*run)(void *, MPI_Offset *), void (*release)(void *), void *arg,
                             MPI_Request *request, struct rio_job **internal);
/** Wait until the jobs on fh's lane have made their transfers (not the
 *  agreements: no MPI).  Local. */
void rio__async_lane_wait_transfers(rio_file *fh);

/* ---- a collective call's transfers, kept for its lane (capture.c) ----- */
struct rio_capture;
/** cap becomes a store over fh's that keeps the writes (write) or reads
 *  made through it whose bytes lie in [lo, hi), the caller's buffer, which
 *  must not change until they are made (lo NULL: none kept), and makes
 *  them (after the lane's earlier jobs' writes) before any operation that
 *  changes the file; a read call's kept reads count whole.  Local.
 *  RIO_E_NOMEM. */
int rio__capture_begin(rio_file *fh, struct rio_store *cap, int write, const void *lo,
                       const void *hi);
/** Go through from now on, the kept transfers made first.  Local. */
int rio__capture_through(struct rio_store *cap);
/** The end of the call: what cap kept (cap is unusable after). */
struct rio_capture *rio__capture_end(struct rio_store *cap);
/** Make the kept transfers through the file's store, in order; calls no
 *  MPI.  0 or the first error; *short_by the bytes the call's reads were
 *  counted for and did not bring (the end of the file came first). */
int rio__capture_replay(struct rio_capture *c, MPI_Offset *short_by);
void rio__capture_free(struct rio_capture *c);
/** Give fh's blocks for copies to the pool; after its lane has ended.
 *  Local. */
void rio__capture_close(rio_file *fh);

/* ---- statistics (stats.c) --------------------------------------------- */
/** Print the counters summed over ranks, on rank 0, if RESONIO_STATS was
 *  set when the file was opened.  Collective. */
void rio__stats_report(rio_file *fh);
/** Copy fh's counters into out, each read atomically (other threads may
 *  be counting), with its collective engine's (the communicators it
 *  made).  Local. */
void rio__stats_file(rio_file *fh, rio_stats *out);
/** The size rule of the public structs (resonio.h, statistics): copy the
 *  first min(out's size member, have) bytes of full, a whole struct of
 *  have bytes filled by the library, into out, with that count as out's
 *  size.  what names the struct for the message.  Local.  Errors:
 *  RIO_E_ARG when out's size is below v1 (the first version's size; 0,
 *  unset, included): out untouched. */
int rio__stats_copy_sized(void *out, void *full, size_t have, size_t v1, const char *what);
/** 1 when RESONIO_STATS asks for reports. */
int rio__stats_wanted(void);
/** Print what a collective call did (rank 0).  Collective. */
void rio__stats_coll_call(rio_file *fh, const char *op);

#endif /* RIO_FILE_INT_H */
