/*
 * sim.c — resonio-bench on SimGrid's simulated cluster (-storage simgrid,
 * the SMPI build: cmake -DRESONIO_SMPI=ON, run by resonio-smpirun).
 *
 * The ranks are simulated and so is the storage: files are simgrid:<name>,
 * striped over -targets of the platform's storage hosts (those with the
 * property resonio_storage) by the simgrid: driver, whose targets charge
 * the emulated storage's disk model as simulated time; every time the
 * bench measures is simulated.  Nothing is started: the driver starts its
 * targets at the first open.  A round's file is checked straight from the
 * targets' objects, not through the driver's client, and the targets'
 * counters are read from the driver.  In the MPI library's build every
 * function here fails: -storage simgrid is refused there.
 */
#include "bench.h"

#include <stdio.h>

#ifdef RIO_SMPI
#include "store/simgrid.h"

/* Contract in bench.h. */
int bench_sim_start(const struct bench_opts *o, char *msg, size_t msglen)
{
    /* Each rank must have globals of its own (SMPI's privatization, which
     * resonio-smpirun asks for): resonio keeps per-process state in them.
     * Without it every rank's `me` is one variable, the last writer's. */
    static int me = -1;
    int rank, wrong = 0, any = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    me = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    wrong = me != rank;
    MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any) {
        snprintf(msg, msglen, "the simulated ranks share their globals: run with "
                 "resonio-smpirun (or smpirun --cfg=smpi/privatization:dlopen)");
        return -1;
    }
    int n = rio__simgrid_storage_hosts();
    if (n < o->targets) {
        snprintf(msg, msglen, "-storage simgrid: the platform has %d hosts with the property "
                 "resonio_storage, fewer than -targets %d", n, o->targets);
        return -1;
    }
    return 0;
}

/* Contract in bench.h. */
int bench_sim_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max)
{
    struct rio_simgrid_stats st[BENCH_MAX_TARGETS];
    int n = rio__simgrid_stats(st, BENCH_MAX_TARGETS);
    if (reset)
        rio__simgrid_stats_reset();
    if (!out)
        return 0;
    if (n > BENCH_MAX_TARGETS || n > max)
        return -1;
    for (int i = 0; i < n; i++)
        out[i] = (struct bench_tgt){
            .requests = (long long)st[i].requests,
            .accesses = (long long)st[i].accesses,
            .judged = (long long)st[i].judged,
            .sequential = (long long)st[i].sequential,
            .seek = (long long)st[i].seek_bytes,
            .busy = st[i].busy_s,
            .bytes = (long long)(st[i].bytes_read + st[i].bytes_written),
            .ascending = -1,
            .calls = -1,
            .resent = -1,
        };
    return n;
}

/* Contract in bench.h. */
long long bench_sim_size(const char *name)
{
    return rio__simgrid_file_size(name);
}

/* Contract in bench.h. */
long long bench_sim_pread(const char *name, unsigned char *buf, long long len, long long off)
{
    return rio__simgrid_file_pread(name, buf, len, off);
}

#else /* the MPI library's build: the command line refuses -storage simgrid */

int bench_sim_start(const struct bench_opts *o, char *msg, size_t msglen)
{
    snprintf(msg, msglen, "-storage simgrid needs the SMPI build (cmake -DRESONIO_SMPI=ON)");
    return -1;
}

int bench_sim_stats(const struct bench_opts *o, int reset, struct bench_tgt *out, int max)
{
    return -1;
}

long long bench_sim_size(const char *name)
{
    return -1;
}

long long bench_sim_pread(const char *name, unsigned char *buf, long long len, long long off)
{
    return -1;
}
#endif
