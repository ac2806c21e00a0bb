/*
 * t_overlap.c — a filetype whose regions overlap, on a file opened
 * read-only.
 *
 * MPI forbids overlapping regions in the etype and filetype only where
 * the file is opened for writing; displacements must still not decrease.
 * The filetype here is hindexed over bytes, blocks (0, 12), (4, 8),
 * (20, 4), (20, 2), resized to an extent of 32: every tile reads file
 * bytes 4..11 twice and 20..21 three times.  Each rank's view starts at
 * disp = rank * 7 (tiles of different ranks overlap too, which reading
 * allows).  The file holds pat(9, o) at every offset o (written with
 * POSIX).
 *
 *   read-only open:   set_view succeeds; every read below must return,
 *                     byte for byte, the file bytes the view maps its
 *                     stream to (computed here from the block list):
 *                     read_at of 3 tiles from stream byte 5, read_at_all
 *                     of 2 tiles and 3 bytes from 0 (collective),
 *                     read (individual pointer) twice in a row, the
 *                     split collective read_at_all_begin/end, and a
 *                     read_at that crosses the end of the file (its
 *                     count is the stream bytes whose file bytes exist,
 *                     up to the first missing one);
 *   the end of file:  MPI_File_seek(MPI_SEEK_END) for every file size from
 *                     0 to 3 tiles past the view (the file cut by rank 0
 *                     between seeks): ROMIO's position, in the first block
 *                     in stream order whose end reaches the size (the
 *                     mapping is not monotonic: 4..11 comes twice), and
 *                     MPI_SEEK_END with a negative offset;
 *   mixed views:      only rank 0's view overlaps, the others read plain
 *                     bytes: a collective read is right on every rank
 *                     (and does not hang);
 *   read-write open:  the same set_view fails with MPI_ERR_TYPE and a
 *                     message naming the operation and the file;
 *   read-only open, decreasing displacements (8, 0): still MPI_ERR_TYPE.
 */
#include "resonio.h"
#include "rtest.h"

#define NB 4
static const int blen[NB] = {12, 8, 4, 2};
static const MPI_Aint bdisp[NB] = {0, 4, 20, 20};
#define EXTENT 32
#define TSIZE 26 /* data bytes per tile */
#define FILE_BYTES 4096

static MPI_Datatype filetype(const MPI_Aint *d)
{
    MPI_Datatype t, r;
    MPI_Type_create_hindexed(NB, blen, d, MPI_BYTE, &t);
    MPI_Type_create_resized(t, 0, EXTENT, &r);
    MPI_Type_commit(&r);
    MPI_Type_free(&t);
    return r;
}

/* File offset of stream byte s of a view at disp. */
static long long view_off(long long disp, long long s)
{
    long long tile = s / TSIZE, rem = s % TSIZE;
    int b = 0;
    while (rem >= blen[b])
        rem -= blen[b++];
    return disp + tile * EXTENT + bdisp[b] + rem;
}

/* ROMIO's end of file for the view at disp and a file of size bytes:
 * the stream position in the first block whose end reaches size. */
static long long eof_pos(long long disp, long long size)
{
    for (long long tile = 0;; tile++) {
        long long s = tile * TSIZE;
        for (int b = 0; b < NB; b++) {
            long long start = disp + tile * EXTENT + bdisp[b];
            if (start + blen[b] >= size)
                return s + (size <= start ? 0 : size - start);
            s += blen[b];
        }
    }
}

/* Compare n bytes read from stream byte s with what the view maps there. */
static void check_read(const unsigned char *buf, long long disp, long long s, long long n,
                       const char *what)
{
    for (long long k = 0; k < n; k++) {
        long long o = view_off(disp, s + k);
        if (buf[k] != pat(9, o)) {
            CHECK(0, "%s: stream byte %lld (file offset %lld) is %d, expected %d", what, s + k,
                  o, buf[k], pat(9, o));
            return;
        }
    }
}

static void check_count(const MPI_Status *st, long long want, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    CHECK(n == want, "%s: count %d, expected %lld", what, n, want);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    char path[4096];
    rt_path(path, sizeof path, "overlap");
    if (rt_rank == 0) {
        unsigned char *f = malloc(FILE_BYTES);
        for (long long o = 0; o < FILE_BYTES; o++)
            f[o] = pat(9, o);
        CHECK(rt_pwrite_file(path, f, FILE_BYTES, 0, 1) == 0, "cannot write %s", path);
        free(f);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_Datatype ft = filetype(bdisp);
    long long disp = (long long)rt_rank * 7;
    unsigned char buf[4 * TSIZE];
    MPI_Status st;
    rio_file *fh = RIO_FILE_NULL;
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh))) {
        if (RT_OK(rio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL))) {
            memset(buf, 0, sizeof buf);
            if (RT_OK(rio_file_read_at(fh, 5, buf, 3 * TSIZE, MPI_BYTE, &st))) {
                check_count(&st, 3 * TSIZE, "read_at");
                check_read(buf, disp, 5, 3 * TSIZE, "read_at");
            }
            memset(buf, 0, sizeof buf);
            if (RT_OK(rio_file_read_at_all(fh, 0, buf, 2 * TSIZE + 3, MPI_BYTE, &st))) {
                check_count(&st, 2 * TSIZE + 3, "read_at_all");
                check_read(buf, disp, 0, 2 * TSIZE + 3, "read_at_all");
            }
            for (int k = 0; k < 2; k++) { /* the individual pointer moves on */
                memset(buf, 0, sizeof buf);
                if (RT_OK(rio_file_read(fh, buf, TSIZE + 1, MPI_BYTE, &st)))
                    check_read(buf, disp, (long long)k * (TSIZE + 1), TSIZE + 1, "read");
            }
            memset(buf, 0, sizeof buf);
            if (RT_OK(rio_file_read_at_all_begin(fh, 9, buf, TSIZE, MPI_BYTE)) &&
                RT_OK(rio_file_read_at_all_end(fh, buf, &st)))
                check_read(buf, disp, 9, TSIZE, "read_at_all_begin/end");
            /* the end of the file: stream bytes mapped below FILE_BYTES */
            long long s0 = (FILE_BYTES / EXTENT - 1) * TSIZE, want = 0;
            while (want < 2 * TSIZE && view_off(disp, s0 + want) < FILE_BYTES)
                want++;
            memset(buf, 0, sizeof buf);
            if (RT_OK(rio_file_read_at(fh, s0, buf, 2 * TSIZE, MPI_BYTE, &st))) {
                check_count(&st, want, "read_at over the end of the file");
                check_read(buf, disp, s0, want, "read_at over the end of the file");
            }
        }
        RT_OK(rio_file_close(&fh));
    }

    /* the end of the file, for sizes that end inside the doubly mapped
     * bytes and everywhere else */
    char cut[4096];
    rt_path(cut, sizeof cut, "overlap-eof");
    if (rt_rank == 0)
        CHECK(rt_pwrite_file(cut, (const unsigned char *)"", 0, 0, 1) == 0, "cannot create %s",
              cut);
    MPI_Barrier(MPI_COMM_WORLD);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, cut, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh))) {
        if (RT_OK(rio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL))) {
            int bad = 0; /* report the first wrong size only; every rank runs every size */
            for (long long size = 0; size <= 3 * EXTENT + 7LL * (rt_nprocs - 1); size++) {
                if (rt_rank == 0)
                    CHECK(truncate(cut, (off_t)size) == 0, "cannot cut %s to %lld", cut, size);
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_Offset pos = -1, want = eof_pos(disp, size);
                if (RT_OK(rio_file_seek(fh, 0, MPI_SEEK_END)) &&
                    RT_OK(rio_file_get_position(fh, &pos)) && pos != want && !bad) {
                    CHECK(0, "seek to the end of a %lld-byte file: position %lld, expected %lld",
                          size, (long long)pos, (long long)want);
                    bad = 1;
                }
                if (want >= 3 && RT_OK(rio_file_seek(fh, -3, MPI_SEEK_END)) &&
                    RT_OK(rio_file_get_position(fh, &pos)) && pos != want - 3 && !bad) {
                    CHECK(0, "seek to 3 before the end of a %lld-byte file: position %lld, "
                          "expected %lld", size, (long long)pos, (long long)want - 3);
                    bad = 1;
                }
                MPI_Barrier(MPI_COMM_WORLD); /* nobody seeks while rank 0 cuts */
            }
        }
        RT_OK(rio_file_close(&fh));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(cut);

    /* mixed: only rank 0's view overlaps; a collective read must neither
     * hang nor read wrong bytes on any rank (the others read a plain
     * byte view from disp + 100) */
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh))) {
        int plain = rt_rank != 0;
        if (RT_OK(rio_file_set_view(fh, disp, MPI_BYTE, plain ? MPI_BYTE : ft, "native",
                                    MPI_INFO_NULL))) {
            memset(buf, 0, sizeof buf);
            long long s = plain ? 100 : 3;
            if (RT_OK(rio_file_read_at_all(fh, s, buf, 2 * TSIZE, MPI_BYTE, &st))) {
                check_count(&st, 2 * TSIZE, "mixed read_at_all");
                for (long long k = 0; plain && k < 2 * TSIZE; k++)
                    if (buf[k] != pat(9, disp + s + k)) {
                        CHECK(0, "mixed read_at_all: plain view byte %lld is %d, expected %d",
                              k, buf[k], pat(9, disp + s + k));
                        break;
                    }
                if (!plain)
                    check_read(buf, disp, s, 2 * TSIZE, "mixed read_at_all");
            }
        }
        RT_OK(rio_file_close(&fh));
    }

    /* written: overlaps are erroneous */
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR, MPI_INFO_NULL, &fh))) {
        RT_ERR(rio_file_set_view(fh, disp, MPI_BYTE, ft, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
               "MPI_File_set_view", path);
        RT_OK(rio_file_close(&fh));
    }
    /* decreasing displacements: erroneous even for reading */
    static const MPI_Aint dec[NB] = {8, 0, 20, 24};
    MPI_Datatype bad = filetype(dec);
    if (RT_OK(rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh))) {
        RT_ERR(rio_file_set_view(fh, disp, MPI_BYTE, bad, "native", MPI_INFO_NULL), MPI_ERR_TYPE,
               "MPI_File_set_view", path);
        RT_OK(rio_file_close(&fh));
    }
    MPI_Type_free(&bad);
    MPI_Type_free(&ft);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rt_rank == 0)
        unlink(path);
    return rt_finish();
}
