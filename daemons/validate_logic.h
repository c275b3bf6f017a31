/*
 * validate_logic.h - the validator's decision for one workunit, as a pure
 * function of its successful results and a comparison of two of them
 * (the I/O side compares output files; see validator.c).  No I/O.
 *
 * Rules (doc/admin-guide.md, "Validation"):
 *   - a result whose output is unusable (missing, unreadable, over its
 *     cap: bad) is INVALID;
 *   - with a canonical result already chosen, each new result is VALID
 *     if it matches the canonical one, else INVALID (a canonical result
 *     that is no longer among the results: NO_CHECK, no credit);
 *   - else the candidates (not bad, INIT or INCONCLUSIVE) are tried in
 *     report order (received_time, then id): the first whose matches
 *     (itself included) reach min_quorum becomes canonical, its matches
 *     VALID, the other candidates INVALID;
 *   - else (no consensus) every candidate is INCONCLUSIVE and the
 *     workunit needs one more result than it has candidates
 *     (target_nresults is raised; the transitioner sends a replica up to
 *     max_total_results / max_success_results).
 */
#ifndef LOCSCHED_VALIDATE_LOGIC_H
#define LOCSCHED_VALIDATE_LOGIC_H

#define VA_MAX_RESULTS 64      /* successes of one workunit compared */

struct va_result {
    int id;
    int validate_state;        /* TL_VALIDATE_* (transition_logic.h) */
    int received_time;
    int bad;                   /* output unusable */
};

/* Compare results i and j (indexes into the array): 1 match, 0 not. */
typedef int (*va_cmp_fn)(void *ctx, int i, int j);

struct va_decision {
    int canonical;             /* index of the canonical result, -1 if none */
    int target_nresults;       /* at least this many results (0: unchanged) */
    int nvalid, ninvalid, ninconclusive, nbad, ncompared;
};

/*
 * Decide.  res[0..n) are the workunit's successful results (n at most
 * VA_MAX_RESULTS), canonical_resultid the workunit's (0: none).  state[i]
 * gets the new validate_state of res[i] (unchanged for results already
 * decided).  cmp is called at most once per pair.
 */
void va_decide(int min_quorum, int canonical_resultid, const struct va_result *res, int n,
               va_cmp_fn cmp, void *ctx, int *state, struct va_decision *d);

#endif
