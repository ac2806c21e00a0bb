/*
 * ceph_common.h — what the two Ceph drivers (cephfs:, rados:) share: their
 * hints, the library loaded at first use, and one connection per
 * configuration per process, reference counted.
 *
 * Both drivers load their Ceph library with dlopen at their first open
 * rather than linking it (cephfs.c says why: ~35 ms at every process
 * start), keep one connection (a libcephfs mount, a librados cluster
 * handle) per configuration file per process for as long as a file of it
 * is open, and bound their waits with the same timeout.  The code for all
 * of that lives here once; each driver brings the calls that connect and
 * disconnect with its own library.
 */
#ifndef RIO_CEPH_COMMON_H
#define RIO_CEPH_COMMON_H

#include "store.h"

#include <pthread.h>

/* The hints of both Ceph drivers (resonio_ceph_conf, resonio_ceph_timeout). */
struct rio_ceph_settings {
    char *conf;  /* owned; NULL: CEPH_CONF, else the library's search */
    int timeout; /* seconds */
};
extern const struct rio_settings_owner rio__ceph_settings_owner;

/* One connection to the cluster of a configuration file. */
struct rio_ceph_conn {
    struct rio_ceph_conn *next;
    char *conf;   /* "" for the library's own search */
    void *handle; /* the driver's: struct ceph_mount_info *, rados_t */
    int refs;
};

/* A driver's library and its connections.  Define one per driver, static,
 * with the mutex initialized (PTHREAD_MUTEX_INITIALIZER) and the rest
 * filled as below; state, error and conns start zeroed. */
struct rio_ceph_client {
    const char *drv;              /* "cephfs", "rados": for messages */
    const char *soname;           /* the library, e.g. "librados.so.2" */
    const char *package;          /* what to install when it is missing */
    const char *const *names;     /* the calls to resolve ... */
    void **const *slots;          /* ... and where each one goes */
    int ncalls;
    /* The library's steps of a connection, each -errno on failure: make a
     * handle, read a configuration file into it (NULL: the library's
     * search), set one option, then connect (mount, for CephFS), which
     * start_what names in messages ("mount the file system of").  release
     * frees a handle that never connected; disconnect ends a connection
     * and frees its handle, returning the library's error, if any. */
    int (*create)(void **handle);
    int (*read_conf)(void *handle, const char *path);
    int (*set)(void *handle, const char *key, const char *val);
    int (*start)(void *handle);
    const char *start_what;
    void (*release)(void *handle);
    int (*disconnect)(void *handle);
    pthread_mutex_t mu;
    int state; /* 0 not tried, 1 loaded, -1 failed (guarded by mu) */
    char error[256];
    struct rio_ceph_conn *conns;
};

/** The shared connection of c for the configuration the hints name
 *  (resonio_ceph_conf, else CEPH_CONF, else the library's search), loading
 *  the library and connecting if need be; one more reference.  -ENOSYS when
 *  the library cannot be loaded, the connect's -errno otherwise, with a
 *  detail. */
int rio__ceph_conn_get(struct rio_ceph_client *c, const struct rio_hints *hints,
                       struct rio_ceph_conn **out);
/** One reference less; the last disconnects.  Returns the disconnect's
 *  error. */
int rio__ceph_conn_put(struct rio_ceph_client *c, struct rio_ceph_conn *conn);

#ifdef RIO_HAVE_RADOS
/** The primary OSD of the n objects prefix.<first + i, digits hex digits>
 *  of pool, asking the monitor of the cluster the hints name through
 *  rados:'s connection (made for the call if no rados: file holds one):
 *  for storage that names its objects so (CephFS: <inode>.<8 digits>).
 *  0 or -errno. */
int rio__rados_osds(const struct rio_hints *hints, const char *pool, const char *prefix,
                    int digits, long long first, int n, int *out);
#endif

#endif /* RIO_CEPH_COMMON_H */
