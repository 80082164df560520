-- xp schema 6: history you can trust. Finished runs are append-only and sealed into a hash
-- chain (harness/chain.c); decisions record what was decided, why, and on which evidence, and
-- are never edited (a new decision supersedes an old one).

-- The seal of a finished run, written once in the transaction that finishes it:
--   content_digests  JSON {table: sha256 of the run's rows in that table}, tables with rows only
--   content_sha256   SHA-256 of content_digests (columns from schema 1)
--   chain_sha256     SHA-256 of the previous link's chain_sha256 and this content_sha256
--   chain_seq        position in this database's chain: 1, 2, ... in sealing order
ALTER TABLE runs ADD COLUMN chain_seq INTEGER;
ALTER TABLE runs ADD COLUMN content_digests TEXT;
CREATE UNIQUE INDEX runs_by_chain ON runs (chain_seq) WHERE chain_seq IS NOT NULL;

-- A finished run (status no longer 'running') cannot change, except that its seal is set
-- once: the recorder updates the status first and seals the run afterwards, in the same
-- transaction. Any other change of any column is refused.
CREATE TRIGGER xp_append_only_runs_update BEFORE UPDATE ON runs
WHEN OLD.status <> 'running' AND NOT (
  OLD.chain_seq IS NULL AND OLD.content_sha256 IS NULL AND OLD.chain_sha256 IS NULL
  AND OLD.content_digests IS NULL AND NEW.chain_seq IS NOT NULL AND NEW.content_sha256 IS NOT NULL
  AND NEW.chain_sha256 IS NOT NULL AND NEW.content_digests IS NOT NULL
  AND NEW.id IS OLD.id AND NEW.uuid IS OLD.uuid AND NEW.kind IS OLD.kind
  AND NEW.origin IS OLD.origin AND NEW.status IS OLD.status AND NEW.error IS OLD.error
  AND NEW.started_at IS OLD.started_at AND NEW.finished_at IS OLD.finished_at
  AND NEW.pid IS OLD.pid AND NEW.host IS OLD.host AND NEW.boot_id IS OLD.boot_id
  AND NEW.spec_json IS OLD.spec_json AND NEW.spec_sha256 IS OLD.spec_sha256
  AND NEW.spec_path IS OLD.spec_path AND NEW.parent_uuid IS OLD.parent_uuid
  AND NEW.model IS OLD.model AND NEW.engine IS OLD.engine AND NEW.tp IS OLD.tp
  AND NEW.ep IS OLD.ep AND NEW.pp IS OLD.pp AND NEW.batch IS OLD.batch
  AND NEW.concurrency IS OLD.concurrency AND NEW.dtype IS OLD.dtype
  AND NEW.quantization IS OLD.quantization AND NEW.interconnect IS OLD.interconnect
  AND NEW.gpu_name IS OLD.gpu_name AND NEW.gpu_count IS OLD.gpu_count
  AND NEW.xp_version IS OLD.xp_version AND NEW.xp_commit IS OLD.xp_commit)
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

CREATE TRIGGER xp_append_only_runs_delete BEFORE DELETE ON runs
WHEN OLD.status <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

-- The rows of a finished run, in the core tables. Tables that later migrations add (traces,
-- kinds' own tables) get the same three triggers from chain.c (xp_history_guard), which finds
-- every table that hangs off runs; the names here follow its template so it skips these.
-- A row whose run no longer exists (the cascade of deleting an unfinished run) is let through:
-- the comparison with NULL is not true.
CREATE TRIGGER xp_append_only_run_meta_insert BEFORE INSERT ON run_meta
WHEN (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_run_meta_update BEFORE UPDATE ON run_meta
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
  OR (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_run_meta_delete BEFORE DELETE ON run_meta
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

CREATE TRIGGER xp_append_only_run_gpus_insert BEFORE INSERT ON run_gpus
WHEN (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_run_gpus_update BEFORE UPDATE ON run_gpus
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
  OR (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_run_gpus_delete BEFORE DELETE ON run_gpus
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

CREATE TRIGGER xp_append_only_cases_insert BEFORE INSERT ON cases
WHEN (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_cases_update BEFORE UPDATE ON cases
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
  OR (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_cases_delete BEFORE DELETE ON cases
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

CREATE TRIGGER xp_append_only_artifacts_insert BEFORE INSERT ON artifacts
WHEN (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_artifacts_update BEFORE UPDATE ON artifacts
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
  OR (SELECT status FROM runs WHERE id = NEW.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_artifacts_delete BEFORE DELETE ON artifacts
WHEN (SELECT status FROM runs WHERE id = OLD.run_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

-- metrics and samples belong to a run through their case.
CREATE TRIGGER xp_append_only_metrics_insert BEFORE INSERT ON metrics
WHEN (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = NEW.case_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_metrics_update BEFORE UPDATE ON metrics
WHEN (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = OLD.case_id) <> 'running'
  OR (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = NEW.case_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_metrics_delete BEFORE DELETE ON metrics
WHEN (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = OLD.case_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

CREATE TRIGGER xp_append_only_samples_insert BEFORE INSERT ON samples
WHEN (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = NEW.case_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_samples_update BEFORE UPDATE ON samples
WHEN (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = OLD.case_id) <> 'running'
  OR (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = NEW.case_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;
CREATE TRIGGER xp_append_only_samples_delete BEFORE DELETE ON samples
WHEN (SELECT r.status FROM cases c JOIN runs r ON r.id = c.run_id WHERE c.id = OLD.case_id) <> 'running'
BEGIN SELECT RAISE(ABORT, 'xp: finished runs are append-only: their results cannot be added to, changed or deleted'); END;

-- Decisions. Evidence runs are named by UUID, which survives xp merge; the run's seal at the
-- moment of the decision is kept beside it. The query's text, parameters and result rows are
-- kept as they were, with the SHA-256 of the result JSON; decision_sha256 covers the whole
-- record (xp verify recomputes it).
CREATE TABLE decisions (
  id                  INTEGER PRIMARY KEY,
  uuid                TEXT NOT NULL UNIQUE,
  title               TEXT NOT NULL CHECK (length(title) > 0),
  rationale           TEXT NOT NULL CHECK (length(rationale) > 0),
  author              TEXT NOT NULL,
  created_at          TEXT NOT NULL,                   -- ISO 8601 UTC
  xp_version          TEXT,
  xp_commit           TEXT,
  supersedes          TEXT REFERENCES decisions (uuid), -- the decision this one replaces
  evidence_count      INTEGER NOT NULL CHECK (evidence_count >= 0),
  query_file          TEXT,
  query_text          TEXT,
  query_params        TEXT CHECK (query_params IS NULL OR json_valid(query_params)),
  query_result        TEXT CHECK (query_result IS NULL OR json_valid(query_result)),
  query_result_sha256 TEXT,
  decision_sha256     TEXT NOT NULL,
  CHECK (evidence_count > 0 OR query_text IS NOT NULL),  -- a decision without evidence is not one
  CHECK ((query_text IS NULL) = (query_result IS NULL))
) STRICT;
CREATE INDEX decisions_by_time ON decisions (created_at);

CREATE TABLE decision_evidence (
  decision_id        INTEGER NOT NULL REFERENCES decisions (id) ON DELETE CASCADE,
  seq                INTEGER NOT NULL,
  run_uuid           TEXT NOT NULL REFERENCES runs (uuid),
  run_content_sha256 TEXT,  -- the run's seal when the decision was recorded
  PRIMARY KEY (decision_id, seq)
) STRICT;
CREATE INDEX decision_evidence_by_run ON decision_evidence (run_uuid);

CREATE TRIGGER xp_decisions_no_update BEFORE UPDATE ON decisions
BEGIN SELECT RAISE(ABORT, 'xp: decisions are never edited; record a new decision that supersedes this one (xp decide --supersedes)'); END;
CREATE TRIGGER xp_decisions_no_delete BEFORE DELETE ON decisions
BEGIN SELECT RAISE(ABORT, 'xp: decisions are never deleted; record a new decision that supersedes this one (xp decide --supersedes)'); END;
CREATE TRIGGER xp_decision_evidence_no_update BEFORE UPDATE ON decision_evidence
BEGIN SELECT RAISE(ABORT, 'xp: the evidence of a decision is never edited'); END;
CREATE TRIGGER xp_decision_evidence_no_delete BEFORE DELETE ON decision_evidence
BEGIN SELECT RAISE(ABORT, 'xp: the evidence of a decision is never edited'); END;
-- Evidence is written with its decision, up to the count the decision declares; none later.
CREATE TRIGGER xp_decision_evidence_closed BEFORE INSERT ON decision_evidence
WHEN (SELECT count(*) FROM decision_evidence WHERE decision_id = NEW.decision_id)
     >= coalesce((SELECT evidence_count FROM decisions WHERE id = NEW.decision_id), 0)
BEGIN SELECT RAISE(ABORT, 'xp: the evidence of a decision is never edited'); END;
