#!/usr/bin/env bash
# queries/bottleneck_by_config.sql's "latest" run of a configuration is the one recorded last, as
# xp report's bars take it, also where one trace has an absolute clock and another is dated by its
# import on the same day. The two dates were compared as text, "2026-12-04 23:59:00" (the clock)
# against "2026-12-04T21:10:00.000Z" (the import): ' ' sorts before 'T', so on one day the
# import-dated run was always the later, whatever the hours said. latest_at now spells both as
# ISO 8601 with 'T' and 'Z', as xp stores run times, so a sorted CSV column sorts by time too.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
src="$XP_SRC/tests/data/trace/variants/early_launch.json"
# a job whose clock says five minutes from now, then one with no absolute clock, imported now
later=$(( $(date -u +%s) + 300 ))
sed "s/\"baseTimeNanoseconds\": 1700000000000000000/\"baseTimeNanoseconds\": ${later}000000000/" "$src" > "$tmp/clock.json"
sed 's/"baseTimeNanoseconds": 1700000000000000000/"baseTimeNanoseconds": 0/' "$src" > "$tmp/relative.json"
cmp -s "$tmp/clock.json" "$src" && die "the copy kept its clock"
run import torch-trace "$tmp/clock.json" --set model=M --set tp=1 --set batch=1; expect_rc 0
run import torch-trace "$tmp/relative.json" --set model=M --set tp=1 --set batch=1; expect_rc 0
[ "$(date -u -d "@$later" +%F)" = "$(date -u +%F)" ] || { echo "skipped: the two dates fall on two days"; exit 77; }
"$XP" --db "$db" query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv | tail -n +2 |
  awk -F, '{ print $9 "|" $10 }' | sort -u > "$tmp/q" # latest_at|runs
check "the clock's run is the latest of the two" "$(date -u -d "@$later" '+%FT%TZ')|2" "$(cat "$tmp/q")"
# latest_at is spelled one way, whichever run is the latest: the import-dated one alone as its
# time is stored (xp runs, run_measured), the clock's as ISO 8601 with 'T' and 'Z' too
"$XP" --db "$tmp/relative.db" import torch-trace "$tmp/relative.json" --set model=M --set tp=1 --set batch=1 > /dev/null 2>&1 ||
  die "importing the relative trace alone"
"$XP" --db "$tmp/relative.db" query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv | tail -n +2 |
  awk -F, '{ print $9 }' | sort -u > "$tmp/rel"
grep -qx '....-..-..T..:..:..\.[0-9]*Z' "$tmp/rel" || die "import-dated latest_at: $(cat "$tmp/rel")"
finish
