/*
 * wrap.c — the pass-through layer under every wrapping driver.
 *
 * A wrapper (fault:, delay:) changes a few operations of whatever driver
 * it is put over and must leave the rest exactly as that driver does them.
 * Forwarding each operation by hand in each wrapper tied both to the posix
 * driver; here the forwarding is written once.  At open the wrapper hands
 * its ops table to rio__store_wrap_open, which opens the inner driver and
 * builds the file's own table member by member:
 *
 *   - an optional operation the inner driver lacks stays NULL, so the
 *     layer above falls back exactly as it would for the inner driver
 *     (and a wrapper's override of it is never called with nothing
 *     beneath);
 *   - else the wrapper's operation where it gives one;
 *   - else a forwarder that calls the inner file's operation.
 *
 * The table lives in the file's state (struct rio_store_wrap), so two
 * files of one wrapper over different drivers each get the right one.
 * The inner driver is named after the wrapper's prefix ("fault:emu:x");
 * with no known prefix it is posix, which keeps "fault:/path" as it was.
 */
#include "store.h"

#include <stdlib.h>
#include <string.h>

static struct rio_store *in_of(struct rio_store *st)
{
    return &((struct rio_store_wrap *)st->priv)->inner;
}

struct rio_store *rio__store_wrap_inner(struct rio_store *st)
{
    return in_of(st);
}

/* ---- forwarders: the inner file's own table does the work -------------- */

static int fwd_close(struct rio_store *st)
{
    struct rio_store *in = in_of(st);
    int rc = in->ops->close(in);
    free(st->priv);
    st->priv = NULL;
    return rc;
}
static int fwd_get_size(struct rio_store *st, MPI_Offset *size)
{
    struct rio_store *in = in_of(st);
    return in->ops->get_size(in, size);
}
static int fwd_set_size(struct rio_store *st, MPI_Offset size)
{
    struct rio_store *in = in_of(st);
    return in->ops->set_size(in, size);
}
static int fwd_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct rio_store *in = in_of(st);
    return in->ops->allocate(in, off, len);
}
static int fwd_sync(struct rio_store *st)
{
    struct rio_store *in = in_of(st);
    return in->ops->sync(in);
}
static ssize_t fwd_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    struct rio_store *in = in_of(st);
    return in->ops->pread(in, buf, len, off);
}
static ssize_t fwd_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    struct rio_store *in = in_of(st);
    return in->ops->pwrite(in, buf, len, off);
}
static ssize_t fwd_preadv(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    struct rio_store *in = in_of(st);
    return in->ops->preadv(in, iov, n, off);
}
static ssize_t fwd_pwritev(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    struct rio_store *in = in_of(st);
    return in->ops->pwritev(in, iov, n, off);
}
static int fwd_read_list(struct rio_store *st, const struct rio_region *file,
                         const struct iovec *mem, int n, MPI_Offset *done)
{
    struct rio_store *in = in_of(st);
    return in->ops->read_list(in, file, mem, n, done);
}
static int fwd_write_list(struct rio_store *st, const struct rio_region *file,
                          const struct iovec *mem, int n)
{
    struct rio_store *in = in_of(st);
    return in->ops->write_list(in, file, mem, n);
}
static int fwd_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    struct rio_store *in = in_of(st);
    return in->ops->lock(in, off, len, exclusive);
}
static int fwd_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct rio_store *in = in_of(st);
    return in->ops->unlock(in, off, len);
}
static int fwd_layout(struct rio_store *st, struct rio_layout *out)
{
    struct rio_store *in = in_of(st);
    return in->ops->layout(in, out);
}
static int fwd_servers(struct rio_store *st, long long first, int n, int *out)
{
    struct rio_store *in = in_of(st);
    return in->ops->servers(in, first, n, out);
}
static int fwd_is_direct(struct rio_store *st)
{
    struct rio_store *in = in_of(st);
    return in->ops->is_direct(in);
}
static unsigned fwd_notes(struct rio_store *st)
{
    struct rio_store *in = in_of(st);
    return in->ops->notes(in);
}
static int fwd_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    struct rio_store *in = in_of(st);
    return in->ops->prefetch(in, reg, n);
}
static int fwd_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                          MPI_Offset pos, const void *buf, MPI_Offset len)
{
    struct rio_store *in = in_of(st);
    return in->ops->write_view(in, ft, disp, pos, buf, len);
}
static int fwd_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                         MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    struct rio_store *in = in_of(st);
    return in->ops->read_view(in, ft, disp, pos, buf, len, done);
}

int rio__store_wrap_remove(const char *path, const struct rio_hints *hints)
{
    /* the lookup, the table check and a further wrapper's own fallback
     * are rio__store_remove's */
    return rio__store_remove(path, hints);
}

/* A member the inner driver must have (checked): the wrapper's or a forwarder. */
#define MUST(m) t->m = wops->m ? wops->m : fwd_##m
/* An optional member: absent when the inner driver lacks it. */
#define MAY(m) t->m = !iops->m ? NULL : wops->m ? wops->m : fwd_##m

int rio__store_wrap_open(struct rio_store *st, struct rio_store_wrap *w,
                         const struct rio_store_ops *wops, const struct rio_store_ops *iops,
                         const char *path, int oflags, mode_t perm,
                         const struct rio_hints *hints)
{
    const char *ipath = path;
    if (!iops) {
        iops = rio__store_find(path, &ipath);
        if (!iops) {
            rio__err_detail("prefix of '%s' names a driver this build does not have", path);
            return RIO_E_DRIVER;
        }
    }
    int rc = rio__store_ops_check(iops);
    if (rc)
        return rc;
    memset(&w->inner, 0, sizeof w->inner); /* ops NULL: the inner open may set its own */
    w->inner.hints = st->hints;
    rc = iops->open(&w->inner, ipath, oflags, perm, hints);
    if (rc)
        return rc;
    if (!w->inner.ops)
        w->inner.ops = iops;
    /* the inner file's table, not iops: a wrapper over a wrapper forwards
     * to what that file really offers */
    iops = w->inner.ops;

    struct rio_store_ops *t = &w->ops;
    *t = (struct rio_store_ops){.name = wops->name, .version = wops->version,
                                .open = wops->open, .wraps = 1};
    t->remove = wops->remove ? wops->remove : rio__store_wrap_remove;
    MUST(close);
    MUST(get_size);
    MUST(set_size);
    MAY(allocate);
    MUST(sync);
    MUST(pread);
    MUST(pwrite);
    MAY(preadv);
    MAY(pwritev);
    MAY(read_list);
    MAY(write_list);
    MAY(lock);
    MAY(unlock);
    MAY(layout);
    MAY(servers);
    MAY(is_direct);
    MAY(notes);
    MAY(prefetch);
    MAY(write_view);
    MAY(read_view);
    /* what the inner driver promises of its views holds for the wrapped
     * file, which forwards them; staged transfers would multiply the calls
     * a wrapper counts or delays */
    t->caps = iops->caps & (t->write_view && t->read_view ? ~0u : ~RIO_STORE_CAP_OWN_VIEWS) &
              ~RIO_STORE_CAP_PAGE_CACHE;
    st->priv = w;
    st->ops = t;
    return 0;
}
