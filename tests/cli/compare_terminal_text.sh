#!/usr/bin/env bash
# xp compare's text shows a name or setting as xp runs does: an escape sequence in a GPU name
# (--set gpu=$'H\e[31m200', or any name a result file carries) went to the terminal raw in the
# list of differences and the table, colouring all compare printed after it, where xp runs
# showed it as H\x1b[31m200; xp audit's evidence line likewise. JSON keeps the value as it is.
# So do compare's pairing notes, audit's decision, drift and CONTRADICTED lines and xp
# reclassify's kernel names (harness/output.c's xp_print_text, xp_terminal_text).
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
# compare's pairing notes: a case unpaired because a setting differs names both values as the
# files wrote them; a vLLM result's dataset_name holding CSI (U+009B, which xterm takes as
# ESC [) reached the terminal raw, where the table beside it showed \u009b
python3 - "$vb" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for n, (name, date) in enumerate([("random", "20250612-101500"), ("\u009b2Jrandom", "20250613-101500")]):
    json.dump(dict(d, dataset_name=name, date=date), open("%s/ds%d.json" % (sys.argv[2], n), "w"))
PY
for n in 0 1; do "$XP" --db "$tmp/ds.db" import vllm-bench "$tmp/ds$n.json" > /dev/null 2>&1; done
set -- $("$XP" --db "$tmp/ds.db" runs --format csv | awk -F, 'NR > 1 {print $1}')
"$XP" --db "$tmp/ds.db" compare "$2" "$1" > "$tmp/out" 2> "$tmp/err"
check "compare unpaired exit" "0 " "$? $(cat "$tmp/err")"
grep -qF 'dataset_name: A "random", B "\u009b2Jrandom"' "$tmp/out" ||
  { echo "FAIL: compare's unpaired line: $(grep 'only in' "$tmp/out")"; fail=1; }
check "no CSI from compare" 0 "$(grep -c $'\xc2\x9b' "$tmp/out")"

# audit: a decision's query rows named by a stored name (a model a result file names) and a
# decision's title, as a colleague's database merged in brings them, went to the terminal raw
python3 - "$vb" "$tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for n, date in enumerate(["20250612-101500", "20250613-101500"]):
    json.dump(dict(d, model_id="\u001b[31mQwen", date=date), open("%s/esc%d.json" % (sys.argv[2], n), "w"))
PY
"$XP" --db "$tmp/au.db" import vllm-bench "$tmp/esc0.json" > /dev/null 2>&1
printf '%s\n' "SELECT model, count(*) AS n FROM runs GROUP BY model;" > "$tmp/q.sql"
"$XP" --db "$tmp/au.db" decide $'\e[2Jkeep Qwen' --because $'\xc2\x9b2J' --query "$tmp/q.sql" > /dev/null 2>&1
"$XP" --db "$tmp/au.db" import vllm-bench "$tmp/esc1.json" > /dev/null 2>&1
"$XP" --db "$tmp/au.db" audit > "$tmp/out" 2> "$tmp/err"
check "audit drift exit" "0 " "$? $(cat "$tmp/err")"
grep -qF '  model=\x1b[31mQwen: n 1 then; 2 now' "$tmp/out" || { echo "FAIL: audit's drift line: $(cat "$tmp/out")"; fail=1; }
grep -qF ': \x1b[2Jkeep Qwen' "$tmp/out" || { echo "FAIL: audit's title: $(head -1 "$tmp/out")"; fail=1; }
grep -qF 'because: \u009b2J' "$tmp/out" || { echo "FAIL: audit's rationale: $(grep because "$tmp/out")"; fail=1; }
check "no escape byte from audit's query" 0 "$(tr -cd '\033' < "$tmp/out" | wc -c)"
check "no CSI from audit's query" 0 "$(grep -c $'\xc2\x9b' "$tmp/out")"
# reclassify: the names whose category changes, a trace's kernel names among them, went out raw
python3 - "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz" "$tmp/esc.json.gz" <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
for e in t["traceEvents"]:
    if e.get("cat") == "kernel" and e["name"].startswith("ncclDevKernel"):
        e["name"] = "\x1b[31m" + e["name"]
json.dump(t, gzip.open(sys.argv[2], "wt"))
PY
"$XP" --db "$tmp/rc.db" import torch-trace "$tmp/esc.json.gz" > /dev/null 2>&1
printf 'category\tcommunication\tcommunication\ncategory\tother\tother\n' > "$tmp/rules.tsv"
"$XP" --db "$tmp/rc.db" reclassify --rules "$tmp/rules.tsv" --dry-run > "$tmp/out" 2> "$tmp/err"
check "reclassify exit" "0 " "$? $(cat "$tmp/err")"
grep -qF ' \x1b[31mncclDevKernel_AllReduce' "$tmp/out" || { echo "FAIL: reclassify's name: $(grep -i nccl "$tmp/out")"; fail=1; }
check "no escape byte from reclassify" 0 "$(tr -cd '\033' < "$tmp/out" | wc -c)"
finish
