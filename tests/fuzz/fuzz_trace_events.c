/*
** libFuzzer target: the trace event framer (importers/torch_trace/tt_json.c), the hand-written
** JSON scanner that every byte of every trace passes through.
**
** Besides crashes and out-of-bounds reads (each window handed to the framer is a fresh
** allocation of exactly its length, so reading one byte past it is caught), it checks that the
** framer answers the same whether the document arrives whole or in small pieces, as it does
** from the inflating reader thread: the same units, the same error at the same byte. And that
** the string helpers agree with each other on every event name.
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_common.h"
#include "torch_trace/tt_json.h"

#define FUZZ_MAX_UNIT (1u << 20)

/* What a framing pass saw: a digest of the units, and how it ended. */
typedef struct frame_log {
  uint64_t units, events, metas, digest;
  tt_unit end;
  char err[200];
  size_t err_at; /* absolute offset of the error */
} frame_log;

static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 1099511628211u;
  return h;
}

static void check_strings(const tt_event *ev) {
  if (!ev->name.n) return;
  char small[8], big[4096];
  long a = tt_string_decode(ev->name, small, sizeof small);
  long b = tt_string_decode(ev->name, big, sizeof big);
  FUZZ_ASSERT(a == b, "decoded lengths differ with the capacity: %ld vs %ld", a, b);
  if (b < 0) return;
  FUZZ_ASSERT(strlen(small) < sizeof small, "decode overran its capacity");
  FUZZ_ASSERT(strncmp(small, big, sizeof small - 1) == 0, "truncated decode is not a prefix");
  tt_slice inner;
  if (tt_string_plain(ev->name, &inner)) {
    FUZZ_ASSERT((long)inner.n == b, "plain string of %zu bytes decodes to %ld", inner.n, b);
    FUZZ_ASSERT(b >= (long)sizeof big || memcmp(inner.p, big, inner.n) == 0, "plain string decodes differently");
  }
  if (b < (long)sizeof big && strlen(big) == (size_t)b)
    FUZZ_ASSERT(tt_string_eq(ev->name, big), "a string does not equal its own decoding");
  (void)tt_event_arg(ev, "External id");
}

static void note_unit(frame_log *L, tt_unit u, const tt_event *ev, const tt_slice *key,
                      const tt_slice *val) {
  L->units++;
  if (u == TT_UNIT_EVENT) {
    L->events++;
    L->digest = mix(L->digest, &ev->number, sizeof ev->number);
    L->digest = mix(L->digest, &ev->text.n, sizeof ev->text.n);
    L->digest = mix(L->digest, ev->name.p ? ev->name.p : "", ev->name.n);
    L->digest = mix(L->digest, ev->ph.p ? ev->ph.p : "", ev->ph.n);
    L->digest = mix(L->digest, &ev->nargs, sizeof ev->nargs);
    FUZZ_ASSERT(ev->nargs >= 0 && ev->nargs <= TT_MAX_ARGS, "nargs %d", ev->nargs);
    check_strings(ev);
  } else {
    L->metas++;
    L->digest = mix(L->digest, key->p ? key->p : "", key->n);
    L->digest = mix(L->digest, &val->n, sizeof val->n);
  }
}

/* Frame data[0, size) handed over `chunk` bytes at a time (0: all at once). Every call gets a
** copy of its window in a buffer of exactly that size. */
static void frame(const uint8_t *data, size_t size, size_t chunk, frame_log *L) {
  memset(L, 0, sizeof *L);
  tt_framer f;
  tt_framer_init(&f, FUZZ_MAX_UNIT);
  size_t base = 0, avail = chunk ? (chunk < size ? chunk : size) : size, pos = 0;
  for (int guard = 0;; guard++) {
    FUZZ_ASSERT(guard < 10000000, "the framer does not advance");
    int eof = base + avail == size;
    char *win = malloc(avail ? avail : 1);
    memcpy(win, data + base, avail);
    tt_event ev;
    tt_slice key = {0}, val = {0};
    size_t before = pos;
    tt_unit u = tt_framer_next(&f, win, avail, &pos, eof, &ev, &key, &val);
    if (u == TT_UNIT_EVENT || u == TT_UNIT_META) {
      FUZZ_ASSERT(pos > before && pos <= avail, "unit did not advance within its window");
      note_unit(L, u, &ev, &key, &val);
      free(win);
      base += pos; /* keep only what follows the unit, as the importer does */
      avail -= pos;
      pos = 0;
      continue;
    }
    free(win);
    if (u == TT_UNIT_MORE) {
      FUZZ_ASSERT(!eof, "MORE at the end of the document");
      /* It may have stepped over separators ('[', ',') first: pos is where the unfinished
      ** unit starts, never before where it was, never past the window. */
      FUZZ_ASSERT(pos >= before && pos <= avail, "MORE left the position at %zu (was %zu, window %zu)",
                  pos, before, avail);
      size_t add = chunk ? chunk : size;
      avail = base + avail + add > size ? size - base : avail + add;
      continue;
    }
    L->end = u;
    if (u == TT_UNIT_ERROR) {
      snprintf(L->err, sizeof L->err, "%s", f.err);
      L->err_at = base + f.err_pos;
      FUZZ_ASSERT(f.err[0], "error without a message");
    }
    return;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  frame_log whole, piece;
  frame(data, size, 0, &whole);
  static const size_t chunks[] = {7, 101};
  for (size_t i = 0; i < sizeof chunks / sizeof chunks[0]; i++) {
    frame(data, size, chunks[i], &piece);
    FUZZ_ASSERT(piece.end == whole.end && piece.units == whole.units && piece.digest == whole.digest,
                "framing in pieces of %zu differs: %llu units end %d vs %llu units end %d",
                chunks[i], (unsigned long long)piece.units, piece.end,
                (unsigned long long)whole.units, whole.end);
    FUZZ_ASSERT(whole.end != TT_UNIT_ERROR || (strcmp(piece.err, whole.err) == 0 && piece.err_at == whole.err_at),
                "error differs in pieces of %zu: '%s' at %zu vs '%s' at %zu", chunks[i], piece.err,
                piece.err_at, whole.err, whole.err_at);
  }
  return 0;
}
