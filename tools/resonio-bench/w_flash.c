/*
 * w_flash.c — the FLASH I/O checkpoint simulation of datatype-io.txt §V-D
 * (Figures 12 and 13, Table IV): each rank holds 80 blocks; a block is a
 * 3-D array of 8^3 cells surrounded by 4 guard cells on every side, and
 * every cell holds 24 variables (doubles), the variable index fastest
 * (FLASH's unk(var, i, j, k, block)).  The checkpoint stores the interior
 * cells variable by variable: all of variable 0 (every rank's blocks in
 * rank order), then variable 1, ...  Memory and file are both
 * noncontiguous; one collective call moves everything (7.5 MiB per rank
 * at the paper's sizes).
 *
 * Memory type: hvector(var) of hvector(block) of hvector(k) of hvector(j)
 * of vector(i, stride nvar) of MPI_DOUBLE, starting at the first interior
 * cell.  File type: vector(nvar, blocks*nxb^3, N*blocks*nxb^3) of
 * MPI_DOUBLE displaced by the rank's blocks.
 */
#include "workloads.h"

static const struct bench_param params[] = {
    {"blocks", BP_COUNT, "80", 1, 100000, NULL, "blocks per rank (80)"},
    {"nxb", BP_COUNT, "8", 1, 1024, NULL, "interior cells per block side (8)"},
    {"nguard", BP_COUNT, "4", 0, 64, NULL, "guard cells on each side (4)"},
    {"nvar", BP_COUNT, "24", 1, 1024, NULL, "variables per cell (24)"},
    {NULL, 0, NULL, 0, 0, NULL, NULL},
};

/* setup: see struct bench_workload. */
static int setup(const long long *v, int rank, int np, struct bench_plan *p, char *err, size_t len)
{
    long long nb = v[0], nx = v[1], g = v[2], nv = v[3], side = nx + 2 * g;
    long long cells = nx * nx * nx, ext = side * side * side * nv * 8;
    if (nb * ext > (1LL << 34) || nb * cells * np > BENCH_INT_MAX)
        return bench_fail(err, len, "flash: too large");
    MPI_Datatype x = MPI_DATATYPE_NULL, y = MPI_DATATYPE_NULL, z = MPI_DATATYPE_NULL,
                 b = MPI_DATATYPE_NULL, vec = MPI_DATATYPE_NULL;
    p->etype = MPI_DOUBLE;
    int ok = MPI_Type_vector((int)nx, 1, (int)nv, MPI_DOUBLE, &x) == MPI_SUCCESS &&
             MPI_Type_create_hvector((int)nx, 1, side * nv * 8, x, &y) == MPI_SUCCESS &&
             MPI_Type_create_hvector((int)nx, 1, side * side * nv * 8, y, &z) == MPI_SUCCESS &&
             MPI_Type_create_hvector((int)nb, 1, ext, z, &b) == MPI_SUCCESS &&
             MPI_Type_create_hvector((int)nv, 1, 8, b, &p->memtype) == MPI_SUCCESS &&
             MPI_Type_commit(&p->memtype) == MPI_SUCCESS &&
             MPI_Type_vector((int)nv, (int)(nb * cells), (int)(np * nb * cells), MPI_DOUBLE,
                             &vec) == MPI_SUCCESS &&
             MPI_Type_commit(&vec) == MPI_SUCCESS;
    MPI_Datatype parts[4] = {x, y, z, b};
    for (int i = 0; i < 4; i++)
        if (parts[i] != MPI_DATATYPE_NULL)
            MPI_Type_free(&parts[i]);
    p->filetype = vec;
    if (!ok || bench_plan_calls(p, 1))
        return bench_fail(err, len, "flash: cannot make the types");
    MPI_Aint first = (MPI_Aint)(((g * side + g) * side + g) * nv * 8);
    p->calls[0] = (struct bench_call){rank * nb * cells * 8, 0, 1, 1, first};
    p->membytes = (size_t)(nb * ext);
    p->filesize = nv * np * nb * cells * 8;
    p->fregion = nb * cells * 8;
    p->mregion = 8;
    snprintf(p->shape, sizeof p->shape,
             "1 call; per rank %lld blocks of %lld^3 cells (+%lld guard), %lld variables: "
             "%lld B in file pieces of %lld B, memory pieces of 8 B",
             nb, nx, g, nv, nb * cells * nv * 8, nb * cells * 8);
    return 0;
}

const struct bench_workload bench_w_flash = {
    .name = "flash",
    .source = "datatype-io.txt §V-D, Fig. 12-13, Table IV",
    .doc = "80 blocks of 8^3 cells with guard cells, 24 variables; memory and file noncontiguous",
    .params = params,
    .setup = setup,
};
