/*
 * webrpc_handler.h - answer one account web RPC: read what the database
 * holds through the data layer, decide with webrpc_logic, and write the
 * XML reply (account_reply.h).  Every request gets a reply; on any error
 * nothing is written to the accounts (the rate-limit count, committed
 * first on its own, stays).
 */
#ifndef LOCSCHED_WEBRPC_HANDLER_H
#define LOCSCHED_WEBRPC_HANDLER_H

#include <stddef.h>
#include <time.h>

#include "buf.h"
#include "config.h"
#include "db.h"
#include "webrpc_logic.h"

struct webrpc_ctx {
    struct config cfg;
    struct db_conn *db;            /* NULL while the database is unreachable */
    struct db_params dbp;
    time_t (*clock)(void);
    char *terms_of_use;            /* terms_of_use_file's text, or NULL */
};

#define WEBRPC_TERMS_MAX 65536     /* bytes of terms_of_use_file */

/* What happened, for the log line and the tests. */
struct webrpc_result {
    int error_num;                 /* 0 or the BOINC error number replied */
    int user_id;                   /* the account created or found, else 0 */
    int created;                   /* 1 when create_account inserted a row */
};

/* Read the config and the terms of use, and connect (a failed
 * connection is retried per request).  Returns 0 or -1 with a reason in
 * err (the config, or a terms_of_use_file that cannot be read or is
 * larger than WEBRPC_TERMS_MAX). */
int webrpc_ctx_init(struct webrpc_ctx *ctx, const char *config_path, char *err, size_t errlen);
void webrpc_ctx_free(struct webrpc_ctx *ctx);

/*
 * Answer RPC kind with the URL-encoded arguments args (len bytes: the
 * query string or the form body) from client address addr (for the rate
 * limit; NULL or "" counts as "unknown").  The reply replaces out's
 * contents.
 */
void webrpc_handle(struct webrpc_ctx *ctx, enum webrpc_kind kind, const char *args, size_t len,
                   const char *addr, struct buf *out, struct webrpc_result *res);

#endif
