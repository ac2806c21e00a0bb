/*
 * rw.c — data access: every read and write of the standard, in one path.
 *
 * All variants (explicit offset, individual pointer, shared pointer,
 * ordered; blocking, nonblocking, collective, split) reduce to one call of
 * data_access(): check the arguments, find the position in etypes (from
 * the argument, the individual pointer, the shared pointer's window, or a
 * scan over the ranks for ordered access), move the data through the
 * independent methods (rw_core) or the collective engine, advance
 * pointers, agree on the error for collective calls and fill the status.
 *
 * Collective calls go through the collective engine (src/coll), which
 * moves the data and agrees on the outcome itself; only the calls it
 * cannot serve (data representations, atomic mode, overlapping views)
 * take the independent path, and agree here.  Nonblocking independent
 * calls run in the background where the process allows it (async.c, and
 * "nonblocking calls" below); the others complete before they return and
 * hand back a generalized request that is already complete, which MPI_Wait
 * and MPI_Test accept like any other.  A split collective does its work in
 * the begin call and returns the status in the end call.
 *
 * Conversion: for external32 the data is packed with MPI_Pack_external into
 * a scratch buffer and that buffer is written through the view (reads
 * unpack); for a registered representation the user's conversion functions
 * do the same.  Atomic mode holds a byte-range lock over the whole extent
 * the call touches.
 */
#include "file_int.h"
#include "../indep/indep.h"

#include <stdlib.h>
#include <string.h>

enum where { AT, IND, SHARED, ORDERED };

/* ---- conversion helpers ----------------------------------------------------- */

/* The one predefined type all of t is made of, or MPI_DATATYPE_NULL. */
static MPI_Datatype basic_of(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED)
        return t;
    int *ints = malloc(sizeof(int) * (size_t)(ni ? ni : 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na ? na : 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd ? nd : 1));
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    int ok = ints && addrs && types;
    if (ok)
        MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    for (int i = 0; ok && i < nd; i++) {
        MPI_Datatype b = basic_of(types[i]);
        if (b == MPI_DATATYPE_NULL || (basic != MPI_DATATYPE_NULL && b != basic))
            ok = 0;
        basic = b;
        int cni, cna, cnd, ccomb;
        MPI_Type_get_envelope(types[i], &cni, &cna, &cnd, &ccomb);
        if (ccomb != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
    return ok ? basic : MPI_DATATYPE_NULL;
}

/* Bytes in the file representation of count instances of type. */
static int file_bytes(const struct rio_datarep *d, MPI_Datatype type, MPI_Count count,
                      MPI_Offset native, MPI_Offset *out)
{
    if (d->external32) {
        MPI_Aint sz = 0;
        if (count > 0 && MPI_Pack_external_size("external32", 1, type, &sz) != MPI_SUCCESS)
            return RIO_E_TYPE;
        *out = (MPI_Offset)sz * count;
        return 0;
    }
    MPI_Datatype basic = basic_of(type);
    MPI_Aint fext = 0;
    int bsize = 0;
    if (basic == MPI_DATATYPE_NULL) {
        rio__err_detail("datatype mixes predefined types; representation '%s' needs one", d->name);
        return RIO_E_CONVERSION;
    }
    if (d->extent_fn(basic, &fext, d->extra_state) != MPI_SUCCESS) {
        rio__err_detail("extent function of '%s' failed", d->name);
        return RIO_E_CONVERSION;
    }
    MPI_Type_size(basic, &bsize);
    *out = bsize ? native / bsize * (MPI_Offset)fext : 0;
    return 0;
}

/* Convert between the user's buffer and the file representation in tmp.
 * A registered representation whose function is MPI_CONVERSION_FN_NULL
 * stores the native bytes. */
static int convert(const struct rio_datarep *d, int to_file, void *buf, MPI_Count count,
                   MPI_Datatype type, const struct rio_dtype *dt, void *tmp, MPI_Offset tmp_len)
{
    if (d->external32) {
        MPI_Aint pos = 0;
        int rc = to_file ? MPI_Pack_external("external32", buf, (MPI_Aint)count, type, tmp,
                                             (MPI_Aint)tmp_len, &pos)
                         : MPI_Unpack_external("external32", tmp, (MPI_Aint)tmp_len, &pos, buf,
                                               (MPI_Aint)count, type);
        return rc == MPI_SUCCESS ? 0 : RIO_E_CONVERSION;
    }
    int rc;
    MPI_Datarep_conversion_function *fn = to_file ? d->write_fn : d->read_fn;
#if MPI_VERSION >= 4
    MPI_Datarep_conversion_function_c *fn_c = to_file ? d->write_fn_c : d->read_fn_c;
#endif
    if (fn) {
        rc = fn(buf, type, (int)count, tmp, 0, d->extra_state);
#if MPI_VERSION >= 4
    } else if (fn_c) {
        rc = fn_c(buf, type, count, tmp, 0, d->extra_state);
#endif
    } else {
        MPI_Offset n = RIO_MIN(tmp_len, (MPI_Offset)rio__dtype_info(dt)->size * count);
        return to_file ? rio__dtype_pack(dt, count, buf, 0, n, tmp)
                       : rio__dtype_unpack(dt, count, buf, 0, n, tmp);
    }
    if (rc != MPI_SUCCESS) {
        rio__err_detail("conversion function of '%s' failed", d->name);
        return RIO_E_CONVERSION;
    }
    return 0;
}

/* Memory bytes a read through a representation delivered: those in
 * proportion to the file bytes read (the representation scales every
 * element alike when it has one basic type, as user representations must),
 * cut to whole elements of that type. */
static MPI_Offset read_prefix(MPI_Datatype type, MPI_Offset file_done, MPI_Offset file_all,
                              MPI_Offset native_all)
{
    if (file_all <= 0)
        return 0;
    MPI_Offset got = (MPI_Offset)((double)file_done / (double)file_all * (double)native_all);
    MPI_Datatype basic = basic_of(type);
    int bsize = 0;
    if (basic != MPI_DATATYPE_NULL && MPI_Type_size(basic, &bsize) == MPI_SUCCESS && bsize > 0)
        got -= got % bsize;
    return RIO_MIN(got, native_all);
}

/* Convert a read's file bytes in tmp into buf, changing only the first got
 * bytes of the memory stream: past end of file the caller's bytes stay as
 * they were (MPI's receive-buffer rule), as on every path without a
 * representation.  A conversion writes every element of the request, so
 * the stream's tail is saved first and put back after. */
static int convert_prefix(const struct rio_datarep *d, void *buf, MPI_Count count,
                          MPI_Datatype type, const struct rio_dtype *dt, void *tmp,
                          MPI_Offset tmp_len, MPI_Offset got)
{
    MPI_Offset all = (MPI_Offset)rio__dtype_info(dt)->size * count, rest = all - got;
    void *keep = NULL;
    int err = 0;
    if (rest > 0) {
        keep = rio__malloc((size_t)rest);
        if (!keep)
            return RIO_E_NOMEM;
        err = rio__dtype_pack(dt, count, buf, got, rest, keep);
    }
    if (!err)
        err = convert(d, 0, buf, count, type, dt, tmp, tmp_len);
    if (!err && keep)
        err = rio__dtype_unpack(dt, count, buf, got, rest, keep);
    free(keep);
    return err;
}

/* ---- the core ------------------------------------------------------------------ */

/* What an independent access needs of the file, fixed when the call is
 * issued: a nonblocking call's job holds its own copy (and a reference to
 * the filetype), so the I/O thread does not read the handle as it runs. */
struct access {
    struct rio_store *st;
    struct rio_dtype *filetype_dt; /* borrowed from the view, or the job's reference */
    MPI_Offset disp, etype_size;
    const struct rio_datarep *drep;
    int view_overlaps, atomic;
};

static struct access access_of(rio_file *fh)
{
    return (struct access){.st = &fh->st,
                           .filetype_dt = fh->filetype_dt,
                           .disp = fh->disp,
                           .etype_size = fh->etype_size,
                           .drep = fh->drep,
                           .view_overlaps = fh->view_overlaps,
                           .atomic = fh->atomic};
}

/*
 * Move count instances of type between buf and the view, from etype
 * position pos.  *done gets the stream bytes moved (less than asked when a
 * read meets end of file).  Local.  Calls MPI only for a data
 * representation (a->drep), so it runs on an I/O thread without one.
 */
static int rw_core(const struct access *a, int write, MPI_Offset pos, void *buf, MPI_Count count,
                   MPI_Datatype type, struct rio_dtype *mem_dt, MPI_Offset nbytes,
                   MPI_Offset *done)
{
    struct rio_dtype *byte_dt = NULL;
    void *tmp = NULL;
    int err = 0;
    struct rio_indep_req req = {
        .st = a->st,
        .write = write,
        .buf = buf,
        .memtype = mem_dt,
        .memcount = count,
        .filetype = a->filetype_dt,
        .disp = a->disp,
        .file_start = pos * a->etype_size,
        .nbytes = nbytes,
        /* overlapping regions: one storage call per run, in stream order */
        .method = a->view_overlaps ? RIO_INDEP_POSIX : RIO_INDEP_AUTO,
    };
    *done = 0;

    if (a->drep) {
        MPI_Offset fb = 0;
        err = file_bytes(a->drep, type, count, nbytes, &fb);
        if (err)
            goto out;
        if (fb % a->etype_size) {
            err = RIO_E_TYPE;
            rio__err_detail("converted data is not a whole number of etypes");
            goto out;
        }
        tmp = rio__malloc((size_t)fb);
        if (!tmp) {
            err = RIO_E_NOMEM;
            goto out;
        }
        if (write) {
            err = convert(a->drep, 1, buf, count, type, mem_dt, tmp, fb);
            if (err)
                goto out;
        }
        err = rio__dtype_get(MPI_BYTE, &byte_dt);
        if (err)
            goto out;
        req.buf = tmp;
        req.memtype = byte_dt;
        req.memcount = fb;
        req.nbytes = fb;
    }

    if (a->atomic && req.nbytes > 0 && a->st->ops->lock) {
        MPI_Offset first, end;
        rio__dtype_view_extent(a->filetype_dt, a->disp, req.file_start, req.nbytes, &first,
                               &end);
        err = a->st->ops->lock(a->st, first, end - first, write);
        if (err)
            goto out;
        req.locked = 1;
        err = rio__indep_rw(&req, done);
        int uerr = a->st->ops->unlock(a->st, first, end - first);
        if (!err)
            err = uerr;
    } else if (req.nbytes > 0) {
        err = rio__indep_rw(&req, done);
    }
    if (err)
        goto out;

    if (a->drep && !write) {
        MPI_Offset got = nbytes;
        if (*done < req.nbytes) {
            memset((char *)tmp + *done, 0, (size_t)(req.nbytes - *done));
            got = read_prefix(type, *done, req.nbytes, nbytes);
        }
        err = convert_prefix(a->drep, buf, count, type, mem_dt, tmp, req.nbytes, got);
        *done = err ? 0 : got;
    } else if (a->drep) {
        *done = nbytes;
    }
out:
    if (byte_dt)
        rio__dtype_put(byte_dt);
    free(tmp);
    return err;
}

/*
 * Move this rank's part of a collective call through the collective engine,
 * which also agrees on the outcome.  Collective: every rank calls it, a rank
 * with a local error err with nbytes 0 (and dt possibly NULL).  Returns the
 * agreed error; res as rio__coll_rw's.
 */
static int coll_core(rio_file *fh, MPI_Comm comm, int err, int write, MPI_Offset pos, void *buf,
                     MPI_Count count, struct rio_dtype *dt, MPI_Offset nbytes,
                     struct rio_store *kept, struct rio_coll_result *res)
{
    struct rio_coll_req r = {
        .comm = comm,
        .err = err,
        .st = kept ? kept : &fh->st,
        .uncapture = kept ? rio__capture_through : NULL,
        .hints = &fh->hints,
        .write = write,
        .buf = buf,
        .memtype = dt,
        .memcount = count,
        .filetype = fh->filetype_dt,
        .disp = fh->disp,
        .file_start = pos * fh->etype_size,
        .nbytes = dt ? nbytes : 0,
        .atomic = fh->atomic,
        .beside = comm != fh->comm, /* the lane's duplicate */
    };
    return rio__coll_rw(&fh->coll, &r, res);
}

static void set_status(MPI_Status *status, MPI_Offset bytes)
{
    if (status == MPI_STATUS_IGNORE)
        return;
    MPI_Status_set_elements_x(status, MPI_BYTE, (MPI_Count)bytes);
    MPI_Status_set_cancelled(status, 0);
}

/* Position of an ordered access: the shared pointer moved past all ranks'
 * data, each rank placed after the lower ranks.  Collective. */
static int ordered_position(rio_file *fh, MPI_Offset n_etypes, MPI_Offset *pos)
{
    MPI_Offset prefix = 0, total = 0, base = 0;
    int err = 0;
    MPI_Exscan(&n_etypes, &prefix, 1, RIO_MPI_OFFSET_SIGNED, MPI_SUM, fh->comm);
    if (fh->rank == 0)
        prefix = 0;
    MPI_Allreduce(&n_etypes, &total, 1, RIO_MPI_OFFSET_SIGNED, MPI_SUM, fh->comm);
    if (fh->rank == 0)
        err = rio__shared_fetch_add(fh, total, &base);
    MPI_Bcast(&base, 1, MPI_OFFSET, 0, fh->comm);
    *pos = base + prefix;
    return err;
}

/* The checks every data-access call makes locally: the arguments against
 * the access mode, and the memory type's decoded form (*dt, a new
 * reference, also on error when one was taken) and byte count (*nbytes; 0
 * for a view that holds no data).  Returns 0 or an internal code. */
static int check_access(rio_file *fh, int write, enum where where, MPI_Offset offset,
                        MPI_Count count, MPI_Datatype type, struct rio_dtype **dt,
                        MPI_Offset *nbytes)
{
    int err = 0;
    if (count < 0) {
        err = RIO_E_COUNT;
        rio__err_detail("count %lld is negative", (long long)count);
    } else if (type == MPI_DATATYPE_NULL) {
        err = RIO_E_TYPE;
        rio__err_detail("MPI_DATATYPE_NULL");
    } else if (write && (fh->amode & MPI_MODE_RDONLY)) {
        err = RIO_E_RDONLY;
    } else if (!write && (fh->amode & MPI_MODE_WRONLY)) {
        err = RIO_E_WRONLY;
    } else if ((where == AT || where == IND) && (fh->amode & MPI_MODE_SEQUENTIAL)) {
        err = RIO_E_SEQUENTIAL;
    } else if (where == AT && offset < 0) {
        err = RIO_E_ARG;
        rio__err_detail("offset %lld is negative", (long long)offset);
    }
    if (!err)
        err = rio__dtype_get(type, dt);
    if (!err) {
        *nbytes = (MPI_Offset)rio__dtype_info(*dt)->size * count;
        if (*nbytes % fh->etype_size) {
            err = RIO_E_TYPE;
            rio__err_detail("%lld bytes is not a whole number of etypes of %lld bytes",
                            (long long)*nbytes, (long long)fh->etype_size);
        }
    }
    /* A view whose filetype holds no data (PnetCDF gives one to the ranks
     * with nothing to fill) has no place for a byte: the call moves none,
     * reports 0 in its status and leaves the file pointers where they are,
     * as a call of count 0 would.  Open MPI's views do the same. */
    if (!err && rio__dtype_info(fh->filetype_dt)->size <= 0)
        *nbytes = 0;
    return err;
}

/* One data-access call that moved done bytes, in the file's counters. */
static void count_access(rio_stats *s, int write, MPI_Offset done)
{
    rio__stat_add(write ? &s->calls_write : &s->calls_read, 1);
    rio__stat_add(write ? &s->bytes_written : &s->bytes_read, done);
}

/* Does a collective call on fh go through the collective engine?  Not
 * where each rank must convert (data representations), lock (atomic mode)
 * or read overlapping regions of its view (which the engine's file-ordered
 * exchange does not model) itself: then every rank takes the independent
 * path. */
static int through_engine(const rio_file *fh)
{
    return !fh->drep && !fh->atomic && !fh->views_overlap;
}

/*
 * This rank's part of a collective call at pos, on comm (fh->comm, or a
 * lane's duplicate in the background), err this rank's error so far,
 * through the engine or, where it cannot serve the call (through_engine),
 * the independent path on every rank.  Returns the agreed error;
 * *own_err gets this rank's, *done the bytes it moved.  Collective.
 */
static int coll_part(rio_file *fh, MPI_Comm comm, const char *op, int err, int write,
                     MPI_Offset pos, void *buf, MPI_Count count, MPI_Datatype type,
                     struct rio_dtype *dt, MPI_Offset nbytes, struct rio_store *kept,
                     int *own_err, MPI_Offset *done)
{
    int engine = through_engine(fh), agreed;
    double t_agree = 0;
    *done = 0;
    if (engine) { /* the engine agrees itself */
        struct rio_coll_result res;
        agreed = coll_core(fh, comm, err, write, pos, buf, count, dt, err ? 0 : nbytes, kept,
                           &res);
        if (!err)
            err = res.own_err;
        *done = res.done;
        t_agree = res.t_agree;
    } else {
        if (!err && nbytes > 0) {
            struct access a = access_of(fh);
            err = rw_core(&a, write, pos, buf, count, type, dt, nbytes, done);
        }
        /* the agreement: where a collective call waits for the slowest rank */
        double t0 = rio__now();
        agreed = rio__agree(comm, err);
        t_agree = rio__now() - t0;
    }
    *own_err = err;
    rio__stat_add_time(&fh->stats.time_agree, t_agree);
    if (engine && fh->report)
        rio__stats_coll_call(fh, op);
    return agreed;
}

static int data_access(rio_file *fh, const char *op, int write, int coll, enum where where,
                       MPI_Offset offset, const void *cbuf, MPI_Count count, MPI_Datatype type,
                       MPI_Status *status)
{
    void *buf = (void *)cbuf;
    struct rio_dtype *dt = NULL;
    MPI_Offset nbytes = 0, done = 0, pos = 0;
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, op);
    if (coll) /* after the collective calls still running in the background */
        rio__async_lane_drain(fh);

    err = check_access(fh, write, where, offset, count, type, &dt, &nbytes);
    MPI_Offset n_etypes = err ? 0 : nbytes / fh->etype_size;

    switch (where) {
    case AT:
        pos = offset;
        break;
    case IND:
        pos = fh->fp_ind;
        break;
    case SHARED:
        if (!err)
            err = rio__shared_fetch_add(fh, n_etypes, &pos);
        break;
    case ORDERED: {
        int oerr = ordered_position(fh, n_etypes, &pos);
        if (!err)
            err = oerr;
        break;
    }
    }
    int agreed = 0;
    if (coll) {
        agreed = coll_part(fh, fh->comm, op, err, write, pos, buf, count, type, dt, nbytes, NULL,
                           &err, &done);
    } else if (!err && nbytes > 0) {
        struct access a = access_of(fh);
        err = rw_core(&a, write, pos, buf, count, type, dt, nbytes, &done);
    }
    if (where == IND && !err)
        fh->fp_ind = pos + done / fh->etype_size;
    if (!err)
        count_access(&fh->stats, write, done);
    if (dt)
        rio__dtype_put(dt);
    if (coll)
        err = agreed;
    if (!err)
        set_status(status, done);
    return rio__file_return(fh, err, op);
}

/* ---- nonblocking calls ---------------------------------------------------------
 *
 * An independent call runs in the background where the process allows
 * (async.c says when): here it is checked, its position fixed (the
 * individual pointer advanced past everything it asks for, as the
 * standard says; the shared pointer taken), the memory type's and the
 * filetype's decoded forms held, and a job queued that moves the data
 * through rw_core on an I/O thread.  Calls through a data representation
 * stay synchronous: their conversion calls MPI (MPI_Pack_external, the
 * user's functions) for every call.  Collective calls, and every call
 * where async.c cannot run jobs, complete before they return, with a
 * generalized request already complete. */

/* A job's capture: all rw_core needs, owned by the job. */
struct bg_io {
    struct access a;       /* a.filetype_dt: the job's reference */
    rio_stats *stats;      /* the file's: the file is not freed before the job ran */
    int write;
    MPI_Offset pos, nbytes;
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    struct rio_dtype *dt;  /* the job's reference */
};

static int bg_run(void *arg, MPI_Offset *done)
{
    struct bg_io *io = arg;
    *done = 0;
    int err = io->nbytes > 0 ? rw_core(&io->a, io->write, io->pos, io->buf, io->count, io->type,
                                       io->dt, io->nbytes, done)
                             : 0;
    if (!err)
        count_access(io->stats, io->write, *done);
    return err;
}

static void bg_release(void *arg)
{
    struct bg_io *io = arg;
    rio__dtype_put(io->dt);
    rio__dtype_put(io->a.filetype_dt);
    free(io);
}

/* Issue an independent nonblocking call as a job (contract above).  The
 * caller checked the handle. */
static int background(rio_file *fh, const char *op, int write, enum where where,
                      MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype type,
                      MPI_Request *request)
{
    struct bg_io *io = NULL;
    struct rio_dtype *dt = NULL, *ft = NULL, *byte = NULL;
    MPI_Offset nbytes = 0, pos = 0;
    int err = check_access(fh, write, where, offset, count, type, &dt, &nbytes);
    if (err)
        goto out;
    /* what the I/O thread would otherwise look up through MPI the first
     * time: MPI_BYTE's form (the staging path takes it) and the pool's
     * limit */
    err = rio__dtype_get(MPI_BYTE, &byte);
    if (err)
        goto out;
    rio__pool_setup();
    io = rio__calloc(1, sizeof *io);
    if (!io) {
        err = RIO_E_NOMEM;
        goto out;
    }
    MPI_Offset n_etypes = nbytes / fh->etype_size;
    if (where == AT)
        pos = offset;
    else if (where == IND)
        pos = fh->fp_ind;
    else
        err = rio__shared_fetch_add(fh, n_etypes, &pos);
    if (err)
        goto out;
    *io = (struct bg_io){.a = access_of(fh),
                         .stats = &fh->stats,
                         .write = write,
                         .pos = pos,
                         .nbytes = nbytes,
                         .buf = (void *)buf,
                         .count = count,
                         .type = type,
                         .dt = dt};
    io->a.filetype_dt = ft = rio__dtype_hold(fh->filetype_dt);
    err = rio__async_submit(fh, op, write, bg_run, bg_release, io, request);
    if (err)
        goto out;
    io = NULL;
    dt = ft = NULL; /* the job's now */
    if (where == IND)
        fh->fp_ind = pos + n_etypes;
out:
    free(io);
    rio__dtype_put(byte);
    rio__dtype_put(ft);
    rio__dtype_put(dt);
    return rio__file_return(fh, err, op);
}

/* A collective job's capture: the call as issued, run by the file's lane.
 * The file outlives it (close ends the lane first); its view cannot
 * change meanwhile (set_view refuses while requests are outstanding, or a
 * split collective is active). */
struct bg_coll {
    rio_file *fh;
    const char *op;
    int err; /* this rank's error at issue: the lane's call agrees on it */
    int write;
    MPI_Offset pos, nbytes;
    void *buf;
    MPI_Count count;
    MPI_Datatype type;
    struct rio_dtype *dt; /* the job's reference, or NULL */
};

static int bg_coll_run(void *arg, MPI_Comm comm, MPI_Offset *done)
{
    struct bg_coll *c = arg;
    int own;
    int agreed = coll_part(c->fh, comm, c->op, c->err, c->write, c->pos, c->buf, c->count,
                           c->type, c->dt, c->nbytes, NULL, &own, done);
    if (!own)
        count_access(&c->fh->stats, c->write, *done);
    return agreed;
}

static void bg_coll_release(void *arg)
{
    struct bg_coll *c = arg;
    rio__dtype_put(c->dt);
    free(c);
}

/* The call fails on this rank with err but is still entered, moving
 * nothing. */
static void bg_coll_fail(void *arg, int err)
{
    struct bg_coll *c = arg;
    if (!c->err)
        c->err = err;
    rio__dtype_put(c->dt);
    c->dt = NULL;
    c->nbytes = 0;
}

/* Below MULTIPLE: a collective call whose engine ran at issue, and the
 * transfers it kept for the lane (NULL: none kept, made at issue). */
struct bg_behind {
    rio_file *fh;
    struct rio_capture *kept;
    MPI_Offset done; /* counted at issue, kept reads whole */
};

/* The kept transfers, and the bytes the call moved: a read's kept reads
 * stop at the end of the file, which the count (and the file's counters)
 * learn only now. */
static int behind_make(struct bg_behind *b, MPI_Offset *done)
{
    MPI_Offset short_by = 0;
    int rc = b->kept ? rio__capture_replay(b->kept, &short_by) : 0;
    *done = b->done - short_by;
    if (short_by)
        rio__stat_add(&b->fh->stats.bytes_read, -short_by);
    return rc;
}

static int behind_run(void *arg, MPI_Offset *done)
{
    struct bg_behind *b = arg;
    *done = 0;
    if (!b) {
        rio__err_detail("no memory to keep the call's outcome");
        return RIO_E_NOMEM;
    }
    return behind_make(b, done);
}

static void behind_release(void *arg)
{
    struct bg_behind *b = arg;
    if (b)
        rio__capture_free(b->kept);
    free(b);
}

/* The collective call at issue, its storage transfers kept (capture.c),
 * then left to the lane, which makes them while the program computes; the
 * request completes after the ranks agree on how that went.  Collective. */
static int behind_coll(rio_file *fh, const char *op, int err, int write, MPI_Offset pos,
                       const void *buf, MPI_Count count, MPI_Datatype type, struct rio_dtype *dt,
                       MPI_Offset nbytes, MPI_Request *request, struct rio_job **internal)
{
    /* the caller's buffer, which MPI keeps as it is until completion */
    const char *lo = NULL, *hi = NULL;
    MPI_Aint tlb = 0, text = 0, lb = 0, ext = 0;
    if (!err && nbytes > 0 && count > 0 &&
        MPI_Type_get_true_extent(type, &tlb, &text) == MPI_SUCCESS &&
        MPI_Type_get_extent(type, &lb, &ext) == MPI_SUCCESS && ext >= 0 && text >= 0) {
        lo = (const char *)buf + tlb;
        hi = lo + (MPI_Aint)(count - 1) * ext + text;
    }
    struct bg_behind *b = rio__calloc(1, sizeof *b);
    struct rio_store cap;
    int keep = b && !rio__capture_begin(fh, &cap, write, lo, hi), own;
    MPI_Offset done = 0;
    int agreed = coll_part(fh, fh->comm, op, err, write, pos, (void *)buf, count, type, dt,
                           nbytes, keep ? &cap : NULL, &own, &done);
    if (!own)
        count_access(&fh->stats, write, done);
    rio__dtype_put(dt);
    if (b) {
        *b = (struct bg_behind){.fh = fh, .done = done};
        b->kept = keep ? rio__capture_end(&cap) : NULL;
    }
    if (agreed) {
        /* failed on some rank, which every rank knows now: returned now,
         * as the blocking call's error, its kept transfers made first
         * (after the lane's), as the blocking call would have made them */
        char detail[RIO_ERR_DETAIL_MAX];
        rio__strcpy(detail, sizeof detail, rio__err_detail_peek());
        rio__async_lane_wait_transfers(fh);
        if (b)
            (void)behind_make(b, &done); /* the call's error stands */
        behind_release(b);
        rio__err_detail_clear();
        if (detail[0])
            rio__err_detail("%s", detail);
        return agreed;
    }
    return rio__async_submit_behind(fh, op, write, behind_run, behind_release, b, request,
                                    internal);
}

/* Issue a collective nonblocking call, or a split collective's begin
 * (request NULL, the job in *internal), on the file's lane: checked, its
 * position fixed now (the individual pointer advanced past everything it
 * asks for; the shared pointer taken, by every rank in order for an
 * ordered call), and queued.  An error of this rank's is not returned
 * here: the call still runs, so that every rank's call meets the others,
 * and the error becomes every rank's at completion.  Only a rank without
 * the memory to queue the call enters it at once, failed, and returns the
 * error (the others' completions carry it).  Collective. */
static int background_coll(rio_file *fh, const char *op, int write, enum where where,
                           MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype type,
                           MPI_Request *request, struct rio_job **internal)
{
    struct rio_dtype *dt = NULL;
    MPI_Offset nbytes = 0, pos = 0;
    int err = check_access(fh, write, where, offset, count, type, &dt, &nbytes);
    MPI_Offset n_etypes = err ? 0 : nbytes / fh->etype_size;
    if (where == AT) {
        pos = offset;
    } else if (where == IND) {
        pos = fh->fp_ind;
    } else if (where == SHARED) {
        if (!err)
            err = rio__shared_fetch_add(fh, n_etypes, &pos);
    } else {
        int oerr = ordered_position(fh, n_etypes, &pos);
        if (!err)
            err = oerr;
    }
    if (err) { /* kept in the job (its detail with it); nothing moves */
        rio__dtype_put(dt);
        dt = NULL;
        nbytes = 0;
    } else if (where == IND) {
        fh->fp_ind = pos + n_etypes;
    }
    if (!rio__async_coll_ok()) /* below MULTIPLE: the engine at issue */
        return behind_coll(fh, op, err, write, pos, buf, count, type, dt, nbytes, request,
                           internal);
    struct bg_coll call = {.fh = fh, .op = op, .err = err, .write = write, .pos = pos,
                           .nbytes = nbytes, .buf = (void *)buf, .count = count, .type = type,
                           .dt = dt};
    struct bg_coll *c = rio__malloc(sizeof *c);
    if (!c) { /* the other ranks' lanes will run the call: enter it here, failed */
        bg_coll_fail(&call, RIO_E_NOMEM);
        return rio__async_run_coll_now(fh, bg_coll_run, &call);
    }
    *c = call;
    int rc = rio__async_submit_coll(fh, op, write, bg_coll_run, bg_coll_release, bg_coll_fail, c,
                                    request, internal);
    if (rc)
        bg_coll_release(c);
    return rc;
}

static int greq_query(void *extra, MPI_Status *status)
{
    *status = *(MPI_Status *)extra;
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    free(extra);
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

/* May a collective call run in the background: on its file's lane
 * (thread mode), or, below MULTIPLE, leaving its storage transfers to the
 * lane (behind_coll: the engine, which the atomic mode and overlapping
 * views bypass, runs at issue)? */
static int coll_in_background(rio_file *fh)
{
    if (fh->drep)
        return 0;
    return rio__async_coll_ok() || (rio__async_behind_ok() && through_engine(fh));
}

static int nonblocking(rio_file *fh, const char *op, int write, int coll, enum where where,
                       MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype type,
                       MPI_Request *request)
{
    if (!request) {
        rio__err_detail("null request pointer");
        return rio__file_return(fh, RIO_E_ARG, op);
    }
    *request = MPI_REQUEST_NULL;
    if (!coll && !rio__file_check(fh) && !fh->drep && rio__async_mode() != RIO_ASYNC_NONE)
        return background(fh, op, write, where, offset, buf, count, type, request);
    if (coll && !rio__file_check(fh) && coll_in_background(fh))
        return rio__file_return(
            fh, background_coll(fh, op, write, where, offset, buf, count, type, request, NULL),
            op);
    MPI_Status *st = malloc(sizeof *st);
    if (!st)
        return rio__file_return(fh, RIO_E_NOMEM, op);
    memset(st, 0, sizeof *st);
    int code = data_access(fh, op, write, coll, where, offset, buf, count, type, st);
    if (code != MPI_SUCCESS) {
        free(st);
        return code;
    }
    if (MPI_Grequest_start(greq_query, greq_free, greq_cancel, st, request) != MPI_SUCCESS) {
        free(st);
        return rio__file_return(fh, RIO_E_NOMEM, op);
    }
    MPI_Grequest_complete(*request);
    return MPI_SUCCESS;
}

/* ---- split collectives ------------------------------------------------------- */

static int split_begin(rio_file *fh, const char *op, int write, enum where where,
                       MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype type)
{
    int err = rio__file_check(fh);
    if (err)
        return rio__file_return(fh, err, op);
    err = rio__agree(fh->comm, fh->split_active ? RIO_E_PENDING_SPLIT : 0);
    if (err)
        return rio__file_return(fh, err, op);
    memset(&fh->split_status, 0, sizeof fh->split_status);
    fh->split_job = NULL;
    if (coll_in_background(fh)) { /* in the background; the end waits */
        err = background_coll(fh, op, write, where, offset, buf, count, type, NULL,
                              &fh->split_job);
        if (err && !rio__async_coll_ok()) {
            /* below MULTIPLE the call's error is known at issue: the begin
             * returns it and the end again, as on the synchronous path */
            fh->split_job = NULL;
            fh->split_active = 1;
            fh->split_err = rio__file_return(fh, err, op);
            return fh->split_err;
        }
        fh->split_active = !err;
        return rio__file_return(fh, err, op);
    }
    int code = data_access(fh, op, write, 1, where, offset, buf, count, type, &fh->split_status);
    fh->split_active = 1;
    fh->split_err = code;
    return code;
}

static int split_end(rio_file *fh, const char *op, MPI_Status *status)
{
    int err = rio__file_check(fh);
    if (!err && !fh->split_active)
        err = RIO_E_NO_SPLIT;
    if (err)
        return rio__file_return(fh, err, op);
    fh->split_active = 0;
    if (fh->split_job) {
        MPI_Offset done = 0;
        err = rio__async_wait_job(fh->split_job, &done);
        fh->split_job = NULL;
        if (!err)
            set_status(status, done);
        return rio__file_return(fh, err, op);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = fh->split_status;
    return fh->split_err;
}

/* ---- the API ------------------------------------------------------------------- */

#define R 0
#define W 1

int rio_file_read_at(rio_file *fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_at", R, 0, AT, offset, buf, count, datatype, status);
}
int rio_file_read_at_all(rio_file *fh, MPI_Offset offset, void *buf, int count,
                         MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_at_all", R, 1, AT, offset, buf, count, datatype, status);
}
int rio_file_write_at(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                      MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_at", W, 0, AT, offset, buf, count, datatype, status);
}
int rio_file_write_at_all(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_at_all", W, 1, AT, offset, buf, count, datatype,
                       status);
}
int rio_file_iread_at(rio_file *fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_at", R, 0, AT, offset, buf, count, datatype, request);
}
int rio_file_iwrite_at(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_at", W, 0, AT, offset, buf, count, datatype, request);
}
int rio_file_iread_at_all(rio_file *fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_at_all", R, 1, AT, offset, buf, count, datatype,
                       request);
}
int rio_file_iwrite_at_all(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_at_all", W, 1, AT, offset, buf, count, datatype,
                       request);
}

int rio_file_read(rio_file *fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_read", R, 0, IND, 0, buf, count, datatype, status);
}
int rio_file_read_all(rio_file *fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_all", R, 1, IND, 0, buf, count, datatype, status);
}
int rio_file_write(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                   MPI_Status *status)
{
    return data_access(fh, "MPI_File_write", W, 0, IND, 0, buf, count, datatype, status);
}
int rio_file_write_all(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_all", W, 1, IND, 0, buf, count, datatype, status);
}
int rio_file_iread(rio_file *fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread", R, 0, IND, 0, buf, count, datatype, request);
}
int rio_file_iwrite(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite", W, 0, IND, 0, buf, count, datatype, request);
}
int rio_file_iread_all(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_all", R, 1, IND, 0, buf, count, datatype, request);
}
int rio_file_iwrite_all(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_all", W, 1, IND, 0, buf, count, datatype, request);
}

int rio_file_read_shared(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_shared", R, 0, SHARED, 0, buf, count, datatype, status);
}
int rio_file_write_shared(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_shared", W, 0, SHARED, 0, buf, count, datatype,
                       status);
}
int rio_file_iread_shared(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_shared", R, 0, SHARED, 0, buf, count, datatype,
                       request);
}
int rio_file_iwrite_shared(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_shared", W, 0, SHARED, 0, buf, count, datatype,
                       request);
}
int rio_file_read_ordered(rio_file *fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_ordered", R, 1, ORDERED, 0, buf, count, datatype,
                       status);
}
int rio_file_write_ordered(rio_file *fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_ordered", W, 1, ORDERED, 0, buf, count, datatype,
                       status);
}

int rio_file_read_at_all_begin(rio_file *fh, MPI_Offset offset, void *buf, int count,
                               MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_read_at_all_begin", R, AT, offset, buf, count, datatype);
}
int rio_file_read_at_all_end(rio_file *fh, void *buf, MPI_Status *status)
{
    return split_end(fh, "MPI_File_read_at_all_end", status);
}
int rio_file_write_at_all_begin(rio_file *fh, MPI_Offset offset, const void *buf, int count,
                                MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_write_at_all_begin", W, AT, offset, buf, count, datatype);
}
int rio_file_write_at_all_end(rio_file *fh, const void *buf, MPI_Status *status)
{
    return split_end(fh, "MPI_File_write_at_all_end", status);
}
int rio_file_read_all_begin(rio_file *fh, void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_read_all_begin", R, IND, 0, buf, count, datatype);
}
int rio_file_read_all_end(rio_file *fh, void *buf, MPI_Status *status)
{
    return split_end(fh, "MPI_File_read_all_end", status);
}
int rio_file_write_all_begin(rio_file *fh, const void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_write_all_begin", W, IND, 0, buf, count, datatype);
}
int rio_file_write_all_end(rio_file *fh, const void *buf, MPI_Status *status)
{
    return split_end(fh, "MPI_File_write_all_end", status);
}
int rio_file_read_ordered_begin(rio_file *fh, void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_read_ordered_begin", R, ORDERED, 0, buf, count, datatype);
}
int rio_file_read_ordered_end(rio_file *fh, void *buf, MPI_Status *status)
{
    return split_end(fh, "MPI_File_read_ordered_end", status);
}
int rio_file_write_ordered_begin(rio_file *fh, const void *buf, int count, MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_write_ordered_begin", W, ORDERED, 0, buf, count, datatype);
}
int rio_file_write_ordered_end(rio_file *fh, const void *buf, MPI_Status *status)
{
    return split_end(fh, "MPI_File_write_ordered_end", status);
}

/* ---- large-count variants ------------------------------------------------------ */
#if MPI_VERSION >= 4
int rio_file_read_at_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                       MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_at_c", R, 0, AT, offset, buf, count, datatype, status);
}
int rio_file_read_at_all_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_at_all_c", R, 1, AT, offset, buf, count, datatype,
                       status);
}
int rio_file_write_at_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_at_c", W, 0, AT, offset, buf, count, datatype, status);
}
int rio_file_write_at_all_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_at_all_c", W, 1, AT, offset, buf, count, datatype,
                       status);
}
int rio_file_iread_at_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_at_c", R, 0, AT, offset, buf, count, datatype, request);
}
int rio_file_iwrite_at_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_at_c", W, 0, AT, offset, buf, count, datatype,
                       request);
}
int rio_file_iread_at_all_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_at_all_c", R, 1, AT, offset, buf, count, datatype,
                       request);
}
int rio_file_iwrite_at_all_c(rio_file *fh, MPI_Offset offset, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_at_all_c", W, 1, AT, offset, buf, count, datatype,
                       request);
}
int rio_file_read_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_c", R, 0, IND, 0, buf, count, datatype, status);
}
int rio_file_read_all_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_all_c", R, 1, IND, 0, buf, count, datatype, status);
}
int rio_file_write_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_c", W, 0, IND, 0, buf, count, datatype, status);
}
int rio_file_write_all_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_all_c", W, 1, IND, 0, buf, count, datatype, status);
}
int rio_file_iread_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_c", R, 0, IND, 0, buf, count, datatype, request);
}
int rio_file_iwrite_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                      MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_c", W, 0, IND, 0, buf, count, datatype, request);
}
int rio_file_iread_all_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_all_c", R, 1, IND, 0, buf, count, datatype, request);
}
int rio_file_iwrite_all_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_all_c", W, 1, IND, 0, buf, count, datatype, request);
}
int rio_file_read_shared_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_shared_c", R, 0, SHARED, 0, buf, count, datatype,
                       status);
}
int rio_file_write_shared_c(rio_file *fh, const void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_shared_c", W, 0, SHARED, 0, buf, count, datatype,
                       status);
}
int rio_file_iread_shared_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iread_shared_c", R, 0, SHARED, 0, buf, count, datatype,
                       request);
}
int rio_file_iwrite_shared_c(rio_file *fh, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Request *request)
{
    return nonblocking(fh, "MPI_File_iwrite_shared_c", W, 0, SHARED, 0, buf, count, datatype,
                       request);
}
int rio_file_read_ordered_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return data_access(fh, "MPI_File_read_ordered_c", R, 1, ORDERED, 0, buf, count, datatype,
                       status);
}
int rio_file_write_ordered_c(rio_file *fh, const void *buf, MPI_Count count,
                             MPI_Datatype datatype, MPI_Status *status)
{
    return data_access(fh, "MPI_File_write_ordered_c", W, 1, ORDERED, 0, buf, count, datatype,
                       status);
}
int rio_file_read_at_all_begin_c(rio_file *fh, MPI_Offset offset, void *buf, MPI_Count count,
                                 MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_read_at_all_begin_c", R, AT, offset, buf, count, datatype);
}
int rio_file_write_at_all_begin_c(rio_file *fh, MPI_Offset offset, const void *buf,
                                  MPI_Count count, MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_write_at_all_begin_c", W, AT, offset, buf, count, datatype);
}
int rio_file_read_all_begin_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_read_all_begin_c", R, IND, 0, buf, count, datatype);
}
int rio_file_write_all_begin_c(rio_file *fh, const void *buf, MPI_Count count,
                               MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_write_all_begin_c", W, IND, 0, buf, count, datatype);
}
int rio_file_read_ordered_begin_c(rio_file *fh, void *buf, MPI_Count count, MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_read_ordered_begin_c", R, ORDERED, 0, buf, count, datatype);
}
int rio_file_write_ordered_begin_c(rio_file *fh, const void *buf, MPI_Count count,
                                   MPI_Datatype datatype)
{
    return split_begin(fh, "MPI_File_write_ordered_begin_c", W, ORDERED, 0, buf, count,
                       datatype);
}
#endif
