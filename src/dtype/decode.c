/*
 * decode.c — from an MPI datatype to a dataloop tree.
 *
 * Only the portable introspection calls are used: MPI_Type_get_envelope
 * gives the combiner, MPI_Type_get_contents its arguments, and the
 * recursion goes down the datatypes it returns (freeing the derived ones,
 * as the standard requires).  Each constructor becomes one node with byte
 * displacements (strides and displacements counted in elements are scaled
 * by the old type's extent, which MPI_Type_get_extent gives, so lb/ub
 * markers and resizing need no special case), whose extent is the MPI
 * extent of the type it stands for; every node is normalized as soon as it
 * is built.  Subarray and darray are computed from their arguments: one
 * level per dimension, fastest dimension innermost, each level a resized
 * contig (subarray) or the blocks this process owns (darray: block,
 * cyclic(k) — a vector plus a partial last block — or none).  Predefined
 * types are byte runs, except the pair types of MPI_MINLOC/MAXLOC whose
 * padding makes two runs.
 */
#include "dtype_int.h"

#include <stdlib.h>

static int is_predef_combiner(int comb)
{
    return comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
           comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER;
}

/* Contract in dtype_int.h. */
int rio__dtype_is_predefined(MPI_Datatype type)
{
    int ni, na, nd, comb;
    if (MPI_Type_get_envelope(type, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return 0;
    return is_predef_combiner(comb);
}

/* Where the int of a pair type starts, for the pair types whose members
 * do not touch. */
static MPI_Aint pair_int_offset(MPI_Datatype type, MPI_Datatype *first)
{
    struct fi { float a; int b; };
    struct di { double a; int b; };
    struct li { long a; int b; };
    struct si { short a; int b; };
    struct ldi { long double a; int b; };
    if (type == MPI_FLOAT_INT) {
        *first = MPI_FLOAT;
        return offsetof(struct fi, b);
    }
    if (type == MPI_DOUBLE_INT) {
        *first = MPI_DOUBLE;
        return offsetof(struct di, b);
    }
    if (type == MPI_LONG_INT) {
        *first = MPI_LONG;
        return offsetof(struct li, b);
    }
    if (type == MPI_SHORT_INT) {
        *first = MPI_SHORT;
        return offsetof(struct si, b);
    }
    if (type == MPI_LONG_DOUBLE_INT) {
        *first = MPI_LONG_DOUBLE;
        return offsetof(struct ldi, b);
    }
    return -1;
}

static int decode_named(MPI_Datatype type, struct rio_dl **out)
{
    MPI_Count size = 0;
    MPI_Aint lb, extent;
    MPI_Datatype first = MPI_DATATYPE_NULL;
    struct rio_dl *d = NULL;
    MPI_Type_size_x(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    *out = NULL;
    if (size <= 0)
        return 0;
    d = rio__dl_new();
    if (!d)
        return RIO_E_NOMEM;
    d->leaf = 1;
    d->nblocks = 1;
    d->blocklen = size;
    d->extent = extent;
    MPI_Aint at = size != extent ? pair_int_offset(type, &first) : -1;
    if (at > 0) {
        int fsize = 0, isize = 0;
        MPI_Type_size(first, &fsize);
        MPI_Type_size(MPI_INT, &isize);
        if (fsize + isize == size && at >= fsize) {
            d->blocklens = rio__malloc(2 * sizeof *d->blocklens);
            d->displs = rio__malloc(2 * sizeof *d->displs);
            if (!d->blocklens || !d->displs) {
                rio__dl_free(d);
                return RIO_E_NOMEM;
            }
            d->nblocks = 2;
            d->blocklen = 0;
            d->blocklens[0] = fsize;
            d->blocklens[1] = isize;
            d->displs[0] = 0;
            d->displs[1] = at;
        }
    }
    *out = d;
    return rio__dtype_norm(out);
}

static int decode(MPI_Datatype type, struct rio_dl **out);

/* A node of count blocks over child c (owned; NULL when empty, which makes
 * the node empty).  Per-block arrays are allocated when asked for. */
static int new_node(struct rio_dl *c, MPI_Count nblocks, int with_lens, int with_displs,
                    struct rio_dl **out)
{
    struct rio_dl *d = rio__dl_new();
    *out = NULL;
    if (!d)
        goto nomem;
    d->child = c;
    c = NULL;
    d->nblocks = nblocks;
    size_t n = nblocks > 0 ? (size_t)nblocks : 1;
    if (with_lens && !(d->blocklens = rio__malloc(n * sizeof *d->blocklens)))
        goto nomem;
    if (with_displs && !(d->displs = rio__malloc(n * sizeof *d->displs)))
        goto nomem;
    *out = d;
    return 0;
nomem:
    rio__dl_free(c);
    rio__dl_free(d);
    return RIO_E_NOMEM;
}

/* Normalize d (owned) with the given extent into *out. */
static int finish(struct rio_dl *d, MPI_Aint extent, struct rio_dl **out)
{
    d->extent = extent;
    *out = d;
    return rio__dtype_norm(out);
}

/* Struct: one child per block, decoding a type repeated in consecutive
 * blocks only once (copies are cheap next to get_contents). */
static struct rio_dl *clone(const struct rio_dl *s);

static int decode_struct(const int *ints, const MPI_Aint *addrs, const MPI_Datatype *types,
                         MPI_Aint extent, struct rio_dl **out)
{
    MPI_Count n = ints[0];
    struct rio_dl *d = NULL;
    int err = new_node(NULL, n, 1, 1, &d);
    if (err)
        return err;
    d->children = rio__calloc(n > 0 ? (size_t)n : 1, sizeof *d->children);
    if (!d->children) {
        err = RIO_E_NOMEM;
        goto out;
    }
    for (MPI_Count i = 0; i < n; i++) {
        d->blocklens[i] = ints[1 + i];
        d->displs[i] = addrs[i];
        if (ints[1 + i] <= 0)
            continue;
        if (i > 0 && types[i] == types[i - 1] && d->children[i - 1]) {
            d->children[i] = clone(d->children[i - 1]);
            if (!d->children[i]) {
                err = RIO_E_NOMEM;
                goto out;
            }
        } else {
            err = decode(types[i], &d->children[i]);
            if (err)
                goto out;
        }
    }
    return finish(d, extent, out);
out:
    rio__dl_free(d);
    return err;
}

static struct rio_dl *clone(const struct rio_dl *s)
{
    struct rio_dl *d = rio__dl_new();
    MPI_Count n = s->nblocks;
    if (!d)
        return NULL;
    *d = *s;
    d->blocklens = NULL;
    d->displs = NULL;
    d->prefix = NULL;
    d->child = NULL;
    d->children = NULL;
    if (s->blocklens) {
        if (!(d->blocklens = rio__malloc((size_t)n * sizeof *d->blocklens)))
            goto fail;
        for (MPI_Count i = 0; i < n; i++)
            d->blocklens[i] = s->blocklens[i];
    }
    if (s->displs) {
        if (!(d->displs = rio__malloc((size_t)n * sizeof *d->displs)))
            goto fail;
        for (MPI_Count i = 0; i < n; i++)
            d->displs[i] = s->displs[i];
    }
    if (s->prefix) {
        if (!(d->prefix = rio__malloc((size_t)(n + 1) * sizeof *d->prefix)))
            goto fail;
        for (MPI_Count i = 0; i <= n; i++)
            d->prefix[i] = s->prefix[i];
    }
    if (s->child && !(d->child = clone(s->child)))
        goto fail;
    if (s->children) {
        if (!(d->children = rio__calloc((size_t)n, sizeof *d->children)))
            goto fail;
        for (MPI_Count i = 0; i < n; i++)
            if (!(d->children[i] = clone(s->children[i])))
                goto fail;
    }
    return d;
fail:
    rio__dl_free(d);
    return NULL;
}

/* Subarray: one resized contig level per dimension, fastest innermost. */
static int build_subarray(const int *ints, struct rio_dl *c, MPI_Aint cext, MPI_Aint extent,
                          struct rio_dl **out)
{
    int nd = ints[0];
    const int *sizes = ints + 1, *subs = ints + 1 + nd, *starts = ints + 1 + 2 * nd;
    int order = ints[1 + 3 * nd];
    MPI_Aint e = cext;
    int err = 0;
    for (int k = 0; k < nd && c; k++) {
        int dim = order == MPI_ORDER_C ? nd - 1 - k : k;
        struct rio_dl *d = NULL;
        err = new_node(c, 1, 0, 0, &d);
        c = NULL;
        if (err)
            return err;
        d->blocklen = subs[dim];
        d->off = (MPI_Aint)starts[dim] * e;
        e *= sizes[dim];
        err = finish(d, e, &c);
        if (err)
            return err;
    }
    if (c)
        c->extent = extent;
    *out = c;
    return 0;
}

/* The blocks of one darray dimension owned by process coordinate coord:
 * nfull blocks of len elements from start, period apart, then a tail of
 * tail elements at tail_at (tail may be 0).  Returns 0 when nothing is
 * owned. */
struct dim_blocks {
    MPI_Count nfull, len, tail;
    MPI_Aint start, period, tail_at;
};

static int darray_dim(int gsize, int distrib, int darg, int psize, int coord,
                      struct dim_blocks *b)
{
    *b = (struct dim_blocks){0};
    if (gsize <= 0)
        return 0;
    if (distrib == MPI_DISTRIBUTE_NONE || psize <= 1) {
        if (distrib != MPI_DISTRIBUTE_NONE && coord != 0)
            return 0;
        b->nfull = 1;
        b->len = gsize;
        return 1;
    }
    MPI_Count blk;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? ((MPI_Count)gsize + psize - 1) / psize : darg;
        MPI_Count s = (MPI_Count)coord * blk;
        if (s >= gsize || blk <= 0)
            return 0;
        b->start = s;
        if (s + blk <= gsize) {
            b->nfull = 1;
            b->len = blk;
        } else {
            b->tail = gsize - s;
            b->tail_at = s;
        }
        return 1;
    }
    /* cyclic(blk) */
    blk = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    if (blk <= 0)
        return 0;
    MPI_Count s = (MPI_Count)coord * blk, period = (MPI_Count)psize * blk;
    if (s >= gsize)
        return 0;
    MPI_Count n = (gsize - s + period - 1) / period; /* blocks started */
    MPI_Count last = s + (n - 1) * period;
    b->start = s;
    b->period = period;
    b->len = blk;
    if (last + blk <= gsize) {
        b->nfull = n;
    } else {
        b->nfull = n - 1;
        b->tail = gsize - last;
        b->tail_at = last;
    }
    return 1;
}

/* One darray level over c (owned), elements e bytes apart. */
static int darray_level(const struct dim_blocks *b, struct rio_dl *c, MPI_Aint e,
                        MPI_Aint level_extent, struct rio_dl **out)
{
    struct rio_dl *d = NULL, *v = NULL, *t = NULL, *cc = NULL;
    int err;
    *out = NULL;
    if (!b->tail || !b->nfull) {
        err = new_node(c, b->nfull ? b->nfull : 1, 0, 0, &d);
        if (err)
            return err;
        d->blocklen = b->nfull ? b->len : b->tail;
        d->stride = b->period * e;
        d->off = (b->nfull ? b->start : b->tail_at) * e;
        return finish(d, level_extent, out);
    }
    /* full blocks as a vector, then the tail: a struct of two */
    cc = clone(c);
    if (!cc) {
        rio__dl_free(c);
        return RIO_E_NOMEM;
    }
    err = new_node(c, b->nfull, 0, 0, &v);
    if (!err) {
        v->blocklen = b->len;
        v->stride = b->period * e;
        err = finish(v, level_extent, &v);
    }
    if (err) {
        rio__dl_free(cc);
        return err;
    }
    err = new_node(NULL, 2, 1, 1, &d);
    if (!err && !(d->children = rio__calloc(2, sizeof *d->children)))
        err = RIO_E_NOMEM;
    if (err) {
        rio__dl_free(v);
        rio__dl_free(cc);
        rio__dl_free(d);
        return err;
    }
    t = cc;
    d->children[0] = v;
    d->children[1] = t;
    d->blocklens[0] = 1;
    d->displs[0] = b->start * e;
    d->blocklens[1] = b->tail;
    d->displs[1] = b->tail_at * e;
    return finish(d, level_extent, out);
}

static int build_darray(const int *ints, struct rio_dl *c, MPI_Aint cext, MPI_Aint extent,
                        struct rio_dl **out)
{
    int rank = ints[1], nd = ints[2];
    const int *gsizes = ints + 3, *distribs = ints + 3 + nd, *dargs = ints + 3 + 2 * nd,
              *psizes = ints + 3 + 3 * nd;
    int order = ints[3 + 4 * nd];
    int coords[64];
    MPI_Aint e = cext;
    int err = 0;
    *out = NULL;
    if (nd > 64) {
        rio__dl_free(c);
        rio__err_detail("darray of %d dimensions", nd);
        return RIO_E_TYPE;
    }
    /* the process grid is row-major whatever the array order */
    for (int d = nd - 1, r = rank; d >= 0; d--) {
        coords[d] = psizes[d] > 0 ? r % psizes[d] : 0;
        r = psizes[d] > 0 ? r / psizes[d] : r;
    }
    for (int k = 0; k < nd && c; k++) {
        int dim = order == MPI_ORDER_C ? nd - 1 - k : k;
        struct dim_blocks b;
        if (!darray_dim(gsizes[dim], distribs[dim], dargs[dim], psizes[dim], coords[dim], &b)) {
            rio__dl_free(c);
            return 0;
        }
        MPI_Aint next = e * gsizes[dim];
        err = darray_level(&b, c, e, next, &c);
        if (err)
            return err;
        e = next;
    }
    if (c)
        c->extent = extent;
    *out = c;
    return 0;
}

/* The oldtype's decoded tree and MPI extent. */
static int decode_old(MPI_Datatype t, struct rio_dl **c, MPI_Aint *ext)
{
    MPI_Aint lb;
    MPI_Type_get_extent(t, &lb, ext);
    return decode(t, c);
}

static int decode(MPI_Datatype type, struct rio_dl **out)
{
    int ni = 0, na = 0, nd = 0, comb = 0, got = 0, err = 0;
    int *ints = NULL;
    MPI_Aint *addrs = NULL;
    MPI_Datatype *types = NULL;
    MPI_Aint lb, extent, cext = 0;
    struct rio_dl *c = NULL, *d = NULL;

    *out = NULL;
    MPI_Type_get_envelope(type, &ni, &na, &nd, &comb);
    if (is_predef_combiner(comb))
        return decode_named(type, out);
    MPI_Type_get_extent(type, &lb, &extent);
    ints = rio__malloc((size_t)ni * sizeof *ints);
    addrs = rio__malloc((size_t)na * sizeof *addrs);
    types = rio__malloc((size_t)nd * sizeof *types);
    if (!ints || !addrs || !types) {
        err = RIO_E_NOMEM;
        goto out;
    }
    MPI_Type_get_contents(type, ni, na, nd, ints, addrs, types);
    got = 1;

    /* SimGrid's SMPI (3.32) reports struct and resized types as INDEXED
     * with a struct's contents (count, blocklens; displacements; types; a
     * resized type as a struct between MPI_LB and MPI_UB markers, which
     * hold no data).  A real INDEXED has no address arguments, so the two
     * cannot be confused. */
    if (comb == MPI_COMBINER_STRUCT || (comb == MPI_COMBINER_INDEXED && na > 0)) {
        err = decode_struct(ints, addrs, types, extent, out);
        goto out;
    }
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
    case MPI_COMBINER_CONTIGUOUS:
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        break;
    default:
        rio__err_detail("datatype combiner %d is not supported", comb);
        err = RIO_E_TYPE;
        goto out;
    }
    err = decode_old(types[0], &c, &cext);
    if (err || !c)
        goto out; /* an empty old type makes an empty type */

    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        c->extent = extent;
        *out = c;
        c = NULL;
        break;
    case MPI_COMBINER_CONTIGUOUS:
        if (!(err = new_node(c, 1, 0, 0, &d))) {
            d->blocklen = ints[0];
            err = finish(d, extent, out);
        }
        c = NULL;
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        if (!(err = new_node(c, ints[0], 0, 0, &d))) {
            d->blocklen = ints[1];
            d->stride = comb == MPI_COMBINER_VECTOR ? (MPI_Aint)ints[2] * cext : addrs[0];
            err = finish(d, extent, out);
        }
        c = NULL;
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        if (!(err = new_node(c, ints[0], 1, 1, &d))) {
            for (int i = 0; i < ints[0]; i++) {
                d->blocklens[i] = ints[1 + i];
                d->displs[i] = comb == MPI_COMBINER_INDEXED ? (MPI_Aint)ints[1 + ints[0] + i] * cext
                                                            : addrs[i];
            }
            err = finish(d, extent, out);
        }
        c = NULL;
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        if (!(err = new_node(c, ints[0], 0, 1, &d))) {
            d->blocklen = ints[1];
            for (int i = 0; i < ints[0]; i++)
                d->displs[i] = comb == MPI_COMBINER_INDEXED_BLOCK ? (MPI_Aint)ints[2 + i] * cext
                                                                  : addrs[i];
            err = finish(d, extent, out);
        }
        c = NULL;
        break;
    case MPI_COMBINER_SUBARRAY:
        err = build_subarray(ints, c, cext, extent, out);
        c = NULL;
        break;
    case MPI_COMBINER_DARRAY:
        err = build_darray(ints, c, cext, extent, out);
        c = NULL;
        break;
    }
out:
    rio__dl_free(c);
    if (got) {
        for (int i = 0; i < nd; i++)
            if (!rio__dtype_is_predefined(types[i]))
                MPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
    if (err) {
        rio__dl_free(*out);
        *out = NULL;
    }
    return err;
}

/* Contract in dtype_int.h. */
int rio__dtype_decode(MPI_Datatype type, struct rio_dl **out)
{
    return decode(type, out);
}
