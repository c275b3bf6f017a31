/*
 * db_admin.h - typed inserts for the administrators' tools: accounts,
 * apps and app versions, batches with their files, jobs and results.
 * Tools call these inside db_transaction so that a batch is created
 * whole or not at all.
 */
#ifndef LOCSCHED_DB_ADMIN_H
#define LOCSCHED_DB_ADMIN_H

#include "db.h"

int db_user_create(struct db_conn *c, const char *name, const char *email,
                   const char *authenticator, const unsigned char auth_hash[32], int now,
                   int *id);

int db_platform_get_or_create(struct db_conn *c, const char *name, int now, int *id);
int db_app_get_or_create(struct db_conn *c, const char *name, const char *friendly, int now,
                         int *id);
int db_app_lookup(struct db_conn *c, const char *name, int *id);

struct db_app_version_new {
    int appid, platformid, version_num;
    const char *plan_class, *coproc_type, *api_version, *cmdline;
    double avg_ncpus, coproc_count, flops_scale;
};
int db_app_version_create(struct db_conn *c, const struct db_app_version_new *v, int now, int *id);
int db_app_version_file_add(struct db_conn *c, int app_version_id, int seqno,
                            const char *file_name, const char *open_name, const char *url,
                            double nbytes, const char *md5, const char *signature,
                            int main_program, int copy_file);

struct db_batch_new {
    const char *name, *description;
    int appid, locality, njobs, nfiles, delay_bound;
    int target_nresults, min_quorum, max_error_results, max_total_results;
    double rsc_memory_bound, rsc_disk_bound, max_out_nbytes;
    double total_fpops;            /* flops of the jobs times target_nresults */
};
int db_batch_create(struct db_conn *c, const struct db_batch_new *b, int now, int *id);
int db_batch_set_state(struct db_conn *c, int batch_id, int state);
int db_file_add(struct db_conn *c, int batch_id, int file_num, const char *name, double nbytes,
                const char *md5, const char *url, int sticky, int *id);
int db_batch_job_add(struct db_conn *c, int batch_id, int job_num, int first_file_num,
                     int nfiles, double rsc_fpops_est, const char *command_line);

struct db_workunit_new {
    int appid, batch, cursor_id, job_num, first_file_num, nfiles, delay_bound;
    int min_quorum, target_nresults, max_error_results, max_total_results;
    const char *name, *command_line;
    double rsc_fpops_est, rsc_fpops_bound, rsc_memory_bound, rsc_disk_bound, max_out_nbytes;
};
int db_workunit_create(struct db_conn *c, const struct db_workunit_new *w, int now, int *id);
int db_result_create(struct db_conn *c, int workunitid, const char *name, int appid, int batch,
                     int cursor_id, int job_num, int server_state, int now, int *id);

/* A locality cursor over jobs [first_job, last_job] of a new batch. */
int db_cursor_create(struct db_conn *c, int batch_id, int first_job, int last_job,
                     int last_file, double remaining_credit, int now, int *id);

/* Hosts that contacted the scheduler at or after since. */
int db_count_active_hosts(struct db_conn *c, int since, int *n);

#endif
