/*
 * w_varsize.c — the FLASH I/O pattern of lustre-adio-write.txt §3.2: ranks
 * in groups of three write records of 40, 40.25 and 40.5 KiB (4x4x4 blocks
 * with 1024 variables in the paper), one collective call per variable, the
 * records of all ranks packed back to back, so records start at offsets
 * that are not aligned to anything.
 *
 * View: rank i's record (record + (i mod group)*step bytes) resized to the
 * sum over ranks, displaced by the records of the ranks before it; memory
 * contiguous.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"record", BP_SIZE, "40k", 1, 1LL << 30, NULL, "record of the first rank of a group (40K)"},
    {"step", BP_SIZE, "256", 0, 1LL << 30, NULL, "added per rank within a group (0.25K)"},
    {"group", BP_COUNT, "3", 1, 1 << 20, NULL, "ranks per group (3)"},
    {"vars", BP_COUNT, "1024", 1, 1000000, NULL, "variables = calls (1024)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long rec = v[0], step = v[1], group = v[2], vars = v[3], total = 0, before = 0;
    for (int i = 0; i < np; i++) {
        long long s = rec + (i % group) * step;
        if (i < rank)
            before += s;
        total += s;
    }
    long long mine = rec + (rank % group) * step;
    if (mine > BENCH_INT_MAX)
        return bench_fail(err, len, "varsize: record too large");
    MPI_Datatype seg;
    p->etype = MPI_BYTE;
    p->memtype = MPI_BYTE;
    if (MPI_Type_contiguous((int)mine, MPI_BYTE, &seg) != MPI_SUCCESS ||
        bench_resized(seg, total, &p->filetype) || bench_plan_calls(p, (int)vars))
        return bench_fail(err, len, "varsize: cannot make the types");
    for (int c = 0; c < p->ncalls; c++)
        p->calls[c] = (struct bench_call){before, c, 1, (int)mine, (MPI_Aint)(c * mine)};
    p->membytes = (size_t)(vars * mine);
    p->filesize = vars * total;
    p->fregion = mine;
    p->mregion = mine;
    p->one_region = 1;
    snprintf(p->shape, sizeof p->shape,
             "%lld call%s; per call rank i one record of %lld + (i mod %lld)*%lld B, packed", vars,
             bench_plural(vars), rec, group, step);
    return 0;
}

const struct bench_workload bench_w_varsize = {
    .name = "varsize",
    .source = "lustre-adio-write.txt §3.2",
    .doc = "groups of three ranks writing 40, 40.25 and 40.5 KiB records",
    .params = params,
    .setup = setup,
};
