#!/usr/bin/env bash
# Schema 30 takes each trace run's sums from that run's own rows (trace_step_totals'
# subqueries, the per-kernel view trace_step_kernel_stats that the queries and xp report join
# by run), where schema 15's view summed every run of the database first; the speed is
# bench/trace_query_bench.sh's. Here the answers: the views give the rows that schema 12, 13,
# 15 and 22's definitions give (below), on a history of every kind they tell apart:
# a two-rank job, one of its ranks imported alone (superseded), an import whose steps were
# misnamed (no steps: left out), a job without step marks (whole window), a single-rank one,
# and after a rule moves half the all-reduces to "other"; and the three queries answer the same
# on a database of schema 29 (the views as TEMP views, nothing written) as once migrated.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/trace"
v="$data/variants"
rules="$XP_SRC/importers/torch_trace/categories.tsv"
q="$XP_SRC/queries"

imp() { # imp ARGS...: xp import torch-trace ARGS into $db
  "$XP" --db "$db" import torch-trace "$@" > /dev/null 2>&1 || { echo "FAIL: import $*"; fail=1; }
}
imp "$data/decode_tp2_bs1_rank0.trace.json.gz" "$data/decode_tp2_bs1_rank1.trace.json.gz" \
  --set model=M --set tp=2 --set batch=1 --set interconnect=nvlink
imp "$data/decode_tp2_bs1_rank0.trace.json.gz" --set model=M --set tp=2 --set batch=1
imp "$data/decode_tp2_bs1_rank1.trace.json.gz" --step-annotation no_such_step --set model=N --set tp=2 --set batch=1
imp "$v/vllm_r0.json.gz" "$v/vllm_r1.json.gz" --set model=V --set tp=2 --set batch=8
imp "$v/cugraph_r1.json.gz" --set model=C --set tp=2 --set batch=2

# schema 12's trace_step_categories, 13's trace_step_collectives, and 22's trace_collective_kernels
# and 15's trace_step_totals (their text, reading the others here)
old="WITH old_categories AS (
  SELECT k.run_id, k.rank, k.step, s.category, sum(k.count) AS count, sum(k.total_ns) AS total_ns
  FROM trace_step_kernels k
  JOIN trace_kernel_stats s ON s.run_id = k.run_id AND s.rank = k.rank AND s.name_id = k.name_id AND s.coll = k.coll
  GROUP BY 1, 2, 3, 4),
old_collective_kernels AS ($(sed -n '/^CREATE VIEW trace_collective_kernels AS/,$p' "$XP_SRC/schema/022_trace_dtype.sql" |
  sed '1d; s/;$//')),
old_collectives AS (
  SELECT run_id, rank, step, collective, count(*) AS kernels, count(match_group) AS matched, sum(dur_ns) AS dur_ns,
         sum(CASE WHEN match_group IS NOT NULL THEN dur_ns END) AS matched_dur_ns,
         sum(wait_ns) AS wait_ns, sum(transfer_ns) AS transfer_ns
  FROM old_collective_kernels GROUP BY run_id, rank, step, collective),
old_totals AS ($(sed -n '/^CREATE VIEW trace_step_totals AS/,$p' "$XP_SRC/schema/015_trace_step_totals.sql" |
  sed '1d; s/trace_step_categories/old_categories/; s/trace_step_collectives/old_collectives/; s/;$//'))"
differences() { # the rows one side has and the other lacks, each way, and how many each view has
  sql "$old SELECT (SELECT count(*) FROM (SELECT * FROM old_totals EXCEPT SELECT * FROM trace_step_totals))
         || ' ' || (SELECT count(*) FROM (SELECT * FROM trace_step_totals EXCEPT SELECT * FROM old_totals))
         || ' ' || (SELECT count(*) FROM (SELECT * FROM old_categories EXCEPT SELECT * FROM trace_step_categories))
         || ' ' || (SELECT count(*) FROM (SELECT * FROM trace_step_categories EXCEPT SELECT * FROM old_categories))
         || ' ' || (SELECT count(*) FROM (SELECT * FROM old_collective_kernels EXCEPT SELECT * FROM trace_collective_kernels))
         || ' ' || (SELECT count(*) FROM (SELECT * FROM trace_collective_kernels EXCEPT SELECT * FROM old_collective_kernels))
         || ' totals ' || (SELECT count(*) FROM trace_step_totals)
         || ', window ' || (SELECT sum(whole_window) FROM trace_step_totals)
         || ', single-rank ' || (SELECT sum(single_rank) FROM trace_step_totals)
         || ', waiting ' || (SELECT count(*) FROM trace_step_totals WHERE allreduce_wait_ns > 0)
         || ', matched ' || (SELECT count(*) FROM trace_step_totals WHERE allreduce_matched_ns > 0)
         || ', all-reduce ' || (SELECT count(*) FROM trace_step_totals WHERE allreduce_ns > 0) AS x"
}
# the decode job (the rank imported alone is superseded, the misnamed steps have none), vLLM's
# job (whole window, matched by time) and a CUDA-graph rank alone (single-rank: nothing matched)
check "the views as schemas 12 and 15 defined them" \
  "0 0 0 0 0 0 totals 3, window 1, single-rank 1, waiting 2, matched 2, all-reduce 3" "$(differences | tr -d '"')"

answers() { # answers DB: the three queries and the report's trace charts
  "$XP" --db "$1" query "$q/allreduce_share.sql" --param tp=2 --param interconnect=any --format csv
  "$XP" --db "$1" query "$q/bottleneck_by_config.sql" --format csv
  "$XP" --db "$1" query "$q/decode_gap_analysis.sql" --param model=M --param tp=2 --param batch=1 \
    --param interconnect=any --format csv
  "$XP" --db "$1" report --out - | sed -E 's/<p class="meta">[^<]*<\/p>//'
}
# The decode job again, half its all-reduces renamed TREE_LL, which a rule then files under
# "other": the totals follow the rules in force, as the old views did. Its kernels' names are
# not the first's, so it is a job of its own (schema 32), counted beside the first.
for r in 0 1; do
  zcat "$data/decode_tp2_bs1_rank$r.trace.json.gz" | awk '
    /"name": "ncclDevKernel_AllReduce_Sum_bf16_RING_LL/ && k++ % 2 { sub(/RING_LL/, "TREE_LL") } 1' | gzip > "$tmp/r$r.json.gz"
done
imp "$tmp/r0.json.gz" "$tmp/r1.json.gz" --set model=M --set tp=2 --set batch=1 --set interconnect=pcie
{ grep '^category' "$rules"; printf 'rule\tother\tprefix\tncclDevKernel_AllReduce_Sum_bf16_TREE\n'; grep '^rule' "$rules"; } > "$tmp/T.tsv"
"$XP" --db "$db" reclassify --rules "$tmp/T.tsv" > /dev/null 2>&1 || { echo "FAIL: reclassify"; fail=1; }
check "after a reclassify" "0 0 0 0 0 0 totals 4, window 1, single-rank 1, waiting 3, matched 3, all-reduce 4" \
  "$(differences | tr -d '"')"

# A database of schema 29 read as it is (the views of schema 30 as TEMP views) answers as the
# same database migrated
if command -v sqlite3 > /dev/null; then
  cp "$db" "$tmp/old.db"
  sqlite3 "$tmp/old.db" "DROP VIEW trace_step_kernel_stats;
    $(sed -n '/^DROP VIEW trace_step_categories/,/^GROUP BY 1, 2, 3, 4;/p' "$XP_SRC/schema/012_one_kernel_category.sql")
    $(sed -n '/^DROP VIEW IF EXISTS trace_step_totals/,$p' "$XP_SRC/schema/015_trace_step_totals.sql")
    $(sed -n '/^DROP VIEW IF EXISTS trace_collective_kernels/,$p' "$XP_SRC/schema/022_trace_dtype.sql")
    PRAGMA user_version = 29;"
  answers "$db" > "$tmp/new.out" 2>&1
  answers "$tmp/old.db" 2> /dev/null > "$tmp/old.out"
  cmp -s "$tmp/new.out" "$tmp/old.out" || { echo "FAIL: schema 29 answers otherwise:"; diff "$tmp/old.out" "$tmp/new.out" | head; fail=1; }
  check "schema 29 left as it was" 29 "$(sqlite3 "$tmp/old.db" "PRAGMA user_version")"
fi
finish
