/*
 * test_indep_choose.c — the chooser of independent methods: contiguous
 * requests go in one call, small regions with small holes are sieved,
 * regions of a page with holes of a page are not, regions far apart go by
 * datatype I/O, large regions one call each; the
 * thresholds differ for reads and writes; the romio_ds_*
 * hints and a forced method are obeyed.
 *
 * Usage: test_indep_choose <scratch-dir>
 */
#include "file/file_int.h" /* the hints */
#include "indep/indep.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static struct rio_dtype *vec(int count, int blk, int stride)
{
    MPI_Datatype t;
    struct rio_dtype *dt = NULL;
    MPI_Type_vector(count, blk, stride, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    rio__dtype_get(t, &dt);
    MPI_Type_free(&t);
    return dt;
}

static enum rio_indep_method pick(struct rio_store *st, struct rio_dtype *ft,
                                  struct rio_dtype *mt, int write, MPI_Offset start,
                                  MPI_Offset nbytes)
{
    struct rio_indep_req req = {.st = st, .write = write, .buf = NULL, .memtype = mt,
                                .memcount = nbytes, .filetype = ft, .disp = 0,
                                .file_start = start, .nbytes = nbytes};
    return rio__indep_choose(&req);
}

int main(int argc, char **argv)
{
    struct rio_store st;
    struct rio_hints h;
    struct rio_dtype *bytes = NULL;

    MPI_Init(&argc, &argv);
    memset(&st, 0, sizeof st);
    memset(&h, 0, sizeof h);
    st.hints = &h; /* the chooser needs no open file */
    rio__dtype_get(MPI_BYTE, &bytes);

    struct rio_dtype *dense = vec(1000, 8, 12);       /* density 0.67, 8 B regions */
    struct rio_dtype *sparse = vec(100, 4096, 65536); /* 60 KiB holes */
    struct rio_dtype *large = vec(4, 512 << 10, 1 << 20);
    struct rio_dtype *medium = vec(100, 16 << 10, 18 << 10); /* dense, 16 KiB regions */
    struct rio_dtype *pages = vec(4, 4096, 8192);       /* page regions, page holes */
    struct rio_dtype *near = vec(4, 4096, 8192 - 512);  /* page regions, shorter holes */

    CHECK(pick(&st, bytes, bytes, 0, 0, 1 << 20) == RIO_INDEP_CONTIG, "contiguous view: contig");
    CHECK(pick(&st, bytes, bytes, 1, 12345, 77) == RIO_INDEP_CONTIG, "contiguous write: contig");
    CHECK(pick(&st, dense, bytes, 0, 0, 4) == RIO_INDEP_CONTIG,
          "request inside one region of a noncontiguous view: contig");
    CHECK(pick(&st, dense, bytes, 0, 0, 80000) == RIO_INDEP_SIEVE, "dense small reads: sieve");
    CHECK(pick(&st, dense, bytes, 1, 0, 80000) == RIO_INDEP_DTYPE,
          "dense tiny writes: no sieving unless asked (it would put back others' bytes)");
    CHECK(pick(&st, sparse, bytes, 0, 0, 200000) == RIO_INDEP_DTYPE, "sparse reads: dtype");
    CHECK(pick(&st, sparse, bytes, 1, 0, 200000) == RIO_INDEP_DTYPE, "sparse writes: dtype");
    CHECK(pick(&st, large, bytes, 0, 0, 2 << 20) == RIO_INDEP_POSIX, "large regions: posix");
    CHECK(pick(&st, medium, bytes, 0, 0, 1 << 20) == RIO_INDEP_SIEVE,
          "16 KiB regions, 2 KiB holes: sieve reads");
    CHECK(pick(&st, medium, bytes, 1, 0, 1 << 20) == RIO_INDEP_DTYPE,
          "16 KiB regions, 2 KiB holes: do not sieve writes");
    /* four 4 KiB regions over 28 KiB: the request's mean hole is a page,
     * though its bytes over its span (0.57) would say 3 KiB per region */
    CHECK(pick(&st, pages, bytes, 0, 0, 4 * 4096) == RIO_INDEP_DTYPE,
          "4 KiB regions, 4 KiB holes: one call per region");
    CHECK(pick(&st, near, bytes, 0, 0, 4 * 4096) == RIO_INDEP_SIEVE,
          "4 KiB regions, 3.5 KiB holes: sieve reads");

    unit_hint(&h, "romio_ds_read", "disable");
    CHECK(pick(&st, dense, bytes, 0, 0, 80000) == RIO_INDEP_DTYPE, "ds_read disable: no sieve");
    CHECK(pick(&st, dense, bytes, 1, 0, 80000) == RIO_INDEP_DTYPE, "ds_read leaves writes");
    unit_hint(&h, "romio_ds_write", "enable");
    CHECK(pick(&st, dense, bytes, 1, 0, 80000) == RIO_INDEP_SIEVE, "ds_write enable: sieve");
    unit_hint(&h, "romio_ds_write", "disable");
    CHECK(pick(&st, dense, bytes, 1, 0, 80000) == RIO_INDEP_DTYPE, "ds_write disable");
    unit_hint(&h, "romio_ds_read", "enable");
    CHECK(pick(&st, sparse, bytes, 0, 0, 200000) == RIO_INDEP_SIEVE, "ds_read enable: sieve");
    CHECK(pick(&st, bytes, bytes, 0, 0, 80000) == RIO_INDEP_CONTIG,
          "ds_read enable leaves contiguous requests alone");
    unit_hint(&h, "romio_ds_read", "automatic");
    unit_hint(&h, "romio_ds_write", "automatic");
    for (int m = RIO_INDEP_CONTIG; m <= RIO_INDEP_DTYPE; m++) {
        unit_hint(&h, "resonio_indep_method", rio__indep_method_name((enum rio_indep_method)m));
        CHECK((int)pick(&st, dense, bytes, 0, 0, 80000) == m, "forced method %d", m);
    }

    rio__dtype_put(dense);
    rio__dtype_put(sparse);
    rio__dtype_put(large);
    rio__dtype_put(medium);
    rio__dtype_put(pages);
    rio__dtype_put(near);
    rio__dtype_put(bytes);
    printf("ok - chooser\n");
    printf("%d passed, %d failed\n", npass, nfail);
    MPI_Finalize();
    return nfail != 0;
}
