/*
 * bench.c — resonio-bench's main: parse, prepare the output directory, run
 * every point, print and write the results.
 *
 * resonio-bench runs named workloads (w_*.c, registered in workloads.c)
 * through the MPI library's own MPI-IO ("native") and through resonio
 * under each collective strategy and "auto" in one process, alternating
 * rounds and verifying every byte (run.c), and reports throughput, the
 * ratio to native and to a sequential pwrite/pread "limit", and the I/O
 * characteristics resonio measured (report.c).  See bench_usage (cli.c)
 * for the command line; without -w it runs the default suite.  With
 * -storage emu, rank 0 runs a resonio-emud service of its own for the
 * run (emu.c) and the outputs are named <mpi>-emu-np<N>, so runs at
 * several rank counts can share one output directory, whose report then
 * shows the resonance figures (figures.c) from all of them.  With
 * -storage simgrid (the SMPI build) ranks and storage are simulated
 * (sim.c) and the outputs are named <mpi>-simgrid-np<N>.
 *
 * Exit status: 0 when every byte of every round verified, 1 when not,
 * 2 for bad input (one line saying why, then the usage, on stderr).
 */
#include "bench.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

int bench_make_dirs(const char *path)
{
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++)
        if (*s == '/') {
            *s = 0;
            if (mkdir(buf, 0755) && errno != EEXIST)
                return -1;
            *s = '/';
        }
    return mkdir(buf, 0755) && errno != EEXIST ? -1 : 0;
}

/* A directory we can create files in (checked by creating one: access()
 * says yes to root even on a read-only file system). */
static int writable_dir(const char *path, int create)
{
    struct stat sb;
    if (create && bench_make_dirs(path))
        return 0;
    if (stat(path, &sb) || !S_ISDIR(sb.st_mode))
        return 0;
    char probe[4200];
    snprintf(probe, sizeof probe, "%s/.resonio-bench.%d", path, (int)getpid());
    FILE *f = fopen(probe, "w");
    if (!f)
        return 0;
    fclose(f);
    unlink(probe);
    return 1;
}

static void fs_name(const char *path, char *out, size_t len)
{
    struct statfs s;
    if (statfs(path, &s)) {
        snprintf(out, len, "unknown");
        return;
    }
    static const struct {
        unsigned long magic;
        const char *name;
    } known[] = {
        {0xEF53, "ext4"},       {0x01021994, "tmpfs"},   {0x58465342, "xfs"},
        {0x9123683E, "btrfs"},  {0x794C7630, "overlay"}, {0x6969, "nfs"},
        {0x0BD00BD0, "lustre"}, {0x47504653, "gpfs"},    {0x65735546, "fuse"},
        {0x2FC12FC1, "zfs"},    {0x00C36400, "ceph"},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if ((unsigned long)s.f_type == known[i].magic) {
            snprintf(out, len, "%s", known[i].name);
            return;
        }
    snprintf(out, len, "fs 0x%lx", (unsigned long)s.f_type);
}

void bench_default_out(char *out, size_t len, const struct tm *tm)
{
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", tm);
    snprintf(out, len, "bench-results/%s", stamp);
}

void bench_mpi_meta(struct bench_meta *m)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0;
    MPI_Get_library_version(v, &n);
    v[n < (int)sizeof v ? n : (int)sizeof v - 1] = 0;
    m->mpi = strstr(v, "Open MPI") ? "openmpi"
             : strstr(v, "MPICH")  ? "mpich"
             : strstr(v, "SMPI")   ? "smpi"
                                   : "mpi";
    size_t l = strcspn(v, "\n");
    snprintf(m->mpi_version, sizeof m->mpi_version, "%.*s", (int)l, v);
    /* keep it to one readable line: collapse runs of spaces and tabs */
    char *d = m->mpi_version;
    for (const char *s = m->mpi_version; *s; s++)
        if (!((*s == ' ' || *s == '\t') && d > m->mpi_version && d[-1] == ' '))
            *d++ = *s == '\t' ? ' ' : *s;
    *d = 0;
}

/* The name of the shared object that defines MPI_File_open here: `native`
 * must be the MPI library's MPI-IO, not resonio's drop-in (e.g. preloaded). */
static const char *native_origin(void)
{
    Dl_info info;
    if (!dladdr((void *)(uintptr_t)&MPI_File_open, &info) || !info.dli_fname)
        return "?";
    return info.dli_fname;
}

static int bad_input(int rank, const char *msg)
{
    if (rank == 0) {
        fprintf(stderr, "resonio-bench: %s\n", msg);
        bench_usage(stderr);
    }
    MPI_Finalize();
    return 2;
}

/* Rank 0 starts the storage service with start; every rank learns its
 * directory (into dir).  Collective.  0, or 1 after MPI_Finalize when
 * the start failed (rank 0 says why). */
static int start_service(int rank,
                         int (*start)(const struct bench_opts *, char *, size_t, char *, size_t),
                         const struct bench_opts *o, char *dir, size_t dirlen)
{
    char msg[1024];
    int ok = 1;
    if (rank == 0 && start(o, dir, dirlen, msg, sizeof msg)) {
        fprintf(stderr, "resonio-bench: %s\n", msg);
        ok = 0;
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
        MPI_Finalize();
        return 1;
    }
    MPI_Bcast(dir, (int)dirlen, MPI_CHAR, 0, MPI_COMM_WORLD);
    return 0;
}

static int is_suite(int argc, char **argv, int i, const char *name)
{
    char eq[64];
    snprintf(eq, sizeof eq, "--suite=%s", name);
    return (!strcmp(argv[i], "--suite") && i + 1 < argc && !strcmp(argv[i + 1], name)) ||
           !strcmp(argv[i], eq);
}

#ifndef RIO_SCALE_TOOL
#define RIO_SCALE_TOOL "resonio-scale"
#endif
#ifndef RIO_VALIDATE_TOOL
#define RIO_VALIDATE_TOOL "resonio-validate"
#endif
#ifndef RIO_OVERLAP_TOOL
#define RIO_OVERLAP_TOOL "resonio-overlap"
#endif
#ifndef RIO_SIM_TOOL
#define RIO_SIM_TOOL "resonio-sim"
#endif

/* The scale, validate and sim suites and the overlap suite's -all launch
 * benches themselves, one run after another (resonio-scale,
 * resonio-validate, resonio-sim and resonio-overlap, scripts beside the
 * bench's sources): this process only hands over, before
 * MPI_Init, with its own path and the arguments but the suite's. */
static int script_main(int argc, char **argv, const char *suite, const char *tool)
{
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        fprintf(stderr, "resonio-bench: --suite %s: cannot find this program's path\n", suite);
        return 1;
    }
    self[n] = 0;
    char **av = calloc((size_t)argc + 4, sizeof *av);
    if (!av) {
        fprintf(stderr, "resonio-bench: --suite %s: out of memory\n", suite);
        return 1;
    }
    int k = 0;
    av[k++] = "python3";
    av[k++] = (char *)tool;
    av[k++] = "--bench";
    av[k++] = self;
    for (int i = 1; i < argc; i++) {
        if (is_suite(argc, argv, i, suite)) {
            i += strcmp(argv[i], "--suite") == 0;
            continue;
        }
        av[k++] = argv[i];
    }
    execvp("python3", av);
    fprintf(stderr, "resonio-bench: --suite %s: cannot run %s: %s\n", suite, tool,
            strerror(errno));
    free(av);
    return 1;
}

int main(int argc, char **argv)
{
    /* the overlap suite is a program of its own (overlap.c): it asks for
     * MPI_THREAD_MULTIPLE at MPI_Init_thread */
    for (int i = 1; i < argc; i++) {
        if (is_suite(argc, argv, i, "overlap")) {
            for (int j = 1; j < argc; j++)
                if (!strcmp(argv[j], "-all"))
                    return script_main(argc, argv, "overlap", RIO_OVERLAP_TOOL);
            return bench_overlap_main(argc, argv);
        }
        if (is_suite(argc, argv, i, "scale"))
            return script_main(argc, argv, "scale", RIO_SCALE_TOOL);
        if (is_suite(argc, argv, i, "validate"))
            return script_main(argc, argv, "validate", RIO_VALIDATE_TOOL);
        if (is_suite(argc, argv, i, "sim"))
            return script_main(argc, argv, "sim", RIO_SIM_TOOL);
    }
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    double t0 = MPI_Wtime();

    struct bench_opts o;
    char msg[512] = "";
    int rc = bench_parse(argc, argv, np, &o, msg, sizeof msg);
    if (rc < 0)
        return bad_input(rank, msg);
    if (rc > 0) {
        if (rank == 0) {
            if (!strcmp(msg, "help"))
                bench_usage(stdout);
            bench_list(stdout);
        }
        MPI_Finalize();
        return 0;
    }

    if (strstr(native_origin(), "resonio")) {
        if (rank == 0)
            fprintf(stderr,
                    "resonio-bench: MPI_File_open comes from %s, so `native` would be "
                    "resonio; run without the drop-in library\n",
                    native_origin());
        MPI_Finalize();
        return 1;
    }
    if (o.dry) {
        for (int i = 0; i < o.npoints; i++) {
            struct bench_point *p = &o.points[i];
            struct bench_plan plan;
            memset(&plan, 0, sizeof plan);
            char err[256];
            if (p->w->setup(p->v, rank, np, &plan, err, sizeof err) == 0) {
                long long mine = 0, all = 0;
                int ms;
                MPI_Type_size(plan.memtype, &ms);
                for (int c = 0; c < plan.ncalls; c++)
                    mine += (long long)plan.calls[c].count * ms;
                MPI_Reduce(&mine, &all, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
                if (rank == 0)
                    printf("%-10s %-44s %8.1f MiB/phase, buffer %.1f MiB/rank  %s\n", p->w->name,
                           p->params, (double)all / (1 << 20), (double)plan.membytes / (1 << 20),
                           plan.shape);
            }
            bench_plan_free(&plan);
        }
        free(o.points);
        MPI_Finalize();
        return 0;
    }
    struct bench_meta m;
    memset(&m, 0, sizeof m);
    m.nprocs = np;
    bench_mpi_meta(&m);
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(m.started, sizeof m.started, "%Y-%m-%d %H:%M:%S", &tm);
    gethostname(m.host, sizeof m.host - 1);
    if (getloadavg(&m.load[0], 1) != 1)
        m.load[0] = -1;

    /* directories: rank 0 decides, everyone learns */
    char out[4096], dir[4096];
    int ok = 1;
    if (rank == 0) {
        if (o.out)
            snprintf(out, sizeof out, "%s", o.out);
        else
            bench_default_out(out, sizeof out, &tm);
        snprintf(dir, sizeof dir, "%s", o.dir ? o.dir : out);
        if (!writable_dir(out, 1)) {
            snprintf(msg, sizeof msg, "output directory '%.400s' is not writable", out);
            ok = 0;
        } else if (!writable_dir(dir, 0)) {
            snprintf(msg, sizeof msg, "data directory '%.400s' is not a writable directory", dir);
            ok = 0;
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok)
        return bad_input(rank, msg);
    MPI_Bcast(out, sizeof out, MPI_CHAR, 0, MPI_COMM_WORLD);
    MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
    o.out = out;
    o.dir = dir;
    fs_name(dir, m.fstype, sizeof m.fstype);
    /* runs on tmpfs (-dir /dev/shm/...) sit beside the disk's in one report */
    if (!strcmp(m.fstype, "tmpfs"))
        snprintf(m.tag, sizeof m.tag, "%s-tmpfs", m.mpi);
    else
        snprintf(m.tag, sizeof m.tag, "%s", m.mpi);

    if (o.emu) { /* rank 0 runs the service; everyone learns where */
        if (start_service(rank, bench_emu_start, &o, o.emu_dir, sizeof o.emu_dir))
            return 1;
        snprintf(m.tag, sizeof m.tag, "%s-emu-np%d", m.mpi, np);
        snprintf(m.fstype, sizeof m.fstype, "emu");
    }
    if (o.sim) { /* the simulated targets: the driver starts them at the first open */
        ok = bench_sim_start(&o, msg, sizeof msg) == 0;
        if (!ok)
            return bad_input(rank, msg);
        snprintf(m.tag, sizeof m.tag, "%s-simgrid-np%d", m.mpi, np);
        snprintf(m.fstype, sizeof m.fstype, "simgrid");
    }
    if (o.ceph) { /* rank 0 runs the cluster; the data files go to its mount or pool */
        if (start_service(rank, bench_ceph_start, &o, o.ceph_dir, sizeof o.ceph_dir))
            return 1;
        if (o.rados)
            snprintf(dir, sizeof dir, "rados:resonio");
        else
            snprintf(dir, sizeof dir, "%s/mnt/bench", o.ceph_dir);
        /* resonio asks this cluster's monitor which OSD holds each object
         * of a file on the mount, and plans over those OSDs */
        char conf[sizeof o.ceph_dir + 16];
        snprintf(conf, sizeof conf, "%s/ceph.conf", o.ceph_dir);
        setenv("CEPH_CONF", conf, 1);
        snprintf(m.tag, sizeof m.tag, "%s%s-np%d", m.mpi, bench_storage_tag(&o), np);
        snprintf(m.fstype, sizeof m.fstype, o.rados ? "rados" : "cephfs");
    }

    if (rank == 0) {
        if (o.emu) {
            char su[32];
            bench_fmt_size(su, sizeof su, o.stripe);
            printf("resonio-bench: %s (%s), %d ranks; data in the emulated storage: service %s, "
                   "%d targets, model %s, time scale %g, stripe unit %s; %d points, %d timed "
                   "rounds + 1 probe round each\n",
                   m.mpi, m.mpi_version, np, o.emu_dir, o.targets, o.model, o.time_scale, su,
                   o.npoints, o.rounds);
            if (o.skipped & o.impl_mask)
                printf("resonio-bench: native (the MPI library cannot open emu: files) and limit "
                       "(POSIX I/O) do not run on the emulated storage: skipped\n");
        } else if (o.sim) {
            char su[32];
            bench_fmt_size(su, sizeof su, o.stripe);
            printf("resonio-bench: %s (%s), %d simulated ranks; data on %d simulated targets, "
                   "model %s, stripe unit %s; %d points, %d timed rounds + 1 probe round each; "
                   "every time is simulated\n",
                   m.mpi, m.mpi_version, np, o.targets, o.model, su, o.npoints, o.rounds);
        } else if (o.rados) {
            printf("resonio-bench: %s (%s), %d ranks; data in rados:resonio/ of the cluster in "
                   "%s; %d points, %d timed rounds + 1 probe round each\n",
                   m.mpi, m.mpi_version, np, o.ceph_dir, o.npoints, o.rounds);
            if (o.skipped & o.impl_mask)
                printf("resonio-bench: native (the MPI library cannot open rados: files) and "
                       "limit (POSIX I/O) do not run on RADOS: skipped\n");
        } else {
            printf("resonio-bench: %s (%s), %d ranks; data in %s (%s); %d points, %d timed "
                   "rounds + 1 probe round each\n",
                   m.mpi, m.mpi_version, np, dir, m.fstype, o.npoints, o.rounds);
        }
        fflush(stdout);
    }
    long long errors = 0;
    for (int i = 0; i < o.npoints; i++) {
        errors += bench_run_point(&o, &o.points[i], i, o.npoints);
        if (rank == 0) {
            bench_print_point(stdout, &o.points[i]);
            fflush(stdout);
        }
    }
    m.seconds = MPI_Wtime() - t0;
    if (getloadavg(&m.load[1], 1) != 1)
        m.load[1] = -1;
    if (rank == 0 && o.ceph) {
        if (bench_ceph_stop()) {
            fprintf(stderr, "resonio-bench: stopping the cluster in %s failed\n", o.ceph_dir);
            errors++;
        } else {
            printf("\nthe cluster in %s is stopped and its directory removed\n", o.ceph_dir);
        }
    }
    if (rank == 0 && o.emu) {
        if (bench_emu_stop()) {
            fprintf(stderr, "resonio-bench: stopping the service in %s failed\n", o.emu_dir);
            errors++;
        } else {
            printf("\nthe service in %s is stopped and its directory removed\n", o.emu_dir);
        }
    }
    if (rank == 0) {
        bench_print_targets(stdout, &o);
        if (bench_write_outputs(&o, &m))
            errors++;
        printf("\n%s: %.0f s, %s\nreport: %s/report.md\n", m.mpi, m.seconds,
               errors ? "SOME BYTES OR CALLS WRONG" : "every byte verified", out);
    }
    MPI_Bcast(&errors, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    free(o.points);
    MPI_Finalize();
    return errors ? 1 : 0;
}
