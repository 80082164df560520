#!/usr/bin/env bash
# Text that is not UTF-8 (a trace's kernel and annotation names, an nccl-tests log's device
# line, a --set value) is stored as UTF-8, each bad byte U+FFFD, so that every reader decodes
# every row (Python's sqlite3 refuses the row otherwise); kernel names that differed only in
# their bad bytes stay distinct names. And the table output aligns wide (CJK, emoji) and
# zero-width (combining) characters by terminal columns.
set -u
. "$XP_SRC/tests/lib.sh"
v="$XP_SRC/tests/data/trace/variants"
# not_utf8 TABLE COLUMN: how many of the column's values are not well-formed UTF-8
if command -v python3 > /dev/null; then
  not_utf8() {
    python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.text_factory = bytes; bad = 0
for (t,) in c.execute("SELECT %s FROM %s WHERE %s IS NOT NULL" % (sys.argv[3], sys.argv[2], sys.argv[3])):
    try: t.decode("utf-8")
    except UnicodeDecodeError: bad += 1
print(bad)' "$db" "$1" "$2"
  }
else # iconv refuses what is not UTF-8: count the values it refuses
  not_utf8() {
    local bad=0 h
    for h in $(query "SELECT hex($2) FROM $1 WHERE $2 IS NOT NULL"); do
      printf '%s' "$h" | xxd -r -p | iconv -f UTF-8 -t UTF-8 > /dev/null 2>&1 || bad=$((bad + 1))
    done
    echo $bad
  }
fi

# A trace: kernels "gemm_\xff_kernel" (twice), "gemm_\xfe_kernel" and "gemm_\uFFFD_kernel" (the
# character written as UTF-8), a user annotation "decode \xe6\xa8 layer\xff" (a cut CJK character)
"$XP" --db "$db" import torch-trace "$v/badutf8.json" --events > "$tmp/out" 2> "$tmp/err"
check "trace import exit" 0 $?
check "trace_names all UTF-8" 0 "$(not_utf8 trace_names name)"
check "trace_events names all UTF-8" 0 "$(not_utf8 trace_events name)"
check "trace_events args all UTF-8" 0 "$(not_utf8 trace_events args)"
check "three kernel names, as in the trace" 3 "$(sql "SELECT count(DISTINCT name_id) FROM trace_kernels")"
check "their kernels" 4 "$(sql "SELECT sum(count) FROM trace_kernels")"
check "the name written as U+FFFD keeps its text" 7000 \
  "$(sql "SELECT k.total_ns FROM trace_kernels k JOIN trace_names n ON n.id = k.name_id WHERE n.name = 'gemm_'||char(65533)||'_kernel'")"
check "a bad byte's name says which" 13000 \
  "$(sql "SELECT k.total_ns FROM trace_kernels k JOIN trace_names n ON n.id = k.name_id WHERE n.name = 'gemm_'||char(65533)||'_kernel (bytes ff)'")"
check "annotation: each bad byte U+FFFD" 1 \
  "$(sql "SELECT count(*) FROM trace_events WHERE name = 'decode '||char(65533, 65533)||' layer'||char(65533)")"
"$XP" --db "$db" verify > /dev/null 2> "$tmp/err"
check "verify: ids are their names' hashes" 0 $?

# The same names in a second import into the same database: the same rows, nothing refused
"$XP" --db "$db" import torch-trace "$v/badutf8.json" --set $'model=m\xffodel' > /dev/null 2> "$tmp/err"
check "second import exit" 0 $?
check "still three names" 3 "$(sql "SELECT count(*) FROM trace_names")"
check "--set value stored as UTF-8" 0 "$(not_utf8 run_meta value)"
check "spec stored as UTF-8" 0 "$(not_utf8 runs spec_json)"
check "--set value mended" 1 "$(sql "SELECT count(*) FROM run_meta WHERE value = 'm'||char(65533)||'odel'")"
"$XP" --db "$db" verify > /dev/null 2> "$tmp/err"
check "verify after the --set run" 0 $?
# read side: the same bad byte given again finds what was stored mended
check "runs --where with the bad byte finds the run" 1 \
  "$("$XP" --db "$db" runs --where $'model=m\xffodel' --format csv | tail -n +2 | wc -l)"
printf '%s\n' "SELECT count(*) AS n FROM runs WHERE model = :model;" > "$tmp/m.sql"
check "query --param with the bad byte matches" "n
1" "$("$XP" --db "$db" query "$tmp/m.sql" --param $'model=m\xffodel' --format csv)"

# A rules file that is not UTF-8 is refused with its line (its patterns are stored as text)
printf 'category\tgemm\tcompute\ncategory\tother\tother\nrule\tgemm\tprefix\tgemm_\n' > "$tmp/rules.tsv"
"$XP" --db "$db" reclassify --rules "$tmp/rules.tsv" --dry-run > /dev/null 2> "$tmp/err"
check "the same rules in UTF-8 are taken" 0 $?
printf 'category\tgemm\tcompute\ncategory\tother\tother\nrule\tgemm\tprefix\tgemm_\xff\n' > "$tmp/rules.tsv"
one_line "rules not UTF-8" 2 "rules.tsv:3: not UTF-8" "$XP" --db "$db" reclassify --rules "$tmp/rules.tsv"

# nccl-tests text: a host and a device name with bytes that are not UTF-8
db="$tmp/nccl.db"
sed -e $'s/on         vm device/on     v\xe9m\xff device/' -e $'s/NVIDIA H200$/NVIDIA H\xc3200/' \
  "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > "$tmp/bad.txt"
grep -c $'NVIDIA H\xc3200' "$tmp/bad.txt" > /dev/null || check "fixture has the bad bytes" yes no
"$XP" --db "$db" import nccl-tests "$tmp/bad.txt" > "$tmp/out" 2> "$tmp/err"
check "nccl-tests import exit" 0 $?
check "run_meta all UTF-8" 0 "$(not_utf8 run_meta value)"
check "run_gpus all UTF-8" 0 "$(not_utf8 run_gpus name)"
check "gpu name mended" "NVIDIA H$(printf '\xef\xbf\xbd')200" "$(sql "SELECT value FROM run_meta WHERE key = 'gpu_name'")"

# nccl-tests -J JSON: an environment value (not kept) and an argument with bytes that are not UTF-8
db="$tmp/ncclj.db"
sed -e $'s/"PYTHONUNBUFFERED=1"/"PYTHONUNBUFFERED=1\xff"/' -e $'s/"bfloat16"/"bfloat16\xe6"/' \
  "$XP_SRC/tests/data/nccl/nccltests_sweep.json" > "$tmp/bad.json"
"$XP" --db "$db" import nccl-tests "$tmp/bad.json" > "$tmp/out" 2> "$tmp/err"
check "nccl-tests -J import exit" 0 $?
check "-J run_meta all UTF-8" 0 "$(not_utf8 run_meta value)"
check "-J argument mended" 1 \
  "$(sql "SELECT count(*) FROM run_meta WHERE key = 'nccl_tests.args' AND instr(hex(value), hex('-d bfloat16'||char(65533)||' -J')) > 0")"

# Table output: columns line up by terminal columns
printf "SELECT 'abc' AS name, 1 AS n UNION ALL SELECT '%s', 22 UNION ALL SELECT '%s', 333 UNION ALL SELECT '%s', 4;\n" \
  $'\xe6\xa8\xa1\xe5\x9e\x8b' $'cafe\xcc\x81s' $'\xf0\x9f\x9a\x80x' > "$tmp/w.sql"
"$XP" --db "$db" query "$tmp/w.sql" > "$tmp/out" 2> "$tmp/err"
check "table query exit" 0 $?
# (the header pads its last column too)
printf '%s\n' 'name   n  ' '-----  ---' 'abc      1' $'\xe6\xa8\xa1\xe5\x9e\x8b    22' $'cafe\xcc\x81s  333' $'\xf0\x9f\x9a\x80x      4' > "$tmp/want"
cmp -s "$tmp/want" "$tmp/out" || { echo "FAIL: table alignment"; diff "$tmp/want" "$tmp/out"; fail=1; }
# a column an expression names, written over two lines, is named by its SQL, the line break
# and all: its header is shown as its cells are, on one line
printf '%s\n' "SELECT round(" "  2.25, 1), 'a'||char(10)||'b' AS v;" > "$tmp/e.sql"
"$XP" --db "$db" query "$tmp/e.sql" > "$tmp/out" 2> "$tmp/err"
check "expression column exit" 0 $?
printf '%s\n' 'round(\n  2.25, 1)  v   ' '------------------  ----' '               2.3  a\nb' > "$tmp/want"
cmp -s "$tmp/want" "$tmp/out" || { echo "FAIL: a header with a line break"; diff "$tmp/want" "$tmp/out"; fail=1; }
# a C1 control written as UTF-8 (U+009B, CSI: xterm's ESC [) is shown as text, as ESC is; CSV
# keeps the bytes
printf "SELECT 'a' || char(155) || '31mred' AS c1, 'b' || char(27) || '[0m' AS esc;\n" > "$tmp/c1.sql"
"$XP" --db "$db" query "$tmp/c1.sql" > "$tmp/out" 2> "$tmp/err"
check "a C1 control in a table" 'a\u009b31mred  b\x1b[0m' "$(sed -n 3p "$tmp/out")"
check "a C1 control in CSV" "a$(printf '\302\233')31mred" "$("$XP" --db "$db" query "$tmp/c1.sql" --format csv | sed -n 2p | cut -d, -f1)"
finish
