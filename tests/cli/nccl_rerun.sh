#!/usr/bin/env bash
# xp rerun of an nccl-tests import reads the files again: where the log now states another CUDA
# driver, the rerun says the hardware differs, as it does for a measured run's.
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
finish
