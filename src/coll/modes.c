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

#include <stdlib.h>

/* Contract in coll_int.h. */
int rio__coll_own_request(struct rio_coll_call *c, enum rio_indep_method m, MPI_Offset *done)
{
    const struct rio_coll_req *q = c->req;
    struct rio_indep_req r = {
        .st = q->st, .write = q->write, .buf = q->buf, .memtype = q->memtype,
        .memcount = q->memcount, .filetype = q->filetype, .disp = q->disp,
        .file_start = q->file_start, .nbytes = q->nbytes, .method = m,
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

/*
 * Ranks write their own data, each target receiving requests in rank
 * order, which in a non-overlapping call is offset order: a rank waits for
 * the previous rank on each target it writes (a turn token), writes, and
 * passes the turn to the next rank on each of its targets.  Ranks whose
 * targets differ proceed together, so as many ranks issue at once as the
 * targets allow (resonant-io.txt §3.4's groups, made exact).  Without a
 * per-target summary, ranks take turns one at a time.
 */
int rio__coll_by_turns(struct rio_coll_call *c, MPI_Offset *done)
{
    int T = c->tbytes ? c->tg.T : 1, P = c->nprocs, me = c->rank, rc;
    int *prev = rio__malloc(sizeof(int) * (size_t)T), *next = rio__malloc(sizeof(int) * (size_t)T);
    int np = 0, nn = 0;
    if (!prev || !next) { /* stay in step with the others: plain rank order */
        np = me > 0;
        nn = me + 1 < P;
        free(prev);
        free(next);
        prev = next = NULL;
    } else {
        for (int t = 0; t < T; t++) {
            if (c->tbytes && rio__coll_tbytes(c, me, t) == 0)
                continue;
            int p = -1, n = -1;
            for (int j = me - 1; j >= 0 && p < 0; j--)
                if (!c->tbytes || rio__coll_tbytes(c, j, t) > 0)
                    p = j;
            for (int j = me + 1; j < P && n < 0; j++)
                if (!c->tbytes || rio__coll_tbytes(c, j, t) > 0)
                    n = j;
            int dup = 0;
            for (int k = 0; k < np; k++)
                dup |= prev[k] == p;
            if (p >= 0 && !dup)
                prev[np++] = p;
            dup = 0;
            for (int k = 0; k < nn; k++)
                dup |= next[k] == n;
            if (n >= 0 && !dup)
                next[nn++] = n;
        }
    }
    for (int k = 0; k < np; k++)
        MPI_Recv(NULL, 0, MPI_BYTE, prev ? prev[k] : me - 1, RIO_TAG_TURN, c->ctx->comm,
                 MPI_STATUS_IGNORE);
    rc = rio__coll_own_request(c, RIO_INDEP_LIST, done);
    for (int k = 0; k < nn; k++)
        MPI_Send(NULL, 0, MPI_BYTE, next ? next[k] : me + 1, RIO_TAG_TURN, c->ctx->comm);
    free(prev);
    free(next);
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
