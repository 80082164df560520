/*
** The torch_trace kind: `xp import torch-trace FILE...` or a spec with kind = "torch_trace".
** All files of one invocation are the ranks of one job and become one run. Each file is read
** once, streaming (tt_read.c); the ranks are then matched (tt_match.c) and the aggregates
** written in the run's one results transaction (tt_store.c).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "tt_num.h"
#include "tt_source.h"
#include "tt_store.h"
#include "tt_trace.h"
#include "xp.h"
#include "xp_blob.h"

static const xp_field fields[] = {
    {"files", XP_T_STRINGS, 1, NULL, NULL, 0, 0,
     "trace files (.json or .json.gz), one per rank of one job (a file of several GPUs, or of ranks merged with "
     "their pids labelled as SGLang's --merge-profiles does: a rank each); relative to the spec"},
    {"rank", XP_T_INT, 0, NULL, NULL, 0, 1e9,
     "rank of a single trace that does not say it (or overrides it); of a file of several GPUs, its "
     "first GPU's, the others' following in device order (of a merged file's labels, in their ranks' order)"},
    {"ranks", XP_T_INTS, 0, NULL, NULL, 0, 1e9,
     "the ranks of the files, in their order, for traces that do not say them (no distributedInfo.rank, no "
     "record_param_comms naming one and no rank in the file's name, TensorRT-LLM's and vLLM's \"-rank-N\", "
     "vLLM's \"dp0_..._rankN\" or SGLang's \"-TP-N\"), or to "
     "override them; a "
     "file of several GPUs takes a rank "
     "for each, from the one given, in device order"},
    {"step_annotation", XP_T_STRING, 0, NULL, NULL, 0, 0,
     "annotation that marks one step (e.g. decode_step), or NAME* for every annotation starting "
     "with NAME (vLLM's steps: execute_context_*, SGLang's: step[*); default ProfilerStep#N, and a "
     "trace with none counts its whole GPU window as one step"},
    {"host_skew", XP_T_NUMBER, 0, NULL, NULL, 0, 1e6,
     "the most, in seconds, that the clocks of the traces' hosts may differ (default 10): ranks naming different "
     "hosts are one job where their GPU activity overlaps once widened by this much; nothing in the traces tells "
     "hosts whose clocks are further apart from another job of the same program, so only the user can say it"},
    {"events", XP_T_BOOL, 0, NULL, NULL, 0, 0, "also keep every event (trace_events), under its file's rank (a file of several GPUs "
     "or merged ranks is refused); off by default"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static int torch_trace_check(const xp_spec *spec) {
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(spec->root, "files"), *f;
  if (cJSON_GetArraySize(files) == 0) return xp_spec_error(spec, "files", "no trace files given");
  const int n = cJSON_GetArraySize(files);
  int i = 0, rc = 0;
  char **paths = xp_xcalloc((size_t)n, sizeof *paths);
  cJSON_ArrayForEach(f, files) {
    char *path = paths[i] = xp_spec_resolve(spec, f->valuestring);
    struct stat sb;
    /* why it cannot be read, as the other readers say it: missing, a folder, a pipe (which the
    ** other readers take: a trace may be read more than once, tt_read.c read_once_more) */
    const char *why = stat(path, &sb) != 0 ? strerror(errno)
                      : S_ISDIR(sb.st_mode) ? strerror(EISDIR)
                      : !S_ISREG(sb.st_mode) ? TT_NOT_REGULAR : NULL;
    char where[32];
    snprintf(where, sizeof where, "files[%d]", i++);
    if (why && (rc = xp_spec_error(spec, where, "%s: cannot read: %s", xp_path_shown(f->valuestring), why)) != 0) break;
  }
  /* one file twice, by one name or two, or a copy of it: one rank's trace would count twice */
  if (rc == 0) rc = xp_files_given_twice((const char *const *)paths, n, "one rank's trace would count twice");
  for (int k = 0; k < i; k++) free(paths[k]);
  free(paths);
  if (rc) return rc;
  if (cJSON_GetObjectItemCaseSensitive(spec->root, "rank") && cJSON_GetArraySize(files) > 1)
    return xp_spec_error(spec, "rank", "a rank can only be given for a single trace file (ranks: one per file)");
  const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(spec->root, "ranks");
  if (ranks) {
    if (cJSON_GetObjectItemCaseSensitive(spec->root, "rank"))
      return xp_spec_error(spec, "ranks", "give rank or ranks, not both");
    if (cJSON_GetArraySize(ranks) != cJSON_GetArraySize(files))
      return xp_spec_error(spec, "ranks", "%d ranks for %d trace files: one per file, in their order",
                           cJSON_GetArraySize(ranks), cJSON_GetArraySize(files));
    for (const cJSON *x = ranks->child; x; x = x->next)
      for (const cJSON *y = x->next; y; y = y->next)
        if (x->valuedouble == y->valuedouble)
          return xp_spec_error(spec, "ranks", "rank %.0f given twice", x->valuedouble);
  }
  const char *ann = xp_spec_str(spec->root, "step_annotation", NULL);
  if (ann && !*ann) return xp_spec_error(spec, "step_annotation", "must not be empty");
  return 0;
}

static int torch_trace_plan(const xp_spec *spec, FILE *out) {
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(spec->root, "files"), *f;
  const char *ann = xp_spec_str(spec->root, "step_annotation", NULL);
  fprintf(out, "would import %d trace file(s) as the ranks of one job (one run):\n",
          cJSON_GetArraySize(files));
  cJSON_ArrayForEach(f, files) {
    char *path = xp_spec_resolve(spec, f->valuestring);
    struct stat sb;
    long long size = stat(path, &sb) == 0 ? (long long)sb.st_size : -1;
    fprintf(out, "  %s (%lld bytes)\n", path, size);
    free(path);
  }
  /* The plan reads no trace: say the rule, not what these traces hold ("(none: ...)" read as if
  ** they had no steps). */
  fprintf(out, "steps: marked by %s; every event kept: %s\n",
          ann ? ann : "ProfilerStep#N (a trace without them: its whole GPU window as one step)",
          xp_spec_bool(spec->root, "events", 0) ? "yes" : "no");
  return 0;
}

/* ---- --events: every event into trace_events, while streaming ---- */

typedef struct events_ctx {
  xp_run *run;
  int file;      /* index of the file being read: its rank is known only at its end */
  int64_t kept;
} events_ctx;

static void bind_slice_text(sqlite3_stmt *st, int i, tt_slice s) {
  if (!s.n) {
    sqlite3_bind_null(st, i);
    return;
  }
  char *t = xp_xmalloc(s.n + 1);
  long n = tt_string_decode(s, t, s.n + 1);
  if (n >= 0) xp_bind_text_n(st, i, t, (size_t)(n < (long)s.n ? n : (long)s.n));
  else xp_bind_text_n(st, i, s.p, s.n);
  free(t);
}

static void bind_slice_any(sqlite3_stmt *st, int i, tt_slice s) {
  int64_t v;
  if (!s.n) sqlite3_bind_null(st, i);
  else if (s.p[0] != '"' && tt_int(s, &v) == 0) sqlite3_bind_int64(st, i, v);
  else bind_slice_text(st, i, s);
}

static int keep_event(void *vctx, const tt_rank *r, const tt_event *ev) {
  (void)r;
  events_ctx *c = vctx;
  sqlite3_stmt *st = xp_run_stmt(c->run,
      "INSERT INTO trace_events(run_id, rank, seq, ph, cat, name, ts_ns, dur_ns, pid, tid, args)"
      " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
  if (!st) return -1;
  int64_t ns;
  sqlite3_bind_int64(st, 1, xp_run_id(c->run));
  sqlite3_bind_int64(st, 2, -1 - c->file); /* replaced by the rank once the file is done */
  sqlite3_bind_int64(st, 3, (int64_t)ev->number);
  bind_slice_text(st, 4, ev->ph);
  bind_slice_text(st, 5, ev->cat);
  bind_slice_text(st, 6, ev->name);
  if (ev->ts.n && tt_us_to_ns(ev->ts, &ns) == 0) sqlite3_bind_int64(st, 7, ns);
  if (ev->dur.n && tt_us_to_ns(ev->dur, &ns) == 0) sqlite3_bind_int64(st, 8, ns);
  bind_slice_any(st, 9, ev->pid);
  bind_slice_any(st, 10, ev->tid);
  if (ev->args.n && ev->nonfinite) { /* Kineto's "memory bandwidth (GB/s)": inf is no JSON */
    size_t n;
    char *finite = tt_json_finite(ev->args, &n);
    sqlite3_bind_text64(st, 11, finite, n, free, SQLITE_UTF8);
  } else if (ev->args.n) {
    xp_bind_text_n(st, 11, ev->args.p, ev->args.n);
  }
  if (xp_db_step_done(xp_run_db(c->run), st)) return -1;
  c->kept++;
  return 0;
}

/* The events of the file being read, kept so far: it is read again to keep another set
** (tt_read.c keep_main_device). */
static int forget_events(void *vctx) {
  events_ctx *c = vctx;
  sqlite3_stmt *st = xp_run_stmt(c->run, "DELETE FROM trace_events WHERE run_id = ?1 AND rank = ?2");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, xp_run_id(c->run));
  sqlite3_bind_int64(st, 2, -1 - c->file);
  if (xp_db_step_done(xp_run_db(c->run), st)) return XP_EXIT_DB;
  c->kept -= sqlite3_changes(xp_run_db(c->run));
  return 0;
}

static int events_set_rank(events_ctx *c, int file, int64_t rank) {
  sqlite3_stmt *st = xp_run_stmt(c->run, "UPDATE trace_events SET rank = ?1 WHERE run_id = ?2 AND rank = ?3");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, rank);
  sqlite3_bind_int64(st, 2, xp_run_id(c->run));
  sqlite3_bind_int64(st, 3, -1 - file);
  return xp_db_step_done(xp_run_db(c->run), st);
}

/* ---- the rules in force ---- */

/* The database's rule set if it has one (xp reclassify may have replaced the built-in rules),
** else the built-in one, which *seed says to store with the run. */
static int load_rules(sqlite3 *db, tt_rules *rules, int *seed) {
  int found;
  int rc = tt_rules_load_db(db, rules, &found);
  if (rc) return rc;
  *seed = !found;
  return found ? 0 : tt_rules_builtin(rules);
}

static int seed_rules(xp_run *run, const tt_rules *rules) {
  const struct xp_blob *b = xp_datafile("categories.tsv");
  int rc = xp_run_results_begin(run);
  return rc ? rc : tt_rules_save(xp_run_db(run), rules, "built-in", b->data, b->len);
}

/* ---- summary ---- */

/* Steps that launched nothing onto the GPU: the ProfilerStep#N that profile.step() opens after
** the last step's work, closed by stop() (torch/profiler/profiler.py) when a loop ends inside
** the schedule's active steps. */
static size_t empty_steps(const tt_rank *r) {
  size_t n = 0;
  for (size_t i = 0; i < r->steps.n; i++) n += XP_VEC_AT(&r->steps, tt_step, i)->kernels == 0;
  return n;
}

static void print_summary(FILE *out, const tt_import *imp) {
  for (int i = 0; i < imp->nranks; i++) {
    const tt_rank *r = imp->ranks[i];
    int64_t window = r->gpu_end - r->gpu_start, coll = 0, wait = 0, xfer = 0, mdur = 0;
    for (size_t k = 0; k < r->colls.n; k++) {
      const tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, k);
      coll += c->end - c->start;
      if (c->group >= 0) wait += c->wait, xfer += c->transfer, mdur += c->end - c->start;
    }
    const char *base = strrchr(r->file, '/');
    /* copies and fills are counted apart, as trace_ranks keeps them: "5312 kernels, 128 fills" */
    fprintf(out, "rank %lld  %s: %lld kernel%s", (long long)r->rank, base ? base + 1 : r->file, (long long)r->kernels,
            r->kernels == 1 ? "" : "s");
    if (r->memcpys) fprintf(out, ", %lld cop%s", (long long)r->memcpys, r->memcpys == 1 ? "y" : "ies");
    if (r->memsets) fprintf(out, ", %lld fill%s", (long long)r->memsets, r->memsets == 1 ? "" : "s");
    const size_t empty = empty_steps(r);
    fprintf(out, ", %zu step%s", r->steps.n, r->steps.n == 1 ? "" : "s");
    if (empty) fprintf(out, " (%zu with no GPU activity)", empty);
    fprintf(out, ", GPU busy %.3f ms of %.3f ms", r->busy_ns / 1e6, window / 1e6);
    /* what communication cost where nothing else ran beside it, and where no compute did, as HTA
    ** counts it (tt_overlap.c) */
    if (r->comm.comm_ns)
      fprintf(out, ", communication %.3f ms (%.3f ms exposed, %.3f ms without compute beside it)",
              r->comm.comm_ns / 1e6, r->comm.exposed_ns / 1e6, r->comm.compute_exposed_ns / 1e6);
    fputc('\n', out);
    if (r->before_trace) /* tt_done.c resolve_launches */
      fprintf(out, "  %lld launched before the profiler began recording (no launch in the trace, a correlation id "
              "below every launch it records): in no step\n", (long long)r->before_trace);
    if (r->before_unknown) /* the same, where the ids cannot tell */
      fprintf(out, "  %lld with no launch in the trace and a correlation id below every launch it records, placed as the "
              "others: %s, so the ids do not say they were launched before the profiler began recording\n",
              (long long)r->before_unknown, r->before_why);
    if (r->colls.n && r->kernel_ns > 0) {
      fprintf(out, "  collectives %.1f%% of kernel time as recorded", 100.0 * (double)coll / (double)r->kernel_ns);
      if (r->coll_matched)
        fprintf(out, "; of the %lld matched, %.3f ms waiting and %.3f ms transferring (%.1f%% of kernel time)",
                (long long)r->coll_matched, wait / 1e6, xfer / 1e6, 100.0 * (double)xfer / (double)r->kernel_ns);
      fprintf(out, "; %lld unmatched\n", (long long)r->coll_unmatched);
    }
  }
  fprintf(out, "collectives: %lld matched, %lld unmatched (%s)\n", (long long)imp->matched,
          (long long)imp->unmatched, imp->match_note);
}

/* ---- execute ---- */

static int read_all(xp_ctx *ctx, tt_import *imp, const tt_options *base_opt, events_ctx *ev) {
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(ctx->spec->root, "files"), *f;
  const cJSON *ranks = cJSON_GetObjectItemCaseSensitive(ctx->spec->root, "ranks");
  int i = 0, rc = 0;
  cJSON_ArrayForEach(f, files) {
    char *path = xp_spec_resolve(ctx->spec, f->valuestring);
    tt_options opt = *base_opt;
    if (ranks) opt.rank = (int64_t)cJSON_GetArrayItem(ranks, i)->valuedouble;
    if (ev) ev->file = i;
    rc = tt_read_file(imp, path, &opt);
    free(path);
    if (rc) break;
    i++;
  }
  return rc;
}

/* Events were kept under -1 - file while the files were read; once the import has checked
** that the files are distinct ranks of one job (tt_import_finish), they take their ranks.
** Labelled earlier, a rank the checks were about to refuse (a file given twice, no rank in
** the trace) collided in trace_events and came out as a database error. */
static int label_events(events_ctx *ev, const tt_import *imp) {
  int rc = 0;
  for (int i = 0; i < imp->nranks && rc == 0; i++) rc = events_set_rank(ev, i, imp->ranks[i]->rank);
  return rc;
}

/* A declared TP larger than the job the traces say they come from (their world size:
** distributedInfo's, or their default group's, tt_rank_done) would file the run under a
** configuration it never ran: bad input. */
static int check_declared_tp(const xp_spec *spec, const tt_import *imp) {
  const int64_t tp = xp_spec_int(spec->root, "tp", 0);
  for (int i = 0; i < imp->nranks && tp > 0; i++) {
    const tt_rank *r = imp->ranks[i];
    if (r->world_size > 0 && tp > r->world_size)
      return xp_error_at(XP_EXIT_USAGE, r->file, 0,
                         "tp=%lld is declared, but the trace's job has %lld rank%s (its world size)",
                         (long long)tp, (long long)r->world_size, r->world_size == 1 ? "" : "s");
  }
  return 0;
}

static int torch_trace_execute(xp_ctx *ctx) {
  tt_rules rules;
  int seed = 0;
  int rc = load_rules(ctx->db, &rules, &seed);
  if (rc) return rc;
  tt_import imp;
  tt_import_init(&imp, &rules);
  imp.host_skew_ns = (int64_t)(xp_spec_num(ctx->spec->root, "host_skew", TT_HOST_SKEW_NS / 1e9) * 1e9);
  tt_options opt = {0};
  opt.step_annotation = xp_spec_str(ctx->spec->root, "step_annotation", NULL);
  opt.rank = xp_spec_int(ctx->spec->root, "rank", -1);
  opt.progress = !ctx->quiet;
  events_ctx ev = {ctx->run, 0, 0};
  const tt_keep keeper = {keep_event, forget_events, &ev};
  int keep = xp_spec_bool(ctx->spec->root, "events", 0);
  if (keep) {
    /* Every event is written while streaming (holding them would defeat streaming); the run's
    ** transaction is therefore open for the whole read. Off by default. */
    opt.on_event = keep_event;
    opt.event_ctx = &ev;
    opt.events_kept = &keeper;
    rc = xp_run_results_begin(ctx->run);
  }
  if (!rc) rc = read_all(ctx, &imp, &opt, keep ? &ev : NULL);
  if (!rc) rc = tt_import_finish(&imp);
  if (!rc && keep) rc = label_events(&ev, &imp);
  if (!rc) rc = check_declared_tp(ctx->spec, &imp);
  if (!rc && seed) rc = seed_rules(ctx->run, &rules);
  if (!rc) rc = tt_store_import(ctx->run, &imp, &opt, ev.kept);
  if (!rc && !ctx->quiet) print_summary(ctx->out, &imp);
  tt_import_free(&imp);
  tt_rules_free(&rules);
  return rc;
}

/* xp show: what the import found, as the queries count it: per rank, its steps; the step GPU
** time by category (shares of the run's steps, all ranks); the collectives with their waiting
** where matched; the ten heaviest kernels. */
static const struct { const char *title, *sql; } show_sections[] = {
    {"trace: ranks",
     /* linked counts every GPU activity (copies and fills too): set beside all of them */
     "SELECT rank, file, kernels, memcpys + memsets AS copies_fills, cpu_ops, linked_kernels AS linked, device, world_size,"
     " round((gpu_end_ns - gpu_start_ns) / 1e6, 3) AS gpu_window_ms, round(busy_ns / 1e6, 3) AS busy_ms"
     " FROM trace_ranks WHERE run_id = ?1 ORDER BY rank"},
    /* the means over the steps that ran anything on the GPU, as the queries and xp compare take
    ** them: the ProfilerStep#N that the last step() opens and stop() closes holds none */
    {"trace: steps (per rank)",
     "SELECT rank, count(*) AS steps, sum(kernels = 0) AS no_gpu, min(number) AS first, max(number) AS last,"
     " round(avg(CASE WHEN kernels > 0 THEN kernel_ns END) / 1e3, 1) AS kernel_us_mean,"
     " round(avg(CASE WHEN kernels > 0 THEN busy_ns END) / 1e3, 1) AS busy_us_mean,"
     " round(avg(gpu_end_ns - gpu_start_ns) / 1e3, 1) AS span_us_mean"
     " FROM trace_steps WHERE run_id = ?1 GROUP BY rank ORDER BY rank"},
    {"trace: step GPU time by category (all ranks)",
     "SELECT category, sum(count) AS kernels, round(sum(total_ns) / 1e6, 3) AS ms,"
     " round(100.0 * sum(total_ns) / (SELECT sum(kernel_ns) FROM trace_steps WHERE run_id = ?1), 1) AS pct"
     " FROM trace_step_categories WHERE run_id = ?1 GROUP BY category ORDER BY sum(total_ns) DESC"},
    {"trace: collectives in steps",
     "SELECT collective, sum(kernels) AS kernels, sum(matched) AS matched, round(sum(dur_ns) / 1e6, 3) AS ms,"
     " round(sum(wait_ns) / 1e6, 3) AS waiting_ms, round(sum(transfer_ns) / 1e6, 3) AS transfer_ms"
     " FROM trace_step_collectives WHERE run_id = ?1 AND step IS NOT NULL GROUP BY collective ORDER BY sum(dur_ns) DESC"},
    {"trace: heaviest kernels (all ranks)",
     /* the category as every query counts it (trace_kernel_stats: a collective kernel's args
     ** can name another collective than its name does), so a kernel running two is two rows */
     "SELECT category, substr(name, 1, 80) AS kernel, sum(count) AS count, round(sum(total_ns) / 1e6, 3) AS ms"
     " FROM trace_kernel_stats WHERE run_id = ?1"
     " GROUP BY name_id, category ORDER BY sum(total_ns) DESC LIMIT 10"},
};

static int torch_trace_show(sqlite3 *db, int64_t run_id, FILE *out, int fmt, cJSON *json) {
  int rc = 0;
  for (size_t i = 0; i < sizeof show_sections / sizeof show_sections[0] && rc == 0; i++) {
    sqlite3_stmt *st = xp_db_prepare(db, show_sections[i].sql);
    if (!st) return XP_EXIT_DB;
    sqlite3_bind_int64(st, 1, run_id);
    if (json) {
      cJSON_AddItemToObject(json, show_sections[i].title, xp_rows_json(st, &rc));
    } else {
      fprintf(out, "\n== %s ==\n", show_sections[i].title);
      rc = xp_print_rows(db, st, (enum xp_format)fmt, out, NULL);
    }
    sqlite3_finalize(st);
  }
  return rc;
}

const xp_kind xp_kind_torch_trace = {
    .name = "torch_trace",
    .summary = "torch.profiler (Kineto) traces of one job's ranks: kernels, categories, steps, collectives",
    .fields = fields,
    .needs_gpu = 0,
    .check = torch_trace_check,
    .plan = torch_trace_plan,
    .execute = torch_trace_execute,
    .import_name = "torch-trace",
    .records_as = NULL,
    .show = torch_trace_show,
    .notes = "CUDA's and ROCm's (HIP) traces, Intel GPUs' (xpu_runtime) and PrivateUse1 backends' (MUSA,\n"
             "  MLU: privateuse1_runtime; musa_runtime, mlu_runtime, mlu_memcpy).\n"
             "  A GPU activity is its operator's step's (wherever the file\n"
             "  writes the operator), else its launch's (a CUDA graph's replay: its cudaGraphLaunch's), else\n"
             "  by stream order; one launched before the profiler began recording is in no step where the\n"
             "  ids tell (one process's launches, numbered as the activities; the import says how many).\n"
             "  A trace without ProfilerStep#N that holds vLLM's or SGLang's step annotations is told the\n"
             "  --step-annotation that marks them. vLLM's front-end trace (*.async_llm.*, CPU only) is\n"
             "  refused: import the workers' traces without it. An activity that outlasts the next one on\n"
             "  its stream (an end written late, as ROCm traces hold) ends where that one starts, said;\n"
             "  the activities of one graph launch (concurrent branches) are not compared with each other.\n"
             "  Events written \"ts\": 0, \"dur\": 0 where the trace's other times are far from 0 (PyTorch\n"
             "  2.12, pytorch/pytorch#188481) have no time: left out, said, counted in run_meta\n"
             "  trace.untimed_events; a trace with no timed GPU activity is refused.\n"
             "  A file of one GPU takes its distributedInfo.rank, else the rank its record_param_comms\n"
             "  name (older PyTorch, some launchers), else the \"-rank-N\" its file's name ends with or has\n"
             "  before an extension (TensorRT-LLM's trace-rank-3.json, trace.json-rank-3.gz, vLLM's\n"
             "  ID-rank-3.NS.pt.trace.json.gz; vLLM 0.17's dp0_pp0_tp3_dcp0_ep3_rank3.NS.pt.trace.json.gz,\n"
             "  not with dp above 0, whose rank needs the replica's size), or SGLang's TP rank\n"
             "  (ID-TP-3.trace.json.gz, -DP-, -EP-, a stage and -PP-0 after it; not with a PP rank above 0,\n"
             "  whose rank needs the TP size), said; the\n"
             "  world size, where distributedInfo gives none, is the default process group's size as they\n"
             "  give it. With several files, one that says no rank (or its calls several) is refused unless\n"
             "  --ranks gives them. A .json.gz that several ranks wrote at once (one path for all) stops\n"
             "  inflating or ends in another trace's bytes: refused, said; give each rank its own file.\n"
             "  A file of several GPUs (one process driving them, or processes' traces merged) is a rank per\n"
             "  GPU: from the rank given for the file, in device order; else its process's rank (its\n"
             "  distributedInfo.rank; in a merged file, the rank each process's record_param_comms name)\n"
             "  times the process's GPUs plus the GPU's place, as c10d numbered them; else numbered in the\n"
             "  order the files were given, then by device, with the lowest ranks no other trace names.\n"
             "  A merged file whose pids carry each rank's label, as SGLang's profile merger writes them\n"
             "  (--merge-profiles: \"[TP01] 1808\", \"[TP00-DP01-PP01] 0\"), is a rank per label, its process and\n"
             "  GPU, as the rank's own file would be: the label's TP rank, with PP TP size * PP + TP (the TP\n"
             "  size the world's over the stages); DP (with DP attention) and EP are the TP ranks' groups;\n"
             "  one TP rank under two DP ranks (replicas, each a job of its own) is refused.\n",
};
