/*
 * t_simgrid.c — resonio's collective calls on the simgrid: driver, run as
 * simulated ranks (resonio-smpirun).
 *
 * The demo's pattern: each rank owns every nprocs-th segment of the file
 * (a vector filetype, which SMPI builds correctly), written with one
 * collective call under the strategy -strategy names, read back with
 * one, compared byte for byte; rank 0 then reads the whole file with
 * independent calls and checks every byte against the pattern.  The
 * targets' counters must show the run: every target served requests,
 * took simulated time and holds its share of the bytes, and each phase
 * took simulated time.  The error count is reduced; rank 0 prints "No
 * Errors" when it is 0.
 *
 * With -data checksum the targets keep only checksums: the same data is
 * written twice, under -strategy and under independent, and the targets'
 * checksums must add up to the same (not zero) with every byte counted;
 * reads return zeros.
 *
 *   t_simgrid [-fname NAME] [-strategy S] [-seg BYTES] [-count N] [-unit BYTES]
 *             [-data keep|checksum] [-hang 1]
 *
 * -hang 1 makes the ranks loop in barriers for ever, for the test of
 * resonio-smpirun's timeout.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resonio.h"
#include "store/simgrid.h"

#define MAX_TARGETS 64

static int errs, rank;

#define CHECK(cond, ...)                                                                 \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            errs++;                                                                      \
            fprintf(stderr, "FAIL rank %d line %d: ", rank, __LINE__);                   \
            fprintf(stderr, __VA_ARGS__);                                                \
            fputc('\n', stderr);                                                         \
        }                                                                                \
    } while (0)

/* The byte at file offset off. */
static unsigned char pattern(long long off)
{
    return (unsigned char)(off * 7 + off / 4093 + 1);
}

/* Write buf (mine bytes, view ft from rank * seg) to name under strategy;
 * rank 0 returns the targets' counters of the write in st (their number). */
static int write_once(const char *name, MPI_Info info, MPI_Datatype ft, const char *strategy,
                      long long seg, const unsigned char *buf, long long mine,
                      struct rio_simgrid_stats *st)
{
    rio_file *fh = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        rio__simgrid_stats_reset();
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info_set(info, "resonio_strategy", strategy);
    int rc = rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    CHECK(rc == MPI_SUCCESS, "open of %s failed: %d", name, rc);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    rc = rio_file_set_view(fh, (MPI_Offset)rank * seg, MPI_BYTE, ft, "native", info);
    CHECK(rc == MPI_SUCCESS, "set_view: %d", rc);
    rc = rio_file_write_all(fh, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "write_all under %s: %d", strategy, rc);
    rio_file_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    return rank == 0 ? rio__simgrid_stats(st, MAX_TARGETS) : 0;
}

/* -data checksum: the same data under two strategies sums the same over
 * the targets; reads return zeros. */
static void checksums(const char *fname, MPI_Info info, MPI_Datatype ft, const char *strategy,
                      long long seg, const unsigned char *buf, unsigned char *back,
                      long long mine, long long total)
{
    static struct rio_simgrid_stats st[2][MAX_TARGETS];
    const char *strategies[2] = {strategy, "independent"};
    char name[2][256];
    int n[2];
    MPI_Info_set(info, "resonio_simgrid_data", "checksum");
    for (int k = 0; k < 2; k++) {
        snprintf(name[k], sizeof name[k], "%s.%d", fname, k);
        n[k] = write_once(name[k], info, ft, strategies[k], seg, buf, mine, st[k]);
    }
    if (rank == 0) {
        /* the two files' first targets differ (it rotates with the file), so
         * the sums are compared over all targets */
        unsigned long long written[2] = {0, 0}, sum[2] = {0, 0};
        CHECK(n[0] >= 2 && n[0] == n[1], "%d and %d simulated targets", n[0], n[1]);
        for (int i = 0; i < n[0] && i < MAX_TARGETS; i++)
            for (int k = 0; k < 2; k++) {
                sum[k] += st[k][i].checksum;
                written[k] += st[k][i].bytes_written;
            }
        CHECK(sum[0] == sum[1] && sum[0], "checksums %016llx under %s, %016llx under independent",
              sum[0], strategy, sum[1]);
        CHECK(written[0] == (unsigned long long)total && written[1] == (unsigned long long)total,
              "targets counted %llu and %llu bytes written, want %lld", written[0], written[1],
              total);
        printf("t_simgrid: the checksums of %d targets agree under %s and independent\n", n[0],
               strategy);
    }
    rio_file *fh = NULL;
    int rc = rio_file_open(MPI_COMM_WORLD, name[0], MPI_MODE_RDONLY, info, &fh);
    CHECK(rc == MPI_SUCCESS, "open of %s for reading: %d", name[0], rc);
    if (rc != MPI_SUCCESS)
        return;
    rio_file_set_view(fh, (MPI_Offset)rank * seg, MPI_BYTE, ft, "native", info);
    memset(back, 0xff, (size_t)mine);
    rc = rio_file_read_all(fh, back, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "read_all: %d", rc);
    long long nonzero = 0;
    for (long long i = 0; i < mine; i++)
        nonzero += back[i] != 0;
    CHECK(!nonzero, "%lld bytes read from a checksum file are not zero", nonzero);
    rio_file_close(&fh);
}

int main(int argc, char **argv)
{
    const char *fname = "simgrid:t_simgrid", *strategy = "two_phase";
    long long seg = 4096, count = 16, unit = 65536;
    const char *data = "keep";
    int nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "-fname"))
            fname = argv[i + 1];
        else if (!strcmp(argv[i], "-strategy"))
            strategy = argv[i + 1];
        else if (!strcmp(argv[i], "-seg"))
            seg = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "-count"))
            count = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "-unit"))
            unit = atoll(argv[i + 1]);
        else if (!strcmp(argv[i], "-data"))
            data = argv[i + 1];
        else if (!strcmp(argv[i], "-hang") && atoi(argv[i + 1]))
            for (;;)
                MPI_Barrier(MPI_COMM_WORLD);
    }
    long long mine = seg * count, total = mine * nprocs;
    unsigned char *buf = malloc((size_t)mine), *back = malloc((size_t)mine);
    for (long long k = 0; k < count; k++)
        for (long long b = 0; b < seg; b++)
            buf[k * seg + b] = pattern((k * nprocs + rank) * seg + b);

    MPI_Info info;
    char text[32];
    MPI_Info_create(&info);
    MPI_Info_set(info, "resonio_strategy", strategy);
    snprintf(text, sizeof text, "%lld", unit);
    MPI_Info_set(info, "striping_unit", text);
    MPI_Datatype ft;
    MPI_Type_vector((int)count, (int)seg, (int)(seg * nprocs), MPI_BYTE, &ft);
    MPI_Type_commit(&ft);
    if (!strcmp(data, "checksum")) {
        checksums(fname, info, ft, strategy, seg, buf, back, mine, total);
        goto out;
    }

    rio_file *fh = NULL;
    int rc = rio_file_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    CHECK(rc == MPI_SUCCESS, "open of %s failed: %d", fname, rc);
    if (rc != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    rc = rio_file_set_view(fh, (MPI_Offset)rank * seg, MPI_BYTE, ft, "native", info);
    CHECK(rc == MPI_SUCCESS, "set_view: %d", rc);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    rc = rio_file_write_all(fh, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "write_all: %d", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    rc = rio_file_seek(fh, 0, MPI_SEEK_SET);
    CHECK(rc == MPI_SUCCESS, "seek: %d", rc);
    memset(back, 0, (size_t)mine);
    rc = rio_file_read_all(fh, back, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    CHECK(rc == MPI_SUCCESS, "read_all: %d", rc);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    long long bad = 0;
    for (long long i = 0; i < mine; i++)
        bad += back[i] != buf[i];
    CHECK(!bad, "%lld of %lld bytes read back by read_all differ", bad, mine);

    MPI_Offset size = 0;
    rio_file_get_size(fh, &size);
    CHECK(size == total, "file size %lld, want %lld", (long long)size, total);

    if (rank == 0) { /* every byte of the file, independently */
        rc = rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
        CHECK(rc == MPI_SUCCESS, "set_view (whole file): %d", rc);
    } else {
        rc = rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    }
    if (rank == 0) {
        unsigned char *all = malloc((size_t)total);
        rc = rio_file_read_at(fh, 0, all, (int)total, MPI_BYTE, MPI_STATUS_IGNORE);
        CHECK(rc == MPI_SUCCESS, "read_at of the whole file: %d", rc);
        bad = 0;
        for (long long i = 0; i < total; i++)
            bad += all[i] != pattern(i);
        CHECK(!bad, "%lld of %lld bytes of the file differ from the pattern", bad, total);
        free(all);
    }
    rio_file_close(&fh);

    if (rank == 0) {
        struct rio_simgrid_stats st[MAX_TARGETS];
        int n = rio__simgrid_stats(st, MAX_TARGETS);
        unsigned long long written = 0;
        CHECK(n >= 2, "%d simulated targets, want the platform's (at least 2)", n);
        CHECK(t1 - t0 > 0 && t2 - t1 > 0, "simulated times write %g s, read %g s", t1 - t0,
              t2 - t1);
        printf("t_simgrid: %d ranks, %s, %lld bytes, %d targets; simulated write %.6f s "
               "(%.1f MB/s), read %.6f s (%.1f MB/s)\n",
               nprocs, strategy, total, n, t1 - t0, total / (t1 - t0) / 1e6, t2 - t1,
               total / (t2 - t1) / 1e6);
        for (int i = 0; i < n && i < MAX_TARGETS; i++) {
            const struct rio_simgrid_stats *s = &st[i];
            double seq = s->judged ? (double)s->sequential / (double)s->judged : 1.0;
            printf("  target %d (%s, %s): requests %llu, accesses %llu, sequential %.3f, "
                   "busy %.6f s, written %llu, read %llu\n",
                   i, s->host, s->model, (unsigned long long)s->requests,
                   (unsigned long long)s->accesses, seq, s->busy_s,
                   (unsigned long long)s->bytes_written, (unsigned long long)s->bytes_read);
            CHECK(s->requests > 0 && s->busy_s > 0, "target %d served %llu requests, busy %g s",
                  i, (unsigned long long)s->requests, s->busy_s);
            written += s->bytes_written;
        }
        CHECK(written == (unsigned long long)total, "targets hold %llu bytes written, want %lld",
              written, total);
    }
out:;
    int all_errs = 0;
    MPI_Allreduce(&errs, &all_errs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && !all_errs)
        printf(" No Errors\n");
    MPI_Type_free(&ft);
    MPI_Info_free(&info);
    free(buf);
    free(back);
    MPI_Finalize();
    return all_errs ? 1 : 0;
}
