/*
 * strategy.c — the table of strategies and what their plans share.
 *
 * The base code never names a strategy: it looks one up here by the name
 * in the resonio_strategy hint.  "auto" stands for the measured selection
 * of src/select; until a call has been measured it applies fixed rules:
 * ranks whose requests are single regions in rank order write their own
 * data (unless romio_cb_write/romio_cb_read=enable force collective
 * buffering, as in ROMIO); a file with a striping layout goes to resonant;
 * anything else to two_phase.
 */
#include "coll_int.h"

#include <stdlib.h>
#include <string.h>

extern const struct rio_coll_strategy rio__strategy_two_phase, rio__strategy_resonant,
    rio__strategy_stripe, rio__strategy_node_first, rio__strategy_target_first,
    rio__strategy_direct, rio__strategy_independent;

static int auto_plan(const struct rio_coll_call *c, struct rio_coll_plan *p);

static const struct rio_coll_strategy strategy_auto = {
    .name = "auto",
    .wants_tbytes = 1,
    .plan = auto_plan,
};

static const struct rio_coll_strategy *const table[] = {
    &rio__strategy_two_phase,    &rio__strategy_resonant, &rio__strategy_stripe,
    &rio__strategy_node_first,   &rio__strategy_target_first, &rio__strategy_direct,
    &rio__strategy_independent,  &strategy_auto,
};

const struct rio_coll_strategy *rio__coll_strategy_find(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(table[i]->name, name))
            return table[i];
    return NULL;
}

static int auto_plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int single = 1;
    for (int i = 0; i < c->nprocs; i++)
        if (c->sum[i].bytes > 0 && c->sum[i].regions > 1)
            single = 0;
    const struct rio_hints *h = c->req->hints;
    int cb_forced = (c->req->write ? h->romio_cb_write : h->romio_cb_read) == RIO_ENABLE;
    if (c->nonoverlap && single && !cb_forced) {
        snprintf(p->reason, sizeof p->reason,
                 "auto: every request is one region, in rank order: each rank its own");
        return rio__strategy_independent.plan(c, p);
    }
    if (c->layout.known && c->layout.count > 1) {
        snprintf(p->reason, sizeof p->reason, "auto: striped file: resonant");
        return rio__strategy_resonant.plan(c, p);
    }
    snprintf(p->reason, sizeof p->reason, "auto: two_phase");
    return rio__strategy_two_phase.plan(c, p);
}

/* ---- plans --------------------------------------------------------------------------- */

int rio__coll_plan_alloc(struct rio_coll_plan *p, int naggs)
{
    p->naggs = naggs;
    p->aggs = rio__calloc((size_t)(naggs ? naggs : 1), sizeof *p->aggs);
    p->dom = rio__calloc((size_t)(naggs ? naggs : 1), sizeof *p->dom);
    if (!p->aggs || !p->dom)
        return RIO_E_NOMEM;
    for (int a = 0; a < naggs; a++)
        p->dom[a].node = -1;
    return 0;
}

void rio__coll_plan_free(struct rio_coll_plan *p)
{
    if (p->dom)
        for (int a = 0; a < p->naggs; a++)
            free(p->dom[a].targets);
    free(p->dom);
    free(p->aggs);
    free(p->bypass);
    free(p->prev_agent);
    p->dom = NULL;
    p->aggs = NULL;
    p->bypass = NULL;
    p->prev_agent = NULL;
}

int rio__coll_dom_targets(struct rio_coll_domain *d, const int *targets, int n, int ngroup,
                          int member, MPI_Offset start, MPI_Offset end)
{
    d->kind = RIO_DOM_TARGETS;
    d->targets = rio__malloc(sizeof(int) * (size_t)n);
    if (!d->targets)
        return RIO_E_NOMEM;
    memcpy(d->targets, targets, sizeof(int) * (size_t)n);
    d->ntargets = n;
    d->ngroup = ngroup;
    d->member = member;
    d->chunk = 1;
    d->start = start;
    d->end = RIO_MAX(start, end);
    d->node = -1;
    return 0;
}

/* ---- ROMIO's aggregator choice --------------------------------------------------------- */

/* Aggregators per node from cb_config_list ("*:N", "*:*"; entries are
 * comma-separated and the first one applies), -1 for every rank. */
static int per_node_from_list(const char *list)
{
    if (!list)
        return 1;
    const char *colon = strchr(list, ':');
    if (!colon)
        return 1;
    if (colon[1] == '*')
        return -1;
    int n = atoi(colon + 1);
    return n > 0 ? n : 1;
}

int rio__coll_romio_aggs(const struct rio_coll_call *c, int **out)
{
    const struct rio_hints *h = c->req->hints;
    int P = c->nprocs, per = per_node_from_list(h->cb_config_list);
    int *used = rio__calloc((size_t)P, sizeof *used);
    int *aggs = rio__malloc(sizeof *aggs * (size_t)P);
    int n = 0;
    *out = NULL;
    if (!used || !aggs) {
        free(used);
        free(aggs);
        return RIO_E_NOMEM;
    }
    int want = h->cb_nodes > 0 ? RIO_MIN(h->cb_nodes, P) : -1;
    /* take the k-th lowest rank of every node, k = 0, 1, ... until enough */
    for (int k = 0; n < P; k++) {
        int took = 0;
        for (int node = 0; node < c->nnodes && n < P; node++) {
            if (per >= 0 && k >= per && want < 0)
                continue;
            int seen = 0;
            for (int i = 0; i < P; i++) {
                if (c->node_of[i] != node)
                    continue;
                if (seen++ == k) {
                    if (want >= 0 && n >= want)
                        break;
                    aggs[n++] = i;
                    used[i] = 1;
                    took = 1;
                    break;
                }
            }
        }
        if (!took || (want >= 0 && n >= want) || (want < 0 && per >= 0 && k + 1 >= per))
            break;
    }
    free(used);
    /* ROMIO lists aggregators in rank order */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && aggs[j - 1] > aggs[j]; j--) {
            int t = aggs[j];
            aggs[j] = aggs[j - 1];
            aggs[j - 1] = t;
        }
    *out = aggs;
    return n;
}
