/*
 * direct.c — no aggregation (ECIO, ecio-rdma.txt §4): each rank sends its
 * own noncontiguous pieces to storage as one datatype request, and storage
 * that understands datatypes redistributes them where the data lives.  On
 * the posix driver this is datatype I/O by each rank.
 */
#include "../coll_int.h"

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    (void)c;
    p->mode = RIO_COLL_DIRECT;
    return 0;
}

const struct rio_coll_strategy rio__strategy_direct = {
    .name = "direct",
    .alone = 1,
    .plan = plan,
};
