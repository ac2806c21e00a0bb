/*
 * independent.c — no aggregation: each rank serves its own request with the
 * independent methods' chooser, as if it had called the independent
 * function.
 */
#include "../coll_int.h"

static int plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    (void)c;
    p->mode = RIO_COLL_INDEP;
    return 0;
}

const struct rio_coll_strategy rio__strategy_independent = {
    .name = "independent",
    .alone = 1,
    .plan = plan,
};
