/*
 * db_tail.c - statements for backup replicas (db_tail.h).
 */
#include "db_tail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"
#include "db_json.h"
#include "db_slots.h"

struct tail_ctx {
    struct db_tail_cand cur;
    struct db_tail_cand *out;
    int *n, limit;
};

static int tail_row(void *vctx)
{
    struct tail_ctx *x = vctx;
    if (*x->n >= x->limit)
        return 1;
    x->out[(*x->n)++] = x->cur;
    return 0;
}

int db_tail_candidates(struct db_conn *c, int userid, const int *appids, int nappids, int now,
                       int limit, struct db_tail_cand *out, int *n)
{
    /* In deadline order by ind_res_deadline (server_state, report_deadline),
     * stopping at the limit: every other table is reached per row, by key
     * (the workunit and host by primary key, the workunit's results by
     * uk_result_wu_user, the batch by primary key), and the checks on a
     * workunit's results are one scalar subquery; STRAIGHT_JOIN keeps
     * MariaDB from starting at the workunits (it did on a small database,
     * statistics permitting: 7,914 rows read instead of 177 in
     * test_sched_replies).  Written as joins and NOT
     * EXISTS, MariaDB started from the batch table, materialised every
     * result of the user and sorted all results in progress: 0.5 s and
     * 175,000 key reads per call with 32,000 in progress, so that at a
     * batch's end, when every request for work runs it, requests timed out
     * (doc/load-testing.md, "Backups at a large batch's end"). */
    static const char sql[] =
        "SELECT r.id, r.name, w.id, w.name, w.appid, w.batch, w.cursor_id, w.job_num, "
        "w.first_file_num, w.nfiles, w.command_line, w.rsc_fpops_est, w.rsc_fpops_bound, "
        "w.rsc_memory_bound, w.rsc_disk_bound, w.max_out_nbytes, w.delay_bound, "
        "r.sent_time, r.report_deadline, r.flops_estimate, "
        "IFNULL(h.rpc_time, 0), IFNULL(h.lost_time, 0), IFNULL(h.turnaround_n, 0), "
        "IFNULL(h.avg_turnaround, 0), IFNULL(h.on_frac, 1), IFNULL(h.active_frac, 1), "
        "IFNULL(h.rpc_gap_avg, 0), IFNULL(h.rpc_gap_dev, 0), IFNULL(h.rpc_gap_n, 0), "
        "(SELECT COUNT(*) FROM result n WHERE n.workunitid = w.id), "
        "(SELECT bt.total_fpops FROM batch bt WHERE bt.id = w.batch), "
        "(SELECT bt.backup_fpops FROM batch bt WHERE bt.id = w.batch) "
        "FROM result r FORCE INDEX (ind_res_deadline) "
        "STRAIGHT_JOIN workunit w ON w.id = r.workunitid "
        "LEFT JOIN host h ON h.id = r.hostid "
        "WHERE r.server_state = 4 AND r.report_deadline > ? AND (r.replica_flags & 3) = 0 "
        "  AND JSON_CONTAINS(?, CAST(w.appid AS CHAR)) "
        "  AND w.canonical_resultid = 0 AND w.error_mask = 0 "
        "  AND (SELECT bt.state FROM batch bt WHERE bt.id = w.batch) = 1 "
        /* no result of this user, none unsent, no backup in progress; fewer
         * results than max_total_results; fewer valid successes than the
         * quorum */
        "  AND (SELECT COUNT(*) < w.max_total_results "
        "          AND IFNULL(SUM(o.userid = ? OR o.server_state = 2 OR "
        "                         (o.server_state = 4 AND (o.replica_flags & 1) <> 0)), 0) = 0 "
        "          AND IFNULL(SUM(o.server_state = 5 AND o.outcome = 1 "
        "                         AND o.validate_state <> 2), 0) < w.min_quorum "
        "       FROM result o WHERE o.workunitid = w.id) "
        "  AND (w.cursor_id = 0 OR NOT EXISTS ("
        "       SELECT 1 FROM locality_cursor c WHERE c.batch_id = w.batch AND "
        "       (c.first_ungenerated_job_num <= c.last_job_num OR EXISTS ("
        "        SELECT 1 FROM result u FORCE INDEX (ind_res_unsent) "
        "        WHERE u.unsent_cursor = c.id)))) "
        "ORDER BY r.report_deadline, r.id LIMIT ?";
    struct tail_ctx x;
    struct jbuf b = { 0 };
    int i, r;

    *n = 0;
    if (nappids <= 0 || limit <= 0)
        return DB_OK;
    jb_open(&b);
    for (i = 0; i < nappids; i++)
        jb_int(&b, appids[i]);
    jb_close(&b);
    if (jb_failed(c, &b, "select results for backups"))
        return DB_ERR;
    memset(&x, 0, sizeof x);
    x.out = out;
    x.n = n;
    x.limit = limit;
    {
        struct db_tail_cand *t = &x.cur;
        struct db_candidate *w = &t->wu;
        struct db_val params[] = { DBV_INT(now), DBV_STRN(b.p, b.len), DBV_INT(userid),
                                   DBV_INT(limit) };
        struct db_val cols[] = {
            DBV_INT(w->result_id), DBV_BUF(w->result_name), DBV_INT(w->wu_id),
            DBV_BUF(w->wu_name), DBV_INT(w->appid), DBV_INT(w->batch), DBV_INT(w->cursor_id),
            DBV_INT(w->job_num), DBV_INT(w->first_file_num), DBV_INT(w->nfiles),
            DBV_BUF(w->command_line), DBV_DBL(w->rsc_fpops_est), DBV_DBL(w->rsc_fpops_bound),
            DBV_DBL(w->rsc_memory_bound), DBV_DBL(w->rsc_disk_bound), DBV_DBL(w->max_out_nbytes),
            DBV_INT(w->delay_bound),
            DBV_INT(t->sent_time), DBV_INT(t->report_deadline), DBV_DBL(t->flops_estimate),
            DBV_INT(t->host_rpc_time), DBV_INT(t->host_lost_time),
            DBV_INT(t->host_turnaround_n), DBV_DBL(t->host_avg_turnaround),
            DBV_DBL(t->host_on_frac), DBV_DBL(t->host_active_frac), DBV_DBL(t->host_gap_avg),
            DBV_DBL(t->host_gap_dev), DBV_INT(t->host_gap_n), DBV_INT(t->nresults),
            DBV_DBL(t->batch_total_fpops), DBV_DBL(t->batch_backup_fpops),
        };
        r = db_query(c, SLOT_TAIL_CANDS, sql, params, 4, cols, 32, tail_row, &x, NULL,
                     "select results for backups");
    }
    free(b.p);
    return r;
}

int db_tail_lock_wu(struct db_conn *c, int wuid)
{
    static const char sql[] = "SELECT id FROM workunit WHERE id = ? FOR UPDATE SKIP LOCKED";
    struct db_val p[] = { DBV_INT(wuid) };
    int id = 0;
    struct db_val col[] = { DBV_INT(id) };
    char what[64];
    long nrows = 0;
    int r;

    snprintf(what, sizeof what, "lock [wu#%d] for a backup", wuid);
    r = db_query(c, SLOT_TAIL_WU_LOCK, sql, p, 1, col, 1, NULL, NULL, &nrows, what);
    if (r == DB_OK && nrows == 0)
        return DB_NOTFOUND;
    return r;
}

int db_tail_budget(struct db_conn *c, int batch_id, double fpops, double share, int *ok)
{
    static const char sql[] =
        "UPDATE batch SET backup_fpops = GREATEST(backup_fpops + ?, 0) "
        "WHERE id = ? AND (? < 0 OR backup_fpops + ? <= ? * total_fpops)";
    struct db_val p[] = { DBV_DBL(fpops), DBV_INT(batch_id), DBV_DBL(fpops), DBV_DBL(fpops),
                          DBV_DBL(share) };
    long long affected = 0;
    char what[64];
    int r;

    snprintf(what, sizeof what, "backup budget of [batch#%d]", batch_id);
    r = db_exec(c, SLOT_TAIL_BUDGET, sql, p, 5, &affected, what);
    *ok = r == DB_OK && affected == 1;
    return r;
}

int db_tail_insert(struct db_conn *c, const struct db_tail_new *b, int *id)
{
    /* the checks read the workunit's results through uk_result_wu_user */
    static const char sql[] =
        "INSERT INTO result (create_time, workunitid, name, appid, batch, cursor_id, job_num, "
        "server_state, outcome, hostid, userid, app_version_id, report_deadline, sent_time, "
        "flops_estimate, replica_flags) "
        "SELECT ?, w.id, ?, w.appid, w.batch, w.cursor_id, w.job_num, 4, 0, ?, ?, ?, ?, ?, ?, 1 "
        "FROM workunit w WHERE w.id = ? AND w.canonical_resultid = 0 AND w.error_mask = 0 "
        "AND NOT EXISTS (SELECT 1 FROM result o WHERE o.workunitid = w.id AND "
        "                (o.userid = ? OR (o.server_state = 4 AND (o.replica_flags & 1) <> 0))) "
        "AND (SELECT COUNT(*) FROM result m WHERE m.workunitid = w.id) < w.max_total_results "
        "AND (SELECT COUNT(*) FROM result s WHERE s.workunitid = w.id AND s.server_state = 5 "
        "     AND s.outcome = 1 AND s.validate_state <> 2) < w.min_quorum";
    struct db_tail_new v = *b;
    struct db_val p[] = { DBV_INT(v.now), DBV_STR(v.name), DBV_INT(v.hostid), DBV_INT(v.userid),
                          DBV_INT(v.app_version_id), DBV_INT(v.report_deadline), DBV_INT(v.now),
                          DBV_DBL(v.flops_estimate), DBV_INT(v.wuid), DBV_INT(v.userid) };
    long long affected = 0;
    char what[96];
    int r;

    *id = 0;
    snprintf(what, sizeof what, "backup of [wu#%d] for [host#%d]", v.wuid, v.hostid);
    r = db_exec(c, SLOT_TAIL_INSERT, sql, p, 10, &affected, what);
    if (r == DB_OK && affected == 1)
        *id = (int)db_insert_id(c, SLOT_TAIL_INSERT);
    return r;
}
