/*
 * w_mpiiotest.c — mpi-io-test of resonant-io.txt §4.2.2 (Figure 7): each
 * rank accesses one contiguous segment per collective call; in one call
 * the N ranks access N segments in a row, the next call the next N
 * segments, marching through the file (a 10 GB file in the paper, with
 * the segment size varied).
 *
 * View: S bytes resized to N*S, displaced by i*S; memory contiguous.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"seg", BP_SIZE, "1m", 1, 1LL << 30, NULL, "segment size S per rank and call"},
    {"size", BP_SIZE, "16m", 1, 1LL << 40, NULL, "file size (paper: 10G); calls = size/(N*S)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long S = v[0], per_call = (long long)np * S;
    long long calls = v[1] / per_call > 0 ? v[1] / per_call : 1;
    if (calls > 1000000)
        return bench_fail(err, len, "mpiiotest: %lld calls is too many", calls);
    MPI_Datatype seg;
    p->etype = MPI_BYTE;
    p->memtype = MPI_BYTE;
    if (MPI_Type_contiguous((int)S, MPI_BYTE, &seg) != MPI_SUCCESS ||
        bench_resized(seg, per_call, &p->filetype) || bench_plan_calls(p, (int)calls))
        return bench_fail(err, len, "mpiiotest: cannot make the types");
    for (int c = 0; c < p->ncalls; c++)
        p->calls[c] = (struct bench_call){rank * S, c, 1, (int)S, (MPI_Aint)(c * S)};
    p->membytes = (size_t)(calls * S);
    p->filesize = calls * per_call;
    p->fregion = S;
    p->mregion = S;
    p->one_region = 1;
    snprintf(p->shape, sizeof p->shape,
             "%lld call%s; per call rank i one segment of %lld B at (call*%d+i)*S", calls,
             bench_plural(calls), S, np);
    return 0;
}

const struct bench_workload bench_w_mpiiotest = {
    .name = "mpiiotest",
    .source = "resonant-io.txt §4.2.2, Fig. 7",
    .doc = "one contiguous segment per rank per call, calls march through the file",
    .params = params,
    .setup = setup,
};
