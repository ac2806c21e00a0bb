/*
 * dloop.h — the dataloop core: the tree that describes where the bytes of
 * a typed data stream lie, and the walker that hands out its byte runs.
 * No MPI here: the datatype engine (src/dtype) builds trees from MPI
 * datatypes, the emulated storage (src/emu, tools/resonio-emud, the fuzz
 * targets) builds them from wire bytes, and both walk them with the same
 * code, so the client and the server cannot disagree on which bytes are
 * where.
 *
 * The dataloop.  Every node describes the typemap of one instance of a type
 * as `nblocks` blocks; block i holds `blocklen` (or blocklens[i]) elements
 * placed at off + i * stride (or off + displs[i]) with consecutive elements
 * one element extent apart.  An element is either a byte (leaf nodes, so a
 * leaf block is one contiguous run of bytes) or an instance of a child node
 * (child, or children[i] for a struct).  The five dataloop kinds of the
 * paper are views of this one shape:
 *
 *   contig        nblocks == 1
 *   vector        displs == NULL, blocklens == NULL
 *   blockindexed  displs != NULL, blocklens == NULL
 *   indexed       displs != NULL, blocklens != NULL, one child (or leaf)
 *   struct        children != NULL
 *
 * so the walker handles one case with three pointer tests.  `extent` is
 * the spacing of consecutive instances when a parent repeats the node.  A
 * node never holds an empty block or an empty child: an empty type is the
 * NULL tree.  The facts after `leaf` describe one instance relative to the
 * node's origin (before `off`); whoever builds a tree sets at least size,
 * depth and, where blocks differ in size (blocklens or children), prefix.
 *
 * The walker is a stack of frames, one per level from the root to a leaf,
 * each holding the block and element being walked and the origin (plus
 * off) of its node's instance; the leaf frame also holds how many bytes
 * of its block were handed out.  Its steps do plain arithmetic: a builder
 * of untrusted trees bounds them first (src/emu/dlwire.c checks every
 * node's span, so no step can overflow) and checks the regions it gets.
 * The per-run steps are inline because they are the hot path of all I/O.
 */
#ifndef RIO_DLOOP_H
#define RIO_DLOOP_H

#include <stddef.h>
#include <stdint.h>

struct rio_dl {
    int64_t nblocks;
    int64_t blocklen;         /* elements per block when blocklens == NULL */
    int64_t stride;           /* block i at off + i * stride when displs == NULL */
    int64_t *blocklens;       /* elements of block i, or NULL */
    int64_t *displs;          /* displacement of block i (before off), or NULL */
    int64_t *prefix;          /* with blocklens or children: data bytes before
                                 block i, nblocks + 1 of them */
    struct rio_dl *child;     /* element type; NULL for leaves and structs */
    struct rio_dl **children; /* struct: element type of block i */
    int64_t off;              /* added to every block displacement */
    int64_t extent;           /* spacing of instances repeated by a parent */
    int leaf;                 /* elements are bytes */
    /* facts of one instance */
    int depth;                /* nodes on the longest path to a leaf, leaf included */
    int mono;                 /* regions in stream order increase and do not overlap */
    int64_t size;             /* data bytes */
    int64_t nregions;         /* regions after merging adjacent ones */
    int64_t first, last_end;  /* start of the first region, end of the last */
    int64_t tlb, tub;         /* lowest start, highest end of any region */
};

/* One level of a walk: the node, the origin of the instance being walked
 * plus the node's off, the block and the element within it (for a leaf
 * frame: the bytes of the block already handed out). */
struct rio_dl_frame {
    const struct rio_dl *dl;
    int64_t base;
    int64_t blk;
    int64_t el;
};

/* The allocation door of src/common/alloc.c (declared here too because
 * common.h brings MPI with it). */
void *rio__malloc(size_t n);
void *rio__calloc(size_t n, size_t size);

/** A zeroed node from rio__calloc, or NULL. */
struct rio_dl *rio__dl_new(void);
/** Free a tree: the node, its arrays and its children (NULL is fine). */
void rio__dl_free(struct rio_dl *dl);

/**
 * Position frames (at least root->depth of them) at data byte rem of one
 * instance of root whose origin is base (0 <= rem < root->size), and
 * return the index of the leaf frame.  With frames == NULL only *at is
 * computed.  *at (may be NULL) receives the displacement of that byte.
 * O(depth) with a binary search per level whose blocks differ in size.
 */
int rio__dl_locate(const struct rio_dl *root, int64_t base, int64_t rem,
                   struct rio_dl_frame *frames, int64_t *at);

/** Elements of block blk of d. */
static inline int64_t rio__dl_blen(const struct rio_dl *d, int64_t blk)
{
    return d->blocklens ? d->blocklens[blk] : d->blocklen;
}

/** Displacement of block blk of d from the frame base. */
static inline int64_t rio__dl_bdisp(const struct rio_dl *d, int64_t blk)
{
    return d->displs ? d->displs[blk] : blk * d->stride;
}

/**
 * From frame l, which stands on an element of a non-leaf node (or on the
 * leaf), push the frames down to the first leaf block of that element and
 * return the index of the leaf frame.
 */
static inline int rio__dl_descend(struct rio_dl_frame *f, int l)
{
    while (!f[l].dl->leaf) {
        const struct rio_dl_frame *fr = &f[l];
        const struct rio_dl *d = fr->dl;
        const struct rio_dl *c = d->children ? d->children[fr->blk] : d->child;
        int64_t at = fr->base + rio__dl_bdisp(d, fr->blk) + fr->el * c->extent + c->off;
        f[++l] = (struct rio_dl_frame){c, at, 0, 0};
    }
    return l;
}

/** Frames at the first byte of an instance of root whose origin is
 *  origin; returns the index of the leaf frame. */
static inline int rio__dl_start(struct rio_dl_frame *f, const struct rio_dl *root,
                                int64_t origin)
{
    f[0] = (struct rio_dl_frame){root, origin + root->off, 0, 0};
    return rio__dl_descend(f, 0);
}

/**
 * Move the frames past a finished leaf block (leaf frame top): up to the
 * first level with elements or blocks left, then down to its next leaf
 * block.  Returns the new leaf frame index, or -1 when the instance is
 * finished (the frames are then spent; restart with rio__dl_start).
 */
static inline int rio__dl_advance(struct rio_dl_frame *f, int top)
{
    for (int l = top - 1; l >= 0; l--) {
        struct rio_dl_frame *fr = &f[l];
        const struct rio_dl *d = fr->dl;
        if (++fr->el < rio__dl_blen(d, fr->blk))
            return rio__dl_descend(f, l);
        fr->el = 0;
        if (++fr->blk < d->nblocks)
            return rio__dl_descend(f, l);
    }
    return -1;
}

/**
 * The byte run at the leaf frame top (what is left of its block): sets
 * *off and *len (>= 1) and moves past it.  Returns the new leaf frame
 * index, or -1 when that run ended the instance.
 */
static inline int rio__dl_run(struct rio_dl_frame *f, int top, int64_t *off, int64_t *len)
{
    struct rio_dl_frame *lf = &f[top];
    const struct rio_dl *d = lf->dl;
    int64_t blk = lf->blk;
    *off = lf->base + rio__dl_bdisp(d, blk) + lf->el;
    *len = rio__dl_blen(d, blk) - lf->el;
    lf->el = 0;
    if (++lf->blk >= d->nblocks)
        return rio__dl_advance(f, top);
    return top;
}

#endif /* RIO_DLOOP_H */
