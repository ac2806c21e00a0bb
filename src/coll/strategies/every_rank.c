/*
 * every_rank.c — two-phase collective buffering with every rank an
 * aggregator.
 *
 * ROMIO's default of one aggregator per node leaves the other ranks of a
 * node idle while one rank receives, copies and writes everything; where
 * the storage takes several writers at once (page cache, tmpfs, a local
 * SSD) the node's other cores can share that work.  The domains are
 * two_phase's: even contiguous pieces of [min start, max end), one per
 * rank in rank order, stripe-aligned when the file has a layout.  The
 * selector weighs it against two_phase, so the number of aggregators per
 * node is measured rather than assumed (orthrus.txt §1.3: "number of
 * aggregators" is among what no model predicts well).  Measured with
 * resonio-bench at 2 ranks under MPICH, two_phase with cb_nodes=1 against
 * cb_nodes=2, MiB/s write/read: noncontig elmtcount=16 on tmpfs 1475/1994
 * against 1814/3647; hpio reads on ext4 5915 against 7146; but noncontig
 * elmtcount=16 writes on ext4 1934 against 641, which is why it is a
 * candidate and not the default.
 */
#include "../coll_int.h"

#include <stdlib.h>

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    int *aggs = rio__malloc(sizeof *aggs * (size_t)c->nprocs);
    if (!aggs)
        return RIO_E_NOMEM;
    for (int i = 0; i < c->nprocs; i++)
        aggs[i] = i;
    int rc = rio__coll_even_domains(c, p, aggs, c->nprocs);
    free(aggs);
    return rc;
}

const struct rio_coll_strategy rio__strategy_every_rank = {
    .name = "every_rank",
    .plan = plan,
};
