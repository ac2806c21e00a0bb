/*
 * f_sweep.c — storage failures swept over N, through the fault: driver.
 *
 * The fault driver (src/store/fault.c) fails the N-th storage call of a
 * class on an open file and rank: "op=write,n=N,err=EIO" and so on.  For
 * each scenario (explicit-offset writes and reads, independent and
 * collective; a noncontiguous view written and read collectively, and
 * independently under each forced independent method) the sweep opens the
 * file with N = 1, 2, ... until the scenario
 * succeeds, which happens once N exceeds the number k of storage calls of
 * that class the scenario makes:
 *   EIO          every N <= k fails with MPI_ERR_IO (k >= 1 is required:
 *                a scenario that never fails is an error), the first
 *                success writes/reads correct data;
 *   ENOSPC       (writes) N = 1 and N = k fail with MPI_ERR_NO_SPACE,
 *                N = k+1 succeeds;
 *   EINTR, SHORT for N = 1 .. k+1 the library retries: success, with
 *                correct data.
 * Every rank gets the spec; in collective scenarios the engine may leave
 * the storage calls to some ranks (aggregators), so some ranks fail and
 * the others must return the error too (collective calls agree on errors).
 * k is then the largest count on any rank.
 * Written data is checked with POSIX reads of the rank's own bytes.
 *
 * Each iteration opens and closes the file, which costs ~0.1 s at 3-4
 * oversubscribed ranks under MPICH; so above 2 ranks only the collective
 * scenarios run (the independent ones do not depend on the number of
 * ranks).  The program says so.
 *
 * "-agree reduce" makes the library agree by allreduce, as communicators
 * of more than a few ranks do, instead of by allgather.
 *
 * A SIGALRM watchdog (60 s per scenario) turns a hang into a failure, and
 * the number of open file descriptors (/proc/self/fd) must be the same
 * before and after the sweep.
 */
#include "resonio.h"
#include "rtest.h"

#include "file/file_int.h"

#include <dirent.h>
#include <signal.h>

#define CH 4096    /* contiguous scenarios: NCH chunks of CH bytes per rank */
#define NCH 2
#define VB 512     /* view scenarios: VR blocks of VB bytes, interleaved */
#define VR 3
#define MAXN 200

static char path[4096], fpath[4200], src[4096], fsrc[4200];

static void watchdog(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(1);
    _exit(1);
}

static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

/* Explicit offsets (independent, collective), and a noncontiguous view
 * accessed independently (under a forced method) or collectively. */
enum kind { WR_AT, WR_AT_ALL, WR_VIEW, WR_VIEW_ALL, RD_AT, RD_VIEW, RD_VIEW_ALL };

struct scen {
    const char *name;
    enum kind kind;
    const char *method; /* forced independent method, or NULL */
    const char *op;     /* fault class swept */
};

static int is_coll(const struct scen *s)
{
    return s->kind == WR_AT_ALL || s->kind == WR_VIEW_ALL || s->kind == RD_VIEW_ALL;
}
static int is_view(const struct scen *s)
{
    return s->kind == WR_VIEW || s->kind == RD_VIEW || s->kind == WR_VIEW_ALL ||
           s->kind == RD_VIEW_ALL;
}
static int is_write(const struct scen *s)
{
    return s->kind == WR_AT || s->kind == WR_AT_ALL || s->kind == WR_VIEW ||
           s->kind == WR_VIEW_ALL;
}

/* The operation whose failure the scenario returns. */
static const char *opname(const struct scen *s)
{
    switch (s->kind) {
    case WR_AT: return "MPI_File_write_at";
    case WR_AT_ALL: return "MPI_File_write_at_all";
    case WR_VIEW: return "MPI_File_write";
    case WR_VIEW_ALL: return "MPI_File_write_all";
    case RD_AT: return "MPI_File_read_at";
    case RD_VIEW: return "MPI_File_read";
    case RD_VIEW_ALL: return "MPI_File_read_all";
    }
    return "?";
}

/* File offset of byte i of this rank's data. */
static long long off_of(const struct scen *s, long long i)
{
    if (is_view(s))
        return (i / VB * rt_nprocs + rt_rank) * VB + i % VB;
    return (long long)rt_rank * NCH * CH + i;
}
static long long nbytes(const struct scen *s)
{
    return is_view(s) ? VR * VB : NCH * CH;
}

/* Run the scenario; the first error code (MPI_SUCCESS if none). */
static int run(const struct scen *s, rio_file *fh, unsigned char *buf)
{
    int first = MPI_SUCCESS, code;
    MPI_Status st;
    const long long me = (long long)rt_rank * NCH * CH;
    switch (s->kind) {
    case WR_AT:
        for (int c = 0; c < NCH && first == MPI_SUCCESS; c++)
            first = rio_file_write_at(fh, me + c * CH, buf + c * CH, CH, MPI_BYTE, &st);
        break;
    case RD_AT:
        for (int c = 0; c < NCH && first == MPI_SUCCESS; c++)
            first = rio_file_read_at(fh, me + c * CH, buf + c * CH, CH, MPI_BYTE, &st);
        break;
    case WR_AT_ALL:
        /* two collective calls, both made by every rank */
        for (int part = 0; part < 2; part++) {
            int len = part == 0 ? CH : (NCH - 1) * CH;
            code = rio_file_write_at_all(fh, me + part * CH, buf + part * CH, len, MPI_BYTE, &st);
            if (first == MPI_SUCCESS)
                first = code;
        }
        break;
    case WR_VIEW:
    case RD_VIEW:
    case WR_VIEW_ALL:
    case RD_VIEW_ALL: {
        MPI_Datatype ft;
        MPI_Type_vector(VR, VB, VB * rt_nprocs, MPI_BYTE, &ft);
        MPI_Type_commit(&ft);
        first = rio_file_set_view(fh, (MPI_Offset)rt_rank * VB, MPI_BYTE, ft, "native",
                                  MPI_INFO_NULL);
        MPI_Type_free(&ft);
        if (first != MPI_SUCCESS) {
            CHECK(0, "%s: set_view failed", s->name);
            break;
        }
        switch (s->kind) {
        case WR_VIEW: first = rio_file_write(fh, buf, VR * VB, MPI_BYTE, &st); break;
        case RD_VIEW: first = rio_file_read(fh, buf, VR * VB, MPI_BYTE, &st); break;
        case WR_VIEW_ALL: first = rio_file_write_all(fh, buf, VR * VB, MPI_BYTE, &st); break;
        default: first = rio_file_read_all(fh, buf, VR * VB, MPI_BYTE, &st); break;
        }
        if (first == MPI_SUCCESS) {
            int c = -1;
            MPI_Get_count(&st, MPI_BYTE, &c);
            CHECK(c == VR * VB, "%s: count %d, expected %d", s->name, c, VR * VB);
        }
        break;
    }
    }
    return first;
}

/* After a successful run: the rank's bytes in the file (writes, POSIX) or
 * in buf (reads) are right. */
static void verify(const struct scen *s, const unsigned char *buf, const char *spec)
{
    long long n = nbytes(s), len = 0;
    unsigned char *file = NULL;
    if (is_write(s)) {
        file = RT_SLURP(path, &len);
        if (!file)
            return;
    }
    /* expected: pat(owner, offset) for writes, pat(0, offset) for the source */
    int owner = is_write(s) ? rt_rank : 0;
    for (long long i = 0; i < n; i++) {
        long long o = off_of(s, i);
        int got = is_write(s) ? (o < len ? file[o] : -1) : buf[i];
        if (got != pat(owner, o)) {
            CHECK(0, "%s with %s: %s byte %lld (file offset %lld) is %d, expected %d", s->name,
                  spec, is_write(s) ? "file" : "read", i, o, got, pat(owner, o));
            break;
        }
    }
    free(file);
}

/*
 * One iteration: open with spec (on every rank, or on the last one only
 * for collective scenarios), run, verify on success, close and remove.
 * Returns the scenario's code on this rank; *nfail gets the number of
 * ranks that failed (-1 if the open failed).
 */
static int iteration(const struct scen *s, const char *spec, int *nfail)
{
    rio_file *fh = RIO_FILE_NULL;
    MPI_Info info = rt_info("resonio_fault", spec, "resonio_indep_method", s->method, NULL);
    unsigned char *buf = malloc((size_t)nbytes(s));
    int code = MPI_ERR_OTHER;
    if (is_write(s)) {
        for (long long i = 0; i < nbytes(s); i++)
            buf[i] = pat(rt_rank, off_of(s, i));
    } else {
        memset(buf, 0, (size_t)nbytes(s));
    }
    /* Writes go to a file that already holds filler bytes everywhere, so
     * that read-modify-write methods have something to read. */
    if (is_write(s)) {
        if (rt_rank == 0) {
            long long len = (long long)rt_nprocs * NCH * CH;
            unsigned char *fill = malloc((size_t)len);
            memset(fill, 0xEE, (size_t)len);
            CHECK(rt_pwrite_file(path, fill, (size_t)len, 0, 1) == 0, "cannot write %s", path);
            free(fill);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int amode = is_write(s) ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
    int oc = rio_file_open(MPI_COMM_WORLD, is_write(s) ? fpath : fsrc, amode, info, &fh);
    MPI_Info_free(&info);
    if (!RT_OK(oc)) {
        free(buf);
        *nfail = -1;
        return oc;
    }
    code = run(s, fh, buf);
    int f = code != MPI_SUCCESS, total = 0;
    MPI_Allreduce(&f, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (total == 0)
        verify(s, buf, spec);
    RT_OK(rio_file_close(&fh)); /* collective: all have verified */
    free(buf);
    *nfail = total;
    return code;
}

/* One iteration with a hard error that must fail (expect_fail) or not. */
static void hard_step(const struct scen *s, const char *spec, int cls, int expect_fail,
                      int *failed)
{
    int nfail = 0;
    int code = iteration(s, spec, &nfail);
    *failed = nfail != 0;
    if (nfail < 0)
        return;
    if (is_coll(s) && nfail)
        CHECK(nfail == rt_nprocs, "%s with %s: the collective call failed on %d of %d ranks",
              s->name, spec, nfail, rt_nprocs);
    if (code != MPI_SUCCESS)
        RT_ERR(code, cls, opname(s), is_write(s) ? fpath : fsrc);
    if (expect_fail >= 0)
        CHECK(!!nfail == expect_fail, "%s with %s: %s", s->name, spec,
              expect_fail ? "succeeded, expected a failure" : "failed, expected success");
}

/*
 * EIO for N = 1, 2, ... until the scenario succeeds: k = the failures.
 * ENOSPC at N = 1, k and k+1 (the class; the count is EIO's).  Then EINTR
 * and SHORT for N = 1 .. k+1: always success with the right data.
 */
static void sweep(const struct scen *s)
{
    char spec[128];
    int k = 0, n, failed = 0;
    alarm(60); /* per scenario */
    for (n = 1; n <= MAXN; n++) {
        snprintf(spec, sizeof spec, "op=%s,n=%d,err=EIO", s->op, n);
        hard_step(s, spec, MPI_ERR_IO, -1, &failed);
        if (!failed)
            break;
        k++;
    }
    CHECK(n <= MAXN, "%s: still failing with n=%d (err=EIO)", s->name, MAXN);
    CHECK(k > 0, "%s: err=EIO at n=1 did not fail (no %s call was counted)", s->name, s->op);
    if (k < 1)
        return;
    if (is_write(s)) {
        const int ns[3] = {1, k, k + 1};
        for (int i = 0; i < 3; i++) {
            if (i == 1 && k == 1)
                continue;
            snprintf(spec, sizeof spec, "op=%s,n=%d,err=ENOSPC", s->op, ns[i]);
            hard_step(s, spec, MPI_ERR_NO_SPACE, ns[i] <= k, &failed);
        }
    }
    /* Transient trouble: always absorbed, data right. */
    static const char *const soft[] = {"EINTR", "SHORT"};
    for (int t = 0; t < 2; t++)
        for (n = 1; n <= k + 1; n++) {
            int nfail = 0;
            snprintf(spec, sizeof spec, "op=%s,n=%d,err=%s", s->op, n, soft[t]);
            int code = iteration(s, spec, &nfail);
            if (code != MPI_SUCCESS) {
                char m[MPI_MAX_ERROR_STRING];
                CHECK(0, "%s with %s failed: %s", s->name, spec, rt_errstr(code, m));
            }
            CHECK(nfail == 0 || code != MPI_SUCCESS, "%s with %s failed on another rank", s->name,
                  spec);
        }
    rt_note("%s: up to %d %s call(s) per rank swept", s->name, k, s->op);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    const char *agree = rt_arg("-agree");
    if (agree && !strcmp(agree, "reduce")) {
        rio__agree_gather_ranks(0);
        rt_note("collective calls agree by allreduce");
    }
    signal(SIGALRM, watchdog);
    alarm(60);
    rt_path(path, sizeof path, "sweep");
    snprintf(fpath, sizeof fpath, "fault:%s", path);
    rt_path(src, sizeof src, "sweep.src");
    snprintf(fsrc, sizeof fsrc, "fault:%s", src);

    /* The read source: pat(0, offset) over every byte any scenario reads. */
    if (rt_rank == 0) {
        long long len = (long long)rt_nprocs * NCH * CH;
        unsigned char *b = malloc((size_t)len);
        rt_fill(b, (size_t)len, 0, 0);
        CHECK(rt_pwrite_file(src, b, (size_t)len, 0, 1) == 0, "cannot write %s", src);
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* One clean cycle first, so that anything MPI or the library opens once
     * for good is open before the descriptors are counted. */
    {
        rio_file *fh = RIO_FILE_NULL;
        if (RT_OK(rio_file_open(MPI_COMM_WORLD, fpath,
                                MPI_MODE_RDWR | MPI_MODE_CREATE | MPI_MODE_DELETE_ON_CLOSE,
                                MPI_INFO_NULL, &fh)))
            RT_OK(rio_file_close(&fh));
    }
    int fds0 = count_fds();

    static const struct scen scens[] = {
        {"write_at", WR_AT, NULL, "write"},
        {"write_at_all", WR_AT_ALL, NULL, "write"},
        {"write_all view", WR_VIEW_ALL, NULL, "write"},
        {"write view posix", WR_VIEW, "posix", "write"},
        {"write view sieve", WR_VIEW, "sieve", "write"},
        {"write view sieve (its reads)", WR_VIEW, "sieve", "read"},
        {"write view list", WR_VIEW, "list", "write"},
        {"write view dtype", WR_VIEW, "dtype", "write"},
        {"read_at", RD_AT, NULL, "read"},
        {"read_all view", RD_VIEW_ALL, NULL, "read"},
        {"read view posix", RD_VIEW, "posix", "read"},
        {"read view sieve", RD_VIEW, "sieve", "read"},
        {"read view list", RD_VIEW, "list", "read"},
        {"read view dtype", RD_VIEW, "dtype", "read"},
    };
    /* Independent scenarios do not depend on the number of ranks; with
     * more than 2 (oversubscribed on small machines, where every
     * collective of open and close is slow) only the collective ones run. */
    for (size_t i = 0; i < sizeof scens / sizeof scens[0]; i++) {
        if (rt_nprocs > 2 && !is_coll(&scens[i])) {
            rt_note("%s: independent scenario, swept at 1 and 2 ranks only", scens[i].name);
            continue;
        }
        sweep(&scens[i]);
    }
    alarm(0);

    int fds1 = count_fds();
    CHECK(fds0 == fds1, "open file descriptors: %d before the sweep, %d after", fds0, fds1);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        unlink(src);
        unlink(path);
    }
    return rt_finish();
}
