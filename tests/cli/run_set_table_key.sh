#!/usr/bin/env bash
# --set TABLE.KEY=VALUE sets one key of a spec's table (nccl_burst's size_range and env), its
# other keys kept: "--set size_range.max=1M" said "unknown key for nccl_burst", and a table could
# not be given on the command line at all. A bad value is the command line's (no spec line), and
# a table given whole says how to set it. No GPU: --dry-run.
set -u
. "$XP_SRC/tests/lib.sh"
# the dry run names where each NCCL variable came from: xp's own default only where the
# environment sets none (a GPU host's shell often exports NCCL_NVLS_ENABLE=0 itself)
unset NCCL_NVLS_ENABLE
spec="$tmp/a spec.toml"
cp "$XP_SRC/experiments/allreduce_burst.toml" "$spec"
grep -q '^size_range = { min = 8, max = "256M", factor = 2 }$' "$spec" || { echo "FAIL: the spec's size_range changed"; fail=1; }
"$XP" --db "$db" run "$spec" --dry-run > "$tmp/out" 2> "$tmp/err"
check "as written: exit" 0 $?
check "as written: 8 B to 256 MiB and 14336" "nccl_burst: 1 collective x 1 dtype x 27 sizes x 2 modes x 1 placement = 54 cases" "$(grep "^nccl_burst:" "$tmp/out")"
"$XP" --db "$db" run "$spec" --set size_range.max=1K --dry-run > "$tmp/out" 2> "$tmp/err"
check "size_range.max: exit" 0 $?
check "size_range.max: 8 B to 1 KiB (min and factor kept) and 14336" \
  "nccl_burst: 1 collective x 1 dtype x 9 sizes x 2 modes x 1 placement = 18 cases" "$(grep "^nccl_burst:" "$tmp/out")"
# the plan says where each variable came from: the spec's env, or the command line (it said "spec")
printf '[env]\nNCCL_PROTO = "Simple"\n' >> "$spec"
"$XP" --db "$db" run "$spec" --set env.NCCL_ALGO=Ring --dry-run > "$tmp/out" 2> "$tmp/err"
check "env.NCCL_ALGO: exit" 0 $?
check "env.NCCL_ALGO: the spec's kept, both named" "env:      NCCL_PROTO=Simple (spec), NCCL_ALGO=Ring (--set), NCCL_NVLS_ENABLE=0 (xp default: NVLink multicast stays off)" \
  "$(grep '^env:' "$tmp/out")"
one_line "a bad value" 2 "<command line>: --set size_range.factor: expected a number greater than 1$" \
  "$XP" --db "$db" run "$spec" --set size_range.factor=0.5 --dry-run
one_line "a key the table lacks" 2 "<command line>: --set size_range.maxx: unknown key (size_range takes min, max and factor)$" \
  "$XP" --db "$db" run "$spec" --set size_range.maxx=1K --dry-run
one_line "a table whole" 2 "<command line>: --set env: a table: set one key of it at a time (--set env.KEY=VALUE)$" \
  "$XP" --db "$db" run "$spec" --set 'env={NCCL_ALGO="Ring"}' --dry-run
one_line "a key under a value" 2 "<command line>: --set burst.x: burst is no table: give it whole (--set burst=VALUE)$" \
  "$XP" --db "$db" run "$spec" --set burst.x=1 --dry-run
# no key after the dot ($KEY unset): it said "env is no table: give it whole", of a table
for t in env size_range; do
  one_line "$t. with no key" 2 "<command line>: --set $t\.: no key after the dot (--set $t\.KEY=VALUE)$" \
    "$XP" --db "$db" run "$spec" --set "$t.=x" --dry-run
done
one_line "a key under a list of tables" 2 "<command line>: --set shapes.n: shapes is a list of tables, which cannot be set from the command line$" \
  "$XP" --db "$db" run "$XP_SRC/experiments/gemm_kimi_k25_tp8.toml" --set shapes.n=1 --dry-run
# kind, a key of every spec, was "unknown key for nccl_burst"; an import's kind is its format's
one_line "--set kind" 2 "<command line>: --set kind: a spec's kind is not set from the command line (each kind has keys of its own: give a spec of the other kind, or import its format)$" \
  "$XP" --db "$db" run "$spec" --set kind=gemm --dry-run
one_line "import --set kind" 2 "<command line>: --set kind: a spec's kind is not set from the command line (each kind has keys of its own: give a spec of the other kind, or import its format)$" \
  "$XP" --db "$db" import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" --set kind=nccl_tests
check "nothing recorded" 0 "$(sqlite3 "$db" 'SELECT count(*) FROM runs' 2> /dev/null || echo 0)"
finish
