/*
 * dlwire.c — dataloops on the wire (dlwire.h): the encoder the emu driver
 * uses to ship a view's filetype, and the decoder and walk of the server.
 *
 * Encoding writes the tree in preorder exactly as it is held, so the
 * server walks the same blocks and elements in the same order; only the
 * facts (sizes, prefix sums, bounds) are left out, and the decoder
 * recomputes them rather than trusting a sender.
 *
 * Decoding is a recursive descent bounded by RIO_EMU_DL_MAX_DEPTH, with a
 * running node count; every array length is checked against the bytes
 * left before it is allocated, so a message can never make the server
 * allocate more than a small multiple of its own size.  Per node it
 * computes, with checked arithmetic, what the core's walker needs: the
 * data size of one instance, the depth, where blocks differ in size the
 * prefix sums that let a walk start at any stream byte with a binary
 * search, and the lowest and highest byte of the instance's data.
 * Bounding the latter by RIO_EMU_DL_MAX_SPAN is what makes the core's
 * unchecked steps safe here: a node instance's data lies inside its
 * parent's, so every origin, block start and region a walk computes stays
 * within a few spans of its tile's origin, and that origin is checked
 * before a tile is walked.  The walk itself is the core's (src/dloop),
 * shared with the datatype engine; it checks only tile origins and the
 * regions it hands out.
 */
#include "dlwire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- encoding ---------------------------------------------------------- */

static void put_node(struct rio_emu_buf *b, const struct rio_dl *d)
{
    unsigned kind = (d->leaf ? RIO_EMU_DL_LEAF : 0) | (d->displs ? RIO_EMU_DL_DISPLS : 0) |
                    (d->blocklens ? RIO_EMU_DL_BLOCKLENS : 0) |
                    (d->children ? RIO_EMU_DL_STRUCT : 0);
    unsigned char *k = rio__emu_buf_grow(b, 1);
    if (k)
        *k = (unsigned char)kind;
    rio__emu_put_u64(b, (uint64_t)d->nblocks);
    rio__emu_put_u64(b, (uint64_t)d->blocklen);
    rio__emu_put_u64(b, (uint64_t)d->stride);
    rio__emu_put_u64(b, (uint64_t)d->off);
    rio__emu_put_u64(b, (uint64_t)d->extent);
    for (int64_t i = 0; d->displs && i < d->nblocks; i++)
        rio__emu_put_u64(b, (uint64_t)d->displs[i]);
    for (int64_t i = 0; d->blocklens && i < d->nblocks; i++)
        rio__emu_put_u64(b, (uint64_t)d->blocklens[i]);
    if (d->children)
        for (int64_t i = 0; i < d->nblocks; i++)
            put_node(b, d->children[i]);
    else if (!d->leaf)
        put_node(b, d->child);
}

/* Contract in dlwire.h. */
int rio__emu_dl_encode(const struct rio_dl *root, int64_t tile_extent, unsigned char **out,
                       size_t *len)
{
    struct rio_emu_buf b = {0};
    *out = NULL;
    *len = 0;
    if (!root)
        return -EINVAL;
    if (root->depth > RIO_EMU_DL_MAX_DEPTH)
        return -EMSGSIZE;
    rio__emu_put_u64(&b, (uint64_t)tile_extent);
    put_node(&b, root);
    if (b.err) {
        int rc = b.err;
        rio__emu_buf_free(&b);
        return rc;
    }
    *out = b.p;
    *len = b.n;
    return 0;
}

/* ---- decoding ---------------------------------------------------------- */

struct dcur {
    const unsigned char *p;
    size_t left;
    int nodes;
    int maxdepth;
};

static int get64(struct dcur *c, int64_t *v)
{
    if (c->left < 8)
        return -EBADMSG;
    *v = (int64_t)rio__emu_get64(c->p);
    c->p += 8;
    c->left -= 8;
    return 0;
}

static int disp_ok(int64_t v)
{
    return v >= -RIO_EMU_DL_MAX_DISP && v <= RIO_EMU_DL_MAX_DISP;
}

/* An array of n values, each checked by ok(). */
static int get_array(struct dcur *c, int64_t n, int64_t **out, int (*ok)(int64_t))
{
    if ((uint64_t)n > c->left / 8)
        return -EBADMSG;
    int64_t *a = rio__malloc((size_t)n * sizeof *a);
    if (!a)
        return -ENOMEM;
    for (int64_t i = 0; i < n; i++) {
        get64(c, &a[i]);
        if (!ok(a[i])) {
            free(a);
            return -EINVAL;
        }
    }
    *out = a;
    return 0;
}

static int count_ok(int64_t v)
{
    return v >= 1 && v <= RIO_EMU_DL_MAX_COUNT;
}

/* Data bytes of one element of block i. */
static int64_t elsize(const struct rio_dl *d, int64_t i)
{
    return d->leaf ? 1 : d->children ? d->children[i]->size : d->child->size;
}

static int span_ok(int64_t v)
{
    return v >= -RIO_EMU_DL_MAX_SPAN && v <= RIO_EMU_DL_MAX_SPAN;
}

/* Widen [*lo, *hi) by the data of block i of d (its children's facts
 * known), checked: -EINVAL when a value overflows or leaves the span. */
static int block_span(const struct rio_dl *d, int64_t i, int64_t *lo, int64_t *hi)
{
    int64_t start, blo, bhi, n = rio__dl_blen(d, i);
    if (d->displs ? __builtin_add_overflow(d->off, d->displs[i], &start)
                  : (__builtin_mul_overflow(i, d->stride, &start) ||
                     __builtin_add_overflow(start, d->off, &start)))
        return -EINVAL;
    if (d->leaf) {
        blo = start;
        if (__builtin_add_overflow(start, n, &bhi))
            return -EINVAL;
    } else {
        const struct rio_dl *c = d->children ? d->children[i] : d->child;
        int64_t reach; /* origin of the last element from the first's */
        if (__builtin_mul_overflow(n - 1, c->extent, &reach) ||
            __builtin_add_overflow(start, reach < 0 ? reach : 0, &blo) ||
            __builtin_add_overflow(blo, c->tlb, &blo) ||
            __builtin_add_overflow(start, reach > 0 ? reach : 0, &bhi) ||
            __builtin_add_overflow(bhi, c->tub, &bhi))
            return -EINVAL;
    }
    if (!span_ok(blo) || !span_ok(bhi))
        return -EINVAL;
    if (blo < *lo)
        *lo = blo;
    if (bhi > *hi)
        *hi = bhi;
    return 0;
}

static int decode_node(struct dcur *c, int depth, struct rio_dl **out)
{
    int rc;
    if (depth > RIO_EMU_DL_MAX_DEPTH || ++c->nodes > RIO_EMU_DL_MAX_NODES)
        return -EMSGSIZE;
    if (depth > c->maxdepth)
        c->maxdepth = depth;
    if (c->left < 1)
        return -EBADMSG;
    unsigned kind = c->p[0];
    c->p++;
    c->left--;
    if (kind & ~0xfu || ((kind & RIO_EMU_DL_STRUCT) && (kind & RIO_EMU_DL_LEAF)))
        return -EBADMSG;
    struct rio_dl *d = rio__dl_new();
    if (!d)
        return -ENOMEM;
    *out = d;
    d->leaf = !!(kind & RIO_EMU_DL_LEAF);
    if ((rc = get64(c, &d->nblocks)) || (rc = get64(c, &d->blocklen)) ||
        (rc = get64(c, &d->stride)) || (rc = get64(c, &d->off)) || (rc = get64(c, &d->extent)))
        return rc;
    if (!count_ok(d->nblocks) || !disp_ok(d->stride) || !disp_ok(d->off) ||
        !disp_ok(d->extent) || (!(kind & RIO_EMU_DL_BLOCKLENS) && !count_ok(d->blocklen)))
        return -EINVAL;
    if ((kind & RIO_EMU_DL_DISPLS) && (rc = get_array(c, d->nblocks, &d->displs, disp_ok)))
        return rc;
    if ((kind & RIO_EMU_DL_BLOCKLENS) &&
        (rc = get_array(c, d->nblocks, &d->blocklens, count_ok)))
        return rc;
    if (kind & RIO_EMU_DL_STRUCT) {
        if (d->nblocks > RIO_EMU_DL_MAX_NODES)
            return -EMSGSIZE;
        d->children = rio__calloc((size_t)d->nblocks, sizeof *d->children);
        if (!d->children)
            return -ENOMEM;
        for (int64_t i = 0; i < d->nblocks; i++)
            if ((rc = decode_node(c, depth + 1, &d->children[i])))
                return rc;
    } else if (!d->leaf) {
        if ((rc = decode_node(c, depth + 1, &d->child)))
            return rc;
    }
    /* size, and prefix sums when blocks differ */
    int varying = d->blocklens || d->children;
    if (varying) {
        d->prefix = rio__malloc(((size_t)d->nblocks + 1) * sizeof *d->prefix);
        if (!d->prefix)
            return -ENOMEM;
        d->prefix[0] = 0;
    }
    int64_t size = 0;
    for (int64_t i = 0; i < d->nblocks; i++) {
        int64_t b;
        if (__builtin_mul_overflow(rio__dl_blen(d, i), elsize(d, i), &b) ||
            b > RIO_EMU_DL_MAX_SIZE || b > RIO_EMU_DL_MAX_SIZE - size)
            return -EINVAL;
        size += b;
        if (varying)
            d->prefix[i + 1] = size;
        else if (__builtin_mul_overflow(b, d->nblocks, &size) || size > RIO_EMU_DL_MAX_SIZE)
            return -EINVAL;
        else
            break; /* every block the same */
    }
    d->size = size;
    /* depth, and the bounds of the data: blocks of a node without
     * per-block values differ only in their start, linear in i, so the
     * first and the last block bound it */
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int cdepth = 0;
    int uniform = !d->displs && !d->blocklens && !d->children;
    for (int64_t i = 0; i < d->nblocks; i++) {
        if (uniform && i == 1)
            i = d->nblocks - 1;
        if ((rc = block_span(d, i, &lo, &hi)))
            return rc;
        const struct rio_dl *e = d->leaf ? NULL : d->children ? d->children[i] : d->child;
        if (e && e->depth > cdepth)
            cdepth = e->depth;
    }
    d->tlb = lo;
    d->tub = hi;
    d->depth = 1 + cdepth;
    return 0;
}

/* Contract in dlwire.h. */
int rio__emu_dl_decode(const unsigned char *p, size_t n, struct rio_emu_dltype **out)
{
    struct dcur c = {p, n, 0, 0};
    struct rio_emu_dltype *t = rio__calloc(1, sizeof *t);
    int rc;
    *out = NULL;
    if (!t)
        return -ENOMEM;
    if ((rc = get64(&c, &t->tile_extent)))
        goto out;
    if (t->tile_extent < 0 || t->tile_extent > RIO_EMU_DL_MAX_DISP) {
        rc = -EINVAL;
        goto out;
    }
    if ((rc = decode_node(&c, 1, &t->root)))
        goto out;
    if (c.left) {
        rc = -EBADMSG;
        goto out;
    }
    t->nodes = c.nodes;
    t->depth = c.maxdepth;
out:
    if (rc)
        rio__emu_dl_free(t);
    else
        *out = t;
    return rc;
}

/* Contract in dlwire.h. */
void rio__emu_dl_free(struct rio_emu_dltype *t)
{
    if (!t)
        return;
    rio__dl_free(t->root);
    free(t);
}

/* ---- walking ----------------------------------------------------------- */

/* The origin of tile k, checked; -EINVAL when it overflows or lies so far
 * out that no region of the tile could be inside [0, RIO_EMU_MAX_OFFSET)
 * (its first region would be refused anyway), which also keeps the core's
 * arithmetic within range (see the top of this file). */
static int tile_origin(const struct rio_emu_dltype *t, int64_t disp, int64_t k, int64_t *o)
{
    int64_t m;
    if (__builtin_mul_overflow(k, t->tile_extent, &m) || __builtin_add_overflow(disp, m, o) ||
        *o < -RIO_EMU_DL_MAX_SPAN || *o > RIO_EMU_MAX_OFFSET + RIO_EMU_DL_MAX_SPAN)
        return -EINVAL;
    return 0;
}

/* Contract in dlwire.h. */
int rio__emu_dl_walk(const struct rio_emu_dltype *t, int64_t disp, int64_t pos, int64_t len,
                     rio_emu_region_fn fn, void *arg)
{
    struct rio_dl_frame f[RIO_EMU_DL_MAX_DEPTH];
    const struct rio_dl *root = t->root;
    int64_t want = len, tile = 0, origin;
    int top, rc;
    if (disp < 0 || pos < 0 || len < 0)
        return -EINVAL;
    if (len == 0)
        return 0;
    tile = pos / root->size;
    if ((rc = tile_origin(t, disp, tile, &origin)))
        return rc;
    top = rio__dl_locate(root, origin, pos % root->size, f, NULL);
    for (;;) {
        int64_t at, n;
        top = rio__dl_run(f, top, &at, &n);
        if (n > want)
            n = want;
        if (at < 0 || at > RIO_EMU_MAX_OFFSET || n > RIO_EMU_MAX_OFFSET - at)
            return -EINVAL;
        want -= n;
        if ((rc = fn(arg, at, n)))
            return rc;
        if (want == 0)
            return 0;
        if (top < 0) {
            if ((rc = tile_origin(t, disp, ++tile, &origin)))
                return rc;
            top = rio__dl_start(f, root, origin);
        }
    }
}

/* Contract in dlwire.h. */
int rio__emu_stripe_pieces(int64_t off, int64_t len, int64_t unit, uint32_t count,
                           uint32_t index, rio_emu_region_fn fn, void *arg)
{
    if (len <= 0)
        return 0;
    int64_t end = off + len, s0 = off / unit;
    int64_t s = s0 + (int64_t)((index + count - (uint32_t)(s0 % count)) % count);
    for (; s * unit < end; s += count) {
        int64_t lo = s * unit > off ? s * unit : off;
        int64_t hi = (s + 1) * unit < end ? (s + 1) * unit : end;
        int rc = fn(arg, (s / count) * unit + (lo - s * unit), hi - lo);
        if (rc)
            return rc;
    }
    return 0;
}
