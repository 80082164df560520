set -e # a missing tool (sqlite3 on a bare GPU host) stops here with 127: skipped, not failed
# the kernel category rules saved (their text spans overflow pages), then the first overflow
# page's link to the next (its first 4 bytes) pointed at page 0xffffff00, past the file's end
"$XP" --db "$DB" reclassify > /dev/null
page=$(sqlite3 "$DB" "SELECT min(pageno) FROM dbstat WHERE name = 'trace_rule_set' AND pagetype = 'overflow'")
[ -n "$page" ] || { echo "no overflow page (this sqlite3 lacks dbstat?)"; exit 77; }
printf '\377\377\377\000' | dd of="$DB" bs=1 seek=$(( (page - 1) * 4096 )) count=4 conv=notrunc 2>/dev/null
