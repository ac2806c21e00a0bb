/*
 * test_struct_size.c — the size rule of the public structs, on a struct
 * that has already grown.
 *
 * rio__stats_copy_sized is what rio_stats_get, rio_coll_last and
 * rio_select_get hand their whole struct to.  The published structs are
 * all at their first version, so here a second version (two members more
 * than the first) stands for a library that has grown: a caller of the
 * first version gets exactly the first version's bytes and not one byte
 * more (guard bytes after its struct), size staying its own; a caller of
 * the second version gets all of it; a caller of a third (larger) version
 * gets the library's part with size saying how much; size 0 (unset) or
 * below the first version is RIO_E_ARG with a message that names the
 * struct and the size, and leaves the caller's bytes as they were.  The
 * published structs' own first-version sizes are checked to be whole
 * prefixes of them (the members a first-version caller holds).
 */
#include "../../src/file/file_int.h"
#include "unit.h"

#include <stdalign.h>

#define GUARD 0xA5
#define BUF 256

struct v1 {
    size_t size;
    long long a;
    int b;
};
struct v2 {
    size_t size;
    long long a;
    int b;
    double c;
    long long d[3];
};
#define V1_SIZE RIO_SIZE_THROUGH(struct v1, b)

static alignas(max_align_t) unsigned char out[BUF];

static void arm(size_t size)
{
    memset(out, GUARD, sizeof out);
    memcpy(out, &size, sizeof size);
}

static size_t size_of(void)
{
    size_t s;
    memcpy(&s, out, sizeof s);
    return s;
}

/* The first byte from from on that is no longer a guard byte, -1 if none. */
static long long touched(size_t from)
{
    for (size_t i = from; i < sizeof out; i++)
        if (out[i] != GUARD)
            return (long long)i;
    return -1;
}

static struct v2 lib(void)
{
    struct v2 full;
    memset(&full, 0, sizeof full);
    full.size = sizeof full;
    full.a = 0x1122334455667788LL;
    full.b = 77;
    full.c = 2.5;
    for (int i = 0; i < 3; i++)
        full.d[i] = 1000 + i;
    return full;
}

int main(void)
{
    /* a first-version caller of a second-version library */
    struct v2 full = lib();
    arm(V1_SIZE);
    CHECK(rio__stats_copy_sized(out, &full, sizeof full, V1_SIZE, "struct v") == 0,
          "first version refused: %s", rio__err_detail_peek());
    struct v1 got;
    memcpy(&got, out, V1_SIZE);
    CHECK(size_of() == V1_SIZE, "size %zu, expected the caller's %zu", size_of(),
          (size_t)V1_SIZE);
    CHECK(got.a == full.a && got.b == full.b, "first version's members %lld %d", got.a, got.b);
    CHECK(touched(V1_SIZE) < 0, "byte %lld written past the first version's %zu",
          touched(V1_SIZE), (size_t)V1_SIZE);

    /* a second-version caller: all of it */
    full = lib();
    arm(sizeof(struct v2));
    CHECK(rio__stats_copy_sized(out, &full, sizeof full, V1_SIZE, "struct v") == 0,
          "second version refused");
    struct v2 all;
    memcpy(&all, out, sizeof all);
    CHECK(size_of() == sizeof(struct v2) && all.c == 2.5 && all.d[2] == 1002,
          "second version: size %zu, c %g, d[2] %lld", size_of(), all.c, all.d[2]);
    CHECK(touched(sizeof(struct v2)) < 0, "byte %lld written past the struct",
          touched(sizeof(struct v2)));

    /* a caller built against a later header: the library's part, said so */
    full = lib();
    arm(sizeof(struct v2) + 40);
    CHECK(rio__stats_copy_sized(out, &full, sizeof full, V1_SIZE, "struct v") == 0,
          "larger caller refused");
    CHECK(size_of() == sizeof(struct v2), "larger caller: size %zu, expected %zu", size_of(),
          sizeof(struct v2));
    CHECK(touched(sizeof(struct v2)) < 0, "byte %lld written past the library's struct",
          touched(sizeof(struct v2)));

    /* unset, and one byte short: refused, untouched */
    size_t bad[2] = {0, V1_SIZE - 1};
    for (int k = 0; k < 2; k++) {
        full = lib();
        arm(bad[k]);
        int rc = rio__stats_copy_sized(out, &full, sizeof full, V1_SIZE, "struct v");
        const char *msg = rio__err_detail_peek();
        CHECK(rc == RIO_E_ARG, "size %zu: rc %d, expected RIO_E_ARG", bad[k], rc);
        CHECK(msg && strstr(msg, "struct v") && strstr(msg, "size"),
              "size %zu: message \"%s\" names neither the struct nor the size", bad[k],
              msg ? msg : "(none)");
        CHECK(size_of() == bad[k] && touched(sizeof(size_t)) < 0,
              "size %zu refused, but the buffer changed (size %zu, byte %lld)", bad[k],
              size_of(), touched(sizeof(size_t)));
    }

    /* the published first versions: whole prefixes, up to the structs' ends */
    CHECK(RIO_STATS_SIZE_V1 <= sizeof(struct rio_stats) &&
              RIO_STATS_SIZE_V1 > offsetof(struct rio_stats, req_method),
          "RIO_STATS_SIZE_V1 %zu", (size_t)RIO_STATS_SIZE_V1);
    CHECK(RIO_COLL_INFO_SIZE_V1 <= sizeof(struct rio_coll_info) &&
              RIO_COLL_INFO_SIZE_V1 > offsetof(struct rio_coll_info, target_ascending),
          "RIO_COLL_INFO_SIZE_V1 %zu", (size_t)RIO_COLL_INFO_SIZE_V1);
    CHECK(RIO_SELECT_INFO_SIZE_V1 <= sizeof(struct rio_select_info) &&
              RIO_SELECT_INFO_SIZE_V1 > offsetof(struct rio_select_info, patience),
          "RIO_SELECT_INFO_SIZE_V1 %zu", (size_t)RIO_SELECT_INFO_SIZE_V1);
    CHECK(offsetof(struct rio_stats, size) == 0 && offsetof(struct rio_coll_info, size) == 0 &&
              offsetof(struct rio_select_info, size) == 0,
          "size is not every struct's first member");

    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
