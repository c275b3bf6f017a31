/*
 * db_assim.c - statements of the assimilator, the file deleter and
 * db_purge (db_assim.h).
 */
#include "db_assim.h"

#include <stdio.h>
#include <string.h>

#include "db_internal.h"
#include "db_slots.h"

_Static_assert(SLOT_ASSIM_END <= SLOT_ACCOUNT_FIRST, "assimilator slots fit 192..207");

int db_as_list(struct db_conn *c, int ready, int mod_n, int mod_i, int after, int limit,
               int *ids, int *n)
{
    /* ind_wu_assimilate (assimilate_state, id) gives the order */
    static const char sql[] =
        "SELECT id FROM workunit WHERE assimilate_state = ? AND id > ? AND MOD(id, ?) = ? "
        "AND (canonical_resultid <> 0 OR error_mask <> 0) ORDER BY id LIMIT ?";
    int state = ready ? AS_READY : AS_INIT;
    struct db_val p[] = { DBV_INT(state), DBV_INT(after), DBV_INT(mod_n), DBV_INT(mod_i),
                          DBV_INT(limit) };
    return db_query_ids(c, SLOT_AS_LIST, sql, p, 5, limit, ids, n,
                        ready ? "list workunits ready to assimilate"
                              : "list finished workunits not marked ready to assimilate");
}

int db_as_promote(struct db_conn *c, int wuid, long long *changed)
{
    static const char sql[] =
        "UPDATE workunit SET assimilate_state = 1 WHERE id = ? AND assimilate_state = 0 "
        "AND (canonical_resultid <> 0 OR error_mask <> 0)";
    struct db_val p[] = { DBV_INT(wuid) };
    char what[64];
    snprintf(what, sizeof what, "mark [wu#%d] ready to assimilate", wuid);
    return db_exec(c, SLOT_AS_PROMOTE, sql, p, 1, changed, what);
}

int db_as_wu_read(struct db_conn *c, int wuid, struct db_as_wu *wu)
{
    static const char sql[] =
        "SELECT w.id, w.name, w.batch, COALESCE(b.name, ''), w.canonical_resultid, "
        "w.error_mask, w.max_out_nbytes, w.assimilate_state, COALESCE(r.name, '') "
        "FROM workunit w LEFT JOIN batch b ON b.id = w.batch "
        "LEFT JOIN result r ON r.id = w.canonical_resultid WHERE w.id = ?";
    struct db_val p[] = { DBV_INT(wuid) };
    struct db_val cols[] = { DBV_INT(wu->id), DBV_BUF(wu->name), DBV_INT(wu->batch_id),
                             DBV_BUF(wu->batch_name), DBV_INT(wu->canonical_resultid),
                             DBV_INT(wu->error_mask), DBV_DBL(wu->max_out_nbytes),
                             DBV_INT(wu->assimilate_state), DBV_BUF(wu->result_name) };
    char what[64];
    long nrows = 0;
    int r;
    memset(wu, 0, sizeof *wu);
    snprintf(what, sizeof what, "read [wu#%d] to assimilate it", wuid);
    r = db_query(c, SLOT_AS_WU_READ, sql, p, 1, cols, 9, NULL, NULL, &nrows, what);
    if (r == DB_OK && nrows == 0)
        return DB_NOTFOUND;
    return r;
}

int db_as_wu_done(struct db_conn *c, int wuid, int now, int fd_state, long long *changed)
{
    static const char sql_wu[] =
        "UPDATE workunit SET assimilate_state = 2, assimilate_time = ?, file_delete_state = ? "
        "WHERE id = ? AND assimilate_state = 1";
    static const char sql_res[] =
        "UPDATE result SET file_delete_state = 1 WHERE workunitid = ? AND server_state = 5 "
        "AND file_delete_state = 0";
    struct db_val p1[] = { DBV_INT(now), DBV_INT(fd_state), DBV_INT(wuid) };
    struct db_val p2[] = { DBV_INT(wuid) };
    char what[64];
    int r;
    snprintf(what, sizeof what, "mark [wu#%d] assimilated", wuid);
    r = db_exec(c, SLOT_AS_WU_DONE, sql_wu, p1, 3, changed, what);
    if (r != DB_OK || *changed == 0 || fd_state != FD_READY)
        return r;
    snprintf(what, sizeof what, "mark the results of [wu#%d] ready for file deletion", wuid);
    return db_exec(c, SLOT_AS_RESULTS_READY, sql_res, p2, 1, NULL, what);
}

/* ---- file deleter ---- */

int db_fd_wus(struct db_conn *c, int mod_n, int mod_i, int after, int limit, int *ids, int *n)
{
    static const char sql[] =
        "SELECT id FROM workunit WHERE file_delete_state = 1 AND id > ? AND MOD(id, ?) = ? "
        "ORDER BY id LIMIT ?";
    struct db_val p[] = { DBV_INT(after), DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    return db_query_ids(c, SLOT_FD_WUS, sql, p, 4, limit, ids, n,
                        "list workunits ready for file deletion");
}

struct fd_res_ctx {
    struct db_fd_result r;
    int (*row)(void *ctx, const struct db_fd_result *r);
    void *ctx;
};

static int fd_res_row(void *vctx)
{
    struct fd_res_ctx *x = vctx;
    return x->row(x->ctx, &x->r);
}

int db_fd_results(struct db_conn *c, int wuid,
                  int (*row)(void *ctx, const struct db_fd_result *r), void *ctx)
{
    static const char sql[] =
        "SELECT id, name, server_state, outcome, file_delete_state FROM result "
        "WHERE workunitid = ? ORDER BY id";
    struct fd_res_ctx x;
    struct db_val p[] = { DBV_INT(wuid) };
    struct db_val cols[] = { DBV_INT(x.r.id), DBV_BUF(x.r.name), DBV_INT(x.r.server_state),
                             DBV_INT(x.r.outcome), DBV_INT(x.r.file_delete_state) };
    char what[64];
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    snprintf(what, sizeof what, "read the results of [wu#%d]", wuid);
    return db_query(c, SLOT_FD_RESULTS, sql, p, 1, cols, 5, fd_res_row, &x, NULL, what);
}

int db_fd_result_set(struct db_conn *c, int resultid, int state)
{
    static const char sql[] =
        "UPDATE result SET file_delete_state = ? WHERE id = ? AND server_state = 5";
    struct db_val p[] = { DBV_INT(state), DBV_INT(resultid) };
    char what[64];
    snprintf(what, sizeof what, "mark the files of [result#%d] deleted", resultid);
    return db_exec(c, SLOT_FD_RESULT_SET, sql, p, 2, NULL, what);
}

int db_fd_wu_done(struct db_conn *c, int wuid, long long *changed)
{
    static const char sql[] =
        "UPDATE workunit SET file_delete_state = 2 WHERE id = ? AND file_delete_state = 1 "
        "AND NOT EXISTS (SELECT 1 FROM result r WHERE r.workunitid = ? "
        "AND r.file_delete_state NOT IN (2, 3))";
    struct db_val p[] = { DBV_INT(wuid), DBV_INT(wuid) };
    char what[64];
    snprintf(what, sizeof what, "mark the files of [wu#%d] deleted", wuid);
    return db_exec(c, SLOT_FD_WU_DONE, sql, p, 2, changed, what);
}

struct fd_batch_ctx {
    struct db_fd_batch cur, *out;
    int limit, *n;
};

static int fd_batch_row(void *vctx)
{
    struct fd_batch_ctx *x = vctx;
    if (*x->n >= x->limit)
        return 1;
    x->out[(*x->n)++] = x->cur;
    return 0;
}

int db_fd_batches(struct db_conn *c, int mod_n, int mod_i, int limit, struct db_fd_batch *out,
                  int *n)
{
    static const char sql[] =
        "SELECT b.id, b.name FROM batch b WHERE b.state = 4 AND b.file_delete_state = 0 "
        "AND MOD(b.id, ?) = ? "
        "AND NOT EXISTS (SELECT 1 FROM workunit w WHERE w.batch = b.id "
        "  AND w.canonical_resultid = 0 AND w.error_mask = 0) "
        "AND NOT EXISTS (SELECT 1 FROM result r WHERE r.batch = b.id "
        "  AND r.server_state IN (1, 2, 4)) "
        "ORDER BY b.id LIMIT ?";
    struct fd_batch_ctx x;
    struct db_val p[] = { DBV_INT(mod_n), DBV_INT(mod_i), DBV_INT(limit) };
    struct db_val cols[] = { DBV_INT(x.cur.id), DBV_BUF(x.cur.name) };
    memset(&x, 0, sizeof x);
    x.out = out;
    x.limit = limit;
    x.n = n;
    *n = 0;
    return db_query(c, SLOT_FD_BATCHES, sql, p, 3, cols, 2, fd_batch_row, &x, NULL,
                    "list retired batches whose input files may be deleted");
}

struct fd_file_ctx {
    int id;
    char name[256], url[1024];
    int (*row)(void *ctx, int id, const char *name, const char *url);
    void *ctx;
};

static int fd_file_row(void *vctx)
{
    struct fd_file_ctx *x = vctx;
    return x->row(x->ctx, x->id, x->name, x->url);
}

int db_fd_files(struct db_conn *c, int batch_id, int after, int limit,
                int (*row)(void *ctx, int id, const char *name, const char *url), void *ctx)
{
    static const char sql[] =
        "SELECT id, name, url FROM file WHERE batch_id = ? AND id > ? ORDER BY id LIMIT ?";
    struct fd_file_ctx x;
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(after), DBV_INT(limit) };
    struct db_val cols[] = { DBV_INT(x.id), DBV_BUF(x.name), DBV_BUF(x.url) };
    char what[64];
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    snprintf(what, sizeof what, "list the input files of [batch#%d]", batch_id);
    return db_query(c, SLOT_FD_FILES, sql, p, 3, cols, 3, fd_file_row, &x, NULL, what);
}

int db_fd_batch_done(struct db_conn *c, int batch_id)
{
    static const char sql[] =
        "UPDATE batch SET file_delete_state = 2 WHERE id = ? AND file_delete_state = 0";
    struct db_val p[] = { DBV_INT(batch_id) };
    char what[64];
    snprintf(what, sizeof what, "mark the input files of [batch#%d] deleted", batch_id);
    return db_exec(c, SLOT_FD_BATCH_DONE, sql, p, 1, NULL, what);
}

/* ---- purge ---- */

int db_pu_wus(struct db_conn *c, int before, int after, int limit, int *ids, int *n)
{
    static const char sql[] =
        "SELECT id FROM workunit WHERE file_delete_state = 2 AND id > ? "
        "AND assimilate_state = 2 AND assimilate_time < ? ORDER BY id LIMIT ?";
    struct db_val p[] = { DBV_INT(after), DBV_INT(before), DBV_INT(limit) };
    return db_query_ids(c, SLOT_PU_WUS, sql, p, 3, limit, ids, n, "list workunits to purge");
}

int db_pu_rows(struct db_conn *c, int which, int wuid, db_text_row_fn row, void *ctx)
{
    /* whole rows on purpose: the archive keeps every column, including
     * those later upgrades add */
    static const char sql_wu[] = "SELECT * FROM workunit WHERE id = ?";
    static const char sql_res[] = "SELECT * FROM result WHERE workunitid = ? ORDER BY id";
    struct db_val p[] = { DBV_INT(wuid) };
    char what[64];
    snprintf(what, sizeof what, "read the %s of [wu#%d] to archive", which ? "results" : "row",
             wuid);
    if (which)
        return db_query_text(c, SLOT_PU_RESULT_ROWS, sql_res, p, 1, row, ctx, what);
    return db_query_text(c, SLOT_PU_WU_ROW, sql_wu, p, 1, row, ctx, what);
}

int db_pu_delete(struct db_conn *c, int wuid, long long nresults)
{
    static const char sql[] =
        "DELETE w, r FROM workunit w LEFT JOIN result r ON r.workunitid = w.id "
        "WHERE w.id = ? AND w.assimilate_state = 2 AND w.file_delete_state = 2";
    struct db_val p[] = { DBV_INT(wuid) };
    long long n = 0;
    char what[64];
    int r;
    snprintf(what, sizeof what, "delete [wu#%d] and its results", wuid);
    r = db_exec(c, SLOT_PU_DELETE, sql, p, 1, &n, what);
    if (r != DB_OK)
        return r;
    if (n != nresults + 1) {
        char msg[128];
        snprintf(msg, sizeof msg, "%lld rows would go, not the %lld archived: left alone", n,
                 nresults + 1);
        db_fail(c, what, 0, msg);
        return DB_ABORT;
    }
    return DB_OK;
}
