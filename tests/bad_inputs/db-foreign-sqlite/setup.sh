sqlite3 other.db 'CREATE TABLE t(x); INSERT INTO t VALUES (1);' && cp other.db other.orig
