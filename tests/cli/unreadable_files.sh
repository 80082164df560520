#!/usr/bin/env bash
# A file named on the command line that cannot be read is bad input (exit 2) and the one error
# line says why, as the spec and query readers do ("cannot read: No such file or directory"):
# the nccl-tests importer and xp reclassify --rules said only "cannot read the file".
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
mkdir "$tmp/dir"

one_line "nccl-tests: missing log" 2 "$tmp/none.log: cannot read: No such file or directory" \
  "$XP" --db "$db" import nccl-tests "$tmp/none.log"
one_line "nccl-tests: a folder" 2 "$tmp/dir: cannot read: Is a directory" \
  "$XP" --db "$db" import nccl-tests "$tmp/dir"
one_line "torch-trace: a folder" 2 "$tmp/dir: cannot read: Is a directory" \
  "$XP" --db "$db" import torch-trace "$tmp/dir"
one_line "torch-trace: missing trace" 2 "$tmp/none.json: cannot read: No such file or directory" \
  "$XP" --db "$db" import torch-trace "$tmp/none.json"
one_line "reclassify: missing rules" 2 "$tmp/none.tsv: cannot read the rules file: No such file or directory" \
  "$XP" --db "$db" reclassify --rules "$tmp/none.tsv"
# the readers that already said why, held to it
one_line "run: missing spec" 2 "$tmp/none.toml: cannot read: No such file or directory" \
  "$XP" --db "$db" run "$tmp/none.toml"
one_line "query: missing file" 2 "$tmp/none.sql: cannot read: No such file or directory" \
  "$XP" --db "$db" query "$tmp/none.sql"
one_line "vllm-bench: missing result" 2 "$tmp/none.json: cannot read: No such file or directory" \
  "$XP" --db "$db" import vllm-bench "$tmp/none.json"
finish
