/*
 * t_cephfs.c — the cephfs: driver (libcephfs in user space) against the
 * ceph-fuse mount of the same file system.  -fname is a path inside the
 * mount, -mount the mount's directory; resonio opens cephfs:/<path below
 * the mount> and everything is checked through the mount, without resonio.
 * The cluster's configuration comes from CEPH_CONF.
 *
 *   layout      a file created through cephfs: with striping_unit,
 *               striping_factor and resonio_object_size has that layout in
 *               the mount's ceph.file.layout; MPI_File_get_info reports it,
 *               also after a reopen without hints; a collective write under
 *               stripe plans over that many targets; every byte verified
 *               through the mount
 *   refused     another layout asked of the non-empty file at create, and a
 *               unit CephFS does not take, are MPI_ERR_IO naming
 *               MPI_File_open, the file and the cause; the file is untouched
 *   size        preallocate and set_size, seen through the mount
 *   atomic      atomic mode (every access under a byte-range lock of the
 *               driver's) writes and reads overlapping ranges; the
 *               overlap holds one rank's bytes whole
 *   locks       the driver's byte-range locks (through the storage layer,
 *               rio__store_*): an exclusive lock of rank 0 holds rank 1's
 *               overlapping exclusive lock back until rank 0 unlocks (1 s
 *               later); shared locks do not wait for each other (2 ranks up)
 *   unreachable a configuration naming a monitor port nobody listens on
 *               (resonio_ceph_conf) makes MPI_File_open fail with MPI_ERR_IO
 *               naming the file and the mount's timeout, within the
 *               timeout resonio_ceph_timeout sets (3 s) and a margin
 *   absent      a missing file opened without MPI_MODE_CREATE is
 *               MPI_ERR_NO_SUCH_FILE
 */
#include "resonio.h"
#include "../mpi/rtest.h"
#include "ceph_test.h"
#include "store/store.h"

#include <fcntl.h>
#include <time.h>

#include <sys/stat.h>
#include <sys/xattr.h>

#define SU 65536
#define SC 3
#define OS (4 * SU)
#define PER_RANK (5 * SU + 1234) /* several object sets, an uneven tail */
#define TIMEOUT_S 3
#define MARGIN_S 15

static const char *mnt;
static char rname[4300]; /* cephfs: name of rt_fname */

/* The cephfs: name of a path in the mount. */
static const char *cephfs_name(char *out, size_t n, const char *path)
{
    snprintf(out, n, "cephfs:%s", path + strlen(mnt));
    return out;
}

static void check_info(rio_file *fh, const char *what)
{
    long long gu = info_num(fh, "striping_unit"), gc = info_num(fh, "striping_factor"),
              go = info_num(fh, "resonio_object_size");
    CHECK(gu == SU && gc == SC && go == OS,
          "%s: get_info reports striping_unit %lld striping_factor %lld resonio_object_size "
          "%lld, expected %d %d %d",
          what, gu, gc, go, SU, SC, OS);
}

static int write_blocks(rio_file *fh)
{
    ceph_write_blocks(fh, PER_RANK);
    struct rio_coll_info ci;
    ceph_last(fh, &ci);
    return ci.ntargets;
}

static unsigned char *mount_slurp(const char *path, long long *len)
{
    return RT_SLURP(path, len);
}

/* Every byte of the file through the mount, on rank 0. */
static void verify_file(const char *what)
{
    ceph_verify_blocks(mount_slurp, rt_fname, PER_RANK, what, "through the mount");
}

static void test_layout(void)
{
    MPI_Info info = ceph_layout_info(SU, SC, OS, "stripe");
    rio_file *fh = NULL;
    if (rt_rank == 0)
        unlink(rt_fname);
    MPI_Barrier(MPI_COMM_WORLD);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, rname, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh))) {
        long long gu = 0, gc = 0, go = 0;
        CHECK(ceph_layout(rt_fname, &gu, &gc, &go) && gu == SU && gc == SC && go == OS,
              "layout: the mount says stripe_unit %lld stripe_count %lld object_size %lld, "
              "expected %d %d %d", gu, gc, go, SU, SC, OS);
        check_info(fh, "layout");
        int T = write_blocks(fh);
        /* the targets are the OSDs of the file's objects */
        int want = ceph_map_targets(fh, (long long)rt_nprocs * PER_RANK, SC, OS);
        CHECK(T == want && want >= 1,
              "layout: stripe planned over %d targets, the file's objects lie on %d OSDs", T,
              want);
        RT_OK(rio_file_close(&fh));
    }
    MPI_Info_free(&info);
    verify_file("layout");

    info = rt_info("resonio_strategy", "stripe", NULL);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, rname, MPI_MODE_RDONLY, info, &fh))) {
        check_info(fh, "reopened");
        char *buf = malloc(PER_RANK);
        MPI_Status st;
        if (RT_OK(rio_file_read_at_all(fh, (long long)rt_rank * PER_RANK, buf, PER_RANK,
                                       MPI_BYTE, &st)))
            CHECK_PAT(buf, PER_RANK, rt_rank, (long long)rt_rank * PER_RANK,
                      "reopened: rank %d's block read through cephfs:", rt_rank);
        free(buf);
        RT_OK(rio_file_close(&fh));
    }
    MPI_Info_free(&info);
}

static void test_refused(void)
{
    long long before = rt_stat_size(rt_fname), su0 = 0, sc0 = 0, os0 = 0;
    ceph_layout(rt_fname, &su0, &sc0, &os0);
    const char *asks[][2] = {{"131072", "2"}, {"1000", "2"}};
    for (int k = 0; k < 2; k++) {
        const char *path = rt_fname;
        char fresh[4096], name[4300];
        if (k == 1) {
            path = rt_path(fresh, sizeof fresh, "badunit");
            if (rt_rank == 0)
                unlink(path);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        cephfs_name(name, sizeof name, path);
        MPI_Info info = rt_info("striping_unit", asks[k][0], "striping_factor", asks[k][1], NULL);
        rio_file *fh = NULL;
        int rc = rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        if (RT_ERR(rc, MPI_ERR_IO, "MPI_File_open", name)) {
            char s[MPI_MAX_ERROR_STRING];
            rt_errstr(rc, s);
            CHECK(strstr(s, k == 0 ? "not empty" : "refuses"), "refused %d: cause not named: %s",
                  k, s);
        }
        if (rc == MPI_SUCCESS)
            rio_file_close(&fh);
        MPI_Info_free(&info);
        MPI_Barrier(MPI_COMM_WORLD);
        if (k == 1 && rt_rank == 0)
            unlink(path);
    }
    long long su = 0, sc = 0, os = 0;
    ceph_layout(rt_fname, &su, &sc, &os);
    CHECK(rt_stat_size(rt_fname) == before && su == su0 && sc == sc0 && os == os0,
          "refused: the file changed: %lld bytes (was %lld), layout %lld %lld %lld (was %lld "
          "%lld %lld)", rt_stat_size(rt_fname), before, su, sc, os, su0, sc0, os0);
    verify_file("refused");
}

static void test_size(void)
{
    char path[4096], name[4300];
    rt_path(path, sizeof path, "size");
    cephfs_name(name, sizeof name, path);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = NULL;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh)))
        return;
    const MPI_Offset big = 3 * 1048576 + 17, small = 70000;
    MPI_Offset got = -1;
    RT_OK(rio_file_preallocate(fh, big));
    RT_OK(rio_file_get_size(fh, &got));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(got == big && rt_stat_size(path) == big,
          "preallocate: size %lld through cephfs:, %lld through the mount, expected %lld",
          (long long)got, rt_stat_size(path), (long long)big);
    RT_OK(rio_file_set_size(fh, small));
    RT_OK(rio_file_sync(fh));
    RT_OK(rio_file_get_size(fh, &got));
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(got == small && rt_stat_size(path) == small,
          "set_size: size %lld through cephfs:, %lld through the mount, expected %lld",
          (long long)got, rt_stat_size(path), (long long)small);
    if (rt_rank == 0) { /* what preallocate gave reads as zeros */
        unsigned char z[4096];
        long long n = rt_pread(path, z, sizeof z, small - (long long)sizeof z);
        int nz = 0;
        for (long long i = 0; i < n; i++)
            nz += z[i] != 0;
        CHECK(n == (long long)sizeof z && nz == 0,
              "preallocate: the last %zu bytes read %lld bytes, %d not zero", sizeof z, n, nz);
    }
    RT_OK(rio_file_close(&fh));
    if (rt_rank == 0)
        unlink(path);
}

/* Every rank writes [0, OV) in atomic mode with its own pattern at its own
 * base; the file ends up holding one rank's bytes, whole. */
#define OV (3 * SU + 999)
static void test_atomic(void)
{
    char path[4096], name[4300];
    rt_path(path, sizeof path, "atomic");
    cephfs_name(name, sizeof name, path);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = NULL;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh)))
        return;
    RT_OK(rio_file_set_atomicity(fh, 1));
    unsigned char *buf = malloc(OV), *rb = malloc(OV);
    rt_fill(buf, OV, rt_rank, 0);
    MPI_Status st;
    for (int round = 0; round < 3; round++)
        RT_OK(rio_file_write_at(fh, 0, buf, OV, MPI_BYTE, &st));
    /* a read under a shared lock sees one writer's bytes whole */
    if (RT_OK(rio_file_read_at(fh, 0, rb, OV, MPI_BYTE, &st))) {
        int q = 0;
        while (q < rt_nprocs && rt_find_bad(rb, OV, q, 0) >= 0)
            q++;
        CHECK(q < rt_nprocs, "atomic: the read holds no single rank's bytes");
    }
    RT_OK(rio_file_close(&fh));
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *all = RT_SLURP(path, &len);
        int q = 0;
        while (all && len == OV && q < rt_nprocs && rt_find_bad(all, OV, q, 0) >= 0)
            q++;
        CHECK(all && len == OV && q < rt_nprocs,
              "atomic: the file (%lld bytes) holds no single rank's bytes", len);
        free(all);
        unlink(path);
    }
    free(buf);
    free(rb);
}

/* rank 0 holds [0, 100) for HOLD_S while rank 1 asks for [50, 60) */
#define HOLD_S 1.0
static void test_locks(void)
{
    char path[4096], name[4300];
    struct rio_store st;
    rt_path(path, sizeof path, "locks");
    cephfs_name(name, sizeof name, path);
    memset(&st, 0, sizeof st);
    if (rt_nprocs < 2)
        return;
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = rio__store_open(&st, name, O_RDWR | O_CREAT, 0644, NULL);
    CHECK(rc == 0, "locks: rio__store_open(%s): %d", name, rc);
    int ok = rc == 0 && st.ops->lock != NULL;
    CHECK(rc != 0 || st.ops->lock, "locks: the cephfs driver has no lock operation");
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    for (int excl = 1; ok && excl >= 0; excl--) {
        double dt = 0;
        if (rt_rank == 0)
            CHECK((rc = st.ops->lock(&st, 0, 100, excl)) == 0, "locks: rank 0's lock: %d", rc);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rt_rank == 0) {
            struct timespec ts = {(time_t)HOLD_S, (long)((HOLD_S - (time_t)HOLD_S) * 1e9)};
            nanosleep(&ts, NULL);
            CHECK((rc = st.ops->unlock(&st, 0, 100)) == 0, "locks: rank 0's unlock: %d", rc);
        } else if (rt_rank == 1) {
            double t0 = MPI_Wtime();
            CHECK((rc = st.ops->lock(&st, 50, 10, excl)) == 0, "locks: rank 1's lock: %d", rc);
            dt = MPI_Wtime() - t0;
            CHECK((rc = st.ops->unlock(&st, 50, 10)) == 0, "locks: rank 1's unlock: %d", rc);
            if (excl)
                CHECK(dt >= 0.8 * HOLD_S, "locks: rank 1's exclusive lock came after %.3f s, "
                      "while rank 0 held an overlapping one for %.1f s", dt, HOLD_S);
            else
                CHECK(dt < 0.5 * HOLD_S, "locks: rank 1's shared lock waited %.3f s for rank "
                      "0's shared one", dt);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    rio__store_close(&st); /* harmless after a failed open */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(path);
}

static void test_absent(void)
{
    char path[4096], name[4300];
    rt_path(path, sizeof path, "absent");
    cephfs_name(name, sizeof name, path);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = NULL;
    int rc = rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    RT_ERR(rc, MPI_ERR_NO_SUCH_FILE, "MPI_File_open", name);
    if (rc == MPI_SUCCESS)
        rio_file_close(&fh);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(240);
    mnt = rt_arg("-mount");
    CHECK(mnt != NULL, "-mount <the ceph-fuse mount of the cluster> is required");
    CHECK(getenv("CEPH_CONF") != NULL, "CEPH_CONF (the cluster's configuration) is not set");
    if (!mnt || !getenv("CEPH_CONF"))
        return rt_finish();
    size_t n = strlen(mnt);
    CHECK(!strncmp(rt_fname, mnt, n) && rt_fname[n] == '/', "-fname %s is not below -mount %s",
          rt_fname, mnt);
    char buf[8];
    int on_ceph = getxattr(mnt, "ceph.dir.entries", buf, 0) >= 0;
    CHECK(on_ceph, "%s is not a CephFS mount (start a cluster with tools/resonio-ceph)", mnt);
    if (rt_errs || !on_ceph)
        return rt_finish();
    cephfs_name(rname, sizeof rname, rt_fname);
    test_layout();
    test_refused();
    test_size();
    test_atomic();
    test_absent();
    test_locks();
    ceph_check_unreachable(rname, "cannot mount", TIMEOUT_S, MARGIN_S);
    if (rt_rank == 0)
        unlink(rt_fname);
    return rt_finish();
}
