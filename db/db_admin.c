/*
 * db_admin.c - typed inserts for the administrators' tools (db_admin.h).
 */
#include "db_admin.h"

#include <stdio.h>
#include <string.h>

#include "db_account.h"
#include "db_slots.h"

enum {
    S_USER = SLOT_ADMIN_FIRST,   /* unused: accounts are inserted by db_account.c */
    S_PLATFORM_GET, S_PLATFORM_INS, S_APP_GET, S_APP_INS,
    S_AV_INS, S_AVF_INS, S_BATCH_INS, S_BATCH_STATE, S_FILE_INS, S_BJ_INS, S_WU_INS, S_RES_INS,
    S_CURSOR_INS, S_ACTIVE_HOSTS   /* must stay below SLOT_ADMIN_FIRST + 20 */
};

static const char *nz(const char *s)
{
    return s ? s : "";
}

int db_user_create(struct db_conn *c, const char *name, const char *email,
                   const char *authenticator, const unsigned char auth_hash[32], int now, int *id)
{
    return db_account_create(c, name, email, authenticator, auth_hash, "", now, id);
}

static int get_id(struct db_conn *c, int slot, const char *sql, const char *name, int *id,
                  const char *what)
{
    struct db_val p[] = { DBV_STR(name) };
    struct db_val col[] = { DBV_INT(*id) };
    long n;
    int r = db_query(c, slot, sql, p, 1, col, 1, NULL, NULL, &n, what);
    if (r != DB_OK)
        return r;
    return n ? DB_OK : DB_NOTFOUND;
}

int db_platform_get_or_create(struct db_conn *c, const char *name, int now, int *id)
{
    struct db_val p[] = { DBV_INT(now), DBV_STR(name) };
    int r = get_id(c, S_PLATFORM_GET, "SELECT id FROM platform WHERE name = ?", name, id,
                   "look up platform");
    if (r != DB_NOTFOUND)
        return r;
    r = db_exec(c, S_PLATFORM_INS, "INSERT INTO platform (create_time, name) VALUES (?, ?)", p,
                2, NULL, "create platform");
    if (r == DB_OK)
        *id = (int)db_insert_id(c, S_PLATFORM_INS);
    return r;
}

int db_app_lookup(struct db_conn *c, const char *name, int *id)
{
    return get_id(c, S_APP_GET, "SELECT id FROM app WHERE name = ?", name, id, "look up app");
}

int db_app_get_or_create(struct db_conn *c, const char *name, const char *friendly, int now,
                         int *id)
{
    struct db_val p[] = { DBV_INT(now), DBV_STR(name), DBV_STR(nz(friendly)) };
    int r = db_app_lookup(c, name, id);
    if (r != DB_NOTFOUND)
        return r;
    r = db_exec(c, S_APP_INS,
                "INSERT INTO app (create_time, name, user_friendly_name) VALUES (?, ?, ?)", p, 3,
                NULL, "create app");
    if (r == DB_OK)
        *id = (int)db_insert_id(c, S_APP_INS);
    return r;
}

int db_app_version_create(struct db_conn *c, const struct db_app_version_new *v, int now, int *id)
{
    static const char sql[] =
        "INSERT INTO app_version (create_time, appid, version_num, platformid, plan_class, "
        "avg_ncpus, coproc_type, coproc_count, flops_scale, api_version, cmdline) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    struct db_app_version_new x = *v;
    struct db_val p[] = { DBV_INT(now), DBV_INT(x.appid), DBV_INT(x.version_num),
                          DBV_INT(x.platformid), DBV_STR(nz(x.plan_class)),
                          DBV_DBL(x.avg_ncpus), DBV_STR(nz(x.coproc_type)),
                          DBV_DBL(x.coproc_count), DBV_DBL(x.flops_scale),
                          DBV_STR(nz(x.api_version)), DBV_STR(nz(x.cmdline)) };
    int r = db_exec(c, S_AV_INS, sql, p, 11, NULL, "create app version");
    if (r == DB_OK)
        *id = (int)db_insert_id(c, S_AV_INS);
    return r;
}

int db_app_version_file_add(struct db_conn *c, int app_version_id, int seqno,
                            const char *file_name, const char *open_name, const char *url,
                            double nbytes, const char *md5, const char *signature,
                            int main_program, int copy_file)
{
    static const char sql[] =
        "INSERT INTO app_version_file (app_version_id, seqno, file_name, open_name, url, nbytes, "
        "md5_cksum, file_signature, main_program, copy_file) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    struct db_val p[] = { DBV_INT(app_version_id), DBV_INT(seqno), DBV_STR(file_name),
                          DBV_STR(nz(open_name)), DBV_STR(url), DBV_DBL(nbytes), DBV_STR(md5),
                          DBV_STR(nz(signature)), DBV_INT(main_program), DBV_INT(copy_file) };
    return db_exec(c, S_AVF_INS, sql, p, 10, NULL, "add app version file");
}

int db_batch_create(struct db_conn *c, const struct db_batch_new *b, int now, int *id)
{
    static const char sql[] =
        "INSERT INTO batch (create_time, name, appid, state, locality, njobs, nfiles, "
        "delay_bound, target_nresults, min_quorum, max_error_results, max_total_results, "
        "rsc_memory_bound, rsc_disk_bound, max_out_nbytes, description, total_fpops) "
        "VALUES (?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    struct db_batch_new x = *b;
    struct db_val p[] = { DBV_INT(now), DBV_STR(x.name), DBV_INT(x.appid), DBV_INT(x.locality),
                          DBV_INT(x.njobs), DBV_INT(x.nfiles), DBV_INT(x.delay_bound),
                          DBV_INT(x.target_nresults), DBV_INT(x.min_quorum),
                          DBV_INT(x.max_error_results), DBV_INT(x.max_total_results),
                          DBV_DBL(x.rsc_memory_bound), DBV_DBL(x.rsc_disk_bound),
                          DBV_DBL(x.max_out_nbytes), DBV_STR(nz(x.description)),
                          DBV_DBL(x.total_fpops) };
    int r = db_exec(c, S_BATCH_INS, sql, p, 16, NULL, "create batch");
    if (r == DB_OK)
        *id = (int)db_insert_id(c, S_BATCH_INS);
    return r;
}

int db_batch_set_state(struct db_conn *c, int batch_id, int state)
{
    struct db_val p[] = { DBV_INT(state), DBV_INT(batch_id) };
    char what[64];
    snprintf(what, sizeof what, "set state of [batch#%d]", batch_id);
    return db_exec(c, S_BATCH_STATE, "UPDATE batch SET state = ? WHERE id = ?", p, 2, NULL,
                   what);
}

int db_file_add(struct db_conn *c, int batch_id, int file_num, const char *name, double nbytes,
                const char *md5, const char *url, int sticky, int *id)
{
    static const char sql[] = "INSERT INTO file (batch_id, file_num, name, nbytes, md5_cksum, "
                              "url, sticky) VALUES (?, ?, ?, ?, ?, ?, ?)";
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(file_num), DBV_STR(name), DBV_DBL(nbytes),
                          DBV_STR(nz(md5)), DBV_STR(nz(url)), DBV_INT(sticky) };
    char what[300];
    int r;
    snprintf(what, sizeof what, "add file %.200s to [batch#%d]", name, batch_id);
    r = db_exec(c, S_FILE_INS, sql, p, 7, NULL, what);
    if (r == DB_OK && id)
        *id = (int)db_insert_id(c, S_FILE_INS);
    return r;
}

int db_batch_job_add(struct db_conn *c, int batch_id, int job_num, int first_file_num,
                     int nfiles, double rsc_fpops_est, const char *command_line)
{
    static const char sql[] = "INSERT INTO batch_job (batch_id, job_num, first_file_num, "
                              "nfiles, rsc_fpops_est, command_line) VALUES (?, ?, ?, ?, ?, ?)";
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(job_num), DBV_INT(first_file_num),
                          DBV_INT(nfiles), DBV_DBL(rsc_fpops_est), DBV_STR(nz(command_line)) };
    char what[64];
    snprintf(what, sizeof what, "add job %d to [batch#%d]", job_num, batch_id);
    return db_exec(c, S_BJ_INS, sql, p, 6, NULL, what);
}

int db_workunit_create(struct db_conn *c, const struct db_workunit_new *w, int now, int *id)
{
    static const char sql[] =
        "INSERT INTO workunit (create_time, appid, name, batch, cursor_id, job_num, "
        "first_file_num, nfiles, command_line, rsc_fpops_est, rsc_fpops_bound, "
        "rsc_memory_bound, rsc_disk_bound, max_out_nbytes, delay_bound, min_quorum, "
        "target_nresults, max_error_results, max_total_results, transition_time) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
    struct db_workunit_new x = *w;
    struct db_val p[] = { DBV_INT(now), DBV_INT(x.appid), DBV_STR(x.name), DBV_INT(x.batch),
                          DBV_INT(x.cursor_id), DBV_INT(x.job_num), DBV_INT(x.first_file_num),
                          DBV_INT(x.nfiles), DBV_STR(nz(x.command_line)),
                          DBV_DBL(x.rsc_fpops_est), DBV_DBL(x.rsc_fpops_bound),
                          DBV_DBL(x.rsc_memory_bound), DBV_DBL(x.rsc_disk_bound),
                          DBV_DBL(x.max_out_nbytes), DBV_INT(x.delay_bound),
                          DBV_INT(x.min_quorum), DBV_INT(x.target_nresults),
                          DBV_INT(x.max_error_results), DBV_INT(x.max_total_results),
                          DBV_INT(now) };
    char what[300];
    int r;
    snprintf(what, sizeof what, "create workunit %.200s", x.name);
    r = db_exec(c, S_WU_INS, sql, p, 20, NULL, what);
    if (r == DB_OK)
        *id = (int)db_insert_id(c, S_WU_INS);
    return r;
}

int db_result_create(struct db_conn *c, int workunitid, const char *name, int appid, int batch,
                     int cursor_id, int job_num, int server_state, int now, int *id)
{
    static const char sql[] =
        "INSERT INTO result (create_time, workunitid, name, appid, batch, cursor_id, job_num, "
        "server_state) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
    struct db_val p[] = { DBV_INT(now), DBV_INT(workunitid), DBV_STR(name), DBV_INT(appid),
                          DBV_INT(batch), DBV_INT(cursor_id), DBV_INT(job_num),
                          DBV_INT(server_state) };
    char what[300];
    int r;
    snprintf(what, sizeof what, "create result %.200s", name);
    r = db_exec(c, S_RES_INS, sql, p, 8, NULL, what);
    if (r == DB_OK && id)
        *id = (int)db_insert_id(c, S_RES_INS);
    return r;
}

int db_cursor_create(struct db_conn *c, int batch_id, int first_job, int last_job,
                     int last_file, double remaining_credit, int now, int *id)
{
    static const char sql[] =
        "INSERT INTO locality_cursor (batch_id, first_job_num, last_job_num, last_file_num, "
        "remaining_credit, first_unfinished_job_num, first_ungenerated_job_num, "
        "next_stretch_job_num, update_time) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)";
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(first_job), DBV_INT(last_job),
                          DBV_INT(last_file), DBV_DBL(remaining_credit), DBV_INT(first_job),
                          DBV_INT(first_job), DBV_INT(first_job), DBV_INT(now) };
    char what[96];
    int r;
    snprintf(what, sizeof what, "add cursor for jobs %d..%d to [batch#%d]", first_job, last_job,
             batch_id);
    r = db_exec(c, S_CURSOR_INS, sql, p, 9, NULL, what);
    if (r == DB_OK && id)
        *id = (int)db_insert_id(c, S_CURSOR_INS);
    return r;
}

struct count_one {
    int n;
};

static int count_row(void *ctx)
{
    (void)ctx;
    return 0;
}

int db_count_active_hosts(struct db_conn *c, int since, int *n)
{
    struct count_one x = { 0 };
    struct db_val p[] = { DBV_INT(since) };
    struct db_val cols[] = { DBV_INT(x.n) };
    int r = db_query(c, S_ACTIVE_HOSTS, "SELECT COUNT(*) FROM host WHERE rpc_time >= ?", p, 1,
                     cols, 1, count_row, &x, NULL, "count active hosts");
    *n = x.n;
    return r;
}
