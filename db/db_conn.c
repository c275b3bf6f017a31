/*
 * db_conn.c - connecting to MariaDB and running transactions with retry.
 *
 * Sessions run with autocommit off, so every statement belongs to a
 * transaction that ends with an explicit COMMIT or ROLLBACK.  Schedulers
 * use READ COMMITTED: their locking reads then lock only the rows they
 * return, not gaps, which keeps concurrent claims from blocking each other.
 * Timeouts are short: an overloaded database must make the scheduler
 * answer "try later" quickly, not hang.
 */
#include "db_internal.h"

#include <errmsg.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int db_classify(unsigned errnum)
{
    switch (errnum) {
    case ER_LOCK_DEADLOCK:        /* 1213, also Galera certification failures */
    case ER_LOCK_WAIT_TIMEOUT:    /* 1205 */
    case CR_SERVER_GONE_ERROR:    /* 2006 */
    case CR_SERVER_LOST:          /* 2013 */
    case CR_CONNECTION_ERROR:     /* 2002 */
    case CR_CONN_HOST_ERROR:      /* 2003 */
    case ER_QUERY_INTERRUPTED:    /* 1317 */
    case 1927:                    /* ER_CONNECTION_KILLED */
    case 4031:                    /* ER_CLIENT_INTERACTION_TIMEOUT */
    case 1969:                    /* ER_STATEMENT_TIMEOUT (max_statement_time,
                                   * set to db_timeout: the client's own read
                                   * timeout, 2013, would have come instead;
                                   * the retries stop once db_timeout is spent) */
        return DB_RETRY;
    case ER_DUP_ENTRY:            /* 1062 */
        return DB_DUP;
    default:
        return DB_ERR;
    }
}

/*
 * An error of the DB_RETRY kind may have ended the whole transaction on
 * the server (a deadlock victim, a Galera brute-force abort or
 * certification failure, a lost connection), and the session then goes
 * on in a new transaction.  A caller that did not pass such an error on
 * would commit the statements after it without those before it (a claim
 * without its host row, a reply's jobs without their claims).  So the
 * connection remembers it (in_tx_failed) and db_commit() refuses to
 * commit until the transaction has been rolled back.
 */
int db_fail(struct db_conn *c, const char *what, unsigned errnum, const char *msg)
{
    int r = db_classify(errnum);
    c->errnum = errnum;
    c->conflict = errnum == ER_LOCK_DEADLOCK;
    if (r == DB_RETRY)
        c->in_tx_failed = 1;
    snprintf(c->err, sizeof c->err, "%.340s: %.380s (MariaDB error %u)", what ? what : "database",
             msg ? msg : "unknown error", errnum);
    return r;
}

int db_fail_conflict(struct db_conn *c, const char *what, const char *msg)
{
    c->errnum = 0;
    c->conflict = 1;
    c->in_tx_failed = 1;
    snprintf(c->err, sizeof c->err, "%s: %s (a conflict with another transaction)",
             what ? what : "database", msg ? msg : "rows changed meanwhile");
    return DB_RETRY;
}

static void close_stmts(struct db_conn *c)
{
    int i;
    for (i = 0; i < DB_MAX_STMTS; i++) {
        if (c->stmts[i])
            mysql_stmt_close(c->stmts[i]);
        c->stmts[i] = NULL;
    }
}

int db_connect(struct db_conn *c)
{
    unsigned int timeout = (unsigned)c->p.timeout;
    char init[256];

    close_stmts(c);
    if (c->mysql)
        mysql_close(c->mysql);
    c->mysql = mysql_init(NULL);
    if (!c->mysql) {
        db_fail(c, "connect", 0, "mysql_init failed (out of memory)");
        return DB_UNAVAILABLE;
    }
    mysql_options(c->mysql, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
    mysql_options(c->mysql, MYSQL_OPT_READ_TIMEOUT, &timeout);
    mysql_options(c->mysql, MYSQL_OPT_WRITE_TIMEOUT, &timeout);
    mysql_options(c->mysql, MYSQL_SET_CHARSET_NAME, "utf8mb4");
    /* max_statement_time: the server gives up on a statement when this
     * client would (its read timeout), instead of running it on after the
     * client has reconnected and sent the next one: statements that each
     * overran the timeout once piled up until MariaDB refused connections
     * (doc/load-testing.md, "Backups at a large batch's end") */
    snprintf(init, sizeof init,
             "SET SESSION innodb_lock_wait_timeout=%d, autocommit=0, max_statement_time=%d",
             c->p.lock_wait_timeout, c->p.timeout);
    mysql_options(c->mysql, MYSQL_INIT_COMMAND, init);
    if (c->p.read_committed)
        mysql_options(c->mysql, MYSQL_INIT_COMMAND,
                      "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED");
    if (!mysql_real_connect(c->mysql, c->host[0] ? c->host : NULL, c->user, c->password,
                            c->name, (unsigned)c->p.port, c->socket[0] ? c->socket : NULL,
                            CLIENT_FOUND_ROWS)) {
        char where[1400];
        snprintf(where, sizeof where, "connect to database %s as %s via %s", c->name, c->user,
                 c->host[0] ? c->host : (c->socket[0] ? c->socket : "default socket"));
        db_fail(c, where, mysql_errno(c->mysql), mysql_error(c->mysql));
        mysql_close(c->mysql);
        c->mysql = NULL;
        return DB_UNAVAILABLE;
    }
    c->in_tx_failed = 0;      /* a new session: no transaction yet */
    return DB_OK;
}

static void copy_param(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

struct db_conn *db_open(const struct db_params *p, char *err, size_t errlen)
{
    struct db_conn *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    c->p = *p;
    if (c->p.timeout <= 0)
        c->p.timeout = 5;
    if (c->p.lock_wait_timeout <= 0)
        c->p.lock_wait_timeout = 5;
    if (c->p.retries <= 0)
        c->p.retries = 4;
    copy_param(c->host, sizeof c->host, p->host);
    copy_param(c->user, sizeof c->user, p->user);
    copy_param(c->password, sizeof c->password, p->password);
    copy_param(c->name, sizeof c->name, p->name);
    copy_param(c->socket, sizeof c->socket, p->socket);
    c->p.host = c->p.user = c->p.password = c->p.name = c->p.socket = NULL;
    if (db_connect(c) != DB_OK) {
        snprintf(err, errlen, "%s", c->err);
        free(c);
        return NULL;
    }
    return c;
}

void db_close(struct db_conn *c)
{
    if (!c)
        return;
    close_stmts(c);
    if (c->mysql)
        mysql_close(c->mysql);
    memset(c->password, 0, sizeof c->password);
    free(c);
}

const char *db_error(const struct db_conn *c)
{
    return c->err;
}

unsigned db_errno(const struct db_conn *c)
{
    return c->errnum;
}

unsigned long db_statement_count(const struct db_conn *c)
{
    return c->nstatements;
}

void db_count_statement(struct db_conn *c, int id, const char *what)
{
    c->nstatements++;
    if (id < 0 || id >= DB_TALLY_SLOTS)
        return;
    if (c->slot_runs[id]++ == 0)
        snprintf(c->slot_what[id], sizeof c->slot_what[id], "%s", what ? what : "");
}

unsigned long db_statement_tally(const struct db_conn *c, int slot, const char **what)
{
    if (slot < 0 || slot >= DB_TALLY_SLOTS)
        return 0;
    if (what)
        *what = c->slot_what[slot];
    return c->slot_runs[slot];
}

unsigned long db_retry_count(const struct db_conn *c)
{
    return c->nretries;
}

int db_failed_on_conflict(const struct db_conn *c)
{
    return c->conflict;
}

int db_commit(struct db_conn *c)
{
    if (!c->mysql)
        return DB_RETRY;
    if (c->in_tx_failed) {
        /* a statement of this transaction failed in a way that may have
         * rolled back what came before it: nothing of it is committed */
        char msg[sizeof c->err];
        unsigned saved = c->errnum;
        int saved_conflict = c->conflict;
        snprintf(msg, sizeof msg, "not committed, an earlier statement failed: %.700s", c->err);
        db_rollback(c);
        memcpy(c->err, msg, sizeof c->err);
        c->errnum = saved;
        c->conflict = saved_conflict;
        return DB_RETRY;
    }
    db_count_statement(c, DB_MAX_STMTS, "commit");
    if (mysql_commit(c->mysql))
        return db_fail(c, "commit", mysql_errno(c->mysql), mysql_error(c->mysql));
    return DB_OK;
}

int db_rollback(struct db_conn *c)
{
    if (!c->mysql)
        return DB_RETRY;
    c->in_tx_failed = 0;
    db_count_statement(c, DB_MAX_STMTS + 1, "rollback");
    if (mysql_rollback(c->mysql))
        return db_fail(c, "rollback", mysql_errno(c->mysql), mysql_error(c->mysql));
    return DB_OK;
}

/* Sleep a little before retrying, growing with the attempt, so that
 * transactions that deadlocked on each other do not collide again. */
static void backoff(int attempt)
{
    struct timespec ts;
    long ms = (long)(rand() % 5 + 1) * (1L << (attempt < 6 ? attempt : 6));
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (ms % 1000) * 1000000L;
    nanosleep(&ts, NULL);
}

static double monotonic_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int db_transaction(struct db_conn *c, const char *what, db_tx_body body, void *arg)
{
    int attempt, r = DB_UNAVAILABLE;
    char first_err[sizeof c->err] = "";
    double start = monotonic_seconds();

    for (attempt = 0; attempt < c->p.retries; attempt++) {
        /* Deadlocks retry at once; but once the time budget (the
         * connection timeout) is spent, a server that does not answer
         * gets no more tries: the caller answers "try later" instead of
         * hanging for retries * timeout. */
        if (attempt > 0 && monotonic_seconds() - start >= (double)c->p.timeout)
            break;
        if (attempt > 0) {
            backoff(attempt);
            c->nretries++;
        }
        if (!c->mysql && db_connect(c) != DB_OK) {
            r = DB_RETRY;
            continue;
        }
        r = body(c, arg);
        if (r == DB_OK)
            r = db_commit(c);
        if (r == DB_OK)
            return DB_OK;
        if (!first_err[0])
            snprintf(first_err, sizeof first_err, "%s", c->err);
        {
            unsigned saved = c->errnum;
            int saved_conflict = c->conflict;
            char saved_err[sizeof c->err];
            memcpy(saved_err, c->err, sizeof saved_err);
            if (db_rollback(c) != DB_OK || saved == CR_SERVER_GONE_ERROR ||
                saved == CR_SERVER_LOST) {
                /* the connection is unusable: reconnect on the next try */
                close_stmts(c);
                mysql_close(c->mysql);
                c->mysql = NULL;
            }
            c->errnum = saved;
            c->conflict = saved_conflict;
            memcpy(c->err, saved_err, sizeof c->err);
        }
        if (r == DB_ABORT)
            return DB_ABORT;
        if (r != DB_RETRY)
            return DB_ERR;
    }
    {
        char msg[sizeof c->err];
        snprintf(msg, sizeof msg, "%s: gave up after %d tries in %.1f s; last error: %.400s",
                 what, attempt, monotonic_seconds() - start, c->err);
        memcpy(c->err, msg, sizeof c->err);
    }
    return DB_UNAVAILABLE;
}
