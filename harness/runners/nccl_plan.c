/*
** nccl_burst's spec: fields, validation, the plan printed by --dry-run, and the arithmetic of
** message sizes and bandwidths. Formulas follow nccl-tests (doc/PERFORMANCE.md) so that
** figures can be put side by side with its output.
*/
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "nccl_gather.h"
#include "nccl_pattern.h"
#include "nccl_plan.h"
#include "xp.h"

static const char *const coll_names[] = {"allreduce", "allgather", "reducescatter", "broadcast",
                                         "alltoall", NULL};
static const char *const coll_funcs[] = {"AllReduce", "AllGather", "ReduceScatter", "Broadcast",
                                         "AllToAll"};
static const char *const dtype_names[] = {"bf16", "fp16", "fp32", "fp8_e4m3", "fp8_e5m2", NULL};
static const char *const mode_names[] = {"eager", "graph", NULL};
static const char *const place_names[] = {"out_of_place", "in_place", NULL};
static const char *const alloc_names[] = {"ncclMemAlloc", "cudaMalloc", NULL};

const xp_field xp_nccl_burst_fields[] = {
    {"collectives", XP_T_STRINGS, 0, coll_names, NULL, 0, 0,
     "collectives to time (default [\"allreduce\"]); alltoall is grouped ncclSend/ncclRecv"},
    {"dtypes", XP_T_STRINGS, 0, dtype_names, NULL, 0, 0, "element types (default [\"bf16\"])"},
    {"sizes", XP_T_SIZES, 0, NULL, NULL, 0, 0,
     "message sizes in bytes, nccl-tests' size column (14336, \"1M\")"},
    {"size_range", XP_T_ANY_SCALAR_TABLE, 0, NULL, NULL, 0, 0,
     "sweep { min = 8, max = \"256M\", factor = 2 }, added to sizes"},
    {"burst", XP_T_INT, 0, NULL, NULL, 1, 1000000,
     "collectives back to back in one sample (122 for a 61-layer decode step; default 1)"},
    {"modes", XP_T_STRINGS, 0, mode_names, NULL, 0, 0,
     "eager launches, or the whole burst captured into one CUDA graph (default [\"eager\"])"},
    {"placements", XP_T_STRINGS, 0, place_names, NULL, 0, 0,
     "out_of_place and/or in_place buffers (default [\"out_of_place\"])"},
    {"warmup", XP_T_INT, 0, NULL, NULL, 0, 1000000, "untimed bursts before the samples (default 5)"},
    {"iterations", XP_T_INT, 0, NULL, NULL, 1, 1000000, "timed bursts, one sample each (default 20)"},
    {"gpus", XP_T_INTS, 0, NULL, NULL, 0, 4095,
     "device indices driven by one process (default: every visible GPU)"},
    {"root", XP_T_INT, 0, NULL, NULL, 0, 1 << 20, "root rank of broadcast (default 0)"},
    {"verify", XP_T_BOOL, 0, NULL, NULL, 0, 0,
     "check results on the first and last iterations, like nccl-tests' #wrong (default true)"},
    {"timeout_s", XP_T_NUMBER, 0, NULL, NULL, 0.001, 604800,
     "bound on NCCL init, on every wait and on each case: the run fails, it never hangs (default 300)"},
    {"env", XP_T_ANY_SCALAR_TABLE, 0, NULL, NULL, 0, 0,
     "environment set before NCCL starts, e.g. { NCCL_P2P_DISABLE = \"1\" }; recorded"},
    {"rendezvous", XP_T_STRING, 0, NULL, NULL, 0, 0,
     "one process per GPU under a launcher: file (on a shared filesystem) for NCCL's unique id"},
    {"alloc", XP_T_STRING, 0, alloc_names, NULL, 0, 0,
     "buffer allocator: ncclMemAlloc (as nccl-tests, default) or cudaMalloc"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

const char *xp_nccl_coll_name(enum xp_nccl_coll c) { return c < XP_COLL_N ? coll_names[c] : "?"; }
const char *xp_nccl_coll_func(enum xp_nccl_coll c) { return c < XP_COLL_N ? coll_funcs[c] : "?"; }
const char *xp_nccl_dtype_name(enum xp_nccl_dtype d) { return d < XP_DT_N ? dtype_names[d] : "?"; }
const char *xp_nccl_mode_name(enum xp_nccl_mode m) { return m < XP_MODE_N ? mode_names[m] : "?"; }
const char *xp_nccl_place_name(enum xp_nccl_place p) { return p < XP_PLACE_N ? place_names[p] : "?"; }

static int index_of(const char *s, const char *const *names) {
  for (int i = 0; names[i]; i++)
    if (strcmp(s, names[i]) == 0) return i;
  return -1;
}

int xp_nccl_coll_parse(const char *s) {
  int i = index_of(s, coll_names);
  if (i >= 0) return i;
  /* nccl-tests' binaries and JSON name them all_reduce, all_gather, ... */
  static const char *const underscored[] = {"all_reduce", "all_gather", "reduce_scatter",
                                            "broadcast", "alltoall", NULL};
  return index_of(s, underscored);
}

int xp_nccl_dtype_parse(const char *s) {
  int i = index_of(s, dtype_names);
  if (i >= 0) return i;
  static const char *const nccl_tests[] = {"bfloat16", "half", "float", "f8e4m3", "f8e5m2", NULL};
  return index_of(s, nccl_tests);
}

size_t xp_nccl_dtype_size(enum xp_nccl_dtype d) {
  switch (d) {
  case XP_DT_BF16: case XP_DT_FP16: return 2;
  case XP_DT_FP32: return 4;
  case XP_DT_FP8_E4M3: case XP_DT_FP8_E5M2: return 1;
  default: return 0;
  }
}

double xp_nccl_busbw_factor(enum xp_nccl_coll c, int nranks) {
  double n = nranks;
  switch (c) {
  case XP_COLL_ALLREDUCE: return nranks > 0 ? 2.0 * (n - 1) / n : 0;
  case XP_COLL_ALLGATHER:
  case XP_COLL_REDUCESCATTER:
  case XP_COLL_ALLTOALL: return nranks > 0 ? (n - 1) / n : 0;
  case XP_COLL_BROADCAST: return 1.0;
  default: return 0;
  }
}

double xp_nccl_algbw(int64_t bytes, double time_us) {
  return time_us > 0 ? (double)bytes / 1e9 / (time_us * 1e-6) : 0;
}

int xp_nccl_counts_for(enum xp_nccl_coll c, enum xp_nccl_dtype d, int64_t bytes, int nranks,
                       xp_nccl_counts *out, int64_t *need) {
  int64_t ts = (int64_t)xp_nccl_dtype_size(d);
  int split = c == XP_COLL_ALLGATHER || c == XP_COLL_REDUCESCATTER || c == XP_COLL_ALLTOALL;
  int64_t unit = split ? ts * (nranks > 0 ? nranks : 1) : ts;
  memset(out, 0, sizeof *out);
  if (need) *need = unit;
  if (bytes <= 0 || ts == 0 || bytes % unit != 0) return -1;
  size_t total = (size_t)(bytes / ts), per = split ? total / (size_t)nranks : total;
  switch (c) {
  case XP_COLL_ALLREDUCE:
  case XP_COLL_BROADCAST: *out = (xp_nccl_counts){total, total, total}; break;
  case XP_COLL_ALLGATHER: *out = (xp_nccl_counts){per, per, total}; break;
  case XP_COLL_REDUCESCATTER: *out = (xp_nccl_counts){per, total, per}; break;
  case XP_COLL_ALLTOALL: *out = (xp_nccl_counts){per, total, total}; break;
  default: return -1;
  }
  return 0;
}

int xp_nccl_size_range(int64_t min, int64_t max, double factor, int64_t **out) {
  int64_t *v = NULL;
  int n = 0;
  *out = NULL;
  for (double s = (double)min; s <= (double)max + 0.5;) {
    int64_t b = llround(s);
    if (n == XP_NCCL_MAX_SIZES) { free(v); return -1; }
    if (n == 0 || b > v[n - 1]) {
      v = xp_xrealloc(v, sizeof *v * (size_t)(n + 1));
      v[n++] = b;
    }
    double next = s * factor;
    if (next > (double)max + 0.5) break; /* past the end: never rounded, where llround overflows */
    /* A factor near 1 must still advance, or the sweep would never end. */
    s = llround(next) > b ? next : (double)(b + 1);
  }
  *out = v;
  return n;
}

/* ---- loading ---- */

static int enum_list(const xp_spec *s, const char *key, const char *const *names, int dflt,
                     int *out, int max) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(s->root, key), *e;
  int n = 0;
  if (!arr) { out[0] = dflt; return 1; }
  /* a value twice was dropped, and the spec's hash told the two spellings apart */
  if (xp_spec_check_distinct(s, key, NULL)) return -1;
  cJSON_ArrayForEach(e, arr) if (n < max) out[n++] = index_of(e->valuestring, names);
  if (n == 0) return xp_spec_error(s, key, "needs at least one value"), -1;
  return n;
}

/* A message size past 8 PB is no size a GPU holds; past 2^53 bytes doubles (a number in a spec, the
** sweep's steps) cannot count them. One bound for sizes and size_range, said one way. */
#define SIZE_MAX_BYTES 9e15
#define SIZE_EXPECTED "expected a size from one byte to 8 PB (14336, \"1M\", \"256MiB\")"

static int range_bound(const xp_spec *s, const cJSON *v, const char *path, int64_t *out) {
  if (cJSON_IsNumber(v) && v->valuedouble >= 1 && v->valuedouble == floor(v->valuedouble) &&
      v->valuedouble < SIZE_MAX_BYTES) {
    *out = xp_saturate_int64(v->valuedouble);
    return 0;
  }
  /* held to the same 8 PB as a number */
  if (cJSON_IsString(v) && xp_parse_size(v->valuestring, out) == 0 && *out >= 1 && *out < SIZE_MAX_BYTES) return 0;
  return xp_spec_error(s, path, SIZE_EXPECTED);
}

static int load_range(const xp_spec *s, int64_t **out) {
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(s->root, "size_range"), *e;
  int64_t min = 0, max = 0;
  double factor = 2;
  int have_min = 0, have_max = 0;
  *out = NULL;
  if (!t) return 0;
  cJSON_ArrayForEach(e, t) {
    char path[64];
    snprintf(path, sizeof path, "size_range.%s", e->string);
    if (strcmp(e->string, "min") == 0) {
      if (range_bound(s, e, path, &min)) return -1;
      have_min = 1;
    } else if (strcmp(e->string, "max") == 0) {
      if (range_bound(s, e, path, &max)) return -1;
      have_max = 1;
    } else if (strcmp(e->string, "factor") == 0) {
      if (!cJSON_IsNumber(e) || !(e->valuedouble > 1) || e->valuedouble > 1e6)
        return xp_spec_error(s, path, "expected a number greater than 1"), -1;
      factor = e->valuedouble;
    } else
      return xp_spec_error(s, path, "unknown key (size_range takes min, max and factor)%s",
                           xp_spec_top_key_note(s, "size_range", e->string)), -1;
  }
  if (!have_min || !have_max)
    return xp_spec_error(s, "size_range", "needs both min and max"), -1;
  if (min > max)
    return xp_spec_error(s, "size_range", "min (%lld) is larger than max (%lld)", (long long)min,
                         (long long)max), -1;
  int n = xp_nccl_size_range(min, max, factor, out);
  if (n < 0)
    return xp_spec_error(s, "size_range", "expands to more than %d sizes", XP_NCCL_MAX_SIZES), -1;
  return n;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

static int load_sizes(const xp_spec *s, xp_nccl_plan *p) {
  int64_t *list = NULL, *range = NULL;
  int nl = xp_spec_sizes(s, s->root, "sizes", "sizes", &list);
  if (nl < 0) return XP_EXIT_USAGE;
  for (int i = 0; i < nl; i++)
    if (list[i] <= 0) {
      char path[32];
      snprintf(path, sizeof path, "sizes[%d]", i);
      free(list);
      return xp_spec_error(s, path, "a message needs at least one byte");
    } else if (list[i] >= SIZE_MAX_BYTES) { /* text ("8589934591G") reads up to int64's end */
      char path[32];
      snprintf(path, sizeof path, "sizes[%d]", i);
      free(list);
      return xp_spec_error(s, path, SIZE_EXPECTED);
    }
  /* a size twice in the list ("1M" and 1048576 alike) was timed once, and the spec's hash told
  ** the two spellings apart; one the size_range also reaches is the range's, not a repeat */
  for (int i = 0; i < nl; i++)
    for (int j = 0; j < i; j++)
      if (list[i] == list[j]) {
        char path[32];
        snprintf(path, sizeof path, "sizes[%d]", i);
        const long long bytes = (long long)list[i];
        free(list);
        return xp_spec_error(s, path, "a size of %lld bytes is given twice", bytes);
      }
  int nr = load_range(s, &range);
  if (nr < 0) { free(list); return XP_EXIT_USAGE; }
  if (nl + nr == 0) {
    free(list);
    return xp_spec_error(s, "sizes", "no message sizes: give sizes = [...] and/or "
                         "size_range = { min, max, factor }");
  }
  if (nl + nr > XP_NCCL_MAX_SIZES) {
    free(list);
    free(range);
    return xp_spec_error(s, "sizes", "more than %d sizes", XP_NCCL_MAX_SIZES);
  }
  p->sizes = xp_xmalloc(sizeof *p->sizes * (size_t)(nl + nr));
  if (nl) memcpy(p->sizes, list, sizeof *list * (size_t)nl);
  if (nr) memcpy(p->sizes + nl, range, sizeof *range * (size_t)nr);
  qsort(p->sizes, (size_t)(nl + nr), sizeof *p->sizes, cmp_i64);
  p->nsizes = 0;
  for (int i = 0; i < nl + nr; i++)
    if (p->nsizes == 0 || p->sizes[i] != p->sizes[p->nsizes - 1]) p->sizes[p->nsizes++] = p->sizes[i];
  free(list);
  free(range);
  return 0;
}

static int valid_env_name(const char *k) {
  if (!k || !(isupper((unsigned char)k[0]) || k[0] == '_')) return 0;
  for (const char *c = k; *c; c++)
    if (!isupper((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '_') return 0;
  return 1;
}

/* Variables that make NCCL, CUDA or the loader bring code into xp's process (plugins, CUDA
** injection, preloads, a config file that may name plugins): a spec stored in a database and run
** again must not be able to do that. The user's own environment still can. */
static int loads_code(const char *k) {
  /* OpenSSL (xp seals runs with it, after the spec's environment is set) reads a config file
  ** that can load a provider; NCCL_GRAPH_DUMP_FILE has NCCL write wherever it names */
  static const char *const names[] = {"CUDA_INJECTION64_PATH", "CUDA_INJECTION32_PATH", "NCCL_CONF_FILE",
                                      "NCCL_GRAPH_DUMP_FILE",  "OPENSSL_CONF",          "OPENSSL_MODULES",
                                      "OPENSSL_ENGINES",       NULL};
  size_t l = strlen(k);
  if (strncmp(k, "LD_", 3) == 0 || (l > 7 && strcmp(k + l - 7, "_PLUGIN") == 0)) return 1;
  return index_of(k, names) >= 0;
}

static int load_env(const xp_spec *s, xp_nccl_plan *p) {
  const cJSON *env = cJSON_GetObjectItemCaseSensitive(s->root, "env"), *e;
  p->env = env;
  cJSON_ArrayForEach(e, env) {
    char path[300];
    snprintf(path, sizeof path, "env.%s", e->string);
    if (!valid_env_name(e->string))
      return xp_spec_error(s, path, "not an environment variable name (A-Z, 0-9, _)%s",
                           xp_spec_top_key_note(s, "env", e->string));
    if (loads_code(e->string))
      return xp_spec_error(s, path, "names code for NCCL or CUDA to load into xp; a spec may not set it "
                           "(set it in the environment xp runs in)");
    static const char *const own[] = {"NCCL_DEBUG", "NCCL_DEBUG_SUBSYS", "NCCL_DEBUG_FILE", "NCCL_TOPO_DUMP_FILE", NULL};
    if (index_of(e->string, own) >= 0) /* it was overridden without a word: the run must read INFO */
      return xp_spec_error(s, path, "xp sets this itself to capture NCCL's log and topology");
    char v[XP_NCCL_ENV_MAX];
    if (xp_nccl_env_value(e, v, sizeof v) == 0 && strlen(v) + 1 >= sizeof v)
      return xp_spec_error(s, path, "a value of %d bytes or more (it would be cut)", XP_NCCL_ENV_MAX - 1);
  }
  return 0;
}

int xp_nccl_env_value(const cJSON *v, char *buf, size_t n) {
  if (cJSON_IsString(v)) snprintf(buf, n, "%s", v->valuestring);
  else if (cJSON_IsBool(v)) snprintf(buf, n, "%d", cJSON_IsTrue(v) ? 1 : 0);
  else if (cJSON_IsNumber(v) && v->valuedouble == floor(v->valuedouble) && fabs(v->valuedouble) < 9e15)
    snprintf(buf, n, "%lld", (long long)xp_saturate_int64(v->valuedouble));
  else if (cJSON_IsNumber(v)) snprintf(buf, n, "%.17g", v->valuedouble);
  else return -1;
  return 0;
}

static int load_gpus(const xp_spec *s, xp_nccl_plan *p) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(s->root, "gpus"), *e;
  if (!arr) return 0;
  int n = cJSON_GetArraySize(arr), i = 0;
  if (n == 0) return xp_spec_error(s, "gpus", "needs at least one device index");
  p->gpus = xp_xmalloc(sizeof *p->gpus * (size_t)n);
  cJSON_ArrayForEach(e, arr) {
    p->gpus[i] = xp_saturate_int(e->valuedouble);
    for (int j = 0; j < i; j++)
      if (p->gpus[j] == p->gpus[i]) {
        char path[32];
        snprintf(path, sizeof path, "gpus[%d]", i);
        return xp_spec_error(s, path, "device %d is listed twice", p->gpus[i]);
      }
    i++;
  }
  p->ngpus = n;
  return 0;
}

/* Whether the spec's dtype (a label of the run, runs.dtype) names dtype d: its name ("bf16"), as
** nccl-tests spells it ("bfloat16"), or its family ("fp8" for fp8_e4m3). */
static int declared_names(const char *declared, enum xp_nccl_dtype d) {
  const char *name = xp_nccl_dtype_name(d);
  const size_t l = strlen(declared);
  return xp_nccl_dtype_parse(declared) == (int)d || (l && strncmp(name, declared, l) == 0 && name[l] == '_');
}

/* A declared dtype the run does not measure is refused: nccl_burst measures its "dtypes" alone
** (bf16 where none are given), so dtype = "fp32" beside them measured bf16 and, over several
** dtypes, recorded the run as fp32. */
static int check_declared_dtype(const xp_spec *s, const xp_nccl_plan *p) {
  const char *declared = xp_spec_str(s->root, "dtype", NULL);
  if (!declared) return 0;
  for (int i = 0; i < p->ndtype; i++)
    if (declared_names(declared, p->dtype[i])) return 0;
  char measured[64] = "";
  for (int i = 0, used = 0; i < p->ndtype && used < (int)sizeof measured; i++)
    used += snprintf(measured + used, sizeof measured - (size_t)used, "%s%s", i ? ", " : "", xp_nccl_dtype_name(p->dtype[i]));
  /* the element type to list is the one the label names ("fp8": fp8_e4m3), never the label
  ** itself: dtypes = ["fp8"] is refused, and "int8" is no type NCCL runs here at all */
  int named = 0;
  while (named < XP_DT_N && !declared_names(declared, (enum xp_nccl_dtype)named)) named++;
  if (named == XP_DT_N)
    return xp_spec_error(s, "dtype", "\"%s\" is no dtype this run measures (dtypes: %s%s), nor one "
                         "nccl_burst can (bf16, fp16, fp32, fp8_e4m3, fp8_e5m2): leave dtype out, or "
                         "give one of those in dtypes", declared, measured,
                         cJSON_GetObjectItemCaseSensitive(s->root, "dtypes") ? "" : ", the default");
  return xp_spec_error(s, "dtype", "\"%s\" is no dtype this run measures (dtypes: %s%s); nccl_burst measures the "
                       "types \"dtypes\" lists: give dtypes = [\"%s\"]", declared, measured,
                       cJSON_GetObjectItemCaseSensitive(s->root, "dtypes") ? "" : ", the default",
                       xp_nccl_dtype_name((enum xp_nccl_dtype)named));
}

int xp_nccl_plan_load(const xp_spec *s, xp_nccl_plan *p) {
  const cJSON *r = s->root;
  int rc;
  memset(p, 0, sizeof *p);
  int tmp[8];
  if ((p->ncoll = enum_list(s, "collectives", coll_names, XP_COLL_ALLREDUCE, tmp, XP_COLL_N)) < 0)
    return XP_EXIT_USAGE;
  for (int i = 0; i < p->ncoll; i++) p->coll[i] = (enum xp_nccl_coll)tmp[i];
  if ((p->ndtype = enum_list(s, "dtypes", dtype_names, XP_DT_BF16, tmp, XP_DT_N)) < 0)
    return XP_EXIT_USAGE;
  for (int i = 0; i < p->ndtype; i++) p->dtype[i] = (enum xp_nccl_dtype)tmp[i];
  if (check_declared_dtype(s, p)) return XP_EXIT_USAGE;
  if ((p->nmode = enum_list(s, "modes", mode_names, XP_MODE_EAGER, tmp, XP_MODE_N)) < 0)
    return XP_EXIT_USAGE;
  for (int i = 0; i < p->nmode; i++) p->mode[i] = (enum xp_nccl_mode)tmp[i];
  if ((p->nplace = enum_list(s, "placements", place_names, XP_PLACE_OUT, tmp, XP_PLACE_N)) < 0)
    return XP_EXIT_USAGE;
  for (int i = 0; i < p->nplace; i++) p->place[i] = (enum xp_nccl_place)tmp[i];
  p->burst = (int)xp_spec_int(r, "burst", 1);
  p->warmup = (int)xp_spec_int(r, "warmup", 5);
  p->iterations = (int)xp_spec_int(r, "iterations", 20);
  p->root = (int)xp_spec_int(r, "root", 0);
  p->verify = xp_spec_bool(r, "verify", 1);
  p->timeout_s = xp_spec_num(r, "timeout_s", 300);
  p->alloc_nccl = strcmp(xp_spec_str(r, "alloc", "ncclMemAlloc"), "ncclMemAlloc") == 0;
  p->rendezvous = xp_spec_str(r, "rendezvous", NULL);
  if (p->rendezvous && !*p->rendezvous)
    return xp_spec_error(s, "rendezvous", "is empty: give a file path every rank can reach, or drop the key");
  if (!p->rendezvous && getenv("XP_RENDEZVOUS") && *getenv("XP_RENDEZVOUS"))
    p->rendezvous = getenv("XP_RENDEZVOUS");
  if ((rc = load_sizes(s, p)) != 0 || (rc = load_env(s, p)) != 0 || (rc = load_gpus(s, p)) != 0) {
    xp_nccl_plan_free(p);
    return rc;
  }
  return 0;
}

void xp_nccl_plan_free(xp_nccl_plan *p) {
  free(p->sizes);
  free(p->gpus);
  p->sizes = NULL;
  p->gpus = NULL;
}

/* The key a size came from, so that an error points at the line the user wrote. */
static void size_origin(const xp_spec *s, int64_t bytes, char *path, size_t n) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(s->root, "sizes"), *e;
  int i = 0;
  cJSON_ArrayForEach(e, arr) {
    int64_t v = -1;
    if (cJSON_IsNumber(e)) v = xp_saturate_int64(e->valuedouble);
    else if (cJSON_IsString(e)) xp_parse_size(e->valuestring, &v);
    if (v == bytes) { snprintf(path, n, "sizes[%d]", i); return; }
    i++;
  }
  snprintf(path, n, "%s", cJSON_GetObjectItemCaseSensitive(s->root, "size_range") ? "size_range" : "sizes");
}

int xp_nccl_plan_check_ranks(const xp_spec *s, const xp_nccl_plan *p, int nranks) {
  for (int c = 0; c < p->ncoll; c++)
    for (int d = 0; d < p->ndtype; d++)
      for (int i = 0; i < p->nsizes; i++) {
        xp_nccl_counts k;
        int64_t need;
        if (xp_nccl_counts_for(p->coll[c], p->dtype[d], p->sizes[i], nranks, &k, &need) == 0) continue;
        char path[64];
        size_origin(s, p->sizes[i], path, sizeof path);
        return xp_spec_error(s, path, "%lld bytes of %s do not split into whole elements for %s "
                             "over %d rank%s (sizes must be multiples of %lld bytes)",
                             (long long)p->sizes[i], xp_nccl_dtype_name(p->dtype[d]),
                             xp_nccl_coll_name(p->coll[c]), nranks, nranks == 1 ? "" : "s",
                             (long long)need);
      }
  int bcast = 0;
  for (int c = 0; c < p->ncoll; c++) bcast |= p->coll[c] == XP_COLL_BROADCAST;
  if (bcast && p->root >= nranks)
    return xp_spec_error(s, "root", "rank %d does not exist among %d ranks", p->root, nranks);
  return 0;
}

void xp_nccl_warn_declared_ranks(const xp_spec *s, int nranks) {
  static const char *const keys[] = {"tp", "gpus_declared"};
  for (int i = 0; i < 2; i++) {
    const int64_t v = xp_spec_int(s->root, keys[i], 0);
    if (v > 0 && v != nranks)
      xp_warn("%s = %lld is declared, but this run has %d rank%s: list the devices in gpus to measure %lld",
              keys[i], (long long)v, nranks, nranks == 1 ? "" : "s", (long long)v);
  }
}

int xp_nccl_launch_device(const xp_spec *s, const xp_nccl_plan *p, const xp_nccl_launch *l, int visible, int *dev) {
  if (p->ngpus && l->local_rank >= p->ngpus)
    return xp_spec_error(s, "gpus", "local rank %d has no device: %d listed", l->local_rank, p->ngpus);
  *dev = p->ngpus ? p->gpus[l->local_rank] : l->local_rank;
  if (visible < 0 || *dev < visible) return 0;
  if (p->ngpus) { /* the device gpus lists for this local rank: its line, or the --set */
    char path[32];
    snprintf(path, sizeof path, "gpus[%d]", l->local_rank);
    return xp_spec_check_device(s, path, *dev, visible);
  }
  /* no gpus: the mode gave each local rank the device of its number, said where it was set */
#define NO_DEVICE "local rank %d drives device %d (without gpus, each local rank the device of its number), " \
                  "but %d GPU%s visible: list the devices in gpus, one a local rank"
  const char *const are = visible == 1 ? " is" : "s are";
  if (cJSON_HasObjectItem(s->root, "rendezvous"))
    return xp_spec_env_error(s, "rendezvous", NO_DEVICE, l->local_rank, *dev, visible, are);
  return xp_error(XP_EXIT_ENV, "XP_RENDEZVOUS (per-process mode): " NO_DEVICE, l->local_rank, *dev, visible, are);
#undef NO_DEVICE
}

/* With the ranks not known before the run, what holds for any number of them: every size is
** whole elements of every dtype. */
static int check_whole_elements(const xp_spec *s, const xp_nccl_plan *p) {
  for (int d = 0; d < p->ndtype; d++)
    for (int i = 0; i < p->nsizes; i++) {
      const int64_t e = xp_nccl_dtype_size(p->dtype[d]);
      if (p->sizes[i] % e == 0) continue;
      char path[64];
      size_origin(s, p->sizes[i], path, sizeof path);
      return xp_spec_error(s, path, "%lld bytes are not whole %s elements (sizes must be multiples of %lld bytes)",
                           (long long)p->sizes[i], xp_nccl_dtype_name(p->dtype[d]), (long long)e);
    }
  return 0;
}

/* ---- kind callbacks ---- */

int xp_nccl_burst_check(const xp_spec *s) {
  xp_nccl_plan p;
  int rc = xp_nccl_plan_load(s, &p);
  if (rc) return rc;
  if (p.ngpus > 0 && !p.rendezvous) rc = xp_nccl_plan_check_ranks(s, &p, p.ngpus);
  else rc = check_whole_elements(s, &p);
  xp_nccl_plan_free(&p);
  return rc;
}

/* Ranks known before running: the gpus list, or a launcher's world size. 0 when unknown, -1
** after reporting launcher variables that contradict each other. */
static int known_ranks(const xp_nccl_plan *p, xp_nccl_launch *l, int *per_process) {
  *per_process = p->rendezvous != NULL;
  if (!*per_process) return p->ngpus;
  int rc = xp_nccl_launch_from_env(getenv, l);
  return rc == 0 ? l->size : rc == 1 ? 0 : -1;
}

static void print_env_plan(const xp_spec *s, const xp_nccl_plan *p, FILE *out) {
  const cJSON *e;
  int any = 0;
  fputs("env:      ", out);
  cJSON_ArrayForEach(e, p->env) {
    char v[256], path[160];
    xp_nccl_env_value(e, v, sizeof v);
    snprintf(path, sizeof path, "env.%s", e->string);
    /* --set env.KEY=VALUE's is the command line's, not the spec's */
    fprintf(out, "%s%s=%s (%s)", any++ ? ", " : "", e->string, v, xp_spec_line(s, path) < 0 ? "--set" : "spec");
  }
  if (!cJSON_GetObjectItemCaseSensitive(p->env, "NCCL_NVLS_ENABLE")) {
    const char *user = getenv("NCCL_NVLS_ENABLE");
    if (user && *user) fprintf(out, "%sNCCL_NVLS_ENABLE=%s (environment)", any++ ? ", " : "", user); /* as apply_env */
    else fprintf(out, "%sNCCL_NVLS_ENABLE=0 (xp default: NVLink multicast stays off)", any++ ? ", " : "");
  }
  fputc('\n', out);
}

/* A case's count per call, and where the check cannot see every rank's fault at it, so. */
static void print_count(FILE *out, const xp_nccl_plan *p, enum xp_nccl_coll coll, enum xp_nccl_dtype dtype,
                        int nranks, size_t count) {
  const uint64_t need = xp_nccl_check_min_count((int)dtype, (int)coll, nranks, p->root);
  fprintf(out, " %zu%s", count, coll == XP_COLL_ALLTOALL ? " per peer" : "");
  if (p->verify && count < need)
    fprintf(out, "; checked partly (every rank's fault shows from %llu)", (unsigned long long)need);
}

int xp_nccl_burst_plan(const xp_spec *s, FILE *out) {
  xp_nccl_plan p;
  int rc = xp_nccl_plan_load(s, &p);
  if (rc) return rc;
  xp_nccl_launch l;
  int per_process, n = known_ranks(&p, &l, &per_process);
  int dev;
  if (n < 0) rc = XP_EXIT_USAGE;
  /* as the run decides its device: a local rank past the gpus list was found only once recorded */
  else if (n > 0 && per_process) rc = xp_nccl_launch_device(s, &p, &l, -1, &dev);
  if (rc == 0 && n > 0) rc = xp_nccl_plan_check_ranks(s, &p, n);
  if (rc) goto done;
  /* the ranks known now: the warning the run would give, before it is spent on them */
  if (n > 0) xp_nccl_warn_declared_ranks(s, n);
  int ncases = p.ncoll * p.ndtype * p.nsizes * p.nmode * p.nplace;
  fprintf(out, "nccl_burst: %d collective%s x %d dtype%s x %d size%s x %d mode%s x %d placement%s"
          " = %d case%s\n", p.ncoll, p.ncoll == 1 ? "" : "s", p.ndtype, p.ndtype == 1 ? "" : "s",
          p.nsizes, p.nsizes == 1 ? "" : "s", p.nmode, p.nmode == 1 ? "" : "s", p.nplace,
          p.nplace == 1 ? "" : "s", ncases, ncases == 1 ? "" : "s");
  if (per_process) {
    if (n > 0)
      fprintf(out, "ranks:    one process per GPU: rank %d of %d (from %s), local rank %d; unique id "
              "through %s; rank 0 gathers and records one run\n", l.rank, l.size, l.source,
              l.local_rank, p.rendezvous);
    else
      fprintf(out, "ranks:    one process per GPU under a launcher (rank and size from RANK/WORLD_SIZE, "
              "OMPI_COMM_WORLD_*, SLURM_* or PMI_*); unique id through %s\n", p.rendezvous);
  } else if (p.ngpus > 0) {
    fputs("ranks:    GPUs ", out);
    for (int i = 0; i < p.ngpus; i++) fprintf(out, "%s%d", i ? "," : "", p.gpus[i]);
    fputs(" driven by one process (one stream per GPU, grouped NCCL calls)\n", out);
  } else
    fputs("ranks:    every visible GPU, driven by one process (one stream per GPU, grouped NCCL calls)\n", out);
  fprintf(out, "timing:   burst of %d collective%s per sample; %d warm-up burst%s, %d timed burst%s per "
          "case; CUDA events on every GPU\n", p.burst, p.burst == 1 ? "" : "s", p.warmup,
          p.warmup == 1 ? "" : "s", p.iterations, p.iterations == 1 ? "" : "s");
  fprintf(out, "check:    %s\n", p.verify ? "results verified on the first and last iterations (#wrong)"
                                          : "off (verify = false)");
  fprintf(out, "buffers:  %s; timeout %g s for NCCL init, every wait and every case\n",
          p.alloc_nccl ? "ncclMemAlloc" : "cudaMalloc", p.timeout_s);
  print_env_plan(s, &p, out);
  fputs("captured: NCCL's INFO log (INIT,GRAPH,TUNING,ENV) and its topology dump, kept with the run\n", out);
  fprintf(out, "%-14s %-9s %12s  %-6s %-13s %s\n", "collective", "dtype", "bytes", "mode", "placement",
          n > 0 ? "count per call" : "");
  for (int c = 0; c < p.ncoll; c++)
    for (int d = 0; d < p.ndtype; d++)
      for (int i = 0; i < p.nsizes; i++)
        for (int m = 0; m < p.nmode; m++)
          for (int q = 0; q < p.nplace; q++) {
            fprintf(out, "%-14s %-9s %12lld  %-6s %-13s", xp_nccl_coll_name(p.coll[c]),
                    xp_nccl_dtype_name(p.dtype[d]), (long long)p.sizes[i], xp_nccl_mode_name(p.mode[m]),
                    xp_nccl_place_name(p.place[q]));
            xp_nccl_counts k;
            if (p.coll[c] == XP_COLL_ALLTOALL && p.place[q] == XP_PLACE_IN)
              fputs(" skipped: alltoall has no in-place form", out);
            else if (n > 0 && xp_nccl_counts_for(p.coll[c], p.dtype[d], p.sizes[i], n, &k, NULL) == 0)
              print_count(out, &p, p.coll[c], p.dtype[d], n, k.count);
            fputc('\n', out);
          }
done:
  xp_nccl_plan_free(&p);
  return rc;
}
