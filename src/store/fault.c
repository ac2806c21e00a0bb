/*
 * fault.c — a driver that wraps another and fails on request, in the
 * manner of SQLite's test VFS.  "fault:NAME" wraps the posix driver,
 * "fault:emu:NAME" the emu driver, and so on (wrap.c): every operation
 * not listed below is forwarded unchanged.
 *
 * The spec comes from the hint resonio_fault (this driver's key), else
 * the environment variable RESONIO_FAULT; neither means a plain
 * pass-through.  It is a
 * comma-separated list of key=value:
 *
 *   op=any|read|write|sync|open|size|lock   class of calls counted (any)
 *   n=N        the N-th counted call fails (1)
 *   err=EIO|ENOSPC|EINTR|SHORT              how it fails (EIO)
 *   every=1    every counted call from the N-th on fails (a dead disk)
 *
 * Classes: read = pread, preadv, read_list, read_view; write = pwrite,
 * pwritev, write_list, write_view; size = get_size, set_size, allocate; sync; lock = lock,
 * unlock; open = the open itself (so only n=1 can hit it).  remove and
 * close are never failed.  The counter lives in the open file.
 *
 * EIO and ENOSPC make the call return -errno and do nothing.  EINTR and
 * SHORT model transient trouble that the full helpers must absorb, so they
 * count and hit data transfers only: EINTR returns -EINTR, SHORT moves
 * half the bytes.  A list call, being all-or-error, models SHORT as "the
 * first half of the regions moved, then -EINTR"; a datatype call as
 * "nothing moved, -EINTR".  every=1 with EINTR would
 * never let a retry succeed and is refused as a spec.
 */
#include "store.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define ERR_SHORT (-1) /* spec.err value for SHORT */
#define IOV_BATCH 1024

enum fclass { FC_ANY, FC_READ, FC_WRITE, FC_SYNC, FC_OPEN, FC_SIZE, FC_LOCK };

struct fspec {
    int on;
    enum fclass cls;
    long n;
    int err;  /* positive errno or ERR_SHORT */
    int every;
};

struct ffile {
    struct rio_store_wrap w; /* first: wrap.c's view of this state */
    struct fspec spec;
    atomic_long count;
};

/* resonio_fault: the spec, else RESONIO_FAULT; read at open. */
struct fault_settings {
    char *spec; /* owned */
};
static const struct rio_setting fault_keys[] = {
    {"resonio_fault", RIO_SET_STR, offsetof(struct fault_settings, spec), NULL,
     RIO_SET_OPEN_ONLY, "what the fault: driver fails (op=,n=,err=,every=; else RESONIO_FAULT)",
     NULL, NULL},
};
static const struct rio_settings_owner fault_owner =
    RIO_SETTINGS_OWNER("fault", struct fault_settings, fault_keys);

static const char *const class_names[] = {"any", "read", "write", "sync", "open", "size", "lock"};

static int parse_spec(const char *text, struct fspec *sp)
{
    char *copy = NULL, *save = NULL, *tok;
    int rc = 0;

    *sp = (struct fspec){0, FC_ANY, 1, EIO, 0};
    if (!text || !*text || !strcmp(text, "none") || !strcmp(text, "off"))
        return 0;
    copy = rio__strdup(text);
    if (!copy)
        return RIO_E_NOMEM;
    sp->on = 1;
    for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '='), *end;
        if (!eq)
            goto bad;
        *eq = 0;
        const char *key = tok, *val = eq + 1;
        if (!strcmp(key, "op")) {
            size_t i;
            for (i = 0; i < sizeof class_names / sizeof class_names[0]; i++)
                if (!strcmp(val, class_names[i]))
                    break;
            if (i == sizeof class_names / sizeof class_names[0])
                goto bad;
            sp->cls = (enum fclass)i;
        } else if (!strcmp(key, "n")) {
            sp->n = strtol(val, &end, 10);
            if (*end || sp->n < 1)
                goto bad;
        } else if (!strcmp(key, "err")) {
            if (!strcmp(val, "EIO"))
                sp->err = EIO;
            else if (!strcmp(val, "ENOSPC"))
                sp->err = ENOSPC;
            else if (!strcmp(val, "EINTR"))
                sp->err = EINTR;
            else if (!strcmp(val, "SHORT"))
                sp->err = ERR_SHORT;
            else
                goto bad;
        } else if (!strcmp(key, "every")) {
            sp->every = (int)strtol(val, &end, 10);
            if (*end)
                goto bad;
        } else {
            goto bad;
        }
    }
    if (sp->every && sp->err == EINTR)
        goto bad;
    goto out;
bad:
    rio__err_detail("bad fault spec '%s' (want op=...,n=N,err=EIO|ENOSPC|EINTR|SHORT[,every=1])",
                    text);
    rc = RIO_E_ARG;
out:
    free(copy);
    return rc;
}

static struct ffile *ff_of(struct rio_store *st)
{
    return st->priv;
}

static struct rio_store *in_of(struct ffile *ff)
{
    return &ff->w.inner;
}

/* 0 to go ahead, else the planned failure (errno or ERR_SHORT). */
static int fire(struct ffile *ff, enum fclass cls, int transfer)
{
    const struct fspec *sp = &ff->spec;
    if (!sp->on || (sp->cls != FC_ANY && sp->cls != cls))
        return 0;
    if ((sp->err == EINTR || sp->err == ERR_SHORT) && !transfer)
        return 0;
    long c = atomic_fetch_add(&ff->count, 1) + 1;
    if (c == sp->n || (sp->every && c > sp->n))
        return sp->err;
    return 0;
}

/* For calls that cannot be short. */
static int fire_plain(struct ffile *ff, enum fclass cls)
{
    int e = fire(ff, cls, 0);
    return e ? -e : 0;
}

static int fault_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                      const struct rio_hints *hints)
{
    const struct fault_settings *s = rio__settings_get(hints, &fault_owner);
    const char *text = s->spec ? s->spec : getenv("RESONIO_FAULT");
    struct ffile *ff = rio__calloc(1, sizeof *ff);
    int rc;
    if (!ff)
        return RIO_E_NOMEM;
    rc = parse_spec(text, &ff->spec);
    if (rc)
        goto out;
    rc = fire_plain(ff, FC_OPEN);
    if (rc)
        goto out;
    rc = rio__store_wrap_open(st, &ff->w, &rio__store_fault, NULL, path, oflags, perm, hints);
out:
    if (rc)
        free(ff);
    return rc;
}

static int fault_get_size(struct rio_store *st, MPI_Offset *size)
{
    struct ffile *ff = ff_of(st);
    int rc = fire_plain(ff, FC_SIZE);
    return rc ? rc : in_of(ff)->ops->get_size(in_of(ff), size);
}

static int fault_set_size(struct rio_store *st, MPI_Offset size)
{
    struct ffile *ff = ff_of(st);
    int rc = fire_plain(ff, FC_SIZE);
    return rc ? rc : in_of(ff)->ops->set_size(in_of(ff), size);
}

static int fault_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct ffile *ff = ff_of(st);
    int rc = fire_plain(ff, FC_SIZE);
    return rc ? rc : in_of(ff)->ops->allocate(in_of(ff), off, len);
}

static int fault_sync(struct rio_store *st)
{
    struct ffile *ff = ff_of(st);
    int rc = fire_plain(ff, FC_SYNC);
    return rc ? rc : in_of(ff)->ops->sync(in_of(ff));
}

static ssize_t fault_xfer(struct rio_store *st, int wr, void *buf, size_t len, MPI_Offset off)
{
    struct ffile *ff = ff_of(st);
    int e = fire(ff, wr ? FC_WRITE : FC_READ, 1);
    if (e == ERR_SHORT && len >= 2)
        len /= 2;
    else if (e > 0)
        return -e;
    return wr ? in_of(ff)->ops->pwrite(in_of(ff), buf, len, off)
              : in_of(ff)->ops->pread(in_of(ff), buf, len, off);
}

static ssize_t fault_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    return fault_xfer(st, 0, buf, len, off);
}

static ssize_t fault_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    return fault_xfer(st, 1, (void *)buf, len, off);
}

static ssize_t fault_xferv(struct rio_store *st, int wr, const struct iovec *iov, int iovcnt,
                           MPI_Offset off)
{
    struct ffile *ff = ff_of(st);
    struct iovec half[IOV_BATCH];
    int e = fire(ff, wr ? FC_WRITE : FC_READ, 1);
    if (e == ERR_SHORT) {
        size_t total = 0, want, have = 0;
        int k = 0;
        iovcnt = RIO_MIN(iovcnt, IOV_BATCH);
        for (int i = 0; i < iovcnt; i++)
            total += iov[i].iov_len;
        want = total / 2;
        for (int i = 0; i < iovcnt && have < want; i++, k++) {
            half[k] = iov[i];
            half[k].iov_len = RIO_MIN(iov[i].iov_len, want - have);
            have += half[k].iov_len;
        }
        if (k > 0) {
            iov = half;
            iovcnt = k;
        }
    } else if (e > 0) {
        return -e;
    }
    return wr ? in_of(ff)->ops->pwritev(in_of(ff), iov, iovcnt, off)
              : in_of(ff)->ops->preadv(in_of(ff), iov, iovcnt, off);
}

static ssize_t fault_preadv(struct rio_store *st, const struct iovec *iov, int iovcnt,
                            MPI_Offset off)
{
    return fault_xferv(st, 0, iov, iovcnt, off);
}

static ssize_t fault_pwritev(struct rio_store *st, const struct iovec *iov, int iovcnt,
                             MPI_Offset off)
{
    return fault_xferv(st, 1, iov, iovcnt, off);
}

static int fault_read_list(struct rio_store *st, const struct rio_region *file,
                           const struct iovec *mem, int n, MPI_Offset *done)
{
    struct ffile *ff = ff_of(st);
    int e = fire(ff, FC_READ, 1);
    if (e == ERR_SHORT) {
        MPI_Offset part;
        int rc = n >= 2 ? in_of(ff)->ops->read_list(in_of(ff), file, mem, n / 2, &part) : 0;
        return rc ? rc : -EINTR;
    }
    if (e > 0)
        return -e;
    return in_of(ff)->ops->read_list(in_of(ff), file, mem, n, done);
}

static int fault_write_list(struct rio_store *st, const struct rio_region *file,
                            const struct iovec *mem, int n)
{
    struct ffile *ff = ff_of(st);
    int e = fire(ff, FC_WRITE, 1);
    if (e == ERR_SHORT) {
        int rc = n >= 2 ? in_of(ff)->ops->write_list(in_of(ff), file, mem, n / 2) : 0;
        return rc ? rc : -EINTR;
    }
    if (e > 0)
        return -e;
    return in_of(ff)->ops->write_list(in_of(ff), file, mem, n);
}

static int fault_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    struct ffile *ff = ff_of(st);
    int rc = fire_plain(ff, FC_LOCK);
    return rc ? rc : in_of(ff)->ops->lock(in_of(ff), off, len, exclusive);
}

static int fault_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct ffile *ff = ff_of(st);
    int rc = fire_plain(ff, FC_LOCK);
    return rc ? rc : in_of(ff)->ops->unlock(in_of(ff), off, len);
}

/* Datatype calls (drivers that ship views, such as emu): all or error, so
 * SHORT becomes a retry. */
static int view_fire(struct ffile *ff, int wr)
{
    int e = fire(ff, wr ? FC_WRITE : FC_READ, 1);
    return e == ERR_SHORT ? -EINTR : -e;
}

static int fault_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                            MPI_Offset pos, const void *buf, MPI_Offset len)
{
    struct ffile *ff = ff_of(st);
    int rc = view_fire(ff, 1);
    return rc ? rc : in_of(ff)->ops->write_view(in_of(ff), ft, disp, pos, buf, len);
}

static int fault_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                           MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    struct ffile *ff = ff_of(st);
    int rc = view_fire(ff, 0);
    return rc ? rc : in_of(ff)->ops->read_view(in_of(ff), ft, disp, pos, buf, len, done);
}

/* close, remove, layout, is_direct, notes and prefetch are forwarded. */
const struct rio_store_ops rio__store_fault = {
    .name = "fault",
    .version = RIO_STORE_OPS_VERSION,
    .wraps = 1,
    .open = fault_open,
    .get_size = fault_get_size,
    .set_size = fault_set_size,
    .allocate = fault_allocate,
    .sync = fault_sync,
    .pread = fault_pread,
    .pwrite = fault_pwrite,
    .preadv = fault_preadv,
    .pwritev = fault_pwritev,
    .read_list = fault_read_list,
    .write_list = fault_write_list,
    .lock = fault_lock,
    .unlock = fault_unlock,
    .write_view = fault_write_view,
    .read_view = fault_read_view,
    .settings = &fault_owner,
};
