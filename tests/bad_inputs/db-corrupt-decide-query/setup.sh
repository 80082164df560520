set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
# garbage over the samples table's root page only: the runs read, the query's samples do not
page=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_schema WHERE name = 'samples'")
dd if=/dev/urandom of="$DB" bs=4096 seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
