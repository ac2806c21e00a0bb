/*
 * ship.c — a dataloop tree in the wire form of datatype I/O
 * (src/emu/dlwire.h), for drivers that send a view's filetype to storage
 * servers which expand it themselves.
 *
 * The tree goes out in preorder exactly as it is held (normalized), so
 * the server walks the same blocks and elements in the same order as
 * iter.c does here; only the facts that normalization computes (sizes,
 * prefix sums) are left out, and the server recomputes them.
 */
#include "dtype_int.h"
#include "../emu/dlwire.h"

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
    for (MPI_Count i = 0; d->displs && i < d->nblocks; i++)
        rio__emu_put_u64(b, (uint64_t)d->displs[i]);
    for (MPI_Count i = 0; d->blocklens && i < d->nblocks; i++)
        rio__emu_put_u64(b, (uint64_t)d->blocklens[i]);
    if (d->children)
        for (MPI_Count i = 0; i < d->nblocks; i++)
            put_node(b, d->children[i]);
    else if (!d->leaf)
        put_node(b, d->child);
}

/* Contract in dtype.h. */
int rio__dtype_ship(const struct rio_dtype *dt, unsigned char **out, size_t *len)
{
    struct rio_emu_buf b = {0};
    *out = NULL;
    *len = 0;
    if (!dt->root) {
        rio__err_detail("a filetype without data cannot be shipped");
        return RIO_E_TYPE;
    }
    if (dt->root->depth > RIO_EMU_DL_MAX_DEPTH) {
        rio__err_detail("filetype dataloop of depth %d is deeper than datatype I/O takes (%d)",
                        dt->root->depth, RIO_EMU_DL_MAX_DEPTH);
        return RIO_E_TYPE;
    }
    rio__emu_put_u64(&b, (uint64_t)dt->info.extent);
    put_node(&b, dt->root);
    if (b.err) {
        rio__emu_buf_free(&b);
        return RIO_E_NOMEM;
    }
    *out = b.p;
    *len = b.n;
    return 0;
}
