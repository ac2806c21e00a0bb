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
 * failure to open is that request's error).
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

static const struct rio_store_ops deferred_views;

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
        df->inner.ops = df->iops;
        df->opened = 1;
    }
    return &df->inner;
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
    st->ops = iops->write_view && iops->read_view ? &deferred_views : &rio__store_deferred;
    return 0;
}

int rio__store_deferred_opened(struct rio_store *st)
{
    return (st->ops != &rio__store_deferred && st->ops != &deferred_views) ||
           df_of(st)->opened;
}

static int d_close(struct rio_store *st)
{
    struct dfile *df = df_of(st);
    int rc = df->opened ? df->iops->close(&df->inner) : 0;
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
    FWD(df_of(st)->iops->get_size(in, size));
}
static int d_set_size(struct rio_store *st, MPI_Offset size)
{
    FWD(df_of(st)->iops->set_size(in, size));
}
static int d_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    FWD(df_of(st)->iops->allocate ? df_of(st)->iops->allocate(in, off, len)
                                  : df_of(st)->iops->set_size(in, off + len));
}
static int d_sync(struct rio_store *st)
{
    FWD(df_of(st)->iops->sync ? df_of(st)->iops->sync(in) : 0);
}
static ssize_t d_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    FWD(df_of(st)->iops->pread(in, buf, len, off));
}
static ssize_t d_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    FWD(df_of(st)->iops->pwrite(in, buf, len, off));
}
static ssize_t d_preadv(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    FWD(df_of(st)->iops->preadv ? df_of(st)->iops->preadv(in, iov, n, off)
                                : df_of(st)->iops->pread(in, iov[0].iov_base, iov[0].iov_len, off));
}
static ssize_t d_pwritev(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    FWD(df_of(st)->iops->pwritev
            ? df_of(st)->iops->pwritev(in, iov, n, off)
            : df_of(st)->iops->pwrite(in, iov[0].iov_base, iov[0].iov_len, off));
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
    const struct rio_store_ops *o = df_of(st)->iops;
    FWD(o->read_list ? o->read_list(in, file, mem, n, done)
                     : by_region(in, o, 0, file, mem, n, done));
}
static int d_write_list(struct rio_store *st, const struct rio_region *file,
                        const struct iovec *mem, int n)
{
    const struct rio_store_ops *o = df_of(st)->iops;
    FWD(o->write_list ? o->write_list(in, file, mem, n) : by_region(in, o, 1, file, mem, n, NULL));
}
static int d_layout(struct rio_store *st, struct rio_layout *out)
{
    const struct rio_store_ops *o = df_of(st)->iops;
    if (!o->layout)
        return -EOPNOTSUPP; /* the striping hints serve */
    FWD(o->layout(in, out));
}
static int d_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    FWD(df_of(st)->iops->lock ? df_of(st)->iops->lock(in, off, len, exclusive) : 0);
}
static int d_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    FWD(df_of(st)->iops->unlock ? df_of(st)->iops->unlock(in, off, len) : 0);
}
static int d_is_direct(struct rio_store *st)
{
    struct dfile *df = df_of(st);
    return df->opened && df->iops->is_direct ? df->iops->is_direct(&df->inner) : 0;
}
static unsigned d_notes(struct rio_store *st)
{
    struct dfile *df = df_of(st);
    return df->opened && df->iops->notes ? df->iops->notes(&df->inner) : 0;
}
static int d_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    FWD(df_of(st)->iops->prefetch ? df_of(st)->iops->prefetch(in, reg, n) : 0);
}

static int d_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                        MPI_Offset pos, const void *buf, MPI_Offset len)
{
    FWD(df_of(st)->iops->write_view(in, ft, disp, pos, buf, len));
}
static int d_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                       MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    FWD(df_of(st)->iops->read_view(in, ft, disp, pos, buf, len, done));
}

/* open is NULL: rio__store_open_deferred makes these files */
#define DEFERRED_OPS                                                   \
    .name = "deferred", .version = 1, .open = NULL,                    \
    .close = d_close, .remove = d_remove, .get_size = d_get_size,      \
    .set_size = d_set_size, .allocate = d_allocate, .sync = d_sync,    \
    .pread = d_pread, .pwrite = d_pwrite, .preadv = d_preadv,          \
    .pwritev = d_pwritev, .read_list = d_read_list,                    \
    .write_list = d_write_list, .lock = d_lock, .unlock = d_unlock,    \
    .layout = d_layout, .is_direct = d_is_direct, .notes = d_notes,    \
    .prefetch = d_prefetch

const struct rio_store_ops rio__store_deferred = {DEFERRED_OPS};
static const struct rio_store_ops deferred_views = {DEFERRED_OPS, .write_view = d_write_view,
                                                    .read_view = d_read_view};
