-- xp schema 27: the results a serving import read, a row each, found again by their digest.
-- xp import vllm-bench leaves out a result an earlier import of another file recorded (vllm
-- bench sweep's summary.json lists its run=N.json files' results again; --append-result adds to a
-- file that holds the earlier ones: importers/vllm_bench/vb_history.c). Each import kept its
-- results' digests as lines of text in run_meta import.vllm_bench.results ("SHA256 +|- K[L]
-- FILE:LINE" each), and every later import scanned every import's text for each of its results.
-- Now they are rows of serve_result_digests, written in the transaction of the run's results,
-- looked up by the digest's index.
--
-- The rows are the run's, as its cases are: sealed with it (xp verify), carried by xp merge. The
-- lines that imports before this schema wrote stay where they are: they are sealed content of
-- their runs (run_meta), which neither moves nor changes without breaking every seal and link
-- after them, and a database of an older schema merged later brings such lines too. The importer
-- reads them as rows of the same form beside the table's (vb_history.c), so that an earlier
-- import is recognised whichever schema recorded it. Imports by an xp before the digests
-- (2b691c4) have none, and none is backfilled: a digest is SHA-256 of the result object as read,
-- printed again unformatted, which the results tables keep only part of (a case's settings and
-- values, not its every key); the files kept whole are zlib-compressed artifacts, which SQL can
-- neither inflate nor parse nor hash; and rows added to a sealed run would break its seal.
-- IF NOT EXISTS: a database whose version a user set back, to migrate it again, keeps its rows.
CREATE TABLE IF NOT EXISTS serve_result_digests (
  run_id   INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq      INTEGER NOT NULL,                           -- the result's place among those read, from 0
  digest   TEXT NOT NULL,                              -- SHA-256 of the result object as read
  recorded INTEGER NOT NULL CHECK (recorded IN (0, 1)), -- 0: read, left out as imported before
  file_no  INTEGER NOT NULL,                           -- its file's place among those given, from 0
  listed   INTEGER NOT NULL CHECK (listed IN (0, 1)),  -- an entry of a list of results (summary.json)
  file     TEXT NOT NULL,                              -- the file's name, without its folder
  line     INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;
CREATE INDEX IF NOT EXISTS serve_result_digests_by_digest ON serve_result_digests (digest);
