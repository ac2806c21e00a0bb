/*
 * normalize.c — dataloop normalization and the facts of a tree.
 *
 * Decoding builds one node per MPI constructor; this file rewrites each
 * node, bottom-up, into the smallest equivalent form, so that the iterator
 * walks as few levels as possible and yields long regions.  The rewrites,
 * applied until none fires:
 *   - drop zero-length blocks and blocks of empty children;
 *   - a struct whose children are all equal becomes an indexed node over
 *     one child; a struct of contiguous runs becomes an indexed leaf;
 *   - a contiguous-run child is absorbed: blocks of it become byte runs
 *     (or a byte vector, for a single block of spaced runs);
 *   - a contig child is absorbed into its parent's blocks when the blocks
 *     stay contiguous (contig of contig -> contig, vector of contig ->
 *     vector), and a vector child whose period continues the parent's
 *     spacing is fused into one vector;
 *   - indexed blocks that touch are merged; equal block lengths make a
 *     blockindexed node, evenly spaced blocks a vector, and a vector whose
 *     blocks touch a contig;
 *   - a node of one element is replaced by that element;
 * and finally any node whose data is one contiguous run becomes a leaf
 * contig.  The facts (size, merged region count, first and last bytes,
 * true bounds, monotonicity, depth) are computed in O(blocks) per node —
 * never O(data) — with closed forms for repeated blocks.
 */
#include "dtype_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Non-static functions have their contract in dtype_int.h. */

static MPI_Count blen(const struct rio_dl *d, MPI_Count i)
{
    return d->blocklens ? d->blocklens[i] : d->blocklen;
}

static MPI_Aint bdisp(const struct rio_dl *d, MPI_Count i)
{
    return d->displs ? d->displs[i] : (MPI_Aint)i * d->stride;
}

static const struct rio_dl *belem(const struct rio_dl *d, MPI_Count i)
{
    if (d->leaf)
        return NULL;
    return d->children ? d->children[i] : d->child;
}

int rio__dtype_dl_equal(const struct rio_dl *a, const struct rio_dl *b)
{
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    if (a->nblocks != b->nblocks || a->leaf != b->leaf || a->off != b->off ||
        a->extent != b->extent || !a->blocklens != !b->blocklens || !a->displs != !b->displs ||
        !a->children != !b->children || a->size != b->size)
        return 0;
    if (!a->blocklens && a->blocklen != b->blocklen)
        return 0;
    if (!a->displs && a->nblocks > 1 && a->stride != b->stride)
        return 0;
    if (a->blocklens &&
        memcmp(a->blocklens, b->blocklens, (size_t)a->nblocks * sizeof *a->blocklens) != 0)
        return 0;
    if (a->displs && memcmp(a->displs, b->displs, (size_t)a->nblocks * sizeof *a->displs) != 0)
        return 0;
    if (a->children) {
        for (MPI_Count i = 0; i < a->nblocks; i++)
            if (!rio__dtype_dl_equal(a->children[i], b->children[i]))
                return 0;
        return 1;
    }
    return rio__dtype_dl_equal(a->child, b->child);
}

/* ---- facts ------------------------------------------------------------ */

struct facts {
    MPI_Count nreg;
    MPI_Aint first, last_end, tlb, tub;
    int mono;
};

/* f describes one copy; make it describe n copies, s bytes apart. */
static void repeat(struct facts *f, MPI_Count n, MPI_Aint s)
{
    if (n <= 1)
        return;
    MPI_Aint span = (MPI_Aint)(n - 1) * s;
    int adj = f->last_end == f->first + s;
    f->mono = f->mono && f->tub <= f->tlb + s;
    f->nreg = n * f->nreg - (adj ? n - 1 : 0);
    f->last_end += span;
    if (span < 0)
        f->tlb += span;
    else
        f->tub += span;
}

/* Facts of bl elements of c (bytes when c is NULL) starting at at. */
static void elems(const struct rio_dl *c, MPI_Count bl, MPI_Aint at, struct facts *f)
{
    if (!c) {
        *f = (struct facts){1, at, at + (MPI_Aint)bl, at, at + (MPI_Aint)bl, 1};
        return;
    }
    *f = (struct facts){c->nregions, at + c->first, at + c->last_end, at + c->tlb, at + c->tub,
                        c->mono};
    repeat(f, bl, c->extent);
}

/* Append block facts b after the blocks summarized in acc. */
static void append(struct facts *acc, const struct facts *b)
{
    acc->nreg += b->nreg - (acc->last_end == b->first ? 1 : 0);
    acc->mono = acc->mono && b->mono && acc->tub <= b->tlb;
    acc->last_end = b->last_end;
    acc->tlb = RIO_MIN(acc->tlb, b->tlb);
    acc->tub = RIO_MAX(acc->tub, b->tub);
}

static int compute_facts(struct rio_dl *d)
{
    /* An empty block list describes no bytes at d->off. */
    struct facts acc = {0, d->off, d->off, d->off, d->off, 1}, b;
    int depth = 0;
    free(d->prefix);
    d->prefix = NULL;
    if (d->blocklens || d->children || d->displs) {
        if (d->blocklens || d->children) {
            d->prefix = rio__malloc((size_t)(d->nblocks + 1) * sizeof *d->prefix);
            if (!d->prefix)
                return RIO_E_NOMEM;
        }
        MPI_Count sum = 0;
        for (MPI_Count i = 0; i < d->nblocks; i++) {
            const struct rio_dl *c = belem(d, i);
            if (d->prefix)
                d->prefix[i] = sum;
            sum += blen(d, i) * (c ? c->size : 1);
            elems(c, blen(d, i), d->off + bdisp(d, i), &b);
            if (i == 0)
                acc = b;
            else
                append(&acc, &b);
            if (c && c->depth > depth)
                depth = c->depth;
        }
        if (d->prefix)
            d->prefix[d->nblocks] = sum;
        d->size = sum;
    } else {
        const struct rio_dl *c = belem(d, 0);
        elems(c, d->blocklen, d->off, &acc);
        repeat(&acc, d->nblocks, d->stride);
        d->size = d->nblocks * d->blocklen * (c ? c->size : 1);
        if (c)
            depth = c->depth;
    }
    d->depth = 1 + depth;
    d->nregions = acc.nreg;
    d->first = acc.first;
    d->last_end = acc.last_end;
    d->tlb = acc.tlb;
    d->tub = acc.tub;
    d->mono = acc.mono;
    return 0;
}

/* ---- rewrites --------------------------------------------------------- */

/* Remove blocks with no data.  Returns 1 when nothing is left. */
static int drop_empty(struct rio_dl *d)
{
    if (d->nblocks <= 0 || (!d->leaf && !d->child && !d->children))
        return 1;
    if (!d->blocklens && !d->children)
        return d->blocklen <= 0;
    /* With per-block lengths or children, displacements are explicit (a
     * struct always carries displs), so blocks can be compacted. */
    MPI_Count n = 0;
    for (MPI_Count i = 0; i < d->nblocks; i++) {
        struct rio_dl *c = d->children ? d->children[i] : NULL;
        if (blen(d, i) <= 0 || (d->children && !c)) {
            rio__dl_free(c);
            continue;
        }
        if (d->blocklens)
            d->blocklens[n] = d->blocklens[i];
        if (d->displs)
            d->displs[n] = d->displs[i];
        if (d->children)
            d->children[n] = c;
        n++;
    }
    d->nblocks = n;
    return n == 0;
}

static int all_one(const struct rio_dl *d)
{
    if (!d->blocklens)
        return d->blocklen == 1;
    for (MPI_Count i = 0; i < d->nblocks; i++)
        if (d->blocklens[i] != 1)
            return 0;
    return 1;
}

static void scale(struct rio_dl *d, MPI_Count m)
{
    if (d->blocklens) {
        for (MPI_Count i = 0; i < d->nblocks; i++)
            d->blocklens[i] *= m;
    } else {
        d->blocklen *= m;
    }
}

/* One contiguous run of bytes (a leaf contig). */
static int is_run(const struct rio_dl *c)
{
    return c->leaf && c->nblocks == 1;
}

/* Struct rewrites.  Returns 1 when d changed. */
static int rewrite_struct(struct rio_dl *d)
{
    MPI_Count n = d->nblocks;
    int same = 1, runs = 1;
    for (MPI_Count i = 0; i < n; i++) {
        const struct rio_dl *c = d->children[i];
        if (i > 0 && same && !rio__dtype_dl_equal(d->children[0], c))
            same = 0;
        if (runs && !(is_run(c) && (blen(d, i) == 1 || c->extent == c->blocklen)))
            runs = 0;
    }
    if (same) {
        d->child = d->children[0];
        for (MPI_Count i = 1; i < n; i++)
            rio__dl_free(d->children[i]);
        free(d->children);
        d->children = NULL;
        return 1;
    }
    if (runs && d->blocklens && d->displs) {
        for (MPI_Count i = 0; i < n; i++) {
            struct rio_dl *c = d->children[i];
            d->blocklens[i] *= c->blocklen;
            d->displs[i] += c->off;
            rio__dl_free(c);
        }
        free(d->children);
        d->children = NULL;
        d->leaf = 1;
        return 1;
    }
    return 0;
}

/* Absorb or fuse the single child of a non-leaf node.  Returns 1 when d
 * changed. */
static int rewrite_child(struct rio_dl *d)
{
    struct rio_dl *c = d->child;
    int one = all_one(d);
    int single = d->nblocks == 1 && !d->displs;
    if (is_run(c)) {
        MPI_Count s = c->blocklen;
        if (one || c->extent == s) {
            scale(d, s);
            d->off += c->off;
        } else if (single) {
            /* bl runs of s bytes, c->extent apart: a byte vector */
            d->nblocks = blen(d, 0);
            free(d->blocklens);
            d->blocklens = NULL;
            d->blocklen = s;
            d->stride = c->extent;
            d->off += c->off;
        } else {
            return 0;
        }
        d->leaf = 1;
        d->child = NULL;
        rio__dl_free(c);
        return 1;
    }
    if (!c->leaf && c->nblocks == 1 && !c->displs && !c->children) {
        /* c is a contig of m elements of z */
        MPI_Count m = blen(c, 0);
        struct rio_dl *z = c->child;
        if (one || c->extent == (MPI_Aint)m * z->extent) {
            scale(d, m);
            d->off += c->off;
            d->child = z;
            c->child = NULL;
            rio__dl_free(c);
            return 1;
        }
    }
    if (!c->displs && !c->blocklens && !c->children && c->nblocks > 1) {
        /* c is a vector; d repeats it n times, p bytes apart.  When p is
         * c's period the copies continue c's block sequence. */
        MPI_Count n = 0;
        MPI_Aint p = 0;
        if (single) {
            n = blen(d, 0);
            p = c->extent;
        } else if (!d->displs && !d->blocklens && d->blocklen == 1) {
            n = d->nblocks;
            p = d->stride;
        }
        if (n > 0 && p == (MPI_Aint)c->nblocks * c->stride) {
            d->nblocks = n * c->nblocks;
            free(d->blocklens);
            d->blocklens = NULL;
            d->blocklen = c->blocklen;
            d->stride = c->stride;
            d->off += c->off;
            d->leaf = c->leaf;
            d->child = c->child;
            c->child = NULL;
            rio__dl_free(c);
            return 1;
        }
    }
    return 0;
}

/* Rewrites of explicit displacements.  Returns 1 when d changed, or
 * RIO_E_NOMEM. */
static int rewrite_displs(struct rio_dl *d)
{
    MPI_Count n = d->nblocks;
    MPI_Aint e = d->leaf ? 1 : d->child->extent;
    int touch = 0;
    for (MPI_Count i = 0; i + 1 < n && !touch; i++)
        touch = d->displs[i] + (MPI_Aint)blen(d, i) * e == d->displs[i + 1];
    if (touch) {
        if (!d->blocklens) {
            d->blocklens = rio__malloc((size_t)n * sizeof *d->blocklens);
            if (!d->blocklens)
                return RIO_E_NOMEM;
            for (MPI_Count i = 0; i < n; i++)
                d->blocklens[i] = d->blocklen;
            d->blocklen = 0;
        }
        MPI_Count j = 0;
        for (MPI_Count i = 1; i < n; i++) {
            if (d->displs[j] + (MPI_Aint)d->blocklens[j] * e == d->displs[i]) {
                d->blocklens[j] += d->blocklens[i];
            } else {
                j++;
                d->displs[j] = d->displs[i];
                d->blocklens[j] = d->blocklens[i];
            }
        }
        d->nblocks = n = j + 1;
    }
    if (d->blocklens) {
        MPI_Count i = 1;
        while (i < n && d->blocklens[i] == d->blocklens[0])
            i++;
        if (i == n) {
            d->blocklen = d->blocklens[0];
            free(d->blocklens);
            d->blocklens = NULL;
            touch = 1;
        }
    }
    if (!d->blocklens) {
        MPI_Aint s = n > 1 ? d->displs[1] - d->displs[0] : 0;
        MPI_Count i = 2;
        while (i < n && d->displs[i] - d->displs[i - 1] == s)
            i++;
        if (i >= n) {
            d->off += d->displs[0];
            d->stride = s;
            free(d->displs);
            d->displs = NULL;
            touch = 1;
        }
    }
    return touch;
}

int rio__dtype_norm(struct rio_dl **pn)
{
    struct rio_dl *d = *pn;
    int err = 0;
    if (!d)
        return 0;
    if (drop_empty(d)) {
        rio__dl_free(d);
        *pn = NULL;
        return 0;
    }
    for (;;) {
        int changed = 0;
        if (d->children) {
            changed = rewrite_struct(d);
        } else if (!d->leaf) {
            changed = rewrite_child(d);
        }
        if (!changed && d->displs && !d->children) {
            changed = rewrite_displs(d);
            if (changed < 0) {
                err = changed;
                goto out;
            }
        }
        if (!changed && !d->displs && !d->blocklens && !d->children && d->nblocks > 1) {
            MPI_Aint e = d->leaf ? 1 : d->child->extent;
            if (d->stride == (MPI_Aint)d->blocklen * e) {
                d->blocklen *= d->nblocks;
                d->nblocks = 1;
                changed = 1;
            }
        }
        if (!changed && !d->leaf && !d->children && d->nblocks == 1 && !d->displs &&
            blen(d, 0) == 1) {
            /* One element: the node is its child, moved and resized. */
            struct rio_dl *c = d->child;
            c->off += d->off;
            c->extent = d->extent;
            d->child = NULL;
            rio__dl_free(d);
            *pn = d = c;
            changed = 1;
        }
        if (!changed)
            break;
    }
    if (d->nblocks == 1)
        d->stride = 0;
    err = compute_facts(d);
    if (err)
        goto out;
    if (d->nregions == 1 && !is_run(d)) {
        /* One contiguous run, however it was described. */
        struct rio_dl *run = rio__dl_new();
        if (!run) {
            err = RIO_E_NOMEM;
            goto out;
        }
        run->leaf = 1;
        run->nblocks = 1;
        run->blocklen = d->size;
        run->off = d->first;
        run->extent = d->extent;
        rio__dl_free(d);
        *pn = d = run;
        err = compute_facts(d);
    }
out:
    if (err) {
        rio__dl_free(d);
        *pn = NULL;
    }
    return err;
}

/* ---- description ------------------------------------------------------ */

struct sbuf {
    char *p;
    size_t n, len;
};

static void put(struct sbuf *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct sbuf *s, const char *fmt, ...)
{
    if (s->len >= s->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(s->p + s->len, s->n - s->len, fmt, ap);
    va_end(ap);
    if (k > 0)
        s->len = RIO_MIN(s->n, s->len + (size_t)k);
}

static const char *kind_name(const struct rio_dl *d)
{
    if (d->children)
        return "struct";
    if (d->nblocks == 1)
        return "contig";
    if (!d->displs)
        return "vector";
    return d->blocklens ? "indexed" : "blockindexed";
}

static void describe(const struct rio_dl *d, struct sbuf *s)
{
    const char *unit = d->leaf ? "B" : "";
    put(s, "%s(", kind_name(d));
    if (d->nblocks == 1)
        put(s, "%lld%s", (long long)blen(d, 0), unit);
    else if (!d->displs)
        put(s, "%lld x %lld%s, stride %lld", (long long)d->nblocks, (long long)d->blocklen, unit,
            (long long)d->stride);
    else if (!d->blocklens)
        put(s, "%lld x %lld%s", (long long)d->nblocks, (long long)d->blocklen, unit);
    else
        put(s, "%lld blocks", (long long)d->nblocks);
    if (d->off)
        put(s, ", off %lld", (long long)d->off);
    put(s, ", extent %lld)", (long long)d->extent);
    if (d->child) {
        put(s, " of ");
        describe(d->child, s);
    } else if (d->children) {
        put(s, " of {");
        for (MPI_Count i = 0; i < d->nblocks && i < 4; i++) {
            put(s, i ? "; " : "");
            describe(d->children[i], s);
        }
        put(s, d->nblocks > 4 ? "; ...}" : "}");
    }
}

void rio__dtype_describe(const struct rio_dtype *dt, char *buf, size_t n)
{
    struct sbuf s = {buf, n, 0};
    if (!n)
        return;
    buf[0] = '\0';
    if (!dt->root)
        put(&s, "empty");
    else
        describe(dt->root, &s);
}
