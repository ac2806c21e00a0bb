/*
 * emu_test.h — what the tests of the emulated storage share: running
 * resonio-emud, and reading a logical file back from the object files on
 * disk, independently of the client library.
 *
 * A unit test is `prog <resonio-emud> [args]`.  emu_main() makes a fresh
 * directory under /tmp, starts a service there, runs the test body in a
 * forked child under a time limit, and then — whatever the child did,
 * crash included — stops the service and removes the directory.  So no
 * test leaves a daemon behind.
 *
 * emu_slurp() reassembles a logical file from the service's own records:
 * target 0's meta.tab ("fid unit count first hex(name)" lines) and the
 * object files t<i>/<fid>.obj, using the round-robin layout.  It shares
 * no code with the client, so a test can hold the client to it.
 *
 * Everything is static; each program includes this once.  No MPI.
 */
#ifndef EMU_TEST_H
#define EMU_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *emu_bin;     /* path of resonio-emud */
static char emu_top[64];        /* the test's temporary directory */
static char emu_dir[80];        /* the service directory inside it */

/* A one-region generator for rio__emu_rw: the region {off, len}. */
struct one {
    int64_t off, len;
    int given;
};

static inline int one_next(void *arg, int64_t *off, int64_t *len)
{
    struct one *o = arg;
    if (o->given)
        return 0;
    o->given = 1;
    *off = o->off;
    *len = o->len;
    return 1;
}

/** Run resonio-emud with the arguments (NULL-terminated); its exit status. */
static inline int emu_run(const char *cmd, ...)
{
    const char *argv[64];
    int n = 0;
    va_list ap;
    argv[n++] = emu_bin;
    argv[n++] = cmd;
    va_start(ap, cmd);
    for (const char *a; n < 62 && (a = va_arg(ap, const char *));)
        argv[n++] = a;
    va_end(ap);
    argv[n] = NULL;
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        execv(emu_bin, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/** Start the service in emu_dir: targets, then extra resonio-emud options. */
#define EMU_START(targets, ...) \
    emu_run("start", "--dir", emu_dir, "--targets", targets, ##__VA_ARGS__, (const char *)NULL)
#define EMU_STOP() emu_run("stop", "--dir", emu_dir, (const char *)NULL)

static inline void emu_rmtree(const char *top)
{
    char cmd[256];
    if (strncmp(top, "/tmp/rio-emu-", 13))
        return; /* only what emu_main made */
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    if (system(cmd) != 0)
        fprintf(stderr, "emu_test: could not remove %s\n", top);
}

/**
 * The test's main: argv[1] is resonio-emud.  Starts a service of
 * `targets` targets with the options given (NULL-terminated array, may be
 * NULL), runs body() in a child with a limit of `seconds`, always stops
 * the service and removes its directory.  Returns the exit status.
 */
static inline int emu_main(int argc, char **argv, const char *targets, const char *const *opts,
                    int (*body)(void), int seconds)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s <resonio-emud>\n", argv[0]);
        return 2;
    }
    emu_bin = argv[1];
    snprintf(emu_top, sizeof emu_top, "/tmp/rio-emu-XXXXXX");
    if (!mkdtemp(emu_top)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(emu_dir, sizeof emu_dir, "%s/svc", emu_top);
    const char *a[24] = {"start", "--dir", emu_dir, "--targets", targets};
    int n = 5;
    for (int i = 0; opts && opts[i] && n < 22; i++)
        a[n++] = opts[i];
    a[n] = NULL;
    int rc = emu_run(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                     a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21],
                     (const char *)NULL);
    if (rc != 0) {
        fprintf(stderr, "FAIL: resonio-emud start exited with %d\n", rc);
        emu_rmtree(emu_top);
        return 1;
    }
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        alarm((unsigned)seconds);
        int r = body();
        fflush(NULL);
        _exit(r);
    }
    int st = 0, bad = 0;
    waitpid(p, &st, 0);
    if (EMU_STOP() != 0) {
        fprintf(stderr, "FAIL: resonio-emud stop failed\n");
        bad = 1;
    }
    /* a sanitizer report in a daemon's log fails the test too */
    for (int i = 0; i < 256; i++) {
        char log[160], line[512];
        snprintf(log, sizeof log, "%s/t%d.log", emu_dir, i);
        FILE *f = fopen(log, "r");
        if (!f)
            break;
        while (fgets(line, sizeof line, f))
            if (strstr(line, "Sanitizer") || strstr(line, "runtime error:")) {
                printf("FAIL: target %d: %s", i, line);
                bad = 1;
            }
        fclose(f);
    }
    emu_rmtree(emu_top);
    if (bad)
        return 1;
    if (WIFSIGNALED(st)) {
        printf("FAIL: the test died of signal %d%s\n", WTERMSIG(st),
               WTERMSIG(st) == SIGALRM ? " (time limit)" : "");
        return 1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* ---- reading a logical file from the object files ------------------------------ */

/** The layout of name from dir/t0/meta.tab; 0 or -1. */
static inline int emu_meta(const char *dir, const char *name, unsigned long long *fid, long long *unit,
                    unsigned *count, unsigned *first)
{
    char path[512], hex[2100], want[2100];
    size_t n = strlen(name);
    if (n > 1024)
        return -1;
    for (size_t i = 0; i < n; i++)
        sprintf(want + 2 * i, "%02x", (unsigned char)name[i]);
    want[2 * n] = '\0';
    snprintf(path, sizeof path, "%s/t0/meta.tab", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    unsigned long long next;
    int found = -1;
    if (fscanf(f, "next %llu\n", &next) != 1) {
        fclose(f);
        return -1;
    }
    while (fscanf(f, "%llu %lld %u %u %2090s\n", fid, unit, count, first, hex) == 5)
        if (!strcmp(hex, want)) {
            found = 0;
            break;
        }
    fclose(f);
    return found;
}

/** The logical file name of the service in dir, reassembled from its
 *  objects (malloc'ed, *len bytes), or NULL if it does not exist. */
static inline unsigned char *emu_slurp(const char *dir, const char *name, long long *len)
{
    unsigned long long fid;
    long long unit;
    unsigned count, first, ntargets = 0;
    char path[512];
    *len = 0;
    if (emu_meta(dir, name, &fid, &unit, &count, &first))
        return NULL;
    snprintf(path, sizeof path, "%s/emud.conf", dir);
    FILE *f = fopen(path, "r");
    if (!f || fscanf(f, "targets %u", &ntargets) != 1 || !ntargets) {
        if (f)
            fclose(f);
        return NULL;
    }
    fclose(f);
    unsigned char **obj = calloc(count, sizeof *obj);
    long long *osz = calloc(count, sizeof *osz), size = 0;
    for (unsigned j = 0; j < count; j++) {
        snprintf(path, sizeof path, "%s/t%u/%llu.obj", dir, (first + j) % ntargets, fid);
        int fd = open(path, O_RDONLY);
        struct stat sb;
        if (fd < 0 || fstat(fd, &sb)) {
            if (fd >= 0)
                close(fd);
            continue;
        }
        obj[j] = malloc((size_t)sb.st_size + 1);
        osz[j] = sb.st_size;
        for (long long got = 0; got < osz[j];) {
            ssize_t r = pread(fd, obj[j] + got, (size_t)(osz[j] - got), got);
            if (r <= 0) {
                osz[j] = got;
                break;
            }
            got += r;
        }
        close(fd);
        if (osz[j] > 0) {
            long long z = osz[j] - 1, end = ((z / unit) * count + j) * unit + z % unit + 1;
            if (end > size)
                size = end;
        }
    }
    unsigned char *out = calloc((size_t)size + 1, 1);
    for (long long o = 0; o < size; o++) {
        long long s = o / unit, j = s % count, oo = (s / count) * unit + o % unit;
        if (oo < osz[j])
            out[o] = obj[j][oo];
    }
    for (unsigned j = 0; j < count; j++)
        free(obj[j]);
    free(obj);
    free(osz);
    *len = size;
    return out;
}

#endif /* EMU_TEST_H */
