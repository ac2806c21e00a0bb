/*
 * i_pnetcdf.c — PnetCDF on top of the MPI-IO it is given.
 *
 * A plain PnetCDF program (nothing of resonio) for dropin.sh, as
 * i_hdf5.c is for HDF5: `-mode write` (the default) creates the file,
 * `-mode read` checks every element of a file written by either
 * implementation, and the script compares the two files byte for byte.
 *
 * Variables, NY x NX each (the record variables per record, NREC records
 * along the unlimited dimension), element (i, j) = value(v, rec, i, j):
 *   temp    double record variable; one put_vara_all of each rank's
 *           block of rows in every record, from every other double of
 *           its buffer (the flexible API with a vector buftype)
 *   flux    float record variable; nonblocking iput_vara of every record,
 *           then one wait_all (PnetCDF turns them into one collective
 *           call with a filetype over all the records)
 *   level   int record variable; buffered bput_vara, then wait_all
 *   depth   int record variable; put_varn_all of one subarray per record,
 *           the records in reverse order
 *   grid    double; put_vars_all of the columns j = r mod P (strided)
 *   mask    short; independent data mode, put_vara of a block of rows
 *   late    float; defined after the others were written (redef), with
 *           an attribute large enough to move the data already in the
 *           file; then put_vara_all of a block of rows
 *   fill_i, fill_d, fill_s
 *           an int and a double scalar and a short of 3 elements, defined
 *           with late, in fill mode and never written: PnetCDF fills them
 *           at enddef and gives the ranks with no part of them a filetype
 *           of zero-length blocks, with write_at_all on every rank (a
 *           library that refused that view wrote the other ranks' fill
 *           values over the header at 4 ranks)
 * and a text attribute.
 *
 * Reading, every rank reads every variable whole (get_vara_all), grid
 * again through its strided selection, and checks the attribute and the
 * number of records.
 */
#include <mpi.h>
#include <pnetcdf.h>

#include "rtest.h"
#include "interop.h"

#define NY 60
#define NX 70
#define NREC 4

enum { TEMP, FLUX, LEVEL, DEPTH, GRID, MASK, LATE, NVARS };
static const char *const var_name[NVARS] = {"temp", "flux", "level", "depth",
                                            "grid", "mask", "late"};
#define BIG_ATT 5000

/* Every value is exact in each variable's type (mask: short). */
static double value(int v, int rec, MPI_Offset i, MPI_Offset j)
{
    return (double)((v * 7 + rec * 3 + i * NX + j) % (v == MASK ? 30000 : 1000003));
}

#define NC_OK(call) nc_ok((call), #call, __LINE__)
static int nc_ok(int err, const char *what, int line)
{
    if (err != NC_NOERR)
        rt_fail(__FILE__, line, "%s: %s", what, ncmpi_strerror(err));
    return err == NC_NOERR;
}

static void my_rows(MPI_Offset *lo, MPI_Offset *n)
{
    *lo = (MPI_Offset)NY * rt_rank / rt_nprocs;
    *n = (MPI_Offset)NY * (rt_rank + 1) / rt_nprocs - *lo;
}

static void write_file(int nc)
{
    int dims[3], v[NVARS];
    NC_OK(ncmpi_def_dim(nc, "time", NC_UNLIMITED, &dims[0]));
    NC_OK(ncmpi_def_dim(nc, "y", NY, &dims[1]));
    NC_OK(ncmpi_def_dim(nc, "x", NX, &dims[2]));
    static const nc_type types[NVARS] = {NC_DOUBLE, NC_FLOAT,  NC_INT,  NC_INT,
                                         NC_DOUBLE, NC_SHORT, NC_FLOAT};
    for (int k = 0; k < LATE; k++)
        NC_OK(ncmpi_def_var(nc, var_name[k], types[k], k < GRID ? 3 : 2, k < GRID ? dims : dims + 1,
                            &v[k]));
    NC_OK(ncmpi_put_att_text(nc, NC_GLOBAL, "title", 12, "resonio test"));
    NC_OK(ncmpi_enddef(nc));

    MPI_Offset lo, n;
    my_rows(&lo, &n);
    size_t cells = (size_t)(n * NX);
    double *d = calloc(2 * NREC * cells + 1, sizeof(double));
    float *f = malloc(sizeof(float) * NREC * (cells ? cells : 1));
    int *l = malloc(sizeof(int) * NREC * (cells ? cells : 1));
    int *dep = malloc(sizeof(int) * NREC * (cells ? cells : 1));
    int req[2 * NREC], st[2 * NREC];
    for (int rec = 0; rec < NREC; rec++) {
        MPI_Offset start[3] = {rec, lo, 0}, count[3] = {1, n, NX};
        for (size_t c = 0; c < cells; c++) {
            MPI_Offset i = lo + (MPI_Offset)c / NX, j = (MPI_Offset)c % NX;
            d[2 * (rec * cells + c)] = value(TEMP, rec, i, j);
            f[rec * cells + c] = (float)value(FLUX, rec, i, j);
            l[rec * cells + c] = (int)value(LEVEL, rec, i, j);
            dep[(NREC - 1 - rec) * cells + c] = (int)value(DEPTH, rec, i, j);
        }
        NC_OK(ncmpi_iput_vara_float(nc, v[FLUX], start, count, f + rec * cells, &req[rec]));
    }
    MPI_Datatype every_other;
    MPI_Type_vector((int)(NREC * cells), 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Offset tstart[3] = {0, lo, 0}, tcount[3] = {NREC, n, NX};
    NC_OK(ncmpi_put_vara_all(nc, v[TEMP], tstart, tcount, d, cells ? 1 : 0, every_other));
    MPI_Type_free(&every_other);
    NC_OK(ncmpi_wait_all(nc, NREC, req, st));
    for (int k = 0; k < NREC; k++)
        NC_OK(st[k]);
    NC_OK(ncmpi_buffer_attach(nc, (MPI_Offset)(sizeof(int) * NREC * cells + 64)));
    for (int rec = 0; rec < NREC; rec++) {
        MPI_Offset start[3] = {rec, lo, 0}, count[3] = {1, n, NX};
        NC_OK(ncmpi_bput_vara_int(nc, v[LEVEL], start, count, l + rec * cells, &req[rec]));
    }
    NC_OK(ncmpi_wait_all(nc, NREC, req, st));
    for (int k = 0; k < NREC; k++)
        NC_OK(st[k]);
    NC_OK(ncmpi_buffer_detach(nc));
    MPI_Offset vstart[NREC][3], vcount[NREC][3], *vs[NREC], *vc[NREC];
    for (int k = 0; k < NREC; k++) {
        vstart[k][0] = NREC - 1 - k, vstart[k][1] = lo, vstart[k][2] = 0;
        vcount[k][0] = 1, vcount[k][1] = n, vcount[k][2] = NX;
        vs[k] = vstart[k];
        vc[k] = vcount[k];
    }
    NC_OK(ncmpi_put_varn_int_all(nc, v[DEPTH], NREC, vs, vc, dep));

    /* grid: columns r, r + P, ... of every row */
    MPI_Offset ncol = (NX - rt_rank + rt_nprocs - 1) / rt_nprocs;
    MPI_Offset gs[2] = {0, rt_rank}, gc[2] = {NY, ncol}, gstride[2] = {1, rt_nprocs};
    double *g = malloc(sizeof(double) * (size_t)(NY * ncol + 1));
    for (MPI_Offset c = 0; c < NY * ncol; c++)
        g[c] = value(GRID, 0, c / ncol, rt_rank + (c % ncol) * rt_nprocs);
    NC_OK(ncmpi_put_vars_double_all(nc, v[GRID], gs, gc, gstride, g));

    /* mask: independent data mode */
    short *m = malloc(sizeof(short) * (cells ? cells : 1));
    for (size_t c = 0; c < cells; c++)
        m[c] = (short)value(MASK, 0, lo + (MPI_Offset)c / NX, (MPI_Offset)c % NX);
    MPI_Offset ms[2] = {lo, 0}, mc[2] = {n, NX};
    NC_OK(ncmpi_begin_indep_data(nc));
    if (n > 0)
        NC_OK(ncmpi_put_vara_short(nc, v[MASK], ms, mc, m));
    NC_OK(ncmpi_end_indep_data(nc));

    /* a variable and a large attribute after the data: the data move */
    char *att = malloc(BIG_ATT);
    memset(att, 'z', BIG_ATT);
    NC_OK(ncmpi_redef(nc));
    NC_OK(ncmpi_put_att_text(nc, NC_GLOBAL, "big", BIG_ATT, att));
    NC_OK(ncmpi_def_var(nc, var_name[LATE], types[LATE], 2, dims + 1, &v[LATE]));
    int three, fv[3];
    NC_OK(ncmpi_def_dim(nc, "three", 3, &three));
    NC_OK(ncmpi_def_var(nc, "fill_i", NC_INT, 0, NULL, &fv[0]));
    NC_OK(ncmpi_def_var(nc, "fill_d", NC_DOUBLE, 0, NULL, &fv[1]));
    NC_OK(ncmpi_def_var(nc, "fill_s", NC_SHORT, 1, &three, &fv[2]));
    for (int k = 0; k < 3; k++)
        NC_OK(ncmpi_def_var_fill(nc, fv[k], 0, NULL));
    NC_OK(ncmpi_enddef(nc));
    float *lf = malloc(sizeof(float) * (cells ? cells : 1));
    for (size_t c = 0; c < cells; c++)
        lf[c] = (float)value(LATE, 0, lo + (MPI_Offset)c / NX, (MPI_Offset)c % NX);
    NC_OK(ncmpi_put_vara_float_all(nc, v[LATE], ms, mc, lf));
    free(att);
    free(lf);
    free(dep);
    free(d);
    free(f);
    free(l);
    free(g);
    free(m);
}

/* Read variable k whole (every record) and check every element. */
static void check_var(int nc, int k)
{
    int recs = k < GRID ? NREC : 1;
    size_t cells = (size_t)NY * NX;
    double *got = calloc((size_t)recs * cells, sizeof(double));
    MPI_Offset start[3] = {0, 0, 0}, count[3] = {recs, NY, NX};
    if (!NC_OK(ncmpi_get_vara_double_all(nc, k, k < GRID ? start : start + 1,
                                         k < GRID ? count : count + 1, got))) {
        free(got);
        return;
    }
    int bad = 0;
    for (int rec = 0; rec < recs && bad < 3; rec++)
        for (size_t c = 0; c < cells && bad < 3; c++) {
            double want = value(k, rec, (MPI_Offset)c / NX, (MPI_Offset)c % NX);
            if (got[rec * cells + c] != want) {
                CHECK(0, "%s record %d element (%zu, %zu) is %g, expected %g", var_name[k], rec,
                      c / NX, c % NX, got[rec * cells + c], want);
                bad++;
            }
        }
    free(got);
}

static void read_file(int nc)
{
    MPI_Offset recs = -1;
    NC_OK(ncmpi_inq_dimlen(nc, 0, &recs));
    CHECK(recs == NREC, "%lld records, expected %d", (long long)recs, NREC);
    for (int k = 0; k < NVARS; k++)
        check_var(nc, k);
    MPI_Offset ncol = (NX - rt_rank + rt_nprocs - 1) / rt_nprocs;
    MPI_Offset gs[2] = {0, rt_rank}, gc[2] = {NY, ncol}, gstride[2] = {1, rt_nprocs};
    double *g = calloc((size_t)(NY * ncol + 1), sizeof(double));
    if (NC_OK(ncmpi_get_vars_double_all(nc, GRID, gs, gc, gstride, g)))
        for (MPI_Offset c = 0; c < NY * ncol; c++)
            if (g[c] != value(GRID, 0, c / ncol, rt_rank + (c % ncol) * rt_nprocs)) {
                CHECK(0, "grid strided element %lld is %g", (long long)c, g[c]);
                break;
            }
    free(g);
    /* the variables PnetCDF filled at enddef hold the default fill values */
    int id = -1, fi = 0;
    double fd = 0;
    short fs[3] = {0, 0, 0};
    if (NC_OK(ncmpi_inq_varid(nc, "fill_i", &id)) && NC_OK(ncmpi_get_var_int_all(nc, id, &fi)))
        CHECK(fi == NC_FILL_INT, "fill_i is %d, expected the fill value %d", fi, NC_FILL_INT);
    if (NC_OK(ncmpi_inq_varid(nc, "fill_d", &id)) && NC_OK(ncmpi_get_var_double_all(nc, id, &fd)))
        CHECK(fd == NC_FILL_DOUBLE, "fill_d is %g, expected the fill value %g", fd,
              NC_FILL_DOUBLE);
    if (NC_OK(ncmpi_inq_varid(nc, "fill_s", &id)) && NC_OK(ncmpi_get_var_short_all(nc, id, fs)))
        for (int k = 0; k < 3; k++)
            CHECK(fs[k] == NC_FILL_SHORT, "fill_s[%d] is %d, expected the fill value %d", k,
                  fs[k], NC_FILL_SHORT);
    char title[13] = {0};
    NC_OK(ncmpi_get_att_text(nc, NC_GLOBAL, "title", title));
    CHECK(!strcmp(title, "resonio test"), "attribute title is '%s'", title);
    MPI_Offset big = 0;
    NC_OK(ncmpi_inq_attlen(nc, NC_GLOBAL, "big", &big));
    CHECK(big == BIG_ATT, "attribute big has %lld bytes", (long long)big);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    const char *mode = rt_arg("-mode");
    int writing = !mode || !strcmp(mode, "write");

    rt_print_implementation();

    int nc = -1;
    int ok = writing ? NC_OK(ncmpi_create(MPI_COMM_WORLD, rt_fname, NC_CLOBBER | NC_64BIT_DATA,
                                          MPI_INFO_NULL, &nc))
                     : NC_OK(ncmpi_open(MPI_COMM_WORLD, rt_fname, NC_NOWRITE, MPI_INFO_NULL, &nc));
    if (ok) {
        if (writing)
            write_file(nc);
        else
            read_file(nc);
        NC_OK(ncmpi_close(nc));
    }
    /* the file stays: dropin.sh compares it and reads it back */
    return rt_finish();
}
