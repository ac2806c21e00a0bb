/*
 * t_coll_nbstats.c — a nonblocking collective call counts the bytes it
 * accesses in storage (rio_stats' bytes_accessed) as the blocking call
 * does, whichever of its transfers are kept for the file's lane and
 * whichever are made at once: an aggregator's round buffer and a read
 * into it (made at once on storage with a page cache), and every transfer
 * of a call the selector measures strategies on.
 *
 * Rank r's data is NB blocks of BS bytes interleaved with the other
 * ranks' (block k at (k * P + r) * BS), through a vector filetype, so the
 * aggregating strategies exchange.  Under each forced strategy the same
 * call is made blocking, as iwrite_at_all / iread_at_all and as a split
 * collective, on a new file each time; every rank's bytes_accessed must
 * grow by the same amount in the three (the plan is the same), and, over
 * all ranks, by at least the call's bytes.  Under auto (a new signature:
 * the selector examines, so the call goes through), only the second
 * holds, for every call of the examination.  After each write rank 0
 * checks every byte of the file with POSIX reads; every read checks every
 * byte it brought.
 */
#include "ctest_util.h"

#define BS 4096LL
#define NB 64

static char path[4200];

static long long accessed(rio_file *fh)
{
    struct rio_stats s = {.size = sizeof s};
    RT_OK(rio_stats_get(fh, &s));
    return s.bytes_accessed;
}

static long long whole_block(int c, int r)
{
    (void)c;
    (void)r;
    return BS;
}

/* Every block of the file its rank's pattern, and nothing past the last. */
static void verify_file(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long want = (long long)NB * rt_nprocs * BS, len = rt_stat_size(path);
        CHECK(len == want, "%s: file is %lld bytes, expected %lld", what, len, want);
        int errs = rt_errs;
        ct_check_slots(path, NB, BS, whole_block);
        CHECK(rt_errs == errs, "%s: the file's bytes above are wrong", what);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

enum how { BLOCKING, NONBLOCKING, SPLIT };
static const char *how_name[] = {"blocking", "nonblocking", "split"};

/* One call of kind write/read made how, on a new file (a read's file
 * written first, blocking); the bytes this rank accessed in it. */
static long long one_call(const char *s, int write, enum how how, int calls, const char *what)
{
    rio_file *fh = NULL;
    MPI_Status st;
    size_t n = (size_t)(NB * BS);
    unsigned char *buf = malloc(n), *back = malloc(n);
    rt_fill(buf, n, rt_rank, 0);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = rt_info("resonio_strategy", s, "resonio_select_reuse", "disable", NULL);
    long long got = -1;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh)))
        goto out;
    MPI_Datatype blocks, ft;
    MPI_Type_vector(NB, (int)BS, (int)(BS * rt_nprocs), MPI_BYTE, &blocks);
    MPI_Type_create_resized(blocks, 0, BS * NB * rt_nprocs, &ft);
    MPI_Type_commit(&ft);
    RT_OK(rio_file_set_view(fh, rt_rank * BS, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&blocks);
    MPI_Type_free(&ft);
    if (!write)
        RT_OK(rio_file_write_at_all(fh, 0, buf, (int)n, MPI_BYTE, &st));
    for (int c = 0; c < calls; c++) {
        long long before = accessed(fh);
        memset(back, 0, n);
        void *b = write ? (void *)buf : (void *)back;
        MPI_Request rq;
        if (how == BLOCKING)
            RT_OK(write ? rio_file_write_at_all(fh, 0, b, (int)n, MPI_BYTE, &st)
                        : rio_file_read_at_all(fh, 0, b, (int)n, MPI_BYTE, &st));
        else if (how == NONBLOCKING) {
            RT_OK(write ? rio_file_iwrite_at_all(fh, 0, b, (int)n, MPI_BYTE, &rq)
                        : rio_file_iread_at_all(fh, 0, b, (int)n, MPI_BYTE, &rq));
            RT_OK(MPI_Wait(&rq, &st));
        } else {
            RT_OK(write ? rio_file_write_at_all_begin(fh, 0, b, (int)n, MPI_BYTE)
                        : rio_file_read_at_all_begin(fh, 0, b, (int)n, MPI_BYTE));
            RT_OK(write ? rio_file_write_at_all_end(fh, b, &st)
                        : rio_file_read_at_all_end(fh, b, &st));
        }
        got = accessed(fh) - before;
        long long all = rt_sum(got), want = (long long)n * rt_nprocs;
        CHECK(all >= want, "%s, call %d: %lld bytes accessed over all ranks, fewer than the "
              "call's %lld", what, c, all, want);
        if (!write)
            CHECK_PAT(back, n, rt_rank, 0, "%s, call %d: bytes read", what, c);
    }
    RT_OK(rio_file_close(&fh));
    if (write)
        verify_file(what);
out:
    MPI_Info_free(&info);
    free(buf);
    free(back);
    return got;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(180);
    rt_path(path, sizeof path, "nbstats");
    const char *forced[] = {"two_phase", "every_rank", "direct", "independent"};
    char what[160];
    for (int write = 1; write >= 0; write--) {
        for (size_t i = 0; i < sizeof forced / sizeof *forced; i++) {
            long long got[3];
            for (int h = BLOCKING; h <= SPLIT; h++) {
                snprintf(what, sizeof what, "%s, %s %s", forced[i], how_name[h],
                         write ? "write" : "read");
                got[h] = one_call(forced[i], write, (enum how)h, 1, what);
            }
            for (int h = NONBLOCKING; h <= SPLIT; h++)
                CHECK(got[h] == got[BLOCKING],
                      "%s, %s %s: rank %d accessed %lld bytes, the blocking call %lld",
                      forced[i], how_name[h], write ? "write" : "read", rt_rank, got[h],
                      got[BLOCKING]);
        }
        for (int h = NONBLOCKING; h <= SPLIT; h++) {
            snprintf(what, sizeof what, "auto examining, %s %s", how_name[h],
                     write ? "write" : "read");
            one_call("auto", write, (enum how)h, 4, what);
        }
    }
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
