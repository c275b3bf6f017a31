-- 018-result-stderr-bytes: stderr_out holds bytes, not characters.
--
-- The scheduler keeps at most 4,095 bytes of a result's <stderr_out>
-- (doc/protocol.md), so the column needs 4,096 bytes.  As a
-- VARCHAR(4096) in utf8mb4 it sized MariaDB's row buffer of result for
-- 4,096 characters of 4 bytes: 16 KB, which the server copies and clears
-- for every row it reads or changes (the candidates read, the claim, the
-- report).  As VARBINARY(4096) the buffer is 4 KB.  Counted with
-- callgrind on the prepared statements of the benchmark's locality
-- steady state (doc/load-testing.md, "The row buffer of result"): the
-- candidates read 2.46 to 1.57 million instructions, the claim 1.73 to
-- 1.56, the report 2.76 to 2.25.  TEXT would be smaller still, but a row with a BLOB
-- sends the report UPDATE's buffered rows to an on-disk temporary table
-- (schema 005).  The bytes are the client's, kept as they came.
ALTER TABLE result
    MODIFY stderr_out VARBINARY(4096) NULL;
