/*
 * ceph_common.c — the hints, library loading and connection sharing of the
 * Ceph drivers (ceph_common.h says what and why).
 *
 * A connection is kept while a file of it is open and dropped at the last
 * close, not kept for the life of the process: a process that exits with a
 * CephFS session open leaves the metadata server holding its capabilities
 * until the session times out (cephfs.c), and a librados connection left
 * open costs the monitor and the OSDs a session each.  The table of
 * connections is guarded by the client's mutex, so threads may open and
 * close files at once; connecting happens under it too (a second thread
 * asking for the same cluster waits for the first one's connection rather
 * than making its own).
 */
#include "ceph_common.h"

#if defined(RIO_HAVE_CEPHFS) || defined(RIO_HAVE_RADOS)

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CEPH_DEFAULT_TIMEOUT 30

/* resonio_rados_view's values, by enum rio_rados_view. */
static const char *view_choice(int i)
{
    static const char *const names[] = {"auto", "lua", "list"};
    return i >= 0 && i < 3 ? names[i] : NULL;
}

#define F(m) offsetof(struct rio_ceph_settings, m)
static const struct rio_setting ceph_keys[] = {
    {"resonio_ceph_conf", RIO_SET_STR, F(conf), NULL, RIO_SET_OPEN_ONLY,
     "Ceph configuration file of the cephfs: and rados: drivers (else CEPH_CONF)", NULL, NULL},
    {"resonio_ceph_timeout", RIO_SET_INT, F(timeout), "30", RIO_SET_OPEN_ONLY,
     "seconds the cephfs: and rados: drivers wait for the cluster (connect, monitor and OSD "
     "requests)",
     NULL, NULL},
    {"resonio_rados_view", RIO_SET_CHOICE, F(rados_view), "auto", 0,
     "how the rados: driver sends a view's datatype I/O: lua (the view's dataloop to each "
     "object's OSD, run by its lua class), list (compound operations of extents), auto (each "
     "request shape measured both ways, the faster kept)",
     view_choice, NULL},
};
#undef F

const struct rio_settings_owner rio__ceph_settings_owner =
    RIO_SETTINGS_OWNER("ceph", struct rio_ceph_settings, ceph_keys);

/* Load the library and resolve every call (caller holds c->mu). */
static int lib_load(struct rio_ceph_client *c)
{
    if (c->state == 0) {
        void *h = dlopen(c->soname, RTLD_NOW | RTLD_LOCAL);
        const char *miss = NULL;
        if (!h) {
            snprintf(c->error, sizeof c->error, "%s", dlerror());
        } else {
            for (int i = 0; i < c->ncalls && !miss; i++)
                if (!(*c->slots[i] = dlsym(h, c->names[i])))
                    miss = c->names[i];
            if (miss)
                snprintf(c->error, sizeof c->error, "%s lacks %s", c->soname, miss);
        }
        /* Never dlclose'd: a C++ library's static state outlives its
         * users badly, and a second load would cost as much again. */
        c->state = h && !miss ? 1 : -1;
    }
    if (c->state < 0) {
        rio__err_detail("%s: cannot load %s (%s): install %s", c->drv, c->soname, c->error,
                        c->package);
        return -ENOSYS;
    }
    return 0;
}

/* A new connection to the cluster conf names ("" : the library's search),
 * every wait bounded by timeout seconds: client_mount_timeout (the
 * monitors' first answer), rados_mon_op_timeout and rados_osd_op_timeout. */
static int conn_new(struct rio_ceph_client *c, const char *conf, int timeout, void **out)
{
    static const char *const keys[] = {"client_mount_timeout", "rados_mon_op_timeout",
                                       "rados_osd_op_timeout"};
    const char *shown = *conf ? conf : "the default configuration";
    void *h = NULL;
    char tv[32];
    int r = c->create(&h);
    if (r < 0) {
        rio__err_detail("%s: cannot make a client of %s (%s)", c->drv, shown, strerror(-r));
        return r;
    }
    r = c->read_conf(h, *conf ? conf : NULL);
    if (r < 0) {
        rio__err_detail("%s: cannot read the Ceph configuration %s (%s)", c->drv, shown,
                        strerror(-r));
        r = -EIO; /* not the file's absence (ENOENT would say so) */
        goto out;
    }
    snprintf(tv, sizeof tv, "%d", timeout);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if ((r = c->set(h, keys[i], tv)) < 0) {
            rio__err_detail("%s: cannot set %s=%s for the cluster of %s (%s)", c->drv, keys[i],
                            tv, shown, strerror(-r));
            goto out;
        }
    }
    r = c->start(h);
    if (r < 0) {
        /* the library's error is the message's own cause: not repeated */
        rio__err_detail("%s: cannot %s %s (resonio_ceph_timeout %d s)", c->drv, c->start_what,
                        shown, timeout);
        /* no file system, or a configuration the library takes badly: not
         * the file's absence nor a bad argument of the caller's */
        if (r == -ENOENT || r == -EINVAL)
            r = -EIO;
    }
out:
    if (r < 0) {
        c->release(h);
        return r;
    }
    *out = h;
    return 0;
}

static long long connects_made; /* both clients' (rio__stat_add) */

long long rio__ceph_connects_made(void)
{
    return rio__stat_get(&connects_made);
}

int rio__ceph_conn_get(struct rio_ceph_client *c, const struct rio_hints *hints,
                       struct rio_ceph_conn **out)
{
    const struct rio_ceph_settings *s = rio__settings_get(hints, &rio__ceph_settings_owner);
    const char *conf = s->conf ? s->conf : getenv("CEPH_CONF");
    int timeout = s->timeout > 0 ? s->timeout : CEPH_DEFAULT_TIMEOUT, rc;
    if (!conf)
        conf = "";
    pthread_mutex_lock(&c->mu);
    if ((rc = lib_load(c)) == 0) {
        /* shared by the opens of one cluster with the same timeout, so
         * that each open's waits are bounded by its own value */
        struct rio_ceph_conn *m = c->conns;
        while (m && (strcmp(m->conf, conf) || m->timeout != timeout))
            m = m->next;
        if (m) {
            m->refs++;
            *out = m;
        } else if (!(m = rio__calloc(1, sizeof *m)) || !(m->conf = rio__strdup(conf))) {
            free(m);
            rc = RIO_E_NOMEM;
        } else if ((rc = conn_new(c, conf, timeout, &m->handle)) < 0) {
            free(m->conf);
            free(m);
        } else {
            rio__stat_add(&connects_made, 1);
            m->refs = 1;
            m->timeout = timeout;
            m->next = c->conns;
            c->conns = m;
            *out = m;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int rio__ceph_timed_out(const struct rio_ceph_conn *conn, int r, const char *doing)
{
    if (r == -ETIMEDOUT)
        rio__err_detail("an OSD did not answer%s%s%s within resonio_ceph_timeout %d s",
                        doing ? " (" : "", doing ? doing : "", doing ? ")" : "", conn->timeout);
    return r;
}

/* One reference less; the last disconnects.  With c->mu held. */
static int conn_drop(struct rio_ceph_client *c, struct rio_ceph_conn *m)
{
    if (--m->refs)
        return 0;
    struct rio_ceph_conn **p = &c->conns;
    while (*p != m)
        p = &(*p)->next;
    *p = m->next;
    int rc = c->disconnect(m->handle);
    free(m->conf);
    free(m);
    return rc;
}

int rio__ceph_conn_put(struct rio_ceph_client *c, struct rio_ceph_conn *m)
{
    pthread_mutex_lock(&c->mu);
    int rc = conn_drop(c, m);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int rio__ceph_conn_keep(struct rio_ceph_client *c, struct rio_ceph_conn *m)
{
    pthread_mutex_lock(&c->mu);
    int kept = !m->kept;
    m->kept = 1;
    pthread_mutex_unlock(&c->mu);
    return kept;
}

void rio__ceph_conn_unkeep_all(struct rio_ceph_client *c)
{
    pthread_mutex_lock(&c->mu);
    struct rio_ceph_conn *m = c->conns, *next;
    for (; m; m = next) {
        next = m->next; /* read first: the drop may free m */
        if (m->kept) {
            m->kept = 0;
            conn_drop(c, m);
        }
    }
    pthread_mutex_unlock(&c->mu);
}

#endif /* RIO_HAVE_CEPHFS || RIO_HAVE_RADOS */
