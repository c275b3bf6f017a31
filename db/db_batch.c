/*
 * db_batch.c - the statements of the batch tools (db_batch.h).  Counts
 * are aggregated by the database: the tools read one row per cursor, not
 * one per job, except for the per-job states the picture needs, which
 * come from one ordered query.
 */
#include "db_batch.h"

#include <stdio.h>
#include <string.h>

#include "db_slots.h"

/*
 * One row per workunit of the batch: job_num, cursor_id and its state
 * (0 done, 1 in progress, 2 unsent; see db_batch.h).  Every selected
 * column is grouped, so the statement also runs under ONLY_FULL_GROUP_BY.
 * The join uses ind_wu_batch_job and the (workunitid, userid) key.
 */
#define WU_STATES                                                                   \
    "SELECT w.job_num AS job_num, w.cursor_id AS cursor_id, "                       \
    "CASE WHEN w.canonical_resultid <> 0 OR w.error_mask <> 0 THEN 0 "              \
    "WHEN COALESCE(SUM(r.server_state = 4), 0) > 0 THEN 1 "                         \
    "WHEN COALESCE(SUM(r.server_state IN (1, 2)), 0) > 0 OR COUNT(r.id) = 0 THEN 2 " \
    "ELSE 1 END AS st "                                                             \
    "FROM workunit w LEFT JOIN result r ON r.workunitid = w.id "                    \
    "WHERE w.batch = ? "                                                            \
    "GROUP BY w.id, w.job_num, w.cursor_id, w.canonical_resultid, w.error_mask"

#define BATCH_COLS "SELECT id, name, state, locality, njobs, nfiles FROM batch "

struct batch_cols {
    struct db_batch_row r;
    struct db_val col[6];
};

static void batch_cols_init(struct batch_cols *b)
{
    struct db_val col[] = { DBV_INT(b->r.id), DBV_BUF(b->r.name), DBV_INT(b->r.state),
                            DBV_INT(b->r.locality), DBV_INT(b->r.njobs), DBV_INT(b->r.nfiles) };
    memset(&b->r, 0, sizeof b->r);
    memcpy(b->col, col, sizeof col);
}

int db_batch_lookup(struct db_conn *c, const char *name, int id, int lock,
                    struct db_batch_row *b)
{
    static const char sql[] = BATCH_COLS "WHERE name = ? OR id = ? "
                                         "ORDER BY name = ? DESC LIMIT 1";
    static const char sql_lock[] = BATCH_COLS "WHERE name = ? OR id = ? "
                                              "ORDER BY name = ? DESC LIMIT 1 FOR UPDATE";
    struct batch_cols bc;
    int want_id = id > 0 ? id : -1;
    struct db_val p[] = { DBV_STR(name), DBV_INT(want_id), DBV_STR(name) };
    char what[320];
    long n = 0;
    int r;

    batch_cols_init(&bc);
    snprintf(what, sizeof what, "look up batch '%.200s'%s", name, lock ? " for update" : "");
    r = db_query(c, lock ? SLOT_BATCH_LOOKUP_LOCK : SLOT_BATCH_LOOKUP, lock ? sql_lock : sql, p,
                 3, bc.col, 6, NULL, NULL, &n, what);
    if (r != DB_OK)
        return r;
    if (n == 0)
        return DB_NOTFOUND;
    *b = bc.r;
    return DB_OK;
}

struct list_ctx {
    struct batch_cols bc;
    int (*row)(void *ctx, const struct db_batch_row *b);
    void *ctx;
};

static int list_row(void *arg)
{
    struct list_ctx *l = arg;
    return l->row(l->ctx, &l->bc.r);
}

int db_batch_list(struct db_conn *c, int include_retired,
                  int (*row)(void *ctx, const struct db_batch_row *b), void *ctx)
{
    static const char sql[] = BATCH_COLS "WHERE state <> ? OR ? = 1 ORDER BY id";
    int retired = BS_RETIRED;
    struct db_val p[] = { DBV_INT(retired), DBV_INT(include_retired) };
    struct list_ctx l;

    batch_cols_init(&l.bc);
    l.row = row;
    l.ctx = ctx;
    return db_query(c, SLOT_BATCH_LIST, sql, p, 2, l.bc.col, 6, list_row, &l, NULL,
                    "list batches");
}

struct cursor_ctx {
    struct db_batch_cursor_row r;
    int (*row)(void *ctx, const struct db_batch_cursor_row *r);
    void *ctx;
};

static int cursor_row(void *arg)
{
    struct cursor_ctx *k = arg;
    return k->row(k->ctx, &k->r);
}

int db_batch_cursors(struct db_conn *c, int batch_id,
                     int (*row)(void *ctx, const struct db_batch_cursor_row *r), void *ctx)
{
    static const char sql[] =
        "SELECT id, first_job_num, last_job_num, first_unfinished_job_num, "
        "first_ungenerated_job_num, nhosts, expavg_credit, max_host_credit, remaining_credit "
        "FROM locality_cursor WHERE batch_id = ? ORDER BY first_job_num, id";
    struct cursor_ctx k;
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val col[] = { DBV_INT(k.r.id), DBV_INT(k.r.first_job_num),
                            DBV_INT(k.r.last_job_num), DBV_INT(k.r.first_unfinished_job_num),
                            DBV_INT(k.r.first_ungenerated_job_num), DBV_INT(k.r.nhosts),
                            DBV_DBL(k.r.expavg_credit), DBV_DBL(k.r.max_host_credit),
                            DBV_DBL(k.r.remaining_credit) };
    char what[64];

    memset(&k.r, 0, sizeof k.r);
    k.row = row;
    k.ctx = ctx;
    snprintf(what, sizeof what, "read cursors of [batch#%d]", batch_id);
    return db_query(c, SLOT_BATCH_CURSORS, sql, p, 1, col, 9, cursor_row, &k, NULL, what);
}

struct counts_ctx {
    struct db_job_counts r;
    int (*row)(void *ctx, const struct db_job_counts *r);
    void *ctx;
};

static int counts_row(void *arg)
{
    struct counts_ctx *k = arg;
    return k->row(k->ctx, &k->r);
}

int db_batch_job_counts(struct db_conn *c, int batch_id,
                        int (*row)(void *ctx, const struct db_job_counts *r), void *ctx)
{
    static const char sql[] =
        "SELECT x.cursor_id, COUNT(*), CAST(SUM(x.st = 0) AS SIGNED), "
        "CAST(SUM(x.st = 1) AS SIGNED) FROM (" WU_STATES ") x "
        "GROUP BY x.cursor_id ORDER BY x.cursor_id";
    struct counts_ctx k;
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val col[] = { DBV_INT(k.r.cursor_id), DBV_LL(k.r.generated), DBV_LL(k.r.done),
                            DBV_LL(k.r.in_progress) };
    char what[64];

    memset(&k.r, 0, sizeof k.r);
    k.row = row;
    k.ctx = ctx;
    snprintf(what, sizeof what, "count jobs of [batch#%d]", batch_id);
    return db_query(c, SLOT_BATCH_JOB_COUNTS, sql, p, 1, col, 4, counts_row, &k, NULL, what);
}

struct states_ctx {
    int job_num, cursor_id, state;
    int (*row)(void *ctx, int job_num, int state);
    void *ctx;
};

static int states_row(void *arg)
{
    struct states_ctx *k = arg;
    return k->row(k->ctx, k->job_num, k->state);
}

int db_batch_job_states(struct db_conn *c, int batch_id,
                        int (*row)(void *ctx, int job_num, int state), void *ctx)
{
    static const char sql[] = WU_STATES " ORDER BY w.job_num";
    struct states_ctx k = { 0, 0, 0, row, ctx };
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val col[] = { DBV_INT(k.job_num), DBV_INT(k.cursor_id), DBV_INT(k.state) };
    char what[64];

    snprintf(what, sizeof what, "read job states of [batch#%d]", batch_id);
    return db_query(c, SLOT_BATCH_JOB_STATES, sql, p, 1, col, 3, states_row, &k, NULL, what);
}

int db_batch_abort_jobs(struct db_conn *c, int batch_id, int now, struct db_abort_counts *n)
{
    /* 1, 2: INACTIVE, UNSENT; 5, 5: OVER, DIDNT_NEED; 16: DB_WU_ERROR_CANCELLED;
     * 4: IN_PROGRESS (db_sched.h) */
    static const char sql_res[] =
        "UPDATE result r JOIN workunit w ON w.id = r.workunitid "
        "SET r.server_state = 5, r.outcome = 5 "
        "WHERE w.batch = ? AND r.server_state IN (1, 2)";
    static const char sql_wu[] =
        "UPDATE workunit SET error_mask = error_mask | 16, transition_time = ?, assimilate_state = 1 "
        "WHERE batch = ? AND canonical_resultid = 0 AND error_mask = 0";
    static const char sql_inprog[] =
        "SELECT COUNT(*) FROM result r JOIN workunit w ON w.id = r.workunitid "
        "WHERE w.batch = ? AND r.server_state = 4";
    struct db_val p1[] = { DBV_INT(batch_id) };
    struct db_val p2[] = { DBV_INT(now), DBV_INT(batch_id) };
    struct db_val p3[] = { DBV_INT(batch_id) };
    struct db_val col[] = { DBV_LL(n->results_in_progress) };
    char what[96];
    int r;

    memset(n, 0, sizeof *n);
    snprintf(what, sizeof what, "cancel unsent results of [batch#%d]", batch_id);
    r = db_exec(c, SLOT_BATCH_ABORT_RESULTS, sql_res, p1, 1, &n->results_cancelled, what);
    if (r != DB_OK)
        return r;
    snprintf(what, sizeof what, "cancel unfinished workunits of [batch#%d]", batch_id);
    r = db_exec(c, SLOT_BATCH_ABORT_WUS, sql_wu, p2, 2, &n->workunits_cancelled, what);
    if (r != DB_OK)
        return r;
    snprintf(what, sizeof what, "count results in progress of [batch#%d]", batch_id);
    return db_query(c, SLOT_BATCH_ABORT_INPROG, sql_inprog, p3, 1, col, 1, NULL, NULL, NULL,
                    what);
}

int db_batch_retire_teams(struct db_conn *c, int batch_id, struct db_retire_counts *n)
{
    /* batch_host has no index on batch_id alone: reach its rows through
     * the batch's cursors (ind_cursor_batch, ind_bh_cursor_user) */
    static const char sql_members[] =
        "DELETE bh FROM batch_host bh JOIN locality_cursor lc ON lc.id = bh.cursor_id "
        "WHERE lc.batch_id = ? AND bh.batch_id = ?";
    static const char sql_cursors[] =
        "UPDATE locality_cursor SET nhosts = 0, expavg_credit = 0, max_host_credit = 0 "
        "WHERE batch_id = ?";
    struct db_val p1[] = { DBV_INT(batch_id), DBV_INT(batch_id) };
    struct db_val p2[] = { DBV_INT(batch_id) };
    char what[96];
    int r;

    memset(n, 0, sizeof *n);
    snprintf(what, sizeof what, "remove team members of [batch#%d]", batch_id);
    r = db_exec(c, SLOT_BATCH_RETIRE_MEMBERS, sql_members, p1, 2, &n->members_removed, what);
    if (r != DB_OK)
        return r;
    snprintf(what, sizeof what, "reset cursors of [batch#%d]", batch_id);
    return db_exec(c, SLOT_BATCH_RETIRE_CURSORS, sql_cursors, p2, 1, &n->cursors_emptied, what);
}
