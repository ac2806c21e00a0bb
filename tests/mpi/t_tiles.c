/*
 * t_tiles.c — views whose filetype's data reach past its extent, so that
 * consecutive tiles overlap.
 *
 * MPI asks the displacements of a filetype's typemap to be nonnegative
 * and nondecreasing; it says nothing of where the next tile starts.
 * HDF5's collective chunk I/O relies on that: its filetype is a struct
 * of per-chunk types whose extent ends before the last chunk's data, and
 * each call moves one tile.  A call that moves several tiles of such a
 * view reaches the file out of order.  Every strategy is run (the
 * resonio_strategy hint), collective and independent calls.
 *
 *   interleaved  bytes written across tiles, out of file order but never
 *                twice: the filetype is two blocks of B bytes at 0 and
 *                3P*B, extent 2P*B, and rank r's view starts at r*B.
 *                Tile k holds blocks 2Pk+r and 2P(k+1)+P+r (in blocks of
 *                B), so the ranks' blocks never meet and block P+r is
 *                never written.  write_all of T tiles, then the file is
 *                checked with POSIX reads (every byte: the ranks' data,
 *                zeros in the holes, the length), read_all of the T
 *                tiles, read_at_all of one tile (HDF5's call), and an
 *                independent read_at of two tiles from the middle of a
 *                tile; the last also into noncontiguous memory under
 *                each independent method the hint can force.  Then a seek
 *                to the end of the file.
 *   reread       bytes read twice: the filetype is one block of 2B bytes,
 *                extent B, on a file of known content; read_at_all and
 *                read_at of 3 tiles return tile k = file bytes
 *                [disp + kB, disp + kB + 2B).
 */
#include "resonio.h"
#include "rtest.h"

#define B 1000 /* not a multiple of a page or of 8 */
#define T 5    /* tiles per call */

static MPI_Datatype interleaved_type(void)
{
    int bl[2] = {B, B};
    MPI_Aint d[2] = {0, (MPI_Aint)3 * rt_nprocs * B};
    MPI_Datatype h, t;
    MPI_Type_create_hindexed(2, bl, d, MPI_BYTE, &h);
    MPI_Type_create_resized(h, 0, (MPI_Aint)2 * rt_nprocs * B, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&h);
    return t;
}

static long long rt_maxll(long long a, long long b)
{
    return a > b ? a : b;
}

/* File offset of stream byte s of rank r's interleaved view. */
static long long interleaved_off(int r, long long s)
{
    long long P = rt_nprocs, tile = s / (2 * B), rem = s % (2 * B);
    long long block = rem < B ? 2 * P * tile + r : 2 * P * (tile + 1) + P + r;
    return block * B + rem % B;
}

/* The file the interleaved writes of T tiles leave: *len bytes. */
static unsigned char *interleaved_image(long long *len)
{
    *len = 0;
    for (int r = 0; r < rt_nprocs; r++)
        *len = rt_maxll(*len, interleaved_off(r, 2LL * B * T - 1) + 1);
    unsigned char *img = calloc((size_t)*len, 1);
    for (int r = 0; r < rt_nprocs; r++)
        for (long long s = 0; s < 2LL * B * T; s++)
            img[interleaved_off(r, s)] = pat(r, s);
    return img;
}

static rio_file *open_with(const char *path, int amode, const char *strategy)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "resonio_strategy", strategy);
    MPI_Info_set(info, "cb_buffer_size", "4096"); /* several rounds per call */
    rio_file *fh = NULL;
    if (!RT_OK(rio_file_open(MPI_COMM_WORLD, path, amode, info, &fh)))
        fh = NULL;
    MPI_Info_free(&info);
    return fh;
}

/* Check len bytes read of rank r's interleaved stream from s0. */
static void check_read(const unsigned char *got, long long s0, long long len, MPI_Status *st,
                       const char *what, const char *strategy)
{
    int count = -1;
    MPI_Get_count(st, MPI_BYTE, &count);
    CHECK(count == len, "%s (%s): count %d, expected %lld", what, strategy, count, len);
    unsigned char *exp = malloc((size_t)len);
    for (long long k = 0; k < len; k++)
        exp[k] = pat(rt_rank, s0 + k);
    CHECK_BYTES(got, exp, NULL, (size_t)len, "%s (%s)", what, strategy);
    free(exp);
}

static void interleaved(const char *strategy)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.interleaved.%s", rt_fname, strategy);
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
    const long long n = 2LL * B * T;
    unsigned char *buf = malloc((size_t)n), *got = malloc((size_t)n);
    rt_fill(buf, (size_t)n, rt_rank, 0);
    MPI_Datatype ft = interleaved_type();
    MPI_Status st;

    rio_file *fh = open_with(path, MPI_MODE_CREATE | MPI_MODE_RDWR, strategy);
    if (fh && RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * B, MPI_BYTE, ft, "native",
                                      MPI_INFO_NULL))) {
        RT_OK(rio_file_write_all(fh, buf, (int)n, MPI_BYTE, &st));
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        CHECK(count == n, "write_all of %d tiles (%s): count %d", T, strategy, count);
    }
    if (fh)
        RT_OK(rio_file_close(&fh));

    /* the file, read without resonio */
    long long len = 0, flen = 0;
    unsigned char *img = interleaved_image(&len), *file = RT_SLURP(path, &flen);
    CHECK(flen == len, "interleaved file (%s): %lld bytes, expected %lld", strategy, flen, len);
    if (file && flen == len)
        CHECK_BYTES(file, img, NULL, (size_t)len, "interleaved file (%s)", strategy);
    free(file);
    free(img);

    fh = open_with(path, MPI_MODE_RDONLY, strategy);
    if (fh && RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * B, MPI_BYTE, ft, "native",
                                      MPI_INFO_NULL))) {
        memset(got, 0, (size_t)n);
        if (RT_OK(rio_file_read_all(fh, got, (int)n, MPI_BYTE, &st)))
            check_read(got, 0, n, &st, "read_all of every tile", strategy);
        memset(got, 0, (size_t)n);
        if (RT_OK(rio_file_read_at_all(fh, 2 * B, got, 2 * B, MPI_BYTE, &st)))
            check_read(got, 2 * B, 2 * B, &st, "read_at_all of tile 1", strategy);
        memset(got, 0, (size_t)n);
        if (RT_OK(rio_file_read_at(fh, 3 * B / 2, got, 4 * B, MPI_BYTE, &st)))
            check_read(got, 3 * B / 2, 4 * B, &st, "read_at across three tiles", strategy);
        /* the end of the file: in the first block, in stream order, whose
         * end reaches the size (ROMIO's rule) */
        MPI_Offset at = -1, want = -1;
        for (long long s = 0; want < 0; s += B) {
            long long start = interleaved_off(rt_rank, s);
            if (start + B >= len)
                want = s + (len > start ? len - start : 0);
        }
        if (RT_OK(rio_file_seek(fh, 0, MPI_SEEK_END)) && RT_OK(rio_file_get_position(fh, &at)))
            CHECK(at == want, "seek to the end (%s): position %lld, expected %lld", strategy,
                  (long long)at, (long long)want);
    }
    if (fh)
        RT_OK(rio_file_close(&fh));
    MPI_Type_free(&ft);
    free(buf);
    free(got);
}

/* An independent read across tiles into noncontiguous memory, under each
 * independent method the hint can force (the methods that need file
 * order must not be used for it). */
static void strided_read(const char *path)
{
    static const char *const methods[] = {"contig", "posix", "sieve", "list", "dtype"};
    const int piece = 100, npieces = 4 * B / piece;
    const long long s0 = 3 * B / 2;
    MPI_Datatype ft = interleaved_type(), mt;
    MPI_Type_vector(npieces, piece, 2 * piece, MPI_BYTE, &mt);
    MPI_Type_commit(&mt);
    unsigned char *got = malloc((size_t)2 * npieces * piece);
    unsigned char *exp = malloc((size_t)2 * npieces * piece);
    for (int m = 0; m < 5; m++) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "resonio_indep_method", methods[m]);
        rio_file *fh = NULL;
        MPI_Status st;
        memset(got, 0xee, (size_t)2 * npieces * piece);
        memset(exp, 0xee, (size_t)2 * npieces * piece);
        for (int k = 0; k < npieces * piece; k++)
            exp[(k / piece) * 2 * piece + k % piece] = pat(rt_rank, s0 + k);
        if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, info, &fh))) {
            if (RT_OK(rio_file_set_view(fh, (MPI_Offset)rt_rank * B, MPI_BYTE, ft, "native",
                                        MPI_INFO_NULL)) &&
                RT_OK(rio_file_read_at(fh, s0, got, 1, mt, &st))) {
                int count = -1;
                MPI_Get_elements(&st, MPI_BYTE, &count);
                CHECK(count == npieces * piece, "strided read_at (%s): %d bytes", methods[m],
                      count);
                CHECK_BYTES(got, exp, NULL, (size_t)2 * npieces * piece,
                            "strided read_at across three tiles (%s)", methods[m]);
            }
            RT_OK(rio_file_close(&fh));
        }
        MPI_Info_free(&info);
    }
    MPI_Type_free(&mt);
    MPI_Type_free(&ft);
    free(got);
    free(exp);
}

static void reread(const char *strategy, const char *path, const unsigned char *content,
                   long long size)
{
    MPI_Datatype c, ft;
    MPI_Type_contiguous(2 * B, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, B, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&c);
    const long long disp = (long long)rt_rank * 3 * B + 7, n = 3LL * 2 * B;
    unsigned char *got = calloc((size_t)n, 1), *exp = malloc((size_t)n);
    for (long long k = 0; k < n; k++) {
        long long o = disp + (k / (2 * B)) * B + k % (2 * B);
        exp[k] = o < size ? content[o] : 0;
    }
    MPI_Status st;
    rio_file *fh = open_with(path, MPI_MODE_RDONLY, strategy);
    if (fh && RT_OK(rio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL))) {
        int count = -1;
        if (RT_OK(rio_file_read_at_all(fh, 0, got, (int)n, MPI_BYTE, &st))) {
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == n, "reread read_at_all (%s): count %d", strategy, count);
            CHECK_BYTES(got, exp, NULL, (size_t)n, "reread read_at_all (%s)", strategy);
        }
        memset(got, 0, (size_t)n);
        if (RT_OK(rio_file_read_at(fh, 0, got, (int)n, MPI_BYTE, &st))) {
            MPI_Get_count(&st, MPI_BYTE, &count);
            CHECK(count == n, "reread read_at (%s): count %d", strategy, count);
            CHECK_BYTES(got, exp, NULL, (size_t)n, "reread read_at (%s)", strategy);
        }
    }
    if (fh)
        RT_OK(rio_file_close(&fh));
    MPI_Type_free(&ft);
    free(got);
    free(exp);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    for (int s = 0; s < RT_NSTRAT; s++)
        interleaved(rt_strategy(s));
    char path[4096];
    snprintf(path, sizeof path, "%s.interleaved.auto", rt_fname);
    strided_read(path);

    snprintf(path, sizeof path, "%s.reread", rt_fname);
    const long long size = (long long)rt_nprocs * 3 * B + 8 * B;
    unsigned char *content = malloc((size_t)size);
    rt_fill(content, (size_t)size, 99, 0);
    if (rt_rank == 0)
        CHECK(rt_pwrite_file(path, content, (size_t)size, 0, 1) == 0, "writing %s", path);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int s = 0; s < RT_NSTRAT; s++)
        reread(rt_strategy(s), path, content, size);
    free(content);
    return rt_finish();
}
