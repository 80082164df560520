#!/usr/bin/env bash
# xp rerun (issue 7): the stored spec runs again as a new run linked to the old one, with a
# warning when the environment differs, and xp compare on the pair shows it reproduces. Uses
# the nccl-tests importer on the shared fixture (an imported run is imported again); the
# lifecycle with a measured kind is covered by tests/unit/test_history_chain.c.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
PROBE="$XP_BUILD/tests/test_history_chain"
need_sqlite3

run rerun --help; expect_rc 0; has "usage: xp rerun"
# a run of a kind this xp does not have: refused, nothing recorded
if [ -x "$PROBE" ]; then
  p=$(record cases=1)
  # named with the run, and the way on (as a refused stored dtype gives the --set recording it anew)
  run rerun "$p"; expect_rc 2
  has "xp: run ${p:0:8}: the stored spec's kind \"hist_probe\" is not in this build of xp (see \`xp help kinds\`): rerun it with an xp that has it, as the one that recorded it (xp show ${p:0:8}: xp.commit)" "$tmp/err"
  [ "$(wc -l < "$tmp/err")" = 1 ] || die "one line: $(cat "$tmp/err")"
  [ "$(sqlite3 "$db" "SELECT count(*) FROM runs")" = 1 ] || die "a refused rerun recorded something"
fi
run rerun ffffffff; expect_rc 2; has "no such run" "$tmp/err"
run rerun; expect_rc 2
# refused on an older xp's database (experiments/results/xp.db, schema 6): left byte for byte
# as it was, where opening it to write first had migrated it to this schema, which that xp
# then refuses as newer
cp "$XP_SRC/experiments/results/xp.db" "$tmp/schema6.db"
sha6=$(sha256sum < "$tmp/schema6.db")
refused6 "ffffffff: no such run" rerun ffffffff
refused6 "zzzz: not a run id" rerun zzzz
if [ ! -e /tmp/tr/tp2_bs1_rank0.trace.json.gz ]; then # where run 32ac91ea's traces were imported from
  refused6 "run 32ac91ea imported it" rerun 32ac91ea
fi
[ "$(sha256sum < "$tmp/schema6.db")" = "$sha6" ] || die "a refused rerun changed a schema 6 database"

# a gemm run whose model file was edited since: the stored spec names the file, not its content,
# so a rerun would measure other shapes under the same names; refused before measuring, named.
# The run is experiments/results/xp.db's Kimi-K2.5 gemm (H200), recorded before gemm.model_sha256,
# given the hash this xp records with its model file (the GPU run itself needs a GPU)
mkdir -p "$tmp/g/experiments/models"
cp "$XP_SRC/experiments/models/Kimi-K2.5.toml" "$tmp/g/experiments/models/"
cp "$tmp/schema6.db" "$tmp/g/xp.db"
sqlite3 "$tmp/g/xp.db" "DROP TRIGGER xp_append_only_run_meta_insert; INSERT INTO run_meta (run_id, key, source, value)
  SELECT id, 'gemm.model_sha256', 'declared', '$(sha256sum < "$tmp/g/experiments/models/Kimi-K2.5.toml" | cut -d' ' -f1)'
  FROM runs WHERE uuid LIKE 'f508b363%'"
gemm_rerun() { (cd "$tmp/g" && "$XP" --db xp.db rerun "$@" f508b363 > "$tmp/out" 2> "$tmp/err") && rc=0 || rc=$?; }
gemm_rerun --dry-run; expect_rc 0; has "rerun of f508b363"
sed -i 's/^num_hidden_layers = 61$/num_hidden_layers = 60/' "$tmp/g/experiments/models/Kimi-K2.5.toml"
for dry in --dry-run ""; do
  gemm_rerun $dry; expect_rc 2
  has "Kimi-K2.5.toml: not the model file run f508b363 measured (its SHA-256 was" "$tmp/err"
  [ "$(grep -vc '^xp: warning: xp.db: schema 6' "$tmp/err")" = 1 ] || die "one line expected: $(cat "$tmp/err")"
done

F="${XP_SHARED:-}/fixtures/nccl-tests/nccltests_sweep.txt"
if [ ! -f "$F" ] || ! "$XP" help kinds | grep -q nccl_tests; then
  echo "ok: rerun (import part skipped: no nccl-tests fixture or importer in this build)"
  exit 0
fi
cp "$F" "$tmp/sweep.txt"
"$XP" --db "$db" import nccl-tests "$tmp/sweep.txt" >/dev/null 2>&1 || die "import failed"
old=$(sqlite3 "$db" "SELECT uuid FROM runs WHERE kind = 'nccl_burst'")
# the file on disk changes meaning nothing to the stored spec, which names the file
NCCL_PROBE_RERUN=1 run rerun "${old:0:8}"; expect_rc 0
has "environment differs: env.NCCL_PROBE_RERUN was (unset), now 1" "$tmp/err"
new=$(sqlite3 "$db" "SELECT uuid FROM runs WHERE parent_uuid = '$old'")
[ -n "$new" ] || die "the new run is linked to the old one"
[ "$(sqlite3 "$db" "SELECT a.spec_sha256 = b.spec_sha256 AND b.origin = 'imported' FROM runs a, runs b WHERE a.uuid = '$old' AND b.uuid = '$new'")" = 1 ] ||
  die "same stored spec, imported again"
has "rerun of $old: run $new"
run compare "$old" "$new"; expect_rc 0
grep -q "+0.0%" "$tmp/out" || die "the same file imported again gives the same numbers: $(cat "$tmp/out")"
has "env.NCCL_PROBE_RERUN: A (unset); B 1"
run verify; expect_rc 0
echo "ok: rerun"
