# Shared by the shell tests: `. "$XP_SRC/tests/lib.sh"` gives a temporary folder ($tmp, removed
# on exit), a database path ($db), check/query helpers and a GPU guard. Tests end with
# `finish`, which exits 1 if any check failed.
: "${XP:?XP must name the xp binary}" "${XP_SRC:?XP_SRC must name the source tree}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
db="$tmp/x.db"
fail=0
check() { # check DESCRIPTION EXPECTED ACTUAL
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1: expected [$2], got [$3]"
    fail=1
  fi
}
query() { # query SQL [--param ...]: CSV rows without the header, from $db
  printf '%s\n' "$1" > "$tmp/q.sql"
  shift
  "$XP" --db "$db" query "$tmp/q.sql" --format csv "$@" | tail -n +2
}
sql() { # sql SQL: the first row only (CSV), from $db
  printf '%s;\n' "$1" > "$tmp/q.sql"
  "$XP" --db "$db" query "$tmp/q.sql" --format csv | sed -n 2p
}
schema_views() { # schema_views DB: every view's SQL and the schema version, to compare databases
  sqlite3 "$1" "SELECT name || ': ' || sql FROM sqlite_schema WHERE type = 'view' ORDER BY name; PRAGMA user_version"
}
one_line() { # one_line DESCRIPTION EXPECTED_EXIT PATTERN CMD...: one "xp: " line on stderr
  local what=$1 code=$2 pat=$3
  shift 3
  "$@" > /dev/null 2> "$tmp/err"
  check "$what: exit" "$code" $?
  check "$what: stderr lines" 1 "$(wc -l < "$tmp/err")"
  grep -q "^xp: .*$pat" "$tmp/err" || { echo "FAIL: $what: stderr [$(cat "$tmp/err")] lacks [$pat]"; fail=1; }
}
need_gpus() { # need_gpus N: skip (77) unless N GPUs are visible; $ngpu is how many are
  ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
  if [ "$ngpu" -lt "$1" ]; then
    echo "skipped: needs $1 GPU(s), nvidia-smi -L finds $ngpu"
    exit 77
  fi
}
gpu_run() { # gpu_run SPEC: xp run SPEC into $db ($tmp/out, $tmp/err); skip (77) when this
  # xp was built without CUDA; else its exit status
  "$XP" --db "$db" run "$1" > "$tmp/out" 2> "$tmp/err"
  local rc=$?
  if [ $rc = 4 ] && grep -q 'built without CUDA' "$tmp/err"; then
    echo "skipped: this xp was built without CUDA"
    exit 77
  fi
  return $rc
}
gpu_run_ok() { # gpu_run_ok SPEC WHAT: gpu_run SPEC, print its output, check WHAT exited 0
  # (its stderr shown when not)
  gpu_run "$1"
  local rc=$?
  cat "$tmp/out"
  check "$2" 0 $rc
  [ $rc = 0 ] || cat "$tmp/err"
}
figures_of() { # figures_of DB: every case's figures (CSV), to compare two imports of one input
  printf '%s\n' "SELECT c.name, m.name, m.n, m.median FROM cases c JOIN metrics m ON m.case_id = c.id
                 ORDER BY c.seq, m.name;" > "$tmp/figures.sql"
  "$XP" --db "$1" query "$tmp/figures.sql" --format csv
}
finish() {
  [ "$fail" = 0 ] && echo "ok"
  exit "$fail"
}

# ---- the history tests (tests/cli/history_*.sh, set -e): the first failure ends the test ----
die() { echo "FAIL: $*" >&2; exit 1; }
xp_sanitized() { # true when $XP is built with AddressSanitizer (XP_SANITIZE), whose shadow memory
  # and allocator need far more than a small ulimit -d leaves: checks of memory limits skip there
  ASAN_OPTIONS=help=1 "$XP" version 2>&1 | grep -q "flags for AddressSanitizer"
}
need_sqlite3() { # the sqlite3 CLI, to look under xp
  command -v sqlite3 > /dev/null || { echo "skipped: the sqlite3 CLI is missing (cmake/install-deps.sh --test)"; exit 77; }
}
refused6() { # refused6 PATTERN ARGS...: xp on $tmp/schema6.db (a schema 6 database
  # the history tests make) refuses ARGS, exit 2, in one line holding PATTERN
  local pat=$1
  shift
  "$XP" --db "$tmp/schema6.db" "$@" > /dev/null 2> "$tmp/err" && rc=0 || rc=$?
  expect_rc 2; has "$pat" "$tmp/err"
  [ "$(wc -l < "$tmp/err")" = 1 ] || die "$*: one line expected: $(cat "$tmp/err")"
}
need_test_report() { # skip (77) unless tests/test_report (it lays out report runs) and sqlite3 are here
  if [ ! -x "${XP_BUILD:-}/tests/test_report" ] || ! command -v sqlite3 > /dev/null; then
    echo "skipped: needs ${XP_BUILD:-}/tests/test_report and the sqlite3 CLI"
    exit 77
  fi
}
trace_figures() { # every figure per rank of $db's torch-trace imports (not the files' names)
  query "SELECT 'rank', rank, rank_source, kernels, memcpys, cpu_ops, linked_kernels, device, world_size, busy_ns, kernel_ns, gpu_start_ns, gpu_end_ns FROM trace_ranks ORDER BY rank"
  query "SELECT 'step', rank, step, number, start_ns, wall_ns, kernels, kernel_ns, busy_ns FROM trace_steps ORDER BY rank, step"
  query "SELECT 'coll', rank, seq, collective, step, start_ns, dur_ns, match_group, wait_ns, transfer_ns FROM trace_collectives ORDER BY rank, seq"
  query "SELECT 'kernels', k.rank, n.name, k.count, k.total_ns FROM trace_kernel_stats k JOIN trace_names n ON n.id = k.name_id ORDER BY 2, 3"
}
sample_job() { # sample_job HOURS SCALE OUT [GPU]: tests/data/trace's two-rank sample recorded
  # HOURS later (another job), its kernels SCALE times as long (another workload: each starts no
  # earlier than the one before it on its stream ends, as a stream runs them; xp clips an activity
  # that outlasts the next one), its devices named GPU where given, as OUT-r0.json.gz and OUT-r1.json.gz
  for r in 0 1; do
    python3 - "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank$r.trace.json.gz" "$1" "$2" "$3-r$r.json.gz" "${4:-}" <<'PY'
import gzip, json, sys
t = json.load(gzip.open(sys.argv[1]))
t["baseTimeNanoseconds"] += 3600 * int(sys.argv[2]) * 10**9
if float(sys.argv[3]) != 1:
    gpu = sorted((e for e in t["traceEvents"] if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")),
                 key=lambda e: (e["pid"], e["tid"], e["ts"]))
    end = {}
    for e in gpu:
        if e["cat"] == "kernel":
            e["dur"] = round(e["dur"] * float(sys.argv[3]), 3)
        lane = (e["pid"], e["tid"])
        e["ts"] = round(max(e["ts"], end.get(lane, e["ts"])), 3)
        end[lane] = e["ts"] + e["dur"]
for d in t["deviceProperties"] if sys.argv[5] else []:
    d["name"] = sys.argv[5]
json.dump(t, gzip.open(sys.argv[4], "wt"))
PY
  done
}
import_vllm() { # import_vllm DB FILE [ARGS]: xp import vllm-bench into DB; the new run's id prefix on stdout
  local d=$1
  shift
  "$XP" --db "$d" import vllm-bench "$@" > /dev/null 2> "$tmp/imperr" || { echo "FAIL: import $*: $(cat "$tmp/imperr")" >&2; fail=1; }
  db="$d" sql "SELECT substr(uuid, 1, 8) FROM runs ORDER BY id DESC LIMIT 1"
}

need_probe() { # $PROBE: records runs of a kind that xp lacks (tests/unit/history_probe.h)
  PROBE="${XP_BUILD:?XP_BUILD must name the build tree}/tests/test_history_chain"
  [ -x "$PROBE" ] || die "$PROBE is missing (build the tests)"
}
record() { # record KEY=VALUE...: a probe run in $db; prints its UUID
  { "$PROBE" record "$db" "$@" 2> /dev/null || true; } | tail -1
}
run() { # run ARGS...: xp on $db, into $tmp/out, $tmp/err and $rc
  "$XP" --db "$db" "$@" > "$tmp/out" 2> "$tmp/err" && rc=0 || rc=$?
}
expect_rc() { [ "$rc" -eq "$1" ] || die "expected exit $1, got $rc: $(cat "$tmp/out" "$tmp/err")"; }
has() { grep -qF -- "$1" "${2:-$tmp/out}" || die "expected '$1' in: $(cat "${2:-$tmp/out}")"; }
hasnt() { ! grep -qF -- "$1" "${2:-$tmp/out}" || die "did not expect '$1' in: $(cat "${2:-$tmp/out}")"; }
need_chromium() { # need_chromium: skip (77) unless a headless Chromium is installed; $browser is it
  browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
  if [ -z "$browser" ]; then
    echo "skipped: no chromium (apt-get install chromium)"
    exit 77
  fi
}
dom() { # dom FILE.html: the page's DOM once its scripts ran, in headless Chromium (need_chromium)
  timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
    --user-data-dir="$tmp/profile" --virtual-time-budget=5000 --dump-dom "file://$1" 2> "$tmp/browser.err"
}
sglang_variants() { # $v: tests/data/trace/variants, whose SGLang TP 2 pair the trace tests build on;
  # imp FILES...: xp import torch-trace FILES into $db with SGLang's step annotation ($steps,
  # which a test may empty), into $tmp/out and $tmp/err
  v="$XP_SRC/tests/data/trace/variants"
  steps=(--step-annotation 'step[*')
  imp() { "$XP" --db "$db" import torch-trace "$@" "${steps[@]}" > "$tmp/out" 2> "$tmp/err"; }
}
