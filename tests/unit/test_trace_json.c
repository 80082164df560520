/* The trace event framer and exact number reading (importers/torch_trace/tt_json.c, tt_num.c):
** grammar, escapes, errors with their positions, and results that do not depend on where the
** document is cut into windows. */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "torch_trace/tt_json.h"
#include "torch_trace/tt_num.h"
#include "xp.h"

static const char doc[] =
    "\xef\xbb\xbf{\n \"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"H\\u00e9\"}],\n"
    " \"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\\\"q\\\\ \\ud83d\\ude00\", \"pid\": 0, \"tid\": 7,"
    "   \"ts\": 5131127428461.376, \"dur\": 2.176, \"args\": {\"External id\": 6, \"grid\": [8, 1, 1],"
    "   \"Collective name\": \"allreduce\", \"nested\": {\"a\": [true, false, null, -1.5e-3]}}},\n"
    "  {\"ph\": \"i\", \"name\": \"Record Window End\", \"pid\": \"\", \"tid\": \"\", \"ts\": 1e3},\n"
    "  {}\n"
    " ],\n"
    " \"traceName\": \"/tmp/x.json\"\n}\n";

typedef struct summary {
  int events, metas, end;
  char names[8][64];
  char metakeys[8][32];
  char last_arg_key[32];
  int nargs0;
} summary;

/* Frame text in windows of `step` bytes, as the importer does (keeping the partial unit). */
static int frame_all(const char *text, size_t len, size_t step, summary *s, char *err, size_t *err_at) {
  memset(s, 0, sizeof *s);
  tt_framer f;
  tt_framer_init(&f, 1 << 20);
  char *buf = malloc(len + 1);
  size_t have = 0, pos = 0, fed = 0, base = 0;
  tt_event ev;
  for (;;) {
    size_t n = len - fed < step ? len - fed : step;
    memcpy(buf + have, text + fed, n);
    have += n;
    fed += n;
    int eof = fed == len;
    for (;;) {
      tt_slice k, v;
      tt_unit u = tt_framer_next(&f, buf, have, &pos, eof, &ev, &k, &v);
      if (u == TT_UNIT_EVENT) {
        if (s->events < 8) tt_string_decode(ev.name, s->names[s->events], 64);
        if (s->events == 0) {
          s->nargs0 = ev.nargs;
          if (ev.nargs) snprintf(s->last_arg_key, sizeof s->last_arg_key, "%.*s", (int)ev.arg_key[ev.nargs - 1].n, ev.arg_key[ev.nargs - 1].p);
        }
        s->events++;
      } else if (u == TT_UNIT_META) {
        if (s->metas < 8) snprintf(s->metakeys[s->metas], 32, "%.*s", (int)k.n, k.p);
        s->metas++;
      } else if (u == TT_UNIT_END) {
        s->end = 1;
        free(buf);
        return 0;
      } else if (u == TT_UNIT_ERROR) {
        strcpy(err, f.err);
        *err_at = base + f.err_pos;
        free(buf);
        return -1;
      } else {
        break;
      }
    }
    if (eof) break;
    memmove(buf, buf + pos, have - pos);
    base += pos;
    have -= pos;
    pos = 0;
  }
  free(buf);
  return 1;
}

static void test_windows(void) {
  summary ref, s;
  char err[256];
  size_t at;
  size_t len = strlen(doc);
  CHECK_EQ_INT(frame_all(doc, len, len, &ref, err, &at), 0);
  CHECK_EQ_INT(ref.events, 3);
  CHECK_EQ_INT(ref.metas, 3);
  CHECK_EQ_STR(ref.metakeys[0], "schemaVersion");
  CHECK_EQ_STR(ref.metakeys[2], "traceName");
  CHECK_EQ_STR(ref.names[0], "k\"q\\ \xf0\x9f\x98\x80");
  CHECK_EQ_STR(ref.names[1], "Record Window End");
  CHECK_EQ_INT(ref.nargs0, 4);
  CHECK_EQ_STR(ref.last_arg_key, "nested");
  /* Every window size, down to one byte at a time, frames the same units. */
  for (size_t step = 1; step < len; step += step < 40 ? 1 : 37) {
    int rc = frame_all(doc, len, step, &s, err, &at);
    CHECK_EQ_INT(rc, 0);
    if (rc) fprintf(stderr, "window %zu: %s at %zu\n", step, err, at);
    CHECK_EQ_INT(s.events, ref.events);
    CHECK_EQ_INT(s.metas, ref.metas);
    CHECK_EQ_STR(s.names[0], ref.names[0]);
    CHECK_EQ_INT(s.nargs0, ref.nargs0);
  }
}

static void expect_error(const char *text, const char *what, long at) {
  summary s;
  char err[256] = "";
  size_t pos = 0;
  for (size_t step = 1; step <= strlen(text); step = step * 2 + 1) {
    int rc = frame_all(text, strlen(text), step, &s, err, &pos);
    CHECK_EQ_INT(rc, -1);
    if (rc == -1 && !strstr(err, what)) {
      fprintf(stderr, "for %s: error \"%s\" lacks \"%s\"\n", text, err, what);
      CHECK(0);
    }
    if (at >= 0) CHECK_EQ_INT(pos, at);
  }
}

static void test_errors(void) {
  expect_error("{\"traceEvents\": [{\"ph\": \"X\"", "ends early, inside event 0", 27);
  expect_error("{\"traceEvents\": [{\"ph\": \"X\"}, {\"a\": tru}]}", "expected a value", 36);
  expect_error("{\"traceEvents\": [{\"ph\": \"X\"} {\"a\": 1}]}", "expected ',' or ']'", 29);
  expect_error("{\"traceEvents\": [{\"name\": \"a\\x\"}]}", "bad escape", 28);
  expect_error("{\"traceEvents\": [{\"name\": \"a\nb\"}]}", "control character", 28);
  expect_error("{\"traceEvents\": [1]}", "event 0 is not a JSON object", 17);
  expect_error("{\"traceEvents\": [{\"ts\": 01}]}", "expected ',' or '}'", 25);
  expect_error("{\"traceEvents\": []} x", "unexpected data after", 20);
  expect_error("<html>", "does not start with '{'", 0);
  expect_error("{\"traceEvents\": [{\"a\": 1}],", "ends early", -1);
  /* Nesting deeper than the scanner's stack is refused, not overflowed. */
  char deep[2000] = "{\"traceEvents\": [{\"a\": ";
  for (int i = 0; i < 300; i++) strcat(deep, "[");
  expect_error(deep, "nested too deeply", -1);
}

static void test_huge_unit(void) {
  /* A unit longer than max_unit is refused with its start. */
  size_t n = 3000;
  char *text = malloc(n + 64);
  strcpy(text, "{\"traceEvents\": [{\"name\": \"");
  size_t k = strlen(text);
  memset(text + k, 'a', n);
  strcpy(text + k + n, "\"}]}");
  tt_framer f;
  tt_framer_init(&f, 1024);
  tt_event ev;
  tt_slice a, b;
  size_t pos = 0;
  tt_unit u = tt_framer_next(&f, text, 1500, &pos, 0, &ev, &a, &b);
  CHECK_EQ_INT(u, TT_UNIT_ERROR);
  CHECK(strstr(f.err, "longer than") != NULL);
  CHECK_EQ_INT(f.err_pos, 17);
  free(text);
}

static void test_bare_array(void) {
  summary s;
  char err[256];
  size_t at;
  const char *t = "[{\"name\": \"a\"}, {\"name\": \"b\"}]";
  CHECK_EQ_INT(frame_all(t, strlen(t), 3, &s, err, &at), 0);
  CHECK_EQ_INT(s.events, 2);
  CHECK_EQ_STR(s.names[1], "b");
  /* The array format's closing ']' is optional, after a trailing comma too; an event cut in the
  ** middle is not, nor is an object document without its '}'. */
  static const char *const open_ended[] = {"[{\"name\": \"a\"}, {\"name\": \"b\"}",
                                           "[{\"name\": \"a\"}, {\"name\": \"b\"},\n"};
  for (int i = 0; i < 2; i++) {
    CHECK_EQ_INT(frame_all(open_ended[i], strlen(open_ended[i]), 3, &s, err, &at), 0);
    CHECK_EQ_INT(s.end, 1);
    CHECK_EQ_INT(s.events, 2);
  }
  const char *cut = "[{\"name\": \"a\"}, {\"name\": \"b";
  CHECK(frame_all(cut, strlen(cut), 3, &s, err, &at) != 0);
  CHECK(strstr(err, "ends early") != NULL);
  const char *obj = "{\"traceEvents\": [{\"name\": \"a\"}";
  CHECK(frame_all(obj, strlen(obj), 3, &s, err, &at) != 0);
  CHECK(strstr(err, "ends early") != NULL);
}

static int64_t ns(const char *s) {
  int64_t v = -999;
  if (tt_us_to_ns((tt_slice){s, strlen(s)}, &v) != 0) return -999;
  return v;
}

static void test_numbers(void) {
  CHECK_EQ_INT(ns("5131127428461.376"), 5131127428461376LL);
  CHECK_EQ_INT(ns("1669783687352244"), 1669783687352244000LL);
  CHECK_EQ_INT(ns("2.176"), 2176);
  CHECK_EQ_INT(ns("68.0"), 68000);
  CHECK_EQ_INT(ns("0.001"), 1);
  CHECK_EQ_INT(ns("0.0004"), 0);
  CHECK_EQ_INT(ns("0.0005"), 1);
  CHECK_EQ_INT(ns("1.2345"), 1235);
  CHECK_EQ_INT(ns("1.5e3"), 1500000);
  CHECK_EQ_INT(ns("-3.5"), -3500);
  CHECK_EQ_INT(ns("0"), 0);
  CHECK_EQ_INT(ns("9999999999999999999"), -999); /* does not fit in int64 ns */
  /* epoch microseconds with nanoseconds: 19 significant digits, every one kept (Kineto 2024) */
  CHECK_EQ_INT(ns("1693958165862817.259"), 1693958165862817259LL);
  CHECK_EQ_INT(ns("1693958165862819.999"), 1693958165862819999LL);
  /* a time written as a string is the number; a string of anything else is none */
  CHECK_EQ_INT(ns("\"5131127428461.376\""), 5131127428461376LL);
  CHECK_EQ_INT(ns("\"1\""), 1000);
  CHECK_EQ_INT(ns("\"\""), -999);
  CHECK_EQ_INT(ns("\"1x\""), -999);
  CHECK_EQ_INT(ns("1."), -999);
  /* Every ts of the form Kineto writes survives exactly (a double would not). */
  char buf[64];
  for (int64_t t = 5131127428461000LL; t < 5131127428461000LL + 5000; t += 7) {
    snprintf(buf, sizeof buf, "%lld.%03lld", (long long)(t / 1000), (long long)(t % 1000));
    CHECK_EQ_INT(ns(buf), t);
  }
  int64_t v;
  CHECK_EQ_INT(tt_int((tt_slice){"\"42\"", 4}, &v), 0);
  CHECK_EQ_INT(v, 42);
  CHECK_EQ_INT(tt_int((tt_slice){"4.2", 3}, &v), -1);
  CHECK_EQ_INT(tt_int((tt_slice){"9223372036854775807", 19}, &v), 0);
  CHECK_EQ_INT(v == INT64_MAX, 1);
  CHECK_EQ_INT(tt_int((tt_slice){"-9223372036854775807", 20}, &v), 0);
  CHECK_EQ_INT(v == -INT64_MAX, 1);
  CHECK_EQ_INT(tt_int((tt_slice){"9223372036854775808", 19}, &v), -1);
  /* CUPTI's 64-bit ids (a "graph node id"): all of uint64, nothing past it, no sign */
  uint64_t u;
  CHECK_EQ_INT(tt_uint64((tt_slice){"18446744073709551615", 20}, &u), 0);
  CHECK_EQ_INT(u == UINT64_MAX, 1);
  CHECK_EQ_INT(tt_uint64((tt_slice){"\"38654705665\"", 13}, &u), 0);
  CHECK_EQ_INT(u == 38654705665ULL, 1);
  CHECK_EQ_INT(tt_uint64((tt_slice){"18446744073709551616", 20}, &u), -1);
  CHECK_EQ_INT(tt_uint64((tt_slice){"-1", 2}, &u), -1);
}

static void test_strings(void) {
  char out[16];
  CHECK_EQ_INT(tt_string_decode((tt_slice){"\"a\\u0041\\n\"", 11}, out, sizeof out), 3);
  CHECK_EQ_STR(out, "aA\n");
  CHECK_EQ_INT(tt_string_decode((tt_slice){"\"abcdefghijklmnopqrstuvwxyz\"", 28}, out, sizeof out), 26);
  CHECK_EQ_INT(strlen(out), 15); /* truncated to fit, NUL-terminated */
  CHECK(tt_string_eq((tt_slice){"\"kernel\"", 8}, "kernel"));
  CHECK(!tt_string_eq((tt_slice){"\"kernel\"", 8}, "kerne"));
  CHECK(tt_string_eq((tt_slice){"\"k\\u0065rnel\"", 13}, "kernel"));
  /* a pair is one code point; a surrogate alone, high or low, is U+FFFD (valid UTF-8) */
  CHECK_EQ_INT(tt_string_decode((tt_slice){"\"\\ud83d\\ude80\"", 14}, out, sizeof out), 4);
  CHECK_EQ_STR(out, "\xf0\x9f\x9a\x80");
  CHECK_EQ_INT(tt_string_decode((tt_slice){"\"a\\ud800b\\udc00\"", 16}, out, sizeof out), 8);
  CHECK_EQ_STR(out, "a\xef\xbf\xbd" "b\xef\xbf\xbd");
  { /* an escaped string longer than any fixed buffer (fuzz_trace_events found 256 was a limit) */
    char *json = xp_xmalloc(1200), *text = xp_xmalloc(1200);
    size_t n = 0, m = 0;
    json[n++] = '"';
    for (int i = 0; i < 300; i++) json[n++] = 'a', text[m++] = 'a';
    memcpy(json + n, "\\t", 2), n += 2, text[m++] = '\t';
    for (int i = 0; i < 300; i++) json[n++] = 'b', text[m++] = 'b';
    json[n++] = '"';
    text[m] = 0;
    CHECK(tt_string_eq((tt_slice){json, n}, text));
    text[m - 1] = 'c';
    CHECK(!tt_string_eq((tt_slice){json, n}, text));
    text[m - 1] = 0;
    CHECK(!tt_string_eq((tt_slice){json, n}, text));
    free(json), free(text);
  }
}

/* An event with more args than it records: a key written after the TT_MAX_ARGS-th is found
** all the same (a kernel whose "External id" came after 64 other args lost its operator). */
static void test_many_args(void) {
  char *t = xp_xmalloc(8192);
  int n = snprintf(t, 8192, "[{\"name\": \"k\", \"args\": {");
  for (int i = 0; i < TT_MAX_ARGS + 6; i++) n += snprintf(t + n, 8192 - (size_t)n, "\"pad%d\": [%d, {\"x\": 1}], ", i, i);
  n += snprintf(t + n, 8192 - (size_t)n, "\"External id\": 42, \"pad0\": 7, \"last\": \"z\"}}]");
  tt_framer f;
  tt_framer_init(&f, 1 << 20);
  tt_event ev;
  tt_slice a, b;
  size_t pos = 0;
  CHECK_EQ_INT(tt_framer_next(&f, t, (size_t)n, &pos, 1, &ev, &a, &b), TT_UNIT_EVENT);
  CHECK_EQ_INT(ev.nargs, TT_MAX_ARGS);
  tt_slice v = tt_event_arg(&ev, "External id");
  CHECK(v.n == 2 && memcmp(v.p, "42", 2) == 0);
  v = tt_event_arg(&ev, "last");
  CHECK(v.n == 3 && memcmp(v.p, "\"z\"", 3) == 0);
  v = tt_event_arg(&ev, "pad0"); /* a key written twice: its last value, as json.load reads it */
  CHECK(v.n == 1 && v.p[0] == '7');
  CHECK_EQ_INT(tt_event_arg(&ev, "absent").n, 0);
  free(t);
}

/* A key written twice among the recorded args, or "args" itself twice: the last value counts,
** as for the event's own keys and every other JSON import (Chrome's and Perfetto's readers too). */
static void test_args_twice(void) {
  static const char t[] = "[{\"name\": \"k\", \"args\": {\"Group size\": 4, \"stream\": 7, \"Group size\": 2}},"
                          " {\"name\": \"k\", \"args\": {\"stream\": 7}, \"args\": {\"stream\": 9}},"
                          " {\"name\": \"k\", \"args\": {\"stream\": 7}, \"args\": null}]";
  tt_framer f;
  tt_framer_init(&f, 1 << 20);
  tt_event ev;
  tt_slice a, b;
  size_t pos = 0;
  CHECK_EQ_INT(tt_framer_next(&f, t, sizeof t - 1, &pos, 1, &ev, &a, &b), TT_UNIT_EVENT);
  tt_slice v = tt_event_arg(&ev, "Group size");
  CHECK(v.n == 1 && v.p[0] == '2');
  CHECK_EQ_INT(tt_framer_next(&f, t, sizeof t - 1, &pos, 1, &ev, &a, &b), TT_UNIT_EVENT);
  v = tt_event_arg(&ev, "stream");
  CHECK(v.n == 1 && v.p[0] == '9');
  CHECK_EQ_INT(tt_framer_next(&f, t, sizeof t - 1, &pos, 1, &ev, &a, &b), TT_UNIT_EVENT);
  CHECK_EQ_INT(tt_event_arg(&ev, "stream").n, 0);
  CHECK_EQ_INT(ev.args.n, 0);
}

int main(void) {
  test_windows();
  test_errors();
  test_huge_unit();
  test_bare_array();
  test_many_args();
  test_args_twice();
  test_numbers();
  test_strings();
  CHECK_DONE();
}
