/*
 * coll.c — the skeleton of every collective call, top to bottom.
 *
 *   1. strategy  the hints' choice, or auto (auto.c)
 *   2. extent    this rank's first and last file byte and its region count,
 *                by view arithmetic, without walking the request
 *                (summary.c); a fine-grained memory side is packed first
 *                (request.c)
 *   3. summary   one allgather (above 8 ranks a gather and a broadcast)
 *                of each rank's extent, bytes and regions
 *                (with bytes per target when the strategy needs them); with
 *                same_io_size and contiguous_data an allreduce that checks
 *                the claim replaces it and ranks compute each other's
 *                requests (summary.c); under auto the steady path may skip
 *                it and the selector picks (auto.c); above 8 ranks rank 0
 *                may pick on the gathered rows and send the choice, and
 *                the rows only where it needs them (summary.c)
 *   4. plan      the strategy's choices (coll_int.h, strategies/), agreed
 *                on by one allreduce that also carries a read's file size;
 *                a call of a strategy that always exchanges agrees on it
 *                at the exchange's setup instead (a read then has its
 *                file size from the summary, when the hints force the
 *                strategy)
 *   5. run       exchange rounds (exchange.c, pieces.c), which walk the
 *                request as runs contiguous in file and memory, in file
 *                order (request.c), and cut them into pieces per
 *                aggregator (O(own regions) memory; the only list ever
 *                built, and only when data goes through aggregators), or
 *                no exchange (modes.c): one datatype request per rank
 *                (direct), the independent chooser, ranks taking turns in
 *                groups (token), or agents prefetching before every rank
 *                reads its own data.  A read's exchange first cuts each
 *                rank's request at end of file (the size agreed by the
 *                summary or the plan's allreduce),
 *                so the rounds never touch a caller's bytes past what was
 *                read
 *   6. record    what this rank saw of the call, which rio__coll_last
 *                gathers, with the storage requests traced so it can tell
 *                the order in which each target saw them (trace.c)
 *   7. agree     one collective agrees on the error and carries the
 *                measurements the selector and the steady path settle on
 *                (auto.c); the call returns the agreed code
 *
 * The helpers live in the files of their concepts, declared in
 * coll_int.h; none of them calls back into this file.  A rank with
 * nothing to do (or with a local error) still takes part with an empty
 * request, so no collective waits for it.
 */
#include "coll_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * An aggregator holds the metadata of one round (RPIECE_BYTES per piece it
 * receives) next to the round buffer.  With tiny regions that could be
 * many times cb_buffer_size, so rounds are made short enough that the
 * expected metadata of a round, at the call's mean region density, fits in
 * cb_buffer_size too.  Done before planning: a plan may lay its domains
 * out by the round size.
 */
#define RPIECE_BYTES 64
static void limit_rounds(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    MPI_Offset regions = c->total_regions, span = c->max - c->min;
    if (regions <= 0 || span <= 0)
        return;
    double per_byte = (double)regions / (double)span;
    double cap =
        (double)rio__coll_settings(c->req->hints)->cb_buffer_size / (RPIECE_BYTES * per_byte);
    MPI_Offset grain = c->layout.known ? c->layout.unit : 4096;
    if (cap < (double)p->round_bytes) {
        MPI_Offset r = (MPI_Offset)cap / grain * grain;
        p->round_bytes = RIO_MAX(grain, r);
    }
}

/*
 * Below MULTIPLE a decided nonblocking call keeps its storage requests for
 * the I/O threads, which run them after the call returns; but an
 * aggregating strategy exchanges at issue, and writes each round's
 * collective buffer before it fills the next.  Such a call takes, in a
 * strategy where each rank serves itself, the candidate measured fastest
 * among those when it ran at least NEAR_SHARE of the decision's
 * throughput: then all its I/O waits for the threads.  At half the
 * speed it takes at most twice the decided call's time, hidden behind a
 * computation at least as long.  The overlap suite's collective writes
 * (512 MiB a rank, 2 ranks, asleep, both MPIs), decided on every_rank,
 * hid -7 to 3 % of their time, where direct, decided at 1 rank, hid 100
 * %; a shorter run of the same writes measured every_rank at 5675 MB/s,
 * direct at 6088 and independent at 4559.  Every rank switches alike:
 * the selector's state is the same on every rank.
 */
#define NEAR_SHARE 0.5

static int serves_alone(const char *name)
{
    const struct rio_coll_strategy *s = rio__coll_strategy_find(name);
    return s && s->alone;
}

static const struct rio_coll_strategy *own_for_later(struct rio_coll_ctx *ctx,
                                                     const struct rio_coll_strategy *chosen,
                                                     char *reason, size_t rlen,
                                                     const char **name)
{
    const char *own = rio__select_near(ctx->sel, &ctx->sig, serves_alone, NEAR_SHARE);
    const struct rio_coll_strategy *s = own ? rio__coll_strategy_find(own) : NULL;
    if (!s)
        return chosen;
    char why[96];
    snprintf(why, sizeof why, "; %s for a nonblocking call: each rank its own, later", s->name);
    size_t k = strlen(reason);
    if (k + 1 < rlen)
        rio__strcpy(reason + k, rlen - k, why);
    *name = s->name;
    return s;
}

/* One call on this rank, up to its agreement: rio__coll_rw without it.
 * Returns this rank's error.  *ahead (may_ahead: NULL otherwise) gets the
 * strategy the call ran ahead of its summary (auto.c), or NULL. */
static int run_call(struct rio_coll_ctx *ctx, const struct rio_coll_req *req, MPI_Offset *done,
                    int may_ahead, const struct rio_coll_strategy **ahead_out)
{
    struct rio_coll_call c;
    struct rio_coll_plan plan;
    /* why the call runs as it does, written where rio_coll_last reads it */
    char *reason = ctx->last.reason;
    const size_t rlen = sizeof ctx->last.reason;
    int rc = 0;
    double t_store0 = req->st->stats ? rio__stat_get_time(&req->st->stats->time_storage) : 0;

    memset(&c, 0, sizeof c);
    memset(&plan, 0, sizeof plan);
    *done = 0;
    c.ctx = ctx;
    c.req = req;
    c.rank = ctx->rank;
    c.nprocs = ctx->nprocs;
    c.size_max = -2;
    rio__store_layout(req->st, &c.layout);
    c.tg = (struct rio_coll_targets){.T = c.layout.count, .unit = c.layout.unit,
                                     .count = c.layout.count};
    int rpn = rio__coll_settings(req->hints)->ranks_per_node;
    if (rpn > 0) {
        for (int i = 0; i < c.nprocs; i++)
            ctx->node_virt[i] = i / rpn;
        c.node_of = ctx->node_virt;
        c.nnodes = (c.nprocs + rpn - 1) / rpn;
    } else {
        c.node_of = ctx->node_real;
        c.nnodes = ctx->nnodes_real;
    }
    rio__coll_gather_names(ctx, req->hints);
    c.names = ctx->names;

    const struct rio_coll_strategy *s = rio__coll_choose(req, reason, rlen);
    const char *name = s->name;
    int is_auto = s == rio__coll_strategy_auto();
    /* the clock is read (21 ns a read here) only where the selector
     * measures the call and itself */
    double t_start = is_auto ? rio__now() : 0;
    int selected = 0, keep = 0, unmeasured = 0;
    if (!ctx->sel) /* collective: every rank makes its first call here */
        rio__coll_make_selector(ctx, req->st, req->hints, &c.layout);
    /* once per call, before anything asks it: the root's pick in the
     * summary, the read ahead, the choice */
    if (is_auto && ctx->sel) {
        rio__select_configure(ctx->sel, req->hints);
        rio__select_hold(ctx->sel, req->uncapture || req->beside);
    }

    ctx->trace.n = 0;
    ctx->trace.dropped = 0;
    req->st->trace = &ctx->trace;

    struct rio_coll_req packed, clipped;
    struct rio_dtype *bytes = NULL;
    int is_packed = rio__coll_pack(ctx, req, &packed, &bytes);
    if (is_packed) {
        c.req = &packed;
        c.copies += req->nbytes; /* packed now, or unpacked at the end */
    }

    rio__coll_own_extent(&c);
    ctx->agree[0] = 0;
    ctx->agree[1] = ctx->agree[2] = RIO_COLL_NO_SHIFT;
    ctx->agree[3] = 0;
    /* one lookup per call: under auto the one the steady path keeps (the
     * selector then names it again, by the same string), or the choice's */
    struct rio_coll_pick kept = {NULL, NULL};
    const struct rio_coll_strategy *forced = is_auto ? NULL : s;
    double t_sel = is_auto ? rio__now() : 0;
    int steady = rio__coll_steady_path(ctx, &c, is_auto, forced, &kept); /* auto: with a selector */
    /* else a call under auto may run ahead of its summary (auto.c) */
    const struct rio_coll_strategy *ahead =
        !steady && is_auto && may_ahead ? rio__coll_ahead(ctx, req) : NULL;
    *ahead_out = ahead;
    struct rio_coll_root_pick pick = {.reason = reason, .rlen = rlen};
    if (!steady && !ahead) {
        rio__coll_targets(&c); /* first: the summary counts bytes per target */
        int may_compute = rio__coll_settings(req->hints)->same_io_size &&
                          rio__coll_settings(req->hints)->contiguous_data;
        /* a read that will exchange takes the file size along (its
         * agreement then rides on the exchange's setup, as a write's) */
        int want_size = !req->write && forced && forced->exchanges;
        /* under auto, rank 0 may choose before the rows go out, where this
         * kind of call (read or write) last ran a strategy that needs none */
        int at_root = is_auto && ctx->sel && ctx->pick_at_root[!!req->write];
        /* a strategy that needs a layout runs two_phase without one (below) */
        const struct rio_coll_strategy *runs =
            forced && forced->needs_layout && !c.layout.known ? rio__coll_strategy_fallback()
                                                               : forced;
        rc = rio__coll_summary(&c, c.layout.known, want_size, may_compute, runs,
                               at_root ? &pick : NULL);
        if (rc)
            goto out;
        if (is_auto)
            t_sel = rio__now();
    }
    const struct rio_coll_strategy *chosen = s; /* "auto": the fixed rules */
    if (is_auto && ctx->sel && !ahead) {
        if (steady) { /* the kept signature stands for the summary */
            name = rio__select_choose(ctx->sel, &ctx->sig, NULL, 0, reason, rlen);
            c.total = ctx->sig.bytes;
        } else {
            name = pick.name ? pick.name : rio__coll_select_auto(&c, reason, rlen);
        }
        selected = 1;
        chosen = name == kept.name ? kept.s : rio__coll_strategy_find(name);
        /* the next such call lets rank 0 choose where this one's rows were
         * not needed on every rank */
        ctx->pick_at_root[!!req->write] =
            chosen && (chosen->alone || (chosen->rows_at_aggs && !c.layout.known));
        rio__select_charge(ctx->sel, rio__now() - t_sel);
    }
    /* a nonblocking call that is decided, or held while re-examining
     * (rio__select_hold), is not measured; only such calls look it up */
    int decided = (req->uncapture || req->beside) && selected &&
                  (rio__select_held(ctx->sel) || rio__select_peek(ctx->sel, &ctx->sig));
    if (req->uncapture && decided && chosen && !chosen->alone)
        chosen = own_for_later(ctx, chosen, reason, rlen, &name);
    /* transfers kept for later: only where the selector does not measure
     * this call (else it measures it, transfers and all) */
    if (req->uncapture) {
        keep = !selected || decided;
        if (!keep && (rc = req->uncapture(req->st)) != 0)
            goto out;
    }
    /* a decided call beside the program is not measured (coll.h); a lane's
     * call ran a re-examined two_phase over 512 MiB in the overlap suite
     * (Open MPI, 2 ranks, MULTIPLE): 0.52 s of waiting where the chosen
     * strategy's round hid 95 % */
    unmeasured = keep || (req->beside && decided);
    rio__coll_keep_shape(ctx, &c);
    s = !is_auto ? forced : ahead ? ahead : chosen;
    if (!s) { /* a selector's name no strategy has (a profile of another version) */
        snprintf(reason, rlen, "unknown strategy '%s': two_phase", name ? name : "");
        s = rio__coll_strategy_fallback();
    }
    if (s->needs_layout && !c.layout.known) {
        snprintf(reason, rlen,
                 "%s needs a striping layout (striping_unit/striping_factor) and the file has "
                 "none: two_phase",
                 s->name);
        s = rio__coll_strategy_fallback();
    }
    plan.mode = RIO_COLL_EXCHANGE;
    plan.round_bytes = rio__coll_settings(req->hints)->cb_buffer_size; /* > 0: the key's table */
    if (c.sum) /* the summary's region count */
        limit_rounds(&c, &plan);
    double cpu0 = rio__cpu_now();
    rc = s->plan(&c, &plan);
    c.t_plan = rio__cpu_now() - cpu0;
    /* an exchanging read's file size, when a collective carried it (-2:
     * not yet); the plans, and so their modes, agree on every rank */
    MPI_Offset size_max = c.size_max;
    if (s->exchanges && (req->write || size_max > -2)) {
        /* Every rank whose plan succeeds exchanges (plans follow from the
         * summary), so a failure needs no agreement of its own: the failed
         * rank enters the exchange with an empty plan, and the exchange's
         * setup agreement, which every rank makes anyway, stops every
         * rank's rounds.  One collective fewer per write, and per read
         * whose summary brought the file size its pieces are cut by (a
         * forced strategy; under auto the plan's agreement carries it). */
        if (rc) {
            rio__coll_plan_free(&plan);
            plan = (struct rio_coll_plan){.mode = RIO_COLL_EXCHANGE, .failed = rc};
        }
    } else if (!s->alone) { /* plans follow from the summary; only allocation fails */
        int sized = !req->write && plan.mode == RIO_COLL_EXCHANGE;
        MPI_Offset mine[2] = {rc != 0, sized ? rio__coll_size_mine(&c) : -1}, any[2];
        MPI_Allreduce(mine, any, 2, RIO_MPI_OFFSET_SIGNED, MPI_MAX, ctx->comm);
        if (any[0]) {
            rc = rc ? rc : RIO_E_REMOTE;
            goto out;
        }
        size_max = any[1];
    }
    if (rc && !plan.failed)
        goto out;
    if (plan.reason[0]) {
        char both[2 * sizeof ctx->last.reason + 4];
        if (strcmp(reason, "default"))
            snprintf(both, sizeof both, "%s; %s", reason, plan.reason);
        else
            snprintf(both, sizeof both, "%s", plan.reason);
        snprintf(reason, rlen, "%.159s", both);
    }
    if (s->needs_layout && ctx->smap.failed) { /* said where it counts */
        char both[2 * sizeof ctx->last.reason + 4];
        snprintf(both, sizeof both, "%s; targets are stripe columns: %s", reason, ctx->smap.why);
        snprintf(reason, rlen, "%.159s", both);
    }

    int xrc;
    switch (plan.mode) {
    case RIO_COLL_EXCHANGE:
        if (!req->write) { /* collective: every rank's plan exchanges */
            /* Only what lies below end of file is read: MPI's receive
             * buffer rule (modify only the locations of the data
             * received), which the I/O chapter's data access conventions
             * point to.  Each rank cuts its request to those bytes before
             * it becomes pieces, so aggregators neither read nor ship
             * anything past the end, and the tail of the caller's buffer,
             * gaps of its memory type included, keeps its bytes.  The
             * summary and the plan stay those of the whole request: a
             * rank's pieces only become fewer, and it still sends every
             * aggregator the summary names its (possibly empty) metadata. */
            MPI_Offset size;
            rc = size_max > -2 ? rio__coll_size_agreed(&c, size_max, &size)
                               : rio__coll_file_size(&c, &size);
            clipped = *c.req;
            clipped.nbytes = rc ? 0 : rio__coll_readable(c.req, size);
            c.req = &clipped;
        }
        xrc = rio__coll_exchange(&c, &plan);
        if (!rc)
            rc = xrc;
        *done = c.req->nbytes;
        /* the bypassing ranks of a plan do their own I/O */
        if (plan.bypass && plan.bypass[c.rank]) {
            int brc = rio__coll_own_request(&c, RIO_INDEP_AUTO, done);
            if (!rc)
                rc = brc;
        }
        break;
    case RIO_COLL_DIRECT:
        /* writes: the dataloop straight to storage; reads may sieve (a
         * read of every second int is one window, not a call per int) */
        if (c.req->st->ops->write_view && c.req->st->ops->read_view)
            rc = rio__coll_direct_view(&c, done);
        else
            rc = rio__coll_own_request(&c, req->write ? RIO_INDEP_DTYPE : RIO_INDEP_AUTO, done);
        break;
    case RIO_COLL_INDEP:
        rc = rio__coll_own_request(&c, RIO_INDEP_AUTO, done);
        break;
    case RIO_COLL_TOKEN:
        rc = rio__coll_by_turns(&c, done);
        break;
    case RIO_COLL_PREFETCH:
        rc = rio__coll_prefetch_then_read(&c, &plan, done);
        break;
    }

out:
    req->st->trace = NULL;
    if ((selected || ahead) && !rc) { /* the agreement brings the slowest rank's time */
        ctx->agree[3] = (MPI_Offset)((rio__now() - t_start) * 1e9);
        ctx->call_total = c.total;
    }
    ctx->call_selected = selected;
    ctx->call_unmeasured = unmeasured;
    ctx->call_alone = s->alone;
    /* what this rank saw of the call; rio__coll_last completes it */
    struct rio_coll_info *L = &ctx->last; /* the per-target counts stay 0 */
    rio__strcpy(L->strategy, sizeof L->strategy, s->name);
    L->nprocs = c.nprocs;
    for (int a = 0; a < RIO_MAX(plan.naggs, L->naggs) && a < RIO_COLL_MAX_AGGS; a++)
        L->aggs[a] = a < plan.naggs ? plan.aggs[a] : 0;
    L->naggs = plan.naggs;
    L->storage_reqs = 0;
    L->rounds = plan.nrounds;
    L->bytes = req->nbytes;
    L->exchanged = c.exchanged;
    L->copies = c.copies;
    L->time_exchange = c.t_exchange;
    L->time_plan = c.t_plan;
    L->time_storage =
        req->st->stats ? rio__stat_get_time(&req->st->stats->time_storage) - t_store0 : 0;
    L->ntargets = c.tg.T;
    for (int t = 0; t < RIO_COLL_MAX_TARGETS; t++)
        L->target_server[t] = t < c.tg.T && c.tg.id ? c.tg.id[t] : -1;
    ctx->last_tg = c.tg;
    rio__coll_count_strategy(ctx, s->name);
    rio__coll_plan_free(&plan);
    free(c.sum);
    free(c.tbytes);
    if (is_packed) {
        int urc = rio__coll_unpack(ctx, req, bytes, *done);
        if (!rc)
            rc = urc;
    }
    return rc;
}

int rio__coll_rw(struct rio_coll_ctx **ctxp, const struct rio_coll_req *req,
                 struct rio_coll_result *res)
{
    int rc = 0;
    res->done = 0;
    if (!*ctxp) /* not made at open (deferred opens, or no memory then) */
        rc = rio__coll_create(req->comm, NULL, req->hints, ctxp);
    struct rio_coll_ctx *ctx = *ctxp; /* NULL on every rank or on none */
    const struct rio_coll_strategy *ahead = NULL;
    if (ctx)
        rc = run_call(ctx, req, &res->done, 1, &ahead);
    double t0 = rio__now();
    if (ahead) { /* its agreement tells whether the call stands */
        int again = 0, err = rio__coll_ahead_agree(ctx, req, rc, ahead, &again);
        if (!again) {
            res->own_err = rc;
            res->t_agree = rio__now() - t0;
            return err;
        }
        rc = run_call(ctx, req, &res->done, 0, &ahead);
        t0 = rio__now();
    }
    res->own_err = rc;
    /* the agreement: where a collective call waits for the slowest rank;
     * the engine's measurements ride on it */
    MPI_Offset vals[RIO_COLL_AGREE_VALS] = {0};
    if (ctx)
        memcpy(vals, ctx->agree, sizeof ctx->agree);
    int err = rio__agree_max(req->comm, req->err ? req->err : rc, vals, RIO_COLL_AGREE_VALS);
    if (ctx)
        rio__coll_settle(ctx, vals, err);
    res->t_agree = rio__now() - t0;
    return err;
}
