// The only C++ in xp: toml++ has no C equal. This file turns a TOML document into a cJSON tree
// (with the line of every key) and keeps every exception on this side of the C boundary.
#include "toml_adapter.h"

#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <toml++/toml.h>

namespace {

void note_line(cJSON *lines, const std::string &path, const toml::node &n) {
  if (!lines) return;
  auto line = n.source().begin.line;
  if (line > 0 && !cJSON_GetObjectItemCaseSensitive(lines, path.c_str()))
    cJSON_AddNumberToObject(lines, path.c_str(), static_cast<double>(line));
}

template <typename T> std::string to_text(const T &v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

cJSON *convert(const toml::node &n, const std::string &path, cJSON *lines) {
  if (auto t = n.as_table()) {
    cJSON *obj = cJSON_CreateObject();
    for (auto &&[k, v] : *t) {
      std::string key(k.str());
      std::string sub = path.empty() ? key : path + "." + key;
      note_line(lines, sub, v);
      // Keys inherit the key's own position when the value has none (inline values).
      if (lines && k.source().begin.line > 0 && !cJSON_GetObjectItemCaseSensitive(lines, sub.c_str()))
        cJSON_AddNumberToObject(lines, sub.c_str(), static_cast<double>(k.source().begin.line));
      cJSON_AddItemToObject(obj, key.c_str(), convert(v, sub, lines));
    }
    return obj;
  }
  if (auto a = n.as_array()) {
    cJSON *arr = cJSON_CreateArray();
    size_t i = 0;
    for (auto &&v : *a) {
      std::string sub = path + "[" + std::to_string(i++) + "]";
      note_line(lines, sub, v);
      cJSON_AddItemToArray(arr, convert(v, sub, lines));
    }
    return arr;
  }
  if (auto v = n.as_string()) return cJSON_CreateString(v->get().c_str());
  if (auto v = n.as_integer()) return cJSON_CreateNumber(static_cast<double>(v->get()));
  if (auto v = n.as_floating_point()) return cJSON_CreateNumber(v->get());
  if (auto v = n.as_boolean()) return cJSON_CreateBool(v->get());
  if (auto v = n.as_date()) return cJSON_CreateString(to_text(v->get()).c_str());
  if (auto v = n.as_time()) return cJSON_CreateString(to_text(v->get()).c_str());
  if (auto v = n.as_date_time()) return cJSON_CreateString(to_text(v->get()).c_str());
  return cJSON_CreateNull();
}

}  // namespace

extern "C" cJSON *xp_toml_to_json(const char *text, size_t len, const char *source, cJSON *lines,
                                  char *err, size_t errlen, int *err_line) {
  *err_line = 0;
  if (err && errlen) err[0] = 0;
  try {
    toml::table doc = toml::parse(std::string_view(text, len), std::string_view(source));
    return convert(doc, "", lines);
  } catch (const toml::parse_error &e) {
    *err_line = static_cast<int>(e.source().begin.line);
    if (err) std::snprintf(err, errlen, "%s", std::string(e.description()).c_str());
  } catch (const std::exception &e) {
    if (err) std::snprintf(err, errlen, "%s", e.what());
  } catch (...) {
    if (err) std::snprintf(err, errlen, "unreadable TOML");
  }
  return nullptr;
}
