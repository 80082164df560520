/*
** What a rank's trace adds up to once it has been read: times moved onto the epoch, kernels
** placed in steps, the union of busy intervals per step and over the whole trace, and the
** process group of collective kernels whose args did not name one.
*/
#include <stdlib.h>
#include <string.h>
#include "tt_trace.h"
#include "xp.h"

void tt_import_init(tt_import *imp, const tt_rules *rules) {
  memset(imp, 0, sizeof *imp);
  imp->rules = rules;
}

void tt_rank_free(tt_rank *r) {
  if (!r) return;
  free(r->file);
  cJSON_Delete(r->meta);
  xp_vec_free(&r->kstats);
  xp_map_free(&r->kmap);
  xp_vec_free(&r->ivals);
  xp_vec_free(&r->steps);
  xp_vec_free(&r->stepk);
  xp_vec_free(&r->colls);
  xp_vec_free(&r->shapes);
  xp_map_free(&r->smap);
  xp_idmap_free(&r->ext);
  xp_idmap_free(&r->ext_ts);
  xp_idmap_free(&r->launch_ts);
  xp_vec_free(&r->pending);
  free(r);
}

void tt_import_free(tt_import *imp) {
  for (int i = 0; i < imp->nranks; i++) tt_rank_free(imp->ranks[i]);
  free(imp->ranks);
  xp_strtab_free(&imp->names);
  for (size_t i = 0; i < imp->name_info.n; i++) free(XP_VEC_AT(&imp->name_info, tt_name_info, i)->text);
  xp_vec_free(&imp->name_info);
  xp_strtab_free(&imp->ops);
  xp_strtab_free(&imp->pgs);
  xp_strtab_free(&imp->strs);
  free(imp->scratch);
  memset(imp, 0, sizeof *imp);
}

static int by_step_then_start(const void *a, const void *b) {
  const tt_ival *x = a, *y = b;
  if (x->step != y->step) return x->step < y->step ? -1 : 1;
  return (x->start > y->start) - (x->start < y->start);
}

static int by_start(const void *a, const void *b) {
  const tt_ival *x = a, *y = b;
  return (x->start > y->start) - (x->start < y->start);
}

/* Union of the intervals iv[0, n), sorted by start: time covered by at least one of them. */
static int64_t union_ns(const tt_ival *iv, size_t n) {
  if (!n) return 0;
  int64_t busy = 0, s = iv[0].start, e = iv[0].end;
  for (size_t i = 1; i < n; i++) {
    if (iv[i].start > e) {
      busy += e - s;
      s = iv[i].start;
      e = iv[i].end;
    } else if (iv[i].end > e) {
      e = iv[i].end;
    }
  }
  return busy + (e - s);
}

static void shift_times(tt_rank *r) {
  int64_t shift = r->have_base ? r->base_ns : 0;
  /* Kineto writes ts relative to baseTimeNanoseconds; a producer that wrote epoch timestamps
  ** and a base as well must not be shifted twice (1e17 ns is three years). */
  if (r->ivals.n && XP_VEC_AT(&r->ivals, tt_ival, 0)->start > 100000000000000000LL) shift = 0;
  if (!shift) return;
  for (size_t i = 0; i < r->ivals.n; i++) {
    tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    v->start += shift, v->end += shift;
  }
  for (size_t i = 0; i < r->steps.n; i++) {
    tt_step *s = XP_VEC_AT(&r->steps, tt_step, i);
    s->start += shift, s->end += shift;
  }
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    c->start += shift, c->end += shift;
  }
  for (size_t i = 0; i < r->pending.n; i++) XP_VEC_AT(&r->pending, tt_pend, i)->ts += shift;
  if (r->prof_end) r->prof_start += shift, r->prof_end += shift;
}

/* A trace without ProfilerStep#N marks (vLLM's and SGLang's profilers start and stop the
** profiler without stepping it) gets one step spanning its GPU activity, so that its shares
** still answer the queries; the import says so (tt_steps_marked_by). A missing annotation
** that was asked for by name stays a missing one: the user expected it. */
static void window_step(tt_rank *r) {
  const tt_ival *iv = r->ivals.data;
  tt_step *s = xp_vec_push(&r->steps, sizeof *s);
  memset(s, 0, sizeof *s);
  s->start = iv[0].start;
  s->end = iv[0].end;
  for (size_t i = 1; i < r->ivals.n; i++) {
    if (iv[i].start < s->start) s->start = iv[i].start;
    if (iv[i].end > s->end) s->end = iv[i].end;
  }
  s->end++; /* a zero-length activity at the very end still starts inside */
  r->window_step = 1;
}

const char *tt_steps_marked_by(const tt_import *imp, const tt_options *opt) {
  if (opt->step_annotation) return opt->step_annotation;
  int window = imp->nranks > 0;
  for (int i = 0; i < imp->nranks; i++) window &= imp->ranks[i]->window_step;
  return window ? TT_WHOLE_WINDOW : "ProfilerStep#N";
}

/* Steps were recorded in the External-id map by order of appearance; map those to positions
** in the sorted array. An activity whose launch's CPU time is known (an operator read before
** its step, a ROCm launch) goes to the step holding that time, now that all are read; one with
** no link at all, or whose launch no step holds, to the step its GPU start falls in. */
static void place_in_steps(tt_rank *r) {
  size_t ns = r->steps.n;
  int32_t *pos = xp_xcalloc(ns ? ns : 1, sizeof *pos);
  for (size_t i = 0; i < ns; i++) pos[XP_VEC_AT(&r->steps, tt_step, i)->id] = (int32_t)i;
  for (size_t i = 0; i < r->pending.n; i++) {
    const tt_pend *pd = XP_VEC_AT(&r->pending, tt_pend, i);
    const int32_t at = ns ? tt_step_at(&r->steps, pd->ts) : -1;
    if (at >= 0) XP_VEC_AT(&r->ivals, tt_ival, pd->ival)->step = XP_VEC_AT(&r->steps, tt_step, at)->id;
  }
  for (size_t i = 0; i < r->ivals.n; i++) {
    tt_ival *v = XP_VEC_AT(&r->ivals, tt_ival, i);
    if (v->step >= 0 && (size_t)v->step < ns) v->step = pos[v->step];
    else v->step = ns ? tt_step_at(&r->steps, v->start) : -1;
  }
  free(pos);
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    c->step = XP_VEC_AT(&r->ivals, tt_ival, c->ival)->step;
  }
}

static void step_figures(tt_rank *r) {
  tt_ival *iv = r->ivals.data;
  size_t n = r->ivals.n;
  qsort(iv, n, sizeof *iv, by_step_then_start);
  xp_map m = {0};
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && iv[j].step == iv[i].step) j++;
    if (iv[i].step >= 0) {
      tt_step *s = XP_VEC_AT(&r->steps, tt_step, iv[i].step);
      s->busy_ns = union_ns(iv + i, j - i);
      s->gpu_start = iv[i].start;
      s->gpu_end = iv[i].end;
      for (size_t k = i; k < j; k++) {
        s->kernels++;
        s->kernel_ns += iv[k].end - iv[k].start;
        if (iv[k].end > s->gpu_end) s->gpu_end = iv[k].end;
        int added;
        uint64_t mk = (uint64_t)(uint32_t)iv[k].step << 32 | iv[k].key;
        uint32_t slot = xp_map_put(&m, mk, (uint32_t)r->stepk.n, &added);
        tt_stepk *sk = added ? xp_vec_push(&r->stepk, sizeof *sk) : XP_VEC_AT(&r->stepk, tt_stepk, slot);
        sk->step = iv[k].step;
        sk->key = iv[k].key;
        sk->count++;
        sk->total += iv[k].end - iv[k].start;
      }
    }
    i = j;
  }
  xp_map_free(&m);
}

static void whole_trace_figures(tt_rank *r) {
  tt_ival *iv = r->ivals.data;
  size_t n = r->ivals.n;
  qsort(iv, n, sizeof *iv, by_start);
  r->busy_ns = union_ns(iv, n);
  r->kernel_ns = 0;
  if (n) r->gpu_start = iv[0].start, r->gpu_end = iv[0].end;
  for (size_t i = 0; i < n; i++) {
    r->kernel_ns += iv[i].end - iv[i].start;
    if (iv[i].end > r->gpu_end) r->gpu_end = iv[i].end;
  }
}

/* The process group of the trace's only group, from distributedInfo.pg_config, in the form
** kernel args use ("name\x1fdescription\x1f[0, 1]"); -1 if there is not exactly one. */
static int32_t only_configured_pg(tt_import *imp, const tt_rank *r) {
  cJSON *di = cJSON_GetObjectItemCaseSensitive(r->meta, "distributedInfo");
  cJSON *pgc = cJSON_GetObjectItemCaseSensitive(di, "pg_config");
  if (!cJSON_IsArray(pgc) || cJSON_GetArraySize(pgc) != 1) return -1;
  cJSON *pg = cJSON_GetArrayItem(pgc, 0);
  cJSON *nm = cJSON_GetObjectItemCaseSensitive(pg, "pg_name");
  cJSON *desc = cJSON_GetObjectItemCaseSensitive(pg, "pg_desc");
  cJSON *ranks = cJSON_GetObjectItemCaseSensitive(pg, "ranks");
  if (!cJSON_IsString(nm)) return -1;
  char list[512] = "";
  if (cJSON_IsArray(ranks)) {
    size_t off = 0;
    cJSON *x;
    off += (size_t)snprintf(list + off, sizeof list - off, "[");
    cJSON_ArrayForEach(x, ranks) {
      if (off < sizeof list)
        off += (size_t)snprintf(list + off, sizeof list - off, "%s%d", x == ranks->child ? "" : ", ",
                                x->valueint);
    }
    if (off < sizeof list) snprintf(list + off, sizeof list - off, "]");
  } else if (cJSON_IsString(ranks)) {
    snprintf(list, sizeof list, "%s", ranks->valuestring);
  }
  char *key = xp_asprintf("%s\x1f%s\x1f%s", nm->valuestring,
                          cJSON_IsString(desc) ? desc->valuestring : "", list);
  int32_t id = (int32_t)xp_strtab_intern(&imp->pgs, key, strlen(key), NULL);
  free(key);
  return id;
}

/* A collective kernel whose args name no process group (launched before the profiler saw the
** call) belongs to the group of the other collectives on its stream: each PyTorch process
** group drives its own NCCL stream. Failing that, to the trace's only configured group. */
static void resolve_groups(tt_import *imp, tt_rank *r) {
  xp_map by_stream = {0};
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    if (c->pg >= 0)
      xp_map_put(&by_stream, (uint64_t)(uint32_t)c->device << 32 | (uint32_t)c->stream, (uint32_t)c->pg, NULL);
  }
  int32_t only = -2;
  for (size_t i = 0; i < r->colls.n; i++) {
    tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    if (c->pg >= 0) continue;
    uint32_t pg;
    if (xp_map_get(&by_stream, (uint64_t)(uint32_t)c->device << 32 | (uint32_t)c->stream, &pg)) {
      c->pg = (int32_t)pg;
      continue;
    }
    if (only == -2) only = only_configured_pg(imp, r);
    c->pg = only;
  }
  xp_map_free(&by_stream);
}

void tt_rank_done(tt_import *imp, tt_rank *r, const tt_options *opt) {
  if (opt->rank >= 0) {
    if (r->trace_rank >= 0 && r->trace_rank != opt->rank)
      xp_warn("%s: the trace says rank %lld; recorded as rank %lld as asked", r->file,
              (long long)r->trace_rank, (long long)opt->rank);
    r->rank = opt->rank;
    r->rank_source = "option";
  } else if (r->trace_rank >= 0) {
    r->rank = r->trace_rank;
    r->rank_source = "trace";
  }
  shift_times(r);
  if (!opt->step_annotation && r->steps.n == 0 && r->ivals.n > 0) window_step(r);
  place_in_steps(r);
  step_figures(r);
  whole_trace_figures(r);
  resolve_groups(imp, r);
  /* The per-activity records and the operator map have served; drop them so that memory
  ** stays flat across the files of a multi-rank import. */
  xp_vec_free(&r->ivals);
  xp_idmap_free(&r->ext);
  xp_idmap_free(&r->ext_ts);
  xp_idmap_free(&r->launch_ts);
  xp_vec_free(&r->pending);
  xp_map_free(&r->kmap);
  xp_map_free(&r->smap);
  r->done = 1;
}
