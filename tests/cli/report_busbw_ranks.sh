#!/usr/bin/env bash
# xp report's bus-bandwidth chart names a series by the job's size as queries/allreduce_burst.sql
# reads it (a case's ranks, else the run's GPUs): two nccl-tests sweeps appended to one log, on 2
# and on 4 GPUs, are one run whose cases each say their ranks. Labelled by the run's gpu_count
# they were one "2x" line per placement, zig-zagging between the two jobs' bandwidths.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
sweep="$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
# the same sweep as a 4-GPU job's: its device lines, nGpus and NCCL's nranks say 4
sed -e 's/Pid   1351/Pid   1402/' -e 's/nGpus 2/nGpus 4/' -e 's/nranks 2/nranks 4/' \
  -e '/#  Rank  1 Group/a #  Rank  2 Group  0 Pid   1402 on         vm device  2 [0000:00:08] NVIDIA H200\n#  Rank  3 Group  0 Pid   1402 on         vm device  3 [0000:00:09] NVIDIA H200' \
  "$sweep" > "$tmp/four.txt"
cat "$sweep" "$tmp/four.txt" > "$tmp/two_sizes.txt"
run import nccl-tests "$tmp/two_sizes.txt"; expect_rc 0
check "one run" 1 "$(sql "SELECT count(*) FROM runs")"
check "its cases' ranks: 2 and 4" 6 "$(sql "SELECT sum(DISTINCT json_extract(params, '\$.ranks')) FROM cases")"
run report --out "$tmp/r.html"; expect_rc 0
titles() { grep -o "<title>allreduce bf16 eager[^<:]*</title>" "$tmp/r.html" | sort -u; }
check "series: each job's out-of-place and in-place" 4 "$(titles | wc -l)"
check "series of the 4-GPU job" 2 "$(titles | grep -c ' · 4x NVIDIA H200 · ')"
# each point says its job's bandwidth: the 4-GPU series holds only the 4-rank cases' figures
want=$(query "SELECT printf('%.2f', m.median) FROM cases c JOIN metrics m ON m.case_id = c.id AND m.name = 'busbw_GBps'
  WHERE json_extract(c.params, '\$.ranks') = 4 AND json_extract(c.params, '\$.placement') = 'out_of_place'
  AND json_extract(c.params, '\$.bytes') = 268435456")
has "allreduce bf16 eager burst 20 · 4x NVIDIA H200 · $(sql "SELECT substr(uuid, 1, 8) FROM runs"): 268435456 B, busbw $want GB/s" "$tmp/r.html"
finish
