#!/usr/bin/env bash
# xp import vllm-bench finds a result an earlier import recorded from another file by its digest:
# rows of serve_result_digests (schema 27), the run's own (sealed, carried by xp merge), where
# schema 26 kept lines of run_meta import.vllm_bench.results that every import scanned. The files
# are real vllm bench sweep serve output (tests/data/vllm_bench/formats/PROVENANCE.md): a point's
# run=0.json and its summary.json, which lists that run again.
set -u
. "$XP_SRC/tests/lib.sh"
fmt="$XP_SRC/tests/data/vllm_bench/formats"
run0="$fmt/vllm_sweep_seqs8_run0.json" summary="$fmt/vllm_sweep_seqs8_summary.json"

# the rows of an import: each result read, recorded (1) or left out as imported before (0)
r0=$(import_vllm "$db" "$run0")
"$XP" --db "$db" import vllm-bench "$summary" > /dev/null 2> "$tmp/err"
check "summary.json after its run file: exit, warning" "0|1" "$?|$(grep -c "the same result as vllm_sweep_seqs8_run0.json:1, imported already as run $r0" "$tmp/err")"
check "the rows of both imports" \
  "1 0 1 0 0 vllm_sweep_seqs8_run0.json 1|2 0 0 0 1 vllm_sweep_seqs8_summary.json 2|2 1 1 0 1 vllm_sweep_seqs8_summary.json 44" \
  "$(query "SELECT group_concat(run_id || ' ' || seq || ' ' || recorded || ' ' || file_no || ' ' || listed || ' ' || file || ' ' || line, '|')
    FROM (SELECT * FROM serve_result_digests ORDER BY run_id, seq)")"
check "a digest each, that of the run file's result twice" "3 2" \
  "$(query "SELECT count(*) || ' ' || count(DISTINCT digest) FROM serve_result_digests WHERE length(digest) = 64")"
check "no text lines in run_meta any more" 0 "$(sql "SELECT count(*) FROM run_meta WHERE key LIKE 'import.vllm_bench%'")"
check "the rows sealed with their runs" 0 "$("$XP" --db "$db" verify > /dev/null 2>&1; echo $?)"

# xp merge carries them with the runs: the run file after the merged summary is nothing new
s0=$(import_vllm "$tmp/summary.db" "$summary")
"$XP" --db "$tmp/merged.db" merge "$tmp/summary.db" > /dev/null 2>&1
check "merged: the rows" "2" "$(db="$tmp/merged.db" sql "SELECT count(*) FROM serve_result_digests")"
one_line "merged: the run file after its summary" 2 \
  "vllm_sweep_seqs8_run0.json:1: the same result as vllm_sweep_seqs8_summary.json:2, imported already as run $s0:" \
  "$XP" --db "$tmp/merged.db" import vllm-bench "$run0"

# An import refused as nothing new leaves no run behind, as one refused for bad input: before, a
# failed run whose error said so, in every list of runs (the other importers record a file read
# twice, and the views count it once: schema 24 and 25). --dry-run plans what the import would
# record: the summary after its run file its run 1 alone (before, both), the warning said
runs_now() { db="$tmp/merged.db" sql "SELECT count(*) || ' ' || sum(status = 'ok') FROM runs"; }
before=$(runs_now)
"$XP" --db "$tmp/merged.db" import vllm-bench "$run0" > "$tmp/out" 2> /dev/null
check "nothing new: no run left behind, none said" "$before|0" "$(runs_now)|$(grep -c '^run ' "$tmp/out")"
one_line "nothing new, --dry-run: refused alike" 2 "vllm_sweep_seqs8_run0.json:1: the same result as .*nothing given is new" \
  "$XP" --db "$tmp/merged.db" import vllm-bench "$run0" --dry-run
"$XP" --db "$tmp/plan.db" import vllm-bench "$run0" > /dev/null
"$XP" --db "$tmp/plan.db" import vllm-bench "$summary" --dry-run > "$tmp/out" 2> "$tmp/err"
check "--dry-run after the run file: exit, the warning" "0|1" "$?|$(grep -c 'summary.json:2: the same result as vllm_sweep_seqs8_run0.json:1, imported already as run' "$tmp/err")"
check "--dry-run after the run file: the summary's run 1 alone" "would record one serve_bench run of facebook/opt-125m with 1 case:|36.01" \
  "$(head -1 "$tmp/out")|$(awk '/^concurrency=2/ {print $5}' "$tmp/out" | tr '\n' ' ' | sed 's/ $//')"
check "--dry-run: nothing written" "1" "$(db="$tmp/plan.db" sql "SELECT count(*) FROM runs")"
"$XP" --db "$tmp/none.db" import vllm-bench "$summary" --dry-run > "$tmp/out" 2>&1
check "--dry-run without a database: both results, none made" "0|2|no" \
  "$?|$(grep -c '^concurrency=2 ' "$tmp/out")|$([ -e "$tmp/none.db" ] && echo yes || echo no)"

# A database of schema 26 (tests/data/vllm_bench/schema26_sweep_run0.sql.gz: what xp at c6ca9eb
# left after importing the run file) keeps recognising its import once migrated, seals intact,
# and so does one that merges it
if command -v sqlite3 > /dev/null; then
  gzip -dc "$XP_SRC/tests/data/vllm_bench/schema26_sweep_run0.sql.gz" | sqlite3 "$tmp/old.db"
  for d in "$tmp/old.db" "$tmp/took_old.db"; do
    [ "$d" = "$tmp/took_old.db" ] && "$XP" --db "$d" merge "$tmp/old.db" > /dev/null 2>&1
    "$XP" --db "$d" import vllm-bench "$summary" > /dev/null 2> "$tmp/err"
    check "schema 26 ($(basename "$d")): the summary after the run file it imported" "0|1" \
      "$?|$(grep -c "the same result as vllm_sweep_seqs8_run0.json:1, imported already as run ccc25f39: not recorded again" "$tmp/err")"
    check "schema 26 ($(basename "$d")): the summary's run 1 alone" "1" \
      "$(db="$d" sql "SELECT count(*) FROM cases WHERE run_id = (SELECT max(id) FROM runs)")"
    check "schema 26 ($(basename "$d")): verify" 0 "$("$XP" --db "$d" verify > /dev/null 2>&1; echo $?)"
    check "schema 26 ($(basename "$d")): the old lines where they were" 1 \
      "$(db="$d" sql "SELECT count(*) FROM run_meta WHERE key = 'import.vllm_bench.results'")"
  done
  # An import refused as nothing new leaves a schema 26 database as it was, as every refused
  # command does (README): before, opening it to write had migrated it to 27 first, which the
  # xp that wrote it then refuses as newer. The file: a point run once, its summary.json listing
  # run=0.json's one result again, as vllm bench sweep serve writes it (json.dump, indent 4)
  gzip -dc "$XP_SRC/tests/data/vllm_bench/schema26_sweep_run0.sql.gz" | sqlite3 "$tmp/old26.db"
  cp "$tmp/old26.db" "$tmp/old26_before.db"
  python3 -c 'import json, sys; json.dump([json.load(open(sys.argv[1]))], open(sys.argv[2], "w"), indent=4)' \
    "$run0" "$tmp/summary_once.json"
  one_line "schema 26: a summary that holds nothing new" 2 \
    "summary_once.json:2: the same result as vllm_sweep_seqs8_run0.json:1, imported already as run ccc25f39" \
    "$XP" --db "$tmp/old26.db" import vllm-bench "$tmp/summary_once.json"
  check "schema 26: refused, left as it was" "26|same" \
    "$(sqlite3 "$tmp/old26.db" 'PRAGMA user_version')|$(cmp -s "$tmp/old26.db" "$tmp/old26_before.db" && echo same)"
  # An import by an xp before digests (tests/data/vllm_bench/schema26_undigested_run0.sql.gz:
  # xp at 55d67c2, the run file imported) kept none, only the file whole, as an artifact: read
  # from there, its result is found as the others are. Before, the summary recorded it again
  gzip -dc "$XP_SRC/tests/data/vllm_bench/schema26_undigested_run0.sql.gz" | sqlite3 "$tmp/undigested.db"
  old=$(db="$tmp/undigested.db" sql "SELECT substr(uuid, 1, 8) FROM runs")
  one_line "no digests: a summary that holds nothing new" 2 \
    "summary_once.json:2: the same result as vllm_sweep_seqs8_run0.json:1, imported already as run $old" \
    "$XP" --db "$tmp/undigested.db" import vllm-bench "$tmp/summary_once.json"
  "$XP" --db "$tmp/undigested.db" import vllm-bench "$summary" > /dev/null 2> "$tmp/err"
  check "no digests: the summary's run 1 alone, a warning" "0|1|1" "$?|$(grep -c "imported already as run $old" "$tmp/err")|$(
    db="$tmp/undigested.db" sql "SELECT count(*) FROM cases WHERE run_id = (SELECT max(id) FROM runs)")"
  "$XP" --db "$tmp/undigested.db" import vllm-bench "$run0" > /dev/null 2> "$tmp/err"
  check "no digests: the run file itself again, recorded" "0|0" "$?|$(wc -l < "$tmp/err")"
else
  echo "note: the sqlite3 CLI is missing; the migration to schema 27 is not exercised"
fi
finish
