/*
 * i_hdf5.c — parallel HDF5 on top of the MPI-IO it is given.
 *
 * A plain HDF5 program (the MPI library's HDF5 build and nothing of
 * resonio) for dropin.sh: run as is, HDF5 does its I/O through the MPI
 * library's own MPI-IO; run with libresonio-mpiio preloaded, through
 * resonio.  `-mode write` (the default) creates the file, `-mode read`
 * opens one written by either and checks every element.  The script
 * compares the two files byte for byte, so the file is deterministic:
 * every element of every dataset is written, and object times are off.
 *
 * Datasets of N x M ints, element (i, j) of dataset d = value(d, i, j):
 *   rows      contiguous; collective; each rank a block of rows
 *   columns   contiguous; collective; rank r the columns j = r mod P (a
 *             strided selection in the file, interleaved between ranks)
 *   chunked   chunks of 32 x 64; independent; blocks of rows
 *   blocks    chunked; collective; each rank a block of columns, which
 *             cuts across chunks
 *   deflate   chunked and compressed; collective (HDF5 writes filtered
 *             chunks only collectively)
 *   grown     unlimited rows, chunked; extended twice, a block of rows
 *             written collectively after each extension
 *   points    contiguous; collective; rank r the elements with i + j = r
 *             mod P, selected point by point in reverse order, from every
 *             other int of its buffer
 *   multi     chunked; collective, one chunk at a time (CHUNK_MULTI_IO);
 *             blocks of 8 x 10 dealt to the ranks like a checkerboard
 * File metadata goes collectively too (coll_metadata_write and
 * all_coll_metadata_ops), and the file has two attributes.
 *
 * Reading, every rank reads every dataset whole (collectively), and the
 * columns dataset again through its own strided selection (independently);
 * each element is checked.
 */
#include <hdf5.h>
#include <mpi.h>

#include "rtest.h"
#include "interop.h"

#define N 192
#define M 200
#define NSETS 8

static const char *const set_name[NSETS] = {"rows",  "columns", "chunked", "blocks",
                                            "deflate", "grown", "points",  "multi"};

static int value(int d, hsize_t i, hsize_t j)
{
    return (int)((hsize_t)d * 1000003u + i * M + j) ^ 0x5a5a;
}

/* Rank r's share [*lo, *hi) of n items split in blocks. */
static void share(hsize_t n, int r, hsize_t *lo, hsize_t *hi)
{
    *lo = n * (hsize_t)r / (hsize_t)rt_nprocs;
    *hi = n * (hsize_t)(r + 1) / (hsize_t)rt_nprocs;
}

static hid_t xfer(H5FD_mpio_xfer_t how)
{
    hid_t p = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(p, how);
    return p;
}

/* Write the selection start/stride/count of dataset d (file space fs),
 * with the values it should hold. */
static void write_sel(hid_t ds, int d, hid_t fs, const hsize_t *start, const hsize_t *stride,
                      const hsize_t *count, H5FD_mpio_xfer_t how)
{
    size_t n = (size_t)(count[0] * count[1]);
    int *buf = malloc(sizeof(int) * (n ? n : 1));
    for (size_t k = 0; k < n; k++)
        buf[k] = value(d, start[0] + (k / count[1]) * stride[0],
                       start[1] + (k % count[1]) * stride[1]);
    hid_t ms = H5Screate_simple(2, count, NULL), x = xfer(how);
    if (n == 0) /* a collective write all the same */
        H5Sselect_none(fs);
    else
        CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL) >= 0,
              "%s: select", set_name[d]);
    CHECK(H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, x, buf) >= 0, "%s: H5Dwrite failed",
          set_name[d]);
    H5Pclose(x);
    H5Sclose(ms);
    free(buf);
}

/* Read the selection of dataset d and check every element. */
static void read_sel(hid_t ds, int d, const hsize_t *start, const hsize_t *stride,
                     const hsize_t *count, H5FD_mpio_xfer_t how)
{
    size_t n = (size_t)(count[0] * count[1]);
    int *buf = calloc(n ? n : 1, sizeof(int));
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(2, count, NULL), x = xfer(how);
    CHECK(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, stride, count, NULL) >= 0,
          "%s: select", set_name[d]);
    if (H5Dread(ds, H5T_NATIVE_INT, ms, fs, x, buf) < 0) {
        CHECK(0, "%s: H5Dread failed", set_name[d]);
    } else {
        int bad = 0;
        for (size_t k = 0; k < n && bad < 3; k++) {
            hsize_t i = start[0] + (k / count[1]) * stride[0],
                    j = start[1] + (k % count[1]) * stride[1];
            if (buf[k] != value(d, i, j)) {
                CHECK(0, "%s: element (%llu, %llu) is %d, expected %d", set_name[d],
                      (unsigned long long)i, (unsigned long long)j, buf[k], value(d, i, j));
                bad++;
            }
        }
    }
    H5Pclose(x);
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
}

/* Dataset d's elements of rank r: points (i + j = r mod P), else blocks
 * of 8 x 10 dealt like a checkerboard; *n of them into coord (2 each). */
static hsize_t *owned(int d, hsize_t *n)
{
    hsize_t *coord = malloc(sizeof(hsize_t) * 2 * N * M);
    *n = 0;
    for (hsize_t i = 0; i < N; i++)
        for (hsize_t j = 0; j < M; j++) {
            hsize_t who = d == 6 ? i + j : i / 8 + j / 10;
            if ((int)(who % (hsize_t)rt_nprocs) == rt_rank) {
                coord[2 * *n] = i;
                coord[2 * *n + 1] = j;
                (*n)++;
            }
        }
    return coord;
}

/* points and multi: the elements selected one by one (points, in reverse
 * order) from every other int of the buffer. */
static void write_points(hid_t ds, int d)
{
    hsize_t n = 0, *coord = owned(d, &n);
    if (d == 6)
        for (hsize_t k = 0; k < n / 2; k++)
            for (int c = 0; c < 2; c++) {
                hsize_t t = coord[2 * k + c];
                coord[2 * k + c] = coord[2 * (n - 1 - k) + c];
                coord[2 * (n - 1 - k) + c] = t;
            }
    int *buf = calloc(2 * n + 1, sizeof(int));
    for (hsize_t k = 0; k < n; k++)
        buf[2 * k] = value(d, coord[2 * k], coord[2 * k + 1]);
    hsize_t mdim = 2 * n + 1, mstart = 0, mstride = 2;
    hid_t fs = H5Dget_space(ds), ms = H5Screate_simple(1, &mdim, NULL);
    hid_t x = xfer(H5FD_MPIO_COLLECTIVE);
    if (d == 7)
        H5Pset_dxpl_mpio_chunk_opt(x, H5FD_MPIO_CHUNK_MULTI_IO);
    if (n == 0) {
        H5Sselect_none(fs);
        H5Sselect_none(ms);
    } else if (d == 6) {
        H5Sselect_elements(fs, H5S_SELECT_SET, (size_t)n, coord);
        H5Sselect_hyperslab(ms, H5S_SELECT_SET, &mstart, &mstride, &n, NULL);
    } else {
        H5Sselect_none(fs);
        for (hsize_t k = 0; k < n; k++) /* blocks: rows of 10 */
            if (coord[2 * k + 1] % 10 == 0) {
                hsize_t start[2] = {coord[2 * k], coord[2 * k + 1]}, count[2] = {1, 10};
                H5Sselect_hyperslab(fs, H5S_SELECT_OR, start, NULL, count, NULL);
            }
        H5Sselect_hyperslab(ms, H5S_SELECT_SET, &mstart, &mstride, &n, NULL);
    }
    CHECK(H5Dwrite(ds, H5T_NATIVE_INT, ms, fs, x, buf) >= 0, "%s: H5Dwrite failed",
          set_name[d]);
    H5Pclose(x);
    H5Sclose(ms);
    H5Sclose(fs);
    free(buf);
    free(coord);
}

static hid_t create_set(hid_t f, int d)
{
    hsize_t dims[2] = {d == 5 ? N / 4 : N, M}, maxd[2] = {d == 5 ? H5S_UNLIMITED : N, M};
    hsize_t chunk[2] = {32, 64};
    hid_t sp = H5Screate_simple(2, dims, maxd), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0);
    if (d >= 2 && d != 6)
        H5Pset_chunk(dcpl, 2, chunk);
    if (d == 4)
        H5Pset_deflate(dcpl, 1);
    if (d < 2 || d == 6)
        H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    hid_t ds = H5Dcreate2(f, set_name[d], H5T_NATIVE_INT, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    CHECK(ds >= 0, "%s: H5Dcreate2 failed", set_name[d]);
    H5Pclose(dcpl);
    H5Sclose(sp);
    return ds;
}

static void write_file(hid_t f)
{
    const int r = rt_rank, P = rt_nprocs;
    for (int d = 0; d < NSETS; d++) {
        hid_t ds = create_set(f, d);
        if (ds < 0)
            continue;
        if (d >= 6) {
            write_points(ds, d);
            H5Dclose(ds);
            continue;
        }
        hid_t fs = H5Dget_space(ds);
        hsize_t lo, hi, one[2] = {1, 1};
        if (d == 1) { /* columns r, r + P, ... */
            hsize_t start[2] = {0, (hsize_t)r}, stride[2] = {1, (hsize_t)P},
                    count[2] = {N, (M - (hsize_t)r + (hsize_t)P - 1) / (hsize_t)P};
            write_sel(ds, d, fs, start, stride, count, H5FD_MPIO_COLLECTIVE);
        } else if (d == 3) { /* a block of columns */
            share(M, r, &lo, &hi);
            hsize_t start[2] = {0, lo}, count[2] = {N, hi - lo};
            write_sel(ds, d, fs, start, one, count, H5FD_MPIO_COLLECTIVE);
        } else if (d == 5) { /* grown: N/4 rows, then N/2, then N */
            hsize_t rows = 0;
            for (hsize_t to = N / 4; to <= N; to *= 2) {
                hsize_t dims[2] = {to, M};
                if (to > N / 4) {
                    CHECK(H5Dset_extent(ds, dims) >= 0, "grown: H5Dset_extent(%llu)",
                          (unsigned long long)to);
                    H5Sclose(fs);
                    fs = H5Dget_space(ds);
                }
                share(to - rows, r, &lo, &hi);
                hsize_t start[2] = {rows + lo, 0}, count[2] = {hi - lo, M};
                write_sel(ds, d, fs, start, one, count, H5FD_MPIO_COLLECTIVE);
                rows = to;
            }
        } else { /* a block of rows */
            share(N, r, &lo, &hi);
            hsize_t start[2] = {lo, 0}, count[2] = {hi - lo, M};
            write_sel(ds, d, fs, start, one, count,
                      d == 2 ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
        }
        H5Sclose(fs);
        H5Dclose(ds);
    }
    hsize_t n3 = 3;
    int dims[3] = {N, M, P};
    hid_t as = H5Screate_simple(1, &n3, NULL);
    hid_t a = H5Acreate2(f, "shape", H5T_NATIVE_INT, as, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, H5T_NATIVE_INT, dims) >= 0, "attribute shape not written");
    H5Aclose(a);
    H5Sclose(as);
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 16);
    as = H5Screate(H5S_SCALAR);
    a = H5Acreate2(f, "title", str, as, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(a >= 0 && H5Awrite(a, str, "resonio i_hdf5\0") >= 0, "attribute title not written");
    H5Aclose(a);
    H5Sclose(as);
    H5Tclose(str);
}

static void read_file(hid_t f)
{
    hsize_t one[2] = {1, 1};
    for (int d = 0; d < NSETS; d++) {
        hid_t ds = H5Dopen2(f, set_name[d], H5P_DEFAULT);
        CHECK(ds >= 0, "%s: H5Dopen2 failed", set_name[d]);
        if (ds < 0)
            continue;
        hid_t fs = H5Dget_space(ds);
        hsize_t dims[2] = {0, 0};
        H5Sget_simple_extent_dims(fs, dims, NULL);
        H5Sclose(fs);
        CHECK(dims[0] == N && dims[1] == M, "%s: %llu x %llu, expected %d x %d", set_name[d],
              (unsigned long long)dims[0], (unsigned long long)dims[1], N, M);
        hsize_t start[2] = {0, 0}, count[2] = {N, M};
        read_sel(ds, d, start, one, count, H5FD_MPIO_COLLECTIVE);
        if (d == 1) {
            hsize_t s2[2] = {0, (hsize_t)rt_rank}, stride[2] = {1, (hsize_t)rt_nprocs},
                    c2[2] = {N, (M - (hsize_t)rt_rank + (hsize_t)rt_nprocs - 1) /
                                    (hsize_t)rt_nprocs};
            read_sel(ds, d, s2, stride, c2, H5FD_MPIO_INDEPENDENT);
        }
        H5Dclose(ds);
    }
    int shape[3] = {0, 0, 0};
    hid_t a = H5Aopen(f, "shape", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, H5T_NATIVE_INT, shape) >= 0, "attribute shape not read");
    CHECK(shape[0] == N && shape[1] == M && shape[2] >= 1, "attribute shape %d %d %d", shape[0],
          shape[1], shape[2]);
    H5Aclose(a);
    char title[17] = {0};
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 16);
    a = H5Aopen(f, "title", H5P_DEFAULT);
    CHECK(a >= 0 && H5Aread(a, str, title) >= 0, "attribute title not read");
    CHECK(!strcmp(title, "resonio i_hdf5"), "attribute title is '%s'", title);
    H5Aclose(a);
    H5Tclose(str);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    const char *mode = rt_arg("-mode");
    int writing = !mode || !strcmp(mode, "write");

    rt_print_implementation();

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    H5Pset_coll_metadata_write(fapl, 1);
    hid_t f = writing ? H5Fcreate(rt_fname, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                      : H5Fopen(rt_fname, H5F_ACC_RDONLY, fapl);
    CHECK(f >= 0, "%s of %s failed", writing ? "H5Fcreate" : "H5Fopen", rt_fname);
    if (f >= 0) {
        if (writing)
            write_file(f);
        else
            read_file(f);
        CHECK(H5Fclose(f) >= 0, "H5Fclose failed");
    }
    H5Pclose(fapl);
    /* the file stays: dropin.sh compares it and reads it back */
    return rt_finish();
}
