/*
 * alloc.c — the one door for heap memory, so that tests can make the N-th
 * allocation fail and check that every path cleans up and reports
 * RIO_E_NOMEM.
 */
#include "common.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static atomic_long fail_countdown;

long rio__malloc_fail_at(long n)
{
    return atomic_exchange(&fail_countdown, n);
}

static int should_fail(void)
{
    long c = atomic_load(&fail_countdown);
    if (c <= 0)
        return 0;
    c = atomic_fetch_sub(&fail_countdown, 1);
    return c == 1;
}

void *rio__malloc(size_t n)
{
    if (should_fail())
        return NULL;
    return malloc(n ? n : 1);
}

void *rio__calloc(size_t n, size_t size)
{
    if (should_fail())
        return NULL;
    return calloc(n ? n : 1, size ? size : 1);
}

void *rio__realloc(void *p, size_t n)
{
    if (should_fail())
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
