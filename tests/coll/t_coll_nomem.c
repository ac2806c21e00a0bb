/*
 * t_coll_nomem.c — an allocation that fails on one rank inside a
 * collective call, one strategy per run (-strategy ...).
 *
 * rio__malloc_fail_at(N) makes the N-th of resonio's own allocations from
 * now fail, on the rank that calls it (the victim).  For N = 1, 2, ...
 * until the victim's call needs fewer than N allocations, the victim arms
 * it just before one collective call and the others do not:
 *
 *   open      rio_file_open of a new file;
 *   write     rio_file_write_at_all through an interleaved view with holes;
 *   read      rio_file_read_at_all of the file the clean write left.
 *
 * Every rank must return, with the same outcome: success, or an error of
 * class MPI_ERR_NO_MEM whose message names the operation and the file (the
 * victim's cause is what every rank reports, not "failed on another
 * rank").  Nothing may hang (SIGALRM watchdog).  After a failed write or
 * read, the same call on the same handle without a failure must succeed
 * and move the right bytes: the file is checked with POSIX reads, the read
 * buffer byte by byte.  Every rank takes its turn as the victim.
 *
 * -nonblocking 1 makes the write and the read iwrite_at_all/iread_at_all and
 * a wait; with -multiple they run on the file's lane, where the victim's
 * failure can come at issue (its job or its arguments: the victim enters
 * the call at once, failed, and returns the error; the others' waits
 * return it) or inside the lane's call.
 *
 * -factor N sets the stripe count (default 4; 1 with 8 ranks gives
 * resonant timed agents, several per target; 100 makes the summary's
 * rows, which hold each rank's bytes per target, too wide for the stack,
 * so that open makes memory for them; -grow 1 then drops that memory
 * after each open, so that the data call makes and agrees on its own); -shm turns resonio_shm on
 * (node-local data through shared round buffers), given as "-shm 1";
 * -victims A,B,... takes only those ranks as victims (many ranks: the
 * root of the summary's tree and one other);
 * -emu N puts the file on the emulated storage of N targets
 * (RESONIO_EMU_DIR; the stripe count is then N), where direct sends
 * datatype requests and resonant's reads prefetch, and checks it from
 * the service's objects.
 */
#include "ctest_util.h"

#include "coll/coll_int.h"
#include "common/common.h"
#include "file/file_int.h"

#include <signal.h>

#define UNIT 4096
#define CB "16384"
#define MAXN 400
#define MAXV 128 /* victims */

static const char *strategy;
static char path[4096];
static int victim, factor_n = 4;
static const char *shm = "disable";
static int nonblocking, grow;

/* Arm the failure on the victim before a call; after it, disarm and
 * tell whether the victim's call reached the N-th allocation (agreed). */
static void arm(long n)
{
    rio__malloc_fail_at(rt_rank == victim ? n : 0);
}

static int reached(void)
{
    int mine = rio__malloc_fail_at(0) <= 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all;
}

/* The call's outcome on every rank: 0 success everywhere, 1 failure
 * everywhere with class MPI_ERR_NO_MEM; -1 (an error counted) otherwise. */
static int outcome(int code, const char *op, long n)
{
    int f = code != MPI_SUCCESS, nf = 0;
    MPI_Allreduce(&f, &nf, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (nf != 0 && nf != rt_nprocs) {
        CHECK(rt_rank != 0, "[%s] %s, victim %d, n=%ld: failed on %d of %d ranks", strategy, op,
              victim, n, nf, rt_nprocs);
        return -1;
    }
    if (f && !RT_ERR(code, MPI_ERR_NO_MEM, op, path))
        CHECK(0, "[%s] %s, victim %d, n=%ld: the error above", strategy, op, victim, n);
    return nf ? 1 : 0;
}

static int open_only(int amode, rio_file **fh)
{
    char unit[16], factor[16];
    snprintf(unit, sizeof unit, "%d", UNIT);
    snprintf(factor, sizeof factor, "%d", factor_n);
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", unit,
                            "striping_factor", factor, "cb_buffer_size", CB, "resonio_shm", shm,
                            NULL);
    char name[4300];
    ct_rio_name(name, sizeof name, path);
    *fh = RIO_FILE_NULL;
    int rc = rio_file_open(MPI_COMM_WORLD, name, amode, info, fh);
    MPI_Info_free(&info);
    return rc;
}

/* Open with the interleaved view; 1 on success. */
static int open_view(int amode, rio_file **fh)
{
    if (!RT_OK(open_only(amode, fh)))
        return 0;
    if (grow && (*fh)->coll) { /* as if the rows had outgrown what open made */
        free((*fh)->coll->rows);
        (*fh)->coll->rows = NULL;
        (*fh)->coll->rows_cap = 0;
    }
    if (RT_OK(ct_il_view(*fh)))
        return 1;
    rio_file_close(fh);
    return 0;
}

/* The rank's bytes: in buf (a read) or in the file (POSIX). */
static void verify(const unsigned char *buf, const char *what, long n)
{
    int got = 0;
    long long o = 0, i = ct_il_check(path, buf, &got, &o);
    CHECK(i < 0, "[%s] %s, victim %d, n=%ld: %s byte %lld (file offset %lld) is %d, expected %d",
          strategy, what, victim, n, buf ? "read" : "file", i, o, got, pat(rt_rank, o));
}

/* Sweep open: returns the number of failing N. */
static int sweep_open(void)
{
    int k = 0;
    for (long n = 1; n <= MAXN; n++) {
        ct_unlink_rio(path);
        rio_file *fh;
        arm(n);
        int code = open_only(MPI_MODE_CREATE | MPI_MODE_RDWR, &fh);
        int done = reached() == 0;
        int o = outcome(code, "MPI_File_open", n);
        if (code == MPI_SUCCESS)
            RT_OK(rio_file_close(&fh));
        if (o < 0)
            return k;
        k += o;
        if (done)
            return k;
    }
    CHECK(rt_rank != 0, "[%s] open: still allocating at n=%d", strategy, MAXN);
    return k;
}

/* The data call: blocking, or issued and waited for (-nonblocking). */
static int data_call(rio_file *fh, int write, unsigned char *buf, MPI_Status *st)
{
    if (!nonblocking)
        return write ? rio_file_write_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, st)
                     : rio_file_read_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, st);
    MPI_Request req = MPI_REQUEST_NULL;
    int code = write ? rio_file_iwrite_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, &req)
                     : rio_file_iread_at_all(fh, 0, buf, CT_IL_BYTES, MPI_BYTE, &req);
    if (code == MPI_SUCCESS)
        code = MPI_Wait(&req, st);
    return code;
}

/* Sweep one data call (write 1, read 0): returns the number of failing N. */
static int sweep_data(int write)
{
    const char *op = nonblocking ? (write ? "MPI_File_iwrite_at_all" : "MPI_File_iread_at_all")
                                 : (write ? "MPI_File_write_at_all" : "MPI_File_read_at_all");
    unsigned char *buf = ct_il_data();
    int k = 0;
    long n;
    for (n = 1; n <= MAXN; n++) {
        rio_file *fh;
        MPI_Status st;
        if (write)
            ct_il_prefill(path);
        if (!open_view(write ? MPI_MODE_RDWR : MPI_MODE_RDONLY, &fh))
            break;
        if (!write)
            memset(buf, 0, (size_t)CT_IL_BYTES);
        arm(n);
        int code = data_call(fh, write, buf, &st);
        int done = reached() == 0;
        int o = outcome(code, op, n);
        if (o == 1) { /* the same call again, nothing armed */
            k++;
            code = data_call(fh, write, buf, &st);
            char msg[MPI_MAX_ERROR_STRING];
            CHECK(code == MPI_SUCCESS, "[%s] %s, victim %d, n=%ld: the repeated call failed: %s",
                  strategy, op, victim, n, code == MPI_SUCCESS ? "" : rt_errstr(code, msg));
        }
        if (o >= 0)
            verify(write ? NULL : buf, o ? "repeated" : "first", n);
        RT_OK(rio_file_close(&fh));
        if (o < 0 || done)
            break;
    }
    CHECK(rt_rank != 0 || n <= MAXN, "[%s] %s: still allocating at n=%d", strategy, op, MAXN);
    free(buf);
    return k;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    strategy = ct_strategy_arg();
    if (rt_arg("-factor"))
        factor_n = atoi(rt_arg("-factor"));
    if (rt_arg("-shm"))
        shm = "enable";
    nonblocking = rt_arg("-nonblocking") != NULL;
    grow = rt_arg("-grow") != NULL;
    /* a request's error goes to MPI_COMM_WORLD's handler */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int targets = 0;
    if (ct_emu_arg(&targets))
        return rt_finish();
    if (ct_emu)
        factor_n = targets;
    CHECK(factor_n >= 1 && factor_n <= 128, "-factor %d: 1 to 128", factor_n);
    rt_path(path, sizeof path, "nomem");
    int victims[MAXV], nv = 0;
    const char *vl = rt_arg("-victims");
    for (const char *at = vl; vl && *at && nv < MAXV;) {
        char *end;
        long v = strtol(at, &end, 10);
        CHECK(end != at && v >= 0 && v < rt_nprocs && (*end == ',' || !*end),
              "-victims %s: a comma list of ranks below %d", vl, rt_nprocs);
        if (end == at || v < 0 || v >= rt_nprocs)
            break;
        victims[nv++] = (int)v;
        at = *end ? end + 1 : end;
    }
    for (int i = 0; !vl && i < rt_nprocs && i < MAXV; i++)
        victims[nv++] = i;
    for (int i = 0; i < nv; i++) {
        victim = victims[i];
        alarm(120);
        int ko = sweep_open();
        int kw = sweep_data(1);
        int kr = sweep_data(0); /* the file holds the last clean write */
        /* each call allocates on every rank: the sweep must have failed it */
        CHECK(rt_rank != 0 || (ko > 0 && kw > 0 && kr > 0),
              "[%s] victim %d: failures open %d, write %d, read %d; each should be > 0",
              strategy, victim, ko, kw, kr);
        if (rt_rank == 0)
            printf("victim %d: open failed %d times, write %d, read %d\n", victim, ko, kw, kr);
    }
    alarm(0);
    ct_unlink_rio(path);
    return rt_finish();
}
