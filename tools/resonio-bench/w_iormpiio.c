/*
 * w_iormpiio.c — ior-mpi-io of resonant-io.txt §4.2.3 (Figure 8): the file
 * is split into N equal parts, rank i accesses part i as a sequence of
 * collective calls, and in call c every rank accesses the segment at
 * relative offset c*S of its part (a 1 GB file in the paper).
 *
 * View: S contiguous bytes displaced by i*(size/N); memory contiguous.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"seg", BP_SIZE, "64k", 1, 1LL << 30, NULL, "segment size S per rank and call"},
    {"size", BP_SIZE, "16m", 1, 1LL << 40, NULL, "file size (paper: 1G); calls = size/(N*S)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long S = v[0];
    long long calls = v[1] / ((long long)np * S) > 0 ? v[1] / ((long long)np * S) : 1;
    if (calls > 1000000)
        return bench_fail(err, len, "iormpiio: %lld calls is too many", calls);
    p->etype = MPI_BYTE;
    p->memtype = MPI_BYTE;
    if (MPI_Type_contiguous((int)S, MPI_BYTE, &p->filetype) != MPI_SUCCESS ||
        MPI_Type_commit(&p->filetype) != MPI_SUCCESS || bench_plan_calls(p, (int)calls))
        return bench_fail(err, len, "iormpiio: cannot make the types");
    for (int c = 0; c < p->ncalls; c++)
        p->calls[c] = (struct bench_call){rank * calls * S, c, 1, (int)S, (MPI_Aint)(c * S)};
    p->membytes = (size_t)(calls * S);
    p->filesize = calls * S * np;
    p->fregion = S;
    p->mregion = S;
    p->one_region = 1;
    snprintf(p->shape, sizeof p->shape,
             "%lld call%s; per call rank i one segment of %lld B at i*%lld + call*S", calls,
             bench_plural(calls), S, calls * S);
    return 0;
}

const struct bench_workload bench_w_iormpiio = {
    .name = "iormpiio",
    .source = "resonant-io.txt §4.2.3, Fig. 8",
    .doc = "file split in N parts, call c touches offset c*S of every part",
    .params = params,
    .setup = setup,
};
