/*
** Run kind `kernel_variant`: a family of kernels (kernels/<family>/), the variants the spec
** picks, on the shapes, token counts and group sizes it lists. One case per (variant,
** shape, m, group size): parameters (tile sizes, split factor, registers and shared memory
** per block from cudaFuncGetAttributes, the architecture it ran on), the error against
** the float32 reference, and the time per launch. A variant that cannot run a shape is
** recorded 'skipped' with its reason; one that fails the correctness gate is recorded
** 'failed' with the error and never timed.
**
** Bandwidth is judged against the device's copy ceiling: the latest `ceilings` run of this
** GPU under this driver, or (none, or ceilings = "measure") the same copy kernel measured
** here and recorded with the run as case "ceiling.copy".
*/
#include "runners/kernel_variant.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "kind.h"
#include "models.h"
#include "runners/ceilings.h"
#include "stats.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "gpu.h"
#endif

static const xp_kv_family *const families[] = {&xp_kv_w4a16};
#define NFAMILIES ((int)(sizeof families / sizeof families[0]))

const xp_kv_family *xp_kv_family_find(const char *name) {
  for (int i = 0; i < NFAMILIES; i++)
    if (name && strcmp(families[i]->name, name) == 0) return families[i];
  return NULL;
}

const xp_kv_variant *xp_kv_variant_find(const xp_kv_family *f, const char *name) {
  for (int i = 0; f && name && i < f->nvariants; i++)
    if (strcmp(f->variants[i].name, name) == 0) return &f->variants[i];
  return NULL;
}

/* ---- rotation past L2 (kernel_variant.h) ---- */

/* Copies beyond this make graphs of thousands of launches for no colder a cache. */
#define MAX_COPIES 4096

int xp_kv_gemm_copies(int64_t rotate_bytes, double copy_bytes) {
  double n = ceil((double)rotate_bytes / copy_bytes);
  return n < 2 ? 2 : n > MAX_COPIES ? MAX_COPIES : (int)n;
}

/* The least count >= c that divides r or that r divides (then lcm(c, r) = max(c, r)). */
static int joint_up(int c, int r) {
  if (c > r) return (c + r - 1) / r * r;
  while (r % c) c++;
  return c;
}

/* The greatest count in [1, c] that divides r or that r divides. */
static int joint_down(int c, int r) {
  if (c >= r) return c / r * r;
  while (r % c) c--;
  return c;
}

int xp_kv_moe_copies(int64_t rotate_bytes, double layer_bytes, double min_launch_bytes, int routings) {
  const double rot = (double)rotate_bytes;
  int r = routings < 1 ? 1 : routings, c = 1;
  /* The copies together span the rotation, as a GEMM's do (a layer that spans it alone
  ** needs none: R random routings spread the launches' reads over it). */
  if (layer_bytes < rot) {
    double n = ceil(rot / layer_bytes);
    c = joint_up(n > MAX_COPIES ? MAX_COPIES : (int)n, r);
  }
  /* The same routing on the same copy reads the same bytes again max(R, C) launches later,
  ** whatever the routing's randomness: the launches between must read the rotation. Only
  ** copies beyond R lengthen that cycle (a multiple of R then, larger than R). */
  if ((double)((c > r ? c : r) - 1) * min_launch_bytes < rot) {
    double n = min_launch_bytes > 0 ? ceil(rot / min_launch_bytes) + 1 : MAX_COPIES;
    int need = joint_up(n > MAX_COPIES ? MAX_COPIES : (int)n, r);
    if (need > c) c = need;
  }
  return c;
}

int xp_kv_moe_fit(int copies, int routings, double copy_bytes, double avail_bytes) {
  if (copies <= 1) return 1;
  double most = copy_bytes > 0 ? floor(avail_bytes / copy_bytes) : copies;
  if (most < 2) return 1;
  return joint_down(most < copies ? (int)most : copies, routings < 1 ? 1 : routings);
}

int xp_kv_moe_launches(int copies, int routings) {
  int a = copies < 1 ? 1 : copies, b = routings < 1 ? 1 : routings, x = a, y = b;
  while (y) {
    int t = x % y;
    x = y, y = t;
  }
  return a / x * b;
}

int xp_kv_reads_plan(xp_kv_reads *r, double bytes, size_t copy_bytes, size_t copy_stride, int copies,
                     int max_places) {
  memset(r, 0, sizeof *r);
  r->bytes = bytes >= 16 ? (size_t)bytes / 16 * 16 : 0;
  if (r->bytes == 0 || r->bytes > copy_bytes || copies < 1) return -1;
  r->stride = (r->bytes + 255) / 256 * 256;
  r->copy_stride = copy_stride;
  r->copies = copies;
  size_t fit = (copy_bytes - r->bytes) / r->stride + 1;
  r->places = max_places < 1 ? 1 : (size_t)max_places < fit ? max_places : (int)fit;
  return 0;
}

size_t xp_kv_reads_offset(const xp_kv_reads *r, int rep) {
  return (size_t)(rep % r->copies) * r->copy_stride + (size_t)(rep / r->copies % r->places) * r->stride;
}

/* ---- the spec ---- */

static const char *const family_names[] = {"w4a16", NULL};
static const char *const shape_types[] = {"gemm", "moe", NULL};
static const char *const ceiling_modes[] = {"lookup", "measure", NULL};

static const xp_field shape_fields[] = {
    {"name", XP_T_STRING, 1, NULL, NULL, 0, 0, "name the results carry (gate_up, down, ...)"},
    {"type", XP_T_STRING, 0, shape_types, NULL, 0, 0, "gemm (default) or moe (a routed-expert layer)"},
    {"n", XP_T_INT, 0, NULL, NULL, 1, 1 << 24, "gemm: output features, rows of W"},
    {"k", XP_T_INT, 0, NULL, NULL, 1, 1 << 24, "gemm: input features, the reduced dimension"},
    {"hidden", XP_T_INT, 0, NULL, NULL, 1, 1 << 24, "moe: model width (gate_up K, down N)"},
    {"intermediate", XP_T_INT, 0, NULL, NULL, 1, 1 << 24, "moe: one expert's width on this GPU"},
    {"experts", XP_T_INT, 0, NULL, NULL, 1, 1 << 20, "moe: routed experts of the layer"},
    {"topk", XP_T_INT, 0, NULL, NULL, 1, 1 << 10, "moe: experts per token"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static const xp_field kv_fields[] = {
    {"family", XP_T_STRING, 1, family_names, NULL, 0, 0, "kernel family (kernels/<family>/)"},
    {"variants", XP_T_STRINGS, 0, NULL, NULL, 0, 0, "variants to run (default: all of the family)"},
    {"shapes", XP_T_TABLES, 1, NULL, shape_fields, 0, 0, "problems: [[shapes]] name, type, sizes"},
    {"m", XP_T_INTS, 1, NULL, NULL, 1, 4096, "tokens: GEMM rows, or the MoE decode batch"},
    {"group_sizes", XP_T_INTS, 0, NULL, NULL, 1, 1 << 20, "quantization group sizes along K (required by quantized variants: all of w4a16)"},
    {"device", XP_T_INT, 0, NULL, NULL, 0, 1024, "CUDA device (default 0)"},
    {"warmup", XP_T_INT, 0, NULL, NULL, 0, 100000, "untimed graph replays per case (default 10)"},
    {"samples", XP_T_INT, 0, NULL, NULL, 3, 100000, "timed graph replays per case (default 30)"},
    {"tolerance", XP_T_NUMBER, 0, NULL, NULL, 1e-7, 1, "gate: max |out - ref| / max |ref| (default 0.01)"},
    {"seed", XP_T_INT, 0, NULL, NULL, 0, 9.0e15, "random operands' seed (default: fresh per run)"},
    {"rotate_mib", XP_T_INT, 0, NULL, NULL, 1, 1 << 20, "weights rotate over at least this (default 2.5 x L2)"},
    {"routings", XP_T_INT, 0, NULL, NULL, 1, 4096, "moe: random routings rotated through (default 64)"},
    {"split_k", XP_T_INT, 0, NULL, NULL, 1, 4096, "w4a16 fused_splitk: K slices (default 4)"},
    {"ceilings", XP_T_STRING, 0, ceiling_modes, NULL, 0, 0,
     "copy ceiling: lookup (latest ceilings run, else measure; default) or measure"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

static const xp_kv_family *spec_family(const xp_spec *spec) {
  return xp_kv_family_find(xp_spec_str(spec->root, "family", ""));
}

/* The variants the spec selects, in family order (all when it names none). */
static int selected(const xp_spec *spec, const xp_kv_family *f, const xp_kv_variant **out) {
  const cJSON *names = cJSON_GetObjectItemCaseSensitive(spec->root, "variants");
  int n = 0;
  for (int i = 0; i < f->nvariants; i++) {
    int want = names == NULL;
    const cJSON *e;
    cJSON_ArrayForEach(e, names) if (strcmp(e->valuestring, f->variants[i].name) == 0) want = 1;
    if (want) out[n++] = &f->variants[i];
  }
  return n;
}

static int check_shape(const xp_spec *spec, const cJSON *sh, int idx) {
  static const char *const gemm_keys[] = {"n", "k", NULL};
  static const char *const moe_keys[] = {"hidden", "intermediate", "experts", "topk", NULL};
  char path[64];
  int moe = strcmp(xp_spec_str(sh, "type", "gemm"), "moe") == 0;
  const char *const *need = moe ? moe_keys : gemm_keys, *const *other = moe ? gemm_keys : moe_keys;
  for (int i = 0; need[i]; i++)
    if (!cJSON_GetObjectItemCaseSensitive(sh, need[i])) {
      snprintf(path, sizeof path, "shapes[%d]", idx);
      return xp_spec_error(spec, path, "a %s shape needs %s", moe ? "moe" : "gemm", need[i]);
    }
  for (int i = 0; other[i]; i++)
    if (cJSON_GetObjectItemCaseSensitive(sh, other[i])) {
      snprintf(path, sizeof path, "shapes[%d].%s", idx, other[i]);
      return xp_spec_error(spec, path, "applies to %s shapes, and this one is %s",
                           moe ? "gemm" : "moe", moe ? "moe" : "gemm");
    }
  snprintf(path, sizeof path, "shapes[%d]", idx);
  /* Each field fits its range, yet n = k = 2^24 made the host's draw of the weights (float32)
  ** abort the run "out of memory". A layer's experts are made on the GPU, held as INT4. */
  if (!moe)
    return xp_spec_check_weights(spec, path, "n x k", (double)xp_spec_int(sh, "n", 0) * (double)xp_spec_int(sh, "k", 0),
                                 34, "more than the runner draws on the host (float32: 64 GiB)");
  return xp_spec_check_weights(spec, path, "experts x 3 x hidden x intermediate",
                               3.0 * (double)xp_spec_int(sh, "experts", 0) * (double)xp_spec_int(sh, "hidden", 0) *
                                   (double)xp_spec_int(sh, "intermediate", 0),
                               40, "more than any GPU holds");
}

/* Is shape sh one that the model runs on one GPU at this split? gemm: some decode GEMM's n and k
** (MLA absorbed or naive); moe: the routed-expert layer's sizes. */
static int model_runs(const xp_model *m, const xp_parallel *p, const cJSON *sh) {
  if (strcmp(xp_spec_str(sh, "type", "gemm"), "moe") == 0)
    return m->experts > 0 && xp_spec_int(sh, "hidden", 0) == m->hidden &&
           xp_spec_int(sh, "intermediate", 0) * p->tp == m->moe_inter &&
           xp_spec_int(sh, "experts", 0) == m->experts && xp_spec_int(sh, "topk", 0) == m->topk;
  int found = 0;
  for (int absorbed = 0; absorbed < 2 && !found; absorbed++) {
    xp_parallel q = *p;
    xp_gemm_shape *v = NULL;
    size_t n = 0;
    q.mla_absorbed = absorbed;
    xp_model_decode_gemms(m, &q, 1, &v, &n);
    for (size_t i = 0; i < n && !found; i++)
      found = v[i].bmm == 1 && v[i].n == xp_spec_int(sh, "n", 0) && v[i].k == xp_spec_int(sh, "k", 0);
    free(v);
  }
  return found;
}

/* The model label files the run under that model's shapes (queries select by it). With the
** model's file beside the spec (models/<model>.toml, as gemm runs read it), every shape must be
** one the model runs at the declared tp: `--set model=GLM-4.5` on the Kimi-K2.5 spec measured
** Kimi's shapes and recorded them as GLM-4.5's. A model without a file is not checked. */
static int check_model_label(const xp_spec *spec) {
  const char *name = xp_spec_str(spec->root, "model", NULL);
  char *path = name ? xp_model_file_beside(spec, name) : NULL;
  if (!path) return 0;
  xp_model *m = NULL;
  int rc = xp_model_load(path, &m);
  xp_parallel p = {.tp = (int)xp_spec_int(spec->root, "tp", 1), .ep = 1, .mla_absorbed = 1};
  char err[256];
  if (!rc && xp_model_check_parallel(m, &p, err, sizeof err))
    rc = xp_spec_error(spec, "tp", "%s", err);
  const cJSON *shapes = rc ? NULL : cJSON_GetObjectItemCaseSensitive(spec->root, "shapes"), *sh;
  /* said at what made them disagree: a --set tp= over the spec's model, else the model label */
  const char *blamed = xp_spec_line(spec, "tp") < 0 && xp_spec_line(spec, "model") >= 0 ? "tp" : "model";
  int i = 0;
  cJSON_ArrayForEach(sh, shapes) {
    if (!model_runs(m, &p, sh)) {
      rc = xp_spec_error(spec, blamed, "\"%s\" labels the run, but shapes[%d] (%s) is not a shape %s "
                         "runs at tp=%d (%s): the run would file another model's shapes under it "
                         "(give the model's shapes, or another label)", name, i,
                         xp_spec_str(sh, "name", ""), m->name, p.tp, path);
      break;
    }
    i++;
  }
  xp_model_free(m);
  free(path);
  return rc;
}

static int kv_check(const xp_spec *spec) {
  const xp_kv_family *f = spec_family(spec);
  const cJSON *names = cJSON_GetObjectItemCaseSensitive(spec->root, "variants"), *e;
  char path[64];
  int i = 0;
  /* said at the key, where the first shape was blamed for having no variant that runs it */
  if (names && cJSON_GetArraySize(names) == 0)
    return xp_spec_error(spec, "variants", "lists no variant: name those to run, or leave the key out to run "
                         "every %s variant", f->name);
  /* a variant twice was run once, and the spec's hash told the two spellings apart */
  if (xp_spec_check_distinct(spec, "variants", NULL)) return XP_EXIT_USAGE;
  cJSON_ArrayForEach(e, names) {
    snprintf(path, sizeof path, "variants[%d]", i++);
    if (!xp_kv_variant_find(f, e->valuestring)) {
      char list[512] = "";
      for (int j = 0; j < f->nvariants; j++) {
        strncat(list, j ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, f->variants[j].name, sizeof list - strlen(list) - 1);
      }
      return xp_spec_error(spec, path, "unknown %s variant \"%s\" (expected one of: %s)", f->name,
                           e->valuestring, list);
    }
  }
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(spec->root, "shapes"), *sh;
  if (cJSON_GetArraySize(shapes) == 0) return xp_spec_error(spec, "shapes", "lists no shape");
  i = 0;
  cJSON_ArrayForEach(sh, shapes) {
    if (check_shape(spec, sh, i)) return XP_EXIT_USAGE;
    const cJSON *o;
    int j = 0;
    cJSON_ArrayForEach(o, shapes) {
      if (j++ >= i) break;
      if (strcmp(xp_spec_str(o, "name", ""), xp_spec_str(sh, "name", "")) == 0) {
        snprintf(path, sizeof path, "shapes[%d].name", i);
        return xp_spec_error(spec, path, "\"%s\" names two shapes", xp_spec_str(sh, "name", ""));
      }
    }
    i++;
  }
  if (cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(spec->root, "m")) == 0)
    return xp_spec_error(spec, "m", "lists no token count");
  if (xp_spec_check_distinct(spec, "m", NULL) || xp_spec_check_distinct(spec, "group_sizes", NULL)) return XP_EXIT_USAGE;
  /* declared keys label the run for queries: EP is not modelled here (every routed pair runs on
  ** this GPU, m * topk rows), so an ep label would file the run under a split it never ran */
  if (xp_spec_int(spec->root, "ep", 1) != 1)
    return xp_spec_error(spec, "ep", "kernel_variant runs one GPU's experts without expert parallelism "
                         "(m * topk routed rows); an ep label would misfile it");
  /* so would a dtype label other than the activations' every variant runs: dtype = "fp16"
  ** filed a run of bf16 activations beside fp16 ones */
  const char *dtype = xp_spec_str(spec->root, "dtype", NULL);
  if (dtype && strcmp(dtype, f->act_dtype) != 0)
    return xp_spec_error(spec, "dtype", "%s runs %s activations in every variant: dtype = \"%s\" would file "
                         "the run under another dtype (the weights' format is its quantization label)",
                         f->name, f->act_dtype, dtype);
  if (check_model_label(spec)) return XP_EXIT_USAGE;
  const xp_kv_variant *vs[64];
  int nv = selected(spec, f, vs), quantized = 0;
  for (int v = 0; v < nv; v++) quantized |= vs[v]->quantized;
  /* every shape needs a variant of its type among those selected, or the run has nothing to do */
  i = 0;
  cJSON_ArrayForEach(sh, shapes) {
    const int moe = strcmp(xp_spec_str(sh, "type", "gemm"), "moe") == 0;
    int runs = 0;
    for (int v = 0; v < nv; v++) runs |= vs[v]->moe == moe;
    if (!runs) {
      char list[512] = "";
      for (int j = 0; j < f->nvariants; j++)
        if (f->variants[j].moe == moe) {
          strncat(list, list[0] ? ", " : "", sizeof list - strlen(list) - 1);
          strncat(list, f->variants[j].name, sizeof list - strlen(list) - 1);
        }
      snprintf(path, sizeof path, "shapes[%d]", i);
      return xp_spec_error(spec, path, "none of the variants chosen runs a %s shape (those that do: %s)",
                           moe ? "moe" : "gemm", list);
    }
    if (moe && xp_spec_int(sh, "topk", 0) > xp_spec_int(sh, "experts", 0)) {
      snprintf(path, sizeof path, "shapes[%d].topk", i);
      return xp_spec_error(spec, path, "top-%lld of %lld experts is not a routing",
                           (long long)xp_spec_int(sh, "topk", 0), (long long)xp_spec_int(sh, "experts", 0));
    }
    i++;
  }
  /* an empty list is written somewhere: said there, where "required key is missing" named line 1 */
  const cJSON *groups = cJSON_GetObjectItemCaseSensitive(spec->root, "group_sizes");
  if (groups && cJSON_GetArraySize(groups) == 0)
    return xp_spec_error(spec, "group_sizes", "lists no group size%s", quantized ? " (the chosen variants are quantized)"
                                                                                 : ": give one, or leave the key out");
  if (quantized && !groups)
    return xp_spec_error(spec, NULL, /* a missing top-level key: the file's first line, and a stored
                                      ** spec's way on (spec.c anew_advice), as spec.c's own say it */
                         "group_sizes: required key is missing (the %s variants are quantized)", f->name);
  return 0;
}

/* ---- cases ---- */

typedef struct kv_plan {
  const xp_kv_family *f;
  xp_kv_case *cases;
  int ncases;
} kv_plan;

static void problem_params(const xp_kv_problem *p, const xp_kv_variant *v, const xp_kv_family *f,
                           cJSON *o) {
  cJSON_AddStringToObject(o, "family", f->name);
  cJSON_AddStringToObject(o, "variant", v->name);
  cJSON_AddStringToObject(o, "role", v->role);
  cJSON_AddStringToObject(o, "shape", p->shape);
  cJSON_AddStringToObject(o, "type", p->moe ? "moe" : "gemm");
  if (p->moe) {
    cJSON_AddNumberToObject(o, "hidden", p->hidden);
    cJSON_AddNumberToObject(o, "intermediate", p->inter);
    cJSON_AddNumberToObject(o, "experts", p->experts);
    cJSON_AddNumberToObject(o, "topk", p->topk);
  } else {
    cJSON_AddNumberToObject(o, "n", p->n);
    cJSON_AddNumberToObject(o, "k", p->k);
  }
  cJSON_AddNumberToObject(o, "m", p->m);
  if (v->quantized) cJSON_AddNumberToObject(o, "group", p->group);
}

/* Which of the spec's group sizes an unquantized variant takes its operands from: the first
** that the shape supports (an INT4 matrix of that grouping must exist to compare against),
** else the first, where it is skipped with the reason. */
static int unquantized_group(const xp_kv_variant *v, const xp_kv_problem *p, const cJSON *gs, const cJSON *root) {
  const cJSON *g;
  int i = 0;
  char why[512];
  cJSON_ArrayForEach(g, gs) {
    xp_kv_problem q = *p;
    q.group = xp_saturate_int(g->valuedouble);
    if (!v->supports || !v->supports(&q, root, why, sizeof why)) return i;
    i++;
  }
  return 0;
}

/* Expand the spec: shape x group x m x variant. A variant that ignores the group size runs
** once per shape and m (with the operands of unquantized_group). supports() decides skips. */
static void plan_cases(const xp_spec *spec, int arch, kv_plan *pl) {
  const xp_kv_family *f = spec_family(spec);
  const xp_kv_variant *vs[64];
  int nv = selected(spec, f, vs);
  const cJSON *shapes = cJSON_GetObjectItemCaseSensitive(spec->root, "shapes");
  const cJSON *ms = cJSON_GetObjectItemCaseSensitive(spec->root, "m");
  const cJSON *gs = cJSON_GetObjectItemCaseSensitive(spec->root, "group_sizes");
  int ng = cJSON_GetArraySize(gs), cap = 16;
  pl->f = f;
  pl->ncases = 0;
  pl->cases = xp_xcalloc((size_t)cap, sizeof *pl->cases);
  const cJSON *sh, *me;
  cJSON_ArrayForEach(sh, shapes) {
    xp_kv_problem p = {0};
    p.shape = xp_spec_str(sh, "name", "");
    p.moe = strcmp(xp_spec_str(sh, "type", "gemm"), "moe") == 0;
    p.n = (int)xp_spec_int(sh, "n", 0), p.k = (int)xp_spec_int(sh, "k", 0);
    p.hidden = (int)xp_spec_int(sh, "hidden", 0), p.inter = (int)xp_spec_int(sh, "intermediate", 0);
    p.experts = (int)xp_spec_int(sh, "experts", 0), p.topk = (int)xp_spec_int(sh, "topk", 0);
    p.arch = arch;
    for (int gi = 0; gi < (ng ? ng : 1); gi++) {
      /* Without group sizes only unquantized variants run; their operands still come from
      ** INT4 data, packed with 64-wide groups (valid wherever K is a multiple of 64). */
      p.group = ng ? xp_saturate_int(cJSON_GetArrayItem(gs, gi)->valuedouble) : 64;
      cJSON_ArrayForEach(me, ms) {
        p.m = xp_saturate_int(me->valuedouble);
        for (int v = 0; v < nv; v++) {
          if (vs[v]->moe != p.moe || (!vs[v]->quantized && gi != unquantized_group(vs[v], &p, gs, spec->root)))
            continue;
          if (pl->ncases == cap) {
            cap *= 2;
            pl->cases = xp_xrealloc(pl->cases, sizeof *pl->cases * (size_t)cap);
          }
          xp_kv_case *c = &pl->cases[pl->ncases++];
          memset(c, 0, sizeof *c);
          c->p = p;
          c->v = vs[v];
          c->max_err = -1;
          c->status = "ok";
          c->params = cJSON_CreateObject();
          problem_params(&p, vs[v], f, c->params);
          char why[512];
          if (vs[v]->supports && vs[v]->supports(&p, spec->root, why, sizeof why)) {
            c->status = "skipped";
            c->note = xp_strdup(why);
          } else if (vs[v]->params) {
            vs[v]->params(&p, spec->root, c->params);
          }
        }
      }
    }
  }
}

static void plan_free(kv_plan *pl) {
  for (int i = 0; i < pl->ncases; i++) {
    cJSON_Delete(pl->cases[i].params);
    free(pl->cases[i].note);
    free(pl->cases[i].us);
    for (int f = 0; f < pl->cases[i].nfloors; f++) free(pl->cases[i].floors[f].us);
  }
  free(pl->cases);
  memset(pl, 0, sizeof *pl);
}

static void case_name(const xp_kv_case *c, char *buf, size_t n) {
  if (c->v->quantized)
    snprintf(buf, n, "%s/%s/m%d/g%d", c->v->name, c->p.shape, c->p.m, c->p.group);
  else
    snprintf(buf, n, "%s/%s/m%d", c->v->name, c->p.shape, c->p.m);
}

static int kv_plan_print(const xp_spec *spec, FILE *out) {
  kv_plan pl;
  plan_cases(spec, 0, &pl);
  int runs = 0;
  for (int i = 0; i < pl.ncases; i++) runs += strcmp(pl.cases[i].status, "skipped") != 0;
  fprintf(out, "kernel_variant: family %s, %d case%s (%d to measure, %d skipped)\n", pl.f->name,
          pl.ncases, pl.ncases == 1 ? "" : "s", runs, pl.ncases - runs);
  /* the sizes, which case names leave out: what the run measures under its labels */
  const char *model = xp_spec_str(spec->root, "model", NULL);
  if (model)
    fprintf(out, "shapes, filed under model %s at tp=%lld:\n", model, (long long)xp_spec_int(spec->root, "tp", 1));
  else
    fprintf(out, "shapes:\n");
  const cJSON *sh;
  cJSON_ArrayForEach(sh, cJSON_GetObjectItemCaseSensitive(spec->root, "shapes")) {
    if (strcmp(xp_spec_str(sh, "type", "gemm"), "moe") == 0)
      fprintf(out, "  %-16s moe   hidden=%lld intermediate=%lld experts=%lld topk=%lld\n", xp_spec_str(sh, "name", ""),
              (long long)xp_spec_int(sh, "hidden", 0), (long long)xp_spec_int(sh, "intermediate", 0),
              (long long)xp_spec_int(sh, "experts", 0), (long long)xp_spec_int(sh, "topk", 0));
    else
      fprintf(out, "  %-16s gemm  n=%lld k=%lld\n", xp_spec_str(sh, "name", ""),
              (long long)xp_spec_int(sh, "n", 0), (long long)xp_spec_int(sh, "k", 0));
  }
  for (int i = 0; i < pl.ncases; i++) {
    char name[256];
    case_name(&pl.cases[i], name, sizeof name);
    if (strcmp(pl.cases[i].status, "skipped") == 0)
      fprintf(out, "  %-44s skipped: %s\n", name, pl.cases[i].note);
    else
      fprintf(out, "  %-44s check against the float32 reference, then time\n", name);
  }
  fprintf(out, "each: %lld warm-up and %lld timed CUDA-graph replays, weights rotated past L2; "
          "tolerance %g of max |reference|\n", (long long)xp_spec_int(spec->root, "warmup", 10),
          (long long)xp_spec_int(spec->root, "samples", 30), xp_spec_num(spec->root, "tolerance", 1e-2));
  plan_free(&pl);
  return 0;
}

/* ---- execution ---- */
#ifdef XP_HAVE_CUDA

/* A batch that measure() left early (the device failed, or the run was interrupted): a case it
** finished has failed (with its reason) or holds its timing; the others were never checked or
** timed, and go back among the cases not reached (failed when the device was lost, left out of
** an interrupted run, which keeps what it measured and only that). */
static void unmark_unfinished(const xp_kv_case *cases, const int *batch, int n, char *done_flag) {
  for (int j = 0; j < n; j++)
    if (strcmp(cases[batch[j]].status, "ok") == 0 && cases[batch[j]].nus == 0) done_flag[batch[j]] = 0;
}

/* ---- recording ---- */

static double median_of(const double *v, int n) {
  xp_stats st;
  xp_stats_compute(v, (size_t)n, &st);
  return st.median;
}

static int record_case(xp_run *r, xp_kv_case *c, double copy_gbps) {
  char name[256];
  case_name(c, name, sizeof name);
  int64_t id = xp_run_case(r, name, c->params, c->status, c->note);
  if (id < 0) return XP_EXIT_DB;
  if (strcmp(c->status, "ok") != 0 || c->nus == 0) return 0;
  if (xp_run_metric(r, id, "time_us", "us", c->us, (size_t)c->nus)) return XP_EXIT_DB;
  double us = median_of(c->us, c->nus), gbps = c->bytes / (us * 1e3);
  if (c->bytes > 0 && xp_run_value(r, id, "gbps", "GB/s", gbps)) return XP_EXIT_DB;
  if (c->bytes > 0 && copy_gbps > 0 && xp_run_value(r, id, "copy_share", "ratio", gbps / copy_gbps))
    return XP_EXIT_DB;
  if (c->max_err >= 0 && isfinite(c->max_err) && xp_run_value(r, id, "max_err", "ratio", c->max_err))
    return XP_EXIT_DB;
  for (int f = 0; f < c->nfloors; f++)
    if (xp_run_metric(r, id, c->floors[f].name, "us", c->floors[f].us, (size_t)c->floors[f].n)) return XP_EXIT_DB;
  return 0;
}

static void print_case(FILE *out, const xp_kv_case *c, double copy_gbps) {
  char name[256];
  case_name(c, name, sizeof name);
  if (strcmp(c->status, "ok") != 0 || c->nus == 0) {
    fprintf(out, "  %-44s %s: %s\n", name, c->status, c->note ? c->note : "not measured");
    return;
  }
  double us = median_of(c->us, c->nus), gbps = c->bytes / (us * 1e3);
  fprintf(out, "  %-44s %9.2f us %8.0f GB/s", name, us, gbps);
  if (copy_gbps > 0) fprintf(out, " %5.1f%% of copy", 100 * gbps / copy_gbps);
  if (c->max_err >= 0) fprintf(out, "  err %.1e", c->max_err);
  for (int f = 0; f < c->nfloors; f++)
    fprintf(out, "  %.*s %.2f", (int)(strlen(c->floors[f].name) - 3), c->floors[f].name,
            median_of(c->floors[f].us, c->floors[f].n));
  fputc('\n', out);
}


static uint64_t fresh_seed(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t s = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 40);
  return s & ((1ULL << 52) - 1); /* exact in a JSON number */
}

/* The copy ceiling: a ceilings run of this GPU and driver, else measured now (kept in
** *meas for recording). Returns 0 or an exit code; *gbps 0 only on failure. */
static int copy_ceiling(xp_ctx *ctx, int dev, const xp_gpu_info *g, double *gbps, char *source,
                        size_t srclen, xp_ceilings_meas *meas) {
  const char *mode = xp_spec_str(ctx->spec->root, "ceilings", "lookup");
  char driver[64];
  xp_ceilings_driver(driver, sizeof driver);
  *gbps = 0;
  if (strcmp(mode, "lookup") == 0) {
    xp_ceilings c;
    int rc = xp_ceilings_lookup(ctx->db, g->uuid, g->name, driver, &c);
    if (rc > 1) return rc;
    if (rc == 0) {
      *gbps = c.copy_gbps;
      snprintf(source, srclen, "ceilings run %s (matched by %s)", c.run_uuid, c.match);
      return 0;
    }
  }
  xp_ceilings_opts o;
  xp_ceilings_opts_default(&o);
  o.device = dev;
  o.bf16 = o.fp8 = 0;
  int rc = xp_ceilings_measure(&o, meas);
  if (rc) return rc;
  xp_ceilings c;
  xp_ceilings_summarize(meas, &c);
  *gbps = c.copy_gbps;
  snprintf(source, srclen, "measured by this run (case ceiling.copy)");
  return 0;
}

static int kv_execute(xp_ctx *ctx) {
  const cJSON *root = ctx->spec->root;
  xp_kv_opts o = {0};
  o.device = (int)xp_spec_int(root, "device", 0);
  o.warmup = (int)xp_spec_int(root, "warmup", 10);
  o.samples = (int)xp_spec_int(root, "samples", 30);
  o.tolerance = xp_spec_num(root, "tolerance", 1e-2);
  o.seed = cJSON_GetObjectItemCaseSensitive(root, "seed") ? (uint64_t)xp_spec_int(root, "seed", 0) : fresh_seed();
  o.routings = (int)xp_spec_int(root, "routings", 64);
  o.spec = root;
  int rc = xp_spec_check_device(ctx->spec, "device", o.device, xp_gpu_count());
  if (rc) return rc;
  o.rotate_bytes = cJSON_GetObjectItemCaseSensitive(root, "rotate_mib")
                       ? xp_spec_int(root, "rotate_mib", 0) << 20
                       : (int64_t)(2.5 * (double)xp_gpu_l2_bytes(o.device));
  xp_gpu_info g;
  int major = 0, minor = 0;
  if ((rc = xp_gpu_describe(o.device, &g)) != 0) return rc;
  sscanf(g.cc, "%d.%d", &major, &minor);
  const int arch = major * 10 + minor;
  char archs[16], source[128] = "";
  snprintf(archs, sizeof archs, "sm_%d", arch);

  double copy_gbps = 0;
  xp_ceilings_meas meas = {0};
  kv_plan pl = {0};
  if ((rc = copy_ceiling(ctx, o.device, &g, &copy_gbps, source, sizeof source, &meas))) goto done;

  plan_cases(ctx->spec, arch, &pl);
  for (int i = 0; i < pl.ncases; i++) {
    cJSON_AddStringToObject(pl.cases[i].params, "arch", archs);
    cJSON_AddStringToObject(pl.cases[i].params, "gpu", g.name);
    cJSON_AddNumberToObject(pl.cases[i].params, "seed", (double)o.seed);
  }
  /* Batches: the measurable cases of one shape and group size, in spec order. */
  int *batch = xp_xmalloc(sizeof *batch * (size_t)(pl.ncases ? pl.ncases : 1));
  char *done_flag = xp_xcalloc((size_t)(pl.ncases ? pl.ncases : 1), 1);
  int lost = 0;
  for (int i = 0; i < pl.ncases && rc == 0 && !lost; i++) {
    if (done_flag[i] || strcmp(pl.cases[i].status, "skipped") == 0) continue;
    int n = 0;
    for (int j = i; j < pl.ncases; j++) {
      const xp_kv_case *a = &pl.cases[i], *b = &pl.cases[j];
      if (done_flag[j] || strcmp(b->status, "skipped") == 0 || strcmp(a->p.shape, b->p.shape) != 0 ||
          a->p.group != b->p.group)
        continue;
      batch[n++] = j;
      done_flag[j] = 1;
    }
    xp_kv_case *tmp = xp_xmalloc(sizeof *tmp * (size_t)n);
    for (int j = 0; j < n; j++) tmp[j] = pl.cases[batch[j]];
    int mrc = pl.f->measure(tmp, n, &o);
    for (int j = 0; j < n; j++) pl.cases[batch[j]] = tmp[j];
    free(tmp);
    if (!ctx->quiet)
      for (int j = 0; j < n; j++) print_case(ctx->out, &pl.cases[batch[j]], copy_gbps);
    if (mrc) unmark_unfinished(pl.cases, batch, n, done_flag);
    if (mrc == XP_EXIT_ABORTED) rc = mrc;
    else if (mrc) lost = 1;
  }
  /* Cases never reached: the device was lost (recorded failed) or the run was interrupted
  ** (left out: an aborted run keeps what it measured). */
  for (int i = 0; i < pl.ncases; i++)
    if (!done_flag[i] && strcmp(pl.cases[i].status, "skipped") != 0 && lost) {
      pl.cases[i].status = "failed";
      free(pl.cases[i].note);
      pl.cases[i].note = xp_asprintf("not run: the device failed earlier in this run (%s)", xp_last_error());
      done_flag[i] = 1;
    }
  if (lost) xp_warn("the CUDA context was lost; later cases are recorded failed");
  /* a run whose device failed is a failed run (exit 1), whatever its earlier cases measured */
  const char *lost_why = lost ? xp_strdup(xp_last_error()) : NULL;

  /* Record: measured first, written now in one transaction. */
  int wrc = 0;
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)o.seed);
  if (xp_run_meta(ctx->run, "kernel_variant.family", pl.f->name, "declared") ||
      xp_run_meta(ctx->run, "kernel_variant.arch", archs, "detected") ||
      xp_run_meta(ctx->run, "kernel_variant.seed", seed, "detected") ||
      xp_run_meta(ctx->run, "kernel_variant.copy_ceiling_source", source, "detected"))
    wrc = XP_EXIT_DB;
  if (!wrc && copy_gbps > 0) {
    char v[32];
    snprintf(v, sizeof v, "%.1f", copy_gbps);
    if (xp_run_meta(ctx->run, "kernel_variant.copy_ceiling_gbps", v, "detected")) wrc = XP_EXIT_DB;
  }
  if (!wrc && meas.nr && xp_ceilings_record(ctx->run, &meas, "ceiling.")) wrc = XP_EXIT_DB;
  for (int i = 0; i < pl.ncases && !wrc; i++)
    if (done_flag[i] || strcmp(pl.cases[i].status, "skipped") == 0) wrc = record_case(ctx->run, &pl.cases[i], copy_gbps);
  if (!ctx->quiet) {
    int skipped = 0, failed = 0;
    for (int i = 0; i < pl.ncases; i++) {
      skipped += strcmp(pl.cases[i].status, "skipped") == 0;
      failed += done_flag[i] && strcmp(pl.cases[i].status, "failed") == 0;
    }
    if (skipped) {
      fprintf(ctx->out, "skipped:\n");
      for (int i = 0; i < pl.ncases; i++)
        if (strcmp(pl.cases[i].status, "skipped") == 0) print_case(ctx->out, &pl.cases[i], copy_gbps);
    }
    fprintf(ctx->out, "copy ceiling %.0f GB/s (%s); %d failed, %d skipped\n", copy_gbps, source, failed, skipped);
  }
  free(batch);
  free(done_flag);
  if (wrc) rc = wrc;
  else if (lost) rc = xp_error(XP_EXIT_FAILED, "%s", lost_why);
  free((char *)lost_why);
done:
  xp_ceilings_meas_free(&meas);
  plan_free(&pl);
  return rc;
}
#endif

const xp_kind xp_kind_kernel_variant = {
    .name = "kernel_variant",
    .summary = "kernel variants of a family (w4a16: INT4 decode GEMMs, grouped MoE) under one "
               "correctness gate and one timing",
    .fields = kv_fields,
    .needs_gpu = 1,
    .check = kv_check,
    .plan = kv_plan_print,
    .execute = XP_GPU_EXECUTE(kv_execute),
    .notes = "model labels the shapes: with models/<model>.toml beside the spec, every shape must be one\n"
             "  that model runs at the declared tp (a decode GEMM's n x k, or its routed-expert layer), else\n"
             "  the spec is refused; --dry-run prints each shape's sizes and the model and tp it is filed under.\n"
             "  Beside each INT4 kernel the run times its floors: its bytes read bare in one launch\n"
             "  (read_floor_us); for grouped_moe also routing and barrier only (launch_floor_us), and every\n"
             "  load in the kernel's order without arithmetic, the barrier between gate_up's and down's\n"
             "  loads (skeleton_floor_us), after them all (stream_floor_us) or left out\n"
             "  (routed_read_floor_us).\n",
};
