/*
 * coll.h — the collective I/O engine.
 *
 * One skeleton runs every collective read and write: a summary of each
 * rank's request, a plan (aggregators and the map from file bytes to
 * them), the exchange of metadata and data between ranks, the aggregators'
 * storage requests in rounds, and agreement on the outcome.  Strategies
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
};

/** Per-file state of the engine, made at the first collective call.
 *  Collective over comm (which the file keeps for its lifetime). */
int rio__coll_ctx_create(MPI_Comm comm, struct rio_coll_ctx **out);
void rio__coll_ctx_free(struct rio_coll_ctx *ctx);

/**
 * Perform one collective request.  Collective over the context's
 * communicator: every rank calls it, also ranks with nothing to move or
 * with a local error (nbytes 0).  *done receives the bytes moved for this
 * rank (less than nbytes for a read that meets end of file).  Returns this
 * rank's error; the caller agrees on one error for all ranks.  A rank whose
 * storage fails keeps taking part in the remaining rounds.
 */
int rio__coll_rw(struct rio_coll_ctx *ctx, const struct rio_coll_req *req, MPI_Offset *done);

/**
 * What the call just made adds to its error agreement: the caller reduces
 * these RIO_COLL_AGREE_VALS values by maximum over the ranks, together
 * with the error (rio__agree_max), and hands the result to
 * rio__coll_settle.  Local.
 */
#define RIO_COLL_AGREE_VALS 4
void rio__coll_agree_values(const struct rio_coll_ctx *ctx, MPI_Offset *vals);
/** The call's outcome, agreed: the selector gets its throughput, and the
 *  next call learns whether it may skip the summary.  Local, with the
 *  same arguments on every rank. */
void rio__coll_settle(struct rio_coll_ctx *ctx, const MPI_Offset *vals, int err);

/** Make the file's selector now, reading its profile, instead of at the
 *  first collective call: MPI_File_open does this when a profile is
 *  configured.  Collective over the context's communicator; st must be
 *  open on every rank.  Without memory the fixed rules serve. */
void rio__coll_select_open(struct rio_coll_ctx *ctx, struct rio_store *st,
                           const struct rio_hints *h);

/** What the last call did, gathered over all ranks.  Collective. */
int rio__coll_last(struct rio_coll_ctx *ctx, struct rio_coll_info *out);

/** Print the per-strategy summary of all calls so far on rank 0 (for
 *  RESONIO_STATS).  Collective. */
void rio__coll_report(struct rio_coll_ctx *ctx, const char *filename);

struct rio_select;
/** The file's strategy selector (NULL before the first collective call). */
const struct rio_select *rio__coll_selector(const struct rio_coll_ctx *ctx);

#endif /* RIO_COLL_H */
