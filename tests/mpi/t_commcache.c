/*
 * t_commcache.c — the private communicators an open makes are kept at
 * close and taken again by the next file on the same communicator
 * (src/common/commcache.c), on every rank alike.
 *
 * Each file below is written collectively through an interleaved view
 * (each rank's blocks between the others'), read back collectively
 * through it (every byte checked) and checked in the file with POSIX
 * reads.  rio_stats_get's comms_made and comms_reused say how its private
 * communicators were had: the file's, the engine's and the engine's node
 * communicator (3), and with -multiple a background lane's (4; the write
 * is an iwrite_at_all there).
 *
 *   1. the first file on MPI_COMM_WORLD makes them all;
 *   2. the next takes them all again;
 *   3. two files open at once: the first takes the kept ones, the second
 *      makes its own; after both close (the second first) a third takes
 *      the first's again;
 *   4. on communicators of its own, one rank's N-th allocation fails at
 *      the first open (N = 1, 2, ... until the open no longer reaches
 *      it): when the open succeeds, a second open on the same
 *      communicator must agree on every rank (the same counts on each)
 *      and move the right bytes, however the failure left the ranks'
 *      kept communicators; some N must leave them different (the second
 *      open then makes new ones), else the agreement was never tested;
 *      each communicator is then freed with what it keeps;
 *   5. a communicator freed by the user while a file opened on it is
 *      open: the file works, and its close frees what it would keep.
 * -nocache (run with RESONIO_COMM_CACHE=0): every file makes all of its
 * communicators and reuses none.
 */
#include "common/common.h"
#include "rtest.h"

#define B 256    /* bytes per block */
#define NBLK 16  /* blocks per rank */
#define MAXN 200 /* allocations swept in step 4 */

static char path[4096];
static int multiple, nocache, per_file;

static long long block_off(int r, int k)
{
    return ((long long)k * rt_nprocs + r) * B;
}

static void set_view(rio_file *f)
{
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)rt_nprocs * B, &ft);
    MPI_Type_commit(&ft);
    RT_OK(rio_file_set_view(f, (MPI_Offset)rt_rank * B, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&ft);
    MPI_Type_free(&blk);
}

/* Write (seed) and read back through the view on an open file. */
static void write_read(rio_file *f, int seed, const char *what)
{
    unsigned char *buf = malloc(B * NBLK), *got = malloc(B * NBLK);
    for (int i = 0; i < B * NBLK; i++)
        buf[i] = (unsigned char)(seed * 31 + rt_rank * 7 + i);
    set_view(f);
    MPI_Status st;
    if (multiple) {
        MPI_Request req = MPI_REQUEST_NULL;
        RT_OK(rio_file_iwrite_at_all(f, 0, buf, B * NBLK, MPI_BYTE, &req));
        RT_OK(MPI_Wait(&req, &st));
    } else {
        RT_OK(rio_file_write_at_all(f, 0, buf, B * NBLK, MPI_BYTE, &st));
    }
    memset(got, 0, B * NBLK);
    RT_OK(rio_file_read_at_all(f, 0, got, B * NBLK, MPI_BYTE, &st));
    CHECK_BYTES(got, buf, NULL, (size_t)B * NBLK, "%s: read back", what);
    free(got);
    free(buf);
}

/* After close: every rank's blocks in the file, by POSIX reads. */
static void check_file(int seed, const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    long long len = 0;
    unsigned char *img = RT_SLURP(path, &len);
    CHECK(len == (long long)B * NBLK * rt_nprocs, "%s: file is %lld bytes", what, len);
    for (int r = 0; img && r < rt_nprocs && len == (long long)B * NBLK * rt_nprocs; r++)
        for (int k = 0; k < NBLK; k++)
            for (int j = 0; j < B; j++) {
                unsigned char want = (unsigned char)(seed * 31 + r * 7 + k * B + j);
                unsigned char have = img[block_off(r, k) + j];
                if (have != want) {
                    CHECK(0, "%s: byte %lld is %d, rank %d wrote %d", what, block_off(r, k) + j,
                          have, r, want);
                    r = rt_nprocs;
                    k = NBLK;
                    break;
                }
            }
    free(img);
    MPI_Barrier(MPI_COMM_WORLD);
}

static void counts(rio_file *f, long long *made, long long *reused)
{
    struct rio_stats s;
    s.size = sizeof s;
    RT_OK(rio_stats_get(f, &s));
    CHECK(s.size >= RIO_STATS_SIZE_V3, "stats size %zu", s.size);
    *made = s.comms_made;
    *reused = s.comms_reused;
}

/* The counts of f must be (made, reused), on every rank. */
static void expect(rio_file *f, long long made, long long reused, const char *what)
{
    long long m, r;
    counts(f, &m, &r);
    if (nocache) { /* nothing is kept: everything is made */
        made += reused;
        reused = 0;
    }
    CHECK(m == made && r == reused, "%s: communicators made %lld, reused %lld; expected %lld, %lld",
          what, m, r, made, reused);
}

static rio_file *open_on(MPI_Comm comm)
{
    rio_file *f = RIO_FILE_NULL;
    RT_OK(rio_file_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f));
    return f;
}

/* Step 4: one rank's N-th allocation fails at the first open on a new
 * communicator; the second open must agree.  Returns how many N left the
 * second open making communicators after a first open that succeeded. */
static int sweep(int victim)
{
    int diverged = 0;
    long n;
    for (n = 1; n <= MAXN; n++) {
        MPI_Comm comm;
        MPI_Comm_dup(MPI_COMM_WORLD, &comm);
        rio_file *f = RIO_FILE_NULL;
        if (rt_rank == 0)
            unlink(path);
        MPI_Barrier(MPI_COMM_WORLD);
        rio__malloc_fail_at(rt_rank == victim ? n : 0);
        int code = rio_file_open(comm, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &f);
        int fired = rio__malloc_fail_at(0) <= 0, all = 0; /* 0 left: it failed */
        MPI_Allreduce(&fired, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
        long long m1 = 0, r1 = 0; /* what the first open had */
        if (code == MPI_SUCCESS) {
            counts(f, &m1, &r1);
            RT_OK(rio_file_close(&f));
        }
        /* second open, nothing failing */
        f = open_on(comm);
        if (f) {
            long long m = 0, r = 0, mine[2], lo[2], hi[2];
            counts(f, &m, &r);
            mine[0] = m;
            mine[1] = r;
            MPI_Allreduce(mine, lo, 2, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
            MPI_Allreduce(mine, hi, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
            CHECK(lo[0] == hi[0] && lo[1] == hi[1],
                  "victim %d, n=%ld: second open made %lld and reused %lld here, "
                  "ranks differ "
                  "(made %lld-%lld, reused %lld-%lld)",
                  victim, n, m, r, lo[0], hi[0], lo[1], hi[1]);
            CHECK(m + r == 3, "victim %d, n=%ld: %lld + %lld communicators", victim, n, m, r);
            /* the first open had all three, yet not every rank kept them */
            if (code == MPI_SUCCESS && m1 + r1 == 3 && m > 0)
                diverged++;
            write_read(f, (int)n, "sweep");
            RT_OK(rio_file_close(&f));
            check_file((int)n, "sweep");
        }
        MPI_Comm_free(&comm); /* with what it keeps */
        if (!all)             /* the open no longer reaches the N-th allocation */
            break;
    }
    if (rt_rank == 0)
        printf("victim %d: allocations 1-%ld of the open failed in turn; %d left "
               "the ranks "
               "keeping different communicators\n",
               victim, n, diverged);
    return diverged;
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(120);
    for (int i = 1; i < argc; i++) {
        multiple |= !strcmp(argv[i], "-multiple");
        nocache |= !strcmp(argv[i], "-nocache");
    }
    per_file = 3 + multiple;
    rt_path(path, sizeof path, "");

    /* 1 and 2 */
    rio_file *f = open_on(MPI_COMM_WORLD);
    write_read(f, 1, "first file");
    expect(f, per_file, 0, "first file");
    RT_OK(rio_file_close(&f));
    check_file(1, "first file");
    f = open_on(MPI_COMM_WORLD);
    write_read(f, 2, "second file");
    expect(f, 0, per_file, "second file");
    RT_OK(rio_file_close(&f));
    check_file(2, "second file");

    /* 3: two at once */
    char path2[4100];
    snprintf(path2, sizeof path2, "%s.b", path);
    rio_file *g = open_on(MPI_COMM_WORLD), *h = RIO_FILE_NULL;
    RT_OK(rio_file_open(MPI_COMM_WORLD, path2, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &h));
    write_read(g, 3, "two at once, first");
    write_read(h, 4, "two at once, second");
    expect(g, 0, per_file, "two at once, first");
    expect(h, per_file, 0, "two at once, second");
    RT_OK(rio_file_close(&h)); /* the opposite order of the opens */
    RT_OK(rio_file_close(&g));
    check_file(3, "two at once, first");
    if (rt_rank == 0)
        unlink(path2);
    f = open_on(MPI_COMM_WORLD);
    write_read(f, 5, "after two");
    expect(f, 0, per_file, "after two");
    RT_OK(rio_file_close(&f));
    check_file(5, "after two");

    /* 4: blocking calls only (an allocation failing in a lane is
     * t_coll_nomem's) */
    if (!nocache && rt_nprocs > 1) {
        int save = multiple, any = 0;
        multiple = 0;
        for (int v = 0; v < rt_nprocs; v++)
            any |= sweep(v);
        multiple = save;
        CHECK(any, "no failed allocation left the ranks' kept communicators different");
    }

    /* 5: the user frees the communicator while the file is open */
    MPI_Comm comm;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    f = open_on(comm);
    MPI_Comm_free(&comm);
    write_read(f, 6, "parent freed");
    expect(f, per_file, 0, "parent freed");
    RT_OK(rio_file_close(&f));
    check_file(6, "parent freed");
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
