/*
 * test_select_rules.c — the selector's rules, with throughputs given
 * instead of measured: deterministic, no timing.
 *
 * Each case drives rio__select_choose / rio__select_record as the
 * collective engine does (record the previous call's throughput, then
 * choose the next call's strategy), with each strategy's throughput taken
 * from a table the case sets, and checks which strategy every call ran
 * and the selector's state:
 *   full       prune 0: every candidate runs calls_per calls, the
 *              fastest is chosen after C * calls_per calls
 *   prune      prune 0.5: a candidate whose first call is below half of
 *              another's mean runs one call only; one above it runs all
 *   patience   patience 2: one slow call is forgiven (and a normal or
 *              fast call in between resets the count); two in a row
 *              start a re-examination that switches; patience 1
 *              re-examines at once; faster calls start none
 *   backoff    a re-examination that keeps the choice doubles the
 *              deviating calls the next one needs; one that changes it
 *              restores resonio_select_patience; a later file of the
 *              process starts with the doubled value
 *   reuse      a decision goes to a later selector of the process with the
 *              same storage, measured afresh there before it is judged
 *   resume     with resonio_select_reuse=enable an examination a file
 *              leaves unfinished goes on in the next file with the same
 *              storage and candidates; with automatic (the default) the
 *              next file examines afresh
 *   behind     a re-examination runs the choice first; a candidate
 *              the last examination found behind it runs one call
 *              unless that call beats the best, here and in a later file
 *   lost       a call of the examination whose result never comes is run
 *              again before the examination ends, not forgotten (the
 *              last candidate used to run on, since the examination
 *              waited for a result that would not come)
 *   held       calls held (rio__select_hold: nonblocking ones) keep the
 *              choice while a re-examination runs, record nothing, and
 *              leave the examination to the other calls; a signature
 *              never decided is examined by held calls too
 *   near       a decided call's rival that fits a test, measured at a
 *              share of the decision's speed or more (rio__select_near)
 *   time       the selector's own time is counted per call
 *   bounds     resonio_select_threshold is taken inside (0, 10) and
 *              resonio_select_prune inside [0, 1]; anything else, bounds
 *              and trailing text included, gives the default (0.15, 0.5),
 *              and a changed hint is read again at the next configure
 */
#include <string.h>

#include "file/file_int.h"
#include "select/select.h"
#include "select/select_int.h"
#include "unit.h"

#define MAXC 256

struct sim {
    struct rio_select *s;
    struct rio_hints h;
    const char *cands[4];
    int ncand;
    double speed[4];     /* throughput of each candidate, by index in cands */
    const char *ran[MAXC];
    int ncalls;
    int pending;         /* index of the last call's strategy, -1 none */
    double pend_speed;   /* its throughput, fixed when it ran */
    int hold;            /* the calls are held ones (rio__select_hold) */
};

/* The selector's block of m's hints, written in place (strings not owned:
 * set back to NULL before the hints are freed). */
static struct rio_select_settings *sel(struct sim *m)
{
    return (struct rio_select_settings *)rio__select_settings(&m->h);
}

static void sim_open(struct sim *m, const char *prune, int patience)
{
    memset(m, 0, sizeof *m);
    rio__hints_defaults(&m->h);
    sel(m)->select_prune = (char *)prune;
    sel(m)->select_patience = patience;
    sel(m)->select_reuse = RIO_DISABLE; /* every simulation examines afresh */
    m->cands[0] = "two_phase";
    m->cands[1] = "resonant";
    m->cands[2] = "independent";
    m->ncand = 3;
    m->pending = -1;
    CHECK(rio__select_create(MPI_COMM_SELF, &m->h, "posix:none", &m->s) == 0, "create");
}

/* A simulation whose selector starts from the process's earlier decisions
 * for storage (a later file), and their unfinished examinations when
 * reuse is RIO_ENABLE. */
static void sim_open_at(struct sim *m, const char *prune, const char *storage,
                        enum rio_tristate reuse)
{
    sim_open(m, prune, 2);
    rio__select_free(m->s);
    sel(m)->select_reuse = reuse;
    CHECK(rio__select_create(MPI_COMM_SELF, &m->h, storage, &m->s) == 0, "create");
}

static void sim_open_reuse(struct sim *m, const char *storage, enum rio_tristate reuse)
{
    sim_open_at(m, "0", storage, reuse);
}

static void sim_open_reusing(struct sim *m, const char *storage)
{
    sim_open_reuse(m, storage, RIO_AUTO);
}

static void sim_close(struct sim *m)
{
    rio__select_free(m->s);
    sel(m)->select_prune = NULL; /* not owned */
    rio__hints_free(&m->h);
}

static int cand_index(const struct sim *m, const char *name)
{
    for (int k = 0; k < m->ncand; k++)
        if (!strcmp(m->cands[k], name))
            return k;
    return -1;
}

/* n calls of one signature. */
static void sim_calls(struct sim *m, int n)
{
    struct rio_sel_sig sig = {.write = 1, .nprocs = 2, .bytes = 1 << 20, .regions = 2};
    char reason[160];
    for (int i = 0; i < n && m->ncalls < MAXC; i++) {
        if (m->pending >= 0)
            rio__select_record(m->s, m->pend_speed);
        rio__select_configure(m->s, &m->h);
        rio__select_hold(m->s, m->hold);
        const char *name = rio__select_choose(m->s, &sig, m->cands, m->ncand, reason,
                                              sizeof reason);
        rio__select_charge(m->s, 1e-6);
        m->ran[m->ncalls++] = name;
        m->pending = cand_index(m, name);
        CHECK(m->pending >= 0, "call %d ran '%s', not a candidate", m->ncalls, name);
        m->pend_speed = m->pending >= 0 ? m->speed[m->pending] : 0;
    }
}

/* One call per speed in turn, candidate k running at that speed. */
static void sim_speeds(struct sim *m, int k, const double *speed, int n)
{
    for (int i = 0; i < n; i++) {
        m->speed[k] = speed[i];
        sim_calls(m, 1);
    }
}

static void get(struct sim *m, struct rio_select_info *si)
{
    CHECK(rio__select_get(m->s, 0, si) == 0, "get");
}

/* n calls, then the selector's state of the signature. */
static void sim_run(struct sim *m, int n, struct rio_select_info *si)
{
    sim_calls(m, n);
    get(m, si);
}

/* A file that examines afresh (prune 0, patience 2) and passes its
 * decision on to later files: speeds s0..s2, decided after 10 calls. */
static void sim_decided(struct sim *m, double s0, double s1, double s2, struct rio_select_info *si)
{
    sim_open(m, "0", 2);
    sel(m)->select_reuse = RIO_AUTO;
    m->speed[0] = s0, m->speed[1] = s1, m->speed[2] = s2;
    sim_run(m, 10, si);
}

static void expect_ran(const struct sim *m, int from, int n, const char *name, const char *what)
{
    for (int k = from; k < from + n && k < m->ncalls; k++)
        CHECK(!strcmp(m->ran[k], name), "%s: call %d ran '%s', expected %s", what, k + 1,
              m->ran[k], name);
}

/* The calls from `from` on ran names[0], names[1], ... (NULL-ended). */
static void expect_calls(const struct sim *m, int from, const char *const *names,
                         const char *what)
{
    for (int k = 0; names[k]; k++)
        expect_ran(m, from + k, 1, names[k], what);
}

static void full_examination(void)
{
    struct sim m;
    struct rio_select_info si;
    sim_open(&m, "0", 1);
    m.speed[0] = 100e6, m.speed[1] = 300e6, m.speed[2] = 10e6;
    sim_run(&m, 9, &si);
    CHECK(si.examining == 1, "full: examining after 9 calls");
    sim_run(&m, 1, &si);
    CHECK(!si.examining && !strcmp(si.chosen, "resonant") && si.exam_calls == 9,
          "full: after 10 calls examining %d chosen '%s' exam_calls %lld", si.examining,
          si.chosen, si.exam_calls);
    expect_ran(&m, 0, 3, "two_phase", "full");
    expect_ran(&m, 3, 3, "resonant", "full");
    expect_ran(&m, 6, 3, "independent", "full");
    expect_ran(&m, 9, 1, "resonant", "full");
    sim_close(&m);
    printf("ok - full examination\n");
}

static void pruning(void)
{
    struct sim m;
    struct rio_select_info si;
    /* resonant (0.4 of two_phase) and independent (0.05) are dropped after
     * one call each */
    sim_open(&m, "0.5", 1);
    m.speed[0] = 100e6, m.speed[1] = 40e6, m.speed[2] = 5e6;
    sim_run(&m, 6, &si);
    expect_ran(&m, 0, 3, "two_phase", "prune");
    expect_ran(&m, 3, 1, "resonant", "prune");
    expect_ran(&m, 4, 1, "independent", "prune");
    expect_ran(&m, 5, 1, "two_phase", "prune (chosen)");
    CHECK(!si.examining && !strcmp(si.chosen, "two_phase") && si.exam_calls == 5,
          "prune: examining %d chosen '%s' exam_calls %lld (expected two_phase after 5)",
          si.examining, si.chosen, si.exam_calls);
    CHECK(si.tput_calls[0] == 3 && si.tput_calls[1] == 1 && si.tput_calls[2] == 1,
          "prune: measured over %d/%d/%d calls, expected 3/1/1", si.tput_calls[0],
          si.tput_calls[1], si.tput_calls[2]);
    sim_close(&m);

    /* above half: no pruning, and the faster one wins */
    sim_open(&m, "0.5", 1);
    m.speed[0] = 100e6, m.speed[1] = 60e6, m.speed[2] = 120e6;
    sim_run(&m, 10, &si);
    CHECK(si.tput_calls[0] == 3 && si.tput_calls[1] == 3 && si.tput_calls[2] == 3 &&
              !strcmp(si.chosen, "independent"),
          "prune above half: %d/%d/%d calls, chose '%s'", si.tput_calls[0], si.tput_calls[1],
          si.tput_calls[2], si.chosen);
    sim_close(&m);
    printf("ok - pruning\n");
}

static void patience(void)
{
    struct sim m;
    struct rio_select_info si;
    sim_open(&m, "0", 2);
    m.speed[0] = 300e6, m.speed[1] = 100e6, m.speed[2] = 100e6;
    sim_calls(&m, 10); /* examined; two_phase chosen at call 10 */
    get(&m, &si);
    CHECK(!strcmp(si.chosen, "two_phase"), "patience: chose '%s'", si.chosen);
    /* one slow call, then normal ones: no re-examination */
    m.speed[0] = 30e6;
    sim_calls(&m, 1);
    m.speed[0] = 300e6;
    sim_run(&m, 3, &si);
    CHECK(si.reexams == 0 && !si.examining, "patience: one deviating call re-examined");
    /* slow, normal, slow: still none (the count restarts) */
    static const double snss[] = {30e6, 300e6, 30e6, 300e6};
    sim_speeds(&m, 0, snss, 4);
    get(&m, &si);
    CHECK(si.reexams == 0, "patience: separated deviations re-examined (%d)", si.reexams);
    /* slow, then fast: the fast one resets the count; and faster calls,
     * however many, start none */
    static const double sfn[] = {30e6, 600e6, 600e6, 600e6, 600e6, 600e6, 300e6};
    sim_speeds(&m, 0, sfn, 7);
    get(&m, &si);
    CHECK(si.reexams == 0, "patience: faster calls re-examined (%d)", si.reexams);
    /* two slow calls in a row: the second one's result starts it */
    m.speed[0] = 30e6;
    sim_run(&m, 2, &si);
    CHECK(si.reexams == 0, "patience: re-examined before the second result arrived");
    sim_run(&m, 1, &si);
    CHECK(si.reexams == 1 && si.examining, "patience: two deviating calls: reexams %d "
          "examining %d", si.reexams, si.examining);
    sim_run(&m, 9, &si);
    CHECK(!si.examining && strcmp(si.chosen, "two_phase"),
          "patience: after the slowdown still chose '%s'", si.chosen);
    sim_close(&m);

    /* patience 1: the paper's rule, one deviating call is enough */
    sim_open(&m, "0", 1);
    m.speed[0] = 300e6, m.speed[1] = 100e6, m.speed[2] = 100e6;
    sim_calls(&m, 10);
    m.speed[0] = 30e6;
    sim_run(&m, 2, &si);
    CHECK(si.reexams == 1, "patience 1: reexams %d after one deviating call", si.reexams);
    sim_close(&m);
    printf("ok - patience\n");
}

/* A re-examination started by slow calls goes on only in calls that
 * are not held; held calls run the choice it started from meanwhile. */
static void held(void)
{
    struct sim m;
    struct rio_select_info si;
    sim_open(&m, "0", 1);
    m.speed[0] = 100e6, m.speed[1] = 300e6, m.speed[2] = 100e6;
    m.hold = 1; /* never decided: held calls examine */
    sim_run(&m, 10, &si);
    CHECK(!si.examining && !strcmp(si.chosen, "resonant") && si.exam_calls == 9,
          "held: first examination: examining %d chose '%s' after %lld calls", si.examining,
          si.chosen, si.exam_calls);
    CHECK(!rio__select_held(m.s), "held: a decided call was held");
    m.hold = 0;
    m.speed[1] = 30e6; /* a slow call starts a re-examination (patience 1) */
    sim_run(&m, 2, &si);
    CHECK(si.reexams == 1 && si.examining, "held: reexams %d examining %d", si.reexams,
          si.examining);
    long long exam = si.exam_calls;
    m.hold = 1;
    m.speed[0] = 1e3, m.speed[1] = 1e3, m.speed[2] = 1e3; /* would decide anything */
    int before = m.ncalls;
    sim_run(&m, 12, &si);
    expect_ran(&m, before, 12, "resonant", "held: calls during the re-examination");
    CHECK(rio__select_held(m.s), "held: the last call not held");
    CHECK(si.examining && si.exam_calls == exam && si.reexams == 1,
          "held: held calls moved the re-examination: examining %d exam calls %lld (were %lld)",
          si.examining, si.exam_calls, exam);
    m.hold = 0; /* the other calls finish it: two_phase is now the fastest */
    m.speed[0] = 300e6, m.speed[1] = 30e6, m.speed[2] = 100e6;
    sim_run(&m, 12, &si);
    CHECK(!si.examining && !strcmp(si.chosen, "two_phase") && si.reexams == 1,
          "held: after the unheld calls examining %d chose '%s'", si.examining, si.chosen);
    sim_close(&m);
    printf("ok - held\n");
}

/* Noise that re-examines only to keep the choice makes the next
 * re-examination wait for twice as many deviating calls; a real change
 * still switches, and restores the configured patience. */
static void backoff(void)
{
    struct sim m, b;
    struct rio_select_info si;
    sim_decided(&m, 300e6, 100e6, 100e6, &si);
    CHECK(!strcmp(si.chosen, "two_phase") && si.patience == 2, "backoff: chose '%s', patience %d",
          si.chosen, si.patience);
    /* two slow calls, then two_phase is as fast as before: the
     * re-examination keeps it and the patience doubles */
    static const double burst2[] = {30e6, 30e6, 300e6};
    sim_speeds(&m, 0, burst2, 3);
    sim_run(&m, 9, &si);
    CHECK(si.reexams == 1 && !si.examining && !strcmp(si.chosen, "two_phase") &&
              si.patience == 4,
          "backoff: after a kept choice reexams %d examining %d chose '%s' patience %d",
          si.reexams, si.examining, si.chosen, si.patience);
    /* three slow calls in a row no longer re-examine, four do */
    static const double burst3[] = {30e6, 30e6, 30e6, 300e6, 300e6};
    sim_speeds(&m, 0, burst3, 5);
    get(&m, &si);
    CHECK(si.reexams == 1 && !si.examining, "backoff: 3 deviating calls with patience 4: "
          "reexams %d examining %d", si.reexams, si.examining);
    static const double burst4[] = {30e6, 30e6, 30e6, 30e6, 300e6};
    sim_speeds(&m, 0, burst4, 5);
    get(&m, &si);
    CHECK(si.reexams == 2 && si.examining, "backoff: 4 deviating calls with patience 4: "
          "reexams %d examining %d", si.reexams, si.examining);
    sim_run(&m, 9, &si);
    CHECK(!si.examining && !strcmp(si.chosen, "two_phase") && si.patience == 8,
          "backoff: kept again: examining %d chose '%s' patience %d", si.examining, si.chosen,
          si.patience);
    /* a later file starts from the decision with the doubled patience */
    sim_open_reusing(&b, "posix:none");
    b.speed[0] = 300e6, b.speed[1] = 100e6, b.speed[2] = 100e6;
    sim_run(&b, 1, &si);
    CHECK(si.from_earlier && si.patience == 8, "backoff: later file from_earlier %d patience %d",
          si.from_earlier, si.patience);
    sim_close(&b);
    /* a real slowdown: the re-examination switches and the patience is
     * back to the configured 2 */
    m.speed[0] = 30e6;
    sim_run(&m, 9, &si);
    CHECK(si.reexams == 3 && si.examining, "backoff: 8 deviating calls with patience 8: "
          "reexams %d examining %d", si.reexams, si.examining);
    sim_run(&m, 9, &si);
    CHECK(!si.examining && strcmp(si.chosen, "two_phase") && si.patience == 2,
          "backoff: after a change examining %d chose '%s' patience %d", si.examining,
          si.chosen, si.patience);
    sim_close(&m);

    /* the doubling stops at 64; a larger configured patience stays */
    static const int conf[] = {40, 100}, want[] = {64, 100};
    for (int i = 0; i < 2; i++) {
        sim_open(&m, "0", conf[i]);
        m.speed[0] = 300e6, m.speed[1] = 100e6, m.speed[2] = 100e6;
        sim_run(&m, 10, &si);
        m.speed[0] = 30e6;
        sim_calls(&m, conf[i]);
        m.speed[0] = 300e6;
        sim_run(&m, 10, &si);
        CHECK(si.reexams == 1 && !si.examining && !strcmp(si.chosen, "two_phase") &&
                  si.patience == want[i],
              "backoff: patience %d kept: reexams %d examining %d chose '%s' patience %d "
              "(expected %d)", conf[i], si.reexams, si.examining, si.chosen, si.patience,
              want[i]);
        sim_close(&m);
    }
    printf("ok - backoff after re-examinations that keep the choice\n");
}

/* A decision carried to a later selector of the process (another file):
 * it runs from the first call, and its first calls_per calls set the
 * yardstick, so a file where everything is 10 times slower keeps it; a
 * real slowdown after that still re-examines. */
static void reuse(void)
{
    struct sim a, b;
    struct rio_select_info si;
    sim_decided(&a, 100e6, 100e6, 400e6, &si);
    CHECK(!strcmp(si.chosen, "independent") && !si.from_earlier, "reuse: file A chose '%s'",
          si.chosen);
    sim_close(&a);

    sim_open_reusing(&b, "posix:none");
    b.speed[0] = 10e6, b.speed[1] = 10e6, b.speed[2] = 40e6;
    sim_run(&b, 8, &si);
    expect_ran(&b, 0, 8, "independent", "reuse: file B");
    CHECK(si.from_earlier == 1 && si.exam_calls == 0 && si.reexams == 0 && !si.examining,
          "reuse: file B from_earlier %d exam_calls %lld reexams %d examining %d",
          si.from_earlier, si.exam_calls, si.reexams, si.examining);
    b.speed[2] = 4e6;
    sim_run(&b, 3, &si);
    CHECK(si.reexams == 1, "reuse: a slowdown in file B: reexams %d", si.reexams);
    sim_close(&b);

    /* another storage (layout) does not find it */
    sim_open_reusing(&b, "posix:65536x2");
    sim_run(&b, 1, &si);
    CHECK(si.examining && !si.from_earlier, "reuse: another storage: examining %d "
          "from_earlier %d", si.examining, si.from_earlier);
    sim_close(&b);
    printf("ok - reuse across files\n");
}

/* The result of the last call, as the engine's agreement brings it
 * before the call returns (the simulation records it at the next call). */
static void sim_settle(struct sim *m)
{
    if (m->pending >= 0)
        rio__select_record(m->s, m->pend_speed);
    m->pending = -1;
}

/* One collective call per file or a few: the examination spans files. */
static void resume(void)
{
    struct sim a, b;
    struct rio_select_info si;
    sim_open_reusing(&a, "posix:resume");
    a.speed[0] = 100e6, a.speed[1] = 100e6, a.speed[2] = 400e6;
    sim_run(&a, 2, &si);
    sim_settle(&a);
    get(&a, &si);
    CHECK(si.examining && si.tput_calls[0] == 2 && si.exam_calls == 2,
          "resume: file A examining %d, two_phase %d results, %lld calls examined",
          si.examining, si.tput_calls[0], si.exam_calls);
    sim_close(&a);

    /* the default, automatic: afresh */
    sim_open_reusing(&b, "posix:resume");
    sim_run(&b, 1, &si);
    CHECK(si.examining && !si.from_earlier && si.tput_calls[0] == 0,
          "resume: under automatic, examining %d from_earlier %d two_phase results %d",
          si.examining, si.from_earlier, si.tput_calls[0]);
    b.pending = -1; /* its call leaves nothing behind: unfinished too, no results */
    sim_close(&b);

    sim_open_reuse(&b, "posix:resume", RIO_ENABLE);
    b.speed[0] = 100e6, b.speed[1] = 100e6, b.speed[2] = 400e6;
    sim_run(&b, 1, &si);
    CHECK(si.examining && si.from_earlier && si.tput_calls[0] == 2 && si.tput_calls[2] == 0,
          "resume: file B goes on: examining %d from_earlier %d, results %d %d %d",
          si.examining, si.from_earlier, si.tput_calls[0], si.tput_calls[1], si.tput_calls[2]);
    sim_run(&b, 7, &si);
    expect_ran(&b, 0, 1, "two_phase", "resume: file B, two_phase's third call");
    expect_ran(&b, 1, 3, "resonant", "resume: file B");
    expect_ran(&b, 4, 3, "independent", "resume: file B");
    expect_ran(&b, 7, 1, "independent", "resume: file B, the choice");
    CHECK(!si.examining && !strcmp(si.chosen, "independent") && si.exam_calls == 7,
          "resume: file B decides after 9 examined calls in all: examining %d chose '%s', "
          "%lld examined here", si.examining, si.chosen, si.exam_calls);
    sim_close(&b);

    /* other candidates (another hint, another layout): examined afresh */
    sim_open_reusing(&a, "posix:resume2");
    sim_run(&a, 1, &si);
    sim_settle(&a);
    sim_close(&a);
    sim_open_reuse(&b, "posix:resume2", RIO_ENABLE);
    b.ncand = 2;
    sim_run(&b, 1, &si);
    CHECK(si.examining && !si.from_earlier && si.tput_calls[0] == 0,
          "resume: other candidates: examining %d from_earlier %d two_phase results %d",
          si.examining, si.from_earlier, si.tput_calls[0]);
    sim_close(&b);
    printf("ok - an unfinished examination goes on in the next file\n");
}

/* A re-examination runs the choice first; a candidate the last
 * examination found behind it gets one call, and more only if that call
 * beats the best so far.  A later file of the process knows which were
 * behind. */
static void behind(void)
{
    struct sim m, b;
    struct rio_select_info si;
    sim_open(&m, "0.5", 2);
    m.speed[0] = 100e6, m.speed[1] = 60e6, m.speed[2] = 40e6;
    sim_run(&m, 8, &si);
    CHECK(!si.examining && !strcmp(si.chosen, "two_phase") && si.exam_calls == 7,
          "behind: first examination chose '%s' after %lld calls", si.chosen, si.exam_calls);
    /* noise: two slow calls, then two_phase is as fast as before */
    static const double noise[] = {30e6, 30e6, 100e6, 100e6, 100e6, 100e6, 100e6, 100e6};
    sim_speeds(&m, 0, noise, 8);
    get(&m, &si);
    /* the choice first, one call each for the others, the choice kept */
    static const char *const kept[] = {"two_phase", "two_phase",   "two_phase",
                                       "resonant",  "independent", "two_phase", NULL};
    expect_calls(&m, 10, kept, "behind: noise");
    CHECK(si.reexams == 1 && !si.examining && !strcmp(si.chosen, "two_phase") &&
              si.exam_calls == 12,
          "behind: noise: reexams %d examining %d chose '%s' exam_calls %lld (expected 12)",
          si.reexams, si.examining, si.chosen, si.exam_calls);
    /* a real change: resonant's one call beats two_phase's, so it runs
     * all of its calls and is chosen; independent, behind and slower than
     * resonant, runs one */
    m.speed[0] = 20e6;
    sim_run(&m, 5, &si); /* patience 4 now */
    CHECK(si.reexams == 2 && si.examining, "behind: change: reexams %d", si.reexams);
    sim_run(&m, 7, &si);
    static const char *const changed[] = {"two_phase", "two_phase", "two_phase",
                                          "resonant",  "resonant",  "resonant",
                                          "independent", "resonant", NULL};
    expect_calls(&m, 20, changed, "behind: change");
    CHECK(!si.examining && !strcmp(si.chosen, "resonant"), "behind: change: chose '%s'",
          si.chosen);
    sim_close(&m);

    /* file A chooses independent, the last candidate; file B runs it first
     * when noise re-examines, and the others once each */
    sim_open_at(&m, "0.5", "posix:behind", RIO_AUTO);
    m.speed[0] = 40e6, m.speed[1] = 60e6, m.speed[2] = 100e6;
    sim_run(&m, 10, &si);
    CHECK(!strcmp(si.chosen, "independent") && si.tput_calls[1] == 3,
          "behind: file A chose '%s', resonant measured over %d calls", si.chosen,
          si.tput_calls[1]);
    sim_close(&m);
    sim_open_at(&b, "0.5", "posix:behind", RIO_AUTO);
    b.speed[0] = 40e6, b.speed[1] = 60e6;
    static const double later[] = {100e6, 100e6, 100e6, 50e6, 50e6, 100e6, 100e6, 100e6,
                                   100e6, 100e6, 100e6};
    sim_speeds(&b, 2, later, 11);
    get(&b, &si);
    expect_ran(&b, 0, 8, "independent", "behind: file B, baseline and the choice first");
    static const char *const later_kept[] = {"two_phase", "resonant", "independent", NULL};
    expect_calls(&b, 8, later_kept, "behind: file B");
    CHECK(si.reexams == 1 && !si.examining && si.exam_calls == 5,
          "behind: file B reexams %d examining %d exam_calls %lld (expected 5)", si.reexams,
          si.examining, si.exam_calls);
    sim_close(&b);
    printf("ok - a re-examination gives candidates behind the choice one call\n");
}

static void lost_result(void)
{
    struct sim m;
    struct rio_select_info si;
    sim_open(&m, "0", 2);
    m.speed[0] = 100e6, m.speed[1] = 300e6, m.speed[2] = 10e6;
    sim_calls(&m, 4);
    m.speed[1] = 0; /* call 5, resonant's second: unmeasured */
    sim_calls(&m, 1);
    m.speed[1] = 300e6;
    sim_run(&m, 5, &si);
    expect_ran(&m, 0, 3, "two_phase", "lost");
    expect_ran(&m, 3, 3, "resonant", "lost");
    expect_ran(&m, 6, 3, "independent", "lost");
    expect_ran(&m, 9, 1, "resonant", "lost: the missing result");
    sim_run(&m, 1, &si);
    CHECK(!si.examining && !strcmp(si.chosen, "resonant") && si.tput_calls[1] == 3,
          "lost: examining %d chose '%s', resonant measured over %d calls", si.examining,
          si.chosen, si.tput_calls[1]);
    sim_close(&m);
    printf("ok - a lost result is measured again\n");
}

static void own_time(void)
{
    struct sim m;
    struct rio_select_info si;
    sim_open(&m, "0", 1);
    m.speed[0] = 300e6, m.speed[1] = 100e6, m.speed[2] = 100e6;
    sim_run(&m, 14, &si);
    CHECK(si.select_time > 13.5e-6 && si.select_time < 14.5e-6,
          "time: %g s over 14 calls of 1 us", si.select_time);
    CHECK(si.select_time_chosen > 4.5e-6 && si.select_time_chosen < 5.5e-6,
          "time: %g s over the 5 chosen calls", si.select_time_chosen);
    sim_close(&m);
    printf("ok - the selector's own time\n");
}

static void hint_bounds(void)
{
    static const struct {
        const char *text;
        double threshold, prune; /* what each hint takes from the text */
    } cases[] = {
        {NULL, 0.15, 0.5},  {"0.3", 0.3, 0.3},   {"0", 0.15, 0},    {"1", 1, 1},
        {"10", 0.15, 0.5},  {"9.5", 9.5, 0.5},   {"-0.1", 0.15, 0.5}, {"1.01", 1.01, 0.5},
        {"abc", 0.15, 0.5}, {"0.2x", 0.15, 0.5}, {"", 0.15, 0.5},  {"nan", 0.15, 0.5},
    };
    struct sim m;
    sim_open(&m, NULL, 2);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        /* one selector, configured again with each text: a changed hint is re-read */
        sel(&m)->select_threshold = (char *)cases[i].text;
        sel(&m)->select_prune = (char *)cases[i].text;
        rio__select_configure(m.s, &m.h);
        CHECK(m.s->threshold == cases[i].threshold && m.s->prune == cases[i].prune,
              "bounds: '%s' gave threshold %g and prune %g, expected %g and %g",
              cases[i].text ? cases[i].text : "(unset)", m.s->threshold, m.s->prune,
              cases[i].threshold, cases[i].prune);
    }
    sel(&m)->select_threshold = NULL; /* not owned */
    sim_close(&m);
    printf("ok - the threshold and prune hints' bounds\n");
}

/* A read ahead (src/coll/auto.c): the strategy every decision of a kind
 * names, chosen for a signature by name only where that is its decision;
 * an entry made so holds that one candidate until a call brings the
 * applicable ones, and a re-examination then runs over all of them. */
static void ahead(void)
{
    struct sim a, b;
    struct rio_select_info si;
    struct rio_sel_sig sig = {.write = 1, .nprocs = 2, .bytes = 1 << 20, .regions = 2};
    char reason[160];
    sim_decided(&a, 100e6, 100e6, 400e6, &si);
    sim_close(&a);

    sim_open_reusing(&b, "posix:none");
    const char *p = rio__select_predict(b.s, 1, 2);
    CHECK(p && !strcmp(p, "independent"), "ahead: predicted '%s'", p ? p : "(none)");
    CHECK(!rio__select_predict(b.s, 0, 2) && !rio__select_predict(b.s, 1, 3),
          "ahead: a prediction for reads or another rank count");
    CHECK(!rio__select_choose_known(b.s, &sig, "two_phase", reason, sizeof reason) &&
              rio__select_count(b.s) == 0,
          "ahead: a name that is not the decision was chosen");
    struct rio_sel_sig other = sig;
    other.bytes *= 2;
    CHECK(!rio__select_choose_known(b.s, &other, "independent", reason, sizeof reason) &&
              rio__select_count(b.s) == 0,
          "ahead: a signature without a decision was chosen");
    int reexamined = 0;
    for (int i = 0; i < 20 && !reexamined; i++) {
        CHECK(rio__select_choose_known(b.s, &sig, "independent", reason, sizeof reason),
              "ahead: call %d: the decision not chosen", i + 1);
        rio__select_record(b.s, i < 3 ? 400e6 : 40e6); /* then far slower */
        get(&b, &si);
        if (i == 0)
            CHECK(si.ncand == 1 && !strcmp(si.cand[0], "independent") && si.from_earlier &&
                      si.calls == 1,
                  "ahead: made with ncand %d ('%s') from_earlier %d calls %lld", si.ncand,
                  si.cand[0], si.from_earlier, si.calls);
        reexamined = si.examining;
    }
    CHECK(reexamined, "ahead: no re-examination after slow calls");
    CHECK(!rio__select_predict(b.s, 1, 2), "ahead: predicted while re-examining");
    CHECK(!rio__select_choose_known(b.s, &sig, "independent", reason, sizeof reason),
          "ahead: chosen by name while re-examining");
    int before = b.ncalls;
    b.speed[0] = b.speed[1] = 100e6, b.speed[2] = 40e6;
    sim_run(&b, 1, &si);
    CHECK(si.ncand == 3 && si.examining, "ahead: the applicable candidates: ncand %d examining %d",
          si.ncand, si.examining);
    expect_ran(&b, before, 1, "independent", "ahead: the re-examination starts with the choice");
    sim_close(&b);
    printf("ok - reads ahead\n");
}

static int fits_independent(const char *name)
{
    return !strcmp(name, "independent");
}

static int fits_two_phase(const char *name)
{
    return !strcmp(name, "two_phase");
}

/* rio__select_near: of the candidates a test passes, the fastest measured
 * at share of the decision's throughput or more; none for a signature
 * never seen, a decision the test passes itself, or a re-examination that
 * has not measured the decision it started from yet. */
static void near(void)
{
    struct sim m;
    struct rio_select_info si;
    struct rio_sel_sig sig = {.write = 1, .nprocs = 2, .bytes = 1 << 20, .regions = 2};
    sim_open(&m, "0", 1);
    CHECK(!rio__select_near(m.s, &sig, fits_independent, 0.5), "near: a signature never seen");
    m.speed[0] = 300e6, m.speed[1] = 100e6, m.speed[2] = 200e6;
    sim_run(&m, 10, &si);
    CHECK(!si.examining && !strcmp(si.chosen, "two_phase"), "near: chose '%s'", si.chosen);
    const char *n = rio__select_near(m.s, &sig, fits_independent, 0.5);
    CHECK(n && !strcmp(n, "independent"), "near: at 0.5 got '%s'", n ? n : "(none)");
    CHECK(!rio__select_near(m.s, &sig, fits_independent, 0.7),
          "near: independent at 2/3 of the decision passed a share of 0.7");
    CHECK(!rio__select_near(m.s, &sig, fits_two_phase, 0.1), "near: the decision fits itself");
    m.speed[0] = 30e6; /* two slow calls: the second records the first */
    sim_run(&m, 2, &si);
    CHECK(si.examining && si.reexams == 1, "near: examining %d reexams %d", si.examining,
          si.reexams);
    CHECK(!rio__select_near(m.s, &sig, fits_independent, 0.5),
          "near: a rival while the re-examination has not measured the decision");
    sim_close(&m);
    printf("ok - near\n");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    full_examination();
    pruning();
    patience();
    backoff();
    reuse();
    resume();
    behind();
    lost_result();
    held();
    own_time();
    hint_bounds();
    ahead();
    near();
    printf("%d passed, %d failed\n", npass, nfail);
    MPI_Finalize();
    return nfail != 0;
}
