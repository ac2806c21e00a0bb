/*
 * dtype_int.h — private declarations of the datatype engine.
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
 * so the iterator handles one case with three pointer tests.  `extent` is
 * the spacing of consecutive instances when a parent repeats the node; it
 * plays the role of MPI's extent (lb is not needed once the typemap is
 * known).  A node never holds an empty block or an empty child: an empty
 * type is the NULL tree.  The facts after `size` are computed by
 * normalization and describe one instance relative to the node's origin.
 */
#ifndef RIO_DTYPE_INT_H
#define RIO_DTYPE_INT_H

#include <stdatomic.h>
#include <stddef.h>

#include "dtype.h"

struct rio_dl {
    MPI_Count nblocks;
    MPI_Count blocklen;       /* elements per block when blocklens == NULL */
    MPI_Aint stride;          /* block i at off + i * stride when displs == NULL */
    MPI_Count *blocklens;     /* elements of block i, or NULL */
    MPI_Aint *displs;         /* displacement of block i (before off), or NULL */
    MPI_Count *prefix;        /* with blocklens: data bytes before block i, nblocks + 1 */
    struct rio_dl *child;     /* element type; NULL for leaves and structs */
    struct rio_dl **children; /* struct: element type of block i */
    MPI_Aint off;             /* added to every block displacement */
    MPI_Aint extent;          /* spacing of instances repeated by a parent */
    int leaf;                 /* elements are bytes */
    /* facts of one instance, set by rio__dtype_norm */
    int depth;                /* nodes on the longest path to a leaf, leaf included */
    int mono;                 /* regions in stream order increase and do not overlap */
    MPI_Count size;           /* data bytes */
    MPI_Count nregions;       /* regions after merging adjacent ones */
    MPI_Aint first, last_end; /* start of the first region, end of the last */
    MPI_Aint tlb, tub;        /* lowest start, highest end of any region */
};

struct rio_dtype {
    atomic_long refs;
    struct rio_dtype_info info;
    struct rio_dl *root;      /* NULL when size == 0 */
};

/* One level of an iterator: the node, the origin of the instance being
 * walked, the block and the element within it (for a leaf frame: the bytes
 * of the block already handed out). */
struct rio_dtype_frame {
    const struct rio_dl *dl;
    MPI_Offset base;
    MPI_Count blk;
    MPI_Count el;
};

/* ---- decode.c ---------------------------------------------------------- */

/** Decode type into a normalized dataloop tree (*out NULL for a type with
 *  no data).  Local; calls MPI_Type_get_envelope/get_contents and frees
 *  the derived types the latter returns.  Errors: RIO_E_TYPE (with a
 *  detail) for combiners outside the engine, RIO_E_NOMEM. */
int rio__dtype_decode(MPI_Datatype type, struct rio_dl **out);

/** 1 when the combiner of type makes it a predefined type (named, or an
 *  f90 parametrized type) that cannot be freed nor reliably hold attributes. */
int rio__dtype_is_predefined(MPI_Datatype type);

/* ---- normalize.c ------------------------------------------------------- */

/** A zeroed node from rio__calloc, or NULL. */
struct rio_dl *rio__dtype_dl_new(void);
/** Free a tree (NULL is fine). */
void rio__dtype_dl_free(struct rio_dl *dl);
/** Structural equality of two normalized trees. */
int rio__dtype_dl_equal(const struct rio_dl *a, const struct rio_dl *b);
/**
 * Normalize *pn in place, its children being normalized already: drop empty
 * blocks, fuse loops, turn structs into indexed, and compute the facts.
 * *pn may be replaced by another node or become NULL (no data).  On error
 * (RIO_E_NOMEM) the tree is freed and *pn set to NULL.
 */
int rio__dtype_norm(struct rio_dl **pn);
/** A one-line description of the tree into buf (truncated to n bytes),
 *  e.g. "vector(4 x 8B, stride 16)"; for tests and error details. */
void rio__dtype_describe(const struct rio_dtype *dt, char *buf, size_t n);

/* ---- iter.c ------------------------------------------------------------ */

/**
 * Position frames (at least root->depth of them) at data byte rem of one
 * instance of root whose origin is base (0 <= rem < root->size), and
 * return the number of frames in use minus one (the index of the leaf
 * frame).  With frames == NULL only *at is computed.  *at (may be NULL)
 * receives the displacement of that byte.  O(depth) with a binary search
 * per indexed level.
 */
int rio__dtype_locate(const struct rio_dl *root, MPI_Offset base, MPI_Offset rem,
                      struct rio_dtype_frame *frames, MPI_Offset *at);

#endif /* RIO_DTYPE_INT_H */
