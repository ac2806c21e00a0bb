/*
 * t_coll_strided.c — the collective engine on strided requests, byte for
 * byte, under one strategy per run (-strategy two_phase|every_rank|
 * resonant|stripe|node_first|target_first|auto).
 *
 * Why: aggregation (src/coll/exchange.c) is to carry runs of equally long,
 * equally spaced pieces as one strided group (first piece, length, count,
 * stride) all the way: from the datatype iterator, through the cuts at
 * domain, round and stripe boundaries, the metadata, the aggregators'
 * coverage of interleaved groups, to the copies.  Each pattern below puts
 * groups where they can be cut, end early, interleave with others' or fail
 * to be groups at all.  The expected bytes are ctest_util.h's pattern at
 * offsets computed by hand (rank q of P writes pat(q, o) at file offset o),
 * never by decoding the MPI types.
 *
 * Patterns (every access starts at byte ORG, which is odd, so that the
 * absolute stripe boundaries of a layout fall inside elements):
 *   ecio_int, ecio_double, ecio_3b  the ECIO interleave: filetype
 *             vector(N, 1, P) of the element (MPI_INT, MPI_DOUBLE, 3 bytes)
 *             resized to N*P elements, displacement q elements.  Rank 0
 *             writes one element more, into the view's second tile: the span
 *             is N*P + 1 elements, so even domains of P aggregators (or of
 *             P/2, N being even) are not whole elements and their
 *             boundaries fall inside one
 *   unequal_int, unequal_3b  the same, rank q writing N - 37q elements (its
 *             groups end in different periods), the last rank nothing
 *   overlap   every rank the same slot of the interleave, each with its own
 *             data: a byte must be one of the writers' bytes
 *   memvec    interleaved ints from memory vector(N, 1, 5) of MPI_INT (5:
 *             no rank count of the runs, so the strides differ)
 *   memvec_mixed  3-byte elements from memory runs of 2 bytes every 5:
 *             memory and file runs of different lengths
 *   nested    hvector of vector(3, 2, 5) of MPI_INT, one slot per rank and
 *             period, one tile and two blocks of the next
 *   hind_regular    hand-built hindexed, equal blocks and gaps
 *   hind_irregular  hindexed whose block length and offset change every few
 *             blocks, with single bytes between (short groups and none)
 *   holes     b bytes every s > P*b bytes: a hole in every period
 *   advance   four write_all calls of fewer elements than ecio_3b's tile
 *             on one view, the file pointer moving across the tile
 *
 * Configurations (hints at open; every pattern, the ds ones those with
 * holes):
 *   plain       a new file: bytes nobody writes must read as zero
 *   ds_auto, ds_enable, ds_disable  romio_ds_write unset, enable, disable
 *               (read-modify-write or list I/O over holes)
 *   cb4099, cb1000  small odd cb_buffer_size: many rounds, cut mid-group
 *   su4096, su1000  striping_unit 4096 or 1000, striping_factor 4: stripe
 *               domains of the stripe-aware strategies, even domains on
 *               stripe boundaries
 *   shm, shm_cb  resonio_ranks_per_node=2 and resonio_shm=enable
 *               (node-shared round buffers), the second with cb 4099
 * All but plain pre-fill the file with a background past the end of the
 * data, which every byte nobody writes must keep.  With -short (MPICH at 3
 * ranks, where every collective call costs scheduler slices) each
 * configuration runs only its core patterns, ds_auto and shm none (plain
 * has holes under ds unset, shm_cb the shared buffers): every pattern but
 * unequal_int still runs, and only writes are held to rio_coll_last.
 *
 * Each configuration is one file, each pattern a region of it.  The ranks
 * set each pattern's view and write collectively (write_all or
 * write_at_all), then sync; rank 0 reads the whole file with pread and
 * checks its length and every byte against the model.  Then every rank
 * reads each pattern through the same view into a buffer of sentinels, and
 * checks each byte read against the file and that memory outside its
 * memory type kept the sentinel.  After each call rio_coll_last must show
 * the forced strategy (two_phase for the stripe-aware ones without a
 * layout) with aggregators, and several rounds for the ECIO patterns under
 * a small cb_buffer_size: else the run would not have tested the
 * aggregation at all.
 */
#include "ctest_util.h"

#include <signal.h>

#define ORG 777          /* first byte of every access (odd) */
#define TAIL 100         /* background past the last byte written */
#define BG_RANK 63       /* writer bit (and pat() rank) of the background */
#define BG_BIT ((uint64_t)1 << BG_RANK)
#define N 4000           /* ECIO elements per rank and tile; even (see above) */
#define UNEQ_STEP 37
#define NEST_SLOT 60     /* vector(3, 2, 5) of MPI_INT padded to 15 ints */
#define NEST_K 600       /* nested: slots per rank and tile */
#define NEST_EXTRA 4     /* ints into the second tile: two blocks */
#define HIND_K 3000      /* hindexed: blocks per tile */
#define HOLE_B 6
#define HOLE_GAP 5
#define HOLE_M 4000
#define NCALLS_MAX 4

static const int advance_counts[NCALLS_MAX] = {1234, 777, 2001, 1}; /* 4013 > N */

static const char *strategy;
static int short_run; /* -short 1: each configuration's core patterns only */
static MPI_Datatype e3; /* 3 contiguous bytes */

/* ---- building blocks of the accesses -------------------------------------------- */

/* File pieces of elements first..first+count-1 of E bytes in slot `slot`
 * of a P-way interleave. */
static void il_file(struct ct_access *a, int slot, int P, int E, long long first,
                    long long count)
{
    for (long long j = first; j < first + count; j++)
        rt_list_add(&a->file, ORG + (j * P + slot) * E, E);
}

/* Memory pieces: n runs of len bytes every stride bytes. */
static void mem_runs(struct ct_access *a, long long n, long long len, long long stride)
{
    for (long long j = 0; j < n; j++)
        rt_list_add(&a->mem, j * stride, len);
    a->membytes = n > 0 && len > 0 ? (n - 1) * stride + len : 0;
}

/* The ECIO view of slot `slot`: vector(N, 1, P) of T (E bytes) resized to
 * N*P elements. */
static void il_view(struct ct_access *a, int slot, int P, MPI_Datatype T, int E, int types)
{
    MPI_Datatype v;
    a->disp = ORG + (MPI_Offset)slot * E;
    if (!types)
        return;
    a->etype = T;
    MPI_Type_vector(N, 1, P, T, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)N * P * E, &a->filetype);
    MPI_Type_free(&v);
    MPI_Type_commit(&a->filetype);
}

/* T itself when it is named, else a copy for the access to own
 * (ct_access_free frees derived memory types). */
static MPI_Datatype own_type(MPI_Datatype T)
{
    int ni, na, nd, comb;
    MPI_Datatype d;
    MPI_Type_get_envelope(T, &ni, &na, &nd, &comb);
    if (comb == MPI_COMBINER_NAMED)
        return T;
    MPI_Type_dup(T, &d);
    return d;
}

/* count elements of slot `slot` of the ECIO view from contiguous memory. */
static void ecio(struct ct_access *a, int slot, int P, MPI_Datatype T, int E, long long count,
                 int types)
{
    il_file(a, slot, P, E, 0, count);
    mem_runs(a, 1, count * E, 0);
    il_view(a, slot, P, T, E, types);
    a->memcount = (int)count;
    if (types)
        a->memtype = own_type(T);
}

static long long ecio_count(int q)
{
    return N + (q == 0);
}

static long long unequal_count(int q, int P)
{
    return P > 1 && q == P - 1 ? 0 : N - (long long)q * UNEQ_STEP;
}

/*
 * A tiled hand-built hindexed of MPI_BYTE: block i of k is len[i] bytes at
 * off[i] in the rank's slot (slot bytes) of period i, the tile is k
 * periods; one tile and extra bytes of the next are written, by explicit
 * offset 0.
 */
static void hind(struct ct_access *a, int q, int P, int k, int slot, const int *len,
                 const int *off, long long extra, int types)
{
    long long count = extra;
    for (int i = 0; i < k; i++)
        count += len[i];
    for (long long s = 0, t = 0; s < count; t++)
        for (int i = 0; i < k && s < count; i++) {
            long long n = rt_minll(len[i], count - s);
            rt_list_add(&a->file, ORG + ((t * k + i) * P + q) * slot + off[i], n);
            s += n;
        }
    mem_runs(a, 1, count, 0);
    a->disp = ORG + (MPI_Offset)q * slot;
    a->at = 1;
    a->memcount = (int)count;
    if (!types)
        return;
    MPI_Aint *dp = malloc(sizeof *dp * (size_t)k);
    MPI_Datatype h;
    for (int i = 0; i < k; i++)
        dp[i] = (MPI_Aint)i * P * slot + off[i];
    MPI_Type_create_hindexed(k, len, dp, MPI_BYTE, &h);
    MPI_Type_create_resized(h, 0, (MPI_Aint)k * P * slot, &a->filetype);
    MPI_Type_commit(&a->filetype);
    MPI_Type_free(&h);
    free(dp);
    a->etype = a->memtype = MPI_BYTE;
}

/* ---- the patterns: rank q of P, call `call` of the pattern ----------------------- */

static void p_ecio_int(int q, int P, int call, int types, struct ct_access *a)
{
    ecio(a, q, P, MPI_INT, 4, ecio_count(q), types);
}

static void p_ecio_double(int q, int P, int call, int types, struct ct_access *a)
{
    ecio(a, q, P, MPI_DOUBLE, 8, ecio_count(q), types);
}

static void p_ecio_3b(int q, int P, int call, int types, struct ct_access *a)
{
    ecio(a, q, P, e3, 3, ecio_count(q), types);
}

static void p_unequal_int(int q, int P, int call, int types, struct ct_access *a)
{
    ecio(a, q, P, MPI_INT, 4, unequal_count(q, P), types);
}

static void p_unequal_3b(int q, int P, int call, int types, struct ct_access *a)
{
    ecio(a, q, P, e3, 3, unequal_count(q, P), types);
}

static void p_overlap(int q, int P, int call, int types, struct ct_access *a)
{
    ecio(a, 0, P, MPI_INT, 4, N, types);
}

/* Interleaved elements of esize bytes (etype) in the file; in memory runs
 * of runlen base elements (bsize bytes each) 5 base elements apart. */
static void memvec(struct ct_access *a, int q, int P, int types, MPI_Datatype etype, int esize,
                   int runs, int runlen, MPI_Datatype base, int bsize)
{
    il_file(a, q, P, esize, 0, N);
    mem_runs(a, runs, runlen * bsize, 5 * bsize);
    il_view(a, q, P, etype, esize, types);
    a->memcount = 1;
    if (types) {
        MPI_Type_vector(runs, runlen, 5, base, &a->memtype);
        MPI_Type_commit(&a->memtype);
    }
}

static void p_memvec(int q, int P, int call, int types, struct ct_access *a)
{
    memvec(a, q, P, types, MPI_INT, 4, N, 1, MPI_INT, 4);
}

static void p_memvec_mixed(int q, int P, int call, int types, struct ct_access *a)
{
    /* N elements of 3 bytes in runs of 2 */
    memvec(a, q, P, types, e3, 3, N * 3 / 2, 2, MPI_BYTE, 1);
}

static void p_nested(int q, int P, int call, int types, struct ct_access *a)
{
    const long long per_tile = 6LL * NEST_K, count = per_tile + NEST_EXTRA;
    for (long long s = 0; s < count; s++) {
        long long t = s / per_tile, i = s % per_tile / 6, w = s % 6;
        rt_list_add(&a->file,
                    ORG + ((t * NEST_K + i) * P + q) * NEST_SLOT + w / 2 * 20 + w % 2 * 4, 4);
    }
    mem_runs(a, 1, count * 4, 0);
    a->disp = ORG + (MPI_Offset)q * NEST_SLOT;
    a->at = 1;
    a->memcount = (int)count;
    if (!types)
        return;
    MPI_Datatype in, slot, outer;
    MPI_Type_vector(3, 2, 5, MPI_INT, &in);
    MPI_Type_create_resized(in, 0, NEST_SLOT, &slot);
    MPI_Type_create_hvector(NEST_K, 1, (MPI_Aint)P * NEST_SLOT, slot, &outer);
    MPI_Type_create_resized(outer, 0, (MPI_Aint)NEST_K * P * NEST_SLOT, &a->filetype);
    MPI_Type_commit(&a->filetype);
    MPI_Type_free(&outer);
    MPI_Type_free(&slot);
    MPI_Type_free(&in);
    a->etype = a->memtype = MPI_INT;
}

static void p_hind_regular(int q, int P, int call, int types, struct ct_access *a)
{
    static int len[HIND_K], off[HIND_K];
    for (int i = 0; i < HIND_K; i++) {
        len[i] = 7;
        off[i] = 0;
    }
    hind(a, q, P, HIND_K, 10, len, off, 7 + 1, types);
}

static void p_hind_irregular(int q, int P, int call, int types, struct ct_access *a)
{
    static int len[HIND_K], off[HIND_K];
    for (int i = 0; i < HIND_K; i++) {
        len[i] = i % 13 == 0 ? 1 : 2 + 2 * (i / 4 % 5); /* at most 10 */
        off[i] = i / 7 % 4;                            /* ends within the 16-byte slot */
    }
    hind(a, q, P, HIND_K, 16, len, off, len[0] + 1, types);
}

static void p_holes(int q, int P, int call, int types, struct ct_access *a)
{
    const long long s = (long long)P * HOLE_B + HOLE_GAP;
    for (long long i = 0; i < HOLE_M; i++)
        rt_list_add(&a->file, ORG + i * s + (long long)q * HOLE_B, HOLE_B);
    mem_runs(a, 1, (long long)HOLE_M * HOLE_B, 0);
    a->disp = ORG + (MPI_Offset)q * HOLE_B;
    a->memcount = HOLE_M * HOLE_B;
    if (!types)
        return;
    MPI_Type_vector(HOLE_M, HOLE_B, (int)s, MPI_BYTE, &a->filetype);
    MPI_Type_commit(&a->filetype);
    a->etype = a->memtype = MPI_BYTE;
}

static void p_advance(int q, int P, int call, int types, struct ct_access *a)
{
    long long first = 0;
    for (int c = 0; c < call; c++)
        first += advance_counts[c];
    il_file(a, q, P, 3, first, advance_counts[call]);
    mem_runs(a, 1, 3LL * advance_counts[call], 0);
    il_view(a, q, P, e3, 3, types);
    a->memcount = advance_counts[call];
    if (types)
        a->memtype = own_type(e3);
}

enum pt {
    PT_ECIO_INT,
    PT_ECIO_DOUBLE,
    PT_ECIO_3B,
    PT_UNEQUAL_INT,
    PT_UNEQUAL_3B,
    PT_OVERLAP,
    PT_MEMVEC,
    PT_MEMVEC_MIXED,
    PT_NESTED,
    PT_HIND_REGULAR,
    PT_HIND_IRREGULAR,
    PT_HOLES,
    PT_ADVANCE,
    NPT
};

typedef void build_fn(int q, int P, int call, int types, struct ct_access *a);

struct pattern {
    const char *name;
    build_fn *build;
    int ncalls;
    int ecio; /* needs several rounds under a small cb_buffer_size */
};

static const struct pattern patterns[NPT] = {
    [PT_ECIO_INT] = {"ecio_int", p_ecio_int, 1, 1},
    [PT_ECIO_DOUBLE] = {"ecio_double", p_ecio_double, 1, 1},
    [PT_ECIO_3B] = {"ecio_3b", p_ecio_3b, 1, 1},
    [PT_UNEQUAL_INT] = {"unequal_int", p_unequal_int, 1, 0},
    [PT_UNEQUAL_3B] = {"unequal_3b", p_unequal_3b, 1, 0},
    [PT_OVERLAP] = {"overlap", p_overlap, 1, 0},
    [PT_MEMVEC] = {"memvec", p_memvec, 1, 0},
    [PT_MEMVEC_MIXED] = {"memvec_mixed", p_memvec_mixed, 1, 0},
    [PT_NESTED] = {"nested", p_nested, 1, 0},
    [PT_HIND_REGULAR] = {"hind_regular", p_hind_regular, 1, 0},
    [PT_HIND_IRREGULAR] = {"hind_irregular", p_hind_irregular, 1, 0},
    [PT_HOLES] = {"holes", p_holes, 1, 0},
    [PT_ADVANCE] = {"advance", p_advance, NCALLS_MAX, 0},
};

/* Call `call` of rank q in the pattern's region, which starts at base. */
static void build(const struct pattern *pt, long long base, int q, int call, int types,
                  struct ct_access *a)
{
    ct_access_init(a);
    pt->build(q, rt_nprocs, call, types, a);
    a->disp += base;
    for (int i = 0; i < a->file.n; i++)
        a->file.p[i].off += base;
}

/* ---- configurations ------------------------------------------------------------ */

#define BIT(p) (1u << (p))
#define ALL (BIT(NPT) - 1)
#define HOLEY (BIT(PT_HOLES) | BIT(PT_NESTED) | BIT(PT_HIND_IRREGULAR) | BIT(PT_UNEQUAL_3B))

struct config {
    const char *tag;
    const char *cb, *unit, *ds; /* cb_buffer_size, striping_unit (factor 4 with it),
                                   romio_ds_write; NULL: unset */
    int shm;                    /* virtual nodes of 2 ranks, node-shared round buffers */
    int prefill;                /* background under and past the data */
    unsigned patterns;          /* what runs */
    unsigned core;              /* what runs with -short (0: nothing, no file) */
};

#define CORE_PLAIN (ALL & ~BIT(PT_ECIO_INT) & ~BIT(PT_UNEQUAL_INT))
static const struct config configs[] = {
    {"plain", NULL, NULL, NULL, 0, 0, ALL, CORE_PLAIN},
    {"ds_auto", NULL, NULL, NULL, 0, 1, HOLEY, 0},
    {"ds_enable", NULL, NULL, "enable", 0, 1, HOLEY, BIT(PT_HOLES)},
    {"ds_disable", NULL, NULL, "disable", 0, 1, HOLEY, BIT(PT_HOLES)},
    {"cb4099", "4099", NULL, NULL, 0, 1, ALL, BIT(PT_ECIO_3B)},
    {"cb1000", "1000", NULL, NULL, 0, 1, ALL, BIT(PT_ECIO_INT)},
    {"su4096", NULL, "4096", NULL, 0, 1, ALL, BIT(PT_ECIO_3B)},
    {"su1000", NULL, "1000", NULL, 0, 1, ALL, BIT(PT_ECIO_INT)},
    {"shm", NULL, NULL, NULL, 1, 1, ALL, 0},
    {"shm_cb", "4099", NULL, NULL, 1, 1, ALL, BIT(PT_ECIO_3B)},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

/* ---- the model of the file -------------------------------------------------------- */

/* Every rank's access in every call of a configuration's patterns, each
 * pattern in a region of its own (models only). */
struct model {
    long long base[NPT];        /* start of each pattern's region */
    struct ct_access *acc[NPT]; /* [q * ncalls + call]; NULL: pattern not run */
    long long end;              /* one past the last byte any call writes */
};

static void model_build(const struct config *cf, struct model *m)
{
    memset(m, 0, sizeof *m);
    for (int k = 0; k < NPT; k++) {
        const struct pattern *pt = &patterns[k];
        if (!((short_run ? cf->core : cf->patterns) & BIT(k)))
            continue;
        m->base[k] = (m->end + TAIL + 4095) / 4096 * 4096; /* ORG stays odd */
        m->acc[k] = calloc((size_t)(rt_nprocs * pt->ncalls), sizeof *m->acc[k]);
        for (int q = 0; q < rt_nprocs; q++)
            for (int c = 0; c < pt->ncalls; c++) {
                struct ct_access *a = &m->acc[k][q * pt->ncalls + c];
                long long first, end;
                build(pt, m->base[k], q, c, 0, a);
                ct_extent(&a->file, &first, &end);
                m->end = end > m->end ? end : m->end;
            }
    }
}

static void model_free(struct model *m)
{
    for (int k = 0; k < NPT; k++) {
        for (int j = 0; m->acc[k] && j < rt_nprocs * patterns[k].ncalls; j++)
            ct_access_free(&m->acc[k][j]);
        free(m->acc[k]);
    }
}

/*
 * Rank 0: the file's image img (len bytes, read with pread) after every
 * write: bytes some rank wrote hold one writer's pattern (the writer's,
 * where one rank wrote them), bytes below bg_end nobody wrote the
 * background, others zero; the file ends at the last byte written or at
 * bg_end.
 */
static void check_file(const unsigned char *img, long long len, const struct model *m,
                       long long bg_end, const char *what)
{
    const long long end = bg_end > m->end ? bg_end : m->end;
    long long bad = 0, first = -1;
    uint64_t first_w = 0;
    uint64_t *who = calloc((size_t)(end ? end : 1), sizeof *who);
    for (long long o = 0; o < bg_end; o++)
        who[o] = BG_BIT;
    for (int k = 0; k < NPT; k++)
        for (int j = 0; m->acc[k] && j < rt_nprocs * patterns[k].ncalls; j++)
            ct_mark(who, 0, end, &m->acc[k][j].file, j / patterns[k].ncalls);
    CHECK(len == end, "%s: the file is %lld bytes, expected %lld", what, len, end);
    for (long long o = 0; o < rt_minll(len, end); o++) {
        uint64_t w = who[o] & ~BG_BIT ? who[o] & ~BG_BIT : who[o]; /* writes hide the bg */
        if (w ? !ct_one_of(img[o], o, w) : img[o] != 0) {
            if (first < 0) {
                first = o;
                first_w = w;
            }
            bad++;
        }
    }
    CHECK(bad == 0,
          "%s: %lld file bytes are wrong; the first, at %lld, is 0x%02x, expected a byte of "
          "writers 0x%llx (bit %d: the background; none: zero)",
          what, bad, first, first >= 0 ? img[first] : 0, (unsigned long long)first_w, BG_RANK);
    free(who);
}

/* ---- the calls ------------------------------------------------------------------------ */

/* Whether the ranks' extents in call c of a pattern (acc: its models)
 * follow rank order, empty ranks skipped (summary.c's nonoverlap). */
static int rank_ordered(const struct ct_access *acc, int ncalls, int c)
{
    long long prev_end = -1;
    for (int q = 0; q < rt_nprocs; q++) {
        long long f, e;
        ct_extent(&acc[q * ncalls + c].file, &f, &e);
        if (f >= e)
            continue;
        if (f < prev_end)
            return 0;
        prev_end = e;
    }
    return 1;
}

/* Call c of pattern k ran the forced strategy (two_phase for the
 * stripe-aware ones without a layout) with aggregators, unless it is a
 * resonant write of extents in rank order, which each rank writes itself;
 * and an ECIO pattern under a small cb_buffer_size took several rounds.
 * Collective; rank 0 checks. */
static void check_ran(rio_file *fh, const struct config *cf, const struct model *m, int k,
                      int c, int write, const char *what)
{
    const struct pattern *pt = &patterns[k];
    struct rio_coll_info in;
    if (!ct_last(fh, &in) || rt_rank != 0 || !strcmp(strategy, "auto"))
        return;
    const char *want = ct_needs_layout(strategy) && !cf->unit ? "two_phase" : strategy;
    int own = write && !strcmp(want, "resonant") && rank_ordered(m->acc[k], pt->ncalls, c);
    CHECK(!strcmp(in.strategy, want) && (own || in.naggs > 0),
          "%s: ran %s with %d aggregators, expected %s%s; reason \"%s\"", what, in.strategy,
          in.naggs, want, own ? "" : " with aggregators", in.reason);
    if (cf->cb && pt->ecio && in.naggs > 0)
        CHECK(in.rounds > 1, "%s: %d round(s); cb_buffer_size=%s needs several", what,
              in.rounds, cf->cb);
}

static void check_count(const MPI_Status *st, const struct ct_access *a, const char *what)
{
    int n = -1;
    MPI_Get_count(st, a->memtype, &n);
    CHECK(n == a->memcount, "%s: the status counts %d, expected %d", what, n, a->memcount);
}

static unsigned char *sentinels(long long n)
{
    unsigned char *b = malloc((size_t)(n ? n : 1));
    memset(b, CT_SENTINEL, (size_t)(n ? n : 1));
    return b;
}

/* Pattern k's view and its calls as writes (write) or, from the start of
 * the view, as reads checked against the file's image img (ilen bytes). */
static void run_calls(rio_file *fh, const struct config *cf, const struct model *m, int k,
                      int write, const unsigned char *img, long long ilen)
{
    const struct pattern *pt = &patterns[k];
    char s[MPI_MAX_ERROR_STRING], w[300];
    for (int c = 0; c < pt->ncalls; c++) {
        struct ct_access a;
        MPI_Status st;
        int rc;
        build(pt, m->base[k], rt_rank, c, 1, &a);
        snprintf(w, sizeof w, "[%s %s %s] %s %d", strategy, cf->tag, pt->name,
                 write ? "write" : "read", c);
        if (c == 0) /* also puts the file pointer at the start of the view */
            RT_OK(rio_file_set_view(fh, a.disp, a.etype, a.filetype, "native", MPI_INFO_NULL));
        unsigned char *buf = write ? ct_write_buf(&a, rt_rank) : sentinels(a.membytes);
        if (write)
            rc = a.at ? rio_file_write_at_all(fh, a.offset, buf, a.memcount, a.memtype, &st)
                      : rio_file_write_all(fh, buf, a.memcount, a.memtype, &st);
        else
            rc = a.at ? rio_file_read_at_all(fh, a.offset, buf, a.memcount, a.memtype, &st)
                      : rio_file_read_all(fh, buf, a.memcount, a.memtype, &st);
        CHECK(rc == MPI_SUCCESS, "%s failed: %s", w, rt_errstr(rc, s));
        if (rc == MPI_SUCCESS)
            check_count(&st, &a, w);
        if (write || !short_run)
            check_ran(fh, cf, m, k, c, write, w);
        if (!write && img)
            CT_CHECK_READ(&a, buf, a.mem.total, img, ilen, "%s", w);
        free(buf);
        ct_access_free(&a);
    }
}

/* ---- one configuration ------------------------------------------------------------ */

/* Rank 0 writes the background over [0, n) of a new file; collective. */
static void prefill(const char *path, long long n)
{
    unsigned char *bg = rt_rank == 0 ? malloc((size_t)n) : NULL;
    if (bg)
        rt_fill(bg, (size_t)n, BG_RANK, 0);
    ct_fill_rio(path, bg, (size_t)n, 0, 1);
    free(bg);
}

/* Every pattern of cf written, the file checked, every pattern read. */
static void run_config(const struct config *cf)
{
    char path[4200], what[200];
    struct model m;
    rio_file *fh = RIO_FILE_NULL;
    long long ilen = 0;
    unsigned char *img = NULL;
    rt_path(path, sizeof path, cf->tag);
    snprintf(what, sizeof what, "[%s %s]", strategy, cf->tag);
    model_build(cf, &m);
    const long long bg_end = cf->prefill ? m.end + TAIL : 0;
    ct_unlink_rio(path);
    if (cf->prefill)
        prefill(path, bg_end);
    MPI_Info info = rt_info("resonio_strategy", strategy, "cb_buffer_size", cf->cb,
                            "striping_unit", cf->unit, "striping_factor", cf->unit ? "4" : NULL,
                            "romio_ds_write", cf->ds, "resonio_ranks_per_node",
                            cf->shm ? "2" : NULL, "resonio_shm", cf->shm ? "enable" : NULL, NULL);
    int rc = rio_file_open(MPI_COMM_WORLD, path, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (RT_OK(rc)) {
        for (int k = 0; k < NPT; k++)
            if (m.acc[k])
                run_calls(fh, cf, &m, k, 1, NULL, 0);
        RT_OK(rio_file_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        img = ct_slurp(path, &ilen);
        if (rt_rank == 0 && img)
            check_file(img, ilen, &m, bg_end, what);
        for (int k = 0; k < NPT; k++)
            if (m.acc[k])
                run_calls(fh, cf, &m, k, 0, img, ilen);
        RT_OK(rio_file_close(&fh));
    }
    free(img);
    model_free(&m);
    ct_unlink_rio(path);
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(120);
    strategy = ct_strategy_arg();
    short_run = rt_arg("-short") != NULL;
    if (rt_nprocs >= BG_RANK) {
        CHECK(0, "at most %d ranks (writer sets are 64-bit masks, bit %d the background)",
              BG_RANK, BG_RANK);
        return rt_finish();
    }
    MPI_Type_contiguous(3, MPI_BYTE, &e3);
    MPI_Type_commit(&e3);
    for (int c = 0; c < NCONFIGS; c++)
        if (!short_run || configs[c].core)
            run_config(&configs[c]);
    MPI_Type_free(&e3);
    alarm(0);
    return rt_finish();
}
