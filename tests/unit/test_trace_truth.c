/* The torch.profiler importer against the profiler's own figures and public traces:
**  - for every trace with a *.truth.json (tests/data/trace, and shared/fixtures/torch when
**    present), per-kernel-name count and total equal prof.key_averages() to 1e-6;
**  - the six Holistic Trace Analysis traces (old and new Kineto formats) import, with their
**    NCCL kernels in communication categories;
**  - on the two-rank pair, the wait/transfer split equals an independent computation: the
**    whole document parsed with cJSON, collectives paired by nearest end time. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "check.h"
#include "torch_trace/tt_trace.h"
#include "xp.h"

static tt_rules rules;

static char *gunzip_file(const char *path) {
  gzFile g = gzopen(path, "rb");
  if (!g) return NULL;
  size_t cap = 1 << 20, n = 0;
  char *buf = malloc(cap);
  int k;
  while ((k = gzread(g, buf + n, (unsigned)(cap - n - 1))) > 0) {
    n += (size_t)k;
    if (cap - n < 2) buf = realloc(buf, cap *= 2);
  }
  gzclose(g);
  buf[n] = 0;
  return buf;
}

static int import(tt_import *imp, const char *const *files, int n) {
  tt_import_init(imp, &rules);
  tt_options opt = {0};
  opt.rank = -1;
  for (int i = 0; i < n; i++) {
    int rc = tt_read_file(imp, files[i], &opt);
    if (rc) return rc;
  }
  return tt_import_finish(imp);
}

/* Per name (summed over the collective variants of a name). */
static void name_totals(const tt_import *imp, const tt_rank *r, int64_t *count, int64_t *total) {
  memset(count, 0, imp->names.n * sizeof *count);
  memset(total, 0, imp->names.n * sizeof *total);
  for (size_t i = 0; i < r->kstats.n; i++) {
    const tt_kstat *k = XP_VEC_AT(&r->kstats, tt_kstat, i);
    count[TT_KEY_NAME(k->key)] += k->count;
    total[TT_KEY_NAME(k->key)] += k->total;
  }
}

static int check_truth(const char *trace, const char *truth_path) {
  char *text = xp_read_file(truth_path, NULL);
  CHECK(text != NULL);
  if (!text) return 0;
  cJSON *truth = cJSON_Parse(text);
  free(text);
  cJSON *rows = cJSON_GetObjectItemCaseSensitive(truth, "kernels");
  tt_import imp;
  const char *files[] = {trace};
  int rc = import(&imp, files, 1);
  CHECK_EQ_INT(rc, 0);
  int checked = 0;
  if (rc == 0) {
    tt_rank *r = imp.ranks[0];
    int64_t *count = calloc(imp.names.n + 1, sizeof *count), *total = calloc(imp.names.n + 1, sizeof *total);
    name_totals(&imp, r, count, total);
    for (uint32_t i = 0; i < imp.names.n; i++) {
      const cJSON *row = NULL, *e;
      cJSON_ArrayForEach(e, rows) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        if (cJSON_IsString(nm) && strcmp(nm->valuestring, imp.names.str[i]) == 0) row = e;
      }
      if (!row) {
        fprintf(stderr, "%s: %.80s not in the truth\n", trace, imp.names.str[i]);
        CHECK(0);
        continue;
      }
      double want_us = cJSON_GetObjectItemCaseSensitive(row, "self_device_us")->valuedouble;
      CHECK_EQ_INT(count[i], cJSON_GetObjectItemCaseSensitive(row, "count")->valueint);
      CHECK_NEAR(total[i] / 1e3, want_us, 1e-6);
      checked++;
    }
    free(count);
    free(total);
  }
  tt_import_free(&imp);
  cJSON_Delete(truth);
  return checked;
}

/* Every *.truth.json in dir with its trace. */
static int check_dir(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  struct dirent *e;
  int traces = 0;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n < 11 || strcmp(e->d_name + n - 11, ".truth.json") != 0) continue;
    char *truth = xp_asprintf("%s/%s", dir, e->d_name);
    char *trace = xp_asprintf("%s/%.*s.trace.json.gz", dir, (int)(n - 11), e->d_name);
    int names = check_truth(trace, truth);
    printf("%s: %d kernel names match the profiler's totals\n", trace, names);
    CHECK(names > 5);
    traces++;
    free(truth);
    free(trace);
  }
  closedir(d);
  return traces;
}

/* ---- HTA traces ---- */

static void check_hta(const char *dir) {
  static const struct { const char *file; int64_t rank, kernels, comm; } t[] = {
      {"tests__data__trace_filter__sampled_rank-0.json.gz", 0, 1204, 10},
      {"tests__data__trace_filter__sampled_rank-1.json.gz", 1, 1154, 10},
      {"tests__data__nccl_parser_config__nccl_data.json.gz", 0, 3774, 21},
      {"tests__data__df_index_resolver__df_index_resolver.json.gz", 1, 22290, 2020},
      {"tests__data__trace_file_list__inference_rank_1.json.gz", 1, 4, 0},
      {"tests__data__triton_example__triton_example.json.gz", 0, 1, 0}};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
    char *path = xp_asprintf("%s/%s", dir, t[i].file);
    tt_import imp;
    const char *files[] = {path};
    int rc = import(&imp, files, 1);
    CHECK_EQ_INT(rc, 0);
    if (rc == 0) {
      tt_rank *r = imp.ranks[0];
      CHECK_EQ_INT(r->rank, t[i].rank);
      CHECK_EQ_INT(r->kernels + r->memcpys + r->memsets, t[i].kernels);
      int64_t comm = 0;
      for (size_t k = 0; k < r->kstats.n; k++) {
        const tt_kstat *s = XP_VEC_AT(&r->kstats, tt_kstat, k);
        const char *name = imp.names.str[TT_KEY_NAME(s->key)];
        const tt_name_info *ni = XP_VEC_AT(&imp.name_info, tt_name_info, TT_KEY_NAME(s->key));
        if (strncmp(name, "nccl", 4) == 0) {
          CHECK(ni->comm);
          if (!ni->comm) fprintf(stderr, "%s: %s is %s\n", t[i].file, name, ni->category);
          comm += s->count;
        }
      }
      CHECK_EQ_INT(comm, t[i].comm);
      CHECK_EQ_INT((int64_t)r->colls.n, t[i].comm);
      CHECK(imp.single_rank);
      CHECK(r->busy_ns > 0 && r->busy_ns <= r->gpu_end - r->gpu_start);
      printf("%s: rank %lld, %lld GPU activities, %lld NCCL kernels as communication\n", t[i].file,
             (long long)r->rank, (long long)t[i].kernels, (long long)comm);
    }
    tt_import_free(&imp);
    free(path);
  }
  /* Two ranks of one 128-rank job: imported together, but with 126 peers missing no
  ** collective can be complete, and every one is reported unmatched. */
  char *a = xp_asprintf("%s/%s", dir, t[0].file), *b = xp_asprintf("%s/%s", dir, t[1].file);
  tt_import imp;
  const char *files[] = {a, b};
  CHECK_EQ_INT(import(&imp, files, 2), 0);
  CHECK_EQ_INT(imp.nranks, 2);
  CHECK_EQ_INT(imp.matched, 0);
  CHECK_EQ_INT(imp.unmatched, 20);
  CHECK(!imp.single_rank);
  tt_import_free(&imp);
  free(a);
  free(b);
}

/* ---- cross-rank split, computed independently ---- */

typedef struct ck {
  int64_t start, end;
} ck;

/* Exact ns from a double that came from a decimal with three places: print it back. */
static int64_t us_to_ns_exact(double us) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.3f", us);
  char *dot = strchr(buf, '.');
  *dot = 0;
  return atoll(buf) * 1000 + (buf[0] == '-' ? -1 : 1) * atoll(dot + 1);
}

static size_t nccl_kernels(const char *path, ck **out) {
  char *text = gunzip_file(path);
  cJSON *doc = cJSON_Parse(text);
  free(text);
  int64_t base = (int64_t)cJSON_GetObjectItemCaseSensitive(doc, "baseTimeNanoseconds")->valuedouble;
  size_t n = 0;
  *out = NULL;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "traceEvents")) {
    const cJSON *cat = cJSON_GetObjectItemCaseSensitive(e, "cat"), *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
    if (!cJSON_IsString(cat) || strcmp(cat->valuestring, "kernel") || strncmp(nm->valuestring, "nccl", 4)) continue;
    int64_t ts = us_to_ns_exact(cJSON_GetObjectItemCaseSensitive(e, "ts")->valuedouble);
    int64_t dur = us_to_ns_exact(cJSON_GetObjectItemCaseSensitive(e, "dur")->valuedouble);
    *out = realloc(*out, (n + 1) * sizeof **out);
    (*out)[n++] = (ck){base + ts, base + ts + dur};
  }
  cJSON_Delete(doc);
  return n;
}

/* For each kernel of a, the kernel of b that overlaps it and ends nearest to it. */
static void split_reference(ck *a, size_t na, ck *b, size_t nb, int64_t *wait_a, int64_t *xfer_a,
                            int64_t *wait_b, int64_t *xfer_b, int64_t *pairs) {
  *wait_a = *xfer_a = *wait_b = *xfer_b = *pairs = 0;
  for (size_t i = 0; i < na; i++) {
    size_t best = nb;
    int64_t bestd = INT64_MAX;
    for (size_t j = 0; j < nb; j++) {
      if (b[j].start > a[i].end || a[i].start > b[j].end) continue;
      int64_t d = llabs(b[j].end - a[i].end);
      if (d < bestd) bestd = d, best = j;
    }
    if (best == nb) continue;
    int64_t last = a[i].start > b[best].start ? a[i].start : b[best].start;
    int64_t wa = last - a[i].start, wb = last - b[best].start;
    int64_t da = a[i].end - a[i].start, db = b[best].end - b[best].start;
    wa = wa > da ? da : wa;
    wb = wb > db ? db : wb;
    *wait_a += wa, *xfer_a += da - wa, *wait_b += wb, *xfer_b += db - wb;
    (*pairs)++;
  }
}

static void check_split(const char *r0, const char *r1) {
  ck *a, *b;
  size_t na = nccl_kernels(r0, &a), nb = nccl_kernels(r1, &b);
  int64_t wa, xa, wb, xb, pairs;
  split_reference(a, na, b, nb, &wa, &xa, &wb, &xb, &pairs);
  tt_import imp;
  const char *files[] = {r0, r1};
  CHECK_EQ_INT(import(&imp, files, 2), 0);
  int64_t w[2] = {0, 0}, x[2] = {0, 0}, m[2] = {0, 0};
  for (int k = 0; k < imp.nranks; k++) {
    tt_rank *r = imp.ranks[k];
    for (size_t i = 0; i < r->colls.n; i++) {
      tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
      if (c->group < 0) continue;
      w[r->rank] += c->wait;
      x[r->rank] += c->transfer;
      m[r->rank]++;
    }
  }
  CHECK_EQ_INT(m[0], pairs);
  CHECK_EQ_INT(m[1], pairs);
  CHECK_EQ_INT(w[0], wa);
  CHECK_EQ_INT(x[0], xa);
  CHECK_EQ_INT(w[1], wb);
  CHECK_EQ_INT(x[1], xb);
  CHECK_EQ_INT(imp.unmatched, (int64_t)(na + nb) - 2 * pairs);
  printf("%s + rank 1: %lld collectives matched; rank 0 waits %.3f ms, transfers %.3f ms; "
         "rank 1 waits %.3f ms, transfers %.3f ms (independent: same)\n", r0, (long long)pairs,
         w[0] / 1e6, x[0] / 1e6, w[1] / 1e6, x[1] / 1e6);
  tt_import_free(&imp);
  free(a);
  free(b);
}

int main(void) {
  if (tt_rules_builtin(&rules)) return 1;
  const char *src = getenv("XP_SRC"), *shared = getenv("XP_SHARED");
  char *repo = xp_asprintf("%s/tests/data/trace", src ? src : "../..");
  CHECK(check_dir(repo) >= 2);
  char *r0 = xp_asprintf("%s/decode_tp2_bs1_rank0.trace.json.gz", repo);
  char *r1 = xp_asprintf("%s/decode_tp2_bs1_rank1.trace.json.gz", repo);
  check_split(r0, r1);
  if (shared) {
    char *torch = xp_asprintf("%s/fixtures/torch", shared), *hta = xp_asprintf("%s/fixtures/hta", shared);
    int n = check_dir(torch);
    if (n) {
      char *a = xp_asprintf("%s/decode_tp2_bs16_rank0.trace.json.gz", torch);
      char *b = xp_asprintf("%s/decode_tp2_bs16_rank1.trace.json.gz", torch);
      check_split(a, b);
      free(a);
      free(b);
      check_hta(hta);
    } else {
      printf("shared fixtures not found under %s: checked the repository's sample only\n", shared);
    }
    free(torch);
    free(hta);
  }
  free(r0);
  free(r1);
  free(repo);
  tt_rules_free(&rules);
  CHECK_DONE();
}
