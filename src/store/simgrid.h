/*
 * simgrid.h — what the simgrid: driver (simgrid.c, built only for SMPI)
 * tells a program about its simulated storage targets: the same
 * counters resonio-emud writes to t<i>.stats.csv, in simulated time.
 */
#ifndef RIO_STORE_SIMGRID_H
#define RIO_STORE_SIMGRID_H

#include <stdint.h>

/** The counters of one simulated target since the simulation started (or
 *  since rio__simgrid_stats_reset). */
struct rio_simgrid_stats {
    char host[64];          /* the simulated host serving the target */
    const char *model;      /* "hdd", "ssd" or "none" (static) */
    uint64_t requests;      /* requests served */
    uint64_t accesses;      /* disk accesses (adjacent pieces merged) */
    uint64_t judged;        /* accesses after the first: those sequentiality counts */
    uint64_t sequential;    /* of those, starting where the previous ended */
    uint64_t seek_bytes;    /* head movement */
    double busy_s;          /* simulated seconds the target served requests */
    uint64_t revocations;   /* extent locks revoked */
    uint64_t cache_hits;    /* reads served from the buffer cache */
    uint64_t bytes_read, bytes_written;
    uint64_t checksum;      /* of the bytes written, when the data is not kept */
};

/** The number of simulated targets started so far (by the first open of a
 *  simgrid: file), at most max of them copied to out, in target order.
 *  Local; callable from any rank at any time. */
int rio__simgrid_stats(struct rio_simgrid_stats *out, int max);
/** Zero every started target's counters (the disk's head and caches
 *  stay).  Local: call it from one rank between collective phases. */
void rio__simgrid_stats_reset(void);

/** The number of simulated hosts carrying the property resonio_storage
 *  (the targets found when the hint resonio_simgrid_targets is unset).
 *  Local. */
int rio__simgrid_storage_hosts(void);

/** Size of the simgrid: file name (without its prefix) of the targets
 *  started so far, or -1 when there is none.  Local; no simulated time. */
long long rio__simgrid_file_size(const char *name);
/** Read [off, off+len) of file name straight from the targets' objects,
 *  bypassing the simulation (no simulated time, no counters), for a check
 *  that must not trust the driver's client: bytes inside the file that no
 *  object holds read as zero.  The bytes read (fewer at the end of the
 *  file), or -1 when there is no such file or its data was not kept
 *  (resonio_simgrid_data=checksum).  Local. */
long long rio__simgrid_file_pread(const char *name, void *buf, long long len, long long off);

#endif /* RIO_STORE_SIMGRID_H */
