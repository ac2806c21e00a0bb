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
 * aggregators" is among what no model predicts well), and where a node
 * holds several ranks and no hint chooses the aggregators the fixed rules
 * take it and the examination starts with it (strategy.c).  Measured with
 * resonio-bench at 2 ranks on ext4, 5 rounds, noncontig elmtcount=16,
 * write/read MiB/s, two_phase against every_rank: Open MPI 323/1951
 * against 1915/2726, MPICH 1313/1773 against 1940/2730.
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

/* Where two_phase aggregates on every rank already (one rank per node, or
 * cb_nodes asks for as many aggregators as ranks) the plan is two_phase's:
 * not worth examining twice. */
static int applies(const struct rio_coll_call *c)
{
    return !(c->nnodes >= c->nprocs || rio__coll_settings(c->req->hints)->cb_nodes >= c->nprocs);
}

/* Ahead of two_phase (first in the table) for reads, and for writes where
 * the fixed rules take it, since a file of few calls (tile: 6, with 5 read
 * candidates) examines only the first ones.  resonio-bench, 2 ranks,
 * default suite: every_rank read faster than two_phase in 23 of 24 cases
 * (noncontig elmtcount=16 and 256, hpio, flash, ecio, tile; MPICH and Open
 * MPI; tmpfs and ext4), tile by 1.7-1.8x, and within 1 % in the other
 * (flash, MPICH, ext4). */
static int early(const struct rio_coll_call *c)
{
    return !c->req->write || rio__coll_every_rank_rule(c);
}

const struct rio_coll_strategy rio__strategy_every_rank = {
    .name = "every_rank",
    .exchanges = 1,
    .plan = plan,
    .applies = applies,
    .early = early,
};
