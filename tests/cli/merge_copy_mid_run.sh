#!/usr/bin/env bash
# A database copied while a run was recorded holds that run as 'running' for good: its recorder
# wrote the rest to the original. xp merge of the original into the copy brings the finished run
# in, in place of the unfinished row (which holds only what the recorder wrote when it began), so
# merging both ways converges: the same runs, statuses and seals on each side. It kept the
# unfinished row with a warning, and the copy showed the run 'incomplete' after every merge.
# A run unsealed here that is finished (an older xp's) is still kept, with the warning.
set -euo pipefail
: "${XP:?}" "${XP_BUILD:?}"
. "$XP_SRC/tests/lib.sh"
need_probe
need_sqlite3
orig="$tmp/orig.db" copy="$tmp/copy.db"
runs() { sqlite3 "$1" "SELECT uuid, status, content_sha256 FROM runs ORDER BY uuid"; }
db=$orig
record cases=1 gpu=H200 > /dev/null
cp "$orig" "$copy"
r=$(record cases=2 gpu=H200)
# the copy as taken while $r was recorded: its row as xp_run_begin commits it, and its metadata
sqlite3 "$copy" "ATTACH '$orig' AS o;
  INSERT INTO runs(uuid, kind, origin, status, started_at, pid, host, boot_id, spec_json, spec_sha256, gpu_name)
    SELECT uuid, kind, origin, 'running', started_at, pid, host, boot_id, spec_json, spec_sha256, gpu_name
    FROM o.runs WHERE uuid = '$r';
  INSERT INTO run_meta(run_id, key, source, value) SELECT (SELECT id FROM runs WHERE uuid = '$r'), key, source, value
    FROM o.run_meta WHERE run_id = (SELECT id FROM o.runs WHERE uuid = '$r') AND source <> 'detected'"

cp "$copy" "$tmp/legacy.db"
db=$copy
run merge "$orig"; expect_rc 0
has "note: run $r is unfinished here (a copy taken while it was recorded): its finished record from $orig takes its place"
has "1 run merged, 1 already here"
[ ! -s "$tmp/err" ] || die "no warning expected: $(cat "$tmp/err")"
run verify; expect_rc 0
db=$orig
run merge "$copy"; expect_rc 0; has "0 runs merged, 2 already here, 0 skipped"
[ "$(runs "$copy")" = "$(runs "$orig")" ] || die "merged both ways, the databases differ: $(runs "$copy") / $(runs "$orig")"
[ "$(sqlite3 "$copy" "SELECT count(*) FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.uuid = '$r'")" = \
  "$(sqlite3 "$orig" "SELECT count(*) FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.uuid = '$r'")" ] ||
  die "the unfinished row's metadata is left beside the finished run's"

# finished but unsealed here (recorded by an xp before the chain): kept, said
legacy="$tmp/legacy.db"
sqlite3 "$legacy" "UPDATE runs SET status = 'ok', finished_at = started_at WHERE uuid = '$r'"
db=$legacy
run merge "$orig"; expect_rc 0
has "run $r is unsealed here" "$tmp/err"
[ "$(sqlite3 "$legacy" "SELECT content_sha256 IS NULL FROM runs WHERE uuid = '$r'")" = 1 ] || die "the unsealed run here was replaced"
echo "ok: a run a copy holds unfinished is merged finished; merging both ways converges"
