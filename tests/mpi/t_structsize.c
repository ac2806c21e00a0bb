/*
 * t_structsize.c — the public info and stats structs can grow: the size
 * rule, and the independent methods' counters under their names.
 *
 * struct rio_stats, struct rio_coll_info and struct rio_select_info start
 * with a size the caller sets (resonio.h, statistics).  For each of
 * rio_stats_get, rio_coll_last and rio_select_get, with the struct at the
 * start of a larger buffer of guard bytes:
 *   - size = the first version's (RIO_*_SIZE_V1): succeeds, size stays,
 *     the part written is the one a whole-struct call gives, and not one
 *     byte after it changes;
 *   - size larger than the library's struct (a program built against a
 *     later header): succeeds, size becomes sizeof the struct, and nothing
 *     after that changes;
 *   - size 0 (unset) and the first version's less one: MPI_ERR_ARG with a
 *     message naming the operation, the file and the size, and not one
 *     byte of the buffer changed.
 * rio_coll_last is collective: with size 0 on the last rank only, that
 * rank fails, the others get their answer, and nobody is left waiting
 * (SIGALRM watchdog).
 *
 * Per-method counters: for every name rio_indep_method_name gives, a file
 * opened with resonio_indep_method=<name> reads a strided view (every byte
 * checked); its storage requests land in req_method[i] for the i of that
 * name and in no other slot, and nmethods is rio_indep_method_count().
 * The file, written collectively through the same view, is checked with
 * POSIX reads.
 */
#include "resonio.h"
#include "rtest.h"

#include <stdalign.h>

#define B 64    /* bytes per block */
#define NBLK 64 /* blocks per rank */
#define GUARD 0xA5
/* room for the largest struct and guard bytes after it */
#define BUF 16384
_Static_assert(sizeof(struct rio_coll_info) + 64 <= BUF &&
                   sizeof(struct rio_select_info) + 64 <= BUF &&
                   sizeof(struct rio_stats) + 64 <= BUF,
               "the guarded buffer holds every struct");

static char path[4096];
static rio_file *fh = RIO_FILE_NULL;

/* Rank r's block k sits at slot k * (P + 1) + r of B bytes: the last slot
 * of every group is a hole, so the view is strided at one rank too. */
static long long block_off(int r, int k)
{
    return ((long long)k * (rt_nprocs + 1) + r) * B;
}

/* The byte the file holds at o: the writer's pattern, 0 in the holes. */
static unsigned char expected(long long o)
{
    int slot = (int)((o / B) % (rt_nprocs + 1));
    return slot < rt_nprocs ? pat(slot, o) : 0;
}

static void set_view(rio_file *f)
{
    MPI_Datatype blk, ft;
    MPI_Type_contiguous(B, MPI_BYTE, &blk);
    MPI_Type_create_resized(blk, 0, (MPI_Aint)(rt_nprocs + 1) * B, &ft);
    MPI_Type_commit(&ft);
    RT_OK(rio_file_set_view(f, (MPI_Offset)rt_rank * B, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    MPI_Type_free(&ft);
    MPI_Type_free(&blk);
}

/* ---- the size rule ---------------------------------------------------------------- */

/* One of the three calls on fh into out. */
struct api {
    const char *op;
    size_t full, v1;
    int (*call)(void *out);
};

static int call_stats(void *out)
{
    return rio_stats_get(fh, out);
}
static int call_last(void *out)
{
    return rio_coll_last(fh, out);
}
static int call_select(void *out)
{
    return rio_select_get(fh, 0, out);
}

/* A buffer of guard bytes with size at its start. */
static void arm(unsigned char *buf, size_t size)
{
    memset(buf, GUARD, BUF);
    memcpy(buf, &size, sizeof size);
}

static size_t size_of(const unsigned char *buf)
{
    size_t s;
    memcpy(&s, buf, sizeof s);
    return s;
}

/* The first byte from from on that is not a guard byte, or -1. */
static long long touched(const unsigned char *buf, size_t from)
{
    for (size_t i = from; i < BUF; i++)
        if (buf[i] != GUARD)
            return (long long)i;
    return -1;
}

static void check_sizes(const struct api *a)
{
    alignas(max_align_t) unsigned char whole[BUF], buf[BUF];
    char s[MPI_MAX_ERROR_STRING];
    CHECK(a->v1 >= sizeof(size_t) && a->v1 <= a->full && a->full + 64 <= BUF,
          "%s: first version %zu, struct %zu, buffer %d", a->op, a->v1, a->full, BUF);

    /* the whole struct: the reference, and nothing past it */
    arm(whole, a->full);
    if (!RT_OK(a->call(whole)))
        return;
    CHECK(size_of(whole) == a->full, "%s: size %zu after a whole-struct call, expected %zu",
          a->op, size_of(whole), a->full);
    CHECK(touched(whole, a->full) < 0, "%s: byte %lld past the struct of %zu written", a->op,
          touched(whole, a->full), a->full);

    /* the first version's size: that part and nothing beyond */
    arm(buf, a->v1);
    if (RT_OK(a->call(buf))) {
        CHECK(size_of(buf) == a->v1, "%s: size %zu after a call with the first version's %zu",
              a->op, size_of(buf), a->v1);
        CHECK(touched(buf, a->v1) < 0, "%s: byte %lld written past the first version's %zu",
              a->op, touched(buf, a->v1), a->v1);
        CHECK(!memcmp(buf + sizeof(size_t), whole + sizeof(size_t), a->v1 - sizeof(size_t)),
              "%s: the first version's part differs from a whole-struct call's", a->op);
    }

    /* a later header's larger struct: the library's part, size says so */
    arm(buf, a->full + 64);
    if (RT_OK(a->call(buf))) {
        CHECK(size_of(buf) == a->full, "%s: size %zu after a call with %zu, expected %zu",
              a->op, size_of(buf), a->full + 64, a->full);
        CHECK(touched(buf, a->full) < 0, "%s: byte %lld written past the library's %zu",
              a->op, touched(buf, a->full), a->full);
        CHECK(!memcmp(buf + sizeof(size_t), whole + sizeof(size_t), a->full - sizeof(size_t)),
              "%s: a larger caller's part differs from a whole-struct call's", a->op);
    }

    /* unset, and one byte short of the first version: refused, untouched */
    size_t bad[2] = {0, a->v1 - 1};
    for (int k = 0; k < 2; k++) {
        arm(buf, bad[k]);
        int code = a->call(buf);
        if (RT_ERR(code, MPI_ERR_ARG, a->op, path))
            CHECK(strstr(rt_errstr(code, s), "size"), "%s with size %zu: message lacks "
                  "\"size\": %s", a->op, bad[k], s);
        CHECK(size_of(buf) == bad[k] && touched(buf, sizeof(size_t)) < 0,
              "%s with size %zu: the buffer changed (size %zu, byte %lld)", a->op, bad[k],
              size_of(buf), touched(buf, sizeof(size_t)));
    }
}

/* rio_coll_last with size 0 on the last rank only. */
static void check_one_bad_rank(void)
{
    alignas(max_align_t) unsigned char buf[BUF];
    int bad = rt_rank == rt_nprocs - 1;
    arm(buf, bad ? 0 : sizeof(struct rio_coll_info));
    int code = rio_coll_last(fh, (struct rio_coll_info *)buf);
    if (bad) {
        RT_ERR(code, MPI_ERR_ARG, "rio_coll_last", path);
        CHECK(touched(buf, sizeof(size_t)) < 0, "rio_coll_last refused, but wrote byte %lld",
              touched(buf, sizeof(size_t)));
    } else if (RT_OK(code)) {
        struct rio_coll_info in;
        memcpy(&in, buf, sizeof in);
        CHECK(in.nprocs == rt_nprocs && in.strategy[0],
              "rio_coll_last beside a failing rank: nprocs %d, strategy \"%s\"", in.nprocs,
              in.strategy);
    }
}

/* ---- the per-method counters ------------------------------------------------------ */

static void check_method(int i, const unsigned char *want)
{
    const char *name = rio_indep_method_name(i);
    rio_file *f = RIO_FILE_NULL;
    MPI_Info info = rt_info("resonio_indep_method", name, NULL);
    int opened = RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &f));
    MPI_Info_free(&info);
    if (!opened)
        return;
    set_view(f);
    unsigned char got[NBLK * B];
    memset(got, 0, sizeof got);
    MPI_Status st;
    if (RT_OK(rio_file_read_at(f, 0, got, NBLK * B, MPI_BYTE, &st))) {
        long long bad = -1;
        for (long long j = 0; j < NBLK * B && bad < 0; j++)
            if (got[j] != want[j])
                bad = j;
        CHECK(bad < 0, "method %s: byte %lld read as 0x%02x, expected 0x%02x", name, bad,
              bad < 0 ? 0 : got[bad], bad < 0 ? 0 : want[bad]);
    }
    struct rio_stats s = {.size = sizeof s};
    if (RT_OK(rio_stats_get(f, &s))) {
        CHECK(s.nmethods == rio_indep_method_count(), "nmethods %d, rio_indep_method_count %d",
              s.nmethods, rio_indep_method_count());
        for (int j = 0; j < RIO_STATS_MAX_METHODS; j++) {
            const char *other = rio_indep_method_name(j);
            if (j == i)
                CHECK(s.req_method[j] > 0, "method %s forced: no requests under its slot %d",
                      name, j);
            else
                CHECK(s.req_method[j] == 0,
                      "method %s forced: %lld requests under slot %d (%s)", name,
                      s.req_method[j], j, other ? other : "no method");
        }
    }
    RT_OK(rio_file_close(&f));
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    rt_watchdog(240);
    rt_path(path, sizeof path, "structsize");
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);

    unsigned char mine[NBLK * B];
    for (int k = 0; k < NBLK; k++)
        for (int j = 0; j < B; j++)
            mine[k * B + j] = pat(rt_rank, block_off(rt_rank, k) + j);

    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                            MPI_INFO_NULL, &fh))) {
        set_view(fh);
        MPI_Status st;
        RT_OK(rio_file_write_at_all(fh, 0, mine, NBLK * B, MPI_BYTE, &st));
        int nsig = 0;
        RT_OK(rio_select_count(fh, &nsig));
        CHECK(nsig >= 1, "the selector holds %d signatures after a collective call with auto",
              nsig);
        const struct api apis[] = {
            {"rio_stats_get", sizeof(struct rio_stats), RIO_STATS_SIZE_V1, call_stats},
            {"rio_coll_last", sizeof(struct rio_coll_info), RIO_COLL_INFO_SIZE_V1, call_last},
            {"rio_select_get", sizeof(struct rio_select_info), RIO_SELECT_INFO_SIZE_V1,
             call_select},
        };
        for (size_t k = 0; k < sizeof apis / sizeof apis[0]; k++)
            if (k != 2 || nsig >= 1)
                check_sizes(&apis[k]);
        check_one_bad_rank();
        RT_OK(rio_file_close(&fh));
    }

    /* the file, by POSIX reads: every byte */
    MPI_Barrier(MPI_COMM_WORLD);
    long long len = 0, want_len = block_off(rt_nprocs - 1, NBLK - 1) + B;
    unsigned char *img = RT_SLURP(path, &len);
    if (img) {
        CHECK(len == want_len, "file of %lld bytes, expected %lld", len, want_len);
        for (long long o = 0; o < len && o < want_len; o++)
            if (img[o] != expected(o)) {
                CHECK(0, "file byte %lld is 0x%02x, expected 0x%02x", o, img[o], expected(o));
                break;
            }
        free(img);
    }

    int n = rio_indep_method_count();
    CHECK(n >= 1 && n <= RIO_STATS_MAX_METHODS && !rio_indep_method_name(n) &&
              !rio_indep_method_name(-1),
          "rio_indep_method_count() = %d, capacity %d", n, RIO_STATS_MAX_METHODS);
    for (int i = 0; i < n && i < RIO_STATS_MAX_METHODS; i++)
        check_method(i, mine);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        RT_OK(rio_file_delete(path, MPI_INFO_NULL));
    return rt_finish();
}
