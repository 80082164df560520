#!/usr/bin/env bash
# The same nccl-tests log imported again (a script run twice, xp rerun, a label corrected with
# --set) is one measurement: allreduce_burst.sql counts the latest import of the same files
# once, where it counted every import as a run of its own.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/nccl"
q="$XP_SRC/queries/allreduce_burst.sql"
row() { # row: the 14336 B graph out-of-place row's interconnect and runs
  "$XP" --db "$db" query "$q" --format csv | awk -F, '$3 == 14336 && $4 == "graph" && $5 == "out_of_place" { print $9 "," $12 }'
}
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" > /dev/null 2>&1 || { echo "FAIL: import"; fail=1; }
check "one import" "?,1" "$(row)"
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" > /dev/null 2>&1
check "the same file again: still one run" "?,1" "$(row)"
# a corrected label: the latest import of the files is the one that counts
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" --set interconnect=nvlink > /dev/null 2>&1
check "relabelled: the latest import counts" "nvlink (declared),1" "$(row)"
# other content is another measurement
sed 's/  7.49 /  7.59 /' "$data/nccltests_graph.txt" > "$tmp/again.txt"
"$XP" --db "$db" import nccl-tests "$tmp/again.txt" --set interconnect=nvlink > /dev/null 2>&1
check "another log: two runs" "nvlink (declared),2" "$(row)"
finish
