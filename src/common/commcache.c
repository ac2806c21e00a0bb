/*
 * commcache.c — resonio's private communicators, kept for the next file.
 *
 * Every open makes private communicators: the file's duplicate of the
 * open communicator, the engine's duplicate of that, the engine's node
 * communicator (MPI_COMM_TYPE_SHARED) and, for background collective
 * calls, a lane's duplicate.  Making one is collective and not free: a
 * real MPI agrees on a context id; SimGrid's SMPI runs its node detection
 * (an allgather over every rank) at a new communicator's first collective,
 * which at 1,024 simulated ranks costs seconds of wall time per
 * communicator.  A communicator resonio is done with (at close) is
 * therefore kept, on its parent, for the next take of the same kind from
 * the same parent; the parent's attribute (kv_parent) holds the kept ones,
 * and each communicator made here carries its origin (kv_child).
 *
 * Reuse must pair the same communicator on every rank.  Each made
 * communicator gets an id agreed by all ranks at its making (the largest
 * of the ranks' next ids), so an id names one making on every rank that
 * holds it.  A take proposes the lowest id of the kind it holds free;
 * the ranks reuse it only when every rank proposed the same id, and
 * otherwise make a new one (files closed in different orders on different
 * ranks, a rank that had no memory to keep one).  The proposal rides on
 * the one reduction a take makes.
 *
 * Kept communicators are freed with their parent (its attribute's delete
 * callback) and, for parents alive at MPI_Finalize, by a hook on
 * MPI_COMM_SELF, which MPI_Finalize deletes first.  RESONIO_COMM_CACHE=0
 * keeps none.
 */
#include "common.h"

#include <pthread.h>
#include <stdlib.h>

#define KEEP_MAX 8 /* kept communicators per parent */

struct kept {
    long long id;
    int kind;
    MPI_Comm comm;
};

struct cache {
    MPI_Comm parent;
    int refs; /* the parent's attribute and each live child */
    int dead; /* the parent is gone (or MPI is finalizing) */
    long long next_id;
    int n;
    struct kept kept[KEEP_MAX];
    struct cache *next; /* the live caches, for the finalize hook */
};

struct child {
    struct cache *cache;
    long long id;
    int kind;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int kv_parent = MPI_KEYVAL_INVALID, kv_child = MPI_KEYVAL_INVALID;
static int kv_self = MPI_KEYVAL_INVALID;
static int enabled = 1;
static struct cache *live;

/* Drop one reference; the last frees the cache. */
static void unref(struct cache *c)
{
    pthread_mutex_lock(&lock);
    int last = --c->refs == 0;
    pthread_mutex_unlock(&lock);
    if (last)
        free(c);
}

static void unlink_live(struct cache *c)
{
    for (struct cache **p = &live; *p; p = &(*p)->next)
        if (*p == c) {
            *p = c->next;
            return;
        }
}

/* The parent is being freed (or its attribute deleted at finalize): free
 * what it keeps, outside the lock (each free runs kv_child's callback). */
static int parent_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    struct cache *c = val;
    struct kept kept[KEEP_MAX];
    pthread_mutex_lock(&lock);
    c->dead = 1;
    unlink_live(c);
    int n = c->n;
    memcpy(kept, c->kept, sizeof kept);
    c->n = 0;
    pthread_mutex_unlock(&lock);
    for (int i = 0; i < n; i++)
        MPI_Comm_free(&kept[i].comm);
    unref(c);
    return MPI_SUCCESS;
}

static int child_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    struct child *t = val;
    unref(t->cache);
    free(t);
    return MPI_SUCCESS;
}

/* MPI_Finalize: every parent still alive lets go of what it keeps.  One
 * at a time from the head: freeing a kept file communicator ends the
 * caches on it, which leave the list. */
static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    /* SMPI deletes MPI_COMM_SELF's attributes after it stopped taking MPI
     * calls: there the kept communicators stay with the process */
    int up = 0, fin = 1;
    MPI_Initialized(&up);
    MPI_Finalized(&fin);
    for (;;) {
        pthread_mutex_lock(&lock);
        struct cache *c = live;
        MPI_Comm parent = c ? c->parent : MPI_COMM_NULL;
        pthread_mutex_unlock(&lock);
        if (!c)
            break;
        if (!up || fin || MPI_Comm_delete_attr(parent, kv_parent) != MPI_SUCCESS) {
            pthread_mutex_lock(&lock); /* not deleted: keep what it holds */
            c->dead = 1;
            unlink_live(c);
            pthread_mutex_unlock(&lock);
        }
    }
    pthread_mutex_lock(&lock);
    enabled = 0; /* what is given back later is freed */
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

static void setup(void)
{
    const char *e = getenv("RESONIO_COMM_CACHE");
    if (e && strcmp(e, "0") == 0)
        enabled = 0;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, parent_delete, &kv_parent, NULL) !=
            MPI_SUCCESS ||
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, child_delete, &kv_child, NULL) !=
            MPI_SUCCESS ||
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &kv_self, NULL) != MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, kv_self, NULL) != MPI_SUCCESS)
        enabled = 0;
}

/* parent's cache, made on first use; NULL when caching is off or there is
 * no memory for it (this rank then keeps nothing, and the ranks' proposals
 * differ until it has one). */
static struct cache *cache_of(MPI_Comm parent)
{
    pthread_mutex_lock(&lock);
    int on = enabled;
    pthread_mutex_unlock(&lock);
    if (!on)
        return NULL;
    void *val = NULL;
    int found = 0;
    if (MPI_Comm_get_attr(parent, kv_parent, &val, &found) == MPI_SUCCESS && found)
        return val;
    struct cache *c = rio__calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->parent = parent;
    c->refs = 1;
    if (MPI_Comm_set_attr(parent, kv_parent, c) != MPI_SUCCESS) {
        free(c);
        return NULL;
    }
    pthread_mutex_lock(&lock);
    c->next = live;
    live = c;
    pthread_mutex_unlock(&lock);
    return c;
}

/* A new communicator inherits its parent's error handler; a kept one is
 * given the parent's handler of now, as a new one would have. */
static void inherit_errhandler(MPI_Comm parent, MPI_Comm comm)
{
    MPI_Errhandler eh;
    if (MPI_Comm_get_errhandler(parent, &eh) != MPI_SUCCESS)
        return;
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
}

int rio__comm_take(MPI_Comm parent, enum rio_comm_kind kind, MPI_Comm *out, long long *made,
                   long long *reused)
{
    *out = MPI_COMM_NULL;
    pthread_once(&once, setup);
    struct cache *c = cache_of(parent);
    /* {offered id, -offered id, next id}: one reduction decides reuse and
     * gives a new communicator its id */
    long long v[3] = {-1, 1, 0}, r[3];
    if (c) {
        pthread_mutex_lock(&lock);
        for (int i = 0; i < c->n; i++)
            if (c->kept[i].kind == (int)kind && (v[0] < 0 || c->kept[i].id < v[0]))
                v[0] = c->kept[i].id;
        v[1] = -v[0];
        v[2] = c->next_id;
        pthread_mutex_unlock(&lock);
    }
    int rc = MPI_Allreduce(v, r, 3, MPI_LONG_LONG, MPI_MAX, parent);
    if (rc != MPI_SUCCESS)
        return rc;
    if (r[0] >= 0 && r[0] == -r[1]) { /* every rank offered the same one */
        pthread_mutex_lock(&lock);
        for (int i = 0; i < c->n; i++)
            if (c->kept[i].id == r[0]) {
                *out = c->kept[i].comm;
                c->kept[i] = c->kept[--c->n];
                break;
            }
        pthread_mutex_unlock(&lock);
        inherit_errhandler(parent, *out);
        if (reused)
            rio__stat_add(reused, 1);
        return MPI_SUCCESS;
    }
    if (kind == RIO_COMM_NODE)
        rc = MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, out);
    else
        rc = MPI_Comm_dup(parent, out);
    if (rc != MPI_SUCCESS) {
        *out = MPI_COMM_NULL;
        return rc;
    }
    if (made)
        rio__stat_add(made, 1);
    struct child *t = c ? rio__malloc(sizeof *t) : NULL;
    if (!t)
        return MPI_SUCCESS; /* not kept: freed when given back */
    pthread_mutex_lock(&lock);
    t->cache = c;
    t->id = r[2];
    t->kind = (int)kind;
    c->next_id = r[2] + 1;
    c->refs++;
    pthread_mutex_unlock(&lock);
    if (MPI_Comm_set_attr(*out, kv_child, t) != MPI_SUCCESS) {
        unref(c);
        free(t);
    }
    return MPI_SUCCESS;
}

void rio__comm_give(MPI_Comm *comm)
{
    if (*comm == MPI_COMM_NULL)
        return;
    int found = 0;
    void *val = NULL;
    pthread_once(&once, setup);
    if (kv_child != MPI_KEYVAL_INVALID &&
        MPI_Comm_get_attr(*comm, kv_child, &val, &found) == MPI_SUCCESS && found) {
        struct child *t = val;
        pthread_mutex_lock(&lock);
        struct cache *c = t->cache;
        if (enabled && !c->dead && c->n < KEEP_MAX) {
            c->kept[c->n].id = t->id;
            c->kept[c->n].kind = t->kind;
            c->kept[c->n].comm = *comm;
            c->n++;
            *comm = MPI_COMM_NULL;
        }
        pthread_mutex_unlock(&lock);
    }
    if (*comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}
