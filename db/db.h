/*
 * db.h - locsched's data layer: connections, transactions with retry,
 * and the prepared-statement machinery used by the typed functions in
 * db_*.c.  This header does not include mysql.h; only the files in db/ do.
 *
 * Errors: every function returns DB_OK (0) or a negative enum db_status.
 * The text of the last error, with what was being done and to which row,
 * is in db_error(conn).  db/ never logs; callers do.
 */
#ifndef LOCSCHED_DB_H
#define LOCSCHED_DB_H

#include <stddef.h>

enum db_status {
    DB_OK = 0,
    DB_NOTFOUND = -1,      /* a lookup found no row */
    DB_ERR = -2,           /* a permanent error (SQL, constraint, bad data) */
    DB_RETRY = -3,         /* deadlock, lock wait timeout, lost connection: try again */
    DB_UNAVAILABLE = -4,   /* could not connect, or retries exhausted */
    DB_ABORT = -5,         /* the transaction body chose to roll back */
    DB_DUP = -6            /* duplicate key (1062) */
};

struct db_params {
    const char *host;      /* NULL or "" -> unix socket */
    const char *user;
    const char *password;
    const char *name;
    const char *socket;
    int port;
    int timeout;           /* seconds for connect, read, write */
    int lock_wait_timeout; /* seconds */
    int retries;           /* transaction tries */
    int read_committed;    /* 1: READ COMMITTED isolation (schedulers) */
};

struct db_conn;

/* Open a connection.  Returns NULL with a reason in err.  The params'
 * strings are copied. */
struct db_conn *db_open(const struct db_params *p, char *err, size_t errlen);
void db_close(struct db_conn *c);

/* Last error text (with context) and MariaDB error number (0 if none). */
const char *db_error(const struct db_conn *c);
unsigned db_errno(const struct db_conn *c);

/* Statements executed on this connection so far (for benchmarks). */
unsigned long db_statement_count(const struct db_conn *c);

/* The statements of this connection by kind, for finding which ones a
 * request runs: for slot in [0, DB_TALLY_SLOTS), how many ran and what
 * the first of them was (its caller's description); the last two slots
 * count commits and rollbacks.  Returns 0 for a slot that never ran. */
#define DB_TALLY_SLOTS (DB_MAX_STMTS + 2)
unsigned long db_statement_tally(const struct db_conn *c, int slot, const char **what);

/* Transactions that db_transaction ran again on this connection so far. */
unsigned long db_retry_count(const struct db_conn *c);

/* Whether the last failure was a conflict with another transaction (a
 * deadlock, a Galera certification failure or brute-force abort, a row
 * taken meanwhile) rather than a server that failed to answer: the
 * server is up, and the caller need not back off from it. */
int db_failed_on_conflict(const struct db_conn *c);

/*
 * Run body(c, arg) in one transaction and commit.  On a deadlock (1213),
 * lock wait timeout (1205) or lost connection (2006, 2013) the transaction
 * is rolled back, the connection re-opened if needed, and body run again,
 * up to params.retries times; body must therefore reset its own state at
 * its start.  body returns DB_OK to commit, DB_ABORT to roll back without
 * retry, or any other status (which rolls back; DB_RETRY retries).
 * "what" names the work for error messages.
 * Returns DB_OK, DB_ABORT, DB_ERR, or DB_UNAVAILABLE.
 */
typedef int (*db_tx_body)(struct db_conn *c, void *arg);
int db_transaction(struct db_conn *c, const char *what, db_tx_body body, void *arg);

/* Run one statement outside db_transaction (autocommit is off, so this
 * also commits).  For admin tools and DDL-free maintenance. */
int db_commit(struct db_conn *c);
int db_rollback(struct db_conn *c);

/* ---- prepared statements (used by db_*.c and tools) ---- */

enum db_type { DBT_INT, DBT_LL, DBT_DBL, DBT_STR, DBT_BIN };

/* One parameter or result column.  For DBT_STR/DBT_BIN params, len is the
 * byte count; for result columns, p/cap is the buffer and len receives the
 * length (strings are NUL-terminated; a value longer than cap-1 is an
 * error).  is_null is in for params and out for columns. */
struct db_val {
    enum db_type type;
    void *p;
    size_t cap;
    unsigned long len;
    char is_null;
};

#define DBV_INT(x)  { DBT_INT, (void *)&(x), sizeof(int), 0, 0 }
#define DBV_LL(x)   { DBT_LL, (void *)&(x), sizeof(long long), 0, 0 }
#define DBV_DBL(x)  { DBT_DBL, (void *)&(x), sizeof(double), 0, 0 }
#define DBV_STR(s)  { DBT_STR, (void *)(s), 0, (unsigned long)-1, 0 }   /* param: strlen */
#define DBV_STRN(s, n) { DBT_STR, (void *)(s), 0, (unsigned long)(n), 0 }
#define DBV_BIN(b, n)  { DBT_BIN, (void *)(b), (n), (unsigned long)(n), 0 }
#define DBV_BUF(buf) { DBT_STR, (void *)(buf), sizeof(buf), 0, 0 }      /* column */

/* Statement ids: each distinct SQL text used on a connection has a slot,
 * prepared on first use and kept until the connection is closed.  Slots
 * 140..159 are the tests' own (db_slots.h). */
#define DB_MAX_STMTS 256

/*
 * Execute statement slot id (SQL text sql) with params.  *affected gets
 * the affected row count (may be NULL).  Returns DB_OK, DB_DUP, DB_RETRY,
 * DB_ERR.  "what" is context for the error text.
 */
int db_exec(struct db_conn *c, int id, const char *sql, struct db_val *params, int nparams,
            long long *affected, const char *what);

/*
 * Execute a query and call row(ctx) after each row has been fetched into
 * cols.  row returns 0 to continue, 1 to stop (remaining rows are
 * discarded), or a negative status to fail.  *nrows gets the number of
 * rows delivered (may be NULL).
 */
int db_query(struct db_conn *c, int id, const char *sql, struct db_val *params, int nparams,
             struct db_val *cols, int ncols, int (*row)(void *ctx), void *ctx, long *nrows,
             const char *what);

/*
 * Execute a query whose columns are not known in advance (an archive of
 * whole rows): every column is fetched as text (numbers in MariaDB's
 * text form) and row(ctx, ncols, names, values, lens) is called per row;
 * values[i] is NULL for SQL NULL, else NUL-terminated with lens[i] bytes
 * (which may include NUL bytes for binary columns).  row returns 0 to go
 * on or a negative status to fail.  Columns are capped at 16 MB.
 */
typedef int (*db_text_row_fn)(void *ctx, int ncols, const char *const *names,
                              const char *const *values, const unsigned long *lens);
int db_query_text(struct db_conn *c, int id, const char *sql, struct db_val *params, int nparams,
                  db_text_row_fn row, void *ctx, const char *what);

/* Last AUTO_INCREMENT id produced by db_exec on slot id. */
long long db_insert_id(struct db_conn *c, int id);

#endif /* LOCSCHED_DB_H */
