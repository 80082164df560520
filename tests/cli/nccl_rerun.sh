#!/usr/bin/env bash
# xp rerun of an nccl-tests import reads the files again: where the log now states another CUDA
# driver, or RCCL another HIP or ROCm, the rerun says the hardware differs, as it does for a
# measured run's.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/nccl"
rerun_differs() { # rerun_differs LOG SED-EDIT: import LOG's copy, edit the copy, rerun; stderr in $tmp/err
  cp "$1" "$tmp/log.txt"
  rm -f "$db"
  "$XP" --db "$db" import nccl-tests "$tmp/log.txt" > /dev/null 2>&1 || { echo "FAIL: import $1"; fail=1; }
  sed -i "$2" "$tmp/log.txt"
  "$XP" --db "$db" rerun "$(sql "SELECT uuid FROM runs")" > "$tmp/out" 2> "$tmp/err"
  check "rerun of $(basename "$1") exit" 0 $?
}

rerun_differs "$data/nccltests_sweep.txt" 's/cudaDriverVersion 13000/cudaDriverVersion 12080/'
grep -qx "xp: warning: hardware differs: cuda.driver_api was 13.0, now 12.8" "$tmp/err" ||
  { echo "FAIL: another CUDA driver in the log: [$(cat "$tmp/err")]"; fail=1; }

# The log written over by nccl-tests run again into the same path (one row's time now 17.35):
# the rerun is another measurement, as the queries count it (its file's SHA-256 differs), and
# says so, where it said "checks that it reproduces" alone; the same file read again says nothing
rerun_differs "$data/nccltests_sweep.txt" 's/^\(  *8  *4  *bfloat16 .*\)17\.25/\117.35/'
old=$(sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id LIMIT 1")
grep -qx "xp: warning: nccl-tests/log.txt is not the file run $old imported (its contents changed since): the rerun is another measurement, not the same one read again" "$tmp/err" ||
  { echo "FAIL: a log written over: [$(cat "$tmp/err")]"; fail=1; }
rerun_differs "$data/nccltests_sweep.txt" ''
check "the same log read again: nothing said" "" "$(cat "$tmp/err")"
# --dry-run says so before anything is recorded, where it printed the plan alone, as if the
# rerun would read the same measurement again; of the file as imported it says nothing
first=$(sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id LIMIT 1")
"$XP" --db "$db" rerun "$first" --dry-run > /dev/null 2> "$tmp/err"
check "dry rerun of the same log: nothing said" "" "$(cat "$tmp/err")"
sed -i 's/^\(  *8  *4  *bfloat16 .*\)17\.25/\117.35/' "$tmp/log.txt"
runs=$(sql "SELECT count(*) FROM runs")
"$XP" --db "$db" rerun "$first" --dry-run > "$tmp/out" 2> "$tmp/err"
check "dry rerun of a log written over: exit" 0 $?
check "dry rerun of a log written over: the warning" \
  "xp: warning: $tmp/log.txt is not the file run $first imported (its contents changed since): a rerun would record another measurement, not the same one read again" \
  "$(cat "$tmp/err")"
grep -q "^# dry run: rerun of" "$tmp/out" || { echo "FAIL: dry rerun of a log written over: no plan"; fail=1; }
check "dry rerun: nothing recorded" "$runs" "$(sql "SELECT count(*) FROM runs")"
# a log kept as other bytes than the file's own (Docker's json-file log: the text its records
# carry), not written since: nothing said, where the file's SHA-256 matched none kept
awk '{ s = $0; gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/\t/, "\\t", s)
       printf "{\"log\":\"%s\\n\",\"stream\":\"stdout\",\"time\":\"2025-06-01T10:11:12.1Z\"}\n", s }' \
  "$data/nccltests_sweep.txt" > "$tmp/docker-json.log"
"$XP" --db "$tmp/docker.db" import nccl-tests "$tmp/docker-json.log" > /dev/null 2>&1
"$XP" --db "$tmp/docker.db" rerun "$("$XP" --db "$tmp/docker.db" runs --format csv | sed -n 2p | cut -d, -f1)" --dry-run \
  > /dev/null 2> "$tmp/err"
check "dry rerun of a Docker json-file log as imported: exit, nothing said" "0|" "$?|$(cat "$tmp/err")"

# RCCL's HIP and ROCm (its lines after its version, as ROCm/rocm-systems PR 3415's rccl-tests log
# prints them; see nccl_variants.sh): another ROCm is the hardware's difference as another CUDA
# is, where it was counted among "other metadata values".
sed '/Rank  7/a RCCL version : 2.28.3-gfx1151-rccl:a188cf2\nHIP version  : 7.12.60430-713bdeef5b\nROCm version : 7.12.0.2-9999-713bdeef5b' \
  "$data/variants/rccl_in_place_only.txt" > "$tmp/rccl.txt"
rerun_differs "$tmp/rccl.txt" 's/7\.12\.60430-713bdeef5b/7.2.53211-0a1b2c3d4/; s/7\.12\.0\.2-9999-713bdeef5b/7.2.0.0-43-0a1b2c3d4/'
for key in "hip.version was 7.12.60430-713bdeef5b, now 7.2.53211-0a1b2c3d4" \
  "rocm.version was 7.12.0.2-9999-713bdeef5b, now 7.2.0.0-43-0a1b2c3d4"; do
  grep -qx "xp: warning: hardware differs: $key" "$tmp/err" || { echo "FAIL: another ROCm: [$(cat "$tmp/err")]"; fail=1; }
done

# The imported file gone: said as the file the run imported, which a rerun reads again; nothing
# recorded (it said "cannot read: No such file or directory" alone)
cp "$data/nccltests_graph.txt" "$tmp/gone.txt"
"$XP" --db "$db" import nccl-tests "$tmp/gone.txt" > "$tmp/out" 2>&1
gone=$(grep -o 'run [0-9a-f]\{8\}' "$tmp/out" | head -1 | cut -c5-)
rm "$tmp/gone.txt"
runs=$(sql "SELECT count(*) FROM runs")
for dry in "" --dry-run; do
  one_line "rerun $dry of an import whose file is gone" 2 \
    "gone.txt: cannot read: No such file or directory (run $gone imported it; a rerun reads it again): restore it to rerun, or record the files there are now anew (xp import FORMAT FILES)$" \
    "$XP" --db "$db" rerun "$gone" $dry
done
check "rerun of a gone file: nothing recorded" "$runs" "$(sql "SELECT count(*) FROM runs")"
# A log imported, then rerun (the same file read again: one measurement, the rerun counting):
# the report's bus bandwidth chart held neither, the import superseded by its rerun and the
# rerun left out as a re-import ('No nccl_burst runs yet')
rdb="$tmp/rerun_report.db"
"$XP" --db "$rdb" import nccl-tests "$data/nccltests_sweep.txt" > /dev/null 2>&1
"$XP" --db "$rdb" rerun "$("$XP" --db "$rdb" runs --format csv | sed -n 2p | cut -d, -f1)" > /dev/null 2>&1
check "import, then rerun: two runs" 2 "$("$XP" --db "$rdb" runs --format csv | tail -n +2 | wc -l)"
"$XP" --db "$rdb" report --out "$tmp/rerun.html" > /dev/null 2>&1
check "import, then rerun: the report charts it once" 2 \
  "$(grep -o 'allreduce bf16 eager[^<"]*: 1048576 B, busbw' "$tmp/rerun.html" | wc -l)"
finish
