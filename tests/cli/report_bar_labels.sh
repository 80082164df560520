#!/usr/bin/env bash
# xp report's "where the GPU time goes" rows keep their text inside the chart: a declared
# configuration ("moonshotai/Kimi-K2.5-Instruct [engine=vllm dtype=bf16 ...] · tp=2 · ...") and
# its detail ("latest of 2 runs (...), ... ms of step GPU time; AllReduce 91-94% across them")
# ran on one line past the chart's right edge (960), cut off; the detail now takes its own
# line when the two do not fit. Measured in headless Chromium (getBBox of each text, in the
# chart's own units); skipped (77) without it.
set -u
. "$XP_SRC/tests/lib.sh"
need_chromium
for r in 0 1; do # two runs of one configuration: the detail says "latest of 2 runs"
  run import torch-trace "$XP_SRC/tests/data/trace/decode_tp2_bs1_rank$r.trace.json.gz" \
    --set model=moonshotai/Kimi-K2.5-Instruct --set tp=2 --set ep=2 --set batch=16 --set engine=vllm \
    --set dtype=bf16 --set quantization=fp8 --set interconnect=nvlink
  expect_rc 0
done
run report --out "$tmp/r.html"; expect_rc 0
grep -q 'latest of 2 runs' "$tmp/r.html" || die "no row of 2 runs"
# the right edge of the furthest text of the chart, written on <body> once laid out
measure="<script>addEventListener('load',function(){var m=0,t=document.querySelectorAll('#shares svg text');\
for(var i=0;i<t.length;i++){var b=t[i].getBBox();m=Math.max(m,b.x+b.width);}\
document.body.setAttribute('data-text-right',String(Math.round(m)));});</script>"
sed "s|</body>|$measure&|" "$tmp/r.html" > "$tmp/m.html"
right=$(dom "$tmp/m.html" | grep -o 'data-text-right="[0-9]*"' | grep -o '[0-9]*')
[ -n "$right" ] || die "the page was not measured"
[ "$right" -le 960 ] || { echo "FAIL: the rows' text reaches x=$right, past the chart's 960"; fail=1; }
finish
