/*
** xp import nccl-tests FILE...: nccl-tests logs and -J JSON files become one run of kind
** nccl_burst, origin 'imported', so that old measurements sit in the same history as xp's own.
** A case is (collective, dtype, size, mode, placement) as for measured runs; the same case seen
** several times (-N cycles, several files) keeps every figure as a sample. nccl-tests' time is
** a mean over `iters` back-to-back collectives, so it is recorded as time_us and a burst of
** iters x agg collectives as burst_us. A topology dump (.xml) given alongside lets the INFO lines'
** P2P transports be told apart into NVLink and PCIe.
*/
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "kind.h"
#include "nccl_tests.h"
#include "runners/nccl_plan.h"
#include "runners/nccl_record.h"
#include "stats.h"
#include "torch_trace/tt_source.h"
#include "xp.h"

/* ---- document ---- */

void nt_doc_init(nt_doc *d, const char *path) {
  memset(d, 0, sizeof *d);
  d->path = path;
  d->agg = 1;
  d->avg_busbw = -1;
  d->out_of_bounds = -1;
  xp_nccl_info_init(&d->info);
}

void nt_doc_free(nt_doc *d) {
  for (int i = 0; i < d->nrows; i++)
    for (int p = 0; p < NT_NPLACE; p++) free(d->rows[i].r[p].iter_us);
  free(d->rows);
  free(d->env);
  free(d->ev);
  xp_strtab_free(&d->hosts);
  xp_nccl_info_free(&d->info);
}

nt_row *nt_doc_add_row(nt_doc *d) {
  if (d->nrows == d->nrows_alloc) {
    d->nrows_alloc = d->nrows_alloc ? 2 * d->nrows_alloc : 64;
    d->rows = xp_xrealloc(d->rows, sizeof *d->rows * (size_t)d->nrows_alloc);
  }
  nt_row *r = &d->rows[d->nrows++];
  memset(r, 0, sizeof *r);
  r->r[NT_OUT].wrong = r->r[NT_IN].wrong = -1;
  r->r[NT_OUT].bitdiff = r->r[NT_IN].bitdiff = -1;
  r->r[NT_OUT].max_err = r->r[NT_IN].max_err = NAN;
  return r;
}

/* busbw / algbw is 2(n-1)/n for allreduce and (n-1)/n for allgather, reduce_scatter and
** alltoall (nccl-tests' GetBw); broadcast, reduce and sendrecv give 1 whatever n is. The text
** prints both with two decimals (JSON with six): each may be off by half its last digit, which
** moves the ratio by (half / algbw) (1 + ratio) and n by that times dn/d(ratio); n counts only
** where that cannot reach the next whole number. */
static int ranks_from_bw(const nt_row *r, const nt_result *res, double half) {
  if (!res->have || res->algbw <= 0 || res->busbw <= 0) return -1;
  const double f = res->busbw / res->algbw, df = half / res->algbw * (1 + f);
  double n, dn;
  if (strcmp(r->coll, "allreduce") == 0) {
    n = f < 2 ? 2 / (2 - f) : -1;
    dn = n * n / 2 * df;
  } else if (strcmp(r->coll, "allgather") == 0 || strcmp(r->coll, "reducescatter") == 0 ||
             strcmp(r->coll, "alltoall") == 0) {
    n = f < 1 ? 1 / (1 - f) : -1;
    dn = n * n * df;
  } else return -1;
  if (n < 1.5 || n > 1e5 || dn >= 0.3) return -1;
  return fabs(n - floor(n + 0.5)) <= dn + 1e-6 ? (int)floor(n + 0.5) : -1;
}

/* The ranks a report's evidence states, without its figures: 0 none. */
static int evidence_ranks(const nt_rank_evidence *e) {
  return e->info > 0 ? e->info : e->stated > 0 ? e->stated : e->listed > 0 ? e->listed : e->assumed;
}

int nt_add_rank_evidence(nt_doc *d, const nt_rank_evidence *e) {
  d->ev = xp_xrealloc(d->ev, sizeof *d->ev * (size_t)(d->nev + 1));
  d->ev[d->nev++] = *e;
  return evidence_ranks(e);
}

/* The ranks report k's rows' figures give: 0 none, -1 rows that disagree. */
static int report_bw_ranks(const nt_doc *d, int k) {
  int n = 0;
  for (int i = 0; i < d->nrows; i++) {
    if (d->rows[i].report != k) continue;
    for (int p = 0; p < NT_NPLACE; p++) {
      int m = ranks_from_bw(&d->rows[i], &d->rows[i].r[p], d->precise ? 5e-7 : 5e-3);
      if (m > 0 && n > 0 && m != n) return -1;
      if (m > 0) n = m;
    }
  }
  return n;
}

static int report_share_ranks(const nt_doc *d, int k);

/* Appends ", SOURCE says N" to a warning where a weaker source gives another count. */
static void disagrees(char *buf, size_t n, const char *source, int says, int chosen) {
  size_t used = strlen(buf);
  if (says > 0 && says != chosen && used < n) snprintf(buf + used, n - used, ", %s says %d", source, says);
}

/*
** The strongest source wins: NCCL's own nranks (INFO lines), the count the file's fields state
** (rccl-tests' -x file), a device list with no gap, a rank's share of the size (all_gather's and
** the like: size / (count x the type's size)), the
** figures' busbw / algbw, nThread x nGpus where no device line is (which assumes one process).
** A device list with gaps (a pasted excerpt) only bounds the count from below. Alone, that bound
** is not recorded as the count: gpu_count and a case's ranks are read as the job's size (by
** queries and the busbw / algbw relation), and a bound would be read as one; unknown is honest.
*/
void nt_infer_ranks(nt_doc *d) {
  const int nreports = d->nev > 0 ? d->nev : 1;
  for (int k = 0; k < nreports; k++) {
    nt_rank_evidence e = {0, 0, 0, 0, 0};
    if (d->nev > 0) e = d->ev[k];
    const int bw = report_bw_ranks(d, k), shares = report_share_ranks(d, k);
    int n = 0, by_bw = 0;
    const char *from = "";
    if (e.info > 0) n = e.info, from = "NCCL's INFO lines";
    else if (e.stated > 0) n = e.stated, from = "the file's rank fields";
    else if (e.listed > 0) n = e.listed, from = "the device lines";
    else if (shares > 0) n = shares, from = "size / count";
    else if (bw > 0) n = bw, from = "busbw / algbw", by_bw = 1;
    else if (e.assumed > 0) n = e.assumed, from = "nThread x nGpus";
    char report[32] = "", why[256] = "";
    if (d->nev > 1) snprintf(report, sizeof report, "report %d: ", k + 1);
    if (n > 0) {
      disagrees(why, sizeof why, "the file's rank fields", e.stated, n);
      disagrees(why, sizeof why, "the device list", e.listed, n);
      if (e.at_least > n) disagrees(why, sizeof why, "the device list (at least)", e.at_least, n);
      disagrees(why, sizeof why, "size / count", shares, n);
      disagrees(why, sizeof why, "busbw / algbw", bw, n);
      if (bw > 0 || shares > 0) disagrees(why, sizeof why, "nThread x nGpus (one process)", e.assumed, n);
      if (why[0]) xp_warn("%s: %s%d ranks from %s%s", d->path, report, n, from, why);
    } else if (e.at_least > 0) {
      xp_warn("%s: %sthe device lines have gaps: at least %d ranks; the count is left unknown (no NCCL INFO "
              "line or busbw / algbw says it)", d->path, report, e.at_least);
    }
    for (int i = 0; i < d->nrows; i++)
      if (d->rows[i].report == k) d->rows[i].nranks = n;
    if (k == 0) {
      d->nranks = n;
      d->ranks_inferred = by_bw;
    }
  }
}

void nt_coll_from_test(const char *test, char *out, size_t n) {
  char buf[64];
  snprintf(buf, sizeof buf, "%s", test);
  char *suffix = strstr(buf, "_perf");
  if (suffix) *suffix = 0;
  int c = xp_nccl_coll_parse(buf);
  if (c >= 0) {
    snprintf(out, n, "%s", xp_nccl_coll_name((enum xp_nccl_coll)c));
    return;
  }
  size_t j = 0; /* sendrecv, reduce, gather, scatter, hypercube: kept, without underscores */
  for (const char *s = buf; *s && j + 1 < n; s++)
    if (*s != '_') out[j++] = *s;
  out[j] = 0;
}

/* The bytes of an element of a type nccl-tests names (common.cu's test_typenames: int8 uint8
** int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2; "char" and "int" before
** 2.0; rccl-tests' fp8_e4m3 and fp8_e5m2), 0 for one xp does not know. */
static int64_t type_bytes(const char *dtype) {
  const int dt = xp_nccl_dtype_parse(dtype);
  if (dt >= 0) return (int64_t)xp_nccl_dtype_size((enum xp_nccl_dtype)dt);
  static const struct { const char *name; int bytes; } others[] = {
      {"int8", 1}, {"uint8", 1}, {"char", 1}, {"int32", 4}, {"uint32", 4}, {"int", 4},
      {"int64", 8}, {"uint64", 8}, {"double", 8}};
  for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
    if (strcmp(dtype, others[i].name) == 0) return others[i].bytes;
  return 0;
}

/* NCCL's TUNING line states the message as count x the type's size (enqueue.cc), whatever the type. */
const xp_nccl_tuning *nt_row_tuning(const nt_row *row, const xp_nccl_info *info) {
  const int coll = xp_nccl_coll_parse(row->coll);
  if (coll < 0 || row->count <= 0) return NULL;
  const int64_t size = type_bytes(row->dtype);
  /* a count the file prints past int64's bytes (9e18 elements) is no message NCCL tuned */
  if (size <= 0 || row->count > INT64_MAX / size) return NULL;
  return xp_nccl_info_tuning(info, xp_nccl_coll_func((enum xp_nccl_coll)coll), row->count * size);
}

int nt_blocking_from_line(const char *line) {
  if (strstr(line, "no barrier")) return NT_BLOCK_NO_BARRIER;
  if (strstr(line, "outer iteration")) return NT_BLOCK_OUTER;
  return NT_BLOCK_BARRIER;
}

const char *nt_option_value(const char *args, char short_opt, const char *long_opt, size_t *len) {
  const size_t long_len = strlen(long_opt);
  const char *value = NULL;
  int take_next = 0;
  for (const char *a = args + strspn(args, " \t"); *a; a += strspn(a, " \t")) {
    const size_t n = strcspn(a, " \t");
    const char *v = take_next                                                               ? a
                    : n > 2 + long_len && strncmp(a, "--", 2) == 0 &&
                          strncmp(a + 2, long_opt, long_len) == 0 && a[2 + long_len] == '=' ? a + 3 + long_len
                    : n > 2 && a[0] == '-' && a[1] == short_opt                             ? a + 2
                                                                                            : NULL;
    take_next = (n == 2 && a[0] == '-' && a[1] == short_opt) ||
                (n == 2 + long_len && strncmp(a, "--", 2) == 0 && strncmp(a + 2, long_opt, long_len) == 0);
    if (v) value = v, *len = n - (size_t)(v - a);
    a += n;
  }
  return value;
}

/* getopt_long takes "-z 2", "-z2", "--blocking 2" and "--blocking=2"; the last one given counts. */
int nt_blocking_from_args(const char *args) {
  size_t len;
  const char *value = nt_option_value(args, 'z', "blocking", &len);
  const long m = value ? strtol(value, NULL, 0) : 0;
  return m == NT_BLOCK_NO_BARRIER || m == NT_BLOCK_OUTER ? (int)m : NT_BLOCK_BARRIER;
}

/* nccl-tests reads -a with strtol and keeps any value; one past 3 times nothing it knows. */
int nt_average_from_args(const char *args) {
  size_t len;
  const char *value = nt_option_value(args, 'a', "average", &len);
  if (!value || len != 1 || value[0] < '0' || value[0] > '3') return NT_AVG_UNSTATED;
  return NT_AVG_RANK0 + (value[0] - '0');
}

int nt_average_effective(int average) { return average == NT_AVG_UNSTATED ? NT_AVG_MEAN : average; }

const char *nt_average_suffix(int average) {
  switch (nt_average_effective(average)) {
    case NT_AVG_RANK0: return "/time_rank0";
    case NT_AVG_MIN: return "/time_min";
    case NT_AVG_MAX: return "/time_max";
    default: return "";
  }
}

const char *nt_blocking_suffix(int mode) {
  switch (mode) {
    case 0: return "";
    case NT_BLOCK_NO_BARRIER: return "/blocking_nobarrier";
    case NT_BLOCK_OUTER: return "/blocking_outer";
    default: return "/blocking";
  }
}

void nt_dtype_from_test(const char *type, char *out, size_t n) {
  int d = xp_nccl_dtype_parse(type);
  snprintf(out, n, "%s", d >= 0 ? xp_nccl_dtype_name((enum xp_nccl_dtype)d) : type);
}

/* ---- files ---- */

enum file_kind { F_TEXT, F_JSON, F_REPORTER, F_TOPO, F_INFO };

/* A file of results (a document), not a topology dump or NCCL's log alone. */
static int has_results(enum file_kind k) { return k == F_TEXT || k == F_JSON || k == F_REPORTER; }

/* A file of NCCL's log alone (NCCL_DEBUG_FILE=nccl.%h.%p: each rank its own) beside the
** nccl-tests output: INFO lines and no report of nccl-tests'. A GIN device-API benchmark's table
** ("Size(B) ...") is a report, which the text reader names where it refuses it. */
static int info_only(const char *text, size_t len) {
  return memmem(text, len, "NCCL INFO", 9) && !memmem(text, len, "nThread", 7) &&
         !memmem(text, len, "Collective test starting", 24) && !memmem(text, len, "Avg bus bandwidth", 17) &&
         !memmem(text, len, "Size(B)", 7);
}

int nt_refuse_control(const nt_doc *d, const char *text, size_t from, size_t to) {
  const size_t ctl = xp_json_control_in_string(text, from, to);
  if (ctl == to) return 0;
  /* vllm-bench's and tt_json's words for the same fault */
  return xp_error_at(XP_EXIT_USAGE, d->path, xp_line_of_offset(text, ctl), "control character inside a string");
}

size_t nt_bom(const char *text, size_t len) {
  return len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

static enum file_kind classify(const char *text, size_t len) {
  size_t i = nt_bom(text, len);
  while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t')) i++;
  if (nt_reporter_form(text, len)) return F_REPORTER;
  if (i < len && text[i] == '{') return F_JSON;
  if (i < len && text[i] == '<' && memmem(text, len, "<system", 7)) return F_TOPO;
  if (info_only(text, len)) return F_INFO;
  return F_TEXT;
}

typedef struct loaded {
  int n;
  nt_doc *docs;
  char **texts;
  size_t *lens;
  enum file_kind *kinds;
  char **paths; /* as read: resolved against the spec's folder */
  xp_topo topo;
  int have_topo;
  int *twin; /* a text's -J file given with it: that file's index, else -1 (its rows are left out) */
  int job, njobs; /* the job this run records, of the jobs the one results file holds (1: the usual) */
  char *whole;    /* that file's bytes where it holds several jobs (texts[] holds the job's), else NULL */
  size_t whole_len;
  int left_out;   /* NCCL's lines of processes that printed no report, in no job's text */
  char job_what[160]; /* which lines the job is, for the summary */
} loaded;

static void loaded_free(loaded *L) {
  for (int i = 0; i < L->n; i++) {
    if (has_results(L->kinds[i])) nt_doc_free(&L->docs[i]);
    free(L->texts[i]);
  }
  free(L->docs);
  free(L->texts);
  for (int i = 0; i < L->n; i++) free(L->paths[i]);
  free(L->lens);
  free(L->kinds);
  free(L->paths);
  free(L->twin);
  free(L->whole);
  if (L->have_topo) xp_topo_free(&L->topo);
}

/* The test a file's name carries, as saved from its binary ("logs/all_gather_perf.8gpu.log"):
** the word that ends in "_perf", else NULL. */
static const char *test_in_path(const char *path, char *buf, size_t n) {
  const char *base = strrchr(path, '/');
  base = base ? base + 1 : path;
  const char *end = strstr(base, "_perf");
  if (!end) return NULL;
  const char *start = end;
  while (start > base && (isalnum((unsigned char)start[-1]) || start[-1] == '_')) start--;
  if (start == end) return NULL;
  snprintf(buf, n, "%.*s", (int)(end - start), start);
  return buf;
}

/* Whether every row of report k whose bandwidths have three figures (algbw from 1 GB/s) shows
** busbw / algbw = f, within what the print allows (as ranks_from_bw), and one row does. */
static int report_ratio_is(const nt_doc *d, int k, double f) {
  const double half = d->precise ? 5e-7 : 5e-3;
  int seen = 0;
  for (int i = 0; i < d->nrows; i++)
    for (int p = 0; p < NT_NPLACE && d->rows[i].report == k; p++) {
      const nt_result *res = &d->rows[i].r[p];
      if (!res->have || !(res->algbw >= 1) || isnan(res->busbw)) continue;
      if (fabs(res->busbw / res->algbw - f) > half / res->algbw * (1 + f) + 1e-9) return 0;
      seen = 1;
    }
  return seen;
}

/* Whether every row of report k printed an operation under its redop column (blank: 0). */
static int report_redop_printed(const nt_doc *d, int k, int printed) {
  int seen = 0;
  for (int i = 0; i < d->nrows; i++) {
    if (d->rows[i].report != k) continue;
    if ((d->rows[i].redop[0] != 0) != printed) return 0;
    seen = 1;
  }
  return seen;
}

/* Whether every row of report k printed a root (rccl-tests leaves it blank, nccl-tests prints -1,
** for a test without one). */
static int report_roots_printed(const nt_doc *d, int k) {
  int seen = 0;
  for (int i = 0; i < d->nrows; i++) {
    if (d->rows[i].report != k) continue;
    if (d->rows[i].root < 0) return 0;
    seen = 1;
  }
  return seen;
}

/*
** The test of an unnamed report (before 2.13) from its columns, where they and its figures leave
** one: each test printed its own header then (its print_header), and the operation its rows
** name. busbw / algbw is 2(n-1)/n for all_reduce, (n-1)/n for all_gather, reduce_scatter and
** alltoall, 1 for broadcast and hypercube. So "redop" and no "root" at 2(n-1)/n from 3 ranks is
** all_reduce (at 2 ranks, 1, as a sendrecv's); at (n-1)/n, reduce_scatter where its rows name
** the operation, alltoall where they leave it blank (its TimeTest passes ""); "root" and no
** "redop" at 1 is broadcast; neither column at (n-1)/n is all_gather (hypercube's is 1). Both
** "redop" and "root" at 1, every row naming an operation and a root, is reduce (reduce.cu's own
** header from 2.0; rccl-tests' one header for all tests leaves broadcast's operation and the
** others' root blank); not before 2.0, whose broadcast printed "op root" and "sum" as reduce did.
** NULL where nothing tells.
*/
static const char *test_from_columns(const nt_doc *d, const nt_row *row) {
  const unsigned cols = row->layout & (NT_COLS_NAMED | NT_COLS_REDOP | NT_COLS_ROOT | NT_COLS_WRONG);
  const int k = row->report, n = k < d->nev ? evidence_ranks(&d->ev[k]) : 0;
  const double part = n >= 2 ? (double)(n - 1) / n : -1;
  if (cols == (NT_COLS_NAMED | NT_COLS_REDOP) && n >= 3 && report_ratio_is(d, k, 2.0 * (n - 1) / n))
    return "all_reduce";
  if (cols == (NT_COLS_NAMED | NT_COLS_REDOP) && n >= 2 && report_ratio_is(d, k, part))
    return report_redop_printed(d, k, 1) ? "reduce_scatter" : report_redop_printed(d, k, 0) ? "alltoall" : NULL;
  if (cols == NT_COLS_NAMED && n >= 2 && report_ratio_is(d, k, part)) return "all_gather";
  if (cols == (NT_COLS_NAMED | NT_COLS_ROOT) && report_ratio_is(d, k, 1.0)) return "broadcast";
  if (cols == (NT_COLS_NAMED | NT_COLS_REDOP | NT_COLS_ROOT) && !(row->layout & NT_COLS_BEFORE2) &&
      report_redop_printed(d, k, 1) && report_roots_printed(d, k) && report_ratio_is(d, k, 1.0))
    return "reduce";
  return NULL;
}

/* How a test's printed size follows from its printed count (each test's GetCollByteCount, the
** same from 2.0 to 2.30 and in rccl-tests): all_reduce, reduce and sendrecv give both buffers
** and the call the whole count, so size = count x the type's size. all_gather, reduce_scatter,
** alltoall, gather, scatter and hypercube print the count of one rank's share (count/nranks,
** aligned down) and a size of that share times the ranks: a whole multiple of count x the
** type's size, 0 where the share is. broadcast is the first from a root (every root it prints
** is 0 or more); rccl-tests' grouped broadcast (RCCL_TESTS_ALLGATHERV_ENABLE=1: a broadcast from
** every rank, root printed -1) the second. alltoallv and the tests of forks vary: not known. */
enum count_relation { COUNT_UNKNOWN, COUNT_WHOLE, COUNT_SHARE };
static enum count_relation count_relation_of(const nt_row *r) {
  static const char *const whole[] = {"allreduce", "reduce", "sendrecv"};
  static const char *const share[] = {"allgather", "reducescatter", "alltoall", "gather", "scatter", "hypercube"};
  const char *coll = r->coll;
  if (strcmp(coll, "broadcast") == 0) return r->root >= 0 ? COUNT_WHOLE : COUNT_SHARE;
  for (size_t i = 0; i < sizeof whole / sizeof whole[0]; i++)
    if (strcmp(coll, whole[i]) == 0) return COUNT_WHOLE;
  for (size_t i = 0; i < sizeof share / sizeof share[0]; i++)
    if (strcmp(coll, share[i]) == 0) return COUNT_SHARE;
  return COUNT_UNKNOWN;
}

/* Whether a row's size and count can both be what its test printed (src/common.cu TimeTest:
** size max(sendBytes, expectedBytes), count nbytes / wordSize(type); -J's "size" and "count"
** the same). */
static int count_makes_size(enum count_relation rel, int64_t count, int64_t w, int64_t size) {
  if (count > INT64_MAX / w) return 0;
  const int64_t unit = count * w;
  if (rel == COUNT_WHOLE) return unit == size;
  return unit == 0 ? size == 0 : size >= unit && size % unit == 0; /* a share of 1 rank or more */
}

/* A row whose count and size no nccl-tests prints together (a -J "count" of 9e18 for 8 bytes) is
** no such row: refused. Not checked: a count not written (-1), a type or test xp does not know.
** json: rows are results[i], not lines. */
static int check_counts(const nt_doc *d, int json) {
  for (int i = 0; i < d->nrows; i++) {
    const nt_row *r = &d->rows[i];
    const enum count_relation rel = count_relation_of(r);
    const int64_t w = type_bytes(r->dtype);
    if (r->count < 0 || w <= 0 || rel == COUNT_UNKNOWN || count_makes_size(rel, r->count, w, r->bytes)) continue;
    char where[32] = "";
    if (json) snprintf(where, sizeof where, "results[%d]: ", i);
    return xp_error_at(XP_EXIT_USAGE, d->path, json ? 0 : r->line,
                       "%scount %lld of %s (%lld bytes each) does not make size %lld: nccl-tests' %s prints size = "
                       "%s", where, (long long)r->count, r->dtype, (long long)w, (long long)r->bytes, r->coll,
                       rel == COUNT_WHOLE ? "count x the type's size"
                                          : "count x the type's size x the ranks (count: one rank's share)");
  }
  return 0;
}

/* The ranks report k's rows of a rank's share give (size / (count x the type's size): the ranks
** GetCollByteCount was given), checked whole by check_counts: 0 none (no such row, or each of
** share 0), -1 rows that disagree. */
static int report_share_ranks(const nt_doc *d, int k) {
  int n = 0;
  for (int i = 0; i < d->nrows; i++) {
    const nt_row *r = &d->rows[i];
    const int64_t w = type_bytes(r->dtype);
    if (r->report != k || r->count <= 0 || w <= 0 || r->count > INT64_MAX / w || strcmp(r->coll, "broadcast") == 0 ||
        count_relation_of(r) != COUNT_SHARE)
      continue;
    const int64_t m = r->bytes / (r->count * w);
    if (m < 1 || m > INT_MAX || (n > 0 && m != n)) return -1;
    n = (int)m;
  }
  return n;
}

/* Reports from before nccl-tests printed "Collective test starting" do not name their test:
** --collective does, else the command line the log keeps before the report (nt_text.c), else the
** file's name where it holds the binary's, else the report's columns and figures where they tell
** (said), else "unknown". */
static void name_collective(const xp_spec *s, nt_doc *d) {
  const char *given = xp_spec_str(s->root, "collective", NULL);
  char from_path[64];
  const char *fallback = given ? given : test_in_path(d->path, from_path, sizeof from_path);
  int said = -1;
  for (int r = 0; r < d->nrows; r++) {
    nt_row *row = &d->rows[r];
    if (row->coll[0]) continue;
    const char *test = given ? given : row->run_by[0] ? row->run_by : fallback;
    const char *by_columns = test ? NULL : test_from_columns(d, row);
    if (by_columns && said != row->report) {
      said = row->report;
      xp_warn("%s:%d: the report does not name its test (nccl-tests before 2.13): read as %s from its columns "
              "and busbw / algbw (--collective names it otherwise)", d->path, row->line, by_columns);
    }
    nt_coll_from_test(test ? test : by_columns ? by_columns : "unknown", row->coll, sizeof row->coll);
  }
  if (!d->coll[0]) {
    if (d->nrows > 0) snprintf(d->coll, sizeof d->coll, "%s", d->rows[0].coll);
    else nt_coll_from_test(fallback ? fallback : "unknown", d->coll, sizeof d->coll);
  }
}

/* How far a time a text prints may be from the time measured: nccl-tests prints a time to 2, 1
** or 0 decimals by its size, so half the last digit printed (0.005 us, or 0.05% of the time; a
** hair more for binary rounding). Schema 24 matches two imports of one run by the same rule. */
static double printed_time_slack(double time_us) {
  return fmax(0.0051, 5e-4 * fabs(time_us));
}

/* Whether a text report's rows are a precise file's (the -J output of the same run) as the text
** rounds them. */
static int same_result(const nt_result *t, const nt_result *j) {
  if (t->have != j->have) return 0;
  return !t->have || (fabs(t->time_us - j->time_us) <= printed_time_slack(j->time_us) && t->wrong == j->wrong);
}

static int same_results(const nt_doc *t, const nt_doc *j) {
  if (t->nrows == 0 || t->nrows != j->nrows) return 0;
  for (int i = 0; i < t->nrows; i++) {
    const nt_row *a = &t->rows[i], *b = &j->rows[i];
    if (a->bytes != b->bytes || a->root != b->root || strcmp(a->coll, b->coll) || strcmp(a->dtype, b->dtype) ||
        strcmp(a->redop, b->redop))
      return 0;
    for (int p = 0; p < NT_NPLACE; p++)
      if (!same_result(&a->r[p], &b->r[p])) return 0;
  }
  return 1;
}

/* A text log given with the -J file of the same run ("# Writing JSON output to ...") holds the
** same measurement rounded: pooled, each case would count it twice. The precise file's rows are
** taken; the text still gives its NCCL INFO lines. */
static void find_twins(loaded *L) {
  L->twin = xp_xcalloc((size_t)L->n, sizeof *L->twin);
  for (int t = 0; t < L->n; t++) {
    L->twin[t] = -1;
    if (L->kinds[t] != F_TEXT) continue;
    for (int j = 0; j < L->n && L->twin[t] < 0; j++)
      if (has_results(L->kinds[j]) && L->docs[j].precise && same_results(&L->docs[t], &L->docs[j])) L->twin[t] = j;
  }
}

/* File i's text, as a container's log carries it, read instead of the file's bytes by every reader. */
static void replace_text(loaded *L, int i, char *text, size_t len) {
  free(L->texts[i]);
  L->texts[i] = text;
  L->lens[i] = len;
}

/* A results file's document from text: parsed, its tests named, its counts checked, its ranks
** weighed; where the text holds several jobs (d->next_job_line, d->job_keys), parsed only. */
static int read_doc(const xp_spec *s, nt_doc *d, const char *path, enum file_kind kind, const char *text,
                    size_t len) {
  nt_doc_init(d, path);
  int rc = kind == F_JSON       ? nt_parse_json(d, text, len)
           : kind == F_REPORTER ? nt_parse_reporter(d, text, len)
                                : nt_parse_text(d, text, len);
  if (rc || d->next_job_line || d->njob_keys > 1) return rc;
  name_collective(s, d);
  if ((rc = check_counts(d, kind == F_JSON)) != 0) return rc;
  nt_infer_ranks(d);
  return 0;
}

/* A text read with its refusal quiet and its warnings held in *warnings (malloc'd): whose they are,
** the file's or one job's of several, is known once it is read. Said from there (say_held) where
** they are the run's, so that the text is read once, where it was read again to say them. A
** refusal is said after all, as the one line it has, its warnings dropped (*warnings NULL). */
static int held_read(const xp_spec *s, nt_doc *d, const char *path, const char *text, size_t len,
                     char **warnings) {
  xp_error_quiet(1);
  xp_warn_hold();
  const int rc = read_doc(s, d, path, F_TEXT, text, len);
  xp_error_quiet(0);
  *warnings = xp_warn_held();
  if (rc == 0) return 0;
  free(*warnings);
  *warnings = NULL;
  return xp_error(rc, "%s", xp_last_error());
}

static void say_held(char *warnings) {
  if (warnings) fputs(warnings, stderr);
  free(warnings);
}

/* The jobs of one text in the order they come, those a job splits into taking its place: the
** labelled processes' (each a whole report), then each one's blocks on other hosts. */
static void split_job(nt_job *jobs, int *n, int at, const nt_doc *d) {
  nt_job parent = jobs[at], parts[NT_MAX_JOBS];
  int k = 0;
  if (d->njob_keys > 1)
    for (; k < d->njob_keys; k++) {
      parts[k] = parent;
      snprintf(parts[k].key, sizeof parts[k].key, "%s", d->job_keys[k]);
    }
  else {
    parts[0] = parts[1] = parent;
    parts[0].to = parts[1].from = d->next_job_line;
    k = 2;
  }
  if (*n - 1 + k > NT_MAX_JOBS) k = NT_MAX_JOBS - *n + 1; /* refused by the caller */
  memmove(jobs + at + k, jobs + at + 1, sizeof *jobs * (size_t)(*n - at - 1));
  memcpy(jobs + at, parts, sizeof *jobs * (size_t)k);
  *n += k - 1;
}

/* "lines 1 to 185", "lines 186 to the end", "the lines labelled \"node02:\"". */
static void job_lines(const nt_job *job, char *buf, size_t n) {
  char to[32] = "the end";
  if (job->to > 0) snprintf(to, sizeof to, "%d", job->to - 1);
  if (job->key[0] && job->from <= 1 && job->to <= 0) snprintf(buf, n, "the lines labelled \"%s\"", job->key);
  else if (job->key[0]) snprintf(buf, n, "the lines labelled \"%s\" of lines %d to %s", job->key, job->from, to);
  else snprintf(buf, n, "lines %d to %s", job->from, to);
}

/* jobs[at] split into the jobs d, its text's read, says it holds; refused where they make more than
** NT_MAX_JOBS. */
static int split_read_job(const char *path, nt_job *jobs, int *n, int at, const nt_doc *d) {
  if (*n + (d->njob_keys > 1 ? d->njob_keys : 2) - 1 > NT_MAX_JOBS)
    return xp_error_at(XP_EXIT_USAGE, path, 0, "reports of more than %d jobs (a test run on each host): import them "
                       "in several files", NT_MAX_JOBS);
  split_job(jobs, n, at, d);
  return 0;
}

/* One job's text as read_jobs reads it: its lines (the others blank), the NCCL lines no job's label
** names, and the warnings its read held. */
typedef struct job_read {
  char *text;
  size_t len;
  int left_out;
  char *warnings;
} job_read;

/* A multi-job text's jobs as read_jobs read them, kept for the runs after the first: xp runs
** execute again for each job of the spec (exec.c's record_later_jobs), and each took the file
** from the disk and read it whole, and every job, again: a log of N jobs was read N times. */
static struct {
  const xp_spec *spec; /* whose, NULL none */
  int next, n;         /* the job the next execute takes, of n */
  char *path, *whole;  /* the file, and its text (each run keeps it as its artifact) */
  size_t whole_len;
  job_read reads[NT_MAX_JOBS];
  nt_doc docs[NT_MAX_JOBS];
  char what[NT_MAX_JOBS][160];
} jobs_kept;

static void jobs_kept_free(void) {
  for (int j = jobs_kept.next; jobs_kept.spec && j < jobs_kept.n; j++) {
    nt_doc_free(&jobs_kept.docs[j]);
    free(jobs_kept.reads[j].text);
    free(jobs_kept.reads[j].warnings);
  }
  free(jobs_kept.path);
  free(jobs_kept.whole);
  memset(&jobs_kept, 0, sizeof jobs_kept);
}

/*
** A text log that holds several jobs (a test run on each host, its output gathered by pdsh |
** dshbak or clush -b, a block per host, or by pdsh or mpirun --tag-output, a label per line): each
** job is a run of its own, with its own devices, hosts and options, as if each had been imported
** alone. Every job is read whole before its file is taken (each run of the import reads them all),
** so that a fault in any job fails the first run and none is recorded ok; then L->docs[i] and
** L->texts[i] become job L->job's, the other jobs' lines left blank so that every line keeps its
** number. Each text is read once (the whole one by load): job L->job's is kept as read, its
** warnings said, where it was read again to say them.
*/
static int read_jobs(const xp_spec *s, loaded *L, int i, int nfiles, int keep) {
  nt_job jobs[NT_MAX_JOBS] = {{1, 0, ""}};
  int n = 1;
  int rc = split_read_job(L->paths[i], jobs, &n, 0, &L->docs[i]); /* the whole text's, read by load */
  job_read reads[NT_MAX_JOBS]; /* each job's, kept as it was read: L->job's for its run, the others' */
  nt_doc docs[NT_MAX_JOBS];    /* for the runs after it where keep is set */
  int nread = 0;
  for (int j = 0; j < n && rc == 0;) {
    job_read r = {NULL, 0, 0, NULL};
    r.text = nt_job_text(&L->docs[i], L->texts[i], L->lens[i], &jobs[j], &r.len, &r.left_out);
    nt_doc d;
    rc = held_read(s, &d, L->paths[i], r.text, r.len, &r.warnings);
    if (rc == 0 && (d.next_job_line || d.njob_keys > 1)) rc = split_read_job(L->paths[i], jobs, &n, j, &d);
    else if (rc == 0) {
      reads[nread] = r;
      docs[nread++] = d;
      j++;
      continue;
    }
    nt_doc_free(&d);
    free(r.text);
    free(r.warnings);
  }
  /* which host's topology dump or NCCL log another file is, or which job a -J file repeats, is not told */
  if (rc == 0 && nfiles > 1)
    rc = xp_error_at(XP_EXIT_USAGE, L->paths[i], 0, "holds the reports of %d jobs (a test run on each host), each "
                     "recorded as a run of its own: import it alone, without other files beside it", n);
  else if (rc == 0 && L->job >= n)
    rc = xp_error_at(XP_EXIT_USAGE, L->paths[i], 0, "holds the reports of %d jobs, no job %d: set job to 1..%d", n,
                     L->job + 1, n);
  for (int j = 0; j < nread; j++) {
    if (rc == 0 && j == L->job) continue;
    if (rc == 0 && keep && j > L->job) {
      jobs_kept.reads[j] = reads[j];
      jobs_kept.docs[j] = docs[j];
      job_lines(&jobs[j], jobs_kept.what[j], sizeof jobs_kept.what[j]);
      continue;
    }
    nt_doc_free(&docs[j]);
    free(reads[j].text);
    free(reads[j].warnings);
  }
  if (rc) return rc;
  L->njobs = n;
  job_lines(&jobs[L->job], L->job_what, sizeof L->job_what);
  L->whole = L->texts[i];
  L->whole_len = L->lens[i];
  if (keep) {
    jobs_kept.spec = s;
    jobs_kept.next = L->job + 1;
    jobs_kept.n = n;
    jobs_kept.path = xp_strdup(L->paths[i]);
    jobs_kept.whole = xp_xmalloc(L->whole_len + 1);
    memcpy(jobs_kept.whole, L->whole, L->whole_len + 1);
    jobs_kept.whole_len = L->whole_len;
  }
  L->texts[i] = reads[L->job].text;
  L->lens[i] = reads[L->job].len;
  L->left_out = reads[L->job].left_out;
  nt_doc_free(&L->docs[i]);
  L->docs[i] = docs[L->job];
  say_held(reads[L->job].warnings);
  return 0;
}

/* Job `job`'s run from what read_jobs kept (the file is not read again), as load would make it. */
static int load_kept(loaded *L, int job) {
  memset(L, 0, sizeof *L);
  L->n = 1;
  L->job = job;
  L->njobs = jobs_kept.n;
  L->docs = xp_xcalloc(1, sizeof *L->docs);
  L->texts = xp_xcalloc(1, sizeof *L->texts);
  L->lens = xp_xcalloc(1, sizeof *L->lens);
  L->kinds = xp_xcalloc(1, sizeof *L->kinds);
  L->paths = xp_xcalloc(1, sizeof *L->paths);
  L->paths[0] = xp_strdup(jobs_kept.path);
  L->kinds[0] = F_TEXT;
  L->texts[0] = jobs_kept.reads[job].text;
  L->lens[0] = jobs_kept.reads[job].len;
  L->left_out = jobs_kept.reads[job].left_out;
  L->docs[0] = jobs_kept.docs[job];
  L->docs[0].path = L->paths[0];
  snprintf(L->job_what, sizeof L->job_what, "%s", jobs_kept.what[job]);
  L->whole = xp_xmalloc(jobs_kept.whole_len + 1);
  memcpy(L->whole, jobs_kept.whole, jobs_kept.whole_len + 1);
  L->whole_len = jobs_kept.whole_len;
  say_held(jobs_kept.reads[job].warnings);
  jobs_kept.reads[job].warnings = NULL;
  if (++jobs_kept.next == jobs_kept.n) jobs_kept_free(); /* the last job's run */
  find_twins(L);
  return 0;
}

/* Reads the spec's files for the run of job `job` (0 where the files hold one job, as is usual);
** with keep, a multi-job text's later jobs are kept for their runs (load_kept). */
static int load(const xp_spec *s, loaded *L, int job, int keep) {
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(s->root, "files"), *f;
  int n = cJSON_GetArraySize(files), rc = 0;
  memset(L, 0, sizeof *L);
  L->job = job;
  L->njobs = 1;
  L->docs = xp_xcalloc((size_t)n, sizeof *L->docs);
  L->texts = xp_xcalloc((size_t)n, sizeof *L->texts);
  L->lens = xp_xcalloc((size_t)n, sizeof *L->lens);
  L->kinds = xp_xcalloc((size_t)n, sizeof *L->kinds);
  L->paths = xp_xcalloc((size_t)n, sizeof *L->paths);
  cJSON_ArrayForEach(f, files) {
    int i = L->n++;
    /* relative to the spec's folder, as torch_trace and vllm_bench read theirs (xp import's
    ** are absolute) */
    const char *path = L->paths[i] = xp_spec_resolve(s, f->valuestring);
    L->texts[i] = xp_read_file(path, &L->lens[i]);
    if (!L->texts[i]) return xp_error_at(XP_EXIT_USAGE, path, 0, "cannot read: %s", strerror(errno));
    /* a log kept gzip'd (all_reduce_perf ... | gzip, a CI's .log.gz): its text, so that every check
    ** and reader after (UTF-16, Docker, CRI, the report) takes it as the log itself, and errors name
    ** the text's lines */
    if ((rc = tt_inflate_text(path, &L->texts[i], &L->lens[i], "text"))) return rc;
    /* a log of a test run in WSL, redirected in PowerShell: every other byte NUL, no line any
    ** reader takes */
    if ((rc = xp_utf16_refused(path, L->texts[i], L->lens[i]))) return rc;
    char *carried, *joined;
    size_t carried_len, joined_len;
    if ((rc = nt_docker_text(path, L->texts[i], L->lens[i], &carried, &carried_len))) return rc;
    if (carried) replace_text(L, i, carried, carried_len); /* Docker's json-file log: its text */
    joined = nt_cri_join(L->texts[i], L->lens[i], &joined_len);
    if (joined) replace_text(L, i, joined, joined_len); /* a container log's split lines, read whole */
    L->kinds[i] = classify(L->texts[i], L->lens[i]);
    if (L->kinds[i] == F_INFO) continue; /* read for its INFO lines with the others (execute) */
    if (L->kinds[i] == F_TOPO) {
      char err[128];
      if (L->have_topo) return xp_error_at(XP_EXIT_USAGE, path, 0, "a second topology dump; give one");
      if (xp_topo_parse(L->texts[i], L->lens[i], &L->topo, err, sizeof err) != 0)
        return xp_error_at(XP_EXIT_USAGE, path, 0, "%s", err);
      L->have_topo = 1;
      continue;
    }
    /* a text's warnings held: where it holds several jobs, each job's warnings are its run's */
    char *warnings = NULL;
    rc = L->kinds[i] == F_TEXT ? held_read(s, &L->docs[i], path, L->texts[i], L->lens[i], &warnings)
                               : read_doc(s, &L->docs[i], path, L->kinds[i], L->texts[i], L->lens[i]);
    if (rc == 0 && (L->docs[i].next_job_line || L->docs[i].njob_keys > 1)) {
      free(warnings);
      rc = read_jobs(s, L, i, n, keep);
    } else say_held(warnings);
    if (rc) return rc;
  }
  if (L->job > 0 && L->njobs == 1)
    return xp_error_at(XP_EXIT_USAGE, L->paths[0], 0, "holds the reports of one job, no job %d: leave job out",
                       L->job + 1);
  find_twins(L);
  int results = 0, info = 0;
  for (int i = 0; i < L->n; i++) results += has_results(L->kinds[i]), info += L->kinds[i] == F_INFO;
  /* Named at the first file given, as every other refusal of an input is */
  if (!results)
    return xp_error_at(XP_EXIT_USAGE, L->paths[0], 0, "%s: add the nccl-tests output",
                       L->have_topo && info ? "a topology dump and NCCL's log alone hold no results"
                       : L->have_topo       ? "a topology dump alone holds no results"
                                            : "NCCL's log alone holds no results");
  return 0;
}

/* ---- cases: rows with the same identity gather their figures as samples ---- */

typedef struct icase {
  const nt_row *first;
  int nranks, place, graph;
  int64_t burst;
  int blocking;
  int average;    /* NT_AVG_*, UNSTATED as the default it is */
  int n, cap, niter;
  double *time, *alg, *bus, *iter;
  int64_t wrong, bitdiff;
  double max_err; /* before 2.13: the largest error over the samples, NAN if none */
  int cputime;
  int no_bw;      /* samples whose bandwidth the file prints as nan or inf */
} icase;

/* -o all and -r all print a row per reduction and root: each its own case. */
static int same_case(const icase *c, const nt_row *r, int place) {
  const nt_row *f = c->first;
  return c->place == place && c->nranks == r->nranks && c->graph == (r->graph > 0) && c->blocking == r->blocking &&
         c->average == nt_average_effective(r->average) && f->bytes == r->bytes && f->root == r->root && strcmp(f->coll, r->coll) == 0 &&
         strcmp(f->dtype, r->dtype) == 0 && strcmp(f->redop, r->redop) == 0 &&
         c->burst == (int64_t)r->iters * (r->agg > 0 ? r->agg : 1);
}

static icase *find_case(icase **cs, int *ncs, const nt_row *r, int place) {
  for (int i = 0; i < *ncs; i++)
    if (same_case(&(*cs)[i], r, place)) return &(*cs)[i];
  *cs = xp_xrealloc(*cs, sizeof **cs * (size_t)(*ncs + 1));
  icase *c = &(*cs)[(*ncs)++];
  memset(c, 0, sizeof *c);
  c->first = r;
  c->place = place;
  c->nranks = r->nranks;
  c->blocking = r->blocking;
  c->average = nt_average_effective(r->average);
  c->graph = r->graph > 0;
  c->burst = (int64_t)r->iters * (r->agg > 0 ? r->agg : 1);
  c->wrong = c->bitdiff = -1;
  c->max_err = NAN;
  return c;
}

/*
** A text prints algbw and busbw with two decimals: below 1 GB/s that is two figures or fewer, and
** a small message's "0.00" is no zero but under 0.005 (its -J file: 0.000431). Its time has three
** figures or more, and nccl-tests computes algbw from it (bytes / time) and busbw as algbw times
** the collective's factor (GetBw): there the figures are taken from the time, where that agrees
** with what was printed (which checks the collective's formula); a busbw no factor gives and
** printed "0.00" is left out (NAN), never recorded as 0. From 1 GB/s the print is kept.
*/
static double within_print(double derived, double printed, double time_us) {
  const double slack = 0.005 + derived * printed_time_slack(time_us) / time_us + 1e-9;
  return isfinite(derived) && fabs(derived - printed) <= slack ? derived : NAN;
}

/* The tests that send each rank's share to or from one rank, or (hypercube) to every other. */
static int share_test(const char *coll) {
  return strcmp(coll, "gather") == 0 || strcmp(coll, "scatter") == 0 || strcmp(coll, "hypercube") == 0;
}

/* busbw / (size / time) as a test's GetBw computes it: xp's collectives' (nccl_plan.c), 1 for
** reduce and sendrecv (busBw = algBw in every version), (n-1)/n for gather, scatter and hypercube
** (nccl-tests' gather.cu and scatter.cu: algBw count·n / time, times (n-1)/n; rccl-tests' older
** ones and every hypercube.cu: algBw count·(n-1) / time, times 1: the same busbw); 0 where not
** known. */
static double busbw_factor(const char *coll, int nranks) {
  const int c = xp_nccl_coll_parse(coll);
  if (c >= 0) return xp_nccl_busbw_factor((enum xp_nccl_coll)c, nranks);
  if (share_test(coll)) return nranks > 0 ? (double)(nranks - 1) / nranks : 0;
  return strcmp(coll, "reduce") == 0 || strcmp(coll, "sendrecv") == 0 ? 1.0 : 0;
}

/* algbw / (size / time): hypercube's counts the (n-1) shares a rank receives, not its size. */
static double algbw_factor(const char *coll, int nranks) {
  if (strcmp(coll, "hypercube") != 0) return 1.0;
  return nranks > 0 ? (double)(nranks - 1) / nranks : 0;
}

/* Each figure apart: a busbw under 1 GB/s beside an algbw above it (0.65 of 1.29 at 2 ranks) is
** taken from the time too, where the algbw agrees with it. */
static void text_bandwidth(const nt_row *r, const nt_result *res, double *alg, double *bus) {
  *alg = res->algbw, *bus = res->busbw;
  if (res->time_us <= 0 || (res->algbw >= 1 && res->busbw >= 1) || r->bytes <= 0) return;
  const double base = xp_nccl_algbw(r->bytes, res->time_us);
  const double a = within_print(base * algbw_factor(r->coll, r->nranks), res->algbw, res->time_us);
  if (isnan(a)) return;
  if (res->algbw < 1) *alg = a;
  if (res->busbw >= 1) return;
  const double f = busbw_factor(r->coll, r->nranks);
  const double b = f > 0 ? within_print(base * f, res->busbw, res->time_us) : NAN;
  if (!isnan(b)) *bus = b;
  else if (res->busbw == 0) *bus = NAN;
}

/* A count summed over a case's samples (none yet: sum -1), held at int64's end: a file's counts
** are not trusted to be small (-J's "nwrong": 1e300, saturated, in two cycles of -N 2). */
static int64_t add_count(int64_t sum, int64_t n) {
  if (sum < 0) sum = 0;
  return n > INT64_MAX - sum ? INT64_MAX : sum + n;
}

static void add_sample(icase *c, const nt_row *row, const nt_result *res, int precise) {
  if (c->n == c->cap) {
    c->cap = c->cap ? 2 * c->cap : 4;
    c->time = xp_xrealloc(c->time, sizeof *c->time * (size_t)c->cap);
    c->alg = xp_xrealloc(c->alg, sizeof *c->alg * (size_t)c->cap);
    c->bus = xp_xrealloc(c->bus, sizeof *c->bus * (size_t)c->cap);
  }
  c->time[c->n] = res->time_us;
  c->alg[c->n] = res->algbw;
  c->bus[c->n] = res->busbw;
  c->no_bw += isnan(res->algbw) || isnan(res->busbw);
  if (!precise) text_bandwidth(row, res, &c->alg[c->n], &c->bus[c->n]);
  c->n++;
  c->cputime |= res->cputime;
  if (res->wrong >= 0) c->wrong = add_count(c->wrong, res->wrong);
  if (res->bitdiff >= 0) c->bitdiff = add_count(c->bitdiff, res->bitdiff);
  if (!isnan(res->max_err) && !(res->max_err <= c->max_err)) c->max_err = res->max_err;
  if (res->niter) {
    c->iter = xp_xrealloc(c->iter, sizeof *c->iter * (size_t)(c->niter + res->niter));
    memcpy(c->iter + c->niter, res->iter_us, sizeof *c->iter * (size_t)res->niter);
    c->niter += res->niter;
  }
}

/* The median of the samples that say something (a bandwidth under a text's resolution: NAN). */
static double median(const double *v, int n) {
  double *known = xp_xmalloc(sizeof *known * (size_t)(n + 1));
  int k = 0;
  for (int i = 0; i < n; i++)
    if (!isnan(v[i])) known[k++] = v[i];
  xp_stats s;
  xp_stats_compute(known, (size_t)k, &s);
  free(known);
  return k ? s.median : NAN;
}

static int record_case(xp_run *r, const icase *c, const xp_nccl_info *info) {
  const nt_row *row = c->first;
  char name[192], note[128] = "";
  const char *mode = c->graph ? "graph" : "eager", *place = c->place == NT_OUT ? "out_of_place" : "in_place";
  char op[48] = "", root[32] = "";
  /* names stay as the measured runs' where the reduction is sum and the root 0 */
  if (row->redop[0] && strcmp(row->redop, "none") != 0 && strcmp(row->redop, "sum") != 0)
    snprintf(op, sizeof op, "/%s", row->redop);
  if (row->root > 0) snprintf(root, sizeof root, "/root%d", row->root);
  snprintf(name, sizeof name, "%s/%s/%lld/%s/%s%s%s%s%s", row->coll, row->dtype, (long long)row->bytes, mode, place,
           op, root, nt_blocking_suffix(c->blocking), nt_average_suffix(c->average));
  cJSON *params = xp_nccl_case_params(row->coll, row->dtype, row->bytes, row->count, mode, place, c->burst,
                                      c->nranks);
  cJSON_AddStringToObject(params, "source", "nccl-tests");
  if (row->redop[0] && strcmp(row->redop, "none") != 0) cJSON_AddStringToObject(params, "redop", row->redop);
  if (row->root >= 0) cJSON_AddNumberToObject(params, "root", row->root);
  if (c->graph) cJSON_AddNumberToObject(params, "graph_launches", row->graph);
  if (row->agg > 1) cJSON_AddNumberToObject(params, "agg_iters", row->agg);
  if (c->cputime) cJSON_AddStringToObject(params, "timing", "cputime");
  if (c->blocking) cJSON_AddBoolToObject(params, "blocking", 1);
  if (c->blocking > NT_BLOCK_BARRIER) cJSON_AddNumberToObject(params, "blocking_mode", c->blocking);
  /* which rank's time (-a) where it is not the mean: "rank0", "min", "max", the name's ending */
  if (c->average != NT_AVG_MEAN) cJSON_AddStringToObject(params, "time_over_ranks", nt_average_suffix(c->average) + 6);
  /* the choice logged just before the row where the text had one (nt_text.c), else the
  ** last one for its size in all the logs */
  const xp_nccl_tuning *t = row->algo[0] ? NULL : nt_row_tuning(row, info);
  if (row->algo[0] || t) {
    cJSON_AddStringToObject(params, "algo", row->algo[0] ? row->algo : t->algo);
    cJSON_AddStringToObject(params, "proto", row->algo[0] ? row->proto : t->proto);
  }
  /* before 2.13 nccl-tests printed the largest error, not a count: "wrong" is then 1 a failed
  ** sample (nt_text.c judges it against the type's bound) */
  if (c->wrong > 0 && !isnan(c->max_err))
    snprintf(note, sizeof note, "largest error %g, past the bound for %s (nccl-tests before 2.13)", c->max_err,
             row->dtype);
  else if (c->wrong > 0) snprintf(note, sizeof note, "%lld wrong elements reported", (long long)c->wrong);
  else if (c->bitdiff > 0) /* nccl-tests' "Bitwise mismatches: FAILED": not repeatable */
    snprintf(note, sizeof note, "%lld elements differ bitwise between repeats", (long long)c->bitdiff);
  else if (c->no_bw) /* said where the figure is missing: no reader takes it for 0 or for lost */
    snprintf(note, sizeof note, "bandwidth printed as nan or inf in %d of %d samples (a time of 0?): not recorded",
             c->no_bw, c->n);
  int64_t id = xp_run_case(r, name, params, c->wrong > 0 || c->bitdiff > 0 ? "failed" : "ok", note[0] ? note : NULL);
  cJSON_Delete(params);
  if (id < 0) return XP_EXIT_DB;
  /* -C reports the host's enqueue time: a different quantity, kept under its own name. */
  int rc = xp_run_metric(r, id, c->cputime ? "cputime_us" : "time_us", "us", c->time, (size_t)c->n);
  if (rc == 0 && !c->cputime && c->burst > 0) {
    double *burst = xp_xmalloc(sizeof *burst * (size_t)c->n);
    for (int i = 0; i < c->n; i++) burst[i] = c->time[i] * (double)c->burst;
    rc = xp_run_metric(r, id, "burst_us", "us", burst, (size_t)c->n);
    free(burst);
  }
  if (rc == 0 && c->niter) rc = xp_run_metric(r, id, "iter_us", "us", c->iter, (size_t)c->niter);
  const double alg = median(c->alg, c->n), bus = median(c->bus, c->n);
  if (rc == 0 && !isnan(alg)) rc = xp_run_value(r, id, "algbw_GBps", "GB/s", alg);
  if (rc == 0 && !isnan(bus)) rc = xp_run_value(r, id, "busbw_GBps", "GB/s", bus);
  if (rc == 0 && c->wrong >= 0 && isnan(c->max_err)) rc = xp_run_value(r, id, "wrong", "count", (double)c->wrong);
  if (rc == 0 && !isnan(c->max_err)) rc = xp_run_value(r, id, "max_error", "abs", c->max_err);
  if (rc == 0 && c->bitdiff >= 0) rc = xp_run_value(r, id, "bitwise_diff", "count", (double)c->bitdiff);
  return rc;
}

/* Cases whose results the test itself found wrong (#wrong, or bitwise differences between -R
** repeats): recorded as failed with the note saying which, and counted for one warning, as gemm
** warns of its failed cases; the import itself is whole. */
static int record_cases(xp_run *r, const loaded *L, const xp_nccl_info *info, int *ncases, int *nfailed) {
  icase *cs = NULL;
  int ncs = 0, rc = 0;
  for (int f = 0; f < L->n; f++) {
    if (L->kinds[f] == F_TOPO || L->kinds[f] == F_INFO || L->twin[f] >= 0) continue;
    const nt_doc *d = &L->docs[f];
    for (int i = 0; i < d->nrows; i++)
      for (int p = 0; p < NT_NPLACE; p++)
        if (d->rows[i].r[p].have)
          add_sample(find_case(&cs, &ncs, &d->rows[i], p), &d->rows[i], &d->rows[i].r[p], d->precise);
  }
  *nfailed = 0;
  for (int i = 0; i < ncs && rc == 0; i++) {
    rc = record_case(r, &cs[i], info);
    *nfailed += cs[i].wrong > 0 || cs[i].bitdiff > 0;
  }
  for (int i = 0; i < ncs; i++) {
    free(cs[i].time);
    free(cs[i].alg);
    free(cs[i].bus);
    free(cs[i].iter);
  }
  free(cs);
  *ncases = ncs;
  return rc;
}

/* ---- facts ---- */

static int version_text(int code, char *buf, size_t n) {
  if (code <= 0) return -1;
  /* NCCL_VERSION(X,Y,Z): X*10000 + Y*100 + Z since 2.9, X*1000 + Y*100 + Z before. */
  if (code >= 20900) snprintf(buf, n, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
  else snprintf(buf, n, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
  return 0;
}

/* The options the file ran with, as one sentence; a file that states none (a table pasted without
** its head, rccl-tests' -x file) says so, not zeros. */
static void options_text(const nt_doc *d, char *buf, size_t n) {
  static const char *const blocking_said[] = {"", ", blocking", ", blocking without barrier (-z 2)",
                                              ", blocking per outer iteration, barrier untimed (-z 3)"};
  char ranks[64] = "ranks unknown";
  const char *several = d->nreports > 1 ? "; the first of several reports in the file, each with its own options" : "";
  if (d->nranks > 0)
    snprintf(ranks, sizeof ranks, "%d rank%s%s", d->nranks, d->nranks == 1 ? "" : "s",
             d->ranks_inferred ? " (from busbw / algbw)" : "");
  if (d->nthreads <= 0 && d->ngpus <= 0 && d->iters <= 0) {
    snprintf(buf, n, "not in the file (no \"# nThread\" line: threads, GPUs per process, iterations unknown); %s%s",
             ranks, several);
    return;
  }
  snprintf(buf, n, "%d thread%s x %d GPU%s per process, %s; warmup %d, iters %d, agg %d, graph %d, validation %d%s%s%s",
           d->nthreads, d->nthreads == 1 ? "" : "s", d->ngpus, d->ngpus == 1 ? "" : "s", ranks, d->warmup, d->iters,
           d->agg, d->graph, d->validation, blocking_said[d->blocking >= 0 && d->blocking <= NT_BLOCK_OUTER ? d->blocking : 1],
           d->unalign ? ", unaligned buffers (-u)" : "", several);
}

/* nccl-tests' version where a file states it (a text log's first line: a -J file states only its
** own format, under a key of its own, so that it never reads as another nccl-tests than the log's). */
static int record_versions(xp_run *r, const loaded *L) {
  int rc = 0, version = 0, format = 0;
  for (int f = 0; f < L->n && rc == 0; f++) {
    const nt_doc *d = &L->docs[f];
    if (!has_results(L->kinds[f])) continue;
    if (d->tests_version[0] && !version++) rc = xp_run_meta(r, "nccl_tests.version", d->tests_version, "trace");
    if (rc == 0 && d->json_format > 0 && !format++) rc = xp_run_meta_int(r, "nccl_tests.json_format", d->json_format, "trace");
  }
  return rc;
}

/*
** What the import read, less how it was printed: the rows of its results files (as parsed, so
** a launcher's labels, "[1,0]<stdout>:" or srun's "0: ", NCCL's lines between them and a
** pasted log's lost '#'s do not count) with the processes and hosts its device lines name and
** a -J file's start time. Two text logs of one run that differ only in that print are one
** measurement (schema 25 reads it): their rows agree to the last printed digit and so do
** their device lines' pids, which another run of the same sweep does not repeat. A file that
** names no process gets none.
*/
static int record_report_digest(xp_run *r, const loaded *L) {
  char *text = NULL, sum[65];
  size_t len = 0;
  /* rows alone (an excerpt without its device lines, a pre-2.0 log without pids) two runs of a
  ** short sweep may print alike: no digest then, as two such files may be two runs */
  for (int f = 0; f < L->n; f++) {
    const nt_doc *d = &L->docs[f];
    if (!has_results(L->kinds[f])) continue;
    if (d->ndev == 0) return 0;
    for (int i = 0; i < d->ndev; i++)
      if (d->dev[i].pid <= 0) return 0;
  }
  FILE *m = open_memstream(&text, &len);
  if (!m) return xp_error(XP_EXIT_ENV, "out of memory");
  for (int f = 0, k = 0; f < L->n; f++) {
    if (!has_results(L->kinds[f])) continue; /* a topology dump or NCCL's own log beside it: no rows */
    const nt_doc *d = &L->docs[f];
    fprintf(m, "file %d precise %d start %s\n", k++, d->precise, d->start_time);
    for (int i = 0; i < d->ndev; i++)
      fprintf(m, "dev %d %d %s %d %s\n", d->dev[i].rank, d->dev[i].pid, d->dev[i].host, d->dev[i].device,
              d->dev[i].busid);
    for (int i = 0; i < d->nrows; i++) {
      const nt_row *w = &d->rows[i];
      fprintf(m, "row %s %s %s %d %lld %lld %d %d %d %d %d", w->coll, w->dtype, w->redop, w->root,
              (long long)w->bytes, (long long)w->count, w->nranks, w->graph, w->iters, w->agg, w->blocking);
      for (int p = 0; p < NT_NPLACE; p++)
        fprintf(m, " | %d %.17g %.17g %.17g %lld", w->r[p].have, w->r[p].time_us, w->r[p].algbw, w->r[p].busbw,
                (long long)w->r[p].wrong);
      fputc('\n', m);
    }
  }
  fclose(m);
  xp_sha256_hex(text, len, sum);
  free(text);
  return xp_run_meta(r, "nccl_tests.report_sha256", sum, "trace");
}

/* The job's processes, "host:pid" each once, sorted, where a file's device lines name them all
** (a text lists every rank with its process, a -J file each process's first): a run's text and
** its -J file name the same ones, another run of the same sweep others. Schema 25 matches a text
** with the -J file of its own run by them, where several runs' rows agree within its print. */
static int cmp_text(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int record_processes(xp_run *r, const loaded *L) {
  for (int f = 0; f < L->n; f++) {
    const nt_doc *d = &L->docs[f];
    if (!has_results(L->kinds[f]) || !d->hosts_whole || d->ndev == 0) continue;
    xp_strtab seen;
    memset(&seen, 0, sizeof seen);
    int ok = 1;
    for (int i = 0; i < d->ndev && ok; i++) {
      char p[96];
      snprintf(p, sizeof p, "%s:%d", d->dev[i].host, d->dev[i].pid);
      ok = d->dev[i].pid > 0; /* before 2.0 no pid: nothing to tell runs apart by */
      xp_strtab_intern(&seen, p, strlen(p), NULL);
    }
    char **sorted = xp_xcalloc(seen.n + 1, sizeof *sorted), *list = xp_strdup("");
    memcpy(sorted, seen.str, sizeof *sorted * seen.n);
    qsort(sorted, seen.n, sizeof *sorted, cmp_text);
    for (uint32_t i = 0; i < seen.n; i++) {
      char *next = xp_asprintf("%s%s%s", list, i ? "," : "", sorted[i]);
      free(list);
      list = next;
    }
    const int rc = ok ? xp_run_meta(r, "nccl_tests.processes", list, "trace") : 0;
    free(sorted);
    free(list);
    xp_strtab_free(&seen);
    return rc;
  }
  return 0;
}

static int record_doc_facts(xp_run *r, const nt_doc *d) {
  char buf[512];
  int rc = 0;
  if (version_text(d->nccl_library, buf, sizeof buf) == 0) rc = xp_run_meta(r, "nccl.version", buf, "trace");
  if (rc == 0 && version_text(d->nccl_headers, buf, sizeof buf) == 0)
    rc = xp_run_meta(r, "nccl.headers_version", buf, "trace");
  if (rc == 0) {
    options_text(d, buf, sizeof buf);
    rc = xp_run_meta(r, "nccl_tests.options", buf, "trace");
  }
  if (rc == 0 && d->nreports > 1) rc = xp_run_meta_int(r, "nccl_tests.reports", d->nreports, "trace");
  if (rc == 0 && d->failure[0]) rc = xp_run_meta(r, "nccl_tests.failure", d->failure, "trace");
  if (rc == 0 && d->nranks > 0) rc = xp_run_meta_int(r, "gpu_count", d->nranks, "trace");
  if (rc == 0 && d->ndev && d->dev[0].name[0]) rc = xp_run_meta(r, "gpu_name", d->dev[0].name, "trace");
  if (rc == 0 && d->ndev && d->dev[0].host[0]) rc = xp_run_meta(r, "nccl_tests.host", d->dev[0].host, "trace");
  /* the hosts of a job spread over several: a log without NCCL's INFO lines (most pasted ones) of 2
  ** hosts x 8 GPUs otherwise reads as rank 0's host with 16. Only a device list with no gap names
  ** them all. */
  if (rc == 0 && d->hosts_whole && d->hosts.n > 1)
    rc = xp_run_meta_int(r, "nccl_tests.hosts", d->hosts.n, "trace");
  if (rc == 0 && d->args[0]) rc = xp_run_meta(r, "nccl_tests.args", d->args, "trace");
  if (rc == 0 && d->start_time[0]) rc = xp_run_meta(r, "nccl_tests.start_time", d->start_time, "trace");
  if (rc == 0 && d->avg_busbw >= 0) {
    snprintf(buf, sizeof buf, "%g", d->avg_busbw);
    rc = xp_run_meta(r, "nccl_tests.avg_busbw_GBps", buf, "trace");
  }
  if (rc == 0 && d->out_of_bounds >= 0) rc = xp_run_meta_int(r, "nccl_tests.out_of_bounds", d->out_of_bounds, "trace");
  if (rc == 0 && d->errors) rc = xp_run_meta_int(r, "nccl_tests.errors", d->errors, "trace");
  for (int i = 0; i < d->nenv && rc == 0; i++) {
    char key[96], *eq = strchr(d->env[i], '=');
    snprintf(key, sizeof key, "nccl_tests.env.%.*s", (int)(eq - d->env[i]), d->env[i]);
    rc = xp_run_meta(r, key, eq + 1, "trace");
  }
  for (int i = 0; i < d->ndev && rc == 0; i++) {
    xp_gpu_info g;
    memset(&g, 0, sizeof g);
    g.index = d->dev[i].rank;
    g.sm_count = g.clock_mhz = g.mem_clock_mhz = g.pcie_gen = g.pcie_width = -1;
    g.mem_bytes = -1;
    snprintf(g.name, sizeof g.name, "%s", d->dev[i].name);
    snprintf(g.pci_bus_id, sizeof g.pci_bus_id, "%s", d->dev[i].busid);
    rc = xp_run_gpu(r, &g);
  }
  return rc;
}

/* The HIP and ROCm an rccl-tests log's RCCL says it was built with, and ran with where they differ,
** named as the CUDA runtime's and driver's of a run xp measures (cuda.runtime, cuda.driver_api), and
** the HSA runtime (ROCr) its INFO line states, under rocm. so that xp rerun weighs it with them. */
static int record_rocm_versions(xp_run *r, const xp_nccl_info *info) {
  const struct { const char *key, *value; } v[] = {{"hip.version", info->hip_version},
                                                    {"hip.runtime", info->hip_runtime},
                                                    {"rocm.version", info->rocm_version},
                                                    {"rocm.runtime", info->rocm_runtime},
                                                    {"rocm.rocr_version", info->rocr_version}};
  int rc = 0;
  for (size_t i = 0; i < sizeof v / sizeof v[0] && rc == 0; i++)
    if (v[i].value[0]) rc = xp_run_meta(r, v[i].key, v[i].value, "trace");
  return rc;
}

/* The CUDA driver API version NCCL's INFO line states ("cudaDriverVersion 13000"), under the key and in
** the form a run xp measures records it (gpu.c: cuda.driver_api, "13.0"), so that a query, xp compare
** and xp rerun set an imported log beside a measured run, or beside a log from another driver. */
static int record_cuda_driver(xp_run *r, const xp_nccl_info *info) {
  if (info->cuda_driver <= 0) return 0;
  char buf[32];
  xp_cuda_version_text(info->cuda_driver, buf, sizeof buf);
  return xp_run_meta(r, "cuda.driver_api", buf, "trace");
}

static const char *media_type(enum file_kind k, const char *text, size_t len) {
  if (k == F_REPORTER) return nt_reporter_form(text, len) == 'c' ? "text/csv" : "application/json";
  return k == F_JSON ? "application/json" : k == F_TOPO ? "application/xml" : "text/plain";
}

/* Rows whose bandwidth the file prints as nan or inf (nccl-tests' figures of a time of 0; its -J
** file writes NaN as "nan"): said once, with the first's line; their cases carry a note. */
static void warn_no_bandwidth(const nt_doc *d) {
  int n = 0, line = 0;
  for (int i = 0; i < d->nrows; i++)
    for (int p = 0; p < NT_NPLACE; p++)
      if (d->rows[i].r[p].have && (isnan(d->rows[i].r[p].algbw) || isnan(d->rows[i].r[p].busbw)) && !n++)
        line = d->rows[i].line;
  if (!n) return;
  char at[32] = "";
  if (line > 0) snprintf(at, sizeof at, ":%d", line);
  xp_warn("%s%s: %d result%s with a bandwidth printed as nan or inf: no bandwidth recorded for %s, %s time kept",
          d->path, at, n, n == 1 ? "" : "s", n == 1 ? "it" : "them", n == 1 ? "its" : "their");
}

/* The collectives the files' rows ran, each once in the order first read ("allreduce, gather" for
** a log of two tests appended), for the summary line; "nccl-tests" where no row names one. */
static void collectives_read(const loaded *L, char *buf, size_t n) {
  size_t used = 0;
  buf[0] = 0;
  for (int f = 0; f < L->n; f++) {
    if (!has_results(L->kinds[f])) continue;
    for (int i = 0; i < L->docs[f].nrows && used < n; i++) {
      const char *coll = L->docs[f].rows[i].coll;
      size_t cl = strlen(coll);
      int seen = cl == 0;
      for (const char *p = buf; !seen && (p = strstr(p, coll)) != NULL; p += cl)
        seen = (p == buf || p[-1] == ' ') && (p[cl] == ',' || p[cl] == 0);
      if (!seen) used += (size_t)snprintf(buf + used, n - used, "%s%s", used ? ", " : "", coll);
    }
  }
  if (!buf[0]) snprintf(buf, n, "nccl-tests");
}

static int execute(xp_ctx *ctx) {
  loaded L;
  /* the spec's job (1 the first) is that job alone, one run (xp rerun of one job's run); else
  ** xp runs execute once for each job the file holds (ctx->njobs) */
  const cJSON *one = cJSON_GetObjectItemCaseSensitive(ctx->spec->root, "job");
  /* the first job's run reads the file and keeps the later jobs, each later run takes its own */
  const int later = !cJSON_IsNumber(one) && ctx->job > 0 && jobs_kept.spec == ctx->spec && jobs_kept.next == ctx->job;
  if (!cJSON_IsNumber(one) && ctx->job == 0) jobs_kept_free();
  int rc = later ? load_kept(&L, ctx->job) : load(ctx->spec, &L, cJSON_IsNumber(one) ? (int)one->valuedouble - 1 : ctx->job,
                                                  !cJSON_IsNumber(one) && ctx->job == 0),
      ncases = 0, nfailed = 0;
  ctx->njobs = cJSON_IsNumber(one) ? 1 : L.njobs;
  xp_nccl_info info;
  xp_nccl_info_init(&info);
  if (rc) goto done;
  const nt_doc *first = NULL;
  for (int f = 0; f < L.n; f++) {
    if (L.kinds[f] == F_TOPO) continue;
    if (L.kinds[f] == F_INFO) { /* a rank's own NCCL log: its INFO lines join the others' */
      xp_nccl_info_parse(&info, L.texts[f], L.lens[f]);
      continue;
    }
    if (!first) first = &L.docs[f];
    const nt_doc *d = &L.docs[f];
    if (L.twin[f] >= 0)
      xp_warn("%s: the same results as %s (its -J output: every row alike, rounded): each case counted once, from %s;"
              " the log's NCCL lines are kept", d->path, L.paths[L.twin[f]], L.paths[L.twin[f]]);
    if (d->failure[0]) xp_warn("%s: \"%s\": the test stopped there; its rows before it are imported", d->path, d->failure);
    warn_no_bandwidth(d);
    /* Every file's INFO lines together: ranks of one job may log separately. */
    xp_nccl_info_parse(&info, L.texts[f], L.kinds[f] == F_TEXT ? L.lens[f] : 0);
  }
  if (info.ray_repeated && first)
    xp_warn("%s: %lld NCCL line%s left out by Ray's log deduplication ('[repeated Nx across cluster]'): NCCL's "
            "connections and channels are those of the lines kept (RAY_DEDUP_LOGS=0 keeps them all)", first->path,
            (long long)info.ray_repeated, info.ray_repeated == 1 ? "" : "s");
  /* several communicators' lines (split groups, tests appended): one's connections, said */
  char comms[512];
  int pid0 = 0;
  for (int i = 0; first && i < first->ndev; i++)
    if (first->dev[i].rank == 0) pid0 = first->dev[i].pid;
  const int left = xp_nccl_info_one_comm(&info, first ? first->nranks : 0, pid0, comms, sizeof comms);
  /* NCCL 2.22 on connects at the first collective and names no communicator: a process of several
  ** (a framework's world and groups) prints lines none alone can hold */
  if (left && first)
    xp_warn("%s: %d NCCL connection%s printed after several communicators were set up, whose ranks and devices "
            "fit none alone or several: left out of nccl.transports", first->path, left, left == 1 ? "" : "s");
  if (L.left_out && first)
    xp_warn("%s: %d NCCL line%s of processes that printed no report left out: which job's %s, nothing tells",
            first->path, L.left_out, L.left_out == 1 ? "" : "s", L.left_out == 1 ? "it is" : "they are");
  rc = record_doc_facts(ctx->run, first);
  if (rc == 0 && L.njobs > 1) {
    char job[200];
    snprintf(job, sizeof job, "%d of %d: %s", L.job + 1, L.njobs, L.job_what);
    rc = xp_run_meta(ctx->run, "nccl_tests.job", job, "trace");
  }
  if (rc == 0 && comms[0]) rc = xp_run_meta(ctx->run, "nccl.communicators", comms, "trace");
  if (rc == 0) rc = record_versions(ctx->run, &L);
  if (rc == 0) rc = record_report_digest(ctx->run, &L);
  if (rc == 0) rc = record_processes(ctx->run, &L);
  if (rc == 0) rc = xp_run_meta(ctx->run, "nccl.process_model", "nccl-tests", "trace");
  if (rc == 0) rc = xp_nccl_record_info(ctx->run, &info, L.have_topo ? &L.topo : NULL, "trace");
  if (rc == 0) rc = record_rocm_versions(ctx->run, &info);
  if (rc == 0) rc = record_cuda_driver(ctx->run, &info);
  for (int f = 0; f < L.n && rc == 0; f++) {
    const char *base = strrchr(L.paths[f], '/');
    char name[300];
    snprintf(name, sizeof name, "nccl-tests/%s", base ? base + 1 : L.paths[f]);
    /* the file as given, whichever of its jobs the run is */
    const char *bytes = L.whole ? L.whole : L.texts[f];
    const size_t len = L.whole ? L.whole_len : L.lens[f];
    rc = xp_run_artifact(ctx->run, name, media_type(L.kinds[f], bytes, len), bytes, len);
  }
  if (rc == 0) rc = record_cases(ctx->run, &L, &info, &ncases, &nfailed);
  if (rc == 0 && nfailed)
    xp_warn("%d case%s the test found wrong (#wrong, or bitwise differences between repeats): recorded as "
            "failed, the case's note says which", nfailed, nfailed == 1 ? "" : "s");
  if (rc == 0 && !ctx->quiet) {
    char colls[256];
    collectives_read(&L, colls, sizeof colls);
    fprintf(ctx->out, "imported %d case%s of %s from %d file%s", ncases, ncases == 1 ? "" : "s", colls, L.n,
            L.n == 1 ? "" : "s");
    if (L.njobs > 1) /* each job a run: the next one's line follows */
      fprintf(ctx->out, ", job %d of %d in it (%s; a run each)", L.job + 1, L.njobs, L.job_what);
    fputc('\n', ctx->out);
  }
done:
  xp_nccl_info_free(&info);
  loaded_free(&L);
  return rc;
}

/* Files that cannot be opened are refused before a run begins; what is wrong inside a file is
** found while reading it, and that run is recorded as failed with the reason (as every import). */
static int check(const xp_spec *s) {
  const cJSON *files = cJSON_GetObjectItemCaseSensitive(s->root, "files"), *f;
  if (cJSON_GetArraySize(files) == 0) return xp_spec_error(s, "files", "no files given");
  const int n = cJSON_GetArraySize(files);
  char **paths = xp_xcalloc((size_t)n, sizeof *paths);
  int i = 0, rc = 0;
  cJSON_ArrayForEach(f, files) {
    char *path = paths[i++] = xp_spec_resolve(s, f->valuestring); /* as load() reads it */
    FILE *fp = fopen(path, "r");
    struct stat sb; /* a folder opens, and failed only once read: a run recorded failed */
    if (fp && fstat(fileno(fp), &sb) == 0 && S_ISDIR(sb.st_mode)) fclose(fp), fp = NULL, errno = EISDIR;
    if (!fp) {
      rc = xp_error_at(XP_EXIT_USAGE, path, 0, "cannot read: %s", strerror(errno));
      break;
    }
    fclose(fp);
  }
  /* one file twice, or a copy of it, would pool each of its rows twice: every case two samples
  ** of one measurement */
  if (rc == 0) rc = xp_files_given_twice((const char *const *)paths, n, "each case would count its row twice");
  for (int k = 0; k < i; k++) free(paths[k]);
  free(paths);
  return rc;
}

/* --dry-run: read the files and say what would be imported. */
static int plan(const xp_spec *s, FILE *out) {
  loaded L;
  int rc = load(s, &L, 0, 0);
  for (int f = 0; f < L.n && rc == 0; f++) {
    if (L.kinds[f] == F_TOPO) {
      fprintf(out, "%s: NCCL topology dump, %d GPU%s\n", L.paths[f], L.topo.ngpu, L.topo.ngpu == 1 ? "" : "s");
      continue;
    }
    if (L.kinds[f] == F_INFO) {
      fprintf(out, "%s: NCCL's log (INFO lines, no nccl-tests report)\n", L.paths[f]);
      continue;
    }
    const nt_doc *d = &L.docs[f];
    char ranks[32] = "ranks unknown";
    if (d->nranks > 0) snprintf(ranks, sizeof ranks, "%d rank%s", d->nranks, d->nranks == 1 ? "" : "s");
    const char *form = L.kinds[f] == F_JSON ? "JSON" : L.kinds[f] == F_REPORTER ? "rccl-tests -x file" : "text";
    fprintf(out, "%s: nccl-tests %s, %s, %d result line%s, %lld..%lld bytes, %s, %s%s%s\n", L.paths[f], form,
            d->coll[0] ? d->coll : "?", d->nrows, d->nrows == 1 ? "" : "s",
            (long long)d->rows[0].bytes, (long long)d->rows[d->nrows - 1].bytes, ranks,
            d->graph ? "CUDA graph" : "eager", d->info.info_lines ? ", with NCCL INFO lines" : "",
            d->nreports > 1 ? ", several reports" : "");
    if (L.njobs > 1)
      fprintf(out, "%s: %d jobs (a test run on each host), each recorded as a run of its own; the above is the "
              "first's (%s)\n", L.paths[f], L.njobs, L.job_what);
  }
  loaded_free(&L);
  return rc;
}

static const xp_field fields[] = {
    {"files", XP_T_STRINGS, 1, NULL, NULL, 0, 0,
     "nccl-tests text output (NCCL INFO lines may be interleaved), -J JSON, rccl-tests' -x/-X file "
     "(-Z csv or json), and optionally NCCL's topology dump (.xml); relative to the spec"},
    {"collective", XP_T_STRING, 0, NULL, NULL, 0, 0,
     "the test's collective (all_reduce, sendrecv, ...) for logs that do not name it (before 2.13); else "
     "the command line the log keeps (\"$ ./build/all_gather_perf ...\"), a file name such as "
     "all_gather_perf.log, or the report's own header and busbw / algbw where they leave one test "
     "(reduce_perf's \"redop root\"), said"},
    {"job", XP_T_INT, 0, NULL, NULL, 1, NT_MAX_JOBS,
     "of a log holding several jobs (a test run on each host, gathered into one file), the one to record, 1 "
     "the first (run_meta nccl_tests.job says which a run is; xp rerun reruns that one); absent: each a run"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

const xp_kind xp_kind_nccl_tests = {
    .name = "nccl_tests",
    .summary = "import nccl-tests output (text with or without NCCL INFO lines, or -J JSON) as nccl_burst runs",
    .fields = fields,
    .needs_gpu = 0,
    .check = check,
    .plan = plan,
    .execute = execute,
    .import_name = "nccl-tests",
    .records_as = "nccl_burst",
};
