#!/usr/bin/env bash
# The xp command itself (issue 2): every subcommand's --help, exit codes, one-line errors, the
# database location rules, --dry-run touching nothing, runs/show with UUID prefixes, and a
# query file that tries to write leaving the database byte-for-byte unchanged.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"

for c in run import query runs show reclassify compare decide audit rerun verify merge export report version help; do
  "$XP" "$c" --help > "$tmp/out" 2>&1
  check "xp $c --help exit" 0 $?
  grep -qi "usage" "$tmp/out" || [ "$c" = version ] || { echo "FAIL: xp $c --help prints no usage"; fail=1; }
done

# help on a kind shows ranges and its notes; help on model files lists their keys
"$XP" help kernel_variant > "$tmp/out" 2>&1
grep -qE '^  m +integers +required .*\[1, 4096\]$' "$tmp/out" || { echo "FAIL: help kernel_variant: no range for m"; fail=1; }
"$XP" help models > "$tmp/out" 2>&1
check "help models exit" 0 $?
grep -qE '^  kv_lora_rank +integer' "$tmp/out" || { echo "FAIL: help models lists no kv_lora_rank"; fail=1; }
grep -qE '^  index_n_heads +integer' "$tmp/out" || { echo "FAIL: help models lists no DSA indexer"; fail=1; }
grep -qE '^  o_lora_rank +integer' "$tmp/out" || { echo "FAIL: help models lists no DeepSeek-V4 attention"; fail=1; }
grep -qE '^  compress_ratios +integers' "$tmp/out" || { echo "FAIL: help models lists no compress_ratios"; fail=1; }
grep -q "as DeepSeek-V4's (o_lora_rank" "$tmp/out" || { echo "FAIL: help models does not say it derives DeepSeek-V4's attention"; fail=1; }
grep -q "Other kinds are not" "$tmp/out" || { echo "FAIL: help models does not say which attention it cannot derive"; fail=1; }
"$XP" help gemm | grep -q "give model" || { echo "FAIL: help gemm has no notes"; fail=1; }
# each kind's notes say what its runs do beyond the keys (the floors, the model label, ROCm, ...)
"$XP" help kernel_variant | grep -q "skeleton_floor_us" || { echo "FAIL: help kernel_variant names no skeleton floor"; fail=1; }
"$XP" help kernel_variant | grep -q "the spec is refused" || { echo "FAIL: help kernel_variant: no model label check"; fail=1; }
"$XP" help nccl_burst | grep -q "checked partly" || { echo "FAIL: help nccl_burst: no partial check"; fail=1; }
"$XP" help torch_trace | grep -q "ROCm" || { echo "FAIL: help torch_trace: no ROCm"; fail=1; }
"$XP" help torch_trace | grep -q "async_llm" || { echo "FAIL: help torch_trace: no front-end trace"; fail=1; }
"$XP" help import | grep -q "server_info" || { echo "FAIL: help import: SGLang's model not from server_info"; fail=1; }
# an importer's kind by the name `xp import` takes (torch-trace for torch_trace)
for f in torch-trace nccl-tests vllm-bench; do
  "$XP" help "$f" > "$tmp/out" 2> "$tmp/err"
  check "help $f exit" 0 $?
  grep -q "^kind ${f//-/_}: " "$tmp/out" || { echo "FAIL: help $f: not its kind's keys: $(cat "$tmp/err")"; fail=1; }
done
# the kind xp runs lists an imported serving benchmark under (serve_bench): its importer's keys
"$XP" help serve_bench > "$tmp/out" 2> "$tmp/err"
check "help serve_bench exit" 0 $?
grep -q "^kind vllm_bench: " "$tmp/out" || { echo "FAIL: help serve_bench: $(cat "$tmp/err")"; fail=1; }
printf 'kind = "torch_trace"\nfiles = ["a.json"]\nzebra = 2\nbatchh = 1\n' > "$tmp/two.toml"
one_line "first unknown key written" 2 "two.toml:3: zebra: unknown key" "$XP" --db "$db" run "$tmp/two.toml"

one_line "unknown command" 2 "not an xp command" "$XP" --db "$db" frobnicate
cp "$XP_SRC/experiments/results/xp.db" "$tmp/history.sqlite"
"$XP" --db "$tmp/history.sqlite" query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 \
  --param interconnect=nvlink --param bacth=1 > /dev/null 2> "$tmp/err"
grep -q "param bacth: the query has no :bacth" "$tmp/err" || { echo "FAIL: unused --param not warned of"; cat "$tmp/err"; fail=1; }
# compare's kind= takes what xp runs --kind takes: an importer's name is the kind it records
"$XP" --db "$tmp/history.sqlite" compare --a kind=nccl-tests,interconnect=nvlink --b kind=nccl_burst,interconnect=shm \
  > "$tmp/out" 2> "$tmp/err"
check "compare --a kind=nccl-tests: exit" 0 $?
grep -q "^A: nccl_burst run d4321799" "$tmp/out" ||
  { echo "FAIL: compare --a kind=nccl-tests: $(head -1 "$tmp/out") $(cat "$tmp/err")"; fail=1; }
# output that cannot be written (a full disk) is a failure, said with why
if [ -w /dev/full ]; then
  "$XP" --db "$tmp/full.sqlite" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null
  one_line "runs > /dev/full" 1 "cannot write output: No space left on device" \
    sh -c '"$0" --db "$1" runs > /dev/full' "$XP" "$tmp/full.sqlite"
  # ... and JSON printed in one piece larger than stdout's buffer: that write fails at once,
  # leaving fflush nothing to fail on (exit 0, the whole document lost)
  "$XP" --db "$tmp/full.sqlite" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_graph.txt" > /dev/null
  set -- $("$XP" --db "$tmp/full.sqlite" runs --format csv | awk -F, 'NR > 1 {print $1}')
  one_line "show --format json > /dev/full" 1 "cannot write output" \
    sh -c '"$0" --db "$1" show "$2" --format json > /dev/full' "$XP" "$tmp/full.sqlite" "$1"
  one_line "compare --format json > /dev/full" 1 "cannot write output" \
    sh -c '"$0" --db "$1" compare "$2" "$3" --format json > /dev/full' "$XP" "$tmp/full.sqlite" "$1" "$2"
  # help and --version as every other output: `xp help runs` said so, `xp runs --help` (and
  # `xp --help`, `xp --version`) exited 0 having written nothing
  for args in "runs --help" "decide --help" "help runs" "--help" "--version"; do
    one_line "$args > /dev/full" 1 "cannot write output: No space left on device" \
      sh -c '"$0" $1 > /dev/full' "$XP" "$args"
  done
  # a command that says its own write failed is that one line, with why
  one_line "report --out - > /dev/full" 1 "cannot write output: No space left on device" \
    sh -c '"$0" --db "$1" report --out - > /dev/full' "$XP" "$tmp/full.sqlite"
  one_line "export > /dev/full" 1 "cannot write the export: No space left on device" \
    sh -c '"$0" --db "$1" export > /dev/full' "$XP" "$tmp/full.sqlite"
  # a query's answer, held whole, larger than stdout's buffer: one write that fails at once, and
  # main's check could only say "cannot write output (a write to it failed)"
  printf 'SELECT r.uuid, c.params FROM runs r JOIN cases c ON c.run_id = r.id;\n' > "$tmp/cases.sql"
  one_line "query > /dev/full" 1 "cannot write output: No space left on device" \
    sh -c '"$0" --db "$1" query "$2" > /dev/full' "$XP" "$tmp/full.sqlite" "$tmp/cases.sql"
  # an import recorded whole whose summary cannot be written: the line names the run as kept
  # (it said "cannot write output" alone, exit 1, read as a failed import and imported again)
  one_line "import > /dev/full" 1 "cannot write output: No space left on device; run [0-9a-f]\{8\} is recorded ok" \
    sh -c '"$0" --db "$1" import nccl-tests "$2" > /dev/full' "$XP" "$tmp/limit-full.sqlite" \
    "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
  check "import > /dev/full: the run named is ok" "ok" "$("$XP" --db "$tmp/limit-full.sqlite" runs --format csv |
    awk -F, -v id="$(sed -n 's/.* run \([0-9a-f]*\) is recorded.*/\1/p' "$tmp/err")" 'NR > 1 && $1 == id {print $3}')"
fi
# an ok run's error in JSON is null, as xp show's and xp export's (xp runs wrote "", unlike them)
"$XP" --db "$tmp/json.sqlite" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_graph.txt" > /dev/null
"$XP" --db "$tmp/json.sqlite" runs --format json > "$tmp/runs.json"
check "runs --format json: an ok run's error" "ok None" \
  "$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))[0]; print(r["status"], r["error"])' "$tmp/runs.json")"
# an import whose results do not fit (a file size limit at the commit, as a full disk): its
# summary is not printed ("imported 52 cases ..." above "run ... failed"), the run is failed
"$XP" --db "$tmp/limit.sqlite" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_graph.txt" > /dev/null
(ulimit -f 80; "$XP" --db "$tmp/limit.sqlite" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt") \
  > "$tmp/out" 2> "$tmp/err"
check "import past ulimit -f: exit" 3 $?
check "import past ulimit -f: no summary of a failed run" "" "$(grep imported "$tmp/out")"
check "import past ulimit -f: the run failed" 1 "$(grep -c '^run .* failed$' "$tmp/out")"
# every command's help fits a 92-column terminal (audit's ran to 131 columns on one line)
for c in run import query runs show reclassify compare decide audit rerun verify merge export report version help; do
  long=$("$XP" "$c" --help | awk 'length($0) > 92')
  [ -z "$long" ] || { echo "FAIL: xp $c --help: a line over 92 columns: $long"; fail=1; }
done
# ... as xp help's summary of the exit codes says (it named runs and audit alone for exit 1)
"$XP" help | tr -s ' \n' ' ' | grep -q "1 run failed, audit found evidence contradicted or the output could not be written" ||
  { echo "FAIL: xp help: exit 1 for output that could not be written"; fail=1; }
# --where on a key no run has (misspelt) lists nothing: said on stderr, exit 0; a real one is not
for c in runs export; do
  "$XP" --db "$tmp/history.sqlite" $c --where interconect=nvlink > /dev/null 2> "$tmp/err"
  check "$c --where misspelt: exit" 0 $?
  grep -q "^xp: warning: $c: --where interconect: no run has this column or metadata key" "$tmp/err" ||
    { echo "FAIL: $c --where interconect=nvlink not warned of: $(cat "$tmp/err")"; fail=1; }
  "$XP" --db "$tmp/history.sqlite" $c --where env.NCCL_NVLS_ENABLE=0 > /dev/null 2> "$tmp/err"
  grep -q "where" "$tmp/err" && { echo "FAIL: $c --where on a recorded key warned of: $(cat "$tmp/err")"; fail=1; }
done
# the headings xp runs prints, gpu and gpus, select as gpu_name and gpu_count do (they were
# unknown keys: warned of, nothing listed)
"$XP" --db "$tmp/history.sqlite" runs --where gpu_count=2 --where "gpu_name=NVIDIA H200" > "$tmp/want"
"$XP" --db "$tmp/history.sqlite" runs --where gpus=2 --where "gpu=NVIDIA H200" > "$tmp/got" 2> "$tmp/err"
check "runs --where gpus=2 --where gpu=NAME: rows" "$(wc -l < "$tmp/want")" "$(wc -l < "$tmp/got")"
check "runs --where gpus=2: some runs" 1 "$([ "$(wc -l < "$tmp/want")" -gt 3 ] && echo 1)"
check "runs --where gpus=2: no warning" "" "$(grep -- --where "$tmp/err")"
"$XP" --db "$tmp/history.sqlite" compare --a kind=nccl_burst,gpus=2 --b kind=nccl_burst,gpu_count=2 > "$tmp/got" 2>&1
check "compare --a gpus=2: exit" 0 $?
# a gemm, ceilings or kernel_variant run (one `device`: the H200 runs above) used one GPU, which
# it records no count of: its gpus were blank in xp runs, xp show and xp export, and --where
# gpus=1 found none of them; the queries' runs.gpu_count stays as recorded
check "runs: the one-device runs' gpus" "ceilings,1|ceilings,1|gemm,1|kernel_variant,1" \
  "$("$XP" --db "$tmp/history.sqlite" runs --where gpus=1 --format csv 2> /dev/null | tail -n +2 | cut -d, -f2,8 | sort | paste -sd'|')"
check "show and export: a gemm run's gpu_count" "1|1" \
  "$("$XP" --db "$tmp/history.sqlite" show f508b363 --format json 2> /dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["run"][0]["gpu_count"])')|$(
    "$XP" --db "$tmp/history.sqlite" export --run f508b363 --no-samples 2> /dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["runs"][0]["gpu_count"])')"
check "the queries' runs.gpu_count: as recorded" "4" \
  "$(db="$tmp/history.sqlite" sql "SELECT count(*) FROM runs WHERE kind IN ('gemm', 'ceilings', 'kernel_variant') AND gpu_count IS NULL" 2> /dev/null)"
one_line "missing spec" 2 "nope.toml: cannot read" "$XP" --db "$db" run "$tmp/nope.toml"
printf 'kind = "torch_trace"\nfiles = ["a.json"]\nbatch = "one"\n' > "$tmp/bad.toml"
one_line "wrong type" 2 "bad.toml:3: batch: expected an integer" "$XP" --db "$db" run "$tmp/bad.toml"
printf 'kind = "torch_trace"\nfiles = ["a.json"]\nbatchh = 1\n' > "$tmp/typo.toml"
one_line "unknown key" 2 "typo.toml:3: batchh: unknown key" "$XP" --db "$db" run "$tmp/typo.toml"
# a path of 3000 characters (PATH_MAX is 4096) is said whole, with the message after it
long=$tmp/$(printf '%0250d' 0)
for i in 1 2 3 4 5 6 7 8 9 10 11; do long=$long/$(printf '%0250d' $i); done
mkdir -p "$long" && cp "$tmp/typo.toml" "$long/typo.toml"
one_line "3000-character path" 2 "$long/typo.toml:3: batchh: unknown key" "$XP" --db "$db" run "$long/typo.toml"
printf 'kind = "warp_drive"\n' > "$tmp/kind.toml"
one_line "unknown kind" 2 "kind.toml:1: kind: unknown run kind" "$XP" --db "$db" run "$tmp/kind.toml"
printf 'kind = "torch_trace"\nfiles = [\n' > "$tmp/broken.toml"
one_line "bad TOML" 2 "broken.toml:[0-9]*: invalid TOML" "$XP" --db "$db" run "$tmp/broken.toml"
one_line "db in a missing folder" 3 "folder does not exist" "$XP" --db "$tmp/no/such/x.db" import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz"
one_line "reading a missing db" 3 "no such database" "$XP" --db "$tmp/none.db" runs
one_line "bad --param" 2 "expected NAME=VALUE" "$XP" --db "$db" query "$XP_SRC/queries/allreduce_share.sql" --param tp
check "no database made by failed commands" "" "$(ls "$tmp" | grep '\.db')"

# --dry-run plans without creating anything
printf 'kind = "torch_trace"\nfiles = ["%s"]\ntp = 2\n' "$data/decode_tp2_bs1_rank0.trace.json.gz" > "$tmp/spec.toml"
"$XP" --db "$db" run "$tmp/spec.toml" --dry-run > "$tmp/plan"
check "dry run exit" 0 $?
check "dry run leaves no database" "no" "$([ -e "$db" ] && echo yes || echo no)"

# $XP_DB, then ./xp.db
(cd "$tmp" && XP_DB="$tmp/env.db" "$XP" import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" \
  "$data/decode_tp2_bs1_rank1.trace.json.gz" --set tp=2 --set batch=1 > /dev/null 2>&1)
check "XP_DB honoured" "yes" "$([ -s "$tmp/env.db" ] && echo yes || echo no)"
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && "$XP" run "$tmp/spec.toml" > /dev/null 2>&1)
check "./xp.db by default" "yes" "$([ -s "$tmp/cwd/xp.db" ] && echo yes || echo no)"

# runs and show, by unique prefix
db="$tmp/env.db"
uuid=$(query "SELECT uuid FROM runs LIMIT 1")
"$XP" --db "$db" runs | grep -q "${uuid:0:8}.*torch_trace.*ok" || { echo "FAIL: xp runs"; fail=1; }
"$XP" --db "$db" show "${uuid:0:6}" > "$tmp/show"
check "show by prefix" 0 $?
grep -q "$uuid" "$tmp/show" && grep -q "host.name" "$tmp/show" && grep -q "== gpus ==" "$tmp/show" || { echo "FAIL: show content"; fail=1; }
"$XP" --db "$db" runs --where tp=2 --kind torch_trace --format csv | tail -n +2 | wc -l | grep -q '^1$' || { echo "FAIL: runs filter"; fail=1; }

# a query file that writes fails, and the database is unchanged
before=$(sha256sum "$db" | cut -d' ' -f1)
printf 'SELECT count(*) FROM runs;\nUPDATE runs SET status = %s;\n' "'failed'" > "$tmp/w.sql"
one_line "writing query" 2 "w.sql:2: query files may only read" "$XP" --db "$db" query "$tmp/w.sql"
printf "ATTACH '%s/other.db' AS o;\n" "$tmp" > "$tmp/a.sql"
one_line "attaching query" 2 "a.sql:1:" "$XP" --db "$db" query "$tmp/a.sql"
check "database unchanged" "$before" "$(sha256sum "$db" | cut -d' ' -f1)"
check "no attached file created" "no" "$([ -e "$tmp/other.db" ] && echo yes || echo no)"
check "status still ok" "ok" "$(query "SELECT status FROM runs")"
# query output: a BLOB as its SQL literal in CSV and JSON (it was a byte count, or raw bytes);
# several result sets in JSON are one array of arrays (two arrays back to back are no JSON);
# @name and $name are parameters like :name (SQLite reads all three)
printf "SELECT x'00ff41' AS b, 'a,b' AS t;\nSELECT 2 AS n;\n" > "$tmp/two.sql"
"$XP" --db "$db" query "$tmp/two.sql" --format json > "$tmp/two.json" 2> /dev/null
check "two result sets are one JSON array of arrays" "[|[{|,|[{|]" \
  "$(grep -E '^(\[|\[\{|,|\])$' "$tmp/two.json" | paste -sd'|')"
check "a BLOB in JSON" 1 "$(grep -c "\"b\":.*\"x'00ff41'\"" "$tmp/two.json")"
check "a BLOB in CSV" "b,t|x'00ff41',\"a,b\"" "$("$XP" --db "$db" query "$tmp/two.sql" --format csv 2> /dev/null | head -2 | paste -sd'|')"
printf 'SELECT @tp + $tp AS s;\n' > "$tmp/at.sql"
"$XP" --db "$db" query "$tmp/at.sql" --param tp=4 --format csv > "$tmp/at.out" 2> "$tmp/at.err"
check "@name and \$name bound" "8" "$(tail -1 "$tmp/at.out")"
check "no 'misspelt' warning for @name" "" "$(grep misspelt "$tmp/at.err")"
# --param binds a number as JSON writes one as that number (tp = :tp against a view's column);
# a zero-padded id, a commit or run prefix, +8, 0x1f, inf as the text given (007 was 7)
printf 'SELECT :v AS v, typeof(:v) AS t;\n' > "$tmp/v.sql"
for v in 8 -2 0.5 1e-3 007 0042 +8 0x1f inf 99999999999999999999; do
  "$XP" --db "$db" query "$tmp/v.sql" --param "v=$v" --format csv | tail -1
done > "$tmp/v.out"
check "--param values as bound" "8,integer|-2,integer|0.5,real|0.001,real|007,text|0042,text|+8,text|0x1f,text|inf,text|99999999999999999999,text" \
  "$(paste -sd'|' "$tmp/v.out")"

# a reading command stops at the first SIGTERM (exit 130), rather than running on until a
# second signal kills it: the signal only sets a flag, which the query now checks
printf 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c;\n' > "$tmp/endless.sql"
"$XP" --db "$db" query "$tmp/endless.sql" > /dev/null 2> "$tmp/endless.err" &
pid=$!
sleep 0.5
kill -TERM "$pid"
wait "$pid"
check "an endless query ends at one SIGTERM" 130 $?
grep -q "reading: interrupted" "$tmp/endless.err" || { echo "FAIL: no 'interrupted' in: $(cat "$tmp/endless.err")"; fail=1; }
finish
