/*
 * db_tail.h - the scheduler's statements for backup replicas of a batch's
 * tail (sched/scheduler/job_source_tail.c; doc/locality.md, "Lost hosts
 * and tail replicas").  None runs when the regular sources sent work; a
 * request that gets no job reads the candidates (one statement), and one
 * that gets a backup three more (lock, budget, insert).
 */
#ifndef LOCSCHED_DB_TAIL_H
#define LOCSCHED_DB_TAIL_H

#include "db_sched.h"

/* A result in progress that could get a backup, with its workunit (as a
 * candidate for a new result) and what is known of its host. */
struct db_tail_cand {
    struct db_candidate wu;        /* result_id, result_name: the original's */
    int sent_time, report_deadline;
    double flops_estimate;         /* the speed assumed when it was sent */
    int host_rpc_time, host_lost_time, host_turnaround_n;
    double host_avg_turnaround, host_on_frac, host_active_frac;
    double host_gap_avg, host_gap_dev;
    int host_gap_n;
    int nresults;                  /* results the workunit has */
    double batch_total_fpops;      /* its batch's flops, and what its backups */
    double batch_backup_fpops;     /* have taken of the budget */
};

/*
 * Up to limit results in progress of IN_PROGRESS batches of the apps
 * appids[0..nappids), oldest deadline first (ind_res_deadline), whose
 * workunit is unfinished, has no unsent result, no backup in progress and
 * no result of userid, fewer than max_total_results results and fewer
 * than min_quorum successes not judged invalid (a job with its quorum
 * in waits for the transitioner, and a backup then is wasted); the
 * result itself is neither a backup nor on a host presumed gone (those
 * have their replacement).  A locality batch is in its tail only when no
 * cursor has a job left to generate or an unsent result (ind_cursor_batch,
 * then ind_res_unsent per cursor): the budget spent on one
 * cursor's tail while others still have work would not shorten the batch
 * and be missing at its end.  (A plain batch's results come here only
 * when the plain source found nothing unsent.)  Only reads.
 */
int db_tail_candidates(struct db_conn *c, int userid, const int *appids, int nappids, int now,
                       int limit, struct db_tail_cand *out, int *n);

/* Lock the workunit row (FOR UPDATE SKIP LOCKED): DB_OK when locked,
 * DB_NOTFOUND when another request holds it (or it is gone). */
int db_tail_lock_wu(struct db_conn *c, int wuid);

/*
 * Reserve fpops of the batch's backup budget: backup_fpops grows by fpops
 * if it stays within share * total_fpops.  *ok gets 1 if it did.  A
 * negative fpops gives a reservation back (always).
 */
int db_tail_budget(struct db_conn *c, int batch_id, double fpops, double share, int *ok);

/* The backup, sent to hostid/userid at now (server_state IN_PROGRESS,
 * replica_flags RF_BACKUP), if the workunit still needs none: unfinished,
 * no backup in progress, no result of userid, under max_total_results,
 * short of its quorum of successes.
 * *id gets its id, 0 when it was not made (or DB_DUP: its name is taken). */
struct db_tail_new {
    int wuid;
    const char *name;
    int hostid, userid, app_version_id, report_deadline, now;
    double flops_estimate;
};
int db_tail_insert(struct db_conn *c, const struct db_tail_new *b, int *id);

#endif
