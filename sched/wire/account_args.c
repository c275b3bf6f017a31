/*
 * account_args.c - parse and validate the URL-encoded arguments of the
 * account web RPCs (see account_args.h).  Pure: no I/O.
 */
#include "account_args.h"
#include "text_util.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Decode the value v (n bytes) into out; returns length or -2. */
static int decode(const char *v, size_t n, char *out, size_t cap)
{
    size_t i, o = 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)v[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            int h, l;
            if (i + 2 >= n)
                return -2;
            h = text_hexval(v[i + 1]);
            l = text_hexval(v[i + 2]);
            if (h < 0 || l < 0)
                return -2;
            c = (unsigned char)(h * 16 + l);
            i += 2;
        }
        if (c < 0x20 || c == 0x7f)
            return -2;
        if (o + 1 >= cap)
            return -2;
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return (int)o;
}

int acct_args_get(const char *q, size_t len, const char *name, char *out, size_t cap)
{
    size_t nlen = strlen(name), i = 0;
    int found = -1;
    if (cap == 0)
        return -2;
    out[0] = '\0';
    if (len > ACCT_ARGS_MAX)
        return -2;
    while (i < len) {
        size_t end = i, eq;
        while (end < len && q[end] != '&')
            end++;
        eq = i;
        while (eq < end && q[eq] != '=')
            eq++;
        if (eq - i == nlen && memcmp(q + i, name, nlen) == 0) {
            if (found != -1)
                return -3;
            found = decode(eq < end ? q + eq + 1 : q + end, eq < end ? end - eq - 1 : 0,
                           out, cap);
            if (found < 0)
                return found;
        }
        i = end + 1;
    }
    return found;
}

static int valid_email(const char *e)
{
    const char *at = strchr(e, '@');
    size_t i;
    if (!at || at == e || strchr(at + 1, '@'))
        return 0;
    if (!strchr(at + 1, '.') || at[1] == '.' || e[strlen(e) - 1] == '.')
        return 0;
    for (i = 0; e[i]; i++) {
        unsigned char c = (unsigned char)e[i];
        if (c <= ' ' || c >= 0x7f || strchr("\"'<>&(),;:\\[]", c))
            return 0;
    }
    return 1;
}

/* Read email_addr and passwd_hash into a; returns 0 or ACCT_ERR_*. */
static int parse_credentials(const char *q, size_t len, struct acct_args *a,
                             char *err, size_t errlen)
{
    int n;
    size_t i;
    n = acct_args_get(q, len, "email_addr", a->email_addr, sizeof a->email_addr);
    if (n == -3) {
        snprintf(err, errlen, "email_addr given more than once");
        return ACCT_ERR_INVALID_PARAM;
    }
    if (n <= 0 || !valid_email(a->email_addr)) {
        snprintf(err, errlen, n == -1 ? "email_addr missing" : "invalid email address");
        return ACCT_ERR_BAD_EMAIL_ADDR;
    }
    for (i = 0; a->email_addr[i]; i++)
        a->email_addr[i] = (char)tolower((unsigned char)a->email_addr[i]);
    n = acct_args_get(q, len, "passwd_hash", a->passwd_hash, sizeof a->passwd_hash);
    if (n == -3) {
        snprintf(err, errlen, "passwd_hash given more than once");
        return ACCT_ERR_INVALID_PARAM;
    }
    if (n != ACCT_HASH_LEN) {
        snprintf(err, errlen, n == -1 ? "passwd_hash missing" : "passwd_hash is not 32 hex digits");
        return ACCT_ERR_BAD_PASSWD;
    }
    for (i = 0; i < ACCT_HASH_LEN; i++) {
        if (text_hexval(a->passwd_hash[i]) < 0) {
            snprintf(err, errlen, "passwd_hash is not 32 hex digits");
            return ACCT_ERR_BAD_PASSWD;
        }
        a->passwd_hash[i] = (char)tolower((unsigned char)a->passwd_hash[i]);
    }
    return 0;
}

static int check_size(size_t len, char *err, size_t errlen)
{
    if (len > ACCT_ARGS_MAX) {
        snprintf(err, errlen, "request arguments longer than %d bytes", ACCT_ARGS_MAX);
        return ACCT_ERR_INVALID_PARAM;
    }
    return 0;
}

int acct_args_parse_lookup(const char *q, size_t len, struct acct_args *a,
                           char *err, size_t errlen)
{
    int rc;
    memset(a, 0, sizeof *a);
    if ((rc = check_size(len, err, errlen)) != 0)
        return rc;
    return parse_credentials(q, len, a, err, errlen);
}

int acct_args_parse_create(const char *q, size_t len, struct acct_args *a,
                           char *err, size_t errlen)
{
    char name[ACCT_NAME_MAX + 2];
    size_t b, e, i;
    int n, rc;
    memset(a, 0, sizeof *a);
    if ((rc = check_size(len, err, errlen)) != 0)
        return rc;
    if ((rc = parse_credentials(q, len, a, err, errlen)) != 0)
        return rc;
    n = acct_args_get(q, len, "user_name", name, sizeof name);
    if (n == -3) {
        snprintf(err, errlen, "user_name given more than once");
        return ACCT_ERR_INVALID_PARAM;
    }
    if (n < 0 || n > ACCT_NAME_MAX) {
        snprintf(err, errlen, n == -1 ? "user_name missing" : "invalid user name");
        return ACCT_ERR_BAD_USER_NAME;
    }
    for (b = 0; name[b] == ' '; b++)
        ;
    for (e = (size_t)n; e > b && name[e - 1] == ' '; e--)
        ;
    if (e == b || memchr(name + b, '<', e - b) || memchr(name + b, '>', e - b)
        || memchr(name + b, '&', e - b)) {
        snprintf(err, errlen, e == b ? "user name is empty" : "user name may not hold <, > or &");
        return ACCT_ERR_BAD_USER_NAME;
    }
    memcpy(a->user_name, name + b, e - b);
    a->user_name[e - b] = '\0';
    n = acct_args_get(q, len, "invite_code", a->invite_code, sizeof a->invite_code);
    if (n == -3 || n == -2) {
        snprintf(err, errlen, n == -3 ? "invite_code given more than once" : "invalid invitation code");
        return ACCT_ERR_ATTACH_FAIL_INIT;
    }
    for (i = 0; n > 0 && a->invite_code[i]; i++) {
        unsigned char c = (unsigned char)a->invite_code[i];
        if (!isalnum(c) && c != '_' && c != '.' && c != '-') {
            snprintf(err, errlen, "invalid invitation code");
            return ACCT_ERR_ATTACH_FAIL_INIT;
        }
    }
    return 0;
}
