-- 006-lost-hosts-backups: what batches need to finish fast under churn
-- (doc/locality.md, "Lost hosts and tail replicas").
--
-- host: its rhythm, learned by the scheduler at each request (no extra
-- statement: the host row is written anyway):
--   rpc_gap_avg, rpc_gap_dev  exponentially weighted mean and mean absolute
--                             deviation of the seconds between its RPCs
--   rpc_gap_n                 gaps counted in them (0: not learned yet)
--   avg_turnaround            BOINC's: weighted mean of the seconds from
--                             sending a result to its successful report
--   turnaround_n              successful reports counted in it
--   lost_time                 when the transitioner presumed the host gone
--                             (silent far beyond its rhythm); 0 when not,
--                             and again 0 at its next request
-- ind_host_lost (lost_time, rpc_time): the transitioner's scan for hosts
-- newly silent (those with lost_time 0), without the hosts already
-- presumed gone.
ALTER TABLE host
    ADD COLUMN rpc_gap_avg     DOUBLE NOT NULL DEFAULT 0,
    ADD COLUMN rpc_gap_dev     DOUBLE NOT NULL DEFAULT 0,
    ADD COLUMN rpc_gap_n       INT NOT NULL DEFAULT 0,
    ADD COLUMN avg_turnaround  DOUBLE NOT NULL DEFAULT 0,
    ADD COLUMN turnaround_n    INT NOT NULL DEFAULT 0,
    ADD COLUMN lost_time       INT NOT NULL DEFAULT 0,
    ADD KEY ind_host_lost (lost_time, rpc_time);

-- result.replica_flags, bits:
--   1  a backup (tail replica): an extra result made for a job whose
--      results were all sent, to beat a slow one; it does not count
--      towards the job's replication
--   2  its host was presumed gone while it was in progress: a new result
--      was made for it; it still counts if it comes back in time
ALTER TABLE result
    ADD COLUMN replica_flags TINYINT NOT NULL DEFAULT 0;

-- batch.total_fpops: the flops of its jobs times target_nresults (the
-- budget of backups is a share of it); backup_fpops: the flops of the
-- backups made so far.
ALTER TABLE batch
    ADD COLUMN total_fpops  DOUBLE NOT NULL DEFAULT 0,
    ADD COLUMN backup_fpops DOUBLE NOT NULL DEFAULT 0;

UPDATE batch b
SET b.total_fpops = b.target_nresults *
    COALESCE((SELECT SUM(j.rsc_fpops_est) FROM batch_job j WHERE j.batch_id = b.id), 0);
