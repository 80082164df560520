#!/usr/bin/env bash
# xp compare's table pads by terminal columns, as query and show do: a category named in CJK
# (two columns a character, three bytes) lines up with the ASCII rows.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
tr="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"
run import torch-trace "$tr"; expect_rc 0
run import torch-trace "$tr" --set batch=2; expect_rc 0
grep -v '^#' "$XP_SRC/importers/torch_trace/categories.tsv" |
  sed $'s/^category\tgemm\t/category\t矩阵乘法\t/; s/^rule\tgemm\t/rule\t矩阵乘法\t/' > "$tmp/rules.tsv"
run reclassify --rules "$tmp/rules.tsv"; expect_rc 0
ids=$("$XP" --db "$db" runs --format csv | awk -F, 'NR > 1 { print substr($1, 1, 8) }')
run compare $ids; expect_rc 0
# the params column is 26 columns wide ({"category":"elementwise"}); the CJK cell takes 23
has '{"category":"elementwise"}  share'
has '{"category":"矩阵乘法"}     share'
echo "ok: compare pads by columns"
