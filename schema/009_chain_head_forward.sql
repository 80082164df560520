-- xp schema 9: the chain head only moves forward, and every database has one. Before, a head
-- edited back by one link (with the newest run deleted) read as a whole, shorter chain, and a
-- database sealed before schema 8 had no head until its next write, so a missing head could
-- not be told from a removed one. The head is written here as the chain stands at migration;
-- from schema 9 on, xp verify reports a missing head as a break.
INSERT INTO chain_head (id, run_seq, run_chain, decisions) SELECT 1,
  coalesce((SELECT max(chain_seq) FROM runs), 0),
  coalesce((SELECT chain_sha256 FROM runs WHERE chain_seq = (SELECT max(chain_seq) FROM runs)),
           '0000000000000000000000000000000000000000000000000000000000000000'),
  (SELECT count(*) FROM decisions)
WHERE NOT EXISTS (SELECT 1 FROM chain_head);
CREATE TRIGGER xp_chain_head_forward BEFORE UPDATE ON chain_head
WHEN NEW.run_seq < OLD.run_seq OR NEW.decisions < OLD.decisions OR NEW.id <> OLD.id
BEGIN SELECT RAISE(ABORT, 'the chain head only moves forward'); END;
