/*
 * overlap.c — resonio-bench --suite overlap: how much of a nonblocking
 * call's I/O hides behind the program's computation, for resonio and for
 * the MPI library's own MPI-IO in one run.
 *
 *   resonio-bench --suite overlap [-size S] [-rounds N] [-warmup W]
 *                 [-compute cpu|sleep] [-thread multiple|single] [-kinds LIST]
 *                 [-prefix P] [-dir D] [-o O]
 *
 * The process asks for MPI_THREAD_MULTIPLE (resonio's collective calls run
 * wholly in the background only there; the MPI library's own MPI-IO gets
 * the same level), or with -thread single calls MPI_Init's level
 * (collective calls then run their exchange at issue and leave the
 * storage transfers from or into the caller's buffer to the
 * background).  Each rank owns a block of S bytes (default 256m) of one file
 * per implementation.  For each kind of call (iwrite_at, iread_at,
 * iwrite_at_all, iread_at_all, and the split collectives write_at_all_begin/
 * end and read_at_all_begin/end) and each implementation, a round is:
 *
 *   blocking  the blocking call of the same kind (write_at, ...): T_io
 *   compute   a CPU loop alone, sized to last T_io (calibrated before the
 *             rounds, and sized again in a round where alone it ran
 *             shorter than T_io; it is a fixed amount of work, so I/O that
 *             takes the CPU from it makes it last longer): T_cpu.  With
 *             -compute sleep the program sleeps that long instead (a program that
 *             waits on something else, leaving the cores to the I/O)
 *   overlap   the nonblocking call (or the begin), the same loop, the wait
 *             (or the end): T_total, split into issue, compute and wait;
 *             for resonio also start, the time from the issue until a
 *             thread of its own began the call's I/O (rio_stats
 *             time_nb_start, the slowest rank's)
 *
 * Every part starts after a barrier and counts the slowest rank.  hidden =
 * (T_io + T_cpu - T_total) / T_io: 100 % when the I/O cost the program no
 * time at all, 0 % when it was all added to the computation.  slower =
 * T_total / (T_io + T_cpu): above 1 the nonblocking call cost more than
 * the blocking one followed by the computation.  The figure of a kind is
 * the median round.  With -warmup W each kind's rounds come after W
 * blocking calls of it, untimed (for resonio's auto: the calls its
 * selector examines strategies on, which below MULTIPLE keep nothing for
 * the background); the table names the strategy resonio's collective
 * call ran in the median round (-kinds LIST runs only the kinds named:
 * iwrite_at, ..., split_write, split_read).  Every write is checked byte
 * by byte in the file (a pattern of the offset and the round, read back
 * with pread) and every read in its buffer.  The data files are removed at the end.
 *
 * Output: a table on stdout, and overlap-<mpi>-np<N>-<computation>[-single]
 * .md and .json in the output directory (default bench-results/<time>);
 * resonio-overlap (resonio-bench --suite overlap -all) runs the suite under
 * both MPI libraries, at each rank count and thread level, and puts their
 * JSON in one table with the issue's targets judged.
 */
#include "bench.h"

#include "resonio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum kind { IWRITE_AT, IREAD_AT, IWRITE_AT_ALL, IREAD_AT_ALL, SPLIT_WRITE, SPLIT_READ, NKINDS };
static const char *const kind_name[NKINDS] = {"iwrite_at",     "iread_at",
                                              "iwrite_at_all", "iread_at_all",
                                              "split write",   "split read"};
static const int kind_write[NKINDS] = {1, 0, 1, 0, 1, 0};
static const int kind_coll[NKINDS] = {0, 0, 1, 1, 1, 1};

enum { NATIVE, RESONIO, NIMPLS };
static const char *const impl_name[NIMPLS] = {"native", "resonio"};

#define MAX_ROUNDS 15

struct result {
    double io, cpu, total, issue, wait; /* the median round's, seconds */
    double start;                       /* resonio's: issue to its thread's start */
    double hidden, slower;
    double round_hidden[MAX_ROUNDS], round_wait[MAX_ROUNDS]; /* every round's */
    double round_issue[MAX_ROUNDS];
    int rounds; /* 0: the kind did not run */
    int ok;
    char strategy[32];                   /* resonio's collective call's in that round, or "" */
    char round_strategy[MAX_ROUNDS][32]; /* and in every round */
};

static int rank, nprocs;

/* ---- the computation ------------------------------------------------------ */

static volatile double sink;
static int sleeping; /* -compute sleep: the "computation" leaves the CPU free */
static const char *prefix = ""; /* -prefix: before resonio's file name (a driver's) */

/* n units of CPU work, each a few hundred floating-point operations on a
 * small array that stays in the cache; with -compute sleep, as long as
 * they take, asleep */
static double rate_cpu;
static void compute(long long n)
{
    if (sleeping && rate_cpu > 0) { /* calibrated: the CPU loop's time, asleep */
        double s = n / rate_cpu;
        struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
        while (nanosleep(&ts, &ts) && errno == EINTR)
            ;
        return;
    }
    /* a[0] stays 1 and the others tend to it: with a[0] = 0 they decayed
     * towards 0 and, after about 7*10^5 units, into subnormal numbers,
     * whose arithmetic is far slower (the same loop of 1.6*10^6 units:
     * 3.1 s then, 0.08 s now); the loop's time grew faster than n, and
     * a round's loop sized from a shorter one's rate ran 3-4 s against a
     * T_io of 0.09 s */
    double a[64];
    for (int i = 0; i < 64; i++)
        a[i] = 1.0 + i * 0.5;
    for (long long k = 0; k < n; k++)
        for (int i = 1; i < 64; i++)
            a[i] = a[i] * 0.999 + a[i - 1] * 0.001;
    sink = a[63];
}

/* units per second of this rank, alone (every rank computes at once, as
 * they will in the rounds) */
static double calibrate(void)
{
    long long n = 1000;
    double t;
    for (;;) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        compute(n);
        t = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (t > 0.2)
            break;
        n *= 4;
    }
    return n / t;
}

/* ---- the implementations -------------------------------------------------- */

struct file {
    int impl;
    MPI_File nf;
    rio_file *rf;
};

static int f_open(struct file *f, const char *path)
{
    int amode = MPI_MODE_CREATE | MPI_MODE_RDWR;
    if (f->impl == NATIVE)
        return MPI_File_open(MPI_COMM_WORLD, path, amode, MPI_INFO_NULL, &f->nf);
    char name[4400];
    if ((size_t)snprintf(name, sizeof name, "%s%.4200s", prefix, path) >= sizeof name)
        return MPI_ERR_BAD_FILE;
    return rio_file_open(MPI_COMM_WORLD, name, amode, MPI_INFO_NULL, &f->rf);
}

static int f_close(struct file *f)
{
    return f->impl == NATIVE ? MPI_File_close(&f->nf) : rio_file_close(&f->rf);
}

static int f_blocking(struct file *f, enum kind k, MPI_Offset off, void *buf, int n)
{
    MPI_Status st;
    int w = kind_write[k], c = kind_coll[k];
    if (f->impl == NATIVE)
        return w ? (c ? MPI_File_write_at_all : MPI_File_write_at)(f->nf, off, buf, n, MPI_BYTE,
                                                                   &st)
                 : (c ? MPI_File_read_at_all : MPI_File_read_at)(f->nf, off, buf, n, MPI_BYTE,
                                                                 &st);
    return w ? (c ? rio_file_write_at_all : rio_file_write_at)(f->rf, off, buf, n, MPI_BYTE, &st)
             : (c ? rio_file_read_at_all : rio_file_read_at)(f->rf, off, buf, n, MPI_BYTE, &st);
}

/* Issue the nonblocking form (or the split begin) */
static int f_issue(struct file *f, enum kind k, MPI_Offset off, void *buf, int n,
                   MPI_Request *req)
{
    *req = MPI_REQUEST_NULL;
    int nat = f->impl == NATIVE;
    switch (k) {
    case IWRITE_AT:
        return nat ? MPI_File_iwrite_at(f->nf, off, buf, n, MPI_BYTE, req)
                   : rio_file_iwrite_at(f->rf, off, buf, n, MPI_BYTE, req);
    case IREAD_AT:
        return nat ? MPI_File_iread_at(f->nf, off, buf, n, MPI_BYTE, req)
                   : rio_file_iread_at(f->rf, off, buf, n, MPI_BYTE, req);
    case IWRITE_AT_ALL:
        return nat ? MPI_File_iwrite_at_all(f->nf, off, buf, n, MPI_BYTE, req)
                   : rio_file_iwrite_at_all(f->rf, off, buf, n, MPI_BYTE, req);
    case IREAD_AT_ALL:
        return nat ? MPI_File_iread_at_all(f->nf, off, buf, n, MPI_BYTE, req)
                   : rio_file_iread_at_all(f->rf, off, buf, n, MPI_BYTE, req);
    case SPLIT_WRITE:
        return nat ? MPI_File_write_at_all_begin(f->nf, off, buf, n, MPI_BYTE)
                   : rio_file_write_at_all_begin(f->rf, off, buf, n, MPI_BYTE);
    default:
        return nat ? MPI_File_read_at_all_begin(f->nf, off, buf, n, MPI_BYTE)
                   : rio_file_read_at_all_begin(f->rf, off, buf, n, MPI_BYTE);
    }
}

/* Wait for it (or end the split); *moved gets the status's byte count */
static int f_complete(struct file *f, enum kind k, void *buf, MPI_Request *req, int *moved)
{
    MPI_Status st;
    int rc, nat = f->impl == NATIVE;
    if (k == SPLIT_WRITE)
        rc = nat ? MPI_File_write_at_all_end(f->nf, buf, &st)
                 : rio_file_write_at_all_end(f->rf, buf, &st);
    else if (k == SPLIT_READ)
        rc = nat ? MPI_File_read_at_all_end(f->nf, buf, &st)
                 : rio_file_read_at_all_end(f->rf, buf, &st);
    else
        rc = MPI_Wait(req, &st);
    *moved = -1;
    if (rc == MPI_SUCCESS)
        MPI_Get_count(&st, MPI_BYTE, moved);
    return rc;
}

/* ---- data ------------------------------------------------------------------ */

static unsigned char pat(long long off, int round)
{
    unsigned long long x = (unsigned long long)off * 0x9E3779B97F4A7C15ull + (unsigned)round;
    return (unsigned char)(x >> 56);
}

static void fill(unsigned char *b, long long n, long long off, int round)
{
    for (long long i = 0; i < n; i++)
        b[i] = pat(off + i, round);
}

/* bytes of b that differ from the pattern */
static long long differ(const unsigned char *b, long long n, long long off, int round)
{
    long long bad = 0;
    for (long long i = 0; i < n; i++)
        bad += b[i] != pat(off + i, round);
    return bad;
}

/* this rank's block in the file itself, read back with pread */
static long long differ_in_file(const char *path, unsigned char *tmp, long long n, long long off,
                                int round)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return n;
    long long got = 0;
    while (got < n) {
        ssize_t r = pread(fd, tmp + got, (size_t)(n - got), off + got);
        if (r <= 0)
            break;
        got += r;
    }
    close(fd);
    return (n - got) + differ(tmp, got, off, round);
}

/* ---- one kind ---------------------------------------------------------------- */

static double max_all(double v)
{
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return v;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* resonio's seconds from issue to a thread's start, summed over f's jobs
 * so far (rio_stats time_nb_start); 0 for native. */
static double nb_start(struct file *f)
{
    struct rio_stats st = {.size = sizeof st};
    if (f->impl != RESONIO || rio_stats_get(f->rf, &st) != MPI_SUCCESS)
        return 0;
    return st.time_nb_start;
}

/* The rounds of kind k on f, after warmup blocking calls; *res its
 * figures.  A read reads round -1's data, which the file holds from its
 * first writing until the writes (run after every read kind; a warm-up
 * write writes it again); write round r writes round 2r's data blocking
 * and 2r+1's overlapped, each checked in the file.  Returns the bytes
 * wrong and calls failed, summed over ranks.  Collective. */
static long long run_kind(struct file *f, const char *path, enum kind k, unsigned char *buf,
                          unsigned char *tmp, long long size, int rounds, int warmup,
                          double rate, struct result *res)
{
    long long off = (long long)rank * size, bad = 0;
    int n = (int)size, w = kind_write[k], fails = 0;
    double io[MAX_ROUNDS], cpu[MAX_ROUNDS], total[MAX_ROUNDS], issue[MAX_ROUNDS],
        wait[MAX_ROUNDS], start[MAX_ROUNDS], h[MAX_ROUNDS];
    char strategy[MAX_ROUNDS][32];
    if (w && warmup)
        fill(buf, size, off, -1);
    for (int r = 0; r < warmup; r++)
        fails += f_blocking(f, k, off, buf, n) != MPI_SUCCESS;
    for (int r = 0; r < rounds; r++) {
        int data = w ? 2 * r : -1;
        if (w)
            fill(buf, size, off, data);
        else
            memset(buf, 0, (size_t)size);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        fails += f_blocking(f, k, off, buf, n) != MPI_SUCCESS;
        io[r] = max_all(MPI_Wtime() - t0);
        MPI_Barrier(MPI_COMM_WORLD); /* every rank's write is in before the check */
        bad += w ? differ_in_file(path, tmp, size, off, data) : differ(buf, size, off, data);

        /* the computation lasts at least T_io (the issue's condition): a
         * loop that ran shorter than calibrated is sized again from its
         * own rate; every rank sees the same times, so every rank
         * decides alike */
        long long units = (long long)(io[r] * rate) + 1;
        for (int tries = 0;; tries++) {
            MPI_Barrier(MPI_COMM_WORLD);
            t0 = MPI_Wtime();
            compute(units);
            cpu[r] = max_all(MPI_Wtime() - t0);
            if (cpu[r] >= io[r] || tries == 4)
                break;
            units = (long long)((double)units * io[r] / cpu[r] * 1.02) + 1;
        }

        data = w ? 2 * r + 1 : -1;
        if (w)
            fill(buf, size, off, data);
        else
            memset(buf, 0, (size_t)size);
        MPI_Request req;
        int moved = -1;
        double started = nb_start(f);
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        fails += f_issue(f, k, off, buf, n, &req) != MPI_SUCCESS;
        double t1 = MPI_Wtime();
        compute(units);
        double t2 = MPI_Wtime();
        fails += f_complete(f, k, buf, &req, &moved) != MPI_SUCCESS;
        double t3 = MPI_Wtime();
        fails += moved != n;
        total[r] = max_all(t3 - t0);
        issue[r] = max_all(t1 - t0);
        wait[r] = max_all(t3 - t2);
        start[r] = max_all(nb_start(f) - started);
        h[r] = (io[r] + cpu[r] - total[r]) / io[r];
        strategy[r][0] = '\0';
        struct rio_coll_info info = {.size = sizeof info};
        if (f->impl == RESONIO && kind_coll[k] && rio_coll_last(f->rf, &info) == MPI_SUCCESS)
            snprintf(strategy[r], sizeof strategy[r], "%s", info.strategy);
        MPI_Barrier(MPI_COMM_WORLD);
        bad += w ? differ_in_file(path, tmp, size, off, data) : differ(buf, size, off, data);
    }
    /* the median round by hidden share */
    double sorted[MAX_ROUNDS];
    memcpy(sorted, h, sizeof(double) * (size_t)rounds);
    qsort(sorted, (size_t)rounds, sizeof(double), cmp_double);
    int m = 0;
    for (int r = 0; r < rounds; r++)
        if (h[r] == sorted[rounds / 2])
            m = r;
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    *res = (struct result){.io = io[m], .cpu = cpu[m], .total = total[m], .issue = issue[m],
                           .wait = wait[m], .start = start[m], .hidden = h[m],
                           .slower = total[m] / (io[m] + cpu[m]), .rounds = rounds,
                           .ok = !fails && !bad};
    memcpy(res->round_hidden, h, sizeof(double) * (size_t)rounds);
    memcpy(res->round_wait, wait, sizeof(double) * (size_t)rounds);
    memcpy(res->round_issue, issue, sizeof(double) * (size_t)rounds);
    memcpy(res->round_strategy, strategy, sizeof strategy[0] * (size_t)rounds);
    snprintf(res->strategy, sizeof res->strategy, "%s", strategy[m]);
    return bad + fails;
}

/* ---- the suite ---------------------------------------------------------------- */

/* n numbers of v, comma-separated, each printed with fmt ("%s%.4f"). */
static void json_numbers(FILE *f, const double *v, int n, const char *fmt)
{
    for (int j = 0; j < n; j++)
        fprintf(f, fmt, j ? ", " : "", v[j]);
}

/* The run's figures for resonio-overlap, which puts every MPI's, rank
 * count's and thread level's runs in one table: the run's settings and,
 * per kind and implementation, the median round's figures. */
static void write_json(const char *name, const struct bench_meta *meta, int multiple,
                       long long size, int rounds, int warmup, int verified,
                       const struct result res[NIMPLS][NKINDS])
{
    FILE *f = fopen(name, "w");
    if (!f) {
        fprintf(stderr, "resonio-bench overlap: %s: %s\n", name, strerror(errno));
        return;
    }
    fprintf(f,
            "{\"suite\": \"overlap\", \"mpi\": \"%s\", \"ranks\": %d, \"level\": \"%s\", "
            "\"compute\": \"%s\", \"size\": %lld, \"rounds\": %d, \"warmup\": %d, "
            "\"cores\": %ld, \"prefix\": \"%s\", \"verified\": %s, \"rows\": [",
            meta->mpi, nprocs, multiple ? "multiple" : "single", sleeping ? "sleep" : "cpu", size,
            rounds, warmup, sysconf(_SC_NPROCESSORS_ONLN), prefix, verified ? "true" : "false");
    const char *sep = "";
    for (int k = 0; k < NKINDS; k++)
        for (int i = 0; i < NIMPLS; i++) {
            const struct result *r = &res[i][k];
            if (!r->rounds)
                continue;
            fprintf(f,
                    "%s\n  {\"kind\": \"%s\", \"impl\": \"%s\", \"io\": %.6f, \"cpu\": %.6f, "
                    "\"issue\": %.6f, \"start\": %.6f, \"wait\": %.6f, \"total\": %.6f, "
                    "\"hidden\": %.4f, \"slower\": %.4f, \"verified\": %s, \"strategy\": \"%s\", "
                    "\"round_hidden\": [",
                    sep, kind_name[k], impl_name[i], r->io, r->cpu, r->issue, r->start, r->wait,
                    r->total, r->hidden, r->slower, r->ok ? "true" : "false", r->strategy);
            json_numbers(f, r->round_hidden, r->rounds, "%s%.4f");
            fprintf(f, "], \"round_wait\": [");
            json_numbers(f, r->round_wait, r->rounds, "%s%.6f");
            fprintf(f, "], \"round_issue\": [");
            json_numbers(f, r->round_issue, r->rounds, "%s%.6f");
            fprintf(f, "], \"round_strategy\": [");
            for (int j = 0; j < r->rounds; j++)
                fprintf(f, "%s\"%s\"", j ? ", " : "", r->round_strategy[j]);
            fprintf(f, "]}");
            sep = ",";
        }
    fprintf(f, "\n]}\n");
    if (fclose(f))
        fprintf(stderr, "resonio-bench overlap: %s: %s\n", name, strerror(errno));
}

/* -kinds: the kinds to run (default every one); 0, or -1 for a name that
 * is none (the table's names, "split_write" for "split write") */
static int run_it[NKINDS] = {1, 1, 1, 1, 1, 1};
static int parse_kinds(const char *list)
{
    int want[NKINDS] = {0}, any = 0;
    char copy[256];
    if (snprintf(copy, sizeof copy, "%s", list) >= (int)sizeof copy)
        return -1;
    for (char *save = NULL, *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k = 0;
        for (; k < NKINDS; k++) {
            char name[32];
            snprintf(name, sizeof name, "%s", kind_name[k]);
            for (char *c = name; *c; c++)
                *c = *c == ' ' ? '_' : *c;
            if (!strcmp(t, name))
                break;
        }
        if (k == NKINDS)
            return -1;
        want[k] = any = 1;
    }
    if (!any)
        return -1;
    memcpy(run_it, want, sizeof run_it);
    return 0;
}

static int usage_error(const char *msg)
{
    if (rank == 0)
        fprintf(stderr,
                "resonio-bench: %s\nusage: resonio-bench --suite overlap [-size S] [-rounds N] "
                "[-warmup W] [-compute cpu|sleep] [-thread multiple|single] [-kinds LIST] "
                "[-prefix P] [-dir D] [-o O]\n       resonio-bench --suite overlap -all [--help]\n",
                msg);
    MPI_Finalize();
    return 2;
}

int bench_overlap_main(int argc, char **argv)
{
    /* -thread single asks for no more than MPI_THREAD_SINGLE (MPI_Init) */
    int want = MPI_THREAD_MULTIPLE, provided = MPI_THREAD_SINGLE;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-thread") && !strcmp(argv[i + 1], "single"))
            want = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, want, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    long long size = 256LL << 20;
    int rounds = 3, warmup = 0;
    const char *dir = NULL, *out = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--suite") || !strcmp(a, "-suite")) {
            i++;
            continue;
        }
        if (!strncmp(a, "--suite=", 8))
            continue;
        if (i + 1 >= argc)
            return usage_error("an option without its value");
        const char *v = argv[++i];
        long long num = 0;
        if (!strcmp(a, "-size")) {
            if (bench_parse_number(v, &num) || num < 1 || num > (1LL << 30))
                return usage_error("-size must be 1 byte to 1g");
            size = num;
        } else if (!strcmp(a, "-rounds")) {
            if (bench_parse_number(v, &num) || num < 1 || num > MAX_ROUNDS)
                return usage_error("-rounds must be 1 to 15");
            rounds = (int)num;
        } else if (!strcmp(a, "-warmup")) {
            if (bench_parse_number(v, &num) || num < 0 || num > 100)
                return usage_error("-warmup must be 0 to 100");
            warmup = (int)num;
        } else if (!strcmp(a, "-kinds")) {
            if (parse_kinds(v))
                return usage_error("-kinds takes a comma list of iwrite_at, iread_at, "
                                   "iwrite_at_all, iread_at_all, split_write, split_read");
        } else if (!strcmp(a, "-dir")) {
            dir = v;
        } else if (!strcmp(a, "-prefix")) {
            prefix = v;
        } else if (!strcmp(a, "-o")) {
            out = v;
        } else if (!strcmp(a, "-thread")) {
            if (strcmp(v, "single") && strcmp(v, "multiple"))
                return usage_error("-thread must be single or multiple");
        } else if (!strcmp(a, "-compute")) {
            if (strcmp(v, "cpu") && strcmp(v, "sleep"))
                return usage_error("-compute must be cpu or sleep");
            sleeping = !strcmp(v, "sleep");
        } else {
            return usage_error("unknown option for the overlap suite");
        }
    }
    char outdir[4096], path[2][4200];
    if (out) {
        snprintf(outdir, sizeof outdir, "%s", out);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        bench_default_out(outdir, sizeof outdir, &tm);
    }
    MPI_Bcast(outdir, sizeof outdir, MPI_CHAR, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0)
        ok = bench_make_dirs(outdir) == 0;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        return usage_error("the output directory cannot be made");
    for (int i = 0; i < NIMPLS; i++)
        snprintf(path[i], sizeof path[i], "%s/overlap.%s.dat", dir ? dir : outdir, impl_name[i]);

    struct bench_meta meta;
    memset(&meta, 0, sizeof meta);
    bench_mpi_meta(&meta);
    const char *mpi = meta.mpi, *lib = meta.mpi_version;

    unsigned char *buf = malloc((size_t)size), *tmp = malloc((size_t)size);
    if (!buf || !tmp)
        return usage_error("no memory for the buffers");
    double rate = calibrate();
    rate_cpu = rate;
    if (rank == 0) {
        printf("resonio-bench overlap: %s, %d ranks, thread level %s; %lld MiB per rank and "
               "call, %d rounds (the median shown); files %s, %s%s\n",
               mpi, nprocs, provided == MPI_THREAD_MULTIPLE ? "MULTIPLE" : "below MULTIPLE",
               size >> 20, rounds, path[0], prefix, path[1]);
        fflush(stdout);
    }

    struct result res[NIMPLS][NKINDS];
    memset(res, 0, sizeof res);
    long long bad = 0;
    for (int i = 0; i < NIMPLS; i++) {
        struct file f = {.impl = i, .nf = MPI_FILE_NULL, .rf = RIO_FILE_NULL};
        if (rank == 0)
            unlink(path[i]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (f_open(&f, path[i]) != MPI_SUCCESS)
            return usage_error("a data file cannot be opened");
        /* the file's first writing (new pages) stays out of the rounds;
         * its data (round -1's) is what every read reads */
        fill(buf, size, (long long)rank * size, -1);
        MPI_Status st;
        int rc = i == NATIVE ? MPI_File_write_at_all(f.nf, (MPI_Offset)rank * size, buf,
                                                    (int)size, MPI_BYTE, &st)
                             : rio_file_write_at_all(f.rf, (MPI_Offset)rank * size, buf,
                                                     (int)size, MPI_BYTE, &st);
        bad += rc != MPI_SUCCESS;
        static const enum kind order[NKINDS] = {IREAD_AT,  IREAD_AT_ALL,  SPLIT_READ,
                                                IWRITE_AT, IWRITE_AT_ALL, SPLIT_WRITE};
        for (int j = 0; j < NKINDS; j++)
            if (run_it[order[j]])
                bad += run_kind(&f, path[i], order[j], buf, tmp, size, rounds, warmup, rate,
                                &res[i][order[j]]);
        bad += f_close(&f) != MPI_SUCCESS;
        if (rank == 0)
            unlink(path[i]);
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        char base[4400], name[4410];
        snprintf(base, sizeof base, "%s/overlap-%s-np%d-%s%s", outdir, mpi, nprocs,
                 sleeping ? "sleep" : "cpu", provided == MPI_THREAD_MULTIPLE ? "" : "-single");
        snprintf(name, sizeof name, "%s.json", base);
        write_json(name, &meta, provided == MPI_THREAD_MULTIPLE, size, rounds, warmup, !bad,
                   res);
        snprintf(name, sizeof name, "%s.md", base);
        FILE *md = fopen(name, "w");
        FILE *to[2] = {stdout, md};
        for (int t = 0; t < 2; t++) {
            if (!to[t])
                continue;
            fprintf(to[t],
                    "\n## Overlap: %s, %d rank%s, thread level %s, %lld MiB per rank and call, "
                    "computation: %s\n\n"
                    "%s\n\n"
                    "Each round: the blocking call (T_io), the computation alone (T_cpu, a "
                    "fixed amount of CPU work sized to last at least T_io), then the "
                    "nonblocking call, "
                    "the same computation and the wait (T_total). hidden = (T_io + T_cpu - "
                    "T_total) / T_io; slower = T_total / (T_io + T_cpu). The median of %d "
                    "rounds by hidden share, after %d untimed blocking calls of each kind; "
                    "every part timed on the slowest rank; every byte checked (writes in the "
                    "file, reads in the buffer); start: from the issue until a thread of "
                    "resonio's began the call's I/O (rio_stats time_nb_start; - where nothing "
                    "ran in the background); strategy: what resonio's collective call ran "
                    "in that round.\n\n"
                    "| call | impl | T_io (s) | T_cpu (s) | issue (s) | start (s) | wait (s) "
                    "| T_total (s) | hidden | slower | verified | strategy |\n"
                    "|---|---|---|---|---|---|---|---|---|---|---|---|\n",
                    mpi, nprocs, nprocs == 1 ? "" : "s",
                    provided == MPI_THREAD_MULTIPLE ? "MULTIPLE" : "below MULTIPLE", size >> 20,
                    sleeping ? "asleep (the cores left free)" : "a CPU loop", lib, rounds,
                    warmup);
            for (int k = 0; k < NKINDS; k++)
                for (int i = 0; i < NIMPLS; i++) {
                    const struct result *r = &res[i][k];
                    if (!r->rounds)
                        continue;
                    char st[16] = "-";
                    if (r->start > 0)
                        snprintf(st, sizeof st, "%.3f", r->start);
                    fprintf(to[t],
                            "| %s | %s | %.3f | %.3f | %.3f | %s | %.3f | %.3f | %.0f %% | %.2f "
                            "| %s | %s |\n",
                            kind_name[k], impl_name[i], r->io, r->cpu, r->issue, st, r->wait,
                            r->total, 100 * r->hidden, r->slower, r->ok ? "yes" : "NO",
                            r->strategy[0] ? r->strategy : "-");
                }
            fprintf(to[t], "\n%s\n", bad ? "SOME BYTES OR CALLS WRONG" : "every byte verified");
            if (*prefix)
                fprintf(to[t], "resonio's file: %s%s (native's: %s)\n", prefix, path[1], path[0]);
        }
        if (md) {
            fclose(md);
            printf("report: %s\n", name);
        }
    }
    free(buf);
    free(tmp);
    MPI_Finalize();
    return 0;
}
