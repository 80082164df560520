/*
** The event framer (see tt_json.h). Hot loop of the importer: every byte of a trace passes
** through scan_string or skip_value once. Strings (most of a trace's bytes: kernel names are
** hundreds of characters) are scanned sixteen bytes at a time with SSE2 where the compiler
** offers it.
*/
#include "tt_json.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include "xp.h"

enum {
  ST_START,     /* before the document */
  ST_TOP_FIRST, /* after the top-level '{' */
  ST_TOP_KEY,   /* after ',' between top-level members */
  ST_TOP_AFTER, /* after a top-level value */
  ST_EV_FIRST,  /* after the '[' of traceEvents */
  ST_EV_NEXT,   /* after ',' between events */
  ST_EV_AFTER,  /* after an event */
  ST_TAIL,      /* after the document: only whitespace may follow */
  ST_EV_BARE    /* flag: the document is a bare array of events (Chrome's array format) */
};

typedef struct scan {
  const char *err; /* what is wrong, or NULL */
  const char *at;  /* where */
  int more;        /* the window ended first */
  int nonfinite;   /* NaN and infinities met (not JSON, but written by Kineto and Python) */
} scan;

static const char *fail(scan *sc, const char *at, const char *what) {
  sc->err = what;
  sc->at = at;
  return NULL;
}

static const char *more(scan *sc) {
  sc->more = 1;
  return NULL;
}

static inline const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p;
}

/* Bytes that end a plain run inside a string: the quote, the backslash, control characters. */
static const unsigned char string_special[256] = {
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 0, 0, 1, ['\\'] = 1};

static int is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p is at the opening quote; returns the position after the closing quote. */
static const char *scan_string(const char *p, const char *end, scan *sc) {
  p++;
  for (;;) {
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    while (end - p >= 16) {
      __m128i v = _mm_loadu_si128((const __m128i *)p);
      __m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                 _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
      int m = _mm_movemask_epi8(hit);
      if (m) {
        p += __builtin_ctz((unsigned)m);
        goto special;
      }
      p += 16;
    }
#endif
    while (p < end && !string_special[(unsigned char)*p]) p++;
    if (p >= end) return more(sc);
#ifdef __SSE2__
  special:
#endif
    if (*p == '"') return p + 1;
    if (*p != '\\') return fail(sc, p, "control character inside a string");
    if (end - p < 2) return more(sc);
    switch (p[1]) {
      case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        p += 2;
        break;
      case 'u':
        if (end - p < 6) return more(sc);
        if (!is_hex(p[2]) || !is_hex(p[3]) || !is_hex(p[4]) || !is_hex(p[5]))
          return fail(sc, p, "bad \\u escape in a string");
        p += 6;
        break;
      default:
        return fail(sc, p, "bad escape in a string");
    }
  }
}

static const char *scan_literal(const char *p, const char *end, scan *sc);

/* A number by JSON's grammar: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static const char *scan_number(const char *p, const char *end, scan *sc) {
  const char *s = p;
  if (p < end && *p == '-') p++;
  if (p >= end) return more(sc);
  if (*p == 'i' || *p == 'I' || *p == 'n') return scan_literal(s, end, sc); /* -inf, -Infinity, -nan */
  if (*p == '0') {
    p++;
  } else if (*p >= '1' && *p <= '9') {
    while (p < end && *p >= '0' && *p <= '9') p++;
  } else {
    return fail(sc, s, "expected a value");
  }
  if (p < end && *p == '.') {
    p++;
    const char *d = p;
    while (p < end && *p >= '0' && *p <= '9') p++;
    if (p == d && p < end) return fail(sc, s, "bad number");
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    if (p < end && (*p == '+' || *p == '-')) p++;
    const char *d = p;
    while (p < end && *p >= '0' && *p <= '9') p++;
    if (p == d && p < end) return fail(sc, s, "bad number");
  }
  /* A number that touches the window's end may continue in the next one. */
  if (p >= end) return more(sc);
  return p;
}

/* true, false, null; and the non-finite numbers JSON lacks but real traces hold: Kineto wrote
** "memory bandwidth (GB/s)": inf for a zero-duration copy (pytorch/kineto#105), C++ prints
** nan and -nan, Python's json writes NaN, Infinity and -Infinity. They are counted; a field
** the importer reads refuses them there, where it knows what the field means. */
static const char *scan_literal(const char *p, const char *end, scan *sc) {
  static const char *const words[] = {"true", "false", "null", "nan", "NaN", "inf", "Infinity"};
  const char *s = p;
  if (p < end && *p == '-') p++; /* only before a non-finite number: scan_number sends it here */
  if (p >= end) return more(sc);
  for (int i = 0; i < (int)(sizeof words / sizeof words[0]); i++) {
    size_t n = strlen(words[i]);
    if (words[i][0] != *p || (s < p && i < 3)) continue;
    if ((size_t)(end - p) < n) {
      if (memcmp(p, words[i], (size_t)(end - p)) == 0) return more(sc);
      continue;
    }
    if (memcmp(p, words[i], n) != 0) continue;
    if (i >= 3) sc->nonfinite++;
    return p + n;
  }
  return fail(sc, s, "expected a value");
}

/* Skip one value starting at p (whitespace already skipped), validating it. An explicit stack
** of closers replaces recursion, so a hostile nesting depth cannot overflow the C stack. */
static const char *skip_value(const char *p, const char *end, scan *sc) {
  char stack[TT_MAX_DEPTH];
  int depth = 0;
value:
  if (p >= end) return more(sc);
  switch (*p) {
    case '"':
      if (!(p = scan_string(p, end, sc))) return NULL;
      goto after_value;
    case '{':
    case '[':
      if (depth == TT_MAX_DEPTH) return fail(sc, p, "values nested too deeply");
      stack[depth++] = *p == '{' ? '}' : ']';
      p = skip_ws(p + 1, end);
      if (p >= end) return more(sc);
      if (*p == stack[depth - 1]) {
        p++;
        depth--;
        goto after_value;
      }
      if (stack[depth - 1] == '}') goto key;
      goto value;
    case 't': case 'f': case 'n': case 'N': case 'i': case 'I':
      if (!(p = scan_literal(p, end, sc))) return NULL;
      goto after_value;
    default:
      if (!(p = scan_number(p, end, sc))) return NULL;
      goto after_value;
  }
key:
  if (*p != '"') return fail(sc, p, "expected a key string");
  if (!(p = scan_string(p, end, sc))) return NULL;
  p = skip_ws(p, end);
  if (p >= end) return more(sc);
  if (*p != ':') return fail(sc, p, "expected ':' after a key");
  p = skip_ws(p + 1, end);
  goto value;
after_value:
  if (depth == 0) return p;
  p = skip_ws(p, end);
  if (p >= end) return more(sc);
  if (*p == ',') {
    p = skip_ws(p + 1, end);
    if (p >= end) return more(sc);
    if (stack[depth - 1] == '}') goto key;
    goto value;
  }
  if (*p == stack[depth - 1]) {
    p++;
    depth--;
    goto after_value;
  }
  return fail(sc, p, stack[depth - 1] == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
}

/* Scan "key" : and leave p at the value. Returns the key's inner text in *k. */
static const char *scan_key(const char *p, const char *end, tt_slice *k, scan *sc) {
  if (p >= end) return more(sc);
  if (*p != '"') return fail(sc, p, "expected a key string");
  const char *s = p;
  if (!(p = scan_string(p, end, sc))) return NULL;
  k->p = s + 1;
  k->n = (size_t)(p - s - 2);
  p = skip_ws(p, end);
  if (p >= end) return more(sc);
  if (*p != ':') return fail(sc, p, "expected ':' after a key");
  p = skip_ws(p + 1, end);
  if (p >= end) return more(sc);
  return p;
}

#define KEY_IS(k, lit) ((k).n == sizeof(lit) - 1 && memcmp((k).p, lit, sizeof(lit) - 1) == 0)

static tt_slice *event_field(tt_event *ev, tt_slice k) {
  switch (k.n) {
    case 2:
      if (KEY_IS(k, "ph")) return &ev->ph;
      if (KEY_IS(k, "ts")) return &ev->ts;
      if (KEY_IS(k, "id")) return &ev->id;
      break;
    case 3:
      if (KEY_IS(k, "cat")) return &ev->cat;
      if (KEY_IS(k, "dur")) return &ev->dur;
      if (KEY_IS(k, "pid")) return &ev->pid;
      if (KEY_IS(k, "tid")) return &ev->tid;
      break;
    case 4:
      if (KEY_IS(k, "name")) return &ev->name;
      break;
  }
  return NULL;
}

/* The members of an object at p ('{'), each value skipped; with rec, keys and values are
** recorded into the event's args. */
static const char *scan_args(const char *p, const char *end, tt_event *ev, scan *sc) {
  p = skip_ws(p + 1, end);
  if (p >= end) return more(sc);
  if (*p == '}') return p + 1;
  for (;;) {
    tt_slice k;
    if (!(p = scan_key(p, end, &k, sc))) return NULL;
    const char *v = p;
    if (!(p = skip_value(p, end, sc))) return NULL;
    if (ev->nargs < TT_MAX_ARGS) {
      ev->arg_key[ev->nargs] = k;
      ev->arg_val[ev->nargs] = (tt_slice){v, (size_t)(p - v)};
      ev->nargs++;
    } else if (!ev->args_rest) {
      ev->args_rest = k.p - 1; /* the key's opening quote */
    }
    p = skip_ws(p, end);
    if (p >= end) return more(sc);
    if (*p == '}') return p + 1;
    if (*p != ',') return fail(sc, p, "expected ',' or '}'");
    p = skip_ws(p + 1, end);
  }
}

static const char *scan_event(const char *p, const char *end, tt_event *ev, scan *sc) {
  const char *start = p;
  /* Field by field: a memset of the struct head costs more than the fields (rep stos). */
  static const tt_slice none = {NULL, 0};
  ev->ph = ev->cat = ev->name = ev->ts = ev->dur = ev->pid = ev->tid = ev->id = ev->args = none;
  ev->nargs = 0;
  ev->args_rest = NULL;
  p = skip_ws(p + 1, end);
  if (p >= end) return more(sc);
  if (*p != '}') {
    for (;;) {
      tt_slice k;
      if (!(p = scan_key(p, end, &k, sc))) return NULL;
      const char *v = p;
      if (KEY_IS(k, "args")) { /* written twice: the last counts, an object or not */
        ev->nargs = 0;
        ev->args_rest = NULL;
        if (*p == '{' ? !(p = scan_args(p, end, ev, sc)) : !(p = skip_value(p, end, sc))) return NULL;
        ev->args = v[0] == '{' ? (tt_slice){v, (size_t)(p - v)} : none;
      } else {
        if (!(p = skip_value(p, end, sc))) return NULL;
        tt_slice *f = event_field(ev, k);
        if (f) *f = (tt_slice){v, (size_t)(p - v)};
      }
      p = skip_ws(p, end);
      if (p >= end) return more(sc);
      if (*p == '}') break;
      /* a string followed straight by more text: one '"' inside it was not escaped, as Kineto
      ** before pytorch/pytorch#146900 wrote python_function names holding '"' (with_stack) */
      if (*p != ',' && p[-1] == '"')
        return fail(sc, p, "expected ',' or '}': a string with an unescaped '\"' in it? (Kineto before "
                           "pytorch/pytorch#146900 wrote python_function names so: record without with_stack)");
      if (*p != ',') return fail(sc, p, "expected ',' or '}'");
      p = skip_ws(p + 1, end);
    }
  }
  p++;
  ev->text = (tt_slice){start, (size_t)(p - start)};
  return p;
}

void tt_framer_init(tt_framer *f, size_t max_unit) {
  memset(f, 0, sizeof *f);
  f->state = ST_START;
  f->max_unit = max_unit;
}

/* Why a document that does not start with '{' or '[' is no JSON: a compression other than gzip
** (which tt_source.c reads, whatever the file's name) is named by its magic bytes;
** *partial is set where the n bytes are only the start of a magic (the window cut it): the
** framer then waits for more, so that the error does not depend on where windows end. */
static const char *compressed_as(const char *p, size_t n, int *partial) {
  static const struct { const char *magic, *what; } z[] = {
      {"\x28\xb5\x2f\xfd", "not JSON: zstd-compressed (decompress it first, zstd -d: xp reads JSON, plain or gzip)"},
      {"BZh", "not JSON: bzip2-compressed (decompress it first, bunzip2: xp reads JSON, plain or gzip)"},
      {"\xfd" "7zXZ", "not JSON: xz-compressed (decompress it first, xz -d: xp reads JSON, plain or gzip)"},
      {"PK\x03\x04", "not JSON: a zip archive (extract its traces: xp reads JSON, plain or gzip)"}};
  *partial = 0;
  for (size_t i = 0; i < sizeof z / sizeof z[0]; i++) {
    const size_t k = strlen(z[i].magic);
    if (n >= k && memcmp(p, z[i].magic, k) == 0) return z[i].what;
    if (n < k && memcmp(p, z[i].magic, n) == 0) *partial = 1;
  }
  return "not JSON: the document does not start with '{'";
}

/* Does a trace's top-level object start at p: '{' and a key only that object has (Kineto writes
** "schemaVersion" first, and "deviceProperties", "distributedInfo", "traceEvents")? 1 yes, 0 no,
** -1 not known before more of the file is read. */
static int trace_starts(const char *p, const char *end) {
  static const char *const keys[] = {"\"schemaVersion\"", "\"traceEvents\"", "\"deviceProperties\"",
                                     "\"distributedInfo\""};
  if (p >= end || *p != '{') return 0;
  const char *q = skip_ws(p + 1, end);
  int unknown = q >= end;
  for (size_t i = 0; i < sizeof keys / sizeof keys[0] && !unknown; i++) {
    const size_t n = strlen(keys[i]), have = (size_t)(end - q);
    if (memcmp(q, keys[i], have < n ? have : n) == 0) {
      if (have >= n) return 1;
      unknown = 1;
    }
  }
  return unknown ? -1 : 0;
}

/* The first trace that starts in [p, to], inside an event that failed to parse there; NULL if
** none does. *unknown is set where a '{' there may start one but the window ends before its key
** is whole: the caller reads more first, so that the answer does not depend on where windows end. */
static const char *trace_inside(const char *p, const char *to, const char *end, int *unknown) {
  *unknown = 0;
  for (; p && p <= to && p < end; p = memchr(p + 1, '{', (size_t)(end - p - 1))) {
    if (*p != '{') continue;
    const int starts = trace_starts(p, end);
    if (starts == 1) return p;
    if (starts < 0) {
      *unknown = 1;
      return NULL;
    }
  }
  return NULL;
}

/* Two traces in one file, the first whole or cut off: files concatenated, or a profiler stopped
** while it wrote and another trace written after it. The second is not read as more events (its
** own events would be taken for the first's), nor is the first taken as whole. */
#define SECOND_TRACE(first) "a second trace starts here, " first " (files concatenated, or a trace written on after another): xp reads one trace a file"

/* How far past a break whole events are looked for: further than any event of a real trace
** reaches past a point inside it. */
enum { SPLICE_LOOK = 64 << 10 };

/* Where pid is among the processes and devices of the events framed so far; -1 if not. */
static int pid_seen(const tt_framer *f, tt_slice pid) {
  for (int i = 0; i < f->npids; i++)
    if (f->pid_len[i] == pid.n && memcmp(f->pids[i], pid.p, pid.n) == 0) return i;
  return -1;
}

static void note_pid(tt_framer *f, tt_slice pid) {
  if (!pid.n || (f->last_pid < f->npids && f->pid_len[f->last_pid] == pid.n &&
                 memcmp(f->pids[f->last_pid], pid.p, pid.n) == 0))
    return;
  const int i = pid.n < sizeof f->pids[0] ? pid_seen(f, pid) : -1;
  if (i >= 0) f->last_pid = i;
  else if (pid.n >= sizeof f->pids[0] || f->npids == TT_PIDS) f->pids_full = 1;
  else {
    memcpy(f->pids[f->npids], pid.p, pid.n);
    f->pid_len[f->npids] = (uint8_t)pid.n;
    f->last_pid = f->npids++;
  }
}

/* Do another process's whole events follow a break in the document at `at`: a '}', ',' and an
** event the scanner reads whole, then ',' or ']' (the '}' within SPLICE_LOOK bytes of the break),
** whose "pid" no event before the break had? 1 yes, 0 no, -1 not known before more of the file
** is read (an answer that does not depend on where windows end). A trace cut off has nothing
** after the cut, and a byte gone wrong in it the same process's events; one written over by
** another process writing the same file (every rank exporting to one path: each truncates it
** and writes from its start, the last to write a block keeping it) goes on with the other's
** events (its own process id, its own GPU) after the seam. */
static int events_follow(const tt_framer *f, const char *at, const char *end, int eof) {
  const size_t have = (size_t)(end - at);
  const char *stop = at + (have < SPLICE_LOOK ? have : SPLICE_LOOK);
  for (const char *p = at; p < stop && (p = memchr(p, '}', (size_t)(stop - p))) != NULL; p++) {
    const char *q = skip_ws(p + 1, end);
    if (q < end && *q != ',') continue; /* no ',' after it */
    if (q < end) q = skip_ws(q + 1, end);
    if (q >= end) {
      if (!eof) return -1;
      continue;
    }
    if (*q != '{') continue;
    tt_event ev;
    scan sc = {0};
    const char *r = scan_event(q, end, &ev, &sc);
    if (r) r = skip_ws(r, end);
    if ((r && r >= end) || (!r && sc.more)) {
      if (!eof) return -1;
      continue;
    }
    if (r && (*r == ',' || *r == ']'))
      return !f->pids_full && f->npids && ev.pid.n && ev.pid.n < sizeof f->pids[0] && pid_seen(f, ev.pid) < 0;
  }
  return have < SPLICE_LOOK && !eof ? -1 : 0;
}

static tt_unit framer_error(tt_framer *f, const char *buf, const char *at, const char *what) {
  f->err_pos = (size_t)(at - buf);
  snprintf(f->err, sizeof f->err, "%s", what);
  return TT_UNIT_ERROR;
}

/* The document breaks at `at` (what: why), inside or after the unit that began at `unit`: where
** another process's events follow, said so (events_follow); MORE where that is not known yet. */
static tt_unit framer_break(tt_framer *f, const char *buf, size_t len, const char *unit, const char *at,
                            int eof, const char *what) {
  const int follow = events_follow(f, at, buf + len, eof);
  if (follow < 0 && (size_t)(buf + len - unit) <= f->max_unit) return TT_UNIT_MORE;
  f->err_pos = (size_t)(at - buf);
  snprintf(f->err, sizeof f->err, follow > 0 ? "%s, and another process's events follow: written over by it "
                                               "(several ranks exporting to one path at once?): give each "
                                               "rank its own file" : "%s", what);
  return TT_UNIT_ERROR;
}

/* The window ended inside a unit that began at `unit`. */
static tt_unit framer_more(tt_framer *f, const char *buf, size_t len, const char *unit, int eof,
                           const char *inside) {
  if (eof) {
    f->err_pos = len;
    snprintf(f->err, sizeof f->err, "the document ends early, inside %s", inside);
    return TT_UNIT_ERROR;
  }
  if ((size_t)(buf + len - unit) > f->max_unit) {
    f->err_pos = (size_t)(unit - buf);
    snprintf(f->err, sizeof f->err, "%s is longer than %zu MiB: not a profiler trace event", inside,
             f->max_unit >> 20);
    return TT_UNIT_ERROR;
  }
  return TT_UNIT_MORE;
}

tt_unit tt_framer_next(tt_framer *f, const char *buf, size_t len, size_t *pos, int eof,
                       tt_event *ev, tt_slice *key, tt_slice *val) {
  const char *end = buf + len;
  char inside[64];
  for (;;) {
    const char *p = skip_ws(buf + *pos, end);
    int bare = f->state >= ST_EV_BARE, doc;
    int st = bare ? f->state - ST_EV_BARE : f->state;
    scan sc = {0};
    if (p >= end && st != ST_TAIL) {
      /* only whitespace since the last unit: consumed, so that the caller keeps nothing (kept,
      ** a run of gigabytes of it grew the window and was rescanned with every chunk) */
      *pos = len;
      if (!eof) return TT_UNIT_MORE;
      if (bare && (st == ST_EV_AFTER || st == ST_EV_NEXT)) {
        /* Chrome's array format may end without its ']' (a trace written as it runs, or
        ** cut between two events): the events before are whole. An event cut in the
        ** middle is still an error (framer_more). */
        f->state = ST_TAIL;
        *pos = len;
        return TT_UNIT_END;
      }
      f->err_pos = len;
      if (st == ST_START) snprintf(f->err, sizeof f->err, "empty: no JSON document");
      else snprintf(f->err, sizeof f->err, "the document ends early, after %llu events",
                    (unsigned long long)f->events);
      return TT_UNIT_ERROR;
    }
    switch (st) {
      case ST_START:
        if (*p == '{') {
          f->state = ST_TOP_FIRST;
        } else if (*p == '[') {
          f->state = ST_EV_BARE + ST_EV_FIRST;
          f->saw_events = 1;
        } else if ((unsigned char)*p == 0xef && len - (size_t)(p - buf) < 3 && !eof) {
          return TT_UNIT_MORE; /* perhaps a byte-order mark cut by the window */
        } else if (len - (size_t)(p - buf) >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
          p += 2; /* a UTF-8 byte-order mark: skipped */
        } else {
          int partial;
          const char *why = compressed_as(p, (size_t)(end - p), &partial);
          if (partial && !eof) return TT_UNIT_MORE;
          return framer_error(f, buf, p, why);
        }
        *pos = (size_t)(p + 1 - buf);
        continue;
      case ST_TOP_FIRST:
      case ST_TOP_KEY: {
        if (st == ST_TOP_FIRST && *p == '}') {
          f->state = ST_TAIL;
          *pos = (size_t)(p + 1 - buf);
          continue;
        }
        tt_slice k;
        const char *unit = p;
        const char *v = scan_key(p, end, &k, &sc);
        if (v && KEY_IS(k, "traceEvents") && *v == '[') {
          f->state = ST_EV_FIRST;
          f->saw_events = 1;
          *pos = (size_t)(v + 1 - buf);
          continue;
        }
        const char *q = v ? skip_value(v, end, &sc) : NULL;
        if (!q) {
          if (sc.more) return framer_more(f, buf, len, unit, eof, "a top-level value");
          return framer_error(f, buf, sc.at, sc.err);
        }
        *key = k;
        *val = (tt_slice){v, (size_t)(q - v)};
        f->state = ST_TOP_AFTER;
        *pos = (size_t)(q - buf);
        f->nonfinite += (uint64_t)sc.nonfinite;
        return TT_UNIT_META;
      }
      case ST_TOP_AFTER:
        if (*p == ',') f->state = ST_TOP_KEY;
        else if (*p == '}') f->state = ST_TAIL;
        else if (*p == '{' && (doc = trace_starts(p, end)) != 0) {
          if (doc < 0 && !eof) return TT_UNIT_MORE;
          return framer_error(f, buf, p, SECOND_TRACE("the first cut off before it"));
        } else return framer_error(f, buf, p, "expected ',' or '}' between top-level members");
        *pos = (size_t)(p + 1 - buf);
        continue;
      case ST_EV_FIRST:
      case ST_EV_NEXT: {
        if (st == ST_EV_FIRST && *p == ']') {
          f->state = bare ? ST_TAIL : ST_TOP_AFTER;
          *pos = (size_t)(p + 1 - buf);
          continue;
        }
        if (*p != '{') {
          snprintf(inside, sizeof inside, "event %llu is not a JSON object",
                   (unsigned long long)f->events);
          return framer_break(f, buf, len, p, p, eof, inside);
        }
        doc = trace_starts(p, end);
        if (doc < 0 && !eof) return TT_UNIT_MORE;
        if (doc > 0) return framer_error(f, buf, p, SECOND_TRACE("the first cut off before it"));
        const char *q = scan_event(p, end, ev, &sc);
        if (!q) {
          snprintf(inside, sizeof inside, "event %llu", (unsigned long long)f->events);
          /* a trace written on after this one was cut can be read as this event's value: where the
          ** event is no longer than an event may be, the file goes on being read */
          if (sc.more && !eof && (size_t)(end - p) <= f->max_unit) return TT_UNIT_MORE;
          int unknown;
          const char *second = trace_inside(p, sc.more ? end : sc.at, end, &unknown);
          if (!second && unknown && !eof) return framer_more(f, buf, len, p, eof, inside);
          if (second) return framer_error(f, buf, second, SECOND_TRACE("inside the first's last event, cut off"));
          if (sc.more) return framer_more(f, buf, len, p, eof, inside);
          if (strstr(sc.err, "unescaped")) return framer_error(f, buf, sc.at, sc.err); /* said why */
          return framer_break(f, buf, len, p, sc.at, eof, sc.err);
        }
        ev->number = f->events++;
        note_pid(f, ev->pid);
        ev->nonfinite = sc.nonfinite;
        f->state = (bare ? ST_EV_BARE : 0) + ST_EV_AFTER;
        *pos = (size_t)(q - buf);
        f->nonfinite += (uint64_t)sc.nonfinite;
        return TT_UNIT_EVENT;
      }
      case ST_EV_AFTER:
        if (*p == ',') f->state = (bare ? ST_EV_BARE : 0) + ST_EV_NEXT;
        else if (*p == ']') f->state = bare ? ST_TAIL : ST_TOP_AFTER;
        else if (*p == '{' && (doc = trace_starts(p, end)) != 0) {
          /* cut between an event and its ',' (Kineto writes "},\n  {"), another trace after it */
          if (doc < 0 && !eof) return TT_UNIT_MORE;
          return framer_error(f, buf, p, SECOND_TRACE("the first cut off before it"));
        } else return framer_break(f, buf, len, p, p, eof, "expected ',' or ']' between events");
        *pos = (size_t)(p + 1 - buf);
        continue;
      case ST_TAIL:
        if (p < end && (*p == '{' || *p == '['))
          return framer_error(f, buf, p, SECOND_TRACE("after the first's end"));
        if (p < end) return framer_break(f, buf, len, p, p, eof, "unexpected data after the end of the document");
        *pos = len;
        return eof ? TT_UNIT_END : TT_UNIT_MORE;
    }
  }
}

/* The value of key among the members from p (a key's opening quote, or the closing brace) to
** end, of an object validated when framed: the last match, as json.load and Chrome's and
** Perfetto's trace readers take a key written twice; empty if none. */
static tt_slice member(const char *p, const char *end, const char *key) {
  const size_t n = strlen(key);
  tt_slice found = {NULL, 0};
  scan sc = {0};
  while (p < end && *p == '"') {
    tt_slice k;
    if (!(p = scan_key(p, end, &k, &sc))) break;
    const char *v = p;
    if (!(p = skip_value(p, end, &sc))) break;
    if (k.n == n && memcmp(k.p, key, n) == 0) found = (tt_slice){v, (size_t)(p - v)};
    p = skip_ws(p, end);
    if (p >= end || *p != ',') break;
    p = skip_ws(p + 1, end);
  }
  return found;
}

tt_slice tt_event_key(const tt_event *ev, const char *key) {
  if (ev->text.n < 2) return (tt_slice){NULL, 0};
  const char *end = ev->text.p + ev->text.n - 1; /* the closing brace */
  return member(skip_ws(ev->text.p + 1, end), end, key);
}

/* A key written twice has its last value (member). The members past the recorded ones come
** later in the object, so they are read first; then the recorded ones from the last back, which
** costs what a key not given always cost (every slot compared), and a key at the end less. */
tt_slice tt_event_arg(const tt_event *ev, const char *key) {
  if (ev->args_rest) { /* validated when framed: the scan cannot fail */
    const tt_slice v = member(ev->args_rest, ev->args.p + ev->args.n, key);
    if (v.n) return v;
  }
  const size_t n = strlen(key);
  for (int i = ev->nargs - 1; i >= 0; i--)
    if (ev->arg_key[i].n == n && memcmp(ev->arg_key[i].p, key, n) == 0) return ev->arg_val[i];
  return (tt_slice){NULL, 0};
}

char *tt_json_finite(tt_slice s, size_t *n) {
  static const char *const words[] = {"-Infinity", "Infinity", "-nan", "-NaN", "-inf", "nan", "NaN", "inf"};
  char *out = xp_xmalloc(s.n + s.n / 3 + 2); /* "inf" (3 bytes) becomes "null" (4) */
  size_t k = 0;
  for (size_t i = 0; i < s.n;) {
    if (s.p[i] == '"') { /* a string, escapes and all, as it is */
      size_t j = i + 1;
      while (j < s.n && s.p[j] != '"') j += s.p[j] == '\\' ? 2 : 1;
      j = j < s.n ? j + 1 : s.n;
      memcpy(out + k, s.p + i, j - i);
      k += j - i;
      i = j;
      continue;
    }
    size_t w = 0;
    for (size_t q = 0; q < sizeof words / sizeof words[0] && !w; q++) {
      size_t m = strlen(words[q]);
      if (s.n - i >= m && memcmp(s.p + i, words[q], m) == 0) w = m;
    }
    if (w) {
      memcpy(out + k, "null", 4);
      k += 4;
      i += w;
    } else {
      out[k++] = s.p[i++];
    }
  }
  out[k] = '\0';
  *n = k;
  return out;
}

int tt_string_plain(tt_slice s, tt_slice *inner) {
  if (s.n < 2 || s.p[0] != '"') return 0;
  if (memchr(s.p + 1, '\\', s.n - 2)) return 0;
  inner->p = s.p + 1;
  inner->n = s.n - 2;
  return 1;
}

int tt_string_eq(tt_slice s, const char *c) {
  tt_slice in;
  size_t m = strlen(c);
  if (tt_string_plain(s, &in)) return in.n == m && memcmp(in.p, c, in.n) == 0;
  /* Decoding to m + 1 bytes holds the whole text whenever it can be equal to c, however long
  ** (a kernel name with an escape can run to kilobytes). */
  char small[256], *buf = m < sizeof small ? small : xp_xmalloc(m + 1);
  long n = tt_string_decode(s, buf, m + 1);
  int eq = n >= 0 && (size_t)n == m && memcmp(buf, c, m) == 0;
  if (buf != small) free(buf);
  return eq;
}

static unsigned hex4(const char *p) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v = v * 16 + (unsigned)(c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
  }
  return v;
}

static size_t put_utf8(char *tmp, unsigned cp) {
  if (cp < 0x80) { tmp[0] = (char)cp; return 1; }
  if (cp < 0x800) { tmp[0] = (char)(0xc0 | cp >> 6); tmp[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
  if (cp < 0x10000) {
    tmp[0] = (char)(0xe0 | cp >> 12); tmp[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    tmp[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  tmp[0] = (char)(0xf0 | cp >> 18); tmp[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  tmp[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); tmp[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* The framer has validated the escapes, so decoding need not check them again. */
long tt_string_decode(tt_slice s, char *out, size_t cap) {
  if (s.n < 2 || s.p[0] != '"') return -1;
  const char *p = s.p + 1, *end = s.p + s.n - 1;
  size_t n = 0;
  while (p < end) {
    char tmp[4];
    size_t k = 1;
    if (*p != '\\') {
      tmp[0] = *p++;
    } else {
      char c = p[1];
      p += 2;
      switch (c) {
        case 'b': tmp[0] = '\b'; break;
        case 'f': tmp[0] = '\f'; break;
        case 'n': tmp[0] = '\n'; break;
        case 'r': tmp[0] = '\r'; break;
        case 't': tmp[0] = '\t'; break;
        case 'u': {
          unsigned cp = hex4(p);
          p += 4;
          if (cp >= 0xd800 && cp < 0xdc00 && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
            unsigned lo = hex4(p + 2);
            if (lo >= 0xdc00 && lo < 0xe000) {
              cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
              p += 6;
            }
          }
          /* keep C strings whole: NUL becomes U+FFFD; so does a surrogate left unpaired (a
          ** writer that cut a UTF-16 pair), whose three bytes would be no UTF-8 in the
          ** database's TEXT, which readers of it refuse to decode */
          if (cp == 0 || (cp >= 0xd800 && cp < 0xe000)) cp = 0xfffd;
          k = put_utf8(tmp, cp);
          break;
        }
        default: tmp[0] = c; break;
      }
    }
    for (size_t i = 0; i < k; i++, n++)
      if (n + 1 < cap) out[n] = tmp[i];
  }
  if (cap) out[n < cap ? n : cap - 1] = 0;
  return (long)n;
}
