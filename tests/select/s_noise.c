/*
 * s_noise.c — noise below the threshold does not start re-examinations.
 *
 * Candidates two_phase and independent, 3 calls each, the pattern of
 * stest.h with 3 regions per rank, delay req=250000,jitter=5 and
 * resonio_select_threshold=0.3: twice the default, because this machine's
 * own noise alone has reached 16 % of a call when other builds ran beside
 * the test, and the test is about the library keeping its choice under
 * noise below the threshold, not about the machine's quietness.
 * two_phase makes 2 requests of 250 ms +- 5 % per call on rank 0 (500 ms,
 * plus an exchange of 10 to 150 ms on this loaded machine), independent 3
 * per rank (>= 750 ms): two_phase is chosen with call 6.  A call
 * then differs from the examined mean of 3 calls by the jitter (at most
 * 10 %; 4 % with the driver's fixed sequence) and by the machine's noise
 * (measured up to 50-80 ms per call under load, 10-16 % of 500 ms), below
 * the threshold, so the 30 calls after the decision
 * must make no re-examination: after each of them the choice, exam_calls
 * (6) and reexams (0) are unchanged and the call ran the choice.  Few long
 * delays, not many short ones: every wake-up and every exchange on a
 * loaded machine adds its own noise.  The test also times the calls
 * itself and prints the largest deviation it saw; when a re-examination
 * happens it says whether the machine's noise passed the threshold (the
 * test's premise failed) or not (the library is at fault).  About 21 s.
 * The file is verified byte for byte.
 */
#include "stest.h"

#define AFTER 30
#define M 3 /* regions per rank */

int main(int argc, char **argv)
{
    st_clean_env();
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();
    const int N = 3, C = 2;
    struct st_file f;
    MPI_Info info = rt_info("resonio_select_candidates", "two_phase,independent",
                            "resonio_select_threshold", "0.3", "resonio_delay",
                            "req=250000,jitter=5", (char *)NULL);
    if (st_open(&f, "noise", info)) {
        struct rio_select_info si;
        char what[64];
        for (int k = 1; k <= C * N + 1; k++)
            st_call(&f, M);
        st_get(&f, 0, &si);
        st_show(&si, "after call 7");
        st_agree(&si, "after call 7");
        st_check_decided(&si, N, "after the examination");
        CHECK(!strcmp(si.chosen, "two_phase"), "chose '%s', expected two_phase", si.chosen);
        char chosen[16];
        snprintf(chosen, sizeof chosen, "%s", si.chosen);
        int bad = 0, trigger = 0; /* trigger: the call whose measurement re-examined */
        for (int k = C * N + 2; k <= C * N + 1 + AFTER; k++) {
            st_call(&f, M);
            st_get(&f, 0, &si);
            snprintf(what, sizeof what, "after call %d", k);
            st_agree(&si, what);
            if (si.reexams != 0 && !trigger)
                trigger = k - 1;
            if (si.reexams != 0 || si.examining || strcmp(si.chosen, chosen) ||
                si.exam_calls != C * N || strcmp(f.ran[k - 1], chosen)) {
                if (!bad++)
                    st_show(&si, what);
                CHECK(0, "%s: reexams %d examining %d chosen '%s' exam_calls %lld ran '%s'; "
                      "expected 0 0 '%s' %d '%s'",
                      what, si.reexams, si.examining, si.chosen, si.exam_calls, f.ran[k - 1],
                      chosen, C * N, chosen);
            }
        }
        st_show(&si, "after 30 more calls");
        /* The test's own clock (the slowest rank's time in each call): how
         * far the calls after the decision, up to the first that started a
         * re-examination, were from the examined mean, to tell the
         * machine's noise from the library's doing. */
        double tm[ST_MAXCALLS], mean = 0, worst = 0, lo = 1e9, hi = 0, tdev = 0;
        int nm = 0, at = 0;
        st_times(&f, tm);
        for (int k = 0; k < C * N; k++)
            if (!strcmp(f.ran[k], chosen)) {
                mean += 1 / tm[k];
                nm++;
            }
        mean = nm ? mean / nm : 0;
        int last = trigger ? trigger : f.ncalls - 1; /* 1-based; the last call is not recorded */
        for (int k = C * N; k < last && mean > 0; k++) {
            double dev = (1 / tm[k] > mean ? 1 / tm[k] - mean : mean - 1 / tm[k]) / mean;
            lo = tm[k] < lo ? tm[k] : lo;
            hi = tm[k] > hi ? tm[k] : hi;
            if (dev > worst) {
                worst = dev;
                at = k + 1;
            }
            if (k + 1 == trigger)
                tdev = dev;
        }
        rt_note("by the test's clock: examined mean of %s %.0f ms; calls %d..%d: %.0f..%.0f ms, "
                "largest deviation %.1f %% (call %d)",
                chosen, mean > 0 ? 1e3 / mean : 0.0, C * N + 1, last, lo * 1e3, hi * 1e3,
                worst * 100, at);
        if (trigger && tdev > 0.3)
            rt_note("diagnosis: this machine's own noise moved call %d (%.0f ms) by %.1f %%, more "
                    "than the 30 %% threshold, and the library re-examined as the contract says: "
                    "the test's premise (noise well below 30 %%) did not hold on this run",
                    trigger, tm[trigger - 1] * 1e3, tdev * 100);
        else if (trigger)
            rt_note("diagnosis: call %d started a re-examination although it deviated by %.1f %% "
                    "by the test's clock (threshold 30 %%): look at the library",
                    trigger, tdev * 100);
        CHECK(si.calls == C * N + 1 + AFTER, "calls %lld, expected %d", si.calls,
              C * N + 1 + AFTER);
        CHECK(si.reexams == 0, "reexams %d after %d calls within the jitter, expected 0",
              si.reexams, AFTER);
        st_close_verify(&f);
    }
    MPI_Info_free(&info);
    rt_note("s_noise: %.2f s", MPI_Wtime() - t0);
    return rt_finish();
}
