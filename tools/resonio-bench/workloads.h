/*
 * workloads.h — the workloads' exported descriptions and the helpers of
 * workloads.c.  Only workloads.c and the w_*.c files include it.
 */
#ifndef RESONIO_BENCH_WORKLOADS_H
#define RESONIO_BENCH_WORKLOADS_H

#include "bench.h"

extern const struct bench_workload bench_w_demo, bench_w_mpiiotest, bench_w_iormpiio,
    bench_w_noncontig, bench_w_hpio, bench_w_collperf, bench_w_tile, bench_w_flash, bench_w_matrix,
    bench_w_ecio, bench_w_varsize;

/** Resize base to [0, extent), commit it into *out and free base.
 *  Local; 0 or -1. */
int bench_resized(MPI_Datatype base, MPI_Aint extent, MPI_Datatype *out);

/** Format a one-line setup error into err; returns -1. */
int bench_fail(char *err, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/** "s" unless n is 1, for "%lld call%s". */
static inline const char *bench_plural(long long n)
{
    return n == 1 ? "" : "s";
}

/** Largest byte count a single int count may carry. */
#define BENCH_INT_MAX 2147483647LL

#endif /* RESONIO_BENCH_WORKLOADS_H */
