/*
 * model.h — the service-time model of one storage target's disk, shared
 * by resonio-emud (which waits the modelled times in real time) and the
 * simgrid: driver (which charges them as simulated time): the same
 * request stream costs the same on both.
 *
 * Three parts, each a plain state struct the caller owns and the
 * functions here update: the disk (head position and read-ahead,
 * rio__emu_model_access), the extent-lock model of one object
 * (rio__emu_model_lock: an access to a range another client holds
 * locked, one of them writing, revokes that lock at a cost, as Lustre's
 * lock manager would) and the I/O node's buffer cache (which ranges are
 * cached; filled by prefetches, hit by reads wholly inside one range).
 * MPI-free: resonio-emud links it without an MPI library.
 */
#ifndef RIO_EMU_MODEL_H
#define RIO_EMU_MODEL_H

#include <stdint.h>

enum rio_emu_model_kind { RIO_EMU_MODEL_NONE, RIO_EMU_MODEL_HDD, RIO_EMU_MODEL_SSD };

/** The parameters of a target's disk (defaults: rio__emu_model_defaults). */
struct rio_emu_disk_cfg {
    enum rio_emu_model_kind model;
    double seek_ms;       /* hdd: average seek over the whole disk */
    double track_ms;      /* hdd: track-to-track seek (shortest) */
    double rpm;           /* hdd: spindle speed; half a turn is the rotational latency */
    double rate_mbs;      /* hdd: media rate, MB/s (10^6) */
    double track_kib;     /* hdd: forward gaps up to this are passed over, not sought */
    double readahead_kib; /* hdd: read-ahead buffer after each read */
    double overhead_us;   /* hdd and ssd: per-access command overhead */
    double capacity_gb;   /* hdd: disk size, GB, for seek distances */
    double ssd_lat_us, ssd_mbs;
    double revoke_us;     /* extent-lock revocation cost (hdd and ssd) */
    double cache_mib;     /* buffer cache filled by prefetches (0: none) */
    double cache_mbs;     /* reads from the cache, MB/s (plus the per-access overhead) */
};

/** Fill c with the defaults of the model's header comment (model none). */
void rio__emu_model_defaults(struct rio_emu_disk_cfg *c);
/** "hdd", "ssd" or "none" (static). */
const char *rio__emu_model_name(enum rio_emu_model_kind m);
/** The model a name gives: 0 and *m set for "hdd", "ssd" or "none", else -1. */
int rio__emu_model_parse(const char *name, enum rio_emu_model_kind *m);
/** Set the parameter `name` (a field of rio_emu_disk_cfg but model, e.g.
 *  "rate_mbs") to v: 0, -1 for an unknown name, -2 for a value out of its
 *  range (c unchanged). */
int rio__emu_model_set(struct rio_emu_disk_cfg *c, const char *name, double v);
/** The k-th parameter's name for rio__emu_model_set and its range [*lo,
 *  *hi]; NULL past the last. */
const char *rio__emu_model_param(int k, double *lo, double *hi);
/** The k-th parameter's value in c (k below the count rio__emu_model_param
 *  gives names for). */
double rio__emu_model_value(const struct rio_emu_disk_cfg *c, int k);

/** The modelled disk of one target: head position and read-ahead.  Start
 *  it as {.head = -1}. */
struct rio_emu_disk {
    int64_t head;        /* disk address after the last access; -1 before the first */
    int64_t ra_lo, ra_hi; /* read-ahead buffer contents */
    int64_t ra_cap;       /* ra_hi may grow to this while the disk is idle */
    double idle;          /* seconds the disk was idle before the next access */
};

/** Seconds one access of len bytes at disk address addr takes, moving the
 *  head; *seq is set when the access starts where the previous ended,
 *  *seek to the head movement in bytes.  d->idle (set by the caller, then
 *  consumed) is the time the disk spent reading ahead before the access. */
double rio__emu_model_access(const struct rio_emu_disk_cfg *c, struct rio_emu_disk *d,
                             int64_t addr, int64_t len, int write, int *seq, int64_t *seek);
/** Disk address of object offset off of file fid. */
int64_t rio__emu_model_addr(const struct rio_emu_disk_cfg *c, uint64_t fid, int64_t off);

#define RIO_EMU_MAX_XLOCKS 256 /* extent locks kept per object; the oldest go first */

struct rio_emu_xlock {
    uint64_t client;
    int64_t lo, hi;
    int write;
};
/** The extent locks clients hold on one object.  Start it zeroed. */
struct rio_emu_xlocks {
    struct rio_emu_xlock l[RIO_EMU_MAX_XLOCKS];
    int n;
};

/** The lock model for one access of client to [lo, hi): revokes the
 *  conflicting locks of other clients (counted in *revocations), then
 *  gives client a lock over the range (grown from one it holds).  Returns
 *  the seconds the revocations cost (0 for model none). */
double rio__emu_model_lock(const struct rio_emu_disk_cfg *c, struct rio_emu_xlocks *x,
                           uint64_t client, int64_t lo, int64_t hi, int write,
                           uint64_t *revocations);

#define RIO_EMU_MAX_CACHED 4096 /* ranges in the buffer cache */

struct rio_emu_cext {
    uint64_t fid;
    int64_t lo, hi;
    unsigned long used;
};
/** The ranges of objects a target's buffer cache holds (no data: the data
 *  is wherever the target keeps its objects).  Start it zeroed. */
struct rio_emu_cache {
    struct rio_emu_cext e[RIO_EMU_MAX_CACHED]; /* disjoint; adjacent ranges merged */
    int n;
    int64_t bytes;
    unsigned long tick;
};

/** Add [lo, hi) of object fid (a prefetch), dropping the least recently
 *  used ranges while the cache would exceed c->cache_mib; a range larger
 *  than the cache is not kept. */
void rio__emu_cache_add(const struct rio_emu_disk_cfg *c, struct rio_emu_cache *k, uint64_t fid,
                        int64_t lo, int64_t hi);
/** Drop [lo, hi) of object fid (a write, a truncation, a removal). */
void rio__emu_cache_drop(struct rio_emu_cache *k, uint64_t fid, int64_t lo, int64_t hi);
/** 1 when [lo, hi) of object fid lies inside one cached range (marked
 *  used), else 0. */
int rio__emu_cache_hit(struct rio_emu_cache *k, uint64_t fid, int64_t lo, int64_t hi);
/** Seconds a read of len bytes from the cache takes (0 for model none). */
double rio__emu_cache_time(const struct rio_emu_disk_cfg *c, int64_t len);

#endif /* RIO_EMU_MODEL_H */
