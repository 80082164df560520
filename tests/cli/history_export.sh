#!/usr/bin/env bash
# xp export (issue 7) to JSON and CSV for notebooks, with filters; and queries/regressions.sql,
# which flags the newest run of a configuration that moved more than 10% from the median of
# the older ones.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
need_sqlite3
json() { sqlite3 :memory: "SELECT $2 FROM (SELECT readfile('$1') AS j)"; }

run export --help; expect_rc 0; has "usage: xp export"
r1=$(record model=llama tp=8 cases=2 gpu=H200)
r2=$(record model=llama tp=4 cases=1 gpu=H200 samples=4)
r3=$(record model=qwen tp=8 cases=1 fail=true)

run export --out "$tmp/all.json"; expect_rc 0
[ "$(json "$tmp/all.json" "json_array_length(j, '\$.runs')")" = 3 ] || die "all three runs"
[ "$(json "$tmp/all.json" "json_extract(j, '\$.runs[0].uuid')")" = "$r1" ] || die "oldest first"
[ "$(json "$tmp/all.json" "json_extract(j, '\$.runs[0].meta.gpu_name')")" = H200 ] || die "metadata"
[ "$(json "$tmp/all.json" "json_extract(j, '\$.runs[0].spec.kind')")" = hist_probe ] || die "the spec, as an object"
[ "$(json "$tmp/all.json" "json_extract(j, '\$.runs[0].cases[1].params.i')")" = 1 ] || die "case params, as an object"
[ "$(json "$tmp/all.json" "json_array_length(j, '\$.runs[0].cases[0].metrics[1].samples')")" = 10 ] || die "raw samples"
[ "$(json "$tmp/all.json" "json_extract(j, '\$.runs[0].cases[0].metrics[1].median')")" = 100.1 ] || die "summary"
[ "$(json "$tmp/all.json" "json_extract(j, '\$.runs[2].status')")" = failed ] || die "failed runs are history too"

run export --where tp=8 --status ok --no-samples; expect_rc 0
cp "$tmp/out" "$tmp/tp8.json"
[ "$(json "$tmp/tp8.json" "json_array_length(j, '\$.runs')")" = 1 ] || die "--where tp=8 --status ok"
[ "$(json "$tmp/tp8.json" "json_type(j, '\$.runs[0].cases[0].metrics[0].samples')")" = "" ] || die "--no-samples"
run export --run "${r2:0:8}"; expect_rc 0
cp "$tmp/out" "$tmp/one.json"
[ "$(json "$tmp/one.json" "json_extract(j, '\$.runs[0].uuid') || json_array_length(j, '\$.runs')")" = "${r2}1" ] || die "--run"
run export --run "${r2:0:8}" --where gpu.driver=none; expect_rc 0
cp "$tmp/out" "$tmp/none.json"
[ "$(json "$tmp/none.json" "json_array_length(j, '\$.runs')")" = 0 ] || die "filters combine"

run export --format csv --out "$tmp/csv"; expect_rc 0
for f in runs meta gpus metrics samples; do [ -f "$tmp/csv/$f.csv" ] || die "$f.csv missing"; done
[ "$(wc -l <"$tmp/csv/runs.csv")" = 4 ] || die "runs.csv: header and 3 runs"
[ "$(wc -l <"$tmp/csv/samples.csv")" = $((1 + 2 * 10 + 4)) ] || die "samples.csv: header and 24 samples"
head -1 "$tmp/csv/metrics.csv" | grep -q '^run_uuid,kind,case_seq,case_name,params,case_status,case_note,metric,unit,n,median' ||
  die "metrics.csv header: $(head -1 "$tmp/csv/metrics.csv")"
grep -q "^$r1,hist_probe,0,op,\"{\"\"i\"\":0}\",ok,,time,us,10,100.1," "$tmp/csv/metrics.csv" || die "metrics.csv rows"
ls -A "$tmp/csv" | grep -q '^\.' && die "temporary files left behind"
# again into the same folder, one run, --no-samples: the first export's samples.csv (three
# runs' samples) does not stay beside this one's runs.csv
run export --format csv --out "$tmp/csv" --run "${r2:0:8}" --no-samples; expect_rc 0
[ "$(wc -l <"$tmp/csv/runs.csv")" = 2 ] || die "runs.csv again: header and 1 run"
[ ! -e "$tmp/csv/samples.csv" ] || die "--no-samples kept an earlier export's samples.csv: $(cut -d, -f1 "$tmp/csv/samples.csv" | sort -u | tr '\n' ' ')"
run export --format csv; expect_rc 2; has "give --out DIR" "$tmp/err"
run export --run ffffffff; expect_rc 2
run export --format xml; expect_rc 2

# queries/regressions.sql: the newest run 25% slower than the median of three older ones
db="$tmp/reg.db"
for s in 1.0 1.02 0.98; do record model=m tp=2 scale=$s >/dev/null; done
record model=m tp=4 scale=3 >/dev/null            # another configuration, alone: no comparison
run query "$XP_SRC/queries/regressions.sql" --format csv; expect_rc 0
[ "$(wc -l <"$tmp/out")" = 1 ] || die "no regression yet: $(cat "$tmp/out")"
new=$(record model=m tp=2 scale=1.25)
run query "$XP_SRC/queries/regressions.sql" --format csv; expect_rc 0
[ "$(grep -c ",${new:0:8}," "$tmp/out")" = 4 ] || die "4 metrics of the newest run regressed: $(cat "$tmp/out")"
grep -F 'hist_probe,m,,,2,,,op,"{""i"":0}",time,us,'"${new:0:8}," "$tmp/out" | grep -qF ",125.125,100.1,3,25,worse" ||
  die "time: 125.1 against a median of 100.1 over 3 older runs: $(cat "$tmp/out")"
grep -F 'op,"{""i"":1}",busbw,GB/s,'"${new:0:8}," "$tmp/out" | grep -qF ",4,5,3,-20,worse" || die "busbw dropped 20%: worse"
# a run whose recorder died (running, on this host, no such process) is 'incomplete' in export
# as in runs and show
db="$tmp/dead.db"
record cases=1 gpu=H100 > /dev/null
sqlite3 "$db" "INSERT INTO runs(uuid, kind, status, started_at, spec_json, spec_sha256, pid, host)
  VALUES ('dead0000-0000-4000-8000-000000000001', 'hist_probe', 'running', '2026-01-01T00:00:00Z', '{}', 'x', 0,
          '$(hostname)')"
run export --status incomplete; expect_rc 0
has '"status":	"incomplete"'
# the export is written through a temporary file of its own, never through a link planted at a
# guessable name beside the target
echo "victim" > "$tmp/victim.txt"
ln -s "$tmp/victim.txt" "$tmp/out.json.tmp"
run export --out "$tmp/out.json"; expect_rc 0
[ "$(cat "$tmp/victim.txt")" = victim ] || die "the export wrote through a planted link"
[ -f "$tmp/out.json" ] && [ ! -L "$tmp/out.json" ] || die "the export is a file of its own"
# an imported trace's own sections (ranks, steps, categories, collectives, heaviest kernels)
# come with its run, as xp show --format json gives them
db="$tmp/trace.db"
run import torch-trace "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz" --set model=m --set tp=2; expect_rc 0
record cases=1 >/dev/null
t=$(sqlite3 "$db" "SELECT uuid FROM runs WHERE kind = 'torch_trace'")
run show "$t" --format json; expect_rc 0; cp "$tmp/out" "$tmp/show.json"
run export --out "$tmp/trace.json"; expect_rc 0
for s in "trace: ranks" "trace: steps (per rank)" "trace: step GPU time by category (all ranks)" \
         "trace: collectives in steps" "trace: heaviest kernels (all ranks)"; do
  shown=$(json "$tmp/show.json" "json_extract(j, '\$.\"$s\"')")
  [ "$(json "$tmp/show.json" "json_array_length(j, '\$.\"$s\"')")" -gt 0 ] || die "show has rows of $s"
  [ "$(json "$tmp/trace.json" "json_extract(j, '\$.runs[0].\"$s\"')")" = "$shown" ] || die "export: $s as show gives it"
done
[ "$(json "$tmp/trace.json" "json_type(j, '\$.runs[1].\"trace: ranks\"')")" = "" ] || die "a probe run has no trace sections"
# a serving import's rows of serve_result_digests (schema 27), as xp show gives them, and the files
# a run kept, by SHA-256: export had neither, so which results an import left out as recorded
# before, and which file a run read, were in the database alone
fmt="$XP_SRC/tests/data/vllm_bench/formats"
db="$tmp/serve.db"
run import vllm-bench "$fmt/vllm_sweep_seqs8_run0.json"; expect_rc 0
run import vllm-bench "$fmt/vllm_sweep_seqs8_summary.json"; expect_rc 0
s=$(sqlite3 "$db" "SELECT uuid FROM runs ORDER BY id DESC LIMIT 1")
run show "$s" --format json; expect_rc 0; cp "$tmp/out" "$tmp/show.json"
run export --run "$s" --no-samples --out "$tmp/serve.json"; expect_rc 0
d="serve: result digests"
[ "$(json "$tmp/serve.json" "json_extract(j, '\$.runs[0].\"$d\"')")" = "$(json "$tmp/show.json" "json_extract(j, '\$.\"$d\"')")" ] ||
  die "export: $d as show gives it"
check "the summary's results: the run file's left out, its own recorded" "0 vllm_sweep_seqs8_summary.json 2|1 vllm_sweep_seqs8_summary.json 44" \
  "$(json "$tmp/serve.json" "(SELECT group_concat(json_extract(value, '\$.recorded') || ' ' || json_extract(value, '\$.file') || ' ' ||
     json_extract(value, '\$.line'), '|') FROM json_each(j, '\$.runs[0].\"$d\"'))")"
check "the file the run kept, by SHA-256" "$(sha256sum < "$fmt/vllm_sweep_seqs8_summary.json" | cut -d' ' -f1)" \
  "$(json "$tmp/serve.json" "json_extract(j, '\$.runs[0].artifacts[0].sha256')")"
run show "$s"; expect_rc 0; has "== serve: result digests =="
# and in CSV, a table each, joined by run_uuid
run export --run "$s" --no-samples --format csv --out "$tmp/serve_csv"; expect_rc 0
check "result_digests.csv" "run_uuid,seq,digest,recorded,file_no,listed,file,line|$s,0,|$s,1," \
  "$(head -1 "$tmp/serve_csv/result_digests.csv")|$(tail -n +2 "$tmp/serve_csv/result_digests.csv" | cut -d, -f1-3 |
     sed -E 's/,[0-9a-f]{64}$/,/' | paste -sd'|')"
check "artifacts.csv" "run_uuid,name,media_type,size,sha256|$s,vllm-bench/0-vllm_sweep_seqs8_summary.json" \
  "$(head -1 "$tmp/serve_csv/artifacts.csv")|$(tail -n +2 "$tmp/serve_csv/artifacts.csv" | cut -d, -f1-2)"
echo "ok: export and regressions"
finish
