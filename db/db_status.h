/*
 * db_status.h - the statements of the status and batch pages
 * (tools/status_pages) and the daemons' own status row (daemon_status,
 * written by the daemons' skeleton).  Each function is one prepared
 * statement; the readers lock nothing.
 */
#ifndef LOCSCHED_DB_STATUS_H
#define LOCSCHED_DB_STATUS_H

#include "db.h"

#define DB_DAEMON_NAME_MAX 64
#define DB_HOSTNAME_MAX 255

/* One daemon instance's row of daemon_status. */
struct db_daemon_status {
    char name[DB_DAEMON_NAME_MAX];
    char hostname[DB_HOSTNAME_MAX];
    int mod_n, mod_i;
    int pid;
    int start_time;
    int last_pass_time;         /* end of the last pass; 0: none yet */
    long long last_items;       /* items of the last pass; -1: it failed */
    long long npasses;
    int sleep_secs;
    int last_error_time;        /* end of the last failed pass; 0: none */
    int stopped;                /* 1: the daemon ended normally */
};

/* Insert or replace the row of (name, hostname, mod_n, mod_i). */
int db_status_daemon_write(struct db_conn *c, const struct db_daemon_status *s);

/* Every daemon_status row, by name, host and share.  row() returns 0 to
 * go on, < 0 to stop. */
int db_status_daemons(struct db_conn *c,
                      int (*row)(void *ctx, const struct db_daemon_status *s), void *ctx);

/* Results UNSENT and IN_PROGRESS (uses ind_res_deadline). */
int db_status_result_counts(struct db_conn *c, long long *unsent, long long *in_progress);

/* Results of batch_id reported (OVER) since "since", per hour:
 * row(ctx, hour_start, count), hours ascending (uses ind_res_batch_state). */
int db_status_reported_per_hour(struct db_conn *c, int batch_id, int since,
                                int (*row)(void *ctx, int hour, long long n), void *ctx);

/* Jobs of batch_id finished with a canonical result, per hour of that
 * result's report: row(ctx, hour_start, count), hours ascending. */
int db_status_batch_done_per_hour(struct db_conn *c, int batch_id,
                                  int (*row)(void *ctx, int hour, long long n), void *ctx);

/* Hosts whose last scheduler request is at or after since. */
int db_status_hosts_active(struct db_conn *c, int since, long long *n);

/* Bytes of data and indexes of the current database's tables. */
int db_status_db_bytes(struct db_conn *c, double *bytes);

/* Workunits due for a transition at now: how many and the earliest
 * transition_time (0 when none); uses ind_wu_transition. */
int db_status_transition_backlog(struct db_conn *c, int now, long long *n, int *oldest);

/* A batch's input files on hosts (host_file rows): copies, distinct
 * files, and the bytes of those copies. */
int db_status_batch_files(struct db_conn *c, int batch_id, long long *copies,
                          long long *files, double *bytes);

/* A batch's reported results by validate_state: row(ctx, state, count). */
int db_status_batch_validate(struct db_conn *c, int batch_id,
                             int (*row)(void *ctx, int state, long long n), void *ctx);

/* A batch's times: create_time, finish_eta (0: not projected) and
 * completion_time (0: not complete).  DB_NOTFOUND if it is gone. */
int db_status_batch_times(struct db_conn *c, int batch_id, int *create_time, int *finish_eta,
                          int *completion_time);

#endif /* LOCSCHED_DB_STATUS_H */
