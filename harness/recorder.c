/*
** The recorder: every result enters the database through these functions, so the lifecycle
** rules hold for every kind (see recorder.h). The run row and its gathered metadata are
** committed before any work starts; results and the final status are one transaction.
*/
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "chain.h"
#include "db.h"
#include "gpu_watch.h"
#include "kind.h"
#include "meta.h"
#include "recorder.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "gpu.h"
#endif

typedef struct stmt_cache {
  char *sql;
  sqlite3_stmt *st;
  struct stmt_cache *next;
} stmt_cache;

struct xp_run {
  sqlite3 *db;
  int64_t id;
  char uuid[37];
  char *kind;
  int in_tx;
  int within;          /* begun in another run's transaction (xp_run_begin_within): commits with it */
  int next_case_seq;
  stmt_cache *cache;
  xp_gpu_watch *watch; /* the GPUs' state while a measured run runs (gpu_watch.h) */
};

/* Keys copied into runs columns, and whether the column is an INTEGER. */
static const struct { const char *key; int integer; } flat_keys[] = {
    {"model", 0}, {"engine", 0}, {"tp", 1}, {"ep", 1}, {"pp", 1}, {"batch", 1},
    {"concurrency", 1}, {"dtype", 0}, {"quantization", 0}, {"interconnect", 0},
    {"gpu_name", 0}, {"gpu_count", 1}, {"host", 0}, {NULL, 0}};

const char *xp_run_uuid(const xp_run *r) { return r->uuid; }
int64_t xp_run_id(const xp_run *r) { return r->id; }
sqlite3 *xp_run_db(xp_run *r) { return r->db; }
const char *xp_run_kind(const xp_run *r) { return r->kind; }

sqlite3_stmt *xp_run_stmt(xp_run *r, const char *sql) {
  for (stmt_cache *c = r->cache; c; c = c->next)
    if (strcmp(c->sql, sql) == 0) {
      sqlite3_reset(c->st);
      sqlite3_clear_bindings(c->st);
      return c->st;
    }
  sqlite3_stmt *st = xp_db_prepare(r->db, sql);
  if (!st) return NULL;
  stmt_cache *c = xp_xmalloc(sizeof *c);
  *c = (stmt_cache){xp_strdup(sql), st, r->cache};
  r->cache = c;
  return st;
}

int xp_run_results_begin(xp_run *r) {
  if (r->in_tx) return 0;
  int rc = xp_db_begin(r->db);
  if (rc == 0) r->in_tx = 1;
  return rc;
}

/* ---- metadata ---- */

static int flat_index(const char *key) {
  for (int i = 0; flat_keys[i].key; i++)
    if (strcmp(flat_keys[i].key, key) == 0) return i;
  return -1;
}

static int set_flat_column(xp_run *r, int idx, const char *value) {
  char sql[128];
  snprintf(sql, sizeof sql, "UPDATE runs SET %s = ?1 WHERE id = ?2", flat_keys[idx].key);
  sqlite3_stmt *st = xp_run_stmt(r, sql);
  if (!st) return XP_EXIT_DB;
  int64_t iv;
  if (!value) sqlite3_bind_null(st, 1);
  else if (flat_keys[idx].integer && xp_parse_int64(value, &iv) == 0) sqlite3_bind_int64(st, 1, iv);
  else if (flat_keys[idx].integer) {
    xp_warn("metadata %s = \"%s\" is not an integer; kept as metadata only", flat_keys[idx].key, value);
    return 0;
  } else xp_bind_text(st, 1, value);
  sqlite3_bind_int64(st, 2, r->id);
  return xp_db_step_done(r->db, st);
}

static int lookup_meta(xp_run *r, const char *key, const char *source, char *out, size_t n) {
  sqlite3_stmt *st = xp_run_stmt(r, "SELECT value FROM run_meta WHERE run_id=?1 AND key=?2 AND source=?3");
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, r->id);
  xp_bind_text(st, 2, key);
  xp_bind_text(st, 3, source);
  int found = -1;
  if (sqlite3_step(st) == SQLITE_ROW) {
    const unsigned char *v = sqlite3_column_text(st, 0);
    snprintf(out, n, "%s", v ? (const char *)v : "");
    found = 0;
  }
  sqlite3_reset(st);
  return found;
}

static int put_meta(xp_run *r, const char *key, const char *value, const char *source) {
  sqlite3_stmt *st = xp_run_stmt(r, "INSERT OR REPLACE INTO run_meta(run_id, key, source, value) VALUES (?1, ?2, ?3, ?4)");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, r->id);
  xp_bind_text(st, 2, key);
  xp_bind_text(st, 3, source);
  xp_bind_text(st, 4, value);
  return xp_db_step_done(r->db, st);
}

/* Declared and detected facts are both kept; the detected one is what the run really had,
** so it wins in the flattened column, and a disagreement is said out loud and recorded. */
static int meta_write(xp_run *r, const char *key, const char *value, const char *source) {
  int rc = put_meta(r, key, value, source);
  int idx = flat_index(key);
  if (rc || idx < 0) return rc;
  int detected = strcmp(source, "detected") == 0 || strcmp(source, "trace") == 0;
  char other[512];
  const char *other_src = detected ? "declared" : "detected";
  int have_other = lookup_meta(r, key, other_src, other, sizeof other) == 0;
  if (!detected && !have_other) have_other = lookup_meta(r, key, other_src = "trace", other, sizeof other) == 0;
  if (have_other && value && strcmp(other, value) != 0) {
    const char *decl = detected ? other : value, *det = detected ? value : other;
    xp_warn("%s: declared \"%s\" but detected \"%s\"; recording the detected value", key, decl, det);
    char *note = xp_asprintf("declared %s, detected %s", decl, det);
    char *mkey = xp_asprintf("mismatch.%s", key);
    rc = put_meta(r, mkey, note, "detected");
    free(note);
    free(mkey);
    if (rc) return rc;
  }
  if (detected || !have_other) return set_flat_column(r, idx, value);
  return 0;
}

int xp_run_meta(xp_run *r, const char *key, const char *value, const char *source) {
  int rc = xp_run_results_begin(r);
  return rc ? rc : meta_write(r, key, value, source);
}

int xp_run_meta_int(xp_run *r, const char *key, int64_t value, const char *source) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)value);
  return xp_run_meta(r, key, buf, source);
}

static int meta_from_object(xp_run *r, const cJSON *o, const char *source) {
  const cJSON *e;
  cJSON_ArrayForEach(e, o) {
    int rc = meta_write(r, e->string, cJSON_IsString(e) ? e->valuestring : NULL, source);
    if (rc) return rc;
  }
  return 0;
}

/* st, with text parameter 1 bound to a (and integer parameter 2 to id where id > 0), run to its
** first row: that row's first column, malloc'd, into *row where row is given. 0, or XP_EXIT_DB
** (said). */
static int probe_step(xp_run *r, const char *sql, const char *a, int64_t id, char **row) {
  sqlite3_stmt *st = xp_run_stmt(r, sql);
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, a);
  if (id > 0) sqlite3_bind_int64(st, 2, id);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW && row && sqlite3_column_text(st, 0)) *row = xp_strdup((const char *)sqlite3_column_text(st, 0));
  sqlite3_reset(st);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : xp_db_fail(r->db, "gpu spelling");
}

/* A declared GPU as this database already spells it ("H200" declared, "NVIDIA H200" detected
** before), so that one GPU does not make two configurations; NULL where no other run's GPU name
** folds like it, or where the spelling is the declared name. Which names are one GPU, and which
** of them a configuration shows, is schema 19's views' rule alone (gpu_fold, gpu_spelling). The
** declared name is folded by gpu_fold with this run's name set to it, in a savepoint rolled back
** at once, so the probe leaves nothing behind; the spelling is then asked with the run's name
** unset, as the runs before it spell that GPU. Malloc'd; on a database error NULL, the name as
** written, which is never wrong. */
static char *gpu_as_recorded(xp_run *r, const char *declared) {
  if (xp_db_exec(r->db, "SAVEPOINT gpu_probe") != 0) return NULL;
  char *other = NULL, *spelled = NULL;
  if (probe_step(r, "UPDATE runs SET gpu_name = ?1 WHERE id = ?2", declared, r->id, NULL) == 0)
    probe_step(r, "SELECT b.name FROM gpu_fold a JOIN gpu_fold b ON b.fold = a.fold"
                  " WHERE a.name = ?1 AND b.name <> ?1 ORDER BY b.name LIMIT 1", declared, 0, &other);
  if (xp_db_exec(r->db, "ROLLBACK TO gpu_probe; RELEASE gpu_probe") == 0 && other)
    probe_step(r, "SELECT spelled FROM gpu_spelling WHERE name = ?1", other, 0, &spelled);
  free(other);
  if (spelled && strcmp(spelled, declared) == 0) {
    free(spelled);
    spelled = NULL;
  }
  return spelled;
}

/* The spec's declared facts, as strings (arrays such as tags are kept as JSON text). */
static int meta_declared(xp_run *r, const cJSON *spec) {
  for (const xp_field *f = xp_declared_fields; f->key; f++) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(spec, f->key);
    if (!v) continue;
    char *text = cJSON_IsString(v) ? xp_strdup(v->valuestring) : cJSON_PrintUnformatted(v);
    char *spelt = strcmp(f->key, "gpu") == 0 ? gpu_as_recorded(r, text) : NULL;
    if (spelt) {
      xp_warn("gpu: declared \"%s\", which this database's runs name \"%s\": recorded as \"%s\"", text, spelt,
              spelt);
      free(text);
      text = spelt;
    }
    /* the GPU count and name file under the keys that the detected ones use, which win */
    const char *key = strcmp(f->key, "gpus_declared") == 0 ? "gpu_count" : strcmp(f->key, "gpu") == 0 ? "gpu_name" : f->key;
    int rc = meta_write(r, key, text, "declared");
    free(text);
    if (rc) return rc;
  }
  return 0;
}

int xp_run_gpu(xp_run *r, const xp_gpu_info *g) {
  int rc = xp_run_results_begin(r);
  if (rc) return rc;
  sqlite3_stmt *st = xp_run_stmt(r,
      "INSERT OR REPLACE INTO run_gpus(run_id, idx, name, uuid, pci_bus_id, cc, sm_count, mem_bytes,"
      " clock_mhz, mem_clock_mhz, pcie_gen, pcie_width) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12)");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, r->id);
  sqlite3_bind_int(st, 2, g->index);
  xp_bind_text(st, 3, g->name[0] ? g->name : NULL);
  xp_bind_text(st, 4, g->uuid[0] ? g->uuid : NULL);
  xp_bind_text(st, 5, g->pci_bus_id[0] ? g->pci_bus_id : NULL);
  xp_bind_text(st, 6, g->cc[0] ? g->cc : NULL);
  const int64_t nums[] = {g->sm_count, g->mem_bytes, g->clock_mhz, g->mem_clock_mhz, g->pcie_gen, g->pcie_width};
  for (int i = 0; i < 6; i++) {
    if (nums[i] < 0) sqlite3_bind_null(st, 7 + i);
    else sqlite3_bind_int64(st, 7 + i, nums[i]);
  }
  return xp_db_step_done(r->db, st);
}

/* ---- begin ---- */

/* The run handle and its cached statements (the database rows are not touched). */
static void run_free(xp_run *r) {
  for (stmt_cache *c = r->cache, *n; c; c = n) {
    n = c->next;
    sqlite3_finalize(c->st);
    free(c->sql);
    free(c);
  }
  xp_gpu_watch_free(r->watch);
  free(r->kind);
  free(r);
}

int xp_spec_devices(const cJSON *root, int all_by_default, int visible, int *used, int max) {
  const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "gpus"), *e;
  int n = 0;
  if (cJSON_IsArray(list)) {
    cJSON_ArrayForEach(e, list) if (n < max && cJSON_IsNumber(e)) used[n++] = xp_saturate_int(e->valuedouble);
  } else if (cJSON_GetObjectItemCaseSensitive(root, "device")) {
    if (max > 0) used[n++] = (int)xp_spec_int(root, "device", 0);
  } else if (all_by_default) {
    for (int d = 0; d < visible && n < max; d++) used[n++] = d;
  } else if (max > 0) {
    used[n++] = 0;
  }
  return n;
}

const char *xp_devices_gpu_name(const char *const *names, int nnames, const int *used, int nused) {
  const char *name = NULL;
  for (int i = 0; i < nused; i++) {
    if (used[i] < 0 || used[i] >= nnames || !names[used[i]] || !*names[used[i]]) continue;
    if (name && strcmp(name, names[used[i]]) != 0) return NULL;
    name = names[used[i]];
  }
  return name;
}

#ifdef XP_HAVE_CUDA
/* Whether a kind's spec lists the devices a run drives (`gpus`, every visible one by default), as
** nccl_burst's does, where the other GPU kinds name one `device`. */
static int kind_takes_gpus(const char *name) {
  const xp_kind *k = xp_kind_find(name);
  for (const xp_field *f = k ? k->fields : NULL; f && f->key; f++)
    if (strcmp(f->key, "gpus") == 0) return 1;
  return 0;
}

/* Every visible GPU and the libraries' versions, and the GPU the run is filed under: that of the
** devices its spec drives, where it was device 0's whatever the spec said. */
static int record_gpus(xp_run *r, const xp_run_opts *o) {
  enum { MAX_USED = 4096 };
  int *used = xp_xmalloc(sizeof *used * MAX_USED);
  int nused = xp_spec_devices(o->spec->root, kind_takes_gpus(o->kind), xp_gpu_count(), used, MAX_USED);
  int rc = xp_gpu_record_all(r, used, nused, &r->watch);
  free(used);
  return rc;
}
#endif

/* The spec's top-level keys that --set gave, as a JSON list (run_meta spec.set): a path among
** them was the shell's, from the working folder, where the spec's own resolve under its folder,
** and the stored spec no longer tells which is which. xp rerun reads them back. Recorded for a
** spec file (or a rerun of one), where the two folders differ; nothing where --set gave none. */
static int meta_set_keys(xp_run *r, const xp_spec *spec) {
  cJSON *keys = cJSON_CreateArray();
  const cJSON *e;
  cJSON_ArrayForEach(e, spec->root) {
    if (xp_spec_line(spec, e->string) < 0) cJSON_AddItemToArray(keys, cJSON_CreateString(e->string));
  }
  char *text = cJSON_GetArraySize(keys) ? cJSON_PrintUnformatted(keys) : NULL;
  int rc = text ? put_meta(r, "spec.set", text, "declared") : 0;
  free(text);
  cJSON_Delete(keys);
  return rc;
}

/* A run begun: its row committed, or inside `within`'s transaction where that is given. */
static int run_begin(sqlite3 *db, const xp_run_opts *o, xp_run *within, xp_run **out) {
  *out = NULL;
  xp_run *r = xp_xcalloc(1, sizeof *r);
  r->db = db;
  r->kind = xp_strdup(o->kind);
  if (xp_uuid4(r->uuid) != 0) {
    free(r->kind);
    free(r);
    return xp_error(XP_EXIT_ENV, "cannot generate a run id: no randomness available");
  }
  char now[40], sha[65];
  xp_now_iso8601(now, sizeof now);
  char *spec_json = xp_json_canonical(o->spec->root);
  xp_sha256_hex(spec_json, strlen(spec_json), sha);
  /* a rerun's spec is the stored copy (its path a label): the file is its parent's (spec_path
  ** below), under whose folder a rerun of the rerun finds what the spec names */
  int is_file = !o->parent_uuid && o->spec->path && o->spec->path[0] != '<';
  cJSON *host = xp_meta_host(), *sw = xp_meta_software(is_file ? o->spec->path : NULL);
  cJSON *env = xp_meta_env();

  /* a later job of an import: inside the first job's transaction, so that the import's runs
  ** commit together, where each committed on its own and a fault at job 2 left job 1 ok */
  r->within = within != NULL;
  int rc = within ? xp_run_results_begin(within) : xp_db_begin(db);
  if (rc) goto fail; /* not `done`: r is freed there (leaked when the database was locked) */
  r->in_tx = 1;
  sqlite3_stmt *st = xp_run_stmt(r,
      "INSERT INTO runs(uuid, kind, origin, status, started_at, pid, host, boot_id, spec_json,"
      " spec_sha256, spec_path, parent_uuid, xp_version, xp_commit)"
      " VALUES (?1, ?2, ?3, 'running', ?4, ?5, ?6, ?7, ?8, ?9,"
      " coalesce(?10, (SELECT spec_path FROM runs WHERE uuid = ?11)), ?11, ?12, ?13)");
  if (!st) { rc = XP_EXIT_DB; goto fail; }
  xp_bind_text(st, 1, r->uuid);
  xp_bind_text(st, 2, o->kind);
  xp_bind_text(st, 3, o->imported ? "imported" : "measured");
  xp_bind_text(st, 4, now);
  sqlite3_bind_int64(st, 5, (int64_t)getpid());
  xp_bind_text(st, 6, xp_meta_hostname());
  xp_bind_text(st, 7, xp_meta_boot_id());
  xp_bind_text(st, 8, spec_json);
  xp_bind_text(st, 9, sha);
  xp_bind_text(st, 10, is_file ? o->spec->path : NULL);
  xp_bind_text(st, 11, o->parent_uuid);
  xp_bind_text(st, 12, xp_build_version);
  char commit[64];
  snprintf(commit, sizeof commit, "%s%s", xp_build_commit, xp_build_dirty ? "-dirty" : "");
  xp_bind_text(st, 13, commit);
  if ((rc = xp_db_step_done(db, st)) != 0) goto fail;
  r->id = sqlite3_last_insert_rowid(db);

  /* For an import, this host only read the files: its facts are kept under import.*, and the
  ** importer records the traced system's own facts with source 'trace'. runs.host always names
  ** the recording host, which is what tells a dead recording process from a live one. */
  if (o->imported) {
    const cJSON *e;
    cJSON_ArrayForEach(e, host) {
      char *k = xp_asprintf("import.%s", e->string);
      rc = put_meta(r, k, e->valuestring, "detected");
      free(k);
      if (rc) goto fail;
    }
  } else if ((rc = meta_from_object(r, host, "detected")) != 0) goto fail;
  if ((rc = meta_from_object(r, sw, "detected")) != 0) goto fail;
  if ((rc = meta_from_object(r, env, "env")) != 0) goto fail;
  if ((rc = meta_declared(r, o->spec->root)) != 0) goto fail;
  if ((is_file || o->parent_uuid) && (rc = meta_set_keys(r, o->spec)) != 0) goto fail;
  if (!o->imported && (rc = meta_write(r, "host", xp_meta_hostname(), "detected")) != 0) goto fail;
#ifdef XP_HAVE_CUDA
  if (o->collect_gpus && (rc = record_gpus(r, o)) != 0) goto fail;
#endif
  if (r->within) { /* committed by the run it was begun within */
    *out = r;
    goto done;
  }
  if ((rc = xp_db_commit(db)) != 0) goto fail_committed;
  r->in_tx = 0;
  *out = r;
  goto done;
fail:
  if (!r->within) xp_db_rollback(db); /* else the run it was begun within is failed, which rolls back */
fail_committed:
  r->in_tx = 0;
  run_free(r);
done:
  free(spec_json);
  cJSON_Delete(host);
  cJSON_Delete(sw);
  cJSON_Delete(env);
  return rc;
}

int xp_run_begin(sqlite3 *db, const xp_run_opts *o, xp_run **out) { return run_begin(db, o, NULL, out); }

int xp_run_begin_within(xp_run *within, const xp_run_opts *o, xp_run **out) {
  return run_begin(within->db, o, within, out);
}

/* ---- results ---- */

int64_t xp_run_case(xp_run *r, const char *name, const cJSON *params, const char *status,
                    const char *note) {
  if (xp_run_results_begin(r)) return -1;
  sqlite3_stmt *st = xp_run_stmt(r, "INSERT INTO cases(run_id, seq, name, params, status, note) VALUES (?1,?2,?3,?4,?5,?6)");
  if (!st) return -1;
  char *p = params ? xp_json_canonical(params) : xp_strdup("{}");
  sqlite3_bind_int64(st, 1, r->id);
  sqlite3_bind_int(st, 2, r->next_case_seq++);
  xp_bind_text(st, 3, name);
  xp_bind_text(st, 4, p);
  xp_bind_text(st, 5, status ? status : "ok");
  xp_bind_text(st, 6, note);
  int rc = xp_db_step_done(r->db, st);
  free(p);
  return rc ? -1 : sqlite3_last_insert_rowid(r->db);
}

static int insert_metric(xp_run *r, int64_t case_id, const char *metric, const char *unit,
                         const xp_stats *s) {
  sqlite3_stmt *st = xp_run_stmt(r,
      "INSERT INTO metrics(case_id, name, unit, n, median, mean, p10, p90, min, max, stddev)"
      " VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, case_id);
  xp_bind_text(st, 2, metric);
  xp_bind_text(st, 3, unit);
  sqlite3_bind_int64(st, 4, (int64_t)s->n);
  const double v[] = {s->median, s->mean, s->p10, s->p90, s->min, s->max, s->stddev};
  for (int i = 0; i < 7; i++) {
    if (v[i] != v[i]) sqlite3_bind_null(st, 5 + i); /* NaN: no value */
    else sqlite3_bind_double(st, 5 + i, v[i]);
  }
  return xp_db_step_done(r->db, st);
}

int xp_run_metric(xp_run *r, int64_t case_id, const char *metric, const char *unit,
                  const double *samples, size_t n) {
  int rc = xp_run_results_begin(r);
  if (rc) return rc;
  xp_stats s;
  xp_stats_compute(samples, n, &s);
  if ((rc = insert_metric(r, case_id, metric, unit, &s)) != 0) return rc;
  sqlite3_stmt *st = xp_run_stmt(r, "INSERT INTO samples(case_id, metric, seq, value) VALUES (?1,?2,?3,?4)");
  if (!st) return XP_EXIT_DB;
  for (size_t i = 0; i < n; i++) {
    sqlite3_bind_int64(st, 1, case_id);
    xp_bind_text(st, 2, metric);
    sqlite3_bind_int64(st, 3, (int64_t)i);
    sqlite3_bind_double(st, 4, samples[i]);
    if ((rc = xp_db_step_done(r->db, st)) != 0) return rc;
  }
  return 0;
}

int xp_run_value(xp_run *r, int64_t case_id, const char *metric, const char *unit, double v) {
  int rc = xp_run_results_begin(r);
  if (rc) return rc;
  xp_stats s = {1, v, v, v, v, v, v, 0};
  return insert_metric(r, case_id, metric, unit, &s);
}

int xp_run_artifact(xp_run *r, const char *name, const char *media_type, const void *data,
                    size_t len) {
  int rc = xp_run_results_begin(r);
  if (rc) return rc;
  uLongf clen = compressBound((uLong)len);
  unsigned char *z = xp_xmalloc(clen);
  if (compress2(z, &clen, data, (uLong)len, 6) != Z_OK) {
    free(z);
    return xp_error(XP_EXIT_FAILED, "compressing artifact %s failed", name);
  }
  char sha[65];
  xp_sha256_hex(data, len, sha);
  sqlite3_stmt *st = xp_run_stmt(r,
      "INSERT OR REPLACE INTO artifacts(run_id, name, media_type, encoding, size, sha256, data)"
      " VALUES (?1,?2,?3,'zlib',?4,?5,?6)");
  if (!st) { free(z); return XP_EXIT_DB; }
  sqlite3_bind_int64(st, 1, r->id);
  xp_bind_text(st, 2, name);
  xp_bind_text(st, 3, media_type);
  sqlite3_bind_int64(st, 4, (int64_t)len);
  xp_bind_text(st, 5, sha);
  sqlite3_bind_blob(st, 6, z, (int)clen, SQLITE_TRANSIENT);
  rc = xp_db_step_done(r->db, st);
  free(z);
  return rc;
}

char *xp_artifact_bytes(const char *encoding, const void *data, size_t stored, int64_t size, size_t *len) {
  if (size < 0 || !data || !encoding) return NULL;
  char *text = xp_xmalloc((size_t)size + 1);
  uLongf got = (uLongf)size;
  const int ok = strcmp(encoding, "zlib") == 0
                     ? uncompress((Bytef *)text, &got, data, (uLong)stored) == Z_OK && got == (uLongf)size
                     : strcmp(encoding, "identity") == 0 && stored == (size_t)size && memcpy(text, data, stored);
  if (!ok) {
    free(text);
    return NULL;
  }
  text[size] = 0;
  *len = (size_t)size;
  return text;
}

/* ---- finish ---- */

static int write_status(xp_run *r, const char *status, const char *error) {
  char now[40];
  xp_now_iso8601(now, sizeof now);
  sqlite3_stmt *st = xp_run_stmt(r, "UPDATE runs SET status=?1, error=?2, finished_at=?3 WHERE id=?4");
  if (!st) return XP_EXIT_DB;
  xp_bind_text(st, 1, status);
  xp_bind_text(st, 2, error && *error ? error : NULL);
  xp_bind_text(st, 3, now);
  sqlite3_bind_int64(st, 4, r->id);
  int rc = xp_db_step_done(r->db, st);
  if (rc == 0) rc = xp_chain_seal(r->db, r->id); /* content hash and chain link (chain.c) */
  return rc;
}

void xp_run_discard(xp_run *r) {
  if (r->in_tx) xp_db_rollback(r->db);
  r->in_tx = 0;
}

/* A run begun within another's transaction: its status and seal are written there, for that run's
** finish to commit; one that did not end ok writes nothing, its row going with the rollback that
** failing the other run makes. */
static int finish_within(xp_run *r, enum xp_run_status status, const char *error) {
  const int rc = status == XP_RUN_OK ? write_status(r, "ok", error) : 0;
  run_free(r);
  return rc;
}

int xp_run_finish(xp_run *r, enum xp_run_status status, const char *error) {
  int rc = 0;
  if (r->within) return finish_within(r, status, error);
  /* Nothing of a failed run's results survives: no partial data can look like a result. */
  if (status == XP_RUN_FAILED) xp_run_discard(r);
  if ((rc = xp_run_results_begin(r)) == 0) {
    rc = xp_gpu_watch_finish(r->watch, r);
    r->watch = NULL;
    if (rc == 0) rc = write_status(r, status == XP_RUN_OK ? "ok" : status == XP_RUN_ABORTED ? "aborted" : "failed",
                      error);
    if (rc == 0) rc = xp_db_commit(r->db);
    else xp_db_rollback(r->db);
    r->in_tx = 0;
  }
  if (rc && status != XP_RUN_FAILED) {
    /* The results could not be committed (disk full, ...): keep the run, marked failed. */
    char *msg = xp_asprintf("results could not be recorded: %s", xp_last_error());
    if (xp_run_results_begin(r) == 0) {
      if (write_status(r, "failed", msg) == 0 && xp_db_commit(r->db) == 0) {}
      else xp_db_rollback(r->db);
    }
    free(msg);
  }
  run_free(r);
  return rc;
}
