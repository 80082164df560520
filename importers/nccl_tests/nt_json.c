/*
** nccl-tests' -J JSON (src/util.cu, JSON_FILE_VERSION 3): args, env, nccl_version, config,
** results with out_of_place/in_place and, with -I, per-iteration times. Numbers some versions
** write as padded strings ("root": "    -1") are read either way.
*/
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nccl_tests.h"
#include "spec.h"
#include "xp.h"

static double num(const cJSON *o, const char *key, double dflt) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  if (cJSON_IsNumber(v)) return v->valuedouble;
  if (cJSON_IsString(v)) { /* util.cu writes some numbers as strings, NaN as "nan": no value */
    char *end;
    double x = strtod(v->valuestring, &end);
    if (end != v->valuestring) return isfinite(x) ? x : dflt;
  }
  if (cJSON_IsBool(v)) return cJSON_IsTrue(v);
  return dflt;
}

/* num as an integer; whatever the file says, no undefined cast (xp_saturate_int64). */
static int64_t i64(const cJSON *o, const char *key, double dflt) { return xp_saturate_int64(num(o, key, dflt)); }
static int i32(const cJSON *o, const char *key, double dflt) { return xp_saturate_int(num(o, key, dflt)); }

static const char *str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A time or a bandwidth below 0 measured nothing: refused, as the text and rccl-tests readers
** refuse one ("column time: -18.5 is negative"), rather than recorded as a sample. */
static int negative(const nt_doc *d, int i, const char *place, const char *key, double x) {
  if (!(x < 0)) return 0;
  return xp_error_at(XP_EXIT_USAGE, d->path, 0, "results[%d].%s: \"%s\": %g is negative", i, place, key, x);
}

/* results[i]'s figures at place ("out_of_place"); 0, or XP_EXIT_USAGE said. */
static int read_result(const nt_doc *d, int i, const char *place, nt_result *r, const cJSON *o,
                       const cJSON *per_iter) {
  if (!cJSON_IsObject(o)) return 0;
  r->cputime = cJSON_GetObjectItemCaseSensitive(o, "cpu_time") != NULL;
  const char *time = r->cputime ? "cpu_time" : "time";
  r->time_us = num(o, time, NAN);
  r->have = !isnan(r->time_us); /* a time that is "nan" was not measured */
  r->algbw = num(o, "alg_bw", NAN); /* "nan" (util.cu's jsonDouble): no figure, never 0 GB/s */
  r->busbw = num(o, "bus_bw", NAN);
  if (negative(d, i, place, time, r->time_us) || negative(d, i, place, "alg_bw", r->algbw) ||
      negative(d, i, place, "bus_bw", r->busbw))
    return XP_EXIT_USAGE;
  const cJSON *w = cJSON_GetObjectItemCaseSensitive(o, "nwrong");
  r->wrong = cJSON_IsNumber(w) ? xp_saturate_int64(w->valuedouble) : -1;
  const cJSON *bits = cJSON_GetObjectItemCaseSensitive(o, "bitwise"); /* -R: repeats compared bitwise */
  r->bitdiff = cJSON_IsObject(bits) ? i64(bits, "different_elements", -1) : -1;
  const cJSON *times = cJSON_GetObjectItemCaseSensitive(per_iter, "times_us"), *t;
  int n = cJSON_GetArraySize(times);
  if (n > 0) {
    r->iter_us = xp_xmalloc(sizeof *r->iter_us * (size_t)n);
    cJSON_ArrayForEach(t, times)
      if (cJSON_IsNumber(t)) {
        if (negative(d, i, place, "times_us", t->valuedouble)) return XP_EXIT_USAGE;
        r->iter_us[r->niter++] = t->valuedouble;
      }
  }
  return 0;
}

/* util.cu lists one device a process, its first rank: with -t or -g above 1 each process runs
** threads x GPUs ranks, so the last process's first rank plus that is the job's (one process
** of -g 2 lists rank 0 alone: 2 ranks). A list of two or more that names every rank 0 .. n-1
** gives n. */
static void read_config(nt_doc *d, const cJSON *c) {
  int max_rank = -1;
  d->nthreads = i32(c, "nthreads", 0);
  d->ngpus = i32(c, "ngpus", 0);
  d->min_bytes = i64(c, "minimum_bytes", 0);
  d->max_bytes = i64(c, "maximum_bytes", 0);
  d->warmup = i32(c, "warmup_iters", 0);
  d->iters = i32(c, "iterations", 0);
  d->agg = i32(c, "aggregated_iterations", 1);
  d->validation = i32(c, "validation", 0);
  d->graph = i32(c, "graph", 0);
  const char *blocking = str(c, "blocking_collectives");
  d->blocking = blocking ? strcmp(blocking, "true") == 0 : num(c, "blocking_collectives", 0) != 0;
  if (d->blocking) d->blocking = nt_blocking_from_args(d->args); /* read before the config */
  d->average = nt_average_from_args(d->args);                     /* no config field says it */
  const cJSON *devs = cJSON_GetObjectItemCaseSensitive(c, "devices"), *v;
  int max_group = 0, group0 = 0; /* NCCL_TESTS_SPLIT_MASK: the figures are one communicator's */
  cJSON_ArrayForEach(v, devs) {
    const int group = i32(v, "group", 0);
    if (group > max_group) max_group = group;
    group0 += group == 0;
    const char *host = str(v, "hostname") ? str(v, "hostname") : "";
    xp_strtab_intern(&d->hosts, host, strlen(host), NULL);
    if (d->ndev == (int)(sizeof d->dev / sizeof d->dev[0])) continue;
    nt_device *x = &d->dev[d->ndev++];
    x->rank = i32(v, "rank", d->ndev - 1);
    if (x->rank > max_rank) max_rank = x->rank;
    x->device = i32(v, "device", -1);
    x->pid = i32(v, "pid", 0);
    snprintf(x->host, sizeof x->host, "%s", str(v, "hostname") ? str(v, "hostname") : "");
    snprintf(x->busid, sizeof x->busid, "%s", str(v, "device_hex") ? str(v, "device_hex") : "");
    snprintf(x->name, sizeof x->name, "%s", str(v, "device_info") ? str(v, "device_info") : "");
  }
  /* util.cu lists each process's first rank (0, T*G, 2*T*G ...; every rank where T*G is 1): a
  ** list of those with no gap is the job's, one with a gap (an edited file) says only that the
  ** processes up to its highest were there. In 64 bits, then held to int: a file's numbers are
  ** not trusted to be small. */
  const int64_t per_process = (int64_t)(d->nthreads > 0 ? d->nthreads : 1) * (d->ngpus > 0 ? d->ngpus : 1);
  int listed_all = d->ndev >= 2 && (int64_t)max_rank + 1 == d->ndev; /* ranks 0 .. n-1, every one listed */
  /* max_rank == (ndev - 1) x per_process, divided: the product of a file's counts may pass int64 */
  int firsts = max_rank >= 0 && max_rank % per_process == 0 && max_rank / per_process == d->ndev - 1;
  int distinct = 1;
  for (int i = 0; i < d->ndev && distinct; i++) {
    for (int j = 0; j < i; j++) distinct = distinct && d->dev[j].rank != d->dev[i].rank;
    if (d->dev[i].rank < 0 || d->dev[i].rank % per_process) firsts = 0;
  }
  listed_all = listed_all && distinct;
  firsts = firsts && distinct;
  nt_rank_evidence e = {0, 0, 0, 0, 0};
  if (max_group > 0 && group0 > 0) e.listed = listed_all ? group0 : 0; /* as the text's report_evidence */
  else if (listed_all) e.listed = d->ndev;
  else if (firsts) e.listed = xp_saturate_int((double)max_rank + (double)per_process);
  else if (max_rank >= 0) e.at_least = xp_saturate_int((double)max_rank + (double)per_process);
  else if (d->nthreads > 0 && d->ngpus > 0) e.assumed = xp_saturate_int((double)per_process);
  d->nranks = nt_add_rank_evidence(d, &e);
  d->hosts_whole = e.listed > 0;
}

/* Only NCCL's own settings are kept: the file holds the whole environment of the run. */
static void read_env(nt_doc *d, const cJSON *env) {
  const cJSON *e;
  cJSON_ArrayForEach(e, env) {
    if (!cJSON_IsString(e) || strncmp(e->valuestring, "NCCL_", 5) != 0 || !strchr(e->valuestring, '=')) continue;
    d->env = xp_xrealloc(d->env, sizeof *d->env * (size_t)(d->nenv + 1));
    snprintf(d->env[d->nenv++], sizeof d->env[0], "%s", e->valuestring);
  }
}

static void read_args(nt_doc *d, const cJSON *args) {
  const cJSON *a;
  size_t used = 0;
  int i = 0;
  cJSON_ArrayForEach(a, args) {
    if (!cJSON_IsString(a)) continue;
    if (i++ == 0) { /* the binary: "/opt/nccl-tests/build/all_gather_perf", "C:\\...\\all_gather_perf.exe" */
      const char *base = a->valuestring;
      for (const char *c = base; *c; c++)
        if (*c == '/' || *c == '\\') base = c + 1;
      char name[64];
      snprintf(name, sizeof name, "%s", base);
      char *exe = strstr(name, ".exe");
      if (exe) *exe = 0;
      nt_coll_from_test(name, d->coll, sizeof d->coll);
    }
    int w = snprintf(d->args + used, sizeof d->args - used, "%s%s", used ? " " : "", a->valuestring);
    if (w > 0) used += (size_t)w;
    if (used >= sizeof d->args) break;
  }
}

/* Whether JSON text is whole up to its end but leaves a bracket open there (strings skipped, each
** bracket closed by its own kind): util.cu writes the document as the test runs and closes it only
** at the end, so a job killed before that leaves it open. */
static int left_open(const char *text, size_t len) {
  char open[64]; /* nccl-tests nests a few deep; deeper is no file of its */
  int depth = 0, in_string = 0;
  for (size_t i = 0; i < len; i++) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') i++;
      else if (c == '"') in_string = 0;
    } else if (c == '"') in_string = 1;
    else if (c == '{' || c == '[') {
      if (depth == (int)sizeof open) return 0;
      open[depth++] = c == '{' ? '}' : ']';
    } else if (c == '}' || c == ']') {
      if (depth == 0 || open[--depth] != c) return 0;
    }
  }
  return depth > 0 || in_string;
}

int nt_parse_json(nt_doc *d, const char *text, size_t len) {
  const size_t bom = nt_bom(text, len);
  text += bom, len -= bom;
  cJSON *root = cJSON_ParseWithLength(text, len);
  xp_json_keep_last(root); /* a key given twice: its last value counts, as in json.load */
  if (!root && left_open(text, len))
    return xp_error_at(XP_EXIT_USAGE, d->path, 0, "not valid JSON: cut short, left open at its end (a job killed "
                       "before nccl-tests closed the file?)");
  if (!root || !cJSON_IsObject(root)) {
    cJSON_Delete(root);
    return xp_error_at(XP_EXIT_USAGE, d->path, 0, "not valid JSON");
  }
  const int ctl_rc = nt_refuse_control(d, text, 0, len);
  if (ctl_rc) {
    cJSON_Delete(root);
    return ctl_rc;
  }
  const cJSON *results = cJSON_GetObjectItemCaseSensitive(root, "results");
  const cJSON *config = cJSON_GetObjectItemCaseSensitive(root, "config");
  if (!cJSON_IsArray(results) || !cJSON_IsObject(config)) {
    cJSON_Delete(root);
    return xp_error_at(XP_EXIT_USAGE, d->path, 0, "not nccl-tests -J output (no \"config\" and \"results\")");
  }
  d->precise = 1;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "nccl_version");
  if (cJSON_IsNumber(v)) d->nccl_library = xp_saturate_int(v->valuedouble);
  v = cJSON_GetObjectItemCaseSensitive(root, "version");
  /* the file's format, not nccl-tests' version (the file does not state that one) */
  if (cJSON_IsNumber(v)) d->json_format = xp_saturate_int(v->valuedouble);
  if (str(root, "start_time")) snprintf(d->start_time, sizeof d->start_time, "%s", str(root, "start_time"));
  read_args(d, cJSON_GetObjectItemCaseSensitive(root, "args"));
  read_env(d, cJSON_GetObjectItemCaseSensitive(root, "env"));
  read_config(d, config);
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "errors")) /* a clean run writes [""] */
    d->errors += !cJSON_IsString(e) || e->valuestring[0] != 0;
  const cJSON *oob = cJSON_GetObjectItemCaseSensitive(root, "out_of_bounds");
  if (cJSON_IsObject(oob)) d->out_of_bounds = i64(oob, "count", -1);
  const cJSON *avg = cJSON_GetObjectItemCaseSensitive(root, "average_bus_bandwidth");
  if (cJSON_IsObject(avg)) d->avg_busbw = num(avg, "bandwidth", -1);
  const cJSON *o;
  int i = 0;
  cJSON_ArrayForEach(o, results) {
    i++;
    if (!cJSON_IsObject(o) || num(o, "size", -1) < 0) {
      cJSON_Delete(root);
      return xp_error_at(XP_EXIT_USAGE, d->path, 0, "results[%d]: no message size", i - 1);
    }
    nt_row *r = nt_doc_add_row(d);
    r->bytes = i64(o, "size", 0);
    r->count = i64(o, "count", -1);
    r->root = i32(o, "root", -1);
    snprintf(r->coll, sizeof r->coll, "%s", d->coll[0] ? d->coll : "unknown");
    nt_dtype_from_test(str(o, "type") ? str(o, "type") : "unknown", r->dtype, sizeof r->dtype);
    snprintf(r->redop, sizeof r->redop, "%s", str(o, "redop") ? str(o, "redop") : "");
    r->graph = d->graph;
    r->iters = i32(o, "actual_iterations", d->iters);
    r->agg = d->agg;
    r->blocking = d->blocking;
    r->average = d->average;
    r->nranks = d->nranks;
    const cJSON *out = cJSON_GetObjectItemCaseSensitive(o, "out_of_place");
    const cJSON *in = cJSON_GetObjectItemCaseSensitive(o, "in_place");
    int rc = read_result(d, i - 1, "out_of_place", &r->r[NT_OUT], out,
                         cJSON_GetObjectItemCaseSensitive(o, "out_of_place_per_iter"));
    if (rc == 0)
      rc = read_result(d, i - 1, "in_place", &r->r[NT_IN], in, cJSON_GetObjectItemCaseSensitive(o, "in_place_per_iter"));
    if (rc) {
      cJSON_Delete(root);
      return rc;
    }
  }
  cJSON_Delete(root);
  if (d->nrows == 0) return xp_error_at(XP_EXIT_USAGE, d->path, 0, "no results in the file");
  return 0;
}
