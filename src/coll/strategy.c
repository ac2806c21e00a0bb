/*
 * strategy.c — the table of strategies, auto's rules, and what the plans
 * share.
 *
 * The base code never names a strategy: it looks one up here by the name
 * in the resonio_strategy hint, or asks here which ones auto examines.
 * The table is built from strategies/list.h, so a name in it always has a
 * descriptor and its size is the capacity of every per-strategy array.
 * Each descriptor says what auto needs of it (needs a layout, serves each
 * rank alone, applies to this call, early in the examination); auto's
 * fixed rules are written once, in fixed_pick.  "auto" stands for the
 * measured selection of src/select; until a call has been measured it
 * applies the fixed rules: ranks whose requests are single regions in
 * rank order write their own data (unless romio_cb_write/romio_cb_read=
 * enable force collective buffering, as in ROMIO); a file with a striping
 * layout goes to resonant; anything else to every_rank where a node holds
 * several ranks and no hint chooses the aggregators, to two_phase
 * otherwise.  The examination starts with the same rules' pick, except
 * that reads and writes of large regions start with each rank's own
 * (rio__coll_auto_candidates).
 */
#include "coll_int.h"
#include "../common/cblist.h"
#include "../indep/indep.h" /* romio_ds_write, which two_phase also reads */

#include <stdlib.h>
#include <string.h>

#define RIO_STRATEGY(name) extern const struct rio_coll_strategy rio__strategy_##name;
#include "strategies/list.h"
#undef RIO_STRATEGY

static int auto_plan(const struct rio_coll_call *c, struct rio_coll_plan *p);

static const struct rio_coll_strategy strategy_auto = {
    .name = "auto",
    .wants_tbytes = 1,
    .plan = auto_plan,
};

static const struct rio_coll_strategy *const table[] = {
#define RIO_STRATEGY(name) &rio__strategy_##name,
#include "strategies/list.h"
#undef RIO_STRATEGY
};

/* The selector keeps every candidate's name in a public array of
 * RIO_SELECT_MAX_CAND names of 16 bytes (struct rio_select_info): a
 * strategy past either limit would be cut off there.  Raising them changes
 * the public ABI. */
_Static_assert(RIO_COLL_NSTRATEGIES == sizeof table / sizeof table[0], "list.h and table agree");
_Static_assert(RIO_COLL_NSTRATEGIES <= RIO_SELECT_MAX_CAND,
               "more strategies than struct rio_select_info has candidates");
#define RIO_STRATEGY(name)                                                                   \
    _Static_assert(sizeof #name <= sizeof((struct rio_select_info *)0)->cand[0],            \
                   "strategy name " #name " longer than struct rio_select_info keeps");
#include "strategies/list.h"
#undef RIO_STRATEGY

const struct rio_coll_strategy *rio__coll_strategy_find(const char *name)
{
    if (!name)
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i]->name[0] == name[0] && !strcmp(table[i]->name, name))
            return table[i];
    return !strcmp(strategy_auto.name, name) ? &strategy_auto : NULL;
}

int rio__coll_strategy_index(const char *name)
{
    for (int i = 0; name && i < RIO_COLL_NSTRATEGIES; i++)
        if (!strcmp(table[i]->name, name))
            return i;
    return -1;
}

const struct rio_coll_strategy *rio__coll_strategy_at(MPI_Offset k)
{
    return k >= 0 && k < RIO_COLL_NSTRATEGIES ? table[k] : NULL;
}

const struct rio_coll_strategy *rio__coll_strategy_fallback(void)
{
    return &rio__strategy_two_phase;
}

const struct rio_coll_strategy *rio__coll_strategy_auto(void)
{
    return &strategy_auto;
}

const struct rio_coll_strategy *rio__coll_strategy_unaggregated(void)
{
    return &rio__strategy_independent;
}

int rio_strategy_count(void)
{
    return RIO_COLL_NSTRATEGIES;
}

const char *rio_strategy_name(int i)
{
    return i >= 0 && i < RIO_COLL_NSTRATEGIES ? table[i]->name : NULL;
}

/* ---- auto ------------------------------------------------------------------------------ */

/* The examination starts with each rank's own (independent) for reads and
 * for writes of large regions, not only where the rules take it: a
 * program with few calls then spends its first calls on the likely
 * winner, and the examination prunes the others against it.  Aggregation
 * moves every byte twice; what it saves is storage requests, which reads
 * mostly save by sieving on their own.  Measured in one resonio-bench run
 * (Open MPI, 2 ranks, /dev/shm), independent against two_phase: reads 3.0
 * times as fast on 1 MiB regions (demo), 2.1 times on 64 KiB ones
 * (matrix), 1.5 times on 64-byte ones (noncontig elmtcount=16), 1.9 times
 * on 4-byte ones (ecio); writes of 1 MiB regions 1.24 times (demo), while
 * small writes need aggregation (ecio: 0.05 times). */
#define FIRST_INDEP_WRITE ((MPI_Offset)1 << 20)

/* Writes whose regions average under TINY_WRITE bytes, on storage without
 * datatype requests, would cost the strategies where each rank serves
 * itself one storage call per region: they are not examined at all, since
 * even one such call costs more than the examination saves (ecio's 4-byte
 * regions, one bench run: independent 7 MB/s, two_phase 134 MB/s).  Where
 * storage takes datatype requests (emu) direct is one request per target
 * and stays a candidate. */
#define TINY_WRITE 512

/*
 * auto's fixed rules, the one place they are written: the strategy they
 * take for c, and in *why (static text) the reason.  examining: the rule
 * for the examination's first candidate, where each rank serves its own
 * also for reads and for writes of large regions (FIRST_INDEP_WRITE), and
 * romio_cb_* =enable is not looked at: there the strategies that serve
 * each rank alone are no candidates, so that pick moves nothing and the
 * table's order stands.
 */
static const struct rio_coll_strategy *fixed_pick(const struct rio_coll_call *c, int examining,
                                                  const char **why)
{
    int single = 1;
    for (int i = 0; i < c->nprocs && single; i++)
        single = c->sum[i].bytes <= 0 || c->sum[i].regions <= 1;
    MPI_Offset regions = c->total_regions;
    const struct rio_coll_settings *h = rio__coll_settings(c->req->hints);
    int own;
    if (examining) {
        MPI_Offset mean = regions > 0 ? c->total / regions : 0;
        own = (c->nonoverlap && single) || !c->req->write || mean >= FIRST_INDEP_WRITE;
    } else {
        int cb_forced = (c->req->write ? h->romio_cb_write : h->romio_cb_read) == RIO_ENABLE;
        own = c->nonoverlap && single && !cb_forced;
    }
    if (own) {
        *why = "auto: every request is one region, in rank order: each rank its own";
        return &rio__strategy_independent;
    }
    if (c->layout.known && c->layout.count > 1) {
        *why = "auto: striped file: resonant";
        return &rio__strategy_resonant;
    }
    if (rio__coll_every_rank_rule(c)) {
        *why = "auto: several ranks per node: every_rank";
        return &rio__strategy_every_rank;
    }
    *why = "auto: two_phase";
    return &rio__strategy_two_phase;
}

static int auto_plan(const struct rio_coll_call *c, struct rio_coll_plan *p)
{
    const char *why;
    const struct rio_coll_strategy *s = fixed_pick(c, 0, &why);
    snprintf(p->reason, sizeof p->reason, "%s", why);
    return s->plan(c, p);
}

/*
 * Where a node holds several ranks, ROMIO's one aggregator per node leaves
 * the others idle while it receives, copies and writes the node's data;
 * every_rank shares that work.  A hint that chooses the aggregators
 * (cb_nodes, cb_config_list) keeps two_phase, which follows it as ROMIO
 * does.  So does a call of more than EVERY_RANK_RULE_RANKS ranks: with
 * every rank an aggregator each rank sends its metadata to every other,
 * and the messages per rank grow with the ranks.  Counted per rank and
 * write (resonio-bench --suite scale, Open MPI, 16 ranks a host, demo),
 * every_rank against two_phase and native: 25.9 / 14.8 / 17.9 at 16
 * ranks, 40.9 / 18.9 / 21.9 at 32, 104 / 14.9 / 20 at 128.  Past it
 * every_rank is still a candidate the selector measures, not its first.
 */
#define EVERY_RANK_RULE_RANKS 16

int rio__coll_every_rank_rule(const struct rio_coll_call *c)
{
    const struct rio_coll_settings *h = rio__coll_settings(c->req->hints);
    return c->nnodes < c->nprocs && c->nprocs <= EVERY_RANK_RULE_RANKS && h->cb_nodes <= 0 &&
           !h->cb_config_list;
}

static int tiny_region_writes(const struct rio_coll_call *c)
{
    MPI_Offset regions = c->total_regions;
    return c->req->write && !c->req->st->ops->write_view && regions > 0 &&
           c->total / regions < TINY_WRITE;
}

int rio__coll_auto_candidates(const struct rio_coll_call *c, const char **cands)
{
    const struct rio_coll_req *req = c->req;
    enum rio_tristate cb = req->write ? rio__coll_settings(req->hints)->romio_cb_write
                                      : rio__coll_settings(req->hints)->romio_cb_read;
    int tiny_writes = tiny_region_writes(c);
    const char *why;
    const struct rio_coll_strategy *first = fixed_pick(c, 1, &why);
    /* rank 0: the rules' pick, 1: early, 2: the rest; each rank in the
     * table's order */
    const struct rio_coll_strategy *took[RIO_COLL_NSTRATEGIES];
    int rank[RIO_COLL_NSTRATEGIES], n = 0;
    for (int k = 0; k < RIO_COLL_NSTRATEGIES; k++) {
        const struct rio_coll_strategy *s = table[k];
        if (s->needs_layout && !c->layout.known)
            continue; /* cannot apply */
        if (cb == RIO_ENABLE && s->alone)
            continue; /* collective buffering was asked for */
        if (tiny_writes && s->alone)
            continue; /* a storage call per few bytes: not worth one examined call */
        if (s->applies && !s->applies(c))
            continue;
        took[n] = s;
        rank[n++] = s == first ? 0 : s->early && s->early(c) ? 1 : 2;
    }
    int m = 0;
    for (int r = 0; r <= 2; r++)
        for (int k = 0; k < n; k++)
            if (rank[k] == r)
                cands[m++] = took[k]->name;
    return m;
}

/* ---- plans --------------------------------------------------------------------------- */

int rio__coll_plan_alloc(struct rio_coll_plan *p, int naggs)
{
    p->aggs = rio__calloc((size_t)(naggs ? naggs : 1), sizeof *p->aggs);
    p->dom = rio__calloc((size_t)(naggs ? naggs : 1), sizeof *p->dom);
    if (!p->aggs || !p->dom)
        return RIO_E_NOMEM; /* naggs stays 0: nothing to walk */
    p->naggs = naggs;
    for (int a = 0; a < naggs; a++)
        p->dom[a].node = -1;
    return 0;
}

int rio__coll_even_domains(const struct rio_coll_call *c, struct rio_coll_plan *p,
                           const int *aggs, int n)
{
    int rc = rio__coll_plan_alloc(p, n);
    if (rc)
        return rc;
    MPI_Offset span = c->max - c->min, size = (span + n - 1) / n, base = c->min;
    if (c->layout.known && c->layout.unit > 0) {
        MPI_Offset u = c->layout.unit;
        base = c->min / u * u;
        size = ((c->max - base + n - 1) / n + u - 1) / u * u;
    }
    if (size <= 0)
        size = 1;
    for (int a = 0; a < n; a++) {
        p->aggs[a] = aggs[a];
        p->dom[a].kind = RIO_DOM_RANGE;
        p->dom[a].start = RIO_MIN(RIO_MAX(base + (MPI_Offset)a * size, c->min), c->max);
        p->dom[a].end = RIO_MIN(base + (MPI_Offset)(a + 1) * size, c->max);
        if (p->dom[a].end < p->dom[a].start)
            p->dom[a].end = p->dom[a].start;
    }
    enum rio_tristate ds_write = rio__indep_settings(c->req->hints)->romio_ds_write;
    if (ds_write == RIO_ENABLE || rio__coll_settings(c->req->hints)->ds_in_coll == RIO_ENABLE)
        p->rmw = RIO_RMW_ALWAYS;
    else
        p->rmw = ds_write == RIO_DISABLE ? RIO_RMW_NEVER : RIO_RMW_SMALL;
    return 0;
}

void rio__coll_plan_free(struct rio_coll_plan *p)
{
    if (p->dom)
        for (int a = 0; a < p->naggs; a++) {
            free(p->dom[a].targets);
            rio__coll_domain_free(&p->dom[a]);
        }
    free(p->dom);
    free(p->aggs);
    free(p->bypass);
    free(p->prev_agent);
    p->dom = NULL;
    p->aggs = NULL;
    p->bypass = NULL;
    p->prev_agent = NULL;
}

int rio__coll_dom_targets(struct rio_coll_domain *d, const int *targets, int n, int ngroup,
                          int member, MPI_Offset start, MPI_Offset end)
{
    d->kind = RIO_DOM_TARGETS;
    d->targets = rio__malloc(sizeof(int) * (size_t)n);
    if (!d->targets)
        return RIO_E_NOMEM;
    memcpy(d->targets, targets, sizeof(int) * (size_t)n);
    d->ntargets = n;
    d->ngroup = ngroup;
    d->member = member;
    d->chunk = 1;
    d->start = start;
    d->end = RIO_MAX(start, end);
    d->node = -1;
    return 0;
}

/* ---- ROMIO's aggregator choice --------------------------------------------------------- */

/* cb_config_list's syntax and how its entries apply: common/cblist.h. */

/* qsort's order of ints. */
static int cmp_int(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return (a > b) - (a < b);
}

/* Each node's ranks in rank order: node d's are byn[start[d]] up to
 * byn[start[d + 1]] (ranks outside the node map in none).  O(P).  Local;
 * RIO_E_NOMEM. */
struct node_lists {
    int *start, *byn;
};

static void node_lists_free(struct node_lists *l)
{
    free(l->start);
    free(l->byn);
}

static int node_lists(const struct rio_coll_call *c, struct node_lists *l)
{
    int P = c->nprocs, nn = c->nnodes > 0 ? c->nnodes : 0;
    l->start = rio__calloc((size_t)nn + 1, sizeof *l->start);
    l->byn = rio__malloc(sizeof *l->byn * (size_t)(P > 0 ? P : 1));
    if (!l->start || !l->byn) {
        node_lists_free(l);
        return RIO_E_NOMEM;
    }
    int *start = l->start;
    for (int i = 0; i < P; i++)
        if (c->node_of[i] >= 0 && c->node_of[i] < nn)
            start[c->node_of[i] + 1]++;
    for (int d = 0; d < nn; d++)
        start[d + 1] += start[d];
    for (int i = 0; i < P; i++) /* start[d] moves to node d's end ... */
        if (c->node_of[i] >= 0 && c->node_of[i] < nn)
            l->byn[start[c->node_of[i]]++] = i;
    for (int d = nn; d > 0; d--) /* ... and back */
        start[d] = start[d - 1];
    start[0] = 0;
    return 0;
}

/* Aggregators by the list (ROMIO's ADIOI_cb_config_list_parse over nodes),
 * at most cap, in the order the entries take them; taken holds an int a
 * node, zeroed, l the nodes' ranks.  Returns the count. */
static int from_list(const struct rio_coll_call *c, const char *list, int cap, int *aggs,
                     int *taken, const struct node_lists *l)
{
    int n = 0, rc;
    struct rio_cblist_entry e;
    if (!strcmp(list, "*:*")) { /* ROMIO: the first cb_nodes ranks */
        for (n = 0; n < cap; n++)
            aggs[n] = n;
        return n;
    }
    const char *p = list;
    while (n < cap && (rc = rio__cblist_next(&p, &e)) > 0) {
        int max = e.max < 0 ? cap : e.max;
        for (int node = 0; node < c->nnodes && n < cap; node++) {
            const int *rk = l->byn + l->start[node];
            int nr = l->start[node + 1] - l->start[node];
            if (taken[node] || nr == 0)
                continue;
            if (e.name) { /* the node's name: its lowest rank's */
                const char *nm = c->names ? c->names + (size_t)rk[0] * RIO_COLL_NAME_LEN : "";
                if (strlen(nm) != e.len || strncmp(nm, e.name, e.len))
                    continue;
            }
            taken[node] = 1;
            for (int k = 0; k < nr && k < max && n < cap; k++)
                aggs[n++] = rk[k];
        }
    }
    return n;
}

int rio__coll_romio_aggs(const struct rio_coll_call *c, int **out, char *note, size_t len)
{
    const struct rio_coll_settings *h = rio__coll_settings(c->req->hints);
    int P = c->nprocs;
    int *aggs = rio__malloc(sizeof *aggs * (size_t)P);
    int n = 0, names_host = 0;
    *out = NULL;
    if (!aggs)
        return RIO_E_NOMEM;
    int cap = h->cb_nodes > 0 ? RIO_MIN(h->cb_nodes, P) : P;
    if (h->cb_config_list && !rio__cblist_check(h->cb_config_list, &names_host)) {
        int *taken = rio__calloc((size_t)(c->nnodes > 0 ? c->nnodes : 1), sizeof *taken);
        struct node_lists l = {NULL, NULL};
        if (!taken || node_lists(c, &l)) {
            free(taken);
            free(aggs);
            return RIO_E_NOMEM;
        }
        n = from_list(c, h->cb_config_list, cap, aggs, taken, &l);
        free(taken);
        node_lists_free(&l);
        if (n > 0) {
            *out = aggs;
            return n;
        }
        /* ROMIO fails the open ("No aggregators match"); resonio ignores
         * the list, as it ignores a hint it cannot honour, and says so */
        if (note && len)
            snprintf(note, len, "cb_config_list=%.100s names no aggregator: ignored",
                     h->cb_config_list);
    }
    /* without a list: cb_nodes aggregators when given, else one per node */
    n = rio__coll_spread_aggs(c, h->cb_nodes > 0 ? cap : -1, aggs);
    if (n < 0)
        free(aggs);
    else
        *out = aggs;
    return n;
}

/* Contract in coll_int.h.  Each node's ranks are put in a list of their
 * own once, and a round takes the next rank of each node that has one
 * left: O(P) in all.  Scanning every rank for each node and round, as
 * this did, cost want x P steps a call (two_phase: nodes x P, 10^6 at
 * 1024 ranks on as many hosts). */
int rio__coll_spread_aggs(const struct rio_coll_call *c, int want, int *aggs)
{
    int P = c->nprocs, nn = c->nnodes > 0 ? c->nnodes : 0, n = 0;
    int one_round = want < 0; /* one per node */
    if (want < 0 || want > P)
        want = P;
    struct node_lists l = {NULL, NULL};
    int *live = rio__malloc(sizeof *live * (size_t)(nn + 1)); /* nodes with ranks left, in order */
    if (!live || node_lists(c, &l)) {
        free(live);
        return RIO_E_NOMEM;
    }
    const int *start = l.start, *byn = l.byn;
    int nlive = 0;
    for (int d = 0; d < nn; d++)
        if (start[d] < start[d + 1])
            live[nlive++] = d;
    for (int k = 0; n < want && nlive > 0; k++) {
        int kept = 0;
        for (int v = 0; v < nlive && n < want; v++) {
            int d = live[v];
            aggs[n++] = byn[start[d] + k];
            if (start[d] + k + 1 < start[d + 1])
                live[kept++] = d;
        }
        if (one_round)
            break;
        nlive = kept;
    }
    node_lists_free(&l);
    free(live);
    qsort(aggs, (size_t)n, sizeof *aggs, cmp_int);
    return n;
}
