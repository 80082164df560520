#!/usr/bin/env bash
# xp rerun finds the files a run read where that run found them: a spec's own relative paths
# under the spec's folder, a --set path under the working folder (README: "--set paths are
# the shell's"). The run is an importer's spec run by xp run (kind = "nccl_tests"), which
# needs no GPU; a gemm run's --set model_file goes through the same resolution.
set -u
. "$XP_SRC/tests/lib.sh"
log="$XP_SRC/tests/data/nccl/nccltests_graph.txt" # nccl-tests 2.19.6 (tests/data/nccl/PROVENANCE.md)
mkdir -p "$tmp/w/specs"
cp "$log" "$tmp/w/specs/log.txt"
cp "$log" "$tmp/w/log.txt"
printf 'kind = "nccl_tests"\nfiles = ["log.txt"]\n' > "$tmp/w/specs/import.toml"
last() { sql "SELECT uuid FROM runs ORDER BY id DESC LIMIT 1"; }

# a spec's own relative file, run and rerun from another folder: the rerun read it from the
# spec's folder, but first checked it from the working one ("xp: log.txt: cannot read: No
# such file or directory (run ... imported it; a rerun reads it again)")
(cd / && "$XP" --db "$db" run "$tmp/w/specs/import.toml" > /dev/null 2> "$tmp/err")
check "xp run of the spec, from /" 0 $?
run1=$(last)
(cd / && "$XP" --db "$db" rerun "${run1:0:8}" > "$tmp/out" 2> "$tmp/err")
rc=$?; check "its rerun, from / (stderr: $(cat "$tmp/err"))" 0 $rc
check "the rerun read the spec's log.txt" "16" "$(sql "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.parent_uuid = '$run1'")"
# the rerun's own rerun: the rerun recorded its stored spec's label as its spec's path
# ("run 1234abcd (stored spec)"), so the spec's folder was lost and log.txt read from /
rerun1=$(last)
(cd / && "$XP" --db "$db" rerun "${rerun1:0:8}" > "$tmp/out" 2> "$tmp/err")
rc=$?; check "a rerun of the rerun, from / (stderr: $(cat "$tmp/err"))" 0 $rc
check "every rerun names the spec file" "$tmp/w/specs/import.toml" "$(sql "SELECT DISTINCT spec_path FROM runs")"

# --set files=specs/log.txt from the working folder: the run read specs/log.txt there; its
# rerun, from the same folder, read specs/specs/log.txt ("cannot read") under the spec's
(cd "$tmp/w" && "$XP" --db "$db" run specs/import.toml --set files=specs/log.txt > /dev/null 2> "$tmp/err")
check "xp run --set files=specs/log.txt" 0 $?
run2=$(last)
check "the --set keys recorded" '["files"]' "$(sql "SELECT value FROM run_meta WHERE key = 'spec.set' AND run_id = (SELECT max(id) FROM runs)" | sed 's/""/"/g; s/^"//; s/"$//')"
(cd "$tmp/w" && "$XP" --db "$db" rerun --dry-run "${run2:0:8}" > "$tmp/out" 2> "$tmp/err")
rc=$?; check "its rerun's dry run (stderr: $(cat "$tmp/err"))" 0 $rc
grep -q "^specs/log.txt: nccl-tests text, allreduce" "$tmp/out" || { echo "FAIL: dry run reads: $(cat "$tmp/out")"; fail=1; }
(cd "$tmp/w" && "$XP" --db "$db" rerun "${run2:0:8}" > "$tmp/out" 2> "$tmp/err")
rc=$?; check "its rerun (stderr: $(cat "$tmp/err"))" 0 $rc
run3=$(last)
check "the rerun's cases" "16" "$(sql "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.parent_uuid = '$run2'")"
check "same stored spec" 1 "$(sql "SELECT a.spec_sha256 = b.spec_sha256 FROM runs a, runs b WHERE a.uuid = '$run2' AND b.uuid = '$run3'")"
# the rerun keeps the record too, so that its own rerun reads the same files
(cd "$tmp/w" && "$XP" --db "$db" rerun "${run3:0:8}" > /dev/null 2> "$tmp/err")
rc=$?; check "a rerun of the rerun (stderr: $(cat "$tmp/err"))" 0 $rc
finish
