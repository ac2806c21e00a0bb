/*
 * s_regions.c — memory of a collective call at scale.
 *
 * R regions in all (-regions, default 10^6), 8 bytes each, interleaved
 * over the ranks (rank i's k-th region at (k * P + i) * 8), written and
 * read back collectively with a vector filetype.  Every rank measures how
 * much its peak resident set grows during the write and the read
 * (getrusage; buffers are touched before the baseline is taken) and the
 * largest growth must stay under the engine's bound: two cb_buffer_size
 * (round buffer, one round's metadata), the rank's own regions at 128
 * bytes each, 16 KiB per rank, and 16 MiB for the MPI library's own
 * buffering.  Rank 0 prints the growth of every rank and the bound, so the
 * figures can be quoted.  Data is verified through the read and with POSIX
 * reads of the file.
 */
#include "resonio.h"
#include "../mpi/rtest.h"

#define RIO_MAX(a, b) ((a) > (b) ? (a) : (b))

#include <sys/resource.h>

static long long peak_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    long long total = rt_arg("-regions") ? atoll(rt_arg("-regions")) : 1000000;
    long long cb = 4 << 20;
    int P = rt_nprocs;
    long long R = total / P; /* this rank's regions */
    char path[4096], cbs[32];
    rt_path(path, sizeof path, "scale");
    snprintf(cbs, sizeof cbs, "%lld", cb);

    unsigned char *buf = malloc((size_t)R * 8), *back = malloc((size_t)R * 8);
    for (long long k = 0; k < R; k++)
        rt_fill(buf + k * 8, 8, rt_rank, (k * P + rt_rank) * 8);
    memset(back, 0, (size_t)R * 8);

    MPI_Datatype vec, ft;
    MPI_Type_vector((int)R, 8, 8 * P, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)R * 8 * P, &ft);
    MPI_Type_commit(&ft);
    MPI_Info info = rt_info("cb_buffer_size", cbs, (char *)NULL);
    rio_file *fh;
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * 8, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    /* a small call first, so the engine's per-file state exists */
    RT_OK(rio_file_write_at_all(fh, 0, buf, 8, MPI_BYTE, MPI_STATUS_IGNORE));

    long long base = peak_kib();
    double t0 = MPI_Wtime();
    RT_OK(rio_file_write_at_all(fh, 0, buf, (int)(R * 8), MPI_BYTE, MPI_STATUS_IGNORE));
    double tw = MPI_Wtime() - t0;
    long long grow_w = peak_kib() - base;
    t0 = MPI_Wtime();
    RT_OK(rio_file_read_at_all(fh, 0, back, (int)(R * 8), MPI_BYTE, MPI_STATUS_IGNORE));
    double tr = MPI_Wtime() - t0;
    long long grow = peak_kib() - base;
    struct rio_coll_info ci = {.size = sizeof ci};
    RT_OK(rio_coll_last(fh, &ci));
    RT_OK(rio_file_close(&fh));
    MPI_Info_free(&info);
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);

    CHECK(!memcmp(buf, back, (size_t)R * 8), "read back differs");
    for (long long k = 0; k < R; k += 997) { /* a sample of the file itself */
        unsigned char b[8];
        long long off = (k * P + rt_rank) * 8;
        CHECK(rt_pread(path, b, 8, off) == 8, "short POSIX read at %lld", off);
        CHECK_PAT(b, 8, rt_rank, off, "file region %lld", k);
    }
    long long bound_kib = (2 * cb + R * 128 + (long long)P * 16384 + (16LL << 20)) / 1024;
    CHECK(grow <= bound_kib, "peak RSS grew by %lld KiB, above the bound of %lld KiB", grow,
          bound_kib);

    long long *all = rt_rank == 0 ? malloc(sizeof(long long) * 2 * (size_t)P) : NULL;
    long long mine[2] = {grow_w, grow};
    MPI_Gather(mine, 2, MPI_LONG_LONG, all, 2, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long mx = 0;
        printf("scale: %d ranks, %lld regions of 8 B, cb_buffer_size %lld, strategy %s, "
               "%d aggregators, %d rounds\n",
               P, R * P, cb, ci.strategy, ci.naggs, ci.rounds);
        printf("scale: write %.3f s, read %.3f s; bound per rank %lld KiB\n", tw, tr, bound_kib);
        printf("scale: peak RSS growth per rank in KiB (write, write+read):");
        for (int i = 0; i < P; i++) {
            printf("%s%d:%lld/%lld", i % 8 ? " " : "\n  ", i, all[2 * i], all[2 * i + 1]);
            mx = RIO_MAX(mx, all[2 * i + 1]);
        }
        printf("\nscale: largest growth %lld KiB\n", mx);
        free(all);
        unlink(path);
    }
    free(buf);
    free(back);
    return rt_finish();
}
