/*
 * common.h — what every layer of resonio shares: internal error codes,
 * allocation, the settings machinery of hints (settings.h) and per-file
 * counters.
 *
 * Errors.  Inside resonio a function returns 0 or a negative int: -errno
 * from the storage drivers, or one of resonio's own codes (base.h, all
 * below RIO_E_BASE, far from any errno).  Each own code is declared once in
 * RIO_ERRORS, which gives its message and its MPI error class.  Conversion
 * to an MPI error code, with the operation and file name in its message,
 * happens only at the API edge (rio__err_to_mpi).  A function that fails
 * may add a detail ("filetype block 3 starts before block 2") with
 * rio__err_detail(); the edge appends it to the message.
 */
#ifndef RIO_COMMON_H
#define RIO_COMMON_H

#ifdef RIO_NO_MPI
#error "the MPI-free part (resonio_base, resonio-emud) includes base.h, not common.h"
#endif

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "base.h"
#include "resonio.h"

/** Message of an internal code (own code or -errno).  Static storage. */
const char *rio__err_message(int err);
/** The MPI class of an internal code (own code or -errno). */
int rio__err_class(int err);
/** Build an MPI error code for err in operation op on file name (may be
 *  NULL); its string names op, file, cause and any detail.  Clears the
 *  detail.  0 maps to MPI_SUCCESS. */
int rio__err_to_mpi(int err, const char *op, const char *name);

/* ---- allocation: the door and the detail are in base.h ----------------- */
/** Large blocks kept for reuse (alloc.c): at least n bytes, not zeroed;
 *  NULL when out of memory.  A block from rio__pool_alloc or
 *  rio__pool_realloc is released with rio__pool_free only, never free(). */
void *rio__pool_alloc(size_t n);
/** Grow p (NULL: a new block) to at least n bytes, keeping its contents;
 *  on failure p is untouched and NULL is returned. */
void *rio__pool_realloc(void *p, size_t n);
void rio__pool_free(void *p);
/** What the pool holds now: bytes and blocks (for tests and statistics). */
void rio__pool_held(size_t *bytes, int *blocks);
/** Read the pool's limit and set its finalize hook now, which calls MPI:
 *  done before threads that must not call MPI (the I/O threads of
 *  nonblocking calls, src/file/async.c) allocate from the pool. */
void rio__pool_setup(void);

/* ---- private communicators, kept for reuse (commcache.c) ------------- */
enum rio_comm_kind {
    RIO_COMM_DUP, /**< MPI_Comm_dup of the parent */
    RIO_COMM_NODE /**< MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED) */
};
/** A private communicator of kind made from parent: one kept from an
 *  earlier take when every rank holds the same one (counted in *reused),
 *  else a new one (counted in *made); either counter may be NULL.
 *  Collective over parent.  Returns an MPI error code (then *out is
 *  MPI_COMM_NULL and nothing is counted). */
int rio__comm_take(MPI_Comm parent, enum rio_comm_kind kind, MPI_Comm *out, long long *made,
                   long long *reused);
/** Give back a communicator from rio__comm_take (kept for the next take,
 *  or freed); *comm becomes MPI_COMM_NULL.  Collective like MPI_Comm_free:
 *  every rank gives back its own at the same point. */
void rio__comm_give(MPI_Comm *comm);

/* ---- hints: each owner's settings, in one struct per file ------------ */
#include "settings.h"

/* ---- per-file counters (the public struct is the record) -------------- */
typedef struct rio_stats rio_stats;

/* A file's counters are shared by every thread that uses the file: under
 * MPI_THREAD_MULTIPLE several threads may make independent calls on one
 * handle at once.  They change by relaxed atomic read-modify-writes: no
 * lock, one locked instruction when uncontended, nothing beside the
 * storage request or call it counts; no ordering is needed because only
 * the totals are read.  Readers load them the same way. */
static inline void rio__stat_add(long long *c, long long n)
{
    __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}
static inline long long rio__stat_get(const long long *c)
{
    return __atomic_load_n(c, __ATOMIC_RELAXED);
}
static inline void rio__stat_add_time(double *t, double d)
{
    double old, sum;
    __atomic_load(t, &old, __ATOMIC_RELAXED);
    do
        sum = old + d;
    while (!__atomic_compare_exchange(t, &old, &sum, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}
static inline double rio__stat_get_time(const double *t)
{
    double v;
    __atomic_load(t, &v, __ATOMIC_RELAXED);
    return v;
}

/** Seconds from a monotonic clock. */
double rio__now(void);
/** CPU seconds the calling thread has used (its own clock: time waiting
 *  for another rank on a shared core does not count). */
double rio__cpu_now(void);

/* Reductions of MPI_Offset values use this type: Open MPI 4.1 reduces
 * MPI_OFFSET as unsigned (MAX of 5 and -1 is -1), and MPI_Offset is a
 * long long in both MPI libraries resonio builds with. */
#define RIO_MPI_OFFSET_SIGNED MPI_LONG_LONG
_Static_assert(sizeof(MPI_Offset) == sizeof(long long), "MPI_Offset is not a long long");


/* Copy one run of n bytes between buffers that do not overlap.  Fine-
 * grained types and collective calls copy runs of a few bytes by the
 * hundred thousand, where a call into the C library per run costs more
 * than the bytes: 4 to 16 bytes are two overlapping words, 17 to 64 two
 * or four overlapping 16-byte pieces. */
static inline void rio__copy_run(void *dst, const void *src, MPI_Offset len)
{
    char *d = dst;
    const char *s = src;
    size_t n = (size_t)len;
    if (n > 16 && n <= 64) {
        /* 16-byte pieces from both ends, overlapping in the middle */
        struct b16 {
            uint64_t a, b;
        } x, y, u, v;
        memcpy(&x, s, 16);
        memcpy(&y, s + n - 16, 16);
        if (n > 32) {
            memcpy(&u, s + 16, 16);
            memcpy(&v, s + n - 32, 16);
            memcpy(d + 16, &u, 16);
            memcpy(d + n - 32, &v, 16);
        }
        memcpy(d, &x, 16);
        memcpy(d + n - 16, &y, 16);
    } else if (n >= 8 && n <= 16) {
        uint64_t x, y;
        memcpy(&x, s, 8);
        memcpy(&y, s + n - 8, 8);
        memcpy(d, &x, 8);
        memcpy(d + n - 8, &y, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t x, y;
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else {
        memcpy(d, s, n);
    }
}

/* Copy n runs of len bytes, the k-th from src + k * sstride to dst + k *
 * dstride (runs do not overlap).  The strided groups of a collective call
 * are tens of thousands of 4- or 8-byte elements (a vector of ints or
 * doubles): those lengths get a loop of their own, whose copy is one load
 * and one store. */
static inline void rio__copy_strided(char *dst, MPI_Offset dstride, const char *src,
                                     MPI_Offset sstride, MPI_Offset len, MPI_Offset n)
{
    if (len == 4)
        for (MPI_Offset k = 0; k < n; k++, dst += dstride, src += sstride)
            memcpy(dst, src, 4);
    else if (len == 8)
        for (MPI_Offset k = 0; k < n; k++, dst += dstride, src += sstride)
            memcpy(dst, src, 8);
    else
        for (MPI_Offset k = 0; k < n; k++, dst += dstride, src += sstride)
            rio__copy_run(dst, src, len);
}

#endif /* RIO_COMMON_H */
