/* xp import FORMAT FILE...: turn existing results into a run of the format's kind. All files
** of one invocation are one run (the ranks of one job, say). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "xp.h"

/* "formats: a, b" for the error line itself: a bad import must say so in one line. */
static const char *formats_list(void) {
  static char list[512];
  size_t n = (size_t)snprintf(list, sizeof list, "formats:");
  for (const xp_kind *const *k = xp_kinds_all(); *k && n < sizeof list; k++)
    if ((*k)->import_name) n += (size_t)snprintf(list + n, sizeof list - n, " %s", (*k)->import_name);
  return list;
}

/* The one format of which given is a word, in any case ("VLLM", "nccl", "trace"): the name a
** user shortens a format to is too far from it in edits for xp_near. NULL where none or several. */
static const char *format_of_word(const char *given) {
  const char *found = NULL;
  size_t n = strlen(given);
  for (const xp_kind *const *k = xp_kinds_all(); *k && n; k++) {
    const char *name = (*k)->import_name;
    for (const char *w = name; w; w = strchr(w, '-') ? strchr(w, '-') + 1 : NULL)
      if (name && strncasecmp(w, given, n) == 0 && (w[n] == '-' || w[n] == '\0')) {
        if (found && found != name) return NULL;
        found = name;
      }
  }
  return found;
}

/* xp import vllm-bnech (or xp import vllm): the format meant, where one is near, and those there are. */
static int unknown_format(const char *given) {
  xp_near near;
  xp_near_init(&near, given);
  for (const xp_kind *const *k = xp_kinds_all(); *k; k++)
    if ((*k)->import_name) xp_near_offer(&near, (*k)->import_name);
  const char *meant = xp_near_result(&near);
  if (!meant) meant = format_of_word(given);
  char *cut = xp_value_cut(given);
  int rc = meant ? xp_usage_error("import", "unknown format '%s': did you mean '%s'? (%s)", cut, meant, formats_list())
                 : xp_usage_error("import", "unknown format '%s' (%s)", cut, formats_list());
  free(cut);
  return rc;
}

/* The options of an import of k: its keys (not files, which are the arguments) and the declared
** ones, as --step-annotation, and --set and --dry-run. Malloc'd, NULL-terminated. */
static char **import_options(const xp_kind *k) {
  size_t n = 0, cap = 4;
  for (const xp_field *f = k->fields; f && f->key; f++) cap++;
  for (const xp_field *f = xp_declared_fields; f->key; f++) cap++;
  char **options = xp_xcalloc(cap, sizeof *options);
  options[n++] = xp_strdup("--set");
  options[n++] = xp_strdup("--dry-run");
  for (int declared = 0; declared < 2; declared++)
    for (const xp_field *f = declared ? xp_declared_fields : k->fields; f && f->key; f++) {
      if (strcmp(f->key, "files") == 0) continue;
      char *o = options[n++] = xp_asprintf("--%s", f->key);
      for (char *c = o; *c; c++)
        if (*c == '_') *c = '-';
    }
  return options;
}

/* --some-option VALUE -> spec key some_option; a boolean field takes no value. The word cut
** as every error cuts a value given (xp_value_cut); the option meant named, where one is near
** (xp import nccl-tests --colective: --collective), as every command's options are. */
static int unknown_option(const char *word, const xp_kind *k, const char *more) {
  char *cut = xp_value_cut(word);
  char **options = import_options(k);
  const char *meant = *more ? NULL : xp_option_meant(word, (const char *const *)options);
  int rc = meant ? xp_usage_error("import", "%s: unknown option for %s: did you mean %s?", cut, k->import_name, meant)
                 : xp_usage_error("import", "%s: unknown option for %s%s", cut, k->import_name, more);
  for (char **o = options; *o; o++) free(*o);
  free(options);
  free(cut);
  return rc;
}

/* A key the command line gives a value twice (--set tp=2 --set tp=4, or --set and the option
** alike): the last silently won the run's record. given: each key's first "KEY=VALUE" or value. */
static int given_twice(cJSON *given, const char *key, const char *option, const char *value) {
  const cJSON *first = cJSON_GetObjectItemCaseSensitive(given, key);
  if (first) return xp_opt_twice("import", option, value, first->valuestring);
  /* a copy: --set's value is its normal form (xp_set_normal), freed once it is taken */
  cJSON_AddItemToObject(given, key, cJSON_CreateString(value));
  return 0;
}

/* An option that takes a list gathers what each gives (--files a --files b), a switch says the
** same again: neither is given twice. */
static int takes_one_value(const xp_field *f) {
  return f->type == XP_T_STRING || f->type == XP_T_INT || f->type == XP_T_NUMBER;
}

/* --OPTION [VALUE] into root; options: each key an option gave, with the option as typed (its
** first spelling: --step-annotation or --step_annotation), whose errors name it. */
static int take_option(cJSON *root, cJSON *given, cJSON *options, const xp_kind *k, int argc, char **argv, int *i) {
  char key[128];
  snprintf(key, sizeof key, "%s", argv[*i] + 2);
  char *eq = strchr(key, '=');
  if (eq) *eq = 0;
  for (char *c = key; *c; c++)
    if (*c == '-') *c = '_';
  const xp_field *f = xp_kind_field(k, key);
  /* README and help quote vllm bench serve's --metadata KEY=VALUE (tp=, dataset_name=...):
  ** an option of the benchmark, read from the result it writes, which xp cannot add later */
  if (!f && strcmp(key, "metadata") == 0 && k->records_as && strcmp(k->records_as, "serve_bench") == 0)
    return unknown_option(argv[*i], k,
                          ": it is vllm bench serve's, read from the result it wrote; "
                          "declare the configuration with --set KEY=VALUE (tp, pp, ep, model, ...)");
  if (!f || strcmp(key, "files") == 0)
    return unknown_option(argv[*i], k, "");
  const char *option = argv[*i], *value;
  if (eq) value = strchr(argv[*i], '=') + 1;
  else if (f->type == XP_T_BOOL) value = "true";
  else if (*i + 1 < argc) value = argv[++*i];
  else return xp_usage_error("import", "%s needs a value", argv[*i]);
  char *name = xp_asprintf("%.*s", (int)strcspn(option, "="), option);
  int rc = takes_one_value(f) ? given_twice(given, key, name, value) : 0;
  if (rc == 0) rc = xp_spec_set_field(root, k, key, name, value, 1);
  if (rc == 0 && !cJSON_HasObjectItem(options, key)) cJSON_AddStringToObject(options, key, name);
  free(name);
  return rc;
}

/* --dry-run: what the import would record. Where the kind reads the history (an earlier import
** of the same results) and the database holds a history (a file touch made is none yet), against
** it, opened as a dry run: nothing is written, and none is created. */
static int dry_run(const xp_kind *k, const xp_spec *spec, const char *db_path) {
  struct stat st;
  if (!k->against_history || stat(db_path, &st) != 0 || st.st_size == 0) return xp_print_plan(k, spec, NULL, NULL);
  int rc;
  sqlite3 *db = xp_db_open(db_path, XP_DB_DRY, &rc);
  if (!db) return rc;
  rc = xp_print_plan(k, spec, db, NULL);
  xp_db_rollback(db);
  xp_db_close(db);
  return rc;
}

/* An import the history refuses (xp import vllm-bench of results imported already) is refused
** before the database is opened to write, where that open had migrated an older xp's database
** (which that xp then refuses as newer) for an import that records nothing. Checked as a dry run
** is, in a transaction rolled back, and only where the schema is older: else the run's own
** connection checks it, as before. 0, or the error said. */
static int refused_by_history(const xp_kind *k, const xp_spec *spec, const char *db_path) {
  struct stat st;
  if (!k->against_history || stat(db_path, &st) != 0 || st.st_size == 0) return 0;
  int rc;
  /* Only an older xp's history is checked here. A database with none yet (another import making
  ** it this moment: its file there, its schema not yet) or one that does not open is the writing
  ** open's to answer, as for every import: said here, it was "empty database" to a concurrent
  ** import of the same new database (tests/reliability/concurrency.sh cli). */
  xp_error_quiet(1);
  sqlite3 *db = xp_db_open(db_path, XP_DB_CHECK, &rc);
  xp_error_quiet(0);
  if (!db) {
    xp_clear_error();
    return 0;
  }
  const int older = xp_db_user_version(db) < xp_db_schema_version();
  xp_db_close(db);
  if (!older) return 0;
  if (!(db = xp_db_open(db_path, XP_DB_DRY, &rc))) return rc;
  rc = k->against_history(db, spec, NULL);
  xp_db_rollback(db);
  xp_db_close(db);
  return rc;
}

int cmd_import(int argc, char **argv, const char *db_path) {
  if (argc < 2) return xp_usage_error("import", "which format? (%s)", formats_list());
  const xp_kind *k = xp_importer_find(argv[1]);
  if (!k) return unknown_format(argv[1]);
  cJSON *root = cJSON_CreateObject(), *files = cJSON_CreateArray();
  cJSON_AddStringToObject(root, "kind", k->name);
  cJSON_AddItemToObject(root, "files", files);
  int dry = 0, bad = 0, rc = 0;
  cJSON *sets = cJSON_CreateArray(); /* the keys --set gave, whose errors name the command line */
  cJSON *given = cJSON_CreateObject();
  cJSON *options = cJSON_CreateObject(); /* the keys options gave, as typed: their errors name them */
  for (int i = 2; i < argc && rc == 0; i++) {
    const char *v;
    if (strcmp(argv[i], "--dry-run") == 0) dry = 1;
    else if ((v = xp_opt_value(argc, argv, &i, "--set", &bad))) {
      char *kv = xp_set_normal(v), *key = xp_asprintf("%.*s", (int)strcspn(kv, "="), kv);
      rc = given_twice(given, key, "--set", kv);
      free(key);
      if (rc == 0) rc = xp_spec_set_kv(root, k, kv);
      if (rc == 0) cJSON_AddItemToArray(sets, cJSON_CreateString(kv));
      free(kv);
    }
    else if (bad) rc = XP_EXIT_USAGE;
    else if (strncmp(argv[i], "--", 2) == 0 && argv[i][2]) rc = take_option(root, given, options, k, argc, argv, &i);
    else if (argv[i][0] == '-' && argv[i][1] && access(argv[i], F_OK) != 0)
      /* a short option (nccl-tests' -J, say) read as a file name said "cannot read" */
      rc = unknown_option(argv[i], k, ", whose options take two dashes");
    else {
      /* Stored absolute, so that the spec kept in the database can be read again (xp rerun). */
      char *abs = realpath(argv[i], NULL);
      cJSON_AddItemToArray(files, cJSON_CreateString(abs ? abs : argv[i]));
      free(abs);
    }
  }
  if (rc == 0 && cJSON_GetArraySize(files) == 0) rc = xp_usage_error("import", "no files given");
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, ".");
  xp_spec *spec = xp_spec_from_json(root, "<command line>", cwd);
  const cJSON *e;
  cJSON_ArrayForEach(e, sets) xp_spec_mark_cli(spec, e->valuestring);
  cJSON_ArrayForEach(e, options) xp_spec_mark_option(spec, e->string, e->valuestring);
  cJSON_Delete(sets);
  cJSON_Delete(options);
  cJSON_Delete(given);
  if (rc == 0) rc = xp_validate_spec(k, spec);
  if (rc == 0 && dry) rc = dry_run(k, spec, db_path);
  else if (rc == 0 && (rc = refused_by_history(k, spec, db_path)) == 0) {
    sqlite3 *db = xp_db_open(db_path, XP_DB_READWRITE, &rc);
    if (db) {
      rc = xp_execute_spec(db, k, spec, 1, NULL, NULL);
      xp_db_close(db);
    }
  }
  xp_spec_free(spec);
  return rc;
}
