/*
 * emud.h — private declarations of resonio-emud, the emulated striped
 * storage: the command line (emud.c), one target's server (serve.c) and
 * the service-time model (model.c).
 *
 * A service directory D holds emud.conf ("targets N" and the options of
 * the start), and per target i: the socket t<i>.sock, the pid file
 * t<i>.pid, the log t<i>.log, the data directory t<i>/ (one object file
 * per logical file, <fid>.obj; target 0 also meta.tab), and, written at
 * shutdown, t<i>.csv (one line per disk access: arrival time, client, op,
 * file id, object offset, length) and t<i>.stats.csv (the counters).
 */
#ifndef RIO_EMUD_H
#define RIO_EMUD_H

#include <stdint.h>

#include "emu/proto.h"

enum emud_model { MODEL_NONE, MODEL_HDD, MODEL_SSD };

/** Options of a target (the defaults are set by emud_cfg_defaults). */
struct emud_cfg {
    enum emud_model model;
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
    double cache_mib;     /* buffer cache filled by PREFETCH (0: none) */
    double cache_mbs;     /* reads from the cache, MB/s (plus the per-access overhead) */
    double time_scale;    /* modelled times are waited for times this */
    int elevator;         /* pending requests the scheduler chooses among (1: FIFO) */
    double stall_s;       /* a connection stopped this long inside a message is closed */
    long log_cap;         /* accesses kept in the arrival log */
};

void emud_cfg_defaults(struct emud_cfg *c);
const char *emud_model_name(enum emud_model m);

/** The modelled disk of one target: head position and read-ahead. */
struct emud_disk {
    int64_t head;        /* disk address after the last access; -1 before the first */
    int64_t ra_lo, ra_hi; /* read-ahead buffer contents */
    int64_t ra_cap;       /* ra_hi may grow to this while the disk is idle */
    double idle;          /* seconds the disk was idle before the next access */
};

/** Seconds one access of len bytes at disk address addr takes, moving the
 *  head; *seq is set when the access starts where the previous ended,
 *  *seek to the head movement in bytes.  d->idle (set by the caller, then
 *  consumed) is the time the disk spent reading ahead before the access. */
double emud_model_access(const struct emud_cfg *c, struct emud_disk *d, int64_t addr,
                         int64_t len, int write, int *seq, int64_t *seek);
/** Disk address of object offset off of file fid. */
int64_t emud_model_addr(const struct emud_cfg *c, uint64_t fid, int64_t off);

/** Run target `index` of the service in dir in the foreground until
 *  SIGTERM/SIGINT; returns the exit status. */
int emud_serve(const char *dir, int index, int ntargets, const struct emud_cfg *cfg);

#endif /* RIO_EMUD_H */
