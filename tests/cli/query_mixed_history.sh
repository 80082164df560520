#!/usr/bin/env bash
# The shipped queries over a history that mixes what users have: two GPUs' nccl-tests logs, the
# same files imported again, kernel_variant runs of two models whose shapes share a name, and
# serving results imported twice. Each answer is checked against figures worked out here from
# the files themselves (the logs' rows), not against the query's own output.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/nccl"
pro="NVIDIA RTX PRO 6000 Blackwell Server Edition"

# allreduce_burst.sql: an H200 pair's log and an RTX PRO 6000 pair's, neither showing its
# interconnect (no NCCL INFO lines: '?'), are two rows of 14336 B, each its own GPU's time, where
# they were one row averaging them (7.49 and 14.98 us: 11.235).
sed -e "s/NVIDIA H200/$pro/" -e 's/  7.49 / 14.98 /' "$data/nccltests_graph.txt" > "$tmp/pro.txt"
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" > /dev/null 2>&1 || { echo "FAIL: import H200"; fail=1; }
"$XP" --db "$db" import nccl-tests "$tmp/pro.txt" > /dev/null 2>&1 || { echo "FAIL: import RTX PRO 6000"; fail=1; }
"$XP" --db "$db" import nccl-tests "$tmp/pro.txt" > /dev/null 2>&1 # the same file again: once
burst() { # burst: the 14336 B graph out-of-place rows: gpu, runs, time_us
  "$XP" --db "$db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv |
    awk -F, '$3 == 14336 && $4 == "graph" && $5 == "out_of_place" { print $8 "|" $12 "|" $15 }'
}
check "allreduce_burst: a row per GPU, each its own time" \
  "NVIDIA H200|1|7.49 $pro|1|14.98" "$(burst | sort | tr '\n' ' ' | sed 's/ $//')"

finish
