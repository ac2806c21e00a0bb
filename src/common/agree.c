/*
 * agree.c — the agreement that ends every collective call (agree.h).
 *
 * One collective carries each rank's error, encoded so that a maximum
 * picks the rank whose cause is reported (the lowest with a cause of its
 * own, else the lowest that saw another rank fail), together with the
 * caller's values; that rank then broadcasts its error and detail.  On a
 * few ranks the collective is an allgather and a local maximum, which
 * costs less than a reduction there.
 */
#include "agree.h"

#include <stdio.h>
#include <string.h>

/* Every collective call ends in one agreement, so its cost is paid per
 * call.  On a few ranks it is an allgather and a local maximum: MPICH's
 * MPI_Allreduce of three 64-bit integers took 1.37 us at 2 ranks where
 * MPI_Allgather of two took 0.59 (Open MPI: 0.45 and 0.44; one run of
 * 20000 calls each).  The gathered data grow with the ranks, so larger
 * communicators keep the reduction. */
#define AGREE_GATHER_RANKS 8

static int gather_ranks = AGREE_GATHER_RANKS;

int rio__agree_gather_ranks(int ranks)
{
    int old = gather_ranks;
    gather_ranks = RIO_MAX(0, RIO_MIN(ranks, AGREE_GATHER_RANKS));
    return old;
}

/* A rank's key: the maximum over the ranks picks the lowest rank with a
 * cause of its own; only if there is none, the lowest that saw another
 * rank fail (keys are negated, so the maximum is the smallest). */
static MPI_Offset key_of(int err, int rank, int nprocs)
{
    int mine = !err ? 2 * nprocs : err == RIO_E_REMOTE ? nprocs + rank : rank;
    return -(MPI_Offset)mine;
}

/* The rank whose error every rank reports, from the maximum of the keys;
 * -1 when no rank failed. */
static int first_of(MPI_Offset max, int nprocs)
{
    int key = (int)-max;
    return key == 2 * nprocs ? -1 : key % nprocs;
}

/* What a rank other than first reports of first's failure. */
static void from_rank(char *out, size_t len, int first, const char *detail)
{
    if (detail[0])
        snprintf(out, len, "on rank %d: %s", first, detail);
    else
        snprintf(out, len, "on rank %d", first);
}

/* The agreed error from the keys' maximum: the first failing rank
 * broadcasts its error and detail (a collective only when a rank failed). */
static int agreed(MPI_Comm comm, int rank, int nprocs, int err, MPI_Offset key)
{
    int first = first_of(key, nprocs);
    if (first < 0)
        return 0;
    struct rio_agreed a;
    memset(&a, 0, sizeof a);
    if (rank == first) {
        a.err = err;
        snprintf(a.detail, sizeof a.detail, "%s", rio__err_detail_peek());
    }
    MPI_Bcast(&a, (int)sizeof a, MPI_BYTE, first, comm);
    if (rank != first) {
        char d[sizeof a.detail + 32];
        from_rank(d, sizeof d, first, a.detail);
        rio__err_detail("%s", d);
    }
    return a.err;
}

/* Fold record a into b (w words): the last `sums` words summed, the
 * others their maximum (the key, word 0, always). */
static void combine(const MPI_Offset *a, MPI_Offset *b, int w, int sums)
{
    for (int k = 0; k < w; k++)
        b[k] = k < w - sums ? RIO_MAX(a[k], b[k]) : a[k] + b[k];
}

/* The reduction of rio__agree_max_sum's records: w words each, from the
 * record type's size, the last two summed. */
static void max_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int size = 0;
    MPI_Type_size(*type, &size);
    int w = size / (int)sizeof(MPI_Offset);
    for (int r = 0; r < *len; r++)
        combine((const MPI_Offset *)in + r * w, (MPI_Offset *)inout + r * w, w, 2);
}

/* rio__agree_max, with the last `sums` (0 or 2) of vals summed rather
 * than maximised.  The sums' reduction takes a record type and an
 * operation of its own, made per call: no state outlives it. */
static int agree_vals(MPI_Comm comm, int err, MPI_Offset *vals, int n, int sums)
{
    int rank, nprocs;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &nprocs);
    MPI_Offset in[1 + RIO_AGREE_MAX_VALS], out[1 + RIO_AGREE_MAX_VALS];
    n = RIO_MAX(sums, RIO_MIN(n, RIO_AGREE_MAX_VALS));
    int w = n + 1, count = w;
    in[0] = key_of(err, rank, nprocs);
    if (n)
        memcpy(in + 1, vals, sizeof *vals * (size_t)n);
    MPI_Datatype rec = RIO_MPI_OFFSET_SIGNED;
    if (sums) {
        MPI_Type_contiguous(w, RIO_MPI_OFFSET_SIGNED, &rec);
        MPI_Type_commit(&rec);
        count = 1;
    }
    if (nprocs <= gather_ranks) {
        MPI_Offset all[AGREE_GATHER_RANKS * (1 + RIO_AGREE_MAX_VALS)];
        MPI_Allgather(in, count, rec, all, count, rec, comm);
        memcpy(out, all, sizeof *out * (size_t)w);
        for (int r = 1; r < nprocs; r++)
            combine(all + r * w, out, w, sums);
    } else if (sums) {
        MPI_Op op;
        MPI_Op_create(max_sum, 1, &op);
        MPI_Allreduce(in, out, 1, rec, op, comm);
        MPI_Op_free(&op);
    } else {
        MPI_Allreduce(in, out, w, RIO_MPI_OFFSET_SIGNED, MPI_MAX, comm);
    }
    if (sums)
        MPI_Type_free(&rec);
    if (n)
        memcpy(vals, out + 1, sizeof *vals * (size_t)n);
    return agreed(comm, rank, nprocs, err, out[0]);
}

int rio__agree_max(MPI_Comm comm, int err, MPI_Offset *vals, int n)
{
    return agree_vals(comm, err, vals, n, 0);
}

int rio__agree_max_sum(MPI_Comm comm, int err, MPI_Offset *vals, int n)
{
    return agree_vals(comm, err, vals, n, 2);
}

int rio__agree(MPI_Comm comm, int err)
{
    return rio__agree_max(comm, err, NULL, 0);
}

/* ---- the nonblocking form (agree.h) ---------------------------------- */

int rio__agree_nb_start(struct rio_agree_nb *s, MPI_Comm comm, int err, const char *detail)
{
    memset(s, 0, sizeof *s);
    s->comm = comm;
    s->err = err;
    MPI_Comm_rank(comm, &s->rank);
    MPI_Comm_size(comm, &s->nprocs);
    s->in = key_of(err, s->rank, s->nprocs);
    if (err)
        snprintf(s->a.detail, sizeof s->a.detail, "%s", detail ? detail : "");
    s->stage = 1;
    if (MPI_Iallreduce(&s->in, &s->out, 1, RIO_MPI_OFFSET_SIGNED, MPI_MAX, comm, &s->req) !=
        MPI_SUCCESS) {
        s->stage = 0;
        rio__err_detail("the MPI library refused a nonblocking allreduce");
        return RIO_E_NOMEM;
    }
    return 0;
}

int rio__agree_nb_test(struct rio_agree_nb *s, int block, int *err, char *detail, size_t len)
{
    while (s->stage == 1 || s->stage == 2) {
        int flag = 0;
        if (block)
            flag = MPI_Wait(&s->req, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        else
            MPI_Test(&s->req, &flag, MPI_STATUS_IGNORE);
        if (!flag)
            return 0;
        if (s->stage == 2) {
            s->stage = 3;
            break;
        }
        s->first = first_of(s->out, s->nprocs);
        if (s->first < 0) { /* nobody failed */
            s->a.err = 0;
            s->a.detail[0] = '\0';
            s->stage = 3;
            break;
        }
        if (s->rank == s->first)
            s->a.err = s->err;
        s->stage = 2;
        MPI_Ibcast(&s->a, (int)sizeof s->a, MPI_BYTE, s->first, s->comm, &s->req);
    }
    *err = s->a.err;
    if (!s->a.err || s->rank == s->first)
        snprintf(detail, len, "%s", s->a.err ? s->a.detail : "");
    else
        from_rank(detail, len, s->first, s->a.detail);
    return 1;
}
