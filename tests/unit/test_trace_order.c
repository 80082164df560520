/* The torch.profiler importer gives the same figures whatever order a trace's events come in.
** Kineto writes the CPU side first, then GPU activities interleaved with their launches, but
** not always (a launch after its kernel as often as before; torch 1.8's step after the operators
** it holds; other writers, merged or filtered files). Each trace below is read as written and
** again with its events reordered (the top-level keys and every event's bytes unchanged):
**   reversed: launches before their kernels, operators after them, steps after both;
**   GPU first: every GPU activity, then the rest in file order (operators after their kernels).
** Every figure a rank keeps must agree: its rank and world size, counts, linked kernels, per-name, per-step, per-operator
** (shapes) and per-collective figures. The order_* traces hold what the file's order decided
** before: a kernel at "ts": 0 left out only after the CPU events, epoch times shifted by the
** base after such a kernel, ROCm's External ids read by the launches before a kernel; and what
** their figures are, whatever the order (check_figures). The be_* traces write events as "B"/"E"
** pairs (not Kineto's): paired per thread by time, whatever the order, and the same figures as
** the trace written with "X" events (check_same_as); be_tie.json holds the one tie that the
** file's order decides (tt_pair.c), so it is not read reversed. async_steps.json writes its steps
** as async "b"/"e" spans, paired per event tree: the same figures as async_steps_x.json.
** sglang_merged.json.gz, two ranks merged into one file by SGLang's profile merger, has the
** figures of the two files it was merged from, whatever the order (check_same_as_files). */
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "testutil.h"
#include "torch_trace/tt_source.h"
#include "torch_trace/tt_trace.h"

static tt_rules rules;

typedef struct doc {
  char *text;         /* the decompressed file */
  size_t len;
  xp_vec meta;        /* tt_slice pairs: key (without quotes), value */
  xp_vec events;      /* event_text: each event's bytes */
} doc;

typedef struct event_text {
  tt_slice text;
  int gpu; /* a GPU activity: a kernel, copy or fill */
} event_text;

/* The whole file, decompressed, with its units framed. 0 on failure. */
static int doc_read(doc *d, const char *path) {
  memset(d, 0, sizeof *d);
  char err[256];
  tt_source *src = tt_source_open(path, err, sizeof err);
  if (!src) return fprintf(stderr, "%s\n", err), 0;
  size_t cap = 0;
  const char *data;
  size_t n;
  while (tt_source_next(src, &data, &n, err, sizeof err) == 1) {
    if (d->len + n + 1 > cap) d->text = xp_xrealloc(d->text, cap = 2 * (d->len + n + 1));
    memcpy(d->text + d->len, data, n);
    d->len += n;
  }
  tt_source_close(src);
  tt_framer f;
  tt_framer_init(&f, d->len);
  tt_event *ev = xp_xmalloc(sizeof *ev);
  size_t pos = 0;
  tt_slice k, v;
  for (tt_unit u; (u = tt_framer_next(&f, d->text, d->len, &pos, 1, ev, &k, &v)) != TT_UNIT_END;) {
    if (u == TT_UNIT_EVENT) {
      const int gpu = tt_event_side(ev) == TT_SIDE_GPU;
      *(event_text *)xp_vec_push(&d->events, sizeof(event_text)) = (event_text){ev->text, gpu};
    } else if (u == TT_UNIT_META) {
      *(tt_slice *)xp_vec_push(&d->meta, sizeof(tt_slice)) = k;
      *(tt_slice *)xp_vec_push(&d->meta, sizeof(tt_slice)) = v;
    } else {
      fprintf(stderr, "%s: %s\n", path, f.err);
      break;
    }
  }
  free(ev);
  return d->events.n > 0;
}

static void doc_free(doc *d) {
  free(d->text);
  xp_vec_free(&d->meta);
  xp_vec_free(&d->events);
}

enum order { AS_WRITTEN, REVERSED, GPU_FIRST };

/* The document with its events in the given order, as NAME in the scratch folder. */
static char *doc_write(const doc *d, enum order o, const char *name) {
  char *path = test_path(name);
  FILE *f = fopen(path, "w");
  fputc('{', f);
  const tt_slice *m = d->meta.data;
  const event_text *e = d->events.data;
  for (size_t i = 0; i < d->meta.n; i += 2) fprintf(f, "\"%.*s\": %.*s, ", (int)m[i].n, m[i].p, (int)m[i + 1].n, m[i + 1].p);
  fputs("\"traceEvents\": [\n", f);
  size_t written = 0;
  for (int pass = 0; pass < 2; pass++)
    for (size_t k = 0; k < d->events.n; k++) {
      size_t i = o == REVERSED ? d->events.n - 1 - k : k;
      if (o == GPU_FIRST ? e[i].gpu != !pass : pass) continue;
      fprintf(f, "%s%.*s", written++ ? ",\n" : "", (int)e[i].text.n, e[i].text.p);
    }
  fputs("\n]}\n", f);
  fclose(f);
  return path;
}

/* paths[0, n) as one import. steps: --step-annotation, NULL for ProfilerStep#N */
static int import_files(tt_import *imp, const char *const *paths, int n, const char *steps) {
  tt_import_init(imp, &rules);
  tt_options opt = {0};
  opt.rank = -1;
  opt.step_annotation = steps;
  int rc = 0;
  for (int i = 0; i < n && !rc; i++) rc = tt_read_file(imp, paths[i], &opt);
  return rc ? rc : tt_import_finish(imp);
}

static int import(tt_import *imp, const char *path, const char *steps) { return import_files(imp, &path, 1, steps); }

static int by_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* A rank's figures, one line each, sorted: names stand for the import's name ids. */
static char *figures(const tt_import *imp, const tt_rank *r) {
  xp_vec lines = {0};
#define LINE(...) (*(char **)xp_vec_push(&lines, sizeof(char *)) = xp_asprintf(__VA_ARGS__))
#define NAME(key) imp->names.str[TT_KEY_NAME(key)]
  LINE("rank %lld of %lld device %lld: %lld kernels %lld memcpys %lld memsets %lld cpu_ops %lld linked %lld before the trace",
       (long long)r->rank, (long long)r->world_size, (long long)r->device, (long long)r->kernels, (long long)r->memcpys, (long long)r->memsets,
       (long long)r->cpu_ops, (long long)r->linked, (long long)r->before_trace);
  LINE("gpu %lld..%lld busy %lld kernel %lld profiled %lld..%lld", (long long)r->gpu_start, (long long)r->gpu_end,
       (long long)r->busy_ns, (long long)r->kernel_ns, (long long)r->prof_start, (long long)r->prof_end);
  LINE("written \"ts\": 0, \"dur\": 0: %lld CPU events %lld GPU activities", (long long)r->zero_cpu,
       (long long)r->zero_gpu);
  for (size_t i = 0; i < r->steps.n; i++) {
    const tt_step *s = XP_VEC_AT(&r->steps, tt_step, i);
    LINE("step %zu #%lld %lld..%lld gpu %lld..%lld: %lld activities %lld ns busy %lld", i, (long long)s->number,
         (long long)s->start, (long long)s->end, (long long)s->gpu_start, (long long)s->gpu_end, (long long)s->kernels,
         (long long)s->kernel_ns, (long long)s->busy_ns);
  }
  for (size_t i = 0; i < r->kstats.n; i++) {
    const tt_kstat *k = XP_VEC_AT(&r->kstats, tt_kstat, i);
    LINE("name %s/%u: %lld %lld %lld %lld", NAME(k->key), TT_KEY_COLL(k->key), (long long)k->count,
         (long long)k->total, (long long)k->min, (long long)k->max);
  }
  for (size_t i = 0; i < r->stepk.n; i++) {
    const tt_stepk *k = XP_VEC_AT(&r->stepk, tt_stepk, i);
    LINE("step %d name %s/%u: %lld %lld", k->step, NAME(k->key), TT_KEY_COLL(k->key), (long long)k->count,
         (long long)k->total);
  }
  for (size_t i = 0; i < r->shapes.n; i++) {
    const tt_shape *s = XP_VEC_AT(&r->shapes, tt_shape, i);
    LINE("shape %s by %s: %lld %lld %lld %lld", NAME(s->key), imp->ops.str[s->op], (long long)s->count,
         (long long)s->total, (long long)s->min, (long long)s->max);
  }
  for (size_t i = 0; i < r->colls.n; i++) {
    const tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    LINE("collective %s %lld..%lld step %d group %lld wait %lld pg %s", NAME(c->key), (long long)c->start,
         (long long)c->end, c->step, (long long)c->group, (long long)c->wait, c->pg >= 0 ? imp->pgs.str[c->pg] : "-");
  }
#undef LINE
#undef NAME
  qsort(lines.data, lines.n, sizeof(char *), by_text);
  size_t len = 1;
  for (size_t i = 0; i < lines.n; i++) len += strlen(*XP_VEC_AT(&lines, char *, i)) + 1;
  char *out = xp_xmalloc(len), *p = out;
  for (size_t i = 0; i < lines.n; i++) {
    char *l = *XP_VEC_AT(&lines, char *, i);
    p += sprintf(p, "%s\n", l);
    free(l);
  }
  *p = 0;
  xp_vec_free(&lines);
  return out;
}

/* The first line where two figures differ, said on stderr. */
static void say_difference(const char *what, const char *a, const char *b) {
  while (*a && *b) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    if (ea - a != eb - b || memcmp(a, b, (size_t)(ea - a)) != 0) break;
    a = ea + 1, b = eb + 1;
  }
  fprintf(stderr, "%s: as written [%.*s], reordered [%.*s]\n", what, (int)strcspn(a, "\n"), a, (int)strcspn(b, "\n"), b);
}

/* The trace as written, then in each order: the same figures for every rank it makes. want is
** the import as written, for the caller's checks of what the figures are. not_reversed: the
** trace holds a tie that only the file's order decides (tt_pair.c: "B"s that open at one time
** on one thread, closed by "E"s that do not name them), read as written and GPU first only. */
static void check_orders(const char *path, const char *steps, int not_reversed, tt_import *want_out) {
  static const char *const names[] = {"as written", "reversed", "GPU first"};
  doc d;
  CHECK(doc_read(&d, path));
  tt_import want;
  CHECK_EQ_INT(import(&want, path, steps), 0);
  int64_t linked = 0;
  for (int i = 0; i < want.nranks; i++) linked += want.ranks[i]->linked;
  for (enum order o = AS_WRITTEN; o <= GPU_FIRST; o++) {
    if (o == REVERSED && not_reversed) continue;
    char *copy = doc_write(&d, o, "t.json");
    tt_import got;
    CHECK_EQ_INT(import(&got, copy, steps), 0);
    CHECK_EQ_INT(got.nranks, want.nranks);
    for (int i = 0; i < want.nranks && i < got.nranks; i++) {
      char *a = figures(&want, want.ranks[i]), *b = figures(&got, got.ranks[i]);
      if (strcmp(a, b) != 0) {
        char *what = xp_asprintf("%s, %s, rank %d", path, names[o], i);
        say_difference(what, a, b);
        free(what);
        CHECK(0);
      }
      free(a);
      free(b);
    }
    tt_import_free(&got);
    free(copy);
  }
  printf("%s: %d rank(s), %lld activities linked as written, compared in %d orders\n", path, want.nranks,
         (long long)linked, GPU_FIRST + 1 - not_reversed);
  *want_out = want;
  doc_free(&d);
}

/* The activities per step of rank 0, "n0|n1|...". */
static char *per_step(const tt_rank *r) {
  char *out = xp_strdup("");
  for (size_t i = 0; i < r->steps.n; i++) {
    char *next = xp_asprintf("%s%s%lld", out, i ? "|" : "", (long long)XP_VEC_AT(&r->steps, tt_step, i)->kernels);
    free(out);
    out = next;
  }
  return out;
}

/* Rank 0's operators that count activities, "op:count ..." in order (the operator's name, not its
** shapes, and of two alike the counts in order). */
static char *shape_ops(const tt_import *imp, const tt_rank *r) {
  char **ops = xp_xcalloc(r->shapes.n + 1, sizeof *ops);
  for (size_t i = 0; i < r->shapes.n; i++) {
    const tt_shape *s = XP_VEC_AT(&r->shapes, tt_shape, i);
    const char *op = imp->ops.str[s->op];
    ops[i] = xp_asprintf("%.*s:%lld", (int)strcspn(op, "\x1f"), op, (long long)s->count);
  }
  qsort(ops, r->shapes.n, sizeof *ops, by_text);
  char *out = xp_strdup("");
  for (size_t i = 0; i < r->shapes.n; i++) {
    char *next = xp_asprintf("%s%s%s", out, i ? " " : "", ops[i]);
    free(out), free(ops[i]);
    out = next;
  }
  free(ops);
  return out;
}

/* Step i's CPU window, "start..end" in us from 1700000000000000 us. */
static char *step_window(const tt_rank *r, size_t i) {
  if (i >= r->steps.n) return xp_strdup("none");
  const tt_step *s = XP_VEC_AT(&r->steps, tt_step, i);
  const int64_t t0 = 1700000000000000000LL;
  return xp_asprintf("%lld..%lld", (long long)(s->start - t0) / 1000, (long long)(s->end - t0) / 1000);
}

/* be_steps.json as each step rule reads it: the pairs' times, whatever the order. */
static void check_be_steps(const tt_import *imp, const char *by, const char *steps) {
  const tt_rank *r = imp->ranks[0];
  char *w0 = step_window(r, 0), *w1 = step_window(r, 1);
  /* gemm 12.5 us, add 8, zero_kernel 0 in step 0; mm 17.5, elementwise 10 and the copy 10 in 1 */
  CHECK_EQ_INT(r->kernels, 5);
  CHECK_EQ_INT(r->memcpys, 1);
  CHECK_EQ_INT(r->kernel_ns, 58000);
  CHECK_EQ_INT(r->linked, 4);
  CHECK_EQ_INT(r->cpu_ops, 5); /* the operators with an External id (aten::linear has none) */
  CHECK_EQ_INT(r->shapes.n, 4);
  if (!by) { /* ProfilerStep#0 ends where #1 begins (its "E" unnamed, at #1's "B") */
    CHECK_EQ_STR(w0, "0..1000");
    CHECK_EQ_STR(w1, "1000..2000");
    CHECK_EQ_STR(steps, "3|3");
    CHECK_EQ_INT(XP_VEC_AT(&r->steps, tt_step, 0)->kernel_ns, 20500);
  } else if (strcmp(by, "decode_step") == 0) { /* one "E" named, one not */
    CHECK_EQ_STR(w0, "100..900");
    CHECK_EQ_STR(w1, "1100..1900");
    CHECK_EQ_STR(steps, "3|3");
  } else { /* overlap_a and overlap_b overlap on one thread: each ends at its own named "E" */
    CHECK_EQ_STR(w0, "1000..1200");
    CHECK_EQ_STR(w1, "1100..1300");
  }
  int addmm = 0; /* aten::addmm's Input Dims from its "B", its Input type from its "E" */
  for (size_t i = 0; i < r->shapes.n; i++) {
    const tt_shape *s = XP_VEC_AT(&r->shapes, tt_shape, i);
    addmm += strcmp(imp->ops.str[s->op], "aten::addmm\x1f[[8, 64], [64, 64]]\x1f[\"float\", \"float\"]") == 0;
  }
  CHECK_EQ_INT(addmm, 1);
  free(w0);
  free(w1);
}

/* Two imports' ranks, figure for figure (what: the two, for the message). */
static void check_same_figures(const tt_import *a, const tt_import *b, const char *what) {
  CHECK_EQ_INT(a->nranks, b->nranks);
  for (int i = 0; i < a->nranks && i < b->nranks; i++) {
    char *fa = figures(a, a->ranks[i]), *fb = figures(b, b->ranks[i]);
    if (strcmp(fa, fb) != 0) {
      char *where = xp_asprintf("%s, rank %d", what, i);
      say_difference(where, fa, fb);
      free(where);
      CHECK(0);
    }
    free(fa);
    free(fb);
  }
}

/* A trace written with "B"/"E" pairs and the same written with "X" events: the same figures for
** every rank (the step rule by). */
static void check_same_as(const char *be, const char *x, const char *by) {
  char *pb = test_data_path("trace/variants", be), *px = test_data_path("trace/variants", x);
  tt_import a, b;
  CHECK_EQ_INT(import(&a, pb, by), 0);
  CHECK_EQ_INT(import(&b, px, by), 0);
  char *what = xp_asprintf("%s against %s (steps by %s)", be, x, by ? by : "ProfilerStep#N");
  check_same_figures(&a, &b, what);
  free(what);
  printf("%s: the same figures as %s, steps by %s\n", be, x, by ? by : "ProfilerStep#N");
  tt_import_free(&a);
  tt_import_free(&b);
  free(pb);
  free(px);
}

/* A merged file (imp, of name) and its ranks' own files r0, r1 imported together: the same
** figures for every rank, matched collectives and their waits too (the step rule by). */
static void check_same_as_files(const tt_import *imp, const char *name, const char *r0, const char *r1, const char *by) {
  char *p[2] = {test_data_path("trace/variants", r0), test_data_path("trace/variants", r1)};
  tt_import own;
  CHECK_EQ_INT(import_files(&own, (const char *const *)p, 2, by), 0);
  char *what = xp_asprintf("%s against %s and %s", name, r0, r1);
  check_same_figures(&own, imp, what);
  CHECK_EQ_INT(imp->matched, own.matched);
  CHECK_EQ_INT(imp->unmatched, own.unmatched);
  free(what);
  tt_import_free(&own);
  free(p[0]);
  free(p[1]);
}

/* What each trace's figures are, as written (every order gives the same). by: the step rule. */
static void check_figures(const char *name, const char *by, const tt_import *imp) {
  const tt_rank *r = imp->ranks[0];
  char *steps = per_step(r);
  if (strcmp(name, "decode_tp2_bs1_rank0.trace.json.gz") == 0) {
    CHECK(r->linked > 5000); /* the order matters: operators link */
  } else if (strcmp(name, "order_ts0.json") == 0) {
    /* the kernel at "ts": 0 is left out, wherever the file writes it */
    CHECK_EQ_INT(r->gpu_before_cpu, 1);
    CHECK_EQ_INT(r->kernels, 4);
    CHECK_EQ_INT(r->linked, 4);
    CHECK_EQ_STR(steps, "2|2");
  } else if (strcmp(name, "order_epochbase.json") == 0) {
    /* epoch times, not shifted by the base again, whichever activity comes first */
    CHECK_EQ_INT(r->kernels, 4);
    CHECK_EQ_INT(r->gpu_end, 1700000000000210000LL);
  } else if (strcmp(name, "untimed_half.json") == 0) {
    /* the second half written "ts": 0, "dur": 0 (pytorch/pytorch#188481): left out, whatever the
    ** order; the window, steps and figures are the first half's */
    CHECK_EQ_INT(r->zero_cpu, 9);
    CHECK_EQ_INT(r->zero_gpu, 3);
    CHECK_EQ_INT(imp->untimed_events, 12);
    CHECK_EQ_INT(r->kernels, 2);
    CHECK_EQ_INT(r->memcpys, 1);
    CHECK_EQ_INT(r->cpu_ops, 3);
    CHECK_EQ_INT(r->linked, 3);
    CHECK_EQ_STR(steps, "1|2");
    CHECK_EQ_INT(r->gpu_start, 1700000000000150000LL);
    CHECK_EQ_INT(r->gpu_end, 1700000000001470000LL);
    CHECK_EQ_INT(r->busy_ns, 40000);
    CHECK_EQ_INT(r->prof_end, 0); /* its "Trace" span is untimed too */
  } else if (strcmp(name, "order_rocm2022.json") == 0) {
    /* two launches under one External id: every kernel's names its operator */
    CHECK_EQ_INT(r->linked, 4);
    CHECK_EQ_INT(r->shapes.n, 1);
    CHECK_EQ_STR(steps, "2|2");
  } else if (strcmp(name, "order_rocm_old.json") == 0) {
    /* a kernel's External id is its launch's: the operator around that launch, whose External
    ** id is another (by id, 2 kernels would be linked), and the launch's step */
    CHECK_EQ_INT(r->linked, 6);
    CHECK_EQ_INT(r->shapes.n, 1);
    CHECK_EQ_STR(steps, "3|3");
  } else if (strcmp(name, "order_steps.json") == 0) {
    /* the two threads' annotations of step 0 are one step, from the earlier start */
    CHECK_EQ_INT(r->steps.n, 2);
    CHECK_EQ_INT(XP_VEC_AT(&r->steps, tt_step, 0)->start, 1700000000000000000LL);
    CHECK_EQ_INT(XP_VEC_AT(&r->steps, tt_step, 0)->end, 1700000000001000000LL);
    /* step 1 annotated twice from one start: to the later end */
    CHECK_EQ_INT(XP_VEC_AT(&r->steps, tt_step, 1)->end, 1700000000001900000LL);
    CHECK_EQ_STR(steps, "1|2");
  } else if (strcmp(name, "order_procs.json") == 0) {
    /* two processes' ids collide: each device pairs with its own process's operators, steps
    ** and launches (a graph launch of correlation 21 in each, in different steps) */
    CHECK_EQ_INT(imp->nranks, 2);
    for (int i = 0; i < imp->nranks && i < 2; i++) {
      const tt_rank *d = imp->ranks[i];
      char *per = per_step(d);
      CHECK_EQ_INT(d->device, i);
      CHECK_EQ_INT(d->cpu_ops, 4);
      CHECK_EQ_INT(d->kernels, 5);
      CHECK_EQ_INT(d->linked, 4);
      CHECK_EQ_STR(per, i ? "3|2" : "2|3");
      CHECK_EQ_INT(d->steps.n, 2);
      if (d->steps.n == 2) CHECK_EQ_INT(XP_VEC_AT(&d->steps, tt_step, 0)->start, 1700000000000000000LL + 300000 * i);
      CHECK_EQ_INT(d->shapes.n, 1);
      if (d->shapes.n == 1) {
        const tt_shape *s = d->shapes.data;
        CHECK(strstr(imp->ops.str[s->op], i ? "[[16, 64]" : "[[8, 64]") != NULL);
        CHECK_EQ_INT(s->count, 4);
      }
      free(per);
    }
  } else if (strcmp(name, "order_ties.json") == 0) {
    /* a fill at the very time of step 1's late gemm on its stream: the fill first (by name, the
    ** times equal), so before the gemm in stream order: in step 1, not 2 */
    CHECK_EQ_INT(r->linked, 2);
    CHECK_EQ_STR(steps, "1|2|0");
  } else if (strcmp(name, "order_window.json") == 0) {
    /* two "Trace" windows, overlapping: the profiled window is their union */
    CHECK_EQ_INT(r->prof_start, 1700000000000000000LL);
    CHECK_EQ_INT(r->prof_end, 1700000000002000000LL);
  } else if (strcmp(name, "order_nested.json") == 0) {
    /* step_inner, written after the operators, within step_outer: the operator inside it is
    ** its, however much of the outer step the file had shown before */
    CHECK_EQ_INT(r->steps.n, 2);
    CHECK_EQ_INT(r->linked, 3);
    CHECK_EQ_STR(steps, "2|1");
  } else if (strcmp(name, "order_extdup.json") == 0) {
    /* aten::linear and the aten::addmm inside it under one External id: the kernel is the
    ** innermost's (as Kineto links it), whichever the file writes last */
    CHECK_EQ_INT(r->linked, 2);
    CHECK_EQ_INT(r->shapes.n, 1);
    if (r->shapes.n == 1) {
      const tt_shape *s = r->shapes.data;
      CHECK(strncmp(imp->ops.str[s->op], "aten::addmm\x1f", 12) == 0);
      CHECK_EQ_INT(s->count, 2);
    }
    CHECK_EQ_STR(steps, "1|1");
  } else if (strcmp(name, "order_pgs.json") == 0) {
    /* a collective naming no group, between two of groups A and B on its stream: none, as
    ** either may be its own (one stream of several groups); after one of A's alone on another
    ** stream: A's. Whichever the file writes first */
    CHECK_EQ_INT(r->colls.n, 5);
    for (size_t i = 0; i < r->colls.n; i++) {
      const tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
      if (c->start == 1700000000000200000LL) CHECK_EQ_INT(c->pg, -1);
      if (c->start == 1700000000000500000LL) CHECK(c->pg >= 0 && imp->pgs.str[c->pg][0] == 'A');
    }
  } else if (strcmp(name, "order_stepdup.json") == 0) {
    /* ProfilerStep#1 twice apart, the second by two threads, overlapping: three steps, the
    ** later #1 from 1500 to 1700 us, whichever annotation the file writes first */
    CHECK_EQ_INT(r->steps.n, 3);
    CHECK_EQ_INT(r->dup_steps, 1);
    CHECK_EQ_STR(steps, "1|1|1");
  } else if (strcmp(name, "merged_tie.json") == 0) {
    /* device 1's one kernel carries ids both processes launched (correlation 7, External id 2):
    ** device 0 is pid 100's by its second kernel, so device 1 is pid 200's, with its one step */
    CHECK_EQ_INT(imp->nranks, 2);
    if (imp->nranks == 2) {
      char *per = per_step(imp->ranks[1]);
      CHECK_EQ_STR(steps, "1|1");
      CHECK_EQ_STR(per, "1");
      CHECK_EQ_INT(XP_VEC_AT(&imp->ranks[1]->steps, tt_step, 0)->number, 9);
      free(per);
    }
  } else if (strcmp(name, "loader_proc.json") == 0) {
    /* one device, launched by pid 100 (on two threads); pids 300 and 400 wrote operators under
    ** the worker's External ids and a ProfilerStep#0 from 900 us: the rank is pid 100's alone,
    ** its two operators, its step from 1000 us, each kernel its own operator's */
    CHECK_EQ_INT(imp->nranks, 1);
    CHECK_EQ_INT(r->cpu_ops, 2);
    CHECK_EQ_INT(r->linked, 2);
    CHECK_EQ_INT(r->steps.n, 1);
    if (r->steps.n == 1) { /* the file's times are small: not step_window's epoch */
      CHECK_EQ_INT(XP_VEC_AT(&r->steps, tt_step, 0)->start, 1000000);
      CHECK_EQ_INT(XP_VEC_AT(&r->steps, tt_step, 0)->end, 2000000);
    }
    CHECK_EQ_STR(steps, "2");
    CHECK_EQ_INT(r->shapes.n, 2);
    for (size_t i = 0; i < r->shapes.n; i++) {
      const tt_shape *s = XP_VEC_AT(&r->shapes, tt_shape, i);
      const char *kernel = imp->names.str[TT_KEY_NAME(s->key)], *op = imp->ops.str[s->op];
      const char *want = strcmp(kernel, "gemm_kernel") == 0 ? "aten::mm\x1f" : "aten::add\x1f";
      CHECK(strncmp(op, want, strlen(want)) == 0);
    }
  } else if (strcmp(name, "pid_str.json") == 0) {
    /* one process, its pid written 100 and "100": its step, both operators, each kernel linked,
    ** and the warm-up kernel below its launches' ids launched before the trace */
    CHECK_EQ_INT(r->cpu_ops, 2);
    CHECK_EQ_INT(r->linked, 2);
    CHECK_EQ_INT(r->before_trace, 1);
    CHECK_EQ_INT(r->window_step, 0);
    CHECK_EQ_STR(steps, "2");
  } else if (strcmp(name, "early_launch.json") == 0) {
    /* graph replays 80 s and 40 s before the first operator, each launched 20 us before it
    ** runs: kept (the launches are CPU events), outside the one step */
    CHECK_EQ_INT(r->gpu_before_cpu, 0);
    CHECK_EQ_INT(r->kernels, 3);
    CHECK_EQ_INT(r->kernel_ns, 230000);
    CHECK_EQ_STR(steps, "1");
  } else if (strcmp(name, "twogpu_seq.json") == 0 || strcmp(name, "merged_apart.json") == 0) {
    /* two devices of one file whose work does not overlap in time: one job, a rank each, with
    ** their own steps: one process driving them one after the other (twogpu_seq), or two
    ** processes' whose launches of one pair of ids only their times tell apart (merged_apart) */
    const int seq = name[0] == 't';
    CHECK_EQ_INT(imp->nranks, 2);
    for (int i = 0; i < imp->nranks && i < 2; i++) {
      char *per = per_step(imp->ranks[i]);
      CHECK_EQ_STR(per, seq ? "2" : "1");
      CHECK_EQ_INT(XP_VEC_AT(&imp->ranks[i]->steps, tt_step, 0)->number, seq || !i ? 1 : 9);
      free(per);
    }
  } else if (strcmp(name, "multinode_r2_nodist.json.gz") == 0) {
    /* no distributedInfo: rank 2 and the world of 4, as its record_param_comms name them */
    CHECK_EQ_INT(imp->nranks, 1);
    CHECK_EQ_INT(r->rank, 2);
    CHECK_EQ_INT(r->trace_rank, -1); /* so the rank is its calls', recorded as such */
    CHECK_EQ_STR(r->rank_source, "comms");
    CHECK_EQ_INT(r->world_size, 4);
    CHECK_EQ_STR(steps, "3|3");
  } else if (strncmp(name, "multinode_", 10) == 0) {
    /* node 1's file of two GPUs: ranks 2 and 3, by its processes' record_param_comms (merged,
    ** multinode_n1) or its one process's distributedInfo.rank 1 times its 2 GPUs (multinode_1p1),
    ** whatever the order of the events; the node's group pairs its two ranks' all-reduces. The
    ** world's size from distributedInfo, or without it, each process's calls on the default group */
    CHECK_EQ_INT(imp->nranks, 2);
    for (int i = 0; i < imp->nranks && i < 2; i++) {
      const tt_rank *d = imp->ranks[i];
      char *per = per_step(d);
      CHECK_EQ_INT(d->rank, 2 + i);
      CHECK_EQ_INT(d->device, i);
      CHECK_EQ_INT(d->world_size, 4);
      CHECK_EQ_STR(per, "3|3");
      CHECK_EQ_INT(d->coll_matched, 2);
      free(per);
    }
  } else if (strcmp(name, "twothread_r23.json") == 0) {
    /* one process, a thread a rank on a GPU of its own, no distributedInfo: each device the rank
    ** the calls of its own collectives name, whichever the file writes first, kernel or call */
    CHECK_EQ_INT(imp->nranks, 2);
    for (int i = 0; i < imp->nranks && i < 2; i++) {
      CHECK_EQ_INT(imp->ranks[i]->rank, 2 + i);
      CHECK_EQ_INT(imp->ranks[i]->device, i);
      CHECK_EQ_INT(imp->ranks[i]->world_size, 4);
      CHECK_EQ_STR(imp->ranks[i]->rank_source, "comms");
    }
  } else if (strcmp(name, "old_runtime.json") == 0) {
    /* Kineto's "Runtime" launches of 2021: each step's graph replay is its cudaGraphLaunch's,
    ** though the kernels run after the step's CPU window */
    CHECK_EQ_INT(r->kernels, 4);
    CHECK_EQ_STR(steps, "2|2");
  } else if (strcmp(name, "graph_extdup.json") == 0) {
    /* two graph launches under one External id, no correlation, in steps 1 and 2: the first
    ** replay began before the second launch, so it is the first's; the second after both: each
    ** launch keeps its replay, whichever the file writes last */
    CHECK_EQ_INT(r->kernels, 4);
    CHECK_EQ_STR(steps, "2|2");
  } else if (strcmp(name, "rocm_noop.json") == 0) {
    /* ROCm's 2022 logger, no operator in the trace: each kernel by the launches under its
    ** External id (its operator's), in its step though the GPU ran a step behind */
    CHECK_EQ_INT(r->linked, 0);
    CHECK_EQ_STR(steps, "2|2");
  } else if (strcmp(name, "be_steps.json") == 0) {
    check_be_steps(imp, by, steps);
  } else if (strcmp(name, "be_loader.json") == 0) {
    /* as "B"/"E" pairs, a loader process beside the worker: the worker's operator and step alone */
    CHECK_EQ_INT(r->cpu_ops, 1);
    CHECK_EQ_INT(r->linked, 1);
    CHECK_EQ_INT(r->steps.n, 1);
    if (r->steps.n == 1) CHECK_EQ_INT(XP_VEC_AT(&r->steps, tt_step, 0)->start, 1000000);
  } else if (strcmp(name, "be_overrun.json") == 0) {
    /* a kernel written as a "B"/"E" pair that outlasts the next one on its stream ends where
    ** that one starts (tt_clip.c), as its "X" does: 100 us of its 800, then the add's 10 */
    CHECK_EQ_INT(r->kernel_ns, 110000);
    CHECK_EQ_INT(r->busy_ns, 110000);
    CHECK_EQ_INT(r->linked, 1);
  } else if (strcmp(name, "async_steps.json") == 0) {
    /* steps as async spans ("b"/"e" paired per category, id and process, across threads): each
    ** rule's steps from their pairs; the other async events (a nested sample, NCCL's plugin's
    ** group and collective, another process's step) read as they were */
    char *w0 = step_window(r, 0), *w1 = step_window(r, 1);
    CHECK_EQ_INT(r->steps.n, 2);
    CHECK_EQ_STR(w0, by ? "100..900" : "0..1000");
    CHECK_EQ_STR(w1, by ? "850..1900" : "1000..2000");
    CHECK_EQ_STR(steps, "1|2");
    CHECK_EQ_INT(r->steps_not_complete, 0);
    free(w0);
    free(w1);
  } else if (strcmp(name, "be_tie.json") == 0) {
    /* ProfilerStep#0 and setup open at one time, closed by unnamed "E"s at 500 and 1000 us: the
    ** first written is the outer (to 1000 us), and holds the operator at 700 us */
    char *w0 = step_window(r, 0);
    CHECK_EQ_STR(w0, "0..1000");
    CHECK_EQ_STR(steps, "1");
    free(w0);
  } else if (strcmp(name, "graph_branches.json") == 0) {
    /* two launches of one graph whose branches share the stream: a GEMM of 200 us holds the
    ** other branch's two kernels of 20 us and keeps its time (clipped at 20 us, the rank's kernel
    ** time was 200 us, not 560); a kernel after the graphs whose end is written 4.3 ms late still
    ** ends where the next one starts (50 us) */
    CHECK_EQ_INT(r->kernels, 10);
    CHECK_EQ_INT(r->kernel_ns, 560000);
    CHECK_EQ_INT(r->busy_ns, 480000);
  } else if (strcmp(name, "cugraph_annotated.json") == 0) {
    /* a CUDA graph's kernels moved by torch.cuda._annotate_cuda_graph_trace onto streams 7, 8, 61
    ** and 62, beside eager kernels on the real streams 7 and 61: the eager ones keep their 300 and
    ** 170 us (clipped at a graph kernel's start, they were 5 and 10 us, kernel time 575 us); the
    ** graph's in its launch's step */
    int64_t eager = 0;
    for (size_t i = 0; i < r->kstats.n; i++) {
      const tt_kstat *k = XP_VEC_AT(&r->kstats, tt_kstat, i);
      const char *n = imp->names.str[TT_KEY_NAME(k->key)];
      if (strcmp(n, "elementwise_copy_kernel") == 0 || strcmp(n, "index_put_kernel") == 0) eager += k->total;
    }
    CHECK_EQ_INT(eager, 470000);
    CHECK_EQ_INT(r->kernels, 14);
    CHECK_EQ_INT(r->kernel_ns, 1030000);
    CHECK_EQ_INT(r->busy_ns, 580000);
    CHECK_EQ_INT(r->linked, 2);
    CHECK_EQ_STR(steps, "7|7");
  } else if (strcmp(name, "overrun_rocm.json") == 0) {
    /* a kernel and a copy that outlast the next activity on their stream (1.6 s and 3.15 s past
    ** their true ends) end where it starts: 10 attention kernels of 658.460039 ms, not 2258, and
    ** two copies of 1.04 ms, not 3150; an overlap short of the next one's end (a programmatic
    ** dependent launch's shape) and a kernel holding a zero-length one keep their times */
    CHECK_EQ_INT(r->kernels, 15);
    CHECK_EQ_INT(r->memcpys, 2);
    CHECK_EQ_INT(r->kernel_ns, 659720039);
    CHECK_EQ_INT(r->busy_ns, 658459824);
    int64_t attn = 0, attn_max = 0, copies = 0, kept = 0;
    for (size_t i = 0; i < r->kstats.n; i++) {
      const tt_kstat *k = XP_VEC_AT(&r->kstats, tt_kstat, i);
      const char *n = imp->names.str[TT_KEY_NAME(k->key)];
      if (strcmp(n, "attn_fwd.kd") == 0) attn = k->total, attn_max = k->max;
      if (strncmp(n, "Memcpy DtoH", 11) == 0) copies = k->total;
      if (strcmp(n, "pdl_primary") == 0 || strcmp(n, "outer") == 0) kept += k->total;
    }
    CHECK_EQ_INT(attn, 658460039);
    CHECK_EQ_INT(attn_max, 125690326); /* the longest as written, not the clipped one's */
    CHECK_EQ_INT(copies, 1040000);
    CHECK_EQ_INT(kept, 150000);
    CHECK_EQ_STR(steps, "17");
  } else if (strcmp(name, "sglang_merged.json.gz") == 0) {
    /* SGLang's profile merger's file of a TP 2 run, its pids "[TP00] 1808", "[TP01] 1", ...: each
    ** label's process and GPU are the rank the label names, with the very figures of the two files
    ** it was merged from, its 132 kernels, 2 steps and 6 all-reduces matched across the two */
    CHECK_EQ_INT(imp->nranks, 2);
    for (int i = 0; i < imp->nranks && i < 2; i++) {
      CHECK_EQ_INT(imp->ranks[i]->rank, i);
      CHECK_EQ_STR(imp->ranks[i]->rank_source, "trace");
      CHECK_EQ_INT(imp->ranks[i]->kernels, 132);
      CHECK_EQ_INT(imp->ranks[i]->coll_matched, 6);
    }
    CHECK_EQ_INT(imp->matched, 12);
    check_same_as_files(imp, name, "sglang_tp0.json.gz", "sglang_tp1.json.gz", by);
  } else if (strcmp(name, "ext_corr2022.json") == 0) {
    /* Kineto of 2022-23: every activity's External id its correlation, which names no operator;
    ** each is the innermost cpu_op's around its launch, on its thread: the NCCL kernels
    ** record_param_comms's (not the nccl:all_reduce annotation inside it), the gemms and their
    ** memsets aten::addmm's (not CompiledFunction's around it), whatever the order; steps by
    ** their launches */
    char *ops = shape_ops(imp, r);
    CHECK_EQ_INT(r->kernels + r->memcpys + r->memsets, 14);
    CHECK_EQ_INT(r->linked, 14);
    CHECK_EQ_STR(ops, "aten::add_:2 aten::addmm:2 aten::addmm:2 aten::copy_:2 aten::fill_:2 aten::mm:2 "
                      "record_param_comms:2");
    CHECK_EQ_STR(steps, "7|7");
    free(ops);
  } else if (strcmp(name, "xpu_launch.json") == 0) {
    /* an Intel GPU (Kineto's XPU plugin), its GPU a step behind its CPU: fill_kernel and the copy
    ** that urEnqueueKernelLaunch and urEnqueueUSMMemcpy (xpu_runtime) launched outside an operator
    ** are in their launch's step, not the next one their GPU start falls in; warmup_kernel, whose
    ** correlation is below every call's, was launched before the trace: in no step (the trace
    ** records Level Zero calls, xpu_driver, so the lost kernels' missing launches prove nothing
    ** against it); each lost kernel by stream order (steps 2, 3, none) */
    CHECK_EQ_INT(r->kernels, 10);
    CHECK_EQ_INT(r->memcpys, 3);
    CHECK_EQ_INT(r->linked, 3);
    CHECK_EQ_INT(r->before_trace, 1);
    CHECK_EQ_STR(steps, "3|4|4");
  } else if (strcmp(name, "pu1_launch.json") == 0 || strcmp(name, "musa_launch.json") == 0 ||
             strcmp(name, "mlu_launch.json") == 0) {
    /* a PrivateUse1 backend (Moore Threads' MUSA through its Kineto), its GPU a step behind: the
    ** fill and Triton kernels and the copy that musaLaunchKernel, muLaunchKernel and
    ** musaMemcpyAsync (privateuse1_runtime, _driver) launched outside an operator are their
    ** launch's step; warmup_kernel, its correlation below every call's, in none. The same as
    ** the vendors' own Kineto builds named the categories: musa_runtime, musa_driver;
    ** Cambricon's mlu_runtime and mlu_memcpy (the copies counted) */
    CHECK_EQ_INT(r->kernels, 10);
    CHECK_EQ_INT(r->memcpys, 3);
    CHECK_EQ_INT(r->linked, 3);
    CHECK_EQ_INT(r->before_trace, 1);
    CHECK_EQ_STR(steps, "4|4|4");
  } else if (strcmp(name, "flow_launch.json") == 0) {
    /* launches and kernels of a plugin's generic activities, linked by Kineto's "ac2g" flows
    ** alone (no correlation): each fill_kernel launched outside an operator is its launch's step,
    ** not the next one its GPU start falls in (1|2|2, the last in none, before flows were read) */
    CHECK_EQ_INT(r->kernels, 6);
    CHECK_EQ_INT(r->linked, 3);
    CHECK_EQ_INT(r->before_trace, 0);
    CHECK_EQ_STR(steps, "2|2|2");
  } else if (strcmp(name, "order_cpulate.json") == 0) {
    /* a kernel 100 s after the first CPU event is kept, wherever the file writes that event */
    CHECK_EQ_INT(r->gpu_before_cpu, 0);
    CHECK_EQ_INT(r->kernels, 2);
    CHECK_EQ_INT(r->linked, 2);
  }
  free(steps);
}

/* More streams than a 16-bit lane numbers: three steps; a gemm launched in step 1 that runs late,
** in step 2's window, on stream 1, just after a fill no link places; then a kernel on each of
** 65,535 other streams. Stream order puts the fill before the gemm, in step 1, whichever streams
** the file names first (the fill's stream was the one left without a lane when written last). */
static char *write_many_streams(void) {
  char *path = test_path("order_streams.json");
  FILE *f = fopen(path, "w");
  const long long t = 1700000000000000LL;
  fputs("{\"schemaVersion\": 1, \"traceEvents\": [\n", f);
  for (int s = 0; s < 3; s++)
    fprintf(f, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 7, "
               "\"tid\": 7, \"ts\": %lld, \"dur\": 1000},\n", s, t + 1000 * s);
  fprintf(f, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 7, \"tid\": 7, \"ts\": %lld, "
             "\"dur\": 200, \"args\": {\"External id\": 1}},\n", t + 1100);
  fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_kernel\", \"pid\": 0, \"tid\": 1, \"ts\": %lld, "
             "\"dur\": 10, \"args\": {\"External id\": 1, \"stream\": 1}},\n", t + 2600);
  fprintf(f, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"fill_kernel\", \"pid\": 0, \"tid\": 1, \"ts\": %lld, "
             "\"dur\": 10, \"args\": {\"stream\": 1}}", t + 2500);
  for (int i = 0; i < 65535; i++)
    fprintf(f, ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"tiny_kernel\", \"pid\": 0, \"tid\": %d, "
               "\"ts\": %lld, \"dur\": 1}", 1000 + i, t + 100);
  fputs("\n]}\n", f);
  fclose(f);
  return path;
}

int main(void) {
  if (tt_rules_builtin(&rules)) return 1;
  if (!test_dir_make("/tmp/xp-test-order-XXXXXX")) return 1;
  static const struct { const char *sub, *name, *steps; int not_reversed; } traces[] = {
      {"trace", "decode_tp2_bs1_rank0.trace.json.gz", NULL, 0}, /* NCCL collectives, every kernel linked */
      {"trace/variants", "cugraph_r1.json.gz", NULL, 0},        /* graph replays placed by their launch */
      {"trace/variants", "twogpu_oneproc.json.gz", NULL, 0},    /* two devices, each a rank */
      {"trace/variants", "vllm_r0.json.gz", NULL, 0},           /* no ProfilerStep#N */
      {"trace/variants", "vllm_r0.json.gz", "execute_context_*", 0}, /* steps by vLLM's annotation */
      {"trace/variants", "peercopy_r0.json.gz", NULL, 0},       /* peer copies on another device */
      {"trace/variants", "twogpu_peer.json.gz", NULL, 0},       /* two devices and a third's copies */
      {"trace/variants", "order_ts0.json", NULL, 0},            /* a kernel at "ts": 0, written last */
      {"trace/variants", "order_epochbase.json", NULL, 0},      /* ... first, epoch times and a base */
      {"trace/variants", "untimed_half.json", NULL, 0},         /* its second half "ts": 0, "dur": 0 */
      {"trace/variants", "order_rocm2022.json", NULL, 0},       /* a second launch under one id, late */
      {"trace/variants", "order_rocm_old.json", NULL, 0},       /* an operator before a ROCm kernel */
      {"trace/variants", "order_steps.json", NULL, 0},          /* one step by two threads, later first */
      {"trace/variants", "order_cpulate.json", NULL, 0},        /* a late thread's CPU events first */
      {"trace/variants", "order_procs.json", NULL, 0},          /* two processes, their ids colliding */
      {"trace/variants", "order_ties.json", NULL, 0},           /* two kernels of one start on a stream */
      {"trace/variants", "order_window.json", NULL, 0},         /* two "Trace" windows */
      {"trace/variants", "order_nested.json", "step*", 0},      /* a step in a step, after its operators */
      {"trace/variants", "order_extdup.json", NULL, 0},         /* two operators of one External id */
      {"trace/variants", "order_pgs.json", NULL, 0},            /* two groups' collectives on one stream */
      {"trace/variants", "order_stepdup.json", NULL, 0},        /* a step number again, apart and overlapping */
      {"trace/variants", "old_runtime.json", NULL, 0},          /* Kineto's 2021 "Runtime" launches */
      {"trace/variants", "graph_extdup.json", NULL, 0},         /* two graph launches under one External id */
      {"trace/variants", "rocm_noop.json", NULL, 0},            /* HIP launches under one id, no operator */
      {"trace/variants", "loader_proc.json", NULL, 0},          /* one GPU, a loader process beside */
      {"trace/variants", "pid_str.json", NULL, 0},              /* one process's pid as 100 and "100" */
      {"trace/variants", "merged_tie.json", NULL, 0},           /* two processes, one device's ids alike */
      {"trace/variants", "early_launch.json", NULL, 0},         /* launches a minute before any operator */
      {"trace/variants", "twogpu_seq.json", NULL, 0},           /* one process, two GPUs one after the other */
      {"trace/variants", "merged_apart.json", NULL, 0},         /* two processes apart in time, ids alike */
      {"trace/variants", "overrun_rocm.json", NULL, 0},         /* ends written seconds late (ROCm) */
      {"trace/variants", "graph_branches.json", NULL, 0},       /* a graph's branches on one stream */
      {"trace/variants", "cugraph_annotated.json", NULL, 0},    /* a graph's kernels moved to other streams */
      {"trace/variants", "xpu_launch.json", NULL, 0},           /* an Intel GPU's launches (xpu_runtime) */
      {"trace/variants", "pu1_launch.json", NULL, 0},           /* a PrivateUse1 backend's launches */
      {"trace/variants", "musa_launch.json", NULL, 0},          /* ... as MUSA's Kineto once named them */
      {"trace/variants", "mlu_launch.json", NULL, 0},           /* ... Cambricon's, its copies mlu_memcpy */
      {"trace/variants", "flow_launch.json", NULL, 0},          /* launches linked by flows alone */
      {"trace/variants", "ext_corr2022.json", NULL, 0},         /* External id = correlation (2022-23) */
      {"trace/variants", "multinode_n1.json.gz", NULL, 0},      /* a node's two processes, their ranks */
      {"trace/variants", "multinode_1p1.json.gz", NULL, 0},     /* a node's one process, two GPUs, rank 1 */
      {"trace/variants", "multinode_r2_nodist.json.gz", NULL, 0}, /* rank 2 by its calls, no distributedInfo */
      {"trace/variants", "multinode_n1_nodist.json.gz", NULL, 0}, /* ... a node's two processes, and the world */
      {"trace/variants", "twothread_r23.json", NULL, 0},        /* one process, ranks 2 and 3 by their own calls */
      {"trace/variants", "sglang_merged.json.gz", "step[*", 0}, /* SGLang's merged ranks, by their pids' labels */
      {"trace/variants", "be_steps.json", NULL, 0},             /* steps, operators, kernels as "B"/"E" */
      {"trace/variants", "be_steps.json", "decode_step", 0},    /* ... steps by an annotation */
      {"trace/variants", "be_steps.json", "overlap_*", 0},      /* ... by two that overlap on one thread */
      {"trace/variants", "be_loader.json", NULL, 0},            /* a loader process beside, as "B"/"E" */
      {"trace/variants", "be_overrun.json", NULL, 0},           /* a "B"/"E" kernel past the next one */
      {"trace/variants", "async_steps.json", NULL, 0},          /* steps as async "b"/"e" spans */
      {"trace/variants", "async_steps.json", "decode_step", 0}, /* ... two in flight on one thread */
      /* two "B"s at one time, their "E"s unnamed: the file's order says which is outer, and a
      ** reversed file says the other (tt_pair.c): not read reversed, alone of these */
      {"trace/variants", "be_tie.json", NULL, 1}};
  for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
    char *path = test_data_path(traces[i].sub, traces[i].name);
    tt_import want;
    check_orders(path, traces[i].steps, traces[i].not_reversed, &want);
    check_figures(traces[i].name, traces[i].steps, &want);
    if (traces[i].steps) CHECK_EQ_INT(XP_VEC_AT(&want.ranks[0]->steps, tt_step, 1)->number, 1); /* numbered by start */
    tt_import_free(&want);
    free(path);
  }
  check_same_as("be_steps.json", "be_steps_x.json", NULL);
  check_same_as("be_steps.json", "be_steps_x.json", "decode_step");
  check_same_as("be_steps.json", "be_steps_x.json", "overlap_*");
  check_same_as("be_overrun.json", "be_overrun_x.json", NULL);
  check_same_as("async_steps.json", "async_steps_x.json", NULL);
  check_same_as("async_steps.json", "async_steps_x.json", "decode_step");
  /* the XPU scope profiler's "metrics: NAME" copy of each kernel is no activity of its own */
  check_same_as("xpu_metrics.json", "xpu_launch.json", NULL);
  char *many = write_many_streams();
  tt_import want;
  check_orders(many, NULL, 0, &want);
  char *steps = per_step(want.ranks[0]);
  CHECK_EQ_STR(steps, "65535|2|0");
  free(steps);
  tt_import_free(&want);
  free(many);
  test_dir_remove();
  tt_rules_free(&rules);
  CHECK_DONE();
}
