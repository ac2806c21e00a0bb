/*
 * dtype.h — the datatype engine.
 *
 * An MPI datatype is decoded once (MPI_Type_get_envelope/get_contents,
 * every combiner) into a tree of dataloops — contig, vector, blockindexed,
 * indexed, struct — over byte leaves, normalized (loop fusion, struct of
 * identical leaves to indexed, zero-length blocks dropped, contiguous
 * vectors collapsed) and cached on the MPI datatype as an attribute whose
 * delete callback drops the cache's reference.
 *
 * Iterators walk the data stream of `count` instances of a type (instance k
 * displaced by k * extent) and yield its contiguous regions in stream order,
 * adjacent regions merged.  They start at any byte of the stream, stop after
 * any number of bytes and resume, in O(depth) memory: no offset list is
 * ever built.  Region offsets are byte displacements from the buffer origin
 * (the address passed to MPI, or the view's displacement for a filetype)
 * and may be negative for memory types.
 */
#ifndef RIO_DTYPE_H
#define RIO_DTYPE_H

#include <mpi.h>

#include "../common/common.h"

struct rio_dtype;  /* opaque, reference counted */
struct rio_dl;     /* the dataloop core's tree (src/dloop/dloop.h) */

struct rio_dtype_info {
    MPI_Count size;          /* data bytes per instance */
    MPI_Aint lb, extent;     /* as MPI_Type_get_extent */
    MPI_Aint true_lb, true_extent;
    MPI_Count regions;       /* contiguous regions per instance, merged */
    int depth;               /* dataloop tree depth, leaves included */
    int contig;              /* one region per instance and extent == size:
                                count instances are one region */
    int monotonic;           /* regions of one instance have nondecreasing,
                                non-overlapping, nonnegative offsets and lie
                                within [0, extent) — valid as a filetype tile */
};

/**
 * Get the decoded form of type, decoding and caching it on first use.
 * Local.  On success *out holds a new reference (release with
 * rio__dtype_put).  Errors: RIO_E_TYPE for MPI_DATATYPE_NULL or a type
 * that is not committed where commitment is needed, RIO_E_NOMEM.
 */
int rio__dtype_get(MPI_Datatype type, struct rio_dtype **out);
void rio__dtype_put(struct rio_dtype *dt);
/** Another reference to dt, which the caller holds (one more
 *  rio__dtype_put is then owed).  Returns dt.  Thread-safe; no MPI call. */
struct rio_dtype *rio__dtype_hold(struct rio_dtype *dt);
const struct rio_dtype_info *rio__dtype_info(const struct rio_dtype *dt);

/**
 * Iterator over the regions of count instances of dt.  Fields are private;
 * the struct is here so that callers can keep it on the stack.  count < 0
 * means unbounded (a file view tiles its filetype forever).
 */
struct rio_dtype_iter {
    const struct rio_dtype *dt;
    MPI_Count count;
    MPI_Count inst;          /* current instance */
    MPI_Offset pos;          /* stream bytes consumed */
    int depth, top;
    void *frames;            /* depth frames; inline for shallow types */
    char inline_frames[512];
    /* one region of look-ahead, used to merge adjacent regions */
    MPI_Offset pend_off, pend_len;
    int have_pend;
};

/** Start at byte `start` of the data stream.  Errors: RIO_E_NOMEM. */
int rio__dtype_iter_init(struct rio_dtype_iter *it, const struct rio_dtype *dt, MPI_Count count,
                         MPI_Offset start);
/** Next region, at most max_bytes long (a longer one is split and the rest
 *  comes next).  Returns 1 and sets *off, *len; 0 at the end. */
int rio__dtype_iter_next(struct rio_dtype_iter *it, MPI_Offset max_bytes, MPI_Offset *off,
                         MPI_Offset *len);
/** The next regions as one strided run, of at most max_bytes together:
 *  *n regions of *len bytes, the k-th at *off + k * *stride.  Whole blocks
 *  of a vector leaf come together (*n > 1, *stride > *len: they neither
 *  touch nor overlap); any other region comes alone (*n = 1, *stride =
 *  *len), as iter_next hands it out.  Returns 1, or 0 at the end. */
int rio__dtype_iter_strided(struct rio_dtype_iter *it, MPI_Offset max_bytes, MPI_Offset *off,
                            MPI_Offset *len, MPI_Offset *stride, MPI_Count *n);
/** Copy the next len stream bytes (fewer at the end of the stream)
 *  between the typed buffer (region offsets are relative to it) and the
 *  contiguous one: to_contig != 0 packs typed into contig, else unpacks.
 *  Advances the iterator as if those bytes had been handed out; returns
 *  the bytes copied.  The fast path of pack/unpack and of staging. */
MPI_Offset rio__dtype_iter_copy(struct rio_dtype_iter *it, char *typed, char *contig,
                                MPI_Offset len, int to_contig);
/** Stream bytes handed out so far, counted from byte 0 of the stream. */
MPI_Offset rio__dtype_iter_pos(const struct rio_dtype_iter *it);
void rio__dtype_iter_free(struct rio_dtype_iter *it);

/** Copy len stream bytes, starting at stream byte start, of count instances
 *  of dt over buf into the contiguous out (pack) or back (unpack).
 *  Local.  Errors: RIO_E_NOMEM, RIO_E_ARG when start+len exceeds the stream. */
int rio__dtype_pack(const struct rio_dtype *dt, MPI_Count count, const void *buf,
                    MPI_Offset start, MPI_Offset len, void *out);
int rio__dtype_unpack(const struct rio_dtype *dt, MPI_Count count, void *buf, MPI_Offset start,
                      MPI_Offset len, const void *in);

/**
 * Check that filetype is a valid filetype for etype in a view: nonnegative,
 * nondecreasing, non-overlapping displacements within a tile (a tile's
 * data may reach into the next tile), a positive extent and a size that
 * is a whole number of etypes.  With
 * read_only, regions of one tile may overlap if their displacements do
 * not decrease: *overlaps is then 1 (else 0), and such a view must be
 * read region by region in stream order.  A filetype that holds no data
 * is valid whatever its extent (a view through which nothing moves).  0
 * or RIO_E_FILETYPE with a detail naming the cause.
 */
int rio__dtype_check_filetype(const struct rio_dtype *filetype, const struct rio_dtype *etype,
                              int read_only, int *overlaps);

/**
 * File offset of stream byte `pos` of a view (displacement disp, filetype
 * ft tiled without end): the offset of the byte that holds it.  Whole tiles
 * are skipped arithmetically and one in-tile search is made.  A filetype
 * that holds no data has no such byte: every position maps to disp.
 */
MPI_Offset rio__dtype_view_offset(const struct rio_dtype *ft, MPI_Offset disp, MPI_Offset pos);

/** Whether the file offsets of stream bytes [pos, pos + len) of a view
 *  increase with the stream position (and do not overlap): always, unless
 *  the filetype's regions overlap (a read-only view) or the bytes span
 *  tiles whose data overlap.  Requests that are not in file order are
 *  served region by region in stream order, or cut into pieces that are
 *  then sorted. */
int rio__dtype_view_monotone(const struct rio_dtype *ft, MPI_Offset pos, MPI_Offset len);

/** The first and one-past-last file bytes touched by len stream bytes of a
 *  view from stream byte pos (len > 0).  Used for locks and sieving. */
void rio__dtype_view_extent(const struct rio_dtype *ft, MPI_Offset disp, MPI_Offset pos,
                            MPI_Offset len, MPI_Offset *first, MPI_Offset *end);

/** The dataloop tree of dt in the form of the dataloop core
 *  (src/dloop/dloop.h), normalized and with every fact set, for layers
 *  that hand it to a walker or an encoder of their own (the emu driver
 *  ships it to its servers).  NULL for a type without data.  Borrowed:
 *  it lives as long as the caller's reference to dt. */
const struct rio_dl *rio__dtype_dloop(const struct rio_dtype *dt);

#endif /* RIO_DTYPE_H */
