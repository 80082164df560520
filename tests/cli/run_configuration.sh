#!/usr/bin/env bash
# One definition of a configuration (schema views run_configuration and trace_step_totals):
# xp report, bottleneck_by_config.sql and allreduce_share.sql group the trace runs that count
# as the views do, under the views' labels; a database of schema 13 answers the same, read as
# it is and once migrated, after which the views are a fresh database's.
set -u
. "$XP_SRC/tests/lib.sh"
tr="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank"
q="$XP_SRC/queries"
job() { # job N FILE: the two-rank sample N hours later, as another job, ranks in FILE0/FILE1
  for r in 0 1; do
    zcat "$tr$r.trace.json.gz" | sed "s/\"baseTimeNanoseconds\": 1790857026000000000/\"baseTimeNanoseconds\": $((1790857026 + 3600 * $1))000000000/" |
      gzip > "$2$r.json.gz"
  done
}
imp() { "$XP" --db "$db" import torch-trace "$@" > /dev/null 2>&1 || { echo "FAIL: import $*"; fail=1; }; }
for n in 1 2 3 4 5; do job $n "$tmp/j$n-r"; done
decl="--set model=M --set tp=2 --set batch=1 --set interconnect=nvlink"
imp "${tr}0.trace.json.gz" "${tr}1.trace.json.gz" $decl --set engine=torch  # M, engine=torch: 2 runs
imp "$tmp/j1-r0.json.gz" "$tmp/j1-r1.json.gz" $decl --set engine=torch
imp "$tmp/j1-r0.json.gz" $decl --set engine=torch                           # superseded: counts once
imp "$tmp/j2-r0.json.gz" "$tmp/j2-r1.json.gz" $decl                          # M, nothing else declared
imp "$tmp/j3-r1.json.gz" --set tp=2                                           # partly declared
imp "$tmp/j4-r0.json.gz"                                                      # undeclared, one rank
imp "$tmp/j5-r0.json.gz" "$tmp/j5-r1.json.gz"                                 # undeclared, two ranks
imp "$tmp/j5-r0.json.gz" "$tmp/j5-r1.json.gz"                                 # the same job again

# The configurations as the views say, with how many runs each holds.
configs() { # configs [TP]: model,gpu,interconnect,tp,batch,config,runs of the runs that count
  query "SELECT model, gpu_name, interconnect, tp, batch, coalesce(undeclared, config), count(*)
         FROM trace_step_totals JOIN run_configuration USING (run_id)
         ${1:+WHERE tp = $1} GROUP BY 1, 2, 3, 4, 5, 6 ORDER BY 1, 2, 3, 4, 5, 6"
}
configs | LC_ALL=C sort > "$tmp/views"
check "the views: 5 configurations, the runs that count" \
  "5 2 1" "$(wc -l < "$tmp/views") $(grep -c '^,.*undeclared: ' "$tmp/views") $(grep -c ',2$' "$tmp/views")"
grep -q '^,NVIDIA H200,,,,undeclared: j5-r0.json.gz · 2 ranks · NVIDIA H200 · run [0-9a-f]\{8\},1$' "$tmp/views" ||
  { echo "FAIL: the views: an undeclared job, labelled by its file, ranks, GPU and run: $(cat "$tmp/views")"; fail=1; }

# bottleneck_by_config: a row group per configuration of the views, as many runs (its most
# widely seen category: every run has GPU time in GEMMs).
"$XP" --db "$db" query "$q/bottleneck_by_config.sql" --format csv > "$tmp/bottleneck" 2>&1 ||
  { echo "FAIL: bottleneck_by_config: $(cat "$tmp/bottleneck")"; fail=1; }
check "bottleneck_by_config groups as the views" "$(cat "$tmp/views")" \
  "$(awk -F, 'NR > 1 && $7 == "gemm" { print $1 "," $2 "," $3 "," $4 "," $5 "," $6 "," $10 }' "$tmp/bottleneck" | LC_ALL=C sort)"
# allreduce_share at TP 2, any interconnect: the configurations of the views at that TP (less
# the TP, which it asks for)
"$XP" --db "$db" query "$q/allreduce_share.sql" --param tp=2 --param interconnect=any --format csv > "$tmp/share" 2>&1 ||
  { echo "FAIL: allreduce_share: $(cat "$tmp/share")"; fail=1; }
check "allreduce_share groups as the views" "$(configs 2 | awk -F, '{ print $1 "," $2 "," $3 "," $5 "," $6 "," $7 }' | LC_ALL=C sort)" \
  "$(awk -F, 'NR > 1 { print $1 "," $2 "," $3 "," $4 "," $5 "," $6 }' "$tmp/share" | LC_ALL=C sort)"
# xp report: a bar per configuration of the views, the undeclared ones under the views' labels
"$XP" --db "$db" report --out "$tmp/r.html" > /dev/null 2>&1 || { echo "FAIL: report"; fail=1; }
awk '/<section class="chart-section"/ { s = 0 } /id="shares"/ { s = 1 } s' "$tmp/r.html" > "$tmp/shares"
grep -q "For each of $(wc -l < "$tmp/views") configurations" "$tmp/shares" ||
  { echo "FAIL: report: a row per configuration of the views ($(wc -l < "$tmp/views")): $(grep -o 'For each of [0-9]* config' "$tmp/shares")"; fail=1; }
check "report: the undeclared configurations of the views" \
  "$(grep -o 'undeclared: [^,]*' "$tmp/views" | LC_ALL=C sort -u)" \
  "$(grep -o 'undeclared: [^<":]* · run [0-9a-f]\{8\}' "$tmp/shares" | LC_ALL=C sort -u)"

# A database of schema 13: the fresh one less the views of 14 and 15.
answers() { # answers DB: the report (less its header line, which names the file and the hour) and the queries
  "$XP" --db "$1" report --out "$tmp/a.html" > /dev/null 2>&1 && sed 3d "$tmp/a.html"
  "$XP" --db "$1" query "$q/bottleneck_by_config.sql" --format csv
  "$XP" --db "$1" query "$q/allreduce_share.sql" --param tp=2 --param interconnect=any --format csv
}
if command -v sqlite3 > /dev/null; then
  answers "$db" > "$tmp/answers" 2> /dev/null
  old="$tmp/old.db"
  cp "$db" "$old"
  sqlite3 "$old" "DROP VIEW run_configuration; DROP VIEW trace_step_totals; PRAGMA user_version = 13"
  check "schema 13, read as it is" "$(cat "$tmp/answers")" "$(answers "$old" 2> /dev/null)"
  check "schema 13, read as it is: left as it was" "13|0" \
    "$(sqlite3 "$old" "PRAGMA user_version; SELECT count(*) FROM sqlite_schema WHERE name IN ('run_configuration', 'trace_step_totals')" | paste -sd'|')"
  "$XP" --db "$old" reclassify > /dev/null 2>&1  # a writing xp migrates it
  check "schema 13 migrated: the views of a fresh database" "$(schema_views "$db")" "$(schema_views "$old")"
  check "schema 13 migrated: the same answers" "$(cat "$tmp/answers")" "$(answers "$old" 2> /dev/null)"
else
  echo "note: the sqlite3 CLI is missing; the database of schema 13 is not exercised"
fi
finish
