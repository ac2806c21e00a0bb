/*
 * w_hpio.c — HPIO of resonant-io.txt §4.2.5 (Figure 10): region_count
 * regions of region_size bytes, region_spacing bytes apart, for each rank;
 * with N ranks the regions of the ranks alternate (region r of rank i is
 * the (r*N+i)-th region of the file), so each rank reads a column of the
 * file.  One collective call covers everything.  The paper uses
 * region_count 4096, region_spacing 0 and region_size 2K..64K.  Memory is
 * contiguous, or noncontiguous with the same spacing as the file (as in
 * HPIO, so noncontiguous memory needs region_spacing > 0).
 *
 * View: vector(region_count, region_size, N*(size+spacing)) displaced by
 * i*(size+spacing); the file's spacing bytes are never written (holes).
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"region_count", BP_COUNT, "4096", 1, 1LL << 24, NULL, "regions per rank (4096)"},
    {"region_size", BP_SIZE, "2k", 1, 1LL << 30, NULL, "bytes per region (2K..64K)"},
    {"region_spacing", BP_SIZE, "0", 0, 1LL << 30, NULL, "bytes between regions (0)"},
    {"mem", BP_CHOICE, "contig", 0, 0, "contig|noncontig", "memory layout"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long cnt = v[0], size = v[1], sp = v[2], pitch = size + sp;
    int memnc = (int)v[3];
    if (memnc && sp == 0)
        return bench_fail(err, len, "hpio: -mem noncontig needs -region_spacing > 0");
    if (pitch * np > BENCH_INT_MAX || cnt * size > BENCH_INT_MAX)
        return bench_fail(err, len, "hpio: %lld regions of %lld B is too large", cnt, size);
    MPI_Datatype vec;
    p->etype = MPI_BYTE;
    if (MPI_Type_vector((int)cnt, (int)size, (int)(pitch * np), MPI_BYTE, &vec) != MPI_SUCCESS ||
        bench_resized(vec, cnt * pitch * np, &p->filetype) || bench_plan_calls(p, 1))
        return bench_fail(err, len, "hpio: cannot make the types");
    int count = (int)(cnt * size);
    if (memnc) {
        if (MPI_Type_vector((int)cnt, (int)size, (int)pitch, MPI_BYTE, &p->memtype) !=
                MPI_SUCCESS ||
            MPI_Type_commit(&p->memtype) != MPI_SUCCESS)
            return bench_fail(err, len, "hpio: cannot make the memory type");
        count = 1;
        p->membytes = (size_t)((cnt - 1) * pitch + size);
        p->mregion = size;
    } else {
        p->memtype = MPI_BYTE;
        p->membytes = (size_t)(cnt * size);
        p->mregion = cnt * size;
    }
    p->calls[0] = (struct bench_call){rank * pitch, 0, 1, count, 0};
    p->filesize = (cnt * np - 1) * pitch + size;
    if (sp) {
        p->hole_period = pitch;
        p->hole_len = size;
    }
    p->fregion = (sp == 0 && np == 1) ? cnt * size : size;
    p->one_region = np == 1 && sp == 0 && !memnc;
    snprintf(p->shape, sizeof p->shape,
             "1 call; per rank %lld regions of %lld B, %lld B apart, memory %s", cnt, size,
             pitch * np - size, memnc ? "noncontiguous" : "contiguous");
    return 0;
}

const struct bench_workload bench_w_hpio = {
    .name = "hpio",
    .source = "resonant-io.txt §4.2.5, Fig. 10",
    .doc = "region_count regions of region_size, region_spacing apart; memory contig or not",
    .params = params,
    .setup = setup,
};
