#!/usr/bin/env bash
# xp report: traces imported without their configuration (no --set model= tp= batch=) are not
# one configuration because they ran on one GPU: each job is a row of the shares chart and a
# line of the AllReduce chart of its own, labelled by what is known (its first rank's file,
# its ranks, GPU and run), while a job imported twice still counts once.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
tr="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"
# another job: the same trace recorded an hour later, under another name
zcat "$tr" | sed 's/"baseTimeNanoseconds": 1790857026000000000/"baseTimeNanoseconds": 1790860626000000000/' |
  gzip > "$tmp/other_job.trace.json.gz"
run import torch-trace "$tr"; expect_rc 0
run import torch-trace "$tmp/other_job.trace.json.gz"; expect_rc 0
run import torch-trace "$tr"; expect_rc 0   # the first job again: counts once
a=$("$XP" --db "$db" runs --format csv | awk -F, 'NR > 1 { print substr($1, 1, 8) }')
run report --out "$tmp/r.html"; expect_rc 0
# the two charts, each section to its end
awk '/<section class="chart-section"/ { s = 0 } /id="shares"/ { s = 1 } s' "$tmp/r.html" > "$tmp/shares"
awk '/<section class="chart-section"/ { s = 0 } /id="allreduce"/ { s = 1 } s' "$tmp/r.html" > "$tmp/allreduce"
[ -s "$tmp/shares" ] && [ -s "$tmp/allreduce" ] || die "the report has no shares or allreduce section"
for f in shares allreduce; do
  [ "$(grep -o 'undeclared: decode_tp2_bs1_rank0.trace.json.gz · 1 rank · [^<"]* · run [0-9a-f]\{8\}' "$tmp/$f" | sort -u | wc -l)" = 1 ] ||
    die "$f: the first job, once: $(grep -o 'undeclared[^<"]*' "$tmp/$f" | sort -u)"
  [ "$(grep -o 'undeclared: other_job.trace.json.gz · 1 rank · [^<"]* · run [0-9a-f]\{8\}' "$tmp/$f" | sort -u | wc -l)" = 1 ] ||
    die "$f: the other job on its own: $(grep -o 'undeclared[^<"]*' "$tmp/$f" | sort -u)"
  has "A job imported without its configuration is shown on its own" "$tmp/$f"
done
hasnt "latest of 2 runs" "$tmp/shares"
has "For each of 2 configurations" "$tmp/shares"
has "Each imported trace run (2)" "$tmp/allreduce"
# bottleneck_by_config.sql, which the shares chart matches, keeps the jobs apart too, under the
# report's labels (schema view run_configuration)
run query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv; expect_rc 0
[ "$(grep -o 'undeclared: decode_tp2_bs1_rank0.trace.json.gz · 1 rank · [^,]* · run [0-9a-f]\{8\}' "$tmp/out" | sort -u | wc -l)" = 1 ] ||
  die "bottleneck_by_config: the first job, once: $(cat "$tmp/out")"
[ "$(grep -o 'undeclared: other_job.trace.json.gz · 1 rank · [^,]* · run [0-9a-f]\{8\}' "$tmp/out" | sort -u | wc -l)" = 1 ] ||
  die "bottleneck_by_config: the other job on its own: $(cat "$tmp/out")"
grep -q 'undeclared: decode_tp2_bs1_rank0.trace.json.gz · [^,]* · run [0-9a-f]\{8\},allreduce,[0-9.]*,[^,]*,1,' "$tmp/out" ||
  die "bottleneck_by_config: the first job's allreduce row counts 1 run: $(cat "$tmp/out")"
labels() { grep -o 'undeclared: [^,<":]* · run [0-9a-f]\{8\}' "$1" | sort -u; }
[ "$(labels "$tmp/out")" = "$(labels "$tmp/shares")" ] ||
  die "bottleneck_by_config and the shares chart name the jobs alike: [$(labels "$tmp/out")] against [$(labels "$tmp/shares")]"
echo "ok: undeclared jobs apart"
