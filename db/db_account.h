/*
 * db_account.h - the statements of the account web RPCs (sched/webrpc):
 * an account by email, a new account with its password hash, the
 * per-address rate limit, and the platforms a project has apps for.
 * Statement slots 208..223 (db_slots.h).
 *
 * The caller runs the writes inside db_transaction (a new account and
 * its checks commit together or not at all).
 */
#ifndef LOCSCHED_DB_ACCOUNT_H
#define LOCSCHED_DB_ACCOUNT_H

#include "db.h"

#define DB_ACCOUNT_STR 255     /* the user columns are VARCHAR(254) */

struct db_account {
    int id;
    char authenticator[DB_ACCOUNT_STR];
    char passwd_hash[DB_ACCOUNT_STR];   /* '' when the account has none */
};

/* The account with this email address (compared as stored: the RPCs
 * store and look up lower-cased addresses), locked for the rest of the
 * transaction when lock is 1.  Returns DB_OK, DB_NOTFOUND or an error. */
int db_account_by_email(struct db_conn *c, const char *email, int lock, struct db_account *a);

/* Insert an account with its password hash ('' for none).  Returns DB_OK
 * with its id in *id, DB_DUP when the email or authenticator is taken, or
 * an error. */
int db_account_create(struct db_conn *c, const char *name, const char *email,
                      const char *authenticator, const unsigned char auth_hash[32],
                      const char *passwd_hash, int now, int *id);

/* The RPCs rate-limited per client address. */
enum db_rate_rpc { DB_RATE_CREATE = 1, DB_RATE_LOOKUP = 2 };

/*
 * Count one request of rpc from addr at time now in a window of window
 * seconds (a request at or after window_start + window starts a new
 * window), and put the count in the current window, this request
 * included, in *count.  Also deletes a few rows of windows long over.
 * Call it in its own transaction: the count stays when the request fails.
 */
int db_rate_hit(struct db_conn *c, const char *addr, int rpc, int now, int window, int *count);

/* Names of the platforms with a non-deprecated app version, sorted, at
 * most max of them into names[0..*n). */
int db_app_platforms(struct db_conn *c, char (*names)[DB_ACCOUNT_STR], int max, int *n);

#endif
