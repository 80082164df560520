#!/usr/bin/env bash
# A collective's dtype is stored under torch's name (importers/torch_trace/tt_dtype.c): rows an
# older xp stored as their trace spelt them (eager c10d's "Float", an NCCL kernel name's "f32")
# are history and stay as they are, sealed; schema 22 reads them through trace_dtype_spelling, so
# trace_collective_kernels names one type once across old and new runs. A database of schema 21
# holding such spellings is migrated by a writing command: every row as before, the views of a
# fresh database, its finished runs' collectives still unchangeable. Before schema 22 the view
# gave "Float", "f32" and "float32": three rows of one type in a GROUP BY dtype.
set -u
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"

if ! command -v sqlite3 > /dev/null; then
  echo "note: the sqlite3 CLI is missing; the migration to schema 22 is not exercised"
  finish
fi
old="$tmp/old.db" fresh="$tmp/fresh.db"
for d in "$old" "$fresh"; do
  "$XP" --db "$d" import torch-trace "$v/cugraph_comms_r0.json" "$v/cugraph_comms_r1.json" > /dev/null 2>&1
done
check "stored under torch's name" "float32" "$(sqlite3 "$old" "SELECT group_concat(DISTINCT dtype) FROM trace_collectives")"
# schema 21 as an older xp left it: rank 0's collectives spelt as eager c10d wrote them, rank 1's as
# NCCL's kernel name does. A finished run's rows refuse an UPDATE, so its trigger is set aside to
# write them (their seals no longer cover them: what is checked is what the migration does)
trigger=$(sqlite3 "$old" "SELECT sql FROM sqlite_schema WHERE name = 'xp_append_only_trace_collectives_update'")
sqlite3 "$old" "PRAGMA wal_checkpoint(TRUNCATE); DROP TRIGGER xp_append_only_trace_collectives_update;
  UPDATE trace_collectives SET dtype = CASE rank WHEN 0 THEN 'Float' ELSE 'f32' END; $trigger;
  DROP VIEW trace_dtype_spelling; $(cat "$XP_SRC/schema/013_collective_kernels.sql")
  PRAGMA user_version = 21;" > /dev/null
kernels() { sqlite3 "$1" "SELECT group_concat(dtype || ':' || n, ' ') FROM
  (SELECT dtype, count(*) AS n FROM trace_collective_kernels GROUP BY dtype ORDER BY dtype)"; }
check "schema 21: one type in two rows" "Float:2 f32:2" "$(kernels "$old")"
rows() { sqlite3 "$1" "SELECT * FROM trace_collectives ORDER BY run_id, rank, seq" | md5sum; }
made() { sqlite3 "$1" "SELECT type || ' ' || name || ': ' || sql FROM sqlite_schema WHERE type IN ('view', 'trigger')
  ORDER BY type, name; PRAGMA user_version"; }
before=$(rows "$old")
# a writing command migrates it: a graphed run, "float32" as written
"$XP" --db "$old" import torch-trace "$v/cugraph_comms_r0.json" "$v/cugraph_comms_r1.json" > "$tmp/out" 2>&1
check "schema 21 migrated: import" 0 $?
check "schema 21 migrated: views and triggers of a fresh database" "$(made "$fresh")" "$(made "$old")"
check "schema 21 migrated: rows stored before as they were" "$before" \
  "$(sqlite3 "$old" "SELECT * FROM trace_collectives WHERE run_id = 1 ORDER BY run_id, rank, seq" | md5sum)"
check "schema 21 migrated: old and new runs, one dtype" "float32:8" "$(kernels "$old")"
sqlite3 "$old" "UPDATE trace_collectives SET dtype = 'float32'" 2> "$tmp/err"
check "schema 21 migrated: finished runs' collectives unchangeable" 1 "$(grep -c 'append-only' "$tmp/err")"
# a spelling no table knows is kept as written, in the view too
sed 's/"dtype": "float32"/"dtype": "QInt8"/' "$v/cugraph_comms_r0.json" > "$tmp/q_r0.json"
sed 's/"dtype": "float32"/"dtype": "QInt8"/' "$v/cugraph_comms_r1.json" > "$tmp/q_r1.json"
"$XP" --db "$fresh" import torch-trace "$tmp/q_r0.json" "$tmp/q_r1.json" > /dev/null 2>&1
check "an unknown spelling kept as written" "QInt8:4 float32:4" "$(kernels "$fresh")"
finish
