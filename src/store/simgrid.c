/*
 * simgrid.c — striped storage on a simulated cluster ("simgrid:NAME"),
 * for resonio built with SimGrid's smpicc (RESONIO_SMPI): the ranks are
 * simulated, and so is the storage they write to.
 *
 * The storage targets are hosts of the simulated platform: those the hint
 * resonio_simgrid_targets names (comma-separated), else every host with
 * the property resonio_storage, in name order.  The first open that finds
 * a target without a server starts one there: an actor that receives
 * requests on the target's mailbox and serves them one at a time, in
 * arrival order, charging each the time of the emulated storage's disk
 * model (src/emu/model.c, the model resonio-emud waits for in real time:
 * seek and rotation when an access does not start where the last one
 * ended, read-ahead while the disk is idle, the buffer cache that
 * prefetches fill, extent-lock revocations) as simulated time.  A file is
 * striped round-robin over striping_factor targets (default all) in units
 * of striping_unit (default 1 MiB), its first target rotating with the
 * file's id, as on resonio-emud.
 *
 * A request is split by the layout into one request per target, each
 * sent over the simulated network from the rank's host to the target's
 * (the data with a write, the data back with a read's reply), all sent
 * before the replies are collected, in chunks of 8 MiB as resonio-emud's
 * client sends them: a target sees the same request stream from both.
 * The bytes themselves move in memory (the ranks and the servers share
 * one address space) when the server serves the request, so the order of
 * accesses is the simulated order.
 * With resonio_simgrid_data=checksum the data is not kept: writes add to
 * a per-target sum of (offset, byte) pairs and reads return zeros, for
 * runs too large to hold.
 *
 * Everything shared between ranks (the targets, the files) hangs off the
 * simulated hosts (sg_host_set_data), since each rank has its own copy of
 * resonio's globals.  Metadata (open, size, remove) costs no simulated
 * time, and there are no byte-range locks.  SMPI copies every message's
 * payload as bytes (its copy callback replaces SimGrid's pointer copy), so
 * what crosses a mailbox is the address of a request's `self` field,
 * whose bytes are the request's address.
 */
#include "store.h"
#include "simgrid.h"
#include "../emu/model.h"
#include "../emu/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <simgrid/actor.h>
#include <simgrid/comm.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/mailbox.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xbt/dict.h>

#define SG_MAGIC 0x72696f7367746774ULL /* marks a host's data as a target of this driver */
#define MSG_HEADER 64                  /* simulated bytes of a request's or reply's header */
#define PIECE_BYTES 16                 /* simulated bytes of one (offset, length) pair */
#define MAX_TARGETS 1024
#define CHUNK ((int64_t)8 << 20)       /* stream bytes per flush, as resonio-emud's client */

/* resonio_simgrid_targets, _model, _data. */
struct sg_settings {
    char *targets; /* owned */
    char *model;   /* owned */
    char *data;    /* owned */
};
static int check_model(const char *v)
{
    enum rio_emu_model_kind m;
    return rio__emu_model_parse(v, &m);
}
static int check_data(const char *v)
{
    return strcmp(v, "keep") && strcmp(v, "checksum");
}
static const struct rio_setting sg_keys[] = {
    {"resonio_simgrid_targets", RIO_SET_STR, offsetof(struct sg_settings, targets), NULL,
     RIO_SET_OPEN_ONLY, "simulated hosts of the storage targets, comma-separated (else the hosts "
     "with the property resonio_storage)", NULL, NULL},
    {"resonio_simgrid_model", RIO_SET_STR, offsetof(struct sg_settings, model), "hdd",
     RIO_SET_OPEN_ONLY, "disk model of targets this open starts: hdd, ssd or none", NULL,
     check_model},
    {"resonio_simgrid_data", RIO_SET_STR, offsetof(struct sg_settings, data), "keep",
     RIO_SET_OPEN_ONLY, "keep a created file's data, or only a checksum of it (checksum)", NULL,
     check_data},
};
static const struct rio_settings_owner sg_owner =
    RIO_SETTINGS_OWNER("simgrid", struct sg_settings, sg_keys);

/* ---- shared state: targets and files ------------------------------------------- */

struct sgobj {              /* a file's object on one target */
    unsigned char *data;    /* NULL when the file keeps checksums only */
    int64_t len, cap;
    struct rio_emu_xlocks locks;
};

struct sgfile {
    struct sgfile *next;
    char *name;
    uint64_t fid;
    int64_t unit, size;
    int count, keep;
    struct sgtarget **tg;   /* count: the target of each stripe column */
    struct sgobj *obj;      /* count: each column's object */
};

struct sgtarget {
    uint64_t magic;
    int index;
    char host[64], mbox[80];
    struct rio_emu_disk_cfg cfg;
    struct rio_emu_disk disk;
    struct rio_emu_cache cache;
    double last_done;       /* simulated time the disk last fell idle; 0 before */
    int first_access;
    struct rio_simgrid_stats st;
    sg_comm_t *replies;     /* replies in flight */
    int nreplies, capreplies;
    struct sgfile *files;   /* target 0: every file */
    uint64_t next_fid;      /* target 0 */
};

enum { OP_READ, OP_WRITE, OP_PREFETCH };

struct sgpiece {
    int64_t obj, len;
    unsigned char *mem;     /* NULL for a prefetch */
};

struct sgreq {
    struct sgreq *self;     /* what crosses the mailbox (see the top) */
    struct sgfile *f;
    int t, op;
    uint64_t client;
    struct sgpiece *p;
    int n, cap;
    int64_t bytes;
    sg_mailbox_t reply;
};

/* Per open file of one rank. */
struct sfile {
    struct sgfile *f;
    uint64_t client;
    sg_mailbox_t reply;
};

static struct sgtarget *target_of(sg_host_t h)
{
    struct sgtarget *T = h ? sg_host_get_data(h) : NULL;
    return T && T->magic == SG_MAGIC ? T : NULL;
}

/* ---- the server ------------------------------------------------------------------ */

/* Add len bytes written at object offset obj to T's checksum: a sum over
 * the bytes, so the order of the writes does not matter. */
static void fold(struct sgtarget *T, int64_t obj, const unsigned char *p, int64_t len)
{
    for (int64_t i = 0; i < len; i++) {
        uint64_t at = (uint64_t)(obj + i);
        T->st.checksum += (uint64_t)(p[i] + 1) * ((at * 0x9e3779b97f4a7c15ULL) | 1);
    }
}

static int obj_reserve(struct sgobj *o, int64_t need)
{
    if (need <= o->cap)
        return 0;
    int64_t cap = o->cap ? o->cap : 1 << 16;
    while (cap < need)
        cap *= 2;
    unsigned char *d = realloc(o->data, (size_t)cap);
    if (!d)
        return -ENOMEM;
    o->data = d;
    o->cap = cap;
    return 0;
}

/* The data of one disk access: into the object (write) or out of it. */
static void move_data(struct sgtarget *T, struct sgreq *r, struct sgobj *o, const struct sgpiece *p)
{
    if (r->op == OP_PREFETCH)
        return;
    if (r->op == OP_WRITE) {
        T->st.bytes_written += (uint64_t)p->len;
        if (!r->f->keep) {
            fold(T, p->obj, p->mem, p->len);
            o->len = o->len > p->obj + p->len ? o->len : p->obj + p->len;
            return;
        }
        if (obj_reserve(o, p->obj + p->len))
            return; /* out of memory: the read-back check finds it */
        if (p->obj > o->len)
            memset(o->data + o->len, 0, (size_t)(p->obj - o->len));
        memcpy(o->data + p->obj, p->mem, (size_t)p->len);
        if (p->obj + p->len > o->len)
            o->len = p->obj + p->len;
        return;
    }
    int64_t have = o->data && p->obj < o->len ? o->len - p->obj : 0;
    if (have > p->len)
        have = p->len;
    if (have > 0)
        memcpy(p->mem, o->data + p->obj, (size_t)have);
    memset(p->mem + (have > 0 ? have : 0), 0, (size_t)(p->len - (have > 0 ? have : 0)));
    T->st.bytes_read += (uint64_t)(have > 0 ? have : 0);
}

/* Charge one disk access of [obj, obj+len) of r's object, as resonio-emud's
 * run_flush does. */
static double access_time(struct sgtarget *T, struct sgreq *r, int64_t obj, int64_t len)
{
    struct sgobj *o = &r->f->obj[r->t];
    int hit = 0, seq;
    int64_t seek;
    if (r->op == OP_WRITE)
        rio__emu_cache_drop(&T->cache, r->f->fid, obj, obj + len);
    else if (r->op == OP_READ)
        hit = rio__emu_cache_hit(&T->cache, r->f->fid, obj, obj + len);
    else
        rio__emu_cache_add(&T->cfg, &T->cache, r->f->fid, obj, obj + len);
    double t = rio__emu_model_lock(&T->cfg, &o->locks, r->client, obj, obj + len,
                                   r->op == OP_WRITE, &T->st.revocations);
    if (hit) {
        T->st.cache_hits++;
        return t + rio__emu_cache_time(&T->cfg, len);
    }
    t += rio__emu_model_access(&T->cfg, &T->disk, rio__emu_model_addr(&T->cfg, r->f->fid, obj),
                               len, r->op == OP_WRITE, &seq, &seek);
    T->st.accesses++;
    T->st.seek_bytes += (uint64_t)seek;
    if (T->first_access) {
        T->first_access = 0;
    } else {
        T->st.judged++;
        T->st.sequential += (uint64_t)seq;
    }
    return t;
}

/* Serve r: move its data and return its modelled time; adjacent pieces
 * make one access. */
static double serve_req(struct sgtarget *T, struct sgreq *r)
{
    struct sgobj *o = &r->f->obj[r->t];
    double t = 0;
    int64_t run_obj = 0, run_len = 0;
    for (int i = 0; i < r->n; i++) {
        move_data(T, r, o, &r->p[i]);
        if (run_len && run_obj + run_len == r->p[i].obj) {
            run_len += r->p[i].len;
            continue;
        }
        if (run_len)
            t += access_time(T, r, run_obj, run_len);
        run_obj = r->p[i].obj;
        run_len = r->p[i].len;
    }
    if (run_len)
        t += access_time(T, r, run_obj, run_len);
    return t;
}

/* Drop the replies whose transfer has ended. */
static void reap_replies(struct sgtarget *T)
{
    for (int i = 0; i < T->nreplies;)
        if (sg_comm_test(T->replies[i]))
            T->replies[i] = T->replies[--T->nreplies];
        else
            i++;
}

/* The server actor of one target: requests in arrival order, one at a
 * time, each taking its modelled time; a daemon, ended with the
 * simulation. */
static void server_main(int argc, char **argv)
{
    struct sgtarget *T = target_of(sg_host_self());
    sg_mailbox_set_receiver(T->mbox); /* senders' transfers start at once */
    sg_mailbox_t mb = sg_mailbox_by_name(T->mbox);
    for (;;) {
        struct sgreq *r = sg_mailbox_get(mb);
        double now = simgrid_get_clock();
        if (T->last_done > 0 && now > T->last_done)
            T->disk.idle += now - T->last_done; /* the disk read ahead meanwhile */
        double t = serve_req(T, r);
        if (t > 0)
            sg_actor_sleep_for(t);
        T->st.busy_s += t;
        T->st.requests++;
        T->last_done = simgrid_get_clock();
        reap_replies(T);
        if (r->op == OP_PREFETCH) { /* answered when it arrived */
            free(r->p);
            free(r);
            continue;
        }
        if (T->nreplies == T->capreplies) {
            int cap = T->capreplies ? 2 * T->capreplies : 64;
            sg_comm_t *n = realloc(T->replies, sizeof *n * (size_t)cap);
            if (!n)
                abort(); /* the client would wait forever */
            T->replies = n;
            T->capreplies = cap;
        }
        long size = MSG_HEADER + (r->op == OP_READ ? (long)r->bytes : 0);
        T->replies[T->nreplies++] = sg_mailbox_put_async(r->reply, &r->self, size);
    }
}

/* The disk parameters host h's properties give (resonio_disk_rate_mbs
 * and so on, the names of model.c) over the defaults in c; 0 or -EINVAL
 * for a property that names no parameter (a misspelt name would leave the
 * default silently in place) or whose value is no number in the
 * parameter's range. */
static int host_disk(sg_host_t h, struct rio_emu_disk_cfg *c)
{
    static const char prefix[] = "resonio_disk_";
    const size_t pre = sizeof prefix - 1;
    char why[320] = "";
    xbt_dict_t props = sg_host_get_properties(h);
    xbt_dict_cursor_t cur;
    char *key, *val;
    xbt_dict_foreach(props, cur, key, val) /* runs to the end: it frees the cursor there */
    {
        if (why[0] || strncmp(key, prefix, pre))
            continue;
        double lo = 0, hi = 0;
        const char *name;
        int k = 0;
        while ((name = rio__emu_model_param(k, &lo, &hi)) && strcmp(key + pre, name))
            k++;
        if (!name) {
            snprintf(why, sizeof why, "property %s names no disk parameter", key);
            continue;
        }
        char *end;
        double d = strtod(val, &end);
        if (end == val || *end || rio__emu_model_set(c, name, d))
            snprintf(why, sizeof why, "property %s='%s' is not a number in [%g, %g]", key, val,
                     lo, hi);
    }
    xbt_dict_free(&props);
    if (why[0]) {
        rio__err_detail("simulated host '%s': %s", sg_host_get_name(h), why);
        return -EINVAL;
    }
    return 0;
}

/* The target on host h, started if it has none yet, in *out; 0 or
 * -errno. */
static int target_start(sg_host_t h, int index, enum rio_emu_model_kind model,
                        struct sgtarget **out)
{
    struct sgtarget *T = target_of(h);
    if ((*out = T))
        return 0;
    struct rio_emu_disk_cfg cfg;
    rio__emu_model_defaults(&cfg);
    cfg.model = model;
    int rc = host_disk(h, &cfg);
    if (rc)
        return rc;
    if (!(T = calloc(1, sizeof *T)))
        return RIO_E_NOMEM;
    T->magic = SG_MAGIC;
    T->index = index;
    snprintf(T->host, sizeof T->host, "%s", sg_host_get_name(h));
    snprintf(T->mbox, sizeof T->mbox, "resonio-target-%s", T->host);
    T->cfg = cfg;
    T->disk.head = -1;
    T->first_access = 1;
    T->next_fid = 1;
    snprintf(T->st.host, sizeof T->st.host, "%s", T->host);
    T->st.model = rio__emu_model_name(model);
    sg_host_set_data(h, T);
    sg_actor_t a = sg_actor_create(T->mbox, h, server_main, 0, NULL);
    sg_actor_daemonize(a);
    *out = T;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(sg_host_get_name(*(const sg_host_t *)a), sg_host_get_name(*(const sg_host_t *)b));
}

/* The targets the hints name, in order, started; their number or -errno. */
static int targets_find(const struct rio_hints *hints, struct sgtarget **tg, int max)
{
    const struct sg_settings *s = rio__settings_get(hints, &sg_owner);
    enum rio_emu_model_kind model = RIO_EMU_MODEL_HDD;
    sg_host_t hosts[MAX_TARGETS];
    int n = 0;
    if (s->model)
        rio__emu_model_parse(s->model, &model);
    if (s->targets) {
        char buf[4096], *save = NULL;
        snprintf(buf, sizeof buf, "%s", s->targets);
        for (char *tok = strtok_r(buf, ",", &save); tok && n < max;
             tok = strtok_r(NULL, ",", &save)) {
            if (!(hosts[n] = sg_host_by_name(tok))) {
                rio__err_detail("no simulated host '%s' (resonio_simgrid_targets)", tok);
                return -ENOENT;
            }
            n++;
        }
    } else {
        size_t count = sg_host_count();
        sg_host_t *all = sg_host_list();
        for (size_t i = 0; i < count && n < max; i++)
            if (sg_host_get_property_value(all[i], "resonio_storage"))
                hosts[n++] = all[i];
        free(all);
        qsort(hosts, (size_t)n, sizeof hosts[0], by_name);
    }
    if (!n) {
        rio__err_detail("no storage targets: no host of the platform has the property "
                        "resonio_storage and the hint resonio_simgrid_targets is unset");
        return -ENODEV;
    }
    for (int i = 0; i < n; i++) {
        int rc = target_start(hosts[i], i, model, &tg[i]);
        if (rc)
            return rc;
    }
    return n;
}

/* ---- files ----------------------------------------------------------------------- */

static void file_free(struct sgfile *f)
{
    if (!f)
        return;
    for (int i = 0; f->obj && i < f->count; i++)
        free(f->obj[i].data);
    free(f->obj);
    free(f->tg);
    free(f->name);
    free(f);
}

static struct sgfile **file_slot(struct sgtarget *T0, const char *name)
{
    struct sgfile **p = &T0->files;
    while (*p && strcmp((*p)->name, name))
        p = &(*p)->next;
    return p;
}

static struct sfile *sf_of(struct rio_store *st)
{
    return st->priv;
}

static int s_set_size(struct rio_store *st, MPI_Offset size);

static int s_open(struct rio_store *st, const char *path, int oflags, mode_t perm,
                  const struct rio_hints *hints)
{
    struct sgtarget *tg[MAX_TARGETS];
    int n = targets_find(hints, tg, MAX_TARGETS);
    if (n < 0)
        return n;
    struct sgfile **slot = file_slot(tg[0], path), *f = *slot;
    if (f && (oflags & O_CREAT) && (oflags & O_EXCL)) {
        rio__err_detail("simgrid file '%s' exists", path);
        return -EEXIST;
    }
    if (!f && !(oflags & O_CREAT)) {
        rio__err_detail("no simgrid file '%s'", path);
        return -ENOENT;
    }
    if (!f) {
        const struct rio_store_settings *lay = rio__store_settings(hints);
        const struct sg_settings *s = rio__settings_get(hints, &sg_owner);
        if (!(f = calloc(1, sizeof *f)))
            return RIO_E_NOMEM;
        f->unit = lay->striping_unit > 0 ? lay->striping_unit : 1 << 20;
        f->count = lay->striping_factor > 0 && lay->striping_factor < n ? lay->striping_factor : n;
        f->keep = !s->data || strcmp(s->data, "checksum");
        f->fid = tg[0]->next_fid++;
        f->name = strdup(path);
        f->tg = calloc((size_t)f->count, sizeof *f->tg);
        f->obj = calloc((size_t)f->count, sizeof *f->obj);
        if (!f->name || !f->tg || !f->obj) {
            file_free(f);
            return RIO_E_NOMEM;
        }
        /* stripe column j on target (first + j) % n, first rotating with
         * the file id, as resonio-emud places files */
        for (int j = 0; j < f->count; j++)
            f->tg[j] = tg[(int)((f->fid - 1 + (uint64_t)j) % (uint64_t)n)];
        *slot = f;
    }
    struct sfile *sf = calloc(1, sizeof *sf);
    if (!sf)
        return RIO_E_NOMEM;
    char name[64];
    sf->f = f;
    sf->client = (uint64_t)sg_actor_self_get_pid();
    snprintf(name, sizeof name, "resonio-reply-%llu", (unsigned long long)sf->client);
    sg_mailbox_set_receiver(name); /* replies' transfers start at once */
    sf->reply = sg_mailbox_by_name(name);
    st->priv = sf;
    return oflags & O_TRUNC ? s_set_size(st, 0) : 0;
}

static int s_close(struct rio_store *st)
{
    free(st->priv);
    st->priv = NULL;
    return 0;
}

static int s_remove(const char *path, const struct rio_hints *hints)
{
    struct sgtarget *tg[MAX_TARGETS];
    int n = targets_find(hints, tg, MAX_TARGETS);
    if (n < 0)
        return n;
    struct sgfile **slot = file_slot(tg[0], path), *f = *slot;
    if (!f)
        return -ENOENT;
    *slot = f->next;
    for (int i = 0; i < f->count; i++)
        rio__emu_cache_drop(&f->tg[i]->cache, f->fid, 0, INT64_MAX);
    file_free(f); /* open handles of a removed file are the caller's error, as on emu */
    return 0;
}

static int s_get_size(struct rio_store *st, MPI_Offset *size)
{
    *size = sf_of(st)->f->size;
    return 0;
}

/* Bytes of a file of size bytes that object t holds. */
static int64_t obj_len(const struct sgfile *f, int64_t size, int t)
{
    int64_t stripes = size / f->unit, rem = size % f->unit, len = stripes / f->count * f->unit;
    int64_t last = stripes % f->count;
    return len + (t < last ? f->unit : t == last ? rem : 0);
}

static int s_set_size(struct rio_store *st, MPI_Offset size)
{
    struct sgfile *f = sf_of(st)->f;
    for (int t = 0; t < f->count; t++) {
        int64_t keep = obj_len(f, size, t);
        if (f->obj[t].len > keep)
            f->obj[t].len = keep;
        rio__emu_cache_drop(&f->tg[t]->cache, f->fid, keep, INT64_MAX);
    }
    f->size = size;
    return 0;
}

static int s_allocate(struct rio_store *st, MPI_Offset off, MPI_Offset len)
{
    struct sgfile *f = sf_of(st)->f;
    if (off + len > f->size)
        f->size = off + len;
    return 0;
}

static int s_sync(struct rio_store *st)
{
    return 0;
}

/* ---- transfers ------------------------------------------------------------------- */

/* One contiguous file range and its memory. */
struct seg {
    MPI_Offset off, len;
    unsigned char *mem;
};

static int req_add(struct sgreq *r, int64_t obj, int64_t len, unsigned char *mem)
{
    if (r->n == r->cap) {
        int cap = r->cap ? 2 * r->cap : 16;
        struct sgpiece *p = realloc(r->p, sizeof *p * (size_t)cap);
        if (!p)
            return RIO_E_NOMEM;
        r->p = p;
        r->cap = cap;
    }
    r->p[r->n++] = (struct sgpiece){obj, len, mem};
    r->bytes += len;
    return 0;
}

/* Send the requests of the current chunk (one per target holding pieces)
 * and wait for every reply (a prefetch waits only for its requests to
 * arrive; its server frees them).  The requests are emptied for the next
 * chunk. */
static int flush(struct sfile *sf, int op, struct sgreq **req, sg_comm_t *comms)
{
    struct sgfile *f = sf->f;
    int sent = 0;
    for (int j = 0; j < f->count; j++) {
        struct sgreq *r = req[j];
        if (!r || !r->n)
            continue;
        *r = (struct sgreq){r, f, j, op, sf->client, r->p, r->n, r->cap, r->bytes, sf->reply};
        long size = MSG_HEADER + PIECE_BYTES * (long)r->n + (op == OP_WRITE ? (long)r->bytes : 0);
        comms[sent++] = sg_mailbox_put_async(sg_mailbox_by_name(f->tg[j]->mbox), &r->self, size);
        if (op == OP_PREFETCH)
            req[j] = NULL;
    }
    sg_comm_wait_all(comms, (size_t)sent);
    if (op != OP_PREFETCH)
        for (int i = 0; i < sent; i++)
            sg_mailbox_get(sf->reply);
    for (int j = 0; j < f->count; j++)
        if (req[j])
            req[j]->n = 0, req[j]->bytes = 0;
    return 0;
}

/* Send the segments, cut at stripe boundaries into one request per
 * target, in chunks as resonio-emud's client sends them (CHUNK bytes, at
 * most RIO_EMU_MAX_LIST pieces per target), so that a target sees the
 * same request stream from both; each chunk's requests all go out before
 * its replies are awaited. */
static int rw(struct rio_store *st, int op, const struct seg *sg, int nseg)
{
    struct sfile *sf = sf_of(st);
    struct sgfile *f = sf->f;
    struct sgreq **req = calloc((size_t)f->count, sizeof *req);
    sg_comm_t *comms = calloc((size_t)f->count, sizeof *comms);
    int64_t cbytes = 0;
    int rc = 0;
    if (!req || !comms) {
        rc = RIO_E_NOMEM;
        goto out;
    }
    for (int i = 0; i < nseg && !rc; i++) {
        int64_t off = sg[i].off, left = sg[i].len;
        unsigned char *mem = sg[i].mem;
        while (left > 0 && !rc) {
            int64_t s = off / f->unit, within = off % f->unit;
            int64_t len = f->unit - within < left ? f->unit - within : left;
            if (len > CHUNK - cbytes)
                len = CHUNK - cbytes;
            int j = (int)(s % f->count);
            if (!req[j] && !(req[j] = calloc(1, sizeof *req[j]))) {
                rc = RIO_E_NOMEM;
                break;
            }
            if (req[j]->n >= RIO_EMU_MAX_LIST) {
                rc = flush(sf, op, req, comms);
                cbytes = 0;
                continue;
            }
            if ((rc = req_add(req[j], s / f->count * f->unit + within, len, mem)))
                break;
            off += len;
            left -= len;
            if (mem)
                mem += len;
            if ((cbytes += len) == CHUNK) {
                rc = flush(sf, op, req, comms);
                cbytes = 0;
            }
        }
        if (op == OP_WRITE && sg[i].off + sg[i].len > f->size)
            f->size = sg[i].off + sg[i].len;
    }
    if (!rc)
        rc = flush(sf, op, req, comms);
out:
    for (int j = 0; req && j < f->count; j++)
        if (req[j]) {
            free(req[j]->p);
            free(req[j]);
        }
    free(req);
    free(comms);
    return rc;
}

/* The bytes a read of the segments finds before the first short one. */
static MPI_Offset readable(const struct sgfile *f, const struct seg *sg, int n)
{
    MPI_Offset done = 0;
    for (int i = 0; i < n; i++) {
        MPI_Offset have = f->size - sg[i].off;
        if (have < sg[i].len) {
            done += have > 0 ? have : 0;
            break;
        }
        done += sg[i].len;
    }
    return done;
}

/* Vectored memory over one file range: one segment per iovec. */
static ssize_t vec(struct rio_store *st, int op, const struct iovec *iov, int n, MPI_Offset off)
{
    struct seg *sg = calloc((size_t)(n > 0 ? n : 1), sizeof *sg);
    if (!sg)
        return RIO_E_NOMEM;
    MPI_Offset pos = off;
    for (int i = 0; i < n; i++) {
        sg[i] = (struct seg){pos, (MPI_Offset)iov[i].iov_len, iov[i].iov_base};
        pos += (MPI_Offset)iov[i].iov_len;
    }
    MPI_Offset done = op == OP_READ ? readable(sf_of(st)->f, sg, n) : pos - off;
    int rc = rw(st, op, sg, n);
    free(sg);
    return rc ? rc : (ssize_t)done;
}

static ssize_t s_pread(struct rio_store *st, void *buf, size_t len, MPI_Offset off)
{
    struct iovec v = {buf, len};
    return vec(st, OP_READ, &v, 1, off);
}

static ssize_t s_pwrite(struct rio_store *st, const void *buf, size_t len, MPI_Offset off)
{
    struct iovec v = {(void *)buf, len};
    return vec(st, OP_WRITE, &v, 1, off);
}

static ssize_t s_preadv(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    return vec(st, OP_READ, iov, n, off);
}

static ssize_t s_pwritev(struct rio_store *st, const struct iovec *iov, int n, MPI_Offset off)
{
    return vec(st, OP_WRITE, iov, n, off);
}

static int list(struct rio_store *st, int op, const struct rio_region *file,
                const struct iovec *mem, int n, MPI_Offset *done)
{
    struct seg *sg = calloc((size_t)(n > 0 ? n : 1), sizeof *sg);
    if (!sg)
        return RIO_E_NOMEM;
    for (int i = 0; i < n; i++)
        sg[i] = (struct seg){file[i].off, file[i].len, mem ? mem[i].iov_base : NULL};
    if (done)
        *done = readable(sf_of(st)->f, sg, n);
    int rc = rw(st, op, sg, n);
    free(sg);
    return rc;
}

static int s_read_list(struct rio_store *st, const struct rio_region *file,
                       const struct iovec *mem, int n, MPI_Offset *done)
{
    return list(st, OP_READ, file, mem, n, done);
}

static int s_write_list(struct rio_store *st, const struct rio_region *file,
                        const struct iovec *mem, int n)
{
    return list(st, OP_WRITE, file, mem, n, NULL);
}

static int s_prefetch(struct rio_store *st, const struct rio_region *reg, int n)
{
    return list(st, OP_PREFETCH, reg, NULL, n, NULL);
}

static int s_layout(struct rio_store *st, struct rio_layout *out)
{
    out->unit = sf_of(st)->f->unit;
    out->count = sf_of(st)->f->count;
    out->known = 1;
    out->object_size = 0;
    return 0;
}

const struct rio_store_ops rio__store_simgrid = {
    .name = "simgrid",
    .version = RIO_STORE_OPS_VERSION,
    .open = s_open,
    .close = s_close,
    .remove = s_remove,
    .get_size = s_get_size,
    .set_size = s_set_size,
    .allocate = s_allocate,
    .sync = s_sync,
    .pread = s_pread,
    .pwrite = s_pwrite,
    .preadv = s_preadv,
    .pwritev = s_pwritev,
    .read_list = s_read_list,
    .write_list = s_write_list,
    .layout = s_layout,
    .prefetch = s_prefetch,
    .settings = &sg_owner,
};

/* ---- statistics ------------------------------------------------------------------ */

/* Contract in simgrid.h. */
int rio__simgrid_stats(struct rio_simgrid_stats *out, int max)
{
    size_t count = sg_host_count();
    sg_host_t *all = sg_host_list();
    int n = 0;
    for (size_t i = 0; i < count; i++) {
        struct sgtarget *T = target_of(all[i]);
        if (!T)
            continue;
        if (T->index < max)
            out[T->index] = T->st;
        n++;
    }
    free(all);
    return n;
}

/* Contract in simgrid.h. */
void rio__simgrid_stats_reset(void)
{
    size_t count = sg_host_count();
    sg_host_t *all = sg_host_list();
    for (size_t i = 0; i < count; i++) {
        struct sgtarget *T = target_of(all[i]);
        if (!T)
            continue;
        struct rio_simgrid_stats z = {0};
        memcpy(z.host, T->st.host, sizeof z.host);
        z.model = T->st.model;
        T->st = z;
        T->first_access = 1;
    }
    free(all);
}

/* ---- reading files from outside ------------------------------------------------ */

/* Target 0 of the targets started so far (the metadata), or NULL. */
static struct sgtarget *target0(void)
{
    size_t count = sg_host_count();
    sg_host_t *all = sg_host_list();
    struct sgtarget *T0 = NULL;
    for (size_t i = 0; i < count && !T0; i++) {
        struct sgtarget *T = target_of(all[i]);
        if (T && T->index == 0)
            T0 = T;
    }
    free(all);
    return T0;
}

/* Contract in simgrid.h. */
int rio__simgrid_storage_hosts(void)
{
    size_t count = sg_host_count();
    sg_host_t *all = sg_host_list();
    int n = 0;
    for (size_t i = 0; i < count; i++)
        n += sg_host_get_property_value(all[i], "resonio_storage") != NULL;
    free(all);
    return n;
}

/* Contract in simgrid.h. */
long long rio__simgrid_file_size(const char *name)
{
    struct sgtarget *T0 = target0();
    struct sgfile *f = T0 ? *file_slot(T0, name) : NULL;
    return f ? f->size : -1;
}

/* Contract in simgrid.h. */
long long rio__simgrid_file_pread(const char *name, void *buf, long long len, long long off)
{
    struct sgtarget *T0 = target0();
    struct sgfile *f = T0 ? *file_slot(T0, name) : NULL;
    unsigned char *out = buf;
    if (!f || !f->keep)
        return -1;
    if (off >= f->size || len <= 0)
        return 0;
    if (len > f->size - off)
        len = f->size - off;
    for (long long done = 0; done < len;) {
        int64_t at = off + done, s = at / f->unit, within = at % f->unit;
        int64_t n = f->unit - within < len - done ? f->unit - within : len - done;
        const struct sgobj *o = &f->obj[s % f->count];
        int64_t obj = s / f->count * f->unit + within;
        int64_t have = o->data && obj < o->len ? o->len - obj : 0;
        if (have > n)
            have = n;
        if (have > 0)
            memcpy(out + done, o->data + obj, (size_t)have);
        memset(out + done + (have > 0 ? have : 0), 0, (size_t)(n - (have > 0 ? have : 0)));
        done += n;
    }
    return len;
}
