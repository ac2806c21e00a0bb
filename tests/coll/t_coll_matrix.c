/*
 * t_coll_matrix.c — the collective engine, byte for byte, under one
 * strategy per run (-strategy two_phase|every_rank|resonant|stripe|
 * node_first|target_first|sized|direct|independent|auto), or under each of a
 * comma list in turn (-strategies).
 *
 * Patterns (each in its own REGION of the file; the model of every rank's
 * access is built by hand, independently of the MPI types):
 *   interleaved   rank i writes block k*P+i (resized contiguous filetype)
 *   segmented     each rank one contiguous segment (write_at_all)
 *   vector        vector filetype of ints, vector memory type
 *   subarray3d    3-D block of a global int array, MPI_Type_create_subarray
 *   flash         memory: struct of NVAR variables with guard cells (FLASH's
 *                 unk layout); file: indexed, variable-major
 *   overlap       ranks overlap their neighbours and all write one range
 *   zero          odd ranks move 0 bytes; then a call where all move 0
 *   unequal       different block lengths and counts per rank
 *   holes         blocks with gaps and a 3-stripe-row gap, over a file
 *                 pre-filled with a background (holes must keep it)
 *   holes_ds      the same with ds_in_coll=enable (read-modify-write)
 *   eof           a write, then a collective read through a view that
 *                 runs past end of file
 * Each pattern is written through rio_file_write_at_all/write_all and read
 * back through rio_file_read_at_all with the strategy; rio_coll_last is
 * checked after each call against what the strategy promises (computed
 * from the models: aggregators by ROMIO's rule for two_phase, every rank
 * with one even domain for every_rank, the node's
 * rank with the most data for node_first, resonant's agent rule, ascending
 * requests per target for resonant/target_first/stripe writes, several
 * rounds when cb_buffer_size is small).
 *
 * With -storage_layout 1 the storage gives every file a layout of its own
 * (CephFS), so configuration C is left out, as on emu.
 *
 * With -cephfs_mount DIR (-fname inside DIR, a ceph-fuse mount) resonio's
 * files are opened through the cephfs: driver (libcephfs in user space)
 * and everything is verified through the mount: a file written through
 * cephfs: must read back byte for byte through ceph-fuse.  There the
 * engine's targets are the OSDs that hold the file's objects (-object_size
 * makes objects of a few stripes, so the file spans many object sets),
 * and the checks of the strategies' targets follow the file's object map.
 *
 * With -rados POOL (the program built with CT_RADOS, linking librados)
 * resonio's files are rados:POOL/<path>, and each is read back from its
 * RADOS objects with librados by the striping rule (rados_test.h), never
 * through resonio.  -object_size N adds the hint resonio_object_size.
 *
 * With -calls mixed the same calls are made through their nonblocking
 * forms (rio_file_iwrite_at_all, iwrite_all, iread_at_all, each followed
 * by MPI_Wait) for even patterns and their split forms (..._begin, then
 * ..._end) for odd ones; with -multiple the program asks for
 * MPI_THREAD_MULTIPLE (and fails without it), where resonio runs them in
 * the background (the file's lane); without it a call's exchange runs at
 * issue and its storage transfers from or into the caller's buffer in the
 * background.  The checks are the same.
 *
 * With -wrap PREFIX (delay:, whose writes, unlike the posix driver's, do
 * not go to the kernel's page cache) resonio opens its files through that
 * wrapper; with -nb_copy N the files get the hint resonio_nb_copy=N, the
 * bytes a nonblocking collective write below MPI_THREAD_MULTIPLE copies to
 * write in the background; and -copied 1 asks that some rank copied some
 * (rio_stats_get's nb_copied), so a strategy whose aggregators write from
 * their round buffers is seen to take that path.
 *
 * With -config A (or B, C) only that configuration runs; with -layout 0
 * the configurations run without their layout (B so: virtual nodes and
 * many aggregators on a file without one, where the summary's rows go to
 * rank 0 and on to the aggregators above 8 ranks).
 *
 * With -deferred 1 every file is opened with romio_no_indep_rw=true, so
 * ranks other than the first open it only when they touch storage (the
 * deferred-open driver, forwarding datatype requests on emu).
 *
 * Configurations (one file each): A = layout striping_unit=4096 (or -unit),
 * striping_factor=4; B = the layout, cb_buffer_size=16 KiB, virtual nodes
 * of 2 ranks and node-shared round buffers (resonio_shm=enable); C = no
 * layout (a subset of patterns; the stripe-aware strategies must fall back
 * to two_phase and say why).
 *
 * The same program writes every pattern once more through the MPI
 * library's own MPI-IO (MPI_File_*: this program links only libresonio)
 * to <fname>.mpi.  Rank 0 then checks each file against the model: a byte
 * with one writer holds that writer's pattern in both files (so the files
 * agree byte for byte there); a byte with several writers holds one of
 * theirs; a pre-filled hole keeps the background in resonio's file; other
 * unwritten bytes are undefined and skipped.  Every rank checks what it
 * read against the file (POSIX reads) and that memory outside its memory
 * type was not touched.
 */
#include "ctest_util.h"

#include <signal.h>

#define UNIT unit_bytes /* 4096, or -unit (CephFS takes 64 KiB and up) */
#define FACTOR nfactor /* 4, or the emu service's targets when fewer */
/* each pattern's region of the file: 1 MiB up to 8 ranks, growing with
 * the ranks beyond (set in main) */
#define REGION region_bytes
static long long region_bytes = 1024 * 1024;
#define SMALL_CB 16384
#define RPN 2          /* ranks per virtual node in configuration B */
#define BG_RANK 1000   /* "rank" of the background pattern of pre-filled holes */

enum pk {
    PK_INTERLEAVED,
    PK_SEGMENTED,
    PK_VECTOR,
    PK_SUBARRAY,
    PK_FLASH,
    PK_OVERLAP,
    PK_ZERO,
    PK_UNEQUAL,
    PK_HOLES,
    PK_HOLES_DS,
    PK_EOF, /* last: the file ends with its write */
    NPK
};

static const char *const pk_names[NPK] = {"interleaved", "segmented", "vector", "subarray3d",
                                          "flash",       "overlap",   "zero",   "unequal",
                                          "holes",       "holes_ds",  "eof"};

struct config {
    const char *tag;
    int layout;         /* striping_unit/striping_factor at open */
    long long cb;       /* cb_buffer_size, 0: default */
    int rpn;            /* resonio_ranks_per_node, 0: real nodes */
    int shm;            /* resonio_shm=enable: node-shared round buffers */
    unsigned patterns;  /* bit per pattern */
};

#define ALL_PATTERNS ((1u << NPK) - 1)
static const struct config configs[] = {
    {"A", 1, 0, 0, 0, ALL_PATTERNS},
    {"B", 1, SMALL_CB, RPN, 1, ALL_PATTERNS},
    {"C", 0, 0, 0, 0,
     1u << PK_INTERLEAVED | 1u << PK_SUBARRAY | 1u << PK_OVERLAP | 1u << PK_EOF},
};
#define NCONFIGS ((int)(sizeof configs / sizeof configs[0]))

static const char *strategy;
static int mixed; /* -calls mixed: nonblocking and split forms */

/* A collective call in the form -calls asks for: blocking, or (mixed) the
 * nonblocking form and MPI_Wait for an even pattern k, the split form for
 * an odd one.  at: explicit offset, else the individual pointer. */
static int coll_call(rio_file *fh, int k, int write, int at, MPI_Offset off, void *buf, int n,
                     MPI_Datatype t, MPI_Status *st)
{
    if (!mixed)
        return write ? (at ? rio_file_write_at_all(fh, off, buf, n, t, st)
                           : rio_file_write_all(fh, buf, n, t, st))
                     : (at ? rio_file_read_at_all(fh, off, buf, n, t, st)
                           : rio_file_read_all(fh, buf, n, t, st));
    int rc;
    if (k % 2 == 0) {
        MPI_Request req = MPI_REQUEST_NULL;
        rc = write ? (at ? rio_file_iwrite_at_all(fh, off, buf, n, t, &req)
                         : rio_file_iwrite_all(fh, buf, n, t, &req))
                   : (at ? rio_file_iread_at_all(fh, off, buf, n, t, &req)
                         : rio_file_iread_all(fh, buf, n, t, &req));
        return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, st);
    }
    rc = write ? (at ? rio_file_write_at_all_begin(fh, off, buf, n, t)
                     : rio_file_write_all_begin(fh, buf, n, t))
               : (at ? rio_file_read_at_all_begin(fh, off, buf, n, t)
                     : rio_file_read_all_begin(fh, buf, n, t));
    if (rc != MPI_SUCCESS)
        return rc;
    return write ? (at ? rio_file_write_at_all_end(fh, buf, st) : rio_file_write_all_end(fh, buf, st))
                 : (at ? rio_file_read_at_all_end(fh, buf, st) : rio_file_read_all_end(fh, buf, st));
}
static int nfactor = 4;
static int unit_bytes = 4096;
static const char *object_size; /* -object_size: resonio_object_size, NULL: none */
static int deferred;            /* -deferred 1: romio_no_indep_rw=true (deferred open) */
static long long object_bytes;  /* -object_size: resonio_object_size at create (CephFS) */
static rio_file *cur_fh;        /* the configuration's file, for its server map */
static long long nb_copied;     /* this rank's files' rio_stats nb_copied, summed */
static int mapped_calls;        /* calls whose targets were the file's servers */
static int exchange_calls; /* calls that aggregated in rounds, this configuration */
static int rounds_checked; /* of those, calls held to "several rounds" */
static char mpi_path[4096];
static int real_node_of[1024]; /* shared-memory node of each rank (lowest rank names it) */

static long long region_base(int k)
{
    return (long long)k * REGION;
}

/* ---- the patterns ----------------------------------------------------------------- */

/* interleaved */
#define IL_BS 3000
#define IL_NB 24 /* 72000 bytes a rank: several rounds of 4 aggregators at 1 rank */
/* segmented */
#define SEG_S 24001
/* vector */
#define VEC_BL 37
#define VEC_NV 160
#define VEC_MB 5 /* memory: vector of MB ints every MS ints */
#define VEC_MS 7
/* subarray3d */
#define SA_GZ 16
#define SA_GY 24
#define SA_GX 36
/* flash */
#define FL_NXB 8
#define FL_G 2
#define FL_NVAR 3
#define FL_NBL 2
#define FL_MX (FL_NXB + 2 * FL_G)
#define FL_NC (FL_NXB * FL_NXB * FL_NXB)
/* overlap */
#define OV_S 8000
#define OV_OV 3000
#define OV_C 5000
/* zero */
#define ZR_BS 2500
#define ZR_NB 8
/* unequal */
#define UN_L(q) (1000 + 1537 * (q))
#define UN_NB(q) (2 + (q) % 3)
/* holes */
#define HO_BS 1500
#define HO_PITCH 2048
#define HO_NB 12
#define HO_GAP (3 * UNIT * FACTOR)
/* eof */
#define EOF_S 7000
#define EOF_BS 3000
#define EOF_NB ((EOF_S + EOF_BS - 1) / EOF_BS + 2)

static int zero_rank(int q, int P)
{
    return P > 1 && q % 2 == 1;
}

/* Block distribution of n over p parts: part c's start and size. */
static void block(int n, int p, int c, int *start, int *size)
{
    int b = n / p, r = n % p;
    *size = b + (c < r);
    *start = c * b + (c < r ? c : r);
}

/* A resized contiguous filetype: len bytes every extent bytes. */
static MPI_Datatype tile(int len, MPI_Aint extent)
{
    MPI_Datatype c, t;
    MPI_Type_contiguous(len, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, extent, &t);
    MPI_Type_free(&c);
    MPI_Type_commit(&t);
    return t;
}

/* Interleaved blocks of bs bytes, nb of them written from the start of
 * rank q's slot, every P*bs bytes, as a tiled view; count bytes. */
static void interleaved(struct ct_access *a, int q, int P, long long B, int bs, long long count,
                        int types)
{
    for (long long s = 0, k = 0; s < count; k++) {
        long long n = rt_minll(bs, count - s);
        rt_list_add(&a->file, B + (k * P + q) * bs, n);
        s += n;
    }
    rt_list_add(&a->mem, 0, count);
    a->membytes = count;
    a->disp = B + (long long)q * bs;
    a->memcount = (int)count;
    if (types) {
        a->etype = MPI_BYTE;
        a->filetype = tile(bs, (MPI_Aint)P * bs);
        a->memtype = MPI_BYTE;
    }
}

/* The access of rank q of P for pattern k (types only when asked). */
static void build(int k, int q, int P, int types, struct ct_access *a)
{
    const long long B = region_base(k);
    ct_access_init(a);
    switch (k) {
    case PK_INTERLEAVED:
        interleaved(a, q, P, B, IL_BS, (long long)IL_NB * IL_BS, types);
        break;
    case PK_SEGMENTED:
    case PK_EOF: {
        long long S = k == PK_SEGMENTED ? SEG_S : EOF_S;
        rt_list_add(&a->file, B + q * S, S);
        rt_list_add(&a->mem, 0, S);
        a->membytes = S;
        a->disp = 0;
        a->at = 1;
        a->offset = B + q * S;
        a->memcount = (int)S;
        if (types)
            a->etype = a->filetype = a->memtype = MPI_BYTE;
        break;
    }
    case PK_VECTOR: {
        for (long long v = 0; v < VEC_NV; v++)
            rt_list_add(&a->file, B + ((v * P + q) * VEC_BL) * 4, VEC_BL * 4);
        const long long nint = (long long)VEC_NV * VEC_BL, nm = nint / VEC_MB;
        for (long long j = 0; j < nm; j++)
            rt_list_add(&a->mem, j * VEC_MS * 4, VEC_MB * 4);
        a->membytes = ((nm - 1) * VEC_MS + VEC_MB) * 4;
        a->disp = B + (long long)q * VEC_BL * 4;
        a->at = 1;
        a->offset = 0;
        a->memcount = 1;
        if (types) {
            a->etype = MPI_INT;
            MPI_Type_vector(VEC_NV, VEC_BL, VEC_BL * P, MPI_INT, &a->filetype);
            MPI_Type_commit(&a->filetype);
            MPI_Type_vector((int)nm, VEC_MB, VEC_MS, MPI_INT, &a->memtype);
            MPI_Type_commit(&a->memtype);
        }
        break;
    }
    case PK_SUBARRAY: {
        int dims[3] = {0, 0, 0}, c[3], st[3], sz[3];
        const int G[3] = {SA_GZ, SA_GY, SA_GX};
        MPI_Dims_create(P, 3, dims);
        c[0] = q / (dims[1] * dims[2]);
        c[1] = (q / dims[2]) % dims[1];
        c[2] = q % dims[2];
        for (int d = 0; d < 3; d++)
            block(G[d], dims[d], c[d], &st[d], &sz[d]);
        for (int z = 0; z < sz[0]; z++)
            for (int y = 0; y < sz[1]; y++)
                rt_list_add(&a->file,
                       B + (((long long)(st[0] + z) * SA_GY + st[1] + y) * SA_GX + st[2]) * 4,
                       (long long)sz[2] * 4);
        long long n = (long long)sz[0] * sz[1] * sz[2];
        rt_list_add(&a->mem, 0, n * 4);
        a->membytes = n * 4;
        a->disp = B;
        a->memcount = (int)n;
        if (types) {
            a->etype = MPI_INT;
            MPI_Type_create_subarray(3, G, sz, st, MPI_ORDER_C, MPI_INT, &a->filetype);
            MPI_Type_commit(&a->filetype);
            a->memtype = MPI_INT;
        }
        break;
    }
    case PK_FLASH: {
        /* memory double unk[NBL][MX][MX][MX][NVAR]; interior cells of each
         * variable in stream order v, block, z, y, x */
        const long long NBG = (long long)FL_NBL * P;
        for (int v = 0; v < FL_NVAR; v++)
            rt_list_add(&a->file, B + ((v * NBG + (long long)q * FL_NBL) * FL_NC) * 8,
                   (long long)FL_NBL * FL_NC * 8);
        for (int v = 0; v < FL_NVAR; v++)
            for (int b = 0; b < FL_NBL; b++)
                for (int z = FL_G; z < FL_G + FL_NXB; z++)
                    for (int y = FL_G; y < FL_G + FL_NXB; y++)
                        for (int x = FL_G; x < FL_G + FL_NXB; x++)
                            rt_list_add(&a->mem,
                                   ((((long long)(b * FL_MX + z) * FL_MX + y) * FL_MX + x) *
                                        FL_NVAR + v) * 8,
                                   8);
        a->membytes = (long long)FL_NBL * FL_MX * FL_MX * FL_MX * FL_NVAR * 8;
        a->disp = B;
        a->at = 1;
        a->offset = 0;
        a->memcount = 1;
        if (types) {
            int bl[FL_NVAR], dp[FL_NVAR], one[FL_NVAR];
            MPI_Aint md[FL_NVAR];
            MPI_Datatype elem, sub, subs[FL_NVAR];
            const int sizes[4] = {FL_NBL, FL_MX, FL_MX, FL_MX};
            const int subsz[4] = {FL_NBL, FL_NXB, FL_NXB, FL_NXB};
            const int starts[4] = {0, FL_G, FL_G, FL_G};
            for (int v = 0; v < FL_NVAR; v++) {
                bl[v] = FL_NBL * FL_NC;
                dp[v] = (int)((v * NBG + (long long)q * FL_NBL) * FL_NC);
                one[v] = 1;
                md[v] = (MPI_Aint)v * 8;
            }
            a->etype = MPI_DOUBLE;
            MPI_Type_indexed(FL_NVAR, bl, dp, MPI_DOUBLE, &a->filetype);
            MPI_Type_commit(&a->filetype);
            MPI_Type_create_resized(MPI_DOUBLE, 0, FL_NVAR * 8, &elem);
            MPI_Type_create_subarray(4, sizes, subsz, starts, MPI_ORDER_C, elem, &sub);
            for (int v = 0; v < FL_NVAR; v++)
                subs[v] = sub;
            MPI_Type_create_struct(FL_NVAR, one, md, subs, &a->memtype);
            MPI_Type_commit(&a->memtype);
            MPI_Type_free(&sub);
            MPI_Type_free(&elem);
        }
        break;
    }
    case PK_OVERLAP: {
        const long long off0 = (long long)q * OV_S, off1 = (long long)P * OV_S + OV_OV;
        rt_list_add(&a->file, B + off0, OV_S + OV_OV);
        rt_list_add(&a->file, B + off1, OV_C);
        rt_list_add(&a->mem, 0, OV_S + OV_OV + OV_C);
        a->membytes = OV_S + OV_OV + OV_C;
        a->disp = B;
        a->memcount = OV_S + OV_OV + OV_C;
        if (types) {
            int bl[2] = {OV_S + OV_OV, OV_C};
            MPI_Aint dp[2] = {(MPI_Aint)off0, (MPI_Aint)off1};
            a->etype = MPI_BYTE;
            MPI_Type_create_hindexed(2, bl, dp, MPI_BYTE, &a->filetype);
            MPI_Type_commit(&a->filetype);
            a->memtype = MPI_BYTE;
        }
        break;
    }
    case PK_ZERO:
        interleaved(a, q, P, B, ZR_BS, zero_rank(q, P) ? 0 : (long long)ZR_NB * ZR_BS, types);
        break;
    case PK_UNEQUAL: {
        long long pre = 0, tot = 0;
        for (int i = 0; i < P; i++) {
            if (i < q)
                pre += UN_L(i);
            tot += UN_L(i);
        }
        const long long L = UN_L(q), count = UN_NB(q) * L - 333 * (q % 2);
        for (long long s = 0, j = 0; s < count; j++) {
            long long n = rt_minll(L, count - s);
            rt_list_add(&a->file, B + j * tot + pre, n);
            s += n;
        }
        rt_list_add(&a->mem, 0, count);
        a->membytes = count;
        a->disp = B + pre;
        a->memcount = (int)count;
        if (types) {
            a->etype = MPI_BYTE;
            a->filetype = tile((int)L, (MPI_Aint)tot);
            a->memtype = MPI_BYTE;
        }
        break;
    }
    case PK_HOLES:
    case PK_HOLES_DS: {
        int bl[HO_NB];
        MPI_Aint dp[HO_NB];
        for (int j = 0; j < HO_NB; j++) {
            long long off = ((long long)j * P + q) * HO_PITCH + (j >= HO_NB / 2 ? HO_GAP : 0);
            rt_list_add(&a->file, B + off, HO_BS);
            bl[j] = HO_BS;
            dp[j] = (MPI_Aint)off;
        }
        rt_list_add(&a->mem, 0, (long long)HO_NB * HO_BS);
        a->membytes = (long long)HO_NB * HO_BS;
        a->disp = B;
        a->memcount = HO_NB * HO_BS;
        if (types) {
            a->etype = MPI_BYTE;
            MPI_Type_create_hindexed(HO_NB, bl, dp, MPI_BYTE, &a->filetype);
            MPI_Type_commit(&a->filetype);
            a->memtype = MPI_BYTE;
        }
        break;
    }
    }
}

/* End of the pre-filled background of a holes pattern (0: none). */
static long long prefill_end(int k, int P)
{
    if (k != PK_HOLES && k != PK_HOLES_DS)
        return 0;
    return region_base(k) + (long long)HO_NB * P * HO_PITCH + HO_GAP;
}

/* The read of the eof pattern: interleaved blocks of EOF_BS past the end
 * of the segments written (which end at region_base(PK_EOF) + P*EOF_S). */
static void build_eof_read(int q, int P, int types, struct ct_access *a)
{
    ct_access_init(a);
    interleaved(a, q, P, region_base(PK_EOF), EOF_BS, (long long)EOF_NB * EOF_BS, types);
    a->at = 1;
    a->offset = 0;
}

/* Bytes of the eof read before end of file. */
static long long eof_readable(const struct ct_access *a, int P)
{
    const long long E = region_base(PK_EOF) + (long long)P * EOF_S;
    long long n = 0;
    for (int i = 0; i < a->file.n; i++) {
        long long lo = a->file.p[i].off, hi = lo + a->file.p[i].len;
        if (lo >= E)
            break; /* stream order is file order here */
        n += rt_minll(hi, E) - lo;
    }
    return n;
}

/* ---- what every rank's access looks like, for the checks ---------------------------- */

struct all_model {
    int P;
    struct ct_access *acc;   /* per rank, model only */
    long long total;         /* stream bytes of all ranks */
    long long unique;        /* file bytes some rank accesses */
    int nonoverlap;          /* extents in rank order (empty ranks skipped) */
    long long *tbytes;       /* P x FACTOR bytes per target */
};

static void model_all(int k, int eof_read, struct all_model *m)
{
    const int P = rt_nprocs;
    m->P = P;
    m->acc = calloc((size_t)P, sizeof *m->acc);
    m->tbytes = calloc((size_t)P * FACTOR, sizeof *m->tbytes);
    m->total = 0;
    m->nonoverlap = 1;
    long long prev_end = -1;
    for (int q = 0; q < P; q++) {
        if (eof_read)
            build_eof_read(q, P, 0, &m->acc[q]);
        else
            build(k, q, P, 0, &m->acc[q]);
        m->total += m->acc[q].file.total;
        ct_target_bytes(&m->acc[q].file, UNIT, FACTOR, &m->tbytes[(size_t)q * FACTOR]);
        long long f, e;
        ct_extent(&m->acc[q].file, &f, &e);
        if (f < e) {
            if (f < prev_end)
                m->nonoverlap = 0;
            prev_end = e;
        }
    }
    m->unique = ct_union_bytes(m->acc, P);
}

static void model_free(struct all_model *m)
{
    for (int q = 0; q < m->P; q++)
        ct_access_free(&m->acc[q]);
    free(m->acc);
    free(m->tbytes);
}

/* ---- checks of rio_coll_last ------------------------------------------------------------ */

static int is_exchange_strategy(const char *s)
{
    return !strcmp(s, "two_phase") || !strcmp(s, "every_rank") || !strcmp(s, "node_first") ||
           !strcmp(s, "stripe") || !strcmp(s, "target_first");
}

/* Where storage maps objects to servers (CephFS through cephfs:), the
 * engine's targets are those servers, and the model's bytes per target
 * follow the file's map (rio_file_get_servers; t_ceph_servers checks it
 * against Ceph itself) object by object into tb (P x in->ntargets).
 * 0: the map misses an object of the call, or names a server that is not
 * a target. */
static int server_tbytes(const struct all_model *m, const struct rio_coll_info *in,
                         long long *tb)
{
    MPI_Info info;
    char v[64];
    int flag = 0;
    long long os = 0;
    if (RT_OK(rio_file_get_info(cur_fh, &info))) {
        MPI_Info_get(info, "resonio_object_size", sizeof v - 1, v, &flag);
        os = flag ? atoll(v) : 0;
        MPI_Info_free(&info);
    }
    if (os <= 0 || os % UNIT)
        return 0;
    long long spo = os / UNIT;
    for (int q = 0; q < m->P; q++) {
        const struct rt_list *l = &m->acc[q].file;
        for (int i = 0; i < l->n; i++)
            for (long long off = l->p[i].off, end = off + l->p[i].len; off < end;) {
                long long s = off / UNIT, n = rt_minll(end - off, UNIT - off % UNIT);
                long long obj = s / FACTOR / spo * FACTOR + s % FACTOR;
                int srv = -1, t = 0;
                if (!RT_OK(rio_file_get_servers(cur_fh, obj, 1, &srv)))
                    return 0;
                while (t < in->ntargets && in->target_server[t] != srv)
                    t++;
                if (t == in->ntargets)
                    return 0;
                tb[(size_t)q * (size_t)in->ntargets + (size_t)t] += n;
                off += n;
            }
    }
    return 1;
}

/* Node of rank i in configuration cf. */
static int node_of(const struct config *cf, int i)
{
    return cf->rpn > 0 ? i / cf->rpn : real_node_of[i];
}

static void check_info(const struct config *cf, int k, int write, const struct all_model *m,
                       const struct rio_coll_info *in, const char *what)
{
    const int P = rt_nprocs, mapped = cf->layout && in->target_server[0] >= 0;
    const int T = mapped ? in->ntargets : cf->layout ? FACTOR : 1;
    const long long *tbytes = m->tbytes;
    char ab[1024], tb[1024];
    if (rt_rank != 0)
        return;
    const char *pn = pk_names[k], *op = write ? "write" : "read";
#define ICHECK(cond, ...)                                                                  \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            char msg_[512];                                                                \
            snprintf(msg_, sizeof msg_, __VA_ARGS__);                                      \
            CHECK(0, "[%s cfg %s %s %s%s] %s; info: strategy=%s naggs=%d aggs={%s} rounds=%d " \
                  "exchanged=%lld reqs=%lld targets={%s} reason=\"%s\"",                   \
                  strategy, cf->tag, pn, op, what, msg_, in->strategy, in->naggs,          \
                  ct_aggs_str(in, ab, sizeof ab), in->rounds, in->exchanged,               \
                  in->storage_reqs, ct_targets_str(in, tb, sizeof tb), in->reason);        \
        }                                                                                  \
    } while (0)

    /* the strategy that ran */
    const char *eff = NULL;
    if (!strcmp(strategy, "auto")) {
        /* reported once per run: every call of the run would repeat it */
        static int reported;
        if (!reported)
            ICHECK(ct_is_strategy(in->strategy),
                   "auto: info.strategy must name the strategy that ran (one of the eight); "
                   "later calls are not held to it again");
        reported |= !ct_is_strategy(in->strategy);
        if (ct_is_strategy(in->strategy))
            eff = in->strategy;
    } else if (ct_needs_layout(strategy) && !cf->layout) {
        ICHECK(!strcmp(in->strategy, "two_phase") && strstr(in->reason, "layout"),
               "%s without a layout must fall back to two_phase and say the layout is missing",
               strategy);
        eff = "two_phase";
    } else {
        ICHECK(!strcmp(in->strategy, strategy), "ran %s, forced %s", in->strategy, strategy);
        eff = strategy;
    }
    ICHECK(in->reason[0] != '\0', "empty reason");
    ICHECK(in->nprocs == P, "nprocs %d, expected %d", in->nprocs, P);
    ICHECK(in->bytes == m->total, "bytes %lld, expected %lld (sum of the ranks' requests)",
           in->bytes, m->total);
    ICHECK(in->ntargets == T, "ntargets %d, expected %d", in->ntargets, T);
    ICHECK(in->naggs >= 0 && in->naggs <= RIO_COLL_MAX_AGGS, "naggs %d", in->naggs);
    for (int a = 0; a < in->naggs && a < RIO_COLL_MAX_AGGS; a++)
        ICHECK(in->aggs[a] >= 0 && in->aggs[a] < P, "aggregator %d is rank %d", a, in->aggs[a]);
    long long sumt = 0;
    for (int t = 0; t < RIO_COLL_MAX_TARGETS; t++) {
        sumt += in->target_reqs[t];
        ICHECK(t < T || in->target_reqs[t] == 0, "requests on target %d of %d", t, T);
        ICHECK(in->target_ascending[t] >= 0 && in->target_ascending[t] <= in->target_reqs[t],
               "target %d: %lld ascending of %lld", t, in->target_ascending[t],
               in->target_reqs[t]);
    }
    if (m->total > 0)
        ICHECK(in->storage_reqs > 0 && sumt > 0, "data moved without storage requests");
    else
        ICHECK(in->storage_reqs == 0 && in->exchanged == 0,
               "a call without data made %lld storage requests and exchanged %lld bytes",
               in->storage_reqs, in->exchanged);
    if (!eff || m->total == 0)
        return;
    long long *stb = NULL;
    if (mapped) { /* targets are the map's servers */
        ICHECK(T >= 1 && T <= FACTOR, "%d servers for %d objects a set", T, FACTOR);
        stb = calloc((size_t)P * (size_t)(T > 0 ? T : 1), sizeof *stb);
        int ok = T >= 1 && stb && server_tbytes(m, in, stb);
        ICHECK(ok, "the file's object map does not cover the call, or names a server that is "
                   "not a target");
        if (!ok) {
            free(stb);
            return;
        }
        tbytes = stb;
        mapped_calls++;
    }

    /* what the strategy promises */
    const long long cb = cf->cb;
    int exchange = is_exchange_strategy(eff);
    if (!strcmp(eff, "direct") || !strcmp(eff, "independent")) {
        ICHECK(in->naggs == 0 && in->exchanged == 0,
               "%s: no aggregators and no data exchange expected", eff);
    } else if (!strcmp(eff, "two_phase")) {
        /* ROMIO: one aggregator per node by default, the node's lowest rank */
        int want[1024], n = 0;
        for (int i = 0; i < P; i++) {
            int first = 1;
            for (int j = 0; j < i; j++)
                if (node_of(cf, j) == node_of(cf, i))
                    first = 0;
            if (first)
                want[n++] = i;
        }
        int same = in->naggs == n;
        for (int a = 0; same && a < n; a++)
            same = in->aggs[a] == want[a];
        ICHECK(same, "two_phase: aggregators must be the lowest rank of each of the %d node(s)",
               n);
    } else if (!strcmp(eff, "every_rank")) {
        int same = in->naggs == P;
        for (int a = 0; same && a < P; a++)
            same = in->aggs[a] == a;
        ICHECK(same, "every_rank: %d aggregators, expected ranks 0..%d in order", in->naggs,
               P - 1);
    } else if (!strcmp(eff, "node_first")) {
        /* one per node: its rank with the most data, lowest rank on ties */
        int nn = 0;
        for (int i = 0; i < P; i++)
            nn = node_of(cf, i) + 1 > nn ? node_of(cf, i) + 1 : nn;
        ICHECK(in->naggs == nn, "node_first: %d aggregators for %d nodes", in->naggs, nn);
        for (int a = 0; a < in->naggs && a < nn; a++) {
            int best = -1;
            for (int i = 0; i < P; i++)
                if (node_of(cf, i) == a &&
                    (best < 0 || m->acc[i].file.total > m->acc[best].file.total))
                    best = i;
            ICHECK(in->aggs[a] == best,
                   "node_first: aggregator of node %d is rank %d, expected %d (most data)", a,
                   in->aggs[a], best);
        }
    } else if (!strcmp(eff, "resonant")) {
        /* a non-overlapping write goes without exchange unless most ranks
         * touch most of several targets (resonant.c) */
        long long spans = 0;
        for (int i = 0; i < P * T; i++)
            spans += tbytes[i] > 0;
        if (write && m->nonoverlap && (P < 2 || T < 2 || 2 * spans <= (long long)P * T)) {
            ICHECK(in->exchanged == 0, "resonant: a non-overlapping call exchanges no data");
        } else {
            int na = ct_resonant_nagents(P, T);
            int *ag = malloc(sizeof *ag * (size_t)na);
            ct_resonant_agents(tbytes, P, T, ag);
            int same = in->naggs == na;
            for (int a = 0; same && a < na && a < RIO_COLL_MAX_AGGS; a++)
                same = in->aggs[a] == ag[a];
            ICHECK(same, "resonant: agents by the rule (most bytes on the target, not yet an "
                         "agent, lowest rank on ties) are %d %d %d %d",
                   ag[0], na > 1 ? ag[1] : -1, na > 2 ? ag[2] : -1, na > 3 ? ag[3] : -1);
            free(ag);
            if (!write)
                ICHECK(in->exchanged == 0, "resonant: reads exchange no data");
            else
                exchange = 1;
        }
    } else if (!strcmp(eff, "sized") && write) {
        /* one aggregator per resonio_bytes_per_agg (32 MiB) of the call,
         * and on a call in rank order at least one per
         * resonio_ranks_per_agg (8) ranks, at most one a rank: the k-th
         * rank of each node in turn, in rank order (sized.c) */
        long long n = m->total > 0 ? (m->total - 1) / (32LL << 20) + 1 : 1;
        if (m->nonoverlap && n < (P + 7) / 8)
            n = (P + 7) / 8;
        if (n > P)
            n = P;
        int nn = 0;
        for (int i = 0; i < P; i++)
            nn = node_of(cf, i) + 1 > nn ? node_of(cf, i) + 1 : nn;
        int want[1024], got = 0;
        for (int k2 = 0, took = 1; took && got < n; k2++) {
            took = 0;
            for (int node = 0; node < nn && got < n; node++)
                for (int i = 0, seen = 0; i < P; i++)
                    if (node_of(cf, i) == node && seen++ == k2) {
                        want[got++] = i;
                        took = 1;
                        break;
                    }
        }
        for (int a = 1; a < got; a++) /* in rank order */
            for (int b = a; b > 0 && want[b - 1] > want[b]; b--) {
                int t = want[b];
                want[b] = want[b - 1];
                want[b - 1] = t;
            }
        int same = in->naggs == got;
        for (int a = 0; same && a < got; a++)
            same = in->aggs[a] == want[a];
        ICHECK(same, "sized: %d aggregators (first %d), expected %d (first %d) for %lld bytes "
                     "%s",
               in->naggs, in->naggs > 0 ? in->aggs[0] : -1, got, got > 0 ? want[0] : -1,
               m->total, m->nonoverlap ? "in rank order" : "interleaved");
    } else if (!strcmp(eff, "stripe") || !strcmp(eff, "target_first")) {
        ICHECK(in->naggs == T, "%s: %d aggregators, expected one per target (%d)", eff,
               in->naggs, T);
        if (P >= T)
            for (int a = 0; a < in->naggs; a++)
                for (int b = 0; b < a; b++)
                    ICHECK(in->aggs[a] != in->aggs[b], "%s: rank %d aggregates twice", eff,
                           in->aggs[a]);
    }
    if (exchange) {
        exchange_calls++;
        ICHECK(in->naggs > 0 && in->rounds >= 1, "%s: no aggregators or no rounds", eff);
        /* some aggregator holds at least unique/naggs bytes of coordinates */
        /* the stripe-aware strategies' rounds hold a stripe at least */
        long long per = ct_needs_layout(eff) && UNIT > cb ? UNIT : cb;
        if (cb && in->naggs > 0 && m->unique > (long long)in->naggs * per) {
            rounds_checked++;
            ICHECK(in->rounds > 1,
                   "%s: %lld file bytes over %d aggregators with cb_buffer_size %lld need "
                   "several rounds",
                   eff, m->unique, in->naggs, cb);
        }
    }
    /* requests reach each target in ascending order (resonant, target_first,
     * stripe).  stripe's read-modify-write (holes_ds: ds_in_coll=enable)
     * writes each span right after reading it at the same offset, which the
     * counter does not count as ascending, so that case is not held to it. */
    if (write && cf->layout && !(k == PK_HOLES_DS && !strcmp(eff, "stripe")) &&
        (!strcmp(eff, "resonant") || !strcmp(eff, "target_first") || !strcmp(eff, "stripe"))) {
        int t = ct_first_unordered_target(in);
        ICHECK(t < 0, "%s: target %d saw requests out of ascending order", eff, t);
    }
    free(stb);
#undef ICHECK
}

/* ---- one configuration ------------------------------------------------------------------ */

struct saved {
    struct ct_access acc;   /* what was read */
    unsigned char *buf;
    long long nread;
};

static void prefill(const char *path, int k, int through_rio)
{
    long long end = prefill_end(k, rt_nprocs), B = region_base(k);
    if (!end)
        return;
    unsigned char *b = NULL;
    if (rt_rank == 0) {
        b = malloc((size_t)(end - B));
        for (long long o = B; o < end; o++)
            b[o - B] = pat(BG_RANK, o);
    }
    if (through_rio) {
        ct_fill_rio(path, b, (size_t)(end - B), B, 0);
    } else {
        if (rt_rank == 0)
            CHECK(rt_pwrite_file(path, b, (size_t)(end - B), B, 0) == 0, "pre-filling %s: %s",
                  path, strerror(errno));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(b);
}

static MPI_Info view_info(int k)
{
    return rt_info("ds_in_coll", k == PK_HOLES_DS ? "enable" : NULL, NULL);
}

/* Write pattern k through rio, read it back; the read is kept in sv. */
static void run_pattern(const struct config *cf, rio_file *fh, int k, struct saved *sv)
{
    const char *pn = pk_names[k];
    struct ct_access a;
    struct all_model m;
    struct rio_coll_info in;
    MPI_Status st;
    int cnt;

    build(k, rt_rank, rt_nprocs, 1, &a);
    model_all(k, 0, &m);
    MPI_Info vi = view_info(k);
    if (!RT_OK(rio_file_set_view(fh, a.disp, a.etype, a.filetype, "native", vi)))
        CHECK(0, "[%s cfg %s %s] set_view failed", strategy, cf->tag, pn);
    unsigned char *wb = ct_write_buf(&a, rt_rank);
    int rc = coll_call(fh, k, 1, a.at, a.offset, wb, a.memcount, a.memtype, &st);
    if (RT_OK(rc)) {
        cnt = -1;
        MPI_Get_count(&st, a.memtype, &cnt);
        CHECK(cnt == a.memcount, "[%s cfg %s %s] write: count %d, expected %d", strategy,
              cf->tag, pn, cnt, a.memcount);
    } else {
        CHECK(0, "[%s cfg %s %s] write failed", strategy, cf->tag, pn);
    }
    if (ct_last(fh, &in))
        check_info(cf, k, 1, &m, &in, "");
    free(wb);

    if (k == PK_ZERO) {
        /* every rank moves nothing */
        struct all_model none = {0};
        none.P = rt_nprocs;
        char dummy = 0;
        rc = coll_call(fh, k, 1, 1, 0, &dummy, 0, MPI_BYTE, &st);
        CHECK(rc == MPI_SUCCESS, "[%s cfg %s zero] a write where every rank has 0 bytes failed",
              strategy, cf->tag);
        if (ct_last(fh, &in))
            check_info(cf, k, 1, &none, &in, " (all ranks 0 bytes)");
    }

    /* read back (the eof pattern reads past the end instead) */
    if (k == PK_EOF) {
        ct_access_free(&a);
        model_free(&m);
        build_eof_read(rt_rank, rt_nprocs, 1, &a);
        model_all(k, 1, &m);
        if (!RT_OK(rio_file_set_view(fh, a.disp, a.etype, a.filetype, "native", vi)))
            CHECK(0, "[%s cfg %s eof] set_view for the read failed", strategy, cf->tag);
    }
    unsigned char *rb = malloc((size_t)(a.membytes ? a.membytes : 1));
    memset(rb, CT_SENTINEL, (size_t)(a.membytes ? a.membytes : 1));
    long long expect = k == PK_EOF ? eof_readable(&a, rt_nprocs) : a.file.total;
    rc = coll_call(fh, k, 0, 1, a.offset, rb, a.memcount, a.memtype, &st);
    sv->nread = 0;
    if (RT_OK(rc)) {
        cnt = -1;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        CHECK(cnt == expect, "[%s cfg %s %s] read: %d bytes, expected %lld%s", strategy, cf->tag,
              pn, cnt, expect, k == PK_EOF ? " (the bytes before end of file)" : "");
        sv->nread = cnt < 0 ? 0 : rt_minll(cnt, expect);
    } else {
        CHECK(0, "[%s cfg %s %s] read failed", strategy, cf->tag, pn);
    }
    if (ct_last(fh, &in))
        check_info(cf, k, 0, &m, &in, k == PK_EOF ? " past end of file" : "");
    MPI_Info_free(&vi);
    model_free(&m);
    sv->acc = a;
    sv->buf = rb;
}

/* Rank 0: the file against the model and the MPI library's file. */
static void compare_files(const struct config *cf, const unsigned char *fr, long long lr,
                          const unsigned char *fm, long long lm)
{
    const int P = rt_nprocs;
    const long long E = region_base(PK_EOF) + (long long)P * EOF_S;
    CHECK(lr == E, "[%s cfg %s] resonio's file is %lld bytes, expected %lld (its last byte "
                   "written)",
          strategy, cf->tag, lr, E);
    CHECK(lm >= E, "[%s cfg %s] the MPI library's file is %lld bytes, shorter than %lld",
          strategy, cf->tag, lm, E);
    uint64_t *who = malloc(sizeof *who * REGION);
    for (int k = 0; k < NPK; k++) {
        if (!(cf->patterns >> k & 1))
            continue;
        const long long B = region_base(k), pend = prefill_end(k, P);
        memset(who, 0, sizeof *who * REGION);
        for (int q = 0; q < P; q++) {
            struct ct_access a;
            build(k, q, P, 0, &a);
            ct_mark(who, B, REGION, &a.file, q);
            ct_access_free(&a);
        }
        long long bad_r = 0, bad_m = 0, bad_h = 0, bad_x = 0, fr0 = -1, fm0 = -1, fh0 = -1,
                  fx0 = -1;
        for (long long o = B; o < B + REGION; o++) {
            uint64_t w = who[o - B];
            int r = o < lr ? fr[o] : -1, x = o < lm ? fm[o] : -1;
            if (!w) {
                if (o < pend && r != pat(BG_RANK, o) && !bad_h++)
                    fh0 = o;
                continue;
            }
            if (ct_popcount(w) == 1) {
                int q = ct_lowest(w);
                if (r != pat(q, o) && !bad_r++)
                    fr0 = o;
                if (x != pat(q, o) && !bad_m++)
                    fm0 = o;
                if (r != x && !bad_x++)
                    fx0 = o;
            } else {
                if ((r < 0 || !ct_one_of((unsigned char)r, o, w)) && !bad_r++)
                    fr0 = o;
                if ((x < 0 || !ct_one_of((unsigned char)x, o, w)) && !bad_m++)
                    fm0 = o;
            }
        }
        if (bad_r)
            CHECK(0, "[%s cfg %s %s] resonio's file: byte %lld (writers 0x%llx) is 0x%02x, not "
                     "a writer's value; %lld bytes wrong",
                  strategy, cf->tag, pk_names[k], fr0, (unsigned long long)who[fr0 - B],
                  fr0 < lr ? fr[fr0] : 0, bad_r);
        if (bad_x)
            CHECK(0, "[%s cfg %s %s] resonio's file differs from the MPI library's at byte %lld "
                     "(0x%02x vs 0x%02x); %lld single-writer bytes differ",
                  strategy, cf->tag, pk_names[k], fx0, fx0 < lr ? fr[fx0] : 0,
                  fx0 < lm ? fm[fx0] : 0, bad_x);
        if (bad_m)
            CHECK(0, "[%s cfg %s %s] the MPI library's file: byte %lld (writers 0x%llx) is "
                     "0x%02x, not a writer's value; %lld bytes wrong",
                  strategy, cf->tag, pk_names[k], fm0, (unsigned long long)who[fm0 - B],
                  fm0 < lm ? fm[fm0] : 0, bad_m);
        if (bad_h)
            CHECK(0, "[%s cfg %s %s] resonio's file: hole byte %lld lost its background (0x%02x, "
                     "was 0x%02x); %lld hole bytes changed",
                  strategy, cf->tag, pk_names[k], fh0, fh0 < lr ? fr[fh0] : 0,
                  pat(BG_RANK, fh0), bad_h);
    }
    free(who);
}

static void run_config(const struct config *cf)
{
    char path[4200], suffix[64];
    struct saved sv[NPK];
    rio_file *fh = RIO_FILE_NULL;
    char cbs[32], rpn[16], unit[16], factor[16];

    memset(sv, 0, sizeof sv);
    snprintf(suffix, sizeof suffix, "%s.rio", cf->tag);
    rt_path(path, sizeof path, suffix);
    ct_unlink_rio(path);
    snprintf(cbs, sizeof cbs, "%lld", cf->cb);
    snprintf(rpn, sizeof rpn, "%d", cf->rpn);
    snprintf(unit, sizeof unit, "%d", UNIT);
    snprintf(factor, sizeof factor, "%d", FACTOR);
    MPI_Info info = rt_info("resonio_strategy", strategy, "striping_unit", cf->layout ? unit : NULL,
                            "striping_factor", cf->layout ? factor : NULL, "cb_buffer_size",
                            cf->cb ? cbs : NULL, "resonio_ranks_per_node", cf->rpn ? rpn : NULL,
                            "resonio_shm", cf->shm ? "enable" : NULL, "romio_no_indep_rw",
                            deferred ? "true" : NULL, "resonio_object_size",
                            cf->layout ? object_size : NULL, "resonio_nb_copy",
                            rt_arg("-nb_copy"), NULL);
    char name[4300];
    ct_rio_name(name, sizeof name, path);
    char osz[32];
    snprintf(osz, sizeof osz, "%lld", object_bytes);
    if (object_bytes > 0 && cf->layout)
        MPI_Info_set(info, "resonio_object_size", osz);
    int rc = rio_file_open(MPI_COMM_WORLD, name, MPI_MODE_RDWR | MPI_MODE_CREATE, info, &fh);
    MPI_Info_free(&info);
    if (!RT_OK(rc))
        return;
    cur_fh = fh;
    exchange_calls = rounds_checked = 0;
    for (int k = 0; k < NPK; k++) {
        if (!(cf->patterns >> k & 1))
            continue;
        prefill(path, k, 1);
        run_pattern(cf, fh, k, &sv[k]);
    }
    /* with the small buffer, some call that aggregated in rounds must have
     * been big enough to need several (interleaved alone is, for up to 4
     * aggregators at any rank count); with stripes larger than the buffer
     * (-unit) the stripe-aware strategies hold a stripe a round, and no
     * pattern is that big */
    CHECK(rt_rank != 0 || !cf->cb || exchange_calls == 0 || rounds_checked > 0 ||
              UNIT > cf->cb,
          "[%s cfg %s] no call was big enough to need several rounds: the test did not check "
          "cb_buffer_size",
          strategy, cf->tag);
    struct rio_stats st = {.size = sizeof st};
    if (RT_OK(rio_stats_get(fh, &st)))
        nb_copied += st.nb_copied;
    RT_OK(rio_file_close(&fh));
    MPI_Barrier(MPI_COMM_WORLD);

    /* what each rank read is what the file holds */
    long long lr = 0, lm = 0;
    int mapped = 0;
    unsigned char *fr = ct_map(path, &lr, &mapped);
    for (int k = 0; k < NPK; k++) {
        if (!(cf->patterns >> k & 1))
            continue;
        if (fr)
            CT_CHECK_READ(&sv[k].acc, sv[k].buf, sv[k].nread, fr, lr, "[%s cfg %s %s] read back",
                          strategy, cf->tag, pk_names[k]);
        ct_access_free(&sv[k].acc);
        free(sv[k].buf);
    }
    if (rt_rank == 0 && fr) {
        unsigned char *fm = RT_SLURP(mpi_path, &lm);
        if (fm)
            compare_files(cf, fr, lr, fm, lm);
        free(fm);
    }
    ct_unmap(fr, lr, mapped);
    MPI_Barrier(MPI_COMM_WORLD);
    ct_unlink_rio(path);
}

/* The MPI library's own MPI-IO writes every pattern the same way. */
static void write_mpi_file(void)
{
    MPI_File f;
    MPI_Status st;
    ct_unlink_all(mpi_path);
    if (!RT_OK(MPI_File_open(MPI_COMM_WORLD, mpi_path, MPI_MODE_RDWR | MPI_MODE_CREATE,
                             MPI_INFO_NULL, &f)))
        return;
    MPI_File_set_errhandler(f, MPI_ERRORS_RETURN);
    for (int k = 0; k < NPK; k++) {
        struct ct_access a;
        prefill(mpi_path, k, 0);
        build(k, rt_rank, rt_nprocs, 1, &a);
        unsigned char *wb = ct_write_buf(&a, rt_rank);
        if (RT_OK(MPI_File_set_view(f, a.disp, a.etype, a.filetype, "native", MPI_INFO_NULL))) {
            int rc = a.at ? MPI_File_write_at_all(f, a.offset, wb, a.memcount, a.memtype, &st)
                          : MPI_File_write_all(f, wb, a.memcount, a.memtype, &st);
            if (!RT_OK(rc))
                CHECK(0, "the MPI library's write of %s failed", pk_names[k]);
        }
        free(wb);
        ct_access_free(&a);
    }
    RT_OK(MPI_File_close(&f));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Every configuration under strategy, and the run's own checks. */
static void run_strategy(void)
{
    alarm(240);
    nb_copied = 0;
    mapped_calls = 0;
    if (rt_rank == 0 && rt_arg("-strategies"))
        printf("strategy %s\n", strategy);
    /* storage that gives every file a layout of its own (emu, CephFS with
     * -storage_layout) has no layout-less configuration C */
    int storage_layout = ct_emu || rt_arg("-storage_layout") != NULL;
    const char *only = rt_arg("-config"); /* one configuration (many ranks: time) */
    const char *layout = rt_arg("-layout");
    for (int c = 0; c < NCONFIGS; c++) {
        struct config cf = configs[c];
        if (layout && !strcmp(layout, "0"))
            cf.layout = 0;
        if ((!storage_layout || cf.layout) && (!only || !strcmp(only, cf.tag)))
            run_config(&cf);
    }
    alarm(0);
    long long copied = 0;
    MPI_Allreduce(&nb_copied, &copied, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rt_rank == 0)
        printf("%lld bytes copied to write in the background\n", copied);
    CHECK(!rt_arg("-copied") || copied > 0,
          "%s: -copied: no nonblocking collective write copied its bytes", strategy);
    if (rt_rank == 0 && object_bytes > 0) {
        /* cephfs: maps objects to OSDs: the strategies that plan by target
         * must have planned over them */
        printf("%d calls planned over the file's servers\n", mapped_calls);
        CHECK(mapped_calls > 0 || !ct_needs_layout(strategy),
              "%s: no call planned over the OSDs of the file's objects", strategy);
    }
}

int main(int argc, char **argv)
{
    rt_init(&argc, &argv);
    signal(SIGALRM, ct_watchdog);
    alarm(240);
    strategy = ct_strategy_arg();
    deferred = rt_arg("-deferred") != NULL;
    mixed = rt_arg("-calls") && !strcmp(rt_arg("-calls"), "mixed");
    object_size = rt_arg("-object_size");
    if (rt_arg("-unit")) { /* a stripe unit the storage takes (CephFS: 64 KiB up) */
        unit_bytes = atoi(rt_arg("-unit"));
        CHECK(unit_bytes >= 512 && 3 * UNIT * nfactor < REGION, "-unit %d: 512 up, and 3 "
              "stripes per target inside a %lld-byte region", unit_bytes, REGION);
        if (unit_bytes < 512 || 3 * UNIT * nfactor >= REGION)
            return rt_finish();
    }
    if (rt_arg("-factor")) { /* many targets: the call summary outgrows its stack rows */
        nfactor = atoi(rt_arg("-factor"));
        /* the holes pattern's gap (3 stripes per target) stays inside its
         * region, and rio_coll_info counts requests of that many targets */
        CHECK(nfactor >= 1 && 3 * UNIT * nfactor < REGION && nfactor <= RIO_COLL_MAX_TARGETS,
              "-factor %d: 1 to %d", nfactor, RIO_COLL_MAX_TARGETS);
        if (nfactor < 1 || 3 * UNIT * nfactor >= REGION || nfactor > RIO_COLL_MAX_TARGETS)
            return rt_finish();
    }
    if (rt_arg("-object_size")) /* objects of a few stripes: the file spans many sets */
        object_bytes = atoll(rt_arg("-object_size"));
    int targets = 0;
    if (ct_emu_arg(&targets) || ct_cephfs_arg() || ct_rados_arg())
        return rt_finish();
    ct_wrap = rt_arg("-wrap");
    if (ct_emu)
        nfactor = targets < 4 ? targets : 4;
    if (rt_nprocs > 64 || rt_nprocs > (int)(sizeof real_node_of / sizeof real_node_of[0])) {
        CHECK(0, "at most 64 ranks (writer sets are 64-bit masks)");
        return rt_finish();
    }
    if (rt_nprocs > 8) { /* interleaved: 64 KiB a rank; unequal: 4 periods of every
                            rank's block, which grow with the rank */
        long long period = 0, mib = 1024 * 1024;
        for (int i = 0; i < rt_nprocs; i++)
            period += UN_L(i);
        long long a = (long long)(rt_nprocs + 7) / 8 * mib, b = (5 * period + mib - 1) / mib * mib;
        region_bytes = a > b ? a : b;
    }
    rt_nodes(real_node_of); /* real nodes as the MPI library sees them */
    rt_path(mpi_path, sizeof mpi_path, "mpi");
    write_mpi_file();
    /* -strategies a,b,...: each in turn in one run (at 64 ranks the
     * launch costs as much as a strategy's matrix) */
    const char *list = rt_arg("-strategies");
    if (!list) {
        run_strategy();
    } else {
        char *names = strdup(list); /* whole: a cut list would drop names unseen */
        CHECK(names != NULL, "out of memory for -strategies");
        for (char *save = NULL, *s = names ? strtok_r(names, ",", &save) : NULL; s;
             s = strtok_r(NULL, ",", &save)) {
            if (strcmp(s, "auto") && !ct_is_strategy(s)) {
                CHECK(0, "unknown strategy %s in -strategies", s);
                continue;
            }
            strategy = s;
            run_strategy();
        }
        strategy = "auto"; /* names is freed: nothing may point into it */
        free(names);
    }
    if (rt_rank == 0)
        unlink(mpi_path);
    return rt_finish();
}
