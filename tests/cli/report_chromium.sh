#!/usr/bin/env bash
# xp report in a real browser: headless Chromium loads the page, its script counts the chart
# marks that were laid out with a visible size, and writes the verdict on <body
# data-xp-report="ok | blank: ... | error: ...">, which --dump-dom shows us.
# Data: runs of every charted kind that need no GPU to record (tests/unit/test_report --keep),
# real torch.profiler traces and nccl-tests logs ($XP_SHARED/fixtures), and vLLM results.
# Needs Debian's chromium package; skipped (77) without it.
set -u
. "$XP_SRC/tests/lib.sh"
need_chromium
verdict() { grep -o 'data-xp-report="[^"]*"' | head -1 | sed 's/data-xp-report="\(.*\)"/\1/'; }
attr() { # attr SECTION-ID NAME < DOM
  grep -o "<section class=\"chart-section\" id=\"$1\"[^>]*>" | grep -o "$2=\"[^\"]*\"" | sed 's/.*="\(.*\)"/\1/'
}

# 1. Runs of every kind the report draws that need no GPU to record (gemm, nccl_burst,
#    serve_bench), from the unit test's recorder calls; and an empty database beside them.
expected_charts=""
if [ -x "${XP_BUILD:-}/tests/test_report" ]; then
  "$XP_BUILD/tests/test_report" --keep "$tmp" > /dev/null || { echo "FAIL: test_report --keep"; fail=1; }
  expected_charts="busbw roofline serving"
  "$XP" --db "$tmp/empty.db" report --out "$tmp/empty.html" > /dev/null
  check "empty database: report exit status" 0 $?
  dom "$tmp/empty.html" > "$tmp/empty.dom"
  check "empty database: page verdict" ok "$(verdict < "$tmp/empty.dom")"
  check "empty database: charts drawn" 0 "$(grep -o 'data-charts-drawn="[0-9]*"' "$tmp/empty.dom" | grep -o '[0-9]*')"
  check "empty database: no data yet" 6 "$(grep -o '<strong>No data yet.</strong>' "$tmp/empty.dom" | wc -l)"
else
  echo "note: ${XP_BUILD:-}/tests/test_report not built: the GEMM chart and the empty page are not rendered here"
fi

# 2. Real traces, nccl-tests logs and vLLM results on top.
fx="${XP_SHARED:-}/fixtures"
if [ -d "$fx/torch" ]; then
  for bs in 1 16; do
    "$XP" --db "$db" import torch-trace "$fx/torch/decode_tp2_bs${bs}_rank0.trace.json.gz" \
      "$fx/torch/decode_tp2_bs${bs}_rank1.trace.json.gz" --set model=moe-16L --set tp=2 --set batch=$bs \
      > /dev/null 2> "$tmp/err" || { echo "FAIL: torch-trace import: $(cat "$tmp/err")"; fail=1; }
  done
  "$XP" --db "$db" import nccl-tests "$fx/nccl-tests/nccltests_sweep.txt" > /dev/null 2> "$tmp/err" ||
    { echo "FAIL: nccl-tests import: $(cat "$tmp/err")"; fail=1; }
  expected_charts="shares allreduce comm busbw $expected_charts"
else
  echo "note: $fx missing; trace charts are not rendered here"
fi
"$XP" --db "$db" import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" \
  "$XP_SRC/tests/data/vllm_bench/serve_append_c1_c2.json" > /dev/null 2>&1 || { echo "FAIL: vllm-bench import"; fail=1; }
expected_charts="$expected_charts serving"

"$XP" --db "$db" report --out "$tmp/r.html" > "$tmp/out" 2> "$tmp/err"
check "report exit status" 0 $?
dom "$tmp/r.html" > "$tmp/r.dom"
check "page verdict" ok "$(verdict < "$tmp/r.dom")"
for id in $(printf '%s\n' $expected_charts | sort -u); do
  check "$id: has data" 1 "$(attr "$id" data-has-data < "$tmp/r.dom")"
  drawn=$(attr "$id" data-drawn < "$tmp/r.dom")
  [ "${drawn:-0}" -gt 0 ] || { echo "FAIL: $id: nothing drawn (data-drawn=$drawn)"; fail=1; }
done
with_data=$(grep -o 'data-has-data="1"' "$tmp/r.html" | wc -l)
check "charts drawn = charts with data" "$with_data" "$(grep -o 'data-charts-drawn="[0-9]*"' "$tmp/r.dom" | grep -o '[0-9]*')"
if [ -d "$fx/torch" ]; then
  # Two configurations (batch 1 and 16): two labelled bars, AllReduce the largest share.
  check "configurations in the shares chart" 2 "$(grep -o 'class="row-label">moe-16L · tp=2 · batch=[0-9]*' "$tmp/r.html" | sort -u | wc -l)"
  # The page and queries/bottleneck_by_config.sql agree on the AllReduce share.
  printf '%s\n' "SELECT printf('%.1f', latest_pct) FROM ($(sed 's/;[[:space:]]*$//' "$XP_SRC/queries/bottleneck_by_config.sql"))
    WHERE model = 'moe-16L' AND batch = 1 AND category = 'allreduce';" > "$tmp/ar.sql"
  pct=$("$XP" --db "$db" query "$tmp/ar.sql" --format csv | tail -n +2)
  grep -q "<title>moe-16L · tp=2 · batch=1 · NVIDIA H200: allreduce $pct%</title>" "$tmp/r.html" ||
    { echo "FAIL: the batch-1 AllReduce segment does not say $pct% as bottleneck_by_config.sql does"; fail=1; }
fi

# 3. The checker itself: a script error and a chart without visible marks are both caught.
sed 's|<body data-xp-report="loading">|&<script>undefinedFunctionOfTheTest();</script>|' "$tmp/r.html" > "$tmp/broken.html"
case "$(dom "$tmp/broken.html" | verdict)" in
  error:*undefinedFunctionOfTheTest*) ;;
  *) echo "FAIL: a script error was not reported"; fail=1 ;;
esac
sed 's/class="mark /class="nomark /g' "$tmp/r.html" > "$tmp/blank.html"
case "$(dom "$tmp/blank.html" | verdict)" in
  blank:*serving*) ;;
  *) echo "FAIL: charts without marks were not reported blank"; fail=1 ;;
esac

finish
