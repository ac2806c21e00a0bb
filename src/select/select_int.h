/*
 * select_int.h — private declarations of the selector.
 */
#ifndef RIO_SELECT_INT_H
#define RIO_SELECT_INT_H

#include "select.h"

/* One candidate slot per collective strategy: the strategies' list (pure
 * data, one row per strategy) is counted here, so a new row there grows
 * the selector with it.  The public struct rio_select_info must hold them
 * all (checked in select.c). */
enum {
    SEL_MAX_CAND = 0
#define RIO_STRATEGY(name) +1
#include "../coll/strategies/list.h"
#undef RIO_STRATEGY
};
#define SEL_NAME_LEN 16 /* a strategy's name and its NUL (struct rio_select_info) */

#define SEL_MAX_SIGS 64
#define SEL_STORAGE_LEN 64
#define SEL_MAX_PATIENCE 64 /* re-examinations that keep the choice double the
                               patience up to this (a larger configured one stays) */

/* Where an examination stands: what a later file needs to go on with it. */
struct sel_exam {
    int ncand;
    char cand[SEL_MAX_CAND][SEL_NAME_LEN];
    double sum[SEL_MAX_CAND];         /* examined throughput, summed */
    int n[SEL_MAX_CAND];
    int given[SEL_MAX_CAND];          /* calls handed out in this examination */
    long long exam_pos;               /* calls handed out in this examination */
    int cur, cur_calls;               /* candidate being examined, its calls so far */
    unsigned char pruned[SEL_MAX_CAND]; /* dropped after one slow call */
    int prev_chosen;                  /* the choice a re-examination started from,
                                         -1 for a first examination */
    unsigned char behind[SEL_MAX_CAND]; /* the last decided examination measured it
                                           more than the threshold below the choice, or
                                           pruned it (kept across re-examinations) */
};

struct sel_entry {
    struct rio_sel_sig sig;
    struct sel_exam x;                /* the candidates, and the examination */
    int examining;
    int chosen;                       /* index in cand, -1 while examining */
    double chosen_avg;
    int from_profile;
    int from_earlier;                 /* the decision came from an earlier file */
    int partial;                      /* made by rio__select_choose_known: its only
                                         candidate is the decision, until a call
                                         brings the applicable ones */
    int baseline;                     /* calls of a remembered choice still to measure
                                         before its calls are judged */
    double base_sum;
    long long calls, exam_calls;
    int reexams;
    int deviating;                    /* consecutive calls of the choice slower than
                                         its mean by more than the threshold */
    int patience;                     /* deviating calls that start a re-examination:
                                         resonio_select_patience, doubled each time a
                                         re-examination keeps the choice */
    char causes[RIO_SELECT_MAX_CAUSES][96];
    double time, time_chosen;         /* seconds spent selecting (rio__select_charge) */
    char said[160];                   /* the reason given for the choice, formatted */
    int said_k, said_from;            /* once per decision: what it was formatted for */
    double said_avg;
};

/* A decision read from (or to be written to) a profile. */
struct prof_entry {
    char storage[SEL_STORAGE_LEN];
    struct rio_sel_sig sig;
    char strategy[SEL_NAME_LEN];
    double tput;
    int earlier;                      /* from an earlier file of this process */
    int patience;                     /* earlier file: its entry's patience */
    /* An examination an earlier file left unfinished (exam set; strategy
     * and tput unused): where it stood, for the next file to go on. */
    int exam;
    struct sel_exam x;
};

struct rio_select {
    int rank;
    int warned_threshold;
    int calls_per;
    double threshold;
    double prune;                     /* resonio_select_prune */
    int patience;                     /* resonio_select_patience */
    int warned_prune;
    char filter[256];                 /* resonio_select_candidates */
    /* the text of the hints the values above were parsed from: a call
     * whose hints say the same parses nothing (strtod is ~350
     * instructions, per call) */
    int configured;
    char seen_threshold[32], seen_prune[32];
    char storage[SEL_STORAGE_LEN];    /* driver and layout */
    struct sel_entry e[SEL_MAX_SIGS];
    int n;
    unsigned evict;
    int pending, pend_entry, pend_cand;
    int pend_chosen;                  /* the pending call ran the chosen strategy */
    int hold, held;                   /* rio__select_hold; the last choice was held */
    char *profile_path;
    struct prof_entry *prof;          /* loaded from the profile */
    int nprof;
};

/* profile.c */
/** Rank 0 reads and checks the profile, every rank gets it.  Collective.
 *  Errors only RIO_E_NOMEM; a bad profile is ignored. */
int rio__select_profile_load(struct rio_select *s, MPI_Comm comm);
/** The loaded decision for sig on this storage, or NULL. */
const struct prof_entry *rio__select_profile_find(const struct rio_select *s,
                                                  const struct rio_sel_sig *sig);
/** Rewrite the profile with the loaded decisions and this file's, through a
 *  temporary file and rename.  Rank 0 only; failures are warnings. */
void rio__select_profile_save(struct rio_select *s);
/** Remember e's decision for later files of this process, or, while e
 *  is examining with results in, where its examination stands.  Local. */
void rio__select_memory_put(const struct rio_select *s, const struct sel_entry *e);
/** Rank 0's remembered decisions for this storage go ahead of the
 *  profile's, to every rank, as rank 0's resonio_select_reuse says:
 *  automatic the decisions, enable the unfinished examinations too (which
 *  do not displace a profile's decision), disable none.  Collective.
 *  Errors only RIO_E_NOMEM. */
int rio__select_memory_load(struct rio_select *s, MPI_Comm comm, enum rio_tristate reuse);

#endif /* RIO_SELECT_INT_H */
