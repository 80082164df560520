/* Writing an import into the database (see tt_store.h and schema/002_trace.sql). */
#include "tt_store.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "db.h"
#include "xp.h"

char *tt_json_compact(const char *s, size_t n) {
  char *out = xp_xmalloc(n + 1);
  size_t k = 0;
  int in_str = 0;
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (in_str) {
      out[k++] = c;
      if (c == '\\' && i + 1 < n) out[k++] = s[++i];
      else if (c == '"') in_str = 0;
    } else if (c == '"') {
      in_str = 1;
      out[k++] = c;
    } else if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
      out[k++] = c;
    }
  }
  out[k] = 0;
  return out;
}

/* ---- the rule set ---- */

static int read_names(sqlite3 *db, const char *only, tt_name_row **out, size_t *n) {
  char *sql = xp_asprintf("SELECT id, name, kind, category, coalesce(rule_seq, 0) FROM trace_names%s%s ORDER BY name",
                          only ? " WHERE " : "", only ? only : "");
  sqlite3_stmt *st = xp_db_prepare(db, sql);
  free(sql);
  if (!st) return XP_EXIT_DB;
  size_t cap = 0;
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (*n == cap) *out = xp_xrealloc(*out, (cap = cap ? cap * 2 : 256) * sizeof **out);
    (*out)[(*n)++] = (tt_name_row){sqlite3_column_int64(st, 0), xp_strdup((const char *)sqlite3_column_text(st, 1)),
                                   xp_strdup((const char *)sqlite3_column_text(st, 2)),
                                   xp_strdup((const char *)sqlite3_column_text(st, 3)), NULL, sqlite3_column_int(st, 4)};
  }
  sqlite3_finalize(st);
  return rc == SQLITE_DONE ? 0 : xp_db_fail(db, "reading trace_names");
}

static int apply(sqlite3 *db, const tt_rules *r, tt_name_row *rows, size_t n, size_t *moved) {
  sqlite3_stmt *st = xp_db_prepare(db, "UPDATE trace_names SET category = ?1, rule_seq = ?2 WHERE id = ?3");
  if (!st) return XP_EXIT_DB;
  int rc = 0;
  for (size_t i = 0; i < n && rc == 0; i++) {
    int rule = tt_rules_match(r, rows[i].name);
    const char *cat = tt_rules_category_of(r, rule, rows[i].kind);
    rows[i].now = cat;
    if (strcmp(cat, rows[i].category) != 0) (*moved)++;
    else if (rule + 1 == rows[i].rule_seq) continue; /* the rule's place alone is no other category */
    sqlite3_bind_text(st, 1, cat, -1, SQLITE_STATIC);
    if (rule < 0) sqlite3_bind_null(st, 2);
    else sqlite3_bind_int(st, 2, rule + 1);
    sqlite3_bind_int64(st, 3, rows[i].id);
    rc = xp_db_step_done(db, st);
  }
  sqlite3_finalize(st);
  return rc;
}

int tt_store_classify_names(sqlite3 *db, const tt_rules *r, const char *only, tt_name_row **rows, size_t *n,
                            size_t *moved) {
  *rows = NULL;
  *n = *moved = 0;
  int rc = read_names(db, only, rows, n);
  return rc ? rc : apply(db, r, *rows, *n, moved);
}

void tt_name_rows_free(tt_name_row *rows, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(rows[i].name);
    free(rows[i].kind);
    free(rows[i].category);
  }
  free(rows);
}

int tt_rules_load_db(sqlite3 *db, tt_rules *out, int *found) {
  *found = 0;
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT text, source FROM trace_rule_set WHERE id = 1");
  if (!st) return XP_EXIT_DB;
  int rc = 0;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const char *text = (const char *)sqlite3_column_text(st, 0);
    char *label = xp_asprintf("rules in the database (from %s)", sqlite3_column_text(st, 1));
    rc = tt_rules_parse(text, (size_t)sqlite3_column_bytes(st, 0), label, out);
    free(label);
    if (rc == 0) *found = 1;
  }
  sqlite3_finalize(st);
  return rc;
}

static int exec_bound(sqlite3 *db, sqlite3_stmt *st) {
  return xp_db_step_done(db, st);
}

int tt_rules_save(sqlite3 *db, const tt_rules *r, const char *source, const char *text, size_t len) {
  int rc = xp_db_exec(db, "DELETE FROM trace_rules; DELETE FROM trace_categories; DELETE FROM trace_rule_set;");
  if (rc) return rc;
  char sha[65], now[40];
  xp_sha256_hex(text, len, sha);
  xp_now_iso8601(now, sizeof now);
  sqlite3_stmt *st = xp_db_prepare(db,
      "INSERT INTO trace_rule_set(id, source, sha256, text, applied_at) VALUES (1, ?1, ?2, ?3, ?4)");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, source);
  xp_bind_text(st, 2, sha);
  xp_bind_text_n(st, 3, text, len);
  xp_bind_text(st, 4, now);
  rc = exec_bound(db, st);
  sqlite3_finalize(st);
  if (rc) return rc;
  st = xp_db_prepare(db, "INSERT INTO trace_categories(category, grp) VALUES (?1, ?2)");
  if (!st) return XP_EXIT_DB;
  for (int i = 0; i < r->ncats && rc == 0; i++) {
    xp_bind_text(st, 1, r->cat[i].name);
    xp_bind_text(st, 2, r->cat[i].group);
    rc = exec_bound(db, st);
  }
  sqlite3_finalize(st);
  if (rc) return rc;
  st = xp_db_prepare(db, "INSERT INTO trace_rules(seq, category, how, pattern, line) VALUES (?1,?2,?3,?4,?5)");
  if (!st) return XP_EXIT_DB;
  for (int i = 0; i < r->nrules && rc == 0; i++) {
    sqlite3_bind_int(st, 1, i + 1);
    xp_bind_text(st, 2, r->rule[i].category);
    xp_bind_text(st, 3, tt_match_names[r->rule[i].how]);
    xp_bind_text(st, 4, r->rule[i].pattern);
    sqlite3_bind_int(st, 5, r->rule[i].line);
    rc = exec_bound(db, st);
  }
  sqlite3_finalize(st);
  return rc;
}

/* ---- an import ---- */

static void bind_opt_int(sqlite3_stmt *st, int i, int64_t v) {
  if (v < 0) sqlite3_bind_null(st, i);
  else sqlite3_bind_int64(st, i, v);
}

/* A number past int64's range ("schemaVersion": 1e300, NaN) is no version or count: unknown, as a
** missing one, where converting it was undefined behaviour. */
static int64_t meta_int(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsNumber(v) && fabs(v->valuedouble) < 0x1p63 ? (int64_t)v->valuedouble : -1;
}

static const char *meta_str(const cJSON *o, const char *key) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A deviceProperties entry's "name", NULL where it has none. Kineto writes hipGetDeviceProperties'
** name as it is (libkineto/src/DeviceProperties.cpp), and ROCm leaves it empty on some GPUs (their
** gcnArchName, which Kineto does not write, names them): no name, not a GPU called "". */
static const char *device_name(const cJSON *d) {
  const char *n = meta_str(d, "name");
  return n && n[strspn(n, " \t")] ? n : NULL;
}

/* The deviceProperties entry of the rank's GPU (by "id"), else the first. */
static const cJSON *rank_device(const tt_rank *r) {
  const cJSON *dp = cJSON_GetObjectItemCaseSensitive(r->meta, "deviceProperties"), *d;
  if (!cJSON_IsArray(dp)) return NULL;
  cJSON_ArrayForEach(d, dp) {
    if (meta_int(d, "id") == tt_device_number(r)) return d;
  }
  return cJSON_GetArrayItem(dp, 0);
}

/* A name's text as stored: the trace's bytes, or their mended copy where those were not UTF-8. */
static const char *name_text(const tt_import *imp, uint32_t i, size_t *len) {
  const tt_name_info *ni = XP_VEC_AT(&imp->name_info, tt_name_info, i);
  *len = ni->text ? ni->text_len : imp->names.len[i];
  return ni->text ? ni->text : imp->names.str[i];
}

/* Its id, hashed once by store_names (each kernel, step and collective row names one). */
static int64_t name_id(const tt_import *imp, uint32_t i) {
  return XP_VEC_AT(&imp->name_info, tt_name_info, i)->id;
}

/* " (bytes ff fe)": the bytes of s[0, n) that are not UTF-8, the first 16 of them. */
static void bad_bytes(const char *s, size_t n, char *out, size_t cap) {
  size_t k = (size_t)snprintf(out, cap, " (bytes");
  int shown = 0;
  for (size_t i = 0; i < n && shown < 16; shown++) {
    long at = xp_utf8_invalid_at(s + i, n - i);
    if (at < 0) break;
    i += (size_t)at;
    k += (size_t)snprintf(out + k, cap - k, " %02x", (unsigned char)s[i++]);
  }
  snprintf(out + k, cap - k, ")");
}

/* Mending can give names the trace kept apart one text ("k\xfe" and "k\xff" both "k\uFFFD",
** or one the same as a name written with U+FFFD itself), where trace_names holds a text once and
** a rank's kernels are keyed by their name's id: they would merge, or the import would fail on
** the key. The first keeps the mended text; a later one gets its bad bytes in hex after it, and
** a number if that too is taken. Names that were UTF-8 keep their text. Only an import that
** mended a name pays for this. */
static void names_distinct(tt_import *imp) {
  if (!imp->names_mended) return;
  xp_strtab seen = {0};
  for (uint32_t i = 0; i < imp->names.n; i++)
    if (!XP_VEC_AT(&imp->name_info, tt_name_info, i)->text)
      xp_strtab_intern(&seen, imp->names.str[i], imp->names.len[i], NULL);
  for (uint32_t i = 0; i < imp->names.n; i++) {
    tt_name_info *ni = XP_VEC_AT(&imp->name_info, tt_name_info, i);
    if (!ni->text) continue;
    int added;
    xp_strtab_intern(&seen, ni->text, ni->text_len, &added);
    char hex[128];
    if (!added) bad_bytes(imp->names.str[i], imp->names.len[i], hex, sizeof hex);
    for (int k = 1; !added; k++) {
      char *t = k == 1 ? xp_asprintf("%s%s", ni->text, hex) : xp_asprintf("%s%s #%d", ni->text, hex, k);
      xp_strtab_intern(&seen, t, strlen(t), &added);
      if (!added) {
        free(t);
        continue;
      }
      free(ni->text);
      ni->text = t;
      ni->text_len = strlen(t);
    }
  }
  xp_strtab_free(&seen);
}

static int store_names(xp_run *run, tt_import *imp) {
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT OR IGNORE INTO trace_names(id, name, kind, category, rule_seq) VALUES (?1,?2,?3,?4,?5)");
  if (!st) return XP_EXIT_DB;
  for (uint32_t i = 0; i < imp->names.n; i++) {
    tt_name_info *ni = XP_VEC_AT(&imp->name_info, tt_name_info, i);
    sqlite3_reset(st);
    size_t n;
    const char *text = name_text(imp, i, &n);
    ni->id = xp_text_id(text, n);
    sqlite3_bind_int64(st, 1, ni->id);
    sqlite3_bind_text64(st, 2, text, n, SQLITE_STATIC, SQLITE_UTF8);
    xp_bind_text(st, 3, tt_gpu_kind_name[ni->kind]);
    xp_bind_text(st, 4, ni->category);
    if (ni->rule < 0) sqlite3_bind_null(st, 5);
    else sqlite3_bind_int(st, 5, ni->rule + 1);
    int rc = xp_db_step_done(xp_run_db(run), st);
    if (rc) return rc;
  }
  return 0;
}

static int store_rank(xp_run *run, const tt_rank *r) {
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT INTO trace_ranks(run_id, rank, rank_source, file, json_bytes, events, kernels, memcpys,"
      " memsets, cpu_ops, linked_kernels, device, world_size, schema_version, base_time_ns,"
      " device_name, cuda_runtime, cuda_driver, cupti, nccl_version, backend, metadata, gpu_start_ns,"
      " gpu_end_ns, busy_ns, idle_ns, kernel_ns, profiler_start_ns, profiler_end_ns, steps,"
      " coll_kernels, coll_matched, coll_unmatched) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,"
      "?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24,?25,?26,?27,?28,?29,?30,?31,?32,?33)");
  if (!st) return XP_EXIT_DB;
  const cJSON *di = cJSON_GetObjectItemCaseSensitive(r->meta, "distributedInfo");
  const cJSON *dev = rank_device(r);
  char *meta = cJSON_PrintUnformatted(r->meta);
  int64_t window = r->gpu_end - r->gpu_start;
  sqlite3_bind_int64(st, 1, xp_run_id(run));
  sqlite3_bind_int64(st, 2, r->rank);
  xp_bind_text(st, 3, r->rank_source);
  xp_bind_text(st, 4, r->file);
  sqlite3_bind_int64(st, 5, (int64_t)r->json_bytes);
  sqlite3_bind_int64(st, 6, (int64_t)r->events);
  sqlite3_bind_int64(st, 7, r->kernels);
  sqlite3_bind_int64(st, 8, r->memcpys);
  sqlite3_bind_int64(st, 9, r->memsets);
  sqlite3_bind_int64(st, 10, r->cpu_ops);
  sqlite3_bind_int64(st, 11, r->linked);
  bind_opt_int(st, 12, tt_device_number(r));
  bind_opt_int(st, 13, r->world_size);
  bind_opt_int(st, 14, meta_int(r->meta, "schemaVersion"));
  if (r->have_base) sqlite3_bind_int64(st, 15, r->base_ns);
  xp_bind_text(st, 16, device_name(dev));
  bind_opt_int(st, 17, meta_int(r->meta, "cuda_runtime_version"));
  bind_opt_int(st, 18, meta_int(r->meta, "cuda_driver_version"));
  bind_opt_int(st, 19, meta_int(r->meta, "cupti_version"));
  xp_bind_text(st, 20, meta_str(di, "nccl_version"));
  xp_bind_text(st, 21, meta_str(di, "backend"));
  xp_bind_text(st, 22, meta ? meta : "{}");
  sqlite3_bind_int64(st, 23, r->gpu_start);
  sqlite3_bind_int64(st, 24, r->gpu_end);
  sqlite3_bind_int64(st, 25, r->busy_ns);
  sqlite3_bind_int64(st, 26, window - r->busy_ns);
  sqlite3_bind_int64(st, 27, r->kernel_ns);
  if (r->prof_end) {
    sqlite3_bind_int64(st, 28, r->prof_start);
    sqlite3_bind_int64(st, 29, r->prof_end);
  }
  sqlite3_bind_int64(st, 30, (int64_t)r->steps.n);
  sqlite3_bind_int64(st, 31, (int64_t)r->colls.n);
  sqlite3_bind_int64(st, 32, r->coll_matched);
  sqlite3_bind_int64(st, 33, r->coll_unmatched);
  int rc = xp_db_step_done(xp_run_db(run), st);
  free(meta);
  return rc;
}

static int store_kernels(xp_run *run, const tt_import *imp, const tt_rank *r) {
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT INTO trace_kernels(run_id, rank, name_id, coll, count, total_ns, min_ns, max_ns)"
      " VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
  if (!st) return XP_EXIT_DB;
  for (size_t i = 0; i < r->kstats.n; i++) {
    const tt_kstat *k = XP_VEC_AT(&r->kstats, tt_kstat, i);
    uint32_t nm = TT_KEY_NAME(k->key);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, xp_run_id(run));
    sqlite3_bind_int64(st, 2, r->rank);
    sqlite3_bind_int64(st, 3, name_id(imp, nm));
    xp_bind_text(st, 4, tt_coll_names[TT_KEY_COLL(k->key)]);
    sqlite3_bind_int64(st, 5, k->count);
    sqlite3_bind_int64(st, 6, k->total);
    sqlite3_bind_int64(st, 7, k->min);
    sqlite3_bind_int64(st, 8, k->max);
    int rc = xp_db_step_done(xp_run_db(run), st);
    if (rc) return rc;
  }
  return 0;
}

/* Reset st and bind its first three parameters to a step's key: run, rank, step. */
static void bind_step_key(sqlite3_stmt *st, xp_run *run, const tt_rank *r, size_t step) {
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, xp_run_id(run));
  sqlite3_bind_int64(st, 2, r->rank);
  sqlite3_bind_int64(st, 3, (int64_t)step);
}

/* A step's communication and its exposed parts (tt_overlap.c), where it had any: into
** trace_step_comm, and the part no compute hid into trace_step_comm_compute (schema 33). */
static int store_step_comm(xp_run *run, sqlite3_stmt *comm, sqlite3_stmt *compute, const tt_rank *r, size_t step,
                           const tt_step *s) {
  bind_step_key(comm, run, r, step);
  sqlite3_bind_int64(comm, 4, s->comm.comm_ns);
  sqlite3_bind_int64(comm, 5, s->comm.exposed_ns);
  int rc = xp_db_step_done(xp_run_db(run), comm);
  if (rc) return rc;
  bind_step_key(compute, run, r, step);
  sqlite3_bind_int64(compute, 4, s->comm.compute_exposed_ns);
  return xp_db_step_done(xp_run_db(run), compute);
}

static int store_steps(xp_run *run, const tt_import *imp, const tt_rank *r) {
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT INTO trace_steps(run_id, rank, step, number, start_ns, wall_ns, gpu_start_ns,"
      " gpu_end_ns, kernels, kernel_ns, busy_ns) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
  sqlite3_stmt *comm = xp_run_stmt(run,
      "INSERT INTO trace_step_comm(run_id, rank, step, comm_ns, exposed_ns) VALUES (?1,?2,?3,?4,?5)");
  sqlite3_stmt *compute = xp_run_stmt(run,
      "INSERT INTO trace_step_comm_compute(run_id, rank, step, compute_exposed_ns) VALUES (?1,?2,?3,?4)");
  if (!st || !comm || !compute) return XP_EXIT_DB;
  for (size_t i = 0; i < r->steps.n; i++) {
    const tt_step *s = XP_VEC_AT(&r->steps, tt_step, i);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, xp_run_id(run));
    sqlite3_bind_int64(st, 2, r->rank);
    sqlite3_bind_int64(st, 3, (int64_t)i);
    sqlite3_bind_int64(st, 4, s->number);
    sqlite3_bind_int64(st, 5, s->start);
    sqlite3_bind_int64(st, 6, s->end - s->start);
    if (s->kernels) {
      sqlite3_bind_int64(st, 7, s->gpu_start);
      sqlite3_bind_int64(st, 8, s->gpu_end);
    }
    sqlite3_bind_int64(st, 9, s->kernels);
    sqlite3_bind_int64(st, 10, s->kernel_ns);
    sqlite3_bind_int64(st, 11, s->busy_ns);
    int rc = xp_db_step_done(xp_run_db(run), st);
    if (rc == 0 && s->comm.comm_ns) rc = store_step_comm(run, comm, compute, r, i, s);
    if (rc) return rc;
  }
  st = xp_run_stmt(run,
      "INSERT INTO trace_step_kernels(run_id, rank, step, name_id, coll, count, total_ns)"
      " VALUES (?1,?2,?3,?4,?5,?6,?7)");
  if (!st) return XP_EXIT_DB;
  for (size_t i = 0; i < r->stepk.n; i++) {
    const tt_stepk *k = XP_VEC_AT(&r->stepk, tt_stepk, i);
    uint32_t nm = TT_KEY_NAME(k->key);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, xp_run_id(run));
    sqlite3_bind_int64(st, 2, r->rank);
    sqlite3_bind_int64(st, 3, k->step);
    sqlite3_bind_int64(st, 4, name_id(imp, nm));
    xp_bind_text(st, 5, tt_coll_names[TT_KEY_COLL(k->key)]);
    sqlite3_bind_int64(st, 6, k->count);
    sqlite3_bind_int64(st, 7, k->total);
    int rc = xp_db_step_done(xp_run_db(run), st);
    if (rc) return rc;
  }
  return 0;
}

/* GPU annotations per step and name (tt_annot.c), the writer's widening taken off. A name that is
** not UTF-8 is stored mended; two that mend alike are two rows of one name, which the view sums. */
static int store_annotations(xp_run *run, const tt_import *imp, const tt_rank *r) {
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT INTO trace_annotations(run_id, rank, step, name, count, written_ns, widen_ns, total_ns)"
      " VALUES (?1,?2,?3,?4,?5,?6,?7,?8)");
  if (!st) return XP_EXIT_DB;
  for (size_t i = 0; i < r->annots.n; i++) {
    const tt_annot *a = XP_VEC_AT(&r->annots, tt_annot, i);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, xp_run_id(run));
    sqlite3_bind_int64(st, 2, r->rank);
    bind_opt_int(st, 3, a->step);
    xp_bind_text_n(st, 4, imp->annot_names.str[a->name], imp->annot_names.len[a->name]);
    sqlite3_bind_int64(st, 5, a->count);
    sqlite3_bind_int64(st, 6, a->written);
    sqlite3_bind_int64(st, 7, r->annot_widen);
    sqlite3_bind_int64(st, 8, a->written - r->annot_widen * a->count);
    int rc = xp_db_step_done(xp_run_db(run), st);
    if (rc) return rc;
  }
  return 0;
}

/* Split "name\x1fdesc\x1franks" in place. */
static void split3(char *s, char **a, char **b, char **c) {
  *a = s;
  *b = *c = NULL;
  char *p = strchr(s, 0x1f);
  if (!p) return;
  *p = 0;
  *b = p + 1;
  p = strchr(*b, 0x1f);
  if (!p) return;
  *p = 0;
  *c = p + 1;
}

/* A message's bytes from its args' element count; -1 (none) where the count is not given, or
** is past int64's bytes (a kernel's "In msg nelems" of 2^63 - 1), where the product overflowed. */
static int64_t msg_bytes(int64_t nelems, int32_t elem_size) {
  return nelems >= 0 && nelems <= INT64_MAX / elem_size ? nelems * elem_size : -1;
}

static int store_collectives(xp_run *run, const tt_import *imp, const tt_rank *r) {
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT INTO trace_collectives(run_id, rank, seq, name_id, collective, source, dtype, in_nelems,"
      " out_nelems, in_bytes, out_bytes, group_size, pg_name, pg_desc, pg_ranks, seq_arg, stream,"
      " device, step, start_ns, dur_ns, match_group, wait_ns, transfer_ns)"
      " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18,?19,?20,?21,?22,?23,?24)");
  if (!st) return XP_EXIT_DB;
  for (size_t i = 0; i < r->colls.n; i++) {
    const tt_collk *c = XP_VEC_AT(&r->colls, tt_collk, i);
    uint32_t nm = TT_KEY_NAME(c->key);
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    sqlite3_bind_int64(st, 1, xp_run_id(run));
    sqlite3_bind_int64(st, 2, r->rank);
    sqlite3_bind_int64(st, 3, (int64_t)i);
    sqlite3_bind_int64(st, 4, name_id(imp, nm));
    xp_bind_text(st, 5, tt_coll_names[c->coll]);
    xp_bind_text(st, 6, c->from_args ? "args" : "name");
    if (c->dtype >= 0) xp_bind_text(st, 7, imp->strs.str[c->dtype]);
    bind_opt_int(st, 8, c->in_nelems);
    bind_opt_int(st, 9, c->out_nelems);
    if (c->elem_size > 0) {
      bind_opt_int(st, 10, msg_bytes(c->in_nelems, c->elem_size));
      bind_opt_int(st, 11, msg_bytes(c->out_nelems, c->elem_size));
    }
    bind_opt_int(st, 12, c->group_size);
    char *pg = NULL, *a = NULL, *b = NULL, *d = NULL;
    if (c->pg >= 0) {
      pg = xp_strdup(imp->pgs.str[c->pg]);
      split3(pg, &a, &b, &d);
      xp_bind_text(st, 13, a);
      xp_bind_text(st, 14, b && *b ? b : NULL);
      xp_bind_text(st, 15, d && *d ? d : NULL);
    }
    bind_opt_int(st, 16, c->seq);
    bind_opt_int(st, 17, c->stream);
    bind_opt_int(st, 18, c->device);
    bind_opt_int(st, 19, c->step);
    sqlite3_bind_int64(st, 20, c->start);
    sqlite3_bind_int64(st, 21, c->end - c->start);
    if (c->group >= 0) {
      sqlite3_bind_int64(st, 22, c->group);
      sqlite3_bind_int64(st, 23, c->wait);
      sqlite3_bind_int64(st, 24, c->transfer);
    }
    int rc = xp_db_step_done(xp_run_db(run), st);
    free(pg);
    if (rc) return rc;
  }
  return 0;
}

static int store_shapes(xp_run *run, const tt_import *imp, const tt_rank *r) {
  /* Shapes that differ only in whitespace (or collective args) add up into one row. */
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT INTO trace_shapes(run_id, rank, name_id, op, input_dims, input_types, count, total_ns,"
      " min_ns, max_ns) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)"
      " ON CONFLICT DO UPDATE SET count = count + excluded.count, total_ns = total_ns + excluded.total_ns,"
      " min_ns = min(min_ns, excluded.min_ns), max_ns = max(max_ns, excluded.max_ns)");
  if (!st) return XP_EXIT_DB;
  for (size_t i = 0; i < r->shapes.n; i++) {
    const tt_shape *s = XP_VEC_AT(&r->shapes, tt_shape, i);
    uint32_t nm = TT_KEY_NAME(s->key);
    char *key = xp_strdup(imp->ops.str[s->op]), *op, *dims, *types;
    split3(key, &op, &dims, &types);
    char *cd = tt_json_compact(dims ? dims : "", dims ? strlen(dims) : 0);
    char *ct = tt_json_compact(types ? types : "", types ? strlen(types) : 0);
    sqlite3_reset(st);
    sqlite3_bind_int64(st, 1, xp_run_id(run));
    sqlite3_bind_int64(st, 2, r->rank);
    sqlite3_bind_int64(st, 3, name_id(imp, nm));
    xp_bind_text(st, 4, op);
    xp_bind_text(st, 5, cd);
    xp_bind_text(st, 6, ct);
    sqlite3_bind_int64(st, 7, s->count);
    sqlite3_bind_int64(st, 8, s->total);
    sqlite3_bind_int64(st, 9, s->min);
    sqlite3_bind_int64(st, 10, s->max);
    int rc = xp_db_step_done(xp_run_db(run), st);
    free(key);
    free(cd);
    free(ct);
    if (rc) return rc;
  }
  return 0;
}

static int store_gpus(xp_run *run, const tt_rank *r) {
  const cJSON *d = rank_device(r);
  if (!d) return 0;
  xp_gpu_info g;
  memset(&g, 0, sizeof g);
  g.index = (int)r->rank; /* the GPU of rank R: device ids repeat across hosts */
  snprintf(g.name, sizeof g.name, "%s", device_name(d) ? device_name(d) : "");
  int64_t ma = meta_int(d, "computeMajor"), mi = meta_int(d, "computeMinor");
  if (ma >= 0 && mi >= 0) snprintf(g.cc, sizeof g.cc, "%lld.%lld", (long long)ma, (long long)mi);
  g.sm_count = (int)meta_int(d, "numSms");
  g.mem_bytes = meta_int(d, "totalGlobalMem");
  g.clock_mhz = g.mem_clock_mhz = g.pcie_gen = g.pcie_width = -1;
  return xp_run_gpu(run, &g);
}

static int store_run_meta(xp_run *run, const tt_import *imp, const tt_options *opt) {
  const char *gpu = NULL;
  int same = 1;
  int64_t world = -1;
  for (int i = 0; i < imp->nranks; i++) {
    const cJSON *d = rank_device(imp->ranks[i]);
    const char *n = device_name(d);
    if (n && gpu && strcmp(n, gpu) != 0) same = 0;
    if (n && !gpu) gpu = n;
    if (imp->ranks[i]->world_size > 0) world = imp->ranks[i]->world_size;
  }
  int rc = 0;
  if (gpu && same) rc = xp_run_meta(run, "gpu_name", gpu, "trace");
  if (!rc) rc = xp_run_meta_int(run, "gpu_count", world > 0 ? world : imp->nranks, "trace");
  if (!rc) rc = xp_run_meta_int(run, "trace.ranks", imp->nranks, "trace");
  if (!rc && world > 0) rc = xp_run_meta_int(run, "trace.world_size", world, "trace");
  if (!rc) rc = xp_run_meta(run, "trace.single_rank", imp->single_rank ? "1" : "0", "trace");
  if (!rc) rc = xp_run_meta(run, "trace.step_annotation", tt_steps_marked_by(imp, opt), "trace");
  const cJSON *di = cJSON_GetObjectItemCaseSensitive(imp->ranks[0]->meta, "distributedInfo");
  if (!rc && meta_str(di, "nccl_version")) rc = xp_run_meta(run, "trace.nccl_version", meta_str(di, "nccl_version"), "trace");
  int64_t cuda = meta_int(imp->ranks[0]->meta, "cuda_runtime_version");
  if (!rc && cuda > 0) rc = xp_run_meta_int(run, "trace.cuda_runtime_version", cuda, "trace");
  /* ROCm's Kineto writes HIP's where CUDA's writes its own (hipRuntimeGetVersion: 70125424 is
  ** HIP 7.1.25424, as the ROCm 7 traces of AMD-AGI/TraceLens hold it) */
  int64_t hip = meta_int(imp->ranks[0]->meta, "hip_runtime_version");
  if (!rc && hip > 0) rc = xp_run_meta_int(run, "trace.hip_runtime_version", hip, "trace");
  /* events written with no time, left out (tt_read.c read_untimed): where the import found any */
  if (!rc && imp->untimed_events) rc = xp_run_meta_int(run, "trace.untimed_events", imp->untimed_events, "trace");
  return rc;
}

int tt_store_import(xp_run *run, tt_import *imp, const tt_options *opt, int64_t events_kept) {
  names_distinct(imp);
  int rc = xp_run_results_begin(run);
  if (!rc) rc = store_names(run, imp);
  if (!rc) rc = store_run_meta(run, imp, opt);
  for (int i = 0; i < imp->nranks && !rc; i++) {
    const tt_rank *r = imp->ranks[i];
    rc = store_rank(run, r);
    if (!rc) rc = store_kernels(run, imp, r);
    if (!rc) rc = store_steps(run, imp, r);
    if (!rc) rc = store_annotations(run, imp, r);
    if (!rc) rc = store_collectives(run, imp, r);
    if (!rc) rc = store_shapes(run, imp, r);
    if (!rc) rc = store_gpus(run, r);
  }
  if (rc) return rc;
  sqlite3_stmt *st = xp_run_stmt(run,
      "INSERT INTO trace_imports(run_id, ranks, world_size, single_rank, step_annotation, coll_matched,"
      " coll_unmatched, match_groups, match_method, events_kept) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10)");
  if (!st) return XP_EXIT_DB;
  int64_t world = -1;
  for (int i = 0; i < imp->nranks; i++)
    if (imp->ranks[i]->world_size > 0) world = imp->ranks[i]->world_size;
  sqlite3_bind_int64(st, 1, xp_run_id(run));
  sqlite3_bind_int(st, 2, imp->nranks);
  bind_opt_int(st, 3, world);
  sqlite3_bind_int(st, 4, imp->single_rank);
  xp_bind_text(st, 5, tt_steps_marked_by(imp, opt));
  sqlite3_bind_int64(st, 6, imp->matched);
  sqlite3_bind_int64(st, 7, imp->unmatched);
  sqlite3_bind_int64(st, 8, imp->match_groups);
  xp_bind_text(st, 9, imp->match_note);
  sqlite3_bind_int64(st, 10, events_kept);
  return xp_db_step_done(xp_run_db(run), st);
}
