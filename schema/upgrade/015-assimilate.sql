-- 015-assimilate: what the assimilator, the file deleter and db_purge need
-- (doc/admin-guide.md "Outputs: assimilator, file deleter, purge").
--
-- Codes are BOINC's:
--   workunit.assimilate_state: 0 INIT, 1 READY, 2 DONE
--   workunit/result/batch.file_delete_state: 0 INIT, 1 READY, 2 DONE, 3 ERROR
-- A workunit becomes READY to assimilate when it is finished (a canonical
-- result or an error); the transitioner and abort_batch set it, and the
-- assimilator also promotes any finished workunit still INIT.
-- workunit.assimilate_time: when it was assimilated (db_purge's age).
-- batch.file_delete_state: the batch's input files in the download folder
-- (DONE once the file deleter removed them after retire_batch).
ALTER TABLE workunit
    ADD COLUMN assimilate_time INT NOT NULL DEFAULT 0,
    ADD KEY ind_wu_assimilate (assimilate_state, id),
    ADD KEY ind_wu_file_delete (file_delete_state, id);
ALTER TABLE batch
    ADD COLUMN file_delete_state TINYINT NOT NULL DEFAULT 0;
UPDATE workunit SET assimilate_state = 1
    WHERE assimilate_state = 0 AND (canonical_resultid <> 0 OR error_mask <> 0);
