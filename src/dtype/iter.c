/*
 * iter.c — walking the regions of a data stream (the hot path of all I/O).
 *
 * An iterator is a stack of frames of the dataloop core (src/dloop/dloop.h),
 * one per level from the root to a leaf; the core's steps take a run from
 * the leaf frame and move past a finished leaf block (up to the first level
 * with elements left and back down) with no recursion and no allocation
 * per region.  The invariant between calls is that the frames point at the
 * next byte run not yet handed out (or top < 0 at the end).  This file adds
 * what the core leaves to its users: instances following one another at
 * the type's extent, merging, and the fast paths below.
 *
 * Seeking to stream byte s divides by the type size to skip whole
 * instances, then descends once: vector-like levels by division, indexed
 * and struct levels by a binary search over the prefix sums of their block
 * sizes computed at decode time.
 *
 * Adjacent runs are merged through one region of look-ahead (pend_*): runs
 * are appended while they touch and the region is shorter than the caller's
 * limit; a longer region is handed out in limit-sized pieces.  Types whose
 * instances form one run (info.contig) are served as one region for all
 * instances without walking them.
 */
#include "dtype_int.h"

#include <stdlib.h>
#include <string.h>

/* Region length cap when the caller sets no limit, and the piece size of an
 * unbounded contiguous stream. */
#define NO_LIMIT ((MPI_Offset)1 << 60)

_Static_assert(offsetof(struct rio_dtype_iter, inline_frames) % _Alignof(struct rio_dl_frame) ==
                   0,
               "inline frames misaligned");

static inline struct rio_dl_frame *frames_of(struct rio_dtype_iter *it)
{
    /* frames == NULL means the inline buffer, so an iterator can be copied */
    return it->frames ? (struct rio_dl_frame *)it->frames
                      : (struct rio_dl_frame *)(void *)it->inline_frames;
}

/* Contract in dtype.h.  The iterator borrows dt (the caller keeps its
 * reference until rio__dtype_iter_free).  Frames live inline for types of
 * depth up to 16; deeper ones take one rio__malloc (RIO_E_NOMEM).  A
 * negative start is RIO_E_ARG. */
int rio__dtype_iter_init(struct rio_dtype_iter *it, const struct rio_dtype *dt, MPI_Count count,
                         MPI_Offset start)
{
    const struct rio_dl *root = dt->root;
    MPI_Count size = dt->info.size;
    it->dt = dt;
    it->count = count;
    it->inst = 0;
    it->pos = start;
    it->depth = 0;
    it->top = -1;
    it->frames = NULL;
    it->pend_off = it->pend_len = 0;
    it->have_pend = 0;
    if (start < 0) {
        rio__err_detail("iterator start %lld is negative", (long long)start);
        return RIO_E_ARG;
    }
    if (!root || count == 0 || (count > 0 && start / size >= count))
        return 0; /* nothing to walk */
    size_t need = (size_t)root->depth * sizeof(struct rio_dl_frame);
    if (need > sizeof it->inline_frames) {
        it->frames = rio__malloc(need);
        if (!it->frames)
            return RIO_E_NOMEM;
    }
    it->depth = root->depth;
    struct rio_dl_frame *f = frames_of(it);
    it->inst = start / size;
    if (dt->info.contig) {
        /* one run for every instance; el is the stream byte reached */
        f[0] = (struct rio_dl_frame){root, 0, 0, start};
        it->top = 0;
        return 0;
    }
    it->top = rio__dl_locate(root, it->inst * dt->info.extent, start % size, f, NULL);
    return 0;
}

/* Past a finished instance: the first leaf block of the next one, or the
 * end of the stream. */
static int next_instance(struct rio_dtype_iter *it, struct rio_dl_frame *f)
{
    if (it->count >= 0 && it->inst + 1 >= it->count)
        return -1;
    it->inst++;
    return rio__dl_start(f, f[0].dl, it->inst * it->dt->info.extent);
}

/* Move the frames past a finished leaf block (the core's step, then the
 * next instance when this one is done). */
static void advance(struct rio_dtype_iter *it, struct rio_dl_frame *f)
{
    int top = rio__dl_advance(f, it->top);
    it->top = top >= 0 ? top : next_instance(it, f);
}

/* The next byte run (unmerged).  0 at the end. */
static inline int raw_next(struct rio_dtype_iter *it, struct rio_dl_frame *f, MPI_Offset *off,
                           MPI_Offset *len)
{
    if (it->top < 0)
        return 0;
    if (it->dt->info.contig) {
        struct rio_dl_frame *lf = &f[it->top];
        *off = lf->dl->off + lf->el; /* extent == size: stream byte p sits at off + p */
        if (it->count < 0) {
            *len = NO_LIMIT;
            lf->el += NO_LIMIT;
        } else {
            *len = it->count * it->dt->info.size - lf->el;
            it->top = -1;
        }
        return 1;
    }
    int64_t o, l;
    int top = rio__dl_run(f, it->top, &o, &l);
    it->top = top >= 0 ? top : next_instance(it, f);
    *off = o;
    *len = l;
    return 1;
}

/* Contract in dtype.h.  max_bytes <= 0 means no limit (regions are then
 * capped at 2^60 bytes, which only an unbounded contiguous stream reaches). */
int rio__dtype_iter_next(struct rio_dtype_iter *it, MPI_Offset max_bytes, MPI_Offset *off,
                         MPI_Offset *len)
{
    MPI_Offset lim = max_bytes > 0 ? max_bytes : NO_LIMIT;
    struct rio_dl_frame *f = frames_of(it);
    if (!it->have_pend) {
        if (!raw_next(it, f, &it->pend_off, &it->pend_len))
            return 0;
        it->have_pend = 1;
    }
    while (it->pend_len < lim && it->top >= 0) {
        MPI_Offset o, l;
        raw_next(it, f, &o, &l);
        if (o == it->pend_off + it->pend_len) {
            it->pend_len += l;
        } else {
            *off = it->pend_off;
            *len = it->pend_len;
            it->pos += it->pend_len;
            it->pend_off = o;
            it->pend_len = l;
            return 1;
        }
    }
    MPI_Offset n = RIO_MIN(it->pend_len, lim);
    *off = it->pend_off;
    *len = n;
    it->pos += n;
    it->pend_off += n;
    it->pend_len -= n;
    it->have_pend = it->pend_len > 0;
    return 1;
}

/* Whole blocks the iterator can hand out at once from where it stands:
 * at the start of a block of a vector leaf (no per-block displacements or
 * lengths, no look-ahead pending), at most max of them and of max_bytes
 * bytes together; 0 elsewhere.  The fast path of iter_strided and
 * iter_copy. */
static inline MPI_Count vector_blocks(const struct rio_dtype_iter *it,
                                      const struct rio_dl_frame *f,
                                      MPI_Offset max_bytes, MPI_Count max)
{
    if (it->have_pend || it->top < 0 || it->dt->info.contig)
        return 0;
    const struct rio_dl_frame *lf = &f[it->top];
    const struct rio_dl *d = lf->dl;
    if (d->displs || d->blocklens || lf->el != 0)
        return 0;
    return RIO_MIN(RIO_MIN(d->nblocks - lf->blk, max), max_bytes / d->blocklen);
}

/* Offset of the current block of the leaf frame at level top. */
static MPI_Offset block_offset(const struct rio_dl_frame *f, int top)
{
    return f[top].base + f[top].blk * f[top].dl->stride;
}

/* Move past nb whole blocks that vector_blocks allowed. */
static void skip_blocks(struct rio_dtype_iter *it, struct rio_dl_frame *f, MPI_Count nb)
{
    struct rio_dl_frame *lf = &f[it->top];
    lf->blk += nb;
    if (lf->blk >= lf->dl->nblocks)
        advance(it, f);
}

/* Contract in dtype.h. */
int rio__dtype_iter_strided(struct rio_dtype_iter *it, MPI_Offset max_bytes, MPI_Offset *off,
                            MPI_Offset *len, MPI_Offset *stride, MPI_Count *n)
{
    struct rio_dl_frame *f = frames_of(it);
    MPI_Count nb = vector_blocks(it, f, max_bytes, max_bytes);
    if (nb > 1 && f[it->top].dl->stride > f[it->top].dl->blocklen) {
        const struct rio_dl *d = f[it->top].dl;
        *off = block_offset(f, it->top);
        *len = d->blocklen;
        *stride = d->stride;
        *n = nb;
        it->pos += nb * d->blocklen;
        skip_blocks(it, f, nb);
        return 1;
    }
    if (!rio__dtype_iter_next(it, max_bytes, off, len))
        return 0;
    *stride = *len;
    *n = 1;
    return 1;
}

/* Contract in dtype.h.  Whole blocks of a vector leaf are copied in one
 * tight loop without returning per region; everything else goes one raw
 * run at a time, and a run cut by len is left as the look-ahead region so
 * that iter_next and iter_copy can be mixed. */
MPI_Offset rio__dtype_iter_copy(struct rio_dtype_iter *it, char *typed, char *contig,
                                MPI_Offset len, int to_contig)
{
    struct rio_dl_frame *f = frames_of(it);
    MPI_Offset done = 0;
    if (it->have_pend && len > 0) {
        MPI_Offset n = RIO_MIN(it->pend_len, len);
        if (to_contig)
            memcpy(contig, typed + it->pend_off, (size_t)n);
        else
            memcpy(typed + it->pend_off, contig, (size_t)n);
        it->pend_off += n;
        it->pend_len -= n;
        it->have_pend = it->pend_len > 0;
        done = n;
    }
    while (done < len && !it->have_pend && it->top >= 0) {
        MPI_Count nb = vector_blocks(it, f, len - done, len - done);
        if (nb > 0) {
            const struct rio_dl *d = f[it->top].dl;
            MPI_Count bl = d->blocklen;
            char *t = typed + block_offset(f, it->top), *c = contig + done;
            if (to_contig)
                rio__copy_strided(c, bl, t, d->stride, bl, nb);
            else
                rio__copy_strided(t, d->stride, c, bl, bl, nb);
            done += nb * bl;
            skip_blocks(it, f, nb);
            continue;
        }
        MPI_Offset o, l;
        raw_next(it, f, &o, &l);
        MPI_Offset n = RIO_MIN(l, len - done);
        if (to_contig)
            memcpy(contig + done, typed + o, (size_t)n);
        else
            memcpy(typed + o, contig + done, (size_t)n);
        done += n;
        if (n < l) {
            it->have_pend = 1;
            it->pend_off = o + n;
            it->pend_len = l - n;
        }
    }
    it->pos += done;
    return done;
}

/* Contract in dtype.h. */
MPI_Offset rio__dtype_iter_pos(const struct rio_dtype_iter *it)
{
    return it->pos;
}

/* Release the frames of a deep type's iterator; safe after a failed init
 * and twice.  An iterator whose frames are heap-allocated must not be
 * copied (a copy of a shallow one is independent). */
void rio__dtype_iter_free(struct rio_dtype_iter *it)
{
    if (!it)
        return;
    free(it->frames);
    it->frames = NULL;
    it->top = -1;
    it->have_pend = 0;
}
