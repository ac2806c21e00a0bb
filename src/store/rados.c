/*
 * rados.c — the storage driver of files made of RADOS objects
 * ("rados:POOL/NAME"), over librados.
 *
 * A file is a set of objects in pool POOL named NAME.<object number as 16
 * hex digits> (NAME may hold '/'), striped as CephFS stripes a file: with
 * stripe unit su, stripe count sc and object size os, file byte off is in
 * block off/su, stripe block/sc, position block%sc of the object set
 * stripe/(os/su); its object is objset*sc + pos, at (stripe % (os/su))*su +
 * off%su in it.  The layout comes from the striping hints at create
 * (striping_unit, striping_factor, resonio_object_size), CephFS's
 * defaults otherwise (4 MiB unit, count 1, 4 MiB objects), and is kept
 * with the size in xattrs of object 0 ("rio.layout", "rio.size"), which
 * the create makes (exclusively, with both xattrs, in one operation), so a
 * later open finds them.  An open that creates a file that exists and asks
 * for another layout changes it while the file is empty and fails with
 * RIO_E_LAYOUT when it holds data, as the posix and cephfs drivers do.
 *
 * Size under concurrent writers: "rio.size" is the size as 20 zero-padded
 * decimal digits, so string order is numeric order.  A write that ends at
 * E past the largest size this open file has seen stored, once its data
 * is acknowledged, sends object 0 one compound operation: compare
 * "rio.size" < E (rados_write_op_cmpxattr), then set it to E.  The OSD
 * runs the operations of one object one at a time and cancels the whole
 * compound one when the compare fails, so the size only ever rises under
 * writers, whoever finishes first; a cancelled raise means a larger size
 * is already stored.  Cost: one extra request, to object 0's OSD, per
 * call that ends past the size this process last saw, none for a write
 * inside it.  The remembered size is a lower bound of the stored one
 * while only writes happen; a shrink (set_size, made by one rank for the
 * group) invalidates it in other processes, which learn of it at their
 * next sync or get_size (both reread or drop it): MPI asks for sync,
 * barrier, sync between one process's change and another's access anyway.
 * Reads fetch the size from object 0 in a request of their own, issued
 * with the data requests: holes below the size read as zeros, reads end
 * at the size.
 *
 * List I/O is the point of the driver: the regions of a call are cut at
 * stripe units, the pieces grouped by object, and each object gets one
 * compound write (or read) operation carrying all of its extents; the
 * operations of every object go out at once (rados_aio_*_op_operate) and
 * the call then waits for all of them.  So a call makes one request per
 * object it touches (per OP_MAX_EXTENTS of its extents), and a server gets
 * as many requests as it holds objects of the call.  .servers asks the
 * monitor which OSD holds each object, for the collective engine; the
 * posix driver on a CephFS mount asks the same through rio__rados_osds.
 * A view's transfer (write_view/read_view) may instead go to each object
 * as the filetype's dataloop, run by the OSD's lua class: the driver
 * measures both ways per request shape and keeps the faster (below,
 * "datatype I/O at the OSD"), so the layers above hand it views
 * (RIO_STORE_CAP_OWN_VIEWS).
 *
 * MPI semantics here: RADOS acknowledges a write when it is durable on
 * every replica, so sync has nothing to flush (it only drops the
 * remembered size).  Preallocate raises the size (reading zeros); RADOS
 * reserves no space ahead.  librados's C API has no byte-range lock:
 * rados_lock_exclusive/shared lock a whole object for a duration, which
 * cannot give fcntl's byte ranges across objects nor be waited on, so the
 * driver has no lock operation and atomic mode (MPI_File_set_atomicity
 * true) fails with MPI_ERR_UNSUPPORTED_OPERATION (the file layer refuses
 * it for any storage without locks).  Shared file pointers work: the file
 * layer keeps them in an MPI window, not in storage.
 *
 * Errors: a name without '/', or with an empty pool or name, is
 * RIO_E_BADNAME (MPI_ERR_BAD_FILE); a pool the cluster lacks is -ENOENT
 * (MPI_ERR_NO_SUCH_FILE) with a detail naming the pool; an unreachable
 * cluster fails the connect within resonio_ceph_timeout with a detail
 * naming the configuration.  The library, the connection (one per
 * configuration per process, reference counted) and the hints are those
 * of ceph_common.c; each open file has its own I/O context of the pool.
 */
#include "ceph_common.h"

#ifdef RIO_HAVE_RADOS

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rados/librados.h>

#include "../dtype/dtype.h"
#include "ceph_lua.h"

#define RADOS_DEFAULT_SIZE (4LL << 20) /* CephFS's default unit and object size */
#define SIZE_XATTR "rio.size"
#define LAYOUT_XATTR "rio.layout"
#define SIZE_DIGITS 20 /* zero-padded decimal: string order is numeric order */
#define OID_HEX 16

/* ---- the library, loaded at first use (ceph_common.c) -------------------- */

#define RADOS_CALLS(X)                                                                       \
    X(rados_create) X(rados_conf_read_file) X(rados_conf_set) X(rados_connect)               \
    X(rados_shutdown) X(rados_ioctx_create) X(rados_ioctx_destroy) X(rados_getxattr)         \
    X(rados_remove) X(rados_aio_create_completion2) X(rados_aio_wait_for_complete)           \
    X(rados_aio_get_return_value) X(rados_aio_release) X(rados_aio_getxattr)                 \
    X(rados_create_write_op) X(rados_release_write_op) X(rados_write_op_assert_exists)       \
    X(rados_write_op_cmpxattr) X(rados_write_op_setxattr) X(rados_write_op_create)           \
    X(rados_write_op_write) X(rados_write_op_truncate) X(rados_write_op_remove)              \
    X(rados_write_op_operate) X(rados_aio_write_op_operate) X(rados_create_read_op)          \
    X(rados_release_read_op) X(rados_read_op_read) X(rados_aio_read_op_operate)              \
    X(rados_nobjects_list_open) X(rados_nobjects_list_next) X(rados_nobjects_list_close)      \
    X(rados_mon_command) X(rados_buffer_free) X(rados_write_op_exec) X(rados_read_op_exec)

static struct {
#define DECL(f) __typeof__(f) *f;
    RADOS_CALLS(DECL)
#undef DECL
} lib;
#define NAME(f) #f,
static const char *const lib_names[] = {RADOS_CALLS(NAME)};
#undef NAME
#define SLOT(f) (void **)&lib.f,
static void **const lib_slots[] = {RADOS_CALLS(SLOT)};
#undef SLOT

/* The steps of a connection (ceph_common.c runs them). */
static int cl_create(void **h)
{
    return lib.rados_create((rados_t *)h, NULL);
}
static int cl_read_conf(void *h, const char *path)
{
    return lib.rados_conf_read_file(h, path);
}
static int cl_set(void *h, const char *key, const char *val)
{
    return lib.rados_conf_set(h, key, val);
}
static int cl_connect(void *h)
{
    return lib.rados_connect(h);
}
static void cl_release(void *h)
{
    lib.rados_shutdown(h);
}
static int cl_shutdown(void *h)
{
    lib.rados_shutdown(h);
    return 0;
}

static struct rio_ceph_client client = {
    .drv = "rados",
    .soname = "librados.so.2",
    .package = "librados2",
    .names = lib_names,
    .slots = lib_slots,
    .ncalls = (int)(sizeof lib_names / sizeof lib_names[0]),
    .create = cl_create,
    .read_conf = cl_read_conf,
    .set = cl_set,
    .start = cl_connect,
    .start_what = "connect to the cluster of",
    .release = cl_release,
    .disconnect = cl_shutdown,
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- names and layouts ----------------------------------------------------- */

/* Split "POOL/NAME" (malloc'ed copies).  RIO_E_BADNAME with a detail. */
static int parse_name(const char *path, char **pool, char **name)
{
    const char *slash = strchr(path, '/');
    if (!slash || slash == path || !slash[1]) {
        rio__err_detail("rados: '%s' is not POOL/NAME (%s)", path,
                        !slash ? "no '/'" : slash == path ? "empty pool" : "empty name");
        return RIO_E_BADNAME;
    }
    size_t pl = (size_t)(slash - path);
    *pool = rio__malloc(pl + 1);
    *name = rio__strdup(slash + 1);
    if (*pool) {
        memcpy(*pool, path, pl);
        (*pool)[pl] = '\0';
    }
    if (!*pool || !*name) {
        free(*pool);
        free(*name);
        return RIO_E_NOMEM;
    }
    return 0;
}

/* The view paths a request shape has measured (see "datatype I/O at the
 * OSD" below). */
#define VIEW_BUCKETS 16
#define VIEW_SAMPLES 2 /* timed calls of each path before a shape chooses */
enum { PATH_LUA = 0, PATH_LIST = 1 };
struct vbucket {
    int used;
    int kx, kg;      /* the key: log2 extents per object, 1 + log2 mean gap (0: none) */
    double t[2];     /* seconds per byte, the least of the samples; < 0: none yet */
    int samples[2];  /* timed calls that succeeded, up to VIEW_SAMPLES */
    int failed[2];   /* the path failed, or (lua) the class could not take the request */
    long long runs[2];
    int kept;        /* PATH_* once chosen; -1 while measuring */
};
struct vtable {
    struct vbucket b[VIEW_BUCKETS];
    int next; /* the slot a new shape takes once all are used (round robin) */
};
/* The process's measurements, [1] writes, [0] reads: the costs are the
 * cluster's for a shape, not a file's, and a program that writes a file
 * per step with one call each (FLASH's checkpoints: one collective call
 * per file) must still get to the second path's measurement. */
static struct {
    pthread_mutex_t mu;
    struct vtable vt[2];
} views = {.mu = PTHREAD_MUTEX_INITIALIZER};

struct rfile {
    struct rio_ceph_conn *conn;
    rados_ioctx_t io;
    char *pool, *name;
    char *oid0;         /* object 0's name */
    int accmode;
    long long su, os;   /* stripe unit, object size */
    int sc;             /* stripe count */
    atomic_llong seen;  /* a lower bound of the stored size (see the top) */
};

static struct rfile *rf_of(struct rio_store *st)
{
    return st->priv;
}

static void oid_of(char *out, size_t n, const char *name, long long obj)
{
    snprintf(out, n, "%s.%0*llx", name, OID_HEX, (unsigned long long)obj);
}

/* Where file byte off lives: its object, the offset in it, and the bytes of
 * the stripe unit from there on. */
static void locate(const struct rfile *rf, long long off, long long *obj, long long *in,
                   long long *run)
{
    long long block = off / rf->su, stripe = block / rf->sc, pos = block % rf->sc;
    long long spo = rf->os / rf->su;
    *obj = stripe / spo * rf->sc + pos;
    *in = stripe % spo * rf->su + off % rf->su;
    *run = rf->su - off % rf->su;
}

/* Bytes of object obj that hold file bytes below size. */
static long long kept_bytes(const struct rfile *rf, long long obj, long long size)
{
    long long spo = rf->os / rf->su, set = obj / rf->sc, pos = obj % rf->sc, keep = 0;
    for (long long r = 0; r < spo; r++) {
        long long base = ((set * spo + r) * rf->sc + pos) * rf->su;
        if (base >= size)
            break;
        keep = r * rf->su + RIO_MIN(rf->su, size - base);
    }
    return keep;
}

/* Objects a file of size bytes may have: whole object sets up to the last. */
static long long objects_of(const struct rfile *rf, long long size)
{
    long long obj, in, run;
    if (size <= 0)
        return 1;
    locate(rf, size - 1, &obj, &in, &run);
    return (obj / rf->sc + 1) * rf->sc;
}

static void size_str(char *out, long long size)
{
    char tmp[SIZE_DIGITS + 2];
    snprintf(tmp, sizeof tmp, "%0*lld", SIZE_DIGITS, size);
    memcpy(out, tmp, SIZE_DIGITS);
}

/* The stored size (-ENOENT when object 0 or its size is gone). */
static int read_size(struct rfile *rf, long long *size)
{
    char v[SIZE_DIGITS + 1];
    int r = lib.rados_getxattr(rf->io, rf->oid0, SIZE_XATTR, v, SIZE_DIGITS);
    if (r == -ENODATA)
        r = -ENOENT;
    if (r < 0)
        return r;
    v[r] = '\0';
    *size = strtoll(v, NULL, 10);
    return 0;
}

static void seen_raise(struct rfile *rf, long long size)
{
    long long cur = atomic_load(&rf->seen);
    while (cur < size && !atomic_compare_exchange_weak(&rf->seen, &cur, size))
        ;
}

/* Make the stored size at least end (never lower it): the compare-and-set
 * of the top.  0, or -errno (-ENOENT: the file is gone). */
static int raise_size(struct rfile *rf, long long end)
{
    char v[SIZE_DIGITS];
    int r;
    if (end <= atomic_load(&rf->seen))
        return 0;
    size_str(v, end);
    rados_write_op_t op = lib.rados_create_write_op();
    if (!op)
        return RIO_E_NOMEM;
    lib.rados_write_op_assert_exists(op);
    lib.rados_write_op_cmpxattr(op, SIZE_XATTR, LIBRADOS_CMPXATTR_OP_GT, v, SIZE_DIGITS);
    lib.rados_write_op_setxattr(op, SIZE_XATTR, v, SIZE_DIGITS);
    r = lib.rados_write_op_operate(op, rf->io, rf->oid0, NULL, 0);
    lib.rados_release_write_op(op);
    if (r == -ECANCELED) /* a larger size is stored already */
        r = 0;
    if (r == 0)
        seen_raise(rf, end);
    return r;
}

/* Set the stored size to exactly size. */
static int store_size(struct rfile *rf, long long size)
{
    char v[SIZE_DIGITS];
    size_str(v, size);
    rados_write_op_t op = lib.rados_create_write_op();
    if (!op)
        return RIO_E_NOMEM;
    lib.rados_write_op_assert_exists(op);
    lib.rados_write_op_setxattr(op, SIZE_XATTR, v, SIZE_DIGITS);
    int r = lib.rados_write_op_operate(op, rf->io, rf->oid0, NULL, 0);
    lib.rados_release_write_op(op);
    if (r == 0)
        atomic_store(&rf->seen, size);
    return r;
}

/* ---- per-object operations, all in flight at once ------------------------------ */

/* A contiguous piece of one object and its memory. */
struct piece {
    long long obj, in;
    size_t len;
    char *mem;
    int seq; /* order of cutting: keeps a region's pieces in order in an object */
    size_t got;  /* read: bytes the OSD returned */
    int prval;   /* read: the piece's own result */
};

static int piece_cmp(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    if (x->obj != y->obj)
        return x->obj < y->obj ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Cut the n regions into pieces by object (merging a piece that continues
 * the previous one in object and memory), sorted by object.  *out
 * malloc'ed. */
static int cut(const struct rfile *rf, const struct rio_region *file, const struct iovec *mem,
               int n, struct piece **out, int *np)
{
    size_t cap = 16, k = 0;
    struct piece *p = rio__malloc(cap * sizeof *p);
    if (!p)
        return RIO_E_NOMEM;
    for (int i = 0; i < n; i++) {
        long long off = file[i].off, left = file[i].len;
        char *m = mem[i].iov_base;
        if (off < 0 || left < 0) {
            free(p);
            return RIO_E_ARG;
        }
        while (left > 0) {
            long long obj, in, run;
            locate(rf, off, &obj, &in, &run);
            long long len = RIO_MIN(run, left);
            if (k && p[k - 1].obj == obj && p[k - 1].in + (long long)p[k - 1].len == in &&
                p[k - 1].mem + p[k - 1].len == m) {
                p[k - 1].len += (size_t)len;
            } else {
                if (k == cap) {
                    struct piece *q = rio__realloc(p, 2 * cap * sizeof *p);
                    if (!q) {
                        free(p);
                        return RIO_E_NOMEM;
                    }
                    p = q;
                    cap *= 2;
                }
                p[k] = (struct piece){obj, in, (size_t)len, m, (int)k, 0, 0};
                k++;
            }
            off += len;
            m += len;
            left -= len;
        }
    }
    qsort(p, k, sizeof *p, piece_cmp);
    *out = p;
    *np = (int)k;
    return 0;
}

/*
 * Extents in one compound operation.  An OSD's cost of a compound write
 * grows with the square of its extents (measured here, memstore: 1024
 * 8-byte extents an object 0.52 s, 4096 5.3-9.6 s; 32768 held a placement
 * group for minutes; 65536 and more are refused with -EINVAL), so an
 * object with more pieces gets several operations, which RADOS applies in
 * the order one client issues them.
 */
#define OP_MAX_EXTENTS 256

/* The groups of the sorted pieces, one operation each: a new object, or
 * OP_MAX_EXTENTS pieces of one.  Fills first[] (ngroups + 1 entries) when
 * not NULL; returns the number of groups. */
static int groups(const struct piece *p, int np, int *first)
{
    int g = 0, start = 0;
    for (int i = 0; i < np; i++)
        if (i == 0 || p[i].obj != p[i - 1].obj || i - start == OP_MAX_EXTENTS) {
            if (first)
                first[g] = i;
            start = i;
            g++;
        }
    if (first)
        first[g] = np;
    return g;
}

/* One compound operation per object of the pieces (per OP_MAX_EXTENTS of
 * them), all issued, then all waited for.  Reads: an absent object reads
 * as zeros, a short one is zero-filled.  Returns the first error. */
static int per_object(struct rfile *rf, struct piece *p, int np, int write)
{
    int ngroups = groups(p, np, NULL), rc = 0;
    size_t oidlen = strlen(rf->name) + OID_HEX + 2;
    rados_completion_t *cs = rio__calloc((size_t)ngroups, sizeof *cs);
    void **ops = rio__calloc((size_t)ngroups, sizeof *ops);
    int *first = rio__calloc((size_t)ngroups + 1, sizeof *first);
    char *oids = rio__malloc((size_t)ngroups * oidlen);
    if (!cs || !ops || !first || !oids) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    groups(p, np, first);
    int issued = 0;
    for (int g = 0; g < ngroups && !rc; g++) {
        char *oid = oids + (size_t)g * oidlen;
        oid_of(oid, oidlen, rf->name, p[first[g]].obj);
        int r = lib.rados_aio_create_completion2(NULL, NULL, &cs[g]);
        if (r < 0) {
            rc = r;
            break;
        }
        if (write) {
            rados_write_op_t op = lib.rados_create_write_op();
            ops[g] = op;
            if (!op) {
                rc = RIO_E_NOMEM;
                break;
            }
            for (int i = first[g]; i < first[g + 1]; i++)
                lib.rados_write_op_write(op, p[i].mem, p[i].len, (uint64_t)p[i].in);
            r = lib.rados_aio_write_op_operate(op, rf->io, cs[g], oid, NULL, 0);
        } else {
            rados_read_op_t op = lib.rados_create_read_op();
            ops[g] = op;
            if (!op) {
                rc = RIO_E_NOMEM;
                break;
            }
            for (int i = first[g]; i < first[g + 1]; i++)
                lib.rados_read_op_read(op, (uint64_t)p[i].in, p[i].len, p[i].mem, &p[i].got,
                                       &p[i].prval);
            r = lib.rados_aio_read_op_operate(op, rf->io, cs[g], oid, 0);
        }
        if (r < 0)
            rc = r;
        else
            issued = g + 1;
    }
    /* wait for every operation issued, also after an error */
    for (int g = 0; g < ngroups; g++) {
        if (g < issued) {
            lib.rados_aio_wait_for_complete(cs[g]);
            int r = lib.rados_aio_get_return_value(cs[g]);
            if (!write && r == -ENOENT) { /* a hole: no object there */
                for (int i = first[g]; i < first[g + 1]; i++)
                    memset(p[i].mem, 0, p[i].len);
                r = 0;
            } else if (!write && r >= 0) {
                for (int i = first[g]; i < first[g + 1] && r >= 0; i++) {
                    if (p[i].prval < 0)
                        r = p[i].prval;
                    else if (p[i].got < p[i].len) /* past the object's end */
                        memset(p[i].mem + p[i].got, 0, p[i].len - p[i].got);
                }
            }
            if (r < 0 && !rc)
                rc = r;
        }
        if (cs[g])
            lib.rados_aio_release(cs[g]);
        if (ops[g]) {
            if (write)
                lib.rados_release_write_op(ops[g]);
            else
                lib.rados_release_read_op(ops[g]);
        }
    }
out:
    free(cs);
    free(ops);
    free(first);
    free(oids);
    return rc;
}

/* ---- open, close, remove ----------------------------------------------------- */

static void layout_str(char *out, size_t n, long long su, int sc, long long os)
{
    snprintf(out, n, "%lld %d %lld", su, sc, os);
}

/* Read object 0's layout.  -ENOENT when there is no object 0; -EIO with a
 * detail when it is not a file of this driver. */
static int read_layout(struct rfile *rf)
{
    char v[96];
    int r = lib.rados_getxattr(rf->io, rf->oid0, LAYOUT_XATTR, v, sizeof v - 1);
    if (r == -ENOENT)
        return r;
    if (r >= 0) {
        v[r] = '\0';
        if (sscanf(v, "%lld %d %lld", &rf->su, &rf->sc, &rf->os) == 3 && rf->su > 0 &&
            rf->sc > 0 && rf->os >= rf->su && rf->os % rf->su == 0)
            return 0;
    }
    rio__err_detail("rados: object %s of pool %s has no layout of a rados: file (%s)",
                    rf->oid0, rf->pool, r < 0 ? strerror(-r) : v);
    return -EIO;
}

/* Create object 0 (exclusively) with the layout and a size of 0. */
static int create_file(struct rfile *rf)
{
    char lv[96], sv[SIZE_DIGITS];
    layout_str(lv, sizeof lv, rf->su, rf->sc, rf->os);
    size_str(sv, 0);
    rados_write_op_t op = lib.rados_create_write_op();
    if (!op)
        return RIO_E_NOMEM;
    lib.rados_write_op_create(op, LIBRADOS_CREATE_EXCLUSIVE, NULL);
    lib.rados_write_op_setxattr(op, LAYOUT_XATTR, lv, strlen(lv));
    lib.rados_write_op_setxattr(op, SIZE_XATTR, sv, SIZE_DIGITS);
    int r = lib.rados_write_op_operate(op, rf->io, rf->oid0, NULL, 0);
    lib.rados_release_write_op(op);
    return r;
}

static int shrink(struct rfile *rf, long long size, long long old);

/* An existing file opened with O_CREAT whose layout the hints would
 * change: rewritten while the file is empty, RIO_E_LAYOUT otherwise. */
static int relayout(struct rfile *rf, const struct rio_layout *want)
{
    long long size = 0;
    int r = read_size(rf, &size);
    if (r < 0)
        return r;
    if (size > 0) {
        rio__err_detail("not empty, and a rados: file's layout is set while empty: unit/count/"
                        "object %lld/%d/%lld, asked %lld/%d/%lld",
                        rf->su, rf->sc, rf->os, want->unit, want->count, want->object_size);
        return RIO_E_LAYOUT;
    }
    /* objects of data past a size of 0 (an earlier shrink left none; a
     * racing writer's would be erroneous) are not looked for */
    char lv[96];
    layout_str(lv, sizeof lv, want->unit, want->count, want->object_size);
    rados_write_op_t op = lib.rados_create_write_op();
    if (!op)
        return RIO_E_NOMEM;
    lib.rados_write_op_assert_exists(op);
    lib.rados_write_op_setxattr(op, LAYOUT_XATTR, lv, strlen(lv));
    r = lib.rados_write_op_operate(op, rf->io, rf->oid0, NULL, 0);
    lib.rados_release_write_op(op);
    if (r == 0) {
        rf->su = want->unit;
        rf->sc = want->count;
        rf->os = want->object_size;
    }
    return r;
}

static void rf_free(struct rfile *rf)
{
    if (rf->io)
        lib.rados_ioctx_destroy(rf->io);
    if (rf->conn)
        rio__ceph_conn_put(&client, rf->conn);
    free(rf->pool);
    free(rf->name);
    free(rf->oid0);
    free(rf);
}

/* Connect and make the I/O context of path's pool: a new rfile. */
static int rf_new(const char *path, const struct rio_hints *hints, struct rfile **out)
{
    struct rfile *rf = rio__calloc(1, sizeof *rf);
    int rc;
    if (!rf)
        return RIO_E_NOMEM;
    if ((rc = parse_name(path, &rf->pool, &rf->name))) {
        free(rf);
        return rc;
    }
    size_t n = strlen(rf->name) + OID_HEX + 2;
    if (!(rf->oid0 = rio__malloc(n))) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    oid_of(rf->oid0, n, rf->name, 0);
    if ((rc = rio__ceph_conn_get(&client, hints, &rf->conn)))
        goto out;
    rc = lib.rados_ioctx_create(rf->conn->handle, rf->pool, &rf->io);
    if (rc < 0) {
        rf->io = NULL;
        rio__err_detail("rados: no pool '%s' in the cluster of %s", rf->pool,
                        *rf->conn->conf ? rf->conn->conf : "the default configuration");
    }
out:
    if (rc) {
        rf_free(rf);
        return rc;
    }
    *out = rf;
    return 0;
}

static int r_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                  const struct rio_hints *hints)
{
    struct rfile *rf = NULL;
    struct rio_layout base = {RADOS_DEFAULT_SIZE, 1, 1, RADOS_DEFAULT_SIZE}, want = base;
    (void)perm; /* RADOS objects have no permissions */
    int wanted = rio__store_layout_wanted(hints, &base, &want), created = 0;
    int rc = rf_new(path, hints, &rf);
    if (rc)
        return rc;
    rf->accmode = oflags & O_ACCMODE;
    if (wanted && (want.unit <= 0 || want.count <= 0 || want.object_size < want.unit ||
                   want.object_size % want.unit)) {
        rio__err_detail("rados: the layout unit/count/object %lld/%d/%lld is not one (the "
                        "object size must be whole units)",
                        want.unit, want.count, want.object_size);
        rc = RIO_E_LAYOUT;
        goto out;
    }
    for (int tries = 0; tries < 2; tries++) {
        rc = read_layout(rf);
        if (rc != -ENOENT || !(oflags & O_CREAT))
            break;
        rf->su = want.unit;
        rf->sc = want.count;
        rf->os = want.object_size;
        rc = create_file(rf);
        created = rc == 0;
        if (rc != -EEXIST) /* made it, or failed */
            break;
        if (oflags & O_EXCL) /* made by another process meanwhile */
            break;
    }
    if (rc == 0 && !created && (oflags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
        rc = -EEXIST;
    if (rc < 0) {
        /* short: the edge keeps 255 characters, and the file's name (in
         * the message's head) must survive */
        if (rc == -ENOENT)
            rio__err_detail("rados: no object 0 of it in pool %s", rf->pool);
        else if (rc == -EEXIST)
            rio__err_detail("rados: its object 0 exists in pool %s", rf->pool);
        else
            rio__ceph_timed_out(rf->conn, rc, "object 0, which holds the layout");
        goto out;
    }
    if (wanted && (oflags & O_CREAT) && !created &&
        (rf->su != want.unit || rf->sc != want.count || rf->os != want.object_size) &&
        (rc = relayout(rf, &want)))
        goto out;
    if ((oflags & O_TRUNC) && rf->accmode != O_RDONLY) {
        long long old = 0;
        if ((rc = read_size(rf, &old)) == 0 && old > 0)
            rc = shrink(rf, 0, old);
    }
out:
    if (rc) {
        rf_free(rf);
        return rc;
    }
    st->priv = rf;
    return 0;
}

static int r_close(struct rio_store *st)
{
    if (st->priv)
        rf_free(rf_of(st));
    st->priv = NULL;
    return 0;
}

/* Is oid NAME.<16 hex digits> of the file named name? */
static int is_object_of(const char *oid, const char *name, size_t nlen)
{
    if (strncmp(oid, name, nlen) || oid[nlen] != '.' || strlen(oid + nlen + 1) != OID_HEX)
        return 0;
    for (const char *c = oid + nlen + 1; *c; c++)
        if (!strchr("0123456789abcdef", *c))
            return 0;
    return 1;
}

/* Every object of the file, found by listing the pool (objects past the
 * size, a writer's that had not raised it yet, included), removed at once;
 * object 0, which makes the file, last.  Cost: a listing of the whole
 * pool. */
static int r_remove(const char *path, const struct rio_hints *hints)
{
    struct rfile *rf = NULL;
    rados_list_ctx_t ctx;
    int rc = rf_new(path, hints, &rf);
    if (rc)
        return rc;
    if ((rc = read_layout(rf)) < 0)
        goto out;
    rc = lib.rados_nobjects_list_open(rf->io, &ctx);
    if (rc < 0)
        goto out;
    size_t nlen = strlen(rf->name), cap = 0, n = 0;
    char **found = NULL;
    const char *entry;
    int r;
    while ((r = lib.rados_nobjects_list_next(ctx, &entry, NULL, NULL)) == 0) {
        if (!is_object_of(entry, rf->name, nlen) || !strcmp(entry, rf->oid0))
            continue;
        if (n == cap) {
            char **q = rio__realloc(found, (cap = cap ? 2 * cap : 64) * sizeof *q);
            if (!q) {
                rc = RIO_E_NOMEM;
                break;
            }
            found = q;
        }
        if (!(found[n] = rio__strdup(entry))) {
            rc = RIO_E_NOMEM;
            break;
        }
        n++;
    }
    lib.rados_nobjects_list_close(ctx);
    if (!rc && r != -ENOENT) /* -ENOENT ends the listing */
        rc = r;
    if (!rc) {
        rados_completion_t *cs = rio__calloc(n ? n : 1, sizeof *cs);
        size_t issued = 0;
        if (!cs)
            rc = RIO_E_NOMEM;
        for (; !rc && issued < n; issued++) {
            rados_write_op_t op = lib.rados_create_write_op();
            if (!op || lib.rados_aio_create_completion2(NULL, NULL, &cs[issued]) < 0) {
                if (op)
                    lib.rados_release_write_op(op);
                rc = RIO_E_NOMEM;
                break;
            }
            lib.rados_write_op_remove(op);
            r = lib.rados_aio_write_op_operate(op, rf->io, cs[issued], found[issued], NULL, 0);
            lib.rados_release_write_op(op); /* the operation keeps its own copy */
            if (r < 0) {
                lib.rados_aio_release(cs[issued]);
                rc = r;
                break;
            }
        }
        for (size_t i = 0; i < issued; i++) {
            lib.rados_aio_wait_for_complete(cs[i]);
            r = lib.rados_aio_get_return_value(cs[i]);
            if (r < 0 && r != -ENOENT && !rc)
                rc = r;
            lib.rados_aio_release(cs[i]);
        }
        free(cs);
    }
    for (size_t i = 0; i < n; i++)
        free(found[i]);
    free(found);
    if (!rc)
        rc = lib.rados_remove(rf->io, rf->oid0);
out:
    if (rc == -ENOENT)
        rio__err_detail("rados: no object 0 of it in pool %s", rf->pool);
    rf_free(rf);
    return rc;
}

/* ---- size ------------------------------------------------------------------------ */

static int r_get_size(struct rio_store *st, MPI_Offset *size)
{
    struct rfile *rf = rf_of(st);
    long long s = 0;
    int r = read_size(rf, &s);
    if (r < 0)
        return rio__ceph_timed_out(rf->conn, r, NULL);
    atomic_store(&rf->seen, s);
    *size = s;
    return 0;
}

/* The size first (readers stop there), then every object that may hold
 * bytes past it cut to what it keeps below (removed when nothing). */
static int shrink(struct rfile *rf, long long size, long long old)
{
    int rc = store_size(rf, size);
    if (rc)
        return rc;
    long long nobj = objects_of(rf, old), first = 0;
    /* objects holding nothing below size past the last that does: removed */
    size_t oidlen = strlen(rf->name) + OID_HEX + 2;
    rados_completion_t *cs = rio__calloc((size_t)nobj, sizeof *cs);
    char *oid = rio__malloc(oidlen);
    if (!cs || !oid) {
        free(cs);
        free(oid);
        return RIO_E_NOMEM;
    }
    long long issued = 0;
    for (long long o = first; o < nobj && !rc; o++, issued++) {
        long long keep = kept_bytes(rf, o, size);
        rados_write_op_t op = lib.rados_create_write_op();
        if (!op || lib.rados_aio_create_completion2(NULL, NULL, &cs[o]) < 0) {
            if (op)
                lib.rados_release_write_op(op);
            rc = RIO_E_NOMEM;
            break;
        }
        lib.rados_write_op_assert_exists(op); /* an absent object stays absent */
        if (keep == 0 && o != 0)
            lib.rados_write_op_remove(op);
        else
            lib.rados_write_op_truncate(op, (uint64_t)keep);
        oid_of(oid, oidlen, rf->name, o);
        int r = lib.rados_aio_write_op_operate(op, rf->io, cs[o], oid, NULL, 0);
        lib.rados_release_write_op(op);
        if (r < 0) {
            lib.rados_aio_release(cs[o]);
            rc = r;
            break;
        }
    }
    for (long long o = 0; o < issued; o++) {
        lib.rados_aio_wait_for_complete(cs[o]);
        int r = lib.rados_aio_get_return_value(cs[o]);
        if (r < 0 && r != -ENOENT && !rc)
            rc = r;
        lib.rados_aio_release(cs[o]);
    }
    free(cs);
    free(oid);
    return rc;
}

static int r_set_size(struct rio_store *st, MPI_Offset size)
{
    struct rfile *rf = rf_of(st);
    long long old = 0;
    if (size < 0)
        return RIO_E_ARG;
    if (rf->accmode == O_RDONLY)
        return -EBADF;
    int r = read_size(rf, &old);
    if (r == 0) /* extending only sets the size: the bytes between read as zeros */
        r = size >= old ? store_size(rf, size) : shrink(rf, size, old);
    return rio__ceph_timed_out(rf->conn, r, NULL);
}

/* Preallocate: the size reaches off+len (reading zeros there), which is
 * what MPI_File_preallocate promises; RADOS reserves no space ahead. */
static int r_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct rfile *rf = rf_of(st);
    if (off < 0 || len < 0)
        return RIO_E_ARG;
    if (rf->accmode == O_RDONLY)
        return -EBADF;
    atomic_store(&rf->seen, 0); /* ask object 0, not what this process saw */
    return len ? rio__ceph_timed_out(rf->conn, raise_size(rf, off + len), NULL) : 0;
}

/* A write is acknowledged once durable on every replica: nothing to flush.
 * The remembered size is dropped: another process may have shrunk the
 * file since (see the top). */
static int r_sync(struct rio_store *st)
{
    atomic_store(&rf_of(st)->seen, 0);
    return 0;
}

static int r_layout(struct rio_store *st, struct rio_layout *out)
{
    struct rfile *rf = rf_of(st);
    out->unit = rf->su;
    out->count = rf->sc;
    out->object_size = rf->os;
    out->known = 1;
    return 0;
}

/* s as a JSON string's contents into out; -EINVAL for a control character. */
static int json_str(char *out, size_t n, const char *s)
{
    size_t k = 0;
    for (; *s; s++) {
        if ((unsigned char)*s < 0x20 || k + 3 > n)
            return -EINVAL;
        if (*s == '"' || *s == '\\')
            out[k++] = '\\';
        out[k++] = *s;
    }
    out[k] = '\0';
    return 0;
}

/* The primary OSD of object oid of pool, by the monitor ("osd map"). */
static int osd_map(void *cluster, const char *pool, const char *oid, int *osd)
{
    char p[512], o[1024], cmd[1700];
    if (json_str(p, sizeof p, pool) || json_str(o, sizeof o, oid))
        return -EINVAL;
    snprintf(cmd, sizeof cmd,
             "{\"prefix\": \"osd map\", \"pool\": \"%s\", \"object\": \"%s\", "
             "\"format\": \"json\"}",
             p, o);
    const char *cmds[1] = {cmd};
    char *out = NULL, *sts = NULL;
    size_t outlen = 0, stslen = 0;
    int rc = lib.rados_mon_command(cluster, cmds, 1, "", 0, &out, &outlen, &sts, &stslen);
    if (!rc) { /* {..., "acting_primary": N, ...} */
        const char *key = "\"acting_primary\":";
        char *txt = rio__malloc(outlen + 1);
        rc = -ENOMEM;
        if (txt) {
            memcpy(txt, out, outlen);
            txt[outlen] = '\0';
            const char *at = strstr(txt, key);
            rc = at ? 0 : -EPROTO;
            if (at)
                *osd = atoi(at + strlen(key));
            free(txt);
        }
    }
    if (out)
        lib.rados_buffer_free(out);
    if (sts)
        lib.rados_buffer_free(sts);
    return rc;
}

/* The primary OSD of objects prefix.<first + i in digits hex digits>, one
 * monitor round trip each (librados's C API computes no placement). */
static int osds_of(void *cluster, const char *pool, const char *prefix, int digits,
                   long long first, int n, int *out)
{
    size_t len = strlen(prefix) + (size_t)digits + 20;
    char *oid = rio__malloc(len);
    int rc = oid ? 0 : -ENOMEM;
    for (int i = 0; !rc && i < n; i++) {
        snprintf(oid, len, "%s.%0*llx", prefix, digits, (unsigned long long)(first + i));
        rc = osd_map(cluster, pool, oid, &out[i]);
    }
    free(oid);
    return rc;
}

static int r_servers(struct rio_store *st, long long first, int n, int *out)
{
    struct rfile *rf = rf_of(st);
    return osds_of(rf->conn->handle, rf->pool, rf->name, OID_HEX, first, n, out);
}

/* Contract in ceph_common.h. */
int rio__rados_osds(struct rio_ceph_conn **conn, const struct rio_hints *hints, const char *pool,
                    const char *prefix, int digits, long long first, int n, int *out)
{
    int rc = *conn ? 0 : rio__ceph_conn_get(&client, hints, conn);
    if (rc)
        return rc;
    return osds_of((*conn)->handle, pool, prefix, digits, first, n, out);
}

/* The map's connections outlive the file that made them: each is kept
 * (the connection table marks it, ceph_common.c) for the process's next
 * files and given back at MPI_Finalize (an MPI_COMM_SELF attribute).  A
 * new connection costs 6-8 ms and its end 1.5 ms here, and the bench's
 * files (one per phase) paid both in each timed phase; the exception to
 * ceph_common.c's rule (dropped at the last close) costs the cluster one
 * idle librados session per process. */
static int kept_keyval = MPI_KEYVAL_INVALID;
static pthread_once_t kept_once = PTHREAD_ONCE_INIT;

static int kept_release(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm, (void)keyval, (void)val, (void)extra;
    rio__ceph_conn_unkeep_all(&client);
    return MPI_SUCCESS;
}

/* The finalize hook; kept_keyval stays invalid when it cannot be set,
 * and then nothing is kept. */
static void kept_setup(void)
{
    int kv = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, kept_release, &kv, NULL) != MPI_SUCCESS)
        return;
    if (MPI_Comm_set_attr(MPI_COMM_SELF, kv, NULL) != MPI_SUCCESS) {
        MPI_Comm_free_keyval(&kv);
        return;
    }
    kept_keyval = kv;
}

int rio__rados_osds_done(struct rio_ceph_conn **conn)
{
    if (!*conn)
        return 0;
    pthread_once(&kept_once, kept_setup); /* kept_keyval is final after it */
    /* the file's hold becomes the process's, unless it has one already */
    int keep = kept_keyval != MPI_KEYVAL_INVALID && rio__ceph_conn_keep(&client, *conn);
    int rc = keep ? 0 : rio__ceph_conn_put(&client, *conn);
    *conn = NULL;
    return rc;
}

/* ---- transfers ------------------------------------------------------------------------ */

static int r_write_list(struct rio_store *st, const struct rio_region *file,
                        const struct iovec *mem, int n)
{
    struct rfile *rf = rf_of(st);
    struct piece *p = NULL;
    int np = 0, rc;
    long long end = 0;
    if (rf->accmode == O_RDONLY)
        return -EBADF;
    if ((rc = cut(rf, file, mem, n, &p, &np)))
        return rc;
    for (int i = 0; i < n; i++)
        if (file[i].len > 0)
            end = RIO_MAX(end, file[i].off + file[i].len);
    rc = np ? per_object(rf, p, np, 1) : 0;
    free(p);
    if (!rc && end > 0)
        rc = raise_size(rf, end);
    return rio__ceph_timed_out(rf->conn, rc, NULL);
}

/* The reads and the size read go out together; what lies past the size is
 * then not counted. */
static int r_read_list(struct rio_store *st, const struct rio_region *file,
                       const struct iovec *mem, int n, MPI_Offset *done)
{
    struct rfile *rf = rf_of(st);
    struct piece *p = NULL;
    rados_completion_t sc = NULL;
    char sv[SIZE_DIGITS + 1];
    int np = 0, rc, r;
    *done = 0;
    if (rf->accmode == O_WRONLY)
        return -EBADF;
    if ((rc = cut(rf, file, mem, n, &p, &np)))
        return rc;
    if ((rc = lib.rados_aio_create_completion2(NULL, NULL, &sc)) < 0) {
        free(p);
        return rc;
    }
    rc = lib.rados_aio_getxattr(rf->io, rf->oid0, sc, SIZE_XATTR, sv, SIZE_DIGITS);
    if (rc == 0) {
        int rd = np ? per_object(rf, p, np, 0) : 0;
        lib.rados_aio_wait_for_complete(sc);
        r = lib.rados_aio_get_return_value(sc);
        if (r == -ENODATA)
            r = -ENOENT;
        rc = r < 0 ? r : rd;
        if (rc == 0) {
            sv[r] = '\0';
            long long size = strtoll(sv, NULL, 10);
            seen_raise(rf, size);
            for (int i = 0; i < n; i++) {
                long long got = RIO_MAX(0, RIO_MIN(file[i].len, size - file[i].off));
                *done += got;
                if (got < file[i].len)
                    break;
            }
        }
    }
    lib.rados_aio_release(sc);
    free(p);
    return rio__ceph_timed_out(rf->conn, rc, NULL);
}

static ssize_t r_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    struct rio_region reg = {off, (MPI_Offset)len};
    struct iovec iov = {buf, len};
    MPI_Offset done = 0;
    int rc = r_read_list(st, &reg, &iov, 1, &done);
    return rc ? rc : (ssize_t)done;
}

static ssize_t r_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    struct rio_region reg = {off, (MPI_Offset)len};
    struct iovec iov = {(void *)buf, len};
    int rc = r_write_list(st, &reg, &iov, 1);
    return rc ? rc : (ssize_t)len;
}

/* ---- datatype I/O at the OSD ------------------------------------------------------
 * A view's transfer goes to each object it touches either as the
 * filetype's dataloop and that object's bytes, expanded by the OSD's lua
 * class (ceph_lua.h), all objects at once: one request per object whatever
 * the number of regions; or as list I/O, one compound operation per object
 * per OP_MAX_EXTENTS of its extents.  Where the class cannot take the
 * request (a tree the wire cannot carry, too many pieces), and for reads
 * that reach past the size (whose byte count the list path works out),
 * the view goes as list I/O whatever was chosen.
 *
 * Which path is faster depends on the shape (docs/ceph-lua.md, memstore):
 * the OSD's cost of list I/O grows with the extents of an object, more
 * than linearly inside one compound operation (8-byte extents 64 bytes
 * apart, 4096 an object: 5.3-9.6 s as one operation, 0.03-0.04 s through
 * the class's span mode); the class costs a script compiled on the OSD per
 * object, and its span mode reads (and for a write writes back) the
 * object's whole range from its first extent to its last, gaps included.
 * So a request shape is keyed by the mean extents per object of the call
 * (what list I/O pays for, and what spreads the class's cost per object)
 * and the mean gap between extents (what the span mode pays for beyond
 * the data), each as a floor(log2): thousands of 8-byte extents 56 bytes
 * apart an object is where the class won 100 times; a few extents an
 * object, or extents far apart, is where list I/O moves fewer bytes for
 * the same requests.  Neither the key nor the choice needs the size of
 * the extents: both paths move the data bytes once.
 *
 * resonio_rados_view=lua or list forces a path; auto (the default)
 * measures, per process (not per file: see views), per direction and per
 * shape: the calls of a shape alternate between the lua path and the list
 * path, lua first, until each has run VIEW_SAMPLES times, each timed (wall
 * time per byte of the call, from cutting the request to the last reply,
 * without the size's own request); from then on the shape keeps the path
 * whose best sample was faster (the least of a path's samples, as a first
 * call can pay for what later calls find ready: the OSD compiling the
 * class's script, objects coming into being); a path that failed (or that the class could not take) is not
 * kept, and a shape whose paths both failed starts measuring again.  A
 * table of VIEW_BUCKETS shapes per direction, reused round robin, keeps
 * this small and its outcome a function of the calls made.  Every rank
 * measures and decides on its own, without MPI: the two paths put the
 * same bytes in the same places, and the OSD runs each request on an
 * object as one operation (the span mode's read, patch and write
 * included), so ranks that chose differently still leave the file as
 * either path alone would; only the requests differ, and each rank's
 * measure is the time of its own calls.  RESONIO_VERBOSE prints each
 * shape's two times and choice on stderr. */

#define VIEW_BATCH 1024

/* The view's regions as list I/O, VIEW_BATCH at a time. */
static int view_list(struct rio_store *st, int wr, const struct rio_dtype *ft, MPI_Offset disp,
                     MPI_Offset pos, char *buf, MPI_Offset len, MPI_Offset *done)
{
    struct rio_dtype_iter it;
    struct rio_region reg[VIEW_BATCH];
    struct iovec mem[VIEW_BATCH];
    MPI_Offset left = len, off, l, moved = 0;
    int rc = rio__dtype_iter_init(&it, ft, -1, pos), more = 1;
    if (done)
        *done = 0;
    while (!rc && more) {
        int n = 0;
        MPI_Offset bytes = 0;
        while (n < VIEW_BATCH && left > 0 && (more = rio__dtype_iter_next(&it, left, &off, &l))) {
            reg[n] = (struct rio_region){disp + off, l};
            mem[n] = (struct iovec){buf + moved + bytes, (size_t)l};
            bytes += l;
            left -= l;
            n++;
        }
        more = more && left > 0;
        if (n == 0)
            break;
        if (wr) {
            rc = r_write_list(st, reg, mem, n);
        } else {
            MPI_Offset got = 0;
            rc = r_read_list(st, reg, mem, n, &got);
            if (!rc && got < bytes) {
                moved += got;
                break;
            }
        }
        moved += bytes;
    }
    rio__dtype_iter_free(&it);
    if (done)
        *done = moved;
    return rc;
}

/* The view's transfer through the lua class; 1 when the class cannot take
 * it (nothing sent), 0 or -errno. */
static int view_lua(struct rfile *rf, int wr, const struct rio_dtype *ft, MPI_Offset disp,
                    MPI_Offset pos, char *buf, MPI_Offset len)
{
    struct rio_cls_lua_layout lay = {rf->su, rf->sc, rf->os};
    struct rio_cls_lua_req r;
    size_t cap = 64, nobj = 0;
    int64_t *objs = NULL;
    memset(&r, 0, sizeof r);
    int rc = rio__cls_lua_req_init(&r, rio__dtype_dloop(ft), rio__dtype_info(ft)->extent, disp,
                                   pos, len, &lay);
    while (!rc) {
        int64_t *v = rio__realloc(objs, cap * sizeof *objs);
        if (!v) {
            rc = -ENOMEM;
            break;
        }
        objs = v;
        rc = rio__cls_lua_objects(&r, objs, cap, &nobj);
        if (rc != -ENOSPC || cap >= ((size_t)1 << 20))
            break;
        rc = 0;
        cap *= 2;
    }
    if (rc) { /* nothing sent: the list path */
        rio__cls_lua_req_fini(&r);
        free(objs);
        return 1;
    }
    struct vop {
        rados_completion_t c;
        void *op;
        unsigned char *in, *packed;
        char *out;
        size_t outlen, n;
        int prval;
    } *ops = rio__calloc(nobj ? nobj : 1, sizeof *ops);
    size_t oidlen = strlen(rf->name) + OID_HEX + 2, issued = 0;
    char *oid = rio__malloc(oidlen);
    rc = ops && oid ? 0 : -ENOMEM;
    for (size_t i = 0; !rc && i < nobj; i++) {
        struct vop *o = &ops[i];
        size_t inlen = 0;
        if (wr) { /* this object's bytes, counted, then packed */
            rc = rio__cls_lua_gather(&r, objs[i], NULL, NULL, &o->n);
            if (!rc)
                o->packed = rio__malloc(o->n ? o->n : 1);
            if (!rc)
                rc = o->packed ? rio__cls_lua_gather(&r, objs[i], buf, o->packed, &o->n)
                               : -ENOMEM;
        }
        if (!rc)
            rc = rio__cls_lua_op(&r, objs[i], wr, RIO_CLS_LUA_AUTO, o->packed, wr ? o->n : 0,
                                 &o->in, &inlen);
        if (!rc)
            rc = lib.rados_aio_create_completion2(NULL, NULL, &o->c);
        if (rc)
            break;
        oid_of(oid, oidlen, rf->name, objs[i]);
        o->prval = 0;
        if (wr) {
            o->op = lib.rados_create_write_op();
            if (!o->op) {
                rc = -ENOMEM;
                break;
            }
            lib.rados_write_op_exec(o->op, RIO_CLS_LUA_CLASS, RIO_CLS_LUA_METHOD,
                                    (const char *)o->in, inlen, &o->prval);
            rc = lib.rados_aio_write_op_operate(o->op, rf->io, o->c, oid, NULL, 0);
        } else {
            o->op = lib.rados_create_read_op();
            if (!o->op) {
                rc = -ENOMEM;
                break;
            }
            lib.rados_read_op_exec(o->op, RIO_CLS_LUA_CLASS, RIO_CLS_LUA_METHOD,
                                   (const char *)o->in, inlen, &o->out, &o->outlen, &o->prval);
            rc = lib.rados_aio_read_op_operate(o->op, rf->io, o->c, oid, 0);
        }
        if (!rc)
            issued = i + 1;
    }
    for (size_t i = 0; ops && i < nobj; i++) { /* every one issued, also after an error */
        struct vop *o = &ops[i];
        if (i < issued) {
            lib.rados_aio_wait_for_complete(o->c);
            int e = lib.rados_aio_get_return_value(o->c);
            if (e >= 0 && o->prval < 0)
                e = o->prval;
            if (!e && !wr)
                e = rio__cls_lua_scatter(&r, objs[i], o->out, o->outlen, buf);
            if (e < 0 && !rc)
                rc = e;
        }
        if (o->c)
            lib.rados_aio_release(o->c);
        if (o->op) {
            if (wr)
                lib.rados_release_write_op(o->op);
            else
                lib.rados_release_read_op(o->op);
        }
        if (o->out)
            lib.rados_buffer_free(o->out);
        free(o->in);
        free(o->packed);
    }
    free(ops);
    free(oid);
    free(objs);
    rio__cls_lua_req_fini(&r);
    return rc;
}

static int verbose(void)
{
    const char *v = getenv("RESONIO_VERBOSE");
    return v && *v && strcmp(v, "0") != 0;
}

static int ilog2(double x)
{
    int k = 0;
    while (x >= 2.0 && k < 62) {
        x /= 2.0;
        k++;
    }
    return k;
}

/* The shape key of a call of len stream bytes spanning file bytes
 * [first, end): mean extents per object (the objects estimated from the
 * stripe units the span crosses, at most the stripe count per object
 * set) and mean gap, each as a floor(log2); no view walk. */
static void view_key(const struct rfile *rf, const struct rio_dtype *ft, MPI_Offset first,
                     MPI_Offset end, MPI_Offset len, int *kx, int *kg)
{
    const struct rio_dtype_info *fi = rio__dtype_info(ft);
    double mean = fi->regions > 0 && fi->size > 0 ? (double)fi->size / (double)fi->regions
                                                  : (double)len;
    double nreg = RIO_MAX(1.0, (double)len / mean);
    long long b0 = first / rf->su, b1 = (end - 1) / rf->su, per_set = rf->sc * (rf->os / rf->su);
    long long nobj = RIO_MIN(b1 - b0 + 1, (b1 / per_set - b0 / per_set + 1) * rf->sc);
    double gap = nreg > 1.0 ? (double)(end - first - len) / (nreg - 1.0) : 0.0;
    *kx = ilog2(nreg / (double)RIO_MAX(1, nobj));
    *kg = gap < 1.0 ? 0 : 1 + ilog2(gap);
}

/* The bucket of key (kx, kg) in t, made (or a used one taken over, round
 * robin) when create; NULL when absent and not create.  Caller holds views.mu. */
static struct vbucket *bucket_of(struct vtable *t, int kx, int kg, int create)
{
    for (int i = 0; i < VIEW_BUCKETS; i++)
        if (t->b[i].used && t->b[i].kx == kx && t->b[i].kg == kg)
            return &t->b[i];
    if (!create)
        return NULL;
    int i = 0;
    while (i < VIEW_BUCKETS && t->b[i].used)
        i++;
    if (i == VIEW_BUCKETS) {
        i = t->next;
        t->next = (t->next + 1) % VIEW_BUCKETS;
    }
    struct vbucket *b = &t->b[i];
    *b = (struct vbucket){.used = 1, .kx = kx, .kg = kg, .t = {-1.0, -1.0}, .kept = -1};
    return b;
}

/* The path a call of shape (kx, kg) takes under the resonio_rados_view
 * setting mode. */
static int view_pick(struct rfile *rf, int wr, int mode, int kx, int kg)
{
    if (mode == RIO_RADOS_VIEW_LUA)
        return PATH_LUA;
    if (mode == RIO_RADOS_VIEW_LIST)
        return PATH_LIST;
    pthread_mutex_lock(&views.mu);
    struct vbucket *b = bucket_of(&views.vt[wr], kx, kg, 1);
    int path = b->kept;
    if (path < 0) /* measuring: the path with fewer samples, lua on a tie */
        path = !b->failed[PATH_LUA] &&
                       (b->failed[PATH_LIST] || b->samples[PATH_LUA] <= b->samples[PATH_LIST])
                   ? PATH_LUA
                   : PATH_LIST;
    pthread_mutex_unlock(&views.mu);
    return path;
}

/* Record a call of shape (kx, kg) that ran path in secs for len bytes
 * (rc its outcome; lua_declined: the class could not take it, and path
 * is the list path that then ran) and choose once both paths are known. */
static void view_record(struct rfile *rf, int wr, int mode, int kx, int kg, int path,
                        int lua_declined, int rc, double secs, MPI_Offset len)
{
    if (mode != RIO_RADOS_VIEW_AUTO)
        return;
    pthread_mutex_lock(&views.mu);
    struct vbucket *b = bucket_of(&views.vt[wr], kx, kg, 1);
    b->runs[path]++;
    if (b->kept < 0) {
        if (lua_declined)
            b->failed[PATH_LUA] = 1;
        double t = secs / (double)len;
        if (rc) {
            b->failed[path] = 1;
        } else if (b->samples[path] < VIEW_SAMPLES) {
            b->samples[path]++;
            if (b->t[path] < 0 || t < b->t[path])
                b->t[path] = t;
        }
        int known = 1;
        for (int p = 0; p < 2; p++)
            known &= b->failed[p] || b->samples[p] == VIEW_SAMPLES;
        if (known && b->failed[PATH_LUA] && b->failed[PATH_LIST]) {
            /* measure again */
            for (int p = 0; p < 2; p++) {
                b->t[p] = -1.0;
                b->samples[p] = b->failed[p] = 0;
            }
        } else if (known) {
            b->kept = b->failed[PATH_LUA]    ? PATH_LIST
                      : b->failed[PATH_LIST] ? PATH_LUA
                      : b->t[PATH_LIST] < b->t[PATH_LUA] ? PATH_LIST
                                                          : PATH_LUA;
            char gap[32] = "none";
            if (kg)
                snprintf(gap, sizeof gap, "2^%d", kg - 1);
            if (verbose())
                fprintf(stderr,
                        "resonio: rados:%s/%s %s views of 2^%d extents an object, gap %s: "
                        "lua %.3g us/KiB%s, list %.3g us/KiB%s: keeps %s\n",
                        rf->pool, rf->name, wr ? "write" : "read", kx, gap,
                        b->t[PATH_LUA] * 1024e6,
                        b->failed[PATH_LUA] ? " (failed or not taken)" : "",
                        b->t[PATH_LIST] * 1024e6, b->failed[PATH_LIST] ? " (failed)" : "",
                        b->kept == PATH_LUA ? "lua" : "list");
        }
    }
    pthread_mutex_unlock(&views.mu);
}

/* One view transfer by the chosen path, timed and recorded.  For reads
 * *done is set (the lua path answers whole: len). */
static int view_rw(struct rio_store *st, int wr, const struct rio_dtype *ft, MPI_Offset disp,
                   MPI_Offset pos, char *buf, MPI_Offset len, MPI_Offset first, MPI_Offset end,
                   MPI_Offset *done)
{
    struct rfile *rf = rf_of(st);
    const struct rio_ceph_settings *s = rio__settings_get(st->hints, &rio__ceph_settings_owner);
    int kx = 0, kg = 0, rc = 1, declined = 0;
    int mode = s->rados_view;
    if (mode == RIO_RADOS_VIEW_AUTO)
        view_key(rf, ft, first, end, len, &kx, &kg);
    int path = view_pick(rf, wr, mode, kx, kg);
    double t0 = rio__now();
    if (path == PATH_LUA) {
        rc = view_lua(rf, wr, ft, disp, pos, buf, len);
        if (rc != 1 && done)
            *done = rc ? 0 : len;
        declined = rc == 1;
    }
    if (rc == 1) {
        path = PATH_LIST;
        rc = view_list(st, wr, ft, disp, pos, buf, len, done);
    }
    view_record(rf, wr, mode, kx, kg, path, declined, rc, rio__now() - t0, len);
    return rio__ceph_timed_out(rf->conn, rc, NULL);
}

static int r_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                        MPI_Offset pos, const void *buf, MPI_Offset len)
{
    struct rfile *rf = rf_of(st);
    MPI_Offset first, end;
    if (rf->accmode == O_RDONLY)
        return -EBADF;
    if (len <= 0)
        return 0;
    rio__dtype_view_extent(ft, disp, pos, len, &first, &end);
    int rc = view_rw(st, 1, ft, disp, pos, (char *)buf, len, first, end, NULL);
    /* the list path raised the size already; a second raise is a no-op */
    return rc ? rc : rio__ceph_timed_out(rf->conn, raise_size(rf, end), NULL);
}

static int r_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                       MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    struct rfile *rf = rf_of(st);
    MPI_Offset first, end;
    long long size = 0;
    *done = 0;
    if (rf->accmode == O_WRONLY)
        return -EBADF;
    if (len <= 0)
        return 0;
    rio__dtype_view_extent(ft, disp, pos, len, &first, &end);
    int rc = read_size(rf, &size);
    if (rc)
        return rio__ceph_timed_out(rf->conn, rc, NULL);
    if (end > size) /* the list path counts what lies below the size: no choice */
        return view_list(st, 0, ft, disp, pos, buf, len, done);
    return view_rw(st, 0, ft, disp, pos, buf, len, first, end, done);
}

/* Contract in ceph_common.h. */
int rio__rados_view_buckets(struct rio_store *st, int write, struct rio_rados_view_bucket *out,
                            int max)
{
    while (st && st->ops && st->ops->wraps)
        st = rio__store_wrap_inner(st);
    if (!st || !st->ops || st->ops->write_view != r_write_view || !st->priv)
        return -EINVAL;
    struct vtable *t = &views.vt[write != 0];
    int n = 0;
    pthread_mutex_lock(&views.mu);
    for (int i = 0; i < VIEW_BUCKETS; i++) {
        const struct vbucket *b = &t->b[i];
        if (!b->used)
            continue;
        if (n < max) {
            struct rio_rados_view_bucket *o = &out[n];
            o->extents_log2 = b->kx;
            o->gap_log2 = b->kg;
            for (int p = 0; p < 2; p++) {
                o->s_per_byte[p] = b->t[p];
                o->failed[p] = b->failed[p];
                o->runs[p] = b->runs[p];
            }
            o->kept = b->kept < 0               ? RIO_RADOS_VIEW_AUTO
                      : b->kept == PATH_LUA ? RIO_RADOS_VIEW_LUA
                                            : RIO_RADOS_VIEW_LIST;
        }
        n++;
    }
    pthread_mutex_unlock(&views.mu);
    return n;
}

const struct rio_store_ops rio__store_rados = {
    .name = "rados",
    .version = RIO_STORE_OPS_VERSION,
    .open = r_open,
    .close = r_close,
    .remove = r_remove,
    .get_size = r_get_size,
    .set_size = r_set_size,
    .allocate = r_allocate,
    .sync = r_sync,
    .pread = r_pread,
    .pwrite = r_pwrite,
    .read_list = r_read_list,
    .write_list = r_write_list,
    .layout = r_layout,
    .servers = r_servers,
    .write_view = r_write_view,
    .read_view = r_read_view,
    .settings = &rio__ceph_settings_owner,
    .caps = RIO_STORE_CAP_OWN_VIEWS,
};

#endif /* RIO_HAVE_RADOS */
