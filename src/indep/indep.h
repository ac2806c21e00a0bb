/*
 * indep.h — independent access methods.
 *
 * One request moves nbytes of a data stream between memory (count
 * instances of a memory type over buf, starting at stream byte 0) and a
 * file view (filetype tiled from disp, starting at stream byte file_start).
 * The methods of datatype-io.txt §II–IV serve it, one row each in
 * methods.h (the one list of them):
 *
 *   contig  one call; both sides contiguous (or memory packed first)
 *   posix   one storage call per file region
 *   sieve   data sieving: read a window covering many regions, copy, and
 *           for writes write the window back while holding a byte-range
 *           lock on it (romio_ds_read/romio_ds_write, ind_rd_buffer_size,
 *           ind_wr_buffer_size)
 *   list    list I/O: batches of (file region, memory piece) pairs
 *   dtype   datatype I/O: both dataloops iterated straight into batches
 *   view    the whole request as one datatype request to storage (the
 *           filetype to the driver's write_view/read_view, memory packed
 *           when not contiguous)
 *
 * rio__indep_rw picks one from the access shape (density of the file
 * extent, region count and size) and what storage offers (its own
 * datatype I/O: RIO_STORE_CAP_OWN_VIEWS) unless the resonio_indep_method
 * hint forces one.  The layer's hints (data sieving, the forced method) are its
 * own settings, declared in indep.c's key table and read through
 * rio__indep_settings.
 */
#ifndef RIO_INDEP_H
#define RIO_INDEP_H

#include "../common/common.h"
#include "../dtype/dtype.h"
#include "../store/store.h"

/* The methods of methods.h, after auto (the chooser). */
enum rio_indep_method {
    RIO_INDEP_AUTO = 0,
#define RIO_INDEP_METHOD(E, name) RIO_INDEP_##E,
#include "methods.h"
#undef RIO_INDEP_METHOD
    RIO_INDEP_NMETHODS /* how many there are, auto included */
};

/* The largest window of a sieved read, whatever ind_rd_buffer_size allows
 * (sieve.c). */
#define RIO_INDEP_READ_WINDOW_MAX ((MPI_Offset)256 << 10)

/* The independent layer's hints (keys in indep.c). */
struct rio_indep_settings {
    enum rio_tristate romio_ds_read, romio_ds_write;
    long long ind_rd_buffer_size; /* default 4 MiB; a read's window is at most
                                   * RIO_INDEP_READ_WINDOW_MAX (sieve.c) */
    long long ind_wr_buffer_size; /* default 512 KiB */
    enum rio_indep_method indep_method; /* resonio_indep_method */
};
extern const struct rio_settings_owner rio__indep_settings_owner;
/** The independent layer's settings in h (zeros when h is NULL or has no
 *  owners); lives as long as h. */
static inline const struct rio_indep_settings *rio__indep_settings(const struct rio_hints *h)
{
    return rio__settings_get(h, &rio__indep_settings_owner);
}

struct rio_indep_req {
    struct rio_store *st;
    int write;                       /* 1 write, 0 read */
    /* memory side */
    void *buf;
    const struct rio_dtype *memtype;
    MPI_Count memcount;
    /* file side */
    const struct rio_dtype *filetype;
    MPI_Offset disp;
    MPI_Offset file_start;           /* stream byte of the view where this starts */
    MPI_Offset nbytes;               /* bytes to move; <= memcount * memtype size */
    int locked;                      /* the caller holds a byte-range lock over the
                                        whole extent (atomic mode): methods must not
                                        take or release locks of their own */
    enum rio_indep_method method;    /* RIO_INDEP_AUTO: the chooser (or the hint)
                                        decides; else this method (the collective
                                        engine's direct strategy forces list I/O) */
    int shared;                      /* a write that other processes of this host make
                                        to the file at the same time (a collective
                                        call's): its runs go through
                                        rio__store_pwrite_shared */
    MPI_Offset first, end;           /* the file bytes [first, end) the request spans
                                        (rio__dtype_view_extent of file_start and
                                        nbytes), when the caller has them; end 0 (as a
                                        designated initializer leaves it): not given,
                                        computed once by rio__indep_rw */
};

/**
 * Perform one independent request.  Local.  *done receives the bytes moved:
 * nbytes unless a read reaches end of file (then the stream prefix that
 * was read), and 0 through a filetype that holds no data.  Returns 0 or a negative internal code; counters in st->stats
 * are updated.
 */
int rio__indep_rw(const struct rio_indep_req *req, MPI_Offset *done);

/** The method the chooser would use for req (for stats and tests).  Uses
 *  req->first and end when given. */
enum rio_indep_method rio__indep_choose(const struct rio_indep_req *req);

/** The view method's transfer without its counters, shared with the
 *  collective engine's direct strategy: stream bytes [pos, nbytes) of req
 *  as one rio__store_write_view/read_view of req->filetype (list I/O where
 *  the driver has no views), the memory side handed over as one run, or
 *  packed into (a read: unpacked from) a buffer of those bytes, allocated
 *  for the call, when it is not one.  Local.  *done: the bytes moved (a
 *  read's prefix before end of file); *copies grows by the bytes packed
 *  and unpacked.  0 or a negative code (RIO_E_NOMEM, the storage's). */
int rio__indep_view_rw(const struct rio_indep_req *req, MPI_Offset pos, long long *copies,
                       MPI_Offset *done);

/** The name of method m, as the resonio_indep_method hint spells it
 *  ("auto" for RIO_INDEP_AUTO); static.  Local; never NULL for
 *  0 <= m < RIO_INDEP_NMETHODS. */
const char *rio__indep_method_name(enum rio_indep_method m);

#endif /* RIO_INDEP_H */
