/*
 * s_beside.c — a decided signature's nonblocking collective calls are not
 * measured: their time is not the strategy's (on the file's lane with
 * -multiple, where the program runs beside them; below MULTIPLE, where a
 * decided call keeps its transfers for later), so a slowdown they meet
 * starts no re-examination, while a blocking call that meets it does.
 *
 * Candidates two_phase and independent, 1 call each, the pattern and the
 * delays of s_switch (stest.h): with req=100000 two_phase is chosen after
 * call 2 (independent >= 1.6 s a call, two_phase 0.2-0.35 s).  Then
 * rio_file_set_info slows rank 0 by 8.192 s per MiB, which makes
 * two_phase's calls about 2 s (its aggregator, rank 0, read-modify-writes
 * the span): 82 % or more below its examined mean, beyond the threshold
 * of 0.7 with a patience of one call.
 *
 *   call 3       blocking, two_phase (decided)
 *   calls 4, 5   iwrite_at_all and MPI_Wait, two_phase, slowed: no
 *                re-examination (reexams 0, chosen two_phase), yet each
 *                took 3 times call 3 or more (else the test proves nothing)
 *   call 6       blocking, slowed: re-examination (reexams 1, examining)
 *
 * About 8 s at 2 ranks.  The file is verified byte for byte.
 */
#include "stest.h"

int main(int argc, char **argv)
{
    st_clean_env();
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();
    const char *level = st_level();
    struct st_file f;
    MPI_Info info = rt_info("resonio_select_candidates", "two_phase,independent",
                            "resonio_select_calls", "1", "resonio_select_threshold", "0.7",
                            "resonio_delay", "req=100000", (char *)NULL);
    if (st_open(&f, "beside", info)) {
        struct rio_select_info si;
        st_decide_two_phase(&f, ST_N, &si, level);

        MPI_Info slow = rt_info("resonio_delay", "req=5000,rank=0,rank_mib=8192000",
                                (char *)NULL);
        RT_OK(rio_file_set_info(f.fh, slow));
        MPI_Info_free(&slow);

        st_call_as(&f, ST_N, 1);
        st_call_as(&f, ST_N, 1);
        double t[ST_MAXCALLS];
        st_times(&f, t);
        st_get(&f, 0, &si);
        st_show(&si, "after calls 4 and 5 (nonblocking)");
        st_agree(&si, "after call 5");
        for (int k = 3; k < 5; k++) {
            CHECK(!strcmp(f.ran[k], "two_phase"), "%s: call %d ran '%s', expected two_phase",
                  level, k + 1, f.ran[k]);
            CHECK(t[k] >= 3 * t[2],
                  "%s: call %d took %.3f s, call 3 %.3f s: the delay did not slow it (expected "
                  "3 times or more), so it tests nothing",
                  level, k + 1, t[k], t[2]);
        }
        CHECK(si.reexams == 0 && !si.examining && !strcmp(si.chosen, "two_phase"),
              "%s: after slowed nonblocking calls reexams %d, examining %d, chosen '%s'; "
              "expected two_phase kept (their time is not measured)",
              level, si.reexams, si.examining, si.chosen);
        CHECK(si.calls == 5, "%s: calls %lld, expected 5 (nonblocking calls count as seen)",
              level, si.calls);

        st_call(&f, ST_N);
        st_get(&f, 0, &si);
        st_show(&si, "after call 6 (blocking)");
        st_agree(&si, "after call 6");
        CHECK(si.reexams == 1 && si.examining == 1,
              "%s: after a slowed blocking call reexams %d, examining %d; expected the "
              "re-examination",
              level, si.reexams, si.examining);
        st_close_verify(&f);
    }
    MPI_Info_free(&info);
    rt_note("s_beside (%s): %.2f s", level, MPI_Wtime() - t0);
    return rt_finish();
}
