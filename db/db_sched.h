/*
 * db_sched.h - the scheduler's typed database operations.
 *
 * Each function is one prepared statement (a few run one more in a rare
 * fallback).  A work request with reported results costs at most:
 *   auth (user + host + host_app_version + census of the host's
 *         results in progress against the names the client holds)   1
 *   lost-job check: only when the census finds a result lost or to be
 *         aborted, or a listed name the server does not have      0 (1-2)
 *   reported results: update (read by the look-up)       1
 *   new host_app_version rows (a first report of an app version)  0 (1)
 *   candidates (locked, SKIP LOCKED)           1
 *   claim                                      1
 *   host update (with changed host_app_version rows)  1
 *   commit                                     1
 */
#ifndef LOCSCHED_DB_SCHED_H
#define LOCSCHED_DB_SCHED_H

#include "db.h"
#include "db_gpu.h"

#define DB_NAME_MAX 256
#define DB_CMDLINE_MAX 1024

/* result.server_state */
enum { RS_INACTIVE = 1, RS_UNSENT = 2, RS_IN_PROGRESS = 4, RS_OVER = 5 };
/* result.outcome */
enum { RO_INIT = 0, RO_SUCCESS = 1, RO_COULDNT_SEND = 2, RO_CLIENT_ERROR = 3, RO_NO_REPLY = 4,
       RO_DIDNT_NEED = 5, RO_VALIDATE_ERROR = 6, RO_CLIENT_DETACHED = 7 };
/* batch.state */
enum { BS_INIT = 0, BS_IN_PROGRESS = 1, BS_COMPLETE = 2, BS_ABORTED = 3, BS_RETIRED = 4 };

struct db_user_row {
    int id;
    char authenticator[DB_NAME_MAX];
    char name[DB_NAME_MAX];
    int create_time;
    double total_credit, expavg_credit, expavg_time;   /* for the reply */
};

struct db_host_row {
    int id;                 /* 0: no host of this user with the given id */
    int rpc_seqno;
    int create_time;
    double expavg_credit;
    double expavg_time;
    double total_credit;
    int n_in_progress;      /* its results IN_PROGRESS */
    int n_ip_odd;           /* of those: neither listed by the client with a workunit
                               still needed, nor (unlisted and) reported */
    int n_ip_listed;        /* of those: listed by the client */
    int rpc_time;           /* its previous request (0: none) */
    double rpc_gap_avg, rpc_gap_dev;   /* its rhythm (host_rhythm.h) */
    int rpc_gap_n;
    double avg_turnaround;
    int turnaround_n;
    int lost_time;          /* presumed gone at (0: not) */
    /* its standing (schema 014, sched/policy/host_quota.h) */
    struct db_host_standing {
        int max_results_day;        /* jobs per CPU per day; 0: the project's */
        int consecutive_valid;
        double error_rate;
    } standing;
    int nresults_today;     /* jobs sent on the UTC day of rpc_time */
};

struct db_hav_row {
    int app_version_id;
    int et_n;
    double correction;
};

#define DB_MAX_HAV 64

/*
 * Find the user by auth_hash (SHA-256 of the authenticator) and, if
 * hostid > 0 and that host belongs to the user, the host (with the count
 * of its results in progress) and its host_app_version rows.  Returns DB_OK, DB_NOTFOUND (no such user) or an
 * error.  The caller compares user->authenticator in constant time.
 */
/* What the client says it holds: its <other_results> and its reported
 * results, by name.  With it, the look-up counts (n_ip_odd, n_ip_listed)
 * tell whether the lost-job check has anything to do. */
struct db_held_names {
    const char *const *listed;
    int nlisted;
    const char *const *reported;
    int nreported;
};

/* A reported result as the database knows it. */
struct db_reported_row {
    int id;
    char name[DB_NAME_MAX];
    int hostid;
    int server_state;
    int outcome;
    int app_version_id;
    double flops_estimate;
    double rsc_fpops_est;
    int sent_time;
    int batch;
};

/* Where the look-up puts the rows of held->reported that exist (of any
 * host: the caller keeps its own). */
struct db_reported_set {
    struct db_reported_row *rows;
    int max, n;
};

/* Where the look-up puts the teams of the host (db_locality_my_cursors's
 * rows), read for the host id given whoever's it is: the caller uses them
 * only when host->id is that id. */
struct db_cursor_row;
struct db_team_set {
    struct db_cursor_row *rows;
    int max, n;
};

/* rep may be NULL: the reported results are then not read; teams may be
 * NULL: the teams are then not read. */
int db_sched_auth(struct db_conn *c, const unsigned char auth_hash[32], int hostid,
                  const struct db_held_names *held,
                  struct db_user_row *user, struct db_host_row *host,
                  struct db_hav_row *havs, int max_havs, int *nhavs,
                  struct db_reported_set *rep, struct db_team_set *teams);

/* Create a host for userid; *hostid gets its id. */
int db_host_insert(struct db_conn *c, int userid, int now, int *hostid);

/* What the scheduler writes to the host row at the end of each request. */
/* A stretch that a locality request decided (doc/locality.md,
 * "Positions in the cursor"), written by the host update at the end of
 * the request rather than by statements of its own. */
struct db_stretch_write {
    int batch_id;                      /* the host's batch_host row of this batch */
    int first, last;                   /* gets this stretch */
    int frontier;                      /* > 0: its cursor's frontier rises to it */
    /* a take-over (victim_host > 0): the victim's stretch, if it still is
     * [victim_first, victim_last], ends at victim_new_last */
    int victim_host, victim_first, victim_last, victim_new_last;
};

struct db_host_update {
    int id;
    int rpc_seqno;
    int rpc_time;
    int timezone;
    const char *domain_name, *last_ip_addr, *host_cpid, *p_vendor, *p_model;
    const char *os_name, *os_version, *coprocs, *core_client_version;
    int p_ncpus;
    double p_fpops, p_iops, p_membw;
    double m_nbytes, m_cache, m_swap, d_total, d_free;
    double d_boinc_used_total, d_boinc_used_project;
    double on_frac, connected_frac, active_frac, gpu_active_frac;
    int n_usable_coprocs;
    int gpu_count[DB_NGPU_TYPES];      /* by enum db_gpu_type (db_gpu.h) */
    double gpu_peak_flops[DB_NGPU_TYPES];
    double duration_correction_factor;
    double rpc_gap_avg, rpc_gap_dev, avg_turnaround;   /* written as given */
    int rpc_gap_n, turnaround_n;
    int nresults_today;                /* written as given */
    /* the standing as the look-up read it (was) and as this request
     * leaves it (now): written only if the row still holds was, so that
     * a validator's change made meanwhile is not overwritten */
    struct db_host_standing standing_was, standing_now;
    /* host_app_version rows that exist (read by the look-up) and changed:
     * written by the same statement */
    const struct db_hav_row *havs;
    int nhavs;
    /* a stretch to write with the host row (NULL: none) */
    const struct db_stretch_write *stretch;
};
/* Write the host row at the end of a request, with its changed
 * host_app_version rows and the stretch it decided; lost_time becomes 0
 * (the host is back).  DB_RETRY (a conflict) if the row is not there: the
 * request read or created it in this transaction, so the server ended
 * that transaction under the request. */
int db_host_update(struct db_conn *c, const struct db_host_update *h);

/* Read the results named in names[0..n) (one statement).  row(ctx, r) is
 * called for each one found. */
int db_reported_read(struct db_conn *c, const char *const *names, int n,
                     int (*row)(void *ctx, const struct db_reported_row *r), void *ctx);

/* The new state of one reported result. */
struct db_report_update {
    int id;
    int outcome;
    int client_state;
    int exit_status;
    double cpu_time, elapsed_time;
    double peak_working_set_size, peak_swap_size, peak_disk_usage;
    const char *stderr_out;
};

/*
 * Mark reported results over (one statement) and flag their workunits
 * for the transitioner.  Only results of hostid that are in progress, or
 * over with outcome NO_REPLY (a late report), change.
 */
int db_report_update(struct db_conn *c, int hostid, int now, const struct db_report_update *u,
                     int n);

/* Upsert host_app_version corrections (one statement): for rows the
 * look-up did not find (the host's first report of an app version). */
int db_hav_upsert(struct db_conn *c, int hostid, const struct db_hav_row *h, int n);

/* An unsent result with what the scheduler needs of its workunit. */
struct db_candidate {
    int result_id;
    char result_name[DB_NAME_MAX];
    int wu_id;
    char wu_name[DB_NAME_MAX];
    int appid;
    int batch;
    int cursor_id;
    int job_num;
    int first_file_num;
    int nfiles;
    char command_line[DB_CMDLINE_MAX];
    double rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound;
    double max_out_nbytes;
    int delay_bound;
};

/*
 * Lock up to limit unsent results of plain batches (cursor_id 0) in job
 * order, then id order (SELECT ... FOR UPDATE SKIP
 * LOCKED), of the apps appids[0..nappids) only (those the host can run:
 * others' jobs would fill the window and starve it), skipping workunits
 * of which userid already has a result.  The
 * locks hold until the transaction ends, so no other scheduler process
 * can claim these rows meanwhile.  Jobs from first_job on only (0: all;
 * sched/policy/scan_front.h says why a process starts later).  *n gets
 * the count.
 */
int db_candidates_plain(struct db_conn *c, int userid, const int *appids, int nappids,
                        int first_job, int limit, struct db_candidate *out, int *n);

/* The same for one locality cursor, in job order, jobs
 * [first_job, last_job] only. */
int db_candidates_cursor(struct db_conn *c, int cursor_id, int userid, int first_job,
                         int last_job, int limit, struct db_candidate *out, int *n);

/* The same from the cursor's end, in descending job order: the jobs its
 * members reach last. */
int db_candidates_cursor_top(struct db_conn *c, int cursor_id, int userid, int limit,
                             struct db_candidate *out, int *n);

/* The same for the jobs of one cursor, anywhere in its range, whose first
 * and last input files are among file_nums[0..nfile_nums) (the files the
 * host holds), in job order. */
int db_candidates_files(struct db_conn *c, int cursor_id, int userid, const int *file_nums,
                        int nfile_nums, int limit, struct db_candidate *out, int *n);

/* One claim: result, app version, deadline and the flops estimate used. */
struct db_claim {
    int result_id;
    int app_version_id;
    int report_deadline;
    double flops_estimate;
};

/*
 * Mark results sent to hostid/userid (one statement).  Returns DB_OK when
 * all n were claimed, DB_DUP when the database refused one replica for
 * this user (the caller then claims one by one), DB_ERR when fewer rows
 * changed than asked (a claim was lost: must not happen under our locks).
 */
int db_claim_results(struct db_conn *c, int hostid, int userid, int now,
                     const struct db_claim *claims, int n);

/* ---- lost results (a host's jobs in progress that its client no longer holds) ---- */

/* A result in progress on the host, with its workunit (to send it again). */
struct db_in_progress_row {
    struct db_candidate cand;
    int report_deadline;
    int app_version_id;
    int canonical_resultid;     /* of its workunit */
    int error_mask;             /* of its workunit */
    int replica_flags;          /* RF_* of db_lost.h */
};

/*
 * Read up to limit results IN_PROGRESS on hostid with their workunits
 * (one statement, through ind_res_host_state).  No lock: the writes of
 * db_lost_update() check that the rows are still in progress.  *n gets
 * the count.
 */
int db_host_in_progress(struct db_conn *c, int hostid, int limit,
                        struct db_in_progress_row *out, int *n);

/* What becomes of one lost result. */
struct db_lost_update {
    int result_id;
    int lost;                   /* 1: marked lost; 0: sent again */
    int app_version_id;         /* when sent again */
    double flops_estimate;      /* when sent again */
};

/*
 * Write the fate of lost results of hostid (one statement): a result sent
 * again keeps its name, host and report_deadline, and gets sent_time now
 * (and the app version of this reply); a result marked lost becomes OVER
 * with outcome CLIENT_ERROR, client_state 0 (the client never reported
 * it), validate_state INVALID and received_time now, and its workunit's
 * transition_time becomes now (so the transitioner makes a new replica at
 * its next pass).  Every row must still be IN_PROGRESS on hostid; when
 * one is not (another transaction changed it since the read), returns
 * DB_RETRY so that the request runs again.
 */
int db_lost_update(struct db_conn *c, int hostid, int now, const struct db_lost_update *u,
                   int n);

/* ---- read-mostly data, cached by the scheduler ---- */

struct db_app_version_row {
    int id;
    int appid;
    char app_name[DB_NAME_MAX];
    char app_user_friendly_name[DB_NAME_MAX];
    int version_num;
    char platform[DB_NAME_MAX];
    char plan_class[DB_NAME_MAX];
    double avg_ncpus;
    char coproc_type[64];
    double coproc_count;
    double flops_scale;
    char api_version[64];
    char cmdline[DB_CMDLINE_MAX];
};

struct db_app_version_file_row {
    int app_version_id;
    int seqno;
    char file_name[DB_NAME_MAX];
    char open_name[DB_NAME_MAX];
    char url[1024];
    double nbytes;
    char md5_cksum[33];
    char file_signature[1024];
    int main_program;
    int copy_file;
};

int db_load_app_versions(struct db_conn *c,
                         int (*row)(void *ctx, const struct db_app_version_row *r), void *ctx);
int db_load_app_version_files(struct db_conn *c,
                              int (*row)(void *ctx, const struct db_app_version_file_row *r),
                              void *ctx);

struct db_file_row {
    int id;
    int file_num;
    char name[DB_NAME_MAX];
    double nbytes;
    char md5_cksum[33];
    char url[1024];
    int sticky;
};

/* The files of a batch, in file_num order. */
int db_load_batch_files(struct db_conn *c, int batch_id,
                        int (*row)(void *ctx, const struct db_file_row *r), void *ctx);

#endif /* LOCSCHED_DB_SCHED_H */
