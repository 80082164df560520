/*
** The event framer: a small JSON scanner that walks a torch.profiler (Kineto) trace one unit
** at a time, where a unit is either one element of "traceEvents" or one other top-level
** key with its value. It validates the JSON grammar as it goes (strings, escapes, numbers,
** literals, nesting) but builds no tree: for an event it records where the values of the
** event's own keys and of its "args" keys are, so that the importer reads only the fields
** it needs. A general JSON parser (cJSON) costs five times more per byte than this on a
** trace, where nine events in ten are not wanted.
**
** The framer never buffers: it is handed a window of the document, and answers MORE when a
** unit does not end inside it; the caller then keeps the unit's bytes, appends more and asks
** again from the same position. Nothing but the current unit need be in memory.
*/
#ifndef XP_TT_JSON_H
#define XP_TT_JSON_H
#include <stddef.h>
#include <stdint.h>

/* A piece of the document: the raw JSON text of a value (a string keeps its quotes), or the
** text between a key's quotes. n == 0 means absent. */
typedef struct tt_slice {
  const char *p;
  size_t n;
} tt_slice;

enum { TT_MAX_ARGS = 64, TT_MAX_DEPTH = 256, TT_PIDS = 16 };

typedef struct tt_event {
  tt_slice text;   /* the whole object */
  uint64_t number; /* 0-based position in traceEvents */
  /* Values of the event's own keys. */
  tt_slice ph, cat, name, ts, dur, pid, tid, id, args;
  /* Keys (without quotes) and values of the object under "args", in document order, the first
  ** TT_MAX_ARGS of them; args_rest is where the next key starts when there are more (else
  ** NULL): tt_event_arg reads on from there, so a key written late is found all the same. */
  int nargs;
  tt_slice arg_key[TT_MAX_ARGS], arg_val[TT_MAX_ARGS];
  const char *args_rest;
  int nonfinite; /* NaN and infinities in the event (not JSON: tt_json_finite rewrites them) */
} tt_event;

typedef enum tt_unit {
  TT_UNIT_EVENT, /* *ev describes the next element of traceEvents */
  TT_UNIT_META,  /* *key, *val: a top-level key other than traceEvents */
  TT_UNIT_MORE,  /* the window ends inside a unit: append data, call again with same *pos */
  TT_UNIT_END,   /* the document ended (and only whitespace followed) */
  TT_UNIT_ERROR  /* f->err says what, f->err_pos where (index into the window) */
} tt_unit;

typedef struct tt_framer {
  int state;
  int saw_events;   /* a traceEvents array was found */
  uint64_t events;  /* units of traceEvents framed so far */
  uint64_t nonfinite; /* NaN / inf / -inf values met (accepted: see tt_json.c scan_literal) */
  size_t max_unit;  /* a unit longer than this is refused: it is no event of a real trace */
  char err[200];
  size_t err_pos;
  /* The processes and devices ("pid") of the events framed so far, the first TT_PIDS of them, to
  ** tell a break where another process's events follow (tt_json.c events_follow) */
  char pids[TT_PIDS][24];
  uint8_t pid_len[TT_PIDS];
  int npids, last_pid, pids_full;
} tt_framer;

void tt_framer_init(tt_framer *f, size_t max_unit);
/* Frame the next unit of buf[*pos, len). eof: no more data will follow this window. On EVENT
** and META, *pos moves past the unit; on MORE it stays at the unit's start. */
tt_unit tt_framer_next(tt_framer *f, const char *buf, size_t len, size_t *pos, int eof,
                       tt_event *ev, tt_slice *key, tt_slice *val);

/* A key of the event's own that is not framed above ("id2", "scope"): its value, scanned for in
** the event's text, the last where written twice; an empty slice if absent. For keys of rare
** events only: the framer records none of these, so that no other event pays for them. */
tt_slice tt_event_key(const tt_event *ev, const char *key);
/* Look up an "args" key of an event (exact, case-sensitive), its last value where written twice
** (as the event's own keys, and every other JSON import, read one); an empty slice if absent. */
tt_slice tt_event_arg(const tt_event *ev, const char *key);
/* Decode a JSON string value (with quotes) into out (capacity cap, NUL-terminated, truncated
** to fit). Returns the decoded length before truncation, or -1 if s is not a string. */
long tt_string_decode(tt_slice s, char *out, size_t cap);
/* Is the slice a JSON string without escapes? Then its bytes between the quotes are the text. */
int tt_string_plain(tt_slice s, tt_slice *inner);
/* s (a validated JSON value, such as an event's args) with its non-finite numbers (nan, NaN,
** inf, Infinity, signed or not), which JSON lacks, written as null: valid JSON. Malloc'd,
** NUL-terminated; its length in *n. */
char *tt_json_finite(tt_slice s, size_t *n);
/* Compare a JSON string value (with quotes) to a C string. */
int tt_string_eq(tt_slice s, const char *c);
#endif
