-- 013-finish-line: a batch's projected end, for the finish line in its
-- last stretch (doc/locality.md, "The finish line";
-- sched/policy/finish_line.h).
--
-- batch.finish_eta: when the transitioner last projected it, the time
-- (Unix seconds) the batch is expected to be done; 0 while its rate is
-- not known.  batch.finish_fast_flops: the speed per instance of a fast
-- active host (flops).  The scheduler reads both with the active batches.
--
-- ind_res_batch_state: the transitioner counts a batch's results in
-- progress and its successes (recent ones by received_time) from the
-- index alone.
ALTER TABLE batch
    ADD COLUMN IF NOT EXISTS finish_eta INT NOT NULL DEFAULT 0,
    ADD COLUMN IF NOT EXISTS finish_fast_flops DOUBLE NOT NULL DEFAULT 0;

ALTER TABLE result
    ADD KEY IF NOT EXISTS ind_res_batch_state (batch, server_state, outcome, received_time,
                                         replica_flags);
