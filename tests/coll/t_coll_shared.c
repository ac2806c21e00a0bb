/*
 * t_coll_shared.c — a collective write that other ranks of the same host
 * make into the file at the same time goes staged (store.c: a small
 * buffer between the caller's memory and each storage call, which
 * shortens the call's hold on the file's lock), and no other write does.
 * rio_stats' shared_staged counts those bytes.
 *
 * Rank r writes its block of B bytes at r * B with one collective call
 * under a forced strategy.  The hosts are MPI_COMM_TYPE_SHARED's, as the
 * library sees them.  Expected growth of shared_staged on each rank:
 *   direct and independent, B = 1 MiB + 333 (a whole piece and a part):
 *     B where another rank of the host writes too, else 0;
 *   the same as iwrite_at_all, counted once the request completes (below
 *     MULTIPLE its writes are kept and made later by the file's lane);
 *   only rank 0 writes (the others count 0): under auto (candidates
 *     direct or independent, a new file: the summary's rows known) 0
 *     everywhere; forced, where no rank has the others' rows, rank 0
 *     stages as if the host's other ranks wrote;
 *   B = 16 KiB - 1, under the size that is staged: 0;
 *   two_phase: 0 (aggregators write their round buffers);
 *   resonant on one stripe column (striping_factor 1): ranks write in
 *     turn, one at a time: 0.
 * After each case rank 0 reads the file with POSIX reads and checks every
 * byte: each block its writer's pattern, nothing past the last block.
 */
#include "ctest_util.h"

#define BIG (((long long)1 << 20) + 333)
#define SMALL ((16LL << 10) - 1)

static char path[4200];
static int host_peers; /* other ranks of this rank's host */

static long long staged_now(rio_file *fh)
{
    struct rio_stats s = {.size = sizeof s};
    RT_OK(rio_stats_get(fh, &s));
    return s.shared_staged;
}

/* The file: block r holds pat(r, r * B) for each rank r that wrote. */
static void verify(long long B, int writers, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0) {
        long long len = 0;
        unsigned char *img = RT_SLURP(path, &len);
        CHECK(len == B * writers, "%s: file is %lld bytes, expected %lld", what, len,
              B * writers);
        for (int r = 0; img && r < writers && len == B * writers; r++)
            CHECK_PAT(img + r * B, (size_t)B, r, r * B, "%s: block of rank %d", what, r);
        free(img);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* One case: strategy s (or auto among candidates cand), on one stripe
 * column of 1 MiB when column,
 * blocks of B bytes from the ranks below writers, blocking or not;
 * expect_staged whether a rank that writes should count its block. */
static void run_case(const char *s, const char *cand, int column, long long B, int writers,
                     int nonblocking, int expect_staged, const char *what)
{
    rio_file *fh = NULL;
    MPI_Status st;
    long long n = rt_rank < writers ? B : 0;
    unsigned char *buf = malloc((size_t)B);
    rt_fill(buf, (size_t)B, rt_rank, rt_rank * B);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Info info = rt_info("resonio_strategy", s, "resonio_select_candidates", cand,
                            "resonio_select_reuse", cand ? "disable" : NULL, "striping_factor",
                            column ? "1" : NULL, "striping_unit", column ? "1048576" : NULL,
                            NULL);
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh))) {
        MPI_Info_free(&info);
        free(buf);
        return;
    }
    MPI_Info_free(&info);
    long long before = staged_now(fh);
    if (nonblocking) {
        MPI_Request rq;
        RT_OK(rio_file_iwrite_at_all(fh, rt_rank * B, buf, (int)n, MPI_BYTE, &rq));
        RT_OK(MPI_Wait(&rq, &st));
    } else {
        RT_OK(rio_file_write_at_all(fh, rt_rank * B, buf, (int)n, MPI_BYTE, &st));
    }
    long long got = staged_now(fh) - before;
    long long want = expect_staged && n > 0 ? n : 0;
    CHECK(got == want, "%s: %lld bytes staged as shared on rank %d (%d other ranks of its host), "
          "expected %lld", what, got, rt_rank, host_peers, want);
    RT_OK(rio_file_close(&fh));
    verify(B, writers, what);
    free(buf);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(120);
    rt_path(path, sizeof path, "shared");
    MPI_Comm host;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    MPI_Comm_size(host, &host_peers);
    host_peers--;
    MPI_Comm_free(&host);
    int others = host_peers > 0;
    char what[128];
    const char *own[] = {"direct", "independent"};
    for (int i = 0; i < 2; i++) {
        snprintf(what, sizeof what, "%s, every rank 1 MiB + 333", own[i]);
        run_case(own[i], NULL, 0, BIG, rt_nprocs, 0, others, what);
        snprintf(what, sizeof what, "%s, iwrite_at_all", own[i]);
        run_case(own[i], NULL, 0, BIG, rt_nprocs, 1, others, what);
        snprintf(what, sizeof what, "%s, rank 0 alone", own[i]);
        run_case(own[i], NULL, 0, BIG, 1, 0, others, what);
        snprintf(what, sizeof what, "auto among %s, rank 0 alone", own[i]);
        run_case("auto", own[i], 0, BIG, 1, 0, 0, what);
        snprintf(what, sizeof what, "auto among %s, every rank", own[i]);
        run_case("auto", own[i], 0, BIG, rt_nprocs, 0, others, what);
        snprintf(what, sizeof what, "%s, blocks of 16 KiB - 1", own[i]);
        run_case(own[i], NULL, 0, SMALL, rt_nprocs, 0, 0, what);
    }
    run_case("two_phase", NULL, 0, BIG, rt_nprocs, 0, 0, "two_phase");
    run_case("resonant", NULL, 1, BIG, rt_nprocs, 0, 0,
             "resonant, one stripe column: in turn");
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
