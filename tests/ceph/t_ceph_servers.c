/*
 * t_ceph_servers.c — the collective engine's targets on CephFS are the
 * OSDs that hold the file's objects, and its map of them is Ceph's.
 *
 * -fname is a path in the ceph-fuse mount, -mount the mount's directory;
 * CEPH_CONF names the cluster.  Each rank writes its half of a file of many
 * small objects (4 stripes of 64 KiB a set, 2 stripes an object) through
 * the cephfs: driver under target_first, and then:
 *   map        rio_file_get_servers for every object equals the primary OSD
 *              the monitor names for that object (`osd map`, asked through
 *              librados by rank 0: the object's name is the file's inode in
 *              hex, a dot, the object number in 8 hex digits), the same on
 *              every rank, and -1 past the objects the call reached;
 *   targets    rio_coll_last names as targets exactly the distinct OSDs of
 *              the map, ascending, gives each of them requests, and says
 *              nothing of stripe columns;
 *   data       every byte, read through the mount;
 *   mount      through the ceph-fuse mount (the posix driver, which asks
 *              the monitor through librados) the map is the same; written
 *              there in 4 collective calls, each reaching objects the map
 *              lacks, the file makes one connection to the cluster (rank
 *              0's), not one per call, and a second file through the
 *              mount none (the process keeps it);
 *   fallback   through the mount with a configuration file that does not
 *              exist, no map: the engine plans over stripe columns,
 *              target_server is -1, ntargets the stripe count, and the
 *              reason says why.
 */
#include "resonio.h"
#include "../mpi/rtest.h"
#include "ceph_test.h"
#include "store/ceph_common.h" /* rio__ceph_connects_made */

#include <rados/librados.h>
#include <sys/stat.h>

#define SU 65536
#define SC 4
#define OS (2 * SU)
#define PER_RANK (8 * SC * SU) /* 4 object sets a rank */
#define NOBJ (2 * PER_RANK / OS)

static const char *mnt;

/* The primary OSD the monitor names for object oid of pool, or -1. */
static int mon_primary(rados_t cl, const char *pool, const char *oid)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "{\"prefix\": \"osd map\", \"pool\": \"%s\", \"object\": \"%s\", \"format\": "
             "\"json\"}",
             pool, oid);
    const char *cmds[1] = {cmd};
    char *out = NULL, *st = NULL;
    size_t outlen = 0, stlen = 0;
    int rc = rados_mon_command(cl, cmds, 1, "", 0, &out, &outlen, &st, &stlen);
    int osd = -1;
    if (rc == 0 && out) {
        char *s = malloc(outlen + 1);
        memcpy(s, out, outlen);
        s[outlen] = '\0';
        char *p = strstr(s, "\"acting_primary\":");
        if (p)
            osd = atoi(p + strlen("\"acting_primary\":"));
        free(s);
    }
    rados_buffer_free(out);
    rados_buffer_free(st);
    return osd;
}

/* Rank 0: every object's primary OSD by the monitor. */
static void check_against_monitor(const int *srv)
{
    struct stat sb;
    long long su, sc, os;
    char pool[128] = "";
    CHECK(stat(rt_fname, &sb) == 0, "stat %s through the mount", rt_fname);
    CHECK(ceph_layout(rt_fname, &su, &sc, &os) && su == SU && sc == SC && os == OS,
          "the file's layout through the mount is not %d/%d/%d", SU, SC, OS);
    ssize_t n = getxattr(rt_fname, "ceph.file.layout.pool", pool, sizeof pool - 1);
    CHECK(n > 0, "the file's pool through the mount");
    pool[n > 0 ? n : 0] = '\0';
    rados_t cl;
    int rc = rados_create(&cl, NULL);
    if (!rc)
        rc = rados_conf_read_file(cl, getenv("CEPH_CONF"));
    if (!rc)
        rc = rados_connect(cl);
    CHECK(rc == 0, "librados connection to the cluster of %s: %s", getenv("CEPH_CONF"),
          strerror(-rc));
    if (rc)
        return;
    int same = 0;
    for (int i = 0; i < NOBJ; i++) {
        char oid[64];
        snprintf(oid, sizeof oid, "%llx.%08x", (unsigned long long)sb.st_ino, i);
        int m = mon_primary(cl, pool, oid);
        CHECK(m >= 0 && m == srv[i], "object %d (%s): the engine says OSD %d, the monitor %d", i,
              oid, srv[i], m);
        same += m == srv[i];
    }
    rados_shutdown(cl);
    printf("%d objects: the engine's map equals the monitor's for %d\n", NOBJ, same);
}

static void test_map(int *srv)
{
    char name[4300];
    snprintf(name, sizeof name, "cephfs:%s", rt_fname + strlen(mnt));
    MPI_Info info = rt_info("striping_unit", "65536", "striping_factor", "4",
                            "resonio_object_size", "131072", "resonio_strategy", "target_first",
                            NULL);
    rio_file *fh;
    if (rt_rank == 0)
        unlink(rt_fname);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (!RT_OK(rc))
        return;
    ceph_write_blocks(fh, PER_RANK);
    RT_OK(rio_file_get_servers(fh, 0, NOBJ + 4, srv));
    for (int i = 0; i < NOBJ; i++)
        CHECK(srv[i] >= 0, "object %d has no server in the engine's map", i);
    for (int i = NOBJ; i < NOBJ + 4; i++)
        CHECK(srv[i] == -1, "object %d, past the file, has server %d", i, srv[i]);
    int all[NOBJ];
    MPI_Allreduce(srv, all, NOBJ, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    CHECK(!memcmp(all, srv, sizeof all), "the ranks' maps differ");

    struct rio_coll_info ci;

    ceph_last(fh, &ci);
    RT_OK(rio_file_close(&fh));
    /* the targets: the map's distinct OSDs, ascending */
    int ids[NOBJ], T = 0;
    for (int i = 0; i < NOBJ; i++) {
        int k = 0;
        while (k < T && ids[k] != srv[i])
            k++;
        if (k == T)
            ids[T++] = srv[i];
    }
    for (int a = 1; a < T; a++) /* insertion sort */
        for (int b = a; b > 0 && ids[b - 1] > ids[b]; b--) {
            int t = ids[b];
            ids[b] = ids[b - 1];
            ids[b - 1] = t;
        }
    CHECK(ci.ntargets == T, "rio_coll_last: %d targets, the map has %d OSDs", ci.ntargets, T);
    for (int t = 0; t < T && t < ci.ntargets; t++) {
        CHECK(ci.target_server[t] == ids[t], "target %d is server %d, expected OSD %d", t,
              ci.target_server[t], ids[t]);
        CHECK(ci.target_reqs[t] > 0, "target %d (OSD %d) got no request", t, ids[t]);
    }
    CHECK(!strstr(ci.reason, "stripe columns"), "reason \"%s\" speaks of stripe columns",
          ci.reason);
    CHECK(!strcmp(ci.strategy, "target_first") && ci.naggs == T,
          "target_first: %s with %d aggregators, expected one per OSD (%d)", ci.strategy,
          ci.naggs, T);

    if (rt_rank == 0) {
        check_against_monitor(srv);
        long long len = 0;
        unsigned char *f = RT_SLURP(rt_fname, &len);
        CHECK(f && len == 2LL * PER_RANK, "file size through the mount %lld, expected %lld", len,
              2LL * PER_RANK);
        for (int r = 0; f && r < 2 && len == 2LL * PER_RANK; r++) {
            long long bad = rt_find_bad(f + (long long)r * PER_RANK, PER_RANK, r,
                                        (long long)r * PER_RANK);
            CHECK(bad < 0, "rank %d's half differs at byte %lld through the mount", r, bad);
        }
        free(f);
    }
}

/* The file opened through the mount (the posix driver) under
 * target_first, with the configuration conf when not NULL, and every
 * rank's block written again with its bytes, in `calls` collective calls
 * (call j writes the j-th part of every block); NULL when the open
 * failed. */
static rio_file *mount_written(const char *conf, int calls)
{
    MPI_Info info = rt_info("resonio_strategy", "target_first", "resonio_ceph_conf", conf, NULL);
    rio_file *fh;
    int rc = rio_file_open(MPI_COMM_WORLD, rt_fname, MPI_MODE_RDWR, info, &fh);
    MPI_Info_free(&info);
    if (!RT_OK(rc))
        return NULL;
    long long part = PER_RANK / calls, base = (long long)rt_rank * PER_RANK;
    char *buf = malloc((size_t)part);
    for (int j = 0; buf && j < calls; j++) {
        MPI_Status st;
        rt_fill(buf, (size_t)part, rt_rank, base + j * part);
        RT_OK(rio_file_write_at_all(fh, base + j * part, buf, (int)part, MPI_BYTE, &st));
    }
    free(buf);
    return fh;
}

/* Through the mount: the same map, from the monitor. */
static void test_mount(const int *want)
{
    long long before = rio__ceph_connects_made();
    rio_file *fh = mount_written(NULL, 4);
    if (!fh)
        return;
    int srv[NOBJ];
    RT_OK(rio_file_get_servers(fh, 0, NOBJ, srv));
    RT_OK(rio_file_close(&fh));
    long long made = rio__ceph_connects_made() - before;
    CHECK(made == (rt_rank == 0), "4 calls through the mount made %lld connections on rank %d",
          made, rt_rank);
    fh = mount_written(NULL, 1);
    if (fh)
        RT_OK(rio_file_close(&fh));
    made = rio__ceph_connects_made() - before;
    CHECK(made == (rt_rank == 0), "a second file through the mount: %lld connections on rank %d",
          made, rt_rank);
    for (int i = 0; i < NOBJ; i++)
        CHECK(srv[i] == want[i], "object %d: OSD %d through the mount, %d through cephfs:", i,
              srv[i], want[i]);
}

/* A configuration that names no cluster: no map, stripe columns. */
static void test_fallback(void)
{
    char conf[4200];
    snprintf(conf, sizeof conf, "%s.absent.conf", rt_fname);
    rio_file *fh = mount_written(conf, 1);
    if (!fh)
        return;
    struct rio_coll_info ci;
    ceph_last(fh, &ci);
    int srv = 0;
    RT_OK(rio_file_get_servers(fh, 0, 1, &srv));
    RT_OK(rio_file_close(&fh));
    CHECK(ci.ntargets == SC && ci.target_server[0] == -1 && srv == -1,
          "through the mount: %d targets (server %d, object 0 on %d), expected the %d stripe "
          "columns",
          ci.ntargets, ci.target_server[0], srv, SC);
    CHECK(strstr(ci.reason, "targets are stripe columns: storage gave no object map") &&
              !strstr(ci.reason, "Unknown error"),
          "through the mount the reason \"%s\" does not say targets are stripe columns",
          ci.reason);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(240);
    mnt = rt_arg("-mount");
    CHECK(mnt != NULL && getenv("CEPH_CONF") != NULL,
          "-mount <the ceph-fuse mount> and CEPH_CONF (the cluster's configuration) are required");
    if (rt_errs)
        return rt_finish();
    size_t n = strlen(mnt);
    CHECK(!strncmp(rt_fname, mnt, n) && rt_fname[n] == '/', "-fname %s is not below -mount %s",
          rt_fname, mnt);
    if (rt_errs)
        return rt_finish();
    int srv[NOBJ + 4];
    test_map(srv);
    test_mount(srv);
    test_fallback();
    if (rt_rank == 0)
        unlink(rt_fname);
    return rt_finish();
}
