/*
 * target_first.c — disk-first aggregation (orthrus.txt §2.2): as many
 * aggregators as targets, spread evenly over the ranks, each handling one
 * target's data in ascending offset order.  With more targets than ranks a
 * rank serves several targets.
 */
#include "../coll_int.h"

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int T = c->tg.T, P = c->nprocs;
    int rc = rio__coll_plan_alloc(p, T);
    MPI_Offset u = c->layout.unit, base = c->min / u * u;
    for (int t = 0; t < T && !rc; t++) {
        p->aggs[t] = T <= P ? (int)((long long)t * P / T) : t % P;
        rc = rio__coll_dom_targets(&p->dom[t], &t, 1, 1, 0, base, c->max);
    }
    return rc;
}

const struct rio_coll_strategy rio__strategy_target_first = {
    .name = "target_first",
    .exchanges = 1,
    .needs_layout = 1,
    .plan = plan,
};
