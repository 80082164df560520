#!/usr/bin/env bash
# The whole test suite, from a fresh clone: installs what is missing, builds (with CUDA where
# nvcc is found, so GPU code is compiled and linked; GPU tests skip without a GPU), runs ctest,
# then the same suite under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake/install-deps.sh --test
jobs=$(nproc)
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
if [ -f tests/reliability/sanitize.sh ]; then
  bash tests/reliability/sanitize.sh
fi
