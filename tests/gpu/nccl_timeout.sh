#!/usr/bin/env bash
# A peer that never arrives must not hang a run: one process per GPU with a world of 2 but only
# one process started. Rank 0 alone fails after timeout_s; rank 1 alone fails waiting for rank
# 0's id. Both exit 1, and both runs are recorded as failed with the reason.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 1
printf 'kind = "nccl_burst"\nsizes = [1024]\nburst = 2\niterations = 2\nrendezvous = "%s"\ntimeout_s = 15\n' \
  "$tmp/rdv" > "$tmp/lonely.toml"
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE SLURM_PROCID SLURM_NTASKS XP_RENDEZVOUS

t0=$SECONDS
RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 timeout 120 "$XP" --db "$db" run "$tmp/lonely.toml" > "$tmp/out" 2> "$tmp/err"
check "rank 0 alone: exit status" 1 $?
grep -q 'did not finish within 15 s' "$tmp/err" || { echo "FAIL: rank 0 message"; cat "$tmp/err"; fail=1; }
[ $((SECONDS - t0)) -lt 100 ] || { echo "FAIL: rank 0 took $((SECONDS - t0)) s"; fail=1; }

t0=$SECONDS
RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 timeout 120 "$XP" --db "$db" run "$tmp/lonely.toml" > "$tmp/out" 2> "$tmp/err"
check "rank 1 alone: exit status" 1 $?
grep -q 'published no NCCL id' "$tmp/err" || { echo "FAIL: rank 1 message"; cat "$tmp/err"; fail=1; }
[ $((SECONDS - t0)) -lt 100 ] || { echo "FAIL: rank 1 took $((SECONDS - t0)) s"; fail=1; }

check "both runs failed with a reason" 2 "$(sql "SELECT count(*) FROM runs WHERE status = 'failed' AND error IS NOT NULL")"
finish
