// The only C++ in xp: toml++ has no C equal. This file turns a TOML document into a cJSON tree
// (with the line of every key) and keeps every exception on this side of the C boundary.
#include "toml_adapter.h"

#include <cstdio>
#include <cstring>
#include <string>
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
  const toml::source_region &at = e.source();
  size_t pos = 0;
  for (auto line = at.begin.line; line > 1 && pos < text.size(); pos++)
    if (text[pos] == '\n') line--;
  // the column counts code points, not bytes ("é" before it is one)
  for (auto column = at.begin.column; column > 1 && pos < text.size(); column--)
    while (++pos < text.size() && (static_cast<unsigned char>(text[pos]) & 0xC0) == 0x80) {}
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
    if (err && !word.empty())
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
