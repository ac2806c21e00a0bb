/*
 * t_coll_rmw.c — how two_phase and every_rank write rounds with holes.
 *
 * Rank i writes NB blocks of BS bytes, block k at (k * P + i) * pitch, so
 * the round's pieces leave a hole of pitch - BS after each block.  What
 * the aggregators do (src/coll/exchange.c, round_rmw):
 *   - romio_ds_write=automatic (the default): read-modify-write when the
 *     holes are small (pitch - BS = 500 B), list I/O when they are large
 *     (40000 B, over RMW_HOLE_MAX);
 *   - romio_ds_write=enable: read-modify-write even with large holes;
 *   - romio_ds_write=disable, and resonio_shm=enable (ranks copy into the
 *     round buffer before it could be read): list I/O.
 * Read-modify-write shows in rio_coll_last as at most one read and one
 * write per aggregator and round, and in rio_stats as more bytes accessed
 * than the data; list I/O as a request per block at least, and exactly
 * the data's bytes.  One case takes several rounds (cb_buffer_size=4096).  Every case checks every byte of the file without resonio: the
 * blocks hold their writer's pattern, the holes the 0xEE written before
 * (or, in a new file, zeros), and the file ends where it did (or at the
 * last block); then a collective read returns each rank's blocks.
 */
#include "ctest_util.h"

#include <signal.h>

#define BS 1500
#define NB 8
#define SMALL_HOLE 500
#define LARGE_HOLE 40000

static char path[4200];

static long long block_off(long long pitch, int rank, long long k)
{
    return (k * rt_nprocs + rank) * pitch;
}

/* The file without resonio: blocks, holes (bg, or 0 in a new file) and
 * its length; rank 0 checks, the others wait. */
static void verify_file(long long pitch, long long len_expected, int bg, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0, bad = 0, first = -1;
        unsigned char *img = RT_SLURP(path, &len);
        CHECK(len == len_expected, "%s: file is %lld bytes, expected %lld", what, len,
              len_expected);
        for (long long o = 0; img && o < len; o++) {
            long long slot = o / pitch, in = o % pitch;
            int exp = in < BS ? pat((int)(slot % rt_nprocs), o) : bg;
            if (img[o] != exp) {
                bad++;
                first = first < 0 ? o : first;
            }
        }
        CHECK(bad == 0, "%s: %lld file bytes wrong, the first at %lld", what, bad, first);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* An info object of the hints "key=value;..." (NULL: none). */
static MPI_Info info_of(const char *hints)
{
    MPI_Info info;
    MPI_Info_create(&info);
    char kv[200];
    snprintf(kv, sizeof kv, "%s", hints ? hints : "");
    for (char *save = NULL, *h = strtok_r(kv, ";", &save); h; h = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(h, '=');
        if (eq) {
            *eq = '\0';
            MPI_Info_set(info, h, eq + 1);
        }
    }
    return info;
}

/* One write and (unless write-only) one read of the pattern with hints
 * (info_of) given at open and, after it, through set_info (late); rmw:
 * whether the write must read-modify-write. */
static void one_case(const char *strategy, long long hole, int prefill, int amode,
                     const char *hints, const char *late, int rmw)
{
    const long long pitch = BS + hole, span = (long long)NB * rt_nprocs * pitch;
    char what[240];
    snprintf(what, sizeof what, "%s, holes of %lld B%s, hints %s, then %s%s", strategy, hole,
             prefill ? " over 0xEE" : " in a new file", hints ? hints : "-", late ? late : "-",
             amode == MPI_MODE_WRONLY ? ", write-only" : "");
    ct_unlink_all(path);
    if (prefill) {
        unsigned char *bg = malloc((size_t)span);
        memset(bg, 0xEE, (size_t)span);
        ct_fill_rio(path, bg, (size_t)span, 0, 1);
        free(bg);
    }
    rio_file *fh = RIO_FILE_NULL;
    MPI_Info info = info_of(hints);
    MPI_Info_set(info, "resonio_strategy", strategy);
    int rc = rio_file_open(MPI_COMM_WORLD, path, amode | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (!RT_OK(rc))
        return;
    if (late) {
        info = info_of(late);
        RT_OK(rio_file_set_info(fh, info));
        MPI_Info_free(&info);
    }

    MPI_Datatype c, ft;
    MPI_Type_contiguous(BS, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)(rt_nprocs * pitch), &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&c);
    RT_OK(rio_file_set_view(fh, rt_rank * pitch, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&ft);

    unsigned char *wb = malloc((size_t)NB * BS), *rb = malloc((size_t)NB * BS);
    for (long long k = 0; k < NB; k++)
        for (long long j = 0; j < BS; j++)
            wb[k * BS + j] = pat(rt_rank, block_off(pitch, rt_rank, k) + j);
    MPI_Status st;
    struct rio_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1};
    RT_OK(rio_stats_get(fh, &s0));
    CHECK(rio_file_write_at_all(fh, 0, wb, NB * BS, MPI_BYTE, &st) == MPI_SUCCESS,
          "%s: write_at_all failed", what);
    RT_OK(rio_stats_get(fh, &s1));
    /* storage bytes of all ranks: list I/O moves the data, read-modify-
     * write also the holes, twice, and the data once more */
    long long mine = s1.bytes_accessed - s0.bytes_accessed, all = 0,
              data = (long long)NB * BS * rt_nprocs;
    MPI_Allreduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(rmw ? all > data : all == data,
          "%s: the ranks accessed %lld bytes of storage for %lld bytes of data; %s", what, all,
          data, rmw ? "read-modify-write accesses more" : "list I/O accesses only the data");
    struct rio_coll_info in;
    char ab[512];
    if (ct_last(fh, &in)) {
        CHECK(!strcmp(in.strategy, strategy) && in.naggs > 0,
              "%s: ran %s with %d aggregators; reason \"%s\"", what, in.strategy, in.naggs,
              in.reason);
        long long most = 2LL * in.naggs * in.rounds, pieces = (long long)NB * rt_nprocs;
        if (hints && strstr(hints, "cb_buffer_size"))
            CHECK(in.rounds > 1, "%s: %d rounds; the small buffer needs several", what,
                  in.rounds);
        if (rmw)
            CHECK(in.storage_reqs <= most,
                  "%s: %lld storage requests; read-modify-write makes at most %lld (a read "
                  "and a write for each of %d aggregators {%s} and %d rounds)",
                  what, in.storage_reqs, most, in.naggs, ct_aggs_str(&in, ab, sizeof ab),
                  in.rounds);
        else
            CHECK(in.storage_reqs >= pieces,
                  "%s: %lld storage requests; list I/O makes one per block at least (%lld)",
                  what, in.storage_reqs, pieces);
    }
    /* the last block ends BS into the last slot; a prefill ends at span */
    verify_file(pitch, prefill ? span : span - hole, prefill ? 0xEE : 0, what);

    if (amode == MPI_MODE_RDWR) {
        memset(rb, CT_SENTINEL, (size_t)NB * BS);
        CHECK(rio_file_read_at_all(fh, 0, rb, NB * BS, MPI_BYTE, &st) == MPI_SUCCESS,
              "%s: read_at_all failed", what);
        CHECK_BYTES(rb, wb, NULL, (size_t)NB * BS, "%s: read back", what);
    }
    RT_OK(rio_file_close(&fh));
    free(wb);
    free(rb);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    rt_path(path, sizeof path, "rmw");
    static const char *const strategies[] = {"two_phase", "every_rank"};
    for (int s = 0; s < 2; s++) {
        const char *sn = strategies[s];
        alarm(120);
        const int rw = MPI_MODE_RDWR, wo = MPI_MODE_WRONLY;
        one_case(sn, SMALL_HOLE, 1, rw, NULL, NULL, 1);
        one_case(sn, SMALL_HOLE, 0, rw, NULL, NULL, 1);
        one_case(sn, LARGE_HOLE, 1, rw, NULL, NULL, 0);
        one_case(sn, LARGE_HOLE, 1, rw, "romio_ds_write=enable", NULL, 1);
        one_case(sn, LARGE_HOLE, 1, rw, NULL, "romio_ds_write=enable", 1);
        one_case(sn, SMALL_HOLE, 1, rw, "cb_buffer_size=4096", NULL, 1); /* several rounds */
        one_case(sn, SMALL_HOLE, 1, rw, "romio_ds_write=disable", NULL, 0);
        one_case(sn, SMALL_HOLE, 1, rw, "resonio_shm=enable", NULL, 0);
        /* ranks that defer their open (romio_no_indep_rw) open it for
         * reading and writing when they first aggregate */
        one_case(sn, SMALL_HOLE, 1, rw, "romio_no_indep_rw=true", NULL, 1);
        /* write-only: the file is opened for reading too where the
         * permissions allow, as ROMIO does for data sieving */
        one_case(sn, SMALL_HOLE, 1, wo, NULL, NULL, 1);
        /* but ranks whose open is deferred open it write-only: they
         * cannot read holes, so no aggregator reads them, even asked to
         * at open or later */
        const char *nir = "romio_no_indep_rw=true";
        one_case(sn, SMALL_HOLE, 1, wo, nir, NULL, 0);
        one_case(sn, SMALL_HOLE, 1, wo, "romio_no_indep_rw=true;romio_ds_write=enable", NULL, 0);
        one_case(sn, SMALL_HOLE, 1, wo, "romio_no_indep_rw=true;ds_in_coll=enable", NULL, 0);
        one_case(sn, SMALL_HOLE, 1, wo, nir, "romio_ds_write=enable;ds_in_coll=enable", 0);
        alarm(0);
    }
    ct_unlink_all(path);
    return rt_finish();
}
