/*
 * report.c — what a run shows and leaves behind: the terminal table of
 * each point, <mpi>.csv, <mpi>.json, one gnuplot figure per sweep (PNG and
 * SVG), the Markdown section <mpi>.md, and report.md, which is a fixed
 * header followed by every MPI's section present in the output directory
 * (so running the MPICH build and then the Open MPI build into one
 * directory gives one report with both).
 *
 * On the emulated storage the files are named after m->tag
 * (<mpi>-emu-np<N>), every phase shows the targets' sequential fraction,
 * and report.md also holds the resonance figures (figures.c).
 *
 * Nothing here measures: every number printed comes from struct
 * bench_point, filled by run.c; a value that was not obtained (resonio's
 * counters for native, rio_coll_last failing) is "-" (empty in CSV, null
 * in JSON).  The targets of the issue are evaluated from those numbers.
 */
#include "bench.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers -------------------------------------------------------------- */

static const struct bench_impl_result *find_res(const struct bench_point *p, const char *name)
{
    for (int k = 0; k < p->nres; k++)
        if (!strcmp(p->res[k].impl->name, name) && p->res[k].w.n)
            return &p->res[k];
    return NULL;
}

/* Storage requests of a phase: the collective engine's count when
 * rio_coll_last worked (it sees every rank's requests, also those the
 * independent counters miss), else the independent counters; -1 if none. */
static long long ops_of(const struct bench_phase *ph)
{
    return ph->have_coll ? ph->coll_reqs : ph->have_stats ? ph->ops : -1;
}

static double ratio(double a, double b)
{
    return b > 0 ? a / b : -1;
}

/* "%.*f" of v or "-" when v < 0 */
static const char *num(char *buf, size_t len, double v, int prec)
{
    if (v < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", prec, v);
    return buf;
}

static double mib(long long b)
{
    return (double)b / (1 << 20);
}

/* Throughput cell: "1234 ±5%" */
static void cell_tp(char *buf, size_t len, const struct bench_phase *ph)
{
    if (!ph->n) {
        snprintf(buf, len, "-");
        return;
    }
    double spread = ph->med > 0 ? 50.0 * (ph->max - ph->min) / ph->med : 0;
    snprintf(buf, len, "%.0f ±%.0f%%", ph->med, spread);
}

/* "w/r" pair of a stats quantity */
static void cell_pair(char *buf, size_t len, const struct bench_impl_result *r, int what)
{
    const struct bench_phase *ph[2] = {&r->w, &r->r};
    char part[2][32];
    for (int i = 0; i < 2; i++) {
        const struct bench_phase *f = ph[i];
        int have = what == 2 ? f->have_coll : what == 1 ? ops_of(f) >= 0 : f->have_stats;
        if (!have) {
            snprintf(part[i], sizeof part[i], "-");
            continue;
        }
        switch (what) {
        case 0: snprintf(part[i], sizeof part[i], "%.1f", mib(f->accessed)); break;
        case 4: snprintf(part[i], sizeof part[i], "%.1f", mib(f->desired)); break;
        case 1: snprintf(part[i], sizeof part[i], "%lld", ops_of(f)); break;
        case 2: snprintf(part[i], sizeof part[i], "%.1f", mib(f->resent)); break;
        default:
            if (ops_of(f) > 0)
                snprintf(part[i], sizeof part[i], "%.1f",
                         (double)f->accessed / (double)ops_of(f) / 1024);
            else
                snprintf(part[i], sizeof part[i], "-");
        }
    }
    snprintf(buf, len, "%.31s/%.31s", part[0], part[1]);
}

static void cell_times(char *buf, size_t len, const struct bench_impl_result *r)
{
    if (!r->w.have_coll || !r->r.have_coll) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(buf, len, "%.1f/%.1f/%.1f", 1e3 * (r->w.time_exchange + r->r.time_exchange),
             1e3 * (r->w.time_coll_storage + r->r.time_coll_storage),
             1e3 * (r->w.time_agree + r->r.time_agree));
}

static double copies_per_byte(const struct bench_phase *ph)
{
    return ph->have_coll && ph->coll_bytes > 0 ? (double)ph->copies / ph->coll_bytes : -1;
}

static void cell_copies(char *buf, size_t len, const struct bench_impl_result *r)
{
    if (!r->w.have_coll || !r->r.have_coll || r->w.coll_bytes + r->r.coll_bytes <= 0) {
        snprintf(buf, len, "-");
        return;
    }
    snprintf(buf, len, "%.2f",
             (double)(r->w.copies + r->r.copies) / (double)(r->w.coll_bytes + r->r.coll_bytes));
}

/* Peak RSS of the probe round and what the round added, MiB. */
static void cell_rss(char *buf, size_t len, const struct bench_impl_result *r)
{
    snprintf(buf, len, "%.0f (+%.0f)", r->rss_mib, r->rss_added_mib);
}

static void cell_ran(char *buf, size_t len, const struct bench_impl_result *r)
{
    const char *w = r->w.have_coll && r->w.ran[0] ? r->w.ran : "-";
    const char *rd = r->r.have_coll && r->r.ran[0] ? r->r.ran : "-";
    if (!strcmp(w, rd))
        snprintf(buf, len, "%s", w);
    else
        snprintf(buf, len, "%.63s/%.63s", w, rd);
}

/* ---- the emulated storage's targets ------------------------------------------------ */

/* Sequential fraction of target i of a phase, or over all its targets
 * (i < 0): sequential accesses / judged accesses; -1 when none was judged. */
static double seq_of(const struct bench_phase *ph, int i)
{
    long long s = 0, j = 0;
    for (int t = 0; t < ph->ntgt; t++)
        if (i < 0 || t == i) {
            s += ph->tgt[t].sequential;
            j += ph->tgt[t].judged;
        }
    return j > 0 ? (double)s / (double)j : -1;
}

/* The lowest per-target fraction of a phase; -1 when none was judged. */
static double seq_min(const struct bench_phase *ph)
{
    double m = -1;
    for (int t = 0; t < ph->ntgt; t++) {
        double f = seq_of(ph, t);
        if (f >= 0 && (m < 0 || f < m))
            m = f;
    }
    return m;
}

/* Fraction of target i's judged requests that did not go back on their
 * object (Ceph's histories); -1 when none was judged or not known. */
static double asc_of(const struct bench_phase *ph, int i)
{
    const struct bench_tgt *g = &ph->tgt[i];
    return g->judged > 0 && g->ascending >= 0 ? (double)g->ascending / (double)g->judged : -1;
}

/* "1.00 0.50 0.97 1.00" (sep between targets): frac_of of each target,
 * "-" for a target not judged */
static void seq_list(char *buf, size_t len, const struct bench_phase *ph, const char *sep,
                     double (*frac_of)(const struct bench_phase *, int))
{
    size_t n = 0;
    buf[0] = 0;
    for (int t = 0; t < ph->ntgt && n < len; t++) {
        double f = frac_of(ph, t);
        if (f >= 0)
            n += (size_t)snprintf(buf + n, len - n, "%s%.3f", t ? sep : "", f);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s-", t ? sep : "");
    }
}

static int any_tgt(const struct bench_point *p)
{
    for (int k = 0; k < p->nres; k++)
        if (p->res[k].w.ntgt || p->res[k].r.ntgt)
            return 1;
    return 0;
}

/* ---- targets ------------------------------------------------------------------ */

struct target {
    const char *name;
    int applies; /* the workload is of the target's kind and both rows ran */
    int met;
    double wr, rr; /* measured ratios (medians) */
    double need;
    int spread;   /* not met by the medians, but each phase that falls short has
                     round ranges that overlap the other row's: the "allowing
                     the spread the bench reports" (auto >= native only) */
    int bad_data; /* resonio auto failed verification */
    /* For a target against native: what it asks of auto (need x native's
     * median) over the limit row's median, per phase; -1 when there is no
     * limit row or the target is against the limit itself.  Above 1 it
     * asks for more than the physical reference on this machine. */
    double wl, rl;
};

static int overlaps(const struct bench_phase *a, const struct bench_phase *b)
{
    return a->n && b->n && a->max >= b->min && b->max >= a->min;
}

/* The targets of the issue for point p, from its measured rows. */
#define NTARGETS 4

/* Target t: auto's medians over ref's, when the point is of its kind. */
static void target_vs(struct target *t, const char *name, double need, int kind,
                      const struct bench_impl_result *a, const struct bench_impl_result *ref)
{
    t->name = name;
    t->need = need;
    t->applies = a && ref && kind;
    t->wl = t->rl = -1;
    if (t->applies) {
        t->wr = ratio(a->w.med, ref->w.med);
        t->rr = ratio(a->r.med, ref->r.med);
    }
}

/* What target t, against native's row n, asks over the limit row l. */
static void target_over_limit(struct target *t, const struct bench_impl_result *n,
                              const struct bench_impl_result *l)
{
    if (!t->applies || !n || !l)
        return;
    t->wl = ratio(t->need * n->w.med, l->w.med);
    t->rl = ratio(t->need * n->r.med, l->r.med);
}

/* Did missed target t fall short in the write (w) or read phase where it
 * asks more than the limit row? */
static int phase_above_limit(const struct target *t, int w)
{
    if (!t->applies || t->met || t->spread)
        return 0;
    return w ? t->wr < t->need && t->wl > 1 : t->rr < t->need && t->rl > 1;
}

static int above_limit(const struct target *t)
{
    return phase_above_limit(t, 1) || phase_above_limit(t, 0);
}

/* " (asks 1.85x the limit row in write)" for the phases of a missed target
 * that fell short where it asks more than the limit row, else "". */
static const char *limit_note(char *buf, size_t len, const struct target *t)
{
    int w = phase_above_limit(t, 1), r = phase_above_limit(t, 0);
    buf[0] = 0;
    if (w && r)
        snprintf(buf, len, " (asks %.2fx the limit row in write, %.2fx in read)", t->wl, t->rl);
    else if (w)
        snprintf(buf, len, " (asks %.2fx the limit row in write)", t->wl);
    else if (r)
        snprintf(buf, len, " (asks %.2fx the limit row in read)", t->rl);
    return buf;
}

static int targets(const struct bench_point *p, struct target t[NTARGETS])
{
    const struct bench_impl_result *a = find_res(p, "auto"), *n = find_res(p, "native"),
                                   *l = find_res(p, "limit");
    memset(t, 0, sizeof(struct target) * NTARGETS);
    target_vs(&t[0], "auto >= native", 1.0, 1, a, n);
    target_vs(&t[1], "auto >= 3x native (fine-grained noncontiguous)", 3.0, p->fine_grained, a,
              n);
    target_vs(&t[2], "auto >= 80% of limit (large contiguous)", 0.8, p->large_contig, a, l);
    target_vs(&t[3], "auto >= 50% of limit (fine-grained noncontiguous)", 0.5, p->fine_grained,
              a, l);
    target_over_limit(&t[0], n, l);
    target_over_limit(&t[1], n, l);
    for (int i = 0; i < NTARGETS; i++) {
        t[i].bad_data = a && a->errors;
        t[i].met = t[i].applies && !t[i].bad_data && t[i].wr >= t[i].need && t[i].rr >= t[i].need;
    }
    t[0].spread = t[0].applies && !t[0].met && !t[0].bad_data &&
                  (t[0].wr >= t[0].need || overlaps(&a->w, &n->w)) &&
                  (t[0].rr >= t[0].need || overlaps(&a->r, &n->r));
    return NTARGETS;
}

/* Met (by the medians or within the spread), and how many of those only
 * within the spread, over the points' targets. */
static void count_target(const struct target *t, int *met, int *spread, int *missed,
                         int *beyond)
{
    *met += t->met || t->spread;
    *spread += t->spread;
    *missed += !t->met && !t->spread;
    *beyond += above_limit(t);
}

/* " (N of them ask(s) for more than <limit>)" when beyond > 0, else "". */
static const char *beyond_note(char *buf, size_t len, int beyond, const char *limit)
{
    buf[0] = 0;
    if (beyond)
        snprintf(buf, len, " (%d of them ask%s for more than %s)", beyond, beyond == 1 ? "s" : "",
                 limit);
    return buf;
}

static const char *verdict(const struct target *t)
{
    if (!t->applies)
        return "n/a";
    if (t->bad_data)
        return "MISSED (data wrong)";
    return t->met ? "met" : t->spread ? "met within the spread" : "MISSED";
}

/* ---- the selector's cost ---------------------------------------------------------- */

/* Issue 5 item 4: once the choice is made, the selector adds less than
 * 1 % to a 1 MiB-per-rank collective write. */
#define SEL_NEED_PCT 1.0
#define SEL_TARGET_BYTES (1LL << 20)
#define SEL_TARGET_NAME "selector < 1% of a 1 MiB/rank write"

/* What auto's selector cost in one phase of point p. */
struct selcost {
    int have;       /* auto ran and its selector reported in some timed round */
    int measured;   /* some call ran with a chosen strategy */
    double cost;    /* seconds per call once chosen: median over rounds, slowest rank */
    double call;    /* seconds of one collective call: median phase time / calls */
    double pct;     /* 100 * cost / call */
    double calls;   /* calls per round */
    double chosen;  /* of those, calls made once chosen */
};

/* Mean seconds of one collective call of row r's phase ph: the median
 * phase time over the calls; -1 without one. */
static double call_seconds(const struct bench_point *p, const struct bench_impl_result *r,
                           const struct bench_phase *ph)
{
    if (r->impl->kind == IMPL_LIMIT || !ph->n || !(ph->med > 0) || p->ncalls < 1)
        return -1;
    return mib(p->bytes) / ph->med / p->ncalls;
}

static struct selcost sel_cost(const struct bench_point *p, int write)
{
    struct selcost c;
    memset(&c, 0, sizeof c);
    c.cost = c.call = c.pct = -1;
    const struct bench_impl_result *a = find_res(p, "auto");
    const struct bench_phase *ph = a ? (write ? &a->w : &a->r) : NULL;
    if (!ph || !ph->have_sel || !ph->sel_rounds)
        return c;
    c.have = 1;
    c.calls = (double)ph->sel_calls / ph->sel_rounds;
    c.chosen = (double)(ph->sel_calls - ph->sel_exam) / ph->sel_rounds;
    c.call = call_seconds(p, a, ph);
    c.measured = ph->sel_med >= 0 && c.call > 0;
    if (c.measured) {
        c.cost = ph->sel_med;
        c.pct = 100 * c.cost / c.call;
    }
    return c;
}

/* The target applies to points whose every call moves 1 MiB per rank. */
static int sel_applies(const struct bench_point *p)
{
    return p->call_min == SEL_TARGET_BYTES && p->call_max == SEL_TARGET_BYTES &&
           sel_cost(p, 1).have;
}

static const char *sel_verdict(const struct bench_point *p)
{
    const struct bench_impl_result *a = find_res(p, "auto");
    struct selcost c = sel_cost(p, 1);
    if (!sel_applies(p))
        return "n/a";
    if (!c.measured)
        return "not measured";
    if (a && a->errors)
        return "MISSED (data wrong)";
    return c.pct < SEL_NEED_PCT ? "met" : "MISSED";
}

/* "1.0 MiB" or "16K B" per rank per call, "4K-64K B" when calls differ */
static void call_size(char *buf, size_t len, const struct bench_point *p)
{
    char lo[32], hi[32];
    bench_fmt_size(lo, sizeof lo, p->call_min);
    bench_fmt_size(hi, sizeof hi, p->call_max);
    if (p->call_min != p->call_max)
        snprintf(buf, len, "%.31s-%.31s B", lo, hi);
    else if (p->call_min >= (1 << 20) / 10)
        snprintf(buf, len, "%.1f MiB", mib(p->call_min));
    else
        snprintf(buf, len, "%.31s B", lo);
}

/* One sentence on the selector's cost in one phase ("" if auto did not
 * run), with the target's verdict for the write phase where it applies. */
static void sel_line(char *buf, size_t len, const struct bench_point *p, int write)
{
    struct selcost c = sel_cost(p, write);
    const struct bench_impl_result *a = find_res(p, "auto");
    char size[80], tail[96] = "";
    if (!a) {
        buf[0] = 0;
        return;
    }
    if (write && sel_applies(p))
        snprintf(tail, sizeof tail, " (target < %.0f %%): %s", SEL_NEED_PCT, sel_verdict(p));
    if (!c.have) {
        snprintf(buf, len, "not measured: the selector reported nothing%s", tail);
        return;
    }
    if (!c.measured) {
        snprintf(buf, len, "not measured: every call examined (%.4g call%s per round)%s", c.calls,
                 c.calls == 1 ? "" : "s", tail);
        return;
    }
    call_size(size, sizeof size, p);
    snprintf(buf, len,
             "%.1f us per call once chosen = %.2f %% of a %s/rank call of %.3g ms (%.4g of %.4g "
             "calls per round chosen)%s",
             1e6 * c.cost, c.pct, size, 1e3 * c.call, c.chosen, c.calls, tail);
}

/* ---- terminal ------------------------------------------------------------------ */

/* "MiB w/r" sent between hosts by each implementation, one line, or ""
 * when the job ran on one host. */
static void hosts_line(char *buf, size_t len, const struct bench_point *p)
{
    buf[0] = 0;
    if (p->hosts < 2)
        return;
    size_t n = 0;
    for (int k = 0; k < p->nres && n < len; k++) {
        const struct bench_impl_result *r = &p->res[k];
        char w[24], rd[24];
        if (r->w.between_hosts < 0 && r->r.between_hosts < 0)
            continue;
        snprintf(w, sizeof w, r->w.between_hosts < 0 ? "-" : "%.2f", mib(r->w.between_hosts));
        snprintf(rd, sizeof rd, r->r.between_hosts < 0 ? "-" : "%.2f", mib(r->r.between_hosts));
        n += (size_t)snprintf(buf + n, len - n, "%s%s %s/%s", n ? ", " : "", r->impl->name, w,
                              rd);
    }
}

/* The cells of an implementation's row in the printed and the Markdown
 * table (n: native's result, or NULL). */
struct row_cells {
    char w[32], rd[32], wn[16], rn[16], des[80], acc[80], ops[80], res[80], reg[80], tim[48],
        cp[16], rss[48], ran[160];
};

static void row_cells(struct row_cells *c, const struct bench_impl_result *r,
                      const struct bench_impl_result *n)
{
    cell_tp(c->w, sizeof c->w, &r->w);
    cell_tp(c->rd, sizeof c->rd, &r->r);
    num(c->wn, sizeof c->wn, n ? ratio(r->w.med, n->w.med) : -1, 2);
    num(c->rn, sizeof c->rn, n ? ratio(r->r.med, n->r.med) : -1, 2);
    cell_pair(c->des, sizeof c->des, r, 4);
    cell_pair(c->acc, sizeof c->acc, r, 0);
    cell_pair(c->ops, sizeof c->ops, r, 1);
    cell_pair(c->res, sizeof c->res, r, 2);
    cell_pair(c->reg, sizeof c->reg, r, 3);
    cell_times(c->tim, sizeof c->tim, r);
    cell_copies(c->cp, sizeof c->cp, r);
    cell_rss(c->rss, sizeof c->rss, r);
    cell_ran(c->ran, sizeof c->ran, r);
}

void bench_print_point(FILE *to, const struct bench_point *p)
{
    char fr[32], mr[32];
    bench_fmt_size(fr, sizeof fr, p->fregion);
    bench_fmt_size(mr, sizeof mr, p->mregion);
    fprintf(to,
            "\n== %s %s  (%s)\n   %s\n   %.1f MiB per phase, file %.1f MiB, file pieces %s B, "
            "memory pieces %s B%s%s; %.1f s\n",
            p->w->name, p->params, p->w->source, p->shape, mib(p->bytes), mib(p->filesize), fr, mr,
            p->fine_grained ? "; fine-grained noncontiguous" : "",
            p->large_contig ? "; large contiguous" : "", p->seconds);
    fprintf(to, "%-12s %11s %11s %5s %5s %13s %15s %11s %13s %16s %6s %11s %-16s %s\n", "impl",
            "write MiB/s", "read MiB/s", "w/nat", "r/nat", "accessed MiB", "stor ops", "resent MiB",
            "region KiB", "xchg/stor/agr ms", "copy/B", "RSS MiB", "ran", "verified");
    const struct bench_impl_result *n = find_res(p, "native");
    for (int k = 0; k < p->nres; k++) {
        const struct bench_impl_result *r = &p->res[k];
        struct row_cells c;
        row_cells(&c, r, n);
        char ok[64];
        if (r->errors)
            snprintf(ok, sizeof ok, "NO (%lld)", r->errors);
        else if (r->strays)
            snprintf(ok, sizeof ok, "yes, %lld B in gaps", r->strays);
        else
            snprintf(ok, sizeof ok, "yes");
        fprintf(to, "%-12s %11s %11s %5s %5s %13s %15s %11s %13s %16s %6s %11s %-16s %s\n",
                r->impl->name, c.w, c.rd, c.wn, c.rn, c.acc, c.ops, c.res, c.reg, c.tim, c.cp,
                c.rss, c.ran, ok);
    }
    char hl[2048];
    hosts_line(hl, sizeof hl, p);
    if (hl[0])
        fprintf(to, "   MiB sent between the %d hosts (write/read, probe round, the hosts' "
                    "interfaces): %s\n",
                p->hosts, hl);
    if (any_tgt(p)) {
        fprintf(to, "   sequential fraction at the targets (target 0, 1, ...: all), write | "
                    "read:\n");
        for (int k = 0; k < p->nres; k++) {
            const struct bench_impl_result *r = &p->res[k];
            char lw[160], lr[160], a[16], c[16];
            seq_list(lw, sizeof lw, &r->w, " ", seq_of);
            seq_list(lr, sizeof lr, &r->r, " ", seq_of);
            fprintf(to, "   %-12s %s: %s | %s: %s\n", r->impl->name, lw,
                    num(a, sizeof a, seq_of(&r->w, -1), 3), lr,
                    num(c, sizeof c, seq_of(&r->r, -1), 3));
        }
    }
    struct target t[NTARGETS];
    targets(p, t);
    for (int i = 0; i < NTARGETS; i++) {
        char note[96];
        if (t[i].applies)
            fprintf(to, "   target %-48s write %.2f, read %.2f (need %.2f): %s%s\n", t[i].name,
                    t[i].wr, t[i].rr, t[i].need, verdict(&t[i]),
                    limit_note(note, sizeof note, &t[i]));
    }
    for (int w = 1; w >= 0; w--) {
        char line[512];
        sel_line(line, sizeof line, p, w);
        if (line[0])
            fprintf(to, "   selector %-6s %s\n", w ? "write:" : "read:", line);
    }
}

void bench_print_targets(FILE *to, const struct bench_opts *o)
{
    int met = 0, spread = 0, missed = 0, beyond = 0;
    fprintf(to, "\ntargets (resonio auto, medians of this run):\n");
    for (int i = 0; i < o->npoints; i++) {
        const struct bench_point *p = &o->points[i];
        struct target t[NTARGETS];
        targets(p, t);
        for (int j = 0; j < NTARGETS; j++) {
            if (!t[j].applies)
                continue;
            char note[96];
            count_target(&t[j], &met, &spread, &missed, &beyond);
            fprintf(to, "  %-10s %-44s %-48s w %6.2f r %6.2f  %s%s\n", p->w->name, p->params,
                    t[j].name, t[j].wr, t[j].rr, verdict(&t[j]),
                    limit_note(note, sizeof note, &t[j]));
        }
        if (sel_applies(p)) {
            const char *v = sel_verdict(p);
            struct selcost c = sel_cost(p, 1);
            char pct[32] = "-";
            if (c.measured)
                snprintf(pct, sizeof pct, "%.2f%%", c.pct);
            met += !strcmp(v, "met");
            missed += !strncmp(v, "MISSED", 6);
            fprintf(to, "  %-10s %-44s %-48s w %6s           %s\n", p->w->name, p->params,
                    SEL_TARGET_NAME, pct, v);
        }
    }
    char note[96];
    fprintf(to, "  %d met (%d of them within the spread), %d missed%s\n", met, spread, missed,
            beyond_note(note, sizeof note, beyond, "the limit row"));
}

/* ---- files ------------------------------------------------------------------------ */

static FILE *open_out(const char *dir, const char *name, const char *suffix)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%s", dir, name, suffix);
    FILE *f = fopen(path, "w");
    if (!f)
        fprintf(stderr, "resonio-bench: cannot write %s: %s\n", path, strerror(errno));
    return f;
}

static const char csv_header[] =
    "mpi,nprocs,workload,params,impl,bytes,file_bytes,fine_grained,large_contiguous,rounds,"
    "write_mibs_median,write_mibs_min,write_mibs_max,read_mibs_median,read_mibs_min,"
    "read_mibs_max,write_ratio_native,read_ratio_native,"
    "write_desired,write_accessed,write_storage_ops,write_resent,write_region,"
    "write_time_exchange,write_time_storage,write_stats_time_storage,write_stats_time_agree,"
    "write_copies_per_byte,"
    "write_strategy,"
    "read_desired,read_accessed,read_storage_ops,read_resent,read_region,"
    "read_time_exchange,read_time_storage,read_stats_time_storage,read_stats_time_agree,"
    "read_copies_per_byte,"
    "read_strategy,rss_mib,rss_added_mib,verified,errors,stray_bytes,"
    "write_call_us,write_select_calls,write_select_exam_calls,write_select_us,write_select_pct,"
    "read_call_us,read_select_calls,read_select_exam_calls,read_select_us,read_select_pct,"
    "select_target,"
    "write_seq_fraction,write_seq_min,write_target_seq,"
    "read_seq_fraction,read_seq_min,read_target_seq";

/* The targets' columns of one phase (empty when not measured). */
static void csv_tgt(FILE *f, const struct bench_phase *ph)
{
    double a = seq_of(ph, -1), b = seq_min(ph);
    char l[256];
    seq_list(l, sizeof l, ph, " ", seq_of);
    if (a >= 0)
        fprintf(f, ",%.4f,%.4f,%s", a, b, l);
    else
        fprintf(f, ",,,%s", l);
}

/* The call time and the selector's columns of one phase of row r. */
static void csv_sel(FILE *f, const struct bench_point *p, const struct bench_impl_result *r,
                    const struct bench_phase *ph)
{
    double call = call_seconds(p, r, ph);
    if (call > 0)
        fprintf(f, ",%.3f", 1e6 * call);
    else
        fprintf(f, ",");
    if (!ph->have_sel || !ph->sel_rounds) {
        fprintf(f, ",,,,");
        return;
    }
    fprintf(f, ",%.6g,%.6g", (double)ph->sel_calls / ph->sel_rounds,
            (double)ph->sel_exam / ph->sel_rounds);
    if (ph->sel_med >= 0 && call > 0)
        fprintf(f, ",%.3f,%.4f", 1e6 * ph->sel_med, 100 * ph->sel_med / call);
    else
        fprintf(f, ",,");
}

static void csv_phase(FILE *f, const struct bench_phase *ph)
{
    if (ph->have_stats)
        fprintf(f, ",%lld,%lld", ph->desired, ph->accessed);
    else
        fprintf(f, ",,");
    if (ops_of(ph) >= 0)
        fprintf(f, ",%lld", ops_of(ph));
    else
        fprintf(f, ",");
    if (ph->have_coll)
        fprintf(f, ",%lld", ph->resent);
    else
        fprintf(f, ",");
    if (ph->have_stats && ops_of(ph) > 0)
        fprintf(f, ",%.0f", (double)ph->accessed / (double)ops_of(ph));
    else
        fprintf(f, ",");
    if (ph->have_coll)
        fprintf(f, ",%.6f,%.6f", ph->time_exchange, ph->time_coll_storage);
    else
        fprintf(f, ",,");
    if (ph->have_stats)
        fprintf(f, ",%.6f,%.6f", ph->time_storage, ph->time_agree);
    else
        fprintf(f, ",,");
    double c = copies_per_byte(ph);
    if (c >= 0)
        fprintf(f, ",%.4f", c);
    else
        fprintf(f, ",");
    fprintf(f, ",%s", ph->have_coll ? ph->ran : "");
}

static int write_csv(const struct bench_opts *o, const struct bench_meta *m)
{
    FILE *f = open_out(o->out, m->tag, ".csv");
    if (!f)
        return -1;
    fprintf(f, "%s\n", csv_header);
    for (int i = 0; i < o->npoints; i++) {
        const struct bench_point *p = &o->points[i];
        const struct bench_impl_result *n = find_res(p, "native");
        for (int k = 0; k < p->nres; k++) {
            const struct bench_impl_result *r = &p->res[k];
            fprintf(f, "%s,%d,%s,%s,%s,%lld,%lld,%d,%d,%d", m->mpi, m->nprocs, p->w->name,
                    p->params, r->impl->name, p->bytes, (long long)p->filesize, p->fine_grained,
                    p->large_contig, r->w.n);
            fprintf(f, ",%.2f,%.2f,%.2f,%.2f,%.2f,%.2f", r->w.med, r->w.min, r->w.max, r->r.med,
                    r->r.min, r->r.max);
            if (n && n->w.med > 0 && n->r.med > 0)
                fprintf(f, ",%.4f,%.4f", r->w.med / n->w.med, r->r.med / n->r.med);
            else
                fprintf(f, ",,");
            csv_phase(f, &r->w);
            csv_phase(f, &r->r);
            fprintf(f, ",%.1f,%.1f,%d,%lld,%lld", r->rss_mib, r->rss_added_mib, r->errors == 0,
                    r->errors, r->strays);
            csv_sel(f, p, r, &r->w);
            csv_sel(f, p, r, &r->r);
            /* the target's verdict, on the row whose numbers it judges */
            fprintf(f, ",%s", r == find_res(p, "auto") && sel_applies(p) ? sel_verdict(p) : "");
            csv_tgt(f, &r->w);
            csv_tgt(f, &r->r);
            fprintf(f, "\n");
        }
    }
    return fclose(f) ? -1 : 0;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v, int have)
{
    if (have)
        fprintf(f, "%.6g", v);
    else
        fprintf(f, "null");
}

static void json_phase(FILE *f, const struct bench_point *p, const struct bench_impl_result *r,
                       const struct bench_phase *ph, double native_med)
{
    fprintf(f, "{\"mibs_median\": %.6g, \"mibs_min\": %.6g, \"mibs_max\": %.6g, \"mibs\": [",
            ph->med, ph->min, ph->max);
    for (int i = 0; i < ph->n; i++)
        fprintf(f, "%s%.6g", i ? ", " : "", ph->mibs[i]);
    fprintf(f, "], \"ratio_native\": ");
    json_num(f, native_med > 0 ? ph->med / native_med : 0, native_med > 0);
    fprintf(f, ", \"desired\": ");
    json_num(f, (double)ph->desired, ph->have_stats);
    fprintf(f, ", \"accessed\": ");
    json_num(f, (double)ph->accessed, ph->have_stats);
    fprintf(f, ", \"storage_ops\": ");
    json_num(f, (double)ops_of(ph), ops_of(ph) >= 0);
    fprintf(f, ", \"indep_storage_ops\": ");
    json_num(f, (double)ph->ops, ph->have_stats);
    fprintf(f, ", \"coll_storage_ops\": ");
    json_num(f, (double)ph->coll_reqs, ph->have_coll);
    fprintf(f, ", \"resent\": ");
    json_num(f, (double)ph->resent, ph->have_coll);
    fprintf(f, ", \"between_hosts\": ");
    json_num(f, (double)ph->between_hosts, ph->between_hosts >= 0);
    fprintf(f, ", \"region\": ");
    json_num(f, ops_of(ph) > 0 ? (double)ph->accessed / (double)ops_of(ph) : 0,
             ph->have_stats && ops_of(ph) > 0);
    fprintf(f, ", \"time_exchange\": ");
    json_num(f, ph->time_exchange, ph->have_coll);
    fprintf(f, ", \"time_storage\": ");
    json_num(f, ph->time_coll_storage, ph->have_coll);
    fprintf(f, ", \"plan_cpu_us\": ");
    json_num(f, 1e6 * ph->time_plan, ph->have_coll);
    fprintf(f, ", \"stats_time_storage\": ");
    json_num(f, ph->time_storage, ph->have_stats);
    fprintf(f, ", \"stats_time_agree\": ");
    json_num(f, ph->time_agree, ph->have_stats);
    fprintf(f, ", \"copies_per_byte\": ");
    json_num(f, copies_per_byte(ph), copies_per_byte(ph) >= 0);
    fprintf(f, ", \"strategy\": ");
    if (ph->have_coll)
        json_str(f, ph->ran);
    else
        fprintf(f, "null");
    double call = call_seconds(p, r, ph);
    int sel = ph->have_sel && ph->sel_rounds, cost = sel && ph->sel_med >= 0 && call > 0;
    fprintf(f, ",\n         \"call_us\": ");
    json_num(f, 1e6 * call, call > 0);
    fprintf(f, ", \"select_calls\": ");
    json_num(f, sel ? (double)ph->sel_calls / ph->sel_rounds : 0, sel);
    fprintf(f, ", \"select_exam_calls\": ");
    json_num(f, sel ? (double)ph->sel_exam / ph->sel_rounds : 0, sel);
    fprintf(f, ", \"select_us\": ");
    json_num(f, 1e6 * ph->sel_med, cost);
    fprintf(f, ", \"select_pct\": ");
    json_num(f, cost ? 100 * ph->sel_med / call : 0, cost);
    /* messages per rank and call (counting layer): mean, largest rank */
    fprintf(f, ",\n         \"sent\": ");
    if (!ph->cnt_rounds)
        fprintf(f, "null");
    else {
        static const char *const cls[3] = {"coll", "meta", "data"};
        double n = ph->cnt_rounds;
        for (int k = 0; k < 3; k++)
            fprintf(f, "%s\"%s_msgs\": %.6g, \"%s_msgs_max\": %.6g, \"%s_bytes\": %.6g, "
                       "\"%s_bytes_max\": %.6g",
                    k ? ", " : "{", cls[k], ph->cnt_msgs[k] / n, cls[k], ph->cnt_msgs_max[k] / n,
                    cls[k], ph->cnt_bytes[k] / n, cls[k], ph->cnt_bytes_max[k] / n);
        fprintf(f, ", \"storage_reqs\": %.6g, \"storage_reqs_max\": %.6g, "
                   "\"storage_bytes\": %.6g, \"storage_bytes_max\": %.6g}",
                ph->cnt_io[0] / n, ph->cnt_io_max[0] / n, ph->cnt_io[1] / n,
                ph->cnt_io_max[1] / n);
    }
    fprintf(f, ",\n         \"seq_fraction\": ");
    json_num(f, seq_of(ph, -1), seq_of(ph, -1) >= 0);
    fprintf(f, ", \"targets\": ");
    if (!ph->ntgt)
        fprintf(f, "null");
    for (int t = 0; t < ph->ntgt; t++) {
        const struct bench_tgt *g = &ph->tgt[t];
        fprintf(f, "%s{\"target\": %d, \"requests\": %lld, \"accesses\": %lld, "
                   "\"judged\": %lld, \"sequential\": %lld, \"sequential_fraction\": ",
                t ? ", " : "[", t, g->requests, g->accesses, g->judged, g->sequential);
        json_num(f, seq_of(ph, t), seq_of(ph, t) >= 0);
        fprintf(f, ", \"seek_bytes\": %lld, \"busy_s\": %.6g}", g->seek, g->busy);
    }
    fprintf(f, "%s}", ph->ntgt ? "]" : "");
}

static int write_json(const struct bench_opts *o, const struct bench_meta *m)
{
    FILE *f = open_out(o->out, m->tag, ".json");
    if (!f)
        return -1;
    fprintf(f, "{\n  \"schema\": \"resonio-bench/1\",\n  \"mpi\": ");
    json_str(f, m->mpi);
    fprintf(f, ",\n  \"mpi_version\": ");
    json_str(f, m->mpi_version);
    fprintf(f, ",\n  \"nprocs\": %d,\n  \"host\": ", m->nprocs);
    json_str(f, m->host);
    fprintf(f, ",\n  \"dir\": ");
    json_str(f, o->dir);
    fprintf(f, ",\n  \"fstype\": ");
    json_str(f, m->fstype);
    fprintf(f, ",\n  \"started\": ");
    json_str(f, m->started);
    fprintf(f,
            ",\n  \"seconds\": %.1f,\n  \"load_start\": %.2f,\n  \"load_end\": %.2f,"
            "\n  \"suite\": ",
            m->seconds, m->load[0], m->load[1]);
    if (o->suite)
        json_str(f, o->suite);
    else
        fprintf(f, "null");
    fprintf(f, ",\n  \"storage\": ");
    if (o->ceph)
        fprintf(f, "{\"kind\": \"%s\", \"osds\": 3, \"stripe_unit\": %lld, "
                   "\"stripe_count\": %d, \"object_size\": %lld}",
                o->rados ? "rados" : "cephfs", o->stripe, o->targets, bench_ceph_object_size(o));
    else if (o->emu)
        fprintf(f,
                "{\"kind\": \"emu\", \"targets\": %d, \"model\": \"%s\", \"stripe_unit\": %lld, "
                "\"time_scale\": %g}",
                o->targets, o->model, o->stripe, o->time_scale);
    else if (o->sim)
        fprintf(f,
                "{\"kind\": \"simgrid\", \"targets\": %d, \"model\": \"%s\", "
                "\"stripe_unit\": %lld}",
                o->targets, o->model, o->stripe);
    else
        fprintf(f, "{\"kind\": \"posix\"}");
    fprintf(f, ",\n  \"rounds\": %d,\n  \"sync\": %s,\n  \"points\": [", o->rounds,
            o->sync ? "true" : "false");
    for (int i = 0; i < o->npoints; i++) {
        const struct bench_point *p = &o->points[i];
        fprintf(f, "%s\n    {\"workload\": ", i ? "," : "");
        json_str(f, p->w->name);
        fprintf(f, ", \"source\": ");
        json_str(f, p->w->source);
        fprintf(f, ", \"params\": {");
        int np = 0;
        for (const struct bench_param *pa = p->w->params; pa->name; pa++, np++) {
            fprintf(f, "%s", np ? ", " : "");
            json_str(f, pa->name);
            fprintf(f, ": %lld", p->v[np]);
        }
        fprintf(f, "}, \"label\": ");
        json_str(f, p->params);
        fprintf(f, ", \"sweep\": ");
        if (p->sweep >= 0)
            json_str(f, p->w->params[p->sweep].name);
        else
            fprintf(f, "null");
        fprintf(f, ", \"shape\": ");
        json_str(f, p->shape);
        fprintf(f,
                ",\n     \"bytes\": %lld, \"file_bytes\": %lld, \"file_region\": %lld, "
                "\"memory_region\": %lld, \"fine_grained\": %s, \"large_contiguous\": %s, "
                "\"seconds\": %.2f,\n     \"impls\": [",
                p->bytes, (long long)p->filesize, p->fregion, p->mregion,
                p->fine_grained ? "true" : "false", p->large_contig ? "true" : "false", p->seconds);
        const struct bench_impl_result *n = find_res(p, "native");
        for (int k = 0; k < p->nres; k++) {
            const struct bench_impl_result *r = &p->res[k];
            fprintf(f, "%s\n       {\"impl\": ", k ? "," : "");
            json_str(f, r->impl->name);
            fprintf(f,
                    ", \"verified\": %s, \"errors\": %lld, \"stray_bytes\": %lld, "
                    "\"rss_mib\": %.3f, \"rss_added_mib\": %.3f, \"rss_mean_mib\": %.3f, "
                    "\"rss_added_mean_mib\": %.3f, ",
                    r->errors ? "false" : "true", r->errors, r->strays, r->rss_mib,
                    r->rss_added_mib, r->rss_mean_mib, r->rss_added_mean_mib);
            if (r->naggs >= 0) {
                fprintf(f, "\"aggregators\": %d, \"rss_added_agg_mib\": ", r->naggs);
                json_num(f, r->rss_added_agg_mib, r->naggs > 0);
                fprintf(f, ", \"rss_added_other_mib\": ");
                json_num(f, r->rss_added_other_mib, r->naggs < m->nprocs);
                fprintf(f, ", \"rss_private_agg_mib\": ");
                json_num(f, r->rss_private_agg_mib, r->naggs > 0 && r->rss_private_agg_mib >= 0);
                fprintf(f, ", \"rss_private_other_mib\": ");
                json_num(f, r->rss_private_other_mib,
                         r->naggs < m->nprocs && r->rss_private_other_mib >= 0);
                fprintf(f, ",\n        \"write\": ");
            } else
                fprintf(f, "\"aggregators\": null,\n        \"write\": ");
            json_phase(f, p, r, &r->w, n ? n->w.med : 0);
            fprintf(f, ",\n        \"read\": ");
            json_phase(f, p, r, &r->r, n ? n->r.med : 0);
            fprintf(f, "}");
        }
        fprintf(f, "],\n     \"targets\": [");
        struct target t[NTARGETS];
        targets(p, t);
        for (int i2 = 0, first = 1; i2 < NTARGETS; i2++) {
            if (!t[i2].applies)
                continue;
            fprintf(f, "%s{\"target\": ", first ? "" : ", ");
            json_str(f, t[i2].name);
            fprintf(f,
                    ", \"need\": %.2f, \"write_ratio\": %.4f, \"read_ratio\": %.4f, "
                    "\"met\": %s, \"within_spread\": %s, \"need_over_limit_write\": ",
                    t[i2].need, t[i2].wr, t[i2].rr, t[i2].met ? "true" : "false",
                    t[i2].spread ? "true" : "false");
            json_num(f, t[i2].wl, t[i2].wl >= 0);
            fprintf(f, ", \"need_over_limit_read\": ");
            json_num(f, t[i2].rl, t[i2].rl >= 0);
            fprintf(f, "}");
            first = 0;
        }
        fprintf(f, "],\n     \"selector_target\": ");
        if (sel_applies(p)) {
            struct selcost c = sel_cost(p, 1);
            fprintf(f, "{\"target\": ");
            json_str(f, SEL_TARGET_NAME);
            fprintf(f, ", \"need_pct\": %.2f, \"write_pct\": ", SEL_NEED_PCT);
            json_num(f, c.pct, c.measured);
            fprintf(f, ", \"measured\": %s, \"met\": %s}", c.measured ? "true" : "false",
                    !strcmp(sel_verdict(p), "met") ? "true" : "false");
        } else {
            fprintf(f, "null");
        }
        fprintf(f, "}");
    }
    fprintf(f, "\n  ]\n}\n");
    return fclose(f) ? -1 : 0;
}

/* ---- plots --------------------------------------------------------------------------- */

/* One figure (PNG and SVG) for the points of specification `spec`:
 * throughput against the swept parameter, write and read side by side.
 * Returns 1 if the figure was made, 0 if not (gnuplot missing or failed). */
static int plot_spec(const struct bench_opts *o, const struct bench_meta *m, int spec, char *name,
                     size_t namelen)
{
    const struct bench_point *pts[BENCH_MAX_SWEEP];
    int n = 0;
    for (int i = 0; i < o->npoints && n < BENCH_MAX_SWEEP; i++)
        if (o->points[i].spec == spec && o->points[i].sweep >= 0)
            pts[n++] = &o->points[i];
    if (n < 2)
        return 0;
    const struct bench_point *p0 = pts[0];
    const struct bench_param *sw = &p0->w->params[p0->sweep];
    snprintf(name, namelen, "%s-%s-%s", m->tag, p0->w->name, sw->name);
    FILE *f = open_out(o->out, name, ".gp");
    if (!f)
        return 0;
    fprintf(f, "# throughput of %s against %s (resonio-bench, %s, %d ranks)\n$data << EOD\n",
            p0->w->name, sw->name, m->mpi, m->nprocs);
    for (int i = 0; i < n; i++) {
        fprintf(f, "%lld", pts[i]->v[p0->sweep]);
        for (int k = 0; k < p0->nres; k++) {
            const struct bench_impl_result *r = i < n ? &pts[i]->res[k] : NULL;
            if (r && r->w.n)
                fprintf(f, " %.3f %.3f", r->w.med, r->r.med);
            else
                fprintf(f, " NaN NaN");
        }
        fprintf(f, "\n");
    }
    fprintf(f, "EOD\nset xtics (");
    for (int i = 0; i < n; i++) {
        char lab[32];
        if (sw->kind == BP_SIZE)
            bench_fmt_size(lab, sizeof lab, pts[i]->v[p0->sweep]);
        else
            snprintf(lab, sizeof lab, "%lld", pts[i]->v[p0->sweep]);
        fprintf(f, "%s\"%s\" %lld", i ? ", " : "", lab, pts[i]->v[p0->sweep]);
    }
    fprintf(f,
            ")\nset logscale x 2\nset logscale y 10\nset grid\nset key outside right top\n"
            "set offsets graph 0.05, graph 0.05, 0, 0\n"
            "set ylabel 'MiB/s (log scale)'\nset xlabel '%s%s'\n",
            sw->name, sw->kind == BP_SIZE ? " (bytes)" : "");
    for (int term = 0; term < 2; term++) {
        fprintf(f, "set terminal %s size 1400,520%s noenhanced\nset output '%s.%s'\n",
                term ? "svg" : "pngcairo", term ? " dynamic" : " font ',10'", name,
                term ? "svg" : "png");
        fprintf(f, "set multiplot layout 1,2 title '%s (%s): %s, %d ranks, %s'\n", p0->w->name,
                p0->w->source, m->mpi, m->nprocs, m->fstype);
        for (int ph = 0; ph < 2; ph++) {
            fprintf(f, "set title '%s'\nplot ", ph ? "read" : "write");
            for (int k = 0; k < p0->nres; k++) {
                const char *nm = p0->res[k].impl->name;
                char style[64];
                if (!strcmp(nm, "limit"))
                    snprintf(style, sizeof style, "lc rgb '#7f7f7f' dt 2 lw 2");
                else if (!strcmp(nm, "native"))
                    snprintf(style, sizeof style, "lc rgb 'black' lw 3");
                else if (!strcmp(nm, "auto"))
                    snprintf(style, sizeof style, "lc rgb '#d62728' lw 3");
                else {
                    static const char *const pal[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd",
                                                      "#8c564b", "#e377c2", "#17becf"};
                    snprintf(style, sizeof style, "lc rgb '%s' pt %d", pal[k % 7], 1 + k % 7);
                }
                fprintf(f, "%s$data using 1:%d with linespoints %s title '%s'", k ? ", " : "",
                        2 + 2 * k + ph, style, nm);
            }
            fprintf(f, "\n");
        }
        fprintf(f, "unset multiplot\n");
    }
    fclose(f);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "cd '%s' && gnuplot '%s.gp' >/dev/null 2>&1", o->out, name);
    return system(cmd) == 0;
}

/* ---- markdown ------------------------------------------------------------------------ */

static void md_point(FILE *f, const struct bench_point *p)
{
    char fr[32], mr[32];
    bench_fmt_size(fr, sizeof fr, p->fregion);
    bench_fmt_size(mr, sizeof mr, p->mregion);
    fprintf(f,
            "\n#### %s `%s`\n\n%s (%s). %.1f MiB per phase, file %.1f MiB, file pieces %s B, "
            "memory pieces %s B%s%s. Took %.1f s.\n\n",
            p->w->name, p->params, p->shape, p->w->source, mib(p->bytes), mib(p->filesize), fr, mr,
            p->fine_grained ? "; **fine-grained noncontiguous**" : "",
            p->large_contig ? "; **large contiguous**" : "", p->seconds);
    fprintf(f, "| impl | write MiB/s | read MiB/s | w/native | r/native | desired MiB w/r | "
               "accessed MiB w/r | "
               "storage ops w/r | resent MiB w/r | region KiB w/r | "
               "exchange/storage/agreement ms | "
               "copies/B | RSS MiB (+added) | ran | verified |\n");
    fprintf(f, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|---|\n");
    const struct bench_impl_result *n = find_res(p, "native");
    for (int k = 0; k < p->nres; k++) {
        const struct bench_impl_result *r = &p->res[k];
        struct row_cells c;
        row_cells(&c, r, n);
        fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
                r->impl->name, c.w, c.rd, c.wn, c.rn, c.des, c.acc, c.ops, c.res, c.reg, c.tim,
                c.cp, c.rss, c.ran,
                r->errors   ? "**NO**"
                : r->strays ? "yes, but non-zero bytes in gaps"
                            : "yes");
    }
    for (int w = 1; w >= 0; w--) {
        char line[512];
        sel_line(line, sizeof line, p, w);
        if (line[0])
            fprintf(f, "%s- selector of auto, %s: %s\n", w ? "\n" : "", w ? "write" : "read",
                    line);
    }
    char hl[2048];
    hosts_line(hl, sizeof hl, p);
    if (hl[0])
        fprintf(f, "\n- MiB sent between the %d hosts in the probe round, write/read (every "
                   "host's network interfaces, as its kernel counted them; the launcher's "
                   "daemons' messages included): %s\n",
                p->hosts, hl);
    if (!any_tgt(p))
        return;
    /* counters from OSDs (cephfs) come with bytes; resonio-emud's without */
    int osd = 0;
    for (int k = 0; k < p->nres; k++)
        osd |= (p->res[k].w.ntgt && p->res[k].w.tgt[0].bytes >= 0) ||
               (p->res[k].r.ntgt && p->res[k].r.tgt[0].bytes >= 0);
    if (osd)
        fprintf(f, "\nRequests at the OSDs, as each OSD recorded them (its operation history; "
                   "requests to the file data only): per OSD, the fraction that start where the "
                   "previous request to the same object ended, in the order the OSD received "
                   "them; in order: per OSD, the fraction that start at or past that end (no "
                   "request went back on its object); object class calls (the lua class: "
                   "datatype I/O at the OSD, whose extents the history does not show, so they "
                   "are not judged); bytes per request of the others; a request a client sent "
                   "again (same transaction id) counts once, at its first arrival, and the "
                   "repeats are shown as resent; summed over the rounds:\n\n"
                   "| impl | phase | per OSD (0, 1, ...) | all | lowest | in order, per OSD | "
                   "requests | class calls | bytes/request |\n"
                   "|---|---|---|--:|--:|---|--:|--:|--:|\n");
    else
        fprintf(f, "\nSequentiality at the targets (accesses that start where the previous one "
                   "ended / accesses after the first of each round, over all rounds; requests "
                   "and accesses summed over the rounds):\n\n"
                   "| impl | phase | per target (0, 1, ...) | all | lowest | requests | "
                   "accesses |\n|---|---|---|--:|--:|--:|--:|\n");
    for (int k = 0; k < p->nres; k++)
        for (int w = 1; w >= 0; w--) {
            const struct bench_impl_result *r = &p->res[k];
            const struct bench_phase *ph = w ? &r->w : &r->r;
            char l[160], in[160], a[16], b[16], last[32], calls[32], req[48];
            long long rq = 0, ac = 0, by = 0, cl = 0, rs = 0;
            for (int t = 0; t < ph->ntgt; t++) {
                rq += ph->tgt[t].requests;
                ac += ph->tgt[t].accesses;
                bench_add_known(&by, ph->tgt[t].bytes);
                bench_add_known(&cl, ph->tgt[t].calls);
                bench_add_known(&rs, ph->tgt[t].resent);
            }
            seq_list(l, sizeof l, ph, " ", seq_of);
            if (!osd) {
                fprintf(f, "| %s | %s | %s | %s | %s | %lld | %lld |\n", r->impl->name,
                        w ? "write" : "read", ph->ntgt ? l : "-",
                        num(a, sizeof a, seq_of(ph, -1), 3), num(b, sizeof b, seq_min(ph), 3),
                        rq, ac);
                continue;
            }
            if (by >= 0 && rq - (cl > 0 ? cl : 0) > 0)
                snprintf(last, sizeof last, "%.0f", (double)by / (double)(rq - (cl > 0 ? cl : 0)));
            else
                snprintf(last, sizeof last, "-");
            if (cl >= 0)
                snprintf(calls, sizeof calls, "%lld", cl);
            else
                snprintf(calls, sizeof calls, "-");
            seq_list(in, sizeof in, ph, " ", asc_of);
            if (rs > 0)
                snprintf(req, sizeof req, "%lld (+%lld resent)", rq, rs);
            else
                snprintf(req, sizeof req, "%lld", rq);
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r->impl->name,
                    w ? "write" : "read", ph->ntgt ? l : "-", num(a, sizeof a, seq_of(ph, -1), 3),
                    num(b, sizeof b, seq_min(ph), 3), ph->ntgt ? in : "-", req, calls, last);
        }
}

static int write_md(const struct bench_opts *o, const struct bench_meta *m, char plots[][128],
                    int nplots)
{
    FILE *f = open_out(o->out, m->tag, ".md");
    if (!f)
        return -1;
    if (o->emu) {
        char su[32];
        bench_fmt_size(su, sizeof su, o->stripe);
        fprintf(f, "## %s, %d ranks, emulated storage\n\n", m->mpi, m->nprocs);
        fprintf(f,
                "- storage: resonio-emud started for this run, %d targets, model %s, time scale "
                "%g, files striped over every target with a %s stripe unit; each round's file "
                "checked from the object files\n",
                o->targets, o->model, o->time_scale, su);
        if (o->skipped & o->impl_mask)
            fprintf(f, "- not run here: native (the MPI library cannot open `emu:` files) and "
                       "limit (POSIX I/O)\n");
    } else if (o->sim) {
        char su[32];
        bench_fmt_size(su, sizeof su, o->stripe);
        fprintf(f, "## %s, %d simulated ranks, simulated storage\n\n", m->mpi, m->nprocs);
        fprintf(f,
                "- storage: SimGrid's simulated cluster (the SMPI build, resonio-smpirun); files "
                "`simgrid:<name>` striped over %d storage hosts of the platform with a %s stripe "
                "unit, each target charging the emulated storage's %s disk model as simulated "
                "time; each round's file checked from the targets' objects\n"
                "- every time and throughput here is simulated time, not this machine's\n"
                "- not run here: native (SMPI's MPI-IO) and limit (POSIX I/O)\n",
                o->targets, su, o->model);
    } else if (o->rados) {
        char su[32], os[32];
        bench_fmt_size(su, sizeof su, o->stripe);
        bench_fmt_size(os, sizeof os, bench_ceph_object_size(o));
        fprintf(f, "## %s, %d ranks, RADOS%s\n\n", m->mpi, m->nprocs,
                o->bluestore ? ", bluestore" : "");
        fprintf(f,
                "- storage: a Ceph cluster started for this run (tools/resonio-ceph: 1 monitor, "
                "3 %s OSDs, no mount); files `rados:resonio/<name>` with stripe unit %s, "
                "stripe count %d, objects of %s; each round's file checked from its objects "
                "with librados\n"
                "- not run here: native (the MPI library cannot open `rados:` files) and limit "
                "(POSIX I/O); `direct_list` and `direct_lua` are the direct strategy with "
                "`resonio_rados_view` forced to list I/O or to the OSDs' lua class\n",
                o->bluestore ? "bluestore" : "memstore", su, o->targets, os);
    } else if (o->ceph) {
        char su[32];
        bench_fmt_size(su, sizeof su, o->stripe);
        fprintf(f, "## %s, %d ranks, CephFS%s\n\n", m->mpi, m->nprocs,
                o->bluestore ? ", bluestore" : "");
        fprintf(f,
                "- storage: a Ceph cluster started for this run (tools/resonio-ceph: 1 monitor, "
                "3 %s OSDs, 1 metadata server), CephFS mounted with ceph-fuse without client "
                "caches (every request reaches the OSDs as made); every file has the layout "
                "stripe unit %s, stripe count %d (its directory's), for native and resonio "
                "alike; files checked through the mount\n",
                o->bluestore ? "bluestore" : "memstore", su, o->targets);
    } else {
        fprintf(f, "## %s, %d ranks, %s\n\n", m->mpi, m->nprocs, m->fstype);
    }
    fprintf(f,
            "- MPI library: `%s`\n- host `%s`; data files in `%s` (%s)\n- started %s, took "
            "%.0f s; suite %s; %d timed rounds + 1 probe round per implementation%s\n",
            m->mpi_version, m->host, o->dir, m->fstype, m->started, m->seconds,
            o->suite ? o->suite : "(command line)", o->rounds,
            o->sync ? "; writes synced before close"
                    : "; writes end at close, without sync (page cache)");

    /* targets (they compare with native and limit, which do not run on emu) */
    int met = 0, spread = 0, missed = 0, beyond = 0;
    if (o->emu || o->rados || o->sim)
        goto plots;
    fprintf(f, "\n### Targets\n\nEach row compares the medians of this run (write, read: "
               "resonio auto / native, or auto / limit). \"auto >= native\" allows the spread the "
               "bench reports, as the issue does: it is \"met within the spread\" when a phase "
               "whose median ratio is below 1 has fastest and slowest rounds that overlap "
               "native's, i.e. the difference is within this machine's round-to-round spread. "
               "The 3x and 50%% targets are listed only for points "
               "that are fine-grained noncontiguous and the 80%% target only for large contiguous "
               "ones (see each point's description below). A missed target against native "
               "that asks for more than the `limit` row in a phase that fell short (3x native "
               "above the physical reference of this file system) says how much more.\n\n");
    fprintf(f, "| workload | params | target | write | read | need | result |\n"
               "|---|---|---|--:|--:|--:|---|\n");
    for (int i = 0; i < o->npoints; i++) {
        struct target t[NTARGETS];
        targets(&o->points[i], t);
        for (int j = 0; j < NTARGETS; j++) {
            if (!t[j].applies)
                continue;
            char note[96];
            count_target(&t[j], &met, &spread, &missed, &beyond);
            fprintf(f, "| %s | `%s` | %s | %.2f | %.2f | %.2f | %s%s |\n", o->points[i].w->name,
                    o->points[i].params, t[j].name, t[j].wr, t[j].rr, t[j].need,
                    t[j].met ? "met" : t[j].spread ? "met within the spread" : "**missed**",
                    limit_note(note, sizeof note, &t[j]));
        }
        const struct bench_point *p = &o->points[i];
        if (sel_applies(p)) {
            const char *v = sel_verdict(p);
            struct selcost c = sel_cost(p, 1);
            char pct[32] = "-";
            if (c.measured)
                snprintf(pct, sizeof pct, "%.2f %%", c.pct);
            met += !strcmp(v, "met");
            missed += !strncmp(v, "MISSED", 6);
            fprintf(f, "| %s | `%s` | %s | %s | - | < %.0f %% | %s |\n", p->w->name, p->params,
                    SEL_TARGET_NAME, pct, SEL_NEED_PCT,
                    !strcmp(v, "met")             ? "met"
                    : !strncmp(v, "MISSED", 6) ? "**missed**"
                                               : v);
        }
    }
    char note[96];
    fprintf(f, "\n%d target checks met (%d of them within the spread), %d missed%s.\n", met,
            spread, missed, beyond_note(note, sizeof note, beyond, "the `limit` row"));

plots:
    if (nplots) {
        fprintf(f, "\n### Plots\n\n");
        for (int i = 0; i < nplots; i++)
            fprintf(f,
                    "![%s](%s.png)\n\n([SVG](%s.svg), [gnuplot script with the data](%s.gp))"
                    "\n\n",
                    plots[i], plots[i], plots[i], plots[i]);
    } else if (o->plots) {
        fprintf(f, "\n(No plots: no sweep in this run, or gnuplot is missing.)\n");
    }

    fprintf(f, "\n### Results\n");
    for (int i = 0; i < o->npoints; i++)
        md_point(f, &o->points[i]);
    fprintf(f, "\nCSV: [%s.csv](%s.csv), JSON: [%s.json](%s.json)\n", m->tag, m->tag, m->tag,
            m->tag);
    return fclose(f) ? -1 : 0;
}

static const char report_head[] =
    "# resonio-bench report\n\n"
    "Each workload (parameters from the papers in `shared/seeds`) runs in one process through "
    "the MPI library's own MPI-IO (`native`: `MPI_File_*`; the benchmark links libresonio, "
    "not the drop-in library) and through resonio under each collective strategy "
    "(`resonio_strategy` hint) and `auto`, in alternating rounds. Every round writes a new file "
    "with collective calls, reads it back, compares every byte read, and checks the file with "
    "POSIX reads. `limit` writes and reads the same number of bytes to a new file with large "
    "sequential `pwrite`/`pread` of 1 MiB (each rank one contiguous 1/N): the physical reference on "
    "the same file system.\n\n"
    "- Throughput: bytes of one phase over all ranks / time of the slowest rank, from a "
    "barrier to the end of the close (open excluded), median over the timed rounds; ±x% is "
    "half the spread between the fastest and slowest round. Reads come from the page cache "
    "(caches are not dropped). Each implementation's read phase reads the file its own write "
    "phase made: on ext4, a file written in larger calls is cached in larger pages (folios) "
    "and reads back faster, so a read row also reflects how its implementation wrote (`limit` "
    "writes 1 MiB per call).\n"
    "- Round 0 of each implementation is a probe: verified, not timed. It alone calls "
    "`rio_stats_get` before close and `rio_coll_last` after every call; the I/O "
    "characteristics (datatype-io.txt Table I) come from it, summed over ranks: bytes "
    "accessed in storage, storage requests (the collective engine's count from "
    "`rio_coll_last`, which sees every rank's requests; `rio_stats_get`'s independent "
    "counters when it fails), resent bytes (moved between ranks), typical "
    "region (bytes accessed / storage requests), exchange and storage time (slowest rank "
    "per call, summed), time in the error agreement that ends every collective call "
    "(`rio_stats_get`: the rank that waited longest; waiting for a slower rank lands here "
    "when a call has no exchange, in the exchange otherwise), copies per byte (bytes resonio "
    "copied in memory / data bytes). `-` "
    "means not available: native exposes no counters, and a failing `rio_coll_last` "
    "leaves its columns empty.\n"
    "- Verified: every byte read back equals what was written, and the file (POSIX reads) "
    "holds exactly the workload's bytes. \"non-zero bytes in gaps\" means the bytes the "
    "workload never writes (hpio with region_spacing) did not read back as zero: the "
    "implementation wrote something there (the data itself was right).\n"
    "- RSS: peak resident set of the implementation's probe round (untimed; VmHWM reset "
    "before it), max over ranks, and in brackets what that round added to the resident set "
    "it started with, without the probes' own gathers of every rank's storage requests on "
    "rank 0 after each call. Before the round, resonio's kept buffers (`rio_release_memory`) "
    "and the C library's free memory go back to the system, so no other row's leftovers count; "
    "the peak includes the benchmark's own buffers (resident before the round) and the MPI "
    "library's memory. What a round adds is memory first touched in it, library code and MPI "
    "buffers included, so the first rows of a run carry some that later rows share.\n"
    "- Targets: resonio `auto` >= native (write and read medians) on every workload; >= 3x "
    "native and >= 50% of `limit` on fine-grained noncontiguous workloads (a rank's file "
    "pieces smaller than a 4 KiB page); >= 80% of `limit` on large contiguous ones (each rank's call one contiguous "
    "file region of at least 1 MiB from contiguous memory); the selector adds less than 1 % "
    "to a 1 MiB-per-rank collective write once it has chosen (points where every call moves "
    "1 MiB per rank).\n"
    "- Selector of auto: every round asks it once before close (`rio_select_get`, local) what "
    "it spent selecting. Its steady cost per call is the time it spent in the calls made once "
    "a strategy was chosen, over those calls (slowest rank; median over the timed rounds); it "
    "is compared with the mean time of one of auto's collective calls (median phase time / "
    "calls, which includes the examining calls and the close). When every call examined, "
    "there is no steady cost to measure. The selector keeps its decisions across the files of "
    "a process (`resonio_select_reuse`), as a program writing one file after another would "
    "see: auto's probe round pays the examination, and the timed rounds start with its "
    "choice (re-examining when a call deviates from it).\n"
    "- Emulated storage (`-storage emu`): the run starts its own resonio-emud service (one "
    "server process per target, each serving requests in arrival order with a modelled disk) "
    "and stops it at the end; files are `emu:` names striped over the targets, and each round's "
    "file is checked from the service's object files instead of POSIX reads. `native` and "
    "`limit` cannot run there. Around every phase the targets' counters are reset and read "
    "(outside the timing): the sequential fraction of a target is the share of its disk "
    "accesses that started where the previous one ended, over all rounds. `indep_calls` "
    "makes no collective call: each rank writes and reads its own contiguous pieces with "
    "independent calls (`rio_file_write_at`/`read_at`, one per piece).\n\n";

/* Append dir/name to f if it exists. */
static void append_file(FILE *f, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *s = fopen(path, "r");
    if (!s)
        return;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, s)) > 0)
        fwrite(buf, 1, n, f);
    fclose(s);
    fputc('\n', f);
}

static int write_report(const struct bench_opts *o)
{
    FILE *f = open_out(o->out, "report", ".md");
    if (!f)
        return -1;
    fputs(report_head, f);
    static const char *const order[] = {"mpich", "openmpi", "mpi"};
    char name[64];
    for (int i = 0; i < 3; i++) {
        snprintf(name, sizeof name, "%s.md", order[i]);
        append_file(f, o->out, name);
        snprintf(name, sizeof name, "%s-tmpfs.md", order[i]);
        append_file(f, o->out, name);
    }
    /* the emulated storage: the figures from every run here, then each run */
    bench_fig_report(f, o->out, o->plots);
    for (int i = 0; i < 3; i++)
        for (int np = 1; np <= 1024; np++) {
            snprintf(name, sizeof name, "%s-emu-np%d.md", order[i], np);
            append_file(f, o->out, name);
        }
    return fclose(f) ? -1 : 0;
}

int bench_write_outputs(const struct bench_opts *o, const struct bench_meta *m)
{
    int rc = 0;
    rc |= write_csv(o, m);
    rc |= write_json(o, m);
    char plots[64][128];
    int nplots = 0, nspec = 0;
    for (int i = 0; i < o->npoints; i++)
        if (o->points[i].spec + 1 > nspec)
            nspec = o->points[i].spec + 1;
    if (o->plots)
        for (int s = 0; s < nspec && nplots < 64; s++)
            nplots += plot_spec(o, m, s, plots[nplots], sizeof plots[nplots]);
    rc |= write_md(o, m, plots, nplots);
    if (o->emu || o->ceph)
        rc |= bench_fig_save(o, m);
    rc |= write_report(o);
    return rc ? -1 : 0;
}
