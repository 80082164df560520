#!/usr/bin/env bash
# xp verify while imports finish beside it (a cron's verify, a CI's imports): it read the
# chain's links and then its head in statements apart, so a run sealed between them read as
# "BREAK: chain: the head records link 4, but the chain ends at link 3: runs were removed from
# its end", exit 5, in 17 of 23 verifies beside 40 imports of one nccl-tests log. It now reads
# one snapshot: every verify beside them is intact.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
nccl="$XP_SRC/tests/data/nccl/nccltests_sweep.txt"

"$XP" --db "$db" import nccl-tests "$nccl" > /dev/null 2>&1
check "a first run" 0 $?
(for i in $(seq 1 25); do "$XP" --db "$db" import nccl-tests "$nccl" > /dev/null 2>&1 || echo "import $i failed"; done) \
  > "$tmp/writer" &
writer=$!
verifies=0 broken=0
while kill -0 $writer 2> /dev/null; do
  "$XP" --db "$db" verify --quiet > "$tmp/out" 2> "$tmp/err" || { broken=$((broken + 1)); head -2 "$tmp/out" "$tmp/err"; }
  verifies=$((verifies + 1))
done
wait $writer
check "the imports beside" "" "$(cat "$tmp/writer")"
check "verifies beside the imports that found a break" 0 $broken
[ $verifies -ge 3 ] || echo "note: only $verifies verifies ran beside the imports"
"$XP" --db "$db" verify --quiet
check "verify once they are done" 0 $?
finish
