/*
 * stripe.c — stripe-contiguous redistribution (lustre-adio-write.txt §2.4).
 *
 * Each target has a group of at most CO aggregators (default 1) that take
 * its stripe rows in turn, so the load inside a group is even; a group's
 * ranks are taken from one node, so every target is served from a single
 * node.  Rounds run over the stripe-aligned extent; beyond the paper's one
 * stripe per aggregator per round, a round carries cb_buffer_size / stripe
 * unit stripes, so writes are fewer and larger.  Ranks whose requests are
 * at least big_req_size bytes bypass aggregation and write their own
 * data; ds_in_coll=enable read-modify-writes holes, otherwise list I/O
 * skips them.  same_io_size=yes with contiguous_data=yes lets every rank
 * compute the others' requests (summary.c), so no all-to-all is made.
 */
#include "../coll_int.h"

#include <stdlib.h>

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    const struct rio_coll_settings *h = rio__coll_settings(c->req->hints);
    int T = c->tg.T, P = c->nprocs;
    int co = RIO_MAX(1, RIO_MIN(h->co > 0 ? h->co : 1, P / T));
    MPI_Offset u = c->layout.unit, base = c->min / u * u;
    int rc = 0, bypassing = 0, with_data = 0;

    if (h->big_req_size > 0) {
        p->bypass = rio__calloc((size_t)P, sizeof *p->bypass);
        if (!p->bypass)
            return RIO_E_NOMEM;
        for (int i = 0; i < P; i++) {
            with_data += c->sum[i].bytes > 0;
            p->bypass[i] = c->sum[i].bytes >= h->big_req_size;
            bypassing += p->bypass[i] && c->sum[i].bytes > 0;
        }
        if (with_data > 0 && bypassing == with_data) {
            p->mode = RIO_COLL_INDEP;
            snprintf(p->reason, sizeof p->reason,
                     "every request is at least big_req_size: each rank its own");
            return 0;
        }
    }
    int *used = rio__calloc((size_t)P, sizeof *used);
    rc = used ? rio__coll_plan_alloc(p, T * co) : RIO_E_NOMEM;
    for (int t = 0; t < T && !rc; t++) {
        int node = t % c->nnodes;
        for (int j = 0; j < co && !rc; j++) {
            int pick = -1;
            for (int i = 0; i < P && pick < 0; i++) /* an unused rank of the node */
                if (c->node_of[i] == node && !used[i])
                    pick = i;
            for (int i = 0; i < P && pick < 0; i++) /* else any unused rank */
                if (!used[i])
                    pick = i;
            if (pick < 0)
                pick = (t * co + j) % P;
            used[pick] = 1;
            p->aggs[t * co + j] = pick;
            rc = rio__coll_dom_targets(&p->dom[t * co + j], &t, 1, co, j, base, c->max);
        }
    }
    free(used);
    p->round_bytes = RIO_MAX(u, p->round_bytes / u * u);
    p->rmw = h->ds_in_coll == RIO_ENABLE ? RIO_RMW_ALWAYS : RIO_RMW_NEVER;
    return rc;
}

const struct rio_coll_strategy rio__strategy_stripe = {
    .name = "stripe",
    .needs_layout = 1,
    .plan = plan,
};
