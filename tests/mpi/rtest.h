/*
 * rtest.h — what resonio's MPI test programs share.
 *
 * Every program follows ROMIO's test convention: it takes `-fname <path>`
 * and creates its files as <path>.<something>; it counts errors, reduces
 * the count over all ranks, and rank 0 prints "No Errors" only when the
 * total is 0 (otherwise each error, with the rank that saw it, and then
 * " Found N errors").  ctest passes a test on the "No Errors" line.
 *
 * Data is a deterministic byte pattern pat(rank, index): the byte a rank
 * puts at file offset o is pat(rank, o), so the expected content of a file
 * follows from who wrote where, and a shifted, lost or foreign byte shows.
 * Files are verified with plain POSIX reads as well as through the library.
 *
 * Everything here is static inline so each program includes it once and
 * unused helpers cost nothing (the tests build with -Wall -Wextra -Werror).
 */
#ifndef RTEST_H
#define RTEST_H

#include <mpi.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Per-program state: one translation unit per program. */
static int rt_rank, rt_nprocs, rt_errs, rt_shown;
static const char *rt_fname = "rtest";

/* Errors printed per rank; the rest are only counted. */
#define RT_MAX_SHOWN 40

static inline void rt_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static inline void rt_fail(const char *file, int line, const char *fmt, ...)
{
    rt_errs++;
    if (rt_shown >= RT_MAX_SHOWN) {
        if (rt_shown++ == RT_MAX_SHOWN)
            printf("[%d] (further errors on this rank are counted, not shown)\n", rt_rank);
        fflush(stdout);
        return;
    }
    rt_shown++;
    char msg[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    printf("[%d] %s:%d: %s\n", rt_rank, base ? base + 1 : file, line, msg);
    fflush(stdout);
}

/** Count an error (and print it) unless cond holds. */
#define CHECK(cond, ...)                                  \
    do {                                                  \
        if (!(cond))                                      \
            rt_fail(__FILE__, __LINE__, __VA_ARGS__);     \
    } while (0)

/** A note that is not an error (e.g. a case that cannot run here); rank 0. */
static inline void rt_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void rt_note(const char *fmt, ...)
{
    if (rt_rank != 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    printf("note: ");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
}

/** The text of an MPI error code. */
static inline const char *rt_errstr(int code, char *buf)
{
    int len = 0;
    buf[0] = '\0';
    if (MPI_Error_string(code, buf, &len) != MPI_SUCCESS)
        snprintf(buf, MPI_MAX_ERROR_STRING, "(code %d, no string)", code);
    return buf;
}

static inline int rt_class(int code)
{
    int cls = -1;
    if (MPI_Error_class(code, &cls) != MPI_SUCCESS)
        return -1;
    return cls;
}

/** A call that must succeed; returns nonzero if it did. */
#define RT_OK(call) rt_ok((call), #call, __FILE__, __LINE__)
static inline int rt_ok(int code, const char *what, const char *file, int line)
{
    if (code != MPI_SUCCESS) {
        char s[MPI_MAX_ERROR_STRING];
        rt_fail(file, line, "%s failed: %s", what, rt_errstr(code, s));
    }
    return code == MPI_SUCCESS;
}

/** Name of an error class, for messages. */
static inline const char *rt_class_name(int cls)
{
    switch (cls) {
#define C(x) case x: return #x;
    C(MPI_SUCCESS) C(MPI_ERR_FILE) C(MPI_ERR_AMODE) C(MPI_ERR_COUNT) C(MPI_ERR_TYPE)
    C(MPI_ERR_ARG) C(MPI_ERR_ACCESS) C(MPI_ERR_NO_SUCH_FILE) C(MPI_ERR_FILE_EXISTS)
    C(MPI_ERR_UNSUPPORTED_OPERATION) C(MPI_ERR_UNSUPPORTED_DATAREP) C(MPI_ERR_DUP_DATAREP)
    C(MPI_ERR_NO_SPACE) C(MPI_ERR_IO) C(MPI_ERR_BAD_FILE) C(MPI_ERR_NOT_SAME) C(MPI_ERR_OTHER)
    C(MPI_ERR_READ_ONLY) C(MPI_ERR_CONVERSION) C(MPI_ERR_NO_MEM) C(MPI_ERR_INFO)
    C(MPI_ERR_FILE_IN_USE) C(MPI_ERR_QUOTA) C(MPI_ERR_BUFFER) C(MPI_ERR_REQUEST)
#undef C
    default: return "(other class)";
    }
}

/**
 * A call that must fail with error class cls and a message that names the
 * operation op and (if name is not NULL) the file.  Returns nonzero if so.
 */
#define RT_ERR(code, cls, op, name) rt_err((code), (cls), (op), (name), __FILE__, __LINE__)
static inline int rt_err(int code, int cls, const char *op, const char *name, const char *file,
                         int line)
{
    char s[MPI_MAX_ERROR_STRING];
    if (code == MPI_SUCCESS) {
        rt_fail(file, line, "%s succeeded, expected class %s", op, rt_class_name(cls));
        return 0;
    }
    int got = rt_class(code);
    rt_errstr(code, s);
    int ok = 1;
    if (got != cls) {
        rt_fail(file, line, "%s: class %s (%d), expected %s (%d); message: %s", op,
                rt_class_name(got), got, rt_class_name(cls), cls, s);
        ok = 0;
    }
    if (!strstr(s, op)) {
        rt_fail(file, line, "%s: message does not name the operation: %s", op, s);
        ok = 0;
    }
    if (name && !strstr(s, name)) {
        rt_fail(file, line, "%s: message does not name the file %s: %s", op, name, s);
        ok = 0;
    }
    return ok;
}

static inline long long rt_minll(long long a, long long b)
{
    return a < b ? a : b;
}

/* ---- the byte pattern ------------------------------------------------------ */

/** Byte `i` of rank `rank`'s data.  Cheap (one multiply), different for
 *  neighbouring indices and for different ranks. */
static inline unsigned char pat(int rank, long long i)
{
    uint64_t x = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)(rank + 1) * 0xD1B54A32D192ED03ull;
    return (unsigned char)(x >> 56);
}

/** buf[k] = pat(rank, start + k). */
static inline void rt_fill(void *buf, size_t n, int rank, long long start)
{
    unsigned char *b = buf;
    for (size_t k = 0; k < n; k++)
        b[k] = pat(rank, start + (long long)k);
}

/** Index of the first k with buf[k] != pat(rank, start + k), or -1. */
static inline long long rt_find_bad(const void *buf, size_t n, int rank, long long start)
{
    const unsigned char *b = buf;
    for (size_t k = 0; k < n; k++)
        if (b[k] != pat(rank, start + (long long)k))
            return (long long)k;
    return -1;
}

/** Report (once) when buf is not pat(rank, start..); returns nonzero if ok. */
#define CHECK_PAT(buf, n, rank, start, ...) \
    rt_check_pat((buf), (n), (rank), (start), __FILE__, __LINE__, __VA_ARGS__)
static inline int rt_check_pat(const void *buf, size_t n, int rank, long long start,
                               const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static inline int rt_check_pat(const void *buf, size_t n, int rank, long long start,
                               const char *file, int line, const char *fmt, ...)
{
    long long bad = rt_find_bad(buf, n, rank, start);
    if (bad < 0)
        return 1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    long long nbad = 0;
    const unsigned char *b = buf;
    for (size_t k = (size_t)bad; k < n; k++)
        nbad += b[k] != pat(rank, start + (long long)k);
    rt_fail(file, line, "%s: byte %lld of %zu is 0x%02x, expected 0x%02x (pattern of rank %d at %lld); %lld bytes differ",
            what, bad, n, b[bad], pat(rank, start + bad), rank, start + bad, nbad);
    return 0;
}

/** Compare n bytes (where mask is NULL or mask[k] != 0); report the first
 *  difference once.  Returns nonzero if equal. */
#define CHECK_BYTES(got, exp, mask, n, ...) \
    rt_check_bytes((got), (exp), (mask), (n), __FILE__, __LINE__, __VA_ARGS__)
static inline int rt_check_bytes(const void *got, const void *exp, const unsigned char *mask,
                                 size_t n, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static inline int rt_check_bytes(const void *got, const void *exp, const unsigned char *mask,
                                 size_t n, const char *file, int line, const char *fmt, ...)
{
    const unsigned char *g = got, *e = exp;
    long long first = -1, nbad = 0;
    for (size_t k = 0; k < n; k++)
        if ((!mask || mask[k]) && g[k] != e[k]) {
            if (first < 0)
                first = (long long)k;
            nbad++;
        }
    if (first < 0)
        return 1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    rt_fail(file, line, "%s: byte %lld is 0x%02x, expected 0x%02x; %lld of %zu bytes differ", what,
            first, g[first], e[first], nbad, n);
    return 0;
}

/* ---- files through POSIX ----------------------------------------------------- */

/** "<fname>.<suffix>" into out (static size PATH_MAX-ish). */
static inline const char *rt_path(char *out, size_t len, const char *suffix)
{
    snprintf(out, len, "%s.%s", rt_fname, suffix);
    return out;
}

/** Size of a file by stat, or -1 (errno set) if it cannot be stat'ed. */
static inline long long rt_stat_size(const char *path)
{
    struct stat sb;
    if (stat(path, &sb) != 0)
        return -1;
    return (long long)sb.st_size;
}

static inline int rt_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

/** Read a whole file with open/pread.  Returns a malloc'ed buffer (at
 *  least 1 byte) and its length in *len, or NULL (error reported). */
#define RT_SLURP(path, len) rt_slurp((path), (len), __FILE__, __LINE__)
static inline unsigned char *rt_slurp(const char *path, long long *len, const char *file, int line)
{
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        rt_fail(file, line, "open(%s) for verification: %s", path, strerror(errno));
        return NULL;
    }
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        rt_fail(file, line, "fstat(%s): %s", path, strerror(errno));
        close(fd);
        return NULL;
    }
    size_t n = (size_t)sb.st_size;
    unsigned char *b = malloc(n ? n : 1);
    if (!b) {
        rt_fail(file, line, "out of memory for %zu bytes", n);
        close(fd);
        return NULL;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, b + got, n - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            rt_fail(file, line, "pread(%s) at %zu: %s", path, got, r ? strerror(errno) : "EOF");
            break;
        }
        got += (size_t)r;
    }
    close(fd);
    *len = (long long)got;
    return b;
}

/** pread exactly n bytes at off; returns bytes read (short at EOF). */
static inline long long rt_pread(const char *path, void *buf, size_t n, long long off)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, (char *)buf + got, n - got, (off_t)(off + (long long)got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    return (long long)got;
}

/** Write a file with POSIX calls (for setting up a known content). */
static inline int rt_pwrite_file(const char *path, const void *buf, size_t n, long long off,
                                 int trunc)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (trunc ? O_TRUNC : 0), 0666);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < n) {
        ssize_t r = pwrite(fd, (const char *)buf + done, n - done, (off_t)(off + (long long)done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            close(fd);
            return -1;
        }
        done += (size_t)r;
    }
    return close(fd);
}

/* ---- status ----------------------------------------------------------------- */

/** MPI_Get_count and MPI_Get_elements of st for type must be count and elems
 *  (MPI_UNDEFINED allowed as expected value). */
#define CHECK_STATUS(st, type, count, elems, ...) \
    rt_check_status((st), (type), (count), (elems), __FILE__, __LINE__, __VA_ARGS__)
static inline void rt_check_status(const MPI_Status *st, MPI_Datatype type, int count, int elems,
                                   const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
static inline void rt_check_status(const MPI_Status *st, MPI_Datatype type, int count, int elems,
                                   const char *file, int line, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    int c = -2, e = -2;
    MPI_Get_count(st, type, &c);
    MPI_Get_elements(st, type, &e);
    if (c != count)
        rt_fail(file, line, "%s: MPI_Get_count gave %d, expected %d", what, c, count);
    if (e != elems)
        rt_fail(file, line, "%s: MPI_Get_elements gave %d, expected %d", what, e, elems);
}

/* ---- info ---------------------------------------------------------------------- */

/** An info object with the key/value pairs given (NULL-terminated list);
 *  keys with a NULL or empty value are skipped. */
static inline MPI_Info rt_info(const char *key, ...)
{
    MPI_Info info;
    MPI_Info_create(&info);
    va_list ap;
    va_start(ap, key);
    for (const char *k = key; k; k = va_arg(ap, const char *)) {
        const char *v = va_arg(ap, const char *);
        if (v && *v)
            MPI_Info_set(info, k, v);
    }
    va_end(ap);
    return info;
}

/** Value of key in info into val (len bytes); 0 if absent. */
static inline int rt_info_get(MPI_Info info, const char *key, char *val, int len)
{
    int flag = 0;
    val[0] = '\0';
    MPI_Info_get(info, key, len - 1, val, &flag);
    return flag;
}

/* ---- program frame ------------------------------------------------------------ */

/** MPI_Init, rank and size, and -fname (default "rtest"); other arguments
 *  are left for the program: rt_arg("-method") finds them. */
static int rt_argc;
static char **rt_argv;
/** MPI_Init, or with -multiple on the command line MPI_Init_thread asking
 *  for MPI_THREAD_MULTIPLE: a library that does not grant it fails the
 *  test (an error counted, and said). */
static inline void rt_init(int *argc, char ***argv)
{
    int multiple = 0;
    for (int i = 1; i < *argc; i++)
        multiple |= !strcmp((*argv)[i], "-multiple");
    int provided = MPI_THREAD_SINGLE;
    if (multiple)
        MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    else
        MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &rt_nprocs);
    rt_argc = *argc;
    rt_argv = *argv;
    for (int i = 1; i + 1 < *argc; i++)
        if (!strcmp((*argv)[i], "-fname"))
            rt_fname = (*argv)[i + 1];
    if (multiple && provided != MPI_THREAD_MULTIPLE) {
        printf("[%d] MPI_THREAD_MULTIPLE asked for (-multiple), level %d provided\n", rt_rank,
               provided);
        rt_errs++;
    }
}

/** The value after option opt on the command line, or NULL. */
static inline const char *rt_arg(const char *opt)
{
    for (int i = 1; i + 1 < rt_argc; i++)
        if (!strcmp(rt_argv[i], opt))
            return rt_argv[i + 1];
    return NULL;
}

static inline void rt_watchdog_fire(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: hang\n";
    if (write(2, msg, sizeof msg - 1) < 0)
        _exit(1);
    _exit(1);
}

/** End the process with "watchdog: hang" (a failure for ctest) unless it
 *  is done within seconds: a call that leaves a rank waiting fails the
 *  test instead of stalling it until ctest's timeout. */
static inline void rt_watchdog(unsigned seconds)
{
    signal(SIGALRM, rt_watchdog_fire);
    alarm(seconds);
}

/** Reduce the error count, print the verdict on rank 0, finalize. */
static inline int rt_finish(void)
{
    int total = 0;
    fflush(stdout);
    MPI_Allreduce(&rt_errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rt_rank == 0) {
        if (total == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", total);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}

/** Sum of v over all ranks. */
static inline long long rt_sum(long long v)
{
    long long s = 0;
    MPI_Allreduce(&v, &s, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    return s;
}

/* The nodes of MPI_COMM_WORLD as the MPI library sees them (ranks that
 * share memory), numbered in the order of their lowest ranks; node_of
 * (rt_nprocs entries, may be NULL) gets each rank's.  Returns the count.
 * Collective. */
static inline int rt_nodes(int *node_of)
{
    MPI_Comm node;
    int leader = rt_rank, n = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    int *leaders = malloc(sizeof *leaders * (size_t)rt_nprocs);
    if (!leaders)
        abort();
    MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < rt_nprocs; i++) {
        int id = -1;
        for (int j = 0; j < i && id < 0; j++)
            if (leaders[j] == leaders[i])
                id = node_of ? node_of[j] : 0;
        if (id < 0)
            id = n++;
        if (node_of)
            node_of[i] = id;
    }
    free(leaders);
    return n;
}


/* ---- piece lists: byte ranges of a model access, in order -------------- */

struct rt_piece {
    long long off, len;
};

struct rt_list {
    struct rt_piece *p;
    int n, cap;
    long long total;
};

/** Append [off, off+len) (merged with the previous piece when adjacent);
 *  out of memory aborts the job. */
static inline void rt_list_add(struct rt_list *l, long long off, long long len)
{
    if (len <= 0)
        return;
    l->total += len;
    if (l->n > 0 && l->p[l->n - 1].off + l->p[l->n - 1].len == off) {
        l->p[l->n - 1].len += len;
        return;
    }
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->p = realloc(l->p, (size_t)l->cap * sizeof *l->p);
        if (!l->p) {
            fprintf(stderr, "rtest: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    l->p[l->n].off = off;
    l->p[l->n].len = len;
    l->n++;
}

static inline void rt_list_free(struct rt_list *l)
{
    free(l->p);
    memset(l, 0, sizeof *l);
}

#ifdef RESONIO_H /* the native API's header came first */
/** The values of resonio_strategy a test runs under: every strategy the
 *  library has (rio_strategy_name), then "auto"; RT_NSTRAT of them. */
#define RT_NSTRAT (rio_strategy_count() + 1)
static inline const char *rt_strategy(int s)
{
    return s < rio_strategy_count() ? rio_strategy_name(s) : "auto";
}
#endif

#endif /* RTEST_H */
