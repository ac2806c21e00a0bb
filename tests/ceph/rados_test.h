/*
 * rados_test.h — a rados: file read straight from its RADOS objects with
 * librados, without resonio: the tests' independent view of what the
 * driver stored.  The layout and size come from object 0's xattrs
 * ("rio.layout" = "unit count object_size", "rio.size" = decimal), and the
 * bytes from the objects NAME.<16 hex digits> by CephFS's striping rule,
 * computed here again on purpose (block = off/su, stripe = block/sc, pos =
 * block%sc, object = stripe/(os/su)*sc + pos, at (stripe%(os/su))*su +
 * off%su), so a mistake in the driver's arithmetic cannot hide behind the
 * same mistake here.  Absent objects and bytes past an object's end read
 * as zeros, as holes of a file do.  Links librados.  Everything is static
 * inline; include after rtest.h.
 */
#ifndef RIO_RADOS_TEST_H
#define RIO_RADOS_TEST_H

#include <rados/librados.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* One connection per process (CEPH_CONF's cluster) and its pool contexts. */
static rados_t rados_t_cl;

/* The connection's end; also run at exit, before the libraries' own
 * destructors: a connection still open then keeps librados's timer thread
 * running into them (a crash in MonClient::tick after main returned, seen
 * under load). */
static inline void rados_t_shutdown(void)
{
    if (rados_t_cl)
        rados_shutdown(rados_t_cl);
    rados_t_cl = NULL;
}

/* The I/O context of pool (a new one; destroy it), NULL with a CHECK. */
static inline rados_ioctx_t rados_t_pool(const char *pool)
{
    rados_ioctx_t io = NULL;
    int r = 0;
    if (!rados_t_cl) {
        if ((r = rados_create(&rados_t_cl, NULL)) < 0 ||
            (r = rados_conf_read_file(rados_t_cl, getenv("CEPH_CONF"))) < 0 ||
            (r = rados_conf_set(rados_t_cl, "rados_mon_op_timeout", "20")) < 0 ||
            (r = rados_connect(rados_t_cl)) < 0) {
            CHECK(0, "librados: cannot connect to the cluster of CEPH_CONF=%s: %s",
                  getenv("CEPH_CONF") ? getenv("CEPH_CONF") : "(unset)", strerror(-r));
            if (rados_t_cl)
                rados_shutdown(rados_t_cl);
            rados_t_cl = NULL;
            return NULL;
        }
        atexit(rados_t_shutdown);
    }
    if ((r = rados_ioctx_create(rados_t_cl, pool, &io)) < 0) {
        CHECK(0, "librados: no pool %s: %s", pool, strerror(-r));
        return NULL;
    }
    return io;
}

/* Split "POOL/NAME" in place of out buffers. */
static inline int rados_t_split(const char *pn, char *pool, size_t pn_len, const char **name)
{
    const char *s = strchr(pn, '/');
    if (!s || (size_t)(s - pn) >= pn_len)
        return -1;
    memcpy(pool, pn, (size_t)(s - pn));
    pool[s - pn] = '\0';
    *name = s + 1;
    return 0;
}

/* The object name of object obj of the file name. */
static inline void rados_t_oid(char *out, size_t n, const char *name, long long obj)
{
    snprintf(out, n, "%s.%016llx", name, (unsigned long long)obj);
}

/* Layout and size of the file name in io, from object 0; 0 on success. */
static inline int rados_t_meta(rados_ioctx_t io, const char *name, long long *su, long long *sc,
                               long long *os, long long *size)
{
    char oid[4200], v[128];
    rados_t_oid(oid, sizeof oid, name, 0);
    int r = rados_getxattr(io, oid, "rio.layout", v, sizeof v - 1);
    if (r < 0)
        return r;
    v[r] = '\0';
    if (sscanf(v, "%lld %lld %lld", su, sc, os) != 3)
        return -EINVAL;
    r = rados_getxattr(io, oid, "rio.size", v, sizeof v - 1);
    if (r < 0)
        return r;
    v[r] = '\0';
    *size = atoll(v);
    return 0;
}

/* The whole file "POOL/NAME" from its objects (malloc'ed, *len its size
 * from object 0); NULL with a CHECK when it cannot be read. */
static inline unsigned char *rados_t_slurp(const char *pn, long long *len)
{
    char pool[256], oid[4200];
    const char *name;
    long long su, sc, os, size;
    unsigned char *buf = NULL;
    *len = 0;
    if (rados_t_split(pn, pool, sizeof pool, &name)) {
        CHECK(0, "rados_t_slurp: %s is not POOL/NAME", pn);
        return NULL;
    }
    rados_ioctx_t io = rados_t_pool(pool);
    if (!io)
        return NULL;
    int r = rados_t_meta(io, name, &su, &sc, &os, &size);
    CHECK(r == 0, "librados: %s has no layout and size in object 0: %s", pn, strerror(-r));
    if (r == 0 && (buf = calloc(1, (size_t)size + 1))) {
        /* one unit-sized piece at a time, by the striping rule */
        for (long long off = 0; off < size && r >= 0;) {
            long long block = off / su, stripe = block / sc, pos = block % sc, spo = os / su;
            long long obj = stripe / spo * sc + pos, in = stripe % spo * su + off % su;
            long long n = su - off % su;
            if (n > size - off)
                n = size - off;
            rados_t_oid(oid, sizeof oid, name, obj);
            r = rados_read(io, oid, (char *)buf + off, (size_t)n, (uint64_t)in);
            if (r == -ENOENT) /* a hole: calloc's zeros */
                r = 0;
            CHECK(r >= 0, "librados: reading %s at %lld: %s", oid, in, strerror(-r));
            off += n;
        }
        *len = size;
    }
    rados_ioctx_destroy(io);
    if (r < 0) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* How many objects of the pool are objects of file name (NAME.<16 hex>);
 * *past counts those numbered from first_past on.  -1 on error. */
static inline long long rados_t_count(const char *pool, const char *name, long long first_past,
                                      long long *past)
{
    rados_ioctx_t io = rados_t_pool(pool);
    rados_list_ctx_t ctx;
    const char *e;
    long long n = 0;
    size_t nl = strlen(name);
    *past = 0;
    if (!io)
        return -1;
    if (rados_nobjects_list_open(io, &ctx) < 0) {
        rados_ioctx_destroy(io);
        return -1;
    }
    while (rados_nobjects_list_next(ctx, &e, NULL, NULL) == 0) {
        if (strncmp(e, name, nl) || e[nl] != '.' || strlen(e + nl + 1) != 16)
            continue;
        n++;
        *past += strtoll(e + nl + 1, NULL, 16) >= first_past;
    }
    rados_nobjects_list_close(ctx);
    rados_ioctx_destroy(io);
    return n;
}

/* POOL/NAME (into p) and rados: name (into r) of the test's file with
 * suffix sfx ("": none): NAME is rt_fname's last component (the cluster
 * is this build's own), short, so that error messages keep it whole. */
static inline void rados_t_names(const char *pool, const char *sfx, char *p, size_t pl, char *r,
                                 size_t rl)
{
    const char *base = strrchr(rt_fname, '/') ? strrchr(rt_fname, '/') + 1 : rt_fname;
    snprintf(p, pl, "%s/%s%s%s", pool, base, *sfx ? "." : "", sfx);
    snprintf(r, rl, "rados:%s", p);
}

/* Requests the OSDs served in the data pools since the last reset (-1 on
 * failure): the sum of `tool stats --dir ceph_dir`'s requests column, or
 * with reset, the reset itself (0).  The tool leaves out what began
 * before its reset, so nothing of an earlier phase is counted. */
static inline long long rados_t_osd_requests(const char *tool, const char *ceph_dir, int reset)
{
    char cmd[8400], line[512];
    snprintf(cmd, sizeof cmd, "'%s' stats --dir '%s'%s 2>&1", tool, ceph_dir,
             reset ? " --reset" : "");
    FILE *f = popen(cmd, "r");
    long long sum = 0;
    int rows = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f)) {
        int osd;
        long long req;
        if (!reset && sscanf(line, "%d,%lld,", &osd, &req) == 2) {
            sum += req;
            rows++;
        }
    }
    int st = pclose(f);
    return st == 0 && (reset || rows > 0) ? sum : -1;
}

/* The arguments every rados: test takes (-pool, -ceph_dir, -tool) and
 * CEPH_CONF, each a CHECK when missing; 0 when all are there. */
static inline int rados_t_args(const char **pool, const char **ceph_dir, const char **tool)
{
    *pool = rt_arg("-pool");
    *ceph_dir = rt_arg("-ceph_dir");
    *tool = rt_arg("-tool");
    CHECK(*pool && *ceph_dir && *tool, "-pool POOL -ceph_dir DIR -tool resonio-ceph are required");
    CHECK(getenv("CEPH_CONF") != NULL, "CEPH_CONF (the cluster's configuration) is not set");
    return rt_errs ? -1 : 0;
}

#endif /* RIO_RADOS_TEST_H */
