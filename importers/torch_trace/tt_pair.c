/*
** Duration events written as a begin ("ph": "B") and an end ("E") on one thread, where Kineto
** writes one complete event ("X") with its "dur". Hand-merged traces, converters and some
** framework exporters write pairs; the Chrome Trace Event Format allows both. A pair counts as
** the "X" it stands for: the B's fields ("cat" and "name" the E's where the B has none), "dur"
** the E's time less the B's (each read to the nanosecond), the args of both, the E's after the
** B's, so that it counts where both name one (as Chrome's viewer merges them, the end's over the
** begin's).
**
** The import reads a file's events in any order (tt_read.c): reversed, every E comes before its
** B, so no pair can be made from the file's order as it streams past. A file with B/E events is
** therefore read twice, as tt_read.c already reads again where the order decided: the first
** read notes each B or E (its thread, time and name: a be_rec, 24 bytes) and nothing else of
** it; the notes are then paired, per thread by time (tt_be_pair); the second read, with every
** pair known, holds the text of whichever of a pair the file writes first until the other comes,
** and hands the rank the complete event then (tt_be_event). Kept: the notes while pairing, then
** 4 bytes per B/E event (the partner) and the pairs open in the file's order. A file without
** B/E events (any of Kineto's) is read once, as before: one comparison of "ph" per event.
**
** The pairing, per (pid, tid), in time order; an integer pid or tid is one thread whether written
** as a number or a string (tt_id_key), any other text as written:
**   - an E closes the innermost open B: the format's rule. Where the E names its event and the
**     innermost open B is another, it closes the innermost open B of its name (or of no name):
**     the writer said which it ends, and two events that overlap on one thread, which no stack
**     nests, keep their own times (Perfetto's reading; Chrome's viewer closes the innermost and
**     warns). Names are compared as written. An E with no open B of its name, or none at all,
**     is unpaired; so is a B never closed (a profile cut off). Both are left out, said with
**     their count (tt_read.c), as are B/E events without a valid "ts".
**   - at one time on one thread, the E's are taken before the B's: one event ending where the
**     next begins (ProfilerStep#1 then #2, decode_step after decode_step, operators back to
**     back) is far more common than an event of zero length, and taken B first, such an E would
**     close the new event at zero length and leave the old one open to the next E. An E that
**     finds no open B of its name (or nothing open) is taken again once the B's of its time have
**     opened: an event of zero length pairs as one where its E names it, or nothing else was
**     open. (An unnamed E at the time a B opens inside another event closes that outer event:
**     a zero-length event there needs its E's name.)
**   - of the E's of one time, those that name their event go first, then the unnamed ones (each
**     the innermost of what is left), so which B's close at that time is the same whatever order
**     the file writes them in.
** Where the file's order still decides, and no rule can without it: B's that open at one time
** on one thread nest in the order the file writes them (the first the outer, as the format
** says), and E's of one time take their B's in the order written. It matters only where the
** E's do not tell those B's apart (unnamed, or of one name): which one is the outer, so which
** ends at which time, and whose args an E's merge into. A file written in reverse pairs such
** B's the other way; test_trace_order reads its trace of that tie (be_tie.json) as written and
** with the GPU activities first (which keeps the CPU events' order), not reversed.
**
** Async events ("b" begins, "e" ends, "n" an instant: the format's nestable async events) are
** paired alike, by the same rules, per event tree instead of per thread: the events of one
** category and id ("id", or "id2" {"local": ...} / {"global": ...}, as a key: 7 and "7" alike)
** and "scope", of one process unless the id is global, whatever their threads (an async span
** may end on another thread than it began on). No writer of torch traces is known to write them:
** Kineto writes complete events, instants, flows ("s"/"f"), counters and metadata; the legacy
** profiler complete events and flows; NCCL's example profiler plugin writes its groups,
** collectives and proxy steps as async events, in a file of its own. So an async pair counts,
** as the "X" it stands for, only where its "b" marks a step (ProfilerStep#N, or the annotation
** asked for: a tool that wrote its steps as async spans), as that step's annotation whatever its
** category (an async event's names its tree); every other async half is read as it is, as it
** was before pairing (TT_AS_IS): an event that is not complete, which no figure counts (said
** where it is of a GPU activity's category, or a step's unpaired half).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tt_num.h"
#include "tt_trace.h"
#include "xp.h"

#define SL_EQ(s, lit) ((s).n == sizeof(lit) - 1 && memcmp((s).p, lit, sizeof(lit) - 1) == 0)

enum { BE_END = 1, BE_UNTIMED = 2, BE_DEFERRED = 4, BE_ASYNC = 8, BE_STEP = 16 /* its name marks a step */ };

typedef struct be_rec { /* one "B" or "E" ("b" or "e"), noted on the first read */
  int64_t ts;           /* ns as read; INT64_MIN where untimed */
  uint32_t thread;      /* (pid, tid) as keys (tt_id_key), interned; an async event's tree */
  uint32_t name;        /* the name as written (quotes and escapes), interned + 1; 0: none */
  uint32_t index;       /* its place among the file's B/E events */
  uint32_t flags;       /* BE_* */
} be_rec;

typedef struct held { /* the text of the first of a pair, until the second comes */
  uint32_t key;       /* B/E index + 1; 0: an empty slot */
  uint32_t len;
  uint64_t number;    /* its place in traceEvents (--events keeps it by that) */
  char *text;         /* "[" event "]": a document the framer reads on its own */
} held;

struct tt_be {
  /* the first read */
  xp_vec recs; /* be_rec, in file order */
  xp_strtab threads, names;
  /* the second read */
  uint32_t next;  /* the index of the next B/E event */
  held *slots;    /* open addressing, linear probing; a power of two */
  uint32_t nslots, nheld;
  tt_event *a, *x; /* the held half, framed; the complete event made of the pair */
  char *buf;       /* the complete event's text */
  size_t cap;
};

void tt_be_free(tt_be *b) {
  if (!b) return;
  xp_vec_free(&b->recs);
  xp_strtab_free(&b->threads);
  xp_strtab_free(&b->names);
  for (uint32_t i = 0; i < b->nslots; i++) free(b->slots[i].text);
  free(b->slots);
  free(b->a);
  free(b->x);
  free(b->buf);
  free(b);
}

/* ---- the first read: note each B and E ---- */

/* The value of an "id2" object, {"local": ID} or {"global": ID}, as written; *global where it is
** the latter. {NULL, 0} where id2 is no such object. The framer checked its grammar. */
static tt_slice id2_value(tt_slice id2, int *global) {
  const char *p = id2.p, *end = id2.p + id2.n;
  *global = 0;
  while (p < end && *p != '"') p++; /* the key's quote */
  if (p == end) return (tt_slice){NULL, 0};
  const char *k = p + 1, *q = k;
  while (q < end && *q != '"') q++; /* "local" and "global" hold no escapes */
  *global = q - k == 6 && memcmp(k, "global", 6) == 0;
  if (!*global && !(q - k == 5 && memcmp(k, "local", 5) == 0)) return (tt_slice){NULL, 0};
  for (p = q + 1; p < end && (*p == ':' || *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r');) p++;
  const char *v = p;
  if (p < end && *p == '"') { /* a string: to its closing quote */
    for (p++; p < end && *p != '"'; p++)
      if (*p == '\\') p++;
    p++;
  } else { /* a number */
    while (p < end && *p != ',' && *p != '}' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') p++;
  }
  return (tt_slice){v, (size_t)((p < end ? p : end) - v)};
}

/* The key of an async event's tree, of n parts, into out (the caller's, or malloc'd where
** larger). 0x1e first: no B/E thread's key starts so (a pid's key is an integer's decimal or
** JSON text). */
static char *async_key(const tt_event *ev, char *out, size_t cap, size_t *n) {
  char pidbuf[TT_ID_KEY], idbuf[TT_ID_KEY];
  int global = 0;
  tt_slice id = ev->id, id2;
  char kind = 'i';
  if (!id.n && (id2 = tt_event_key(ev, "id2")).n) {
    id = id2_value(id2, &global);
    kind = global ? 'g' : 'l';
  }
  id = tt_id_key(id, idbuf);
  const tt_slice part[5] = {global ? (tt_slice){NULL, 0} : tt_id_key(ev->pid, pidbuf), ev->cat,
                            tt_event_key(ev, "scope"), {&kind, 1}, id};
  size_t len = 1;
  for (int i = 0; i < 5; i++) len += part[i].n + 1;
  char *key = len <= cap ? out : xp_xmalloc(len);
  key[0] = 0x1e;
  *n = 1;
  for (int i = 0; i < 5; i++) {
    if (part[i].n) memcpy(key + *n, part[i].p, part[i].n);
    *n += part[i].n;
    key[(*n)++] = 0x1f;
  }
  return key;
}

char *tt_thread_key(const tt_event *ev, char *out, size_t cap, size_t *n) {
  char pidbuf[TT_ID_KEY], tidbuf[TT_ID_KEY];
  const tt_slice pid = tt_id_key(ev->pid, pidbuf), tid = tt_id_key(ev->tid, tidbuf);
  *n = pid.n + 1 + tid.n;
  char *key = *n <= cap ? out : xp_xmalloc(*n);
  if (pid.n) memcpy(key, pid.p, pid.n);
  key[pid.n] = 0x1f;
  if (tid.n) memcpy(key + pid.n + 1, tid.p, tid.n);
  return key;
}

/* Does the async event's name mark a step (tt_marks_step)? Its text decoded. */
static int names_step(const tt_event *ev, const tt_options *opt) {
  char buf[256];
  const long n = ev->name.n ? tt_string_decode(ev->name, buf, sizeof buf) : -1;
  return n >= 0 && (size_t)n < sizeof buf && tt_marks_step(opt, buf, (size_t)n);
}

static void note(tt_be *b, const tt_event *ev, const tt_options *opt) {
  be_rec *rec = xp_vec_push(&b->recs, sizeof *rec);
  rec->index = (uint32_t)(b->recs.n - 1);
  const char ph = ev->ph.p[1];
  rec->flags = (ph == 'E' || ph == 'e' ? BE_END : 0) | (ph == 'b' || ph == 'e' ? BE_ASYNC : 0);
  if ((rec->flags & BE_ASYNC) && names_step(ev, opt)) rec->flags |= BE_STEP;
  if (tt_us_to_ns(ev->ts, &rec->ts) != 0) rec->ts = INT64_MIN, rec->flags |= BE_UNTIMED;
  char stackbuf[256];
  size_t n;
  char *key = rec->flags & BE_ASYNC ? async_key(ev, stackbuf, sizeof stackbuf, &n)
                                    : tt_thread_key(ev, stackbuf, sizeof stackbuf, &n);
  rec->thread = xp_strtab_intern(&b->threads, key, n, NULL);
  if (key != stackbuf) free(key);
  rec->name = ev->name.n ? xp_strtab_intern(&b->names, ev->name.p, ev->name.n, NULL) + 1 : 0;
}

/* ---- pairing ---- */

static int by_thread_time(const void *a, const void *b) {
  const be_rec *x = a, *y = b;
  if (x->thread != y->thread) return x->thread < y->thread ? -1 : 1;
  if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
  return (x->index > y->index) - (x->index < y->index);
}

typedef struct slot { /* an open B, on its thread's stack */
  uint32_t rec;       /* in the sorted notes */
  uint32_t below;     /* the slot + 1 of the next open B of its name further in; 0: none */
  int closed;         /* closed by an E of its name while B's it holds were open still */
} slot;

typedef struct pairer {
  be_rec *recs;
  uint32_t *partner;
  xp_vec stack; /* slot */
  uint32_t *top; /* per name + 1 (0: none): the slot + 1 of the innermost open B of that name */
} pairer;

/* Slots closed out of turn leave the stack once nothing open is above them. */
static void pop_closed(pairer *p) {
  while (p->stack.n && XP_VEC_AT(&p->stack, slot, p->stack.n - 1)->closed) p->stack.n--;
}

/* The E recs[e] closes the innermost open B of its name (or of none), or the innermost where it
** names none: 1, and the two are partners; 0 where none is open. */
static int close_one(pairer *p, uint32_t e) {
  const uint32_t name = p->recs[e].name;
  uint32_t s;
  if (name) { /* the innermost of its name, or of none: a B without a name may be any */
    const uint32_t t = p->top[name] > p->top[0] ? p->top[name] : p->top[0];
    if (!t) return 0;
    s = t - 1;
  } else {
    pop_closed(p);
    if (!p->stack.n) return 0;
    s = (uint32_t)p->stack.n - 1;
  }
  /* s heads its name's chain (the innermost open B of all is the innermost of its name too) */
  slot *o = XP_VEC_AT(&p->stack, slot, s);
  const be_rec *b = &p->recs[o->rec];
  p->top[b->name] = o->below;
  o->closed = 1;
  pop_closed(p);
  p->partner[b->index] = p->recs[e].index;
  p->partner[p->recs[e].index] = b->index;
  return 1;
}

static void open_one(pairer *p, uint32_t i) {
  slot *o = xp_vec_push(&p->stack, sizeof *o);
  o->rec = i;
  o->below = p->top[p->recs[i].name];
  p->top[p->recs[i].name] = (uint32_t)p->stack.n;
}

/* The E's of recs[i, end) (one thread, one time) whose flags match want: named ones first, then
** unnamed ones, each closing what it can. Those that close none are marked deferred on the first
** try (BE_DEFERRED), and counted unpaired on the second. */
static void close_ends(pairer *p, uint32_t i, uint32_t end, uint32_t want, tt_pairing *out) {
  for (int named = 1; named >= 0; named--)
    for (uint32_t j = i; j < end; j++) {
      be_rec *r = &p->recs[j];
      if ((r->flags & (BE_END | BE_UNTIMED | BE_DEFERRED)) != want || (r->name != 0) != named) continue;
      if (close_one(p, j)) continue;
      if (want & BE_DEFERRED) out->lone_e += !(r->flags & BE_ASYNC);
      else r->flags |= BE_DEFERRED;
    }
}

/* One thread's notes, recs[i, end), sorted by time. */
static void pair_thread(pairer *p, uint32_t i, uint32_t end, tt_pairing *out) {
  while (i < end && (p->recs[i].flags & BE_UNTIMED)) i++; /* sorted first (INT64_MIN), counted */
  for (uint32_t g = i; i < end; i = g) {
    while (g < end && p->recs[g].ts == p->recs[i].ts) g++;
    close_ends(p, i, g, BE_END, out);                 /* what was open before this time */
    for (uint32_t j = i; j < g; j++)
      if (!(p->recs[j].flags & BE_END)) open_one(p, j); /* in the file's order: the first the outer */
    close_ends(p, i, g, BE_END | BE_DEFERRED, out);   /* events of zero length */
  }
  for (size_t k = 0; k < p->stack.n; k++) { /* never closed: the profile ended first */
    const slot *o = XP_VEC_AT(&p->stack, slot, k);
    if (!o->closed) out->open_b += !(p->recs[o->rec].flags & BE_ASYNC);
    p->top[p->recs[o->rec].name] = 0;
  }
  p->stack.n = 0;
}

/* The async halves that are no step's pair (recs sorted, partner by index): read as they are. */
static void as_is_unless_steps(const be_rec *recs, uint32_t n, uint32_t *partner) {
  for (uint32_t i = 0; i < n; i++) {
    const be_rec *r = &recs[i];
    if (!(r->flags & BE_ASYNC)) continue;
    const uint32_t other = partner[r->index];
    if (other == TT_UNPAIRED) partner[r->index] = TT_AS_IS;
    else if (!(r->flags & BE_END) && !(r->flags & BE_STEP)) partner[r->index] = partner[other] = TT_AS_IS;
  }
}

int tt_be_pair(tt_be *b, tt_pairing *out) {
  memset(out, 0, sizeof *out);
  if (!b || !b->recs.n) return 0;
  const uint32_t n = (uint32_t)b->recs.n;
  pairer p = {0};
  p.recs = b->recs.data;
  p.partner = xp_xmalloc((size_t)n * sizeof *p.partner);
  for (uint32_t i = 0; i < n; i++) {
    p.partner[i] = TT_UNPAIRED;
    out->untimed += (p.recs[i].flags & (BE_UNTIMED | BE_ASYNC)) == BE_UNTIMED;
  }
  p.top = xp_xcalloc((size_t)b->names.n + 1, sizeof *p.top);
  qsort(p.recs, n, sizeof *p.recs, by_thread_time);
  for (uint32_t i = 0, end; i < n; i = end) {
    for (end = i; end < n && p.recs[end].thread == p.recs[i].thread;) end++;
    pair_thread(&p, i, end, out);
  }
  as_is_unless_steps(p.recs, n, p.partner);
  free(p.top);
  xp_vec_free(&p.stack);
  out->partner = p.partner;
  out->n = n;
  return 1;
}

void tt_pairing_free(tt_pairing *p) {
  free(p->partner);
  memset(p, 0, sizeof *p);
}

/* ---- the second read: the first of a pair held until the other comes ---- */

static uint32_t slot_of(const tt_be *b, uint32_t key) {
  return (key * 2654435761u) & (b->nslots - 1);
}

static void hold(tt_be *b, uint32_t index, const tt_event *ev) {
  const tt_slice text = ev->text;
  if (2 * (b->nheld + 1) > b->nslots) { /* grow, at half full */
    held *old = b->slots;
    const uint32_t n = b->nslots;
    b->nslots = n ? 2 * n : 16;
    b->slots = xp_xcalloc(b->nslots, sizeof *b->slots);
    for (uint32_t i = 0; i < n; i++)
      if (old[i].key) {
        uint32_t s = slot_of(b, old[i].key);
        while (b->slots[s].key) s = (s + 1) & (b->nslots - 1);
        b->slots[s] = old[i];
      }
    free(old);
  }
  uint32_t s = slot_of(b, index + 1);
  while (b->slots[s].key) s = (s + 1) & (b->nslots - 1);
  held *h = &b->slots[s];
  h->key = index + 1;
  h->number = ev->number;
  h->len = (uint32_t)text.n + 2;
  h->text = xp_xmalloc(h->len);
  h->text[0] = '[';
  memcpy(h->text + 1, text.p, text.n);
  h->text[h->len - 1] = ']';
  b->nheld++;
}

/* The held text of the B/E event index, out of the table (the caller frees it), and its place
** in traceEvents; NULL if none. */
static char *take(tt_be *b, uint32_t index, size_t *len, uint64_t *number) {
  if (!b->nslots) return NULL;
  const uint32_t mask = b->nslots - 1;
  uint32_t s = slot_of(b, index + 1);
  while (b->slots[s].key && b->slots[s].key != index + 1) s = (s + 1) & mask;
  if (!b->slots[s].key) return NULL;
  char *text = b->slots[s].text;
  *len = b->slots[s].len;
  *number = b->slots[s].number;
  b->nheld--;
  /* backward-shift deletion: no tombstones, so probes stay as short as what is held. An entry
  ** after the hole moves into it unless its home slot lies after the hole (cyclically) */
  uint32_t hole = s;
  for (uint32_t i = (s + 1) & mask; b->slots[i].key; i = (i + 1) & mask) {
    const uint32_t home = slot_of(b, b->slots[i].key);
    if (((i - home) & mask) >= ((i - hole) & mask)) {
      b->slots[hole] = b->slots[i];
      hole = i;
    }
  }
  memset(&b->slots[hole], 0, sizeof b->slots[hole]);
  return text;
}

static void put(tt_be *b, size_t *n, const char *s, size_t k) {
  if (*n + k > b->cap) {
    b->cap = 2 * (*n + k) + 256;
    b->buf = xp_xrealloc(b->buf, b->cap);
  }
  memcpy(b->buf + *n, s, k);
  *n += k;
}

static void put_field(tt_be *b, size_t *n, const char *key, tt_slice v) {
  if (!v.n) return;
  put(b, n, ",\"", 2);
  put(b, n, key, strlen(key));
  put(b, n, "\":", 2);
  put(b, n, v.p, v.n);
}

/* The members of an args object, without its braces ({NULL, 0} where none, or not an object). */
static tt_slice args_body(tt_slice args) {
  if (args.n < 2 || args.p[0] != '{') return (tt_slice){NULL, 0};
  const char *p = args.p + 1, *e = args.p + args.n - 1; /* e: the closing brace */
  while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
  return p < e ? (tt_slice){p, (size_t)(e - p)} : (tt_slice){NULL, 0};
}

/* The complete event of begin and end, framed into b->x. 0, or -1 where it cannot be. */
static int make_complete(tt_be *b, const tt_event *beg, const tt_event *end) {
  int64_t t0, t1;
  if (tt_us_to_ns(beg->ts, &t0) || tt_us_to_ns(end->ts, &t1) || t1 < t0) return -1; /* paired: never */
  size_t n = 0;
  char dur[48];
  const int64_t d = t1 - t0;
  const int k = snprintf(dur, sizeof dur, "%lld.%03lld", (long long)(d / 1000), (long long)(d % 1000));
  put(b, &n, "[{\"ph\":\"X\"", 10);
  put_field(b, &n, "cat", beg->cat.n ? beg->cat : end->cat);
  put_field(b, &n, "name", beg->name.n ? beg->name : end->name);
  put_field(b, &n, "pid", beg->pid);
  put_field(b, &n, "tid", beg->tid);
  put_field(b, &n, "ts", beg->ts);
  put_field(b, &n, "dur", (tt_slice){dur, (size_t)k});
  const tt_slice ea = args_body(end->args), ba = args_body(beg->args);
  if (ea.n || ba.n) { /* the end's last: a key both name is read as the end's (tt_event_arg: the last) */
    put(b, &n, ",\"args\":{", 9);
    if (ba.n) put(b, &n, ba.p, ba.n);
    if (ea.n && ba.n) put(b, &n, ",", 1);
    if (ea.n) put(b, &n, ea.p, ea.n);
    put(b, &n, "}", 1);
  }
  put(b, &n, "}]", 2);
  tt_framer f;
  tt_framer_init(&f, n + 1);
  size_t pos = 0;
  tt_slice key, val;
  return tt_framer_next(&f, b->buf, n, &pos, 1, b->x, &key, &val) == TT_UNIT_EVENT ? 0 : -1;
}

/* --events, on a read that leaves another device's or process's events out: does it keep the
** halves that name no category here, as their pairs are made (tt_event_kept_now left them)? */
static int keeps_halves(const tt_options *opt) {
  return (opt->on_event || opt->keep_halves) && opt->events_kept && (opt->device || opt->proc);
}

/* A half of those: kept where its pair, x (NULL: none), is not elsewhere. 0 or TT_NOT_KEPT. */
static int keep_half(tt_rank *r, const tt_event *half, const tt_event *x, const tt_options *opt) {
  if (half->cat.n || (x && tt_event_elsewhere(x, opt))) return 0;
  return opt->events_kept->event(opt->events_kept->ctx, r, half) ? TT_NOT_KEPT : 0;
}

int tt_be_event(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt, char *err, size_t errlen) {
  if (!r->be) r->be = xp_xcalloc(1, sizeof *r->be);
  tt_be *b = r->be;
  if (!opt->pairs) { /* the first read: noted, paired once the file is read (tt_read.c) */
    note(b, ev, opt);
    return 0;
  }
  const uint32_t k = b->next++;
  const int halves = keeps_halves(opt);
  /* the file read again is the file paired: the same B/E events. Past them (a file that
  ** changed between the reads), nothing is known of an event: left out */
  const uint32_t other = k < opt->pairs->n ? opt->pairs->partner[k] : TT_UNPAIRED;
  int rc = 0;
  if (other == TT_AS_IS) rc = tt_rank_complete(imp, r, ev, opt, err, errlen); /* an async half, no step's */
  /* a B/E half left out: counted by the pairing, said by tt_read.c. Either kept by its own category */
  if (other == TT_UNPAIRED || other == TT_AS_IS) return !rc && halves ? keep_half(r, ev, NULL, opt) : rc;
  if (other > k) {
    hold(b, k, ev);
    return 0;
  }
  size_t len;
  uint64_t number;
  char *text = take(b, other, &len, &number);
  if (!text) return 0;
  if (!b->a) b->a = xp_xmalloc(sizeof *b->a), b->x = xp_xmalloc(sizeof *b->x);
  tt_framer f;
  tt_framer_init(&f, len + 1);
  size_t pos = 0;
  tt_slice key, val;
  if (tt_framer_next(&f, text, len, &pos, 1, b->a, &key, &val) == TT_UNIT_EVENT) {
    b->a->number = number;
    const int first_is_b = b->a->ph.p[1] == 'B' || b->a->ph.p[1] == 'b';
    const int made = make_complete(b, first_is_b ? b->a : ev, first_is_b ? ev : b->a) == 0;
    const int async = ev->ph.p[1] == 'b' || ev->ph.p[1] == 'e'; /* a step's (TT_AS_IS: the others) */
    char clipped[32]; /* a GPU activity's "dur" as clipped, as tt_read.c clips an "X" (tt_clip.c) */
    const int copy = made && opt->clips && tt_clip_event(opt->clips, b->x, clipped, sizeof clipped);
    if (made && !copy) rc = (async ? tt_rank_async : tt_rank_complete)(imp, r, b->x, opt, err, errlen);
    /* the halves with no category of their own go with the pair: another device's or process's
    ** are left out with it */
    if (!rc && halves) rc = keep_half(r, b->a, made ? b->x : NULL, opt);
    if (!rc && halves) rc = keep_half(r, ev, made ? b->x : NULL, opt);
  }
  free(text);
  return rc;
}
