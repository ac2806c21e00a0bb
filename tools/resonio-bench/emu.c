/*
 * emu.c — resonio-bench on the emulated striped storage (-storage emu).
 *
 * Rank 0 starts its own resonio-emud service as a service of the bench
 * (service.c: a fresh /tmp directory, a watchdog that stops it whenever
 * rank 0 ends), runs `resonio-emud stats` around every phase to read the
 * targets' counters, and stops the service at the end.
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
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char emud_path[PATH_MAX];
static struct bench_service svc = BENCH_SERVICE_INIT;

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
int bench_emu_start(const struct bench_opts *o, char *dir, size_t dirlen, char *msg,
                    size_t msglen)
{
    if (find_emud(o)) {
        snprintf(msg, msglen, "cannot find resonio-emud%s%s (give it with -emud)",
                 o->emud ? " at " : "", o->emud ? o->emud : "");
        return -1;
    }
    char targets[16], scale[32];
    snprintf(targets, sizeof targets, "%d", o->targets);
    snprintf(scale, sizeof scale, "%g", o->time_scale);
    char *args[] = {"--targets", targets,      "--model", (char *)o->model,
                    "--time-scale", scale, NULL};
    return bench_service_start(&svc, emud_path, "svc", args, dir, dirlen, msg, msglen);
}

/* Contract in bench.h. */
int bench_emu_stop(void)
{
    return bench_service_stop(&svc);
}

/* Contract in bench.h. */
int bench_emu_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max)
{
    char *argv[] = {emud_path, "stats", "--dir", (char *)o->emu_dir, reset ? "--reset" : NULL,
                    NULL};
    return bench_stats_run(argv, out, max);
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
