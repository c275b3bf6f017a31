/*
 * db_account.c - statements of the account web RPCs (db_account.h).
 */
#include "db_account.h"

#include <string.h>

#include "db_internal.h"
#include "db_slots.h"

enum {
    SLOT_ACCT_BY_EMAIL = SLOT_ACCOUNT_FIRST,
    SLOT_ACCT_BY_EMAIL_LOCK,
    SLOT_ACCT_CREATE,
    SLOT_ACCT_RATE_BUMP,
    SLOT_ACCT_RATE_READ,
    SLOT_ACCT_RATE_EXPIRE,
    SLOT_ACCT_PLATFORMS,
    SLOT_ACCT_END
};
_Static_assert(SLOT_ACCT_END <= SLOT_ACCOUNT_FIRST + 16, "account statement slots stay in 208..223");

int db_account_by_email(struct db_conn *c, const char *email, int lock, struct db_account *a)
{
    static const char sql[] =
        "SELECT id, authenticator, passwd_hash FROM user WHERE email_addr = ?";
    static const char sql_lock[] =
        "SELECT id, authenticator, passwd_hash FROM user WHERE email_addr = ? FOR UPDATE";
    struct db_val p[] = { DBV_STR(email) };
    struct db_val col[] = { DBV_INT(a->id), DBV_BUF(a->authenticator), DBV_BUF(a->passwd_hash) };
    long n = 0;
    int r;
    memset(a, 0, sizeof *a);
    r = db_query(c, lock ? SLOT_ACCT_BY_EMAIL_LOCK : SLOT_ACCT_BY_EMAIL, lock ? sql_lock : sql,
                 p, 1, col, 3, NULL, NULL, &n, "look up an account by email");
    if (r != DB_OK)
        return r;
    return n ? DB_OK : DB_NOTFOUND;
}

int db_account_create(struct db_conn *c, const char *name, const char *email,
                      const char *authenticator, const unsigned char auth_hash[32],
                      const char *passwd_hash, int now, int *id)
{
    static const char sql[] = "INSERT INTO user (create_time, email_addr, name, authenticator, "
                              "auth_hash, passwd_hash) VALUES (?, ?, ?, ?, ?, ?)";
    struct db_val p[] = { DBV_INT(now), DBV_STR(email), DBV_STR(name), DBV_STR(authenticator),
                          DBV_BIN(auth_hash, 32), DBV_STR(passwd_hash) };
    int r = db_exec(c, SLOT_ACCT_CREATE, sql, p, 6, NULL, "create account");
    if (r == DB_OK)
        *id = (int)db_insert_id(c, SLOT_ACCT_CREATE);
    return r;
}

int db_rate_hit(struct db_conn *c, const char *addr, int rpc, int now, int window, int *count)
{
    /* n is assigned before window_start, so it still sees the old window */
    static const char bump[] =
        "INSERT INTO rpc_rate (addr, rpc, window_start, n) VALUES (?, ?, ?, 1) "
        "ON DUPLICATE KEY UPDATE n = IF(window_start + ? <= VALUES(window_start), 1, n + 1), "
        "window_start = IF(window_start + ? <= VALUES(window_start), VALUES(window_start), "
        "window_start)";
    static const char read[] = "SELECT n FROM rpc_rate WHERE addr = ? AND rpc = ?";
    static const char expire[] = "DELETE FROM rpc_rate WHERE window_start < ? LIMIT 16";
    int old = now - 2 * window;
    struct db_val pb[] = { DBV_STR(addr), DBV_INT(rpc), DBV_INT(now), DBV_INT(window),
                           DBV_INT(window) };
    struct db_val pr[] = { DBV_STR(addr), DBV_INT(rpc) };
    struct db_val pe[] = { DBV_INT(old) };
    struct db_val col[] = { DBV_INT(*count) };
    long n = 0;
    int r;
    *count = 0;
    r = db_exec(c, SLOT_ACCT_RATE_BUMP, bump, pb, 5, NULL, "count a request of the address");
    if (r == DB_OK)
        r = db_query(c, SLOT_ACCT_RATE_READ, read, pr, 2, col, 1, NULL, NULL, &n,
                     "read the address's request count");
    if (r == DB_OK && n == 0)
        r = db_fail(c, "read the address's request count", 0, "row missing after the insert");
    if (r == DB_OK)
        r = db_exec(c, SLOT_ACCT_RATE_EXPIRE, expire, pe, 1, NULL, "delete old rate rows");
    return r;
}

struct platforms_ctx {
    char (*names)[DB_ACCOUNT_STR];
    char cur[DB_ACCOUNT_STR];
    int max, n;
};

static int platform_row(void *vctx)
{
    struct platforms_ctx *x = vctx;
    if (x->n >= x->max)
        return 1;
    memcpy(x->names[x->n++], x->cur, sizeof x->cur);
    return 0;
}

int db_app_platforms(struct db_conn *c, char (*names)[DB_ACCOUNT_STR], int max, int *n)
{
    static const char sql[] =
        "SELECT DISTINCT p.name FROM platform p JOIN app_version av ON av.platformid = p.id "
        "JOIN app a ON a.id = av.appid "
        "WHERE av.deprecated = 0 AND p.deprecated = 0 AND a.deprecated = 0 ORDER BY p.name";
    struct platforms_ctx x;
    struct db_val col[] = { DBV_BUF(x.cur) };
    int r;
    memset(&x, 0, sizeof x);
    x.names = names;
    x.max = max;
    r = db_query(c, SLOT_ACCT_PLATFORMS, sql, NULL, 0, col, 1, platform_row, &x, NULL,
                 "list the platforms with apps");
    *n = x.n;
    return r;
}
