/*
 * t_stream.c — one fixed stream of independent writes from rank 0, for
 * comparing the simgrid: driver's targets with resonio-emud's on the
 * same requests (check_model.cmake runs it in both builds).
 *
 * The stream: COUNT writes of 4 KiB to 256 KiB, most continuing where the
 * last ended, the others jumping within 64 MiB, from a fixed
 * pseudo-random sequence, each its own rio_file_write_at.  Writes only:
 * a read's cost depends on how long the disk was idle before it
 * (read-ahead), and idle time is real time on resonio-emud but simulated
 * time here.  In the SMPI build rank 0 then prints the targets' counters
 * in the columns `resonio-emud stats` prints, with a header line.
 *
 *   t_stream -fname NAME [-count N] [-targets T] [-unit BYTES]
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resonio.h"
#ifdef RIO_SMPI
#include "store/simgrid.h"
#endif

#define MAX_LEN (256 << 10)

int main(int argc, char **argv)
{
    const char *fname = NULL;
    int count = 200, targets = 4, rank, errs = 0;
    long long unit = 65536;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-fname"))
            fname = argv[i + 1];
        else if (!strcmp(argv[i], "-count"))
            count = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-targets"))
            targets = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "-unit"))
            unit = atoll(argv[i + 1]);
    }
    if (!fname) {
        if (rank == 0)
            fprintf(stderr, "usage: t_stream -fname NAME [-count N] [-targets T] [-unit B]\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Info info;
    char v[32];
    MPI_Info_create(&info);
    snprintf(v, sizeof v, "%lld", unit);
    MPI_Info_set(info, "striping_unit", v);
    snprintf(v, sizeof v, "%d", targets);
    MPI_Info_set(info, "striping_factor", v);
    rio_file *fh = NULL;
    if (rio_file_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh) !=
        MPI_SUCCESS) {
        fprintf(stderr, "FAIL: cannot open %s\n", fname);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (rank == 0) {
        unsigned char *buf = malloc(MAX_LEN);
        unsigned long long x = 12345;
        long long at = 0;
        for (int i = 0; i < MAX_LEN; i++)
            buf[i] = (unsigned char)(i * 13 + 7);
        for (int i = 0; i < count; i++) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned r = (unsigned)(x >> 33);
            int len = (int)(1 + r % 64) * 4096;
            if (r % 10 < 3)
                at = (long long)(r / 10 % 16384) * 4096; /* a jump within 64 MiB */
            if (rio_file_write_at(fh, at, buf, len, MPI_BYTE, MPI_STATUS_IGNORE) !=
                MPI_SUCCESS) {
                fprintf(stderr, "FAIL: write %d of %d bytes at %lld\n", i, len, at);
                errs++;
            }
            at += len;
        }
        free(buf);
    }
    rio_file_close(&fh);
#ifdef RIO_SMPI
    if (rank == 0) {
        struct rio_simgrid_stats st[64];
        int n = rio__simgrid_stats(st, 64);
        printf("target,requests,accesses,sequential_fraction,seek_bytes,busy_s,revocations,"
               "bytes_read,bytes_written\n");
        for (int i = 0; i < n && i < 64; i++)
            printf("%d,%llu,%llu,%.6f,%llu,%.6f,%llu,%llu,%llu\n", i,
                   (unsigned long long)st[i].requests, (unsigned long long)st[i].accesses,
                   st[i].judged ? (double)st[i].sequential / (double)st[i].judged : 1.0,
                   (unsigned long long)st[i].seek_bytes, st[i].busy_s,
                   (unsigned long long)st[i].revocations, (unsigned long long)st[i].bytes_read,
                   (unsigned long long)st[i].bytes_written);
    }
#endif
    MPI_Info_free(&info);
    MPI_Finalize();
    if (rank == 0 && !errs)
        printf("t_stream: %d writes done\n", count);
    return errs ? 1 : 0;
}
