/*
 * alloc.c — the pool of large blocks.  (The door for every other heap
 * allocation, through which a test makes the N-th one fail, is in base.c;
 * the pool's allocations count against the same setting.)
 *
 * Large blocks (rio__pool_*) are kept for reuse, process-wide.  The
 * first touch of a fresh page costs microseconds (1.5 us per 4 KiB on the
 * development machine, ten times the cost of writing a page already
 * there), so a collective call that builds
 * megabytes of piece lists, metadata and round buffers spends more time
 * faulting pages in than moving data, and the C library hands large
 * blocks back to the system at free.  Freed pool blocks of POOL_MIN bytes
 * and more stay here, up to RESONIO_POOL_MIB mebibytes (default
 * POOL_DEFAULT_MIB; 0 keeps none), and the next call or file takes the
 * smallest that fits; the oldest go first when the limit is reached.  They
 * are returned to the system when MPI finalizes, or earlier when the
 * program asks (rio_release_memory).  Each block carries its capacity in a
 * header in front of what the caller gets.
 */
#include "common.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pool of large blocks ------------------------------------------ */

#define POOL_MIN ((size_t)64 << 10)
#define POOL_DEFAULT_MIB 128
#define POOL_SLOTS 64
#define POOL_HEADER 32 /* keeps malloc's 16-byte alignment */

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char *base; /* the block, header included */
    size_t cap; /* bytes after the header */
    unsigned long long age;
} pool[POOL_SLOTS];
static int npool;
static size_t pool_bytes, pool_limit = (size_t)-1;
static unsigned long long pool_clock;
static int pool_keyval = MPI_KEYVAL_INVALID;

static size_t cap_of(const void *p)
{
    size_t cap;
    memcpy(&cap, (const char *)p - POOL_HEADER, sizeof cap);
    return cap;
}

/* Free every kept block.  Called with pool_lock held. */
static void pool_drain(void)
{
    for (int i = 0; i < npool; i++)
        free(pool[i].base);
    npool = 0;
    pool_bytes = 0;
}

static int pool_finalize(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    pthread_mutex_lock(&pool_lock);
    pool_drain();
    pool_limit = 0; /* what is freed later goes back to the system */
    pthread_mutex_unlock(&pool_lock);
    return MPI_SUCCESS;
}

/* The limit, read once; the finalize hook, set once.  With pool_lock. */
static void pool_setup(void)
{
    if (pool_limit != (size_t)-1)
        return;
    const char *e = getenv("RESONIO_POOL_MIB");
    char *end;
    long mib = e && *e ? strtol(e, &end, 10) : POOL_DEFAULT_MIB;
    if (e && *e && (*end || mib < 0))
        mib = POOL_DEFAULT_MIB;
    pool_limit = (size_t)mib << 20;
    int up = 0;
    if (MPI_Initialized(&up) == MPI_SUCCESS && up &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, pool_finalize, &pool_keyval, NULL) ==
            MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, pool_keyval, NULL);
}

void rio__pool_setup(void)
{
    pthread_mutex_lock(&pool_lock);
    pool_setup();
    pthread_mutex_unlock(&pool_lock);
}

void *rio__pool_alloc(size_t n)
{
    if (rio__alloc_fail_now())
        return NULL;
    n = n ? n : 1;
    char *base = NULL;
    size_t cap = n;
    if (n >= POOL_MIN) {
        pthread_mutex_lock(&pool_lock);
        int best = -1;
        for (int i = 0; i < npool; i++)
            if (pool[i].cap >= n && (best < 0 || pool[i].cap < pool[best].cap))
                best = i;
        if (best >= 0) {
            base = pool[best].base;
            cap = pool[best].cap;
            pool_bytes -= cap;
            pool[best] = pool[--npool];
        }
        pthread_mutex_unlock(&pool_lock);
    }
    if (!base) {
        if (n > (size_t)-1 - POOL_HEADER)
            return NULL;
        base = malloc(n + POOL_HEADER);
        if (!base)
            return NULL;
    }
    memcpy(base, &cap, sizeof cap);
    return base + POOL_HEADER;
}

void *rio__pool_realloc(void *p, size_t n)
{
    if (p && cap_of(p) >= n)
        return p;
    void *q = rio__pool_alloc(n);
    if (!q)
        return NULL;
    if (p) {
        memcpy(q, p, cap_of(p));
        rio__pool_free(p);
    }
    return q;
}

void rio__pool_free(void *p)
{
    if (!p)
        return;
    char *base = (char *)p - POOL_HEADER;
    size_t cap = cap_of(p);
    if (cap >= POOL_MIN) {
        pthread_mutex_lock(&pool_lock);
        pool_setup();
        if (cap <= pool_limit) {
            /* room: the oldest blocks go first */
            while (npool > 0 && (npool == POOL_SLOTS || pool_bytes + cap > pool_limit)) {
                int old = 0;
                for (int i = 1; i < npool; i++)
                    if (pool[i].age < pool[old].age)
                        old = i;
                free(pool[old].base);
                pool_bytes -= pool[old].cap;
                pool[old] = pool[--npool];
            }
            pool[npool].base = base;
            pool[npool].cap = cap;
            pool[npool].age = ++pool_clock;
            npool++;
            pool_bytes += cap;
            base = NULL;
        }
        pthread_mutex_unlock(&pool_lock);
    }
    free(base);
}

int rio_release_memory(size_t *released)
{
    pthread_mutex_lock(&pool_lock);
    size_t bytes = pool_bytes;
    pool_drain();
    pthread_mutex_unlock(&pool_lock);
    if (released)
        *released = bytes;
    return MPI_SUCCESS;
}

void rio__pool_held(size_t *bytes, int *blocks)
{
    pthread_mutex_lock(&pool_lock);
    *bytes = pool_bytes;
    *blocks = npool;
    pthread_mutex_unlock(&pool_lock);
}
