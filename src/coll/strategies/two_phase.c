/*
 * two_phase.c — ROMIO's two-phase collective buffering.
 *
 * Aggregators by ROMIO's rules (cb_config_list, cb_nodes; one per node by
 * default); the extent [min start, max end) of all ranks' requests is cut
 * into even contiguous file domains, one per aggregator, with boundaries on
 * stripe-unit multiples when the file has a layout; each domain is written
 * or read in rounds of cb_buffer_size.  Holes in a write round are skipped
 * with list I/O unless romio_ds_write=enable or ds_in_coll=enable ask for
 * read-modify-write, and reads read a round's span in one request when
 * its holes are small (sieving).
 */
#include "../coll_int.h"

#include <stdlib.h>

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int *aggs = NULL;
    int n = rio__coll_romio_aggs(c, &aggs, p->reason, sizeof p->reason);
    if (n < 0)
        return n;
    if (n == 0) { /* cannot happen with nodes of at least one rank; stay safe */
        free(aggs);
        n = 1;
        aggs = rio__malloc(sizeof *aggs);
        if (!aggs)
            return RIO_E_NOMEM;
        aggs[0] = 0;
    }
    int rc = rio__coll_plan_alloc(p, n);
    if (rc) {
        free(aggs);
        return rc;
    }
    MPI_Offset span = c->max - c->min, size = (span + n - 1) / n, base = c->min;
    if (c->layout.known && c->layout.unit > 0) {
        MPI_Offset u = c->layout.unit;
        base = c->min / u * u;
        size = ((c->max - base + n - 1) / n + u - 1) / u * u;
    }
    if (size <= 0)
        size = 1;
    for (int a = 0; a < n; a++) {
        p->aggs[a] = aggs[a];
        p->dom[a].kind = RIO_DOM_RANGE;
        p->dom[a].start = RIO_MIN(RIO_MAX(base + (MPI_Offset)a * size, c->min), c->max);
        p->dom[a].end = RIO_MIN(base + (MPI_Offset)(a + 1) * size, c->max);
        if (p->dom[a].end < p->dom[a].start)
            p->dom[a].end = p->dom[a].start;
    }
    free(aggs);
    const struct rio_hints *h = c->req->hints;
    p->rmw = h->romio_ds_write == RIO_ENABLE || h->ds_in_coll == RIO_ENABLE;
    return 0;
}

const struct rio_coll_strategy rio__strategy_two_phase = {
    .name = "two_phase",
    .plan = plan,
};
