/*
 * base.h — what every layer uses and nothing of MPI: the allocation door
 * and the thread's error detail.
 *
 * Also resonio's own error codes, whose MPI classes only err.c expands.
 *
 * The emulated storage's code (src/emu, src/dloop) runs in resonio-emud,
 * which must not link MPI (it treats every message as hostile and runs
 * where no MPI library is), and in the library.  It reaches the project's
 * shared services through this header only; common.h, which the MPI
 * layers include, includes it.
 */
#ifndef RIO_BASE_H
#define RIO_BASE_H

#include <stddef.h>

/* ---- allocation: one door, so a test can make it fail ----------------- */
void *rio__malloc(size_t n);
void *rio__calloc(size_t n, size_t size);
void *rio__realloc(void *p, size_t n);
char *rio__strdup(const char *s);
/** Copy s into dst of n bytes, cut short if needed; what snprintf "%s"
 *  does without its formatting cost (calls on every data access use it). */
void rio__strcpy(char *dst, size_t n, const char *s);
/** Make the n-th allocation from now fail (n >= 1); 0 turns it off.
 *  Returns how many allocations the previous setting still had to go
 *  (0: it fired, or none was set). */
long rio__malloc_fail_at(long n);
/** Counts one allocation against rio__malloc_fail_at and says whether it
 *  is the one to fail: for doors of their own (the pool, alloc.c). */
int rio__alloc_fail_now(void);

/* ---- resonio's own error codes (common.h says how errors travel) --------
 * The class column names MPI's constants, but only err.c, which includes
 * MPI, expands it; the enum needs none of MPI. */
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
    X(RIO_E_SHORT, MPI_ERR_IO, "storage made no progress (zero-length transfer)")          \
    X(RIO_E_LAYOUT, MPI_ERR_IO, "the storage refuses the file layout asked for")         \
    X(RIO_E_BADNAME, MPI_ERR_BAD_FILE, "invalid file name for its storage driver")      \
    X(RIO_E_NOLOCK, MPI_ERR_UNSUPPORTED_OPERATION,                                      \
      "the storage has no byte-range locks, which atomic mode needs")                   \
    X(RIO_E_PENDING_IO, MPI_ERR_OTHER,                                                  \
      "nonblocking requests on this file were not completed (waited for) or freed")       \
    X(RIO_E_NO_SHARED_FP, MPI_ERR_UNSUPPORTED_OPERATION,                                \
      "the file has no shared file pointer: the MPI library could not make its window")

enum rio_err {
    RIO_E__FIRST = RIO_E_BASE,
#define RIO_ERR_ENUM(name, cls, msg) name,
    RIO_ERRORS(RIO_ERR_ENUM)
#undef RIO_ERR_ENUM
    RIO_E__LAST
};

/* ---- the error detail of this thread ----------------------------------- */
/** Attach printf-style detail to the error being returned by this thread. */
void rio__err_detail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** The detail attached so far on this thread ("" if none). */
const char *rio__err_detail_peek(void);
/** Forget this thread's detail (the edge does, once it has used it). */
void rio__err_detail_clear(void);
/** Bytes of detail kept, the terminating NUL included. */
#define RIO_ERR_DETAIL_MAX 512

#define RIO_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RIO_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif /* RIO_BASE_H */
