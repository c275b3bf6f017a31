/*
 * db_batch.h - the statements of the batch tools (batch_status,
 * abort_batch, retire_batch): find a batch, read its cursors and its
 * job counts (aggregated in the database, grouped by cursor), read the
 * per-job states in job order, and the writes of abort and retire.
 *
 * A job is "done" when its workunit is finished (canonical_resultid <> 0
 * or error_mask <> 0); "in progress" when it is not finished and one of
 * its results is out (IN_PROGRESS) or every one of its results is over
 * (reported, waiting for the transitioner); otherwise "unsent" (a result
 * waits to be sent, or the workunit has no result).  Jobs of a locality
 * batch that have no workunit yet are unsent too; the callers count them.
 */
#ifndef LOCSCHED_DB_BATCH_H
#define LOCSCHED_DB_BATCH_H

#include "db.h"
#include "db_sched.h"

/* BOINC's WU_ERROR_CANCELLED bit of workunit.error_mask. */
#define DB_WU_ERROR_CANCELLED 16

/* The state of one job, as db_batch_job_states reports it. */
enum { DB_JOB_DONE = 0, DB_JOB_IN_PROGRESS = 1, DB_JOB_UNSENT = 2 };

struct db_batch_row {
    int id;
    char name[DB_NAME_MAX];
    int state;          /* BS_* of db_sched.h */
    int locality;
    int njobs;
    int nfiles;
};

/*
 * Find a batch: the one named name, else (id > 0) the one with that id.
 * With lock, the row is read FOR UPDATE (inside a transaction).
 * Returns DB_OK, DB_NOTFOUND or an error.
 */
int db_batch_lookup(struct db_conn *c, const char *name, int id, int lock,
                    struct db_batch_row *b);

/* Every batch in id order; retired ones only with include_retired.
 * row(ctx, b) returns 0 to go on or a negative status to stop. */
int db_batch_list(struct db_conn *c, int include_retired,
                  int (*row)(void *ctx, const struct db_batch_row *b), void *ctx);

struct db_batch_cursor_row {
    int id;
    int first_job_num, last_job_num;
    int first_unfinished_job_num, first_ungenerated_job_num;
    int nhosts;
    double expavg_credit, max_host_credit, remaining_credit;
};

/* The cursors of a batch in job order (one statement). */
int db_batch_cursors(struct db_conn *c, int batch_id,
                     int (*row)(void *ctx, const struct db_batch_cursor_row *r), void *ctx);

/* Job counts of the workunits of one cursor (cursor_id 0: workunits of no
 * cursor, i.e. those of a plain batch). */
struct db_job_counts {
    int cursor_id;
    long long generated;     /* workunits */
    long long done;
    long long in_progress;
};

/* The batch's workunits counted by state, one row per cursor_id (one
 * statement). */
int db_batch_job_counts(struct db_conn *c, int batch_id,
                        int (*row)(void *ctx, const struct db_job_counts *r), void *ctx);

/* The state (DB_JOB_*) of every workunit of the batch in job_num order
 * (one statement); row(ctx, job_num, state). */
int db_batch_job_states(struct db_conn *c, int batch_id,
                        int (*row)(void *ctx, int job_num, int state), void *ctx);

struct db_abort_counts {
    long long results_cancelled;    /* unsent/inactive -> OVER, DIDNT_NEED */
    long long workunits_cancelled;  /* error_mask |= DB_WU_ERROR_CANCELLED */
    long long results_in_progress;  /* left to be reported */
};

/*
 * The writes of aborting a batch (the caller runs them in one transaction
 * with the batch row locked and then sets the state): results not sent
 * yet become OVER with outcome DIDNT_NEED, unfinished workunits get the
 * cancelled bit and transition_time = now; counts what changed and the
 * results still in progress.
 */
int db_batch_abort_jobs(struct db_conn *c, int batch_id, int now, struct db_abort_counts *n);

struct db_retire_counts {
    long long members_removed;   /* batch_host rows deleted */
    long long cursors_emptied;   /* cursors whose team figures were reset */
};

/*
 * The writes of retiring a batch (in the caller's transaction): delete its
 * batch_host rows and set its cursors' nhosts, expavg_credit and
 * max_host_credit to 0.
 */
int db_batch_retire_teams(struct db_conn *c, int batch_id, struct db_retire_counts *n);

#endif /* LOCSCHED_DB_BATCH_H */
