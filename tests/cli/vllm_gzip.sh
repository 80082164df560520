#!/usr/bin/env bash
# xp import vllm-bench of a result kept gzip'd (gzip result.json, a CI's archive) reads its JSON,
# inflated by the reader nccl-tests' logs and torch traces go through, where it was refused
# ("gunzip -k it first"): the same cases and figures as the plain file, the run keeping the JSON;
# one cut short, damaged, or a gzip'd pipe refused in one line, nothing recorded.
set -u
. "$XP_SRC/tests/lib.sh"
data="$XP_SRC/tests/data/vllm_bench"
cp "$data/serve_append_c1_c2.json" "$tmp/serve.json"
gzip -k "$tmp/serve.json"
"$XP" --db "$tmp/plain.db" import vllm-bench "$tmp/serve.json" > /dev/null 2>&1
check "plain: exit" 0 $?
"$XP" --db "$tmp/gz.db" import vllm-bench "$tmp/serve.json.gz" > "$tmp/out" 2> "$tmp/err"
check "gzip'd: exit" 0 $?
check "gzip'd: no warning" "" "$(cat "$tmp/err")"
check "gzip'd: the plain file's figures" "$(figures_of "$tmp/plain.db")" "$(figures_of "$tmp/gz.db")"
printf '%s\n' "SELECT count(*) FROM cases;" > "$tmp/n.sql"
check "gzip'd: 2 cases" 2 "$("$XP" --db "$tmp/gz.db" query "$tmp/n.sql" --format csv | tail -n +2)"
# the artifact holds the JSON read, as the plain file's does
printf '%s\n' "SELECT a.sha256 FROM artifacts a;" > "$tmp/a.sql"
check "gzip'd: the JSON kept" "$("$XP" --db "$tmp/plain.db" query "$tmp/a.sql" --format csv)" \
  "$("$XP" --db "$tmp/gz.db" query "$tmp/a.sql" --format csv)"

# Cut short, damaged, a pipe: one line each, exit 2, nothing recorded.
head -c 200 "$tmp/serve.json.gz" > "$tmp/cut.json.gz"
one_line "gzip'd, cut short" 2 "cut\.json\.gz: truncated gzip stream: it ends at compressed byte 200, after [0-9]* bytes of JSON$" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/cut.json.gz"
python3 -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); d[len(d) // 2] ^= 0xff; open(sys.argv[2], 'wb').write(d)" \
  "$tmp/serve.json.gz" "$tmp/damaged.json.gz"
one_line "gzip'd, damaged" 2 "damaged\.json\.gz: corrupt gzip data at compressed byte [0-9]*" \
  "$XP" --db "$tmp/bad.db" import vllm-bench "$tmp/damaged.json.gz"
one_line "gzip'd pipe" 2 "gzip-compressed and not a regular file, which the gzip reader opens again: save it to a file" \
  "$XP" --db "$tmp/bad.db" import vllm-bench <(cat "$tmp/serve.json.gz")
printf '%s\n' "SELECT count(*) FROM runs;" > "$tmp/r.sql"
check "refused: nothing recorded" "" "$("$XP" --db "$tmp/bad.db" query "$tmp/r.sql" --format csv 2>/dev/null | tail -n +2 | grep -v '^0$')"
finish
