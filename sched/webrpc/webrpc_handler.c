/*
 * webrpc_handler.c - answer one account web RPC (webrpc_handler.h).
 *
 * create_account: checks (project down, creation closed, arguments, the
 * address's rate, invitation code), then one transaction: the email's
 * account is read under a lock; the same email with the same password
 * hash gets its existing key back (a client retrying after a lost
 * reply), another hash -137; else the account is inserted (a duplicate
 * key from a race is -137 too).  lookup_account: the key when the email
 * is known (-136 if not) and the hash matches (-206 if not).  Neither the
 * password hash nor the key is ever logged.
 */
#include "webrpc_handler.h"

#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account_args.h"
#include "account_reply.h"
#include "db_account.h"
#include "log.h"
#include "random_hex.h"

#define MAX_PLATFORMS 64

static time_t default_clock(void)
{
    return time(NULL);
}

/* The whole text of path (at most WEBRPC_TERMS_MAX bytes) into *out. */
static int read_terms(const char *path, char **out, char *err, size_t errlen)
{
    FILE *f = fopen(path, "rb");
    char *text;
    size_t n;

    if (!f) {
        snprintf(err, errlen, "terms_of_use_file %s: %s", path, strerror(errno));
        return -1;
    }
    text = malloc(WEBRPC_TERMS_MAX + 2);
    n = text ? fread(text, 1, WEBRPC_TERMS_MAX + 1, f) : 0;
    fclose(f);
    if (!text || n > WEBRPC_TERMS_MAX) {
        free(text);
        snprintf(err, errlen, "terms_of_use_file %s: %s", path,
                 text ? "larger than 64 KB" : "out of memory");
        return -1;
    }
    text[n] = '\0';
    *out = text;
    return 0;
}

int webrpc_ctx_init(struct webrpc_ctx *ctx, const char *config_path, char *err, size_t errlen)
{
    memset(ctx, 0, sizeof *ctx);
    if (config_load(&ctx->cfg, config_path, err, errlen) < 0)
        return -1;
    if (ctx->cfg.terms_of_use_file[0] &&
        read_terms(ctx->cfg.terms_of_use_file, &ctx->terms_of_use, err, errlen) < 0)
        return -1;
    ctx->clock = default_clock;
    ctx->dbp = (struct db_params){ .host = ctx->cfg.db_host, .user = ctx->cfg.db_user,
                                   .password = ctx->cfg.db_password, .name = ctx->cfg.db_name,
                                   .socket = ctx->cfg.db_socket, .port = ctx->cfg.db_port,
                                   .timeout = ctx->cfg.db_timeout,
                                   .lock_wait_timeout = ctx->cfg.db_lock_wait_timeout,
                                   .retries = ctx->cfg.db_retries, .read_committed = 1 };
    ctx->db = db_open(&ctx->dbp, err, errlen);
    if (!ctx->db)
        log_warn("database not reachable yet: %s", err);
    return 0;
}

void webrpc_ctx_free(struct webrpc_ctx *ctx)
{
    db_close(ctx->db);
    free(ctx->terms_of_use);
    memset(ctx, 0, sizeof *ctx);
}

/* The connection, opened again if it failed before; NULL if it cannot be. */
static struct db_conn *conn(struct webrpc_ctx *ctx)
{
    char err[512];
    if (!ctx->db) {
        ctx->db = db_open(&ctx->dbp, err, sizeof err);
        if (!ctx->db)
            log_warn("database not reachable: %s", err);
    }
    return ctx->db;
}

static void fail(struct buf *out, struct webrpc_result *res, int num, const char *msg)
{
    buf_reset(out);
    account_reply_error(out, num, msg);
    res->error_num = num;
}

struct platforms_tx {
    char (*names)[DB_ACCOUNT_STR];
    int n;
};

static int platforms_body(struct db_conn *c, void *arg)
{
    struct platforms_tx *t = arg;
    return db_app_platforms(c, t->names, MAX_PLATFORMS, &t->n);
}

static void project_config(struct webrpc_ctx *ctx, struct buf *out)
{
    static char names[MAX_PLATFORMS][DB_ACCOUNT_STR];
    const char *ptrs[MAX_PLATFORMS];
    struct project_config_info p;
    struct platforms_tx t = { names, 0 };
    struct db_conn *c = conn(ctx);
    int i;

    /* through db_transaction: a connection the server dropped while the
     * process was idle is opened again */
    if (c && db_transaction(c, "list the platforms with apps", platforms_body, &t) != DB_OK) {
        log_warn("project config without platforms: %s", db_error(c));
        t.n = 0;
    }
    for (i = 0; i < t.n; i++)
        ptrs[i] = names[i];
    memset(&p, 0, sizeof p);
    p.name = ctx->cfg.project_name;
    p.master_url = ctx->cfg.master_url;
    p.min_passwd_length = ctx->cfg.min_passwd_length;
    p.creation_disabled = ctx->cfg.account_creation == ACCOUNT_CREATION_CLOSED;
    p.sched_stopped = config_project_stopped(&ctx->cfg);
    p.min_client_version = ctx->cfg.min_client_version;
    p.terms_of_use = ctx->terms_of_use;
    p.platforms = ptrs;
    p.n_platforms = t.n;
    account_reply_project_config(out, &p);
}

struct rate_tx {
    const char *addr;
    int rpc, now, window, count;
};

static int rate_body(struct db_conn *c, void *arg)
{
    struct rate_tx *t = arg;
    return db_rate_hit(c, t->addr, t->rpc, t->now, t->window, &t->count);
}

/* Count the request; returns 0, or an error number with its message. */
static int rate_check(struct webrpc_ctx *ctx, struct db_conn *c, enum webrpc_kind kind,
                      const char *addr, char *msg, size_t msglen)
{
    char key[64];
    struct rate_tx t = { key, kind == WEBRPC_CREATE ? DB_RATE_CREATE : DB_RATE_LOOKUP,
                         (int)ctx->clock(), ctx->cfg.account_rpc_window, 0 };
    int limit = kind == WEBRPC_CREATE ? ctx->cfg.create_account_limit
                                      : ctx->cfg.lookup_account_limit;
    if (limit <= 0)
        return 0;
    webrpc_rate_key(addr, key, sizeof key);
    if (db_transaction(c, "count the address's requests", rate_body, &t) != DB_OK) {
        log_warn("%s: %s", webrpc_name(kind), db_error(c));
        snprintf(msg, msglen, "The project's database is busy; try again later.");
        return ACCT_ERR_RETRY;
    }
    if (webrpc_over_limit(t.count, limit)) {
        snprintf(msg, msglen, "Too many requests from your address; try again in an hour "
                 "or so.");
        return ACCT_ERR_RETRY;
    }
    return 0;
}

struct create_tx {
    const struct acct_args *a;
    const char *key;
    const unsigned char *key_hash;
    int now;
    int error_num, user_id, created;
    char authenticator[DB_ACCOUNT_STR];
};

static int create_body(struct db_conn *c, void *arg)
{
    struct create_tx *t = arg;
    struct db_account acc;
    int r;

    t->error_num = 0;
    t->user_id = 0;
    t->created = 0;
    r = db_account_by_email(c, t->a->email_addr, 1, &acc);
    if (r == DB_OK) {
        if (!webrpc_hash_matches(acc.passwd_hash, t->a->passwd_hash)) {
            t->error_num = ACCT_ERR_DB_NOT_UNIQUE;
            return DB_ABORT;
        }
        t->user_id = acc.id;
        snprintf(t->authenticator, sizeof t->authenticator, "%s", acc.authenticator);
        return DB_OK;
    }
    if (r != DB_NOTFOUND)
        return r;
    r = db_account_create(c, t->a->user_name, t->a->email_addr, t->key, t->key_hash,
                          t->a->passwd_hash, t->now, &t->user_id);
    if (r == DB_DUP) {
        t->error_num = ACCT_ERR_DB_NOT_UNIQUE;
        return DB_ABORT;
    }
    if (r == DB_OK) {
        t->created = 1;
        snprintf(t->authenticator, sizeof t->authenticator, "%s", t->key);
    }
    return r;
}

static void create_account(struct webrpc_ctx *ctx, struct db_conn *c, const struct acct_args *a,
                           struct buf *out, struct webrpc_result *res)
{
    char key[33];
    unsigned char key_hash[SHA256_DIGEST_LENGTH];
    struct create_tx t;
    int r;

    if (random_hex(key, 16) < 0) {
        fail(out, res, ACCT_ERR_RETRY, "The project could not make an account key; try again.");
        return;
    }
    SHA256((const unsigned char *)key, strlen(key), key_hash);
    memset(&t, 0, sizeof t);
    t.a = a;
    t.key = key;
    t.key_hash = key_hash;
    t.now = (int)ctx->clock();
    r = db_transaction(c, "create an account", create_body, &t);
    if (r == DB_ABORT && t.error_num) {
        fail(out, res, t.error_num, "An account with this email address exists already, with "
             "another password.");
    } else if (r != DB_OK) {
        log_warn("create_account: %s", db_error(c));
        fail(out, res, ACCT_ERR_RETRY, "The project's database is busy; try again later.");
    } else {
        res->user_id = t.user_id;
        res->created = t.created;
        account_reply_authenticator(out, t.authenticator);
    }
    memset(key, 0, sizeof key);
}

struct lookup_tx {
    const char *email;
    struct db_account acc;
    int found;
};

static int lookup_body(struct db_conn *c, void *arg)
{
    struct lookup_tx *t = arg;
    int r = db_account_by_email(c, t->email, 0, &t->acc);
    t->found = r == DB_OK;
    return r == DB_NOTFOUND ? DB_OK : r;
}

static void lookup_account(struct db_conn *c, const struct acct_args *a, struct buf *out,
                           struct webrpc_result *res)
{
    struct lookup_tx t;
    int r;

    memset(&t, 0, sizeof t);
    t.email = a->email_addr;
    r = db_transaction(c, "look up an account", lookup_body, &t);
    if (r != DB_OK) {
        log_warn("lookup_account: %s", db_error(c));
        fail(out, res, ACCT_ERR_RETRY, "The project's database is busy; try again later.");
    } else if (!t.found) {
        fail(out, res, ACCT_ERR_DB_NOT_FOUND, "No account with this email address.");
    } else if (!webrpc_hash_matches(t.acc.passwd_hash, a->passwd_hash)) {
        res->user_id = t.acc.id;
        fail(out, res, ACCT_ERR_BAD_PASSWD, "Wrong password.");
    } else {
        res->user_id = t.acc.id;
        account_reply_authenticator(out, t.acc.authenticator);
    }
    memset(&t, 0, sizeof t);
}

void webrpc_handle(struct webrpc_ctx *ctx, enum webrpc_kind kind, const char *args, size_t len,
                   const char *addr, struct buf *out, struct webrpc_result *res)
{
    struct acct_args a;
    struct db_conn *c;
    char msg[256];
    int r;

    memset(res, 0, sizeof *res);
    buf_reset(out);
    if (kind == WEBRPC_NONE) {
        fail(out, res, ACCT_ERR_INVALID_PARAM, "Unknown request.");
        return;
    }
    if (kind == WEBRPC_CONFIG) {
        project_config(ctx, out);
        return;
    }
    if (!addr || !addr[0])
        addr = "unknown";
    if (config_project_stopped(&ctx->cfg)) {
        fail(out, res, ACCT_ERR_PROJECT_DOWN, "The project is down for maintenance.");
        return;
    }
    if (kind == WEBRPC_CREATE && (r = webrpc_creation_open(&ctx->cfg, msg, sizeof msg)) != 0) {
        fail(out, res, r, msg);
        return;
    }
    r = kind == WEBRPC_CREATE ? acct_args_parse_create(args, len, &a, msg, sizeof msg)
                              : acct_args_parse_lookup(args, len, &a, msg, sizeof msg);
    if (r != 0) {
        fail(out, res, r, msg);
        return;
    }
    c = conn(ctx);
    if (!c) {
        fail(out, res, ACCT_ERR_RETRY, "The project's database is not reachable; try again later.");
        return;
    }
    if ((r = rate_check(ctx, c, kind, addr, msg, sizeof msg)) != 0) {
        fail(out, res, r, msg);
        return;
    }
    if (kind == WEBRPC_CREATE && (r = webrpc_check_invitation(&ctx->cfg, &a, msg, sizeof msg))) {
        fail(out, res, r, msg);
        return;
    }
    if (kind == WEBRPC_CREATE)
        create_account(ctx, c, &a, out, res);
    else
        lookup_account(c, &a, out, res);
    memset(&a, 0, sizeof a);
}
