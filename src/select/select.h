/*
 * select.h — adaptive selection of collective strategies (orthrus.txt
 * §2.1), with decisions kept in profiles across runs.
 *
 * The collective engine asks the selector which strategy runs a call with
 * strategy "auto", and tells it afterwards how fast the call was.  Every
 * input is the same on every rank (the signature comes from the engine's
 * summary, the throughput from the slowest rank's time, the profile is
 * read by rank 0 and broadcast), so every rank decides the same without
 * further communication.
 */
#ifndef RIO_SELECT_H
#define RIO_SELECT_H

#include <stdio.h>

#include "../common/common.h"

/* A call's signature: operation, ranks, bytes and regions of all ranks,
 * and the mean gap between consecutive requests in offset order. */
struct rio_sel_sig {
    int write;
    int nprocs;
    long long bytes, regions, relgap;
};

struct rio_select;

/* The selector's hints (keys in select.c). */
struct rio_select_settings {
    int select_calls;               /* resonio_select_calls: calls per candidate (3) */
    char *select_threshold;         /* resonio_select_threshold (0.15), owned */
    char *select_prune;             /* resonio_select_prune (0.5; 0 off), owned */
    int select_patience;            /* resonio_select_patience: consecutive deviating
                                       calls that start a re-examination (2) */
    char *select_candidates;        /* resonio_select_candidates: comma list, owned */
    enum rio_tristate select_reuse; /* resonio_select_reuse: start from the decisions of
                                       earlier files of this process (default automatic);
                                       enable: and go on with their unfinished
                                       examinations */
    char *profile;                  /* resonio_profile: path, owned */
};
extern const struct rio_settings_owner rio__select_settings_owner;
/** The selector's settings in h (its defaults when h is NULL or has no
 *  owners); lives as long as h. */
static inline const struct rio_select_settings *rio__select_settings(const struct rio_hints *h)
{
    return rio__settings_get(h, &rio__select_settings_owner);
}

/**
 * Make the selector of one file.  Collective over comm: rank 0 reads the
 * profile (resonio_profile, else RESONIO_PROFILE; none: no profile) and
 * broadcasts it.  storage names the storage and its layout (decisions are
 * kept per storage).  A missing, truncated, corrupted or other-version
 * profile is ignored (with a warning under RESONIO_VERBOSE).
 * Errors: RIO_E_NOMEM.
 */
int rio__select_create(MPI_Comm comm, const struct rio_hints *hints, const char *storage,
                       struct rio_select **out);
void rio__select_free(struct rio_select *s);
/** Take resonio_select_calls, _threshold and _candidates from hints (they
 *  may change with MPI_File_set_info).  Local; the same on every rank when
 *  the hints are. */
void rio__select_configure(struct rio_select *s, const struct rio_hints *hints);

/**
 * The strategy for a call with signature sig, among the applicable
 * candidates cands[0..ncand) (in the order to examine them).  Local and
 * deterministic.  reason receives why (examining, chosen, from profile).
 * The name returned is one of cands.
 */
const char *rio__select_choose(struct rio_select *s, const struct rio_sel_sig *sig,
                               const char *const *cands, int ncand, char *reason, size_t len);
/** Whether the next choices are for calls the selector must not examine
 *  with (a nonblocking call, whose time is not the strategy's): while a
 *  re-examination of their signature is under way they get the strategy
 *  it started from, and nothing is recorded; the examination goes on with
 *  the other calls.  A signature never decided is examined with any call.
 *  Local; the same on every rank. */
void rio__select_hold(struct rio_select *s, int hold);
/** Whether the last choice was such a held one. */
int rio__select_held(const struct rio_select *s);

/** Among the candidates of sig's decision (or, while a re-examination
 *  holds calls, of the decision it started from) that fits passes, the
 *  one measured fastest, when its mean throughput is at least share times
 *  the decision's; NULL when none is, when the decision is not measured in
 *  this selector (a profile's, an earlier file's) or it passes fits
 *  itself.  Local, changes nothing. */
const char *rio__select_near(const struct rio_select *s, const struct rio_sel_sig *sig,
                             int (*fits)(const char *name), double share);

/** The strategy chosen for signature sig, if it has been seen and its
 *  examination is over; NULL otherwise.  Local, changes nothing. */
const char *rio__select_peek(const struct rio_select *s, const struct rio_sel_sig *sig);

/** The strategy every decision of the selector for calls of this kind
 *  (write or read) on nprocs ranks names, its own and those it starts
 *  with (an earlier file's, the profile's), when there is at least one,
 *  they all name the same and the candidates filter passes it; NULL when
 *  they differ or a signature of the kind is being examined.  A call may
 *  run it before its signature is known.  Local, changes nothing. */
const char *rio__select_predict(const struct rio_select *s, int write, int nprocs);
/** If the selector's decision for sig (its own, an earlier file's or the
 *  profile's) is name, choose it as rio__select_choose does and return 1;
 *  else return 0 and change nothing.  A signature the selector has not
 *  seen gets name as its only candidate until a call through
 *  rio__select_choose brings the applicable ones.  Local. */
int rio__select_choose_known(struct rio_select *s, const struct rio_sel_sig *sig,
                             const char *name, char *reason, size_t len);

/**
 * The throughput (bytes per second: all ranks' bytes over the slowest
 * rank's time) of the last call choose() answered.  Local; must be called
 * with the same value on every rank.  Ends examinations, detects
 * deviations, and (rank 0) saves the profile when a decision changes.
 */
void rio__select_record(struct rio_select *s, double throughput);
/** Add seconds spent selecting to the signature of the call just chosen
 *  for (its select_time).  Local. */
void rio__select_charge(struct rio_select *s, double seconds);

int rio__select_count(const struct rio_select *s);
int rio__select_get(const struct rio_select *s, int i, struct rio_select_info *out);
/** One block per signature, for RESONIO_STATS. */
void rio__select_report(const struct rio_select *s, FILE *to);

#endif /* RIO_SELECT_H */
