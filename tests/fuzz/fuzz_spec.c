/*
** libFuzzer target: the experiment-spec loader: TOML through toml++ (or JSON when the input
** starts with '{'), validation against every run kind of this build, the dry-run plan of the
** kind the spec names, and the canonical form whose SHA-256 identifies a spec.
**
** Properties checked beyond not crashing: the canonical form is a fixed point (canonicalising
** it again changes nothing), so the hash cannot depend on how the spec was written; validation
** either accepts or reports an error, never both; and a TOML spec's JSON form (what a run
** stores, and xp rerun reads) is the same spec: it loads, canonicalises and validates alike.
*/
#include "fuzz_common.h"
#include "spec.h"

static FILE *devnull;

/* A TOML spec written as JSON (its canonical form, in a file of the other suffix) is the same
** spec: it loads, hashes the same and validates alike, so that a spec's identity does not
** depend on which of the two forms a user wrote. */
static xp_spec *spec_as_json(const char *canonical) {
  const char *path = fuzz_file((const uint8_t *)canonical, strlen(canonical), ".json");
  xp_clear_error();
  xp_spec *s = xp_spec_load(path);
  FUZZ_ASSERT(s, "the TOML spec's JSON form is refused: %s", xp_last_error());
  char *c = xp_json_canonical(s->root);
  FUZZ_ASSERT(strcmp(c, canonical) == 0, "the TOML spec's JSON form canonicalises differently:\n%.300s\n%.300s",
              canonical, c);
  free(c);
  return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_quiet();
  if (!devnull && !(devnull = fopen("/dev/null", "w"))) abort();
  int json = fuzz_first_char(data, size) == '{';
  xp_clear_error();
  xp_spec *spec = xp_spec_load(fuzz_file(data, size, json ? ".json" : ".toml"));
  if (!spec) {
    FUZZ_ASSERT(xp_last_error_code() == XP_EXIT_USAGE, "a spec was refused with code %d",
                xp_last_error_code());
    return 0;
  }
  char *c1 = xp_json_canonical(spec->root);
  cJSON *again = cJSON_Parse(c1);
  FUZZ_ASSERT(again, "the canonical form does not parse: %.200s", c1);
  char *c2 = xp_json_canonical(again);
  FUZZ_ASSERT(strcmp(c1, c2) == 0, "canonical form is not stable:\n%.300s\n%.300s", c1, c2);
  cJSON_Delete(again);
  free(c2);
  char sha[65];
  xp_spec_hash(spec, sha);
  xp_spec *as_json = json ? NULL : spec_as_json(c1);
  free(c1);

  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(spec->root, "kind");
  for (const xp_kind *const *k = xp_kinds_all(); *k; k++) {
    xp_clear_error();
    int rc = xp_validate_spec(*k, spec);
    FUZZ_ASSERT((rc == 0) == (xp_last_error()[0] == 0), "%s validation returned %d with error '%s'",
                (*k)->name, rc, xp_last_error());
    if (rc == 0 && cJSON_IsString(kind) && strcmp(kind->valuestring, (*k)->name) == 0 && (*k)->plan)
      (*k)->plan(spec, devnull);
    if (as_json) {
      xp_clear_error();
      int rj = xp_validate_spec(*k, as_json);
      FUZZ_ASSERT((rj == 0) == (rc == 0), "%s validation of the TOML spec returned %d, of its JSON form %d (%s)",
                  (*k)->name, rc, rj, xp_last_error());
    }
  }
  xp_spec_free(as_json);
  xp_spec_free(spec);
  return 0;
}
