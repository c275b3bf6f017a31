-- 014-host-quota: a host's daily job quota, and the validator's index
-- (doc/admin-guide.md "Validation", "A host's daily quota").
--
-- BOINC's host columns, so that administrators' queries carry over:
--   max_results_day    the host's own quota of jobs per CPU per day; 0 is
--                      the project's (locsched.conf daily_result_quota).
--                      An invalid result or a reported error halves it
--                      (at least 1), a valid result doubles it back.
--   nresults_today     jobs sent on the UTC day of the host's last request
--                      (host.rpc_time); the scheduler counts from 0 on a
--                      new day.
--   consecutive_valid  valid results since the last invalid one or error.
--   error_rate         moving average of bad results (weight 1/20).
-- The validator lists workunits by need_validate in id order: the index
-- (need_validate, id) keeps that list from walking the whole table.
ALTER TABLE host
    ADD COLUMN max_results_day INT NOT NULL DEFAULT 0,
    ADD COLUMN nresults_today INT NOT NULL DEFAULT 0,
    ADD COLUMN consecutive_valid INT NOT NULL DEFAULT 0,
    ADD COLUMN error_rate DOUBLE NOT NULL DEFAULT 0;
ALTER TABLE workunit
    ADD KEY ind_wu_need_validate (need_validate, id);
