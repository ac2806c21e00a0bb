/*
 * w_collperf.c — coll_perf of ROMIO's test suite, as used in
 * resonant-io.txt §4.2.1 (Figure 6, arrays 64^3..1024^3) and
 * datatype-io.txt §V-C (Table III, 600^3): a 3-D array of MPI_INTs
 * block-distributed over a process grid from MPI_Dims_create (a darray
 * filetype, C order), written with one collective call and read back with
 * one; memory contiguous.  At 2 ranks the grid is 2x1x1, so each rank's
 * block is one contiguous half of the file.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"n", BP_COUNT, "160", 1, 2048, NULL, "array side: n^3 ints (64..1024; 600)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    int n = (int)v[0], gsizes[3] = {n, n, n}, psizes[3] = {0, 0, 0};
    int distribs[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    if ((long long)n * n * n * 4 / np > BENCH_INT_MAX)
        return bench_fail(err, len, "collperf: %d^3 ints is too large at %d ranks", n, np);
    MPI_Dims_create(np, 3, psizes);
    p->etype = MPI_INT;
    p->memtype = MPI_INT;
    if (MPI_Type_create_darray(np, rank, 3, gsizes, distribs, dargs, psizes, MPI_ORDER_C, MPI_INT,
                               &p->filetype) != MPI_SUCCESS ||
        MPI_Type_commit(&p->filetype) != MPI_SUCCESS || bench_plan_calls(p, 1))
        return bench_fail(err, len, "collperf: cannot make the types");
    int size;
    MPI_Type_size(p->filetype, &size);
    /* this rank's block: coordinates in the grid, C order */
    int coord[3], rest = rank, l[3];
    for (int d = 2; d >= 0; d--) {
        coord[d] = rest % psizes[d];
        rest /= psizes[d];
    }
    for (int d = 0; d < 3; d++) {
        int b = (n + psizes[d] - 1) / psizes[d], lo = coord[d] * b;
        l[d] = lo >= n ? 0 : (n - lo < b ? n - lo : b);
    }
    long long run = 4LL * l[2];
    if (psizes[2] == 1) {
        run *= l[1];
        if (psizes[1] == 1)
            run *= l[0];
    }
    p->calls[0] = (struct bench_call){0, 0, size ? 1 : 0, size / 4, 0};
    p->membytes = (size_t)size;
    p->filesize = (MPI_Offset)n * n * n * 4;
    p->fregion = run;
    p->mregion = size;
    p->one_region = psizes[1] == 1 && psizes[2] == 1;
    snprintf(p->shape, sizeof p->shape,
             "1 call; %dx%dx%d grid, block %dx%dx%d ints, contiguous runs of %lld B", psizes[0],
             psizes[1], psizes[2], l[0], l[1], l[2], run);
    return 0;
}

const struct bench_workload bench_w_collperf = {
    .name = "collperf",
    .source = "resonant-io.txt §4.2.1, Fig. 6; datatype-io.txt §V-C",
    .doc = "3-D block-distributed int array (darray), one call",
    .params = params,
    .setup = setup,
};
