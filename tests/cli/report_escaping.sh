#!/usr/bin/env bash
# Text from the database reaches xp report's page as text, whatever it holds: markup and a
# closing </script> are escaped, and bytes an XML parser refuses (not UTF-8, control characters,
# which another tool or an older xp may have written) become U+FFFD, so that each chart's SVG,
# saved from the page, parses as XML (xmlns is set for that) and the page's script is its own.
set -euo pipefail
: "${XP:?}" "${XP_SRC:?}"
. "$XP_SRC/tests/lib.sh"
run import vllm-bench "$XP_SRC/tests/data/vllm_bench/serve_c8_detailed.json" --set model=m; expect_rc 0
# The run's model and GPU as another tool could have written them (its append-only trigger set
# aside for the change): X'01' a control character, X'FF' and X'C0AF' (an overlong '/') not
# UTF-8, X'EFBFBE' U+FFFE.
trigger=$(sqlite3 "$db" "SELECT sql FROM sqlite_schema WHERE name = 'xp_append_only_runs_update'")
[ -n "$trigger" ] || die "no append-only trigger on runs to set aside"
sqlite3 "$db" "DROP TRIGGER xp_append_only_runs_update;
  UPDATE runs SET model = 'a</script><script>alert(1)</script>&quot;''' ||
    CAST(X'01FFC0AF0A' AS TEXT) || 'é' || CAST(X'EFBFBE' AS TEXT),
  gpu_name = CAST(X'4E5649444941FF' AS TEXT);
  $trigger;"
run report --out "$tmp/r.html"; expect_rc 0
check "scripts on the page: its own two" 2 "$(grep -o '<script>' "$tmp/r.html" | wc -l)"
hasnt "alert(1)</script>" "$tmp/r.html"
has "a&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&amp;quot;&#39;" "$tmp/r.html"
has "é" "$tmp/r.html"   # well-formed UTF-8 is kept as it is
python3 - "$tmp/r.html" <<'PY' || fail=1
import re, sys, xml.etree.ElementTree as ET
page = open(sys.argv[1], "rb").read()
page.decode("utf-8")  # the page is UTF-8, as its meta says
svgs = re.findall(rb"<svg .*?</svg>", page, re.S)
if not svgs: sys.exit("FAIL: no chart drawn")
for svg in svgs:
    try: ET.fromstring(svg)
    except ET.ParseError as e: sys.exit("FAIL: an SVG does not parse as XML: %s" % e)
if "\ufffd" not in page.decode("utf-8"): sys.exit("FAIL: no U+FFFD where the bad bytes were")
PY
finish
