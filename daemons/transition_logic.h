/*
 * transition_logic.h - the transitioner's decision for one workunit, as a
 * pure function of the workunit, its results and the time: which results
 * timed out, which get credit, which are no longer needed, whether the
 * workunit gets a canonical result or an error, and how many new results
 * it needs.  No I/O: the transitioner reads the rows, calls tl_decide()
 * and writes what it says (see doc/locality.md, "Daemons" and "Result
 * outcomes and credit").
 *
 * Rules without a validator (config validator = none: a success is valid):
 *   - a result IN_PROGRESS whose report_deadline is before now becomes
 *     OVER with outcome NO_REPLY;
 *   - every SUCCESS result not yet granted (validate_state 0) gets the
 *     job's credit, also after the workunit has finished;
 *   - an unfinished workunit with min_quorum successes gets the earliest
 *     reported success (then the lowest id) as canonical result;
 *   - else more than max_error_results errors (CLIENT_ERROR,
 *     COULDNT_SEND, VALIDATE_ERROR; not NO_REPLY nor CLIENT_DETACHED,
 *     which are the host's fault, not the job's) set TOO_MANY_ERRORS;
 *   - else results are added until successes + unsent + in progress
 *     reach max(target_nresults, min_quorum), unless that would make more
 *     than max_total_results results (TOO_MANY_TOTAL); a result in
 *     progress whose host is presumed gone (TL_HOST_LOST) does not count
 *     as in progress here, so it gets a new replica; it still counts if
 *     it is reported (a success like any other), and while such results
 *     may come back, max_total_results only caps the new results (no
 *     error);
 *   - a backup (TL_BACKUP, a tail replica) counts like any result: while
 *     it is in progress the job has one result more than it needs;
 *   - once finished (canonical result or error), results not sent yet
 *     become OVER with outcome DIDNT_NEED.
 * With a validator (tl_wu.validating, doc/admin-guide.md "Validation"):
 *   - no credit and no canonical result here: the validator picks them;
 *     a success with validate_state INVALID counts as neither a success
 *     nor a live result (so a replacement is sent);
 *   - need_validate is set when a success waits for validation
 *     (validate_state INIT) and min_quorum successes not INVALID exist,
 *     or the workunit already has a canonical result (a late success is
 *     compared with it);
 *   - more than max_success_results successes without a canonical
 *     result set TOO_MANY_SUCCESS (the application may not be
 *     deterministic); the validator raises target_nresults when the
 *     successes disagree, so the rule above sends one more replica;
 *   - the validator, not this function, finishes a workunit with its
 *     canonical result: a finished workunit that is not (again) waiting
 *     for validation is "progressed", so that the transitioner
 *     recomputes its cursor or batch (newly_finished stays 0 there).
 */
#ifndef LOCSCHED_TRANSITION_LOGIC_H
#define LOCSCHED_TRANSITION_LOGIC_H

/* workunit.error_mask bits (BOINC's codes) set by the transitioner */
enum {
    TL_ERR_TOO_MANY_ERRORS = 2,
    TL_ERR_TOO_MANY_SUCCESS = 4,
    TL_ERR_TOO_MANY_TOTAL = 8
};

/* result.validate_state (BOINC's codes) */
enum {
    TL_VALIDATE_INIT = 0,
    TL_VALIDATE_VALID = 1,
    TL_VALIDATE_INVALID = 2,
    TL_VALIDATE_NO_CHECK = 3,
    TL_VALIDATE_INCONCLUSIVE = 4,
    TL_VALIDATE_TOO_LATE = 5
};

struct tl_wu {
    int min_quorum;
    int target_nresults;
    int max_error_results;
    int max_total_results;
    int canonical_resultid;   /* 0: none */
    int error_mask;
    int max_success_results;  /* used only when validating */
    int validating;           /* 1: a validator decides validity and credit */
};

/* result.replica_flags bits (db_lost.h's RF_*) */
enum { TL_BACKUP = 1, TL_HOST_LOST = 2 };

struct tl_result {
    int id;
    int server_state;         /* RS_* of db_sched.h */
    int outcome;              /* RO_* */
    int validate_state;       /* TL_VALIDATE_* */
    int received_time;
    int report_deadline;
    int replica_flags;        /* TL_BACKUP, TL_HOST_LOST */
};

/* What to do with one result. */
enum tl_action {
    TL_KEEP = 0,
    TL_TIMEOUT,               /* IN_PROGRESS -> OVER, NO_REPLY */
    TL_GRANT,                 /* grant the job's credit, validate_state VALID */
    TL_DIDNT_NEED             /* UNSENT or INACTIVE -> OVER, DIDNT_NEED */
};

struct tl_decision {
    int canonical_resultid;   /* after the decision (0: none) */
    int error_mask;           /* after the decision */
    int finished;             /* canonical result or error after the decision */
    int newly_finished;       /* finished now, not before */
    int progressed;           /* the cursor's or batch's progress may have moved:
                               * newly finished, or (validating) finished by the
                               * validator, which hands the workunit back here */
    int nnew;                 /* new results to create (UNSENT) */
    int need_validate;        /* validating: hand the workunit to the validator */
    int ntimeout, ngrant, ndidnt_need;
    /* counts after the timeouts, for log lines */
    int nsuccess, nerror, nunsent, ninprogress, ntotal;   /* nsuccess: not INVALID */
    int ninvalid;             /* successes found INVALID by the validator */
    int nlost;                /* of the in progress, those whose host is presumed gone */
};

/*
 * Decide for one workunit.  res[0..n) are all its results; act[i] gets
 * the action for res[i].  Never fails; an absurd workunit (no results,
 * quorum above target) still gets a decision that makes progress.
 */
void tl_decide(const struct tl_wu *wu, const struct tl_result *res, int n, int now,
               enum tl_action *act, struct tl_decision *d);

#endif /* LOCSCHED_TRANSITION_LOGIC_H */
