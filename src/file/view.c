/*
 * view.c — file views, data representations, and the file pointers that
 * are measured in the view's etypes.
 *
 * A view is (disp, etype, filetype, datarep).  The file layer keeps its
 * own duplicates of derived etype/filetype so the user may free theirs, and
 * the decoded forms from the datatype engine, which do all mapping between
 * the view's data stream and file offsets.
 *
 * Data representations: "native" and "internal" store memory bytes as they
 * are; "external32" is big-endian (MPI_Pack_external does the conversion);
 * others come from MPI_Register_datarep.  The geometry of a view is taken in
 * bytes as given, for every representation.
 */
#include "file_int.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- registered data representations -------------------------------------- */

static const struct rio_datarep external32 = {.name = "external32", .external32 = 1};

static pthread_mutex_t drep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rio_datarep **dreps;
static int n_dreps;

int rio__datarep_find(const char *name, const struct rio_datarep **out)
{
    *out = NULL;
    if (!strcmp(name, "native") || !strcmp(name, "internal"))
        return 0;
    if (!strcmp(name, "external32")) {
        *out = &external32;
        return 0;
    }
    int err = RIO_E_DATAREP;
    pthread_mutex_lock(&drep_lock);
    for (int i = 0; i < n_dreps; i++)
        if (!strcmp(dreps[i]->name, name)) {
            *out = dreps[i];
            err = 0;
        }
    pthread_mutex_unlock(&drep_lock);
    if (err)
        rio__err_detail("'%s' is neither predefined nor registered", name);
    return err;
}

static int register_datarep(const char *name, const struct rio_datarep *d)
{
    const struct rio_datarep *old;
    if (!d->extent_fn) {
        rio__err_detail("an extent function is required");
        return RIO_E_ARG;
    }
    if (!name || !*name || strlen(name) >= MPI_MAX_DATAREP_STRING) {
        rio__err_detail("name empty or longer than MPI_MAX_DATAREP_STRING");
        return RIO_E_ARG;
    }
    if (rio__datarep_find(name, &old) == 0) {
        rio__err_detail("'%s'", name);
        return RIO_E_DUP_DATAREP;
    }
    rio__err_detail("%s", "");
    struct rio_datarep *n = rio__malloc(sizeof *n);
    if (!n)
        return RIO_E_NOMEM;
    *n = *d;
    strcpy(n->name, name);
    pthread_mutex_lock(&drep_lock);
    struct rio_datarep **t = rio__realloc(dreps, (size_t)(n_dreps + 1) * sizeof *t);
    if (t) {
        dreps = t;
        dreps[n_dreps++] = n;
    }
    pthread_mutex_unlock(&drep_lock);
    if (!t) {
        free(n);
        return RIO_E_NOMEM;
    }
    return 0;
}

int rio_register_datarep(const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn,
                         MPI_Datarep_conversion_function *write_conversion_fn,
                         MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    struct rio_datarep d = {.read_fn = read_conversion_fn, .write_fn = write_conversion_fn,
                            .extent_fn = dtype_file_extent_fn, .extra_state = extra_state};
    return rio__file_return_name(register_datarep(datarep, &d), "MPI_Register_datarep", datarep);
}

#if MPI_VERSION >= 4
int rio_register_datarep_c(const char *datarep,
                           MPI_Datarep_conversion_function_c *read_conversion_fn,
                           MPI_Datarep_conversion_function_c *write_conversion_fn,
                           MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    struct rio_datarep d = {.read_fn_c = read_conversion_fn, .write_fn_c = write_conversion_fn,
                            .extent_fn = dtype_file_extent_fn, .extra_state = extra_state};
    return rio__file_return_name(register_datarep(datarep, &d), "MPI_Register_datarep_c", datarep);
}
#endif

/* ---- views ------------------------------------------------------------------ */

/* Say which of the view's types the detail of the error just made is
 * about ("filetype: datatype not committed"). */
static void which_type(const char *which)
{
    char d[256];
    rio__strcpy(d, sizeof d, rio__err_detail_peek());
    rio__err_detail("%s: %s", which, d[0] ? d : "not usable");
}

static int is_named(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED;
}

static void free_type(MPI_Datatype *t)
{
    if (*t != MPI_DATATYPE_NULL && !is_named(*t))
        MPI_Type_free(t);
    *t = MPI_DATATYPE_NULL;
}

/* Our own handle for a user's type: named ones as they are, others dup'ed. */
static int keep_type(MPI_Datatype t, MPI_Datatype *out)
{
    if (is_named(t)) {
        *out = t;
        return 0;
    }
    return MPI_Type_dup(t, out) == MPI_SUCCESS ? 0 : RIO_E_NOMEM;
}

void rio__view_free(rio_file *fh)
{
    if (fh->etype_dt)
        rio__dtype_put(fh->etype_dt);
    if (fh->filetype_dt)
        rio__dtype_put(fh->filetype_dt);
    fh->etype_dt = fh->filetype_dt = NULL;
    free_type(&fh->etype);
    free_type(&fh->filetype);
}

/* Install a checked view; takes ownership of the references given. */
static void install(rio_file *fh, MPI_Offset disp, MPI_Datatype et, MPI_Datatype ft,
                    struct rio_dtype *et_dt, struct rio_dtype *ft_dt, const char *datarep,
                    const struct rio_datarep *drep, int overlaps, int overlaps_any)
{
    rio__view_free(fh);
    fh->disp = disp;
    fh->etype = et;
    fh->filetype = ft;
    fh->etype_dt = et_dt;
    fh->filetype_dt = ft_dt;
    fh->etype_size = (MPI_Offset)rio__dtype_info(et_dt)->size;
    snprintf(fh->datarep, sizeof fh->datarep, "%s", datarep);
    fh->drep = drep;
    fh->view_overlaps = overlaps;
    fh->views_overlap = overlaps_any;
}

int rio__view_default(rio_file *fh)
{
    struct rio_dtype *b1 = NULL, *b2 = NULL;
    int err = rio__dtype_get(MPI_BYTE, &b1);
    if (!err)
        err = rio__dtype_get(MPI_BYTE, &b2);
    if (err) {
        if (b1)
            rio__dtype_put(b1);
        return err;
    }
    install(fh, 0, MPI_BYTE, MPI_BYTE, b1, b2, "native", NULL, 0, 0);
    return 0;
}

int rio_file_set_view(rio_file *fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                      const char *datarep, MPI_Info info)
{
    static const char op[] = "MPI_File_set_view";
    struct rio_dtype *et_dt = NULL, *ft_dt = NULL;
    MPI_Datatype et = MPI_DATATYPE_NULL, ft = MPI_DATATYPE_NULL;
    const struct rio_datarep *drep = NULL;
    int overlaps = 0, overlaps_any = 0;
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, op);
    if (fh->split_active) {
        err = RIO_E_PENDING_SPLIT;
        goto agree;
    }
    /* erroneous by the standard; harmless here (each job holds the view it
     * was issued under), but a program that relies on it would break
     * elsewhere */
    int pending = rio__async_pending(fh);
    if (pending) {
        err = RIO_E_PENDING_IO;
        rio__err_detail("%d nonblocking request(s) outstanding: complete them before "
                        "changing the view",
                        pending);
        goto agree;
    }
    if (etype == MPI_DATATYPE_NULL || filetype == MPI_DATATYPE_NULL) {
        err = RIO_E_TYPE;
        rio__err_detail("MPI_DATATYPE_NULL as etype or filetype");
        goto agree;
    }
    if (!datarep) {
        err = RIO_E_DATAREP;
        rio__err_detail("null datarep");
        goto agree;
    }
    err = rio__datarep_find(datarep, &drep);
    if (err)
        goto agree;
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        if (!(fh->amode & MPI_MODE_SEQUENTIAL)) {
            err = RIO_E_ARG;
            rio__err_detail("MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL");
            goto agree;
        }
    } else if (disp < 0) {
        err = RIO_E_ARG;
        rio__err_detail("negative displacement %lld", (long long)disp);
        goto agree;
    }
    err = rio__dtype_get(etype, &et_dt);
    if (err) {
        which_type("etype");
        goto agree;
    }
    err = rio__dtype_get(filetype, &ft_dt);
    if (err) {
        which_type("filetype");
        goto agree;
    }
    /* Offsets and file pointers count etypes: one of no bytes would make
     * every position the same byte (Open MPI's own view code divides by
     * it), so it is refused.  A filetype of no bytes is legal (the
     * datatype layer's check accepts it). */
    if (rio__dtype_info(et_dt)->size <= 0) {
        err = RIO_E_TYPE;
        rio__err_detail("etype holds no data (offsets are counted in etypes)");
        goto agree;
    }
    err = rio__dtype_check_filetype(ft_dt, et_dt, (fh->amode & MPI_MODE_RDONLY) != 0,
                                    &overlaps);
    if (err)
        goto agree;
    err = keep_type(etype, &et);
    if (!err)
        err = keep_type(filetype, &ft);
agree:
    {
        MPI_Offset esz = et_dt ? (MPI_Offset)rio__dtype_info(et_dt)->size : -1;
        MPI_Offset mm[3] = {esz, -esz, overlaps}, r[3];
        MPI_Allreduce(mm, r, 3, RIO_MPI_OFFSET_SIGNED, MPI_MAX, fh->comm);
        overlaps_any = (int)r[2];
        if (!err && (r[0] != esz || -r[1] != esz)) {
            err = RIO_E_NOT_SAME;
            rio__err_detail("etype size differs between ranks");
        }
    }
    err = rio__agree(fh->comm, err);
    if (!err && disp == MPI_DISPLACEMENT_CURRENT) {
        /* Sequential files: the view starts at the shared pointer, in bytes
         * of the current view. */
        MPI_Offset cur = 0;
        err = rio__shared_fetch_add(fh, 0, &cur);
        if (!err)
            disp = rio__dtype_view_offset(fh->filetype_dt, fh->disp, cur * fh->etype_size);
        err = rio__agree(fh->comm, err);
    }
    if (err) {
        if (et_dt)
            rio__dtype_put(et_dt);
        if (ft_dt)
            rio__dtype_put(ft_dt);
        free_type(&et);
        free_type(&ft);
        return rio__file_return(fh, err, op);
    }
    install(fh, disp, et, ft, et_dt, ft_dt, datarep, drep, overlaps, overlaps_any);
    rio__hints_apply(&fh->hints, info, 0, fh->write_only);
    fh->fp_ind = 0;
    if (fh->rank == 0)
        err = rio__shared_set(fh, 0);
    err = rio__agree(fh->comm, err);
    return rio__file_return(fh, err, op);
}

int rio_file_get_view(rio_file *fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                      char *datarep)
{
    int err = rio__file_check(fh);
    if (!err && (!disp || !etype || !filetype || !datarep)) {
        err = RIO_E_ARG;
        rio__err_detail("null output pointer");
    }
    if (!err) {
        *disp = fh->disp;
        err = keep_type(fh->etype, etype);
        if (!err)
            err = keep_type(fh->filetype, filetype);
        strcpy(datarep, fh->datarep);
    }
    return rio__file_return(fh, err, "MPI_File_get_view");
}

static int type_extent(rio_file *fh, MPI_Datatype datatype, MPI_Count *extent)
{
    MPI_Count lb, ext;
    if (datatype == MPI_DATATYPE_NULL) {
        rio__err_detail("MPI_DATATYPE_NULL");
        return RIO_E_TYPE;
    }
    if (MPI_Type_get_extent_x(datatype, &lb, &ext) != MPI_SUCCESS)
        return RIO_E_TYPE;
    *extent = ext;
    if (fh->drep && is_named(datatype)) {
        if (fh->drep->external32) {
            MPI_Aint sz = 0;
            if (MPI_Pack_external_size("external32", 1, datatype, &sz) != MPI_SUCCESS)
                return RIO_E_TYPE;
            *extent = sz;
        } else {
            MPI_Aint fe = 0;
            if (fh->drep->extent_fn(datatype, &fe, fh->drep->extra_state) != MPI_SUCCESS)
                return RIO_E_CONVERSION;
            *extent = fe;
        }
    }
    return 0;
}

int rio_file_get_type_extent(rio_file *fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Count e = 0;
    int err = rio__file_check(fh);
    if (!err && !extent)
        err = RIO_E_ARG;
    if (!err)
        err = type_extent(fh, datatype, &e);
    if (!err)
        *extent = (MPI_Aint)e;
    return rio__file_return(fh, err, "MPI_File_get_type_extent");
}

#if MPI_VERSION >= 4
int rio_file_get_type_extent_c(rio_file *fh, MPI_Datatype datatype, MPI_Count *extent)
{
    int err = rio__file_check(fh);
    if (!err && !extent)
        err = RIO_E_ARG;
    if (!err)
        err = type_extent(fh, datatype, extent);
    return rio__file_return(fh, err, "MPI_File_get_type_extent_c");
}
#endif

/* ---- positions ------------------------------------------------------------- */

/* The end of the file in stream bytes for a view whose mapping is not
 * monotonic (regions that overlap, on read-only files, or tiles that do):
 * ROMIO's rule, the position in the first region, in stream order, that
 * reaches size — the bisection below could stop at any crossing.  The
 * first tile whose last byte reaches size holds it.  -1 when the walk
 * cannot start. */
static MPI_Offset overlapping_eof(rio_file *fh, MPI_Offset size)
{
    const struct rio_dtype_info *fi = rio__dtype_info(fh->filetype_dt);
    MPI_Offset ub = fh->disp + fi->true_lb + fi->true_extent, tile = 0;
    if (fi->extent <= 0 || fi->size <= 0)
        return -1;
    if (size > ub)
        tile = (size - ub + fi->extent - 1) / fi->extent;
    struct rio_dtype_iter it;
    if (rio__dtype_iter_init(&it, fh->filetype_dt, -1, tile * fi->size))
        return -1;
    MPI_Offset pos = -1, at = rio__dtype_iter_pos(&it), off, len;
    while (pos < 0 && rio__dtype_iter_next(&it, 0, &off, &len)) {
        MPI_Offset start = fh->disp + off;
        if (start + len >= size)
            pos = at + RIO_MIN(RIO_MAX(size - start, 0), len);
        at += len;
    }
    rio__dtype_iter_free(&it);
    return pos;
}

MPI_Offset rio__view_eof_etypes(rio_file *fh, MPI_Offset size)
{
    const struct rio_dtype_info *fi = rio__dtype_info(fh->filetype_dt);
    int monotonic = rio__dtype_view_monotone(fh->filetype_dt, 0, 2 * (MPI_Offset)fi->size);
    MPI_Offset pos = monotonic ? -1 : overlapping_eof(fh, size);
    if (pos >= 0)
        return (pos + fh->etype_size - 1) / fh->etype_size;
    /* The largest stream position whose byte lies below size, found by
     * bisection over the (monotonic) view mapping. */
    if (size <= fh->disp)
        return 0;
    MPI_Offset tiles = fi->extent > 0 ? (size - fh->disp) / fi->extent + 2 : 2;
    MPI_Offset lo = 0, hi = tiles * (MPI_Offset)fi->size; /* view_offset(hi) >= size */
    while (lo < hi) {
        MPI_Offset mid = lo + (hi - lo) / 2;
        if (rio__dtype_view_offset(fh->filetype_dt, fh->disp, mid) < size)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo + fh->etype_size - 1) / fh->etype_size;
}

static int seek_target(rio_file *fh, MPI_Offset offset, int whence, MPI_Offset cur,
                       MPI_Offset *out)
{
    MPI_Offset base;
    switch (whence) {
    case MPI_SEEK_SET:
        base = 0;
        break;
    case MPI_SEEK_CUR:
        base = cur;
        break;
    case MPI_SEEK_END: {
        MPI_Offset size = 0;
        int err = fh->st.ops->get_size(&fh->st, &size);
        if (err)
            return err;
        base = rio__view_eof_etypes(fh, size);
        break;
    }
    default:
        rio__err_detail("whence %d is not MPI_SEEK_SET, MPI_SEEK_CUR or MPI_SEEK_END", whence);
        return RIO_E_ARG;
    }
    if (base + offset < 0) {
        rio__err_detail("the position would be negative");
        return RIO_E_ARG;
    }
    *out = base + offset;
    return 0;
}

int rio_file_seek(rio_file *fh, MPI_Offset offset, int whence)
{
    int err = rio__file_check(fh);
    if (!err && (fh->amode & MPI_MODE_SEQUENTIAL))
        err = RIO_E_SEQUENTIAL;
    MPI_Offset pos = 0;
    if (!err)
        err = seek_target(fh, offset, whence, fh->fp_ind, &pos);
    if (!err)
        fh->fp_ind = pos;
    return rio__file_return(fh, err, "MPI_File_seek");
}

int rio_file_get_position(rio_file *fh, MPI_Offset *offset)
{
    int err = rio__file_check(fh);
    if (!err && (fh->amode & MPI_MODE_SEQUENTIAL))
        err = RIO_E_SEQUENTIAL;
    if (!err && !offset)
        err = RIO_E_ARG;
    if (!err)
        *offset = fh->fp_ind;
    return rio__file_return(fh, err, "MPI_File_get_position");
}

int rio_file_get_byte_offset(rio_file *fh, MPI_Offset offset, MPI_Offset *disp)
{
    int err = rio__file_check(fh);
    if (!err && (fh->amode & MPI_MODE_SEQUENTIAL))
        err = RIO_E_SEQUENTIAL;
    if (!err && (!disp || offset < 0)) {
        err = RIO_E_ARG;
        rio__err_detail("negative offset or null output");
    }
    if (!err)
        *disp = rio__dtype_view_offset(fh->filetype_dt, fh->disp, offset * fh->etype_size);
    return rio__file_return(fh, err, "MPI_File_get_byte_offset");
}

int rio_file_seek_shared(rio_file *fh, MPI_Offset offset, int whence)
{
    static const char op[] = "MPI_File_seek_shared";
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, op);
    MPI_Offset cur = 0, pos = 0;
    err = rio__shared_fetch_add(fh, 0, &cur);
    if (!err)
        err = seek_target(fh, offset, whence, cur, &pos);
    MPI_Offset mm[2] = {pos, -pos}, r[2];
    MPI_Allreduce(mm, r, 2, RIO_MPI_OFFSET_SIGNED, MPI_MAX, fh->comm);
    if (!err && (r[0] != pos || -r[1] != pos)) {
        err = RIO_E_NOT_SAME;
        rio__err_detail("offset or whence differs between ranks");
    }
    err = rio__agree(fh->comm, err);
    if (!err && fh->rank == 0)
        err = rio__shared_set(fh, pos);
    err = rio__agree(fh->comm, err);
    return rio__file_return(fh, err, op);
}

int rio_file_get_position_shared(rio_file *fh, MPI_Offset *offset)
{
    int err = rio__file_check(fh);
    if (!err && !offset)
        err = RIO_E_ARG;
    if (!err)
        err = rio__shared_fetch_add(fh, 0, offset);
    return rio__file_return(fh, err, "MPI_File_get_position_shared");
}
