/*
** Reading one trace file: the reader thread's chunks are appended to a window, the framer cuts
** the window into events, and each event goes to the rank's aggregation. Only the unfinished
** tail of the window (one partial event) is carried from chunk to chunk.
*/
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tt_source.h"
#include "tt_trace.h"
#include "xp.h"

enum {
  MAX_UNIT = 16 << 20,          /* an event longer than this is refused ("huge strings") */
  PROGRESS_MIN = 4 << 20,       /* files smaller than this read silently */
};

typedef struct progress {
  int on, tty, last_quarter;
  double next;
  const char *path;
} progress;

static void progress_show(progress *p, tt_source *s, int final) {
  if (!p->on) return;
  double now = xp_now_seconds();
  if (!final && now < p->next) return;
  p->next = now + 0.2;
  uint64_t size = tt_source_file_size(s), pos = tt_source_file_pos(s);
  int pct = size ? (int)(pos * 100 / size) : 100;
  if (final) pct = 100;
  if (p->tty) {
    char bar[31];
    int fill = pct * 30 / 100;
    for (int i = 0; i < 30; i++) bar[i] = i < fill ? '#' : ' ';
    bar[30] = 0;
    fprintf(stderr, "\rxp: reading %s [%s] %3d%%%s", p->path, bar, pct, final ? "\n" : "");
  } else {
    /* Not a terminal (a log, CI): a line at each quarter, no carriage returns. */
    int q = pct / 25;
    if (q > p->last_quarter) {
      p->last_quarter = q;
      fprintf(stderr, "xp: reading %s: %d%%\n", p->path, q * 25);
    }
  }
}

/* The line of the JSON byte at offset: the file read again from its start, on the error path
** only (the import itself never counts lines). 0 when it cannot be read again. */
static long line_of_byte(const char *path, uint64_t offset) {
  char err[256];
  tt_source *src = tt_source_open(path, err, sizeof err);
  if (!src) return 0;
  const char *data;
  size_t len;
  uint64_t seen = 0;
  long line = 1;
  while (seen < offset && tt_source_next(src, &data, &len, err, sizeof err) == 1) {
    size_t n = offset - seen < len ? (size_t)(offset - seen) : len;
    for (const char *p = data, *end = data + n; (p = memchr(p, '\n', (size_t)(end - p))) != NULL; p++) line++;
    seen += len;
  }
  tt_source_close(src);
  return seen >= offset ? line : 0;
}

/* Whether path is gzip whose data stop inflating somewhere, with why (the source's message, less
** its path) in why[cap]: read again to its end, on the error path only. Data gone wrong (damage,
** or another writer's blocks: tt_source.c OVERWRITTEN) may inflate to wrong bytes for a while
** before the inflater notices, and the JSON then breaks first, where they went wrong: its error
** alone would blame the JSON. A stream cut short inflates right up to the cut: not asked here. */
static int gzip_corrupt(const char *path, char *why, size_t cap) {
  unsigned char magic[2] = {0, 0};
  FILE *fp = fopen(path, "rb"); /* plain JSON (most errors, every fuzz input's) starts no reader */
  const size_t m = fp ? fread(magic, 1, 2, fp) : 0;
  if (fp) fclose(fp);
  if (m != 2 || magic[0] != 0x1f || magic[1] != 0x8b) return 0;
  char err[512];
  tt_source *src = tt_source_open(path, err, sizeof err);
  if (!src) return 0;
  int got;
  const char *data;
  size_t len;
  while ((got = tt_source_next(src, &data, &len, err, sizeof err)) == 1) continue;
  const int corrupt = got < 0 && tt_source_corrupt(src);
  tt_source_close(src);
  const size_t n = strlen(path);
  if (corrupt)
    snprintf(why, cap, "%s", strncmp(err, path, n) == 0 && strncmp(err + n, ": ", 2) == 0 ? err + n + 2 : err);
  return corrupt;
}

static int bad(const char *path, uint64_t offset, uint64_t event, const char *what) {
  char why[512], both[1100];
  if (gzip_corrupt(path, why, sizeof why)) {
    snprintf(both, sizeof both, "%s, in a .gz whose data stop inflating further on (data gone wrong may inflate "
             "to wrong bytes for a while first): %s", what, why);
    what = both;
  }
  const long line = line_of_byte(path, offset);
  if (line > 0)
    return xp_error_at(XP_EXIT_USAGE, path, line, "event %llu (byte %llu): %s", (unsigned long long)event,
                       (unsigned long long)offset, what);
  return xp_error_at(XP_EXIT_USAGE, path, 0, "byte %llu (event %llu): %s",
                     (unsigned long long)offset, (unsigned long long)event, what);
}

/* Where the framer reads: normally the current chunk with the unfinished end of the previous
** one copied into its headroom; an event longer than the headroom (rare) is assembled in the
** carry buffer instead, chunk by chunk, until it is complete. */
typedef struct window {
  char *carry;     /* the unfinished unit, between chunks */
  size_t carry_len, carry_cap;
  int in_carry;    /* the unit outgrew the headroom: frame inside carry */
} window;

static void carry_reserve(window *w, size_t n) {
  if (n <= w->carry_cap) return;
  w->carry_cap = n > 2 * w->carry_cap ? n : 2 * w->carry_cap;
  w->carry = xp_xrealloc(w->carry, w->carry_cap);
}

/* The window for the next chunk (data, n; data NULL at the end of the stream). */
static void window_next(window *w, char *data, size_t n, char **buf, size_t *len) {
  if (data && !w->in_carry && w->carry_len <= TT_SOURCE_HEADROOM) {
    memcpy(data - w->carry_len, w->carry, w->carry_len);
    *buf = data - w->carry_len;
    *len = w->carry_len + n;
    return;
  }
  if (data) {
    w->in_carry = 1;
    carry_reserve(w, w->carry_len + n);
    memcpy(w->carry + w->carry_len, data, n);
    w->carry_len += n;
  }
  *buf = w->carry;
  *len = w->carry_len;
}

/* Keep buf[pos, len), the unfinished unit, for the next window. */
static void window_keep(window *w, const char *buf, size_t pos, size_t len) {
  if (w->in_carry) {
    if (pos == 0) return; /* still inside the long unit: carry holds all of it */
    memmove(w->carry, w->carry + pos, len - pos);
    w->in_carry = 0;
  } else {
    carry_reserve(w, len - pos);
    memcpy(w->carry, buf + pos, len - pos);
  }
  w->carry_len = len - pos;
}

/* A trace without GPU activity is no rank's. vLLM's front end (AsyncLLM) profiles its CPU only
** and writes <host>_<pid>.async_llm.<ms>.pt.trace.json.gz into the workers' directory, so an
** import of that directory's files meets one: the error says which file to leave out. */
static int no_gpu_activity(const tt_rank *r, const char *path, const tt_options *opt) {
  if (opt->untimed_out && r->zero_gpu) /* read_untimed */
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "no timed GPU kernels in the trace (%llu events): its %lld GPU activit%s written with "
                       "\"ts\": 0 and \"dur\": 0, no time (PyTorch 2.12's export_chrome_trace, pytorch/pytorch#188481)",
                       (unsigned long long)r->events, (long long)r->zero_gpu, r->zero_gpu == 1 ? "y is" : "ies are");
  const char *base = strrchr(path, '/');
  if (strstr(base ? base + 1 : path, ".async_llm."))
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "no GPU kernels in the trace (%llu events): vLLM's front end (AsyncLLM) profiles the CPU "
                       "only; import its workers' traces without it", (unsigned long long)r->events);
  if (r->legacy_gpu)
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "no GPU kernels in the trace (%llu events): it is the legacy autograd profiler's (its GPU side "
                       "\"CUDA functions\", use_kineto=False), which xp does not read: record with torch.profiler",
                       (unsigned long long)r->events);
  if (r->ascend)
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "no GPU kernels in the trace (%llu events): it is torch_npu's trace_view.json (Ascend "
                       "NPU), whose device tasks (process \"Ascend Hardware\", no category) xp does not read",
                       (unsigned long long)r->events);
  if (r->rocpd)
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "no GPU kernels in the trace (%llu events): it is rocmProfileData's (rpd2tracing's, as "
                       "SGLang's RPD profiler writes it), whose GPU ops (\"desc\": \"KernelExecution\", no "
                       "category) xp does not read: record with torch.profiler",
                       (unsigned long long)r->events);
  if (r->not_complete) /* instant events and the like, which the GPU side leaves out (tt_rank.c on_gpu) */
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "no GPU kernels in the trace (%llu events) but %lld GPU events that are not complete (\"ph\" "
                       "other than \"X\", \"B\" and \"E\"), which are not read: only complete events and "
                       "\"B\"/\"E\" pairs are", (unsigned long long)r->events, (long long)r->not_complete);
  if (opt->pairs && (opt->pairs->open_b || opt->pairs->lone_e || opt->pairs->untimed))
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "no GPU kernels in the trace (%llu events) but %lld \"B\"/\"E\" events left out unpaired "
                       "(or without a valid \"ts\"), which may have been some", (unsigned long long)r->events,
                       (long long)(opt->pairs->open_b + opt->pairs->lone_e + opt->pairs->untimed));
  return xp_error_at(XP_EXIT_USAGE, path, 0,
                     "no GPU kernels in the trace (%llu events): was it recorded with CUDA activities?",
                     (unsigned long long)r->events);
}

/* --events: ev kept as written, but one written with no time where the trace's other times
** are far from 0 (read_untimed) is kept with none (its ts_ns and dur_ns NULL), as the figures
** leave it out: stored as 0, a trace_events window began at 1970. Nonzero: not kept. */
static int keep_event(const tt_rank *r, tt_event *ev, const tt_options *opt) {
  if (!tt_event_untimed(ev, opt)) return opt->on_event(opt->event_ctx, r, ev);
  const tt_slice ts = ev->ts, dur = ev->dur;
  ev->ts.n = ev->dur.n = 0;
  const int rc = opt->on_event(opt->event_ctx, r, ev);
  ev->ts = ts, ev->dur = dur;
  return rc;
}

/* The read of a merged file's ranks (read_labels) whose label ev's pid carries, its pid made
** the rank's own (tt_label_take); -1: none's. */
static int label_of(const tt_options *opts, int n, tt_event *ev) {
  for (int i = 0; i < n; i++)
    if (tt_label_take(opts[i].label, ev)) return i;
  return -1;
}

/* Are the last n bytes of the file zeros (a tape or a block device's padding)? Read on the warning's
** path only. Every rank exporting to one .gz path (each truncating it and writing its stream from
** the start) leaves a shorter stream written last whole over a longer one, whose end follows it. */
static int zeros_at_end(const char *path, uint64_t n) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return 1;
  int zeros = fseeko(fp, -(off_t)n, SEEK_END) == 0, c;
  while (zeros && (c = getc(fp)) != EOF) zeros = c == 0;
  fclose(fp);
  return zeros;
}

/* Feed the file through the framer into rs[0, nr), each read as opts[i] says: one rank, or the
** ranks of a merged file, each event to the rank its label names (opts[i].label), in one pass. */
static int read_into_n(tt_import *imp, tt_rank **rs, const tt_options *opts, int nr, const char *path) {
  char err[512];
  tt_source *src = tt_source_open(path, err, sizeof err);
  if (!src) return xp_error(XP_EXIT_USAGE, "%s", err);
  progress pg = {0};
  pg.on = opts[0].progress && tt_source_file_size(src) > PROGRESS_MIN;
  pg.tty = isatty(2);
  pg.path = path;
  tt_framer f;
  tt_framer_init(&f, MAX_UNIT);
  window w = {0};
  carry_reserve(&w, 64 << 10);
  uint64_t base = 0; /* document offset of buf[0] */
  tt_event *ev = xp_xmalloc(sizeof *ev);
  char clipped[32]; /* an activity's "dur" as clipped (tt_clip_event) */
  const int labelled = opts[0].label != NULL; /* a register's test per event, not a load */
  int rc = 0, eof = 0;
  size_t len = 0, pos = 0;
  for (;;) {
    const char *data = NULL;
    size_t n = 0;
    int got = tt_source_next(src, &data, &n, err, sizeof err);
    if (got < 0) {
      rc = xp_error(XP_EXIT_USAGE, "%s", err);
      break;
    }
    if (got == 0) eof = 1;
    char *buf;
    window_next(&w, got ? (char *)data : NULL, n, &buf, &len);
    pos = 0;
    if (xp_interrupted()) {
      rc = XP_EXIT_ABORTED;
      break;
    }
    for (int stop = 0; !stop && !rc;) {
      tt_slice k, v;
      switch (tt_framer_next(&f, buf, len, &pos, eof, ev, &k, &v)) {
        case TT_UNIT_EVENT: {
          const int i = labelled ? label_of(opts, nr, ev) : 0;
          if (i < 0) break; /* no rank's of a merged file read */
          const tt_options *const opt = &opts[i];
          tt_rank *const r = rs[i];
          if (opt->on_event && tt_event_kept_now(ev, opt) && keep_event(r, ev, opt)) rc = XP_EXIT_DB;
          if (opt->clips && tt_clip_event(opt->clips, ev, clipped, sizeof clipped)) break; /* a copy */
          if (!rc && !opt->scan_only && (rc = tt_rank_event(imp, r, ev, opt, err, sizeof err)) != 0)
            rc = rc == TT_NOT_KEPT ? XP_EXIT_DB : bad(path, base + (size_t)(ev->text.p - buf), ev->number, err);
          break;
        }
        case TT_UNIT_META: /* the top-level keys: every rank's */
          for (int i = 0; i < nr && !rc; i++)
            if (tt_rank_meta(imp, rs[i], k, v, err, sizeof err))
              rc = bad(path, base + (size_t)(k.p - 1 - buf), f.events, err);
          break;
        case TT_UNIT_MORE:
        case TT_UNIT_END:
          stop = 1;
          break;
        case TT_UNIT_ERROR:
          rc = bad(path, base + f.err_pos, f.events, f.err);
          break;
      }
    }
    if (rc || eof) break;
    window_keep(&w, buf, pos, len);
    base += pos;
    progress_show(&pg, src, 0);
  }
  if (!rc) progress_show(&pg, src, 1);
  else if (pg.on && pg.tty) fputc('\n', stderr);
  for (int i = 0; i < nr; i++) rs[i]->json_bytes = base + len, rs[i]->nonfinite = f.nonfinite;
  free(ev);
  free(w.carry);
  if (!rc && tt_source_trailing(src))
    xp_warn("%s: %llu bytes after the end of the gzip stream ignored, as gzip -d ignores them: %s", path,
            (unsigned long long)tt_source_trailing(src),
            zeros_at_end(path, tt_source_trailing(src))
                ? "zero padding"
                : "not zeros: junk, or the end of a longer trace that another process wrote into this path at once, "
                  "this one written over its start (several ranks exporting to one .gz path?)");
  tt_source_close(src);
  if (rc) return rc;
  if (!f.saw_events)
    return xp_error_at(XP_EXIT_USAGE, path, 0, "not a torch.profiler trace: no \"traceEvents\" array");
  return 0;
}

static int read_into(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  return read_into_n(imp, &r, opt, 1, path);
}

int tt_scan_file(tt_import *imp, const char *path, const tt_label *label,
                 int (*fn)(void *ctx, const tt_rank *r, const tt_event *ev), void *ctx) {
  tt_rank *r = xp_xcalloc(1, sizeof *r); /* for the top-level keys read_into hands it */
  r->meta = cJSON_CreateObject();
  tt_options scan = {0};
  scan.rank = -1;
  scan.on_event = fn;
  scan.event_ctx = ctx;
  scan.scan_only = 1;
  scan.label = label;
  const int rc = read_into(imp, r, path, &scan);
  tt_rank_free(r);
  return rc;
}

/* What the profiler wrote wrong and the import left out or mended, said once per file. */
static void warn_mended(const tt_rank *r) {
  if (r->neg_dur)
    xp_warn("%s: %lld GPU activit%s with a negative duration (Kineto before 2022) counted as 0 ns", r->file,
            (long long)r->neg_dur, r->neg_dur == 1 ? "y" : "ies");
  if (r->gpu_before_cpu)
    xp_warn("%s: %lld GPU activit%s timed a minute or more before the trace's first CPU event (\"ts\": 0?) "
            "left out", r->file, (long long)r->gpu_before_cpu, r->gpu_before_cpu == 1 ? "y" : "ies");
  if (r->not_complete)
    xp_warn("%s: %lld GPU event%s that %s not complete (\"ph\" other than \"X\", \"B\" and \"E\") left out", r->file,
            (long long)r->not_complete, r->not_complete == 1 ? "" : "s", r->not_complete == 1 ? "is" : "are");
  if (r->scope_copies)
    xp_warn("%s: %lld kernel cop%s the XPU scope profiler wrote to carry its metrics (\"metrics: NAME\", no "
            "correlation) left out: each kernel counts once", r->file, (long long)r->scope_copies,
            r->scope_copies == 1 ? "y" : "ies");
  if (r->steps_not_complete)
    xp_warn("%s: %lld step annotation event%s not complete (\"ph\" other than \"X\", \"B\" and \"E\": an instant, an "
            "async \"b\" or \"e\" with no pair) left out: only complete events, \"B\"/\"E\" and async \"b\"/\"e\" pairs "
            "mark steps", r->file, (long long)r->steps_not_complete, r->steps_not_complete == 1 ? "" : "s");
  if (r->bad_steps)
    xp_warn("%s: %lld step annotation%s with a negative duration left out", r->file, (long long)r->bad_steps,
            r->bad_steps == 1 ? "" : "s");
  if (r->dup_steps)
    xp_warn("%s: %lld step number%s annotated twice, apart: each kept as a step of its own", r->file,
            (long long)r->dup_steps, r->dup_steps == 1 ? "" : "s");
  if (r->nonfinite)
    xp_warn("%s: %llu NaN or infinite value%s (not JSON; Kineto wrote inf for a zero-duration copy's bandwidth) "
            "read where no field xp uses held them", r->file, (unsigned long long)r->nonfinite,
            r->nonfinite == 1 ? "" : "s");
}

/* What marked the file's steps, where it is not what the user would assume. A trace from vLLM's
** or SGLang's profiler hook has no ProfilerStep#N (the engine starts and stops the profiler
** without stepping it) but an annotation around each step whose name carries the batch: the
** warning names the option that marks steps by them. */
static void warn_steps(const tt_rank *r, const char *path, const tt_options *opt) {
  if (opt->step_annotation && r->steps.n == 0) {
    xp_warn("%s: no \"%s\" annotations: per-step figures are empty", path, opt->step_annotation);
  } else if (r->window_step) {
    int e = r->engine_steps[1] > r->engine_steps[0];
    if (r->engine_steps[e])
      xp_warn("%s: no ProfilerStep#N annotations: its whole GPU window counts as one step; it has %lld %s step "
              "annotations: --step-annotation '%s' marks a step by each", path, (long long)r->engine_steps[e],
              e ? "SGLang" : "vLLM", tt_engine_steps[e]);
    else
      xp_warn("%s: no ProfilerStep#N annotations: its whole GPU window counts as one step "
              "(--step-annotation NAME, or NAME* for every annotation starting with NAME, marks steps by an "
              "annotation)", path);
  } else if (!opt->step_annotation && r->steps.n == 0) {
    xp_warn("%s: no ProfilerStep#N annotations and no GPU activity: per-step figures are empty", path);
  }
}

static tt_rank *new_rank(const char *path, const tt_options *opt) {
  tt_rank *r = xp_xcalloc(1, sizeof *r);
  r->file = xp_strdup(path);
  r->rank = r->trace_rank = r->world_size = r->device = -1;
  r->name_rank = tt_name_rank(path, &r->name_form);
  r->cpu_min = r->launch_min = r->kept_min = INT64_MAX;
  r->dropped_max = INT64_MIN;
  r->floor_given = opt->gpu_floor != NULL;
  r->gpu_floor = opt->gpu_floor ? *opt->gpu_floor : INT64_MIN;
  r->meta = cJSON_CreateObject();
  return r;
}

/* r, the import's last rank from now */
static void push_rank(tt_import *imp, tt_rank *r) {
  imp->ranks = xp_xrealloc(imp->ranks, (size_t)(imp->nranks + 1) * sizeof *imp->ranks);
  imp->ranks[imp->nranks++] = r;
}

/* r, the last rank read, is read again another way (per device): it goes. */
static void drop_last_rank(tt_import *imp, tt_rank *r) {
  imp->ranks[--imp->nranks] = NULL;
  tt_rank_free(r);
}

static int by_value(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* A read again that leaves out what an earlier read of the file did not (a device's strays, other
** processes' CPU side): the events kept (--events) on that read are forgotten and this one writes
** them again, so that they follow the figures. Without --events nothing is kept. 0, or
** XP_EXIT_DB. */
static int keep_events_anew(const tt_options *opt, tt_options *again) {
  again->on_event = NULL;
  again->keep_halves = 0; /* this read keeps them, if any */
  if (!opt->events_kept) return 0;
  if (opt->events_kept->forget(opt->events_kept->ctx)) return XP_EXIT_DB;
  again->on_event = opt->events_kept->event;
  again->event_ctx = opt->events_kept->ctx;
  return 0;
}

/* A rank named for the file (distributedInfo.rank, --ranks, the one its record_param_comms
** name, or its file's name), and GPU activity on several devices, nearly all of it on one: a rank's trace with a few strays elsewhere (a context made on
** cuda:0 before set_device, a library's probe kernel), not a process that drove several GPUs.
** Refusing would lose the rank over them, adding them would count two GPUs as one: the rank is
** read again on its main device, and what ran elsewhere is left out, said with its count. A
** device is main when it ran at least 95% of the file's kernels (so at most 5% of the counts
** is left out, said in the warning); else -1, and the caller refuses. Events kept per file
** (--events) were written on the first read, every device's: forgotten and written again on
** this read, which leaves the strays out of them as of the figures. */
static int keep_main_device(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  int main = 0;
  int64_t kernels = 0;
  for (int i = 0; i < r->ndevices; i++) {
    kernels += r->dev_kernels[i];
    if (r->dev_kernels[i] > r->dev_kernels[main]) main = i;
  }
  const int64_t strays = kernels - r->dev_kernels[main];
  if (kernels == 0 || strays * 20 > kernels) return -1;
  int64_t dev = r->devices[main], left = 0;
  for (int i = 0; i < r->ndevices; i++)
    if (i != main) left += r->dev_activities[i];
  xp_warn("%s: GPU activity on %d devices under one rank: read on device %lld, which ran %lld of %lld kernels; "
          "%lld activit%s on the other devices left out (%lld kernel%s)%s", path, r->ndevices, (long long)dev,
          (long long)(kernels - strays), (long long)kernels, (long long)left, left == 1 ? "y" : "ies",
          (long long)strays, strays == 1 ? "" : "s", opt->events_kept ? ", of the events kept too" : "");
  const int procs = r->launch_procs > 1;
  drop_last_rank(imp, r);
  tt_options one = *opt;
  one.device = &dev;
  one.main_device = 1;
  tt_pid proc;
  int owned = 0;
  if (procs) { /* the strays' process's CPU side is not the rank's (tt_owner.c) */
    int64_t rank;
    int rc = tt_device_owners(imp, path, opt->label, &dev, 1, &proc, &owned, &rank);
    if (rc) return rc;
  }
  if (owned) one.proc = &proc;
  if (keep_events_anew(opt, &one)) return XP_EXIT_DB;
  return tt_read_file(imp, path, &one);
}

/* The ranks of a file's devices dev[0, n) (sorted), where the command line or the trace gives
** them, else -1 (numbered once every file is read, tt_import_finish):
**   - a rank given for the file (--rank, --ranks) is its first device's, the others' follow in
**     device order;
**   - a process with a rank in the job (a file of one process: its distributedInfo.rank; of
**     several: the rank each process's record_param_comms name, procs_rank, tt_owner.c) that drove
**     k of the devices gives them rank * k + their place among them in device order, as c10d
**     numbered the NCCL ranks of a process driving several GPUs (ProcessGroupNCCL before torch
**     2.0: getRank() * devices.size() + i, of getSize() * devices.size() ranks); a process
**     that drove one device gives it its own rank. A file of several processes has one
**     distributedInfo, one process's: it numbers none of them.
**     A file of one process without distributedInfo numbers none here: each device is ranked
**     once read, by the calls of its own collectives (rank_by_own_calls).
** Returns the rank source ("option", "trace" from distributedInfo, "comms" from the processes'
** calls, or NULL where some device has none). */
static const char *device_ranks(int n, const tt_options *opt, int procs, int64_t trace_rank, const tt_pid *proc,
                                const int *owned, const int64_t *procs_rank, int64_t *rank) {
  const char *source = opt->rank >= 0 ? "option" : procs ? "comms" : "trace";
  for (int i = 0; i < n; i++) {
    const int64_t of = procs ? (owned[i] ? procs_rank[i] : -1) : trace_rank; /* the process's rank */
    int k = procs ? 0 : n, place = procs ? 0 : i;
    /* k: the devices of the same process; place: those of them before this one */
    for (int j = 0; procs && owned[i] && j < n; j++)
      if (owned[j] && tt_pid_same(&proc[j], &proc[i])) k++, place += j < i;
    if (opt->rank >= 0) rank[i] = opt->rank + i;
    else rank[i] = of >= 0 && of <= (INT64_MAX - TT_MAX_DEVICES) / TT_MAX_DEVICES ? of * k + place : -1;
    if (rank[i] < 0) source = NULL;
  }
  return source;
}

/* The devices d[0, n) of a file of one process whose trace names no rank (no distributedInfo, no
** --rank): each takes the rank that the calls of its own collective kernels name (tt_rank.own), where
** they name one and no other device's calls name it too, with the world's size they give (the job's,
** which the file's other devices share). The process's calls alone cannot number its GPUs: c10d
** drives one GPU a process, and a call of another device is another rank's (a process that drove
** several ranks' GPUs, one a thread); one call whose kernels ran on two devices (c10d of PyTorch
** before 2.3, one process driving several GPUs: pytorch/pytorch#117756) is the process's, and
** names no device's rank: its calls of that time named no rank either. The others are numbered
** once every file is read (tt_import_finish), with why their trace names no rank (tt_rank.unranked). */
static void rank_by_own_calls(tt_rank **d, int n, int calls_rank) {
  int64_t world = -1;
  for (int i = 0; i < n; i++) {
    int64_t own = tt_comms_rank(&d[i]->own);
    for (int j = 0; j < n && own >= 0; j++)
      if (j != i && tt_comms_rank(&d[j]->own) == own) own = -1;
    if (own < 0) {
      d[i]->unranked = !calls_rank ? "neither distributedInfo nor the process's record_param_comms name one (PyTorch's "
                                     "named none while c10d drove several GPUs from one process)"
                       : d[i]->own.ranks == 0 ? "the file has no distributedInfo and no record_param_comms of the device's "
                                                "own collectives names one"
                       : d[i]->own.rank_lo != d[i]->own.rank_hi ? "the record_param_comms of the device's own "
                                                                  "collectives name several ranks"
                       : "the record_param_comms of the device's own collectives name another device's rank too";
      continue;
    }
    d[i]->rank = own;
    d[i]->number_later = 0;
    d[i]->rank_source = "comms";
    if (tt_comms_world(&d[i]->own) > 0) world = tt_comms_world(&d[i]->own);
  }
  for (int i = 0; i < n && world > 0; i++)
    if (d[i]->world_size < 0) d[i]->world_size = world;
  char list[TT_MAX_DEVICES * 48] = ""; /* room for every device and rank of 20 digits */
  for (int i = 0, at = 0; i < n && at < (int)sizeof list; i++)
    if (!d[i]->number_later)
      at += snprintf(list + at, sizeof list - (size_t)at, "%sdevice %lld is rank %lld", at ? ", " : "",
                     (long long)d[i]->device, (long long)d[i]->rank);
  if (list[0])
    xp_warn("%s: no distributedInfo.rank in the trace: %s, as the record_param_comms of the device's own collectives "
            "name it", d[0]->file, list);
}

/* One process that drove several GPUs (single-process tensor or pipeline parallelism) wrote
** them all into one trace, each under its own pid; or several processes' traces were merged into
** one file. A rank is one GPU to every figure xp keeps (busy time, step GPU time, collectives
** matched across ranks): counted as one, the devices' times would add up as if one GPU had run
** them all. So each device is read again as a rank of its own, with the CPU side (steps,
** operators, launches) of the process that launched its work, and its rank from device_ranks.
** Where events are kept per file (--events), there is no rank to give each: refused, on
** whichever read finds the devices (tt_options.events_kept, set on every read, where a read
** again has no on_event): label_events gives file i's events the rank imp->ranks[i]. r (the
** whole file) is dropped. */
static int split_devices(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  int64_t dev[TT_MAX_DEVICES], copies = 0;
  const int kept = r->ndevices < TT_MAX_DEVICES ? r->ndevices : TT_MAX_DEVICES;
  int n = 0, driven = 0;
  for (int i = 0; i < kept; i++) driven += r->dev_kernels[i] > 0;
  /* beside GPUs that ran kernels, one that ran none holds peer copies (see peer_copies_only),
  ** not a GPU the process drove: no rank of its own */
  for (int i = 0; i < kept; i++)
    if (driven < 2 || r->dev_kernels[i]) dev[n++] = r->devices[i];
    else copies += r->dev_activities[i];
  qsort(dev, (size_t)n, sizeof *dev, by_value);
  /* a rank named for the file: a rank's trace with strays on other devices, where one device ran
  ** nearly all (keep_main_device, --events or not), else a process that drove them all */
  if (r->ndevices <= TT_MAX_DEVICES &&
      (r->trace_rank >= 0 || opt->rank >= 0 || tt_comms_rank(&r->comms) >= 0 || r->name_rank >= 0)) {
    int rc = keep_main_device(imp, r, path, opt);
    if (rc >= 0) return rc;
  }
  const char *why = r->ndevices > TT_MAX_DEVICES ? "more than 16 of them"
                    : opt->events_kept ? "--events keeps a file's events under one rank" : NULL;
  if (why) /* a merged file's processes each drove one (launch_procs: those whose launches it holds) */
    return xp_error_at(XP_EXIT_USAGE, path, 0,
                       "GPU activity on devices %lld and %lld%s: %s drove several GPUs, and xp counts "
                       "one GPU per rank, but %s", (long long)dev[0], (long long)dev[1], n > 2 ? " and more" : "",
                       r->launch_procs > 1 ? "the file's processes" : "one process", why);
  const int procs = r->launch_procs > 1, calls_rank = r->comms.ranks > 0;
  const int64_t trace_rank = r->trace_rank, world = r->world_size;
  drop_last_rank(imp, r);
  tt_pid proc[TT_MAX_DEVICES];
  int owned[TT_MAX_DEVICES];
  int64_t procs_rank[TT_MAX_DEVICES], rank[TT_MAX_DEVICES] = {0};
  memset(owned, 0, sizeof owned);
  if (procs) {
    int rc = tt_device_owners(imp, path, opt->label, dev, n, proc, owned, procs_rank);
    if (rc) return rc;
  }
  const char *source = device_ranks(n, opt, procs, trace_rank, proc, owned, procs_rank, rank);
  /* how they are numbered, where known now (number_devices says the rest) */
  char how[256] = "";
  int known = 0;
  for (int i = 0; i < n; i++) known += rank[i] >= 0;
  if (source && opt->rank >= 0)
    snprintf(how, sizeof how, ": ranks %lld to %lld, from the rank given for the file, in device order",
             (long long)rank[0], (long long)rank[n - 1]);
  else if (source && !procs)
    snprintf(how, sizeof how, ": ranks %lld to %lld (distributedInfo.rank %lld times %d devices, then each device's "
             "place, as c10d numbered a process's GPUs)", (long long)rank[0], (long long)rank[n - 1],
             (long long)trace_rank, n);
  else if (known)
    snprintf(how, sizeof how, "; %s the rank of its process, as that process's record_param_comms name it",
             source ? "each" : "where known,");
  if (procs)
    xp_warn("%s: GPU activity on %d devices, launched by several processes: each device is a rank of its own, "
            "with the CPU side of the process that launched its work%s", path, n, how);
  else
    xp_warn("%s: GPU activity on %d devices (one process drove several GPUs): each is a rank of its own%s", path, n,
            how);
  if (copies)
    xp_warn("%s: %lld cop%s on GPUs that ran no kernel (peer copies) left out: the trace does not say which of "
            "the process's GPUs made them", path, (long long)copies, copies == 1 ? "y" : "ies");
  for (int i = 0; i < n; i++) {
    tt_options one = *opt;
    one.device = &dev[i];
    one.rank = -1; /* set below: the read would take the trace's one rank for every device */
    one.proc = owned[i] ? &proc[i] : opt->proc; /* a file read again with its launching process's (read_launcher) */
    if (procs && !owned[i])
      xp_warn("%s: device %lld: no process's launches carry its activities' ids more than another's: read with "
              "every process's operators, steps and launches, whose ids may collide", path, (long long)dev[i]);
    one.progress = 0;
    int rc = tt_read_file(imp, path, &one);
    if (rc) return rc;
    tt_rank *d = imp->ranks[imp->nranks - 1];
    d->split = 1;
    d->rank = rank[i];
    d->number_later = rank[i] < 0;
    d->rank_source = rank[i] < 0 ? "default" : opt->rank >= 0 ? "option" : procs ? "comms" : "trace";
    /* a file of one process: its world size counts processes, each (as this one) of n GPUs */
    if (!procs) d->world_size = world > 0 && world <= INT64_MAX / TT_MAX_DEVICES ? world * n : -1;
  }
  if (!procs && !source) rank_by_own_calls(imp->ranks + imp->nranks - n, n, calls_rank);
  return 0;
}

/* Several devices, but kernels on one only: the others hold copies the process made to or
** from a peer GPU ("Memcpy PtoP (Device -> Device)", which CUPTI files under the device the copy
** ran on). That process drove one GPU: its copies stay its own, as the trace records them, and
** the rank's device is the one its kernels ran on (which the first activity need not be). */
static int peer_copies_only(tt_rank *r) {
  if (r->ndevices > TT_MAX_DEVICES) return 0;
  int with_kernels = 0, own = 0;
  int64_t others = 0, first = INT64_MAX; /* the least other device: the same whatever the order */
  for (int i = 0; i < r->ndevices; i++)
    if (r->dev_kernels[i]) with_kernels++, own = i;
  if (with_kernels != 1) return 0;
  for (int i = 0; i < r->ndevices; i++)
    if (i != own) {
      others += r->dev_activities[i];
      if (r->devices[i] < first) first = r->devices[i];
    }
  r->device = r->devices[own];
  xp_warn("%s: %lld cop%s on %s GPU (device %lld%s) that ran no kernel (peer copies): counted as the rank's, "
          "on device %lld", r->file, (long long)others, others == 1 ? "y" : "ies",
          r->ndevices > 2 ? "other" : "another", (long long)first, r->ndevices > 2 ? " and more" : "",
          (long long)r->device);
  return 1;
}

/* The file read again (r goes) with `again`'s changes. Events kept (--events) were kept by the
** read before, with the rest, so this read keeps none. */
static int read_once_more(tt_import *imp, tt_rank *r, const char *path, tt_options *again) {
  again->on_event = NULL;
  again->keep_halves = 0;
  drop_last_rank(imp, r);
  return tt_read_file(imp, path, again);
}

/* The file read again where the order of its events decided what the first read made of it
** (r goes), so that no order of the events changes a figure; a trace written as Kineto writes
** it is read once. -1 where one read did. Events kept per file (--events) were written on the
** first read.
**   GPU activities were left out or kept by the CPU events read before them (tt_rank.c on_gpu):
** where the file wrote a kernel at "ts": 0 before its CPU events (GPU activities first, or
** reversed), or a CPU event earlier than those before it, the whole file's floor decides
** otherwise: read again with that floor.
**   An operator takes the step holding it when it is read (tt_rank.c on_cpu_op): the innermost
** of nested steps (an annotation within an annotation) only if the file wrote the inner one
** first; and of two operators under one External id the later written. Where the steps nest
** once all are read, or an External id was shared: read again with every operator's step
** decided at the end and the innermost of a shared id kept (tt_options.op_times).
**   Activities whose External id was their correlation (Kineto of 2022-23), or with no
** correlation their launch's (ROCm's oldest), name no operator, and the operators around their
** launches, which do, came before them: read again keeping every operator's time and thread
** (tt_options.op_tree, tt_tree.c), where the file holds operators and such launches at all.
**   Activities that neither an operator's External id nor a correlation places, in a file that
** holds flows ("ac2g"): read again keeping the flows, which may give their launches
** (tt_options.flows, tt_flow.c). */
static int read_again(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  int64_t floor = r->cpu_min - TT_GPU_BEFORE_CPU;
  const int by_floor = !r->floor_given && r->cpu_min != INT64_MAX && (r->kept_min < floor || r->dropped_max >= floor);
  const int by_ops = !opt->op_times && ((r->op_stepped && !tt_steps_disjoint(&r->steps)) || r->ext_shared);
  const int ext_of_launch = (r->ext_is_corr && r->launches.n) ||
                            (r->hip && !r->hip_ext_ops && r->ext_no_corr && r->ext_launches.n);
  const int by_tree = !opt->op_tree && ext_of_launch && r->cpu_ops;
  const int by_flows = !opt->flows && r->flow_wants && r->flow_events;
  if (!by_floor && !by_ops && !by_tree && !by_flows) return -1;
  tt_options again = *opt;
  if (by_floor) again.gpu_floor = &floor;
  if (by_ops) again.op_times = 1;
  if (by_tree) again.op_tree = 1;
  if (by_flows) again.flows = 1;
  return read_once_more(imp, r, path, &again);
}

/* One process made every launch of the file, and operators or annotations of other processes are
** in it too: a data loader's, a tokenizer's, profiled beside the GPU worker. They are no CPU side
** of the GPU's work: read with them, the rank counts their operators, takes their step
** annotations for its steps and, as each process numbers its External ids from its own start,
** links kernels to another process's operator by an id that collides. A file of several devices
** is read per device with the process that launched its work (split_devices, tt_owner.c); the
** one process known here, the file is read again (r goes) with its CPU side alone
** (tt_options.proc), whatever its devices, and the others said with their count. Events kept
** (--events) on an earlier read are forgotten and written again on this one, which leaves the
** others out as of the figures. Only the categories a read leaves out as another process's
** (tt_event_elsewhere) are noted (tt_rank.cpu_pids), which Kineto's pseudo-processes (a GPU's
** "pid", its device; "Spans", "Traces") do not write. -1 where no other process wrote any, where
** the launches are none's or several processes' (the split's owners decide), or on that read. */
static int read_launcher(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  if (opt->proc || r->launch_procs != 1) return -1;
  const int listed = r->ncpu_pids < TT_CPU_PIDS ? r->ncpu_pids : TT_CPU_PIDS;
  int others = listed;
  for (int i = 0; i < listed; i++)
    if (tt_pid_same(&r->cpu_pids[i], &r->launch_pid)) others--;
  if (r->ncpu_pids > TT_CPU_PIDS) others = TT_CPU_PIDS; /* more than listed: at least all but one */
  if (others <= 0) return -1;
  const tt_pid proc = r->launch_pid;
  xp_warn("%s: operators and annotations of %s%d process%s that made no GPU launch (a data loader's, profiled "
          "beside the GPU worker?) left out%s: the rank's CPU side is that of pid %.*s, which made every launch",
          path, r->ncpu_pids > TT_CPU_PIDS ? "at least " : "", others, others == 1 ? "" : "es",
          opt->events_kept ? ", of the events kept too" : "", (int)proc.n, proc.p);
  tt_options again = *opt;
  again.proc = &proc;
  if (keep_events_anew(opt, &again)) return XP_EXIT_DB;
  drop_last_rank(imp, r);
  return tt_read_file(imp, path, &again);
}

static int read_done(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt);

/* A merged file whose GPU activities' pids carry rank labels (tt_label.c: SGLang's profile
** merger), each label a rank's process and GPU. Read as one, the ranks' kernel times would add
** up as one GPU's, their ids collide and no collective pairs across them: the file is read again
** (r goes) once per label, with that label's events alone and their pids as the rank's own trace
** wrote them, as if each were the rank's own file; each rank is its label's (tt_labels_number,
** kept as the trace's), or from the rank given for the file in the labels' order. A label that
** does not number a rank is refused, said why; a file whose GPU activities are not all labelled
** is read as before, said. -1 where the file has no labels, or this is such a read. */
static int read_labels(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  if (opt->label || !r->labels.n) return -1;
  char first[TT_LABEL_MAX + 2], last[TT_LABEL_MAX + 2], why[320];
  tt_label *l = r->labels.data;
  const int n = (int)r->labels.n;
  if (r->ndevices || r->gpu_unlabelled) return -1; /* some under a number, or a string no label: warn_unlabelled */
  if (tt_labels_number(l, n, r->world_size, why, sizeof why))
    return xp_error_at(XP_EXIT_USAGE, path, 0, "ranks merged into one file, its pids labelled by rank (as SGLang's "
                       "profile merger writes them): %s", why);
  tt_label_text(&l[0], first, sizeof first);
  tt_label_text(&l[n - 1], last, sizeof last);
  if (opt->events_kept)
    return xp_error_at(XP_EXIT_USAGE, path, 0, "%d ranks merged into one file (its pids labelled %s to %s), and xp "
                       "counts one GPU per rank, but --events keeps a file's events under one rank", n, first, last);
  xp_warn("%s: %d rank%s merged into one file, its pids labelled %s%s%s as SGLang's profile merger labels a rank's: "
          "each label's process and GPU are read as a rank, %s", path, n, n == 1 ? "" : "s", first, n > 1 ? " to " : "",
          n > 1 ? last : "", opt->rank >= 0 ? "numbered from the rank given for the file, in the labels' order"
          : l[0].pp >= 0 ? "TP size * PP + TP, as SGLang numbers its processes" : "the label's TP rank");
  tt_label *labels = xp_xmalloc((size_t)n * sizeof *labels);
  memcpy(labels, l, (size_t)n * sizeof *labels);
  drop_last_rank(imp, r);
  /* the labels' ranks read in one pass, where a read per label read an N ranks' file N + 1 times;
  ** then each finished (or read again, alone, where it asks for it) as its own file would be */
  tt_options *one = xp_xmalloc((size_t)n * sizeof *one);
  tt_rank **rs = xp_xmalloc((size_t)n * sizeof *rs);
  for (int i = 0; i < n; i++) {
    one[i] = *opt;
    one[i].label = &labels[i];
    one[i].rank = opt->rank >= 0 ? opt->rank + i : -1;
    one[i].progress = 0;
    rs[i] = new_rank(path, &one[i]);
  }
  int rc = read_into_n(imp, rs, one, n, path);
  for (int i = 0; i < n; i++) {
    if (rc) {
      tt_rank_free(rs[i]);
      continue;
    }
    const int from = imp->nranks;
    push_rank(imp, rs[i]);
    rc = read_done(imp, rs[i], path, &one[i]);
    for (int k = from; k < imp->nranks; k++) imp->ranks[k]->split = 1;
  }
  free(rs);
  free(one);
  free(labels);
  return rc;
}

/* A file whose GPU activities carry rank labels, but not all of them (read_labels): read as one
** rank, said once, on the read that makes it. */
static void warn_unlabelled(const tt_rank *r, const char *path) {
  if (!r->labels.n) return;
  int64_t unlabelled = r->gpu_unlabelled;
  for (int i = 0; i < r->ndevices && i < TT_MAX_DEVICES; i++) unlabelled += r->dev_activities[i];
  char first[TT_LABEL_MAX + 2];
  xp_warn("%s: %lld GPU activities under rank labels (%s, as SGLang's profile merger writes a merged file's pids) "
          "and %lld%s without one: read as one rank", path, (long long)(r->kernels + r->memcpys + r->memsets - unlabelled),
          tt_label_text(XP_VEC_AT(&r->labels, tt_label, 0), first, sizeof first), (long long)unlabelled,
          r->ndevices > TT_MAX_DEVICES ? " or more" : "");
}

/* B/E events left out of the pairing (tt_pair.c), said once per file. */
static void warn_unpaired(const char *path, const tt_pairing *p) {
  const int64_t all = p->open_b + p->lone_e + p->untimed;
  if (!all) return;
  char what[3][96];
  int n = 0;
  if (p->open_b)
    snprintf(what[n++], sizeof what[0], "%lld \"B\" with no \"E\" (a profile cut off?)", (long long)p->open_b);
  if (p->lone_e)
    snprintf(what[n++], sizeof what[0], "%lld \"E\" with no \"B\" open on its thread", (long long)p->lone_e);
  if (p->untimed) snprintf(what[n++], sizeof what[0], "%lld without a valid \"ts\"", (long long)p->untimed);
  xp_warn("%s: %lld \"B\"/\"E\" event%s left out unpaired: %s%s%s%s%s", path, (long long)all, all == 1 ? "" : "s",
          what[0], n > 1 ? ", " : "", n > 1 ? what[1] : "", n > 2 ? ", " : "", n > 2 ? what[2] : "");
}

/* A file with "B"/"E" duration events (not Kineto's): the first read only noted each of them;
** they are paired now, by thread and time (tt_pair.c), and the file is read again with the
** pairs known, each pair read as its complete event (r goes). Before the other reads again,
** which look at what that read makes of the file. -1 where the file has none, or this is that
** read. */
static int read_paired(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  tt_pairing pairs;
  if (opt->pairs || !tt_be_pair(r->be, &pairs)) return -1;
  tt_options again = *opt;
  again.pairs = &pairs;
  again.on_event = NULL; /* kept on the first read, but for the halves it left to their pairs */
  again.keep_halves = opt->on_event != NULL;
  drop_last_rank(imp, r);
  const int rc = tt_read_file(imp, path, &again);
  if (!rc) warn_unpaired(path, &pairs);
  tt_pairing_free(&pairs);
  return rc;
}

/* Events written "ts": 0 and "dur": 0 where no other time of the trace is within a minute of 0
** (TT_NEAR_ZERO): no times, as PyTorch 2.12's export_chrome_trace writes most events of a
** trace's second half (pytorch/pytorch#188481). Read, CPU events at 0 stretch the window back
** to 0 and steps, operators, launches and activities count with no time: the file is read again
** (r goes) with all of them left out, so that every figure is the timed events', and they are
** said once for the file with their count, which the run keeps (trace.untimed_events). After
** the read that pairs "B"/"E" events (a pair can be untimed too) and before every other read
** again, which look at what the timed events make of the file; the first read found them, so a
** file without them is read once. -1 where there are none, or this is that read. */
static int read_untimed(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  const int64_t cpu = r->zero_cpu, gpu = r->zero_gpu;
  if (opt->untimed_out || cpu + gpu == 0 || r->near_zero) return -1;
  tt_options again = *opt;
  again.untimed_out = 1;
  /* the events kept (--events) by the reads before, with their times as written: kept anew */
  if (keep_events_anew(opt, &again)) return XP_EXIT_DB;
  drop_last_rank(imp, r);
  const int rc = tt_read_file(imp, path, &again);
  if (rc) return rc;
  imp->untimed_events += cpu + gpu;
  xp_warn("%s: %lld CPU event%s (operators, annotations, launches) and %lld GPU activit%s written with no time, "
          "\"ts\": 0 and \"dur\": 0 where the trace's other times are far from 0 (PyTorch 2.12's export_chrome_trace, "
          "pytorch/pytorch#188481), left out: the window, steps and figures are the timed events'", path,
          (long long)cpu, cpu == 1 ? "" : "s", (long long)gpu, gpu == 1 ? "y" : "ies");
  return 0;
}

/* The activities clipped (tt_clip.c), said once per file: how many, the time left out, the most. */
static void warn_clipped(const tt_import *imp, const char *path, const tt_clips *clips) {
  int64_t n = 0, cut = 0;
  const tt_clip *most = NULL;
  for (size_t i = 0; i < clips->list.n; i++) {
    const tt_clip *c = XP_VEC_AT(&clips->list, tt_clip, i);
    if (!c->applied) continue;
    n++, cut += c->end - c->to;
    if (!most || c->end - c->to > most->end - most->to) most = c;
  }
  if (!n) return;
  xp_warn("%s: %lld GPU activit%s outlast%s the next one on %s stream (an end the profiler wrote late, as ROCm "
          "traces hold): each ends where that one starts, as Perfetto draws it, %.3f ms left out in all (the most, "
          "%.3f ms, of %.80s)", path, (long long)n, n == 1 ? "y" : "ies", n == 1 ? "s" : "", n == 1 ? "its" : "their",
          cut / 1e6, (most->end - most->to) / 1e6, imp->names.str[TT_KEY_NAME(most->key)]);
}

/* The copies of GPU activities left out (tt_clip.c), said once per file: how many, and of what. */
static void warn_copies(const tt_import *imp, const char *path, const tt_clips *clips) {
  int64_t n = 0;
  const tt_clip *first = NULL;
  for (size_t i = 0; i < clips->list.n; i++) {
    const tt_clip *c = XP_VEC_AT(&clips->list, tt_clip, i);
    if (!c->dropped) continue;
    n += c->dropped;
    if (!first) first = c;
  }
  if (!n) return;
  xp_warn("%s: %lld GPU activit%s written again (the same name, stream, start, end, correlation and graph node id "
          "as one before: a trace merged with a copy of itself?): each counted once (the first, of %.80s)", path,
          (long long)n, n == 1 ? "y" : "ies", imp->names.str[TT_KEY_NAME(first->key)]);
}

/* The graph launches written again whose activities' copies were not told (tt_clip.c), said once
** per file: a CUDA graph launch without node ids (CUDA before 12) or a HIP one counts them all. */
static void warn_uneven(const char *path, const tt_clips *clips) {
  if (!clips->uneven) return;
  xp_warn("%s: %lld graph launch%s written again (the same correlation id and time as one before: a trace merged "
          "with a copy of itself?) whose activities are not each written as often: they are counted as written "
          "(the first, correlation %lld)", path, (long long)clips->uneven, clips->uneven == 1 ? "" : "es",
          (long long)clips->uneven_first);
}

/* Places holding an activity written more than once that nothing tells from like nodes of a
** graph launch's concurrent branches (tt_clip.c count_repeated), said once per file where they
** are most of the rank's places: as many like nodes are no graph's, a copy of part of the trace
** is. A few are left unsaid: like nodes, as graphs run them. */
static void warn_repeated(const char *path, const tt_clips *clips) {
  if (clips->repeated < 2 || clips->repeated * 2 <= clips->places) return;
  xp_warn("%s: %lld of the %lld places of GPU activities hold one written more than once (a graph launch's, or "
          "with no id, which nothing tells from like nodes of its concurrent branches): counted as written (a "
          "trace merged with a copy of part of itself?)", path, (long long)clips->repeated, (long long)clips->places);
}

/* GPU activities that outlast the next one on their stream, or are written again (tt_clip.c):
** the file is read again (r goes) with each ending where that one starts and the copies left
** out, so that every figure counts the same time, once. -1 where none is, or this is that read.
** Events kept per file (--events) were written on the first read, as the trace holds them. */
static int read_clipped(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  if (opt->clips) return -1;
  tt_clips clips = {0};
  const int found = tt_clips_find(r, &clips) != 0;
  int rc = -1;
  if (found) {
    tt_options again = *opt;
    again.clips = &clips;
    rc = read_once_more(imp, r, path, &again);
    if (!rc) warn_clipped(imp, path, &clips), warn_copies(imp, path, &clips);
  }
  if (rc <= 0) warn_uneven(path, &clips), warn_repeated(path, &clips);
  xp_vec_free(&clips.list);
  xp_vec_free(&clips.seen);
  return rc;
}

/* The file read into r, the last rank: read again where what the read found asks for it, else
** the rank finished. */
static int read_done(tt_import *imp, tt_rank *r, const char *path, const tt_options *opt) {
  int rc;
  /* a rank of a merged file: its distributedInfo is the first rank's, its label says its rank */
  if (opt->label) r->trace_rank = opt->label->rank;
  if ((rc = read_labels(imp, r, path, opt)) >= 0) return rc;
  if ((rc = read_paired(imp, r, path, opt)) >= 0) return rc;
  if ((rc = read_untimed(imp, r, path, opt)) >= 0) return rc;
  if ((rc = read_launcher(imp, r, path, opt)) >= 0) return rc;
  if ((rc = read_again(imp, r, path, opt)) >= 0) return rc;
  if ((rc = read_clipped(imp, r, path, opt)) >= 0) return rc;
  if (r->kernels + r->memcpys + r->memsets == 0) return no_gpu_activity(r, path, opt);
  if (r->ndevices > 1 && !opt->device && !peer_copies_only(r)) return split_devices(imp, r, path, opt);
  if (!opt->label) warn_unlabelled(r, path);
  tt_rank_done(imp, r, opt);
  warn_mended(r);
  warn_steps(r, path, opt);
  return 0;
}

int tt_read_file(tt_import *imp, const char *path, const tt_options *opt) {
  tt_rank *r = new_rank(path, opt);
  push_rank(imp, r);
  const int rc = read_into(imp, r, path, opt);
  return rc ? rc : read_done(imp, r, path, opt);
}

/* Whether the ranks name two hosts, whose clocks differ. */
static int other_hosts(const tt_rank *a, const tt_rank *b) {
  const char *ha = tt_rank_host(a), *hb = tt_rank_host(b);
  return ha && hb && strcmp(ha, hb) != 0;
}

/* Whether the two ranks' GPU windows overlap; with clocks, on different hosts' within the hosts'
** clock skew (tt_import.host_skew_ns) of each other. */
static int windows_overlap(const tt_import *imp, const tt_rank *a, const tt_rank *b, int clocks) {
  const int64_t slack = clocks && other_hosts(a, b) ? imp->host_skew_ns : 0;
  return a->gpu_start - slack <= b->gpu_end && b->gpu_start - slack <= a->gpu_end;
}

static int by_rank(const void *a, const void *b) {
  const int64_t x = (*(tt_rank *const *)a)->rank, y = (*(tt_rank *const *)b)->rank;
  return (x > y) - (x < y);
}

/* Devices of files whose traces name no rank (tt_rank.number_later) are numbered in the order
** the files were given, then by device (the order they were read in, whatever the order of
** events in a file), with the lowest ranks no other trace names: several nodes' files of one
** process driving its node's GPUs each are ranks 0..k-1, k..2k-1, ... in the order given. Each
** file's numbering is said. A world size no trace gives is every imported rank where all are of
** one file (that process's GPUs are the job), else unknown. */
static void number_devices(tt_import *imp) {
  tt_rank **known = xp_xmalloc((size_t)imp->nranks * sizeof *known);
  int nk = 0, one_file = 1;
  for (int i = 0; i < imp->nranks; i++) {
    if (imp->ranks[i]->rank >= 0) known[nk++] = imp->ranks[i];
    one_file &= strcmp(imp->ranks[i]->file, imp->ranks[0]->file) == 0;
  }
  qsort(known, (size_t)nk, sizeof *known, by_rank);
  int64_t next = 0;
  int k = 0;
  for (int i = 0; i < imp->nranks; i++) {
    tt_rank *a = imp->ranks[i];
    if (a->split && a->world_size < 0 && one_file) a->world_size = imp->nranks;
    if (!a->number_later) continue;
    for (; k < nk && known[k]->rank <= next; k++)
      if (known[k]->rank == next) next++;
    a->rank = next++;
  }
  free(known);
  for (int i = 0; i < imp->nranks;) { /* one line per file */
    int j = i;
    while (j < imp->nranks && imp->ranks[j]->number_later && strcmp(imp->ranks[j]->file, imp->ranks[i]->file) == 0) j++;
    if (j == i) {
      i++;
      continue;
    }
    /* why the trace names none: once for the file where its devices share the reason, else each's */
    const char *why = imp->ranks[i]->unranked;
    for (int d = i; d < j; d++)
      if (imp->ranks[d]->unranked != why) why = NULL;
    char list[TT_MAX_DEVICES * 192] = ""; /* room for every device, rank of 20 digits and reason */
    for (int d = i, at = 0, each = 0; d < j && at < (int)sizeof list; d++) {
      const char *own = why ? NULL : imp->ranks[d]->unranked;
      each |= own != NULL;
      at += snprintf(list + at, sizeof list - (size_t)at, "%sdevice %lld is rank %lld%s%s", d == i ? "" : each ? "; " : ", ",
                     (long long)imp->ranks[d]->device, (long long)imp->ranks[d]->rank, own ? ", as " : "", own ? own : "");
    }
    char what[256] = "one of its devices";
    if (j - i > 1) snprintf(what, sizeof what, "%d of its devices", j - i);
    if (why) snprintf(what + strlen(what), sizeof what - strlen(what), ", as %s", why);
    xp_warn("%s: no rank in the trace for %s: numbered in the order the files were given, then by device, with the "
            "lowest ranks no other trace names (--ranks gives a file's first): %s", imp->ranks[i]->file, what, list);
    i = j;
  }
}

/* The ranks of one import must be distinct ranks of one job. */
static int check_one_job(tt_import *imp) {
  number_devices(imp);
  for (int i = 0; i < imp->nranks; i++) {
    tt_rank *a = imp->ranks[i];
    if (a->rank < 0) {
      /* or they name two ranks: several processes' calls in a file of one GPU, none the rank's */
      char why[96] = "none";
      if (a->comms.ranks && a->comms.rank_lo != a->comms.rank_hi)
        snprintf(why, sizeof why, "several ranks (%lld to %lld), not one", (long long)a->comms.rank_lo,
                 (long long)a->comms.rank_hi);
      if (imp->nranks > 1)
        return xp_error_at(XP_EXIT_USAGE, a->file, 0,
                           "the trace has no distributedInfo.rank and its record_param_comms name %s; with several "
                           "files every trace (or its file's name: TensorRT-LLM's NAME-rank-N.json) must say its "
                           "rank, or --ranks R0,R1,... give them in the files' order",
                           why);
      a->rank = 0;
      a->rank_source = "default";
    }
  }
  for (int i = 0; i < imp->nranks; i++)
    for (int j = i + 1; j < imp->nranks; j++) {
      tt_rank *a = imp->ranks[i], *b = imp->ranks[j];
      /* one rank's windows apart in time: a schedule with repeat exports each cycle to a file
      ** of its own (tensorboard_trace_handler), and a directory of them holds every cycle */
      if (a->rank == b->rank && !windows_overlap(imp, a, b, 0))
        return xp_error_at(XP_EXIT_USAGE, b->file, 0,
                           "rank %lld again, profiled at another time (%s is rank %lld too, and their GPU "
                           "activity does not overlap): %s", (long long)b->rank, a->file, (long long)a->rank,
                           tt_name_stages(a, b)
                               ? "SGLang's --profile-by-stage writes each stage to a file of its own (-prefill, "
                                 "-decode); import each stage's files as a run of its own"
                               : "a profiler schedule writes each cycle to a file of its own; import each "
                                 "cycle's files as a run of its own");
      if (a->rank == b->rank)
        return xp_error_at(XP_EXIT_USAGE, b->file, 0, "rank %lld again (%s is rank %lld too)%s",
                           (long long)b->rank, a->file, (long long)a->rank,
                           a->split || b->split ? "; a file of several GPUs takes a rank for each, from its first"
                                                : tt_name_replicas(a, b));
      if (a->world_size >= 0 && b->world_size >= 0 && a->world_size != b->world_size)
        return xp_error_at(XP_EXIT_USAGE, b->file, 0,
                           "ranks of different jobs: world size %lld, but %s has world size %lld",
                           (long long)b->world_size, a->file, (long long)a->world_size);
      /* the devices of one file (split_devices) are one job however their work falls in time:
      ** one process that drove them one after the other (a model split across GPUs) */
      if (!windows_overlap(imp, a, b, 1) && strcmp(a->file, b->file) != 0 && !other_hosts(a, b))
        return xp_error_at(XP_EXIT_USAGE, b->file, 0,
                           "ranks of different jobs: its GPU activity (%.6f s to %.6f s) does not overlap that of "
                           "%s (%.6f s to %.6f s)",
                           b->gpu_start / 1e9, b->gpu_end / 1e9, a->file, a->gpu_start / 1e9, a->gpu_end / 1e9);
      /* on two hosts, the clocks may be further apart than the import allows: nothing in the traces
      ** tells it from another job of the same program (same groups, sizes, Seq numbers), so the
      ** user says how far (--host-skew) */
      if (!windows_overlap(imp, a, b, 1) && strcmp(a->file, b->file) != 0)
        return xp_error_at(XP_EXIT_USAGE, b->file, 0,
                           "ranks of different jobs, or of hosts whose clocks are more than %g s apart: its GPU "
                           "activity on %s (%.6f s to %.6f s) does not overlap that of %s on %s (%.6f s to %.6f s) "
                           "within %g s (--host-skew SECONDS allows hosts' clocks further apart)",
                           imp->host_skew_ns / 1e9, tt_rank_host(b), b->gpu_start / 1e9, b->gpu_end / 1e9, a->file,
                           tt_rank_host(a), a->gpu_start / 1e9, a->gpu_end / 1e9, imp->host_skew_ns / 1e9);
    }
  return 0;
}

/* Ranks of one job are profiled alike; one whose window stands in for steps the others mark
** makes the import's per-step figures a mix, and the user should know which rank it is. */
static void warn_mixed_steps(const tt_import *imp) {
  int windows = 0;
  for (int i = 0; i < imp->nranks; i++) windows += imp->ranks[i]->window_step;
  if (windows == 0 || windows == imp->nranks) return;
  for (int i = 0; i < imp->nranks; i++)
    if (imp->ranks[i]->window_step)
      xp_warn("%s: rank %lld's whole window counts as one step while the other ranks mark theirs: "
              "per-step figures mix the two", imp->ranks[i]->file, (long long)imp->ranks[i]->rank);
}

int tt_import_finish(tt_import *imp) {
  int rc = check_one_job(imp);
  if (rc) return rc;
  warn_mixed_steps(imp);
  imp->single_rank = imp->nranks == 1;
  return tt_match_ranks(imp);
}
