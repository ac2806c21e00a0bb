/*
 * t_emptyview.c — views whose filetype holds no data, and the other
 * corner cases of legal views.
 *
 * PnetCDF fills small variables at ncmpi_enddef by giving each rank with
 * nothing to fill an hindexed filetype of zero-length blocks and calling
 * write_at_all on every rank; it does not check set_view's return.  A
 * library that refuses the empty filetype leaves those ranks on the
 * default view, and their fill values land at offset 0, over the header.
 * So the first case replays that pattern and checks the file byte for
 * byte: rank 0 writes 16 bytes through a view at byte 896 after an
 * 896-byte header, the others set an empty view and write too; the file
 * must be the header followed by those 16 bytes, 912 bytes in all.
 *
 * Then, on a file of known content: every kind of empty filetype (zero-
 * length blocks, a resized type of holes only, a contiguous type of count
 * 0 whose extent is 0) with independent, collective, shared-pointer,
 * nonblocking and split calls, each of which must move 0 bytes, say so in
 * its status, leave the buffer and the file alone and leave the pointers
 * where they were; get_byte_offset, seek and get_position on such a view.
 * Then a filetype that mixes zero-length blocks (one of them out of order)
 * with data, written and read back; a view with data on some ranks and an
 * empty one with count 0 on the others; and a zero-size etype, which is
 * refused (offsets count etypes) with MPI_ERR_TYPE, the old view kept.
 *
 * -strategy <s> runs one collective strategy (the resonio_strategy hint);
 * without it, every strategy in turn.  Every file is verified with plain
 * POSIX reads after close.
 */
#include "resonio.h"
#include "rtest.h"

#define HDR 896   /* the PnetCDF pattern: header bytes before the variable */
#define VAR 16    /* and the variable's fill bytes */
#define KNOWN 100 /* size of the file the empty views must leave alone */
#define SENT 0xEE /* what a buffer holds where nothing may be read into it */

static rio_file *open_with(const char *path, int amode, const char *strategy)
{
    MPI_Info info = rt_info("resonio_strategy", strategy, "cb_buffer_size", "4096", (char *)NULL);
    rio_file *fh = NULL;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, amode, info, &fh)))
        fh = NULL;
    MPI_Info_free(&info);
    return fh;
}

/* An hindexed filetype of zero-length blocks, as PnetCDF builds it. */
static MPI_Datatype zero_blocks(void)
{
    int bl[3] = {0, 0, 0};
    MPI_Aint d[3] = {0, HDR, 4096};
    MPI_Datatype t;
    MPI_Type_create_hindexed(3, bl, d, MPI_BYTE, &t);
    MPI_Type_commit(&t);
    return t;
}

/* The empty filetypes: zero-length blocks; holes only (extent 40); count 0
 * (extent 0). */
#define NEMPTY 3
static const char *const empty_name[NEMPTY] = {"zero-length blocks", "holes only",
                                               "contiguous(0)"};
static MPI_Datatype empty_type(int k)
{
    MPI_Datatype t, z;
    if (k == 0)
        return zero_blocks();
    MPI_Type_contiguous(0, MPI_BYTE, &z);
    if (k == 1) {
        MPI_Type_create_resized(z, 0, 40, &t);
        MPI_Type_free(&z);
    } else {
        t = z;
    }
    MPI_Type_commit(&t);
    return t;
}

static void check_count(const MPI_Status *st, int want, const char *what, const char *strategy)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == want, "%s (%s): status count %d, expected %d", what, strategy, count, want);
}

/* Check the whole file by POSIX: size and every byte against img. */
static void check_file(const char *path, const unsigned char *img, long long len,
                       const char *what, const char *strategy)
{
    long long flen = 0;
    unsigned char *file = RT_SLURP(path, &flen);
    if (!file)
        return;
    CHECK(flen == len, "%s (%s): file is %lld bytes, expected %lld", what, strategy, flen, len);
    CHECK_BYTES(file, img, NULL, (size_t)rt_minll(flen, len), "%s (%s): file content", what,
                strategy);
    free(file);
}

/* ---- the PnetCDF pattern ------------------------------------------------------ */

static void pnetcdf(const char *strategy)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.pnetcdf.%s", rt_fname, strategy);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = open_with(path, MPI_MODE_CREATE | MPI_MODE_RDWR, strategy);
    if (!fh)
        return;
    unsigned char hdr[HDR], var[VAR];
    MPI_Status st;
    rt_fill(hdr, HDR, 99, 0);
    /* the header, by rank 0 through the default view */
    RT_OK(rio_file_write_at_all(fh, 0, hdr, rt_rank == 0 ? HDR : 0, MPI_BYTE, &st));

    MPI_Datatype ft;
    int bl = VAR;
    MPI_Aint d = 0;
    if (rt_rank == 0) {
        MPI_Type_create_hindexed(1, &bl, &d, MPI_BYTE, &ft);
        MPI_Type_commit(&ft);
    } else {
        ft = zero_blocks();
    }
    RT_OK(rio_file_set_view(fh, rt_rank == 0 ? HDR : 0, MPI_BYTE, ft, "native", MPI_INFO_NULL));
    /* rank 0 fills the variable; odd ranks hand 16 bytes to their empty
     * view, even ones nothing: neither may land anywhere */
    int count = rt_rank == 0 ? VAR : (rt_rank % 2 ? VAR : 0);
    rt_fill(var, VAR, rt_rank, HDR);
    RT_OK(rio_file_write_at_all(fh, 0, var, count, MPI_BYTE, &st));
    check_count(&st, rt_rank == 0 ? VAR : 0, "PnetCDF fill write_at_all", strategy);
    MPI_Type_free(&ft);
    RT_OK(rio_file_close(&fh));

    unsigned char img[HDR + VAR];
    rt_fill(img, HDR, 99, 0);
    rt_fill(img + HDR, VAR, 0, HDR);
    if (rt_rank == 0)
        check_file(path, img, HDR + VAR, "PnetCDF pattern", strategy);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- empty views ---------------------------------------------------------------- */

/* Every access through the view of fh, which holds no data: 0 bytes each. */
static void empty_accesses(rio_file *fh, const char *what, const char *strategy)
{
    unsigned char buf[32], out[32];
    MPI_Status st;
    MPI_Request rq;
    MPI_Offset at = -1;
    memset(buf, SENT, sizeof buf);
    rt_fill(out, sizeof out, rt_rank, 0);
    char w[256];
#define STEP(name) (snprintf(w, sizeof w, "%s: %s", what, name), w)

    RT_OK(rio_file_read_at_all(fh, 0, buf, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("read_at_all"), strategy);
    RT_OK(rio_file_write_at_all(fh, 3, out, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("write_at_all"), strategy);
    RT_OK(rio_file_read_at(fh, 0, buf, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("read_at"), strategy);
    RT_OK(rio_file_write_at(fh, 0, out, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("write_at"), strategy);
    RT_OK(rio_file_write(fh, out, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("write"), strategy);
    RT_OK(rio_file_read_all(fh, buf, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("read_all"), strategy);
    RT_OK(rio_file_write_all(fh, out, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("write_all"), strategy);
    RT_OK(rio_file_get_position(fh, &at));
    CHECK(at == 0, "%s (%s): individual pointer at %lld after 0 bytes moved", what, strategy,
          (long long)at);
    RT_OK(rio_file_write_shared(fh, out, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("write_shared"), strategy);
    RT_OK(rio_file_read_ordered(fh, buf, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("read_ordered"), strategy);
    at = -1;
    RT_OK(rio_file_get_position_shared(fh, &at));
    CHECK(at == 0, "%s (%s): shared pointer at %lld after 0 bytes moved", what, strategy,
          (long long)at);

    /* nonblocking and split collective forms */
    if (RT_OK(rio_file_iwrite_at_all(fh, 0, out, 10, MPI_BYTE, &rq)) && RT_OK(MPI_Wait(&rq, &st)))
        check_count(&st, 0, STEP("iwrite_at_all"), strategy);
    if (RT_OK(rio_file_iread_all(fh, buf, 10, MPI_BYTE, &rq)) && RT_OK(MPI_Wait(&rq, &st)))
        check_count(&st, 0, STEP("iread_all"), strategy);
    if (RT_OK(rio_file_iread_at(fh, 0, buf, 10, MPI_BYTE, &rq)) && RT_OK(MPI_Wait(&rq, &st)))
        check_count(&st, 0, STEP("iread_at"), strategy);
    if (RT_OK(rio_file_write_at_all_begin(fh, 0, out, 10, MPI_BYTE)) &&
        RT_OK(rio_file_write_at_all_end(fh, out, &st)))
        check_count(&st, 0, STEP("write_at_all_begin/end"), strategy);
    if (RT_OK(rio_file_read_all_begin(fh, buf, 10, MPI_BYTE)) &&
        RT_OK(rio_file_read_all_end(fh, buf, &st)))
        check_count(&st, 0, STEP("read_all_begin/end"), strategy);

    for (size_t k = 0; k < sizeof buf; k++)
        if (buf[k] != SENT) {
            CHECK(0, "%s (%s): byte %zu of the read buffer changed to 0x%02x", what, strategy, k,
                  buf[k]);
            break;
        }

    /* positions: no byte to map to, so every offset maps to the
     * displacement; pointers move as asked; the end of the file is
     * position 0 of a view without data */
    MPI_Offset b = -1;
    RT_OK(rio_file_get_byte_offset(fh, 0, &b));
    CHECK(b == 8, "%s (%s): get_byte_offset(0) = %lld, expected the displacement 8", what,
          strategy, (long long)b);
    RT_OK(rio_file_get_byte_offset(fh, 5, &b));
    CHECK(b == 8, "%s (%s): get_byte_offset(5) = %lld, expected the displacement 8", what,
          strategy, (long long)b);
    RT_OK(rio_file_seek(fh, 3, MPI_SEEK_SET));
    RT_OK(rio_file_seek(fh, 2, MPI_SEEK_CUR));
    RT_OK(rio_file_get_position(fh, &at));
    CHECK(at == 5, "%s (%s): position %lld after seeks to 3 and +2", what, strategy,
          (long long)at);
    RT_OK(rio_file_read(fh, buf, 10, MPI_BYTE, &st));
    check_count(&st, 0, STEP("read at position 5"), strategy);
    RT_OK(rio_file_seek(fh, 0, MPI_SEEK_END));
    RT_OK(rio_file_get_position(fh, &at));
    CHECK(at == 0, "%s (%s): MPI_SEEK_END gives position %lld, expected 0", what, strategy,
          (long long)at);
    RT_OK(rio_file_seek_shared(fh, 0, MPI_SEEK_END));
    RT_OK(rio_file_get_position_shared(fh, &at));
    CHECK(at == 0, "%s (%s): shared MPI_SEEK_END gives %lld, expected 0", what, strategy,
          (long long)at);
#undef STEP
}

static void empty_views(const char *strategy)
{
    char path[4096];
    unsigned char img[KNOWN];
    snprintf(path, sizeof path, "%s.empty.%s", rt_fname, strategy);
    rt_fill(img, KNOWN, 7, 0);
    if (rt_rank == 0)
        CHECK(rt_pwrite_file(path, img, KNOWN, 0, 1) == 0, "setting up %s: %s", path,
              strerror(errno));
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = open_with(path, MPI_MODE_RDWR, strategy);
    if (!fh)
        return;
    for (int k = 0; k < NEMPTY; k++) {
        MPI_Datatype t = empty_type(k);
        char what[128];
        snprintf(what, sizeof what, "empty view of %s", empty_name[k]);
        if (RT_OK(rio_file_set_view(fh, 8, MPI_BYTE, t, "native", MPI_INFO_NULL)))
            empty_accesses(fh, what, strategy);
        MPI_Type_free(&t);
    }
    /* an etype of no bytes is refused, and the view before it stays */
    MPI_Datatype e0, t = empty_type(0);
    MPI_Type_contiguous(0, MPI_INT, &e0);
    MPI_Type_commit(&e0);
    RT_ERR(rio_file_set_view(fh, 0, e0, t, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
           "MPI_File_set_view", path);
    MPI_Offset b = -1;
    RT_OK(rio_file_get_byte_offset(fh, 3, &b));
    CHECK(b == 8, "%s: after the refused view, get_byte_offset(3) = %lld, expected 8", strategy,
          (long long)b);
    MPI_Type_free(&e0);
    MPI_Type_free(&t);
    RT_OK(rio_file_close(&fh));
    if (rt_rank == 0)
        check_file(path, img, KNOWN, "file under empty views", strategy);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- zero-length blocks among data ------------------------------------------------ */

/* Rank r's tile of 10 * nprocs bytes: 4 bytes at r*10+1 and 3 at r*10+6,
 * with zero-length blocks before, between, after and (out of order, which
 * a block of no bytes may be) far behind. */
#define MIX_A 1
#define MIX_B 6
static MPI_Datatype mixed_type(void)
{
    long long base = (long long)rt_rank * 10;
    int bl[6] = {0, 0, 4, 0, 3, 0};
    MPI_Aint d[6] = {100000, (MPI_Aint)base, (MPI_Aint)(base + MIX_A), (MPI_Aint)(base + 5),
                     (MPI_Aint)(base + MIX_B), (MPI_Aint)(base + 9)};
    MPI_Datatype h, t;
    MPI_Type_create_hindexed(6, bl, d, MPI_BYTE, &h);
    MPI_Type_create_resized(h, 0, (MPI_Aint)10 * rt_nprocs, &t);
    MPI_Type_free(&h);
    MPI_Type_commit(&t);
    return t;
}

static void mixed(const char *strategy)
{
    enum { TILES = 3, PER = 7 };
    char path[4096];
    snprintf(path, sizeof path, "%s.mixed.%s", rt_fname, strategy);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = open_with(path, MPI_MODE_CREATE | MPI_MODE_RDWR, strategy);
    if (!fh)
        return;
    MPI_Datatype t = mixed_type();
    unsigned char out[TILES * PER], got[TILES * PER];
    MPI_Status st;
    rt_fill(out, sizeof out, rt_rank, 0);
    RT_OK(rio_file_set_view(fh, 0, MPI_BYTE, t, "native", MPI_INFO_NULL));
    RT_OK(rio_file_write_all(fh, out, TILES * PER, MPI_BYTE, &st));
    check_count(&st, TILES * PER, "mixed write_all", strategy);
    MPI_Offset b = -1;
    RT_OK(rio_file_get_byte_offset(fh, PER + 5, &b));
    long long want = 10LL * rt_nprocs + rt_rank * 10 + MIX_B + 1;
    CHECK(b == want, "mixed (%s): get_byte_offset(%d) = %lld, expected %lld", strategy, PER + 5,
          (long long)b, want);
    RT_OK(rio_file_read_at_all(fh, 0, got, TILES * PER, MPI_BYTE, &st));
    check_count(&st, TILES * PER, "mixed read_at_all", strategy);
    CHECK_BYTES(got, out, NULL, sizeof got, "mixed read_at_all (%s)", strategy);
    memset(got, SENT, sizeof got);
    RT_OK(rio_file_read_at(fh, 2, got, PER, MPI_BYTE, &st));
    check_count(&st, PER, "mixed read_at", strategy);
    CHECK_BYTES(got, out + 2, NULL, PER, "mixed read_at from 2 (%s)", strategy);
    MPI_Type_free(&t);
    RT_OK(rio_file_close(&fh));

    long long len = 10LL * rt_nprocs * (TILES - 1) + 10LL * (rt_nprocs - 1) + MIX_B + 3;
    unsigned char *img = calloc((size_t)len, 1);
    for (int r = 0; r < rt_nprocs; r++)
        for (int k = 0; k < TILES; k++) {
            long long o = 10LL * rt_nprocs * k + 10LL * r;
            rt_fill(img + o + MIX_A, 4, r, (long long)k * PER);
            rt_fill(img + o + MIX_B, 3, r, (long long)k * PER + 4);
        }
    if (rt_rank == 0)
        check_file(path, img, len, "zero-length blocks among data", strategy);
    free(img);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- data on some ranks, an empty view and count 0 on the others ------------------- */

static void some_ranks(const char *strategy)
{
    enum { B = 8, TILES = 2 };
    char path[4096];
    snprintf(path, sizeof path, "%s.some.%s", rt_fname, strategy);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    rio_file *fh = open_with(path, MPI_MODE_CREATE | MPI_MODE_RDWR, strategy);
    if (!fh)
        return;
    int has = rt_rank % 2 == 0;
    MPI_Datatype c, t;
    MPI_Type_contiguous(B, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)B * rt_nprocs, &t);
    MPI_Type_free(&c);
    MPI_Type_commit(&t);
    MPI_Datatype z = zero_blocks();
    unsigned char out[B * TILES], got[B * TILES];
    MPI_Status st;
    rt_fill(out, sizeof out, rt_rank, 0);
    RT_OK(rio_file_set_view(fh, has ? (MPI_Offset)B * rt_rank : 0, MPI_BYTE, has ? t : z, "native",
                            MPI_INFO_NULL));
    RT_OK(rio_file_write_all(fh, out, has ? B * TILES : 0, MPI_BYTE, &st));
    check_count(&st, has ? B * TILES : 0, "some ranks write_all", strategy);
    memset(got, SENT, sizeof got);
    RT_OK(rio_file_read_at_all(fh, 0, got, has ? B * TILES : 0, MPI_BYTE, &st));
    check_count(&st, has ? B * TILES : 0, "some ranks read_at_all", strategy);
    if (has)
        CHECK_BYTES(got, out, NULL, sizeof got, "some ranks read_at_all (%s)", strategy);
    MPI_Type_free(&t);
    MPI_Type_free(&z);
    RT_OK(rio_file_close(&fh));

    int last = (rt_nprocs - 1) / 2 * 2; /* the highest rank with data */
    long long len = (long long)B * rt_nprocs * (TILES - 1) + (long long)B * last + B;
    unsigned char *img = calloc((size_t)len, 1);
    for (int r = 0; r < rt_nprocs; r += 2)
        for (int k = 0; k < TILES; k++)
            rt_fill(img + (long long)B * rt_nprocs * k + (long long)B * r, B, r, (long long)k * B);
    if (rt_rank == 0)
        check_file(path, img, len, "data on some ranks, empty views on others", strategy);
    free(img);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    const char *only = rt_arg("-strategy");
    for (int s = 0; s < RT_NSTRAT; s++) {
        if (only && strcmp(only, rt_strategy(s)))
            continue;
        pnetcdf(rt_strategy(s));
        empty_views(rt_strategy(s));
        mixed(rt_strategy(s));
        some_ranks(rt_strategy(s));
    }
    if (only) {
        int known = 0;
        for (int s = 0; s < RT_NSTRAT; s++)
            known |= !strcmp(only, rt_strategy(s));
        CHECK(known, "-strategy %s is not one this test knows", only);
    }
    return rt_finish();
}
