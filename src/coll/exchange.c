/*
 * exchange.c — aggregation: rounds, exchange, aggregator I/O.
 *
 * Each rank cuts its own request (the pairs of request.c, in file order) into
 * pieces: runs that belong to one aggregator's domain and one round
 * (pieces.c).  Every rank can compute, from the summary alone, which
 * (aggregator, round) pairs each rank takes part in — its extent meets the
 * round's file span — so per round a requester sends each aggregator it
 * takes part with one metadata message (coordinates and lengths of its
 * pieces, possibly none) and one data message, and the aggregator knows
 * exactly whom to expect.  Nothing is exchanged between ranks that have
 * nothing to do with each other, and there is no all-to-all, in any round.
 * Per-rank memory: the rank's own pieces, one round buffer, and the
 * metadata of one round.  An aggregator's round is a list of steps
 * (aggregate_round): take every sender's metadata, gather the round's
 * groups, compute their coverage, fill the buffer from storage (reads,
 * read-modify-write), move the data, write in the agents' turn.
 *
 * Pieces of equal length at a fixed distance (a vector filetype's blocks)
 * travel as one group, from the datatype iterator to the round buffer: cut
 * once per domain and round, described by four metadata words (a single run
 * by two), their coverage computed period by period when the ranks' groups
 * interleave, and copied by strided loops.  A vector of ints spread over N
 * ranks (the ECIO pattern) thus costs a few operations per aggregator and
 * round plus one load and store per int, where piece by piece it cost the
 * cutting, 16 bytes of metadata, a merge step and a copy call per int.
 *
 * Data moves from and into user buffers through hindexed datatypes over
 * the pieces (no pack copy), and into the aggregator's round buffer at the
 * pieces' coordinates; pieces that follow each other in memory are one
 * plain message, and pieces only a few bytes long on average are packed
 * into one message instead (post_packed), which costs less than the type.
 * Only when two ranks' pieces overlap in one round (allowed for writes;
 * any one writer's value must win) and two or more ranks send to it is the
 * data staged and copied in rank order; with one sender its message lands
 * on the aggregator's own copy.  The aggregator's own pieces are copied,
 * not sent to itself.
 *
 * Writes skip holes with list I/O, or read-modify-write the round's span
 * as the plan says (rmw; under RIO_RMW_SMALL where round_rmw finds it
 * pays).  Reads read the round's span in one go when the holes are small
 * and by list I/O otherwise; they cover only bytes below end of file, since
 * each rank's request arrives cut there (coll.c), so nothing past the end
 * is read, shipped or written into a caller's buffer.  A storage error
 * does not end the rounds early: the rank keeps exchanging, skips further
 * storage requests, and returns its error for the caller to agree on.  Running out of memory in
 * a round does not either: the rank drains (see go_drain).
 */
#include "coll_int.h"
#include "tags.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define LIST_BATCH 1024

/* A group of pieces received (or own) at an aggregator in one round:
 * count runs of len bytes, stride apart from coord on.  Only the
 * coordinates matter there. */
struct rpiece {
    MPI_Offset coord, len, count, stride;
};

/* ---- messages --------------------------------------------------------------------- */

/* The runs of one message, where they already are: a requester's pieces
 * (at their memory), or an aggregator's copy of a rank's pieces (at
 * origin plus each coordinate), as groups (k: count runs, stride apart).
 * Nothing is copied out to address and length arrays first. */
struct runs {
    const struct rio_coll_piece *pc; /* group k: pc[k].mem, len, count, mstride */
    const struct rpiece *rp;         /* or: origin + rp[k].coord, len, count, stride */
    char *origin;
    MPI_Count n;
};

static inline char *run_at(const struct runs *r, MPI_Count k)
{
    return r->pc ? r->pc[k].mem : r->origin + r->rp[k].coord;
}

static inline MPI_Offset run_len(const struct runs *r, MPI_Count k)
{
    return r->pc ? r->pc[k].len : r->rp[k].len;
}

static inline MPI_Offset run_count(const struct runs *r, MPI_Count k)
{
    return r->pc ? r->pc[k].count : r->rp[k].count;
}

static inline MPI_Offset run_stride(const struct runs *r, MPI_Count k)
{
    return r->pc ? r->pc[k].mstride : r->rp[k].stride;
}

/* One past the last byte of group k. */
static inline char *run_end(const struct runs *r, MPI_Count k)
{
    return run_at(r, k) + (run_count(r, k) - 1) * run_stride(r, k) + run_len(r, k);
}

/* Copy the runs of r to (out = 0: from) the contiguous buffer buf. */
static void runs_copy(const struct runs *r, char *buf, int out)
{
    for (MPI_Count k = 0; k < r->n; k++) {
        MPI_Offset len = run_len(r, k), cnt = run_count(r, k), st = run_stride(r, k);
        if (out)
            rio__copy_strided(buf, len, run_at(r, k), st, len, cnt);
        else
            rio__copy_strided(run_at(r, k), st, buf, len, len, cnt);
        buf += len * cnt;
    }
}

/* A datatype over the runs at absolute addresses (relative to
 * MPI_BOTTOM), or a plain byte count when there is a single run. */
struct dt_msg {
    void *addr;
    int count;
    MPI_Datatype type;
};

static int make_msg(const struct runs *r, struct dt_msg *m)
{
    MPI_Count n = r->n, runs = 0;
    m->type = MPI_DATATYPE_NULL;
    for (MPI_Count k = 0; k < n; k++) {
        if (run_len(r, k) > INT_MAX)
            return RIO_E_OVERFLOW;
        runs += run_count(r, k);
    }
    if (runs == 1) {
        m->addr = run_at(r, 0);
        m->count = (int)run_len(r, 0);
        return 0;
    }
    if (n == 1) { /* one group: a vector */
        if (run_count(r, 0) > INT_MAX)
            return RIO_E_OVERFLOW;
        m->addr = run_at(r, 0);
        m->count = 1;
        if (MPI_Type_create_hvector((int)run_count(r, 0), (int)run_len(r, 0),
                                    (MPI_Aint)run_stride(r, 0), MPI_BYTE,
                                    &m->type) != MPI_SUCCESS ||
            MPI_Type_commit(&m->type) != MPI_SUCCESS)
            return RIO_E_NOMEM;
        return 0;
    }
    if (runs > INT_MAX)
        return RIO_E_OVERFLOW;
    int *bl = rio__pool_alloc(sizeof(int) * (size_t)runs);
    MPI_Aint *dp = rio__pool_alloc(sizeof(MPI_Aint) * (size_t)runs);
    int rc = 0;
    if (!bl || !dp) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    MPI_Count i = 0;
    for (MPI_Count k = 0; k < n; k++) {
        char *at = run_at(r, k);
        for (MPI_Offset j = 0; j < run_count(r, k); j++, i++, at += run_stride(r, k)) {
            bl[i] = (int)run_len(r, k);
            MPI_Get_address(at, &dp[i]);
        }
    }
    if (MPI_Type_create_hindexed((int)runs, bl, dp, MPI_BYTE, &m->type) != MPI_SUCCESS ||
        MPI_Type_commit(&m->type) != MPI_SUCCESS) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    m->addr = MPI_BOTTOM;
    m->count = 1;
out:
    rio__pool_free(bl);
    rio__pool_free(dp);
    return rc;
}

/* A message of tiny runs received into a contiguous buffer, to be copied
 * out to its runs once it has arrived.  The runs' pieces or metadata stay
 * where they are until then (the round's inflight_finish). */
struct unpack_job {
    char *buf;
    struct runs r;
};

/* Requests and types of one round, released together. */
struct inflight {
    MPI_Request *req;
    MPI_Datatype *types;
    void **bufs;
    int nreq, ntypes, nbufs, cap;
    struct unpack_job *jobs;
    int njobs, capjobs;
    long long copies;        /* bytes packed or unpacked */
};

static int inflight_reserve(struct inflight *f, int more)
{
    if (f->nreq + more <= f->cap && f->ntypes + more <= f->cap && f->nbufs + more <= f->cap)
        return 0;
    int cap = RIO_MAX(2 * f->cap, f->cap + more + 16);
    MPI_Request *r = rio__realloc(f->req, sizeof *r * (size_t)cap);
    if (r)
        f->req = r;
    MPI_Datatype *t = rio__realloc(f->types, sizeof *t * (size_t)cap);
    if (t)
        f->types = t;
    void **b = rio__realloc(f->bufs, sizeof *b * (size_t)cap);
    if (b)
        f->bufs = b;
    if (!r || !t || !b)
        return RIO_E_NOMEM;
    f->cap = cap;
    return 0;
}

static void inflight_finish(struct inflight *f)
{
    /* one wait each: gcc 12 misreads MPICH's MPI_STATUSES_IGNORE as an
     * empty array passed to MPI_Waitall */
    for (int i = 0; i < f->nreq; i++)
        MPI_Wait(&f->req[i], MPI_STATUS_IGNORE);
    for (int j = 0; j < f->njobs; j++) {
        runs_copy(&f->jobs[j].r, f->jobs[j].buf, 0);
        rio__pool_free(f->jobs[j].buf);
    }
    f->njobs = 0;
    for (int i = 0; i < f->ntypes; i++)
        MPI_Type_free(&f->types[i]);
    for (int i = 0; i < f->nbufs; i++)
        rio__pool_free(f->bufs[i]);
    f->nreq = f->ntypes = f->nbufs = 0;
}

static void inflight_free(struct inflight *f)
{
    inflight_finish(f);
    free(f->req);
    free(f->types);
    free(f->bufs);
    free(f->jobs);
}

/*
 * Runs this short on average are packed into one contiguous message (or
 * received into one and copied out) instead of described by a hindexed
 * type: building and committing a type of 10^4 four-byte blocks per round,
 * and MPI's walk over it, cost far more than the copy.
 */
#define PACK_RUN 256

/* Post the runs (nruns of them, tot bytes) as one packed message: 1 when
 * posted, 0 when they do not qualify, negative on error. */
static int post_packed(struct inflight *f, MPI_Comm comm, int send, int peer,
                       const struct runs *r, MPI_Offset nruns, MPI_Offset tot)
{
    if (nruns < 2 || tot / nruns > PACK_RUN || tot > INT_MAX)
        return 0;
    char *buf = rio__pool_alloc((size_t)(tot ? tot : 1));
    if (!buf)
        return RIO_E_NOMEM;
    if (send) {
        runs_copy(r, buf, 1);
        f->bufs[f->nbufs++] = buf;
        MPI_Isend(buf, (int)tot, MPI_BYTE, peer, RIO_TAG_DATA, comm, &f->req[f->nreq++]);
    } else {
        if (f->njobs == f->capjobs) {
            int cap = f->capjobs ? 2 * f->capjobs : 16;
            struct unpack_job *v = rio__realloc(f->jobs, sizeof *v * (size_t)cap);
            if (!v) {
                rio__pool_free(buf);
                return RIO_E_NOMEM;
            }
            f->jobs = v;
            f->capjobs = cap;
        }
        f->jobs[f->njobs++] = (struct unpack_job){buf, *r};
        MPI_Irecv(buf, (int)tot, MPI_BYTE, peer, RIO_TAG_DATA, comm, &f->req[f->nreq++]);
    }
    f->copies += tot;
    return 1;
}

/* Post a send or receive of the runs to/from peer.  *bytes: their length
 * together. */
static int post_runs(struct inflight *f, MPI_Comm comm, int send, int peer, const struct runs *r,
                     MPI_Offset *bytes)
{
    struct dt_msg m;
    int rc = inflight_reserve(f, 1);
    /* runs that follow each other in memory (a contiguous user buffer
     * whose bytes lie apart in the file) are one plain message */
    MPI_Count n = r->n;
    MPI_Offset tot = 0, nruns = 0;
    int plain = 1;
    for (MPI_Count k = 0; k < n; k++) {
        tot += run_len(r, k) * run_count(r, k);
        nruns += run_count(r, k);
        plain = plain && (run_count(r, k) == 1 || run_stride(r, k) == run_len(r, k)) &&
                (k == 0 || run_end(r, k - 1) == run_at(r, k));
    }
    *bytes = tot;
    if (!rc && nruns > 1 && plain && tot <= INT_MAX) {
        if (send)
            MPI_Isend(run_at(r, 0), (int)tot, MPI_BYTE, peer, RIO_TAG_DATA, comm,
                      &f->req[f->nreq++]);
        else
            MPI_Irecv(run_at(r, 0), (int)tot, MPI_BYTE, peer, RIO_TAG_DATA, comm,
                      &f->req[f->nreq++]);
        return 0;
    }
    if (!rc)
        rc = post_packed(f, comm, send, peer, r, nruns, tot);
    if (rc)
        return rc < 0 ? rc : 0;
    rc = make_msg(r, &m);
    if (rc)
        return rc;
    if (m.type != MPI_DATATYPE_NULL)
        f->types[f->ntypes++] = m.type;
    MPI_Datatype t = m.type != MPI_DATATYPE_NULL ? m.type : MPI_BYTE;
    if (send)
        MPI_Isend(m.addr, m.count, t, peer, RIO_TAG_DATA, comm, &f->req[f->nreq++]);
    else
        MPI_Irecv(m.addr, m.count, t, peer, RIO_TAG_DATA, comm, &f->req[f->nreq++]);
    return 0;
}

/* ---- the rounds --------------------------------------------------------------------- */

/* A batch of file regions and the round-buffer pieces that go with them. */
struct batch {
    struct rio_region reg[LIST_BATCH];
    struct iovec iov[LIST_BATCH];
    int n;
};

struct engine {
    struct rio_coll_call *c;
    struct rio_coll_plan *p;
    struct rio_coll_plist *mine; /* per aggregator: this rank's pieces */
    MPI_Comm comm;
    char **buf_of;           /* per aggregator: its round buffer, where this rank can
                                reach it (own roles; node-shared ones with shm) */
    int shm;                 /* node-local requesters copy into shared round buffers */
    const int *node_rank;    /* with shm: rank in the node communicator, -1 off node */
    MPI_Count *sl_first, *sl_n; /* per aggregator: this rank's slice of the round */
    int err;                 /* first storage error of this rank */
    int defer;               /* writes of this round's roles go out together, after
                                the last role (see the round loop) */
    struct inflight *sends;  /* when set, completed before this rank's storage write
                                (see the round loop) */
    /* per round, per aggregator role of this rank */
    struct rpiece *rp;
    MPI_Count nrp, caprp;
    struct rpiece **metas;   /* per rank: its groups of the round (decoded metadata) */
    MPI_Count *nmeta, *run;  /* per rank: their count; where its run starts in rp */
    struct batch *batch;     /* storage requests being built (32 KiB, on the caller's
                                stack and not zeroed: the engine is, every call) */
    size_t slot_bytes;       /* length of a role's round buffer */
    int drain;               /* nonzero (the cause): this rank only drains, see below */
    MPI_Errhandler errh;     /* the communicator's handler before draining */
};

/*
 * Draining.  A rank whose memory runs out (or whose message would not fit
 * an int count) in the middle of the rounds cannot just stop: the others
 * have posted messages to it or wait for its own.  From then on it drains:
 * it takes every message of the remaining rounds that is meant for it and
 * answers every one that is expected of it, but moves no data and makes
 * no storage requests; the call then fails with e->drain, which the
 * caller agrees on.  A message it has no room for is received into
 * nothing (truncated; errors are returned on the engine's communicator
 * while it drains); a requester sends DRAIN_META (a word count of -1)
 * instead of its metadata, and then no data; an aggregator
 * answers a read with an empty message.  The arrays the protocol itself
 * needs (per-rank metadata slots, request slots) are allocated before the
 * rounds, where failure is agreed on.
 */
static const MPI_Offset DRAIN_META[1] = {-1};

static void go_drain(struct engine *e, int cause)
{
    if (!e->drain) {
        MPI_Comm_get_errhandler(e->comm, &e->errh);
        MPI_Comm_set_errhandler(e->comm, MPI_ERRORS_RETURN);
        e->drain = cause;
    }
}

/* Take a message of at most len bytes (len < 0: unknown) from peer into
 * the round buffer of role a when it fits, else into nothing.  Messages
 * are taken into the buffer where possible: Open MPI 4.1's shared-memory
 * transport fails to truncate a large message received into nothing. */
static void drain_recv(struct engine *e, int a, int peer, int tag, MPI_Offset len)
{
    if (len >= 0 && len <= (MPI_Offset)e->slot_bytes && e->slot_bytes <= INT_MAX)
        MPI_Recv(e->buf_of[a], (int)e->slot_bytes, MPI_BYTE, peer, tag, e->comm,
                 MPI_STATUS_IGNORE);
    else
        MPI_Recv(NULL, 0, MPI_BYTE, peer, tag, e->comm, MPI_STATUS_IGNORE);
}

/* The data message of peer's pieces for role a in this round, when this
 * aggregator drains: taken (write; one rank's pieces of a round never
 * overlap, so they fit the round buffer) or answered empty (read). */
static void drain_data(struct engine *e, int a, int peer, int write)
{
    if (write)
        drain_recv(e, a, peer, RIO_TAG_DATA, (MPI_Offset)e->slot_bytes);
    else
        MPI_Send(NULL, 0, MPI_BYTE, peer, RIO_TAG_DATA, e->comm);
}

static int cmp_rpiece(const void *x, const void *y)
{
    const struct rpiece *a = x, *b = y;
    if (a->coord != b->coord)
        return a->coord < b->coord ? -1 : 1;
    return a->len < b->len ? -1 : a->len > b->len;
}

/* Bring e->rp into at most two ascending runs, [0, mid) and [mid, nrp),
 * and return mid; coverage merges the last two.  The pieces arrive as one
 * run per rank (run[i] .. run[i+1]), each in ascending coord when the view
 * is monotonic, as MPI's views are: then the runs are merged pairwise,
 * log2(runs) - 1 passes over the pieces, instead of sorted from scratch
 * (the sort of 10^5 tiny pieces per round was a third of a fine-grained
 * call), and two ranks need no pass at all.  Falls back to qsort if a run
 * is not ascending or there is no memory for the merge. */
static MPI_Count sort_pieces(struct engine *e, MPI_Count *run, int nrun)
{
    struct rpiece *v = e->rp, *tmp = NULL;
    int sorted = 1;
    for (int i = 0; i < nrun && sorted; i++)
        for (MPI_Count k = run[i] + 1; k < run[i + 1]; k++)
            if (v[k].coord < v[k - 1].coord) {
                sorted = 0;
                break;
            }
    if (sorted && nrun <= 2)
        return run[1];
    if (sorted)
        tmp = rio__pool_alloc(sizeof *tmp * (size_t)e->nrp);
    if (!tmp) {
        qsort(v, (size_t)e->nrp, sizeof *v, cmp_rpiece);
        return e->nrp;
    }
    struct rpiece *src = v, *dst = tmp;
    int width = 1;
    for (; 2 * width < nrun; width *= 2) {
        for (int i = 0; i < nrun; i += 2 * width) {
            MPI_Count a = run[i], am = run[RIO_MIN(i + width, nrun)],
                      bm = run[RIO_MIN(i + 2 * width, nrun)], b = am, o = a;
            while (a < am && b < bm)
                dst[o++] = src[b].coord < src[a].coord ? src[b++] : src[a++];
            while (a < am)
                dst[o++] = src[a++];
            while (b < bm)
                dst[o++] = src[b++];
        }
        struct rpiece *t = src;
        src = dst;
        dst = t;
    }
    if (src != v) { /* the merged order ended in tmp: keep tmp, not a copy */
        e->rp = src;
        e->caprp = e->nrp;
        tmp = v;
    }
    rio__pool_free(tmp);
    return run[RIO_MIN(width, nrun)];
}

/* This rank's pieces for aggregator a in round r: [*first, *first + *n). */
static void my_slice(struct engine *e, int a, int r, MPI_Count *first, MPI_Count *n)
{
    struct rio_coll_plist *l = &e->mine[a];
    MPI_Count k = l->pos;
    while (k < l->n && l->v[k].round < r)
        k++;
    *first = k;
    while (k < l->n && l->v[k].round == r)
        k++;
    *n = k - *first;
    l->pos = k;
}

/* Covered coordinate intervals of the round, merged, from e->rp's two
 * ascending runs [0, mid) and [mid, nrp) (see sort_pieces). */
static MPI_Count coverage(struct engine *e, MPI_Count mid, MPI_Offset *lo, MPI_Offset *hi,
                          int *overlap)
{
    const struct rpiece *v = e->rp;
    MPI_Count n = 0, a = 0, b = mid;
    *overlap = 0;
    while (a < mid || b < e->nrp) {
        const struct rpiece *q = b >= e->nrp || (a < mid && v[a].coord <= v[b].coord) ? &v[a++]
                                                                                       : &v[b++];
        MPI_Offset s = q->coord, t = s + q->len;
        if (n > 0 && s < hi[n - 1])
            *overlap = 1;
        if (n > 0 && s <= hi[n - 1]) {
            hi[n - 1] = RIO_MAX(hi[n - 1], t);
        } else {
            lo[n] = s;
            hi[n] = t;
            n++;
        }
    }
    return n;
}

static int cmp_coord(const void *x, const void *y)
{
    const struct rpiece *a = x, *b = y;
    return a->coord < b->coord ? -1 : a->coord > b->coord;
}

/* Append [s, t) to the n intervals of lo/hi, merged with the last when
 * they touch (the caller hands them out in ascending order). */
static void emit(MPI_Offset *lo, MPI_Offset *hi, MPI_Count *n, MPI_Offset s, MPI_Offset t)
{
    if (*n > 0 && s == hi[*n - 1]) {
        hi[*n - 1] = t;
        return;
    }
    lo[*n] = s;
    hi[*n] = t;
    (*n)++;
}

/*
 * Coverage of a round whose groups interleave within one period: every
 * group (count > 1) has the same stride S, their first runs lie in one
 * period [c0, c0 + S) in ascending order without overlapping, and their
 * counts are m or m - 1 with the m's first (a domain or round boundary
 * cuts the last period) — the ints of ECIO's N ranks, noncontig's
 * columns.  Their runs then never overlap and repeat the first period's
 * intervals S apart, so the coverage follows from the groups: one
 * interval when the first period is covered whole, else the period's
 * intervals m times, without sorting or merging runs.  Single runs (a run
 * cut at a boundary) may lie before or after the groups.  Returns the
 * intervals' count, with *lo, *hi rio__pool_alloc'ed; -1 when the round is
 * not of this shape or memory is short (coverage then goes run by run).
 */
static MPI_Count periodic_coverage(const struct engine *e, MPI_Offset **plo, MPI_Offset **phi)
{
    const struct rpiece *v = e->rp;
    MPI_Count ng = 0, ns = 0, runs = 0, n = -1;
    for (MPI_Count k = 0; k < e->nrp; k++) {
        ng += v[k].count > 1;
        runs += v[k].count;
    }
    if (ng == 0)
        return -1;
    struct rpiece *g = rio__pool_alloc(sizeof *g * (size_t)e->nrp);
    if (!g)
        return -1;
    struct rpiece *sg = g + ng;
    MPI_Count gk = 0;
    for (MPI_Count k = 0; k < e->nrp; k++) {
        if (v[k].count > 1)
            g[gk++] = v[k];
        else
            sg[ns++] = v[k];
    }
    qsort(g, (size_t)ng, sizeof *g, cmp_coord);
    qsort(sg, (size_t)ns, sizeof *sg, cmp_coord);
    MPI_Offset S = g[0].stride, c0 = g[0].coord, m = g[0].count, end = 0;
    int tiles = 1;
    for (MPI_Count k = 0; k < ng; k++) {
        MPI_Offset next = k + 1 < ng ? g[k + 1].coord : c0 + S;
        if (g[k].stride != S || g[k].coord + g[k].len > next ||
            (g[k].count != m && g[k].count != m - 1) || (k > 0 && g[k].count > g[k - 1].count))
            goto out;
        tiles = tiles && g[k].coord + g[k].len == next;
        end = RIO_MAX(end, g[k].coord + (g[k].count - 1) * S + g[k].len);
    }
    for (MPI_Count k = 0; k < ns; k++)
        if ((sg[k].coord + sg[k].len > c0 && sg[k].coord < end) ||
            (k > 0 && sg[k - 1].coord + sg[k - 1].len > sg[k].coord))
            goto out;
    MPI_Count cap = (tiles ? 1 : runs) + ns;
    MPI_Offset *lo = rio__pool_alloc(sizeof *lo * (size_t)cap);
    MPI_Offset *hi = rio__pool_alloc(sizeof *hi * (size_t)cap);
    if (!lo || !hi) {
        rio__pool_free(lo);
        rio__pool_free(hi);
        goto out;
    }
    MPI_Count k = 0;
    n = 0;
    for (; k < ns && sg[k].coord < c0; k++)
        emit(lo, hi, &n, sg[k].coord, sg[k].coord + sg[k].len);
    if (tiles)
        emit(lo, hi, &n, c0, end);
    else
        for (MPI_Offset q = 0; q < m; q++)
            for (MPI_Count j = 0; j < ng && q < g[j].count; j++)
                emit(lo, hi, &n, g[j].coord + q * S, g[j].coord + q * S + g[j].len);
    for (; k < ns; k++)
        emit(lo, hi, &n, sg[k].coord, sg[k].coord + sg[k].len);
    *plo = lo;
    *phi = hi;
out:
    rio__pool_free(g);
    return n;
}

/* Turn e->rp's groups into single runs, in place (the array grows to
 * hold them), and run[0..nrun] into the runs' positions.  Errors:
 * RIO_E_NOMEM. */
static int expand_groups(struct engine *e, MPI_Count *run, int nrun)
{
    MPI_Count total = 0;
    for (MPI_Count k = 0; k < e->nrp; k++)
        total += e->rp[k].count;
    if (total == e->nrp)
        return 0;
    if (total > e->caprp) {
        struct rpiece *v = rio__pool_realloc(e->rp, sizeof *v * (size_t)total);
        if (!v)
            return RIO_E_NOMEM;
        e->rp = v;
        e->caprp = total;
    }
    /* from the back: group k's runs land at or after position k, so no
     * group is overwritten before it is read */
    MPI_Count to = total, old_end = run[nrun];
    for (int i = nrun - 1; i >= 0; i--) {
        MPI_Count old_start = run[i];
        run[i + 1] = to;
        for (MPI_Count k = old_end - 1; k >= old_start; k--) {
            struct rpiece q = e->rp[k];
            for (MPI_Offset j = q.count - 1; j >= 0; j--)
                e->rp[--to] = (struct rpiece){q.coord + j * q.stride, q.len, 1, 0};
        }
        old_end = old_start;
    }
    run[0] = to;
    e->nrp = total;
    return 0;
}

static int batch_flush(struct rio_store *st, int write, struct batch *b)
{
    int rc = 0;
    if (b->n == 0)
        return 0;
    if (write) {
        rc = rio__store_write_list(st, b->reg, b->iov, b->n);
    } else {
        MPI_Offset got = 0;
        rc = rio__store_read_list(st, b->reg, b->iov, b->n, &got);
        /* Past end of file the round holds zeros.  A write round's
         * read-modify-write reads its span, which may reach past the end:
         * the holes there must be written back as zeros.  A read round
         * asks only for bytes below the end (coll.c cuts each request
         * there), so a short read means the file shrank during the call,
         * and the callers then get zeros, never another round's leftovers. */
        for (int j = 0; !rc && j < b->n; j++) {
            MPI_Offset keep = RIO_MIN(got, b->reg[j].len);
            memset((char *)b->iov[j].iov_base + keep, 0, (size_t)(b->reg[j].len - keep));
            got -= keep;
        }
    }
    b->n = 0;
    return rc;
}

/* Move coordinate intervals [lo[k], hi[k]) of aggregator a between the
 * round buffer (coordinate wbase at its start) and storage, as list I/O
 * in ascending file order. */
static int storage_io(struct engine *e, int a, int write, const MPI_Offset *lo,
                      const MPI_Offset *hi, MPI_Count n, MPI_Offset wbase)
{
    struct rio_coll_call *c = e->c;
    const struct rio_coll_domain *d = &e->p->dom[a];
    struct rio_store *st = c->req->st;
    struct batch *b = e->batch;
    MPI_Offset unit = d->kind == RIO_DOM_TARGETS ? c->layout.unit : 0;
    char *buf = e->buf_of[a];
    int rc = 0, defer = write && e->defer;

    if (!defer)
        b->n = 0;
    for (MPI_Count k = 0; k < n && !rc; k++) {
        /* one interval is several file regions when it spans stripes */
        for (MPI_Offset x = lo[k]; x < hi[k] && !rc;) {
            MPI_Offset len = unit ? RIO_MIN(hi[k] - x, unit - x % unit) : hi[k] - x;
            MPI_Offset f = rio__coll_fileoff(c, d, x);
            char *m = buf + (x - wbase);
            struct rio_region *lr = b->n ? &b->reg[b->n - 1] : NULL;
            if (lr && lr->off + lr->len == f &&
                (char *)b->iov[b->n - 1].iov_base + b->iov[b->n - 1].iov_len == m) {
                lr->len += len;
                b->iov[b->n - 1].iov_len += (size_t)len;
            } else {
                if (b->n == LIST_BATCH)
                    rc = batch_flush(st, write, b);
                b->reg[b->n] = (struct rio_region){f, len};
                b->iov[b->n] = (struct iovec){m, (size_t)len};
                b->n++;
            }
            x += len;
        }
    }
    if (!rc && !defer)
        rc = batch_flush(st, write, b);
    return rc;
}

/* Move the round's whole span, from its first covered byte to its last,
 * holes included, in one request. */
static int span_io(struct engine *e, int a, int write, const MPI_Offset *lo, const MPI_Offset *hi,
                   MPI_Count ncov, MPI_Offset wbase)
{
    MPI_Offset l = lo[0], h = hi[ncov - 1];
    return storage_io(e, a, write, &l, &h, 1, wbase);
}

/* The bytes between the round's first and last covered byte that its
 * ncov >= 1 intervals leave out; *cov: the bytes they cover. */
static MPI_Offset round_holes(const MPI_Offset *lo, const MPI_Offset *hi, MPI_Count ncov,
                              MPI_Offset *cov)
{
    *cov = 0;
    for (MPI_Count k = 0; k < ncov; k++)
        *cov += hi[k] - lo[k];
    return hi[ncov - 1] - lo[0] - *cov;
}

/*
 * Whether a write round with ncov > 1 covered intervals reads and writes
 * its span whole.  Under RIO_RMW_SMALL it does when the holes are small: a
 * mean hole of at most RMW_HOLE_MAX bytes, and at most twice as many hole
 * bytes as data bytes.  A storage call saved is worth a few microseconds
 * (2-3 us per small pwrite on the ext4 disk here), about what copying
 * 16 KiB in and out of the page cache costs; a hole that later writes fill
 * gets its pages either way.  A hole that stays empty costs fresh pages,
 * so the bytes written are bounded: at most three times the data.
 */
#define RMW_HOLE_MAX 16384
static int round_rmw(enum rio_coll_rmw rmw, const MPI_Offset *lo, const MPI_Offset *hi,
                     MPI_Count ncov)
{
    if (rmw == RIO_RMW_NEVER || ncov < 2)
        return 0;
    if (rmw == RIO_RMW_ALWAYS)
        return 1;
    MPI_Offset cov, holes = round_holes(lo, hi, ncov, &cov);
    return holes <= 2 * cov && holes <= RMW_HOLE_MAX * (MPI_Offset)(ncov - 1);
}

/* The other ranks whose data for this round come as messages (with shm,
 * ranks of this node copy themselves). */
static int senders(const struct engine *e)
{
    const struct rio_coll_call *c = e->c;
    int n = 0;
    for (int i = 0; i < c->nprocs; i++)
        n += i != c->rank && e->nmeta[i] && !(e->shm && e->node_rank[i] >= 0);
    return n;
}

/*
 * Metadata on the wire: a requester's groups of one round in order, a
 * single run as (coord, len) and a group as (coord, -len, count, stride),
 * so that fine-grained requests that form no groups send two words a run
 * as before.  The words follow their count, and go in one message of at
 * most META_HEAD words, the rest (if any) in a second one: the aggregator
 * receives the first into a buffer of that size posted in advance rather
 * than probing for it.  (MPI_Probe polls: SimGrid's SMPI runs it as
 * MPI_Iprobe and a simulated pause in a loop, and the pauses counted as
 * simulated time.)  A count of -1 is DRAIN_META.
 */
#define META_HEAD 64

static MPI_Count meta_encode(const struct rio_coll_piece *v, MPI_Count n, MPI_Offset *w)
{
    MPI_Count k = 0;
    for (MPI_Count j = 0; j < n; j++) {
        w[k++] = v[j].coord;
        if (v[j].count == 1) {
            w[k++] = v[j].len;
        } else {
            w[k++] = -v[j].len;
            w[k++] = v[j].count;
            w[k++] = v[j].cstride;
        }
    }
    return k;
}

/* The groups of nw metadata words, into a rio__pool_alloc'ed array
 * (*out, NULL when there are none); returns their count or RIO_E_NOMEM. */
static MPI_Count meta_decode(const MPI_Offset *w, MPI_Count nw, struct rpiece **out)
{
    MPI_Count n = 0;
    *out = NULL;
    for (MPI_Count k = 0; k + 1 < nw; k += w[k + 1] < 0 ? 4 : 2)
        n++;
    if (n == 0)
        return 0;
    struct rpiece *v = rio__pool_alloc(sizeof *v * (size_t)n);
    if (!v)
        return RIO_E_NOMEM;
    n = 0;
    for (MPI_Count k = 0; k + 1 < nw; n++) {
        if (w[k + 1] >= 0) {
            v[n] = (struct rpiece){w[k], w[k + 1], 1, 0};
            k += 2;
        } else {
            v[n] = (struct rpiece){w[k], -w[k + 1], w[k + 2], w[k + 3]};
            k += 4;
        }
    }
    *out = v;
    return n;
}

/* The metadata of rank i for this round into e->metas[i], e->nmeta[i].
 * nmeta[i] is nonzero exactly when i sends data (it does unless it drains
 * or has no pieces); when this rank drains, metas[i] stays NULL. */
static void take_meta(struct engine *e, int a, int i)
{
    MPI_Offset head[META_HEAD];
    MPI_Status st;
    int cnt = 0;
    MPI_Recv(head, META_HEAD, MPI_OFFSET, i, RIO_TAG_META, e->comm, &st);
    MPI_Get_count(&st, MPI_OFFSET, &cnt);
    /* the words i sends (-1: i drains and sends no data), those that came
     * with the count, and those in a second message */
    MPI_Offset nw = cnt > 0 ? head[0] : -1;
    MPI_Offset have = RIO_MAX(RIO_MIN((MPI_Offset)cnt - 1, nw), 0), rest = nw - have;
    MPI_Offset *w = NULL;
    e->nmeta[i] = nw > 0;
    if (!e->drain && nw > 0) {
        w = rio__pool_alloc(sizeof(MPI_Offset) * (size_t)nw);
        if (!w)
            go_drain(e, RIO_E_NOMEM);
    }
    if (!w) {
        if (rest > 0)
            drain_recv(e, a, i, RIO_TAG_META, rest * (MPI_Offset)sizeof(MPI_Offset));
        return;
    }
    memcpy(w, head + 1, sizeof *w * (size_t)have);
    if (rest > 0)
        MPI_Recv(w + have, (int)rest, MPI_OFFSET, i, RIO_TAG_META, e->comm, MPI_STATUS_IGNORE);
    MPI_Count n = meta_decode(w, nw, &e->metas[i]);
    rio__pool_free(w);
    if (n > 0)
        e->nmeta[i] = n;
    else
        go_drain(e, RIO_E_NOMEM);
}

/* Copy this rank's own groups [first, first + n) for role a between
 * memory and the round buffer buf (coordinate wbase at its start). */
static void own_copy(struct engine *e, int a, MPI_Count first, MPI_Count n, char *buf,
                     MPI_Offset wbase)
{
    int write = e->c->req->write;
    for (MPI_Count k = 0; k < n; k++) {
        const struct rio_coll_piece *q = &e->mine[a].v[first + k];
        char *b = buf + (q->coord - wbase);
        if (write)
            rio__copy_strided(b, q->cstride, q->mem, q->mstride, q->len, q->count);
        else
            rio__copy_strided(q->mem, q->mstride, b, q->cstride, q->len, q->count);
        e->c->copies += q->len * q->count;
    }
}

/* One round of one aggregator role of this rank, as its steps share it. */
struct round {
    int a, r;                /* the role (aggregator index) and the round */
    int write;
    const struct rio_coll_domain *d;
    char *cbuf;              /* the role's round buffer */
    MPI_Offset wbase;        /* coordinate at the start of cbuf */
    MPI_Count own_first, own_n; /* this rank's own groups in the round */
    int nrun;                /* ranks taking part: e->run[0 .. nrun] */
    MPI_Offset *lo, *hi;     /* coverage: ncov disjoint coordinate spans */
    MPI_Count ncov;
    int overlap;             /* some pieces of different ranks overlap */
    int rmw;                 /* a write by read-modify-write of the span */
};

/* Step 1: learn what every rank taking part sends, so the round's size is
 * known before anything is allocated.  Returns the groups in all. */
static MPI_Count round_meta(struct engine *e, struct round *R)
{
    struct rio_coll_call *c = e->c;
    MPI_Count total = 0;
    for (int i = 0; i < c->nprocs; i++) {
        e->metas[i] = NULL;
        e->nmeta[i] = 0;
        if (!rio__coll_takes_part(c, e->p, i, R->a, R->r))
            continue;
        if (i == c->rank) {
            my_slice(e, R->a, R->r, &R->own_first, &R->own_n);
            total += R->own_n;
        } else {
            take_meta(e, R->a, i);
            total += e->nmeta[i];
        }
    }
    return total;
}

/* Step 2: the round's groups, one run per rank taking part, in one array
 * sized once (growing it piece by piece copied it a dozen times a call). */
static void round_gather(struct engine *e, struct round *R, MPI_Count total)
{
    struct rio_coll_call *c = e->c;
    if (!e->drain && total > e->caprp) {
        struct rpiece *v = rio__pool_realloc(e->rp, sizeof *v * (size_t)total);
        if (v) {
            e->rp = v;
            e->caprp = total;
        } else {
            go_drain(e, RIO_E_NOMEM);
        }
    }
    for (int i = 0; i < c->nprocs; i++) {
        if (!rio__coll_takes_part(c, e->p, i, R->a, R->r))
            continue;
        e->run[R->nrun++] = e->nrp;
        if (e->drain)
            continue;
        if (i == c->rank) {
            for (MPI_Count k = 0; k < R->own_n; k++) {
                const struct rio_coll_piece *q = &e->mine[R->a].v[R->own_first + k];
                e->rp[e->nrp++] = (struct rpiece){q->coord, q->len, q->count, q->cstride};
            }
        } else {
            for (MPI_Count k = 0; k < e->nmeta[i]; k++)
                e->rp[e->nrp++] = e->metas[i][k];
        }
    }
    e->run[R->nrun] = e->nrp;
}

/* Step 3: which coordinates the round covers, as few disjoint spans (the
 * storage requests), and whether a write goes by read-modify-write. */
static void round_cover(struct engine *e, struct round *R)
{
    if (!e->drain && e->nrp > 0) { /* an empty round has no array at all */
        R->ncov = periodic_coverage(e, &R->lo, &R->hi);
        if (R->ncov < 0) {
            int xrc = expand_groups(e, e->run, R->nrun);
            MPI_Count mid = xrc || e->nrp < 2 ? e->nrp : sort_pieces(e, e->run, R->nrun);
            R->lo = xrc ? NULL : rio__pool_alloc(sizeof *R->lo * (size_t)(e->nrp + 1));
            R->hi = xrc ? NULL : rio__pool_alloc(sizeof *R->hi * (size_t)(e->nrp + 1));
            R->ncov = 0;
            if (!R->lo || !R->hi)
                go_drain(e, RIO_E_NOMEM);
            else
                R->ncov = coverage(e, mid, R->lo, R->hi, &R->overlap);
        }
    }
    R->rmw = R->write && !e->drain && round_rmw(e->p->rmw, R->lo, R->hi, R->ncov);
}

/* Step 4: storage into the round buffer before the data moves: a read's
 * data, or the span a read-modify-write write fills in. */
static void round_fill(struct engine *e, struct round *R)
{
    if (!R->write && R->ncov > 0 && !e->err && !e->drain) {
        /* one read over the span when the holes are small, else list I/O */
        MPI_Offset cov;
        if (round_holes(R->lo, R->hi, R->ncov, &cov) <= RIO_MAX(cov, (MPI_Offset)65536))
            e->err = span_io(e, R->a, 0, R->lo, R->hi, R->ncov, R->wbase);
        else
            e->err = storage_io(e, R->a, 0, R->lo, R->hi, R->ncov, R->wbase);
    } else if (R->write && R->rmw && !e->err && !e->drain) {
        e->err = span_io(e, R->a, 0, R->lo, R->hi, R->ncov, R->wbase);
    }
}

/* Step 5a: the data straight into (or out of) the round buffer: this
 * rank's pieces first, then a message per rank.  Overlapping writes take
 * this way too when a single rank sends: its message lands on this rank's
 * copy, so every overlapped byte holds one writer's value, and no two
 * pending receives share memory. */
static void round_data_direct(struct engine *e, struct round *R, struct inflight *f)
{
    struct rio_coll_call *c = e->c;
    if (!e->drain)
        own_copy(e, R->a, R->own_first, R->own_n, R->cbuf, R->wbase);
    for (int i = 0; i < c->nprocs; i++) {
        if (i == c->rank || !e->nmeta[i] || (e->shm && e->node_rank[i] >= 0))
            continue; /* with shm, ranks of this node copy themselves */
        struct runs rr = {.rp = e->metas[i], .origin = R->cbuf - R->wbase, .n = e->nmeta[i]};
        MPI_Offset bytes;
        int prc = e->drain ? e->drain : post_runs(f, e->comm, !R->write, i, &rr, &bytes);
        if (prc) {
            go_drain(e, prc);
            drain_data(e, R->a, i, R->write);
        }
    }
    if (R->write)
        inflight_finish(f);
}

/* Step 5b: overlapping writes from several ranks: stage each rank's data,
 * apply in rank order, so the highest rank's bytes win. */
static void round_data_staged(struct engine *e, struct round *R, struct inflight *f)
{
    struct rio_coll_call *c = e->c;
    char **stage = rio__calloc((size_t)c->nprocs, sizeof *stage);
    if (!stage)
        go_drain(e, RIO_E_NOMEM);
    for (int i = 0; i < c->nprocs; i++) {
        if (i == c->rank || !e->nmeta[i] || (e->shm && e->node_rank[i] >= 0))
            continue; /* with shm, ranks of this node have copied already */
        MPI_Offset tot = 0;
        for (MPI_Count k = 0; k < e->nmeta[i]; k++)
            tot += e->metas[i][k].len * e->metas[i][k].count;
        if (tot > INT_MAX)
            go_drain(e, RIO_E_OVERFLOW);
        if (!e->drain) {
            stage[i] = rio__pool_alloc((size_t)tot);
            if (!stage[i])
                go_drain(e, RIO_E_NOMEM);
        }
        if (e->drain || inflight_reserve(f, 1)) {
            go_drain(e, RIO_E_NOMEM);
            drain_data(e, R->a, i, 1);
            continue;
        }
        MPI_Irecv(stage[i], (int)tot, MPI_BYTE, i, RIO_TAG_DATA, e->comm, &f->req[f->nreq++]);
    }
    inflight_finish(f);
    for (int i = 0; i < c->nprocs && stage; i++) {
        if (i == c->rank && !e->drain) {
            own_copy(e, R->a, R->own_first, R->own_n, R->cbuf, R->wbase);
        } else if (stage[i] && !e->drain) {
            struct runs rr = {.rp = e->metas[i], .origin = R->cbuf - R->wbase,
                              .n = e->nmeta[i]};
            runs_copy(&rr, stage[i], 0);
            for (MPI_Count k = 0; k < e->nmeta[i]; k++)
                c->copies += e->metas[i][k].len * e->metas[i][k].count;
        }
        rio__pool_free(stage[i]);
    }
    free(stage);
}

/* Step 6: a write's storage requests, in the timed agents' turn: wait
 * for the turn, write, pass the turn on.  Member 0 of a group follows the
 * last member's previous round; the last member's turn after the final
 * round goes to nobody.  A draining rank passes its turns on too. */
static void round_write(struct engine *e, struct round *R)
{
    struct rio_coll_call *c = e->c;
    struct rio_coll_plan *p = e->p;
    int timed = R->write && p->prev_agent;
    if (timed) {
        int prev = p->prev_agent[R->a];
        if (prev >= 0 && p->aggs[prev] != c->rank && (R->d->member != 0 || R->r > 0))
            MPI_Recv(NULL, 0, MPI_BYTE, p->aggs[prev], RIO_TAG_TOKEN, e->comm, MPI_STATUS_IGNORE);
    }
    if (R->write && e->sends)
        inflight_finish(e->sends);
    if (R->write && R->ncov > 0 && !e->err && !e->drain) {
        if (R->rmw)
            e->err = span_io(e, R->a, 1, R->lo, R->hi, R->ncov, R->wbase);
        else
            e->err = storage_io(e, R->a, 1, R->lo, R->hi, R->ncov, R->wbase);
    }
    if (timed)
        for (int b = 0; b < p->naggs; b++)
            if (p->prev_agent[b] == R->a && p->aggs[b] != c->rank &&
                (p->dom[b].member != 0 || R->r + 1 < p->nrounds))
                MPI_Send(NULL, 0, MPI_BYTE, p->aggs[b], RIO_TAG_TOKEN, e->comm);
}

/* One aggregator role a of this rank in round r, as a list of steps.
 * Failures set e->drain (memory) or e->err (storage); the round's
 * messages are taken either way. */
static void aggregate_round(struct engine *e, int a, int r, struct inflight *f)
{
    struct rio_coll_call *c = e->c;
    struct round R = {
        .a = a, .r = r, .write = c->req->write, .d = &e->p->dom[a], .cbuf = e->buf_of[a],
        .wbase = e->p->dom[a].cbase + (MPI_Offset)r * e->p->round_bytes,
    };
    double t0 = rio__now();

    e->nrp = 0;
    round_gather(e, &R, round_meta(e, &R));
    round_cover(e, &R);
    round_fill(e, &R);
    if (!R.write || !R.overlap || senders(e) <= 1)
        round_data_direct(e, &R, f);
    else
        round_data_staged(e, &R, f);
    c->t_exchange += rio__now() - t0;
    round_write(e, &R);
    for (int i = 0; i < c->nprocs; i++)
        rio__pool_free(e->metas[i]);
    rio__pool_free(R.lo);
    rio__pool_free(R.hi);
}

/* This rank as a requester in round r: metadata and data to (or from)
 * every aggregator it takes part with.  The data message is posted before
 * the metadata, so that a failure to build it can still be announced
 * (DRAIN_META) to an aggregator that has not yet been told to expect it. */
static void request_round(struct engine *e, int r, struct inflight *f)
{
    struct rio_coll_call *c = e->c;
    struct rio_coll_plan *p = e->p;
    for (int a = 0; a < p->naggs; a++) {
        int ag = p->aggs[a];
        if (ag == c->rank || !rio__coll_takes_part(c, p, c->rank, a, r))
            continue;
        MPI_Count first, n;
        my_slice(e, a, r, &first, &n);
        e->sl_first[a] = first;
        e->sl_n[a] = n;
        int data = n > 0 && !(e->shm && e->node_rank[ag] >= 0);
        MPI_Offset *meta = NULL;
        int rc = e->drain ? e->drain : inflight_reserve(f, 3); /* slots made before the rounds */
        if (!rc) {
            meta = rio__pool_alloc(sizeof(MPI_Offset) * (size_t)(4 * n + 2));
            rc = meta ? 0 : RIO_E_NOMEM;
        }
        MPI_Offset bytes = 0;
        if (!rc && data) {
            struct runs rr = {.pc = e->mine[a].v + first, .n = n};
            rc = post_runs(f, e->comm, c->req->write, ag, &rr, &bytes);
        }
        if (rc) {
            rio__pool_free(meta);
            go_drain(e, rc);
            if (f->nreq < f->cap)
                MPI_Isend(DRAIN_META, 1, MPI_OFFSET, ag, RIO_TAG_META, e->comm, &f->req[f->nreq++]);
            else
                MPI_Send(DRAIN_META, 1, MPI_OFFSET, ag, RIO_TAG_META, e->comm);
            continue;
        }
        f->bufs[f->nbufs++] = meta;
        MPI_Count nw = meta_encode(e->mine[a].v + first, n, meta + 1) + 1;
        meta[0] = nw - 1;
        c->exchanged += bytes;
        MPI_Isend(meta, (int)RIO_MIN(nw, META_HEAD), MPI_OFFSET, ag, RIO_TAG_META, e->comm,
                  &f->req[f->nreq++]);
        if (nw > META_HEAD)
            MPI_Isend(meta + META_HEAD, (int)(nw - META_HEAD), MPI_OFFSET, ag, RIO_TAG_META,
                      e->comm, &f->req[f->nreq++]);
    }
}

/* With shm: this rank's pieces of round r for the aggregators of its node
 * (other than itself), copied into (write) or out of (read) their shared
 * round buffers, between two node barriers: the first waits until the
 * buffers are free (writes) or filled (reads), the second until every
 * copy is done. */
static void shm_copies(struct engine *e, int r)
{
    struct rio_coll_call *c = e->c;
    struct rio_coll_plan *p = e->p;
    MPI_Comm node = rio__coll_node_comm(c->ctx);
    MPI_Barrier(node);
    for (int a = 0; a < p->naggs; a++) {
        int ag = p->aggs[a];
        if (ag == c->rank || e->node_rank[ag] < 0 || !rio__coll_takes_part(c, p, c->rank, a, r))
            continue;
        MPI_Offset wbase = p->dom[a].cbase + (MPI_Offset)r * p->round_bytes;
        own_copy(e, a, e->sl_first[a], e->sl_n[a], e->buf_of[a], wbase);
    }
    MPI_Barrier(node);
}

/* Round buffers: one slot per aggregator role of a rank, in the rank's own
 * memory or, with shm, in the node's shared window where the ranks of the
 * node can reach it.  A slot holds a round: round_bytes, or less when no
 * domain is that long (a call of 2 MiB per target needs 2 MiB per role,
 * not cb_buffer_size per role).  Every rank computes the same slot size
 * from the plan.  Collective (shm decision). */
static int round_buffers(struct engine *e)
{
    struct rio_coll_call *c = e->c;
    struct rio_coll_plan *p = e->p;
    int *slot = rio__malloc(sizeof(int) * (size_t)p->naggs);
    int *roles = rio__calloc((size_t)c->nprocs, sizeof(int));
    e->buf_of = rio__calloc((size_t)p->naggs, sizeof *e->buf_of);
    e->sl_first = rio__calloc((size_t)p->naggs, sizeof *e->sl_first);
    e->sl_n = rio__calloc((size_t)p->naggs, sizeof *e->sl_n);
    int rc = slot && roles && e->buf_of && e->sl_first && e->sl_n ? 0 : RIO_E_NOMEM;
    MPI_Offset span = 1;
    for (int a = 0; !rc && a < p->naggs; a++) {
        slot[a] = roles[p->aggs[a]]++;
        span = RIO_MAX(span, p->dom[a].cend - p->dom[a].cbase);
    }
    size_t slot_bytes = (size_t)RIO_MIN(span, p->round_bytes);
    e->slot_bytes = slot_bytes;
    size_t mine = rc ? 0 : (size_t)roles[c->rank] * slot_bytes;
    MPI_Win win;
    /* with shm, ranks copy into the round buffer before its span could be
     * read: no read-modify-write unless asked for, and then no shm */
    if (rio__coll_settings(c->req->hints)->shm == RIO_ENABLE && p->rmw == RIO_RMW_SMALL)
        p->rmw = RIO_RMW_NEVER;
    int want = rio__coll_settings(c->req->hints)->shm == RIO_ENABLE && !p->rmw && !rc;
    e->shm = rio__coll_shm(c->ctx, want, mine, &win, &e->node_rank);
    for (int a = 0; !rc && a < p->naggs; a++) {
        int ag = p->aggs[a];
        if (e->shm && e->node_rank[ag] >= 0) {
            MPI_Aint size;
            int du;
            char *base;
            MPI_Win_shared_query(win, e->node_rank[ag], &size, &du, &base);
            e->buf_of[a] = base + (size_t)slot[a] * slot_bytes;
        } else if (ag == c->rank) {
            char *base = rio__coll_buffer(c->ctx, mine);
            if (!base)
                rc = RIO_E_NOMEM;
            else
                e->buf_of[a] = base + (size_t)slot[a] * slot_bytes;
        }
    }
    free(slot);
    free(roles);
    return rc;
}

/* Where the summary sent the rows to rank 0 only (c->rows_to_aggs), rank 0
 * sends them on to each aggregator of p once, which receives them into
 * c->sum; seen: P bytes of zeros on rank 0 (NULL elsewhere).  After the
 * setup's agreement, on every rank. */
static void rows_to_aggs(struct rio_coll_call *c, const struct rio_coll_plan *p, MPI_Comm comm,
                         char *seen)
{
    _Static_assert(sizeof(struct rio_coll_sum) == 4 * sizeof(MPI_Offset), "a row is 4 words");
    int words = 4 * c->nprocs;
    for (int a = 0; a < p->naggs && c->rank == 0; a++) {
        int to = p->aggs[a];
        if (to != 0 && !seen[to])
            MPI_Send(c->sum, words, MPI_OFFSET, to, RIO_TAG_ROWS, comm);
        seen[to] = 1;
    }
    for (int a = 0; a < p->naggs && c->rank != 0; a++)
        if (p->aggs[a] == c->rank) {
            MPI_Recv(c->sum, words, MPI_OFFSET, 0, RIO_TAG_ROWS, comm, MPI_STATUS_IGNORE);
            c->rows_at_root = 0;
            break;
        }
}

int rio__coll_exchange(struct rio_coll_call *c, struct rio_coll_plan *p)
{
    struct engine e;
    struct batch batch;
    struct inflight fr = {0}, fa = {0};
    int rc = p->failed; /* an empty plan: only the setup's collectives */
    memset(&e, 0, sizeof e);
    batch.n = 0;
    e.batch = &batch;
    e.c = c;
    e.p = p;
    e.comm = rio__coll_comm(c->ctx);

    /* domains' coordinate ranges and the number of rounds */
    p->nrounds = 0;
    for (int a = 0; a < p->naggs; a++) {
        int drc = rio__coll_domain_coords(c, &p->dom[a]);
        if (drc && !rc)
            rc = drc;
        MPI_Offset n = p->dom[a].cend - p->dom[a].cbase;
        int rounds = (int)((n + p->round_bytes - 1) / p->round_bytes);
        p->nrounds = RIO_MAX(p->nrounds, rounds);
    }
    e.mine = rio__calloc((size_t)p->naggs, sizeof *e.mine);
    if (!e.mine && !rc)
        rc = RIO_E_NOMEM;
    if (!rc)
        rc = rio__coll_cut_pieces(c, p, e.mine);
    int brc = round_buffers(&e);
    if (!rc)
        rc = brc;
    /* what the rounds' protocol needs, so that draining needs nothing:
     * request slots for every message of a round (a requester's three per
     * aggregator: data and metadata in one or two; an aggregator's one per
     * rank and role) */
    int roles = 0;
    for (int a = 0; a < p->naggs; a++)
        roles += p->aggs[a] == c->rank;
    e.metas = rio__calloc((size_t)c->nprocs, sizeof *e.metas);
    e.nmeta = rio__calloc((size_t)c->nprocs, sizeof *e.nmeta);
    e.run = rio__malloc(sizeof *e.run * ((size_t)c->nprocs + 1));
    /* rank 0 sends the summary's rows on to each aggregator once */
    char *seen = c->rows_to_aggs && c->rank == 0 ? rio__calloc((size_t)c->nprocs, 1) : NULL;
    if (!rc && (!e.metas || !e.nmeta || !e.run || inflight_reserve(&fr, 3 * p->naggs) ||
                inflight_reserve(&fa, roles * c->nprocs) ||
                (c->rows_to_aggs && c->rank == 0 && !seen)))
        rc = RIO_E_NOMEM;
    /* A local failure before the rounds must not leave others waiting: the
     * outcome is agreed on here, and a failed setup skips the rounds on
     * every rank together. */
    int any = rc ? 1 : 0, all = 0;
    MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, e.comm);
    if (all) {
        if (!rc)
            rc = RIO_E_REMOTE;
        free(seen);
        goto out;
    }
    if (c->rows_to_aggs)
        rows_to_aggs(c, p, e.comm, seen);
    free(seen);

    /* A rank with several roles (resonant's agent of more than one target)
     * writes them in one list after the last role, so that storage serving
     * targets in parallel (emu) gets them at once instead of one target
     * after the other.  Not for timed agents (each write is a turn) nor
     * read-modify-write rounds (their reads use the same batch). */
    e.defer = c->req->write && roles > 1 && !p->prev_agent && !p->rmw;
    /* A writer's data for other aggregators must be on its way before it
     * turns to storage: a large message may move only while its sender is
     * inside MPI, and two agents that each wait for the other's data and
     * then write would take turns at storage instead of writing at once.
     * Done once this rank's receives of the round are complete (one role,
     * or after the last deferred one); not for timed agents, whose turns
     * order the writes anyway. */
    e.sends = c->req->write && roles == 1 && !p->prev_agent ? &fr : NULL;
    for (int r = 0; r < p->nrounds; r++) {
        double t0 = rio__now();
        request_round(&e, r, &fr);
        if (e.shm && c->req->write)
            shm_copies(&e, r);
        c->t_exchange += rio__now() - t0;
        batch.n = 0;
        for (int a = 0; a < p->naggs; a++)
            if (p->aggs[a] == c->rank)
                aggregate_round(&e, a, r, &fa);
        if (e.defer && !e.drain && !e.err) {
            inflight_finish(&fr);
            e.err = batch_flush(c->req->st, 1, &batch);
        }
        batch.n = 0;
        t0 = rio__now();
        if (e.shm && !c->req->write)
            shm_copies(&e, r);
        inflight_finish(&fa);
        inflight_finish(&fr);
        c->t_exchange += rio__now() - t0;
    }
    rc = e.drain ? e.drain : e.err;
    if (e.drain) {
        MPI_Comm_set_errhandler(e.comm, e.errh);
        MPI_Errhandler_free(&e.errh);
    }
out:
    inflight_free(&fr);
    inflight_free(&fa);
    c->copies += fr.copies + fa.copies;
    if (e.mine)
        for (int a = 0; a < p->naggs; a++)
            rio__pool_free(e.mine[a].v);
    free(e.mine);
    rio__pool_free(e.rp);
    free(e.buf_of);
    free(e.sl_first);
    free(e.sl_n);
    free(e.metas);
    free(e.nmeta);
    free(e.run);
    return rc;
}
