/*
 * test_coll_strategies.c — the strategy table and auto's candidates.
 *
 *   names      rio_strategy_count/rio_strategy_name and the independent
 *              methods' rio_indep_method_count/rio_indep_method_name:
 *              distinct names, NULL outside the range, each strategy
 *              found by its name and fitting the selector's public
 *              arrays, the methods' names those of the hint ("auto" of
 *              both not among them)
 *   find       a misspelt, empty or NULL name finds nothing (the engine
 *              then falls back), "auto" finds auto
 *   cmake      with -strategies LIST and -methods LIST (the tests' CMake
 *              lists, read from strategies/list.h and indep/methods.h):
 *              the same names in the same order
 *   candidates auto's examination order for calls built by hand, as the
 *              engine had it before the strategies described themselves:
 *              the rules' first pick, then every_rank where it asks to be
 *              early, then the table's order; strategies that need a
 *              layout, serve each rank alone under romio_cb_*=enable or
 *              tiny writes, or plan as two_phase does, left out
 *   fixed      auto's fixed rules where nothing is measured: single
 *              regions in rank order go unaggregated unless
 *              romio_cb_write=enable forces collective buffering
 *   sized      its aggregator count from the call's bytes, spread over
 *              the nodes, and where auto examines it
 *   spread     the aggregators spread over the nodes against the scan
 *              the engine used before, on random node maps
 */
#include <string.h>

#include "coll/coll_int.h"
#include "file/file_int.h"
#include "indep/indep.h"
#include "unit.h"

static void test_names(void)
{
    int n = rio_strategy_count();
    CHECK(n >= 1 && n <= RIO_SELECT_MAX_CAND, "rio_strategy_count() = %d", n);
    CHECK(n == RIO_COLL_NSTRATEGIES, "count %d, table %d", n, (int)RIO_COLL_NSTRATEGIES);
    CHECK(rio_strategy_name(-1) == NULL && rio_strategy_name(n) == NULL,
          "a name outside [0, %d)", n);
    for (int i = 0; i < n; i++) {
        const char *s = rio_strategy_name(i);
        CHECK(s && *s, "strategy %d has no name", i);
        if (!s)
            continue;
        struct rio_select_info si;
        CHECK(strlen(s) < sizeof si.cand[0], "%s does not fit rio_select_info", s);
        CHECK(strcmp(s, "auto") != 0, "auto is counted as a strategy");
        const struct rio_coll_strategy *d = rio__coll_strategy_find(s);
        CHECK(d && !strcmp(d->name, s) && d->plan, "%s: no descriptor of that name", s);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(s, rio_strategy_name(j)) != 0, "%s listed twice", s);
    }

    int m = rio_indep_method_count();
    CHECK(m == RIO_INDEP_NMETHODS - 1, "rio_indep_method_count() = %d, the enum %d", m,
          RIO_INDEP_NMETHODS - 1);
    CHECK(rio_indep_method_name(-1) == NULL && rio_indep_method_name(m) == NULL,
          "a method name outside [0, %d)", m);
    for (int i = 0; i < m; i++) {
        const char *s = rio_indep_method_name(i);
        CHECK(s && *s && strcmp(s, "auto") != 0, "method %d is '%s'", i, s ? s : "(null)");
        /* the hint's spelling: the same table */
        CHECK(s && !strcmp(rio__indep_method_name((enum rio_indep_method)(i + 1)), s),
              "method %d: hint name differs", i);
        for (int j = 0; j < i; j++)
            CHECK(s && strcmp(s, rio_indep_method_name(j)) != 0, "method %s listed twice",
                  s ? s : "(null)");
    }
    CHECK(!strcmp(rio__indep_method_name(RIO_INDEP_AUTO), "auto"), "RIO_INDEP_AUTO not 'auto'");
}

static void test_find(void)
{
    CHECK(rio__coll_strategy_find("two_phas") == NULL, "a misspelt name was found");
    CHECK(rio__coll_strategy_find("two_phase_") == NULL, "a longer name was found");
    CHECK(rio__coll_strategy_find("") == NULL, "the empty name was found");
    CHECK(rio__coll_strategy_find(NULL) == NULL, "NULL was found");
    const struct rio_coll_strategy *a = rio__coll_strategy_find("auto");
    CHECK(a && a == rio__coll_strategy_auto(), "auto not found");
    CHECK(rio__coll_strategy_fallback() && !rio__coll_strategy_fallback()->alone,
          "the fallback does not aggregate");
    CHECK(rio__coll_strategy_unaggregated() && rio__coll_strategy_unaggregated()->alone,
          "the unaggregated strategy aggregates");
}

/* A CMake list (a;b;c) against count names of the library, in order. */
static void test_cmake(const char *what, const char *list, int count, const char *(*name)(int))
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", list);
    int i = 0;
    for (char *save = NULL, *t = strtok_r(buf, ";", &save); t; t = strtok_r(NULL, ";", &save), i++)
        CHECK(name(i) && !strcmp(t, name(i)), "CMake's %s %d is %s, the library's %s", what, i, t,
              name(i) ? name(i) : "(none)");
    CHECK(i == count, "CMake lists %d %s, the library %d", i, what, count);
}

/* ---- auto's candidates ----------------------------------------------------- */

struct call_case {
    const char *name;
    int write, nprocs, nnodes, cb;      /* cb: romio_cb_write/read */
    int layout_count;                   /* 0: no layout */
    MPI_Offset bytes, regions;          /* per rank */
    int nonoverlap;
    const char *want;                   /* candidates in order, comma separated */
};

static const struct call_case cases[] = {
    /* small writes, 2 ranks on one node: every_rank first (rules), the
     * ones alone left out (tiny regions), no layout */
    {"tiny-write", 1, 2, 1, RIO_AUTO, 0, 64 << 10, 1024, 0, "every_rank,two_phase,node_first"},
    /* reads start unaggregated, then every_rank (early for reads) */
    {"read", 0, 2, 1, RIO_AUTO, 0, 64 << 10, 1024, 0,
     "independent,every_rank,two_phase,node_first,direct"},
    /* large regions, one rank per node: every_rank is two_phase's plan */
    {"big-write", 1, 2, 2, RIO_AUTO, 4, 8 << 20, 4, 0,
     "independent,two_phase,resonant,stripe,node_first,target_first,direct"},
    /* the same forced to aggregate: the rules' first pick (independent)
     * is no candidate, so the table's order stands (not resonant first) */
    {"big-write-cb", 1, 2, 2, RIO_ENABLE, 4, 8 << 20, 4, 0,
     "two_phase,resonant,stripe,node_first,target_first"},
    /* striped, medium writes, 2 ranks on one node: resonant, then
     * every_rank, then the rest */
    {"striped", 1, 2, 1, RIO_AUTO, 4, 64 << 10, 16, 0,
     "resonant,every_rank,two_phase,stripe,node_first,target_first,direct,independent"},
    /* every_rank's rule up to 16 ranks; past it every rank would send its
     * metadata to every other, and two_phase comes first */
    {"tiny-write-16", 1, 16, 1, RIO_AUTO, 0, 64 << 10, 1024, 0, "every_rank,two_phase,node_first"},
    {"tiny-write-32", 1, 32, 2, RIO_AUTO, 0, 64 << 10, 1024, 0, "two_phase,every_rank,node_first"},
    /* single regions in rank order: unaggregated first even for writes */
    {"single", 1, 4, 2, RIO_AUTO, 0, 4096, 1, 1,
     "independent,every_rank,two_phase,node_first,direct"},
};

#define CASE_RANKS 32 /* the most ranks a case may have */

struct built {
    struct rio_store_ops ops;
    struct rio_store st;
    struct rio_hints h;
    struct rio_coll_req req;
    struct rio_coll_sum sum[CASE_RANKS];
    int node_of[CASE_RANKS];
    struct rio_coll_call c;
};

static void build(struct built *b, const struct call_case *k)
{
    memset(b, 0, sizeof *b);
    b->ops.name = "test";
    b->st.ops = &b->ops;
    rio__hints_defaults(&b->h);
    /* the engine's block of b->h, written in place as a parsed hint would be */
    struct rio_coll_settings *cs = (struct rio_coll_settings *)rio__coll_settings(&b->h);
    cs->romio_cb_write = cs->romio_cb_read = (enum rio_tristate)k->cb;
    b->st.hints = &b->h;
    b->req.st = &b->st;
    b->req.hints = &b->h;
    b->req.write = k->write;
    struct rio_coll_call *c = &b->c;
    c->req = &b->req;
    c->nprocs = k->nprocs;
    c->nnodes = k->nnodes;
    c->node_of = b->node_of;
    c->sum = b->sum;
    c->layout.known = k->layout_count > 0;
    c->layout.count = k->layout_count;
    c->layout.unit = k->layout_count ? 1 << 20 : 0;
    c->nonoverlap = k->nonoverlap;
    MPI_Offset span = k->bytes * 2; /* holes as large as the data */
    for (int i = 0; i < k->nprocs; i++) {
        b->node_of[i] = i * k->nnodes / k->nprocs;
        b->sum[i].first = i * span;
        b->sum[i].end = (i + 1) * span;
        b->sum[i].bytes = k->bytes;
        b->sum[i].regions = k->regions;
        c->total += k->bytes;
        c->total_regions += k->regions;
    }
    c->min = 0;
    c->max = k->nprocs * span;
}

/* The strategies the cases below were written against. */
static int known(const char *s)
{
    static const char *const names[] = {"two_phase",  "every_rank",   "resonant", "stripe",
                                        "node_first", "target_first", "direct",   "independent"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i]))
            return 1;
    return 0;
}

static void test_candidates(void)
{
    for (size_t n = 0; n < sizeof cases / sizeof cases[0]; n++) {
        struct built b;
        CHECK(cases[n].nprocs <= CASE_RANKS, "%s: %d ranks, at most %d", cases[n].name,
              cases[n].nprocs, CASE_RANKS);
        if (cases[n].nprocs > CASE_RANKS)
            continue;
        build(&b, &cases[n]);
        const char *cands[RIO_COLL_NSTRATEGIES];
        int nc = rio__coll_auto_candidates(&b.c, cands);
        /* a strategy added after these expectations may join anywhere:
         * only the ones they know of are compared, in their order */
        char got[256] = "";
        for (int k = 0; k < nc; k++)
            if (known(cands[k]))
                snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", got[0] ? "," : "",
                         cands[k]);
        CHECK(!strcmp(got, cases[n].want), "%s: candidates %s, expected %s", cases[n].name, got,
              cases[n].want);
    }
}

static void test_fixed(void)
{
    static const struct call_case single = {"single", 1, 2, 2, RIO_AUTO, 0, 4096, 1, 1, ""};
    static const struct call_case forced = {"forced", 1, 2, 2, RIO_ENABLE, 0, 4096, 1, 1, ""};
    const struct rio_coll_strategy *a = rio__coll_strategy_auto();
    struct built b;
    struct rio_coll_plan p;

    build(&b, &single);
    memset(&p, 0, sizeof p);
    CHECK(a->plan(&b.c, &p) == 0 && p.mode == RIO_COLL_INDEP, "single regions: mode %d",
          (int)p.mode);
    CHECK(strstr(p.reason, "each rank its own") != NULL, "single regions: reason '%s'", p.reason);
    rio__coll_plan_free(&p);

    build(&b, &forced);
    memset(&p, 0, sizeof p);
    p.round_bytes = 1 << 20;
    CHECK(a->plan(&b.c, &p) == 0 && p.mode == RIO_COLL_EXCHANGE && p.naggs >= 1,
          "romio_cb_write=enable: mode %d, %d aggregators", (int)p.mode, p.naggs);
    CHECK(!strcmp(p.reason, "auto: two_phase"), "romio_cb_write=enable: reason '%s'", p.reason);
    rio__coll_plan_free(&p);
}

/* sized: one aggregator per resonio_bytes_per_agg bytes of the call, at
 * least one, at most one a rank, the k-th rank of each node in turn; on a
 * call in rank order (nonoverlap) at least one per resonio_ranks_per_agg
 * ranks; a candidate of auto only where that count differs from
 * two_phase's (one a node) and every_rank's (every rank) and no hint
 * chooses aggregators. */
static void test_sized(void)
{
    static const struct {
        int nprocs, nnodes;
        long long per, cb_nodes;
        int nonoverlap, ranks_per;
        const char *aggs; /* the plan's aggregators */
        int candidate;
    } k[] = {
        {4, 2, 32 << 20, 0, 0, 8, "0", 1},     /* 256 KiB: one aggregator for 2 nodes */
        {4, 2, 128 << 10, 0, 0, 8, "0,2", 0},  /* one a node: two_phase's */
        {4, 2, 64 << 10, 0, 0, 8, "0,1,2,3", 0}, /* one a rank: every_rank's */
        {4, 2, 1 << 10, 0, 0, 8, "0,1,2,3", 0},  /* at most one a rank */
        {8, 4, 200 << 10, 0, 0, 8, "0,2,4", 1},  /* 512 KiB: 3, one each on nodes 0-2 */
        {8, 4, 32 << 20, 2, 0, 8, "0", 0},       /* cb_nodes chooses: two_phase's */
        /* in rank order: one a resonio_ranks_per_agg ranks at least */
        {4, 2, 32 << 20, 0, 1, 8, "0", 1},              /* 4 ranks: one */
        {16, 1, 32 << 20, 0, 1, 8, "0,1", 1},           /* 16 on one node: two */
        {32, 2, 32 << 20, 0, 1, 8, "0,1,16,17", 1},     /* 32 on two nodes: four */
        {32, 2, 32 << 20, 0, 1, 5, "0,1,2,3,16,17,18", 1}, /* 32 / 5, rounded up: seven */
        {32, 2, 32 << 20, 0, 0, 8, "0", 1},             /* interleaved: the bytes' count */
        {32, 2, 32 << 20, 0, 1, 0, "0", 1},             /* no bound */
        {16, 1, 32 << 20, 0, 1, 16, "0", 0},            /* one: two_phase's on one node */
        {32, 2, 256 << 10, 0, 1, 8, "0,1,2,3,16,17,18,19", 1}, /* the bytes ask for more */
    };
    const struct rio_coll_strategy *sized = rio__coll_strategy_find("sized");
    CHECK(sized && sized->exchanges && !sized->alone, "sized: not in the table as exchanging");
    if (!sized)
        return;
    for (size_t n = 0; n < sizeof k / sizeof k[0]; n++) {
        struct call_case cc = {"sized", 1, k[n].nprocs, k[n].nnodes, RIO_AUTO, 0, 64 << 10, 16,
                               0, ""};
        struct built b;
        build(&b, &cc);
        struct rio_coll_settings *cs = (struct rio_coll_settings *)rio__coll_settings(&b.h);
        cs->bytes_per_agg = k[n].per;
        cs->cb_nodes = (int)k[n].cb_nodes;
        cs->ranks_per_agg = k[n].ranks_per;
        b.c.nonoverlap = k[n].nonoverlap;
        struct rio_coll_plan p;
        memset(&p, 0, sizeof p);
        p.round_bytes = 1 << 20;
        char got[64] = "";
        int ok = sized->plan(&b.c, &p) == 0 && p.mode == RIO_COLL_EXCHANGE;
        CHECK(ok, "sized %zu: plan", n);
        for (int a = 0; ok && a < p.naggs; a++)
            snprintf(got + strlen(got), sizeof got - strlen(got), "%s%d", a ? "," : "",
                     p.aggs[a]);
        CHECK(!strcmp(got, k[n].aggs), "sized %zu: aggregators %s, expected %s", n, got,
              k[n].aggs);
        rio__coll_plan_free(&p);
        const char *cands[RIO_COLL_NSTRATEGIES];
        int nc = rio__coll_auto_candidates(&b.c, cands), in = 0;
        for (int c = 0; c < nc; c++)
            in |= !strcmp(cands[c], "sized");
        CHECK(in == k[n].candidate, "sized %zu: a candidate %d, expected %d", n, in,
              k[n].candidate);
    }
}

/* spread: the k-th lowest rank of every node in turn, as the engine took
 * them by scanning every rank for each node and round (kept here as the
 * reference), on random node maps with empty and uneven nodes, for every
 * count asked (-1: one a node). */
static int spread_ref(const int *node_of, int P, int nnodes, int want, int *aggs)
{
    int n = 0;
    for (int k = 0; n < P; k++) {
        int took = 0;
        for (int node = 0; node < nnodes && n < P; node++) {
            if (want >= 0 && n >= want)
                break;
            for (int i = 0, seen = 0; i < P; i++)
                if (node_of[i] == node && seen++ == k) {
                    aggs[n++] = i;
                    took = 1;
                    break;
                }
        }
        if (!took || want < 0 || n >= want)
            break;
    }
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && aggs[j - 1] > aggs[j]; j--) {
            int t = aggs[j];
            aggs[j] = aggs[j - 1];
            aggs[j - 1] = t;
        }
    return n;
}

static void test_spread(void)
{
    enum { MAXP = 48 };
    unsigned x = 2463534242u; /* xorshift */
    int bad = 0;
    for (int t = 0; t < 3000 && bad < 5; t++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        int P = 1 + (int)(x % MAXP), nn = 1 + (int)((x >> 8) % 9), blocks = (x >> 16) & 1;
        int node_of[MAXP];
        for (int i = 0; i < P; i++) {
            x ^= x << 13, x ^= x >> 17, x ^= x << 5;
            node_of[i] = blocks ? i * nn / P : (int)(x % (unsigned)nn); /* random: some empty */
        }
        struct rio_coll_call c;
        memset(&c, 0, sizeof c);
        c.nprocs = P;
        c.nnodes = nn;
        c.node_of = node_of;
        for (int want = -1; want <= P + 1; want++) {
            int got[MAXP], ref[MAXP];
            int n = rio__coll_spread_aggs(&c, want, got), r = spread_ref(node_of, P, nn, want, ref);
            int same = n == r && (n <= 0 || !memcmp(got, ref, sizeof(int) * (size_t)n));
            CHECK(same, "spread: %d ranks on %d nodes (%s), %d asked: %d taken, expected %d",
                  P, nn, blocks ? "blocks" : "random", want, n, r);
            bad += !same;
        }
    }
}

int main(int argc, char **argv)
{
    const char *list = NULL, *methods = NULL;
    for (int i = 1; i + 1 < argc; i++)
        if (!strcmp(argv[i], "-strategies"))
            list = argv[i + 1];
        else if (!strcmp(argv[i], "-methods"))
            methods = argv[i + 1];
    test_names();
    test_find();
    if (list)
        test_cmake("strategies", list, rio_strategy_count(), rio_strategy_name);
    if (methods)
        test_cmake("methods", methods, rio_indep_method_count(), rio_indep_method_name);
    test_candidates();
    test_fixed();
    test_sized();
    test_spread();
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
