#!/usr/bin/env bash
# xp import nccl-tests on outputs of other versions and ports (tests/data/nccl/variants, see its
# README): each read with the right numbers, or left out with a warning where a line is cut short.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/nccl/variants"
imp() { # imp FILE: a database of its own, $tmp/out and $tmp/err; its exit status
  db="$tmp/$(basename "$1").db"
  "$XP" --db "$db" import nccl-tests "$1" > "$tmp/out" 2> "$tmp/err"
}
metric() { # metric CASE METRIC: its median in the current database
  sql "SELECT printf('%g', m.median) FROM cases c JOIN metrics m ON m.case_id = c.id
       WHERE c.name = '$1' AND m.name = '$2'"
}
cases() { sql "SELECT count(*) FROM cases"; }
prefixed() { # prefixed LABEL SED-EXPR: the 2.19 sweep, each line edited, read as the log itself
  local file="$tmp/prefixed_$(printf '%s' "$1" | cksum | cut -d' ' -f1).txt"
  sed "$2" "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$file"
  imp "$file"
  check "$1: exit" 0 $?
  check "$1: cases" 52 "$(cases)"
  check "$1: GPU" "2 NVIDIA H200" "$(sql "SELECT gpu_count || ' ' || gpu_name FROM runs")"
  check "$1: INFO lines" "P2P/direct pointer" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.transports'")"
}

# Before 2.0 (2017-2018) the header read "bytes N type op" and times were milliseconds
# (deltaSec * 1.0E3): recorded in microseconds, 0.512 ms as 512 us, where 0.512 us was recorded.
imp "$data/pre2_0_ms.txt"
check "pre-2.0: exit" 0 $?
check "pre-2.0: cases" 14 "$(cases)"
check "pre-2.0: 2 MiB time in us" 512 "$(metric unknown/fp32/2097152/eager/out_of_place time_us)"
check "pre-2.0: 8 B in-place time in us" 10 "$(metric unknown/fp32/8/eager/in_place time_us)"
check "pre-2.0: burst of 20" 10240 "$(metric unknown/fp32/2097152/eager/out_of_place burst_us)"
check "pre-2.0: busbw as printed (GB/s)" 4.1 "$(metric unknown/fp32/2097152/eager/out_of_place busbw_GBps)"
check "pre-2.0: -c 0, nothing checked" "" "$(metric unknown/fp32/2097152/eager/out_of_place wrong)"
check "pre-2.0: device line without Pid" "2 GeForce GTX 1080 Ti" "$(sql "SELECT gpu_count || ' ' || gpu_name FROM runs")"

# Earlier still: the options and footer lines without '#', no warmup count, a root column.
imp "$data/pre2_0_bare.txt"
check "pre-2.0 bare lines: exit" 0 $?
check "pre-2.0 bare lines: cases" 6 "$(cases)"
check "pre-2.0 bare lines: time in us" 215 "$(metric unknown/fp32/4194304/eager/out_of_place/root2 time_us)"
check "pre-2.0 bare lines: iters 20 without warmup" 4300 "$(metric unknown/fp32/4194304/eager/out_of_place/root2 burst_us)"
check "pre-2.0 bare lines: error read" 0 "$(metric unknown/fp32/4194304/eager/out_of_place/root2 max_error)"
check "pre-2.0 bare lines: out of bounds" 0 "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.out_of_bounds'")"

# A last line cut after its busbw ("91" of 91.54): left out with a warning, where its root (-1)
# was read as a time and the rest shifted (busbw 91 as 91 wrong elements, a failed case).
imp "$data/cut_after_busbw.txt"
check "cut line: exit" 0 $?
check "cut line: left out" 4 "$(cases)"
grep -q 'cut_after_busbw.txt:14: result line cut short, left out' "$tmp/err" ||
  { echo "FAIL: cut line: no warning: $(cat "$tmp/err")"; fail=1; }
check "cut line: no failed case" 0 "$(sql "SELECT count(*) FROM cases WHERE status = 'failed'")"
check "cut line: no negative time" 0 "$(sql "SELECT count(*) FROM metrics WHERE median < 0")"

# A block of NUL bytes before the head (a log a node wrote until it crashed, the file's size
# kept, its unwritten blocks zeros; the job run again appending): the bytes left out, said once at
# their line, the "# nThread" line after them read, where that line was lost unsaid and the
# options recorded as not in the file.
n=$(grep -n 'nThread' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" | cut -d: -f1)
{ head -n $((n - 1)) "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; head -c 4096 /dev/zero
  tail -n +$n "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; } > "$tmp/zeros.txt"
imp "$tmp/zeros.txt"
check "NUL bytes: exit" 0 $?
check "NUL bytes: cases" 52 "$(cases)"
check "NUL bytes: options read" 1 "$(sql "SELECT count(*) FROM run_meta WHERE key = 'nccl_tests.options' AND value LIKE '%iters 20%'")"
check "NUL bytes: said" "xp: warning: $tmp/zeros.txt:$n: NUL bytes (zeros where a node that crashed left the file unwritten) left out" \
  "$(grep 'NUL' "$tmp/err")"
# A second crash's block further down: the lines holding NULs counted, the first's said, where the
# second block passed unsaid.
{ cat "$tmp/zeros.txt"; head -c 100 /dev/zero; echo; } > "$tmp/zeros2.txt"
imp "$tmp/zeros2.txt"
check "NUL bytes, two blocks: cases" 52 "$(cases)"
check "NUL bytes, two blocks: said once, counted" "xp: warning: $tmp/zeros2.txt:$n: NUL bytes (zeros where a node that crashed left the file unwritten) on 2 lines, left out (the first here)" \
  "$(grep 'NUL' "$tmp/err")"

# A job killed between two rows (the 2.19 sweep on 2x H200, cut after its 8 KiB row): no line is
# cut short, but no footer ("# Out of bounds values") follows: its rows are imported and the run
# says where it stopped, where it was recorded as a whole sweep with nothing said.
head -n 150 "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/killed.txt"
imp "$tmp/killed.txt"
check "killed between rows: exit" 0 $?
check "killed between rows: its rows" 24 "$(cases)"
check "killed between rows: said" "no footer after the report's last row (line 150): the job was killed or the log cut there" \
  "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"
grep -q 'killed.txt: "no footer after' "$tmp/err" || { echo "FAIL: killed between rows: no warning: $(cat "$tmp/err")"; fail=1; }
imp "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
check "whole sweep: no failure" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"

# rccl-tests stars an error past its bound ("4e+00*"): that sample failed, the file is read.
imp "$data/rccl_starred_error.txt"
check "starred error: exit" 0 $?
check "starred error: cases" 6 "$(cases)"
check "starred error: the starred sample failed" "allreduce/fp16/2097152/eager/out_of_place" \
  "$(sql "SELECT group_concat(name) FROM cases WHERE status = 'failed'")"
check "starred error: its error" 4 "$(metric allreduce/fp16/2097152/eager/out_of_place max_error)"
check "starred error: its time" 181 "$(metric allreduce/fp16/2097152/eager/out_of_place time_us)"

# A report before 2.13 names no test, and this one no command line or file name either: its
# columns ("redop", no "root": all_reduce's, reduce_scatter's or alltoall's) and busbw / algbw
# (1.5 at 4 ranks: 2(n-1)/n, all_reduce's alone) name it all_reduce, said, where it was "unknown"
# (and its 0.00 busbw left out for want of a factor); busbw = algbw x 3/4 with its rows' "sum" is
# reduce_scatter's (alltoall's rows leave the operation blank), x 2/3 fits no test: unknown.
check "unnamed, by columns: all_reduce, said" "1" \
  "$(grep -c 'rccl_starred_error.txt:12: the report does not name its test .*read as all_reduce' "$tmp/err")"
sed -e 's/    9.31   13.97 /    9.31    6.98 /' -e 's/    9.37   14.06 /    9.37    7.03 /' -e 's/   11.59   17.38 /   11.59    8.69 /' \
  -e 's/   11.64   17.46 /   11.64    8.73 /' -e 's/   13.00   19.50 /   13.00    9.75 /' -e 's/   13.03   19.54 /   13.03    9.77 /' \
  "$data/rccl_starred_error.txt" > "$tmp/ratio_3_4.txt"
imp "$tmp/ratio_3_4.txt"
check "unnamed, busbw = algbw x 3/4, an operation: reduce_scatter" "6 1" \
  "$(sql "SELECT count(*) FROM cases WHERE name LIKE 'reducescatter/%'") $(grep -c 'read as reduce_scatter' "$tmp/err")"
sed -e 's/    9.31   13.97 /    9.31    6.21 /' -e 's/    9.37   14.06 /    9.37    6.25 /' -e 's/   11.59   17.38 /   11.59    7.73 /' \
  -e 's/   11.64   17.46 /   11.64    7.76 /' -e 's/   13.00   19.50 /   13.00    8.67 /' -e 's/   13.03   19.54 /   13.03    8.69 /' \
  "$data/rccl_starred_error.txt" > "$tmp/ratio_2_3.txt"
imp "$tmp/ratio_2_3.txt"
check "unnamed, busbw = algbw x 2/3: unknown" "6 0" "$(sql "SELECT count(*) FROM cases WHERE name LIKE 'unknown/%'") $(grep -c 'read as' "$tmp/err")"
# the same test's other pre-2.13 headers, no command line (made up beside issue 82's broadcast, 2
# ranks: busbw = algbw x 1/2): "type" alone is all_gather's, "redop" with "sum" reduce_scatter's,
# "redop" left blank alltoall's; each was "unknown"
for t in all_gather:allgather reduce_scatter:reducescatter alltoall:alltoall; do
  imp "$data/${t%%:*}_no_command.txt"
  check "unnamed, by columns: ${t%%:*}" "6 1" \
    "$(sql "SELECT count(*) FROM cases WHERE name LIKE '${t#*:}/fp32/%'") $(grep -c "read as ${t%%:*} from its columns" "$tmp/err")"
done
# broadcast's own header ("root", no "redop": nccl-tests issue 82's, 2 ranks), busbw = algbw
imp "$data/broadcast_no_command.txt"
check "unnamed, by columns: broadcast" "6 1" \
  "$(sql "SELECT count(*) FROM cases WHERE name LIKE 'broadcast/fp32/%'") $(grep -c 'read as broadcast' "$tmp/err")"
# reduce's own header ("redop" and "root", 2.0-2.12's reduce.cu), each row an operation and root 0,
# busbw = algbw: reduce, where it was "unknown"; before 2.0 ("bytes N type op root") a broadcast
# printed the same columns and "sum" (pre2_0_bare.txt's, still unknown above)
imp "$data/reduce_no_command.txt"
check "unnamed, by columns: reduce" "6 1" \
  "$(sql "SELECT count(*) FROM cases WHERE name LIKE 'reduce/fp32/%'") $(grep -c 'read as reduce from its columns' "$tmp/err")"

# rccl-tests -O 0: the out-of-place group left blank, its width kept; the figures are in-place,
# where they were recorded as out-of-place.
imp "$data/rccl_in_place_only.txt"
check "in-place only: exit" 0 $?
check "in-place only: cases" "unknown/fp32/1048576/eager/in_place unknown/fp32/2097152/eager/in_place unknown/fp32/4194304/eager/in_place" \
  "$(sql "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases ORDER BY name)")"
check "in-place only: time" 52.87 "$(metric unknown/fp32/2097152/eager/in_place time_us)"

# rccl-tests before its 2.17.9 sync prints its version alone after the options line ("rccl-tests:
# Version develop:5272cd1", ROCm/container-toolkit PR 77's log): recorded, where it was not.
sed '2a rccl-tests: Version develop:5272cd1' "$data/rccl_in_place_only.txt" > "$tmp/rccl_version.txt"
imp "$tmp/rccl_version.txt"
check "rccl-tests version line" "develop:5272cd1" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.version'")"
check "rccl-tests version line: cases" 3 "$(cases)"

# RCCL prints its version alone (NCCL_DEBUG=VERSION) with HIP's and ROCm's, between rccl-tests'
# device lines and its column header (hisohara/ai-scripts, training/01_rccl-smoketest/README.md):
# recorded as the library's version, said to be RCCL's, as its INFO line is; it was not recorded.
sed '/Rank  7/a RCCL version : 2.27.7-develop:4f3c2d1\nHIP version  : 7.0.51831-a3e329ad8\nROCm version : 7.0.0.0-38-9428210' \
  "$data/rccl_in_place_only.txt" > "$tmp/rccl_library_version.txt"
imp "$tmp/rccl_library_version.txt"
check "bare RCCL version: exit" 0 $?
check "bare RCCL version" "RCCL 2.27.7-develop:4f3c2d1" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.version_info'")"
check "bare RCCL version: cases" 3 "$(cases)"
# HIP's and ROCm's versions on the lines after it (ROCm/rocm-systems PR 3415's rccl-tests log):
# recorded as hip.version and rocm.version, where they were not.
sed '/Rank  7/a RCCL version : 2.28.3-gfx1151-rccl:a188cf2\nHIP version  : 7.12.60430-713bdeef5b\nROCm version : 7.12.0.2-9999-713bdeef5b\nHostname     : stxh-4602-MAPLE' \
  "$data/rccl_in_place_only.txt" > "$tmp/rccl_hip_version.txt"
imp "$tmp/rccl_hip_version.txt"
check "HIP and ROCm versions" "7.12.60430-713bdeef5b 7.12.0.2-9999-713bdeef5b" \
  "$(sql "SELECT group_concat(value, ' ') FROM (SELECT value FROM run_meta WHERE key IN ('hip.version', 'rocm.version') ORDER BY key)")"

# RCCL before its PR 1232 printed "RCCL version 2.18.3+hip5.7 HEAD:b502725" alone at every level, after
# its INFO lines of the HSA runtime (ROCm/rccl issue 1261's rccl-tests log, whose lines these are):
# recorded as the library's version, the build's commit with it, where no version was recorded.
sed '2a node01:5646:5646 [0] NCCL INFO ROCr version 1.1\nnode01:5646:5646 [0] NCCL INFO Dmabuf feature disabled without NCCL_ENABLE_DMABUF_SUPPORT=1\nRCCL version 2.18.3+hip5.7 HEAD:b502725' \
  "$data/rccl_in_place_only.txt" > "$tmp/rccl_old_version.txt"
imp "$tmp/rccl_old_version.txt"
check "RCCL version before PR 1232: exit" 0 $?
check "RCCL version before PR 1232" "RCCL 2.18.3+hip5.7 HEAD:b502725" \
  "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.version_info'")"
check "RCCL version before PR 1232: cases" 3 "$(cases)"
# and the HSA runtime its INFO line states ("ROCr version 1.1"): rocm.rocr_version, where it was dropped
check "ROCr version" "1.1" "$(sql "SELECT value FROM run_meta WHERE key = 'rocm.rocr_version'")"

# A report pasted through Markdown: no line keeps its '#'; the header is still the header.
imp "$data/all_gather_perf.markdown_paste.txt"
check "markdown paste: exit" 0 $?
check "markdown paste: time" 29254 "$(metric allgather/fp32/4294967296/eager/out_of_place time_us)"
check "markdown paste: error past the bound, failed" 2 "$(sql "SELECT count(*) FROM cases WHERE status = 'failed'")"
check "markdown paste: out of bounds" 2 "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.out_of_bounds'")"
# The whole head pasted through Markdown (nccl-tests issue 249): the device line and "Blocking
# Enabled" without '#' are still read, where the GPU, its host and -z 1 were lost.
imp "$data/blocking_markdown_paste.txt"
check "markdown paste, head: exit" 0 $?
check "markdown paste, head: GPU" "1 NVIDIA A10G" "$(sql "SELECT gpu_count || ' ' || gpu_name FROM runs")"
check "markdown paste, head: host" "nccl-846b9d30a6bb6b529fb3c170f4809fea-1725464730-worker-0" \
  "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.host'")"
check "markdown paste, head: blocking" 10 "$(sql "SELECT count(*) FROM cases WHERE name LIKE '%/blocking'")"
# 2.13 on: the version and "Collective test starting" lines too (the 2.19 sweep, every '#' taken)
sed 's/^#//' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/sweep_md.txt"
imp "$tmp/sweep_md.txt"
check "markdown paste, 2.19: exit" 0 $?
check "markdown paste, 2.19: test, GPU, version" "allreduce 2 NVIDIA H200 2.19.6" \
  "$(sql "SELECT (SELECT DISTINCT json_extract(params, '$.collective') FROM cases) || ' ' || gpu_count || ' ' ||
               gpu_name || ' ' || (SELECT value FROM run_meta WHERE key = 'nccl_tests.version') AS v FROM runs")"
check "markdown paste, 2.19: cases" 52 "$(cases)"

# The report's head twice before its rows is two processes' copies of the report (a build without
# MPI under mpirun, each process a job of its own), their rows mixed without labels: which row is
# whose is not told, so refused at the second head, where both tables were pooled as one report's
# samples (the 2.19 sweep's head printed twice, then its table twice).
grep -v 'NCCL INFO' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/plain.txt"
{ sed -n 2,9p "$tmp/plain.txt"; sed -n 2,9p "$tmp/plain.txt"; sed -n 10,41p "$tmp/plain.txt"; sed -n 10,41p "$tmp/plain.txt"; } > "$tmp/copy_head_late.txt"
one_line "copy's head before rows" 2 "copy_head_late.txt:11: the report's head again (its options line again)" \
  "$XP" --db "$tmp/copy_head.db" import nccl-tests "$tmp/copy_head_late.txt"

# A log quoted in a GitHub reply or an e-mail (Markdown's "> ", twice "> > "): read as the log,
# its INFO lines too, where it was refused as holding no results.
for quote in '> ' '> > '; do prefixed "quoted '$quote'" "s/^/$quote/"; done

# A pre-2.13 table (all_gather's "type" header, an "error" column) pasted below a 2.19 log with no
# options line, in a fenced block with its '#'s and bare as Markdown leaves it: its rows are a
# report of their own, read in their own columns, where they were read as the 2.19 report's
# allreduce and refused ('count 134217728 of fp32 (4 bytes each) does not make size 4294967296:
# nccl-tests' allreduce prints size = count x the type's size').
sed -n '2,7p' "$data/all_gather_perf.markdown_paste.txt" > "$tmp/old_table.txt"
for form in fenced bare; do
  { cat "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; echo; [ $form = fenced ] && echo '```'
    if [ $form = fenced ]; then sed '/^ *[0-9]/!s/^/#/' "$tmp/old_table.txt"; else cat "$tmp/old_table.txt"; fi
    [ $form = fenced ] && echo '```'; } > "$tmp/old_table_$form.txt"
  imp "$tmp/old_table_$form.txt"
  check "old table below a 2.19 log, $form: exit" 0 $?
  check "old table below a 2.19 log, $form: the 2.19 report's" 52 \
    "$(sql "SELECT count(*) FROM cases WHERE json_extract(params, '$.collective') = 'allreduce'")"
  check "old table below a 2.19 log, $form: its row, its own" 29254 "$(metric unknown/fp32/4294967296/eager/out_of_place time_us)"
  grep -q "old_table_$form.txt:17[67]: a column header unlike the rows. above" "$tmp/err" ||
    { echo "FAIL: old table below a 2.19 log, $form: no warning: $(cat "$tmp/err")"; fail=1; }
done

# nccl-tests' report pasted as a Markdown table (an issue's or a wiki's: the 2.19.6 sweep's head,
# then its header with the units in it and its rows as "| 8 | 2 | float | ... |" under a "|---:|"
# line; rccl-tests' blank root as an empty cell): read as the text, where it was refused as holding
# no results ('no nccl-tests results found'). A table of other columns is refused at its line.
md_table() { # md_table ROOT-CELL: the sweep as such a table, its root cells as given
  sed -n '1,8p' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
  echo
  echo '| Size (B) | Count (elements) | Type | Redop | Root | Time (us) | Algbw (GB/s) | Busbw (GB/s) | #wrong | Time (us) | Algbw (GB/s) | Busbw (GB/s) | #wrong |'
  echo '|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
  grep '^ *[0-9]' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" |
    awk -v root="$1" '{ $5 = root; s = "|"; for (i = 1; i <= NF; i++) s = s " " $i " |"; print s }'
}
for root in -1 ''; do
  md_table "$root" > "$tmp/md_table${root:-_blank}.txt"
  imp "$tmp/md_table${root:-_blank}.txt"
  check "Markdown table (root '$root'): exit" 0 $?
  check "Markdown table (root '$root'): cases" 52 "$(cases)"
  check "Markdown table (root '$root'): 256 MiB in-place time" 887.53 "$(metric allreduce/bf16/268435456/eager/in_place time_us)"
  check "Markdown table (root '$root'): its busbw" 302.59 "$(metric allreduce/bf16/268435456/eager/out_of_place busbw_GBps)"
  check "Markdown table (root '$root'): ranks" 2 "$(sql "SELECT gpu_count FROM runs")"
  check "Markdown table (root '$root'): no failure said" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"
done
# The same table without its outer pipes ("Size (B) | Count | ... | #wrong", "---:|---:|...", as
# GitHub renders it): read as the text, where it was refused ('no nccl-tests results found'). A
# command line's "| tee" above a script's "-----" rule is no table header: the log is read as before
# (a job killed between rows still said to be, as a table's last rows are not).
md_table -1 | sed -E '/^\|/{s/^\| ?//; s/ ?\|$//}' > "$tmp/md_bare.txt"
imp "$tmp/md_bare.txt"
check "Markdown table without outer pipes: exit" 0 $?
check "Markdown table without outer pipes: cases" 52 "$(cases)"
check "Markdown table without outer pipes: 256 MiB in-place time" 887.53 "$(metric allreduce/bf16/268435456/eager/in_place time_us)"
check "Markdown table without outer pipes: its busbw" 302.59 "$(metric allreduce/bf16/268435456/eager/out_of_place busbw_GBps)"
sed '/^Size/s/ ([^)]*)//g; /^Size/s/^S/s/' "$tmp/md_bare.txt" > "$tmp/md_bare_plain.txt" # "size | count | type | ..."
imp "$tmp/md_bare_plain.txt"
check "Markdown table without outer pipes, header without units: cases" 52 "$(cases)"
{ echo '$ ./build/all_reduce_perf -b 8 -e 8G -f 2 -g 2 | tee out.log'; echo '-----------------'
  head -n 150 "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; } > "$tmp/md_not_table.txt"
imp "$tmp/md_not_table.txt"
check "a '| tee' line above a rule: exit" 0 $?
check "a '| tee' line above a rule: cases" 24 "$(cases)"
check "a '| tee' line above a rule: killed, said" "no footer after the report's last row (line 152): the job was killed or the log cut there" \
  "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"
printf '| Size | Bus bandwidth (GB/s) |\n|---|---|\n| 8 | 0.00 |\n' > "$tmp/md_other.txt"
imp "$tmp/md_other.txt"
check "Markdown table of other columns: exit" 2 $?
grep -q "md_other.txt:1: no nccl-tests results found: a Markdown table without nccl-tests' columns" "$tmp/err" ||
  { echo "FAIL: Markdown table of other columns: $(cat "$tmp/err")"; fail=1; }

# kubectl logs --prefix (logs.go's "[pod/NAME/CONTAINER] "), with --timestamps' stamp after it: read
# as the log, its INFO lines too, where it was refused as holding no results.
for ts in '' '2025-06-01T10:11:12.123456789Z '; do
  prefixed "kubectl --prefix ${ts:+--timestamps}" "s|^|[pod/nccl-tests-launcher-7x2kq/mpi-launcher] $ts|"
done

# docker compose logs' "SERVICE-1  | " (with -t, its stamp after it): read as the log, where it was
# refused as holding no results.
for ts in '' '2025-06-01T10:11:12.123456789Z '; do prefixed "docker compose logs ${ts:+-t}" "s/^/nccl-tests-1  | $ts/"; done
prefixed "docker compose logs, a container_name" "s/^/nccl  | /"

# A test run as a systemd unit (a node's health check) read back with journalctl: syslog's
# "STAMP HOST IDENT[PID]: " before each line, the default stamp and -o short-iso's; read as the log,
# its INFO lines too, where it was refused as holding no results.
for stamp in 'Jun 01 10:11:12' '2025-06-01T10:11:12+0000'; do prefixed "journalctl ($stamp)" "s/^/$stamp gpu-node-1 bash[1234]: /"; done

# A container's log as the kubelet keeps it on its node (CRI's "TIMESTAMP stdout F LINE"), copied
# from /var/log/pods once the pod is gone: read as the log, where it was refused as holding no results.
prefixed "CRI node log" 's/^/2025-06-01T10:11:12.123456789Z stdout F /'

# A tag followed by further ones after a ':' ("F:x"), which the kubelet's reader takes, the first
# one telling a piece from a line's end (kuberuntime/logs/logs.go's parseCRILog, "Keep this forward
# compatible"): read as the log, where it was refused as holding no results.
prefixed "CRI node log, a further tag" 's/^/2025-06-01T10:11:12.123456789Z stdout F:x /'

# The same log where the runtime split lines: CRI-O's conmon writes as a "P" piece what it read
# that did not end a line (a pipe's block-buffered stdout: any line), containerd a line past 16
# KiB; the final piece is "F", and the other stream's lines may come between (here a stderr line).
# Read as the log, each line whole, where each split row was left out as cut short and the import
# refused ('the test ended before its first result line (a command line runs ll_reduce_perf ...)').
awk -v t=2025-06-01T10:11:12.123456789Z '
  length($0) <= 30 { print t " stdout F " $0; next }
  { print t " stdout P " substr($0, 1, 30); if (NR == 160) print t " stderr F a warning"; print t " stdout F " substr($0, 31) }' \
  "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/cri_split.log"
imp "$tmp/cri_split.log"
check "CRI split lines: exit" 0 $?
check "CRI split lines: cases" 52 "$(cases)"
check "CRI split lines: 256 MiB row" 887.11 "$(metric allreduce/bf16/268435456/eager/out_of_place time_us)"
check "CRI split lines: INFO lines" "P2P/direct pointer" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.transports'")"
check "CRI split lines: ring channels" 24 "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.ring_channels'")"

# Its pieces with a further tag too ("P:x", "F:x"): joined alike, where each was left as a line.
sed 's/ stdout \([PF]\) / stdout \1:x /' "$tmp/cri_split.log" > "$tmp/cri_split_tags.log"
imp "$tmp/cri_split_tags.log"
check "CRI split lines, further tags: exit" 0 $?
check "CRI split lines, further tags: cases" 52 "$(cases)"
check "CRI split lines, further tags: 256 MiB row" 887.11 "$(metric allreduce/bf16/268435456/eager/out_of_place time_us)"

# The same log copied with CRLF line ends (through a Windows machine or an editor there): read
# alike, where each piece kept its '\r' inside the joined line, cutting every split line at its
# first piece's end, and the import was refused ('no nccl-tests results found').
sed 's/$/\r/' "$tmp/cri_split.log" > "$tmp/cri_split_crlf.log"
imp "$tmp/cri_split_crlf.log"
check "CRI split lines, CRLF: exit" 0 $?
check "CRI split lines, CRLF: cases" 52 "$(cases)"
check "CRI split lines, CRLF: 256 MiB row" 887.11 "$(metric allreduce/bf16/268435456/eager/out_of_place time_us)"

# A line whose last piece is empty (a read that ended just before its newline: "stdout P ROW", then
# "stdout F " with no text), as the kubelet writes it and as a copy that trims lines leaves it
# ("stdout F"): read whole either way, where the trimmed one joined as "stdout FROW", its row left
# out and the import refused.
for end in ' ' ''; do
  awk -v t=2025-06-01T10:11:12.123456789Z -v end="$end" '
    length($0) <= 30 { print t " stdout F " $0; next }
    { print t " stdout P " $0; print t " stdout F" end }' \
    "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/cri_empty_end${end:+_space}.log"
  imp "$tmp/cri_empty_end${end:+_space}.log"
  check "CRI empty last piece ('$end'): exit" 0 $?
  check "CRI empty last piece ('$end'): cases" 52 "$(cases)"
  check "CRI empty last piece ('$end'): 256 MiB row" 887.11 "$(metric allreduce/bf16/268435456/eager/out_of_place time_us)"
done

# Docker's json-file log of the container (/var/lib/docker/containers/ID/ID-json.log, copied): a
# record a line, {"log":"LINE\n","stream":"stdout","time":...}, '<' and '>' as \u003c and \u003e,
# a line past the daemon's 16 KiB read in pieces without "\n" (here each longer than 30 bytes,
# a stderr record between two pieces): read as the text it carries, where it was refused ('no
# nccl-tests results found'). A line that is no record is refused at its line.
docker_json() { # docker_json: the 2.19 sweep under Open MPI's tag, as Docker's json-file keeps it
  awk -v t=2025-06-01T10:11:12.123456789Z '
    function rec(s, nl, stream) {
      gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); gsub(/</, "\\u003c", s); gsub(/>/, "\\u003e", s); gsub(/\t/, "\\t", s)
      printf "{\"log\":\"%s%s\",\"stream\":\"%s\",\"time\":\"%s\"}\n", s, nl, stream, t
    }
    { $0 = "[1,0]<stdout>:" $0 }
    length($0) <= 30 { rec($0, "\\n", "stdout"); next }
    { rec(substr($0, 1, 30), "", "stdout"); if (NR == 160) rec("a warning", "\\n", "stderr"); rec(substr($0, 31), "\\n", "stdout") }' \
    "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
}
docker_json > "$tmp/docker-json.log"
imp "$tmp/docker-json.log"
check "Docker json-file log: exit" 0 $?
check "Docker json-file log: cases" 52 "$(cases)"
check "Docker json-file log: 256 MiB row" 887.11 "$(metric allreduce/bf16/268435456/eager/out_of_place time_us)"
check "Docker json-file log: GPU" "2 NVIDIA H200" "$(sql "SELECT gpu_count || ' ' || gpu_name FROM runs")"
check "Docker json-file log: INFO lines" "P2P/direct pointer" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl.transports'")"
# The file copied while the daemon wrote its last record (no newline yet): that record is left out
# with a warning, the rest read, where the whole file was refused.
{ docker_json; printf '{"log":"[1,0]\\u003cstdout\\u003e:# Colle'; } > "$tmp/docker-cut.log"
imp "$tmp/docker-cut.log"
check "Docker json-file log, last record cut: exit" 0 $?
check "Docker json-file log, last record cut: cases" 52 "$(cases)"
check "Docker json-file log, last record cut: said" \
  "xp: warning: $tmp/docker-cut.log:$(wc -l < "$tmp/docker-cut.log" | awk '{print $1 + 1}'): Docker log record cut short, left out" \
  "$(grep 'cut short' "$tmp/err")"
# Its records as a tool that re-wrote them leaves them (Python's json.dumps: a space after each ':'
# and ','; another key order; Docker's "attrs" of --log-opt labels put first): read alike, where
# a file not beginning with the bytes {"log": was refused as 'not nccl-tests -J output'.
for form in spaced reordered attrs; do
  case $form in
    spaced) docker_json | sed 's/^{"log":"/{"log": "/; s/","stream":"/", "stream": "/; s/","time":"/", "time": "/' ;;
    reordered) docker_json | sed -E 's/^\{"log":(".*"),"stream":("std[a-z]+"),/{"stream":\2,"log":\1,/' ;;
    attrs) docker_json | sed 's/^{/{"attrs":{"tag":"nccl"},/' ;;
  esac > "$tmp/docker-$form.log"
  imp "$tmp/docker-$form.log"
  check "Docker json-file log, $form: exit" 0 $?
  check "Docker json-file log, $form: cases" 52 "$(cases)"
  check "Docker json-file log, $form: 256 MiB row" 887.11 "$(metric allreduce/bf16/268435456/eager/out_of_place time_us)"
done
# A NUL the program wrote (\u0000 in the record), which cJSON ends the text at: left out and said,
# the rest of its line read, where the line lost its end and ran into the next one (the 1 MiB
# row into the 2 MiB one) and the import was refused, nothing said of the NUL.
docker_json | sed '/47\.80/s/\\n","stream"/\\u0000\\n","stream"/' > "$tmp/docker-nul.log"
nul_line=$(grep -n 'u0000' "$tmp/docker-nul.log" | cut -d: -f1)
imp "$tmp/docker-nul.log"
check "Docker json-file log, a NUL: exit" 0 $?
check "Docker json-file log, a NUL: cases" 52 "$(cases)"
check "Docker json-file log, a NUL: 1 and 2 MiB rows" "21.94 29.1" \
  "$(metric allreduce/bf16/1048576/eager/in_place time_us) $(metric allreduce/bf16/2097152/eager/out_of_place time_us)"
check "Docker json-file log, a NUL: said" \
  "xp: warning: $tmp/docker-nul.log:$nul_line: a NUL character (\\u0000) in the log's text, left out" "$(grep 'NUL' "$tmp/err")"
# NULs in several records (a program that writes one writes many): their count said with the first's
# line, where only the first record was said and the others passed unsaid.
docker_json | sed -e '/47\.80/s/\\n","stream"/\\u0000\\n","stream"/' -e '/887\.53/s/\\n","stream"/\\u0000\\u0000\\n","stream"/' \
  > "$tmp/docker-nuls.log"
imp "$tmp/docker-nuls.log"
check "Docker json-file log, NULs in 2 records: exit" 0 $?
check "Docker json-file log, NULs in 2 records: cases" 52 "$(cases)"
check "Docker json-file log, NULs in 2 records: said once, counted" \
  "xp: warning: $tmp/docker-nuls.log:$nul_line: 3 NUL characters (\\u0000) in 2 records' text, left out (the first in this one)" \
  "$(grep 'NUL' "$tmp/err")"
{ docker_json | sed -n 1,40p; echo 'Jun 01 10:11:12 a line of syslog'; docker_json | sed -n '41,$p'; } > "$tmp/docker-bad.log"
imp "$tmp/docker-bad.log"
check "Docker json-file log, a line no record: exit" 2 $?
check "Docker json-file log, a line no record: said at it" \
  "xp: $tmp/docker-bad.log:41: not a Docker log record, as the lines above are" "$(cat "$tmp/err")"

# Open MPI's --tag-output labels indented, as a tool quoting the log writes them (aws-k8s-tester PR
# 464's test output: "        [1,0]<stdout>:# nThread 1 ..."): read as without the indent, where the
# file was refused as holding no results.
prefixed "indented label" 's/^/        [1,0]<stdout>:/'

# pdsh's and clush's host label ("node01: ", DeepSpeed's pdsh runner too) and torchrun --tee's rank
# label ("[default0]:"; log_line_prefix_template "[${rank}]: "): read as the log, where each was
# refused as holding no results.
prefixed "pdsh host label" 's/^/node01: /'
prefixed "torchrun --tee label" 's/^/[default0]:/'
prefixed "torchrun rank template" 's/^/[0]: /'
# The test run on each of two hosts (pdsh), their lines interleaved, each a whole report under its
# label: two jobs, each recorded as a run of its own with its own host, where they were refused
# (before that, pooled as one report's rows).
sed 's/^/node01: /' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/pdsh_a.txt"
sed -e 's/ on         vm / on        vm2 /' -e 's/^vm:/vm2:/' -e 's/^/node02: /' \
  -e '/^node02:  *134217728 /s/  *0 *$/ 3/' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/pdsh_b.txt"
paste -d '\n' "$tmp/pdsh_a.txt" "$tmp/pdsh_b.txt" > "$tmp/pdsh_two_hosts.txt"
jobs_db() { # jobs_db DB: each run's host, cases, failed cases and job, in the order recorded
  cat > "$tmp/q.sql" <<'SQL'
SELECT (SELECT value FROM run_meta m WHERE m.run_id = r.id AND key = 'nccl_tests.host') || ' ' ||
  (SELECT count(*) FROM cases c WHERE c.run_id = r.id) || ' ' ||
  (SELECT count(*) FROM cases c WHERE c.run_id = r.id AND status = 'failed') || ' ' ||
  (SELECT value FROM run_meta m WHERE m.run_id = r.id AND key = 'nccl_tests.job') AS job
FROM runs r ORDER BY id;
SQL
  "$XP" --db "$1" query "$tmp/q.sql" --format csv | tail -n +2
}
"$XP" --db "$tmp/pdsh_two.db" import nccl-tests "$tmp/pdsh_two_hosts.txt" > "$tmp/out" 2> "$tmp/err"
check "pdsh, a report per host: exit" 0 $?
check "pdsh, a report per host: runs" '"vm 52 0 1 of 2: the lines labelled ""node01:"""
"vm2 52 1 2 of 2: the lines labelled ""node02:"""' "$(jobs_db "$tmp/pdsh_two.db")"
check "pdsh, a report per host: summary" 2 "$(grep -c 'job [12] of 2 in it (the lines labelled "node0[12]:"; a run each)' "$tmp/out")"
# A third host that printed NCCL's lines and no report: which job's they are, nothing tells; left out
# of both, said in each run.
{ cat "$tmp/pdsh_two_hosts.txt"; echo "node03: node03:99:99 [0] NCCL INFO comm 0x3 rank 1 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE"; } > "$tmp/pdsh_three.txt"
"$XP" --db "$tmp/pdsh_three.db" import nccl-tests "$tmp/pdsh_three.txt" > "$tmp/out" 2> "$tmp/err"
check "pdsh, a third host's NCCL lines: exit" 0 $?
check "pdsh, a third host's NCCL lines: said in each run" 2 \
  "$(grep -c 'pdsh_three.txt: 1 NCCL line of processes that printed no report left out: which job' "$tmp/err")"
# The same as pdsh | dshbak and clush -b print it, each host's output a block under its name: the
# second report's devices on none of the first's hosts, so from the line after the first's last
# (its block's header on) a second job.
{ printf -- '----------------\nnode01\n----------------\n'; cat "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"
  printf -- '----------------\nnode02\n----------------\n'
  sed -e 's/ on         vm / on        vm2 /' -e 's/^vm:/vm2:/' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; } > "$tmp/dshbak.txt"
"$XP" --db "$tmp/dshbak.db" import nccl-tests "$tmp/dshbak.txt" > "$tmp/out" 2> "$tmp/err"
check "dshbak blocks, a report per host: exit" 0 $?
check "dshbak blocks, a report per host: runs" 'vm 52 0 1 of 2: lines 1 to 176
vm2 52 0 2 of 2: lines 177 to the end' "$(jobs_db "$tmp/dshbak.db")"
check "dshbak blocks: no warning" "" "$(cat "$tmp/err")"
# xp rerun of the second job's run reruns that job alone (before, both jobs again: two runs); so
# does an import whose --set job names it; a job the file has not is refused.
printf 'SELECT uuid FROM runs ORDER BY id LIMIT 1 OFFSET 1;\n' > "$tmp/q.sql"
second=$("$XP" --db "$tmp/dshbak.db" query "$tmp/q.sql" --format csv | tail -n +2)
"$XP" --db "$tmp/dshbak.db" rerun "$second" > "$tmp/out" 2> "$tmp/err"
check "dshbak, rerun of job 2: exit" 0 $?
check "dshbak, rerun of job 2: one run more, job 2's" 'vm 52 0 1 of 2: lines 1 to 176
vm2 52 0 2 of 2: lines 177 to the end
vm2 52 0 2 of 2: lines 177 to the end' "$(jobs_db "$tmp/dshbak.db")"
"$XP" --db "$tmp/dshbak_set.db" import nccl-tests "$tmp/dshbak.txt" --set job=1 > "$tmp/out" 2> "$tmp/err"
check "dshbak, --set job=1: exit" 0 $?
check "dshbak, --set job=1: that job alone" 'vm 52 0 1 of 2: lines 1 to 176' "$(jobs_db "$tmp/dshbak_set.db")"
one_line "dshbak, --set job=3" 2 "dshbak.txt: holds the reports of 2 jobs, no job 3: set job to 1..2" \
  "$XP" --db "$tmp/dshbak_set.db" import nccl-tests "$tmp/dshbak.txt" --set job=3
one_line "one job, --set job=2" 2 "nccltests_sweep.txt: holds the reports of one job, no job 2: leave job out" \
  "$XP" --db "$tmp/dshbak_set.db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" --set job=2
# Both or neither: a fault in the second job (a row whose count does not make its size) fails the
# first run with the one line, and no second run is begun.
awk '/^ *8388608 / && ++n == 2 { sub(/4194304/, "4194305") } 1' "$tmp/dshbak.txt" > "$tmp/dshbak_bad.txt"
one_line "dshbak blocks, the second job bad" 2 "dshbak_bad.txt:338: count 4194305 of bf16" \
  "$XP" --db "$tmp/dshbak_bad.db" import nccl-tests "$tmp/dshbak_bad.txt"
check "dshbak blocks, the second job bad: runs" "failed" \
  "$(printf 'SELECT group_concat(status) FROM runs;\n' > "$tmp/q.sql"; "$XP" --db "$tmp/dshbak_bad.db" query "$tmp/q.sql" --format csv | tail -n +2)"
# A second label's report lines that are no whole report (a row alone): still refused, not merged.
{ cat "$tmp/pdsh_a.txt"; grep -m1 '^node02:  *1024 ' "$tmp/pdsh_b.txt"; } > "$tmp/pdsh_stray.txt"
one_line "pdsh, a stray row of another host" 2 'pdsh_stray.txt:[0-9]*: nccl-tests report lines of two processes, labelled "node02:" here and "node01:" at line 2, and "node02:"'"'"'s are no whole report' \
  "$XP" --db "$tmp/pdsh_stray.db" import nccl-tests "$tmp/pdsh_stray.txt"
# A file of several jobs beside another: which job the other is, nothing tells.
one_line "jobs beside another file" 2 "pdsh_two_hosts.txt: holds the reports of 2 jobs" \
  "$XP" --db "$tmp/pdsh_beside.db" import nccl-tests "$tmp/pdsh_two_hosts.txt" "$XP_SRC/tests/data/nccl/topo.xml"

# Excerpts of the 2-rank sweep whose device lines were cut (rank 1's, or rank 0's): the count
# comes from NCCL's INFO lines where kept, else from allreduce's busbw / algbw (1 at 2 ranks),
# where the highest rank listed gave 1 rank. A gap alone leaves it unknown, with a warning.
ranks() { sql "SELECT coalesce((SELECT gpu_count FROM runs), 'null') || ' ' ||
               (SELECT group_concat(DISTINCT coalesce(json_extract(params, '$.ranks'), 'null')) FROM cases) AS ranks"; }
imp "$data/excerpt_rank0_info.txt"
check "excerpt, INFO lines kept: exit" 0 $?
check "excerpt, INFO lines kept: ranks" "2 2" "$(ranks)"
imp "$data/excerpt_rank0.txt"
check "excerpt, no INFO: exit" 0 $?
check "excerpt, no INFO: ranks from busbw / algbw" "2 2" "$(ranks)"
imp "$data/excerpt_rank1_small.txt"
check "excerpt, gap and no figure to tell: exit" 0 $?
check "excerpt, gap and no figure to tell: unknown" "null null" "$(ranks)"
grep -q 'excerpt_rank1_small.txt: the device lines have gaps: at least 2 ranks; the count is left unknown' "$tmp/err" ||
  { echo "FAIL: excerpt gap: no warning: $(cat "$tmp/err")"; fail=1; }
# INFO lines that say 4 against device lines of 2: NCCL's count wins, one line says so.
sed 's/nranks 2/nranks 4/; s/nRanks 2/nRanks 4/' "$data/excerpt_rank0_info.txt" > "$tmp/info4.txt"
sed -n '6p' "$data/excerpt_rank0_info.txt" | sed 's/Rank  0/Rank  1/; s/device  0 \[0000:00:06\]/device  1 [0000:00:07]/' > "$tmp/dev1"
sed -i "6r $tmp/dev1" "$tmp/info4.txt"
imp "$tmp/info4.txt"
check "INFO against devices: ranks" "4 4" "$(ranks)"
check "INFO against devices: one warning" 1 "$(grep -c 'info4.txt: 4 ranks from NCCL.s INFO lines, the device list says 2, busbw / algbw says 2' "$tmp/err")"

# gather, scatter and hypercube under 1 GB/s (nccl-tests 2.19.6 gather.cu / hypercube.cu GetBw):
# busbw is size / time x (n-1)/n, hypercube's algbw too. Taken from the time as the other tests'
# are, where gather's "0.00" busbw was left out and "0.01" kept for 0.0137, and hypercube's algbw
# was size / time (0.000442 for the tool's 0.000331).
imp "$data/gather_small_sizes.txt"
check "gather: exit" 0 $?
check "gather: 8 B busbw from the time" 0.000220994 "$(metric gather/bf16/8/eager/out_of_place busbw_GBps)"
check "gather: 512 B busbw from the time" 0.0137487 "$(metric gather/bf16/512/eager/out_of_place busbw_GBps)"
check "gather: 512 B algbw from the time" 0.0274973 "$(metric gather/bf16/512/eager/out_of_place algbw_GBps)"
check "gather: from 1 GB/s as printed" 4.18 "$(metric gather/bf16/262144/eager/out_of_place busbw_GBps)"
# a busbw under 1 GB/s beside an algbw above it (2 ranks: half of it) is taken from the time too,
# where the print (0.80) was kept
check "gather: busbw under 1 beside algbw 1.61" 0.802744 "$(metric gather/bf16/32768/eager/out_of_place busbw_GBps)"
check "gather: algbw 1.61 as printed" 1.61 "$(metric gather/bf16/32768/eager/out_of_place algbw_GBps)"
imp "$data/alltoall_no_command.txt"
check "alltoall: busbw 0.65 beside algbw 1.29" 0.646152 "$(metric alltoall/fp32/1048576/eager/out_of_place busbw_GBps)"
imp "$data/hypercube_small_sizes.txt"
check "hypercube: exit" 0 $?
check "hypercube: 8 B algbw from the time" 0.000331492 "$(metric hypercube/bf16/8/eager/out_of_place algbw_GBps)"
check "hypercube: 8 B busbw from the time" 0.000331492 "$(metric hypercube/bf16/8/eager/out_of_place busbw_GBps)"
check "hypercube: 512 B in-place busbw" 0.020296 "$(metric hypercube/bf16/512/eager/in_place busbw_GBps)"

# rccl-tests' own result file (-x FILE -Z csv|json, its src/common.cu Reporter; rebuilt in
# tests/data/nccl/variants/README.md): a record per size and placement, -N cycles as samples, the
# communicator's ranks from gpus (no MPI) or ranksPerNode x gpusPerRank (MPI). Not read before:
# the CSV was refused as no nccl-tests output, the JSON as not -J output.
imp "$data/rccl_results.csv"
check "rccl csv: exit" 0 $?
check "rccl csv: cases" 6 "$(cases)"
check "rccl csv: the two cycles' samples" "2 40.235" "$(sql "SELECT m.n || ' ' || printf('%g', m.median) FROM cases c
  JOIN metrics m ON m.case_id = c.id WHERE c.name = 'allreduce/fp32/1048576/eager/out_of_place' AND m.name = 'time_us'")"
check "rccl csv: in-place busbw" 46.0017 "$(metric allreduce/fp32/1048576/eager/in_place busbw_GBps)"
check "rccl csv: wrong" 0 "$(metric allreduce/fp32/4194304/eager/in_place wrong)"
check "rccl csv: ranks from gpus" "8 8" "$(ranks)"
check "rccl csv: kept as csv" "text/csv" "$(sql "SELECT media_type FROM artifacts")"
imp "$data/rccl_results_mpi_2025.csv"
check "rccl csv before PR 140 (MPI): exit" 0 $?
check "rccl csv before PR 140 (MPI): time" 170.25 "$(metric allgather/fp32/33554432/eager/out_of_place time_us)"
check "rccl csv before PR 140 (MPI): ranks past the nodes value the header lacks" "16 16" "$(ranks)"
check "rccl csv before PR 140 (MPI): -c 0, nothing checked" "" "$(metric allgather/fp32/16777216/eager/in_place wrong)"
imp "$data/rccl_results.json"
check "rccl json: exit" 0 $?
check "rccl json: in-place time" 61.02 "$(metric alltoall/bf16/8388608/eager/in_place time_us)"
check "rccl json: ranks" "8 8" "$(ranks)"
# before PR 140: an object a line, no list around them
sed -e '/^\[$/d' -e '/^\]$/d' -e 's/},$/}/' "$data/rccl_results.json" > "$tmp/rccl_lines.json"
imp "$tmp/rccl_lines.json"
check "rccl json lines: exit" 0 $?
check "rccl json lines: busbw" 120.824 "$(metric alltoall/bf16/8388608/eager/out_of_place busbw_GBps)"
# before PR 140 records were written as they came: a killed job's last one, cut, is left out with
# a warning (the file was refused)
head -c -40 "$tmp/rccl_lines.json" > "$tmp/rccl_cut.json"
imp "$tmp/rccl_cut.json"
check "rccl json lines cut: exit" 0 $?
check "rccl json lines cut: the whole record kept" 1 "$(cases)"
grep -q 'rccl_cut.json: record 1 cut short, left out' "$tmp/err" || { echo "FAIL: rccl json cut: no warning: $(cat "$tmp/err")"; fail=1; }
head -c -30 "$data/rccl_results_mpi_2025.csv" > "$tmp/rccl_cut.csv"
imp "$tmp/rccl_cut.csv"
check "rccl csv cut: exit" 0 $?
check "rccl csv cut: three records kept" 3 "$(cases)"
grep -q 'rccl_cut.csv:5: record cut short, left out' "$tmp/err" || { echo "FAIL: rccl csv cut: no warning: $(cat "$tmp/err")"; fail=1; }
# a line short of its header, not the last: refused with its line
sed '3s/,"0"$//' "$data/rccl_results.csv" > "$tmp/short.csv"
one_line "rccl csv short line" 2 "short.csv:3: 10 fields where the header names 11" \
  "$XP" --db "$tmp/short.db" import nccl-tests "$tmp/short.csv"
# a raw newline inside a record's string (cJSON keeps it as written: the file and its CRLF copy
# recorded two types, "bfloat\n16" and "bfloat\r\n16"): refused at its line, as -J JSON is
sed '3s/"bfloat16"/"bfloat\n16"/' "$data/rccl_results.json" > "$tmp/ctl.json"
one_line "rccl json raw newline" 2 "ctl.json:3: control character inside a string" \
  "$XP" --db "$tmp/ctl.db" import nccl-tests "$tmp/ctl.json"
sed '2s/"bfloat16"/"bfloat\n16"/' "$tmp/rccl_lines.json" > "$tmp/ctl_lines.json"
one_line "rccl json lines raw newline" 2 "ctl_lines.json:2: control character inside a string" \
  "$XP" --db "$tmp/ctl.db" import nccl-tests "$tmp/ctl_lines.json"

# Before 2.13 a report names no test: the command line the log keeps before it does (a shell
# prompt, as users paste it), where the case was "unknown"; --collective still decides.
{ printf 'user@node1:~/nccl-tests$ ./build/alltoall_perf -b 1M -e 1M -g 2\n'; cat "$data/pre2_0_ms.txt"; } > "$tmp/prompt.txt"
imp "$tmp/prompt.txt"
check "command line names the test" "alltoall" "$(sql "SELECT DISTINCT json_extract(params, '$.collective') FROM cases")"
# A root shell's bare "# " prompt before the command (nccl issue 428): a command line, not one of
# the report's '#' lines, where the test was left 'unknown'.
imp "$data/root_prompt.txt"
check "root prompt names the test" "allreduce" "$(sql "SELECT DISTINCT json_extract(params, '$.collective') FROM cases")"
db="$tmp/prompt2.db"
"$XP" --db "$db" import nccl-tests "$tmp/prompt.txt" --collective all_gather > /dev/null 2>&1
check "--collective over the command line" "allgather" "$(sql "SELECT DISTINCT json_extract(params, '$.collective') FROM cases")"

# A test that a failure stopped before its first row, then the same command run again (appended
# to one log; nccl-tests issue 219's failure): the attempt is left out with a warning and the
# report after it read as the test's, where the two options lines were read as one report
# printed per process (a build without MPI) and the attempt's failure as the run's.
imp "$data/rerun_after_failure.txt"
check "rerun after failure: exit" 0 $?
check "rerun after failure: not per process" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.independent'")"
check "rerun after failure: failure left with the attempt" "" \
  "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"
check "rerun after failure: the command line before the attempt names it" "allreduce 8" \
  "$(sql "SELECT json_extract(params, '$.collective') || ' ' || count(*) FROM cases")"
check "rerun after failure: one warning" 1 "$(grep -c 'rerun_after_failure.txt:9: this test ended before its first result line ("Test NCCL failure common.cu:959' "$tmp/err")"
check "rerun after failure: no per-process warning" 0 "$(grep -c 'once per process' "$tmp/err")"
# killed without a word (a hang, ^C) and run again from the shell: the command line ends the attempt
sed -e '9,14d' -e '8a ^C\nuser@fengyun416:~$ mpirun -np 2 -pernode ./nccl-tests/build/all_reduce_perf -b 8 -e 128M -f 2 -g 2 -c 0' \
  "$data/rerun_after_failure.txt" > "$tmp/rerun_hung.txt"
imp "$tmp/rerun_hung.txt"
check "rerun after a hang: exit" 0 $?
check "rerun after a hang: not per process" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.independent'")"
grep -q 'rerun_hung.txt:10: this test ended before its first result line (a command line runs all_reduce_perf after it)' "$tmp/err" ||
  { echo "FAIL: rerun after a hang: no warning: $(cat "$tmp/err")"; fail=1; }
# 2.13 on: a test stopped after its "Collective test starting" line, then another test: the rows
# are the second test's (they were named 'unknown': the next report lost its test's name), the
# devices its own
{ sed -n '2,8p' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" | sed 's/all_reduce_perf/all_gather_perf/; s/ vm / vm2 /; s/maxBytes 268435456/maxBytes 1048576/'
  echo 'vm2: Test CUDA failure common.cu:1086 '"'"'out of memory'"'"
  cat "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; } > "$tmp/stopped_other.txt"
imp "$tmp/stopped_other.txt"
check "stopped, then another test: exit" 0 $?
check "stopped, then another test: its collective" "allreduce 52" \
  "$(sql "SELECT group_concat(DISTINCT json_extract(params, '$.collective')) || ' ' || count(*) FROM cases")"
check "stopped, then another test: its host" "vm" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.host'")"

# A log whose only test stopped before its first row says so, with the failure and its line,
# where it said "no nccl-tests results found (no "# nThread" or column header ...)" of a file
# that has both.
head -10 "$data/rerun_after_failure.txt" > "$tmp/failed_only.txt"
one_line "failed before any row" 2 \
  "failed_only.txt:9: the test ended before its first result line (\"Test NCCL failure common.cu:959 'internal error" \
  "$XP" --db "$tmp/failed_only.db" import nccl-tests "$tmp/failed_only.txt"
# The failure above the head (another process printed it before rank 0's head reached the log)
# and no row after: the same, naming the failure's line, where it said "no nccl-tests results found
# (no "# nThread" ...)" of a file that has one.
{ sed -n 9p "$data/rerun_after_failure.txt"; sed -n 1,8p "$data/rerun_after_failure.txt"; } > "$tmp/failed_above.txt"
one_line "failed above its head, no row" 2 \
  "failed_above.txt:1: the test ended before its first result line (\"Test NCCL failure common.cu:959 'internal error" \
  "$XP" --db "$tmp/failed_above.db" import nccl-tests "$tmp/failed_above.txt"
# rccl-tests says "Test HIP failure" (its HIPCHECK) before the " .. host: Test failure" it
# causes: that is the failure recorded, where the line after it (no cause) was.
{ sed '/Out of bounds/,$d' "$data/rccl_in_place_only.txt"
  echo "mi300x-7: Test HIP failure common.cu:1254 'hipErrorIllegalAddress'"
  echo " .. mi300x-7: Test failure common.cu:1102"; } > "$tmp/rccl_hip_failure.txt"
imp "$tmp/rccl_hip_failure.txt"
check "rccl-tests HIP failure: exit" 0 $?
check "rccl-tests HIP failure: recorded" "Test HIP failure common.cu:1254 'hipErrorIllegalAddress'" \
  "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"

# A failure of another run pasted above a report (nccl-tests issue 280: a -g 4 run's failure, then
# a -g 3 run's report): not the report's failure, said with a warning, where it was recorded as
# nccl_tests.failure and the warning said the test stopped there.
imp "$data/failure_pasted_above.txt"
check "failure pasted above: exit" 0 $?
check "failure pasted above: cases" 36 "$(cases)"
check "failure pasted above: no failure recorded" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"
check "failure pasted above: the report's ranks" 3 "$(sql "SELECT gpu_count FROM runs")"
grep -q "failure_pasted_above.txt:2: \"Test NCCL failure common.cu:1005 'unhandled CUDA error'\" comes before the report's head: another run's failure" "$tmp/err" ||
  { echo "FAIL: failure pasted above: no warning: $(cat "$tmp/err")"; fail=1; }

# A failure after a report's footer (nccl-tests frees everything before printing it, and checks
# nothing after): a later test's, appended to the log, that died before its head (nccl-tests issue
# 30's line), or another process's. Not the report's failure, said with a warning naming its line,
# where it was recorded as nccl_tests.failure and the warning said the test stopped there.
later="458398: Test CUDA failure common.cu:730 'no CUDA-capable device is detected'"
{ cat "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; echo "$later"; } > "$tmp/failure_at_end.txt"
{ cat "$tmp/failure_at_end.txt"; sed 's/Pid   1351/Pid   1402/' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt"; } > "$tmp/failure_between.txt"
for f in failure_at_end failure_between; do
  imp "$tmp/$f.txt"
  check "$f: exit" 0 $?
  check "$f: no failure recorded" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.failure'")"
  check "$f: one warning" 1 "$(wc -l < "$tmp/err")"
  grep -q "$f.txt:174: \"Test CUDA failure common.cu:730 'no CUDA-capable device is detected'\" comes after a report's footer" "$tmp/err" ||
    { echo "FAIL: $f: no warning: $(cat "$tmp/err")"; fail=1; }
done
check "failure between reports: both read" 2 "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.reports'")"

# Two tests appended in one log (the 2.19 all_reduce sweep, then gather_perf's report): the summary
# names both, where it said "imported 64 cases of allreduce from 1 file", the first report's alone.
cat "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" "$data/gather_small_sizes.txt" > "$tmp/two_tests.txt"
imp "$tmp/two_tests.txt"
check "two tests appended: summary" "imported 64 cases of allreduce, gather from 1 file" "$(head -n 1 "$tmp/out")"

# A -J file that a killed job left open (util.cu closes it only at the end) is refused saying so,
# where it was "not valid JSON" as any broken file (tests/bad_inputs/nccl-json-invalid pins the
# refusal itself).
head -c 8000 "$XP_SRC/tests/data/nccl/nccltests_sweep.json" > "$tmp/cut.json"
one_line "-J cut short" 2 "cut.json: not valid JSON: cut short, left open at its end (a job killed" \
  "$XP" --db "$tmp/cut.db" import nccl-tests "$tmp/cut.json"
printf '{"config": {}, "results": [}\n' > "$tmp/broken.json"
one_line "-J broken, not cut" 2 "broken.json: not valid JSON\$" "$XP" --db "$tmp/broken.db" import nccl-tests "$tmp/broken.json"

# nccl-tests 2.30's GIN device-API benchmarks (ginPutBW_perf, ginPutLatency_pingPong_perf) print a
# table of one-sided transfers between 2 ranks (MiB/s and messages/s, or a one-way latency), no
# collective's: refused naming what they are, where it was "no nccl-tests results found" (and
# "NCCL's log alone" with INFO lines); appended to a collective's log, left out with a warning,
# where its rows were read as the report's and each left out as "cut short".
one_line "GIN bandwidth table" 2 'ginPutBW_perf.txt:2: nccl-tests. GIN device-API benchmark "GIN PUT BANDWIDTH/MESSAGE RATE" (Size(B) Num_Messages Bandwidth(MiB/s) Message_Rate(MPPS): one-sided transfers between 2 ranks), not a collective.s report' \
  "$XP" --db "$tmp/gin.db" import nccl-tests "$data/ginPutBW_perf.txt"
one_line "GIN latency table" 2 'ginPutLatency_pingPong_perf.txt:2: .* "GIN PUT PING-PONG LATENCY" (Size(B) Iters Latency(us):' \
  "$XP" --db "$tmp/gin.db" import nccl-tests "$data/ginPutLatency_pingPong_perf.txt"
db="$tmp/gin.db"
check "GIN tables: nothing recorded" 0 "$(cases)"
{ echo "node1:8811:8811 [0] NCCL INFO NCCL version 2.30.7+cuda13.0"; cat "$data/ginPutBW_perf.txt"; } > "$tmp/gin_info.txt"
one_line "GIN table with INFO lines" 2 'gin_info.txt:3: nccl-tests. GIN device-API benchmark' \
  "$XP" --db "$tmp/gin.db" import nccl-tests "$tmp/gin_info.txt"
cat "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" "$data/ginPutBW_perf.txt" > "$tmp/with_gin.txt"
imp "$tmp/with_gin.txt"
check "GIN table after a report: exit" 0 $?
check "GIN table after a report: the report's cases" 52 "$(cases)"
check "GIN table after a report: one warning" 1 "$(wc -l < "$tmp/err")"
grep -q 'with_gin.txt:175: nccl-tests. GIN device-API benchmark .* left out' "$tmp/err" ||
  { echo "FAIL: GIN table after a report: no warning: $(cat "$tmp/err")"; fail=1; }

# A launcher's label inside a row (nccl issue 1453: MPICH's "[0] " before each piece it read, so
# "-1[0] host:pid:tid [0] NCCL INFO 256 Bytes -> Algo ..." where NCCL's TUNING line cut the row):
# the label goes with the INFO line, where the file was refused ('column root: expected a number,
# got "-1[0]"'); Open MPI's "[1,0]<stdout>:" the same.
imp "$data/mpich_label_in_row.txt"
check "label in a row: exit" 0 $?
check "label in a row: cases" 6 "$(cases)"
check "label in a row: out-of-place time" 61.8 "$(metric allreduce/fp32/256/eager/out_of_place time_us)"
check "label in a row: in-place time" 62.05 "$(metric allreduce/fp32/256/eager/in_place time_us)"
check "label in a row: wrong" 0 "$(metric allreduce/fp32/1024/eager/out_of_place wrong)"
check "label in a row: ranks" "24 24" "$(ranks)"
sed -e 's/^\[0\] /[1,0]<stdout>:/' -e 's/\[0\] h100clust-worker-1:497888:497888/[1,0]<stdout>:h100clust-worker-1:497888:497888/' \
  "$data/mpich_label_in_row.txt" > "$tmp/ompi_label_in_row.txt"
imp "$tmp/ompi_label_in_row.txt"
check "Open MPI label in a row: exit" 0 $?
check "Open MPI label in a row: in-place time" 63.58 "$(metric allreduce/fp32/1024/eager/in_place time_us)"
check "Open MPI label in a row: cases" 6 "$(cases)"

# A host named by digits (NVIDIA/nccl issue 1773: "10-4-3-3") whose INFO line (NCCL_DEBUG_SUBSYS=COLL)
# cut the first row before any INFO line started a line: the host is the device lines', so the row
# ends at it, where the file was refused ('column root: -110 is not a whole number in range').
imp "$data/digit_host_in_row.txt"
check "digit-led host in a row: exit" 0 $?
check "digit-led host in a row: cases" 16 "$(cases)"
check "digit-led host in a row: out-of-place time" 7.49 "$(metric allreduce/bf16/14336/graph/out_of_place time_us)"
check "digit-led host in a row: in-place busbw" 1.88 "$(metric allreduce/bf16/14336/graph/in_place busbw_GBps)"

# A job over two hosts (srun --label, nccl-tests issue 290's layout): the hosts its device lines name
# are counted (nccl_tests.hosts 2), where only rank 0's host was recorded and 16 ranks read as one
# host's; a list with a gap (an excerpt) names only some, and a report printed once per process
# (each process its own job) none of them: both record no count.
imp "$data/srun_two_hosts.txt"
check "two hosts: exit" 0 $?
check "two hosts: counted" "node005 2 16" "$(sql "SELECT (SELECT value FROM run_meta WHERE key = 'nccl_tests.host') || ' ' || (SELECT value FROM run_meta WHERE key = 'nccl_tests.hosts') || ' ' || gpu_count AS v FROM runs")"
check "two hosts: time" 221.4 "$(metric unknown/fp32/8388608/eager/out_of_place time_us)"
# -J the same: its devices' hostnames (the sweep's one process of 2 GPUs made two processes on two hosts)
sed -e 's/"ngpus":2/"ngpus":1/' \
  -e 's/"devices":\[{"rank":0,\([^}]*\)"hostname":"vm",\([^}]*\)}\]/"devices":[{"rank":0,\1"hostname":"vm",\2},{"rank":1,\1"hostname":"vm2",\2}]/' \
  "$XP_SRC/tests/data/nccl/nccltests_sweep.json" > "$tmp/two_hosts.json"
imp "$tmp/two_hosts.json"
check "two hosts, -J: counted" "2 2" "$(sql "SELECT (SELECT value FROM run_meta WHERE key = 'nccl_tests.hosts') || ' ' || gpu_count AS v FROM runs")"
sed '/Rank  9 /d' "$data/srun_two_hosts.txt" > "$tmp/hosts_gap.txt"
imp "$tmp/hosts_gap.txt"
check "hosts of a list with a gap: not counted" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.hosts'")"
sed -e 's/Rank  [0-9] Group/Rank  0 Group/' -e 's/Rank 1[0-9] Group/Rank  0 Group/' "$data/srun_two_hosts.txt" > "$tmp/hosts_per_process.txt"
imp "$tmp/hosts_per_process.txt"
check "hosts of a report per process: not counted" "" "$(sql "SELECT value FROM run_meta WHERE key = 'nccl_tests.hosts'")"

# A negative time is no measurement: refused with its line, not recorded.
sed 's/    19.71   53.20/   -19.71   53.20/' "$data/cut_after_busbw.txt" > "$tmp/negative.txt"
one_line "negative time" 2 "negative.txt:12: column time: -19.71 is negative" \
  "$XP" --db "$tmp/neg.db" import nccl-tests "$tmp/negative.txt"
# A bandwidth nccl-tests divided out of a time of 0 is no figure: util.cu's -J writer puts NaN
# as "nan" (jsonDouble), the text prints "-nan" or (before getFloatStr) "inf", rccl-tests' -x
# file std::to_string's "nan". Recorded as no bandwidth with a note and one warning, never as
# 0 GB/s (the -J file's "nan" was 0), nor as a bandwidth row holding no value (the text's);
# the file is not refused (the -x file was), and the burst query keeps the row, its busbw empty.
nan_case=allreduce/bf16/8/eager/out_of_place
sed 's/"out_of_place":{"time":18.541400,"alg_bw":0.000431,"bus_bw":0.000431/"out_of_place":{"time":18.541400,"alg_bw":"nan","bus_bw":"nan"/' \
  "$XP_SRC/tests/data/nccl/nccltests_sweep.json" > "$tmp/nan_bw.json"
sed '139s/    18.54    0.00    0.00 /    18.54     inf    -nan /' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/nan_bw.txt"
for f in nan_bw.json nan_bw.txt; do
  imp "$tmp/$f"
  check "$f: exit" 0 $?
  check "$f: no bandwidth recorded" "0" "$(sql "SELECT count(*) FROM cases c JOIN metrics m ON m.case_id = c.id
    WHERE c.name = '$nan_case' AND m.name IN ('algbw_GBps', 'busbw_GBps')")"
  check "$f: its time kept" 18.54 "$(sql "SELECT printf('%.2f', m.median) FROM cases c JOIN metrics m ON m.case_id = c.id
    WHERE c.name = '$nan_case' AND m.name = 'time_us'")"
  check "$f: the case says why" "bandwidth printed as nan or inf in 1 of 1 samples (a time of 0?): not recorded" \
    "$(sql "SELECT note FROM cases WHERE name = '$nan_case'")"
  check "$f: one warning" 1 "$(grep -c "^xp: warning: .*$f.*: 1 result with a bandwidth printed as nan or inf" "$tmp/err")"
  check "$f: burst row kept, busbw empty" 1 "$("$XP" --db "$db" query "$XP_SRC/queries/allreduce_burst.sql" --format csv 2> /dev/null |
    grep -c '^allreduce,bf16,8,eager,out_of_place,20,2,NVIDIA H200,.*,imported,1,370\.8[0-9]*,370\.8[0-9]*,18\.54[0-9]*,,')"
done
# xp compare of the sweep (A) with that copy (B): the case is in both, its bandwidth unknown on
# B's side, where the row read "only in A", a case B does not have; the time is compared.
db="$tmp/nan_cmp.db"
for f in "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" "$tmp/nan_bw.txt"; do
  "$XP" --db "$db" import nccl-tests "$f" > /dev/null 2>&1
done
"$XP" --db "$db" compare "$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 1")" \
  "$(sql "SELECT substr(uuid, 1, 8) FROM runs WHERE id = 2")" > "$tmp/cmp" 2>&1
check "compare with a nan bandwidth: exit" 0 $?
check "compare with a nan bandwidth: unknown in B, not only in A" 2 \
  "$(grep -c "^$nan_case .* \(alg\|bus\)bw_GBps .* unknown in B$" "$tmp/cmp")"
check "compare with a nan bandwidth: its time in both" 1 \
  "$(grep -c "^$nan_case .* time_us .* 18\.54 .* 18\.54 .* too few samples$" "$tmp/cmp")"
check "compare with a nan bandwidth: not unpaired" 0 "$(grep -c "only in" "$tmp/cmp")"
sed '2s/,40.120000,26.135992,45.737986,/,40.120000,nan,-nan,/' "$data/rccl_results.csv" > "$tmp/nan_bw.csv"
imp "$tmp/nan_bw.csv"
check "rccl-tests -x file with nan: imported" "0 1" "$? $(grep -c 'nan_bw.csv:2: 1 result with a bandwidth printed as nan or inf' "$tmp/err")"
# A row's count and size are what its test printed together (GetCollByteCount): all_gather's count
# is one rank's share, its size the share x the ranks (8 B = 1 float x 2); a count whose multiple
# is not the size is no such row, refused as all_reduce's were; and a type besides bf16/fp16/fp32/
# fp8 (int8: 1 byte, 4 elements are not 8 bytes) is checked too, where both were taken as written.
sed 's/^     1048576        131072   float/     1048576        131071   float/' "$data/all_gather_no_command.txt" > "$tmp/ag_count.txt"
"$XP" --db "$tmp/ag_count.db" import nccl-tests "$tmp/ag_count.txt" --collective all_gather > /dev/null 2> "$tmp/err"
check "all_gather: a count no share makes, exit" 2 $?
check "all_gather: a count no share makes, said" 1 "$(grep -c '^xp: .*ag_count.txt:11: count 131071 of fp32 (4 bytes each) does not make size 1048576: nccl-tests. allgather prints size = count x the type.s size x the ranks' "$tmp/err")"
# ... and a share of no rank (size 0) is no count of 1
sed 's/^           8             1   float/           0             1   float/' "$data/all_gather_no_command.txt" > "$tmp/ag_zero.txt"
"$XP" --db "$tmp/ag_zero.db" import nccl-tests "$tmp/ag_zero.txt" --collective all_gather > /dev/null 2> "$tmp/err"
check "all_gather: size 0 of count 1, refused" "2 1" "$? $(grep -c 'ag_zero.txt:10: count 1 of fp32 (4 bytes each) does not make size 0' "$tmp/err")"
"$XP" --db "$tmp/ag_ok.db" import nccl-tests "$data/all_gather_no_command.txt" --collective all_gather > /dev/null 2>&1
check "all_gather: its own counts, imported" 0 $?
# broadcast from a root prints its whole count (NVIDIA's broadcast.cu); half of it is no such row
sed 's/^     1048576        262144   float       0/     1048576        131072   float       0/' "$data/broadcast_no_command.txt" > "$tmp/bc_count.txt"
imp "$tmp/bc_count.txt"
check "broadcast from root 0: half its count, refused" "2 1" "$? $(grep -c 'bc_count.txt:16: count 131072 of fp32 (4 bytes each) does not make size 1048576: .* broadcast prints size = count x the type.s size$' "$tmp/err")"
sed 's/^           8             4  bfloat16/           8             4      int8/' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/int8_count.txt"
imp "$tmp/int8_count.txt"
check "int8: 4 elements of 8 bytes, exit" 2 $?
check "int8: said" 1 "$(grep -c 'int8_count.txt:[0-9]*: count 4 of int8 (1 bytes each) does not make size 8' "$tmp/err")"
sed 's/^           8             4  bfloat16/           8             1    double/' "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/double_count.txt"
imp "$tmp/double_count.txt"
check "double: 1 element of 8 bytes, imported" "0 1" "$? $(sql "SELECT count(*) FROM cases WHERE name = 'allreduce/double/8/eager/out_of_place'")"

# An all_gather of 64 ranks without its device lines, under 1 GB/s (busbw / algbw cannot tell 64
# from 65): its sizes say 64 (1024 B = 4 floats x 64), where nThread x nGpus' 1 was recorded.
imp "$data/all_gather_64_ranks_no_devices.txt"
check "all_gather, no device lines: ranks from size / count" "0 64 64" \
  "$? $(sql "SELECT gpu_count FROM runs") $(sql "SELECT DISTINCT json_extract(params, '$.ranks') FROM cases")"
check "all_gather, no device lines: said" 1 "$(grep -c '64 ranks from size / count, nThread x nGpus (one process) says 1' "$tmp/err")"

# Before 2.13 the error column is judged against the type's DeltaMaxValue: double's is 1e-12, so
# its 2e-16 passes where half's 6e-02 fails; a double row was judged against 0 (failed) before.
db="$tmp/all_types.db"
"$XP" --db "$db" import nccl-tests "$data/all_reduce_all_types_pre2_13.txt" --collective all_reduce > /dev/null 2>&1
check "pre-2.13 -d all: failed cases are half's alone" "allreduce/fp16/1048576/eager/in_place allreduce/fp16/1048576/eager/out_of_place" \
  "$(sql "SELECT group_concat(name, ' ') FROM (SELECT name FROM cases WHERE status = 'failed' ORDER BY name)")"
check "pre-2.13 -d all: double's error kept, its case ok" "ok 2e-16" \
  "$(sql "SELECT c.status || ' ' || printf('%g', m.median) FROM cases c JOIN metrics m ON m.case_id = c.id
    WHERE c.name = 'allreduce/double/1048576/eager/out_of_place' AND m.name = 'max_error'")"

finish
