/*
 * context.c — the engine's state for one file, kept across its calls.
 *
 * The context holds what every call needs and should not pay for again:
 * a private duplicate of the file's communicator (the engine's messages
 * cannot meet the caller's), the node of each rank (by shared memory, the
 * lowest rank naming its node) and the node communicator, the processor
 * names where cb_config_list names hosts, the round buffer and its
 * node-shared variant (resonio_shm), which later calls reuse as touched
 * memory, the summary's rows (so that no call needs to agree on their
 * memory), the trace of storage requests, and the file's selector.  It is
 * made once, at open or by the first call (rio__coll_create), and every
 * failure to make it is agreed on, so no rank goes on without the others.
 */
#include "coll_int.h"
#include "../common/cblist.h"
#include "../select/select.h"

#include <stdlib.h>
#include <string.h>

#define TRACE_CAP 65536

MPI_Comm rio__coll_comm(const struct rio_coll_ctx *ctx)
{
    return ctx->comm;
}

char *rio__coll_buffer(struct rio_coll_ctx *ctx, size_t len)
{
    if (ctx->cbuf_len < len) {
        rio__pool_free(ctx->cbuf);
        ctx->cbuf = rio__pool_alloc(len);
        ctx->cbuf_len = ctx->cbuf ? len : 0;
    }
    return ctx->cbuf;
}

int rio__coll_shm(struct rio_coll_ctx *ctx, int want, size_t len, MPI_Win *win,
                  const int **node_rank)
{
    /* Every rank of the node takes part, so the decision is the node's. */
    int use = want && ctx->node_comm != MPI_COMM_NULL && ctx->node_rank;
    int all = 0;
    MPI_Allreduce(&use, &all, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!all)
        return 0;
    int grow = len > ctx->shm_len || ctx->shm_win == MPI_WIN_NULL, any = 0;
    MPI_Allreduce(&grow, &any, 1, MPI_INT, MPI_MAX, ctx->node_comm);
    if (any) {
        char *base;
        if (ctx->shm_win != MPI_WIN_NULL)
            MPI_Win_free(&ctx->shm_win);
        size_t n = RIO_MAX(len, ctx->shm_len);
        if (MPI_Win_allocate_shared((MPI_Aint)n, 1, MPI_INFO_NULL, ctx->node_comm, &base,
                                    &ctx->shm_win) != MPI_SUCCESS) {
            ctx->shm_win = MPI_WIN_NULL;
            ctx->shm_len = 0;
        } else {
            ctx->shm_len = n;
        }
    }
    int ok = ctx->shm_win != MPI_WIN_NULL;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!all)
        return 0;
    *win = ctx->shm_win;
    *node_rank = ctx->node_rank;
    return 1;
}

MPI_Comm rio__coll_node_comm(const struct rio_coll_ctx *ctx)
{
    return ctx->node_comm;
}

void rio__coll_comm_counts(const struct rio_coll_ctx *ctx, long long *made, long long *reused)
{
    *made = ctx ? ctx->comms_made : 0;
    *reused = ctx ? ctx->comms_reused : 0;
}

/* T: the targets of the file's layout at open (0: none or not known),
 * which the summary's rows are made for. */
static int ctx_make(MPI_Comm comm, int T, struct rio_coll_ctx **out)
{
    struct rio_coll_ctx *ctx = rio__calloc(1, sizeof *ctx);
    MPI_Comm dup = MPI_COMM_NULL, node = MPI_COMM_NULL;
    int rc = 0, nprocs = 0;
    *out = NULL;
    /* every rank takes the collectives up to the agreement, also one
     * whose allocations failed */
    rio__comm_take(comm, RIO_COMM_DUP, &dup, ctx ? &ctx->comms_made : NULL,
                   ctx ? &ctx->comms_reused : NULL);
    MPI_Comm_size(dup, &nprocs);
    if (ctx) {
        ctx->comm = dup;
        ctx->node_comm = MPI_COMM_NULL;
        ctx->shm_win = MPI_WIN_NULL;
        MPI_Comm_rank(ctx->comm, &ctx->rank);
        ctx->nprocs = nprocs;
        ctx->node_real = rio__malloc(sizeof(int) * (size_t)nprocs);
        ctx->node_virt = rio__malloc(sizeof(int) * (size_t)nprocs);
        ctx->node_rank = rio__malloc(sizeof(int) * (size_t)nprocs);
        ctx->trace.off = rio__pool_alloc(sizeof(MPI_Offset) * TRACE_CAP);
        ctx->trace.len = rio__pool_alloc(sizeof(MPI_Offset) * TRACE_CAP);
        ctx->trace.t = rio__pool_alloc(sizeof(double) * TRACE_CAP);
        ctx->trace.cap = TRACE_CAP;
        ctx->pick_at_root[0] = 1; /* reads mostly serve each rank alone (strategy.c) */
        ctx->rows_cap = rio__coll_rows_words(nprocs, T);
        ctx->rows = ctx->rows_cap ? rio__malloc(sizeof *ctx->rows * ctx->rows_cap) : NULL;
    }
    int ok = ctx && ctx->node_real && ctx->node_virt && ctx->node_rank && ctx->trace.off &&
             ctx->trace.len && ctx->trace.t && (ctx->rows || !ctx->rows_cap);
    int all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, dup);
    if (!all_ok) {
        rc = ok ? RIO_E_REMOTE : RIO_E_NOMEM;
        if (!ctx)
            rio__comm_give(&dup);
        goto fail;
    }
    /* nodes: the lowest rank of each shared-memory group names it */
    rio__comm_take(ctx->comm, RIO_COMM_NODE, &node, &ctx->comms_made, &ctx->comms_reused);
    int leader = ctx->rank;
    MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
    ctx->node_comm = node;
    MPI_Group wg, ng;
    MPI_Comm_group(ctx->comm, &wg);
    MPI_Comm_group(node, &ng);
    for (int i = 0; i < ctx->nprocs; i++) /* node_virt as scratch: 0 .. P-1 */
        ctx->node_virt[i] = i;
    MPI_Group_translate_ranks(wg, ctx->nprocs, ctx->node_virt, ng, ctx->node_rank);
    for (int i = 0; i < ctx->nprocs; i++)
        if (ctx->node_rank[i] == MPI_UNDEFINED)
            ctx->node_rank[i] = -1;
    MPI_Group_free(&wg);
    MPI_Group_free(&ng);
    /* every rank fills its own slot; one reduction gives everyone the map */
    for (int i = 0; i < ctx->nprocs; i++)
        ctx->node_real[i] = -1;
    ctx->node_real[ctx->rank] = leader;
    MPI_Allreduce(MPI_IN_PLACE, ctx->node_real, ctx->nprocs, MPI_INT, MPI_MAX, ctx->comm);
    int n = 0;
    for (int i = 0; i < ctx->nprocs; i++) {
        if (ctx->node_real[i] == i)
            ctx->node_virt[i] = n++;
        ctx->node_real[i] = ctx->node_virt[ctx->node_real[i]];
    }
    ctx->nnodes_real = n;
    *out = ctx;
    return 0;
fail:
    rio__coll_free(ctx);
    return rc;
}

void rio__coll_free(struct rio_coll_ctx *ctx)
{
    if (!ctx)
        return;
    if (ctx->shm_win != MPI_WIN_NULL)
        MPI_Win_free(&ctx->shm_win);
    rio__comm_give(&ctx->node_comm); /* kept for the next file */
    rio__comm_give(&ctx->comm);
    rio__select_free(ctx->sel);
    free(ctx->node_rank);
    free(ctx->node_real);
    free(ctx->node_virt);
    free(ctx->names);
    rio__coll_smap_free(&ctx->smap);
    rio__pool_free(ctx->cbuf);
    rio__pool_free(ctx->pack);
    free(ctx->rows);
    rio__pool_free(ctx->trace.off);
    rio__pool_free(ctx->trace.len);
    rio__pool_free(ctx->trace.t);
    free(ctx);
}

int rio__coll_create(MPI_Comm comm, struct rio_store *st, const struct rio_hints *h,
                     struct rio_coll_ctx **out)
{
    struct rio_layout l = {0};
    if (st)
        rio__store_layout(st, &l);
    int rc = ctx_make(comm, l.known ? l.count : 0, out);
    if (!rc && st) /* the selector now, reading its profile where one is configured */
        rio__coll_make_selector(*out, st, h, &l);
    return rc;
}


/*
 * The processor names of all ranks, which a cb_config_list that names a
 * host is matched against; gathered once per file, and only for such a
 * list, so other files pay nothing.  Collective: the hint has the same
 * value on every rank, as ROMIO requires of it.  On failure the names stay
 * unknown (no rank matches a host; the list is then ignored).
 */
void rio__coll_gather_names(struct rio_coll_ctx *ctx, const struct rio_hints *h)
{
    int names_host = 0;
    const char *list = rio__coll_settings(h)->cb_config_list;
    if (ctx->names || !list || rio__cblist_check(list, &names_host) || !names_host)
        return;
    size_t P = (size_t)ctx->nprocs;
    char mine[RIO_COLL_NAME_LEN];
    int len = 0, ok, all = 0;
    memset(mine, 0, sizeof mine);
    MPI_Get_processor_name(mine, &len);
    mine[RIO_COLL_NAME_LEN - 1] = '\0';
    char *names = rio__malloc(P * RIO_COLL_NAME_LEN);
    ok = names != NULL;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!all) {
        free(names);
        return;
    }
    MPI_Allgather(mine, RIO_COLL_NAME_LEN, MPI_CHAR, names, RIO_COLL_NAME_LEN, MPI_CHAR,
                  ctx->comm);
    ctx->names = names;
}
