/*
 * t_coll_ahead.c — a call under auto whose kind (read or write) the selector has decided to serve with each rank's own requests
 * runs that strategy before its summary, and one agreement then says
 * whether the decision for the call's signature stands (src/coll/auto.c).
 *
 * The program defines MPI_Gather and MPI_Allgather (a summary is a gather
 * of MPI_OFFSET rows above 8 ranks, an allgather of them on fewer) and
 * MPI_Type_contiguous (the agreement of a call run ahead makes its record
 * type with it) to count them per collective call.  The file holds SLOTS
 * slot sets (set s, rank r: offset (s P + r) B, pat(r, s B)); in set 1
 * rank 0 has half its slot, so a call on it is another signature.  Each
 * call below uses a new handle (the decisions come from the earlier
 * files of the process) unless it says otherwise, and every read buffer
 * and the file itself are checked byte by byte.
 *
 *   writes, candidates independent:
 *     set 0     no decision yet: the summary, nothing ahead
 *     set 0     ahead, and it stands: no summary (the same bytes again)
 *     set 1     ahead, the signature is new: the summary after it (the
 *               write runs again)
 *   reads, candidates independent:
 *     set 0     no decision yet: the summary, no read ahead
 *     set 0     ahead, and it stands: no summary; a second read of the
 *               same handle takes the steady path (neither)
 *     set 1     ahead, the signature is new: the summary after it (the
 *               call runs again)
 *     set 1     ahead, stands
 *     bad       the last rank passes a negative offset: MPI_ERR_ARG on
 *               every rank, naming the operation and the file; the next
 *               read of the handle goes ahead and stands
 *   candidates two_phase: the decisions name independent, which the
 *     filter leaves out: the summary, no read ahead
 *   candidates independent again: the decisions differ (set 0 two_phase,
 *     set 1 independent): the summary, no read ahead
 *
 * Every rank's selector must hold the same state after each call.
 */
#include "ctest_util.h"

#define B 4096
#define SLOTS 2

static long long n_gather, n_ahead; /* summaries, calls run ahead */

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
               int root, MPI_Comm comm)
{
    n_gather++;
    return PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
}

int MPI_Allgather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                  MPI_Comm comm)
{
    if (st == MPI_OFFSET)
        n_gather++;
    return PMPI_Allgather(sb, sc, st, rb, rc, rt, comm);
}

int MPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *out)
{
    n_ahead++;
    return PMPI_Type_contiguous(count, old, out);
}

static char path[4096];

static long long slot_len(int s, int r)
{
    return s == 1 && r == 0 ? B / 2 : B;
}

static MPI_Info hints(const char *cands)
{
    return rt_info("resonio_strategy", "auto", "resonio_select_candidates", cands,
                   "resonio_select_calls", "1", "resonio_select_threshold", "9", NULL);
}

static rio_file *open_file(const char *cands)
{
    rio_file *fh = NULL;
    MPI_Info info = hints(cands);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh)))
        fh = NULL;
    MPI_Info_free(&info);
    return fh;
}

/* The summaries and runs ahead a call made; -1: not checked. */
static void counted(long long gathers, long long ahead, const char *what)
{
    CHECK(gathers < 0 || n_gather == gathers, "%s: %lld gathers, expected %lld", what, n_gather,
          gathers);
    CHECK(ahead < 0 || n_ahead == ahead, "%s: %lld runs ahead, expected %lld", what, n_ahead,
          ahead);
}

/* Read slot set s on fh (bad: the last rank passes offset -1 and must get
 * MPI_ERR_ARG, as every rank must), with the summaries and calls run
 * ahead counted (counted()); 1 if every byte is right. */
static int read_set(rio_file *fh, int s, int bad, long long gathers, long long ahead,
                    const char *what)
{
    long long len = slot_len(s, rt_rank);
    unsigned char *buf = malloc(B);
    memset(buf, CT_SENTINEL, B);
    n_gather = n_ahead = 0;
    MPI_Offset off = ((MPI_Offset)s * rt_nprocs + rt_rank) * B;
    if (bad && rt_rank == rt_nprocs - 1)
        off = -1;
    MPI_Status st;
    int code = rio_file_read_at_all(fh, off, buf, (int)len, MPI_BYTE, &st);
    int ok;
    if (bad) {
        ok = RT_ERR(code, MPI_ERR_ARG, "MPI_File_read_at_all", path);
    } else {
        ok = RT_OK(code) && CHECK_PAT(buf, (size_t)len, rt_rank, (long long)s * B,
                                      "%s: read back", what);
        for (long long k = len; ok && k < B; k++)
            if (buf[k] != CT_SENTINEL) {
                CHECK(0, "%s: byte %lld past the read changed", what, k);
                ok = 0;
            }
    }
    counted(gathers, ahead, what);
    free(buf);
    ct_same_selectors(fh, what, bad);
    return ok;
}

/* One handle, one read of set s (counted), closed. */
static void one_read(const char *cands, int s, long long gathers, long long ahead,
                     const char *what)
{
    rio_file *fh = open_file(cands);
    if (!fh)
        return;
    read_set(fh, s, 0, gathers, ahead, what);
    rio_file_close(&fh);
}

/* One handle, one write of set s (counted), closed. */
static void write_set(const char *cands, int s, long long gathers, long long ahead,
                      const char *what)
{
    MPI_Info info = hints(cands);
    rio_file *fh = NULL;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, info, &fh)))
        fh = NULL;
    MPI_Info_free(&info);
    if (!fh)
        return;
    unsigned char *buf = malloc(B);
    long long len = slot_len(s, rt_rank);
    rt_fill(buf, (size_t)len, rt_rank, (long long)s * B);
    MPI_Offset off = ((MPI_Offset)s * rt_nprocs + rt_rank) * B;
    n_gather = n_ahead = 0;
    RT_OK(rio_file_write_at_all(fh, off, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
    counted(gathers, ahead, what);
    ct_same_selectors(fh, what, 0);
    free(buf);
    rio_file_close(&fh);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(240);
    rt_path(path, sizeof path, "ahead");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    write_set("independent", 0, 1, 0, "write set 0, no decision yet");
    write_set("independent", 0, 0, 1, "write set 0 ahead");
    write_set("independent", 1, 1, 1, "write set 1 ahead, a new signature");

    one_read("independent", 0, 1, 0, "set 0, no decision yet");
    rio_file *fh = open_file("independent");
    if (fh) {
        read_set(fh, 0, 0, 0, 1, "set 0 ahead");
        read_set(fh, 0, 0, 0, 0, "set 0 again, steady");
        rio_file_close(&fh);
    }
    one_read("independent", 1, 1, 1, "set 1 ahead, a new signature");
    one_read("independent", 1, 0, 1, "set 1 ahead, decided");
    fh = open_file("independent");
    if (fh) {
        read_set(fh, 0, 1, 0, 1, "a bad offset on the last rank");
        read_set(fh, 0, 0, 0, 1, "set 0 after the error");
        rio_file_close(&fh);
    }
    one_read("two_phase", 0, 1, 0, "candidates two_phase");
    one_read("independent", 1, 1, 0, "decisions that differ");
    ct_check_slots(path, SLOTS, B, slot_len);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
