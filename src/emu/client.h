/*
 * client.h — the client of resonio-emud: connections to the targets of
 * one service directory, and the logical-file operations built on the
 * protocol (proto.h).
 *
 * A service directory D holds emud.conf ("targets N") and one Unix socket
 * per target, D/t<i>.sock.  Target 0 also keeps the metadata: name →
 * layout {fid, unit, count, first}.  A logical file is striped round-robin
 * like Lustre: logical offset o lies in stripe s = o / unit, on target
 * (first + s % count) % N, at object offset (s / count) * unit + o % unit.
 * Its size is computed from the object sizes, as Lustre does.
 *
 * Requests are blocking request/reply, at most one outstanding per
 * connection.  An operation over many regions is split by the layout into
 * one request per target and chunk; the requests of a chunk are all sent
 * before any reply is read, so the targets work in parallel.
 *
 * Every function returns 0 or -errno and, on failure, attaches a detail
 * (rio__err_detail) naming the service directory and target.  A client is
 * used by one thread at a time per call (an internal mutex serialises
 * calls).  A connection that failed stays failed (-EPIPE).
 */
#ifndef RIO_EMU_CLIENT_H
#define RIO_EMU_CLIENT_H

#include <stdint.h>
#include <sys/uio.h>

#include "proto.h"

struct rio_emu_client;

/** Connect to every target of the service in dir.  Fails with -ENOENT
 *  (no emud.conf: no service there), -ECONNREFUSED (a target is not
 *  running), -ENAMETOOLONG, -ENOMEM, with a detail. */
int rio__emu_connect(const char *dir, struct rio_emu_client **out);
/** Close the connections; NULL is fine. */
void rio__emu_disconnect(struct rio_emu_client *cl);
int rio__emu_ntargets(const struct rio_emu_client *cl);

/* ---- metadata (target 0) ------------------------------------------------ */
/** Create name with unit bytes per stripe over count targets (0: the
 *  service's defaults; count is clamped to the number of targets).  With
 *  excl, -EEXIST if it exists; without, the existing layout is returned. */
int rio__emu_create(struct rio_emu_client *cl, const char *name, int64_t unit, int count,
                    int excl, struct rio_emu_layout *out);
/** The layout of name, or -ENOENT. */
int rio__emu_lookup(struct rio_emu_client *cl, const char *name, struct rio_emu_layout *out);
/** Remove name and its objects; -ENOENT if absent. */
int rio__emu_remove(struct rio_emu_client *cl, const char *name);

/* ---- a file's objects ----------------------------------------------------- */
int rio__emu_get_size(struct rio_emu_client *cl, const struct rio_emu_layout *lay,
                      int64_t *size);
/** Truncate or extend every object to the length the logical size implies. */
int rio__emu_set_size(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int64_t size);
int rio__emu_sync(struct rio_emu_client *cl, const struct rio_emu_layout *lay);
/** Byte-range lock of the logical file, kept by target 0; blocks until
 *  granted.  len == 0 covers everything from off on.  Released on unlock
 *  or when the connection closes. */
int rio__emu_lock(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int64_t off,
                  int64_t len, int exclusive);
int rio__emu_unlock(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int64_t off,
                    int64_t len);

/** The next file region of a transfer in stream order: 1 (region set), 0
 *  at the end, or -errno. */
typedef int (*rio_emu_next_fn)(void *arg, int64_t *off, int64_t *len);

/** A file view shipped as a dataloop (dlwire.h): the transfer covers the
 *  view's stream bytes from pos on, and the regions given to rio__emu_rw
 *  must be exactly that stream's file regions. */
struct rio_emu_view {
    const unsigned char *dl;
    size_t dllen;
    int64_t disp, pos;
};

/**
 * Move the bytes of the file regions next() yields, in stream order,
 * to/from the memory stream mem (nmem iovecs, the same total).  Without a
 * view the regions travel as offset lists (READ_LIST/WRITE_LIST, or
 * READ/WRITE for one piece); with one, as the view's dataloop
 * (READ_DT/WRITE_DT) and only the data goes with it.  Writes: 0 or
 * -errno.  Reads: 0 or -errno, *done = stream bytes before the first byte
 * at or past the end of the file (holes inside the file read as zeros);
 * memory after *done is not written.
 */
int rio__emu_rw(struct rio_emu_client *cl, const struct rio_emu_layout *lay, int write,
                rio_emu_next_fn next, void *arg, const struct rio_emu_view *view,
                const struct iovec *mem, int nmem, int64_t *done);

/** Ask the targets to read the file regions next() yields into their
 *  buffer caches (PREFETCH).  Returns once every target has queued its
 *  part, before the reading is done: requests sent afterwards, by any
 *  client, are served after it.  0 or -errno. */
int rio__emu_prefetch(struct rio_emu_client *cl, const struct rio_emu_layout *lay,
                      rio_emu_next_fn next, void *arg);

/* ---- counters ------------------------------------------------------------ */
int rio__emu_stats(struct rio_emu_client *cl, int target, struct rio_emu_stats *out);
int rio__emu_stats_reset(struct rio_emu_client *cl, int target);
/** Sequential fraction of a target's accesses (1.0 when none was judged). */
double rio__emu_seq_fraction(const struct rio_emu_stats *s);

/** One raw request to target t (for tests and tools): payload of n bytes;
 *  *status gets the reply's status, *reply and *rlen its payload (valid until
 *  the next call on cl).  Returns 0 when a well-formed reply came back,
 *  else -errno. */
int rio__emu_call(struct rio_emu_client *cl, int t, unsigned op, uint32_t flags,
                  const void *payload, size_t n, int32_t *status, const unsigned char **reply,
                  size_t *rlen);

#endif /* RIO_EMU_CLIENT_H */
