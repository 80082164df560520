#!/usr/bin/env bash
# xp import nccl-tests on real output from 2x H200 (tests/data/nccl): text with NCCL INFO lines
# (with and without NCCL's topology dump), the -J JSON of the same run, a CUDA-graph run; then
# the allreduce_burst query over them, and bad files answered with one line and exit 2.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/nccl"
metric() { # metric RUN-PREFIX CASE METRIC: its median
  sql "SELECT printf('%.2f', m.median) FROM runs r JOIN cases c ON c.run_id = r.id JOIN metrics m ON m.case_id = c.id
       WHERE r.uuid LIKE '$1%' AND c.name = '$2' AND m.name = '$3'"
}
run_of() { cat "$tmp/out" "$tmp/err" | grep -o 'run [0-9a-f]\{8\}-' | head -1 | cut -c5-12; }

# Dry run: reads and describes, records nothing.
"$XP" --db "$db" import nccl-tests "$data/nccltests_sweep.txt" "$data/topo.xml" --dry-run > "$tmp/out" 2> "$tmp/err"
check "dry run exit" 0 $?
grep -q 'nccl-tests text, allreduce, 26 result lines, 8..268435456 bytes, 2 ranks, eager, with NCCL INFO lines' "$tmp/out" ||
  { echo "FAIL: dry run summary"; cat "$tmp/out"; fail=1; }
grep -q 'topology dump, 2 GPUs' "$tmp/out" || { echo "FAIL: dry run topology"; fail=1; }
check "dry run records nothing" 0 "$(ls "$db" 2>/dev/null | wc -l)"

# Text with INFO lines and the topology: NCCL's facts, interconnect from P2P over NVLink.
"$XP" --db "$db" import nccl-tests "$data/nccltests_sweep.txt" "$data/topo.xml" > "$tmp/out" 2> "$tmp/err"
check "text import exit" 0 $?
t=$(run_of)
check "text: kind, origin" "nccl_burst imported ok" "$(sql "SELECT kind || ' ' || origin || ' ' || status FROM runs WHERE uuid LIKE '$t%'")"
check "text: cases" 52 "$(sql "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$t%'")"
check "text: 1 MiB time" 22.30 "$(metric "$t" allreduce/bf16/1048576/eager/out_of_place time_us)"
check "text: 1 MiB busbw" 47.02 "$(metric "$t" allreduce/bf16/1048576/eager/out_of_place busbw_GBps)"
check "text: 256 MiB in place time" 887.53 "$(metric "$t" allreduce/bf16/268435456/eager/in_place time_us)"
check "text: burst of 20" 17742.20 "$(metric "$t" allreduce/bf16/268435456/eager/out_of_place burst_us)"
# a bandwidth the text prints as 0.00 (under its 2 decimals) is no zero: from the time, as
# nccl-tests computes it (8 B / 18.54 us), the -J file's 0.000431
check "text: 8 B busbw from its time" 0.000431 "$(sql "SELECT printf('%.6f', m.median) FROM runs r JOIN cases c ON c.run_id = r.id
  JOIN metrics m ON m.case_id = c.id WHERE r.uuid LIKE '$t%' AND c.name = 'allreduce/bf16/8/eager/out_of_place' AND m.name = 'busbw_GBps'")"
check "text: 8 KiB algbw from its time (0.45 printed)" 0.4513 "$(sql "SELECT printf('%.4f', m.median) FROM runs r JOIN cases c ON c.run_id = r.id
  JOIN metrics m ON m.case_id = c.id WHERE r.uuid LIKE '$t%' AND c.name = 'allreduce/bf16/8192/eager/out_of_place' AND m.name = 'algbw_GBps'")"
# a collective xp does not know gives no busbw factor: its 0.00 busbw is left out, never 0
grep -v 'Collective test starting\|all_reduce_perf' "$data/nccltests_sweep.txt" > "$tmp/sweep_unnamed.txt"
"$XP" --db "$tmp/unnamed_bw.db" import nccl-tests "$tmp/sweep_unnamed.txt" > /dev/null 2>&1
check "unknown collective: 8 B busbw left out, 1 MiB kept" "|47.02" "$("$XP" --db "$tmp/unnamed_bw.db" query <(echo "SELECT
  (SELECT m.median FROM cases c JOIN metrics m ON m.case_id = c.id WHERE c.name = 'unknown/bf16/8/eager/out_of_place'
   AND m.name = 'busbw_GBps') AS a, (SELECT m.median FROM cases c JOIN metrics m ON m.case_id = c.id
   WHERE c.name = 'unknown/bf16/1048576/eager/out_of_place' AND m.name = 'busbw_GBps') AS b;") --format csv 2> /dev/null | sed -n 2p | tr , '|')"
check "text: wrong" 0.00 "$(metric "$t" allreduce/bf16/8/eager/out_of_place wrong)"
# sendrecv's (and reduce's) GetBw gives busbw = algbw: its "0.00" busbw is taken from the time too
# (the 2-rank sweep's rows as sendrecv_perf prints the same figures), where it was left out
sed 's/all_reduce_perf/sendrecv_perf/' "$data/nccltests_sweep.txt" > "$tmp/sendrecv_perf.txt"
"$XP" --db "$tmp/sendrecv_bw.db" import nccl-tests "$tmp/sendrecv_perf.txt" > /dev/null 2>&1
check "sendrecv: 8 B busbw from its time" "0.000431" "$("$XP" --db "$tmp/sendrecv_bw.db" query <(echo "SELECT printf('%.6f', m.median)
  FROM cases c JOIN metrics m ON m.case_id = c.id WHERE c.name = 'sendrecv/bf16/8/eager/out_of_place' AND m.name = 'busbw_GBps';") \
  --format csv 2> /dev/null | sed -n 2p)"
check "text: interconnect" "nvlink" "$(sql "SELECT interconnect FROM runs WHERE uuid LIKE '$t%'")"
check "text: gpus" "2 NVIDIA H200" "$(sql "SELECT gpu_count || ' ' || gpu_name FROM runs WHERE uuid LIKE '$t%'")"
check "text: transport" "P2P/direct pointer x24" "$(sql "SELECT value FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE r.uuid LIKE '$t%' AND key = 'nccl.transport.0-1' AND source = 'trace'")"
check "text: path" "nvlink: 18 NVLinks through NVSwitch" "$(sql "SELECT value FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE r.uuid LIKE '$t%' AND key = 'nccl.path.0-1'")"
# (the fixture's VM dump: one <cpu numaid="-1">, which states no NUMA layout, not one node)
check "text: topology (a VM's NUMA layout unknown)" '"2 GPUs, NUMA nodes unknown (numaid -1, as in a VM), 0 PCIe switches, NICs: eth0 10000 Mb/s"' \
  "$(sql "SELECT value FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$t%' AND key = 'nccl.topology'")"
# A dump NCCL fused across an MNNVL domain: each host's NICs under its own <cpu>, by the same
# names: said once for every host where they agree, else each host's after its host_hash, where
# "NICs: mlx5_0 400000 Mb/s, mlx5_0 400000 Mb/s" told no NIC's host.
vdata="$XP_SRC/tests/data/nccl/variants"
topo_of() { "$XP" --db "$tmp/$1.db" import nccl-tests "$data/nccltests_sweep.txt" "$2" > /dev/null 2>&1
  "$XP" --db "$tmp/$1.db" query <(echo "SELECT value FROM run_meta WHERE key = 'nccl.topology';") --format csv 2> /dev/null | sed -n 2p; }
check "MNNVL dump: each host's NICs alike" '"2 GPUs on 2 hosts (one MNNVL domain), 2 NUMA nodes, 0 PCIe switches, NICs: mlx5_0 400000 Mb/s on each of its 2 hosts"' \
  "$(topo_of mnnvl "$vdata/mnnvl_fused_topo.xml")"
sed '0,/mlx5_0/s//mlx5_1/' "$vdata/mnnvl_fused_topo.xml" | sed '/host_hash="0x9e02/,/<\/cpu>/{/<nic>/,/<\/nic>/d}' > "$tmp/mnnvl_unlike.xml"
check "MNNVL dump: each host's NICs" '"2 GPUs on 2 hosts (one MNNVL domain), 2 NUMA nodes, 0 PCIe switches, NICs: host 0x5a1c3e2f0b7d4e11: mlx5_1 400000 Mb/s; host 0x9e02b7c14f3a6d22: none"' \
  "$(topo_of mnnvl_unlike "$tmp/mnnvl_unlike.xml")"
# Two ranks on one GPU's MLOPart partitions (NCCL 2.27 on, topo.cc's ncclTopoAddGpuSub: a <gpu
# mlopart=".."> each under the GPU's one <pci>): one GPU, where "2 GPUs" was said
cat > "$tmp/mlopart.xml" <<'XML'
<system version="1">
  <cpu host_hash="0x3c2b1a0f9e8d7c6b" numaid="0" arch="x86_64" vendor="GenuineIntel">
    <pci busid="0000:1b:00.0" class="0x030200" link_speed="32.0 GT/s PCIe" link_width="16">
      <gpu dev="0" sm="100" rank="0" gdr="1" mlopart="0"><nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/></gpu>
      <gpu dev="1" sm="100" rank="1" gdr="1" mlopart="1"><nvlink target="fffffff:ff:ff.0" count="18" tclass="0x068000"/></gpu>
    </pci>
  </cpu>
</system>
XML
check "MLOPart dump: one GPU" '"1 GPU (2 ranks'"'"' devices, MLOPart partitions), 1 NUMA node, 0 PCIe switches, NICs: none"' \
  "$(topo_of mlopart "$tmp/mlopart.xml")"
check "text: NCCL version" "2.28.9+cuda13.0" "$(sql "SELECT value FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE r.uuid LIKE '$t%' AND key = 'nccl.version_info'")"
# the CUDA driver NCCL's INFO line states ("cudaDriverVersion 13000"), as a measured run records it
check "text: CUDA driver" "13.0 trace" "$(sql "SELECT value || ' ' || source FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE r.uuid LIKE '$t%' AND key = 'cuda.driver_api'")"
check "text: artifacts" 2 "$(sql "SELECT count(*) FROM artifacts a JOIN runs r ON r.id = a.run_id WHERE r.uuid LIKE '$t%'")"
check "text: run_gpus" "0000:00:07" "$(sql "SELECT pci_bus_id FROM run_gpus g JOIN runs r ON r.id = g.run_id
  WHERE r.uuid LIKE '$t%' AND idx = 1")"

# Each rank's NCCL log in a file of its own (NCCL_DEBUG_FILE) beside the nccl-tests output:
# the same facts as the interleaved log.
grep "NCCL INFO" "$data/nccltests_sweep.txt" > "$tmp/nccl.rank0.log"
grep -v "NCCL INFO" "$data/nccltests_sweep.txt" > "$tmp/all_reduce_perf.txt"
"$XP" --db "$db" import nccl-tests "$tmp/all_reduce_perf.txt" "$tmp/nccl.rank0.log" "$data/topo.xml" > "$tmp/out" 2> "$tmp/err"
check "separate NCCL log exit" 0 $?
s=$(run_of)
check "separate NCCL log: interconnect" "nvlink" "$(sql "SELECT interconnect FROM runs WHERE uuid LIKE '$s%'")"
check "separate NCCL log: cases" 52 "$(sql "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$s%'")"
# NCCL's TUNING line (NCCL_DEBUG_SUBSYS=TUNING, enqueue.cc: "AllReduce: N Bytes -> Algo ..." with N
# count x the type's size) names the algorithm of a row of any type: the sweep's rows as -d int32
# prints them (count size / 4), where only bf16/fp16/fp32/fp8 rows were matched to their line.
awk '$3 == "bfloat16" && $1 ~ /^[0-9]+$/ { sub(/ +[0-9]+  bfloat16/, sprintf("  %12d     int32", $1 / 4)) } 1' \
  "$tmp/all_reduce_perf.txt" > "$tmp/int32_perf.txt"
cp "$tmp/nccl.rank0.log" "$tmp/nccl.int32.log"
echo 'vm:1351:1351 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..23}' >> "$tmp/nccl.int32.log"
"$XP" --db "$tmp/int32.db" import nccl-tests "$tmp/int32_perf.txt" "$tmp/nccl.int32.log" > /dev/null 2>&1
check "int32 rows: imported" "0 52" "$? $("$XP" --db "$tmp/int32.db" query <(echo "SELECT count(*) FROM cases WHERE name LIKE 'allreduce/int32/%';") --format csv 2> /dev/null | tail -1)"
check "int32 row: its TUNING choice" "RING LL128" "$("$XP" --db "$tmp/int32.db" query <(echo "SELECT json_extract(params, '$.algo') || ' ' ||
  json_extract(params, '$.proto') FROM cases WHERE name = 'allreduce/int32/1048576/eager/out_of_place';") --format csv 2> /dev/null | tail -1)"

# Without the topology the log's P2P does not say NVLink or PCIe: no interconnect is claimed.
"$XP" --db "$db" import nccl-tests "$data/nccltests_sweep.txt" > "$tmp/out" 2> "$tmp/err"
check "text without topology exit" 0 $?
t2=$(run_of)
check "no topology: interconnect" "" "$(sql "SELECT coalesce(interconnect, '') FROM runs WHERE uuid LIKE '$t2%'")"

# The -J JSON of the same run agrees with its text.
"$XP" --db "$db" import nccl-tests "$data/nccltests_sweep.json" > "$tmp/out" 2> "$tmp/err"
check "json import exit" 0 $?
j=$(run_of)
check "json: cases" 52 "$(sql "SELECT count(*) FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$j%'")"
check "json: 1 MiB time" 22.30 "$(metric "$j" allreduce/bf16/1048576/eager/out_of_place time_us)"
check "json: 2 GPUs (-g 2 lists rank 0 alone)" 2 "$(sql "SELECT gpu_count FROM runs WHERE uuid LIKE '$j%'")"
check "json: 256 MiB busbw" 302.59 "$(metric "$j" allreduce/bf16/268435456/eager/out_of_place busbw_GBps)"
check "json: NCCL env kept" 0 "$(sql "SELECT value FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE r.uuid LIKE '$j%' AND key = 'nccl_tests.env.NCCL_NVLS_ENABLE'")"
check "json: only NCCL_ env" 0 "$(sql "SELECT count(*) FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE r.uuid LIKE '$j%' AND key LIKE 'nccl_tests.env.%' AND key NOT LIKE 'nccl_tests.env.NCCL_%'")"

# a key given twice: the last counts, as json.load reads it (the first, a string, was refused)
sed 's/"out_of_place":{"time":22.302300,/"out_of_place":{"time":"slow","time":22.302300,/' "$data/nccltests_sweep.json" > "$tmp/twice.json"
"$XP" --db "$db" import nccl-tests "$tmp/twice.json" > "$tmp/out" 2> "$tmp/err"
check "json, a key given twice: exit" 0 $?
check "json, a key given twice: the last value" 22.30 "$(metric "$(run_of)" allreduce/bf16/1048576/eager/out_of_place time_us)"

# Compared with its text, the -J file (which lists rank 0's device alone) ran on the same GPUs
"$XP" --db "$db" compare "$j" "$t2" > "$tmp/cmp" 2>&1
check "json vs text: compare exit" 0 $?
check "json vs text: the same 2 GPUs, no difference" "" "$(grep '^  gpus:' "$tmp/cmp")"
# the -J file states its format (version 3), not nccl-tests' version: it is no other nccl-tests
check "json: its format, under its own key" "3|" "$(sql "SELECT group_concat(CASE key WHEN 'nccl_tests.json_format'
  THEN value END) || '|' || coalesce(group_concat(CASE key WHEN 'nccl_tests.version' THEN value END), '') AS v
  FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$j%'")"
check "json vs text: no other nccl-tests version" "" "$(grep 'nccl_tests.version: .*json' "$tmp/cmp")"

# The text and its -J JSON given together are one run: each case counts it once (the JSON's
# six decimals), not as two samples; the text's NCCL lines (transports) are still read.
"$XP" --db "$db" import nccl-tests "$data/nccltests_sweep.txt" "$data/nccltests_sweep.json" > "$tmp/out" 2> "$tmp/err"
check "text + json exit" 0 $?
tj=$(run_of)
check "text + json: one sample a case" "52|1" "$(sql "SELECT count(DISTINCT c.id) || '|' || max(m.n) FROM runs r
  JOIN cases c ON c.run_id = r.id JOIN metrics m ON m.case_id = c.id WHERE r.uuid LIKE '$tj%' AND m.name = 'time_us'")"
check "text + json: the JSON's figure" 18.5414 "$(sql "SELECT round(m.median, 4) FROM runs r JOIN cases c ON c.run_id = r.id
  JOIN metrics m ON m.case_id = c.id WHERE r.uuid LIKE '$tj%' AND c.name = 'allreduce/bf16/8/eager/out_of_place'
  AND m.name = 'time_us'")"
check "text + json: the text's transports" "P2P/direct pointer" "$(sql "SELECT value FROM run_meta m JOIN runs r
  ON r.id = m.run_id WHERE r.uuid LIKE '$tj%' AND key = 'nccl.transports'")"
check "text + json: said once" 1 "$(grep -c 'nccltests_sweep.txt: the same results as .*nccltests_sweep.json (its -J output' "$tmp/err")"

# the version the text states, whichever file comes first; the JSON's format beside it
"$XP" --db "$db" import nccl-tests "$data/nccltests_sweep.json" "$data/nccltests_sweep.txt" > "$tmp/out" 2> "$tmp/err"
jt=$(run_of)
check "json + text: versions" "2.19.6 3" "$(sql "SELECT (SELECT value FROM run_meta m WHERE m.run_id = r.id AND key = 'nccl_tests.version')
  || ' ' || (SELECT value FROM run_meta m WHERE m.run_id = r.id AND key = 'nccl_tests.json_format') AS v FROM runs r WHERE r.uuid LIKE '$jt%'")"

# CUDA graph run: mode graph, a burst of 500 (-n 500), nccl-tests' per-collective time.
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" > "$tmp/out" 2> "$tmp/err"
check "graph import exit" 0 $?
g=$(run_of)
check "graph: 14336 time" 7.49 "$(metric "$g" allreduce/bf16/14336/graph/out_of_place time_us)"
check "graph: 14336 busbw" 1.91 "$(metric "$g" allreduce/bf16/14336/graph/out_of_place busbw_GBps)"
check "graph: burst" 500 "$(sql "SELECT json_extract(params, '$.burst') FROM cases c JOIN runs r ON r.id = c.run_id
  WHERE r.uuid LIKE '$g%' AND c.name = 'allreduce/bf16/14336/graph/out_of_place'")"

# The same case in two logs (another run of the test) is two samples of one case; one file
# given twice is refused: its rows would count twice.
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" "$data/nccltests_graph.txt" > "$tmp/out" 2> "$tmp/err"
check "one file twice exit" 2 $?
grep -q 'nccltests_graph.txt: given twice (each case would count its row twice)$' "$tmp/err" || { echo "FAIL: one file twice: $(cat "$tmp/err")"; fail=1; }
{ cat "$data/nccltests_graph.txt"; echo "# the same test run again"; } > "$tmp/graph_again.txt"
"$XP" --db "$db" import nccl-tests "$data/nccltests_graph.txt" "$tmp/graph_again.txt" > "$tmp/out" 2> "$tmp/err"
check "twice exit" 0 $?
d=$(run_of)
check "twice: samples" 2 "$(sql "SELECT m.n FROM metrics m JOIN cases c ON c.id = m.case_id JOIN runs r ON r.id = c.run_id
  WHERE r.uuid LIKE '$d%' AND c.name = 'allreduce/bf16/14336/graph/out_of_place' AND m.name = 'time_us'")"

# A log that does not name its test (older nccl-tests): --collective names it, else "unknown".
grep -v 'Collective test starting' "$data/nccltests_graph.txt" > "$tmp/unnamed.txt"
"$XP" --db "$db" import nccl-tests "$tmp/unnamed.txt" --collective all_reduce > "$tmp/out" 2> "$tmp/err"
check "unnamed with --collective exit" 0 $?
u=$(run_of)
check "unnamed: named by the option" 7.49 "$(metric "$u" allreduce/bf16/14336/graph/out_of_place time_us)"
"$XP" --db "$db" import nccl-tests "$tmp/unnamed.txt" > "$tmp/out" 2> "$tmp/err"
u=$(run_of)
check "unnamed: unknown" 7.49 "$(metric "$u" unknown/bf16/14336/graph/out_of_place time_us)"
# Output labelled by the launcher (mpirun --tag-output) is still text, not a JSON array.
sed 's/^/[1,0]<stdout>:/' "$data/nccltests_graph.txt" > "$tmp/tagged.txt"
"$XP" --db "$db" import nccl-tests "$tmp/tagged.txt" > "$tmp/out" 2> "$tmp/err"
check "tagged exit" 0 $?
u=$(run_of)
check "tagged: read as text" 7.49 "$(metric "$u" allreduce/bf16/14336/graph/out_of_place time_us)"
# ... or the file's name, where it was saved under its binary's.
cp "$tmp/unnamed.txt" "$tmp/all_reduce_perf.8gpu.log"
"$XP" --db "$db" import nccl-tests "$tmp/all_reduce_perf.8gpu.log" > "$tmp/out" 2> "$tmp/err"
u=$(run_of)
check "unnamed: named by the file" 7.49 "$(metric "$u" allreduce/bf16/14336/graph/out_of_place time_us)"

# The query over all of it: the sweep's imports (the interleaved log, the one with its NCCL log
# apart, the -J JSON, ...) are one measurement, one run; the JSON's figures, the logs' facts.
"$XP" --db "$db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv > "$tmp/q" 2> "$tmp/err"
check "query exit" 0 $?
grep -q '^allreduce,bf16,14336,graph,out_of_place,500,2,' "$tmp/q" || { echo "FAIL: query row for the graph run"; fail=1; }
grep -q '^allreduce,bf16,1048576,eager,out_of_place,20,2,NVIDIA H200,nvlink,P2P/direct pointer,imported,1,' "$tmp/q" ||
  { echo "FAIL: query row with interconnect"; cat "$tmp/q"; fail=1; }
# What NCCL's log and topology showed is the interconnect, not what was declared: an imported
# log records it as source 'trace' (xp's own runs as 'detected'); a declared one is shown, with
# " (declared)", only where the log does not tell.
"$XP" --db "$tmp/ic.db" import nccl-tests "$data/nccltests_sweep.txt" "$data/topo.xml" --set interconnect=pcie > "$tmp/out" 2> "$tmp/err"
check "declared pcie, log nvlink: exit" 0 $?
"$XP" --db "$tmp/ic.db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv > "$tmp/q" 2> "$tmp/err"
grep -q '^allreduce,bf16,1048576,eager,out_of_place,20,2,NVIDIA H200,nvlink,P2P/direct pointer,imported,1,' "$tmp/q" ||
  { echo "FAIL: query row: the log's interconnect, not the declared one"; grep 1048576 "$tmp/q"; fail=1; }
"$XP" --db "$tmp/ic2.db" import nccl-tests "$data/nccltests_sweep.txt" --set interconnect=pcie > "$tmp/out" 2> "$tmp/err"
"$XP" --db "$tmp/ic2.db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv > "$tmp/q" 2> "$tmp/err"
grep -q '^allreduce,bf16,1048576,eager,out_of_place,20,2,NVIDIA H200,pcie (declared),P2P/direct pointer,imported,1,' "$tmp/q" ||
  { echo "FAIL: query row: declared where the log does not tell"; grep 1048576 "$tmp/q"; fail=1; }

# -o all: each reduction its own case, named by it (sum keeps the measured runs' name); the
# report's 2 ranks from its device lines; a blocking run (-z 1) named and flagged as such.
{
  echo "# Collective test starting: all_reduce_perf"
  echo "# nThread 1 nGpus 2 minBytes 1024 maxBytes 1024 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0"
  echo "# Blocking Enabled: wait for completion and barrier after each collective"
  echo "#  Rank  0 Group  0 Pid   77 on      node1 device  0 [0000:18:00] NVIDIA H100 80GB HBM3"
  echo "#  Rank  1 Group  0 Pid   77 on      node1 device  1 [0000:19:00] NVIDIA H100 80GB HBM3"
  echo "#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong"
  echo "    1024   256  float  sum  -1  20.10  0.05  0.05  0  21.00  0.05  0.05  0"
  echo "    1024   256  float  max  -1  30.10  0.03  0.03  0  31.00  0.03  0.03  0"
} > "$tmp/opall.txt"
"$XP" --db "$db" import nccl-tests "$tmp/opall.txt" > "$tmp/out" 2> "$tmp/err"
check "op all exit" 0 $?
o=$(run_of)
check "op all: cases" "allreduce/fp32/1024/eager/in_place/blocking allreduce/fp32/1024/eager/in_place/max/blocking allreduce/fp32/1024/eager/out_of_place/blocking allreduce/fp32/1024/eager/out_of_place/max/blocking" \
  "$(sql "SELECT group_concat(name, ' ') FROM (SELECT c.name FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$o%' ORDER BY c.name)")"
check "op all: max time" 30.10 "$(metric "$o" allreduce/fp32/1024/eager/out_of_place/max/blocking time_us)"
check "op all: params" "max,2,1" "$(sql "SELECT json_extract(params, '$.redop'), json_extract(params, '$.ranks'),
  json_extract(params, '$.blocking') FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$o%' AND c.name LIKE '%out_of_place/max%'")"
check "op all: gpu_count" 2 "$(sql "SELECT gpu_count FROM runs WHERE uuid LIKE '$o%'")"

# -z 3 (newer nccl-tests: a barrier per outer iteration, its time left out) is a case of its own,
# and its -J file, whose config says only "true", names the same case from its args; before, both
# were plain /blocking, with -z 1's.
sed 's/^# Blocking Enabled: .*/# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier /; /  max  /d' \
  "$tmp/opall.txt" > "$tmp/z3.txt"
"$XP" --db "$db" import nccl-tests "$tmp/z3.txt" > "$tmp/out" 2> "$tmp/err"
check "-z 3 text: exit" 0 $?
z=$(run_of)
cases_of() { sql "SELECT group_concat(name, ' ') FROM (SELECT c.name FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$1%' ORDER BY c.name)"; }
check "-z 3 text: cases" "allreduce/fp32/1024/eager/in_place/blocking_outer allreduce/fp32/1024/eager/out_of_place/blocking_outer" "$(cases_of "$z")"
check "-z 3 text: options" 1 "$(sql "SELECT count(*) FROM run_meta m JOIN runs r ON r.id = m.run_id WHERE r.uuid LIKE '$z%'
  AND m.key = 'nccl_tests.options' AND m.value LIKE '%blocking per outer iteration, barrier untimed (-z 3)%'")"
check "-z 3 text: params" "1,3" "$(sql "SELECT json_extract(params, '$.blocking'), json_extract(params, '$.blocking_mode')
  FROM cases c JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$z%' AND c.name LIKE '%out_of_place%'")"
printf '%s' '{"version":3,"args":["/opt/nccl-tests/build/all_reduce_perf","-g","2","-b","1024","-e","1024","-z","3"],"config":{"nthreads":1,"ngpus":2,"iterations":20,"blocking_collectives":"true"},"results":[{"size":1024,"count":256,"type":"float","redop":"sum","root":-1,"out_of_place":{"time":20.1,"alg_bw":0.05,"bus_bw":0.05,"nwrong":0},"in_place":{"time":21.0,"alg_bw":0.05,"bus_bw":0.05,"nwrong":0}}],"errors":[""]}' > "$tmp/z3.json"
"$XP" --db "$db" import nccl-tests "$tmp/z3.json" > "$tmp/out" 2> "$tmp/err"
check "-z 3 json: exit" 0 $?
check "-z 3 json: the text's cases" "$(cases_of "$z")" "$(cases_of "$(run_of)")"

# -a (0 rank 0's time, 1 the mean over ranks, the default, 2 the fastest rank's, 3 the slowest's)
# decides what the time column holds, and no report's head nor -J config says it: the command line
# before a report and -J's args do. Each mode is a case of its own, named and flagged; before, a
# log of -a 0 and -a 3 pooled both as one case's samples.
sed '/  max  /d; /^# Blocking/d' "$tmp/opall.txt" > "$tmp/avg_report.txt"
{ echo '$ ./build/all_reduce_perf -g 2 -b 1024 -e 1024 -a 0'; cat "$tmp/avg_report.txt"
  echo 'user@node1:~$ mpirun -np 1 ./build/all_reduce_perf -g 2 -b 1024 -e 1024 --average=3 2>&1 | tee log'
  sed 's/20.10/40.20/' "$tmp/avg_report.txt"; } > "$tmp/avg.txt"
"$XP" --db "$db" import nccl-tests "$tmp/avg.txt" > "$tmp/out" 2> "$tmp/err"
check "-a text: exit" 0 $?
a=$(run_of)
check "-a text: cases" "allreduce/fp32/1024/eager/in_place/time_max allreduce/fp32/1024/eager/in_place/time_rank0 allreduce/fp32/1024/eager/out_of_place/time_max allreduce/fp32/1024/eager/out_of_place/time_rank0" "$(cases_of "$a")"
check "-a text: rank 0's time alone" 20.10 "$(metric "$a" allreduce/fp32/1024/eager/out_of_place/time_rank0 time_us)"
check "-a text: the slowest rank's alone" 40.20 "$(metric "$a" allreduce/fp32/1024/eager/out_of_place/time_max time_us)"
check "-a text: params" "max" "$(sql "SELECT json_extract(params, '$.time_over_ranks') FROM cases c JOIN runs r ON r.id = c.run_id
  WHERE r.uuid LIKE '$a%' AND c.name = 'allreduce/fp32/1024/eager/out_of_place/time_max'")"
{ echo '$ ./build/all_reduce_perf -g 2 -b 1024 -e 1024 -a 1'; cat "$tmp/avg_report.txt"; } > "$tmp/avg1.txt"
"$XP" --db "$db" import nccl-tests "$tmp/avg1.txt" > "$tmp/out" 2> "$tmp/err"
check "-a 1 text: the default's cases" "allreduce/fp32/1024/eager/in_place allreduce/fp32/1024/eager/out_of_place" "$(cases_of "$(run_of)")"
sed 's/"-z","3"/"-a","2"/; s/"blocking_collectives":"true"/"blocking_collectives":"false"/' "$tmp/z3.json" > "$tmp/a2.json"
"$XP" --db "$db" import nccl-tests "$tmp/a2.json" > "$tmp/out" 2> "$tmp/err"
check "-a 2 json: exit" 0 $?
check "-a 2 json: cases" "allreduce/fp32/1024/eager/in_place/time_min allreduce/fp32/1024/eager/out_of_place/time_min" "$(cases_of "$(run_of)")"

# Wrong results the test reported (#wrong 3, as nccl-tests 2.19 prints a failed check): the case is
# failed with its note, the import whole (exit 0), and said once; before, nothing was said.
sed 's/  sum  -1  20.10  0.05  0.05  0/  sum  -1  20.10  0.05  0.05  3/; /  max  /d' "$tmp/opall.txt" > "$tmp/wrong.txt"
"$XP" --db "$db" import nccl-tests "$tmp/wrong.txt" > "$tmp/out" 2> "$tmp/err"
check "wrong: exit" 0 $?
w=$(run_of)
check "wrong: warned once" 1 "$(grep -c '1 case the test found wrong (#wrong, or bitwise differences between repeats): recorded as failed' "$tmp/err")"
check "wrong: the case failed, its note" "failed 3 wrong elements reported" "$(sql "SELECT c.status || ' ' || c.note FROM cases c
  JOIN runs r ON r.id = c.run_id WHERE r.uuid LIKE '$w%' AND c.name LIKE '%out_of_place%'")"

# A table pasted without its head: ranks from allreduce's busbw / algbw, said to be so.
printf '#  size count type redop root   time algbw busbw #wrong   time algbw busbw #wrong\n' > "$tmp/all_reduce_perf.paste.txt"
printf '33554432  8388608  float  sum  -1  1464.2  22.92  40.11  0  1458.1  23.01  40.27  0\n' >> "$tmp/all_reduce_perf.paste.txt"
"$XP" --db "$db" import nccl-tests "$tmp/all_reduce_perf.paste.txt" > "$tmp/out" 2> "$tmp/err"
check "paste exit" 0 $?
p=$(run_of)
check "paste: ranks" 8 "$(sql "SELECT json_extract(params, '$.ranks') FROM cases c JOIN runs r ON r.id = c.run_id
  WHERE r.uuid LIKE '$p%' AND c.name = 'allreduce/fp32/33554432/eager/out_of_place'")"
paste_options=$(sql "SELECT value FROM run_meta m JOIN runs r ON r.id = m.run_id
  WHERE r.uuid LIKE '$p%' AND key = 'nccl_tests.options'")
grep -q "8 ranks (from busbw / algbw)" <<< "$paste_options" || { echo "FAIL: paste: options do not say where ranks came from"; fail=1; }
# no options line: said so, where "0 threads x 0 GPUs per process ... warmup 0, iters 0" was recorded
check "paste: options not in the file" 1 \
  "$(grep -c '^.\?not in the file (no .*# nThread.* line: threads, GPUs per process, iterations unknown); 8 ranks' <<< "$paste_options")"

# Bad input: one line on stderr naming the file, exit 2; a file that cannot be opened records
# nothing, one that is not nccl-tests output leaves a failed run with that line and no results.
runs_before=$(sql "SELECT count(*) FROM runs")
cases_before=$(sql "SELECT count(*) FROM cases")
expect_bad() { # expect_bad NAME PATTERN FILE...
  local name=$1 pattern=$2
  shift 2
  "$XP" --db "$db" import nccl-tests "$@" > "$tmp/out" 2> "$tmp/err"
  check "$name: exit" 2 $?
  grep -q -- "$pattern" "$tmp/err" || { echo "FAIL: $name: stderr lacks [$pattern]:"; cat "$tmp/err"; fail=1; }
  check "$name: one line" 1 "$(wc -l < "$tmp/err")"
}
expect_bad "not nccl-tests" "PROVENANCE.md:6: no nccl-tests results found: a Markdown table without nccl-tests' columns" "$data/PROVENANCE.md"
expect_bad "missing file" "nope.txt: cannot read" "$tmp/nope.txt"
printf '{"results": 3}\n' > "$tmp/other.json"
expect_bad "foreign json" "other.json: not nccl-tests -J output" "$tmp/other.json"
printf '{"results": [' > "$tmp/cut.json"
expect_bad "cut json" "cut.json: not valid JSON" "$tmp/cut.json"
# a negative time measured nothing: refused, as the text's "column time: -18.5 is negative" is
sed 's/"out_of_place":{"time":22.302300,/"out_of_place":{"time":-18.5,/' "$data/nccltests_sweep.json" > "$tmp/negative.json"
expect_bad "json: a negative time" 'negative.json: results\[17\].out_of_place: "time": -18.5 is negative' "$tmp/negative.json"
sed 's/^      262144        131072  bfloat16     sum      -1    24.79/      262144        131072  bfloat16     sum      -1    2x.79/' \
  "$data/nccltests_sweep.txt" > "$tmp/garbled.txt"
expect_bad "garbled number" "garbled.txt:1[0-9][0-9]: column time: expected a number" "$tmp/garbled.txt"
# an all_reduce's size is its count x the type's size in every nccl-tests (common.cu's setupArgs):
# a count that says otherwise is refused, in the -J file and in the text
sed 's/"size":8,"count":4,/"size":8,"count":9000000000000000000,/' "$data/nccltests_sweep.json" > "$tmp/count.json"
expect_bad "json: a count not size / the type's size" \
  "count.json: results\[0\]: count 9000000000000000000 of bf16 (2 bytes each) does not make size 8" "$tmp/count.json"
sed 's/^      262144        131072  bfloat16/      262144        131073  bfloat16/' "$data/nccltests_sweep.txt" > "$tmp/count.txt"
expect_bad "text: a count not size / the type's size" "count.txt:1[0-9][0-9]: count 131073 of bf16 (2 bytes each) does not make size 262144" "$tmp/count.txt"
expect_bad "topology alone" "topology dump alone" "$data/topo.xml"
printf '<system version="1"><cpu>\n' > "$tmp/cut.xml"
expect_bad "broken topology" "cut.xml: malformed XML" "$data/nccltests_graph.txt" "$tmp/cut.xml"
check "bad input: failed runs" "$((runs_before + 9))" "$(sql "SELECT count(*) FROM runs")"
check "bad input: each with its reason" 9 "$(sql "SELECT count(*) FROM runs WHERE status = 'failed' AND error LIKE '%:%'")"
check "bad input: no results" "$cases_before" "$(sql "SELECT count(*) FROM cases")"

# one sweep imported as -J JSON and as its text: the text's 2 printed decimals are no change
# (0.00 GB/s against 0.000431 read as -100%, worse)
rdb="$tmp/same_sweep.db"
"$XP" --db "$rdb" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.json" > /dev/null 2>&1
"$XP" --db "$rdb" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1
check "one sweep twice: no regressions" 1 "$("$XP" --db "$rdb" query "$XP_SRC/queries/regressions.sql" --format csv 2> /dev/null | wc -l)"
# ... and they are one measurement wherever the history is read (each file imported as it
# arrived): the burst query lists each case once, from the JSON, with the text's transports;
# audit finds no newer run of the JSON's in its own text; the text names the JSON's run
rq() { "$XP" --db "$rdb" query <(echo "$1") --format csv 2> /dev/null | tail -n +2; }
rj=$(rq "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 1;")
check "one sweep twice: superseded" "2|1" "$(rq "SELECT run_id || '|' || by_run_id FROM trace_superseded;")"
"$XP" --db "$rdb" query "$XP_SRC/queries/allreduce_burst.sql" --format csv > "$tmp/burst.csv" 2> /dev/null
check "one sweep twice: burst rows, each one run" "52 52" "$(tail -n +2 "$tmp/burst.csv" | wc -l) $(grep -c ',imported,1,' "$tmp/burst.csv")"
check "one sweep twice: the JSON's figure, the text's transport" 1 \
  "$(grep -c '^allreduce,bf16,8,eager,out_of_place,20,2,NVIDIA H200,?,P2P/direct pointer,imported,1,370.83,' "$tmp/burst.csv")"
"$XP" --db "$rdb" decide "allreduce sweep as measured" --because "the text and -J of one run" --evidence "$rj" > /dev/null 2>&1
"$XP" --db "$rdb" audit > "$tmp/audit" 2>&1
check "one sweep twice: audit finds no newer run" 1 "$(grep -c 'no newer ok runs of the same configuration' "$tmp/audit")"
"$XP" --db "$rdb" report --out "$tmp/same.html" > /dev/null 2>&1
check "one sweep twice: report charts one run" 2 "$(grep -o 'allreduce bf16 eager[^<"]*: 1048576 B, busbw' "$tmp/same.html" | wc -l)"
# two -J files of one precision whose rows agree are one measurement only where they share a file:
# another run's (its start time differs) is a run of its own
sed 's/"start_time":"2026-11-29 21:25:59"/"start_time":"2026-11-30 08:00:00"/' "$XP_SRC/tests/data/nccl/nccltests_sweep.json" > "$tmp/other_run.json"
"$XP" --db "$rdb" import nccl-tests "$tmp/other_run.json" > /dev/null 2>&1
check "another run's -J file alike: both count" 0 "$(rq "SELECT count(*) FROM trace_superseded WHERE run_id IN (1, 3);")"
# xp compare of the sweep's -J file and its text: what one form alone states (the text's NCCL
# INFO facts and nccl-tests version, the JSON's environment, arguments, start time) is listed
# apart, not as 22 unfair differences; a setting one JSON has and another lacks still differs
rt=$(rq "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2;")
"$XP" --db "$rdb" compare "$rj" "$rt" > "$tmp/cmp_forms" 2>&1
check "json vs text: no unset side among the differences" 0 "$(sed -n '/^unfair/,$p' "$tmp/cmp_forms" | grep -c '(unset)')"
# the two imports' specs name the files each read, no difference in how the sweep ran
check "json vs text: nothing else differs" 1 "$(grep -c '^no difference in what both sides state$' "$tmp/cmp_forms")"
check "json vs text: stated by one form alone" "1 1 1" "$(grep -c '^stated by one side alone .*: 22$' "$tmp/cmp_forms") \
$(grep -c '^  nccl.transports: B P2P/direct pointer$' "$tmp/cmp_forms") $(grep -c '^  nccl_tests.start_time: A 2026-11-29 21:25:59$' "$tmp/cmp_forms")"
"$XP" --db "$rdb" compare "$rj" "$rt" --format json > "$tmp/cmp_forms.json" 2>&1
check "json vs text: one_sided in JSON" 22 "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["one_sided"]))' "$tmp/cmp_forms.json")"
sed 's/"env":\["NCCL_DEBUG=INFO",/"env":["NCCL_DEBUG=INFO","NCCL_ALGO=Ring",/; s/21:25:59/22:00:00/' \
  "$XP_SRC/tests/data/nccl/nccltests_sweep.json" > "$tmp/ring.json"
"$XP" --db "$rdb" import nccl-tests "$tmp/ring.json" > /dev/null 2>&1
"$XP" --db "$rdb" compare "$rj" "$(rq "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 4;")" > "$tmp/cmp_env" 2>&1
check "two -J files: a setting one lacks differs" 1 "$(grep -c '^  nccl_tests.env.NCCL_ALGO: A (unset); B Ring$' "$tmp/cmp_env")"

# one run's text log kept twice, as a launcher printed it and without: mpirun --tag-output's
# "[1,0]<stdout>:" (aws-k8s-tester PR 464's pod log) and srun --label's " 0: " (nccl-tests issue
# 290), imported apart, and once more without NCCL's lines. They share no file, and counted four
# times; they are one measurement, the latest import counting (the log's transports still name it). The same sweep run again (another process: pid 2718) is another.
ldb="$tmp/labelled.db"
sed 's/^/[1,0]<stdout>:/' "$data/nccltests_sweep.txt" > "$tmp/tagged.txt"
sed 's/^/ 0: /' "$data/nccltests_sweep.txt" > "$tmp/srun.txt"
grep -v 'NCCL INFO' "$data/nccltests_sweep.txt" > "$tmp/no_info.txt"
sed 's/Pid   1351/Pid   2718/' "$data/nccltests_sweep.txt" > "$tmp/again.txt"
for f in "$data/nccltests_sweep.txt" "$tmp/tagged.txt" "$tmp/srun.txt" "$tmp/no_info.txt" "$tmp/again.txt"; do
  "$XP" --db "$ldb" import nccl-tests "$f" > /dev/null 2>&1
done
lq() { "$XP" --db "$ldb" query <(echo "$1") --format csv 2> /dev/null | tail -n +2; }
check "one log with and without launcher labels: one measurement" "1|4 2|4 3|4" \
  "$(lq "SELECT run_id || '|' || by_run_id FROM trace_superseded ORDER BY run_id;" | tr '\n' ' ' | sed 's/ $//')"
"$XP" --db "$ldb" query "$XP_SRC/queries/allreduce_burst.sql" --format csv > "$tmp/labelled.csv" 2> /dev/null
check "labelled logs: burst rows, the sweep and its rerun" "52 52" \
  "$(tail -n +2 "$tmp/labelled.csv" | wc -l) $(grep -c ',P2P/direct pointer,imported,2,' "$tmp/labelled.csv")"

# rows alone (no device line: no process named) two runs of a short sweep may print alike: two
# such files, one labelled, stay two runs, as two -J files that agree by chance do
grep -v 'Rank \|NCCL INFO' "$data/nccltests_sweep.txt" | head -n 20 > "$tmp/rows_a.txt"
sed 's/^/[1,0]<stdout>:/' "$tmp/rows_a.txt" > "$tmp/rows_b.txt"
adb="$tmp/rows_alone.db"
for f in "$tmp/rows_a.txt" "$tmp/rows_b.txt"; do "$XP" --db "$adb" import nccl-tests "$f" > /dev/null 2>&1; done
check "rows alone, labelled and not: two runs" "2 0" "$("$XP" --db "$adb" query <(echo "SELECT (SELECT count(*) FROM runs WHERE status = 'ok') || ' ' || (SELECT count(*) FROM trace_superseded);") --format csv 2> /dev/null | tail -n +2)"

# the log imported with its topology dump before it, then labelled alone: one measurement too
tdb="$tmp/labelled_topo.db"
"$XP" --db "$tdb" import nccl-tests "$data/topo.xml" "$data/nccltests_sweep.txt" > /dev/null 2>&1
"$XP" --db "$tdb" import nccl-tests "$tmp/tagged.txt" > /dev/null 2>&1
check "log with its topology, then labelled alone: one measurement" "1|2" \
  "$("$XP" --db "$tdb" query <(echo "SELECT run_id || '|' || by_run_id FROM trace_superseded;") --format csv 2> /dev/null | tail -n +2)"

# a text whose rows agree with two runs' -J files (the same sweep run again, pid 2718, its times
# within the text's print) is its own run's, the one its device lines' process names: it was
# credited to the later import, that run's row named with this log's transports
pdb="$tmp/two_json.db"
sed -e 's/"start_time":"2026-11-29 21:25:59"/"start_time":"2026-11-30 08:00:00"/' -e 's/"pid":1351/"pid":2718/' \
  "$data/nccltests_sweep.json" > "$tmp/rerun_pid.json"
for f in "$data/nccltests_sweep.json" "$data/nccltests_sweep.txt" "$tmp/rerun_pid.json"; do
  "$XP" --db "$pdb" import nccl-tests "$f" > /dev/null 2>&1
done
check "text matching two runs' -J files: its own process's" "2|1" \
  "$("$XP" --db "$pdb" query <(echo "SELECT run_id || '|' || by_run_id FROM trace_superseded;") --format csv 2> /dev/null | tail -n +2)"

# split communicators (NCCL_TESTS_SPLIT_MASK): JSON and text agree on the communicator's ranks
for f in split.json split.txt; do
  sdb="$tmp/split_$f.db"
  "$XP" --db "$sdb" import nccl-tests "$XP_SRC/tests/data/nccl/variants/$f" > /dev/null 2>&1
  check "split communicators, $f: 2 ranks each" 2 \
    "$("$XP" --db "$sdb" query <(echo "SELECT gpu_count FROM runs;") --format csv 2> /dev/null | tail -1)"
done

# split groups with NCCL's INFO lines: each group's communicator (commId) connected its own pair,
# group 1's (GPUs 1 and 3, across sockets) over SHM, rank 0's (GPUs 0 and 2) over P2P; their
# comm ranks are 0 and 1 alike. Rank 0's communicator is the one recorded, and said, where the
# two were pooled: 'P2P/CUMEM, SHM/direct/direct', pair 0-1 both, and the interconnect 'shm'.
sdb="$tmp/split_info.db"
"$XP" --db "$sdb" import nccl-tests "$XP_SRC/tests/data/nccl/variants/split_info.txt" > /dev/null 2>&1
smeta() { "$XP" --db "$sdb" query <(echo "SELECT value FROM run_meta WHERE key = '$1';") --format csv 2> /dev/null | tail -n +2; }
check "split groups' INFO lines: rank 0's communicator's transports" "P2P/CUMEM" "$(smeta nccl.transports)"
check "split groups' INFO lines: its pair" "P2P/CUMEM x2" "$(smeta nccl.transport.0-1)"
check "split groups' INFO lines: no interconnect from the other group's SHM" "" "$(smeta interconnect)"
check "split groups' INFO lines: said" "2 communicators in the log (commId 0x8c2f1e7a9b3d4c11, 2 ranks; commId \
0x2a61c0d4e5f60718, 2 ranks): connections are commId 0x2a61c0d4e5f60718's (rank 0's)" "$(smeta nccl.communicators | tr -d '"')"
# ... and the same log as NCCL before 2.14 prints it (no commId, no Init START, "Channel 00 :"):
# each process's handle joined to the one its connections' other end names (rank, device), where
# "nranks 2" alone pooled both groups ('P2P/CUMEM, SHM/direct/direct')
sed -e '/Init START/d' -e 's/ncclCommInitRank comm/comm/' -e 's/ nvmlDev [0-9]//' -e 's/ commId 0x[0-9a-f]*//' \
  -e 's/Channel \([0-9]*\)\/0 :/Channel \1 :/' "$XP_SRC/tests/data/nccl/variants/split_info.txt" > "$tmp/split_old.txt"
sdb="$tmp/split_old.db"
"$XP" --db "$sdb" import nccl-tests "$tmp/split_old.txt" > /dev/null 2>&1
check "split groups before 2.14: rank 0's transports" "P2P/CUMEM" "$(smeta nccl.transports)"
check "split groups before 2.14: said" "2 communicators in the log (one of 2 ranks (no commId: NCCL before 2.14); one \
of 2 ranks (no commId: NCCL before 2.14)): connections are the one of 2 ranks' (rank 0's)" "$(smeta nccl.communicators | tr -d '"')"
# ... with a second communicator of rank 0's process (GPUs 0 and 2 again, as a framework's group
# beside the test's) and a connection NCCL 2.22 on prints at the first collective, naming none:
# its ends fit both, so it is left out, and said on stderr
awk '/^#       size/ {
  print "n0:100:121 [0] NCCL INFO ncclCommInitRank comm 0x55d0b0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1b000 commId 0x7700aa - Init COMPLETE"
  print "n0:102:123 [2] NCCL INFO ncclCommInitRank comm 0x55d2b0 rank 1 nranks 2 cudaDev 2 nvmlDev 2 busId 1c000 commId 0x7700aa - Init COMPLETE"
  print "n0:100:130 [0] NCCL INFO Channel 02/0 : 0[0] -> 1[2] via SHM/direct/direct" } { print }' \
  "$XP_SRC/tests/data/nccl/variants/split_info.txt" > "$tmp/split_lazy.txt"
sdb="$tmp/split_lazy.db"
"$XP" --db "$sdb" import nccl-tests "$tmp/split_lazy.txt" > /dev/null 2> "$tmp/split_lazy.err"
check "a connection either of rank 0's communicators can hold: left out" "P2P/CUMEM" "$(smeta nccl.transports)"
check "... and said" "xp: warning: $tmp/split_lazy.txt: 1 NCCL connection printed after several communicators were \
set up, whose ranks and devices fit none alone or several: left out of nccl.transports" "$(cat "$tmp/split_lazy.err")"
# ... through Ray's log deduplication (vLLM on Ray): "[repeated 3x across cluster]" after the line
# it kept, in colour, is no part of NCCL's transport; the lines it left out are said
sed -e '/n0:100:121.*Channel 00\/0 :/s/$/ \x1b[32m [repeated 3x across cluster]\x1b[0m/' \
  "$XP_SRC/tests/data/nccl/variants/split_info.txt" > "$tmp/split_ray.txt"
sdb="$tmp/split_ray.db"
"$XP" --db "$sdb" import nccl-tests "$tmp/split_ray.txt" > /dev/null 2> "$tmp/split_ray.err"
check "Ray's repeats: the transport NCCL named" "P2P/CUMEM" "$(smeta nccl.transports)"
check "Ray's repeats: said" "xp: warning: $tmp/split_ray.txt: 3 NCCL lines left out by Ray's log deduplication \
('[repeated Nx across cluster]'): NCCL's connections and channels are those of the lines kept (RAY_DEDUP_LOGS=0 \
keeps them all)" "$(cat "$tmp/split_ray.err")"
sdb="$tmp/split_info.db"
# ... with NCCL's topology dump of rank 0's communicator (its GPUs 0 and 2 under one switch on
# NUMA node 0, as NCCL 2.21 writes <cpu numaid=...>): the NUMA nodes NCCL's GPUs sit on,
# nccl.numa_nodes; the VM's dump (numaid="-1") states none
cat > "$tmp/split_topo.xml" << 'EOF'
<system version="1">
  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">
    <pci busid="0000:18:00.0" class="0x060400" link_speed="16.0 GT/s PCIe" link_width="16">
      <pci busid="0000:1b:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="0" sm="89" rank="0" gdr="1"/>
      </pci>
      <pci busid="0000:1c:00.0" class="0x030200" link_speed="16.0 GT/s PCIe" link_width="16">
        <gpu dev="2" sm="89" rank="1" gdr="1"/>
      </pci>
    </pci>
  </cpu>
</system>
EOF
tdb2="$tmp/split_topo.db"
topo_meta() {
  "$XP" --db "$tdb2" query <(echo "SELECT coalesce((SELECT value FROM run_meta WHERE key = '$1'
    AND run_id = (SELECT max(id) FROM runs)), '-') AS v;") --format csv 2> /dev/null | tail -n +2
}
"$XP" --db "$tdb2" import nccl-tests "$XP_SRC/tests/data/nccl/variants/split_info.txt" "$tmp/split_topo.xml" > /dev/null 2>&1
check "a topology dump's NUMA nodes" 1 "$(topo_meta nccl.numa_nodes)"
check "its pair's path" "pcie: PCIe PIX (both under switch 0000:18:00.0)" "$(topo_meta nccl.path.0-1)"
"$XP" --db "$tdb2" import nccl-tests "$data/nccltests_sweep.txt" "$data/topo.xml" > /dev/null 2>&1
check "a VM's dump: no NUMA nodes stated" - "$(topo_meta nccl.numa_nodes)"

# ... and xp compare with the same log of rank 0's group alone (one communicator): a difference in
# how the two ran, not a fact the other's files cannot state
grep -v 'n0:10[13]:' "$XP_SRC/tests/data/nccl/variants/split_info.txt" > "$tmp/split_one_comm.txt"
"$XP" --db "$sdb" import nccl-tests "$tmp/split_one_comm.txt" > /dev/null 2>&1
"$XP" --db "$sdb" compare $("$XP" --db "$sdb" query <(echo "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id;") \
  --format csv 2> /dev/null | tail -n +2) > "$tmp/cmp_comms" 2>&1
check "split groups vs one communicator: a difference" 1 "$(sed -n '/^unfair:/,$p' "$tmp/cmp_comms" | grep -c '^  nccl.communicators: A 2 communicators')"
check "split groups vs one communicator: not one side's alone" 0 "$(grep -c 'stated by one side alone' "$tmp/cmp_comms")"

# -T: the timeout is the failure recorded, not the "Test failure" it causes; -u is in the options
tdb="$tmp/timeout.db"
"$XP" --db "$tdb" import nccl-tests "$XP_SRC/tests/data/nccl/variants/timeout_unaligned.txt" > /dev/null 2>&1
meta_of() { "$XP" --db "$tdb" query <(echo "SELECT value FROM run_meta WHERE key = '$1';") --format csv 2> /dev/null | tail -1; }
check "a -T timeout recorded" "Test timeout (5s) /src/nccl-tests/src/common.cu:198" "$(meta_of nccl_tests.failure)"
case "$(meta_of nccl_tests.options)" in *"unaligned buffers (-u)"*) ;; *) echo "FAIL: -u in the options: $(meta_of nccl_tests.options)"; fail=1 ;; esac

finish
