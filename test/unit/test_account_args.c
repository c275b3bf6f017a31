/*
 * test_account_args.c - tests of the account web RPC argument parser
 * (account_args.h): the arguments the BOINC client sends, percent and
 * '+' decoding, every field's rules and caps at the limit and one past
 * it, repeated and truncated parameters, and the BOINC error numbers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "account_args.h"
#include "tap.h"

#define HASH "0123456789abcdef0123456789ABCDEF"

static char err[256];

static int create(const char *q, struct acct_args *a)
{
    err[0] = '\0';
    return acct_args_parse_create(q, strlen(q), a, err, sizeof err);
}

static int lookup(const char *q, struct acct_args *a)
{
    err[0] = '\0';
    return acct_args_parse_lookup(q, strlen(q), a, err, sizeof err);
}

/* A create request ending in a field of max bytes is accepted; one byte
 * more is refused with error over. */
static void field_cap(const char *prefix, int max, int over, const char *what)
{
    static char q[ACCT_ARGS_MAX];
    struct acct_args a;
    size_t n = strlen(prefix);
    memcpy(q, prefix, n);
    memset(q + n, 'c', (size_t)max + 1);
    q[n + (size_t)max] = '\0';
    TAP_EQ_INT(create(q, &a), 0, "%s of %d bytes", what, max);
    q[n + (size_t)max] = 'c';
    q[n + (size_t)max + 1] = '\0';
    TAP_EQ_INT(create(q, &a), over, "%s of %d bytes", what, max + 1);
}

int main(void)
{
    struct acct_args a;
    char big[ACCT_ARGS_MAX + 64], out[16];
    int i;

    /* what the client sends */
    TAP_EQ_INT(create("email_addr=Ann%40Example.org&passwd_hash=" HASH
                      "&user_name=Ann+Smith&team_name=", &a), 0, "create: client arguments");
    TAP_EQ_STR(a.email_addr, "ann@example.org", "email lower-cased and decoded");
    TAP_EQ_STR(a.passwd_hash, "0123456789abcdef0123456789abcdef", "hash lower-cased");
    TAP_EQ_STR(a.user_name, "Ann Smith", "'+' decodes to a space");
    TAP_EQ_STR(a.invite_code, "", "no invitation code");
    TAP_EQ_INT(create("user_name=%20%20Bo%20&invite_code=abc-1.2_X&passwd_hash=" HASH
                      "&email_addr=b@c.de", &a), 0, "any order, invite code");
    TAP_EQ_STR(a.user_name, "Bo", "user name trimmed");
    TAP_EQ_STR(a.invite_code, "abc-1.2_X", "invitation code kept");
    TAP_EQ_INT(lookup("email_addr=b%40c.de&passwd_hash=" HASH, &a), 0, "lookup: client arguments");
    TAP_EQ_STR(a.email_addr, "b@c.de", "lookup email");

    /* email */
    TAP_EQ_INT(lookup("passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "email missing");
    TAP_CHECK(strstr(err, "email_addr missing") != NULL, "message names the field: %s", err);
    TAP_EQ_INT(lookup("email_addr=&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "email empty");
    TAP_EQ_INT(lookup("email_addr=a@b&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "no dot in domain");
    TAP_EQ_INT(lookup("email_addr=@b.c&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "empty local part");
    TAP_EQ_INT(lookup("email_addr=a@b@c.d&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "two @");
    TAP_EQ_INT(lookup("email_addr=a+b@c.d&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "space (from +)");
    TAP_EQ_INT(lookup("email_addr=a%3Cb@c.d&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "'<'");
    TAP_EQ_INT(lookup("email_addr=a%0Ab@c.d&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "newline");
    TAP_EQ_INT(lookup("email_addr=a%00b@c.d&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "NUL byte");
    TAP_EQ_INT(lookup("email_addr=a%4@c.d&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "bad escape");
    TAP_EQ_INT(lookup("email_addr=a@c.d%4&passwd_hash=" HASH, &a), ACCT_ERR_BAD_EMAIL_ADDR, "truncated escape");
    TAP_EQ_INT(lookup("email_addr=a@c.d&email_addr=x@y.z&passwd_hash=" HASH, &a),
               ACCT_ERR_INVALID_PARAM, "email twice");
    /* 254 bytes accepted, 255 refused */
    strcpy(big, "email_addr=");
    for (i = 0; i < 250; i++)
        strcat(big, "a");
    strcat(big, "@b.c&passwd_hash=" HASH);
    TAP_EQ_INT(lookup(big, &a), 0, "email of 254 bytes");
    strcpy(big, "email_addr=a");
    for (i = 0; i < 250; i++)
        strcat(big, "a");
    strcat(big, "@b.c&passwd_hash=" HASH);
    TAP_EQ_INT(lookup(big, &a), ACCT_ERR_BAD_EMAIL_ADDR, "email of 255 bytes");

    /* password hash */
    TAP_EQ_INT(lookup("email_addr=a@b.c", &a), ACCT_ERR_BAD_PASSWD, "hash missing");
    TAP_EQ_INT(lookup("email_addr=a@b.c&passwd_hash=0123", &a), ACCT_ERR_BAD_PASSWD, "hash short");
    TAP_EQ_INT(lookup("email_addr=a@b.c&passwd_hash=" HASH "0", &a), ACCT_ERR_BAD_PASSWD, "hash long");
    TAP_EQ_INT(lookup("email_addr=a@b.c&passwd_hash=g123456789abcdef0123456789abcdef", &a),
               ACCT_ERR_BAD_PASSWD, "hash not hex");
    TAP_EQ_INT(lookup("email_addr=a@b.c&passwd_hash=" HASH "&passwd_hash=" HASH, &a),
               ACCT_ERR_INVALID_PARAM, "hash twice");

    /* user name */
    TAP_EQ_INT(create("email_addr=a@b.c&passwd_hash=" HASH, &a), ACCT_ERR_BAD_USER_NAME, "name missing");
    TAP_EQ_INT(create("email_addr=a@b.c&passwd_hash=" HASH "&user_name=++", &a),
               ACCT_ERR_BAD_USER_NAME, "name only spaces");
    TAP_EQ_INT(create("email_addr=a@b.c&passwd_hash=" HASH "&user_name=%3Cb%3E", &a),
               ACCT_ERR_BAD_USER_NAME, "name with markup");
    TAP_EQ_INT(create("email_addr=a@b.c&passwd_hash=" HASH "&user_name=a%26b", &a),
               ACCT_ERR_BAD_USER_NAME, "name with &");
    TAP_EQ_INT(create("email_addr=a@b.c&passwd_hash=" HASH "&user_name=a%09b", &a),
               ACCT_ERR_BAD_USER_NAME, "name with a tab");
    TAP_EQ_INT(create("email_addr=a@b.c&passwd_hash=" HASH "&user_name=J%C3%BCrgen", &a), 0,
               "UTF-8 name");
    TAP_EQ_STR(a.user_name, "J\xc3\xbcrgen", "UTF-8 name kept");
    field_cap("email_addr=a@b.c&passwd_hash=" HASH "&user_name=", ACCT_NAME_MAX,
              ACCT_ERR_BAD_USER_NAME, "user name");

    /* invitation code */
    TAP_EQ_INT(create("email_addr=a@b.c&passwd_hash=" HASH "&user_name=x&invite_code=a%20b", &a),
               ACCT_ERR_ATTACH_FAIL_INIT, "invite code with a space");
    field_cap("email_addr=a@b.c&passwd_hash=" HASH "&user_name=x&invite_code=", ACCT_INVITE_MAX,
              ACCT_ERR_ATTACH_FAIL_INIT, "invitation code");

    /* whole-string cap */
    strcpy(big, "email_addr=a@b.c&passwd_hash=" HASH "&user_name=x&pad=");
    while (strlen(big) < ACCT_ARGS_MAX)
        strcat(big, "p");
    TAP_EQ_INT(create(big, &a), 0, "arguments of exactly the cap");
    strcat(big, "p");
    TAP_EQ_INT(create(big, &a), ACCT_ERR_INVALID_PARAM, "arguments one byte over the cap");
    TAP_EQ_INT(lookup(big, &a), ACCT_ERR_INVALID_PARAM, "lookup over the cap");

    /* the getter alone */
    TAP_EQ_INT(acct_args_get("x=1&y", 5, "y", out, sizeof out), 0, "parameter without '='");
    TAP_EQ_INT(acct_args_get("x=1", 3, "y", out, sizeof out), -1, "absent parameter");
    TAP_EQ_INT(acct_args_get("x=1", 3, "x=", out, sizeof out), -1, "name holding '='");
    TAP_EQ_INT(acct_args_get("x=0123456789abcdef", 18, "x", out, sizeof out), -2, "value over cap");
    TAP_EQ_INT(acct_args_get("x=1&x=2", 7, "x", out, sizeof out), -3, "repeated parameter");
    TAP_EQ_INT(acct_args_get("x=%41%62", 8, "x", out, sizeof out), 2, "escapes decoded");
    TAP_EQ_STR(out, "Ab", "decoded value");
    TAP_EQ_INT(acct_args_get("x=1&x=2", 3, "x", out, sizeof out), 1, "length bounds the scan");

    /* every prefix of a valid request: no crash, and never accepted with a cut field */
    {
        const char *q = "email_addr=ann%40example.org&passwd_hash=" HASH "&user_name=Ann";
        size_t n = strlen(q), k;
        int bad = 0;
        for (k = 0; k < n - 2; k++) { /* up to an empty user_name */
            char *p = malloc(k + 1);
            memcpy(p, q, k);
            p[k] = '\0';
            if (acct_args_parse_create(p, k, &a, err, sizeof err) == 0)
                bad++;
            free(p);
        }
        TAP_EQ_INT(bad, 0, "no prefix cutting a field short is accepted");
    }
    return tap_done();
}
