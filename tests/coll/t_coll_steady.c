/*
 * t_coll_steady.c — the steady path: collective calls whose strategy lets
 * every rank serve itself exchange no summary, and only while that holds.
 *
 * The program defines the collectives resonio can call (MPI_Allgather*,
 * MPI_Allreduce, MPI_Bcast, MPI_Barrier, MPI_Alltoall*, MPI_Gather*,
 * MPI_Reduce, MPI_Exscan) itself: each counts the call and then calls the
 * PMPI_ version (the executable exports them, ENABLE_EXPORTS).  The
 * counters are reset right before a collective data call and read right
 * after it.  "One collective" below means exactly one collective, the
 * error agreement, which carries the selector's measurement, and nothing
 * else; "a summary" means at least one MPI_Allgather of something else.
 * The agreement is an MPI_Allgather of MPI_LONG_LONG on a few ranks and
 * an MPI_Allreduce on many; resonio's summaries gather MPI_OFFSET, so an
 * allgather of MPI_LONG_LONG counts as the agreement.
 *
 * Each rank writes B bytes per call (pat(rank, call * B)) into its slot of
 * 2B bytes, slot call * P + rank (the calls march through the file).
 *
 *   auto, candidates independent only, 1 call per candidate, threshold 9
 *   (noise never re-examines):
 *     call 1         a summary (new signature; examined, and decided with
 *                    its agreement)
 *     calls 2..4     one collective each; call 4 nonblocking (below
 *                    MPI_THREAD_MULTIPLE, where its writes are made in the
 *                    background, also an MPI_Iallreduce at completion and
 *                    the file lane's setup: two more, not counted)
 *     call 5         rank 0 writes 2B: still one collective (the call
 *                    cannot know), the bytes land right
 *     call 6         a summary again (call 5 did not keep the shape)
 *     call 7         one collective
 *     calls 8..10    (2 ranks or more) ranks swap slots in call 8: one
 *                    collective; call 9 a summary; call 10 one collective
 *     reads          the first read a summary (another operation), the
 *                    rest one collective each; every byte compared
 *   a storage failure (fault: driver, the last rank's 3rd write fails
 *   with EIO) in a steady call: MPI_ERR_IO on every rank, naming the
 *   operation and the file, no summary; the repeated call exchanges a
 *   summary and succeeds; the next is steady again.
 *   resonio_strategy=independent: one collective from the second call on;
 *   after rio_file_set_info to two_phase a summary and two_phase ran;
 *   back to independent: one collective.
 *   auto steady, then a resonio_strategy no strategy has: a summary, and
 *   two_phase ran saying why; back to auto: a summary, then one collective.
 *
 * Each file is then read with POSIX reads and compared byte for byte with
 * the image of what was written (bytes no call wrote must be 0).
 */
#include "ctest_util.h"

#define B 4096
#define SLOT (2 * B)
#define MAXW 64

static long long n_gather, n_coll;

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                  MPI_Comm comm)
{
    if (st != MPI_LONG_LONG)
        n_gather++;
    n_coll++;
    return PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Allgatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                   const int displs[], MPI_Datatype rt, MPI_Comm comm)
{
    n_gather++;
    n_coll++;
    return PMPI_Allgatherv(sb, sc, st, rb, rcs, displs, rt, comm);
}

int MPI_Allreduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    n_coll++;
    return PMPI_Allreduce(sb, rb, count, dt, op, comm);
}

/* below MPI_THREAD_MULTIPLE a nonblocking write's outcome is agreed at
 * its completion with these (src/file/async.c) */
int MPI_Iallreduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *req)
{
    n_coll++;
    return PMPI_Iallreduce(sb, rb, count, dt, op, comm, req);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Request *req)
{
    n_coll += 1000; /* only after a failure */
    return PMPI_Ibcast(buf, count, dt, root, comm, req);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    n_coll += 1000; /* never part of "one collective" */
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Barrier(comm);
}

int MPI_Alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                 MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Alltoall(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Alltoallv(const void *sb, const int scs[], const int sd[], MPI_Datatype st, void *rb,
                  const int rcs[], const int rd[], MPI_Datatype rt, MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Alltoallv(sb, scs, sd, st, rb, rcs, rd, rt, comm);
}

int MPI_Alltoallw(const void *sb, const int scs[], const int sd[], const MPI_Datatype st[],
                  void *rb, const int rcs[], const int rd[], const MPI_Datatype rt[],
                  MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Alltoallw(sb, scs, sd, st, rb, rcs, rd, rt, comm);
}

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
               int root, MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
}

int MPI_Gatherv(const void *sb, int sc, MPI_Datatype st, void *rb, const int rcs[],
                const int displs[], MPI_Datatype rt, int root, MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Gatherv(sb, sc, st, rb, rcs, displs, rt, root, comm);
}

int MPI_Reduce(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Reduce(sb, rb, count, dt, op, root, comm);
}

int MPI_Exscan(const void *sb, void *rb, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    n_coll += 1000;
    return PMPI_Exscan(sb, rb, count, dt, op, comm);
}

/* ---- the test ------------------------------------------------------------------------ */

/* What every rank wrote, for the image of the file. */
struct wrote {
    int rank;
    long long off, len, start;
};

struct tfile {
    char path[4096], name[4200];
    rio_file *fh;
    struct wrote w[MAXW * 8];
    int nw;
    long long end;
    int call;
    int lanes; /* nonblocking writes made (the first makes the lane) */
};

enum expect { ONE, SUMMARY, NO_SUMMARY };

/* calls queued for the background (resonio's counter) */
static long long queued(rio_file *fh)
{
    struct rio_stats s;
    s.size = sizeof s;
    rio_stats_get(fh, &s);
    return s.nb_queued;
}

/* Open a new file with info, which is freed. */
static int open_file(struct tfile *t, const char *suffix, int fault, MPI_Info info)
{
    memset(t, 0, sizeof *t);
    rt_path(t->path, sizeof t->path, suffix);
    snprintf(t->name, sizeof t->name, "%s%s", fault ? "fault:" : "", t->path);
    if (rt_rank == 0)
        unlink(t->path);
    MPI_Barrier(MPI_COMM_WORLD);
    int rc = rio_file_open(MPI_COMM_WORLD, t->name, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &t->fh);
    MPI_Info_free(&info);
    return RT_OK(rc);
}

static void counted_ok(enum expect e, long long gather, long long coll, const char *what)
{
    switch (e) {
    case ONE:
        CHECK(coll == 1 && gather == 0,
              "%s: %lld collectives (%lld summary allgathers), expected exactly the "
              "agreement", what, coll, gather);
        break;
    case SUMMARY:
        CHECK(gather >= 1, "%s: no allgather, expected a summary", what);
        break;
    case NO_SUMMARY:
        CHECK(gather == 0, "%s: %lld allgathers, expected no summary", what, gather);
        break;
    }
}

/*
 * One collective write of len bytes by this rank at slot `slot`, counted;
 * returns its MPI code.  Every rank records every rank's write (lens[r],
 * slots[r]) when it succeeded, for the image.
 */
static int counted_write(struct tfile *t, const long long *slots, const long long *lens,
                         enum expect e, int nonblocking, const char *what)
{
    long long off = slots[rt_rank] * SLOT, len = lens[rt_rank];
    long long start = (long long)t->call * B;
    unsigned char *buf = malloc((size_t)len);
    rt_fill(buf, (size_t)len, rt_rank, start);
    MPI_Status st;
    n_gather = n_coll = 0;
    int rc;
    int behind = 0; /* below MULTIPLE, queued: the outcome is agreed again at completion */
    if (nonblocking) {
        MPI_Request rq = MPI_REQUEST_NULL;
        int level = MPI_THREAD_SINGLE;
        MPI_Query_thread(&level);
        long long q0 = queued(t->fh);
        rc = rio_file_iwrite_at_all(t->fh, off, buf, (int)len, MPI_BYTE, &rq);
        behind = level < MPI_THREAD_MULTIPLE && queued(t->fh) > q0;
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&rq, &st);
    } else {
        rc = rio_file_write_at_all(t->fh, off, buf, (int)len, MPI_BYTE, &st);
    }
    long long gather = n_gather, coll = n_coll;
    free(buf);
    /* below MULTIPLE a nonblocking write also agrees at its completion
     * (an MPI_Iallreduce), and the file's first one makes the file's lane:
     * the communicator cache's allreduce and an agreement */
    if (nonblocking && behind && e == ONE)
        coll -= 1 + (t->lanes++ == 0 ? 2 : 0);
    counted_ok(e, gather, coll, what);
    if (rc == MPI_SUCCESS) {
        for (int r = 0; r < rt_nprocs && t->nw < (int)(sizeof t->w / sizeof t->w[0]); r++) {
            t->w[t->nw++] = (struct wrote){r, slots[r] * SLOT, lens[r], start};
            if (slots[r] * SLOT + lens[r] > t->end)
                t->end = slots[r] * SLOT + lens[r];
        }
        t->call++;
    }
    return rc;
}

/* The usual call: B bytes each, slot call * P + rank. */
static void plain_slots(const struct tfile *t, long long *slots, long long *lens)
{
    for (int r = 0; r < rt_nprocs; r++) {
        slots[r] = (long long)t->call * rt_nprocs + r;
        lens[r] = B;
    }
}

static void write_plain(struct tfile *t, enum expect e, const char *what)
{
    long long slots[256], lens[256];
    plain_slots(t, slots, lens);
    RT_OK(counted_write(t, slots, lens, e, 0, what));
}

/* Read back write number k (this rank's part of it), counted. */
static void counted_read(struct tfile *t, int k, enum expect e, const char *what)
{
    const struct wrote *w = &t->w[k * rt_nprocs + rt_rank];
    unsigned char *buf = malloc((size_t)w->len);
    MPI_Status st;
    n_gather = n_coll = 0;
    int rc = rio_file_read_at_all(t->fh, w->off, buf, (int)w->len, MPI_BYTE, &st);
    long long gather = n_gather, coll = n_coll;
    counted_ok(e, gather, coll, what);
    if (RT_OK(rc))
        CHECK_PAT(buf, (size_t)w->len, rt_rank, w->start, "%s: the bytes read", what);
    free(buf);
}

static const char *ran(struct tfile *t, char *buf, size_t n)
{
    struct rio_coll_info in;
    buf[0] = '\0';
    if (ct_last(t->fh, &in))
        snprintf(buf, n, "%s", in.strategy);
    return buf;
}

/* Close, then compare the whole file with the image of the writes. */
static void close_verify(struct tfile *t, const char *what)
{
    RT_OK(rio_file_close(&t->fh));
    MPI_Barrier(MPI_COMM_WORLD);
    unsigned char *img = calloc(1, (size_t)(t->end ? t->end : 1));
    for (int k = 0; k < t->nw; k++)
        rt_fill(img + t->w[k].off, (size_t)t->w[k].len, t->w[k].rank, t->w[k].start);
    long long len = 0;
    unsigned char *got = RT_SLURP(t->path, &len);
    CHECK(!got || len == t->end, "%s: the file has %lld bytes, expected %lld", what, len,
          t->end);
    if (got && len == t->end)
        CHECK_BYTES(got, img, NULL, (size_t)len, "%s: the file against what was written", what);
    free(got);
    free(img);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(t->path);
}

/* Hints under which auto decides at its first call and keeps the choice:
 * one candidate, one call for it, and a threshold noise never reaches. */
static MPI_Info steady_info(void)
{
    return rt_info("resonio_select_candidates", "independent", "resonio_select_calls", "1",
                   "resonio_select_threshold", "9", (char *)NULL);
}

static void auto_file(void)
{
    struct tfile t;
    long long slots[256], lens[256];
    char what[96];
    if (!open_file(&t, "steady", 0, steady_info()))
        return;
    write_plain(&t, SUMMARY, "auto, call 1");
    for (int k = 2; k <= 4; k++) {
        snprintf(what, sizeof what, "auto, call %d%s", k, k == 4 ? " (nonblocking)" : "");
        plain_slots(&t, slots, lens);
        RT_OK(counted_write(&t, slots, lens, ONE, k == 4, what));
    }
    struct rio_select_info si = {.size = sizeof si};
    if (RT_OK(rio_select_get(t.fh, 0, &si)))
        CHECK(!si.examining && !strcmp(si.chosen, "independent") && si.calls == 4,
              "after call 4: examining %d chosen '%s' calls %lld, expected 0 'independent' 4",
              si.examining, si.chosen, si.calls);

    plain_slots(&t, slots, lens);
    lens[0] = 2 * B;
    RT_OK(counted_write(&t, slots, lens, ONE, 0, "call 5, rank 0 writes twice the bytes"));
    write_plain(&t, SUMMARY, "call 6, after a call that changed its shape");
    write_plain(&t, ONE, "call 7");

    if (rt_nprocs > 1) {
        plain_slots(&t, slots, lens);
        for (int r = 0; r < rt_nprocs; r++)
            slots[r] = (long long)t.call * rt_nprocs + (rt_nprocs - 1 - r);
        RT_OK(counted_write(&t, slots, lens, ONE, 0, "call 8, ranks swap slots"));
        write_plain(&t, SUMMARY, "call 9, after ranks moved by different distances");
        write_plain(&t, ONE, "call 10");
    } else {
        rt_note("t_coll_steady: 1 rank: no slots to swap");
    }
    int nwrites = t.call;
    for (int k = 0; k < nwrites; k++) {
        snprintf(what, sizeof what, "read %d of write %d", k + 1, k + 1);
        /* the first read is another operation; reading write 5 (rank 0's
         * twice the bytes) and write 8 (swapped slots) keeps no shape, so
         * the read after each exchanges a summary */
        enum expect e = k == 0 || k == 5 || (rt_nprocs > 1 && k == 8) ? SUMMARY : ONE;
        counted_read(&t, k, e, what);
    }
    close_verify(&t, "auto");
}

static void fault_file(void)
{
    struct tfile t;
    long long slots[256], lens[256];
    const char *spec = rt_rank == rt_nprocs - 1 ? "op=write,n=3,err=EIO" : "none";
    MPI_Info info = steady_info();
    MPI_Info_set(info, "resonio_fault", spec);
    if (!open_file(&t, "steady_fault", 1, info))
        return;
    write_plain(&t, SUMMARY, "fault file, call 1");
    write_plain(&t, ONE, "fault file, call 2");
    plain_slots(&t, slots, lens);
    int rc = counted_write(&t, slots, lens, NO_SUMMARY, 0, "fault file, call 3 (fails)");
    RT_ERR(rc, MPI_ERR_IO, "MPI_File_write_at_all", t.path);
    write_plain(&t, SUMMARY, "fault file, call 3 repeated");
    write_plain(&t, ONE, "fault file, call 4");
    close_verify(&t, "fault file");
}

static void set_strategy(struct tfile *t, const char *name)
{
    MPI_Info info = rt_info("resonio_strategy", name, (char *)NULL);
    RT_OK(rio_file_set_info(t->fh, info));
    MPI_Info_free(&info);
}

static void forced_file(void)
{
    struct tfile t;
    char s[64];
    MPI_Info info = rt_info("resonio_strategy", "independent", (char *)NULL);
    if (!open_file(&t, "steady_forced", 0, info))
        return;
    write_plain(&t, NO_SUMMARY, "independent, call 1");
    write_plain(&t, ONE, "independent, call 2");
    write_plain(&t, ONE, "independent, call 3");
    set_strategy(&t, "two_phase");
    write_plain(&t, SUMMARY, "two_phase after set_info, call 4");
    CHECK(!strcmp(ran(&t, s, sizeof s), "two_phase"), "call 4 ran '%s', expected two_phase", s);
    set_strategy(&t, "independent");
    write_plain(&t, ONE, "independent again, call 5");
    CHECK(!strcmp(ran(&t, s, sizeof s), "independent"), "call 5 ran '%s', expected independent",
          s);
    close_verify(&t, "forced");
}

/* A strategy name no strategy has, set while auto is steady: the call
 * is not steady (it exchanges a summary) and runs the fallback. */
static void unknown_file(void)
{
    struct tfile t;
    char s[64];
    if (!open_file(&t, "steady_unknown", 0, steady_info()))
        return;
    write_plain(&t, SUMMARY, "auto, call 1");
    write_plain(&t, ONE, "auto, call 2");
    set_strategy(&t, "no_such_strategy");
    write_plain(&t, SUMMARY, "an unknown strategy after steady calls, call 3");
    struct rio_coll_info in;
    if (ct_last(t.fh, &in))
        CHECK(!strcmp(in.strategy, "two_phase") &&
                  strstr(in.reason, "unknown resonio_strategy 'no_such_strategy'"),
              "call 3 ran '%s' because '%s', expected two_phase for the unknown name",
              in.strategy, in.reason);
    set_strategy(&t, "auto");
    write_plain(&t, SUMMARY, "auto again, call 4");
    write_plain(&t, ONE, "auto again, call 5");
    CHECK(!strcmp(ran(&t, s, sizeof s), "independent"), "call 5 ran '%s', expected independent",
          s);
    close_verify(&t, "unknown");
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    if (rt_nprocs > 256) {
        CHECK(0, "at most 256 ranks");
        return rt_finish();
    }
    auto_file();
    fault_file();
    forced_file();
    unknown_file();
    return rt_finish();
}
