/* The C face of the TOML reader (toml++ behind it; harness/toml_adapter.cc). */
#ifndef XP_TOML_ADAPTER_H
#define XP_TOML_ADAPTER_H
#include <cjson/cJSON.h>
#include <stddef.h>
/* What a key given twice is told, in TOML and JSON specs alike. */
#define XP_DUPLICATE_KEY "duplicate key (each key may be given once)"
#ifdef __cplusplus
extern "C" {
#endif
/* Parse TOML text into a cJSON object. `lines` (an object) receives "path" -> line for every
** key and array element ("a.b", "sizes[2]"). On error returns NULL, writes the message to err
** and the line to *err_line ("invalid TOML: ...", or a value no xp key takes: a date or time,
** a string or key holding NUL). */
cJSON *xp_toml_to_json(const char *text, size_t len, const char *source, cJSON *lines, char *err,
                       size_t errlen, int *err_line);
#ifdef __cplusplus
}
#endif
#endif
