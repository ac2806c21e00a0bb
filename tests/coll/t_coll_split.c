/*
 * t_coll_split.c — split collectives and nonblocking collectives go
 * through the collective engine.
 *
 * On a noncontiguous view (etype MPI_INT; rank i sees blocks of BL ints
 * every P * BL ints, starting at block i) of a striped file (4096 x 2),
 * under two_phase and under resonant, each rank writes four parts of N
 * ints of its view:
 *   part 0  rio_file_write_all_begin/end    individual pointer 0 -> N
 *   part 2  rio_file_write_at_all_begin/end offset 2N
 *   part 1  rio_file_iwrite_all + MPI_Wait  individual pointer N -> 2N
 *   part 3  rio_file_iwrite_at_all + Wait   offset 3N
 * and reads them back with read_all_begin/end (after seek 0),
 * read_at_all_begin/end, iread_all and iread_at_all.  After every call
 * rio_coll_last must show the forced strategy and what it does:
 *   two_phase  aggregators, and bytes exchanged when there are several
 *              ranks (one node: one aggregator);
 *   resonant   writes: one agent per target and bytes exchanged (at one
 *              rank the call is non-overlapping: no agents, the reason
 *              says so); reads: one agent per target prefetching.
 * Statuses count N ints, the individual pointer is where the standard
 * puts it, every byte of the file is checked with POSIX reads, and every
 * byte read.
 */
#include "ctest_util.h"

#include <signal.h>

#define BL 100   /* ints per block */
#define NBLK 12  /* blocks per part */
#define N (NBLK * BL)
#define T 2

static char path[4200];

/* File byte of stream byte s of rank r's view. */
static long long file_byte(int r, long long s)
{
    long long e = s / 4, blk = e / BL;
    return ((blk * rt_nprocs + r) * BL + e % BL) * 4 + s % 4;
}

static void check_last(rio_file *fh, const char *strategy, int write, const char *what)
{
    struct rio_coll_info in;
    char ab[512];
    if (!ct_last(fh, &in) || rt_rank != 0)
        return;
    int P = rt_nprocs, ok;
    if (!strcmp(strategy, "two_phase"))
        ok = in.naggs >= 1 && (P == 1 || in.exchanged > 0);
    else if (write && P == 1)
        ok = in.naggs == 0 && strstr(in.reason, "non-overlapping") != NULL;
    else if (write)
        ok = in.naggs == T && in.exchanged > 0;
    else
        ok = in.naggs == T && strstr(in.reason, "prefetch") != NULL;
    CHECK(!strcmp(in.strategy, strategy) && ok,
          "%s (%s): strategy %s, %d aggregators {%s}, %lld bytes exchanged, reason \"%s\"", what,
          strategy, in.strategy, in.naggs, ct_aggs_str(&in, ab, sizeof ab), in.exchanged,
          in.reason);
}

static void check_count(MPI_Status *st, const char *what)
{
    int count = -1;
    MPI_Get_count(st, MPI_INT, &count);
    CHECK(count == N, "%s: status counts %d ints, expected %d", what, count, N);
}

static void check_pos(rio_file *fh, long long want, const char *what)
{
    MPI_Offset pos = -1;
    if (RT_OK(rio_file_get_position(fh, &pos)))
        CHECK(pos == want, "%s: individual pointer at %lld, expected %lld", what, (long long)pos,
              want);
}

static void run(const char *strategy)
{
    const int P = rt_nprocs;
    const size_t part = (size_t)N * 4;
    rio_file *fh = RIO_FILE_NULL;
    char what[128];
    ct_unlink_all(path);
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", "4096",
                            "striping_factor", "2", NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (!RT_OK(rc))
        return;
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(BL, MPI_INT, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)P * BL * 4, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&blk);
    RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * BL * 4, MPI_INT, ft, "native",
                            MPI_INFO_NULL));
    unsigned char *wb = malloc(4 * part), *rb = malloc(4 * part);
    for (long long s = 0; s < (long long)(4 * part); s++)
        wb[s] = pat(rt_rank, file_byte(rt_rank, s));
    memset(rb, CT_SENTINEL, 4 * part);
    MPI_Status st;
    MPI_Request req;

    /* writes */
    snprintf(what, sizeof what, "write_all_begin/end");
    if (RT_OK(rio_file_write_all_begin(fh, wb, N, MPI_INT)))
        check_last(fh, strategy, 1, what);
    memset(&st, 0, sizeof st);
    if (RT_OK(rio_file_write_all_end(fh, wb, &st)))
        check_count(&st, what);
    check_pos(fh, N, what);
    snprintf(what, sizeof what, "write_at_all_begin/end");
    if (RT_OK(rio_file_write_at_all_begin(fh, 2 * N, wb + 2 * part, N, MPI_INT)))
        check_last(fh, strategy, 1, what);
    if (RT_OK(rio_file_write_at_all_end(fh, wb + 2 * part, &st)))
        check_count(&st, what);
    check_pos(fh, N, what);
    snprintf(what, sizeof what, "iwrite_all");
    if (RT_OK(rio_file_iwrite_all(fh, wb + part, N, MPI_INT, &req)) && RT_OK(MPI_Wait(&req, &st))) {
        check_count(&st, what);
        check_last(fh, strategy, 1, what);
    }
    check_pos(fh, 2 * N, what);
    snprintf(what, sizeof what, "iwrite_at_all");
    if (RT_OK(rio_file_iwrite_at_all(fh, 3 * N, wb + 3 * part, N, MPI_INT, &req)) &&
        RT_OK(MPI_Wait(&req, &st))) {
        check_count(&st, what);
        check_last(fh, strategy, 1, what);
    }

    /* every byte of the file: int g belongs to block g / BL, written by rank (g / BL) % P */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0, total = 4LL * (long long)part * P, bad = 0, first = -1;
        unsigned char *img = RT_SLURP(path, &len);
        CHECK(len == total, "%s: file is %lld bytes, expected %lld", strategy, len, total);
        for (long long o = 0; img && o < len && o < total; o++)
            if (img[o] != pat((int)((o / 4 / BL) % P), o)) {
                if (first < 0)
                    first = o;
                bad++;
            }
        CHECK(bad == 0, "%s: %lld file bytes wrong, the first at %lld", strategy, bad, first);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* reads */
    RT_OK(rio_file_seek(fh, 0, MPI_SEEK_SET));
    snprintf(what, sizeof what, "read_all_begin/end");
    if (RT_OK(rio_file_read_all_begin(fh, rb, N, MPI_INT)))
        check_last(fh, strategy, 0, what);
    if (RT_OK(rio_file_read_all_end(fh, rb, &st)))
        check_count(&st, what);
    check_pos(fh, N, what);
    snprintf(what, sizeof what, "read_at_all_begin/end");
    if (RT_OK(rio_file_read_at_all_begin(fh, 2 * N, rb + 2 * part, N, MPI_INT)))
        check_last(fh, strategy, 0, what);
    if (RT_OK(rio_file_read_at_all_end(fh, rb + 2 * part, &st)))
        check_count(&st, what);
    snprintf(what, sizeof what, "iread_all");
    if (RT_OK(rio_file_iread_all(fh, rb + part, N, MPI_INT, &req)) && RT_OK(MPI_Wait(&req, &st))) {
        check_count(&st, what);
        check_last(fh, strategy, 0, what);
    }
    check_pos(fh, 2 * N, what);
    snprintf(what, sizeof what, "iread_at_all");
    if (RT_OK(rio_file_iread_at_all(fh, 3 * N, rb + 3 * part, N, MPI_INT, &req)) &&
        RT_OK(MPI_Wait(&req, &st))) {
        check_count(&st, what);
        check_last(fh, strategy, 0, what);
    }
    static const char *const names[4] = {"read_all_begin/end", "iread_all",
                                         "read_at_all_begin/end", "iread_at_all"};
    for (int k = 0; k < 4; k++)
        CHECK_BYTES(rb + k * part, wb + k * part, NULL, part, "%s: part %d read by %s", strategy,
                    k, names[k]);
    MPI_Type_free(&ft);
    RT_OK(rio_file_close(&fh));
    free(wb);
    free(rb);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(120);
    rt_path(path, sizeof path, "split");
    run("two_phase");
    run("resonant");
    alarm(0);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
