/*
 * coll_int.h — private declarations of the collective engine.
 *
 * A call goes through the skeleton in coll.c, which calls each concept in
 * its own file and nothing calls back into it: context.c (the per-file
 * state), request.c (this rank's request: packing, pairs, end of file),
 * summary.c (every rank's extent), auto.c (hint to strategy, selector,
 * steady path, settling the agreed outcome), strategy.c and strategies/
 * (the plans), exchange.c and pieces.c (rounds, for strategies that
 * aggregate), modes.c (the modes without exchange) and trace.c (what the
 * last call did).  The declarations below come in sections per file.  A
 * strategy fills a plan: which ranks aggregate and which file bytes each
 * one handles (its domain).  Domains come in two kinds:
 *
 *   RANGE    the file bytes [start, end); a domain's coordinate of a byte
 *            is its file offset.
 *   TARGETS  the stripes of some targets of the layout, within [start,
 *            end): stripe s (target s % count, row s / count) belongs when
 *            its target is in targets[] and (row / chunk) % ngroup ==
 *            member: a target's rows are dealt to the members of its
 *            group in runs of chunk rows.  The
 *            coordinate of a byte counts only the domain's bytes, in file
 *            order, so a domain's bytes are a dense coordinate range and a
 *            round (a slice of round_bytes coordinates) maps to one
 *            aggregator buffer.
 *
 * A RANGE domain may be limited to the requesters of one node (node >= 0):
 * the node_first strategy.  Rounds: round r of aggregator a covers the
 * coordinates [cbase + r * round_bytes, cbase + (r + 1) * round_bytes);
 * every rank can compute which rounds of which aggregators its bytes fall
 * into, and whether it takes part in one (its extent meets the round's
 * file span), so no counts are exchanged per round.
 */
#ifndef RIO_COLL_INT_H
#define RIO_COLL_INT_H

#include "coll.h"
#include "../common/agree.h"
#include "../indep/indep.h"
#include "../select/select.h"

#include <limits.h>
#include <stdio.h>

#define RIO_COLL_NAME_LEN MPI_MAX_PROCESSOR_NAME

/* The engine's hints (keys in settings.c). */
struct rio_coll_settings {
    long long cb_buffer_size;       /* a round's bytes per aggregator (16 MiB) */
    int cb_nodes;                   /* 0 = default (one per node) */
    enum rio_tristate romio_cb_read, romio_cb_write;
    char *cb_config_list;           /* owned; NULL if unset */
    char *strategy;                 /* resonio_strategy, owned; NULL = default */
    int ranks_per_node;             /* resonio_ranks_per_node: 0 = real nodes */
    /* the Lustre driver's keys */
    int co;                         /* CO: aggregators per target (default 1) */
    long long big_req_size;         /* requests this large bypass aggregation; 0 = never */
    enum rio_tristate ds_in_coll;   /* read-modify-write holes in collective writes */
    int same_io_size;               /* every rank's request has the same size */
    int contiguous_data;            /* every rank's request is one file region */
    enum rio_tristate shm;          /* resonio_shm: move node-local data through an MPI-3
                                       shared-memory window */
    long long bytes_per_agg;        /* resonio_bytes_per_agg: sized's bytes per
                                       aggregator (32 MiB) */
    int ranks_per_agg;              /* resonio_ranks_per_agg: sized's ranks per aggregator
                                       at most, on a call in rank order (8; 0: none) */
};
/** The engine's settings in h (its defaults when h is NULL or has no
 *  owners); lives as long as h. */
static inline const struct rio_coll_settings *rio__coll_settings(const struct rio_hints *h)
{
    return rio__settings_get(h, &rio__coll_settings_owner);
}

/* Runs of this rank's request, each contiguous in the file and in
 * memory: count runs of len bytes, the k-th at file offset foff + k *
 * fstride and at mem + k * mstride.  count > 1 only with fstride > len
 * (runs that neither touch nor overlap in the file, in ascending order). */
struct rio_coll_pair {
    MPI_Offset foff, len;
    char *mem;
    MPI_Offset count, fstride, mstride;
};

/* What every rank knows of rank i's request. */
struct rio_coll_sum {
    MPI_Offset first, end; /* file extent, [first, end); first == end: nothing */
    MPI_Offset bytes;
    MPI_Offset regions;
};

enum rio_coll_mode {
    RIO_COLL_EXCHANGE, /* aggregators, rounds */
    RIO_COLL_DIRECT,   /* each rank one datatype request */
    RIO_COLL_INDEP,    /* each rank the independent chooser */
    RIO_COLL_TOKEN,    /* each rank its own data, in rank order per target */
    RIO_COLL_PREFETCH, /* reads: agents prefetch their targets, then each rank reads */
};

enum rio_coll_dom_kind { RIO_DOM_RANGE, RIO_DOM_TARGETS };

/* The call's targets (servers.c).  Without a map (spo 0) target t is
 * stripe column t.  With one, stripe s (row s / count, column s % count)
 * is on the target of its object, object set row / spo, and target t is
 * the server id[t]. */
struct rio_coll_targets {
    int T;                   /* targets */
    MPI_Offset unit;
    int count;               /* stripe columns */
    MPI_Offset spo;          /* stripe rows per object set; 0: no map */
    MPI_Offset nsets;        /* object sets mapped */
    const int *of;           /* nsets x count: the target of each object */
    const int *id;           /* T: each target's server; NULL without a map */
};

/* A file's map from object to server, kept by the context; the same on
 * every rank. */
struct rio_coll_smap {
    long long nobjects;      /* objects mapped: 0 .. nobjects-1 */
    int *server;             /* server of each object */
    int *dense;              /* its target number */
    int *ids;                /* T distinct servers, ascending */
    int T;
    int failed;              /* no map for this file: stripe columns */
    char why[96];
};

/* A TARGETS domain's tables over a server map (pieces.c): object sets
 * k0 .. k0+nk-1 of the domain's extent. */
struct rio_coll_dmap {
    MPI_Offset k0, nk;
    int *m;                  /* nk: the domain's columns in each set */
    int *lt;                 /* nk x count: the domain's columns left of a column */
    int *cols;               /* nk x count: the domain's columns, the first m[k] */
    MPI_Offset *pre;         /* nk + 1: the domain's stripes before each set */
};

struct rio_coll_domain {
    enum rio_coll_dom_kind kind;
    MPI_Offset start, end;   /* file bytes the domain may hold */
    int node;                /* RANGE: requesters of this node only; -1 all */
    int ntargets;            /* TARGETS */
    int *targets;            /* sorted; owned by the plan */
    int ngroup, member;
    MPI_Offset chunk;        /* rows come in runs of chunk: the run r belongs to member
                                r % ngroup (1: rows in turn) */
    MPI_Offset cbase, cend;  /* coordinates of the domain's bytes (set by the engine) */
    struct rio_coll_dmap *map; /* TARGETS over a server map (set by the engine) */
};

/* How an aggregator writes a round whose pieces leave holes: list I/O
 * writes only the pieces; read-modify-write reads the round's span and
 * writes it whole, one request each (ROMIO's collective writes always do).
 * Only for domains no other aggregator writes into. */
enum rio_coll_rmw {
    RIO_RMW_NEVER = 0, /* list I/O */
    RIO_RMW_ALWAYS,    /* read-modify-write every round with holes */
    RIO_RMW_SMALL,     /* read-modify-write where the holes are small */
};

struct rio_coll_plan {
    enum rio_coll_mode mode;
    int naggs;
    int *aggs;                    /* rank of each aggregator */
    struct rio_coll_domain *dom;  /* domain of each aggregator */
    MPI_Offset round_bytes;       /* coordinates per round per aggregator */
    int nrounds;                  /* set by the engine */
    enum rio_coll_rmw rmw;        /* writes: how rounds with holes are written */
    int failed;                   /* this rank's plan failed (its error, the plan emptied):
                                     the exchange takes part in its collectives, reports
                                     the failure at its setup and makes no rounds */
    int *bypass;                  /* per rank, may be NULL: does its own I/O */
    int *prev_agent;              /* per aggregator, may be NULL: the aggregator that must
                                     issue before this one in each round (timed agents);
                                     member 0 of a group names the last member, whose
                                     previous round it follows */
    char reason[160];
};

/* Everything about the current call on this rank. */
struct rio_coll_call {
    struct rio_coll_ctx *ctx;
    const struct rio_coll_req *req;
    int rank, nprocs;
    struct rio_layout layout;
    struct rio_coll_targets tg;   /* the layout's targets (servers.c) */
    MPI_Offset first, end;        /* own request's first and one-past-last file byte */
    MPI_Offset regions;           /* own file regions, counted from the filetype */
    int one_at_a_time;            /* the ranks' own requests are made in turn, never two
                                     at once (rio__coll_by_turns on one target) */
    struct rio_coll_sum *sum;     /* every rank's */
    int rows_at_root;             /* the rows went to rank 0 only (summary.c): sum is
                                     zeros on the others but for their own row, until
                                     the exchange sends them on to the aggregators */
    int rows_to_aggs;             /* every rank: the rows went to rank 0 only, and the
                                     exchange sends them on (exchange.c) */
    MPI_Offset *tbytes;           /* nprocs x tg.T: bytes per target, or NULL */
    MPI_Offset min, max;          /* extent of all ranks' requests */
    MPI_Offset total;             /* bytes of all ranks */
    MPI_Offset total_regions;     /* file regions of all ranks */
    int nonoverlap;               /* rank i's bytes all precede rank i+1's */
    int summary_skipped;          /* same_io_size + contiguous_data: computed, not exchanged */
    MPI_Offset size_max;          /* a read's rio__coll_size_mine, the maximum over the
                                     ranks, when the summary carried it; else -2 */
    const int *node_of;           /* node index of each rank */
    int nnodes;
    const char *names;            /* processor name of each rank, RIO_COLL_NAME_LEN bytes
                                     apart; NULL unless cb_config_list names a host */
    /* measurements */
    long long exchanged, copies;
    double t_exchange;
    double t_plan; /* CPU seconds in the strategy's plan function */
};

struct rio_coll_strategy {
    const char *name;
    int needs_layout;             /* falls back to two_phase without a known layout, and
                                     auto does not examine it there */
    int wants_tbytes;             /* needs bytes per target per rank in the summary */
    int alone;                    /* each rank serves its own request: the plan cannot
                                     fail and the ranks need not agree on it; auto does
                                     not examine it where collective buffering is forced
                                     or the call writes tiny regions (strategy.c) */
    int exchanges;                /* its plan's mode is always EXCHANGE: a write's plan
                                     failure is agreed on at the exchange's setup, one
                                     collective fewer per call (coll.c) */
    int rows_at_aggs;             /* its plan reads only the summary's totals, and only
                                     its aggregators other ranks' rows: above a few
                                     ranks the rows go to rank 0, which sends them on
                                     to the aggregators alone (summary.c) */
    /* Fill plan (zeroed, mode EXCHANGE); may choose another mode. */
    int (*plan)(const struct rio_coll_call *c, struct rio_coll_plan *p);
    /* What auto asks of it, over a call whose summary is in; each the same
     * on every rank (from hints, node map and summary).  NULL: yes where
     * the flags above allow, and no respectively. */
    /* Whether auto examines it for this call (beyond the flags). */
    int (*applies)(const struct rio_coll_call *c);
    /* Whether auto examines it ahead of the table's order (after the
     * rules' own pick). */
    int (*early)(const struct rio_coll_call *c);
};

/* How many strategies the table holds (strategies/list.h), "auto" not
 * counted: the capacity of every array with one entry per strategy. */
enum {
    RIO_COLL_NSTRATEGIES = 0
#define RIO_STRATEGY(name) +1
#include "strategies/list.h"
#undef RIO_STRATEGY
};

/* ---- request.c ----------------------------------------------------------------- */
/** Hand this rank's own request to fn as pairs (strided runs, see struct
 *  rio_coll_pair), in file order, in batches of at most
 *  RIO_COLL_PAIR_BATCH; pairs that touch may come separately.  A vector
 *  filetype's blocks over a contiguous buffer come as one pair.  Only the exchange walks them
 *  (the summary comes from view arithmetic), and no list of them is kept.
 *  Stops at fn's first nonzero return and returns it.  Local; RIO_E_ARG
 *  when the types end before the request's bytes, RIO_E_NOMEM. */
#define RIO_COLL_PAIR_BATCH 64
int rio__coll_pairs_each(const struct rio_coll_call *c,
                         int (*fn)(void *arg, const struct rio_coll_pair *v, int n), void *arg);
/** About how many pairs rio__coll_pairs_each hands out for c: its memory
 *  regions plus its file regions (c->regions; a capacity hint). */
MPI_Count rio__coll_pairs_guess(const struct rio_coll_call *c);

/** Make *out the packed form of q (a write's data copied in), its memory
 *  side the context's contiguous copy as MPI_BYTE (*bytes, released by
 *  rio__coll_unpack): 1 when done, 0 when q is served as it is (not a
 *  fine-grained memory side, or no memory).  Local. */
int rio__coll_pack(struct rio_coll_ctx *ctx, const struct rio_coll_req *q,
                   struct rio_coll_req *out, struct rio_dtype **bytes);
/** After a packed call: a read's done bytes unpacked into q's buffer,
 *  bytes released, a large copy freed.  Local; RIO_E_NOMEM. */
int rio__coll_unpack(struct rio_coll_ctx *ctx, const struct rio_coll_req *q,
                     struct rio_dtype *bytes, MPI_Offset done);
/** The file's size into *all, for a collective read.  Collective over
 *  c's context; an error of the storage's get_size. */
int rio__coll_file_size(const struct rio_coll_call *c, MPI_Offset *all);
/** rio__coll_file_size in two halves, for a caller whose own collective
 *  carries the maximum: this rank's part (-1 where it does not know), and
 *  the size from the maximum over the ranks.  Local. */
MPI_Offset rio__coll_size_mine(const struct rio_coll_call *c);
int rio__coll_size_agreed(const struct rio_coll_call *c, MPI_Offset max, MPI_Offset *all);
/** Bytes of q's view stream below file offset size, from file_start. */
MPI_Offset rio__coll_readable(const struct rio_coll_req *q, MPI_Offset size);

/* ---- summary.c ----------------------------------------------------------------- */
/* A summary under auto whose choice rank 0 makes (summary.c): reason
 * (rlen bytes) and name as rio__coll_select_auto's, on every rank; rows:
 * whether every rank has the rows (c->sum, c->tbytes) or only the totals
 * (c->total, min, max, nonoverlap). */
struct rio_coll_root_pick {
    char *reason;
    size_t rlen;
    const char *name;
    int rows;
};

/** c->first, end and regions: this rank's extent and file regions, from
 *  the view, O(depth).  Local. */
void rio__coll_own_extent(struct rio_coll_call *c);
/** The summary of every rank's request into c->sum (and c->tbytes with
 *  want_tbytes), with c->min, max, total and nonoverlap; computed instead
 *  of exchanged where may_compute and the claim holds; with want_size
 *  the ranks' file sizes ride along (c->size_max).  Collective; the
 *  outcome is agreed: RIO_E_NOMEM on the rank that ran out, RIO_E_REMOTE
 *  on the others.  c->first, end and regions must be set.  With pick
 *  (under auto, without want_size), above a few ranks rank 0 makes the
 *  selector's choice on the gathered rows and broadcasts it with the
 *  totals, and the rows only where the choice needs them (a strategy that
 *  does not serve each rank alone, nor is rows_at_aggs); pick->name is
 *  then set on every rank (NULL where the rows went to every rank first:
 *  the caller chooses).  Without pick, forced (the hints' strategy, or
 *  NULL) decides the same way: above a few ranks a rows_at_aggs
 *  strategy's rows go to rank 0 only and every rank gets the totals and
 *  its own row; the exchange sends the rows on to the aggregators. */
int rio__coll_summary(struct rio_coll_call *c, int want_tbytes, int want_size, int may_compute,
                      const struct rio_coll_strategy *forced, struct rio_coll_root_pick *pick);
/** The words the summary's rows of P ranks with T targets need beyond
 *  its stack buffer (0: none), which a context is made with.  Local. */
size_t rio__coll_rows_words(int P, int T);

/* ---- modes.c ------------------------------------------------------------------- */
/** This rank's own request through the independent method m; *done its
 *  bytes.  A write goes staged (rio_indep_req's shared) when another rank
 *  of this host writes in the call too and not one_at_a_time.  Local. */
int rio__coll_own_request(struct rio_coll_call *c, enum rio_indep_method m, MPI_Offset *done);
/** direct on storage that takes datatype requests: the whole request as
 *  one view request.  Local. */
int rio__coll_direct_view(struct rio_coll_call *c, MPI_Offset *done);
/** token: each rank its own data, in rank order per target.  Collective. */
int rio__coll_by_turns(struct rio_coll_call *c, MPI_Offset *done);
/** prefetch: p's agents prefetch their domains, then each rank reads its
 *  own data.  Collective. */
int rio__coll_prefetch_then_read(struct rio_coll_call *c, const struct rio_coll_plan *p,
                                 MPI_Offset *done);

/* ---- auto.c -------------------------------------------------------------------- */
/** Make ctx's selector for the storage st with layout l.  Collective
 *  (rank 0 reads the profile); without memory ctx->sel stays NULL and the
 *  fixed rules serve. */
void rio__coll_make_selector(struct rio_coll_ctx *ctx, struct rio_store *st,
                             const struct rio_hints *h, const struct rio_layout *l);

/* A strategy and the name it was asked for by (a hint's value or the
 * selector's candidate, valid during the call). */
struct rio_coll_pick {
    const char *name;
    const struct rio_coll_strategy *s;
};

/* Above this many ranks the rows go to rank 0 and back (a gather and a
 * broadcast) rather than in one allgather: the same bytes in fewer
 * messages.  Counted at 128 ranks on 8 hosts (Open MPI, resonio-bench
 * --suite scale, demo): a write under two_phase made 21.9 metadata
 * messages per rank with the allgather, 16.9 with these (OMPIO: 20).  On
 * a few ranks the allgather's one step is the cheaper (the agreement
 * switches at the same count, agree.c). */
#define RIO_COLL_TREE_RANKS 8

/** The strategy the hints ask for: the unaggregated one for atomic mode and
 *  romio_cb_*=disable, the one resonio_strategy names, or auto; a name no
 *  strategy has falls back to two_phase.  reason (n bytes) says why.
 *  Local. */
const struct rio_coll_strategy *rio__coll_choose(const struct rio_coll_req *q, char *reason,
                                                 size_t n);
/** The selector's choice for c, whose summary is in; keeps the call's
 *  signature in the context for the steady path.  Local; the same on
 *  every rank. */
const char *rio__coll_select_auto(struct rio_coll_call *c, char *reason, size_t len);
/** The same, from the candidates cands (ncand, in examination order):
 *  where rank 0 alone holds the summary's rows, it makes the choice and
 *  sends these, and every rank's selector takes the same step
 *  (summary.c).  c->total, total_regions, min and max are set.  Local. */
const char *rio__coll_select_among(struct rio_coll_call *c, const char *const *cands, int ncand,
                                   char *reason, size_t len);
/** Whether c skips its summary (forced: the strategy forced, NULL under
 *  auto; kept: the strategy the steady path keeps); sets this rank's
 *  share of the agreement's steady values.  Local; the same on every
 *  rank. */
int rio__coll_steady_path(struct rio_coll_ctx *ctx, const struct rio_coll_call *c, int is_auto,
                          const struct rio_coll_strategy *forced, struct rio_coll_pick *kept);
/** The strategy a call under auto runs ahead, before its summary: one
 *  where each rank serves itself that the selector's decisions for calls
 *  of its kind (read or write) on this many ranks all name; NULL for
 *  none.  The selector exists, configured for req's hints.  Local; the
 *  same on every rank. */
const struct rio_coll_strategy *rio__coll_ahead(struct rio_coll_ctx *ctx,
                                                const struct rio_coll_req *req);
/** The agreement of a call that ran s ahead, its own error rc: every rank
 *  returns the agreed error; *again says whether the selector's decision
 *  for the call's signature, now known, is not s, so that the call must
 *  run again the usual way.  Otherwise the selector has its choice and
 *  measurement, as rio__coll_settle gives them.  Collective. */
int rio__coll_ahead_agree(struct rio_coll_ctx *ctx, const struct rio_coll_req *req, int rc,
                          const struct rio_coll_strategy *s, int *again);
/** Keep c's shape for the next call's steady path.  Local. */
void rio__coll_keep_shape(struct rio_coll_ctx *ctx, const struct rio_coll_call *c);
/** The call's outcome, agreed (the same vals and err on every rank): the
 *  selector gets its throughput, and the next call learns whether it may
 *  skip the summary.  Local. */
void rio__coll_settle(struct rio_coll_ctx *ctx, const MPI_Offset *vals, int err);

/* ---- trace.c ------------------------------------------------------------------- */
/** Count a call served by the strategy called name (the table's own
 *  string).  Local. */
void rio__coll_count_strategy(struct rio_coll_ctx *ctx, const char *name);

/* ---- strategy.c --------------------------------------------------------- */
/** The strategy (or "auto") called name; NULL for NULL or a name no
 *  strategy has, which the caller must handle (it falls back).  Local. */
const struct rio_coll_strategy *rio__coll_strategy_find(const char *name);
/** The table's index of the strategy called name (-1: none, or "auto"),
 *  and the strategy at index k (NULL outside the table): how a choice
 *  travels in a message.  Local. */
int rio__coll_strategy_index(const char *name);
const struct rio_coll_strategy *rio__coll_strategy_at(MPI_Offset k);
/** The strategy that serves when the one asked for is unknown or cannot
 *  apply (two_phase, ROMIO's). */
const struct rio_coll_strategy *rio__coll_strategy_fallback(void);
/** "auto": the measured selection, and its fixed rules where nothing is
 *  measured. */
const struct rio_coll_strategy *rio__coll_strategy_auto(void);
/** The strategy of a call that must not aggregate (atomic mode,
 *  romio_cb_write/romio_cb_read=disable): each rank serves its own request
 *  with the independent chooser. */
const struct rio_coll_strategy *rio__coll_strategy_unaggregated(void);
/** The names of the strategies auto examines for c, whose summary is in,
 *  in the order it examines them, into cands (RIO_COLL_NSTRATEGIES
 *  entries; the names are static).  Returns their count.  Local; the same
 *  on every rank. */
int rio__coll_auto_candidates(const struct rio_coll_call *c, const char **cands);
/** 1 where the fixed rules take every_rank rather than two_phase: a node
 *  holds several ranks and neither cb_nodes nor cb_config_list is set.
 *  Local; the same on every rank (hints and node map are). */
int rio__coll_every_rank_rule(const struct rio_coll_call *c);
/** Ranks that aggregate by ROMIO's rules.  With cb_config_list: its
 *  entries in order over the nodes, at most cb_nodes, in the order taken
 *  (strategy.c); a list that names no aggregator is ignored and note (len
 *  bytes, may be NULL) says so, otherwise note is left alone.  Without:
 *  cb_nodes ranks spread over the nodes, or the lowest rank of each node,
 *  in rank order.  Returns the count (>= 1) or RIO_E_NOMEM; *out is
 *  rio__malloc'ed. */
int rio__coll_romio_aggs(const struct rio_coll_call *c, int **out, char *note, size_t len);
/** want ranks (at most the rank count; want < 0: one per node) spread
 *  over the nodes: the k-th lowest rank of every node for k = 0, 1, ...,
 *  into aggs in rank order.  Returns how many, or RIO_E_NOMEM.  Local. */
int rio__coll_spread_aggs(const struct rio_coll_call *c, int want, int *aggs);
/** The n aggregators aggs (ranks, n >= 1) over even contiguous domains of
 *  [min start, max end), stripe-aligned when the file has a layout, and
 *  read-modify-write of write holes when the hints ask for it: the plans
 *  of two_phase and every_rank.  Errors: RIO_E_NOMEM. */
int rio__coll_even_domains(const struct rio_coll_call *c, struct rio_coll_plan *p,
                           const int *aggs, int n);
/** Allocate naggs aggregators and domains in p.  Errors: RIO_E_NOMEM. */
int rio__coll_plan_alloc(struct rio_coll_plan *p, int naggs);
void rio__coll_plan_free(struct rio_coll_plan *p);
/* ---- targets (servers.c) ---- */
/** Make c->tg (stripe columns on entry) the file's servers where its
 *  driver maps objects to servers.  Collective when the layout has
 *  objects: one allreduce, and when the call reaches past the file's map
 *  rank 0 asks storage and broadcasts.  Every failure (no map, no memory
 *  on some rank) is agreed: every rank keeps columns for the file, and
 *  ctx->smap.why says why. */
void rio__coll_targets(struct rio_coll_call *c);
/** The target of stripe s. */
int rio__coll_target_of(const struct rio_coll_targets *tg, MPI_Offset s);
/** Free a file's map. */
void rio__coll_smap_free(struct rio_coll_smap *m);

/** Target-set domain helpers. */
int rio__coll_dom_targets(struct rio_coll_domain *d, const int *targets, int n, int ngroup,
                          int member, MPI_Offset start, MPI_Offset end);
/** Bytes rank i requests on target t (needs c->tbytes). */
MPI_Offset rio__coll_tbytes(const struct rio_coll_call *c, int i, int t);

/* ---- pieces (pieces.c) ------------------------------------------------------ */
/* A group of this rank's pieces for one aggregator and round: count runs
 * of len bytes, the k-th at coordinate coord + k * cstride and at memory
 * mem + k * mstride, with cstride > len (count 1: one run, strides
 * unused).  A vector of ints interleaved with other ranks' is one group
 * per aggregator and round, not one piece per int. */
struct rio_coll_piece {
    MPI_Offset coord, len;
    char *mem;
    MPI_Offset count, cstride, mstride;
    int round;
};

/* One aggregator's pieces from this rank, in round and coordinate order. */
struct rio_coll_plist {
    struct rio_coll_piece *v; /* rio__pool_alloc'ed; the caller frees it */
    MPI_Count n, cap, pos;    /* pos: first piece not yet handed out (exchange.c) */
    MPI_Count first_cap;      /* capacity of the first allocation */
};

/** This rank's request (unless p bypasses it) cut into pieces, appended to
 *  lists[a] for each aggregator a of p (naggs lists, zeroed): pieces
 *  ordered by round and coordinate, groups where the view is monotonic.
 *  The domains' coordinate ranges must be set (rio__coll_domain_coords).
 *  Local.  Errors: RIO_E_NOMEM; RIO_E_ARG when a byte has no aggregator or
 *  the types end early. */
int rio__coll_cut_pieces(const struct rio_coll_call *c, const struct rio_coll_plan *p,
                         struct rio_coll_plist *lists);
/** Set d's coordinate range [cbase, cend) from its file range, with its
 *  tables (d->map, freed with the plan) when the call's targets are
 *  servers.  Local.  Errors: RIO_E_NOMEM (then the range is empty). */
int rio__coll_domain_coords(const struct rio_coll_call *c, struct rio_coll_domain *d);
/** Free what rio__coll_domain_coords made for d. */
void rio__coll_domain_free(struct rio_coll_domain *d);
/** Whether rank i takes part with aggregator a in round r: its extent
 *  meets the round's file span (and its node is the domain's, for node
 *  domains), computed from the summary alone, the same on every rank. */
int rio__coll_takes_part(const struct rio_coll_call *c, const struct rio_coll_plan *p, int i,
                         int a, int r);
/** Coordinate of file byte off in d, or -1 when off is not d's. */
MPI_Offset rio__coll_coord(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                           MPI_Offset off);
/** File offset of coordinate x of d. */
MPI_Offset rio__coll_fileoff(const struct rio_coll_call *c, const struct rio_coll_domain *d,
                             MPI_Offset x);

/* ---- context.c ---------------------------------------------------------------- */
/* What a call's agreement carries besides the error (maximum over the
 * ranks): steady path broken, shift, negated shift, nanoseconds. */
#define RIO_COLL_AGREE_VALS 4
/* A shift not measured (the agreement's maximum then is this). */
#define RIO_COLL_NO_SHIFT LLONG_MIN
_Static_assert(RIO_COLL_AGREE_VALS <= RIO_AGREE_MAX_VALS, "the agreement carries them all");

/* Calls per strategy (rio__coll_report). */
struct rio_coll_strat_count {
    const char *name;
    long long calls;
};

/* The engine's state for one file (context.c); the other files read and
 * keep their parts of it. */
struct rio_coll_ctx {
    MPI_Comm comm;           /* private duplicate */
    int rank, nprocs;
    int *node_real;          /* node of each rank by shared memory */
    int nnodes_real;
    int *node_virt;          /* scratch for virtual nodes */
    char *names;             /* processor name of each rank (RIO_COLL_NAME_LEN apart),
                                gathered at the first call whose cb_config_list names
                                a host */
    MPI_Comm node_comm;      /* ranks sharing memory with this one */
    long long comms_made, comms_reused; /* how comm and node_comm were had */
    int *node_rank;          /* rank in node_comm of each rank, -1 off this node */
    MPI_Win shm_win;         /* round buffers in node-shared memory (resonio_shm) */
    size_t shm_len;          /* bytes of this rank's part */
    char *cbuf;
    size_t cbuf_len;
    char *pack;              /* the packed memory side of fine-grained requests */
    size_t pack_len;
    MPI_Offset *rows; /* the summary's rows where the stack is too small (summary.c) */
    size_t rows_cap;  /* words; the same on every rank */
    struct rio_store_trace trace;
    /* the last call */
    struct rio_coll_info last;
    struct rio_coll_targets last_tg; /* the last call's targets */
    struct rio_coll_smap smap;       /* the file's object-to-server map */
    struct rio_select *sel;  /* strategy selection, made at the first call */
    /* The steady path: while the selector's choice for a signature is a
     * strategy where each rank serves itself, and each rank's request
     * keeps its size and shape and moves by the same distance as every
     * other's, the signature is known without a summary (settle) */
    int steady;              /* agreed: the last call kept such a choice */
    int pick_at_root[2];     /* reads [0], writes [1]: the last such call under auto ran a
                                strategy where each rank serves itself, or whose rows
                                only its aggregators need (rows_at_aggs), so rank 0
                                chooses before the summary's rows go out (summary.c); a
                                read's starts so.  The same on every rank */
    struct rio_sel_sig sig;  /* the last selected call's signature */
    MPI_Offset own[4];       /* this rank's bytes, regions, span and first byte then */
    /* the call in flight, for its agreement */
    MPI_Offset agree[RIO_COLL_AGREE_VALS]; /* carried by the agreement, maximum over the ranks */
    int call_selected;       /* the selector chose its strategy */
    int call_unmeasured;     /* its time is not the selector's: its storage transfers
                                were kept for later (rio_coll_req's uncapture), or it ran
                                beside the program once decided (beside) */
    int call_alone;          /* ... one where each rank served itself */
    MPI_Offset call_total;   /* all ranks' bytes */
    struct rio_coll_strat_count counts[16];
};

/** The communicator of the file (the engine's messages use their own tags). */
MPI_Comm rio__coll_comm(const struct rio_coll_ctx *ctx);
/** The context's round buffer, at least len bytes, kept for the file's
 *  lifetime so later calls reuse touched memory.  NULL: out of memory. */
char *rio__coll_buffer(struct rio_coll_ctx *ctx, size_t len);

/** Round buffers in node-shared memory (resonio_shm): collective over the
 *  file's communicator.  When every rank wants it and the node's window can
 *  give this rank len bytes, returns 1 with the window and the rank of each
 *  file rank in the node communicator (-1 off this node); else 0. */
int rio__coll_shm(struct rio_coll_ctx *ctx, int want, size_t len, MPI_Win *win,
                  const int **node_rank);
MPI_Comm rio__coll_node_comm(const struct rio_coll_ctx *ctx);

/** The processor names of all ranks into ctx->names, once per file and
 *  only where h's cb_config_list names a host.  Collective; on failure
 *  the names stay unknown. */
void rio__coll_gather_names(struct rio_coll_ctx *ctx, const struct rio_hints *h);

/* ---- exchange.c ---------------------------------------------------------------- */
/** Run an EXCHANGE plan (a failed one too: p->failed, where its setup
 *  agreement stops every rank).  Collective.  Returns this rank's error. */
int rio__coll_exchange(struct rio_coll_call *c, struct rio_coll_plan *p);

#endif /* RIO_COLL_INT_H */
