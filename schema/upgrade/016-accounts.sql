-- 016-accounts: what the account web RPCs need (sched/webrpc,
-- doc/protocol.md "Account web RPCs", doc/admin-guide.md "Volunteers
-- join").
--
-- user.passwd_hash is BOINC's column: the md5, in 32 lower-case hex
-- digits, of the password followed by the lower-cased email address, as
-- the BOINC client computes it before it sends anything.  '' means the
-- account has no password (made by create_account without --passwd-hash):
-- lookup_account never matches it.
ALTER TABLE user ADD COLUMN IF NOT EXISTS passwd_hash VARCHAR(254) NOT NULL DEFAULT '';

-- The per-address rate limit of create_account and lookup_account: one
-- row per client address and RPC (rpc 1: create_account, 2:
-- lookup_account), counting the requests n since window_start (Unix
-- seconds); a request after the window starts a new one.  Rows of
-- windows long past are deleted by the RPC program as it goes.
CREATE TABLE IF NOT EXISTS rpc_rate (
    addr            VARCHAR(64) NOT NULL,
    rpc             TINYINT NOT NULL,
    window_start    INT NOT NULL,
    n               INT NOT NULL,
    PRIMARY KEY (addr, rpc),
    KEY ind_rpc_rate_window (window_start)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
