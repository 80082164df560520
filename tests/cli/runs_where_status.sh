#!/usr/bin/env bash
# --where status=VALUE selects by the status xp runs shows, as --status does, in xp runs and
# xp export alike: xp runs warned "no run has this column or metadata key" of the column it
# prints and listed nothing, and export compared the stored status (a run whose recorder died
# reads "running" there, "incomplete" everywhere else). A status xp never gives is refused, as
# --status refuses it, where it listed nothing.
set -u
. "$XP_SRC/tests/lib.sh"
fixture="$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"
"$XP" --db "$db" import vllm-bench "$fixture" > /dev/null 2>&1
: > "$tmp/empty.txt" # an empty nccl-tests log: a failed run
"$XP" --db "$db" import nccl-tests "$tmp/empty.txt" > /dev/null 2>&1
check "one ok, one failed" "1|1" "$(sql "SELECT sum(status = 'ok') || '|' || sum(status = 'failed') FROM runs")"
"$XP" --db "$db" runs --where status=failed --format csv > "$tmp/out" 2> "$tmp/err"
check "runs --where status=failed: exit, no warning" "0|" "$?|$(cat "$tmp/err")"
check "runs --where status=failed: the failed run" "failed" "$(sed -n 2p "$tmp/out" | cut -d, -f3)"
check "runs --where status=failed: only it" 2 "$(wc -l < "$tmp/out")"
"$XP" --db "$db" export --where status=ok > "$tmp/out.json" 2> "$tmp/err"
check "export --where status=ok: exit" 0 $?
check "export --where status=ok: the ok run, not the failed one" "1|0" \
  "$(grep -c '^			"status":	"ok"' "$tmp/out.json")|$(grep -c '"status":	"failed"' "$tmp/out.json")"
one_line "runs: a status xp never gives" 2 "runs: --where status=finished: no run has this status (statuses: running, ok, failed, aborted, incomplete)" \
  "$XP" --db "$db" runs --where status=finished
one_line "export: a status xp never gives" 2 "export: --where status=done: no run has this status" \
  "$XP" --db "$db" export --where status=done
# a misspelt column (TP, interconect) names the one meant in its warning, in runs and export
for c in runs export; do
  "$XP" --db "$db" $c --where TP=2 > /dev/null 2> "$tmp/err"
  check "$c --where TP=2: the warning names tp" \
    "xp: warning: $c: --where TP: no run has this column or metadata key: did you mean \"tp\"?" "$(cat "$tmp/err")"
  "$XP" --db "$db" $c --where interconect=nvlink > /dev/null 2> "$tmp/err"
  check "$c --where interconect: the warning names interconnect" \
    "xp: warning: $c: --where interconect: no run has this column or metadata key: did you mean \"interconnect\"?" "$(cat "$tmp/err")"
done
finish
