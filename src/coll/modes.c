/*
 * modes.c — the calls that need no exchange: each rank moves its own data.
 *
 * A plan may leave the data where it is: each rank serves its own request
 * through the independent chooser (indep), as one datatype request to
 * storage that takes them (direct), in turns so that each target sees the
 * ranks in offset order (token), or after agents have prefetched their
 * targets into the storage cache (prefetch).  A plan's bypassing ranks do
 * their own I/O the same way.  Only the ordering of these modes is
 * collective (turn tokens, the prefetch's barrier); their storage
 * requests are each rank's own.
 */
#include "coll_int.h"
#include "tags.h"
#include "../indep/indep.h"

#include <limits.h>
#include <stdlib.h>

/* Does another rank of this host (the machine, whose processes share the
 * file's lock) write in the call?  Its bytes in the summary; where this
 * rank has no summary's rows (a forced strategy where each rank serves
 * itself, the steady path, a call ahead of its summary, rows that went to
 * rank 0 only) any other rank of this host in the call counts as writing:
 * staging a lone writer costs about what it gains two (512 MiB each,
 * store.c: alone 0.084 s straight, 0.118 staged; two 0.172 and 0.133). */
static int host_shared(const struct rio_coll_call *c)
{
    const int *node = c->ctx->node_real;
    int rows = c->sum && !c->rows_at_root;
    for (int i = 0; i < c->nprocs; i++)
        if (i != c->rank && node[i] == node[c->rank] && (!rows || c->sum[i].bytes > 0))
            return 1;
    return 0;
}

/* Contract in coll_int.h. */
int rio__coll_own_request(struct rio_coll_call *c, enum rio_indep_method m, MPI_Offset *done)
{
    const struct rio_coll_req *q = c->req;
    struct rio_indep_req r = {
        .st = q->st, .write = q->write, .buf = q->buf, .memtype = q->memtype,
        .memcount = q->memcount, .filetype = q->filetype, .disp = q->disp,
        .file_start = q->file_start, .nbytes = q->nbytes, .method = m,
        .shared = q->write && !c->one_at_a_time && host_shared(c),
        .first = c->first, .end = c->end, /* rio__coll_own_extent's */
    };
    rio_stats *stats = q->st->stats;
    long long copies0 = stats ? rio__stat_get(&stats->copies) : 0;
    *done = 0;
    if (q->nbytes <= 0)
        return 0;
    int rc = rio__indep_rw(&r, done);
    if (stats)
        c->copies += rio__stat_get(&stats->copies) - copies0;
    return rc;
}

/*
 * The direct strategy on storage that takes datatype requests (emu,
 * rados:): the rank's whole request is one view request — the filetype's
 * dataloop goes to each target with only that target's bytes, and the
 * servers place them (ECIO's server-side redistribution).  The
 * independent layer's view method does the same (memory packed when it is
 * not one run), without counting a request of its own.
 */
int rio__coll_direct_view(struct rio_coll_call *c, MPI_Offset *done)
{
    const struct rio_coll_req *q = c->req;
    struct rio_indep_req r = {
        .st = q->st, .write = q->write, .buf = q->buf, .memtype = q->memtype,
        .memcount = q->memcount, .filetype = q->filetype, .disp = q->disp,
        .file_start = q->file_start, .nbytes = q->nbytes, .method = RIO_INDEP_VIEW,
    };
    long long copies = 0;
    int rc = rio__indep_view_rw(&r, 0, &copies, done);
    c->copies += copies;
    return rc;
}

/* Write, as one list request, the parts of a request that is one run in
 * the file and in memory that lie on the targets `want` picks (want[t]
 * nonzero), in file order.  The caller has checked the run. */
static int own_parts(struct rio_coll_call *c, const char *want, MPI_Offset *done)
{
    const struct rio_coll_req *q = c->req;
    const struct rio_dtype_info *mi = rio__dtype_info(q->memtype);
    MPI_Offset u = c->tg.unit, max = (c->end - c->first) / u + 2;
    if (max > INT_MAX)
        return RIO_E_OVERFLOW;
    struct rio_region *reg = rio__malloc(sizeof *reg * (size_t)max);
    struct iovec *iov = rio__malloc(sizeof *iov * (size_t)max);
    char *mem = (char *)q->buf + mi->true_lb;
    int n = 0, rc = 0;
    if (!reg || !iov) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    for (MPI_Offset lo = c->first; lo < c->end;) {
        MPI_Offset len = RIO_MIN(c->end - lo, u - lo % u);
        if (want[rio__coll_target_of(&c->tg, lo / u)]) {
            reg[n] = (struct rio_region){lo, len};
            iov[n] = (struct iovec){mem + (lo - c->first), (size_t)len};
            n++;
        }
        lo += len;
    }
    if (n > 0) {
        rc = rio__store_write_list(q->st, reg, iov, n);
        if (!rc)
            for (int k = 0; k < n; k++)
                *done += reg[k].len;
    }
out:
    free(reg);
    free(iov);
    return rc;
}

/* The nearest rank before (step -1) or after (step 1) this one that writes
 * on target t, or -1; -1 too when this rank does not write there.
 * Without a per-target summary every rank writes on the one target. */
static int turn_peer(const struct rio_coll_call *c, int t, int step)
{
    if (c->tbytes && rio__coll_tbytes(c, c->rank, t) == 0)
        return -1;
    for (int j = c->rank + step; j >= 0 && j < c->nprocs; j += step)
        if (!c->tbytes || rio__coll_tbytes(c, j, t) > 0)
            return j;
    return -1;
}

/* Split turns: the targets where this rank is first, as one request, then
 * those whose turns have come, together, as they come.  A turn message
 * carries its target; a finished request becomes MPI_REQUEST_NULL, which
 * the waits skip.  Returns 1 when done, 0 without the memory for it
 * (nothing received or sent yet). */
static int by_target_turns(struct rio_coll_call *c, int T, MPI_Offset *done, int *rc)
{
    int *prev = rio__malloc(sizeof(int) * (size_t)T * 3), *next = prev ? prev + T : NULL;
    int *got = prev ? prev + 2 * T : NULL, np = 0;
    MPI_Request *rq = rio__malloc(sizeof *rq * (size_t)T);
    char *want = rio__calloc((size_t)T, 1); /* the targets to write now */
    if (!prev || !rq || !want) {
        free(prev);
        free(rq);
        free(want);
        return 0;
    }
    for (int t = 0; t < T; t++) {
        prev[t] = turn_peer(c, t, -1);
        next[t] = turn_peer(c, t, 1);
        if (prev[t] >= 0)
            MPI_Irecv(&got[np], 1, MPI_INT, prev[t], RIO_TAG_TURN, c->ctx->comm, &rq[np]), np++;
    }
    for (int pass = 0, left = np; pass == 0 || left > 0; pass++) {
        for (int k = 0; k < T; k++)
            want[k] = pass == 0 && prev[k] < 0;
        if (pass > 0) {
            int k, flag;
            MPI_Waitany(np, rq, &k, MPI_STATUS_IGNORE);
            want[got[k]] = 1;
            left--;
            for (int j = 0; j < np; j++)
                if (rq[j] != MPI_REQUEST_NULL) {
                    MPI_Test(&rq[j], &flag, MPI_STATUS_IGNORE);
                    if (flag) {
                        want[got[j]] = 1;
                        left--;
                    }
                }
        }
        int err = own_parts(c, want, done);
        if (err && !*rc)
            *rc = err; /* the turns go on: the others wait for them */
        for (int k = 0; k < T; k++)
            if (next[k] >= 0 && want[k])
                MPI_Send(&k, 1, MPI_INT, next[k], RIO_TAG_TURN, c->ctx->comm);
    }
    free(want);
    free(prev);
    free(rq);
    return 1;
}

/*
 * Ranks write their own data, each target receiving requests in rank
 * order, which in a non-overlapping call is offset order.  Per target a
 * rank waits for the turn of the previous rank that writes there and
 * passes the turn to the next one; a turn message carries its target.
 * A rank whose request is one run in the file and in memory writes each
 * target's part as soon as it has that target's turn, first the targets
 * where no one precedes it: a rank whose bytes straddle two targets writes
 * the head of the second before waiting at the first, so the targets'
 * queues advance together (a wavefront) instead of as one chain through
 * every rank.  Other ranks (and one without the memory for that) wait for
 * all their turns, write, and pass them all: the same messages, so the
 * two kinds of rank work together.  Waits go to lower ranks only, so they
 * end.  Without a per-target summary, ranks take turns one at a time.
 */
int rio__coll_by_turns(struct rio_coll_call *c, MPI_Offset *done)
{
    int T = c->tbytes ? c->tg.T : 1, rc = 0, x;
    /* a rank that failed before the call has no memory type */
    const struct rio_dtype_info *mi = c->req->memtype ? rio__dtype_info(c->req->memtype) : NULL;
    *done = 0;
    if (c->tbytes && T > 1 && c->tg.unit > 0 && mi && mi->contig && c->req->nbytes > 0 &&
        c->end - c->first == c->req->nbytes && by_target_turns(c, T, done, &rc))
        return rc;
    c->one_at_a_time = T == 1;
    for (int t = 0; t < T; t++) { /* the turns of a target come in order from one rank */
        int p = turn_peer(c, t, -1);
        if (p >= 0)
            MPI_Recv(&x, 1, MPI_INT, p, RIO_TAG_TURN, c->ctx->comm, MPI_STATUS_IGNORE);
    }
    rc = rio__coll_own_request(c, RIO_INDEP_LIST, done);
    for (int t = 0; t < T; t++) {
        int n = turn_peer(c, t, 1);
        if (n >= 0)
            MPI_Send(&t, 1, MPI_INT, n, RIO_TAG_TURN, c->ctx->comm);
    }
    return rc;
}

static int cmp_region(const void *x, const void *y)
{
    const struct rio_region *a = x, *b = y;
    return a->off < b->off ? -1 : a->off > b->off;
}

/* Agents ask storage for their domains first, every role of a rank in one
 * ascending list (the stripes of several targets go out together); after
 * everyone has, each rank reads its own data, served from the storage
 * cache.  The prefetch is advice: if it fails or there is no memory for
 * the list, the reads still read everything. */
int rio__coll_prefetch_then_read(struct rio_coll_call *c, const struct rio_coll_plan *p,
                              MPI_Offset *done)
{
    struct rio_store *st = c->req->st;
    struct rio_region *reg = NULL;
    int n = 0, cap = 0, ok = 1;
    for (int a = 0; a < p->naggs && st->ops->prefetch && ok; a++) {
        if (p->aggs[a] != c->rank)
            continue;
        struct rio_coll_domain *d = &p->dom[a];
        ok = rio__coll_domain_coords(c, d) == 0; /* the tables of a server map */
        MPI_Offset unit = d->kind == RIO_DOM_TARGETS ? c->layout.unit : d->end - d->start;
        for (MPI_Offset off = d->start; off < d->end && unit > 0 && ok;) {
            MPI_Offset x = rio__coll_coord(c, d, off);
            MPI_Offset len = RIO_MIN(unit - (d->kind == RIO_DOM_TARGETS ? off % unit : 0),
                                     d->end - off);
            if (x >= 0) {
                if (n == cap) {
                    int ncap = cap ? 2 * cap : 64;
                    struct rio_region *v = rio__realloc(reg, sizeof *v * (size_t)ncap);
                    ok = v != NULL;
                    if (v) {
                        reg = v;
                        cap = ncap;
                    }
                }
                if (ok)
                    reg[n++] = (struct rio_region){off, len};
            }
            off += len;
        }
    }
    if (ok && n > 0) {
        qsort(reg, (size_t)n, sizeof *reg, cmp_region);
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (m > 0 && reg[m - 1].off + reg[m - 1].len == reg[i].off)
                reg[m - 1].len += reg[i].len;
            else
                reg[m++] = reg[i];
        }
        (void)st->ops->prefetch(st, reg, m);
    }
    free(reg);
    MPI_Barrier(c->ctx->comm);
    return rio__coll_own_request(c, RIO_INDEP_AUTO, done);
}
