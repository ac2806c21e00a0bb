/*
 * indep_bench.c — resonio-micro-indep: how the independent methods compare
 * on one machine, to check the chooser's thresholds (src/indep/indep.c)
 * and that datatype I/O is never slower than list I/O.
 *
 * For region sizes 8 B .. 64 KiB and densities 0.1 .. 0.9 (a vector
 * filetype: region, then a hole making the density) it reads and writes
 * DATA bytes of an existing file through each method forced by hint, and
 * prints microseconds with the chooser's pick marked '*': the best of 3
 * runs, or of as many as move 16 MiB when requests are small (a request
 * of a few KiB takes microseconds, within the clock's and the machine's
 * noise).
 *
 * Usage: resonio-micro-indep <dir> [data-bytes]
 */
#include "file/file_int.h" /* the hints */
#include "indep/indep.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static double time_one(struct rio_store *st, struct rio_indep_req *req, int runs)
{
    double best = 1e30;
    for (int r = 0; r < runs; r++) {
        MPI_Offset done;
        double t0 = rio__now();
        if (rio__indep_rw(req, &done) != 0 || done != req->nbytes) {
            fprintf(stderr, "request failed\n");
            exit(1);
        }
        double t = rio__now() - t0;
        if (t < best)
            best = t;
    }
    return best;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr, "usage: %s <dir> [data-bytes]\n", argv[0]);
        return 2;
    }
    long long data = argc > 2 ? atoll(argv[2]) : (2 << 20);
    static const int sizes[] = {8, 64, 512, 4096, 16384, 65536};
    static const double dens[] = {0.1, 0.25, 0.5, 0.9};
    char path[4096];
    snprintf(path, sizeof path, "%s/resonio-micro-indep.%d", argv[1], (int)getpid());
    char *buf = malloc((size_t)data);
    memset(buf, 'm', (size_t)data);
    struct rio_dtype *bytes;
    rio__dtype_get(MPI_BYTE, &bytes);

    int runs = (int)RIO_MAX(3, (16LL << 20) / RIO_MAX(data, 1));
    printf("%lld data bytes per request, us, best of %d, '*' = chooser's pick\n", data, runs);
    printf("%6s %5s %-5s %10s %10s %10s %10s\n", "region", "dens", "op", "posix", "sieve", "list",
           "dtype");
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        for (size_t j = 0; j < sizeof dens / sizeof dens[0]; j++) {
            int blk = sizes[i], stride = (int)(blk / dens[j]);
            long long n = data / blk;
            MPI_Datatype t;
            struct rio_dtype *ft;
            MPI_Type_vector((int)n, blk, stride, MPI_BYTE, &t);
            MPI_Type_commit(&t);
            rio__dtype_get(t, &ft);
            MPI_Type_free(&t);
            /* the file exists and covers the request */
            int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
            if (fd < 0 || ftruncate(fd, (off_t)n * stride + 4096) != 0) {
                perror(path);
                return 1;
            }
            for (long long off = 0; off < n * stride; off += data)
                if (pwrite(fd, buf, (size_t)RIO_MIN(data, n * stride - off), off) < 0)
                    return 1;
            close(fd);
            for (int write = 0; write < 2; write++) {
                struct rio_hints h;
                struct rio_store st;
                memset(&st, 0, sizeof st);
                if (rio__hints_defaults(&h))
                    return 1;
                if (rio__store_open(&st, path, O_RDWR, 0, &h) != 0)
                    return 1;
                struct rio_indep_req req = {.st = &st, .write = write, .buf = buf,
                                            .memtype = bytes, .memcount = data, .filetype = ft,
                                            .disp = 0, .file_start = 0, .nbytes = n * blk};
                enum rio_indep_method pick = rio__indep_choose(&req);
                printf("%6d %5.2f %-5s", blk, dens[j], write ? "write" : "read");
                for (int m = RIO_INDEP_POSIX; m <= RIO_INDEP_DTYPE; m++) {
                    rio__hints_set(&h, "resonio_indep_method",
                                   rio__indep_method_name((enum rio_indep_method)m));
                    double t = time_one(&st, &req, runs);
                    printf(" %9.1f%c", 1e6 * t, m == (int)pick ? '*' : ' ');
                }
                printf("\n");
                rio__store_close(&st);
                rio__hints_free(&h);
            }
            rio__dtype_put(ft);
        }
    }
    unlink(path);
    rio__dtype_put(bytes);
    free(buf);
    MPI_Finalize();
    return 0;
}
