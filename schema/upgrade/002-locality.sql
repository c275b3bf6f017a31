-- 002-locality: what the locality scheduler, its tools and its daemons
-- need beyond the tables of the redesign (see doc/locality.md).

-- A team member: the host, its user (so that the scheduler can keep the
-- users of a team distinct with one indexed probe), the credit rate that
-- was added to the cursor's expavg_credit when it joined (so that leaving
-- subtracts exactly what joining added), and when it joined (hysteresis).
ALTER TABLE batch_host
    ADD COLUMN userid      INT NOT NULL DEFAULT 0 AFTER cursor_id,
    ADD COLUMN credit_rate DOUBLE NOT NULL DEFAULT 0,
    ADD COLUMN assign_time INT NOT NULL DEFAULT 0,
    DROP KEY ind_bh_cursor,
    ADD KEY ind_bh_cursor_user (cursor_id, userid);

-- The fastest member's credit rate, for the team rule "the fastest host
-- is no faster than the sum of the others".  Kept by the scheduler on
-- join and recomputed by the locality daemon.
ALTER TABLE locality_cursor
    ADD COLUMN max_host_credit DOUBLE NOT NULL DEFAULT 0 AFTER expavg_credit,
    ADD COLUMN update_time INT NOT NULL DEFAULT 0;

-- Job order within a batch (status, the work generator, the transitioner).
ALTER TABLE workunit
    DROP KEY ind_wu_batch,
    ADD KEY ind_wu_batch_job (batch, job_num);
