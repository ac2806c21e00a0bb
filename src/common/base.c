/*
 * base.c — the allocation door and the thread's error detail (base.h):
 * the shared services the MPI-free code of resonio-emud uses too.
 *
 * Every heap allocation of resonio goes through rio__malloc and its kin
 * so that a test can make the N-th one fail (rio__malloc_fail_at) and
 * check that each path cleans up and reports out of memory.  The detail of
 * an error is per thread: a failing function leaves it, the edge that
 * turns the error into an MPI code (err.c) takes it, so one thread's cause
 * never appears in another thread's message.
 */
#include "base.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_long fail_countdown;

long rio__malloc_fail_at(long n)
{
    return atomic_exchange(&fail_countdown, n);
}

int rio__alloc_fail_now(void)
{
    long c = atomic_load(&fail_countdown);
    if (c <= 0)
        return 0;
    c = atomic_fetch_sub(&fail_countdown, 1);
    return c == 1;
}

void *rio__malloc(size_t n)
{
    if (rio__alloc_fail_now())
        return NULL;
    return malloc(n ? n : 1);
}

void *rio__calloc(size_t n, size_t size)
{
    if (rio__alloc_fail_now())
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *rio__realloc(void *p, size_t n)
{
    if (rio__alloc_fail_now())
        return NULL;
    return realloc(p, n ? n : 1);
}

void rio__strcpy(char *dst, size_t n, const char *s)
{
    if (!n)
        return;
    size_t len = strnlen(s, n - 1);
    memcpy(dst, s, len);
    dst[len] = 0;
}

char *rio__strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = rio__malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* ---- the error detail -------------------------------------------------- */

static _Thread_local char err_detail[RIO_ERR_DETAIL_MAX];

const char *rio__err_detail_peek(void)
{
    return err_detail;
}

void rio__err_detail_clear(void)
{
    err_detail[0] = '\0';
}

void rio__err_detail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err_detail, sizeof err_detail, fmt, ap);
    va_end(ap);
}
