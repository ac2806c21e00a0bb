/*
 * indep_int.h — what the files of src/indep share: the pair cursor and the
 * method entry points.
 *
 * The pair cursor walks the memory side (memcount instances of memtype
 * over buf) and the file side (the view from stream byte file_start) with
 * one dataloop iterator each and yields pairs (file offset, memory address,
 * length) contiguous on both sides, in stream order: each pair is the
 * shorter of the two current region remainders.  peek shows the current
 * pair without consuming it; take consumes any prefix of it, so a method
 * may cut a pair at a window or batch boundary.
 */
#ifndef RIO_INDEP_INT_H
#define RIO_INDEP_INT_H

#include "indep.h"

struct rio_pairs {
    struct rio_dtype_iter fit, mit;
    int fit_live, mit_live;
    char *buf;
    MPI_Offset disp;
    MPI_Offset foff, flen;   /* current file region remainder (absolute offset) */
    MPI_Offset moff, mlen;   /* current memory region remainder (from buf); a
                                contiguous memory type is one region, without
                                an iterator (mit_live 0) */
    MPI_Offset left;         /* stream bytes not yet taken */
    MPI_Offset pos;          /* stream bytes taken (and, once a method returns,
                                moved), counted from the start of the request */
    long long fregions;      /* file regions started (for the stats) */
};

/** Position a cursor at the start of req.  Errors: RIO_E_NOMEM. */
int rio__indep_pairs_init(struct rio_pairs *c, const struct rio_indep_req *req);
/** The current pair: 1 with *foff, *mem, *len set; 0 when all nbytes are
 *  taken; RIO_E_ARG if the memory side holds fewer than nbytes bytes. */
int rio__indep_pairs_peek(struct rio_pairs *c, MPI_Offset *foff, char **mem, MPI_Offset *len);
/** Consume n bytes (0 < n <= the current pair's length). */
void rio__indep_pairs_take(struct rio_pairs *c, MPI_Offset n);
/** Next raw region of one side, for methods that flatten the sides
 *  separately (list I/O): the remainder of the current region first.
 *  file != 0 for the file side.  Returns 1 or 0 at the end of that side
 *  (max bounds the length). */
int rio__indep_pairs_region(struct rio_pairs *c, int file, MPI_Offset max, MPI_Offset *off,
                            MPI_Offset *len);
void rio__indep_pairs_free(struct rio_pairs *c);

/** Count n storage requests of method m in the file's counters, if it
 *  keeps any.  A method's slot in struct rio_stats req_method is its index
 *  in the public table (rio_indep_method_name), which leaves out auto. */
static inline void rio__indep_count(const struct rio_indep_req *req, enum rio_indep_method m,
                                    long long n)
{
    if (req->st->stats)
        rio__stat_add(&req->st->stats->req_method[m - RIO_INDEP_CONTIG], n);
}

/** A write of one run, len bytes from buf to file offset off: staged when
 *  other processes of this host write the file at once (req->shared). */
static inline int rio__indep_write_run(const struct rio_indep_req *req, const void *buf,
                                       size_t len, MPI_Offset off)
{
    return req->shared ? rio__store_pwrite_shared(req->st, buf, len, off)
                       : rio__store_pwrite_full(req->st, buf, len, off);
}

/* Methods.  Each moves the rest of the request from the cursor's position,
 * leaves in c->pos the stream bytes moved (for a read that meets end of
 * file, the prefix read; nothing after it is touched) and returns 0 or a
 * negative code.  Counters in req->st->stats are updated.
 *
 * by_regions: one call per run of file regions that follow one another
 * (contig and posix).  For reads, holes (a buffer of hole_max bytes, or
 * NULL) lets a run go on over holes of up to hole_max: the hole's bytes
 * are read into the buffer and dropped (the sieve method's reads of larger
 * regions).  A hole costs its bytes' copy; a storage call costs about as
 * much as copying 4 KiB (resonio-micro-indep, tmpfs and ext4: with 16 KiB
 * here a read of 4 KiB regions at density 0.25 took 0.86 ms against 0.36
 * ms with 4 KiB, per 2 MiB), so larger holes start the next call.  Sieved
 * reads of regions of RIO_INDEP_IOV_REGION bytes and more go this way
 * with holes of up to RIO_INDEP_HOLE_MAX; those of RIO_INDEP_IOV_SMALL
 * bytes and more whose mean hole is shorter than RIO_INDEP_HOLE_SUBPAGE go
 * with holes of up to that (sieve.c): the window they would otherwise
 * take reads the same holes and copies the regions once more. */
#define RIO_INDEP_HOLE_MAX ((MPI_Offset)4 << 10)
#define RIO_INDEP_HOLE_SUBPAGE ((MPI_Offset)8 << 10)
#define RIO_INDEP_HOLE_SPARSE ((MPI_Offset)4 << 10) /* smaller regions: sieve.c */
#define RIO_INDEP_IOV_REGION ((MPI_Offset)4096)
#define RIO_INDEP_IOV_SMALL ((MPI_Offset)1024)

/* The mean gap between the regions of a request of len bytes in regions
 * of mean bytes over span file bytes (at least two regions counted): the
 * hole the chooser and the sieve's preadv rule judge by. */
static inline double rio__indep_mean_hole(MPI_Offset span, MPI_Offset len, double mean)
{
    double nreg = RIO_MAX(2.0, (double)len / mean);
    return (double)(span - len) / (nreg - 1);
}

/* Each method's entry point, rio__indep_NAME for each row of methods.h
 * (contig and posix in indep.c, over rio__indep_by_regions below). */
#define RIO_INDEP_METHOD(E, name)                                                            \
    int rio__indep_##name(const struct rio_indep_req *req, struct rio_pairs *c);
#include "methods.h"
#undef RIO_INDEP_METHOD

int rio__indep_by_regions(const struct rio_indep_req *req, struct rio_pairs *c, char *holes,
                          MPI_Offset hole_max, long long *reqs);

/* Largest batch of pairs a list or datatype request carries. */
#define RIO_INDEP_BATCH 1024

#endif /* RIO_INDEP_INT_H */
