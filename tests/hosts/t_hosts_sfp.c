/*
 * t_hosts_sfp.c — a file opened across hosts whose MPI library cannot
 * make the shared file pointer's one-sided window (Open MPI over TCP
 * picks its UCX component, which fails there).
 *
 *   t_hosts_sfp -fname F -expect none|window
 *
 * The open succeeds either way; every rank writes its block with
 * write_at_all and reads it back; then write_shared: with -expect window
 * it succeeds and lands whole; with -expect none it fails on every rank
 * with MPI_ERR_UNSUPPORTED_OPERATION naming MPI_File_write_shared, the
 * file and the shared file pointer.  The file is checked through POSIX.
 */
#include "resonio.h"
#include "../mpi/rtest.h"

#define BLOCK 4096

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    const char *expect = rt_arg("-expect");
    int want_window = expect && !strcmp(expect, "window");
    char path[4200];
    rt_path(path, sizeof path, "sfp");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = RIO_FILE_NULL;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh)))
        return rt_finish();
    unsigned char w[BLOCK], r[BLOCK];
    long long off = (long long)rt_rank * BLOCK;
    rt_fill(w, BLOCK, rt_rank, off);
    MPI_Status st;
    RT_OK(rio_file_write_at_all(fh, off, w, BLOCK, MPI_BYTE, &st));
    RT_OK(rio_file_read_at_all(fh, off, r, BLOCK, MPI_BYTE, &st));
    CHECK_PAT(r, BLOCK, rt_rank, off, "read back");

    long long base = (long long)rt_nprocs * BLOCK;
    if (want_window) /* past the blocks */
        RT_OK(rio_file_seek_shared(fh, base, MPI_SEEK_SET));
    int rc = rio_file_write_shared(fh, w, 16, MPI_BYTE, &st);
    if (want_window)
        RT_OK(rc);
    else
        RT_ERR(rc, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_File_write_shared", "sfp");
    if (!want_window && rc != MPI_SUCCESS) {
        char text[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(rc, text, &len);
        CHECK(strstr(text, "shared file pointer") != NULL,
              "the error does not name the shared file pointer: %s", text);
    }
    RT_OK(rio_file_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *img = RT_SLURP(path, &len);
        long long want = base + (want_window ? 16LL * rt_nprocs : 0);
        CHECK(len == want, "the file is %lld bytes, expected %lld", len, want);
        for (int q = 0; img && q < rt_nprocs && len >= base; q++)
            CHECK_PAT(img + (long long)q * BLOCK, BLOCK, q, (long long)q * BLOCK,
                      "rank %d's block in the file", q);
        free(img);
        unlink(path);
    }
    return rt_finish();
}
