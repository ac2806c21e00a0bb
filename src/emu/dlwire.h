/*
 * dlwire.h — dataloops on the wire: the file side of a datatype request
 * (datatype I/O, and the server-side redistribution of ECIO).
 *
 * A client ships the dataloop tree of a view's filetype instead of an
 * offset list; the server rebuilds the tree and walks the regions itself.
 * The serialized form (little-endian) is
 *
 *   i64 tile_extent             spacing of consecutive filetype tiles
 *   node                        the root, in preorder:
 *     u8  kind                  RIO_EMU_DL_LEAF | _DISPLS | _BLOCKLENS | _STRUCT
 *     i64 nblocks, blocklen, stride, off, extent
 *     i64 displs[nblocks]       if _DISPLS
 *     i64 blocklens[nblocks]    if _BLOCKLENS
 *     children                  _STRUCT: nblocks nodes; else, unless _LEAF, one node
 *
 * with the meaning of struct rio_dl (src/dloop/dloop.h): block i of a
 * node holds blocklen (or blocklens[i]) elements at off + i * stride (or
 * off + displs[i]); an element is a byte in a leaf, else one instance of
 * the child (children[i] for a struct), consecutive elements one child
 * extent apart.  Tile k of the view starts at disp + k * tile_extent.
 *
 * The encoder writes any tree of the dataloop core in this form (the
 * datatype engine's, for the emu driver); the decoder rebuilds such a tree
 * at the server, and the server walks it with the core's walker, the same
 * code that walks it at the client, so both agree on which bytes are
 * where.
 *
 * Decoding checks everything a hostile message could abuse: depth up to
 * RIO_EMU_DL_MAX_DEPTH, nodes up to RIO_EMU_DL_MAX_NODES, counts and
 * displacements within their limits, arrays no longer than the bytes that
 * remain, every block non-empty, sizes without overflow, every node's data
 * within RIO_EMU_DL_MAX_SPAN of its origin, and no trailing bytes.  The
 * last bound is what lets the walk use the core's plain arithmetic: every
 * offset a walk computes lies within a few spans of its tile's origin.
 * The walk checks (with checked arithmetic) each tile's origin and each
 * region, hands out only regions inside [0, RIO_EMU_MAX_OFFSET), and its
 * work is proportional to the stream bytes asked for (every block holds
 * at least one byte).
 *
 * No MPI here (the fuzz targets build with a plain compiler).
 */
#ifndef RIO_EMU_DLWIRE_H
#define RIO_EMU_DLWIRE_H

#include <stddef.h>
#include <stdint.h>

#include "../dloop/dloop.h"
#include "proto.h"

#define RIO_EMU_DL_LEAF 0x1u
#define RIO_EMU_DL_DISPLS 0x2u
#define RIO_EMU_DL_BLOCKLENS 0x4u
#define RIO_EMU_DL_STRUCT 0x8u

#define RIO_EMU_DL_MAX_DEPTH 32
#define RIO_EMU_DL_MAX_NODES 4096
#define RIO_EMU_DL_MAX_COUNT ((int64_t)1 << 40)  /* nblocks, blocklen(s) */
#define RIO_EMU_DL_MAX_DISP ((int64_t)1 << 50)   /* |off|, |stride|, |displs|, |extent| */
#define RIO_EMU_DL_MAX_SIZE ((int64_t)1 << 50)   /* data bytes of one instance */
/* |tlb|, |tub| of every node: far beyond any offset a region may have
 * (RIO_EMU_MAX_OFFSET), and small enough that sums of a few such values
 * and a tile origin cannot overflow */
#define RIO_EMU_DL_MAX_SPAN ((int64_t)1 << 58)

/** A decoded filetype. */
struct rio_emu_dltype {
    int64_t tile_extent;
    struct rio_dl *root;        /* size, depth, prefix, tlb and tub set */
    int nodes, depth;
};

/** Serialize the tree root (normalized or decoded: its arrays and
 *  children as they are held; the facts are left out) with tiles
 *  tile_extent apart.  Local; *out is rio__malloc'ed (free it), *len its
 *  bytes.  0, -EINVAL (root NULL: a type without data), -EMSGSIZE (deeper
 *  than RIO_EMU_DL_MAX_DEPTH), -ENOMEM.  Whether the receiver accepts its
 *  size is the receiver's limit. */
int rio__emu_dl_encode(const struct rio_dl *root, int64_t tile_extent, unsigned char **out,
                       size_t *len);

/** Decode n bytes into *out (free with rio__emu_dl_free).  0, -EBADMSG
 *  (truncated, trailing bytes, bad kind), -EINVAL (a value out of its
 *  limit, an empty block, data farther than RIO_EMU_DL_MAX_SPAN from a
 *  node's origin), -EMSGSIZE (too deep, too many nodes), -ENOMEM. */
int rio__emu_dl_decode(const unsigned char *p, size_t n, struct rio_emu_dltype **out);
/** Free a decoded filetype and its tree (NULL is fine). */
void rio__emu_dl_free(struct rio_emu_dltype *t);

/** Called for each region of a walk, in stream order; a nonzero return
 *  stops the walk and is its result. */
typedef int (*rio_emu_region_fn)(void *arg, int64_t off, int64_t len);

/** The regions of len stream bytes of the view (t tiled without end from
 *  disp), from stream byte pos.  0, the callback's nonzero result, or
 *  -EINVAL when a region would fall outside [0, RIO_EMU_MAX_OFFSET) (or
 *  pos/len/disp are negative). */
int rio__emu_dl_walk(const struct rio_emu_dltype *t, int64_t disp, int64_t pos, int64_t len,
                     rio_emu_region_fn fn, void *arg);

/** Split region [off, off+len) of a file striped over count targets with
 *  unit bytes per stripe and call fn(arg, object offset, bytes) for each
 *  piece on stripes s with s % count == index, in order.  0 or fn's
 *  nonzero result. */
int rio__emu_stripe_pieces(int64_t off, int64_t len, int64_t unit, uint32_t count,
                           uint32_t index, rio_emu_region_fn fn, void *arg);

#endif /* RIO_EMU_DLWIRE_H */
