set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
# OTHER: this database with a decision on its first run, then garbage over OTHER's runs
# table's root page only: its runs read as none, its decision reads whole
cp "$DB" other.db
"$XP" --db other.db decide "keep the probe" --because "it is fast" \
  --evidence "$(sqlite3 other.db "SELECT uuid FROM runs ORDER BY id LIMIT 1")" > /dev/null
page=$(sqlite3 other.db "SELECT rootpage FROM sqlite_schema WHERE name = 'runs'")
dd if=/dev/urandom of=other.db bs=4096 seek=$((page - 1)) count=1 conv=notrunc 2>/dev/null
