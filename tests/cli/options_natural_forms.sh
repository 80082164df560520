#!/usr/bin/env bash
# Options written as people write them elsewhere: --where "tp = 2" (SQL's spaces) selects as
# tp=2 does, where it matched nothing under a key "tp " and a value " 2"; another comparison
# (tp>=2, tp==2, tp!=2) is refused showing the form taken, where it selected nothing. A fixed
# choice (--format, --status, --kind, an import's format, a help topic's kind) is taken in any
# case (--format CSV, --kind Serve_Bench were refused), and a misspelt one names the choice meant.
set -u
. "$XP_SRC/tests/lib.sh"
"$XP" --db "$db" import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" --set tp=2 > /dev/null 2>&1
"$XP" --db "$db" runs --where tp=2 --format csv > "$tmp/want" 2> /dev/null
check "runs --where tp=2: the run" 2 "$(wc -l < "$tmp/want")"
for c in runs export; do
  for w in "tp = 2" " tp=2 " "tp =2" "tp= 2"; do
    "$XP" --db "$db" $c --where "$w" > "$tmp/out" 2> "$tmp/err"
    check "$c --where '$w': exit, nothing said" "0|" "$?|$(cat "$tmp/err")"
    [ $c = runs ] && check "runs --where '$w': the run, as tp=2" "$(cat "$tmp/want")" \
      "$("$XP" --db "$db" runs --where "$w" --format csv)"
    [ $c = export ] && check "export --where '$w': the run" 1 "$(grep -c '"uuid":' "$tmp/out")"
  done
  for w in "tp>=2" "tp==2" "tp != 2" "tp<2"; do
    one_line "$c --where '$w'" 2 "$c: --where $w: only KEY=VALUE selects (tp=2); xp query compares otherwise" \
      "$XP" --db "$db" $c --where "$w"
  done
  one_line "$c --where 'tp 2'" 2 "$c: --where tp 2: expected KEY=VALUE (tp=2)" "$XP" --db "$db" $c --where "tp 2"
  one_line "$c --where ' =2'" 2 "$c: --where  =2: expected KEY=VALUE (tp=2)" "$XP" --db "$db" $c --where " =2"
  # --where model=$MODEL with MODEL unset listed "(no rows)", exit 0, as if no run had the model
  for w in "model=" "model = "; do
    one_line "$c --where '$w'" 2 "$c: --where $w: a blank value (an unset shell variable?): give the value, or select runs without one with xp query (see" \
      "$XP" --db "$db" $c --where "$w"
  done
  "$XP" --db "$db" $c --where "status = OK" > /dev/null 2> "$tmp/err"
  check "$c --where 'status = OK'" "0|" "$?|$(cat "$tmp/err")"
  "$XP" --db "$db" $c --status OK > "$tmp/out" 2> "$tmp/err"
  check "$c --status OK: exit, nothing said" "0|" "$?|$(cat "$tmp/err")"
  one_line "$c --status okk" 2 "$c: --status okk: did you mean ok? (expected running, ok, failed, aborted or incomplete)" \
    "$XP" --db "$db" $c --status okk
done
check "runs --status OK: the ok run" "$(cat "$tmp/want")" "$("$XP" --db "$db" runs --status OK --format csv)"
check "runs --format CSV: as csv" "$(cat "$tmp/want")" "$("$XP" --db "$db" runs --where tp=2 --format CSV)"
"$XP" --db "$db" show "$(sed -n 2p "$tmp/want" | cut -d, -f1)" --format JSON > "$tmp/out" 2> "$tmp/err"
check "show --format JSON: exit" "0|" "$?|$(cat "$tmp/err")"
check "show --format JSON: JSON" "{" "$(head -c1 "$tmp/out")"
echo "SELECT 1 AS one;" > "$tmp/q.sql"
check "query --format Json" '[{"one":1}]' "$("$XP" --db "$db" query "$tmp/q.sql" --format Json | tr -d ' \t\n')"
one_line "runs --format jsno" 2 "runs: --format jsno: did you mean json? (expected table, csv or json)" \
  "$XP" --db "$db" runs --format jsno
one_line "show --format csv" 2 "show: --format csv: expected table or json" "$XP" --db "$db" show x --format csv
one_line "export --format table" 2 "export: --format table: expected json or csv" "$XP" --db "$db" export --format table
# a kind or format, after --kind, xp import or xp help, in any case too; a misspelt one named
check "runs --kind Serve_Bench: the run" "$(cat "$tmp/want")" "$("$XP" --db "$db" runs --kind Serve_Bench --format csv)"
"$XP" --db "$db" import VLLM-Bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" --dry-run > /dev/null 2> "$tmp/err"
check "import VLLM-Bench --dry-run: exit" "0|" "$?|$(cat "$tmp/err")"
check "help NCCL-tests: its keys" "kind nccl_tests:" "$("$XP" help NCCL-tests | head -1 | cut -d' ' -f1-2)"
one_line "runs --kind serve_bnech" 2 "runs: --kind serve_bnech: no such kind: did you mean serve_bench? (kinds: " \
  "$XP" --db "$db" runs --kind serve_bnech
one_line "help kind" 2 "help: no command or run kind named 'kind': did you mean 'kinds'?$" "$XP" help kind
one_line "help Rnus" 2 "help: no command or run kind named 'Rnus': did you mean 'runs'?$" "$XP" help Rnus
one_line "help nccl_test" 2 "help: no command or run kind named 'nccl_test': did you mean 'nccl-tests'?$" "$XP" help nccl_test
finish
