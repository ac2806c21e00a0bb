/*
 * stest.h — what the selector's tests share beyond rtest.h.
 *
 * Every test writes one pattern whose cost under each candidate follows
 * from the delay: driver and a few hints, so the tests know which
 * candidate is faster without relying on timings of their own:
 *
 *   call k, rank r, region j (j < m, m <= ST_N): ST_B bytes at
 *       k * ST_T + j * ST_S + r * ST_B,   ST_S = P * ST_B + ST_H,
 *   i.e. groups of P interleaved 1 KiB regions (one per rank), each group
 *   followed by a 7 KiB hole; every call writes its own tile of the file,
 *   so the data of every call can be verified afterwards.  The pattern is
 *   the same for every call of the same m (same bytes, regions and
 *   relative offsets: one signature), and m selects another signature.
 *
 *   resonio_indep_method=posix  the independent candidate makes one storage
 *                               request per region: m per rank per call;
 *   ds_in_coll=enable           two_phase's aggregator (rank 0, the only
 *                               one on one node) read-modify-writes its
 *                               domain over the holes: one read and one
 *                               write of the span, i.e. 2 requests per
 *                               call, moving 2 * span bytes on rank 0.
 *
 * With delay req=R, independent takes >= m*R per call and two_phase 2R
 * plus its exchange: two_phase is faster by up to m/2 (8 for m = 16).
 * With rank=0,rank_mib=X rank 0 pays X per MiB it moves: two_phase moves
 * 2*span (about 2*(P+7)*m KiB) there, independent only m KiB, so two_phase
 * slows 2(P+7) times more.
 *
 * This machine's two cores are shared with other jobs (load averages of 8
 * and more while MPI programs of other suites busy-poll), and then an
 * exchange between ranks costs 10 to 150 ms instead of microseconds, and
 * each wake-up from a delay a few ms.  The tests therefore make the delays
 * that decide an outcome several times larger than that, prefer few long
 * delays to many short ones where a call's time must be steady, and never
 * depend on a strategy whose time is mostly exchange being steady.
 *
 * The file is opened as "delay:<fname>.<suffix>" and verified with POSIX
 * reads of <fname>.<suffix>: the pattern in every region, zeros elsewhere
 * (the holes read-modify-written by two_phase must stay zero).
 *
 * Everything is static inline; each program includes this header once.
 */
#ifndef STEST_H
#define STEST_H

#include "resonio.h"
#include "../mpi/rtest.h"

#define ST_B 1024          /* bytes per region */
#define ST_H (7 * 1024)    /* hole after each group of P regions */
#define ST_N 16            /* regions per rank of a full tile */
#define ST_MAXCALLS 512

#define ST_S ((long long)rt_nprocs * ST_B + ST_H)  /* stride of the groups */
#define ST_T ((long long)ST_N * ST_S)              /* bytes of a tile (one call) */

struct st_file {
    rio_file *fh;
    char path[4096];       /* the file for POSIX reads */
    char name[4200];       /* "delay:" path, for rio_file_open */
    MPI_Datatype ft;
    int ncalls;
    int m[ST_MAXCALLS];            /* regions per rank of each call */
    char ran[ST_MAXCALLS][32];     /* strategy rio_coll_last reported for each call */
    double t[ST_MAXCALLS];         /* this rank's seconds in each write call */
    unsigned char *buf;
};

/** Make the tests independent of the caller's environment: the profile
 *  and delay variables would change what every test expects.  Call before
 *  rt_init. */
static inline void st_clean_env(void)
{
    unsetenv("RESONIO_PROFILE");
    unsetenv("RESONIO_DELAY");
}

/**
 * Open "delay:<fname>.<suffix>" (removed first) with the hints of info
 * (may be MPI_INFO_NULL) plus resonio_indep_method=posix and
 * ds_in_coll=enable, and set the view of the pattern.  Collective.
 * Returns 1 when open (f->fh set), 0 after reporting a failure.
 */
static inline int st_open(struct st_file *f, const char *suffix, MPI_Info extra)
{
    memset(f, 0, sizeof *f);
    rt_path(f->path, sizeof f->path, suffix);
    snprintf(f->name, sizeof f->name, "delay:%s", f->path);
    if (rt_rank == 0)
        unlink(f->path);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Info info;
    if (extra != MPI_INFO_NULL)
        MPI_Info_dup(extra, &info);
    else
        MPI_Info_create(&info);
    MPI_Info_set(info, "resonio_indep_method", "posix");
    MPI_Info_set(info, "ds_in_coll", "enable");
    /* the tests count the calls of the paper's full examination unless
     * they test pruning themselves */
    int has = 0;
    char v[32]; /* MPICH fails MPI_Info_get on a value longer than the buffer */
    MPI_Info_get(info, "resonio_select_prune", (int)sizeof v - 1, v, &has);
    if (!has)
        MPI_Info_set(info, "resonio_select_prune", "0");
    /* and the paper's rule of one deviating call, unless they test patience */
    MPI_Info_get(info, "resonio_select_patience", (int)sizeof v - 1, v, &has);
    if (!has)
        MPI_Info_set(info, "resonio_select_patience", "1");
    /* and no re-examination at all unless they test deviations (they set
     * the threshold): a call's own throughput is recorded with the call,
     * so with one deviating call enough the noise of the very call after a
     * decision (17 % below the mean, seen once under MPICH) would make the
     * test see a re-examination instead of the decision */
    MPI_Info_get(info, "resonio_select_threshold", (int)sizeof v - 1, v, &has);
    if (!has)
        MPI_Info_set(info, "resonio_select_threshold", "5");
    /* and a fresh examination in every file, unless they test reuse */
    MPI_Info_get(info, "resonio_select_reuse", (int)sizeof v - 1, v, &has);
    if (!has)
        MPI_Info_set(info, "resonio_select_reuse", "disable");
    int ok = RT_OK(rio_file_open(MPI_COMM_WORLD, f->name, MPI_MODE_CREATE | MPI_MODE_RDWR, info,
                                 &f->fh));
    MPI_Info_free(&info);
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all) {
        if (ok)
            rio_file_close(&f->fh);
        f->fh = NULL;
        return 0;
    }
    MPI_Datatype vec;
    MPI_Type_vector(ST_N, ST_B, (int)ST_S, MPI_BYTE, &vec);
    MPI_Type_create_resized(vec, 0, (MPI_Aint)ST_T, &f->ft);
    MPI_Type_commit(&f->ft);
    MPI_Type_free(&vec);
    RT_OK(rio_file_set_view(f->fh, (MPI_Offset)rt_rank * ST_B, MPI_BYTE, f->ft, "native",
                            MPI_INFO_NULL));
    f->buf = malloc((size_t)ST_N * ST_B);
    return 1;
}

/** File offset of region j of rank r in call k. */
static inline long long st_off(int k, int j, int r)
{
    return (long long)k * ST_T + (long long)j * ST_S + (long long)r * ST_B;
}

/**
 * One collective write of m regions per rank (the next tile), then
 * rio_coll_last to learn which strategy ran.  Collective.  Returns 1 if
 * the write succeeded on this rank.  A barrier first: the selector times
 * a call on every rank from its entry, so a rank that entered early would
 * count the time the test's own bookkeeping kept another rank busy.
 * nonblocking: rio_file_iwrite_at_all and MPI_Wait instead.
 */
static inline int st_call_as(struct st_file *f, int m, int nonblocking)
{
    int k = f->ncalls;
    if (k >= ST_MAXCALLS) {
        CHECK(0, "test bug: more than %d calls", ST_MAXCALLS);
        return 0;
    }
    for (int j = 0; j < m; j++)
        rt_fill(f->buf + (size_t)j * ST_B, ST_B, rt_rank, st_off(k, j, rt_rank));
    MPI_Status st;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    MPI_Offset at = (MPI_Offset)k * ST_N * ST_B;
    int ok;
    if (nonblocking) {
        MPI_Request req;
        ok = RT_OK(rio_file_iwrite_at_all(f->fh, at, f->buf, m * ST_B, MPI_BYTE, &req)) &&
             RT_OK(MPI_Wait(&req, &st));
    } else {
        ok = RT_OK(rio_file_write_at_all(f->fh, at, f->buf, m * ST_B, MPI_BYTE, &st));
    }
    f->t[k] = MPI_Wtime() - t0;
    struct rio_coll_info ci;
    memset(&ci, 0, sizeof ci);
    ci.size = sizeof ci;
    if (RT_OK(rio_coll_last(f->fh, &ci)))
        snprintf(f->ran[k], sizeof f->ran[k], "%s", ci.strategy);
    f->m[k] = m;
    f->ncalls++;
    return ok;
}

static inline int st_call(struct st_file *f, int m)
{
    return st_call_as(f, m, 0);
}

/** The slowest rank's seconds in each call so far, into out[0..ncalls):
 *  the test's own view of what the selector measures.  Collective. */
static inline void st_times(const struct st_file *f, double *out)
{
    MPI_Allreduce(f->t, out, f->ncalls, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
}

static inline int st_count(struct st_file *f)
{
    int n = -1;
    RT_OK(rio_select_count(f->fh, &n));
    return n;
}

static inline int st_get(struct st_file *f, int i, struct rio_select_info *si)
{
    memset(si, 0, sizeof *si);
    si->size = sizeof *si;
    return RT_OK(rio_select_get(f->fh, i, si));
}

/** The signature of the calls of m regions per rank (writes): its index
 *  and *si, or -1 (reported unless quiet) when the selector has none or
 *  more than one. */
static inline int st_find(struct st_file *f, int m, struct rio_select_info *si, int quiet)
{
    int n = st_count(f), found = -1, matches = 0;
    long long bytes = (long long)m * ST_B * rt_nprocs;
    for (int i = 0; i < n; i++) {
        struct rio_select_info x;
        if (!st_get(f, i, &x))
            continue;
        if (x.write == 1 && x.bytes == bytes) {
            if (found < 0) {
                found = i;
                *si = x;
            }
            matches++;
        }
    }
    if (matches != 1) {
        if (!quiet || matches > 1)
            CHECK(0, "%d signatures of writes of %lld bytes among %d, expected 1", matches, bytes,
                  n);
        if (matches == 0)
            memset(si, 0, sizeof *si);
        return matches ? found : -1;
    }
    return found;
}

/** Index of candidate name in si, or -1. */
static inline int st_cand(const struct rio_select_info *si, const char *name)
{
    for (int i = 0; i < si->ncand && i < RIO_SELECT_MAX_CAND; i++)
        if (!strcmp(si->cand[i], name))
            return i;
    return -1;
}

/** Index of the candidate with the highest mean throughput, or -1. */
static inline int st_argmax(const struct rio_select_info *si)
{
    int best = -1;
    for (int i = 0; i < si->ncand && i < RIO_SELECT_MAX_CAND; i++)
        if (best < 0 || si->tput[i] > si->tput[best])
            best = i;
    return best;
}

/** One line per field, for the logs. */
static inline void st_format(const struct rio_select_info *si, char *out, size_t len)
{
    size_t o = 0;
#define ST_ADD(...)                                                            \
    do {                                                                       \
        if (o < len)                                                           \
            o += (size_t)snprintf(out + o, len - o, __VA_ARGS__);              \
    } while (0)
    ST_ADD("write=%d nprocs=%d bytes=%lld regions=%lld relgap=%lld chosen='%s' examining=%d "
           "from_profile=%d from_earlier=%d calls=%lld exam_calls=%lld reexams=%d ncand=%d",
           si->write, si->nprocs, si->bytes, si->regions, si->relgap, si->chosen, si->examining,
           si->from_profile, si->from_earlier, si->calls, si->exam_calls, si->reexams, si->ncand);
    for (int i = 0; i < si->ncand && i < RIO_SELECT_MAX_CAND; i++)
        ST_ADD("\n    %-12s tput=%.6g B/s (%a) over %d calls", si->cand[i], si->tput[i],
               si->tput[i], si->tput_calls[i]);
    for (int i = 0; i < RIO_SELECT_MAX_CAUSES; i++)
        if (si->causes[i][0])
            ST_ADD("\n    cause[%d]: %s", i, si->causes[i]);
#undef ST_ADD
}

static inline void st_show(const struct rio_select_info *si, const char *label)
{
    if (rt_rank != 0)
        return;
    char s[4096];
    st_format(si, s, sizeof s);
    printf("%s: %s\n", label, s);
    fflush(stdout);
}

/**
 * rio_select_get is local and "the same on every rank": compare every
 * field (doubles bit for bit) with rank 0's.  Collective.
 */
static inline void st_agree(const struct rio_select_info *si, const char *what)
{
    enum { L = 4096 };
    char mine[L];
    memset(mine, 0, sizeof mine);
    st_format(si, mine, sizeof mine);
    char *all = rt_rank == 0 ? malloc((size_t)L * (size_t)rt_nprocs) : NULL;
    MPI_Gather(mine, L, MPI_CHAR, all, L, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (rt_rank == 0 && all) {
        for (int r = 1; r < rt_nprocs; r++)
            CHECK(!strcmp(all, all + (size_t)r * L),
                  "%s: rank %d's selection state differs from rank 0's:\n  rank 0: %s\n  rank %d: %s",
                  what, r, all, r, all + (size_t)r * L);
    }
    free(all);
}

/** Every rank must name the same chosen strategy (MPI_Allgather). */
static inline void st_same_choice(const char *chosen, const char *what)
{
    char mine[16], *all = malloc((size_t)16 * (size_t)rt_nprocs);
    memset(mine, 0, sizeof mine);
    snprintf(mine, sizeof mine, "%s", chosen);
    MPI_Allgather(mine, 16, MPI_CHAR, all, 16, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < rt_nprocs; r++)
        CHECK(!strncmp(all + (size_t)r * 16, mine, 16),
              "%s: rank %d chose '%.16s', this rank '%s'", what, r, all + (size_t)r * 16, mine);
    free(all);
}

/**
 * The state right after an examination ended: not examining, a choice
 * that is the candidate with the highest mean, every candidate measured.
 * calls_per_cand >= 0 also checks tput_calls[] (first examination only).
 */
static inline void st_check_decided(const struct rio_select_info *si, int calls_per_cand,
                                    const char *what)
{
    CHECK(si->examining == 0, "%s: still examining", what);
    CHECK(si->chosen[0] != '\0', "%s: nothing chosen", what);
    CHECK(si->ncand >= 1 && si->ncand <= RIO_SELECT_MAX_CAND, "%s: ncand %d", what, si->ncand);
    int best = st_argmax(si);
    CHECK(best >= 0 && !strcmp(si->chosen, si->cand[best]),
          "%s: chose '%s' but the highest mean throughput is %s's (%g B/s)", what, si->chosen,
          best >= 0 ? si->cand[best] : "(none)", best >= 0 ? si->tput[best] : 0.0);
    for (int i = 0; i < si->ncand && i < RIO_SELECT_MAX_CAND; i++) {
        CHECK(si->tput[i] > 0, "%s: candidate %s has no measured throughput (%g)", what,
              si->cand[i], si->tput[i]);
        if (calls_per_cand >= 0)
            CHECK(si->tput_calls[i] == calls_per_cand,
                  "%s: candidate %s measured over %d calls, expected %d", what, si->cand[i],
                  si->tput_calls[i], calls_per_cand);
    }
}

/** "MULTIPLE" or "below MULTIPLE": the thread level the MPI library
 *  provided (rt_init asks for MULTIPLE with -multiple). */
static inline const char *st_level(void)
{
    int provided;
    MPI_Query_thread(&provided);
    return provided == MPI_THREAD_MULTIPLE ? "MULTIPLE" : "below MULTIPLE";
}

/** Calls 1-3 of m regions per rank, with candidates two_phase and
 *  independent examined one call each and two_phase the faster: checks
 *  that two_phase is decided and ran call 3; *si gets the selector's state
 *  after them.  Collective. */
static inline void st_decide_two_phase(struct st_file *f, int m, struct rio_select_info *si,
                                       const char *level)
{
    for (int k = 1; k <= 3; k++)
        st_call(f, m);
    st_get(f, 0, si);
    st_show(si, "after call 3");
    st_check_decided(si, 1, "after call 3");
    CHECK(!strcmp(si->chosen, "two_phase") && !strcmp(f->ran[2], "two_phase"),
          "%s: chose '%s', call 3 ran '%s'; expected two_phase", level, si->chosen, f->ran[2]);
}

/**
 * The calls [first, first + C*N) of f made one examination: candidates in
 * turn, each for N consecutive calls, every candidate of si once.
 */
static inline void st_check_rotation(const struct st_file *f, int first, int N,
                                     const struct rio_select_info *si, const char *what)
{
    int C = si->ncand;
    for (int b = 0; b < C; b++) {
        const char *name = f->ran[first + b * N];
        CHECK(st_cand(si, name) >= 0, "%s: call %d ran '%s', not a candidate", what,
              first + b * N + 1, name);
        for (int k = 1; k < N; k++)
            CHECK(!strcmp(f->ran[first + b * N + k], name),
                  "%s: call %d ran '%s' but call %d ran '%s': candidates run for %d calls each",
                  what, first + b * N + k + 1, f->ran[first + b * N + k], first + b * N + 1, name,
                  N);
        for (int c = 0; c < b; c++)
            CHECK(strcmp(f->ran[first + c * N], name),
                  "%s: '%s' examined twice (calls %d and %d)", what, name, first + c * N + 1,
                  first + b * N + 1);
    }
}

/** The strategies of the calls [first, first + n) as one string, for logs. */
static inline void st_show_ran(const struct st_file *f, int first, int n, const char *label)
{
    if (rt_rank != 0)
        return;
    printf("%s: calls %d..%d ran:", label, first + 1, first + n);
    for (int k = first; k < first + n && k < f->ncalls; k++)
        printf(" %s", f->ran[k]);
    printf("\n");
    fflush(stdout);
}

/**
 * Close, then (rank 0) check the file byte for byte against the pattern of
 * every call made: pattern in the regions, zeros elsewhere, size up to the
 * last region.  Collective.
 */
static inline void st_close_verify(struct st_file *f)
{
    RT_OK(rio_file_close(&f->fh));
    MPI_Type_free(&f->ft);
    free(f->buf);
    f->buf = NULL;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank != 0 || f->ncalls == 0)
        return;
    long long size = 0;
    for (int k = 0; k < f->ncalls; k++)
        if (f->m[k] > 0 && st_off(k, f->m[k] - 1, rt_nprocs - 1) + ST_B > size)
            size = st_off(k, f->m[k] - 1, rt_nprocs - 1) + ST_B;
    long long len = 0;
    unsigned char *got = RT_SLURP(f->path, &len);
    if (!got)
        return;
    CHECK(len == size, "%s: size %lld, expected %lld", f->path, len, size);
    unsigned char *exp = calloc((size_t)(size ? size : 1), 1);
    for (int k = 0; k < f->ncalls; k++)
        for (int j = 0; j < f->m[k]; j++)
            for (int r = 0; r < rt_nprocs; r++)
                rt_fill(exp + st_off(k, j, r), ST_B, r, st_off(k, j, r));
    CHECK_BYTES(got, exp, NULL, (size_t)rt_minll(len, size), "%s: contents after %d calls",
                f->path, f->ncalls);
    free(exp);
    free(got);
}

#endif /* STEST_H */
