/*
 * db_locality.c - the locality scheduler's statements (see db_locality.h).
 */
#include "db_locality.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db_internal.h"
#include "db_json.h"
#include "db_slots.h"

struct active_ctx {
    struct db_active_batch b;
    int (*row)(void *ctx, const struct db_active_batch *b);
    void *ctx;
};

static int active_row(void *vctx)
{
    struct active_ctx *x = vctx;
    x->b.locality = x->b.locality != 0;
    return x->row(x->ctx, &x->b);
}

int db_active_batches(struct db_conn *c, int (*row)(void *ctx, const struct db_active_batch *b),
                      void *ctx)
{
    static const char sql[] =
        "SELECT id, locality, finish_eta, finish_fast_flops, create_time FROM batch "
        "WHERE state = 1 ORDER BY id";
    struct active_ctx x;
    struct db_val cols[] = { DBV_INT(x.b.id), DBV_INT(x.b.locality), DBV_INT(x.b.finish_eta),
                             DBV_DBL(x.b.finish_fast_flops), DBV_INT(x.b.create_time) };
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    return db_query(c, SLOT_ACTIVE_BATCHES, sql, NULL, 0, cols, 5, active_row, &x, NULL,
                    "list active batches");
}

struct cursor_ctx {
    struct db_cursor_row r;
    int (*row)(void *ctx, const struct db_cursor_row *r);
    void *ctx;
};

static int cursor_row(void *vctx)
{
    struct cursor_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}


/* Run a cursor read whose SELECT list is CURSOR_COLUMNS and then mine,
 * my_credit_rate, my_assign_time, user_in_team, my_stretch_first,
 * my_stretch_last. */
static int cursor_query(struct db_conn *c, int slot, const char *sql, struct db_val *params,
                        int nparams, int (*row)(void *ctx, const struct db_cursor_row *r),
                        void *ctx, const char *what)
{
    struct cursor_ctx x;
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    {
        struct db_val cols[] = { CURSOR_ROW_BINDINGS(x.r) };
        return db_query(c, slot, sql, params, nparams, cols, 20, cursor_row, &x, NULL, what);
    }
}

int db_locality_cursors(struct db_conn *c, int batch_id, int hostid, int userid,
                        int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx)
{
    static const char sql[] =
        "SELECT " CURSOR_COLUMNS
        "  COALESCE(bh.cursor_id = c.id, 0), "
        "  IF(bh.cursor_id = c.id, bh.credit_rate, 0), IF(bh.cursor_id = c.id, bh.assign_time, 0), "
        "  EXISTS (SELECT 1 FROM batch_host u WHERE u.cursor_id = c.id AND u.userid = ? "
        "          AND u.host_id <> ?), "
        "  IF(bh.cursor_id = c.id, bh.stretch_first, -1), "
        "  IF(bh.cursor_id = c.id, bh.stretch_last, -1) "
        "FROM batch b JOIN locality_cursor c ON c.batch_id = b.id "
        "LEFT JOIN batch_job bj ON bj.batch_id = c.batch_id "
        "  AND bj.job_num = c.first_unfinished_job_num "
        "LEFT JOIN batch_host bh ON bh.host_id = ? AND bh.batch_id = b.id "
        "WHERE b.id = ? AND b.state = 1 AND b.locality <> 0 "
        "ORDER BY c.first_job_num";
    struct db_val params[] = { DBV_INT(userid), DBV_INT(hostid), DBV_INT(hostid),
                               DBV_INT(batch_id) };
    char what[80];
    snprintf(what, sizeof what, "read the cursors of [batch#%d] for [host#%d]", batch_id, hostid);
    return cursor_query(c, SLOT_LOC_CURSORS, sql, params, 4, row, ctx, what);
}

int db_locality_all_cursors(struct db_conn *c,
                            int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx)
{
    static const char sql[] =
        "SELECT " CURSOR_COLUMNS "0, 0, 0, 0, -1, -1 "
        "FROM batch b JOIN locality_cursor c ON c.batch_id = b.id "
        "LEFT JOIN batch_job bj ON bj.batch_id = c.batch_id "
        "  AND bj.job_num = c.first_unfinished_job_num "
        "WHERE b.state = 1 AND b.locality <> 0 "
        "ORDER BY b.id, c.first_job_num";
    return cursor_query(c, SLOT_LOC_ALL_CURSORS, sql, NULL, 0, row, ctx,
                        "read the cursors of the active locality batches");
}

int db_locality_my_cursors(struct db_conn *c, int hostid,
                           int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx)
{
    static const char sql[] = "SELECT " MY_TEAMS_COLUMNS MY_TEAMS_FROM;
    struct db_val params[] = { DBV_INT(hostid) };
    char what[64];
    snprintf(what, sizeof what, "read the teams of [host#%d]", hostid);
    return cursor_query(c, SLOT_LOC_MY_CURSORS, sql, params, 1, row, ctx, what);
}

int db_batch_host_assign(struct db_conn *c, int hostid, int batch_id, int cursor_id, int userid,
                         double credit_rate, int now, int stretch_first, int stretch_last)
{
    static const char sql[] =
        "INSERT INTO batch_host (host_id, batch_id, cursor_id, userid, create_time, "
        "  credit_rate, assign_time, stretch_first, stretch_last) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON DUPLICATE KEY UPDATE cursor_id = VALUES(cursor_id), userid = VALUES(userid), "
        "  credit_rate = VALUES(credit_rate), assign_time = VALUES(assign_time), "
        "  stretch_first = VALUES(stretch_first), stretch_last = VALUES(stretch_last)";
    struct db_val params[] = { DBV_INT(hostid), DBV_INT(batch_id), DBV_INT(cursor_id),
                               DBV_INT(userid), DBV_INT(now), DBV_DBL(credit_rate),
                               DBV_INT(now), DBV_INT(stretch_first), DBV_INT(stretch_last) };
    char what[96];
    snprintf(what, sizeof what, "put [host#%d] in [cursor#%d] of [batch#%d]", hostid, cursor_id,
             batch_id);
    return db_exec(c, SLOT_BH_ASSIGN, sql, params, 9, NULL, what);
}

int db_cursor_adjust(struct db_conn *c, int new_cursor, double rate, int old_cursor,
                     double old_rate, int new_frontier)
{
    static const char sql[] =
        "UPDATE locality_cursor SET "
        "  expavg_credit = GREATEST(0, expavg_credit + IF(id = ?, ?, -?)), "
        "  nhosts = GREATEST(0, nhosts + IF(id = ?, 1, -1)), "
        "  max_host_credit = IF(id = ?, GREATEST(max_host_credit, ?), max_host_credit), "
        "  next_stretch_job_num = IF(id = ?, GREATEST(next_stretch_job_num, ?), "
        "                            next_stretch_job_num) "
        "WHERE id IN (?, ?)";
    struct db_val params[] = { DBV_INT(new_cursor), DBV_DBL(rate), DBV_DBL(old_rate),
                               DBV_INT(new_cursor), DBV_INT(new_cursor), DBV_DBL(rate),
                               DBV_INT(new_cursor), DBV_INT(new_frontier),
                               DBV_INT(new_cursor), DBV_INT(old_cursor) };
    char what[80];
    snprintf(what, sizeof what, "move a host from [cursor#%d] to [cursor#%d]", old_cursor,
             new_cursor);
    return db_exec(c, SLOT_CURSOR_ADJUST, sql, params, 10, NULL, what);
}

static int id_list(struct db_conn *c, const int *ids, int n, struct jbuf *b, const char *what)
{
    int i;
    memset(b, 0, sizeof *b);
    jb_open(b);
    for (i = 0; i < n; i++)
        jb_int(b, ids[i]);
    jb_close(b);
    return jb_failed(c, b, what) ? DB_ERR : DB_OK;
}

int db_host_file_add(struct db_conn *c, int hostid, const int *file_ids, int n, int now)
{
    static const char sql[] =
        "INSERT IGNORE INTO host_file (host_id, file_id, sent_time) "
        "SELECT ?, j.id, ? FROM JSON_TABLE(?, '$[*]' COLUMNS (id INT PATH '$')) j";
    struct jbuf b;
    char what[64];
    int r;

    if (n <= 0)
        return DB_OK;
    snprintf(what, sizeof what, "record %d files sent to [host#%d]", n, hostid);
    if (id_list(c, file_ids, n, &b, what) != DB_OK)
        return DB_ERR;
    {
        struct db_val params[] = { DBV_INT(hostid), DBV_INT(now), DBV_STRN(b.p, b.len) };
        r = db_exec(c, SLOT_HF_ADD, sql, params, 3, NULL, what);
    }
    free(b.p);
    return r;
}

int db_host_file_delete(struct db_conn *c, int hostid, const char *const *names, int n)
{
    static const char sql[] =
        "DELETE hf FROM host_file hf "
        "JOIN file f ON f.id = hf.file_id "
        "JOIN JSON_TABLE(?, '$[*]' COLUMNS (name VARCHAR(254) PATH '$')) j ON f.name = j.name "
        "WHERE hf.host_id = ?";
    struct jbuf b;
    char what[64];
    int i, r;

    if (n <= 0)
        return DB_OK;
    snprintf(what, sizeof what, "forget %d files of [host#%d]", n, hostid);
    memset(&b, 0, sizeof b);
    jb_open(&b);
    for (i = 0; i < n; i++)
        jb_str(&b, names[i]);
    jb_close(&b);
    if (jb_failed(c, &b, what))
        return DB_ERR;
    {
        struct db_val params[] = { DBV_STRN(b.p, b.len), DBV_INT(hostid) };
        r = db_exec(c, SLOT_HF_DELETE, sql, params, 2, NULL, what);
    }
    free(b.p);
    return r;
}

/* ---- positions in the cursor (stretches) ---- */

struct stretch_ctx {
    struct db_stretch_row r;
    int (*row)(void *ctx, const struct db_stretch_row *r);
    void *ctx;
    int *first_open, *frontier;
};

static int stretch_row(void *vctx)
{
    struct stretch_ctx *x = vctx;
    if (x->r.host_id == 0) {       /* the cursor's row: frontier, first open job */
        *x->frontier = x->r.first;
        *x->first_open = x->r.last;
        return 0;
    }
    return x->row(x->ctx, &x->r);
}

int db_stretch_read(struct db_conn *c, int cursor_id, int hostid, int userid, int near_job,
                    int (*row)(void *ctx, const struct db_stretch_row *r),
                    void *ctx, int *first_open, int *frontier)
{
    /* The members' rows, then one row for the cursor (host_id 0) that
     * carries the frontier and the first open job in the stretch
     * columns.  The unsent results are found by ind_res_cursor_unsent
     * (cursor_id, server_state, job_num); members by ind_bh_cursor_user. */
    static const char sql[] =
        "SELECT bh.host_id, bh.userid = ?, bh.credit_rate, bh.stretch_first, bh.stretch_last, "
        "  (SELECT COUNT(*) FROM result r WHERE r.cursor_id = bh.cursor_id "
        "   AND r.server_state = 2 AND r.job_num BETWEEN bh.stretch_first AND bh.stretch_last), "
        "  IFNULL(h.rpc_time, 0), IFNULL(h.lost_time, 0), IFNULL(h.rpc_gap_avg, 0), "
        "  IFNULL(h.rpc_gap_dev, 0), IFNULL(h.rpc_gap_n, 0) "
        "FROM batch_host bh LEFT JOIN host h ON h.id = bh.host_id "
        "WHERE bh.cursor_id = ? AND bh.host_id <> ? AND bh.stretch_first >= 0 "
        "UNION ALL "
        "SELECT 0, 0, 0, c.next_stretch_job_num, COALESCE(("
        "  SELECT r.job_num FROM result r "
        "  LEFT JOIN result o ON o.workunitid = r.workunitid AND o.userid = ? "
        "  WHERE r.cursor_id = c.id AND r.server_state = 2 AND o.id IS NULL "
        "    AND r.job_num < c.next_stretch_job_num "
        "    AND (SELECT COUNT(*) FROM batch_host b2 WHERE b2.cursor_id = c.id "
        "         AND b2.host_id <> ? AND b2.stretch_first >= 0 "
        "         AND r.job_num BETWEEN b2.stretch_first AND b2.stretch_last "
        "         AND NOT EXISTS (SELECT 1 FROM result o2 WHERE o2.workunitid = r.workunitid "
        "                         AND o2.hostid = b2.host_id)) "
        "      < (SELECT COUNT(*) FROM result u WHERE u.workunitid = r.workunitid "
        "         AND u.server_state = 2) "
        "    AND NOT EXISTS (SELECT 1 FROM batch_host b3 WHERE b3.cursor_id = c.id "
        "         AND b3.userid = ? AND b3.host_id <> ? "
        "         AND r.job_num BETWEEN b3.stretch_first AND b3.stretch_last) "
        "  ORDER BY r.job_num < ?, r.job_num LIMIT 1), -1), 0, 0, 0, 0, 0, 0 "
        "FROM locality_cursor c WHERE c.id = ?";
    struct stretch_ctx x;
    struct db_val params[] = { DBV_INT(userid), DBV_INT(cursor_id), DBV_INT(hostid),
                               DBV_INT(userid), DBV_INT(hostid),
                               DBV_INT(userid), DBV_INT(hostid), DBV_INT(near_job),
                               DBV_INT(cursor_id) };
    char what[80];

    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    x.first_open = first_open;
    x.frontier = frontier;
    *first_open = -1;
    *frontier = -1;
    snprintf(what, sizeof what, "read the stretches of [cursor#%d] for [host#%d]", cursor_id,
             hostid);
    {
        struct db_val cols[] = { DBV_INT(x.r.host_id), DBV_INT(x.r.same_user),
                                 DBV_DBL(x.r.credit_rate), DBV_INT(x.r.first),
                                 DBV_INT(x.r.last), DBV_INT(x.r.unsent),
                                 DBV_INT(x.r.rpc_time), DBV_INT(x.r.lost_time),
                                 DBV_DBL(x.r.rpc_gap_avg), DBV_DBL(x.r.rpc_gap_dev),
                                 DBV_INT(x.r.rpc_gap_n) };
        return db_query(c, SLOT_STRETCH_READ, sql, params, 9, cols, 11, stretch_row, &x, NULL,
                        what);
    }
}

int db_stretch_set(struct db_conn *c, int hostid, int batch_id, int first, int last,
                   int frontier)
{
    /* with a new frontier, the member's row and its cursor's in one
     * statement (GREATEST: concurrent schedulers compose) */
    static const char sql_frontier[] =
        "UPDATE batch_host bh JOIN locality_cursor c ON c.id = bh.cursor_id "
        "SET bh.stretch_first = ?, bh.stretch_last = ?, "
        "  c.next_stretch_job_num = GREATEST(c.next_stretch_job_num, ?) "
        "WHERE bh.host_id = ? AND bh.batch_id = ?";
    static const char sql[] =
        "UPDATE batch_host SET stretch_first = ?, stretch_last = ? "
        "WHERE host_id = ? AND batch_id = ?";
    char what[112];

    snprintf(what, sizeof what, "give [host#%d] jobs %d..%d of [batch#%d]%s", hostid, first,
             last, batch_id, frontier > 0 ? " at the frontier" : "");
    if (frontier > 0) {
        struct db_val params[] = { DBV_INT(first), DBV_INT(last), DBV_INT(frontier),
                                   DBV_INT(hostid), DBV_INT(batch_id) };
        return db_exec(c, SLOT_STRETCH_FRONTIER, sql_frontier, params, 5, NULL, what);
    }
    {
        struct db_val params[] = { DBV_INT(first), DBV_INT(last), DBV_INT(hostid),
                                   DBV_INT(batch_id) };
        return db_exec(c, SLOT_STRETCH_SET, sql, params, 4, NULL, what);
    }
}

int db_stretch_shrink(struct db_conn *c, int victim_host, int batch_id, int first, int last,
                      int new_last)
{
    static const char sql[] =
        "UPDATE batch_host SET stretch_last = ? "
        "WHERE host_id = ? AND batch_id = ? AND stretch_first = ? AND stretch_last = ?";
    struct db_val params[] = { DBV_INT(new_last), DBV_INT(victim_host), DBV_INT(batch_id),
                               DBV_INT(first), DBV_INT(last) };
    char what[96];
    snprintf(what, sizeof what, "end the stretch of [host#%d] in [batch#%d] at job %d",
             victim_host, batch_id, new_last);
    return db_exec(c, SLOT_STRETCH_SHRINK, sql, params, 5, NULL, what);
}
