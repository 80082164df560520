#!/usr/bin/env bash
# A number the command line or a spec gives wrongly says what was wrong with it: an integer past
# int64 (--set burst=99999999999999999999) was "not an integer", where it is one out of burst's
# range; a spec's burst = "122" was "expected an integer", not that the quotes made it a string;
# "--set burst=5 " (a script's quoting) was "not an integer" for its trailing space, which TOML
# sets aside and so does --set now. --set burst=8.0 is whole, as burst = 8.0 in a spec is, and
# 1.5 no integer in the same words from either. No GPU: --dry-run.
set -u
. "$XP_SRC/tests/lib.sh"
spec="$XP_SRC/experiments/allreduce_burst.toml"
one_line "past int64: out of range, the range said" 2 "<command line>: --set burst: a number past 2\^53 is out of range \[1, 1000000\]$" \
  "$XP" --db "$db" run "$spec" --set burst=99999999999999999999 --dry-run
# past even a double (400 digits, 1e400): out of range the same, where it was "not an integer"
one_line "past a double: out of range" 2 "<command line>: --set burst: a number past 2\^53 is out of range \[1, 1000000\]$" \
  "$XP" --db "$db" run "$spec" --set burst=$(printf '9%.0s' $(seq 400)) --dry-run
one_line "-1e400: out of range" 2 "<command line>: --set burst: a number below -2\^53 is out of range \[1, 1000000\]$" \
  "$XP" --db "$db" run "$spec" --set burst=-1e400 --dry-run
one_line "within int64, out of range" 2 "<command line>: --set burst: 2000000 is out of range \[1, 1000000\]$" \
  "$XP" --db "$db" run "$spec" --set burst=2000000 --dry-run
one_line "two numbers: still none" 2 "<command line>: --set burst: \"5 6\" is not an integer$" \
  "$XP" --db "$db" run "$spec" --set "burst=5 6" --dry-run
"$XP" --db "$db" run "$spec" --set "burst=7 " --dry-run > "$tmp/out" 2> "$tmp/err"
check "a trailing space: read" "0|" "$?|$(cat "$tmp/err")"
check "a trailing space: burst 7" "timing:   burst of 7 collectives per sample" "$(grep -o '^timing:   burst of [0-9]* collectives per sample' "$tmp/out")"
printf 'kind = "nccl_burst"\nburst = "122"\n' > "$tmp/quoted.toml"
one_line "a quoted integer: found a string" 2 'quoted.toml:2: burst: expected an integer, found a string ("122")$' \
  "$XP" --db "$db" run "$tmp/quoted.toml" --dry-run
printf 'kind = "nccl_burst"\nburst = nan\n' > "$tmp/nan.toml"
one_line "nan: found nan" 2 "nan.toml:2: burst: expected an integer, found nan$" "$XP" --db "$db" run "$tmp/nan.toml" --dry-run
printf 'kind = "nccl_burst"\nburst = true\n' > "$tmp/bool.toml"
one_line "a boolean: found true" 2 "bool.toml:2: burst: expected an integer, found true$" "$XP" --db "$db" run "$tmp/bool.toml" --dry-run
printf 'kind = "nccl_burst"\nburst = 1e20\n' > "$tmp/huge.toml"
one_line "1e20: out of range" 2 "huge.toml:2: burst: a number past 2\^53 is out of range \[1, 1000000\]$" \
  "$XP" --db "$db" run "$tmp/huge.toml" --dry-run
# A whole number written as a decimal is an integer on the command line as in a spec file, where
# burst = 8.0 was taken and --set burst=8.0 refused as "not an integer"; a fraction is refused
# alike by both, saying it is one.
printf 'kind = "nccl_burst"\nsizes = [1024]\nburst = 8.0\n' > "$tmp/decimal.toml"
for given in "$tmp/decimal.toml" "$spec --set burst=8.0" "$spec --set burst=8e0"; do
  "$XP" --db "$db" run $given --dry-run > "$tmp/out" 2> "$tmp/err"
  check "whole decimal ($given): read" "0|" "$?|$(cat "$tmp/err")"
  check "whole decimal ($given): burst 8" "timing:   burst of 8 collectives per sample" \
    "$(grep -o '^timing:   burst of [0-9]* collectives per sample' "$tmp/out")"
done
printf 'kind = "nccl_burst"\nburst = 1.5\n' > "$tmp/fraction.toml"
one_line "a spec's fraction" 2 "fraction.toml:2: burst: expected an integer, not a fraction$" \
  "$XP" --db "$db" run "$tmp/fraction.toml" --dry-run
one_line "--set's fraction, in the same words" 2 "<command line>: --set burst: expected an integer, not a fraction$" \
  "$XP" --db "$db" run "$spec" --set burst=1.5 --dry-run
one_line "a list item's fraction" 2 "<command line>: --set sizes\[1\]: expected a size, not a fraction" \
  "$XP" --db "$db" run "$spec" --set sizes=1024,1.5 --dry-run
# xp runs --limit: the same integers, and the same range words
"$XP" --db "$db" import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" > /dev/null 2>&1
"$XP" --db "$db" runs --limit 2.0 > /dev/null 2> "$tmp/err"
check "runs --limit 2.0: taken" "0|" "$?|$(cat "$tmp/err")"
"$XP" --db "$db" runs --limit " 1 " --format csv > "$tmp/out" 2> "$tmp/err"
check "runs --limit ' 1 ' (a script's quoting): spaces set aside, as --set's" "0|2" "$?|$(wc -l < "$tmp/out")"
"$XP" --db "$db" runs --limit 9223372036854775807 > /dev/null 2> "$tmp/err"
check "runs --limit int64's largest: taken" "0|" "$?|$(cat "$tmp/err")"
# past a double written with an exponent, as --set takes it (1e400 was "expected an integer")
for past in 9223372036854775808 1e19 0 "$(printf '9%.0s' $(seq 400))" 1e400 -1e400; do
  one_line "runs --limit ${past:0:24}: out of range" 2 "--limit [0-9e]*.*: out of range \[1, 9223372036854775807\]" \
    "$XP" --db "$db" runs --limit "$past"
done
# The command line's numbers are decimal. C's strtod read --set burst=0x10 as 16 (and 0x1p4, a
# hexadecimal float), where 0b101 and 0o17 were "not an integer": each is refused now, saying why,
# --limit alike; a TOML spec's 0x10 is TOML's integer (its parser reads it), and a table's bare
# value that is no decimal number is text kept as written (env.NCCL_IB_TC=0x60 was set as 96).
for based in 0x10 0x1p4 0x1p5000 -0x5 0b101 0o17; do
  one_line "--set burst=$based: decimal only" 2 "<command line>: --set burst: \"$based\" is not an integer (the command line's numbers are decimal)$" \
    "$XP" --db "$db" run "$spec" --set "burst=$based" --dry-run
done
for based in 0x10 0x1p5000; do
  one_line "runs --limit $based: decimal only" 2 "runs: --limit $based: expected an integer from 1 to 9223372036854775807 (the command line's numbers are decimal)" \
    "$XP" --db "$db" runs --limit $based
done
"$XP" --db "$db" run "$spec" --set env.NCCL_IB_TC=0x60 --dry-run > "$tmp/out" 2> "$tmp/err"
check "env.NCCL_IB_TC=0x60: read" "0|" "$?|$(cat "$tmp/err")"
grep -q "^env: *NCCL_IB_TC=0x60 (--set)" "$tmp/out" || { echo "FAIL: env 0x60 not kept as written: $(grep '^env' "$tmp/out")"; fail=1; }
# a leading zero is no TOML number either: env.NCCL_NTHREADS=0100 went as 100, which NCCL (strtoll
# base 0) reads as 100, not the 64 it reads of the 0100 given
"$XP" --db "$db" run "$spec" --set env.NCCL_NTHREADS=0100 --dry-run > "$tmp/out" 2> "$tmp/err"
check "env.NCCL_NTHREADS=0100: read" "0|" "$?|$(cat "$tmp/err")"
grep -q "^env: *NCCL_NTHREADS=0100 (--set)" "$tmp/out" || { echo "FAIL: env 0100 not kept as written: $(grep '^env' "$tmp/out")"; fail=1; }
# a blank scalar (--set burst=$BURST with BURST unset) was '"" is not an integer', as if a value
# were given: said blank, as a blank list and --limit's empty value are
for kv in "burst=:an integer" "burst= :an integer" "timeout_s=:a number" "verify=:true or false"; do
  one_line "--set ${kv%%:*}: blank" 2 "<command line>: --set ${kv%%=*}: blank (an unset shell variable?): expected ${kv#*:}$" \
    "$XP" --db "$db" run "$spec" --set "${kv%%:*}" --dry-run
done
# an environment variable's value is text for the process, passed as written: TOML's number forms
# made env.NCCL_BUFFSIZE=4e6 "4000000", +5 "5", 1.0 "1" and 1_000 "1000", other text than given
for v in 4e6 +5 1.0 -0 1_000; do
  "$XP" --db "$db" run "$spec" --set "env.NCCL_BUFFSIZE=$v" --dry-run > "$tmp/out" 2> "$tmp/err"
  check "env.NCCL_BUFFSIZE=$v: read" "0|" "$?|$(cat "$tmp/err")"
  grep -q "^env: *NCCL_BUFFSIZE=$v (--set)" "$tmp/out" || { echo "FAIL: env $v not kept as written: $(grep '^env' "$tmp/out")"; fail=1; }
done
printf 'kind = "nccl_burst"\nsizes = [1024]\nburst = 0x10\n' > "$tmp/hex.toml"
"$XP" --db "$db" run "$tmp/hex.toml" --dry-run > "$tmp/out" 2> "$tmp/err"
check "a TOML spec's 0x10: TOML's integer, 16" "0|timing:   burst of 16 collectives per sample" \
  "$?|$(grep -o '^timing:   burst of [0-9]* collectives per sample' "$tmp/out")"
# --set "burst = 5", as a spec's line is written (and --where "tp = 2" is taken): the key was
# "burst ", an unknown key; the spaces around "=" are set aside now, the value's too
"$XP" --db "$db" run "$spec" --set "burst = 5" --dry-run > "$tmp/out" 2> "$tmp/err"
check "burst = 5: read" "0|timing:   burst of 5 collectives per sample" \
  "$?|$(cat "$tmp/err")$(grep -o '^timing:   burst of [0-9]* collectives per sample' "$tmp/out")"
"$XP" --db "$db" run "$spec" --set "env.NCCL_PROTO = Simple" --dry-run > "$tmp/out" 2> "$tmp/err"
check "env.NCCL_PROTO = Simple: read" "0|" "$?|$(cat "$tmp/err")"
grep -q "NCCL_PROTO=Simple (--set)" "$tmp/out" || { echo "FAIL: env.NCCL_PROTO = Simple: $(grep '^env' "$tmp/out")"; fail=1; }
one_line "--set ' = 5': no key" 2 "<command line>: --set =5: expected KEY=VALUE$" "$XP" --db "$db" run "$spec" --set " = 5" --dry-run
one_line "--set 'burst =5' and burst=6: given twice" 2 "run: --set burst=6: given twice (first burst=5)" \
  "$XP" --db "$db" run "$spec" --set "burst =5" --set burst=6 --dry-run
"$XP" --db "$tmp/tp.db" import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" --set "tp = 2" > /dev/null 2> "$tmp/err"
check "import --set 'tp = 2': recorded tp 2" "0|2" "$?|$(sqlite3 "$tmp/tp.db" 'SELECT tp FROM runs')"
check "nothing recorded but the import" 1 "$(sqlite3 "$db" 'SELECT count(*) FROM runs' 2> /dev/null || echo 0)"
finish
