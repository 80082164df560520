#!/bin/bash
# The whole test suite again, built with AddressSanitizer and UndefinedBehaviorSanitizer
# (XP_SANITIZE=ON), CUDA off. With clang, the same build also has the libFuzzer targets
# (XP_FUZZ=ON), whose short runs over the committed seed corpora are tests too (fuzz.*, 20 s
# each, XP_FUZZ_SECONDS to change); without clang, gcc builds the rest and says so.
# Usage: tests/reliability/sanitize.sh [BUILD_DIR]   (default build-asan, beside build/)
# Called by tests/run.sh after the plain suite.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=${1:-build-asan}
jobs=$(nproc)
fuzz=(-DXP_FUZZ=OFF)
compilers=()
if command -v clang >/dev/null && command -v clang++ >/dev/null &&
   echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return 0; }' |
     clang -x c -fsanitize=fuzzer,address - -o /dev/null 2>/dev/null; then
  compilers=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
  fuzz=(-DXP_FUZZ=ON)
else
  echo "sanitize: clang with libFuzzer not found: sanitizers with the default compiler, no fuzzing" >&2
fi
# A build directory configured with another compiler cannot be switched: start it afresh.
if [ -f "$dir/CMakeCache.txt" ] && [ ${#compilers[@]} -gt 0 ] && ! grep -q 'CMAKE_C_COMPILER:.*clang' "$dir/CMakeCache.txt"; then
  rm -rf "$dir"
fi
cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DXP_SANITIZE=ON -DXP_CUDA=OFF \
  "${compilers[@]}" "${fuzz[@]}" >/dev/null
cmake --build "$dir" -j"$jobs"
# Leaks count; the first report of undefined behaviour or a memory error fails the process.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:check_initialization_order=1:strict_string_checks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$dir" --output-on-failure -j"$jobs"
