/*
 * fz_alloc.c — the allocation door of src/common/alloc.c for the fuzz
 * targets, which build without MPI: plain malloc, never failing on
 * purpose.
 */
#include <stdlib.h>

void *rio__malloc(size_t n);
void *rio__calloc(size_t n, size_t size);
void *rio__realloc(void *p, size_t n);

void *rio__malloc(size_t n)
{
    return malloc(n ? n : 1);
}

void *rio__calloc(size_t n, size_t size)
{
    return calloc(n ? n : 1, size ? size : 1);
}

void *rio__realloc(void *p, size_t n)
{
    return realloc(p, n ? n : 1);
}
