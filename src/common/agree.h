/*
 * agree.h — how the ranks of a collective call agree on its outcome.
 *
 * Every collective call of resonio ends with one agreement: each rank
 * brings its own error, all return the same one.  The file layer ends its
 * collective calls with it; the collective engine ends every data call
 * with it and lets its own measurements ride along (the maximum over the
 * ranks of a few values, in the same single collective), so an agreement
 * costs one collective whoever calls it.
 */
#ifndef RIO_AGREE_H
#define RIO_AGREE_H

#include "common.h"

/** The most values rio__agree_max carries. */
#define RIO_AGREE_MAX_VALS 8

/** Collective over comm: every rank returns the error of the lowest rank
 *  that failed for a cause of its own (with its detail, see
 *  rio__err_detail), else of the lowest that saw another rank fail
 *  (RIO_E_REMOTE), or 0. */
int rio__agree(MPI_Comm comm, int err);
/** rio__agree that also gives every rank the maximum over the ranks of
 *  each of vals[0 .. n-1] (n <= RIO_AGREE_MAX_VALS, the same on every
 *  rank), in place, in the same single collective. */
int rio__agree_max(MPI_Comm comm, int err, MPI_Offset *vals, int n);
/** rio__agree_max where the last two of vals[0 .. n-1] (2 <= n <=
 *  RIO_AGREE_MAX_VALS) are summed over the ranks rather than maximised,
 *  in the same single collective. */
int rio__agree_max_sum(MPI_Comm comm, int err, MPI_Offset *vals, int n);
/** What the rank whose error is reported broadcasts: its error and
 *  detail. */
struct rio_agreed {
    int err;
    char detail[480];
};
/** The same agreement made of nonblocking collectives (an allreduce of
 *  the key, then, if some rank failed, a broadcast of its error and
 *  detail), for a caller that may call MPI only now and then: start it,
 *  then test it until it says done.  Every rank starts its agreements on
 *  one communicator in the same order. */
struct rio_agree_nb {
    MPI_Comm comm;
    int rank, nprocs, stage; /* 1: the allreduce, 2: the broadcast, 3: done */
    int err, first;
    MPI_Offset in, out;
    MPI_Request req;
    struct rio_agreed a;
};
/** Start: err and detail (NULL: none) are this rank's.  Returns 0, or an
 *  internal code when MPI refused (nothing is outstanding then). */
int rio__agree_nb_start(struct rio_agree_nb *s, MPI_Comm comm, int err, const char *detail);
/** Move the agreement on; block: wait for it to end.  Returns 1 when it
 *  has ended (*err the agreed error, detail[0..len) its detail as
 *  rio__agree gives it: "on rank N: ..." when another rank's), else 0. */
int rio__agree_nb_test(struct rio_agree_nb *s, int block, int *err, char *detail, size_t len);

/** Communicators of at most this many ranks agree by allgather, larger
 *  ones by allreduce (default 8; tests set 0 to take the reduction).
 *  Returns the previous value.  Process-wide; not for concurrent use. */
int rio__agree_gather_ranks(int ranks);

#endif /* RIO_AGREE_H */
