/*
 * test_dtype_basic.c — hand-written cases for the datatype engine.
 *
 * Every combiner against its expected merged regions (worked out by hand
 * in the comments), the info facts (size, bounds, regions, depth, contig,
 * monotonic), normalization (struct -> indexed, fused loops), the iterator
 * started at every byte and split at several limits, stopped and resumed,
 * pack/unpack against MPI_Pack/MPI_Unpack, filetype checks and the view
 * mapping.  Runs as an MPI singleton; argv[1] (a scratch dir) is unused.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/dtype_int.h"

#include "unit.h"

struct reg {
    long long off, len;
};

/* All regions of count instances, no limit. */
static int collect(struct rio_dtype *dt, MPI_Count count, MPI_Offset start, MPI_Offset max,
                   struct reg *out, int cap)
{
    struct rio_dtype_iter it;
    MPI_Offset off, len;
    int n = 0;
    if (rio__dtype_iter_init(&it, dt, count, start))
        return -1;
    while (rio__dtype_iter_next(&it, max, &off, &len)) {
        if (n < cap)
            out[n] = (struct reg){off, len};
        n++;
    }
    rio__dtype_iter_free(&it);
    return n;
}

/* The expected pieces of the stream from byte start, merged regions exp cut
 * at max (0: no cut). */
static int expected_from(const struct reg *exp, int n, MPI_Offset start, MPI_Offset max,
                         struct reg *out, int cap)
{
    MPI_Offset pos = 0;
    int k = 0;
    for (int i = 0; i < n; i++) {
        MPI_Offset o = exp[i].off, l = exp[i].len, rstart = pos;
        pos += l;
        if (pos <= start)
            continue;
        if (rstart < start) {
            o += start - rstart;
            l -= start - rstart;
        }
        while (l > 0) {
            MPI_Offset p = max > 0 && l > max ? max : l;
            if (k < cap)
                out[k] = (struct reg){o, p};
            k++;
            o += p;
            l -= p;
        }
    }
    return k;
}

static int same_regs(const struct reg *a, int na, const struct reg *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (a[i].off != b[i].off || a[i].len != b[i].len)
            return 0;
    return 1;
}

static void print_regs(const char *what, const struct reg *r, int n)
{
    printf("    %s (%d):", what, n);
    for (int i = 0; i < n && i < 24; i++)
        printf(" (%lld,%lld)", r[i].off, r[i].len);
    printf("%s\n", n > 24 ? " ..." : "");
}

#define CAP 4096

/* Pack count instances with MPI_Pack and with the engine and compare; also
 * unpack both ways into zeroed buffers. */
static void check_pack(const char *name, MPI_Datatype type, struct rio_dtype *dt, int count)
{
    const struct rio_dtype_info *in = rio__dtype_info(dt);
    MPI_Aint lo = in->true_lb + (count > 1 && in->extent < 0 ? (count - 1) * in->extent : 0);
    MPI_Aint hi = in->true_lb + in->true_extent +
                  (count > 1 && in->extent > 0 ? (count - 1) * in->extent : 0);
    size_t span = (size_t)(hi - lo) + 1;
    long long total = (long long)in->size * count;
    unsigned char *mem = malloc(span), *mem2 = calloc(span, 1), *mem3 = calloc(span, 1);
    unsigned char *a = malloc((size_t)total + 1), *b = malloc((size_t)total + 1);
    for (size_t i = 0; i < span; i++)
        mem[i] = (unsigned char)(i * 7 + 3);
    char *origin = (char *)mem - lo;
    int pos = 0;
    if (total == 0) { /* MPICH's MPI_Unpack divides by the size */
        CHECK(rio__dtype_pack(dt, count, origin, 0, 0, a) == 0, "%s: empty pack", name);
        goto out;
    }
    MPI_Pack(origin, count, type, a, (int)total + 1, &pos, MPI_COMM_SELF);
    int err = rio__dtype_pack(dt, count, origin, 0, total, b);
    CHECK(!err && pos == total && memcmp(a, b, (size_t)total) == 0, "%s: pack matches MPI_Pack",
          name);
    pos = 0;
    MPI_Unpack(a, (int)total + 1, &pos, (char *)mem2 - lo, count, type, MPI_COMM_SELF);
    err = rio__dtype_unpack(dt, count, (char *)mem3 - lo, 0, total, b);
    CHECK(!err && memcmp(mem2, mem3, span) == 0, "%s: unpack matches MPI_Unpack", name);
    /* a partial pack from the middle */
    if (total > 2) {
        err = rio__dtype_pack(dt, count, origin, 1, total - 2, b);
        CHECK(!err && memcmp(a + 1, b, (size_t)total - 2) == 0, "%s: partial pack", name);
    }
    CHECK(rio__dtype_pack(dt, count, origin, 1, total, b) == RIO_E_ARG,
          "%s: pack past the end is RIO_E_ARG", name);
out:
    free(mem);
    free(mem2);
    free(mem3);
    free(a);
    free(b);
}

/* Every start byte, several limits, and stop/resume against exp. */
static void check_starts(const char *name, struct rio_dtype *dt, int count, const struct reg *exp,
                         int n)
{
    static struct reg got[CAP], want[CAP];
    long long total = (long long)rio__dtype_info(dt)->size * count;
    const MPI_Offset maxes[] = {0, 1, 3, 5, 8};
    int bad = 0;
    for (MPI_Offset s = 0; s <= total && !bad; s++) {
        for (size_t m = 0; m < sizeof maxes / sizeof *maxes && !bad; m++) {
            int ng = collect(dt, count, s, maxes[m], got, CAP);
            int nw = expected_from(exp, n, s, maxes[m], want, CAP);
            if (!same_regs(got, ng, want, nw)) {
                printf("    start %lld max %lld\n", (long long)s, (long long)maxes[m]);
                print_regs("got", got, ng);
                print_regs("want", want, nw);
                bad = 1;
            }
        }
    }
    CHECK(!bad, "%s: iterator from every start byte with limits 0,1,3,5,8", name);

    /* Stop after k bytes (limit k on the first call), then either keep
     * calling or start a new iterator at the position reached. */
    bad = 0;
    for (MPI_Offset k = 1; k < total && !bad; k++) {
        struct rio_dtype_iter it, it2;
        MPI_Offset off, len, pos;
        int ng = 0;
        rio__dtype_iter_init(&it, dt, count, 0);
        MPI_Offset got_bytes = 0;
        while (got_bytes < k && rio__dtype_iter_next(&it, k - got_bytes, &off, &len)) {
            got[ng++] = (struct reg){off, len};
            got_bytes += len;
        }
        pos = rio__dtype_iter_pos(&it);
        if (pos != k)
            bad = 1;
        /* fresh iterator at pos; glue the pieces back to merged regions */
        rio__dtype_iter_init(&it2, dt, count, pos);
        while (rio__dtype_iter_next(&it2, 0, &off, &len))
            got[ng++] = (struct reg){off, len};
        rio__dtype_iter_free(&it2);
        rio__dtype_iter_free(&it);
        int nm = 0;
        for (int i = 0; i < ng; i++) {
            if (nm && got[nm - 1].off + got[nm - 1].len == got[i].off)
                got[nm - 1].len += got[i].len;
            else
                got[nm++] = got[i];
        }
        if (!same_regs(got, nm, exp, n)) {
            printf("    stop at %lld (pos %lld)\n", (long long)k, (long long)pos);
            print_regs("got", got, nm);
            bad = 1;
        }
    }
    CHECK(!bad, "%s: stop at every byte and resume with a new iterator", name);
}

/* Decode type, compare its regions for count instances with exp, check
 * pack and the iterator.  Returns the decoded form (caller puts it). */
static struct rio_dtype *expect(const char *name, MPI_Datatype type, int count,
                                const struct reg *exp, int n)
{
    static struct reg got[CAP];
    struct rio_dtype *dt = NULL;
    int err = rio__dtype_get(type, &dt);
    CHECK(!err && dt, "%s: decodes", name);
    if (err)
        return NULL;
    int ng = collect(dt, count, 0, 0, got, CAP);
    int ok = same_regs(got, ng, exp, n);
    CHECK(ok, "%s: regions", name);
    if (!ok) {
        char d[512];
        rio__dtype_describe(dt, d, sizeof d);
        printf("    %s\n", d);
        print_regs("got", got, ng);
        print_regs("want", exp, n);
    }
    check_pack(name, type, dt, count);
    check_starts(name, dt, count, exp, n);
    printf("ok - %s\n", name);
    return dt;
}

#define N(a) ((int)(sizeof(a) / sizeof *(a)))

static void info_is(const char *name, struct rio_dtype *dt, long long size, long long lb,
                    long long extent, long long regions, int depth, int contig, int monotonic)
{
    const struct rio_dtype_info *in = rio__dtype_info(dt);
    CHECK(in->size == size && in->lb == lb && in->extent == extent && in->regions == regions &&
              in->depth == depth && in->contig == contig && in->monotonic == monotonic,
          "%s: info size %lld lb %lld extent %lld regions %lld depth %d contig %d mono %d "
          "(want %lld %lld %lld %lld %d %d %d)",
          name, (long long)in->size, (long long)in->lb, (long long)in->extent,
          (long long)in->regions, in->depth, in->contig, in->monotonic, size, lb, extent, regions,
          depth, contig, monotonic);
}

static void describe_has(const char *name, struct rio_dtype *dt, const char *what)
{
    char d[512];
    rio__dtype_describe(dt, d, sizeof d);
    CHECK(strstr(d, what) == d, "%s: dataloop is '%s', want it to start with '%s'", name, d, what);
}

static void test_named(void)
{
    struct rio_dtype *dt;
    const struct reg r1[] = {{0, 12}};
    dt = expect("MPI_INT x3", MPI_INT, 3, r1, N(r1));
    info_is("MPI_INT", dt, 4, 0, 4, 1, 1, 1, 1);
    rio__dtype_put(dt);

    /* short at 0, int at 4, extent 8: the gap splits the runs; the int of
     * instance 0 touches the short of instance 1 */
    const struct reg r2[] = {{0, 2}, {4, 6}, {12, 4}};
    dt = expect("MPI_SHORT_INT x2", MPI_SHORT_INT, 2, r2, N(r2));
    info_is("MPI_SHORT_INT", dt, 6, 0, 8, 2, 1, 0, 1);
    rio__dtype_put(dt);

    const struct reg r3[] = {{0, 12}, {16, 12}};
    dt = expect("MPI_DOUBLE_INT x2", MPI_DOUBLE_INT, 2, r3, N(r3));
    rio__dtype_put(dt);

    /* cached: the same form comes back */
    struct rio_dtype *a = NULL, *b = NULL;
    rio__dtype_get(MPI_DOUBLE, &a);
    rio__dtype_get(MPI_DOUBLE, &b);
    CHECK(a && a == b, "predefined types are cached");
    rio__dtype_put(a);
    rio__dtype_put(b);

    CHECK(rio__dtype_get(MPI_DATATYPE_NULL, &a) == RIO_E_TYPE && !a,
          "MPI_DATATYPE_NULL is RIO_E_TYPE");

    MPI_Datatype f90;
    if (MPI_Type_create_f90_real(15, MPI_UNDEFINED, &f90) == MPI_SUCCESS) {
        int sz;
        MPI_Type_size(f90, &sz);
        const struct reg r4[] = {{0, 2 * sz}};
        dt = expect("f90 real(15) x2", f90, 2, r4, N(r4));
        info_is("f90 real", dt, sz, 0, sz, 1, 1, 1, 1);
        rio__dtype_put(dt);
    }
}

static void test_simple(void)
{
    MPI_Datatype t, t2, t3;
    struct rio_dtype *dt;

    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r1[] = {{0, 24}};
    dt = expect("contiguous(3, int) x2", t, 2, r1, N(r1));
    info_is("contiguous", dt, 12, 0, 12, 1, 1, 1, 1);
    rio__dtype_put(dt);

    /* dup: decoded separately, same regions */
    MPI_Type_dup(t, &t2);
    dt = expect("dup(contiguous)", t2, 2, r1, N(r1));
    rio__dtype_put(dt);
    MPI_Type_free(&t2);
    MPI_Type_free(&t);

    /* vector(3, 2, 4, int): blocks of 8 bytes at 0, 16, 32; extent 40; the
     * last block of instance 0 touches the first of instance 1 */
    MPI_Type_vector(3, 2, 4, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r2[] = {{0, 8}, {16, 8}, {32, 16}, {56, 8}, {72, 8}};
    dt = expect("vector(3,2,4,int) x2", t, 2, r2, N(r2));
    info_is("vector", dt, 24, 0, 40, 3, 1, 0, 1);
    describe_has("vector", dt, "vector(3 x 8B, stride 16");
    rio__dtype_put(dt);

    /* vector whose stride equals its block: contiguous */
    MPI_Type_vector(4, 2, 2, MPI_INT, &t2);
    MPI_Type_commit(&t2);
    const struct reg r2b[] = {{0, 32}};
    dt = expect("vector(4,2,2,int)", t2, 1, r2b, N(r2b));
    info_is("contiguous vector", dt, 32, 0, 32, 1, 1, 1, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&t2);

    /* contig of vector: vector(2,1,2,int) has extent 12 → 2 instances
     * contiguous(2) → (0,4)(8,4)(12,4)(20,4) merged to (0,4)(8,8)(20,4) */
    MPI_Type_vector(2, 1, 2, MPI_INT, &t2);
    MPI_Type_contiguous(2, t2, &t3);
    MPI_Type_commit(&t3);
    const struct reg r2c[] = {{0, 4}, {8, 8}, {20, 4}};
    dt = expect("contiguous(2, vector(2,1,2,int))", t3, 1, r2c, N(r2c));
    info_is("contig of vector", dt, 16, 0, 24, 3, 2, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&t3);

    /* vector of resized-to-period vector fuses into one vector:
     * v = vector(2,1,2,int) resized to extent 16 (period 8 x 2) */
    MPI_Type_create_resized(t2, 0, 16, &t3);
    MPI_Datatype t4;
    MPI_Type_contiguous(3, t3, &t4);
    MPI_Type_commit(&t4);
    const struct reg r2d[] = {{0, 4}, {8, 4}, {16, 4}, {24, 4}, {32, 4}, {40, 4}};
    dt = expect("contiguous(3, resized(vector,16))", t4, 1, r2d, N(r2d));
    info_is("fused vector", dt, 24, 0, 48, 6, 1, 0, 1);
    describe_has("fused vector", dt, "vector(6 x 4B, stride 8");
    rio__dtype_put(dt);
    MPI_Type_free(&t4);
    MPI_Type_free(&t3);
    MPI_Type_free(&t2);
    MPI_Type_free(&t);

    /* hvector with a negative stride: blocks at 0 and -8 */
    MPI_Type_create_hvector(2, 1, -8, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r3[] = {{0, 4}, {-8, 4}};
    dt = expect("hvector(2,1,-8,int)", t, 1, r3, N(r3));
    info_is("hvector", dt, 8, -8, 12, 2, 1, 0, 0);
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* indexed with a zero-length block, out of order */
    int bl[] = {1, 0, 2}, ds[] = {4, 0, 1};
    MPI_Type_indexed(3, bl, ds, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r4[] = {{16, 4}, {4, 8}};
    dt = expect("indexed({1,0,2},{4,0,1},int)", t, 1, r4, N(r4));
    info_is("indexed", dt, 12, 4, 16, 2, 1, 0, 0);
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* indexed whose blocks touch: merged to one run */
    int bl2[] = {1, 2, 1}, ds2[] = {1, 2, 4};
    MPI_Type_indexed(3, bl2, ds2, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r5[] = {{4, 32}};
    dt = expect("indexed touching x2", t, 2, r5, N(r5));
    info_is("indexed touching", dt, 16, 4, 16, 1, 1, 1, 0);
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    MPI_Aint hd[] = {100, 0, -20};
    int hb[] = {2, 1, 1};
    MPI_Type_create_hindexed(3, hb, hd, MPI_SHORT, &t);
    MPI_Type_commit(&t);
    const struct reg r6[] = {{100, 4}, {0, 2}, {-20, 2}};
    dt = expect("hindexed(short)", t, 1, r6, N(r6));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* indexed_block with evenly spaced blocks becomes a vector */
    int ib[] = {0, 2, 4};
    MPI_Type_create_indexed_block(3, 1, ib, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r7[] = {{0, 4}, {8, 4}, {16, 4}};
    dt = expect("indexed_block(3,1,{0,2,4})", t, 1, r7, N(r7));
    describe_has("indexed_block", dt, "vector(3 x 4B, stride 8");
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    MPI_Aint hb2[] = {16, 0, 40};
    MPI_Type_create_hindexed_block(3, 2, hb2, MPI_SHORT, &t);
    MPI_Type_commit(&t);
    const struct reg r8[] = {{16, 4}, {0, 4}, {40, 4}};
    dt = expect("hindexed_block(3,2,short)", t, 1, r8, N(r8));
    describe_has("hindexed_block", dt, "blockindexed(3 x 4B");
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* zero-size types yield nothing */
    MPI_Type_contiguous(0, MPI_INT, &t);
    MPI_Type_commit(&t);
    dt = expect("contiguous(0)", t, 5, NULL, 0);
    info_is("empty", dt, 0, 0, 0, 0, 0, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&t);
}

static void test_struct_resized(void)
{
    MPI_Datatype t, v, r;
    struct rio_dtype *dt;

    /* struct of equal leaves: an indexed leaf */
    int bl[] = {3, 2};
    MPI_Aint ds[] = {0, 100};
    MPI_Datatype ty[] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, bl, ds, ty, &t);
    MPI_Type_commit(&t);
    const struct reg r1[] = {{0, 12}, {100, 8}};
    dt = expect("struct(int x3 @0, int x2 @100)", t, 1, r1, N(r1));
    info_is("struct->indexed", dt, 20, 0, 108, 2, 1, 0, 1);
    describe_has("struct->indexed", dt, "indexed(2 blocks");
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* struct of different runs that touch: one run */
    int bl2[] = {1, 1, 2};
    MPI_Aint ds2[] = {0, 4, 12};
    MPI_Datatype ty2[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl2, ds2, ty2, &t);
    MPI_Type_commit(&t);
    const struct reg r2[] = {{0, 14}};
    dt = expect("struct(int, double, char x2)", t, 1, r2, N(r2));
    info_is("struct run", dt, 14, 0, 16, 1, 1, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* struct of identical derived children: indexed over the vector */
    MPI_Type_vector(2, 1, 3, MPI_INT, &v); /* (0,4)(12,4), extent 16 */
    int bl3[] = {1, 2};
    MPI_Aint ds3[] = {0, 64};
    MPI_Datatype ty3[] = {v, v};
    MPI_Type_create_struct(2, bl3, ds3, ty3, &t);
    MPI_Type_commit(&t);
    const struct reg r3[] = {{0, 4}, {12, 4}, {64, 4}, {76, 8}, {92, 4}};
    dt = expect("struct(vector, vector x2)", t, 1, r3, N(r3));
    info_is("struct of vectors", dt, 24, 0, 96, 5, 2, 0, 1);
    describe_has("struct of vectors", dt, "indexed(2 blocks");
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* struct of different derived children stays a struct */
    int bl4[] = {1, 1};
    MPI_Aint ds4[] = {0, 32};
    MPI_Datatype ty4[] = {v, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl4, ds4, ty4, &t);
    MPI_Type_commit(&t);
    const struct reg r4[] = {{0, 4}, {12, 4}, {32, 12}, {52, 4}, {72, 8}};
    dt = expect("struct(vector, double) x2", t, 2, r4, N(r4));
    describe_has("struct", dt, "struct(");
    info_is("struct", dt, 16, 0, 40, 3, 2, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* resized with negative lb: int with lb -4, extent 12 */
    MPI_Type_create_resized(MPI_INT, -4, 12, &r);
    MPI_Type_commit(&r);
    const struct reg r5[] = {{0, 4}, {12, 4}, {24, 4}};
    dt = expect("resized(int, -4, 12) x3", r, 3, r5, N(r5));
    info_is("resized", dt, 4, -4, 12, 1, 1, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&r);

    /* resized so that instances touch: hvector (0,4)(8,4) with extent 12 */
    MPI_Type_create_hvector(2, 1, 8, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 12, &r);
    MPI_Type_commit(&r);
    const struct reg r6[] = {{0, 4}, {8, 8}, {20, 8}, {32, 4}};
    dt = expect("resized(hvector, 0, 12) x3", r, 3, r6, N(r6));
    info_is("resized touching", dt, 8, 0, 12, 2, 1, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&r);

    /* resized shrinking extent so instances overlap: not monotonic across
     * instances, the stream still follows the typemap */
    MPI_Type_create_resized(t, 0, 4, &r);
    MPI_Type_commit(&r);
    const struct reg r7[] = {{0, 4}, {8, 4}, {4, 4}, {12, 4}};
    dt = expect("resized(hvector, 0, 4) x2", r, 2, r7, N(r7));
    rio__dtype_put(dt);
    MPI_Type_free(&r);
    MPI_Type_free(&t);

    /* contiguous of a resized int with negative lb: a byte vector */
    MPI_Type_create_resized(MPI_INT, -4, 8, &r);
    MPI_Type_contiguous(3, r, &t);
    MPI_Type_commit(&t);
    const struct reg r8[] = {{0, 4}, {8, 4}, {16, 4}};
    dt = expect("contiguous(3, resized(int,-4,8))", t, 1, r8, N(r8));
    describe_has("contig of resized", dt, "vector(3 x 4B, stride 8");
    rio__dtype_put(dt);
    MPI_Type_free(&t);
    MPI_Type_free(&r);
    MPI_Type_free(&v);
}

static void test_subarray_darray(void)
{
    MPI_Datatype t;
    struct rio_dtype *dt;
    int sizes[] = {4, 5}, subs[] = {2, 3}, starts[] = {1, 1};

    /* C: rows 1..2, columns 1..3 of a 4x5 int array */
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r1[] = {{24, 12}, {44, 12}, {104, 12}, {124, 12}};
    dt = expect("subarray C x2", t, 2, r1, N(r1));
    info_is("subarray C", dt, 24, 0, 80, 2, 1, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* Fortran: element (i,j) at (i + 4j) * 4; i in 1..2, j in 1..3 */
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r2[] = {{20, 8}, {36, 8}, {52, 8}};
    dt = expect("subarray Fortran", t, 1, r2, N(r2));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* 3-D C subarray of a derived old type (vector, extent 12) */
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_SHORT, &v); /* (0,2)(4,2), extent 6 */
    int s3[] = {2, 3, 2}, b3[] = {1, 2, 1}, o3[] = {1, 1, 1};
    MPI_Type_create_subarray(3, s3, b3, o3, MPI_ORDER_C, v, &t);
    MPI_Type_commit(&t);
    /* elements (1,1,1)=idx 9 and (1,2,1)=idx 11, each at idx*6 */
    const struct reg r3[] = {{54, 2}, {58, 2}, {66, 2}, {70, 2}};
    dt = expect("subarray 3-D of vector", t, 1, r3, N(r3));
    rio__dtype_put(dt);
    MPI_Type_free(&t);
    MPI_Type_free(&v);

    /* darray 1-D block: 10 ints on 3 procs, rank 1 owns 4..7 */
    int g1[] = {10}, dist_b[] = {MPI_DISTRIBUTE_BLOCK}, dflt[] = {MPI_DISTRIBUTE_DFLT_DARG},
        p3[] = {3};
    MPI_Type_create_darray(3, 1, 1, g1, dist_b, dflt, p3, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r4[] = {{16, 16}};
    dt = expect("darray block 1-D rank 1", t, 1, r4, N(r4));
    info_is("darray block", dt, 16, 0, 40, 1, 1, 0, 1);
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* rank 2 owns 8..9 (short last block) */
    MPI_Type_create_darray(3, 2, 1, g1, dist_b, dflt, p3, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r4b[] = {{32, 8}};
    dt = expect("darray block 1-D rank 2", t, 1, r4b, N(r4b));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* cyclic(2): 10 ints on 3 procs, rank 1 owns 2,3 and 8,9 */
    int dist_c[] = {MPI_DISTRIBUTE_CYCLIC}, two[] = {2};
    MPI_Type_create_darray(3, 1, 1, g1, dist_c, two, p3, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r5[] = {{8, 8}, {32, 8}};
    dt = expect("darray cyclic(2) 1-D", t, 1, r5, N(r5));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* cyclic(2) with a partial last block: 7 ints on 2 procs, rank 1 owns
     * 2,3 and 6 */
    int g7[] = {7}, p2[] = {2};
    MPI_Type_create_darray(2, 1, 1, g7, dist_c, two, p2, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r5b[] = {{8, 8}, {24, 4}};
    dt = expect("darray cyclic(2) tail", t, 1, r5b, N(r5b));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* cyclic(1) over 11 on 3 procs, rank 0: 0,3,6,9 (vector); rank 2:
     * 2,5,8 */
    int g11[] = {11}, one[] = {1};
    MPI_Type_create_darray(3, 2, 1, g11, dist_c, one, p3, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r5c[] = {{8, 4}, {20, 4}, {32, 4}};
    dt = expect("darray cyclic(1) rank 2", t, 1, r5c, N(r5c));
    describe_has("darray cyclic", dt, "vector(3 x 4B, stride 12");
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* 2-D block x block on a 2x2 grid, rank 3 = coords (1,1): rows 2..3,
     * columns 3..5 of a 4x6 array */
    int g2[] = {4, 6}, dbb[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
        d2[] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p22[] = {2, 2};
    MPI_Type_create_darray(4, 3, 2, g2, dbb, d2, p22, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r6[] = {{60, 12}, {84, 12}};
    dt = expect("darray block 2-D C", t, 1, r6, N(r6));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* Fortran: (i,j) at (i + 4j) * 4, i in 2..3, j in 3..5 */
    MPI_Type_create_darray(4, 3, 2, g2, dbb, d2, p22, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r7[] = {{56, 8}, {72, 8}, {88, 8}};
    dt = expect("darray block 2-D Fortran", t, 1, r7, N(r7));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* cyclic x none on a 2x1 grid, rank 1: rows 1 and 3 of 5x4 (C) */
    int g54[] = {5, 4}, dcn[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE}, p21[] = {2, 1};
    MPI_Type_create_darray(2, 1, 2, g54, dcn, d2, p21, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r8[] = {{16, 16}, {48, 16}};
    dt = expect("darray cyclic x none C", t, 1, r8, N(r8));
    rio__dtype_put(dt);
    MPI_Type_free(&t);

    /* the same in Fortran order: (i,j) at (i + 5j) * 4, i in {1,3} */
    MPI_Type_create_darray(2, 1, 2, g54, dcn, d2, p21, MPI_ORDER_FORTRAN, MPI_INT, &t);
    MPI_Type_commit(&t);
    const struct reg r9[] = {{4, 4}, {12, 4}, {24, 4}, {32, 4}, {44, 4},
                             {52, 4}, {64, 4}, {72, 4}};
    dt = expect("darray cyclic x none Fortran", t, 1, r9, N(r9));
    rio__dtype_put(dt);
    MPI_Type_free(&t);
}

static struct rio_dtype *get(MPI_Datatype t)
{
    struct rio_dtype *dt = NULL;
    rio__dtype_get(t, &dt);
    return dt;
}

/* rio__dtype_check_filetype, read_only or not; *overlaps must be 0 unless
 * the filetype was accepted for reading with overlaps. */
static int ft_overlaps;
static int check_ft(const struct rio_dtype *ft, const struct rio_dtype *et, int read_only)
{
    ft_overlaps = -1;
    return rio__dtype_check_filetype(ft, et, read_only, &ft_overlaps);
}

static void test_filetype_and_view(void)
{
    MPI_Datatype t, r;
    struct rio_dtype *et = get(MPI_INT), *ed = get(MPI_DOUBLE), *ft;

    /* valid: (0,4)(8,4) in tiles of 16 */
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 16, &r);
    MPI_Type_commit(&r);
    ft = get(r);
    CHECK(check_ft(ft, et, 0) == 0 && ft_overlaps == 0, "valid filetype accepted");
    CHECK(check_ft(ft, et, 1) == 0 && ft_overlaps == 0, "valid filetype: no overlaps read-only");
    CHECK(check_ft(ft, ed, 0) == 0, "8-byte filetype with a double etype");
    CHECK(rio__dtype_view_offset(ft, 100, 0) == 100, "view offset of byte 0");
    CHECK(rio__dtype_view_offset(ft, 100, 5) == 109, "view offset of byte 5");
    CHECK(rio__dtype_view_offset(ft, 100, 8) == 116, "view offset of byte 8 (tile 1)");
    CHECK(rio__dtype_view_offset(ft, 100, 13) == 125, "view offset of byte 13");
    CHECK(rio__dtype_view_offset(ft, 0, 8000 * 8 + 4) == 8000 * 16 + 8, "view offset far away");
    MPI_Offset first, end;
    rio__dtype_view_extent(ft, 100, 2, 8, &first, &end);
    CHECK(first == 102 && end == 118, "view extent (%lld, %lld)", (long long)first,
          (long long)end);
    rio__dtype_view_extent(ft, 0, 4, 4, &first, &end);
    CHECK(first == 8 && end == 12, "view extent of one region");
    rio__dtype_put(ft);
    MPI_Type_free(&r);
    MPI_Type_free(&t);

    /* vector tile: lb > 0 is fine as long as displacements do not decrease */
    MPI_Aint d1[] = {4};
    int b1[] = {1};
    MPI_Type_create_hindexed(1, b1, d1, MPI_INT, &t);
    MPI_Type_create_resized(t, 4, 4, &r);
    MPI_Type_commit(&r);
    ft = get(r);
    CHECK(check_ft(ft, et, 0) == 0, "filetype with lb 4, extent 4 accepted");
    CHECK(rio__dtype_view_offset(ft, 0, 9) == 13, "view offset with lb 4");
    rio__dtype_put(ft);
    MPI_Type_free(&r);
    MPI_Type_free(&t);

    /* rejected: decreasing */
    MPI_Aint d2[] = {8, 0};
    int b2[] = {1, 1};
    MPI_Type_create_hindexed(2, b2, d2, MPI_INT, &t);
    MPI_Type_commit(&t);
    ft = get(t);
    CHECK(check_ft(ft, et, 0) == RIO_E_FILETYPE, "decreasing filetype rejected");
    CHECK(check_ft(ft, et, 1) == RIO_E_FILETYPE, "decreasing filetype rejected read-only");
    rio__dtype_put(ft);
    MPI_Type_free(&t);

    /* rejected: overlapping */
    MPI_Aint d3[] = {0, 2};
    MPI_Type_create_hindexed(2, b2, d3, MPI_INT, &t);
    MPI_Type_commit(&t);
    ft = get(t);
    CHECK(check_ft(ft, et, 0) == RIO_E_FILETYPE, "overlapping filetype rejected");
    rio__dtype_put(ft);
    MPI_Type_free(&t);
    /* ... unless nothing is written: bytes (0,4)(2,4), tiles of 6 bytes
     * (resized: an int type's extent would be padded to 8) */
    int b4[] = {4, 4};
    MPI_Type_create_hindexed(2, b4, d3, MPI_BYTE, &r);
    MPI_Type_create_resized(r, 0, 6, &t);
    MPI_Type_commit(&t);
    MPI_Type_free(&r);
    ft = get(t);
    CHECK(check_ft(ft, et, 0) == RIO_E_FILETYPE, "overlapping byte filetype rejected");
    CHECK(check_ft(ft, et, 1) == 0 && ft_overlaps == 1,
          "overlapping filetype accepted read-only, overlaps %d", ft_overlaps);
    CHECK(rio__dtype_view_offset(ft, 0, 4) == 2 && rio__dtype_view_offset(ft, 0, 7) == 5 &&
              rio__dtype_view_offset(ft, 0, 8) == 6,
          "view offsets of an overlapping filetype");
    rio__dtype_view_extent(ft, 0, 0, 8, &first, &end);
    CHECK(first == 0 && end == 6, "overlapping view extent of a tile (%lld, %lld)",
          (long long)first, (long long)end);
    rio__dtype_view_extent(ft, 100, 3, 6, &first, &end);
    CHECK(first == 100 && end == 112, "overlapping view extent over two tiles (%lld, %lld)",
          (long long)first, (long long)end);
    rio__dtype_put(ft);
    MPI_Type_free(&t);

    /* rejected: negative */
    MPI_Aint d4[] = {-4, 0};
    MPI_Type_create_hindexed(2, b2, d4, MPI_INT, &t);
    MPI_Type_commit(&t);
    ft = get(t);
    CHECK(check_ft(ft, et, 0) == RIO_E_FILETYPE, "negative filetype rejected");
    CHECK(check_ft(ft, et, 1) == RIO_E_FILETYPE, "negative filetype rejected read-only");
    rio__dtype_put(ft);
    MPI_Type_free(&t);

    /* accepted: tiles overlap (extent shorter than the data; HDF5's
     * chunk filetypes), in order within a tile, not across tiles */
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 4, &r);
    MPI_Type_commit(&r);
    ft = get(r);
    CHECK(check_ft(ft, et, 0) == 0 && ft_overlaps == 0, "overlapping tiles accepted");
    CHECK(check_ft(ft, et, 1) == 0 && ft_overlaps == 0, "overlapping tiles accepted read-only");
    CHECK(rio__dtype_info(ft)->monotonic == 0, "overlapping tiles: not monotonic");
    CHECK(rio__dtype_view_monotone(ft, 0, 8) && rio__dtype_view_monotone(ft, 12, 4) &&
              rio__dtype_view_monotone(ft, 8, 8),
          "overlapping tiles: an access within one tile is in file order");
    CHECK(!rio__dtype_view_monotone(ft, 0, 9) && !rio__dtype_view_monotone(ft, 4, 8),
          "overlapping tiles: an access across tiles is not in file order");
    CHECK(rio__dtype_view_offset(ft, 100, 8) == 104 && rio__dtype_view_offset(ft, 100, 15) == 111,
          "view offsets of overlapping tiles");
    rio__dtype_view_extent(ft, 100, 8, 8, &first, &end);
    CHECK(first == 104 && end == 112, "overlapping tiles: extent of one tile (%lld, %lld)",
          (long long)first, (long long)end);
    rio__dtype_view_extent(ft, 100, 4, 12, &first, &end);
    CHECK(first == 100 && end == 112, "overlapping tiles: extent over two tiles (%lld, %lld)",
          (long long)first, (long long)end);
    rio__dtype_put(ft);
    MPI_Type_free(&r);
    MPI_Type_free(&t);

    /* rejected: size not a multiple of the etype's */
    MPI_Type_contiguous(3, MPI_INT, &t);
    MPI_Type_commit(&t);
    ft = get(t);
    CHECK(check_ft(ft, ed, 0) == RIO_E_FILETYPE,
          "12-byte filetype with a double etype rejected");
    CHECK(check_ft(ft, et, 0) == 0, "12-byte filetype with an int etype");
    rio__dtype_put(ft);
    MPI_Type_free(&t);

    /* legal: filetypes of no data, whatever their extent; every position
     * maps to the displacement */
    for (int k = 0; k < 3; k++) {
        int bl[2] = {0, 0};
        MPI_Aint dd[2] = {64, 0};
        MPI_Datatype z;
        if (k == 0) {
            MPI_Type_create_hindexed(2, bl, dd, MPI_INT, &t);
        } else {
            MPI_Type_contiguous(0, MPI_INT, &z);
            if (k == 1) {
                MPI_Type_create_resized(z, 0, 40, &t);
                MPI_Type_free(&z);
            } else {
                t = z;
            }
        }
        MPI_Type_commit(&t);
        ft = get(t);
        CHECK(check_ft(ft, et, 0) == 0 && ft_overlaps == 0, "empty filetype %d accepted", k);
        CHECK(check_ft(ft, ed, 1) == 0 && ft_overlaps == 0, "empty filetype %d read-only", k);
        CHECK(rio__dtype_view_offset(ft, 100, 0) == 100 &&
                  rio__dtype_view_offset(ft, 100, 77) == 100,
              "empty filetype %d maps every position to the displacement", k);
        CHECK(rio__dtype_view_monotone(ft, 5, 10), "empty filetype %d is in file order", k);
        rio__dtype_put(ft);
        MPI_Type_free(&t);
    }

    /* rejected: data in tiles of extent 0 (every tile on the same bytes) */
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 0, &r);
    MPI_Type_commit(&r);
    ft = get(r);
    CHECK(check_ft(ft, et, 0) == RIO_E_FILETYPE, "data with extent 0 rejected");
    rio__dtype_put(ft);
    MPI_Type_free(&r);
    MPI_Type_free(&t);

    rio__dtype_put(et);
    rio__dtype_put(ed);
    printf("ok - filetype checks and view mapping\n");
}

/* Unbounded streams: a view tiles forever. */
static void test_unbounded(void)
{
    MPI_Datatype t;
    struct rio_dtype *dt;
    struct rio_dtype_iter it;
    MPI_Offset off, len;

    dt = get(MPI_INT);
    rio__dtype_iter_init(&it, dt, -1, 6);
    int ok = rio__dtype_iter_next(&it, 100, &off, &len) && off == 6 && len == 100 &&
             rio__dtype_iter_next(&it, 50, &off, &len) && off == 106 && len == 50;
    CHECK(ok, "unbounded contiguous stream");
    rio__dtype_iter_free(&it);
    rio__dtype_put(dt);

    MPI_Type_vector(2, 1, 3, MPI_INT, &t);
    MPI_Type_commit(&t);
    dt = get(t);
    rio__dtype_iter_init(&it, dt, -1, 8 * 1000 + 2);
    ok = rio__dtype_iter_next(&it, 0, &off, &len) && off == 16 * 1000 + 2 && len == 2;
    ok = ok && rio__dtype_iter_next(&it, 0, &off, &len) && off == 16 * 1000 + 12 && len == 8;
    CHECK(ok, "unbounded vector stream from far away (%lld,%lld)", (long long)off,
          (long long)len);
    rio__dtype_iter_free(&it);
    rio__dtype_put(dt);
    MPI_Type_free(&t);
    printf("ok - unbounded streams\n");
}

/* A deep type needs heap frames: struct {previous level, char} nests
 * without fusing. */
static void test_deep(void)
{
    MPI_Datatype t, u;
    const int levels = 40;
    MPI_Type_contiguous(1, MPI_INT, &t);
    for (int i = 0; i < levels; i++) {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(t, &lb, &ext);
        int bl[] = {1, 1};
        MPI_Aint ds[] = {0, ext + 1 + i % 3};
        MPI_Datatype ty[] = {t, MPI_CHAR};
        MPI_Type_create_struct(2, bl, ds, ty, &u);
        MPI_Type_free(&t);
        t = u;
    }
    MPI_Type_commit(&t);
    struct rio_dtype *dt = get(t);
    CHECK(dt && rio__dtype_info(dt)->depth > 20, "deep type decodes (depth %d)",
          dt ? rio__dtype_info(dt)->depth : -1);
    CHECK(dt && rio__dtype_info(dt)->size == 4 + levels, "deep type size");
    if (dt) {
        static struct reg all[CAP], part[CAP], want[CAP];
        check_pack("deep", t, dt, 3);
        int na = collect(dt, 3, 0, 0, all, CAP);
        int bad = 0;
        for (MPI_Offset s = 0; s <= 3 * (4 + levels) && !bad; s++) {
            int np = collect(dt, 3, s, 2, part, CAP);
            int nw = expected_from(all, na, s, 2, want, CAP);
            bad = !same_regs(part, np, want, nw);
        }
        CHECK(!bad, "deep type: iterator from every start byte");
        rio__dtype_put(dt);
    }
    MPI_Type_free(&t);
    printf("ok - deep type\n");
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    MPI_Init(&argc, &argv);
    test_named();
    test_simple();
    test_struct_resized();
    test_subarray_darray();
    test_filetype_and_view();
    test_unbounded();
    test_deep();
    printf("%d passed, %d failed\n", npass, nfail);
    MPI_Finalize();
    return nfail != 0;
}
