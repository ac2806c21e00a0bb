/*
 * cephfs.c — the storage driver of CephFS in user space ("cephfs:/path").
 *
 * Each process mounts the file system itself through libcephfs: no FUSE,
 * no kernel client.  The path after the prefix is a path inside the file
 * system (relative paths start at its root).  All open files of a process
 * that name the same configuration share one mount, made at the first
 * open and unmounted when the last file closes (a reference count under a
 * mutex, so threads may open and close files at once: ceph_common.c, shared
 * with the rados: driver, as are the hints).  Measured here
 * (memstore cluster, 2-core machine): the first open of a process 100-110
 * ms (loading the library about half of it), a later one that mounts again
 * 40-57 ms, the unmount at the last close 14-24 ms (once 1 s).  A mount is
 * not kept past the last close: a process that exits with its session open
 * leaves the metadata server holding its capabilities until the session
 * times out, and other clients of those files wait.  The configuration
 * file is the hint resonio_ceph_conf, else the environment variable
 * CEPH_CONF, else libcephfs's own search (/etc/ceph/ceph.conf, ...).
 *
 * libcephfs is loaded with dlopen at the first open, not linked: the
 * library pulls in some twenty C++ libraries, and linking it into
 * libresonio made every process that links resonio start about 35 ms
 * later (a trivial program: 4 ms -> 38-44 ms a start, measured here),
 * whether it ever opens a cephfs: file or not.  The header gives the
 * prototypes; CEPH_CALLS lists the calls the driver resolves.
 *
 * Bounded waits: the driver sets client_mount_timeout, rados_mon_op_timeout
 * and rados_osd_op_timeout to resonio_ceph_timeout seconds (default 30),
 * so a cluster whose monitors do not answer makes the open fail with
 * -ETIMEDOUT in about that time instead of hanging, with a detail naming
 * the configuration (t_cephfs: 3 s).  The OSD timeout is the one
 * libcephfs's own requests to the OSDs obey (its Objecter reads
 * rados_osd_op_timeout too), so an OSD that dies under a transfer fails
 * the transfer with -ETIMEDOUT after that time.  Measured on a bluestore
 * cluster with one of its 3 OSDs killed (t_ceph_fault, 4 s, 1 and 2
 * ranks): a collective write fails on every rank in 4.0 s, a collective
 * read in 8.0 s (see below), the sync and close right away; after the
 * OSD restarts the same calls succeed and every byte verifies.  Three
 * things had to hold for that:
 *   - client_oc = false: with libcephfs's object cache a write of a
 *     process that holds the file's buffer capability (one writer) only
 *     fills the cache and "succeeds"; the sync then failed after the
 *     timeout, but the last close waited in ceph_unmount for the dirty
 *     data for as long as the OSD stayed down (a hang: gdb showed
 *     ceph_unmount -> ceph_mount_info::shutdown in a condition wait).
 *     Without the cache every write reaches the OSDs before it returns,
 *     and its error is the write's.  (With two writers the metadata
 *     server withholds the buffer capability anyway.)
 *   - a read that spans objects loses its errors in 16.2's client (the
 *     Objecter's gather of a striped read ignores the result of its
 *     parts), so it returned success with zeros where the dead OSD's
 *     objects were: silent loss, measured (780288 of 2 MiB on a rank).  A
 *     read within one object does return the error.  No OSD request can
 *     time out before the timeout has passed since the read began, so a
 *     read that took less is sound; one that took 0.9 of the timeout or
 *     more is read again one stripe unit (one object) at a time, which
 *     returns the error, or the right bytes if the OSD answers by then:
 *     a read with an OSD down fails in about twice the timeout.
 *   - a write that failed fails the next sync too, once (the bytes it
 *     carried cannot be made durable, and without the cache libcephfs's
 *     fsync has nothing to report).
 * Not bounded by the driver: waits behind the metadata server (its pool
 * on a stopped OSD hangs every metadata call; with one of 3 OSDs stopped
 * a mount failed with -ETIMEDOUT only after 34 s at a 3 s setting, the
 * metadata server's own wait, measured once).
 *
 * Layouts: a file the open creates gets the striping hints (striping_unit,
 * striping_factor, resonio_object_size) through ceph_open_layout; an
 * existing file asked for another layout at create gets it through the
 * ceph.file.layout attribute while it is empty, and fails with
 * RIO_E_LAYOUT when it holds data, as the posix driver does on a ceph-fuse
 * mount.  .layout reports the file's layout from libcephfs.
 *
 * Locks: libcephfs 16.2 has byte-range (fcntl-style) locks only in its
 * low-level API (ceph_ll_setlk on a low-level handle).  The first lock of
 * an open file opens a second, low-level handle of the same inode and
 * takes every lock through it, with the open file as the lock owner; the
 * MDS arbitrates between clients, so the locks exclude other processes
 * (and other open files of this one).  Closing the file closes that handle,
 * which drops its locks.
 */
#include "store.h"

#ifdef RIO_HAVE_CEPHFS

#include "ceph_common.h"

#include <cephfs/libcephfs.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XFER_CAP ((size_t)1 << 30) /* libcephfs returns byte counts as int */
#define CEPH_DEFAULT_OBJECT_SIZE (4LL << 20) /* CephFS's default: 4 MiB unit and object */
#define CEPH_MIN_UNIT 65536

/* ---- the library, loaded at first use (ceph_common.c) -------------------- */

#define CEPH_CALLS(X)                                                                       \
    X(ceph_create) X(ceph_conf_read_file) X(ceph_conf_set) X(ceph_mount) X(ceph_unmount)    \
    X(ceph_release) X(ceph_open) X(ceph_open_layout) X(ceph_close) X(ceph_unlink)           \
    X(ceph_fstatx) X(ceph_ftruncate) X(ceph_fallocate) X(ceph_fsync) X(ceph_read)           \
    X(ceph_write) X(ceph_preadv) X(ceph_pwritev) X(ceph_fsetxattr)                          \
    X(ceph_get_file_stripe_unit) X(ceph_get_file_stripe_count) X(ceph_get_file_object_size) \
    X(ceph_mount_perms) X(ceph_ll_walk) X(ceph_ll_open) X(ceph_ll_close) X(ceph_ll_put)     \
    X(ceph_ll_setlk) X(ceph_get_file_extent_osds)

static struct {
#define DECL(f) __typeof__(f) *f;
    CEPH_CALLS(DECL)
#undef DECL
} lib;
#define NAME(f) #f,
static const char *const lib_names[] = {CEPH_CALLS(NAME)};
#undef NAME
#define SLOT(f) (void **)&lib.f,
static void **const lib_slots[] = {CEPH_CALLS(SLOT)};
#undef SLOT

/* ---- one mount per configuration, shared (ceph_common.c) ------------------ */

/* The steps of a mount (ceph_common.c runs them). */
static int cm_create(void **h)
{
    return lib.ceph_create((struct ceph_mount_info **)h, NULL);
}
static int cm_read_conf(void *h, const char *path)
{
    return lib.ceph_conf_read_file(h, path);
}
static int cm_set(void *h, const char *key, const char *val)
{
    return lib.ceph_conf_set(h, key, val);
}
static int cm_mount(void *h)
{
    /* no object cache: a write reaches the OSDs before it returns, so its
     * error is the write's and an unmount has nothing dirty to wait for
     * (with the cache, an OSD down made the last close wait in
     * ceph_unmount for as long as it stayed down) */
    int r = lib.ceph_conf_set(h, "client_oc", "false");
    return r < 0 ? r : lib.ceph_mount(h, "/");
}
static void cm_release(void *h)
{
    lib.ceph_release(h);
}
static int cm_unmount(void *h)
{
    int rc = lib.ceph_unmount(h);
    lib.ceph_release(h);
    return rc;
}

static struct rio_ceph_client client = {
    .drv = "cephfs",
    .soname = "libcephfs.so.2",
    .package = "libcephfs2",
    .names = lib_names,
    .slots = lib_slots,
    .ncalls = (int)(sizeof lib_names / sizeof lib_names[0]),
    .create = cm_create,
    .read_conf = cm_read_conf,
    .set = cm_set,
    .start = cm_mount,
    .start_what = "mount the file system of",
    .release = cm_release,
    .disconnect = cm_unmount,
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

/* The mount's handle. */
#define CM(cf) ((struct ceph_mount_info *)(cf)->m->handle)

/* ---- open files --------------------------------------------------------------- */

struct cfile {
    struct rio_ceph_conn *m;
    int fd;
    int accmode;           /* O_RDONLY / O_WRONLY / O_RDWR */
    char *path;            /* owned: for the lock handle */
    pthread_mutex_t lk_mu; /* guards the lock handle's making */
    struct Fh *lk_fh;      /* low-level handle of the locks; NULL until the first */
    struct Inode *lk_in;
    int write_err;         /* -errno of a write since the last sync, else 0 (atomic) */
};

static struct cfile *cf_of(struct rio_store *st)
{
    return st->priv;
}

static int get_layout(struct cfile *cf, struct rio_layout *l)
{
    struct ceph_mount_info *cm = CM(cf);
    int su = lib.ceph_get_file_stripe_unit(cm, cf->fd);
    int sc = lib.ceph_get_file_stripe_count(cm, cf->fd);
    int os = lib.ceph_get_file_object_size(cm, cf->fd);
    memset(l, 0, sizeof *l);
    if (su < 0)
        return su;
    if (sc < 0)
        return sc;
    if (os < 0)
        return os;
    if (su == 0 || sc == 0 || os < su)
        return -EINVAL;
    l->unit = su;
    l->count = sc;
    l->object_size = os;
    l->known = 1;
    return 0;
}

static void layout_str(char *buf, size_t n, const struct rio_layout *l)
{
    snprintf(buf, n, "unit/count/object %lld/%d/%lld", l->unit, l->count, l->object_size);
}

/* After a create-open: the file has the layout the hints ask for, or
 * RIO_E_LAYOUT with a detail.  ceph_open_layout gave it to a file the open
 * created; an existing file is changed while empty, refused otherwise. */
static int layout_apply(struct cfile *cf, const char *path, const struct rio_hints *hints)
{
    struct rio_layout cur, want;
    struct ceph_statx stx;
    char val[160], attr[160];
    int r = get_layout(cf, &cur);
    if (r < 0) {
        rio__err_detail("cephfs: cannot read the layout of '%s' (%s)", path, strerror(-r));
        return r;
    }
    if (!rio__store_layout_wanted(hints, &cur, &want) ||
        (want.unit == cur.unit && want.count == cur.count &&
         want.object_size == cur.object_size))
        return 0;
    layout_str(val, sizeof val, &want);
    r = lib.ceph_fstatx(CM(cf), cf->fd, &stx, CEPH_STATX_SIZE, 0);
    if (r < 0)
        return r;
    if (stx.stx_size > 0) {
        /* short: the edge keeps 255 characters of a message, and the file's
         * name (in the message's head) must survive */
        rio__err_detail("not empty, and CephFS sets an empty file's layout only: unit/count/"
                        "object %lld/%d/%lld, asked %lld/%d/%lld",
                        cur.unit, cur.count, cur.object_size, want.unit, want.count,
                        want.object_size);
        return RIO_E_LAYOUT;
    }
    snprintf(attr, sizeof attr, "stripe_unit=%lld stripe_count=%d object_size=%lld",
             want.unit, want.count, want.object_size);
    r = lib.ceph_fsetxattr(CM(cf), cf->fd, "ceph.file.layout", attr, strlen(attr), 0);
    if (r < 0) {
        rio__err_detail("CephFS refuses the layout %s (%s; units of %d dividing the object "
                        "size)", val, strerror(-r), CEPH_MIN_UNIT);
        return RIO_E_LAYOUT;
    }
    return 0;
}

static int c_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                  const struct rio_hints *hints)
{
    struct cfile *cf = rio__calloc(1, sizeof *cf);
    struct rio_layout base = {CEPH_DEFAULT_OBJECT_SIZE, 1, 1, CEPH_DEFAULT_OBJECT_SIZE}, want;
    int rc;
    if (!cf)
        return RIO_E_NOMEM;
    cf->fd = -1;
    if (!(cf->path = strdup(path))) {
        free(cf);
        return RIO_E_NOMEM;
    }
    rc = -pthread_mutex_init(&cf->lk_mu, NULL);
    if (rc) {
        free(cf->path);
        free(cf);
        return rc;
    }
    if ((rc = rio__ceph_conn_get(&client, hints, &cf->m)))
        goto out;
    /* O_APPEND dropped as in posix.c: writes are positional, the file
     * layer places the pointers at the end itself. */
    oflags &= ~(O_APPEND | O_CLOEXEC);
    cf->accmode = oflags & O_ACCMODE;
    if ((oflags & O_CREAT) && rio__store_layout_wanted(hints, &base, &want)) {
        /* The unit and count the hints leave out: CephFS's defaults (0);
         * the object size is whole units of CephFS's default. */
        const struct rio_store_settings *s = rio__store_settings(hints);
        rc = lib.ceph_open_layout(CM(cf), path, oflags, perm,
                                  s->striping_unit > 0 ? (int)want.unit : 0,
                                  s->striping_factor > 0 ? want.count : 0,
                                  (int)want.object_size, NULL);
        if (rc == -EINVAL) {
            char val[160];
            layout_str(val, sizeof val, &want);
            /* short: the edge's message keeps 255 characters, and the
             * file's name must survive in it */
            rio__err_detail("CephFS refuses the layout %s (units of %d dividing the object "
                            "size)", val, CEPH_MIN_UNIT);
            rc = RIO_E_LAYOUT;
            goto out;
        }
    } else {
        rc = lib.ceph_open(CM(cf), path, oflags, perm);
    }
    if (rc < 0) {
        rio__err_detail("cephfs: cannot open '%s' (%s)", path, strerror(-rc));
        goto out;
    }
    cf->fd = rc;
    rc = 0;
    if (oflags & O_CREAT)
        rc = layout_apply(cf, path, hints);
out:
    if (rc) {
        if (cf->fd >= 0)
            lib.ceph_close(CM(cf), cf->fd);
        if (cf->m)
            rio__ceph_conn_put(&client, cf->m);
        pthread_mutex_destroy(&cf->lk_mu);
        free(cf->path);
        free(cf);
        return rc;
    }
    st->priv = cf;
    return 0;
}

static int c_close(struct rio_store *st)
{
    struct cfile *cf = cf_of(st);
    struct ceph_mount_info *cm;
    int rc, r;
    if (!cf)
        return 0;
    cm = CM(cf);
    if (cf->lk_fh) { /* drops the locks still held */
        lib.ceph_ll_close(cm, cf->lk_fh);
        lib.ceph_ll_put(cm, cf->lk_in);
    }
    rc = lib.ceph_close(cm, cf->fd);
    if ((r = rio__ceph_conn_put(&client, cf->m)) && !rc)
        rc = r;
    pthread_mutex_destroy(&cf->lk_mu);
    free(cf->path);
    free(cf);
    st->priv = NULL;
    return rc;
}

static int c_remove(const char *path, const struct rio_hints *hints)
{
    struct rio_ceph_conn *m = NULL;
    int rc = rio__ceph_conn_get(&client, hints, &m);
    if (rc)
        return rc;
    rc = lib.ceph_unlink(m->handle, path);
    rio__ceph_conn_put(&client, m);
    return rc;
}

/* ---- metadata --------------------------------------------------------------- */

static int c_get_size(struct rio_store *st, MPI_Offset *size)
{
    struct cfile *cf = cf_of(st);
    struct ceph_statx stx;
    int r = lib.ceph_fstatx(CM(cf), cf->fd, &stx, CEPH_STATX_SIZE, 0);
    if (r < 0)
        return r;
    *size = (MPI_Offset)stx.stx_size;
    return 0;
}

static int c_set_size(struct rio_store *st, MPI_Offset size)
{
    if (size < 0)
        return RIO_E_ARG;
    return lib.ceph_ftruncate(CM(cf_of(st)), cf_of(st)->fd, size);
}

/* CephFS allocates objects as they are written: mode 0 makes the size
 * reach off+len (reading zeros there), which is what MPI_File_preallocate
 * promises; no space is reserved in advance. */
static int c_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    if (off < 0 || len < 0)
        return RIO_E_ARG;
    if (len == 0)
        return 0;
    return lib.ceph_fallocate(CM(cf_of(st)), cf_of(st)->fd, 0, off, len);
}

/* Data and metadata (the size lives with the MDS).  A write that failed
 * since the last sync fails the sync too, once: its bytes cannot be made
 * durable, and with the client's object cache off (cm_mount) there is
 * nothing pending that libcephfs's fsync could report on. */
static int c_sync(struct rio_store *st)
{
    struct cfile *cf = cf_of(st);
    int r = lib.ceph_fsync(CM(cf), cf->fd, 0);
    int w = __atomic_exchange_n(&cf->write_err, 0, __ATOMIC_ACQ_REL);
    if (r == 0 && w < 0) {
        if (rio__ceph_timed_out(cf->m, w, "a write since the last sync") != -ETIMEDOUT)
            rio__err_detail("a write since the last sync failed");
        r = w;
    }
    return r;
}

static int c_layout(struct rio_store *st, struct rio_layout *out)
{
    return get_layout(cf_of(st), out);
}

/* ---- transfers -------------------------------------------------------------- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Copy n bytes of src to the iovec at byte position pos of its sum. */
static void iov_put(const struct iovec *iov, int iovcnt, size_t pos, const char *src, size_t n)
{
    for (int i = 0; i < iovcnt && n > 0; i++) {
        if (pos >= iov[i].iov_len) {
            pos -= iov[i].iov_len;
            continue;
        }
        size_t k = RIO_MIN(n, iov[i].iov_len - pos);
        memcpy((char *)iov[i].iov_base + pos, src, k);
        src += k;
        n -= k;
        pos = 0;
    }
}

/* A read of got bytes at off that took as long as an OSD operation may
 * (libcephfs's timeout, started when its requests went out, so a read
 * that took less had none time out), read again one stripe unit at a
 * time: a read that spans objects loses its requests' errors in 16.2's
 * client (see the design paragraph) and returns zeros for what an OSD
 * did not answer, while a read within one object returns the error.
 * Returns got, or the first piece's error with a detail. */
static ssize_t read_checked(struct cfile *cf, const struct iovec *iov, int iovcnt,
                            MPI_Offset off, ssize_t got, double t0)
{
    struct rio_layout l;
    char *bounce;
    if (got <= 0 || now_s() - t0 < 0.9 * cf->m->timeout)
        return got;
    int r = get_layout(cf, &l);
    if (r < 0)
        return r;
    if (!(bounce = rio__malloc((size_t)l.unit)))
        return RIO_E_NOMEM;
    for (size_t pos = 0; pos < (size_t)got;) {
        MPI_Offset at = off + (MPI_Offset)pos;
        size_t n = RIO_MIN((size_t)got - pos, (size_t)(l.unit - at % l.unit));
        int k = lib.ceph_read(CM(cf), cf->fd, bounce, (int64_t)n, at);
        if (k < 0) {
            char doing[64];
            snprintf(doing, sizeof doing, "reading %zu bytes at %lld", n, (long long)at);
            if (rio__ceph_timed_out(cf->m, k, doing) != -ETIMEDOUT)
                rio__err_detail("%s", doing);
            free(bounce);
            return k;
        }
        if ((size_t)k < n) /* the file ends here now */
            memset(bounce + k, 0, n - (size_t)k);
        iov_put(iov, iovcnt, pos, bounce, n);
        pos += n;
    }
    free(bounce);
    return got;
}

/* A write's error is kept for the next sync (c_sync). */
static ssize_t wrote(struct cfile *cf, ssize_t r)
{
    if (r < 0) {
        int none = 0;
        __atomic_compare_exchange_n(&cf->write_err, &none, (int)r, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE);
        rio__ceph_timed_out(cf->m, (int)r, NULL);
    }
    return r;
}


static ssize_t c_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    if (off < 0) /* libcephfs would read at its own file position */
        return RIO_E_ARG;
    struct cfile *cf = cf_of(st);
    struct iovec iov = {buf, RIO_MIN(len, XFER_CAP)};
    double t0 = now_s();
    ssize_t r = lib.ceph_read(CM(cf), cf->fd, buf, (int64_t)iov.iov_len, off);
    return read_checked(cf, &iov, 1, off, r, t0);
}

static ssize_t c_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    if (off < 0)
        return RIO_E_ARG;
    struct cfile *cf = cf_of(st);
    return wrote(cf, lib.ceph_write(CM(cf), cf->fd, buf, (int64_t)RIO_MIN(len, XFER_CAP), off));
}

/* The store layer's batches carry at most 1 GiB (store.c), within int. */
static ssize_t c_preadv(struct rio_store *st, const struct iovec *iov, int iovcnt,
                        MPI_Offset off)
{
    if (off < 0)
        return RIO_E_ARG;
    struct cfile *cf = cf_of(st);
    double t0 = now_s();
    ssize_t r = lib.ceph_preadv(CM(cf), cf->fd, iov, iovcnt, off);
    return read_checked(cf, iov, iovcnt, off, r, t0);
}

static ssize_t c_pwritev(struct rio_store *st, const struct iovec *iov, int iovcnt,
                         MPI_Offset off)
{
    if (off < 0)
        return RIO_E_ARG;
    struct cfile *cf = cf_of(st);
    return wrote(cf, lib.ceph_pwritev(CM(cf), cf->fd, iov, iovcnt, off));
}

/* ---- locks ------------------------------------------------------------------- */

/* The low-level handle the locks go through, made at the first lock. */
static int lock_handle(struct cfile *cf)
{
    struct ceph_mount_info *cm = CM(cf);
    int r = 0;
    pthread_mutex_lock(&cf->lk_mu);
    if (!cf->lk_fh) {
        struct ceph_statx stx;
        struct Inode *in = NULL;
        UserPerm *perms = lib.ceph_mount_perms(cm);
        r = lib.ceph_ll_walk(cm, cf->path, &in, &stx, 0, 0, perms);
        if (r == 0) {
            r = lib.ceph_ll_open(cm, in, cf->accmode, &cf->lk_fh, perms);
            if (r < 0) {
                lib.ceph_ll_put(cm, in);
                cf->lk_fh = NULL;
            } else {
                cf->lk_in = in;
            }
        }
        if (r < 0)
            rio__err_detail("cephfs: cannot open a lock handle of '%s' (%s)", cf->path,
                            strerror(-r));
    }
    pthread_mutex_unlock(&cf->lk_mu);
    return r < 0 ? r : 0;
}

static int c_lockop(struct rio_store *st, short type, MPI_Offset off, MPI_Offset len)
{
    struct cfile *cf = cf_of(st);
    struct flock fl;
    int r;
    if (off < 0 || len < 0)
        return RIO_E_ARG;
    if ((r = lock_handle(cf)))
        return r;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = off;
    fl.l_len = len; /* 0: to the end and beyond, as fcntl has it */
    do
        r = lib.ceph_ll_setlk(CM(cf), cf->lk_fh, &fl, (uint64_t)(uintptr_t)cf, 1);
    while (r == -EINTR);
    return r;
}

/* The OSD of each object, from the client's own copy of the cluster's
 * map (no round trip): the first byte of object i lies at stripe row
 * (i / count) * (object_size / unit), column i % count.  The first OSD
 * libcephfs names is the primary, which serves the object's requests. */
static int c_servers(struct rio_store *st, long long first, int n, int *out)
{
    struct cfile *cf = cf_of(st);
    struct rio_layout l;
    int rc = get_layout(cf, &l);
    if (rc)
        return rc;
    long long spo = l.object_size / l.unit;
    for (int i = 0; i < n; i++) {
        long long obj = first + i;
        int64_t off = ((obj / l.count) * spo * l.count + obj % l.count) * l.unit;
        int osds[16];
        int got = lib.ceph_get_file_extent_osds(CM(cf), cf->fd, off, NULL, osds, 16);
        if (got < 0)
            return got;
        if (got == 0)
            return -ENXIO;
        out[i] = osds[0];
    }
    return 0;
}

static int c_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    return c_lockop(st, exclusive ? F_WRLCK : F_RDLCK, off, len);
}

static int c_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    return c_lockop(st, F_UNLCK, off, len);
}

const struct rio_store_ops rio__store_cephfs = {
    .name = "cephfs",
    .version = RIO_STORE_OPS_VERSION,
    .open = c_open,
    .close = c_close,
    .remove = c_remove,
    .get_size = c_get_size,
    .set_size = c_set_size,
    .allocate = c_allocate,
    .sync = c_sync,
    .pread = c_pread,
    .pwrite = c_pwrite,
    .preadv = c_preadv,
    .pwritev = c_pwritev,
    .lock = c_lock,
    .unlock = c_unlock,
    .layout = c_layout,
    .servers = c_servers,
    .settings = &rio__ceph_settings_owner,
};

#endif /* RIO_HAVE_CEPHFS */
