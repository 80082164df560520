#!/usr/bin/env bash
# A key given twice is named as the spec writes it, at the line that gives it again (a JSON spec's
# too, which named the first line, where nothing is wrong yet), under the path of its table as
# a JSON spec's is named ("shapes[1].name", where a TOML spec's said "name" alone). toml++
# 3.3 (Debian's) garbles a quoted key in its message ('"a" = 1', '"a" = 2' said "cannot redefine
# existing integer '"a"a" '": marzer/tomlplusplus#300, fixed upstream in #302, after 3.4.0). A
# header given twice is named as written, with its table's path where an element of an array of
# tables holds it ("[shapes.extra] (shapes[1].extra)": as written alone, it named no element).
set -u
. "$XP_SRC/tests/lib.sh"
dup() { # dup WHAT LINE KEY TEXT [EXT]: xp run of the spec TEXT says "spec.EXT:LINE: KEY: duplicate key"
  local spec="$tmp/spec.${5:-toml}"
  printf '%b' "$4" > "$spec"
  "$XP" --db "$db" run "$spec" --dry-run > /dev/null 2> "$tmp/err"
  check "$1: exit" 2 $?
  check "$1: message" "xp: $spec:$2: $3: duplicate key (each key may be given once)" "$(cat "$tmp/err")"
}
dup 'quoted twice' 3 '"a"' 'kind = "gemm"\n"a" = 1\n"a" = 2\n'
dup 'bare, then quoted' 4 '"m"' 'kind = "gemm"\nm = [1]\n\n"m" = [2]\n'
dup 'quoted, then literal' 4 "shape.'n'" 'kind = "gemm"\n[shape]\n"n" = 1\n'"'n'"' = 2\n'
dup 'a quoted key holding a space, a dot and a quote' 3 '"a b.\"c"' 'kind = "gemm"\n"a b.\\"c" = 1\n"a b.\\"c" = 2\n'
dup 'dotted, quoted last' 3 't."x"' 'kind = "gemm"\nt.x = 1\nt."x" = 2\n'
dup 'dotted, spaced' 3 '"t" . "x"' 'kind = "gemm"\nt.x = 1\n"t" . "x" = 2\n'
dup 'in an inline table' 2 't.x' 'kind = "gemm"\nt = {"x" = 1, x = 2}\n'
dup 'a table header twice' 4 '["t"]' 'kind = "gemm"\n["t"]\nx = 1\n["t"]\ny = 2\n'
dup 'a header over a value' 3 '[[ "t" ]]' 'kind = "gemm"\n"t" = 1\n[[ "t" ]]\ny = 2\n'
dup 'a dotted key over a value' 3 '"t"' 'kind = "gemm"\n"t" = 1\n"t".y = 2\n'
dup 'a header whose parent is a value' 3 '[ t . "x" ]' 'kind = "gemm"\nt = 1\n  [ t . "x" ] # c\ny = 2\n'
dup 'a key after a multi-byte one' 3 '"é"' 'kind = "gemm"\n"é" = 1\n"é" = 2\n'
dup 'in the second [[shapes]]' 6 'shapes[1].name' 'kind = "gemm"\n[[shapes]]\nname = "a"\n[[shapes]]\nname = "b"\nname = "c"\n'
dup 'in an inline table of an array' 4 'shapes[1].k' 'kind = "gemm"\nshapes = [\n  {name = "a, [b]", k = 1}, # {\n  {name = "c", k = 2, k = 3},\n]\n'
dup 'in a table of the last [[shapes]]' 6 'shapes[0].extra."q"' 'kind = "gemm"\n[[shapes]]\nname = "a"\n[shapes.extra]\nq = 1\n"q" = 2\n'
dup 'in [[a.b]], counted in each [[a]]' 7 'a[1].b[0].z' 'kind = "gemm"\n[[a]]\n[[a.b]]\n[[a]]\n[[a.b]]\nz = 1\nz = 2\n'
dup 'a table header twice in the second [[shapes]]' 6 '[shapes.extra] (shapes[1].extra)' 'kind = "gemm"\n[[shapes]]\n[[shapes]]\n[shapes.extra]\nq = 1\n[shapes.extra]\nq = 2\n'
dup 'a table header twice under [[a.b]] of the second [[a]]' 6 '[a.b.c] (a[1].b[0].c)' 'kind = "gemm"\n[[a]]\n[[a]]\n[[a.b]]\n[a.b.c]\n[a.b.c]\n'
dup 'an array of tables over a value of the second [[a]]' 5 '[[a.b]] (a[1].b)' 'kind = "gemm"\n[[a]]\n[[a]]\nb = [1]\n[[a.b]]\n'
dup 'after a multi-line string holding a header' 6 'shapes[0].n' 'kind = "gemm"\ns = """\n[[shapes]]"""\n[[shapes]]\nn = 1\nn = 2\n'
dup 'JSON, top level' 4 'tp' '{"kind": "gemm",\n "tp": 1,\n "m": [1],\n "tp": 2}\n' json
dup 'JSON, in a table of an array' 4 'shapes[0].n' '{"kind": "gemm",\n "shapes": [{"name": "a",\n "n": 1, "k": 2,\n "n": 3}],\n "m": [1]}\n' json
dup 'JSON, one spelt with an escape' 3 'tp' '{"kind": "gemm", "m": [1],\n "t\\u0070": 1,\n "tp": 2}\n' json
finish
