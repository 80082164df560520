#!/usr/bin/env bash
# xp import nccl-tests of a log kept gzip'd (all_reduce_perf ... | gzip, a CI's .log.gz) reads its
# text, inflated as a trace is, where it was refused ("gunzip -k it first"): the same cases and
# figures as the log itself, members one after another as the logs one after another, errors at
# the text's lines; a damaged stream and a gzip'd pipe refused in one line.
set -u
. "$XP_SRC/tests/lib.sh"
sweep=$XP_SRC/tests/data/nccl/nccltests_sweep.txt
cp "$sweep" "$tmp/all_reduce_perf.log"
gzip -k "$tmp/all_reduce_perf.log"
"$XP" --db "$tmp/plain.db" import nccl-tests "$tmp/all_reduce_perf.log" > /dev/null 2>&1
"$XP" --db "$tmp/gz.db" import nccl-tests "$tmp/all_reduce_perf.log.gz" > "$tmp/out" 2> "$tmp/err"
check "gzip'd: exit" 0 $?
check "gzip'd: no warning" "" "$(cat "$tmp/err")"
check "gzip'd: 52 cases" 1 "$(grep -c '^imported 52 cases of allreduce from 1 file$' "$tmp/out")"
check "gzip'd: the log's figures" "$(figures_of "$tmp/plain.db")" "$(figures_of "$tmp/gz.db")"
check "gzip'd: its NCCL lines read" "P2P/direct pointer" \
  "$("$XP" --db "$tmp/gz.db" query <(echo "SELECT value FROM run_meta WHERE key = 'nccl.transports';") --format csv | tail -n +2)"

# xp rerun --dry-run of the gzip'd import, the log gzip'd again since (other .gz bytes: gzip -9 -n, the
# same text): nothing said, where the .gz file's SHA-256 was compared with the text kept and a change
# was said; the text itself changed is said.
run=$("$XP" --db "$tmp/gz.db" runs --format csv | sed -n 2p | cut -d, -f1)
sleep 0.01
gzip -9 -n -c "$tmp/all_reduce_perf.log" > "$tmp/all_reduce_perf.log.gz"
"$XP" --db "$tmp/gz.db" rerun "$run" --dry-run > /dev/null 2> "$tmp/err"
check "dry rerun of the same text gzip'd again: exit, nothing said" "0|" "$?|$(cat "$tmp/err")"
sed 's/^\(  *8  *4  *bfloat16 .*\)17\.25/\117.35/' "$tmp/all_reduce_perf.log" | gzip -c > "$tmp/all_reduce_perf.log.gz"
"$XP" --db "$tmp/gz.db" rerun "$run" --dry-run > /dev/null 2> "$tmp/err"
check "dry rerun of another text gzip'd: the warning" 1 "$(grep -c "all_reduce_perf.log.gz is not the file run ${run:0:8} imported (its contents changed since)" "$tmp/err")"
gzip -c "$tmp/all_reduce_perf.log" > "$tmp/all_reduce_perf.log.gz" # as it was, for what follows

# Two runs' logs gzip'd apart and joined (cat a.gz b.gz): two members, read as the two logs appended.
cat "$sweep" "$sweep" > "$tmp/twice.log"
cat "$tmp/all_reduce_perf.log.gz" "$tmp/all_reduce_perf.log.gz" > "$tmp/twice.log.gz"
"$XP" --db "$tmp/twice_plain.db" import nccl-tests "$tmp/twice.log" > /dev/null 2>&1
"$XP" --db "$tmp/twice_gz.db" import nccl-tests "$tmp/twice.log.gz" > /dev/null 2>&1
check "two members: exit" 0 $?
check "two members: the logs appended" "$(figures_of "$tmp/twice_plain.db")" "$(figures_of "$tmp/twice_gz.db")"

# An error names the line of the text inflated, as the log's own would.
awk '/^ *8388608 / { sub(/4194304/, "4194305") } 1' "$sweep" > "$tmp/bad.log"
gzip -k "$tmp/bad.log"
"$XP" --db "$tmp/bad.db" import nccl-tests "$tmp/bad.log" > /dev/null 2> "$tmp/plain.err"
one_line "gzip'd, a bad row" 2 "bad.log.gz:$(sed -n 's/^xp: [^:]*:\([0-9]*\):.*/\1/p' "$tmp/plain.err"): count 4194305" \
  "$XP" --db "$tmp/bad.db" import nccl-tests "$tmp/bad.log.gz"

# Damaged data, and a gzip'd pipe (read again by its path, which a pipe cannot be).
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[len(d) // 2] ^= 0xff; open(sys.argv[2], 'wb').write(d)" \
  "$tmp/all_reduce_perf.log.gz" "$tmp/damaged.log.gz"
one_line "gzip'd, damaged" 2 "damaged.log.gz: corrupt gzip data at compressed byte [0-9]*" \
  "$XP" --db "$tmp/bad.db" import nccl-tests "$tmp/damaged.log.gz"
grep -q "JSON\|trace" "$tmp/err" && { echo "FAIL: damaged: said of a trace: $(cat "$tmp/err")"; fail=1; }
one_line "gzip'd pipe" 2 "gzip-compressed and not a regular file, which the gzip reader opens again: save it to a file" \
  "$XP" --db "$tmp/bad.db" import nccl-tests <(cat "$tmp/all_reduce_perf.log.gz")
finish
