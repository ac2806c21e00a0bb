/*
 * posix.c — the default storage driver: any POSIX file system.
 *
 * Plain transfers are pread/pwrite/preadv/pwritev on one descriptor.  The
 * file is opened without O_APPEND even when asked for it: on Linux pwrite
 * on an O_APPEND descriptor ignores its offset, and MPI_MODE_APPEND only
 * means "file pointers start at the end", which the file layer does.
 *
 * Direct I/O (hints direct_read / direct_write) opens a second descriptor
 * with O_DIRECT.  A transfer is served one piece per call (the full helpers
 * loop): an unaligned head or a tail shorter than the alignment goes through
 * the buffered descriptor, the aligned middle through the direct one —
 * straight from the user's buffer when that is aligned, else through a
 * bounce buffer allocated once per file.  The edges are not read-modify-
 * written through the direct descriptor on purpose: another process may be
 * writing the other bytes of the same block, and a block-sized RMW would
 * lose them.  A file system that refuses O_DIRECT (tmpfs says EINVAL) gets
 * buffered I/O and a note (RIO_STORE_NOTE_DIRECT_REFUSED).
 *
 * List I/O coalesces regions adjacent in the file into one vectored call
 * ("run") and then either issues the runs one by one or hands them to an
 * io_uring (one ring per open file, made on first use, up to RING_DEPTH
 * runs in flight, short completions resubmitted from where they stopped).
 * Which is the default was measured with tools/micro/listio_bench.c; see
 * uring_default().  The hint resonio_uring overrides it.
 *
 * Buffered pwrite and pwritev calls move at most WRITE_CAP (1 MiB); callers
 * loop on short transfers.  A buffered write holds the file's inode lock
 * from its first byte to its last, so ranks writing one file at once take
 * turns by whole calls; with calls of several MiB the turns went wrong on
 * this 2-core virtual machine (kernel 6.18, ext4): two processes each
 * writing 8 MiB into their half of a new file took 20-30 ms instead of
 * 3-4 ms in 4 to 13 of 30 tries, the lock holder copying at a tenth of
 * its usual speed while the other waited (perf: copy_folio_from_iter_atomic
 * on one CPU, the other idle); in 1 MiB calls none of 60 tries was slower
 * than 7 ms.  One writer alone took 1.3-2.8 ms either way; two writers of
 * separate files, which share no lock, 1.8-2.6 ms in 8 MiB calls but for
 * one try of 30 (26 ms); tmpfs showed no difference.
 *
 * Locks are fcntl record locks of the open file description
 * (F_OFD_SETLKW), retried on EINTR: they belong to this open of the
 * file, not to the process, so two handles of one process exclude each
 * other (a sieved write on an I/O thread and one by the program through
 * another handle each held the classic, per-process lock at once, and one
 * write-back undid the other's bytes), and closing another descriptor of
 * the file releases nothing.  Where the kernel has no such locks (EINVAL)
 * the classic per-process ones (F_SETLKW) serve, from then on.
 *
 * On CephFS (ceph-fuse, or the kernel client where there is one) a file is
 * striped over objects, and its layout is in the virtual extended
 * attribute ceph.file.layout ("stripe_unit=.. stripe_count=..
 * object_size=.. pool=.."), which no listing shows: it is asked for by
 * name at every open (one getxattr; other file systems answer ENODATA or
 * EOPNOTSUPP and nothing changes) and reported by .layout.  The file that
 * the open creates gets the striping hints (striping_unit,
 * striping_factor, resonio_object_size) as its layout while it is still
 * empty, as ROMIO's Lustre driver sets a new file's striping; CephFS
 * refuses a layout change on a file with data, so asking a different
 * layout of an existing non-empty file at create fails with RIO_E_LAYOUT
 * rather than leaving the file other than asked.  Which OSD holds each
 * object (.servers) is the monitor's answer, asked through the rados:
 * driver's connection (the mount has no call for it).
 */
#include "store.h"
#include "ceph_common.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifdef RIO_HAVE_URING
#include <liburing.h>
#endif

#define XFER_CAP ((size_t)1 << 30)
#define IOV_BATCH 1024
#define WRITE_CAP ((size_t)1 << 20)
#define BOUNCE_SIZE ((size_t)4 << 20)
#define RING_DEPTH 64

struct pfile {
    int fd;              /* buffered descriptor */
    int dfd;             /* O_DIRECT descriptor, -1 if none */
    int direct_rd, direct_wr;
    size_t off_align;    /* direct I/O offset and length alignment */
    size_t mem_align;    /* direct I/O buffer alignment */
    unsigned notes;      /* RIO_STORE_NOTE_* */
    struct rio_layout ceph; /* the CephFS layout; known 0 elsewhere */
    pthread_mutex_t mu;  /* guards bounce, ring and rados */
#ifdef RIO_HAVE_RADOS
    struct rio_ceph_conn *rados; /* CephFS: the monitor's connection, once asked */
#endif
    char *bounce_raw, *bounce;
#ifdef RIO_HAVE_URING
    struct io_uring ring;
    int ring_state;      /* 0 not made yet, 1 ready, -1 unavailable */
#endif
};

/* The driver's hints.  direct_read/direct_write are read at open (the
 * second descriptor is opened then or never); resonio_uring at each list
 * transfer.  Lustre's directIO sets both directions (file/hints.c). */
struct posix_settings {
    enum rio_tristate direct_read, direct_write;
    enum rio_tristate uring; /* AUTO: the measured default (uring_default) */
};

#define F(m) offsetof(struct posix_settings, m)
static const struct rio_setting posix_keys[] = {
    {"direct_read", RIO_SET_TRI, F(direct_read), "automatic", RIO_SET_OPEN_ONLY,
     "read through O_DIRECT; unaligned edges go through the page cache", NULL, NULL},
    {"direct_write", RIO_SET_TRI, F(direct_write), "automatic", RIO_SET_OPEN_ONLY,
     "write through O_DIRECT; unaligned edges go through the page cache", NULL, NULL},
    {"resonio_uring", RIO_SET_TRI, F(uring), "automatic", 0,
     "list I/O of noncontiguous regions through io_uring (automatic: as measured)", NULL, NULL},
};
#undef F

static const struct rio_settings_owner posix_owner =
    RIO_SETTINGS_OWNER("posix", struct posix_settings, posix_keys);

static const struct posix_settings *settings(const struct rio_hints *h)
{
    return rio__settings_get(h, &posix_owner);
}

static struct pfile *pf_of(struct rio_store *st)
{
    return st->priv;
}

/* ---- open / close ----------------------------------------------------- */

static void direct_alignment(struct pfile *pf)
{
    struct statx stx;
    pf->off_align = pf->mem_align = 4096;
    if (statx(pf->dfd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
        (stx.stx_mask & STATX_DIOALIGN) && stx.stx_dio_offset_align > 0 &&
        stx.stx_dio_mem_align > 0) {
        pf->off_align = stx.stx_dio_offset_align;
        pf->mem_align = stx.stx_dio_mem_align;
    }
}

static void direct_open(struct pfile *pf, const char *path, int oflags,
                        const struct posix_settings *s)
{
    int dflags = (oflags & ~(O_CREAT | O_EXCL | O_TRUNC)) | O_DIRECT | O_CLOEXEC;
    pf->dfd = open(path, dflags);
    if (pf->dfd < 0) {
        /* EINVAL: the file system has no direct I/O (tmpfs).  Any other
         * failure of the second open is no reason to fail the file either:
         * the buffered descriptor serves everything. */
        pf->notes |= RIO_STORE_NOTE_DIRECT_REFUSED;
        return;
    }
    direct_alignment(pf);
    pf->direct_rd = s->direct_read == RIO_ENABLE;
    pf->direct_wr = s->direct_write == RIO_ENABLE;
}

/* ---- CephFS layouts ------------------------------------------------------ */

#define CEPH_LAYOUT_XATTR "ceph.file.layout"
#define CEPH_MIN_UNIT 65536 /* CephFS's smallest stripe unit */

/* The layout of the file open on fd, when it is on CephFS. */
static void ceph_layout_read(int fd, struct rio_layout *l)
{
    char buf[256];
    long long su = 0, os = 0;
    int sc = 0;
    memset(l, 0, sizeof *l);
    ssize_t n = fgetxattr(fd, CEPH_LAYOUT_XATTR, buf, sizeof buf - 1);
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *save = NULL;
    for (char *tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
        if (!strncmp(tok, "stripe_unit=", 12))
            su = strtoll(tok + 12, NULL, 10);
        else if (!strncmp(tok, "stripe_count=", 13))
            sc = (int)strtol(tok + 13, NULL, 10);
        else if (!strncmp(tok, "object_size=", 12))
            os = strtoll(tok + 12, NULL, 10);
    }
    if (su > 0 && sc > 0 && os >= su) {
        l->unit = su;
        l->count = sc;
        l->object_size = os;
        l->known = 1;
    }
}

/* At create: give the file the layout the hints ask for.  0 when it has
 * it (or is not on CephFS); RIO_E_LAYOUT, with a detail, when CephFS
 * refuses (a file with data, a unit it does not take). */
static int ceph_layout_apply(struct pfile *pf, const char *path, const struct rio_hints *hints)
{
    struct rio_layout want, *cur = &pf->ceph;
    struct stat sb;
    char val[160];
    if (!cur->known || !rio__store_layout_wanted(hints, cur, &want))
        return 0;
    if (want.unit == cur->unit && want.count == cur->count &&
        want.object_size == cur->object_size)
        return 0;
    snprintf(val, sizeof val, "stripe_unit=%lld stripe_count=%d object_size=%lld", want.unit,
             want.count, want.object_size);
    if (fstat(pf->fd, &sb) == 0 && sb.st_size > 0) {
        rio__err_detail("'%s' is not empty, and CephFS changes the layout of an empty file "
                        "only: it has stripe_unit=%lld stripe_count=%d object_size=%lld, "
                        "the hints ask for %s",
                        path, cur->unit, cur->count, cur->object_size, val);
        return RIO_E_LAYOUT;
    }
    if (fsetxattr(pf->fd, CEPH_LAYOUT_XATTR, val, strlen(val), 0) < 0) {
        int e = errno;
        rio__err_detail("CephFS refuses the layout %s for '%s' (%s): the stripe unit must be "
                        "a multiple of %d and divide the object size",
                        val, path, strerror(e), CEPH_MIN_UNIT);
        return RIO_E_LAYOUT;
    }
    ceph_layout_read(pf->fd, cur);
    return 0;
}

/* On CephFS: the primary OSD of each object, from the cluster's monitor
 * through rados:'s connection to the cluster the hints name
 * (resonio_ceph_conf, else CEPH_CONF, else librados's search), taken at
 * the first call and held until close (making one took 6-8 ms here, and
 * a file written in many calls extends the map often); the process then
 * keeps it for its next files (rio__rados_osds_done).  The objects are
 * <inode in hex>.<object number, 8 hex digits> in the file's pool; the
 * mount reports both. */
static int posix_servers(struct rio_store *st, long long first, int n, int *out)
{
#ifdef RIO_HAVE_RADOS
    struct pfile *pf = pf_of(st);
    char pool[256], ino[32];
    struct stat sb;
    if (!pf->ceph.known)
        return -EOPNOTSUPP;
    ssize_t k = fgetxattr(pf->fd, CEPH_LAYOUT_XATTR ".pool", pool, sizeof pool - 1);
    if (k <= 0)
        return k < 0 ? -errno : -EPROTO;
    pool[k] = '\0';
    if (fstat(pf->fd, &sb) < 0)
        return -errno;
    snprintf(ino, sizeof ino, "%llx", (unsigned long long)sb.st_ino);
    pthread_mutex_lock(&pf->mu);
    int rc = rio__rados_osds(&pf->rados, st->hints, pool, ino, 8, first, n, out);
    pthread_mutex_unlock(&pf->mu);
    return rc;
#else
    (void)st, (void)first, (void)n, (void)out;
    return -EOPNOTSUPP; /* a build without librados asks no monitor */
#endif
}

static int posix_layout(struct rio_store *st, struct rio_layout *out)
{
    if (!pf_of(st)->ceph.known)
        return -EOPNOTSUPP; /* the striping hints serve */
    *out = pf_of(st)->ceph;
    return 0;
}

/* ---- open / close (continued) ---------------------------------------------- */

static int posix_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                      const struct rio_hints *hints)
{
    struct pfile *pf = rio__calloc(1, sizeof *pf);
    int rc = 0;
    if (!pf)
        return RIO_E_NOMEM;
    pf->dfd = -1;
    oflags = (oflags & ~O_APPEND) | O_CLOEXEC;
    pf->fd = open(path, oflags, perm);
    if (pf->fd < 0) {
        rc = -errno;
        goto out;
    }
    ceph_layout_read(pf->fd, &pf->ceph);
    if ((oflags & O_CREAT) && (rc = ceph_layout_apply(pf, path, hints)) != 0)
        goto out;
    const struct posix_settings *s = settings(hints);
    if (s->direct_read == RIO_ENABLE || s->direct_write == RIO_ENABLE)
        direct_open(pf, path, oflags, s);
    rc = -pthread_mutex_init(&pf->mu, NULL);
    if (rc)
        goto out;
    st->priv = pf;
out:
    if (rc) {
        if (pf->fd >= 0)
            close(pf->fd);
        if (pf->dfd >= 0)
            close(pf->dfd);
        free(pf);
    }
    return rc;
}

static int posix_close(struct rio_store *st)
{
    struct pfile *pf = pf_of(st);
    int rc = 0;
    if (!pf)
        return 0;
#ifdef RIO_HAVE_URING
    if (pf->ring_state == 1)
        io_uring_queue_exit(&pf->ring);
#endif
    if (pf->dfd >= 0 && close(pf->dfd) < 0 && errno != EINTR)
        rc = -errno;
    /* EINTR from close: the descriptor is gone on Linux; retrying would
     * close someone else's. */
    if (close(pf->fd) < 0 && errno != EINTR && !rc)
        rc = -errno;
#ifdef RIO_HAVE_RADOS
    int crc = rio__rados_osds_done(&pf->rados);
    if (crc && !rc)
        rc = crc;
#endif
    free(pf->bounce_raw);
    pthread_mutex_destroy(&pf->mu);
    free(pf);
    st->priv = NULL;
    return rc;
}

static int posix_remove(const char *path, const struct rio_hints *hints)
{
    return unlink(path) < 0 ? -errno : 0;
}

/* ---- metadata ----------------------------------------------------------- */

static int posix_get_size(struct rio_store *st, MPI_Offset *size)
{
    struct stat sb;
    if (fstat(pf_of(st)->fd, &sb) < 0)
        return -errno;
    *size = sb.st_size;
    return 0;
}

static int posix_set_size(struct rio_store *st, MPI_Offset size)
{
    int r;
    if (size < 0)
        return RIO_E_ARG;
    do
        r = ftruncate(pf_of(st)->fd, size);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

static int posix_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    int r;
    if (off < 0 || len < 0)
        return RIO_E_ARG;
    if (len == 0)
        return 0;
    do
        r = posix_fallocate(pf_of(st)->fd, off, len);
    while (r == EINTR);
    return -r;
}

static int posix_sync(struct rio_store *st)
{
    struct pfile *pf = pf_of(st);
    int r;
    do
        r = fdatasync(pf->fd);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

/* Start reading a range into the page cache; advisory, so failures of the
 * advice itself are not errors of the caller's. */
static int posix_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    for (int i = 0; i < n; i++) {
        int r = posix_fadvise(pf_of(st)->fd, reg[i].off, reg[i].len, POSIX_FADV_WILLNEED);
        if (r)
            return -r;
    }
    return 0;
}

/* ---- transfers ---------------------------------------------------------- */

static ssize_t sys_rw(int fd, int wr, void *buf, size_t len, MPI_Offset off)
{
    ssize_t r = wr ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
    return r < 0 ? -errno : r;
}

static int use_direct(const struct pfile *pf, int wr)
{
    return pf->dfd >= 0 && (wr ? pf->direct_wr : pf->direct_rd);
}

/* The aligned middle through the bounce buffer (caller holds nothing). */
static ssize_t bounce_rw(struct pfile *pf, int wr, char *buf, size_t len, MPI_Offset off)
{
    ssize_t r;
    pthread_mutex_lock(&pf->mu);
    if (!pf->bounce) {
        size_t a = RIO_MAX(pf->mem_align, pf->off_align);
        pf->bounce_raw = rio__malloc(BOUNCE_SIZE + a);
        if (!pf->bounce_raw) {
            r = RIO_E_NOMEM;
            goto out;
        }
        pf->bounce = (char *)(((uintptr_t)pf->bounce_raw + a - 1) / a * a);
    }
    len = RIO_MIN(len, BOUNCE_SIZE / pf->off_align * pf->off_align);
    if (wr)
        memcpy(pf->bounce, buf, len);
    r = sys_rw(pf->dfd, wr, pf->bounce, len, off);
    if (!wr && r > 0)
        memcpy(buf, pf->bounce, (size_t)r);
out:
    pthread_mutex_unlock(&pf->mu);
    return r;
}

/* One piece of a transfer; may be short.  See the file comment. */
static ssize_t xfer_once(struct pfile *pf, int wr, char *buf, size_t len, MPI_Offset off)
{
    len = RIO_MIN(len, XFER_CAP);
    if (!use_direct(pf, wr))
        return sys_rw(pf->fd, wr, buf, wr ? RIO_MIN(len, WRITE_CAP) : len, off);
    size_t a = pf->off_align;
    size_t head = (size_t)off % a;
    if (head)
        return sys_rw(pf->fd, wr, buf, RIO_MIN(len, a - head), off);
    if (len < a)
        return sys_rw(pf->fd, wr, buf, len, off);
    len -= len % a;
    if ((uintptr_t)buf % pf->mem_align == 0)
        return sys_rw(pf->dfd, wr, buf, len, off);
    return bounce_rw(pf, wr, buf, len, off);
}

static ssize_t posix_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    return xfer_once(pf_of(st), 0, buf, len, off);
}

static ssize_t posix_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    return xfer_once(pf_of(st), 1, (void *)buf, len, off);
}

static int iov_direct_ok(const struct pfile *pf, const struct iovec *iov, int n, MPI_Offset off)
{
    if ((size_t)off % pf->off_align)
        return 0;
    for (int i = 0; i < n; i++)
        if ((uintptr_t)iov[i].iov_base % pf->mem_align || iov[i].iov_len % pf->off_align)
            return 0;
    return 1;
}

static ssize_t xferv_once(struct pfile *pf, int wr, const struct iovec *iov, int n, MPI_Offset off)
{
    ssize_t r;
    n = RIO_MIN(n, IOV_BATCH);
    if (use_direct(pf, wr) && !iov_direct_ok(pf, iov, n, off)) {
        for (int i = 0; i < n; i++)
            if (iov[i].iov_len)
                return xfer_once(pf, wr, iov[i].iov_base, iov[i].iov_len, off);
        return 0;
    }
    int fd = use_direct(pf, wr) ? pf->dfd : pf->fd;
    if (wr && fd == pf->fd) { /* the entries that fit in WRITE_CAP, or a part of the first */
        size_t tot = 0;
        int k = 0;
        while (k < n && iov[k].iov_len <= WRITE_CAP - tot)
            tot += iov[k++].iov_len;
        if (k == 0)
            return sys_rw(fd, 1, iov[0].iov_base, WRITE_CAP, off);
        n = k;
    }
    r = wr ? pwritev(fd, iov, n, off) : preadv(fd, iov, n, off);
    return r < 0 ? -errno : r;
}

static ssize_t posix_preadv(struct rio_store *st, const struct iovec *iov, int iovcnt,
                            MPI_Offset off)
{
    return xferv_once(pf_of(st), 0, iov, iovcnt, off);
}

static ssize_t posix_pwritev(struct rio_store *st, const struct iovec *iov, int iovcnt,
                             MPI_Offset off)
{
    return xferv_once(pf_of(st), 1, iov, iovcnt, off);
}

/* ---- list I/O ------------------------------------------------------------ */

/* Where a run stands: iovec cur of [.., end), intra bytes into it, at file
 * offset off. */
struct runpos {
    int cur, end;
    size_t intra;
    MPI_Offset off;
};

static void run_skip_empty(const struct iovec *mem, struct runpos *p)
{
    while (p->cur < p->end && p->intra == mem[p->cur].iov_len) {
        p->cur++;
        p->intra = 0;
    }
}

static void run_advance(const struct iovec *mem, struct runpos *p, size_t n)
{
    p->off += (MPI_Offset)n;
    while (n > 0) {
        size_t rest = mem[p->cur].iov_len - p->intra;
        if (n < rest) {
            p->intra += n;
            return;
        }
        n -= rest;
        p->cur++;
        p->intra = 0;
    }
    run_skip_empty(mem, p);
}

/* Regions [i, end) adjacent in the file, at most IOV_BATCH of them. */
static int run_end(const struct rio_region *file, int n, int i)
{
    int j = i + 1;
    while (j < n && j - i < IOV_BATCH && file[j].off == file[j - 1].off + file[j - 1].len)
        j++;
    return j;
}

/* One run, synchronously, to the end or end of file. */
static int run_full(struct pfile *pf, int wr, const struct iovec *mem, struct runpos *p)
{
    run_skip_empty(mem, p);
    while (p->cur < p->end) {
        ssize_t r;
        if (p->intra == 0 && p->end - p->cur > 1)
            r = xferv_once(pf, wr, mem + p->cur, p->end - p->cur, p->off);
        else
            r = xfer_once(pf, wr, (char *)mem[p->cur].iov_base + p->intra,
                          mem[p->cur].iov_len - p->intra, p->off);
        if (r == -EINTR)
            continue;
        if (r < 0)
            return (int)r;
        if (r == 0)
            return wr ? RIO_E_SHORT : 0;
        run_advance(mem, p, (size_t)r);
    }
    return 0;
}

/* Bytes of regions before (idx, intra). */
static MPI_Offset prefix_bytes(const struct rio_region *file, int idx, size_t intra)
{
    MPI_Offset t = (MPI_Offset)intra;
    for (int k = 0; k < idx; k++)
        t += file[k].len;
    return t;
}

static int list_by_runs(struct pfile *pf, int wr, const struct rio_region *file,
                        const struct iovec *mem, int n, MPI_Offset *done)
{
    for (int i = 0; i < n;) {
        struct runpos p = {i, run_end(file, n, i), 0, file[i].off};
        int rc = run_full(pf, wr, mem, &p);
        if (rc)
            return rc;
        if (p.cur < p.end) { /* end of file */
            *done = prefix_bytes(file, p.cur, p.intra);
            return 0;
        }
        i = p.end;
    }
    *done = prefix_bytes(file, n, 0);
    return 0;
}

#ifdef RIO_HAVE_URING

/* The default when resonio_uring is automatic.  Measured with
 * resonio-micro-listio (tools/micro/listio_bench.c), 4096 regions per list,
 * microseconds per region, per-region calls vs io_uring, on this 2-core
 * machine (kernel 6.18, ext4 on virtio and tmpfs):
 * regions separated by holes of their own size, best of 3:
 *
 *                          /dev/shm (tmpfs)          ext4 (virtio disk)
 *   size  case             per-region  io_uring      per-region  io_uring
 *     64  write fresh         0.79       1.06           1.79       2.78
 *     64  write existing      0.78       0.89           0.86       1.16
 *     64  read                0.57       0.83           0.56       0.54
 *    512  write fresh         1.24       1.93           2.45       3.50
 *    512  write existing      0.79       1.01           0.89       1.30
 *    512  read                0.65       1.00           0.64       0.59
 *   4096  write fresh         2.71       4.18           5.04       7.03
 *   4096  write existing      1.34       2.10           1.51       2.49
 *   4096  read                2.07       3.69           0.99       1.02
 *  65536  write fresh        29.69      37.99          23.25      25.35
 *  65536  write existing     13.50      17.33           9.01      11.54
 *  65536  read               31.14      35.67          24.75      24.84
 *
 * Buffered writes through the ring lose everywhere (the kernel hands them
 * to worker threads); reads win only within noise (<10%) for tiny regions
 * on ext4 and lose on tmpfs.  So per-region calls are the default in both
 * directions; resonio_uring=enable selects the ring.
 */
static int uring_default(int wr)
{
    return 0;
}

static int ring_ready(struct pfile *pf)
{
    if (pf->ring_state == 0) {
        int r = io_uring_queue_init(RING_DEPTH, &pf->ring, 0);
        pf->ring_state = r == 0 ? 1 : -1;
        if (r)
            pf->notes |= RIO_STORE_NOTE_URING_UNAVAILABLE;
    }
    return pf->ring_state == 1;
}

static void ring_prep(struct pfile *pf, int wr, const struct iovec *mem, struct runpos *p,
                      int slot)
{
    /* Never NULL: at most RING_DEPTH slots exist and the SQ has as many. */
    struct io_uring_sqe *sqe = io_uring_get_sqe(&pf->ring);
    if (p->intra == 0 && p->end - p->cur > 1) {
        unsigned cnt = (unsigned)(p->end - p->cur);
        if (wr)
            io_uring_prep_writev(sqe, pf->fd, mem + p->cur, cnt, (uint64_t)p->off);
        else
            io_uring_prep_readv(sqe, pf->fd, mem + p->cur, cnt, (uint64_t)p->off);
    } else {
        char *base = (char *)mem[p->cur].iov_base + p->intra;
        unsigned len = (unsigned)RIO_MIN(mem[p->cur].iov_len - p->intra, XFER_CAP);
        if (wr)
            io_uring_prep_write(sqe, pf->fd, base, len, (uint64_t)p->off);
        else
            io_uring_prep_read(sqe, pf->fd, base, len, (uint64_t)p->off);
    }
    io_uring_sqe_set_data64(sqe, (uint64_t)slot);
}

/* Runs through the ring.  Returns 0 or -errno, or 1 when the ring itself
 * failed and the caller should do the whole list by runs instead (nothing
 * is in flight then, and positional transfers may simply be repeated). */
static int list_by_ring(struct pfile *pf, int wr, const struct rio_region *file,
                        const struct iovec *mem, int n, MPI_Offset *done)
{
    struct runpos slots[RING_DEPTH];
    int freel[RING_DEPTH], nfree = RING_DEPTH, inflight = 0, next = 0;
    int err = 0, eof = 0, ringfail = 0, eof_idx = n;
    size_t eof_intra = 0;

    for (int k = 0; k < RING_DEPTH; k++)
        freel[k] = k;
    for (;;) {
        while (!err && !eof && !ringfail && next < n && nfree > 0) {
            int s = freel[--nfree];
            slots[s] = (struct runpos){next, run_end(file, n, next), 0, file[next].off};
            next = slots[s].end;
            run_skip_empty(mem, &slots[s]);
            if (slots[s].cur == slots[s].end) {
                freel[nfree++] = s;
                continue;
            }
            ring_prep(pf, wr, mem, &slots[s], s);
            inflight++;
        }
        if (inflight == 0)
            break;
        int r = io_uring_submit_and_wait(&pf->ring, 1);
        if (r < 0 && r != -EINTR && r != -EAGAIN && r != -EBUSY) {
            ringfail = 1;
            /* Prepared entries that never went in are dropped with the
             * ring below; wait only for the submitted ones. */
            inflight -= (int)io_uring_sq_ready(&pf->ring);
            while (inflight > 0) {
                struct io_uring_cqe *cqe;
                if (io_uring_wait_cqe(&pf->ring, &cqe) == 0) {
                    io_uring_cqe_seen(&pf->ring, cqe);
                    inflight--;
                }
            }
            break;
        }
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&pf->ring, head, cqe) {
            int s = (int)io_uring_cqe_get_data64(cqe);
            struct runpos *p = &slots[s];
            int res = cqe->res;
            int finished = 1;
            seen++;
            if (res == -EINTR || res == -EAGAIN) {
                finished = err || ringfail;
            } else if (res == -EINVAL || res == -EOPNOTSUPP) {
                ringfail = 1; /* the kernel's ring cannot do this op */
            } else if (res < 0) {
                if (!err)
                    err = res;
            } else if (res == 0) {
                if (wr) {
                    if (!err)
                        err = RIO_E_SHORT;
                } else {
                    eof = 1;
                    if (p->cur < eof_idx || (p->cur == eof_idx && p->intra < eof_intra)) {
                        eof_idx = p->cur;
                        eof_intra = p->intra;
                    }
                }
            } else {
                run_advance(mem, p, (size_t)res);
                finished = p->cur == p->end || err || ringfail;
            }
            if (finished) {
                freel[nfree++] = s;
                inflight--;
            } else {
                ring_prep(pf, wr, mem, p, s);
            }
        }
        io_uring_cq_advance(&pf->ring, seen);
    }
    if (ringfail) {
        io_uring_queue_exit(&pf->ring);
        pf->ring_state = -1;
        pf->notes |= RIO_STORE_NOTE_URING_UNAVAILABLE;
        return 1;
    }
    if (err)
        return err;
    *done = eof ? prefix_bytes(file, eof_idx, eof_intra) : prefix_bytes(file, n, 0);
    return 0;
}

#endif /* RIO_HAVE_URING */

static int rw_list(struct rio_store *st, int wr, const struct rio_region *file,
                   const struct iovec *mem, int n, MPI_Offset *done)
{
    struct pfile *pf = pf_of(st);
    MPI_Offset got = 0;
    int rc;
#ifdef RIO_HAVE_URING
    enum rio_tristate want = settings(st->hints)->uring;
    int ring = want == RIO_ENABLE || (want == RIO_AUTO && uring_default(wr));
    /* Direct I/O needs the piecewise alignment handling of xfer_once, and
     * a list that is one run gains nothing from a ring. */
    if (ring && !use_direct(pf, wr) && run_end(file, n, 0) < n) {
        pthread_mutex_lock(&pf->mu);
        rc = ring_ready(pf) ? list_by_ring(pf, wr, file, mem, n, &got) : 1;
        pthread_mutex_unlock(&pf->mu);
        if (rc != 1)
            goto out;
    }
#endif
    rc = list_by_runs(pf, wr, file, mem, n, &got);
#ifdef RIO_HAVE_URING
out:
#endif
    if (done)
        *done = rc ? 0 : got;
    return rc;
}

static int posix_read_list(struct rio_store *st, const struct rio_region *file,
                           const struct iovec *mem, int n, MPI_Offset *done)
{
    return rw_list(st, 0, file, mem, n, done);
}

static int posix_write_list(struct rio_store *st, const struct rio_region *file,
                            const struct iovec *mem, int n)
{
    return rw_list(st, 1, file, mem, n, NULL);
}

/* ---- locks ----------------------------------------------------------------- */

static int posix_lockop(struct rio_store *st, short type, MPI_Offset off, MPI_Offset len)
{
    struct flock fl;
    int r;
    if (off < 0 || len < 0)
        return RIO_E_ARG;
    memset(&fl, 0, sizeof fl);
    fl.l_type = type;
    fl.l_whence = SEEK_SET;
    fl.l_start = off;
    fl.l_len = len; /* 0: to the end of the file and beyond, as fcntl has it */
    int fd = pf_of(st)->fd;
#ifdef F_OFD_SETLKW
    static int no_ofd; /* the kernel said EINVAL once */
    if (!__atomic_load_n(&no_ofd, __ATOMIC_RELAXED)) {
        do
            r = fcntl(fd, F_OFD_SETLKW, &fl); /* l_pid 0, as it must be */
        while (r < 0 && errno == EINTR);
        if (!(r < 0 && errno == EINVAL))
            return r < 0 ? -errno : 0;
        __atomic_store_n(&no_ofd, 1, __ATOMIC_RELAXED);
    }
#endif
    do
        r = fcntl(fd, F_SETLKW, &fl);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : 0;
}

static int posix_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    return posix_lockop(st, exclusive ? F_WRLCK : F_RDLCK, off, len);
}

static int posix_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    return posix_lockop(st, F_UNLCK, off, len);
}

static int posix_is_direct(struct rio_store *st)
{
    return pf_of(st)->dfd >= 0;
}

static unsigned posix_notes(struct rio_store *st)
{
    return pf_of(st)->notes;
}

const struct rio_store_ops rio__store_posix = {
    .name = "posix",
    .version = RIO_STORE_OPS_VERSION,
    .open = posix_open,
    .close = posix_close,
    .remove = posix_remove,
    .get_size = posix_get_size,
    .set_size = posix_set_size,
    .allocate = posix_allocate,
    .sync = posix_sync,
    .pread = posix_pread,
    .pwrite = posix_pwrite,
    .preadv = posix_preadv,
    .pwritev = posix_pwritev,
    .read_list = posix_read_list,
    .write_list = posix_write_list,
    .lock = posix_lock,
    .unlock = posix_unlock,
    .layout = posix_layout, /* CephFS's; elsewhere the striping hints */
    .servers = posix_servers, /* CephFS's OSDs */
    .is_direct = posix_is_direct,
    .notes = posix_notes,
    .prefetch = posix_prefetch,
    .settings = &posix_owner,
    .caps = RIO_STORE_CAP_PAGE_CACHE, /* O_DIRECT files excepted, by is_direct */
};
