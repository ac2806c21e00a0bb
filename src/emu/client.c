/*
 * client.c — connections to resonio-emud's targets and the striped
 * logical-file operations.
 *
 * The heart is rio__emu_rw.  It walks the transfer's file regions (from a
 * caller's generator: an offset list, or the dtype iterator of a view),
 * cuts them at stripe boundaries and files each piece under its target,
 * with the piece's object offset, logical offset and stream position.
 * When a chunk is full (CHUNK stream bytes, or a target's list is full) it
 * is flushed: one request per target holding pieces — an offset list and
 * the data gathered from memory, or the view's dataloop with the data — all
 * sent before any reply is read.  Read replies are scattered back by the
 * pieces' stream positions.  A target that returns fewer valid bytes than
 * asked makes the client compute the logical size (from the object sizes)
 * to tell a hole inside the file (zeros) from the end of file.
 *
 * Per-target buffers (request, reply, pieces) live in the client and are
 * reused, so a long transfer allocates once.  Writes go out with
 * MSG_NOSIGNAL: a target that died gives -EPIPE, not SIGPIPE.
 */
#include "client.h"

#include "../common/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define CHUNK ((int64_t)8 << 20) /* stream bytes per flush */

struct piece {
    int64_t obj, len, sp, lo; /* object offset, bytes, stream position, logical offset */
};

struct target {
    int fd;                   /* -1: failed or closed */
    struct rio_emu_buf req;   /* the request being built */
    unsigned char *rb;        /* reply payload */
    size_t rcap, rlen;
    int32_t status;
    struct piece *pc;         /* pieces of the current chunk */
    int npc, cappc;
    int64_t bytes;            /* data bytes of the current chunk */
    int sent;
};

struct rio_emu_client {
    char *dir;
    int n;
    struct target *t;
    uint64_t next_id;
    pthread_mutex_t mu;
};

/* ---- connections ----------------------------------------------------------- */

static int sys_fail(struct rio_emu_client *cl, int t, int err, const char *what)
{
    rio__err_detail("emu service %s, target %d: %s: %s", cl->dir, t, what, strerror(-err));
    if (cl->t[t].fd >= 0) {
        close(cl->t[t].fd);
        cl->t[t].fd = -1;
    }
    return err;
}

static int send_all(int fd, const unsigned char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static int recv_all(int fd, unsigned char *p, size_t n)
{
    while (n) {
        ssize_t r = recv(fd, p, n, 0);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        if (r == 0)
            return -ECONNRESET;
        p += r;
        n -= (size_t)r;
    }
    return 0;
}

static int read_conf(const char *dir, int *n)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/emud.conf", dir) >= (int)sizeof path)
        return -ENAMETOOLONG;
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    int rc = fscanf(f, "targets %d", n) == 1 && *n >= 1 && *n <= RIO_EMU_MAX_TARGETS ? 0
                                                                                   : -EBADMSG;
    fclose(f);
    return rc;
}

static int connect_target(const char *dir, int i, int *fd)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    if (snprintf(a.sun_path, sizeof a.sun_path, "%s/t%d.sock", dir, i) >= (int)sizeof a.sun_path)
        return -ENAMETOOLONG;
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -errno;
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) {
        int e = -errno;
        close(s);
        return e;
    }
    *fd = s;
    return 0;
}

/* Send target t's request (built in its req buffer) under a new id. */
static int send_req(struct rio_emu_client *cl, int t, unsigned op, uint32_t flags, uint64_t *id)
{
    struct target *tg = &cl->t[t];
    int rc;
    if (tg->fd < 0) {
        rio__err_detail("emu service %s, target %d: connection lost earlier", cl->dir, t);
        return -EPIPE;
    }
    *id = ++cl->next_id;
    if ((rc = rio__emu_msg_end(&tg->req, op, flags, 0, *id)))
        return rc;
    if ((rc = send_all(tg->fd, tg->req.p, tg->req.n)))
        return sys_fail(cl, t, rc, "sending a request");
    return 0;
}

/* Read target t's reply to request id. */
static int recv_rep(struct rio_emu_client *cl, int t, unsigned op, uint64_t id)
{
    struct target *tg = &cl->t[t];
    unsigned char hb[RIO_EMU_HDR_SIZE];
    struct rio_emu_hdr h;
    int rc = recv_all(tg->fd, hb, sizeof hb);
    if (rc)
        return sys_fail(cl, t, rc, "reading a reply");
    if (rio__emu_hdr_decode(hb, &h) || !(h.flags & RIO_EMU_F_REPLY) || h.id != id || h.op != op)
        return sys_fail(cl, t, -EPROTO, "malformed reply");
    if (h.length > tg->rcap) {
        unsigned char *p = rio__realloc(tg->rb, h.length);
        if (!p) { /* the reply is dropped, the connection kept in step */
            unsigned char sink[4096];
            for (uint64_t left = h.length; left > 0;) {
                size_t k = left < sizeof sink ? (size_t)left : sizeof sink;
                if ((rc = recv_all(tg->fd, sink, k)))
                    return sys_fail(cl, t, rc, "reading a reply");
                left -= k;
            }
            rio__err_detail("emu service %s, target %d: no memory for a reply of %llu bytes",
                            cl->dir, t, (unsigned long long)h.length);
            return -ENOMEM;
        }
        tg->rb = p;
        tg->rcap = h.length;
    }
    if ((rc = recv_all(tg->fd, tg->rb, h.length)))
        return sys_fail(cl, t, rc, "reading a reply");
    tg->rlen = h.length;
    tg->status = h.status;
    return 0;
}

/* Send, then receive, the requests of the targets marked sent. */
static int exchange(struct rio_emu_client *cl, unsigned op)
{
    uint64_t ids[RIO_EMU_MAX_TARGETS];
    int rc = 0;
    for (int t = 0; t < cl->n; t++) {
        if (!cl->t[t].sent)
            continue;
        int r = send_req(cl, t, op, 0, &ids[t]);
        if (r) {
            cl->t[t].sent = 0;
            if (!rc)
                rc = r;
        }
    }
    for (int t = 0; t < cl->n; t++) {
        if (!cl->t[t].sent)
            continue;
        cl->t[t].sent = 0;
        int r = recv_rep(cl, t, op, ids[t]);
        if (!r && cl->t[t].status < 0) {
            r = cl->t[t].status;
            rio__err_detail("emu service %s, target %d refused %s: %s", cl->dir, t,
                            rio__emu_op_name(op), strerror(-r));
        }
        if (r && !rc)
            rc = r;
    }
    return rc;
}

/* One request/reply with target t; the request payload is in t's buffer
 * after rio__emu_msg_begin.  The reply's status is returned as the error. */
static int call1(struct rio_emu_client *cl, int t, unsigned op)
{
    cl->t[t].sent = 1;
    return exchange(cl, op);
}

/* Contract in client.h. */
int rio__emu_connect(const char *dir, struct rio_emu_client **out)
{
    struct rio_emu_client *cl = NULL;
    int rc, n = 0;
    *out = NULL;
    if ((rc = read_conf(dir, &n))) {
        rio__err_detail("no emu service running in %s (its emud.conf: %s)", dir, strerror(-rc));
        return rc == -EBADMSG ? -EINVAL : rc;
    }
    cl = rio__calloc(1, sizeof *cl);
    if (!cl || !(cl->dir = rio__malloc(strlen(dir) + 1)) ||
        !(cl->t = rio__calloc((size_t)n, sizeof *cl->t))) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    strcpy(cl->dir, dir);
    cl->n = n;
    pthread_mutex_init(&cl->mu, NULL);
    for (int i = 0; i < n; i++)
        cl->t[i].fd = -1;
    for (int i = 0; i < n; i++) {
        if ((rc = connect_target(dir, i, &cl->t[i].fd))) {
            rio__err_detail("emu service %s: target %d is not reachable (%s/t%d.sock: %s); is "
                            "resonio-emud running?",
                            dir, i, dir, i, strerror(-rc));
            goto out;
        }
        struct rio_emu_buf *b = &cl->t[i].req;
        rio__emu_msg_begin(b);
        rio__emu_put_u64(b, (uint64_t)getpid());
        if ((rc = call1(cl, i, RIO_EMU_OP_HELLO)))
            goto out;
        if (cl->t[i].rlen != 8 || rio__emu_get32(cl->t[i].rb) != (uint32_t)i ||
            rio__emu_get32(cl->t[i].rb + 4) != (uint32_t)n) {
            rio__err_detail("emu service %s: target %d answers as another service", dir, i);
            rc = -EPROTO;
            goto out;
        }
    }
out:
    if (rc && cl) {
        rio__emu_disconnect(cl);
        cl = NULL;
    }
    *out = cl;
    return rc;
}

/* Contract in client.h. */
void rio__emu_disconnect(struct rio_emu_client *cl)
{
    if (!cl)
        return;
    for (int i = 0; cl->t && i < cl->n; i++) {
        if (cl->t[i].fd >= 0)
            close(cl->t[i].fd);
        rio__emu_buf_free(&cl->t[i].req);
        free(cl->t[i].rb);
        free(cl->t[i].pc);
    }
    if (cl->t)
        pthread_mutex_destroy(&cl->mu);
    free(cl->t);
    free(cl->dir);
    free(cl);
}

/* Contract in client.h. */
int rio__emu_ntargets(const struct rio_emu_client *cl)
{
    return cl->n;
}

/* Contract in client.h. */
int rio__emu_call(struct rio_emu_client *cl, int t, unsigned op, uint32_t flags,
                  const void *payload, size_t n, int32_t *status, const unsigned char **reply,
                  size_t *rlen)
{
    uint64_t id;
    int rc;
    if (t < 0 || t >= cl->n)
        return -EINVAL;
    pthread_mutex_lock(&cl->mu);
    rio__emu_msg_begin(&cl->t[t].req);
    rio__emu_put_bytes(&cl->t[t].req, payload, n);
    rc = send_req(cl, t, op, flags, &id);
    if (!rc)
        rc = recv_rep(cl, t, op, id);
    if (!rc) {
        *status = cl->t[t].status;
        *reply = cl->t[t].rb;
        *rlen = cl->t[t].rlen;
    }
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* ---- metadata ----------------------------------------------------------------- */

static int meta_call(struct rio_emu_client *cl, unsigned op, const char *name, int64_t unit,
                     int count, int excl, struct rio_emu_layout *out)
{
    size_t len = strlen(name);
    int rc;
    if (len < 1 || len > RIO_EMU_MAX_NAME) {
        rio__err_detail("emu file name of %zu bytes (1 to %d allowed)", len, RIO_EMU_MAX_NAME);
        return -ENAMETOOLONG;
    }
    struct rio_emu_buf *b = &cl->t[0].req;
    rio__emu_msg_begin(b);
    if (op == RIO_EMU_OP_CREATE) {
        rio__emu_put_u64(b, (uint64_t)unit);
        rio__emu_put_u32(b, (uint32_t)count);
    }
    rio__emu_put_bytes(b, name, len);
    uint64_t id;
    if ((rc = send_req(cl, 0, op, excl ? RIO_EMU_F_EXCL : 0, &id)) ||
        (rc = recv_rep(cl, 0, op, id)))
        return rc;
    if (cl->t[0].status < 0)
        return cl->t[0].status; /* -ENOENT, -EEXIST: the caller words it */
    if (rio__emu_get_layout(cl->t[0].rb, cl->t[0].rlen, out) || out->first >= (uint32_t)cl->n)
        return sys_fail(cl, 0, -EPROTO, "malformed layout");
    return 0;
}

/* Contract in client.h. */
int rio__emu_create(struct rio_emu_client *cl, const char *name, int64_t unit, int count,
                    int excl, struct rio_emu_layout *out)
{
    if (unit < 0 || unit > RIO_EMU_MAX_UNIT || count < 0) {
        rio__err_detail("emu layout: stripe unit %lld, count %d out of range", (long long)unit,
                        count);
        return -EINVAL;
    }
    pthread_mutex_lock(&cl->mu);
    int rc = meta_call(cl, RIO_EMU_OP_CREATE, name, unit, count, excl, out);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* Contract in client.h. */
int rio__emu_lookup(struct rio_emu_client *cl, const char *name, struct rio_emu_layout *out)
{
    pthread_mutex_lock(&cl->mu);
    int rc = meta_call(cl, RIO_EMU_OP_LOOKUP, name, 0, 0, 0, out);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* The target holding stripe index j of lay. */
static int target_of(const struct rio_emu_client *cl, const struct rio_emu_layout *lay,
                     int64_t j)
{
    return (int)(((int64_t)lay->first + j) % cl->n);
}

/* Send op with the file id (and an i64 argument per stripe index, when
 * arg is not NULL) to every target of lay. */
static int per_object(struct rio_emu_client *cl, const struct rio_emu_layout *lay, unsigned op,
                      const int64_t *arg)
{
    for (uint32_t j = 0; j < lay->count; j++) {
        struct target *tg = &cl->t[target_of(cl, lay, j)];
        rio__emu_msg_begin(&tg->req);
        rio__emu_put_u64(&tg->req, lay->fid);
        if (arg)
            rio__emu_put_u64(&tg->req, (uint64_t)arg[j]);
        tg->sent = 1;
    }
    return exchange(cl, op);
}

/* Contract in client.h. */
int rio__emu_remove(struct rio_emu_client *cl, const char *name)
{
    struct rio_emu_layout lay;
    pthread_mutex_lock(&cl->mu);
    int rc = meta_call(cl, RIO_EMU_OP_REMOVE, name, 0, 0, 0, &lay);
    if (!rc)
        rc = per_object(cl, &lay, RIO_EMU_OP_OBJ_REMOVE, NULL);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* ---- sizes ---------------------------------------------------------------------- */

static int get_size_locked(struct rio_emu_client *cl, const struct rio_emu_layout *lay,
                           int64_t *size)
{
    int rc = per_object(cl, lay, RIO_EMU_OP_GET_SIZE, NULL);
    int64_t max = 0;
    for (uint32_t j = 0; !rc && j < lay->count; j++) {
        struct target *tg = &cl->t[target_of(cl, lay, j)];
        if (tg->rlen != 8)
            return sys_fail(cl, target_of(cl, lay, j), -EPROTO, "malformed size");
        int64_t z = (int64_t)rio__emu_get64(tg->rb);
        if (z <= 0)
            continue;
        /* the object's last byte, mapped back to the logical file */
        int64_t row = (z - 1) / lay->unit, in = (z - 1) % lay->unit;
        int64_t end = (row * lay->count + j) * lay->unit + in + 1;
        if (end > max)
            max = end;
    }
    *size = max;
    return rc;
}

/* Contract in client.h. */
int rio__emu_get_size(struct rio_emu_client *cl, const struct rio_emu_layout *lay,
                      int64_t *size)
{
    pthread_mutex_lock(&cl->mu);
    int rc = get_size_locked(cl, lay, size);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* Contract in client.h. */
int rio__emu_set_size(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int64_t size)
{
    int64_t obj[RIO_EMU_MAX_TARGETS];
    if (size < 0 || size > RIO_EMU_MAX_OFFSET) {
        rio__err_detail("emu file size %lld out of range", (long long)size);
        return -EINVAL;
    }
    int64_t row = lay->unit * lay->count, full = size / row, rem = size % row;
    for (uint32_t j = 0; j < lay->count; j++) {
        int64_t part = rem - (int64_t)j * lay->unit;
        obj[j] = full * lay->unit + (part < 0 ? 0 : part > lay->unit ? lay->unit : part);
    }
    pthread_mutex_lock(&cl->mu);
    int rc = per_object(cl, lay, RIO_EMU_OP_SET_SIZE, obj);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* Contract in client.h. */
int rio__emu_sync(struct rio_emu_client *cl, const struct rio_emu_layout *lay)
{
    pthread_mutex_lock(&cl->mu);
    int rc = per_object(cl, lay, RIO_EMU_OP_SYNC, NULL);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

static int lock_call(struct rio_emu_client *cl, const struct rio_emu_layout *lay, unsigned op,
                     int64_t off, int64_t len, int exclusive)
{
    struct rio_emu_buf *b = &cl->t[0].req;
    pthread_mutex_lock(&cl->mu);
    rio__emu_msg_begin(b);
    rio__emu_put_u64(b, lay->fid);
    rio__emu_put_u64(b, (uint64_t)off);
    rio__emu_put_u64(b, (uint64_t)len);
    if (op == RIO_EMU_OP_LOCK)
        rio__emu_put_u32(b, exclusive ? 1 : 0);
    int rc = call1(cl, 0, op);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* Contract in client.h. */
int rio__emu_lock(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int64_t off,
                  int64_t len, int exclusive)
{
    return lock_call(cl, lay, RIO_EMU_OP_LOCK, off, len, exclusive);
}

/* Contract in client.h. */
int rio__emu_unlock(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int64_t off,
                    int64_t len)
{
    return lock_call(cl, lay, RIO_EMU_OP_UNLOCK, off, len, 0);
}

/* ---- stats -------------------------------------------------------------------- */

/* Contract in client.h. */
int rio__emu_stats(struct rio_emu_client *cl, int target, struct rio_emu_stats *out)
{
    if (target < 0 || target >= cl->n)
        return -EINVAL;
    pthread_mutex_lock(&cl->mu);
    rio__emu_msg_begin(&cl->t[target].req);
    int rc = call1(cl, target, RIO_EMU_OP_STATS_GET);
    if (!rc && rio__emu_get_stats(cl->t[target].rb, cl->t[target].rlen, out))
        rc = sys_fail(cl, target, -EPROTO, "malformed stats");
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* Contract in client.h. */
int rio__emu_stats_reset(struct rio_emu_client *cl, int target)
{
    if (target < 0 || target >= cl->n)
        return -EINVAL;
    pthread_mutex_lock(&cl->mu);
    rio__emu_msg_begin(&cl->t[target].req);
    int rc = call1(cl, target, RIO_EMU_OP_STATS_RESET);
    pthread_mutex_unlock(&cl->mu);
    return rc;
}

/* Contract in client.h. */
double rio__emu_seq_fraction(const struct rio_emu_stats *s)
{
    return s->judged ? (double)s->sequential / (double)s->judged : 1.0;
}

/* ---- transfers --------------------------------------------------------------------- */

struct memmap {
    const struct iovec *iov;
    int n;
    int64_t *pre; /* pre[i]: stream position of iov[i]; pre[n] the total */
};

/* Copy len bytes at memory stream position sp to (to_mem) or from buf. */
static void mem_copy(const struct memmap *m, int64_t sp, unsigned char *buf, int64_t len,
                     int to_mem)
{
    int lo = 0, hi = m->n - 1;
    while (lo < hi) { /* last iovec starting at or before sp */
        int mid = lo + (hi - lo + 1) / 2;
        if (m->pre[mid] <= sp)
            lo = mid;
        else
            hi = mid - 1;
    }
    for (int i = lo; len > 0 && i < m->n; i++) {
        int64_t in = sp - m->pre[i], n = (int64_t)m->iov[i].iov_len - in;
        if (n <= 0)
            continue;
        if (n > len)
            n = len;
        char *p = (char *)m->iov[i].iov_base + in;
        if (to_mem)
            memcpy(p, buf, (size_t)n);
        else
            memcpy(buf, p, (size_t)n);
        buf += n;
        sp += n;
        len -= n;
    }
}

static int add_piece(struct target *tg, int64_t obj, int64_t len, int64_t sp, int64_t lo)
{
    if (tg->npc > 0) {
        struct piece *p = &tg->pc[tg->npc - 1];
        if (p->obj + p->len == obj && p->sp + p->len == sp && p->lo + p->len == lo) {
            p->len += len;
            tg->bytes += len;
            return 0;
        }
    }
    if (tg->npc == tg->cappc) {
        int cap = tg->cappc ? 2 * tg->cappc : 64;
        struct piece *p = rio__realloc(tg->pc, (size_t)cap * sizeof *p);
        if (!p)
            return RIO_E_NOMEM;
        tg->pc = p;
        tg->cappc = cap;
    }
    tg->pc[tg->npc++] = (struct piece){obj, len, sp, lo};
    tg->bytes += len;
    return 0;
}

struct xfer {
    struct rio_emu_client *cl;
    const struct rio_emu_layout *lay;
    int write, prefetch;  /* prefetch: the regions go to the targets' caches */
    const struct rio_emu_view *view;
    struct memmap mem;
    int64_t cstart, cbytes; /* the chunk: memory stream [cstart, cstart + cbytes) */
    int64_t done;
    int eof;
};

/* Build target t's request for the current chunk. */
static void build_req(struct xfer *x, int t, unsigned *op)
{
    struct target *tg = &x->cl->t[t];
    struct rio_emu_buf *b = &tg->req;
    const struct rio_emu_layout *lay = x->lay;
    rio__emu_msg_begin(b);
    rio__emu_put_u64(b, lay->fid);
    if (x->view) {
        *op = x->write ? RIO_EMU_OP_WRITE_DT : RIO_EMU_OP_READ_DT;
        rio__emu_put_u64(b, (uint64_t)lay->unit);
        rio__emu_put_u32(b, lay->count);
        rio__emu_put_u32(b, (uint32_t)((t - (int)lay->first + x->cl->n) % x->cl->n));
        rio__emu_put_u64(b, (uint64_t)x->view->disp);
        rio__emu_put_u64(b, (uint64_t)(x->view->pos + x->cstart));
        rio__emu_put_u64(b, (uint64_t)x->cbytes);
        rio__emu_put_u32(b, (uint32_t)x->view->dllen);
        rio__emu_put_bytes(b, x->view->dl, x->view->dllen);
    } else {
        /* adjacent object pieces travel as one entry (data order is kept) */
        int m = 0;
        for (int i = 0; i < tg->npc; i++)
            m += !(i > 0 && tg->pc[i - 1].obj + tg->pc[i - 1].len == tg->pc[i].obj);
        if (m == 1 && !x->prefetch) {
            *op = x->write ? RIO_EMU_OP_WRITE : RIO_EMU_OP_READ;
            rio__emu_put_u64(b, (uint64_t)tg->pc[0].obj);
            rio__emu_put_u64(b, (uint64_t)tg->bytes);
        } else {
            *op = x->prefetch ? RIO_EMU_OP_PREFETCH
                  : x->write  ? RIO_EMU_OP_WRITE_LIST
                              : RIO_EMU_OP_READ_LIST;
            rio__emu_put_u32(b, (uint32_t)m);
            for (int i = 0; i < tg->npc;) {
                int64_t o = tg->pc[i].obj, l = 0;
                do
                    l += tg->pc[i++].len;
                while (i < tg->npc && tg->pc[i - 1].obj + tg->pc[i - 1].len == tg->pc[i].obj);
                rio__emu_put_u64(b, (uint64_t)o);
                rio__emu_put_u64(b, (uint64_t)l);
            }
        }
    }
    if (x->write) {
        unsigned char *d = rio__emu_buf_grow(b, (size_t)tg->bytes);
        for (int i = 0; d && i < tg->npc; i++) {
            mem_copy(&x->mem, tg->pc[i].sp, d, tg->pc[i].len, 0);
            d += tg->pc[i].len;
        }
    }
}

/* Flush the chunk: requests to every target with pieces, replies back. */
static int flush(struct xfer *x)
{
    struct rio_emu_client *cl = x->cl;
    unsigned ops[RIO_EMU_MAX_TARGETS];
    int rc = 0, any = 0;
    uint64_t ids[RIO_EMU_MAX_TARGETS];
    if (!x->cbytes)
        return 0;
    for (int t = 0; t < cl->n; t++) {
        struct target *tg = &cl->t[t];
        tg->sent = 0;
        if (!tg->npc)
            continue;
        build_req(x, t, &ops[t]);
        int r = send_req(cl, t, ops[t], 0, &ids[t]);
        if (r && !rc)
            rc = r;
        tg->sent = !r;
        any = 1;
    }
    for (int t = 0; any && t < cl->n; t++) {
        struct target *tg = &cl->t[t];
        if (!tg->sent)
            continue;
        tg->sent = 0;
        int r = recv_rep(cl, t, ops[t], ids[t]);
        if (!r && tg->status < 0) {
            r = tg->status;
            rio__err_detail("emu service %s, target %d refused %s: %s", cl->dir, t,
                            rio__emu_op_name(ops[t]), strerror(-r));
        }
        if (!r && x->prefetch) {
            if (tg->rlen != 0)
                r = sys_fail(cl, t, -EPROTO, "prefetch reply with a payload");
        } else if (!r && !x->write) {
            if (tg->rlen != 8 + (size_t)tg->bytes)
                r = sys_fail(cl, t, -EPROTO, "read reply of the wrong size");
            else if ((int64_t)rio__emu_get64(tg->rb) < tg->bytes)
                x->eof = 1; /* something past an object's end: maybe the file's */
        }
        if (r && !rc)
            rc = r;
    }
    if (!rc && !x->write && !x->prefetch) {
        int64_t cut = x->cstart + x->cbytes;
        if (x->eof) {
            int64_t size;
            if ((rc = get_size_locked(cl, x->lay, &size)))
                goto out;
            for (int t = 0; t < cl->n; t++)
                for (int i = 0; i < cl->t[t].npc; i++) {
                    const struct piece *p = &cl->t[t].pc[i];
                    if (p->lo + p->len > size) {
                        int64_t c = p->sp + (size > p->lo ? size - p->lo : 0);
                        if (c < cut)
                            cut = c;
                    }
                }
            x->eof = cut < x->cstart + x->cbytes;
        }
        for (int t = 0; t < cl->n; t++) {
            const unsigned char *d = cl->t[t].rb + 8;
            for (int i = 0; i < cl->t[t].npc; i++) {
                const struct piece *p = &cl->t[t].pc[i];
                if (p->sp < cut)
                    mem_copy(&x->mem, p->sp, (unsigned char *)d,
                             p->sp + p->len <= cut ? p->len : cut - p->sp, 1);
                d += p->len;
            }
        }
        x->done = cut;
    }
out:
    for (int t = 0; t < cl->n; t++) {
        cl->t[t].npc = 0;
        cl->t[t].bytes = 0;
    }
    x->cstart += x->cbytes;
    x->cbytes = 0;
    if (!rc && (x->write || x->prefetch))
        x->done = x->cstart;
    return rc;
}

/* rio__emu_rw, or with prefetch (no view, no memory) rio__emu_prefetch. */
static int transfer(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int write,
                    int prefetch, rio_emu_next_fn next, void *arg, const struct rio_emu_view *view,
                    const struct iovec *mem, int nmem, int64_t *done)
{
    struct xfer x = {cl, lay, write, prefetch, view, {mem, nmem, NULL}, 0, 0, 0, 0};
    int64_t off = 0, len = 0, total = 0;
    int rc = 0;
    if (done)
        *done = 0;
    if (nmem < 0)
        return -EINVAL;
    x.mem.pre = rio__malloc(((size_t)nmem + 1) * sizeof *x.mem.pre);
    if (!x.mem.pre)
        return RIO_E_NOMEM;
    for (int i = 0; i < nmem; i++) {
        x.mem.pre[i] = total;
        total += (int64_t)mem[i].iov_len;
    }
    x.mem.pre[nmem] = total;
    if (prefetch)
        total = RIO_EMU_MAX_OFFSET; /* no memory: the regions are the bound */
    pthread_mutex_lock(&cl->mu);
    for (int t = 0; t < cl->n; t++)
        cl->t[t].npc = 0, cl->t[t].bytes = 0;
    int64_t sp = 0;
    while (!x.eof) {
        if (!len) {
            int r = next(arg, &off, &len);
            if (r < 0) {
                rc = r;
                goto out;
            }
            if (r == 0)
                break;
            if (len <= 0) {
                len = 0;
                continue;
            }
            if (off < 0 || off > RIO_EMU_MAX_OFFSET || len > RIO_EMU_MAX_OFFSET - off ||
                len > total - sp) {
                rio__err_detail("emu transfer: region [%lld, +%lld) out of range or past the "
                                "memory buffer",
                                (long long)off, (long long)len);
                rc = RIO_E_OVERFLOW;
                goto out;
            }
        }
        int64_t s = off / lay->unit, pl = (s + 1) * lay->unit - off;
        if (pl > len)
            pl = len;
        if (pl > CHUNK - x.cbytes)
            pl = CHUNK - x.cbytes;
        int t = target_of(cl, lay, s % lay->count);
        if (cl->t[t].npc >= RIO_EMU_MAX_LIST) {
            if ((rc = flush(&x)))
                goto out;
            continue;
        }
        if ((rc = add_piece(&cl->t[t], (s / lay->count) * lay->unit + off % lay->unit, pl, sp,
                            off)))
            goto out;
        sp += pl;
        off += pl;
        len -= pl;
        x.cbytes += pl;
        if (x.cbytes == CHUNK && (rc = flush(&x)))
            goto out;
    }
    if (!x.eof)
        rc = flush(&x);
out:
    pthread_mutex_unlock(&cl->mu);
    free(x.mem.pre);
    if (done)
        *done = rc ? 0 : x.done;
    return rc;
}

/* Contract in client.h. */
int rio__emu_rw(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int write,
                rio_emu_next_fn next, void *arg, const struct rio_emu_view *view,
                const struct iovec *mem, int nmem, int64_t *done)
{
    return transfer(cl, lay, write, 0, next, arg, view, mem, nmem, done);
}

/* Contract in client.h. */
int rio__emu_prefetch(struct rio_emu_client *cl, const struct rio_emu_layout *lay,
                      rio_emu_next_fn next, void *arg)
{
    return transfer(cl, lay, 0, 1, next, arg, NULL, NULL, 0, NULL);
}
