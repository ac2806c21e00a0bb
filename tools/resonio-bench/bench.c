/*
 * resonio-bench — runs an I/O workload through the MPI library's own
 * MPI-IO ("native") and through resonio in one process, alternating
 * rounds (native, resonio, native, ...), verifying every byte both through
 * the reads and with plain POSIX reads of the file, and printing the
 * throughput of each.
 *
 * Both implementations are reached through one small table of functions,
 * so the workload code is written once: `native` calls MPI_File_* (this
 * program links libresonio, not the drop-in library, so those are the MPI
 * library's), `resonio` calls rio_file_*.
 *
 * Workloads:
 *   demo   resonant-io.txt §1.2: N ranks, each call covers 4N segments of
 *          size S and rank i takes segments k*N+i, k = 0..3.  A vector
 *          filetype describes each rank's segments; calls march through
 *          the file.
 *
 * Usage: resonio-bench [-w demo] [-seg BYTES] [-calls N] [-rounds N]
 *                      [-dir DIR] [-impl native|resonio|both]
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resonio.h"

/* ---- the two implementations behind one table --------------------------- */

struct impl {
    const char *name;
    int (*open)(MPI_Comm, const char *, int, MPI_Info, void **);
    int (*close)(void **);
    int (*set_view)(void *, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info);
    int (*write_at_all)(void *, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
    int (*read_at_all)(void *, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
};

static int n_open(MPI_Comm c, const char *f, int a, MPI_Info i, void **h)
{
    MPI_File fh;
    int rc = MPI_File_open(c, f, a, i, &fh);
    *h = fh;
    return rc;
}
static int n_close(void **h)
{
    MPI_File fh = *h;
    int rc = MPI_File_close(&fh);
    *h = NULL;
    return rc;
}
static int n_set_view(void *h, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *r,
                      MPI_Info i)
{
    return MPI_File_set_view((MPI_File)h, d, e, f, r, i);
}
static int n_write_at_all(void *h, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                          MPI_Status *s)
{
    return MPI_File_write_at_all((MPI_File)h, o, b, c, t, s);
}
static int n_read_at_all(void *h, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return MPI_File_read_at_all((MPI_File)h, o, b, c, t, s);
}

static int r_open(MPI_Comm c, const char *f, int a, MPI_Info i, void **h)
{
    rio_file *fh;
    int rc = rio_file_open(c, f, a, i, &fh);
    *h = fh;
    return rc;
}
static int r_close(void **h)
{
    rio_file *fh = *h;
    int rc = rio_file_close(&fh);
    *h = NULL;
    return rc;
}
static int r_set_view(void *h, MPI_Offset d, MPI_Datatype e, MPI_Datatype f, const char *r,
                      MPI_Info i)
{
    return rio_file_set_view(h, d, e, f, r, i);
}
static int r_write_at_all(void *h, MPI_Offset o, const void *b, int c, MPI_Datatype t,
                          MPI_Status *s)
{
    return rio_file_write_at_all(h, o, b, c, t, s);
}
static int r_read_at_all(void *h, MPI_Offset o, void *b, int c, MPI_Datatype t, MPI_Status *s)
{
    return rio_file_read_at_all(h, o, b, c, t, s);
}

static const struct impl impls[] = {
    {"native", n_open, n_close, n_set_view, n_write_at_all, n_read_at_all},
    {"resonio", r_open, r_close, r_set_view, r_write_at_all, r_read_at_all},
};

/* ---- options ------------------------------------------------------------- */

struct opts {
    const char *workload;
    long long seg;
    int calls, rounds;
    const char *dir;
    int impl_mask; /* bit 0 native, bit 1 resonio */
};

static void usage(FILE *to)
{
    fprintf(to, "usage: resonio-bench [-w demo] [-seg BYTES[k|m]] [-calls N] [-rounds N]\n"
                "                     [-dir DIR] [-impl native|resonio|both]\n");
}

static int parse_size(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || v <= 0)
        return -1;
    if (*end == 'k' || *end == 'K')
        v <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        v <<= 20, end++;
    if (*end)
        return -1;
    *out = v;
    return 0;
}

static int parse(int argc, char **argv, struct opts *o)
{
    *o = (struct opts){"demo", 64 << 10, 16, 3, "/tmp", 3};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long n;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            exit(0);
        }
        if (!v) {
            fprintf(stderr, "resonio-bench: option %s needs a value\n", a);
            return -1;
        }
        i++;
        if (!strcmp(a, "-w")) {
            if (strcmp(v, "demo")) {
                fprintf(stderr, "resonio-bench: unknown workload '%s'\n", v);
                return -1;
            }
            o->workload = v;
        } else if (!strcmp(a, "-seg")) {
            if (parse_size(v, &o->seg) || o->seg > (64 << 20)) {
                fprintf(stderr, "resonio-bench: malformed segment size '%s'\n", v);
                return -1;
            }
        } else if (!strcmp(a, "-calls") || !strcmp(a, "-rounds")) {
            if (parse_size(v, &n) || n > 1000000) {
                fprintf(stderr, "resonio-bench: malformed count '%s'\n", v);
                return -1;
            }
            *(a[1] == 'c' ? &o->calls : &o->rounds) = (int)n;
        } else if (!strcmp(a, "-dir")) {
            o->dir = v;
        } else if (!strcmp(a, "-impl")) {
            o->impl_mask = !strcmp(v, "native") ? 1 : !strcmp(v, "resonio") ? 2
                           : !strcmp(v, "both")  ? 3 : 0;
            if (!o->impl_mask) {
                fprintf(stderr, "resonio-bench: unknown implementation '%s'\n", v);
                return -1;
            }
        } else {
            fprintf(stderr, "resonio-bench: unknown option '%s'\n", a);
            return -1;
        }
    }
    return 0;
}

/* ---- the demo workload ----------------------------------------------------- */

static unsigned char pat(long long fileoff, int round)
{
    return (unsigned char)((fileoff * 131 + (fileoff >> 12) * 7 + round * 29) & 0xff);
}

struct result {
    double wtime, rtime;
    long long errors;
};

/* One round of demo through implementation im.  Collective. */
static struct result demo_round(const struct impl *im, const struct opts *o, const char *path,
                                int round, unsigned char *wbuf, unsigned char *rbuf)
{
    struct result r = {0, 0, 0};
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long long S = o->seg, per_call = 4 * S;
    MPI_Datatype vec, ftype;
    MPI_Type_vector(4, (int)S, (int)(S * np), MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, 4 * S * np, &ftype);
    MPI_Type_commit(&ftype);
    MPI_Type_free(&vec);

    /* what this rank writes: file offset of each byte decides its value */
    for (int c = 0; c < o->calls; c++)
        for (int k = 0; k < 4; k++)
            for (long long b = 0; b < S; b++) {
                long long off = (long long)c * 4 * S * np + ((long long)k * np + rank) * S + b;
                wbuf[(long long)c * per_call + k * S + b] = pat(off, round);
            }

    void *fh = NULL;
    if (rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = im->open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        r.errors++;
        MPI_Type_free(&ftype);
        return r;
    }
    im->set_view(fh, rank * S, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int c = 0; c < o->calls; c++)
        if (im->write_at_all(fh, (MPI_Offset)c * per_call, wbuf + (long long)c * per_call,
                             (int)per_call, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            r.errors++;
    im->close(&fh); /* the write is done when the file is closed */
    r.wtime = MPI_Wtime() - t0;

    MPI_Barrier(MPI_COMM_WORLD);
    rc = im->open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc != MPI_SUCCESS) {
        r.errors++;
        MPI_Type_free(&ftype);
        return r;
    }
    im->set_view(fh, rank * S, MPI_BYTE, ftype, "native", MPI_INFO_NULL);
    memset(rbuf, 0, (size_t)(per_call * o->calls));
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    for (int c = 0; c < o->calls; c++)
        if (im->read_at_all(fh, (MPI_Offset)c * per_call, rbuf + (long long)c * per_call,
                            (int)per_call, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            r.errors++;
    r.rtime = MPI_Wtime() - t0;
    im->close(&fh);
    MPI_Type_free(&ftype);

    /* verify the read data, then the file itself with POSIX reads */
    for (long long i = 0; i < per_call * o->calls; i++)
        if (rbuf[i] != wbuf[i])
            r.errors++;
    int fd = open(path, O_RDONLY);
    if (fd < 0) {
        r.errors++;
    } else {
        long long total = per_call * o->calls * np, chunk = per_call * np;
        long long lo = total * rank / np / chunk * chunk, hi = total * (rank + 1) / np / chunk * chunk;
        if (rank == np - 1)
            hi = total;
        unsigned char *tmp = malloc((size_t)chunk);
        for (long long off = lo; off < hi; off += chunk) {
            if (pread(fd, tmp, (size_t)chunk, off) != chunk) {
                r.errors++;
                break;
            }
            for (long long b = 0; b < chunk; b++)
                if (tmp[b] != pat(off + b, round))
                    r.errors++;
        }
        struct stat sb;
        if (fstat(fd, &sb) || sb.st_size != total)
            r.errors++;
        free(tmp);
        close(fd);
    }
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    struct opts o;
    if (parse(argc, argv, &o)) {
        if (rank == 0)
            usage(stderr);
        MPI_Finalize();
        return 2;
    }
    struct stat sb;
    if (stat(o.dir, &sb) || !S_ISDIR(sb.st_mode) || access(o.dir, W_OK)) {
        if (rank == 0) {
            fprintf(stderr, "resonio-bench: output directory '%s' is not writable\n", o.dir);
            usage(stderr);
        }
        MPI_Finalize();
        return 2;
    }
    long long bytes_rank = 4 * o.seg * o.calls;
    unsigned char *wbuf = malloc((size_t)bytes_rank), *rbuf = malloc((size_t)bytes_rank);
    if (!wbuf || !rbuf) {
        fprintf(stderr, "resonio-bench: out of memory for %lld bytes\n", bytes_rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/resonio-bench.%d.dat", o.dir, (int)getppid());
    MPI_Bcast(path, (int)sizeof path, MPI_CHAR, 0, MPI_COMM_WORLD);

    if (rank == 0)
        printf("workload %s: %d ranks, segment %lld B, %d calls, %lld MiB per round, dir %s\n",
               o.workload, np, o.seg, o.calls, bytes_rank * np >> 20, o.dir);
    double wt[2][64], rt[2][64];
    long long errors = 0;
    int rounds = o.rounds > 64 ? 64 : o.rounds;
    for (int r = 0; r < rounds; r++)
        for (int k = 0; k < 2; k++) {
            if (!(o.impl_mask & (1 << k)))
                continue;
            struct result res = demo_round(&impls[k], &o, path, r * 2 + k, wbuf, rbuf);
            double w, rd;
            MPI_Allreduce(&res.wtime, &w, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(&res.rtime, &rd, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            long long e = 0;
            MPI_Allreduce(&res.errors, &e, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            wt[k][r] = w;
            rt[k][r] = rd;
            errors += e;
            if (rank == 0 && e)
                printf("  round %d %s: %lld bytes wrong\n", r, impls[k].name, e);
        }
    if (rank == 0) {
        double mib = (double)(bytes_rank * np) / (1 << 20), base_w = 0, base_r = 0;
        printf("%-8s %14s %14s %10s %10s  verified\n", "impl", "write MiB/s", "read MiB/s",
               "w/native", "r/native");
        for (int k = 0; k < 2; k++) {
            if (!(o.impl_mask & (1 << k)))
                continue;
            double w = mib / median(wt[k], rounds), rd = mib / median(rt[k], rounds);
            if (k == 0)
                base_w = w, base_r = rd;
            printf("%-8s %14.1f %14.1f %10.2f %10.2f  %s\n", impls[k].name, w, rd,
                   base_w > 0 ? w / base_w : 1.0, base_r > 0 ? rd / base_r : 1.0,
                   errors ? "NO" : "every byte");
        }
        unlink(path);
    }
    free(wbuf);
    free(rbuf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
