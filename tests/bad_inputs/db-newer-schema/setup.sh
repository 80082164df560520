set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
sqlite3 "$DB" "PRAGMA user_version = 999"
