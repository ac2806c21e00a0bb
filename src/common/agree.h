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
/** Communicators of at most this many ranks agree by allgather, larger
 *  ones by allreduce (default 8; tests set 0 to take the reduction).
 *  Returns the previous value.  Process-wide; not for concurrent use. */
int rio__agree_gather_ranks(int ranks);

#endif /* RIO_AGREE_H */
