/*
 * w_matrix.c — Matrix of orthrus.txt §3.2 (Figures 2-4): a row-major 2-D
 * matrix whose columns are split evenly among the ranks; the row segment
 * of a rank's columns is a block, and in each collective call every rank
 * accesses `depth` consecutive blocks of its columns (one per row).  The
 * paper varies the block size from 4 KiB to 4096 KiB at depth 4, and the
 * depth from 4 to 128 at 16 KiB blocks.
 *
 * View: vector(depth, block, N*block) resized to depth rows, displaced by
 * i*block; memory contiguous.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"block", BP_SIZE, "64k", 1, 1LL << 30, NULL, "block size: a rank's part of a row"},
    {"depth", BP_COUNT, "4", 1, 1 << 20, NULL, "access depth: blocks per rank and call (4)"},
    {"size", BP_SIZE, "16m", 1, 1LL << 40, NULL, "file size; calls = size/(depth*N*block)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long B = v[0], D = v[1], per_call = D * np * B;
    long long calls = v[2] / per_call > 0 ? v[2] / per_call : 1;
    if (B * np > BENCH_INT_MAX || D * B > BENCH_INT_MAX)
        return bench_fail(err, len, "matrix: a call of %lld blocks of %lld B is too large", D, B);
    if (calls > 1000000)
        return bench_fail(err, len, "matrix: %lld calls is too many", calls);
    MPI_Datatype vec;
    p->etype = MPI_BYTE;
    p->memtype = MPI_BYTE;
    if (MPI_Type_vector((int)D, (int)B, (int)(np * B), MPI_BYTE, &vec) != MPI_SUCCESS ||
        bench_resized(vec, per_call, &p->filetype) || bench_plan_calls(p, (int)calls))
        return bench_fail(err, len, "matrix: cannot make the types");
    for (int c = 0; c < p->ncalls; c++)
        p->calls[c] = (struct bench_call){rank * B, c, 1, (int)(D * B), (MPI_Aint)(c * D * B)};
    p->membytes = (size_t)(calls * D * B);
    p->filesize = calls * per_call;
    p->fregion = B;
    p->mregion = D * B;
    p->piece = B;
    p->one_region = D == 1;
    snprintf(p->shape, sizeof p->shape,
             "%lld call%s; per call and rank %lld blocks of %lld B, one row (%lld B) apart", calls,
             bench_plural(calls), D, B, np * B);
    return 0;
}

const struct bench_workload bench_w_matrix = {
    .name = "matrix",
    .source = "orthrus.txt §3.2, Fig. 3-4",
    .doc = "column-split row-major matrix; block size and access depth",
    .params = params,
    .setup = setup,
};
