/* xp run SPEC: validate an experiment spec and run it through the common lifecycle. */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "spec.h"
#include "xp.h"

/* A spec without "kind" whose top-level key is a misspelling of it ("knd", "Kind"): that key,
** at its line, where "kind is missing" at line 1 said nothing of the line that was wrong. */
static int missing_kind(const xp_spec *spec, const char *path) {
  static const xp_field kind_only[] = {{"kind", XP_T_STRING, 1, NULL, NULL, 0, 0, "run kind"}, {0}};
  const cJSON *e;
  cJSON_ArrayForEach(e, spec->root) {
    if (e->string && xp_nearest_key(e->string, kind_only, 0))
      return xp_spec_error(spec, e->string, "unknown key: did you mean \"kind\"? (no kind is given; see `xp help kinds`)");
  }
  return xp_error_at(XP_EXIT_USAGE, path, 1, "kind: required key is missing (see `xp help kinds`)");
}

/* kind = "nccl-burst" (an importer's spelling), "serve_bench" (what xp runs lists for vllm_bench's
** imports): said as unknown alone, where every other misspelt name is said with the one meant */
static void unknown_kind(xp_spec *spec, const char *given) {
  int as_recorded = 0;
  const xp_kind *meant = xp_kind_meant(given, &as_recorded);
  if (meant && as_recorded)
    xp_spec_error(spec, "kind", "unknown run kind \"%s\": did you mean \"%s\"? (its runs are recorded as %s; see "
                  "`xp help kinds`)", given, meant->name, meant->records_as);
  else if (meant)
    xp_spec_error(spec, "kind", "unknown run kind \"%s\": did you mean \"%s\"? (see `xp help kinds`)", given, meant->name);
  else xp_spec_error(spec, "kind", "unknown run kind \"%s\" (see `xp help kinds`)", given);
}

static int load_and_check(const char *path, char **sets, int nsets, xp_spec **out,
                          const xp_kind **kind_out) {
  xp_spec *spec = xp_spec_load(path);
  if (!spec) return XP_EXIT_USAGE;
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(spec->root, "kind");
  int rc = XP_EXIT_USAGE;
  const xp_kind *k = NULL;
  if (!kind) {
    missing_kind(spec, path);
    goto fail;
  }
  if (!cJSON_IsString(kind)) {
    xp_spec_error(spec, "kind", "expected a string");
    goto fail;
  }
  if (!(k = xp_kind_find(kind->valuestring))) {
    unknown_kind(spec, kind->valuestring);
    goto fail;
  }
  for (int i = 0; i < nsets; i++) {
    if ((rc = xp_spec_set_kv(spec->root, k, sets[i])) != 0) goto fail;
    xp_spec_mark_cli(spec, sets[i]);
  }
  if ((rc = xp_validate_spec(k, spec)) != 0) goto fail;
  *out = spec;
  *kind_out = k;
  return 0;
fail:
  xp_spec_free(spec);
  return rc ? rc : XP_EXIT_USAGE;
}

/* --set KEY given twice: the last silently won the run's record (a --set over the spec's own
** value is what --set is for). */
static int set_twice(char **sets, int nsets, const char *kv) {
  const size_t n = strcspn(kv, "=");
  for (int i = 0; i < nsets; i++)
    if (strcspn(sets[i], "=") == n && strncmp(sets[i], kv, n) == 0) return xp_opt_twice("run", "--set", kv, sets[i]);
  return 0;
}

int cmd_run(int argc, char **argv, const char *db_path) {
  const char *path = NULL;
  char **sets = xp_xcalloc((size_t)argc, sizeof *sets);
  int nsets = 0, dry = 0, bad = 0, rc;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "--dry-run") == 0) dry = 1;
    else if ((v = xp_opt_value(argc, argv, &i, "--set", &bad))) {
      sets[nsets] = xp_set_normal(v);
      if ((rc = set_twice(sets, nsets, sets[nsets])) != 0) {
        free(sets[nsets]);
        goto out;
      }
      nsets++;
    }    else if (bad) { rc = XP_EXIT_USAGE; goto out; }
    else if (argv[i][0] == '-' && argv[i][1]) {
      rc = xp_unknown_option("run", argv[i], (const char *const[]){"--dry-run", "--set", "--help", NULL});
      goto out;
    }
    else if (path) { rc = xp_one_at_a_time("run", "spec", path, argv[i]); goto out; }
    else path = argv[i];
  }
  if (!path) { rc = xp_usage_error("run", "which spec? (xp run experiments/NAME.toml)"); goto out; }
  xp_spec *spec = NULL;
  const xp_kind *k = NULL;
  if ((rc = load_and_check(path, sets, nsets, &spec, &k)) != 0) goto out;
  if (dry) {
    char sha[65];
    xp_spec_hash(spec, sha);
    char *header = xp_asprintf("# dry run: %s (kind %s, spec sha256 %.16s); nothing is recorded\n", path, k->name, sha);
    rc = xp_print_plan(k, spec, NULL, header);
    free(header);
  } else {
    sqlite3 *db = (rc = xp_kind_can_run(k)) == 0 ? xp_db_open(db_path, XP_DB_READWRITE, &rc) : NULL;
    if (db) {
      char uuid[37];
      rc = xp_execute_spec(db, k, spec, 0, NULL, uuid);
      xp_db_close(db);
    }
  }
  xp_spec_free(spec);
out:
  for (int i = 0; i < nsets; i++) free(sets[i]);
  free(sets);
  return rc;
}
