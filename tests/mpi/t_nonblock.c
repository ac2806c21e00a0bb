/*
 * t_nonblock.c — nonblocking independent calls that run in the background.
 *
 * With -multiple the program asks for MPI_THREAD_MULTIPLE, else it calls
 * MPI_Init.  Which path resonio takes follows (src/file/async.c): an I/O
 * thread completes the request when MULTIPLE is provided; otherwise
 * MPICH's poll hook, or a function in Open MPI's progress loop, completes
 * it; under another library without MULTIPLE the work is done at issue
 * time.  The program works out which path is expected (MPICH's mpi.h
 * defines MPICH_VERSION, Open MPI's OPEN_MPI) and checks that one: the
 * counters say whether the call was queued, and in the background paths
 * every overlap check must hold.
 *
 * Storage is slowed with the delay: driver (hint resonio_delay, a fixed
 * time per request) so that a write takes far longer than issuing it;
 * MPI_Test right after the issue must then say "not done" and the counters
 * must show nothing has run: no clock is read.  Failures come from the
 * fault: driver.  Each rank writes its own region of REG bytes (rank r's
 * byte at offset o is pat(r, o)), except for the shared-pointer part, and
 * every file is checked byte by byte through POSIX after close.
 *
 *   overlap    iwrite_at returns, MPI_Test says not done, MPI_Wait completes
 *   pointer    two iwrite on the individual pointer land one after another;
 *              the pointer moves at issue
 *   shared     two iwrite_shared per rank: every block whole, each rank's
 *              two in issue order
 *   requests   MPI_Testany over several, MPI_Request_free then sync, the
 *              status counts, MPI_Cancel of a queued job; a request freed
 *              early is still completed (MPICH frees it at once but keeps
 *              its request object until MPI_Grequest_complete): resonio's
 *              count of open generalized requests returns to 0
 *   sieve2     two handles of one file sieve their writes into each
 *              other's holes, one in the background: no byte is lost
 *   error      a failing write reaches MPI_Wait's return and the status,
 *              with the class of the storage error, without calling the
 *              file's error handler
 *   sync       MPI_File_sync returns after the outstanding writes are in
 *   close      close and set_view with a request outstanding are reported;
 *              the I/O ran and the request stays valid for a wait
 *   wake       (run first, the process's affinity widened to every online
 *              processor) calls issued one at a time, the I/O threads
 *              waiting in between: at least one call woke a thread on
 *              the caller's processor (none with RESONIO_IO_WAKE=any),
 *              and afterwards every thread of resonio's (named rio-io,
 *              rio-lane) has the process's whole affinity back and runs
 *              as SCHED_BATCH (SCHED_OTHER with any)
 *
 * Collective calls run wholly in the background when MPI_THREAD_MULTIPLE
 * is provided (the file's lane, a thread that calls MPI).  Below it, where
 * the I/O threads run, a collective call runs its exchange at issue and
 * leaves its storage transfers to the lane, and its request completes
 * after the ranks' agreement (without I/O threads everything completes at
 * issue), which the same checks confirm:
 *
 *   coll       iwrite_at_all returns, MPI_Test says not done, the counters
 *              show it queued (and, on the lane, not run); so does an
 *              iread_at_all, which reads the writes before it, and one
 *              across the end of the file counts only the bytes before
 *              it and leaves the rest of the buffer as it was; a split
 *              write's begin returns
 *              before its end; several outstanding collective writes of
 *              one region complete in issue order (the last one's bytes
 *              are the file's, every rank); a blocking collective call
 *              after them sees their bytes; the individual pointer moves
 *              at issue
 *              a request freed before completion still writes, before
 *              the blocking call that follows
 *   coll held  auto decides a write's strategy in blocking calls; a
 *              blocking call slowed 200 times re-examines it; the
 *              nonblocking calls that follow run the decided strategy
 *              and leave the examination where it stood, and blocking
 *              calls finish it (on the synchronous path the nonblocking
 *              calls are blocking ones and examine)
 *   coll progress (Open MPI, below MULTIPLE) a rank blocked in a receive
 *              whose message the other sends after its wait: Open MPI's
 *              progress inside the receive makes the agreement
 *   coll error a bad count on rank 0 only: the call is still entered, and
 *              every rank's wait (and split end) returns the error (below
 *              MULTIPLE the call itself, where it is known); a full
 *              storage (the fault: driver) fails every rank's wait, and
 *              so does a storage read failing on rank 0 only
 */
#include "rtest.h"
#include "resonio.h"
#include "file/file_int.h" /* rio__async_requests_open */

#include <dirent.h>
#include <sched.h>
#include <unistd.h>

#define REG 65536
#define DELAY "req=300000" /* 0.3 s per storage request */

static int background; /* this process's nonblocking calls are queued */
static int coll_bg;    /* and its collective writes */
static int coll_lane;  /* whole collective calls, reads too, on the file's lane */

/* The last component of path: error texts name the file, but Open MPI's
 * length limit makes resonio shorten a long path from the front. */
static const char *tail(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
static int handler_calls;

static void count_handler(MPI_File *fh, int *code, ...)
{
    (void)fh;
    (void)code;
    handler_calls++;
}

static long long queued(rio_file *fh)
{
    struct rio_stats s;
    s.size = sizeof s;
    rio_stats_get(fh, &s);
    return s.nb_queued;
}

static long long ran(rio_file *fh)
{
    struct rio_stats s;
    s.size = sizeof s;
    rio_stats_get(fh, &s);
    return s.nb_background;
}

/* A new file prefix+path opened with info, which is freed. */
static rio_file *open_info(const char *prefix, const char *path, MPI_Info info)
{
    char name[600];
    snprintf(name, sizeof name, "%s%s", prefix, path);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = NULL;
    RT_OK(rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MPI_Info_free(&info);
    return fh;
}

static rio_file *open_new(const char *prefix, const char *path, const char *key, const char *val)
{
    return open_info(prefix, path, rt_info(key, val, NULL));
}

/* A slow file for the collective checks, independent named: below
 * MULTIPLE only writes from the caller's buffer (each rank its own data)
 * are left to the lane; an aggregator's, and those of the calls auto's
 * selector measures, are made at issue. */
static rio_file *open_coll(const char *path)
{
    return open_info(
        "delay:", path, rt_info("resonio_delay", DELAY, "resonio_strategy", "independent", NULL));
}

/* Rank r's region of path must hold pat(r, o) over [off, off + n). */
static void check_region(const char *path, long long off, long long n, const char *what)
{
    unsigned char *b = malloc((size_t)n);
    long long got = rt_pread(path, b, (size_t)n, off);
    CHECK(got == n, "%s: %lld of %lld bytes in the file", what, got, n);
    if (got == n)
        CHECK_PAT(b, (size_t)n, rt_rank, off, "%s", what);
    free(b);
}

static void t_overlap(void)
{
    char path[512];
    rt_path(path, sizeof path, "overlap");
    rio_file *fh = open_new("delay:", path, "resonio_delay", DELAY);
    if (!fh)
        return;
    unsigned char *buf = malloc(REG);
    long long off = (long long)rt_rank * REG;
    rt_fill(buf, REG, rt_rank, off);
    MPI_Request req;
    RT_OK(rio_file_iwrite_at(fh, off, buf, REG, MPI_BYTE, &req));
    int flag = -1;
    MPI_Status st;
    MPI_Test(&req, &flag, &st);
    if (background) {
        CHECK(flag == 0, "overlap: MPI_Test right after the issue says done");
        CHECK(queued(fh) == 1, "overlap: %lld calls queued, expected 1", queued(fh));
        /* the job sleeps in storage for 0.3 s: it cannot have run yet */
        CHECK(ran(fh) == 0, "overlap: the job ran before the caller came back");
    } else {
        CHECK(flag == 1, "overlap: the synchronous path returned a request not done");
        CHECK(queued(fh) == 0, "overlap: %lld calls queued on the synchronous path",
              queued(fh));
    }
    if (!flag)
        RT_OK(MPI_Wait(&req, &st));
    CHECK_STATUS(&st, MPI_BYTE, REG, REG, "overlap: status");
    CHECK(ran(fh) == (background ? 1 : 0), "overlap: %lld jobs ran", ran(fh));
    RT_OK(rio_file_close(&fh));
    check_region(path, off, REG, "overlap");
    free(buf);
}

/* The whole affinity of the process: every online processor.  0 when
 * there is only one (no other processor to wake a thread on). */
static int widen_affinity(cpu_set_t *all)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    CPU_ZERO(all);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++)
        CPU_SET((int)c, all);
    if (n < 2)
        return 0;
    CHECK(sched_setaffinity(0, sizeof *all, all) == 0, "wake: sched_setaffinity: %s",
          strerror(errno));
    return 1;
}

/* Every thread of this process whose name starts with rio-: affinity all,
 * scheduling policy policy.  How many there are. */
static int check_threads(const cpu_set_t *all, int policy)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char p[300], name[64] = "";
        snprintf(p, sizeof p, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(p, "r");
        if (!f)
            continue;
        if (!fgets(name, sizeof name, f))
            name[0] = 0;
        fclose(f);
        if (strncmp(name, "rio-", 4))
            continue;
        name[strcspn(name, "\n")] = 0;
        pid_t tid = (pid_t)atoi(e->d_name);
        cpu_set_t m;
        CHECK(sched_getaffinity(tid, sizeof m, &m) == 0 && CPU_EQUAL(&m, all),
              "wake: thread %s (%d) left with %d of the process's %d processors", name,
              (int)tid, CPU_COUNT(&m), CPU_COUNT(all));
        int pol = sched_getscheduler(tid);
        CHECK(pol == policy, "wake: thread %s (%d) runs policy %d, expected %d", name, (int)tid,
              pol, policy);
        n++;
    }
    if (d)
        closedir(d);
    return n;
}

static void t_wake(const cpu_set_t *all, int spread)
{
    const char *e = getenv("RESONIO_IO_WAKE");
    int near = !(e && !strcmp(e, "any"));
    char path[512];
    rt_path(path, sizeof path, "wake");
    rio_file *fh = open_new("", path, NULL, NULL);
    if (!fh)
        return;
    unsigned char *buf = malloc(REG);
    long long off = (long long)rt_rank * REG;
    rt_fill(buf, REG, rt_rank, off);
    enum { CALLS = 8 };
    for (int i = 0; i < CALLS; i++) {
        MPI_Request req;
        RT_OK(rio_file_iwrite_at(fh, off, buf, REG, MPI_BYTE, &req));
        RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        usleep(20000); /* the thread back in its wait before the next call */
    }
    struct rio_stats s;
    s.size = sizeof s;
    RT_OK(rio_stats_get(fh, &s));
    if (background) {
        CHECK(s.nb_background == CALLS, "wake: %lld of %d jobs ran", s.nb_background, CALLS);
        CHECK(s.time_nb_start > 0, "wake: no time from issue to a thread's start counted");
        if (near && spread)
            CHECK(s.nb_near >= 1, "wake: no thread was woken on the caller's processor");
        else
            CHECK(s.nb_near == 0, "wake: %lld threads woken on the caller's processor",
                  s.nb_near);
        int n = check_threads(all, near && spread ? SCHED_BATCH : SCHED_OTHER);
        CHECK(n >= 1, "wake: no thread named rio-io or rio-lane");
    } else {
        CHECK(s.nb_near == 0 && s.time_nb_start == 0,
              "wake: the synchronous path counted %lld near wakes, %.6f s to a start",
              s.nb_near, s.time_nb_start);
    }
    RT_OK(rio_file_close(&fh));
    check_region(path, off, REG, "wake");
    free(buf);
}

static void t_pointer(void)
{
    char path[512];
    rt_path(path, sizeof path, "pointer");
    rio_file *fh = open_new("", path, NULL, NULL);
    if (!fh)
        return;
    long long off = (long long)rt_rank * REG, half = REG / 2;
    unsigned char *buf = malloc(REG);
    rt_fill(buf, REG, rt_rank, off);
    RT_OK(rio_file_seek(fh, off, MPI_SEEK_SET));
    MPI_Request r[2];
    RT_OK(rio_file_iwrite(fh, buf, (int)half, MPI_BYTE, &r[0]));
    MPI_Offset p = -1;
    RT_OK(rio_file_get_position(fh, &p));
    CHECK(p == off + half, "pointer: position %lld after the first issue, expected %lld",
          (long long)p, off + half);
    RT_OK(rio_file_iwrite(fh, buf + half, (int)half, MPI_BYTE, &r[1]));
    MPI_Status st[2];
    RT_OK(MPI_Waitall(2, r, st));
    CHECK_STATUS(&st[0], MPI_BYTE, (int)half, (int)half, "pointer: first status");
    CHECK_STATUS(&st[1], MPI_BYTE, (int)half, (int)half, "pointer: second status");
    /* read back through the pointer, in the background too */
    unsigned char *in = calloc(1, REG);
    RT_OK(rio_file_seek(fh, off, MPI_SEEK_SET));
    MPI_Request rr;
    RT_OK(rio_file_iread(fh, in, REG, MPI_BYTE, &rr));
    RT_OK(MPI_Wait(&rr, &st[0]));
    CHECK_STATUS(&st[0], MPI_BYTE, REG, REG, "pointer: read status");
    CHECK_PAT(in, REG, rt_rank, off, "pointer: read back");
    /* a read across the end of file: the status counts what was there */
    MPI_Barrier(MPI_COMM_WORLD); /* every rank's writes are in */
    long long end = (long long)rt_nprocs * REG;
    memset(in, 0, REG);
    RT_OK(rio_file_iread_at(fh, end - 100, in, 1000, MPI_BYTE, &rr));
    RT_OK(MPI_Wait(&rr, &st[0]));
    CHECK_STATUS(&st[0], MPI_BYTE, 100, 100, "pointer: read across the end of file");
    CHECK_PAT(in, 100, rt_nprocs - 1, end - 100, "pointer: read across the end of file");
    RT_OK(rio_file_close(&fh));
    check_region(path, off, REG, "pointer");
    free(buf);
    free(in);
}

static void t_shared(void)
{
    enum { L = 4096 };
    char path[512];
    rt_path(path, sizeof path, "shared");
    rio_file *fh = open_new("", path, NULL, NULL);
    if (!fh)
        return;
    unsigned char b[2][L];
    MPI_Request r[2];
    for (int k = 0; k < 2; k++) {
        memset(b[k], 1 + rt_rank * 2 + k, L);
        RT_OK(rio_file_iwrite_shared(fh, b[k], L, MPI_BYTE, &r[k]));
    }
    MPI_Status st[2];
    RT_OK(MPI_Waitall(2, r, st));
    for (int k = 0; k < 2; k++)
        CHECK_STATUS(&st[k], MPI_BYTE, L, L, "shared: status %d", k);
    RT_OK(rio_file_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *f = RT_SLURP(path, &len);
        CHECK(len == 2LL * L * rt_nprocs, "shared: file of %lld bytes, expected %lld", len,
              2LL * L * rt_nprocs);
        int *where = malloc(sizeof(int) * 2 * (size_t)rt_nprocs);
        for (int i = 0; i < 2 * rt_nprocs; i++)
            where[i] = -1;
        for (long long blk = 0; f && (blk + 1) * L <= len; blk++) {
            unsigned char v = f[blk * L];
            int whole = 1;
            for (int i = 1; i < L; i++)
                whole &= f[blk * L + i] == v;
            CHECK(whole && v >= 1 && v <= 2 * rt_nprocs, "shared: block %lld mixed or foreign",
                  blk);
            if (whole && v >= 1 && v <= 2 * rt_nprocs) {
                CHECK(where[v - 1] < 0, "shared: block of rank %d, write %d, twice",
                      (v - 1) / 2, (v - 1) % 2);
                where[v - 1] = (int)blk;
            }
        }
        for (int q = 0; q < rt_nprocs; q++)
            CHECK(where[2 * q] >= 0 && where[2 * q + 1] > where[2 * q],
                  "shared: rank %d's writes at blocks %d and %d, not in issue order", q,
                  where[2 * q], where[2 * q + 1]);
        free(where);
        free(f);
    }
}

static void t_requests(void)
{
    enum { N = 4, PIECE = REG / 8 };
    char path[512];
    rt_path(path, sizeof path, "requests");
    rio_file *fh = open_new("delay:", path, "resonio_delay", "req=100000");
    if (!fh)
        return;
    long long off = (long long)rt_rank * REG;
    unsigned char *buf = malloc(REG);
    rt_fill(buf, REG, rt_rank, off);

    /* MPI_Testany until all are done: each index once, each count right */
    MPI_Request r[N];
    int seen[N] = {0};
    for (int i = 0; i < N; i++)
        RT_OK(rio_file_iwrite_at(fh, off + i * PIECE, buf + i * PIECE, PIECE, MPI_BYTE, &r[i]));
    for (int got = 0; got < N;) {
        int idx = MPI_UNDEFINED, flag = 0;
        MPI_Status st;
        RT_OK(MPI_Testany(N, r, &idx, &flag, &st));
        if (!flag)
            continue;
        CHECK(idx >= 0 && idx < N && !seen[idx], "requests: Testany gave index %d", idx);
        if (idx < 0 || idx >= N)
            break;
        seen[idx] = 1;
        CHECK_STATUS(&st, MPI_BYTE, PIECE, PIECE, "requests: Testany status %d", idx);
        got++;
    }

    /* freed before completion: the I/O still happens; sync waits for it */
    MPI_Request fr;
    RT_OK(rio_file_iwrite_at(fh, off + N * PIECE, buf + N * PIECE, PIECE, MPI_BYTE, &fr));
    RT_OK(MPI_Request_free(&fr));
    CHECK(fr == MPI_REQUEST_NULL, "requests: MPI_Request_free left the handle set");
    RT_OK(rio_file_sync(fh));
    check_region(path, off + N * PIECE, PIECE, "requests: freed request's write after sync");
    /* its request is completed all the same, by resonio (MPICH's poll
     * path: the next resonio call) or in MPI's progress (Open MPI) */
    int open = -1;
    for (int i = 0; i < 2000 && (open = rio__async_requests_open()) != 0; i++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
        usleep(1000);
    }
    CHECK(open == 0, "requests: %d generalized requests never completed after a free", open);

    /* cancel: the last of several slow writes is still queued when
     * cancelled (the I/O threads are busy with the others) */
    MPI_Request c[N + 1];
    for (int i = 0; i < N; i++)
        RT_OK(rio_file_iwrite_at(fh, off + i * PIECE, buf + i * PIECE, PIECE, MPI_BYTE, &c[i]));
    unsigned char junk[PIECE];
    memset(junk, 0xEE, sizeof junk);
    long long coff = off + (N + 1) * PIECE;
    RT_OK(rio_file_iwrite_at(fh, coff, junk, PIECE, MPI_BYTE, &c[N]));
    RT_OK(MPI_Cancel(&c[N]));
    MPI_Status cs[N + 1];
    if (background) {
        /* settled at the cancel (in thread mode by a thread of its own,
         * so allowed a few ms), not when an I/O thread frees up: the
         * writes queued ahead of it (100 ms a request, N on 2 threads)
         * are not all done yet */
        int flag = 0, ahead = 1;
        for (int i = 0; i < 50 && !flag; i++) {
            RT_OK(MPI_Test(&c[N], &flag, &cs[N]));
            if (!flag)
                usleep(1000);
        }
        RT_OK(MPI_Testall(N, c, &ahead, cs));
        CHECK(flag == 1, "requests: a cancelled queued job did not complete at once");
        CHECK(ahead == 0, "requests: the jobs queued ahead of the cancelled one already ran");
        if (!flag)
            RT_OK(MPI_Wait(&c[N], &cs[N]));
        RT_OK(MPI_Waitall(N, c, cs));
    } else {
        RT_OK(MPI_Waitall(N + 1, c, cs));
    }
    int cancelled = -1, count = -1;
    MPI_Test_cancelled(&cs[N], &cancelled);
    MPI_Get_count(&cs[N], MPI_BYTE, &count);
    for (int i = 0; i < N; i++)
        CHECK_STATUS(&cs[i], MPI_BYTE, PIECE, PIECE, "requests: Waitall status %d", i);
    if (background) {
        CHECK(cancelled == 1, "requests: a queued job was not cancelled");
        CHECK(count == 0, "requests: the cancelled job reports %d bytes", count);
    } else {
        CHECK(cancelled == 0, "requests: a completed request says cancelled");
    }
    RT_OK(rio_file_close(&fh));
    check_region(path, off, (N + 1) * PIECE, "requests");
    unsigned char back[PIECE];
    long long got = rt_pread(path, back, PIECE, coff);
    if (background) {
        int untouched = 1;
        for (long long i = 0; i < got; i++)
            untouched &= back[i] != 0xEE;
        CHECK(untouched, "requests: the cancelled write moved bytes");
    } else {
        CHECK(got == PIECE && back[0] == 0xEE, "requests: the synchronous write is missing");
    }
    free(buf);
}

/* Two handles of one file, both sieving their writes (romio_ds_write=
 * enable): each rank writes the even 8-byte blocks of its region in the
 * background through one and the odd blocks at once through the other.
 * Each sieved window is read, filled and written back under its lock;
 * with per-process locks the I/O thread's window and the program's held
 * "the" lock together and one write-back undid the other's blocks. */
static void t_sieve_handles(void)
{
    enum { S = 16 << 20 }; /* bytes each handle writes */
    char path[512];
    rt_path(path, sizeof path, "sieve2");
    rio_file *h[2];
    h[0] = open_new("", path, "romio_ds_write", "enable");
    MPI_Info info = rt_info("romio_ds_write", "enable", NULL);
    RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, info, &h[1]));
    MPI_Info_free(&info);
    MPI_Datatype blk;
    RT_OK(MPI_Type_create_resized(MPI_DOUBLE, 0, 16, &blk));
    RT_OK(MPI_Type_commit(&blk));
    long long base = 2LL * S * rt_rank;
    char *data[2];
    for (int k = 0; k < 2; k++) {
        data[k] = malloc(S);
        memset(data[k], (k ? 'a' : 'A') + rt_rank, S);
        RT_OK(rio_file_set_view(h[k], base + 8 * k, MPI_BYTE, blk, "native", MPI_INFO_NULL));
    }
    MPI_Request req;
    RT_OK(rio_file_iwrite_at(h[0], 0, data[0], S, MPI_BYTE, &req));
    RT_OK(rio_file_write_at(h[1], 0, data[1], S, MPI_BYTE, MPI_STATUS_IGNORE));
    RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (int k = 0; k < 2; k++) {
        RT_OK(rio_file_close(&h[k]));
        free(data[k]);
    }
    MPI_Type_free(&blk);
    unsigned char *f = malloc(2 * S);
    long long got = rt_pread(path, f, 2 * S, base), wrong[2] = {0, 0};
    for (long long i = 0; i < got; i++) {
        int k = (int)(i / 8 % 2);
        wrong[k] += f[i] != (unsigned char)((k ? 'a' : 'A') + rt_rank);
    }
    CHECK(got == 2 * S, "sieve2: %lld of %d bytes in the file", got, 2 * S);
    CHECK(!wrong[0] && !wrong[1],
          "sieve2: %lld bytes of the background write and %lld of the blocking one lost",
          wrong[0], wrong[1]);
    free(f);
}

static void t_error(void)
{
    char path[512];
    rt_path(path, sizeof path, "error");
    rio_file *fh = open_new("fault:", path, "resonio_fault", "op=write,every=1,err=ENOSPC");
    if (!fh)
        return;
    MPI_Errhandler eh;
    rio_file_create_errhandler(count_handler, &eh);
    rio_file_set_errhandler(fh, eh);
    unsigned char buf[512];
    rt_fill(buf, sizeof buf, rt_rank, 0);
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    long long off = (long long)rt_rank * REG;
    int rc = rio_file_iwrite_at(fh, off, buf, sizeof buf, MPI_BYTE, &req[0]);
    if (background) {
        RT_OK(rc);
        CHECK(handler_calls == 0, "error: the handler ran at issue");
        /* MPI_Wait returns the job's code (its status's MPI_ERROR is not
         * set by MPI_Wait); MPI_Waitall puts it in the status as well */
        RT_ERR(MPI_Wait(&req[0], MPI_STATUS_IGNORE), MPI_ERR_NO_SPACE, "MPI_File_iwrite_at",
               tail(path));
        RT_OK(rio_file_iwrite_at(fh, off, buf, sizeof buf, MPI_BYTE, &req[0]));
        RT_OK(rio_file_iread_at(fh, off, buf, 0, MPI_BYTE, &req[1]));
        MPI_Status st[2];
        rc = MPI_Waitall(2, req, st);
        CHECK(rc == MPI_ERR_IN_STATUS, "error: Waitall gave class %d, not MPI_ERR_IN_STATUS",
              rt_class(rc));
#ifdef MPICH_VERSION
        /* MPICH puts its own MPI_ERR_OTHER in the status, wrapping the
         * code the query function returned, and leaves the requests after
         * the failed one active (MPI_ERR_PENDING) */
        CHECK(st[0].MPI_ERROR != MPI_SUCCESS, "error: the failed write's status says success");
        if (st[1].MPI_ERROR == MPI_ERR_PENDING)
            st[1].MPI_ERROR = MPI_Wait(&req[1], MPI_STATUS_IGNORE);
#else
        RT_ERR(st[0].MPI_ERROR, MPI_ERR_NO_SPACE, "MPI_File_iwrite_at", tail(path));
#endif
        CHECK(st[1].MPI_ERROR == MPI_SUCCESS, "error: the good read's status has class %d",
              rt_class(st[1].MPI_ERROR));
        CHECK(handler_calls == 0, "error: the file's handler was called from the background");
    } else {
        RT_ERR(rc, MPI_ERR_NO_SPACE, "MPI_File_iwrite_at", tail(path));
        CHECK(handler_calls == 1, "error: the handler ran %d times at issue", handler_calls);
    }
    rio_file_set_errhandler(fh, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    RT_OK(rio_file_close(&fh));
}

static void t_sync_close(void)
{
    char path[512];
    rt_path(path, sizeof path, "sync");
    rio_file *fh = open_new("delay:", path, "resonio_delay", DELAY);
    if (!fh)
        return;
    long long off = (long long)rt_rank * REG;
    unsigned char *buf = malloc(REG);
    rt_fill(buf, REG, rt_rank, off);

    /* sync returns after the write is in the file */
    MPI_Request req;
    RT_OK(rio_file_iwrite_at(fh, off, buf, REG / 2, MPI_BYTE, &req));
    RT_OK(rio_file_sync(fh));
    check_region(path, off, REG / 2, "sync: before the wait");
    CHECK(ran(fh) == (background ? 1 : 0), "sync: %lld jobs ran", ran(fh));
    RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));

    /* set_view with a request outstanding: every rank is told */
    RT_OK(rio_file_iwrite_at(fh, off + REG / 2, buf + REG / 2, REG / 4, MPI_BYTE, &req));
    int rc = rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    if (background)
        RT_ERR(rc, MPI_ERR_OTHER, "MPI_File_set_view", tail(path));
    else
        RT_OK(rc);
    RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));

    /* close with one outstanding: reported, but the I/O ran first and the
     * request can still be waited for */
    RT_OK(rio_file_iwrite_at(fh, off + 3 * REG / 4, buf + 3 * REG / 4, REG / 4, MPI_BYTE, &req));
    rc = rio_file_close(&fh);
    if (background)
        RT_ERR(rc, MPI_ERR_OTHER, "MPI_File_close", tail(path));
    else
        RT_OK(rc);
    CHECK(fh == RIO_FILE_NULL, "close: the handle was not released");
    MPI_Status st;
    RT_OK(MPI_Wait(&req, &st));
    CHECK_STATUS(&st, MPI_BYTE, REG / 4, REG / 4, "close: the late wait's status");
    check_region(path, off, REG, "sync and close");
    free(buf);
}

static void t_coll(void)
{
    enum { K = 3 };
    char path[512];
    rt_path(path, sizeof path, "coll");
    rio_file *fh = open_coll(path);
    if (!fh)
        return;
    long long off = (long long)rt_rank * REG;
    unsigned char *buf = malloc(REG), *back = malloc(REG);
    rt_fill(buf, REG, rt_rank, off);

    /* one call: queued at issue, not run, completed by the wait */
    MPI_Request req;
    RT_OK(rio_file_iwrite_at_all(fh, off, buf, REG, MPI_BYTE, &req));
    int flag = -1;
    MPI_Status st;
    MPI_Test(&req, &flag, &st);
    if (coll_bg) {
        CHECK(flag == 0, "coll: MPI_Test right after the issue says done");
        CHECK(queued(fh) == 1, "coll: %lld calls queued, expected 1", queued(fh));
        /* below MULTIPLE a rank with no writes to make (not an aggregator)
         * runs its job at once; the agreement still waits for the others */
        if (coll_lane)
            CHECK(ran(fh) == 0, "coll: the collective job ran before the caller came back");
    } else {
        CHECK(flag == 1, "coll: the synchronous path returned a request not done");
        CHECK(queued(fh) == 0, "coll: %lld calls queued on the synchronous path", queued(fh));
    }
    if (!flag)
        RT_OK(MPI_Wait(&req, &st));
    CHECK_STATUS(&st, MPI_BYTE, REG, REG, "coll: status");

    /* split: the begin returns before the write ran; the end waits */
    long long q0 = queued(fh), r0 = ran(fh);
    RT_OK(rio_file_write_at_all_begin(fh, off, buf, REG / 2, MPI_BYTE));
    if (coll_bg) {
        CHECK(queued(fh) == q0 + 1, "coll: the split begin was not queued");
        if (coll_lane)
            CHECK(ran(fh) == r0, "coll: the split write ran before its begin returned");
    }
    RT_OK(rio_file_write_at_all_end(fh, buf, &st));
    CHECK_STATUS(&st, MPI_BYTE, REG / 2, REG / 2, "coll: split end status");
    CHECK(ran(fh) == r0 + coll_bg, "coll: %lld jobs ran after the split end", ran(fh) - r0);

    /* issue order: K writes of the same region, the last one's bytes
     * (version K-1) must be the file's; the individual pointer moved at
     * issue, by REG each */
    unsigned char *v = malloc((size_t)K * REG);
    MPI_Request rs[K];
    MPI_Offset fp = -1;
    for (int k = 0; k < K; k++) {
        rt_fill(v + (size_t)k * REG, REG, rt_rank + 16 * k, off);
        RT_OK(rio_file_seek(fh, off, MPI_SEEK_SET));
        RT_OK(rio_file_iwrite_all(fh, v + (size_t)k * REG, REG, MPI_BYTE, &rs[k]));
        RT_OK(rio_file_get_position(fh, &fp));
        CHECK(fp == off + REG, "coll: the pointer is at %lld after the issue, not %lld",
              (long long)fp, off + REG);
    }
    MPI_Status ss[K];
    RT_OK(MPI_Waitall(K, rs, ss));
    for (int k = 0; k < K; k++)
        CHECK_STATUS(&ss[k], MPI_BYTE, REG, REG, "coll: write %d's status", k);

    /* a collective read: in the background too, after the writes */
    RT_OK(rio_file_iread_at_all(fh, off, back, REG, MPI_BYTE, &req));
    MPI_Test(&req, &flag, &st);
    if (coll_bg)
        CHECK(flag == 0, "coll: MPI_Test right after a collective read's issue says done");
    else
        CHECK(flag == 1, "coll: the synchronous path returned a read not done");
    if (!flag)
        RT_OK(MPI_Wait(&req, &st));
    CHECK_STATUS(&st, MPI_BYTE, REG, REG, "coll: read status");
    CHECK_PAT(back, REG, rt_rank + 16 * (K - 1), off, "coll: the read of the last write");

    /* a read across the end of the file (the last rank's second half):
     * its count stops there and its buffer past it keeps its bytes */
    memset(back, 0xEE, REG);
    RT_OK(rio_file_iread_at_all(fh, off + REG / 2, back, REG, MPI_BYTE, &req));
    RT_OK(MPI_Wait(&req, &st));
    int last = rt_rank == rt_nprocs - 1;
    CHECK_STATUS(&st, MPI_BYTE, last ? REG / 2 : REG, last ? REG / 2 : REG,
                 "coll: the status of a read across the end of the file");
    CHECK_PAT(back, REG / 2, rt_rank + 16 * (K - 1), off + REG / 2,
              "coll: the read across the end of the file");
    if (!last)
        CHECK_PAT(back + REG / 2, REG / 2, rt_rank + 1 + 16 * (K - 1), off + REG,
                  "coll: the read across the end of the file (the next rank's)");
    for (int i = REG / 2; last && i < REG; i++)
        if (back[i] != 0xEE) {
            CHECK(0, "coll: byte %d past the end of the file was changed", i);
            break;
        }

    /* freed before completion: the write still happens, before the
     * blocking call that follows (which waits for the lane) */
    RT_OK(rio_file_iwrite_at_all(fh, off + (long long)rt_nprocs * REG, v, REG, MPI_BYTE, &req));
    RT_OK(MPI_Request_free(&req));
    RT_OK(rio_file_read_at_all(fh, off + (long long)rt_nprocs * REG, back, REG, MPI_BYTE, &st));
    CHECK(!memcmp(back, v, REG), "coll: a freed request's write is not in before a later call");

    /* a blocking collective read comes after an outstanding write */
    RT_OK(rio_file_iwrite_at_all(fh, off + (long long)rt_nprocs * REG, buf, REG, MPI_BYTE, &req));
    RT_OK(rio_file_read_at_all(fh, off + (long long)rt_nprocs * REG, back, REG, MPI_BYTE, &st));
    CHECK(!memcmp(back, buf, REG), "coll: the blocking read missed the outstanding write");
    RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    RT_OK(rio_file_close(&fh));

    long long got = rt_pread(path, back, REG, off);
    CHECK(got == REG, "coll: %lld of %d bytes in the file", got, REG);
    if (got == REG)
        CHECK_PAT(back, REG, rt_rank + 16 * (K - 1), off, "coll: the last write's bytes");
    got = rt_pread(path, back, REG, off + (long long)rt_nprocs * REG);
    CHECK(got == REG, "coll: %lld of %d bytes in the second region", got, REG);
    if (got == REG) /* buf's bytes: the pattern of off */
        CHECK_PAT(back, REG, rt_rank, off, "coll: the second region");
    free(v);
    free(back);
    free(buf);
}

/* The selector's state of fh's one write signature. */
static struct rio_select_info write_sig(rio_file *fh)
{
    struct rio_select_info si = {.size = sizeof si};
    int n = 0;
    RT_OK(rio_select_count(fh, &n));
    for (int i = 0; i < n; i++) {
        RT_OK(rio_select_get(fh, i, &si));
        if (si.write)
            return si;
    }
    CHECK(0, "coll held: no write signature among %d", n);
    return si;
}

static void set_delay(rio_file *fh, const char *spec)
{
    MPI_Info info = rt_info("resonio_delay", spec, NULL);
    RT_OK(rio_file_set_info(fh, info));
    MPI_Info_free(&info);
}

static void t_coll_held(void)
{
    char path[512];
    rt_path(path, sizeof path, "held");
    rio_file *fh =
        open_info("delay:", path,
                  rt_info("resonio_delay", "req=2000", "resonio_select_calls", "1",
                          "resonio_select_patience", "1", "resonio_select_reuse", "disable",
                          "resonio_select_candidates", "independent,two_phase", NULL));
    if (!fh)
        return;
    long long off = (long long)rt_rank * REG;
    unsigned char *buf = malloc(REG);
    rt_fill(buf, REG, rt_rank, off);
    struct rio_select_info si = {0};
    for (int i = 0; i < 8 && (i == 0 || si.examining); i++) {
        RT_OK(rio_file_write_at_all(fh, off, buf, REG, MPI_BYTE, MPI_STATUS_IGNORE));
        si = write_sig(fh);
    }
    CHECK(!si.examining && si.chosen[0], "coll held: not decided in 8 calls");
    char chosen[sizeof si.chosen];
    snprintf(chosen, sizeof chosen, "%s", si.chosen);
    int reexams = si.reexams;
    set_delay(fh, "req=400000");
    RT_OK(rio_file_write_at_all(fh, off, buf, REG, MPI_BYTE, MPI_STATUS_IGNORE));
    si = write_sig(fh);
    CHECK(si.examining && si.reexams == reexams + 1,
          "coll held: a call 200 times slower: examining %d, reexams %d (were %d)", si.examining,
          si.reexams, reexams);
    set_delay(fh, "req=2000");
    long long exam = si.exam_calls;
    for (int i = 0; i < 3; i++) {
        MPI_Request req;
        RT_OK(rio_file_iwrite_at_all(fh, off, buf, REG, MPI_BYTE, &req));
        RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        struct rio_coll_info last = {.size = sizeof last};
        RT_OK(rio_coll_last(fh, &last));
        si = write_sig(fh);
        if (coll_bg)
            CHECK(!strcmp(last.strategy, chosen) && si.examining && si.exam_calls == exam,
                  "coll held: nonblocking call %d ran %s (decided: %s), examining %d, exam "
                  "calls %lld (were %lld)",
                  i + 1, last.strategy, chosen, si.examining, si.exam_calls, exam);
    }
    for (int i = 0; i < 8 && si.examining; i++) {
        RT_OK(rio_file_write_at_all(fh, off, buf, REG, MPI_BYTE, MPI_STATUS_IGNORE));
        si = write_sig(fh);
    }
    CHECK(!si.examining && si.chosen[0], "coll held: the blocking calls did not end it");
    RT_OK(rio_file_close(&fh));
    check_region(path, off, REG, "coll held");
    free(buf);
}

/* Below MULTIPLE under Open MPI: rank 1 waits in a receive for a message
 * that rank 0 sends only once its collective write has completed; rank 0's
 * completion needs rank 1's agreement, which Open MPI's progress (inside
 * the receive) must start.  (Under MPICH this program waits forever, as
 * under ROMIO: its generalized requests are polled only when waited on.) */
static void t_coll_progress(void)
{
#ifdef OPEN_MPI
    if (!coll_bg || coll_lane || rt_nprocs < 2)
        return;
    char path[512];
    rt_path(path, sizeof path, "collprog");
    rio_file *fh = open_coll(path);
    if (!fh)
        return;
    unsigned char *buf = malloc(REG);
    long long off = (long long)rt_rank * REG;
    rt_fill(buf, REG, rt_rank, off);
    MPI_Request req;
    int token = 7;
    RT_OK(rio_file_iwrite_at_all(fh, off, buf, REG, MPI_BYTE, &req));
    if (rt_rank == 0) {
        RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        RT_OK(MPI_Send(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD));
    } else if (rt_rank == 1) {
        RT_OK(MPI_Recv(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    } else {
        RT_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    RT_OK(rio_file_close(&fh));
    check_region(path, off, REG, "coll progress");
    free(buf);
#endif
}

static void t_coll_error(void)
{
    char path[512];
    rt_path(path, sizeof path, "collerr");
    rio_file *fh = open_new("", path, NULL, NULL);
    if (!fh)
        return;
    unsigned char buf[512];
    rt_fill(buf, sizeof buf, rt_rank, 0);
    int count = rt_rank == 0 ? -1 : (int)sizeof buf;
    MPI_Request req;
    /* on the lane the error comes at completion; below MULTIPLE it is
     * known (agreed) at issue and returned there */
    int rc = rio_file_iwrite_at_all(fh, 0, buf, count, MPI_BYTE, &req);
    if (coll_lane) {
        RT_OK(rc);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    CHECK(rc != MPI_SUCCESS, "coll error: rank 0's bad count did not fail the call here");
    if (rt_rank == 0)
        RT_ERR(rc, MPI_ERR_COUNT, "MPI_File_iwrite_at_all", tail(path));
    rc = rio_file_write_at_all_begin(fh, 0, buf, count, MPI_BYTE);
    if (coll_lane)
        RT_OK(rc);
    int rc2 = rio_file_write_at_all_end(fh, buf, MPI_STATUS_IGNORE);
    CHECK(rc != MPI_SUCCESS || rc2 != MPI_SUCCESS,
          "coll error: the split call did not fail on this rank");
    RT_OK(rio_file_close(&fh));

    /* the storage full on every rank's writes: every rank's wait says so */
    rt_path(path, sizeof path, "collfull");
    /* independent named, as in t_coll: the writes fail in the background */
    fh = open_info("fault:", path,
                   rt_info("resonio_fault", "op=write,every=1,err=ENOSPC", "resonio_strategy",
                           "independent", NULL));
    if (!fh)
        return;
    count = (int)sizeof buf;
    rc = rio_file_iwrite_at_all(fh, (MPI_Offset)rt_rank * count, buf, count, MPI_BYTE, &req);
    if (coll_bg) {
        RT_OK(rc);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    CHECK(rc != MPI_SUCCESS, "coll error: a full storage did not fail the call here");
    RT_OK(rio_file_close(&fh));

    /* a storage read that fails on rank 0 only, made in the background
     * (below MULTIPLE by the lane, after the exchange at issue): every
     * rank's wait says so, rank 0's with the storage's class */
    rt_path(path, sizeof path, "collrerr");
    const char *spec = rt_rank == 0 ? "op=read,every=1,err=EIO" : "op=open,n=2"; /* never */
    fh = open_info("fault:", path,
                   rt_info("resonio_fault", spec, "resonio_strategy", "independent", NULL));
    if (!fh)
        return;
    RT_OK(rio_file_write_at_all(fh, (MPI_Offset)rt_rank * count, buf, count, MPI_BYTE,
                                MPI_STATUS_IGNORE));
    unsigned char back[sizeof buf];
    rc = rio_file_iread_at_all(fh, (MPI_Offset)rt_rank * count, back, count, MPI_BYTE, &req);
    if (coll_bg) {
        RT_OK(rc);
        rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    if (rt_rank == 0)
        RT_ERR(rc, MPI_ERR_IO, "MPI_File_iread_at_all", tail(path));
    else
        CHECK(rc != MPI_SUCCESS, "coll error: rank 0's failed read did not fail the call here");
    RT_OK(rio_file_close(&fh));
}

int main(int argc, char **argv)
{
    int multiple = 0, provided = MPI_THREAD_SINGLE;
    for (int i = 1; i < argc; i++)
        multiple |= !strcmp(argv[i], "-multiple");
    if (multiple)
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(&argc, &argv);
    MPI_Query_thread(&provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rt_nprocs);
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-fname"))
            rt_fname = argv[i + 1];
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rt_watchdog(120);
    if (multiple && provided != MPI_THREAD_MULTIPLE)
        CHECK(0, "MPI_THREAD_MULTIPLE asked for, level %d provided", provided);
#if defined(MPICH_VERSION) || defined(OPEN_MPI)
    background = 1; /* the poll hook or the progress loop, or the I/O thread */
#else
    background = provided == MPI_THREAD_MULTIPLE;
#endif
    const char *env = getenv("RESONIO_IO_THREADS");
    if (env && !strcmp(env, "0"))
        background = 0;
    /* collective writes: on the file's lane (MULTIPLE), or, below, the
     * engine at issue and the writes left to the lane; collective reads
     * only on the lane */
    coll_bg = background;
    coll_lane = background && provided == MPI_THREAD_MULTIPLE;
    rt_note("thread level %d, %s", provided,
            background ? "background (the I/O threads)" : "synchronous (done at issue)");
    /* before any thread of resonio's starts: they take the process's mask */
    cpu_set_t all;
    int spread = widen_affinity(&all);
    CHECK(spread, "wake: one processor online; the wake on the caller's processor cannot be "
                  "checked here");

    t_wake(&all, spread);
    t_overlap();
    t_pointer();
    t_shared();
    t_requests();
    t_sieve_handles();
    t_error();
    t_sync_close();
    t_coll();
    t_coll_held();
    t_coll_progress();
    t_coll_error();
    return rt_finish();
}
