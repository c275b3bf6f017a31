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
#include "db_stretch_pass.h"

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
 * my_stretch_last, and has_unsent when with_unsent (else it is -1). */
static int cursor_query(struct db_conn *c, int slot, const char *sql, struct db_val *params,
                        int nparams, int with_unsent,
                        int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx,
                        const char *what)
{
    struct cursor_ctx x;
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    x.r.has_unsent = -1;
    {
        struct db_val cols[] = { CURSOR_ROW_BINDINGS(x.r), DBV_INT(x.r.has_unsent) };
        return db_query(c, slot, sql, params, nparams, cols, with_unsent ? 21 : 20, cursor_row,
                        &x, NULL, what);
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
        "  IF(bh.cursor_id = c.id, bh.stretch_last, -1), "
        "  EXISTS (SELECT 1 FROM result u WHERE u.unsent_cursor = c.id) "
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
    return cursor_query(c, SLOT_LOC_CURSORS, sql, params, 4, 1, row, ctx, what);
}

int db_locality_all_cursors(struct db_conn *c,
                            int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx)
{
    /* has_unsent: one probe of ind_res_unsent per cursor */
    static const char sql[] =
        "SELECT " CURSOR_COLUMNS "0, 0, 0, 0, -1, -1, "
        "  EXISTS (SELECT 1 FROM result u WHERE u.unsent_cursor = c.id) "
        "FROM batch b JOIN locality_cursor c ON c.batch_id = b.id "
        "LEFT JOIN batch_job bj ON bj.batch_id = c.batch_id "
        "  AND bj.job_num = c.first_unfinished_job_num "
        "WHERE b.state = 1 AND b.locality <> 0 "
        "ORDER BY b.id, c.first_job_num";
    return cursor_query(c, SLOT_LOC_ALL_CURSORS, sql, NULL, 0, 1, row, ctx,
                        "read the cursors of the active locality batches");
}

int db_locality_my_cursors(struct db_conn *c, int hostid,
                           int (*row)(void *ctx, const struct db_cursor_row *r), void *ctx)
{
    static const char sql[] = "SELECT " MY_TEAMS_COLUMNS MY_TEAMS_FROM;
    struct db_val params[] = { DBV_INT(hostid) };
    char what[64];
    snprintf(what, sizeof what, "read the teams of [host#%d]", hostid);
    return cursor_query(c, SLOT_LOC_MY_CURSORS, sql, params, 1, 0, row, ctx, what);
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
                     double old_rate, int new_frontier, int max_nhosts, int expect_frontier,
                     int *lost)
{
    static const char sql[] =
        "UPDATE locality_cursor SET "
        "  expavg_credit = GREATEST(0, expavg_credit + IF(id = ?, ?, -?)), "
        "  nhosts = GREATEST(0, nhosts + IF(id = ?, 1, -1)), "
        "  max_host_credit = IF(id = ?, GREATEST(max_host_credit, ?), max_host_credit), "
        "  next_stretch_job_num = IF(id = ?, GREATEST(next_stretch_job_num, ?), "
        "                            next_stretch_job_num) "
        "WHERE id IN (?, ?) "
        "  AND (id <> ? OR (nhosts < ? AND (? < 0 OR next_stretch_job_num = ?)))";
    struct db_val params[] = { DBV_INT(new_cursor),     DBV_DBL(rate),
                               DBV_DBL(old_rate),       DBV_INT(new_cursor),
                               DBV_INT(new_cursor),     DBV_DBL(rate),
                               DBV_INT(new_cursor),     DBV_INT(new_frontier),
                               DBV_INT(new_cursor),     DBV_INT(old_cursor),
                               DBV_INT(new_cursor),     DBV_INT(max_nhosts),
                               DBV_INT(expect_frontier), DBV_INT(expect_frontier) };
    /* the undo of a move's decrement: old_cursor gets its member back */
    static const char undo_sql[] =
        "UPDATE locality_cursor SET expavg_credit = expavg_credit + ?, nhosts = nhosts + 1 "
        "WHERE id = ?";
    struct db_val undo[] = { DBV_DBL(old_rate), DBV_INT(old_cursor) };
    long long matched = 0;
    int expected = old_cursor > 0 && old_cursor != new_cursor ? 2 : 1, r;
    char what[80];

    *lost = 0;
    snprintf(what, sizeof what, "move a host from [cursor#%d] to [cursor#%d]", old_cursor,
             new_cursor);
    r = db_exec(c, SLOT_CURSOR_ADJUST, sql, params, 14, &matched, what);
    if (r != DB_OK || matched == expected)
        return r;
    *lost = 1;
    if (matched == 1 && expected == 2)
        r = db_exec(c, SLOT_CURSOR_ADJUST_UNDO, undo_sql, undo, 2, NULL, what);
    return r;
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

/* Most rows of the stretch read's pass over a cursor's unsent results
 * (each unsent result with every result of its workunit: R x R rows for
 * a job none of whose R replicas was sent, fewer once some were).  The
 * cost of the read is bounded by this; beyond it, db_stretch_pass.h says
 * what the read assumes. */
#define STRETCH_PASS_ROWS 2000

struct stretch_ctx {
    int kind;                      /* the row: 0 the cursor, 1 a member, 2 the pass */
    int a, b, d, e, f, g, h;       /* the columns, by kind (see db_stretch_read) */
    double rate, gap_avg, gap_dev;
    struct db_stretch_row *mem;    /* the members, as read */
    int nmem, capmem;
    struct sp_row *rows;           /* the pass */
    int nrows, caprows;
    int frontier, replication;
    int oom;
};

/* p (of *cap elements of size bytes) grown to twice as many; NULL when
 * out of memory (p is then untouched).  Not sched/common's array_grow():
 * db includes and links nothing of sched/ (doc/hacking.md). */
static void *grow(void *p, int *cap, size_t size)
{
    int n = *cap > 0 ? 2 * *cap : 64;
    void *q = realloc(p, size * (size_t)n);
    if (q)
        *cap = n;
    return q;
}

static int stretch_row(void *vctx)
{
    struct stretch_ctx *x = vctx;
    if (x->kind == 0) {
        x->frontier = x->a;
        x->replication = x->b;
    } else if (x->kind == 1) {
        struct db_stretch_row *r;
        if (x->nmem == x->capmem) {
            if (!(r = grow(x->mem, &x->capmem, sizeof *r))) {
                x->oom = 1;
                return DB_ERR;
            }
            x->mem = r;
        }
        r = &x->mem[x->nmem++];
        r->host_id = x->a;
        r->same_user = x->b;
        r->credit_rate = x->rate;
        r->first = x->d;
        r->last = x->e;
        r->unsent = 0;
        r->rpc_time = x->f;
        r->lost_time = x->g;
        r->rpc_gap_avg = x->gap_avg;
        r->rpc_gap_dev = x->gap_dev;
        r->rpc_gap_n = x->h;
    } else {
        struct sp_row *r;
        if (x->nrows == x->caprows) {
            if (!(r = grow(x->rows, &x->caprows, sizeof *r))) {
                x->oom = 1;
                return DB_ERR;
            }
            x->rows = r;
        }
        r = &x->rows[x->nrows++];
        r->job_num = x->a;
        r->result_id = x->b;
        r->other_unsent = x->e;
        r->other_host = x->f;
        r->other_user = x->h;
    }
    return 0;
}

int db_stretch_read(struct db_conn *c, int cursor_id, int hostid, int userid, int near_job,
                    int (*row)(void *ctx, const struct db_stretch_row *r),
                    void *ctx, int *first_open, int *frontier)
{
    /* One statement, three kinds of rows (first column):
     *   0  the cursor: frontier, R;
     *   1  each other member, with or without a stretch: host, same user,
     *      rate, stretch, its host's rhythm (ind_bh_cursor_user);
     *   2  the pass: each unsent result r of the cursor below the
     *      frontier, in job order (ind_res_unsent), with every
     *      result o of its workunit (uk_result_wu_user): r's job and id,
     *      whether o is unsent, o's host, whether o is the user's.
     * The counts are the data layer's C (db_stretch_pass.c), not
     * correlated subqueries: those read the team once per unsent job. */
    static const char sql[] =
        /* the cursor's row locked until the commit: the members of one
         * team decide their stretches in turn, each reading the frontier
         * the one before wrote (READ COMMITTED); two that read it at the
         * same moment took the same frontier stretch.  SKIP LOCKED: a
         * member that finds another deciding gets no cursor row (busy)
         * rather than waiting, since it may hold claimed rows that the
         * other one's claim waits for (MariaDB's SKIP LOCKED still waits
         * on a secondary index record: a deadlock).  The batch is read
         * by a subquery, which locks nothing. */
        "(SELECT 0, c.next_stretch_job_num, "
        "  IFNULL((SELECT b.target_nresults FROM batch b WHERE b.id = c.batch_id), 1), "
        "  0, 0, 0, 0, 0, 0, 0, 0 "
        " FROM locality_cursor c WHERE c.id = ? FOR UPDATE SKIP LOCKED) "
        "UNION ALL "
        "SELECT 1, bh.host_id, bh.userid = ?, bh.credit_rate, bh.stretch_first, "
        "  bh.stretch_last, IFNULL(h.rpc_time, 0), IFNULL(h.lost_time, 0), "
        "  IFNULL(h.rpc_gap_avg, 0), IFNULL(h.rpc_gap_dev, 0), IFNULL(h.rpc_gap_n, 0) "
        "FROM batch_host bh LEFT JOIN host h ON h.id = bh.host_id "
        "WHERE bh.cursor_id = ? AND bh.host_id <> ? "
        "UNION ALL "
        "(SELECT 2, r.job_num, r.id, 0, 0, o.server_state = 2, o.hostid, 0, 0, 0, "
        "   o.userid <=> ? "
        " FROM locality_cursor c "
        " JOIN result r FORCE INDEX (ind_res_unsent) ON r.unsent_cursor = c.id "
        "   AND r.job_num < c.next_stretch_job_num "
        " JOIN result o ON o.workunitid = r.workunitid "
        " WHERE c.id = ? ORDER BY r.job_num LIMIT ?)";
    struct stretch_ctx x;
    int cap = STRETCH_PASS_ROWS, r, i;
    struct db_val params[] = { DBV_INT(cursor_id), DBV_INT(userid), DBV_INT(cursor_id),
                               DBV_INT(hostid), DBV_INT(userid), DBV_INT(cursor_id),
                               DBV_INT(cap) };
    char what[80];

    memset(&x, 0, sizeof x);
    x.frontier = -1;
    *first_open = -1;
    *frontier = -1;
    snprintf(what, sizeof what, "read the stretches of [cursor#%d] for [host#%d]", cursor_id,
             hostid);
    {
        struct db_val cols[] = { DBV_INT(x.kind), DBV_INT(x.a), DBV_INT(x.b), DBV_DBL(x.rate),
                                 DBV_INT(x.d), DBV_INT(x.e), DBV_INT(x.f), DBV_INT(x.g),
                                 DBV_DBL(x.gap_avg), DBV_DBL(x.gap_dev), DBV_INT(x.h) };
        r = db_query(c, SLOT_STRETCH_READ, sql, params, 7, cols, 11, stretch_row, &x, NULL,
                     what);
    }
    if (x.oom)
        r = db_fail(c, what, 0, "out of memory");
    if (r == DB_OK) {
        struct sp_member *m = calloc((size_t)(x.nmem > 0 ? x.nmem : 1), sizeof *m);
        if (!m) {
            r = db_fail(c, what, 0, "out of memory");
        } else {
            struct sp_cursor sc = { x.frontier, x.replication, near_job,
                                    x.nrows >= cap };
            for (i = 0; i < x.nmem; i++) {
                m[i].host_id = x.mem[i].host_id;
                m[i].same_user = x.mem[i].same_user;
                m[i].first = x.mem[i].first;
                m[i].last = x.mem[i].last;
            }
            if (x.frontier >= 0) {
                *frontier = x.frontier;
                *first_open = stretch_pass(x.rows, x.nrows, &sc, m, x.nmem);
            }
            for (i = 0; i < x.nmem; i++)
                x.mem[i].unsent = m[i].unsent;
            free(m);
        }
    }
    /* the members with a stretch, as the row callback always had them */
    for (i = 0; r == DB_OK && i < x.nmem; i++) {
        int k;
        if (x.mem[i].first < 0)
            continue;
        k = row(ctx, &x.mem[i]);
        if (k < 0)
            r = k;
        if (k != 0)
            break;
    }
    free(x.mem);
    free(x.rows);
    return r;
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
