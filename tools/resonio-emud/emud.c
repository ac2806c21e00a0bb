/*
 * emud.c — resonio-emud's command line: start, stop and inspect an
 * emulated striped storage service.
 *
 *   resonio-emud start --dir D --targets N [--model hdd|ssd|none] [options]
 *   resonio-emud stop  --dir D
 *   resonio-emud stats --dir D [--reset]
 *   resonio-emud serve --dir D --target I   (one target in the foreground)
 *
 * start creates D (mode 0700), records the service in D/emud.conf and
 * starts one daemon process per target (double fork, new session, output
 * to D/t<i>.log), then waits until every target accepts connections.  A
 * directory whose service is running, or that was made with another
 * number of targets, is refused: the layouts of its files depend on it.
 * Starting again after a stop serves the same files.
 *
 * stop sends SIGTERM to each target and waits until it has written its
 * CSV files and removed its pid file (SIGKILL after 10 s).  A pid file
 * whose process is not a resonio-emud is treated as stale, never killed.
 */
#include "emud.h"
#include "emu/client.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: resonio-emud start --dir D --targets N [--model hdd|ssd|none] [options]\n"
            "       resonio-emud stop  --dir D\n"
            "       resonio-emud stats --dir D [--reset]\n"
            "options of start (defaults in brackets):\n"
            "  --time-scale F      wait F times the modelled service time [1]\n"
            "  --elevator D        choose among the first D waiting requests [1: FIFO]\n"
            "  --seek-ms MS        hdd average seek [8]    --track-ms MS  track-to-track [0.8]\n"
            "  --rpm R             hdd spindle speed [7200] --rate-mbs R  media rate MB/s [70]\n"
            "  --track-kib K       forward gaps passed over [1024]\n"
            "  --readahead-kib K   read-ahead buffer [1024] --overhead-us US per access [100]\n"
            "  --capacity-gb G     hdd size [500]\n"
            "  --ssd-lat-us US     ssd latency [80]        --ssd-mbs R    ssd bandwidth [500]\n"
            "  --revoke-us US      extent-lock revocation [1000]\n"
            "  --cache-mib M       buffer cache for prefetched data [256]\n"
            "  --cache-mbs R       reads served from the cache, MB/s [1000]\n"
            "  --log-cap N         accesses kept in the arrival log [262144]\n"
            "  --stall-s S         close a connection stopped inside a message for S s [60]\n");
}

static void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts))
        ;
}

struct opts {
    const char *cmd, *dir;
    int targets, target, reset;
    struct emud_cfg cfg;
};

static int num(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    double d = v ? strtod(v, &end) : 0;
    if (!v || end == v || *end || d < lo || d > hi) {
        fprintf(stderr, "resonio-emud: %s needs a number in [%g, %g]\n", opt, lo, hi);
        return -1;
    }
    *out = d;
    return 0;
}

/* Contract in emud.h. */
void emud_cfg_defaults(struct emud_cfg *c)
{
    rio__emu_model_defaults(&c->disk);
    c->time_scale = 1.0;
    c->elevator = 1;
    c->stall_s = 60;
    c->log_cap = 1L << 18;
}

static int parse(int argc, char **argv, struct opts *o)
{
    memset(o, 0, sizeof *o);
    o->target = -1;
    emud_cfg_defaults(&o->cfg);
    if (argc < 2)
        return -1;
    o->cmd = argv[1];
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        double d;
        struct {
            const char *name;
            double lo, hi, *dst;
        } dbl[] = {
            {"--time-scale", 0, 1e6, &o->cfg.time_scale},
            {"--stall-s", 0.001, 1e9, &o->cfg.stall_s},
        };
        int k, done = 0;
        for (k = 0; k < (int)(sizeof dbl / sizeof dbl[0]); k++)
            if (!strcmp(a, dbl[k].name)) {
                if (num(a, v, dbl[k].lo, dbl[k].hi, dbl[k].dst))
                    return -1;
                i++;
                done = 1;
                break;
            }
        /* the disk's parameters: --seek-ms for seek_ms, ... (model.c) */
        double lo, hi;
        const char *pn;
        for (k = 0; !done && (pn = rio__emu_model_param(k, &lo, &hi)); k++) {
            char flag[64];
            int n = snprintf(flag, sizeof flag, "--%s", pn);
            for (int c = 2; c < n; c++)
                flag[c] = flag[c] == '_' ? '-' : flag[c];
            if (!strcmp(a, flag)) {
                if (num(a, v, lo, hi, &d) || rio__emu_model_set(&o->cfg.disk, pn, d))
                    return -1;
                i++;
                done = 1;
            }
        }
        if (done)
            continue;
        if (!strcmp(a, "--dir") && v) {
            o->dir = v;
            i++;
        } else if (!strcmp(a, "--targets")) {
            if (num(a, v, 1, RIO_EMU_MAX_TARGETS, &d))
                return -1;
            o->targets = (int)d;
            i++;
        } else if (!strcmp(a, "--target")) {
            if (num(a, v, 0, RIO_EMU_MAX_TARGETS - 1, &d))
                return -1;
            o->target = (int)d;
            i++;
        } else if (!strcmp(a, "--elevator")) {
            if (num(a, v, 1, 1024, &d))
                return -1;
            o->cfg.elevator = (int)d;
            i++;
        } else if (!strcmp(a, "--log-cap")) {
            if (num(a, v, 0, 1e8, &d))
                return -1;
            o->cfg.log_cap = (long)d;
            i++;
        } else if (!strcmp(a, "--model") && v) {
            if (!strcmp(v, "hdd"))
                o->cfg.disk.model = RIO_EMU_MODEL_HDD;
            else if (!strcmp(v, "ssd"))
                o->cfg.disk.model = RIO_EMU_MODEL_SSD;
            else if (!strcmp(v, "none"))
                o->cfg.disk.model = RIO_EMU_MODEL_NONE;
            else {
                fprintf(stderr, "resonio-emud: --model must be hdd, ssd or none\n");
                return -1;
            }
            i++;
        } else if (!strcmp(a, "--reset")) {
            o->reset = 1;
        } else {
            fprintf(stderr, "resonio-emud: unknown or incomplete option %s\n", a);
            return -1;
        }
    }
    if (!o->dir) {
        fprintf(stderr, "resonio-emud: --dir is required\n");
        return -1;
    }
    return 0;
}

/* ---- emud.conf --------------------------------------------------------------------- */

static void path_of(char *buf, size_t n, const char *dir, const char *what, int i)
{
    if (i >= 0)
        snprintf(buf, n, "%s/t%d.%s", dir, i, what);
    else
        snprintf(buf, n, "%s/%s", dir, what);
}

/* The service's options as saved at start; 0 or -errno. */
static int conf_read(const char *dir, int *targets, struct emud_cfg *cfg)
{
    char path[PATH_MAX + 32], key[64], val[64];
    path_of(path, sizeof path, dir, "emud.conf", -1);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    *targets = 0;
    while (fscanf(f, "%63s %63s", key, val) == 2) {
        double d = strtod(val, NULL);
        if (!strcmp(key, "targets"))
            *targets = (int)d;
        else if (!cfg)
            continue;
        else if (!strcmp(key, "model")) {
            if (rio__emu_model_parse(val, &cfg->disk.model))
                cfg->disk.model = RIO_EMU_MODEL_NONE;
        } else if (!strcmp(key, "time_scale"))
            cfg->time_scale = d;
        else if (!strcmp(key, "stall_s"))
            cfg->stall_s = d;
        else if (!strcmp(key, "elevator"))
            cfg->elevator = (int)d;
        else if (!strcmp(key, "log_cap"))
            cfg->log_cap = (long)d;
        else /* the disk's parameters (the file is emud's own: unknown keys are skipped) */
            (void)rio__emu_model_set(&cfg->disk, key, d);
    }
    fclose(f);
    return *targets >= 1 ? 0 : -EINVAL;
}

static int conf_write(const char *dir, int targets, const struct emud_cfg *c)
{
    char path[PATH_MAX + 32];
    path_of(path, sizeof path, dir, "emud.conf", -1);
    FILE *f = fopen(path, "w");
    if (!f)
        return -errno;
    /* "targets" first: the client reads only that line */
    fprintf(f, "targets %d\nmodel %s\ntime_scale %.17g\n", targets,
            rio__emu_model_name(c->disk.model), c->time_scale);
    double lo, hi;
    const char *name;
    for (int k = 0; (name = rio__emu_model_param(k, &lo, &hi)); k++)
        fprintf(f, "%s %.17g\n", name, rio__emu_model_value(&c->disk, k));
    fprintf(f, "elevator %d\nlog_cap %ld\nstall_s %.17g\n", c->elevator, c->log_cap, c->stall_s);
    return fclose(f) ? -errno : 0;
}

/* ---- processes --------------------------------------------------------------------- */

/* The pid in target i's pid file when that process is a live resonio-emud,
 * else 0. */
static pid_t live_pid(const char *dir, int i)
{
    char path[PATH_MAX + 32], buf[4096];
    long pid = 0;
    path_of(path, sizeof path, dir, "pid", i);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    if (fscanf(f, "%ld", &pid) != 1)
        pid = 0;
    fclose(f);
    if (pid <= 1)
        return 0;
    snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    if (!strstr(buf, "resonio-emud"))
        return 0;
    /* a zombie has exited */
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    f = fopen(path, "r");
    if (f) {
        char st = 0;
        if (fscanf(f, "%*d (%*[^)]) %c", &st) == 1 && (st == 'Z' || st == 'X'))
            pid = 0;
        fclose(f);
    }
    return (pid_t)pid;
}

static int can_connect(const char *dir, int i)
{
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path, sizeof a.sun_path, "%s/t%d.sock", dir, i);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return 0;
    int ok = connect(s, (struct sockaddr *)&a, sizeof a) == 0;
    close(s);
    return ok;
}

/* Stop target i; 0 when it is gone. */
static int stop_one(const char *dir, int i)
{
    char pidpath[PATH_MAX + 32], sock[PATH_MAX + 32];
    path_of(pidpath, sizeof pidpath, dir, "pid", i);
    path_of(sock, sizeof sock, dir, "sock", i);
    pid_t pid = live_pid(dir, i);
    if (!pid) {
        unlink(pidpath);
        return 0;
    }
    kill(pid, SIGTERM);
    for (int k = 0; k < 1000; k++) { /* 10 s */
        if (access(pidpath, F_OK) || !live_pid(dir, i))
            return 0;
        msleep(10);
    }
    fprintf(stderr, "resonio-emud: target %d (pid %d) did not stop; killing it\n", i, (int)pid);
    kill(pid, SIGKILL);
    for (int k = 0; k < 200 && live_pid(dir, i); k++)
        msleep(10);
    unlink(pidpath);
    unlink(sock);
    return live_pid(dir, i) ? -1 : 0;
}

static int cmd_stop(const struct opts *o)
{
    int n = 0, rc = 0;
    if (conf_read(o->dir, &n, NULL)) {
        fprintf(stderr, "resonio-emud: no service in %s (no emud.conf)\n", o->dir);
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (stop_one(o->dir, i))
            rc = 1;
    return rc;
}

static int cmd_start(struct opts *o)
{
    int n = 0, i;
    if (o->targets < 1) {
        fprintf(stderr, "resonio-emud: start needs --targets N\n");
        return 2;
    }
    if (mkdir(o->dir, 0700) && errno != EEXIST) {
        fprintf(stderr, "resonio-emud: creating %s: %s\n", o->dir, strerror(errno));
        return 1;
    }
    chmod(o->dir, 0700);
    if (!conf_read(o->dir, &n, NULL)) {
        for (i = 0; i < n; i++)
            if (live_pid(o->dir, i)) {
                fprintf(stderr, "resonio-emud: the service in %s is running (target %d)\n",
                        o->dir, i);
                return 1;
            }
        if (n != o->targets) {
            fprintf(stderr,
                    "resonio-emud: %s holds a service of %d targets, not %d: its files' layouts "
                    "depend on it\n",
                    o->dir, n, o->targets);
            return 1;
        }
    }
    if (conf_write(o->dir, o->targets, &o->cfg)) {
        fprintf(stderr, "resonio-emud: writing %s/emud.conf: %s\n", o->dir, strerror(errno));
        return 1;
    }
    fflush(NULL);
    for (i = 0; i < o->targets; i++) {
        pid_t p = fork();
        if (p < 0)
            break;
        if (p == 0) {
            setsid();
            pid_t q = fork();
            if (q != 0)
                _exit(q < 0);
            char log[PATH_MAX + 32];
            path_of(log, sizeof log, o->dir, "log", i);
            int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
            int lf = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
            if (nul >= 0)
                dup2(nul, 0);
            if (lf >= 0) {
                dup2(lf, 1);
                dup2(lf, 2);
            }
            /* descriptors other than 0-2 inherited from the caller (an MPI
             * launcher's pipes) must not be held open by the daemon */
            for (int fd = 3; fd < 1024; fd++)
                close(fd);
            if (chdir("/"))
                _exit(1);
            _exit(emud_serve(o->dir, i, o->targets, &o->cfg));
        }
        int st;
        waitpid(p, &st, 0);
    }
    /* wait until every target accepts connections (5 s) */
    int up = 0;
    for (int k = 0; k < 500 && up < o->targets; k++) {
        for (up = 0; up < o->targets && can_connect(o->dir, up); up++)
            ;
        if (up < o->targets)
            msleep(10);
    }
    if (up < o->targets) {
        fprintf(stderr, "resonio-emud: target %d did not start; see %s/t%d.log\n", up, o->dir,
                up);
        for (i = 0; i < o->targets; i++)
            stop_one(o->dir, i);
        return 1;
    }
    return 0;
}

static int cmd_stats(const struct opts *o)
{
    struct rio_emu_client *cl = NULL;
    int rc = rio__emu_connect(o->dir, &cl);
    if (rc) {
        fprintf(stderr, "resonio-emud: cannot reach the service in %s: %s\n", o->dir,
                strerror(-rc));
        return 1;
    }
    printf("target,requests,accesses,sequential_fraction,seek_bytes,busy_s,revocations,"
           "bytes_read,bytes_written,log_entries,log_dropped,rejected,elapsed_s,cache_hits\n");
    for (int i = 0; i < rio__emu_ntargets(cl); i++) {
        struct rio_emu_stats s;
        if ((rc = rio__emu_stats(cl, i, &s))) {
            fprintf(stderr, "resonio-emud: target %d: %s\n", i, strerror(-rc));
            break;
        }
        printf("%d,%llu,%llu,%.6f,%llu,%.6f,%llu,%llu,%llu,%llu,%llu,%llu,%.3f,%llu\n", i,
               (unsigned long long)s.requests, (unsigned long long)s.accesses,
               rio__emu_seq_fraction(&s), (unsigned long long)s.seek_bytes,
               (double)s.busy_ns * 1e-9, (unsigned long long)s.revocations,
               (unsigned long long)s.bytes_read, (unsigned long long)s.bytes_written,
               (unsigned long long)s.log_entries, (unsigned long long)s.log_dropped,
               (unsigned long long)s.rejected, (double)s.elapsed_ns * 1e-9,
               (unsigned long long)s.cache_hits);
        if (o->reset && (rc = rio__emu_stats_reset(cl, i)))
            break;
    }
    rio__emu_disconnect(cl);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct opts o;
    if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return 0;
    }
    if (parse(argc, argv, &o)) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(o.cmd, "start"))
        return cmd_start(&o);
    if (!strcmp(o.cmd, "stop"))
        return cmd_stop(&o);
    if (!strcmp(o.cmd, "stats"))
        return cmd_stats(&o);
    if (!strcmp(o.cmd, "serve")) {
        int n = 0;
        if (o.target < 0 || conf_read(o.dir, &n, &o.cfg) || o.target >= n) {
            fprintf(stderr, "resonio-emud: serve needs --target I of a started service\n");
            return 2;
        }
        return emud_serve(o.dir, o.target, n, &o.cfg);
    }
    fprintf(stderr, "resonio-emud: unknown command %s\n", o.cmd);
    usage(stderr);
    return 2;
}
