set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
# a decision on the first run, then garbage over the decisions table's root page only
"$XP" --db "$DB" decide "keep the probe" --because "it is fast" \
  --evidence "$(sqlite3 "$DB" "SELECT uuid FROM runs ORDER BY id LIMIT 1")" > /dev/null
page=$(sqlite3 "$DB" "SELECT rootpage FROM sqlite_schema WHERE name = 'decisions'")
dd if=/dev/urandom of="$DB" bs=4096 seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
