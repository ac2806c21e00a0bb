/*
 * w_ecio.c — the noncontiguous test of ecio-rdma.txt §5 (Tables 1-4): the
 * N clients' data interleave element by element (MPI_INT blocks of length
 * 1, stride N), so every rank's file pieces are 4 bytes and the whole
 * call's range is dense.  The paper sets count (ints per call over all
 * clients) to 4000..1024000 and repeats the call 100 times, at 2 and 4
 * clients.
 *
 * View: etype MPI_INT, vector(count/N, 1, N) resized to count ints,
 * displaced by i ints; memory contiguous.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"count", BP_COUNT, "64000", 1, 1LL << 28, NULL, "ints per call, all ranks (4000..1024000)"},
    {"calls", BP_COUNT, "100", 1, 1000000, NULL, "calls (100)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long per = v[0] / np, calls = v[1];
    if (per < 1)
        return bench_fail(err, len, "ecio: -count must be at least the number of ranks (%d)", np);
    MPI_Datatype vec;
    p->etype = MPI_INT;
    p->memtype = MPI_INT;
    if (MPI_Type_vector((int)per, 1, np, MPI_INT, &vec) != MPI_SUCCESS ||
        bench_resized(vec, per * np * 4, &p->filetype) || bench_plan_calls(p, (int)calls))
        return bench_fail(err, len, "ecio: cannot make the types");
    for (int c = 0; c < p->ncalls; c++)
        p->calls[c] = (struct bench_call){rank * 4, c, 1, (int)per, (MPI_Aint)(c * per * 4)};
    p->membytes = (size_t)(calls * per * 4);
    p->filesize = calls * per * np * 4;
    p->fregion = 4;
    p->mregion = per * 4;
    snprintf(p->shape, sizeof p->shape, "%lld call%s; per call and rank %lld ints, one every %d",
             calls, bench_plural(calls), per, np);
    return 0;
}

const struct bench_workload bench_w_ecio = {
    .name = "ecio",
    .source = "ecio-rdma.txt §5, Tables 1-4",
    .doc = "interleaved single-int blocks (blocklen 1, stride N) between N clients",
    .params = params,
    .setup = setup,
};
