/*
 * pieces.c — a rank's own request cut into pieces, per aggregator and
 * round.
 *
 * A plan maps every file byte to an aggregator's domain and a coordinate
 * there (domain arithmetic below: identity for byte ranges, stripes of the
 * domain's targets laid end to end for target sets, in closed form over
 * stripe columns and through per-object-set tables over a server map,
 * where a set's stripes on the domain's servers vary), and the domain's
 * coordinates to rounds of round_bytes.  Each rank walks its own request
 * once, as the strided pairs of request.c in file order, and cuts it where it
 * leaves a window: file bytes of one domain and round at a fixed distance
 * from their coordinates, so that the pairs of a fine-grained request skip
 * the lookup and the divisions.  Pieces of equal length at a fixed
 * distance stay one group (struct rio_coll_piece): the members of a
 * strided pair that lie whole in a window go together, and single runs
 * that continue a group join it.  The exchange (exchange.c) then sends
 * each aggregator its pieces round by round.
 */
#include "coll_int.h"

#include <stdlib.h>
#include <string.h>

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

/* ---- over a server map ----
 * A stripe belongs to d when its row is the member's and its object's
 * server is one of d's.  The domain's coordinates count its bytes in file
 * order: whole stripes of the member's rows before a row (pre[] per
 * object set, where the number of the domain's columns m[] is fixed),
 * then the domain's columns left of the stripe in its row. */

/* The member's rows before row r. */
static MPI_Offset mrows_before(const struct rio_coll_domain *d, MPI_Offset r)
{
    MPI_Offset per = d->chunk * d->ngroup, rem = r % per - (MPI_Offset)d->member * d->chunk;
    return r / per * d->chunk + RIO_MIN(RIO_MAX(rem, 0), d->chunk);
}

/* The domain's stripes in the member's rows before row r. */
static MPI_Offset map_stripes_before(const struct rio_coll_call *c,
                                     const struct rio_coll_domain *d, MPI_Offset r)
{
    const struct rio_coll_dmap *t = d->map;
    MPI_Offset K = r / c->tg.spo, k = K - t->k0;
    if (k < 0)
        return 0;
    if (k >= t->nk)
        return t->pre[t->nk];
    return t->pre[k] + t->m[k] * (mrows_before(d, r) - mrows_before(d, K * c->tg.spo));
}

/* The domain's bytes before file byte off; *in: whether off is one. */
static MPI_Offset map_before(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                             MPI_Offset off, int *in)
{
    const struct rio_coll_dmap *t = d->map;
    MPI_Offset unit = c->tg.unit, s = off / unit, r = s / c->tg.count;
    MPI_Offset k = r / c->tg.spo - t->k0;
    int col = (int)(s % c->tg.count);
    MPI_Offset x = map_stripes_before(c, d, r) * unit;
    *in = 0;
    if (k >= 0 && k < t->nk && row_is_members(d, r)) {
        x += t->lt[k * c->tg.count + col] * unit;
        if (target_index(d, rio__coll_target_of(&c->tg, s)) >= 0) {
            *in = 1;
            x += off % unit;
        }
    }
    return x;
}

static MPI_Offset map_fileoff(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                              MPI_Offset x)
{
    const struct rio_coll_dmap *t = d->map;
    MPI_Offset unit = c->tg.unit, q = x / unit;
    MPI_Offset lo = 0, hi = t->nk; /* the last set whose pre is at most q */
    while (hi - lo > 1) {
        MPI_Offset mid = (lo + hi) / 2;
        if (t->pre[mid] <= q)
            lo = mid;
        else
            hi = mid;
    }
    MPI_Offset k = lo, K = t->k0 + k, qq = q - t->pre[k];
    int m = RIO_MAX(t->m[k], 1);
    MPI_Offset mr = mrows_before(d, K * c->tg.spo) + qq / m;
    MPI_Offset row = (mr / d->chunk * d->ngroup + d->member) * d->chunk + mr % d->chunk;
    int col = t->cols[k * c->tg.count + qq % m];
    return (row * c->tg.count + col) * unit + x % unit;
}

static void dmap_free(struct rio_coll_dmap *t)
{
    if (!t)
        return;
    free(t->m);
    free(t->lt);
    free(t->cols);
    free(t->pre);
    free(t);
}

/* d's tables over the object sets of its extent. */
static int dmap_build(const struct rio_coll_call *c, struct rio_coll_domain *d)
{
    const struct rio_coll_targets *tg = &c->tg;
    MPI_Offset setbytes = tg->spo * tg->count * tg->unit;
    MPI_Offset k0 = d->start / setbytes;
    MPI_Offset nk = d->end > d->start ? (d->end - 1) / setbytes + 1 - k0 : 1;
    int n = tg->count;
    struct rio_coll_dmap *t = rio__calloc(1, sizeof *t);
    if (t) {
        t->k0 = k0;
        t->nk = nk;
        t->m = rio__calloc((size_t)nk, sizeof(int));
        t->lt = rio__malloc(sizeof(int) * (size_t)(nk * n));
        t->cols = rio__calloc((size_t)(nk * n), sizeof(int));
        t->pre = rio__malloc(sizeof(MPI_Offset) * (size_t)(nk + 1));
    }
    if (!t || !t->m || !t->lt || !t->cols || !t->pre) {
        dmap_free(t);
        return RIO_E_NOMEM;
    }
    t->pre[0] = 0;
    for (MPI_Offset k = 0; k < nk; k++) {
        MPI_Offset K = k0 + k;
        for (int col = 0; col < n; col++) {
            t->lt[k * n + col] = t->m[k];
            int tgt = K < tg->nsets ? tg->of[K * n + col] : -1;
            if (tgt >= 0 && target_index(d, tgt) >= 0)
                t->cols[k * n + t->m[k]++] = col;
        }
        MPI_Offset rows = mrows_before(d, (K + 1) * tg->spo) - mrows_before(d, K * tg->spo);
        t->pre[k + 1] = t->pre[k] + t->m[k] * rows;
    }
    d->map = t;
    return 0;
}

MPI_Offset rio__coll_coord(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                           MPI_Offset off)
{
    if (off < d->start || off >= d->end)
        return -1;
    if (d->kind == RIO_DOM_RANGE)
        return off;
    if (d->map) {
        int in;
        MPI_Offset x = map_before(c, d, off, &in);
        return in ? x : -1;
    }
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
    if (d->map)
        return map_fileoff(c, d, x);
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
    if (d->map) {
        int in;
        return map_before(c, d, off, &in);
    }
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

/* Contract in coll_int.h. */
int rio__coll_domain_coords(const struct rio_coll_call *c, struct rio_coll_domain *d)
{
    dmap_free(d->map);
    d->map = NULL;
    if (d->kind == RIO_DOM_TARGETS && c->tg.spo) {
        int rc = dmap_build(c, d);
        if (rc) {
            d->cbase = d->cend = 0;
            return rc;
        }
    }
    d->cbase = coord_ceil(c, d, d->start);
    d->cend = d->end > d->start ? coord_ceil(c, d, d->end) : d->cbase;
    return 0;
}

/* Contract in coll_int.h. */
void rio__coll_domain_free(struct rio_coll_domain *d)
{
    dmap_free(d->map);
    d->map = NULL;
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

/* Contract in coll_int.h. */
int rio__coll_takes_part(const struct rio_coll_call *c, const struct rio_coll_plan *p, int i,
                         int a, int r)
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
    int T = c->tg.T;
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
    int t = rio__coll_target_of(&c->tg, s);
    if (!lk->tng[t])
        return -1;
    MPI_Offset row = s / c->layout.count;
    return lk->tmap[t * lk->maxng + (int)((row / lk->tchunk[t]) % lk->tng[t])];
}

/* ---- cutting the own request into pieces ---------------------------------------- */

/* Whether piece n continues piece q as the next members of its group:
 * the same length, and each of n's members where q's next would be. */
static int continues(const struct rio_coll_piece *q, const struct rio_coll_piece *n)
{
    if (q->count == 1) /* q becomes a group whose second member starts n */
        return n->coord - q->coord > q->len &&
               (n->count == 1 ||
                (n->cstride == n->coord - q->coord && n->mstride == n->mem - q->mem));
    return n->coord == q->coord + q->count * q->cstride &&
           n->mem == q->mem + q->count * q->mstride &&
           (n->count == 1 || (n->cstride == q->cstride && n->mstride == q->mstride));
}

/* Append piece n (a run or a group) to l: it extends the last piece when
 * both are single runs that touch in coordinates and memory, or, with
 * group set, the last piece's group when n continues it. */
static int plist_add(struct rio_coll_plist *l, const struct rio_coll_piece *n, int group)
{
    if (l->n > 0) {
        struct rio_coll_piece *q = &l->v[l->n - 1];
        if (q->round == n->round && q->count == 1 && n->count == 1 &&
            q->coord + q->len == n->coord && q->mem + q->len == n->mem) {
            q->len += n->len;
            return 0;
        }
        if (group && q->round == n->round && q->len == n->len && continues(q, n)) {
            if (q->count == 1) {
                q->cstride = n->coord - q->coord;
                q->mstride = n->mem - q->mem;
            }
            q->count += n->count;
            return 0;
        }
    }
    if (l->n == l->cap) {
        MPI_Count cap = l->cap ? 2 * l->cap : RIO_MAX(l->first_cap, 64);
        struct rio_coll_piece *v = rio__pool_realloc(l->v, sizeof *v * (size_t)cap);
        if (!v)
            return RIO_E_NOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = *n;
    return 0;
}

/* Cutting state: where pieces go, and the last cut's window, file bytes
 * [wlo, whi) that lie in one aggregator's domain and round at a fixed
 * distance from their coordinates.  Pairs of a fine-grained request fall
 * in it one after the other and skip the lookup and the divisions; the
 * members of a strided pair that lie whole in it go as one group. */
struct cutter {
    const struct rio_coll_call *c;
    const struct rio_coll_plan *p;
    const struct lookup *lk;
    struct rio_coll_plist *lists;
    int group;                /* pieces may form groups (the view is monotonic) */
    MPI_Offset wlo, whi, delta;
    int wa, wr;
};

/* Move t's window to the one holding file byte off. */
static int window_at(struct cutter *t, MPI_Offset off)
{
    const struct rio_coll_call *c = t->c;
    const struct rio_coll_plan *p = t->p;
    int a = agg_of(c, p, t->lk, off);
    if (a < 0) {
        rio__err_detail("no aggregator holds file byte %lld", (long long)off);
        return RIO_E_ARG;
    }
    const struct rio_coll_domain *d = &p->dom[a];
    MPI_Offset x = rio__coll_coord(c, d, off);
    if (x < 0) {
        rio__err_detail("file byte %lld is outside its aggregator's domain", (long long)off);
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
    return 0;
}

/* One run, cut where it leaves a window. */
static int cut_run(struct cutter *t, MPI_Offset off, MPI_Offset left, char *mem)
{
    while (left > 0) {
        if (off < t->wlo || off >= t->whi) {
            int rc = window_at(t, off);
            if (rc)
                return rc;
        }
        MPI_Offset n = RIO_MIN(left, t->whi - off);
        struct rio_coll_piece pc = {.coord = off + t->delta, .len = n, .mem = mem, .count = 1,
                                    .round = t->wr};
        int rc = plist_add(&t->lists[t->wa], &pc, t->group);
        if (rc)
            return rc;
        off += n;
        mem += n;
        left -= n;
    }
    return 0;
}

static int cut_batch(void *arg, const struct rio_coll_pair *v, int npairs)
{
    struct cutter *t = arg;
    for (int k = 0; k < npairs; k++) {
        MPI_Offset off = v[k].foff, len = v[k].len, count = v[k].count;
        char *mem = v[k].mem;
        while (count > 0) {
            int rc;
            if (off < t->wlo || off >= t->whi) {
                rc = window_at(t, off);
                if (rc)
                    return rc;
            }
            /* the members that lie whole in the window: one group */
            MPI_Offset fit = 0;
            if (t->group && count > 1 && off + len <= t->whi)
                fit = RIO_MIN(count, (t->whi - off - len) / v[k].fstride + 1);
            if (fit > 1) {
                struct rio_coll_piece pc = {.coord = off + t->delta, .len = len, .mem = mem,
                                            .count = fit, .cstride = v[k].fstride,
                                            .mstride = v[k].mstride, .round = t->wr};
                rc = plist_add(&t->lists[t->wa], &pc, 1);
                off += fit * v[k].fstride;
                mem += fit * v[k].mstride;
                count -= fit;
            } else {
                rc = cut_run(t, off, len, mem);
                off += v[k].fstride;
                mem += v[k].mstride;
                count--;
            }
            if (rc)
                return rc;
        }
    }
    return 0;
}

static int cmp_piece(const void *x, const void *y)
{
    const struct rio_coll_piece *a = x, *b = y;
    if (a->round != b->round)
        return a->round < b->round ? -1 : 1;
    if (a->coord != b->coord)
        return a->coord < b->coord ? -1 : 1;
    return a->mem < b->mem ? -1 : a->mem > b->mem;
}

/* Contract in coll_int.h.  The pairs come in file order, except where the
 * view's tiles overlap and the request spans them
 * (rio__dtype_view_monotone); such lists form no groups and are sorted by
 * round and coordinate, which the rounds expect. */
int rio__coll_cut_pieces(const struct rio_coll_call *c, const struct rio_coll_plan *p,
                         struct rio_coll_plist *lists)
{
    const struct rio_coll_req *q = c->req;
    struct lookup lk;
    if (p->bypass && p->bypass[c->rank])
        return 0;
    int rc = lookup_build(c, p, &lk);
    /* a list that is used starts with room for an even share of the pairs */
    MPI_Count share = rio__coll_pairs_guess(c) / p->naggs + 1;
    for (int a = 0; a < p->naggs; a++)
        lists[a].first_cap = share;
    int monotone = q->nbytes <= 0 ||
                   rio__dtype_view_monotone(q->filetype, q->file_start, q->nbytes);
    struct cutter t = {.c = c, .p = p, .lk = &lk, .lists = lists, .group = monotone};
    if (!rc)
        rc = rio__coll_pairs_each(c, cut_batch, &t);
    if (!rc && !monotone)
        for (int a = 0; a < p->naggs; a++)
            if (lists[a].n > 1)
                qsort(lists[a].v, (size_t)lists[a].n, sizeof *lists[a].v, cmp_piece);
    lookup_free(&lk);
    return rc;
}

