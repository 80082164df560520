#!/usr/bin/env bash
# Installs the Debian packages xp needs that are missing (nothing when all are present).
# Usage: cmake/install-deps.sh [--test]   (--test adds what the test suite needs)
set -euo pipefail
pkgs=(build-essential cmake pkg-config libsqlite3-dev zlib1g-dev libcjson-dev libtomlplusplus-dev
      libssl-dev libisal-dev)
if [ "${1:-}" = "--test" ]; then
  # sqlite3: tests tamper with databases; clang + compiler-rt: libFuzzer targets and sanitizers;
  # chromium: the HTML report is loaded in a headless browser; isal: igzip for the trace bench.
  pkgs+=(sqlite3 clang libclang-rt-14-dev chromium isal)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "xp: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi
