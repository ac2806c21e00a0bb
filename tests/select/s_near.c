/*
 * s_near.c — below MULTIPLE, a decided nonblocking collective call runs a
 * strategy where each rank serves itself instead of the aggregating one
 * decided, when the selector measured it at half the decision's speed or
 * more (coll.c, own_for_later): then all its I/O runs after the call
 * returns.  With MPI_THREAD_MULTIPLE (-multiple) the file's lane runs the
 * whole call beside the program, and the decision stands.
 *
 * Candidates two_phase and independent, 1 call each, the pattern of
 * stest.h with M regions per rank and delay req=R: independent makes M
 * requests per rank (3R), two_phase's aggregator 2 (2R plus its
 * exchange), so two_phase is decided and independent runs at about 2/3
 * of its speed.
 *
 *   calls 1-3   blocking: two_phase and independent examined, two_phase
 *               decided and run; independent measured at half its speed
 *               or more (else the test proves nothing)
 *   calls 4, 5  iwrite_at_all and MPI_Wait: independent below MULTIPLE,
 *               two_phase with it; the selector's state unchanged (they
 *               are not measured)
 *   call 6      blocking: two_phase again
 *
 * About 5 s at 2 ranks.  The file is verified byte for byte.
 */
#include "stest.h"

#define M 3

int main(int argc, char **argv)
{
    st_clean_env();
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();
    const char *level = st_level();
    int multiple = !strcmp(level, "MULTIPLE");
    struct st_file f;
    MPI_Info info = rt_info("resonio_select_candidates", "two_phase,independent",
                            "resonio_select_calls", "1", "resonio_delay", "req=300000",
                            (char *)NULL);
    if (st_open(&f, "near", info)) {
        struct rio_select_info si;
        st_decide_two_phase(&f, M, &si, level);
        int tp = !strcmp(si.cand[0], "two_phase") ? 0 : 1;
        double ratio = si.tput[tp] > 0 ? si.tput[1 - tp] / si.tput[tp] : 0;
        CHECK(ratio >= 0.5 && ratio < 1,
              "%s: independent measured at %.2f of two_phase's throughput; the test needs "
              "0.5 or more, and below 1, so it tests nothing",
              level, ratio);

        st_call_as(&f, M, 1);
        st_call_as(&f, M, 1);
        const char *expect = multiple ? "two_phase" : "independent";
        for (int k = 3; k < 5; k++)
            CHECK(!strcmp(f.ran[k], expect), "%s: nonblocking call %d ran '%s', expected %s",
                  level, k + 1, f.ran[k], expect);
        st_get(&f, 0, &si);
        st_show(&si, "after calls 4 and 5 (nonblocking)");
        st_agree(&si, "after call 5");
        CHECK(si.reexams == 0 && !si.examining && !strcmp(si.chosen, "two_phase") &&
                  si.calls == 5,
              "%s: after the nonblocking calls reexams %d, examining %d, chosen '%s', calls "
              "%lld; expected two_phase kept after 5 calls",
              level, si.reexams, si.examining, si.chosen, si.calls);

        st_call(&f, M);
        CHECK(!strcmp(f.ran[5], "two_phase"), "%s: blocking call 6 ran '%s', expected two_phase",
              level, f.ran[5]);
        st_close_verify(&f);
    }
    MPI_Info_free(&info);
    rt_note("s_near (%s): %.2f s", level, MPI_Wtime() - t0);
    return rt_finish();
}
