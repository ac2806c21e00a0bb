/*
 * stats.c — the RESONIO_STATS report printed at close.
 *
 * Counters are kept per rank in the file object (struct rio_stats) by the
 * layers that do the work; at close they are summed over the ranks (times in
 * storage and in the agreement: the largest rank's) and rank 0 prints one
 * block per file.  Threads of one rank making independent calls on one
 * file share its counters, so they are read and bumped atomically
 * (rio__stat_add in common.h).  The storage requests of independent calls
 * are counted per method, in the slots of the methods' table
 * (rio_indep_method_name), and printed by walking that table, so a new
 * method shows up here without a change.
 *
 * rio__stats_copy_sized applies the size rule of the public structs
 * (resonio.h, statistics) for all three of them: each is filled whole by
 * the library, then the part the caller's version has is copied out.
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

/* in's counters, each read atomically (other threads may be counting into in). */
static void snapshot(const rio_stats *in, rio_stats *out)
{
    memset(out, 0, sizeof *out);
    out->size = sizeof *out;
    out->calls_read = rio__stat_get(&in->calls_read);
    out->calls_write = rio__stat_get(&in->calls_write);
    out->bytes_read = rio__stat_get(&in->bytes_read);
    out->bytes_written = rio__stat_get(&in->bytes_written);
    out->regions = rio__stat_get(&in->regions);
    out->bytes_accessed = rio__stat_get(&in->bytes_accessed);
    out->time_storage = rio__stat_get_time(&in->time_storage);
    out->copies = rio__stat_get(&in->copies);
    out->time_agree = rio__stat_get_time(&in->time_agree);
    out->nb_queued = rio__stat_get(&in->nb_queued);
    out->nb_background = rio__stat_get(&in->nb_background);
    out->time_nb_overlap = rio__stat_get_time(&in->time_nb_overlap);
    out->comms_made = rio__stat_get(&in->comms_made);
    out->comms_reused = rio__stat_get(&in->comms_reused);
    out->nb_copied = rio__stat_get(&in->nb_copied);
    out->time_nb_start = rio__stat_get_time(&in->time_nb_start);
    out->nb_near = rio__stat_get(&in->nb_near);
    out->shared_staged = rio__stat_get(&in->shared_staged);
    out->nmethods = rio_indep_method_count();
    for (int i = 0; i < out->nmethods; i++)
        out->req_method[i] = rio__stat_get(&in->req_method[i]);
}

void rio__stats_file(rio_file *fh, rio_stats *out)
{
    long long made = 0, reused = 0;
    snapshot(&fh->stats, out);
    rio__coll_comm_counts(fh->coll, &made, &reused);
    out->comms_made += made;
    out->comms_reused += reused;
}

int rio__stats_copy_sized(void *out, void *full, size_t have, size_t v1, const char *what)
{
    size_t want;
    memcpy(&want, out, sizeof want); /* the first member of every such struct */
    if (want < v1) {
        rio__err_detail("%s size is %zu%s; set it to sizeof(%s) (at least %zu) before the "
                        "call",
                        what, want, want ? "" : " (unset)", what, v1);
        return RIO_E_ARG;
    }
    size_t n = want < have ? want : have;
    memcpy(full, &n, sizeof n);
    memcpy(out, full, n);
    return 0;
}

void rio__stats_report(rio_file *fh)
{
    if (!fh->report)
        return;
    rio_stats snap;
    rio__stats_file(fh, &snap);
    const rio_stats *s = &snap;
    enum { NFIXED = 14, N = NFIXED + RIO_STATS_MAX_METHODS };
    long long mine[N] = {s->calls_read,    s->calls_write,    s->bytes_read,
                         s->bytes_written, s->regions,        s->bytes_accessed,
                         s->copies,        s->nb_queued,      s->nb_background,
                         s->comms_made,    s->comms_reused,   s->nb_copied,
                         s->nb_near,       s->shared_staged};
    memcpy(mine + NFIXED, s->req_method, sizeof s->req_method);
    long long sum[N];
    double t[4] = {s->time_storage, s->time_agree, s->time_nb_overlap, s->time_nb_start},
           tmax[4] = {0, 0, 0, 0};
    MPI_Reduce(mine, sum, N, MPI_LONG_LONG, MPI_SUM, 0, fh->comm);
    MPI_Reduce(t, tmax, 4, MPI_DOUBLE, MPI_MAX, 0, fh->comm);
    if (fh->rank != 0)
        return;
    char reqs[64 * RIO_STATS_MAX_METHODS] = "";
    size_t used = 0;
    for (int i = 0; i < s->nmethods && used < sizeof reqs; i++)
        used += (size_t)snprintf(reqs + used, sizeof reqs - used, "%s%s %lld", i ? ", " : "",
                                 rio_indep_method_name(i), sum[NFIXED + i]);
    fprintf(stderr,
            "resonio stats: %s (%d ranks)\n"
            "  calls        read %lld, write %lld\n"
            "  bytes        read %lld, written %lld, accessed in storage %lld\n"
            "  regions      %lld\n"
            "  storage requests  %s\n"
            "  staged copies     %lld bytes; shared writes staged %lld bytes\n"
            "  time in storage   %.6f s (slowest rank)\n"
            "  time in agreement %.6f s (the rank that waited longest)\n"
            "  nonblocking  queued %lld, run in the background %lld, issue to end of I/O "
            "%.6f s (the rank with most), copied to write in the background %lld bytes\n"
            "               issue to a thread's start %.6f s (the rank with most), threads "
            "woken on the caller's processor %lld\n"
            "  communicators made %lld, reused from earlier files %lld (all ranks)\n",
            fh->filename, fh->nprocs, sum[0], sum[1], sum[2], sum[3], sum[5], sum[4], reqs,
            sum[6], sum[13], tmax[0], tmax[1], sum[7], sum[8], tmax[2], sum[11], tmax[3], sum[12],
            sum[9], sum[10]);
    const struct rio_band *b = rio__store_band_settled();
    if (b) {
        char how[160] = "RESONIO_STAGE";
        if (!b->forced)
            snprintf(how, sizeof how,
                     "rank 0 measured 256 KiB straight and staged: reads %.1f and %.1f us, "
                     "writes %.1f and %.1f",
                     b->time[0][0] * 1e6, b->time[0][1] * 1e6, b->time[1][0] * 1e6,
                     b->time[1][1] * 1e6);
        fprintf(stderr, "  band staging reads %s, writes %s (%s)\n",
                b->slow[0] ? "staged" : "straight", b->slow[1] ? "staged" : "straight", how);
    }
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
