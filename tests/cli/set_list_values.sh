#!/usr/bin/env bash
# A list --set gives as people write one: "sizes=1024, 2048" (a space after the comma, as TOML and
# prose write lists) was refused as '" 2048" is not a size', and "only=lm_head, q_proj" named a
# GEMM " q_proj"; each item's spaces are set aside now, as a scalar's are. A blank list
# (--set sizes=$SIZES with SIZES unset) emptied the spec's sizes and ran on, the experiment changed
# unsaid (allreduce_burst.toml measured 26 sizes, not 27): refused, as a blank name is; [] is the
# empty list, given on purpose. No GPU: --dry-run.
set -u
. "$XP_SRC/tests/lib.sh"
spec="$XP_SRC/experiments/allreduce_burst.toml"
cases() { grep -o '[0-9]* sizes x' "$tmp/out"; }
"$XP" --db "$db" run "$spec" --dry-run --set "sizes=1024, 2048" > "$tmp/out" 2> "$tmp/err"
check "sizes=1024, 2048: read" "0|" "$?|$(cat "$tmp/err")"
"$XP" --db "$db" run "$spec" --dry-run --set "sizes=1024,2048" > "$tmp/want" 2> /dev/null
check "sizes=1024, 2048: as 1024,2048" "$(cat "$tmp/want")" "$(cat "$tmp/out")"
"$XP" --db "$db" run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml" --dry-run --set "only=lm_head, o_proj" > "$tmp/out" 2> "$tmp/err"
check "only=lm_head, o_proj: read" "0|" "$?|$(cat "$tmp/err")"
for blank in "" " "; do
  one_line "sizes='$blank': blank" 2 "<command line>: --set sizes: blank (an unset shell variable?): give a list (1,2 or \[1, 2\]), or \[\] for none$" \
    "$XP" --db "$db" run "$spec" --dry-run --set "sizes=$blank"
done
# an empty item (--set sizes=$A,$B,$C with B unset) was passed over, one size fewer measured unsaid
for list in "1024,,2048:2" "1024, ,2048:2" ",1024:1" "1024,2048,:3"; do
  one_line "sizes=${list%:*}: an empty item" 2 "<command line>: --set sizes: \"${list%:*}\": item ${list##*:} is empty (an unset shell variable?)$" \
    "$XP" --db "$db" run "$spec" --dry-run --set "sizes=${list%:*}"
done
one_line "only=lm_head,,o_proj: an empty item" 2 "<command line>: --set only: \"lm_head,,o_proj\": item 2 is empty (an unset shell variable?)$" \
  "$XP" --db "$db" run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml" --dry-run --set "only=lm_head,,o_proj"
"$XP" --db "$db" run "$spec" --dry-run --set "sizes=[]" > "$tmp/out" 2> "$tmp/err"
check "sizes=[]: the size_range alone" "0|26 sizes x" "$?|$(cases)"
check "nothing recorded" 0 "$(sqlite3 "$db" 'SELECT count(*) FROM runs' 2> /dev/null || echo 0)"
finish
