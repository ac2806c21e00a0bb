/*
 * coll.h — the collective I/O engine.
 *
 * One skeleton runs every collective read and write: a summary of each
 * rank's request, a plan (aggregators and the map from file bytes to
 * them), the exchange of metadata and data between ranks, the aggregators'
 * storage requests in rounds, and agreement on the outcome, which the
 * engine runs itself so that a call is finished when it returns.  Strategies
 * (src/coll/strategies/) supply only the plan; the table in strategy.c
 * lists them and the base code never names one.
 */
#ifndef RIO_COLL_H
#define RIO_COLL_H

#include "../common/common.h"
#include "../dtype/dtype.h"
#include "../store/store.h"

struct rio_coll_ctx;

/** One collective request of the calling rank (the arguments of an
 *  independent request plus the communicator's view of the call). */
struct rio_coll_req {
    MPI_Comm comm;           /* the file's communicator: every rank of it calls */
    int err;                 /* an error this rank met before the call: it takes part
                                with nothing (nbytes 0) and the agreement reports it */
    struct rio_store *st;
    const struct rio_hints *hints;
    int write;
    void *buf;
    const struct rio_dtype *memtype;
    MPI_Count memcount;
    const struct rio_dtype *filetype;
    MPI_Offset disp;
    MPI_Offset file_start;   /* stream byte of the view where this rank starts */
    MPI_Offset nbytes;       /* 0 for a rank with nothing (or a local error) */
    int atomic;              /* atomic mode: no aggregation */
    int beside;              /* the call runs beside the program (a file's lane): once
                                the selector has decided its signature, its time is not
                                recorded (the program shares the cores, and each rank's
                                lane starts the call when its thread runs), so it starts
                                no re-examination, and while one runs it keeps the
                                strategy decided before (rio__select_hold) */
    /* Non-NULL when st keeps the call's storage transfers to make them
     * later (the file layer's nonblocking collective calls below
     * MPI_THREAD_MULTIPLE): the engine calls it, making st go through,
     * when the selector measures the call, since a time without the
     * transfers would mislead it; a call it does not measure (decided, or
     * held during a re-examination as a beside call is) keeps them.
     * 0 or an error of the transfers kept until then. */
    int (*uncapture)(struct rio_store *st);
};

/** What a collective call gives back besides the agreed error. */
struct rio_coll_result {
    MPI_Offset done;         /* bytes moved for this rank (less than nbytes for a read
                                that meets end of file) */
    int own_err;             /* this rank's own error in the engine, before the agreement */
    double t_agree;          /* seconds this rank spent in the agreement (time_agree) */
};

/**
 * The engine's state for one file: its communicators, node map and round
 * buffers, and the file's strategy selector.  Collective over comm (the
 * context keeps a duplicate).  With st open on every rank the selector is
 * made now, reading its profile where one is configured; with st NULL
 * (opens still deferred) it is made at the first call.  Without memory
 * for the selector the fixed rules serve.  The outcome is the same on
 * every rank: 0 and *out, or an error (RIO_E_NOMEM on the rank that ran
 * out, RIO_E_REMOTE on the others) and *out NULL.  Free with
 * rio__coll_free (NULL is fine), collectively.
 */
int rio__coll_create(MPI_Comm comm, struct rio_store *st, const struct rio_hints *h,
                     struct rio_coll_ctx **out);
void rio__coll_free(struct rio_coll_ctx *ctx);
/** The private communicators the context made (*made) and took from those
 *  kept by earlier files (*reused): see rio__comm_take.  0 for NULL. */
void rio__coll_comm_counts(const struct rio_coll_ctx *ctx, long long *made, long long *reused);

/**
 * Perform one collective request and agree on its outcome.  Collective
 * over req->comm: every rank calls it, also ranks with nothing to move or
 * with a local error (req->err, nbytes 0).  *ctx is the file's context;
 * when it is NULL (not made at open) it is made here first, and stays
 * NULL on every rank if that fails.  A rank whose storage fails keeps
 * taking part in the remaining rounds.  Returns the error agreed over the
 * ranks (rio__agree); res says what this rank moved, its own error and
 * the time the agreement took.
 */
int rio__coll_rw(struct rio_coll_ctx **ctx, const struct rio_coll_req *req,
                 struct rio_coll_result *res);

/** What the last call did, gathered over all ranks.  Collective. */
int rio__coll_last(struct rio_coll_ctx *ctx, struct rio_coll_info *out);

/** What the file's strategy selector holds (rio_select_count and
 *  rio_select_get): the number of its signatures into *count (may be
 *  NULL), and, when out is not NULL, signature i into *out.  A context
 *  without a selector, or none (ctx NULL), holds none.  Local; the same
 *  on every rank.  Errors: RIO_E_ARG for i out of range. */
int rio__coll_select_info(const struct rio_coll_ctx *ctx, int i, struct rio_select_info *out,
                          int *count);

/** The server that holds object obj of the file, by the map the engine
 *  plans with (servers.c): -1 when the map does not cover obj (no call
 *  has reached it yet, or the file has no map).  Local. */
int rio__coll_server_of(const struct rio_coll_ctx *ctx, long long obj);

/** Print the per-strategy summary of all calls so far on rank 0 (for
 *  RESONIO_STATS).  Collective. */
void rio__coll_report(struct rio_coll_ctx *ctx, const char *filename);

/* The engine's hints (cb_*, the Lustre driver's keys, resonio_strategy,
 * ...): struct rio_coll_settings in coll_int.h, keys in settings.c. */
extern const struct rio_settings_owner rio__coll_settings_owner;

#endif /* RIO_COLL_H */
