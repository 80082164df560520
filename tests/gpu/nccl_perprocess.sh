#!/usr/bin/env bash
# One process per GPU under a launcher, without MPI: two xp processes with RANK/WORLD_SIZE,
# NCCL's id through a rendezvous file. Rank 0 gathers rank 1's samples and records one run
# with both ranks; rank 1's own run only says where its results went.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 2
printf '%s\n' 'kind = "nccl_burst"' 'collectives = ["allreduce", "alltoall"]' 'sizes = [14336, "1M"]' \
  'burst = 16' 'modes = ["eager", "graph"]' 'iterations = 10' "rendezvous = \"$tmp/rdv\"" 'timeout_s = 120' \
  > "$tmp/pp.toml"
unset OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE SLURM_PROCID SLURM_NTASKS XP_RENDEZVOUS

RANK=1 WORLD_SIZE=2 LOCAL_RANK=1 "$XP" --db "$db" run "$tmp/pp.toml" > "$tmp/out1" 2> "$tmp/err1" &
pid1=$!
RANK=0 WORLD_SIZE=2 LOCAL_RANK=0 "$XP" --db "$db" run "$tmp/pp.toml" > "$tmp/out0" 2> "$tmp/err0"
check "rank 0 exit status" 0 $?
wait $pid1
check "rank 1 exit status" 0 $?
[ $fail = 0 ] || cat "$tmp/out0" "$tmp/err0" "$tmp/out1" "$tmp/err1"

lead=$(cat "$tmp/out0" "$tmp/err0" | grep -o 'run [0-9a-f-]\{36\}' | head -1 | cut -c5-)
check "one run with cases" 1 "$(sql "SELECT count(DISTINCT run_id) FROM cases")"
check "rank 0's run holds them" "$lead" "$(sql "SELECT r.uuid FROM runs r JOIN cases c ON c.run_id = r.id LIMIT 1")"
check "two ranks" 2 "$(sql "SELECT gpu_count FROM runs WHERE uuid = '$lead'")"
check "process model" "one process per GPU" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.process_model'")"
check "both ranks' facts" 2 "$(sql "SELECT count(*) FROM run_meta WHERE key LIKE 'nccl.rank.%'")"
check "rank spread measured" 8 "$(sql "SELECT count(*) FROM metrics WHERE name = 'rank_spread_us'")"
check "per-rank medians" 8 "$(sql "SELECT count(*) FROM metrics WHERE name = 'burst_us.rank1'")"
check "nothing wrong" 0 "$(sql "SELECT count(*) FROM metrics WHERE name = 'wrong' AND median != 0")"
check "rank 1 points at rank 0" 1 "$(sql "SELECT count(*) FROM run_meta WHERE key = 'nccl.role' AND value LIKE '%$lead%'")"
check "rendezvous files cleaned up" 0 "$(ls "$tmp" | grep -c '^rdv')"
finish
