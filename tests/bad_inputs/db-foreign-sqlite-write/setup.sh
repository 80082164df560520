set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
sqlite3 other.db 'CREATE TABLE t(x);'
