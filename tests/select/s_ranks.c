/*
 * s_ranks.c — ranks with different delays still choose the same strategy.
 *
 * The throughput of a call is the same number on every rank (all ranks'
 * bytes over the slowest rank's time), so every rank must make the same
 * decision even when ranks see very different times of their own.  Two
 * files, the default candidates, 3 calls each, the pattern of stest.h:
 *
 *   A  no layout: two_phase, node_first, direct, independent (the
 *      stripe-aware ones need a layout), and every_rank where the ranks
 *      outnumber the nodes (elsewhere it is two_phase's plan).  Delay
 *      req=1000,rank=0,rank_mib=200000,jitter=5: rank 0 pays 0.2 s per MiB it moves, so
 *      under two_phase rank 0 (the aggregator) is slow and the other ranks,
 *      which only send, are fast; under independent every rank writes its
 *      own 16 KiB.  A rank judging by its own time would decide otherwise
 *      than rank 0.
 *   B  layout striping_unit=4096, striping_factor=2: all seven others
 *      and every_rank as in A.  Delay req=1000,rank=P-1,rank_req=4000,
 *      jitter=5: the last rank pays 5 ms per request.
 *
 * After C x 3 + 1 calls (C the number of candidates): every rank holds the
 * same state (all fields, doubles bit for bit), the choices gathered with
 * MPI_Allgather are equal, the choice is the candidate with the highest
 * mean, the candidates ran in turn 3 calls each, and the last call ran the
 * choice.  Which strategy wins is not asserted.  Each file is verified.
 */
#include "stest.h"

static const char *const no_layout[] = {"two_phase", "node_first", "direct", "independent",
                                        "every_rank"};
static const char *const all[] = {"two_phase",    "resonant", "stripe",      "node_first",
                                  "target_first", "direct",   "independent", "every_rank"};

static void scenario(const char *suffix, MPI_Info info, const char *const *cands, int ncand)
{
    const int N = 3;
    struct st_file f;
    struct rio_select_info si;
    char what[96];
    if (!st_open(&f, suffix, info))
        return;
    st_call(&f, ST_N);
    st_get(&f, 0, &si);
    snprintf(what, sizeof what, "%s after call 1", suffix);
    st_agree(&si, what);
    CHECK(si.ncand == ncand, "%s: %d candidates, expected %d", what, si.ncand, ncand);
    for (int i = 0; i < ncand; i++)
        CHECK(st_cand(&si, cands[i]) >= 0, "%s: %s is not a candidate", what, cands[i]);
    int C = si.ncand > 0 && si.ncand <= RIO_SELECT_MAX_CAND ? si.ncand : ncand;
    for (int k = 2; k <= C * N + 1; k++)
        st_call(&f, ST_N);
    st_get(&f, 0, &si);
    snprintf(what, sizeof what, "%s after call %d", suffix, C * N + 1);
    st_show(&si, what);
    st_show_ran(&f, 0, f.ncalls, suffix);
    st_agree(&si, what);
    st_same_choice(si.chosen, what);
    st_check_decided(&si, N, what);
    CHECK(si.exam_calls == (long long)C * N, "%s: exam_calls %lld, expected %d", what,
          si.exam_calls, C * N);
    st_check_rotation(&f, 0, N, &si, what);
    CHECK(!strcmp(f.ran[C * N], si.chosen), "%s: the last call ran '%s', chosen '%s'", what,
          f.ran[C * N], si.chosen);
    st_close_verify(&f);
}

int main(int argc, char **argv)
{
    st_clean_env();
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();

    MPI_Info a = rt_info("resonio_delay", "req=1000,rank=0,rank_mib=200000,jitter=5",
                         (char *)NULL);
    int every = rt_nodes(NULL) < rt_nprocs; /* every_rank a candidate */
    scenario("ranks_a", a, no_layout, 4 + every);
    MPI_Info_free(&a);

    char spec[96];
    snprintf(spec, sizeof spec, "req=1000,rank=%d,rank_req=4000,jitter=5", rt_nprocs - 1);
    MPI_Info b = rt_info("striping_unit", "4096", "striping_factor", "2", "resonio_delay", spec,
                         (char *)NULL);
    scenario("ranks_b", b, all, 7 + every);
    MPI_Info_free(&b);

    rt_note("s_ranks: %.2f s", MPI_Wtime() - t0);
    return rt_finish();
}
