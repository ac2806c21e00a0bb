/*
 * w_demo.c — the demonstration program of resonant-io.txt §1.2 (Figures 2
 * and 5): N ranks call collective I/O repeatedly to cover the whole file
 * from beginning to end; each call covers 4N segments of size S and rank i
 * takes segments k*N+i, k = 0..3.  The paper varies S from 32 KiB to
 * 1 MiB (powers of two) over a 10 GB file; here the file size is a
 * parameter.
 *
 * View: a vector of 4 blocks of S bytes with stride N*S, resized to the
 * 4*N*S bytes of one call, displaced by i*S; memory contiguous.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"seg", BP_SIZE, "64k", 1, 256LL << 20, NULL, "segment size S (paper: 32K..1M)"},
    {"size", BP_SIZE, "16m", 1, 1LL << 40, NULL, "file size (paper: 10G); calls = size/(4*N*S)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long S = v[0], per_call = 4 * np * S;
    long long calls = v[1] / per_call > 0 ? v[1] / per_call : 1;
    if (S * np > BENCH_INT_MAX)
        return bench_fail(err, len, "demo: a segment of %lld B at %d ranks is too large", S, np);
    if (calls > 1000000)
        return bench_fail(err, len, "demo: %lld calls is too many; raise -seg or lower -size",
                          calls);
    MPI_Datatype vec;
    p->etype = MPI_BYTE;
    p->memtype = MPI_BYTE;
    if (MPI_Type_vector(4, (int)S, (int)(S * np), MPI_BYTE, &vec) != MPI_SUCCESS ||
        bench_resized(vec, per_call, &p->filetype) || bench_plan_calls(p, (int)calls))
        return bench_fail(err, len, "demo: cannot make the types");
    for (int c = 0; c < p->ncalls; c++)
        p->calls[c] = (struct bench_call){rank * S, c, 1, (int)(4 * S), (MPI_Aint)(c * 4 * S)};
    p->membytes = (size_t)(calls * 4 * S);
    p->filesize = calls * per_call;
    p->fregion = S;
    p->mregion = 4 * S;
    p->piece = S;
    snprintf(p->shape, sizeof p->shape,
             "%lld call%s; per call and rank 4 segments of %lld B, rank i takes k*%d+i", calls,
             bench_plural(calls), S, np);
    return 0;
}

const struct bench_workload bench_w_demo = {
    .name = "demo",
    .source = "resonant-io.txt §1.2, Fig. 2 and 5",
    .doc = "each call covers 4N segments, rank i takes segments k*N+i",
    .params = params,
    .setup = setup,
};
