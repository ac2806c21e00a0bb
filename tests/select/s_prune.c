/*
 * s_prune.c — a candidate far slower than another is dropped after one
 * call, and the examination starts with the fixed rules' pick.
 *
 * File A: candidates two_phase and independent, resonio_select_prune=0.5,
 * the pattern of stest.h (16 regions per rank) with delay req=60000:
 * two_phase is 3.5 to 8 times faster than independent (see s_pick).  The
 * rules pick two_phase for many regions per rank, so it runs calls 1..3;
 * independent runs call 4, and its result, recorded with the call's
 * agreement (below half of two_phase's mean), drops it: the examination
 * ends there.  After call 3 the selector is still examining; after call 4
 * it has chosen two_phase with exam_calls 4, two_phase measured over 3
 * calls and independent over 1, and call 5 ran two_phase.
 *
 * File B: the same candidates, one region per rank in rank order (each
 * rank's request whole): the rules pick independent, so the examination
 * starts with it (call 1 ran independent, whatever the speeds).
 *
 * File C: candidates two_phase, every_rank and independent, the pattern of
 * file A: where the node holds several ranks (np >= 2 here, all on one
 * machine) and no hint chooses the aggregators, the rules pick every_rank,
 * so call 1 ran it; at np 1 every_rank is two_phase's plan and no
 * candidate, and call 1 ran two_phase.
 *
 * File D: the same with cb_nodes=1: the hint chooses the aggregators and
 * the rules keep two_phase, which follows it (call 1 ran two_phase).
 *
 * Every rank holds the same state; the files are verified byte for byte.
 */
#include "stest.h"

int main(int argc, char **argv)
{
    st_clean_env();
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();
    struct st_file f;
    struct rio_select_info si;
    MPI_Info info = rt_info("resonio_select_candidates", "two_phase,independent",
                            "resonio_select_prune", "0.5", "resonio_delay", "req=60000",
                            (char *)NULL);
    if (st_open(&f, "prune", info)) {
        for (int k = 1; k <= 3; k++)
            st_call(&f, ST_N);
        st_get(&f, 0, &si);
        st_agree(&si, "after call 3");
        CHECK(si.examining == 1, "after call 3: not examining");
        st_call(&f, ST_N);
        st_get(&f, 0, &si);
        st_agree(&si, "after call 4");
        CHECK(si.examining == 0 && !strcmp(si.chosen, "two_phase"),
              "after call 4: examining %d, chose '%s' (expected two_phase, independent pruned)",
              si.examining, si.chosen);
        st_call(&f, ST_N);
        st_get(&f, 0, &si);
        st_agree(&si, "after call 5");
        st_show(&si, "after call 5");
        st_show_ran(&f, 0, f.ncalls, "s_prune A");
        CHECK(si.examining == 0 && !strcmp(si.chosen, "two_phase"),
              "after call 5: examining %d, chose '%s' (expected two_phase, independent pruned)",
              si.examining, si.chosen);
        int tp = st_cand(&si, "two_phase"), ind = st_cand(&si, "independent");
        CHECK(tp >= 0 && ind >= 0, "candidates are not two_phase and independent");
        if (tp >= 0 && ind >= 0) {
            CHECK(si.tput_calls[tp] == 3 && si.tput_calls[ind] == 1,
                  "two_phase measured over %d calls (expected 3), independent over %d (1)",
                  si.tput_calls[tp], si.tput_calls[ind]);
            CHECK(si.tput[ind] < 0.5 * si.tput[tp], "independent at %g B/s is not below half "
                  "of two_phase's %g B/s: the premise of the test failed", si.tput[ind],
                  si.tput[tp]);
        }
        CHECK(si.exam_calls == 4, "exam_calls %lld, expected 4", si.exam_calls);
        for (int k = 0; k < 3; k++)
            CHECK(!strcmp(f.ran[k], "two_phase"), "call %d ran '%s', expected two_phase first",
                  k + 1, f.ran[k]);
        CHECK(!strcmp(f.ran[3], "independent"), "call 4 ran '%s', expected independent",
              f.ran[3]);
        CHECK(!strcmp(f.ran[4], "two_phase"), "call 5 ran '%s', expected the choice", f.ran[4]);
        st_close_verify(&f);
    }
    if (st_open(&f, "prune_first", info)) {
        st_call(&f, 1);
        st_get(&f, 0, &si);
        st_agree(&si, "B after call 1");
        CHECK(!strcmp(f.ran[0], "independent"),
              "one region per rank in rank order: call 1 ran '%s', expected independent first",
              f.ran[0]);
        st_close_verify(&f);
    }
    MPI_Info_free(&info);

    info = rt_info("resonio_select_candidates", "two_phase,every_rank,independent",
                   (char *)NULL);
    const char *want = rt_nprocs > 1 ? "every_rank" : "two_phase";
    if (st_open(&f, "prune_node", info)) {
        st_call(&f, ST_N);
        CHECK(!strcmp(f.ran[0], want), "%d ranks on one node, no cb_nodes: call 1 ran '%s', "
              "expected %s first", rt_nprocs, f.ran[0], want);
        st_close_verify(&f);
    }
    MPI_Info_set(info, "cb_nodes", "1");
    if (st_open(&f, "prune_cbnodes", info)) {
        st_call(&f, ST_N);
        CHECK(!strcmp(f.ran[0], "two_phase"),
              "cb_nodes=1: call 1 ran '%s', expected two_phase first", f.ran[0]);
        st_close_verify(&f);
    }
    MPI_Info_free(&info);
    rt_note("s_prune: %.2f s", MPI_Wtime() - t0);
    return rt_finish();
}
