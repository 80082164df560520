-- xp schema 8: the chain's head, kept apart from the runs it follows. Removing the newest runs,
-- or decisions, leaves a chain that is whole, only shorter: xp verify compares it with this
-- record. One row, written in the transaction that seals a run, records a decision or merges;
-- a database sealed before schema 8 gets it at its next such write.
CREATE TABLE chain_head (
  id        INTEGER PRIMARY KEY CHECK (id = 1),
  run_seq   INTEGER NOT NULL,   -- the newest link (0: no run sealed yet)
  run_chain TEXT NOT NULL,      -- its chain_sha256
  decisions INTEGER NOT NULL    -- decisions in this database
) STRICT;
CREATE TRIGGER xp_chain_head_delete BEFORE DELETE ON chain_head
BEGIN SELECT RAISE(ABORT, 'the chain head is never deleted'); END;
