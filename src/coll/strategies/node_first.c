/*
 * node_first.c — core-first aggregation (orthrus.txt §2.2): one aggregator
 * per node, the node's rank with the most data (lowest rank on ties),
 * handles only its own node's ranks' data, in offset order, so all data
 * exchange stays inside a node.  Nodes are the shared-memory groups of the
 * communicator, or virtual nodes of resonio_ranks_per_node ranks.
 */
#include "../coll_int.h"

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int rc = rio__coll_plan_alloc(p, c->nnodes);
    for (int n = 0; n < c->nnodes && !rc; n++) {
        int best = -1;
        MPI_Offset lo = -1, hi = 0;
        for (int i = 0; i < c->nprocs; i++) {
            if (c->node_of[i] != n)
                continue;
            if (best < 0 || c->sum[i].bytes > c->sum[best].bytes)
                best = i;
            if (c->sum[i].first < c->sum[i].end) {
                if (lo < 0 || c->sum[i].first < lo)
                    lo = c->sum[i].first;
                hi = RIO_MAX(hi, c->sum[i].end);
            }
        }
        p->aggs[n] = best < 0 ? 0 : best;
        p->dom[n].kind = RIO_DOM_RANGE;
        p->dom[n].node = n;
        p->dom[n].start = lo < 0 ? 0 : lo;
        p->dom[n].end = lo < 0 ? 0 : hi;
    }
    return rc;
}

const struct rio_coll_strategy rio__strategy_node_first = {
    .name = "node_first",
    .exchanges = 1,
    .plan = plan,
};
