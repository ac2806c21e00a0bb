/*
 * t_coll_cbrw.c — romio_cb_write and romio_cb_read through the engine.
 *
 * disable.  A collective call with collective buffering disabled for its
 * direction aggregates nothing, whatever resonio_strategy says: each rank
 * does its own I/O.  On an interleaved pattern (rank i writes block k*P+i)
 * with two_phase forced (no layout) and with stripe forced (striping 4096
 * x 2):
 *   - rio_coll_last: strategy independent, no aggregators, nothing
 *     exchanged, a reason naming the hint;
 *   - each rank's storage bytes (rio_stats bytes_accessed) are exactly its
 *     own request's bytes (a read may sieve: then its own extent);
 *   - the other direction still aggregates (two_phase: aggregators, and
 *     with several ranks bytes exchanged);
 *   - every byte of the file (POSIX) and of the collective read.
 *
 * enable and automatic under resonio_strategy=auto.  What src/coll does:
 * romio_cb_write=enable removes the non-aggregating candidates (direct,
 * independent) from the selector's examination, so a call of rank-ordered
 * single regions — which ROMIO's "automatic" would not aggregate — still
 * aggregates; with automatic (the default) they are examined with the
 * rest and the measurements decide.  Checked through rio_select_get (the
 * candidate list of the call's signature) and rio_coll_last (the first
 * examined call aggregates), bytes verified.
 */
#include "ctest_util.h"

#include <signal.h>

#define UNIT 4096
#define BS 1500
#define NB 8

static char path[4200];

static rio_file *open_with(const char *strategy, int layout, const char *cbw, const char *cbr,
                           const char *calls)
{
    rio_file *fh = RIO_FILE_NULL;
    ct_unlink_all(path);
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", layout ? "4096" : NULL,
                            "striping_factor", layout ? "2" : NULL, "romio_cb_write", cbw,
                            "romio_cb_read", cbr, "resonio_select_calls", calls, NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    return RT_OK(rc) ? fh : RIO_FILE_NULL;
}

/* Interleaved (rank i writes block k*P+i) or segmented (one region a
 * rank, in rank order) access. */
static void access_of(int segmented, struct ct_access *a)
{
    const int P = rt_nprocs;
    ct_access_init(a);
    long long n = (long long)NB * BS;
    rt_list_add(&a->mem, 0, n);
    a->membytes = n;
    if (segmented) {
        rt_list_add(&a->file, rt_rank * n, n);
        a->filetype = MPI_BYTE;
        a->disp = rt_rank * n;
        return;
    }
    for (long long k = 0; k < NB; k++)
        rt_list_add(&a->file, (k * P + rt_rank) * BS, BS);
    MPI_Datatype c;
    MPI_Type_contiguous(BS, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)P * BS, &a->filetype);
    MPI_Type_free(&c);
    MPI_Type_commit(&a->filetype);
    a->disp = (long long)rt_rank * BS;
}

/* Every byte of the file: in both layouts byte o was written by the rank
 * the access model gives it. */
static void verify_file(int segmented, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0, total = (long long)rt_nprocs * NB * BS, bad = 0, first = -1;
        unsigned char *img = RT_SLURP(path, &len);
        CHECK(len == total, "%s: file is %lld bytes, expected %lld", what, len, total);
        for (long long o = 0; img && o < len && o < total; o++) {
            int w = segmented ? (int)(o / ((long long)NB * BS)) : (int)((o / BS) % rt_nprocs);
            if (img[o] != pat(w, o)) {
                if (first < 0)
                    first = o;
                bad++;
            }
        }
        CHECK(bad == 0, "%s: %lld file bytes wrong, the first at %lld", what, bad, first);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* What one call must show: independent (no aggregation) or aggregated by
 * `strategy`. */
static void check_call(rio_file *fh, int independent, const char *strategy, const char *hint,
                       long long accessed, long long own, const char *what)
{
    struct rio_coll_info in;
    char ab[512];
    if (!ct_last(fh, &in))
        return;
    if (independent) {
        CHECK(!strcmp(in.strategy, "independent") && in.naggs == 0 && in.exchanged == 0 &&
                  strstr(in.reason, hint) != NULL,
              "%s: strategy %s, %d aggregators, %lld bytes exchanged, reason \"%s\"; expected "
              "independent, none, nothing, and the reason naming %s",
              what, in.strategy, in.naggs, in.exchanged, in.reason, hint);
        /* its own bytes, or (a read sieving them) its own extent */
        long long extent = (long long)(NB - 1) * rt_nprocs * BS + BS;
        CHECK(accessed == own || (!strstr(hint, "write") && accessed == extent),
              "%s: this rank accessed %lld bytes of storage, its own request is %lld bytes "
              "over %lld",
              what, accessed, own, extent);
    } else {
        CHECK(!strcmp(in.strategy, strategy) && in.naggs > 0 &&
                  (rt_nprocs == 1 || in.exchanged > 0),
              "%s: strategy %s, %d aggregators {%s}, %lld bytes exchanged; expected %s "
              "aggregating; reason \"%s\"",
              what, in.strategy, in.naggs, ct_aggs_str(&in, ab, sizeof ab), in.exchanged,
              strategy, in.reason);
    }
}

/* One write and one read of the pattern; *_indep: that direction must not
 * aggregate. */
static void disable_case(const char *strategy, int layout, int w_indep, int r_indep)
{
    char what[160];
    snprintf(what, sizeof what, "%s%s, romio_cb_write=%s romio_cb_read=%s", strategy,
             layout ? " (striped)" : "", w_indep ? "disable" : "-", r_indep ? "disable" : "-");
    rio_file *fh = open_with(strategy, layout, w_indep ? "disable" : NULL,
                             r_indep ? "disable" : NULL, NULL);
    if (!fh)
        return;
    struct ct_access a;
    struct rio_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1};
    MPI_Status st;
    access_of(0, &a);
    unsigned char *wb = ct_write_buf(&a, rt_rank), *rb = malloc((size_t)a.membytes);
    memset(rb, CT_SENTINEL, (size_t)a.membytes);
    RT_OK(rio_file_set_view(fh, a.disp, MPI_BYTE, a.filetype, "native", MPI_INFO_NULL));
    RT_OK(rio_stats_get(fh, &s0));
    CHECK(rio_file_write_at_all(fh, 0, wb, (int)a.membytes, MPI_BYTE, &st) == MPI_SUCCESS,
          "%s: write_at_all failed", what);
    RT_OK(rio_stats_get(fh, &s1));
    /* a forced stripe-aware strategy that aggregates reports under its own name */
    check_call(fh, w_indep, strategy, "romio_cb_write=disable",
               s1.bytes_accessed - s0.bytes_accessed, a.membytes, what);
    verify_file(0, what);
    RT_OK(rio_stats_get(fh, &s0));
    CHECK(rio_file_read_at_all(fh, 0, rb, (int)a.membytes, MPI_BYTE, &st) == MPI_SUCCESS,
          "%s: read_at_all failed", what);
    RT_OK(rio_stats_get(fh, &s1));
    check_call(fh, r_indep, strategy, "romio_cb_read=disable",
               s1.bytes_accessed - s0.bytes_accessed, a.membytes, what);
    CHECK_BYTES(rb, wb, NULL, (size_t)a.membytes, "%s: read back", what);
    RT_OK(rio_file_close(&fh));
    free(wb);
    free(rb);
    ct_access_free(&a);
}

/* auto with romio_cb_write=enable or automatic on a rank-ordered pattern. */
static void auto_case(const char *cbw)
{
    char what[160], ab[512];
    snprintf(what, sizeof what, "auto, romio_cb_write=%s, segments in rank order", cbw);
    rio_file *fh = open_with("auto", 0, cbw, NULL, "1");
    if (!fh)
        return;
    struct ct_access a;
    struct rio_coll_info in;
    struct rio_select_info si = {.size = sizeof si};
    MPI_Status st;
    access_of(1, &a);
    unsigned char *wb = ct_write_buf(&a, rt_rank);
    RT_OK(rio_file_set_view(fh, a.disp, MPI_BYTE, a.filetype, "native", MPI_INFO_NULL));
    CHECK(rio_file_write_at_all(fh, 0, wb, (int)a.membytes, MPI_BYTE, &st) == MPI_SUCCESS,
          "%s: write_at_all failed", what);
    verify_file(1, what);
    int enable = !strcmp(cbw, "enable"), n = 0;
    /* enable: the first examined call aggregates.  automatic: the
     * examination starts with the fixed rules' pick, which for one region
     * per rank in rank order is independent. */
    int got = ct_last(fh, &in);
    if (got && enable)
        CHECK(in.naggs > 0 && strcmp(in.strategy, "independent") && strcmp(in.strategy, "direct"),
              "%s: the first examined call ran %s with %d aggregators {%s}; expected an "
              "aggregating strategy; reason \"%s\"",
              what, in.strategy, in.naggs, ct_aggs_str(&in, ab, sizeof ab), in.reason);
    else if (got)
        CHECK(!strcmp(in.strategy, "independent") && in.naggs == 0,
              "%s: the first examined call ran %s with %d aggregators; expected independent "
              "(the rules' pick for one region per rank in rank order); reason \"%s\"",
              what, in.strategy, in.naggs, in.reason);
    if (RT_OK(rio_select_count(fh, &n)) && n == 1 && RT_OK(rio_select_get(fh, 0, &si))) {
        int has_indep = 0, has_direct = 0;
        for (int k = 0; k < si.ncand && k < RIO_SELECT_MAX_CAND; k++) {
            has_indep |= !strcmp(si.cand[k], "independent");
            has_direct |= !strcmp(si.cand[k], "direct");
        }
        CHECK(si.ncand > 0 && has_indep == !enable && has_direct == !enable,
              "%s: %d candidates, independent %s, direct %s; expected them %s", what, si.ncand,
              has_indep ? "in" : "out", has_direct ? "in" : "out",
              enable ? "left out (collective buffering asked for)" : "examined");
    } else {
        CHECK(n == 1, "%s: the selector holds %d signatures after one call, expected 1", what, n);
    }
    RT_OK(rio_file_close(&fh));
    free(wb);
    ct_access_free(&a);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(120);
    rt_path(path, sizeof path, "cbrw");
    disable_case("two_phase", 0, 1, 0);
    disable_case("two_phase", 0, 0, 1);
    disable_case("stripe", 1, 1, 1);
    auto_case("enable");
    auto_case("automatic");
    alarm(0);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
