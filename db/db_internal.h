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
    char err[768];
    unsigned errnum;
    unsigned long nstatements;
    unsigned long nretries;   /* transactions run again (db_transaction) */
    int conflict;             /* the last failure was a conflict with another transaction */
    int in_tx_failed;         /* a retryable error happened inside the transaction */
    /* copies of the parameters, for reconnecting */
    struct db_params p;
    char host[256], user[128], password[256], name[128], socket[1024];
};

/* Record an error "what: message (errno)" and classify it. */
int db_fail(struct db_conn *c, const char *what, unsigned errnum, const char *msg);

/* Record a failure that another transaction caused without a server
 * error (a row it took between our read and our write): DB_RETRY. */
int db_fail_conflict(struct db_conn *c, const char *what, const char *msg);

/* Classify a MariaDB error number as DB_RETRY, DB_DUP or DB_ERR. */
int db_classify(unsigned errnum);

/* (Re)connect; closes prepared statements.  Returns DB_OK or DB_UNAVAILABLE. */
int db_connect(struct db_conn *c);

#endif
