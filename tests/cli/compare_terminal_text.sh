#!/usr/bin/env bash
# xp compare's text shows a name or setting as xp runs does: an escape sequence in a GPU name
# (--set gpu=$'H\e[31m200', or any name a result file carries) went to the terminal raw in the
# list of differences and the table, colouring all compare printed after it, where xp runs
# showed it as H\x1b[31m200; xp audit's evidence line likewise. JSON keeps the value as it is.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
vb="$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"

"$XP" --db "$db" import vllm-bench "$vb" --set gpu=B200 > /dev/null 2>&1
"$XP" --db "$db" import vllm-bench "$vb" --set gpu=$'H\e[31m200' > /dev/null 2>&1
set -- $("$XP" --db "$db" runs --format csv | awk -F, 'NR > 1 {print $1}')
"$XP" --db "$db" compare "$2" "$1" > "$tmp/out" 2> "$tmp/err"
check "compare exit" "0 " "$? $(cat "$tmp/err")"
check "the difference, as xp runs shows it" '  gpu_name: A B200; B H\x1b[31m200' "$(grep 'gpu_name:' "$tmp/out")"
check "no escape byte on the terminal" 0 "$(tr -cd '\033' < "$tmp/out" | wc -c)"
"$XP" --db "$db" compare "$2" "$1" --format json > "$tmp/out"
check "JSON keeps the value" $'H\e[31m200' \
  "$(python3 -c 'import json, sys; print([d["b"] for d in json.load(open(sys.argv[1]))["unfair"] if d["key"] == "gpu_name"][0])' "$tmp/out")"
# ... as xp audit's evidence line does (it printed "gpu=H<ESC>[31m200" raw)
"$XP" --db "$db" decide "one GPU" --because "a test" --evidence "$1" > /dev/null 2>&1
"$XP" --db "$db" audit > "$tmp/out" 2> "$tmp/err"
check "audit exit" "0 " "$? $(cat "$tmp/err")"
grep -qF ' gpu=H\x1b[31m200 ' "$tmp/out" || { echo "FAIL: audit's evidence line: $(grep ' run ' "$tmp/out")"; fail=1; }
check "no escape byte from audit" 0 "$(tr -cd '\033' < "$tmp/out" | wc -c)"
finish
