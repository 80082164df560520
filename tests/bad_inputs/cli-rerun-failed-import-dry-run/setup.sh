set -e
# an import of a log with no results: recorded as a failed run, whose uuid is the argument
printf 'NCCL version 2.21.5+cuda12.4\n' > log.txt
"$XP" --db "$DB" import nccl-tests log.txt > /dev/null 2>&1 || true
sqlite3 "$DB" "SELECT uuid FROM runs WHERE status = 'failed'" > id
test -s id
