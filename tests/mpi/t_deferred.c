/*
 * t_deferred.c — deferred open: with romio_no_indep_rw=true only the ranks
 * that make storage requests open the file.
 *
 * Each rank writes an interleaved block pattern collectively through
 * two_phase with one aggregator (cb_nodes=1, rank 0), then reads it back
 * collectively.  After open, after the write and after the read, every
 * rank lists the descriptors in /proc/self/fd that point to the file:
 * rank 0 must hold one, every other rank none.  The same program without
 * the hint must find the file open on every rank, which shows the check
 * can see an open descriptor.  The file's bytes are verified with POSIX
 * reads.
 */
#include "resonio.h"
#include "rtest.h"

#include <dirent.h>
#include <limits.h>

#define BLK 4096
#define NBLK 8

/* Descriptors of this process that point to path. */
static int fds_on(const char *path)
{
    char want[PATH_MAX], link[PATH_MAX], got[PATH_MAX];
    int n = 0;
    if (!realpath(path, want))
        return -1;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(link, got, sizeof got - 1);
        if (k <= 0)
            continue;
        got[k] = '\0';
        n += !strcmp(got, want);
    }
    closedir(d);
    return n;
}

static void run(int deferred)
{
    char path[4096];
    rt_path(path, sizeof path, deferred ? "deferred" : "plain");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = rt_info("romio_no_indep_rw", deferred ? "true" : "false", "cb_nodes", "1",
                            "resonio_strategy", "two_phase", (char *)NULL);
    rio_file *fh;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh))) {
        MPI_Info_free(&info);
        return;
    }
    MPI_Info_free(&info);
    int expect = deferred ? (rt_rank == 0) : 1;
    CHECK(fds_on(path) == expect, "%s: after open, %d descriptors on the file, expected %d",
          deferred ? "deferred" : "plain", fds_on(path), expect);

    MPI_Datatype vec, ft;
    MPI_Type_vector(NBLK, BLK, BLK * rt_nprocs, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)BLK * NBLK * rt_nprocs, &ft);
    MPI_Type_commit(&ft);
    RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * BLK, MPI_BYTE, ft, "native",
                            MPI_INFO_NULL));
    unsigned char *buf = malloc(BLK * NBLK), *back = malloc(BLK * NBLK);
    for (int b = 0; b < NBLK; b++)
        rt_fill(buf + b * BLK, BLK, rt_rank, ((long long)b * rt_nprocs + rt_rank) * BLK);
    RT_OK(rio_file_write_at_all(fh, 0, buf, BLK * NBLK, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(fds_on(path) == expect, "after the collective write, %d descriptors, expected %d",
          fds_on(path), expect);
    memset(back, 0, BLK * NBLK);
    RT_OK(rio_file_read_at_all(fh, 0, back, BLK * NBLK, MPI_BYTE, MPI_STATUS_IGNORE));
    CHECK(!memcmp(buf, back, BLK * NBLK), "read back differs from what was written");
    CHECK(fds_on(path) == expect, "after the collective read, %d descriptors, expected %d",
          fds_on(path), expect);
    RT_OK(rio_file_close(&fh));
    CHECK(fds_on(path) == 0, "after close, %d descriptors still on the file", fds_on(path));
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);

    /* every rank checks its own blocks in the file */
    for (int b = 0; b < NBLK; b++) {
        long long off = ((long long)b * rt_nprocs + rt_rank) * BLK;
        CHECK(rt_pread(path, back, BLK, off) == BLK, "short POSIX read at %lld", off);
        CHECK_PAT(back, BLK, rt_rank, off, "file block %d of rank %d", b, rt_rank);
    }
    free(buf);
    free(back);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(path);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    run(0);
    run(1);
    return rt_finish();
}
