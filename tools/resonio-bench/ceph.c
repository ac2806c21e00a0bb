/*
 * ceph.c — resonio-bench on Ceph (-storage cephfs, -storage rados).
 *
 * Rank 0 starts the cluster as a service of the bench (service.c: a fresh
 * /tmp directory, a watchdog that stops it whenever rank 0 ends) with
 * tools/resonio-ceph (3 OSDs, memstore unless -ceph-store bluestore;
 * CephFS mounted with ceph-fuse, without the clients' caches, so that
 * every request the implementations make reaches the OSDs as made and the
 * OSDs' order is theirs).
 * The data files go to <mount>/bench, a directory whose CephFS layout
 * (stripe unit -stripe, stripe count -targets) every new file inherits:
 * the MPI library's own MPI-IO, which knows nothing of CephFS, then writes
 * files striped like resonio's, which sets the same layout from the
 * striping hints.  Around every phase `resonio-ceph stats` reads what each
 * OSD recorded of the requests (its operation history), as resonio-emud's
 * counters are read on emu; the files are checked through the mount with
 * POSIX reads, as on any file system.
 *
 * -storage rados runs the same cluster without a mount: the files are
 * rados:resonio/<name> (the tool's pool), striped by the striping hints
 * and an object size of 4 MiB (CephFS's default, rounded up to a multiple
 * of the unit), and each round's file is checked from its objects with
 * librados and the striping arithmetic done here again (bench_rfile_*),
 * not through resonio.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#ifdef BENCH_HAVE_RADOS
#include <rados/librados.h>
#endif

#ifndef RIO_CEPH_TOOL
#define RIO_CEPH_TOOL "resonio-ceph"
#endif

static struct bench_service svc = BENCH_SERVICE_INIT;

/* Contract in bench.h. */
int bench_ceph_start(const struct bench_opts *o, char *dir, size_t dirlen, char *msg,
                     size_t msglen)
{
    const char *tool = o->ceph_tool ? o->ceph_tool : RIO_CEPH_TOOL;
    if (access(tool, X_OK)) {
        snprintf(msg, msglen, "cannot run %s (give resonio-ceph with -ceph-tool)", tool);
        return -1;
    }
    char *args[] = {"--osds", "3", o->rados ? "--no-fuse" : "--no-client-cache", "--store",
                    o->bluestore ? "bluestore" : "memstore", NULL};
    if (bench_service_start(&svc, tool, "ceph", args, dir, dirlen, msg, msglen))
        return -1;
    if (o->rados)
        return 0;
    /* the data directory, with the layout its new files inherit */
    long long os = bench_ceph_object_size(o);
    char lay[128], data[256];
    snprintf(data, sizeof data, "%s/mnt/bench", dir);
    snprintf(lay, sizeof lay, "stripe_unit=%lld stripe_count=%d object_size=%lld", o->stripe,
             o->targets, os);
    if (mkdir(data, 0755) || setxattr(data, "ceph.dir.layout", lay, strlen(lay), 0)) {
        snprintf(msg, msglen, "cannot make %s with the layout %s: %s", data, lay,
                 strerror(errno));
        bench_ceph_stop();
        return -1;
    }
    return 0;
}

/* Contract in bench.h. */
const char *bench_storage_tag(const struct bench_opts *o)
{
    if (o->emu)
        return "-emu";
    if (o->sim)
        return "-simgrid";
    if (!o->ceph)
        return "";
    if (o->rados)
        return o->bluestore ? "-rados-bluestore" : "-rados";
    return o->bluestore ? "-cephfs-bluestore" : "-cephfs";
}

/* Contract in bench.h. */
long long bench_ceph_object_size(const struct bench_opts *o)
{
    long long os = 4LL << 20;
    return os % o->stripe ? (os / o->stripe + 1) * o->stripe : os;
}

/* Contract in bench.h. */
int bench_ceph_stop(void)
{
    return bench_service_stop(&svc);
}

/* Contract in bench.h. */
int bench_ceph_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max)
{
    char *argv[] = {(char *)(o->ceph_tool ? o->ceph_tool : RIO_CEPH_TOOL), "stats", "--dir",
                    (char *)o->ceph_dir, reset ? "--reset" : NULL, NULL};
    return bench_stats_run(argv, out, max);
}

/* ---- a rados: file read from its objects ------------------------------------------ */

#ifdef BENCH_HAVE_RADOS
/* Contract in bench.h. */
int bench_rfile_open(const char *conf, const char *pn, struct bench_rfile *f)
{
    char v[128], oid[sizeof f->name + 20];
    const char *slash = strchr(pn, '/');
    memset(f, 0, sizeof *f);
    if (!slash || (size_t)(slash - pn) >= sizeof f->pool || strlen(slash + 1) >= sizeof f->name)
        return -1;
    memcpy(f->pool, pn, (size_t)(slash - pn));
    snprintf(f->name, sizeof f->name, "%s", slash + 1);
    int r = rados_create(&f->cl, NULL);
    if (r >= 0)
        r = rados_conf_read_file(f->cl, conf);
    if (r >= 0)
        r = rados_connect(f->cl);
    if (r >= 0)
        r = rados_ioctx_create(f->cl, f->pool, &f->io);
    /* object 0's xattrs: "unit count object_size" and the size */
    snprintf(oid, sizeof oid, "%s.%016llx", f->name, 0ULL);
    if (r >= 0 && (r = rados_getxattr(f->io, oid, "rio.layout", v, sizeof v - 1)) >= 0) {
        v[r] = 0;
        r = sscanf(v, "%lld %lld %lld", &f->su, &f->sc, &f->os) == 3 && f->su > 0 &&
                    f->sc > 0 && f->os >= f->su && f->os % f->su == 0
                ? 0
                : -EINVAL;
    }
    if (r >= 0 && (r = rados_getxattr(f->io, oid, "rio.size", v, sizeof v - 1)) >= 0) {
        v[r] = 0;
        f->size = atoll(v);
    }
    if (r < 0) {
        bench_rfile_close(f);
        return -1;
    }
    return 0;
}

/* Contract in bench.h. */
long long bench_rfile_pread(const struct bench_rfile *f, unsigned char *buf, long long len,
                            long long off)
{
    char oid[sizeof f->name + 20];
    if (off >= f->size)
        return 0;
    if (len > f->size - off)
        len = f->size - off;
    /* a stripe unit at a time: block, stripe, column, object set */
    for (long long done = 0; done < len;) {
        long long at = off + done, block = at / f->su, stripe = block / f->sc;
        long long spo = f->os / f->su, obj = stripe / spo * f->sc + block % f->sc;
        long long in = stripe % spo * f->su + at % f->su;
        long long n = f->su - at % f->su < len - done ? f->su - at % f->su : len - done;
        snprintf(oid, sizeof oid, "%s.%016llx", f->name, (unsigned long long)obj);
        int r = rados_read(f->io, oid, (char *)buf + done, (size_t)n, (uint64_t)in);
        if (r == -ENOENT) /* an object never written: a hole */
            r = 0;
        if (r < 0)
            return -1;
        memset(buf + done + r, 0, (size_t)(n - r)); /* past the object's end */
        done += n;
    }
    return len;
}

/* Contract in bench.h. */
void bench_rfile_close(struct bench_rfile *f)
{
    if (f->io)
        rados_ioctx_destroy(f->io);
    if (f->cl)
        rados_shutdown(f->cl);
    f->io = NULL;
    f->cl = NULL;
}
#endif
