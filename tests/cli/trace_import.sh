#!/usr/bin/env bash
# xp import torch-trace: the two ranks of one job become one run; the cross-rank split of each
# all-reduce into waiting and transferring equals an independent computation (awk, straight
# from the JSON text); the spec form, --events, --rank and --dry-run; xp reclassify re-answers
# imported history without importing again.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
r0="$data/decode_tp2_bs1_rank0.trace.json.gz"
r1="$data/decode_tp2_bs1_rank1.trace.json.gz"

"$XP" --db "$db" import torch-trace "$r0" "$r1" --set model=moe-test --set tp=2 --set batch=1 \
  --set interconnect=nvlink > "$tmp/out" 2> "$tmp/err"
check "import exit status" 0 $?
check "nothing on stderr" "" "$(cat "$tmp/err")"
grep -q '^collectives: 512 matched, 31 unmatched' "$tmp/out" || { echo "FAIL: summary"; cat "$tmp/out"; fail=1; }
check "one ok run, both ranks" "ok|2|0|2" "$(query "SELECT r.status || '|' || i.ranks || '|' || i.single_rank || '|' || r.gpu_count
  FROM runs r JOIN trace_imports i ON i.run_id = r.id")"
check "declared and traced configuration" "moe-test|2|1|nvlink|NVIDIA H200" \
  "$(query "SELECT model || '|' || tp || '|' || batch || '|' || interconnect || '|' || gpu_name FROM runs")"
check "kernels per rank" "0|5312|8|1;1|5962|8|1" "$(query "SELECT group_concat(rank || '|' || kernels || '|' || steps || '|' || (busy_ns + idle_ns = gpu_end_ns - gpu_start_ns), ';')
  FROM (SELECT * FROM trace_ranks ORDER BY rank)")"
check "per-name totals add up to the rank's kernel time" "1|1" "$(query "SELECT group_concat(ok, '|') FROM
  (SELECT (SELECT sum(total_ns) FROM trace_kernels k WHERE k.rank = r.rank) = r.kernel_ns AS ok FROM trace_ranks r ORDER BY rank)")"
check "collective args: dtype, bytes, group" "bfloat16|8192|2|0|default_pg|[0 1]" \
  "$(query "SELECT DISTINCT dtype || '|' || in_bytes || '|' || group_size || '|' || pg_name || '|' || pg_desc || '|' ||
            replace(pg_ranks, ',', '') AS x FROM trace_collectives WHERE source = 'args'")"
check "kernels launched by aten::mm carry its shapes" "[[1;4096];[4096;6144]]|[c10::BFloat16;c10::BFloat16]|128" \
  "$(query "SELECT replace(replace(input_dims || '|' || input_types || '|' || count, ',', ';'), '\"', '') AS x
            FROM trace_shapes WHERE rank = 0 AND op = 'aten::mm' ORDER BY total_ns DESC LIMIT 1")"

# The split, computed independently: read the kernels' text, pair each of rank 0's NCCL kernels
# with the overlapping one of rank 1 that ends nearest, wait = last start - own start.
# Times stay exact: integer microseconds relative to a common origin, plus the ns fraction.
nccl() { # nccl FILE: "start_ns end_ns" per NCCL kernel, relative to the trace's base time
  gzip -dc "$1" | awk '
    /"cat": "kernel", "name": "nccl/ { want = 1; next }
    want && /"ts":/ {
      match($0, /"ts": [0-9.]+/); ts = substr($0, RSTART + 6, RLENGTH - 6)
      match($0, /"dur": [0-9.]+/); dur = substr($0, RSTART + 7, RLENGTH - 7)
      split(ts, t, "."); split(dur, d, ".")
      start = (t[1] - 5131127000000) * 1000 + t[2]; len = d[1] * 1000 + d[2]
      printf "%d %d\n", start, start + len; want = 0 }'
}
check "same base time on both ranks" 1 "$(gzip -dc "$r0" | grep -m1 -c '"baseTimeNanoseconds": 1790857026000000000')$(
  gzip -dc "$r1" | grep -m1 -c '"baseTimeNanoseconds": 1790857026000000000' | sed 's/1//')"
nccl "$r0" > "$tmp/k0"
nccl "$r1" > "$tmp/k1"
expected=$(awk '
  NR == FNR { s1[n1] = $1; e1[n1++] = $2; next }
  { s0 = $1; e0 = $2; best = -1
    for (j = 0; j < n1; j++) {
      if (s1[j] > e0 || s0 > e1[j]) continue
      d = e1[j] - e0; if (d < 0) d = -d
      if (best < 0 || d < bestd) { best = j; bestd = d } }
    if (best < 0) next
    last = s0 > s1[best] ? s0 : s1[best]
    w0 = last - s0; if (w0 > e0 - s0) w0 = e0 - s0
    w1 = last - s1[best]; if (w1 > e1[best] - s1[best]) w1 = e1[best] - s1[best]
    pairs++; W0 += w0; X0 += e0 - s0 - w0; W1 += w1; X1 += e1[best] - s1[best] - w1 }
  END { printf "0|%d|%d|%d;1|%d|%d|%d\n", pairs, W0, X0, pairs, W1, X1 }' "$tmp/k1" "$tmp/k0")
check "wait/transfer per rank equal the independent computation" "$expected" \
  "$(query "SELECT group_concat(x, ';') FROM (SELECT rank || '|' || count(match_group) || '|' || sum(wait_ns) || '|' || sum(transfer_ns) AS x
            FROM trace_collectives GROUP BY rank ORDER BY rank)")"
check "unmatched kernels are counted, not dropped" "0|256|0;1|287|31" \
  "$(query "SELECT group_concat(rank || '|' || coll_kernels || '|' || coll_unmatched, ';') FROM (SELECT * FROM trace_ranks ORDER BY rank)")"

# Categories are resolved at query time: new rules re-answer history without a re-import.
gemm_before=$(query "SELECT sum(count) FROM trace_kernel_stats WHERE category = 'gemm'")
check "nvjet GEMMs as gemm" 1 "$(query "SELECT count(*) > 0 FROM trace_kernel_stats WHERE category = 'gemm' AND name LIKE 'nvjet%'")"
sed 's/^rule\tgemm\tprefix\tnvjet$/rule\tmoe\tprefix\tnvjet/' "$XP_SRC/importers/torch_trace/categories.tsv" > "$tmp/rules.tsv"
"$XP" --db "$db" reclassify --rules "$tmp/rules.tsv" --dry-run > "$tmp/out" 2>&1
check "dry run exit" 0 $?
check "dry run writes nothing" 0 "$(query "SELECT count(*) FROM trace_kernel_stats WHERE category = 'moe'")"
"$XP" --db "$db" reclassify --rules "$tmp/rules.tsv" > "$tmp/out" 2>&1
check "reclassify exit" 0 $?
grep -q 'gemm *-> moe *nvjet' "$tmp/out" || { echo "FAIL: reclassify output"; cat "$tmp/out"; fail=1; }
check "nvjet kernels moved to moe, no re-import" 1 "$(query "SELECT count(*) > 0 FROM trace_kernel_stats WHERE category = 'moe' AND name LIKE 'nvjet%'")"
check "per-step categories follow" 1 "$(query "SELECT count(*) > 0 FROM trace_step_categories WHERE category = 'moe'")"
check "rule set in force" "$tmp/rules.tsv" "$(query "SELECT source FROM trace_rule_set")"
"$XP" --db "$db" reclassify > /dev/null 2>&1
check "built-in rules restore the categories" "$gemm_before|built-in" \
  "$(query "SELECT (SELECT sum(count) FROM trace_kernel_stats WHERE category = 'gemm') || '|' || (SELECT source FROM trace_rule_set)")"
printf 'category\tother\tother\nrule\tnope\tprefix\tx\n' > "$tmp/bad.tsv"
"$XP" --db "$db" reclassify --rules "$tmp/bad.tsv" > /dev/null 2> "$tmp/err"
check "bad rules file exit" 2 $?
check "bad rules file message" "xp: $tmp/bad.tsv:2: rule for undeclared category \"nope\"" "$(cat "$tmp/err")"
"$XP" reclassify --help | grep -q '^usage: xp reclassify' || { echo "FAIL: reclassify --help"; fail=1; }

# The spec form, with paths relative to the spec; the step annotation; every event kept.
mkdir -p "$tmp/spec/traces"
cp "$r0" "$tmp/spec/traces/"
cat > "$tmp/spec/trace.toml" <<TOML
kind = "torch_trace"
files = ["traces/decode_tp2_bs1_rank0.trace.json.gz"]
step_annotation = "decode_step"
events = true
model = "moe-test"
tp = 2
batch = 1
interconnect = "nvlink"
TOML
(cd / && "$XP" --db "$db" run "$tmp/spec/trace.toml" > "$tmp/out" 2>&1)
check "spec run exit" 0 $?
check "spec run: one rank, decode_step steps, every event" "1|1|decode_step|52618|8" "$(query "SELECT i.ranks || '|' || i.single_rank || '|' ||
  i.step_annotation || '|' || i.events_kept || '|' || (SELECT count(*) FROM trace_steps s WHERE s.run_id = i.run_id)
  AS x FROM trace_imports i ORDER BY run_id DESC LIMIT 1")"
check "events stored under the rank" "52618|0|5312" "$(query "SELECT count(*) || '|' || min(rank) || '|' || sum(cat = 'kernel')
  FROM trace_events WHERE run_id = (SELECT max(run_id) FROM trace_imports)")"

# --rank overrides (with a warning when the trace disagrees); --dry-run records nothing.
"$XP" --db "$db" import torch-trace "$r1" --rank 5 > /dev/null 2> "$tmp/err"
check "--rank exit" 0 $?
grep -q 'trace says rank 1; recorded as rank 5' "$tmp/err" || { echo "FAIL: --rank warning"; cat "$tmp/err"; fail=1; }
check "--rank recorded" "5|option" "$(query "SELECT rank || '|' || rank_source FROM trace_ranks ORDER BY run_id DESC LIMIT 1")"
"$XP" --db "$db" import torch-trace "$r0" "$r1" --rank 1 > /dev/null 2> "$tmp/err"
check "--rank with two files exit" 2 $?
before=$(query "SELECT count(*) FROM runs")
"$XP" --db "$db" import torch-trace "$r0" "$r1" --dry-run > "$tmp/plan" 2>&1
check "dry run exit" 0 $?
grep -q 'would import 2 trace file' "$tmp/plan" || { echo "FAIL: plan"; cat "$tmp/plan"; fail=1; }
# The plan states the step rule; it reads no trace, so it must not sound as if these had no steps.
grep -qx 'steps: marked by ProfilerStep#N (a trace without them: its whole GPU window as one step); every event kept: no' \
  "$tmp/plan" || { echo "FAIL: plan's step rule"; cat "$tmp/plan"; fail=1; }
"$XP" --db "$db" import torch-trace "$r0" --step-annotation decode_step --events --dry-run > "$tmp/plan" 2>&1
grep -qx 'steps: marked by decode_step; every event kept: yes' "$tmp/plan" ||
  { echo "FAIL: plan with --step-annotation"; cat "$tmp/plan"; fail=1; }
check "dry run records nothing" "$before" "$(query "SELECT count(*) FROM runs")"

# --events keeps an event whose args hold the non-finite numbers JSON lacks (Kineto's
# "memory bandwidth (GB/s)": inf for a zero-duration copy) with them written as null, where
# the database's json_valid check failed the import (exit 3).
cat > "$tmp/inf.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "cat": "gpu_memcpy", "name": "Memcpy DtoD (Device -> Device)", "pid": 0, "tid": 7, "ts": 1040, "dur": 0,
  "args": {"correlation": 7, "bytes": 0, "memory bandwidth (GB/s)": inf, "n": [NaN, -Infinity, -nan], "s": "inf"}},
 {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1041, "dur": 30, "args": {"correlation": 7}}
]}
JSON
"$XP" --db "$db" import torch-trace "$tmp/inf.json" --events > /dev/null 2>&1
check "non-finite args with --events exit" 0 $?
check "non-finite args stored as null" "1|null|null|null|inf" "$(query "SELECT json_valid(args) || '|' ||
  json_type(args, '\$.\"memory bandwidth (GB/s)\"') || '|' || json_type(args, '\$.n[0]') || '|' ||
  json_type(args, '\$.n[2]') || '|' || json_extract(args, '\$.s') AS x
  FROM trace_events WHERE run_id = (SELECT max(run_id) FROM trace_imports) AND cat = 'gpu_memcpy'")"

# Events longer than the reader's chunk margins (here names of 0.3 to 1 MB, across the 1 MiB
# chunk boundaries of a plain .json file) are assembled whole.
long_name() { head -c "$1" /dev/zero | tr '\0' "$2"; }
{
  printf '{"traceEvents": [\n'
  i=0
  for spec in 700000:a 1000000:b 10:c 300000:d 10:e; do
    printf '{"ph": "X", "cat": "kernel", "name": "%s", "pid": 0, "tid": 7, "ts": %d.5, "dur": 1.25},\n' \
      "$(long_name "${spec%%:*}" "${spec##*:}")" $((1000 + i * 10))
    i=$((i + 1))
  done
  printf '{"ph": "i", "name": "Record Window End", "ts": 2000}]}\n'
} > "$tmp/long.json"
"$XP" --db "$db" import torch-trace "$tmp/long.json" > /dev/null 2>&1
check "long events exit" 0 $?
check "long events kept whole" "700000:1|1000000:1|10:1|300000:1|10:1" "$(query "SELECT group_concat(length(n.name) || ':' || k.count, '|') AS x
  FROM (SELECT * FROM trace_kernels WHERE run_id = (SELECT max(run_id) FROM trace_imports) ORDER BY rowid) k
  JOIN trace_names n ON n.id = k.name_id")"

# A gzip file of several members (gzip a >> f; bgzip) is one stream, as zcat reads it: the
# first third and the rest compressed apart read as the whole trace does.
gzip -dc "$r0" > "$tmp/r0.json"
third=$(($(wc -c < "$tmp/r0.json") / 3))
{ head -c "$third" "$tmp/r0.json" | gzip; tail -c +$((third + 1)) "$tmp/r0.json" | gzip; } > "$tmp/members.json.gz"
"$XP" --db "$tmp/mm.db" import torch-trace "$r0" > /dev/null 2>&1
"$XP" --db "$tmp/mm.db" import torch-trace "$tmp/members.json.gz" > /dev/null 2> "$tmp/err"
check "two gzip members: exit" 0 $?
check "two gzip members: the same kernels" "2|1" "$(XP_DB="$tmp/mm.db" "$XP" query /dev/stdin --format csv <<'Q' | tail -1
SELECT count(DISTINCT run_id) || '|' || (count(DISTINCT name_id || ':' || count || ':' || total_ns) = count(*) / 2) FROM trace_kernels;
Q
)"

# A file over a few MB reports progress: a few plain lines when stderr is not a terminal.
big="${XP_SHARED:-/nonexistent}/fixtures/torch/bigdecode_tp2_bs8_rank1.trace.json.gz"
if [ -f "$big" ]; then
  "$XP" --db "$tmp/big.db" import torch-trace "$big" > /dev/null 2> "$tmp/err"
  check "big import exit" 0 $?
  grep -q '^xp: reading .*bigdecode_tp2_bs8_rank1.trace.json.gz: 100%$' "$tmp/err" || { echo "FAIL: progress"; cat "$tmp/err"; fail=1; }
  check "no carriage returns off a terminal" 0 "$(tr -cd '\r' < "$tmp/err" | wc -c)"
else
  echo "shared fixtures not found: progress on a big trace not checked"
fi
finish
