-- xp schema 34: which side of a decision each evidence run stands on. "Use NVLink over PCIe"
-- rests on runs of both, and kept as one list xp audit could not tell a newer PCIe run that got
-- faster (the alternative caught up: the decision may no longer hold) from a newer NVLink run
-- that got faster (it bears the decision out). xp decide --evidence A... --over B... records
-- the chosen option's runs as 'chosen' and the alternative's as 'alternative'; evidence given
-- without --over has no row here, as every decision before this schema, and is audited as
-- before. The side is part of the decision's record and digest (cmd_decide.c), written with it.
-- A table of its own, not a column of decision_evidence: IF NOT EXISTS lets a database whose
-- version a user set back migrate again (ALTER TABLE ADD COLUMN has no such form).
CREATE TABLE IF NOT EXISTS decision_evidence_sides (
  decision_id INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  side        TEXT NOT NULL CHECK (side IN ('chosen', 'alternative')),
  PRIMARY KEY (decision_id, seq),
  FOREIGN KEY (decision_id, seq) REFERENCES decision_evidence (decision_id, seq)
) STRICT;
CREATE TRIGGER IF NOT EXISTS xp_decision_evidence_sides_no_update BEFORE UPDATE ON decision_evidence_sides
BEGIN SELECT RAISE(ABORT, 'xp: the evidence of a decision is never edited'); END;
CREATE TRIGGER IF NOT EXISTS xp_decision_evidence_sides_no_delete BEFORE DELETE ON decision_evidence_sides
BEGIN SELECT RAISE(ABORT, 'xp: the evidence of a decision is never edited'); END;
