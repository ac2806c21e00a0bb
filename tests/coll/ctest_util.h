/*
 * ctest_util.h — what the collective engine's tests share beyond rtest.h.
 *
 * The tests model every access themselves, without decoding MPI types: a
 * rank's access is a list of file pieces (absolute offsets, in data-stream
 * order) and a list of memory pieces (offsets into its buffer, in stream
 * order).  Stream byte s lives at file offset F(s) and memory offset M(s);
 * a writer puts pat(rank, F(s)) there, so every byte of the file says who
 * wrote it.  From the models of all ranks follow the writers of each file
 * byte, the bytes per stripe target, and the rules the strategies promise
 * (resonant's agents, ascending requests per target) — the expectations
 * are computed from the pattern and the rule, never typed in.
 *
 * Everything is static inline; each program includes this header once.
 */
#ifndef CTEST_UTIL_H
#define CTEST_UTIL_H

#include "resonio.h"
#include "../mpi/rtest.h"
#include "../emu/emu_test.h"
#ifdef CT_RADOS
#include "rados_test.h" /* tests/ceph: the objects read with librados */
#endif

#include <stdint.h>
#include <sys/mman.h>

#define CT_SENTINEL 0xA5

/* ---- strategies ------------------------------------------------------------- */

/** Whether s names a strategy (a resonio_strategy value other than auto),
 *  as the library enumerates them. */
static inline int ct_is_strategy(const char *s)
{
    for (int i = 0; i < rio_strategy_count(); i++)
        if (!strcmp(s, rio_strategy_name(i)))
            return 1;
    return 0;
}

/** The stripe-aware strategies, which fall back to two_phase on a file
 *  without a layout (issue: one agent / aggregator per target). */
static inline int ct_needs_layout(const char *s)
{
    return !strcmp(s, "resonant") || !strcmp(s, "stripe") || !strcmp(s, "target_first");
}

/** The value of -strategy (default "auto"); an unknown name is an error. */
static inline const char *ct_strategy_arg(void)
{
    const char *s = rt_arg("-strategy");
    if (!s)
        return "auto";
    if (strcmp(s, "auto") && !ct_is_strategy(s)) {
        CHECK(0, "unknown -strategy %s", s);
        return "auto";
    }
    return s;
}

/* piece lists: rt_list in rtest.h */

/** The list as one offset per stream byte (malloc'ed, l->total entries). */
static inline long long *ct_expand(const struct rt_list *l)
{
    long long *v = malloc(sizeof *v * (size_t)(l->total ? l->total : 1)), s = 0;
    if (!v) {
        fprintf(stderr, "ctest: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int i = 0; i < l->n; i++)
        for (long long k = 0; k < l->p[i].len; k++)
            v[s++] = l->p[i].off + k;
    return v;
}

/** [first, end) of the list's file offsets; first == end when empty. */
static inline void ct_extent(const struct rt_list *l, long long *first, long long *end)
{
    *first = *end = 0;
    for (int i = 0; i < l->n; i++) {
        if (i == 0 || l->p[i].off < *first)
            *first = l->p[i].off;
        if (i == 0 || l->p[i].off + l->p[i].len > *end)
            *end = l->p[i].off + l->p[i].len;
    }
}

/* ---- one rank's access ---------------------------------------------------------- */

/** What one rank's call covers (the model) and, for the calling rank, the
 *  MPI types that describe it. */
struct ct_access {
    struct rt_list file;      /* absolute file offsets, stream order */
    struct rt_list mem;       /* offsets in the memory buffer, stream order */
    long long membytes;       /* size of the memory buffer */
    MPI_Offset disp;
    MPI_Datatype etype, filetype, memtype; /* MPI_DATATYPE_NULL: not built */
    int memcount;
    int at;                   /* 1: explicit offset (at_all), 0: individual pointer */
    MPI_Offset offset;        /* for at, in etypes */
};

static inline void ct_access_init(struct ct_access *a)
{
    memset(a, 0, sizeof *a);
    a->etype = a->filetype = a->memtype = MPI_DATATYPE_NULL;
}

static inline int ct_piece_cmp(const void *a, const void *b)
{
    const struct rt_piece *x = a, *y = b;
    return x->off < y->off ? -1 : x->off > y->off;
}

/** File bytes covered by at least one of the n accesses (each one's file
 *  pieces in any order; overlaps within and between them count once). */
static inline long long ct_union_bytes(const struct ct_access *acc, int n)
{
    size_t cnt = 0, k = 0;
    for (int q = 0; q < n; q++)
        cnt += (size_t)acc[q].file.n;
    if (!cnt)
        return 0;
    struct rt_piece *all = malloc(sizeof *all * cnt);
    if (!all) {
        fprintf(stderr, "ctest: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int q = 0; q < n; q++)
        for (int i = 0; i < acc[q].file.n; i++)
            all[k++] = acc[q].file.p[i];
    qsort(all, cnt, sizeof *all, ct_piece_cmp);
    long long sum = 0, lo = all[0].off, hi = all[0].off;
    for (size_t i = 0; i < cnt; i++) {
        if (all[i].off > hi) { /* a gap: the run [lo, hi) ends */
            sum += hi - lo;
            lo = all[i].off;
            hi = lo;
        }
        if (all[i].off + all[i].len > hi)
            hi = all[i].off + all[i].len;
    }
    free(all);
    return sum + hi - lo;
}

/** Free a derived datatype; named ones and MPI_DATATYPE_NULL are left. */
static inline void ct_type_free(MPI_Datatype *t)
{
    int ni, na, nd, comb;
    if (*t == MPI_DATATYPE_NULL)
        return;
    MPI_Type_get_envelope(*t, &ni, &na, &nd, &comb);
    if (comb != MPI_COMBINER_NAMED)
        MPI_Type_free(t);
    *t = MPI_DATATYPE_NULL;
}

static inline void ct_access_free(struct ct_access *a)
{
    rt_list_free(&a->file);
    rt_list_free(&a->mem);
    ct_type_free(&a->filetype);
    ct_type_free(&a->memtype);
    ct_access_init(a);
}

/** The memory buffer of a write: sentinel, and pat(rank, F(s)) at M(s). */
static inline unsigned char *ct_write_buf(const struct ct_access *a, int rank)
{
    unsigned char *m = malloc((size_t)(a->membytes ? a->membytes : 1));
    memset(m, CT_SENTINEL, (size_t)(a->membytes ? a->membytes : 1));
    long long *F = ct_expand(&a->file), *M = ct_expand(&a->mem);
    for (long long s = 0; s < a->file.total && s < a->mem.total; s++)
        m[M[s]] = pat(rank, F[s]);
    free(F);
    free(M);
    return m;
}

/**
 * A read buffer against the file image img (length ilen): the first nread
 * stream bytes hold img[F(s)] and memory outside the memory pieces keeps
 * the sentinel.  Reports the first difference; returns nonzero if right.
 */
#define CT_CHECK_READ(a, m, nread, img, ilen, ...) \
    ct_check_read((a), (m), (nread), (img), (ilen), __FILE__, __LINE__, __VA_ARGS__)
static inline int ct_check_read(const struct ct_access *a, const unsigned char *m,
                                long long nread, const unsigned char *img, long long ilen,
                                const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
static inline int ct_check_read(const struct ct_access *a, const unsigned char *m,
                                long long nread, const unsigned char *img, long long ilen,
                                const char *file, int line, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    long long *F = ct_expand(&a->file), *M = ct_expand(&a->mem);
    unsigned char *inside = calloc((size_t)(a->membytes ? a->membytes : 1), 1);
    long long bad = 0, first = -1;
    int got = 0, exp = 0;
    for (long long s = 0; s < a->mem.total; s++)
        inside[M[s]] = 1;
    for (long long s = 0; s < nread && s < a->file.total; s++) {
        int e = F[s] < ilen ? img[F[s]] : -1;
        if (m[M[s]] != e) {
            if (first < 0) {
                first = s;
                got = m[M[s]];
                exp = e;
            }
            bad++;
        }
    }
    if (bad)
        rt_fail(file, line,
                "%s: stream byte %lld (file offset %lld, memory offset %lld) read as 0x%02x, "
                "the file holds 0x%02x; %lld bytes differ",
                what, first, F[first], M[first], got, exp, bad);
    long long sbad = 0, sfirst = -1;
    for (long long k = 0; k < a->membytes; k++)
        if (!inside[k] && m[k] != CT_SENTINEL) {
            if (sfirst < 0)
                sfirst = k;
            sbad++;
        }
    if (sbad)
        rt_fail(file, line,
                "%s: memory byte %lld outside the memory type was overwritten (0x%02x); %lld "
                "such bytes",
                what, sfirst, m[sfirst], sbad);
    free(F);
    free(M);
    free(inside);
    return !bad && !sbad;
}

/* ---- writers of file bytes --------------------------------------------------------- */

/** who[o - base] |= bit of rank, for the rank's file pieces inside
 *  [base, base + len). */
static inline void ct_mark(uint64_t *who, long long base, long long len, const struct rt_list *l,
                           int rank)
{
    for (int i = 0; i < l->n; i++)
        for (long long o = l->p[i].off; o < l->p[i].off + l->p[i].len; o++)
            if (o >= base && o < base + len)
                who[o - base] |= (uint64_t)1 << rank;
}

static inline int ct_popcount(uint64_t w)
{
    return __builtin_popcountll(w);
}

static inline int ct_lowest(uint64_t w)
{
    return __builtin_ctzll(w);
}

/** Is byte b at offset o the value of one of the writers in w? */
static inline int ct_one_of(unsigned char b, long long o, uint64_t w)
{
    for (int q = 0; q < 64; q++)
        if ((w >> q & 1) && b == pat(q, o))
            return 1;
    return 0;
}

/* ---- stripe targets ---------------------------------------------------------------- */

/** row[t] += bytes of l on target t (unit bytes per stripe, T targets). */
static inline void ct_target_bytes(const struct rt_list *l, long long unit, int T, long long *row)
{
    for (int i = 0; i < l->n; i++) {
        long long off = l->p[i].off, len = l->p[i].len;
        while (len > 0) {
            long long n = rt_minll(len, unit - off % unit);
            row[(off / unit) % T] += n;
            off += n;
            len -= n;
        }
    }
}

/**
 * Resonant's agents by the rule: for each target t = 0..T-1, the
 * rank requesting the most bytes on it that is not already an agent,
 * lowest rank on ties.  (With fewer ranks than targets, once every rank
 * is an agent the rule starts over — resonant.c's documented extension,
 * which spreads the roles evenly.)  tb is P x T; agents holds
 * ct_resonant_nagents(P, T).
 */
static inline void ct_resonant_agents(const long long *tb, int P, int T, int *agents)
{
    int *used = calloc((size_t)P, sizeof *used), nused = 0;
    /* four or more ranks per target: k = P / 4T agents a target, chosen by
     * the same rule k times over the targets, agent j of target t at
     * t * k + j (resonant.c) */
    int k = P >= 4 * T ? P / (4 * T) : 1;
    for (int a = 0; a < T * k; a++) {
        int t = a % T, slot = t * k + a / T;
        int best = -1;
        long long bb = -1;
        if (nused == P) {
            memset(used, 0, sizeof *used * (size_t)P);
            nused = 0;
        }
        for (int i = 0; i < P; i++) {
            if (used[i])
                continue;
            if (tb[(size_t)i * (size_t)T + (size_t)t] > bb) {
                best = i;
                bb = tb[(size_t)i * (size_t)T + (size_t)t];
            }
        }
        used[best] = 1;
        nused++;
        agents[slot] = best;
    }
    free(used);
}

/** How many agents resonant gives a call of P ranks on T targets. */
static inline int ct_resonant_nagents(int P, int T)
{
    return P >= 4 * T ? P / (4 * T) * T : T;
}

/* ---- files on posix or on the emulated storage ------------------------------ */

/** -emu: the emulated storage's service directory (RESONIO_EMU_DIR); NULL:
 *  resonio's files are posix files.  Set by the program (ct_emu_arg). */
static const char *ct_emu;

/** Take -emu N (the service's target count); 0 on success (also without
 *  -emu), -1 when it cannot be used (reported). */
static inline int ct_emu_arg(int *targets)
{
    if (!rt_arg("-emu"))
        return 0;
    ct_emu = getenv("RESONIO_EMU_DIR");
    *targets = atoi(rt_arg("-emu"));
    CHECK(ct_emu && *targets >= 1, "-emu needs a target count and RESONIO_EMU_DIR");
    return ct_emu && *targets >= 1 ? 0 : -1;
}

/** -cephfs_mount DIR: resonio opens its files through its cephfs: driver
 *  (libcephfs, in user space) as cephfs:/REL, REL being the path below DIR,
 *  a ceph-fuse mount of the same file system; everything else (POSIX
 *  verification, pre-filling, unlinking) goes through DIR.  So a file
 *  written through cephfs: is read back through the mount.  NULL: not. */
static const char *ct_cephfs_mount;

/** Take -cephfs_mount DIR; 0 on success (also without it), -1 when -fname
 *  is not below DIR (reported). */
static inline int ct_cephfs_arg(void)
{
    const char *m = rt_arg("-cephfs_mount");
    if (!m)
        return 0;
    size_t n = strlen(m);
    int ok = n > 0 && !strncmp(rt_fname, m, n) && rt_fname[n] == '/';
    CHECK(ok, "-fname %s is not below -cephfs_mount %s", rt_fname, m);
    ct_cephfs_mount = ok ? m : NULL;
    return ok ? 0 : -1;
}

/** -rados POOL (programs built with CT_RADOS, which link librados): resonio
 *  opens its files as rados:POOL/<path without its leading '/'>, and the
 *  test reads them back from the RADOS objects with librados, applying the
 *  striping rule itself (rados_test.h); pre-filling and unlinking go
 *  through resonio.  NULL: not. */
static const char *ct_rados_pool;

/** Take -rados POOL; 0 on success (also without it), -1 when the program
 *  was built without librados (reported). */
static inline int ct_rados_arg(void)
{
    const char *p = rt_arg("-rados");
    if (!p)
        return 0;
#ifdef CT_RADOS
    ct_rados_pool = p;
    return 0;
#else
    CHECK(0, "-rados %s: this program was built without librados", p);
    return -1;
#endif
}

/** -wrap PREFIX: resonio opens its posix files through a wrapping driver
 *  (delay:, fault:), whose writes do not go to the page cache as the posix
 *  driver's do; everything else goes through the path.  NULL: not. */
static const char *ct_wrap;

/** Whether resonio's files live where only resonio (or librados) reaches
 *  them, not in a POSIX path: emu, rados. */
static inline int ct_through_rio(void)
{
    return ct_emu || ct_rados_pool;
}

/** The name resonio opens for path: emu:<path> in the emulated storage,
 *  cephfs:/<path below the mount> with -cephfs_mount, rados:POOL/<path>
 *  with -rados, PREFIX<path> with -wrap. */
static inline void ct_rio_name(char *out, size_t n, const char *path)
{
    size_t m = ct_cephfs_mount ? strlen(ct_cephfs_mount) : 0;
    if (m && !strncmp(path, ct_cephfs_mount, m) && path[m] == '/')
        snprintf(out, n, "cephfs:%s", path + m);
    else if (ct_rados_pool)
        snprintf(out, n, "rados:%s/%s", ct_rados_pool, path + (path[0] == '/'));
    else
        snprintf(out, n, "%s%s", ct_emu ? "emu:" : ct_wrap ? ct_wrap : "", path);
}

/** resonio's file, read from storage without resonio (malloc'ed). */
static inline unsigned char *ct_slurp(const char *path, long long *len)
{
#ifdef CT_RADOS
    if (ct_rados_pool) {
        char name[4300];
        ct_rio_name(name, sizeof name, path);
        return rados_t_slurp(name + strlen("rados:"), len);
    }
#endif
    if (!ct_emu)
        return RT_SLURP(path, len);
    unsigned char *p = emu_slurp(ct_emu, path, len);
    CHECK(p, "%s is not in the emu service %s", path, ct_emu);
    return p;
}

/** resonio's file at path for checking, as ct_slurp gives it, but a local
 *  file is mapped read-only rather than copied: at many ranks each rank
 *  then brings in only the pages it checks.  *mapped says which; release
 *  with ct_unmap. */
static inline unsigned char *ct_map(const char *path, long long *len, int *mapped)
{
    *mapped = 0;
    if (ct_through_rio() || ct_cephfs_mount) /* not a local file system */
        return ct_slurp(path, len);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    void *p = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &sb) == 0 && sb.st_size > 0)
        p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (p == MAP_FAILED) /* empty, or absent: ct_slurp says why */
        return ct_slurp(path, len);
    *mapped = 1;
    *len = (long long)sb.st_size;
    return p;
}

static inline void ct_unmap(unsigned char *p, long long len, int mapped)
{
    if (mapped)
        munmap(p, (size_t)len);
    else
        free(p);
}

/** Write n bytes at off of resonio's file path from rank 0 (posix, or
 *  through resonio on the emulated storage), creating the file, after
 *  emptying it with trunc; then a barrier.  Collective. */
static inline void ct_fill_rio(const char *path, const void *b, size_t n, long long off,
                               int trunc)
{
    if (rt_rank == 0) {
        if (ct_through_rio()) {
            char name[4300];
            rio_file *f = RIO_FILE_NULL;
            MPI_Status st;
            ct_rio_name(name, sizeof name, path);
            if (trunc)
                rio_file_delete(name, MPI_INFO_NULL); /* absent is fine */
            if (RT_OK(rio_file_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR,
                                    MPI_INFO_NULL, &f))) {
                RT_OK(rio_file_write_at(f, off, b, (int)n, MPI_BYTE, &st));
                RT_OK(rio_file_close(&f));
            }
        } else {
            CHECK(rt_pwrite_file(path, b, n, off, trunc) == 0, "pre-filling %s: %s", path,
                  strerror(errno));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/** Remove resonio's file path (rank 0; absent is fine), then a barrier. */
static inline void ct_unlink_rio(const char *path)
{
    if (rt_rank == 0) {
        if (ct_through_rio()) {
            char name[4300];
            ct_rio_name(name, sizeof name, path);
            rio_file_delete(name, MPI_INFO_NULL);
        } else {
            unlink(path);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- rio_coll_last ------------------------------------------------------------------ */

/** rio_coll_last into *in (zeroed first); returns nonzero on success. */
static inline int ct_last(rio_file *fh, struct rio_coll_info *in)
{
    memset(in, 0, sizeof *in);
    in->size = sizeof *in;
    return RT_OK(rio_coll_last(fh, in));
}

/** "t0 3/4 t1 ..." : ascending/requests per target, for messages. */
static inline const char *ct_targets_str(const struct rio_coll_info *in, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int t = 0; t < in->ntargets && t < RIO_COLL_MAX_TARGETS && used + 32 < len; t++)
        used += (size_t)snprintf(buf + used, len - used, "%st%d %lld/%lld", t ? ", " : "", t,
                                 in->target_ascending[t], in->target_reqs[t]);
    return buf;
}

/** "0 2 4" : the aggregators, for messages. */
static inline const char *ct_aggs_str(const struct rio_coll_info *in, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int a = 0; a < in->naggs && a < RIO_COLL_MAX_AGGS && used + 16 < len; a++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", a ? " " : "", in->aggs[a]);
    return buf;
}

/**
 * Ascending order per target: every request to a target except its first
 * arrived above the previous one (target_ascending == target_reqs - 1 for
 * each target with requests).  Returns the first target that is not, or
 * -1.
 */
static inline int ct_first_unordered_target(const struct rio_coll_info *in)
{
    for (int t = 0; t < in->ntargets && t < RIO_COLL_MAX_TARGETS; t++)
        if (in->target_reqs[t] > 0 && in->target_ascending[t] != in->target_reqs[t] - 1)
            return t;
    return -1;
}

/* ---- the error tests' access ---------------------------------------------------------
 * Each rank's CT_IL_NB blocks of CT_IL_BS bytes, interleaved with the other
 * ranks' and with holes: block k of rank i at (k * P + i) * CT_IL_PITCH,
 * through a view (ct_il_view).  Before a write the whole span holds 0xEE
 * (ct_il_prefill), so stale bytes show. */
#define CT_IL_BS 1000
#define CT_IL_PITCH 1200
#define CT_IL_NB 12
#define CT_IL_BYTES ((long long)CT_IL_NB * CT_IL_BS) /* one rank's bytes */

/** File offset of byte i of this rank's data. */
static inline long long ct_il_off(long long i)
{
    return ((i / CT_IL_BS) * rt_nprocs + rt_rank) * CT_IL_PITCH + i % CT_IL_BS;
}

static inline long long ct_il_span(void)
{
    return (long long)CT_IL_NB * rt_nprocs * CT_IL_PITCH;
}

/** This rank's data: pat() of each byte's file offset. */
static inline unsigned char *ct_il_data(void)
{
    unsigned char *buf = malloc((size_t)CT_IL_BYTES);
    for (long long i = 0; buf && i < CT_IL_BYTES; i++)
        buf[i] = pat(rt_rank, ct_il_off(i));
    return buf;
}

/** 0xEE over the whole span of resonio's file path, and nothing else
 *  (rank 0, ct_fill_rio), then a barrier. */
static inline void ct_il_prefill(const char *path)
{
    unsigned char *f = malloc((size_t)ct_il_span());
    memset(f, 0xEE, (size_t)ct_il_span());
    ct_fill_rio(path, f, (size_t)ct_il_span(), 0, 1);
    free(f);
}

/** Set this rank's view of the access on fh; returns the MPI code. */
static inline int ct_il_view(rio_file *fh)
{
    MPI_Datatype c, ft;
    MPI_Type_contiguous(CT_IL_BS, MPI_BYTE, &c);
    MPI_Type_create_resized(c, 0, (MPI_Aint)rt_nprocs * CT_IL_PITCH, &ft);
    MPI_Type_commit(&ft);
    MPI_Type_free(&c);
    int rc = rio_file_set_view(fh, (MPI_Offset)rt_rank * CT_IL_PITCH, MPI_BYTE, ft, "native",
                               MPI_INFO_NULL);
    MPI_Type_free(&ft);
    return rc;
}

/**
 * The first of this rank's bytes that is wrong: in buf (a read) or, with
 * buf NULL, in resonio's file at path, read without resonio (ct_slurp) between two barriers
 * (collective then).  Returns its index, or -1 when every byte is right;
 * *got is the value found (-1: past the end of the file), *off its offset.
 */
static inline long long ct_il_check(const char *path, const unsigned char *buf, int *got,
                                    long long *off)
{
    long long len = 0, bad = -1;
    unsigned char *file = NULL;
    if (!buf) {
        MPI_Barrier(MPI_COMM_WORLD);
        file = ct_slurp(path, &len);
    }
    for (long long i = 0; (buf || file) && i < CT_IL_BYTES && bad < 0; i++) {
        long long o = ct_il_off(i);
        int v = buf ? buf[i] : (o < len ? file[o] : -1);
        if (v != pat(rt_rank, o)) {
            bad = i;
            *got = v;
            *off = o;
        }
    }
    free(file);
    if (!buf) /* before anyone rewrites the file */
        MPI_Barrier(MPI_COMM_WORLD);
    return bad;
}

/* ---- misc ------------------------------------------------------------------------------ */

/* rtest.h's watchdog, for the programs that set their own alarm */
static inline void ct_watchdog(int sig)
{
    rt_watchdog_fire(sig);
}

/** Remove path on rank 0 and wait for it. */
static inline void ct_unlink_all(const char *path)
{
    if (rt_rank == 0)
        unlink(path);
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ---- slots and selectors ------------------------------------------------------ */

/** Every rank's selector on fh in the same state: its entries' signatures,
 *  candidates, counts and choice, hashed and compared; at least one entry
 *  unless none_ok (a handle whose only call failed chose nothing).
 *  Collective over MPI_COMM_WORLD. */
static inline void ct_same_selectors(rio_file *fh, const char *what, int none_ok)
{
    unsigned long long h = 1469598103934665603ULL;
    int n = 0;
    RT_OK(rio_select_count(fh, &n));
    for (int i = 0; i < n; i++) {
        struct rio_select_info si;
        memset(&si, 0, sizeof si);
        si.size = sizeof si;
        if (!RT_OK(rio_select_get(fh, i, &si)))
            break;
        long long v[] = {si.write, si.nprocs, si.bytes, si.regions, si.relgap, si.ncand,
                         si.examining, si.calls, si.exam_calls, si.reexams};
        const unsigned char *p = (const unsigned char *)v;
        for (size_t k = 0; k < sizeof v; k++)
            h = (h ^ p[k]) * 1099511628211ULL;
        for (int k = 0; k < si.ncand && k < RIO_SELECT_MAX_CAND; k++) {
            for (const char *c = si.cand[k]; *c; c++)
                h = (h ^ (unsigned char)*c) * 1099511628211ULL;
            h = (h ^ (unsigned)si.tput_calls[k]) * 1099511628211ULL;
        }
        for (const char *c = si.chosen; *c; c++)
            h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    }
    unsigned long long lo, hi;
    MPI_Allreduce(&h, &lo, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&h, &hi, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    CHECK(lo == hi && (n > 0 || none_ok), "%s: the ranks' selectors differ (%d entries here)",
          what, n);
}

/** Rank 0 checks the file at path byte by byte: sets of slots of slot
 *  bytes (set c, rank r at (c P + r) slot) holding pat(r, c slot) for
 *  len(c, r) bytes and zeros after them. */
static inline void ct_check_slots(const char *path, int sets, long long slot,
                                  long long (*len)(int c, int r))
{
    if (rt_rank != 0)
        return;
    long long size = 0;
    unsigned char *img = RT_SLURP(path, &size);
    long long want = (long long)sets * rt_nprocs * slot;
    CHECK(img && size <= want, "file %s: %lld bytes, at most %lld expected", path, size, want);
    for (int c = 0; img && c < sets; c++)
        for (int r = 0; r < rt_nprocs; r++) {
            long long at = ((long long)c * rt_nprocs + r) * slot, n = len(c, r);
            if (at >= size)
                continue;
            CHECK_PAT(img + at, (size_t)rt_minll(n, size - at), r, (long long)c * slot,
                      "file: set %d, rank %d", c, r);
            for (long long k = at + n; k < at + slot && k < size; k++)
                if (img[k]) {
                    CHECK(0, "file: byte %lld (set %d, rank %d's slot) is %d, not 0", k, c, r,
                          img[k]);
                    break;
                }
        }
    free(img);
}

#endif /* CTEST_UTIL_H */
