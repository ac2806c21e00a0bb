/*
 * cache.c — one decoded form per MPI datatype, reference counted.
 *
 * A derived datatype carries its decoded form as an attribute (one type
 * keyval, created on first use).  The attribute holds one reference; its
 * delete callback, run by MPI_Type_free, drops it, and every caller of
 * rio__dtype_get holds one more, so a form outlives its type for as long
 * as an operation uses it.  MPI_Type_dup does not copy the attribute
 * (MPI_TYPE_NULL_COPY_FN): the duplicate is decoded on first use.
 * Predefined types (named and f90) cannot be relied on to hold attributes,
 * so they live in a small table, appended to under a mutex and read
 * without it: every data call looks up its memory type, and the lock
 * and MPI_Type_get_envelope cost more than the call's other argument
 * checks together.  A MPI_COMM_SELF attribute
 * whose delete callback runs first thing in MPI_Finalize releases the
 * table and the keyval.  Two threads decoding the same derived type at
 * once both succeed: the second MPI_Type_set_attr replaces (and through
 * the delete callback releases) the first cached form, which its caller
 * still holds.
 */
#include "dtype_int.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define NAMED_MAX 256

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static int type_keyval = MPI_KEYVAL_INVALID;
static int self_keyval = MPI_KEYVAL_INVALID;
static MPI_Comm probe_comm = MPI_COMM_NULL; /* MPI_Pack's, errors returned */
static struct {
    MPI_Datatype type;
    struct rio_dtype *dt;
} named[NAMED_MAX];
/* Entries below nnamed are complete: an entry is written before the
 * count that shows it is stored (release), and read after the count is
 * loaded (acquire).  Entries go only at MPI_Finalize, when no call runs. */
static atomic_int nnamed;

static int attr_delete(MPI_Datatype type, int keyval, void *val, void *extra)
{
    (void)type;
    (void)keyval;
    (void)extra;
    rio__dtype_put(val);
    return MPI_SUCCESS;
}

static int self_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)val;
    (void)extra;
    pthread_mutex_lock(&cache_lock);
    int n = atomic_load(&nnamed);
    for (int i = 0; i < n; i++)
        rio__dtype_put(named[i].dt);
    atomic_store(&nnamed, 0);
    if (type_keyval != MPI_KEYVAL_INVALID)
        MPI_Type_free_keyval(&type_keyval);
    type_keyval = MPI_KEYVAL_INVALID;
    if (probe_comm != MPI_COMM_NULL)
        MPI_Comm_free(&probe_comm);
    pthread_mutex_unlock(&cache_lock);
    return MPI_SUCCESS;
}

/* Create the keyvals once.  Called with cache_lock held. */
static int setup(void)
{
    if (type_keyval != MPI_KEYVAL_INVALID)
        return 0;
    if (MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, attr_delete, &type_keyval, NULL) !=
        MPI_SUCCESS) {
        type_keyval = MPI_KEYVAL_INVALID;
        rio__err_detail("MPI_Type_create_keyval failed");
        return RIO_E_TYPE;
    }
    if (self_keyval == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &self_keyval, NULL) ==
            MPI_SUCCESS)
        MPI_Comm_set_attr(MPI_COMM_SELF, self_keyval, NULL);
    /* Without it every type passes as committed (see the top). */
    if (probe_comm == MPI_COMM_NULL && MPI_Comm_dup(MPI_COMM_SELF, &probe_comm) == MPI_SUCCESS)
        MPI_Comm_set_errhandler(probe_comm, MPI_ERRORS_RETURN);
    return 0;
}

/* 0 if type may be used for data: committed, or the library does not
 * say (see the top); RIO_E_TYPE with the detail set if it says not. */
static int check_committed(MPI_Datatype type)
{
    char none[1] = {0}; /* never read (count 0); set for -Wmaybe-uninitialized */
    int pos = 0;
    if (probe_comm == MPI_COMM_NULL)
        return 0;
    int rc = MPI_Pack(none, 0, type, none, 0, &pos, probe_comm);
    if (rc == MPI_SUCCESS)
        return 0;
    int cls = MPI_ERR_OTHER;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TYPE)
        return 0; /* the library objects to something else: not our question */
    rio__err_detail("datatype not committed");
    return RIO_E_TYPE;
}

/* Decode type into a new form holding one reference. */
static int build(MPI_Datatype type, struct rio_dtype **out)
{
    struct rio_dtype *dt = rio__calloc(1, sizeof *dt);
    MPI_Count size = 0;
    MPI_Aint lb = 0, extent = 0, tlb = 0, textent = 0;
    int err;
    *out = NULL;
    if (!dt)
        return RIO_E_NOMEM;
    err = rio__dtype_decode(type, &dt->root);
    if (err)
        goto out;
    MPI_Type_size_x(type, &size);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    const struct rio_dl *r = dt->root;
    if ((r ? r->size : 0) != size) {
        char desc[160];
        rio__dtype_describe(dt, desc, sizeof desc);
        rio__err_detail("datatype decoded to %lld bytes but MPI_Type_size says %lld: %s",
                        (long long)(r ? r->size : 0), (long long)size, desc);
        err = RIO_E_TYPE;
        goto out;
    }
    dt->info.size = size;
    dt->info.lb = lb;
    dt->info.extent = extent;
    dt->info.true_lb = tlb;
    dt->info.true_extent = textent;
    dt->info.regions = r ? r->nregions : 0;
    dt->info.depth = r ? r->depth : 0;
    dt->info.contig = r && r->nregions == 1 && extent == size;
    dt->info.monotonic = !r || (r->mono && r->tlb >= 0 && r->tub <= extent);
    atomic_init(&dt->refs, 1);
    *out = dt;
    dt = NULL;
out:
    if (dt) {
        rio__dl_free(dt->root);
        free(dt);
    }
    return err;
}

/* A new reference to the cached form of predefined type, or NULL.  No
 * lock needed (see nnamed); a derived type's handle is never a
 * predefined one's, so any type may be looked up. */
static struct rio_dtype *named_find(MPI_Datatype type)
{
    int n = atomic_load_explicit(&nnamed, memory_order_acquire);
    for (int i = 0; i < n; i++) {
        if (named[i].type == type) {
            atomic_fetch_add(&named[i].dt->refs, 1);
            return named[i].dt;
        }
    }
    return NULL;
}

/* Contract in dtype.h: a new reference to the decoded form of type, decoded
 * and cached on first use.  Thread-safe; local. */
int rio__dtype_get(MPI_Datatype type, struct rio_dtype **out)
{
    struct rio_dtype *dt = NULL, *old;
    void *val = NULL;
    int flag = 0, err, predef;
    *out = NULL;
    if (type == MPI_DATATYPE_NULL) {
        rio__err_detail("MPI_DATATYPE_NULL");
        return RIO_E_TYPE;
    }
    dt = named_find(type);
    if (dt) {
        *out = dt;
        return 0;
    }
    predef = rio__dtype_is_predefined(type);
    pthread_mutex_lock(&cache_lock);
    err = setup();
    pthread_mutex_unlock(&cache_lock);
    if (err)
        return err;
    if (!predef) {
        MPI_Type_get_attr(type, type_keyval, &val, &flag);
        if (flag && val) {
            dt = val;
            atomic_fetch_add(&dt->refs, 1);
            *out = dt;
            return 0;
        }
    }
    if (!predef) {
        err = check_committed(type);
        if (err)
            return err;
    }
    err = build(type, &dt);
    if (err)
        return err;
    if (predef) {
        pthread_mutex_lock(&cache_lock);
        old = named_find(type);
        int n = atomic_load_explicit(&nnamed, memory_order_relaxed);
        if (!old && n < NAMED_MAX) {
            atomic_fetch_add(&dt->refs, 1);
            named[n].type = type;
            named[n].dt = dt;
            atomic_store_explicit(&nnamed, n + 1, memory_order_release);
        }
        pthread_mutex_unlock(&cache_lock);
        if (old) {
            rio__dtype_put(dt);
            dt = old;
        }
    } else {
        atomic_fetch_add(&dt->refs, 1);
        if (MPI_Type_set_attr(type, type_keyval, dt) != MPI_SUCCESS)
            atomic_fetch_sub(&dt->refs, 1);
    }
    *out = dt;
    return 0;
}

/* One more reference to a form the caller holds. */
struct rio_dtype *rio__dtype_hold(struct rio_dtype *dt)
{
    atomic_fetch_add(&dt->refs, 1);
    return dt;
}

/* Drop one reference; the last one frees the form.  NULL is fine. */
void rio__dtype_put(struct rio_dtype *dt)
{
    if (!dt)
        return;
    if (atomic_fetch_sub(&dt->refs, 1) == 1) {
        rio__dl_free(dt->root);
        free(dt);
    }
}

/* The facts of dt; valid while the caller holds its reference. */
const struct rio_dtype_info *rio__dtype_info(const struct rio_dtype *dt)
{
    return &dt->info;
}

/* Contract in dtype.h. */
const struct rio_dl *rio__dtype_dloop(const struct rio_dtype *dt)
{
    return dt->root;
}
