/*
 * run.c — running one workload point under every selected implementation.
 *
 * Buffers are made once per point and reused by every round, because
 * first touching new memory is expensive here (5-13 us per 4 KiB page) and
 * would otherwise be measured: the write buffer (the workload's memory
 * layout), the read buffer, and for `limit` one contiguous slice of the
 * same bytes.  Gaps of noncontiguous memory hold a sentinel in both
 * buffers, so one memcmp checks the data read and that the gaps were left
 * alone.  The data differ in every round (bench_pattern's salt), so a late
 * write or a stale cache from an earlier round cannot pass for this one;
 * the buffers are refilled before each round, outside the timing.
 *
 * Rounds alternate between the implementations (A B C ... A B C ...).
 * Round 0 is a probe: verified like every round, not timed, and the only
 * one that asks rio_coll_last after every call and rio_stats_get before
 * close (both would perturb the timing).  Every round of a resonio
 * implementation asks its selector, once before close, what it spent
 * selecting (rio_select_get: local, a copy of under 1 KiB per signature, so
 * the timed rounds give both the throughput and the selector's cost).
 * Every round writes a new file
 * (the old one is unlinked first), times the calls and the close from a
 * barrier (slowest rank), reads it back the same way into the cleared read
 * buffer, compares, and checks the file with POSIX reads against the
 * pattern.  `limit` writes and reads the same number of bytes with large
 * sequential pwrite/pread, each rank one contiguous 1/N of a new file.
 *
 * On the emulated storage (-storage emu) the file is emu:<name> in the
 * run's service, deleted through resonio between rounds, and the check
 * reads the service's object files instead (emu.c).  Around every phase
 * rank 0 resets the targets' counters (after a barrier: every rank is
 * done with the previous phase) and reads them after the close, outside
 * the timing; they add up over the rounds into the phase's per-target
 * sequentiality.  On the simulated cluster (-storage simgrid) the same
 * holds for simgrid:<name>, checked from the simulated targets' objects
 * (sim.c).
 *
 * `indep_calls` replaces each collective call by independent calls: one
 * rio_file_write_at/read_at per contiguous file piece when the workload
 * says its pieces are uniform and its memory contiguous (plan->piece,
 * the paper's "four distinct I/O calls for each of its four segments"),
 * else one per collective call.
 */
#include "bench.h"

#include "resonio.h"
#include "../resonio-count/rio_count.h"

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
/* smpicc's force-included malloc macros break <malloc.h>; under SMPI the
 * ranks share one process, whose heap no rank trims */
#if defined(__GLIBC__) && !defined(RIO_SMPI)
#include <malloc.h>
#endif
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define SENTINEL 0xA5
#define CHUNK (16 << 20) /* image chunk */
/* pwrite/pread size of `limit`.  On this machine's ext4 a single call of
 * 2 MiB or more into a new file often runs at ~700 MiB/s where 1 MiB calls
 * run at ~4 GiB/s (2 processes, 2 and 32 MiB each), so larger calls would
 * make the physical reference slower than the workloads. */
#define LIMIT_CHUNK (1 << 20)
/* The two buffers each rank checks the file through.  Simulated ranks all
 * live in one process: at a thousand of them 8 MiB a rank was most of the
 * simulation's memory. */
#ifdef RIO_SMPI
#define CHECK_CHUNK (256 << 10)
#else
#define CHECK_CHUNK (4 << 20)
#endif

/* ---- the data: a pure function of the file offset ------------------------ */

static inline uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

void bench_pattern(unsigned char *dst, MPI_Offset off, size_t len, unsigned salt)
{
    uint64_t s = (uint64_t)salt << 48;
    size_t i = 0;
    while (i < len && ((uint64_t)(off + (MPI_Offset)i) & 7)) {
        uint64_t o = (uint64_t)(off + (MPI_Offset)i);
        dst[i++] = (unsigned char)(mix((o >> 3) ^ s) >> (8 * (o & 7)));
    }
    for (; i + 8 <= len; i += 8) {
        uint64_t w = mix(((uint64_t)(off + (MPI_Offset)i) >> 3) ^ s);
        for (int b = 0; b < 8; b++)
            dst[i + (size_t)b] = (unsigned char)(w >> (8 * b));
    }
    for (; i < len; i++) {
        uint64_t o = (uint64_t)(off + (MPI_Offset)i);
        dst[i] = (unsigned char)(mix((o >> 3) ^ s) >> (8 * (o & 7)));
    }
}

/* The expected file content at [off, off+len): the pattern, zero in holes. */
static void expected(const struct bench_plan *pl, unsigned char *dst, MPI_Offset off, size_t len,
                     unsigned salt)
{
    bench_pattern(dst, off, len, salt);
    if (!pl->hole_period)
        return;
    for (size_t i = 0; i < len; i++)
        if ((off + (MPI_Offset)i) % pl->hole_period >= pl->hole_len)
            dst[i] = 0;
}

/* ---- per-point state ----------------------------------------------------- */

struct point_ctx {
    const struct bench_opts *o;
    struct bench_point *p;
    struct bench_plan plan;
    int rank, np;
    char path[4096];
    unsigned char *wbuf, *rbuf, *lbuf, *chk[2];
    long long mine;              /* this rank's bytes per phase */
    long long call_min, call_max; /* this rank's bytes of one call */
    MPI_Offset ftsize_et;        /* filetype size in etypes */
    MPI_Offset lim_lo, lim_hi;   /* this rank's slice of the limit file */
    int hosts;                   /* hosts of the job (MPI_COMM_TYPE_SHARED nodes) */
    int host_leader;             /* the lowest rank of its host: reads its counters */
    unsigned salt;               /* of the data of the current round */
    unsigned char *img, *stream; /* fill()'s buffers, kept for the point */
    size_t imgcap;
    int streamcap;
};

/* What the probe round learns about one phase. */
struct probe {
    long long net;   /* bytes this host sent to other hosts (its leader's count) */
    struct rio_stats st;
    int stats_ok;
    int coll_ok, coll_calls;
    long long exchanged, copies, bytes, reqs;
    double t_exch, t_stor, t_plan;
    char ran[64];
};

/* Where the first wrong byte of a round was seen (printed once per round). */
static char first_bad[160];

static long long bytes_differ(const unsigned char *a, const unsigned char *b, size_t n,
                              const char *what, long long base)
{
    if (!memcmp(a, b, n))
        return 0;
    long long d = 0;
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) {
            if (!d && !first_bad[0])
                snprintf(first_bad, sizeof first_bad, "first at %s %lld: 0x%02x, expected 0x%02x",
                         what, base + (long long)i, a[i], b[i]);
            d++;
        }
    return d;
}

/* Compare [off, off+len) of the open file fd with what it should hold.
 * Returns the wrong bytes the workload wrote; bytes that differ in the
 * workload's holes (never written, so they should read as zero) are added
 * to *stray instead: an implementation may fill them with whatever its
 * buffers held (read-modify-write past the end of a new file), which does
 * not change the data but is worth reporting. */
/* Where check_file reads the file from: a POSIX descriptor, the emulated
 * storage's object files, a rados: file's objects or the simulated
 * targets' objects. */
struct stored {
    int fd;
    const char *name; /* a simgrid: file's name, without the prefix */
    struct bench_efile ef;
#ifdef BENCH_HAVE_RADOS
    struct bench_rfile rf;
#endif
    long long (*pread)(const struct stored *s, unsigned char *buf, long long len, long long off);
};

static long long stored_posix(const struct stored *s, unsigned char *buf, long long len,
                              long long off)
{
    return (long long)pread(s->fd, buf, (size_t)len, off);
}
static long long stored_emu(const struct stored *s, unsigned char *buf, long long len,
                            long long off)
{
    return bench_efile_pread(&s->ef, buf, len, off);
}
static long long stored_sim(const struct stored *s, unsigned char *buf, long long len,
                            long long off)
{
    return bench_sim_pread(s->name, buf, len, off);
}
#ifdef BENCH_HAVE_RADOS
static long long stored_rados(const struct stored *s, unsigned char *buf, long long len,
                              long long off)
{
    return bench_rfile_pread(&s->rf, buf, len, off);
}
#endif

static long long check_range(struct point_ctx *x, const struct stored *sf, MPI_Offset off,
                             MPI_Offset len, int limit, long long *stray)
{
    long long bad = 0;
    const struct bench_plan *pl = &x->plan;
    for (MPI_Offset at = off; at < off + len; at += CHECK_CHUNK) {
        size_t n = (size_t)(off + len - at < CHECK_CHUNK ? off + len - at : CHECK_CHUNK);
        long long got = sf->pread(sf, x->chk[0], (long long)n, at);
        if (got != (long long)n) {
            if (!first_bad[0])
                snprintf(first_bad, sizeof first_bad, "file too short at offset %lld",
                         (long long)at);
            return bad + (long long)n;
        }
        if (limit)
            bench_pattern(x->chk[1], at, n, x->salt);
        else
            expected(pl, x->chk[1], at, n, x->salt);
        if (!memcmp(x->chk[0], x->chk[1], n))
            continue;
        if (limit || !pl->hole_period) {
            bad += bytes_differ(x->chk[0], x->chk[1], n, "file offset", (long long)at);
            continue;
        }
        for (size_t i = 0; i < n; i++)
            if (x->chk[0][i] != x->chk[1][i]) {
                if ((at + (MPI_Offset)i) % pl->hole_period >= pl->hole_len)
                    (*stray)++;
                else
                    bad += bytes_differ(x->chk[0] + i, x->chk[1] + i, 1, "file offset",
                                        (long long)(at + (MPI_Offset)i));
            }
    }
    return bad;
}

/* Check of the whole file, without the implementation: size, then each
 * rank its 1/N; POSIX reads, the emulated storage's object files, or a
 * rados: file's objects. */
static long long check_file(struct point_ctx *x, MPI_Offset size, int limit, long long *stray)
{
    long long bad = 0, have;
    struct stored sf = {.fd = -1, .pread = stored_posix};
    if (x->o->emu) {
        if (bench_efile_open(x->o->emu_dir, x->path + 4, &sf.ef)) {
            if (!first_bad[0])
                snprintf(first_bad, sizeof first_bad, "no %.100s in the object files", x->path);
            return 1;
        }
        sf.pread = stored_emu;
        have = sf.ef.size;
    } else if (x->o->sim) {
        sf.name = x->path + strlen("simgrid:");
        sf.pread = stored_sim;
        have = bench_sim_size(sf.name);
    } else if (x->o->rados) {
#ifdef BENCH_HAVE_RADOS
        char conf[sizeof x->o->ceph_dir + 16];
        snprintf(conf, sizeof conf, "%s/ceph.conf", x->o->ceph_dir);
        if (bench_rfile_open(conf, x->path + 6, &sf.rf)) {
            if (!first_bad[0])
                snprintf(first_bad, sizeof first_bad, "no %.100s in the pool's objects",
                         x->path);
            return 1;
        }
        sf.pread = stored_rados;
        have = sf.rf.size;
#else
        return 1; /* not reached: the command line refuses -storage rados */
#endif
    } else {
        struct stat sb;
        sf.fd = open(x->path, O_RDONLY);
        if (sf.fd < 0)
            return 1;
        have = fstat(sf.fd, &sb) ? -1 : (long long)sb.st_size;
    }
    if (have != size) {
        bad++;
        if (!first_bad[0])
            snprintf(first_bad, sizeof first_bad, "file size %lld, expected %lld", have,
                     (long long)size);
    }
    MPI_Offset lo = size * x->rank / x->np, hi = size * (x->rank + 1) / x->np;
    bad += check_range(x, &sf, lo, hi - lo, limit, stray);
    if (x->o->emu)
        bench_efile_close(&sf.ef);
#ifdef BENCH_HAVE_RADOS
    else if (x->o->rados)
        bench_rfile_close(&sf.rf);
#endif
    else if (sf.fd >= 0)
        close(sf.fd);
    return bad;
}

/* Reset the peak RSS so it covers one round (Linux >= 4.0; otherwise the
 * peak is cumulative, which only overstates). */
static void rss_reset(void)
{
    int fd = open("/proc/self/clear_refs", O_WRONLY);
    if (fd >= 0) {
        if (write(fd, "5", 1) != 1) {
            /* cumulative peak then */
        }
        close(fd);
    }
}

/* A field of /proc/self/status (VmHWM:, VmRSS:, RssShmem:), MiB; -1 when it
 * cannot be read. */
static double status_mib(const char *key)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    size_t k = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, k) && sscanf(line + k, "%ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib < 0 ? -1 : (double)kib / 1024.0;
}

/* The peak and the current resident set come from the same counters
 * (/proc/self/status): getrusage's peak once read 0.32 MiB below
 * statm's resident set at the same moment (one rank of 32, ecio), an
 * error in every figure of memory a round added. */
static double rss_mib(void)
{
    double hwm = status_mib("VmHWM:");
    if (hwm >= 0)
        return hwm;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024.0;
}

/* The resident set now, MiB (0 when /proc cannot say). */
static double rss_now_mib(void)
{
    double rss = status_mib("VmRSS:");
    return rss < 0 ? 0 : rss;
}

/* Before an implementation's probe round, the memory other rounds left
 * behind goes back to the system: resonio's kept blocks and the C
 * library's free memory.  Without this every row's peak was the same,
 * whatever was largest in the process; two_phase, independent and native
 * (demo seg=1M, MPICH) peaked at 64, 54 and 62 MiB run alone and all at
 * 81 run together. */
static void rss_settle(void)
{
    rio_release_memory(NULL);
#if defined(__GLIBC__) && !defined(RIO_SMPI)
    malloc_trim(0);
#endif
}

/* ---- bytes between hosts ----------------------------------------------------- */

/* Bytes this host (network namespace) has sent over its interfaces other
 * than loopback, as the kernel counts them (/proc/net/dev is the calling
 * process's namespace's): on resonio-hosts' hosts every byte a rank sends
 * to another host crosses them, and nothing else of the job does but the
 * launcher's daemons' messages.  -1 when it cannot be read. */
static long long host_tx_bytes(void)
{
    FILE *f = fopen("/proc/net/dev", "r");
    if (!f)
        return -1;
    char line[512];
    long long sum = 0;
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue; /* the two header lines */
        *colon = 0;
        char *name = line;
        while (*name == ' ')
            name++;
        if (!strcmp(name, "lo"))
            continue;
        unsigned long long v[9];
        if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
                   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) == 9)
            sum += (long long)v[8]; /* transmitted bytes */
    }
    fclose(f);
    return sum;
}

/* ---- one round of an MPI-IO implementation --------------------------------- */

/* The probe round's peak resident set before each probe: rio_coll_last
 * gathers every rank's storage requests of the call on rank 0 (ecio at 128
 * ranks, 256 requests a rank: megabytes), which is the bench's memory, not
 * the implementation's.  So the peak so far is kept before the gather, and
 * after it the C library gives the freed memory back and the peak restarts
 * from what is resident then.  (Counted in, ecio under independent showed
 * 1.77 MiB at 128 ranks, 0.23 without; at 64 ranks on one host, under
 * direct, 0.81 MiB on rank 0 against at most 0.34 on any rank without.)
 * What a gather leaves resident (rank 0 receives from every rank) is not
 * the implementation's either: probe_left sums it, and every peak is
 * taken less what the gathers left until then.  (Independent alone on
 * noncontig at 64 ranks: the largest rank added 1.64 MiB, rank 0, most
 * of it shared memory; with this 0.70, the mean rank 0.60.) */
static double probe_peak, probe_left, probe_left_shm;

static void probe_call(const struct bench_io *io, void *fh, struct probe *pr)
{
    struct rio_coll_info ci;
    memset(&ci, 0, sizeof ci);
    pr->coll_calls++;
    double now = rss_mib() - probe_left;
    if (now > probe_peak)
        probe_peak = now;
    double before = rss_now_mib(), shm_before = status_mib("RssShmem:");
    int rc = io->coll_last(fh, &ci);
#if defined(__GLIBC__) && !defined(RIO_SMPI)
    malloc_trim(0);
#endif
    double after = rss_now_mib(), shm_after = status_mib("RssShmem:");
    if (after > before)
        probe_left += after - before;
    if (shm_before >= 0 && shm_after > shm_before)
        probe_left_shm += shm_after - shm_before;
    rss_reset();
    if (rc != MPI_SUCCESS) {
        pr->coll_ok = 0;
        return;
    }
    pr->exchanged += ci.exchanged;
    pr->copies += ci.copies;
    pr->bytes += ci.bytes;
    pr->reqs += ci.storage_reqs;
    pr->t_exch += ci.time_exchange;
    pr->t_stor += ci.time_storage;
    pr->t_plan += ci.time_plan;
    ci.strategy[sizeof ci.strategy - 1] = 0;
    if (ci.strategy[0] && !strstr(pr->ran, ci.strategy)) {
        size_t n = strlen(pr->ran);
        snprintf(pr->ran + n, sizeof pr->ran - n, "%s%s", n ? "+" : "", ci.strategy);
    }
}

/* The independent calls that stand for collective call bc (indep_calls):
 * one per contiguous file piece if the plan has uniform pieces, else one.
 * MPI_SUCCESS or the first failing call's code. */
static int indep_call(struct point_ctx *x, const struct bench_io *io, void *fh,
                      const struct bench_call *bc, int write)
{
    const struct bench_plan *pl = &x->plan;
    unsigned char *buf = (write ? x->wbuf : x->rbuf) + bc->memoff;
    MPI_Offset off = bc->tile * x->ftsize_et;
    int esize, msize;
    MPI_Type_size(pl->etype, &esize);
    MPI_Type_size(pl->memtype, &msize);
    long long bytes = (long long)bc->count * msize;
    if (pl->piece <= 0 || pl->piece % esize || bytes % pl->piece)
        return write ? io->write_at(fh, off, buf, bc->count, pl->memtype, MPI_STATUS_IGNORE)
                     : io->read_at(fh, off, buf, bc->count, pl->memtype, MPI_STATUS_IGNORE);
    int n = (int)(pl->piece / esize);
    for (long long k = 0; k < bytes / pl->piece; k++) {
        unsigned char *b = buf + k * pl->piece;
        MPI_Offset o = off + k * n;
        int rc = write ? io->write_at(fh, o, b, n, pl->etype, MPI_STATUS_IGNORE)
                       : io->read_at(fh, o, b, n, pl->etype, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The storage's counters (emu, cephfs or rados, simgrid), as bench_emu_stats
 * gives them.  Rank 0. */
static int storage_stats(const struct bench_opts *o, int reset, struct bench_tgt *t, int max)
{
    if (o->ceph)
        return bench_ceph_stats(o, reset, t, max);
    if (o->sim)
        return bench_sim_stats(o, reset, t, max);
    return bench_emu_stats(o, reset, t, max);
}

/* The targets' counters of one phase (emu), added to res (rank 0).
 * Collective: the barrier makes sure every rank is done with the phase. */
static void tgt_read(struct point_ctx *x, struct bench_phase *res, long long *err)
{
    struct bench_tgt t[BENCH_MAX_TARGETS];
    MPI_Barrier(MPI_COMM_WORLD);
    if (x->rank != 0)
        return;
    int n = storage_stats(x->o, 0, t, BENCH_MAX_TARGETS);
    if (n < 0 || (res->ntgt && n != res->ntgt)) {
        fprintf(stderr, "resonio-bench: cannot read the counters of the storage in %s\n",
                x->o->ceph ? x->o->ceph_dir : x->o->sim ? "the simulation" : x->o->emu_dir);
        (*err)++;
        return;
    }
    res->ntgt = n;
    for (int i = 0; i < n; i++) {
        struct bench_tgt *a = &res->tgt[i];
        a->requests += t[i].requests;
        a->accesses += t[i].accesses;
        a->judged += t[i].judged;
        a->sequential += t[i].sequential;
        a->seek += t[i].seek;
        a->busy += t[i].busy;
        bench_add_known(&a->bytes, t[i].bytes);
        bench_add_known(&a->ascending, t[i].ascending);
        bench_add_known(&a->calls, t[i].calls);
        bench_add_known(&a->resent, t[i].resent);
    }
}

/* The counting layer's controls (rio_count.h).  SMPI has no MPI_Pcontrol
 * (it aborts), and no layer to talk to. */
static void count_control(int level, struct rio_count *c)
{
#ifdef RIO_SMPI
    (void)level;
    (void)c;
#else
    if (c)
        MPI_Pcontrol(level, c);
    else
        MPI_Pcontrol(level);
#endif
}

/* Close the counting layer's window and keep this rank's counts of the
 * phase (magic stays 0 without the layer). */
static void count_phase(struct bench_phase *res)
{
    struct rio_count c;
    memset(&c, 0, sizeof c);
    count_control(0, NULL);
    count_control(2, &c);
    for (int k = 0; k < 3; k++) {
        res->cnt_mine[k] = c.msgs[k];
        res->cnt_mine[3 + k] = c.bytes[k];
    }
    res->cnt_mine[6] = c.io_reqs;
    res->cnt_mine[7] = c.io_bytes;
    res->cnt_mine[8] = c.magic == RIO_COUNT_MAGIC && c.seen_pml;
}

/* A timed round's counts, over the ranks: the mean and the largest rank's
 * per call, added to the phase's when every rank counted. */
static void count_keep(const struct point_ctx *x, int ncalls, struct bench_phase *ph)
{
    long long sum[8], max[8], one = ph->cnt_mine[8], all = 0;
    MPI_Allreduce(ph->cnt_mine, sum, 8, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(ph->cnt_mine, max, 8, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(&one, &all, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    if (!all || ncalls < 1)
        return;
    double calls = ncalls, nranks = x->np;
    for (int k = 0; k < 3; k++) {
        ph->cnt_msgs[k] += (double)sum[k] / (nranks * calls);
        ph->cnt_bytes[k] += (double)sum[3 + k] / (nranks * calls);
        ph->cnt_msgs_max[k] += (double)max[k] / calls;
        ph->cnt_bytes_max[k] += (double)max[3 + k] / calls;
    }
    for (int k = 0; k < 2; k++) {
        ph->cnt_io[k] += (double)sum[6 + k] / (nranks * calls);
        ph->cnt_io_max[k] += (double)max[6 + k] / calls;
    }
    ph->cnt_rounds++;
}

/* The probe round's added memory of aggregators and of the other ranks,
 * apart, with the roles of the first timed round, as the counting layer
 * saw them (native's and resonio's alike); nothing without the layer.
 * The memory is the peak over both phases, so an aggregator is a rank
 * that aggregated in either: in the read it sent file data to others, in
 * the write, where ranks sent each other file data, it made storage
 * requests (a rank that only sends makes none).  With the read's role
 * alone, the write aggregators of a decided node_first counted as other
 * ranks (auto-decided on noncontig and ecio: 0.63-1.17 MiB in the
 * 2026-11-30 scale run). */
static void rss_by_role(struct bench_impl_result *res)
{
    if (!res->r.cnt_rounds)
        return;
    /* called after the first timed round only: the write's data messages
     * count_keep summed over ranks are that round's */
    int sent_w = res->w.cnt_rounds && res->w.cnt_msgs[2] > 0;
    int agg = res->r.cnt_mine[2] > 0 || (sent_w && res->w.cnt_mine[6] > 0), naggs = 0;
    double pm = res->rss_private_mine;
    double mine[4] = {agg ? res->rss_added_mine : 0, agg ? 0 : res->rss_added_mine, agg ? pm : -1,
                      agg ? -1 : pm},
           max[4];
    MPI_Allreduce(mine, max, 4, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    /* a rank that cannot say makes the role's figure unknown */
    int unknown[2] = {agg && pm < 0, !agg && pm < 0}, anyunknown[2];
    MPI_Allreduce(unknown, anyunknown, 2, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    MPI_Allreduce(&agg, &naggs, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    res->rss_added_agg_mib = max[0];
    res->rss_added_other_mib = max[1];
    res->rss_private_agg_mib = anyunknown[0] ? -1 : max[2];
    res->rss_private_other_mib = anyunknown[1] ? -1 : max[3];
    res->naggs = naggs;
}

static const char *line_start(int rank);

/* One phase: open, view, the calls (timed with the close), stats and the
 * selector's report (into *sel when not NULL); on emu the targets'
 * counters into *res.  Collective.  Returns the seconds of this rank;
 * errors added to *err. */
static double phase(struct point_ctx *x, const struct bench_impl *im, MPI_Info info, int write,
                    struct probe *pr, struct bench_sel *sel, struct bench_phase *res,
                    long long *err)
{
    const struct bench_io *io = bench_io_of(im);
    const struct bench_plan *pl = &x->plan;
    void *fh = NULL;
    if (x->o->emu || x->o->ceph || x->o->sim) {
        /* every rank is done with the previous phase before the reset */
        MPI_Barrier(MPI_COMM_WORLD);
        if (x->rank == 0 && storage_stats(x->o, 1, NULL, 0) < 0)
            (*err)++;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    int amode = write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY;
    int rc = io->open(MPI_COMM_WORLD, x->path, amode, info, &fh), any = 0;
    int bad = rc != MPI_SUCCESS;
    if (bad) {
        char es[MPI_MAX_ERROR_STRING] = "";
        int len = 0;
        MPI_Error_string(rc, es, &len);
        fprintf(stderr, "%sresonio-bench: rank %d: opening %s for the %s failed: %s\n",
                line_start(x->rank), x->rank, x->path, write ? "write" : "read", es);
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        (*err)++;
        if (!bad)
            io->close(&fh);
        return 0;
    }
    if (!pl->view_per_call &&
        io->set_view(fh, pl->calls[0].disp, pl->etype, pl->filetype, "native", info) != MPI_SUCCESS)
        (*err)++;
    if (pr) {
        pr->coll_ok = 1;
        pr->ran[0] = 0;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    long long tx0 = pr && x->hosts > 1 && x->host_leader ? host_tx_bytes() : 0;
    if (!pr)
        count_control(1, NULL); /* the counting layer's window: the timed calls only */
    double t0 = MPI_Wtime();
    for (int c = 0; c < pl->ncalls; c++) {
        const struct bench_call *bc = &pl->calls[c];
        if (pl->view_per_call &&
            io->set_view(fh, bc->disp, pl->etype, pl->filetype, "native", info) != MPI_SUCCESS)
            (*err)++;
        MPI_Offset off = bc->tile * x->ftsize_et;
        if (im->noncoll)
            rc = indep_call(x, io, fh, bc, write);
        else if (write)
            rc = io->write_at_all(fh, off, x->wbuf + bc->memoff, bc->count, pl->memtype,
                                  MPI_STATUS_IGNORE);
        else
            rc = io->read_at_all(fh, off, x->rbuf + bc->memoff, bc->count, pl->memtype,
                                 MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            (*err)++;
        if (pr && io->coll_last && !im->noncoll)
            probe_call(io, fh, pr);
    }
    if (!pr)
        count_phase(res);
    if (write && x->o->sync && io->sync(fh) != MPI_SUCCESS)
        (*err)++;
    if (pr && io->stats)
        pr->stats_ok = io->stats(fh, &pr->st) == MPI_SUCCESS;
    if (sel && io->selector)
        io->selector(fh, write, sel);
    if (io->close(&fh) != MPI_SUCCESS)
        (*err)++;
    double t = MPI_Wtime() - t0;
    if (pr && x->hosts > 1) {
        /* every rank's messages of the phase are sent: each host's leader
         * reads its count again; the sum over hosts is what crossed */
        MPI_Barrier(MPI_COMM_WORLD);
        long long d = 0, tx1 = x->host_leader ? host_tx_bytes() : 0;
        int unread = x->host_leader && (tx0 < 0 || tx1 < 0), any = 0;
        if (x->host_leader && !unread)
            d = tx1 - tx0;
        MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        MPI_Allreduce(&unread, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        pr->net = any ? -1 : d;
    }
    if (x->o->emu || x->o->ceph || x->o->sim)
        tgt_read(x, res, err);
    return t;
}

/* Delete the file of the previous round (rank 0; a missing file is fine). */
static void remove_file(struct point_ctx *x, MPI_Info info)
{
    if (x->rank != 0)
        return;
    if (x->o->emu || x->o->rados || x->o->sim)
        rio_file_delete(x->path, info);
    else
        unlink(x->path);
}

static void mpi_round(struct point_ctx *x, struct bench_impl_result *res, MPI_Info info,
                      struct probe *pw, struct probe *pr, struct bench_sel sel[2], double *tw,
                      double *tr, long long *err, long long *stray)
{
    remove_file(x, info);
    MPI_Barrier(MPI_COMM_WORLD);
    *tw = phase(x, res->impl, info, 1, pw, &sel[0], &res->w, err);
    memset(x->rbuf, SENTINEL, x->plan.membytes);
    MPI_Barrier(MPI_COMM_WORLD);
    *tr = phase(x, res->impl, info, 0, pr, &sel[1], &res->r, err);
    *err += bytes_differ(x->rbuf, x->wbuf, x->plan.membytes, "read buffer byte", 0);
    MPI_Barrier(MPI_COMM_WORLD); /* every rank has closed: the file is complete */
    *err += check_file(x, x->plan.filesize, 0, stray);
}

/* ---- one round of `limit` --------------------------------------------------- */

static long long rw_all(int fd, unsigned char *buf, MPI_Offset off, MPI_Offset len, int write)
{
    for (MPI_Offset done = 0; done < len;) {
        size_t n = (size_t)(len - done < LIMIT_CHUNK ? len - done : LIMIT_CHUNK);
        ssize_t k =
            write ? pwrite(fd, buf + done, n, off + done) : pread(fd, buf + done, n, off + done);
        if (k <= 0)
            return 1;
        done += k;
    }
    return 0;
}

static void limit_round(struct point_ctx *x, double *tw, double *tr, long long *err)
{
    MPI_Offset lo = x->lim_lo, len = x->lim_hi - x->lim_lo;
    bench_pattern(x->lbuf, lo, (size_t)len, x->salt);
    if (x->rank == 0)
        unlink(x->path);
    MPI_Barrier(MPI_COMM_WORLD);
    int fd = open(x->path, O_CREAT | O_WRONLY, 0644);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (fd < 0 || rw_all(fd, x->lbuf, lo, len, 1) || (x->o->sync && fsync(fd)))
        (*err)++;
    if (fd >= 0)
        close(fd);
    *tw = MPI_Wtime() - t0;
    memset(x->lbuf, SENTINEL, (size_t)len);
    MPI_Barrier(MPI_COMM_WORLD);
    fd = open(x->path, O_RDONLY);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    if (fd < 0 || rw_all(fd, x->lbuf, lo, len, 0))
        (*err)++;
    if (fd >= 0)
        close(fd);
    *tr = MPI_Wtime() - t0;
    /* what was read must be the pattern; then lbuf is ready for the next round */
    long long bad = 0;
    for (MPI_Offset at = 0; at < len; at += CHECK_CHUNK) {
        size_t n = (size_t)(len - at < CHECK_CHUNK ? len - at : CHECK_CHUNK);
        bench_pattern(x->chk[1], lo + at, n, x->salt);
        bad += bytes_differ(x->lbuf + at, x->chk[1], n, "limit slice byte", (long long)at);
    }
    *err += bad;
    MPI_Barrier(MPI_COMM_WORLD);
    long long none = 0;
    *err += check_file(x, (MPI_Offset)x->p->bytes, 1, &none);
}

/* ---- setup: the write buffer from the pattern ------------------------------- */

/* Where a type's data lie: cover() fills the image with the pattern over
 * byte ranges that together hold every byte type T selects at displacement
 * d, decoding T's constructors with MPI_Type_get_envelope/contents.  A
 * rank's filetype may span the whole file while it selects 1/N of it;
 * filling its whole extent made each rank's setup grow with the file, and
 * the job's with the ranks squared (at 256 simulated ranks FLASH's setup
 * was most of the simulation's time, and the demo's images most of its
 * memory).  Constructors not decoded here (subarray, darray) are covered by
 * their true extent, a superset.  The pattern is a function of the offset,
 * so a range filled twice holds the same bytes; a byte the pack reads that
 * was not filled would be written and found by the file check. */
struct cover {
    unsigned char *img;
    MPI_Offset lo, hi; /* the file offsets of img[0] and of its end */
    unsigned salt;
    int err;
};

/* [a, a+len) clipped to the image: a true extent SMPI reports too large
 * (a resized type's) cannot write past it */
static void cover_range(struct cover *c, MPI_Aint a, MPI_Aint len)
{
    MPI_Offset from = (MPI_Offset)a, to = (MPI_Offset)a + len;
    from = from < c->lo ? c->lo : from;
    to = to > c->hi ? c->hi : to;
    if (to > from)
        bench_pattern(c->img + (from - c->lo), from, (size_t)(to - from), c->salt);
}

static void cover(struct cover *c, MPI_Datatype T, MPI_Aint d);

/* Filling a span outright costs less than decoding it when the span is
 * small or the data are at least half of it. */
#define COVER_WHOLE (64 << 10)
static int cover_whole(MPI_Aint span, MPI_Count size)
{
    return span <= COVER_WHOLE || span <= 2 * (MPI_Aint)size;
}

/* n copies of T, the k-th at d + k * T's extent */
static void cover_run(struct cover *c, MPI_Datatype T, MPI_Aint d, MPI_Aint n)
{
    MPI_Aint lb, ext, tlb, text;
    MPI_Count size;
    MPI_Type_get_extent(T, &lb, &ext);
    MPI_Type_get_true_extent(T, &tlb, &text);
    MPI_Type_size_x(T, &size);
    if (n <= 0 || size <= 0)
        return;
    if (ext > 0 && cover_whole((n - 1) * ext + text, n * size)) {
        cover_range(c, d + tlb, (n - 1) * ext + text);
        return;
    }
    for (MPI_Aint k = 0; k < n && !c->err; k++)
        cover(c, T, d + k * ext);
}

static void cover(struct cover *c, MPI_Datatype T, MPI_Aint d)
{
    int ni, na, nt, comb;
    MPI_Aint tlb, text;
    MPI_Count size;
    MPI_Type_get_envelope(T, &ni, &na, &nt, &comb);
    MPI_Type_get_true_extent(T, &tlb, &text);
    MPI_Type_size_x(T, &size);
    if (comb == MPI_COMBINER_NAMED || cover_whole(text, size)) {
        cover_range(c, d + tlb, text);
        return;
    }
    int *iv = malloc(sizeof *iv * (size_t)(ni + 1));
    MPI_Aint *av = malloc(sizeof *av * (size_t)(na + 1));
    MPI_Datatype *tv = malloc(sizeof *tv * (size_t)(nt + 1));
    if (!iv || !av || !tv) {
        c->err = 1;
        goto out;
    }
    MPI_Type_get_contents(T, ni, na, nt, iv, av, tv);
    /* SMPI (3.32) reports struct and resized types as INDEXED with a
     * struct's contents (a resized one between MPI_LB and MPI_UB markers,
     * which select nothing); a real INDEXED has no address arguments */
    if (comb == MPI_COMBINER_INDEXED && na > 0)
        comb = MPI_COMBINER_STRUCT;
    /* the constructors decoded here, with contents of the shape the
     * standard gives each; any other (subarray, darray) or a shape SMPI
     * got wrong: the true extent */
    int n = ni > 0 ? iv[0] : -1;
    int shaped = 0;
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: shaped = nt == 1; break;
    case MPI_COMBINER_CONTIGUOUS: shaped = ni == 1 && na == 0; break;
    case MPI_COMBINER_VECTOR: shaped = ni == 3 && na == 0; break;
    case MPI_COMBINER_HVECTOR: shaped = ni == 2 && na == 1; break;
    case MPI_COMBINER_INDEXED: shaped = ni == 2 * n + 1 && na == 0; break;
    case MPI_COMBINER_HINDEXED: shaped = ni == n + 1 && na == n; break;
    case MPI_COMBINER_INDEXED_BLOCK: shaped = ni == n + 2 && na == 0; break;
    case MPI_COMBINER_HINDEXED_BLOCK: shaped = ni == 2 && na == n; break;
    case MPI_COMBINER_STRUCT: shaped = ni == n + 1 && na == n && nt == n; break;
    }
    MPI_Aint lb, cext = 0;
    if (shaped && nt >= 1)
        MPI_Type_get_extent(tv[0], &lb, &cext);
    else {
        cover_range(c, d + tlb, text);
        comb = MPI_COMBINER_NAMED;
    }
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED: /* the data stay where the old type had them */
        cover(c, tv[0], d);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        cover_run(c, tv[0], d, iv[0]);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < iv[0]; i++)
            cover_run(c, tv[0],
                      d + (comb == MPI_COMBINER_VECTOR ? (MPI_Aint)iv[2] * cext : av[0]) * i,
                      iv[1]);
        break;
    case MPI_COMBINER_INDEXED:
        for (int i = 0; i < iv[0]; i++)
            cover_run(c, tv[0], d + (MPI_Aint)iv[1 + iv[0] + i] * cext, iv[1 + i]);
        break;
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < iv[0]; i++)
            cover_run(c, tv[0], d + av[i], iv[1 + i]);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < iv[0]; i++)
            cover_run(c, tv[0], d + (MPI_Aint)iv[2 + i] * cext, iv[1]);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < iv[0]; i++)
            cover_run(c, tv[0], d + av[i], iv[1]);
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < iv[0]; i++)
            cover_run(c, tv[i], d + av[i], iv[1 + i]);
        break;
    }
    for (int i = 0; i < nt; i++) {
        int tni, tna, tnt, tcomb;
        MPI_Type_get_envelope(tv[i], &tni, &tna, &tnt, &tcomb);
        if (tcomb != MPI_COMBINER_NAMED)
            MPI_Type_free(&tv[i]);
    }
out:
    free(iv);
    free(av);
    free(tv);
}

/* Pack the file image of call c (this round's data) through the filetype
 * and unpack it through the memory type into the write buffer.  Local;
 * 0 or -1. */
static int fill_call(struct point_ctx *x, const struct bench_call *bc)
{
    const struct bench_plan *pl = &x->plan;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_get_extent(pl->filetype, &lb, &ext);
    MPI_Type_get_true_extent(pl->filetype, &tlb, &text);
    MPI_Offset per = ext > 0 ? (MPI_Offset)(CHUNK / ext) : 1;
    if (per < 1)
        per = 1;
    int pos = 0;
    for (MPI_Offset t = 0; t < bc->ntiles; t += per) {
        MPI_Offset g = bc->ntiles - t < per ? bc->ntiles - t : per;
        MPI_Offset start = bc->disp + (bc->tile + t) * ext;
        MPI_Offset lo = start + tlb, hi = start + (g - 1) * ext + tlb + text;
        size_t need = (size_t)(hi - lo);
        if (need > x->imgcap) {
            free(x->img);
            x->img = malloc(need);
            x->imgcap = x->img ? need : 0;
            if (!x->img)
                return -1;
        }
        struct cover cv = {.img = x->img, .lo = lo, .hi = hi, .salt = x->salt};
        cover_run(&cv, pl->filetype, (MPI_Aint)start, (MPI_Aint)g);
        if (cv.err)
            return -1;
        MPI_Datatype T;
        int blen = (int)g;
        MPI_Aint d = (MPI_Aint)(start - lo);
        if (MPI_Type_create_hindexed(1, &blen, &d, pl->filetype, &T) != MPI_SUCCESS ||
            MPI_Type_commit(&T) != MPI_SUCCESS)
            return -1;
        int rc = MPI_Pack(x->img, 1, T, x->stream, x->streamcap, &pos, MPI_COMM_SELF);
        MPI_Type_free(&T);
        if (rc != MPI_SUCCESS)
            return -1;
    }
    int upos = 0;
    if (MPI_Unpack(x->stream, x->streamcap, &upos, x->wbuf + bc->memoff, bc->count, pl->memtype,
                   MPI_COMM_SELF) != MPI_SUCCESS ||
        upos != pos)
        return -1;
    return 0;
}

/* Check the plan, size the buffers and put the sentinel in the write
 * buffer (data bytes are written by fill, gaps keep the sentinel).  Local;
 * 0 or -1. */
static int prepare(struct point_ctx *x)
{
    const struct bench_plan *pl = &x->plan;
    int ftsize, mtsize, esize;
    MPI_Type_size(pl->filetype, &ftsize);
    MPI_Type_size(pl->memtype, &mtsize);
    MPI_Type_size(pl->etype, &esize);
    x->ftsize_et = ftsize / esize;
    x->mine = 0;
    x->call_min = -1;
    x->call_max = 0;
    x->streamcap = 0;
    for (int c = 0; c < pl->ncalls; c++) {
        const struct bench_call *bc = &pl->calls[c];
        long long n = (long long)bc->count * mtsize;
        if (n != bc->ntiles * (long long)ftsize ||
            (!pl->view_per_call && bc->disp != pl->calls[0].disp))
            return -1; /* a workload's plan contradicts itself */
        int ps = 0;
        MPI_Pack_size(bc->count, pl->memtype, MPI_COMM_SELF, &ps);
        if (ps > x->streamcap)
            x->streamcap = ps;
        x->mine += n;
        if (x->call_min < 0 || n < x->call_min)
            x->call_min = n;
        if (n > x->call_max)
            x->call_max = n;
    }
    x->stream = malloc((size_t)x->streamcap + 1);
    if (!x->stream)
        return -1;
    memset(x->wbuf, SENTINEL, pl->membytes);
    return 0;
}

/* The write buffer for the data of salt x->salt.  Local; 0 or -1. */
static int fill(struct point_ctx *x)
{
    for (int c = 0; c < x->plan.ncalls; c++)
        if (x->plan.calls[c].ntiles && fill_call(x, &x->plan.calls[c]))
            return -1;
    return 0;
}

/* ---- results ------------------------------------------------------------------ */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void summarize(struct bench_phase *ph)
{
    double v[BENCH_MAX_ROUNDS];
    ph->sel_med = -1;
    if (ph->sel_n) {
        memcpy(v, ph->sel_cost, sizeof(double) * (size_t)ph->sel_n);
        ph->sel_med = median(v, ph->sel_n);
    }
    if (!ph->n)
        return;
    memcpy(v, ph->mibs, sizeof(double) * (size_t)ph->n);
    ph->med = median(v, ph->n);
    ph->min = v[0];
    ph->max = v[ph->n - 1];
}

/* The selector's report of one phase of a timed round into ph (rank 0):
 * the calls, and the steady cost per call, i.e. the seconds spent in the
 * selector over the calls made once a strategy was chosen, per such call,
 * of the slowest rank (a collective call lasts as long as its slowest
 * rank).  A round where any rank has no report is left out.  Collective. */
static void keep_sel(struct point_ctx *x, const struct bench_sel *s, struct bench_phase *ph)
{
    long long chosen = s->calls - s->exam_calls;
    double mine[2] = {s->ok && s->nsig > 0 ? 0 : 1,
                      chosen > 0 ? s->time_chosen / (double)chosen : -1},
           worst[2];
    long long n[2] = {s->calls, s->exam_calls}, nmax[2];
    MPI_Reduce(mine, worst, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(n, nmax, 2, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (x->rank != 0 || worst[0] > 0)
        return;
    ph->have_sel = 1;
    ph->sel_rounds++;
    ph->sel_calls += nmax[0];
    ph->sel_exam += nmax[1];
    if (worst[1] >= 0)
        ph->sel_cost[ph->sel_n++] = worst[1];
}

/* Probe results of one phase into ph: stats summed over ranks (rank 0);
 * desired bytes are what the phase's calls asked for. */
static void keep_probe(struct point_ctx *x, const struct probe *pr, int write,
                       struct bench_phase *ph)
{
    int ok = pr->stats_ok, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    long long reqs = 0; /* every independent method's */
    for (int i = 0; i < pr->st.nmethods && i < RIO_STATS_MAX_METHODS; i++)
        reqs += pr->st.req_method[i];
    long long mine[5] = {write ? pr->st.bytes_written : pr->st.bytes_read, pr->st.bytes_accessed,
                         reqs, pr->st.regions, 0},
              sum[5];
    double t[2] = {pr->st.time_storage, pr->st.time_agree}, tmax[2] = {0, 0};
    MPI_Reduce(mine, sum, 5, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (x->rank != 0)
        return;
    ph->have_stats = all;
    if (all) {
        ph->desired = sum[0];
        ph->accessed = sum[1];
        ph->ops = sum[2];
        ph->regions = sum[3];
        ph->time_storage = tmax[0];
        ph->time_agree = tmax[1];
    }
    ph->between_hosts = x->hosts > 1 ? pr->net : -1;
    ph->have_coll = pr->coll_ok && pr->coll_calls > 0;
    if (ph->have_coll) {
        ph->resent = pr->exchanged;
        ph->copies = pr->copies;
        ph->coll_bytes = pr->bytes;
        ph->coll_reqs = pr->reqs;
        ph->time_exchange = pr->t_exch;
        ph->time_coll_storage = pr->t_stor;
        ph->time_plan = pr->t_plan / pr->coll_calls;
        snprintf(ph->ran, sizeof ph->ran, "%s", pr->ran);
    }
}

/* Whether a progress line that rewrites itself (\r) makes sense on stderr:
 * under mpiexec stderr is a pipe even when it ends at a terminal, so a
 * terminal type in the environment counts too. */
static int live_progress(void)
{
    const char *term = getenv("TERM");
    return isatty(2) || (term && *term && strcmp(term, "dumb") != 0);
}

/* What starts a message line on stderr: rank 0 first clears its progress line. */
static const char *line_start(int rank)
{
    return rank == 0 && live_progress() ? "\r\033[K" : "";
}

static void progress(const struct point_ctx *x, int index, int npoints, const char *impl, int round)
{
    if (x->rank != 0)
        return;
    if (live_progress()) {
        fprintf(stderr, "\r\033[K[%d/%d] %s %s: %s, %s %d/%d", index + 1, npoints, x->p->w->name,
                x->p->params, impl, round ? "round" : "probe round", round, x->o->rounds);
        fflush(stderr);
    }
}

/* Every pair of ranks exchanges one message before anything is measured.
 * The MPI library sets up a pair's connection (TCP between hosts, shared
 * memory on one) at its first message, and the memory that takes would
 * otherwise count in whichever implementation's first round meets the
 * pair first (native's runs first; a run of one implementation alone has
 * all of it).  Once per process; outside the counting layer's window. */
static void touch_every_pair(int rank, int np)
{
    static int done;
    if (done)
        return;
    done = 1;
    for (int d = 1; d < np; d++) {
        int to = (rank + d) % np, from = (rank - d + np) % np, out = rank, in = -1;
        MPI_Sendrecv(&out, 1, MPI_INT, to, 0, &in, 1, MPI_INT, from, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
}

long long bench_run_point(const struct bench_opts *o, struct bench_point *p, int index, int npoints)
{
    struct point_ctx x;
    memset(&x, 0, sizeof x);
    x.o = o;
    x.p = p;
    MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
    MPI_Comm_size(MPI_COMM_WORLD, &x.np);
    double t_start = MPI_Wtime();
    if (x.rank == 0 && !live_progress())
        fprintf(stderr, "[%d/%d] %s %s\n", index + 1, npoints, p->w->name, p->params);

    {   /* the hosts: bytes between them are counted where there are several */
        MPI_Comm node;
        int nrank = 0;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_rank(node, &nrank);
        MPI_Comm_free(&node);
        x.host_leader = nrank == 0;
        MPI_Allreduce(&x.host_leader, &x.hosts, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#ifdef RIO_SMPI
        x.hosts = 1; /* simulated hosts: this machine's interfaces count nothing of theirs */
#endif
        p->hosts = x.hosts;
    }
    touch_every_pair(x.rank, x.np);
    char err[256] = "";
    int bad = p->w->setup(p->v, x.rank, x.np, &x.plan, err, sizeof err), any = 0;
    if (!bad) {
        x.wbuf = malloc(x.plan.membytes ? x.plan.membytes : 1);
        x.rbuf = malloc(x.plan.membytes ? x.plan.membytes : 1);
        x.chk[0] = malloc(CHECK_CHUNK);
        x.chk[1] = malloc(CHECK_CHUNK);
        bad = !x.wbuf || !x.rbuf || !x.chk[0] || !x.chk[1];
        if (!bad) {
            /* resident before the first round, which would count them (and
             * wbuf by prepare); not zeros, which the compiler may turn into
             * a calloc that leaves fresh pages untouched */
            memset(x.rbuf, SENTINEL, x.plan.membytes ? x.plan.membytes : 1);
            memset(x.chk[0], SENTINEL, CHECK_CHUNK);
            memset(x.chk[1], SENTINEL, CHECK_CHUNK);
        }
        if (bad)
            snprintf(err, sizeof err, "%s: out of memory", p->w->name);
        else if (prepare(&x)) {
            bad = 1;
            snprintf(err, sizeof err, "%s: cannot make the write buffer", p->w->name);
        }
    }
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    long long errors = 0;
    if (any) {
        if (bad)
            fprintf(stderr, "%sresonio-bench: rank %d: %s\n", line_start(x.rank), x.rank, err);
        errors = 1;
        goto out;
    }
    snprintf(p->shape, sizeof p->shape, "%s", x.plan.shape);
    MPI_Allreduce(&x.mine, &p->bytes, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    p->filesize = x.plan.filesize;
    p->fregion = x.plan.fregion;
    p->mregion = x.plan.mregion;
    {
        long long fmin, fmax;
        int one, nc = x.plan.ncalls;
        MPI_Allreduce(&x.plan.fregion, &fmin, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&x.plan.fregion, &fmax, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&x.plan.one_region, &one, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        p->one_region = one;
        MPI_Allreduce(&nc, &p->ncalls, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        MPI_Allreduce(&x.call_min, &p->call_min, 1, MPI_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(&x.call_max, &p->call_max, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
        p->fine_grained = !one && fmax < 4096;
        p->large_contig = one && fmin >= (1 << 20);
    }
    if (o->emu)
        snprintf(x.path, sizeof x.path, "emu:resonio-bench.%s", p->w->name);
    else if (o->rados)
        snprintf(x.path, sizeof x.path, "rados:resonio/resonio-bench.%s", p->w->name);
    else if (o->sim)
        snprintf(x.path, sizeof x.path, "simgrid:resonio-bench.%s", p->w->name);
    else
        snprintf(x.path, sizeof x.path, "%s/resonio-bench.%s.dat", o->dir, p->w->name);

    /* the implementations of this point, and the limit slice if wanted */
    unsigned mask = bench_point_impls(o, p);
    int ids[BENCH_MAX_IMPLS], n = 0;
    for (int i = 0; i < bench_nimpls; i++)
        if (mask & (1u << i))
            ids[n++] = i;
    if (mask & (1u << (bench_nimpls - 1))) {
        x.lim_lo = (MPI_Offset)p->bytes * x.rank / x.np;
        x.lim_hi = (MPI_Offset)p->bytes * (x.rank + 1) / x.np;
        x.lbuf = malloc((size_t)(x.lim_hi - x.lim_lo) + 1);
        bad = !x.lbuf;
        if (x.lbuf)
            memset(x.lbuf, SENTINEL, (size_t)(x.lim_hi - x.lim_lo) + 1);
        MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (any) {
            errors = 1;
            goto out;
        }
    }
    MPI_Info infos[BENCH_MAX_IMPLS];
    p->nres = n;
    for (int k = 0; k < n; k++) {
        memset(&p->res[k], 0, sizeof p->res[k]);
        p->res[k].impl = &bench_impls[ids[k]];
        p->res[k].w.between_hosts = p->res[k].r.between_hosts = -1; /* until counted */
        infos[k] = MPI_INFO_NULL;
        if (bench_impls[ids[k]].kind == IMPL_LIMIT)
            continue;
        if (bench_impls[ids[k]].kind == IMPL_RESONIO || p->hints[0])
            MPI_Info_create(&infos[k]);
        if (bench_impls[ids[k]].kind == IMPL_RESONIO)
            MPI_Info_set(infos[k], "resonio_strategy", bench_impls[ids[k]].strategy);
        if (o->emu || o->rados || o->sim) {
            char v[32];
            if (o->emu)
                MPI_Info_set(infos[k], "resonio_emu_dir", o->emu_dir);
            if (o->sim)
                MPI_Info_set(infos[k], "resonio_simgrid_model", o->model);
            snprintf(v, sizeof v, "%lld", o->stripe);
            MPI_Info_set(infos[k], "striping_unit", v);
            snprintf(v, sizeof v, "%d", o->targets);
            MPI_Info_set(infos[k], "striping_factor", v);
            if (o->rados) {
                snprintf(v, sizeof v, "%lld", bench_ceph_object_size(o));
                MPI_Info_set(infos[k], "resonio_object_size", v);
            }
        }
        /* the implementation's hint and the specification's: "key=value ..." */
        char hb[sizeof p->hints + 64], *save = NULL;
        snprintf(hb, sizeof hb, "%s %s", p->hints,
                 bench_impls[ids[k]].hint ? bench_impls[ids[k]].hint : "");
        for (char *h = strtok_r(hb, " ", &save); h; h = strtok_r(NULL, " ", &save)) {
            char *eq = strchr(h, '=');
            *eq = 0;
            MPI_Info_set(infos[k], h, eq + 1);
        }
    }

    for (int r = 0; r <= o->rounds; r++)
        for (int k = 0; k < n; k++) {
            struct bench_impl_result *res = &p->res[k];
            const struct bench_impl *im = res->impl;
            struct probe pw, pr;
            struct bench_sel sel[2];
            memset(&pw, 0, sizeof pw);
            memset(&pr, 0, sizeof pr);
            memset(sel, 0, sizeof sel);
            double tw = 0, tr = 0;
            long long e = 0, st = 0;
            progress(&x, index, npoints, im->name, r);
            /* this round's data: new bytes every round, so nothing left from
             * an earlier round (a late write, a stale cache) can pass */
            x.salt = (unsigned)(r * 16 + k + 1);
            if (im->kind != IMPL_LIMIT && fill(&x))
                e++;
            /* memory: the probe round's, from a settled start (rss_settle),
             * without what its probes hold (probe_call) */
            double rss0 = 0, shm0 = -1;
            if (r == 0) {
                rss_settle();
                rss_reset();
                probe_peak = probe_left = probe_left_shm = 0;
                rss0 = rss_now_mib();
                shm0 = status_mib("RssShmem:");
            }
            first_bad[0] = 0;
            if (im->kind == IMPL_LIMIT)
                limit_round(&x, &tw, &tr, &e);
            else
                mpi_round(&x, res, infos[k], r == 0 ? &pw : NULL, r == 0 ? &pr : NULL, sel, &tw,
                          &tr, &e, &st);
            double t[2] = {tw, tr}, tmax[2];
            long long es[2] = {e, st}, esum[2];
            MPI_Allreduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            MPI_Allreduce(es, esum, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
            if (r == 0) {
                double peak = rss_mib() - probe_left, rssmax[2];
                if (probe_peak > peak)
                    peak = probe_peak;
                double rss[2] = {peak, rss0 > 0 && peak > rss0 ? peak - rss0 : 0};
                double rsssum[2];
                MPI_Allreduce(rss, rssmax, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                MPI_Allreduce(rss, rsssum, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                res->rss_mib = rssmax[0];
                res->rss_added_mib = rssmax[1];
                res->rss_mean_mib = rsssum[0] / x.np;
                res->rss_added_mean_mib = rsssum[1] / x.np;
                res->rss_added_mine = rss[1];
                /* less the shared memory the round added (what the probes'
                 * gathers added is theirs) */
                double shm1 = status_mib("RssShmem:"), shm_added = shm1 - shm0 - probe_left_shm;
                double priv = rss[1] - (shm_added > 0 ? shm_added : 0);
                res->rss_private_mine = shm0 < 0 || shm1 < 0 ? -1 : priv > 0 ? priv : 0;
                res->naggs = -1;
            }
            if (e)
                fprintf(stderr, "%sresonio-bench: rank %d: %s %s, %s, round %d: %lld wrong%s%s\n",
                        line_start(x.rank), x.rank, p->w->name, p->params, im->name, r, e,
                        first_bad[0] ? "; " : "", first_bad);
            if (r == 0 && im->kind == IMPL_RESONIO) {
                keep_probe(&x, &pw, 1, &res->w);
                keep_probe(&x, &pr, 0, &res->r);
            } else if (r == 0 && im->kind == IMPL_NATIVE && x.hosts > 1) {
                res->w.between_hosts = pw.net; /* counted the same way */
                res->r.between_hosts = pr.net;
            }
            if (r > 0 && im->kind != IMPL_LIMIT) {
                count_keep(&x, p->ncalls, &res->w);
                count_keep(&x, p->ncalls, &res->r);
                if (r == 1)
                    rss_by_role(res);
            }
            if (r > 0 && im->kind == IMPL_RESONIO) {
                keep_sel(&x, &sel[0], &res->w);
                keep_sel(&x, &sel[1], &res->r);
            }
            if (st)
                fprintf(stderr,
                        "%sresonio-bench: rank %d: %s %s, %s, round %d: %lld bytes of "
                        "never-written gaps are not zero\n",
                        line_start(x.rank), x.rank, p->w->name, p->params, im->name, r, st);
            res->errors += esum[0];
            res->strays += esum[1];
            errors += esum[0];
            if (r > 0) {
                double mib = (double)p->bytes / (1 << 20);
                res->w.mibs[res->w.n++] = tmax[0] > 0 ? mib / tmax[0] : 0;
                res->r.mibs[res->r.n++] = tmax[1] > 0 ? mib / tmax[1] : 0;
            }
        }
    if (n)
        remove_file(&x, infos[0]);
    for (int k = 0; k < n; k++) {
        summarize(&p->res[k].w);
        summarize(&p->res[k].r);
        if (infos[k] != MPI_INFO_NULL)
            MPI_Info_free(&infos[k]);
    }
    if (x.rank == 0) {
        if (live_progress())
            fprintf(stderr, "\r\033[K");
    }
out:
    p->seconds = MPI_Wtime() - t_start;
    bench_plan_free(&x.plan);
    free(x.wbuf);
    free(x.rbuf);
    free(x.lbuf);
    free(x.chk[0]);
    free(x.chk[1]);
    free(x.img);
    free(x.stream);
    return errors;
}
