/*
 * emu.c — the storage driver of the emulated striped storage ("emu:name").
 *
 * A file is a name in a resonio-emud service, striped over its targets.
 * The service directory comes from the hint resonio_emu_dir, else the
 * environment variable RESONIO_EMU_DIR.  Creating a file takes the layout
 * from the striping hints (striping_unit, striping_factor; the service's
 * defaults where unset: 1 MiB over every target); opening an existing
 * file reads its layout back from the service, and layout() reports it,
 * so the stripe-aware strategies see the real striping.
 *
 * Every operation maps to the client library (src/emu/client.h), which
 * splits logical regions by the layout into one request per target and
 * sends them all before collecting the replies: contiguous and vectored
 * transfers and list I/O go as offset lists, datatype I/O (write_view /
 * read_view) as the filetype's dataloop, expanded at the servers.  A
 * filetype the wire cannot carry (too deep, too large) goes as lists.
 * Byte-range locks are kept by target 0 of the service.
 *
 * Each open file has its own connections, so ranks (and files) are
 * distinct clients of the service.  A service that is not running makes
 * open fail with -ECONNREFUSED and a detail naming the directory, at once.
 */
#include "store.h"
#include "../dtype/dtype.h"
#include "../emu/client.h"
#include "../emu/dlwire.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

struct efile {
    struct rio_emu_client *cl;
    struct rio_emu_layout lay;
};

/* resonio_emu_dir: the service's directory, else RESONIO_EMU_DIR. */
struct emu_settings {
    char *dir; /* owned */
};
static const struct rio_setting emu_keys[] = {
    {"resonio_emu_dir", RIO_SET_STR, offsetof(struct emu_settings, dir), NULL,
     RIO_SET_OPEN_ONLY, "directory of the resonio-emud service (else RESONIO_EMU_DIR)", NULL,
     NULL},
};
static const struct rio_settings_owner emu_owner =
    RIO_SETTINGS_OWNER("emu", struct emu_settings, emu_keys);

static struct efile *ef_of(struct rio_store *st)
{
    return st->priv;
}

static int connect_service(const struct rio_hints *hints, struct rio_emu_client **cl)
{
    const struct emu_settings *s = rio__settings_get(hints, &emu_owner);
    const char *dir = s->dir ? s->dir : getenv("RESONIO_EMU_DIR");
    if (!dir || !*dir) {
        rio__err_detail("no emu service directory: set the hint resonio_emu_dir or "
                        "RESONIO_EMU_DIR");
        return -EINVAL;
    }
    int rc = rio__emu_connect(dir, cl);
    /* a missing socket or emud.conf means "not running", not "no such file" */
    return rc == -ENOENT ? -ECONNREFUSED : rc;
}

static int e_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                  const struct rio_hints *hints)
{
    struct efile *ef = rio__calloc(1, sizeof *ef);
    int rc;
    if (!ef)
        return RIO_E_NOMEM;
    if ((rc = connect_service(hints, &ef->cl)))
        goto out;
    if (oflags & O_CREAT) {
        const struct rio_store_settings *lay = rio__store_settings(hints);
        int64_t unit = lay->striping_unit > 0 ? lay->striping_unit : 0;
        int count = lay->striping_factor > 0 ? lay->striping_factor : 0;
        rc = rio__emu_create(ef->cl, path, unit, count, !!(oflags & O_EXCL), &ef->lay);
        if (rc == -EEXIST)
            rio__err_detail("emu file '%s' exists", path);
    } else {
        rc = rio__emu_lookup(ef->cl, path, &ef->lay);
        if (rc == -ENOENT)
            rio__err_detail("no emu file '%s' in the service", path);
    }
    if (!rc && (oflags & O_TRUNC))
        rc = rio__emu_set_size(ef->cl, &ef->lay, 0);
out:
    if (rc) {
        rio__emu_disconnect(ef->cl);
        free(ef);
        return rc;
    }
    st->priv = ef;
    return 0;
}

static int e_close(struct rio_store *st)
{
    struct efile *ef = ef_of(st);
    rio__emu_disconnect(ef->cl);
    free(ef);
    st->priv = NULL;
    return 0;
}

static int e_remove(const char *path, const struct rio_hints *hints)
{
    struct rio_emu_client *cl = NULL;
    int rc = connect_service(hints, &cl);
    if (!rc)
        rc = rio__emu_remove(cl, path);
    rio__emu_disconnect(cl);
    return rc;
}

static int e_get_size(struct rio_store *st, MPI_Offset *size)
{
    int64_t z = 0;
    int rc = rio__emu_get_size(ef_of(st)->cl, &ef_of(st)->lay, &z);
    *size = z;
    return rc;
}

static int e_set_size(struct rio_store *st, MPI_Offset size)
{
    return rio__emu_set_size(ef_of(st)->cl, &ef_of(st)->lay, size);
}

static int e_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    MPI_Offset size;
    int rc = e_get_size(st, &size);
    if (!rc && off + len > size)
        rc = e_set_size(st, off + len);
    return rc;
}

static int e_sync(struct rio_store *st)
{
    return rio__emu_sync(ef_of(st)->cl, &ef_of(st)->lay);
}

/* ---- transfers ----------------------------------------------------------- */

/* Region generators for rio__emu_rw. */
struct regs {
    const struct rio_region *r;
    int n, i;
};

static int next_reg(void *arg, int64_t *off, int64_t *len)
{
    struct regs *g = arg;
    if (g->i >= g->n)
        return 0;
    *off = g->r[g->i].off;
    *len = g->r[g->i].len;
    g->i++;
    return 1;
}

static ssize_t xfer(struct rio_store *st, int wr, const struct iovec *iov, int n, MPI_Offset off)
{
    MPI_Offset total = 0;
    int64_t done = 0;
    for (int i = 0; i < n; i++)
        total += (MPI_Offset)iov[i].iov_len;
    if (!total)
        return 0;
    struct rio_region r = {off, total};
    struct regs g = {&r, 1, 0};
    int rc = rio__emu_rw(ef_of(st)->cl, &ef_of(st)->lay, wr, next_reg, &g, NULL, iov, n, &done);
    return rc ? rc : (ssize_t)done;
}

static ssize_t e_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    struct iovec v = {buf, len};
    return xfer(st, 0, &v, 1, off);
}

static ssize_t e_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    struct iovec v = {(void *)buf, len};
    return xfer(st, 1, &v, 1, off);
}

static ssize_t e_preadv(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    return xfer(st, 0, iov, n, off);
}

static ssize_t e_pwritev(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    return xfer(st, 1, iov, n, off);
}

static int e_read_list(struct rio_store *st, const struct rio_region *file,
                       const struct iovec *mem, int n, MPI_Offset *done)
{
    struct regs g = {file, n, 0};
    int64_t got = 0;
    int rc = rio__emu_rw(ef_of(st)->cl, &ef_of(st)->lay, 0, next_reg, &g, NULL, mem, n, &got);
    *done = got;
    return rc;
}

static int e_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    struct regs g = {reg, n, 0};
    return rio__emu_prefetch(ef_of(st)->cl, &ef_of(st)->lay, next_reg, &g);
}

static int e_write_list(struct rio_store *st, const struct rio_region *file,
                        const struct iovec *mem, int n)
{
    struct regs g = {file, n, 0};
    return rio__emu_rw(ef_of(st)->cl, &ef_of(st)->lay, 1, next_reg, &g, NULL, mem, n, NULL);
}

/* The regions of a view, from its dtype iterator. */
struct vregs {
    struct rio_dtype_iter it;
    MPI_Offset disp, left;
};

static int next_view(void *arg, int64_t *off, int64_t *len)
{
    struct vregs *g = arg;
    MPI_Offset o, l;
    if (g->left <= 0 || !rio__dtype_iter_next(&g->it, g->left, &o, &l))
        return 0;
    g->left -= l;
    *off = g->disp + o;
    *len = l;
    return 1;
}

static int view_rw(struct rio_store *st, int wr, const struct rio_dtype *ft, MPI_Offset disp,
                   MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    struct efile *ef = ef_of(st);
    struct vregs g;
    struct iovec v = {buf, (size_t)len};
    unsigned char *dl = NULL;
    size_t dllen = 0;
    int64_t got = 0;
    int rc = rio__dtype_iter_init(&g.it, ft, -1, pos);
    if (rc)
        return rc;
    g.disp = disp;
    g.left = len;
    /* a filetype the wire cannot carry goes as offset lists */
    int shipped = !rio__emu_dl_encode(rio__dtype_dloop(ft), rio__dtype_info(ft)->extent, &dl,
                                      &dllen) &&
                  dllen <= RIO_EMU_MAX_DL_BYTES;
    if (!shipped)
        rio__err_detail("%s", ""); /* why it could not ship is not an error here */
    struct rio_emu_view view = {dl, dllen, disp, pos};
    rc = rio__emu_rw(ef->cl, &ef->lay, wr, next_view, &g, shipped ? &view : NULL, &v, 1, &got);
    rio__dtype_iter_free(&g.it);
    free(dl);
    if (done)
        *done = got;
    return rc;
}

static int e_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                        MPI_Offset pos, const void *buf, MPI_Offset len)
{
    return view_rw(st, 1, ft, disp, pos, (void *)buf, len, NULL);
}

static int e_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                       MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    return view_rw(st, 0, ft, disp, pos, buf, len, done);
}

/* ---- locks and layout ------------------------------------------------------- */

static int e_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    if (len < 0)
        return RIO_E_ARG;
    return rio__emu_lock(ef_of(st)->cl, &ef_of(st)->lay, off, len, exclusive);
}

static int e_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    if (len < 0)
        return RIO_E_ARG;
    return rio__emu_unlock(ef_of(st)->cl, &ef_of(st)->lay, off, len);
}

static int e_layout(struct rio_store *st, struct rio_layout *out)
{
    out->unit = ef_of(st)->lay.unit;
    out->count = (int)ef_of(st)->lay.count;
    out->known = 1;
    return 0;
}

const struct rio_store_ops rio__store_emu = {
    .name = "emu",
    .version = RIO_STORE_OPS_VERSION,
    .open = e_open,
    .close = e_close,
    .remove = e_remove,
    .get_size = e_get_size,
    .set_size = e_set_size,
    .allocate = e_allocate,
    .sync = e_sync,
    .pread = e_pread,
    .pwrite = e_pwrite,
    .preadv = e_preadv,
    .pwritev = e_pwritev,
    .read_list = e_read_list,
    .write_list = e_write_list,
    .lock = e_lock,
    .unlock = e_unlock,
    .layout = e_layout,
    .is_direct = NULL,
    .notes = NULL,
    .prefetch = e_prefetch,
    .write_view = e_write_view,
    .read_view = e_read_view,
    .settings = &emu_owner,
};
