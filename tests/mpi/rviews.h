/*
 * rviews.h — noncontiguous file views and the test's own model of them.
 *
 * Each case builds the MPI types of a view (etype, filetype, displacement)
 * and a memory type, and, independently of any MPI type decoding, lists
 * the file regions (absolute offsets, in data-stream order) and memory
 * regions that the access of one rank covers.  From the model follow the
 * bytes a rank writes (stream byte s goes to file offset f(s) and holds
 * pat(rank, f(s))), the expected file image with a mask of the bytes some
 * rank writes, and the expected memory after a read (bytes outside the
 * memory type's regions keep a sentinel).
 *
 * Cases (each in its own RV_REGION-sized region of the file):
 *   vector         vector(R, C, n*C) of MPI_INT, disp = rank's column
 *   indexed        indexed with holes nobody writes, resized, 4 tiles
 *   subarray_c     2-D block of a global int array, C order, disp 8
 *   subarray_f     2-D block of a global double array, Fortran order
 *   struct_mem     memory struct {int; double} over the indexed filetype
 *   resized        resized contiguous, many tiles, accessed at etype offsets
 *   derived_etype  etype contiguous(3, MPI_INT), resized vector of it
 *   neg_mem        the vector view, memory type with a negative lower bound
 *                  and decreasing displacements (hindexed {+4, -4} of int)
 *
 * The memory buffer passed to MPI is membuf + bufoff (bufoff > 0 when the
 * memory type reaches below its origin); memory regions are offsets in
 * membuf.
 */
#ifndef RVIEWS_H
#define RVIEWS_H

#include "rtest.h"

#include <stddef.h>

#define RV_REGION (64 * 1024)
#define RV_SENTINEL 0xA5

enum rv_kind {
    RV_VECTOR,
    RV_INDEXED,
    RV_SUBARRAY_C,
    RV_SUBARRAY_F,
    RV_STRUCT_MEM,
    RV_RESIZED,
    RV_DERIVED_ETYPE,
    RV_NEG_MEM,
    RV_NCASES
};

/* How a case's data is written, to vary the access families. */
enum rv_access { RV_WRITE_ALL, RV_WRITE_IND, RV_WRITE_AT_SPLIT };

struct rv_case {
    const char *name;
    enum rv_access access;
    MPI_Offset disp;
    MPI_Datatype etype, filetype, memtype; /* MPI_DATATYPE_NULL when built without types */
    int etype_named, filetype_named;
    int memcount;
    int mem_elems;         /* basic elements per memory-type instance */
    long long bufoff;      /* buffer origin within membuf */
    long long esize;       /* etype size in bytes */
    long long ft_size;     /* filetype size and extent in bytes */
    long long ft_extent;
    long long nbytes;      /* data-stream bytes of the access */
    long long membytes;    /* bytes of the memory buffer */
    int split_ints;        /* RV_WRITE_AT_SPLIT: ints in the first write */
    struct rt_list file, mem;
};

static inline const char *rv_name(int kind)
{
    static const char *const names[] = {"vector",     "indexed", "subarray_c",    "subarray_f",
                                        "struct_mem", "resized", "derived_etype", "neg_mem"};
    return kind >= 0 && kind < RV_NCASES ? names[kind] : "?";
}

/* A process grid px x py = n with px <= py, px as large as possible. */
static inline void rv_grid(int n, int *px, int *py)
{
    int best = 1;
    for (int d = 1; d * d <= n; d++)
        if (n % d == 0)
            best = d;
    *px = best;
    *py = n / best;
}

static inline void rv_commit(MPI_Datatype *t)
{
    MPI_Type_commit(t);
}

/*
 * Build case `kind` for `rank` of `nprocs` in the region starting at base.
 * With make_types == 0 only the model is built (for checking other ranks'
 * bytes).  Free with rv_free.
 */
static inline void rv_build(int kind, int rank, int nprocs, MPI_Offset base, int make_types,
                            struct rv_case *c)
{
    memset(c, 0, sizeof *c);
    c->name = rv_name(kind);
    c->etype = c->filetype = c->memtype = MPI_DATATYPE_NULL;
    c->etype_named = c->filetype_named = 0;
    c->mem_elems = 1;
    const int n = nprocs;
    switch (kind) {
    case RV_VECTOR:
    case RV_NEG_MEM: {
        const int R = 8, C = 10;
        c->access = kind == RV_VECTOR ? RV_WRITE_ALL : RV_WRITE_IND;
        c->disp = base + (MPI_Offset)rank * C * 4;
        c->esize = 4;
        for (int i = 0; i < R; i++)
            rt_list_add(&c->file, c->disp + (long long)i * n * C * 4, C * 4);
        c->ft_size = R * C * 4;
        c->ft_extent = ((long long)(R - 1) * n * C + C) * 4;
        c->memcount = kind == RV_VECTOR ? R * C : R * C / 2;
        if (make_types) {
            c->etype = MPI_INT;
            MPI_Type_vector(R, C, n * C, MPI_INT, &c->filetype);
            rv_commit(&c->filetype);
            c->memtype = MPI_INT;
        }
        if (kind == RV_NEG_MEM) {
            /* instance k: an int at 12k+4, then one at 12k-4 (lb -4, extent 12) */
            int bl[2] = {1, 1};
            MPI_Aint dp[2] = {4, -4};
            c->bufoff = 4;
            c->mem_elems = 2;
            for (int k = 0; k < c->memcount; k++) {
                rt_list_add(&c->mem, c->bufoff + 12LL * k + 4, 4);
                rt_list_add(&c->mem, c->bufoff + 12LL * k - 4, 4);
            }
            c->membytes = 12LL * c->memcount;
            if (make_types) {
                MPI_Type_create_hindexed(2, bl, dp, MPI_INT, &c->memtype);
                rv_commit(&c->memtype);
            }
        }
        break;
    }
    case RV_INDEXED:
    case RV_STRUCT_MEM: {
        /* one section of 120 ints per rank per tile; blocks at 0, 30, 70 */
        const int bl[3] = {20, 10, 30}, dp[3] = {0, 30, 70}, T = 4, SEC = 120;
        c->access = kind == RV_INDEXED ? RV_WRITE_IND : RV_WRITE_ALL;
        c->disp = base;
        c->esize = 4;
        for (int t = 0; t < T; t++)
            for (int b = 0; b < 3; b++)
                rt_list_add(&c->file, c->disp + ((long long)t * n * SEC + (long long)rank * SEC + dp[b]) * 4,
                       bl[b] * 4);
        c->ft_size = 60 * 4;
        c->ft_extent = (long long)n * SEC * 4;
        if (kind == RV_INDEXED) {
            c->memcount = T * 60;
        } else {
            c->memcount = T * 60 * 4 / 12; /* struct {int; double}: 12 data bytes */
        }
        if (make_types) {
            int disps[3];
            MPI_Datatype ix;
            for (int b = 0; b < 3; b++)
                disps[b] = rank * SEC + dp[b];
            c->etype = MPI_INT;
            MPI_Type_indexed(3, bl, disps, MPI_INT, &ix);
            MPI_Type_create_resized(ix, 0, (MPI_Aint)n * SEC * 4, &c->filetype);
            MPI_Type_free(&ix);
            rv_commit(&c->filetype);
            if (kind == RV_INDEXED) {
                c->memtype = MPI_INT;
            } else {
                struct s {
                    int a;
                    double b;
                };
                int sbl[2] = {1, 1};
                MPI_Aint sdp[2] = {offsetof(struct s, a), offsetof(struct s, b)};
                MPI_Datatype st[2] = {MPI_INT, MPI_DOUBLE}, raw;
                MPI_Type_create_struct(2, sbl, sdp, st, &raw);
                MPI_Type_create_resized(raw, 0, (MPI_Aint)sizeof(struct s), &c->memtype);
                MPI_Type_free(&raw);
                rv_commit(&c->memtype);
            }
        }
        if (kind == RV_STRUCT_MEM) {
            c->mem_elems = 2;
            struct s {
                int a;
                double b;
            };
            for (int k = 0; k < c->memcount; k++) {
                rt_list_add(&c->mem, (long long)k * (long long)sizeof(struct s) + (long long)offsetof(struct s, a), 4);
                rt_list_add(&c->mem, (long long)k * (long long)sizeof(struct s) + (long long)offsetof(struct s, b), 8);
            }
            c->membytes = (long long)c->memcount * (long long)sizeof(struct s);
        }
        break;
    }
    case RV_SUBARRAY_C:
    case RV_SUBARRAY_F: {
        int px, py;
        rv_grid(n, &px, &py);
        const int pr = rank / py, pc = rank % py;
        const int es = kind == RV_SUBARRAY_C ? 4 : 8;
        const int LR = kind == RV_SUBARRAY_C ? 6 : 5, LC = kind == RV_SUBARRAY_C ? 5 : 3;
        const int GR = LR * px, GC = LC * py;
        c->access = kind == RV_SUBARRAY_C ? RV_WRITE_ALL : RV_WRITE_IND;
        c->disp = base + 8;
        c->esize = es;
        /* row-major global array of GR rows of GC elements either way; the
         * Fortran case describes it with dimension 0 = columns (fastest) */
        for (int i = 0; i < LR; i++)
            rt_list_add(&c->file, c->disp + ((long long)(pr * LR + i) * GC + pc * LC) * es,
                   (long long)LC * es);
        c->ft_size = (long long)LR * LC * es;
        c->ft_extent = (long long)GR * GC * es;
        c->memcount = LR * LC;
        if (make_types) {
            MPI_Datatype el = es == 4 ? MPI_INT : MPI_DOUBLE;
            c->etype = el;
            c->memtype = el;
            if (kind == RV_SUBARRAY_C) {
                int sizes[2] = {GR, GC}, sub[2] = {LR, LC}, st[2] = {pr * LR, pc * LC};
                MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_C, el, &c->filetype);
            } else {
                int sizes[2] = {GC, GR}, sub[2] = {LC, LR}, st[2] = {pc * LC, pr * LR};
                MPI_Type_create_subarray(2, sizes, sub, st, MPI_ORDER_FORTRAN, el, &c->filetype);
            }
            rv_commit(&c->filetype);
        }
        break;
    }
    case RV_RESIZED: {
        const int C = 6, T = 10;
        c->access = RV_WRITE_AT_SPLIT;
        c->split_ints = 27; /* not a whole tile: the second write starts mid-tile */
        c->disp = base + (MPI_Offset)rank * C * 4;
        c->esize = 4;
        for (int t = 0; t < T; t++)
            rt_list_add(&c->file, c->disp + (long long)t * n * C * 4, C * 4);
        c->ft_size = C * 4;
        c->ft_extent = (long long)n * C * 4;
        c->memcount = T * C;
        if (make_types) {
            MPI_Datatype ct;
            c->etype = MPI_INT;
            MPI_Type_contiguous(C, MPI_INT, &ct);
            MPI_Type_create_resized(ct, 0, (MPI_Aint)n * C * 4, &c->filetype);
            MPI_Type_free(&ct);
            rv_commit(&c->filetype);
            c->memtype = MPI_INT;
        }
        break;
    }
    case RV_DERIVED_ETYPE: {
        const int E = 12, BL = 2, CNT = 4, T = 2;
        c->access = RV_WRITE_IND;
        c->disp = base + (MPI_Offset)rank * BL * E;
        c->esize = E;
        for (int t = 0; t < T; t++)
            for (int i = 0; i < CNT; i++)
                rt_list_add(&c->file, c->disp + ((long long)t * CNT * BL * n + (long long)i * BL * n) * E,
                       (long long)BL * E);
        c->ft_size = (long long)CNT * BL * E;
        c->ft_extent = (long long)CNT * BL * n * E;
        c->memcount = T * CNT * BL * E / 4;
        if (make_types) {
            MPI_Datatype v;
            MPI_Type_contiguous(3, MPI_INT, &c->etype);
            rv_commit(&c->etype);
            MPI_Type_vector(CNT, BL, BL * n, c->etype, &v);
            MPI_Type_create_resized(v, 0, (MPI_Aint)CNT * BL * n * E, &c->filetype);
            MPI_Type_free(&v);
            rv_commit(&c->filetype);
            c->memtype = MPI_INT;
        }
        break;
    }
    default:
        fprintf(stderr, "rviews: unknown case %d\n", kind);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    c->etype_named = c->etype == MPI_INT || c->etype == MPI_DOUBLE || c->etype == MPI_BYTE;
    c->filetype_named = 0;
    c->nbytes = c->file.total;
    if (c->mem.n == 0) { /* contiguous memory */
        rt_list_add(&c->mem, 0, c->nbytes);
        c->membytes = c->nbytes;
    }
    if (c->mem.total != c->nbytes) {
        fprintf(stderr, "rviews: case %s: memory model %lld bytes, file model %lld\n", c->name,
                c->mem.total, c->nbytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < c->file.n; i++)
        if (c->file.p[i].off + c->file.p[i].len > base + RV_REGION) {
            fprintf(stderr, "rviews: case %s does not fit its region\n", c->name);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

/** Free the model and the user handles still held (those not set to
 *  MPI_DATATYPE_NULL by the caller after freeing them). */
static inline void rv_free(struct rv_case *c)
{
    free(c->file.p);
    free(c->mem.p);
    if (c->etype != MPI_DATATYPE_NULL && !c->etype_named)
        MPI_Type_free(&c->etype);
    if (c->filetype != MPI_DATATYPE_NULL)
        MPI_Type_free(&c->filetype);
    if (c->memtype != MPI_DATATYPE_NULL && c->memtype != MPI_INT && c->memtype != MPI_DOUBLE &&
        c->memtype != MPI_BYTE)
        MPI_Type_free(&c->memtype);
    memset(c, 0, sizeof *c);
}

/** The data stream of rank's access: stream[s] = pat(rank, file offset of s). */
static inline unsigned char *rv_stream(const struct rv_case *c, int rank)
{
    unsigned char *s = malloc((size_t)c->nbytes + 1);
    long long k = 0;
    for (int i = 0; i < c->file.n; i++) {
        rt_fill(s + k, (size_t)c->file.p[i].len, rank, c->file.p[i].off);
        k += c->file.p[i].len;
    }
    return s;
}

/** A memory buffer of the case: sentinel everywhere, then stream (if not
 *  NULL) scattered over the memory regions. */
static inline unsigned char *rv_membuf(const struct rv_case *c, const unsigned char *stream)
{
    unsigned char *m = malloc((size_t)c->membytes + 1);
    memset(m, RV_SENTINEL, (size_t)c->membytes + 1);
    if (stream) {
        long long k = 0;
        for (int i = 0; i < c->mem.n; i++) {
            memcpy(m + c->mem.p[i].off, stream + k, (size_t)c->mem.p[i].len);
            k += c->mem.p[i].len;
        }
    }
    return m;
}

/** Check a memory buffer after a read: the regions hold stream, the rest
 *  still holds the sentinel.  Returns nonzero if right. */
#define RV_CHECK_MEM(c, m, stream, ...) \
    rv_check_mem((c), (m), (stream), __FILE__, __LINE__, __VA_ARGS__)
static inline int rv_check_mem(const struct rv_case *c, const unsigned char *m,
                               const unsigned char *stream, const char *file, int line,
                               const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static inline int rv_check_mem(const struct rv_case *c, const unsigned char *m,
                               const unsigned char *stream, const char *file, int line,
                               const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    unsigned char *exp = rv_membuf(c, stream);
    int ok = rt_check_bytes(m, exp, NULL, (size_t)c->membytes + 1, file, line,
                            "%s (memory of case %s; gaps must keep 0x%02x)", what, c->name,
                            RV_SENTINEL);
    free(exp);
    return ok;
}

/** File offset of stream byte s of the case (the model's get_byte_offset);
 *  beyond the access, by tiling the filetype (the access starts at tile 0
 *  and covers at least one whole tile). */
static inline long long rv_file_offset(const struct rv_case *c, long long s)
{
    long long tile = 0;
    if (s >= c->nbytes) {
        tile = s / c->ft_size;
        s %= c->ft_size;
    }
    for (int i = 0; i < c->file.n; i++) {
        if (s < c->file.p[i].len)
            return c->file.p[i].off + s + tile * c->ft_extent;
        s -= c->file.p[i].len;
    }
    return -1;
}

/** Stream bytes of the case's access that lie before file offset eof, in
 *  stream order up to the first one that does not (what a read returns). */
static inline long long rv_bytes_before(const struct rv_case *c, long long eof)
{
    long long n = 0;
    for (int i = 0; i < c->file.n; i++) {
        if (c->file.p[i].off + c->file.p[i].len <= eof) {
            n += c->file.p[i].len;
            continue;
        }
        if (c->file.p[i].off < eof)
            n += eof - c->file.p[i].off;
        break;
    }
    return n;
}

/** Mark in img/mask (covering file bytes [0, len)) the bytes every rank
 *  writes in case kind at base. */
static inline void rv_image(int kind, int nprocs, MPI_Offset base, unsigned char *img,
                            unsigned char *mask, long long len)
{
    for (int q = 0; q < nprocs; q++) {
        struct rv_case m;
        rv_build(kind, q, nprocs, base, 0, &m);
        for (int i = 0; i < m.file.n; i++)
            for (long long k = 0; k < m.file.p[i].len; k++) {
                long long o = m.file.p[i].off + k;
                if (o < len) {
                    img[o] = pat(q, o);
                    mask[o] = 1;
                }
            }
        rv_free(&m);
    }
}

#endif /* RVIEWS_H */
