/*
 * cli.c — the command line and the suites.
 *
 *   resonio-bench [options] [-w WORKLOAD [-PARAM VALUE[,VALUE...]]...]...
 *
 * A -w starts a workload specification; the -PARAM options after it are
 * that workload's parameters (unknown ones are errors), and a comma list
 * makes a sweep (one parameter per specification).  Without -w the default
 * suite runs.  A suite is nothing but a list of such specifications, parsed
 * by the same code, so every number in it is visible here.
 *
 * A specification may also carry -hint KEY=VALUE (MPI_Info hints given
 * to every implementation at open for its points) and -impls LIST (the
 * implementations of its points, among those -impl selects).
 *
 * Parsing is local and deterministic: every rank parses the same argv and
 * gets the same points; only rank 0 prints the message it returns.
 */
#include "bench.h"

#include "resonio.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The default suite: every workload with the papers' parameters except
 * for sizes, scaled down to 16-64 MiB per phase (demo, iormpiio, matrix:
 * 16 MiB files instead of 1-10 GB; collperf: a 160^3 array instead of
 * 600^3; tile: 2 frames instead of 100; varsize: 256 variables instead of
 * 1024; ecio: 16000 ints per call instead of up to a million), and the
 * three figures' sweeps (demo segment, noncontig elmtcount, matrix block
 * size) at three points each.  mpiiotest writes 64 MiB: 32 calls of 1 MiB
 * per rank at 2 ranks, so that the selector's cost on a 1 MiB-per-rank
 * collective write is measured once it has chosen.  The main job runs the
 * suite on the disk and on /dev/shm under each MPI, about 40 s each at 2
 * ranks here; most of it is the number of collective calls (each waits
 * for both ranks to be scheduled on the shared 2-core machine). */
static const char *const suite_default[] = {
    "demo -seg 32k,128k,1m -size 16m",
    "mpiiotest -seg 1m -size 64m",
    "iormpiio -seg 64k -size 16m",
    "noncontig -elmtcount 16,256,4096 -bufsize 16m -size 16m",
    "hpio -region_count 4096 -region_size 2k -region_spacing 0 -mem contig",
    "collperf -n 160",
    "tile -frames 2",
    "flash -blocks 80 -nxb 8 -nguard 4 -nvar 24",
    "matrix -block 4k,64k,1m -depth 4 -size 16m",
    "ecio -count 16000 -calls 100",
    "varsize -record 40k -step 256 -group 3 -vars 256",
    NULL,
};

/* The resonance experiments on the emulated storage (-storage emu, 4
 * targets, hdd model, 64 KiB stripe unit; figures.c reports them):
 * resonant-io.txt Figures 2 and 5, the demo program at the paper's
 * segment sizes, with one rank per (virtual) node as in the paper's one
 * process per compute node, so that two_phase has one aggregator per
 * rank as ROMIO had: independent calls (indep_calls, the paper's
 * non-collective I/O; and resonio's `independent` strategy, the same
 * pattern through a collective call) and two_phase for Figure 2,
 * resonant and two_phase for Figure 5.  orthrus.txt Figures 3 and 4, the
 * matrix benchmark over block size (depth 4) and access depth (16 KiB
 * blocks) with virtual nodes of 2 ranks: target_first (disk-first),
 * node_first (core-first) and two_phase (ROMIO).  File sizes are 32 MiB
 * (demo) and 8 MiB (matrix) instead of the papers' 10 GB and more, so
 * that the suite takes minutes on a modelled disk of about 70 MB/s per
 * target; a point whose call is larger than its size has one call.  With
 * 16 MiB the 1 MiB demo point had one or two calls per phase, whose
 * first-call costs (fresh buffers, a seek to the file) swung its verdict. */
static const char *const suite_emu[] = {
    "demo -seg 32k,64k,128k,256k,512k,1m -size 32m -hint resonio_ranks_per_node=1 "
    "-impls indep_calls,independent,two_phase,resonant",
    "matrix -block 4k,16k,64k,256k,1m -depth 4 -size 8m -hint resonio_ranks_per_node=2 "
    "-impls two_phase,node_first,target_first",
    "matrix -block 16k -depth 4,16,64 -size 8m -hint resonio_ranks_per_node=2 "
    "-impls two_phase,node_first,target_first",
    NULL,
};

/* The papers' sweeps (file sizes scaled down from the papers' 1-10 GB). */
static const char *const suite_full[] = {
    "demo -seg 32k,64k,128k,256k,512k,1m -size 128m",
    "mpiiotest -seg 32k,64k,128k,256k,512k,1m -size 128m",
    "iormpiio -seg 32k,64k,128k,256k,512k,1m -size 128m",
    "noncontig -elmtcount 16,64,256,1024,4096,16384 -bufsize 16m -size 64m",
    "hpio -region_count 4096 -region_size 2k,4k,8k,16k,32k,64k -region_spacing 0 -mem contig",
    "hpio -region_count 4096 -region_size 2k -region_spacing 128 -mem noncontig",
    "collperf -n 64,128,256,512",
    "collperf -n 600",
    "tile -frames 10",
    "flash -blocks 80 -nxb 8 -nguard 4 -nvar 24",
    "matrix -block 4k,16k,64k,256k,1m,4m -depth 4 -size 128m",
    "matrix -block 16k -depth 4,16,64,128 -size 128m",
    "ecio -count 4000,16000,64000,256000,1024000 -calls 100",
    "varsize -record 40k -step 256 -group 3 -vars 1024",
    NULL,
};

void bench_usage(FILE *to)
{
    fprintf(to,
            "usage: resonio-bench [--suite default|full|emu] [-impl LIST] [-rounds N] [-dir DIR]\n"
            "                     [-o DIR] [-sync] [-noplot] [-list] [-dry]\n"
            "                     [-storage posix|emu|cephfs|rados|simgrid [-targets N]\n"
            "                      [-model M] [-stripe SIZE] [-time-scale F] [-emud PATH]\n"
            "                      [-ceph-tool PATH] [-ceph-store memstore|bluestore]]\n"
            "                     [-w WORKLOAD [-PARAM VALUE[,VALUE...]] [-hint KEY=VALUE]...\n"
            "                      [-impls LIST]]...\n"
            "  --suite S   run a predefined suite (default when no -w is given); emu: the\n"
            "              resonance experiments on the emulated storage (implies -storage emu)\n"
            "  --suite overlap [-size S] [-rounds N] [-warmup W] [-compute cpu|sleep]\n"
            "                  [-thread multiple|single] [-kinds LIST] [-prefix P] [-dir DIR]\n"
            "                  [-o DIR]\n"
            "              how much of nonblocking and split collective calls' I/O hides\n"
            "              behind computation (a CPU loop, or asleep), resonio beside native\n"
            "              (MPI_THREAD_MULTIPLE, or MPI_Init's level with -thread single; S bytes\n"
            "              per rank and call, default 256m; P before resonio's file name: a\n"
            "              driver's prefix such as delay:)\n"
            "  --suite overlap -all [--help]  that suite under both MPI libraries, 1 and 2\n"
            "              ranks, both thread levels, in one table with the targets judged\n"
            "              (tools/resonio-bench/resonio-overlap)\n"
            "  --suite scale [--help]  how each call's costs grow from 2 to 128 ranks,\n"
            "              counted beside native (Open MPI; tools/resonio-bench/resonio-scale)\n"
            "  --suite validate [--help]  the SMPI build's simulated storage against the\n"
            "              emulated one on the demo experiments, with the error stated\n"
            "              (tools/resonio-bench/resonio-validate)\n"
            "  --suite sim [--help]  the papers' at-scale figures (FLASH I/O on a Jaguar-like\n"
            "              system, mpi-io-test over 16 storage nodes, the demo's sweep) on\n"
            "              the SMPI build (tools/resonio-bench/resonio-sim)\n"
            "  -impl LIST  comma list of native, auto, limit, resonio (every strategy and\n"
            "              auto), all (default: all of these), indep_calls (independent calls,\n"
            "              rio_file_write_at/read_at; only when named), and the strategies:\n"
            "             ");
    /* the library's names, wrapped under the option's text */
    for (int i = 0, col = 13; i < rio_strategy_count(); i++) {
        const char *s = rio_strategy_name(i);
        int w = (int)strlen(s) + (i + 1 < rio_strategy_count());
        if (col + 1 + w > 80) {
            fprintf(to, "\n             ");
            col = 13;
        }
        fprintf(to, " %s%s", s, i + 1 < rio_strategy_count() ? "," : "");
        col += 1 + w;
    }
    fprintf(to,
            "\n"
            "  -rounds N   timed rounds per implementation (default 3), after one probe round\n"
            "  -dir DIR    directory for the data files (default: the output directory)\n"
            "  -o DIR      output directory (default bench-results/<timestamp>)\n"
            "  -sync       sync the file before closing it after the write phase\n"
            "  -noplot     do not run gnuplot\n"
            "  -list       list the workloads and their parameters\n"
            "  -dry        print the points (workloads with their values) and exit\n"
            "  -storage S  posix (default: files in -dir) or emu: start a resonio-emud service\n"
            "              in a fresh /tmp directory for the run and stop it at the end; files\n"
            "              emu:<name>, checked from the object files; native and limit cannot\n"
            "              run there and are skipped; per-target sequentiality is reported\n"
            "              or cephfs: start a Ceph cluster (tools/resonio-ceph: 3 memstore\n"
            "              OSDs, CephFS through ceph-fuse) for the run and stop it at the end;\n"
            "              files in a directory of the mount with the layout -stripe x -targets;\n"
            "              per-OSD requests, bytes and sequentiality from the OSDs' histories\n"
            "              or rados: the same cluster without a mount; files rados:resonio/<name>\n"
            "              (-stripe x -targets, 4 MiB objects), checked from the objects with\n"
            "              librados; resonio only, with direct_list and direct_lua (the direct\n"
            "              strategy with list I/O or the OSDs' lua class forced) beside direct\n"
            "              or simgrid: the SMPI build's only storage (run it with\n"
            "              resonio-smpirun): files simgrid:<name> on -targets of the simulated\n"
            "              platform's storage hosts, checked from their objects; resonio only;\n"
            "              every time is simulated\n"
            "  -targets N  emu and simgrid targets, cephfs and rados stripe count (default 4)\n"
            "  -model M    emu, simgrid: hdd (default), ssd or none\n"
            "  -stripe S   striping_unit of the files (default 64k; striping_factor: -targets)\n"
            "  -time-scale F  emu: wait F times the modelled service time (default 1)\n"
            "  -ceph-tool PATH  the resonio-ceph program (default: the source tree's)\n"
            "  -ceph-store S  cephfs, rados: memstore OSDs (default; in memory) or bluestore\n"
            "              (sparse block files in the cluster's directory)\n"
            "  -emud PATH  the resonio-emud program (default: next to resonio-bench, the\n"
            "              build tree, or PATH)\n"
            "  -hint K=V   (after -w) an MPI_Info hint for that specification's points\n"
            "  -impls LIST (after -w) that specification's implementations, among -impl's\n"
            "  sizes take k, m, g suffixes (powers of 1024); a comma list sweeps a parameter\n");
}

void bench_list(FILE *to)
{
    for (int i = 0; bench_workloads[i]; i++) {
        const struct bench_workload *w = bench_workloads[i];
        fprintf(to, "%-10s %s (%s)\n", w->name, w->doc, w->source);
        for (const struct bench_param *p = w->params; p->name; p++)
            fprintf(to, "  -%-15s %-8s %s%s%s\n", p->name, p->def, p->doc,
                    p->kind == BP_CHOICE ? ": " : "", p->kind == BP_CHOICE ? p->choices : "");
    }
}

void bench_fmt_size(char *buf, size_t len, long long v)
{
    static const char suf[] = "KMG";
    if (v >= 1024) {
        for (int s = 2; s >= 0; s--) {
            long long unit = 1LL << (10 * (s + 1));
            if (v % unit == 0) {
                snprintf(buf, len, "%lld%c", v / unit, suf[s]);
                return;
            }
        }
        if ((v * 100) % 1024 == 0) {
            snprintf(buf, len, "%.2fK", (double)v / 1024);
            return;
        }
    }
    snprintf(buf, len, "%lld", v);
}

static int err_msg(char *msg, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int err_msg(char *msg, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, len, fmt, ap);
    va_end(ap);
    return -1;
}

int bench_parse_number(const char *s, long long *out)
{
    const char *p = s;
    if (!isdigit((unsigned char)*p))
        return -1;
    while (isdigit((unsigned char)*p))
        p++;
    int frac = *p == '.';
    if (frac) {
        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        while (isdigit((unsigned char)*p))
            p++;
    }
    long long mult = 1;
    switch (*p) {
    case 'k':
    case 'K':
        mult = 1LL << 10;
        p++;
        break;
    case 'm':
    case 'M':
        mult = 1LL << 20;
        p++;
        break;
    case 'g':
    case 'G':
        mult = 1LL << 30;
        p++;
        break;
    default: break;
    }
    if (*p)
        return -1;
    errno = 0;
    double d = strtod(s, NULL) * (double)mult;
    if (errno || d > 9.0e15 || d != (double)(long long)d)
        return -1;
    *out = (long long)d;
    return 0;
}

/* Parse one value of parameter pa; 0 or -1 with msg. */
static int parse_value(const struct bench_workload *w, const struct bench_param *pa,
                       const char *text, long long *out, char *msg, size_t len)
{
    if (pa->kind == BP_CHOICE) {
        const char *c = pa->choices;
        for (int i = 0; *c; i++) {
            size_t n = strcspn(c, "|");
            if (strlen(text) == n && !strncmp(c, text, n)) {
                *out = i;
                return 0;
            }
            c += n + (c[n] == '|');
        }
        return err_msg(msg, len, "%s: -%s must be one of %s, not '%s'", w->name, pa->name,
                       pa->choices, text);
    }
    if (bench_parse_number(text, out))
        return err_msg(msg, len, "%s: malformed %s '%s' for -%s", w->name,
                       pa->kind == BP_SIZE ? "size" : "number", text, pa->name);
    if (*out < pa->min || *out > pa->max)
        return err_msg(msg, len, "%s: -%s %s is out of range [%lld, %lld]", w->name, pa->name, text,
                       pa->min, pa->max);
    return 0;
}

/* A specification being parsed: values as text, one list allowed. */
struct spec {
    const struct bench_workload *w;
    const char *text[BENCH_MAX_PARAMS];
    const char *hint[BENCH_MAX_HINTS];
    int nhints;
    unsigned impl_mask; /* -impls, 0 if not given */
};

/* Expand a specification into points appended to o->points. */
static int expand(struct spec *sp, int index, int nprocs, struct bench_opts *o, char *msg,
                  size_t len)
{
    const struct bench_workload *w = sp->w;
    int np = 0, sweep = -1, nvals = 1;
    long long vals[BENCH_MAX_PARAMS][BENCH_MAX_SWEEP];
    int nv[BENCH_MAX_PARAMS];
    for (const struct bench_param *pa = w->params; pa->name; pa++, np++) {
        const char *t = sp->text[np] ? sp->text[np] : pa->def;
        char buf[256];
        snprintf(buf, sizeof buf, "%s", t);
        nv[np] = 0;
        char *save = NULL;
        if (strchr(buf, ',') && pa->kind == BP_CHOICE)
            return err_msg(msg, len, "%s: -%s takes one value", w->name, pa->name);
        if (buf[0] == ',' || buf[strlen(buf) - 1] == ',' || strstr(buf, ",,"))
            return err_msg(msg, len, "%s: malformed list '%s' for -%s", w->name, t, pa->name);
        for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            if (nv[np] == BENCH_MAX_SWEEP)
                return err_msg(msg, len, "%s: at most %d values for -%s", w->name, BENCH_MAX_SWEEP,
                               pa->name);
            if (parse_value(w, pa, tok, &vals[np][nv[np]], msg, len))
                return -1;
            nv[np]++;
        }
        if (nv[np] > 1) {
            if (sweep >= 0)
                return err_msg(msg, len, "%s: only one parameter may take a list", w->name);
            sweep = np;
            nvals = nv[np];
        }
    }
    struct bench_point *pts = realloc(o->points, sizeof *pts * (size_t)(o->npoints + nvals));
    if (!pts)
        return err_msg(msg, len, "out of memory");
    o->points = pts;
    for (int k = 0; k < nvals; k++) {
        struct bench_point *p = &o->points[o->npoints];
        memset(p, 0, sizeof *p);
        p->w = w;
        p->sweep = sweep;
        p->spec = index;
        p->impl_mask = sp->impl_mask;
        size_t n = 0;
        for (int i = 0; i < np; i++) {
            const struct bench_param *pa = &w->params[i];
            p->v[i] = vals[i][i == sweep ? k : 0];
            char vb[64];
            if (pa->kind == BP_SIZE)
                bench_fmt_size(vb, sizeof vb, p->v[i]);
            else if (pa->kind == BP_COUNT)
                snprintf(vb, sizeof vb, "%lld", p->v[i]);
            else {
                const char *c = pa->choices;
                for (long long j = 0; j < p->v[i]; j++)
                    c += strcspn(c, "|") + 1;
                snprintf(vb, sizeof vb, "%.*s", (int)strcspn(c, "|"), c);
            }
            n += (size_t)snprintf(p->params + n, n < sizeof p->params ? sizeof p->params - n : 0,
                                  "%s%s=%s", i ? " " : "", pa->name, vb);
            if (n >= sizeof p->params)
                n = sizeof p->params - 1;
        }
        size_t h = 0;
        for (int i = 0; i < sp->nhints; i++) {
            h += (size_t)snprintf(p->hints + h, h < sizeof p->hints ? sizeof p->hints - h : 0,
                                  "%s%s", i ? " " : "", sp->hint[i]);
            if (h >= sizeof p->hints)
                return err_msg(msg, len, "%s: the hints are too long", w->name);
            n += (size_t)snprintf(p->params + n, n < sizeof p->params ? sizeof p->params - n : 0,
                                  " %s", sp->hint[i]);
            if (n >= sizeof p->params)
                n = sizeof p->params - 1;
        }
        /* the values must make a workload at this number of ranks */
        struct bench_plan plan;
        memset(&plan, 0, sizeof plan);
        char err[256] = "";
        int rc = w->setup(p->v, 0, nprocs, &plan, err, sizeof err);
        bench_plan_free(&plan);
        if (rc)
            return err_msg(msg, len, "%s", err);
        o->npoints++;
    }
    return 0;
}

static int is_flag(const char *a, const char *name)
{
    /* -name and --name are the same */
    return a[0] == '-' && (!strcmp(a + 1, name) || (a[1] == '-' && !strcmp(a + 2, name)));
}

static int parse_impls(const char *text, unsigned *mask, char *msg, size_t len)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    *mask = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int i = 0; i < bench_nimpls; i++)
            if (!strcmp(t, bench_impls[i].name) ||
                (!bench_impls[i].noncoll &&
                 (!strcmp(t, "all") ||
                  (!strcmp(t, "resonio") && bench_impls[i].kind == IMPL_RESONIO)))) {
                *mask |= 1u << i;
                found = 1;
            }
        if (!found)
            return err_msg(msg, len, "unknown implementation '%s'", t);
    }
    if (!*mask)
        return err_msg(msg, len, "no implementation in '%s'", text);
    return 0;
}

/* Parse a list of words (argv without the program name) into specs and
 * options.  in_suite: only -w and parameters are allowed. */
static int parse_words(int n, char **a, int nprocs, struct bench_opts *o, int in_suite, char *msg,
                       size_t len);

static int add_suite(const char *name, int nprocs, struct bench_opts *o, char *msg, size_t len)
{
    const char *const *s = !strcmp(name, "default") ? suite_default
                           : !strcmp(name, "full")  ? suite_full
                           : !strcmp(name, "emu")   ? suite_emu
                                                    : NULL;
    if (!s)
        return err_msg(msg, len, "unknown suite '%s' (default, full or emu)", name);
    for (; *s; s++) {
        char buf[512], *words[64];
        int nw = 0;
        snprintf(buf, sizeof buf, "-w %s", *s);
        char *save = NULL;
        for (char *t = strtok_r(buf, " ", &save); t && nw < 64; t = strtok_r(NULL, " ", &save))
            words[nw++] = t;
        if (parse_words(nw, words, nprocs, o, 1, msg, len))
            return -1;
    }
    return 0;
}

static int nspecs;
static int storage_given; /* -storage was on the command line */

/* A word that is a flag with a value at the top level (not in a suite). */
static int top_option(const char *arg)
{
    static const char *const names[] = {"impl",  "rounds",  "dir",    "o",          "storage",
                                        "targets", "model", "stripe", "time-scale", "emud",
                                        "ceph-tool", "ceph-store"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (is_flag(arg, names[i]))
            return 1;
    return 0;
}

/* The top-level options with a value; 0 or -1 with msg. */
static int set_option(const char *arg, const char *val, struct bench_opts *o, char *msg,
                      size_t len)
{
    long long v;
    if (is_flag(arg, "impl")) {
        o->impl_given = 1;
        return parse_impls(val, &o->impl_mask, msg, len);
    }
    if (is_flag(arg, "rounds")) {
        if (bench_parse_number(val, &v) || v < 1 || v >= BENCH_MAX_ROUNDS)
            return err_msg(msg, len, "malformed round count '%s' (1..%d)", val,
                           BENCH_MAX_ROUNDS - 1);
        o->rounds = (int)v;
    } else if (is_flag(arg, "dir")) {
        o->dir = val;
    } else if (is_flag(arg, "o")) {
        o->out = val;
    } else if (is_flag(arg, "storage")) {
        if (strcmp(val, "posix") && strcmp(val, "emu") && strcmp(val, "cephfs") &&
            strcmp(val, "rados") && strcmp(val, "simgrid"))
            return err_msg(msg, len,
                           "-storage must be posix, emu, cephfs, rados or simgrid, not '%s'", val);
#ifdef RIO_SMPI
        if (strcmp(val, "simgrid"))
            return err_msg(msg, len, "-storage %s: this resonio-bench runs on SimGrid's "
                                     "simulated cluster, whose storage is simgrid", val);
#else
        if (!strcmp(val, "simgrid"))
            return err_msg(msg, len, "-storage simgrid: this resonio-bench was built for an "
                                     "MPI library; the SMPI build (cmake -DRESONIO_SMPI=ON) "
                                     "runs on SimGrid");
#endif
        o->sim = !strcmp(val, "simgrid");
        o->emu = !strcmp(val, "emu");
        o->rados = !strcmp(val, "rados");
        o->ceph = o->rados || !strcmp(val, "cephfs");
#ifndef BENCH_HAVE_RADOS
        if (o->rados)
            return err_msg(msg, len, "-storage rados: this resonio-bench was built without "
                                     "librados (Debian: librados-dev), which checks the files");
#endif
        storage_given = 1;
    } else if (is_flag(arg, "targets")) {
        if (bench_parse_number(val, &v) || v < 1 || v > BENCH_MAX_TARGETS)
            return err_msg(msg, len, "malformed target count '%s' (1..%d)", val,
                           BENCH_MAX_TARGETS);
        o->targets = (int)v;
    } else if (is_flag(arg, "model")) {
        if (strcmp(val, "hdd") && strcmp(val, "ssd") && strcmp(val, "none"))
            return err_msg(msg, len, "-model must be hdd, ssd or none, not '%s'", val);
        o->model = val;
    } else if (is_flag(arg, "stripe")) {
        if (bench_parse_number(val, &v) || v < 1 || v > (1LL << 30))
            return err_msg(msg, len, "malformed stripe size '%s' (1..1g)", val);
        o->stripe = v;
    } else if (is_flag(arg, "time-scale")) {
        char *end;
        double d = strtod(val, &end);
        if (end == val || *end || !(d >= 0) || d > 1e6)
            return err_msg(msg, len, "malformed time scale '%s' (0..1e6)", val);
        o->time_scale = d;
    } else if (is_flag(arg, "ceph-tool")) {
        o->ceph_tool = val;
    } else if (is_flag(arg, "ceph-store")) {
        if (strcmp(val, "memstore") && strcmp(val, "bluestore"))
            return err_msg(msg, len, "-ceph-store must be memstore or bluestore, not '%s'", val);
        o->bluestore = !strcmp(val, "bluestore");
    } else {
        o->emud = val;
    }
    return 0;
}

static int parse_words(int n, char **a, int nprocs, struct bench_opts *o, int in_suite, char *msg,
                       size_t len)
{
    struct spec sp = {0};
    for (int i = 0; i < n; i++) {
        const char *arg = a[i], *val = i + 1 < n ? a[i + 1] : NULL;
        if (arg[0] != '-' || !arg[1])
            return err_msg(msg, len, "unexpected argument '%s'", arg);
        /* flags without a value */
        if (!in_suite && is_flag(arg, "sync")) {
            o->sync = 1;
            continue;
        }
        if (!in_suite && is_flag(arg, "dry")) {
            o->dry = 1;
            continue;
        }
        if (!in_suite && is_flag(arg, "noplot")) {
            o->plots = 0;
            continue;
        }
        if (!in_suite && (is_flag(arg, "h") || is_flag(arg, "help")))
            return 1;
        if (!in_suite && is_flag(arg, "list"))
            return 2;
        /* a parameter of the current workload */
        if (sp.w && arg[1] != '-') {
            int k = 0;
            const struct bench_param *pa = sp.w->params;
            for (; pa->name && strcmp(pa->name, arg + 1); pa++)
                k++;
            if (pa->name) {
                if (!val)
                    return err_msg(msg, len, "%s: -%s needs a value", sp.w->name, pa->name);
                sp.text[k] = val;
                i++;
                continue;
            }
        }
        /* options of the current specification */
        if (sp.w && (is_flag(arg, "hint") || is_flag(arg, "impls"))) {
            if (!val)
                return err_msg(msg, len, "%s: %s needs a value", sp.w->name, arg);
            i++;
            if (is_flag(arg, "impls")) {
                if (parse_impls(val, &sp.impl_mask, msg, len))
                    return -1;
                continue;
            }
            const char *eq = strchr(val, '=');
            if (!eq || eq == val || !eq[1] || strpbrk(val, ", \t\""))
                return err_msg(msg, len, "%s: -hint takes KEY=VALUE without commas or spaces, "
                               "not '%s'", sp.w->name, val);
            if (sp.nhints == BENCH_MAX_HINTS)
                return err_msg(msg, len, "%s: at most %d hints", sp.w->name, BENCH_MAX_HINTS);
            sp.hint[sp.nhints++] = val;
            continue;
        }
        int is_w = is_flag(arg, "w"), known = is_w || is_flag(arg, "suite");
        if (!in_suite)
            known = known || top_option(arg);
        if (!known) {
            if (sp.w)
                return err_msg(msg, len, "unknown parameter '%s' for workload %s", arg, sp.w->name);
            return err_msg(msg, len, "unknown option '%s'", arg);
        }
        if (!val)
            return err_msg(msg, len, "option %s needs a value", arg);
        i++;
        if (is_w) {
            if (sp.w && expand(&sp, nspecs++, nprocs, o, msg, len))
                return -1;
            memset(&sp, 0, sizeof sp);
            sp.w = bench_workload_find(val);
            if (!sp.w)
                return err_msg(msg, len, "unknown workload '%s' (try -list)", val);
        } else if (is_flag(arg, "suite")) {
            if (add_suite(val, nprocs, o, msg, len))
                return -1;
            o->suite = !strcmp(val, "full") ? "full" : !strcmp(val, "emu") ? "emu" : "default";
        } else if (set_option(arg, val, o, msg, len)) {
            return -1;
        }
    }
    if (sp.w && expand(&sp, nspecs++, nprocs, o, msg, len))
        return -1;
    return 0;
}

unsigned bench_point_impls(const struct bench_opts *o, const struct bench_point *p)
{
    /* without -impl, a specification's -impls may name indep_calls */
    unsigned all = o->impl_mask;
    for (int i = 0; i < bench_nimpls && !o->impl_given; i++)
        if (bench_impls[i].noncoll)
            all |= 1u << i;
    return (p->impl_mask ? all & p->impl_mask : o->impl_mask) & ~o->skipped;
}

int bench_parse(int argc, char **argv, int nprocs, struct bench_opts *o, char *msg, size_t len)
{
    memset(o, 0, sizeof *o);
    if (bench_impls_init())
        return err_msg(msg, len, "resonio names %d strategies, more than the %d implementations "
                       "resonio-bench holds (BENCH_MAX_IMPLS)", rio_strategy_count(),
                       BENCH_MAX_IMPLS);
    o->rounds = 3;
    o->plots = 1;
    o->impl_mask = 0;
    for (int i = 0; i < bench_nimpls; i++)
        if (!bench_impls[i].noncoll && !bench_impls[i].rados)
            o->impl_mask |= 1u << i;
    o->targets = 4;
    o->model = "hdd";
    o->stripe = 64 << 10;
    o->time_scale = 1.0;
    nspecs = 0;
    storage_given = 0;
    int rc = parse_words(argc - 1, argv + 1, nprocs, o, 0, msg, len);
    if (rc == 1) {
        snprintf(msg, len, "help");
        return 1;
    }
    if (rc == 2) {
        snprintf(msg, len, "list");
        return 1;
    }
    if (rc)
        return -1;
    if (!o->npoints) {
        if (add_suite("default", nprocs, o, msg, len))
            return -1;
        o->suite = "default";
    }
#ifdef RIO_SMPI
    o->sim = 1; /* the only storage of the simulated cluster */
#else
    if (!storage_given && o->suite && !strcmp(o->suite, "emu"))
        o->emu = 1;
#endif
    for (int i = 0; i < bench_nimpls; i++) {
        /* the MPI library cannot open emu: or rados: files, and limit is
         * POSIX I/O; the rados: variants run there only, by default */
        if ((o->emu || o->rados || o->sim) && bench_impls[i].kind != IMPL_RESONIO)
            o->skipped |= 1u << i;
        if (bench_impls[i].rados && !o->rados)
            o->skipped |= 1u << i;
        if (bench_impls[i].rados && o->rados && !o->impl_given)
            o->impl_mask |= 1u << i;
    }
    for (int i = 0; i < o->npoints; i++)
        if (!bench_point_impls(o, &o->points[i]))
            return err_msg(msg, len, "%s %s: no implementation to run%s", o->points[i].w->name,
                           o->points[i].params,
                           o->emu     ? " on -storage emu"
                           : o->rados ? " on -storage rados"
                           : o->sim   ? " on -storage simgrid"
                                      : "");
    return 0;
}
