/*
 * t_coll_rootpick.c — above 8 ranks the summary's rows go only where they
 * are needed (src/coll/summary.c): under auto rank 0 makes the selector's
 * choice on the gathered rows, and they go to every rank only where the
 * choice needs them there; a strategy whose aggregators alone need them
 * (two_phase, sized) gets them from rank 0 at the exchange's setup,
 * aggregators only.
 *
 * The program defines MPI_Gather, MPI_Bcast and MPI_Recv (ENABLE_EXPORTS)
 * to count, per collective data call, the gathers, the broadcasts of the
 * rows (at least 5 P words: a row has at least 5) and the rows received
 * from rank 0 (4 P words).  Virtual nodes of 4 ranks
 * (resonio_ranks_per_node) give two_phase an aggregator per 4 ranks:
 * ranks 0, 4, 8, ...  Each rank writes B bytes per call into its slot
 * (call c, rank r: offset (c P + r) B; pat(r, c B)) and reads them back;
 * every read buffer is compared byte by byte, and the file itself with
 * POSIX reads at the end.
 *
 *   candidates independent, 1 call each (decided by the first):
 *     write 1     the rows go out (a write starts predicted to need them)
 *     write 2     rank 0 writes half its slot: the steady path, no summary
 *     write 3     the same shape as write 2 (a new signature): one gather,
 *                 no rows (the last write served each rank alone)
 *     reads       a new handle per read: one gather, no rows (a read
 *                 starts predicted to need none)
 *   candidates two_phase:
 *     read 1      one gather, no rows broadcast: the aggregators other
 *                 than rank 0 receive them
 *     read 2      the same (rank 0 chooses again: the choice's rows went
 *                 to the aggregators alone)
 *   the hints name two_phase (no selector):
 *     write, read one gather each, no rows broadcast, the aggregators
 *                 receive them
 *   candidates independent and two_phase, examined 1 call each:
 *     read 1      independent examined: no rows
 *     read 2      (the same slots) two_phase examined: the rows to the
 *                 aggregators after the choice
 *     reads 3-6   the selector's decision: the bytes, and every rank's
 *                 selector in the same state after each call
 *
 * At 8 ranks or fewer the summary is one allgather: only the bytes and
 * the selectors' agreement are checked.
 */
#include "ctest_util.h"

#define B 4096
#define CALLS 3
#define TREE_RANKS 8 /* summary.c's SUMMARY_TREE_RANKS */

#define RPN 4        /* ranks per virtual node: two_phase's aggregators */

static long long n_gather, n_rows, n_rows_in;

int MPI_Gather(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
               int root, MPI_Comm comm)
{
    n_gather++;
    return PMPI_Gather(sb, sc, st, rb, rc, rt, root, comm);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    if (dt == MPI_OFFSET && count >= 5 * rt_nprocs)
        n_rows++;
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    if (dt == MPI_OFFSET && count == 4 * rt_nprocs && src == 0)
        n_rows_in++;
    return PMPI_Recv(buf, count, dt, src, tag, comm, st);
}

static char path[4096];
static long long wlen[CALLS][64]; /* bytes rank r wrote in call c */

static MPI_Info hints(const char *cands)
{
    if (!cands) /* the hints name two_phase */
        return rt_info("resonio_strategy", "two_phase", "resonio_ranks_per_node", "4", NULL);
    return rt_info("resonio_strategy", "auto", "resonio_select_candidates", cands,
                   "resonio_select_calls", "1", "resonio_select_threshold", "9",
                   "resonio_select_reuse", "disable", "resonio_ranks_per_node", "4", NULL);
}

/* cands NULL: the hints name two_phase */
static rio_file *open_file(const char *cands, int amode)
{
    rio_file *fh = NULL;
    MPI_Info info = hints(cands);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, amode, info, &fh)))
        fh = NULL;
    MPI_Info_free(&info);
    return fh;
}

/* gathers and row broadcasts expected of a call (-1: not checked), and
 * whether two_phase's aggregators other than rank 0 received the rows */
static void counted(long long gathers, long long rows, int to_aggs, const char *what)
{
    if (rt_nprocs <= TREE_RANKS)
        return;
    CHECK(gathers < 0 || n_gather == gathers, "%s: %lld gathers, expected %lld", what, n_gather,
          gathers);
    CHECK(rows < 0 || n_rows == rows, "%s: the rows broadcast %lld times, expected %lld", what,
          n_rows, rows);
    long long in = to_aggs && rt_rank != 0 && rt_rank % RPN == 0;
    CHECK(n_rows_in == in, "%s: the rows received from rank 0 %lld times, expected %lld", what,
          n_rows_in, in);
}

static int write_call(rio_file *fh, int c, long long len)
{
    unsigned char *buf = malloc(B);
    rt_fill(buf, (size_t)len, rt_rank, (long long)c * B);
    n_gather = n_rows = n_rows_in = 0;
    MPI_Offset off = ((MPI_Offset)c * rt_nprocs + rt_rank) * B;
    int ok = RT_OK(rio_file_write_at_all(fh, off, buf, (int)len, MPI_BYTE, MPI_STATUS_IGNORE));
    long long all[64], g = n_gather, r = n_rows, in = n_rows_in;
    MPI_Allgather(&len, 1, MPI_LONG_LONG, all, 1, MPI_LONG_LONG, MPI_COMM_WORLD);
    for (int r = 0; r < rt_nprocs && r < 64; r++)
        wlen[c][r] = all[r];
    n_gather = g;
    n_rows = r;
    n_rows_in = in;
    free(buf);
    return ok;
}

/* The bytes rank r wrote in call c. */
static long long written(int c, int r)
{
    return wlen[c][r];
}

/* Read back call c's slot; 1 if every byte is right. */
static int read_call(rio_file *fh, int c, const char *what)
{
    long long len = wlen[c][rt_rank];
    unsigned char *buf = malloc(B);
    memset(buf, CT_SENTINEL, B);
    n_gather = n_rows = n_rows_in = 0;
    MPI_Offset off = ((MPI_Offset)c * rt_nprocs + rt_rank) * B;
    MPI_Status st;
    int ok = RT_OK(rio_file_read_at_all(fh, off, buf, (int)len, MPI_BYTE, &st));
    long long g = n_gather, r = n_rows, in = n_rows_in;
    ok = ok && CHECK_PAT(buf, (size_t)len, rt_rank, (long long)c * B, "%s: read back", what);
    n_gather = g;
    n_rows = r;
    n_rows_in = in;
    free(buf);
    return ok;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(240);
    CHECK(rt_nprocs <= 64, "at most 64 ranks");
    rt_path(path, sizeof path, "rootpick");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);

    /* candidates independent */
    rio_file *fh = open_file("independent", MPI_MODE_CREATE | MPI_MODE_RDWR);
    if (fh) {
        write_call(fh, 0, B);
        counted(1, 1, 0, "write 1");
        write_call(fh, 1, rt_rank == 0 ? B / 2 : B);
        counted(0, 0, 0, "write 2 (steady)");
        write_call(fh, 2, rt_rank == 0 ? B / 2 : B);
        counted(1, 0, 0, "write 3");
        ct_same_selectors(fh, "after the writes", 0);
        rio_file_close(&fh);
    }
    for (int c = 0; c < CALLS; c++) {
        fh = open_file("independent", MPI_MODE_RDONLY);
        if (!fh)
            break;
        read_call(fh, c, "independent read");
        counted(1, 0, 0, "independent read, a new handle");
        rio_file_close(&fh);
    }

    /* candidates two_phase */
    fh = open_file("two_phase", MPI_MODE_RDONLY);
    if (fh) {
        read_call(fh, 0, "two_phase read 1");
        counted(1, 0, 1, "two_phase read 1");
        read_call(fh, 1, "two_phase read 2");
        counted(1, 0, 1, "two_phase read 2");
        ct_same_selectors(fh, "two_phase reads", 0);
        rio_file_close(&fh);
    }

    /* the hints name two_phase: a write over call 0's slots, then a read */
    fh = open_file(NULL, MPI_MODE_RDWR);
    if (fh) {
        write_call(fh, 0, B);
        counted(1, 0, 1, "named two_phase write");
        read_call(fh, 0, "named two_phase read");
        counted(1, 0, 1, "named two_phase read");
        rio_file_close(&fh);
    }

    /* both, examined */
    fh = open_file("independent,two_phase", MPI_MODE_RDONLY);
    if (fh) {
        read_call(fh, 0, "examined read 1");
        counted(1, 0, 0, "examined read 1 (independent)");
        ct_same_selectors(fh, "examined read 1", 0);
        read_call(fh, 0, "examined read 2");
        counted(1, 0, 1, "examined read 2 (two_phase)");
        ct_same_selectors(fh, "examined read 2", 0);
        for (int k = 0; k < 4; k++) {
            read_call(fh, (2 + k) % CALLS, "decided read");
            ct_same_selectors(fh, "decided read", 0);
        }
        rio_file_close(&fh);
    }
    ct_check_slots(path, CALLS, B, written);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
