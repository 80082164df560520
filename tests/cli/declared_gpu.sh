#!/usr/bin/env bash
# --set gpu=NAME declares the GPU of results that do not name it (a trace without
# deviceProperties: HTA's samples, some engines' profilers), so that queries group the run
# under its GPU; where the results name the GPU, theirs wins and the disagreement is said; a
# declared name this database already spells otherwise takes that spelling.
set -euo pipefail
. "$XP_SRC/tests/lib.sh"
need_sqlite3
data="$XP_SRC/tests/data/trace"
pro="NVIDIA RTX PRO 6000 Blackwell Server Edition"

run import torch-trace "$data/variants/names.json.gz"   # no deviceProperties: no GPU
expect_rc 0
[ "$(sqlite3 "$db" "SELECT coalesce(gpu_name, 'NULL') FROM runs ORDER BY id DESC LIMIT 1")" = NULL ] ||
  die "a trace without deviceProperties names a GPU"
run import torch-trace "$data/variants/names.json.gz" --set gpu="$pro"
expect_rc 0
[ "$(sqlite3 "$db" "SELECT gpu_name FROM runs ORDER BY id DESC LIMIT 1")" = "$pro" ] ||
  die "declared gpu not recorded: $(sqlite3 "$db" "SELECT gpu_name FROM runs ORDER BY id DESC LIMIT 1")"
run runs --where gpu_name="$pro"; expect_rc 0; has "$pro"

# the trace says H200: that wins, the declared name is kept beside it and the mismatch noted
run import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" --set gpu="$pro"
expect_rc 0
has 'xp: warning: gpu_name: declared "NVIDIA RTX PRO 6000 Blackwell Server Edition" but detected "NVIDIA H200"' "$tmp/err"
[ "$(sqlite3 "$db" "SELECT gpu_name || '|' || (SELECT value FROM run_meta m WHERE m.run_id = r.id AND key = 'gpu_name'
     AND source = 'declared') FROM runs r ORDER BY id DESC LIMIT 1")" = "NVIDIA H200|$pro" ] || die "detected GPU does not win"
# declared as this database already names it ("h200" for the NVIDIA H200 above): recorded under
# that name, with a warning, so that one GPU does not make two configurations; a name that
# folds like none ("H200 NVL") as written
run import torch-trace "$data/variants/names.json.gz" --set gpu=" h200"
expect_rc 0
has 'xp: warning: gpu: declared " h200", which this database'"'"'s runs name "NVIDIA H200": recorded as "NVIDIA H200"' "$tmp/err"
[ "$(sqlite3 "$db" "SELECT gpu_name FROM runs ORDER BY id DESC LIMIT 1")" = "NVIDIA H200" ] ||
  die "declared h200 not recorded as NVIDIA H200: $(sqlite3 "$db" "SELECT gpu_name FROM runs ORDER BY id DESC LIMIT 1")"
run import torch-trace "$data/variants/names.json.gz" --set gpu="H200 NVL"
expect_rc 0
hasnt 'warning: gpu' "$tmp/err"
[ "$(sqlite3 "$db" "SELECT gpu_name FROM runs ORDER BY id DESC LIMIT 1")" = "H200 NVL" ] || die "H200 NVL not as written"
# --where gpu=h200 selects that GPU's runs as a configuration counts them (view gpu_fold), not
# "H200 NVL": it matched the recorded text alone, so no run of "NVIDIA H200" was listed
run runs --where gpu=h200 --format csv; expect_rc 0
[ "$(tail -n +2 "$tmp/out" | cut -d, -f7 | sort | uniq -c | xargs)" = "2 NVIDIA H200" ] ||
  die "runs --where gpu=h200: $(cat "$tmp/out")"
run runs --where "gpu_name=nvidia  h200 " --format csv; expect_rc 0
[ "$(tail -n +2 "$tmp/out" | wc -l)" = 2 ] || die "runs --where gpu_name='nvidia  h200 ': $(cat "$tmp/out")"
run export --where gpu=h200 --format json --no-samples; expect_rc 0
[ "$(python3 -c 'import json, sys; print(*sorted(r["gpu_name"] for r in json.load(sys.stdin)["runs"]), sep=",")' < "$tmp/out")" = \
  "NVIDIA H200,NVIDIA H200" ] || die "export --where gpu=h200: $(cat "$tmp/out")"
run compare --a gpu=h200 --b "gpu=h200 nvl"; expect_rc 0
has "A: torch_trace run"
has "B: torch_trace run"
# declared before any run names that GPU: the name stays as written in the run, and the
# configuration (view run_configuration, which the queries and xp report group by) reads it
# as the runs that later detect the GPU spell it, so one GPU is one configuration
db="$tmp/first.db"
run import torch-trace "$data/variants/names.json.gz" --set gpu=h200 --set model=M --set tp=2 --set batch=1
expect_rc 0
hasnt 'warning: gpu' "$tmp/err"
run import torch-trace "$data/decode_tp2_bs1_rank0.trace.json.gz" --set model=M --set tp=2 --set batch=1
expect_rc 0
[ "$(sqlite3 "$db" "SELECT group_concat(x, ',') FROM (SELECT r.gpu_name || '>' || g.gpu_name AS x
     FROM runs r JOIN run_configuration g ON g.run_id = r.id ORDER BY r.id)")" = "h200>NVIDIA H200,NVIDIA H200>NVIDIA H200" ] ||
  die "declared h200 not read as NVIDIA H200: $(sqlite3 "$db" "SELECT r.gpu_name, g.gpu_name FROM runs r JOIN run_configuration g ON g.run_id = r.id")"
run query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv
expect_rc 0
hasnt ',h200,' "$tmp/out"
[ "$(grep -c '^M,NVIDIA H200,' "$tmp/out")" -gt 0 ] || die "no NVIDIA H200 row: $(cat "$tmp/out")"
# two names of that GPU already ("h200" declared, "NVIDIA H200" detected): a third declared
# spelling takes the one the configuration shows (gpu_spelling), not a spelling of its own
run import torch-trace "$data/variants/names.json.gz" --set gpu=" H200 " --set model=M --set tp=2 --set batch=1
expect_rc 0
has 'recorded as "NVIDIA H200"' "$tmp/err"
[ "$(sqlite3 "$db" "SELECT gpu_name FROM runs ORDER BY id DESC LIMIT 1")" = "NVIDIA H200" ] ||
  die "third spelling not recorded as NVIDIA H200: $(sqlite3 "$db" "SELECT gpu_name FROM runs ORDER BY id DESC LIMIT 1")"
# two declared spellings and nothing detected: the first recorded names both
db="$tmp/declared.db"
run import torch-trace "$data/variants/names.json.gz" --set gpu="RTX PRO 6000"
run import torch-trace "$data/variants/names.json.gz" --set gpu="nvidia  rtx pro 6000"
[ "$(sqlite3 "$db" "SELECT count(DISTINCT gpu_name) || '|' || min(gpu_name) FROM run_configuration")" = "1|RTX PRO 6000" ] ||
  die "two spellings of one declared GPU: $(sqlite3 "$db" "SELECT gpu_name FROM run_configuration")"
echo "ok: declared gpu"
