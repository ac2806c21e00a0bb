/*
 * two_phase.c — ROMIO's two-phase collective buffering.
 *
 * Aggregators by ROMIO's rules (cb_config_list, cb_nodes; one per node by
 * default); the extent [min start, max end) of all ranks' requests is cut
 * into even contiguous file domains, one per aggregator, with boundaries on
 * stripe-unit multiples when the file has a layout; each domain is written
 * or read in rounds of cb_buffer_size.  A write round with holes is
 * read-modify-written when romio_ds_write=enable or ds_in_coll=enable ask
 * for it, or under romio_ds_write=automatic when its holes are small
 * (exchange.c, round_rmw), else written by list I/O; reads read a round's
 * span in one request when its holes are small (sieving).
 */
#include "../coll_int.h"

#include <stdlib.h>

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int *aggs = NULL;
    int n = rio__coll_romio_aggs(c, &aggs, p->reason, sizeof p->reason);
    if (n < 0)
        return n;
    int rc = rio__coll_even_domains(c, p, aggs, n);
    free(aggs);
    return rc;
}

const struct rio_coll_strategy rio__strategy_two_phase = {
    .name = "two_phase",
    .exchanges = 1,
    .rows_at_aggs = 1,
    .plan = plan,
};
