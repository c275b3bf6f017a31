/*
 * replay_db.c - the server's status counters for the load replay (see
 * replay_db.h).  The replay's connection is its own, so the statement
 * slot below cannot collide with the scheduler's; it is taken from the
 * end of the slot range, clear of the daemons' statements.
 */
#include "replay_db.h"

#include <stdlib.h>
#include <string.h>

#define RDB_SLOT 157

static const char *const names[RDB_NCOUNTERS] = {
    "COM_STMT_EXECUTE", "COM_COMMIT", "COM_ROLLBACK",
    "COM_SELECT", "COM_INSERT", "COM_INSERT_SELECT", "COM_UPDATE", "COM_UPDATE_MULTI",
    "COM_DELETE", "COM_DELETE_MULTI", "COM_STMT_PREPARE", "QUESTIONS",
    "HANDLER_READ_KEY", "HANDLER_READ_NEXT", "HANDLER_READ_RND_NEXT",
    "HANDLER_UPDATE", "HANDLER_WRITE", "HANDLER_DELETE", "INNODB_ROW_LOCK_WAITS",
    "INNODB_DEADLOCKS", "INNODB_BUFFER_POOL_PAGES_FLUSHED", "INNODB_DATA_WRITTEN",
    "INNODB_OS_LOG_WRITTEN",
};

const char *rdb_name(enum rdb_counter c)
{
    return c >= 0 && c < RDB_NCOUNTERS ? names[c] : "?";
}

struct row_ctx {
    char name[128];
    char value[64];
    struct rdb_snap *out;
};

static int on_row(void *vctx)
{
    struct row_ctx *x = vctx;
    int i;
    for (i = 0; i < RDB_NCOUNTERS; i++)
        if (strcasecmp(x->name, names[i]) == 0)
            x->out->v[i] = strtod(x->value, NULL);
    return 0;
}

int rdb_read(struct db_conn *c, struct rdb_snap *out)
{
    static const char sql[] =
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
        "WHERE VARIABLE_NAME IN ('COM_STMT_EXECUTE', 'COM_COMMIT', 'COM_ROLLBACK', "
        "'COM_SELECT', 'COM_INSERT', 'COM_INSERT_SELECT', 'COM_UPDATE', 'COM_UPDATE_MULTI', "
        "'COM_DELETE', 'COM_DELETE_MULTI', 'COM_STMT_PREPARE', 'QUESTIONS', "
        "'HANDLER_READ_KEY', 'HANDLER_READ_NEXT', 'HANDLER_READ_RND_NEXT', "
        "'HANDLER_UPDATE', 'HANDLER_WRITE', 'HANDLER_DELETE', 'INNODB_ROW_LOCK_WAITS', "
        "'INNODB_DEADLOCKS', 'INNODB_BUFFER_POOL_PAGES_FLUSHED', 'INNODB_DATA_WRITTEN', "
        "'INNODB_OS_LOG_WRITTEN')";
    struct row_ctx x;
    int r;

    memset(&x, 0, sizeof x);
    memset(out, 0, sizeof *out);
    x.out = out;
    {
        struct db_val cols[] = { DBV_BUF(x.name), DBV_BUF(x.value) };
        r = db_query(c, RDB_SLOT, sql, NULL, 0, cols, 2, on_row, &x, NULL,
                     "read the server's status counters");
    }
    /* end the read-only transaction (autocommit is off) */
    if (r == DB_OK)
        r = db_rollback(c);
    return r;
}

int rdb_calibrate(struct db_conn *c, struct rdb_snap *out, struct rdb_snap *self)
{
    struct rdb_snap a;
    int r = rdb_read(c, &a), i;
    if (r == DB_OK)
        r = rdb_read(c, out);
    if (r != DB_OK)
        return r;
    for (i = 0; i < RDB_NCOUNTERS; i++)
        self->v[i] = out->v[i] - a.v[i];
    return DB_OK;
}

void rdb_delta(const struct rdb_snap *a, const struct rdb_snap *b, const struct rdb_snap *self,
               struct rdb_snap *d)
{
    int i;
    for (i = 0; i < RDB_NCOUNTERS; i++) {
        d->v[i] = b->v[i] - a->v[i] - (self ? self->v[i] : 0);
        if (d->v[i] < 0)
            d->v[i] = 0;
    }
}

double rdb_statements(const struct rdb_snap *d)
{
    return d->v[RDB_STMT_EXECUTE] + d->v[RDB_COMMIT] + d->v[RDB_ROLLBACK];
}
