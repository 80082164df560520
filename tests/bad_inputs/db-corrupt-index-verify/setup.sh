set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
# garbage over the root page of one index of the runs table, the table itself whole
page=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_schema WHERE name = 'runs_by_time'")
dd if=/dev/urandom of="$DB" bs=4096 seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
