/*
 * test_dtype_property.c — the datatype engine against a naive reference.
 *
 * Builds random nested datatypes (every combiner, resized with negative
 * lb, negative and zero displacements, subarray and darray in both orders,
 * nesting up to depth 4, bounded sizes) and checks, for each:
 *   - the merged region stream equals the one of a reference flattener
 *     written here (recursive over get_envelope/get_contents producing the
 *     whole typemap, subarray/darray enumerated index by index), and the
 *     info facts (size, regions, monotonic) agree with it;
 *   - pack equals the reference pack and MPI_Pack; unpack equals the
 *     reference unpack;
 *   - iterators started at random bytes with random limits, and stopped and
 *     resumed at random points, give the same stream;
 *   - filetype validity and the view mapping agree with the reference.
 * Then it sweeps allocation failures through rio__dtype_get and the
 * iterator: each must return RIO_E_NOMEM cleanly, and a retry succeed.
 *
 * The seed is fixed (RESONIO_SEED overrides it) and printed.  The number of
 * types is RESONIO_DTYPE_TYPES (default 10000); RESONIO_DTYPE_STATE=<rng
 * state printed with a failure> replays one type.  Runs as an MPI singleton.
 *
 * MPI_Pack is not the reference, only a second witness: the comparison
 * skips the types on which an MPI library is known to stray from the
 * typemap order (see nests() and has_empty_derived()), and darrays an MPI
 * rejects are replaced by a basic type.  The counts are printed.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dtype/dtype.h"
#include "dtype/dtype_int.h"

static int passed, failed;
static int type_failures;
static struct rio_dtype *byte_dt;
static int mpi_packs; /* comparisons made with MPI_Pack */
static int darray_rejected, is_openmpi, skipped_quirk;
static long long st_nonempty, st_regions, st_bytes, st_depth[8], st_kind[6];

#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (cond) {                                                                       \
            passed++;                                                                     \
        } else {                                                                          \
            failed++;                                                                     \
            printf("FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            printf(__VA_ARGS__);                                                          \
            printf("\n");                                                                 \
        }                                                                                 \
    } while (0)

/* ---- random numbers --------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd64(void)
{
    uint64_t x = rng_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

static int rnd(int n)
{
    return n <= 1 ? 0 : (int)(rnd64() % (uint64_t)n);
}

static int rnd_in(int lo, int hi)
{
    return lo + rnd(hi - lo + 1);
}

/* ---- reference flattener ---------------------------------------------- */

struct reg {
    long long off, len;
};

struct vec {
    struct reg *v;
    size_t n, cap;
};

static void push(struct vec *a, long long off, long long len)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->v = realloc(a->v, a->cap * sizeof *a->v);
        if (!a->v) {
            printf("out of memory in the reference\n");
            exit(2);
        }
    }
    a->v[a->n++] = (struct reg){off, len};
}

static int predefined(MPI_Datatype t)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    return comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
           comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER;
}

static MPI_Aint extent_of(MPI_Datatype t)
{
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    return ext;
}

static void flatten(MPI_Datatype t, long long base, struct vec *out);

/* Multi-index walk of an nd box, dimension order given (fastest last in
 * the walk order array `dims`, which lists dimensions slowest first). */
static void flatten_subarray(const int *ints, MPI_Datatype old, long long base, struct vec *out)
{
    int nd = ints[0];
    const int *sizes = ints + 1, *subs = ints + 1 + nd, *starts = ints + 1 + 2 * nd;
    int order = ints[1 + 3 * nd];
    long long ext = extent_of(old);
    int idx[16];
    long long stride[16];
    /* element strides in units of old */
    if (order == MPI_ORDER_C) {
        long long s = 1;
        for (int d = nd - 1; d >= 0; d--) {
            stride[d] = s;
            s *= sizes[d];
        }
    } else {
        long long s = 1;
        for (int d = 0; d < nd; d++) {
            stride[d] = s;
            s *= sizes[d];
        }
    }
    for (int d = 0; d < nd; d++) {
        if (subs[d] <= 0)
            return;
        idx[d] = starts[d];
    }
    for (;;) {
        long long lin = 0;
        for (int d = 0; d < nd; d++)
            lin += idx[d] * stride[d];
        flatten(old, base + lin * ext, out);
        /* increment, fastest dimension first */
        int k;
        for (k = 0; k < nd; k++) {
            int d = order == MPI_ORDER_C ? nd - 1 - k : k;
            if (++idx[d] < starts[d] + subs[d])
                break;
            idx[d] = starts[d];
        }
        if (k == nd)
            return;
    }
}

static int owner(int i, int g, int distrib, int darg, int p)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return -1; /* everyone */
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return i / b;
    }
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (i / b) % p;
}

static void flatten_darray(const int *ints, MPI_Datatype old, long long base, struct vec *out)
{
    int rank = ints[1], nd = ints[2];
    const int *g = ints + 3, *dist = ints + 3 + nd, *darg = ints + 3 + 2 * nd,
              *ps = ints + 3 + 3 * nd;
    int order = ints[3 + 4 * nd];
    long long ext = extent_of(old);
    int coord[16], idx[16];
    long long stride[16];
    for (int d = nd - 1, r = rank; d >= 0; d--) {
        coord[d] = r % ps[d];
        r /= ps[d];
    }
    long long s = 1;
    for (int k = 0; k < nd; k++) {
        int d = order == MPI_ORDER_C ? nd - 1 - k : k;
        stride[d] = s;
        s *= g[d];
    }
    for (int d = 0; d < nd; d++)
        idx[d] = 0;
    for (;;) {
        int mine = 1;
        long long lin = 0;
        for (int d = 0; d < nd; d++) {
            int o = owner(idx[d], g[d], dist[d], darg[d], ps[d]);
            if (o >= 0 && o != coord[d])
                mine = 0;
            lin += idx[d] * stride[d];
        }
        if (mine)
            flatten(old, base + lin * ext, out);
        int k;
        for (k = 0; k < nd; k++) {
            int d = order == MPI_ORDER_C ? nd - 1 - k : k;
            if (++idx[d] < g[d])
                break;
            idx[d] = 0;
        }
        if (k == nd)
            return;
    }
}

/* Append the typemap of t displaced by base, one entry per basic element
 * (for a predefined type: one entry of its size). */
static void flatten(MPI_Datatype t, long long base, struct vec *out)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    if (predefined(t)) {
        int size;
        MPI_Type_size(t, &size);
        if (size > 0)
            push(out, base, size);
        return;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    long long e0 = extent_of(types[0]);
    switch (comb) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        flatten(types[0], base, out);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (int i = 0; i < ints[0]; i++)
            flatten(types[0], base + i * e0, out);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        for (int i = 0; i < ints[0]; i++)
            for (int j = 0; j < ints[1]; j++) {
                long long s = comb == MPI_COMBINER_VECTOR ? (long long)ints[2] * e0 : addrs[0];
                flatten(types[0], base + i * s + j * e0, out);
            }
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (int i = 0; i < ints[0]; i++)
            for (int j = 0; j < ints[1 + i]; j++) {
                long long d = comb == MPI_COMBINER_INDEXED ? (long long)ints[1 + ints[0] + i] * e0
                                                           : addrs[i];
                flatten(types[0], base + d + j * e0, out);
            }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < ints[0]; i++)
            for (int j = 0; j < ints[1]; j++) {
                long long d = comb == MPI_COMBINER_INDEXED_BLOCK
                                  ? (long long)ints[2 + i] * e0
                                  : addrs[i];
                flatten(types[0], base + d + j * e0, out);
            }
        break;
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < ints[0]; i++) {
            long long ei = extent_of(types[i]);
            for (int j = 0; j < ints[1 + i]; j++)
                flatten(types[i], base + addrs[i] + j * ei, out);
        }
        break;
    case MPI_COMBINER_SUBARRAY:
        flatten_subarray(ints, types[0], base, out);
        break;
    case MPI_COMBINER_DARRAY:
        flatten_darray(ints, types[0], base, out);
        break;
    default:
        printf("reference: combiner %d unexpected\n", comb);
        exit(2);
    }
    for (int i = 0; i < nd; i++)
        if (!predefined(types[i]))
            MPI_Type_free(&types[i]);
    free(ints);
    free(addrs);
    free(types);
}

/* Merge adjacent entries in place. */
static void merge(struct vec *a)
{
    size_t k = 0;
    for (size_t i = 0; i < a->n; i++) {
        if (k && a->v[k - 1].off + a->v[k - 1].len == a->v[i].off)
            a->v[k - 1].len += a->v[i].len;
        else
            a->v[k++] = a->v[i];
    }
    a->n = k;
}

/* Print the constructor tree of t, for failure reports. */
static void print_type(MPI_Datatype t, int indent)
{
    int ni, na, nd, comb;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);
    printf("    %*scombiner %d lb %lld extent %lld", indent, "", comb, (long long)lb,
           (long long)ext);
    if (predefined(t)) {
        int size;
        MPI_Type_size(t, &size);
        printf(" size %d\n", size);
        return;
    }
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    printf(" ints");
    for (int i = 0; i < ni; i++)
        printf(" %d", ints[i]);
    printf(" addrs");
    for (int i = 0; i < na; i++)
        printf(" %lld", (long long)addrs[i]);
    printf("\n");
    for (int i = 0; i < nd; i++) {
        print_type(types[i], indent + 2);
        if (!predefined(types[i]))
            MPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
}

/* 1 when t nests a derived type with no data: MPICH 4.0's MPI_Pack divides
 * by zero on some of those, so the comparison with MPI_Pack skips them
 * (the engine is still compared with the reference). */
static int has_empty_derived(MPI_Datatype t)
{
    int ni, na, nd, comb, found = 0;
    if (predefined(t))
        return 0;
    MPI_Count size;
    MPI_Type_size_x(t, &size);
    if (size == 0)
        return 1;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    for (int i = 0; i < nd; i++) {
        found = found || has_empty_derived(types[i]);
        if (!predefined(types[i]))
            MPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
    return found;
}

/* 1 when t nests a vector or hvector with a negative stride (what = 0) or
 * a type with a negative extent (what = 1).  Open MPI 4.1's MPI_Pack does
 * not follow the typemap order for some of the former (when backward
 * blocks interleave with or overlap others), and MPICH 4.0's for some of
 * the latter (subarrays, darrays and resized types built over them), so
 * the comparison with MPI_Pack skips them on that library.  The other
 * library is compared on them, and the engine always is with the
 * reference. */
static int nests(MPI_Datatype t, int what)
{
    int ni, na, nd, comb, found = 0;
    if (predefined(t))
        return 0;
    if (what == 1 && extent_of(t) < 0)
        return 1;
    MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
    int *ints = malloc(sizeof(int) * (size_t)(ni + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(na + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(nd + 1));
    MPI_Type_get_contents(t, ni, na, nd, ints, addrs, types);
    if (what == 0 && ((comb == MPI_COMBINER_VECTOR && ints[2] < 0) ||
                      (comb == MPI_COMBINER_HVECTOR && addrs[0] < 0)))
        found = 1;
    for (int i = 0; i < nd; i++) {
        found = found || nests(types[i], what);
        if (!predefined(types[i]))
            MPI_Type_free(&types[i]);
    }
    free(ints);
    free(addrs);
    free(types);
    return found;
}

/* ---- engine helpers --------------------------------------------------- */

static struct vec got;

static int collect(struct rio_dtype *dt, MPI_Count count, MPI_Offset start, MPI_Offset max,
                   struct vec *out)
{
    struct rio_dtype_iter it;
    MPI_Offset off, len;
    out->n = 0;
    if (rio__dtype_iter_init(&it, dt, count, start))
        return -1;
    while (rio__dtype_iter_next(&it, max, &off, &len)) {
        if (len <= 0 || (max > 0 && len > max)) {
            rio__dtype_iter_free(&it);
            return -1;
        }
        push(out, off, len);
    }
    rio__dtype_iter_free(&it);
    return 0;
}

static void expected_from(const struct vec *exp, MPI_Offset start, MPI_Offset max,
                          struct vec *out)
{
    MPI_Offset pos = 0;
    out->n = 0;
    for (size_t i = 0; i < exp->n; i++) {
        MPI_Offset o = exp->v[i].off, l = exp->v[i].len, rstart = pos;
        pos += l;
        if (pos <= start)
            continue;
        if (rstart < start) {
            o += start - rstart;
            l -= start - rstart;
        }
        while (l > 0) {
            MPI_Offset p = max > 0 && l > max ? max : l;
            push(out, o, p);
            o += p;
            l -= p;
        }
    }
}

static int same(const struct vec *a, const struct vec *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].off != b->v[i].off || a->v[i].len != b->v[i].len)
            return 0;
    return 1;
}

static void show(const char *what, const struct vec *a)
{
    printf("    %s (%zu):", what, a->n);
    for (size_t i = 0; i < a->n && i < 16; i++)
        printf(" (%lld,%lld)", a->v[i].off, a->v[i].len);
    printf("%s\n", a->n > 16 ? " ..." : "");
}

/* ---- random datatypes ------------------------------------------------- */

#define MAX_SIZE 8192   /* bytes of data per type */
#define MAX_SPAN 65536  /* bytes between lowest and highest displacement */

static MPI_Datatype basic(void)
{
    const MPI_Datatype b[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_BYTE, MPI_FLOAT};
    return b[rnd(6)];
}

static void free_type(MPI_Datatype *t)
{
    if (!predefined(*t))
        MPI_Type_free(t);
}

/* Reject types whose size or span is out of bounds. */
static int too_big(MPI_Datatype t)
{
    MPI_Count size;
    MPI_Aint lb, ext, tlb, text;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent(t, &lb, &ext);
    MPI_Type_get_true_extent(t, &tlb, &text);
    return size > MAX_SIZE || text > MAX_SPAN || ext > MAX_SPAN || ext < -MAX_SPAN ||
           tlb > MAX_SPAN || tlb < -MAX_SPAN;
}

static MPI_Datatype gen(int depth);

static MPI_Datatype gen_struct(int depth)
{
    int n = rnd_in(1, 4), bl[4];
    MPI_Aint ds[4];
    MPI_Datatype ty[4], t;
    int share = rnd(3) == 0; /* the same child in every block */
    for (int i = 0; i < n; i++) {
        ty[i] = share && i > 0 ? ty[0] : gen(depth - 1);
        bl[i] = rnd(8) ? rnd_in(1, 3) : 0;
        ds[i] = rnd_in(-40, 120);
        if (rnd(3) == 0 && i > 0) /* right after the previous block */
            ds[i] = ds[i - 1] + bl[i - 1] * extent_of(ty[i - 1]);
    }
    MPI_Type_create_struct(n, bl, ds, ty, &t);
    for (int i = 0; i < n; i++)
        if (!(share && i > 0))
            free_type(&ty[i]);
    return t;
}

static MPI_Datatype gen_subarray(MPI_Datatype old)
{
    int nd = rnd_in(1, 3), sizes[3], subs[3], starts[3];
    MPI_Datatype t;
    for (int d = 0; d < nd; d++) {
        sizes[d] = rnd_in(1, 4);
        subs[d] = rnd_in(1, sizes[d]);
        starts[d] = rnd_in(0, sizes[d] - subs[d]);
    }
    MPI_Type_create_subarray(nd, sizes, subs, starts, rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN,
                             old, &t);
    return t;
}

static MPI_Datatype gen_darray(MPI_Datatype old)
{
    int nd = rnd_in(1, 3), g[3], dist[3], darg[3], ps[3], size = 1;
    MPI_Datatype t;
    for (int d = 0; d < nd; d++) {
        g[d] = rnd_in(1, 6);
        int k = rnd(3);
        dist[d] = k == 0 ? MPI_DISTRIBUTE_NONE : k == 1 ? MPI_DISTRIBUTE_BLOCK
                                                        : MPI_DISTRIBUTE_CYCLIC;
        ps[d] = dist[d] == MPI_DISTRIBUTE_NONE ? 1 : rnd_in(1, 3);
        darg[d] = MPI_DISTRIBUTE_DFLT_DARG;
        if (dist[d] == MPI_DISTRIBUTE_BLOCK && rnd(2))
            darg[d] = (g[d] + ps[d] - 1) / ps[d] + rnd(2);
        else if (dist[d] == MPI_DISTRIBUTE_CYCLIC && rnd(2))
            darg[d] = rnd_in(1, 3);
        size *= ps[d];
    }
    int rank = rnd(size), order = rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
    if (MPI_Type_create_darray(size, rank, nd, g, dist, darg, ps, order, old, &t) !=
        MPI_SUCCESS) {
        darray_rejected++; /* Open MPI 4.1 rejects a zero-size old type */
        t = MPI_DATATYPE_NULL;
    }
    return t;
}

static MPI_Datatype gen(int depth)
{
    if (depth <= 0 || rnd(10) == 0)
        return basic();
    int c = rnd(14);
    if (c == 13)
        return gen_struct(depth);
    MPI_Datatype old = gen(depth - 1), t = MPI_DATATYPE_NULL;
    MPI_Aint e = extent_of(old);
    /* counts and block lengths: zero now and then */
    int n = rnd(12) ? rnd_in(1, 5) : 0, bl = rnd(12) ? rnd_in(1, 3) : 0, ib[5], id[5];
    MPI_Aint ad[5];
    for (int i = 0; i < 5; i++) {
        ib[i] = rnd(8) ? rnd_in(1, 3) : 0;
        id[i] = rnd_in(-4, 10);
        ad[i] = rnd_in(-60, 150);
    }
    if (rnd(4) == 0) { /* evenly spaced or touching blocks, to exercise fusion */
        int s = rnd_in(0, 6);
        for (int i = 0; i < 5; i++) {
            id[i] = i * s;
            ad[i] = i * s * e;
            ib[i] = rnd(2) ? s : ib[i];
        }
    }
    switch (c) {
    case 0:
        MPI_Type_contiguous(n, old, &t);
        break;
    case 1:
        MPI_Type_vector(n, bl, rnd_in(-4, 5), old, &t);
        break;
    case 2:
        MPI_Type_create_hvector(n, bl, rnd(3) ? rnd_in(-40, 80) : bl * e, old, &t);
        break;
    case 3:
        MPI_Type_indexed(n, ib, id, old, &t);
        break;
    case 4:
        MPI_Type_create_hindexed(n, ib, ad, old, &t);
        break;
    case 5:
        MPI_Type_create_indexed_block(n, bl, id, old, &t);
        break;
    case 6:
        MPI_Type_create_hindexed_block(n, bl, ad, old, &t);
        break;
    case 7:
    case 8: {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(old, &lb, &ext);
        MPI_Aint nlb = rnd(2) ? lb : rnd_in(-24, 24);
        MPI_Aint next = rnd(3) ? ext + rnd_in(0, 24) : rnd_in(1, 48);
        if (rnd(12) == 0) /* zero or negative extents: instances overlap */
            next = rnd_in(-16, 0);
        if (MPI_Type_create_resized(old, nlb, next, &t) != MPI_SUCCESS)
            t = MPI_DATATYPE_NULL;
        break;
    }
    case 9:
        MPI_Type_dup(old, &t);
        break;
    case 10:
        t = gen_subarray(old);
        break;
    case 11:
    case 12:
        t = gen_darray(old);
        break;
    }
    free_type(&old);
    if (t == MPI_DATATYPE_NULL)
        return basic();
    if (too_big(t)) {
        MPI_Type_free(&t);
        return basic();
    }
    return t;
}

/* ---- one type --------------------------------------------------------- */

/* Reference facts of one instance. */
struct ref_facts {
    long long size;
    size_t regions;
    int mono;              /* increasing, non-overlapping */
    long long tlb, tub;
};

static void ref_facts(const struct vec *merged, struct ref_facts *f)
{
    f->size = 0;
    f->regions = merged->n;
    f->mono = 1;
    f->tlb = merged->n ? merged->v[0].off : 0;
    f->tub = merged->n ? merged->v[0].off + merged->v[0].len : 0;
    for (size_t i = 0; i < merged->n; i++) {
        const struct reg *r = &merged->v[i];
        f->size += r->len;
        if (i && r->off < merged->v[i - 1].off + merged->v[i - 1].len)
            f->mono = 0;
        if (r->off < f->tlb)
            f->tlb = r->off;
        if (r->off + r->len > f->tub)
            f->tub = r->off + r->len;
    }
}

static struct vec one, many, typemap, exp_v;

static int check_type(MPI_Datatype t, int count, struct rio_dtype *etype)
{
    struct rio_dtype *dt = NULL, *dt2 = NULL;
    int bad = 0;
    MPI_Aint lb, ext;
    MPI_Type_get_extent(t, &lb, &ext);

    /* reference: typemap of count instances, merged; and of one */
    typemap.n = 0;
    for (int k = 0; k < count; k++)
        flatten(t, (long long)k * ext, &typemap);
    many.n = 0;
    for (size_t i = 0; i < typemap.n; i++)
        push(&many, typemap.v[i].off, typemap.v[i].len);
    merge(&many);
    one.n = 0;
    flatten(t, 0, &one);
    merge(&one);
    struct ref_facts rf;
    ref_facts(&one, &rf);

    int err = rio__dtype_get(t, &dt);
    if (err || !dt) {
        printf("    rio__dtype_get failed: %d\n", err);
        return 1;
    }
    rio__dtype_get(t, &dt2);
    if (dt2 != dt) {
        printf("    not cached\n");
        bad = 1;
    }
    rio__dtype_put(dt2);

    const struct rio_dtype_info *in = rio__dtype_info(dt);
    if (in->size > 0) {
        char d[16];
        const char *kinds[] = {"contig", "vector", "blockindexed", "indexed", "struct"};
        st_nonempty++;
        st_regions += in->regions;
        st_bytes += in->size;
        st_depth[RIO_MIN(in->depth, 7)]++;
        rio__dtype_describe(dt, d, sizeof d);
        for (int k = 0; k < 5; k++)
            if (strncmp(d, kinds[k], strlen(kinds[k])) == 0)
                st_kind[k]++;
    }
    int mono_tile = rf.mono && (!rf.regions || (rf.tlb >= 0 && rf.tub <= ext));
    if (in->size != rf.size || (size_t)in->regions != rf.regions || in->monotonic != mono_tile ||
        in->extent != ext || in->lb != lb ||
        in->contig != (rf.regions == 1 && ext == rf.size)) {
        printf("    info: size %lld/%lld regions %lld/%zu monotonic %d/%d contig %d\n",
               (long long)in->size, rf.size, (long long)in->regions, rf.regions, in->monotonic,
               mono_tile, in->contig);
        show("reference, one instance", &one);
        collect(dt, 1, 0, 0, &got);
        show("engine, one instance", &got);
        bad = 1;
    }

    /* whole stream */
    if (collect(dt, count, 0, 0, &got) || !same(&got, &many)) {
        show("got", &got);
        show("want", &many);
        bad = 1;
    }

    /* random starts and limits */
    long long total = rf.size * count;
    for (int r = 0; r < 5 && !bad; r++) {
        MPI_Offset s = rnd((int)total + 1), m = rnd(3) ? rnd_in(1, 17) : 0;
        expected_from(&many, s, m, &exp_v);
        if (collect(dt, count, s, m, &got) || !same(&got, &exp_v)) {
            printf("    start %lld limit %lld\n", (long long)s, (long long)m);
            show("got", &got);
            show("want", &exp_v);
            bad = 1;
        }
    }

    /* stop after random amounts with random limits, then resume either by
     * calling on or with a new iterator at the position reached */
    for (int r = 0; r < 2 && !bad && total > 0; r++) {
        struct rio_dtype_iter it, it2;
        MPI_Offset off, len, stop = rnd((int)total + 1), m = rnd_in(1, 9);
        got.n = 0;
        rio__dtype_iter_init(&it, dt, count, 0);
        while (rio__dtype_iter_pos(&it) < stop &&
               rio__dtype_iter_next(&it, RIO_MIN(m, stop - rio__dtype_iter_pos(&it)), &off, &len))
            push(&got, off, len);
        if (rnd(2)) {
            while (rio__dtype_iter_next(&it, m, &off, &len))
                push(&got, off, len);
        } else {
            rio__dtype_iter_init(&it2, dt, count, rio__dtype_iter_pos(&it));
            while (rio__dtype_iter_next(&it2, 0, &off, &len))
                push(&got, off, len);
            rio__dtype_iter_free(&it2);
        }
        rio__dtype_iter_free(&it);
        merge(&got);
        if (!same(&got, &many)) {
            printf("    stop at %lld, limit %lld\n", (long long)stop, (long long)m);
            show("got", &got);
            show("want", &many);
            bad = 1;
        }
    }

    /* strided runs (iter_strided) mixed with single regions, from a
     * random start: once merged, the stream from there; each strided run
     * within its limit, its regions apart (neither touching nor
     * overlapping), and the position at the end the stream's size */
    for (int r = 0; r < 2 && !bad && total > 0; r++) {
        struct rio_dtype_iter it;
        MPI_Offset s = rnd((int)total + 1), off, len;
        int limits_ok = 1;
        got.n = 0;
        rio__dtype_iter_init(&it, dt, count, s);
        for (;;) {
            MPI_Offset m = rnd_in(1, 40), st;
            MPI_Count sn;
            if (rnd(3)) {
                m *= rnd(2) ? 1 : 100; /* room for long strided runs too */
                if (!rio__dtype_iter_strided(&it, m, &off, &len, &st, &sn))
                    break;
                limits_ok &= len > 0 && sn >= 1 && sn * len <= m && (sn == 1 || st > len);
                for (MPI_Count j = 0; j < sn; j++)
                    push(&got, off + j * st, len);
            } else if (rio__dtype_iter_next(&it, m, &off, &len)) {
                push(&got, off, len);
            } else {
                break;
            }
        }
        MPI_Offset end = rio__dtype_iter_pos(&it);
        rio__dtype_iter_free(&it);
        merge(&got);
        expected_from(&many, s, 0, &exp_v);
        if (!limits_ok || end != total || !same(&got, &exp_v)) {
            printf("    strided runs from %lld: limits %s, end %lld of %lld\n", (long long)s,
                   limits_ok ? "kept" : "broken", (long long)end, total);
            show("got", &got);
            show("want", &exp_v);
            bad = 1;
        }
    }

    /* pack / unpack against the reference and MPI */
    if (!bad && total > 0) {
        long long lo = typemap.v[0].off, hi = lo;
        for (size_t i = 0; i < typemap.n; i++) {
            lo = RIO_MIN(lo, typemap.v[i].off);
            hi = RIO_MAX(hi, typemap.v[i].off + typemap.v[i].len);
        }
        size_t span = (size_t)(hi - lo);
        unsigned char *mem = malloc(span), *u1 = calloc(span, 1), *u2 = calloc(span, 1);
        unsigned char *ref = malloc((size_t)total), *a = malloc((size_t)total),
                      *b = malloc((size_t)total);
        for (size_t i = 0; i < span; i++)
            mem[i] = (unsigned char)rnd64();
        char *origin = (char *)mem - lo;
        long long p = 0;
        for (size_t i = 0; i < typemap.n; i++) {
            memcpy(ref + p, origin + typemap.v[i].off, (size_t)typemap.v[i].len);
            p += typemap.v[i].len;
        }
        int pos = (int)total;
        int skip = is_openmpi ? nests(t, 0) : nests(t, 1);
        skipped_quirk += skip;
        if (!skip && !has_empty_derived(t)) {
            pos = 0;
            MPI_Pack(origin, count, t, a, (int)total, &pos, MPI_COMM_SELF);
            mpi_packs++;
        } else {
            memcpy(a, ref, (size_t)total);
        }
        err = rio__dtype_pack(dt, count, origin, 0, total, b);
        if (err || memcmp(ref, b, (size_t)total) != 0) {
            printf("    pack differs from the reference\n");
            bad = 1;
        }
        if (pos != total || memcmp(ref, a, (size_t)total) != 0) {
            printf("    MPI_Pack differs from the reference (MPI packed %d of %lld)\n", pos,
                   total);
            bad = 1;
        }
        /* partial pack */
        MPI_Offset s = rnd((int)total), l = rnd((int)(total - s) + 1);
        if (!bad && (rio__dtype_pack(dt, count, origin, s, l, b) ||
                     memcmp(ref + s, b, (size_t)l) != 0)) {
            printf("    partial pack %lld+%lld differs\n", (long long)s, (long long)l);
            bad = 1;
        }
        /* unpack: reference applies entries in typemap order */
        p = 0;
        for (size_t i = 0; i < typemap.n; i++) {
            memcpy((char *)u1 - lo + typemap.v[i].off, ref + p, (size_t)typemap.v[i].len);
            p += typemap.v[i].len;
        }
        err = rio__dtype_unpack(dt, count, (char *)u2 - lo, 0, total, ref);
        if (err || memcmp(u1, u2, span) != 0) {
            printf("    unpack differs from the reference\n");
            bad = 1;
        }
        free(mem);
        free(u1);
        free(u2);
        free(ref);
        free(a);
        free(b);
    }

    /* filetype validity and the view mapping */
    if (!bad) {
        /* a tile's data may reach into the next tile */
        /* a filetype of no data is a legal view (nothing to order or tile) */
        int valid = rf.size == 0 || (rf.mono && rf.tlb >= 0 && ext > 0);
        /* read-only: regions may overlap if their displacements do not decrease */
        int starts_up = 1;
        for (size_t i = 1; i < one.n; i++)
            starts_up = starts_up && one.v[i].off >= one.v[i - 1].off;
        int valid_ro = valid || (rf.size > 0 && rf.tlb >= 0 && ext > 0 && starts_up);
        int ovl = -1, ovl_ro = -1;
        err = rio__dtype_check_filetype(dt, etype, 0, &ovl);
        int err_ro = rio__dtype_check_filetype(dt, etype, 1, &ovl_ro);
        if ((err == 0) != valid || (err && err != RIO_E_FILETYPE) || (!err && ovl != 0)) {
            printf("    check_filetype %d (overlaps %d), reference says %s\n", err, ovl,
                   valid ? "valid" : "invalid");
            bad = 1;
        }
        if ((err_ro == 0) != valid_ro || (err_ro && err_ro != RIO_E_FILETYPE) ||
            (!err_ro && ovl_ro != !valid)) {
            printf("    check_filetype read-only %d (overlaps %d), reference says %s\n", err_ro,
                   ovl_ro, valid_ro ? (valid ? "valid" : "valid, overlapping") : "invalid");
            bad = 1;
        }
        /* a fixed position: a draw here would change every later type */
        if (valid_ro && !bad && rf.size == 0 && rio__dtype_view_offset(dt, 1000, 777) != 1000) {
            printf("    view offset of a filetype of no data is not the displacement\n");
            bad = 1;
        }
        if (valid_ro && !bad && rf.size > 0) {
            for (int r = 0; r < 4; r++) {
                MPI_Offset pos = rnd64() % (uint64_t)(rf.size * 50), tile = pos / rf.size,
                           rem = pos % rf.size, want = 0;
                for (size_t i = 0; i < one.n; i++) {
                    if (rem < one.v[i].len) {
                        want = 1000 + tile * ext + one.v[i].off + rem;
                        break;
                    }
                    rem -= one.v[i].len;
                }
                MPI_Offset at = rio__dtype_view_offset(dt, 1000, pos), first, end;
                if (at != want) {
                    printf("    view offset of %lld: %lld, want %lld\n", (long long)pos,
                           (long long)at, (long long)want);
                    bad = 1;
                    break;
                }
                MPI_Offset len = 1 + rnd(3 * (int)rf.size);
                rio__dtype_view_extent(dt, 1000, pos, len, &first, &end);
                /* in file order: within a tile, or tiles that do not overlap */
                int inorder = valid && (rf.tub <= ext + rf.tlb ||
                                        pos / (MPI_Offset)rf.size ==
                                            (pos + len - 1) / (MPI_Offset)rf.size);
                if (rio__dtype_view_monotone(dt, pos, len) != inorder) {
                    printf("    view_monotone(%lld, %lld) is %d\n", (long long)pos,
                           (long long)len, !inorder);
                    bad = 1;
                    break;
                }
                if (inorder &&
                    (first != at || end != rio__dtype_view_offset(dt, 1000, pos + len - 1) + 1)) {
                    printf("    view extent\n");
                    bad = 1;
                    break;
                }
                for (MPI_Offset k = 0; !inorder && k < len && !bad; k++) {
                    MPI_Offset o = rio__dtype_view_offset(dt, 1000, pos + k);
                    if (o < first || o >= end) {
                        printf("    overlapping view extent [%lld, %lld) misses %lld\n",
                               (long long)first, (long long)end, (long long)o);
                        bad = 1;
                    }
                }
                if (bad)
                    break;
            }
        }
    }
    if (bad) {
        char d[600];
        rio__dtype_describe(dt, d, sizeof d);
        printf("    dataloop: %s\n", d);
    }
    rio__dtype_put(dt);
    return bad;
}

/* ---- allocation failure sweep ----------------------------------------- */

static MPI_Datatype sweep_type(int which)
{
    MPI_Datatype t, a, b, c;
    if (which == 0) {
        /* struct of a subarray, a darray with a cyclic tail and an
         * indexed type, resized */
        int sizes[] = {4, 5}, subs[] = {2, 3}, starts[] = {1, 1};
        MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &a);
        int g[] = {7, 3}, dist[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE},
            darg[] = {2, MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {2, 1};
        MPI_Type_create_darray(2, 1, 2, g, dist, darg, ps, MPI_ORDER_FORTRAN, MPI_SHORT, &b);
        int bl[] = {1, 0, 3, 1}, ds[] = {5, 9, 0, 4};
        MPI_Type_indexed(4, bl, ds, MPI_DOUBLE, &c);
        int sbl[] = {2, 1, 1, 1};
        MPI_Aint sds[] = {0, 200, 400, 600};
        MPI_Datatype sty[] = {a, b, c, MPI_CHAR};
        MPI_Datatype s;
        MPI_Type_create_struct(4, sbl, sds, sty, &s);
        MPI_Type_create_resized(s, -8, 1024, &t);
        MPI_Type_free(&s);
        MPI_Type_free(&a);
        MPI_Type_free(&b);
        MPI_Type_free(&c);
    } else {
        /* deep nesting, so iterators need heap frames */
        MPI_Type_contiguous(1, MPI_INT, &t);
        for (int i = 0; i < 30; i++) {
            int bl[] = {1, 1};
            MPI_Aint ds[] = {0, extent_of(t) + 1};
            MPI_Datatype ty[] = {t, MPI_CHAR};
            MPI_Type_create_struct(2, bl, ds, ty, &a);
            MPI_Type_free(&t);
            t = a;
        }
    }
    MPI_Type_commit(&t);
    return t;
}

static void alloc_sweep(void)
{
    for (int which = 0; which < 2; which++) {
        int nomem = 0, other = 0, n;
        for (n = 1; n < 10000; n++) {
            MPI_Datatype t = sweep_type(which);
            struct rio_dtype *dt = NULL;
            rio__malloc_fail_at(n);
            int err = rio__dtype_get(t, &dt);
            rio__malloc_fail_at(0);
            if (err == RIO_E_NOMEM && !dt) {
                nomem++;
                /* nothing cached: a retry succeeds and is right */
                err = rio__dtype_get(t, &dt);
                if (err || check_type(t, 2, byte_dt))
                    other++;
                rio__dtype_put(dt);
                MPI_Type_free(&t);
                continue;
            }
            if (err || !dt)
                other++;
            rio__dtype_put(dt);
            MPI_Type_free(&t);
            break; /* the n-th allocation was past the decode */
        }
        CHECK(nomem > 3 && other == 0,
              "allocation failure sweep over rio__dtype_get (type %d): %d failures, all "
              "RIO_E_NOMEM, retries right (%d bad)",
              which, nomem, other);

        /* iterator and pack under failure */
        MPI_Datatype t = sweep_type(which);
        struct rio_dtype *dt = NULL;
        rio__dtype_get(t, &dt);
        long long total = rio__dtype_info(dt)->size;
        char *buf = calloc((size_t)extent_of(t) * 2 + 4096, 1), *out = malloc((size_t)total);
        int seen_nomem = 0, bad = 0;
        for (n = 1; n < 100; n++) {
            rio__malloc_fail_at(n);
            int err = rio__dtype_pack(dt, 1, buf + 2048, 0, total, out);
            rio__malloc_fail_at(0);
            if (err == RIO_E_NOMEM)
                seen_nomem++;
            else if (err)
                bad++;
            else
                break;
        }
        CHECK(!bad && seen_nomem == (which == 1 ? 1 : 0),
              "allocation failure in pack (type %d): %d RIO_E_NOMEM", which, seen_nomem);
        free(buf);
        free(out);
        rio__dtype_put(dt);
        MPI_Type_free(&t);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int liblen;
    MPI_Get_library_version(lib, &liblen);
    is_openmpi = strstr(lib, "Open MPI") != NULL;
    const char *s = getenv("RESONIO_SEED");
    uint64_t seed = s ? strtoull(s, NULL, 0) : 20240611;
    const char *nt = getenv("RESONIO_DTYPE_TYPES");
    int ntypes = nt ? atoi(nt) : 10000;
    rng_state = seed ? seed : 1;
    printf("seed %llu (set RESONIO_SEED to repeat), %d types\n", (unsigned long long)seed,
           ntypes);

    rio__dtype_get(MPI_BYTE, &byte_dt);
    int combos = 0;
    int verbose = getenv("RESONIO_DTYPE_VERBOSE") != NULL;
    const char *st = getenv("RESONIO_DTYPE_STATE"); /* replay one type */
    if (st) {
        rng_state = strtoull(st, NULL, 0);
        ntypes = 1;
    }
    for (int i = 0; i < ntypes; i++) {
        uint64_t at = rng_state;
        MPI_Datatype t = gen(rnd(4) ? 4 : rnd_in(1, 3));
        if (predefined(t)) {
            i--;
            continue;
        }
        MPI_Type_commit(&t);
        int count = rnd_in(1, 3);
        if (verbose) {
            printf("type %d: rng state %llu\n", i, (unsigned long long)at);
            if (st)
                print_type(t, 0);
            fflush(stdout);
        }
        if (check_type(t, count, byte_dt)) {
            type_failures++;
            printf("FAIL type %d (rng state %llu, count %d)\n", i, (unsigned long long)at,
                   count);
            print_type(t, 0);
        }
        combos++;
        MPI_Type_free(&t);
        if (type_failures > 10)
            break;
    }
    /* one check per random type */
    passed += combos - type_failures;
    failed += type_failures;
    printf("%s - %d random datatypes (%d also compared with MPI_Pack; %d not (negative "
           "strides on Open MPI, negative extents on MPICH); %d darrays rejected by MPI)\n",
           type_failures ? "FAIL" : "ok", combos, mpi_packs, skipped_quirk, darray_rejected);

    printf("    %lld with data: %.1f regions and %.0f bytes on average; root kinds contig %lld "
           "vector %lld blockindexed %lld indexed %lld struct %lld; depth 1..7+:",
           st_nonempty, (double)st_regions / (double)RIO_MAX(st_nonempty, 1),
           (double)st_bytes / (double)RIO_MAX(st_nonempty, 1), st_kind[0], st_kind[1],
           st_kind[2], st_kind[3], st_kind[4]);
    for (int d = 1; d < 8; d++)
        printf(" %lld", st_depth[d]);
    printf("\n");
    alloc_sweep();
    printf("ok - allocation failure sweeps\n");
    rio__dtype_put(byte_dt);

    free(got.v);
    free(one.v);
    free(many.v);
    free(typemap.v);
    free(exp_v.v);
    printf("%d passed, %d failed\n", passed, failed);
    MPI_Finalize();
    return failed != 0;
}
