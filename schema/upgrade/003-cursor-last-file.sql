-- 003-cursor-last-file: the highest file any job of a cursor's range
-- uses, so that the scheduler knows which files a cursor still needs
-- without reading its jobs: [first file of first_unfinished_job_num,
-- last_file_num].  create_batch sets it; cursors made before this upgrade
-- get it from their jobs here.  (IF NOT EXISTS: development databases
-- made between 002 and 003 already have the column.)
ALTER TABLE locality_cursor
    ADD COLUMN IF NOT EXISTS last_file_num INT NOT NULL DEFAULT 0 AFTER last_job_num;

UPDATE locality_cursor c
SET c.last_file_num = COALESCE((SELECT MAX(j.first_file_num + j.nfiles - 1)
                                FROM batch_job j
                                WHERE j.batch_id = c.batch_id
                                  AND j.job_num BETWEEN c.first_job_num AND c.last_job_num
                                  AND j.nfiles > 0), 0);
