#!/usr/bin/env bash
# nccl_burst specs without a GPU: --dry-run plans of the two experiments, a per-process plan
# under launcher variables, and bad specs answered with one located line and exit 2.
set -u
. "$XP_SRC/tests/lib.sh"
unset RANK WORLD_SIZE LOCAL_RANK OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE PMI_RANK PMI_SIZE \
      SLURM_PROCID SLURM_NTASKS XP_RENDEZVOUS NCCL_NVLS_ENABLE

"$XP" --db "$db" run --dry-run "$XP_SRC/experiments/allreduce_burst.toml" > "$tmp/plan" 2> "$tmp/err"
check "allreduce_burst dry run exit" 0 $?
grep -q '= 54 cases' "$tmp/plan" || { echo "FAIL: 27 sizes x 2 modes"; cat "$tmp/plan"; fail=1; }
# one case is said in the singular (was "= 1 cases")
printf 'kind = "nccl_burst"\nsizes = [14336]\n' > "$tmp/one.toml"
"$XP" run --dry-run "$tmp/one.toml" > "$tmp/one" 2>&1
grep -q ' = 1 case$' "$tmp/one" || { echo "FAIL: one case in the singular"; cat "$tmp/one"; fail=1; }
grep -q 'burst of 122 collectives per sample' "$tmp/plan" || { echo "FAIL: burst line"; fail=1; }
grep -qE '^allreduce +bf16 +14336 +graph +out_of_place' "$tmp/plan" || { echo "FAIL: 14336 graph case"; fail=1; }
grep -qE '^allreduce +bf16 +268435456 +eager +out_of_place' "$tmp/plan" || { echo "FAIL: 256 MiB case"; fail=1; }
grep -q 'NCCL_NVLS_ENABLE=0 (xp default' "$tmp/plan" || { echo "FAIL: NVLS off by default"; fail=1; }
check "dry run records nothing" 0 "$(ls "$db" 2>/dev/null | wc -l)"

"$XP" run --dry-run "$XP_SRC/experiments/allreduce_burst_pcie_emul.toml" --set gpus=0,1 > "$tmp/plan" 2> "$tmp/err"
check "pcie emulation dry run exit" 0 $?
grep -q 'NCCL_P2P_DISABLE=1 (spec)' "$tmp/plan" || { echo "FAIL: P2P disabled in plan"; cat "$tmp/plan"; fail=1; }
grep -qE '^allreduce +bf16 +14336 +eager +out_of_place +7168$' "$tmp/plan" || { echo "FAIL: count per call"; fail=1; }

# A user's own NCCL_NVLS_ENABLE is respected and said so.
NCCL_NVLS_ENABLE=1 "$XP" run --dry-run "$XP_SRC/experiments/allreduce_burst_pcie_emul.toml" > "$tmp/plan" 2>&1
grep -q 'NCCL_NVLS_ENABLE=1 (environment)' "$tmp/plan" || { echo "FAIL: user NVLS setting"; fail=1; }

# One process per GPU under a launcher: rank and size from its variables.
cat > "$tmp/pp.toml" <<EOF
kind = "nccl_burst"
collectives = ["allgather", "alltoall"]
dtypes = ["fp32"]
sizes = ["1M"]
placements = ["out_of_place", "in_place"]
rendezvous = "$tmp/rdv"
EOF
RANK=1 WORLD_SIZE=4 LOCAL_RANK=1 "$XP" run --dry-run "$tmp/pp.toml" > "$tmp/plan" 2> "$tmp/err"
check "per-process dry run exit" 0 $?
grep -q 'rank 1 of 4 (from RANK/WORLD_SIZE), local rank 1' "$tmp/plan" || { echo "FAIL: rank line"; cat "$tmp/plan"; fail=1; }
grep -qE '^allgather +fp32 +1048576 +eager +out_of_place +65536$' "$tmp/plan" || { echo "FAIL: allgather count"; fail=1; }
grep -qE '^alltoall +fp32 +1048576 +eager +out_of_place +65536 per peer$' "$tmp/plan" || { echo "FAIL: alltoall count"; fail=1; }
grep -q 'alltoall has no in-place form' "$tmp/plan" || { echo "FAIL: alltoall in place skipped"; fail=1; }
OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=3 "$XP" run --dry-run "$tmp/pp.toml" > "$tmp/plan" 2> "$tmp/err"
check "1M of fp32 over 3 ranks" 2 $?
grep -q 'pp.toml:4: sizes\[0\]: 1048576 bytes of fp32 do not split into whole elements for allgather over 3 ranks' "$tmp/err" ||
  { echo "FAIL: divisibility message"; cat "$tmp/err"; fail=1; }
# At 4096 ranks an fp8 e5m2 all-reduce's check has 5 of them contribute to each element:
# 512 elements leave 1536 ranks out of it, which the plan says; from 820 elements every rank is in.
cat > "$tmp/big.toml" <<EOF
kind = "nccl_burst"
dtypes = ["fp8_e5m2"]
sizes = [512, 1024]
rendezvous = "$tmp/rdv"
EOF
RANK=0 WORLD_SIZE=4096 LOCAL_RANK=0 "$XP" run --dry-run "$tmp/big.toml" > "$tmp/plan" 2> "$tmp/err"
check "4096-rank dry run exit" 0 $?
grep -qE '^allreduce +fp8_e5m2 +512 +eager +out_of_place +512; checked partly \(every rank.s fault shows from 820\)$' \
  "$tmp/plan" || { echo "FAIL: partial check at 512 elements"; cat "$tmp/plan"; fail=1; }
grep -qE '^allreduce +fp8_e5m2 +1024 +eager +out_of_place +1024$' "$tmp/plan" || { echo "FAIL: full check at 1024"; fail=1; }
RANK=0 "$XP" run --dry-run "$tmp/pp.toml" > "$tmp/plan" 2> "$tmp/err"
check "RANK without WORLD_SIZE" 2 $?
grep -q 'RANK is set but WORLD_SIZE is not' "$tmp/err" || { echo "FAIL: half a launcher"; cat "$tmp/err"; fail=1; }
# A launcher's process drives gpus[LOCAL_RANK]: one past the list has no device, said by the dry
# run as by the run (which found it only once recorded, a failed run).
printf 'kind = "nccl_burst"\nsizes = ["1M"]\ngpus = [0, 1]\nrendezvous = "%s"\n' "$tmp/rdv" > "$tmp/two.toml"
RANK=2 WORLD_SIZE=4 LOCAL_RANK=2 "$XP" run --dry-run "$tmp/two.toml" > "$tmp/plan" 2> "$tmp/err"
check "local rank past the gpus list" 2 $?
check "local rank past the gpus list: the error" "xp: $tmp/two.toml:3: gpus: local rank 2 has no device: 2 listed" "$(cat "$tmp/err")"
check "local rank past the gpus list: no plan" "" "$(cat "$tmp/plan")"

# Bad specs: exit 2, one line naming file, line and key.
expect_bad() { # expect_bad NAME PATTERN SPEC-TEXT
  printf '%s\n' "$3" > "$tmp/$1.toml"
  "$XP" --db "$db" run --dry-run "$tmp/$1.toml" > "$tmp/out" 2> "$tmp/err"
  check "$1: exit status" 2 $?
  grep -q -- "$2" "$tmp/err" || { echo "FAIL: $1: stderr lacks [$2]:"; cat "$tmp/err"; fail=1; }
  check "$1: one line on stderr" 1 "$(wc -l < "$tmp/err")"
}
expect_bad collective 'collective.toml:2: collectives\[1\]: unknown value "allreduse"' \
  "kind = \"nccl_burst\"
collectives = [\"allreduce\", \"allreduse\"]
sizes = [1024]"
expect_bad dtype 'dtype.toml:3: dtypes\[0\]: unknown value "int8"' \
  "kind = \"nccl_burst\"
sizes = [1024]
dtypes = [\"int8\"]"
# its element type's own name labels the run (fp8_e4m3: refused as a label of any other kind)
printf 'kind = "nccl_burst"\nsizes = [1024]\ndtypes = ["fp8_e4m3"]\ndtype = "fp8_e4m3"\n' > "$tmp/e4m3.toml"
"$XP" --db "$db" run --dry-run "$tmp/e4m3.toml" > "$tmp/out" 2> "$tmp/err"
check "dtype fp8_e4m3 labels an nccl_burst run" 0 $?
# nccl-tests' own name (-d bfloat16), as its output's type column prints it
expect_bad dtype_nccl_tests 'dtype_nccl_tests.toml:3: dtypes\[0\]: unknown value "bfloat16": did you mean "bf16"?' \
  "kind = \"nccl_burst\"
sizes = [1024]
dtypes = [\"bfloat16\"]"
expect_bad split 'split.toml:4: sizes\[1\]: 12 bytes of fp32 do not split into whole elements for allgather over 2 ranks (sizes must be multiples of 8 bytes)' \
  "kind = \"nccl_burst\"
collectives = [\"allgather\"]
dtypes = [\"fp32\"]
sizes = [16, 12]
gpus = [0, 1]"
expect_bad odd 'odd.toml:3: sizes\[0\]: 7 bytes of bf16' \
  "kind = \"nccl_burst\"
gpus = [0, 1]
sizes = [7]"
expect_bad range 'range.toml:2: size_range: min (64) is larger than max (8)' \
  "kind = \"nccl_burst\"
size_range = { min = 64, max = 8 }"
expect_bad range_key 'range_key.toml:2: size_range.step: unknown key' \
  "kind = \"nccl_burst\"
size_range = { min = 8, max = 64, step = 8 }"
expect_bad no_sizes 'no_sizes.toml:1: sizes: no message sizes' \
  "kind = \"nccl_burst\""
expect_bad env 'env.toml:3: env.nccl_p2p: not an environment variable name' \
  "kind = \"nccl_burst\"
sizes = [1024]
env = { nccl_p2p = 1 }"
expect_bad env_ours 'env_ours.toml:3: env.NCCL_DEBUG_FILE: xp sets this itself' \
  "kind = \"nccl_burst\"
sizes = [1024]
env = { NCCL_DEBUG_FILE = \"/tmp/x\" }"
expect_bad root 'root.toml:5: root: rank 2 does not exist among 2 ranks' \
  "kind = \"nccl_burst\"
collectives = [\"broadcast\"]
sizes = [1024]
gpus = [0, 1]
root = 2"
expect_bad burst 'burst.toml:3: burst: 0 is out of range' \
  "kind = \"nccl_burst\"
sizes = [1024]
burst = 0"
# a top-level key after the [size_range] header is read into it, as TOML reads it: said so
expect_bad key_after_table 'key_after_table.toml:6: size_range.burst: unknown key (size_range takes min, max and factor): a top-level key' \
  "kind = \"nccl_burst\"
[size_range]
min = 8
max = 64

burst = 122"
expect_bad unknown_key 'unknown_key.toml:3: bursts: unknown key' \
  "kind = \"nccl_burst\"
sizes = [1024]
bursts = 122"

# A declared tp that the listed devices do not give: the run's warning, said by the dry run too,
# where it planned 2 ranks in silence; one that matches says nothing.
printf 'kind = "nccl_burst"\nsizes = [14336]\ntp = 4\ngpus = [0, 1]\n' > "$tmp/tp4.toml"
"$XP" run --dry-run "$tmp/tp4.toml" > /dev/null 2> "$tmp/err"
check "declared tp, other ranks: exit" 0 $?
check "declared tp, other ranks: warning" \
  "xp: warning: tp = 4 is declared, but this run has 2 ranks: list the devices in gpus to measure 4" "$(cat "$tmp/err")"
"$XP" run --dry-run "$tmp/tp4.toml" --set tp=2 > /dev/null 2> "$tmp/err"
check "declared tp, same ranks: no warning" "" "$(cat "$tmp/err")"

# Without a GPU (or without CUDA), running is refused before anything is recorded: exit 4.
if ! nvidia-smi -L > /dev/null 2>&1; then
  "$XP" --db "$db" run "$XP_SRC/experiments/allreduce_burst.toml" > "$tmp/out" 2> "$tmp/err"
  check "no GPU: exit status" 4 $?
  grep -q 'need a GPU' "$tmp/err" || { echo "FAIL: no GPU message"; cat "$tmp/err"; fail=1; }
fi
finish
