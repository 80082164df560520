#!/usr/bin/env bash
# MoE layer cases rotate past L2 as the GEMM cases do: a layer whose weights are smaller than
# rotate_mib is copied until the copies span it (and until a routing meets the same copy
# only after the other launches have read rotate_mib), each launch reading another copy; a
# layer larger than rotate_mib keeps one copy. Every copy's case still passes the gate, the
# read floor reads the same copies, and rotation_copies is recorded with each case.
#   small: 8 experts of hidden 2048 x 256, 6.2 MiB of INT4 (24 MiB bf16) < 64 MiB
#   large: 64 experts of hidden 7168 x 256, 173 MiB of INT4 > 64 MiB
set -u
. "$XP_SRC/tests/lib.sh"
need_gpus 1
cat > "$tmp/rot.toml" <<'TOML'
kind = "kernel_variant"
family = "w4a16"
variants = ["grouped_moe", "grouped_moe_pdl", "cublas_bf16_per_expert"]
m = [1, 4]
group_sizes = [128]
samples = 5
warmup = 2
routings = 16
rotate_mib = 64
ceilings = "measure"
shapes = [{name = "small", type = "moe", hidden = 2048, intermediate = 256, experts = 8, topk = 2},
          {name = "large", type = "moe", hidden = 7168, intermediate = 256, experts = 64, topk = 8}]
TOML

gpu_run_ok "$tmp/rot.toml" "kernel_variant run"

moe="name NOT LIKE 'ceiling.%'"
p() { echo "coalesce(json_extract(params, '\$.$1'), 0)"; } # absent reads 0: fails the checks
check "failed cases" "" "$(query "SELECT name || ': ' || note FROM cases WHERE status = 'failed'")"
check "cases measured (2 shapes x 2 m x 3 variants)" 12 "$(query "SELECT count(*) FROM cases WHERE status = 'ok' AND $moe")"
check "errors within the tolerance" 0 "$(query "SELECT count(*) FROM cases c LEFT JOIN metrics m ON m.case_id = c.id
  AND m.name = 'max_err' WHERE c.status = 'ok' AND c.$moe AND NOT (m.median <= 0.01)")"

# 1. The small layer: several copies (INT4 and bf16 alike), spanning 64 MiB; a graph holds a
# whole number of rounds of both the copies and the routings.
check "small: copies > 1" 0 "$(query "SELECT count(*) FROM cases WHERE $moe AND $(p shape) = 'small'
  AND NOT ($(p rotation_copies) > 1)")"
check "small: copies span rotate_mib" 0 "$(query "SELECT count(*) FROM cases WHERE $moe AND $(p shape) = 'small'
  AND NOT ($(p rotation_bytes) >= 64 * 1048576)")"
check "small: launches per graph a multiple of copies and routings" 0 "$(query "SELECT count(*) FROM cases
  WHERE $moe AND $(p shape) = 'small' AND NOT ($(p rotation_copies) > 0 AND $(p routings) > 0
  AND $(p launches_per_graph) % $(p rotation_copies) = 0
  AND $(p launches_per_graph) % $(p routings) = 0 AND $(p launches_per_graph) >= $(p rotation_copies))")"
# 11 copies span 64 MiB (16: a divisor of the routings), but routing r would meet copy c again after
# 15 launches of 2 experts (1.5 MiB each, 23 MiB in all): 48 copies
# (kernel_variant.h, xp_kv_moe_copies; tests/unit/test_kv_rotation.c counts it without a GPU).
check "small: grouped copies" "48" "$(query "SELECT DISTINCT $(p rotation_copies) FROM cases
  WHERE $moe AND $(p shape) = 'small' AND $(p variant) LIKE 'grouped_moe%'")"
check "small: bf16 copies" "4" "$(query "SELECT DISTINCT $(p rotation_copies) FROM cases
  WHERE $moe AND $(p shape) = 'small' AND $(p variant) = 'cublas_bf16_per_expert'")"

# 2. The large layer: one copy, as before (16 routings of 8 experts spread the reads over it).
check "large: one copy" "1" "$(query "SELECT DISTINCT $(p rotation_copies) FROM cases WHERE $moe AND $(p shape) = 'large'")"
check "large: graph of the routings" "16" "$(query "SELECT DISTINCT $(p launches_per_graph) FROM cases
  WHERE $moe AND $(p shape) = 'large'")"
check "large: the copy spans rotate_mib" 0 "$(query "SELECT count(*) FROM cases WHERE $moe AND $(p shape) = 'large'
  AND NOT ($(p rotation_bytes) >= 64 * 1048576)")"

# 3. Every copy the rotation asked for fitted (nothing to own up to here).
check "no shortfall recorded" 0 "$(query "SELECT count(*) FROM cases WHERE json_extract(params, '\$.rotation_copies_wanted') IS NOT NULL")"

# 4. The grouped cases' floors, read and launch, timed over the same rotation.
check "read and launch floors" 0 "$(query "SELECT count(*) FROM cases c
  LEFT JOIN metrics r ON r.case_id = c.id AND r.name = 'read_floor_us' AND r.n = 5 AND r.min > 0
  LEFT JOIN metrics l ON l.case_id = c.id AND l.name = 'launch_floor_us' AND l.n = 5 AND l.min > 0
  WHERE c.status = 'ok' AND json_extract(c.params, '\$.variant') LIKE 'grouped_moe%'
    AND (r.case_id IS NULL OR l.case_id IS NULL)")"

finish
