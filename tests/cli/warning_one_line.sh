#!/usr/bin/env bash
# A warning is one line, as an error is, where a name in it holds a newline (a query file
# $'q\nx.sql' with an unused --param): it was printed as two lines, the second without "xp: ".
# (Errors: tests/bad_inputs/cli-file-name-with-newline, db-name-with-newline.) Escape sequences
# and C1 controls in a warning or an error are written out, as tables write them.
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
"$XP" --db "$db" import nccl-tests "$XP_SRC/tests/data/nccl/nccltests_sweep.txt" > /dev/null 2>&1
check "a database to query" 0 $?
q=$'q\nx.sql'
echo "SELECT count(*) FROM runs;" > "$tmp/$q"
"$XP" --db "$db" query "$tmp/$q" --param unused=1 > /dev/null 2> "$tmp/err"
check "exit" 0 $?
check "the warning" "xp: warning: $tmp/q x.sql: --param unused: the query has no :unused (a misspelt name?)" "$(cat "$tmp/err")"
# ... and shows the values in it as a table does: a model declared with an escape sequence (or
# CSI, U+009B), which the vLLM result's own model overrides, was warned about raw, colouring
# the terminal; an error naming a file likewise
vb="$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json"
"$XP" --db "$tmp/v.db" import vllm-bench "$vb" --set model=$'\e[31mQwen\xc2\x9b' > /dev/null 2> "$tmp/err"
check "import exit" 0 $?
check "the warning, shown" 'xp: warning: model: declared "\x1b[31mQwen\u009b" but detected "Qwen/Qwen3-0.6B"; recording the detected value' \
  "$(cat "$tmp/err")"
"$XP" --db "$db" query "$tmp/"$'\e[2Jq.sql' > /dev/null 2> "$tmp/err"
check "error exit" 2 $?
check "the error, shown" "xp: $tmp/\\x1b[2Jq.sql: cannot read: No such file or directory" "$(cat "$tmp/err")"
finish
