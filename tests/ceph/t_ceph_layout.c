/*
 * t_ceph_layout.c — CephFS layouts through the posix driver, on a
 * ceph-fuse mount (-fname inside it; -plain names a file on a file system
 * that is not CephFS).
 *
 *   set      a file created with striping_unit, striping_factor and
 *            resonio_object_size has that layout in CephFS (read back
 *            through the ceph.file.layout attribute, not through resonio),
 *            MPI_File_get_info reports it, and a collective write under
 *            stripe plans over the OSDs that hold the file's objects (the
 *            monitor's map, through CEPH_CONF); every byte of the file
 *            verified through POSIX
 *   read     reopened without hints: get_info and the collective engine
 *            use the file's layout, not a one-target default
 *   default  a file created without striping hints keeps CephFS's default
 *            layout, which get_info reports
 *   refused  asking another layout of the non-empty file at create is
 *            MPI_ERR_IO naming MPI_File_open, the file and the cause; so is
 *            a stripe unit CephFS does not take (1000 bytes); the file's
 *            data and layout are untouched
 *   plain    on the other file system nothing changes: the hints are the
 *            layout get_info reports, and without them none is reported
 */
#include "resonio.h"
#include "../mpi/rtest.h"
#include "ceph_test.h"

#include <sys/xattr.h>

#define SU 65536
#define SC 3
#define OS (4 * SU)
#define PER_RANK (5 * SU + 1234) /* several object sets, an uneven tail */

static void check_info(rio_file *fh, const char *what, long long su, long long sc, long long os)
{
    long long gu = info_num(fh, "striping_unit"), gc = info_num(fh, "striping_factor"),
              go = info_num(fh, "resonio_object_size");
    CHECK(gu == su && gc == sc && go == os,
          "%s: get_info reports striping_unit %lld striping_factor %lld resonio_object_size "
          "%lld, expected %lld %lld %lld",
          what, gu, gc, go, su, sc, os);
}

/* A collective write of every rank's block under stripe; returns the
 * targets the engine planned over. */
static int write_blocks(rio_file *fh, long long base)
{
    char *buf = malloc(PER_RANK);
    rt_fill(buf, PER_RANK, rt_rank, base + (long long)rt_rank * PER_RANK);
    MPI_Status st;
    RT_OK(rio_file_write_at_all(fh, base + (long long)rt_rank * PER_RANK, buf, PER_RANK,
                                MPI_BYTE, &st));
    free(buf);
    struct rio_coll_info ci;
    ceph_last(fh, &ci);
    return ci.ntargets;
}

/* Every byte of the file, through POSIX, on rank 0: ranks' blocks from
 * base on, and size bytes in all. */
static void verify_file(const char *path, long long base, long long size)
{
    if (rt_rank != 0)
        return;
    long long len = 0;
    unsigned char *all = RT_SLURP(path, &len);
    CHECK(len == size, "%s: %lld bytes, expected %lld", path, len, size);
    for (int q = 0; all && q < rt_nprocs && len >= base + (long long)(q + 1) * PER_RANK; q++) {
        long long o = base + (long long)q * PER_RANK;
        CHECK_PAT(all + o, PER_RANK, q, o, "%s: rank %d's block", path, q);
    }
    free(all);
}

static void test_set_and_read(void)
{
    char su[16], sc[16], os[16];
    snprintf(su, sizeof su, "%d", SU);
    snprintf(sc, sizeof sc, "%d", SC);
    snprintf(os, sizeof os, "%d", OS);
    MPI_Info info = rt_info("striping_unit", su, "striping_factor", sc, "resonio_object_size", os,
                            "resonio_strategy", "stripe", NULL);
    rio_file *fh = NULL;
    if (rt_rank == 0)
        unlink(rt_fname);
    MPI_Barrier(MPI_COMM_WORLD);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, rt_fname, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh))) {
        long long gu, gc, go;
        CHECK(ceph_layout(rt_fname, &gu, &gc, &go) && gu == SU && gc == SC && go == OS,
              "set: CephFS has stripe_unit %lld stripe_count %lld object_size %lld, expected "
              "%d %d %d", gu, gc, go, SU, SC, OS);
        check_info(fh, "set", SU, SC, OS);
        int T = write_blocks(fh, 0),
            want = ceph_map_targets(fh, (long long)rt_nprocs * PER_RANK, SC, OS);
        CHECK(T == want && want >= 1,
              "set: stripe planned over %d targets, the file's objects lie on %d OSDs", T, want);
        RT_OK(rio_file_close(&fh));
    }
    MPI_Info_free(&info);
    verify_file(rt_fname, 0, (long long)rt_nprocs * PER_RANK);

    /* read: no hints; the file's layout serves */
    info = rt_info("resonio_strategy", "stripe", NULL);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, rt_fname, MPI_MODE_RDWR, info, &fh))) {
        check_info(fh, "read", SU, SC, OS);
        long long base = (long long)rt_nprocs * PER_RANK;
        int T = write_blocks(fh, base), want = ceph_map_targets(fh, 2 * base, SC, OS);
        CHECK(T == want && want >= 1,
              "read: stripe planned over %d targets, the file's objects lie on %d OSDs", T,
              want);
        struct rio_coll_info ci;
        ceph_last(fh, &ci);
        CHECK(!strcmp(ci.strategy, "stripe"), "read: %s ran (%s), not stripe", ci.strategy,
              ci.reason);
        RT_OK(rio_file_close(&fh));
        verify_file(rt_fname, base, 2 * base);
    }
    MPI_Info_free(&info);
}

static void test_default(void)
{
    char path[4096];
    rt_path(path, sizeof path, "default");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = NULL;
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh))) {
        long long gu = 0, gc = 0, go = 0;
        CHECK(ceph_layout(path, &gu, &gc, &go), "default: no ceph.file.layout on %s", path);
        check_info(fh, "default", gu, gc, go);
        RT_OK(rio_file_close(&fh));
    }
    if (rt_rank == 0)
        unlink(path);
}

static void test_refused(void)
{
    long long before = rt_stat_size(rt_fname), su0 = 0, sc0 = 0, os0 = 0;
    ceph_layout(rt_fname, &su0, &sc0, &os0);
    const char *asks[][2] = {{"131072", "2"}, {"1000", "2"}};
    for (int k = 0; k < 2; k++) {
        const char *path = rt_fname;
        char fresh[4096];
        if (k == 1) { /* an empty file: CephFS refuses the unit itself */
            path = rt_path(fresh, sizeof fresh, "badunit");
            if (rt_rank == 0)
                unlink(path);
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Info info = rt_info("striping_unit", asks[k][0], "striping_factor", asks[k][1], NULL);
        rio_file *fh = NULL;
        int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
        if (RT_ERR(rc, MPI_ERR_IO, "MPI_File_open", path)) {
            char s[MPI_MAX_ERROR_STRING];
            rt_errstr(rc, s);
            CHECK(strstr(s, k == 0 ? "not empty" : "refuses"), "refused %d: cause not named: %s",
                  k, s);
        }
        if (rc == MPI_SUCCESS)
            rio_file_close(&fh);
        MPI_Info_free(&info);
        if (k == 1 && rt_rank == 0)
            unlink(path);
    }
    long long su = 0, sc = 0, os = 0;
    ceph_layout(rt_fname, &su, &sc, &os);
    CHECK(rt_stat_size(rt_fname) == before && su == su0 && sc == sc0 && os == os0,
          "refused: the file changed: %lld bytes (was %lld), layout %lld %lld %lld (was %lld "
          "%lld %lld)", rt_stat_size(rt_fname), before, su, sc, os, su0, sc0, os0);
    verify_file(rt_fname, 0, before);
}

static void test_plain(const char *plain)
{
    long long su = 0, sc = 0, os = 0;
    if (rt_rank == 0)
        unlink(plain);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int hints = 1; hints >= 0; hints--) {
        MPI_Info info = hints ? rt_info("striping_unit", "8192", "striping_factor", "5", NULL)
                              : MPI_INFO_NULL;
        rio_file *fh = NULL;
        if (RT_OK(rio_file_open(MPI_COMM_WORLD, plain, MPI_MODE_CREATE | MPI_MODE_RDWR, info,
                                &fh))) {
            CHECK(!ceph_layout(plain, &su, &sc, &os), "plain: %s has a CephFS layout", plain);
            if (hints)
                check_info(fh, "plain, hints", 8192, 5, -1);
            else
                check_info(fh, "plain, no hints", -1, -1, -1);
            RT_OK(rio_file_close(&fh));
        }
        if (hints)
            MPI_Info_free(&info);
    }
    if (rt_rank == 0)
        unlink(plain);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(240);
    const char *plain = rt_arg("-plain");
    CHECK(plain != NULL, "-plain <file on a file system other than CephFS> is required");
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", rt_fname);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    {   /* the test is meaningless off CephFS: say so and fail */
        char buf[8];
        int on_ceph = getxattr(dir, "ceph.dir.layout.pool", buf, 0) >= 0 ||
                      getxattr(dir, "ceph.dir.entries", buf, 0) >= 0;
        CHECK(on_ceph, "%s is not on CephFS (start a cluster with tools/resonio-ceph)", dir);
        if (!on_ceph || !plain)
            return rt_finish();
    }
    test_set_and_read();
    test_default();
    test_refused();
    test_plain(plain);
    if (rt_rank == 0)
        unlink(rt_fname);
    return rt_finish();
}
