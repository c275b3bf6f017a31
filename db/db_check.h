/*
 * db_check.h - the read-only statements of tools/check_invariants: each
 * finds the rows that break one of locsched's invariants (doc/locality.md,
 * "Claims" and "Daemons"), or reads what the tool compares itself.
 *
 * Nothing here writes.  db_check_begin() makes the session read-only, so
 * that a mistake in a statement cannot change the database, and opens one
 * consistent snapshot that every later statement reads until db_commit().
 *
 * Result states and outcomes are those of db_sched.h; "sent" means
 * IN_PROGRESS, or OVER with an outcome only a sent result can have
 * (SUCCESS, CLIENT_ERROR, NO_REPLY, VALIDATE_ERROR, CLIENT_DETACHED).
 * A workunit is finished when canonical_resultid <> 0 or error_mask <> 0.
 */
#ifndef LOCSCHED_DB_CHECK_H
#define LOCSCHED_DB_CHECK_H

#include "db.h"

/* The checks that the database decides; each yields entity ids. */
enum db_check_id {
    DBC_SENT_UNASSIGNED = 0, /* results: sent, but hostid 0, userid NULL or sent_time 0 */
    DBC_UNSENT_ASSIGNED,     /* results: not sent (INACTIVE, UNSENT), yet with a host,
                              * a user or a sent time: sent once, to be sent again */
    DBC_SAME_HOST,           /* workunits: two results with the same hostid */
    DBC_DUP_NAME,            /* results: another result has the same name (lowest id) */
    DBC_SAME_USER,           /* workunits: two sent results of one user (the result's
                              * userid, else its host's) */
    DBC_USER_MISMATCH,       /* results: userid differs from the user of their host */
    DBC_WU_STUCK,            /* workunits of IN_PROGRESS batches: unfinished, no UNSENT
                              * or IN_PROGRESS result, transition_time not yet due */
    DBC_JOB_TWICE,           /* workunits: another has the same cursor and job number */
    DBC_MEMBER_ORPHAN,       /* hosts: a batch_host row whose cursor is missing or
                              * belongs to another batch */
    DBC_TWO_BACKUPS,         /* workunits: more than one backup (RF_BACKUP) in progress */
    DBC_BACKUP_UNSENT,       /* results: a backup that is not sent (backups are made
                              * claimed, for one host) */
    DBC_TOO_MANY_RESULTS,    /* workunits: more results than max_total_results */
    DBC_LOST_UNFLAGGED,      /* results: in progress on a host presumed gone, deadline
                              * after that, job unfinished, but not flagged RF_HOST_LOST */
    DBC_LOST_UNREPLACED,     /* workunits of IN_PROGRESS batches: unfinished, a result
                              * flagged RF_HOST_LOST in progress, fewer live results
                              * than needed, room under max_total_results, and no
                              * transition due: the lost result was never replaced */
    DBC_CREDIT_NOT_VALID,    /* results: granted credit, yet validate_state not VALID */
    DBC_VALIDATE_STATE,      /* results: VALID or INCONCLUSIVE but not a reported
                              * success, or INVALID but not over (the scheduler
                              * marks a lost job INVALID with CLIENT_ERROR, as
                              * BOINC does) */
    DBC_CANONICAL_NOT_VALID, /* workunits: the canonical result is missing, of another
                              * workunit, or not a VALID success */
    DBC_SENT_HOST_MISSING,   /* results: IN_PROGRESS with a hostid that no host row has */
    DBC_NCHECKS
};

/*
 * Make the session read-only and start one consistent snapshot (two
 * statements).  Returns DB_OK or an error.
 */
int db_check_begin(struct db_conn *c);

/*
 * Run check which with the clock at now: *count gets how many entities
 * break it, ids[0..*nids) the lowest max_ids of their ids, ascending
 * (one statement).  Returns DB_OK or an error naming the check.
 */
int db_check_ids(struct db_conn *c, enum db_check_id which, int now, int max_ids,
                 long long *count, int *ids, int *nids);

/*
 * A locality cursor with what its counters must agree with, counted by
 * the database.  "Unfinished job": a batch_job row of the cursor's range
 * with no finished workunit in the cursor for it.
 */
struct db_check_cursor {
    int id, batch_id, batch_state;   /* batch_state -1: the batch is gone */
    int first_job_num, last_job_num;
    int first_unfinished_job_num, first_ungenerated_job_num;
    int nhosts;
    double remaining_credit, expavg_credit, max_host_credit;
    /* db_check_cursors() */
    long long generated_below;    /* distinct job numbers with a workunit in
                                   * [first_job_num, first_ungenerated_job_num) */
    long long generated_ahead;    /* workunits with job_num >= first_ungenerated_job_num */
    long long members;            /* batch_host rows with this cursor_id */
    double members_rate;          /* their credit_rate, summed */
    double members_max_rate;      /* and the largest (0 without members) */
    /* db_check_cursor_jobs() */
    long long jobs_ahead;         /* batch_job rows in [first_ungenerated, last] */
    long long unfinished_behind;  /* unfinished jobs in [first_job_num,
                                   * first_unfinished_job_num) */
    double unfinished_fpops;      /* rsc_fpops_est of the unfinished jobs in
                                   * [first_job_num, last_job_num] */
};

/* Every cursor with its own columns and the counts of its workunits and
 * team, in id order (one statement).  row(ctx, r) returns 0 to go on or
 * a negative status to stop; it must not run statements itself (the rows
 * are still being read): collect them, then call db_check_cursor_jobs(). */
int db_check_cursors(struct db_conn *c,
                     int (*row)(void *ctx, const struct db_check_cursor *r), void *ctx);

/* Fill r's jobs_ahead, unfinished_behind and unfinished_fpops from its
 * batch's job descriptions and its workunits (one statement, by primary
 * key ranges: a few milliseconds per cursor of 1000 jobs). */
int db_check_cursor_jobs(struct db_conn *c, struct db_check_cursor *r);

#endif /* LOCSCHED_DB_CHECK_H */
