/*
 * sized.c — two-phase collective buffering with as many aggregators as the
 * call's bytes ask for: one per resonio_bytes_per_agg bytes of all ranks
 * (32 MiB unless set; Open MPI's OMPIO sizes its aggregator count so, with
 * io_ompio_bytes_per_agg), at least one and at most one per rank, spread
 * over the nodes as cb_nodes spreads them; the domains are two_phase's.
 *
 * Where the ranks' bytes follow rank order (rank i's all before rank
 * i+1's: the totals' nonoverlap), also at least one aggregator per
 * resonio_ranks_per_agg ranks (8 unless set; OMPIO takes at most one per
 * io_ompio_max_aggregators_ratio = 8 ranks, and took 16 at 128 ranks on
 * the call below).  There the domains, contiguous in the file, each take
 * a run of consecutive ranks: a rank still sends to one aggregator, or two
 * where a domain's end cuts its bytes, and no aggregator receives from
 * many more ranks than that.  With one aggregator for all (varsize, 128
 * ranks on 8 hosts, about 40 KiB a rank, a call of 5 MiB), the
 * aggregator added 14.8 MiB in the call, OMPIO's 1.49: 127 messages
 * arrived at once, each under Open MPI's eager limit and so held in the
 * library's buffers until received (with the limit at 4 KiB the
 * aggregator held 9.3 MiB instead of 16.6).
 *
 * ROMIO's rule, which two_phase keeps, gives each node an aggregator
 * whatever the call's size, and on an interleaved pattern each rank sends
 * a message to every one of them.  Counted at 128 ranks on 8 hosts
 * (resonio-bench --suite scale, noncontig and ecio, a few MiB a call):
 * two_phase's ranks sent 7.94 data messages a call and its aggregators
 * made 8 storage requests, OMPIO's 0.99 and 1.  The selector weighs the
 * two; the number of aggregators is measured, not assumed (orthrus.txt
 * §1.3).
 */
#include "../coll_int.h"

#include <stdlib.h>

static int count(const struct rio_coll_call *c)
{
    const struct rio_coll_settings *h = rio__coll_settings(c->req->hints);
    long long per = h->bytes_per_agg;
    long long n = per > 0 && c->total > 0 ? (c->total - 1) / per + 1 : 1;
    if (c->nonoverlap && h->ranks_per_agg > 0)
        n = RIO_MAX(n, (c->nprocs - 1) / h->ranks_per_agg + 1);
    return (int)RIO_MIN(n, (long long)c->nprocs);
}

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int *aggs = rio__malloc(sizeof *aggs * (size_t)c->nprocs);
    if (!aggs)
        return RIO_E_NOMEM;
    int n = rio__coll_spread_aggs(c, count(c), aggs);
    int rc = n < 0 ? n : rio__coll_even_domains(c, p, aggs, n);
    free(aggs);
    return rc;
}

/* Examined where its aggregators are neither two_phase's (one per node)
 * nor every_rank's (every rank), and no hint chooses them (cb_nodes,
 * cb_config_list: two_phase follows those as ROMIO does). */
static int applies(const struct rio_coll_call *c)
{
    const struct rio_coll_settings *h = rio__coll_settings(c->req->hints);
    int n = count(c);
    return h->cb_nodes <= 0 && !h->cb_config_list && n != c->nnodes && n < c->nprocs;
}

const struct rio_coll_strategy rio__strategy_sized = {
    .name = "sized",
    .exchanges = 1,
    .rows_at_aggs = 1,
    .plan = plan,
    .applies = applies,
};
