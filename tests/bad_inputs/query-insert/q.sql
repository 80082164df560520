INSERT INTO run_meta(run_id, key, source, value) VALUES (1, 'x', 'declared', 'y');
