/*
 * store.h — storage drivers behind one ops table.
 *
 * A driver is a versioned struct of operations, found by the prefix of the
 * file name (drivers.h lists them, one row each; none means posix).  The members marked
 * MANDATORY below are called without a check, so a driver must provide
 * them: rio__store_ops_check refuses a table that lacks one (or carries
 * another .version), and every lookup by name runs it, so a driver with a
 * hole fails its open with RIO_E_DRIVER naming the member instead of
 * calling NULL later.  Every other member left NULL means "not provided":
 * the layer above falls back (list I/O to per-region calls, vectored to
 * plain, no locking, no prefetching).
 *
 * Drivers can wrap one another (wrap.c): a wrapper names its inner driver
 * after its own prefix ("fault:emu:NAME"; posix when none is given), sets
 * .wraps, and provides only the operations it changes; every other one is
 * forwarded to the inner driver, and an optional operation the inner
 * driver lacks is absent from the wrapped file too.
 *
 * Every operation returns 0 (or a byte count) on success and -errno on
 * failure.  Transfers may be short and may fail with -EINTR: callers use
 * the rio__store_*_full helpers, which loop until done, end of file, or a
 * real error.
 */
#ifndef RIO_STORE_H
#define RIO_STORE_H

#include <stdatomic.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "../common/common.h"

/** Striping layout of a file: unit bytes per stripe, count targets,
 *  round-robin from target 0.  count == 1 means a single target.  A file
 *  striped into objects (CephFS) fills object_size: count objects take the
 *  stripes of object_size bytes each (an object set), then the next count
 *  objects; 0 where storage has no objects. */
struct rio_layout {
    long long unit;
    int count;
    int known;  /* 1 when the driver or the striping hints gave it */
    long long object_size;
};

/** A record of the storage requests made while it is attached to a
 *  store (st->trace): one entry per contiguous file region, in issue
 *  order, with the start time of the storage call that carried it on a
 *  clock all processes of a machine share (the regions of one list call
 *  share a time; their order is the entries').  Entries past cap are
 *  counted in dropped, not stored. */
struct rio_store_trace {
    MPI_Offset *off, *len;
    double *t;
    int n, cap;
    long long dropped;
};

/** One region of a file. */
struct rio_region {
    MPI_Offset off;
    MPI_Offset len;
};

struct rio_store;
struct rio_dtype;

/* The .version of every ops table this build accepts. */
#define RIO_STORE_OPS_VERSION 1

struct rio_store_ops {
    const char *name;     /* MANDATORY */
    int version;          /* MANDATORY: RIO_STORE_OPS_VERSION */
    /* MANDATORY.  Open path (prefix already removed).  oflags are open(2)
     * flags; perm the creation mode.  On success sets st->priv, and may set
     * st->ops to a table of its own for this file (wrappers do); left NULL,
     * the caller sets it to this table. */
    int (*open)(struct rio_store *st, const char *path, int oflags, mode_t perm,
                const struct rio_hints *hints);
    /* MANDATORY, these four, sync, pread and pwrite (a wrapper may leave
     * them NULL: forwarded). */
    int (*close)(struct rio_store *st);
    int (*remove)(const char *path, const struct rio_hints *hints);
    int (*get_size)(struct rio_store *st, MPI_Offset *size);
    int (*set_size)(struct rio_store *st, MPI_Offset size);
    /* Make sure storage for [off, off+len) is allocated (posix_fallocate). */
    int (*allocate)(struct rio_store *st, MPI_Offset off, MPI_Offset len);
    int (*sync)(struct rio_store *st);  /* MANDATORY */
    /* MANDATORY */
    ssize_t (*pread)(struct rio_store *st, void *buf, size_t len, MPI_Offset off);
    ssize_t (*pwrite)(struct rio_store *st, const void *buf, size_t len, MPI_Offset off);
    /* Memory gather/scatter, file side contiguous from off. */
    ssize_t (*preadv)(struct rio_store *st, const struct iovec *iov, int iovcnt, MPI_Offset off);
    ssize_t (*pwritev)(struct rio_store *st, const struct iovec *iov, int iovcnt, MPI_Offset off);
    /* List I/O: n file regions, region i to/from mem[i] (mem[i].iov_len ==
     * file[i].len).  All or error: returns 0 or -errno; a read past end of
     * file fills nothing and reports the bytes read through *done (regions
     * in order, stopping at the first short one).  NULL: per-region calls. */
    int (*read_list)(struct rio_store *st, const struct rio_region *file, const struct iovec *mem,
                     int n, MPI_Offset *done);
    int (*write_list)(struct rio_store *st, const struct rio_region *file,
                      const struct iovec *mem, int n);
    /* rio__store_pwrite_shared's write, for a store that keeps it as such
     * (the file layer's capture, which makes it later): all or error, 0 or
     * a negative code.  NULL for drivers and wrappers: the helper stages
     * where the table has RIO_STORE_CAP_PAGE_CACHE, else writes as
     * rio__store_pwrite_full does. */
    int (*pwrite_shared)(struct rio_store *st, const void *buf, size_t len, MPI_Offset off);
    /* Byte-range lock, blocking; exclusive != 0 for a write lock.  len > 0
     * covers [off, off+len); len == 0 covers everything from off on, however
     * far the file grows (fcntl's convention); len < 0 is RIO_E_ARG.  Both
     * or neither: the layer above unlocks what it locked unchecked. */
    int (*lock)(struct rio_store *st, MPI_Offset off, MPI_Offset len, int exclusive);
    int (*unlock)(struct rio_store *st, MPI_Offset off, MPI_Offset len);
    int (*layout)(struct rio_store *st, struct rio_layout *out);
    /* Which server holds each object of a file striped into objects (a
     * layout with object_size): out[i] = the server (Ceph: the primary
     * OSD's id) of object first + i, for n objects, whether or not they
     * exist yet.  0 or -errno.  NULL: storage has no such map, and the
     * collective engine's targets stay stripe columns. */
    int (*servers)(struct rio_store *st, long long first, int n, int *out);
    /* Is this open file descriptor-based and opened with O_DIRECT?  (for
     * the alignment handling of the methods).  NULL means no. */
    int (*is_direct)(struct rio_store *st);
    /* RIO_STORE_NOTE_* bits: things the driver decided on its own that a
     * verbose or stats report should mention.  NULL means none. */
    unsigned (*notes)(struct rio_store *st);
    /* Ask storage to start reading the n regions (ascending) into its
     * cache, without waiting for the data (posix_fadvise WILLNEED; emu: the
     * targets' buffer caches, a read sent after the return is served after
     * the prefetch).  Advisory: the caller may ignore failures.  NULL: no
     * prefetching. */
    int (*prefetch)(struct rio_store *st, const struct rio_region *reg, int n);
    /* Datatype I/O: len bytes of the data stream of a file view — filetype ft
     * tiled without end from displacement disp, starting at stream byte pos —
     * from/to the contiguous buf.  The driver ships ft's dataloop, not an
     * offset list.  Write: 0 or -errno.  Read: 0 or -errno, *done = bytes read
     * before the first short region (end of file).  NULL: the layer above uses
     * list I/O.  Both or neither (the collective engine asks for both). */
    int (*write_view)(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                      MPI_Offset pos, const void *buf, MPI_Offset len);
    int (*read_view)(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                     MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done);
    /* 1 for a wrapper: its open calls rio__store_wrap_open, and each member
     * it leaves NULL forwards to the driver it wraps (wrap.c); a NULL close
     * closes the inner file and frees st->priv, a NULL remove removes
     * through the driver the rest of the name gives. */
    int wraps;
    /* The driver's hints: its own settings struct and key table, which the
     * file layer parses for every file (whatever its prefix, since a
     * wrapper may name this driver inside) and the driver reads with
     * rio__settings_get(st->hints, ops->settings).  NULL: no keys. */
    const struct rio_settings_owner *settings;
    /* RIO_STORE_CAP_* bits: what the layers above may rely on beyond the
     * members present.  0: nothing more.  A wrapper's file has its inner
     * driver's bits (wrap.c), the deferred open its base driver's. */
    unsigned caps;
};

/* Bits of rio_store_ops.caps. */
#define RIO_STORE_CAP_OWN_VIEWS 0x1u /* write_view/read_view are the storage's own datatype
                                        I/O, choosing per request shape between it and list
                                        I/O by measuring (rados:): the independent chooser
                                        hands them noncontiguous requests of small regions,
                                        and reads it would otherwise sieve.
                                        emu's views lack the bit: its independent requests
                                        stay list I/O, as its figures measure them */

#define RIO_STORE_CAP_PAGE_CACHE 0x2u /* transfers copy to or from the kernel's page
                                        cache, some placements of the caller's buffer much
                                        slower than others (rio__store_pread_full).  Not
                                        passed on by wrappers, whose calls count */

/* Bits of rio_store_ops.notes. */
#define RIO_STORE_NOTE_DIRECT_REFUSED 0x1u  /* O_DIRECT asked for, refused by the
                                               file system (tmpfs): buffered I/O */
#define RIO_STORE_NOTE_URING_UNAVAILABLE 0x2u /* io_uring could not be set up:
                                                 per-region list I/O */

/** An open file of a driver.  Owned by the file layer. */
struct rio_store {
    const struct rio_store_ops *ops;
    void *priv;            /* driver's state */
    struct rio_hints *hints; /* borrowed from the file; lives as long as the file */
    rio_stats *stats;      /* borrowed; may be NULL */
    /* One reusable buffer per open file for the layers above (list batches,
     * sieve windows, staged transfers): see rio__store_scratch_get.  Reset
     * by rio__store_open, freed by rio__store_close.  Atomic: a caller and
     * the file's lane may each want it at once (rio__store_scratch_put
     * compares it). */
    _Atomic(void *) scratch;
    size_t scratch_len;
    atomic_int scratch_busy;
    struct rio_store_trace *trace; /* borrowed; NULL when not tracing */
    /* The layout one rank read and every rank uses (rio__store_layout_fix):
     * ranks of one file must plan with the same layout, and a rank whose
     * open is deferred cannot ask its driver without opening. */
    struct rio_layout fixed;
    int has_fixed;
};

/* The storage layer's own hints: the layout assumed for a file whose
 * driver has none to report (keys in store.c). */
struct rio_store_settings {
    long long striping_unit; /* 0 = none */
    int striping_factor;     /* 0 = none */
    long long object_size;   /* 0 = the storage's default */
};
extern const struct rio_settings_owner rio__store_settings_owner;
/** The storage layer's settings in h (its defaults when h is NULL or has
 *  no owners); lives as long as h. */
static inline const struct rio_store_settings *rio__store_settings(const struct rio_hints *h)
{
    return rio__settings_get(h, &rio__store_settings_owner);
}
/** The i-th owner of hints the storage layer brings: its own, then each
 *  driver's of this build (once each, in the prefix table's order); NULL
 *  past the last.  Static storage. */
const struct rio_settings_owner *rio__store_settings_owner_at(int i);

/** Find the driver for a file name.  Sets *path_out to the name without
 *  its prefix (pointer into name).  Returns NULL for an unknown prefix. */
const struct rio_store_ops *rio__store_find(const char *name, const char **path_out);

/** 1 when files of name have byte-range locks (the innermost driver its
 *  prefixes name has lock), else 0; *driver is that driver's name (static).
 *  Local; opens nothing. */
int rio__store_has_locks(const char *name, const char **driver);

/** Open: finds the driver, allocates nothing beyond the driver's state.
 *  Sets st->ops, priv, hints (borrowed: must outlive the open file) and
 *  resets the scratch fields and trace; st->stats is the caller's to set.  On failure
 *  st->ops is NULL and rio__store_close is a harmless no-op.  Errors:
 *  RIO_E_DRIVER for a prefix of a driver not in this build (also after a
 *  wrapper's prefix) or a driver table rio__store_ops_check refuses, -errno from
 *  open(2), RIO_E_ARG for a bad fault spec, RIO_E_NOMEM.  The posix driver
 *  drops O_APPEND (pwrite would ignore its offset; the file layer places
 *  the file pointers at the end itself). */
int rio__store_open(struct rio_store *st, const char *name, int oflags, mode_t perm,
                    struct rio_hints *hints);
/** Close the driver's file and free the scratch buffer; returns the first
 *  error (everything is released regardless). */
int rio__store_close(struct rio_store *st);
/** Delete the named file (prefix handled as by open); -ENOENT if absent. */
int rio__store_remove(const char *name, const struct rio_hints *hints);

/** A buffer of at least len bytes for one call on st: the file's reusable
 *  one when no other thread holds it, else a fresh one.  NULL when out of
 *  memory.  Give it back with rio__store_scratch_put before the call ends. */
void *rio__store_scratch_get(struct rio_store *st, size_t len);
void rio__store_scratch_put(struct rio_store *st, void *p);
/** The driver's RIO_STORE_NOTE_* bits for this open file (0 if none). */
unsigned rio__store_notes(struct rio_store *st);

/* ---- full-transfer helpers: loop over short transfers and EINTR -------
 * Reads stop at end of file; *done is the bytes moved.  A write that makes
 * no progress fails with RIO_E_SHORT.  Each storage call moves at most
 * 1 GiB, so transfers of any size work.  The iovec arrays are not
 * modified.  These helpers are the one place that adds to st->stats'
 * bytes_accessed and time_storage: callers must not count those again.
 * On RIO_STORE_CAP_PAGE_CACHE storage not opened O_DIRECT, a contiguous
 * transfer (pread_full, pwrite_full) of 16 KiB or more whose buffer and
 * file offset lie where the kernel's copy can be slow (store.c: 1-31 bytes
 * apart within a page, as a malloc'd buffer at a page-aligned offset)
 * goes, where rio__store_band says the copy is slow there, in pieces
 * through the file's scratch buffer, counted and traced as one request:
 * 3x faster on a machine where it was slow. */
int rio__store_pread_full(struct rio_store *st, void *buf, size_t len, MPI_Offset off,
                          MPI_Offset *done);
int rio__store_pwrite_full(struct rio_store *st, const void *buf, size_t len, MPI_Offset off);
/** rio__store_pwrite_full for a write that other processes of this host
 *  make to the same file at the same time (a collective call's): on
 *  RIO_STORE_CAP_PAGE_CACHE storage not opened O_DIRECT, one of 16 KiB or
 *  more goes staged, in pieces through the file's scratch buffer, wherever
 *  it lies (store.c says why and what it measured).  A table with
 *  pwrite_shared (a collective call's capture) gets the write. */
int rio__store_pwrite_shared(struct rio_store *st, const void *buf, size_t len, MPI_Offset off);
int rio__store_preadv_full(struct rio_store *st, const struct iovec *iov, int iovcnt,
                           MPI_Offset off,
                           MPI_Offset *done);
int rio__store_pwritev_full(struct rio_store *st, const struct iovec *iov, int iovcnt,
                            MPI_Offset off);
int rio__store_read_list(struct rio_store *st, const struct rio_region *file,
                         const struct iovec *mem, int n, MPI_Offset *done);
int rio__store_write_list(struct rio_store *st, const struct rio_region *file,
                          const struct iovec *mem, int n);

/** Whether the kernel's copy is slow where its destination lies 1-31
 *  bytes past its source within a page, so that a transfer there is
 *  staged, per direction (slow[0] reads, slow[1] writes): RESONIO_STAGE=on
 *  or off says so (forced), else it is measured at the first transfer that
 *  could be staged, once a process, on a memory file's pages: time[wr][0]
 *  the fastest straight copy of 256 KiB in the band, time[wr][1] the
 *  fastest staged one (a copy out of the band and a memcpy), in seconds
 *  (-1 where not measured).  Thread-safe. */
struct rio_band {
    int slow[2];
    int forced;
    double time[2][2];
};
const struct rio_band *rio__store_band(void);
/** rio__store_band's answer if a transfer has settled it, else NULL. */
const struct rio_band *rio__store_band_settled(void);
/** The measurement rio__store_band makes, into *b (for tests). */
void rio__store_band_measure(struct rio_band *b);
/** Datatype I/O through the driver's write_view/read_view, or, when it has
 *  none, list I/O over the view's regions (walked with the dtype iterator,
 *  in batches).  Same contract as the ops; ft must be a valid filetype
 *  (rio__dtype_check_filetype).  Counted in st->stats like the helpers
 *  above; each file region is traced. */
int rio__store_write_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                          MPI_Offset pos, const void *buf, MPI_Offset len);
int rio__store_read_view(struct rio_store *st, const struct rio_dtype *ft, MPI_Offset disp,
                         MPI_Offset pos, void *buf, MPI_Offset len, MPI_Offset *done);
/** Layout: the one fixed by rio__store_layout_fix, else the driver's, else
 *  striping_unit/striping_factor hints, else one target (known = 0). */
void rio__store_layout(struct rio_store *st, struct rio_layout *out);
/** The layout the striping hints (striping_unit, striping_factor,
 *  resonio_object_size) ask of a file striped into objects, taken from cur
 *  for what they leave out, the object size raised to a multiple of the
 *  unit (as CephFS requires).  0 when they ask for nothing (*want
 *  untouched), else 1.  Local. */
int rio__store_layout_wanted(const struct rio_hints *hints, const struct rio_layout *cur,
                             struct rio_layout *want);
/** From now on st's layout is *l (copied), whatever its driver says: the
 *  file layer reads it on one rank at open and gives it to all. */
void rio__store_layout_fix(struct rio_store *st, const struct rio_layout *l);
/** Record one request, issued at time t (rio__now), in st->trace if one is
 *  attached. */
void rio__store_trace_add(struct rio_store *st, MPI_Offset off, MPI_Offset len, double t);

/** The first step of every open: reset st's fields, find the driver for
 *  name (NULL, with a detail, for a prefix this build lacks) and the path
 *  without its prefix. */
const struct rio_store_ops *rio__store_begin(struct rio_store *st, const char *name,
                                             struct rio_hints *hints, const char **path);

/** Deferred open (deferred.c): like rio__store_open, but the driver's
 *  file is opened (without O_CREAT/O_EXCL) only at the first operation
 *  that needs it. */
int rio__store_open_deferred(struct rio_store *st, const char *name, int oflags, mode_t perm,
                             struct rio_hints *hints);
/** 0 while a deferred store has not opened its file yet; 1 otherwise. */
int rio__store_deferred_opened(struct rio_store *st);

/** 0 when ops can serve files: its version is RIO_STORE_OPS_VERSION, every
 *  MANDATORY member is set (a wrapper's forwarded ones excepted), lock and
 *  unlock come as a pair, and so do write_view and read_view.  Else
 *  RIO_E_DRIVER with a detail naming the driver and the member.  Local; run
 *  by every lookup of a driver by name. */
int rio__store_ops_check(const struct rio_store_ops *ops);

/* ---- wrappers (wrap.c) -------------------------------------------------
 * A wrapper's per-file state (st->priv) starts with a struct
 * rio_store_wrap, allocated with rio__malloc/rio__calloc: the forwarding
 * operations find the inner file there, and the default close frees
 * st->priv after closing the inner file. */
struct rio_store_wrap {
    struct rio_store inner;     /* the wrapped driver's open file */
    struct rio_store_ops ops;   /* this file's table (st->ops points here) */
};

/** From a wrapper's open: opens the inner driver — iops, or when NULL the
 *  one named by path's prefix (none: posix; a prefix of a driver this
 *  build lacks: RIO_E_DRIVER) — on the rest of path, with the same flags
 *  and hints, and makes st use w's table: wops' operations where it has
 *  them, forwarders to the inner file elsewhere, and NULL for each
 *  optional operation the inner driver lacks.  On success sets st->priv to
 *  w (the start of the wrapper's state) and st->ops to &w->ops.  Returns 0,
 *  RIO_E_DRIVER for an inner table rio__store_ops_check refuses, or the
 *  inner open's error; then st is untouched, nothing is open, and the
 *  wrapper frees its state. */
int rio__store_wrap_open(struct rio_store *st, struct rio_store_wrap *w,
                         const struct rio_store_ops *wops, const struct rio_store_ops *iops,
                         const char *path, int oflags, mode_t perm,
                         const struct rio_hints *hints);
/** The inner open file of a wrapper's st (borrowed, lives as long as st). */
struct rio_store *rio__store_wrap_inner(struct rio_store *st);
/** Remove through the driver path's prefix names (a wrapper's remove), wrappers
 *  over wrappers included: rio__store_remove on the inner path. */
int rio__store_wrap_remove(const char *path, const struct rio_hints *hints);

/* Each driver of drivers.h (one declaration per prefix: a driver that
 * serves several is declared more than once, which C allows), and the
 * deferred open, which no prefix names. */
#define RIO_STORE_PREFIX(prefix, name) extern const struct rio_store_ops rio__store_##name;
#define RIO_STORE_ABSENT(prefix)
#include "drivers.h"
#undef RIO_STORE_PREFIX
#undef RIO_STORE_ABSENT
extern const struct rio_store_ops rio__store_deferred;

#endif /* RIO_STORE_H */
