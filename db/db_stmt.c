/*
 * db_stmt.c - prepared statements: a per-connection cache of statements
 * by slot id, parameter binding from struct db_val, and row fetching into
 * caller buffers.  No SQL text is ever built from data: every statement
 * is a constant string with '?' placeholders.
 */
#include "db_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum enum_field_types field_type(enum db_type t)
{
    switch (t) {
    case DBT_INT: return MYSQL_TYPE_LONG;
    case DBT_LL: return MYSQL_TYPE_LONGLONG;
    case DBT_DBL: return MYSQL_TYPE_DOUBLE;
    case DBT_STR: return MYSQL_TYPE_STRING;
    case DBT_BIN: return MYSQL_TYPE_BLOB;
    }
    return MYSQL_TYPE_NULL;
}

/* Return the prepared statement of slot id, preparing it if needed. */
/* FNV-1a of a statement's text. */
static unsigned long sql_hash(const char *sql)
{
    unsigned long h = 2166136261UL;
    for (; *sql; sql++)
        h = (h ^ (unsigned char)*sql) * 16777619UL;
    return h;
}

static MYSQL_STMT *get_stmt(struct db_conn *c, int id, const char *sql, const char *what, int *status)
{
    MYSQL_STMT *st;

    if (id < 0 || id >= DB_MAX_STMTS) {
        *status = db_fail(c, what, 0, "statement slot out of range");
        return NULL;
    }
    if (!c->mysql) {
        *status = DB_RETRY;
        db_fail(c, what, 2006, "not connected");
        return NULL;
    }
    if (c->stmts[id]) {
        /* a slot holds one statement: another text in the same slot would
         * run the first one (a programming error; say so) */
        if (c->stmt_sql[id] != sql && c->stmt_hash[id] != sql_hash(sql)) {
            char ctx[300];
            snprintf(ctx, sizeof ctx, "%s (statement slot %d)", what, id);
            *status = db_fail(c, ctx, 0, "the slot holds another statement");
            return NULL;
        }
        return c->stmts[id];
    }
    st = mysql_stmt_init(c->mysql);
    if (!st) {
        *status = db_fail(c, what, mysql_errno(c->mysql), mysql_error(c->mysql));
        return NULL;
    }
    if (mysql_stmt_prepare(st, sql, strlen(sql))) {
        char ctx[300];
        snprintf(ctx, sizeof ctx, "%s (preparing statement %d)", what, id);
        *status = db_fail(c, ctx, mysql_stmt_errno(st), mysql_stmt_error(st));
        mysql_stmt_close(st);
        return NULL;
    }
    c->stmts[id] = st;
    c->stmt_sql[id] = sql;
    c->stmt_hash[id] = sql_hash(sql);
    return st;
}

static int bind_params(struct db_conn *c, MYSQL_STMT *st, struct db_val *params, int n,
                       const char *what)
{
    MYSQL_BIND b[64];
    int i;

    if (n > 64)
        return db_fail(c, what, 0, "too many parameters");
    if ((int)mysql_stmt_param_count(st) != n)
        return db_fail(c, what, 0, "parameter count does not match the statement");
    memset(b, 0, sizeof(MYSQL_BIND) * (size_t)(n ? n : 1));
    for (i = 0; i < n; i++) {
        struct db_val *v = &params[i];
        b[i].buffer_type = field_type(v->type);
        b[i].buffer = v->p;
        if (v->type == DBT_STR || v->type == DBT_BIN) {
            if (v->len == (unsigned long)-1)
                v->len = v->p ? (unsigned long)strlen((const char *)v->p) : 0;
            b[i].buffer_length = v->len;
            b[i].length = &v->len;
        }
        b[i].is_null = (my_bool *)&v->is_null;
    }
    if (n && mysql_stmt_bind_param(st, b))
        return db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
    return DB_OK;
}

int db_exec(struct db_conn *c, int id, const char *sql, struct db_val *params, int nparams,
            long long *affected, const char *what)
{
    int status = DB_ERR;
    MYSQL_STMT *st = get_stmt(c, id, sql, what, &status);

    if (!st)
        return status;
    if ((status = bind_params(c, st, params, nparams, what)) != DB_OK)
        return status;
    db_count_statement(c, id, what);
    if (mysql_stmt_execute(st))
        return db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
    if (affected)
        *affected = (long long)mysql_stmt_affected_rows(st);
    return DB_OK;
}

long long db_insert_id(struct db_conn *c, int id)
{
    if (id < 0 || id >= DB_MAX_STMTS || !c->stmts[id])
        return 0;
    return (long long)mysql_stmt_insert_id(c->stmts[id]);
}

/* A fetch failed: an error the server sends while rows stream in (a
 * deadlock or lock wait timeout, for instance) can be left on the
 * connection rather than the statement; take it from there, so that it is
 * classified (and retried) by its real number. */
static int fetch_failed(struct db_conn *c, MYSQL_STMT *st, const char *what)
{
    if (mysql_stmt_errno(st))
        return db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
    if (mysql_errno(c->mysql))
        return db_fail(c, what, mysql_errno(c->mysql), mysql_error(c->mysql));
    return db_fail(c, what, 2013, "fetch failed with no error number: "
                                  "treated as a lost connection");
}

int db_query(struct db_conn *c, int id, const char *sql, struct db_val *params, int nparams,
             struct db_val *cols, int ncols, int (*row)(void *ctx), void *ctx, long *nrows,
             const char *what)
{
    MYSQL_BIND b[64];
    my_bool errors[64] = { 0 };
    int status = DB_ERR, i, r, stop = 0;
    long count = 0;
    MYSQL_STMT *st = get_stmt(c, id, sql, what, &status);

    if (nrows)
        *nrows = 0;
    if (!st)
        return status;
    if (ncols > 64 || (int)mysql_stmt_field_count(st) != ncols)
        return db_fail(c, what, 0, "column count does not match the statement");
    if ((status = bind_params(c, st, params, nparams, what)) != DB_OK)
        return status;
    memset(b, 0, sizeof(MYSQL_BIND) * (size_t)(ncols ? ncols : 1));
    for (i = 0; i < ncols; i++) {
        struct db_val *v = &cols[i];
        b[i].buffer_type = field_type(v->type);
        b[i].buffer = v->p;
        b[i].buffer_length = v->type == DBT_STR ? (v->cap ? v->cap - 1 : 0) : v->cap;
        b[i].length = &v->len;
        b[i].is_null = (my_bool *)&v->is_null;
        b[i].error = &errors[i];
    }
    db_count_statement(c, id, what);
    if (mysql_stmt_execute(st))
        return db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
    if (ncols && mysql_stmt_bind_result(st, b)) {
        status = db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
        mysql_stmt_free_result(st);
        return status;
    }
    status = DB_OK;
    while (!stop && (r = mysql_stmt_fetch(st)) != MYSQL_NO_DATA) {
        if (r == 1) {
            status = fetch_failed(c, st, what);
            break;
        }
        if (r == MYSQL_DATA_TRUNCATED) {
            char msg[80];
            for (i = 0; i < ncols && !errors[i]; i++)
                ;
            snprintf(msg, sizeof msg, "value of column %d is larger than its buffer", i + 1);
            status = db_fail(c, what, 0, msg);
            break;
        }
        for (i = 0; i < ncols; i++) {
            if (cols[i].type == DBT_STR) {
                unsigned long l = cols[i].is_null ? 0 : cols[i].len;
                if (cols[i].cap)
                    ((char *)cols[i].p)[l < cols[i].cap ? l : cols[i].cap - 1] = '\0';
            } else if (cols[i].is_null) {
                memset(cols[i].p, 0, cols[i].cap);
            }
        }
        count++;
        if (row) {
            int rr = row(ctx);
            if (rr < 0) {
                status = rr;
                break;
            }
            if (rr > 0)
                stop = 1;
        }
    }
    if (stop && status == DB_OK) {
        /* The caller has the rows it wants, but the server's error can
         * still come after the rest (a locking read locks rows as it sends
         * them: a deadlock or a Galera abort on a later row).  Freeing the
         * result would read that error and drop it, and the session would
         * go on in a new transaction; so the rest is read here (into the
         * same buffers, which the caller no longer uses). */
        while ((r = mysql_stmt_fetch(st)) == 0 || r == MYSQL_DATA_TRUNCATED)
            ;
        if (r == 1)
            status = fetch_failed(c, st, what);
    }
    mysql_stmt_free_result(st);
    if (nrows)
        *nrows = count;
    return status;
}

#define TEXT_COL_MAX (16UL << 20)   /* the largest column db_query_text fetches */

/* Fetch the rows of an executed statement with its result bound to the
 * buffers in b (text), calling row() per row. */
static int text_rows(struct db_conn *c, MYSQL_STMT *st, MYSQL_BIND *b, int ncols,
                     const char *const *names, char **bufs, unsigned long *lens, my_bool *nulls,
                     db_text_row_fn row, void *ctx, const char *what)
{
    const char *vals[64];
    int r, i, status = DB_OK;

    while ((r = mysql_stmt_fetch(st)) != MYSQL_NO_DATA) {
        if (r == 1) {
            status = fetch_failed(c, st, what);
            break;
        }
        for (i = 0; i < ncols; i++) {
            if (r == MYSQL_DATA_TRUNCATED && !nulls[i] && lens[i] >= b[i].buffer_length)
                return db_fail(c, what, 0, "a column is larger than 16 MB");
            if (nulls[i]) {
                vals[i] = NULL;
                lens[i] = 0;
            } else {
                bufs[i][lens[i]] = '\0';
                vals[i] = bufs[i];
            }
        }
        if ((status = row(ctx, ncols, names, vals, lens)) < 0)
            break;
        status = DB_OK;
    }
    return status;
}

int db_query_text(struct db_conn *c, int id, const char *sql, struct db_val *params, int nparams,
                  db_text_row_fn row, void *ctx, const char *what)
{
    MYSQL_BIND b[64];
    MYSQL_RES *meta = NULL;
    MYSQL_FIELD *f;
    const char *names[64];
    char *bufs[64] = { 0 };
    unsigned long lens[64];
    my_bool nulls[64];
    int status = DB_ERR, i, ncols;
    MYSQL_STMT *st = get_stmt(c, id, sql, what, &status);

    if (!st)
        return status;
    ncols = (int)mysql_stmt_field_count(st);
    if (ncols < 1 || ncols > 64)
        return db_fail(c, what, 0, "a text query needs 1 to 64 columns");
    if ((status = bind_params(c, st, params, nparams, what)) != DB_OK)
        return status;
    /* the longest value of a column is known after execution only with
     * STMT_ATTR_UPDATE_MAX_LENGTH and a stored result */
    {
        my_bool on = 1;
        mysql_stmt_attr_set(st, STMT_ATTR_UPDATE_MAX_LENGTH, &on);
    }
    db_count_statement(c, id, what);
    if (mysql_stmt_execute(st))
        return db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
    if (mysql_stmt_store_result(st)) {
        status = db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
        goto out;
    }
    meta = mysql_stmt_result_metadata(st);
    if (!meta) {
        status = db_fail(c, what, mysql_stmt_errno(st), "no result metadata");
        goto out;
    }
    f = mysql_fetch_fields(meta);
    memset(b, 0, sizeof(MYSQL_BIND) * (size_t)ncols);
    for (i = 0; i < ncols; i++) {
        unsigned long cap = f[i].max_length + 1;
        if (cap < 32)
            cap = 32;                     /* numbers as text */
        if (cap > TEXT_COL_MAX + 1)
            cap = TEXT_COL_MAX + 1;
        bufs[i] = malloc(cap + 1);
        if (!bufs[i]) {
            status = db_fail(c, what, 0, "out of memory");
            goto out;
        }
        names[i] = f[i].name;
        b[i].buffer_type = MYSQL_TYPE_STRING;
        b[i].buffer = bufs[i];
        b[i].buffer_length = cap;
        b[i].length = &lens[i];
        b[i].is_null = &nulls[i];
    }
    if (mysql_stmt_bind_result(st, b)) {
        status = db_fail(c, what, mysql_stmt_errno(st), mysql_stmt_error(st));
        goto out;
    }
    status = text_rows(c, st, b, ncols, names, bufs, lens, nulls, row, ctx, what);
out:
    if (meta)
        mysql_free_result(meta);
    mysql_stmt_free_result(st);
    for (i = 0; i < 64; i++)
        free(bufs[i]);
    return status;
}
