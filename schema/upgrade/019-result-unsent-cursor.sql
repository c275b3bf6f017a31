-- 019-result-unsent-cursor: a report no longer moves an entry of the
-- candidates' index.
--
-- The candidates (plain and by cursor), the stretch pass and the work
-- generator's count read a cursor's unsent results in job order.  Their
-- index was (cursor_id, server_state, job_num): every claim (UNSENT to
-- IN_PROGRESS) and every report (IN_PROGRESS to OVER) moved the result's
-- entry in it, although only unsent results are ever looked for there.
-- unsent_cursor is the result's cursor while it is unsent, NULL after;
-- the claim moves the entry once, into the NULL part, and a report leaves
-- it there.  The column is STORED, so that InnoDB's purge of the index
-- does not compute it.  Counted with callgrind on the prepared statements
-- (tools/loadtest/stmt_cost; doc/load-testing.md, "Session 16"): the
-- claim 1.93 to 1.77 million instructions, the report 2.60 to 2.46; in
-- the benchmark's plain steady state the redo log written per request
-- fell from 17 KB to 10.5 KB.
--
-- Adding a stored column rebuilds the table (MariaDB copies it; about
-- 1.5 s per 100,000 results).  The programs of before this upgrade name
-- the dropped index and fail to read unsent results until they are
-- replaced (doc/admin-guide.md, "Upgrades").
ALTER TABLE result
    ADD COLUMN IF NOT EXISTS unsent_cursor INT AS (IF(server_state = 2, cursor_id, NULL)) STORED,
    ADD KEY IF NOT EXISTS ind_res_unsent (unsent_cursor, job_num),
    DROP KEY IF EXISTS ind_res_cursor_unsent;
