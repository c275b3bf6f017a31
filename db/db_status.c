/*
 * db_status.c - statements of the status and batch pages and of the
 * daemons' status rows (db_status.h).
 */
#include "db_status.h"

#include <string.h>

#include "db_internal.h"
#include "db_slots.h"

enum {
    SLOT_ST_DAEMON_WRITE = SLOT_STATUS_FIRST,
    SLOT_ST_DAEMONS,
    SLOT_ST_RESULT_COUNTS,
    SLOT_ST_REPORTED_HOURLY,
    SLOT_ST_BATCH_DONE_HOURLY,
    SLOT_ST_HOSTS_ACTIVE,
    SLOT_ST_DB_BYTES,
    SLOT_ST_TRANSITION_BACKLOG,
    SLOT_ST_BATCH_FILES,
    SLOT_ST_BATCH_VALIDATE,
    SLOT_ST_BATCH_TIMES,
    SLOT_ST_END
};
_Static_assert(SLOT_ST_END <= SLOT_STATUS_FIRST + 16, "status statement slots stay in 224..239");

int db_status_daemon_write(struct db_conn *c, const struct db_daemon_status *s)
{
    static const char sql[] =
        "INSERT INTO daemon_status (name, hostname, mod_n, mod_i, pid, start_time, "
        "last_pass_time, last_items, npasses, sleep_secs, last_error_time, stopped) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE "
        "pid = VALUES(pid), start_time = VALUES(start_time), "
        "last_pass_time = VALUES(last_pass_time), last_items = VALUES(last_items), "
        "npasses = VALUES(npasses), sleep_secs = VALUES(sleep_secs), "
        "last_error_time = VALUES(last_error_time), stopped = VALUES(stopped)";
    struct db_daemon_status v = *s;
    struct db_val p[] = { DBV_STR(v.name), DBV_STR(v.hostname), DBV_INT(v.mod_n),
                          DBV_INT(v.mod_i), DBV_INT(v.pid), DBV_INT(v.start_time),
                          DBV_INT(v.last_pass_time), DBV_LL(v.last_items),
                          DBV_LL(v.npasses), DBV_INT(v.sleep_secs),
                          DBV_INT(v.last_error_time), DBV_INT(v.stopped) };
    v.name[sizeof v.name - 1] = '\0';
    v.hostname[sizeof v.hostname - 1] = '\0';
    return db_exec(c, SLOT_ST_DAEMON_WRITE, sql, p, 12, NULL, "write the daemon's status row");
}

struct daemons_ctx {
    struct db_daemon_status cur;
    int (*row)(void *ctx, const struct db_daemon_status *s);
    void *ctx;
};

static int daemon_row(void *vctx)
{
    struct daemons_ctx *x = vctx;
    return x->row(x->ctx, &x->cur);
}

int db_status_daemons(struct db_conn *c,
                      int (*row)(void *ctx, const struct db_daemon_status *s), void *ctx)
{
    static const char sql[] =
        "SELECT name, hostname, mod_n, mod_i, pid, start_time, last_pass_time, last_items, "
        "npasses, sleep_secs, last_error_time, stopped FROM daemon_status "
        "ORDER BY name, hostname, mod_n, mod_i";
    struct daemons_ctx x;
    struct db_val cols[] = { DBV_BUF(x.cur.name), DBV_BUF(x.cur.hostname),
                             DBV_INT(x.cur.mod_n), DBV_INT(x.cur.mod_i), DBV_INT(x.cur.pid),
                             DBV_INT(x.cur.start_time), DBV_INT(x.cur.last_pass_time),
                             DBV_LL(x.cur.last_items), DBV_LL(x.cur.npasses),
                             DBV_INT(x.cur.sleep_secs), DBV_INT(x.cur.last_error_time),
                             DBV_INT(x.cur.stopped) };
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    return db_query(c, SLOT_ST_DAEMONS, sql, NULL, 0, cols, 12, daemon_row, &x, NULL,
                    "read the daemons' status rows");
}

int db_status_result_counts(struct db_conn *c, long long *unsent, long long *in_progress)
{
    static const char sql[] =
        "SELECT COALESCE(SUM(server_state = 2), 0), COALESCE(SUM(server_state = 4), 0) "
        "FROM result WHERE server_state IN (2, 4)";
    struct db_val cols[] = { DBV_LL(*unsent), DBV_LL(*in_progress) };
    *unsent = *in_progress = 0;
    return db_query(c, SLOT_ST_RESULT_COUNTS, sql, NULL, 0, cols, 2, NULL, NULL, NULL,
                    "count the results unsent and in progress");
}

struct hourly_ctx {
    int hour;
    long long n;
    int (*row)(void *ctx, int hour, long long n);
    void *ctx;
};

static int hourly_row(void *vctx)
{
    struct hourly_ctx *x = vctx;
    return x->row(x->ctx, x->hour, x->n);
}

int db_status_reported_per_hour(struct db_conn *c, int batch_id, int since,
                                int (*row)(void *ctx, int hour, long long n), void *ctx)
{
    static const char sql[] =
        "SELECT received_time - MOD(received_time, 3600) AS h, COUNT(*) FROM result "
        "WHERE batch = ? AND server_state = 5 AND received_time >= ? GROUP BY h ORDER BY h";
    struct hourly_ctx x;
    struct db_val p[] = { DBV_INT(batch_id), DBV_INT(since) };
    struct db_val cols[] = { DBV_INT(x.hour), DBV_LL(x.n) };
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    return db_query(c, SLOT_ST_REPORTED_HOURLY, sql, p, 2, cols, 2, hourly_row, &x, NULL,
                    "count a batch's reported results per hour");
}

int db_status_batch_done_per_hour(struct db_conn *c, int batch_id,
                                  int (*row)(void *ctx, int hour, long long n), void *ctx)
{
    static const char sql[] =
        "SELECT r.received_time - MOD(r.received_time, 3600) AS h, COUNT(*) "
        "FROM workunit w JOIN result r ON r.id = w.canonical_resultid "
        "WHERE w.batch = ? AND w.canonical_resultid <> 0 GROUP BY h ORDER BY h";
    struct hourly_ctx x;
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_INT(x.hour), DBV_LL(x.n) };
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    return db_query(c, SLOT_ST_BATCH_DONE_HOURLY, sql, p, 1, cols, 2, hourly_row, &x, NULL,
                    "count a batch's finished jobs per hour");
}

int db_status_hosts_active(struct db_conn *c, int since, long long *n)
{
    static const char sql[] = "SELECT COUNT(*) FROM host WHERE rpc_time >= ?";
    struct db_val p[] = { DBV_INT(since) };
    struct db_val cols[] = { DBV_LL(*n) };
    *n = 0;
    return db_query(c, SLOT_ST_HOSTS_ACTIVE, sql, p, 1, cols, 1, NULL, NULL, NULL,
                    "count the active hosts");
}

int db_status_db_bytes(struct db_conn *c, double *bytes)
{
    static const char sql[] =
        "SELECT CAST(COALESCE(SUM(data_length + index_length), 0) AS DOUBLE) "
        "FROM information_schema.TABLES WHERE table_schema = DATABASE()";
    struct db_val cols[] = { DBV_DBL(*bytes) };
    *bytes = 0;
    return db_query(c, SLOT_ST_DB_BYTES, sql, NULL, 0, cols, 1, NULL, NULL, NULL,
                    "read the database's size");
}

int db_status_transition_backlog(struct db_conn *c, int now, long long *n, int *oldest)
{
    static const char sql[] =
        "SELECT COUNT(*), COALESCE(MIN(transition_time), 0) FROM workunit "
        "WHERE transition_time <= ?";
    struct db_val p[] = { DBV_INT(now) };
    struct db_val cols[] = { DBV_LL(*n), DBV_INT(*oldest) };
    *n = 0;
    *oldest = 0;
    return db_query(c, SLOT_ST_TRANSITION_BACKLOG, sql, p, 1, cols, 2, NULL, NULL, NULL,
                    "read the transitioner's backlog");
}

int db_status_batch_files(struct db_conn *c, int batch_id, long long *copies,
                          long long *files, double *bytes)
{
    static const char sql[] =
        "SELECT COUNT(*), COUNT(DISTINCT hf.file_id), COALESCE(SUM(f.nbytes), 0) "
        "FROM file f JOIN host_file hf ON hf.file_id = f.id WHERE f.batch_id = ?";
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_LL(*copies), DBV_LL(*files), DBV_DBL(*bytes) };
    *copies = *files = 0;
    *bytes = 0;
    return db_query(c, SLOT_ST_BATCH_FILES, sql, p, 1, cols, 3, NULL, NULL, NULL,
                    "count a batch's files on hosts");
}

struct validate_ctx {
    int state;
    long long n;
    int (*row)(void *ctx, int state, long long n);
    void *ctx;
};

static int validate_row(void *vctx)
{
    struct validate_ctx *x = vctx;
    return x->row(x->ctx, x->state, x->n);
}

int db_status_batch_validate(struct db_conn *c, int batch_id,
                             int (*row)(void *ctx, int state, long long n), void *ctx)
{
    static const char sql[] =
        "SELECT validate_state, COUNT(*) FROM result WHERE batch = ? AND server_state = 5 "
        "GROUP BY validate_state ORDER BY validate_state";
    struct validate_ctx x;
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_INT(x.state), DBV_LL(x.n) };
    memset(&x, 0, sizeof x);
    x.row = row;
    x.ctx = ctx;
    return db_query(c, SLOT_ST_BATCH_VALIDATE, sql, p, 1, cols, 2, validate_row, &x, NULL,
                    "count a batch's results by validation state");
}

int db_status_batch_times(struct db_conn *c, int batch_id, int *create_time, int *finish_eta,
                          int *completion_time)
{
    static const char sql[] =
        "SELECT create_time, finish_eta, completion_time FROM batch WHERE id = ?";
    struct db_val p[] = { DBV_INT(batch_id) };
    struct db_val cols[] = { DBV_INT(*create_time), DBV_INT(*finish_eta),
                             DBV_INT(*completion_time) };
    long nrows = 0;
    int r;
    *create_time = *finish_eta = *completion_time = 0;
    r = db_query(c, SLOT_ST_BATCH_TIMES, sql, p, 1, cols, 3, NULL, NULL, &nrows,
                 "read a batch's times");
    if (r == DB_OK && nrows == 0)
        return DB_NOTFOUND;
    return r;
}
