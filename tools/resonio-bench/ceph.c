/*
 * ceph.c — resonio-bench on CephFS (-storage cephfs).
 *
 * Rank 0 starts the cluster as a service of the bench (service.c: a fresh
 * /tmp directory, a watchdog that stops it whenever rank 0 ends) with
 * tools/resonio-ceph (3 memstore OSDs, CephFS mounted with ceph-fuse,
 * without the clients' caches, so that every request the implementations
 * make reaches the OSDs as made and the OSDs' order is theirs).
 * The data files go to <mount>/bench, a directory whose CephFS layout
 * (stripe unit -stripe, stripe count -targets) every new file inherits:
 * the MPI library's own MPI-IO, which knows nothing of CephFS, then writes
 * files striped like resonio's, which sets the same layout from the
 * striping hints.  Around every phase `resonio-ceph stats` reads what each
 * OSD recorded of the requests (its operation history), as resonio-emud's
 * counters are read on emu; the files are checked through the mount with
 * POSIX reads, as on any file system.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

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
    char *args[] = {"--osds", "3", "--no-client-cache", NULL};
    if (bench_service_start(&svc, tool, "ceph", args, dir, dirlen, msg, msglen))
        return -1;
    /* the data directory, with the layout its new files inherit; the object
     * size is CephFS's default, a multiple of the unit */
    long long os = 4LL << 20;
    os = os % o->stripe ? (os / o->stripe + 1) * o->stripe : os;
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
