SELECT count(*) FROM runs;
DELETE FROM runs;
