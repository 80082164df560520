#!/usr/bin/env bash
# queries/decode_gap_analysis.sql says in the all-reduce basis how its nccl_burst series' interconnect
# stands to the traces': another one where both recorded theirs, unknown where one side did not
# (an nccl-tests log without NCCL INFO lines records none: nccl-tests 2.19.6's tests/data/nccl/
# nccltests_graph.txt). An unknown one read "measured on another interconnect than the traces".
set -u
. "$XP_SRC/tests/lib.sh"
q="$XP_SRC/queries/decode_gap_analysis.sql"
log="$XP_SRC/tests/data/nccl/nccltests_graph.txt"
sample_job 0 1 "$tmp/a"
sample_job 2 1 "$tmp/b" # another job: one database's two jobs of one trace would count once
imp() { # imp DB JOB MODEL [SET...]: the sample's two ranks as MODEL, TP 2, batch 1
  local d=$1 j=$2 m=$3
  shift 3
  "$XP" --db "$d" import torch-trace "$tmp/$j-r0.json.gz" "$tmp/$j-r1.json.gz" --set model="$m" --set tp=2 \
    --set batch=1 "$@" > /dev/null || { echo "FAIL: import $m $*"; fail=1; }
}
basis() { # basis DB MODEL: the all-reduce row's basis
  "$XP" --db "$1" query "$q" --param model="$2" --param tp=2 --param batch=1 --param interconnect=any \
    --format csv | grep '^allreduce,'
}
has() { # has WHAT PATTERN TEXT
  grep -q "$2" <<< "$3" || { echo "FAIL: $1: [$3] lacks [$2]"; fail=1; }
}
hasnt() { # hasnt WHAT PATTERN TEXT
  grep -q "$2" <<< "$3" && { echo "FAIL: $1: [$3] has [$2]"; fail=1; }
}

# the nccl_burst run recorded no interconnect; the traces ran on nvlink
"$XP" --db "$db" import nccl-tests "$log" > /dev/null || { echo "FAIL: import nccl-tests"; fail=1; }
check "the log records no interconnect" "" "$(sql "SELECT interconnect FROM runs WHERE kind = 'nccl_burst'")"
imp "$db" a M --set interconnect=nvlink
b=$(basis "$db" M)
has "run's unknown" "the nccl_burst run's interconnect is unknown (not recorded; the traces ran on nvlink)" "$b"
hasnt "run's unknown" "another interconnect" "$b"
# neither side recorded one: said so, where nothing was said, as if the two were the same
imp "$db" b U
has "both unknown" "the interconnect is unknown (neither the traces nor the nccl_burst run recorded one)" "$(basis "$db" U)"

# the run on pcie: traces on nvlink are another interconnect's; traces that recorded none, unknown
"$XP" --db "$tmp/pcie.db" import nccl-tests "$log" --set interconnect=pcie > /dev/null || { echo "FAIL: import pcie"; fail=1; }
imp "$tmp/pcie.db" a N --set interconnect=nvlink
imp "$tmp/pcie.db" b U
has "known and another" "measured on another interconnect than the traces" "$(basis "$tmp/pcie.db" N)"
b=$(basis "$tmp/pcie.db" U)
has "traces' unknown" "the traces' interconnect is unknown (not recorded; measured on pcie)" "$b"
hasnt "traces' unknown" "another interconnect" "$b"
# no trace of the configuration: no traces' interconnect to compare with
hasnt "no traces" "interconnect" "$(basis "$tmp/pcie.db" Q)"

# A series whose interconnect (or GPU) is unknown may be the traces' own: it is chosen before
# one known to be on another, which the latest import (run_id) won the tie with. Stand-ins cut
# from nccl-tests 2.19.6's sweep (tests/data/nccl/nccltests_sweep.txt): its -J JSON records no
# interconnect; its text without NCCL INFO lines (NCCL_DEBUG unset) neither, declared pcie here,
# and without its "Using devices" rank lines no GPU, one import declaring another GPU.
sweep="$XP_SRC/tests/data/nccl/nccltests_sweep"
grep -v 'NCCL INFO' "$sweep.txt" > "$tmp/no_info.txt"
"$XP" --db "$tmp/rank.db" import nccl-tests "$sweep.json" > /dev/null || { echo "FAIL: import json"; fail=1; }
"$XP" --db "$tmp/rank.db" import nccl-tests "$tmp/no_info.txt" --set interconnect=pcie > /dev/null ||
  { echo "FAIL: import no_info pcie"; fail=1; }
imp "$tmp/rank.db" a N --set interconnect=nvlink
b=$(basis "$tmp/rank.db" N)
has "unknown before another" "the nccl_burst run's interconnect is unknown (not recorded; the traces ran on nvlink)" "$b"
hasnt "unknown before another" "another interconnect" "$b"
grep -v -e 'NCCL INFO' -e '^#  Rank' "$sweep.txt" > "$tmp/no_gpu.txt"
"$XP" --db "$tmp/gpu.db" import nccl-tests "$tmp/no_gpu.txt" > /dev/null || { echo "FAIL: import no_gpu"; fail=1; }
"$XP" --db "$tmp/gpu.db" import nccl-tests "$tmp/no_gpu.txt" --set gpu="NVIDIA L40S" > /dev/null ||
  { echo "FAIL: import no_gpu L40S"; fail=1; }
imp "$tmp/gpu.db" a G
hasnt "GPU unknown before another" "another GPU" "$(basis "$tmp/gpu.db" G)"
finish
