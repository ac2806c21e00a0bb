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

/* The hints of both Ceph drivers (resonio_ceph_conf, resonio_ceph_timeout)
 * and rados:'s path for datatype I/O (resonio_rados_view). */
struct rio_ceph_settings {
    char *conf;  /* owned; NULL: CEPH_CONF, else the library's search */
    int timeout; /* seconds */
    int rados_view; /* enum rio_rados_view: auto (measure), lua, list */
};
enum rio_rados_view { RIO_RADOS_VIEW_AUTO = 0, RIO_RADOS_VIEW_LUA, RIO_RADOS_VIEW_LIST };
extern const struct rio_settings_owner rio__ceph_settings_owner;

/* One connection to the cluster of a configuration file, for the opens
 * that ask the same timeout. */
struct rio_ceph_conn {
    struct rio_ceph_conn *next;
    char *conf;   /* "" for the library's own search */
    void *handle; /* the driver's: struct ceph_mount_info *, rados_t */
    int timeout;  /* seconds: the resonio_ceph_timeout of the open that
                   * connected, which bounds every wait of the connection */
    int refs;     /* the opens' holds, and the process's when kept */
    int kept;     /* one reference is the process's (rio__ceph_conn_keep) */
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
 *  (resonio_ceph_conf, else CEPH_CONF, else the library's search) and
 *  their resonio_ceph_timeout, loading
 *  the library and connecting if need be; one more reference.  -ENOSYS when
 *  the library cannot be loaded, the connect's -errno otherwise, with a
 *  detail. */
int rio__ceph_conn_get(struct rio_ceph_client *c, const struct rio_hints *hints,
                       struct rio_ceph_conn **out);
/** r, with the detail that an OSD did not answer within conn's timeout
 *  added when r is -ETIMEDOUT; doing ("reading 4096 bytes at 0", or NULL)
 *  says what waited, in parentheses after "did not answer". */
int rio__ceph_timed_out(const struct rio_ceph_conn *conn, int r, const char *doing);
/** One reference less; the last disconnects.  Returns the disconnect's
 *  error. */
int rio__ceph_conn_put(struct rio_ceph_client *c, struct rio_ceph_conn *conn);
/** Connections made by this process so far (either library).  For tests. */
long long rio__ceph_connects_made(void);
/** Make a hold on conn the process's own, kept past the last close until
 *  rio__ceph_conn_unkeep_all: 1 when it did, 0 when the process already
 *  holds conn (the caller then gives its hold back with conn_put). */
int rio__ceph_conn_keep(struct rio_ceph_client *c, struct rio_ceph_conn *conn);
/** Give back the process's holds on c's connections (those that nothing
 *  else holds disconnect). */
void rio__ceph_conn_unkeep_all(struct rio_ceph_client *c);

#ifdef RIO_HAVE_RADOS
/** The primary OSD of the n objects prefix.<first + i, digits hex digits>
 *  of pool, asking the monitor of the cluster the hints name through
 *  rados:'s connection to it: for storage that names its objects so
 *  (CephFS: <inode>.<8 digits>).  *conn is the caller's hold on that
 *  connection: taken by the first call (NULL before), kept for the next
 *  ones (a connection costs milliseconds: the monitor's handshake), and
 *  given back with rio__rados_osds_done.  0 or -errno. */
int rio__rados_osds(struct rio_ceph_conn **conn, const struct rio_hints *hints, const char *pool,
                    const char *prefix, int digits, long long first, int n, int *out);
/** Give back the hold of rio__rados_osds (nothing when *conn is NULL);
 *  *conn becomes NULL.  The process keeps one connection per cluster for
 *  its next files until MPI_Finalize.  0 or -errno. */
int rio__rados_osds_done(struct rio_ceph_conn **conn);
#endif

#ifdef RIO_HAVE_RADOS
/** What the rados: driver measured of one request shape of its views
 *  (rados.c says how it chooses): the bucket's key, and for each path
 *  (index RIO_RADOS_VIEW_LUA - 1, RIO_RADOS_VIEW_LIST - 1) the wall time
 *  per byte of the call it was measured on (< 0: not measured), whether
 *  it failed or the lua class could not take the request, and the calls
 *  of the bucket that ran it. */
struct rio_rados_view_bucket {
    int extents_log2; /* floor(log2) of the mean extents per object a call touches */
    int gap_log2;     /* 0: no gap between extents; else 1 + floor(log2) of the mean gap */
    double s_per_byte[2];
    int failed[2];
    long long runs[2];
    int kept; /* RIO_RADOS_VIEW_LUA or _LIST once chosen; RIO_RADOS_VIEW_AUTO while measuring */
};
/** The view buckets of this process (kept across its rados: files; st,
 *  through wrappers, must be an open rados: file) for writes (write != 0)
 *  or reads: up to max of them into out, in the order of the driver's
 *  table.  Returns how many there are (which may exceed max), or -EINVAL
 *  when st is not a rados: file.  Local; for tests and reports. */
int rio__rados_view_buckets(struct rio_store *st, int write, struct rio_rados_view_bucket *out,
                            int max);
#endif

#endif /* RIO_CEPH_COMMON_H */
