/*
 * indep.c — independent requests: the pair cursor, the chooser, and the
 * contiguous and one-call-per-region methods.
 *
 * A request is served by walking the memory and file sides together (the
 * pair cursor, see indep_int.h), so no offset list is ever built for the
 * whole request.  contig and posix are one loop here: pairs that follow
 * one another in the file are gathered into one iovec array (memory pieces
 * that also touch are merged) and go out as one pread/pwrite or
 * preadv/pwritev; a gap in the file starts the next call.  contig is what
 * the chooser picks when the whole request is one file region, so it makes
 * one call (or one per IOV_MAX memory pieces); posix is the same loop on a
 * noncontiguous view, one call per file region.  The other methods live in
 * sieve.c and list.c.
 *
 * Writes are sieved only when romio_ds_write=enable asks for it: a sieved
 * write puts back the holes of its window too, which loses the bytes that
 * another process writes there at the same time unless every writer takes
 * the window's lock, and the other methods take none.
 *
 * The chooser looks only at the shape: the filetype's size and region
 * count per tile (from the decoded type, not from walking the request) and
 * the first and last file byte of the request (two seeks in the view).
 * Sieving trades one storage call per region for moving the holes and
 * copying the data once more (reads of regions of 4 KiB and more skip the
 * copy, see sieve.c): a read window moves its holes once, a write window
 * reads the whole window and writes it back.  A storage call costs
 * about as much as copying 15-30 KiB, so with mean region r and density d
 * reads sieve when the window per region, r / d, is at most
 * SIEVE_READ_WINDOW: small regions with small holes.  A large region with
 * a small hole gains nothing (one call saved per 32 KiB region, two
 * copies of it paid).  Calibrated with tools/micro/indep_bench.c
 * (resonio-micro-indep, 2 MiB per request, ms, best of 3; per-region = the
 * posix method, the list and dtype methods within 5% of it; file in the
 * page cache):
 *
 *                            ext4            tmpfs
 *   region dens window   per-region sieve  per-region sieve
 *    4096  0.10    40K       0.84   0.77      0.99   2.67
 *    4096  0.25    16K       0.86   0.27      1.03   0.74
 *   16384  0.25    64K       0.28   0.33      0.31   0.63
 *   16384  0.50    32K       0.29   0.18      0.35   0.27
 *   65536  0.50   128K       0.11   0.15      0.14   0.39
 *   65536  0.90    72K       0.11   0.13      0.18   0.16
 *
 * (resonio-bench demo, 32 KiB segments at density 0.57, a 56 KiB window:
 * 4136 MiB/s sieved against 6400 per region, Open MPI, tmpfs.)  Writes,
 * where a user enables sieving (earlier run of the same tool):
 *
 *                           ext4            tmpfs
 *   region dens op   per-region sieve  per-region sieve
 *      64  0.10 write   140.05   3.72     28.83   5.34
 *     512  0.10 write    17.90   3.55      3.85   4.57
 *     512  0.25 write    19.03   1.36      3.67   1.50
 *    4096  0.25 write     2.63   0.99      0.54   1.51
 *    4096  0.90 write     2.41   0.40      0.65   0.48
 *   16384  0.50 write     0.77   0.53      0.30   0.78
 *   16384  0.90 write     0.73   0.35      0.32   0.48
 *
 * Regions of 256 KiB and more gain nothing from batching and go one call
 * each.  Everything else is datatype I/O, which measured the same as list
 * I/O on the posix driver; on storage whose views are its own datatype
 * I/O (RIO_STORE_CAP_OWN_VIEWS: rados:, which ships the view's dataloop to
 * each object's OSD or sends list I/O, whichever it measured faster for
 * the shape, src/store/rados.c) it is the view method instead: there one
 * request per object replaces one compound operation per 256 regions,
 * 100 times faster for 8-byte regions (docs/ceph-lua.md).  Reads that
 * would sieve take the view too: a sieve there costs a storage call per
 * piece of its window (rio__indep_choose).
 */
#include "indep_int.h"

#include <stdint.h>
#include <string.h>

/* The methods' names and entry points, indexed by the enum, made from
 * methods.h: the one table the hint parser, MPI_File_get_info, the public
 * enumeration and the dispatch read.  Auto has a name and no entry point:
 * it is the chooser. */
static const char *const method_names[] = {
    [RIO_INDEP_AUTO] = "auto",
#define RIO_INDEP_METHOD(E, name) [RIO_INDEP_##E] = #name,
#include "methods.h"
#undef RIO_INDEP_METHOD
};
static int (*const method_run[])(const struct rio_indep_req *, struct rio_pairs *) = {
    [RIO_INDEP_AUTO] = NULL,
#define RIO_INDEP_METHOD(E, name) [RIO_INDEP_##E] = rio__indep_##name,
#include "methods.h"
#undef RIO_INDEP_METHOD
};
_Static_assert(sizeof method_names / sizeof method_names[0] == RIO_INDEP_NMETHODS &&
                   sizeof method_run / sizeof method_run[0] == RIO_INDEP_NMETHODS,
               "a name and an entry point for every independent method");
/* Each method but auto has a slot in struct rio_stats req_method: one more
 * method than RIO_STATS_MAX_METHODS would change the public ABI. */
_Static_assert(RIO_INDEP_NMETHODS - RIO_INDEP_CONTIG <= RIO_STATS_MAX_METHODS,
               "struct rio_stats has a req_method slot for every independent method");

const char *rio__indep_method_name(enum rio_indep_method m)
{
    return (int)m >= 0 && m < RIO_INDEP_NMETHODS && method_names[m] ? method_names[m] : "?";
}

int rio_indep_method_count(void)
{
    return RIO_INDEP_NMETHODS - RIO_INDEP_CONTIG; /* auto chooses among them, is not one */
}

const char *rio_indep_method_name(int i)
{
    return i >= 0 && i < rio_indep_method_count() ? method_names[i + RIO_INDEP_CONTIG] : NULL;
}

/* resonio_indep_method's values: the names, auto included, by enum. */
static const char *method_choice(int i)
{
    return i >= 0 && i < RIO_INDEP_NMETHODS ? method_names[i] : NULL;
}

/* The layer's keys: what datatype-io.txt and ROMIO call data sieving, and
 * the method a program may force.  romio_ds_write makes writes read the
 * file, so a file that cannot be read keeps it off. */
#define F(m) offsetof(struct rio_indep_settings, m)
static const struct rio_setting indep_keys[] = {
    {"romio_ds_read", RIO_SET_TRI, F(romio_ds_read), "automatic", 0,
     "data sieving of independent reads (enable/disable/automatic)", NULL, NULL},
    {"romio_ds_write", RIO_SET_TRI, F(romio_ds_write), "automatic", RIO_SET_READS_FILE,
     "data sieving of independent writes; under two_phase/every_rank also how a round with "
     "holes is written",
     NULL, NULL},
    {"ind_rd_buffer_size", RIO_SET_SIZE, F(ind_rd_buffer_size), "4m", 0,
     "window of a sieved read", NULL, NULL},
    {"ind_wr_buffer_size", RIO_SET_SIZE, F(ind_wr_buffer_size), "512k", 0,
     "window of a sieved write", NULL, NULL},
    {"resonio_indep_method", RIO_SET_CHOICE, F(indep_method), "auto", 0,
     "force an independent method: contig, posix, sieve, list, dtype, view", method_choice,
     NULL},
};
#undef F

const struct rio_settings_owner rio__indep_settings_owner =
    RIO_SETTINGS_OWNER("indep", struct rio_indep_settings, indep_keys);

#define IOV_BATCH 1024
#define POSIX_MIN_REGION ((MPI_Offset)256 << 10)
#define SIEVE_READ_WINDOW 32768.0 /* r / d */

/* ---- the pair cursor ---------------------------------------------------- */

int rio__indep_pairs_init(struct rio_pairs *c, const struct rio_indep_req *req)
{
    int rc;
    memset(c, 0, sizeof *c);
    c->buf = req->buf;
    c->disp = req->disp;
    c->left = req->nbytes;
    rc = rio__dtype_iter_init(&c->fit, req->filetype, -1, req->file_start);
    if (rc)
        return rc;
    c->fit_live = 1;
    const struct rio_dtype_info *mi = rio__dtype_info(req->memtype);
    if (mi->contig) { /* the memory side is one region: no iterator to walk it */
        c->moff = mi->true_lb;
        c->mlen = (MPI_Offset)req->memcount * mi->size;
        return 0;
    }
    rc = rio__dtype_iter_init(&c->mit, req->memtype, req->memcount, 0);
    if (rc)
        return rc;
    c->mit_live = 1;
    return 0;
}

void rio__indep_pairs_free(struct rio_pairs *c)
{
    if (c->fit_live)
        rio__dtype_iter_free(&c->fit);
    if (c->mit_live)
        rio__dtype_iter_free(&c->mit);
    c->fit_live = c->mit_live = 0;
}

int rio__indep_pairs_region(struct rio_pairs *c, int file, MPI_Offset max, MPI_Offset *off,
                            MPI_Offset *len)
{
    MPI_Offset *roff = file ? &c->foff : &c->moff, *rlen = file ? &c->flen : &c->mlen;
    if (*rlen == 0) {
        MPI_Offset o, l;
        if (!file && !c->mit_live)
            return 0; /* a contiguous memory side, used up */
        do {
            if (!rio__dtype_iter_next(file ? &c->fit : &c->mit, max, &o, &l))
                return 0;
        } while (l == 0);
        *roff = file ? c->disp + o : o;
        *rlen = l;
        if (file)
            c->fregions++;
    }
    *off = *roff;
    *len = RIO_MIN(*rlen, max);
    *roff += *len;
    *rlen -= *len;
    return 1;
}

int rio__indep_pairs_peek(struct rio_pairs *c, MPI_Offset *foff, char **mem, MPI_Offset *len)
{
    MPI_Offset o, l;
    if (c->left <= 0)
        return 0;
    if (c->flen == 0) {
        do {
            if (!rio__dtype_iter_next(&c->fit, c->left, &o, &l)) {
                rio__err_detail("the file view ends before the request does");
                return RIO_E_FILETYPE;
            }
        } while (l == 0);
        c->foff = c->disp + o;
        c->flen = l;
        c->fregions++;
    }
    if (c->mlen == 0) {
        do {
            if (!c->mit_live || !rio__dtype_iter_next(&c->mit, c->left, &o, &l)) {
                rio__err_detail("the memory buffer holds fewer bytes than the request moves");
                return RIO_E_ARG;
            }
        } while (l == 0);
        c->moff = o;
        c->mlen = l;
    }
    *foff = c->foff;
    *mem = c->buf + c->moff;
    *len = RIO_MIN(RIO_MIN(c->flen, c->mlen), c->left);
    return 1;
}

void rio__indep_pairs_take(struct rio_pairs *c, MPI_Offset n)
{
    c->foff += n;
    c->flen -= n;
    c->moff += n;
    c->mlen -= n;
    c->left -= n;
    c->pos += n;
}

/* ---- contig and posix -------------------------------------------------- */

int rio__indep_by_regions(const struct rio_indep_req *req, struct rio_pairs *c, char *holes,
                          MPI_Offset hole_max, long long *reqs)
{
    struct iovec iov[IOV_BATCH];
    struct rio_store *st = req->st;
    int rc = 0;

    for (;;) {
        MPI_Offset start = 0, tot = 0, fo, len, pos0 = c->pos;
        char *mp;
        int k = 0;
        while ((rc = rio__indep_pairs_peek(c, &fo, &mp, &len)) > 0) {
            MPI_Offset gap = k > 0 ? fo - (start + tot) : 0;
            if (gap && (!holes || gap < 0 || gap > hole_max || k + 2 > IOV_BATCH))
                break; /* a gap in the file: next call */
            if (gap) { /* a small hole, read into the scratch and dropped */
                iov[k].iov_base = holes;
                iov[k].iov_len = (size_t)gap;
                k++;
                tot += gap;
            }
            if (k > 0 && iov[k - 1].iov_base != holes &&
                (char *)iov[k - 1].iov_base + iov[k - 1].iov_len == mp) {
                iov[k - 1].iov_len += (size_t)len;
            } else {
                if (k == IOV_BATCH)
                    break;
                if (k == 0)
                    start = fo;
                iov[k].iov_base = mp;
                iov[k].iov_len = (size_t)len;
                k++;
            }
            tot += len;
            rio__indep_pairs_take(c, len);
        }
        if (rc < 0) {
            c->pos = pos0;
            break;
        }
        if (k == 0)
            break;
        MPI_Offset got = tot;
        if (req->write)
            rc = k == 1 ? rio__indep_write_run(req, iov[0].iov_base, iov[0].iov_len, start)
                        : rio__store_pwritev_full(st, iov, k, start);
        else
            rc = k == 1 ? rio__store_pread_full(st, iov[0].iov_base, iov[0].iov_len, start, &got)
                        : rio__store_preadv_full(st, iov, k, start, &got);
        (*reqs)++;
        if (rc || got < tot) { /* error, or end of file: the data bytes below got */
            MPI_Offset below = 0, seen = 0;
            for (int i = 0; i < k && seen < got && !(rc && req->write); i++) {
                MPI_Offset n = RIO_MIN((MPI_Offset)iov[i].iov_len, got - seen);
                if (iov[i].iov_base != holes || !holes)
                    below += n;
                seen += n;
            }
            c->pos = pos0 + below;
            break;
        }
    }
    return rc < 0 ? rc : 0;
}

/* ---- choosing ------------------------------------------------------------ */

enum rio_indep_method rio__indep_choose(const struct rio_indep_req *req)
{
    const struct rio_indep_settings *h = rio__indep_settings(req->st ? req->st->hints : NULL);
    if (req->method != RIO_INDEP_AUTO)
        return req->method;
    if (h->indep_method != RIO_INDEP_AUTO)
        return h->indep_method;
    if (req->nbytes <= 0)
        return RIO_INDEP_CONTIG;
    const struct rio_dtype_info *fi = rio__dtype_info(req->filetype);
    if (fi->contig || fi->size <= 0 || fi->regions <= 0)
        return RIO_INDEP_CONTIG;
    MPI_Offset first = req->first, end = req->end;
    if (end <= 0)
        rio__dtype_view_extent(req->filetype, req->disp, req->file_start, req->nbytes, &first,
                               &end);
    MPI_Offset span = end - first;
    if (span <= req->nbytes)
        return RIO_INDEP_CONTIG; /* the request is one file region */

    enum rio_tristate ds = req->write ? h->romio_ds_write : h->romio_ds_read;
    if (ds == RIO_ENABLE)
        return RIO_INDEP_SIEVE; /* ROMIO: enable means sieve noncontiguous access */
    double mean = (double)fi->size / (double)fi->regions;
    double density = (double)req->nbytes / (double)span;
    if (mean >= (double)POSIX_MIN_REGION)
        return RIO_INDEP_POSIX;
    /* Writes are sieved only when romio_ds_write=enable asks (above): a
     * sieved write reads its window and writes all of it back, so another
     * process writing into the window's holes at the same time, without
     * taking the window's lock (any non-sieving writer), loses its bytes. */
    /* Regions of a page and more are sieved by one preadv over their holes
     * (sieve.c), which pays only while the holes are shorter than a page.
     * A hole of a whole page brings in a page that holds none of the
     * request, and touching a page of a file just written costs more than
     * the storage call saved: resonio-bench matrix block=4K (4 KiB regions
     * 4 KiB apart, 4 per call), independent strategy, 2 ranks, read MiB/s
     * sieved against one call per region:
     *
     *                    tmpfs           ext4
     *   MPICH       4218-4265 / 5276-5281   4566-4803 / 7077-7506
     *   Open MPI         3984 / 4997        6029-6208 / 6284-7081
     *
     * (A file read again and again, as resonio-micro-indep does, sieves
     * faster: 1.5 against 1.7 us per 16 KiB on tmpfs.)  The hole is the
     * request's own mean gap between regions. */
    double hole = rio__indep_mean_hole(span, req->nbytes, mean);
    /* Storage whose views are its own datatype I/O (rados:) reads the
     * request's regions in one request per object; a sieve there reads its
     * window as one storage call per piece of its vector (no preadv of its
     * own): in one resonio-bench -storage rados run at 2 ranks, hpio's
     * 2 KiB regions read at 3 MiB/s by the independent strategy, sieved,
     * and at 208 by direct, through the view. */
    if (req->st && req->st->ops && (req->st->ops->caps & RIO_STORE_CAP_OWN_VIEWS))
        return RIO_INDEP_VIEW;
    if (ds != RIO_DISABLE && !req->write && mean / density <= SIEVE_READ_WINDOW &&
        (mean < (double)RIO_INDEP_IOV_REGION || hole < (double)RIO_INDEP_HOLE_MAX))
        return RIO_INDEP_SIEVE;
    return RIO_INDEP_DTYPE;
}

/* The entry points of contig and posix: one loop, one call per run of
 * file regions that follow one another (a request of one run is one call);
 * they differ in where the requests are counted. */
static int per_run(const struct rio_indep_req *req, struct rio_pairs *c, enum rio_indep_method m)
{
    long long reqs = 0;
    int rc = rio__indep_by_regions(req, c, NULL, 0, &reqs);
    rio__indep_count(req, m, reqs);
    return rc;
}

int rio__indep_contig(const struct rio_indep_req *req, struct rio_pairs *c)
{
    return per_run(req, c, RIO_INDEP_CONTIG);
}

int rio__indep_posix(const struct rio_indep_req *req, struct rio_pairs *c)
{
    return per_run(req, c, RIO_INDEP_POSIX);
}

/* ---- staging small memory pieces ------------------------------------------ */

/*
 * Storage calls cost per memory piece too (pwritev ~0.2 us per iovec entry
 * here), so a request whose memory pieces are a few bytes long (FLASH's
 * 8-byte variables) would spend its time on iovec entries, not on bytes.
 * Such a request is served in chunks through one staging buffer: a chunk
 * of the memory stream is packed (a tight loop over the type's blocks),
 * moved by the method with contiguous memory, and for reads unpacked.
 */
#define STAGE_PIECE 512                      /* mean memory piece that is staged */
#define STAGE_BYTES ((MPI_Offset)4 << 20)   /* chunk */

static int stage_wanted(const struct rio_indep_req *req, enum rio_indep_method m)
{
    const struct rio_dtype_info *mi = rio__dtype_info(req->memtype);
    /* sieve copies through its window anyway; view packs the whole
     * request itself, to keep it one storage request */
    return m != RIO_INDEP_SIEVE && m != RIO_INDEP_VIEW && !mi->contig && mi->regions > 0 &&
           mi->size / mi->regions <= STAGE_PIECE;
}

static int staged_rw(const struct rio_indep_req *req, enum rio_indep_method m, MPI_Offset *done)
{
    MPI_Offset chunk = RIO_MIN(req->nbytes, STAGE_BYTES);
    struct rio_dtype *bytes = NULL;
    struct rio_dtype_iter mit;
    int live = 0, rc;
    char *stage = rio__store_scratch_get(req->st, (size_t)chunk);

    if (!stage)
        return RIO_E_NOMEM;
    rc = rio__dtype_get(MPI_BYTE, &bytes);
    if (!rc)
        rc = rio__dtype_iter_init(&mit, req->memtype, req->memcount, 0);
    live = !rc;
    while (!rc && *done < req->nbytes) {
        MPI_Offset n = RIO_MIN(chunk, req->nbytes - *done), got = 0;
        struct rio_indep_req sub = *req;
        sub.buf = stage;
        sub.memtype = bytes;
        sub.memcount = n;
        sub.file_start = req->file_start + *done;
        sub.nbytes = n;
        sub.method = m;
        sub.first = sub.end = 0; /* a part of the request: its own extent */
        if (req->write && rio__dtype_iter_copy(&mit, req->buf, stage, n, 1) < n) {
            rio__err_detail("the memory buffer holds fewer bytes than the request moves");
            rc = RIO_E_ARG;
            break;
        }
        rc = rio__indep_rw(&sub, &got);
        if (!req->write)
            rio__dtype_iter_copy(&mit, req->buf, stage, got, 0);
        if (req->st->stats)
            rio__stat_add(&req->st->stats->copies, req->write ? n : got);
        *done += got;
        if (got < n)
            break;
    }
    if (live)
        rio__dtype_iter_free(&mit);
    rio__dtype_put(bytes);
    rio__store_scratch_put(req->st, stage);
    return rc;
}

/* ---- the request ---------------------------------------------------------- */

static int check_req(const struct rio_indep_req *req)
{
    if (!req->st || !req->st->ops || !req->memtype || !req->filetype || req->nbytes < 0 ||
        req->file_start < 0 || req->memcount < 0)
        return RIO_E_ARG;
    const struct rio_dtype_info *mi = rio__dtype_info(req->memtype);
    if (mi->size > 0 && req->memcount > INT64_MAX / mi->size)
        return RIO_E_OVERFLOW;
    if (req->nbytes > (MPI_Offset)(req->memcount * mi->size)) {
        rio__err_detail("request of %lld bytes from a buffer of %lld", (long long)req->nbytes,
                        (long long)(req->memcount * mi->size));
        return RIO_E_ARG;
    }
    return 0;
}

/*
 * A request that is one region in memory and one in the file (the common
 * contiguous call) is one storage call, without the pairs' iterators:
 * about a thousand instructions less per call, measured with callgrind
 * over 40 KiB reads.  Returns 1 when it served the request.
 */
static int one_region(const struct rio_indep_req *req, int *rc, MPI_Offset *done)
{
    const struct rio_dtype_info *mi = rio__dtype_info(req->memtype);
    MPI_Offset first = req->first;
    if (!mi->contig || req->end - first != req->nbytes)
        return 0;
    char *mem = (char *)req->buf + mi->true_lb;
    MPI_Offset got = req->nbytes;
    if (req->write)
        *rc = rio__indep_write_run(req, mem, (size_t)req->nbytes, first);
    else
        *rc = rio__store_pread_full(req->st, mem, (size_t)req->nbytes, first, &got);
    *done = req->write && *rc ? 0 : got;
    rio__indep_count(req, RIO_INDEP_CONTIG, 1);
    if (req->st->stats)
        rio__stat_add(&req->st->stats->regions, 1);
    return 1;
}

int rio__indep_rw(const struct rio_indep_req *given, MPI_Offset *done)
{
    struct rio_pairs c;
    struct rio_indep_req r = *given, *req = &r;
    rio_stats *stats = req->st ? req->st->stats : NULL;
    int rc;

    *done = 0;
    rc = check_req(req);
    /* a view that holds no data has no place for a byte: nothing moves */
    if (rc || req->nbytes == 0 || rio__dtype_info(req->filetype)->size <= 0)
        return rc;
    /* the chooser, the one-region case and the methods' first window
     * share one view extent: each costs two descents of the filetype */
    if (r.end <= 0)
        rio__dtype_view_extent(r.filetype, r.disp, r.file_start, r.nbytes, &r.first, &r.end);
    /* a request whose file offsets do not increase (overlapping tiles,
     * rio__dtype_view_monotone) goes region by region in stream order */
    enum rio_indep_method m =
        rio__dtype_view_monotone(req->filetype, req->file_start, req->nbytes)
            ? rio__indep_choose(req)
            : RIO_INDEP_POSIX;
    if (m == RIO_INDEP_CONTIG && one_region(req, &rc, done))
        return rc;
    if (stage_wanted(req, m))
        return staged_rw(req, m, done);
    rc = rio__indep_pairs_init(&c, req);
    if (rc)
        goto out;
    if (m == RIO_INDEP_AUTO) /* the chooser's answer is never auto; a caller's may be */
        m = RIO_INDEP_DTYPE;
    if ((int)m > RIO_INDEP_AUTO && m < RIO_INDEP_NMETHODS) {
        rc = method_run[m](req, &c);
    } else {
        rio__err_detail("unknown independent method %d", (int)m);
        rc = RIO_E_ARG;
    }
    *done = c.pos;
    if (stats)
        rio__stat_add(&stats->regions, c.fregions);
out:
    rio__indep_pairs_free(&c);
    return rc;
}
