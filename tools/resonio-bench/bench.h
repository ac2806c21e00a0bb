/*
 * bench.h — what the parts of resonio-bench share.
 *
 * resonio-bench runs named workloads (w_*.c, one file each, listed in
 * workloads.c) through the MPI library's own MPI-IO and through resonio in
 * one process, alternating rounds, and reports throughput and I/O
 * characteristics (report.c).
 *
 * A workload only describes what one rank does: a view (element type,
 * filetype, displacement), a memory type and a list of collective calls,
 * each touching whole filetype instances.  Everything else is generic and
 * lives in run.c: the data are a pure function of the file offset and
 * the round (bench_pattern), so the write buffer is produced by packing an image of
 * the file through the filetype and unpacking it through the memory type
 * (MPI's own datatype engine is the oracle), reads are checked against the
 * write buffer, and the file against the pattern with POSIX reads (on the
 * emulated storage: by reading the object files, emu.c).
 */
#ifndef RESONIO_BENCH_H
#define RESONIO_BENCH_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define BENCH_MAX_PARAMS 8
#define BENCH_MAX_ROUNDS 64
#define BENCH_MAX_SWEEP 16
#define BENCH_MAX_TARGETS 128 /* of the emulated and simulated storages */
#define BENCH_MAX_HINTS 4    /* -hint per specification */

/* ---- workloads ----------------------------------------------------------- */

enum bench_param_kind {
    BP_SIZE,   /* bytes, with optional k/m/g suffix (powers of 1024) */
    BP_COUNT,  /* a plain number (k/m/g suffixes accepted too) */
    BP_CHOICE, /* one of the words in `choices`, stored as its index */
};

/** One parameter of a workload. */
struct bench_param {
    const char *name; /* on the command line as -name */
    enum bench_param_kind kind;
    const char *def;     /* default value, as text */
    long long min, max;  /* accepted range (BP_SIZE, BP_COUNT) */
    const char *choices; /* BP_CHOICE: "a|b|c" */
    const char *doc;
};

/** One collective call of one rank: `count` memory-type instances at
 *  buffer offset `memoff`, filling filetype instances tile..tile+ntiles-1
 *  of a view with displacement `disp`.  count 0 (and ntiles 0): the rank
 *  takes part with nothing. */
struct bench_call {
    MPI_Offset disp;
    MPI_Offset tile, ntiles;
    int count;
    MPI_Aint memoff;
};

/** What one rank does in a workload; made by the workload's setup, freed
 *  with bench_plan_free. */
struct bench_plan {
    MPI_Datatype etype;    /* element type: view etype, base of both types (borrowed) */
    MPI_Datatype filetype; /* committed, owned */
    MPI_Datatype memtype;  /* committed, owned (may be etype itself: not freed then) */
    int ncalls;
    struct bench_call *calls;         /* malloc'd, owned */
    int view_per_call;                /* set the view (calls[c].disp) before every call */
    size_t membytes;                  /* size of the memory buffer the calls address */
    MPI_Offset filesize;              /* the file's size after the write phase */
    MPI_Offset hole_period, hole_len; /* if hole_period: bytes o with
                             o % hole_period >= hole_len are never written */
    long long fregion;                /* typical contiguous file piece of one rank (bytes) */
    long long mregion;                /* typical contiguous memory piece (bytes) */
    int one_region;                   /* every call of every rank is one contiguous file
                                         region and memory is contiguous */
    long long piece;                  /* if > 0: memory is contiguous (memtype is etype)
                                         and a call's data are contiguous file pieces of
                                         exactly this many bytes, one per filetype block,
                                         in stream order (indep_calls: one call each) */
    char shape[160];                  /* one line: what a call looks like */
};

/**
 * A named workload.  setup() is local and deterministic: every rank calls
 * it with the same values v[] (in the order of params; BP_CHOICE as an
 * index) and fills *plan for itself.  It returns 0, or -1 with a one-line
 * message in err when the values do not make a workload at this number of
 * ranks.
 */
struct bench_workload {
    const char *name;
    const char *source; /* where the parameters come from */
    const char *doc;
    const struct bench_param *params; /* terminated by a NULL name */
    int (*setup)(const long long *v, int rank, int nprocs, struct bench_plan *plan, char *err,
                 size_t errlen);
};

/** The table of workloads (workloads.c), terminated by NULL. */
extern const struct bench_workload *const bench_workloads[];
const struct bench_workload *bench_workload_find(const char *name);

/** Allocate plan->calls for n calls (zeroed); 0 or -1. */
int bench_plan_calls(struct bench_plan *plan, int n);
/** Free what a plan owns; safe on a zeroed or partly made plan. */
void bench_plan_free(struct bench_plan *plan);

/* ---- data ------------------------------------------------------------------ */

/** Fill dst with the bytes a file written with data `salt` holds at
 *  [off, off+len).  Each round uses its own salt.  Local. */
void bench_pattern(unsigned char *dst, MPI_Offset off, size_t len, unsigned salt);

/* ---- implementations ------------------------------------------------------- */

enum bench_impl_kind { IMPL_NATIVE, IMPL_RESONIO, IMPL_LIMIT };

/** One column of the comparison: the MPI library's MPI-IO, resonio with a
 *  strategy hint, or plain POSIX I/O (the physical reference). */
struct bench_impl {
    const char *name; /* as on the command line and in the outputs */
    enum bench_impl_kind kind;
    const char *strategy; /* IMPL_RESONIO: value of resonio_strategy */
    int noncoll;          /* independent calls (rio_file_write_at/read_at) instead of
                             collective ones; runs only when named in -impl */
    const char *hint;     /* "key=value" given at open too, or NULL */
    int rados;            /* runs on -storage rados only (a variant of a strategy there) */
};

/* Implementations a run can hold: bit i of a mask is bench_impls[i]. */
#define BENCH_MAX_IMPLS 16
extern struct bench_impl bench_impls[BENCH_MAX_IMPLS];
extern int bench_nimpls;
/** Fill bench_impls from the library's strategies (impl.c).  Returns 0, or
 *  -1 when they are more than BENCH_MAX_IMPLS holds.  Local. */
int bench_impls_init(void);

/** What the selector of one open file reports for the signatures of one
 *  direction (write or read), summed over them: this rank's view. */
struct bench_sel {
    int ok;                 /* rio_select_count/rio_select_get worked */
    int nsig;               /* signatures of this direction */
    long long calls;        /* calls of those signatures */
    long long exam_calls;   /* of those, calls spent examining */
    double time;            /* seconds in the selector over all calls */
    double time_chosen;     /* of those, seconds in the calls made once chosen */
};

/** File operations of one implementation behind one table (impl.c). */
struct bench_io {
    int (*open)(MPI_Comm, const char *, int, MPI_Info, void **);
    int (*close)(void **);
    int (*set_view)(void *, MPI_Offset, MPI_Datatype, MPI_Datatype, const char *, MPI_Info);
    int (*write_at_all)(void *, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
    int (*read_at_all)(void *, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
    int (*write_at)(void *, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *);
    int (*read_at)(void *, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
    int (*sync)(void *);
    /* resonio only (NULL for native) */
    int (*stats)(void *, void *out);     /* struct rio_stats */
    int (*coll_last)(void *, void *out); /* struct rio_coll_info */
    int (*selector)(void *, int write, struct bench_sel *out);
};
const struct bench_io *bench_io_of(const struct bench_impl *im);

/* ---- results ------------------------------------------------------------------ */

/** One target of the emulated storage over the rounds of one phase of one
 *  implementation: its counters (resonio-emud stats) summed over the
 *  rounds, each round's counters reset before the phase's open and read
 *  after its close. */
struct bench_tgt {
    long long requests;   /* data requests served */
    long long accesses;   /* disk accesses they became */
    long long judged;     /* accesses after the first of each round */
    long long sequential; /* of those, starting where the previous ended */
    long long seek;       /* head movement, bytes of the modelled disk */
    double busy;          /* modelled service time, seconds */
    long long bytes;      /* data bytes of the requests (cephfs), -1 when not known */
    long long ascending;  /* judged requests at or past their object's previous end (Ceph),
                             -1 when not known */
    long long calls;      /* of the requests, object class calls (Ceph; rados:'s datatype
                             I/O at the OSD), -1 when not known */
    long long resent;     /* requests a client sent again, not in requests (Ceph), -1 when
                             not known */
};

/** *sum += v for counters that may be unknown (-1): unknown stays unknown. */
static inline void bench_add_known(long long *sum, long long v)
{
    *sum = *sum < 0 || v < 0 ? -1 : *sum + v;
}

/** One phase (write or read) of one implementation on one workload point.
 *  Throughputs in MiB/s over the timed rounds; I/O characteristics from
 *  the probe round, summed over ranks (-1 / have_* 0 when unavailable). */
struct bench_phase {
    double mibs[BENCH_MAX_ROUNDS];
    int n;
    double med, min, max;
    int have_stats; /* rio_stats_get worked */
    long long desired, accessed, ops, regions;
    double time_storage; /* rio_stats, slowest rank */
    double time_agree;   /* rio_stats: the rank that waited longest in the agreement */
    long long between_hosts; /* bytes sent from host to host in the probe round (each
                                host's interfaces, as the kernel counts); -1: one host,
                                or not counted */
    int have_coll;       /* rio_coll_last worked on every call */
    long long resent, copies, coll_bytes, coll_reqs;
    double time_exchange, time_coll_storage; /* per call slowest rank, summed */
    double time_plan; /* CPU seconds planning a call, slowest rank, mean over the calls */
    char ran[64];                            /* strategies that ran, as reported */
    /* the selector (resonio only), from the timed rounds: calls and
     * examining calls summed over them; the steady cost per call (seconds
     * in the selector over the calls made once a strategy was chosen,
     * slowest rank) of each round that had such calls, and its median
     * (-1 when no round had one) */
    int have_sel;   /* some timed round had a report from every rank */
    int sel_rounds; /* how many rounds had one */
    long long sel_calls, sel_exam;
    double sel_cost[BENCH_MAX_ROUNDS];
    int sel_n;
    double sel_med;
    /* messages sent by the timed rounds' calls, as the counting layer
     * (tools/resonio-count, preloaded) sorts them: collective, metadata
     * and data (enum rio_count_class); per rank and call, the mean over
     * ranks and the largest rank's, summed over cnt_rounds rounds.
     * cnt_rounds 0: not counted (no layer, or not on every rank) */
    int cnt_rounds;
    double cnt_msgs[3], cnt_bytes[3], cnt_msgs_max[3], cnt_bytes_max[3];
    double cnt_io[2], cnt_io_max[2]; /* storage requests and their bytes */
    long long cnt_mine[9]; /* this rank's of the current round: msgs[3], bytes[3],
                              storage requests, their bytes, valid */
    /* the emulated storage's targets (rank 0; ntgt 0 when not measured) */
    int ntgt;
    struct bench_tgt tgt[BENCH_MAX_TARGETS];
};

struct bench_impl_result {
    const struct bench_impl *impl;
    struct bench_phase w, r;
    double rss_mib;       /* peak RSS of its probe round, max over ranks */
    double rss_added_mib; /* of which the round added (peak - resident at start) */
    double rss_mean_mib, rss_added_mean_mib; /* the same, the mean over ranks */
    /* the added memory of the largest aggregator and of the largest other
     * rank, an aggregator being a rank that sent file data to others in the
     * first timed read or made storage requests in a write where ranks
     * sent each other file data (counting layer; naggs -1 without it) */
    double rss_added_agg_mib, rss_added_other_mib, rss_added_mine;
    /* the same less the shared memory the round added (RssShmem: the MPI
     * library's segments of the peers a rank met, and resonio's node-shared
     * buffers with resonio_shm=enable); -1 where /proc cannot say */
    double rss_private_agg_mib, rss_private_other_mib, rss_private_mine;
    int naggs;
    long long errors; /* failed calls + wrong bytes, all rounds, all ranks */
    long long strays; /* non-zero bytes in never-written gaps (holes) */
};

/** One workload with one set of parameter values. */
struct bench_point {
    const struct bench_workload *w;
    long long v[BENCH_MAX_PARAMS];
    int sweep;        /* index of the swept parameter, -1 if none */
    int spec;         /* which -w specification it came from */
    char params[200]; /* "seg=64K size=16M", then the hints */
    char hints[160];  /* the specification's -hint values: "key=value key=value" */
    unsigned impl_mask; /* the specification's -impls (0: -impl's) */
    /* filled by the run */
    char shape[160];
    long long bytes; /* desired bytes per phase, all ranks */
    MPI_Offset filesize;
    long long fregion, mregion;
    int one_region;
    int fine_grained, large_contig;
    int ncalls;                    /* collective calls per phase */
    long long call_min, call_max;  /* bytes of one rank in one call, over ranks and calls */
    double seconds; /* wall time of the point */
    int hosts;      /* hosts the job ran on (MPI_COMM_TYPE_SHARED nodes) */
    int nres;
    struct bench_impl_result res[16];
};

/* ---- options -------------------------------------------------------------------- */

struct bench_opts {
    const char *suite; /* NULL, "default", "full" or "emu" */
    int rounds;        /* timed rounds */
    const char *dir;   /* data files */
    const char *out;   /* output directory */
    int sync;
    int plots;
    int dry;            /* print the points and exit */
    unsigned impl_mask; /* bit i: bench_impls[i] */
    int impl_given;     /* -impl was given */
    unsigned skipped;   /* implementations the storage cannot run (native, limit on emu) */
    int npoints;
    struct bench_point *points;
    /* the storage: -storage emu runs resonio-emud (emu.c) */
    int emu;
    int targets;       /* -targets */
    const char *model; /* -model: hdd, ssd, none */
    long long stripe;  /* -stripe: striping_unit of the files */
    double time_scale; /* -time-scale */
    const char *emud;  /* -emud: the resonio-emud program (NULL: found by emu.c) */
    char emu_dir[128]; /* the running service's directory (set by main) */
    /* -storage cephfs and -storage rados run a Ceph cluster (ceph.c) */
    int ceph;
    int rados; /* -storage rados: files are rados:resonio/<name>, no mount */
    int bluestore; /* -ceph-store bluestore: OSDs on (sparse) block files, not in memory */
    const char *ceph_tool; /* -ceph-tool: the resonio-ceph program (NULL: the source tree's) */
    char ceph_dir[128];    /* the running cluster's directory (set by main) */
    /* -storage simgrid: the simgrid: driver's simulated targets (sim.c; the
     * SMPI build only, where it is the default) */
    int sim;
};

/** resonio-bench --suite overlap (overlap.c): MPI_Init_thread to
 *  MPI_Finalize.  Returns the exit status. */
int bench_overlap_main(int argc, char **argv);

/** One number of the command line (cli.c): digits, an optional fraction,
 *  an optional k/m/g suffix (powers of 1024); the result must be a whole
 *  number.  0, or -1 when s is not one. */
int bench_parse_number(const char *s, long long *out);

/** The implementations point p runs (bit i: bench_impls[i]). */
unsigned bench_point_impls(const struct bench_opts *o, const struct bench_point *p);

/** Parse argv into *o (points expanded).  Local, deterministic; prints
 *  nothing.  Returns 0, 1 for help/list (text in msg), or -1 with a
 *  one-line error in msg. */
int bench_parse(int argc, char **argv, int nprocs, struct bench_opts *o, char *msg, size_t msglen);
void bench_usage(FILE *to);
void bench_list(FILE *to);
/** "64K", "1M", "40.25K" */
void bench_fmt_size(char *buf, size_t len, long long v);

/* ---- running and reporting --------------------------------------------------------- */

/** Run one point under every selected implementation.  Collective over
 *  MPI_COMM_WORLD; results complete on rank 0.  Returns the errors. */
long long bench_run_point(const struct bench_opts *o, struct bench_point *p, int index,
                          int npoints);

struct bench_meta {
    const char *mpi; /* "mpich", "openmpi", "mpi" */
    char tag[64];    /* output file names: mpi, or "<mpi>-emu-np<N>" on emu */
    char mpi_version[256];
    int nprocs;
    char fstype[32];
    char started[32];
    double seconds;
    char host[128];
    double load[2]; /* 1-minute load average at the start and the end */
};

/** The MPI library's short name and one-line version into m (bench.c). */
void bench_mpi_meta(struct bench_meta *m);
/** mkdir -p (bench.c); 0 or -1. */
int bench_make_dirs(const char *path);
/** The default output directory, bench-results/<time of tm>. */
void bench_default_out(char *out, size_t len, const struct tm *tm);

/** Terminal table of one point (rank 0). */
void bench_print_point(FILE *to, const struct bench_point *p);
/** Every point's target verdicts, one line each, and the counts (rank 0). */
void bench_print_targets(FILE *to, const struct bench_opts *o);
/** Write <tag>.csv, <tag>.json, the plots, <tag>.md and report.md into
 *  o->out (rank 0).  Returns 0 or -1 (message on stderr). */
int bench_write_outputs(const struct bench_opts *o, const struct bench_meta *m);

/* ---- the emulated storage (emu.c) ----------------------------------------------------- */

/** Start a resonio-emud service with o's -targets, -model, -time-scale in a
 *  fresh directory under /tmp, and a watchdog that stops it and removes
 *  the directory when this process ends, however it ends.  Rank 0 only.
 *  0 with the service directory in dir, or -1 with a message. */
int bench_emu_start(const struct bench_opts *o, char *dir, size_t dirlen, char *msg,
                    size_t msglen);
/** Stop the service and remove its directory, and wait until that is done.
 *  Safe when none was started.  0, or -1 if stopping failed. */
int bench_emu_stop(void);
/** Run `resonio-emud stats --dir o->emu_dir` (with reset: --reset, which
 *  also resets the counters).  With out: fills out[0..n-1] with this interval's counters
 *  (judged and sequential from the accesses and the sequential fraction)
 *  and returns n; without: returns 0.  -1 on failure.  Rank 0. */
int bench_emu_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max);
/** Run argv (a program printing "target,requests,accesses,
 *  sequential_fraction,seek_bytes,busy_s[,bytes,judged]" lines after a
 *  header, as `resonio-emud stats` and `resonio-ceph stats` do) and parse
 *  its lines into out[0..n-1] as bench_emu_stats says; out NULL: only run
 *  it (0).  n, or -1 on failure.  Rank 0. */
int bench_stats_run(char *const argv[], struct bench_tgt *out, int max);
/** A service the bench runs beside itself (service.c), stopped by a
 *  watchdog whenever rank 0 ends. */
struct bench_service {
    char top[64]; /* the directory made for the run */
    pid_t watchdog; /* its pid, -1 when none */
    int fd;       /* the pipe's write end */
};
#define BENCH_SERVICE_INIT {{0}, -1, -1}
/** Make a fresh /tmp directory, start the watchdog, then run
 *  `prog start --dir <dir> args...` (args NULL-terminated) with dir the
 *  directory's sub; the service's directory into dir.  0, or -1 with msg
 *  (nothing left running).  Rank 0. */
int bench_service_start(struct bench_service *s, const char *prog, const char *sub,
                        char *const args[], char *dir, size_t dirlen, char *msg, size_t msglen);
/** Stop the service through its watchdog (`prog stop`, directory removed)
 *  and wait for it: 0, or -1 when the stop failed. */
int bench_service_stop(struct bench_service *s);
/** Start argv with descriptors 0-2 as given (-1: inherit) and every other
 *  descriptor closed, in a new session if setsid (no fork of an MPI
 *  process: posix_spawn).  The child's pid or -1. */
pid_t bench_spawn(char *const argv[], int in, int out, int err, int setsid);
/** Wait for pid; its exit status, or -1 when it did not exit normally. */
int bench_wait(pid_t pid);

/* ---- -storage cephfs (ceph.c) ---------------------------------------------------
 * Rank 0 starts a Ceph cluster of its own with tools/resonio-ceph (3
 * memstore OSDs, CephFS mounted with ceph-fuse) in a fresh /tmp directory,
 * guarded by a watchdog that stops it and removes the directory whenever
 * rank 0 ends; the data files sit in a directory of the mount whose layout
 * (-stripe, -targets) every new file inherits, so native's files are
 * striped as resonio's. */
/** Start it; its directory into dir (the data files go to dir/mnt/bench).
 *  0, or -1 with msg. */
int bench_ceph_start(const struct bench_opts *o, char *dir, size_t dirlen, char *msg,
                     size_t msglen);
/** Stop it (0, or -1 when the stop failed). */
int bench_ceph_stop(void);
/** The storage's part of the run's names: "", "-emu", "-cephfs", "-rados",
 *  with "-bluestore" after a Ceph one whose OSDs are bluestore.  Local. */
const char *bench_storage_tag(const struct bench_opts *o);
/** The object size of the run's files: CephFS's default 4 MiB, rounded up
 *  to a multiple of -stripe.  Local. */
long long bench_ceph_object_size(const struct bench_opts *o);
#ifdef BENCH_HAVE_RADOS
/** A rados: file ("POOL/NAME") read straight from its objects with
 *  librados, its layout and size from object 0's xattrs: the independent
 *  check of what resonio wrote.  Local. */
struct bench_rfile {
    char pool[128], name[1024];
    long long su, sc, os, size;
    void *cl, *io; /* rados_t, rados_ioctx_t */
};
/** 0, or -1 when the cluster of conf or the file's object 0 cannot be read. */
int bench_rfile_open(const char *conf, const char *pn, struct bench_rfile *f);
/** As bench_efile_pread (holes and bytes past an object's end read as
 *  zero); -1 when an object cannot be read. */
long long bench_rfile_pread(const struct bench_rfile *f, unsigned char *buf, long long len,
                            long long off);
void bench_rfile_close(struct bench_rfile *f);
#endif
/** The OSDs' request counters since the last reset (resonio-ceph stats),
 *  as bench_emu_stats.  Rank 0. */
int bench_ceph_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max);

/** A logical file of the service read straight from its object files on
 *  disk (target 0's meta.tab and t<i>/<fid>.obj), without the client
 *  library: the independent check of what resonio wrote.  Local. */
struct bench_efile {
    int count;
    long long unit, size;
    int fd[BENCH_MAX_TARGETS];
    long long osz[BENCH_MAX_TARGETS];
};
/** 0, or -1 if name is not in the service in dir. */
int bench_efile_open(const char *dir, const char *name, struct bench_efile *f);
/** Read [off, off+len) (bytes past the object ends inside the file read as
 *  zero); returns the bytes read, fewer only at the end of the file. */
long long bench_efile_pread(const struct bench_efile *f, unsigned char *buf, long long len,
                            long long off);
void bench_efile_close(struct bench_efile *f);

/* ---- -storage simgrid (sim.c) ----------------------------------------------------- */

/** Check that the simulated ranks have globals of their own (SMPI's
 *  privatization) and that the platform has o->targets storage hosts.  0,
 *  or -1 with a message (always in the MPI library's build), the same on
 *  every rank.  Collective in the SMPI build. */
int bench_sim_start(const struct bench_opts *o, char *msg, size_t msglen);
/** The simulated targets' counters since the last reset, as
 *  bench_emu_stats gives them (reset: then zero them).  n, 0 without out,
 *  or -1.  Rank 0. */
int bench_sim_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max);
/** Size of simgrid: file name (without the prefix), -1 when absent. */
long long bench_sim_size(const char *name);
/** Read [off, off+len) of it straight from the targets' objects: the
 *  bytes read, fewer only at the end of the file, or -1. */
long long bench_sim_pread(const char *name, unsigned char *buf, long long len, long long off);

/* ---- the resonance experiments (figures.c) ----------------------------------------------- */

/** Write this run's points to <tag>.fig.tsv in o->out (emu runs; rank 0);
 *  0 or -1. */
int bench_fig_save(const struct bench_opts *o, const struct bench_meta *m);
/** Write the figures section to f from every *.fig.tsv in dir: for each
 *  MPI, resonant-io.txt Figures 2 and 5 and orthrus.txt Figures 3 and 4
 *  as plots and tables, the papers' numbers beside the measured ones, and
 *  a verdict computed from the measurements.  Nothing when there are no
 *  such files.  Rank 0. */
void bench_fig_report(FILE *f, const char *dir, int plots);

#endif /* RESONIO_BENCH_H */
