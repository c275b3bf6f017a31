/*
 * db_daemon.c - the daemons' statements (db_daemon.h).  Every statement
 * is a constant text with '?' placeholders; the mod partition is a
 * MOD(id, ?) = ? condition on the listing statements.  Each statement's
 * comment names the index it is meant to use.
 */
#include "db_daemon.h"

#include <stdio.h>
#include <string.h>

#include "db_gpu.h"
#include "db_internal.h"
#include "db_slots.h"

_Static_assert(SLOT_DAEMON_END <= 140, "daemon statement slots are 100..139");

/* ---- helpers ---- */

struct ids_ctx {
    int cur;
    int *ids;
    int limit;
    int *n;
};

static int ids_row(void *vctx)
{
    struct ids_ctx *x = vctx;
    if (*x->n >= x->limit)
        return 1;
    x->ids[(*x->n)++] = x->cur;
    return 0;
}

/* (db_internal.h) */
int db_query_ids(struct db_conn *c, int slot, const char *sql, struct db_val *params,
                 int nparams, int limit, int *ids, int *n, const char *what)
{
    struct ids_ctx x;
    struct db_val col[] = { DBV_INT(x.cur) };
    x.cur = 0;
    x.ids = ids;
    x.limit = limit;
    x.n = n;
    *n = 0;
    return db_query(c, slot, sql, params, nparams, col, 1, ids_row, &x, NULL, what);
}

/* A query returning at most one row: DB_NOTFOUND when it returned none. */
static int query_one(struct db_conn *c, int slot, const char *sql, struct db_val *params,
                     int nparams, struct db_val *cols, int ncols, const char *what)
{
    long n = 0;
    int r = db_query(c, slot, sql, params, nparams, cols, ncols, NULL, NULL, &n, what);
    if (r != DB_OK)
        return r;
    return n ? DB_OK : DB_NOTFOUND;
}

/* ---------------------------------------------------------- work generator */

struct wg_cursor_ctx {
    struct db_wg_cursor r;
    int (*row)(void *ctx, const struct db_wg_cursor *r);
    void *ctx;
};

static int wg_cursor_row(void *vctx)
{
    struct wg_cursor_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}

int db_wg_cursors(struct db_conn *c, int mod_n, int mod_i,
                  int (*row)(void *ctx, const struct db_wg_cursor *r), void *ctx)
{
    /* batch: its primary key from the cursor; few rows overall */
    static const char sql[] =
        "SELECT c.id, c.batch_id, c.first_ungenerated_job_num, c.last_job_num, b.name, "
        "b.appid, b.delay_bound, b.target_nresults, b.min_quorum, b.max_error_results, "
        "b.max_total_results, b.rsc_memory_bound, b.rsc_disk_bound, b.max_out_nbytes "
        "FROM locality_cursor c JOIN batch b ON b.id = c.batch_id "
        "WHERE b.state = 1 AND b.locality = 1 "
        "AND c.first_ungenerated_job_num <= c.last_job_num AND MOD(c.id, ?) = ? "
        "ORDER BY c.id";
    struct wg_cursor_ctx x;
    struct db_val p[] = { DBV_INT(mod_n), DBV_INT(mod_i) };
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    {
        struct db_val cols[] = {
            DBV_INT(x.r.id), DBV_INT(x.r.batch_id), DBV_INT(x.r.first_ungenerated_job_num),
            DBV_INT(x.r.last_job_num), DBV_BUF(x.r.batch_name), DBV_INT(x.r.appid),
            DBV_INT(x.r.delay_bound), DBV_INT(x.r.target_nresults), DBV_INT(x.r.min_quorum),
            DBV_INT(x.r.max_error_results), DBV_INT(x.r.max_total_results),
            DBV_DBL(x.r.rsc_memory_bound), DBV_DBL(x.r.rsc_disk_bound),
            DBV_DBL(x.r.max_out_nbytes),
        };
        return db_query(c, SLOT_WG_CURSORS, sql, p, 2, cols, 14, wg_cursor_row, &x, NULL,
                        "list cursors with jobs to generate");
    }
}

int db_wg_cursor_read(struct db_conn *c, int cursor_id, int *first_ungenerated, int *last_job,
                      int *frontier)
{
    static const char sql[] = "SELECT first_ungenerated_job_num, last_job_num, "
                              "next_stretch_job_num FROM locality_cursor WHERE id = ?";
    struct db_val p[] = { DBV_INT(cursor_id) };
    struct db_val cols[] = { DBV_INT(*first_ungenerated), DBV_INT(*last_job), DBV_INT(*frontier) };
    char what[64];
    snprintf(what, sizeof what, "read [cursor#%d]", cursor_id);
    return query_one(c, SLOT_WG_CURSOR_LOCK, sql, p, 1, cols, 3, what);
}

int db_wg_unsent_jobs(struct db_conn *c, int cursor_id, long long *njobs)
{
    /* ind_res_unsent (unsent_cursor, job_num): index only */
    static const char sql[] = "SELECT COUNT(DISTINCT job_num) FROM result "
                              "WHERE unsent_cursor = ?";
    struct db_val p[] = { DBV_INT(cursor_id) };
    struct db_val cols[] = { DBV_LL(*njobs) };
    char what[64];
    *njobs = 0;
    snprintf(what, sizeof what, "count unsent jobs of [cursor#%d]", cursor_id);
    return db_query(c, SLOT_WG_UNSENT, sql, p, 1, cols, 1, NULL, NULL, NULL, what);
}

struct wg_job_ctx {
    struct db_wg_job j;
    int (*row)(void *ctx, const struct db_wg_job *j);
    void *ctx;
};

static int wg_job_row(void *vctx)
{
    struct wg_job_ctx *x = vctx;
    return x->row(x->ctx, &x->j);
}

int db_wg_jobs(struct db_conn *c, int batch_id, int from, int to,
               int (*row)(void *ctx, const struct db_wg_job *j), void *ctx)
{
    /* primary key (batch_id, job_num) */
    static const char sql[] =
        "SELECT job_num, first_file_num, nfiles, rsc_fpops_est, command_line FROM batch_job "
        "WHERE batch_id = ? AND job_num >= ? AND job_num < ? ORDER BY job_num";
    struct wg_job_ctx x;
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(from), DBV_INT(to) };
    char what[96];
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    snprintf(what, sizeof what, "read jobs %d..%d of [batch#%d]", from, to - 1, batch_id);
    {
        struct db_val cols[] = { DBV_INT(x.j.job_num), DBV_INT(x.j.first_file_num),
                                 DBV_INT(x.j.nfiles), DBV_DBL(x.j.rsc_fpops_est),
                                 DBV_BUF(x.j.command_line) };
        return db_query(c, SLOT_WG_JOBS, sql, p, 3, cols, 5, wg_job_row, &x, NULL, what);
    }
}

int db_wg_wu_by_name(struct db_conn *c, const char *name, int *batch, int *cursor_id,
                     int *job_num)
{
    static const char sql[] = "SELECT batch, cursor_id, job_num FROM workunit WHERE name = ?";
    struct db_val p[] = { DBV_STR(name) };
    struct db_val cols[] = { DBV_INT(*batch), DBV_INT(*cursor_id), DBV_INT(*job_num) };
    char what[300];
    snprintf(what, sizeof what, "look up workunit %.200s", name);
    return query_one(c, SLOT_WG_WU_BY_NAME, sql, p, 1, cols, 3, what);
}

int db_wg_generated(struct db_conn *c, int cursor_id, int from, int to)
{
    /* ind_wu_cursor_job (cursor_id, job_num) */
    static const char sql_wu[] = "UPDATE workunit SET transition_time = ? "
                                 "WHERE cursor_id = ? AND job_num >= ? AND job_num < ?";
    static const char sql_cursor[] = "UPDATE locality_cursor SET first_ungenerated_job_num = ? "
                                     "WHERE id = ? AND first_ungenerated_job_num = ?";
    int never = DB_TRANSITION_NEVER, r;
    struct db_val p1[] = { DBV_INT(never), DBV_INT(cursor_id), DBV_INT(from), DBV_INT(to) };
    struct db_val p2[] = { DBV_INT(to), DBV_INT(cursor_id), DBV_INT(from) };
    long long matched = 0;
    char what[96];

    snprintf(what, sizeof what, "set transition time of jobs %d..%d of [cursor#%d]", from,
             to - 1, cursor_id);
    r = db_exec(c, SLOT_WG_WU_NEVER, sql_wu, p1, 4, NULL, what);
    if (r != DB_OK)
        return r;
    snprintf(what, sizeof what, "advance generation of [cursor#%d] to job %d", cursor_id, to);
    r = db_exec(c, SLOT_WG_CURSOR_GEN, sql_cursor, p2, 3, &matched, what);
    if (r == DB_OK && matched != 1) {
        db_fail(c, what, 0, "its first_ungenerated_job_num moved meanwhile");
        return DB_ABORT;
    }
    return r;
}

/* ------------------------------------------------------------ transitioner */

int db_tr_deadline_wus(struct db_conn *c, int now, int mod_n, int mod_i, int limit, int *ids,
                       int *n)
{
    /* ind_res_deadline (server_state, report_deadline) */
    static const char sql[] =
        "SELECT DISTINCT workunitid FROM result "
        "WHERE server_state = 4 AND report_deadline < ? AND MOD(workunitid, ?) = ? LIMIT ?";
    struct db_val p[] = { DBV_INT(now), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    return db_query_ids(c, SLOT_TR_DEADLINE_WUS, sql, p, 4, limit, ids, n,
                     "list workunits with results past their deadline");
}

int db_tr_due_wus(struct db_conn *c, int now, int mod_n, int mod_i, int limit, int *ids, int *n)
{
    /* ind_wu_transition (transition_time), which carries the id */
    static const char sql[] =
        "SELECT id FROM workunit WHERE transition_time <= ? AND MOD(id, ?) = ? "
        "ORDER BY transition_time, id LIMIT ?";
    struct db_val p[] = { DBV_INT(now), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    return db_query_ids(c, SLOT_TR_DUE_WUS, sql, p, 4, limit, ids, n,
                     "list workunits due for a transition");
}

int db_tr_wu_lock(struct db_conn *c, int wuid, struct db_tr_wu *w)
{
    static const char sql[] =
        "SELECT id, name, appid, batch, cursor_id, job_num, rsc_fpops_est, min_quorum, "
        "target_nresults, max_error_results, max_total_results, canonical_resultid, "
        "error_mask, transition_time, canonical_credit, max_success_results FROM workunit "
        "WHERE id = ? FOR UPDATE";
    struct db_val p[] = { DBV_INT(wuid) };
    struct db_val cols[] = {
        DBV_INT(w->id), DBV_BUF(w->name), DBV_INT(w->appid), DBV_INT(w->batch),
        DBV_INT(w->cursor_id), DBV_INT(w->job_num), DBV_DBL(w->rsc_fpops_est),
        DBV_INT(w->min_quorum), DBV_INT(w->target_nresults), DBV_INT(w->max_error_results),
        DBV_INT(w->max_total_results), DBV_INT(w->canonical_resultid), DBV_INT(w->error_mask),
        DBV_INT(w->transition_time), DBV_DBL(w->canonical_credit),
        DBV_INT(w->max_success_results),
    };
    char what[64];
    memset(w, 0, sizeof *w);
    snprintf(what, sizeof what, "lock [wu#%d]", wuid);
    return query_one(c, SLOT_TR_WU_LOCK, sql, p, 1, cols, 16, what);
}

struct results_ctx {
    struct db_tr_result cur;
    struct db_tr_result *out;
    int max, n, too_many;
};

static int results_row(void *vctx)
{
    struct results_ctx *x = vctx;
    if (x->n >= x->max) {
        x->too_many = 1;
        return 1;
    }
    x->out[x->n++] = x->cur;
    return 0;
}

int db_tr_results_lock(struct db_conn *c, int wuid, struct db_tr_result *out, int max, int *n)
{
    /* uk_result_wu_user (workunitid, userid) */
    static const char sql[] =
        "SELECT id, server_state, outcome, validate_state, received_time, report_deadline, "
        "hostid, IFNULL(userid, 0), replica_flags FROM result WHERE workunitid = ? "
        "ORDER BY id FOR UPDATE";
    struct results_ctx x;
    struct db_val p[] = { DBV_INT(wuid) };
    char what[64];
    int r;

    memset(&x, 0, sizeof x);
    x.out = out;
    x.max = max;
    snprintf(what, sizeof what, "lock results of [wu#%d]", wuid);
    {
        struct db_val cols[] = {
            DBV_INT(x.cur.id), DBV_INT(x.cur.server_state), DBV_INT(x.cur.outcome),
            DBV_INT(x.cur.validate_state), DBV_INT(x.cur.received_time),
            DBV_INT(x.cur.report_deadline), DBV_INT(x.cur.hostid), DBV_INT(x.cur.userid),
            DBV_INT(x.cur.replica_flags),
        };
        r = db_query(c, SLOT_TR_RESULTS_LOCK, sql, p, 1, cols, 9, results_row, &x, NULL, what);
    }
    *n = x.n;
    if (r == DB_OK && x.too_many) {
        char msg[64];
        snprintf(msg, sizeof msg, "more than %d results", max);
        return db_fail(c, what, 0, msg);
    }
    return r;
}

int db_tr_result_timeout(struct db_conn *c, int result_id)
{
    static const char sql[] =
        "UPDATE result SET server_state = 5, outcome = 4 WHERE id = ? AND server_state = 4";
    struct db_val p[] = { DBV_INT(result_id) };
    char what[64];
    snprintf(what, sizeof what, "time out [result#%d]", result_id);
    return db_exec(c, SLOT_TR_TIMEOUT, sql, p, 1, NULL, what);
}

int db_tr_result_grant(struct db_conn *c, int result_id, double credit)
{
    static const char sql[] =
        "UPDATE result SET granted_credit = ?, validate_state = 1 WHERE id = ?";
    struct db_val p[] = { DBV_DBL(credit), DBV_INT(result_id) };
    char what[64];
    snprintf(what, sizeof what, "grant credit to [result#%d]", result_id);
    return db_exec(c, SLOT_TR_GRANT, sql, p, 2, NULL, what);
}

int db_tr_unsent_didnt_need(struct db_conn *c, int wuid, long long *n)
{
    static const char sql[] = "UPDATE result SET server_state = 5, outcome = 5 "
                              "WHERE workunitid = ? AND server_state IN (1, 2)";
    struct db_val p[] = { DBV_INT(wuid) };
    char what[64];
    snprintf(what, sizeof what, "cancel unsent results of [wu#%d]", wuid);
    return db_exec(c, SLOT_TR_DIDNT_NEED, sql, p, 1, n, what);
}

static int credit_lock(struct db_conn *c, int slot, const char *sql, int id,
                       struct db_credit *cr, const char *what)
{
    struct db_val p[] = { DBV_INT(id) };
    struct db_val cols[] = { DBV_DBL(cr->total_credit), DBV_DBL(cr->expavg_credit),
                             DBV_DBL(cr->expavg_time) };
    memset(cr, 0, sizeof *cr);
    return query_one(c, slot, sql, p, 1, cols, 3, what);
}

static int credit_set(struct db_conn *c, int slot, const char *sql, int id,
                      const struct db_credit *cr, const char *what)
{
    struct db_credit v = *cr;
    struct db_val p[] = { DBV_DBL(v.total_credit), DBV_DBL(v.expavg_credit),
                          DBV_DBL(v.expavg_time), DBV_INT(id) };
    return db_exec(c, slot, sql, p, 4, NULL, what);
}

int db_tr_host_credit_lock(struct db_conn *c, int hostid, struct db_credit *cr)
{
    char what[64];
    snprintf(what, sizeof what, "lock credit of [host#%d]", hostid);
    return credit_lock(c, SLOT_TR_HOST_LOCK,
                       "SELECT total_credit, expavg_credit, expavg_time FROM host "
                       "WHERE id = ? FOR UPDATE", hostid, cr, what);
}

int db_tr_host_credit_set(struct db_conn *c, int hostid, const struct db_credit *cr)
{
    char what[64];
    snprintf(what, sizeof what, "store credit of [host#%d]", hostid);
    return credit_set(c, SLOT_TR_HOST_SET,
                      "UPDATE host SET total_credit = ?, expavg_credit = ?, expavg_time = ? "
                      "WHERE id = ?", hostid, cr, what);
}

int db_tr_user_credit_lock(struct db_conn *c, int userid, struct db_credit *cr)
{
    char what[64];
    snprintf(what, sizeof what, "lock credit of [user#%d]", userid);
    return credit_lock(c, SLOT_TR_USER_LOCK,
                       "SELECT total_credit, expavg_credit, expavg_time FROM user "
                       "WHERE id = ? FOR UPDATE", userid, cr, what);
}

int db_tr_user_credit_set(struct db_conn *c, int userid, const struct db_credit *cr)
{
    char what[64];
    snprintf(what, sizeof what, "store credit of [user#%d]", userid);
    return credit_set(c, SLOT_TR_USER_SET,
                      "UPDATE user SET total_credit = ?, expavg_credit = ?, expavg_time = ? "
                      "WHERE id = ?", userid, cr, what);
}

int db_tr_wu_decided(struct db_conn *c, int wuid, int canonical_resultid,
                     double canonical_credit, int error_mask, int transition_time)
{
    static const char sql[] =
        "UPDATE workunit SET canonical_resultid = ?, canonical_credit = ?, error_mask = ?, "
        "transition_time = ?, assimilate_state = IF(assimilate_state = 0 AND "
        "(canonical_resultid <> 0 OR error_mask <> 0), 1, assimilate_state) WHERE id = ?";
    struct db_val p[] = { DBV_INT(canonical_resultid), DBV_DBL(canonical_credit),
                          DBV_INT(error_mask), DBV_INT(transition_time), DBV_INT(wuid) };
    char what[64];
    snprintf(what, sizeof what, "store the decision for [wu#%d]", wuid);
    return db_exec(c, SLOT_TR_WU_DECIDED, sql, p, 5, NULL, what);
}

int db_tr_cursor_lock(struct db_conn *c, int cursor_id, struct db_tr_cursor *cur)
{
    static const char sql[] =
        "SELECT id, batch_id, first_job_num, last_job_num, first_unfinished_job_num, "
        "first_ungenerated_job_num, remaining_credit FROM locality_cursor "
        "WHERE id = ? FOR UPDATE";
    struct db_val p[] = { DBV_INT(cursor_id) };
    struct db_val cols[] = {
        DBV_INT(cur->id), DBV_INT(cur->batch_id), DBV_INT(cur->first_job_num),
        DBV_INT(cur->last_job_num), DBV_INT(cur->first_unfinished_job_num),
        DBV_INT(cur->first_ungenerated_job_num), DBV_DBL(cur->remaining_credit),
    };
    char what[64];
    memset(cur, 0, sizeof *cur);
    snprintf(what, sizeof what, "lock [cursor#%d]", cursor_id);
    return query_one(c, SLOT_TR_CURSOR_LOCK, sql, p, 1, cols, 7, what);
}

int db_tr_first_unfinished(struct db_conn *c, int cursor_id, int from, int *job_num)
{
    /* ind_wu_cursor_job in order, stopping at the first unfinished one */
    static const char sql[] =
        "SELECT job_num FROM workunit WHERE cursor_id = ? AND job_num >= ? "
        "AND canonical_resultid = 0 AND error_mask = 0 ORDER BY job_num LIMIT 1";
    struct db_val p[] = { DBV_INT(cursor_id), DBV_INT(from) };
    struct db_val cols[] = { DBV_INT(*job_num) };
    char what[80];
    snprintf(what, sizeof what, "find the first unfinished job of [cursor#%d]", cursor_id);
    return query_one(c, SLOT_TR_FIRST_UNFINISHED, sql, p, 2, cols, 1, what);
}

int db_tr_unfinished_fpops(struct db_conn *c, int cursor_id, int batch_id, int from, int to,
                           double *fpops)
{
    /* batch_job by primary key, workunit by ind_wu_cursor_job */
    static const char sql[] =
        "SELECT IFNULL(SUM(j.rsc_fpops_est), 0) FROM batch_job j "
        "LEFT JOIN workunit w ON w.cursor_id = ? AND w.job_num = j.job_num "
        "WHERE j.batch_id = ? AND j.job_num >= ? AND j.job_num <= ? "
        "AND (w.id IS NULL OR (w.canonical_resultid = 0 AND w.error_mask = 0))";
    struct db_val p[] = { DBV_INT(cursor_id), DBV_INT(batch_id), DBV_INT(from), DBV_INT(to) };
    struct db_val cols[] = { DBV_DBL(*fpops) };
    char what[80];
    *fpops = 0;
    snprintf(what, sizeof what, "sum the unfinished jobs of [cursor#%d]", cursor_id);
    return db_query(c, SLOT_TR_UNFINISHED_FPOPS, sql, p, 4, cols, 1, NULL, NULL, NULL, what);
}

int db_tr_cursor_progress(struct db_conn *c, int cursor_id, int first_unfinished,
                          double remaining_credit)
{
    static const char sql[] = "UPDATE locality_cursor SET first_unfinished_job_num = ?, "
                              "remaining_credit = ? WHERE id = ?";
    struct db_val p[] = { DBV_INT(first_unfinished), DBV_DBL(remaining_credit),
                          DBV_INT(cursor_id) };
    char what[64];
    snprintf(what, sizeof what, "store the progress of [cursor#%d]", cursor_id);
    return db_exec(c, SLOT_TR_CURSOR_PROGRESS, sql, p, 3, NULL, what);
}

int db_tr_batch_lock(struct db_conn *c, int batch_id, int *state, int *locality)
{
    static const char sql[] = "SELECT state, locality FROM batch WHERE id = ? FOR UPDATE";
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_INT(*state), DBV_INT(*locality) };
    char what[64];
    snprintf(what, sizeof what, "lock [batch#%d]", batch_id);
    return query_one(c, SLOT_TR_BATCH_LOCK, sql, p, 1, cols, 2, what);
}

int db_tr_batch_unfinished(struct db_conn *c, int batch_id, int locality, long long *n)
{
    /* ind_cursor_batch; for plain batches ind_wu_batch_job */
    static const char sql_loc[] =
        "SELECT CAST(IF(COUNT(*) = 0, 1, SUM(first_unfinished_job_num <= last_job_num)) "
        "AS SIGNED) FROM locality_cursor WHERE batch_id = ?";
    static const char sql_plain[] =
        "SELECT CAST((NOT EXISTS (SELECT 1 FROM workunit WHERE batch = ?)) OR "
        "EXISTS (SELECT 1 FROM workunit WHERE batch = ? AND canonical_resultid = 0 "
        "AND error_mask = 0) AS SIGNED)";
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_LL(*n) };
    char what[64];
    *n = 1;
    snprintf(what, sizeof what, "check completion of [batch#%d]", batch_id);
    if (locality)
        return db_query(c, SLOT_TR_BATCH_UNFIN_LOC, sql_loc, p, 1, cols, 1, NULL, NULL, NULL,
                        what);
    return db_query(c, SLOT_TR_BATCH_UNFIN_PLAIN, sql_plain, p, 2, cols, 1, NULL, NULL, NULL,
                    what);
}

int db_tr_batch_complete(struct db_conn *c, int batch_id, int now, int *changed)
{
    static const char sql[] = "UPDATE batch SET state = 2, completion_time = ?, "
                              "fraction_done = 1 WHERE id = ? AND state = 1";
    struct db_val p[] = { DBV_INT(now), DBV_INT(batch_id) };
    long long affected = 0;
    char what[64];
    int r;
    snprintf(what, sizeof what, "mark [batch#%d] complete", batch_id);
    r = db_exec(c, SLOT_TR_BATCH_COMPLETE, sql, p, 2, &affected, what);
    *changed = r == DB_OK && affected > 0;
    return r;
}

int db_tr_stale_cursors(struct db_conn *c, int mod_n, int mod_i, int limit, int *ids, int *n)
{
    /* one workunit per cursor, by ind_wu_cursor_job */
    static const char sql[] =
        "SELECT c.id FROM locality_cursor c JOIN batch b ON b.id = c.batch_id "
        "JOIN workunit w ON w.cursor_id = c.id AND w.job_num = c.first_unfinished_job_num "
        "WHERE b.state = 1 AND MOD(c.id, ?) = ? "
        "AND (w.canonical_resultid <> 0 OR w.error_mask <> 0) ORDER BY c.id LIMIT ?";
    struct db_val p[] = { DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    return db_query_ids(c, SLOT_TR_STALE_CURSORS, sql, p, 3, limit, ids, n,
                     "list cursors behind their finished jobs");
}

int db_tr_stale_batches(struct db_conn *c, int mod_n, int mod_i, int limit, int *ids, int *n)
{
    static const char sql[] =
        "SELECT b.id FROM batch b WHERE b.state = 1 AND MOD(b.id, ?) = ? AND ("
        " (b.locality = 1"
        "  AND EXISTS (SELECT 1 FROM locality_cursor c WHERE c.batch_id = b.id)"
        "  AND NOT EXISTS (SELECT 1 FROM locality_cursor c WHERE c.batch_id = b.id"
        "                  AND c.first_unfinished_job_num <= c.last_job_num))"
        " OR (b.locality = 0"
        "  AND EXISTS (SELECT 1 FROM workunit w WHERE w.batch = b.id)"
        "  AND NOT EXISTS (SELECT 1 FROM workunit w WHERE w.batch = b.id"
        "                  AND w.canonical_resultid = 0 AND w.error_mask = 0)))"
        " ORDER BY b.id LIMIT ?";
    struct db_val p[] = { DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    return db_query_ids(c, SLOT_TR_STALE_BATCHES, sql, p, 3, limit, ids, n,
                     "list finished batches not marked complete");
}

/* --------------------------------------------------------- locality daemon */

int db_ld_cursors(struct db_conn *c, int idle_before, int mod_n, int mod_i, int after,
                  int limit, int *ids, int *n)
{
    /* stale members through ind_host_rpc_time, then batch_host by host */
    static const char sql[] =
        "SELECT x.id FROM ("
        " SELECT c.id AS id FROM locality_cursor c JOIN batch b ON b.id = c.batch_id"
        " WHERE b.state = 1 AND b.locality = 1"
        " UNION"
        " SELECT bh.cursor_id FROM host h JOIN batch_host bh ON bh.host_id = h.id"
        " WHERE h.rpc_time < ?"
        ") x WHERE MOD(x.id, ?) = ? AND x.id > ? ORDER BY x.id LIMIT ?";
    struct db_val p[] = { DBV_INT(idle_before), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(after),
                          DBV_INT(limit) };
    return db_query_ids(c, SLOT_LD_CURSORS, sql, p, 5, limit, ids, n,
                     "list cursors whose teams to recompute");
}

int db_ld_cursor_lock(struct db_conn *c, int cursor_id, struct db_ld_cursor *cur)
{
    static const char sql[] = "SELECT id, batch_id, nhosts, expavg_credit, max_host_credit "
                              "FROM locality_cursor WHERE id = ? FOR UPDATE";
    struct db_val p[] = { DBV_INT(cursor_id) };
    struct db_val cols[] = { DBV_INT(cur->id), DBV_INT(cur->batch_id), DBV_INT(cur->nhosts),
                             DBV_DBL(cur->expavg_credit), DBV_DBL(cur->max_host_credit) };
    char what[64];
    memset(cur, 0, sizeof *cur);
    snprintf(what, sizeof what, "lock [cursor#%d]", cursor_id);
    return query_one(c, SLOT_LD_CURSOR_LOCK, sql, p, 1, cols, 5, what);
}

struct member_ctx {
    struct db_ld_member m;
    int (*row)(void *ctx, const struct db_ld_member *m);
    void *ctx;
};

static int member_row(void *vctx)
{
    struct member_ctx *x = vctx;
    return x->row(x->ctx, &x->m);
}

/* db_ld_members(): a GPU type's flops in the host row, counted when g.COL
 * says that the project has a version for the type */
#define LD_GPU_FLOPS(id, name, col) \
    "h.gpu_" #col "_count * h.gpu_" #col "_peak_flops * g." #col " + "
#define LD_GPU_USED(id, name, col) "IFNULL(MAX(v.coproc_type = '" name "'), 0) AS " #col ", "

int db_ld_members(struct db_conn *c, int cursor_id,
                  int (*row)(void *ctx, const struct db_ld_member *m), void *ctx)
{
    /* ind_bh_cursor_user (cursor_id, userid); host by primary key */
    static const char sql[] =
        "SELECT bh.host_id, bh.batch_id, bh.credit_rate, IFNULL(h.rpc_time, 0), "
        "IFNULL(h.p_fpops, 0), IFNULL(h.p_ncpus, 0), IFNULL(h.on_frac, 0), "
        "IFNULL(h.active_frac, 0), IFNULL(h.expavg_credit, 0), IFNULL(h.expavg_time, 0), "
        "IFNULL(h.gpu_active_frac, 0), "
        /* the peak flops of the GPUs of the types the project has a version for */
        "IFNULL(" DB_GPU_TYPES(LD_GPU_FLOPS) "0, 0) "
        "FROM batch_host bh LEFT JOIN host h ON h.id = bh.host_id "
        "CROSS JOIN (SELECT " DB_GPU_TYPES(LD_GPU_USED) "1 AS any_version "
        "            FROM app_version v JOIN app a ON a.id = v.appid "
        "            WHERE v.deprecated = 0 AND a.deprecated = 0) g "
        "WHERE bh.cursor_id = ? ORDER BY bh.host_id";
    struct member_ctx x;
    struct db_val p[] = { DBV_INT(cursor_id) };
    char what[64];
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    snprintf(what, sizeof what, "read the team of [cursor#%d]", cursor_id);
    {
        struct db_val cols[] = {
            DBV_INT(x.m.host_id), DBV_INT(x.m.batch_id), DBV_DBL(x.m.credit_rate),
            DBV_INT(x.m.rpc_time), DBV_DBL(x.m.p_fpops), DBV_INT(x.m.p_ncpus),
            DBV_DBL(x.m.on_frac), DBV_DBL(x.m.active_frac), DBV_DBL(x.m.expavg_credit),
            DBV_DBL(x.m.expavg_time), DBV_DBL(x.m.gpu_active_frac), DBV_DBL(x.m.gpu_peak_flops),
        };
        return db_query(c, SLOT_LD_MEMBERS, sql, p, 1, cols, 12, member_row, &x, NULL, what);
    }
}

int db_ld_member_remove(struct db_conn *c, int host_id, int batch_id, int cursor_id,
                        int idle_before, long long *removed)
{
    static const char sql[] =
        "DELETE FROM batch_host WHERE host_id = ? AND batch_id = ? AND cursor_id = ? "
        "AND NOT EXISTS (SELECT 1 FROM host h WHERE h.id = ? AND h.rpc_time >= ?)";
    struct db_val p[] = { DBV_INT(host_id), DBV_INT(batch_id), DBV_INT(cursor_id),
                          DBV_INT(host_id), DBV_INT(idle_before) };
    char what[96];
    snprintf(what, sizeof what, "remove [host#%d] from [cursor#%d]", host_id, cursor_id);
    return db_exec(c, SLOT_LD_MEMBER_REMOVE, sql, p, 5, removed, what);
}

int db_ld_member_rate(struct db_conn *c, int host_id, int batch_id, int cursor_id,
                      double credit_rate)
{
    static const char sql[] = "UPDATE batch_host SET credit_rate = ? "
                              "WHERE host_id = ? AND batch_id = ? AND cursor_id = ?";
    struct db_val p[] = { DBV_DBL(credit_rate), DBV_INT(host_id), DBV_INT(batch_id),
                          DBV_INT(cursor_id) };
    char what[96];
    snprintf(what, sizeof what, "store the rate of [host#%d] in [cursor#%d]", host_id,
             cursor_id);
    return db_exec(c, SLOT_LD_MEMBER_RATE, sql, p, 4, NULL, what);
}

int db_ld_cursor_team(struct db_conn *c, int cursor_id, double expavg_credit,
                      double max_host_credit, int nhosts, int now)
{
    static const char sql[] =
        "UPDATE locality_cursor SET expavg_credit = ?, max_host_credit = ?, nhosts = ?, "
        "update_time = ? WHERE id = ?";
    struct db_val p[] = { DBV_DBL(expavg_credit), DBV_DBL(max_host_credit), DBV_INT(nhosts),
                          DBV_INT(now), DBV_INT(cursor_id) };
    char what[64];
    snprintf(what, sizeof what, "store the team of [cursor#%d]", cursor_id);
    return db_exec(c, SLOT_LD_CURSOR_TEAM, sql, p, 5, NULL, what);
}

int db_id_step(struct db_conn *c, int *step)
{
    static const char sql[] = "SELECT @@auto_increment_increment";
    struct db_val cols[] = { DBV_INT(*step) };
    *step = 1;
    return db_query(c, SLOT_DAEMON_ID_STEP, sql, NULL, 0, cols, 1, NULL, NULL, NULL,
                    "read auto_increment_increment");
}
