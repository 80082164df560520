/*
** A gzip'd input read whole as the text it inflates to, through the trace reader (tt_source.c:
** ISA-L, else zlib; members one after another, as cat a.gz b.gz makes them). Every importer that
** takes a gzip'd file (nccl-tests' logs, vLLM's results) reads it here, so that each refuses a
** damaged one in the same words, and the run keeps the text, never the .gz bytes.
*/
#include <stdlib.h>
#include <string.h>
#include "torch_trace/tt_source.h"
#include "xp.h"

/* The reader's refusal (err: "PATH: why") said of what the file holds: its counts are of the text
** inflated ("bytes of text", not "of JSON" where it is a log), and damage is damage, not the
** overwritten trace of tt_source.c's OVERWRITTEN, which only several ranks exporting to one .gz
** path make. */
static int refusal(const char *path, char *err, const char *what) {
  const size_t np = strlen(path);
  char *why = strncmp(err, path, np) == 0 && strncmp(err + np, ": ", 2) == 0 ? err + np + 2 : err;
  char *cut = strstr(why, ": damaged, or written over");
  if (cut) *cut = 0;
  char *json = strstr(why, " bytes of JSON");
  if (json) {
    const size_t tail = strlen(json + 14);
    char said[600];
    snprintf(said, sizeof said, "%.*s bytes of %s%.*s", (int)(json - why), why, what, (int)tail, json + 14);
    return xp_error_at(XP_EXIT_USAGE, path, 0, "%s", said);
  }
  return xp_error_at(XP_EXIT_USAGE, path, 0, "%s", why);
}

int tt_gzipped(const char *text, size_t len) {
  const unsigned char *u = (const unsigned char *)text;
  return len >= 2 && u[0] == 0x1f && u[1] == 0x8b;
}

int tt_inflate_text(const char *path, char **text, size_t *len, const char *what) {
  if (!tt_gzipped(*text, *len)) return 0;
  char err[600];
  tt_source *src = tt_source_open(path, err, sizeof err);
  size_t n = 0, cap = *len * 4 + 1;
  char *out = xp_xmalloc(cap);
  const char *data;
  size_t got;
  int more = src ? 0 : -1;
  while (src && (more = tt_source_next(src, &data, &got, err, sizeof err)) == 1) {
    while (n + got + 1 > cap) out = xp_xrealloc(out, cap *= 2);
    memcpy(out + n, data, got);
    n += got;
  }
  if (src) tt_source_close(src);
  if (more < 0) {
    free(out);
    if (!src && strstr(err, TT_NOT_REGULAR))
      return xp_error_at(XP_EXIT_USAGE, path, 0, "gzip-compressed and not a regular file, which the gzip reader "
                         "opens again: save it to a file (or gunzip it) first");
    return refusal(path, err, what);
  }
  out[n] = 0;
  free(*text);
  *text = out;
  *len = n;
  return 0;
}
