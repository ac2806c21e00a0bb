/*
 * trace.c — what the calls did, for rio_coll_last and RESONIO_STATS.
 *
 * Each call leaves this rank's record of it in the context (strategy,
 * aggregators, bytes moved and copied, times) and the storage driver
 * traces this rank's requests (offset, length, time) into the context's
 * trace.  Only when asked does rio__coll_last gather them: sums and
 * maxima over the ranks, and every rank's trace on rank 0, sorted by time,
 * to count per target how many requests it saw and how many of them came
 * in ascending offset order.  The calls per strategy are counted as they
 * happen, for the report.
 */
#include "coll_int.h"

#include <stdio.h>
#include <stdlib.h>

/* Contract in coll_int.h.  name is a strategy's own (the table's
 * string), so one strategy is always the same pointer. */
void rio__coll_count_strategy(struct rio_coll_ctx *ctx, const char *name)
{
    for (int i = 0; i < 16; i++) {
        if (!ctx->counts[i].name)
            ctx->counts[i].name = name;
        if (ctx->counts[i].name == name) {
            ctx->counts[i].calls++;
            return;
        }
    }
}

/* A traced request of some rank: its time, then (for the regions of one
 * list call, which share a time) its rank and place in the rank's trace. */
struct tentry {
    double t;
    MPI_Offset off, len;
    int rank, seq;
};

static int cmp_tentry(const void *x, const void *y)
{
    const struct tentry *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Contract in coll.h. */
int rio__coll_last(struct rio_coll_ctx *ctx, struct rio_coll_info *out)
{
    struct rio_coll_info *L = &ctx->last;
    MPI_Comm comm = ctx->comm;
    int P = ctx->nprocs, n = ctx->trace.n, rc = 0;
    long long sums[4] = {L->bytes, L->exchanged, L->copies, n + ctx->trace.dropped}, tot[4];
    double tm[3] = {L->time_exchange, L->time_storage, L->time_plan}, tmax[3];
    MPI_Allreduce(sums, tot, 4, MPI_LONG_LONG, MPI_SUM, comm);
    MPI_Allreduce(tm, tmax, 3, MPI_DOUBLE, MPI_MAX, comm);

    /* the trace of every rank, in time order, on rank 0 */
    int *counts = rio__malloc(sizeof(int) * (size_t)P), *displs = rio__malloc(sizeof(int) * (size_t)P);
    struct tentry *mine = rio__malloc(sizeof *mine * (size_t)(n ? n : 1)), *all = NULL;
    int ok = counts && displs && mine, allok = 0;
    MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, comm);
    if (!allok) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    for (int k = 0; k < n; k++)
        mine[k] = (struct tentry){ctx->trace.t[k], ctx->trace.off[k], ctx->trace.len[k],
                                  ctx->rank, k};
    int nb = n * (int)sizeof(struct tentry);
    MPI_Gather(&nb, 1, MPI_INT, counts, 1, MPI_INT, 0, comm);
    long long total = 0;
    if (ctx->rank == 0) {
        for (int i = 0; i < P; i++) {
            displs[i] = (int)total;
            total += counts[i];
        }
        all = rio__malloc((size_t)(total ? total : 1));
    }
    int have = ctx->rank != 0 || all;
    MPI_Bcast(&have, 1, MPI_INT, 0, comm);
    if (!have) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    MPI_Gatherv(mine, nb, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, comm);
    *out = *L;
    out->bytes = tot[0];
    out->exchanged = tot[1];
    out->copies = tot[2];
    out->storage_reqs = tot[3];
    out->time_exchange = tmax[0];
    out->time_storage = tmax[1];
    out->time_plan = tmax[2];
    if (ctx->rank == 0) {
        struct tentry *e = all;
        long long ne = total / (long long)sizeof(struct tentry);
        qsort(e, (size_t)ne, sizeof *e, cmp_tentry);
        /* A request that spans stripes reaches each target it touches, at
         * its first byte there. */
        const struct rio_coll_targets *tg = &ctx->last_tg;
        MPI_Offset unit = tg->unit;
        int T = out->ntargets > 0 ? out->ntargets : 1;
        MPI_Offset prev[RIO_COLL_MAX_TARGETS];
        for (int t = 0; t < RIO_COLL_MAX_TARGETS; t++)
            prev[t] = -1;
        for (long long k = 0; k < ne; k++) {
            MPI_Offset off = e[k].off, end = e[k].off + e[k].len;
            for (int hop = 0; off < end && hop < T; hop++) {
                int t = T > 1 ? rio__coll_target_of(tg, off / unit) : 0;
                if (t < RIO_COLL_MAX_TARGETS) {
                    out->target_reqs[t]++;
                    if (prev[t] >= 0 && off > prev[t])
                        out->target_ascending[t]++;
                    prev[t] = off;
                }
                off = T > 1 ? (off / unit + 1) * unit : end;
            }
        }
    }
    MPI_Bcast(out->target_reqs, RIO_COLL_MAX_TARGETS, MPI_LONG_LONG, 0, comm);
    MPI_Bcast(out->target_ascending, RIO_COLL_MAX_TARGETS, MPI_LONG_LONG, 0, comm);
out:
    free(counts);
    free(displs);
    free(mine);
    free(all);
    return rc;
}

/* Contract in coll.h. */
void rio__coll_report(struct rio_coll_ctx *ctx, const char *filename)
{
    if (!ctx || ctx->rank != 0)
        return;
    for (int i = 0; i < 16 && ctx->counts[i].name; i++)
        fprintf(stderr, "  collective   %s: %lld calls\n", ctx->counts[i].name,
                ctx->counts[i].calls);
    rio__select_report(ctx->sel, stderr);
    (void)filename;
}
