/*
 * webrpc_logic.c - pure decisions of the account web RPCs (webrpc_logic.h).
 */
#include "webrpc_logic.h"

#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <string.h>

enum webrpc_kind webrpc_route(const char *path)
{
    const char *base;
    if (!path)
        return WEBRPC_NONE;
    base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strcmp(base, "get_project_config.php") == 0)
        return WEBRPC_CONFIG;
    if (strcmp(base, "create_account.php") == 0)
        return WEBRPC_CREATE;
    if (strcmp(base, "lookup_account.php") == 0)
        return WEBRPC_LOOKUP;
    return WEBRPC_NONE;
}

const char *webrpc_name(enum webrpc_kind k)
{
    switch (k) {
    case WEBRPC_CONFIG:
        return "get_project_config";
    case WEBRPC_CREATE:
        return "create_account";
    case WEBRPC_LOOKUP:
        return "lookup_account";
    default:
        return "unknown";
    }
}

int webrpc_creation_open(const struct config *cfg, char *msg, size_t msglen)
{
    if (cfg->account_creation == ACCOUNT_CREATION_CLOSED) {
        snprintf(msg, msglen, "This project does not accept new accounts.");
        return ACCT_ERR_ACCT_CREATION_DISABLED;
    }
    return 0;
}

int webrpc_check_invitation(const struct config *cfg, const struct acct_args *a, char *msg,
                            size_t msglen)
{
    size_t want, got;
    if (cfg->account_creation != ACCOUNT_CREATION_INVITATION)
        return 0;
    want = strlen(cfg->invitation_code);
    got = strlen(a->invite_code);
    /* the lengths may differ in time; the contents do not */
    if (want == 0 || got != want || CRYPTO_memcmp(cfg->invitation_code, a->invite_code, want)) {
        snprintf(msg, msglen, got ? "Invalid invitation code." :
                 "This project needs an invitation code to create an account.");
        return ACCT_ERR_ATTACH_FAIL_INIT;
    }
    return 0;
}

int webrpc_hash_matches(const char *stored, const char *given)
{
    if (strlen(stored) != ACCT_HASH_LEN || strlen(given) != ACCT_HASH_LEN)
        return 0;
    return CRYPTO_memcmp(stored, given, ACCT_HASH_LEN) == 0;
}

void webrpc_rate_key(const char *addr, char *out, size_t cap)
{
    static const unsigned char v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
    unsigned char a[16];
    char text[INET6_ADDRSTRLEN];

    if (!addr || !addr[0])
        addr = "unknown";
    if (strchr(addr, ':') && inet_pton(AF_INET6, addr, a) == 1) {
        if (memcmp(a, v4mapped, sizeof v4mapped) == 0) {
            if (inet_ntop(AF_INET, a + 12, text, sizeof text)) {
                snprintf(out, cap, "%s", text);
                return;
            }
        } else {
            memset(a + 8, 0, 8);
            if (inet_ntop(AF_INET6, a, text, sizeof text)) {
                snprintf(out, cap, "%s/64", text);
                return;
            }
        }
    }
    snprintf(out, cap, "%s", addr);
}

int webrpc_over_limit(int count, int limit)
{
    return limit > 0 && count > limit;
}
