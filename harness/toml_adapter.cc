// The only C++ in xp: toml++ has no C equal. This file turns a TOML document into a cJSON tree
// (with the line of every key) and keeps every exception on this side of the C boundary.
#include "toml_adapter.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>
#include <toml++/toml.h>

namespace {

// A value no xp key can take, said with its line: thrown by convert, caught at the C boundary.
struct unusable {
  int line;
  std::string what;
};

// Every key's path is visited once (TOML refuses a key given twice), so lines are appended
// without a lookup: a lookup per key made a deeply dotted spec take seconds.
void note_line(cJSON *lines, const std::string &path, long line) {
  if (lines && line > 0) cJSON_AddNumberToObject(lines, path.c_str(), static_cast<double>(line));
}

cJSON *convert(const toml::node &n, const std::string &path, cJSON *lines) {
  if (auto t = n.as_table()) {
    cJSON *obj = cJSON_CreateObject();
    try { // a value below that no key takes unwinds through here: free what was built
      for (auto &&[k, v] : *t) {
        std::string key(k.str());
        // cJSON keys end at NUL too: "NCCL_X\u0000junk" was set as NCCL_X without a word
        if (key.find('\0') != std::string::npos)
          throw unusable{static_cast<int>(k.source().begin.line),
                         (path.empty() ? "" : path + ": ") + "a key with a NUL character (\\u0000)"};
        std::string sub = path.empty() ? key : path + "." + key;
        // Keys take the key's own position when the value has none (inline values).
        auto line = v.source().begin.line;
        note_line(lines, sub, static_cast<long>(line > 0 ? line : k.source().begin.line));
        cJSON_AddItemToObject(obj, key.c_str(), convert(v, sub, lines));
      }
    } catch (...) {
      cJSON_Delete(obj);
      throw;
    }
    return obj;
  }
  if (auto a = n.as_array()) {
    cJSON *arr = cJSON_CreateArray();
    try {
      size_t i = 0;
      for (auto &&v : *a) {
        std::string sub = path + "[" + std::to_string(i++) + "]";
        note_line(lines, sub, static_cast<long>(v.source().begin.line));
        cJSON_AddItemToArray(arr, convert(v, sub, lines));
      }
    } catch (...) {
      cJSON_Delete(arr);
      throw;
    }
    return arr;
  }
  const int line = static_cast<int>(n.source().begin.line);
  if (auto v = n.as_string()) {
    // C strings end at NUL: "a\u0000b" would be read as "a" without a word
    if (v->get().find('\0') != std::string::npos) throw unusable{line, path + ": a string with a NUL character (\\u0000)"};
    return cJSON_CreateString(v->get().c_str());
  }
  if (auto v = n.as_integer()) return cJSON_CreateNumber(static_cast<double>(v->get()));
  if (auto v = n.as_floating_point()) return cJSON_CreateNumber(v->get());
  if (auto v = n.as_boolean()) return cJSON_CreateBool(v->get());
  // TOML dates and times: no xp key takes one, and read as text they passed as a string key's value
  throw unusable{line, path + ": a date or time, which no xp key takes (quote it to give text)"};
}

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-' || c == '.' || c == '+';
}

// The byte offset of a parse error's position in text.
size_t offset_of(std::string_view text, const toml::source_position &at) {
  size_t pos = 0;
  for (auto line = at.line; line > 1 && pos < text.size(); pos++)
    if (text[pos] == '\n') line--;
  // the column counts code points, not bytes ("é" before it is one)
  for (auto column = at.column; column > 1 && pos < text.size(); column--)
    while (++pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) {}
  return pos;
}

// The bare word at a parse error's position, where the value there is unquoted text (dtype =
// bf16, interconnect = nvlink, max = 256M): toml++ says "expected 'nan', saw 'nv'" or "could
// not determine value type", which leaves the user to guess what TOML wanted. "" where the word
// has no letter (1.2.3: a malformed number) or is one of TOML's own (true, inf, nan).
std::string unquoted_word(std::string_view text, const toml::parse_error &e) {
  // where toml++ was reading a value (not a key, a header, a date or a string)
  bool value = false;
  for (const char *what : {"value:", "floating-point:", "boolean:", "decimal integer:"})
    value |= e.description().rfind(std::string("Error while parsing ") + what, 0) == 0;
  if (!value) return "";
  size_t pos = offset_of(text, e.source().begin);
  if (pos >= text.size() || !word_char(text[pos])) return "";
  size_t from = pos, to = pos;
  while (from > 0 && word_char(text[from - 1])) from--;
  while (to < text.size() && word_char(text[to])) to++;
  if (to - from > 64) return ""; /* no word an xp key takes: said as toml++ says it */
  std::string word(text.substr(from, to - from));
  bool letter = false;
  for (char c : word) letter |= (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  for (const char *own : {"true", "false", "inf", "nan", "+inf", "-inf", "+nan", "-nan"})
    if (word == own) return "";
  return letter ? word : "";
}

// ---- the key of a "cannot redefine existing" error, as the spec writes it ----

bool bare_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

bool blank(char c) { return c == ' ' || c == '\t'; }

// The end of the key segment starting at pos: a bare word, or a quoted one with its quotes;
// pos where none starts there.
size_t segment_end(std::string_view t, size_t pos) {
  if (pos < t.size() && (t[pos] == '"' || t[pos] == '\'')) {
    const char q = t[pos];
    for (size_t i = pos + 1; i < t.size() && t[i] != '\n'; i++) {
      if (q == '"' && t[i] == '\\') i++; /* \" inside a basic string does not end it */
      else if (t[i] == q) return i + 1;
    }
    return pos;
  }
  while (pos < t.size() && bare_key_char(t[pos])) pos++;
  return pos;
}

// The start of the key segment ending at end; end where none ends there.
size_t segment_start(std::string_view t, size_t end) {
  if (end == 0) return end;
  const char q = t[end - 1];
  if (q != '"' && q != '\'') {
    size_t i = end;
    while (i > 0 && bare_key_char(t[i - 1])) i--;
    return i;
  }
  for (size_t i = end - 1; i-- > 0 && t[i] != '\n';) {
    size_t slashes = 0; /* an odd run of backslashes escapes the quote */
    while (q == '"' && slashes < i && t[i - 1 - slashes] == '\\') slashes++;
    if (t[i] == q && slashes % 2 == 0) return i;
  }
  return end;
}

size_t skip_blanks(std::string_view t, size_t pos) {
  while (pos < t.size() && blank(t[pos])) pos++;
  return pos;
}

size_t skip_blanks_back(std::string_view t, size_t pos) {
  while (pos > 0 && blank(t[pos - 1])) pos--;
  return pos;
}

// The end of the dotted key starting at pos (t . "x", whole).
size_t key_end(std::string_view t, size_t pos) {
  for (size_t end;; pos = skip_blanks(t, skip_blanks(t, end) + 1)) {
    if ((end = segment_end(t, pos)) == pos) return pos;
    const size_t dot = skip_blanks(t, end);
    if (dot >= t.size() || t[dot] != '.') return end;
  }
}

// The start of the dotted key ending at end.
size_t key_start(std::string_view t, size_t end) {
  size_t start = end;
  for (;;) {
    const size_t from = segment_start(t, end);
    if (from == end) return start;
    start = from;
    const size_t dot = skip_blanks_back(t, start);
    if (dot == 0 || t[dot - 1] != '.') return start;
    end = skip_blanks_back(t, dot - 1);
  }
}

// A table header as written ([t], [[ "t" ]]) on the line that starts at pos, or "".
std::string header_at(std::string_view t, size_t pos) {
  const size_t open = skip_blanks(t, pos);
  if (open >= t.size() || t[open] != '[') return "";
  const bool array = open + 1 < t.size() && t[open + 1] == '[';
  size_t close = skip_blanks(t, key_end(t, skip_blanks(t, open + 1 + array)));
  if (close >= t.size() || t[close] != ']' || (array && (close + 1 >= t.size() || t[close + 1] != ']'))) return "";
  return std::string(t.substr(open, close + 1 + array - open));
}

// The key a "cannot redefine existing" error is about, as the spec writes it, and its line
// (key "" where not found): toml++ before 3.5 garbles a quoted key in that message ('"a" = 1'
// then '"a" = 2' said "cannot redefine existing integer '"a"a" '": marzer/tomlplusplus#300),
// says nothing of which key a dotted one ("t".y = 2 after "t" = 1) would redefine, and puts a
// header's parent ([t.x] after t = 1) on the line after the header.
struct located_key {
  std::string key;
  long line;
  size_t start;      // where the key starts in the text; npos for a header
  size_t header = 0; // a header's line start
};

located_key redefined_key(std::string_view t, const toml::parse_error &e) {
  const std::string_view what = e.description();
  const long line = static_cast<long>(e.source().begin.line);
  if (what.find("cannot redefine existing") == std::string_view::npos) return {"", line, std::string_view::npos};
  if (what.rfind("Error while parsing table header", 0) == 0) {
    for (long at = line; at >= line - 1 && at > 0; at--) {
      const size_t bol = offset_of(t, toml::source_position{static_cast<toml::source_index>(at), 1});
      std::string header = header_at(t, bol);
      if (!header.empty()) return {header, at, std::string_view::npos, bol};
    }
    return {"", line, std::string_view::npos};
  }
  const size_t pos = offset_of(t, e.source().begin);
  size_t end;
  if (what.find("as dotted key-value pair") != std::string_view::npos) end = segment_end(t, pos); /* pos: the segment's start */
  else { /* pos: the value's start, after "KEY =" */
    const size_t eq = skip_blanks_back(t, pos);
    if (eq == 0 || t[eq - 1] != '=') return {"", line, std::string_view::npos};
    end = skip_blanks_back(t, eq - 1);
  }
  const size_t start = key_start(t, end);
  return {std::string(t.substr(start, end - start)), line, start};
}

// ---- the table a redefined key is in, named as a JSON spec's error names it ----
//
// A key given twice in the second [[shapes]] was named "name" alone, where the same spec in
// JSON said "shapes[1].name": the table is found by walking the text up to the key, which
// toml++ has read without fault that far: headers ([t], [[t]], each array of tables counted
// under its parent's element), and the inline arrays and tables open there (shapes = [{...}]).

// A key segment as its table holds it: quotes off, a basic string's \" and \\ read (other escapes
// are kept as written: no xp key holds one).
std::string segment_name(std::string_view seg) {
  if (seg.size() >= 2 && seg.front() == '\'') return std::string(seg.substr(1, seg.size() - 2));
  if (seg.size() < 2 || seg.front() != '"') return std::string(seg);
  std::string out;
  for (size_t i = 1; i + 1 < seg.size(); i++) {
    if (seg[i] == '\\' && i + 2 < seg.size() && (seg[i + 1] == '"' || seg[i + 1] == '\\')) i++;
    out += seg[i];
  }
  return out;
}

// The segments of the dotted key starting at pos, each as its table holds it; *end: past the key.
std::vector<std::string> key_segments(std::string_view t, size_t pos, size_t *end) {
  std::vector<std::string> segments;
  *end = pos;
  for (size_t seg_end;; pos = skip_blanks(t, skip_blanks(t, seg_end) + 1)) {
    if ((seg_end = segment_end(t, pos)) == pos) break;
    segments.push_back(segment_name(t.substr(pos, seg_end - pos)));
    *end = seg_end;
    const size_t dot = skip_blanks(t, seg_end);
    if (dot >= t.size() || t[dot] != '.') break;
  }
  return segments;
}

std::string joined(const std::string &table, const std::string &key) {
  return table.empty() ? key : key.empty() ? table : table + "." + key;
}

struct open_value {
  bool array;
  std::string path; // the array's or table's ("shapes", "shapes[0]")
  size_t index;     // an array's element now
};

struct table_walk {
  std::string_view t;
  size_t pos = 0;
  std::string table;                          // the last header's table ("shapes[1]")
  std::map<std::string, size_t> elements;     // each array of tables' elements so far, by its path
  std::map<std::string, std::string> element; // its last element's path, by its path without indices
  std::string key;                            // the path of the key whose value comes next
  std::vector<open_value> open;               // the inline arrays and tables the walk is in
  bool want_value = false;                    // after "KEY =", until its value starts
};

// A header: its table's path, each array of tables above it at its last element, and a [[t]]
// a new element of t (of its parent's element: a later [[a]] starts [[a.b]] again at 0).
void walk_header(table_walk &w) {
  const std::string header = header_at(w.t, w.pos);
  if (header.empty()) { // none after all: past the line
    while (w.pos < w.t.size() && w.t[w.pos] != '\n') w.pos++;
    return;
  }
  const bool array = header.compare(0, 2, "[[") == 0;
  size_t end;
  const std::vector<std::string> segments = key_segments(w.t, skip_blanks(w.t, w.pos + 1 + array), &end);
  std::string plain, indexed;
  for (size_t i = 0; i < segments.size(); i++) {
    plain = joined(plain, segments[i]);
    indexed = joined(indexed, segments[i]);
    auto e = w.element.find(plain);
    if (i + 1 < segments.size() && e != w.element.end()) indexed = e->second;
  }
  if (array) {
    indexed += "[" + std::to_string(w.elements[indexed]++) + "]";
    w.element[plain] = indexed;
    const std::string below = plain + ".";
    for (auto b = w.element.lower_bound(below); b != w.element.end() && b->first.compare(0, below.size(), below) == 0;)
      b = w.element.erase(b);
  }
  w.table = indexed;
  w.pos += header.size();
}

// Past a string value (basic, literal, or either's multi-line form) starting at w.pos.
void walk_string(table_walk &w) {
  const char q = w.t[w.pos];
  const bool multi = w.t.substr(w.pos, 3) == std::string(3, q);
  w.pos += multi ? 3 : 1;
  while (w.pos < w.t.size()) {
    if (q == '"' && w.t[w.pos] == '\\') w.pos += 2;
    else if (multi && w.t.substr(w.pos, 3) == std::string(3, q)) {
      w.pos += 3;
      while (w.pos < w.t.size() && w.t[w.pos] == q) w.pos++; /* """a"""" ends with a quote of its own */
      return;
    } else if (!multi && (w.t[w.pos] == q || w.t[w.pos] == '\n')) {
      w.pos++;
      return;
    } else w.pos++;
  }
}

// A value starting at w.pos: an inline array or table opens (its path the key's, or the element's
// of the array it is in); a string or another scalar is passed.
void walk_value(table_walk &w) {
  const char c = w.t[w.pos];
  std::string path = w.key;
  if (!w.open.empty() && w.open.back().array)
    path = w.open.back().path + "[" + std::to_string(w.open.back().index) + "]";
  w.want_value = false;
  if (c == '[' || c == '{') {
    w.open.push_back({c == '[', path, 0});
    w.pos++;
  } else if (c == '"' || c == '\'') walk_string(w);
  else
    do w.pos++; /* at least one: text toml++ took is no comma or bracket here, but the walk must end */
    while (w.pos < w.t.size() && !std::strchr(",]}#\n", w.t[w.pos]));
}

// "KEY =" at w.pos: the key's path, under the table it is written in.
void walk_key(table_walk &w) {
  size_t end;
  std::string key;
  for (const std::string &segment : key_segments(w.t, w.pos, &end)) key = joined(key, segment);
  if (end == w.pos) { // no key: text the walk does not know; past it
    w.pos++;
    return;
  }
  w.key = joined(w.open.empty() ? w.table : w.open.back().path, key);
  w.pos = skip_blanks(w.t, end);
  if (w.pos < w.t.size() && w.t[w.pos] == '=') w.pos++;
  w.want_value = true;
}

void walk_step(table_walk &w) {
  const char c = w.t[w.pos];
  const bool in_array = !w.open.empty() && w.open.back().array;
  if (c == ' ' || c == '\t' || c == '\r' || c == '\n') w.pos++;
  else if (c == '#')
    while (w.pos < w.t.size() && w.t[w.pos] != '\n') w.pos++;
  else if (w.want_value || (in_array && c != ',' && c != ']')) walk_value(w);
  else if (c == ',') {
    if (in_array) w.open.back().index++;
    w.pos++;
  } else if ((c == ']' || c == '}') && !w.open.empty()) {
    w.open.pop_back();
    w.pos++;
  } else if (c == '[' && w.open.empty()) walk_header(w);
  else walk_key(w);
}

// The path of the table that holds the key starting at stop, as convert names it ("" at the top).
std::string table_at(std::string_view t, size_t stop) {
  table_walk w;
  w.t = t;
  while (w.pos < stop && w.pos < t.size()) walk_step(w);
  return w.open.empty() ? w.table : w.open.back().path;
}

// A header twice in an element of an array of tables ([shapes.sub] in the second [[shapes]]) was
// named as written alone, which holds no element: the header's table as convert names it, from
// the walk up to its line (bol) and the header itself, where an element is in it; "" where none
// is. An array of tables' header is named without the new element it would have begun.
std::string header_table(std::string_view t, size_t bol) {
  table_walk w;
  w.t = t;
  while (w.pos < bol && w.pos < t.size()) walk_step(w);
  w.pos = bol;
  const bool array = header_at(t, bol).compare(0, 2, "[[") == 0;
  walk_header(w);
  std::string table = w.table;
  if (array) table.erase(table.rfind('['));
  return table.find('[') == std::string::npos ? "" : table;
}

// The duplicate a redefinition error is about, as the spec names it: the key under its table's
// path, or the header as written, with its table's path where that names an element.
std::string duplicate_name(std::string_view t, const located_key &dup) {
  if (dup.start != std::string_view::npos) return joined(table_at(t, dup.start), dup.key);
  const std::string table = header_table(t, dup.header);
  return table.empty() ? dup.key : dup.key + " (" + table + ")";
}

}  // namespace

extern "C" cJSON *xp_toml_to_json(const char *text, size_t len, const char *source, cJSON *lines,
                                  char *err, size_t errlen, int *err_line) {
  *err_line = 0;
  if (err && errlen) err[0] = 0;
  try {
    toml::table doc = toml::parse(std::string_view(text, len), std::string_view(source));
    return convert(doc, "", lines);
  } catch (const unusable &e) {
    *err_line = e.line;
    if (err) std::snprintf(err, errlen, "%s", e.what.c_str());
  } catch (const toml::parse_error &e) {
    *err_line = static_cast<int>(e.source().begin.line);
    const std::string word = unquoted_word(std::string_view(text, len), e);
    const located_key dup = redefined_key(std::string_view(text, len), e);
    if (!dup.key.empty()) *err_line = static_cast<int>(dup.line);
    if (err && !dup.key.empty())
      std::snprintf(err, errlen, "%s: %s", duplicate_name(std::string_view(text, len), dup).c_str(), XP_DUPLICATE_KEY);
    else if (err && !word.empty())
      std::snprintf(err, errlen, "invalid TOML: %s is unquoted: TOML writes text in quotes (\"%s\")",
                    word.c_str(), word.c_str());
    else if (err) std::snprintf(err, errlen, "invalid TOML: %s", std::string(e.description()).c_str());
  } catch (const std::exception &e) {
    if (err) std::snprintf(err, errlen, "invalid TOML: %s", e.what());
  } catch (...) {
    if (err) std::snprintf(err, errlen, "invalid TOML: unreadable");
  }
  return nullptr;
}
