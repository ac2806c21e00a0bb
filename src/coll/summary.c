/*
 * summary.c — what every rank knows of every rank's request.
 *
 * A plan needs each rank's file extent, bytes and regions (and, for some
 * strategies, bytes per target).  Each rank computes its own by view
 * arithmetic, without walking a fine-grained request (own extent); one
 * allgather (above a few ranks a gather and a broadcast) then gives
 * everyone all of them, and the same collective agrees on whether every
 * rank could go on.  With same_io_size and
 * contiguous_data an allreduce that checks the claim replaces the
 * allgather and ranks compute each other's rows.  The totals a plan reads
 * (min, max, total, nonoverlap) follow from the rows.  A read whose
 * strategy always exchanges takes the file size along, which it cuts its
 * request by, so that its plan needs no agreement of its own (coll.c).
 * Under auto above a few ranks, rank 0 may make the selector's choice on
 * the gathered rows and broadcast it with the totals, and the rows only
 * where the choice needs them on every rank (picked_at_root).  Where the
 * strategy's aggregators alone need them (two_phase, sized), rank 0 keeps
 * them and the exchange sends them on to those (totals_at_root).
 */
#include "coll_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Contract in coll_int.h. */
MPI_Offset rio__coll_tbytes(const struct rio_coll_call *c, int i, int t)
{
    return c->tbytes ? c->tbytes[(size_t)i * (size_t)c->tg.T + (size_t)t] : 0;
}

/* Add the bytes of [off, off+len) to row[target]. */
static void per_target(const struct rio_coll_targets *tg, MPI_Offset off, MPI_Offset len,
                       MPI_Offset *row)
{
    while (len > 0) {
        MPI_Offset s = off / tg->unit, n = RIO_MIN(len, tg->unit - off % tg->unit);
        row[rio__coll_target_of(tg, s)] += n;
        off += n;
        len -= n;
    }
}

/* This rank's first and one-past-last file byte, from the view (views are
 * monotonic), and its file regions: one when the bytes are contiguous in
 * the file, else the filetype's regions per tile times the tiles the
 * request covers, rounded up (exact for whole tiles; the selector's
 * signature and rules need no more).  O(depth): a fine-grained request
 * is never walked for its summary. */
void rio__coll_own_extent(struct rio_coll_call *c)
{
    const struct rio_coll_req *q = c->req;
    c->first = c->end = c->regions = 0;
    if (q->nbytes <= 0)
        return;
    rio__dtype_view_extent(q->filetype, q->disp, q->file_start, q->nbytes, &c->first, &c->end);
    const struct rio_dtype_info *fi = rio__dtype_info(q->filetype);
    if (c->end - c->first == q->nbytes || fi->contig || fi->size <= 0 || fi->regions <= 0) {
        c->regions = 1;
        return;
    }
    double r = (double)q->nbytes * (double)fi->regions / (double)fi->size; /* no overflow */
    MPI_Offset n = (MPI_Offset)r;
    c->regions = RIO_MAX(n + ((double)n < r - 1e-6), (MPI_Offset)1);
}

/* This rank's bytes per target into row (T entries), walking the file
 * regions of the request (not the memory side).  Local; RIO_E_NOMEM. */
static int own_tbytes(const struct rio_coll_call *c, MPI_Offset *row)
{
    const struct rio_coll_req *q = c->req;
    struct rio_dtype_iter fi;
    MPI_Offset left = q->nbytes, off, len;
    if (left <= 0)
        return 0;
    if (c->end - c->first == left) {
        per_target(&c->tg, c->first, left, row);
        return 0;
    }
    int rc = rio__dtype_iter_init(&fi, q->filetype, -1, q->file_start);
    if (rc)
        return rc;
    while (left > 0 && rio__dtype_iter_next(&fi, left, &off, &len)) {
        per_target(&c->tg, q->disp + off, len, row);
        left -= len;
    }
    rio__dtype_iter_free(&fi);
    return 0;
}

/* The claim of same_io_size and contiguous_data, checked with one
 * allreduce: every request one region of the same size, rank i's at
 * base + i * size.  The same allreduce agrees on `ok` (0: some rank
 * cannot go on) and takes the maximum of the ranks' file sizes (`size`,
 * -2 where the call does not carry it).  Fills c->sum without exchanging
 * it; returns 1 if the claim held, 0 if not, -1 if some rank was not ok. */
static int summary_computed(struct rio_coll_call *c, int ok, MPI_Offset size)
{
    MPI_Offset bytes = c->req->nbytes, base = c->first - (MPI_Offset)c->rank * bytes;
    MPI_Offset v[8] = {bytes, -bytes, base, -base, c->regions == 1, -(c->regions == 1), !ok, size};
    MPI_Offset r[8];
    MPI_Allreduce(v, r, 8, RIO_MPI_OFFSET_SIGNED, MPI_MAX, c->ctx->comm);
    if (r[6])
        return -1;
    c->size_max = size > -2 ? r[7] : -2;
    if (r[0] != -r[1] || r[2] != -r[3] || r[4] != 1 || -r[5] != 1 || r[0] <= 0)
        return 0;
    for (int i = 0; i < c->nprocs; i++) {
        c->sum[i].first = r[2] + (MPI_Offset)i * r[0];
        c->sum[i].end = c->sum[i].first + r[0];
        c->sum[i].bytes = r[0];
        c->sum[i].regions = 1;
        if (c->tbytes)
            per_target(&c->tg, c->sum[i].first, r[0],
                       &c->tbytes[(size_t)i * (size_t)c->tg.T]);
    }
    return 1;
}

/* Rows of the summary up to this many words in all ranks together live
 * on the stack, and their exchange carries each rank's `ok`. */
#define SUMMARY_STACK 256

/* Every rank's w words of mine into all, in rank order.  Column col (-1:
 * none) is wanted only as its maximum over the ranks: on the tree the
 * broadcast carries that once rather than a column of P words (1 KiB a
 * rank and call at 128 ranks), and every row's col holds it.  Collective. */
static void share_rows(const MPI_Offset *mine, MPI_Offset *all, int w, int col, int P, int rank,
                       MPI_Comm comm)
{
    if (P <= RIO_COLL_TREE_RANKS || (size_t)w * (size_t)P > INT_MAX) {
        MPI_Allgather(mine, w, MPI_OFFSET, all, w, MPI_OFFSET, comm);
        return;
    }
    MPI_Gather(mine, w, MPI_OFFSET, all, w, MPI_OFFSET, 0, comm);
    if (col < 0) {
        MPI_Bcast(all, w * P, MPI_OFFSET, 0, comm);
        return;
    }
    int v = w - 1; /* a row's words on the broadcast */
    size_t head = sizeof *all * (size_t)col, tail = sizeof *all * (size_t)(v - col);
    if (rank == 0) { /* the rows without col, then its maximum */
        MPI_Offset max = all[col];
        for (size_t i = 0; i < (size_t)P; i++) {
            max = RIO_MAX(max, all[i * (size_t)w + (size_t)col]);
            memmove(all + i * (size_t)v, all + i * (size_t)w, head);
            memmove(all + i * (size_t)v + col, all + i * (size_t)w + col + 1, tail);
        }
        all[(size_t)P * (size_t)v] = max;
    }
    MPI_Bcast(all, v * P + 1, MPI_OFFSET, 0, comm);
    MPI_Offset max = all[(size_t)P * (size_t)v];
    for (size_t i = (size_t)P; i-- > 0;) { /* back to rows of w, the last first */
        memmove(all + i * (size_t)w + col + 1, all + i * (size_t)v + col, tail);
        memmove(all + i * (size_t)w, all + i * (size_t)v, head);
        all[i * (size_t)w + (size_t)col] = max;
    }
}

/* The rows all (w words each; the size at 5 with want_size, the bytes
 * per target from tb on with want_tbytes) into c->sum, c->tbytes and
 * c->size_max; 0 if some rank was not ok (nothing filled then). */
static int rows_in(struct rio_coll_call *c, const MPI_Offset *all, int w, int tb, int want_tbytes,
                   int want_size)
{
    int P = c->nprocs, T = c->tg.T;
    for (int i = 0; i < P; i++) {
        if (!all[(size_t)i * (size_t)w + 4])
            return 0;
        if (want_size)
            c->size_max = RIO_MAX(c->size_max, all[(size_t)i * (size_t)w + 5]);
    }
    for (int i = 0; i < P; i++) {
        const MPI_Offset *row = all + (size_t)i * (size_t)w;
        c->sum[i] = (struct rio_coll_sum){row[0], row[1], row[2], row[3]};
        if (want_tbytes)
            memcpy(&c->tbytes[(size_t)i * (size_t)T], row + tb, sizeof(MPI_Offset) * (size_t)T);
    }
    return 1;
}

/* c->min, max, total and nonoverlap from c->sum. */
static void totals(struct rio_coll_call *c)
{
    c->min = -1;
    c->max = 0;
    c->total = 0;
    c->total_regions = 0;
    c->nonoverlap = 1;
    MPI_Offset prev_end = -1;
    for (int i = 0; i < c->nprocs; i++) {
        const struct rio_coll_sum *q = &c->sum[i];
        c->total += q->bytes;
        c->total_regions += q->regions;
        if (q->first >= q->end)
            continue;
        if (c->min < 0 || q->first < c->min)
            c->min = q->first;
        c->max = RIO_MAX(c->max, q->end);
        if (q->first < prev_end)
            c->nonoverlap = 0;
        prev_end = q->end;
    }
    if (c->min < 0)
        c->min = 0;
}

/* What rank 0 broadcasts when it chooses (picked_at_root): whether every
 * rank was ok, the totals, whether the rows follow, and the candidates by
 * their index in the strategy table. */
enum { PK_OK, PK_TOTAL, PK_MIN, PK_MAX, PK_NONOVERLAP, PK_REGIONS, PK_ROWS, PK_NCAND, PK_CAND };
#define PK_WORDS (PK_CAND + RIO_COLL_NSTRATEGIES)
/* totals_at_root's broadcast: the same words up to PK_REGIONS, then the
 * largest file size (-2: not carried) */
enum { PK_SIZE = PK_REGIONS + 1, PK_TOTALS_WORDS };

/* Whether a call of strategy s (NULL: not known) whose summary has rows of
 * w words for P ranks (with want_tbytes as given) sends the rows to rank 0
 * only, and on to the aggregators in the exchange.  The same on every rank. */
static int at_aggs(const struct rio_coll_strategy *s, int P, int w, int want_tbytes)
{
    return s && s->rows_at_aggs && !want_tbytes && P > RIO_COLL_TREE_RANKS &&
           (size_t)w * (size_t)P <= INT_MAX;
}

/* The totals rank 0 found (h at PK_TOTAL on) into c on another rank, with
 * its own row (mine): the rows stay at rank 0. */
static void totals_in(struct rio_coll_call *c, const MPI_Offset *h, const MPI_Offset *mine)
{
    c->rows_at_root = 1;
    c->total = h[PK_TOTAL];
    c->min = h[PK_MIN];
    c->max = h[PK_MAX];
    c->nonoverlap = (int)h[PK_NONOVERLAP];
    c->total_regions = h[PK_REGIONS];
    c->sum[c->rank] = (struct rio_coll_sum){mine[0], mine[1], mine[2], mine[3]};
}

/* rank 0: its totals into h */
static void totals_out(const struct rio_coll_call *c, MPI_Offset *h)
{
    h[PK_TOTAL] = c->total;
    h[PK_MIN] = c->min;
    h[PK_MAX] = c->max;
    h[PK_NONOVERLAP] = c->nonoverlap;
    h[PK_REGIONS] = c->total_regions;
}

/*
 * The tree's summary of a strategy whose aggregators alone read other
 * ranks' rows (rows_at_aggs: two_phase, sized): the rows go to rank 0,
 * which broadcasts the totals and the largest file size (with want_size),
 * and the exchange sends them on to the aggregators once the plan names
 * them (exchange.c's rows_to_aggs).  A broadcast of
 * every row to every rank was the part of such a call's metadata that
 * grew with the ranks (5.3 KiB a rank and call at 128 ranks).  Returns
 * whether every rank was ok.  Collective.
 */
static int totals_at_root(struct rio_coll_call *c, const MPI_Offset *mine, MPI_Offset *all, int w,
                          int want_size)
{
    MPI_Comm comm = c->ctx->comm;
    MPI_Offset h[PK_TOTALS_WORDS] = {0};
    MPI_Gather(mine, w, MPI_OFFSET, all, w, MPI_OFFSET, 0, comm);
    if (c->rank == 0 && (h[PK_OK] = rows_in(c, all, w, 0, 0, want_size))) {
        totals(c);
        totals_out(c, h);
        h[PK_SIZE] = c->size_max;
    }
    MPI_Bcast(h, PK_TOTALS_WORDS, MPI_OFFSET, 0, comm);
    c->rows_to_aggs = 1;
    if (!h[PK_OK])
        return 0;
    if (c->rank != 0) {
        totals_in(c, h, mine);
        c->size_max = want_size ? h[PK_SIZE] : -2;
    }
    return 1;
}

/*
 * The tree's summary under auto with rank 0 choosing: the rows go to rank
 * 0, which makes the selector's choice on them and broadcasts it (the
 * candidates and the signature's totals, from which every other rank's
 * selector takes the same step), and then the rows only if the choice
 * needs them.  A strategy where each rank serves its own request needs
 * none, and a broadcast of every rank's row (about 40 bytes a rank) to
 * every rank is the part of a call's metadata that grows with the ranks.
 * Returns whether every rank was ok.  Collective.
 */
static int picked_at_root(struct rio_coll_call *c, const MPI_Offset *mine, MPI_Offset *all, int w,
                          int tb, int want_tbytes, struct rio_coll_root_pick *pick)
{
    MPI_Comm comm = c->ctx->comm;
    MPI_Offset h[PK_WORDS] = {0};
    const char *cands[RIO_COLL_NSTRATEGIES];
    MPI_Gather(mine, w, MPI_OFFSET, all, w, MPI_OFFSET, 0, comm);
    if (c->rank == 0 && (h[PK_OK] = rows_in(c, all, w, tb, want_tbytes, 0))) {
        totals(c);
        int n = rio__coll_auto_candidates(c, cands);
        pick->name = rio__coll_select_among(c, cands, n, pick->reason, pick->rlen);
        const struct rio_coll_strategy *s = rio__coll_strategy_find(pick->name);
        totals_out(c, h);
        /* an unknown name falls back to two_phase */
        h[PK_ROWS] = !s || !(s->alone || at_aggs(s, c->nprocs, w, want_tbytes));
        h[PK_NCAND] = n;
        for (int k = 0; k < n; k++) /* the table's names: an index each */
            h[PK_CAND + k] = rio__coll_strategy_index(cands[k]);
    }
    MPI_Bcast(h, PK_WORDS, MPI_OFFSET, 0, comm);
    if (!h[PK_OK])
        return 0;
    pick->rows = (int)h[PK_ROWS];
    c->rows_to_aggs = !pick->rows; /* where the choice exchanges */
    if (pick->rows)
        MPI_Bcast(all, w * c->nprocs, MPI_OFFSET, 0, comm);
    if (c->rank == 0)
        return 1;
    if (pick->rows) {
        rows_in(c, all, w, tb, want_tbytes, 0);
        totals(c);
    } else {
        totals_in(c, h, mine);
    }
    int n = (int)h[PK_NCAND];
    for (int k = 0; k < n; k++)
        cands[k] = rio__coll_strategy_at(h[PK_CAND + k])->name;
    pick->name = rio__coll_select_among(c, cands, n, pick->reason, pick->rlen);
    return 1;
}

/* Contract in coll_int.h: a row of the widest kind (with the file size
 * and T targets' bytes), for P ranks and the rank's own row. */
size_t rio__coll_rows_words(int P, int T)
{
    size_t need = (size_t)(6 + RIO_MAX(T, 0)) * ((size_t)P + 1);
    return need <= SUMMARY_STACK ? 0 : need;
}

/* Allocation and this rank's bytes per target first, and agreed on, so
 * that no rank is left in a collective that another rank never reaches.
 * The agreement rides on the summary's own collective; only a call whose
 * rows outgrow the stack and the memory the context was made with (for
 * the layout the file had at open) agrees on new memory first.
 * c->first, end and regions are set (rio__coll_own_extent). */
int rio__coll_summary(struct rio_coll_call *c, int want_tbytes, int want_size, int may_compute,
                      const struct rio_coll_strategy *forced, struct rio_coll_root_pick *pick)
{
    /* a row: first, end, bytes, regions, ok, [file size], [bytes per target] */
    int T = c->tg.T, P = c->nprocs, tb = 5 + !!want_size, w = tb + (want_tbytes ? T : 0);
    MPI_Offset size = want_size ? rio__coll_size_mine(c) : -2;
    c->size_max = -2;
    struct rio_coll_ctx *ctx = c->ctx;
    MPI_Offset stack[SUMMARY_STACK], *mine = NULL, *all = NULL;
    /* The rows' memory (this rank's row, then everyone's): the stack, or
     * the context's, made with it and agreed on then (the same size on
     * every rank, since it only changes where all agreed), which nothing
     * can fail to give; else memory of this call's, agreed on first and
     * then kept. */
    size_t need = (size_t)w * ((size_t)P + 1);
    int ready = need <= SUMMARY_STACK || need <= ctx->rows_cap;
    MPI_Offset *buf = need <= SUMMARY_STACK ? stack
                      : ready               ? ctx->rows
                                            : rio__malloc(sizeof *buf * need);
    c->sum = rio__calloc((size_t)P, sizeof *c->sum);
    if (want_tbytes)
        c->tbytes = rio__calloc((size_t)P * (size_t)T, sizeof(MPI_Offset));
    if (buf) {
        mine = buf;
        all = buf + w;
        memset(mine, 0, sizeof *mine * (size_t)w);
    }
    int tb_rc = mine && want_tbytes ? own_tbytes(c, mine + tb) : 0;
    int ok = !tb_rc && c->sum && (!want_tbytes || c->tbytes) && mine, allok = ok;
    if (!ready) {
        int have = buf != NULL, all_have = 0;
        MPI_Allreduce(&have, &all_have, 1, MPI_INT, MPI_MIN, ctx->comm);
        if (all_have) { /* every rank keeps its rows' memory for the next call */
            free(ctx->rows);
            ctx->rows = buf;
            ctx->rows_cap = need;
            ready = 1;
        } else {
            free(buf);
            mine = all = NULL;
            allok = 0;
            ok = ok && have;
        }
    }
    /* go: every rank takes the next collective, whose rows carry each
     * rank's ok; without memory for the rows on some rank the allreduce
     * above has told every rank already. */
    int go = ready, computed = 0, summed = 0;
    if (pick)
        pick->name = NULL;
    if (go && may_compute) {
        computed = summary_computed(c, ok, size);
        go = allok = computed >= 0;
    }
    if (go && computed) {
        c->summary_skipped = 1;
    } else if (go) {
        mine[0] = c->first;
        mine[1] = c->end;
        mine[2] = c->req->nbytes;
        mine[3] = c->regions;
        mine[4] = ok;
        if (want_size)
            mine[5] = size;
        if (pick && !want_size && P > RIO_COLL_TREE_RANKS && (size_t)w * (size_t)P <= INT_MAX) {
            allok = picked_at_root(c, mine, all, w, tb, want_tbytes, pick);
            summed = 1;
        } else if (!pick && at_aggs(forced, P, w, want_tbytes)) {
            allok = totals_at_root(c, mine, all, w, want_size);
            summed = 1;
        } else {
            share_rows(mine, all, w, want_size ? 5 : -1, P, c->rank, c->ctx->comm);
            allok = allok && rows_in(c, all, w, tb, want_tbytes, want_size);
        }
    }
    if (!allok)
        return tb_rc ? tb_rc : ok ? RIO_E_REMOTE : RIO_E_NOMEM;
    if (!summed)
        totals(c);
    return 0;
}
