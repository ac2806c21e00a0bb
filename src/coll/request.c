/*
 * request.c — this rank's own request, as the engine walks it.
 *
 * The skeleton never walks a request for its summary (view arithmetic
 * gives the extent); what does walk it lives here.  A memory side of tiny
 * pieces is packed first into a contiguous copy the context keeps
 * (rio__coll_pack), so the exchange sees few, large runs; the pair walker
 * hands the request to the exchange as runs contiguous in file and memory
 * (strided runs where the view repeats), in file order, a batch at a
 * time, without keeping a list; and a collective read is cut at end of
 * file before it becomes pieces (rio__coll_file_size, rio__coll_readable).
 */
#include "coll_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- packing ------------------------------------------------------------------- */

/*
 * A memory side of tiny pieces (FLASH's 8-byte variables) would make a
 * pair per piece: a list as long as the data, exchanged and issued piece
 * by piece.  Such a request is packed first (one tight copy loop over the
 * type's blocks) and served from the contiguous copy; a read is unpacked
 * at the end.  The copy is kept for the next call: fresh pages cost more
 * than the copy.
 */
#define PACK_PIECE 512                      /* mean memory piece that is packed */
#define PACK_MAX ((MPI_Offset)1 << 30)      /* larger requests are not packed */
#define PACK_KEEP ((size_t)64 << 20)        /* larger copies are not kept */

static int pack_wanted(const struct rio_coll_req *q)
{
    const struct rio_dtype_info *mi = rio__dtype_info(q->memtype);
    return q->nbytes > 0 && q->nbytes <= PACK_MAX && !mi->contig && mi->regions > 0 &&
           mi->size / mi->regions <= PACK_PIECE;
}

/* Contract in coll_int.h. */
int rio__coll_pack(struct rio_coll_ctx *ctx, const struct rio_coll_req *q,
                        struct rio_coll_req *out, struct rio_dtype **bytes)
{
    if (!pack_wanted(q))
        return 0;
    size_t n = (size_t)q->nbytes;
    if (ctx->pack_len < n) {
        rio__pool_free(ctx->pack);
        ctx->pack = rio__pool_alloc(n);
        ctx->pack_len = ctx->pack ? n : 0;
        if (!ctx->pack)
            return 0;
    }
    if (rio__dtype_get(MPI_BYTE, bytes))
        return 0;
    if (q->write && rio__dtype_pack(q->memtype, q->memcount, q->buf, 0, q->nbytes, ctx->pack)) {
        rio__dtype_put(*bytes);
        return 0;
    }
    *out = *q;
    out->buf = ctx->pack;
    out->memtype = *bytes;
    out->memcount = q->nbytes;
    return 1;
}

/* Contract in coll_int.h. */
int rio__coll_unpack(struct rio_coll_ctx *ctx, const struct rio_coll_req *q,
                     struct rio_dtype *bytes, MPI_Offset done)
{
    int rc = 0;
    if (!q->write && done > 0 &&
        rio__dtype_unpack(q->memtype, q->memcount, q->buf, 0, done, ctx->pack))
        rc = RIO_E_NOMEM;
    rio__dtype_put(bytes);
    if (ctx->pack_len > PACK_KEEP) {
        rio__pool_free(ctx->pack);
        ctx->pack = NULL;
        ctx->pack_len = 0;
    }
    return rc;
}

/* ---- the request as pairs ------------------------------------------------------ */

/* Contract in coll_int.h. */
MPI_Count rio__coll_pairs_guess(const struct rio_coll_call *c)
{
    const struct rio_coll_req *q = c->req;
    const struct rio_dtype_info *m = rio__dtype_info(q->memtype);
    MPI_Offset n = q->nbytes, guess = 4; /* partial regions at either end */
    if (n <= 0)
        return 0;
    guess += m->contig || m->size <= 0 ? 1 : (n / m->size + 1) * m->regions;
    guess += c->regions; /* the file side, counted by own_extent */
    return RIO_MIN(guess, n + 1);
}

/* Contract in coll_int.h. */
int rio__coll_pairs_each(const struct rio_coll_call *c,
                         int (*fn)(void *arg, const struct rio_coll_pair *v, int n), void *arg)
{
    const struct rio_coll_req *q = c->req;
    struct rio_dtype_iter mi, fi;
    struct rio_coll_pair b[RIO_COLL_PAIR_BATCH];
    MPI_Offset moff = 0, mlen = 0, foff = 0, flen = 0, left = q->nbytes;
    int rc = 0, n = 0, have_m = 0, have_f = 0;
    if (left <= 0)
        return 0;
    rc = rio__dtype_iter_init(&mi, q->memtype, q->memcount, 0);
    if (rc)
        return rc;
    rc = rio__dtype_iter_init(&fi, q->filetype, -1, q->file_start);
    if (rc) {
        rio__dtype_iter_free(&mi);
        return rc;
    }
    /* memory in one region (a contiguous buffer): the pairs are the file
     * regions, taken from the file type a batch at a time */
    have_m = rio__dtype_iter_next(&mi, left, &moff, &mlen);
    while (have_m && mlen == left && left > 0 && !rc) {
        int k = 0;
        MPI_Offset o, l, st;
        MPI_Count cnt;
        while (k < RIO_COLL_PAIR_BATCH && left > 0 &&
               rio__dtype_iter_strided(&fi, left, &o, &l, &st, &cnt)) {
            b[k++] = (struct rio_coll_pair){q->disp + o, l, (char *)q->buf + moff, cnt, st, l};
            moff += l * cnt, mlen -= l * cnt, left -= l * cnt;
        }
        if (!k) {
            rc = RIO_E_ARG;
            break;
        }
        rc = fn(arg, b, k);
    }
    while (left > 0 && !rc) {
        if (!mlen)
            have_m = rio__dtype_iter_next(&mi, left, &moff, &mlen);
        if (!flen)
            have_f = rio__dtype_iter_next(&fi, left, &foff, &flen);
        if (!have_m || !have_f) {
            rc = RIO_E_ARG;
            break;
        }
        MPI_Offset len = RIO_MIN(RIO_MIN(mlen, flen), left);
        b[n++] = (struct rio_coll_pair){q->disp + foff, len, (char *)q->buf + moff, 1, len, len};
        moff += len, mlen -= len, foff += len, flen -= len, left -= len;
        if (n == RIO_COLL_PAIR_BATCH) {
            rc = fn(arg, b, n);
            n = 0;
        }
    }
    if (!rc && n)
        rc = fn(arg, b, n);
    rio__dtype_iter_free(&mi);
    rio__dtype_iter_free(&fi);
    return rc;
}

/* ---- end of file -------------------------------------------------------------- */

/* Contract in coll_int.h.  Ranks whose open is still deferred
 * (romio_no_indep_rw) must not open the file to ask: the ranks that have
 * it open (rank 0 always) tell the others. */
MPI_Offset rio__coll_size_mine(const struct rio_coll_call *c)
{
    struct rio_store *st = c->req->st;
    MPI_Offset size = -1;
    if (rio__store_deferred_opened(st) && st->ops->get_size(st, &size))
        size = -1;
    return size;
}

/* Contract in coll_int.h. */
int rio__coll_size_agreed(const struct rio_coll_call *c, MPI_Offset max, MPI_Offset *all)
{
    struct rio_store *st = c->req->st;
    *all = max;
    return max < 0 ? st->ops->get_size(st, all) : 0;
}

/* Contract in coll_int.h. */
int rio__coll_file_size(const struct rio_coll_call *c, MPI_Offset *all)
{
    MPI_Offset size = rio__coll_size_mine(c), max = -1;
    MPI_Allreduce(&size, &max, 1, RIO_MPI_OFFSET_SIGNED, MPI_MAX, c->ctx->comm);
    return rio__coll_size_agreed(c, max, all);
}

/* Contract in coll_int.h. */
MPI_Offset rio__coll_readable(const struct rio_coll_req *q, MPI_Offset size)
{
    MPI_Offset lo = 0, hi = q->nbytes;
    if (hi <= 0 || rio__dtype_view_offset(q->filetype, q->disp, q->file_start + hi - 1) < size)
        return hi;
    while (lo < hi) { /* the first stream byte at or past size */
        MPI_Offset mid = lo + (hi - lo) / 2;
        if (rio__dtype_view_offset(q->filetype, q->disp, q->file_start + mid) < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
