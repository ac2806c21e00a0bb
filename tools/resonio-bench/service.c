/*
 * service.c — the storage services resonio-bench runs beside itself
 * (resonio-emud for -storage emu, a Ceph cluster for -storage cephfs).
 *
 * Rank 0 starts a service in a fresh directory under /tmp (Unix socket
 * paths are limited to 108 bytes, so the directory must be short) with the
 * service's own program (`PROG start --dir DIR ...`), reads its counters
 * around every phase (`PROG stats`), and stops it at the end.  The service
 * must not outlive the run even when the run dies (MPI_Abort, a signal),
 * so before starting it rank 0 starts a watchdog: a shell in its own
 * session that waits for end-of-file on a pipe whose only writer is rank
 * 0, then runs `PROG stop --dir DIR` and removes the directory.  Whenever
 * rank 0 ends, the kernel closes the pipe; bench_service_stop() closes it
 * early and waits for the watchdog, so the service is gone when the run
 * reports.
 *
 * Programs are started with posix_spawn (no fork of an MPI process), and
 * with every descriptor but 0-2 closed, so that none holds the MPI
 * launcher's pipes open.
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* Contract in bench.h. */
pid_t bench_spawn(char *const argv[], int in, int out, int err, int setsid)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    pid_t pid = -1;
    if (posix_spawn_file_actions_init(&fa))
        return -1;
    if (posix_spawnattr_init(&at)) {
        posix_spawn_file_actions_destroy(&fa);
        return -1;
    }
    int fds[3] = {in, out, err}, ok = 1;
    for (int i = 0; i < 3; i++)
        if (fds[i] >= 0 && posix_spawn_file_actions_adddup2(&fa, fds[i], i))
            ok = 0;
    if (posix_spawn_file_actions_addclosefrom_np(&fa, 3))
        ok = 0;
    if (setsid && posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSID))
        ok = 0;
    if (ok && posix_spawn(&pid, argv[0], &fa, &at, argv, environ))
        pid = -1;
    posix_spawnattr_destroy(&at);
    posix_spawn_file_actions_destroy(&fa);
    return ok ? pid : -1;
}

/* Contract in bench.h. */
int bench_wait(pid_t pid)
{
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR)
            return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Contract in bench.h. */
int bench_stats_run(char *const argv[], struct bench_tgt *out, int max)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC))
        return -1;
    pid_t pid = bench_spawn(argv, -1, p[1], -1, 0);
    close(p[1]);
    char buf[8192];
    size_t n = 0;
    for (ssize_t k; n < sizeof buf - 1 && (k = read(p[0], buf + n, sizeof buf - 1 - n)) != 0;)
        if (k > 0)
            n += (size_t)k;
        else if (errno != EINTR)
            break;
    buf[n] = 0;
    close(p[0]);
    if (pid < 0 || bench_wait(pid) != 0)
        return -1;
    if (!out)
        return 0;
    /* a header naming the columns, then a line per target; the columns are
     * found by name (resonio-emud prints more than these) */
    enum {
        C_T, C_REQ, C_ACC, C_FRAC, C_SEEK, C_BUSY, C_BYTES, C_JUDGED, C_ASC, C_CALLS, C_RESENT,
        NCOL
    };
    static const char *const names[NCOL][2] = {
        {"target", "osd"}, {"requests", NULL},  {"accesses", NULL},   {"sequential_fraction", NULL},
        {"seek_bytes", NULL}, {"busy_s", NULL}, {"bytes", NULL},      {"judged", NULL},
        {"ascending", NULL},  {"class_calls", NULL}, {"resent", NULL}};
    int at[NCOL], got = 0;
    for (int c = 0; c < NCOL; c++)
        at[c] = -1;
    char *save = NULL, *line = strtok_r(buf, "\n", &save);
    if (!line)
        return -1;
    {
        char *s2 = NULL;
        int i = 0;
        for (char *w = strtok_r(line, ",", &s2); w; w = strtok_r(NULL, ",", &s2), i++)
            for (int c = 0; c < NCOL; c++)
                if (!strcmp(w, names[c][0]) || (names[c][1] && !strcmp(w, names[c][1])))
                    at[c] = i;
    }
    for (int c = 0; c < C_BYTES; c++)
        if (at[c] < 0)
            return -1;
    while ((line = strtok_r(NULL, "\n", &save))) {
        double v[NCOL];
        int i = 0;
        char *s2 = NULL;
        for (int c = 0; c < NCOL; c++)
            v[c] = -1;
        for (char *w = strtok_r(line, ",", &s2); w; w = strtok_r(NULL, ",", &s2), i++)
            for (int c = 0; c < NCOL; c++)
                if (at[c] == i)
                    v[c] = strtod(w, NULL);
        int t = (int)v[C_T];
        if (t != got || t >= max)
            return -1;
        struct bench_tgt *g = &out[got++];
        g->requests = (long long)v[C_REQ];
        g->accesses = (long long)v[C_ACC];
        g->judged = at[C_JUDGED] >= 0 ? (long long)v[C_JUDGED]
                                      : g->accesses > 0 ? g->accesses - 1 : 0;
        g->sequential = (long long)(v[C_FRAC] * (double)g->judged + 0.5);
        g->seek = (long long)v[C_SEEK];
        g->busy = v[C_BUSY];
        g->bytes = at[C_BYTES] >= 0 ? (long long)v[C_BYTES] : -1;
        g->ascending = at[C_ASC] >= 0 ? (long long)v[C_ASC] : -1;
        g->calls = at[C_CALLS] >= 0 ? (long long)v[C_CALLS] : -1;
        g->resent = at[C_RESENT] >= 0 ? (long long)v[C_RESENT] : -1;
    }
    return got > 0 ? got : -1;
}

/* Contract in bench.h. */
int bench_service_start(struct bench_service *s, const char *prog, const char *sub,
                        char *const args[], char *dir, size_t dirlen, char *msg, size_t msglen)
{
    snprintf(s->top, sizeof s->top, "/tmp/rio-bench-XXXXXX");
    if (!mkdtemp(s->top)) {
        snprintf(msg, msglen, "cannot make a directory under /tmp: %s", strerror(errno));
        return -1;
    }
    snprintf(dir, dirlen, "%s/%s", s->top, sub);

    /* the watchdog first, so that from here on nothing is left behind */
    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(msg, msglen, "pipe: %s", strerror(errno));
        rmdir(s->top);
        return -1;
    }
    char *wargv[] = {"/bin/sh", "-c",
                     "read _; \"$0\" stop --dir \"$1\" >/dev/null; s=$?; rm -rf \"$2\"; exit $s",
                     (char *)prog, dir, s->top, NULL};
    s->watchdog = bench_spawn(wargv, p[0], -1, -1, 1);
    close(p[0]);
    if (s->watchdog < 0) {
        close(p[1]);
        rmdir(s->top);
        snprintf(msg, msglen, "cannot start /bin/sh: %s", strerror(errno));
        return -1;
    }
    s->fd = p[1];

    char *argv[32] = {(char *)prog, "start", "--dir", dir};
    int n = 4;
    for (int i = 0; args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = bench_spawn(argv, -1, -1, -1, 0);
    int rc = pid < 0 ? -1 : bench_wait(pid);
    if (rc != 0) {
        snprintf(msg, msglen, "%s start --dir %s failed (exit status %d)", prog, dir, rc);
        bench_service_stop(s);
        return -1;
    }
    return 0;
}

/* Contract in bench.h. */
int bench_service_stop(struct bench_service *s)
{
    if (s->watchdog < 0)
        return 0;
    close(s->fd);
    s->fd = -1;
    int rc = bench_wait(s->watchdog);
    s->watchdog = -1;
    return rc == 0 ? 0 : -1;
}
