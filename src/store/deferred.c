/*
 * deferred.c — deferred open: a driver that wraps another and opens the
 * file only when it is first used.
 *
 * With romio_no_indep_rw=true the application promises collective access
 * only, so only aggregators ever touch storage.  Opening the file on every
 * rank is then wasted work that grows with the number of ranks (the Lustre
 * paper measured collective open at 30 times the write).  The file layer
 * opens for real on rank 0, which creates the file and reports errors at
 * open, and gives every other rank this wrapper: a rank that never makes a
 * storage request never opens the file.  The first request opens it (a
 * failure to open is that request's error), and from then on each
 * operation goes through the table the inner open left (a wrapper's own
 * per-file table, wrap.c).
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static const struct rio_store_ops deferred_views, deferred_own_views;

struct dfile {
    struct rio_store inner;
    const struct rio_store_ops *iops;
    char *path;
    int oflags;
    mode_t perm;
    int opened;
};

static struct dfile *df_of(struct rio_store *st)
{
    return st->priv;
}

/* The inner file, opened on first use; NULL with *rc set on failure. */
static struct rio_store *inner(struct rio_store *st, int *rc)
{
    struct dfile *df = df_of(st);
    *rc = 0;
    if (!df->opened) {
        df->inner.hints = st->hints;
        df->inner.stats = st->stats;
        *rc = df->iops->open(&df->inner, df->path, df->oflags & ~(O_CREAT | O_EXCL), df->perm,
                             st->hints);
        if (*rc)
            return NULL;
        if (!df->inner.ops) /* a wrapper sets a table of its own */
            df->inner.ops = df->iops;
        df->opened = 1;
    }
    return &df->inner;
}

/* The driver at the bottom of o's wrappers for path (NULL if one is not in
 * this build): a wrapper's file offers an optional operation exactly when
 * that driver does (wrap.c), which is known before anything is opened. */
static const struct rio_store_ops *base_of(const struct rio_store_ops *o, const char *path)
{
    while (o && o->wraps)
        o = rio__store_find(path, &path);
    return o;
}

/* 0: no datatype requests; 1: the base driver takes them; 2: and they are
 * its own datatype I/O (RIO_STORE_CAP_OWN_VIEWS). */
static int takes_views(const struct rio_store_ops *o, const char *path)
{
    o = base_of(o, path);
    if (!o || !o->write_view || !o->read_view)
        return 0;
    return o->caps & RIO_STORE_CAP_OWN_VIEWS ? 2 : 1;
}

int rio__store_open_deferred(struct rio_store *st, const char *name, int oflags, mode_t perm,
                             struct rio_hints *hints)
{
    const char *path;
    const struct rio_store_ops *iops = rio__store_begin(st, name, hints, &path);
    struct dfile *df = NULL;
    if (!iops)
        return RIO_E_DRIVER;
    df = rio__calloc(1, sizeof *df);
    if (df)
        df->path = rio__strdup(path);
    if (!df || !df->path) {
        if (df)
            free(df);
        return RIO_E_NOMEM;
    }
    df->iops = iops;
    df->oflags = oflags;
    df->perm = perm;
    st->priv = df;
    /* datatype requests only where the inner driver takes them, so that
     * the layer above chooses as it would for the inner driver */
    int views = takes_views(iops, path);
    st->ops = views == 2 ? &deferred_own_views : views ? &deferred_views : &rio__store_deferred;
    return 0;
}

int rio__store_deferred_opened(struct rio_store *st)
{
    return (st->ops != &rio__store_deferred && st->ops != &deferred_views &&
            st->ops != &deferred_own_views) ||
           df_of(st)->opened;
}

static int d_close(struct rio_store *st)
{
    struct dfile *df = df_of(st);
    int rc = df->opened ? df->inner.ops->close(&df->inner) : 0;
    free(df->path);
    free(df);
    st->priv = NULL;
    return rc;
}

static int d_remove(const char *path, const struct rio_hints *hints)
{
    (void)path;
    (void)hints;
    return RIO_E_DRIVER; /* never reached: removal goes to the named driver */
}

/* Each operation opens on first use and forwards; where the inner driver
 * lacks an operation, the forward does what the layer above would. */
#define FWD(call)                               \
    int rc;                                     \
    struct rio_store *in = inner(st, &rc);      \
    if (!in)                                    \
        return rc;                              \
    return call

static int d_get_size(struct rio_store *st, MPI_Offset *size)
{
    FWD(in->ops->get_size(in, size));
}
static int d_set_size(struct rio_store *st, MPI_Offset size)
{
    FWD(in->ops->set_size(in, size));
}
static int d_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    FWD(in->ops->allocate ? in->ops->allocate(in, off, len) : in->ops->set_size(in, off + len));
}
static int d_sync(struct rio_store *st)
{
    FWD(in->ops->sync ? in->ops->sync(in) : 0);
}
static ssize_t d_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    FWD(in->ops->pread(in, buf, len, off));
}
static ssize_t d_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    FWD(in->ops->pwrite(in, buf, len, off));
}
static ssize_t d_preadv(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    FWD(in->ops->preadv ? in->ops->preadv(in, iov, n, off)
                        : in->ops->pread(in, iov[0].iov_base, iov[0].iov_len, off));
}
static ssize_t d_pwritev(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    FWD(in->ops->pwritev ? in->ops->pwritev(in, iov, n, off)
                         : in->ops->pwrite(in, iov[0].iov_base, iov[0].iov_len, off));
}
/* List I/O of a driver without list operations: one call per region
 * (short transfers become -EINTR, which the caller's helper retries). */
static int by_region(struct rio_store *in, const struct rio_store_ops *o, int wr,
                     const struct rio_region *file, const struct iovec *mem, int n,
                     MPI_Offset *done)
{
    MPI_Offset got = 0;
    for (int i = 0; i < n; i++) {
        ssize_t r = wr ? o->pwrite(in, mem[i].iov_base, (size_t)file[i].len, file[i].off)
                       : o->pread(in, mem[i].iov_base, (size_t)file[i].len, file[i].off);
        if (r < 0)
            return (int)r;
        got += r;
        if (r < file[i].len) {
            if (wr)
                return -EINTR;
            break;
        }
    }
    if (done)
        *done = got;
    return 0;
}
static int d_read_list(struct rio_store *st, const struct rio_region *file,
                       const struct iovec *mem, int n, MPI_Offset *done)
{
    FWD(in->ops->read_list ? in->ops->read_list(in, file, mem, n, done)
                           : by_region(in, in->ops, 0, file, mem, n, done));
}
static int d_write_list(struct rio_store *st, const struct rio_region *file,
                        const struct iovec *mem, int n)
{
    FWD(in->ops->write_list ? in->ops->write_list(in, file, mem, n)
                            : by_region(in, in->ops, 1, file, mem, n, NULL));
}
static int d_layout(struct rio_store *st, struct rio_layout *out)
{
    /* A layout query opens nothing: before the first transfer the striping
     * hints serve.  The file layer never asks here anyway: every rank plans
     * with the layout rank 0 read, and rank 0 never defers its open. */
    if (!df_of(st)->opened)
        return -EOPNOTSUPP;
    FWD(in->ops->layout ? in->ops->layout(in, out) : -EOPNOTSUPP);
}
static int d_servers(struct rio_store *st, long long first, int n, int *out)
{
    /* asked by rank 0 only, which never defers its open */
    FWD(in->ops->servers ? in->ops->servers(in, first, n, out) : -EOPNOTSUPP);
}
static int d_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    FWD(in->ops->lock ? in->ops->lock(in, off, len, exclusive) : 0);
}
static int d_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    FWD(in->ops->unlock ? in->ops->unlock(in, off, len) : 0);
}
static int d_is_direct(struct rio_store *st)
{
    struct dfile *df = df_of(st);
    return df->opened && df->inner.ops->is_direct ? df->inner.ops->is_direct(&df->inner) : 0;
}
static unsigned d_notes(struct rio_store *st)
{
    struct dfile *df = df_of(st);
    return df->opened && df->inner.ops->notes ? df->inner.ops->notes(&df->inner) : 0;
}
static int d_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    FWD(in->ops->prefetch ? in->ops->prefetch(in, reg, n) : 0);
}

static int d_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                        MPI_Offset pos, const void *buf, MPI_Offset len)
{
    FWD(in->ops->write_view(in, ft, disp, pos, buf, len));
}
static int d_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                       MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    FWD(in->ops->read_view(in, ft, disp, pos, buf, len, done));
}

/* open is NULL: rio__store_open_deferred makes these files */
#define DEFERRED_OPS                                                   \
    .name = "deferred", .version = RIO_STORE_OPS_VERSION, .open = NULL,                   \
    .close = d_close, .remove = d_remove, .get_size = d_get_size,      \
    .set_size = d_set_size, .allocate = d_allocate, .sync = d_sync,    \
    .pread = d_pread, .pwrite = d_pwrite, .preadv = d_preadv,          \
    .pwritev = d_pwritev, .read_list = d_read_list,                    \
    .write_list = d_write_list, .lock = d_lock, .unlock = d_unlock,    \
    .layout = d_layout, .servers = d_servers, .is_direct = d_is_direct, .notes = d_notes,    \
    .prefetch = d_prefetch

const struct rio_store_ops rio__store_deferred = {DEFERRED_OPS};
static const struct rio_store_ops deferred_views = {DEFERRED_OPS, .write_view = d_write_view,
                                                    .read_view = d_read_view};
static const struct rio_store_ops deferred_own_views = {
    DEFERRED_OPS, .write_view = d_write_view, .read_view = d_read_view,
    .caps = RIO_STORE_CAP_OWN_VIEWS};
