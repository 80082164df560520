WITH doomed AS (SELECT id FROM runs) DELETE FROM runs WHERE id IN doomed;
