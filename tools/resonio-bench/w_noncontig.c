/*
 * w_noncontig.c — noncontig of resonant-io.txt §4.2.4 (Figure 9) and
 * orthrus.txt §3.3 (Figure 5): the file is a 2-D array of N columns, each
 * elmtcount MPI_INTs wide; rank i accesses column i through a vector
 * filetype.  The data of one collective call over all ranks is fixed (the
 * buffer size, 16 MB in resonant-io), so a larger elmtcount means fewer,
 * larger pieces.  orthrus sweeps elmtcount from 16 to 16384.
 *
 * View: etype MPI_INT, vector(rows, elmtcount, N*elmtcount) resized to one
 * call's rows, displaced by i*elmtcount ints; memory contiguous.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"elmtcount", BP_COUNT, "1024", 1, 64LL << 20, NULL, "ints per row of a column (16..16384)"},
    {"bufsize", BP_SIZE, "16m", 4, 1LL << 31, NULL, "bytes of one call over all ranks (16M)"},
    {"size", BP_SIZE, "16m", 4, 1LL << 40, NULL, "file size; calls = size/bufsize"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long E = v[0], rowbytes = 4 * E * np;
    long long rows = v[1] / rowbytes > 0 ? v[1] / rowbytes : 1;
    long long per_call = rows * rowbytes;
    long long calls = v[2] / per_call > 0 ? v[2] / per_call : 1;
    if (rows * E > BENCH_INT_MAX / 4 || E * np > BENCH_INT_MAX)
        return bench_fail(err, len, "noncontig: a call of %lld rows is too large", rows);
    if (calls > 1000000)
        return bench_fail(err, len, "noncontig: %lld calls is too many", calls);
    MPI_Datatype vec;
    p->etype = MPI_INT;
    p->memtype = MPI_INT;
    if (MPI_Type_vector((int)rows, (int)E, (int)(E * np), MPI_INT, &vec) != MPI_SUCCESS ||
        bench_resized(vec, per_call, &p->filetype) || bench_plan_calls(p, (int)calls))
        return bench_fail(err, len, "noncontig: cannot make the types");
    for (int c = 0; c < p->ncalls; c++)
        p->calls[c] =
            (struct bench_call){rank * E * 4, c, 1, (int)(rows * E), (MPI_Aint)(c * rows * E * 4)};
    p->membytes = (size_t)(calls * rows * E * 4);
    p->filesize = calls * per_call;
    p->fregion = 4 * E;
    p->mregion = rows * E * 4;
    snprintf(p->shape, sizeof p->shape,
             "%lld call%s of %lld B; per call and rank %lld pieces of %lld B, stride %lld B", calls,
             bench_plural(calls), per_call, rows, 4 * E, rowbytes);
    return 0;
}

const struct bench_workload bench_w_noncontig = {
    .name = "noncontig",
    .source = "resonant-io.txt §4.2.4, Fig. 9; orthrus.txt §3.3, Fig. 5",
    .doc = "N columns of elmtcount ints through a vector filetype, fixed bytes per call",
    .params = params,
    .setup = setup,
};
