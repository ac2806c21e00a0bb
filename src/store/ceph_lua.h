/*
 * ceph_lua.h — datatype I/O at a Ceph OSD through the `lua` object class:
 * the request the rados: driver sends to one object of a striped file, and
 * the client half that agrees with it on which bytes go where.
 *
 * Ceph's packaged object class `lua` (method `eval_bufferlist`) runs a Lua
 * 5.3 script that comes with each request, on the OSD that holds the
 * object, inside that object's operation (docs/ceph-lua.md has what was
 * measured).  Instead of a list of offset-length pairs, a request carries
 * the view's filetype as a dataloop in the wire form of src/emu/dlwire.h,
 * the view's displacement, the part of the call's stream range that holds
 * this object's bytes and the file's striping; the script (rio__cls_lua_script, one constant) walks
 * the dataloop over the range, keeps the pieces that fall in this object
 * and writes them from the request's data (the object's bytes of the
 * stream, packed in stream order) or reads them and returns them packed
 * the same way.  The client packs and unpacks with the dataloop core's own
 * walker over the same wire bytes the OSD decodes, so both sides split the
 * stream identically.
 *
 * Striping (CephFS's): block = off / su; stripe = block / sc; object =
 * (stripe / (os / su)) * sc + block % sc; offset in object =
 * (stripe % (os / su)) * su + off % su.
 *
 * The handler input (little-endian):
 *   "RIO1"
 *   i64 mode, su, sc, os, object, disp, pos, len, dllen
 *   u8  dataloop[dllen]       dlwire.h's encoding (tile extent and tree)
 *   u8  data[]                rio_write: this object's stream bytes; rio_read: none
 * wrapped in the class's own envelope (script, handler name, input; see
 * rio__cls_lua_op).  The script checks what dlwire.c's decoder checks
 * (kinds, depth, node count, counts, displacements, spans, sizes, no
 * trailing bytes) and bounds its work: at most RIO_CLS_LUA_MAX_PIECES
 * stripe-unit pieces per request (every region split at stripe-unit
 * edges, in every object), beyond which it answers -E2BIG.  Errors come
 * back as the call's negative errno: -EBADMSG (malformed), -EINVAL (a value
 * out of its limits, or data that do not match), -EMSGSIZE (too deep or
 * too many nodes), -E2BIG, or the OSD's own error of a read or write.
 *
 * The OSD writes the pieces either one class write each (RIO_CLS_LUA_EXTENTS)
 * or, when they ascend without overlap, by reading the object's range
 * from the first piece to the end of the last, patching it and writing it
 * back in the same operation (RIO_CLS_LUA_SPAN: one write; atomic, since
 * an OSD runs one operation on an object at a time); reads likewise.
 * RIO_CLS_LUA_AUTO takes the span when it holds at most 16 times the
 * pieces' bytes.  Bytes past the object's end, and a whole object
 * that does not exist, read as zeros.
 * Send writes inside a write operation (rados_write_op_exec), which may
 * create the object.
 *
 * No MPI and no librados here (the driver sends the request).
 */
#ifndef RIO_STORE_CEPH_LUA_H
#define RIO_STORE_CEPH_LUA_H

#include <stddef.h>
#include <stdint.h>

#include "../dloop/dloop.h"
#include "../emu/dlwire.h"

/* Stripe-unit pieces one request may walk (OSD CPU time is not bounded by
 * the class itself: a walk is). */
#define RIO_CLS_LUA_MAX_PIECES ((int64_t)1 << 22)
/* Largest object size (the class addresses objects with C ints). */
#define RIO_CLS_LUA_MAX_OBJECT ((int64_t)0x7fffffff)

enum rio_cls_lua_mode { RIO_CLS_LUA_AUTO = 0, RIO_CLS_LUA_EXTENTS = 1, RIO_CLS_LUA_SPAN = 2 };

/** The class and method a request goes to (rados_exec, rados_*_op_exec). */
#define RIO_CLS_LUA_CLASS "lua"
#define RIO_CLS_LUA_METHOD "eval_bufferlist"

/** The script every request carries (Lua 5.3, NUL-terminated). */
extern const char rio__cls_lua_script[];

/** A file's striping: stripe unit, stripe count, object size (a multiple
 *  of su, at most RIO_CLS_LUA_MAX_OBJECT). */
struct rio_cls_lua_layout {
    int64_t su, sc, os;
};

/** One call's file side: the filetype on the wire and decoded again
 *  (what the OSD will see), the view and the stream range. */
struct rio_cls_lua_req {
    unsigned char *dl;
    size_t dllen;
    struct rio_emu_dltype *type;
    int64_t disp, pos, len;
    struct rio_cls_lua_layout lay;
};

/** Prepare *r for the stream range [pos, pos+len) of the view (root tiled
 *  tile_extent apart from disp) on a file striped by lay.  Local; free
 *  with rio__cls_lua_req_fini (also after a failure).  0, -EINVAL (bad
 *  layout, negative or too large values, a tree the wire cannot carry),
 *  -EMSGSIZE (too deep), -ENOMEM. */
int rio__cls_lua_req_init(struct rio_cls_lua_req *r, const struct rio_dl *root,
                          int64_t tile_extent, int64_t disp, int64_t pos, int64_t len,
                          const struct rio_cls_lua_layout *lay);
/** Release what rio__cls_lua_req_init allocated (a zeroed *r is fine). */
void rio__cls_lua_req_fini(struct rio_cls_lua_req *r);

/** The objects the range touches, in the order the stream first reaches
 *  them, into objs (room for cap), their number into *n.  0, -ENOSPC
 *  (more than cap objects), -EINVAL (a region outside the limits), -E2BIG
 *  (more pieces than one request may walk). */
int rio__cls_lua_objects(const struct rio_cls_lua_req *r, int64_t *objs, size_t cap,
                         size_t *n);

/** Copy object obj's bytes of the stream from stream (the len bytes of
 *  the range, contiguous) into packed, in stream order; *n receives their
 *  number (packed NULL: only count).  0, -EINVAL, -E2BIG. */
int rio__cls_lua_gather(const struct rio_cls_lua_req *r, int64_t obj, const void *stream,
                        void *packed, size_t *n);
/** The reverse: put the n packed bytes of object obj (a rio_read answer)
 *  where they belong in stream.  0, -EINVAL (n is not this object's byte
 *  count, or a region outside the limits), -E2BIG. */
int rio__cls_lua_scatter(const struct rio_cls_lua_req *r, int64_t obj, const void *packed,
                         size_t n, void *stream);

/** Build the class input for object obj: write (with the n packed bytes
 *  from rio__cls_lua_gather) or read (packed NULL, n 0), in mode.  The
 *  request's stream range is the part of r's from the first to the last
 *  byte of obj (a walk of r here).
 *  *op is rio__malloc'ed (free it), *oplen its bytes; send it to method
 *  RIO_CLS_LUA_METHOD of class RIO_CLS_LUA_CLASS on that object.  A read
 *  answers this object's bytes of the stream, packed.  0, -EINVAL,
 *  -E2BIG (see rio__cls_lua_gather), -EMSGSIZE (too large for the
 *  class's 32-bit lengths), -ENOMEM. */
int rio__cls_lua_op(const struct rio_cls_lua_req *r, int64_t obj, int write,
                    enum rio_cls_lua_mode mode, const void *packed, size_t n,
                    unsigned char **op, size_t *oplen);

#endif /* RIO_STORE_CEPH_LUA_H */
