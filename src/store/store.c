/*
 * store.c — the driver-independent half of the storage layer.
 *
 * Drivers are found by the prefix of the file name, as ROMIO does it
 * (drivers.h, the one list of prefixes): "posix:" (and ROMIO's "ufs:", "nfs:", "lustre:", which this build serves
 * with the posix driver), "fault:", "delay:", "emu:" (the client of
 * resonio-emud) and, where libcephfs's and librados's headers were found
 * at build time, "cephfs:" and "rados:" (refused otherwise).  A name whose text before the first
 * colon is not a driver we know is an ordinary path for the posix driver,
 * so "run:3/out.dat" works; only prefixes of drivers that exist elsewhere
 * but not in this build ("pvfs2:", ...) are refused.  The wrapping drivers
 * (fault:, delay:) find their inner driver the same way in the rest of the
 * name (wrap.c).  Each lookup checks the driver's table
 * (rio__store_ops_check), so a driver missing a mandatory operation fails
 * its open with a message instead of a call through NULL.
 *
 * Drivers may move fewer bytes than asked and may fail with -EINTR; the
 * *_full helpers here loop until the transfer is complete, the file ends
 * (reads) or a real error occurs.  Each storage call is capped at 1 GiB,
 * below every kernel's per-call limit, so transfers beyond 2 GiB work.
 * The helpers are also the one place where bytes moved and time spent in
 * storage are added to the file's counters.
 */
#include "store.h"
#include "../dtype/dtype.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define XFER_CAP ((size_t)1 << 30)      /* bytes per storage call */
#define STAGE_MIN ((size_t)16 << 10)    /* staged(): the transfers it may stage */
#define STAGE_PIECE ((size_t)1 << 20)   /* and the piece each goes in */
#define IOV_BATCH 1024                  /* iovecs per vectored call (IOV_MAX on Linux) */
#define SCRATCH_KEEP ((size_t)64 << 20) /* larger scratch buffers are not kept */

struct prefix {
    const char *prefix;
    const struct rio_store_ops *ops; /* NULL: known, not in this build */
};

static const struct prefix prefixes[] = {
#define RIO_STORE_PREFIX(prefix, name) {prefix, &rio__store_##name},
#define RIO_STORE_ABSENT(prefix) {prefix, NULL},
#include "drivers.h"
#undef RIO_STORE_PREFIX
#undef RIO_STORE_ABSENT
};

/* striping_unit and striping_factor: ROMIO's keys for the layout of a
 * file, which rio__store_layout serves when the driver reports none, and
 * which a driver that can set a layout (posix on CephFS) applies to a file
 * it creates, with resonio_object_size. */
#define F(m) offsetof(struct rio_store_settings, m)
static const struct rio_setting store_keys[] = {
    {"striping_unit", RIO_SET_SIZE, F(striping_unit), NULL, RIO_SET_OPEN_ONLY,
     "stripe size assumed for the file", NULL, NULL},
    {"striping_factor", RIO_SET_INT, F(striping_factor), NULL, RIO_SET_OPEN_ONLY,
     "number of storage targets assumed for the file", NULL, NULL},
    {"resonio_object_size", RIO_SET_SIZE, F(object_size), NULL, RIO_SET_OPEN_ONLY,
     "object size of a new file on storage that stripes into objects (CephFS)", NULL, NULL},
};
#undef F

const struct rio_settings_owner rio__store_settings_owner =
    RIO_SETTINGS_OWNER("store", struct rio_store_settings, store_keys);

/* Contract in store.h. */
const struct rio_settings_owner *rio__store_settings_owner_at(int i)
{
    if (i == 0)
        return &rio__store_settings_owner;
    int seen = 1;
    for (size_t k = 0; k < sizeof prefixes / sizeof prefixes[0]; k++) {
        const struct rio_settings_owner *o = prefixes[k].ops ? prefixes[k].ops->settings : NULL;
        int dup = !o;
        for (size_t j = 0; j < k && !dup; j++)
            dup = prefixes[j].ops && prefixes[j].ops->settings == o;
        if (!dup && seen++ == i)
            return o;
    }
    return NULL;
}

int rio__store_has_locks(const char *name, const char **driver)
{
    const struct rio_store_ops *ops = rio__store_find(name, &name);
    /* a wrapper has an optional operation only where its inner driver has
     * it (wrap.c): the innermost driver decides */
    while (ops && ops->wraps)
        ops = rio__store_find(name, &name);
    *driver = ops ? ops->name : "unknown";
    return ops && ops->lock;
}

const struct rio_store_ops *rio__store_find(const char *name, const char **path_out)
{
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t n = strlen(prefixes[i].prefix);
        if (!strncmp(name, prefixes[i].prefix, n)) {
            *path_out = name + n;
            return prefixes[i].ops;
        }
    }
    *path_out = name;
    return &rio__store_posix;
}

/* The members the layers above call without looking: a table without one
 * would crash at that call, so it is refused when looked up.  A wrapper's
 * may be NULL (wrap.c forwards them); open never may. */
#define MANDATORY(X) X(close) X(remove) X(get_size) X(set_size) X(sync) X(pread) X(pwrite)

int rio__store_ops_check(const struct rio_store_ops *ops)
{
    const char *name = ops->name ? ops->name : "(unnamed)";
    const char *miss = NULL;
    if (!ops->name)
        miss = "name";
    else if (ops->version != RIO_STORE_OPS_VERSION) {
        rio__err_detail("storage driver '%s' has ops version %d, this build takes %d", name,
                        ops->version, RIO_STORE_OPS_VERSION);
        return RIO_E_DRIVER;
    } else if (!ops->open)
        miss = "open";
#define CHECK_ONE(m)                  \
    else if (!ops->wraps && !ops->m) \
        miss = #m;
    MANDATORY(CHECK_ONE)
#undef CHECK_ONE
    else if (!ops->lock != !ops->unlock)
        miss = ops->lock ? "unlock (it has lock)" : "lock (it has unlock)";
    else if (!ops->write_view != !ops->read_view)
        miss = ops->write_view ? "read_view (it has write_view)" : "write_view (it has read_view)";
    if (!miss)
        return 0;
    rio__err_detail("storage driver '%s' lacks the mandatory operation %s", name, miss);
    return RIO_E_DRIVER;
}

const struct rio_store_ops *rio__store_begin(struct rio_store *st, const char *name,
                                             struct rio_hints *hints, const char **path)
{
    const struct rio_store_ops *ops = rio__store_find(name, path);
    st->ops = NULL;
    st->priv = NULL;
    st->hints = hints;
    st->scratch = NULL;
    st->scratch_len = 0;
    atomic_store(&st->scratch_busy, 0);
    st->trace = NULL;
    st->has_fixed = 0;
    if (!ops)
        rio__err_detail("prefix of '%s' names a driver this build does not have", name);
    else if (rio__store_ops_check(ops))
        return NULL; /* the check left the detail */
    return ops;
}

int rio__store_open(struct rio_store *st, const char *name, int oflags, mode_t perm,
                    struct rio_hints *hints)
{
    const char *path;
    const struct rio_store_ops *ops = rio__store_begin(st, name, hints, &path);
    if (!ops)
        return RIO_E_DRIVER;
    int rc = ops->open(st, path, oflags, perm, hints);
    if (rc < 0) {
        st->ops = NULL;
        return rc;
    }
    if (!st->ops) /* a wrapper sets a table of its own */
        st->ops = ops;
    return 0;
}

int rio__store_close(struct rio_store *st)
{
    int rc = 0;
    if (st->ops) {
        rc = st->ops->close(st);
        st->ops = NULL;
    }
    st->priv = NULL;
    rio__pool_free(st->scratch);
    st->scratch = NULL;
    st->scratch_len = 0;
    return rc;
}

int rio__store_remove(const char *name, const struct rio_hints *hints)
{
    const char *path;
    const struct rio_store_ops *ops = rio__store_find(name, &path);
    if (!ops) {
        rio__err_detail("prefix of '%s' names a driver this build does not have", name);
        return RIO_E_DRIVER;
    }
    int rc = rio__store_ops_check(ops);
    if (rc)
        return rc;
    return ops->remove ? ops->remove(path, hints) : rio__store_wrap_remove(path, hints);
}

void *rio__store_scratch_get(struct rio_store *st, size_t len)
{
    int expect = 0;
    if (!atomic_compare_exchange_strong(&st->scratch_busy, &expect, 1))
        return rio__pool_alloc(len);
    if (st->scratch_len < len) {
        rio__pool_free(st->scratch);
        st->scratch = rio__pool_alloc(len);
        st->scratch_len = st->scratch ? len : 0;
        if (!st->scratch) {
            atomic_store(&st->scratch_busy, 0);
            return NULL;
        }
    }
    return st->scratch;
}

void rio__store_scratch_put(struct rio_store *st, void *p)
{
    if (!p)
        return;
    if (p != st->scratch) {
        rio__pool_free(p);
        return;
    }
    if (st->scratch_len > SCRATCH_KEEP) {
        rio__pool_free(st->scratch);
        st->scratch = NULL;
        st->scratch_len = 0;
    }
    atomic_store(&st->scratch_busy, 0);
}

unsigned rio__store_notes(struct rio_store *st)
{
    return st->ops && st->ops->notes ? st->ops->notes(st) : 0;
}

/* ---- accounting ------------------------------------------------------- */

void rio__store_trace_add(struct rio_store *st, MPI_Offset off, MPI_Offset len, double t)
{
    struct rio_store_trace *tr = st->trace;
    if (!tr || len <= 0)
        return;
    if (tr->n >= tr->cap) {
        tr->dropped++;
        return;
    }
    tr->off[tr->n] = off;
    tr->len[tr->n] = len;
    tr->t[tr->n] = t;
    tr->n++;
}

static void account(struct rio_store *st, double t0, MPI_Offset bytes)
{
    if (st->stats) {
        rio__stat_add(&st->stats->bytes_accessed, bytes);
        rio__stat_add_time(&st->stats->time_storage, rio__now() - t0);
    }
}

static int range_ok(MPI_Offset off, uint64_t len)
{
    return off >= 0 && len <= (uint64_t)INT64_MAX && (uint64_t)off <= (uint64_t)INT64_MAX - len;
}

/* ---- vectored --------------------------------------------------------- */

/* Position in an iovec array: element idx, byte intra within it. */
struct iov_pos {
    int idx;
    size_t intra;
};

static void iov_advance(const struct iovec *iov, int cnt, struct iov_pos *p, size_t n)
{
    while (p->idx < cnt && (n > 0 || iov[p->idx].iov_len == p->intra)) {
        size_t rest = iov[p->idx].iov_len - p->intra;
        if (n < rest) {
            p->intra += n;
            return;
        }
        n -= rest;
        p->idx++;
        p->intra = 0;
    }
}

/* Copy the next at most IOV_BATCH pieces, at most XFER_CAP bytes, from p
 * into loc.  Returns the piece count (0 when nothing is left). */
static int iov_batch(const struct iovec *iov, int cnt, struct iov_pos p, struct iovec *loc,
                     size_t *total)
{
    int k = 0;
    size_t tot = 0;
    while (p.idx < cnt && k < IOV_BATCH && tot < XFER_CAP) {
        size_t l = iov[p.idx].iov_len - p.intra;
        if (l > XFER_CAP - tot)
            l = XFER_CAP - tot;
        if (l) {
            loc[k].iov_base = (char *)iov[p.idx].iov_base + p.intra;
            loc[k].iov_len = l;
            k++;
            tot += l;
        }
        p.idx++;
        p.intra = 0;
    }
    *total = tot;
    return k;
}

static int xferv_full(struct rio_store *st, int wr, const struct iovec *iov, int iovcnt,
                      MPI_Offset off, size_t *moved)
{
    struct iovec loc[IOV_BATCH];
    struct iov_pos p = {0, 0};
    size_t got = 0, tot;
    int rc = 0, k;

    while ((k = iov_batch(iov, iovcnt, p, loc, &tot)) > 0) {
        ssize_t r;
        MPI_Offset at = off + (MPI_Offset)got;
        if (k == 1 || !(wr ? st->ops->pwritev : st->ops->preadv))
            r = wr ? st->ops->pwrite(st, loc[0].iov_base, loc[0].iov_len, at)
                   : st->ops->pread(st, loc[0].iov_base, loc[0].iov_len, at);
        else
            r = wr ? st->ops->pwritev(st, loc, k, at) : st->ops->preadv(st, loc, k, at);
        if (r == -EINTR)
            continue;
        if (r < 0) {
            rc = (int)r;
            break;
        }
        if (r == 0) {
            if (wr)
                rc = RIO_E_SHORT;
            break;
        }
        got += (size_t)r;
        iov_advance(iov, iovcnt, &p, (size_t)r);
    }
    *moved = got;
    return rc;
}

static int iov_total(const struct iovec *iov, int iovcnt, uint64_t *total)
{
    uint64_t t = 0;
    if (iovcnt < 0)
        return RIO_E_ARG;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len > (uint64_t)INT64_MAX - t)
            return RIO_E_OVERFLOW;
        t += iov[i].iov_len;
    }
    *total = t;
    return 0;
}

/* One request from memory pieces to a file range, accounted and traced
 * once: the vectored and the contiguous calls below. */
static int vec_full(struct rio_store *st, int wr, const struct iovec *iov, int iovcnt,
                    MPI_Offset off, MPI_Offset *done)
{
    size_t got = 0;
    uint64_t total;
    double t0 = rio__now();
    int rc = iov_total(iov, iovcnt, &total);
    if (!rc) {
        rio__store_trace_add(st, off, (MPI_Offset)total, t0);
        rc = range_ok(off, total) ? xferv_full(st, wr, iov, iovcnt, off, &got) : RIO_E_OVERFLOW;
    }
    account(st, t0, (MPI_Offset)got);
    if (done)
        *done = (MPI_Offset)got;
    return rc;
}

int rio__store_preadv_full(struct rio_store *st, const struct iovec *iov, int iovcnt,
                           MPI_Offset off, MPI_Offset *done)
{
    return vec_full(st, 0, iov, iovcnt, off, done);
}

int rio__store_pwritev_full(struct rio_store *st, const struct iovec *iov, int iovcnt,
                            MPI_Offset off)
{
    return vec_full(st, 1, iov, iovcnt, off, NULL);
}

/*
 * On some processors the kernel copies a buffered transfer between the
 * caller's memory and the page cache some 3-4x slower when the copy's
 * destination lies 1 to 31 bytes past its source within a 4 KiB page (the
 * processor's 4K aliasing of a store and a later load).  Measured on one
 * machine of this project's (AMD EPYC, kernel 6.18): 256 MiB read in 16 KiB
 * to 4 MiB calls, 120-160 ms 16 bytes past against 32-42 ms on the page
 * boundary, other distances from 32 on as fast; written in 1 MiB calls 107
 * ms against 30.  On another (AMD EPYC of family 26, the same kernel) the
 * same reads took 16 ms 16 bytes past and 19 ms on the boundary: no band.
 * glibc's malloc returns large blocks 16 bytes past a page boundary, so
 * every read of a malloc'd buffer at a page-aligned file offset falls in
 * the band.  Where the band is slow, such a transfer goes in STAGE_PIECE
 * pieces through the file's scratch buffer placed 64 bytes past the file
 * offset within a page, which keeps both the kernel's copy and the memcpy
 * out of the band: 42-52 ms for those 256 MiB on the first machine.  Where
 * it is not, staging only adds a memcpy (1-4 MiB read in 1 MiB calls 2x
 * slower staged on the second machine), so which is faster is measured,
 * once a process and direction (rio__store_band), unless RESONIO_STAGE
 * says.  Other distances go straight, as do O_DIRECT files
 * (no copy) and the wrappers' (whose calls count).  Any contiguous transfer
 * is judged so: the program's buffer, an aggregator's round or a sieving
 * window alike (the pool's buffers lie 48 bytes past a page, out of the
 * band at page-aligned offsets).
 */
#define STAGE_PAGE 4096u
#define STAGE_BAND 31u   /* destination 1..STAGE_BAND bytes past the source */
#define STAGE_SHIFT 64u  /* the piece's place past the file offset */
#define PROBE_LEN ((size_t)256 << 10) /* rio__store_band_measure's copies */
#define PROBE_ROUNDS 5

static int slow_copy(uintptr_t dst, uintptr_t src)
{
    return ((dst - src) & (STAGE_PAGE - 1)) - 1 < STAGE_BAND;
}

/* One copy of PROBE_LEN between the kernel's pages of fd (at offset 0) and
 * mem, in direction wr, 16 bytes into the band, straight or (staged)
 * through stage as staged() makes it: its time in seconds, -1 on a
 * failure.  mem and stage are page-aligned with a page to spare. */
static double probe_copy(int fd, int wr, int staged, char *mem, char *stage)
{
    /* a read's destination is mem + 16; a write's is the page at offset
     * 0, so its source lies 16 bytes before a page boundary */
    char *m = wr ? mem + STAGE_PAGE - 16 : mem + 16;
    char *piece = stage + (wr ? STAGE_PAGE - STAGE_SHIFT : STAGE_SHIFT);
    double t0 = rio__now();
    ssize_t n;
    if (!staged) {
        n = wr ? pwrite(fd, m, PROBE_LEN, 0) : pread(fd, m, PROBE_LEN, 0);
    } else if (wr) {
        memcpy(piece, m, PROBE_LEN);
        n = pwrite(fd, piece, PROBE_LEN, 0);
    } else {
        n = pread(fd, piece, PROBE_LEN, 0);
        memcpy(m, piece, PROBE_LEN);
    }
    double t = rio__now() - t0;
    return n == (ssize_t)PROBE_LEN ? t : -1;
}

/* Times, in turn, PROBE_ROUNDS straight and staged copies of each
 * direction between memory and a memory file's pages (the kernel copies
 * them as a page cache's) and sets slow[wr] when the fastest straight copy
 * took longer than the fastest staged one.  2.5-3.7 ms here, most of it
 * the buffers' first touch.  Where it cannot measure (no memfd, no memory)
 * it keeps the band slow: staging costs a copy, the band up to 4x.
 * Contract in store.h. */
void rio__store_band_measure(struct rio_band *b)
{
    b->slow[0] = b->slow[1] = 1;
    b->forced = 0;
    b->time[0][0] = b->time[0][1] = b->time[1][0] = b->time[1][1] = -1;
    const size_t len = PROBE_LEN + 2 * STAGE_PAGE;
    int fd = memfd_create("resonio-band", MFD_CLOEXEC);
    char *mem = NULL, *stage = NULL;
    int ok = fd >= 0 && !posix_memalign((void **)&mem, STAGE_PAGE, len) &&
             !posix_memalign((void **)&stage, STAGE_PAGE, len);
    if (ok) {
        memset(mem, 0x5a, len);
        memset(stage, 0xa5, len);
        ok = pwrite(fd, mem, PROBE_LEN, 0) == (ssize_t)PROBE_LEN;
    }
    double best[2][2] = {{-1, -1}, {-1, -1}}; /* [wr][staged] */
    for (int r = 0; ok && r < PROBE_ROUNDS; r++)
        for (int wr = 0; wr < 2; wr++)
            for (int how = 0; how < 2; how++) {
                double t = probe_copy(fd, wr, how, mem, stage);
                ok = ok && t >= 0;
                if (best[wr][how] < 0 || t < best[wr][how])
                    best[wr][how] = t;
            }
    /* only a complete measurement is kept */
    for (int wr = 0; ok && wr < 2; wr++) {
        b->time[wr][0] = best[wr][0];
        b->time[wr][1] = best[wr][1];
        b->slow[wr] = best[wr][0] > best[wr][1];
    }
    free(mem);
    free(stage);
    if (fd >= 0)
        close(fd);
}

static struct rio_band band;
static pthread_once_t band_once = PTHREAD_ONCE_INIT;
static int band_settled;

static void band_init(void)
{
    const char *e = getenv("RESONIO_STAGE");
    if (e && (!strcmp(e, "on") || !strcmp(e, "off"))) {
        band.slow[0] = band.slow[1] = !strcmp(e, "on");
        band.forced = 1;
        band.time[0][0] = band.time[0][1] = band.time[1][0] = band.time[1][1] = -1;
    } else {
        rio__store_band_measure(&band);
    }
    __atomic_store_n(&band_settled, 1, __ATOMIC_RELEASE);
}

/* Contract in store.h. */
const struct rio_band *rio__store_band(void)
{
    pthread_once(&band_once, band_init);
    return &band;
}

/* Contract in store.h. */
const struct rio_band *rio__store_band_settled(void)
{
    return __atomic_load_n(&band_settled, __ATOMIC_ACQUIRE) ? &band : NULL;
}

/*
 * A shared write (rio__store_pwrite_shared) is staged wherever it lies.  A
 * buffered write holds the file's inode lock while the kernel copies it
 * into the page cache, so processes writing one file at once take turns
 * by calls (posix.c), and a copy from a piece that a memcpy has just
 * brought into the processor's cache holds the lock for less time, the
 * memcpy running while another process holds it.  Measured here (ext4,
 * kernel 6.18, 2 cores; a throw-away program, processes each writing 512
 * MiB into their own part of one file in 1 MiB calls, its pages cached,
 * median of 8): 2 processes 0.172 s straight, 0.133 staged; 3: 0.25 and
 * 0.20; 4: 0.34 and 0.26; on tmpfs 2 took 0.20 and 0.18.  One process
 * alone took 0.084 s straight and 0.118 staged, so only a write that
 * others make at the same time is staged so.
 */
static int staged(struct rio_store *st, int wr, char *buf, size_t len, MPI_Offset off,
                  MPI_Offset *done, int shared)
{
    char *scratch = NULL;
    uintptr_t mem = (uintptr_t)buf, file = (uintptr_t)off;
    if (len >= STAGE_MIN && (st->ops->caps & RIO_STORE_CAP_PAGE_CACHE) && range_ok(off, len) &&
        ((wr && shared) ||
         ((wr ? slow_copy(file, mem) : slow_copy(mem, file)) && rio__store_band()->slow[wr])) &&
        !(st->ops->is_direct && st->ops->is_direct(st)))
        scratch = rio__store_scratch_get(st, RIO_MIN(len, STAGE_PIECE) + 2 * STAGE_PAGE);
    if (!scratch) {
        struct iovec v = {buf, len};
        return vec_full(st, wr, &v, 1, off, done);
    }
    uintptr_t page = ((uintptr_t)scratch + STAGE_PAGE - 1) & ~(uintptr_t)(STAGE_PAGE - 1);
    char *piece = (char *)page + ((file + STAGE_SHIFT) & (STAGE_PAGE - 1));
    /* one request to the trace and the counters, as unstaged */
    double t0 = rio__now();
    rio__store_trace_add(st, off, (MPI_Offset)len, t0);
    size_t moved = 0;
    int rc = 0;
    while (moved < len) {
        struct iovec v = {piece, RIO_MIN(STAGE_PIECE, len - moved)};
        size_t got = 0;
        if (wr)
            memcpy(piece, buf + moved, v.iov_len);
        rc = xferv_full(st, wr, &v, 1, off + (MPI_Offset)moved, &got);
        if (!wr)
            memcpy(buf + moved, piece, got);
        moved += got;
        if (rc || got < v.iov_len) /* an error, or the end of the file */
            break;
    }
    rio__store_scratch_put(st, scratch);
    account(st, t0, (MPI_Offset)moved);
    if (wr && shared && st->stats)
        rio__stat_add(&st->stats->shared_staged, (long long)moved);
    if (done)
        *done = (MPI_Offset)moved;
    return rc;
}

/* A contiguous buffer is a one-piece iovec (pread/pwrite per XFER_CAP),
 * staged where its place makes the kernel's copy slow. */
int rio__store_pread_full(struct rio_store *st, void *buf, size_t len, MPI_Offset off,
                          MPI_Offset *done)
{
    return staged(st, 0, buf, len, off, done, 0);
}

int rio__store_pwrite_full(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    return staged(st, 1, (char *)buf, len, off, NULL, 0);
}

/* Contract in store.h. */
int rio__store_pwrite_shared(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    if (st->ops->pwrite_shared) { /* accounted and traced here, as one request */
        double t0 = rio__now();
        rio__store_trace_add(st, off, (MPI_Offset)len, t0);
        int rc = range_ok(off, len) ? st->ops->pwrite_shared(st, buf, len, off) : RIO_E_OVERFLOW;
        account(st, t0, rc ? 0 : (MPI_Offset)len);
        return rc;
    }
    return staged(st, 1, (char *)buf, len, off, NULL, 1);
}

/* ---- list I/O --------------------------------------------------------- */

static int list_check(const struct rio_region *file, const struct iovec *mem, int n,
                      MPI_Offset *total)
{
    MPI_Offset t = 0;
    if (n < 0)
        return RIO_E_ARG;
    for (int i = 0; i < n; i++) {
        if (file[i].len < 0 || (uint64_t)file[i].len != mem[i].iov_len ||
            !range_ok(file[i].off, (uint64_t)file[i].len) || file[i].len > INT64_MAX - t) {
            rio__err_detail("list I/O region %d is malformed", i);
            return RIO_E_ARG;
        }
        t += file[i].len;
    }
    *total = t;
    return 0;
}

/* Per-region fallback: regions adjacent in the file go in one vectored
 * call.  Reads report the prefix moved before the first short region. */
static int list_by_runs(struct rio_store *st, int wr, const struct rio_region *file,
                        const struct iovec *mem, int n, MPI_Offset *done)
{
    MPI_Offset moved = 0;
    int rc = 0;
    for (int i = 0; i < n;) {
        int j = i + 1;
        MPI_Offset run = file[i].len;
        while (j < n && file[j].off == file[j - 1].off + file[j - 1].len) {
            run += file[j].len;
            j++;
        }
        size_t got = 0;
        rc = xferv_full(st, wr, mem + i, j - i, file[i].off, &got);
        moved += (MPI_Offset)got;
        if (rc || (MPI_Offset)got < run)
            break;
        i = j;
    }
    *done = moved;
    return rc;
}

int rio__store_read_list(struct rio_store *st, const struct rio_region *file,
                         const struct iovec *mem, int n, MPI_Offset *done)
{
    MPI_Offset total = 0, got = 0;
    double t0 = rio__now();
    int rc = list_check(file, mem, n, &total);
    for (int i = 0; !rc && st->trace && i < n; i++)
        rio__store_trace_add(st, file[i].off, file[i].len, t0);
    if (!rc && st->ops->read_list) {
        do
            rc = st->ops->read_list(st, file, mem, n, &got);
        while (rc == -EINTR);
    } else if (!rc) {
        rc = list_by_runs(st, 0, file, mem, n, &got);
    }
    if (rc)
        got = 0;
    account(st, t0, got);
    if (done)
        *done = got;
    return rc;
}

int rio__store_write_list(struct rio_store *st, const struct rio_region *file,
                          const struct iovec *mem, int n)
{
    MPI_Offset total = 0, got = 0;
    double t0 = rio__now();
    int rc = list_check(file, mem, n, &total);
    for (int i = 0; !rc && st->trace && i < n; i++)
        rio__store_trace_add(st, file[i].off, file[i].len, t0);
    if (!rc && st->ops->write_list) {
        do
            rc = st->ops->write_list(st, file, mem, n);
        while (rc == -EINTR);
        if (!rc)
            got = total;
    } else if (!rc) {
        rc = list_by_runs(st, 1, file, mem, n, &got);
    }
    account(st, t0, got);
    return rc;
}

/* ---- datatype I/O ------------------------------------------------------ */

#define VIEW_BATCH 1024 /* regions per list call of the fallback */

static void trace_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                       MPI_Offset pos, MPI_Offset len, double t)
{
    struct rio_dtype_iter it;
    MPI_Offset off, n, left = len;
    if (!st->trace || rio__dtype_iter_init(&it, ft, -1, pos))
        return;
    while (left > 0 && rio__dtype_iter_next(&it, left, &off, &n)) {
        rio__store_trace_add(st, disp + off, n, t);
        left -= n;
    }
    rio__dtype_iter_free(&it);
}

/* The fallback: list I/O over batches of the view's regions. */
static int view_by_list(struct rio_store *st, int wr, const struct rio_dtype *ft,
                        MPI_Offset disp, MPI_Offset pos, char *buf, MPI_Offset len,
                        MPI_Offset *done)
{
    struct rio_dtype_iter it;
    struct rio_region *reg = rio__malloc(VIEW_BATCH * sizeof *reg);
    struct iovec *iov = rio__malloc(VIEW_BATCH * sizeof *iov);
    MPI_Offset moved = 0;
    int rc = reg && iov ? rio__dtype_iter_init(&it, ft, -1, pos) : RIO_E_NOMEM;
    if (rc)
        goto out;
    while (moved < len) {
        int n = 0;
        MPI_Offset off, l, batch = 0;
        while (n < VIEW_BATCH && moved + batch < len &&
               rio__dtype_iter_next(&it, len - moved - batch, &off, &l)) {
            reg[n] = (struct rio_region){disp + off, l};
            iov[n] = (struct iovec){buf + moved + batch, (size_t)l};
            batch += l;
            n++;
        }
        if (!n)
            break;
        if (wr) {
            rc = rio__store_write_list(st, reg, iov, n);
            if (!rc)
                moved += batch;
        } else {
            MPI_Offset got = 0;
            rc = rio__store_read_list(st, reg, iov, n, &got);
            moved += got;
            if (!rc && got < batch)
                break;
        }
        if (rc)
            break;
    }
    rio__dtype_iter_free(&it);
out:
    free(reg);
    free(iov);
    if (done)
        *done = moved;
    return rc;
}

/* The arguments of a view transfer: 0 to go on, 1 when there is nothing
 * to move, or RIO_E_ARG. */
static int view_args(MPI_Offset disp, MPI_Offset pos, MPI_Offset len)
{
    if (len <= 0)
        return 1;
    if (pos < 0 || disp < 0) {
        rio__err_detail("view at displacement %lld, stream byte %lld", (long long)disp,
                        (long long)pos);
        return RIO_E_ARG;
    }
    return 0;
}

int rio__store_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                          MPI_Offset pos, const void *buf, MPI_Offset len)
{
    int arg = view_args(disp, pos, len);
    if (arg)
        return arg < 0 ? arg : 0;
    if (!st->ops->write_view)
        return view_by_list(st, 1, ft, disp, pos, (char *)buf, len, NULL);
    double t0 = rio__now();
    trace_view(st, ft, disp, pos, len, t0);
    int rc;
    do
        rc = st->ops->write_view(st, ft, disp, pos, buf, len);
    while (rc == -EINTR);
    account(st, t0, rc ? 0 : len);
    return rc;
}

int rio__store_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                         MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done)
{
    MPI_Offset got = 0;
    int rc;
    if (done)
        *done = 0;
    int arg = view_args(disp, pos, len);
    if (arg)
        return arg < 0 ? arg : 0;
    if (!st->ops->read_view)
        return view_by_list(st, 0, ft, disp, pos, buf, len, done);
    double t0 = rio__now();
    trace_view(st, ft, disp, pos, len, t0);
    do
        rc = st->ops->read_view(st, ft, disp, pos, buf, len, &got);
    while (rc == -EINTR);
    if (rc)
        got = 0;
    account(st, t0, got);
    if (done)
        *done = got;
    return rc;
}

/* ---- layout ----------------------------------------------------------- */

/* Contract in store.h. */
int rio__store_layout_wanted(const struct rio_hints *hints, const struct rio_layout *cur,
                             struct rio_layout *want)
{
    const struct rio_store_settings *s = rio__store_settings(hints);
    if (s->striping_unit <= 0 && s->striping_factor <= 0 && s->object_size <= 0)
        return 0;
    *want = *cur;
    if (s->striping_unit > 0)
        want->unit = s->striping_unit;
    if (s->striping_factor > 0)
        want->count = s->striping_factor;
    if (s->object_size > 0)
        want->object_size = s->object_size;
    else if (want->object_size % want->unit || want->object_size < want->unit)
        want->object_size = (want->object_size / want->unit + 1) * want->unit;
    return 1;
}

void rio__store_layout_fix(struct rio_store *st, const struct rio_layout *l)
{
    st->fixed = *l;
    st->has_fixed = 1;
}

void rio__store_layout(struct rio_store *st, struct rio_layout *out)
{
    if (st->has_fixed) {
        *out = st->fixed;
        return;
    }
    out->object_size = 0;
    if (st->ops && st->ops->layout && st->ops->layout(st, out) == 0 && out->unit > 0 &&
        out->count > 0) {
        out->known = 1;
        return;
    }
    const struct rio_store_settings *h = rio__store_settings(st->hints);
    if (h->striping_unit > 0) {
        out->unit = h->striping_unit;
        out->count = h->striping_factor > 0 ? h->striping_factor : 1;
        out->known = 1;
        return;
    }
    out->known = 0;
    /* One target.  The unit is only an alignment grain for whoever splits
     * the file into domains; 1 MiB keeps it away from zero. */
    out->unit = (long long)1 << 20;
    out->count = 1;
}
