/*
 * call_bench.c — resonio-micro-call: what one small collective call costs
 * in resonio beyond its storage calls, against the MPI library's own
 * MPI-IO and against the least any implementation that agrees on errors
 * can do.
 *
 * resonio's collective calls end in the error agreement (design.md): every
 * rank waits for the slowest before any returns.  Open MPI's fcoll
 * "individual" (which OMPIO picks for small, non-interleaved calls) makes
 * the same storage calls and synchronises nothing, so on small calls the
 * agreement is a cost native does not pay.  This program measures the
 * three side by side on the matrix pattern of orthrus.txt §3.2 (each rank
 * `depth` blocks of `block` bytes per call, one row apart):
 *
 *   native   MPI_File_read_at_all / write_at_all of the MPI library
 *   resonio  rio_file_read_at_all / write_at_all (resonio_strategy, default
 *            independent: the same storage calls as native's)
 *   floor    one pread/pwrite per block, then one MPI_Allreduce of an int:
 *            the storage calls plus a bare agreement
 *
 * Every repetition writes a new file with each implementation, timed (the
 * file is that implementation's own, as in resonio-bench), and reads it
 * back, timed; the three alternate, and the reads are checked against the
 * pattern.  It prints the median microseconds per call of each, and
 * resonio's and the floor's time over native's.
 *
 * Usage: resonio-micro-call <dir> [block] [depth] [calls] [reps] [strategy]
 *        (defaults 4096 4 256 15 independent), under mpiexec.
 */
#include "resonio.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NATIVE, RESONIO, FLOOR, NIMPL };
static const char *const impl_name[NIMPL] = {"native", "resonio", "floor"};

struct shape {
    long block, depth, calls;
    int rank, np;
    MPI_Datatype ft;
    char *path;
};

/* File offset of block d of this rank's call c. */
static MPI_Offset block_at(const struct shape *s, long c, long d)
{
    return ((MPI_Offset)c * s->depth + d) * s->np * s->block + (MPI_Offset)s->rank * s->block;
}

static void pattern(unsigned char *buf, const struct shape *s, int salt)
{
    size_t n = (size_t)(s->calls * s->depth * s->block);
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(i * 131 + (size_t)s->rank * 7 + (size_t)salt);
}

/* One phase of impl: every call, from a barrier to a barrier, including
 * open and close for the two MPI-IO implementations.  Returns seconds, or
 * -1 when a call failed on some rank. */
static double phase(const struct shape *s, int impl, int write, unsigned char *buf,
                    MPI_Info info)
{
    long per = s->depth * s->block;
    int bad = 0, anybad = 0;
    if (write && s->rank == 0)
        unlink(s->path);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (impl == FLOOR) {
        int fd = open(s->path, write ? O_WRONLY | O_CREAT : O_RDONLY, 0644);
        bad = fd < 0;
        for (long c = 0; c < s->calls; c++) {
            for (long d = 0; d < s->depth && !bad; d++) {
                unsigned char *b = buf + c * per + d * s->block;
                ssize_t r = write ? pwrite(fd, b, (size_t)s->block, block_at(s, c, d))
                                  : pread(fd, b, (size_t)s->block, block_at(s, c, d));
                bad = r != s->block;
            }
            int e = bad, all = 0;
            MPI_Allreduce(&e, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        }
        if (fd >= 0)
            close(fd);
    } else {
        int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
        MPI_File mf = MPI_FILE_NULL;
        rio_file *rf = RIO_FILE_NULL;
        MPI_Offset disp = (MPI_Offset)s->rank * s->block;
        if (impl == NATIVE)
            bad = MPI_File_open(MPI_COMM_WORLD, s->path, amode, MPI_INFO_NULL, &mf) ||
                  MPI_File_set_view(mf, disp, MPI_BYTE, s->ft, "native", MPI_INFO_NULL);
        else
            bad = rio_file_open(MPI_COMM_WORLD, s->path, amode, info, &rf) ||
                  rio_file_set_view(rf, disp, MPI_BYTE, s->ft, "native", info);
        for (long c = 0; c < s->calls && !bad; c++) {
            MPI_Offset at = (MPI_Offset)c * per;
            unsigned char *b = buf + c * per;
            if (impl == NATIVE)
                bad = write ? MPI_File_write_at_all(mf, at, b, (int)per, MPI_BYTE,
                                                    MPI_STATUS_IGNORE)
                            : MPI_File_read_at_all(mf, at, b, (int)per, MPI_BYTE,
                                                   MPI_STATUS_IGNORE);
            else
                bad = write ? rio_file_write_at_all(rf, at, b, (int)per, MPI_BYTE,
                                                    MPI_STATUS_IGNORE)
                            : rio_file_read_at_all(rf, at, b, (int)per, MPI_BYTE,
                                                   MPI_STATUS_IGNORE);
        }
        if (impl == NATIVE && mf != MPI_FILE_NULL)
            bad |= MPI_File_close(&mf);
        if (impl == RESONIO && rf != RIO_FILE_NULL)
            bad |= rio_file_close(&rf);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return anybad ? -1 : t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    struct shape s;
    MPI_Comm_rank(MPI_COMM_WORLD, &s.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &s.np);
    if (argc < 2) {
        if (s.rank == 0)
            fprintf(stderr, "usage: %s <dir> [block] [depth] [calls] [reps] [strategy]\n",
                    argv[0]);
        MPI_Finalize();
        return 2;
    }
    s.block = argc > 2 ? atol(argv[2]) : 4096;
    s.depth = argc > 3 ? atol(argv[3]) : 4;
    s.calls = argc > 4 ? atol(argv[4]) : 256;
    int reps = argc > 5 ? atoi(argv[5]) : 15;
    const char *strategy = argc > 6 ? argv[6] : "independent";
    if (s.block < 1 || s.depth < 1 || s.calls < 1 || reps < 1 || reps > 1000 ||
        s.block * s.depth > (1L << 30) || s.block * s.np > (1L << 30)) {
        if (s.rank == 0)
            fprintf(stderr, "%s: bad sizes\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    size_t len = strlen(argv[1]) + 64;
    s.path = malloc(len);
    snprintf(s.path, len, "%s/resonio-micro-call.dat", argv[1]);
    MPI_Datatype vec;
    MPI_Type_vector((int)s.depth, (int)s.block, (int)(s.np * s.block), MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)(s.depth * s.np * s.block), &s.ft);
    MPI_Type_commit(&s.ft);
    MPI_Type_free(&vec);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "resonio_strategy", strategy);

    size_t n = (size_t)(s.calls * s.depth * s.block);
    unsigned char *wbuf = malloc(n), *rbuf = malloc(n);
    double *t[2][NIMPL];
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < NIMPL; i++)
            t[w][i] = calloc((size_t)reps, sizeof(double));
    long long wrong = 0;
    int failed = 0;
    for (int r = 0; r < reps && !failed; r++) {
        for (int i = 0; i < NIMPL && !failed; i++) {
            pattern(wbuf, &s, r * NIMPL + i);
            memset(rbuf, 0, n);
            t[1][i][r] = phase(&s, i, 1, wbuf, info);
            t[0][i][r] = phase(&s, i, 0, rbuf, info);
            failed = t[1][i][r] < 0 || t[0][i][r] < 0;
            if (failed && s.rank == 0)
                fprintf(stderr, "%s: %s failed in repetition %d\n", argv[0], impl_name[i], r);
            for (size_t k = 0; k < n; k++)
                wrong += rbuf[k] != wbuf[k];
        }
    }
    long long allwrong = 0;
    MPI_Allreduce(&wrong, &allwrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (s.rank == 0 && !failed) {
        printf("%d ranks, %ld calls of %ld blocks of %ld B per rank, resonio_strategy=%s, "
               "median of %d; us per call, in brackets over native's%s\n",
               s.np, s.calls, s.depth, s.block, strategy, reps,
               allwrong ? "; DATA READ WRONG" : "");
        for (int w = 1; w >= 0; w--) {
            double m[NIMPL];
            for (int i = 0; i < NIMPL; i++)
                m[i] = median(t[w][i], reps) / (double)s.calls * 1e6;
            printf("  %-5s native %7.2f   resonio %7.2f (%.2f)   floor %7.2f (%.2f)\n",
                   w ? "write" : "read", m[NATIVE], m[RESONIO], m[RESONIO] / m[NATIVE],
                   m[FLOOR], m[FLOOR] / m[NATIVE]);
        }
    }
    if (s.rank == 0)
        unlink(s.path);
    MPI_Info_free(&info);
    MPI_Type_free(&s.ft);
    free(s.path);
    free(wbuf);
    free(rbuf);
    for (int w = 0; w < 2; w++)
        for (int i = 0; i < NIMPL; i++)
            free(t[w][i]);
    MPI_Finalize();
    return failed || allwrong ? 1 : 0;
}
