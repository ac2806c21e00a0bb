/*
 * stats.c — the RESONIO_STATS report printed at close.
 *
 * Counters are kept per rank in the file object (struct rio_stats) by the
 * layers that do the work; at close they are summed over the ranks (times in
 * storage and in the agreement: the largest rank's) and rank 0 prints one
 * block per file.  Threads of one rank making independent calls on one
 * file share its counters, so they are read and bumped atomically
 * (rio__stat_add in common.h).
 */
#include "file_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rio__stats_wanted(void)
{
    const char *v = getenv("RESONIO_STATS");
    return v && *v && strcmp(v, "0") != 0;
}

void rio__stats_snapshot(const rio_stats *in, rio_stats *out)
{
    out->calls_read = rio__stat_get(&in->calls_read);
    out->calls_write = rio__stat_get(&in->calls_write);
    out->bytes_read = rio__stat_get(&in->bytes_read);
    out->bytes_written = rio__stat_get(&in->bytes_written);
    out->regions = rio__stat_get(&in->regions);
    out->req_contig = rio__stat_get(&in->req_contig);
    out->req_posix = rio__stat_get(&in->req_posix);
    out->req_sieve = rio__stat_get(&in->req_sieve);
    out->req_list = rio__stat_get(&in->req_list);
    out->req_dtype = rio__stat_get(&in->req_dtype);
    out->bytes_accessed = rio__stat_get(&in->bytes_accessed);
    out->time_storage = rio__stat_get_time(&in->time_storage);
    out->copies = rio__stat_get(&in->copies);
    out->time_agree = rio__stat_get_time(&in->time_agree);
}

void rio__stats_report(rio_file *fh)
{
    if (!fh->report)
        return;
    rio_stats snap;
    rio__stats_snapshot(&fh->stats, &snap);
    const rio_stats *s = &snap;
    long long mine[] = {s->calls_read,  s->calls_write, s->bytes_read, s->bytes_written,
                        s->regions,     s->req_contig,  s->req_posix,  s->req_sieve,
                        s->req_list,    s->req_dtype,   s->bytes_accessed, s->copies};
    enum { N = sizeof mine / sizeof mine[0] };
    long long sum[N];
    double t[2] = {s->time_storage, s->time_agree}, tmax[2] = {0, 0};
    MPI_Reduce(mine, sum, N, MPI_LONG_LONG, MPI_SUM, 0, fh->comm);
    MPI_Reduce(t, tmax, 2, MPI_DOUBLE, MPI_MAX, 0, fh->comm);
    if (fh->rank != 0)
        return;
    fprintf(stderr,
            "resonio stats: %s (%d ranks)\n"
            "  calls        read %lld, write %lld\n"
            "  bytes        read %lld, written %lld, accessed in storage %lld\n"
            "  regions      %lld\n"
            "  storage requests  contig %lld, posix %lld, sieve %lld, list %lld, dtype %lld\n"
            "  staged copies     %lld bytes\n"
            "  time in storage   %.6f s (slowest rank)\n"
            "  time in agreement %.6f s (the rank that waited longest)\n",
            fh->filename, fh->nprocs, sum[0], sum[1], sum[2], sum[3], sum[10], sum[4], sum[5],
            sum[6], sum[7], sum[8], sum[9], sum[11], tmax[0], tmax[1]);
    rio__coll_report(fh->coll, fh->filename);
}

void rio__stats_coll_call(rio_file *fh, const char *op)
{
    struct rio_coll_info in;
    if (!fh->coll || rio__coll_last(fh->coll, &in) || fh->rank != 0)
        return;
    char aggs[512] = "";
    size_t n = 0;
    for (int a = 0; a < in.naggs && a < RIO_COLL_MAX_AGGS && n < sizeof aggs - 16; a++)
        n += (size_t)snprintf(aggs + n, sizeof aggs - n, "%s%d", a ? " " : "", in.aggs[a]);
    fprintf(stderr,
            "resonio coll: %s %s: strategy %s (%s)\n"
            "  aggregators %d [%s], rounds %d, bytes %lld, exchanged %lld, copies/byte %.2f\n"
            "  time exchange %.6f s, storage %.6f s, storage requests %lld\n",
            op, fh->filename, in.strategy, in.reason, in.naggs, aggs, in.rounds, in.bytes,
            in.exchanged, in.bytes ? (double)in.copies / (double)in.bytes : 0.0,
            in.time_exchange, in.time_storage, in.storage_reqs);
    for (int t = 0; t < in.ntargets && t < RIO_COLL_MAX_TARGETS; t++)
        if (in.target_reqs[t])
            fprintf(stderr, "  target %d: %lld requests, %lld of %lld after the previous in "
                            "ascending order%s\n",
                    t, in.target_reqs[t], in.target_ascending[t], in.target_reqs[t] - 1,
                    in.target_ascending[t] == in.target_reqs[t] - 1 ? " (ascending)" : "");
}
