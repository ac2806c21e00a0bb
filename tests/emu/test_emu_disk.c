/*
 * test_emu_disk.c — the hdd model's read-ahead, access by access.
 *
 * The drive reads ahead after a read only while it is idle: a request
 * that was queued behind the previous one finds nothing read ahead, one
 * that arrives after an idle gap finds what the media rate allowed in the
 * gap (at most the read-ahead size).  That is what makes in-order service
 * by one client pay off and concurrent clients' interleaved requests not
 * (resonant-io.txt §1.2).  The model is called directly, with given idle
 * times.
 *
 * Usage: test_emu_disk
 */
#include "emu/model.h"

#include <math.h>

#include "../unit/unit.h"

#define KIB 1024
#define MS 1e-3

static struct rio_emu_disk_cfg cfg;

static struct rio_emu_disk fresh(void)
{
    return (struct rio_emu_disk){.head = -1};
}

/* Seconds for one access after idle seconds of idling. */
static double access_after(struct rio_emu_disk *d, double idle, int64_t addr, int64_t len, int write)
{
    int seq;
    int64_t seek;
    d->idle = idle;
    return rio__emu_model_access(&cfg, d, addr, len, write, &seq, &seek);
}

static int near(double a, double b)
{
    return fabs(a - b) <= 1e-3 * b + 1e-9;
}

int main(void)
{
    rio__emu_model_defaults(&cfg);
    cfg.model = RIO_EMU_MODEL_HDD;
    const int64_t A = (int64_t)1 << 30, L = 256 * KIB, RA = (int64_t)cfg.readahead_kib * KIB;
    const double over = cfg.overhead_us * 1e-6, media = (double)L / (cfg.rate_mbs * 1e6),
                 bus = (double)L / 300e6;
    struct rio_emu_disk d;
    double t;

    /* in order, each request waiting behind the last: the media rate */
    d = fresh();
    access_after(&d, 0, A, L, 0);
    t = access_after(&d, 0, A + L, L, 0);
    CHECK(near(t, over + media), "queued sequential read: %.3f ms, %.3f expected", t / MS,
          (over + media) / MS);

    /* in order after a long idle gap: read ahead, served over the bus */
    d = fresh();
    access_after(&d, 0, A, L, 0);
    t = access_after(&d, 1.0, A + L, L, 0);
    CHECK(near(t, over + bus), "sequential read after idling: %.3f ms, %.3f expected", t / MS,
          (over + bus) / MS);
    /* the read-ahead stops at its size past the last read */
    t = access_after(&d, 1.0, A + 2 * L + RA, L, 0);
    CHECK(near(t, over + media), "read just past the read-ahead: %.3f ms, %.3f expected", t / MS,
          (over + media) / MS);

    /* a short idle gap: only what the media rate filled in it is buffered */
    d = fresh();
    access_after(&d, 0, A, L, 0);
    double gap = 1 * MS, filled = gap * cfg.rate_mbs * 1e6;
    t = access_after(&d, gap, A + L, L, 0);
    double want = over + filled / 300e6 + ((double)L - filled) / (cfg.rate_mbs * 1e6);
    CHECK(fabs(t - want) < 0.01 * MS, "read after 1 ms idle: %.3f ms, %.3f expected", t / MS,
          want / MS);

    /* two clients' interleaved requests, queued: out of order costs a seek */
    d = fresh();
    access_after(&d, 0, A + L, L, 0);
    t = access_after(&d, 0, A, L, 0);
    CHECK(t > over + media + 4 * MS, "queued backward read: %.3f ms, a seek and half a turn "
          "expected", t / MS);
    /* the same after idling: the earlier range was never read ahead */
    d = fresh();
    access_after(&d, 0, A + L, L, 0);
    t = access_after(&d, 1.0, A, L, 0);
    CHECK(t > over + media + 4 * MS, "backward read after idling: %.3f ms", t / MS);
    /* skipping forward within a track passes over the gap at the media rate */
    d = fresh();
    access_after(&d, 0, A, L, 0);
    t = access_after(&d, 0, A + 2 * L, L, 0);
    CHECK(near(t, over + 2 * media), "queued read one range ahead: %.3f ms, %.3f expected",
          t / MS, (over + 2 * media) / MS);

    /* a write ends the read-ahead */
    d = fresh();
    access_after(&d, 0, A, L, 0);
    access_after(&d, 1.0, A + 64 * (int64_t)KIB * KIB, 4 * KIB, 1);
    t = access_after(&d, 1.0, A + L, L, 0);
    CHECK(t > over + media + 4 * MS, "read after a write elsewhere: %.3f ms", t / MS);

    /* writes never hit the read-ahead */
    d = fresh();
    access_after(&d, 0, A, L, 0);
    t = access_after(&d, 1.0, A + L, L, 1);
    CHECK(t >= over + media - 1e-9, "write into read-ahead data: %.3f ms", t / MS);

    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
