/*
 * s_reuse.c — decisions carried to later files of the same process.
 *
 * Every file uses candidates two_phase and independent, delay req=3000 and
 * the pattern of stest.h (as s_profile does).  Which candidate the first
 * file chooses is not asserted (the delays are short); the later files
 * must start with that choice.
 *
 *   1. file A (resonio_select_reuse=automatic, the default): 7 calls, the
 *      examination of 2 x 3 calls, decided with call 6.
 *   2. file B, same pattern: from call 1 the signature is chosen —
 *      from_earlier 1, from_profile 0, not examining, exam_calls 0, A's
 *      choice — and the call ran it (rio_coll_last).
 *   3. file C with resonio_select_reuse=disable: examines from call 1.
 *   4. file D with another layout (striping_unit/striping_factor): the
 *      storage identity differs, so A's decision does not apply.
 *   5. (2 ranks or more) the hint differs between ranks: what rank 0 says
 *      decides for every rank, so all agree — reuse disabled on rank 0
 *      only: every rank examines; disabled on the others only: every rank
 *      starts with A's choice.
 *   6. file E with another pattern (8 regions per rank instead of 16): a
 *      new signature, examined.
 *
 * After every first call, each rank's selection state is compared with
 * rank 0's, and every file's bytes are verified after close.
 */
#include "stest.h"

static const int N = 3, C = 2;

/* Hints of every file; reuse: NULL (the default, automatic: reuse), "enable"
 * or "disable".  stest.h disables reuse unless the hint is given. */
static MPI_Info file_info(const char *reuse, int layout)
{
    return rt_info("resonio_select_candidates", "two_phase,independent", "resonio_delay",
                   "req=3000", "resonio_select_reuse", reuse ? reuse : "automatic",
                   "striping_unit", layout ? "65536" : NULL, "striping_factor",
                   layout ? "2" : NULL, (char *)NULL);
}

/* A file of one call of m regions per rank: must it start with choice
 * (from an earlier file) or examine (choice NULL)? */
static void one_call(const char *suffix, MPI_Info info, int m, const char *choice,
                     const char *what)
{
    struct st_file f;
    struct rio_select_info si;
    char w[200];
    if (!st_open(&f, suffix, info))
        return;
    st_call(&f, m);
    snprintf(w, sizeof w, "%s, after call 1", what);
    st_find(&f, m, &si, 0);
    st_agree(&si, w);
    if (choice) {
        CHECK(si.from_earlier == 1 && si.from_profile == 0 && si.examining == 0 &&
                  si.exam_calls == 0 && !strcmp(si.chosen, choice),
              "%s: from_earlier %d from_profile %d examining %d exam_calls %lld chosen '%s', "
              "expected '%s' from the earlier file",
              w, si.from_earlier, si.from_profile, si.examining, si.exam_calls, si.chosen,
              choice);
        CHECK(!strcmp(f.ran[0], choice), "%s: the call ran '%s', not '%s'", w, f.ran[0],
              choice);
    } else {
        CHECK(si.from_earlier == 0 && si.from_profile == 0 && si.examining == 1 &&
                  si.chosen[0] == '\0',
              "%s: from_earlier %d from_profile %d examining %d chosen '%s', expected an "
              "examination",
              w, si.from_earlier, si.from_profile, si.examining, si.chosen);
    }
    st_close_verify(&f);
}

int main(int argc, char **argv)
{
    st_clean_env();
    rt_init(&argc, &argv);
    double t0 = MPI_Wtime();
    char decided[16] = "";

    /* 1. the first file examines and decides */
    {
        struct st_file f;
        struct rio_select_info si;
        MPI_Info info = file_info(NULL, 0);
        int opened = st_open(&f, "reuse.a", info);
        MPI_Info_free(&info);
        if (opened) {
            for (int k = 1; k <= C * N + 1; k++)
                st_call(&f, ST_N);
            st_find(&f, ST_N, &si, 0);
            st_agree(&si, "file A, after call 7");
            st_check_decided(&si, N, "file A, after call 7");
            CHECK(si.exam_calls == C * N && si.from_earlier == 0,
                  "file A: exam_calls %lld from_earlier %d, expected %d 0", si.exam_calls,
                  si.from_earlier, C * N);
            snprintf(decided, sizeof decided, "%s", si.chosen);
            st_close_verify(&f);
        }
    }
    if (!decided[0]) {
        CHECK(0, "file A made no decision; the rest would test nothing");
        return rt_finish();
    }

    /* 2. the same pattern in a new file starts with it */
    MPI_Info info = file_info(NULL, 0);
    one_call("reuse.b", info, ST_N, decided, "file B (same pattern)");
    MPI_Info_free(&info);

    /* 3. unless the hint says no */
    info = file_info("disable", 0);
    one_call("reuse.c", info, ST_N, NULL, "file C (resonio_select_reuse=disable)");
    MPI_Info_free(&info);

    /* 4. another layout is other storage */
    info = file_info(NULL, 1);
    one_call("reuse.d", info, ST_N, NULL, "file D (another layout)");
    MPI_Info_free(&info);

    /* 5. rank 0's hint decides for all */
    if (rt_nprocs > 1) {
        info = file_info(rt_rank == 0 ? "disable" : "enable", 0);
        one_call("reuse.e0", info, ST_N, NULL, "file (reuse disabled on rank 0 only)");
        MPI_Info_free(&info);
        info = file_info(rt_rank == 0 ? "enable" : "disable", 0);
        one_call("reuse.e1", info, ST_N, decided, "file (reuse disabled on ranks > 0 only)");
        MPI_Info_free(&info);
    }

    /* 6. another pattern is another signature */
    info = file_info(NULL, 0);
    one_call("reuse.f", info, ST_N / 2, NULL, "file F (8 regions per rank)");
    MPI_Info_free(&info);

    rt_note("s_reuse: %.2f s", MPI_Wtime() - t0);
    return rt_finish();
}
