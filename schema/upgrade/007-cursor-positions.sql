-- 007-cursor-positions: each member of a cursor's team works its own
-- stretch of jobs (doc/locality.md, "Positions in the cursor").
--
-- batch_host.stretch_first..stretch_last: the member's stretch, a job
-- range inside its cursor (stretch_first = -1: none yet).  The R
-- replicas of a job go to the R members whose stretches cover it.
--
-- locality_cursor.next_stretch_job_num: the cursor's frontier, the first
-- job that no stretch has been cut from yet; a new stretch starts there.
-- Cursors in progress start their frontier at the first job not
-- generated: the jobs before it are served as stretches that no member
-- covers (the "orphan" rule).
ALTER TABLE batch_host
    ADD COLUMN IF NOT EXISTS stretch_first INT NOT NULL DEFAULT -1,
    ADD COLUMN IF NOT EXISTS stretch_last INT NOT NULL DEFAULT -1;

ALTER TABLE locality_cursor
    ADD COLUMN IF NOT EXISTS next_stretch_job_num INT NOT NULL DEFAULT 0
        AFTER first_ungenerated_job_num;

UPDATE locality_cursor SET next_stretch_job_num = first_ungenerated_job_num;
