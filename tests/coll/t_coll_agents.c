/*
 * t_coll_agents.c — resonant's agents and the order in which targets see
 * requests.  Needs at least 4 ranks.
 *
 * Agents.  The rule: for each target t = 0..T-1, the agent is the
 * rank that requests the most bytes on t and is not already an agent,
 * lowest rank on ties.  Hand-computed cases on a file of 2 targets
 * (striping_factor 2, striping_unit 4096), where ranks 0..3 request
 * bytes[r][t] bytes on target t (ranks 4.. request nothing):
 *   most      rank 2 has most on target 0, rank 1 most on target 1 -> 2, 1
 *   tie       ranks 1 and 3 tie on target 0 (lowest wins), rank 0 has
 *             most on target 1                                     -> 1, 0
 *   taken     rank 3 has most on both; on target 1 it is already an agent,
 *             and ranks 0 and 2 tie for second (lowest wins)       -> 3, 0
 * The expected agents are written in the table and also computed from the
 * bytes by the rule (ct_resonant_agents), which must agree, and the
 * engine's rio_coll_last aggs must equal them, for the write and the read.
 * Each rank's pieces are placed so that the ranks' extents interleave: the
 * call is not "non-overlapping", so resonant aggregates through agents.
 *
 * Order.  "Ascending order per target": on an interleaved write (rank i
 * writes block k*P+i) over striping_factor 4, cb_buffer_size 16 KiB,
 * every request to a target after its first arrives above the previous
 * one (target_ascending == target_reqs - 1) for resonant, target_first and
 * stripe.  two_phase with one aggregator per rank (cb_nodes = P) cuts the
 * extent into P domains that each span every target and writes them in
 * parallel rounds, so some target sees a request below the previous one.
 * And resonant's non-overlapping path (segments in rank order, each
 * spanning every target): "ranks that share targets issue in rank order",
 * so it is ascending too; so is resonant on a single target, which with 8
 * or more ranks gets several agents taking its stripe rows in timed turns.
 * Data is verified with POSIX reads throughout.
 */
#include "ctest_util.h"

#include <signal.h>

#define UNIT 4096

static char path[4200];

struct agent_case {
    const char *name;
    long long bytes[4][2]; /* ranks 0..3, targets 0..1 */
    int expect[2];
};

static const struct agent_case agent_cases[] = {
    {"most", {{100, 500}, {200, 3000}, {4000, 1000}, {300, 200}}, {2, 1}},
    {"tie", {{500, 3000}, {2000, 100}, {1000, 100}, {2000, 100}}, {1, 0}},
    {"taken", {{100, 2500}, {500, 100}, {200, 2500}, {4000, 4000}}, {3, 0}},
};
#define NAGENT_CASES ((int)(sizeof agent_cases / sizeof agent_cases[0]))

/* Rank q's pieces in an agent case: its target-0 bytes at the start of
 * stripe row q, its target-1 bytes at the start of row 2P-1-q, so that
 * rank 0's extent contains everybody's. */
static void agent_access(const struct agent_case *ac, int q, int P, struct ct_access *a)
{
    ct_access_init(a);
    long long b0 = q < 4 ? ac->bytes[q][0] : 0, b1 = q < 4 ? ac->bytes[q][1] : 0;
    rt_list_add(&a->file, (2LL * q) * UNIT, b0);
    rt_list_add(&a->file, (2LL * (2 * P - 1 - q) + 1) * UNIT, b1);
    rt_list_add(&a->mem, 0, b0 + b1);
    a->membytes = b0 + b1;
}

/* An hindexed filetype of the access's file pieces (disp 0, bytes); a
 * rank without pieces gets MPI_BYTE (a filetype must hold data) and moves
 * 0 bytes through it. */
static MPI_Datatype pieces_type(const struct ct_access *a)
{
    int n = a->file.n;
    if (n == 0)
        return MPI_BYTE;
    int *bl = malloc(sizeof *bl * (size_t)(n ? n : 1));
    MPI_Aint *dp = malloc(sizeof *dp * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++) {
        bl[i] = (int)a->file.p[i].len;
        dp[i] = (MPI_Aint)a->file.p[i].off;
    }
    MPI_Datatype t;
    MPI_Type_create_hindexed(n, bl, dp, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    free(bl);
    free(dp);
    return t;
}

/* The rank's own file bytes are its pattern (POSIX, after a barrier). */
static void verify_own(const struct ct_access *a, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < a->file.n; i++) {
        unsigned char *b = malloc((size_t)a->file.p[i].len);
        long long got = rt_pread(path, b, (size_t)a->file.p[i].len, a->file.p[i].off);
        CHECK(got == a->file.p[i].len, "%s: POSIX read of %lld bytes at %lld gave %lld", what,
              a->file.p[i].len, a->file.p[i].off, got);
        if (got == a->file.p[i].len)
            CHECK_PAT(b, (size_t)got, rt_rank, a->file.p[i].off, "%s: file at %lld", what,
                      a->file.p[i].off);
        free(b);
    }
    MPI_Barrier(MPI_COMM_WORLD); /* before anyone removes or rewrites the file */
}

static rio_file *open_with(const char *strategy, int factor, const char *cb, const char *cb_nodes)
{
    rio_file *fh = RIO_FILE_NULL;
    char unit[16], fac[16];
    snprintf(unit, sizeof unit, "%d", UNIT);
    snprintf(fac, sizeof fac, "%d", factor);
    ct_unlink_all(path);
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", unit, "striping_factor",
                            fac, "cb_buffer_size", cb, "cb_nodes", cb_nodes, NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    return RT_OK(rc) ? fh : RIO_FILE_NULL;
}

static void agents(const struct agent_case *ac)
{
    const int P = rt_nprocs, T = 2;
    long long *tb = calloc((size_t)P * T, sizeof *tb);
    int *rule = calloc((size_t)ct_resonant_nagents(P, T), sizeof *rule);
    struct ct_access a;
    for (int q = 0; q < P; q++) {
        agent_access(ac, q, P, &a);
        ct_target_bytes(&a.file, UNIT, T, &tb[(size_t)q * T]);
        ct_access_free(&a);
    }
    ct_resonant_agents(tb, P, T, rule);
    free(tb);
    /* the table is the rule applied by hand: both must agree */
    CHECK(rule[0] == ac->expect[0] && rule[1] == ac->expect[1],
          "case %s: the rule gives agents %d %d, the table says %d %d (test bug)", ac->name,
          rule[0], rule[1], ac->expect[0], ac->expect[1]);
    free(rule);

    rio_file *fh = open_with("resonant", T, NULL, NULL);
    if (!fh)
        return;
    agent_access(ac, rt_rank, P, &a);
    MPI_Datatype ft = pieces_type(&a);
    unsigned char *wb = ct_write_buf(&a, rt_rank), *rb = malloc((size_t)a.membytes + 1);
    struct rio_coll_info in;
    MPI_Status st;
    char ab[256];
    RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    for (int write = 1; write >= 0; write--) {
        int rc = write ? rio_file_write_at_all(fh, 0, wb, (int)a.membytes, MPI_BYTE, &st)
                       : rio_file_read_at_all(fh, 0, rb, (int)a.membytes, MPI_BYTE, &st);
        if (!RT_OK(rc))
            CHECK(0, "case %s: %s failed", ac->name, write ? "write" : "read");
        if (ct_last(fh, &in) && rt_rank == 0)
            CHECK(!strcmp(in.strategy, "resonant") && in.naggs == T &&
                      in.aggs[0] == ac->expect[0] && in.aggs[1] == ac->expect[1],
                  "case %s (%s): agents {%s} (strategy %s), expected %d %d; reason \"%s\"",
                  ac->name, write ? "write" : "read", ct_aggs_str(&in, ab, sizeof ab),
                  in.strategy, ac->expect[0], ac->expect[1], in.reason);
        if (write)
            verify_own(&a, ac->name);
        else
            CHECK_BYTES(rb, wb, NULL, (size_t)a.membytes, "case %s: read back", ac->name);
    }
    ct_type_free(&ft);
    RT_OK(rio_file_close(&fh));
    free(wb);
    free(rb);
    ct_access_free(&a);
}

/* ---- order per target ------------------------------------------------------------- */

#define OR_BS 3000
#define OR_NB 32
#define OR_FACTOR 4
#define OR_CB "16384"
#define SEG_S (5 * OR_FACTOR * UNIT + 1000) /* a segment spans every target */

/* Interleaved (rank i writes block k*P+i) or segmented access of the rank. */
static void order_access(int segmented, struct ct_access *a)
{
    const int P = rt_nprocs, q = rt_rank;
    ct_access_init(a);
    if (segmented) {
        rt_list_add(&a->file, (long long)q * SEG_S, SEG_S);
        rt_list_add(&a->mem, 0, SEG_S);
        a->membytes = SEG_S;
        a->filetype = MPI_BYTE;
        a->disp = 0;
        a->offset = (long long)q * SEG_S;
        return;
    }
    for (long long k = 0; k < OR_NB; k++)
        rt_list_add(&a->file, (k * P + q) * OR_BS, OR_BS);
    rt_list_add(&a->mem, 0, (long long)OR_NB * OR_BS);
    a->membytes = (long long)OR_NB * OR_BS;
    MPI_Datatype c;
    MPI_Type_contiguous(OR_BS, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)P * OR_BS, &a->filetype);
    MPI_Type_free(&c);
    MPI_Type_commit(&a->filetype);
    a->disp = (long long)q * OR_BS;
    a->offset = 0;
}

/* Write the order pattern with a strategy over `factor` targets;
 * expect_ascending: 1 every target ascending, 0 some target not. */
static void order(const char *strategy, int factor, int segmented, int expect_ascending)
{
    char nodes[16], ab[1024], tb[1024], what[96];
    snprintf(what, sizeof what, "%s, %d target(s)",
             segmented ? "segmented (non-overlapping)" : "interleaved", factor);
    snprintf(nodes, sizeof nodes, "%d", rt_nprocs);
    rio_file *fh = open_with(strategy, factor, OR_CB,
                             !strcmp(strategy, "two_phase") ? nodes : NULL);
    if (!fh)
        return;
    struct ct_access a;
    struct rio_coll_info in;
    MPI_Status st;
    order_access(segmented, &a);
    unsigned char *wb = ct_write_buf(&a, rt_rank);
    RT_OK(rio_file_set_view(fh, a.disp, MPI_BYTE, a.filetype, "native", MPI_INFO_NULL));
    if (!RT_OK(rio_file_write_at_all(fh, a.offset, wb, (int)a.membytes, MPI_BYTE, &st)))
        CHECK(0, "%s %s write failed", strategy, what);
    if (ct_last(fh, &in) && rt_rank == 0) {
        int t = ct_first_unordered_target(&in);
        CHECK(!strcmp(in.strategy, strategy), "%s %s: ran %s", strategy, what, in.strategy);
        CHECK(in.ntargets == factor, "%s %s: %d targets, expected %d", strategy, what,
              in.ntargets, factor);
        if (expect_ascending)
            CHECK(t < 0,
                  "%s %s write: target %d saw requests out of ascending order (ascending/"
                  "requests: %s; aggs {%s}; reason \"%s\")",
                  strategy, what, t, ct_targets_str(&in, tb, sizeof tb),
                  ct_aggs_str(&in, ab, sizeof ab), in.reason);
        else
            CHECK(t >= 0 && in.naggs == rt_nprocs && in.rounds > 1,
                  "%s %s write with cb_nodes=%d: expected several aggregators writing every "
                  "target in parallel rounds, so that some target sees a request below the "
                  "previous one; got naggs %d, rounds %d, ascending/requests: %s",
                  strategy, what, rt_nprocs, in.naggs, in.rounds,
                  ct_targets_str(&in, tb, sizeof tb));
    }
    verify_own(&a, strategy);
    RT_OK(rio_file_close(&fh));
    free(wb);
    ct_access_free(&a);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(120);
    rt_path(path, sizeof path, "agents");
    if (rt_nprocs < 4) {
        CHECK(0, "t_coll_agents needs at least 4 ranks, got %d", rt_nprocs);
        return rt_finish();
    }
    for (int c = 0; c < NAGENT_CASES; c++)
        agents(&agent_cases[c]);
    order("resonant", OR_FACTOR, 0, 1);
    order("target_first", OR_FACTOR, 0, 1);
    order("stripe", OR_FACTOR, 0, 1);
    order("two_phase", OR_FACTOR, 0, 0);
    order("resonant", OR_FACTOR, 1, 1);
    /* one target: with 8 ranks or more resonant gives it several agents
     * that take its stripe rows in turn, timed so it still sees ascending
     * offsets */
    order("resonant", 1, 0, 1);
    alarm(0);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
