/*
 * proto.c — encoding and strict decoding of resonio-emud's messages.
 *
 * The decoder is the server's first line of defence: it reads fields with
 * a cursor that never passes the end of the payload, checks each count
 * against its limit before anything depends on it, and demands that the
 * fields account for the payload exactly (a payload with trailing bytes is
 * as malformed as a truncated one).  It allocates nothing, so a hostile
 * message can cost no more memory than its own bytes, which the header
 * check already bounded.
 */
#include "proto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[RIO_EMU_OP__COUNT] = {
    [RIO_EMU_OP_HELLO] = "hello",           [RIO_EMU_OP_CREATE] = "create",
    [RIO_EMU_OP_LOOKUP] = "lookup",         [RIO_EMU_OP_REMOVE] = "remove",
    [RIO_EMU_OP_OBJ_REMOVE] = "obj_remove", [RIO_EMU_OP_GET_SIZE] = "get_size",
    [RIO_EMU_OP_SET_SIZE] = "set_size",     [RIO_EMU_OP_SYNC] = "sync",
    [RIO_EMU_OP_READ] = "read",             [RIO_EMU_OP_WRITE] = "write",
    [RIO_EMU_OP_READ_LIST] = "read_list",   [RIO_EMU_OP_WRITE_LIST] = "write_list",
    [RIO_EMU_OP_READ_DT] = "read_dt",       [RIO_EMU_OP_WRITE_DT] = "write_dt",
    [RIO_EMU_OP_LOCK] = "lock",             [RIO_EMU_OP_UNLOCK] = "unlock",
    [RIO_EMU_OP_STATS_GET] = "stats_get",   [RIO_EMU_OP_STATS_RESET] = "stats_reset",
    [RIO_EMU_OP_PREFETCH] = "prefetch",
};

/* Contract in proto.h. */
const char *rio__emu_op_name(unsigned op)
{
    return op > 0 && op < RIO_EMU_OP__COUNT && op_names[op] ? op_names[op] : "?";
}

/* ---- header ------------------------------------------------------------ */

/* Contract in proto.h. */
void rio__emu_hdr_encode(unsigned char *out, const struct rio_emu_hdr *h)
{
    rio__emu_put32(out, RIO_EMU_MAGIC);
    out[4] = (unsigned char)(h->version & 0xff);
    out[5] = (unsigned char)(h->version >> 8);
    out[6] = (unsigned char)(h->op & 0xff);
    out[7] = (unsigned char)(h->op >> 8);
    rio__emu_put32(out + 8, h->flags);
    rio__emu_put32(out + 12, (uint32_t)h->status);
    rio__emu_put64(out + 16, h->id);
    rio__emu_put64(out + 24, h->length);
}

/* Contract in proto.h. */
int rio__emu_hdr_decode(const unsigned char *in, struct rio_emu_hdr *h)
{
    uint32_t magic = rio__emu_get32(in);
    h->version = (uint16_t)(in[4] | in[5] << 8);
    h->op = (uint16_t)(in[6] | in[7] << 8);
    h->flags = rio__emu_get32(in + 8);
    h->status = (int32_t)rio__emu_get32(in + 12);
    h->id = rio__emu_get64(in + 16);
    h->length = rio__emu_get64(in + 24);
    if (magic != RIO_EMU_MAGIC || h->version != RIO_EMU_VERSION || h->op == 0 ||
        h->op >= RIO_EMU_OP__COUNT)
        return -EPROTO;
    if (h->length > RIO_EMU_MAX_PAYLOAD)
        return -EMSGSIZE;
    return 0;
}

/* ---- payload ----------------------------------------------------------- */

struct cur {
    const unsigned char *p;
    size_t left;
    int bad;
};

static uint64_t take64(struct cur *c)
{
    if (c->left < 8) {
        c->bad = 1;
        c->left = 0;
        return 0;
    }
    uint64_t v = rio__emu_get64(c->p);
    c->p += 8;
    c->left -= 8;
    return v;
}

static uint32_t take32(struct cur *c)
{
    if (c->left < 4) {
        c->bad = 1;
        c->left = 0;
        return 0;
    }
    uint32_t v = rio__emu_get32(c->p);
    c->p += 4;
    c->left -= 4;
    return v;
}

static const unsigned char *take(struct cur *c, size_t n)
{
    if (c->left < n) {
        c->bad = 1;
        c->left = 0;
        return NULL;
    }
    const unsigned char *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}

/* 0 <= off, 0 <= len, off + len <= RIO_EMU_MAX_OFFSET */
static int extent_ok(int64_t off, int64_t len)
{
    return off >= 0 && len >= 0 && off <= RIO_EMU_MAX_OFFSET && len <= RIO_EMU_MAX_OFFSET - off;
}

/* The name: the rest of the payload. */
static int take_name(struct cur *c, struct rio_emu_req *r)
{
    if (c->left < 1 || c->left > RIO_EMU_MAX_NAME)
        return -EINVAL;
    r->namelen = (uint32_t)c->left;
    r->name = (const char *)take(c, c->left);
    if (memchr(r->name, '\0', r->namelen))
        return -EINVAL;
    return 0;
}

/* The list of a list request: checked entries and their total. */
static int take_list(struct cur *c, struct rio_emu_req *r)
{
    r->n = take32(c);
    if (c->bad)
        return -EBADMSG;
    if (r->n > RIO_EMU_MAX_LIST)
        return -EMSGSIZE;
    r->pairs = take(c, (size_t)r->n * 16);
    if (c->bad)
        return -EBADMSG;
    int64_t total = 0;
    for (uint32_t i = 0; i < r->n; i++) {
        int64_t off, len;
        rio__emu_pair(r, i, &off, &len);
        if (!extent_ok(off, len))
            return -EINVAL;
        if (len > RIO_EMU_MAX_DATA - total)
            return -EMSGSIZE;
        total += len;
    }
    r->list_total = total;
    return 0;
}

/* Contract in proto.h. */
int rio__emu_req_decode(const struct rio_emu_hdr *h, const unsigned char *payload, size_t n,
                        struct rio_emu_req *r)
{
    struct cur c = {payload, n, 0};
    int rc = 0;
    memset(r, 0, sizeof *r);
    r->h = *h;
    if (h->length != n)
        return -EBADMSG;
    switch (h->op) {
    case RIO_EMU_OP_HELLO:
        r->client = take64(&c);
        break;
    case RIO_EMU_OP_CREATE:
        r->unit = (int64_t)take64(&c);
        r->count = take32(&c);
        if (c.bad)
            return -EBADMSG;
        if (r->unit < 0 || r->unit > RIO_EMU_MAX_UNIT || r->count > RIO_EMU_MAX_TARGETS)
            return -EINVAL;
        rc = take_name(&c, r);
        break;
    case RIO_EMU_OP_LOOKUP:
    case RIO_EMU_OP_REMOVE:
        rc = take_name(&c, r);
        break;
    case RIO_EMU_OP_OBJ_REMOVE:
    case RIO_EMU_OP_GET_SIZE:
    case RIO_EMU_OP_SYNC:
        r->fid = take64(&c);
        break;
    case RIO_EMU_OP_SET_SIZE:
        r->fid = take64(&c);
        r->size = (int64_t)take64(&c);
        if (!c.bad && !extent_ok(r->size, 0))
            return -EINVAL;
        break;
    case RIO_EMU_OP_READ:
    case RIO_EMU_OP_WRITE:
        r->fid = take64(&c);
        r->off = (int64_t)take64(&c);
        r->len = (int64_t)take64(&c);
        if (c.bad)
            return -EBADMSG;
        if (!extent_ok(r->off, r->len))
            return -EINVAL;
        if (r->len > RIO_EMU_MAX_DATA)
            return -EMSGSIZE;
        if (h->op == RIO_EMU_OP_WRITE) {
            r->datalen = (uint64_t)r->len;
            r->data = take(&c, (size_t)r->len);
        }
        break;
    case RIO_EMU_OP_READ_LIST:
    case RIO_EMU_OP_WRITE_LIST:
    case RIO_EMU_OP_PREFETCH:
        r->fid = take64(&c);
        if ((rc = take_list(&c, r)))
            return rc;
        if (h->op == RIO_EMU_OP_WRITE_LIST) {
            r->datalen = (uint64_t)r->list_total;
            r->data = take(&c, (size_t)r->list_total);
        }
        break;
    case RIO_EMU_OP_READ_DT:
    case RIO_EMU_OP_WRITE_DT:
        r->fid = take64(&c);
        r->unit = (int64_t)take64(&c);
        r->count = take32(&c);
        r->index = take32(&c);
        r->disp = (int64_t)take64(&c);
        r->pos = (int64_t)take64(&c);
        r->len = (int64_t)take64(&c);
        r->dllen = take32(&c);
        if (c.bad)
            return -EBADMSG;
        if (r->unit < 1 || r->unit > RIO_EMU_MAX_UNIT || r->count < 1 ||
            r->count > RIO_EMU_MAX_TARGETS || r->index >= r->count || !extent_ok(r->disp, 0) ||
            !extent_ok(r->pos, r->len))
            return -EINVAL;
        if (r->len > RIO_EMU_MAX_DT_STREAM || r->dllen > RIO_EMU_MAX_DL_BYTES)
            return -EMSGSIZE;
        r->dl = take(&c, r->dllen);
        if (c.bad)
            return -EBADMSG;
        if (h->op == RIO_EMU_OP_WRITE_DT) {
            /* the data is the rest; its length is checked against the
             * view's pieces when the server expands it */
            if (c.left > (size_t)RIO_EMU_MAX_DATA)
                return -EMSGSIZE;
            r->datalen = c.left;
            r->data = take(&c, c.left);
        }
        break;
    case RIO_EMU_OP_LOCK:
    case RIO_EMU_OP_UNLOCK:
        r->fid = take64(&c);
        r->off = (int64_t)take64(&c);
        r->len = (int64_t)take64(&c);
        if (h->op == RIO_EMU_OP_LOCK)
            r->exclusive = take32(&c);
        if (c.bad)
            return -EBADMSG;
        if (!extent_ok(r->off, r->len) || r->exclusive > 1)
            return -EINVAL;
        break;
    case RIO_EMU_OP_STATS_GET:
    case RIO_EMU_OP_STATS_RESET:
        break;
    default:
        return -EPROTO;
    }
    if (rc)
        return rc;
    if (c.bad || c.left)
        return -EBADMSG;
    return 0;
}

/* ---- building ---------------------------------------------------------- */

/* Contract in proto.h. */
void rio__emu_buf_free(struct rio_emu_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
    b->err = 0;
}

/* Contract in proto.h. */
unsigned char *rio__emu_buf_grow(struct rio_emu_buf *b, size_t n)
{
    if (b->err)
        return NULL;
    if (n > b->cap - b->n) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap - b->n < n) {
            if (cap > SIZE_MAX / 2) {
                b->err = -ENOMEM;
                return NULL;
            }
            cap *= 2;
        }
        unsigned char *p = rio__realloc(b->p, cap);
        if (!p) {
            b->err = -ENOMEM;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    unsigned char *at = b->p + b->n;
    b->n += n;
    return at;
}

/* Contract in proto.h. */
void rio__emu_put_u32(struct rio_emu_buf *b, uint32_t v)
{
    unsigned char *p = rio__emu_buf_grow(b, 4);
    if (p)
        rio__emu_put32(p, v);
}

/* Contract in proto.h. */
void rio__emu_put_u64(struct rio_emu_buf *b, uint64_t v)
{
    unsigned char *p = rio__emu_buf_grow(b, 8);
    if (p)
        rio__emu_put64(p, v);
}

/* Contract in proto.h. */
void rio__emu_put_bytes(struct rio_emu_buf *b, const void *src, size_t n)
{
    unsigned char *p = rio__emu_buf_grow(b, n);
    if (p && n)
        memcpy(p, src, n);
}

/* Contract in proto.h. */
void rio__emu_msg_begin(struct rio_emu_buf *b)
{
    b->n = 0;
    b->err = 0; /* a failed allocation spoils its own message, not the next */
    rio__emu_buf_grow(b, RIO_EMU_HDR_SIZE);
}

/* Contract in proto.h. */
int rio__emu_msg_end(struct rio_emu_buf *b, unsigned op, uint32_t flags, int32_t status,
                     uint64_t id)
{
    if (b->err)
        return b->err;
    struct rio_emu_hdr h = {RIO_EMU_VERSION, (uint16_t)op, flags, status, id,
                            (uint64_t)(b->n - RIO_EMU_HDR_SIZE)};
    rio__emu_hdr_encode(b->p, &h);
    return 0;
}

/* Contract in proto.h. */
void rio__emu_put_layout(struct rio_emu_buf *b, const struct rio_emu_layout *l)
{
    rio__emu_put_u64(b, l->fid);
    rio__emu_put_u64(b, (uint64_t)l->unit);
    rio__emu_put_u32(b, l->count);
    rio__emu_put_u32(b, l->first);
}

/* Contract in proto.h: -EBADMSG unless n is exactly a layout. */
int rio__emu_get_layout(const unsigned char *p, size_t n, struct rio_emu_layout *l)
{
    if (n != 24)
        return -EBADMSG;
    l->fid = rio__emu_get64(p);
    l->unit = (int64_t)rio__emu_get64(p + 8);
    l->count = rio__emu_get32(p + 16);
    l->first = rio__emu_get32(p + 20);
    if (l->unit < 1 || l->count < 1 || l->count > RIO_EMU_MAX_TARGETS)
        return -EBADMSG;
    return 0;
}

/* Contract in proto.h. */
void rio__emu_put_stats(struct rio_emu_buf *b, const struct rio_emu_stats *s)
{
    const uint64_t v[RIO_EMU_STATS_FIELDS] = {
        s->requests,   s->accesses,  s->judged,      s->sequential,  s->bytes_read,
        s->bytes_written, s->seek_bytes, s->busy_ns, s->revocations, s->log_entries,
        s->log_dropped, s->rejected, s->elapsed_ns, s->cache_hits};
    for (int i = 0; i < RIO_EMU_STATS_FIELDS; i++)
        rio__emu_put_u64(b, v[i]);
}

/* Contract in proto.h: -EBADMSG unless n is exactly the stats. */
int rio__emu_get_stats(const unsigned char *p, size_t n, struct rio_emu_stats *s)
{
    if (n != RIO_EMU_STATS_FIELDS * 8)
        return -EBADMSG;
    uint64_t *v[RIO_EMU_STATS_FIELDS] = {
        &s->requests,   &s->accesses,  &s->judged,      &s->sequential,  &s->bytes_read,
        &s->bytes_written, &s->seek_bytes, &s->busy_ns, &s->revocations, &s->log_entries,
        &s->log_dropped, &s->rejected, &s->elapsed_ns, &s->cache_hits};
    for (int i = 0; i < RIO_EMU_STATS_FIELDS; i++)
        *v[i] = rio__emu_get64(p + 8 * i);
    return 0;
}
