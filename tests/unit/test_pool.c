/*
 * test_pool.c — the pool of large blocks (src/common/alloc.c).
 *
 * With RESONIO_POOL_MIB=2 (set before the first free, when the limit is
 * read): small blocks are not kept; a freed large block is kept and a later
 * request that fits takes the same memory back; the smallest kept block
 * that fits is the one taken; realloc does not move a block that is large
 * enough and keeps the contents when it must; the oldest blocks leave
 * first at the limit, and a block larger than the limit is not kept; an
 * injected allocation failure fails a request even when a block is kept,
 * and leaves the block there; rio_release_memory empties the pool and
 * says how much it held, and the pool keeps blocks again afterwards;
 * MPI_Finalize empties the pool.
 */
#include <stdlib.h>
#include <string.h>

#include "common/common.h"
#include "unit.h"

#define KIB ((size_t)1 << 10)
#define MIB ((size_t)1 << 20)

static void held(size_t want_bytes, int want_blocks, const char *when)
{
    size_t b;
    int n;
    rio__pool_held(&b, &n);
    CHECK(b == want_bytes && n == want_blocks,
          "%s: the pool holds %zu bytes in %d blocks, want %zu in %d", when, b, n, want_bytes,
          want_blocks);
}

int main(int argc, char **argv)
{
    setenv("RESONIO_POOL_MIB", "2", 1);
    MPI_Init(&argc, &argv);

    void *s = rio__pool_alloc(4 * KIB);
    CHECK(s != NULL, "alloc 4 KiB");
    rio__pool_free(s);
    held(0, 0, "after freeing 4 KiB");

    /* kept, and taken back */
    char *a = rio__pool_alloc(MIB);
    CHECK(a != NULL, "alloc 1 MiB");
    memset(a, 0x5A, MIB);
    rio__pool_free(a);
    held(MIB, 1, "after freeing 1 MiB");
    char *b = rio__pool_alloc(512 * KIB);
    CHECK(b == a, "512 KiB takes the kept 1 MiB block (%p, kept %p)", (void *)b, (void *)a);
    CHECK(b && b[0] == 0x5A && b[MIB - 1] == 0x5A, "the same memory");
    held(0, 0, "after taking it back");

    /* realloc: in place within the capacity, contents kept beyond it */
    char *c = rio__pool_realloc(b, MIB);
    CHECK(c == b, "realloc within the capacity does not move");
    c[0] = 1;
    c[MIB - 1] = 2;
    char *d = rio__pool_realloc(c, MIB + 512 * KIB);
    CHECK(d && d[0] == 1 && d[MIB - 1] == 2, "realloc keeps the contents");
    held(MIB, 1, "after growing, the old block is kept");

    /* the limit: 1 MiB + 1.5 MiB > 2 MiB, so the older 1 MiB block goes */
    rio__pool_free(d);
    held(MIB + 512 * KIB, 1, "at the limit");
    char *e = rio__pool_alloc(MIB);
    CHECK(e == d, "1 MiB takes the 1.5 MiB block back");
    rio__pool_free(e);
    char *big = rio__pool_alloc(3 * MIB);
    CHECK(big != NULL, "alloc 3 MiB");
    rio__pool_free(big);
    held(MIB + 512 * KIB, 1, "a block over the limit is not kept");

    /* smallest fit: 512 KiB and 1.5 MiB kept, 400 KiB takes the 512 KiB */
    char *f = rio__pool_alloc(MIB + 512 * KIB); /* the kept one */
    char *g = rio__pool_alloc(512 * KIB);
    rio__pool_free(f);
    rio__pool_free(g);
    held(2 * MIB, 2, "two blocks, exactly the limit");
    char *h = rio__pool_alloc(400 * KIB);
    CHECK(h == g, "400 KiB takes the 512 KiB block, not the 1.5 MiB one");
    held(MIB + 512 * KIB, 1, "the larger block stays");

    /* an injected failure fails the request and keeps the block */
    rio__malloc_fail_at(1);
    char *x = rio__pool_alloc(MIB);
    long left = rio__malloc_fail_at(0);
    CHECK(x == NULL && left == 0, "the injected failure: %p, %ld to go", (void *)x, left);
    held(MIB + 512 * KIB, 1, "after the failed request");
    rio__pool_free(h);
    rio__pool_free(NULL);

    /* released on request, with what was held; kept again after */
    held(MIB + 512 * KIB + 512 * KIB, 2, "before the release");
    size_t released = 0;
    CHECK(rio_release_memory(&released) == MPI_SUCCESS, "rio_release_memory");
    CHECK(released == 2 * MIB, "released %zu bytes, want %zu", released, 2 * MIB);
    held(0, 0, "after rio_release_memory");
    CHECK(rio_release_memory(NULL) == MPI_SUCCESS, "rio_release_memory(NULL), nothing held");
    char *k = rio__pool_alloc(MIB);
    CHECK(k != NULL, "alloc 1 MiB after the release");
    rio__pool_free(k);
    held(MIB, 1, "kept again after the release");

    MPI_Finalize();
    held(0, 0, "after MPI_Finalize");
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
