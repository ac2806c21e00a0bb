/*
 * i_same.c — resonio and the MPI library's own MPI-IO write the same bytes.
 *
 * The program links only libresonio (not the drop-in libresonio-mpiio), so
 * MPI_File_* here are the MPI library's (ROMIO in MPICH, OMPIO in Open
 * MPI).  The same accesses — every noncontiguous view case of rviews.h,
 * with their mix of collective writes (write_all), individual-pointer
 * writes and explicit-offset writes — go through rio_file_* to <fname>.rio
 * and through MPI_File_* to <fname>.mpi.  Rank 0 then compares each file
 * with the model's image and the two files with each other, over the bytes
 * some rank writes (the rest is undefined in MPI and masked out).  Last,
 * each implementation reads the other's file through the same views and
 * checks what it gets.
 */
#include "resonio.h"
#include "rviews.h"

static char rio_path[4096], mpi_path[4096];

/* One file handle of either implementation. */
struct xfile {
    int rio;
    rio_file *r;
    MPI_File m;
};

static int x_open(struct xfile *f, const char *p, int amode)
{
    if (f->rio)
        return rio_file_open(MPI_COMM_WORLD, p, amode, MPI_INFO_NULL, &f->r);
    return MPI_File_open(MPI_COMM_WORLD, p, amode, MPI_INFO_NULL, &f->m);
}
static int x_close(struct xfile *f)
{
    return f->rio ? rio_file_close(&f->r) : MPI_File_close(&f->m);
}
static int x_set_view(struct xfile *f, const struct rv_case *c)
{
    return f->rio ? rio_file_set_view(f->r, c->disp, c->etype, c->filetype, "native", MPI_INFO_NULL)
                  : MPI_File_set_view(f->m, c->disp, c->etype, c->filetype, "native",
                                      MPI_INFO_NULL);
}
static int x_sync(struct xfile *f)
{
    return f->rio ? rio_file_sync(f->r) : MPI_File_sync(f->m);
}

/* Write the case's data with the case's access family. */
static int x_write(struct xfile *f, const struct rv_case *c, const unsigned char *mem)
{
    MPI_Status st;
    int rc;
    switch (c->access) {
    case RV_WRITE_ALL:
        return f->rio ? rio_file_write_all(f->r, mem + c->bufoff, c->memcount, c->memtype, &st)
                      : MPI_File_write_all(f->m, mem + c->bufoff, c->memcount, c->memtype, &st);
    case RV_WRITE_IND:
        return f->rio ? rio_file_write(f->r, mem + c->bufoff, c->memcount, c->memtype, &st)
                      : MPI_File_write(f->m, mem + c->bufoff, c->memcount, c->memtype, &st);
    case RV_WRITE_AT_SPLIT: {
        int first = c->split_ints, rest = c->memcount - c->split_ints;
        MPI_Offset off2 = (MPI_Offset)first * 4 / c->esize;
        rc = f->rio ? rio_file_write_at(f->r, 0, mem, first, MPI_INT, &st)
                    : MPI_File_write_at(f->m, 0, mem, first, MPI_INT, &st);
        int rc2 = f->rio ? rio_file_write_at_all(f->r, off2, mem + first * 4, rest, MPI_INT, &st)
                         : MPI_File_write_at_all(f->m, off2, mem + first * 4, rest, MPI_INT, &st);
        return rc != MPI_SUCCESS ? rc : rc2;
    }
    }
    return MPI_ERR_OTHER;
}

static int x_read_all(struct xfile *f, const struct rv_case *c, unsigned char *mem)
{
    MPI_Status st;
    return f->rio ? rio_file_read_at_all(f->r, 0, mem + c->bufoff, c->memcount, c->memtype, &st)
                  : MPI_File_read_at_all(f->m, 0, mem + c->bufoff, c->memcount, c->memtype, &st);
}

static void write_file(int rio)
{
    struct xfile f = {rio, RIO_FILE_NULL, MPI_FILE_NULL};
    const char *p = rio ? rio_path : mpi_path, *who = rio ? "resonio" : "MPI library";
    if (rt_rank == 0)
        unlink(p);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!RT_OK(x_open(&f, p, MPI_MODE_RDWR | MPI_MODE_CREATE))) {
        CHECK(0, "%s could not open %s", who, p);
        return;
    }
    if (!rio)
        MPI_File_set_errhandler(f.m, MPI_ERRORS_RETURN);
    for (int k = 0; k < RV_NCASES; k++) {
        struct rv_case c;
        rv_build(k, rt_rank, rt_nprocs, (MPI_Offset)k * RV_REGION, 1, &c);
        unsigned char *stream = rv_stream(&c, rt_rank), *mem = rv_membuf(&c, stream);
        if (RT_OK(x_set_view(&f, &c))) {
            int rc = x_write(&f, &c, mem);
            if (!RT_OK(rc))
                CHECK(0, "%s: write of case %s failed", who, c.name);
        }
        free(stream);
        free(mem);
        rv_free(&c);
    }
    RT_OK(x_sync(&f));
    RT_OK(x_close(&f));
}

static void read_other(int rio)
{
    struct xfile f = {rio, RIO_FILE_NULL, MPI_FILE_NULL};
    const char *p = rio ? mpi_path : rio_path;
    const char *who = rio ? "resonio reading the MPI library's file"
                          : "the MPI library reading resonio's file";
    if (!RT_OK(x_open(&f, p, MPI_MODE_RDONLY)))
        return;
    if (!rio)
        MPI_File_set_errhandler(f.m, MPI_ERRORS_RETURN);
    for (int k = 0; k < RV_NCASES; k++) {
        struct rv_case c;
        rv_build(k, rt_rank, rt_nprocs, (MPI_Offset)k * RV_REGION, 1, &c);
        unsigned char *stream = rv_stream(&c, rt_rank), *mem = rv_membuf(&c, NULL);
        if (RT_OK(x_set_view(&f, &c)) && RT_OK(x_read_all(&f, &c, mem)))
            RV_CHECK_MEM(&c, mem, stream, "%s", who);
        free(stream);
        free(mem);
        rv_free(&c);
    }
    RT_OK(x_close(&f));
}

static void compare(void)
{
    if (rt_rank != 0)
        return;
    long long need = (long long)RV_NCASES * RV_REGION, lr = 0, lm = 0;
    unsigned char *img = calloc((size_t)need, 1), *mask = calloc((size_t)need, 1);
    for (int k = 0; k < RV_NCASES; k++)
        rv_image(k, rt_nprocs, (MPI_Offset)k * RV_REGION, img, mask, need);
    unsigned char *fr = RT_SLURP(rio_path, &lr), *fm = RT_SLURP(mpi_path, &lm);
    if (fr && fm) {
        long long last = 0;
        for (long long o = 0; o < need; o++)
            if (mask[o])
                last = o + 1;
        CHECK(lr >= last, "resonio's file is %lld bytes, the last byte written is at %lld", lr,
              last - 1);
        CHECK(lm >= last, "the MPI library's file is %lld bytes, the last byte written is at %lld",
              lm, last - 1);
        for (int k = 0; k < RV_NCASES; k++) {
            long long lo = (long long)k * RV_REGION;
            long long hi = rt_minll(lo + RV_REGION, rt_minll(lr, lm));
            if (hi <= lo)
                continue;
            size_t n = (size_t)(hi - lo);
            CHECK_BYTES(fr + lo, fm + lo, mask + lo, n,
                        "case %s: resonio's file differs from the MPI library's", rv_name(k));
            CHECK_BYTES(fr + lo, img + lo, mask + lo, n, "case %s: resonio's file vs the model",
                        rv_name(k));
            CHECK_BYTES(fm + lo, img + lo, mask + lo, n,
                        "case %s: the MPI library's file vs the model", rv_name(k));
        }
    }
    free(fr);
    free(fm);
    free(img);
    free(mask);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_path(rio_path, sizeof rio_path, "rio");
    rt_path(mpi_path, sizeof mpi_path, "mpi");
    write_file(1);
    write_file(0);
    MPI_Barrier(MPI_COMM_WORLD);
    compare();
    read_other(1);
    read_other(0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        unlink(rio_path);
        unlink(mpi_path);
    }
    return rt_finish();
}
