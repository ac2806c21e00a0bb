/*
 * ceph.c — resonio-bench on CephFS (-storage cephfs).
 *
 * Rank 0 makes a fresh directory under /tmp (admin socket paths are
 * limited to 108 bytes, so it must be short), starts a watchdog first — a
 * shell in its own session that waits for end-of-file on a pipe whose only
 * writer is rank 0, then stops the cluster and removes the directory, so
 * nothing outlives the run even when it dies — and then the cluster with
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

static char top[64];        /* the directory made for the run */
static char cdir[128];      /* the cluster's directory in it */
static const char *tool;    /* the resonio-ceph program */
static pid_t watchdog = -1; /* its pid, -1 when none */
static int watch_fd = -1;   /* the pipe's write end */

/* Contract in bench.h. */
int bench_ceph_start(const struct bench_opts *o, char *dir, size_t dirlen, char *msg,
                     size_t msglen)
{
    tool = o->ceph_tool ? o->ceph_tool : RIO_CEPH_TOOL;
    if (access(tool, X_OK)) {
        snprintf(msg, msglen, "cannot run %s (give resonio-ceph with -ceph-tool)", tool);
        return -1;
    }
    snprintf(top, sizeof top, "/tmp/rio-bench-XXXXXX");
    if (!mkdtemp(top)) {
        snprintf(msg, msglen, "cannot make a directory under /tmp: %s", strerror(errno));
        return -1;
    }
    snprintf(cdir, sizeof cdir, "%s/ceph", top);

    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(msg, msglen, "pipe: %s", strerror(errno));
        rmdir(top);
        return -1;
    }
    char *wargv[] = {"/bin/sh", "-c",
                     "read _; \"$0\" stop --dir \"$1\" >/dev/null; s=$?; rm -rf \"$2\"; exit $s",
                     (char *)tool, cdir, top, NULL};
    watchdog = bench_spawn(wargv, p[0], -1, -1, 1);
    close(p[0]);
    if (watchdog < 0) {
        close(p[1]);
        rmdir(top);
        snprintf(msg, msglen, "cannot start /bin/sh: %s", strerror(errno));
        return -1;
    }
    watch_fd = p[1];

    char *argv[] = {(char *)tool, "start", "--dir", cdir, "--osds", "3", "--no-client-cache",
                    NULL};
    pid_t pid = bench_spawn(argv, -1, -1, -1, 0);
    int rc = pid < 0 ? -1 : bench_wait(pid);
    if (rc != 0) {
        snprintf(msg, msglen, "%s start --dir %s failed (exit status %d)", tool, cdir, rc);
        bench_ceph_stop();
        return -1;
    }
    /* the data directory, with the layout its new files inherit; the object
     * size is CephFS's default, a multiple of the unit */
    long long os = 4LL << 20;
    os = os % o->stripe ? (os / o->stripe + 1) * o->stripe : os;
    char lay[128], data[256];
    snprintf(data, sizeof data, "%s/mnt/bench", cdir);
    snprintf(lay, sizeof lay, "stripe_unit=%lld stripe_count=%d object_size=%lld", o->stripe,
             o->targets, os);
    if (mkdir(data, 0755) || setxattr(data, "ceph.dir.layout", lay, strlen(lay), 0)) {
        snprintf(msg, msglen, "cannot make %s with the layout %s: %s", data, lay,
                 strerror(errno));
        bench_ceph_stop();
        return -1;
    }
    snprintf(dir, dirlen, "%s", cdir);
    return 0;
}

/* Contract in bench.h. */
int bench_ceph_stop(void)
{
    if (watchdog < 0)
        return 0;
    close(watch_fd);
    watch_fd = -1;
    int rc = bench_wait(watchdog);
    watchdog = -1;
    return rc == 0 ? 0 : -1;
}

/* Contract in bench.h. */
int bench_ceph_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max)
{
    char *argv[] = {(char *)(o->ceph_tool ? o->ceph_tool : RIO_CEPH_TOOL), "stats", "--dir",
                    (char *)o->ceph_dir, reset ? "--reset" : NULL, NULL};
    return bench_stats_run(argv, out, max);
}
