/*
 * dlwire.c — decoding shipped dataloops and walking their regions at the
 * server.
 *
 * Decoding is a recursive descent bounded by RIO_EMU_DL_MAX_DEPTH, with a
 * running node count; every array length is checked against the bytes
 * left before it is allocated, so a message can never make the server
 * allocate more than a small multiple of its own size.  Per node it
 * computes what the walk needs: the data size of one instance and, where
 * blocks differ in size, the prefix sums that let a walk start at any
 * stream byte with a binary search.
 *
 * The walk mirrors src/dtype/iter.c (same order of blocks and elements,
 * so the client and the server agree on which bytes are where) but is a
 * plain recursion with a budget of stream bytes: a seek to stream byte pos
 * divides by tile size and descends once, skipping whole blocks and
 * elements arithmetically.  All address arithmetic is checked.
 */
#include "dlwire.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static void node_free(struct rio_emu_dl *d)
{
    if (!d)
        return;
    if (d->children) {
        for (int64_t i = 0; i < d->nblocks; i++)
            node_free(d->children[i]);
        free(d->children);
    }
    node_free(d->child);
    free(d->displs);
    free(d->blocklens);
    free(d->prefix);
    free(d);
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

/* Elements of block i. */
static int64_t blen(const struct rio_emu_dl *d, int64_t i)
{
    return d->blocklens ? d->blocklens[i] : d->blocklen;
}

/* Data bytes of one element of block i. */
static int64_t elsize(const struct rio_emu_dl *d, int64_t i)
{
    return d->leaf ? 1 : d->children ? d->children[i]->size : d->child->size;
}

static int decode_node(struct dcur *c, int depth, struct rio_emu_dl **out)
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
    struct rio_emu_dl *d = rio__calloc(1, sizeof *d);
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
        if (__builtin_mul_overflow(blen(d, i), elsize(d, i), &b) || b > RIO_EMU_DL_MAX_SIZE ||
            b > RIO_EMU_DL_MAX_SIZE - size)
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
    node_free(t->root);
    free(t);
}

/* ---- walking ----------------------------------------------------------- */

struct walk {
    int64_t want;  /* stream bytes still to hand out */
    rio_emu_region_fn fn;
    void *arg;
};

/* a + b * c, checked */
static int mad(int64_t a, int64_t b, int64_t c, int64_t *r)
{
    int64_t m;
    if (__builtin_mul_overflow(b, c, &m) || __builtin_add_overflow(a, m, r))
        return -EINVAL;
    return 0;
}

/* Walk one instance of d whose origin (before d->off) is base, skipping
 * its first skip data bytes (0 <= skip < d->size). */
static int walk_node(const struct rio_emu_dl *d, int64_t base, int64_t skip, struct walk *w)
{
    int64_t b, blk;
    int rc;
    if (__builtin_add_overflow(base, d->off, &b))
        return -EINVAL;
    if (d->prefix) {
        int64_t lo = 0, hi = d->nblocks - 1;
        while (lo < hi) { /* largest blk with prefix[blk] <= skip */
            int64_t mid = lo + (hi - lo + 1) / 2;
            if (d->prefix[mid] <= skip)
                lo = mid;
            else
                hi = mid - 1;
        }
        blk = lo;
        skip -= d->prefix[blk];
    } else {
        int64_t bb = d->blocklen * elsize(d, 0); /* <= size, no overflow */
        blk = skip / bb;
        skip -= blk * bb;
    }
    for (; blk < d->nblocks && w->want > 0; blk++) {
        int64_t start;
        if (d->displs ? __builtin_add_overflow(b, d->displs[blk], &start)
                      : mad(b, blk, d->stride, &start))
            return -EINVAL;
        if (d->leaf) {
            int64_t n = blen(d, blk) - skip, at;
            if (n > w->want)
                n = w->want;
            if (__builtin_add_overflow(start, skip, &at) || at < 0 || at > RIO_EMU_MAX_OFFSET ||
                n > RIO_EMU_MAX_OFFSET - at)
                return -EINVAL;
            w->want -= n;
            skip = 0;
            if ((rc = w->fn(w->arg, at, n)))
                return rc;
            continue;
        }
        const struct rio_emu_dl *c = d->children ? d->children[blk] : d->child;
        int64_t el = skip / c->size;
        skip -= el * c->size;
        for (; el < blen(d, blk) && w->want > 0; el++) {
            int64_t at;
            if (mad(start, el, c->extent, &at))
                return -EINVAL;
            if ((rc = walk_node(c, at, skip, w)))
                return rc;
            skip = 0;
        }
    }
    return 0;
}

/* Contract in dlwire.h. */
int rio__emu_dl_walk(const struct rio_emu_dltype *t, int64_t disp, int64_t pos, int64_t len,
                     rio_emu_region_fn fn, void *arg)
{
    struct walk w = {len, fn, arg};
    if (disp < 0 || pos < 0 || len < 0)
        return -EINVAL;
    int64_t size = t->root->size, tile = pos / size, skip = pos % size;
    while (w.want > 0) {
        int64_t base;
        int rc;
        if (mad(disp, tile, t->tile_extent, &base))
            return -EINVAL;
        if ((rc = walk_node(t->root, base, skip, &w)))
            return rc;
        skip = 0;
        tile++;
    }
    return 0;
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
