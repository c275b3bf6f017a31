/*
 * db_internal.h - the connection struct, shared by the files of db/ only.
 */
#ifndef LOCSCHED_DB_INTERNAL_H
#define LOCSCHED_DB_INTERNAL_H

#include <mysql.h>

#include "db.h"

struct db_conn {
    MYSQL *mysql;
    MYSQL_STMT *stmts[DB_MAX_STMTS];
    /* what each slot was prepared with: the text's address, and its hash
     * for when the same text comes from another address */
    const char *stmt_sql[DB_MAX_STMTS];
    unsigned long stmt_hash[DB_MAX_STMTS];
    char err[768];
    unsigned errnum;
    unsigned long nstatements;
    /* statements run per slot, and the first description each ran with
     * (the last two: commits, rollbacks), for db_statement_tally() */
    unsigned long slot_runs[DB_TALLY_SLOTS];
    char slot_what[DB_TALLY_SLOTS][40];
    unsigned long nretries;   /* transactions run again (db_transaction) */
    int conflict;             /* the last failure was a conflict with another transaction */
    int in_tx_failed;         /* a retryable error happened inside the transaction */
    /* copies of the parameters, for reconnecting */
    struct db_params p;
    char host[256], user[128], password[256], name[128], socket[1024];
};

/* Count one statement of slot id (DB_MAX_STMTS: a commit, +1: a rollback). */
void db_count_statement(struct db_conn *c, int id, const char *what);

/* Record an error "what: message (errno)" and classify it. */
int db_fail(struct db_conn *c, const char *what, unsigned errnum, const char *msg);

/* Record a failure that another transaction caused without a server
 * error (a row it took between our read and our write): DB_RETRY. */
int db_fail_conflict(struct db_conn *c, const char *what, const char *msg);

/* Run a query whose only column is an int id, with nparams params;
 * ids[0..*n) get at most limit of them (db_daemon.c). */
int db_query_ids(struct db_conn *c, int slot, const char *sql, struct db_val *params,
                 int nparams, int limit, int *ids, int *n, const char *what);

/* Classify a MariaDB error number as DB_RETRY, DB_DUP or DB_ERR. */
int db_classify(unsigned errnum);

/* (Re)connect; closes prepared statements.  Returns DB_OK or DB_UNAVAILABLE. */
int db_connect(struct db_conn *c);

/* The columns every cursor read returns (struct db_cursor_row), the
 * host-specific ones last; and the read of a host's own teams (one
 * parameter: the host id), used alone (db_locality.c) and as a part of
 * the scheduler's look-up (db_sched.c). */
#define CURSOR_COLUMNS \
    "c.id, c.batch_id, b.appid, c.first_job_num, c.last_job_num, " \
    "c.first_unfinished_job_num, COALESCE(bj.first_file_num, -1), c.last_file_num, " \
    "c.remaining_credit, c.expavg_credit, c.max_host_credit, c.nhosts, " \
    "c.next_stretch_job_num, b.target_nresults, "
/* The bindings of CURSOR_COLUMNS and the host-specific ones, into the
 * struct db_cursor_row r (20 columns). */
#define CURSOR_ROW_BINDINGS(r) \
    DBV_INT((r).id), DBV_INT((r).batch_id), DBV_INT((r).appid), \
    DBV_INT((r).first_job_num), DBV_INT((r).last_job_num), \
    DBV_INT((r).first_unfinished_job_num), DBV_INT((r).first_unfinished_file), \
    DBV_INT((r).last_file_num), DBV_DBL((r).remaining_credit), \
    DBV_DBL((r).expavg_credit), DBV_DBL((r).max_host_credit), DBV_INT((r).nhosts), \
    DBV_INT((r).next_stretch), DBV_INT((r).replication), \
    DBV_INT((r).mine), DBV_DBL((r).my_credit_rate), DBV_INT((r).my_assign_time), \
    DBV_INT((r).user_in_team), DBV_INT((r).my_stretch_first), DBV_INT((r).my_stretch_last)
#define MY_TEAMS_COLUMNS \
    CURSOR_COLUMNS "1, bh.credit_rate, bh.assign_time, 0, bh.stretch_first, bh.stretch_last "
#define MY_TEAMS_FROM \
    "FROM batch_host bh JOIN locality_cursor c ON c.id = bh.cursor_id " \
    "JOIN batch b ON b.id = bh.batch_id " \
    "LEFT JOIN batch_job bj ON bj.batch_id = c.batch_id " \
    "  AND bj.job_num = c.first_unfinished_job_num " \
    "WHERE bh.host_id = ? AND b.state = 1 AND b.locality <> 0"

#endif
