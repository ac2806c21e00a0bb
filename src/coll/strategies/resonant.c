/*
 * resonant.c — resonant I/O (resonant-io.txt §3.2–3.5): requests reach
 * each target in ascending offset order.
 *
 * Agents: for each target in turn, the rank that requests the most bytes
 * on it and is not yet an agent (lowest rank on ties).  With more targets
 * than ranks, once every rank is an agent the rule starts over, so roles
 * spread evenly (2 ranks on 4 targets: agents 0 1 0 1, not 0 1 0 0, which
 * gave rank 0 three quarters of the data to move).  Each agent handles
 * its target's stripes, in ascending order, as list I/O.  When ranks far outnumber targets (four
 * or more per target) each target gets several agents that take one
 * round's worth of its stripes in turn, and within a round they issue one
 * after another (timed groups), so the target still sees ascending offsets.
 *
 * A write whose ranks' extents follow rank order (every offset of rank i
 * precedes every offset of rank i+1) needs no exchange: ranks write their
 * own data, and each target gets its requests in rank order (modes.c).
 * Not when the ranks each touch most targets: the turns would then go
 * from rank to rank on every target, one rank writing at a time (mpi-io-
 * test's 1 MiB segments over 16 simulated storage nodes stayed at 76 MiB/s
 * from 2 to 64 ranks); agents write such a call.
 *
 * Reads exchange no data at all (§3.3): the agents first ask storage for
 * their targets' stripes without waiting, all ranks synchronize, and then
 * every rank reads its own data, found in the storage cache.
 */
#include "../coll_int.h"

#include <stdlib.h>
#include <string.h>

/* Do most ranks touch most of several targets?  Then turns in rank order
 * per target pass from rank to rank on every target and the ranks write one
 * after another; agents write the targets in parallel. */
static int spans_most(const struct rio_coll_call *c, int P, int T)
{
    if (P < 2 || T < 2 || !c->tbytes)
        return 0;
    long long spans = 0; /* the targets each rank touches, summed over the ranks */
    for (int i = 0; i < P; i++)
        for (int t = 0; t < T; t++)
            spans += rio__coll_tbytes(c, i, t) > 0;
    return 2 * spans > (long long)P * T;
}

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int T = c->tg.T, P = c->nprocs;
    if (c->req->write && c->nonoverlap && !spans_most(c, P, T)) {
        p->mode = RIO_COLL_TOKEN;
        snprintf(p->reason, sizeof p->reason,
                 "non-overlapping call: ranks write their own data, in rank order per target");
        return 0;
    }
    int k = P >= 4 * T ? P / (4 * T) : 1;
    int *used = rio__calloc((size_t)P, sizeof *used), nused = 0;
    int rc = used ? rio__coll_plan_alloc(p, T * k) : RIO_E_NOMEM;
    if (!rc && k > 1) {
        p->prev_agent = rio__malloc(sizeof *p->prev_agent * (size_t)(T * k));
        if (!p->prev_agent)
            rc = RIO_E_NOMEM;
    }
    MPI_Offset u = c->layout.unit, base = c->min / u * u;
    p->round_bytes = RIO_MAX(u, p->round_bytes / u * u);
    MPI_Offset rows = p->round_bytes / u;
    for (int j = 0; j < k && !rc; j++)
        for (int t = 0; t < T && !rc; t++) {
            int best = -1;
            MPI_Offset bb = -1;
            if (nused == P) { /* every rank is an agent: start over */
                memset(used, 0, sizeof *used * (size_t)P);
                nused = 0;
            }
            for (int i = 0; i < P; i++) {
                if (used[i])
                    continue;
                MPI_Offset b = rio__coll_tbytes(c, i, t);
                if (b > bb) {
                    best = i;
                    bb = b;
                }
            }
            used[best] = 1;
            nused++;
            int a = t * k + j;
            p->aggs[a] = best;
            if (p->prev_agent) /* turns go round: the first agent follows the last */
                p->prev_agent[a] = j > 0 ? a - 1 : a + k - 1;
            rc = rio__coll_dom_targets(&p->dom[a], &t, 1, k, j, base, c->max);
            /* the agents of a target take one round's stripes each, in turn,
             * so a round's turns reach the target in offset order */
            p->dom[a].chunk = rows;
        }
    free(used);
    if (rc)
        return rc;
    if (!c->req->write) {
        p->mode = RIO_COLL_PREFETCH;
        snprintf(p->reason, sizeof p->reason,
                 "read: agents prefetch their targets, then each rank reads its own data");
    }
    return 0;
}

const struct rio_coll_strategy rio__strategy_resonant = {
    .name = "resonant",
    .needs_layout = 1,
    .wants_tbytes = 1,
    .plan = plan,
};
