/*
** A container's log as the kubelet keeps it on its node (CRI's format, /var/log/pods/.../0.log:
** "2025-06-01T10:11:12.123456789Z stdout F LINE"), copied from there when the pod is gone, with
** the lines its runtime split put back together. containerd splits a line longer than 16 KiB
** into "P" (partial) pieces and a final "F" one (pkg/cri/io/logger.go); CRI-O's conmon writes as
** "P" whatever it read that did not end a line, and a test's stdout into a pipe is block-buffered,
** so any line may straddle two reads. The readers take each line as a whole line (a row cut in
** two is a row left out; an INFO line so cut, a connection lost), so pieces are joined first.
** Docker's own log of a container (json-file, /var/lib/docker/containers/ID/ID-json.log) is read
** here too, as the text its records carry.
*/
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "nccl_tests.h"
#include "xp.h"

typedef struct cri_line {
  size_t prefix; /* the stamp, stream and tag with the space after it */
  int stream;    /* 0 stdout, 1 stderr */
  char tag;      /* 'P' a piece, 'F' a line's last piece */
} cri_line;

/* The stream and tag after a CRI line's stamp, p its n bytes on ("stdout F LINE"): the length of
** them and the space after (none where the text is empty and that space gone, as an editor or a
** copy that trims lines leaves it; the kubelet writes it), 0 where p holds no stream and tag. The
** tag may be followed by others after a ':' ("F:x"): CRI keeps the field open to more, and the
** kubelet's reader (kuberuntime/logs/logs.go's parseCRILog) splits it at ':' and reads the first. */
size_t nt_cri_stream_tag(const char *p, size_t n, int *stream, char *tag) {
  if (n < 8 || (memcmp(p, "stdout ", 7) != 0 && memcmp(p, "stderr ", 7) != 0)) return 0;
  if (p[7] != 'P' && p[7] != 'F') return 0;
  size_t end = 8;
  if (end < n && p[end] == ':')
    while (end < n && p[end] != ' ') end++;
  if (end < n && p[end] != ' ') return 0;
  *stream = p[3] == 'e';
  *tag = p[7];
  return end < n ? end + 1 : end;
}

/* Whether s (n bytes, no newline) is a CRI log line: an RFC 3339 stamp, a space, its stream and
** tag. */
static int read_cri_line(const char *s, size_t n, cri_line *c) {
  if (n < 11 || !isdigit((unsigned char)s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T') return 0;
  const char *space = memchr(s, ' ', n);
  if (!space) return 0;
  const size_t stamp = (size_t)(space + 1 - s);
  const size_t tagged = nt_cri_stream_tag(space + 1, n - stamp, &c->stream, &c->tag);
  c->prefix = stamp + tagged;
  return tagged != 0;
}

/* Where line (l bytes) ends before its newline: before a '\r' too, a log copied with CRLF line
** ends (a piece keeps none: its line's own ends it). */
static size_t text_end(const char *line, size_t l) {
  return l && line[l - 1] == '\r' ? l - 1 : l;
}

static int has_pieces(const char *text, size_t len) {
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(text + i, '\n', len - i);
    const size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
    cri_line c;
    if (read_cri_line(text + i, text_end(text + i, l), &c) && c.tag == 'P') return 1;
    i += l + 1;
  }
  return 0;
}

/* A stream's pieces so far. */
typedef struct held {
  char *text;
  size_t len, cap;
} held;

static void hold(held *h, const char *s, size_t n) {
  if (n == 0) return;
  if (h->len + n > h->cap) {
    h->cap = (h->len + n) * 2;
    h->text = xp_xrealloc(h->text, h->cap);
  }
  memcpy(h->text + h->len, s, n);
  h->len += n;
}

/*
** The text with each split line whole: a "P" piece's line is left empty, so that every line keeps
** its number, and the stream's final "F" line gets the pieces before its own text (another
** stream's lines between them stay as they are). Pieces with no final one (the log copied while
** the line was written) end the text as a line of their own. NULL where no line was split.
*/
char *nt_cri_join(const char *text, size_t len, size_t *out_len) {
  if (!has_pieces(text, len)) return NULL;
  char *out = xp_xmalloc(len + 2); /* a piece's stamp is dropped: never longer, but for a last newline */
  size_t o = 0;
  held h[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
  for (size_t i = 0; i < len;) {
    const char *line = text + i, *nl = memchr(line, '\n', len - i);
    const size_t l = nl ? (size_t)(nl - line) : len - i, end = text_end(line, l);
    cri_line c;
    i += l + 1;
    if (read_cri_line(line, end, &c) && c.tag == 'P') {
      hold(&h[c.stream], line + c.prefix, end - c.prefix);
    } else if (read_cri_line(line, end, &c) && h[c.stream].len) {
      memcpy(out + o, line, c.prefix);
      o += c.prefix;
      if (line[c.prefix - 1] != ' ') out[o++] = ' '; /* an empty last piece, its space trimmed */
      memcpy(out + o, h[c.stream].text, h[c.stream].len);
      o += h[c.stream].len;
      memcpy(out + o, line + c.prefix, l - c.prefix);
      o += l - c.prefix;
      h[c.stream].len = 0;
    } else {
      memcpy(out + o, line, l);
      o += l;
    }
    if (nl) out[o++] = '\n';
  }
  for (int s = 0; s < 2; s++) {
    if (o && out[o - 1] != '\n' && h[s].len) out[o++] = '\n';
    memcpy(out + o, h[s].text ? h[s].text : "", h[s].len);
    o += h[s].len;
    free(h[s].text);
  }
  out[o] = 0;
  *out_len = o;
  return out;
}

/* ---- Docker's json-file log ---- */

/*
** One JSON record a line, {"log":"TEXT\n","stream":"stdout","time":"2025-06-01T10:11:12.123456789Z"}
** (Docker's json-file driver, docs.docker.com/engine/logging/drivers/json-file; "attrs" after the
** stream with --log-opt labels, env or tag), '<' and '>' written as \u003c and \u003e (Open MPI's
** "<stdout>:"). The daemon reads a container's output in pieces of 16 KiB: a longer line is
** several records, all but the last without their "\n". docker logs prints the text; a copy of the
** file is read as that text: a piece's line left empty, so that each line keeps its number, the
** stream's line that ends it given the pieces before it.
*/

/* Record s (n bytes) without the "\u0000" escapes in its strings, in a copy the caller frees, or
** NULL where it holds none; *nuls their count. cJSON ends a string at a NUL it decodes, and so would
** cut the text there, its "\n" with it: the line would run into the next record's. Outside its
** strings a record holds no backslash, and inside each backslash begins an escape of its own. */
static char *without_nul_escapes(const char *s, size_t *n, int *nuls) {
  *nuls = 0;
  if (!memmem(s, *n, "\\u0000", 6)) return NULL;
  char *copy = xp_xmalloc(*n);
  size_t o = 0;
  for (size_t i = 0; i < *n;) {
    if (s[i] == '\\' && i + 6 <= *n && memcmp(s + i + 1, "u0000", 5) == 0) {
      i += 6;
      (*nuls)++;
      continue;
    }
    const size_t step = s[i] == '\\' && i + 1 < *n ? 2 : 1;
    memcpy(copy + o, s + i, step);
    o += step;
    i += step;
  }
  *n = o;
  return copy;
}

/* The record of line s (n bytes): its "log" text and stream (0 stdout, 1 stderr), *nuls the NULs
** left out of its text, or NULL where s is not one. Its keys in any order, spaced as a tool that
** re-wrote the records (Python's json, jq, a log shipper) spaces them. The caller frees the record. */
static cJSON *docker_record(const char *s, size_t n, const char **log, int *stream, int *nuls) {
  char *copy = without_nul_escapes(s, &n, nuls);
  cJSON *rec = cJSON_ParseWithLength(copy ? copy : s, n);
  free(copy);
  const cJSON *text = cJSON_GetObjectItemCaseSensitive(rec, "log");
  const cJSON *from = cJSON_GetObjectItemCaseSensitive(rec, "stream");
  if (!cJSON_IsString(text) || !cJSON_IsString(from) ||
      (strcmp(from->valuestring, "stdout") != 0 && strcmp(from->valuestring, "stderr") != 0)) {
    cJSON_Delete(rec);
    return NULL;
  }
  *log = text->valuestring;
  *stream = from->valuestring[3] == 'e';
  return rec;
}

/* Whether the text's first line is a json-file record: parsed, not matched by its first bytes. */
static int is_docker_log(const char *text, size_t len) {
  size_t i = nt_bom(text, len);
  if (i >= len || text[i] != '{') return 0;
  const char *nl = memchr(text + i, '\n', len - i);
  const char *log;
  int stream, nuls;
  cJSON *rec = docker_record(text + i, nl ? (size_t)(nl - (text + i)) : len - i, &log, &stream, &nuls);
  cJSON_Delete(rec);
  return rec != NULL;
}

/* The NULs left out of the records' text, said once (a program that writes one likely writes
** many): where the first was, and how many in how many records. */
static void say_nul_records(const char *path, long first_line, int records, int count) {
  if (records == 1 && count == 1)
    xp_warn("%s:%ld: a NUL character (\\u0000) in the log's text, left out", path, first_line);
  else if (records > 0)
    xp_warn("%s:%ld: %d NUL characters (\\u0000) in %d record%s text, left out (the first in this one)", path,
            first_line, count, records, records == 1 ? "'s" : "s'");
}

int nt_docker_text(const char *path, const char *text, size_t len, char **out, size_t *out_len) {
  *out = NULL;
  if (!is_docker_log(text, len)) return 0;
  char *o = xp_xmalloc(len + 2); /* each record's keys and stamp dropped: never longer */
  size_t n = 0;
  held h[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
  long line_no = 0, nul_line = 0;
  int rc = 0, nul_records = 0, nul_count = 0;
  for (size_t i = nt_bom(text, len); i < len && rc == 0;) {
    const char *line = text + i, *nl = memchr(line, '\n', len - i);
    const size_t l = nl ? (size_t)(nl - line) : len - i;
    i += l + 1;
    line_no++;
    const char *log;
    int stream, nuls = 0;
    cJSON *rec = strspn(line, " \t\r") >= l ? NULL : docker_record(line, l, &log, &stream, &nuls);
    if (rec && nuls && !nul_records++) nul_line = line_no;
    if (rec) nul_count += nuls;
    if (!rec && strspn(line, " \t\r") < l && !nl) /* the file copied while the daemon wrote it */
      xp_warn("%s:%ld: Docker log record cut short, left out", path, line_no);
    else if (!rec && strspn(line, " \t\r") < l) {
      rc = xp_error_at(XP_EXIT_USAGE, path, line_no, "not a Docker log record, as the lines above are");
      break;
    }
    if (rec) {
      const size_t t = strlen(log);
      if (t && log[t - 1] == '\n') {
        memcpy(o + n, h[stream].text ? h[stream].text : "", h[stream].len);
        n += h[stream].len;
        h[stream].len = 0;
        memcpy(o + n, log, t - 1);
        n += t - 1;
      } else {
        hold(&h[stream], log, t);
      }
      cJSON_Delete(rec);
    }
    o[n++] = '\n';
  }
  for (int s = 0; s < 2; s++) { /* pieces whose line the copy did not reach */
    memcpy(o + n, h[s].text ? h[s].text : "", h[s].len);
    n += h[s].len;
    if (h[s].len) o[n++] = '\n';
    free(h[s].text);
  }
  if (rc) {
    free(o);
    return rc;
  }
  say_nul_records(path, nul_line, nul_records, nul_count);
  o[n] = 0;
  *out = o;
  *out_len = n;
  return 0;
}
