-- 017-status: what the daemons say about themselves, for the status page
-- (tools/status_pages, doc/admin-guide.md "Status and batch pages").
--
-- One row per daemon instance: its program name, the host it runs on and
-- its --mod share.  The daemons' skeleton (daemons/daemon.c) writes the
-- row when it starts, after a pass at most every few seconds, and when it
-- stops (stopped = 1).  Times are Unix seconds.  last_pass_time is when
-- the last pass ended, last_items how many items it handled (-1: the pass
-- failed), last_error_time the end of the last failed pass (0: none).
CREATE TABLE IF NOT EXISTS daemon_status (
    name            VARCHAR(64) NOT NULL,
    hostname        VARCHAR(254) NOT NULL,
    mod_n           INT NOT NULL DEFAULT 1,
    mod_i           INT NOT NULL DEFAULT 0,
    pid             INT NOT NULL DEFAULT 0,
    start_time      INT NOT NULL DEFAULT 0,
    last_pass_time  INT NOT NULL DEFAULT 0,
    last_items      BIGINT NOT NULL DEFAULT 0,
    npasses         BIGINT NOT NULL DEFAULT 0,
    sleep_secs      INT NOT NULL DEFAULT 0,
    last_error_time INT NOT NULL DEFAULT 0,
    stopped         TINYINT NOT NULL DEFAULT 0,
    PRIMARY KEY (name, hostname, mod_n, mod_i)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
