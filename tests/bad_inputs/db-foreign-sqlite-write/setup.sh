sqlite3 other.db 'CREATE TABLE t(x);'
