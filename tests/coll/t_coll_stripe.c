/*
 * t_coll_stripe.c — the stripe strategy's CO groups and big_req_size
 * bypass (lustre-adio-write.txt §2.4), on a file of T = 2 targets
 * (striping_unit 4096, striping_factor 2).
 *
 * CO.  With the hint CO, each target is served by a group of
 * co = max(1, min(CO, P / T)) aggregators that take its stripe rows in
 * turn (row r of target t to member r % co), so the load inside a group is
 * even.  An interleaved write (rank i writes block k*P+i, blocks not
 * stripe-aligned) covering the file densely, with CO = 3 (so co is
 * limited by P / T up to 7 ranks and by CO at 8):
 *   - rio_coll_last: stripe, naggs == T * co, the aggregators distinct;
 *   - every rank's storage bytes (rio_stats bytes_accessed over the
 *     write): member j of target t's group (aggs[t * co + j]) writes
 *     exactly the bytes of the rows r % co == j of target t, computed from
 *     the model; the members of a group differ by at most one stripe; a
 *     rank that is no aggregator writes nothing;
 *   - every byte of the file (POSIX) and of a collective read back.
 *
 * big_req_size.  Even ranks write one contiguous segment of at least
 * big_req_size bytes (BIG_SEG > BIG) at the start of the file, odd ranks
 * small interleaved blocks after it, in one write_at_all:
 *   - the big ranks write their own data: bytes exchanged between ranks
 *     (rio_coll_last, all ranks) are exactly the small ranks' bytes that
 *     fall in stripes of another rank's target, and every rank's storage
 *     bytes are its own segment (big ranks) plus what it writes for its
 *     target as aggregator (small ranks' bytes only);
 *   - at 1 rank every request is big: no aggregators, nothing exchanged,
 *     the reason names big_req_size;
 *   - every byte of the file and of a read back.
 */
#include "ctest_util.h"

#include <signal.h>

#define UNIT 4096
#define T 2
#define CO 3
#define BS 3000   /* interleaved block, not stripe-aligned */
#define NB 8
#define BIG 16384
#define BIG_SEG 20000
#define SMALL_NB 5

static char path[4200];

static rio_file *open_with(const char *co, const char *big)
{
    rio_file *fh = RIO_FILE_NULL;
    char unit[16], fac[16];
    snprintf(unit, sizeof unit, "%d", UNIT);
    snprintf(fac, sizeof fac, "%d", T);
    ct_unlink_all(path);
    MPI_Info info = rt_info("resonio_strategy", "stripe", "striping_unit", unit, "striping_factor",
                            fac, "cb_buffer_size", "8192", "CO", co, "big_req_size", big, NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    return RT_OK(rc) ? fh : RIO_FILE_NULL;
}

/* An hindexed filetype of the access's file pieces (disp 0); MPI_BYTE
 * when it has none. */
static MPI_Datatype pieces_type(const struct rt_list *l)
{
    if (l->n == 0)
        return MPI_BYTE;
    int *bl = malloc(sizeof *bl * (size_t)l->n);
    MPI_Aint *dp = malloc(sizeof *dp * (size_t)l->n);
    for (int i = 0; i < l->n; i++) {
        bl[i] = (int)l->p[i].len;
        dp[i] = (MPI_Aint)l->p[i].off;
    }
    MPI_Datatype t;
    MPI_Type_create_hindexed(l->n, bl, dp, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    free(bl);
    free(dp);
    return t;
}

/* Rank q's file pieces in the CO part. */
static void co_pieces(int q, int P, struct rt_list *l)
{
    for (long long k = 0; k < NB; k++)
        rt_list_add(l, (k * P + q) * BS, BS);
}

/* Rank q's file pieces in the big part: even ranks a segment each at the
 * start, odd ranks blocks interleaved after the segments. */
static int big_pieces(int q, int P, struct rt_list *l)
{
    int neven = (P + 1) / 2, nodd = P / 2;
    long long base = (long long)neven * BIG_SEG;
    if (q % 2 == 0) {
        rt_list_add(l, (long long)(q / 2) * BIG_SEG, BIG_SEG);
        return 1;
    }
    for (long long k = 0; k < SMALL_NB; k++)
        rt_list_add(l, base + (k * nodd + q / 2) * 700, 700);
    return 0;
}

/* Write with the pieces of every rank (pieces_of), check every byte of
 * the file and of a read back.  Fills *in (write) and this rank's
 * bytes_accessed during the write into *accessed. */
static void write_read(rio_file *fh, int (*pieces_of)(int, int, struct rt_list *),
                       struct rio_coll_info *in, long long *accessed, const char *what)
{
    const int P = rt_nprocs;
    struct ct_access a;
    struct rio_stats s0 = {.size = sizeof s0}, s1 = {.size = sizeof s1};
    MPI_Status st;
    ct_access_init(&a);
    pieces_of(rt_rank, P, &a.file);
    rt_list_add(&a.mem, 0, a.file.total);
    a.membytes = a.file.total;
    MPI_Datatype ft = pieces_type(&a.file);
    unsigned char *wb = ct_write_buf(&a, rt_rank), *rb = malloc((size_t)a.membytes + 1);
    memset(rb, CT_SENTINEL, (size_t)a.membytes + 1);
    RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    RT_OK(rio_stats_get(fh, &s0));
    CHECK(rio_file_write_at_all(fh, 0, wb, (int)a.membytes, MPI_BYTE, &st) == MPI_SUCCESS,
          "%s: write_at_all failed", what);
    RT_OK(rio_stats_get(fh, &s1));
    *accessed = s1.bytes_accessed - s0.bytes_accessed;
    ct_last(fh, in);
    /* every byte of the file: each written byte by its one writer */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0, bad = 0, first = -1, end = 0;
        unsigned char *img = RT_SLURP(path, &len);
        unsigned char *seen = NULL;
        for (int q = 0; q < P; q++) {
            struct rt_list l = {0};
            long long f, e;
            pieces_of(q, P, &l);
            ct_extent(&l, &f, &e);
            end = e > end ? e : end;
            rt_list_free(&l);
        }
        seen = calloc((size_t)end + 1, 1);
        CHECK(len == end, "%s: file is %lld bytes, expected %lld", what, len, end);
        for (int q = 0; q < P && img; q++) {
            struct rt_list l = {0};
            pieces_of(q, P, &l);
            for (int i = 0; i < l.n; i++)
                for (long long o = l.p[i].off; o < l.p[i].off + l.p[i].len; o++) {
                    seen[o] = 1;
                    if (o >= len || img[o] != pat(q, o)) {
                        if (first < 0)
                            first = o;
                        bad++;
                    }
                }
            rt_list_free(&l);
        }
        for (long long o = 0; o < end; o++)
            CHECK(seen[o], "%s: the test's pattern leaves byte %lld unwritten (test bug)", what, o);
        CHECK(bad == 0, "%s: %lld file bytes wrong, the first at %lld", what, bad, first);
        free(seen);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rio_file_read_at_all(fh, 0, rb, (int)a.membytes, MPI_BYTE, &st) == MPI_SUCCESS,
          "%s: read_at_all failed", what);
    CHECK_BYTES(rb, wb, NULL, (size_t)a.membytes, "%s: read back", what);
    CHECK(rb[a.membytes] == CT_SENTINEL, "%s: read past the buffer", what);
    ct_type_free(&ft);
    free(wb);
    free(rb);
    ct_access_free(&a);
}

static int co_pieces_fn(int q, int P, struct rt_list *l)
{
    co_pieces(q, P, l);
    return 0;
}

/* Bytes of the pieces of l on stripes of target t whose row r has
 * r % co == j. */
static long long member_bytes(const struct rt_list *l, int t, int co, int j)
{
    long long n = 0;
    for (int i = 0; i < l->n; i++)
        for (long long o = l->p[i].off, e = o + l->p[i].len; o < e;) {
            long long s = o / UNIT, len = rt_minll(e - o, UNIT - o % UNIT);
            if (s % T == t && (s / T) % co == j)
                n += len;
            o += len;
        }
    return n;
}

static void co_groups(void)
{
    const int P = rt_nprocs;
    int co = P / T < CO ? P / T : CO;
    if (co < 1)
        co = 1;
    char cos[16], ab[512];
    snprintf(cos, sizeof cos, "%d", CO);
    rio_file *fh = open_with(cos, NULL);
    if (!fh)
        return;
    struct rio_coll_info in;
    long long mine = 0;
    write_read(fh, co_pieces_fn, &in, &mine, "CO");
    long long *acc = malloc(sizeof *acc * (size_t)P);
    MPI_Allgather(&mine, 1, MPI_LONG_LONG, acc, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    if (rt_rank == 0) {
        CHECK(!strcmp(in.strategy, "stripe") && in.naggs == T * co,
              "CO=%d at %d ranks: strategy %s with %d aggregators {%s}, expected stripe with %d "
              "(co %d per target); reason \"%s\"",
              CO, P, in.strategy, in.naggs, ct_aggs_str(&in, ab, sizeof ab), T * co, co,
              in.reason);
        int ok = in.naggs == T * co && in.naggs <= RIO_COLL_MAX_AGGS;
        if (ok && P < T * co) { /* fewer ranks than targets: rank 0 serves both */
            CHECK(in.aggs[0] == 0 && in.aggs[1] == 0 && acc[0] == (long long)NB * BS,
                  "CO at 1 rank: aggregators {%s}, %lld bytes written; expected rank 0 for "
                  "both targets and %d bytes",
                  ct_aggs_str(&in, ab, sizeof ab), acc[0], NB * BS);
            ok = 0;
        }
        int *is_agg = calloc((size_t)P, sizeof *is_agg);
        for (int a = 0; ok && a < in.naggs; a++) {
            CHECK(in.aggs[a] >= 0 && in.aggs[a] < P && !is_agg[in.aggs[a]],
                  "CO: aggregator %d (rank %d) is not a distinct rank: {%s}", a, in.aggs[a],
                  ct_aggs_str(&in, ab, sizeof ab));
            if (in.aggs[a] >= 0 && in.aggs[a] < P)
                is_agg[in.aggs[a]] = 1;
        }
        /* the whole pattern, as one list */
        struct rt_list all = {0};
        for (int k = 0; k < NB * P; k++)
            rt_list_add(&all, (long long)k * BS, BS);
        for (int t = 0; ok && t < T; t++) {
            long long lo = -1, hi = -1;
            for (int j = 0; j < co; j++) {
                int r = in.aggs[t * co + j];
                long long exp = member_bytes(&all, t, co, j);
                CHECK(r < 0 || r >= P || acc[r] == exp,
                      "CO: member %d of target %d's group (rank %d) wrote %lld bytes, expected "
                      "%lld (rows r %% %d == %d of target %d)",
                      j, t, r, r >= 0 && r < P ? acc[r] : -1, exp, co, j, t);
                if (r >= 0 && r < P) {
                    lo = lo < 0 || acc[r] < lo ? acc[r] : lo;
                    hi = acc[r] > hi ? acc[r] : hi;
                }
            }
            CHECK(hi - lo <= UNIT, "CO: target %d's group is unbalanced: %lld to %lld bytes", t,
                  lo, hi);
        }
        for (int r = 0; ok && r < P; r++)
            CHECK(is_agg[r] || acc[r] == 0, "CO: rank %d is no aggregator but wrote %lld bytes", r,
                  acc[r]);
        rt_list_free(&all);
        free(is_agg);
    }
    free(acc);
    RT_OK(rio_file_close(&fh));
}

static void big_requests(void)
{
    const int P = rt_nprocs;
    char big[16], ab[512];
    snprintf(big, sizeof big, "%d", BIG);
    rio_file *fh = open_with("1", big);
    if (!fh)
        return;
    struct rio_coll_info in;
    long long mine = 0;
    write_read(fh, big_pieces, &in, &mine, "big_req_size");
    long long *acc = malloc(sizeof *acc * (size_t)P);
    MPI_Allgather(&mine, 1, MPI_LONG_LONG, acc, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    if (rt_rank == 0 && P == 1) {
        CHECK(!strcmp(in.strategy, "stripe") && in.naggs == 0 && in.exchanged == 0 &&
                  strstr(in.reason, "big_req_size") && acc[0] == BIG_SEG,
              "big_req_size, one big request: strategy %s, %d aggregators, %lld bytes exchanged, "
              "%lld written by rank 0; expected stripe with none, nothing exchanged, %d written "
              "and a reason naming big_req_size: \"%s\"",
              in.strategy, in.naggs, in.exchanged, acc[0], BIG_SEG, in.reason);
    } else if (rt_rank == 0) {
        int ok = !strcmp(in.strategy, "stripe") && in.naggs == T;
        CHECK(ok, "big_req_size: strategy %s with %d aggregators {%s}, expected stripe with %d; "
                  "reason \"%s\"",
              in.strategy, in.naggs, ct_aggs_str(&in, ab, sizeof ab), T, in.reason);
        long long exch = 0, *exp = calloc((size_t)P, sizeof *exp);
        for (int q = 0; ok && q < P; q++) {
            struct rt_list l = {0};
            int is_big = big_pieces(q, P, &l);
            if (is_big) {
                exp[q] += l.total; /* its own segment, by itself */
            } else {
                for (int i = 0; i < l.n; i++)
                    for (long long o = l.p[i].off, e = o + l.p[i].len; o < e;) {
                        long long s = o / UNIT, len = rt_minll(e - o, UNIT - o % UNIT);
                        int agg = in.aggs[s % T];
                        if (agg != q)
                            exch += len;
                        if (agg >= 0 && agg < P)
                            exp[agg] += len;
                        o += len;
                    }
            }
            rt_list_free(&l);
        }
        if (ok) {
            CHECK(in.exchanged == exch,
                  "big_req_size: %lld bytes exchanged, expected %lld (the small requests' bytes "
                  "bound for another rank's target only)",
                  in.exchanged, exch);
            for (int q = 0; q < P; q++)
                CHECK(acc[q] == exp[q],
                      "big_req_size: rank %d (%s request%s) wrote %lld bytes, expected %lld", q,
                      q % 2 == 0 ? "big" : "small",
                      in.aggs[0] == q || in.aggs[1] == q ? ", aggregator" : "", acc[q], exp[q]);
        }
        free(exp);
    }
    free(acc);
    RT_OK(rio_file_close(&fh));
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(120);
    rt_path(path, sizeof path, "stripe");
    co_groups();
    big_requests();
    alarm(0);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
