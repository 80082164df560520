#!/usr/bin/env bash
# queries/regressions.sql lists a change in a small value: a fixed 0.01 floor on the difference,
# meant for nccl-tests' 2 printed decimals, hid every change below it whatever the unit (a time of
# 0.004 us 25% slower, a busbw of 0.001 GB/s 20% lower). Only a value that reads as printed to 2
# decimals has that rounding; tests/cli/nccl_import.sh keeps a text log's 0.00 against its -J
# 0.000431 no change.
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
need_probe
regressions() { # regressions BASE: three older runs of the probe at BASE, the newest 25% slower
  for s in 1.0 1.02 0.98; do record base="$1" scale=$s > /dev/null; done
  new=$(record base="$1" scale=1.25)
  run query "$XP_SRC/queries/regressions.sql" --format csv; expect_rc 0
}
db="$tmp/small_time.db"
regressions 0.004
grep -F 'op,"{""i"":0}",time,us,'"${new:0:8}," "$tmp/out" | grep -qF ",25,worse," ||
  die "a time of 0.004 us 25% slower: $(cat "$tmp/out")"
db="$tmp/small_busbw.db"
regressions 1000000
grep -F 'op,"{""i"":0}",busbw,GB/s,'"${new:0:8}," "$tmp/out" | grep -qF ",0.0008,0.001,3,-20,worse," ||
  die "a busbw of 0.001 GB/s 20% lower: $(cat "$tmp/out")"
echo "ok: small values' changes listed"
