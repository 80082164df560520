/*
** xp rerun RUN: the same experiment again. The spec comes from the database (the copy stored
** with the run), not from the file on disk, which may have changed since. The new run goes
** through the same lifecycle as xp run (or xp import, for imported runs: the files are read
** again), carries parent_uuid = the old run, and xp says what differs between the two runs'
** circumstances: xp's commit, the environment (env.*), the hardware (GPUs, driver, host).
** `xp compare OLD NEW` is then the reproducibility check.
*/
#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "db.h"
#include "history.h"
#include "kind.h"
#include "models.h"
#include "runref.h"
#include "torch_trace/tt_source.h"
#include "xp.h"

static const char usage[] =
    "usage: xp rerun RUN [--dry-run]\n"
    "  Runs the spec stored with RUN (a UUID or unique prefix) again, as a new run whose\n"
    "  parent is RUN; imported runs are imported again from the same files. Warns when xp's\n"
    "  commit, the environment (env.*) or the hardware (GPUs, driver, libraries, host) differ\n"
    "  from RUN's, and where an imported file's contents changed since (written over by the\n"
    "  benchmark run again: another measurement; --dry-run says it too). Then `xp compare RUN\n"
    "  NEW` checks that the results reproduce. A gemm run whose model file changed since\n"
    "  (gemm.model_sha256) is refused: the stored spec would measure other shapes.\n"
    "  A spec run by a relative path (xp run experiments/x.toml) is found again, with the\n"
    "  model files and other paths it names, from the current folder: rerun from the same one.\n"
    "  A path --set gave (--set model_file=..., files=...) is found from the current folder,\n"
    "  as the run found it.\n"
    "  --dry-run  print what would be measured; record nothing\n";

typedef enum { FACT_COMMIT, FACT_ENV, FACT_HARDWARE, FACT_OTHER } fact_class;

static fact_class classify(const char *key) {
  static const char *const hardware[] = {"gpus", "gpu_name", "gpu_count", "gpus_visible",
      "interconnect", "host", NULL};
  /* hip. and rocm.: the HIP and ROCm an RCCL log states (the nccl-tests importer), AMD's
  ** counterparts of cuda.runtime and cuda.driver_api */
  static const char *const hardware_prefixes[] = {"gpu.", "host.", "cuda.", "hip.", "rocm.", "nccl.version",
      "cublas.", "ceilings.gpu", NULL};
  if (strcmp(key, "xp_commit") == 0 || strncmp(key, "xp.", 3) == 0) return FACT_COMMIT;
  if (strncmp(key, "env.", 4) == 0) return FACT_ENV;
  for (int i = 0; hardware[i]; i++)
    if (strcmp(key, hardware[i]) == 0) return FACT_HARDWARE;
  for (int i = 0; hardware_prefixes[i]; i++)
    if (strncmp(key, hardware_prefixes[i], strlen(hardware_prefixes[i])) == 0) return FACT_HARDWARE;
  return FACT_OTHER;
}

static int warn_differences(sqlite3 *db, int64_t old_id, const char *new_uuid) {
  int64_t new_id;
  int rc = xp_resolve_run(db, new_uuid, &new_id, NULL);
  if (rc) return rc;
  cJSON *a = xp_run_facts(db, &old_id, 1, &rc);
  cJSON *b = rc ? NULL : xp_run_facts(db, &new_id, 1, &rc);
  if (rc == 0) {
    static const char *const names[] = {"xp commit", "environment", "hardware"};
    cJSON *diff = xp_fact_differences(a, b);
    int others = 0;
    const cJSON *d;
    cJSON_ArrayForEach(d, diff) {
      const char *key = cJSON_GetObjectItem(d, "key")->valuestring;
      fact_class c = classify(key);
      if (c == FACT_OTHER) {
        others++;
        continue;
      }
      xp_warn("%s differs: %s was %s, now %s", names[c], key,
              cJSON_GetObjectItem(d, "a")->valuestring, cJSON_GetObjectItem(d, "b")->valuestring);
    }
    if (others) xp_warn("%d other metadata value%s differ (xp compare lists them)", others, others == 1 ? "" : "s");
    cJSON_Delete(diff);
  }
  cJSON_Delete(a);
  cJSON_Delete(b);
  return rc;
}

/* An import's files read again whose contents changed since (a log or result file written over
** by the benchmark run again into the same path): the rerun is another measurement, which
** the queries count as such (XP_SQL_REIMPORTED pairs imports by their files' SHA-256), not
** the same one imported again, though it said "checks that it reproduces" alone. */
static void warn_other_files(sqlite3 *db, int64_t old_id, const char *old, int64_t new_id) {
  sqlite3_stmt *st = xp_db_prepare(db,
      "SELECT a.name FROM artifacts a WHERE a.run_id = ?1 AND NOT EXISTS (SELECT 1 FROM artifacts b"
      " WHERE b.run_id = ?2 AND b.name = a.name AND b.sha256 IS a.sha256) ORDER BY a.name");
  if (!st) return;
  sqlite3_bind_int64(st, 1, old_id);
  sqlite3_bind_int64(st, 2, new_id);
  while (sqlite3_step(st) == SQLITE_ROW)
    xp_warn("%s is not the file run %.8s imported (its contents changed since): the rerun is another"
            " measurement, not the same one read again", (const char *)sqlite3_column_text(st, 0), old);
  sqlite3_finalize(st);
}

/* The keys the run's --set gave (run_meta spec.set), marked so again: a path among them resolves
** from the working folder, as the run's did, where the spec's own resolve under its folder. A
** rerun resolved them all under the spec's ("specs/specs/log.txt: cannot read"). */
static void mark_set_keys(sqlite3 *db, int64_t id, xp_spec *spec) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT value FROM run_meta WHERE run_id = ?1 AND key = 'spec.set'");
  if (!st) return;
  sqlite3_bind_int64(st, 1, id);
  cJSON *keys = sqlite3_step(st) == SQLITE_ROW ? cJSON_Parse((const char *)sqlite3_column_text(st, 0)) : NULL;
  const cJSON *k;
  cJSON_ArrayForEach(k, keys) {
    if (cJSON_IsString(k)) xp_spec_mark_cli(spec, k->valuestring);
  }
  cJSON_Delete(keys);
  sqlite3_finalize(st);
}

/* A run of one job of a file holding several (run_meta nccl_tests.job "2 of 2: lines 177 to the
** end") reruns that job alone: its spec names the job where it was recorded before the spec key
** "job" was there (each job's run stores the file's spec), which reread every job as a run. */
static void pin_job(sqlite3 *db, int64_t id, xp_spec *spec) {
  if (cJSON_GetObjectItemCaseSensitive(spec->root, "job")) return;
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT value FROM run_meta WHERE run_id = ?1 AND key = 'nccl_tests.job'");
  if (!st) return;
  sqlite3_bind_int64(st, 1, id);
  const int job = sqlite3_step(st) == SQLITE_ROW ? atoi((const char *)sqlite3_column_text(st, 0)) : 0;
  if (job > 0) cJSON_AddNumberToObject(spec->root, "job", job);
  sqlite3_finalize(st);
}

/* The stored spec, with relative paths resolving where the original spec file was; else NULL
** and *rc: 3 where the database could not be read (a damaged runs table was 'bad input', exit
** 2), 2 where the spec could not be parsed. */
static xp_spec *stored_spec(sqlite3 *db, int64_t id, char uuid[37], int *imported, int *rc) {
  *rc = XP_EXIT_DB;
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT uuid, spec_json, spec_path, origin FROM runs WHERE id = ?1");
  if (!st) return NULL;
  sqlite3_bind_int64(st, 1, id);
  xp_spec *spec = NULL;
  if (sqlite3_step(st) == SQLITE_ROW) {
    snprintf(uuid, 37, "%s", (const char *)sqlite3_column_text(st, 0));
    *imported = strcmp((const char *)sqlite3_column_text(st, 3), "imported") == 0;
    char *dir = NULL;
    if (sqlite3_column_type(st, 2) != SQLITE_NULL) {
      char *copy = xp_strdup((const char *)sqlite3_column_text(st, 2));
      dir = xp_strdup(dirname(copy));
      free(copy);
    } else {
      char cwd[4096];
      dir = xp_strdup(getcwd(cwd, sizeof cwd) ? cwd : ".");
    }
    char *label = xp_asprintf("run %.8s (stored spec)", uuid);
    spec = xp_spec_parse_json((const char *)sqlite3_column_text(st, 1), label, dir);
    *rc = spec ? 0 : XP_EXIT_USAGE;
    if (spec) mark_set_keys(db, id, spec);
    if (spec) pin_job(db, id, spec);
    free(label);
    free(dir);
  } else xp_db_fail(db, "reading the run");
  sqlite3_finalize(st);
  return spec;
}

/* Each refusal of a rerun names the run and a way on, as a stored spec's refused value says how
** to record the run anew (spec.c): the stored spec cannot be edited, and rerun takes no --set. A kind this build lacks (a run merged from another xp's database) reruns with that xp. */
static const xp_kind *spec_kind(const xp_spec *spec, const char *old) {
  const cJSON *k = cJSON_GetObjectItemCaseSensitive(spec->root, "kind");
  if (!cJSON_IsString(k)) {
    xp_spec_error(spec, "kind", "the stored spec names no kind");
    return NULL;
  }
  const xp_kind *kind = xp_kind_find(k->valuestring);
  if (!kind) {
    char *cut = xp_value_cut(k->valuestring);
    xp_error(XP_EXIT_USAGE, "run %.8s: the stored spec's kind \"%s\" is not in this build of xp (see `xp help "
             "kinds`): rerun it with an xp that has it, as the one that recorded it (xp show %.8s: xp.commit)",
             old, cut, old);
    free(cut);
  }
  return kind;
}

/* An import's rerun reads its files again: one gone or unreadable is said as the file the run
** imported, where the importer's own "cannot read" said nothing of why that file was wanted.
** Each is looked for where the importer reads it (a spec's relative file under its folder). */
static int imported_files_readable(const xp_spec *spec, const char *old) {
  const cJSON *f;
  int rc = 0;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(spec->root, "files")) {
    char *path = cJSON_IsString(f) ? xp_spec_resolve(spec, f->valuestring) : NULL;
    if (path && access(path, R_OK) != 0)
      rc = xp_error_at(XP_EXIT_USAGE, path, 0, "cannot read: %s (run %.8s imported it; a rerun reads it again): "
                       "restore it to rerun, or record the files there are now anew (xp import FORMAT FILES)",
                       strerror(errno), old);
    free(path);
    if (rc) break;
  }
  return rc;
}

int xp_rerun(sqlite3 *db, int64_t run_id, const struct xp_kind *kind, char new_uuid[37]) {
  char old[37];
  int imported = 0;
  new_uuid[0] = 0;
  int rc;
  xp_spec *spec = stored_spec(db, run_id, old, &imported, &rc);
  if (!spec) return rc;
  if (!kind && !(kind = spec_kind(spec, old))) rc = XP_EXIT_USAGE;
  if (rc == 0 && imported) rc = imported_files_readable(spec, old);
  if (rc == 0) rc = xp_validate_spec(kind, spec);
  if (rc == 0) {
    rc = xp_execute_spec(db, kind, spec, imported, old, new_uuid);
    if (new_uuid[0] && rc == 0) {
      warn_differences(db, run_id, new_uuid);
      int64_t new_id;
      if (imported && xp_resolve_run(db, new_uuid, &new_id, NULL) == 0) warn_other_files(db, run_id, old, new_id);
      printf("rerun of %s: run %s; `xp compare %.8s %.8s` checks that it reproduces\n", old,
             new_uuid, old, new_uuid);
    } else if (new_uuid[0])
      printf("rerun of %s: run %s failed (xp show %.8s says why)\n", old, new_uuid, new_uuid);
  }
  xp_spec_free(spec);
  return rc;
}

int xp_history_args(int argc, char **argv, const char *cmd, const char *help,
                    const char *one, const char *missing, const char **target, int *dry) {
  int rc = 0;
  *target = NULL;
  *dry = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(help, stdout);
      return -1;
    } else if (strcmp(argv[i], "--dry-run") == 0) *dry = 1;
    else if (argv[i][0] == '-') rc = xp_unknown_option(cmd, argv[i], (const char *const[]){"--dry-run", "--help", NULL});
    else if (*target) rc = xp_one_at_a_time(cmd, one, *target, argv[i]);
    else *target = argv[i];
  }
  if (rc == 0 && !*target) rc = xp_usage_error(cmd, "%s", missing);
  return rc;
}

/* The model file a gemm spec derives its shapes from, resolved as the gemm kind resolves it
** (model_file, else models/NAME.toml beside the spec); NULL where it names none or it is gone
** (the spec's validation says so). */
static char *model_file(const xp_spec *spec) {
  const char *file = xp_spec_str(spec->root, "model_file", NULL);
  const char *name = xp_spec_str(spec->root, "model", NULL);
  if (file) return xp_spec_resolve(spec, file);
  return name ? xp_model_file_beside(spec, name) : NULL;
}

/* A gemm run records its model file's SHA-256 (gemm.model_sha256): the spec names the file,
** not its content, so the stored spec run again over an edited file measures other shapes
** under the same names, another experiment that `xp compare` would read as the rerun. Refused
** before anything is measured, as a spec that fails validation is. 0 where the file is the
** one measured, or the run recorded no hash (shapes given in the spec, an older xp's run). */
static int model_file_unchanged(sqlite3 *db, int64_t id, const xp_spec *spec, const char *old) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT value FROM run_meta WHERE run_id = ?1 AND key = 'gemm.model_sha256'");
  if (!st) return XP_EXIT_DB;
  sqlite3_bind_int64(st, 1, id);
  int step = sqlite3_step(st), rc = 0;
  char *path = step == SQLITE_ROW ? model_file(spec) : NULL;
  char now[65];
  if (step != SQLITE_ROW && step != SQLITE_DONE) rc = xp_db_fail(db, "reading the run's metadata");
  else if (path && xp_file_sha256(path, now) == 0) {
    const char *then = (const char *)sqlite3_column_text(st, 0);
    if (then && strcmp(then, now) != 0)
      rc = xp_error_at(XP_EXIT_USAGE, path, 0, "not the model file run %.8s measured (its SHA-256 was %.12s, now "
                       "%.12s): a rerun would measure other shapes; restore it to rerun, or xp run the spec "
                       "to measure the edited model as a new run", old, then, now);
  }
  free(path);
  sqlite3_finalize(st);
  return rc;
}

/* When run id began, in ms since the epoch; -1 where that is not known. */
static int64_t run_began_ms(sqlite3 *db, int64_t id) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT strftime('%s', started_at) * 1000 +"
                                       " CAST(round(strftime('%f', started_at) * 1000) AS INTEGER) % 1000"
                                       " FROM runs WHERE id = ?1");
  if (!st) return -1;
  sqlite3_bind_int64(st, 1, id);
  int64_t ms = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL ? sqlite3_column_int64(st, 0) : -1;
  sqlite3_finalize(st);
  return ms;
}

/* Whether path was written after run id began (its import): a file as it was then, whose kept
** bytes are not its own (a Docker json-file log keeps the text its records carry), is not
** taken for one written over. */
static int written_since(const char *path, int64_t began_ms) {
  struct stat sb;
  if (began_ms < 0 || stat(path, &sb) != 0) return 1;
  return (int64_t)sb.st_mtim.tv_sec * 1000 + sb.st_mtim.tv_nsec / 1000000 > began_ms;
}

/* The SHA-256 of the text a gzip'd file inflates to (tt_inflate_text, as the nccl-tests and
** vllm-bench importers read it and keep it as the run's artifact); -1 where it is no gzip or does
** not inflate, said nowhere: the file is then compared as it is. */
static int inflated_sha256(const char *path, char out[65]) {
  size_t len = 0;
  char *text = xp_read_file(path, &len);
  int rc = -1;
  if (text && tt_gzipped(text, len)) {
    xp_error_quiet(1);
    rc = tt_inflate_text(path, &text, &len, "text");
    xp_error_quiet(0);
    if (rc == 0) xp_sha256_hex(text, len, out);
  }
  free(text);
  return rc == 0 ? 0 : -1;
}

/* Whether run id kept a file whose SHA-256 is sha; -1 for a database error. */
static int kept_sha256(sqlite3_stmt *st, int64_t id, const char *sha) {
  sqlite3_reset(st);
  sqlite3_bind_int64(st, 1, id);
  sqlite3_bind_text(st, 2, sha, -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) != SQLITE_ROW) return -1;
  return !sqlite3_column_int(st, 0) || sqlite3_column_int(st, 1);
}

/* --dry-run of an import: each file written since and whose contents are none the run kept
** (artifacts' SHA-256) is said, as the rerun itself says it once it has imported the file again
** (warn_other_files), so that the plan is not read as the same measurement read again. A gzip'd
** file is compared by the text it inflates to too, which is what the importer kept (a log or
** result written gzip'd again was said to have changed). A run that kept no files (a trace
** import) has nothing to compare with: nothing is said. */
static int warn_changed_files(sqlite3 *db, int64_t id, const xp_spec *spec, const char *old) {
  sqlite3_stmt *st = xp_db_prepare(db, "SELECT EXISTS (SELECT 1 FROM artifacts WHERE run_id = ?1),"
                                       " EXISTS (SELECT 1 FROM artifacts WHERE run_id = ?1 AND sha256 = ?2)");
  if (!st) return XP_EXIT_DB;
  const int64_t began = run_began_ms(db, id);
  const cJSON *f;
  int rc = 0;
  cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(spec->root, "files")) {
    char *path = cJSON_IsString(f) ? xp_spec_resolve(spec, f->valuestring) : NULL;
    char now[65];
    if (path && written_since(path, began) && xp_file_sha256(path, now) == 0) {
      int kept = kept_sha256(st, id, now);
      if (kept == 0 && inflated_sha256(path, now) == 0) kept = kept_sha256(st, id, now);
      if (kept < 0) rc = xp_db_fail(db, "reading the run's files");
      else if (!kept)
        xp_warn("%s is not the file run %.8s imported (its contents changed since): a rerun would record"
                " another measurement, not the same one read again", path, old);
    }
    free(path);
    if (rc) break;
  }
  sqlite3_finalize(st);
  return rc;
}

/* What a rerun of run id would do, checked on a read-only connection: the stored spec, its
** kind, the files an import reads again and, with plan, what --dry-run prints; without, that
** this machine can run the kind (a GPU). 0, or the error said. */
static int check_rerun(sqlite3 *db, int64_t id, int plan) {
  char old[37];
  int imported = 0;
  int rc;
  xp_spec *spec = stored_spec(db, id, old, &imported, &rc);
  const xp_kind *k = spec ? spec_kind(spec, old) : NULL;
  if (spec) rc = !k ? XP_EXIT_USAGE : imported ? imported_files_readable(spec, old) : 0;
  if (rc == 0) rc = xp_validate_spec(k, spec);
  if (rc == 0) rc = model_file_unchanged(db, id, spec, old);
  if (rc == 0 && plan && imported) rc = warn_changed_files(db, id, spec, old);
  if (rc == 0 && plan) {
    char *header = xp_asprintf("# dry run: rerun of %s (kind %s); nothing is recorded\n", old, k->name);
    rc = xp_print_plan(k, spec, NULL, header);
    free(header);
  }
  else if (rc == 0) rc = xp_kind_can_run(k);
  xp_spec_free(spec);
  return rc;
}

int cmd_rerun(int argc, char **argv, const char *db_path) {
  const char *ref;
  int dry;
  int rc = xp_history_args(argc, argv, "rerun", usage, "run",
                           "which run? (xp runs lists them)", &ref, &dry);
  if (rc) return rc < 0 ? 0 : rc;
  /* Checked read-only first: a misspelt run, an import whose files are gone or a GPU kind on a
  ** machine without one leaves the database as it was, where opening it to write had already
  ** migrated an older xp's database (which that xp then refuses as newer). Read-only also
  ** refuses a missing database rather than creating an empty one to refuse. */
  sqlite3 *db = xp_db_open(db_path, dry ? XP_DB_READONLY : XP_DB_CHECK, &rc);
  if (!db) return rc;
  int64_t id;
  if ((rc = xp_resolve_run(db, ref, &id, NULL)) == 0) rc = check_rerun(db, id, dry);
  xp_db_close(db);
  if (rc || dry) return rc;
  if (!(db = xp_db_open(db_path, XP_DB_READWRITE, &rc))) return rc;
  char new_uuid[37];
  rc = xp_rerun(db, id, NULL, new_uuid);
  xp_db_close(db);
  return rc;
}
