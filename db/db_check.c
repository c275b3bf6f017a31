/*
 * db_check.c - the read-only statements of the invariant checker (see
 * db_check.h).  Each id check is one statement that lists the offending
 * ids and, through a window function, how many there are in all, so that
 * a database with thousands of violations still returns a few rows.
 */
#include "db_check.h"

#include <stdio.h>
#include <string.h>

#include "db_slots.h"

/* "sent": IN_PROGRESS (4), or OVER (5) with outcome SUCCESS (1),
 * CLIENT_ERROR (3), NO_REPLY (4), VALIDATE_ERROR (6), CLIENT_DETACHED (7);
 * "not sent": INACTIVE (1), UNSENT (2) (db_sched.h) */
#define SENT "(server_state = 4 OR (server_state = 5 AND outcome IN (1, 3, 4, 6, 7)))"

/* A check's statement: its inner query yields one column, id; the
 * wrapper orders and limits the ids and counts them all. */
#define IDS(inner) "SELECT x.id, COUNT(*) OVER () FROM (" inner ") x ORDER BY x.id LIMIT ?"

/* uses_now: the statement takes the clock as its first parameter. */
static const struct {
    int slot;
    int uses_now;
    const char *what;
    const char *sql;
} checks[DBC_NCHECKS] = {
    [DBC_SENT_UNASSIGNED] = {
        SLOT_CHECK_SENT_UNASSIGNED, 0, "find sent results without host, user or time",
        IDS("SELECT id FROM result WHERE " SENT
            " AND (hostid = 0 OR userid IS NULL OR sent_time = 0)") },
    [DBC_SENT_HOST_MISSING] = {
        SLOT_CHECK_SENT_HOST_MISSING, 0, "find results in progress on hosts that do not exist",
        IDS("SELECT r.id AS id FROM result r LEFT JOIN host h ON h.id = r.hostid "
            "WHERE r.server_state = 4 AND r.hostid <> 0 AND h.id IS NULL") },
    [DBC_UNSENT_ASSIGNED] = {
        SLOT_CHECK_UNSENT_ASSIGNED, 0, "find unsent results with a host, user or time",
        IDS("SELECT id FROM result WHERE server_state IN (1, 2) "
            "AND (hostid <> 0 OR userid IS NOT NULL OR sent_time <> 0)") },
    [DBC_SAME_HOST] = {
        SLOT_CHECK_SAME_HOST, 0, "find workunits with two results on one host",
        IDS("SELECT DISTINCT g.wu AS id FROM (SELECT workunitid AS wu FROM result "
            "WHERE hostid <> 0 GROUP BY workunitid, hostid HAVING COUNT(*) > 1) g") },
    [DBC_DUP_NAME] = {
        SLOT_CHECK_DUP_NAME, 0, "find results with the name of another",
        /* one sort, with or without the unique key on name */
        IDS("SELECT t.id FROM (SELECT id, ROW_NUMBER() OVER (PARTITION BY name ORDER BY id) "
            "AS n FROM result) t WHERE t.n > 1") },
    [DBC_SAME_USER] = {
        SLOT_CHECK_SAME_USER, 0, "find workunits with two results of one user",
        IDS("SELECT DISTINCT g.wu AS id FROM (SELECT u.wu FROM (SELECT r.workunitid AS wu, "
            "COALESCE(r.userid, h.userid) AS uid FROM result r LEFT JOIN host h "
            "ON h.id = r.hostid WHERE r.userid IS NOT NULL OR r.hostid <> 0) u "
            "WHERE u.uid IS NOT NULL GROUP BY u.wu, u.uid HAVING COUNT(*) > 1) g") },
    [DBC_USER_MISMATCH] = {
        SLOT_CHECK_USER_MISMATCH, 0, "find results whose user is not their host's",
        IDS("SELECT r.id AS id FROM result r JOIN host h ON h.id = r.hostid "
            "WHERE r.userid IS NOT NULL AND r.userid <> h.userid") },
    [DBC_WU_STUCK] = {
        SLOT_CHECK_WU_STUCK, 1, "find unfinished workunits nothing will move",
        IDS("SELECT w.id AS id FROM workunit w JOIN batch b ON b.id = w.batch "
            "WHERE b.state = 1 AND w.canonical_resultid = 0 AND w.error_mask = 0 "
            "AND w.need_validate = 0 "
            "AND w.transition_time > ? AND NOT EXISTS (SELECT 1 FROM result r "
            "WHERE r.workunitid = w.id AND r.server_state IN (2, 4))") },
    [DBC_JOB_TWICE] = {
        SLOT_CHECK_JOB_TWICE, 0, "find jobs generated twice",
        IDS("SELECT w.id AS id FROM workunit w WHERE w.cursor_id <> 0 AND EXISTS "
            "(SELECT 1 FROM workunit o WHERE o.cursor_id = w.cursor_id "
            "AND o.job_num = w.job_num AND o.id < w.id)") },
    [DBC_MEMBER_ORPHAN] = {
        SLOT_CHECK_MEMBER_ORPHAN, 0, "find team members of missing or foreign cursors",
        IDS("SELECT DISTINCT bh.host_id AS id FROM batch_host bh "
            "LEFT JOIN locality_cursor c ON c.id = bh.cursor_id "
            "WHERE c.id IS NULL OR c.batch_id <> bh.batch_id") },
    [DBC_TWO_BACKUPS] = {
        SLOT_CHECK_TWO_BACKUPS, 0, "find workunits with two backups in progress",
        IDS("SELECT workunitid AS id FROM result WHERE server_state = 4 "
            "AND (replica_flags & 1) <> 0 GROUP BY workunitid HAVING COUNT(*) > 1") },
    [DBC_BACKUP_UNSENT] = {
        SLOT_CHECK_BACKUP_UNSENT, 0, "find backups not sent",
        IDS("SELECT id FROM result WHERE (replica_flags & 1) <> 0 AND server_state IN (1, 2)") },
    [DBC_TOO_MANY_RESULTS] = {
        SLOT_CHECK_TOO_MANY_RESULTS, 0, "find workunits over max_total_results",
        IDS("SELECT w.id AS id FROM workunit w JOIN (SELECT workunitid, COUNT(*) AS n "
            "FROM result GROUP BY workunitid) c ON c.workunitid = w.id "
            "WHERE c.n > w.max_total_results") },
    [DBC_LOST_UNFLAGGED] = {
        SLOT_CHECK_LOST_UNFLAGGED, 0, "find unflagged results of hosts presumed gone",
        IDS("SELECT r.id AS id FROM result r JOIN host h ON h.id = r.hostid "
            "JOIN workunit w ON w.id = r.workunitid WHERE h.lost_time > 0 "
            "AND r.server_state = 4 AND (r.replica_flags & 2) = 0 "
            "AND r.report_deadline >= h.lost_time AND w.canonical_resultid = 0 "
            "AND w.error_mask = 0") },
    [DBC_LOST_UNREPLACED] = {
        SLOT_CHECK_LOST_UNREPLACED, 1, "find results of hosts presumed gone never replaced",
        IDS("SELECT w.id AS id FROM workunit w JOIN batch b ON b.id = w.batch "
            "WHERE b.state = 1 AND w.canonical_resultid = 0 AND w.error_mask = 0 "
            "AND w.transition_time > ? "
            "AND EXISTS (SELECT 1 FROM result l WHERE l.workunitid = w.id "
            "            AND l.server_state = 4 AND (l.replica_flags & 2) <> 0) "
            "AND (SELECT COUNT(*) FROM result r WHERE r.workunitid = w.id AND "
            "     (r.server_state IN (1, 2) OR (r.server_state = 4 AND (r.replica_flags & 2) = 0)"
            "      OR (r.server_state = 5 AND r.outcome = 1))) "
            "    < GREATEST(w.target_nresults, w.min_quorum) "
            "AND (SELECT COUNT(*) FROM result t WHERE t.workunitid = w.id) "
            "    < w.max_total_results") },
    /* validation (doc/admin-guide.md, "Validation"): the transitioner
     * without a validator, and the validator, mark a result VALID in the
     * transaction that grants its credit and picks the canonical one */
    [DBC_CREDIT_NOT_VALID] = {
        SLOT_CHECK_CREDIT_NOT_VALID, 0, "find results with credit that are not valid",
        IDS("SELECT id FROM result WHERE granted_credit > 0 AND validate_state <> 1") },
    [DBC_VALIDATE_STATE] = {
        SLOT_CHECK_VALIDATE_STATE, 0, "find results validated that are not reported",
        IDS("SELECT id FROM result WHERE "
            "(validate_state IN (1, 4) AND NOT (server_state = 5 AND outcome = 1)) "
            "OR (validate_state = 2 AND server_state <> 5)") },
    [DBC_CANONICAL_NOT_VALID] = {
        SLOT_CHECK_CANONICAL_NOT_VALID, 0, "find canonical results that are not valid",
        IDS("SELECT w.id AS id FROM workunit w LEFT JOIN result r ON r.id = w.canonical_resultid "
            "WHERE w.canonical_resultid <> 0 AND (r.id IS NULL OR r.workunitid <> w.id "
            "OR r.server_state <> 5 OR r.outcome <> 1 OR r.validate_state <> 1)") },
};
_Static_assert((int)SLOT_CHECK_VA_END <= (int)SLOT_ASSIM_FIRST, "validation checks fit 186..191");
_Static_assert((int)SLOT_CHECK_END <= 100, "check statement slots fit 80..99");

int db_check_begin(struct db_conn *c)
{
    static const char sql_ro[] = "SET SESSION TRANSACTION READ ONLY";
    static const char sql_snap[] = "START TRANSACTION READ ONLY, WITH CONSISTENT SNAPSHOT";
    int r;

    r = db_exec(c, SLOT_CHECK_READ_ONLY, sql_ro, NULL, 0, NULL, "make the session read-only");
    if (r == DB_OK)
        r = db_exec(c, SLOT_CHECK_SNAPSHOT, sql_snap, NULL, 0, NULL,
                    "start a consistent snapshot");
    return r;
}

struct ids_ctx {
    int id;
    long long total;
    int *ids, max, *n;
    long long *count;
};

static int ids_row(void *vctx)
{
    struct ids_ctx *x = vctx;
    *x->count = x->total;
    if (*x->n < x->max)
        x->ids[(*x->n)++] = x->id;
    return 0;
}

int db_check_ids(struct db_conn *c, enum db_check_id which, int now, int max_ids,
                 long long *count, int *ids, int *nids)
{
    struct ids_ctx x;
    /* LIMIT 0 would return no row and so no count: read one row then */
    int limit = max_ids > 0 ? max_ids : 1;
    struct db_val p_now[] = { DBV_INT(now), DBV_INT(limit) };
    struct db_val p[] = { DBV_INT(limit) };

    *count = 0;
    *nids = 0;
    if ((int)which < 0 || which >= DBC_NCHECKS || max_ids < 0)
        return DB_ERR;
    memset(&x, 0, sizeof x);
    x.ids = ids;
    x.max = max_ids;
    x.n = nids;
    x.count = count;
    {
        struct db_val cols[] = { DBV_INT(x.id), DBV_LL(x.total) };
        if (checks[which].uses_now)
            return db_query(c, checks[which].slot, checks[which].sql, p_now, 2, cols, 2,
                            ids_row, &x, NULL, checks[which].what);
        return db_query(c, checks[which].slot, checks[which].sql, p, 1, cols, 2, ids_row, &x,
                        NULL, checks[which].what);
    }
}

struct cursor_ctx {
    struct db_check_cursor r;
    int (*row)(void *ctx, const struct db_check_cursor *r);
    void *ctx;
};

static int cursor_row(void *vctx)
{
    struct cursor_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}

int db_check_cursors(struct db_conn *c,
                     int (*row)(void *ctx, const struct db_check_cursor *r), void *ctx)
{
    /* workunit by ind_wu_cursor_job, batch_host by ind_bh_cursor_user */
    static const char sql[] =
        "SELECT c.id, c.batch_id, IFNULL(b.state, -1), c.first_job_num, c.last_job_num, "
        "c.first_unfinished_job_num, c.first_ungenerated_job_num, c.nhosts, "
        "c.remaining_credit, c.expavg_credit, c.max_host_credit, "
        "(SELECT COUNT(DISTINCT w.job_num) FROM workunit w WHERE w.cursor_id = c.id "
        "  AND w.job_num >= c.first_job_num AND w.job_num < c.first_ungenerated_job_num), "
        "(SELECT COUNT(*) FROM workunit w WHERE w.cursor_id = c.id "
        "  AND w.job_num >= c.first_ungenerated_job_num), "
        "(SELECT COUNT(*) FROM batch_host m WHERE m.cursor_id = c.id), "
        "(SELECT IFNULL(SUM(m.credit_rate), 0) FROM batch_host m WHERE m.cursor_id = c.id), "
        "(SELECT IFNULL(MAX(m.credit_rate), 0) FROM batch_host m WHERE m.cursor_id = c.id) "
        "FROM locality_cursor c LEFT JOIN batch b ON b.id = c.batch_id ORDER BY c.id";
    struct cursor_ctx x;

    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    {
        struct db_check_cursor *r = &x.r;
        struct db_val cols[] = {
            DBV_INT(r->id), DBV_INT(r->batch_id), DBV_INT(r->batch_state),
            DBV_INT(r->first_job_num), DBV_INT(r->last_job_num),
            DBV_INT(r->first_unfinished_job_num), DBV_INT(r->first_ungenerated_job_num),
            DBV_INT(r->nhosts), DBV_DBL(r->remaining_credit), DBV_DBL(r->expavg_credit),
            DBV_DBL(r->max_host_credit), DBV_LL(r->generated_below),
            DBV_LL(r->generated_ahead), DBV_LL(r->members), DBV_DBL(r->members_rate),
            DBV_DBL(r->members_max_rate),
        };
        return db_query(c, SLOT_CHECK_CURSORS, sql, NULL, 0, cols, 16, cursor_row, &x, NULL,
                        "read the cursors and the counts of their workunits and teams");
    }
}

int db_check_cursor_jobs(struct db_conn *c, struct db_check_cursor *r)
{
    /* batch_job by primary key ranges with constant bounds, workunit by
     * ind_wu_cursor_job; a job is unfinished when no finished workunit of
     * the cursor joins it */
    static const char sql[] =
        "SELECT (SELECT COUNT(*) FROM batch_job a WHERE a.batch_id = ? "
        "  AND a.job_num >= ? AND a.job_num <= ?), "
        "u.behind, u.fpops FROM (SELECT IFNULL(SUM(j.job_num < ?), 0) AS behind, "
        "  IFNULL(SUM(j.rsc_fpops_est), 0) AS fpops FROM batch_job j "
        "  LEFT JOIN workunit w ON w.cursor_id = ? AND w.job_num = j.job_num "
        "  AND (w.canonical_resultid <> 0 OR w.error_mask <> 0) "
        "  WHERE j.batch_id = ? AND j.job_num >= ? AND j.job_num <= ? AND w.id IS NULL) u";
    struct db_val p[] = { DBV_INT(r->batch_id), DBV_INT(r->first_ungenerated_job_num),
                          DBV_INT(r->last_job_num), DBV_INT(r->first_unfinished_job_num),
                          DBV_INT(r->id), DBV_INT(r->batch_id), DBV_INT(r->first_job_num),
                          DBV_INT(r->last_job_num) };
    struct db_val cols[] = { DBV_LL(r->jobs_ahead), DBV_LL(r->unfinished_behind),
                             DBV_DBL(r->unfinished_fpops) };
    char what[80];

    r->jobs_ahead = r->unfinished_behind = 0;
    r->unfinished_fpops = 0;
    snprintf(what, sizeof what, "count the jobs of [cursor#%d]", r->id);
    return db_query(c, SLOT_CHECK_CURSOR_JOBS, sql, p, 8, cols, 3, NULL, NULL, NULL, what);
}
