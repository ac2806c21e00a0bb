/*
 * s_pick.c — an examination picks the faster of two candidates.
 *
 * Candidates two_phase and independent (resonio_select_candidates), the
 * default resonio_select_calls (3), the pattern of stest.h with delay
 * req=60000: independent makes 16 requests of 60 ms per rank per call
 * (>= 960 ms), two_phase 2 on rank 0 (120 ms plus an exchange that takes
 * up to 150 ms on this loaded machine), so two_phase is 3.5 to 8 times
 * faster.  About 4 s.
 *
 * A call's throughput is recorded with its error agreement, so the
 * examination of 2 candidates x 3 calls ends with call 6: after calls
 * 1..5 the selector is examining with nothing chosen; after call 6 it has
 * chosen two_phase, the candidate with the highest mean, with exam_calls
 * == 6 and each candidate measured over 3 calls, and call 7 ran
 * two_phase.  Calls 1..6 ran the candidates in turn, 3 calls each
 * (rio_coll_last).  Every rank holds the same state (all fields compared
 * with rank 0's, the choice also by MPI_Allgather).  The measured means
 * cannot exceed what the delays allow: independent's mean throughput is
 * at most all bytes / (16 * 60 ms).  rio_select_get of an index out of
 * range fails.  The selector's own time is counted, the call after the
 * choice's apart.  The file is verified byte for byte.
 */
#include "stest.h"

#define REQ_US 60000.0

int main(int argc, char **argv)
{
    st_clean_env();
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();
    const int N = 3, C = 2;
    struct st_file f;
    MPI_Info info = rt_info("resonio_select_candidates", "two_phase,independent",
                            "resonio_delay", "req=60000", (char *)NULL);
    if (st_open(&f, "pick", info)) {
        CHECK(st_count(&f) == 0, "a new file has %d signatures, expected 0", st_count(&f));
        struct rio_select_info si;
        char what[64];
        for (int k = 1; k <= C * N + 1; k++) {
            st_call(&f, ST_N);
            int n = st_count(&f);
            CHECK(n == 1, "after call %d: %d signatures, expected 1", k, n);
            st_get(&f, 0, &si);
            snprintf(what, sizeof what, "after call %d", k);
            st_agree(&si, what);
            CHECK(si.calls == k, "%s: calls %lld, expected %d", what, si.calls, k);
            if (k < C * N) {
                CHECK(si.examining == 1, "%s: not examining (examination of %d x %d calls "
                      "ends with call %d)", what, C, N, C * N);
                CHECK(si.chosen[0] == '\0', "%s: chosen '%s' while examining", what, si.chosen);
            } else {
                CHECK(si.examining == 0 && si.chosen[0], "%s: examining %d chosen '%s' (the "
                      "examination ends with call %d)", what, si.examining, si.chosen, C * N);
            }
        }
        st_show(&si, "after 7 calls");
        st_show_ran(&f, 0, f.ncalls, "s_pick");
        st_check_decided(&si, N, "after the examination");
        CHECK(si.ncand == C, "ncand %d, expected %d", si.ncand, C);
        CHECK(st_cand(&si, "two_phase") >= 0 && st_cand(&si, "independent") >= 0,
              "candidates are not two_phase and independent");
        CHECK(!strcmp(si.chosen, "two_phase"), "chose '%s', expected two_phase", si.chosen);
        CHECK(si.exam_calls == (long long)C * N, "exam_calls %lld, expected %d", si.exam_calls,
              C * N);
        CHECK(si.reexams == 0, "reexams %d, expected 0", si.reexams);
        CHECK(si.from_profile == 0, "from_profile %d without a profile", si.from_profile);
        CHECK(si.write == 1 && si.nprocs == rt_nprocs, "write %d nprocs %d", si.write, si.nprocs);
        CHECK(si.bytes == (long long)ST_N * ST_B * rt_nprocs, "bytes %lld, expected %lld",
              si.bytes, (long long)ST_N * ST_B * rt_nprocs);
        CHECK(si.regions == (long long)ST_N * rt_nprocs, "regions %lld, expected %lld",
              si.regions, (long long)ST_N * rt_nprocs);
        st_check_rotation(&f, 0, N, &si, "examination");
        CHECK(!strcmp(f.ran[C * N], "two_phase"), "call %d ran '%s', expected the choice",
              C * N + 1, f.ran[C * N]);
        /* the selector's own time: spent on every call, and the one call
         * after the choice is a part of it far below the call's 120 ms */
        CHECK(si.select_time > 0 && si.select_time_chosen > 0 &&
                  si.select_time_chosen < si.select_time && si.select_time_chosen < 0.01,
              "select_time %g s, of it %g s after the choice", si.select_time,
              si.select_time_chosen);
        int ind = st_cand(&si, "independent");
        if (ind >= 0) {
            double bound = (double)si.bytes / (ST_N * REQ_US * 1e-6);
            CHECK(si.tput[ind] <= bound * 1.01,
                  "independent's mean %g B/s exceeds %g B/s, the most %d requests of %g us "
                  "allow: are the delays applied?",
                  si.tput[ind], bound, ST_N, REQ_US);
        }
        st_same_choice(si.chosen, "after the examination");
        /* only 0 <= i < count is a signature: anything else is an error, not a crash */
        struct rio_select_info bad = {.size = sizeof bad};
        CHECK(rio_select_get(f.fh, 1, &bad) != MPI_SUCCESS, "rio_select_get(1) of 1 signature "
              "succeeded");
        CHECK(rio_select_get(f.fh, -1, &bad) != MPI_SUCCESS, "rio_select_get(-1) succeeded");
        st_close_verify(&f);
    }
    MPI_Info_free(&info);
    rt_note("s_pick: %.2f s", MPI_Wtime() - t0);
    return rt_finish();
}
