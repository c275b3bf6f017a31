/*
 * account_args.h - parser for the arguments of the account web RPCs
 * (create_account.php and lookup_account.php), as the BOINC client and
 * Manager send them: a URL-encoded query string (GET) or form body (POST).
 *
 * The parser is pure: bytes in memory in, validated fields out.  Every
 * input is hostile: the whole string is capped at ACCT_ARGS_MAX bytes,
 * each field has its own cap, a parameter given twice is refused, percent
 * escapes must be complete, and decoded fields may not hold control bytes.
 * A failure returns the BOINC error number the client shows for it (the
 * ACCT_ERR_* values, from BOINC's lib/error_numbers.h) and a message.
 *
 * Field rules:
 *   email_addr   1..254 bytes, one '@' with a non-empty local part and a
 *                domain holding a '.', no spaces or quotes; lower-cased
 *   passwd_hash  32 hex digits (md5 of the password and the lower-cased
 *                email); lower-cased
 *   user_name    1..254 bytes after trimming spaces, no '<', '>', '&'
 *   invite_code  optional, up to 64 bytes of [A-Za-z0-9_.-]
 */
#ifndef LOCSCHED_ACCOUNT_ARGS_H
#define LOCSCHED_ACCOUNT_ARGS_H

#include <stddef.h>

#define ACCT_ARGS_MAX 4096
#define ACCT_EMAIL_MAX 254
#define ACCT_NAME_MAX 254
#define ACCT_HASH_LEN 32
#define ACCT_INVITE_MAX 64

/* BOINC error numbers used in the account RPC replies. */
enum {
    ACCT_ERR_DB_NOT_FOUND = -136,
    ACCT_ERR_DB_NOT_UNIQUE = -137,
    ACCT_ERR_INVALID_PARAM = -178,
    ACCT_ERR_PROJECT_DOWN = -183,
    ACCT_ERR_BAD_USER_NAME = -188,
    ACCT_ERR_BAD_EMAIL_ADDR = -205,
    ACCT_ERR_BAD_PASSWD = -206,
    ACCT_ERR_NONUNIQUE_EMAIL = -207,
    ACCT_ERR_ACCT_CREATION_DISABLED = -208,
    ACCT_ERR_ATTACH_FAIL_INIT = -209,
    ACCT_ERR_RETRY = -199
};

struct acct_args {
    char email_addr[ACCT_EMAIL_MAX + 1];
    char passwd_hash[ACCT_HASH_LEN + 1];
    char user_name[ACCT_NAME_MAX + 1];
    char invite_code[ACCT_INVITE_MAX + 1];
};

/*
 * Find parameter name in the URL-encoded string q (len bytes) and decode
 * its value into out (cap bytes, NUL-terminated).  Returns the decoded
 * length, -1 when absent, -2 when the value is too long, badly escaped or
 * holds a control byte, -3 when the parameter appears more than once.
 */
int acct_args_get(const char *q, size_t len, const char *name, char *out, size_t cap);

/* Arguments of create_account: email_addr, passwd_hash, user_name,
 * optional invite_code.  Returns 0 or an ACCT_ERR_* number. */
int acct_args_parse_create(const char *q, size_t len, struct acct_args *a,
                           char *err, size_t errlen);

/* Arguments of lookup_account: email_addr and passwd_hash, both required
 * (locsched does not say whether an email is known without the hash).
 * Returns 0 or an ACCT_ERR_* number. */
int acct_args_parse_lookup(const char *q, size_t len, struct acct_args *a,
                           char *err, size_t errlen);

#endif
