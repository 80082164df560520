#!/usr/bin/env bash
# The commands experiments/*.toml's comments give, run as written from the source tree: each
# `xp run SPEC` plans (--dry-run), and each `xp query FILE --param ...` has every parameter its
# query needs (on a database of one nccl-tests run, where the answer may be empty).
set -u
. "$XP_SRC/tests/lib.sh"
cd "$XP_SRC" || exit 1
"$XP" --db "$db" import nccl-tests tests/data/nccl/nccltests_graph.txt > /dev/null 2>&1
check "a database to query" 0 $?
n=0
for spec in experiments/*.toml; do
  # "#   xp query FILE --param k=v   (a note)": the words after xp, up to a parenthesis
  while read -r -a words; do
    [ "${words[0]}" = run ] && words+=(--dry-run)
    "$XP" --db "$db" "${words[@]}" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    check "$spec: xp ${words[*]}: exit ($(head -1 "$tmp/err"))" 0 $rc
    n=$((n + 1))
  done < <(sed -n 's/^#[[:space:]]*xp \(run\|query\) \([^(]*\).*/\1 \2/p' "$spec")
done
check "commands found (every run and query line of experiments/)" 14 "$n"
finish
