/*
 * webrpc_logic.h - the pure decisions of the account web RPCs: which RPC
 * a request path names, whether an account may be created, the checks of
 * secrets in constant time, the rate limit.  No I/O, no database.
 */
#ifndef LOCSCHED_WEBRPC_LOGIC_H
#define LOCSCHED_WEBRPC_LOGIC_H

#include <stddef.h>

#include "account_args.h"
#include "config.h"

enum webrpc_kind {
    WEBRPC_NONE = 0,           /* not one of ours */
    WEBRPC_CONFIG,             /* get_project_config.php */
    WEBRPC_CREATE,             /* create_account.php */
    WEBRPC_LOOKUP              /* lookup_account.php */
};

/* The RPC named by the last component of a request path (SCRIPT_NAME,
 * without the query), or WEBRPC_NONE. */
enum webrpc_kind webrpc_route(const char *path);

/* The name of an RPC, for logs ("create_account"). */
const char *webrpc_name(enum webrpc_kind k);

/*
 * May an account be made before its arguments are read?  Returns 0, or
 * ACCT_ERR_ACCT_CREATION_DISABLED with a message when account_creation is
 * closed.
 */
int webrpc_creation_open(const struct config *cfg, char *msg, size_t msglen);

/*
 * With account_creation = invitation, does the request's invite_code
 * match the configured code (in constant time for codes of equal length)?
 * Returns 0 (or always 0 when creation is open), else
 * ACCT_ERR_ATTACH_FAIL_INIT with a message.
 */
int webrpc_check_invitation(const struct config *cfg, const struct acct_args *a, char *msg,
                            size_t msglen);

/* 1 when the stored password hash (32 hex digits; '' for an account
 * without a password, which never matches) equals the given one,
 * compared in constant time. */
int webrpc_hash_matches(const char *stored, const char *given);

/*
 * The rate-limit key of a client address (REMOTE_ADDR) into out (cap >=
 * 64): an IPv4 address as it is; an IPv6 address as its /64 network
 * ("2001:db8:1:2::/64"), since one subscriber commonly holds a whole /64;
 * an IPv4-mapped IPv6 address as the IPv4 address; anything else
 * ("unknown" when NULL or empty) cut to cap - 1 bytes.
 */
void webrpc_rate_key(const char *addr, char *out, size_t cap);

/* 1 when the count-th request of a window is over limit (0: no limit). */
int webrpc_over_limit(int count, int limit);

#endif
