/*
 * emu.c — resonio-bench on the emulated striped storage (-storage emu).
 *
 * Rank 0 starts its own resonio-emud service in a fresh directory under
 * /tmp (Unix socket paths are limited to 108 bytes, so the directory must
 * be short), runs `resonio-emud stats` around every phase to read the
 * targets' counters, and stops the service at the end.  The service must
 * not outlive the run even when the run dies (MPI_Abort, a signal), so
 * before starting it rank 0 starts a watchdog: a shell in its own session
 * that waits for end-of-file on a pipe whose only writer is rank 0, then
 * stops the service and removes the directory.  Whenever rank 0 ends, the
 * kernel closes the pipe; bench_emu_stop() closes it early and waits for
 * the watchdog, so the service is gone when the run reports.
 *
 * Programs are started with posix_spawn (no fork of an MPI process), and
 * with every descriptor but 0-2 closed, so that none holds the MPI
 * launcher's pipes open.
 *
 * The check of what resonio wrote must not trust resonio's client: a
 * logical file is read back straight from the service's own records, the
 * metadata table of target 0 (meta.tab: "fid unit count first
 * hex(name)") and the object files t<i>/<fid>.obj, through the round-robin
 * layout (stripe s of the file lies on object s % count at (s / count) *
 * unit).
 */
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char emud_path[PATH_MAX];
static char top[64];        /* the directory made for the run */
static pid_t watchdog = -1; /* its pid, -1 when none */
static int watch_fd = -1;   /* the pipe's write end */

/* The resonio-emud program: -emud, else next to this program (installed
 * side by side), else in the build tree (tools/resonio-emud next to
 * tools/resonio-bench), else from PATH.  0 or -1. */
static int find_emud(const struct bench_opts *o)
{
    if (o->emud) {
        snprintf(emud_path, sizeof emud_path, "%s", o->emud);
        return access(emud_path, X_OK) ? -1 : 0;
    }
    char self[PATH_MAX - 64]; /* room for what is appended below */
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = 0;
        char *slash = strrchr(self, '/');
        if (slash) {
            *slash = 0;
            static const char *const rel[] = {"/resonio-emud", "/../resonio-emud/resonio-emud"};
            for (int i = 0; i < 2; i++) {
                snprintf(emud_path, sizeof emud_path, "%s%s", self, rel[i]);
                if (!access(emud_path, X_OK))
                    return 0;
            }
        }
    }
    const char *path = getenv("PATH");
    char buf[8192];
    snprintf(buf, sizeof buf, "%s", path ? path : "/usr/local/bin:/usr/bin:/bin");
    char *save = NULL;
    for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(emud_path, sizeof emud_path, "%.3000s/resonio-emud", d);
        if (!access(emud_path, X_OK))
            return 0;
    }
    return -1;
}

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
int bench_emu_start(const struct bench_opts *o, char *dir, size_t dirlen, char *msg,
                    size_t msglen)
{
    if (find_emud(o)) {
        snprintf(msg, msglen, "cannot find resonio-emud%s%s (give it with -emud)",
                 o->emud ? " at " : "", o->emud ? o->emud : "");
        return -1;
    }
    snprintf(top, sizeof top, "/tmp/rio-bench-XXXXXX");
    if (!mkdtemp(top)) {
        snprintf(msg, msglen, "cannot make a directory under /tmp: %s", strerror(errno));
        return -1;
    }
    snprintf(dir, dirlen, "%s/svc", top);

    /* the watchdog first, so that from here on nothing is left behind */
    int p[2];
    if (pipe2(p, O_CLOEXEC)) {
        snprintf(msg, msglen, "pipe: %s", strerror(errno));
        rmdir(top);
        return -1;
    }
    char *wargv[] = {"/bin/sh", "-c",
                     "read _; \"$0\" stop --dir \"$1\" >/dev/null; s=$?; rm -rf \"$2\"; exit $s",
                     emud_path, dir, top, NULL};
    watchdog = bench_spawn(wargv, p[0], -1, -1, 1);
    close(p[0]);
    if (watchdog < 0) {
        close(p[1]);
        rmdir(top);
        snprintf(msg, msglen, "cannot start /bin/sh: %s", strerror(errno));
        return -1;
    }
    watch_fd = p[1];

    char targets[16], scale[32];
    snprintf(targets, sizeof targets, "%d", o->targets);
    snprintf(scale, sizeof scale, "%g", o->time_scale);
    char *argv[] = {emud_path, "start",   "--dir",        dir,   "--targets",
                    targets,   "--model", (char *)o->model, "--time-scale", scale, NULL};
    pid_t pid = bench_spawn(argv, -1, -1, -1, 0);
    int rc = pid < 0 ? -1 : bench_wait(pid);
    if (rc != 0) {
        snprintf(msg, msglen, "%s start --dir %s failed (exit status %d)", emud_path, dir, rc);
        bench_emu_stop();
        return -1;
    }
    return 0;
}

/* Contract in bench.h. */
int bench_emu_stop(void)
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
int bench_emu_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max)
{
    char *argv[] = {emud_path, "stats", "--dir", (char *)o->emu_dir, reset ? "--reset" : NULL,
                    NULL};
    return bench_stats_run(argv, out, max);
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
    enum { C_T, C_REQ, C_ACC, C_FRAC, C_SEEK, C_BUSY, C_BYTES, C_JUDGED, NCOL };
    static const char *const names[NCOL][2] = {
        {"target", "osd"}, {"requests", NULL}, {"accesses", NULL}, {"sequential_fraction", NULL},
        {"seek_bytes", NULL}, {"busy_s", NULL}, {"bytes", NULL}, {"judged", NULL}};
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
    }
    return got > 0 ? got : -1;
}

/* ---- reading a logical file from the object files --------------------------------- */

/* Contract in bench.h. */
int bench_efile_open(const char *dir, const char *name, struct bench_efile *f)
{
    char path[512], hex[2100], want[2100], line[2300];
    unsigned long long fid = 0, next;
    long long unit = 0;
    unsigned count = 0, first = 0, ntargets = 0;
    int found = 0;
    size_t n = strlen(name);
    memset(f, 0, sizeof *f);
    for (int i = 0; i < BENCH_MAX_TARGETS; i++)
        f->fd[i] = -1;
    if (n > 1024)
        return -1;
    for (size_t i = 0; i < n; i++)
        snprintf(want + 2 * i, 3, "%02x", (unsigned char)name[i]);
    want[2 * n] = 0;
    snprintf(path, sizeof path, "%s/emud.conf", dir);
    FILE *c = fopen(path, "r");
    if (!c)
        return -1;
    int ok = fscanf(c, "targets %u", &ntargets) == 1 && ntargets > 0;
    fclose(c);
    snprintf(path, sizeof path, "%s/t0/meta.tab", dir);
    FILE *m = ok ? fopen(path, "r") : NULL;
    if (!m || !fgets(line, sizeof line, m) || sscanf(line, "next %llu", &next) != 1) {
        if (m)
            fclose(m);
        return -1;
    }
    while (fgets(line, sizeof line, m)) {
        unsigned long long fi;
        long long u;
        unsigned co, fs;
        if (sscanf(line, "%llu %lld %u %u %2090s", &fi, &u, &co, &fs, hex) == 5 &&
            !strcmp(hex, want)) {
            fid = fi;
            unit = u;
            count = co;
            first = fs;
            found = 1;
        }
    }
    fclose(m);
    if (!found || unit <= 0 || count < 1 || count > BENCH_MAX_TARGETS || count > ntargets)
        return -1;
    f->count = (int)count;
    f->unit = unit;
    for (unsigned j = 0; j < count; j++) {
        snprintf(path, sizeof path, "%s/t%u/%llu.obj", dir, (first + j) % ntargets, fid);
        struct stat sb;
        f->fd[j] = open(path, O_RDONLY | O_CLOEXEC);
        if (f->fd[j] < 0 || fstat(f->fd[j], &sb))
            continue; /* an object never written: all holes */
        f->osz[j] = sb.st_size;
        if (sb.st_size > 0) {
            long long z = sb.st_size - 1, end = ((z / unit) * count + j) * unit + z % unit + 1;
            if (end > f->size)
                f->size = end;
        }
    }
    return 0;
}

/* Contract in bench.h. */
long long bench_efile_pread(const struct bench_efile *f, unsigned char *buf, long long len,
                            long long off)
{
    if (off >= f->size)
        return 0;
    if (len > f->size - off)
        len = f->size - off;
    for (long long done = 0; done < len;) {
        long long o = off + done, s = o / f->unit, in = o % f->unit;
        int j = (int)(s % f->count);
        long long oo = (s / f->count) * f->unit + in;
        long long n = f->unit - in < len - done ? f->unit - in : len - done;
        long long have = f->osz[j] - oo; /* bytes of the object from oo on */
        if (have < 0)
            have = 0;
        if (have > n)
            have = n;
        long long got = 0;
        while (got < have) {
            ssize_t k = pread(f->fd[j], buf + done + got, (size_t)(have - got), oo + got);
            if (k <= 0)
                break;
            got += k;
        }
        memset(buf + done + got, 0, (size_t)(n - got));
        done += n;
    }
    return len;
}

/* Contract in bench.h. */
void bench_efile_close(struct bench_efile *f)
{
    for (int j = 0; j < BENCH_MAX_TARGETS; j++)
        if (f->fd[j] >= 0) {
            close(f->fd[j]);
            f->fd[j] = -1;
        }
}
