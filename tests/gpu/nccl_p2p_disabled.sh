#!/usr/bin/env bash
# The PCIe emulation experiment on two GPUs: with NCCL_P2P_DISABLE=1 NCCL must not use P2P, and
# the run must record the transport it did use (SHM through host memory, or NET), whatever
# the spec declares: here it declares nvlink, and the detected value wins.
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 2
"$XP" --db "$db" run "$XP_SRC/experiments/allreduce_burst_pcie_emul.toml" --set gpus=0,1 --set iterations=5 \
  --set interconnect=nvlink > "$tmp/out" 2> "$tmp/err"
check "run exit status" 0 $?
check "P2P disabled as asked" 1 "$(sql "SELECT value FROM run_meta WHERE key = 'env.NCCL_P2P_DISABLE' AND source = 'env'")"
check "NCCL read it" 1 "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.env_read.NCCL_P2P_DISABLE'")"
transports=$(sql "SELECT value FROM run_meta WHERE key = 'nccl.transports'")
case "$transports" in
  *P2P*) echo "FAIL: P2P used although disabled: $transports"; fail=1 ;;
  "") echo "FAIL: no transport recorded"; fail=1 ;;
esac
ic=$(sql "SELECT interconnect FROM runs")
case "$ic" in
  shm | net) ;;
  *) echo "FAIL: interconnect recorded as [$ic] with transports [$transports]"; fail=1 ;;
esac
check "declared nvlink kept as a mismatch" 1 "$(sql "SELECT count(*) FROM run_meta WHERE key = 'mismatch.interconnect'")"
check "nothing wrong" 0 "$(sql "SELECT count(*) FROM metrics WHERE name = 'wrong' AND median != 0")"
echo "P2P disabled: transports [$transports], interconnect [$ic]"
finish
