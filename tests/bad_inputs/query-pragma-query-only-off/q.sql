PRAGMA query_only = 0;
DELETE FROM runs;
