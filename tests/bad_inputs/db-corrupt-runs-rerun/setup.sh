set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
# the two runs' UUIDs, for the arguments; then garbage over the runs table's root page only
sqlite3 "$DB" "SELECT uuid FROM runs ORDER BY id" > ids
page=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_schema WHERE name = 'runs'")
dd if=/dev/urandom of="$DB" bs=4096 seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
