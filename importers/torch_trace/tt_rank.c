/*
** Per-rank aggregation: what each event of a trace contributes (see tt_trace.h).
**
** Kineto writes the CPU side first (operators, annotations), then the GPU activities, so when
** a kernel arrives its launching operator (same "External id") and the step that operator ran
** in are usually known already; they are kept in a paged array indexed by External id. A kernel
** whose operator is not known yet (written later: other writers, merged or reordered files) is
** linked once the file is done; one without such a link is placed then by its launch (the
** runtime event of the same correlation id, which Kineto writes after the kernel as often as
** before), else by stream order or its GPU start (tt_done.c).
*/
#include <stdlib.h>
#include <string.h>
#include "tt_num.h"
#include "spec.h"
#include "tt_trace.h"
#include "xp.h"

const char *const tt_coll_names[TT_COLL_COUNT] = {
    "", "allreduce", "allgather", "reduce_scatter", "alltoall", "sendrecv", "broadcast",
    "communication"};

/* Compare ignoring case and underscores: "all_gather", "_allgather_base", "AllGather". */
static int has_word(const char *s, const char *w) {
  for (const char *h = s; *h; h++) {
    const char *a = h, *b = w;
    while (*a && *b) {
      if (*a == '_') { a++; continue; }
      if ((*a | 0x20) != *b) break;
      a++, b++;
    }
    if (!*b) return 1;
  }
  return 0;
}

enum tt_coll tt_coll_from_text(const char *s) {
  if (has_word(s, "allreduce")) return TT_COLL_ALLREDUCE;
  if (has_word(s, "reducescatter")) return TT_COLL_REDUCE_SCATTER;
  if (has_word(s, "allgather")) return TT_COLL_ALLGATHER;
  if (has_word(s, "alltoall")) return TT_COLL_ALLTOALL;
  if (has_word(s, "sendrecv") || has_word(s, "send") || has_word(s, "recv")) return TT_COLL_SENDRECV;
  if (has_word(s, "broadcast")) return TT_COLL_BROADCAST;
  return TT_COLL_OTHER;
}

static enum tt_coll coll_of_category(const char *c) {
  for (int i = 1; i < TT_COLL_COUNT; i++)
    if (strcmp(c, tt_coll_names[i]) == 0) return (enum tt_coll)i;
  return TT_COLL_OTHER;
}

#define SL_EQ(s, lit) ((s).n == sizeof(lit) - 1 && memcmp((s).p, lit, sizeof(lit) - 1) == 0)

enum ev_cat { C_OTHER, C_KERNEL, C_MEMCPY, C_MEMSET, C_CPU_OP, C_ANNOT, C_TRACE, C_RUNTIME, C_GPU_ANNOT };

static enum ev_cat cat_of(tt_slice c) {
  switch (c.n) {
    case 7: if (SL_EQ(c, "\"Trace\"")) return C_TRACE; break;
    case 8:
      if (SL_EQ(c, "\"kernel\"") || SL_EQ(c, "\"Kernel\"")) return C_KERNEL;
      if (SL_EQ(c, "\"cpu_op\"")) return C_CPU_OP;
      if (SL_EQ(c, "\"Memcpy\"")) return C_MEMCPY;
      if (SL_EQ(c, "\"Memset\"")) return C_MEMSET;
      break;
    /* Kineto's JSON writer until 2021 spelt its categories "Kernel", "Memcpy", "Memset",
    ** "Operator" and, for every CUDA (or HIP) runtime call, "Runtime" (HTA's 2022 fixtures) */
    case 9: if (SL_EQ(c, "\"Runtime\"")) return C_RUNTIME; break;
    case 10: if (SL_EQ(c, "\"Operator\"")) return C_CPU_OP; break;
    case 12:
      if (SL_EQ(c, "\"gpu_memcpy\"")) return C_MEMCPY;
      if (SL_EQ(c, "\"gpu_memset\"")) return C_MEMSET;
      if (SL_EQ(c, "\"xpu_driver\"")) return C_RUNTIME;
      /* Cambricon's Kineto build (Cambricon/torch_mlu kineto_mlu) before it took the PrivateUse1
      ** names below: an MLU's copies, fills and runtime calls; its kernels are "kernel" */
      if (SL_EQ(c, "\"mlu_memcpy\"")) return C_MEMCPY;
      if (SL_EQ(c, "\"mlu_memset\"")) return C_MEMSET;
      break;
    /* Intel GPUs (Kineto's XPU plugin over PTI): the SYCL / Unified Runtime calls
    ** (urEnqueueKernelLaunch, urEnqueueUSMMemcpy, ...) are "xpu_runtime", the Level Zero calls
    ** under them "xpu_driver", sharing their correlation. PTI numbers every call in the order
    ** made, as CUPTI does, and an activity carries its launch's: CUDA's launches alike */
    case 13:
      if (SL_EQ(c, "\"cuda_driver\"")) return C_RUNTIME;
      if (SL_EQ(c, "\"xpu_runtime\"")) return C_RUNTIME;
      if (SL_EQ(c, "\"mlu_runtime\"")) return C_RUNTIME;
      if (SL_EQ(c, "\"musa_driver\"")) return C_RUNTIME; /* Moore Threads' build, likewise */
      break;
    case 14:
      if (SL_EQ(c, "\"cuda_runtime\"")) return C_RUNTIME;
      if (SL_EQ(c, "\"musa_runtime\"")) return C_RUNTIME;
      break;
    case 17: if (SL_EQ(c, "\"user_annotation\"")) return C_ANNOT; break;
    /* Other vendors' backends (PyTorch's PrivateUse1: Moore Threads' MUSA, Cambricon's MLU,
    ** Gaudi, ...) through their Kineto builds or plugins: their runtime and driver calls, which
    ** Kineto treats as it does CUDA's (no External id of their own, output_json.cpp) and MUSA's
    ** MUPTI numbers as CUPTI does, the kernel carrying its launch's correlation */
    case 20: if (SL_EQ(c, "\"privateuse1_driver\"")) return C_RUNTIME; break;
    case 21:
      if (SL_EQ(c, "\"privateuse1_runtime\"")) return C_RUNTIME;
      if (SL_EQ(c, "\"gpu_user_annotation\"")) return C_GPU_ANNOT;
      break;
  }
  return C_OTHER;
}

enum tt_side tt_event_side(const tt_event *ev) {
  switch (cat_of(ev->cat)) {
    case C_KERNEL: case C_MEMCPY: case C_MEMSET: return TT_SIDE_GPU;
    case C_RUNTIME: return TT_SIDE_LAUNCH;
    default: return TT_SIDE_OTHER;
  }
}

/* The text of a string value: its bytes in place when it has no escapes, else decoded into the
** import's scratch buffer. NULL if s is not a string. */
static const char *text_of(tt_import *imp, tt_slice s, size_t *n, int *in_place) {
  tt_slice in;
  if (tt_string_plain(s, &in)) {
    *n = in.n;
    *in_place = 1;
    return in.p;
  }
  *in_place = 0;
  if (s.n < 2 || s.p[0] != '"') return NULL;
  if (imp->scratch_cap < s.n + 1) {
    imp->scratch_cap = s.n + 1;
    imp->scratch = xp_xrealloc(imp->scratch, imp->scratch_cap);
  }
  long k = tt_string_decode(s, imp->scratch, imp->scratch_cap);
  *n = (size_t)k;
  return imp->scratch;
}

/* A slice as a NUL-terminated string, decoded when it is a JSON string. An absent argument
** is the empty slice {NULL, 0}: the empty string, with no memcpy from NULL. */
static char *dup_text(tt_slice s) {
  char *out = xp_xmalloc(s.n + 1);
  long n = tt_string_decode(s, out, s.n + 1);
  if (n < 0) {
    if (s.n) memcpy(out, s.p, s.n);
    out[s.n] = 0;
  }
  return out;
}

const char *const tt_gpu_kind_name[3] = {"kernel", "memcpy", "memset"};

static uint32_t intern_name(tt_import *imp, const char *s, size_t n, enum tt_gpu_kind kind) {
  int added;
  uint32_t id = xp_strtab_intern(&imp->names, s, n, &added);
  if (added) {
    tt_name_info *ni = xp_vec_push(&imp->name_info, sizeof *ni);
    /* checked once per distinct name, not per event: the table is keyed by the trace's bytes */
    ni->text = xp_utf8_mended(s, n, &ni->text_len);
    imp->names_mended += ni->text != NULL;
    ni->rule = tt_rules_match(imp->rules, ni->text ? ni->text : imp->names.str[id]);
    ni->category = tt_rules_category_of(imp->rules, ni->rule, tt_gpu_kind_name[kind]);
    ni->comm = strcmp(tt_rules_group(imp->rules, ni->category), "communication") == 0;
    ni->coll = ni->comm ? coll_of_category(ni->category) : TT_COLL_NONE;
    ni->kind = kind;
  }
  return id;
}

static int64_t arg_int(const tt_event *ev, const char *key, int64_t dflt) {
  int64_t v;
  tt_slice s = tt_event_arg(ev, key);
  return s.n && tt_int(s, &v) == 0 ? v : dflt;
}

int64_t tt_event_ext(const tt_event *ev) {
  int64_t ext = arg_int(ev, "External id", 0);
  if (ext <= 0) ext = arg_int(ev, "external id", 0);
  return ext > 0 ? ext : 0;
}

/* Does the event read "ts": 0 and, where it has a "dur", "dur": 0? The time PyTorch 2.12's
** export_chrome_trace writes for events it has none of (TT_NEAR_ZERO). */
static int reads_zero(const tt_event *ev) {
  int64_t ts, dur;
  return tt_us_to_ns(ev->ts, &ts) == 0 && ts == 0 &&
         (!ev->dur.n || (tt_us_to_ns(ev->dur, &dur) == 0 && dur == 0));
}

/* reads_zero, parsed only where the first byte of "ts" allows it: 0, -0 and "0 (a string) are at
** or below '0', and Kineto's times start with another digit. Every event asks. */
static inline int zero_time(const tt_event *ev) {
  return ev->ts.n && (unsigned char)ev->ts.p[0] <= '0' && reads_zero(ev);
}

/* An event written with no time (zero_time), counted on its side (gpu: a GPU activity): whether
** the read leaves it out, as untimed where a first read found the trace's other times far from 0
** (tt_read.c read_untimed). Counted on every read: the first's counts say whether to read again. */
static int untimed_left_out(tt_rank *r, const tt_options *opt, int gpu) {
  if (gpu) r->zero_gpu++;
  else r->zero_cpu++;
  return opt->untimed_out;
}

/* A time ts (raw ns) read of ev: within TT_NEAR_ZERO of 0, and not ev's "ts": 0 with no time, it
** says that the trace's times are near 0, where "ts": 0 is a time like any other */
static inline void note_time(tt_rank *r, const tt_event *ev, int64_t ts) {
  if (ts > -TT_NEAR_ZERO && ts < TT_NEAR_ZERO && (ts != 0 || !reads_zero(ev))) r->near_zero = 1;
}

/* Steps are kept sorted by start. The number of steps starting at or before t. */
static size_t steps_upto(const xp_vec *steps, int64_t t) {
  const tt_step *s = steps->data;
  size_t lo = 0, hi = steps->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (s[mid].start <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

int32_t tt_step_at(const xp_vec *steps, int64_t t) {
  size_t k = steps_upto(steps, t);
  /* the latest step to start before t, else one that started earlier and holds t still (a
  ** step annotation nested in another: the time after the inner one ends is the outer's) */
  for (size_t i = k, looked = 0; i > 0 && looked < 16; i--, looked++)
    if (t < XP_VEC_AT(steps, tt_step, i - 1)->end) return (int32_t)(i - 1);
  return -1;
}

/* Step i, of the sorted steps, starts at ts now, earlier than it did: it moves down to position
** at (steps_upto(ts)), which keeps the order; its id stays, which operators already refer to. */
static void step_starts_earlier(tt_rank *r, size_t i, size_t at, int64_t ts) {
  tt_step *all = r->steps.data, s = all[i];
  memmove(all + at + 1, all + at, (i - at) * sizeof *all);
  s.start = ts;
  all[at] = s;
}

static int on_annotation_step(tt_rank *r, const tt_event *ev, const tt_options *opt, size_t nlen,
                              const char *name, char *err, size_t errlen) {
  int64_t ts, dur;
  if (tt_us_to_ns(ev->ts, &ts) || tt_us_to_ns(ev->dur, &dur)) {
    snprintf(err, errlen, "step annotation \"%.*s\" has no valid \"ts\" and \"dur\"", (int)nlen, name);
    return -1;
  }
  note_time(r, ev, ts);
  if (dur < 0) { /* Kineto before 2022 could write one: no step can be made of it */
    r->bad_steps++;
    return 0;
  }
  int64_t number = (int64_t)r->steps.n;
  if (!opt->step_annotation) {
    tt_slice num = {name + 13, nlen - 13};
    if (tt_int(num, &number) != 0) return 0; /* "ProfilerStep#x": not a step marker */
  }
  /* Kept sorted by start: steps arrive in order, so this is an append but for stragglers. */
  size_t at = steps_upto(&r->steps, ts);
  if (at && XP_VEC_AT(&r->steps, tt_step, at - 1)->start == ts) { /* recorded twice (two threads) */
    tt_step *o = XP_VEC_AT(&r->steps, tt_step, at - 1);
    if (ts + dur > o->end) o->end = ts + dur; /* to the later end, whichever the file wrote first */
    return 0;
  }
  /* the same step number again, overlapping (two threads annotating one step): one step. Every
  ** neighbour of the number is looked at, not the first: one apart (the number again, later) need
  ** not be the one this annotation overlaps, which the file may have written before or after */
  int apart = 0;
  for (size_t i = at > 2 ? at - 2 : 0; i < r->steps.n && i < at + 2 && !opt->step_annotation; i++) {
    tt_step *o = XP_VEC_AT(&r->steps, tt_step, i); /* the neighbours in start order */
    if (o->number != number) continue;
    if (ts < o->end && o->start < ts + dur) {
      if (ts + dur > o->end) o->end = ts + dur;
      /* written after o but starting before it (the file's order is not the threads'): the
      ** step starts at the earlier start, whichever the file wrote first */
      if (ts < o->start) step_starts_earlier(r, i, at, ts);
      return 0;
    }
    apart = 1;
  }
  r->dup_steps += apart; /* a step number seen twice, apart: kept as two steps, and said */
  xp_vec_push(&r->steps, sizeof(tt_step));
  tt_step *all = r->steps.data;
  memmove(all + at + 1, all + at, (r->steps.n - 1 - at) * sizeof *all);
  tt_step *s = &all[at];
  memset(s, 0, sizeof *s);
  s->start = ts;
  s->end = ts + dur;
  s->number = number;
  s->id = (int32_t)(r->steps.n - 1);
  return 0;
}

/* Two operators under one External id (a writer that gave a nested operator its parent's id, an
** id reused): an activity naming it is the innermost's, as Kineto links an activity to the
** innermost operator that launched it: the later start, then the shorter, then the lesser key
** (its name and shapes); never the one the file wrote last. Decided on the read that keeps every
** operator's time and length (tt_options.op_times): does the operator (op, ts, dur) replace the
** one of the same External id read before (had, its entry in tt_rank.ext)? */
static int replaces(const tt_import *imp, const tt_rank *r, int64_t ext, uint64_t had, uint32_t op, int64_t ts,
                    int64_t dur) {
  const uint64_t t = xp_idmap_get(&r->ext_ts, ext), d = xp_idmap_get(&r->ext_dur, ext);
  const int64_t had_ts = t ? TT_TS_BACK(t) : INT64_MIN, had_dur = d ? TT_TS_BACK(d) : INT64_MAX;
  if (ts != had_ts) return ts > had_ts;
  if (dur != had_dur) return dur < had_dur;
  return strcmp(imp->ops.str[op], imp->ops.str[(uint32_t)had - 1]) < 0;
}

/* A CPU event at raw ts: the trace's first one sets the floor below which a GPU activity is no
** time the profiler ran (TT_GPU_BEFORE_CPU). */
static void note_cpu_time(tt_rank *r, const tt_event *ev, int64_t ts) {
  note_time(r, ev, ts);
  if (ts >= r->cpu_min) return;
  r->cpu_min = ts;
  if (!r->floor_given) r->gpu_floor = ts - TT_GPU_BEFORE_CPU;
}

/* An operator (or annotation) with an External id. tree: a cpu_op on the read that keeps the
** operators around launches (tt_tree.c), which annotations are not. */
static int on_cpu_op(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt, int tree) {
  int64_t ext = tt_event_ext(ev);
  if (ext <= 0) return 0;
  size_t n;
  int in_place;
  const char *name = text_of(imp, ev->name, &n, &in_place);
  if (!name) return 0;
  tt_slice dims = tt_event_arg(ev, "Input Dims"), types = tt_event_arg(ev, "Input type");
  size_t need = n + dims.n + types.n + 3;
  char stackbuf[2048];
  char *key = need <= sizeof stackbuf ? stackbuf : xp_xmalloc(need);
  memcpy(key, name, n);
  key[n] = 0x1f;
  memcpy(key + n + 1, dims.p ? dims.p : "", dims.n);
  key[n + 1 + dims.n] = 0x1f;
  memcpy(key + n + 2 + dims.n, types.p ? types.p : "", types.n);
  uint32_t op = xp_strtab_intern(&imp->ops, key, n + 2 + dims.n + types.n, NULL);
  if (key != stackbuf) free(key);
  int64_t ts, dur = INT64_MAX; /* its length is read where it decides (replaces, the tree) */
  const int timed = tt_us_to_ns(ev->ts, &ts) == 0;
  if (!timed) ts = INT64_MIN;
  if ((opt->op_times || tree) && tt_us_to_ns(ev->dur, &dur) != 0) dur = INT64_MAX;
  if (timed) note_cpu_time(r, ev, ts);
  if (tree && timed && dur != INT64_MAX && dur >= 0) tt_tree_op_add(r, ev, ts, dur, ext, op);
  r->cpu_ops++;
  const uint64_t had = xp_idmap_get(&r->ext, ext);
  if (had) {
    r->ext_shared = 1;
    if (opt->op_times && !replaces(imp, r, ext, had, op, ts, dur)) return 0;
  }
  int32_t step = -1;
  if (opt->op_times) xp_idmap_set(&r->ext_dur, ext, TT_TS_KEEP(dur));
  if (timed) {
    /* the step holding it so far; nested steps may hold a later-written one that starts after
    ** this one and holds the operator too: then every operator is placed once all are read
    ** (tt_options.op_times) */
    int32_t at = opt->op_times ? -1 : tt_step_at(&r->steps, ts);
    if (at >= 0) step = XP_VEC_AT(&r->steps, tt_step, at)->id, r->op_stepped = 1;
    else xp_idmap_set(&r->ext_ts, ext, TT_TS_KEEP(ts)); /* its step may come later in the file */
  } else if (had) {
    xp_idmap_set(&r->ext_ts, ext, 0); /* not the time of the operator it replaces */
  }
  xp_idmap_set(&r->ext, ext, (uint64_t)(op + 1) | (uint64_t)(uint32_t)(step + 1) << 32);
  return 0;
}

static void add_stat(tt_rank *r, uint32_t key, int64_t dur) {
  int added;
  uint32_t slot = xp_map_put(&r->kmap, key, (uint32_t)r->kstats.n, &added);
  tt_kstat *k;
  if (added) {
    k = xp_vec_push(&r->kstats, sizeof *k);
    k->key = key;
    k->min = dur;
    k->max = dur;
  } else {
    k = XP_VEC_AT(&r->kstats, tt_kstat, slot);
  }
  k->count++;
  k->total += dur;
  if (dur < k->min) k->min = dur;
  if (dur > k->max) k->max = dur;
}

void tt_kstats_again(tt_rank *r) {
  xp_vec_free(&r->kstats);
  xp_map_free(&r->kmap);
  for (size_t i = 0; i < r->ivals.n; i++) {
    const tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    add_stat(r, v->key, v->end - v->start);
  }
}

static void add_shape(tt_rank *r, uint32_t key, uint32_t op, int64_t dur) {
  int added;
  uint32_t slot = xp_map_put(&r->smap, (uint64_t)key << 32 | op, (uint32_t)r->shapes.n, &added);
  tt_shape *s;
  if (added) {
    s = xp_vec_push(&r->shapes, sizeof *s);
    s->key = key;
    s->op = op;
    s->min = dur;
    s->max = dur;
  } else {
    s = XP_VEC_AT(&r->shapes, tt_shape, slot);
  }
  s->count++;
  s->total += dur;
  if (dur < s->min) s->min = dur;
  if (dur > s->max) s->max = dur;
}

void tt_link_op(tt_rank *r, uint32_t key, int64_t dur, uint32_t op) {
  add_shape(r, key, op, dur);
  r->linked++;
}

int32_t tt_link(tt_rank *r, uint32_t key, int64_t dur, int64_t ext, uint64_t op_step, uint64_t *t) {
  const uint32_t op = (uint32_t)(op_step & 0xffffffffu);
  const int32_t step = (int32_t)(op_step >> 32) - 1;
  if (op) tt_link_op(r, key, dur, op - 1);
  else r->linked++;
  *t = step < 0 ? xp_idmap_get(&r->ext_ts, ext) : 0;
  return step;
}

static int32_t intern_str(xp_strtab *t, tt_slice s) {
  if (!s.n) return -1;
  char *txt = dup_text(s);
  int32_t id = (int32_t)xp_strtab_intern(t, txt, strlen(txt), NULL);
  free(txt);
  return id;
}

/* "name\x1fdescription\x1franks" of the process group a collective kernel's args name. */
static int32_t pg_from_args(tt_import *imp, const tt_event *ev) {
  tt_slice nm = tt_event_arg(ev, "Process Group Name");
  if (!nm.n) return -1;
  char *a = dup_text(nm), *b = dup_text(tt_event_arg(ev, "Process Group Description"));
  char *c = dup_text(tt_event_arg(ev, "Process Group Ranks"));
  char *key = xp_asprintf("%s\x1f%s\x1f%s", a, b, c);
  int32_t id = (int32_t)xp_strtab_intern(&imp->pgs, key, strlen(key), NULL);
  free(a), free(b), free(c), free(key);
  return id;
}

/* The data type ev's args name ("dtype"), else the one the kernel's name spells (name; NULL: none):
** its id in imp->strs, stored under torch's name wherever it is known (tt_dtype.c says why), else
** as written; -1 none. *elem_size: its bytes, 0 unknown. */
static int32_t dtype_from_args(tt_import *imp, const tt_event *ev, const char *name, int32_t *elem_size) {
  int32_t spelt = intern_str(&imp->strs, tt_event_arg(ev, "dtype"));
  const tt_dtype *t = spelt >= 0 ? tt_dtype_of(imp->strs.str[spelt]) : name ? tt_dtype_in_name(name) : NULL;
  *elem_size = t ? t->size : 0;
  return t ? (int32_t)xp_strtab_intern(&imp->strs, t->name, strlen(t->name), NULL) : spelt;
}

/* The collective ev's args name ("Collective name"), TT_COLL_NONE where they name none. */
static enum tt_coll coll_from_args(const tt_event *ev) {
  tt_slice cn = tt_event_arg(ev, "Collective name");
  char buf[64];
  if (cn.n && tt_string_decode(cn, buf, sizeof buf) >= 0) return tt_coll_from_text(buf);
  return TT_COLL_NONE;
}

static void add_collective(tt_import *imp, tt_rank *r, const tt_event *ev, uint32_t name,
                           enum tt_coll from_args, int64_t start, int64_t dur, uint32_t ival) {
  const tt_name_info *ni = XP_VEC_AT(&imp->name_info, tt_name_info, name);
  tt_collk *c = xp_vec_push(&r->colls, sizeof *c);
  c->start = start;
  c->end = start + dur;
  c->ival = ival;
  c->step = -1;
  c->group = -1;
  c->wait = c->transfer = -1;
  c->coll = from_args != TT_COLL_NONE ? from_args : ni->coll;
  c->key = TT_KEY(name, from_args);
  c->from_args = from_args != TT_COLL_NONE;
  c->pg = pg_from_args(imp, ev);
  c->in_nelems = arg_int(ev, "In msg nelems", -1);
  c->out_nelems = arg_int(ev, "Out msg nelems", -1);
  c->group_size = (int32_t)arg_int(ev, "Group size", -1);
  c->seq = arg_int(ev, "Seq", -1);
  /* the peer's global rank, as PyTorch writes it for a send ("Dst Rank") and a recv ("Src
  ** Rank"): torch/csrc/profiler/util.cpp saveNcclMeta */
  c->peer = arg_int(ev, "Dst Rank", -1);
  if (c->peer < 0) c->peer = arg_int(ev, "Src Rank", -1);
  c->ext = tt_event_ext(ev); /* its call's: the peer, where the kernel does not name it (tt_done.c) */
  c->stream = (int32_t)arg_int(ev, "stream", -1);
  c->device = (int32_t)arg_int(ev, "device", -1);
  int64_t v;
  if (c->stream < 0 && tt_int(ev->tid, &v) == 0) c->stream = (int32_t)v; /* GPU tid is the stream */
  if (c->device < 0 && tt_int(ev->pid, &v) == 0) c->device = (int32_t)v; /* GPU pid is the device */
  c->dtype = dtype_from_args(imp, ev, imp->names.str[name], &c->elem_size);
}

/* A GPU activity ev on device dev (its pid), counted in the rank's short list of devices. */
static void note_device(tt_rank *r, const tt_event *ev, int64_t dev, enum tt_gpu_kind kind) {
  int i = 0;
  while (i < r->ndevices && i < TT_MAX_DEVICES && r->devices[i] != dev) i++;
  if (i == r->ndevices) { /* new */
    if (r->ndevices < TT_MAX_DEVICES) {
      r->devices[r->ndevices] = dev;
      r->dev_numbers[r->ndevices] = arg_int(ev, "device", -1);
    }
    if (r->ndevices <= TT_MAX_DEVICES) r->ndevices++;
  }
  if (i >= TT_MAX_DEVICES) return;
  r->dev_activities[i]++;
  if (kind == TT_KERNEL) r->dev_kernels[i]++;
}

int64_t tt_device_number(const tt_rank *r) {
  for (int i = 0; i < r->ndevices && i < TT_MAX_DEVICES; i++)
    if (r->devices[i] == r->device && r->dev_numbers[i] >= 0) return r->dev_numbers[i];
  return r->device;
}

/* Reading one device of a trace that holds several (tt_read.c): another device's activity is
** another rank's. */
static int other_device(const tt_event *ev, const tt_options *opt) {
  int64_t dev;
  return opt->device && tt_int(ev->pid, &dev) == 0 && dev != *opt->device;
}

/* A device's own read of a file of several GPUs, not the main one of a rank's file: which of the
** process's collective calls are the device's is told by their kernels (tt_rank.calls). */
static int own_device_read(const tt_options *opt) { return opt->device && !opt->main_device; }

/* The activity's stream lane (tt_trace.h): Kineto writes the stream as a GPU event's tid, and
** in its args. Activities on one lane ran in the order they were launched (tt_done.c). */
int tt_lane_key(const tt_event *ev, int64_t dev, uint64_t *key) {
  int64_t stream;
  if (tt_int(ev->tid, &stream) != 0 && (stream = arg_int(ev, "stream", -1)) < 0) return -1;
  *key = (uint64_t)(uint32_t)dev << 32 | (uint32_t)stream;
  return 0;
}

static uint32_t lane_of(tt_rank *r, const tt_event *ev, int64_t dev) {
  uint64_t key;
  if (tt_lane_key(ev, dev, &key) != 0) return TT_NO_LANE;
  return xp_map_put(&r->lane_map, key, (uint32_t)r->lane_map.n, NULL);
}

/* Kineto's XPU plugin with its scope profiler on (an Intel GPU's kernel metrics) writes, after the
** activities, a "kernel" named "metrics: NAME" for each kernel it measured, 1 ns wider on each side
** on the kernel's queue, to carry the metrics' values (XpuptiActivityHandlersV2.cpp): the kernel
** again, with its "kernel_id" and no "correlation", which every real XPU kernel carries. */
static int is_scope_copy(const tt_event *ev, const char *name, size_t n) {
  return n > 9 && memcmp(name, "metrics: ", 9) == 0 && tt_event_arg(ev, "kernel_id").n &&
         !tt_event_arg(ev, "correlation").n;
}

/* Kineto (CUDA 12 on) writes each kernel's, copy's and fill's "graph id" and "graph node id" from
** CUPTI, 0 outside a graph (CuptiActivity.cpp, getGraphNodeMetadata); a graph node's id is its
** graph's exec id << 32 | the node's, past int64 perhaps, never 0. */
uint64_t tt_graph_node(const tt_event *ev) {
  tt_slice s = tt_event_arg(ev, "graph node id");
  uint64_t v;
  if (!s.n) return 0;
  return tt_uint64(s, &v) != 0 ? TT_NODE_UNKNOWN : v;
}

/* Each time is within TT_NS_LIMIT, but a rank's totals (per name, step, shape, the whole) are
** sums: past TT_SUM_LIMIT together the times are no profiler's, and the file is refused rather
** than its sums overflowing (*sum stays below the limit, so the sum cannot). -1 with err where
** dur takes *sum, the GPU activities' or annotations' (what) so far, past the limit. */
static int past_sum_limit(int64_t *sum, int64_t dur, const char *kind, const char *what, const char *name, size_t n,
                          char *err, size_t errlen) {
  *sum += dur;
  if (*sum <= TT_SUM_LIMIT) return 0;
  snprintf(err, errlen, "%s event \"%.*s\" makes the GPU %s last more than 1e16 ns (116 days) together: "
           "not a profiler's times", kind, (int)(n < 60 ? n : 60), name, what);
  return -1;
}

/* What tells a GPU activity's copies (tt_rank.corrs): its correlation id, else its External id
** as TT_CORR_EXT marks it (ROCm's), else 0; TT_CORR_GRAPH_NODE for a CUDA graph node's. */
static uint32_t clip_id(const tt_event *ev, int64_t corr, int64_t ext) {
  if (tt_graph_node(ev)) return TT_CORR_GRAPH_NODE;
  if (corr > 0) return corr < TT_CORR_GRAPH_NODE ? (uint32_t)corr : 0;
  return ext > 0 && ext < TT_CORR_EXT - 1 ? TT_CORR_EXT | (uint32_t)ext : 0;
}

static int on_gpu(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt, enum tt_gpu_kind kind,
                  char *err, size_t errlen) {
  const char *what = tt_gpu_kind_name[kind];
  size_t n;
  int in_place;
  const char *name = ev->name.n ? text_of(imp, ev->name, &n, &in_place) : NULL;
  if (!name) {
    snprintf(err, errlen, "%s event without a \"name\" string", what);
    return -1;
  }
  int64_t ts, dur;
  /* Kineto writes GPU activities as complete events ("X"); "B"/"E" pairs come here paired
  ** (tt_pair.c), and an instant or other event of a kernel's category has no duration to count */
  if (ev->ph.n && !SL_EQ(ev->ph, "\"X\"")) {
    r->not_complete++;
    return 0;
  }
  if (kind == TT_KERNEL && is_scope_copy(ev, name, n)) {
    r->scope_copies++;
    return 0;
  }
  if (!ev->ts.n || tt_us_to_ns(ev->ts, &ts) != 0) {
    snprintf(err, errlen, "%s event \"%.*s\" has no numeric \"ts\" within +-4e15 us", what, (int)(n < 60 ? n : 60), name);
    return -1;
  }
  if (!ev->dur.n || tt_us_to_ns(ev->dur, &dur) != 0) {
    snprintf(err, errlen, "%s event \"%.*s\" has no valid \"dur\" (a number within +-4e15 us)", what, (int)(n < 60 ? n : 60), name);
    return -1;
  }
  note_time(r, ev, ts);
  if (dur < 0) { /* Kineto before 2022-08 (pytorch/kineto#646, which clamps them since) */
    r->neg_dur++;
    dur = 0;
  }
  /* a minute or more before the trace's first CPU event (TT_GPU_BEFORE_CPU), as far as the
  ** CPU events read so far tell: tt_read.c checks the decisions against the whole file's */
  if (ts < r->gpu_floor) {
    r->gpu_before_cpu++;
    if (ts > r->dropped_max) r->dropped_max = ts;
    return 0;
  }
  if (past_sum_limit(&r->dur_sum, dur, what, "activities", name, n, err, errlen)) return -1;
  if (ts < r->kept_min) r->kept_min = ts;
  uint32_t id = intern_name(imp, name, n, kind);
  const tt_name_info *ni = XP_VEC_AT(&imp->name_info, tt_name_info, id);
  /* The collective the args name is kept whatever the rules in force now say of the name: the
  ** rules decide at query time whether it counts (trace_kernel_stats), so a name that only a
  ** later xp reclassify makes a communication one answers as a fresh import would. */
  const enum tt_coll from_args = coll_from_args(ev);
  uint32_t key = TT_KEY(id, from_args);
  add_stat(r, key, dur);
  int64_t ext = tt_event_ext(ev);
  const int64_t corr = arg_int(ev, "correlation", -1);
  /* Kineto of 2022-23 wrote the correlation id as a kernel's "External id"; there it names no
  ** operator, and a lookup would find an unrelated one with the same number. The operator is
  ** the innermost around its launch (tt_tree.c), found on a read again that keeps them */
  const int ext_is_corr = ext > 0 && ext == corr;
  if (ext_is_corr) ext = 0, r->ext_is_corr++;
  if (ext > 0 && corr < 0) r->ext_no_corr++;
  int32_t step = -1;
  /* what places it once the file is read, where no operator's step does: the operator's CPU
  ** time, or its launch's (looked up then: the launch may be written after the activity), or
  ** the operator itself, written after the activity, with the launch for where it is not */
  tt_pend how[2];
  int pend = 0;
  int linked = 0;
  if (ext > 0) {
    /* Without a correlation, the "External id" of ROCm's oldest traces is the kernel's launch's
    ** correlation id (the runtime event's and the flow's), no operator's; but an operator's where
    ** a launch says so (tt_rank.hip_ext_ops), which the file may do after the kernel: until one
    ** has, the whole file decides (tt_done.c resolve_launches). On the read that keeps the
    ** innermost of operators sharing an id (op_times), a later one may still replace it: all are
    ** linked once the file is read */
    const uint64_t v = (corr < 0 && !r->hip_ext_ops) || opt->op_times ? 0 : xp_idmap_get(&r->ext, ext);
    uint64_t t;
    if (v) {
      step = tt_link(r, key, dur, ext, v, &t);
      linked = 1;
      if (t) how[pend++] = (tt_pend){0, TT_BY_TS, TT_TS_BACK(t)};
    } else {
      how[pend++] = (tt_pend){0, TT_BY_EXT, ext};
    }
  }
  if (!linked && corr > 0) how[pend++] = (tt_pend){0, ext_is_corr ? TT_BY_TREE : TT_BY_CORR, corr};
  if (corr > r->corr_max) r->corr_max = corr;
  int64_t dev;
  if (tt_int(ev->pid, &dev) == 0) {
    note_device(r, ev, dev, kind);
  } else {
    dev = -1;
    tt_label_note(r, ev->pid); /* a merged file's rank label? (tt_label.c) */
  }
  /* neither an operator nor a correlation: its launch may be linked by a flow alone (tt_flow.c) */
  if (!linked && !pend) tt_flow_want_activity(r, ev, opt, ts, (uint32_t)r->ivals.n);
  *(uint32_t *)xp_vec_push(&r->lanes, sizeof(uint32_t)) = lane_of(r, ev, dev);
  *(uint32_t *)xp_vec_push(&r->corrs, sizeof(uint32_t)) = clip_id(ev, corr, ext);
  for (int i = 0; i < pend; i++) {
    how[i].ival = (uint32_t)r->ivals.n;
    *(tt_pend *)xp_vec_push(&r->pending, sizeof how[i]) = how[i];
  }
  tt_ival *iv = xp_vec_push(&r->ivals, sizeof *iv);
  iv->start = ts;
  iv->end = ts + dur;
  iv->key = key;
  iv->step = step;
  if (ni->comm) add_collective(imp, r, ev, id, from_args, ts, dur, (uint32_t)(r->ivals.n - 1));
  if (ni->comm && ext > 0 && own_device_read(opt)) *(int64_t *)xp_vec_push(&r->coll_exts, sizeof ext) = ext;
  if (kind == TT_KERNEL) r->kernels++;
  else if (kind == TT_MEMCPY) r->memcpys++;
  else r->memsets++;
  return 0;
}

void tt_pid_set(tt_pid *a, tt_slice pid) {
  char buf[TT_ID_KEY];
  pid = tt_id_key(pid, buf);
  a->n = (uint8_t)(pid.n < sizeof a->p ? pid.n : sizeof a->p);
  if (a->n) memcpy(a->p, pid.p, a->n);
}

/* pid's first bytes are a's */
static inline int pid_bytes_are(const tt_pid *a, tt_slice pid) {
  const size_t n = pid.n < sizeof a->p ? pid.n : sizeof a->p;
  return n == a->n && (!n || memcmp(pid.p, a->p, n) == 0);
}

/* ... or its key's: another spelling (the bytes were not) */
static int pid_key_is(const tt_pid *a, tt_slice pid) {
  char buf[TT_ID_KEY];
  return pid_bytes_are(a, tt_id_key(pid, buf));
}

/* tt_pid_is where this file compares the pid of every CPU event: the bytes inline, one writer
** spelling one process alike throughout (bytes alike: keys alike, a key being its own key) */
static inline int pid_is(const tt_pid *a, tt_slice pid) { return pid_bytes_are(a, pid) || pid_key_is(a, pid); }

int tt_pid_is(const tt_pid *a, tt_slice pid) { return pid_is(a, pid); }

int tt_pid_same(const tt_pid *a, const tt_pid *b) { return pid_bytes_are(a, (tt_slice){b->p, b->n}); }

/* A launch's id in the space of the activities' correlation ids: the least (launch_min), and
** the process that made the call. Each process numbers its own calls, and the trace does not
** say which process launched an activity (its pid is the device), so where two processes made
** launches (a merged trace) no activity's id can be told below its own process's launches
** (tt_done.c resolve_launches). The pid is compared as a key (tt_pid_is: 7 and "7" alike). */
void tt_launch_id_note(tt_rank *r, tt_slice pid, int64_t id) {
  if (id < r->launch_min) r->launch_min = id;
  if (!r->launch_procs) {
    tt_pid_set(&r->launch_pid, pid);
    r->launch_procs = 1;
  } else if (r->launch_procs == 1 && !pid_is(&r->launch_pid, pid)) {
    r->launch_procs = 2;
  }
}


/* A driver API call (cuLaunchKernel, Triton's launch, cat cuda_driver; the Level Zero calls under
** a SYCL call, xpu_driver; MUSA's muLaunchKernel, privateuse1_driver or musa_driver): a trace that
** records them holds the launches that bypass the runtime. */
static int is_driver_call(tt_slice cat) {
  return SL_EQ(cat, "\"cuda_driver\"") || SL_EQ(cat, "\"xpu_driver\"") || SL_EQ(cat, "\"privateuse1_driver\"") ||
         SL_EQ(cat, "\"musa_driver\"");
}

/* A graph launch of id id noted (tt_rank.graph_launch_ids): one written again at its first's
** time under its id, which each call of a process has its own of, is that launch again, its
** trace merged with a copy of itself (its activities then copies, tt_clip.c); at another time,
** another process's launch, whose numbering is its own. ts: INT64_MIN where it has none. */
static void note_graph_launch(tt_rank *r, int64_t id, int64_t ts) {
  const uint64_t was = xp_idmap_get(&r->graph_launch_ids, id);
  if (!was) {
    xp_idmap_set(&r->graph_launch_ids, id, 1);
    xp_idmap_set(&r->graph_launch_at, id, (uint64_t)ts);
    return;
  }
  if (was == TT_GRAPH_LAUNCH_APART) return;
  const int again = ts != INT64_MIN && (int64_t)xp_idmap_get(&r->graph_launch_at, id) == ts;
  xp_idmap_set(&r->graph_launch_ids, id, again ? was + 1 : TT_GRAPH_LAUNCH_APART);
}

/* A call of the CUDA (or HIP, or an Intel GPU's SYCL and Level Zero) runtime or driver API. Its
** correlation id is the one its GPU activities carry, if it launched any, and its CPU time the
** one that places them in a step when no operator claims them (tt_done.c): a ROCm kernel names
** its launch, not the operator; a CUDA graph's replayed kernels name no operator (their
** cudaGraphLaunch / cuGraphLaunch ran in the step, the kernels late on the GPU, past its CPU
** window); neither does a kernel launched outside any operator the profiler recorded. Every
** call with a correlation is kept, whatever its name, 16 bytes each: the smallest correlation
** among them tells an activity launched before the trace began (tt_rank.launch_min), where one
** process made them all. */
static void on_runtime(tt_rank *r, const tt_event *ev, const tt_options *opt) {
  /* the name's first bytes as written: no decoding. HIP's and graph launches' ids may be
  ** written as an External id (below) */
  const int graph = (ev->name.n >= 16 && memcmp(ev->name.p, "\"cudaGraphLaunch", 16) == 0) ||
                    (ev->name.n >= 14 && memcmp(ev->name.p, "\"cuGraphLaunch", 14) == 0) ||
                    (ev->name.n >= 15 && memcmp(ev->name.p, "\"hipGraphLaunch", 15) == 0);
  const int hip = ev->name.n >= 5 && memcmp(ev->name.p, "\"hip", 4) == 0;
  if (hip) r->hip = 1;
  if (is_driver_call(ev->cat)) r->driver_calls = 1;
  int64_t corr = arg_int(ev, "correlation", -1), ts;
  /* a CPU event as much as an operator is: a trace whose first minute holds launches and no
  ** operator (graph replays, launches outside any recorded operator) keeps their activities */
  const int timed = tt_us_to_ns(ev->ts, &ts) == 0;
  if (timed) note_cpu_time(r, ev, ts);
  /* Kineto's roctracer logger since its 2023 rewrite (RoctracerActivity_inl.h) writes a
  ** launch's correlation id apart, as CUPTI's does, and a kernel's "External id" names its
  ** operator again, also on kernels that carry no correlation of their own (its first
  ** versions wrote no args but the External id on GPU activities) */
  if (hip && corr >= 0) r->hip_ext_ops = 1;
  if (graph && corr > 0) note_graph_launch(r, corr, timed ? ts : INT64_MIN);
  if (graph && hip) { /* its kernels may carry its External id alone (TT_CORR_EXT) */
    const int64_t ext = tt_event_ext(ev);
    if (ext > 0 && ext < TT_CORR_EXT - 1) note_graph_launch(r, TT_CORR_EXT | ext, timed ? ts : INT64_MIN);
  }
  if (corr > 0) {
    /* Kept also inside an operator, whose External id its activities should carry too: a
    ** producer that wrote them none (or Kineto of 2022-23, their correlation) leaves them to
    ** the launch alone */
    tt_launch_id_note(r, ev->pid, corr);
    if (!timed) return;
    *(tt_launch *)xp_vec_push(&r->launches, sizeof(tt_launch)) = (tt_launch){corr, ts};
    if (opt->op_tree) tt_tree_call_add(r, ev, corr, ts);
    return;
  }
  if (corr < 0 && (hip || graph)) {
    corr = arg_int(ev, "External id", -1);
    /* Two launches under one External id: it is their operator's, not a correlation id, which
    ** is a launch's own. The older roctracer logger, written out by Kineto's JSON writer since
    ** 2022, gave launch and kernel their linked operator's External id and no correlation;
    ** the launches come before any kernel there */
    if (hip && corr > 0 && xp_idmap_get(&r->launch_ids, corr)) r->hip_ext_ops = 1;
    /* a graph launch's is looked up as a kernel's correlation (tt_done.c launch_time) */
    if (!hip && corr > 0) tt_launch_id_note(r, ev->pid, corr);
  }
  if (corr > 0) xp_idmap_set(&r->launch_ids, corr, 1);
  if (graph && corr > 0) note_graph_launch(r, corr, timed ? ts : INT64_MIN);
  if (corr > 0 && timed) {
    *(tt_launch *)xp_vec_push(&r->ext_launches, sizeof(tt_launch)) = (tt_launch){corr, ts};
    /* ROCm's oldest: the operator around it is its kernels' (tt_tree.c) */
    if (hip && opt->op_tree) tt_tree_call_add(r, ev, corr, ts);
  }
  if (corr <= 0 && timed) tt_flow_want_launch(r, ev, opt, ts); /* a flow's id may be its correlation */
}

/* A record_function range on the GPU timeline (gpu_user_annotation): kept for its per-step totals
** (tt_done.c annotation_totals). One with no valid time or a negative length says nothing of the
** GPU's time and is left out. Kineto draws a range only around GPU work, so they are few; their
** lengths are summed as the activities' are, and held to the same limit. */
static int on_gpu_annotation(tt_import *imp, tt_rank *r, const tt_event *ev, char *err, size_t errlen) {
  int64_t ts, dur;
  size_t n;
  int in_place;
  const char *name = ev->name.n ? text_of(imp, ev->name, &n, &in_place) : NULL;
  if (!name || tt_us_to_ns(ev->ts, &ts) || tt_us_to_ns(ev->dur, &dur) || dur < 0) return 0;
  if (past_sum_limit(&r->annot_sum, dur, "gpu_user_annotation", "annotations", name, n, err, errlen)) return -1;
  tt_gpu_annot *a = xp_vec_push(&r->gpu_annots, sizeof *a);
  a->start = ts;
  a->end = ts + dur;
  a->ext = tt_event_ext(ev);
  a->name = xp_strtab_intern(&imp->annot_names, name, n, NULL);
  a->step = -1;
  return 0;
}

/* Does name (n bytes) mark a step by the annotation asked for? NAME exactly, or with a trailing
** '*' any name that starts with NAME: the engines' step annotations carry the batch in their
** names (vLLM's execute_context_1(512)_generation_7(7), SGLang's step[DECODE bs=8]), so no one
** name marks all their steps. */
static int is_step_annotation(const char *want, const char *name, size_t n) {
  size_t k = strlen(want);
  if (k > 1 && want[k - 1] == '*') return n >= k - 1 && memcmp(name, want, k - 1) == 0;
  return k == n && memcmp(name, want, n) == 0;
}

static inline int marks_step(const tt_options *opt, const char *name, size_t n) {
  return opt->step_annotation ? is_step_annotation(opt->step_annotation, name, n)
                              : n > 13 && memcmp(name, "ProfilerStep#", 13) == 0;
}

int tt_marks_step(const tt_options *opt, const char *name, size_t n) { return marks_step(opt, name, n); }

/* The annotations vLLM's and SGLang's profiler hooks put around each step, which a trace
** without ProfilerStep#N may hold (tt_read.c names the option that marks steps by them). */
const char *const tt_engine_steps[TT_ENGINE_STEPS] = {"execute_context_*", "step[*"};

static void count_engine_step(tt_rank *r, const char *name, size_t n) {
  for (int i = 0; i < TT_ENGINE_STEPS; i++)
    if (is_step_annotation(tt_engine_steps[i], name, n)) r->engine_steps[i]++;
}

/* The process of an operator or annotation, noted where it is new (tt_rank.cpu_pids): a few
** bytes compared with the few processes seen, most often one. */
static void note_cpu_pid(tt_rank *r, tt_slice pid) {
  const int n = r->ncpu_pids < TT_CPU_PIDS ? r->ncpu_pids : TT_CPU_PIDS;
  for (int i = 0; i < n; i++)
    if (pid_is(&r->cpu_pids[i], pid)) return;
  if (r->ncpu_pids < TT_CPU_PIDS) tt_pid_set(&r->cpu_pids[r->ncpu_pids], pid);
  if (r->ncpu_pids <= TT_CPU_PIDS) r->ncpu_pids++;
}

/* A CPU event that may mark a step: ProfilerStep#N (a user_annotation since torch 1.10, a
** cpu_op or "Operator" before), or the annotation asked for by name. annot: a user_annotation
** (record_function), where the engines' step annotations are counted. */
static int on_cpu_event(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt, int annot,
                        char *err, size_t errlen) {
  note_cpu_pid(r, ev->pid);
  size_t n;
  int in_place;
  const char *name = ev->name.n ? text_of(imp, ev->name, &n, &in_place) : NULL;
  if (!name) return 0;
  /* c10d's record of a collective call (a cpu_op): the caller's rank and the world's size, which
  ** the rank takes where its trace has no distributedInfo (tt_rank_done) */
  if (n == 18 && memcmp(name, "record_param_comms", 18) == 0) {
    int64_t rank, world;
    tt_comms_read(ev, &rank, &world);
    tt_comms_add(&r->comms, rank, world);
    const int64_t ext = tt_event_ext(ev);
    if (own_device_read(opt) && ext > 0 && (rank >= 0 || world > 0))
      *(tt_call *)xp_vec_push(&r->calls, sizeof(tt_call)) = (tt_call){ext, rank, world};
    const int64_t peer = ext > 0 ? tt_comms_peer(ev) : -1;
    if (peer >= 0) *(tt_call *)xp_vec_push(&r->p2p_calls, sizeof(tt_call)) = (tt_call){ext, peer, -1};
    tt_group_call g = {ext, arg_int(ev, "Seq", -1), arg_int(ev, "In msg nelems", -1), arg_int(ev, "Out msg nelems", -1),
                       pg_from_args(imp, ev), (int32_t)arg_int(ev, "Group size", -1), (int32_t)coll_from_args(ev), -1, 0};
    if (g.coll != TT_COLL_NONE) g.dtype = dtype_from_args(imp, ev, NULL, &g.elem_size);
    if (ext > 0 && (g.pg >= 0 || g.size > 0 || g.seq >= 0 || g.coll != TT_COLL_NONE))
      *(tt_group_call *)xp_vec_push(&r->group_calls, sizeof g) = g;
  }
  int is_step = marks_step(opt, name, n);
  if (annot && !opt->step_annotation && !is_step) count_engine_step(r, name, n);
  /* a step written as an instant or any event but a complete one ("B"/"E" pairs come here
  ** paired, tt_pair.c): no duration of its own; left out, and said (tt_read.c warn_mended), as
  ** such GPU events are */
  if (is_step && ev->ph.n && !SL_EQ(ev->ph, "\"X\"")) {
    r->steps_not_complete++;
    is_step = 0;
  }
  if (is_step) {
    char copy[256];
    size_t k = n < sizeof copy - 1 ? n : sizeof copy - 1;
    memcpy(copy, name, k);
    copy[k] = 0;
    if (on_annotation_step(r, ev, opt, k, copy, err, errlen)) return -1;
  }
  return on_cpu_op(imp, r, ev, opt, opt->op_tree && !annot);
}

/* Reading one device of a file that holds several processes (tt_read.c): another process's CPU
** event is another device's, whose ids (External ids, correlations) collide with this one's. */
static int other_process(const tt_event *ev, const tt_options *opt) {
  return opt->proc && !pid_is(opt->proc, ev->pid);
}

/* A half of a duration event ("B" or "E") or of an async one ("b" or "e"), not Kineto's */
static inline int is_half(const tt_event *ev) {
  const char c = ev->ph.n == 3 ? (char)(ev->ph.p[1] | 0x20) : 0; /* "B" and "b" alike, "E" and "e" */
  return c == 'b' || c == 'e';
}

int tt_rank_event(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt,
                  char *err, size_t errlen) {
  r->events++;
  /* half of a duration event: paired first, whatever its category (an "E" may name none), then
  ** read as the complete event (tt_pair.c) */
  if (is_half(ev)) return tt_be_event(imp, r, ev, opt, err, errlen);
  return tt_rank_complete(imp, r, ev, opt, err, errlen);
}

int tt_rank_async(tt_import *imp, tt_rank *r, const tt_event *x, const tt_options *opt, char *err, size_t errlen) {
  if (other_process(x, opt) || (zero_time(x) && untimed_left_out(r, opt, 0))) return 0;
  return on_cpu_event(imp, r, x, opt, 1, err, errlen);
}

static int elsewhere(enum ev_cat cat, const tt_event *ev, const tt_options *opt) {
  if (cat == C_CPU_OP || cat == C_ANNOT || cat == C_RUNTIME) return other_process(ev, opt);
  if (cat == C_KERNEL || cat == C_MEMCPY || cat == C_MEMSET || cat == C_GPU_ANNOT) return other_device(ev, opt);
  return 0;
}

int tt_event_elsewhere(const tt_event *ev, const tt_options *opt) {
  return (opt->device || opt->proc) && elsewhere(cat_of(ev->cat), ev, opt);
}

int tt_event_untimed(const tt_event *ev, const tt_options *opt) {
  return opt->untimed_out && zero_time(ev);
}

int tt_event_kept_now(const tt_event *ev, const tt_options *opt) {
  if (!opt->device && !opt->proc) return 1;
  /* an "E" that names no category is its "B"'s (tt_pair.c), another device's kernel or another
  ** process's operator alike: its pid cannot tell, a GPU's being its device */
  if (!ev->cat.n && is_half(ev)) return 0;
  return !elsewhere(cat_of(ev->cat), ev, opt);
}

int tt_rank_complete(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt,
                     char *err, size_t errlen) {
  const enum ev_cat cat = cat_of(ev->cat);
  if ((opt->device || opt->proc) && elsewhere(cat, ev, opt)) return 0;
  if (cat != C_OTHER && zero_time(ev) && untimed_left_out(r, opt, cat == C_KERNEL || cat == C_MEMCPY || cat == C_MEMSET))
    return 0;
  switch (cat) {
    case C_KERNEL: return on_gpu(imp, r, ev, opt, TT_KERNEL, err, errlen);
    case C_MEMCPY: return on_gpu(imp, r, ev, opt, TT_MEMCPY, err, errlen);
    case C_MEMSET: return on_gpu(imp, r, ev, opt, TT_MEMSET, err, errlen);
    case C_CPU_OP: return on_cpu_event(imp, r, ev, opt, 0, err, errlen);
    case C_ANNOT: return on_cpu_event(imp, r, ev, opt, 1, err, errlen);
    case C_RUNTIME:
      on_runtime(r, ev, opt);
      return 0;
    case C_GPU_ANNOT: return on_gpu_annotation(imp, r, ev, err, errlen);
    case C_TRACE: { /* the profiler's window; several (joined recordings, merged files): their union,
                    ** which no order of the file changes */
      int64_t ts, dur;
      if (tt_us_to_ns(ev->ts, &ts) == 0 && tt_us_to_ns(ev->dur, &dur) == 0) {
        note_time(r, ev, ts);
        const int first = !r->prof_start && !r->prof_end;
        if (first || ts < r->prof_start) r->prof_start = ts;
        if (first || ts + dur > r->prof_end) r->prof_end = ts + dur;
      }
      return 0;
    }
    default:
      if (tt_flow_event(r, ev, opt)) return 0;
      /* the legacy autograd profiler's trace (use_kineto=False) has no categories: its GPU side
      ** is the process "CUDA functions", which no rank is read from (tt_read.c no_gpu_activity) */
      if (SL_EQ(ev->pid, "\"CUDA functions\"")) r->legacy_gpu++;
      /* torch_npu's profiler writes an Ascend NPU's tasks (from CANN's msprof) into its
      ** trace_view.json with no category, under a process it names "Ascend Hardware": not
      ** Kineto's GPU activities (no_gpu_activity says so) */
      else if (!ev->cat.n && SL_EQ(ev->name, "\"process_name\"") &&
               tt_string_eq(tt_event_arg(ev, "name"), "Ascend Hardware"))
        r->ascend = 1;
      /* rocmProfileData's rpd2tracing (SGLang's RPD profiler, rpd-*-TP-0.trace.json.gz) writes a
      ** GPU op with no category, its kind in "desc": a kernel's "KernelExecution" */
      else if (!ev->cat.n && tt_string_eq(tt_event_arg(ev, "desc"), "KernelExecution"))
        r->rocpd = 1;
      return 0;
  }
}

int tt_rank_meta(tt_import *imp, tt_rank *r, tt_slice key, tt_slice val, char *err, size_t errlen) {
  (void)imp;
  char name[128];
  tt_slice quoted = {key.p - 1, key.n + 2};
  if (tt_string_decode(quoted, name, sizeof name) < 0) return 0;
  const int used = strcmp(name, "baseTimeNanoseconds") == 0 || strcmp(name, "distributedInfo") == 0;
  cJSON *v = cJSON_ParseWithLength(val.p, val.n);
  if (!v) { /* the framer let NaN or inf through, which cJSON refuses: only what xp reads matters */
    if (!used) return 0;
    snprintf(err, errlen, "top-level \"%s\" is not valid JSON", name);
    return -1;
  }
  xp_json_keep_last(v); /* {"rank": 0, "rank": 1}: rank 1, as json.load reads it */
  if (strcmp(name, "baseTimeNanoseconds") == 0) {
    int64_t b;
    if (tt_int(val, &b) == 0) {
      if (b > TT_NS_LIMIT || b < -TT_NS_LIMIT) {
        cJSON_Delete(v);
        snprintf(err, errlen, "baseTimeNanoseconds %lld is past the year 2096 (+-4e18 ns)", (long long)b);
        return -1;
      }
      r->base_ns = b;
      r->have_base = 1;
    }
  } else if (strcmp(name, "distributedInfo") == 0 && cJSON_IsObject(v)) {
    cJSON *rk = cJSON_GetObjectItemCaseSensitive(v, "rank");
    cJSON *ws = cJSON_GetObjectItemCaseSensitive(v, "world_size");
    /* numbers, or numbers written as strings ("rank": "3", as some launchers' traces have) */
    int64_t n;
    if (cJSON_IsNumber(rk)) r->trace_rank = xp_saturate_int64(rk->valuedouble);
    else if (cJSON_IsString(rk) && tt_int((tt_slice){rk->valuestring, strlen(rk->valuestring)}, &n) == 0) r->trace_rank = n;
    if (cJSON_IsNumber(ws)) r->world_size = xp_saturate_int64(ws->valuedouble);
    else if (cJSON_IsString(ws) && tt_int((tt_slice){ws->valuestring, strlen(ws->valuestring)}, &n) == 0) r->world_size = n;
  }
  if (cJSON_GetObjectItemCaseSensitive(r->meta, name)) cJSON_DeleteItemFromObjectCaseSensitive(r->meta, name);
  cJSON_AddItemToObject(r->meta, name, v);
  return 0;
}
