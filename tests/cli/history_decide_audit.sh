#!/usr/bin/env bash
# Decisions (issue 7): xp decide records the decision with its evidence runs and its query's
# rows, hashed; bad input changes nothing; decisions are never edited; xp audit re-runs the
# query and shows the drift computed from runs added after the decision, flags evidence that
# newer runs of the same configuration contradict, and follows supersession.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
need_sqlite3
decisions() { sqlite3 "$db" "SELECT count(*) FROM decisions"; }

cat >"$tmp/share.sql" <<'SQL'
-- AllReduce share of the decode step, per model at one TP
SELECT r.model, avg(m.median) AS allreduce_share, count(*) AS runs
FROM runs r JOIN cases c ON c.run_id = r.id JOIN metrics m ON m.case_id = c.id
WHERE m.name = 'allreduce_share' AND r.tp = :tp AND r.status = 'ok'
GROUP BY r.model;
SQL

run decide --help; expect_rc 0; has "usage: xp decide"
e1=$(record model=llama tp=8 share=51.5)

# bad input: nothing is written
run decide "Pivot" --because "why"; expect_rc 2; has "a decision needs evidence" "$tmp/err"
run decide "Pivot" --evidence "$e1"; expect_rc 2; has "--because" "$tmp/err"
run decide "Pivot" --because "why" --evidence ffffffff; expect_rc 2; has "ffffffff: no such run" "$tmp/err"
run decide "Pivot" --because "why" --query "$tmp/missing.sql"; expect_rc 2
echo "SELECT nonsense FROM nowhere;" >"$tmp/bad.sql"
run decide "Pivot" --because "why" --evidence "$e1" --query "$tmp/bad.sql"; expect_rc 2
echo "DELETE FROM runs;" >"$tmp/write.sql"
run decide "Pivot" --because "why" --evidence "$e1" --query "$tmp/write.sql"; expect_rc 2
run decide "Pivot" --because "why" --evidence "$e1" --query "$tmp/share.sql"; expect_rc 2
has "parameter :tp has no value" "$tmp/err"
sqlite3 "$db" "INSERT INTO runs(uuid, kind, status, started_at, spec_json, spec_sha256)
  VALUES ('babe0000-0000-4000-8000-000000000001', 'hist_probe', 'running', '2026-01-01T00:00:00Z', '{}', 'x')"
run decide "Pivot" --because "why" --evidence babe0000; expect_rc 2; has "has not finished" "$tmp/err"
[ "$(decisions)" = 0 ] || die "a refused decision wrote something"
# refused on an older xp's database (experiments/results/xp.db, schema 6): left byte for byte
# as it was, where opening it to write first had migrated it to this schema, which that xp
# then refuses as newer
cp "$XP_SRC/experiments/results/xp.db" "$tmp/schema6.db"
sha6=$(sha256sum < "$tmp/schema6.db")
refused6 "ffffffff: no such run" decide "Pivot" --because "why" --evidence ffffffff
refused6 "the query has no :bacth" decide "Pivot" --because "why" --evidence 32ac91ea \
  --query "$XP_SRC/queries/allreduce_share.sql" --param tp=2 --param interconnect=nvlink --param bacth=1
[ "$(sha256sum < "$tmp/schema6.db")" = "$sha6" ] || die "a refused decision changed a schema 6 database"
"$XP" --db "$tmp/schema6.db" decide "Pivot" --because "why" --evidence 32ac91ea > /dev/null 2> "$tmp/err" ||
  die "decide on schema 6: $(cat "$tmp/err")"
[ ! -s "$tmp/err" ] || die "decide on schema 6 said: $(cat "$tmp/err")"
[ "$(sqlite3 "$tmp/schema6.db" "PRAGMA user_version")" -gt 6 ] || die "a recorded decision migrates the database"

# the decision, with its evidence and the query's rows at this moment
XP_AUTHOR="Ada Lovelace" run decide "Pivot to speculative decoding" \
  --because "AllReduce is half of the decode step at TP=8" --evidence "${e1:0:8}" \
  --query "$tmp/share.sql" --param tp=8
expect_rc 0
has "recorded: Pivot to speculative decoding"; has "by Ada Lovelace"; has "evidence: 1 run; query"
d1=$(sed -n 's/^decision \([0-9a-f-]*\) recorded.*/\1/p' "$tmp/out")
[ -n "$d1" ] || die "no decision id printed"
[ "$(sqlite3 "$db" "SELECT author || '|' || json_extract(query_result, '\$[0][0].allreduce_share') || '|' ||
     (SELECT run_uuid FROM decision_evidence) || '|' || query_params FROM decisions")" = "Ada Lovelace|51.5|$e1|{\"tp\":\"8\"}" ] ||
  die "decision record: $(sqlite3 "$db" "SELECT * FROM decisions")"
[ "$(sqlite3 "$db" "SELECT length(query_result_sha256) = 64 AND length(decision_sha256) = 64 AND xp_commit IS NOT NULL FROM decisions")" = 1 ] ||
  die "hashes and xp commit are recorded"

# nothing newer yet: no drift, nothing contradicts
run audit "${d1:0:8}"; expect_rc 0
has "decision $d1: Pivot to speculative decoding"; has "because: AllReduce is half of the decode step at TP=8"
has "runs recorded since the decision: 0 (0 ok)"; has "drift: 0 values moved"
has "no newer ok runs of the same configuration"; has "seal unchanged"

# newer runs: the same configuration but 30% slower, and a smaller AllReduce share
sleep 0.01
newer=()
for i in 1 2 3; do newer+=("$(record model=llama tp=8 share=33.5 scale=1.3)"); done
record model=llama tp=4 share=10 >/dev/null   # another configuration: neither drift nor evidence
run audit "$d1"; expect_rc 1
has "runs recorded since the decision: 4 (4 ok)"
has "model=llama: allreduce_share 51.5 then; 38 now (-26.2%)"
has "model=llama: runs 1 then; 4 now"
has "over 4 runs recorded since the decision"
grep -E 'CONTRADICTED: run [0-9a-f]{8} op \{"i":0\} time: median 100\.1 us then; 130\.1 us in 3 newer runs \(\+30\.0%, p=' "$tmp/out" >/dev/null ||
  die "the slower newer runs contradict the evidence: $(cat "$tmp/out")"
has "verdict: CONTRADICTED by newer runs"
[ "$(cat "$tmp/err")" = "xp: $db: 1 decision contradicted by newer runs" ] || die "audit's stderr: $(cat "$tmp/err")"
# ... naming them, oldest first, for xp show and xp compare
has "    the newer runs: ${newer[0]:0:8}, ${newer[1]:0:8}, ${newer[2]:0:8}"

# never edited; superseded by a new decision instead
set +e; sqlite3 "$db" "UPDATE decisions SET title = 'x'" 2>"$tmp/sqlerr"; set -e
has "decisions are never edited" "$tmp/sqlerr"
run decide "Stay on TP=8 until the new driver" --because "newer runs disagree" --evidence "$e1" --supersedes "${d1:0:8}"
expect_rc 0; has "supersedes $d1"
d2=$(sed -n 's/^decision \([0-9a-f-]*\) recorded.*/\1/p' "$tmp/out")
run audit "$d1"; expect_rc 1; has "SUPERSEDED by: $d2"
run audit; expect_rc 1
has "decision $d1: Pivot to speculative decoding ("; has "-- superseded by $d2"
has "decision $d2: Stay on TP=8 until the new driver"; has "supersedes: $d1"
run decide "x" --because "y" --evidence "$e1" --supersedes ffffffff; expect_rc 2; has "no such decision" "$tmp/err"
# superseded once only: a second successor would fork the line audit follows
run decide "Another way" --because "z" --evidence "$e1" --supersedes "${d1:0:8}"; expect_rc 2
has "decision $d1 is already superseded by $d2: supersede that one instead" "$tmp/err"

# a title that starts with a dash follows --, where it was an unknown option; after -- even
# "-h" is a title, not a call for help
run decide "-20% TTFT with an fp8 KV cache" --because "y" --evidence "$e1"; expect_rc 2
has "unknown option -20% TTFT" "$tmp/err"
run decide -- "-20% TTFT with an fp8 KV cache" --because "y" --evidence "$e1"; expect_rc 0
has "recorded: -20% TTFT with an fp8 KV cache"
run decide --because "y" --evidence "$e1" -- "-h"; expect_rc 0
has "recorded: -h"

# evidence that holds: newer runs of the same configuration measure the same
db="$tmp/holds.db"
h1=$(record model=m tp=2)
run decide "Keep m at TP=2" --because "fast enough" --evidence "$h1"; expect_rc 0
record model=m tp=2 >/dev/null; record model=m tp=2 >/dev/null
run audit; expect_rc 0
has "holds against 2 newer runs of the same configuration (2 after the decision; 2 metrics judged)"
has "verdict: no evidence contradicted"
hasnt "CONTRADICTED"
# a query's reals kept to the last bit: audited at once, nothing moved (cJSON alone wrote 15
# digits, and 370.79999999999995 came back as 370.8, a drift where nothing changed)
db="$tmp/exact.db"
x1=$(record model=m tp=2)
printf "SELECT 'k' AS name, 370.79999999999995 AS x, 0.1 + 0.2 AS y;\n" > "$tmp/exact.sql"
run decide "Exact" --because "bits" --evidence "$x1" --query "$tmp/exact.sql"; expect_rc 0
run audit; expect_rc 0
has "drift: 0 values moved, 2 unchanged"

# trace evidence is judged by its steps (GPU time, each category's share, every step a
# sample): the same trace recorded an hour later holds
db="$tmp/traces.db"
tr="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"
run import torch-trace "$tr" --set model=m --set tp=2 --set batch=1; expect_rc 0
t1=$(sqlite3 "$db" "SELECT uuid FROM runs ORDER BY id LIMIT 1")
run decide "Trace says so" --because "the trace" --evidence "${t1:0:8}"; expect_rc 0
zcat "$tr" | sed 's/"baseTimeNanoseconds": 1790857026000000000/"baseTimeNanoseconds": 1790860626000000000/' | gzip > "$tmp/later.json.gz"
run import torch-trace "$tmp/later.json.gz" --set model=m --set tp=2 --set batch=1; expect_rc 0
run audit; expect_rc 0
# (GPU time and 5 categories' shares: activation, allreduce, attention, elementwise, gemm)
has "holds against 1 newer run of the same configuration (1 after the decision; 6 metrics judged)"
hasnt "NOT JUDGED"
# rows named by numbers (tp here; bytes in allreduce_burst, tp and batch in allreduce_share):
# a new row sorting first is new, and the rows after it have not moved (they were matched by
# position, and every value after the new row was reported as drift)
db="$tmp/bynum.db"
record model=m tp=4 share=10 >/dev/null; n1=$(record model=m tp=8 share=50)
printf "SELECT r.tp, max(m.median) AS share FROM runs r JOIN cases c ON c.run_id = r.id JOIN metrics m\n  ON m.case_id = c.id WHERE m.name = 'allreduce_share' GROUP BY r.tp ORDER BY r.tp;\n" > "$tmp/bytp.sql"
run decide "By TP" --because "rows by number" --evidence "$n1" --query "$tmp/bytp.sql"; expect_rc 0
record model=m tp=2 share=5 >/dev/null
run audit; expect_rc 0
has "  tp=2: new (the query did not return this row then)"
has "drift: 1 value moved, 2 unchanged"
hasnt "then;"
# runs merged in after the decision came after it, whatever their own dates: a run measured
# elsewhere before the decision was taken was never seen by it (by dates it was not counted)
db="$tmp/elsewhere.db"
x1=$(record model=m tp=2)
sleep 0.01
db="$tmp/merged.db"
m1=$(record model=m tp=2)
printf "SELECT count(*) AS runs FROM runs;\n" > "$tmp/count.sql"
run decide "Merged later" --because "arrival" --evidence "$m1" --query "$tmp/count.sql"; expect_rc 0
run merge "$tmp/elsewhere.db"; expect_rc 0; has "1 run merged"
[ "$(sqlite3 "$db" "SELECT min(started_at) FROM runs") " \< "$(sqlite3 "$db" "SELECT created_at FROM decisions") " ] ||
  die "the merged run must predate the decision"
run audit; expect_rc 0
has "runs recorded since the decision: 1 (1 ok)"
has "runs 1 then; 2 now"; has "over 1 run recorded since the decision"
# ... and that run, of the evidence's configuration but dated before it (a clock behind, or measured
# first and merged late), is said not to be compared, where the evidence read "no newer ok runs of
# the same configuration" alone, as if none had come
has "NOT COMPARED: 1 run of the same configuration arrived after the decision but is dated before this evidence"
has "    dated before it: ${x1:0:8}"
# and once more from here: counted once
record model=m tp=2 >/dev/null
run audit; has "runs recorded since the decision: 2 (2 ok)"
has "holds against 1 newer run of the same configuration (1 after the decision; "
has "    dated before it: ${x1:0:8}"
# a decision recorded before schema 11 keeps no arrival: the migration carries it forward, and
# audit counts by the runs' own dates and says so
sqlite3 "$db" "DROP TRIGGER xp_decision_arrival; DROP TRIGGER xp_decision_arrivals_no_update;
  DROP TRIGGER xp_decision_arrivals_no_delete; DROP TABLE decision_arrivals; PRAGMA user_version = 10"
run audit; expect_rc 0; has "runs recorded since the decision: 1 (1 ok) by the runs' own dates"
record model=m tp=2 >/dev/null  # a writing xp migrates it
[ "$(sqlite3 "$db" "SELECT count(*) || ',' || count(run_seq) FROM decision_arrivals")" = "1,0" ] ||
  die "the migration keeps the old decision, arrival unknown"
run audit; expect_rc 0; has "runs recorded since the decision: 2 (2 ok) by the runs' own dates"
run verify; expect_rc 0
echo "ok: decide and audit"
