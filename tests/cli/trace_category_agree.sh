#!/usr/bin/env bash
# One kernel, one category, in every section and query. A collective kernel's category is the
# collective its args name ("Collective name") when its name's category is a communication one,
# else its name's: since NCCL 2.19 a kernel's name does not say what it ran (NVIDIA/nccl#2196).
# xp show's heaviest kernels once read the name's category alone while the step totals took
# the args', and an import kept the args only for names the rules of the day called
# communication, so a later xp reclassify could not give them back.
set -u
. "$XP_SRC/tests/lib.sh"
sample="$XP_SRC/tests/data/trace/decode_tp2_bs1_rank0.trace.json.gz"
nccl='ncclDevKernel_AllReduce_Sum_bf16_RING_LL'

# Rules A file every NCCL kernel as generic "communication"; rules B know no NCCL at all.
printf 'category\tallreduce\tcommunication\ncategory\tcommunication\tcommunication\ncategory\tother\tother\n' > "$tmp/B.tsv"
{ cat "$tmp/B.tsv"; printf 'rule\tcommunication\tprefix\tnccl\n'; } > "$tmp/A.tsv"

# categories DB: the sample's categories as the step totals, the per-rank totals and xp show's
# heaviest kernels give them, each "category=kernels" and sorted
categories() {
  local d=$1 run
  run=$("$XP" --db "$d" runs --format csv | sed -n 2p | cut -d, -f1)
  printf 'SELECT category || '"'"'='"'"' || sum(count) FROM trace_step_categories GROUP BY category ORDER BY 1;\n' > "$tmp/q.sql"
  echo "steps: $("$XP" --db "$d" query "$tmp/q.sql" --format csv | tail -n +2 | tr '\n' ' ')"
  printf 'SELECT category || '"'"'='"'"' || sum(count) FROM trace_category_totals GROUP BY category ORDER BY 1;\n' > "$tmp/q.sql"
  echo "ranks: $("$XP" --db "$d" query "$tmp/q.sql" --format csv | tail -n +2 | tr '\n' ' ')"
  echo "show nccl: $("$XP" --db "$d" show "$run" | sed -n '/== trace: heaviest kernels/,$p' | grep "$nccl" | awk '{print $1 "=" $3}')"
}

# 1. Imported under the built-in rules, then reclassified with A: the NCCL kernel is an
# all-reduce everywhere (its args say so), xp show included.
"$XP" --db "$db" import torch-trace "$sample" > /dev/null 2>&1
check "import" 0 $?
"$XP" --db "$db" reclassify --rules "$tmp/A.tsv" > /dev/null 2>&1
check "reclassify A" 0 $?
categories "$db" > "$tmp/a"
check "after reclassify" "steps: allreduce=256 other=5056 
ranks: allreduce=256 other=5056 
show nccl: allreduce=256" "$(cat "$tmp/a")"

# 2. Imported while B was in force (NCCL kernels "other"), then reclassified with A: the same
# answer as an import under A, since the trace's args were kept.
db2="$tmp/y.db"
"$XP" --db "$db2" reclassify --rules "$tmp/B.tsv" > /dev/null 2>&1
"$XP" --db "$db2" import torch-trace "$sample" > /dev/null 2>&1
check "import under B" 0 $?
"$XP" --db "$db2" reclassify --rules "$tmp/A.tsv" > /dev/null 2>&1
check "imported under B, then A" "$(cat "$tmp/a")" "$(categories "$db2")"
db3="$tmp/z.db"
"$XP" --db "$db3" reclassify --rules "$tmp/A.tsv" > /dev/null 2>&1
"$XP" --db "$db3" import torch-trace "$sample" > /dev/null 2>&1
check "imported under A" "$(cat "$tmp/a")" "$(categories "$db3")"

# 3. A kernel without collective args is a collective by its name's category: imported while
# rules C called one GEMM an all-reduce, then reclassified with the built-in rules, it is a
# GEMM in the collectives too (xp show's "collectives in steps"), not only in the step totals.
rules="$XP_SRC/importers/torch_trace/categories.tsv"
{ grep '^category' "$rules"; printf 'rule\tallreduce\tprefix\tnvjet_sm90_tst_64x8_64x16_4x1\n'; grep '^rule' "$rules"; } > "$tmp/C.tsv"
db4="$tmp/w.db"
"$XP" --db "$db4" reclassify --rules "$tmp/C.tsv" > /dev/null 2>&1
"$XP" --db "$db4" import torch-trace "$sample" > /dev/null 2>&1
check "import under C" 0 $?
"$XP" --db "$db4" reclassify > /dev/null 2>&1
printf "SELECT (SELECT sum(count) FROM trace_step_categories WHERE category = 'allreduce') || '|' ||\n" > "$tmp/q.sql"
printf "       (SELECT sum(kernels) FROM trace_step_collectives WHERE collective = 'allreduce') || '|' ||\n" >> "$tmp/q.sql"
printf "       (SELECT count(*) FROM trace_step_collectives WHERE collective = 'gemm') AS agree;\n" >> "$tmp/q.sql"
check "all-reduces in the step totals and the collectives, then collectives filed as GEMM" "256|256|0" \
  "$("$XP" --db "$db4" query "$tmp/q.sql" --format csv | sed -n 2p)"
finish
