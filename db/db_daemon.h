/*
 * db_daemon.h - the statements of the three daemons (work generator,
 * transitioner, locality daemon).  Each function is one prepared
 * statement unless it says otherwise.  The daemons call them inside
 * db_transaction(), one transaction per unit of work (one cursor, one
 * workunit); the listing functions only read and lock nothing.
 *
 * Partitioning (--mod N I): listing functions take mod_n and mod_i and
 * return only ids with id % mod_n == mod_i (mod_n 1: all).
 */
#ifndef LOCSCHED_DB_DAEMON_H
#define LOCSCHED_DB_DAEMON_H

#include "db.h"
#include "db_sched.h"

/* workunit.transition_time of a workunit that needs no transition until
 * something happens to it (a report, a deadline): BOINC's INT_MAX. */
#define DB_TRANSITION_NEVER 2147483647

/* ---------------------------------------------------------- work generator */

/* A cursor with jobs left to generate, with what its workunits copy from
 * the batch. */
struct db_wg_cursor {
    int id;
    int batch_id;
    int first_ungenerated_job_num;
    int last_job_num;
    char batch_name[DB_NAME_MAX];
    int appid, delay_bound;
    int target_nresults, min_quorum, max_error_results, max_total_results;
    double rsc_memory_bound, rsc_disk_bound, max_out_nbytes;
};

/* The cursors of IN_PROGRESS locality batches that have jobs left to
 * generate, in id order.  row(ctx, r) returns 0 to go on, < 0 to stop. */
int db_wg_cursors(struct db_conn *c, int mod_n, int mod_i,
                  int (*row)(void *ctx, const struct db_wg_cursor *r), void *ctx);

/* Read a cursor's generation point, last job and frontier (the next
 * stretch; no lock: the final db_wg_generated() checks that nobody moved
 * the generation point meanwhile).  DB_NOTFOUND if it is gone. */
int db_wg_cursor_read(struct db_conn *c, int cursor_id, int *first_ungenerated, int *last_job,
                      int *frontier);

/* Jobs of the cursor with at least one UNSENT result (uses
 * ind_res_unsent only). */
int db_wg_unsent_jobs(struct db_conn *c, int cursor_id, long long *njobs);

struct db_wg_job {
    int job_num;
    int first_file_num;
    int nfiles;
    double rsc_fpops_est;
    char command_line[DB_CMDLINE_MAX];
};

/* batch_job rows of batch_id with from <= job_num < to, in job order. */
int db_wg_jobs(struct db_conn *c, int batch_id, int from, int to,
               int (*row)(void *ctx, const struct db_wg_job *j), void *ctx);

/* The batch, cursor and job of the workunit named name (to tell a name
 * clash from a job generated twice).  DB_NOTFOUND if there is none. */
int db_wg_wu_by_name(struct db_conn *c, const char *name, int *batch, int *cursor_id,
                     int *job_num);

/*
 * Finish a generated range [from, to) (two statements): its workunits get
 * transition_time DB_TRANSITION_NEVER (they need no transition before a
 * report or a deadline), and the cursor's first_ungenerated_job_num goes
 * from "from" to "to".  DB_ABORT (with the reason in db_error()) when the
 * cursor's first_ungenerated_job_num was no longer "from": another
 * generator got there first, and the caller's transaction must roll back.
 * The cursor row is locked only by this last statement, so schedulers
 * changing the team figures of the same row wait for a commit, not for a
 * whole generation.
 */
int db_wg_generated(struct db_conn *c, int cursor_id, int from, int to);

/* ------------------------------------------------------------ transitioner */

/* Up to limit distinct workunits (by id) with a result IN_PROGRESS past
 * its report_deadline (uses ind_res_deadline).  *n gets the count. */
int db_tr_deadline_wus(struct db_conn *c, int now, int mod_n, int mod_i, int limit, int *ids,
                       int *n);

/* Up to limit workunits with transition_time <= now, earliest first
 * (uses ind_wu_transition). */
int db_tr_due_wus(struct db_conn *c, int now, int mod_n, int mod_i, int limit, int *ids, int *n);

struct db_tr_wu {
    int id;
    char name[DB_NAME_MAX];
    int appid, batch, cursor_id, job_num;
    double rsc_fpops_est;
    int min_quorum, target_nresults, max_error_results, max_total_results;
    int max_success_results;
    int canonical_resultid, error_mask, transition_time;
    double canonical_credit;
};

/* Lock a workunit row (FOR UPDATE).  DB_NOTFOUND if it is gone. */
int db_tr_wu_lock(struct db_conn *c, int wuid, struct db_tr_wu *w);

struct db_tr_result {
    int id;
    int server_state, outcome, validate_state;
    int received_time, report_deadline;
    int hostid, userid;       /* userid 0 while unsent */
    int replica_flags;        /* RF_* of db_lost.h */
};

/* Lock all results of a workunit (FOR UPDATE), in id order, into
 * out[0..max); more than max is an error naming the workunit. */
int db_tr_results_lock(struct db_conn *c, int wuid, struct db_tr_result *out, int max, int *n);

/* A result IN_PROGRESS becomes OVER with outcome NO_REPLY. */
int db_tr_result_timeout(struct db_conn *c, int result_id);

/* A successful result gets its credit: granted_credit, validate_state 1. */
int db_tr_result_grant(struct db_conn *c, int result_id, double credit);

/* Results of a workunit not sent yet (UNSENT, INACTIVE) become OVER with
 * outcome DIDNT_NEED; *n gets how many. */
int db_tr_unsent_didnt_need(struct db_conn *c, int wuid, long long *n);

/* Credit figures of a host or a user. */
struct db_credit {
    double total_credit;
    double expavg_credit;
    double expavg_time;
};

/* Lock and read / write a host's or a user's credit (DB_NOTFOUND if the
 * row is gone). */
int db_tr_host_credit_lock(struct db_conn *c, int hostid, struct db_credit *cr);
int db_tr_host_credit_set(struct db_conn *c, int hostid, const struct db_credit *cr);
int db_tr_user_credit_lock(struct db_conn *c, int userid, struct db_credit *cr);
int db_tr_user_credit_set(struct db_conn *c, int userid, const struct db_credit *cr);

/* Store the decision for a workunit: canonical result and its credit,
 * error mask, and the next transition time.  A workunit that is now
 * finished becomes READY for the assimilator (assimilate_state 1). */
int db_tr_wu_decided(struct db_conn *c, int wuid, int canonical_resultid,
                     double canonical_credit, int error_mask, int transition_time);

/* A cursor's progress, locked (FOR UPDATE). */
struct db_tr_cursor {
    int id;
    int batch_id;
    int first_job_num, last_job_num;
    int first_unfinished_job_num, first_ungenerated_job_num;
    double remaining_credit;
};
int db_tr_cursor_lock(struct db_conn *c, int cursor_id, struct db_tr_cursor *cur);

/* The lowest job_num >= from of the cursor's workunits that is not
 * finished (canonical_resultid = 0 and error_mask = 0).  DB_NOTFOUND when
 * every generated workunit from there on is finished. */
int db_tr_first_unfinished(struct db_conn *c, int cursor_id, int from, int *job_num);

/* Sum of rsc_fpops_est of the batch's jobs from..to (inclusive) whose
 * workunit in the cursor is missing (not generated) or not finished. */
int db_tr_unfinished_fpops(struct db_conn *c, int cursor_id, int batch_id, int from, int to,
                           double *fpops);

/* Store a cursor's progress. */
int db_tr_cursor_progress(struct db_conn *c, int cursor_id, int first_unfinished,
                          double remaining_credit);

/* Lock a batch row; *state, *locality get its values.  DB_NOTFOUND if gone. */
int db_tr_batch_lock(struct db_conn *c, int batch_id, int *state, int *locality);

/*
 * What keeps a batch from completion: for a locality batch, its cursors
 * not past their last job (and 1 when it has no cursor at all); for a
 * plain batch, whether one of its workunits is unfinished (0 or 1; also 1
 * when it has no workunit).
 */
int db_tr_batch_unfinished(struct db_conn *c, int batch_id, int locality, long long *n);

/* An IN_PROGRESS batch becomes COMPLETE with completion_time now;
 * *changed gets 1 if it did. */
int db_tr_batch_complete(struct db_conn *c, int batch_id, int now, int *changed);

/* Safety net, for a unit whose follow-up was lost (a crash between two
 * transactions): cursors of IN_PROGRESS batches whose first unfinished
 * job is finished, and IN_PROGRESS batches with nothing left to do. */
int db_tr_stale_cursors(struct db_conn *c, int mod_n, int mod_i, int limit, int *ids, int *n);
int db_tr_stale_batches(struct db_conn *c, int mod_n, int mod_i, int limit, int *ids, int *n);

/* --------------------------------------------------------- locality daemon */

/* Cursors to look at: those of IN_PROGRESS locality batches and those
 * with a member whose host has not been seen since idle_before; ids
 * above after, in id order, at most limit. */
int db_ld_cursors(struct db_conn *c, int idle_before, int mod_n, int mod_i, int after,
                  int limit, int *ids, int *n);

/* Lock a cursor row; its team figures.  DB_NOTFOUND if gone. */
struct db_ld_cursor {
    int id;
    int batch_id;
    int nhosts;
    double expavg_credit, max_host_credit;
};
int db_ld_cursor_lock(struct db_conn *c, int cursor_id, struct db_ld_cursor *cur);

/* A team member with what its credit rate is computed from. */
struct db_ld_member {
    int host_id, batch_id;
    double credit_rate;       /* batch_host.credit_rate now */
    int rpc_time;
    double p_fpops;
    int p_ncpus;
    double on_frac, active_frac, expavg_credit, expavg_time;
    double gpu_active_frac;
    double gpu_peak_flops;    /* all instances of the GPU types the project has a
                               * version for (cf. the scheduler's request_host_rate) */
};

/* The members of a cursor's team with their hosts (a host row that is
 * gone reads as never seen), in host order. */
int db_ld_members(struct db_conn *c, int cursor_id,
                  int (*row)(void *ctx, const struct db_ld_member *m), void *ctx);

/* Remove a member whose host is still unseen since idle_before (so that a
 * host that just came back stays); *removed gets 0 or 1. */
int db_ld_member_remove(struct db_conn *c, int host_id, int batch_id, int cursor_id,
                        int idle_before, long long *removed);

/* Store a member's credit rate. */
int db_ld_member_rate(struct db_conn *c, int host_id, int batch_id, int cursor_id,
                      double credit_rate);

/* Store a cursor's team figures and update_time. */
int db_ld_cursor_team(struct db_conn *c, int cursor_id, double expavg_credit,
                      double max_host_credit, int nhosts, int now);

/* ---------------------------------------------------------- all daemons */

/* The step between new ids on this server (auto_increment_increment: the
 * number of nodes on a Galera cluster, else usually 1). */
int db_id_step(struct db_conn *c, int *step);

#endif /* LOCSCHED_DB_DAEMON_H */
