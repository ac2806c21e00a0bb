/*
 * stats.c — the RESONIO_STATS report printed at close.
 *
 * Counters are kept per rank in the file object (struct rio_stats) by the
 * layers that do the work; at close they are summed over the ranks (time in
 * storage: the slowest rank) and rank 0 prints one block per file.
 */
#include "file_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stats_wanted(void)
{
    const char *v = getenv("RESONIO_STATS");
    return v && *v && strcmp(v, "0") != 0;
}

void rio__stats_report(rio_file *fh)
{
    if (!stats_wanted())
        return;
    const rio_stats *s = &fh->stats;
    long long mine[] = {s->calls_read,  s->calls_write, s->bytes_read, s->bytes_written,
                        s->regions,     s->req_contig,  s->req_posix,  s->req_sieve,
                        s->req_list,    s->req_dtype,   s->bytes_accessed};
    enum { N = sizeof mine / sizeof mine[0] };
    long long sum[N];
    double tmax = 0;
    MPI_Reduce(mine, sum, N, MPI_LONG_LONG, MPI_SUM, 0, fh->comm);
    MPI_Reduce(&s->time_storage, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, fh->comm);
    if (fh->rank != 0)
        return;
    fprintf(stderr,
            "resonio stats: %s (%d ranks)\n"
            "  calls        read %lld, write %lld\n"
            "  bytes        read %lld, written %lld, accessed in storage %lld\n"
            "  regions      %lld\n"
            "  storage requests  contig %lld, posix %lld, sieve %lld, list %lld, dtype %lld\n"
            "  time in storage   %.6f s (slowest rank)\n",
            fh->filename, fh->nprocs, sum[0], sum[1], sum[2], sum[3], sum[10], sum[4], sum[5],
            sum[6], sum[7], sum[8], sum[9], tmax);
}
