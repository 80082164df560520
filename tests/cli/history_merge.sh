#!/usr/bin/env bash
# xp merge (issue 7): union by run UUID with every row of every run table, decisions too;
# merging twice changes nothing (same dump, byte for byte); both chains verify; a non-xp file,
# a newer schema, the database itself and a tampered run are refused with nothing changed.
# With the shared torch fixtures, trace runs (and their kernel-name dictionary) merge too.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
need_sqlite3
a="$tmp/a.db" b="$tmp/b.db"
# Two databases: record and run name theirs first, as $db for lib.sh's.
record() { local db=$1; shift; { "$PROBE" record "$db" "$@" 2>/dev/null || true; } | tail -1; }
run() { local db=$1; shift; "$XP" --db "$db" "$@" >"$tmp/out" 2>"$tmp/err" && rc=0 || rc=$?; }
dump() { sqlite3 "$1" .dump | sha256sum | cut -d' ' -f1; }
count() { sqlite3 "$1" "$2"; }

run "$a" merge --help; expect_rc 0; has "usage: xp merge"
a1=$(record "$a" cases=2 gpu=H100)
a2=$(record "$a" cases=2 gpu=H100 scale=1.1)
b1=$(record "$b" cases=3 gpu=H200 model=llama tp=8 share=40)
b2=$(record "$b" cases=1 gpu=H200 fail=true)
run "$b" decide "Use H200" --because "faster" --evidence "$b1"; expect_rc 0
# a run B never finished: skipped with a note
sqlite3 "$b" "INSERT INTO runs(uuid, kind, status, started_at, spec_json, spec_sha256, pid, host)
  VALUES ('dead0000-0000-4000-8000-000000000001', 'hist_probe', 'running', '2026-01-01T00:00:00Z', '{}', 'x', 1, 'elsewhere')"

b_samples=$(count "$b" "SELECT count(*) FROM samples")
a_samples=$(count "$a" "SELECT count(*) FROM samples")
run "$a" merge "$b"; expect_rc 0
has "from $b: 2 runs merged, 0 already here, 1 skipped (still running); 1 decision merged, 0 already here"
has "note: run dead0000-0000-4000-8000-000000000001 is still running"
[ "$(count "$a" "SELECT count(*) FROM runs")" = 4 ] || die "A should hold 4 runs"
[ "$(count "$a" "SELECT count(*) FROM samples")" = $((a_samples + b_samples)) ] || die "every sample came along"
for u in "$b1" "$b2"; do
  [ "$(count "$a" "SELECT content_sha256 FROM runs WHERE uuid = '$u'")" = "$(count "$b" "SELECT content_sha256 FROM runs WHERE uuid = '$u'")" ] ||
    die "run $u: its content hash must survive the merge"
done
[ "$(count "$a" "SELECT group_concat(chain_seq) FROM (SELECT chain_seq FROM runs ORDER BY chain_seq)")" = "1,2,3,4" ] ||
  die "merged runs are sealed at the end of A's chain"
run "$a" verify; expect_rc 0; has "4 sealed runs, chain of 4 links (head "; has ", 1 decision,"
run "$a" audit; has "decision "; has "Use H200"

# merging again changes nothing, byte for byte
before=$(dump "$a")
run "$a" merge "$b"; expect_rc 0
has "0 runs merged, 2 already here, 1 skipped (still running); 0 decisions merged, 1 already here"
[ "$(dump "$a")" = "$before" ] || die "a second merge changed the database"

# and back: B gets A's runs; its own chain verifies
run "$b" merge "$a"; expect_rc 0; has "2 runs merged, 2 already here"
run "$b" verify; expect_rc 0

# refusals leave A as it was
echo "not a database" >"$tmp/junk.db"
run "$a" merge "$tmp/junk.db"; expect_rc 3; has "not an xp database" "$tmp/err"
sqlite3 "$tmp/plain.db" "CREATE TABLE t(x); INSERT INTO t VALUES (1)"
run "$a" merge "$tmp/plain.db"; expect_rc 3; has "not an xp database" "$tmp/err"
cp "$b" "$tmp/newer.db"; sqlite3 "$tmp/newer.db" "PRAGMA user_version = 999"
run "$a" merge "$tmp/newer.db"; expect_rc 3; has "newer xp" "$tmp/err"
run "$a" merge "$a"; expect_rc 2; has "is this database itself" "$tmp/err"
run "$a" merge "$tmp/missing.db"; expect_rc 2; has "missing.db: no such file" "$tmp/err"
c="$tmp/c.db"
c1=$(record "$c" cases=2 gpu=A100)
sqlite3 "$c" "DROP TRIGGER xp_append_only_samples_update; UPDATE samples SET value = value + 1 WHERE seq = 0"
run "$a" merge "$c"; expect_rc 5; has "run $c1 does not match its seal there" "$tmp/err"
[ "$(dump "$a")" = "$before" ] || die "a refused merge changed the database"
# a finished run whose seal was cleared there: nothing to check it against, so not sealed here
u="$tmp/u.db"
u1=$(record "$u" cases=2 gpu=A100)
sqlite3 "$u" "DROP TRIGGER xp_append_only_runs_update; UPDATE runs SET chain_seq = NULL, content_sha256 = NULL,
  chain_sha256 = NULL, content_digests = NULL"
run "$a" merge "$u"; expect_rc 5; has "run $u1 is finished (ok) but unsealed there" "$tmp/err"
[ "$(dump "$a")" = "$before" ] || die "a refused merge changed the database"
# a run already here whose copy there was edited under its seal: said, where "2 already here" passed
# over it in silence (the seals alike, OTHER's rows were not hashed); this database's copy is kept
e2="$tmp/e2.db"
cp "$a" "$e2"
sqlite3 "$e2" "DROP TRIGGER xp_append_only_samples_update; UPDATE samples SET value = value * 2
  WHERE case_id IN (SELECT c.id FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid = '$a1')"
run "$a" merge "$e2"; expect_rc 0; has "0 runs merged, 4 already here"
has "run $a1: its copy in $e2 does not match its seal there (xp --db $e2 verify names what changed); this database's copy is kept" "$tmp/err"
[ "$(wc -l <"$tmp/err")" = 1 ] || die "one line for the one edited run: $(cat "$tmp/err")"
[ "$(dump "$a")" = "$before" ] || die "an edited copy changed this database"

# a decision superseded on both sides, apart: merged, and the merge says it is superseded twice
s1="$tmp/s1.db" s2="$tmp/s2.db"
e=$(record "$s1" cases=1 gpu=H200)
run "$s1" decide "Keep TP=8" --because "fastest" --evidence "${e:0:8}"; expect_rc 0
d0=$(sed -n 's/^decision \([0-9a-f-]*\) recorded.*/\1/p' "$tmp/out")
cp "$s1" "$s2"
run "$s1" decide "Move to TP=4" --because "A saw it" --evidence "${e:0:8}" --supersedes "${d0:0:8}"; expect_rc 0
run "$s2" decide "Move to EP=8" --because "B saw it" --evidence "${e:0:8}" --supersedes "${d0:0:8}"; expect_rc 0
run "$s1" merge "$s2"; expect_rc 0; has "1 decision merged"
has "decision $d0 is superseded twice" "$tmp/err"
# ... and says what can be done: "record a decision that supersedes both" was refused (exit 2,
# --supersedes given twice); superseding the other one is what a decision can say
has "say which holds with xp decide ... --supersedes" "$tmp/err"
tp4=$(sed -n 's/.* by \([0-9a-f-]*\) and \([0-9a-f-]*\) (made apart.*/\1/p' "$tmp/err")
ep8=$(sed -n 's/.* by \([0-9a-f-]*\) and \([0-9a-f-]*\) (made apart.*/\2/p' "$tmp/err")
# xp audit's list names both successors, where it named the first alone ("-- superseded by TP4"),
# as if the fork were settled
run "$s1" audit; expect_rc 0
has "decision $d0: Keep TP=8 ("
has ") -- superseded twice, by $tp4 and $ep8 (made apart, then merged): both stand"
# ... and so does xp decide, refusing a third successor (it named the first: "supersede that one")
run "$s1" decide "TP=2" --because "w" --evidence "${e:0:8}" --supersedes "${d0:0:8}"; expect_rc 2
has "decision $d0 is already superseded more than once, by $tp4 and $ep8 (made apart, then merged): supersede the one that does not hold" "$tmp/err"
run "$s1" decide "TP=4 holds" --because "measured both" --evidence "${e:0:8}" --supersedes "${tp4:0:8}"; expect_rc 0
# a later merge says nothing of a fork merged before (each weekly merge repeated it, settled or not)
s3="$tmp/s3.db"
record "$s3" cases=1 gpu=H200 > /dev/null
run "$s1" merge "$s3"; expect_rc 0
hasnt "superseded twice" "$tmp/err"
# merged the other way, the successors are named oldest first, as audit and decide name them
# (it listed them as this database's rows lay: B's own EP=8 before A's older TP=4)
run "$s2" merge "$s1"; expect_rc 0
has "decision $d0 is superseded twice, by $tp4 and $ep8 (made apart, now merged)" "$tmp/err"
run "$s2" audit; expect_rc 0
has ") -- superseded twice, by $tp4 and $ep8 (made apart, then merged): both stand"
run "$s2" audit "${d0:0:8}"; has "SUPERSEDED by: $tp4 and $ep8"

# traces: every trace table and the kernel-name dictionary come along
T="${XP_SHARED:-}/fixtures/torch"
if [ -f "$T/decode_tp2_bs1_rank0.trace.json.gz" ] && "$XP" help kinds | grep -q torch_trace; then
  t1="$tmp/t1.db" t2="$tmp/t2.db"
  "$XP" --db "$t1" import torch-trace "$T/decode_tp2_bs16_rank0.trace.json.gz" "$T/decode_tp2_bs16_rank1.trace.json.gz" >/dev/null 2>&1
  "$XP" --db "$t2" import torch-trace "$T/decode_tp2_bs1_rank0.trace.json.gz" "$T/decode_tp2_bs1_rank1.trace.json.gz" >/dev/null 2>&1
  tables="trace_imports trace_ranks trace_kernels trace_steps trace_step_kernels trace_collectives trace_shapes"
  declare -A want
  for tb in $tables; do
    want[$tb]=$(( $(count "$t1" "SELECT count(*) FROM $tb") + $(count "$t2" "SELECT count(*) FROM $tb") ))
  done
  run "$t1" merge "$t2"; expect_rc 0; has "1 run merged"
  for tb in $tables; do
    [ "$(count "$t1" "SELECT count(*) FROM $tb")" = "${want[$tb]}" ] || die "$tb rows were not all merged"
  done
  [ "$(count "$t1" "SELECT count(*) FROM trace_kernels k LEFT JOIN trace_names n ON n.id = k.name_id WHERE n.id IS NULL")" = 0 ] ||
    die "merged trace kernels must find their names"
  run "$t1" verify; expect_rc 0
  echo "ok: merge (with traces)"
else
  echo "ok: merge (trace part skipped: no torch fixtures or torch_trace kind in this build)"
fi

# a trace reclassified by rules of its own (a category this database lacks), merged into a
# database with no trace yet: its answers stay what they were (the names came with a category
# whose group was unknown here, and dropped out of every share)
if "$XP" help kinds | grep -q torch_trace; then
  r1="$tmp/r1.db" r2="$tmp/r2.db"
  awk '/^category\tother\t/ { print; print "category\tpointwise\tcompute"; next }
       /^rule/ && !done { print "rule\tpointwise\tcontains\telementwise_kernel"; done = 1 } { print }' \
    "$XP_SRC/importers/torch_trace/categories.tsv" > "$tmp/rules2.tsv"
  run "$r1" import torch-trace "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz" --set model=m --set tp=2
  expect_rc 0
  run "$r1" reclassify --rules "$tmp/rules2.tsv"; expect_rc 0
  record "$r2" cases=1 gpu=H200 > /dev/null
  "$XP" --db "$r1" query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv > "$tmp/before.csv" 2> /dev/null
  run "$r2" merge "$r1"; expect_rc 0; has "kernel category rules: $r1's taken (this database had none)"
  "$XP" --db "$r2" query "$XP_SRC/queries/bottleneck_by_config.sql" --format csv > "$tmp/after.csv" 2> /dev/null
  grep -q pointwise "$tmp/before.csv" || die "the custom category is in the answer"
  cmp -s "$tmp/before.csv" "$tmp/after.csv" || die "merged answers differ: $(diff "$tmp/before.csv" "$tmp/after.csv")"
  # the other way: a database with rules of its own classifies the names a merge brings by them,
  # as every name it holds (xp verify checks it), where they kept the built-in rules' category
  # (elementwise beside pointwise: one kernel counted in two categories by two runs)
  r3="$tmp/r3.db"
  run "$r3" import torch-trace "$XP_SRC/tests/data/trace/variants/names.json.gz"; expect_rc 0 # a hundred engines' kernels
  run "$r1" merge "$r3"; expect_rc 0
  has "classified otherwise in $r3 (its category rules differ): here, as every name, under this database's rules" "$tmp/err"
  [ "$(count "$r1" "SELECT count(*) FROM trace_names WHERE name LIKE '%elementwise_kernel%' AND category <> 'pointwise'")" = 0 ] ||
    die "merged names are not under this database's rules"
  run "$r1" verify; expect_rc 0
  echo "ok: merge (custom category rules)"
fi
