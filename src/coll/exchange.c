/*
 * exchange.c — aggregation: pieces, rounds, exchange, aggregator I/O.
 *
 * Each rank cuts its own request (the pairs of coll.c, in file order) into
 * pieces: runs that belong to one aggregator's domain and one round.  Every
 * rank can compute, from the summary alone, which (aggregator, round)
 * pairs each rank takes part in — its extent meets the round's file span —
 * so per round a requester sends each aggregator it takes part with one
 * metadata message (coordinates and lengths of its pieces, possibly none)
 * and one data message, and the aggregator knows exactly whom to expect.
 * Nothing is exchanged between ranks that have nothing to do with each
 * other, and there is no all-to-all, in any round.  Per-rank memory: the
 * rank's own pieces, one round buffer, and the metadata of one round.
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
 * and by list I/O otherwise.  A storage error does not end the rounds
 * early: the rank keeps exchanging, skips further storage requests, and
 * returns its error for the caller to agree on.  Running out of memory in
 * a round does not either: the rank drains (see go_drain).
 */
#include "coll_int.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define TAG_META 11
#define TAG_DATA 12
#define TAG_TOKEN 13
#define LIST_BATCH 1024

struct piece {
    MPI_Offset coord, len;
    char *mem;
    int round;
};

struct plist {
    struct piece *v;
    MPI_Count n, cap, pos; /* pos: first piece not yet handed out */
    MPI_Count first_cap;   /* capacity of the first allocation */
};

/* A piece received (or own) at an aggregator in one round: only the
 * coordinates it covers matter (see coverage). */
struct rpiece {
    MPI_Offset coord, len;
};

/* ---- domain arithmetic --------------------------------------------------------- */

static int target_index(const struct rio_coll_domain *d, int t)
{
    int lo = 0, hi = d->ntargets - 1;
    while (lo <= hi) {
        int mid = (lo + hi) / 2;
        if (d->targets[mid] == t)
            return mid;
        if (d->targets[mid] < t)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1 - lo; /* insertion point, encoded */
}

/* The index of row among the rows of d's member (rows are dealt in runs of
 * chunk to the ngroup members in turn). */
static MPI_Offset member_row(const struct rio_coll_domain *d, MPI_Offset row)
{
    return row / (d->chunk * d->ngroup) * d->chunk + row % d->chunk;
}

static int row_is_members(const struct rio_coll_domain *d, MPI_Offset row)
{
    return (row / d->chunk) % d->ngroup == d->member;
}

MPI_Offset rio__coll_coord(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                           MPI_Offset off)
{
    if (off < d->start || off >= d->end)
        return -1;
    if (d->kind == RIO_DOM_RANGE)
        return off;
    MPI_Offset unit = c->layout.unit, s = off / unit, row = s / c->layout.count;
    int t = (int)(s % c->layout.count);
    if (!row_is_members(d, row))
        return -1;
    int idx = target_index(d, t);
    if (idx < 0)
        return -1;
    return (member_row(d, row) * d->ntargets + idx) * unit + off % unit;
}

MPI_Offset rio__coll_fileoff(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                             MPI_Offset x)
{
    if (d->kind == RIO_DOM_RANGE)
        return x;
    MPI_Offset unit = c->layout.unit, kk = x / unit, lrow = kk / d->ntargets;
    MPI_Offset row = (lrow / d->chunk * d->ngroup + d->member) * d->chunk + lrow % d->chunk;
    return (row * c->layout.count + d->targets[kk % d->ntargets]) * unit + x % unit;
}

/* The smallest coordinate of d whose byte lies at or after off. */
static MPI_Offset coord_ceil(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                             MPI_Offset off)
{
    if (d->kind == RIO_DOM_RANGE)
        return off;
    MPI_Offset unit = c->layout.unit, s = off / unit, row = s / c->layout.count;
    int t = (int)(s % c->layout.count), n = d->ntargets, g = d->ngroup;
    if (row_is_members(d, row)) {
        int idx = target_index(d, t);
        if (idx >= 0)
            return (member_row(d, row) * n + idx) * unit + off % unit;
        idx = -1 - idx;
        if (idx < n)
            return (member_row(d, row) * n + idx) * unit;
        row++;
    }
    MPI_Offset run = row / d->chunk;
    if (run % g != d->member) {
        run += ((d->member - run % g) % g + g) % g;
        row = run * d->chunk;
    }
    return member_row(d, row) * n * unit;
}

static void domain_coords(const struct rio_coll_call *c, struct rio_coll_domain *d)
{
    d->cbase = coord_ceil(c, d, d->start);
    d->cend = d->end > d->start ? coord_ceil(c, d, d->end) : d->cbase;
}

/* File bytes of round r of d: [*lo, *hi); empty when *lo >= *hi. */
static void round_span(const struct rio_coll_call *c, const struct rio_coll_plan *p,
                       const struct rio_coll_domain *d, int r, MPI_Offset *lo, MPI_Offset *hi)
{
    MPI_Offset x0 = d->cbase + (MPI_Offset)r * p->round_bytes;
    MPI_Offset x1 = RIO_MIN(x0 + p->round_bytes, d->cend);
    if (x0 >= x1) {
        *lo = *hi = 0;
        return;
    }
    *lo = rio__coll_fileoff(c, d, x0);
    *hi = rio__coll_fileoff(c, d, x1 - 1) + 1;
}

static int takes_part(const struct rio_coll_call *c, const struct rio_coll_plan *p, int i, int a,
                      int r)
{
    const struct rio_coll_sum *s = &c->sum[i];
    const struct rio_coll_domain *d = &p->dom[a];
    if (s->first >= s->end || (p->bypass && p->bypass[i]))
        return 0;
    if (d->node >= 0 && c->node_of[i] != d->node)
        return 0;
    MPI_Offset lo, hi;
    round_span(c, p, d, r, &lo, &hi);
    return lo < hi && s->first < hi && lo < s->end;
}

/* ---- which aggregator holds a byte ----------------------------------------------- */

struct lookup {
    int by_node;      /* node_first: the requester's node decides */
    int *node_agg;    /* node -> aggregator */
    int *tmap;        /* TARGETS: [t * maxng + (row / tchunk[t]) % tng[t]] -> aggregator */
    int *tng;
    MPI_Offset *tchunk;
    int maxng;
};

static void lookup_free(struct lookup *lk)
{
    free(lk->node_agg);
    free(lk->tmap);
    free(lk->tng);
    free(lk->tchunk);
}

static int lookup_build(const struct rio_coll_call *c, const struct rio_coll_plan *p,
                        struct lookup *lk)
{
    memset(lk, 0, sizeof *lk);
    if (p->dom[0].kind == RIO_DOM_RANGE && p->dom[0].node >= 0) {
        lk->by_node = 1;
        lk->node_agg = rio__malloc(sizeof(int) * (size_t)c->nnodes);
        if (!lk->node_agg)
            return RIO_E_NOMEM;
        for (int n = 0; n < c->nnodes; n++)
            lk->node_agg[n] = -1;
        for (int a = 0; a < p->naggs; a++)
            lk->node_agg[p->dom[a].node] = a;
        return 0;
    }
    if (p->dom[0].kind == RIO_DOM_RANGE)
        return 0;
    int T = c->layout.count;
    lk->maxng = 1;
    for (int a = 0; a < p->naggs; a++)
        lk->maxng = RIO_MAX(lk->maxng, p->dom[a].ngroup);
    lk->tmap = rio__malloc(sizeof(int) * (size_t)T * (size_t)lk->maxng);
    lk->tng = rio__calloc((size_t)T, sizeof(int));
    lk->tchunk = rio__calloc((size_t)T, sizeof(MPI_Offset));
    if (!lk->tmap || !lk->tng || !lk->tchunk)
        return RIO_E_NOMEM;
    for (int i = 0; i < T * lk->maxng; i++)
        lk->tmap[i] = -1;
    for (int a = 0; a < p->naggs; a++) {
        const struct rio_coll_domain *d = &p->dom[a];
        for (int k = 0; k < d->ntargets; k++) {
            lk->tng[d->targets[k]] = d->ngroup;
            lk->tchunk[d->targets[k]] = d->chunk;
            lk->tmap[d->targets[k] * lk->maxng + d->member] = a;
        }
    }
    return 0;
}

static int agg_of(const struct rio_coll_call *c, const struct rio_coll_plan *p,
                  const struct lookup *lk, MPI_Offset off)
{
    if (lk->by_node)
        return lk->node_agg[c->node_of[c->rank]];
    if (p->dom[0].kind == RIO_DOM_RANGE) {
        int lo = 0, hi = p->naggs - 1, found = -1;
        while (lo <= hi) { /* the last domain starting at or before off */
            int mid = (lo + hi) / 2;
            if (p->dom[mid].start <= off) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found >= 0 && off < p->dom[found].end ? found : -1;
    }
    MPI_Offset s = off / c->layout.unit;
    int t = (int)(s % c->layout.count);
    if (!lk->tng[t])
        return -1;
    MPI_Offset row = s / c->layout.count;
    return lk->tmap[t * lk->maxng + (int)((row / lk->tchunk[t]) % lk->tng[t])];
}

/* ---- cutting the own request into pieces ---------------------------------------- */

static int plist_add(struct plist *l, MPI_Offset coord, MPI_Offset len, char *mem, int round)
{
    if (l->n > 0) { /* extend the previous piece when both sides continue it */
        struct piece *q = &l->v[l->n - 1];
        if (q->round == round && q->coord + q->len == coord && q->mem + q->len == mem) {
            q->len += len;
            return 0;
        }
    }
    if (l->n == l->cap) {
        MPI_Count cap = l->cap ? 2 * l->cap : RIO_MAX(l->first_cap, 64);
        struct piece *v = rio__pool_realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return RIO_E_NOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = (struct piece){coord, len, mem, round};
    return 0;
}

/* Cutting state: where pieces go, and the last cut's window, file bytes
 * [wlo, whi) that lie in one aggregator's domain and round at a fixed
 * distance from their coordinates.  Pairs of a fine-grained request fall
 * in it one after the other and skip the lookup and the divisions. */
struct cutter {
    const struct rio_coll_call *c;
    const struct rio_coll_plan *p;
    const struct lookup *lk;
    struct plist *lists;
    MPI_Offset wlo, whi, delta;
    int wa, wr;
};

static int cut_batch(void *arg, const struct rio_coll_pair *v, int npairs)
{
    struct cutter *t = arg;
    const struct rio_coll_call *c = t->c;
    const struct rio_coll_plan *p = t->p;
    for (int k = 0; k < npairs; k++) {
        MPI_Offset off = v[k].foff, left = v[k].len;
        char *mem = v[k].mem;
        while (left > 0) {
            if (off < t->wlo || off >= t->whi) {
                int a = agg_of(c, p, t->lk, off);
                if (a < 0) {
                    rio__err_detail("no aggregator holds file byte %lld", (long long)off);
                    return RIO_E_ARG;
                }
                const struct rio_coll_domain *d = &p->dom[a];
                MPI_Offset x = rio__coll_coord(c, d, off);
                if (x < 0) {
                    rio__err_detail("file byte %lld is outside its aggregator's domain",
                                    (long long)off);
                    return RIO_E_ARG;
                }
                int r = (int)((x - d->cbase) / p->round_bytes);
                MPI_Offset n = d->cbase + (MPI_Offset)(r + 1) * p->round_bytes - x;
                if (d->kind == RIO_DOM_TARGETS)
                    n = RIO_MIN(n, c->layout.unit - off % c->layout.unit);
                else
                    n = RIO_MIN(n, d->end - off);
                t->wlo = off;
                t->whi = off + n;
                t->delta = x - off;
                t->wa = a;
                t->wr = r;
            }
            MPI_Offset n = RIO_MIN(left, t->whi - off);
            int rc = plist_add(&t->lists[t->wa], off + t->delta, n, mem, t->wr);
            if (rc)
                return rc;
            off += n;
            mem += n;
            left -= n;
        }
    }
    return 0;
}

static int cmp_piece(const void *x, const void *y)
{
    const struct piece *a = x, *b = y;
    if (a->round != b->round)
        return a->round < b->round ? -1 : 1;
    if (a->coord != b->coord)
        return a->coord < b->coord ? -1 : 1;
    return a->mem < b->mem ? -1 : a->mem > b->mem;
}

/* This rank's request cut into pieces, one list per aggregator, each in
 * file order: the pairs come in file order, except where the view's tiles
 * overlap and the request spans them (rio__dtype_view_monotone); such
 * lists are sorted by round and coordinate, which the rounds expect. */
static int cut_pieces(const struct rio_coll_call *c, const struct rio_coll_plan *p,
                      const struct lookup *lk, struct plist *lists)
{
    const struct rio_coll_req *q = c->req;
    if (p->bypass && p->bypass[c->rank])
        return 0;
    /* a list that is used starts with room for an even share of the pairs */
    MPI_Count share = rio__coll_pairs_guess(c) / p->naggs + 1;
    for (int a = 0; a < p->naggs; a++)
        lists[a].first_cap = share;
    struct cutter t = {.c = c, .p = p, .lk = lk, .lists = lists};
    int rc = rio__coll_pairs_each(c, cut_batch, &t);
    if (!rc && q->nbytes > 0 && !rio__dtype_view_monotone(q->filetype, q->file_start, q->nbytes))
        for (int a = 0; a < p->naggs; a++)
            if (lists[a].n > 1)
                qsort(lists[a].v, (size_t)lists[a].n, sizeof *lists[a].v, cmp_piece);
    return rc;
}

/* ---- messages --------------------------------------------------------------------- */

/* The runs of one message, where they already are: a requester's pieces
 * (at their memory), or an aggregator's copy of a rank's metadata (at
 * origin plus each coordinate).  Nothing is copied out to address and
 * length arrays first. */
struct runs {
    const struct piece *pc;   /* run k: pc[k].mem, pc[k].len */
    const MPI_Offset *meta;   /* or: origin + meta[2k], meta[2k + 1] long */
    char *origin;
    MPI_Count n;
};

static inline char *run_at(const struct runs *r, MPI_Count k)
{
    return r->pc ? r->pc[k].mem : r->origin + r->meta[2 * k];
}

static inline MPI_Offset run_len(const struct runs *r, MPI_Count k)
{
    return r->pc ? r->pc[k].len : r->meta[2 * k + 1];
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
    MPI_Count n = r->n;
    m->type = MPI_DATATYPE_NULL;
    if (n == 1 && run_len(r, 0) <= INT_MAX) {
        m->addr = run_at(r, 0);
        m->count = (int)run_len(r, 0);
        return 0;
    }
    if (n > INT_MAX)
        return RIO_E_OVERFLOW;
    int *bl = rio__pool_alloc(sizeof(int) * (size_t)n);
    MPI_Aint *dp = rio__pool_alloc(sizeof(MPI_Aint) * (size_t)n);
    int rc = 0;
    if (!bl || !dp) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    for (MPI_Count i = 0; i < n; i++) {
        if (run_len(r, i) > INT_MAX) {
            rc = RIO_E_OVERFLOW;
            goto out;
        }
        bl[i] = (int)run_len(r, i);
        MPI_Get_address(run_at(r, i), &dp[i]);
    }
    if (MPI_Type_create_hindexed((int)n, bl, dp, MPI_BYTE, &m->type) != MPI_SUCCESS ||
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
        const struct runs *r = &f->jobs[j].r;
        const char *s = f->jobs[j].buf;
        for (MPI_Count k = 0; k < r->n; k++) {
            MPI_Offset len = run_len(r, k);
            rio__copy_run(run_at(r, k), s, len);
            s += len;
        }
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

/* Post the runs as one packed message: 1 when posted, 0 when they do not
 * qualify, negative on error. */
static int post_packed(struct inflight *f, MPI_Comm comm, int send, int peer,
                       const struct runs *r, MPI_Offset tot)
{
    MPI_Count n = r->n;
    if (n < 2 || tot / n > PACK_RUN || tot > INT_MAX)
        return 0;
    char *buf = rio__pool_alloc((size_t)(tot ? tot : 1));
    if (!buf)
        return RIO_E_NOMEM;
    if (send) {
        char *d = buf;
        for (MPI_Count k = 0; k < n; k++) {
            MPI_Offset len = run_len(r, k);
            rio__copy_run(d, run_at(r, k), len);
            d += len;
        }
        f->bufs[f->nbufs++] = buf;
        MPI_Isend(buf, (int)tot, MPI_BYTE, peer, TAG_DATA, comm, &f->req[f->nreq++]);
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
        MPI_Irecv(buf, (int)tot, MPI_BYTE, peer, TAG_DATA, comm, &f->req[f->nreq++]);
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
    MPI_Count n = r->n, k = 1;
    MPI_Offset tot = n > 0 ? run_len(r, 0) : 0;
    while (k < n && run_at(r, k - 1) + run_len(r, k - 1) == run_at(r, k))
        tot += run_len(r, k++);
    for (MPI_Count j = k; j < n; j++)
        tot += run_len(r, j);
    *bytes = tot;
    if (!rc && n > 1 && k == n && tot <= INT_MAX) {
        if (send)
            MPI_Isend(run_at(r, 0), (int)tot, MPI_BYTE, peer, TAG_DATA, comm, &f->req[f->nreq++]);
        else
            MPI_Irecv(run_at(r, 0), (int)tot, MPI_BYTE, peer, TAG_DATA, comm, &f->req[f->nreq++]);
        return 0;
    }
    if (!rc)
        rc = post_packed(f, comm, send, peer, r, tot);
    if (rc)
        return rc < 0 ? rc : 0;
    rc = make_msg(r, &m);
    if (rc)
        return rc;
    if (m.type != MPI_DATATYPE_NULL)
        f->types[f->ntypes++] = m.type;
    MPI_Datatype t = m.type != MPI_DATATYPE_NULL ? m.type : MPI_BYTE;
    if (send)
        MPI_Isend(m.addr, m.count, t, peer, TAG_DATA, comm, &f->req[f->nreq++]);
    else
        MPI_Irecv(m.addr, m.count, t, peer, TAG_DATA, comm, &f->req[f->nreq++]);
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
    struct lookup lk;
    struct plist *mine;      /* per aggregator: this rank's pieces */
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
    MPI_Offset **metas;      /* per rank: its metadata of the round */
    MPI_Count *nmeta, *run;  /* per rank: its pieces; where its run starts in rp */
    struct batch batch;      /* storage requests being built */
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
 * while it drains); a requester sends DRAIN_META (one word: odd, which no
 * piece list is) instead of its metadata, and then no data; an aggregator
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
        drain_recv(e, a, peer, TAG_DATA, (MPI_Offset)e->slot_bytes);
    else
        MPI_Send(NULL, 0, MPI_BYTE, peer, TAG_DATA, e->comm);
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
    struct plist *l = &e->mine[a];
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
        /* end of file: what was not read reads as zeros */
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
    struct batch *b = &e->batch;
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

/* One aggregator role a of this rank in round r.  Failures set e->drain
 * (memory) or e->err (storage); the round's messages are taken either way. */
static void aggregate_round(struct engine *e, int a, int r, struct inflight *f)
{
    struct rio_coll_call *c = e->c;
    struct rio_coll_plan *p = e->p;
    const struct rio_coll_domain *d = &p->dom[a];
    int write = c->req->write, overlap = 0;
    char *cbuf = e->buf_of[a];
    MPI_Offset wbase = d->cbase + (MPI_Offset)r * p->round_bytes;
    MPI_Offset **metas = e->metas;
    MPI_Count *nmeta = e->nmeta, *run = e->run;
    MPI_Offset *lo = NULL, *hi = NULL;
    MPI_Count own_first = 0, own_n = 0, ncov = 0;
    int nrun = 0;
    double t0 = rio__now();

    e->nrp = 0;
    /* metadata of every rank taking part */
    MPI_Count total = 0;
    for (int i = 0; i < c->nprocs; i++) {
        metas[i] = NULL;
        nmeta[i] = 0;
        if (!takes_part(c, p, i, a, r))
            continue;
        if (i == c->rank) {
            my_slice(e, a, r, &own_first, &own_n);
            total += own_n;
            continue;
        }
        MPI_Status s;
        int cnt = 0;
        MPI_Probe(i, TAG_META, e->comm, &s);
        MPI_Get_count(&s, MPI_OFFSET, &cnt);
        nmeta[i] = cnt % 2 ? 0 : cnt / 2; /* odd: i drains and sends no data */
        if (!e->drain) {
            metas[i] = rio__pool_alloc(sizeof(MPI_Offset) * (size_t)(cnt ? cnt : 1));
            if (!metas[i])
                go_drain(e, RIO_E_NOMEM);
        }
        if (!metas[i]) {
            drain_recv(e, a, i, TAG_META, (MPI_Offset)cnt * (MPI_Offset)sizeof(MPI_Offset));
            continue;
        }
        MPI_Recv(metas[i], cnt, MPI_OFFSET, i, TAG_META, e->comm, MPI_STATUS_IGNORE);
        total += nmeta[i];
    }
    /* the round's pieces, one run per rank taking part, in one array sized
     * once (growing it piece by piece copied it a dozen times a call) */
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
        if (!takes_part(c, p, i, a, r))
            continue;
        run[nrun++] = e->nrp;
        if (e->drain)
            continue;
        if (i == c->rank) {
            for (MPI_Count k = 0; k < own_n; k++) {
                const struct piece *q = &e->mine[a].v[own_first + k];
                e->rp[e->nrp++] = (struct rpiece){q->coord, q->len};
            }
        } else if (metas[i]) {
            for (MPI_Count k = 0; k < nmeta[i]; k++)
                e->rp[e->nrp++] = (struct rpiece){metas[i][2 * k], metas[i][2 * k + 1]};
        }
    }
    run[nrun] = e->nrp;
    if (!e->drain) {
        MPI_Count mid = e->nrp;
        if (e->nrp > 1) /* an empty round has no array at all */
            mid = sort_pieces(e, run, nrun);
        lo = rio__pool_alloc(sizeof *lo * (size_t)(e->nrp + 1));
        hi = rio__pool_alloc(sizeof *hi * (size_t)(e->nrp + 1));
        if (!lo || !hi)
            go_drain(e, RIO_E_NOMEM);
        else
            ncov = coverage(e, mid, lo, hi, &overlap);
    }
    int rmw = write && !e->drain && round_rmw(p->rmw, lo, hi, ncov);

    if (!write && ncov > 0 && !e->err && !e->drain) {
        /* one read over the span when the holes are small, else list I/O */
        MPI_Offset cov;
        if (round_holes(lo, hi, ncov, &cov) <= RIO_MAX(cov, (MPI_Offset)65536))
            e->err = span_io(e, a, 0, lo, hi, ncov, wbase);
        else
            e->err = storage_io(e, a, 0, lo, hi, ncov, wbase);
    } else if (write && rmw && !e->err && !e->drain) {
        e->err = span_io(e, a, 0, lo, hi, ncov, wbase);
    }

    /* data */
    if (!write || !overlap || senders(e) <= 1) {
        /* Straight into (or out of) the round buffer: this rank's pieces
         * first, then a message per rank.  Overlapping writes take this way
         * too when a single rank sends: its message lands on this rank's
         * copy, so every overlapped byte holds one writer's value, and no
         * two pending receives share memory. */
        for (MPI_Count k = 0; k < own_n && !e->drain; k++) {
            const struct piece *q = &e->mine[a].v[own_first + k];
            char *b = cbuf + (q->coord - wbase);
            if (write)
                rio__copy_run(b, q->mem, q->len);
            else
                rio__copy_run(q->mem, b, q->len);
            c->copies += q->len;
        }
        for (int i = 0; i < c->nprocs; i++) {
            if (i == c->rank || !nmeta[i] || (e->shm && e->node_rank[i] >= 0))
                continue; /* with shm, ranks of this node copy themselves */
            struct runs rr = {.meta = metas[i], .origin = cbuf - wbase, .n = nmeta[i]};
            MPI_Offset bytes;
            int prc = e->drain ? e->drain : post_runs(f, e->comm, !write, i, &rr, &bytes);
            if (prc) {
                go_drain(e, prc);
                drain_data(e, a, i, write);
            }
        }
        if (write)
            inflight_finish(f);
    } else {
        /* overlapping writes from several ranks: stage each rank's data,
         * apply in rank order */
        char **stage = rio__calloc((size_t)c->nprocs, sizeof *stage);
        if (!stage)
            go_drain(e, RIO_E_NOMEM);
        for (int i = 0; i < c->nprocs; i++) {
            if (i == c->rank || !nmeta[i] || (e->shm && e->node_rank[i] >= 0))
                continue; /* with shm, ranks of this node have copied already */
            MPI_Offset tot = 0;
            for (MPI_Count k = 0; k < nmeta[i]; k++)
                tot += metas[i][2 * k + 1];
            if (tot > INT_MAX)
                go_drain(e, RIO_E_OVERFLOW);
            if (!e->drain) {
                stage[i] = rio__pool_alloc((size_t)tot);
                if (!stage[i])
                    go_drain(e, RIO_E_NOMEM);
            }
            if (e->drain || inflight_reserve(f, 1)) {
                go_drain(e, RIO_E_NOMEM);
                drain_data(e, a, i, 1);
                continue;
            }
            MPI_Irecv(stage[i], (int)tot, MPI_BYTE, i, TAG_DATA, e->comm, &f->req[f->nreq++]);
        }
        inflight_finish(f);
        for (int i = 0; i < c->nprocs && stage; i++) {
            if (i == c->rank && !e->drain) {
                for (MPI_Count k = 0; k < own_n; k++) {
                    const struct piece *q = &e->mine[a].v[own_first + k];
                    rio__copy_run(cbuf + (q->coord - wbase), q->mem, q->len);
                    c->copies += q->len;
                }
            } else if (stage[i] && !e->drain) {
                char *s = stage[i];
                for (MPI_Count k = 0; k < nmeta[i]; k++) {
                    MPI_Offset len = metas[i][2 * k + 1];
                    rio__copy_run(cbuf + (metas[i][2 * k] - wbase), s, len);
                    s += len;
                    c->copies += len;
                }
            }
            rio__pool_free(stage[i]);
        }
        free(stage);
    }
    c->t_exchange += rio__now() - t0;

    /* Timed agents: wait for the turn, write, pass the turn on.  Member 0
     * of a group follows the last member's previous round; the last
     * member's turn after the final round goes to nobody.  A draining
     * rank passes its turns on too. */
    int timed = write && p->prev_agent;
    if (timed) {
        int prev = p->prev_agent[a];
        if (prev >= 0 && p->aggs[prev] != c->rank && (d->member != 0 || r > 0))
            MPI_Recv(NULL, 0, MPI_BYTE, p->aggs[prev], TAG_TOKEN, e->comm, MPI_STATUS_IGNORE);
    }
    if (write && e->sends)
        inflight_finish(e->sends);
    if (write && ncov > 0 && !e->err && !e->drain) {
        if (rmw)
            e->err = span_io(e, a, 1, lo, hi, ncov, wbase);
        else
            e->err = storage_io(e, a, 1, lo, hi, ncov, wbase);
    }
    if (timed)
        for (int b = 0; b < p->naggs; b++)
            if (p->prev_agent[b] == a && p->aggs[b] != c->rank &&
                (p->dom[b].member != 0 || r + 1 < p->nrounds))
                MPI_Send(NULL, 0, MPI_BYTE, p->aggs[b], TAG_TOKEN, e->comm);
    for (int i = 0; i < c->nprocs; i++)
        rio__pool_free(metas[i]);
    rio__pool_free(lo);
    rio__pool_free(hi);
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
        if (ag == c->rank || !takes_part(c, p, c->rank, a, r))
            continue;
        MPI_Count first, n;
        my_slice(e, a, r, &first, &n);
        e->sl_first[a] = first;
        e->sl_n[a] = n;
        int data = n > 0 && !(e->shm && e->node_rank[ag] >= 0);
        MPI_Offset *meta = NULL;
        int rc = e->drain ? e->drain : inflight_reserve(f, 2); /* slots made before the rounds */
        if (!rc) {
            meta = rio__pool_alloc(sizeof(MPI_Offset) * (size_t)(2 * n + 1));
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
                MPI_Isend(DRAIN_META, 1, MPI_OFFSET, ag, TAG_META, e->comm, &f->req[f->nreq++]);
            else
                MPI_Send(DRAIN_META, 1, MPI_OFFSET, ag, TAG_META, e->comm);
            continue;
        }
        f->bufs[f->nbufs++] = meta;
        for (MPI_Count k = 0; k < n; k++) {
            meta[2 * k] = e->mine[a].v[first + k].coord;
            meta[2 * k + 1] = e->mine[a].v[first + k].len;
        }
        c->exchanged += bytes;
        MPI_Isend(meta, (int)(2 * n), MPI_OFFSET, ag, TAG_META, e->comm, &f->req[f->nreq++]);
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
        if (ag == c->rank || e->node_rank[ag] < 0 || !takes_part(c, p, c->rank, a, r))
            continue;
        MPI_Offset wbase = p->dom[a].cbase + (MPI_Offset)r * p->round_bytes;
        for (MPI_Count k = 0; k < e->sl_n[a]; k++) {
            const struct piece *q = &e->mine[a].v[e->sl_first[a] + k];
            char *b = e->buf_of[a] + (q->coord - wbase);
            if (c->req->write)
                rio__copy_run(b, q->mem, q->len);
            else
                rio__copy_run(q->mem, b, q->len);
            c->copies += q->len;
        }
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
    if (c->req->hints->shm == RIO_ENABLE && p->rmw == RIO_RMW_SMALL)
        p->rmw = RIO_RMW_NEVER;
    int want = c->req->hints->shm == RIO_ENABLE && !p->rmw && !rc;
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

int rio__coll_exchange(struct rio_coll_call *c, struct rio_coll_plan *p)
{
    struct engine e;
    struct inflight fr = {0}, fa = {0};
    int rc = 0;
    memset(&e, 0, sizeof e);
    e.c = c;
    e.p = p;
    e.comm = rio__coll_comm(c->ctx);

    /* domains' coordinate ranges and the number of rounds */
    p->nrounds = 0;
    for (int a = 0; a < p->naggs; a++) {
        domain_coords(c, &p->dom[a]);
        MPI_Offset n = p->dom[a].cend - p->dom[a].cbase;
        int rounds = (int)((n + p->round_bytes - 1) / p->round_bytes);
        p->nrounds = RIO_MAX(p->nrounds, rounds);
    }
    rc = lookup_build(c, p, &e.lk);
    e.mine = rio__calloc((size_t)p->naggs, sizeof *e.mine);
    if (!rc && !e.mine)
        rc = RIO_E_NOMEM;
    if (!rc)
        rc = cut_pieces(c, p, &e.lk, e.mine);
    int brc = round_buffers(&e);
    if (!rc)
        rc = brc;
    /* what the rounds' protocol needs, so that draining needs nothing:
     * request slots for every message of a round (a requester's two per
     * aggregator; an aggregator's one per rank and role) */
    int roles = 0;
    for (int a = 0; a < p->naggs; a++)
        roles += p->aggs[a] == c->rank;
    e.metas = rio__calloc((size_t)c->nprocs, sizeof *e.metas);
    e.nmeta = rio__calloc((size_t)c->nprocs, sizeof *e.nmeta);
    e.run = rio__malloc(sizeof *e.run * ((size_t)c->nprocs + 1));
    if (!rc && (!e.metas || !e.nmeta || !e.run || inflight_reserve(&fr, 2 * p->naggs) ||
                inflight_reserve(&fa, roles * c->nprocs)))
        rc = RIO_E_NOMEM;
    /* A local failure before the rounds must not leave others waiting: the
     * outcome is agreed on here, and a failed setup skips the rounds on
     * every rank together. */
    int any = rc ? 1 : 0, all = 0;
    MPI_Allreduce(&any, &all, 1, MPI_INT, MPI_MAX, e.comm);
    if (all) {
        if (!rc)
            rc = RIO_E_REMOTE;
        goto out;
    }

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
        e.batch.n = 0;
        for (int a = 0; a < p->naggs; a++)
            if (p->aggs[a] == c->rank)
                aggregate_round(&e, a, r, &fa);
        if (e.defer && !e.drain && !e.err) {
            inflight_finish(&fr);
            e.err = batch_flush(c->req->st, 1, &e.batch);
        }
        e.batch.n = 0;
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
    lookup_free(&e.lk);
    return rc;
}
