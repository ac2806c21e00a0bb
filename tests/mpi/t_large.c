/*
 * t_large.c — transfers whose size does not fit in an int.
 *
 * One write_at of count 2 of a contiguous type of 1 GiB + 2 KiB (2^31 +
 * 4096 bytes in all), then the status (MPI_Get_elements_x; MPI_Get_count
 * gives 2; MPI_Get_elements, an int, gives MPI_UNDEFINED), the size, POSIX
 * samples around offset 2^31 and at the ends, a full read back verified
 * byte by byte, and small accesses straddling 2^31; the same through the
 * collective engine (write_at_all / read_at_all, two_phase forced).  With
 * MPI-4 headers
 * (RIO_HAVE_LARGE_COUNT) also rio_file_write_at_c / read_at_c with an
 * MPI_Count count > INT_MAX of MPI_BYTE.
 *
 * Runs at 1 rank.  The file goes to /dev/shm (tmpfs) when it has room,
 * else next to -fname; it is deleted at the end.  Peak memory is one
 * buffer of 2 GiB + 4 KiB plus the file itself when on tmpfs.
 */
#include "resonio.h"
#include "rtest.h"

#include <limits.h>
#include <sys/statvfs.h>

#define TWO31 (1LL << 31)
#define HALF ((1LL << 30) + 2048)
#define TOTAL (2 * HALF)

static char path[4200];

static long long avail(const char *dir)
{
    struct statvfs sv;
    if (statvfs(dir, &sv) != 0)
        return -1;
    return (long long)sv.f_bavail * (long long)sv.f_frsize;
}

/* POSIX samples of the file: windows at the start, around 2^31, around
 * HALF and at the end (of a file of len bytes from pat(0, .)). */
static void samples(long long len, const char *what)
{
    const long long at[] = {0, 4096, HALF - 4096, TWO31 - 4096, len - 8192};
    unsigned char w[8192];
    for (size_t i = 0; i < sizeof at / sizeof at[0]; i++) {
        long long a = rt_minll(at[i], len - (long long)sizeof w);
        long long got = rt_pread(path, w, sizeof w, a);
        CHECK(got == (long long)sizeof w, "%s: POSIX pread of 8192 bytes at %lld gave %lld", what,
              a, got);
        if (got > 0)
            CHECK_PAT(w, (size_t)got, 0, a, "%s: file bytes at %lld (POSIX)", what, a);
    }
}

static void test_big_type(unsigned char *buf)
{
    rio_file *fh = RIO_FILE_NULL;
    MPI_Datatype big;
    MPI_Status st;
    MPI_Count ex = -1;
    int c = -2;
    MPI_Type_contiguous((int)HALF, MPI_BYTE, &big);
    MPI_Type_commit(&big);
    unlink(path);
    if (!RT_OK(rio_file_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                             &fh)))
        goto out;
    double t0 = MPI_Wtime();
    if (RT_OK(rio_file_write_at(fh, 0, buf, 2, big, &st))) {
        MPI_Get_elements_x(&st, big, &ex);
        CHECK(ex == TOTAL, "write_at of 2 x %lld bytes: MPI_Get_elements_x %lld, expected %lld",
              HALF, (long long)ex, TOTAL);
        MPI_Get_count(&st, big, &c);
        CHECK(c == 2, "write_at: MPI_Get_count %d, expected 2", c);
        MPI_Get_elements(&st, big, &c);
        CHECK(c == MPI_UNDEFINED, "write_at: MPI_Get_elements (int) %d, expected MPI_UNDEFINED",
              c);
    }
    double t1 = MPI_Wtime();
    MPI_Offset sz = -1;
    RT_OK(rio_file_get_size(fh, &sz));
    CHECK(sz == TOTAL, "get_size %lld, expected %lld", (long long)sz, TOTAL);
    CHECK(rt_stat_size(path) == TOTAL, "stat size %lld, expected %lld", rt_stat_size(path), TOTAL);
    samples(TOTAL, "2 x 1 GiB type");

    memset(buf, 0, (size_t)TOTAL);
    ex = -1;
    if (RT_OK(rio_file_read_at(fh, 0, buf, 2, big, &st))) {
        MPI_Get_elements_x(&st, big, &ex);
        CHECK(ex == TOTAL, "read_at: MPI_Get_elements_x %lld, expected %lld", (long long)ex, TOTAL);
        CHECK_PAT(buf, (size_t)TOTAL, 0, 0, "read_at of 2 x 1 GiB type");
    }
    double t2 = MPI_Wtime();

    /* Small accesses across 2^31. */
    unsigned char w[64], r[64];
    rt_fill(w, sizeof w, 1, TWO31 - 32);
    if (RT_OK(rio_file_write_at(fh, TWO31 - 32, w, 64, MPI_BYTE, &st)))
        CHECK_STATUS(&st, MPI_BYTE, 64, 64, "write_at across 2^31");
    memset(r, 0, sizeof r);
    if (RT_OK(rio_file_read_at(fh, TWO31 - 32, r, 64, MPI_BYTE, &st)))
        CHECK_PAT(r, 64, 1, TWO31 - 32, "read_at across 2^31");
    CHECK(rt_pread(path, r, 64, TWO31 - 32) == 64, "POSIX pread across 2^31");
    CHECK_PAT(r, 64, 1, TWO31 - 32, "file bytes across 2^31 (POSIX)");
    /* Short read at the end, above 2^31. */
    if (RT_OK(rio_file_read_at(fh, TOTAL - 10, r, 64, MPI_BYTE, &st))) {
        CHECK_STATUS(&st, MPI_BYTE, 10, 10, "short read_at at %lld", TOTAL - 10);
        CHECK_PAT(r, 10, 0, TOTAL - 10, "short read_at at the end");
    }
    RT_OK(rio_file_close(&fh));
    rt_note("2 GiB type: write %.1f s, read back %.1f s", t1 - t0, t2 - t1);
out:
    MPI_Type_free(&big);
    unlink(path);
}

/* The same 2 x (1 GiB + 2 KiB) through the collective engine, with
 * two_phase forced so that the data goes through the aggregation buffers
 * in rounds rather than straight to storage. */
static void test_big_type_coll(unsigned char *buf)
{
    rio_file *fh = RIO_FILE_NULL;
    MPI_Datatype big;
    MPI_Status st;
    MPI_Count ex = -1;
    MPI_Type_contiguous((int)HALF, MPI_BYTE, &big);
    MPI_Type_commit(&big);
    unlink(path);
    rt_fill(buf, (size_t)TOTAL, 0, 0);
    MPI_Info info = rt_info("resonio_strategy", "two_phase", NULL);
    int ok = RT_OK(rio_file_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh));
    MPI_Info_free(&info);
    if (!ok)
        goto out;
    if (RT_OK(rio_file_write_at_all(fh, 0, buf, 2, big, &st))) {
        MPI_Get_elements_x(&st, big, &ex);
        CHECK(ex == TOTAL, "write_at_all of 2 x %lld bytes: MPI_Get_elements_x %lld", HALF,
              (long long)ex);
    }
    CHECK(rt_stat_size(path) == TOTAL, "write_at_all: stat size %lld, expected %lld",
          rt_stat_size(path), TOTAL);
    samples(TOTAL, "write_at_all, two_phase");
    memset(buf, 0, (size_t)TOTAL);
    ex = -1;
    if (RT_OK(rio_file_read_at_all(fh, 0, buf, 2, big, &st))) {
        MPI_Get_elements_x(&st, big, &ex);
        CHECK(ex == TOTAL, "read_at_all: MPI_Get_elements_x %lld, expected %lld", (long long)ex,
              TOTAL);
        CHECK_PAT(buf, (size_t)TOTAL, 0, 0, "read_at_all of 2 x 1 GiB type, two_phase");
    }
    RT_OK(rio_file_close(&fh));
out:
    MPI_Type_free(&big);
    unlink(path);
}

#ifdef RIO_HAVE_LARGE_COUNT
static void test_large_count(unsigned char *buf)
{
    rio_file *fh = RIO_FILE_NULL;
    MPI_Status st;
    MPI_Count ex = -1, n = (MPI_Count)INT_MAX + 101;
    unlink(path);
    if (!RT_OK(rio_file_open(MPI_COMM_SELF, path, MPI_MODE_RDWR | MPI_MODE_CREATE, MPI_INFO_NULL,
                             &fh)))
        return;
    rt_fill(buf, (size_t)n, 0, 0);
    if (RT_OK(rio_file_write_at_c(fh, 0, buf, n, MPI_BYTE, &st))) {
        MPI_Get_elements_x(&st, MPI_BYTE, &ex);
        CHECK(ex == n, "write_at_c of %lld bytes: MPI_Get_elements_x %lld", (long long)n,
              (long long)ex);
        MPI_Count c = -1;
        MPI_Get_count_c(&st, MPI_BYTE, &c);
        CHECK(c == n, "write_at_c: MPI_Get_count_c %lld, expected %lld", (long long)c,
              (long long)n);
    }
    CHECK(rt_stat_size(path) == n, "write_at_c: stat size %lld, expected %lld", rt_stat_size(path),
          (long long)n);
    samples(n, "write_at_c");
    memset(buf, 0, (size_t)n);
    ex = -1;
    if (RT_OK(rio_file_read_at_c(fh, 0, buf, n, MPI_BYTE, &st))) {
        MPI_Get_elements_x(&st, MPI_BYTE, &ex);
        CHECK(ex == n, "read_at_c: MPI_Get_elements_x %lld, expected %lld", (long long)ex,
              (long long)n);
        CHECK_PAT(buf, (size_t)n, 0, 0, "read_at_c of %lld bytes", (long long)n);
    }
    RT_OK(rio_file_close(&fh));
    unlink(path);
}
#endif

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    if (rt_nprocs != 1) {
        CHECK(0, "t_large runs at 1 rank (memory); started with %d", rt_nprocs);
        return rt_finish();
    }
    const long long need = TOTAL + (256LL << 20);
    char dir[4000];
    if (avail("/dev/shm") >= need) {
        snprintf(dir, sizeof dir, "/dev/shm");
    } else {
        snprintf(dir, sizeof dir, "%s", rt_fname);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
    }
    long long room = avail(dir);
    long long mem = (long long)sysconf(_SC_AVPHYS_PAGES) * (long long)sysconf(_SC_PAGESIZE);
    long long memneed = TOTAL + (!strcmp(dir, "/dev/shm") ? TOTAL : 0) + (512LL << 20);
    if (room < need || mem < memneed) {
        rt_note("NOT RUN: t_large needs %lld bytes of file space (have %lld in %s) and %lld of "
                "memory (have %lld)",
                need, room, dir, memneed, mem);
        return rt_finish();
    }
    snprintf(path, sizeof path, "%s/resonio-t_large.%ld", dir, (long)getpid());
    rt_note("file %s", path);

    unsigned char *buf = malloc((size_t)TOTAL);
    if (!buf) {
        CHECK(0, "cannot allocate %lld bytes", TOTAL);
        return rt_finish();
    }
    rt_fill(buf, (size_t)TOTAL, 0, 0);
    test_big_type(buf);
    test_big_type_coll(buf);
#ifdef RIO_HAVE_LARGE_COUNT
    test_large_count(buf);
#else
    rt_note("the MPI headers are MPI-%d.%d: the large-count (_c) functions do not exist here "
            "and were not tested",
            MPI_VERSION, MPI_SUBVERSION);
#endif
    free(buf);
    return rt_finish();
}
