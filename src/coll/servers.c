/*
 * servers.c — the targets of a call: stripe columns, or the servers that
 * really hold the file's objects.
 *
 * On Lustre stripe column t sits on OST t, so a target is a column and
 * stripe s is on target s % count.  A file striped into objects (CephFS)
 * is placed by hash: the count objects of one object set may share a
 * server (an OSD), and the next set's objects land elsewhere.  Where the
 * driver can say which server holds each object (.servers), the engine's
 * targets are those servers: target t is the t-th distinct server of the
 * file's map, and stripe s is on the server of its object.
 *
 * The map is the file's (kept in the collective context for its
 * lifetime).  It is made by rank 0 alone and broadcast, and grows only
 * when a call reaches past the objects it covers: every rank learns the
 * call's end from one allreduce, so all of them agree whether to extend it,
 * and rank 0 asks storage for the new objects only.  That allreduce is
 * the map's whole cost for a call that stays inside it, and files without
 * objects never pay it.  When rank 0 cannot have the map (the driver has
 * none, storage refuses, the file spans too many objects), every rank
 * falls back to stripe columns for this file, and each call's reason in
 * rio_coll_last says so.
 */
#include "coll_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Objects a map may cover: the map costs an int per object on every rank
 * and one storage question per new object on rank 0. */
#define SMAP_MAX_OBJECTS (1 << 20)
#define SMAP_PIECE 4096

/* Contract in coll_int.h. */
int rio__coll_target_of(const struct rio_coll_targets *tg, MPI_Offset s)
{
    if (!tg->spo)
        return (int)(s % tg->count);
    MPI_Offset row = s / tg->count, k = row / tg->spo;
    int col = (int)(s % tg->count);
    if (k >= tg->nsets) /* never inside a call's extent: the map covers it */
        return col % tg->T;
    return tg->of[k * tg->count + col];
}

static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Dense target numbers for the map's servers. */
static int smap_index(struct rio_coll_smap *m)
{
    int *ids = rio__malloc(sizeof(int) * (size_t)(m->nobjects ? m->nobjects : 1));
    int *dense = rio__realloc(m->dense, sizeof(int) * (size_t)(m->nobjects ? m->nobjects : 1));
    if (!ids || !dense) {
        free(ids);
        if (dense)
            m->dense = dense;
        return RIO_E_NOMEM;
    }
    m->dense = dense;
    memcpy(ids, m->server, sizeof(int) * (size_t)m->nobjects);
    qsort(ids, (size_t)m->nobjects, sizeof(int), cmp_int);
    int T = 0;
    for (long long i = 0; i < m->nobjects; i++)
        if (T == 0 || ids[T - 1] != ids[i])
            ids[T++] = ids[i];
    for (long long i = 0; i < m->nobjects; i++) {
        int *hit = bsearch(&m->server[i], ids, (size_t)T, sizeof(int), cmp_int);
        m->dense[i] = (int)(hit - ids);
    }
    free(m->ids);
    m->ids = ids;
    m->T = T;
    return 0;
}

/* Rank 0: the servers of objects [from, to) into m->server (grown). */
static int smap_ask(struct rio_store *st, struct rio_coll_smap *m, long long to)
{
    int *v = rio__realloc(m->server, sizeof(int) * (size_t)to);
    if (!v)
        return RIO_E_NOMEM;
    m->server = v;
    for (long long i = m->nobjects; i < to;) {
        int n = (int)RIO_MIN(to - i, SMAP_PIECE);
        int rc = st->ops->servers(st, i, n, v + i);
        if (rc)
            return rc;
        i += n;
    }
    return 0;
}

/* Contract in coll_int.h. */
void rio__coll_targets(struct rio_coll_call *c)
{
    struct rio_coll_ctx *ctx = c->ctx;
    struct rio_coll_smap *m = &ctx->smap;
    struct rio_store *st = c->req->st;
    const struct rio_layout *l = &c->layout;
    if (!l->known || l->object_size <= 0 || l->object_size % l->unit || m->failed)
        return;
    /* the same on every rank: the fixed layout, and a driver of one kind */
    MPI_Offset end = c->end, maxend = 0;
    MPI_Allreduce(&end, &maxend, 1, MPI_OFFSET, MPI_MAX, ctx->comm);
    MPI_Offset setbytes = (MPI_Offset)l->object_size * l->count;
    long long need = (maxend + setbytes - 1) / setbytes * l->count;
    if (need > m->nobjects) {
        long long rc = 0;
        if (c->rank == 0) /* rank 0 asks, everyone gets the answer */
            rc = need > SMAP_MAX_OBJECTS ? RIO_E_ARG
                 : !st->ops->servers     ? -EOPNOTSUPP
                                         : smap_ask(st, m, need);
        MPI_Bcast(&rc, 1, MPI_LONG_LONG, 0, ctx->comm);
        if (!rc) {
            int ok = 1;
            if (c->rank != 0) {
                int *v = rio__realloc(m->server, sizeof(int) * (size_t)need);
                if (v)
                    m->server = v;
                ok = v != NULL;
            }
            /* in fixed pieces, so that a rank without room still takes part */
            for (long long i = m->nobjects; i < need; i += SMAP_PIECE) {
                int tmp[SMAP_PIECE];
                MPI_Bcast(ok ? m->server + i : tmp, (int)RIO_MIN(SMAP_PIECE, need - i), MPI_INT,
                          0, ctx->comm);
            }
            if (ok) {
                m->nobjects = need;
                ok = smap_index(m) == 0;
            }
            int allok = 0;
            MPI_Allreduce(&ok, &allok, 1, MPI_INT, MPI_MIN, ctx->comm);
            if (!allok)
                rc = RIO_E_NOMEM;
        }
        if (rc) { /* every rank alike: stripe columns from now on */
            m->failed = 1;
            if (rc == RIO_E_ARG)
                snprintf(m->why, sizeof m->why, "the file spans more than %d objects",
                         SMAP_MAX_OBJECTS);
            else
                snprintf(m->why, sizeof m->why, "storage gave no object map: %s",
                         rio__err_message((int)rc));
            return;
        }
    }
    c->tg.T = m->T;
    c->tg.spo = l->object_size / l->unit;
    c->tg.nsets = m->nobjects / l->count;
    c->tg.of = m->dense;
    c->tg.id = m->ids;
}

/* Contract in coll_int.h. */
void rio__coll_smap_free(struct rio_coll_smap *m)
{
    free(m->server);
    free(m->dense);
    free(m->ids);
    memset(m, 0, sizeof *m);
}

/* Contract in coll.h. */
int rio__coll_server_of(const struct rio_coll_ctx *ctx, long long obj)
{
    if (!ctx || obj < 0 || obj >= ctx->smap.nobjects)
        return -1;
    return ctx->smap.server[obj];
}
