/*
** Experiment specs: loading (TOML or JSON), locating keys by line, canonical form and hash,
** and validation against a field table. Unknown keys are errors everywhere: a typo must never
** silently change what an experiment measures.
*/
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "kind.h"
#include "spec.h"
#include "toml_adapter.h"
#include "xp.h"

struct spec_private {
  char *text;
  cJSON *from_cli; /* top-level keys that --set gave or replaced: their errors are the command line's */
  int stored;      /* a run's copy in the database (xp rerun): no command line gave it, none can edit it */
  char *dup_path;  /* a JSON spec's key path written twice, */
  long dup_line;   /* and the line that writes it again */
};

static int stored(const xp_spec *s) { return ((const struct spec_private *)(s + 1))->stored; }

static const char *const interconnects[] = {"nvlink", "pcie", "shm", "net", "mixed", NULL};

/* A key path as errors name it and line lookup finds it ("shapes[2].hidden"), written into
** out. No spec nests so deep that a path fills out; one that would is cut with "...", so an
** error never names a cut path as if it were whole. */
__attribute__((format(printf, 3, 4))) static void spec_path(char *out, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int len = vsnprintf(out, n, fmt, ap);
  va_end(ap);
  if (len >= (int)n && n > 4) memcpy(out + n - 4, "...", 4);
}

/* Key `key` of the table at `path` ("" or NULL: the top level). */
static void key_path(char *out, size_t n, const char *path, const char *key) {
  spec_path(out, n, "%s%s%s", path ? path : "", path && *path ? "." : "", key);
}

const xp_field xp_declared_fields[] = {
    {"name", XP_T_STRING, 0, NULL, NULL, 0, 0, "short name of the experiment"},
    {"description", XP_T_STRING, 0, NULL, NULL, 0, 0, "what it measures and why"},
    {"model", XP_T_STRING, 0, NULL, NULL, 0, 0, "model under test (Kimi-K2.5, ...)"},
    {"engine", XP_T_STRING, 0, NULL, NULL, 0, 0, "serving engine (vllm, sglang, torch)"},
    {"tp", XP_T_INT, 0, NULL, NULL, 1, 65536, "tensor parallel size"},
    {"ep", XP_T_INT, 0, NULL, NULL, 1, 65536, "expert parallel size"},
    {"pp", XP_T_INT, 0, NULL, NULL, 1, 65536, "pipeline parallel size"},
    {"dp", XP_T_INT, 0, NULL, NULL, 1, 65536, "data parallel size"},
    {"batch", XP_T_INT, 0, NULL, NULL, 1, 1e9, "decode batch size"},
    {"concurrency", XP_T_INT, 0, NULL, NULL, 1, 1e9, "serving concurrency"},
    {"dtype", XP_T_STRING, 0, NULL, NULL, 0, 0, "activation dtype (bf16, fp8, ...)"},
    {"quantization", XP_T_STRING, 0, NULL, NULL, 0, 0, "weight quantization (int4, fp8, ...)"},
    {"interconnect", XP_T_STRING, 0, interconnects, NULL, 0, 0, "declared GPU interconnect"},
    {"gpus_declared", XP_T_INT, 0, NULL, NULL, 1, 65536, "GPU count of the system under test"},
    {"gpu", XP_T_STRING, 0, NULL, NULL, 0, 0, "GPU of the system under test, for results that do not name it"},
    {"notes", XP_T_STRING, 0, NULL, NULL, 0, 0, "free text"},
    {"tags", XP_T_STRINGS, 0, NULL, NULL, 0, 0, "labels for grouping"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

/* ---- loading ---- */

static char *dir_of(const char *path) {
  char *copy = xp_strdup(path);
  char *d = xp_strdup(dirname(copy));
  free(copy);
  return d;
}

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

/* JSON by its name (.json, .JSON), or by its text where the name says neither: a TOML document
** never opens with '{', and a spec given as <(...) (/dev/fd/63) or spec.json5 was read as
** TOML and refused ("saw '{'"). */
static int is_json(const char *path, const char *text) {
  if (has_suffix(path, ".json")) return 1;
  if (has_suffix(path, ".toml")) return 0;
  if (strncmp(text, "\xef\xbb\xbf", 3) == 0) text += 3; /* a UTF-8 byte-order mark, which cJSON skips */
  text += strspn(text, " \t\r\n");
  return *text == '{';
}

long xp_line_of_offset(const char *text, size_t off) {
  long line = 1;
  for (size_t i = 0; i < off && text[i]; i++)
    if (text[i] == '\n') line++;
  return line;
}

static xp_spec *spec_new(cJSON *root, cJSON *lines, const char *path, char *dir, char *text) {
  xp_spec *s = xp_xcalloc(1, sizeof *s + sizeof(struct spec_private));
  s->root = root;
  s->lines = lines ? lines : cJSON_CreateObject();
  s->path = xp_strdup(path);
  s->dir = dir;
  ((struct spec_private *)(s + 1))->text = text;
  return s;
}

static const char duplicate_key[] = XP_DUPLICATE_KEY;

/* Said at the line that gives the key again, as toml++ says a TOML spec's, where the walk over
** the text found it there (not where a key is spelt with an escape, "t\u0070" and "tp"). */
static int duplicate_error(const xp_spec *s, const char *sub) {
  const struct spec_private *p = (const struct spec_private *)(s + 1);
  if (p->dup_path && strcmp(p->dup_path, sub) == 0)
    return xp_error_at(XP_EXIT_USAGE, s->path, p->dup_line, "%s: %s", sub, duplicate_key);
  return xp_spec_error(s, sub, "%s", duplicate_key);
}

/* JSON allows a key twice and cJSON keeps both, but only the first would be read: the second
** value would be silently ignored while it still changed the spec's hash. TOML refuses
** duplicates itself; JSON specs are held to the same rule (tests/bad_inputs/spec-json-duplicate-key). */
static int check_duplicate_keys(const xp_spec *s, const cJSON *node, const char *path) {
  char sub[512];
  int i = 0;
  for (const cJSON *c = node->child; c; c = c->next, i++) {
    if (cJSON_IsObject(node)) {
      key_path(sub, sizeof sub, path, c->string);
      for (const cJSON *d = c->next; d; d = d->next)
        if (strcmp(c->string, d->string) == 0) return duplicate_error(s, sub);
    } else spec_path(sub, sizeof sub, "%s[%d]", path, i);
    if ((cJSON_IsObject(c) || cJSON_IsArray(c)) && check_duplicate_keys(s, c, sub)) return XP_EXIT_USAGE;
  }
  return 0;
}

/* ---- lines of a JSON spec ---- */

/* A walk over JSON text cJSON has already accepted, noting the line of every key path
** ("shapes[1].n") as the TOML reader does, so that errors in JSON specs point where the value
** is written and not at the first key of the same name. */
typedef struct json_walk {
  const char *p;
  long line;
  cJSON *lines;
  char nul_path[512]; /* the first string value holding \u0000 (or the table of such a key), */
  long nul_line;      /* its line, */
  int nul_key;        /* and whether it was a key */
  char dup_path[512]; /* the first key path written twice (cut paths, keys with dots: may be */
  long dup_line;      /* two keys), and the line that writes it again */
} json_walk;

static void jw_space(json_walk *w) {
  for (; *w->p == ' ' || *w->p == '\t' || *w->p == '\r' || *w->p == '\n'; w->p++)
    if (*w->p == '\n') w->line++;
}

/* Past a string; its raw text (escapes kept, enough for key names) into buf. 1 where it holds
** \u0000, which cJSON reads as a NUL that ends the C string ("a\u0000b" was "a"), else 0. */
static int jw_string(json_walk *w, char *buf, size_t n) {
  size_t k = 0;
  int nul = 0;
  for (w->p++; *w->p && *w->p != '"'; w->p++) {
    nul |= *w->p == '\\' && strncmp(w->p + 1, "u0000", 5) == 0;
    if (*w->p == '\\' && w->p[1]) w->p++;
    if (k + 1 < n) buf[k++] = *w->p;
  }
  if (*w->p == '"') w->p++;
  if (n) buf[k] = 0;
  return nul;
}

/* The first key or string holding \u0000, at path, is the one the error names. */
static void jw_nul(json_walk *w, const char *path, int key) {
  if (w->nul_line) return;
  snprintf(w->nul_path, sizeof w->nul_path, "%s", path);
  w->nul_line = w->line;
  w->nul_key = key;
}

static void jw_note(json_walk *w, const char *path) {
  if (!cJSON_GetObjectItemCaseSensitive(w->lines, path)) cJSON_AddNumberToObject(w->lines, path, (double)w->line);
  else if (!w->dup_line) {
    snprintf(w->dup_path, sizeof w->dup_path, "%s", path);
    w->dup_line = w->line;
  }
}

static void jw_value(json_walk *w, const char *path, int depth) {
  char sub[512], key[256];
  jw_space(w);
  if (depth > 64) { /* deeper than any spec: stop noting lines (the walk must still end) */
    w->p += strlen(w->p);
    return;
  }
  if (*w->p == '{' || *w->p == '[') {
    const int object = *w->p++ == '{';
    for (int i = 0;; i++) {
      jw_space(w);
      if (!*w->p || *w->p == '}' || *w->p == ']') break;
      if (object) {
        if (jw_string(w, key, sizeof key)) jw_nul(w, path, 1);
        key_path(sub, sizeof sub, path, key);
        jw_note(w, sub);
        jw_space(w);
        if (*w->p == ':') w->p++;
        jw_space(w);
      } else {
        spec_path(sub, sizeof sub, "%s[%d]", path, i);
        jw_note(w, sub);
      }
      const char *before = w->p;
      jw_value(w, sub, depth + 1);
      jw_space(w);
      if (*w->p == ',') w->p++;
      else if (w->p == before) break; /* no progress: text cJSON took another way; stop */
    }
    if (*w->p) w->p++;
  } else if (*w->p == '"') {
    if (jw_string(w, NULL, 0)) jw_nul(w, path, 0);
  } else {
    while (*w->p && !strchr(",}] \t\r\n", *w->p)) w->p++;
  }
}

xp_spec *xp_spec_load(const char *path) {
  size_t len = 0;
  char *text = xp_read_file(path, &len);
  if (!text) {
    xp_error_at(XP_EXIT_USAGE, path, 0, "cannot read: %s", strerror(errno));
    return NULL;
  }
  if (memchr(text, 0, len)) {
    /* Windows PowerShell 5.1's > and Out-File write UTF-16 with a byte-order mark: text, in
    ** a form neither reader takes, which "not a text file" mislabelled */
    if (!xp_utf16_refused(path, text, len))
      xp_error_at(XP_EXIT_USAGE, path, xp_line_of_offset(text, strlen(text)), "not a text file (NUL byte)");
    free(text);
    return NULL;
  }
  cJSON *root = NULL, *lines = cJSON_CreateObject();
  char *dup_path = NULL; /* a JSON spec's key written twice, and where again (json_walk) */
  long dup_line = 0;
  if (is_json(path, text)) {
    const char *end = NULL;
    root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
    if (!root) {
      size_t off = end ? (size_t)(end - text) : 0;
      xp_error_at(XP_EXIT_USAGE, path, xp_line_of_offset(text, off), "invalid JSON near byte %zu", off);
      goto fail;
    }
    /* cJSON stops after the first value; anything but whitespace after it (a second object,
    ** keys after a brace closed too early) would otherwise be dropped without a word */
    json_walk tail = {.p = end, .line = xp_line_of_offset(text, (size_t)(end - text))};
    jw_space(&tail);
    if (*tail.p) { /* the text holds no NUL (refused above): it ends at len */
      xp_error_at(XP_EXIT_USAGE, path, (int)tail.line, "text after the spec's JSON value (byte %zu)",
                  (size_t)(tail.p - text));
      cJSON_Delete(root);
      goto fail;
    }
    json_walk w = {.p = text, .line = 1, .lines = lines};
    jw_value(&w, "", 0);
    if (w.nul_line) { /* as the TOML reader says it (toml_adapter.cc) */
      xp_error_at(XP_EXIT_USAGE, path, (int)w.nul_line, "%s%sa %s with a NUL character (\\u0000)", w.nul_path,
                  *w.nul_path ? ": " : "", w.nul_key ? "key" : "string");
      cJSON_Delete(root);
      goto fail;
    }
    dup_path = xp_strdup(w.dup_path);
    dup_line = w.dup_line;
  } else {
    char err[512];
    int err_line = 0;
    root = xp_toml_to_json(text, len, path, lines, err, sizeof err, &err_line);
    if (!root) {
      xp_error_at(XP_EXIT_USAGE, path, err_line, "%s", err);
      goto fail;
    }
  }
  if (!cJSON_IsObject(root)) {
    xp_error_at(XP_EXIT_USAGE, path, 1, "a spec must be a table of keys");
    cJSON_Delete(root);
    goto fail;
  }
  xp_spec *spec = spec_new(root, lines, path, dir_of(path), text);
  ((struct spec_private *)(spec + 1))->dup_path = dup_path;
  ((struct spec_private *)(spec + 1))->dup_line = dup_line;
  if (check_duplicate_keys(spec, spec->root, "") != 0) {
    xp_spec_free(spec);
    return NULL;
  }
  return spec;
fail:
  cJSON_Delete(lines);
  free(dup_path);
  free(text);
  return NULL;
}

xp_spec *xp_spec_from_json(cJSON *root, const char *label, const char *dir) {
  return spec_new(root, NULL, label, xp_strdup(dir ? dir : "."), NULL);
}

xp_spec *xp_spec_parse_json(const char *text, const char *label, const char *dir) {
  cJSON *root = cJSON_Parse(text);
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    xp_error_at(XP_EXIT_USAGE, label, 0, "stored spec is not a JSON object");
    return NULL;
  }
  xp_spec *s = spec_new(root, NULL, label, xp_strdup(dir ? dir : "."), xp_strdup(text));
  ((struct spec_private *)(s + 1))->stored = 1;
  return s;
}

void xp_spec_free(xp_spec *s) {
  if (!s) return;
  cJSON_Delete(s->root);
  cJSON_Delete(s->lines);
  free(s->path);
  free(s->dir);
  free(((struct spec_private *)(s + 1))->text);
  cJSON_Delete(((struct spec_private *)(s + 1))->from_cli);
  free(((struct spec_private *)(s + 1))->dup_path);
  free(s);
}

/* ---- locating keys ---- */

/* from_cli[key]: true where --set gave it, the option's name where an option did. */
static void mark_given(xp_spec *s, const char *key, cJSON *how) {
  struct spec_private *p = (struct spec_private *)(s + 1);
  if (!p->from_cli) p->from_cli = cJSON_CreateObject();
  if (!cJSON_HasObjectItem(p->from_cli, key)) cJSON_AddItemToObject(p->from_cli, key, how);
  else cJSON_Delete(how);
}

void xp_spec_mark_cli(xp_spec *s, const char *set) {
  char key[128];
  snprintf(key, sizeof key, "%.*s", (int)strcspn(set, "="), set);
  mark_given(s, key, cJSON_CreateTrue());
}

void xp_spec_mark_option(xp_spec *s, const char *key, const char *option) {
  mark_given(s, key, cJSON_CreateString(option));
}

/* How the command line names the key at path: "--set PATH", or the option that gave its top-level
** key with the rest of the path ("--ranks[1]"), into out. */
static void given_as(const xp_spec *s, const char *path, char *out, size_t n) {
  const size_t top = strcspn(path, ".[");
  char key[128];
  snprintf(key, sizeof key, "%.*s", (int)top, path);
  const cJSON *how = cJSON_GetObjectItemCaseSensitive(((const struct spec_private *)(s + 1))->from_cli, key);
  if (cJSON_IsString(how)) spec_path(out, n, "%s%s", how->valuestring, path + top);
  else spec_path(out, n, "--set %s", path);
}

/* Whether the path came from the command line (--set, an import's option): its top-level key,
** or the key of a table that --set TABLE.KEY gave, or a path within either. */
static int from_cli(const xp_spec *s, const char *path) {
  const cJSON *set = ((const struct spec_private *)(s + 1))->from_cli, *k;
  cJSON_ArrayForEach(k, set) {
    const size_t n = strlen(k->string);
    if (strncmp(path, k->string, n) == 0 && (path[n] == 0 || path[n] == '.' || path[n] == '[')) return 1;
  }
  return 0;
}

int xp_spec_line(const xp_spec *s, const char *path) {
  if (!s || !path) return 0;
  if (from_cli(s, path)) return -1;
  const cJSON *l = cJSON_GetObjectItemCaseSensitive(s->lines, path);
  if (cJSON_IsNumber(l)) return xp_saturate_int(l->valuedouble);
  /* JSON specs carry no positions: find the last key of the path as a quoted string. */
  const char *text = ((const struct spec_private *)(s + 1))->text;
  if (!text) return 0;
  const char *key = strrchr(path, '.');
  key = key ? key + 1 : path;
  char needle[256];
  size_t klen = strcspn(key, "[");
  if (klen == 0 || klen > sizeof needle - 3) return 0;
  snprintf(needle, sizeof needle, "\"%.*s\"", (int)klen, key);
  const char *hit = strstr(text, needle);
  return hit ? (int)xp_line_of_offset(text, (size_t)(hit - text)) : 0;
}

/* The way on from a refused stored spec (xp rerun of a run an older xp recorded: a key it
** accepted, a value it took as written), appended to the error; "" for any other spec. No one
** can edit the stored spec and rerun takes no --set, so each refusal says what records the run
** anew (set: the --set that mends it, where one is known), not the dtype's alone. Malloc'd. */
static char *anew_advice(const xp_spec *s, const char *set) {
  if (!stored(s)) return xp_strdup("");
  return xp_asprintf("; a stored spec cannot be edited: record the run anew%s%s (xp run SPEC, or xp import FORMAT "
                     "FILES)", set ? " with --set " : "", set ? set : "");
}

/* The error at path, with exit code `code`: "FILE:LINE: PATH: msg", or "<command line>: --set
** PATH: msg" where --set gave the key ("<command line>: --OPTION: msg" where an import's option
** did). A stored spec's bad input (exit 2, not the environment's 4: that one may run on another
** machine) says how to record the run anew, with set. */
static int spec_verror(const xp_spec *s, int code, const char *path, const char *set, const char *fmt, va_list ap) {
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  char *anew = code == XP_EXIT_USAGE ? anew_advice(s, set) : xp_strdup("");
  /* A spec with neither positions nor text was made from the command line (xp import): no
  ** line to name, as for --set. */
  const int no_lines = !((const struct spec_private *)(s + 1))->text;
  int rc;
  if (path && *path) {
    /* a stored spec's key the run's --set gave is the stored spec's now: the rerun's command
    ** line has no --set */
    const int line = xp_spec_line(s, path);
    if (line < 0 && !stored(s)) {
      char given[600];
      given_as(s, path, given, sizeof given);
      rc = xp_error_at(code, "<command line>", 0, "%s: %s", given, msg);
    } else rc = xp_error_at(code, s->path, line > 0 ? line : no_lines ? 0 : 1, "%s: %s%s", path, msg, anew);
  } else rc = xp_error_at(code, s->path, no_lines ? 0 : 1, "%s%s", msg, anew);
  free(anew);
  return rc;
}

int xp_spec_error(const xp_spec *s, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = spec_verror(s, XP_EXIT_USAGE, path, NULL, fmt, ap);
  va_end(ap);
  return rc;
}

/* xp_spec_error, where `--set SET` mends the value: a stored spec's error says it. */
__attribute__((format(printf, 4, 5))) static int spec_error_set(const xp_spec *s, const char *path, const char *set,
                                                                const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = spec_verror(s, XP_EXIT_USAGE, path, set, fmt, ap);
  va_end(ap);
  return rc;
}

int xp_spec_env_error(const xp_spec *s, const char *path, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  const int rc = spec_verror(s, XP_EXIT_ENV, path, NULL, fmt, ap);
  va_end(ap);
  return rc;
}

int xp_spec_check_device(const xp_spec *s, const char *path, int device, int visible) {
  if (device < visible) return 0;
  return xp_spec_env_error(s, path, "device %d does not exist (%d GPU%s visible)", device, visible, visible == 1 ? "" : "s");
}

/* Whether text is the value (or an element of the value) of a top-level key that --set gave:
** the very string the spec holds, so a spec's own value equal to it is not taken for it. */
static int set_on_command_line(const xp_spec *s, const char *text) {
  const cJSON *set = ((const struct spec_private *)(s + 1))->from_cli, *k, *e;
  cJSON_ArrayForEach(k, set) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(s->root, k->string);
    const cJSON *list = cJSON_IsArray(v) ? v : NULL;
    if (cJSON_IsString(v) && v->valuestring == text) return 1;
    cJSON_ArrayForEach(e, list) if (cJSON_IsString(e) && e->valuestring == text) return 1;
  }
  return 0;
}

char *xp_spec_resolve(const xp_spec *s, const char *rel) {
  if (!rel) return NULL;
  /* '' names no file: prefixed, it named the folder ("/specs/: cannot read: Is a directory");
  ** a path typed on the command line (--set model_file=..., --set files=...) is the shell's,
  ** from the working folder: under the spec's it was "no model file specs/models/x.toml" */
  if (rel[0] == '/' || rel[0] == 0 || !s->dir || strcmp(s->dir, ".") == 0 || set_on_command_line(s, rel))
    return xp_strdup(rel);
  return xp_asprintf("%s/%s", s->dir, rel);
}

/* ---- canonical form ---- */

static int cmp_keys(const void *a, const void *b) {
  return strcmp((*(cJSON *const *)a)->string, (*(cJSON *const *)b)->string);
}

static cJSON *canonical_copy(const cJSON *n) {
  if (cJSON_IsObject(n)) {
    size_t count = 0;
    for (cJSON *c = n->child; c; c = c->next) count++;
    cJSON **items = xp_xmalloc((count ? count : 1) * sizeof *items);
    size_t i = 0;
    for (cJSON *c = n->child; c; c = c->next) items[i++] = c;
    qsort(items, count, sizeof *items, cmp_keys);
    cJSON *o = cJSON_CreateObject();
    for (i = 0; i < count; i++) cJSON_AddItemToObject(o, items[i]->string, canonical_copy(items[i]));
    free(items);
    return o;
  }
  if (cJSON_IsArray(n)) {
    cJSON *a = cJSON_CreateArray();
    for (cJSON *c = n->child; c; c = c->next) cJSON_AddItemToArray(a, canonical_copy(c));
    return a;
  }
  return cJSON_Duplicate(n, 0);
}

char *xp_json_canonical(const cJSON *node) {
  cJSON *c = canonical_copy(node);
  char *out = cJSON_PrintUnformatted(c);
  cJSON_Delete(c);
  /* A --set value is the command line's bytes: mended here, so that the stored spec and its hash
  ** agree. Mending moves a key in the sort order (a raw 0x95 sorted before a raw 0xc6, and their
  ** U+FFFD do not keep that order), so the mended text is canonicalised once more: it is valid
  ** UTF-8 now, and the form stays a fixed point (tests/fuzz: canonical-unstable-mended-keys). */
  char *m = xp_utf8_mended(out, strlen(out), NULL);
  if (!m) return out;
  cJSON_free(out);
  cJSON *mended = cJSON_Parse(m); /* only bytes inside strings changed: NULL only when memory ran out */
  if (!mended) return m;
  free(m);
  char *again = xp_json_canonical(mended);
  cJSON_Delete(mended);
  return again;
}

void xp_spec_hash(const xp_spec *s, char out[65]) {
  char *text = xp_json_canonical(s->root);
  xp_sha256_hex(text, strlen(text), out);
  free(text);
}

/* ---- validation ---- */

static const char *type_name(xp_type t) {
  switch (t) {
  case XP_T_STRING: return "a string";
  case XP_T_INT: return "an integer";
  case XP_T_NUMBER: return "a number";
  case XP_T_BOOL: return "true or false";
  case XP_T_STRINGS: return "an array of strings";
  case XP_T_INTS: return "an array of integers";
  case XP_T_NUMBERS: return "an array of numbers";
  case XP_T_TABLE: return "a table";
  case XP_T_TABLES: return "an array of tables";
  case XP_T_SIZES: return "an array of sizes (integers, or strings like \"14336\", \"1M\")";
  case XP_T_ANY_SCALAR_TABLE: return "a table of strings, numbers or booleans";
  }
  return "?";
}

static int is_int(const cJSON *v) {
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble) &&
         fabs(v->valuedouble) < 9007199254740992.0;
}

/* Why a number is not an integer, for the error that says so: a double holds every integer
** up to 2^53 exactly and rounds past it, so a larger one (a size in bytes written as a count
** of bits, a seed) is refused rather than stored as another value. "" when it is not a number. */
static const char *not_int_why(const cJSON *v) {
  if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble)) return "";
  if (v->valuedouble != floor(v->valuedouble)) return ", not a fraction";
  if (fabs(v->valuedouble) >= 9007199254740992.0)
    return " below 2^53 (9007199254740992) in size: numbers are read as doubles, which hold no larger one exactly";
  /* a whole number that is no size: a negative one (sizes = [-8] was said to be past 2^53) */
  return v->valuedouble < 0 ? ", not a negative number" : "";
}

/* A whole number outside a range that lies below 2^53, which the range refuses by name. */
static int ranged_whole(const xp_field *f, const cJSON *v) {
  return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble == floor(v->valuedouble) &&
         f->min < f->max && f->max < 9007199254740992.0 && f->min > -9007199254740992.0;
}

static int in_choices(const char *s, const char *const *choices) {
  for (size_t i = 0; choices[i]; i++)
    if (strcmp(s, choices[i]) == 0) return 1;
  return 0;
}

const char *xp_nearest_key(const char *key, const xp_field *fields, int declared_too) {
  xp_near near;
  xp_near_init(&near, key);
  for (const xp_field *f = fields; f && f->key; f++) xp_near_offer(&near, f->key);
  for (const xp_field *f = xp_declared_fields; declared_too && f->key; f++) xp_near_offer(&near, f->key);
  return xp_near_result(&near);
}

static int choice_error(const xp_spec *s, const char *path, const char *got, const char *const *ch) {
  char list[512] = "";
  xp_near near;
  xp_near_init(&near, got);
  for (size_t i = 0; ch[i]; i++) {
    strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
    strncat(list, ch[i], sizeof list - strlen(list) - 1);
    xp_near_offer(&near, ch[i]);
  }
  const char *meant = xp_near_result(&near);
  if (!meant) meant = xp_dtype_meant(got, ch); /* dtypes = ["bfloat16"]: "bf16" */
  char *cut = xp_value_cut(got);
  int rc = meant ? xp_spec_error(s, path, "unknown value \"%s\": did you mean \"%s\"? (expected one of: %s)", cut,
                                 meant, list)
                 : xp_spec_error(s, path, "unknown value \"%s\" (expected one of: %s)", cut, list);
  free(cut);
  return rc;
}

/* A number as it was written: whole ones in full (99999999, not 1e+08), others as the
** shortest text that reads back the same (0.1, not 0.10000000000000001). */
static const char *num_text(double v, char buf[40]) {
  if (v == floor(v) && fabs(v) < 1e18) snprintf(buf, 40, "%.0f", v);
  else xp_real_text(v, buf);
  return buf;
}

/* What one element of an array field must be: the scalar type's name (a size has none). */
static const char *element_name(xp_type t) {
  switch (t) {
  case XP_T_STRINGS: return type_name(XP_T_STRING);
  case XP_T_INTS: return type_name(XP_T_INT);
  case XP_T_NUMBERS: return type_name(XP_T_NUMBER);
  case XP_T_TABLES: return type_name(XP_T_TABLE);
  case XP_T_SIZES: return "a size";
  default: return "a value";
  }
}

static int check_range(const xp_spec *s, const char *path, const xp_field *f, double v) {
  char a[40], b[40], c[40];
  /* TOML has nan and inf: NaN fails every comparison, so a range alone would let it through
  ** (timeout_s = nan disabled every deadline) */
  if (!isfinite(v)) return xp_spec_error(s, path, "%s is not a finite number", isnan(v) ? "nan" : v < 0 ? "-inf" : "inf");
  /* past 2^53 the double is not the number written (9007199254740993 reads as ...992): not quoted */
  const char *written = fabs(v) < 9007199254740992.0 ? num_text(v, a) : v < 0 ? "a number below -2^53" : "a number past 2^53";
  if (f->min < f->max && (v < f->min || v > f->max))
    return xp_spec_error(s, path, "%s is out of range [%s, %s]", written, num_text(f->min, b), num_text(f->max, c));
  return 0;
}

/* What was written where another type was expected, for "expected X, found Y": burst = "122"
** said only "expected an integer", as if 122 were none (the quotes make it a string). The
** words are TOML's, as specs are written: a table, not an object. */
static void found_text(const cJSON *v, char *buf, size_t n) {
  char num[40];
  if (cJSON_IsString(v)) {
    char *cut = xp_value_cut(v->valuestring);
    snprintf(buf, n, "a string (\"%s\")", cut);
    free(cut);
  } else if (cJSON_IsBool(v)) snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
  else if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
    snprintf(buf, n, "%s", isnan(v->valuedouble) ? "nan" : v->valuedouble < 0 ? "-inf" : "inf");
  else if (cJSON_IsNumber(v)) snprintf(buf, n, "a number (%s)", num_text(v->valuedouble, num));
  else snprintf(buf, n, "%s", cJSON_IsArray(v) ? "an array" : cJSON_IsObject(v) ? "a table" : "null");
}

/* ", found ..." for a value not of the type expected, or why a number is no integer. */
static const char *found_why(const cJSON *v, xp_type want, char *buf, size_t n) {
  const int integers = want == XP_T_INT || want == XP_T_INTS || want == XP_T_SIZES;
  if (integers && cJSON_IsNumber(v) && isfinite(v->valuedouble)) return not_int_why(v);
  char what[160];
  found_text(v, what, sizeof what);
  snprintf(buf, n, ", found %s", what);
  return buf;
}

/* A configuration label given blank (--set model=$MODEL with MODEL unset in a script) recorded
** model '' beside the runs of no model: neither undeclared nor a name, a configuration of its
** own in every query. */
static int blank_label(const xp_field *f, const char *v) {
  static const char *const labels[] = {"model", "engine", "dtype", "quantization", "gpu", NULL};
  int label = 0;
  for (int i = 0; labels[i]; i++) label |= strcmp(f->key, labels[i]) == 0;
  while (label && isspace((unsigned char)*v)) v++;
  return label && !*v;
}

/* The declared dtype (or a quantization naming one, "FP8") spelt as another tool spells it
** ("bfloat16", "torch.float8_e4m3fn", "BF16"):
** the queries match runs by the label, and a trace declared "bfloat16" found no bf16 gemm run
** (decode_gap_analysis.sql: "another dtype"), a configuration of its own beside the "bf16" ones. */
static int dtype_respelt(const xp_spec *s, const char *path, const xp_field *f, const char *v) {
  /* nccl_burst's dtype may name its element type (fp8_e4m3) too */
  const int nccl = strcmp(xp_spec_str(s->root, "kind", ""), "nccl_burst") == 0;
  const int label = !f->choices && (strcmp(f->key, "dtype") == 0 || strcmp(f->key, "quantization") == 0);
  const char *meant = !label ? NULL : nccl ? xp_dtype_meant(v, NULL) : xp_dtype_label_meant(v);
  if (!meant) return 0;
  char *cut = xp_value_cut(v), *set = xp_asprintf("%s=%s", path, meant);
  spec_error_set(s, path, set, "\"%s\": xp spells this dtype \"%s\" (queries match runs by the dtype as written)",
                 cut, meant);
  free(set);
  free(cut);
  return XP_EXIT_USAGE;
}

/* A required string names something the results carry (a shape's name, a model file's name):
** blank, a kernel_variant case was "cublas_bf16//m1" and a model file's runs recorded model ''. */
static int blank_required(const xp_field *f, const char *v) {
  while (f->required && isspace((unsigned char)*v)) v++;
  return f->required && !*v;
}

static int check_value(const xp_spec *s, const cJSON *v, const char *path, const xp_field *f) {
  char sub[512], found[200];
  int i = 0;
  const cJSON *e;
  switch (f->type) {
  case XP_T_STRING:
    if (!cJSON_IsString(v)) break;
    if (f->choices && !in_choices(v->valuestring, f->choices))
      return choice_error(s, path, v->valuestring, f->choices);
    if (blank_label(f, v->valuestring))
      return xp_spec_error(s, path, "blank (an unset shell variable?): leave the key out where it is not known");
    if (blank_required(f, v->valuestring))
      return xp_spec_error(s, path, "blank, where a value is required: %s", f->help);
    return dtype_respelt(s, path, f, v->valuestring);
  case XP_T_INT:
    /* burst = 1e20 is past burst's range before it is past 2^53: the range says what would do */
    if (!is_int(v) && !(ranged_whole(f, v))) break;
    return check_range(s, path, f, v->valuedouble);
  case XP_T_NUMBER:
    if (!cJSON_IsNumber(v)) break;
    return check_range(s, path, f, v->valuedouble);
  case XP_T_BOOL:
    if (!cJSON_IsBool(v)) break;
    return 0;
  case XP_T_STRINGS:
  case XP_T_INTS:
  case XP_T_NUMBERS:
  case XP_T_SIZES:
  case XP_T_TABLES:
    if (!cJSON_IsArray(v)) break;
    cJSON_ArrayForEach(e, v) {
      spec_path(sub, sizeof sub, "%s[%d]", path, i++);
      int ok = f->type == XP_T_STRINGS ? cJSON_IsString(e)
               : f->type == XP_T_INTS  ? is_int(e)
               : f->type == XP_T_NUMBERS ? cJSON_IsNumber(e)
               : f->type == XP_T_SIZES ? (is_int(e) && e->valuedouble >= 0) || cJSON_IsString(e)
                                       : cJSON_IsObject(e);
      if (!ok)
        return xp_spec_error(s, sub, "expected %s%s (%s is %s)", element_name(f->type),
                             found_why(e, f->type, found, sizeof found), path, type_name(f->type));
      if (f->type == XP_T_STRINGS && f->choices && !in_choices(e->valuestring, f->choices))
        return choice_error(s, sub, e->valuestring, f->choices);
      if ((f->type == XP_T_INTS || f->type == XP_T_NUMBERS) && check_range(s, sub, f, e->valuedouble))
        return XP_EXIT_USAGE;
      if (f->type == XP_T_SIZES && cJSON_IsString(e)) {
        int64_t bytes;
        if (xp_parse_size(e->valuestring, &bytes) != 0) {
          char *cut = xp_value_cut(e->valuestring);
          xp_spec_error(s, sub, "\"%s\" is not a size (examples: 14336, \"1M\", \"256MiB\")", cut);
          free(cut);
          return XP_EXIT_USAGE;
        }
      }
      if (f->type == XP_T_TABLES && xp_spec_check_fields(s, e, sub, f->sub, 0)) return XP_EXIT_USAGE;
    }
    return 0;
  case XP_T_TABLE:
    if (!cJSON_IsObject(v)) break;
    return xp_spec_check_fields(s, v, path, f->sub, 0);
  case XP_T_ANY_SCALAR_TABLE:
    if (!cJSON_IsObject(v)) break;
    cJSON_ArrayForEach(e, v) {
      key_path(sub, sizeof sub, path, e->string);
      if (!cJSON_IsString(e) && !cJSON_IsNumber(e) && !cJSON_IsBool(e))
        return xp_spec_error(s, sub, "expected a string, number or boolean");
      /* TOML's nan and inf, which the stored spec (JSON) holds as null: refused there */
      if (cJSON_IsNumber(e) && check_range(s, sub, f, e->valuedouble)) return XP_EXIT_USAGE;
    }
    return 0;
  }
  return xp_spec_error(s, path, "expected %s%s", type_name(f->type), found_why(v, f->type, found, sizeof found));
}

const xp_field *xp_field_find(const xp_field *fields, const char *key) {
  for (const xp_field *f = fields; f && f->key; f++)
    if (strcmp(f->key, key) == 0) return f;
  return NULL;
}

/* Whether the table at path opened with a TOML header ([size_range], [[shapes]]): its line
** starts with '['. An inline table's line starts with its key or '{', and JSON has no headers. */
static int header_table(const xp_spec *s, const char *path) {
  const char *text = ((const struct spec_private *)(s + 1))->text;
  const int line = xp_spec_line(s, path);
  if (!text || line <= 0 || is_json(s->path, text)) return 0;
  for (int i = 1; i < line && text; i++)
    if ((text = strchr(text, '\n'))) text++;
  return text && text[strspn(text, " \t")] == '[';
}

const char *xp_spec_top_key_note(const xp_spec *s, const char *table_path, const char *key) {
  const xp_kind *k = xp_kind_find(xp_spec_str(s->root, "kind", ""));
  if (!k || !(strcmp(key, "kind") == 0 || xp_field_find(k->fields, key) || xp_field_find(xp_declared_fields, key)))
    return "";
  if (!header_table(s, table_path)) return ": a top-level key (the whole run's), not one of this table's";
  return ": a top-level key, read into this table as TOML reads every key after a [table] or "
         "[[table]] header (write it above the first header)";
}

int xp_spec_check_fields(const xp_spec *s, const cJSON *obj, const char *path,
                         const xp_field *fields, int top_level) {
  char sub[512];
  const cJSON *v;
  /* unknown keys first, the one written first named (TOML tables come back sorted) */
  const cJSON *unknown = NULL;
  int unknown_line = 0;
  cJSON_ArrayForEach(v, obj) {
    if (top_level && strcmp(v->string, "kind") == 0) continue;
    if (xp_field_find(fields, v->string) || (top_level && xp_field_find(xp_declared_fields, v->string))) continue;
    key_path(sub, sizeof sub, path, v->string);
    const int line = xp_spec_line(s, sub);
    if (!unknown || (line > 0 && (unknown_line <= 0 || line < unknown_line))) {
      unknown = v;
      unknown_line = line;
    }
  }
  if (unknown) {
    key_path(sub, sizeof sub, path, unknown->string);
    const char *meant = xp_nearest_key(unknown->string, fields, top_level);
    const char *top = top_level ? "" : xp_spec_top_key_note(s, path, unknown->string);
    if (meant && !*top) return xp_spec_error(s, sub, "unknown key: did you mean \"%s\"?", meant);
    return xp_spec_error(s, sub, "unknown key%s", top);
  }
  cJSON_ArrayForEach(v, obj) {
    key_path(sub, sizeof sub, path, v->string);
    if (top_level && strcmp(v->string, "kind") == 0) continue;
    const xp_field *f = xp_field_find(fields, v->string);
    if (!f && top_level) f = xp_field_find(xp_declared_fields, v->string);
    if (check_value(s, v, sub, f)) return XP_EXIT_USAGE;
  }
  for (const xp_field *f = fields; f && f->key; f++) {
    if (f->required && !cJSON_GetObjectItemCaseSensitive(obj, f->key)) {
      key_path(sub, sizeof sub, path, f->key);
      /* the line of the table that lacks it (the file's first line for the top level) */
      const int line = path && *path ? xp_spec_line(s, path) : 1;
      char *anew = anew_advice(s, NULL);
      xp_error_at(XP_EXIT_USAGE, s->path, line > 0 ? line : 1, "%s: required key is missing%s", sub, anew);
      free(anew);
      return XP_EXIT_USAGE;
    }
  }
  return 0;
}

/* ---- getters ---- */

const char *xp_spec_str(const cJSON *obj, const char *key, const char *dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsString(v) ? v->valuestring : dflt;
}

int64_t xp_spec_int(const cJSON *obj, const char *key, int64_t dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? xp_saturate_int64(v->valuedouble) : dflt;
}

int xp_json_number(const cJSON *v, double *x) {
  if (cJSON_IsNumber(v)) {
    *x = v->valuedouble;
    return 1;
  }
  return cJSON_IsString(v) && xp_parse_double(v->valuestring, x) == 0;
}

typedef struct {
  cJSON *item;
  size_t at;
} json_member;

static int by_key_then_place(const void *a, const void *b) {
  const json_member *x = a, *y = b;
  const int c = strcmp(x->item->string, y->item->string);
  return c ? c : (x->at > y->at) - (x->at < y->at);
}

/* Sorted by key, the members one key names sit together, the last given last: each but the
** last goes. Sorting keeps an object of many keys (a fuzzed one) from taking n^2 compares. */
static void drop_earlier_members(cJSON *o) {
  size_t n = 0;
  for (const cJSON *c = o->child; c; c = c->next) n++;
  if (n < 2) return;
  json_member *m = xp_xmalloc(n * sizeof *m);
  size_t i = 0;
  for (cJSON *c = o->child; c; c = c->next, i++) m[i] = (json_member){c, i};
  qsort(m, n, sizeof *m, by_key_then_place);
  for (i = 0; i + 1 < n; i++)
    if (strcmp(m[i].item->string, m[i + 1].item->string) == 0) cJSON_Delete(cJSON_DetachItemViaPointer(o, m[i].item));
  free(m);
}

size_t xp_json_control_in_string(const char *t, size_t from, size_t to) {
  int in_str = 0;
  for (size_t i = from; i < to; i++) {
    if (!in_str) in_str = t[i] == '"';
    else if ((unsigned char)t[i] < 0x20) return i;
    else if (t[i] == '\\') i++;
    else if (t[i] == '"') in_str = 0;
  }
  return to;
}

void xp_json_keep_last(cJSON *v) {
  if (cJSON_IsObject(v)) drop_earlier_members(v);
  cJSON *c;
  cJSON_ArrayForEach(c, v) {
    if (cJSON_IsObject(c) || cJSON_IsArray(c)) xp_json_keep_last(c);
  }
}

double xp_spec_num(const cJSON *obj, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

int xp_spec_bool(const cJSON *obj, const char *key, int dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

int xp_spec_sizes(const xp_spec *s, const cJSON *obj, const char *key, const char *path,
                  int64_t **out) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = NULL;
  if (!cJSON_IsArray(arr)) return 0;
  int n = cJSON_GetArraySize(arr), i = 0;
  int64_t *v = xp_xmalloc(sizeof *v * (size_t)(n ? n : 1));
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) {
    if (cJSON_IsNumber(e) && e->valuedouble >= 0) v[i] = xp_saturate_int64(e->valuedouble);
    else if (!cJSON_IsString(e) || xp_parse_size(e->valuestring, &v[i]) != 0) {
      char sub[300];
      spec_path(sub, sizeof sub, "%s[%d]", path, i);
      xp_spec_error(s, sub, "not a size");
      free(v);
      return -1;
    }
    i++;
  }
  *out = v;
  return n;
}

/* The element's value, or its member's, as text to compare ("" where it has none). */
static char *distinct_text(const cJSON *e, const char *member) {
  if (member) e = cJSON_GetObjectItemCaseSensitive(e, member);
  if (cJSON_IsString(e)) return xp_strdup(e->valuestring);
  if (cJSON_IsNumber(e)) {
    char buf[40];
    xp_real_text(e->valuedouble, buf);
    return xp_strdup(buf);
  }
  return NULL;
}

int xp_spec_check_distinct(const xp_spec *spec, const char *key, const char *member) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(spec->root, key), *a, *b;
  int i = 0, rc = 0;
  cJSON_ArrayForEach(a, list) {
    char *ta = distinct_text(a, member);
    for (b = list->child; b != a && ta && rc == 0; b = b->next) {
      char *tb = distinct_text(b, member);
      if (tb && strcmp(ta, tb) == 0) {
        char path[300];
        if (member) spec_path(path, sizeof path, "%s[%d].%s", key, i, member);
        else spec_path(path, sizeof path, "%s[%d]", key, i);
        rc = xp_spec_error(spec, path, "%s is given twice", ta);
      }
      free(tb);
    }
    free(ta);
    if (rc) return rc;
    i++;
  }
  return 0;
}

int xp_spec_check_weights(const xp_spec *spec, const char *path, const char *product, double weights,
                          int log2_limit, const char *why) {
  if (weights <= ldexp(1.0, log2_limit)) return 0;
  return xp_spec_error(spec, path, "%s = %.3g weights: past 2^%d, %s", product, weights, log2_limit, why);
}
