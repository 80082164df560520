-- xp schema 11: where in this database's history a decision arrived. A run merged in (xp merge)
-- keeps the dates it was measured and recorded with, which may predate a decision taken here
-- before the merge: xp audit counted the runs since the decision by those dates and left it
-- out, though the decision never saw it. The chain's order is the order in which runs arrived
-- in this database (chain.c: runs recorded here and runs merged in alike are sealed at its
-- end), so a decision keeps the newest link that was here when it arrived, recorded by xp
-- decide or copied by xp merge: every run sealed after that link arrived after the decision.
-- Local to this database, like the links themselves: not part of the decision's digest, and
-- xp merge does not copy it (the copy's insert writes this database's own).
CREATE TABLE decision_arrivals (
  decision_id INTEGER PRIMARY KEY REFERENCES decisions (id),
  run_seq     INTEGER  -- chain_seq of the newest sealed run when it arrived (0: none); NULL:
                       -- the decision is older than schema 11 and where it arrived is unknown
) STRICT;
INSERT INTO decision_arrivals (decision_id, run_seq) SELECT id, NULL FROM decisions;
CREATE TRIGGER xp_decision_arrival AFTER INSERT ON decisions
BEGIN
  INSERT INTO decision_arrivals (decision_id, run_seq) SELECT NEW.id, coalesce(max(chain_seq), 0) FROM runs;
END;
CREATE TRIGGER xp_decision_arrivals_no_update BEFORE UPDATE ON decision_arrivals
BEGIN SELECT RAISE(ABORT, 'xp: where a decision arrived is never edited'); END;
CREATE TRIGGER xp_decision_arrivals_no_delete BEFORE DELETE ON decision_arrivals
BEGIN SELECT RAISE(ABORT, 'xp: where a decision arrived is never edited'); END;
