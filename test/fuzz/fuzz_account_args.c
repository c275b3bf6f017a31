/*
 * fuzz_account_args.c - libFuzzer target of the account web RPC argument
 * parser (sched/wire/account_args.h: create_account and lookup_account).
 *
 * Each input is parsed as both RPCs.  On success every field is
 * terminated, within its cap, free of control bytes, the email holds one
 * '@' and is lower case, the hash is 32 lower-case hex digits and the user
 * name is neither empty nor holds markup; on failure the number is one of
 * the known BOINC errors and the message is one terminated line.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "account_args.h"
#include "fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int known_error(int rc)
{
    return rc == ACCT_ERR_INVALID_PARAM || rc == ACCT_ERR_BAD_EMAIL_ADDR ||
           rc == ACCT_ERR_BAD_PASSWD || rc == ACCT_ERR_BAD_USER_NAME ||
           rc == ACCT_ERR_ATTACH_FAIL_INIT;
}

static int clean(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

static void check(int rc, const struct acct_args *a, const char *err, size_t errlen, int create)
{
    size_t i;
    if (rc != 0) {
        FUZZ_CHECK(known_error(rc));
        FUZZ_CHECK(memchr(err, '\0', errlen) != NULL && err[0] && !strchr(err, '\n'));
        return;
    }
    FUZZ_CHECK(FUZZ_TERMINATED(a->email_addr) && FUZZ_TERMINATED(a->passwd_hash) &&
               FUZZ_TERMINATED(a->user_name) && FUZZ_TERMINATED(a->invite_code));
    FUZZ_CHECK(clean(a->email_addr) && clean(a->user_name) && clean(a->invite_code));
    FUZZ_CHECK(strchr(a->email_addr, '@') && strchr(a->email_addr, '@') == strrchr(a->email_addr, '@'));
    for (i = 0; a->email_addr[i]; i++)
        FUZZ_CHECK(!(a->email_addr[i] >= 'A' && a->email_addr[i] <= 'Z'));
    FUZZ_CHECK(strlen(a->passwd_hash) == ACCT_HASH_LEN &&
               strspn(a->passwd_hash, "0123456789abcdef") == ACCT_HASH_LEN);
    if (create)
        FUZZ_CHECK(a->user_name[0] && a->user_name[0] != ' ' && !strpbrk(a->user_name, "<>&"));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct acct_args a;
    char err[256];
    char *q = malloc(size ? size : 1);
    int rc;

    if (!q)
        return 0;
    memcpy(q, data, size);              /* exact size, no NUL: ASan sees any over-read */
    memset(err, 'x', sizeof err);
    rc = acct_args_parse_create(q, size, &a, err, sizeof err);
    check(rc, &a, err, sizeof err, 1);
    memset(err, 'x', sizeof err);
    rc = acct_args_parse_lookup(q, size, &a, err, sizeof err);
    check(rc, &a, err, sizeof err, 0);
    free(q);
    return 0;
}
