/*
 * proto.h — the wire format of the emulated striped storage (resonio-emud).
 *
 * Every message is a fixed 32-byte header followed by a payload of the
 * length the header gives.  All integers are little-endian, whatever the
 * host, so the format is the same on every machine:
 *
 *   u32 magic    RIO_EMU_MAGIC
 *   u16 version  RIO_EMU_VERSION
 *   u16 op       RIO_EMU_OP_* (a reply carries the request's op)
 *   u32 flags    RIO_EMU_F_REPLY on replies; request flags (RIO_EMU_F_EXCL)
 *   i32 status   replies: 0 or -errno; requests: 0
 *   u64 id       chosen by the client, echoed in the reply
 *   u64 length   payload bytes (at most RIO_EMU_MAX_PAYLOAD)
 *
 * Payloads of requests (replies after "->"; "data" is the rest of the
 * payload; every offset is an object offset except for the logical
 * offsets of LOCK and the view of the datatype operations):
 *
 *   HELLO       u64 client                        -> u32 target, u32 ntargets
 *   CREATE      i64 unit, u32 count, name         -> layout
 *   LOOKUP      name                              -> layout
 *   REMOVE      name                              -> layout (of the removed file)
 *   OBJ_REMOVE  u64 fid                           ->
 *   GET_SIZE    u64 fid                           -> i64 object size
 *   SET_SIZE    u64 fid, i64 size                 ->
 *   SYNC        u64 fid                           ->
 *   READ        u64 fid, i64 off, i64 len         -> i64 valid, data[len]
 *   WRITE       u64 fid, i64 off, i64 len, data[len]
 *   READ_LIST   u64 fid, u32 n, n x (i64 off, i64 len)        -> i64 valid, data
 *   WRITE_LIST  u64 fid, u32 n, n x (i64 off, i64 len), data
 *   READ_DT     u64 fid, i64 unit, u32 count, u32 index, i64 disp, i64 pos,
 *               i64 len, u32 dlbytes, dataloop[dlbytes]       -> i64 valid, data
 *   WRITE_DT    the same, then data
 *   LOCK        u64 fid, i64 off, i64 len, u32 exclusive      ->  (when granted)
 *   UNLOCK      u64 fid, i64 off, i64 len                     ->
 *   STATS_GET                                     -> stats
 *   STATS_RESET                                   ->
 *   PREFETCH    u64 fid, u32 n, n x (i64 off, i64 len)        ->  (at arrival)
 *
 * layout = u64 fid, i64 unit, u32 count, u32 first.  Names are 1 to
 * RIO_EMU_MAX_NAME bytes without NUL.  CREATE with RIO_EMU_F_EXCL fails
 * with -EEXIST for an existing name; without it, it returns the existing
 * layout.  A read's "valid" is the number of data bytes, counted in the
 * reply's order, before the first byte past the end of its object (those
 * are sent as zeros).  The datatype operations carry a file view (see
 * dlwire.h): len bytes of the view's data stream from stream byte pos,
 * of which the server keeps the pieces on stripes s with s % count ==
 * index, mapped to object offset (s / count) * unit + offset % unit; the
 * data of WRITE_DT and of the reply to READ_DT is exactly those pieces'
 * bytes in stream order.  PREFETCH asks the target to read the list into
 * its buffer cache: the reply comes as soon as the request is queued (so
 * requests sent after the reply are served after it), the reading takes
 * its turn in the queue like any read, and later reads that fall wholly in
 * cached ranges cost no disk access.  STATS_RESET also empties the cache,
 * as a benchmark drops caches between phases; writes drop what they
 * overlap.
 *
 * Decoding is strict: a header with a bad magic, version, op or length,
 * and a payload whose size does not match its fields exactly, whose counts
 * or offsets exceed the limits below, or whose list entries are negative,
 * is refused with -EPROTO / -EMSGSIZE / -EBADMSG / -EINVAL.  Decoding does
 * not allocate: the request points into the payload.
 *
 * This file and proto.c use no MPI, so the fuzz targets build with a plain
 * compiler.
 */
#ifndef RIO_EMU_PROTO_H
#define RIO_EMU_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define RIO_EMU_MAGIC 0x454f4952u /* "RIOE" */
#define RIO_EMU_VERSION 1
#define RIO_EMU_HDR_SIZE 32

/* ---- limits ---------------------------------------------------------- */
#define RIO_EMU_MAX_DATA ((int64_t)16 << 20)   /* data bytes of one request or reply */
#define RIO_EMU_MAX_LIST 65536                 /* entries of one list request */
#define RIO_EMU_MAX_DL_BYTES ((uint32_t)1 << 20) /* a serialized dataloop */
/* largest payload: a full list, a full dataloop or the data, plus fields */
#define RIO_EMU_MAX_PAYLOAD \
    ((uint64_t)RIO_EMU_MAX_DATA + (uint64_t)RIO_EMU_MAX_LIST * 16 + RIO_EMU_MAX_DL_BYTES + 4096)
#define RIO_EMU_MAX_NAME 1024
#define RIO_EMU_MAX_OFFSET ((int64_t)1 << 50)  /* every offset and end, logical or object */
#define RIO_EMU_MAX_DT_STREAM ((int64_t)64 << 20) /* stream bytes of one datatype request */
#define RIO_EMU_MAX_UNIT ((int64_t)1 << 30)    /* stripe unit */
#define RIO_EMU_MAX_TARGETS 256

/* ---- operations ------------------------------------------------------- */
enum rio_emu_op {
    RIO_EMU_OP_HELLO = 1,
    RIO_EMU_OP_CREATE,
    RIO_EMU_OP_LOOKUP,
    RIO_EMU_OP_REMOVE,
    RIO_EMU_OP_OBJ_REMOVE,
    RIO_EMU_OP_GET_SIZE,
    RIO_EMU_OP_SET_SIZE,
    RIO_EMU_OP_SYNC,
    RIO_EMU_OP_READ,
    RIO_EMU_OP_WRITE,
    RIO_EMU_OP_READ_LIST,
    RIO_EMU_OP_WRITE_LIST,
    RIO_EMU_OP_READ_DT,
    RIO_EMU_OP_WRITE_DT,
    RIO_EMU_OP_LOCK,
    RIO_EMU_OP_UNLOCK,
    RIO_EMU_OP_STATS_GET,
    RIO_EMU_OP_STATS_RESET,
    RIO_EMU_OP_PREFETCH,
    RIO_EMU_OP__COUNT
};

#define RIO_EMU_F_REPLY 0x1u
#define RIO_EMU_F_EXCL 0x2u  /* CREATE: fail if the name exists */

/** A decoded header. */
struct rio_emu_hdr {
    uint16_t version, op;
    uint32_t flags;
    int32_t status;
    uint64_t id;
    uint64_t length;
};

/** A decoded request; pointers borrow the payload it was decoded from. */
struct rio_emu_req {
    struct rio_emu_hdr h;
    uint64_t client, fid;
    int64_t unit, off, len, size, disp, pos;
    uint32_t count, index, exclusive;
    uint32_t n;                     /* list entries */
    const unsigned char *pairs;     /* n x (i64 off, i64 len), read with rio__emu_pair */
    int64_t list_total;             /* sum of the list lengths */
    const char *name;               /* not NUL-terminated */
    uint32_t namelen;
    const unsigned char *dl;        /* serialized dataloop */
    uint32_t dllen;
    const unsigned char *data;      /* write data */
    uint64_t datalen;
};

/** The layout of a logical file, as CREATE/LOOKUP/REMOVE return it. */
struct rio_emu_layout {
    uint64_t fid;
    int64_t unit;
    uint32_t count, first;
};

/** Counters of one target (STATS_GET).  Accesses are the disk accesses
 *  the requests turned into (adjacent pieces of a request merged); an
 *  access is sequential when it starts where the previous one ended, the
 *  first after a reset not judged. */
struct rio_emu_stats {
    uint64_t requests;      /* data requests served */
    uint64_t accesses;
    uint64_t judged;        /* accesses after the first since the reset */
    uint64_t sequential;
    uint64_t bytes_read, bytes_written;
    uint64_t seek_bytes;    /* total head movement, bytes of the modelled disk */
    uint64_t busy_ns;       /* modelled service time (before --time-scale) */
    uint64_t revocations;   /* extent locks revoked by a conflicting access */
    uint64_t log_entries, log_dropped;
    uint64_t rejected;      /* malformed messages refused */
    uint64_t elapsed_ns;    /* wall time since the reset */
    uint64_t cache_hits;    /* reads served from the buffer cache (not accesses) */
};
#define RIO_EMU_STATS_FIELDS 14

/** Name of an op ("write_list"), "?" if unknown. */
const char *rio__emu_op_name(unsigned op);

/* ---- little-endian helpers --------------------------------------------- */
static inline void rio__emu_put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static inline void rio__emu_put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}
static inline uint32_t rio__emu_get32(const unsigned char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)p[i] << (8 * i);
    return v;
}
static inline uint64_t rio__emu_get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/** Encode a header into out[RIO_EMU_HDR_SIZE]. */
void rio__emu_hdr_encode(unsigned char *out, const struct rio_emu_hdr *h);
/** Decode and check a header: 0, -EPROTO (magic, version, unknown op) or
 *  -EMSGSIZE (payload longer than RIO_EMU_MAX_PAYLOAD).  *h is filled
 *  as far as it could be read, even on error (id for the error reply). */
int rio__emu_hdr_decode(const unsigned char *in, struct rio_emu_hdr *h);

/** Decode a request's payload (n bytes) for header h, checking every field
 *  against the limits.  0, or -EBADMSG (sizes do not match the fields),
 *  -EINVAL (a field out of range), -EMSGSIZE (a count past its limit). */
int rio__emu_req_decode(const struct rio_emu_hdr *h, const unsigned char *payload, size_t n,
                        struct rio_emu_req *out);

/** List entry i of a decoded request. */
static inline void rio__emu_pair(const struct rio_emu_req *r, uint32_t i, int64_t *off,
                                 int64_t *len)
{
    *off = (int64_t)rio__emu_get64(r->pairs + (size_t)i * 16);
    *len = (int64_t)rio__emu_get64(r->pairs + (size_t)i * 16 + 8);
}

/* ---- building messages --------------------------------------------------
 * A growable buffer: the put functions append; on allocation failure err
 * is set and later puts do nothing.  Messages start with
 * rio__emu_msg_begin (room for the header) and end with
 * rio__emu_msg_end (fills in the header with the final length). */
struct rio_emu_buf {
    unsigned char *p;
    size_t n, cap;
    int err;  /* -ENOMEM once an allocation failed */
};

void rio__emu_buf_free(struct rio_emu_buf *b);
/** Make room for n more bytes and return a pointer to them (n bytes are
 *  added to b->n), or NULL (b->err set). */
unsigned char *rio__emu_buf_grow(struct rio_emu_buf *b, size_t n);
void rio__emu_put_u32(struct rio_emu_buf *b, uint32_t v);
void rio__emu_put_u64(struct rio_emu_buf *b, uint64_t v);
void rio__emu_put_bytes(struct rio_emu_buf *b, const void *p, size_t n);
void rio__emu_msg_begin(struct rio_emu_buf *b);
/** Write the header of the message in b (its length is b->n minus the
 *  header); returns b->err. */
int rio__emu_msg_end(struct rio_emu_buf *b, unsigned op, uint32_t flags, int32_t status,
                     uint64_t id);

/** Encode/decode a layout (24 bytes) and stats (RIO_EMU_STATS_FIELDS x 8). */
void rio__emu_put_layout(struct rio_emu_buf *b, const struct rio_emu_layout *l);
int rio__emu_get_layout(const unsigned char *p, size_t n, struct rio_emu_layout *l);
void rio__emu_put_stats(struct rio_emu_buf *b, const struct rio_emu_stats *s);
int rio__emu_get_stats(const unsigned char *p, size_t n, struct rio_emu_stats *s);

/* Allocation (src/common/alloc.c): declared here so these files need no
 * MPI header. */
void *rio__malloc(size_t n);
void *rio__calloc(size_t n, size_t size);
void *rio__realloc(void *p, size_t n);

#endif /* RIO_EMU_PROTO_H */
