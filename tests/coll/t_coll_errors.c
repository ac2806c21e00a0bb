/*
 * t_coll_errors.c — storage failures inside collective calls, one strategy
 * per run (-strategy ...).
 *
 * The fault: driver (src/store/fault.c) fails the N-th storage call of a
 * class on one open file of one rank: resonio_fault = "op=write,n=N,
 * err=EIO" and so on.  Only ranks whose own storage calls reach N see the
 * fault; the standard's collective calls must still return the error on
 * every rank, and nothing may hang (SIGALRM watchdog: "watchdog: hang").
 *
 * The access: each rank writes CT_IL_BS-byte blocks interleaved with the
 * others' and with holes (ctest_util.h, ct_il_*), through a view, with
 * rio_file_write_at_all, over a layout of 4 targets of 4096 bytes and
 * cb_buffer_size 16 KiB (several rounds).  The victim is one aggregator of
 * the strategy (the last in rio_coll_last's aggs of a clean run), or the
 * last rank when the strategy has none; "all" gives every rank the spec.
 *
 *   EIO     N = 1, 2, ... until the write succeeds: k = the failures, k >= 1;
 *           each failure has class MPI_ERR_IO on every rank (with a
 *           message naming the operation and the file), and the same
 *           write repeated on the same handle then succeeds (the victim's
 *           N-th call is behind it) with the right data.  Swept for the
 *           victim alone and for every rank.
 *   ENOSPC  N = 1 and N = k fail with MPI_ERR_NO_SPACE on every rank,
 *           N = k+1 succeeds.
 *   EINTR, SHORT  N = 1 .. k+1: transient, absorbed: success, right data.
 *   every=1 (a dead disk): the write and its repetition fail everywhere.
 *   reads   op=read EIO swept the same way over a collective read of a
 *           file written beforehand: MPI_ERR_IO everywhere, then the data.
 * Data is checked with POSIX reads of each rank's own bytes.
 */
#include "ctest_util.h"

#include <signal.h>

#define UNIT 4096
#define FACTOR 4
#define CB "16384"
#define MAXN 64

static const char *strategy;
static char path[4096], fpath[4200];
static int victim = -1;

static rio_file *open_spec(const char *spec, int all, int amode)
{
    rio_file *fh = RIO_FILE_NULL;
    char unit[16], factor[16];
    snprintf(unit, sizeof unit, "%d", UNIT);
    snprintf(factor, sizeof factor, "%d", FACTOR);
    int mine = spec && (all || rt_rank == victim);
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", unit, "striping_factor",
                            factor, "cb_buffer_size", CB, "resonio_fault", mine ? spec : "none",
                            NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, fpath, amode, info, &fh);
    MPI_Info_free(&info);
    if (!RT_OK(rc))
        return RIO_FILE_NULL;
    RT_OK(ct_il_view(fh));
    return fh;
}

/* The rank's bytes: in the file (POSIX) or in buf (a read). */
static void verify(const unsigned char *buf, const char *what)
{
    int got = 0;
    long long o = 0, i = ct_il_check(path, buf, &got, &o);
    CHECK(i < 0, "[%s] %s: %s byte %lld (file offset %lld) is %d, expected %d", strategy, what,
          buf ? "read" : "file", i, o, got, pat(rt_rank, o));
}

/* Number of ranks whose code is an error; all ranks must agree. */
static int agree(int code, const char *what)
{
    int f = code != MPI_SUCCESS, n = 0;
    MPI_Allreduce(&f, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rt_rank != 0 || n == 0 || n == rt_nprocs,
          "[%s] %s: the collective call failed on %d of %d ranks", strategy, what, n, rt_nprocs);
    return n;
}

/* A failure must have class cls and name the operation and the file, on
 * every rank (also where the storage did not fail). */
static void check_class(int code, int cls, const char *op, const char *what)
{
    if (code != MPI_SUCCESS && !RT_ERR(code, cls, op, path))
        CHECK(0, "[%s] %s: the error above", strategy, what);
}

/*
 * One write trial with spec; returns 1 if the write failed (on every rank).
 * expect: 1 must fail, 0 must succeed, -1 either.  retry: after a failure
 * the same write on the same handle must give expect_retry (0 success,
 * 1 failure, -1 not tried).
 */
static int write_trial(const char *spec, int all, int cls, int expect, int expect_retry)
{
    char what[192];
    MPI_Status st;
    snprintf(what, sizeof what, "write with %s%s", spec, all ? " on every rank" : "");
    unsigned char *buf = ct_il_data();
    ct_il_prefill(path);
    rio_file *fh = open_spec(spec, all, MPI_MODE_RDWR);
    if (!fh) {
        free(buf);
        return 0;
    }
    int code = rio_file_write_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, &st);
    int nfail = agree(code, what);
    check_class(code, cls, "MPI_File_write_at_all", what);
    if (expect >= 0)
        CHECK(rt_rank != 0 || !!nfail == expect, "[%s] %s: %s", strategy, what,
              expect ? "succeeded, expected a failure" : "failed, expected success");
    if (!nfail) {
        verify(NULL, what);
    } else if (expect_retry >= 0) {
        char again[224];
        snprintf(again, sizeof again, "%s, repeated", what);
        code = rio_file_write_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, &st);
        int n2 = agree(code, again);
        check_class(code, cls, "MPI_File_write_at_all", again);
        CHECK(rt_rank != 0 || !!n2 == expect_retry, "[%s] %s: %s", strategy, again,
              expect_retry ? "succeeded, expected a failure" : "failed, expected success");
        if (!n2)
            verify(NULL, again);
    }
    RT_OK(rio_file_close(&fh));
    free(buf);
    return nfail != 0;
}

/* One read trial (the file holds every rank's pattern). */
static int read_trial(const char *spec, int expect)
{
    char what[192];
    MPI_Status st;
    snprintf(what, sizeof what, "read with %s", spec);
    unsigned char *buf = calloc((size_t)CT_IL_BYTES, 1);
    rio_file *fh = open_spec(spec, 0, MPI_MODE_RDONLY);
    if (!fh) {
        free(buf);
        return 0;
    }
    int code = rio_file_read_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, &st);
    int nfail = agree(code, what);
    check_class(code, MPI_ERR_IO, "MPI_File_read_at_all", what);
    if (expect >= 0)
        CHECK(rt_rank != 0 || !!nfail == expect, "[%s] %s: %s", strategy, what,
              expect ? "succeeded, expected a failure" : "failed, expected success");
    if (!nfail)
        verify(buf, what);
    RT_OK(rio_file_close(&fh));
    free(buf);
    return nfail != 0;
}

/* EIO for N = 1, 2, ... until success; returns k (the failures). */
static int sweep_eio(const char *op, int all)
{
    char spec[128];
    int k = 0, n;
    alarm(120);
    for (n = 1; n <= MAXN; n++) {
        snprintf(spec, sizeof spec, "op=%s,n=%d,err=EIO", op, n);
        int failed = !strcmp(op, "read") ? read_trial(spec, -1)
                                         : write_trial(spec, all, MPI_ERR_IO, -1, all ? -1 : 0);
        if (!failed)
            break;
        k++;
    }
    CHECK(rt_rank != 0 || n <= MAXN, "[%s] op=%s EIO%s: still failing at n=%d", strategy, op,
          all ? " on every rank" : "", MAXN);
    CHECK(rt_rank != 0 || k > 0,
          "[%s] op=%s,n=1,err=EIO%s did not fail: the victim (rank %d) made no %s call", strategy,
          op, all ? " on every rank" : "", victim, op);
    return k;
}

int main(int argc, char **argv)
{
    char spec[128];
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(120);
    strategy = ct_strategy_arg();
    rt_path(path, sizeof path, "errors");
    snprintf(fpath, sizeof fpath, "fault:%s", path);

    /* the victim: an aggregator of a clean run */
    {
        struct rio_coll_info in;
        MPI_Status st;
        unsigned char *buf = ct_il_data();
        ct_il_prefill(path);
        rio_file *fh = open_spec(NULL, 0, MPI_MODE_RDWR);
        if (fh) {
            RT_OK(rio_file_write_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, &st));
            if (ct_last(fh, &in))
                victim = in.naggs > 0 ? in.aggs[in.naggs - 1] : rt_nprocs - 1;
            RT_OK(rio_file_close(&fh));
            verify(NULL, "clean write");
        }
        free(buf);
        if (victim < 0) {
            CHECK(0, "[%s] no clean run: nothing to sweep", strategy);
            return rt_finish();
        }
    }

    /* writes */
    int k = sweep_eio("write", 0);
    sweep_eio("write", 1);
    if (k > 0) {
        const int ns[3] = {1, k, k + 1};
        alarm(120);
        for (int i = 0; i < 3; i++) {
            if (i == 1 && k == 1)
                continue;
            snprintf(spec, sizeof spec, "op=write,n=%d,err=ENOSPC", ns[i]);
            write_trial(spec, 0, MPI_ERR_NO_SPACE, ns[i] <= k, -1);
        }
        static const char *const soft[] = {"EINTR", "SHORT"};
        for (int t = 0; t < 2; t++)
            for (int n = 1; n <= k + 1; n++) {
                snprintf(spec, sizeof spec, "op=write,n=%d,err=%s", n, soft[t]);
                write_trial(spec, 0, MPI_SUCCESS, 0, -1);
            }
        write_trial("op=write,n=1,err=EIO,every=1", 0, MPI_ERR_IO, 1, 1);
    }

    /* reads of a file written beforehand */
    alarm(120);
    write_trial("none", 0, MPI_SUCCESS, 0, -1);
    sweep_eio("read", 0);
    alarm(0);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
