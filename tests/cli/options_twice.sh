#!/usr/bin/env bash
# An option that takes one value, given twice, is refused in one line (exit 2), as --param NAME
# twice is: the last silently won, so `xp runs --kind nccl_burst --kind torch_trace` listed one
# kind where two were asked for, and `xp decide ... --because A --because B` or `xp import ...
# --set tp=2 --set tp=4` recorded the second alone, for good. Options that gather (--where,
# --evidence, --run, --a/--b, --param of other names, --set of other keys) still repeat.
set -u
. "$XP_SRC/tests/lib.sh"
nccl="$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
"$XP" --db "$db" import nccl-tests "$nccl" > "$tmp/out" 2>&1
check "import" 0 $?
run=$(sed -n 's/^run \([0-9a-f]\{8\}\).* ok$/\1/p' "$tmp/out")
printf 'SELECT count(*) AS n FROM runs;\n' > "$tmp/q.sql"
cp "$db" "$tmp/before.db"

# twice ARGS...: xp on $db refuses ARGS in one line naming the second value and the first,
# and the database is as it was
twice() {
  local pat=$1
  shift
  one_line "$*" 2 "$pat: given twice (first " "$XP" --db "$db" "$@"
  cmp -s "$db" "$tmp/before.db" || { echo "FAIL: $*: the database changed"; fail=1; }
}
twice "runs: --format json" runs --format csv --format json
twice "runs: --limit 3" runs --limit 2 --limit=3
twice "runs: --kind torch_trace" runs --kind nccl_burst --kind torch_trace
twice "runs: --status failed" runs --status ok --status failed
twice "show: --format table" show "$run" --format json --format table
twice "query: --format csv" query "$tmp/q.sql" --format json --format csv
twice "compare: --format table" compare "$run" "$run" --format json --format table
twice "export: --out $tmp/b.json" export --out "$tmp/a.json" --out "$tmp/b.json"
twice "export: --kind torch_trace" export --kind nccl_burst --kind torch_trace
twice "export: --status failed" export --status ok --status failed
twice "export: --format csv" export --format json --format csv --out "$tmp/dir"
twice "report: --out $tmp/b.html" report --out "$tmp/a.html" --out "$tmp/b.html"
twice "reclassify: --rules b.tsv" reclassify --rules a.tsv --rules b.tsv
twice "decide: --because B" decide "T" --because "A" --because "B" --evidence "$run"
twice "decide: --query b.sql" decide "T" --because "A" --query "$tmp/q.sql" --query b.sql
twice "decide: --supersedes y" decide "T" --because "A" --evidence "$run" --supersedes x --supersedes y
twice "import: --set tp=4" import nccl-tests "$nccl" --set tp=2 --set tp=4
twice "import: --step-annotation b" import torch-trace t.json --step-annotation a --step-annotation=b
twice "import: --step-annotation b" import torch-trace t.json --set step_annotation=a --step-annotation b
twice "run: --set tp=4" run "$XP_SRC/experiments/allreduce_burst.toml" --set tp=2 --set tp=4 --dry-run
one_line "--db twice" 2 "--db $tmp/b.db: given twice" "$XP" --db "$db" --db "$tmp/b.db" runs
for f in "$tmp/a.json" "$tmp/b.json" "$tmp/dir" "$tmp/a.html" "$tmp/b.html" "$tmp/b.db"; do
  [ ! -e "$f" ] || { echo "FAIL: $f was written"; fail=1; }
done

# the options that gather still repeat
"$XP" --db "$db" runs --where gpus=2 --where gpu=h200 --format csv > "$tmp/out" 2> "$tmp/err"
check "--where twice: exit" 0 $?
check "--where twice: the run both match" 1 "$(tail -n +2 "$tmp/out" | wc -l)"
"$XP" --db "$db" export --run "$run" --run "$run" --no-samples > /dev/null 2> "$tmp/err"
check "--run twice" 0 $?
"$XP" --db "$db" import nccl-tests "$nccl" --set tp=2 --set batch=1 --dry-run > /dev/null 2> "$tmp/err"
check "--set of two keys" 0 $?
finish
