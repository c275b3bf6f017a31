/*
 * replay_db.h - the database server's own counters (GLOBAL_STATUS), read
 * by the load replay before and after a run to count the SQL statements
 * and row operations per request.  Through the data layer (db.h): one
 * constant prepared statement.
 *
 * Which counter counts what, in MariaDB 10.11 (checked with the
 * scheduler's own statement count, see doc/load-testing.md): every
 * execution of a prepared statement adds one to Com_stmt_execute *and*
 * one to the Com_ counter of its kind (Com_select, Com_update, ...), so
 * adding both counts each statement twice.  COMMIT and ROLLBACK are sent
 * as plain queries (Com_commit, Com_rollback).  Statements per request =
 * Com_stmt_execute + Com_commit + Com_rollback + the plain-text statements
 * of other kinds.
 *
 * InnoDB's writes (pages flushed from the buffer pool, bytes written to
 * its data files, bytes written to the redo log) are global too: they
 * include the page writes of InnoDB's own threads during the window,
 * which the requests' changes cause but do not wait for.
 */
#ifndef LOCSCHED_REPLAY_DB_H
#define LOCSCHED_REPLAY_DB_H

#include "db.h"

enum rdb_counter {
    RDB_STMT_EXECUTE = 0, RDB_COMMIT, RDB_ROLLBACK,
    RDB_SELECT, RDB_INSERT, RDB_INSERT_SELECT, RDB_UPDATE, RDB_UPDATE_MULTI,
    RDB_DELETE, RDB_DELETE_MULTI, RDB_STMT_PREPARE, RDB_QUESTIONS,
    RDB_HANDLER_READ_KEY, RDB_HANDLER_READ_NEXT, RDB_HANDLER_READ_RND_NEXT,
    RDB_HANDLER_UPDATE, RDB_HANDLER_WRITE, RDB_HANDLER_DELETE, RDB_ROWS_LOCK_WAITS,
    RDB_DEADLOCKS, RDB_PAGES_FLUSHED, RDB_DATA_WRITTEN, RDB_LOG_WRITTEN,
    RDB_NCOUNTERS
};

/* The counter's name as in GLOBAL_STATUS. */
const char *rdb_name(enum rdb_counter c);

struct rdb_snap {
    double v[RDB_NCOUNTERS];
};

/*
 * Read the counters.  Returns DB_OK or a db status (text in db_error).
 * The reading itself executes one prepared SELECT: rdb_calibrate measures
 * that so it can be subtracted.
 */
int rdb_read(struct db_conn *c, struct rdb_snap *out);

/* Read twice in a row: out gets the second reading, self the cost of one
 * reading (b - a).  Returns DB_OK or a db status. */
int rdb_calibrate(struct db_conn *c, struct rdb_snap *out, struct rdb_snap *self);

/* Per-counter difference b - a - self. */
void rdb_delta(const struct rdb_snap *a, const struct rdb_snap *b, const struct rdb_snap *self,
               struct rdb_snap *d);

/* Statements in a delta: executions of prepared statements, commits,
 * rollbacks, and plain-text statements of other kinds. */
double rdb_statements(const struct rdb_snap *d);

#endif
