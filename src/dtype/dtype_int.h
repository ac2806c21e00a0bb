/*
 * dtype_int.h — private declarations of the datatype engine.
 *
 * The engine's trees are the dataloops of the core (src/dloop/dloop.h,
 * which defines the shape and the walker): decode.c builds one node per
 * MPI constructor, normalize.c rewrites the tree into its smallest form
 * and computes every fact of struct rio_dl, and iter.c and view.c walk it
 * with the core's steps.
 */
#ifndef RIO_DTYPE_INT_H
#define RIO_DTYPE_INT_H

#include <stdatomic.h>
#include <stddef.h>

#include "../dloop/dloop.h"
#include "dtype.h"

struct rio_dtype {
    atomic_long refs;
    struct rio_dtype_info info;
    struct rio_dl *root;      /* NULL when size == 0 */
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

#endif /* RIO_DTYPE_INT_H */
