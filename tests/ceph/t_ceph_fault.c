/*
 * t_ceph_fault.c — an OSD killed under collective I/O through cephfs:
 * (issue 27 item 7).
 *
 * The cluster is the test's own (ceph_fault.sh starts it with bluestore
 * OSDs, whose data survive a SIGKILL, and the ceph-fuse mount, and stops
 * it however the test ends); its metadata pool lives on osd.0 alone
 * (tools/resonio-ceph), so killing another OSD stops part of the file's
 * data and nothing else.  Two files, each striped over the OSDs:
 *
 *   world  opened by every rank (2): the metadata server gives no rank
 *          the right to cache its data, so reads and writes go to the OSDs
 *   solo   opened by rank 0 alone (MPI_COMM_SELF): a single writer, which
 *          libcephfs would serve from its object cache if the driver left
 *          the cache on (then the write "succeeded" into the cache and the
 *          close hung on the dirty data: see src/store/cephfs.c)
 *
 *   1. write each file (one collective write, sync, close) and verify
 *      every byte of it through the mount;
 *   2. open both again, kill the OSD other than osd.0 that holds most of
 *      the world file's objects (by the engine's own OSD map,
 *      rio_file_get_servers);
 *   3. on each file a collective write of new bytes, the sync, and a
 *      collective read each fail on every rank of the file with
 *      MPI_ERR_IO and a message naming the call, the file and the cause
 *      (an OSD that did not answer: "timed out", and the hint
 *      resonio_ceph_timeout that bounds the wait), the slowest rank within
 *      BOUND_S of the call; the close, which may fail or not, too;
 *   4. start the OSD again (the tool waits until it serves); the same
 *      open, collective write, sync, read and close succeed, the read
 *      returns every byte, and the file itself (read through the mount)
 *      holds every byte.
 *
 * A third file goes the same way through the rados: driver
 * (rados:resonio/<name>, opened by every rank), checked from its objects
 * with librados (rados_test.h): its collective write and read fail with
 * the OSD down, its sync may succeed (RADOS acknowledges a write only once
 * it is stored, so a sync has nothing to flush; the write itself failed),
 * and after the restart every byte verifies.
 *
 * resonio_ceph_timeout is TIMEOUT_S: the driver sets libcephfs's OSD
 * operation timeout to it.  Measured (Open MPI, whose stage runs it): the
 * write fails in 4.0 s, the read in 8.0 s (the driver reads a slow read again one
 * object at a time, since libcephfs drops a striped read's errors), the
 * sync and close at once.  A watchdog turns a hang into a failure.
 *
 * Arguments: -fname <path in the mount>, -mount <the mount>, -dir <the
 * cluster's directory>, -tool <tools/resonio-ceph>.
 */
#include "resonio.h"
#include "../mpi/rtest.h"
#include "rados_test.h"

#include <time.h>

#define SU 65536
#define SC 3
#define OS (4 * SU)
/* Bytes a rank writes: 16 objects (4 object sets) in each file, and an
 * uneven tail, so that each OSD is likely to hold objects of both */
#define WORLD_PER_RANK (2 * 1024 * 1024 + 4321)
#define SOLO_PER_RANK (4 * 1024 * 1024 + 4321)
#define TIMEOUT_S 4
#define BOUND_S 14 /* twice the timeout (a read) and a margin */
#define NOBJ 16
#define RIO_TEST_MIN(a, b) ((a) < (b) ? (a) : (b))

static const char *mnt, *dir, *tool;

struct tfile {
    MPI_Comm comm;
    int rank, nprocs;
    long long per_rank; /* bytes each rank writes */
    char path[4200];  /* in the mount; for a rados: file, POOL/NAME */
    char rname[4300]; /* its cephfs: or rados: name */
    int rados;        /* a rados: file */
    rio_file *fh;
};

static void fill(const struct tfile *t, unsigned char *b, int gen)
{
    long long base = (long long)t->rank * t->per_rank;
    for (long long i = 0; i < t->per_rank; i++)
        b[i] = pat(gen, base + i);
}

/* The file through the mount: every byte of generation gen. */
static void verify_file(const struct tfile *t, int gen, const char *what)
{
    if (t->rank != 0)
        return;
    long long len = 0, bad = 0, first = -1, want = (long long)t->per_rank * t->nprocs;
    unsigned char *b = t->rados ? rados_t_slurp(t->path, &len) : RT_SLURP(t->path, &len);
    if (!b)
        return;
    CHECK(len == want, "%s, %s: the file holds %lld bytes, expected %lld", t->path, what, len,
          want);
    for (long long i = 0; i < len; i++)
        if (b[i] != pat(gen, i) && bad++ == 0)
            first = i;
    CHECK(bad == 0, "%s, %s: %lld bytes of the file differ, the first at %lld", t->path, what,
          bad, first);
    free(b);
}

static MPI_Info hints(void)
{
    char su[16], sc[16], os[16], tmo[16];
    snprintf(su, sizeof su, "%d", SU);
    snprintf(sc, sizeof sc, "%d", SC);
    snprintf(os, sizeof os, "%d", OS);
    snprintf(tmo, sizeof tmo, "%d", TIMEOUT_S);
    return rt_info("striping_unit", su, "striping_factor", sc, "resonio_object_size", os,
                   "resonio_ceph_timeout", tmo, NULL);
}

static int t_open(struct tfile *t, int amode)
{
    MPI_Info info = hints();
    int ok = RT_OK(rio_file_open(t->comm, t->rname, amode, info, &t->fh));
    MPI_Info_free(&info);
    return ok;
}

/* The slowest rank's time for a call the file's ranks started together. */
static double slowest(const struct tfile *t, double dt)
{
    double m = 0;
    MPI_Allreduce(&dt, &m, 1, MPI_DOUBLE, MPI_MAX, t->comm);
    return m;
}

static int run_tool(const char *cmd, int id)
{
    int rc = 0;
    if (rt_rank == 0) {
        char line[8192];
        snprintf(line, sizeof line, "'%s' %s --dir '%s' --id %d", tool, cmd, dir, id);
        double t0 = MPI_Wtime();
        rc = system(line);
        printf("%s osd.%d: %.1f s\n", cmd, id, MPI_Wtime() - t0);
        fflush(stdout);
        CHECK(rc == 0, "%s failed (%d)", line, rc);
    }
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc == 0;
}

/* A call that must fail within the bound: class, message and time. */
static void expect_fault(const struct tfile *t, int rc, double dt, const char *op)
{
    char m[MPI_MAX_ERROR_STRING];
    double worst = slowest(t, dt);
    if (RT_ERR(rc, MPI_ERR_IO, op, t->rname))
        CHECK(strstr(rt_errstr(rc, m), "timed out") && strstr(m, "resonio_ceph_timeout"),
              "%s on %s: the message does not name the cause (a timeout, and the hint that "
              "sets it): %s", op, t->rname, m);
    printf("[%d] %s on %s with an OSD down: %.1f s: %s\n", rt_rank, op, t->rname, dt,
           rc == MPI_SUCCESS ? "success" : rt_errstr(rc, m));
    fflush(stdout);
    CHECK(worst <= BOUND_S, "%s on %s with an OSD down: the slowest rank took %.1f s, bound %d s",
          op, t->rname, worst, BOUND_S);
}

/* Open, collective write of generation gen, sync, read back, close, and
 * the file through the mount: all must succeed, every byte verified. */
static void good_round(struct tfile *t, int gen, const char *what)
{
    unsigned char *w = malloc(t->per_rank), *r = malloc(t->per_rank);
    if (w && r && t_open(t, MPI_MODE_RDWR | MPI_MODE_CREATE)) {
        MPI_Offset off = (MPI_Offset)t->rank * t->per_rank;
        fill(t, w, gen);
        RT_OK(rio_file_write_at_all(t->fh, off, w, t->per_rank, MPI_BYTE, MPI_STATUS_IGNORE));
        RT_OK(rio_file_sync(t->fh));
        memset(r, 0, t->per_rank);
        RT_OK(rio_file_read_at_all(t->fh, off, r, t->per_rank, MPI_BYTE, MPI_STATUS_IGNORE));
        long long bad = 0;
        for (long long i = 0; i < t->per_rank; i++)
            bad += r[i] != w[i];
        CHECK(bad == 0, "%s, %s: the collective read returned %lld wrong bytes", t->rname, what,
              bad);
        RT_OK(rio_file_close(&t->fh));
        MPI_Barrier(t->comm);
        verify_file(t, gen, what);
    } else {
        CHECK(w && r, "out of memory");
    }
    free(w);
    free(r);
}

/* The OSD other than osd.0 that holds most objects of every one of the n
 * files (the fewest of any file is the largest), by the engine's maps
 * (filled by a collective write on each), on rank 0. */
static int victim(struct tfile *const *f, int n)
{
    int cnt[3][64] = {{0}}, best = -1, least[64] = {0};
    for (int k = 0; k < n && k < 3; k++) {
        int sv[NOBJ];
        if (!RT_OK(rio_file_get_servers(f[k]->fh, 0, NOBJ, sv)))
            return -1;
        for (int i = 0; i < NOBJ; i++)
            if (sv[i] > 0 && sv[i] < 64)
                cnt[k][sv[i]]++;
    }
    for (int o = 1; o < 64; o++) {
        least[o] = NOBJ;
        for (int k = 0; k < n && k < 3; k++)
            least[o] = RIO_TEST_MIN(least[o], cnt[k][o]);
        if (least[o] > 0 && (best < 0 || least[o] > least[best]))
            best = o;
    }
    CHECK(best > 0, "no OSD other than osd.0 holds objects of every file: nothing to kill");
    if (best > 0)
        for (int k = 0; k < n && k < 3; k++)
            printf("osd.%d holds %d of the first %d objects of %s\n", best, cnt[k][best], NOBJ,
                   f[k]->rname);
    return best;
}

/* Step 3 on an open file: write, sync, read fail within the bound; the
 * read, had it succeeded, holds no byte that was never written. */
static void faulty_round(struct tfile *t)
{
    unsigned char *w = malloc(t->per_rank), *r = malloc(t->per_rank), *old = malloc(t->per_rank);
    MPI_Offset off = (MPI_Offset)t->rank * t->per_rank;
    if (!w || !r || !old) {
        CHECK(0, "out of memory");
    } else {
        fill(t, old, 1);
        fill(t, w, 2);
        double t0 = MPI_Wtime();
        int rc = rio_file_write_at_all(t->fh, off, w, t->per_rank, MPI_BYTE, MPI_STATUS_IGNORE);
        expect_fault(t, rc, MPI_Wtime() - t0, "MPI_File_write_at_all");
        t0 = MPI_Wtime();
        rc = rio_file_sync(t->fh);
        if (t->rados) /* nothing to flush: success or the error, within the bound */
            CHECK(slowest(t, MPI_Wtime() - t0) <= BOUND_S, "MPI_File_sync on %s: beyond %d s",
                  t->rname, BOUND_S);
        else
            expect_fault(t, rc, MPI_Wtime() - t0, "MPI_File_sync");
        t0 = MPI_Wtime();
        rc = rio_file_read_at_all(t->fh, off, r, t->per_rank, MPI_BYTE, MPI_STATUS_IGNORE);
        expect_fault(t, rc, MPI_Wtime() - t0, "MPI_File_read_at_all");
        if (rc == MPI_SUCCESS) {
            /* each byte is the old or the new one (the failed write may
             * have reached the live OSDs); anything else was lost */
            long long bad = 0, first = -1;
            for (long long i = 0; i < t->per_rank; i++)
                if (r[i] != old[i] && r[i] != w[i] && bad++ == 0)
                    first = i;
            CHECK(bad == 0, "%s: the read that succeeded with an OSD down returned %lld bytes "
                  "that were never written, the first at %lld", t->rname, bad, first);
        }
    }
    double t0 = MPI_Wtime();
    int rc = rio_file_close(&t->fh);
    double worst = slowest(t, MPI_Wtime() - t0);
    char m[MPI_MAX_ERROR_STRING];
    printf("[%d] MPI_File_close on %s with an OSD down: %.1f s: %s\n", rt_rank, t->rname, worst,
           rc == MPI_SUCCESS ? "success" : rt_errstr(rc, m));
    CHECK(worst <= BOUND_S, "MPI_File_close on %s with an OSD down: %.1f s, bound %d s", t->rname,
          worst, BOUND_S);
    free(w);
    free(r);
    free(old);
}

static void t_init(struct tfile *t, MPI_Comm comm, const char *suffix, long long per_rank)
{
    t->comm = comm;
    t->per_rank = per_rank;
    MPI_Comm_rank(comm, &t->rank);
    MPI_Comm_size(comm, &t->nprocs);
    rt_path(t->path, sizeof t->path, suffix);
    snprintf(t->rname, sizeof t->rname, "cephfs:%s", t->path + strlen(mnt));
    t->rados = 0;
    t->fh = NULL;
}

/* The rados: file of the test, in the cluster's pool resonio. */
static void t_init_rados(struct tfile *t, long long per_rank)
{
    t_init(t, MPI_COMM_WORLD, "rados", per_rank);
    const char *base = strrchr(t->path, '/') + 1;
    char name[256];
    snprintf(name, sizeof name, "%s", base);
    snprintf(t->path, sizeof t->path, "resonio/%s", name);
    snprintf(t->rname, sizeof t->rname, "rados:%s", t->path);
    t->rados = 1;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(150); /* a normal run takes 45 s */
    mnt = rt_arg("-mount");
    dir = rt_arg("-dir");
    tool = rt_arg("-tool");
    if (!mnt || !dir || !tool || strncmp(rt_fname, mnt, strlen(mnt))) {
        CHECK(0, "usage: -fname <path in the mount> -mount <mount> -dir <cluster> -tool <tool>");
        return rt_finish();
    }
    struct tfile world, solo, rad;
    t_init(&world, MPI_COMM_WORLD, "world", WORLD_PER_RANK);
    t_init(&solo, MPI_COMM_SELF, "solo", SOLO_PER_RANK);
    t_init_rados(&rad, WORLD_PER_RANK);
    struct tfile *every[] = {&world, &rad, &solo}; /* solo last: rank 0's alone */

    /* 1. the files over the OSDs, every byte verified */
    for (int k = 0; k < 3; k++)
        if (k < 2 || rt_rank == 0)
            good_round(every[k], 1, "before the fault");

    /* 2. open them again, then kill an OSD that holds some of each; the
     * same bytes written again fill the engine's OSD maps */
    int osd = -1, ok = 1;
    unsigned char *w = malloc(SOLO_PER_RANK);
    CHECK(w != NULL, "out of memory");
    ok = w != NULL;
    for (int k = 0; k < 2 && ok; k++)
        if ((ok = t_open(every[k], MPI_MODE_RDWR))) {
            fill(every[k], w, 1);
            ok = RT_OK(rio_file_write_at_all(every[k]->fh, (MPI_Offset)rt_rank * WORLD_PER_RANK,
                                             w, WORLD_PER_RANK, MPI_BYTE, MPI_STATUS_IGNORE));
        }
    if (rt_rank == 0 && ok && (ok = t_open(&solo, MPI_MODE_RDWR))) {
        fill(&solo, w, 1);
        ok = RT_OK(rio_file_write_at_all(solo.fh, 0, w, SOLO_PER_RANK, MPI_BYTE,
                                         MPI_STATUS_IGNORE));
        if (ok)
            osd = victim(every, 3);
    }
    free(w);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Bcast(&osd, 1, MPI_INT, 0, MPI_COMM_WORLD);

    /* 3. with the OSD down: every call fails, bounded */
    if (ok && osd > 0 && run_tool("osd-stop", osd)) {
        for (int k = 0; k < 3; k++)
            if (k < 2 || rt_rank == 0)
                faulty_round(every[k]);
        /* 4. the OSD back: the same calls succeed, every byte verified */
        if (run_tool("osd-start", osd))
            for (int k = 0; k < 3; k++)
                if (k < 2 || rt_rank == 0)
                    good_round(every[k], 3, "after the OSD restarted");
    } else {
        for (int k = 0; k < 3; k++)
            if (every[k]->fh)
                rio_file_close(&every[k]->fh);
    }
    return rt_finish();
}
