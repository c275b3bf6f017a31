/*
 * test_webrpc_logic.c - tests of the pure decisions of the account web
 * RPCs (webrpc_logic.h): the routes, creation open/closed/by invitation,
 * the password hash comparison, the rate limit; and random_hex, which
 * makes the account keys.
 */
#include <string.h>

#include "config.h"
#include "random_hex.h"
#include "tap.h"
#include "webrpc_logic.h"

#define HASH "0123456789abcdef0123456789abcdef"

int main(void)
{
    struct config cfg;
    struct acct_args a;
    char msg[256], k1[33], k2[33], big[130], key[64];
    size_t i;

    TAP_EQ_INT(webrpc_route("/get_project_config.php"), WEBRPC_CONFIG, "route: project config");
    TAP_EQ_INT(webrpc_route("/create_account.php"), WEBRPC_CREATE, "route: create");
    TAP_EQ_INT(webrpc_route("/boinc/lookup_account.php"), WEBRPC_LOOKUP,
               "route: lookup under a master URL with a path");
    TAP_EQ_INT(webrpc_route("/lookup_account.phpx"), WEBRPC_NONE, "route: another name");
    TAP_EQ_INT(webrpc_route("/create_account"), WEBRPC_NONE, "route: without .php");
    TAP_EQ_INT(webrpc_route(""), WEBRPC_NONE, "route: empty");
    TAP_EQ_INT(webrpc_route(NULL), WEBRPC_NONE, "route: none");
    TAP_EQ_STR(webrpc_name(WEBRPC_CREATE), "create_account", "name of an RPC");

    config_defaults(&cfg);
    memset(&a, 0, sizeof a);
    TAP_EQ_INT(cfg.account_creation, ACCOUNT_CREATION_OPEN, "creation is open by default");
    TAP_EQ_INT(webrpc_creation_open(&cfg, msg, sizeof msg), 0, "open: may create");
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), 0, "open: no code needed");
    cfg.account_creation = ACCOUNT_CREATION_CLOSED;
    TAP_EQ_INT(webrpc_creation_open(&cfg, msg, sizeof msg), -208, "closed: -208");
    TAP_CHECK(msg[0] != '\0', "closed: a message");
    cfg.account_creation = ACCOUNT_CREATION_INVITATION;
    strcpy(cfg.invitation_code, "Join-2026");
    TAP_EQ_INT(webrpc_creation_open(&cfg, msg, sizeof msg), 0, "invitation: may try");
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), -209, "invitation: no code");
    strcpy(a.invite_code, "Join-2027");
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), -209, "invitation: wrong code");
    strcpy(a.invite_code, "join-2026");
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), -209,
               "invitation: the code is case-sensitive");
    strcpy(a.invite_code, "Join-202");
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), -209, "invitation: a prefix");
    strcpy(a.invite_code, "Join-20266");
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), -209, "invitation: longer");
    strcpy(a.invite_code, "Join-2026");
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), 0, "invitation: the code");
    cfg.invitation_code[0] = '\0';
    TAP_EQ_INT(webrpc_check_invitation(&cfg, &a, msg, sizeof msg), -209,
               "invitation without a configured code: nobody");

    TAP_EQ_INT(webrpc_hash_matches(HASH, HASH), 1, "hash: equal");
    TAP_EQ_INT(webrpc_hash_matches(HASH, "0123456789abcdef0123456789abcdee"), 0, "hash: last digit");
    TAP_EQ_INT(webrpc_hash_matches("", HASH), 0, "hash: an account without a password");
    TAP_EQ_INT(webrpc_hash_matches("", ""), 0, "hash: two empty ones do not match");
    TAP_EQ_INT(webrpc_hash_matches(HASH "0", HASH "0"), 0, "hash: 33 digits never match");

    TAP_EQ_INT(webrpc_over_limit(5, 5), 0, "limit: the 5th of 5 is answered");
    TAP_EQ_INT(webrpc_over_limit(6, 5), 1, "limit: the 6th is refused");
    TAP_EQ_INT(webrpc_over_limit(1000000, 0), 0, "limit 0: none");

    webrpc_rate_key("192.0.2.7", key, sizeof key);
    TAP_EQ_STR(key, "192.0.2.7", "rate key: an IPv4 address as it is");
    webrpc_rate_key("2001:db8:1:2:aaaa:bbbb:cccc:dddd", key, sizeof key);
    TAP_EQ_STR(key, "2001:db8:1:2::/64", "rate key: an IPv6 address's /64");
    webrpc_rate_key("2001:db8:1:2::9", key, sizeof key);
    TAP_EQ_STR(key, "2001:db8:1:2::/64", "rate key: another address of the same /64");
    webrpc_rate_key("2001:db8:1:3::9", key, sizeof key);
    TAP_EQ_STR(key, "2001:db8:1:3::/64", "rate key: the next /64 is another key");
    webrpc_rate_key("::ffff:192.0.2.7", key, sizeof key);
    TAP_EQ_STR(key, "192.0.2.7", "rate key: an IPv4-mapped address as IPv4");
    webrpc_rate_key("::1", key, sizeof key);
    TAP_EQ_STR(key, "::/64", "rate key: IPv6 loopback");
    webrpc_rate_key(NULL, key, sizeof key);
    TAP_EQ_STR(key, "unknown", "rate key: no address");
    webrpc_rate_key("not:an:address", key, sizeof key);
    TAP_EQ_STR(key, "not:an:address", "rate key: not an address, as it is");
    memset(big, 'x', 100);
    big[100] = '\0';
    webrpc_rate_key(big, key, sizeof key);
    TAP_EQ_INT((long long)strlen(key), 63, "rate key: cut to 63 bytes (rpc_rate.addr is 64)");

    TAP_EQ_INT(random_hex(k1, 16), 0, "random_hex: 16 bytes");
    TAP_EQ_INT(random_hex(k2, 16), 0, "random_hex: again");
    TAP_EQ_INT((long long)strlen(k1), 32, "random_hex: 32 digits");
    TAP_EQ_INT((long long)strspn(k1, "0123456789abcdef"), 32, "random_hex: lower-case hex");
    TAP_CHECK(strcmp(k1, k2) != 0, "random_hex: two keys differ");
    TAP_EQ_INT(random_hex(big, 64), 0, "random_hex: 64 bytes, the most");
    TAP_EQ_INT(random_hex(big, 65), -1, "random_hex: 65 bytes refused");
    for (i = 0; i < sizeof k1; i++)
        k1[i] = 0;
    return tap_done();
}
