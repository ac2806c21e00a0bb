/*
 * serve.c — one target of the emulated striped storage.
 *
 * A single-threaded event loop (ppoll) over a listening Unix socket and
 * its connections.  Each connection reads one message at a time: the
 * 32-byte header, checked at once (a bad magic, version, op or length gets
 * an error reply and the connection is closed after it, since its framing
 * can no longer be trusted), then exactly the payload the header
 * announced, which the strict decoder checks (a malformed payload gets an
 * error reply; the connection stays usable).  A connection is not read
 * while it has MAX_QUEUED requests waiting or replies it has not taken,
 * nor while all connections together buffer more than GLOBAL_BUFFER
 * bytes: backpressure through the socket instead of unbounded queues.  A
 * connection that ends in the middle of a message is simply dropped, and
 * one that stops sending in the middle of a message for --stall-s seconds
 * while the server would read it is closed, so that it cannot hold its
 * buffer (and its share of GLOBAL_BUFFER) forever.
 *
 * Requests are served one at a time in arrival order, or with an
 * elevator choosing among the first `elevator` waiting requests (each
 * connection's requests stay in order).  Serving a request does the real
 * I/O at once (pread/pwrite on the object file) and computes its modelled
 * service time (src/emu/model.c); the reply is held back until that time has
 * passed (times --time-scale), while the loop keeps accepting and reading.
 * So a target is a serial server whose throughput the model decides.
 * Hello, stats and lock requests are answered outside this queue; a lock
 * that conflicts waits in a list of its own, in order, until an unlock or
 * a closing connection frees its range.
 *
 * A data request's pieces (a contiguous range, an offset list, or the
 * regions of a shipped dataloop cut to this target's stripes) flow through
 * one sink that merges adjacent pieces into disk accesses; each access is
 * modelled, counted (sequential or not, head movement), logged with the
 * request's arrival time and client, and checked against the extent-lock
 * model: an access to a range whose lock another client holds (one of
 * them writing) revokes that lock at a cost, as Lustre's lock manager
 * would.  A datatype request is expanded twice, first only counting its
 * bytes (the data must match exactly, the reply must fit the limit), then
 * doing the I/O, so a malformed request touches nothing.
 *
 * A PREFETCH request is answered when it arrives and then served in its
 * turn like a read, except that its ranges go into a buffer cache instead
 * of a reply (resonant-io.txt §3.4's I/O-node cache, which its agents'
 * first-phase reads fill for the owners' reads of the second phase): a
 * later read that falls inside one cached range costs the per-access
 * overhead and a memory transfer, moves no head and is counted as a cache
 * hit, not an access.
 *
 * Target 0 keeps the metadata, name → {fid, unit, count, first}, in
 * meta.tab, rewritten through a temporary file, fsync and rename at each
 * change, so a restart finds every file; file ids are never reused.
 */
#include "emud.h"
#include "emu/dlwire.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNS 1024
#define MAX_QUEUED 4                       /* requests waiting per connection */
#define OUT_LIMIT ((size_t)1 << 20)        /* unsent reply bytes before a connection is paused */
#define GLOBAL_BUFFER ((size_t)256 << 20)  /* request bytes buffered over all connections */
#define MAX_OBJECTS 64                     /* open object files kept */
#define DEFAULT_UNIT ((int64_t)1 << 20)

/* ---- state --------------------------------------------------------------------- */

struct out {
    struct out *next;
    unsigned char *p;
    size_t n, off;
};

struct conn {
    struct conn *next;
    int fd;
    uint64_t client;
    unsigned char hdr[RIO_EMU_HDR_SIZE];
    size_t hdr_got;
    struct rio_emu_hdr h;
    unsigned char *payload;
    size_t pay_got;
    int in_payload;
    int queued;
    struct out *oh, *ot;
    size_t out_bytes;
    int closing;  /* close once the output is sent */
    double last_input; /* when bytes last came, or the server last did not want any */
};

struct job {
    struct job *next;
    struct conn *c;       /* NULL once the connection closed */
    struct rio_emu_req r;
    unsigned char *payload;
    double arrival;
    int64_t addr;         /* where it starts on the disk, for the elevator */
    uint64_t seq;
    struct out *reply;    /* built when served, sent at the modelled completion */
};

struct object {
    uint64_t fid;
    int fd;
    unsigned long used;
    struct rio_emu_xlocks locks; /* the extent-lock model (src/emu/model.h) */
};

struct meta {
    char *name;
    struct rio_emu_layout l;
};

struct rlock {          /* byte-range lock of LOCK/UNLOCK (target 0) */
    struct rlock *next;
    struct conn *c;
    uint64_t fid, id;
    int64_t lo, hi;
    int excl;
};

struct logent {
    double t;
    uint64_t client, fid, req;
    int64_t off, len;
    uint16_t op;
};

struct server {
    const char *dir;
    char data[PATH_MAX];
    int index, n;
    struct emud_cfg cfg;
    int lfd;
    struct conn *conns;
    int nconns;
    struct job *qh, *qt;
    struct job *cur;
    double cur_done, cur_service;
    double last_done;     /* when the disk last fell idle; 0 before the first job */
    uint64_t seq;
    size_t buffered;
    struct rio_emu_disk disk;
    struct object obj[MAX_OBJECTS];
    unsigned long tick;
    struct meta *meta;
    int nmeta, capmeta;
    uint64_t next_fid;
    struct rlock *held, *waiting;
    struct rio_emu_stats st;
    int first_access;     /* the next access is the first since the reset */
    double t0, reset_t;
    struct logent *log;
    long nlog;
    struct rio_emu_cache cache;
};

static volatile sig_atomic_t stop_flag;

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- replies ------------------------------------------------------------------- */

static void conn_flush(struct conn *c)
{
    while (c->oh && c->fd >= 0) {
        struct out *o = c->oh;
        ssize_t w = send(c->fd, o->p + o->off, o->n - o->off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                c->closing = 2; /* broken: drop */
            return;
        }
        o->off += (size_t)w;
        c->out_bytes -= (size_t)w;
        if (o->off == o->n) {
            c->oh = o->next;
            if (!c->oh)
                c->ot = NULL;
            free(o->p);
            free(o);
        }
    }
}

/* Queue the reply o on c's output and send what the socket takes. */
static void conn_queue(struct conn *c, struct out *o)
{
    if (c->ot)
        c->ot->next = o;
    else
        c->oh = o;
    c->ot = o;
    c->out_bytes += o->n;
    conn_flush(c);
}

/* Queue the message in b (begun with rio__emu_msg_begin) as a reply;
 * takes b's buffer. */
static void reply_buf(struct conn *c, struct rio_emu_buf *b, unsigned op, int32_t status,
                      uint64_t id)
{
    struct out *o = NULL;
    if (!c || rio__emu_msg_end(b, op, RIO_EMU_F_REPLY, status, id) ||
        !(o = rio__malloc(sizeof *o))) {
        if (c)
            c->closing = 2; /* cannot answer: the client would wait forever */
        rio__emu_buf_free(b);
        return;
    }
    *o = (struct out){NULL, b->p, b->n, 0};
    b->p = NULL;
    rio__emu_buf_free(b);
    conn_queue(c, o);
}

static void reply_status(struct conn *c, unsigned op, int32_t status, uint64_t id)
{
    struct rio_emu_buf b = {0};
    rio__emu_msg_begin(&b);
    reply_buf(c, &b, op, status, id);
}

/* ---- objects and the extent-lock model ---------------------------------------- */

static struct object *object_get(struct server *S, uint64_t fid, int create, int *err)
{
    struct object *o = NULL, *lru = &S->obj[0];
    *err = 0;
    for (int i = 0; i < MAX_OBJECTS; i++) {
        if (S->obj[i].used && S->obj[i].fid == fid) {
            o = &S->obj[i];
            break;
        }
        if (S->obj[i].used < lru->used)
            lru = &S->obj[i];
    }
    if (!o) {
        o = lru;
        if (o->used && o->fd >= 0)
            close(o->fd);
        memset(o, 0, sizeof *o);
        o->fid = fid;
        o->fd = -1;
    }
    o->used = ++S->tick;
    if (o->fd < 0) {
        char path[PATH_MAX + 32];
        snprintf(path, sizeof path, "%s/%llu.obj", S->data, (unsigned long long)fid);
        o->fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
        if (o->fd < 0 && (create || errno != ENOENT))
            *err = -errno;
    }
    return o;
}

static void object_drop(struct server *S, uint64_t fid)
{
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (S->obj[i].used && S->obj[i].fid == fid) {
            if (S->obj[i].fd >= 0)
                close(S->obj[i].fd);
            memset(&S->obj[i], 0, sizeof S->obj[i]);
            S->obj[i].fd = -1;
        }
}

/* ---- the data path --------------------------------------------------------------- */

struct sink {
    struct server *S;
    struct job *j;
    struct object *o;
    int write, count_only;
    int prefetch;              /* into the cache only: no data moves */
    const unsigned char *src;  /* write data */
    unsigned char *dst;        /* read data */
    int64_t pos, limit;        /* data bytes consumed / available */
    int64_t run_obj, run_len, run_pos;
    int64_t valid;
    int short_seen;
    double t;
    int err;
};

static void log_access(struct server *S, struct job *j, int64_t off, int64_t len)
{
    if (S->nlog >= S->cfg.log_cap) {
        S->st.log_dropped++;
        return;
    }
    S->log[S->nlog++] = (struct logent){j->arrival - S->t0, j->c ? j->c->client : 0, j->r.fid,
                                        j->seq, off, len, j->r.h.op};
    S->st.log_entries++;
}

static int run_flush(struct sink *k)
{
    struct server *S = k->S;
    int64_t len = k->run_len, off = k->run_obj, got = 0;
    if (!len)
        return 0;
    k->run_len = 0;
    uint64_t client = k->j->c ? k->j->c->client : 0;
    int hit = 0;
    if (k->write)
        rio__emu_cache_drop(&S->cache, k->j->r.fid, off, off + len);
    else if (!k->prefetch)
        hit = rio__emu_cache_hit(&S->cache, k->j->r.fid, off, off + len);
    if (k->prefetch) {
        rio__emu_cache_add(&S->cfg.disk, &S->cache, k->j->r.fid, off, off + len);
    } else if (k->write) {
        while (got < len) {
            ssize_t w = pwrite(k->o->fd, k->src + k->run_pos + got, (size_t)(len - got),
                               (off_t)(off + got));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return -(w < 0 ? errno : EIO);
            got += w;
        }
        S->st.bytes_written += (uint64_t)len;
    } else {
        unsigned char *d = k->dst + k->run_pos;
        while (got < len && k->o->fd >= 0) {
            ssize_t r = pread(k->o->fd, d + got, (size_t)(len - got), (off_t)(off + got));
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return -errno;
            if (r == 0)
                break;
            got += r;
        }
        if (got < len) {
            memset(d + got, 0, (size_t)(len - got));
            if (!k->short_seen) {
                k->short_seen = 1;
                k->valid = k->run_pos + got;
            }
        }
        S->st.bytes_read += (uint64_t)got;
    }
    k->t += rio__emu_model_lock(&S->cfg.disk, &k->o->locks, client, off, off + len, k->write,
                                &S->st.revocations);
    if (hit) { /* served from the buffer cache: no disk access */
        k->t += rio__emu_cache_time(&S->cfg.disk, len);
        S->st.cache_hits++;
        return 0;
    }
    int seq;
    int64_t seek;
    k->t += rio__emu_model_access(&S->cfg.disk, &S->disk,
                                  rio__emu_model_addr(&S->cfg.disk, k->j->r.fid, off), len,
                                  k->write, &seq, &seek);
    S->st.accesses++;
    S->st.seek_bytes += (uint64_t)seek;
    if (S->first_access) {
        S->first_access = 0;
    } else {
        S->st.judged++;
        S->st.sequential += (uint64_t)seq;
    }
    log_access(S, k->j, off, len);
    return 0;
}

static int piece(void *arg, int64_t obj, int64_t len)
{
    struct sink *k = arg;
    if (len > k->limit - k->pos)
        return -EINVAL; /* more pieces than data */
    if (k->count_only) {
        k->pos += len;
        return 0;
    }
    if (k->run_len && k->run_obj + k->run_len == obj) {
        k->run_len += len;
    } else {
        int rc = run_flush(k);
        if (rc)
            return rc;
        k->run_obj = obj;
        k->run_len = len;
        k->run_pos = k->pos;
    }
    k->pos += len;
    return 0;
}

struct dtarg {
    const struct rio_emu_req *r;
    struct sink *k;
};

static int dt_region(void *arg, int64_t off, int64_t len)
{
    struct dtarg *a = arg;
    return rio__emu_stripe_pieces(off, len, a->r->unit, a->r->count, a->r->index, piece, a->k);
}

/* Serve a data request; on success *rb holds the reply payload. */
static int serve_data(struct server *S, struct job *j, struct rio_emu_buf *rb, double *t)
{
    const struct rio_emu_req *r = &j->r;
    unsigned op = r->h.op;
    int write = op == RIO_EMU_OP_WRITE || op == RIO_EMU_OP_WRITE_LIST || op == RIO_EMU_OP_WRITE_DT;
    struct rio_emu_dltype *dl = NULL;
    struct sink k = {0};
    int rc = 0;
    int64_t total = 0;

    k.S = S;
    k.j = j;
    k.write = write;
    k.prefetch = op == RIO_EMU_OP_PREFETCH;
    if (op == RIO_EMU_OP_READ_DT || op == RIO_EMU_OP_WRITE_DT) {
        struct dtarg a = {r, &k};
        if ((rc = rio__emu_dl_decode(r->dl, r->dllen, &dl)))
            goto out;
        k.count_only = 1;
        k.limit = write ? (int64_t)r->datalen : RIO_EMU_MAX_DATA;
        if ((rc = rio__emu_dl_walk(dl, r->disp, r->pos, r->len, dt_region, &a)))
            goto out;
        if (write && k.pos != (int64_t)r->datalen) {
            rc = -EINVAL; /* data and view disagree */
            goto out;
        }
        total = k.pos;
    } else if (op == RIO_EMU_OP_READ || op == RIO_EMU_OP_WRITE) {
        total = r->len;
    } else {
        total = r->list_total;
    }
    if (!write && !k.prefetch) {
        rio__emu_put_u64(rb, (uint64_t)total);
        k.dst = rio__emu_buf_grow(rb, (size_t)total);
        if (rb->err) {
            rc = rb->err;
            goto out;
        }
    }
    k.o = object_get(S, r->fid, write, &rc);
    if (rc)
        goto out;
    k.count_only = 0;
    k.src = r->data;
    k.pos = 0;
    k.limit = total;
    k.valid = total;
    if (dl) {
        struct dtarg a = {r, &k};
        rc = rio__emu_dl_walk(dl, r->disp, r->pos, r->len, dt_region, &a);
    } else if (op == RIO_EMU_OP_READ || op == RIO_EMU_OP_WRITE) {
        rc = piece(&k, r->off, r->len);
    } else {
        for (uint32_t i = 0; !rc && i < r->n; i++) {
            int64_t off, len;
            rio__emu_pair(r, i, &off, &len);
            if (len)
                rc = piece(&k, off, len);
        }
    }
    if (!rc)
        rc = run_flush(&k);
    if (!rc && !write && !k.prefetch)
        rio__emu_put64(rb->p + RIO_EMU_HDR_SIZE, (uint64_t)k.valid);
    S->st.requests++;
    *t = k.t;
out:
    rio__emu_dl_free(dl);
    return rc;
}

/* ---- metadata (target 0) ---------------------------------------------------------- */

static int meta_save(struct server *S)
{
    char path[PATH_MAX + 32], tmp[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/meta.tab", S->data);
    snprintf(tmp, sizeof tmp, "%s/meta.tab.tmp", S->data);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return -errno;
    fprintf(f, "next %llu\n", (unsigned long long)S->next_fid);
    for (int i = 0; i < S->nmeta; i++) {
        const struct meta *m = &S->meta[i];
        fprintf(f, "%llu %lld %u %u ", (unsigned long long)m->l.fid, (long long)m->l.unit,
                m->l.count, m->l.first);
        for (const unsigned char *p = (const unsigned char *)m->name; *p; p++)
            fprintf(f, "%02x", *p);
        fputc('\n', f);
    }
    int rc = fflush(f) || fsync(fileno(f)) ? -errno : 0;
    if (fclose(f) && !rc)
        rc = -errno;
    if (!rc && rename(tmp, path))
        rc = -errno;
    if (!rc) {
        int dfd = open(S->data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            fsync(dfd);
            close(dfd);
        }
    }
    return rc;
}

static int meta_add(struct server *S, const char *name, const struct rio_emu_layout *l)
{
    if (S->nmeta == S->capmeta) {
        int cap = S->capmeta ? 2 * S->capmeta : 16;
        struct meta *m = rio__realloc(S->meta, (size_t)cap * sizeof *m);
        if (!m)
            return -ENOMEM;
        S->meta = m;
        S->capmeta = cap;
    }
    size_t n = strlen(name) + 1;
    char *d = rio__malloc(n);
    if (!d)
        return -ENOMEM;
    memcpy(d, name, n);
    S->meta[S->nmeta++] = (struct meta){d, *l};
    return 0;
}

static int meta_load(struct server *S)
{
    char path[PATH_MAX + 32], hex[2 * RIO_EMU_MAX_NAME + 8], name[RIO_EMU_MAX_NAME + 1];
    unsigned long long fid, next;
    long long unit;
    unsigned count, first;
    snprintf(path, sizeof path, "%s/meta.tab", S->data);
    S->next_fid = 1;
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? 0 : -errno;
    int rc = 0;
    if (fscanf(f, "next %llu\n", &next) == 1)
        S->next_fid = next;
    while (!rc && fscanf(f, "%llu %lld %u %u %2050s\n", &fid, &unit, &count, &first, hex) == 5) {
        size_t h = strlen(hex) / 2;
        for (size_t i = 0; i < h && i < RIO_EMU_MAX_NAME; i++) {
            unsigned v;
            sscanf(hex + 2 * i, "%2x", &v);
            name[i] = (char)v;
        }
        name[h < RIO_EMU_MAX_NAME ? h : RIO_EMU_MAX_NAME] = '\0';
        struct rio_emu_layout l = {fid, unit, count, first};
        rc = meta_add(S, name, &l);
        if (fid >= S->next_fid)
            S->next_fid = fid + 1;
    }
    fclose(f);
    return rc;
}

static struct meta *meta_find(struct server *S, const struct rio_emu_req *r)
{
    for (int i = 0; i < S->nmeta; i++)
        if (strlen(S->meta[i].name) == r->namelen && !memcmp(S->meta[i].name, r->name, r->namelen))
            return &S->meta[i];
    return NULL;
}

static int serve_meta(struct server *S, const struct rio_emu_req *r, struct rio_emu_buf *rb)
{
    char name[RIO_EMU_MAX_NAME + 1];
    struct meta *m;
    int rc;
    if (S->index != 0)
        return -EOPNOTSUPP; /* metadata lives on target 0 */
    m = meta_find(S, r);
    switch (r->h.op) {
    case RIO_EMU_OP_CREATE:
        if (m) {
            if (r->h.flags & RIO_EMU_F_EXCL)
                return -EEXIST;
            break;
        }
        memcpy(name, r->name, r->namelen);
        name[r->namelen] = '\0';
        {
            struct rio_emu_layout l;
            l.fid = S->next_fid++;
            l.unit = r->unit ? r->unit : DEFAULT_UNIT;
            l.count = r->count && r->count < (uint32_t)S->n ? r->count : (uint32_t)S->n;
            l.first = (uint32_t)((l.fid - 1) % (uint64_t)S->n);
            if ((rc = meta_add(S, name, &l)))
                return rc;
            if ((rc = meta_save(S))) {
                free(S->meta[--S->nmeta].name);
                return rc;
            }
            m = &S->meta[S->nmeta - 1];
        }
        break;
    case RIO_EMU_OP_LOOKUP:
        if (!m)
            return -ENOENT;
        break;
    case RIO_EMU_OP_REMOVE: {
        if (!m)
            return -ENOENT;
        struct meta gone = *m;
        *m = S->meta[--S->nmeta];
        if ((rc = meta_save(S))) {
            S->meta[S->nmeta++] = gone; /* order does not matter */
            return rc;
        }
        rio__emu_put_layout(rb, &gone.l);
        free(gone.name);
        return 0;
    }
    }
    rio__emu_put_layout(rb, &m->l);
    return 0;
}

/* ---- serving one queued request ------------------------------------------------------ */

static int serve_object(struct server *S, const struct rio_emu_req *r, struct rio_emu_buf *rb)
{
    int rc = 0;
    struct object *o;
    struct stat sb;
    char path[PATH_MAX + 32];
    switch (r->h.op) {
    case RIO_EMU_OP_OBJ_REMOVE:
        object_drop(S, r->fid);
        rio__emu_cache_drop(&S->cache, r->fid, 0, INT64_MAX);
        snprintf(path, sizeof path, "%s/%llu.obj", S->data, (unsigned long long)r->fid);
        if (unlink(path) && errno != ENOENT)
            rc = -errno;
        break;
    case RIO_EMU_OP_GET_SIZE:
        o = object_get(S, r->fid, 0, &rc);
        if (!rc && o->fd >= 0 && fstat(o->fd, &sb))
            rc = -errno;
        rio__emu_put_u64(rb, !rc && o->fd >= 0 ? (uint64_t)sb.st_size : 0);
        break;
    case RIO_EMU_OP_SET_SIZE:
        o = object_get(S, r->fid, 1, &rc);
        if (!rc && ftruncate(o->fd, (off_t)r->size))
            rc = -errno;
        rio__emu_cache_drop(&S->cache, r->fid, r->size, INT64_MAX);
        break;
    case RIO_EMU_OP_SYNC:
        o = object_get(S, r->fid, 0, &rc);
        if (!rc && o->fd >= 0 && fsync(o->fd))
            rc = -errno;
        break;
    }
    return rc;
}

/* Serve job j: do its work and build its reply; *t is its service time. */
static void serve(struct server *S, struct job *j, struct rio_emu_buf *rb, int32_t *status,
                  double *t)
{
    const struct rio_emu_req *r = &j->r;
    int rc = 0;
    *t = 0;
    rio__emu_msg_begin(rb);
    switch (r->h.op) {
    case RIO_EMU_OP_CREATE:
    case RIO_EMU_OP_LOOKUP:
    case RIO_EMU_OP_REMOVE:
        rc = serve_meta(S, r, rb);
        break;
    case RIO_EMU_OP_OBJ_REMOVE:
    case RIO_EMU_OP_GET_SIZE:
    case RIO_EMU_OP_SET_SIZE:
    case RIO_EMU_OP_SYNC:
        rc = serve_object(S, r, rb);
        break;
    default:
        rc = serve_data(S, j, rb, t);
        break;
    }
    if (rc) { /* an error reply carries no payload */
        rio__emu_msg_begin(rb);
        *t = 0;
    }
    *status = rc;
}

/* The next job to serve: the oldest, or with the elevator the first (in
 * address order from the head, wrapping) of the first `elevator` jobs
 * that are each the oldest of their connection. */
static struct job *pick(struct server *S)
{
    struct job *best = NULL, **best_link = NULL, *low = NULL, **low_link = NULL;
    int k = 0;
    if (!S->qh)
        return NULL;
    if (S->cfg.elevator <= 1) {
        best = S->qh;
        best_link = &S->qh;
    } else {
        for (struct job **l = &S->qh; *l && k < S->cfg.elevator; l = &(*l)->next, k++) {
            struct job *j = *l, *e;
            for (e = S->qh; e != j && e->c != j->c; e = e->next)
                ;
            if (e != j)
                continue; /* an older job of the same connection waits */
            if (j->addr >= S->disk.head && (!best || j->addr < best->addr))
                best = j, best_link = l;
            if (!low || j->addr < low->addr)
                low = j, low_link = l;
        }
        if (!best)
            best = low, best_link = low_link;
    }
    *best_link = best->next;
    if (S->qt == best) {
        S->qt = NULL;
        for (struct job *j = S->qh; j; j = j->next)
            S->qt = j;
    }
    return best;
}

static void job_free(struct server *S, struct job *j)
{
    (void)S;
    if (!j)
        return;
    if (j->c)
        j->c->queued--;
    free(j->payload);
    free(j);
}

/* Start the next job if none is in service. */
static void start_next(struct server *S)
{
    if (S->cur || !S->qh)
        return;
    struct job *j = pick(S);
    struct rio_emu_buf rb = {0};
    int32_t status;
    double t;
    /* the disk idled from the last completion until this job arrived (with
     * no waiting for the model, as if long); the gaps before jobs that
     * leave the disk alone (metadata, cache hits) add to the idle time of
     * the next access, their service times do not */
    if (S->last_done > 0 && j->arrival > S->last_done)
        S->disk.idle +=
            S->cfg.time_scale > 0 ? (j->arrival - S->last_done) / S->cfg.time_scale : 1e9;
    serve(S, j, &rb, &status, &t);
    S->cur = j;
    S->cur_service = t;
    S->cur_done = now() + t * S->cfg.time_scale;
    free(j->payload);
    j->payload = NULL;
    S->buffered -= j->r.h.length;
    if (j->r.h.op == RIO_EMU_OP_PREFETCH) { /* answered at arrival */
        rio__emu_buf_free(&rb);
        return;
    }
    struct out *o = rio__malloc(sizeof *o);
    if (o && !rio__emu_msg_end(&rb, j->r.h.op, RIO_EMU_F_REPLY, status, j->r.h.id)) {
        *o = (struct out){NULL, rb.p, rb.n, 0};
        rb.p = NULL;
        j->reply = o;
    } else {
        free(o);
        if (j->c)
            j->c->closing = 2; /* cannot answer: the client would wait forever */
    }
    rio__emu_buf_free(&rb);
}

/* Complete the job in service when its time has come. */
static void complete(struct server *S)
{
    struct job *j = S->cur;
    if (!j || now() < S->cur_done)
        return;
    S->st.busy_ns += (uint64_t)(S->cur_service * 1e9);
    S->last_done = S->cur_done;
    struct out *o = j->reply;
    if (o && j->c) {
        conn_queue(j->c, o);
    } else if (o) {
        free(o->p);
        free(o);
    }
    S->cur = NULL;
    job_free(S, j);
}

/* ---- locks (target 0) ------------------------------------------------------------ */

static int rlock_conflicts(struct server *S, const struct rlock *w)
{
    for (struct rlock *h = S->held; h; h = h->next)
        if (h->c != w->c && h->fid == w->fid && h->lo < w->hi && w->lo < h->hi &&
            (h->excl || w->excl))
            return 1;
    return 0;
}

/* Grant every waiting lock that no longer conflicts, in order. */
static void rlock_retry(struct server *S)
{
    for (struct rlock **l = &S->waiting; *l;) {
        struct rlock *w = *l;
        if (rlock_conflicts(S, w)) {
            l = &w->next;
            continue;
        }
        *l = w->next;
        w->next = S->held;
        S->held = w;
        reply_status(w->c, RIO_EMU_OP_LOCK, 0, w->id);
    }
}

static void rlock_request(struct server *S, struct conn *c, const struct rio_emu_req *r)
{
    if (S->index != 0) {
        reply_status(c, r->h.op, -EOPNOTSUPP, r->h.id);
        return;
    }
    int64_t hi = r->len ? r->off + r->len : INT64_MAX;
    if (r->h.op == RIO_EMU_OP_UNLOCK) {
        for (struct rlock **l = &S->held; *l;) {
            struct rlock *h = *l;
            if (h->c == c && h->fid == r->fid && h->lo < hi && r->off < h->hi) {
                *l = h->next;
                free(h);
            } else {
                l = &h->next;
            }
        }
        reply_status(c, r->h.op, 0, r->h.id);
        rlock_retry(S);
        return;
    }
    struct rlock *w = rio__malloc(sizeof *w);
    if (!w) {
        reply_status(c, r->h.op, -ENOMEM, r->h.id);
        return;
    }
    *w = (struct rlock){NULL, c, r->fid, r->h.id, r->off, hi, (int)r->exclusive};
    struct rlock **l = &S->waiting;
    while (*l)
        l = &(*l)->next;
    *l = w;
    rlock_retry(S);
}

static void rlock_drop_conn(struct server *S, struct conn *c)
{
    struct rlock **lists[2] = {&S->held, &S->waiting};
    for (int k = 0; k < 2; k++)
        for (struct rlock **l = lists[k]; *l;) {
            struct rlock *h = *l;
            if (h->c == c) {
                *l = h->next;
                free(h);
            } else {
                l = &h->next;
            }
        }
    rlock_retry(S);
}

/* ---- connections ------------------------------------------------------------------- */

static void conn_close(struct server *S, struct conn *c)
{
    for (struct conn **l = &S->conns; *l; l = &(*l)->next)
        if (*l == c) {
            *l = c->next;
            break;
        }
    S->nconns--;
    /* its waiting requests go; the one in service completes without it */
    for (struct job **l = &S->qh; *l;) {
        struct job *j = *l;
        if (j->c == c) {
            *l = j->next;
            j->c = NULL;
            c->queued--;
            S->buffered -= j->r.h.length;
            free(j->payload);
            free(j);
        } else {
            l = &j->next;
        }
    }
    S->qt = NULL;
    for (struct job *j = S->qh; j; j = j->next)
        S->qt = j;
    if (S->cur && S->cur->c == c)
        S->cur->c = NULL;
    rlock_drop_conn(S, c);
    if (c->in_payload)
        S->buffered -= c->h.length;
    free(c->payload);
    while (c->oh) {
        struct out *o = c->oh;
        c->oh = o->next;
        free(o->p);
        free(o);
    }
    close(c->fd);
    free(c);
}

/* A complete message on c: answer now, or queue it. */
static void dispatch(struct server *S, struct conn *c)
{
    struct job *j = rio__calloc(1, sizeof *j);
    unsigned char *payload = c->payload;
    size_t len = c->h.length;
    c->payload = NULL;
    c->in_payload = 0;
    c->hdr_got = 0;
    c->pay_got = 0;
    if (!j) {
        S->buffered -= len;
        free(payload);
        reply_status(c, c->h.op, -ENOMEM, c->h.id);
        return;
    }
    int rc = rio__emu_req_decode(&c->h, payload ? payload : (unsigned char *)"", len, &j->r);
    if (rc) {
        S->st.rejected++;
        S->buffered -= len;
        free(payload);
        free(j);
        reply_status(c, c->h.op, rc, c->h.id);
        return;
    }
    switch (j->r.h.op) {
    case RIO_EMU_OP_HELLO: {
        struct rio_emu_buf b = {0};
        c->client = j->r.client;
        rio__emu_msg_begin(&b);
        rio__emu_put_u32(&b, (uint32_t)S->index);
        rio__emu_put_u32(&b, (uint32_t)S->n);
        reply_buf(c, &b, j->r.h.op, 0, j->r.h.id);
        break;
    }
    case RIO_EMU_OP_STATS_GET: {
        struct rio_emu_buf b = {0};
        S->st.elapsed_ns = (uint64_t)((now() - S->reset_t) * 1e9);
        rio__emu_msg_begin(&b);
        rio__emu_put_stats(&b, &S->st);
        reply_buf(c, &b, j->r.h.op, 0, j->r.h.id);
        break;
    }
    case RIO_EMU_OP_STATS_RESET:
        memset(&S->st, 0, sizeof S->st);
        S->cache.n = 0;
        S->cache.bytes = 0;
        S->first_access = 1;
        S->reset_t = now();
        reply_status(c, j->r.h.op, 0, j->r.h.id);
        break;
    case RIO_EMU_OP_LOCK:
    case RIO_EMU_OP_UNLOCK:
        rlock_request(S, c, &j->r);
        break;
    default:
        j->c = c;
        j->payload = payload;
        j->arrival = now();
        j->seq = ++S->seq;
        j->addr = rio__emu_model_addr(&S->cfg.disk, j->r.fid, 0);
        if (j->r.h.op == RIO_EMU_OP_READ || j->r.h.op == RIO_EMU_OP_WRITE)
            j->addr += j->r.off;
        else if (j->r.n > 0) {
            int64_t off, l;
            rio__emu_pair(&j->r, 0, &off, &l);
            j->addr += off;
        }
        if (j->r.h.op == RIO_EMU_OP_PREFETCH) {
            /* answered now: what the client sends next is served after it */
            reply_status(c, j->r.h.op, 0, j->r.h.id);
        }
        c->queued++;
        if (S->qt)
            S->qt->next = j;
        else
            S->qh = j;
        S->qt = j;
        return; /* payload now owned by the job */
    }
    S->buffered -= len;
    free(payload);
    free(j);
}

static int conn_wants_input(const struct server *S, const struct conn *c)
{
    if (c->closing || c->queued >= MAX_QUEUED || c->out_bytes > OUT_LIMIT)
        return 0;
    return c->in_payload || S->buffered < GLOBAL_BUFFER;
}

/* Seconds until c counts as stalled: stopped inside a message while the
 * server would read; a negative value when it is; HUGE_VAL when it
 * cannot stall now (between messages, or the server is not reading). */
static double stall_left(struct server *S, struct conn *c, double t)
{
    if (!(c->hdr_got || c->in_payload) || !conn_wants_input(S, c)) {
        c->last_input = t; /* not waiting for this client */
        return HUGE_VAL;
    }
    return c->last_input + S->cfg.stall_s - t;
}

/* Read what c has; returns -1 when c must be closed. */
static int conn_read(struct server *S, struct conn *c)
{
    if (!c->in_payload) {
        ssize_t r = recv(c->fd, c->hdr + c->hdr_got, RIO_EMU_HDR_SIZE - c->hdr_got, MSG_DONTWAIT);
        if (r < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        if (r == 0) {
            if (c->hdr_got)
                S->st.rejected++; /* truncated header */
            return -1;
        }
        c->hdr_got += (size_t)r;
        c->last_input = now();
        if (c->hdr_got < RIO_EMU_HDR_SIZE)
            return 0;
        int rc = rio__emu_hdr_decode(c->hdr, &c->h);
        if (rc) {
            S->st.rejected++;
            reply_status(c, c->h.op, rc, c->h.id);
            c->closing = 1; /* framing lost: answer, then close */
            return 0;
        }
        if (c->h.length && !(c->payload = rio__malloc(c->h.length))) {
            reply_status(c, c->h.op, -ENOMEM, c->h.id);
            c->closing = 1;
            return 0;
        }
        c->in_payload = 1;
        c->pay_got = 0;
        S->buffered += c->h.length;
    } else {
        ssize_t r = recv(c->fd, c->payload + c->pay_got, c->h.length - c->pay_got, MSG_DONTWAIT);
        if (r < 0)
            return errno == EAGAIN || errno == EINTR ? 0 : -1;
        if (r == 0) {
            S->st.rejected++; /* truncated payload */
            return -1;
        }
        c->pay_got += (size_t)r;
        c->last_input = now();
    }
    if (c->in_payload && c->pay_got == c->h.length)
        dispatch(S, c);
    return 0;
}

static void conn_accept(struct server *S)
{
    int fd = accept4(S->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0)
        return;
    if (S->nconns >= MAX_CONNS) {
        close(fd);
        return;
    }
    struct conn *c = rio__calloc(1, sizeof *c);
    if (!c) {
        close(fd);
        return;
    }
    c->fd = fd;
    c->last_input = now();
    c->next = S->conns;
    S->conns = c;
    S->nconns++;
}

/* ---- start and shutdown ------------------------------------------------------------ */

static int listen_on(struct server *S)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (snprintf(a.sun_path, sizeof a.sun_path, "%s/t%d.sock", S->dir, S->index) >=
        (int)sizeof a.sun_path) {
        fprintf(stderr, "resonio-emud: socket path %s/t%d.sock is too long\n", S->dir, S->index);
        return -1;
    }
    unlink(a.sun_path);
    S->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (S->lfd < 0 || bind(S->lfd, (struct sockaddr *)&a, sizeof a) || listen(S->lfd, 128)) {
        fprintf(stderr, "resonio-emud: listening on %s: %s\n", a.sun_path, strerror(errno));
        return -1;
    }
    return 0;
}

static void write_csv(struct server *S)
{
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/t%d.csv", S->dir, S->index);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "request,arrival_s,client,op,fid,offset,length\n");
        for (long i = 0; i < S->nlog; i++) {
            const struct logent *e = &S->log[i];
            fprintf(f, "%llu,%.6f,%llu,%s,%llu,%lld,%lld\n", (unsigned long long)e->req, e->t,
                    (unsigned long long)e->client, rio__emu_op_name(e->op),
                    (unsigned long long)e->fid, (long long)e->off, (long long)e->len);
        }
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/t%d.stats.csv", S->dir, S->index);
    f = fopen(path, "w");
    if (f) {
        const struct rio_emu_stats *s = &S->st;
        fprintf(f, "target,model,requests,accesses,sequential_fraction,seek_bytes,busy_s,"
                   "revocations,bytes_read,bytes_written,log_entries,log_dropped,rejected,"
                   "cache_hits\n");
        fprintf(f, "%d,%s,%llu,%llu,%.6f,%llu,%.6f,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n", S->index,
                rio__emu_model_name(S->cfg.disk.model), (unsigned long long)s->requests,
                (unsigned long long)s->accesses,
                s->judged ? (double)s->sequential / (double)s->judged : 1.0,
                (unsigned long long)s->seek_bytes, (double)s->busy_ns * 1e-9,
                (unsigned long long)s->revocations, (unsigned long long)s->bytes_read,
                (unsigned long long)s->bytes_written, (unsigned long long)s->log_entries,
                (unsigned long long)s->log_dropped, (unsigned long long)s->rejected,
                (unsigned long long)s->cache_hits);
        fclose(f);
    }
}

/* Contract in emud.h. */
int emud_serve(const char *dir, int index, int ntargets, const struct emud_cfg *cfg)
{
    static struct server S; /* large (the object table); one per process */
    struct pollfd *pfd = NULL;
    struct conn **pconn = NULL;
    char pidpath[PATH_MAX + 32];
    int status = 1;
    sigset_t block, orig;

    S.dir = dir;
    S.index = index;
    S.n = ntargets;
    S.cfg = *cfg;
    S.lfd = -1;
    S.disk.head = -1;
    S.first_access = 1;
    S.t0 = S.reset_t = now();
    for (int i = 0; i < MAX_OBJECTS; i++)
        S.obj[i].fd = -1;
    snprintf(S.data, sizeof S.data, "%s/t%d", dir, index);
    snprintf(pidpath, sizeof pidpath, "%s/t%d.pid", dir, index);
    if (mkdir(S.data, 0700) && errno != EEXIST) {
        fprintf(stderr, "resonio-emud: creating %s: %s\n", S.data, strerror(errno));
        return 1;
    }
    S.log = rio__calloc((size_t)(cfg->log_cap > 0 ? cfg->log_cap : 1), sizeof *S.log);
    pfd = rio__calloc(MAX_CONNS + 1, sizeof *pfd);
    pconn = rio__calloc(MAX_CONNS + 1, sizeof *pconn);
    if (!S.log || !pfd || !pconn) {
        fprintf(stderr, "resonio-emud: out of memory\n");
        goto out;
    }
    if (index == 0 && meta_load(&S)) {
        fprintf(stderr, "resonio-emud: reading %s/meta.tab: %s\n", S.data, strerror(errno));
        goto out;
    }
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGINT);
    sigprocmask(SIG_BLOCK, &block, &orig);
    sigdelset(&orig, SIGTERM);
    sigdelset(&orig, SIGINT);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (listen_on(&S))
        goto out;
    {
        FILE *f = fopen(pidpath, "w");
        if (!f || fprintf(f, "%d\n", (int)getpid()) < 0 || fclose(f)) {
            fprintf(stderr, "resonio-emud: writing %s: %s\n", pidpath, strerror(errno));
            goto out;
        }
    }
    fprintf(stderr, "resonio-emud: target %d of %d serving %s (model %s, time scale %g)\n",
            index, ntargets, dir, rio__emu_model_name(cfg->disk.model), cfg->time_scale);

    while (!stop_flag) {
        complete(&S);
        start_next(&S);
        complete(&S); /* a zero-time job answers at once */
        int n = 0;
        pfd[n] = (struct pollfd){S.lfd, POLLIN, 0};
        pconn[n++] = NULL;
        double t = now(), w = S.cur ? S.cur_done - t : S.qh ? 0 : HUGE_VAL;
        for (struct conn *c = S.conns, *next; c; c = next) {
            next = c->next;
            double left = stall_left(&S, c, t);
            if (left < 0) { /* half a message and then nothing: free its buffer */
                S.st.rejected++;
                conn_close(&S, c);
                continue;
            }
            w = left < w ? left : w;
            short ev = (short)((conn_wants_input(&S, c) ? POLLIN : 0) | (c->oh ? POLLOUT : 0));
            pfd[n] = (struct pollfd){c->fd, ev, 0};
            pconn[n++] = c;
        }
        struct timespec ts, *tsp = NULL;
        if (w < HUGE_VAL) {
            if (w < 0)
                w = 0;
            ts.tv_sec = (time_t)w;
            ts.tv_nsec = (long)((w - (double)ts.tv_sec) * 1e9);
            tsp = &ts;
        }
        int r = ppoll(pfd, (nfds_t)n, tsp, &orig);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        if (pfd[0].revents & POLLIN)
            conn_accept(&S);
        for (int i = 1; i < n; i++) {
            struct conn *c = pconn[i];
            short re = pfd[i].revents;
            int drop = 0;
            if (re & POLLOUT)
                conn_flush(c);
            if (re & POLLIN)
                drop = conn_read(&S, c) < 0;
            else if (re & (POLLHUP | POLLERR))
                drop = 1;
            if (c->closing == 2 || (c->closing && !c->oh))
                drop = 1;
            if (drop)
                conn_close(&S, c);
        }
    }
    status = 0;
out:
    while (S.cur) { /* finish the request in service */
        S.cur_done = 0;
        complete(&S);
    }
    while (S.conns)
        conn_close(&S, S.conns);
    for (int i = 0; i < MAX_OBJECTS; i++)
        if (S.obj[i].used && S.obj[i].fd >= 0) {
            fsync(S.obj[i].fd);
            close(S.obj[i].fd);
        }
    if (S.log)
        write_csv(&S);
    if (S.lfd >= 0) {
        char sock[PATH_MAX + 32];
        snprintf(sock, sizeof sock, "%s/t%d.sock", dir, index);
        close(S.lfd);
        unlink(sock);
    }
    for (int i = 0; i < S.nmeta; i++)
        free(S.meta[i].name);
    free(S.meta);
    free(S.log);
    free(pfd);
    free(pconn);
    fprintf(stderr, "resonio-emud: target %d stopped\n", index);
    unlink(pidpath); /* last: stop waits for it */
    return status;
}
