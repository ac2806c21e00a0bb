/*
 * capture.c — a collective call's storage transfers, kept to be made later.
 *
 * Below MPI_THREAD_MULTIPLE no thread of resonio's may call MPI while the
 * program computes, so a nonblocking collective call cannot run its
 * exchange in the background.  It runs the engine at issue instead, the
 * exchange and the plan and the selector as a blocking call does, against
 * a store of this file that keeps the transfers whose bytes lie in the
 * caller's buffer (a rank writing its own data straight from it, or
 * reading straight into it, as the independent strategy does with a
 * contiguous memory type), by reference: MPI forbids the program to touch
 * that buffer until the request completes.  The file's lane makes them
 * later, in the order they came, on a thread that calls no MPI
 * (rio__capture_replay), while the program computes.
 *
 * Any other write (an aggregator's round buffer, which the engine reuses)
 * is copied and kept, up to the hint resonio_nb_copy bytes per call, where
 * the storage's writes do not land in the kernel's page cache (there a
 * write is itself a copy to memory, and copying first only adds one: in
 * resonio-bench --suite overlap -thread single, MPICH, 2 ranks, two_phase,
 * 512 MiB per rank, the issue took 0.85 s where the blocking call took
 * 0.18).  Past that allowance, or on such storage, it is made at once, the
 * kept writes first.  The copies' blocks stay with the file once the lane
 * has written them, up to the allowance, for its later calls: a block
 * written before is in memory, where a fresh one costs a fault per page,
 * which on this machine cost more than the write it was to hide.  Close
 * gives them to the pool of large blocks.  Likewise a read into other
 * memory (an aggregator's round, a sieving window) is made at once: the
 * engine uses its bytes.
 *
 * A read call's kept reads are counted whole at issue; the replay says by
 * how much they fell short (the end of the file), and the request's count
 * is that much less.
 *
 * Any operation that changes the file or its locks makes the kept
 * transfers first; any other (the size, a read at once) waits for the
 * lane's earlier jobs and makes the call's kept writes first, so the
 * engine sees the file as the blocking call would.  After a lock the call
 * goes through, so its transfers are made under the lock (a sieved
 * window's).  The engine asks the same while the selector measures
 * strategies on the call (rio__capture_through), since a time without the
 * transfers would mislead it.
 *
 * The store's table is the file's own driver's members, forwarded, except
 * the transfers (kept), the datatype I/O (left out: the engine uses list
 * I/O instead) and what would open or close (not used).  The engine reads
 * the table's name for the selector's profiles, so it keeps the driver's.
 */
#include "file_int.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* n file regions, whose bytes are (or go) at mem[i] in the caller's
 * buffer, or in copy. */
struct kept {
    struct kept *next;
    int n;
    int read;
    struct rio_region *reg;
    struct iovec *mem;
    int shared;       /* a write others of this host make at the same time: made
                         through rio__store_pwrite_shared */
    void *copy;       /* the bytes of a write from other memory, or NULL */
    size_t copy_size; /* copy's bytes */
};

struct rio_capture {
    struct rio_store_ops ops; /* this store's table */
    rio_file *fh;
    struct rio_store *inner;  /* &fh->st */
    struct kept *head, **tail;
    int through;              /* go through from now on (after a lock) */
    int reading;              /* a read call: its transfers are reads */
    MPI_Offset short_by;      /* the bytes the engine counted that no read brought */
    const char *lo, *hi;      /* the caller's buffer, which stays as it is until the
                                 request completes (MPI's rule): kept by reference */
    MPI_Offset copy_left;     /* the bytes of other memory this call may still copy */
    MPI_Offset kept_lo, kept_hi; /* the file range the kept writes lie in (empty: lo == hi) */
};

/* The blocks of a file's copies that its lane has written, for its later
 * calls.  The lane puts them back while the program's thread takes them. */
#define COPY_SLOTS 64
struct rio_copies {
    pthread_mutex_t mu;
    int n;
    size_t bytes, limit; /* held, and how much may be */
    void *blk[COPY_SLOTS];
    size_t size[COPY_SLOTS];
};

/* Room for a copy of n bytes for fh: the smallest of its blocks that
 * fits, else one from the pool.  NULL when there is none. */
static void *copy_take(rio_file *fh, size_t n)
{
    struct rio_copies *cs = fh->copies;
    void *p = NULL;
    pthread_mutex_lock(&cs->mu);
    int best = -1;
    for (int i = 0; i < cs->n; i++)
        if (cs->size[i] >= n && (best < 0 || cs->size[i] < cs->size[best]))
            best = i;
    if (best >= 0) {
        p = cs->blk[best];
        cs->bytes -= cs->size[best];
        cs->n--;
        cs->blk[best] = cs->blk[cs->n];
        cs->size[best] = cs->size[cs->n];
    }
    pthread_mutex_unlock(&cs->mu);
    return p ? p : rio__pool_alloc(n);
}

/* k's copy, written: kept by fh for a later call while there is room,
 * else given to the pool. */
static void copy_put(rio_file *fh, struct kept *k)
{
    struct rio_copies *cs = fh ? fh->copies : NULL;
    void *p = k->copy;
    k->copy = NULL;
    if (cs && p) {
        pthread_mutex_lock(&cs->mu);
        if (cs->n < COPY_SLOTS && cs->bytes + k->copy_size <= cs->limit) {
            cs->blk[cs->n] = p;
            cs->size[cs->n++] = k->copy_size;
            cs->bytes += k->copy_size;
            p = NULL;
        }
        pthread_mutex_unlock(&cs->mu);
    }
    rio__pool_free(p);
}

/* Does fh's storage copy a write into the kernel's page cache? */
static int page_cache(rio_file *fh)
{
    const struct rio_store_ops *o = fh->st.ops;
    return (o->caps & RIO_STORE_CAP_PAGE_CACHE) && !(o->is_direct && o->is_direct(&fh->st));
}

/* The bytes a write call on fh may copy, its blocks' holder made at the
 * first (0 without one).  The program's thread, at issue. */
static size_t copy_allowance(rio_file *fh)
{
    size_t limit = (size_t)rio__file_settings(&fh->hints)->nb_copy;
    if (!limit || page_cache(fh))
        return 0;
    if (!fh->copies) {
        struct rio_copies *cs = rio__calloc(1, sizeof *cs);
        if (!cs)
            return 0;
        pthread_mutex_init(&cs->mu, NULL);
        fh->copies = cs;
    }
    pthread_mutex_lock(&fh->copies->mu);
    fh->copies->limit = limit;
    pthread_mutex_unlock(&fh->copies->mu);
    return limit;
}

/* Contract in file_int.h. */
void rio__capture_close(rio_file *fh)
{
    struct rio_copies *cs = fh->copies;
    if (!cs)
        return;
    for (int i = 0; i < cs->n; i++)
        rio__pool_free(cs->blk[i]);
    pthread_mutex_destroy(&cs->mu);
    free(cs);
    fh->copies = NULL;
}

static struct rio_capture *cap_of(struct rio_store *st)
{
    return st->priv;
}

#define IN(c) ((c)->inner)

/* A write of len bytes at buf through the file's store st, staged as
 * others of this host writing at the same time ask when shared. */
static int write_one(struct rio_store *st, const void *buf, size_t len, MPI_Offset off,
                     int shared)
{
    return shared ? rio__store_pwrite_shared(st, buf, len, off)
                  : rio__store_pwrite_full(st, buf, len, off);
}

/* Make c's kept transfers through the file's store, in order, and drop
 * them; after an error the rest are dropped unmade.  The bytes the kept
 * reads were counted for and did not bring add to c->short_by (a view's
 * regions only grow in offset: past the first short read, every later one
 * brings nothing too, the list I/O contract's count).  0 or the first
 * error. */
static int make(struct rio_capture *c)
{
    struct kept *k = c->head;
    struct rio_store *st = c->inner;
    int rc = 0;
    c->head = NULL;
    c->tail = &c->head;
    c->kept_lo = c->kept_hi = 0;
    while (k) {
        struct kept *next = k->next;
        MPI_Offset want = 0, got = 0;
        for (int i = 0; k->read && i < k->n; i++)
            want += k->reg[i].len;
        if (!rc && k->read)
            rc = k->n == 1 ? rio__store_pread_full(st, k->mem[0].iov_base, k->mem[0].iov_len,
                                                   k->reg[0].off, &got)
                           : rio__store_read_list(st, k->reg, k->mem, k->n, &got);
        else if (!rc)
            rc = k->n == 1 ? write_one(st, k->mem[0].iov_base, k->mem[0].iov_len, k->reg[0].off,
                                       k->shared)
                           : rio__store_write_list(st, k->reg, k->mem, k->n);
        c->short_by += want - got; /* a read past the end of the file */
        copy_put(c->fh, k);
        free(k);
        k = next;
    }
    return rc;
}

/* Make the kept transfers now, after the lane's earlier jobs have made
 * theirs. */
static int flush(struct rio_capture *c)
{
    rio__async_lane_wait_transfers(c->fh);
    return make(c);
}

/* Before an operation that only looks at the file: the lane's earlier
 * writes and this call's own kept writes are made; a read call's kept
 * reads stay kept (looking does not disturb them). */
static int settle(struct rio_capture *c)
{
    if (!c->reading)
        return flush(c);
    rio__async_lane_wait_transfers(c->fh);
    return 0;
}

/* Do the n pieces mem[] lie in the caller's buffer? */
static int in_buffer(const struct rio_capture *c, const struct iovec *mem, int n)
{
    for (int i = 0; i < n; i++) {
        const char *p = mem[i].iov_base;
        if (!c->lo || p < c->lo || p > c->hi || mem[i].iov_len > (size_t)(c->hi - p))
            return 0;
    }
    return 1;
}

/* The bytes of the n pieces mem[]. */
static MPI_Offset mem_bytes(const struct iovec *mem, int n)
{
    MPI_Offset b = 0;
    for (int i = 0; i < n; i++)
        b += (MPI_Offset)mem[i].iov_len;
    return b;
}

/* The file range [*lo, *hi) the n regions file[] lie in. */
static void span(const struct rio_region *file, int n, MPI_Offset *lo, MPI_Offset *hi)
{
    *lo = *hi = 0;
    for (int i = 0; i < n; i++) {
        if (!file[i].len)
            continue;
        if (*lo == *hi || file[i].off < *lo)
            *lo = file[i].off;
        if (*lo == *hi || file[i].off + file[i].len > *hi)
            *hi = file[i].off + file[i].len;
    }
}

/* A write of a write call that is not kept: made now, after the lane's
 * earlier jobs' writes; the kept ones first if it may touch their bytes
 * (writes to other bytes give the same file in either order). */
static int write_now(struct rio_capture *c, const struct rio_region *file, int n)
{
    MPI_Offset lo, hi;
    span(file, n, &lo, &hi);
    if (c->kept_lo < c->kept_hi && lo < c->kept_hi && c->kept_lo < hi)
        return flush(c);
    rio__async_lane_wait_transfers(c->fh);
    return 0;
}

/* Keep a transfer of the n regions file[] whose bytes are (or go to)
 * mem[], a read when read (only a read call's reads are kept, and only a
 * write call's writes; a write from other memory as a copy, while the
 * call's allowance lasts): 1 when kept, 0 when it is to be made now (a
 * read not into the caller's buffer, a write past the allowance, the call
 * goes through, or no memory), what must come before it made first; or an
 * error of making them. */
static int keep(struct rio_capture *c, int read, const struct rio_region *file,
                const struct iovec *mem, int n, int shared)
{
    int mine = !c->through && read == c->reading && in_buffer(c, mem, n);
    MPI_Offset bytes = mine || c->through || read || c->reading ? 0 : mem_bytes(mem, n);
    int copied = bytes > 0 && bytes <= c->copy_left;
    struct kept *k =
        mine || copied ? rio__malloc(sizeof *k + (sizeof *file + sizeof *mem) * (size_t)n) : NULL;
    void *copy = k && copied ? copy_take(c->fh, (size_t)bytes) : NULL;
    if (k && copied && !copy) {
        free(k);
        k = NULL;
    }
    if (!k)
        return read ? settle(c) : c->reading || c->through ? flush(c) : write_now(c, file, n);
    MPI_Offset lo, hi;
    span(file, n, &lo, &hi);
    if (!read && lo < hi) {
        int empty = c->kept_lo == c->kept_hi;
        c->kept_lo = empty || lo < c->kept_lo ? lo : c->kept_lo;
        c->kept_hi = empty || hi > c->kept_hi ? hi : c->kept_hi;
    }
    *k = (struct kept){.n = n,
                       .read = read,
                       .shared = shared,
                       .reg = (struct rio_region *)(k + 1),
                       .copy = copy,
                       .copy_size = copy ? (size_t)bytes : 0};
    k->mem = (struct iovec *)(k->reg + n);
    memcpy(k->reg, file, sizeof *file * (size_t)n);
    memcpy(k->mem, mem, sizeof *mem * (size_t)n);
    for (size_t i = 0, at = 0; copy && i < (size_t)n; at += mem[i].iov_len, i++) {
        k->mem[i].iov_base = (char *)copy + at;
        memcpy(k->mem[i].iov_base, mem[i].iov_base, mem[i].iov_len);
    }
    if (copy) {
        c->copy_left -= bytes;
        rio__stat_add(&c->fh->stats.nb_copied, bytes);
    }
    *c->tail = k;
    c->tail = &k->next;
    return 1;
}

/* A vectored transfer is kept piece by piece (file regions one after
 * another): 1 when kept, 0 to make it now, or an error; *len its bytes. */
static int keep_vec(struct rio_capture *c, int read, const struct iovec *iov, int iovcnt,
                    MPI_Offset off, MPI_Offset *len)
{
    struct rio_region r[64];
    *len = 0;
    if (iovcnt > 64)
        return read ? settle(c) : flush(c);
    for (int i = 0; i < iovcnt; i++) {
        r[i] = (struct rio_region){off + *len, (MPI_Offset)iov[i].iov_len};
        *len += (MPI_Offset)iov[i].iov_len;
    }
    return keep(c, read, r, iov, iovcnt, 0);
}

/* A vectored transfer (a read when read): kept, or made now. */
static ssize_t vec(struct rio_store *st, int read, const struct iovec *iov, int iovcnt,
                   MPI_Offset off)
{
    struct rio_capture *c = cap_of(st);
    MPI_Offset len;
    int rc = keep_vec(c, read, iov, iovcnt, off, &len);
    if (rc)
        return rc < 0 ? rc : (ssize_t)len;
    /* made now through the file's store, which counts it */
    MPI_Offset got = len;
    rc = read ? rio__store_preadv_full(IN(c), iov, iovcnt, off, &got)
              : rio__store_pwritev_full(IN(c), iov, iovcnt, off);
    return rc ? rc : (ssize_t)got;
}

/* A transfer of len bytes at buf (a read when read; a write others of this
 * host make at the same time when shared): kept, or made now. */
static ssize_t one(struct rio_store *st, int read, void *buf, size_t len, MPI_Offset off,
                   int shared)
{
    struct rio_capture *c = cap_of(st);
    struct iovec v = {buf, len};
    struct rio_region r = {off, (MPI_Offset)len};
    int rc = len > (size_t)INT64_MAX ? (read ? settle(c) : flush(c))
                                     : keep(c, read, &r, &v, 1, shared);
    if (rc)
        return rc < 0 ? rc : (ssize_t)len;
    /* made now through the file's store, which counts it */
    MPI_Offset got = (MPI_Offset)len;
    rc = read ? rio__store_pread_full(IN(c), buf, len, off, &got)
              : write_one(IN(c), buf, len, off, shared);
    return rc ? rc : (ssize_t)got;
}

static ssize_t cap_pwritev(struct rio_store *st, const struct iovec *iov, int iovcnt,
                           MPI_Offset off)
{
    return vec(st, 0, iov, iovcnt, off);
}
static ssize_t cap_preadv(struct rio_store *st, const struct iovec *iov, int iovcnt,
                          MPI_Offset off)
{
    return vec(st, 1, iov, iovcnt, off);
}
static ssize_t cap_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    return one(st, 0, (void *)buf, len, off, 0);
}
static ssize_t cap_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    return one(st, 1, buf, len, off, 0);
}

/* kept as shared, or made now so */
static int cap_pwrite_shared(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    ssize_t r = one(st, 0, (void *)buf, len, off, 1);
    return r < 0 ? (int)r : 0;
}

static int cap_write_list(struct rio_store *st, const struct rio_region *file,
                          const struct iovec *mem, int n)
{
    struct rio_capture *c = cap_of(st);
    int rc = keep(c, 0, file, mem, n, 0);
    if (rc)
        return rc < 0 ? rc : 0;
    return rio__store_write_list(c->inner, file, mem, n);
}

/* kept whole: counted whole now (the replay says how much came short) */
static int cap_read_list(struct rio_store *st, const struct rio_region *file,
                         const struct iovec *mem, int n, MPI_Offset *done)
{
    struct rio_capture *c = cap_of(st);
    int rc = keep(c, 1, file, mem, n, 0);
    if (rc < 0)
        return rc;
    if (!rc) /* made now through the file's store, which counts it */
        return rio__store_read_list(IN(c), file, mem, n, done);
    *done = 0;
    for (int i = 0; i < n; i++)
        *done += file[i].len;
    return 0;
}

/* ---- everything else: what comes before it made first, then the driver ---- */

#define FLUSHED(c)                                                                                 \
    do {                                                                                           \
        int frc_ = flush(c);                                                                       \
        if (frc_)                                                                                  \
            return frc_;                                                                           \
    } while (0)
#define SETTLED(c)                                                                                 \
    do {                                                                                           \
        int src_ = settle(c);                                                                      \
        if (src_)                                                                                  \
            return src_;                                                                           \
    } while (0)

static int cap_get_size(struct rio_store *st, MPI_Offset *size)
{
    struct rio_capture *c = cap_of(st);
    SETTLED(c);
    return IN(c)->ops->get_size(IN(c), size);
}
static int cap_set_size(struct rio_store *st, MPI_Offset size)
{
    struct rio_capture *c = cap_of(st);
    FLUSHED(c);
    return IN(c)->ops->set_size(IN(c), size);
}
static int cap_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct rio_capture *c = cap_of(st);
    FLUSHED(c);
    return IN(c)->ops->allocate(IN(c), off, len);
}
static int cap_sync(struct rio_store *st)
{
    struct rio_capture *c = cap_of(st);
    FLUSHED(c);
    return IN(c)->ops->sync(IN(c));
}
/* A lock guards writes made under it: the rest of the call writes
 * through, so they are made while it is held. */
static int cap_lock(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive)
{
    struct rio_capture *c = cap_of(st);
    c->through = 1;
    FLUSHED(c);
    return IN(c)->ops->lock(IN(c), off, len, exclusive);
}
static int cap_unlock(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct rio_capture *c = cap_of(st);
    FLUSHED(c);
    return IN(c)->ops->unlock(IN(c), off, len);
}
static int cap_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    struct rio_capture *c = cap_of(st);
    SETTLED(c);
    return IN(c)->ops->prefetch(IN(c), reg, n);
}
/* what the file is, not its bytes: no writes need making first */
static int cap_layout(struct rio_store *st, struct rio_layout *out)
{
    return IN(cap_of(st))->ops->layout(IN(cap_of(st)), out);
}
static int cap_servers(struct rio_store *st, long long first, int n, int *out)
{
    return IN(cap_of(st))->ops->servers(IN(cap_of(st)), first, n, out);
}
static int cap_is_direct(struct rio_store *st)
{
    return IN(cap_of(st))->ops->is_direct(IN(cap_of(st)));
}
static unsigned cap_notes(struct rio_store *st)
{
    return IN(cap_of(st))->ops->notes(IN(cap_of(st)));
}

/* Contract in file_int.h. */
int rio__capture_begin(rio_file *fh, struct rio_store *cap, int write, const void *lo,
                       const void *hi)
{
    struct rio_capture *c = rio__calloc(1, sizeof *c);
    if (!c)
        return RIO_E_NOMEM;
    const struct rio_store_ops *in = fh->st.ops;
    c->reading = !write;
    c->lo = lo;
    c->hi = hi;
    c->fh = fh;
    c->inner = &fh->st;
    c->tail = &c->head;
    c->copy_left = write ? (MPI_Offset)copy_allowance(fh) : 0;
    /* the members the driver has, so the layers above choose as for it */
    c->ops = (struct rio_store_ops){
        .name = in->name,
        .version = in->version,
        .get_size = cap_get_size,
        .set_size = cap_set_size,
        .allocate = in->allocate ? cap_allocate : NULL,
        .sync = cap_sync,
        .pread = cap_pread,
        .pwrite = cap_pwrite,
        .pwrite_shared = cap_pwrite_shared,
        .preadv = in->preadv ? cap_preadv : NULL,
        .pwritev = in->pwritev ? cap_pwritev : NULL,
        .read_list = in->read_list ? cap_read_list : NULL,
        .write_list = cap_write_list,
        .lock = in->lock ? cap_lock : NULL,
        .unlock = in->unlock ? cap_unlock : NULL,
        .layout = in->layout ? cap_layout : NULL,
        .servers = in->servers ? cap_servers : NULL,
        .is_direct = in->is_direct ? cap_is_direct : NULL,
        .notes = in->notes ? cap_notes : NULL,
        .prefetch = in->prefetch ? cap_prefetch : NULL,
        .settings = in->settings,
        /* a transfer kept must not be staged here: make() stages it */
        .caps = in->caps & ~(RIO_STORE_CAP_OWN_VIEWS | RIO_STORE_CAP_PAGE_CACHE),
    };
    memset(cap, 0, sizeof *cap);
    cap->ops = &c->ops;
    cap->priv = c;
    cap->hints = fh->st.hints;
    cap->stats = NULL; /* the transfers count where they are made, on the file's store: at
                          once (one, vec, the lists) or in the replay */
    atomic_init(&cap->scratch_busy, 0);
    cap->fixed = fh->st.fixed;
    cap->has_fixed = fh->st.has_fixed;
    return 0;
}

/* Contract in file_int.h. */
int rio__capture_through(struct rio_store *cap)
{
    struct rio_capture *c = cap_of(cap);
    c->through = 1;
    return flush(c);
}

/* Contract in file_int.h. */
struct rio_capture *rio__capture_end(struct rio_store *cap)
{
    struct rio_capture *c = cap_of(cap);
    rio__pool_free(cap->scratch);
    cap->scratch = NULL;
    cap->ops = NULL;
    cap->priv = NULL;
    return c;
}

/* Contract in file_int.h. */
int rio__capture_replay(struct rio_capture *c, MPI_Offset *short_by)
{
    int rc = make(c);
    *short_by = c->short_by;
    return rc;
}

/* Contract in file_int.h. */
void rio__capture_free(struct rio_capture *c)
{
    if (!c)
        return;
    struct kept *k = c->head;
    while (k) {
        struct kept *next = k->next;
        copy_put(NULL, k); /* never made: the file may be closed */
        free(k);
        k = next;
    }
    free(c);
}
