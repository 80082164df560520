/*
** Run kind `gemm`: cuBLASLt at a model's exact per-GPU shapes, timed as kernel engineers
** time, judged against the device's measured ceilings.
**
** Shapes come from a model file and the parallel split (model, tp, ep: models.h says how)
** or from an explicit list (shapes = [{name, n, k}]); every shape runs at every M in `m`.
** For a model, each M is a decode batch: expert GEMMs then get the rows per active expert.
**
** dtype: bf16, fp8 (e4m3, per-tensor scales) or fp8_block (e4m3 as DeepSeek-V3/V4 ship and
** vLLM and SGLang run them: one fp32 scale per 128x128 weight block, one per token per 128 of
** K; kernels/ceilings/block_scales.h lays them out). Block scales are random per block and
** the reference applies the same ones, so a scale read from the wrong place fails the check;
** they rotate with the weights and count in the bytes. cuBLASLt may run them with the
** operands swapped (D transposed: lt.h), the reference laid out to match, its params'
** algo_default naming the order; an M it has no right plan for runs padded to more rows
** (lt.h; on an H200 M = 1 to 3 run as 4), params m_run and the note saying so. A GEMM is
** recorded skipped, saying why, only where the GPU lacks block-scaled fp8 (any GPU but
** Hopper, cuBLASLt before 12.9) or it is batched; on a Hopper, no plan is the case's
** failure, naming cuBLASLt's status.
** dtype = "checkpoint" runs each GEMM at the dtype its model file's checkpoint_* keys give it
** (models.h), in one run: operands are filled per GEMM in its dtype, each judged against its
** dtype's peak; an FP4 GEMM, which xp does not measure, is recorded skipped.
**
** Per shape: the heuristic's top_n candidates are each checked against a float32 reference
** GEMM on the GPU (element wrong when |D - ref| > |ref|/64 + rms(ref)/64: bf16 output
** rounding is 2^-9 relative, split-K partial sums in bf16 stay well inside; a wrong layout,
** scale or reduction is off by about rms(ref)). A candidate cuBLASLt refuses to run
** (cublasLtMatmul answers a cuBLAS status, NOT_SUPPORTED, INVALID_VALUE, EXECUTION_FAILED...,
** at the check or under graph capture, and the CUDA context is intact) is left out and
** recorded: params candidates_refused, and refused = "#index algo=id STATUS, ...". A sticky
** CUDA error (illegal address, launch failure: the context is lost) still fails the run.
** The default is the first candidate cuBLASLt runs, as a caller that walks the heuristic's
** list until a matmul is accepted gets it: the heuristic's first unless refused; then
** params default_index says which, and the case's note which were refused before it (a
** default marked missing instead would drop the shape from every decode-step sum). A wrong
** default fails the case even when a later candidate is right (it is what a caller of
** cuBLASLt gets, and a decode step predicted with another's time would not be the engine's):
** the note names the right ones, untimed, or says none ran right (then the reference or the
** layout is suspect rather than cuBLASLt); wrong other candidates are left out of the
** best-of-N; a shape none of whose candidates runs fails, its note naming the refusals
** (gemm_pick.c decides all this). Then, for each cache mode:
**   cold  weights rotate over buffers totalling max(cold_mib, 4 x L2), at least two, so each
**         launch reads its weight from HBM; activations and output stay put, as in a
**         decode step where the previous kernel just wrote them. Small weights rotate over
**         at most 1024 copies (gemm_cold.h), a scratch write of the rest of the bytes before
**         each round (as nvbench flushes L2), timed alone and taken out of the times (params
**         cold_flush_bytes, cold_flush_us: its share of a launch);
**   hot   one weight buffer: L2-resident where it fits.
** Times are CUDA events around replays of a CUDA graph of `launches` back-to-back matmuls
** (a multiple of the buffer count), divided by the launches: no launch overhead. The
** default algorithm gets `samples` replays; the others a screening of samples/4 (at least
** 3); the fastest is re-timed with `samples` replays. If it does not beat the default
** there, the default is the best.
**
** Ceilings: ceilings = "lookup" (default) takes the latest ok `ceilings` run of this GPU
** (by UUID, else a GPU of the same name) under this driver that measured the matmul peaks
** its dtypes need (not a later one of matmul_dtypes = [] or a failed peak), and fails with "run xp run
** experiments/ceilings.toml first" when there is none; ceilings = "measure" measures
** them inside this run first (recorded as cases ceilings.copy, ceilings.matmul_*).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include "kind.h"
#include "ceilings/block_scales.h"
#include "models.h"
#include "runners/ceilings.h"
#include "recorder.h"
#include "runners/gemm.h"
#include "runners/gemm_cold.h"
#include "runners/gemm_pick.h"
#include "stats.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "ceilings/ceilings.h"
#include "gpu.h"
#include "lt.h"
#endif

#define COLD_MIB_DEFAULT 256

static const char *const cache_modes[] = {"cold", "hot", "both", NULL};
enum { XP_GEMM_MAX_M = 16 * 65535 };
static const char *const mla_modes[] = {"absorbed", "naive", NULL};
static const char *const ceilings_modes[] = {"lookup", "measure", NULL};

static const xp_field shape_fields[] = {
    {"name", XP_T_STRING, 1, NULL, NULL, 0, 0, "what the GEMM is (o_proj, moe_down, ...)"},
    {"n", XP_T_INT, 1, NULL, NULL, 1, 1 << 30, "output features (rows of W)"},
    {"k", XP_T_INT, 1, NULL, NULL, 1, 1 << 30, "input features (columns of W)"},
    /* at most 65535: the float32 reference kernel's grid has one z slice per matrix */
    {"bmm", XP_T_INT, 0, NULL, NULL, 1, 65535, "matrices in one batched launch (default 1)"},
    {"count", XP_T_INT, 0, NULL, NULL, 0, 1 << 30, "launches per decode step (default 1)"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static const xp_field gemm_fields[] = {
    {"m", XP_T_INTS, 1, NULL, NULL, 0, 0, "rows: decode batch sizes (model) or M (shapes)"},
    {"model_file", XP_T_STRING, 0, NULL, NULL, 0, 0,
     "model file; default models/<model>.toml beside the spec"},
    {"shapes", XP_T_TABLES, 0, NULL, shape_fields, 0, 0, "explicit shapes instead of a model"},
    {"only", XP_T_STRINGS, 0, NULL, NULL, 0, 0, "keep only these derived GEMMs by name"},
    {"mla", XP_T_STRING, 0, mla_modes, NULL, 0, 0, "MLA in decode form (absorbed, default) or naive"},
    {"mxfp4_backend", XP_T_STRING, 0, xp_mxfp4_backends, NULL, 0, 0,
     "vLLM's MoE backend whose padding a model's MXFP4 experts get (triton, default: Hopper's)"},
    {"cache", XP_T_STRING, 0, cache_modes, NULL, 0, 0, "cold (default: weights from HBM), hot, both"},
    {"top_n", XP_T_INT, 0, NULL, NULL, 1, 64, "heuristic candidates tried (default 8)"},
    {"samples", XP_T_INT, 0, NULL, NULL, 3, 100000, "timed graph replays (default 30)"},
    {"warmup", XP_T_INT, 0, NULL, NULL, 0, 10000, "untimed replays first (default 3)"},
    {"launches", XP_T_INT, 0, NULL, NULL, 1, 100000, "matmuls per CUDA graph (default 100)"},
    {"cold_mib", XP_T_INT, 0, NULL, NULL, 1, 1 << 20, "cold rotation total, MiB (default 256; >= 4 x L2)"},
    {"ceilings", XP_T_STRING, 0, ceilings_modes, NULL, 0, 0, "lookup (default) or measure"},
    {"device", XP_T_INT, 0, NULL, NULL, 0, 1024, "CUDA device index (default 0)"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

/* Everything a spec says, resolved: the same for check, plan and execute. */
typedef struct gemm_setup {
  xp_model *model; /* NULL with explicit shapes */
  xp_parallel par;
  const char *dtype; /* as the spec names it; each shape's own is in its dtype */
  int checkpoint;  /* dtype "checkpoint": each GEMM at its model's checkpoint dtype */
  int need_bf16, need_fp8; /* some GEMM runs at bf16, at fp8 (per-tensor or block scales) */
  int cold, hot;
  int top_n, samples, warmup, launches, device, measure_ceilings;
  int64_t cold_mib;
  xp_gemm_shape *shapes; /* every (shape, M) */
  size_t nshapes;
} gemm_setup;

static void setup_free(gemm_setup *g) {
  xp_model_free(g->model);
  free(g->shapes);
  memset(g, 0, sizeof *g);
}

static int file_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int load_model(const xp_spec *spec, gemm_setup *g) {
  const cJSON *r = spec->root;
  const char *name = xp_spec_str(r, "model", NULL), *file = xp_spec_str(r, "model_file", NULL);
  if (!name && !file)
    return xp_spec_error(spec, "m", "say which GEMMs: model = \"NAME\" (shapes derived from "
                         "models/NAME.toml) or shapes = [{name, n, k}, ...]");
  char *rel = file ? NULL : xp_asprintf("models/%s.toml", name);
  char *path = xp_spec_resolve(spec, file ? file : rel); /* the spec's own string: --set's is the shell's */
  int rc = 0;
  char *near = file || file_exists(path) ? NULL : xp_model_name_near(spec, name);
  if (near) /* --set model=llama-3.1-70b, or the Hugging Face id a serving run records */
    rc = xp_spec_error(spec, "model", "no model file %s: did you mean \"%s\"?", path, near);
  else if (!file_exists(path))
    rc = xp_spec_error(spec, file ? "model_file" : "model", "no model file %s%s", path,
                       file ? "" : " (give model_file = \"...\" to name one)");
  else if ((rc = xp_model_load(path, &g->model)) == 0 && name &&
           strcasecmp(name, g->model->name) != 0)
    rc = xp_spec_error(spec, "model", "model \"%s\" does not match the model file %s, which "
                       "describes \"%s\"", name, path, g->model->name);
  free(near);
  free(rel);
  free(path);
  return rc;
}

static int name_in(const cJSON *arr, const char *name) {
  const cJSON *e;
  cJSON_ArrayForEach(e, arr) if (strcmp(e->valuestring, name) == 0) return 1;
  return 0;
}

/* Model-derived shapes at every M, filtered by `only` (whose names must all exist). */
static int derive_shapes(const xp_spec *spec, gemm_setup *g, const cJSON *ms) {
  const cJSON *only = cJSON_GetObjectItemCaseSensitive(spec->root, "only"), *e;
  char err[256];
  if (xp_model_check_parallel(g->model, &g->par, err, sizeof err)) {
    /* the key to blame: tp when it fails alone (without expert parallelism), else ep */
    xp_parallel tp_only = g->par;
    char err1[256];
    tp_only.ep = 1;
    return xp_spec_error(spec, xp_model_check_parallel(g->model, &tp_only, err1, sizeof err1) ? "tp" : "ep", "%s", err);
  }
  cJSON_ArrayForEach(e, ms) {
    if (xp_model_decode_gemms(g->model, &g->par, xp_saturate_int64(e->valuedouble), &g->shapes, &g->nshapes))
      return XP_EXIT_USAGE;
  }
  int i = 0;
  cJSON_ArrayForEach(e, only) {
    int found = 0;
    for (size_t j = 0; j < g->nshapes && !found; j++)
      found = strcmp(g->shapes[j].name, e->valuestring) == 0;
    if (!found) {
      char names[512] = "";
      for (size_t j = 0; j < g->nshapes && g->shapes[j].batch == g->shapes[0].batch; j++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "",
                 g->shapes[j].name);
      char path[32];
      snprintf(path, sizeof path, "only[%d]", i);
      return xp_spec_error(spec, path, "%s has no GEMM named \"%s\" (it has: %s)",
                           g->model->name, e->valuestring, names);
    }
    i++;
  }
  size_t kept = 0;
  for (size_t j = 0; j < g->nshapes; j++)
    if (!only || name_in(only, g->shapes[j].name)) g->shapes[kept++] = g->shapes[j];
  g->nshapes = kept;
  return 0;
}

static void explicit_shapes(const cJSON *list, const cJSON *ms, gemm_setup *g) {
  const cJSON *s, *e;
  cJSON_ArrayForEach(e, ms) cJSON_ArrayForEach(s, list) {
    xp_gemm_shape *x = &g->shapes[g->nshapes++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", xp_spec_str(s, "name", "gemm"));
    x->m = x->batch = xp_saturate_int64(e->valuedouble);
    x->n = xp_spec_int(s, "n", 1);
    x->k = xp_spec_int(s, "k", 1);
    x->bmm = xp_spec_int(s, "bmm", 1);
    x->count = xp_spec_int(s, "count", 1);
  }
}

/* What a GEMM runs at (its dtype, spelt as a spec's). */
enum gemm_dt { DT_BF16, DT_FP8, DT_BLOCK, DT_FP4 };

static enum gemm_dt shape_dt(const xp_gemm_shape *s) {
  return strcmp(s->dtype, "fp8") == 0 ? DT_FP8 : strcmp(s->dtype, "fp8_block") == 0 ? DT_BLOCK
         : strcmp(s->dtype, "fp4") == 0 ? DT_FP4 : DT_BF16;
}

/* Bytes of one weight or activation element of an input xp measures (FP4 never runs). */
static int elem_bytes(const xp_gemm_shape *s) { return shape_dt(s) == DT_BF16 ? 2 : 1; }

/* What cuBLASLt takes of an fp8 GEMM's K and N. The cuBLAS 13 docs say of both scalings "all
** matrix dimensions must meet the optimal requirements listed in Tensor Core Usage" (16-byte
** alignment), and of block scaling's scale layouts "M and N must be multiples of 4" and
** 128-element groups; what cuBLASLt 13 does on an H200 (tests/unit/test_fp8_shapes_gpu.c, which
** holds these rules against it, shape by shape, in a child process each) is narrower there:
**   fp8        K, a byte an element, in whole 16s ((k * AtypeSize) % 16 == 0); N, the bf16
**              output's rows in xp's weights-first plan (lt.c), in whole 8s: K = 7160, 7172,
**              7176 or N = 4, 514, 516 have no plan at all, K = 16 and N = 8, 520 run right;
**   fp8_block  K in whole 16s, N any: a last group of K shorter than 128 gets its own scale
**              (K = 112, 144, 192, 2064, 7184, 7232 run right against the reference that scales
**              by ceil(K/128) groups), and an N not a multiple of 4 or 8 (1, 3, 5, 6, 7, 513,
**              514) runs right with the activations as cuBLASLt's A (lt.c tries that order),
**              the tokens, which the plan pads, as the output's rows; K = 7170, 7176, 2056 have
**              no plan in either order.
** A spec's shapes show these without a GPU, where a GEMM went to it to be recorded failed. */
static const char fp8_k_rule[] =
    "takes K in multiples of 16 (cuBLASLt's fp8 kernels: cuBLAS docs, \"Tensor Core Usage\")";
static const char fp8_n_rule[] = "cuBLASLt's fp8 kernels take N, their bf16 output's rows, in multiples "
                                 "of 8 (cuBLAS docs, \"Tensor Core Usage\": 16-byte aligned)";

/* What K and N must be whole multiples of at dtype dt; K's 0 where it asks nothing (bf16, FP4). */
static int fp8_k_multiple(enum gemm_dt dt) { return dt == DT_FP8 || dt == DT_BLOCK ? 16 : 0; }
static int fp8_n_multiple(enum gemm_dt dt) { return dt == DT_FP8 ? 8 : 1; }

int xp_gemm_fp8_takes(int block_scaled, long long k, long long n) {
  const enum gemm_dt dt = block_scaled ? DT_BLOCK : DT_FP8;
  return k % fp8_k_multiple(dt) == 0 && n % fp8_n_multiple(dt) == 0;
}

/* An explicit shape is refused at its k or n, a model's GEMM by name (at dtype). */
static int check_fp8_shapes(const xp_spec *spec, const gemm_setup *g, const cJSON *list) {
  const cJSON *sh;
  int i = 0;
  const enum gemm_dt list_dt = list && g->nshapes ? shape_dt(&g->shapes[0]) : DT_BF16;
  const cJSON *checked = fp8_k_multiple(list_dt) ? list : NULL; /* every explicit shape runs at the spec's dtype */
  cJSON_ArrayForEach(sh, checked) {
    char path[48];
    const long long k = xp_spec_int(sh, "k", 1), n = xp_spec_int(sh, "n", 1);
    const int km = fp8_k_multiple(list_dt), nm = fp8_n_multiple(list_dt);
    snprintf(path, sizeof path, "shapes[%d].k", i);
    if (k % km)
      return xp_spec_error(spec, path, "dtype %s %s; k = %lld is not a multiple of %d", g->dtype,
                           fp8_k_rule, k, km);
    snprintf(path, sizeof path, "shapes[%d].n", i++);
    if (n % nm)
      return xp_spec_error(spec, path, "dtype %s: n = %lld is not a multiple of %d, and %s",
                           g->dtype, n, nm, fp8_n_rule);
  }
  for (size_t j = 0; !list && j < g->nshapes; j++) {
    const xp_gemm_shape *s = &g->shapes[j];
    const enum gemm_dt dt = shape_dt(s);
    if (!fp8_k_multiple(dt)) continue;
    if (s->k % fp8_k_multiple(dt))
      return xp_spec_error(spec, "dtype", "%s %s, and %s's GEMM %s has K = %lld (leave it out with "
                           "only = [...], or measure it at another dtype)", s->dtype, fp8_k_rule,
                           g->model->name, s->name, (long long)s->k);
    if (s->n % fp8_n_multiple(dt))
      return xp_spec_error(spec, "dtype", "%s: %s's GEMM %s has N = %lld, and %s (leave it out "
                           "with only = [...], or measure it at another dtype)", s->dtype,
                           g->model->name, s->name, (long long)s->n, fp8_n_rule);
  }
  return 0;
}

/* Each GEMM's dtype: the spec's, or with "checkpoint" the one the model derived it with; then
** what the run needs of the device and the ceilings, and fp8's K and N checked. */
static int resolve_dtypes(const xp_spec *spec, gemm_setup *g, const cJSON *list) {
  for (size_t j = 0; j < g->nshapes; j++) {
    xp_gemm_shape *s = &g->shapes[j];
    if (!g->checkpoint) snprintf(s->dtype, sizeof s->dtype, "%s", g->dtype);
    g->need_bf16 |= shape_dt(s) == DT_BF16;
    g->need_fp8 |= shape_dt(s) == DT_FP8 || shape_dt(s) == DT_BLOCK;
  }
  return check_fp8_shapes(spec, g, list);
}

static int setup_build(const xp_spec *spec, gemm_setup *g) {
  const cJSON *r = spec->root, *e;
  memset(g, 0, sizeof *g);
  const char *dtype = xp_spec_str(r, "dtype", "bf16");
  if (strcmp(dtype, "bf16") && strcmp(dtype, "fp8") && strcmp(dtype, "fp8_block") &&
      strcmp(dtype, "checkpoint"))
    return xp_spec_error(spec, "dtype", "gemm runs measure dtype \"bf16\", \"fp8\" (e4m3 "
                         "with per-tensor scales), \"fp8_block\" (e4m3 with DeepSeek's 128x128 "
                         "block scales) or \"checkpoint\" (each GEMM at its model's), not \"%s\"", dtype);
  g->dtype = dtype;
  g->checkpoint = strcmp(dtype, "checkpoint") == 0;
  const char *cache = xp_spec_str(r, "cache", "cold");
  g->cold = strcmp(cache, "hot") != 0;
  g->hot = strcmp(cache, "cold") != 0;
  g->top_n = (int)xp_spec_int(r, "top_n", 8);
  g->samples = (int)xp_spec_int(r, "samples", 30);
  g->warmup = (int)xp_spec_int(r, "warmup", 3);
  g->launches = (int)xp_spec_int(r, "launches", 100);
  g->device = (int)xp_spec_int(r, "device", 0);
  g->cold_mib = xp_spec_int(r, "cold_mib", COLD_MIB_DEFAULT);
  g->measure_ceilings = strcmp(xp_spec_str(r, "ceilings", "lookup"), "measure") == 0;
  g->par.tp = (int)xp_spec_int(r, "tp", 1);
  g->par.ep = (int)xp_spec_int(r, "ep", 1);
  g->par.mla_absorbed = strcmp(xp_spec_str(r, "mla", "absorbed"), "absorbed") == 0;
  const char *backend = xp_spec_str(r, "mxfp4_backend", "triton");
  while (xp_mxfp4_backends[g->par.mxfp4_backend + 1] && strcmp(xp_mxfp4_backends[g->par.mxfp4_backend], backend))
    g->par.mxfp4_backend++;

  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(r, "m");
  int i = 0, nm = cJSON_GetArraySize(ms);
  if (nm == 0) return xp_spec_error(spec, "m", "give at least one M (rows of the GEMM)");
  cJSON_ArrayForEach(e, ms) {
    char path[32];
    snprintf(path, sizeof path, "m[%d]", i++);
    /* 16 rows a reference block, at most 65535 blocks along y */
    if (e->valuedouble <= 0 || e->valuedouble > XP_GEMM_MAX_M)
      return xp_spec_error(spec, path, "M must be between 1 and %d, got %.0f", XP_GEMM_MAX_M, e->valuedouble);
  }
  const cJSON *sh;
  i = 0;
  cJSON_ArrayForEach(sh, cJSON_GetObjectItemCaseSensitive(r, "shapes")) {
    /* one matrix set past 2^40 elements fits no GPU, and its byte counts would overflow */
    const double elems = (double)xp_spec_int(sh, "bmm", 1) * (double)xp_spec_int(sh, "n", 1) * (double)xp_spec_int(sh, "k", 1);
    char path[48];
    snprintf(path, sizeof path, "shapes[%d]", i++);
    if (xp_spec_check_weights(spec, path, "bmm x n x k", elems, 40, "more than any GPU holds")) return XP_EXIT_USAGE;
  }
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(r, "shapes");
  if (list) {
    const char *model_only[] = {"model_file", "only", "mla", "ep", "mxfp4_backend"};
    for (size_t j = 0; j < sizeof model_only / sizeof *model_only; j++)
      if (cJSON_GetObjectItemCaseSensitive(r, model_only[j]))
        return xp_spec_error(spec, model_only[j], "applies to shapes derived from a model, "
                             "not to an explicit shapes list");
    if (cJSON_GetArraySize(list) == 0) return xp_spec_error(spec, "shapes", "the list is empty");
    if (g->checkpoint)
      return xp_spec_error(spec, "dtype", "\"checkpoint\" takes each GEMM's dtype from a model "
                           "file, and an explicit shapes list has none: give the dtype");
    g->shapes = xp_xcalloc((size_t)(nm * cJSON_GetArraySize(list)), sizeof *g->shapes);
    explicit_shapes(list, ms, g);
    return resolve_dtypes(spec, g, list);
  }
  /* a model's step is derived for one GPU holding every layer (models.h): labelled with a
  ** pipeline split, its counts per step would be filed as one stage's */
  if (xp_spec_int(r, "pp", 1) != 1)
    return xp_spec_error(spec, "pp", "gemm runs derive every layer's GEMMs on one GPU (no pipeline "
                         "stages): pp = %lld would file the whole model's step as one stage's (leave pp "
                         "out, or list a stage's shapes and counts in shapes)", (long long)xp_spec_int(r, "pp", 1));
  int rc = load_model(spec, g);
  if (rc) return rc;
  if (cJSON_GetObjectItemCaseSensitive(r, "mla") && g->model->kv_lora <= 0)
    return xp_spec_error(spec, "mla", "%s has no MLA (no kv_lora_rank in its model file)", g->model->name);
  if (cJSON_GetObjectItemCaseSensitive(r, "mxfp4_backend") && !xp_model_fp4_experts(g->model))
    return xp_spec_error(spec, "mxfp4_backend", "%s's experts are not held in FP4 (checkpoint_fp4 in "
                         "its model file): there is no MXFP4 padding to choose", g->model->name);
  const cJSON *only = cJSON_GetObjectItemCaseSensitive(r, "only");
  if (only && cJSON_GetArraySize(only) == 0)
    return xp_spec_error(spec, "only", "the list is empty: name the GEMMs to keep, or drop the key");
  if (g->checkpoint && !g->model->ck_dtype)
    return xp_spec_error(spec, "dtype", "\"checkpoint\" takes each GEMM's dtype from the model "
                         "file, and %s gives none (checkpoint_dtype: xp help models)", g->model->path);
  if ((rc = derive_shapes(spec, g, ms))) return rc;
  return resolve_dtypes(spec, g, NULL);
}

/* Declared keys are labels that queries select runs by: one that says other than what the
** run measures would file it under a configuration it never ran. */
static int check_labels(const xp_spec *spec) {
  const cJSON *r = spec->root, *m = cJSON_GetObjectItemCaseSensitive(r, "m");
  const int64_t batch = xp_spec_int(r, "batch", 0);
  if (batch > 0 && (cJSON_GetArraySize(m) != 1 || xp_saturate_int64(cJSON_GetArrayItem(m, 0)->valuedouble) != batch))
    return xp_spec_error(spec, "batch", "batch = %lld labels a run of that one decode batch; this run measures m = "
                         "[...] (give m = [%lld], or leave batch out)", (long long)batch, (long long)batch);
  const char *q = xp_spec_str(r, "quantization", NULL), *dtype = xp_spec_str(r, "dtype", "bf16");
  if (q && strcmp(q, dtype) != 0)
    return xp_spec_error(spec, "quantization", "\"%s\" labels the weights, but gemm runs measure %s weights "
                         "(dtype)", q, dtype);
  return 0;
}

static int gemm_check(const xp_spec *spec) {
  /* the same M or shape twice would time the same GEMM twice and count it twice per step */
  if (xp_spec_check_distinct(spec, "m", NULL) || xp_spec_check_distinct(spec, "shapes", "name") ||
      xp_spec_check_distinct(spec, "only", NULL) || check_labels(spec))
    return XP_EXIT_USAGE;
  gemm_setup g;
  int rc = setup_build(spec, &g);
  setup_free(&g);
  return rc;
}

/* ---- what the run measured under, for the record ---- */

/* What the spec left to defaults is still what ran: said where queries group by it (model,
** dtype, tp; the model's source, content, checkpoint dtype, MLA form and MXFP4 padding). A
** run of FP4 experts at the default triton padding recorded no backend, so it could not be told
** from a marlin or flashinfer one by its run_meta. XP_EXIT_DB, or 0. */
static int record_setup(xp_run *run, const cJSON *root, const gemm_setup *g) {
  const xp_model *m = g->model;
  if ((m && !xp_spec_str(root, "model", NULL) && xp_run_meta(run, "model", m->name, "declared")) ||
      (!xp_spec_str(root, "dtype", NULL) && xp_run_meta(run, "dtype", "bf16", "declared")) ||
      (m && !cJSON_GetObjectItemCaseSensitive(root, "tp") && xp_run_meta_int(run, "tp", g->par.tp, "declared")) ||
      (m && xp_run_meta(run, "gemm.model_source", m->source, "declared")) ||
      /* the spec names the file, not its content: an edit changes the shapes under one spec hash */
      (m && m->sha256[0] && xp_run_meta(run, "gemm.model_sha256", m->sha256, "declared")) ||
      /* what an engine runs the model at, for decode_gap_analysis.sql's advice to a run of another dtype */
      (m && m->ck_dtype && xp_run_meta(run, "gemm.checkpoint_dtype", m->ck_dtype, "declared")) ||
      (m && xp_run_meta(run, "gemm.mla", g->par.mla_absorbed ? "absorbed" : "naive", "declared")) ||
      (m && xp_model_fp4_experts(m) &&
       xp_run_meta(run, "gemm.mxfp4_backend", xp_mxfp4_backends[g->par.mxfp4_backend], "declared")))
    return XP_EXIT_DB;
  return 0;
}

int xp_gemm_record_setup(xp_run *run, const xp_spec *spec) {
  gemm_setup g;
  memset(&g, 0, sizeof g);
  int rc = setup_build(spec, &g);
  if (rc == 0) rc = record_setup(run, spec->root, &g);
  setup_free(&g);
  return rc;
}

/* ---- plan (--dry-run): what would run, with bytes and flops per decode step ---- */

/* Bytes one launch moves: xp_gemm_bytes' weight, activations and output, and with block
** scales their scales too (a 7168 x 2048 weight's are 3.5 KiB; a token's 64 B). An FP4 GEMM
** (never measured: the plan's sums only) as Hopper's engines run one, W4A16: MXFP4 weights
** (half a byte and a 1-byte scale per 32), bf16 activations and output. */
static double gemm_bytes(const xp_gemm_shape *s) {
  const double bmm = (double)s->bmm, w = (double)s->n * (double)s->k;
  switch (shape_dt(s)) {
    case DT_FP4: return bmm * (w * (0.5 + 1.0 / 32) + 2.0 * (double)s->m * (double)(s->k + s->n));
    case DT_BLOCK: return xp_gemm_bytes(s, 1) + bmm * xp_block_scale_bytes(s->m, s->n, s->k);
    default: return xp_gemm_bytes(s, elem_bytes(s));
  }
}

static double weight_bytes(const xp_gemm_shape *s) {
  const double w = (double)s->bmm * (double)s->n * (double)s->k;
  return shape_dt(s) == DT_FP4 ? w * (0.5 + 1.0 / 32) : w * elem_bytes(s);
}

static const char *dtype_desc(const gemm_setup *g) {
  return g->checkpoint ? "checkpoint (each GEMM at its checkpoint's: the last column)"
         : strcmp(g->dtype, "fp8_block") == 0 ? "fp8_block (e4m3, 128x128 weight and 1x128 activation scales)"
         : strcmp(g->dtype, "fp8") == 0 ? "fp8 (e4m3)" : "bf16";
}

static int gemm_plan(const xp_spec *spec, FILE *out) {
  gemm_setup g;
  int rc = setup_build(spec, &g);
  if (rc) {
    setup_free(&g);
    return rc;
  }
  if (g.model)
    fprintf(out, "%s (%s), tp=%d ep=%d%s\nmodel file %s, sha256 %s\n", g.model->name, g.model->source,
            g.par.tp, g.par.ep, g.model->kv_lora <= 0 ? "" : g.par.mla_absorbed ? ", MLA absorbed" : ", MLA naive",
            g.model->path, g.model->sha256);
  if (g.model && xp_model_fp4_experts(g.model))
    fprintf(out, "experts in MXFP4, padded as vLLM's %s MoE backend allocates them (mxfp4_backend)\n",
            xp_mxfp4_backends[g.par.mxfp4_backend]);
  fprintf(out, "dtype %s, cache %s, best of top %d cuBLASLt candidates, %d samples of %d "
          "launches per CUDA graph, ceilings %s\n", dtype_desc(&g),
          g.cold && g.hot ? "cold and hot" : g.cold ? "cold" : "hot", g.top_n, g.samples,
          g.launches, g.measure_ceilings ? "measured first" : "from the latest ceilings run");
  fprintf(out, "%-22s %6s %6s %7s %7s %4s %6s %10s %10s %10s%s\n", "gemm", "batch", "m", "n", "k",
          "bmm", "count", "weight_MB", "MB/step", "GFLOP/step", g.checkpoint ? " dtype" : "");
  double step_bytes = 0, step_flops = 0;
  for (size_t i = 0; i < g.nshapes; i++) {
    const xp_gemm_shape *s = &g.shapes[i];
    double b = gemm_bytes(s), f = xp_gemm_flops(s);
    fprintf(out, "%-22s %6lld %6lld %7lld %7lld %4lld %6lld %10.2f %10.2f %10.3f%s%s\n", s->name,
            (long long)s->batch, (long long)s->m, (long long)s->n, (long long)s->k,
            (long long)s->bmm, (long long)s->count, weight_bytes(s) / 1e6,
            b * s->count / 1e6, f * s->count / 1e9, g.checkpoint ? " " : "",
            g.checkpoint ? s->dtype : "");
    step_bytes += b * s->count, step_flops += f * s->count;
    if (i + 1 == g.nshapes || g.shapes[i + 1].batch != s->batch) {
      fprintf(out, "%-22s %6lld %6s %7s %7s %4s %6s %10s %10.2f %10.3f\n", "= per decode step",
              (long long)s->batch, "", "", "", "", "", "", step_bytes / 1e6, step_flops / 1e9);
      step_bytes = step_flops = 0;
    }
  }
  setup_free(&g);
  return 0;
}

#ifdef XP_HAVE_CUDA
/* ---- measuring ---- */

typedef struct timing {
  double *us;
  int n;
  int idx; /* candidate */
} timing;

typedef struct gemm_result {
  const xp_gemm_shape *shape;
  int cold;            /* cache mode */
  int failed;
  int skipped;         /* no block-scaled algorithm here: recorded skipped, note says why */
  char note[1024];     /* failed, skipped: why; ok: which candidates cuBLASLt refused before the default */
  int ncand, nwrong, nrefused, nbuf, per_graph;
  size_t flush_bytes;  /* cold: the scratch write before each round of nbuf launches */
  double flush_us;     /* its time a launch, taken out of def and best */
  char algo_default[256], algo_best[256];
  char refused[240];   /* the refused candidates (xp_gemm_refused_list) */
  timing def, best;
  double max_err_rel;  /* worst |D - ref| / rms(ref) of the default; NAN when none ran */
  int64_t m_run;       /* rows the plan ran: more than the shape's M where fp8_block pads (lt.h) */
} gemm_result;

/* GPU state shared by every shape of a run. */
typedef struct bench {
  gemm_setup *g;
  cudaStream_t s;
  cublasLtHandle_t h;
  char *pool;      /* rotating weights */
  size_t pool_bytes, cold_total;
  void *A, *D, *ws;
  float *ref;
  float scales[2]; /* fp8 dequantisation scales of A and W (host: see harness/lt.c) */
  /* fp8_block: the weights' block scales rotate with them, each weight buffer its own array
  ** (at the same index of this pool); the activations' scales stay put like A */
  char *spool;
  size_t spool_bytes;
  float *ascale;
} bench;

struct launch {
  xp_lt *p;
  const void *A;
  const char *W;
  size_t wstride;
  int nbuf;
  void *D;
  const float *sa;
  const char *sw; /* per-tensor: W's scale; block: buffer 0's scale array */
  size_t sstride; /* block: bytes from one buffer's scale array to the next; else 0 */
  void *ws;
  size_t flush_bytes; /* cold, small weights: written before each round (gemm_cold.h), in the
                      ** pool past the nbuf copies; 0: none */
  double flush_us;    /* that write's time alone, per write */
};

/* The scratch write that evicts L2 before a round of the rotation. */
static int flush_l2(const struct launch *l, cudaStream_t s) {
  int rc = XP_EXIT_FAILED;
  XP_CUDA(cudaMemsetAsync((char *)l->W + (size_t)l->nbuf * l->wstride, 0, l->flush_bytes, s));
  rc = 0;
fail:
  return rc;
}

static int enqueue(void *arg, cudaStream_t s, int rep) {
  struct launch *l = arg;
  const size_t i = (size_t)(rep % l->nbuf);
  int rc = i == 0 && l->flush_bytes ? flush_l2(l, s) : 0;
  return rc ? rc : xp_lt_run(l->p, l->A, l->W + i * l->wstride, l->D, l->sa,
                             (const float *)(l->sw + i * l->sstride), l->ws, s);
}

static int enqueue_flush(void *arg, cudaStream_t s, int rep) {
  (void)rep;
  return flush_l2(arg, s);
}

static size_t align256(size_t x) { return (x + 255) & ~(size_t)255; }

static size_t weight_stride(const xp_gemm_shape *s, int eb) {
  return align256((size_t)(s->bmm * s->n * s->k) * (size_t)eb);
}

/* Bytes of one weight buffer's block scales, 256-aligned like the weights. */
static size_t scale_stride(const xp_gemm_shape *s) {
  return align256((size_t)xp_block_layout_of(s->m, s->n, s->k).w_count * sizeof(float));
}

static xp_gemm_cold cold_plan(const bench *b, size_t stride) {
  return xp_gemm_cold_plan(b->cold_total, stride);
}

static double median_of(const double *v, int n) {
  xp_stats st;
  xp_stats_compute(v, (size_t)n, &st);
  return st.median;
}

/* A failed launch: cuBLASLt's refusal, or the run's error (gemm_pick.h). */
int xp_gemm_settle(xp_lt *p, xp_gemm_cand *c, int rc) {
  if (rc == XP_EXIT_ABORTED) return rc;
  const cublasStatus_t st = xp_lt_last_status(p);
  const cudaError_t lost = xp_gpu_sticky_error();
  c->outcome = xp_gemm_failure(st != CUBLAS_STATUS_SUCCESS, lost != cudaSuccess);
  if (c->outcome == XP_GEMM_REFUSED) {
    c->status = cublasLtGetStatusName(st);
    xp_clear_error();
    return 0;
  }
  /* said now, as the quiet launch did not (xp_error takes its own last text as an argument) */
  if (lost) return xp_error(rc, "%s; the CUDA context is lost: %s", xp_last_error(), cudaGetErrorName(lost));
  return xp_error(rc, "%s", xp_last_error());
}

/* Times candidate idx; one cuBLASLt refuses under capture comes back marked refused, t unset. */
static int time_candidate(bench *b, struct launch *l, xp_gemm_cand *cand, int idx, int samples,
                          timing *t) {
  int rc = xp_lt_select(l->p, idx);
  if (rc) return rc;
  int per_graph = ((b->g->launches + l->nbuf - 1) / l->nbuf) * l->nbuf;
  free(t->us);
  t->us = xp_xcalloc((size_t)samples, sizeof *t->us);
  t->n = samples;
  t->idx = idx;
  xp_error_quiet(1);
  rc = xp_time_graph(b->s, enqueue, l, per_graph, b->g->warmup, samples, t->us);
  xp_error_quiet(0);
  if (rc) return xp_gemm_settle(l->p, &cand[idx], rc);
  for (int i = 0; i < samples; i++) t->us[i] -= l->flush_us / l->nbuf; /* one write a round */
  return 0;
}

/* The scratch write's time alone (the median of samples graphs of 8), into l->flush_us: the
** part of a cold graph's time that is no matmul's. */
static int time_flush(bench *b, struct launch *l) {
  l->flush_us = 0;
  if (!l->flush_bytes) return 0;
  double *us = xp_xcalloc((size_t)b->g->samples, sizeof *us);
  int rc = xp_time_graph(b->s, enqueue_flush, l, 8, b->g->warmup, b->g->samples, us);
  if (rc == 0) l->flush_us = median_of(us, b->g->samples);
  free(us);
  return rc;
}

/* The default (the first candidate cuBLASLt runs), a screening of the other right ones, a
** re-timing of the fastest. A candidate refused only now, under capture, is left out like one
** refused at the check; the default refused so hands its role to the next. *def gets the
** default, or XP_GEMM_CASE_FAILS with res->note saying why. */
static int time_mode(bench *b, struct launch *l, xp_gemm_cand *cand, gemm_result *res, int *def) {
  int rc, ncand = xp_lt_algo_count(l->p), screen = b->g->samples / 4;
  if (screen < 3) screen = 3;
  do {
    *def = xp_gemm_default(cand, ncand, res->note, sizeof res->note);
    if (*def == XP_GEMM_CASE_FAILS) return 0;
    if (*def < 0) return xp_error(XP_EXIT_FAILED, "gemm: a candidate's failure ends the run");
    if ((rc = time_candidate(b, l, cand, *def, b->g->samples, &res->def))) return rc;
  } while (cand[*def].outcome == XP_GEMM_REFUSED);
  double best_us = median_of(res->def.us, res->def.n);
  int best = *def;
  timing probe = {0};
  for (int i = 0; i < ncand; i++) {
    if (!xp_gemm_may_screen(cand, *def, i)) continue;
    if ((rc = time_candidate(b, l, cand, i, screen, &probe))) break;
    if (cand[i].outcome == XP_GEMM_REFUSED) continue;
    double us = median_of(probe.us, probe.n);
    if (us < best_us) best_us = us, best = i;
  }
  free(probe.us);
  if (rc) return rc;
  if (best != *def) {
    if ((rc = time_candidate(b, l, cand, best, b->g->samples, &res->best))) return rc;
    if (cand[best].outcome == XP_GEMM_REFUSED ||
        median_of(res->best.us, res->best.n) >= median_of(res->def.us, res->def.n))
      best = *def;
  }
  if (best == *def) {
    free(res->best.us);
    res->best.n = res->def.n;
    res->best.idx = *def;
    res->best.us = xp_xmalloc(sizeof *res->best.us * (size_t)res->def.n);
    memcpy(res->best.us, res->def.us, sizeof *res->best.us * (size_t)res->def.n);
  }
  snprintf(res->algo_default, sizeof res->algo_default, "%s", xp_lt_algo_desc(l->p, *def));
  snprintf(res->algo_best, sizeof res->algo_best, "%s", xp_lt_algo_desc(l->p, best));
  return 0;
}

/* Every candidate against the reference: right, wrong, or refused by cuBLASLt at launch. */
static int check_candidates(bench *b, struct launch *l, const xp_gemm_shape *s, xp_gemm_cand *cand) {
  int rc = XP_EXIT_FAILED;
  size_t count = (size_t)(s->bmm * s->m * s->n);
  const enum gemm_dt dt = shape_dt(s);
  float scale = dt == DT_FP8 ? 0.5f * 4.0f : 1.0f; /* the device scales (bench_open) */
  if (dt == DT_BLOCK)
    XP_CUDA(xp_ref_gemm_block(l->A, l->W, l->sa, (const float *)l->sw, b->ref, (int)s->m,
                              (int)s->n, (int)s->k, xp_lt_out_transposed(l->p), b->s));
  else
    XP_CUDA(xp_ref_gemm(l->A, l->W, b->ref, (int)s->m, (int)s->n, (int)s->k, (int)s->bmm,
                        dt == DT_FP8 ? XP_KDT_FP8_E4M3 : XP_KDT_BF16, scale, b->s));
  for (int i = 0; i < xp_lt_algo_count(l->p); i++) {
    xp_gemm_check chk;
    xp_gemm_cand *c = &cand[i];
    c->algo = xp_lt_algo_id(l->p, i);
    c->desc = xp_lt_algo_desc(l->p, i);
    /* NaN (bf16 0xffff) in D first: a candidate that writes part of it, or none, must not pass
    ** on the previous candidate's right answer */
    XP_CUDA(cudaMemsetAsync(l->D, 0xff, count * 2, b->s));
    if ((rc = xp_lt_select(l->p, i))) return rc;
    xp_error_quiet(1);
    rc = xp_lt_run(l->p, l->A, l->W, l->D, l->sa, (const float *)l->sw, l->ws, b->s);
    xp_error_quiet(0);
    if (rc) {
      if ((rc = xp_gemm_settle(l->p, c, rc))) return rc;
      continue;
    }
    rc = XP_EXIT_FAILED;
    XP_CUDA(xp_check_gemm(l->D, b->ref, count, XP_GEMM_CHECK_RTOL, XP_GEMM_CHECK_ATOL_RMS, &chk, b->s));
    c->outcome = chk.bad == 0 ? XP_GEMM_RIGHT : XP_GEMM_WRONG;
    c->bad = chk.bad, c->count = chk.count;
    c->err_rms = chk.ref_rms > 0 ? chk.max_abs_err / chk.ref_rms : chk.max_abs_err;
  }
  rc = 0;
fail:
  return rc;
}

/* What the candidates did, as a case records it (after its mode: a refusal under capture
** counts from then on). */
static void tally(const xp_gemm_cand *cand, int n, gemm_result *r) {
  int d = xp_gemm_first_run(cand, n);
  r->ncand = n;
  r->nwrong = xp_gemm_count(cand, n, XP_GEMM_WRONG);
  r->nrefused = xp_gemm_count(cand, n, XP_GEMM_REFUSED);
  r->max_err_rel = d < 0 ? NAN : cand[d].err_rms;
  xp_gemm_refused_list(cand, n, r->refused, sizeof r->refused);
}

/* Both asked-for cache modes of a shape end before timing: failed, or skipped, with why. */
static void end_shape(const bench *b, gemm_result *res, int skipped, const char *why) {
  for (int c = 0; c < 2; c++) {
    if ((c == 0 && !b->g->cold) || (c == 1 && !b->g->hot)) continue;
    res[c].failed = !skipped;
    res[c].skipped = skipped;
    snprintf(res[c].note, sizeof res[c].note, "%s", why);
  }
}

/* The shape's operands, fresh in its dtype: its weight buffers (as many as cold rotates) and
** its activations. A run's GEMMs may differ in dtype (dtype = "checkpoint"). */
static int fill_shape(bench *b, const xp_gemm_shape *s, size_t stride) {
  int rc = XP_EXIT_FAILED;
  const int eb = elem_bytes(s), kdt = eb == 1 ? XP_KDT_FP8_E4M3 : XP_KDT_BF16;
  const size_t wbytes = stride * (size_t)(b->g->cold ? cold_plan(b, stride).nbuf : 1);
  XP_CUDA(xp_fill_uniform(b->pool, wbytes / (size_t)eb, kdt, 1, b->s));
  XP_CUDA(xp_fill_uniform(b->A, (size_t)(s->bmm * s->m * s->k), kdt, 2, b->s));
  rc = 0;
fail:
  return rc;
}

/* A case run padded says so in its note, after what the note already says. */
static void pad_note(gemm_result *r, int64_t m, int64_t m_run) {
  size_t len = strlen(r->note);
  snprintf(r->note + len, sizeof r->note - len, "%sran as %lld rows, %lld of them padding: "
           "cuBLASLt has no right block-scaled plan at M=%lld (params.m_run)", len ? "; " : "",
           (long long)m_run, (long long)(m_run - m), (long long)m);
}

static int measure_shape(bench *b, const xp_gemm_shape *s, gemm_result *res /* [2] */) {
  int rc;
  xp_lt *p = NULL;
  size_t stride = weight_stride(s, elem_bytes(s));
  const enum gemm_dt sdt = shape_dt(s);
  const int block = sdt == DT_BLOCK;
  enum xp_lt_dtype dt = block ? XP_LT_FP8_BLOCK : sdt == DT_FP8 ? XP_LT_FP8_E4M3 : XP_LT_BF16;
  for (int c = 0; c < 2; c++) res[c].shape = s, res[c].cold = c == 0;
  if (sdt == DT_FP4) {
    end_shape(b, res, 1, "the checkpoint holds this GEMM in FP4, which xp does not measure "
              "(cuBLASLt runs FP4 on Blackwell only; Hopper's engines run it as W4A16 kernels)");
    return 0;
  }
  if (block && s->bmm > 1) {
    /* absorbed MLA's per-head products: cuBLASLt takes block scales one matrix a launch */
    end_shape(b, res, 1, "fp8_block runs one matrix a launch, and this GEMM is a batch of "
              "matrices (bmm > 1): cuBLASLt has no batched block-scaled fp8 matmul");
    return 0;
  }
  xp_error_quiet(block); /* a skip is said once, in the case and the run's warning */
  rc = xp_lt_create_batched(b->h, (int)s->m, (int)s->n, (int)s->k, (int)s->bmm, dt,
                            XP_LT_WORKSPACE_BYTES, b->g->top_n, &p);
  xp_error_quiet(0);
  if (rc == XP_EXIT_ENV && block) {
    /* the GPU or its cuBLASLt has no block-scaled fp8 (lt.h): skipped, not wrong; why said */
    end_shape(b, res, 1, xp_last_error());
    xp_clear_error();
    return 0;
  }
  if (rc && block) xp_error(rc, "%s", xp_last_error()); /* said now, as it was not above */
  if (rc == XP_EXIT_FAILED) {
    /* cuBLASLt made no plan for this shape (its status in the note): the case fails, the run
    ** goes on */
    end_shape(b, res, 0, xp_last_error());
    xp_clear_error();
    return 0;
  }
  if (rc) return rc;
  /* the rows the plan runs: an fp8_block M cuBLASLt has no plan for runs padded (lt.h), its
  ** padding tokens filled, scaled and checked like the others */
  xp_gemm_shape run = *s;
  run.m = xp_lt_m(p);
  if ((rc = fill_shape(b, &run, stride))) {
    xp_lt_destroy(p);
    return rc;
  }
  const int n = xp_lt_algo_count(p);
  xp_gemm_cand *cand = xp_xcalloc((size_t)n, sizeof *cand);
  struct launch l = {p, b->A, b->pool, stride, 1, b->D, b->scales, (const char *)(b->scales + 1), 0, b->ws, 0, 0};
  if (block) l.sa = b->ascale, l.sw = b->spool, l.sstride = scale_stride(s);
  if ((rc = check_candidates(b, &l, &run, cand))) goto done;
  for (int c = 0; c < 2 && rc == 0; c++) {
    gemm_result *r = &res[c];
    int def = 0;
    if ((c == 0 && !b->g->cold) || (c == 1 && !b->g->hot)) continue; /* not asked for: never recorded */
    const xp_gemm_cold cold = cold_plan(b, stride);
    l.nbuf = c == 0 ? cold.nbuf : 1;
    l.flush_bytes = c == 0 ? cold.flush_bytes : 0;
    r->nbuf = l.nbuf;
    r->per_graph = ((b->g->launches + l.nbuf - 1) / l.nbuf) * l.nbuf;
    if ((rc = time_flush(b, &l)) != 0) break;
    r->flush_bytes = l.flush_bytes;
    r->flush_us = l.flush_us / l.nbuf;
    rc = time_mode(b, &l, cand, r, &def);
    r->failed = rc == 0 && def < 0;
    r->m_run = run.m;
    tally(cand, n, r);
    if (run.m > s->m) pad_note(r, s->m, run.m);
  }
done:
  free(cand);
  xp_lt_destroy(p);
  return rc;
}

/* One pool for the rotating weights of every shape, sized for the largest rotation (and one
** for their block scales, rotating with them). */
static int bench_open(bench *b, gemm_setup *g) {
  int rc = XP_EXIT_FAILED;
  memset(b, 0, sizeof *b);
  b->g = g;
  int64_t l2 = xp_gpu_l2_bytes(g->device);
  b->cold_total = (size_t)g->cold_mib << 20;
  if (b->cold_total < (size_t)(4 * l2)) b->cold_total = (size_t)(4 * l2);
  size_t amax = 0, dmax = 0, asmax = 0;
  for (size_t i = 0; i < g->nshapes; i++) {
    const xp_gemm_shape *s = &g->shapes[i];
    const int eb = elem_bytes(s);
    size_t stride = weight_stride(s, eb);
    const xp_gemm_cold cold = cold_plan(b, stride);
    size_t nbuf = g->cold ? (size_t)cold.nbuf : 1;
    size_t need = stride * nbuf + (g->cold ? cold.flush_bytes : 0); /* the scratch after the copies */
    if (need > b->pool_bytes) b->pool_bytes = need;
    /* fp8_block may run up to 8-rounded rows (lt.h): A, D and the scales sized for them */
    const int64_t rows = shape_dt(s) == DT_BLOCK ? (s->m + 7) / 8 * 8 : s->m;
    if (shape_dt(s) == DT_BLOCK) {
      const size_t sneed = scale_stride(s) * nbuf;
      const size_t as = (size_t)xp_block_layout_of(rows, s->n, s->k).a_count * sizeof(float);
      if (sneed > b->spool_bytes) b->spool_bytes = sneed;
      if (as > asmax) asmax = as;
    }
    size_t a = (size_t)(s->bmm * rows * s->k) * (size_t)eb, d = (size_t)(s->bmm * rows * s->n);
    if (a > amax) amax = a;
    if (d > dmax) dmax = d;
  }
  size_t free_b = 0, total_b = 0;
  XP_CUDA(cudaMemGetInfo(&free_b, &total_b));
  size_t want = b->pool_bytes + align256(amax) + dmax * 6 + XP_LT_WORKSPACE_BYTES +
                b->spool_bytes + asmax;
  if (want + ((size_t)256 << 20) > free_b) {
    rc = xp_error(XP_EXIT_ENV, "the GEMMs need %.2f GB of device memory and %.2f GB are free "
                  "on device %d (lower cold_mib or drop the largest shapes)", want / 1e9,
                  free_b / 1e9, g->device);
    goto fail;
  }
  const float scales[2] = {0.5f, 4.0f}; /* fp8 dequantisation scales of A and W */
  XP_CUDA(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
  XP_CUBLAS(cublasLtCreate(&b->h));
  XP_CUDA(cudaMalloc((void **)&b->pool, b->pool_bytes));
  XP_CUDA(cudaMalloc(&b->A, align256(amax)));
  XP_CUDA(cudaMalloc(&b->D, dmax * 2));
  XP_CUDA(cudaMalloc((void **)&b->ref, dmax * 4));
  XP_CUDA(cudaMalloc(&b->ws, XP_LT_WORKSPACE_BYTES));
  memcpy(b->scales, scales, sizeof scales);
  /* the weights and activations are filled per shape, in its dtype (fill_shape) */
  if (b->spool_bytes) {
    /* random scales, padding included (block_scales.h says why) */
    XP_CUDA(cudaMalloc((void **)&b->spool, b->spool_bytes));
    XP_CUDA(cudaMalloc((void **)&b->ascale, asmax));
    XP_CUDA(xp_fill_scales((float *)b->spool, b->spool_bytes / sizeof(float), 3, b->s));
    XP_CUDA(xp_fill_scales(b->ascale, asmax / sizeof(float), 4, b->s));
  }
  XP_CUDA(cudaStreamSynchronize(b->s));
  rc = 0;
fail:
  return rc;
}

static void bench_close(bench *b) {
  if (b->h) cublasLtDestroy(b->h);
  if (b->s) cudaStreamDestroy(b->s);
  cudaFree(b->pool), cudaFree(b->A), cudaFree(b->D), cudaFree(b->ref), cudaFree(b->ws);
  cudaFree(b->spool), cudaFree(b->ascale);
}

/* ---- ceilings ---- */

static int get_ceilings(xp_ctx *ctx, gemm_setup *g, const xp_gpu_info *gpu, xp_ceilings *c,
                        xp_ceilings_meas *meas) {
  char driver[64];
  xp_ceilings_driver(driver, sizeof driver);
  memset(meas, 0, sizeof *meas);
  if (g->measure_ceilings) {
    xp_ceilings_opts o;
    xp_ceilings_opts_default(&o);
    o.device = g->device;
    o.bf16 = g->need_bf16;
    o.fp8 = g->need_fp8;
    int rc = xp_ceilings_measure(&o, meas);
    if (rc) return rc;
    xp_ceilings_summarize(meas, c);
    for (int i = 0; i < meas->nr; i++) /* a peak cuBLASLt ran no plan for (ceilings.c) */
      if (meas->r[i].failed)
        return xp_error(XP_EXIT_ENV, "the %s peak could not be measured: %s", meas->r[i].name, meas->r[i].note);
    return 0;
  }
  /* of the runs that measured the peaks this run needs: the latest, of matmul_dtypes = [],
  ** had been taken, and the run refused for "no bf16 matmul peak" where an earlier one had it */
  int rc = xp_ceilings_lookup_peaks(ctx->db, gpu->uuid, gpu->name, driver, g->need_bf16, g->need_fp8, c);
  const char *peaks = g->need_bf16 && g->need_fp8 ? " with bf16 and fp8 matmul peaks"
                      : g->need_bf16 ? " with a bf16 matmul peak" : g->need_fp8 ? " with an fp8 matmul peak" : "";
  if (rc == 1)
    return xp_error(XP_EXIT_ENV, "no ceilings run%s for %s (%s) under driver %s: run xp run "
                    "experiments/ceilings.toml first (same --db), or set ceilings = \"measure\"",
                    peaks, gpu->name, gpu->uuid, driver);
  if (rc) return rc;
  for (int fp8 = 0; fp8 < 2; fp8++) {
    const char *dt = fp8 ? "fp8" : "bf16";
    if ((fp8 ? g->need_fp8 : g->need_bf16) && (fp8 ? c->fp8_tflops : c->bf16_tflops) <= 0)
      return xp_error(XP_EXIT_ENV, "the ceilings run %s has no %s matmul peak: run xp run "
                      "experiments/ceilings.toml again with %s in matmul_dtypes", c->run_uuid,
                      dt, dt);
  }
  return 0;
}

/* ---- recording ---- */

typedef struct derived {
  double us, gbps, tflops, bw_share, compute_share;
  const char *bound;
} derived;

static void derive(const xp_ceilings *c, const xp_gemm_shape *s, const timing *t, derived *d) {
  d->us = median_of(t->us, t->n);
  d->gbps = gemm_bytes(s) / (d->us * 1e3);
  d->tflops = xp_gemm_flops(s) / (d->us * 1e6);
  const enum gemm_dt dt = shape_dt(s);
  double peak = dt == DT_FP8 || dt == DT_BLOCK ? c->fp8_tflops : c->bf16_tflops;
  d->bw_share = c->copy_gbps > 0 ? d->gbps / c->copy_gbps : 0;
  d->compute_share = peak > 0 ? d->tflops / peak : 0;
  d->bound = xp_gemm_bound(d->bw_share, d->compute_share);
}

static cJSON *case_params(const gemm_result *r) {
  const xp_gemm_shape *s = r->shape;
  cJSON *p = cJSON_CreateObject();
  cJSON_AddNumberToObject(p, "batch", (double)s->batch);
  cJSON_AddNumberToObject(p, "m", (double)s->m);
  cJSON_AddNumberToObject(p, "n", (double)s->n);
  cJSON_AddNumberToObject(p, "k", (double)s->k);
  cJSON_AddNumberToObject(p, "bmm", (double)s->bmm);
  cJSON_AddNumberToObject(p, "count", (double)s->count);
  cJSON_AddStringToObject(p, "dtype", s->dtype);
  cJSON_AddStringToObject(p, "cache", r->cold ? "cold" : "hot");
  cJSON_AddNumberToObject(p, "bytes", gemm_bytes(s));
  cJSON_AddNumberToObject(p, "flops", xp_gemm_flops(s));
  cJSON_AddNumberToObject(p, "candidates", r->ncand);
  cJSON_AddNumberToObject(p, "candidates_wrong", r->nwrong);
  cJSON_AddNumberToObject(p, "candidates_refused", r->nrefused);
  if (r->refused[0]) cJSON_AddStringToObject(p, "refused", r->refused);
  if (!isnan(r->max_err_rel)) cJSON_AddNumberToObject(p, "check_max_err_rms", r->max_err_rel);
  return p;
}

static int record_result(xp_run *run, const xp_ceilings *c, const gemm_result *r, derived *dd,
                         derived *db) {
  cJSON *p = case_params(r);
  int64_t id;
  if (r->failed || r->skipped) {
    id = xp_run_case(run, r->shape->name, p, r->failed ? "failed" : "skipped", r->note);
    cJSON_Delete(p);
    return id < 0 ? XP_EXIT_DB : 0;
  }
  derive(c, r->shape, &r->def, dd);
  derive(c, r->shape, &r->best, db);
  cJSON_AddNumberToObject(p, "cold_buffers", r->nbuf);
  if (r->flush_bytes) {
    cJSON_AddNumberToObject(p, "cold_flush_bytes", (double)r->flush_bytes);
    cJSON_AddNumberToObject(p, "cold_flush_us", r->flush_us);
  }
  cJSON_AddNumberToObject(p, "launches", r->per_graph);
  cJSON_AddStringToObject(p, "algo_default", r->algo_default);
  cJSON_AddStringToObject(p, "algo_best", r->algo_best);
  cJSON_AddNumberToObject(p, "default_index", r->def.idx);
  cJSON_AddNumberToObject(p, "best_index", r->best.idx);
  cJSON_AddStringToObject(p, "bound", dd->bound);
  cJSON_AddStringToObject(p, "bound_best", db->bound);
  if (r->m_run > r->shape->m) cJSON_AddNumberToObject(p, "m_run", (double)r->m_run);
  id = xp_run_case(run, r->shape->name, p, "ok", r->note[0] ? r->note : NULL);
  cJSON_Delete(p);
  if (id < 0) return XP_EXIT_DB;
  struct { const char *name, *unit; double v; } vals[] = {
      {"gbps", "GB/s", dd->gbps}, {"tflops", "TFLOP/s", dd->tflops},
      {"bw_share", "ratio", dd->bw_share}, {"compute_share", "ratio", dd->compute_share},
      {"gbps_best", "GB/s", db->gbps}, {"tflops_best", "TFLOP/s", db->tflops},
      {"bw_share_best", "ratio", db->bw_share}, {"compute_share_best", "ratio", db->compute_share},
      {"best_speedup", "ratio", dd->us / db->us}};
  if (xp_run_metric(run, id, "time_us", "us", r->def.us, (size_t)r->def.n) ||
      xp_run_metric(run, id, "time_best_us", "us", r->best.us, (size_t)r->best.n))
    return XP_EXIT_DB;
  for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
    if (xp_run_value(run, id, vals[i].name, vals[i].unit, vals[i].v)) return XP_EXIT_DB;
  return 0;
}

static int record_all(xp_ctx *ctx, const gemm_setup *g, const xp_gpu_info *gpu,
                      const xp_ceilings *c, const xp_ceilings_meas *meas, gemm_result *res,
                      size_t nres) {
  xp_run *run = ctx->run;
  FILE *out = ctx->quiet ? NULL : ctx->out;
  int rc = XP_EXIT_DB;
  if (record_setup(run, ctx->spec->root, g)) return rc;
  if (xp_run_meta(run, "gemm.gpu_uuid", gpu->uuid, "detected") ||
      xp_run_meta(run, "gemm.ceilings_run", c->run_uuid[0] ? c->run_uuid : "measured inline",
                  "detected") ||
      (c->match[0] && xp_run_meta(run, "gemm.ceilings_match", c->match, "detected")) ||
      (meas->nr && xp_ceilings_record(run, meas, "ceilings.")))
    return rc;
  char ceil[160];
  int len = snprintf(ceil, sizeof ceil, "%.0f GB/s copy", c->copy_gbps);
  if (g->need_bf16) len += snprintf(ceil + len, sizeof ceil - (size_t)len, ", %.0f TFLOP/s bf16", c->bf16_tflops);
  if (g->need_fp8) snprintf(ceil + len, sizeof ceil - (size_t)len, ", %.0f TFLOP/s fp8", c->fp8_tflops);
  if (xp_run_meta(run, "gemm.ceilings", ceil, "detected")) return rc;
  if (out)
    fprintf(out, "%s on %s; ceilings %s (%s)\n%-22s %5s %5s %6s %6s %4s %10s %9s %8s %6s "
            "%8s %-7s\n", g->dtype, gpu->name, ceil,
            c->run_uuid[0] ? c->run_uuid : "measured inline", "gemm", "batch", "m", "n", "k",
            "cache", "default_us", "best_us", "GB/s", "%copy", "TFLOP/s", "bound");
  int failed = 0, refused = 0, skipped = 0;
  for (size_t i = 0; i < nres; i++) {
    gemm_result *r = &res[i];
    if (!r->def.us && !r->failed && !r->skipped) continue; /* cache mode not asked for */
    derived dd, db;
    if ((rc = record_result(run, c, r, &dd, &db))) return rc;
    refused += r->nrefused > 0;
    if (r->failed || r->skipped) {
      failed += r->failed, skipped += r->skipped;
      if (out) fprintf(out, "%-22s %5lld %5lld %6lld %6lld %4s %s: %s\n", r->shape->name,
                       (long long)r->shape->batch, (long long)r->shape->m,
                       (long long)r->shape->n, (long long)r->shape->k, r->cold ? "cold" : "hot",
                       r->failed ? "FAILED" : "SKIPPED", r->note);
      continue;
    }
    if (out)
      fprintf(out, "%-22s %5lld %5lld %6lld %6lld %4s %10.2f %9.2f %8.0f %5.0f%% %8.1f %-7s\n",
              r->shape->name, (long long)r->shape->batch, (long long)r->shape->m,
              (long long)r->shape->n, (long long)r->shape->k, r->cold ? "cold" : "hot", dd.us,
              db.us, db.gbps, 100 * db.bw_share, db.tflops, db.bound);
  }
  if (refused) xp_warn("cuBLASLt refused candidates in %d GEMM case%s; they were left out of "
                       "the timing (params.refused names them)", refused, refused == 1 ? "" : "s");
  if (failed) xp_warn("%d GEMM case%s failed the reference check or had no algorithm cuBLASLt "
                      "would run; recorded as failed", failed, failed == 1 ? "" : "s");
  if (skipped) xp_warn("%d GEMM case%s at a dtype this GPU's cuBLASLt or xp does not run; "
                       "recorded as skipped (the case's note says why)", skipped, skipped == 1 ? "" : "s");
  return 0;
}

static void results_free(gemm_result *res, size_t n) {
  for (size_t i = 0; i < n; i++) free(res[i].def.us), free(res[i].best.us);
  free(res);
}

static int gemm_execute(xp_ctx *ctx) {
  gemm_setup g;
  bench b;
  int rc = setup_build(ctx->spec, &g);
  if (rc) {
    setup_free(&g);
    return rc;
  }
  memset(&b, 0, sizeof b);
  gemm_result *res = xp_xcalloc(g.nshapes * 2, sizeof *res);
  xp_ceilings c;
  xp_ceilings_meas meas = {0};
  xp_gpu_info gpu;
  if ((rc = xp_spec_check_device(ctx->spec, "device", g.device, xp_gpu_count())) != 0) goto done;
  rc = XP_EXIT_FAILED;
  XP_CUDA(cudaSetDevice(g.device));
  if ((rc = xp_gpu_describe(g.device, &gpu))) goto done;
  int major = 0, minor = 0;
  sscanf(gpu.cc, "%d.%d", &major, &minor);
  if (g.need_fp8 && major * 10 + minor < 89) {
    rc = xp_error(XP_EXIT_ENV, "dtype %s runs fp8 (e4m3) GEMMs, which needs compute capability "
                  "8.9 or newer (Ada, Hopper, Blackwell); device %d (%s) is %s", g.dtype, g.device,
                  gpu.name, gpu.cc);
    goto done;
  }
  if ((rc = get_ceilings(ctx, &g, &gpu, &c, &meas))) goto done;
  if ((rc = bench_open(&b, &g))) goto done;
  size_t measured = 0;
  for (; measured < g.nshapes; measured++) {
    if (xp_interrupted()) {
      rc = XP_EXIT_ABORTED;
      break;
    }
    if ((rc = measure_shape(&b, &g.shapes[measured], &res[2 * measured]))) break;
  }
  /* interrupted: the shapes measured whole are kept (an aborted run keeps what it measured) */
  if (rc == 0 || rc == XP_EXIT_ABORTED) {
    const int wrc = record_all(ctx, &g, &gpu, &c, &meas, res, measured * 2);
    if (wrc) rc = wrc;
  }
  goto done;
fail:
  if (rc == 0) rc = XP_EXIT_FAILED;
done:
  bench_close(&b);
  xp_ceilings_meas_free(&meas);
  results_free(res, g.nshapes * 2);
  setup_free(&g);
  return rc;
}
#endif

const xp_kind xp_kind_gemm = {
    .name = "gemm",
    .summary = "cuBLASLt GEMMs at a model's per-GPU decode shapes, default vs best-of-N, "
               "cold/hot, against measured ceilings",
    .fields = gemm_fields,
    .needs_gpu = 1,
    .check = gemm_check,
    .plan = gemm_plan,
    .execute = XP_GPU_EXECUTE(gemm_execute),
    .notes = "shapes come from a model or a list: give model (with the declared tp and ep, which\n"
             "  shard it; models/<model>.toml beside the spec, see xp help models) or shapes, not both.\n"
             "  A model's step is every layer on one GPU: pp (pipeline stages) is refused with it.\n"
             "  m: 1 to 1048560. The declared dtype picks the GEMMs: bf16 (default), fp8 (per-tensor\n"
             "  scales; K a multiple of 16, N of 8, as cuBLASLt takes them) or fp8_block (DeepSeek's: one\n"
             "  fp32 scale per 128x128 weight block and per token per 128 of K; K a multiple of 16,\n"
             "  any N; cuBLASLt runs it on Hopper only, elsewhere its cases are recorded skipped) or\n"
             "  checkpoint (each GEMM at its model file's checkpoint_dtype, checkpoint_bf16,\n"
             "  checkpoint_fp4; FP4 GEMMs are recorded skipped).\n",
};
