/*
** A container's log as the kubelet keeps it on its node (CRI's format, /var/log/pods/.../0.log:
** "2025-06-01T10:11:12.123456789Z stdout F LINE"), copied from there when the pod is gone, with
** the lines its runtime split put back together. containerd splits a line longer than 16 KiB
** into "P" (partial) pieces and a final "F" one (pkg/cri/io/logger.go); CRI-O's conmon writes as
** "P" whatever it read that did not end a line, and a test's stdout into a pipe is block-buffered,
** so any line may straddle two reads. The readers take each line as a whole line (a row cut in
** two is a row left out; an INFO line so cut, a connection lost), so pieces are joined first.
*/
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

/* Whether s (n bytes, no newline) is a CRI log line: an RFC 3339 stamp, "stdout" or "stderr", its
** tag, and its text after a space (none where the text is empty). */
static int read_cri_line(const char *s, size_t n, cri_line *c) {
  if (n < 11 || !isdigit((unsigned char)s[0]) || s[4] != '-' || s[7] != '-' || s[10] != 'T') return 0;
  const char *space = memchr(s, ' ', n);
  if (!space) return 0;
  const char *q = space + 1;
  const size_t rest = n - (size_t)(q - s);
  if (rest < 8 || (memcmp(q, "stdout ", 7) != 0 && memcmp(q, "stderr ", 7) != 0)) return 0;
  if ((q[7] != 'P' && q[7] != 'F') || (rest > 8 && q[8] != ' ')) return 0;
  c->stream = q[3] == 'e';
  c->tag = q[7];
  c->prefix = (size_t)(q - s) + (rest > 8 ? 9 : 8);
  return 1;
}

static int has_pieces(const char *text, size_t len) {
  for (size_t i = 0; i < len;) {
    const char *nl = memchr(text + i, '\n', len - i);
    const size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
    cri_line c;
    if (read_cri_line(text + i, l, &c) && c.tag == 'P') return 1;
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
    const size_t l = nl ? (size_t)(nl - line) : len - i;
    cri_line c;
    i += l + 1;
    if (read_cri_line(line, l, &c) && c.tag == 'P') {
      hold(&h[c.stream], line + c.prefix, l - c.prefix);
    } else if (read_cri_line(line, l, &c) && h[c.stream].len) {
      memcpy(out + o, line, c.prefix);
      memcpy(out + o + c.prefix, h[c.stream].text, h[c.stream].len);
      o += c.prefix + h[c.stream].len;
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
