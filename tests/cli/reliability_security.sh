#!/bin/bash
# Security: query files can only read (no writes, no ATTACH of other files, no VACUUM INTO, no
# extensions) and leave the database and its folder as they were; specs cannot make xp run
# commands (names and values full of shell syntax, a spec path in a git checkout, and the only
# program xp ever starts is git, without a shell); file paths in a spec resolve against the
# spec's folder, not the current one.
set -u
: "${XP:?}"
SRC=${XP_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
XP_BUILD=${XP_BUILD:-$(dirname "$XP")}
PROBE=$XP_BUILD/tests/test_reliability
WORK=$(mktemp -d "${TMPDIR:-/tmp}/xp-sec.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cd "$WORK"
"$PROBE" record xp.db 3 2 10 >/dev/null 2>&1 || { echo "FAIL: cannot make a database"; exit 1; }

# ---- query files ----
hostile=(
  "UPDATE runs SET status = 'failed';"
  "DELETE FROM samples;"
  "WITH x AS (SELECT 1) DELETE FROM runs;"
  "INSERT INTO runs SELECT * FROM runs;"
  "DROP VIEW run_metrics;"
  "CREATE TABLE t(x);"
  "CREATE TEMP VIEW v AS SELECT 1;"
  "ATTACH 'attached.db' AS a;"
  "ATTACH 'file:attached2.db?mode=rwc' AS a;"
  "VACUUM INTO 'copy.db';"
  "VACUUM;"
  "SELECT load_extension('./evil.so');"
  "SELECT load_extension('/lib/x86_64-linux-gnu/libm.so.6', 'cos');"
  "PRAGMA query_only = 0;"
  "PRAGMA writable_schema = 1;"
  "PRAGMA journal_mode = DELETE;"
  "PRAGMA user_version = 7;"
  "PRAGMA application_id = 1;"
  "PRAGMA wal_checkpoint(TRUNCATE);"
  "REINDEX;"
  "ANALYZE;"
  "SELECT 1; UPDATE runs SET error = 'x';"
)
sha=$(sha256sum < xp.db)
# The -wal and -shm files are the database's own (a read-only connection cannot remove them).
listing() { ls -a | grep -v -E '^xp\.db-(wal|shm)$' | sort | tr '\n' ' '; }
before=$(listing)
refused=0
for sql in "${hostile[@]}"; do
  printf '%s\n' "$sql" > hostile.sql
  "$XP" --db xp.db query hostile.sql >/dev/null 2>err.txt
  rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l < err.txt)" -eq 1 ] && grep -q '^xp: hostile.sql:[0-9]*: ' err.txt; then
    refused=$((refused + 1))
  else
    fail "query not refused (exit $rc): $sql: $(head -2 err.txt)"
  fi
done
rm -f hostile.sql err.txt
[ "$sha" = "$(sha256sum < xp.db)" ] || fail "a query file changed the database"
after=$(listing)
[ "$before" = "$after" ] || fail "query files created files: before [$before] after [$after]"
# What it may do: read, with parameters.
printf 'SELECT count(*) AS n FROM runs WHERE status = :s;\n' > ok.sql
n=$("$XP" --db xp.db query ok.sql --param s=ok --format csv | tail -1)
[ "$n" = 3 ] || fail "a plain read-only query did not answer (got '$n')"
echo "query files: ${#hostile[@]} hostile statements, $refused refused with exit 2; database byte for byte unchanged; no file created"

# ---- specs cannot run commands ----
canary=PWNED # relative: created where the command would run (the test's folder or checkout/)
git init -q checkout 2>/dev/null && git -C checkout config user.email t@t && git -C checkout config user.name t
names=('$(touch '"$canary"').toml' '`touch '"$canary"'`.toml' ';touch '"$canary"';.toml' '|touch '"$canary"'.toml' "' ; touch $canary ; '.toml")
ran=0
for name in "${names[@]}"; do
  for dir in . checkout; do
    # Valid, so that the run is recorded (and git asked about the spec), with shell in values.
    cp "$SRC/tests/data/vllm_bench/serve_c8_detailed.json" "$dir/result.json"
    printf 'kind = "vllm_bench"\nmodel = "$(touch %s)"\nnotes = "`touch %s`; touch %s"\ntags = ["|touch %s"]\nfiles = ["result.json"]\n' \
      "$canary" "$canary" "$canary" "$canary" > "$dir/$name"
    printf 'kind = "vllm_bench"\nfiles = ["$(touch %s).json", "x; touch %s"]\n' "$canary" "$canary" > "$dir/bad-$name"
    [ "$dir" = checkout ] && git -C checkout add -A >/dev/null 2>&1 && git -C checkout commit -qm spec >/dev/null 2>&1
    "$XP" --db xp.db run "$dir/$name" >/dev/null 2>&1
    "$XP" --db xp.db run "$dir/$name" --dry-run >/dev/null 2>&1
    "$XP" --db xp.db run "$dir/bad-$name" >/dev/null 2>&1
    "$XP" --db xp.db import vllm-bench "$dir/$name" --set "model=\$(touch $canary)" >/dev/null 2>&1
    ran=$((ran + 4))
  done
done
[ ! -e "$canary" ] && [ ! -e "checkout/$canary" ] || fail "a spec made xp run a command"
echo "specs: $ran runs of specs whose names and values are shell commands: none ran"
# A spec's environment table must not name code to load: NCCL and CUDA load the libraries such
# variables name into xp's own process (plugins, CUDA injection), which is running a command.
if "$XP" help kinds | grep -q '^  nccl_burst '; then
  loaders=(NCCL_NET_PLUGIN NCCL_TUNER_PLUGIN NCCL_PROFILER_PLUGIN NCCL_ENV_PLUGIN NCCL_CONF_FILE CUDA_INJECTION64_PATH LD_PRELOAD)
  for var in "${loaders[@]}"; do
    printf 'kind = "nccl_burst"\nsizes = [14336]\nenv = { %s = "./evil.so" }\n' "$var" > loader.toml
    "$XP" --db xp.db run loader.toml --dry-run >/dev/null 2>err.txt
    rc=$?
    [ $rc -eq 2 ] && grep -q "^xp: loader.toml:3: env.$var" err.txt ||
      fail "a spec may set $var (names a library to load into xp) in its env table: exit $rc $(head -1 err.txt)"
  done
  echo "specs: env tables naming code to load (${loaders[*]}) checked"
fi
if command -v strace >/dev/null 2>&1 && strace -f -qq -e trace=none true 2>/dev/null; then
  strace -f -qq -e trace=execve -o trace.txt "$XP" --db xp.db run "checkout/${names[0]}" >/dev/null 2>&1
  progs=$(grep -o 'execve("[^"]*"' trace.txt | sed 's/execve("//; s/"$//' | xargs -n1 basename | sort -u | tr '\n' ' ')
  others=$(grep -o 'execve("[^"]*"' trace.txt | sed 's/execve("//; s/"$//' | grep -v -E '/(xp|git)$' | grep -v "^$XP$" | sort -u)
  [ -z "$others" ] || fail "xp started programs other than git: $others"
  grep -q 'execve("/bin/sh\|execve("/usr/bin/sh\|execve("/bin/bash' trace.txt && fail "xp started a shell"
  echo "programs xp started for a spec in a git checkout: $progs(no shell)"
else
  echo "programs xp starts: not traced (strace not available here)"
fi
if grep -rn -E '\b(system|popen|execl|execlp|execle)\s*\(' --include=*.c --include=*.cc "$SRC/harness" "$SRC/importers" >/dev/null; then
  fail "the sources call system/popen/execl*: $(grep -rn -E '\b(system|popen|execl|execlp|execle)\s*\(' --include=*.c --include=*.cc "$SRC/harness" "$SRC/importers" | head -3)"
else
  echo "sources: no system(), popen() or execl*() in harness/ and importers/"
fi

# ---- paths in a spec resolve against the spec's folder ----
if "$XP" help kinds | grep -q '^  vllm_bench '; then
  mkdir -p specs other
  cp "$SRC/tests/data/vllm_bench/serve_c8_detailed.json" specs/result.json
  printf '{"not": "a result"}\n' > other/result.json
  printf 'kind = "vllm_bench"\nfiles = ["result.json"]\nnotes = "relative"\n' > specs/relative.toml
  (cd other && "$XP" --db ../xp.db run ../specs/relative.toml >/dev/null 2>../rel.err) || fail "a spec's relative path did not resolve against the spec's folder: $(cat rel.err)"
  printf 'SELECT count(*) FROM runs WHERE status = %s AND kind = %s;\n' "'ok'" "'serve_bench'" > count.sql
  [ "$("$XP" --db xp.db query count.sql --format csv | tail -1)" -ge 1 ] || fail "the run of the relative spec is not recorded ok"
  echo "paths: files = [\"result.json\"] in specs/relative.toml, run from another folder with its own result.json: read specs/result.json"
else
  echo "paths: skipped: this build has no vllm_bench kind to resolve a path with"
fi
[ $fails -eq 0 ] || { echo "security: $fails failures"; exit 1; }
echo "security: ok"
