# Shared by the reliability scripts: where the tools are, a scratch folder, and failing loudly.
# Sourced, not run. Needs XP (the xp binary); XP_BUILD defaults to the folder holding xp.
: "${XP:?XP must name the xp binary}"
XP_BUILD=${XP_BUILD:-$(dirname "$XP")}
# The recorder driver: tests/unit/test_reliability.c (record / hold / check).
PROBE=$XP_BUILD/tests/test_reliability
[ -x "$PROBE" ] || { echo "reliability: $PROBE is not built (build the test_reliability target)" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/xp-rel.XXXXXX")
cleanup() {
  # Only the children this script started, by id.
  for p in $(jobs -p); do kill -9 "$p" 2>/dev/null; done
  wait 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }

# Lines of stderr that are not xp's own "run UUID ok" progress notes.
unexpected_stderr() { grep -v -E '^xp: run [0-9a-f-]{36} ok$' "$@" || true; }

# Seconds as a decimal from a random 16-bit number scaled into [lo, hi) milliseconds.
random_ms() { echo $(( $1 + (RANDOM * 32768 + RANDOM) % ($2 - $1) )); }
sleep_ms() { sleep "$(printf '%d.%03d' $(( $1 / 1000 )) $(( $1 % 1000 )))"; }
