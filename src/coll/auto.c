/*
 * auto.c — which strategy serves a call, and what the selector learns.
 *
 * The hints name a strategy, or "auto", or forbid aggregation (atomic
 * mode, romio_cb_*=disable): rio__coll_choose.  Under auto the file's
 * selector (src/select; made once per file, keyed by the storage driver
 * and layout) picks among the candidates strategy.c's rules give, by the
 * call's signature.  The steady path lets a call skip the summary when
 * the last call's choice stands and each rank's request only moved; the
 * agreement at the end of the call tells every rank whether it did, and
 * rio__coll_settle gives the selector the call's throughput.  Every
 * decision here is the same on every rank: it follows from hints, the
 * summary and agreed values.
 */
#include "coll_int.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The strategy the hints ask for: the unaggregated one for atomic mode and
 * romio_cb_*=disable, the one resonio_strategy names, or auto; a name no
 * strategy has falls back to two_phase and reason says so. */
const struct rio_coll_strategy *rio__coll_choose(const struct rio_coll_req *q, char *reason,
                                                 size_t n)
{
    const struct rio_coll_settings *h = rio__coll_settings(q->hints);
    enum rio_tristate cb = q->write ? h->romio_cb_write : h->romio_cb_read;
    if (q->atomic) {
        snprintf(reason, n, "atomic mode: each rank locks and accesses its own data");
        return rio__coll_strategy_unaggregated();
    }
    if (cb == RIO_DISABLE) { /* as every call: no snprintf */
        rio__strcpy(reason, n, q->write ? "romio_cb_write=disable" : "romio_cb_read=disable");
        return rio__coll_strategy_unaggregated();
    }
    const struct rio_coll_strategy *s = rio__coll_strategy_auto();
    if (h->strategy && strcmp(h->strategy, s->name)) {
        s = rio__coll_strategy_find(h->strategy);
        if (!s) {
            snprintf(reason, n, "unknown resonio_strategy '%s': two_phase", h->strategy);
            return rio__coll_strategy_fallback();
        }
        size_t k = strlen("resonio_strategy=");
        rio__strcpy(reason, n, "resonio_strategy=");
        if (k < n)
            rio__strcpy(reason + k, n - k, h->strategy);
        return s;
    }
    rio__strcpy(reason, n, "default");
    return s;
}

/* The selector of the file, keyed by the storage's driver and layout.
 * Collective (rank 0 reads the profile).  Without memory the fixed rules
 * of "auto" serve. */
void rio__coll_make_selector(struct rio_coll_ctx *ctx, struct rio_store *st,
                          const struct rio_hints *h, const struct rio_layout *l)
{
    char storage[64];
    if (l->known)
        snprintf(storage, sizeof storage, "%s:%lldx%d", st->ops->name, l->unit, l->count);
    else
        snprintf(storage, sizeof storage, "%s:none", st->ops->name);
    if (rio__select_create(ctx->comm, h, storage, &ctx->sel))
        ctx->sel = NULL;
}

/* The selector's choice for a call whose summary is in: the applicable
 * candidates, the rules' pick first, and the call's signature, which the
 * context keeps for the steady path. */
const char *rio__coll_select_auto(struct rio_coll_call *c, char *reason, size_t len)
{
    const char *cands[RIO_COLL_NSTRATEGIES];
    int ncand = rio__coll_auto_candidates(c, cands);
    return rio__coll_select_among(c, cands, ncand, reason, len);
}

/* A call's signature, from all ranks' bytes and regions and the extent
 * [min, max) of their requests. */
static struct rio_sel_sig signature(int write, int nprocs, MPI_Offset total, MPI_Offset regions,
                                    MPI_Offset min, MPI_Offset max)
{
    return (struct rio_sel_sig){
        .write = !!write, .nprocs = nprocs, .bytes = total, .regions = regions,
        .relgap = regions > 1 ? ((max - min) - total) / (regions - 1) : 0,
    };
}

/* Contract in coll_int.h. */
const char *rio__coll_select_among(struct rio_coll_call *c, const char *const *cands, int ncand,
                                   char *reason, size_t len)
{
    struct rio_coll_ctx *ctx = c->ctx;
    ctx->sig = signature(c->req->write, c->nprocs, c->total, c->total_regions, c->min, c->max);
    return rio__select_choose(ctx->sel, &ctx->sig, cands, ncand, reason, len);
}

/*
 * The steady path skips the summary.  A strategy the hints force where
 * each rank serves itself needs none.  Under "auto", the last call must
 * have kept (agreed in rio__coll_settle) a signature whose chosen
 * strategy is such a one: the signature is then assumed again.  Each rank
 * checks its own share of the assumption — the same bytes, regions and
 * span as last time, moved by a distance it reports — and the agreement
 * tells whether all kept it; a call that did not has still moved its
 * bytes correctly (any request can be served that way) and only goes
 * unmeasured.  The same decision on every rank: it follows from hints,
 * agreed values and the selector's state.
 */
int rio__coll_steady_path(struct rio_coll_ctx *ctx, const struct rio_coll_call *c, int is_auto,
                          const struct rio_coll_strategy *forced, struct rio_coll_pick *kept)
{
    if (!is_auto) /* forced: a strategy of the table (an unknown name fell back) */
        return forced && forced->alone;
    if (!ctx->steady || !ctx->sel || c->req->write != ctx->sig.write)
        return 0;
    kept->name = rio__select_peek(ctx->sel, &ctx->sig);
    kept->s = kept->name ? rio__coll_strategy_find(kept->name) : NULL;
    if (!kept->s || !kept->s->alone)
        return 0;
    const MPI_Offset *o = ctx->own;
    MPI_Offset bytes = c->req->nbytes;
    if (bytes != o[0] || c->regions != o[1] || c->end - c->first != o[2])
        ctx->agree[0] = 1;
    else if (bytes > 0) {
        ctx->agree[1] = c->first - o[3];
        ctx->agree[2] = o[3] - c->first;
    }
    return 1;
}

/* This call's shape, for the next call's steady path. */
void rio__coll_keep_shape(struct rio_coll_ctx *ctx, const struct rio_coll_call *c)
{
    ctx->own[0] = c->req->nbytes;
    ctx->own[1] = c->regions;
    ctx->own[2] = c->end - c->first;
    ctx->own[3] = c->first;
}

/*
 * Running ahead.  A call under auto whose kind (read or write) the
 * selector has decided to serve with a strategy where each rank serves
 * its own request (every decision for the kind on this many ranks names
 * it) runs that strategy at once, before anything is known of the other
 * ranks' requests.  The agreement then carries, besides the outcome, what
 * the signature needs: the ranks' bytes and regions summed and the ends
 * of their extents.  Every rank checks that the decision for that
 * signature is the strategy that ran; then the call is measured and done
 * in one collective, where the summary, the choice's broadcast and the
 * agreement take three (a program that writes or reads each file once: a
 * checkpoint and its restart, the flash pattern).  Otherwise the call
 * runs again the usual way: a second read replaces what the first one
 * gave, and a second write puts the same bytes where the first put them
 * (ranks whose writes overlap leave one rank's bytes there either way, as
 * the standard allows outside atomic mode, which never runs under auto).
 */
const struct rio_coll_strategy *rio__coll_ahead(struct rio_coll_ctx *ctx,
                                                const struct rio_coll_req *req)
{
    /* the same on every rank: hints, the kind of call, the selector's
     * state; a call that captures its transfers or runs beside the program
     * is measured its own way */
    const struct rio_coll_settings *h = rio__coll_settings(req->hints);
    if (req->uncapture || req->beside || !ctx->sel ||
        (req->write ? h->romio_cb_write : h->romio_cb_read) == RIO_ENABLE)
        return NULL;
    const struct rio_coll_strategy *s =
        rio__coll_strategy_find(rio__select_predict(ctx->sel, !!req->write, ctx->nprocs));
    return s && s->alone ? s : NULL;
}

/* Contract in coll_int.h. */
int rio__coll_ahead_agree(struct rio_coll_ctx *ctx, const struct rio_coll_req *req, int rc,
                          const struct rio_coll_strategy *s, int *again)
{
    /* maxima: nanoseconds, the extent's negated first byte and its end;
     * sums: bytes, regions (rio__coll_keep_shape has this rank's) */
    const MPI_Offset *o = ctx->own;
    int some = o[0] > 0;
    MPI_Offset v[5] = {ctx->agree[3], some ? -o[3] : LLONG_MIN, some ? o[3] + o[2] : 0, o[0],
                       o[1]};
    int err = rio__agree_max_sum(ctx->comm, req->err ? req->err : rc, v, 5);
    *again = 0;
    ctx->steady = 0;
    if (err)
        return err;
    MPI_Offset total = v[3];
    struct rio_sel_sig sig =
        signature(req->write, ctx->nprocs, total, v[4], v[1] == LLONG_MIN ? 0 : -v[1], v[2]);
    double t0 = rio__now();
    if (!rio__select_choose_known(ctx->sel, &sig, s->name, ctx->last.reason,
                                  sizeof ctx->last.reason)) {
        *again = 1;
        return 0;
    }
    rio__select_charge(ctx->sel, rio__now() - t0);
    ctx->sig = sig;
    ctx->call_selected = 1;
    ctx->call_unmeasured = 0;
    ctx->call_alone = 1;
    ctx->call_total = total;
    ctx->pick_at_root[!!req->write] = 1;
    MPI_Offset vals[RIO_COLL_AGREE_VALS] = {0, RIO_COLL_NO_SHIFT, RIO_COLL_NO_SHIFT, v[0]};
    rio__coll_settle(ctx, vals, 0);
    return 0;
}

/* The call's outcome, agreed (the same vals and err on every rank): the
 * selector gets its throughput, and the next call learns whether it may
 * skip the summary. */
void rio__coll_settle(struct rio_coll_ctx *ctx, const MPI_Offset *vals, int err)
{
    int kept = !vals[0] && (vals[1] == RIO_COLL_NO_SHIFT || vals[1] == -vals[2]);
    double t = (double)vals[3] / 1e9;
    if (ctx->call_selected && ctx->sel && !ctx->call_unmeasured)
        rio__select_record(ctx->sel, !err && kept && t > 0 ? (double)ctx->call_total / t : 0);
    ctx->steady = !err && kept && ctx->call_selected && ctx->call_alone;
    ctx->call_selected = 0;
    ctx->call_unmeasured = 0;
}

/* Contract in coll.h. */
int rio__coll_select_info(const struct rio_coll_ctx *ctx, int i, struct rio_select_info *out,
                          int *count)
{
    const struct rio_select *sel = ctx ? ctx->sel : NULL;
    if (count)
        *count = rio__select_count(sel);
    return out ? rio__select_get(sel, i, out) : 0;
}
