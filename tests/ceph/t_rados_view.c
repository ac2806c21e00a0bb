/*
 * t_rados_view.c — the rados: driver's two paths for a view's datatype
 * I/O (the view's dataloop to each object's OSD through the lua class, or
 * list I/O), the choice between them (resonio_rados_view), and the
 * independent view method that hands it views.  Every byte is checked
 * from the RADOS objects themselves (rados_test.h) as well as through
 * resonio, and the OSDs' own request counts (tools/resonio-ceph stats)
 * show which path ran.  -pool, -ceph_dir, -tool and CEPH_CONF as t_rados.
 *
 * The fine view: 8-byte blocks 64 bytes apart over 128 KiB of a file of
 * 16 KiB units, 2 objects a set and 32 KiB objects: 4 objects, 512
 * extents in each.
 *
 *   forced     resonio_rados_view=lua writes and reads the view with one
 *              request per object (4); =list with one compound operation
 *              per 256 extents (8); the bytes the same either way;
 *              MPI_File_get_info reports the value (and auto for one that
 *              is none of auto, lua, list)
 *   auto       six writes and six reads of the fine view: the first four
 *              calls of each direction alternate lua, list, lua, list,
 *              each timed; the shape's bucket keeps the path whose best
 *              sample was faster (the driver's own table,
 *              rio__rados_view_buckets), and the later calls run it, as
 *              the OSDs count too
 *   indep      every rank writes and reads its own blocks of one file
 *              with a noncontiguous memory type, through the independent
 *              chooser: the view method on rados: (rio_stats_get's
 *              per-method counters), datatype I/O on a posix file; every
 *              byte verified from the objects and from the posix file
 */
#include "resonio.h"
#include "../mpi/rtest.h"
#include "ceph_test.h"
#include "rados_test.h"
#include "file/file_int.h"
#include "store/ceph_common.h"

#define BLK 8
#define STRIDE 64
#define SU 16384
#define OS 32768
#define SPAN (4 * OS)
#define NBLK (SPAN / STRIDE)
#define OBJECTS 4
#define LIST_OPS (OBJECTS * ((NBLK / OBJECTS + 255) / 256)) /* 256 extents an operation */

static const char *pool, *ceph_dir, *tool;

/* A fresh file r on comm with the layout above and the hints given (NULL
 * values are left out); NULL when the open fails. */
static rio_file *open_fresh(const char *r, MPI_Comm comm, const char *view, const char *method)
{
    rio_file *fh = NULL;
    int me;
    MPI_Comm_rank(comm, &me);
    if (me == 0)
        rio_file_delete(r, MPI_INFO_NULL); /* absent is fine */
    MPI_Barrier(comm);
    MPI_Info info = rt_info("striping_unit", "16384", "striping_factor", "2",
                            "resonio_object_size", "32768", "resonio_rados_view", view,
                            "resonio_indep_method", method, NULL);
    int ok = RT_OK(rio_file_open(comm, r, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    return ok ? fh : NULL;
}

/* The view of blocks of blk bytes every stride bytes from disp. */
static void set_blocks_view(rio_file *fh, MPI_Offset disp, int blk, int stride)
{
    MPI_Datatype c, ft;
    MPI_Type_contiguous(blk, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, stride, &ft);
    MPI_Type_commit(&ft);
    RT_OK(rio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&c);
    MPI_Type_free(&ft);
}

/* The fine view's data of generation gen: block k holds the pattern of
 * "rank" gen at its file offset. */
static void fine_data(unsigned char *buf, int gen)
{
    for (long long k = 0; k < NBLK; k++)
        rt_fill(buf + k * BLK, BLK, gen, k * STRIDE);
}

/* The objects of p hold generation gen's blocks of the fine view and
 * zeros between them, and the size ends at the last block. */
static void check_objects(const char *p, int gen, const char *what)
{
    long long len = 0, nz = 0;
    unsigned char *all = rados_t_slurp(p, &len);
    const long long size = (long long)(NBLK - 1) * STRIDE + BLK;
    CHECK(len == size, "%s: the objects say size %lld, expected %lld", what, len, size);
    for (long long k = 0; all && k < NBLK && k * STRIDE + BLK <= len; k++) {
        if (!CHECK_PAT(all + k * STRIDE, BLK, gen, k * STRIDE, "%s: block %lld from the objects",
                       what, k))
            break;
        for (long long o = k * STRIDE + BLK; o < (k + 1) * STRIDE && o < len; o++)
            nz += all[o] != 0;
    }
    CHECK(nz == 0, "%s: %lld bytes between the blocks are not zero in the objects", what, nz);
    free(all);
}

/* One independent write (rd 0) or read of the fine view on fh, with the
 * OSDs' request count of it in *reqs (-1 when not counted). */
static void fine_call(rio_file *fh, int rd, unsigned char *buf, int count_reqs, long long *reqs)
{
    MPI_Status st;
    *reqs = -1;
    if (count_reqs)
        CHECK(rados_t_osd_requests(tool, ceph_dir, 1) == 0, "resonio-ceph stats --reset failed");
    if (rd)
        RT_OK(rio_file_read_at(fh, 0, buf, NBLK * BLK, MPI_BYTE, &st));
    else
        RT_OK(rio_file_write_at(fh, 0, buf, NBLK * BLK, MPI_BYTE, &st));
    if (count_reqs)
        *reqs = rados_t_osd_requests(tool, ceph_dir, 0);
}

/* MPI_File_get_info reports resonio_rados_view as want. */
static void info_is(rio_file *fh, const char *want, const char *what)
{
    MPI_Info info;
    char v[64] = "";
    if (!RT_OK(rio_file_get_info(fh, &info)))
        return;
    int has = rt_info_get(info, "resonio_rados_view", v, sizeof v);
    CHECK(has && !strcmp(v, want), "%s: get_info reports resonio_rados_view '%s'%s, expected %s",
          what, v, has ? "" : " (absent)", want);
    MPI_Info_free(&info);
}

/* resonio_rados_view=mode forced: the requests each path makes, and the
 * same bytes.  Rank 0 alone. */
static void test_forced(const char *mode, long long want)
{
    char p[4300], r[4400];
    rados_t_names(pool, mode, p, sizeof p, r, sizeof r);
    rio_file *fh = open_fresh(r, MPI_COMM_SELF, mode, "view");
    if (!fh)
        return;
    static unsigned char w[NBLK * BLK], rb[NBLK * BLK];
    info_is(fh, mode, "forced");
    fine_data(w, 1);
    set_blocks_view(fh, 0, BLK, STRIDE);
    for (int rd = 0; rd < 2; rd++) {
        long long n = -1;
        /* the OSDs' count, taken twice at most (t_rados says why) */
        for (int attempt = 0; attempt < 2 && n != want; attempt++) {
            if (attempt)
                printf("forced %s: the OSDs counted %lld requests for the %s, expected %lld; "
                       "once more\n", mode, n, rd ? "read" : "write", want);
            memset(rb, 0xEE, sizeof rb);
            fine_call(fh, rd, rd ? rb : w, 1, &n);
        }
        CHECK(n == want, "forced %s: a %s of %d 8-byte blocks over %d objects made %lld "
              "requests at the OSDs, expected %lld", mode, rd ? "read" : "write", NBLK, OBJECTS,
              n, want);
        if (rd)
            CHECK_BYTES(rb, w, NULL, sizeof rb, "forced %s: the blocks read back", mode);
        else
            check_objects(p, 1, mode);
    }
    struct rio_rados_view_bucket b[4];
    CHECK(rio__rados_view_buckets(&fh->st, 1, b, 4) == 0 &&
              rio__rados_view_buckets(&fh->st, 0, b, 4) == 0,
          "forced %s: the driver measured a shape it was not asked to choose for", mode);
    RT_OK(rio_file_close(&fh));
    rio_file_delete(r, MPI_INFO_NULL);
}

/* auto: each direction's bucket measures lua, then list, then keeps the
 * faster, and a second file of the same shape takes the kept path at
 * once.  Rank 0 alone. */
static void test_auto(void)
{
    char p[4300], r[4400];
    rados_t_names(pool, "auto", p, sizeof p, r, sizeof r);
    /* a value that is none of auto, lua, list is ignored: auto */
    rio_file *fh = open_fresh(r, MPI_COMM_SELF, "fastest", "view");
    if (!fh)
        return;
    static unsigned char w[NBLK * BLK], rb[NBLK * BLK];
    info_is(fh, "auto", "auto");
    set_blocks_view(fh, 0, BLK, STRIDE);
    enum { MEASURED = 4, CALLS = MEASURED + 2 }; /* two samples of each path */
    for (int rd = 0; rd < 2; rd++) {
        const char *dir = rd ? "read" : "write";
        long long seen[CALLS];
        for (int call = 0; call < CALLS; call++) {
            if (!rd)
                fine_data(w, 10 + call);
            memset(rb, 0xEE, sizeof rb);
            /* the calls after the measured ones, as the OSDs count them */
            fine_call(fh, rd, rd ? rb : w, call >= MEASURED, &seen[call]);
            if (rd)
                CHECK_BYTES(rb, w, NULL, sizeof rb, "auto: read %d", call);
        }
        if (!rd)
            check_objects(p, 10 + CALLS - 1, "auto");
        struct rio_rados_view_bucket b[4];
        int nb = rio__rados_view_buckets(&fh->st, !rd, b, 4);
        CHECK(nb == 1, "auto %s: %d shapes measured, expected 1", dir, nb);
        if (nb != 1)
            continue;
        /* the key: 512 extents an object, gaps of 56 bytes */
        CHECK(b[0].extents_log2 == 9 && b[0].gap_log2 == 6,
              "auto %s: the shape's key is 2^%d extents an object, gap key %d; expected 9, 6",
              dir, b[0].extents_log2, b[0].gap_log2);
        double tl = b[0].s_per_byte[RIO_RADOS_VIEW_LUA - 1];
        double tx = b[0].s_per_byte[RIO_RADOS_VIEW_LIST - 1];
        CHECK(tl > 0 && tx > 0 && !b[0].failed[0] && !b[0].failed[1],
              "auto %s: both paths measured (lua %g, list %g s/byte; failed %d %d)", dir, tl, tx,
              b[0].failed[0], b[0].failed[1]);
        int want = tx < tl ? RIO_RADOS_VIEW_LIST : RIO_RADOS_VIEW_LUA;
        CHECK(b[0].kept == want, "auto %s: kept %d, but the faster measured is %s (lua %g, list "
              "%g s/byte)", dir, b[0].kept, want == RIO_RADOS_VIEW_LUA ? "lua" : "list", tl, tx);
        int k = want - 1;
        CHECK(b[0].runs[k] == CALLS - MEASURED / 2 && b[0].runs[1 - k] == MEASURED / 2,
              "auto %s: the kept path ran %lld calls, the other %lld; expected %d and %d", dir,
              b[0].runs[k], b[0].runs[1 - k], CALLS - MEASURED / 2, MEASURED / 2);
        /* the calls after the measured ones made the kept path's requests
         * (the OSDs' count of one of them, as t_rados allows) */
        long long expect = want == RIO_RADOS_VIEW_LUA ? OBJECTS : LIST_OPS;
        CHECK(seen[MEASURED] == expect || seen[MEASURED + 1] == expect,
              "auto %s: the calls after the measured ones made %lld and %lld requests at the "
              "OSDs, not the kept path's %lld", dir, seen[MEASURED], seen[MEASURED + 1], expect);
        printf("auto %s: lua %.3g us/KiB, list %.3g us/KiB, kept %s\n", dir, tl * 1024e6,
               tx * 1024e6, want == RIO_RADOS_VIEW_LUA ? "lua" : "list");
    }
    RT_OK(rio_file_close(&fh));
    rio_file_delete(r, MPI_INFO_NULL);

    /* the measurements outlive the file: a second file of the same shape
     * takes the kept path at its first call, measuring nothing again (a
     * program that writes each file with one call still learns) */
    char p2[4300], r2[4400];
    rados_t_names(pool, "auto2", p2, sizeof p2, r2, sizeof r2);
    fh = open_fresh(r2, MPI_COMM_SELF, "auto", "view");
    if (!fh)
        return;
    set_blocks_view(fh, 0, BLK, STRIDE);
    for (int rd = 0; rd < 2; rd++) {
        struct rio_rados_view_bucket b0[4], b1[4];
        long long ignored;
        int n0 = rio__rados_view_buckets(&fh->st, !rd, b0, 4);
        memset(rb, 0xEE, sizeof rb);
        fine_call(fh, rd, rd ? rb : w, 0, &ignored);
        if (rd)
            CHECK_BYTES(rb, w, NULL, sizeof rb, "auto, second file: the blocks read back");
        int n1 = rio__rados_view_buckets(&fh->st, !rd, b1, 4);
        CHECK(n0 == 1 && n1 == 1, "auto, second file %s: %d then %d shapes, expected 1",
              rd ? "read" : "write", n0, n1);
        if (n0 != 1 || n1 != 1 || b0[0].kept == RIO_RADOS_VIEW_AUTO)
            continue;
        int k = b0[0].kept - 1;
        CHECK(b1[0].kept == b0[0].kept && b1[0].runs[k] == b0[0].runs[k] + 1 &&
                  b1[0].runs[1 - k] == b0[0].runs[1 - k],
              "auto, second file %s: its first call did not take the kept path at once (runs "
              "%lld %lld before, %lld %lld after)", rd ? "read" : "write", b0[0].runs[0],
              b0[0].runs[1], b1[0].runs[0], b1[0].runs[1]);
    }
    RT_OK(rio_file_close(&fh));
    rio_file_delete(r2, MPI_INFO_NULL);
}

/* Blocks of IB bytes every IS bytes of the file, rank q's at q * IB in
 * each tile, from memory blocks of IB bytes every 2 * IB (a vector). */
#define IB 1024
#define IS 49152
#define IN 12

static long long method_requests(const struct rio_stats *s, const char *m)
{
    for (int i = 0; i < s->nmethods && i < RIO_STATS_MAX_METHODS; i++)
        if (!strcmp(rio_indep_method_name(i), m))
            return s->req_method[i];
    return -1;
}

static unsigned char *slurp_posix(const char *path, long long *len)
{
    return RT_SLURP(path, len);
}

/* Every rank's blocks through the independent chooser on file r (slurp
 * reads it without resonio): the method `want` and not `unwanted` made
 * its requests, and every byte is where it belongs. */
static void test_indep(const char *r, const char *p, unsigned char *(*slurp)(const char *,
                                                                            long long *),
                       const char *want, const char *unwanted)
{
    rio_file *fh = open_fresh(r, MPI_COMM_WORLD, NULL, NULL);
    if (!fh)
        return;
    static unsigned char mem[IN * 2 * IB], back[IN * 2 * IB];
    MPI_Datatype mt;
    MPI_Type_vector(IN, IB, 2 * IB, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    memset(mem, 0x5A, sizeof mem);
    for (int k = 0; k < IN; k++)
        rt_fill(mem + 2 * k * IB, IB, rt_rank, (long long)k * IS + (long long)rt_rank * IB);
    set_blocks_view(fh, (MPI_Offset)rt_rank * IB, IB, IS);
    MPI_Status st;
    RT_OK(rio_file_write_at(fh, 0, mem, 1, mt, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    memset(back, 0xEE, sizeof back);
    RT_OK(rio_file_read_at(fh, 0, back, 1, mt, &st));
    for (int k = 0; k < IN; k++) {
        CHECK_PAT(back + 2 * k * IB, IB, rt_rank, (long long)k * IS + (long long)rt_rank * IB,
                  "indep %s: block %d read back", want, k);
        long long nz = 0;
        for (int i = 0; i < IB; i++)
            nz += back[(2 * k + 1) * IB + i] != 0xEE;
        CHECK(nz == 0, "indep %s: %lld bytes of the memory gap after block %d were written", want,
              nz, k);
    }
    struct rio_stats s;
    memset(&s, 0, sizeof s);
    s.size = sizeof s;
    RT_OK(rio_stats_get(fh, &s));
    long long mine = method_requests(&s, want), other = method_requests(&s, unwanted);
    CHECK(mine >= 2 && other == 0, "indep: %s made %lld requests (expected 2 or more), %s %lld "
          "(expected none)", want, mine, unwanted, other);
    RT_OK(rio_file_close(&fh));
    MPI_Type_free(&mt);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *all = slurp(p, &len);
        long long size = (long long)(IN - 1) * IS + (long long)rt_nprocs * IB;
        CHECK(len == size, "indep %s: the file is %lld bytes, expected %lld", want, len, size);
        for (int k = 0; all && k < IN; k++)
            for (int q = 0; q < rt_nprocs; q++) {
                long long o = (long long)k * IS + (long long)q * IB;
                if (o + IB <= len)
                    CHECK_PAT(all + o, IB, q, o, "indep %s: rank %d's block %d in the file",
                              want, q, k);
            }
        free(all);
    }
    if (rt_rank == 0)
        rio_file_delete(r, MPI_INFO_NULL);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(240);
    rados_t_args(&pool, &ceph_dir, &tool);
    CHECK(rt_nprocs * IB <= IS, "at most %d ranks", IS / IB);
    if (rt_errs)
        return rt_finish();
    if (rt_rank == 0) {
        test_forced("lua", OBJECTS);
        test_forced("list", LIST_OPS);
        test_auto();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    char p[4300], r[4400], px[4300];
    rados_t_names(pool, "indep", p, sizeof p, r, sizeof r);
    test_indep(r, p, rados_t_slurp, "view", "dtype");
    rt_path(px, sizeof px, "view.indep");
    test_indep(px, px, slurp_posix, "dtype", "view");
    rados_t_shutdown();
    return rt_finish();
}
