/*
 * model.c — how long a target's disk takes for one access, and the
 * extent-lock and buffer-cache models around it (contracts in model.h).
 *
 * hdd: a 7200 rpm SATA disk as in the papers' testbeds.  An access that
 * starts where the last one ended costs only the transfer at the media
 * rate (the head is there, the sectors come round in order).  After a
 * read the drive goes on reading ahead at the media rate while it is idle,
 * up to its read-ahead size; a read of data already read ahead costs a bus
 * transfer, and the head is where the read-ahead stopped.  A request that
 * arrives while the drive is busy therefore finds nothing read ahead: only
 * a drive left alone between requests (one client reading in order) gains
 * from read-ahead.  A short forward gap (within about a track) is passed over at
 * the media rate.  Anything else pays a seek growing with the square root
 * of the distance (the usual fit: track-to-track at the shortest, the
 * average over the whole disk as given), plus half a revolution of
 * rotational latency, plus the transfer.  Every access also pays a fixed
 * command overhead, so many small sequential requests still cost more
 * than one large one.
 *
 * Defaults: average seek 8 ms, track-to-track 0.8 ms, 7200 rpm (4.17 ms
 * half turn), 70 MB/s media rate, 0.1 ms overhead, 1 MiB read-ahead and
 * track, 500 GB.  A random 4 KiB write over a small file then takes about
 * 5.3 ms (0.8 MB/s; orthrus.txt Table 1 measured 0.8 MB/s), and
 * sequential 1 MiB requests run at about 69 MB/s.
 *
 * ssd: a fixed latency plus the transfer at a bandwidth; none: 0.
 *
 * Objects are laid out on the modelled disk at fixed spacing by file id,
 * so the same file's objects of consecutive ids are close, as a fresh file
 * system would allocate them.
 */
#include "model.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Contract in model.h. */
void rio__emu_model_defaults(struct rio_emu_disk_cfg *c)
{
    c->model = RIO_EMU_MODEL_NONE;
    c->seek_ms = 8.0;
    c->track_ms = 0.8;
    c->rpm = 7200;
    c->rate_mbs = 70;
    c->track_kib = 1024;
    c->readahead_kib = 1024;
    c->overhead_us = 100;
    c->capacity_gb = 500;
    c->ssd_lat_us = 80;
    c->ssd_mbs = 500;
    c->revoke_us = 1000;
    c->cache_mib = 256;
    c->cache_mbs = 1000;
}

/* Contract in model.h. */
const char *rio__emu_model_name(enum rio_emu_model_kind m)
{
    return m == RIO_EMU_MODEL_HDD ? "hdd" : m == RIO_EMU_MODEL_SSD ? "ssd" : "none";
}

/* Contract in model.h. */
int rio__emu_model_parse(const char *name, enum rio_emu_model_kind *m)
{
    for (int k = RIO_EMU_MODEL_NONE; k <= RIO_EMU_MODEL_SSD; k++)
        if (!strcmp(name, rio__emu_model_name((enum rio_emu_model_kind)k))) {
            *m = (enum rio_emu_model_kind)k;
            return 0;
        }
    return -1;
}

/* The disk's parameters by name, with the range each may take. */
static const struct {
    const char *name;
    size_t off;
    double lo, hi;
} params[] = {
#define P(f, lo, hi) {#f, offsetof(struct rio_emu_disk_cfg, f), lo, hi}
    P(seek_ms, 0, 1e4),     P(track_ms, 0, 1e4),      P(rpm, 1, 1e6),
    P(rate_mbs, 1e-3, 1e9), P(track_kib, 0, 1e9),     P(readahead_kib, 0, 1e9),
    P(overhead_us, 0, 1e9), P(capacity_gb, 1e-3, 1e9), P(ssd_lat_us, 0, 1e9),
    P(ssd_mbs, 1e-3, 1e9),  P(revoke_us, 0, 1e9),     P(cache_mib, 0, 1e7),
    P(cache_mbs, 1e-3, 1e9),
#undef P
};

/* Contract in model.h. */
int rio__emu_model_set(struct rio_emu_disk_cfg *c, const char *name, double v)
{
    for (size_t k = 0; k < sizeof params / sizeof params[0]; k++)
        if (!strcmp(name, params[k].name)) {
            if (!(v >= params[k].lo && v <= params[k].hi))
                return -2;
            *(double *)((char *)c + params[k].off) = v;
            return 0;
        }
    return -1;
}

/* Contract in model.h. */
double rio__emu_model_value(const struct rio_emu_disk_cfg *c, int k)
{
    return *(const double *)((const char *)c + params[k].off);
}

/* Contract in model.h. */
const char *rio__emu_model_param(int k, double *lo, double *hi)
{
    if (k < 0 || k >= (int)(sizeof params / sizeof params[0]))
        return NULL;
    *lo = params[k].lo;
    *hi = params[k].hi;
    return params[k].name;
}

#define OBJ_SLOTS 256

/* Contract in model.h. */
int64_t rio__emu_model_addr(const struct rio_emu_disk_cfg *c, uint64_t fid, int64_t off)
{
    int64_t span = (int64_t)(c->capacity_gb * 1e9 / OBJ_SLOTS);
    return (int64_t)(fid % OBJ_SLOTS) * span + off;
}

/* Contract in model.h. */
double rio__emu_model_access(const struct rio_emu_disk_cfg *c, struct rio_emu_disk *d,
                             int64_t addr, int64_t len, int write, int *seq, int64_t *seek)
{
    double t = 0, xfer;
    *seq = d->head >= 0 && addr == d->head;
    if (c->model == RIO_EMU_MODEL_HDD && d->ra_hi > d->ra_lo && d->idle > 0) {
        /* the read-ahead went on while the disk was idle */
        double more = d->idle * c->rate_mbs * 1e6;
        d->ra_hi = more >= (double)(d->ra_cap - d->ra_hi) ? d->ra_cap : d->ra_hi + (int64_t)more;
    }
    d->idle = 0;
    /* the head: where the last access ended, or where the read-ahead stopped */
    int64_t head = d->ra_hi > d->ra_lo ? max64(d->head, d->ra_hi) : d->head;
    int64_t dist = head < 0 ? 0 : llabs(addr - head);
    *seek = d->head < 0 ? 0 : llabs(addr - d->head);
    switch (c->model) {
    case RIO_EMU_MODEL_NONE:
        break;
    case RIO_EMU_MODEL_SSD:
        t = c->ssd_lat_us * 1e-6 + (double)len / (c->ssd_mbs * 1e6);
        break;
    case RIO_EMU_MODEL_HDD:
        xfer = (double)len / (c->rate_mbs * 1e6);
        t = c->overhead_us * 1e-6;
        if (!write && addr >= d->ra_lo && addr < d->ra_hi) {
            /* from the drive's buffer over the bus; the rest follows at the media rate */
            int64_t buffered = len < d->ra_hi - addr ? len : d->ra_hi - addr;
            t += (double)buffered / 300e6 + (double)(len - buffered) / (c->rate_mbs * 1e6);
        } else if (head >= 0 && addr == head) {
            t += xfer;
        } else if (head >= 0 && addr > head && addr - head <= c->track_kib * 1024) {
            t += (double)(addr - head) / (c->rate_mbs * 1e6) + xfer;
        } else {
            /* seek(x) = track + (full - track) * sqrt(x), x = distance / capacity;
             * the mean of sqrt(|u - v|) over uniform u, v is 8/15 */
            double full = c->track_ms + (c->seek_ms - c->track_ms) * 15.0 / 8.0;
            double x = (double)dist / (c->capacity_gb * 1e9);
            if (x > 1)
                x = 1;
            t += (c->track_ms + (full - c->track_ms) * sqrt(x)) * 1e-3;
            t += 30.0 / c->rpm; /* half a revolution */
            t += xfer;
        }
        break;
    }
    d->head = addr + len;
    if (!write) { /* the buffer holds this read; read-ahead continues from its end */
        int64_t ra = (int64_t)(c->readahead_kib * 1024);
        if (addr >= d->ra_lo && addr < d->ra_hi) {
            d->ra_hi = max64(d->ra_hi, addr + len);
        } else {
            d->ra_lo = addr;
            d->ra_hi = addr + len;
        }
        d->ra_cap = max64(d->ra_hi, addr + len + ra);
        d->ra_lo = max64(d->ra_lo, d->ra_hi - ra - len); /* the buffer's size */
    } else {
        d->ra_lo = d->ra_hi = d->ra_cap = 0; /* the drive stops reading ahead */
    }
    return t;
}

/* ---- the extent-lock model -------------------------------------------------- */

/* Contract in model.h. */
double rio__emu_model_lock(const struct rio_emu_disk_cfg *c, struct rio_emu_xlocks *x,
                           uint64_t client, int64_t lo, int64_t hi, int write,
                           uint64_t *revocations)
{
    double t = 0;
    for (int i = 0; i < x->n;) {
        struct rio_emu_xlock *l = &x->l[i];
        if (l->client != client && l->lo < hi && lo < l->hi && (write || l->write)) {
            (*revocations)++;
            if (c->model != RIO_EMU_MODEL_NONE)
                t += c->revoke_us * 1e-6;
            *l = x->l[--x->n];
            continue;
        }
        if (l->client == client && l->write == write && l->lo <= hi && lo <= l->hi) {
            /* grow this client's lock rather than adding one */
            if (l->lo < lo)
                lo = l->lo;
            if (l->hi > hi)
                hi = l->hi;
            *l = x->l[--x->n];
            continue;
        }
        i++;
    }
    if (x->n == RIO_EMU_MAX_XLOCKS) /* forget the oldest */
        memmove(x->l, x->l + 1, sizeof x->l[0] * (RIO_EMU_MAX_XLOCKS - 1)), x->n--;
    x->l[x->n++] = (struct rio_emu_xlock){client, lo, hi, write};
    return t;
}

/* ---- the buffer cache ---------------------------------------------------------
 * Only which ranges are cached is kept: prefetches add, reads wholly
 * inside one cached range are hits, writes and removals drop what they
 * overlap, and the least recently used ranges go when the cache is over
 * its size. */

static void cache_remove(struct rio_emu_cache *k, int i)
{
    k->bytes -= k->e[i].hi - k->e[i].lo;
    k->e[i] = k->e[--k->n];
}

/* Contract in model.h. */
void rio__emu_cache_drop(struct rio_emu_cache *k, uint64_t fid, int64_t lo, int64_t hi)
{
    for (int i = 0; i < k->n;) {
        struct rio_emu_cext *e = &k->e[i];
        if (e->fid != fid || e->hi <= lo || hi <= e->lo) {
            i++;
            continue;
        }
        if (e->lo < lo && hi < e->hi && k->n < RIO_EMU_MAX_CACHED) {
            /* a hole in the middle: keep both sides */
            k->e[k->n++] = (struct rio_emu_cext){fid, hi, e->hi, e->used};
            k->bytes -= e->hi - lo;
            e->hi = lo;
            i++;
        } else if (e->lo < lo) {
            k->bytes -= e->hi - lo;
            e->hi = lo;
            i++;
        } else if (hi < e->hi) {
            k->bytes -= hi - e->lo;
            e->lo = hi;
            i++;
        } else {
            cache_remove(k, i);
        }
    }
}

/* Contract in model.h. */
void rio__emu_cache_add(const struct rio_emu_disk_cfg *c, struct rio_emu_cache *k, uint64_t fid,
                        int64_t lo, int64_t hi)
{
    int64_t cap = (int64_t)(c->cache_mib * 1048576.0);
    if (hi - lo > cap)
        return;
    rio__emu_cache_drop(k, fid, lo, hi);
    for (int i = 0; i < k->n;) { /* absorb the neighbours */
        struct rio_emu_cext *e = &k->e[i];
        if (e->fid == fid && (e->hi == lo || e->lo == hi)) {
            lo = e->lo < lo ? e->lo : lo;
            hi = e->hi > hi ? e->hi : hi;
            cache_remove(k, i);
        } else {
            i++;
        }
    }
    while (k->n > 0 && (k->n == RIO_EMU_MAX_CACHED || k->bytes + (hi - lo) > cap)) {
        int old = 0;
        for (int i = 1; i < k->n; i++)
            if (k->e[i].used < k->e[old].used)
                old = i;
        cache_remove(k, old);
    }
    k->e[k->n++] = (struct rio_emu_cext){fid, lo, hi, ++k->tick};
    k->bytes += hi - lo;
}

/* Contract in model.h. */
int rio__emu_cache_hit(struct rio_emu_cache *k, uint64_t fid, int64_t lo, int64_t hi)
{
    for (int i = 0; i < k->n; i++)
        if (k->e[i].fid == fid && k->e[i].lo <= lo && hi <= k->e[i].hi) {
            k->e[i].used = ++k->tick;
            return 1;
        }
    return 0;
}

/* Contract in model.h. */
double rio__emu_cache_time(const struct rio_emu_disk_cfg *c, int64_t len)
{
    if (c->model == RIO_EMU_MODEL_NONE)
        return 0;
    return c->overhead_us * 1e-6 + (double)len / (c->cache_mbs * 1e6);
}
