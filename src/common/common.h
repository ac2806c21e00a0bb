/*
 * common.h — what every layer of resonio shares: internal error codes,
 * allocation, the settings machinery of hints (settings.h) and per-file
 * counters.
 *
 * Errors.  Inside resonio a function returns 0 or a negative int: -errno
 * from the storage drivers, or one of resonio's own codes below (all below
 * RIO_E_BASE, far from any errno).  Each own code is declared once in
 * RIO_ERRORS, which gives its message and its MPI error class.  Conversion
 * to an MPI error code, with the operation and file name in its message,
 * happens only at the API edge (rio__err_to_mpi).  A function that fails
 * may add a detail ("filetype block 3 starts before block 2") with
 * rio__err_detail(); the edge appends it to the message.
 */
#ifndef RIO_COMMON_H
#define RIO_COMMON_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "resonio.h"

#define RIO_E_BASE (-100000)

/* X(name, MPI class, message) */
#define RIO_ERRORS(X)                                                                   \
    X(RIO_E_FILE, MPI_ERR_FILE, "invalid file handle")                                  \
    X(RIO_E_AMODE, MPI_ERR_AMODE, "invalid access mode")                                \
    X(RIO_E_COUNT, MPI_ERR_COUNT, "invalid count")                                      \
    X(RIO_E_TYPE, MPI_ERR_TYPE, "invalid datatype")                                     \
    X(RIO_E_FILETYPE, MPI_ERR_TYPE, "invalid filetype for this view")                   \
    X(RIO_E_ARG, MPI_ERR_ARG, "invalid argument")                                       \
    X(RIO_E_BUFFER, MPI_ERR_BUFFER, "invalid buffer pointer")                           \
    X(RIO_E_INFO, MPI_ERR_INFO, "invalid info object")                                  \
    X(RIO_E_WRONLY, MPI_ERR_ACCESS, "file was opened write-only")                       \
    X(RIO_E_RDONLY, MPI_ERR_ACCESS, "file was opened read-only")                        \
    X(RIO_E_SEQUENTIAL, MPI_ERR_UNSUPPORTED_OPERATION,                                  \
      "operation not allowed on a file opened with MPI_MODE_SEQUENTIAL")                \
    X(RIO_E_DATAREP, MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation")    \
    X(RIO_E_DUP_DATAREP, MPI_ERR_DUP_DATAREP, "data representation already defined")    \
    X(RIO_E_CONVERSION, MPI_ERR_CONVERSION, "data conversion failed")                   \
    X(RIO_E_NOMEM, MPI_ERR_NO_MEM, "out of memory")                                     \
    X(RIO_E_NOT_SAME, MPI_ERR_NOT_SAME, "collective argument differs between ranks")    \
    X(RIO_E_PENDING_SPLIT, MPI_ERR_OTHER,                                               \
      "a split collective operation is already active on this file")                    \
    X(RIO_E_NO_SPLIT, MPI_ERR_OTHER, "no matching split collective operation is active") \
    X(RIO_E_REMOTE, MPI_ERR_IO, "the operation failed on another rank")                 \
    X(RIO_E_DRIVER, MPI_ERR_BAD_FILE, "unknown storage driver prefix")                  \
    X(RIO_E_OVERFLOW, MPI_ERR_ARG, "offset or size out of range")                       \
    X(RIO_E_SHORT, MPI_ERR_IO, "storage made no progress (zero-length transfer)")

enum rio_err {
    RIO_E__FIRST = RIO_E_BASE,
#define RIO_ERR_ENUM(name, cls, msg) name,
    RIO_ERRORS(RIO_ERR_ENUM)
#undef RIO_ERR_ENUM
    RIO_E__LAST
};

/** Message of an internal code (own code or -errno).  Static storage. */
const char *rio__err_message(int err);
/** The MPI class of an internal code (own code or -errno). */
int rio__err_class(int err);
/** Attach printf-style detail to the error being returned by this thread. */
void rio__err_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The detail attached so far on this thread ("" if none). */
const char *rio__err_detail_peek(void);
/** Build an MPI error code for err in operation op on file name (may be
 *  NULL); its string names op, file, cause and any detail.  Clears the
 *  detail.  0 maps to MPI_SUCCESS. */
int rio__err_to_mpi(int err, const char *op, const char *name);

/* ---- allocation: one door, so a test can make it fail ----------------- */
void *rio__malloc(size_t n);
void *rio__calloc(size_t n, size_t size);
void *rio__realloc(void *p, size_t n);
char *rio__strdup(const char *s);
/** Copy s into dst of n bytes, cut short if needed; what snprintf "%s"
 *  does without its formatting cost (calls on every data access use it). */
void rio__strcpy(char *dst, size_t n, const char *s);
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
/** Make the n-th allocation from now fail (n >= 1); 0 turns it off.
 *  Returns how many allocations the previous setting still had to go
 *  (0: it fired, or none was set). */
long rio__malloc_fail_at(long n);

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

/* Reductions of MPI_Offset values use this type: Open MPI 4.1 reduces
 * MPI_OFFSET as unsigned (MAX of 5 and -1 is -1), and MPI_Offset is a
 * long long in both MPI libraries resonio builds with. */
#define RIO_MPI_OFFSET_SIGNED MPI_LONG_LONG
_Static_assert(sizeof(MPI_Offset) == sizeof(long long), "MPI_Offset is not a long long");

#define RIO_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RIO_MAX(a, b) ((a) > (b) ? (a) : (b))

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
