/*
** The run lifecycle, one way for every kind: validate, begin (row 'running'), execute,
** finish (ok, failed or aborted). xp run, xp import and xp rerun all come through here.
*/
#include <stdlib.h>
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "kind.h"
#include "toml_adapter.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include "gpu.h"
#endif

int xp_validate_spec(const xp_kind *k, const xp_spec *spec) {
  int rc = xp_spec_check_fields(spec, spec->root, "", k->fields, 1);
  if (rc == 0 && k->check) rc = k->check(spec);
  return rc;
}

int xp_cuda_sibling(char *path, size_t n) {
  ssize_t len = readlink("/proc/self/exe", path, n > 16 ? n - 16 : 0);
  if (len <= 0) return -1;
  path[len] = 0;
  char *slash = strrchr(path, '/');
  if (!slash) return -1;
  strcpy(slash + 1, "xp-cuda");
  return access(path, X_OK) == 0 ? 0 : -1;
}

#ifndef XP_HAVE_CUDA
/* xp itself never loads the CUDA libraries (see CMakeLists.txt); a GPU kind's command line is
** handed over whole to xp-cuda, built from the same sources beside this binary. Nothing has
** been written yet when this happens. Returns only if there is no xp-cuda to hand over to. */
static void hand_over_to_xp_cuda(void) {
  char **argv = xp_saved_argv();
  char self[4096];
  if (!argv || xp_cuda_sibling(self, sizeof self) != 0) return;
  fflush(NULL);
  execv(self, argv);
  xp_warn("cannot start %s: %s", self, strerror(errno));
}
#endif

/* GPU kinds need a CUDA build and a GPU before anything is recorded: an environment that
** cannot run the experiment is not a failed run of it. */
/* Planned in memory first (open_memstream): the header and plan go out only when the plan is
** whole, where a failed import's file read again, or a second file of an import at fault, left
** the header and part of a plan on stdout, which '> plan.txt' kept as if it were one. */
int xp_print_plan(const xp_kind *k, const xp_spec *spec, sqlite3 *db, const char *header) {
  char *held = NULL;
  size_t held_len = 0;
  FILE *out = open_memstream(&held, &held_len);
  if (!out) return xp_error(XP_EXIT_FAILED, "cannot hold the output: %s", strerror(errno));
  int rc = db && k->against_history ? k->against_history(db, spec, out) : k->plan ? k->plan(spec, out) : 0;
  fclose(out);
  if (rc == 0) printf("%s%s", header ? header : "", held);
  free(held);
  return rc;
}

int xp_kind_can_run(const xp_kind *k) {
  if (!k->needs_gpu) return 0;
#ifdef XP_HAVE_CUDA
  if (xp_gpu_count() == 0)
    return xp_error(XP_EXIT_ENV, "%s runs need a GPU and none is visible (no NVIDIA driver or device)", k->name);
  return 0;
#else
  hand_over_to_xp_cuda();
  /* This binary cannot tell a build without CUDA from an xp copied away from its xp-cuda. */
  return xp_error(XP_EXIT_ENV, "%s runs need a GPU and xp-cuda beside this xp, and there is none: built without"
                  " CUDA (rebuild with -DXP_CUDA=ON), or this xp was copied away from its build folder"
                  " (run build/xp)", k->name);
#endif
}

/* The run is recorded whole; its summary could not be written (a full disk, an I/O error).
** Checked here, so that the one line says the run is kept: main's check at exit said only
** "cannot write output", exit 1, which reads as a failed import, and one imported again counts
** twice. A reader that went away ends xp at the write instead (SIGPIPE is back by then). */
static int said_recorded(const char *uuid) {
  errno = 0;
  if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
  const int why = errno;
  clearerr(stdout);
  return xp_error(XP_EXIT_FAILED, "cannot write output: %s; run %.8s is recorded ok (xp show %.8s)",
                  why ? strerror(why) : "a write to it failed", uuid, uuid);
}

/* How a run's execute ended: its exit code, status and error (malloc'd, NULL for none), and whether
** a signal came once it was whole (it stays ok; xp is interrupted). */
typedef struct run_end {
  int rc;
  enum xp_run_status status;
  int late_signal;
  char *err;
} run_end;

/* The kind's execute of job `job` (of an import of several; 0 the usual) into run, its output to
** out; *njobs as execute says the files hold. */
static run_end execute_job(const xp_kind *k, xp_run *run, const xp_spec *spec, int imported, int job, FILE *out,
                           int *njobs) {
  xp_clear_error();
  xp_ctx ctx = {xp_run_db(run), run, spec, out, 0, job, 1};
  run_end e = {k->execute(&ctx), XP_RUN_OK, 0, NULL};
  *njobs = ctx.njobs;
  if (e.rc) e.status = XP_RUN_FAILED;
  /* A signal that came once the run was whole interrupts xp, not the run: it is kept as ok. */
  e.late_signal = e.rc == 0 && xp_interrupted();
  if (e.rc == XP_EXIT_ABORTED || (e.rc != 0 && xp_interrupted())) {
    e.status = XP_RUN_ABORTED;
    e.rc = XP_EXIT_ABORTED;
  }
  /* an import writes its results once the files are read whole: interrupted, it has none */
  const char *err = e.status == XP_RUN_ABORTED ? (imported ? "interrupted by a signal while reading; an import keeps nothing"
                                                           : "interrupted by a signal; results up to that point are kept")
                    : e.rc ? xp_last_error() : NULL;
  if (e.rc && e.status == XP_RUN_FAILED && !*xp_last_error()) err = "failed without a message";
  e.err = xp_strdup(err); /* finishing may report an error of its own, replacing the last */
  return e;
}

/* One later job's run (2..njobs of an import), begun within the first's transaction: its summary
** and "run UUID ok" line to out, said once the first run commits them all. */
static run_end record_job(const xp_kind *k, const xp_spec *spec, const xp_run_opts *o, xp_run *first, int job,
                          FILE *out) {
  xp_run *run = NULL;
  run_end e = {xp_run_begin_within(first, o, &run), XP_RUN_OK, 0, NULL};
  if (e.rc) {
    e.status = XP_RUN_FAILED;
    e.err = xp_strdup(xp_last_error());
    return e;
  }
  char uuid[37];
  int njobs;
  snprintf(uuid, sizeof uuid, "%s", xp_run_uuid(run));
  e = execute_job(k, run, spec, 1, job, out, &njobs);
  const int frc = xp_run_finish(run, e.status, e.err);
  if (frc && e.rc == 0) {
    e.rc = frc;
    e.status = XP_RUN_FAILED;
    free(e.err);
    e.err = xp_strdup(xp_last_error());
  }
  if (e.rc == 0) fprintf(out, "run %s ok\n", uuid);
  return e;
}

/*
** An import whose file holds several jobs (nccl-tests run on each host, gathered into one log)
** records each as a run of its own, all in the first run's transaction (xp_run_begin_within): they
** commit together with the first run's finish, or none does. Each committed on its own, and a
** fault while job 2 was recorded (a full disk, a lock) left job 1's run ok and the import half
** recorded. Where a later job does not end ok, *first becomes its end, its error naming the job,
** and what was recorded is rolled back: the first run is then finished failed (or aborted) alone.
*/
static void record_later_jobs(const xp_kind *k, const xp_spec *spec, const xp_run_opts *o, xp_run *run, int njobs,
                              FILE *out, run_end *first) {
  for (int job = 1; job < njobs; job++) {
    run_end e = record_job(k, spec, o, run, job, out);
    first->late_signal |= e.late_signal;
    if (e.rc == 0) {
      free(e.err);
      continue;
    }
    free(first->err);
    *first = e;
    first->err = xp_asprintf("job %d of %d (no job's run is kept): %s", job + 1, njobs, e.err ? e.err : "");
    free(e.err);
    xp_run_discard(run);
    return;
  }
}

/* The spec's run (with its later jobs' where an import's file holds several): begun, executed,
** finished, said. */
static int execute_run(sqlite3 *db, const xp_kind *k, const xp_spec *spec, int imported, const char *parent_uuid,
                       char run_uuid_out[37]) {
  int rc, njobs = 1;
  xp_run_opts o = {k->records_as ? k->records_as : k->name, imported, spec, parent_uuid,
                   k->needs_gpu && !imported};
  xp_run *run = NULL;
  if ((rc = xp_run_begin(db, &o, &run)) != 0) return rc;
  char uuid[37];
  snprintf(uuid, sizeof uuid, "%s", xp_run_uuid(run));
  if (run_uuid_out) snprintf(run_uuid_out, 37, "%s", uuid);
  /* An import's summary ("imported 52 cases ...") is held until its results are recorded: a
  ** disk that fills at the commit would leave it saying so of a run that failed. A measured
  ** run's progress goes out as it comes. */
  char *held = NULL;
  size_t held_len = 0;
  FILE *held_out = imported ? open_memstream(&held, &held_len) : NULL;
  /* A reader that went away (xp run spec.toml | head) must not kill the run mid-measurement,
  ** its row left 'running': while the run executes and is recorded, a write to a pipe with no
  ** reader fails (EPIPE) instead of raising SIGPIPE. Once the run is whole the default comes
  ** back, and the next write ends xp as a pipeline expects. */
  struct sigaction ignore_pipe, old_pipe;
  memset(&ignore_pipe, 0, sizeof ignore_pipe);
  ignore_pipe.sa_handler = SIG_IGN;
  sigemptyset(&ignore_pipe.sa_mask);
  sigaction(SIGPIPE, &ignore_pipe, &old_pipe);
  run_end e = execute_job(k, run, spec, imported, 0, held_out ? held_out : stdout, &njobs);
  /* jobs only an import has: its "run UUID ok" lines are held with its summaries, in job order */
  const int jobs = held_out && njobs > 1 && e.status == XP_RUN_OK;
  if (jobs) {
    fprintf(held_out, "run %s ok\n", uuid);
    record_later_jobs(k, spec, &o, run, njobs, held_out, &e);
  }
  rc = e.rc;
  const int frc = xp_run_finish(run, e.status, e.err);
  free(e.err);
  if (frc && rc == 0) rc = frc;
  sigaction(SIGPIPE, &old_pipe, NULL);
  const int said = frc == 0 && e.status == XP_RUN_OK;
  if (held_out) {
    fclose(held_out);
    if (said) fwrite(held, 1, held_len, stdout);
    free(held);
  }
  /* stdout, so that a failure's stderr stays the one line that says what went wrong */
  if (!(jobs && said))
    printf("run %s %s\n", uuid, rc == 0 ? "ok" : e.status == XP_RUN_ABORTED ? "aborted" : "failed");
  if (rc == 0) rc = said_recorded(uuid);
  if (e.status == XP_RUN_ABORTED) /* the one line on stderr an interrupted run has */
    xp_error(XP_EXIT_ABORTED, "interrupted: run %s recorded as aborted, %s", uuid,
             imported ? "with nothing (an import keeps only whole files)" : "with what was measured before");
  else if (e.late_signal && rc == 0) {
    xp_warn("interrupted after run %s was recorded whole: it stays ok", uuid);
    rc = XP_EXIT_ABORTED;
  }
  return rc;
}

int xp_execute_spec(sqlite3 *db, const xp_kind *k, const xp_spec *spec, int imported,
                    const char *parent_uuid, char run_uuid_out[37]) {
  int rc;
  if (run_uuid_out) run_uuid_out[0] = 0;
  if ((rc = xp_kind_can_run(k)) != 0) return rc;
  if (k->against_history && (rc = k->against_history(db, spec, NULL)) != 0) return rc; /* no run begun */
  /* An importer's spec run by xp run reads files as xp import does: this host did not measure
  ** them, so its facts are not the run's (they were, under host.*, and origin 'measured' hid
  ** an nccl-tests log from the queries that count one read twice once) */
  imported |= k->import_name != NULL;
  return execute_run(db, k, spec, imported, parent_uuid, run_uuid_out);
}

/* ---- command-line overrides ---- */

const xp_field *xp_kind_field(const xp_kind *k, const char *key) {
  const xp_field *f = xp_field_find(k->fields, key);
  return f ? f : xp_field_find(xp_declared_fields, key);
}

/* One item of a list --set gives, typed as the field's items; 0 where it is not of that type. An
** integer's or a size's item is any number, for the spec's check to judge as a spec file's (8.0
** whole, 1.5 no integer); a size's other text is a size's text ("1M"). */
static int add_list_item(cJSON *arr, const xp_field *f, const char *t) {
  int64_t iv;
  double dv = 0;
  const int number = xp_parse_double(t, &dv) == 0;
  if ((f->type == XP_T_INTS || f->type == XP_T_SIZES) && xp_parse_int64(t, &iv) == 0)
    cJSON_AddItemToArray(arr, cJSON_CreateNumber((double)iv));
  else if (number && (f->type == XP_T_INTS || f->type == XP_T_NUMBERS || f->type == XP_T_SIZES))
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(dv));
  else if (f->type == XP_T_INTS || f->type == XP_T_NUMBERS) return 0;
  else cJSON_AddItemToArray(arr, cJSON_CreateString(t));
  return 1;
}

/* The items of a TOML array ("[1, 2]"), each typed as add_list_item types a comma form's. */
static int add_toml_items(cJSON *arr, const xp_field *f, const char *text) {
  char *doc = xp_asprintf("v = %s", text), err[256];
  int line = 0;
  cJSON *parsed = xp_toml_to_json(doc, strlen(doc), "<command line>", NULL, err, sizeof err, &line);
  free(doc);
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(parsed, "v"), *e;
  int ok = cJSON_IsArray(v);
  const cJSON *items = ok ? v : NULL; /* a name: cJSON_ArrayForEach tests it unparenthesized */
  cJSON_ArrayForEach(e, items) {
    char num[32];
    if (cJSON_IsNumber(e)) snprintf(num, sizeof num, "%.17g", e->valuedouble);
    const char *t = cJSON_IsString(e) ? e->valuestring : cJSON_IsNumber(e) ? num : NULL;
    if (!t || !add_list_item(arr, f, t)) ok = 0;
  }
  cJSON_Delete(parsed);
  return ok;
}

/* The 1-based number of value's first empty item as a comma list ("1024,,2048": 2; " , 1"
** and "1,": 1 and 2), else 0. */
static int empty_item(const char *value) {
  int item = 1;
  for (const char *p = value;; item++) {
    size_t n = strcspn(p, ",");
    if (strspn(p, " \t") >= n) return item;
    if (!p[n]) return 0;
    p += n + 1;
  }
}

/* A list value: "1,2" as README gives it, or a TOML array as a spec writes it ([1, 2],
** ["lm_head"], ['lm_head']): users copy a spec's line to the command line, and "[1,2]" then read as one
** item named "[1" and "2]". Each item's spaces are set aside, as a scalar's are: "1024, 2048" was
** '" 2048" is not a size', and "only=lm_head, o_proj" named a GEMM " o_proj". NULL where an item
** is not of the field's type. */
static cJSON *list_value(const xp_field *f, const char *value) {
  cJSON *arr = cJSON_CreateArray();
  const char *p = value;
  while (isspace((unsigned char)*p)) p++;
  int ok = 1;
  if (*p == '[') ok = add_toml_items(arr, f, p);
  else {
    char *copy = xp_strdup(value), *save = NULL;
    for (char *t = strtok_r(copy, ",", &save); t && ok; t = strtok_r(NULL, ",", &save)) {
      char *item = xp_unpadded(t);
      ok = add_list_item(arr, f, item);
      free(item);
    }
    free(copy);
  }
  if (ok) return arr;
  cJSON_Delete(arr);
  return NULL;
}

/* A number or boolean as the command line gives it, the spaces around it set aside as TOML sets
** them aside (--set "burst=5 " from a script's quoting was "not an integer"). An integer's value
** is any number, kept as written for the spec's check to judge as it judges a spec file's: one
** past int64 (99999999999999999999) is out of range, 8.0 and 1e3 are whole as burst = 8.0 is
** (--set burst=8.0 was "not an integer"), 1.5 is "not a fraction". NULL where value is none of
** the type. */
static cJSON *scalar_typed(xp_type type, const char *value) {
  char *t = xp_unpadded(value);
  int64_t iv;
  double dv;
  cJSON *v = NULL;
  if (type == XP_T_INT && xp_parse_int64(t, &iv) == 0) v = cJSON_CreateNumber((double)iv);
  else if ((type == XP_T_INT || type == XP_T_NUMBER) && xp_parse_double(t, &dv) == 0) v = cJSON_CreateNumber(dv);
  else if (type == XP_T_INT && xp_parse_past_double(t, &dv)) v = cJSON_CreateNumber(dv);
  else if (type == XP_T_BOOL && (strcmp(t, "true") == 0 || strcmp(t, "1") == 0)) v = cJSON_CreateTrue();
  else if (type == XP_T_BOOL && (strcmp(t, "false") == 0 || strcmp(t, "0") == 0)) v = cJSON_CreateFalse();
  free(t);
  return v;
}

static const char *scalar_type_name(xp_type type) {
  return type == XP_T_BOOL ? "true or false" : type == XP_T_INT ? "an integer" : "a number";
}

/* value typed as field f takes it; NULL, the error said of `given` (what the command line called
** the key: "--set tp", or an import's option as typed, "--host-skew"), where it is not of that type. */
static cJSON *typed_value(const xp_field *f, const char *given, const char *value) {
  switch (f ? f->type : XP_T_STRING) {
  case XP_T_INT:
  case XP_T_NUMBER:
  case XP_T_BOOL: {
    cJSON *v = scalar_typed(f->type, value);
    if (v) return v;
    break;
  }
  case XP_T_STRINGS:
  case XP_T_SIZES:
  case XP_T_INTS:
  case XP_T_NUMBERS: {
    /* --set sizes=$SIZES with SIZES unset emptied the spec's list and ran on, the experiment
    ** changed unsaid; [] is the empty list given on purpose */
    if (!value[strspn(value, " \t")]) {
      xp_error(XP_EXIT_USAGE, "<command line>: %s: blank (an unset shell variable?): give a list (1,2 or [1, 2]), or [] "
               "for none", given);
      return NULL;
    }
    /* --set sizes=$A,$B with A set and B not was one size fewer, measured unsaid */
    const int empty = value[strspn(value, " \t")] == '[' ? 0 : empty_item(value);
    if (empty) {
      char *cut = xp_value_cut(value);
      xp_error(XP_EXIT_USAGE, "<command line>: %s: \"%s\": item %d is empty (an unset shell variable?)", given, cut, empty);
      free(cut);
      return NULL;
    }
    cJSON *arr = list_value(f, value);
    if (arr) return arr;
    goto bad;
  }
  case XP_T_STRING:
    return cJSON_CreateString(value);
  case XP_T_TABLE:
  case XP_T_ANY_SCALAR_TABLE: /* set_table_key sets its keys */
    xp_error(XP_EXIT_USAGE, "<command line>: %s: a table: set one key of it at a time (%s.KEY=VALUE)", given, given);
    return NULL;
  default:
    xp_error(XP_EXIT_USAGE, "<command line>: %s: cannot be set from the command line", given);
    return NULL;
  }
bad:;
  char *cut = xp_value_cut(value);
  if (f->type == XP_T_INTS || f->type == XP_T_NUMBERS || f->type == XP_T_STRINGS || f->type == XP_T_SIZES)
    xp_error(XP_EXIT_USAGE, "<command line>: %s: \"%s\" is not a list of %s (1,2 or [1, 2])", given,
             cut, f->type == XP_T_INTS ? "integers" : f->type == XP_T_NUMBERS ? "numbers"
                                                    : f->type == XP_T_SIZES ? "sizes" : "names");
  else if (!value[strspn(value, " \t")]) /* --set burst=$BURST, BURST unset: no value given, as a blank list */
    xp_error(XP_EXIT_USAGE, "<command line>: %s: blank (an unset shell variable?): expected %s", given, scalar_type_name(f->type));
  else
    xp_error(XP_EXIT_USAGE, "<command line>: %s: \"%s\" is not %s%s", given, cut, scalar_type_name(f->type),
             f->type != XP_T_BOOL && xp_based_integer(value) ? XP_DECIMAL_ONLY : "");
  free(cut);
  return NULL;
}

/* A value for a table of free scalars (size_range) as TOML reads it bare: true or false, an
** integer, a number, else text ("256M", "Ring"). A leading zero is no TOML number (010 is refused
** there), so it is text. */
static cJSON *scalar_value(const char *value) {
  int64_t iv;
  double dv;
  const char *digits = value + (*value == '-' || *value == '+');
  if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) return cJSON_CreateBool(value[0] == 't');
  if (digits[0] == '0' && isdigit((unsigned char)digits[1])) return cJSON_CreateString(value);
  if (xp_parse_int64(value, &iv) == 0) return cJSON_CreateNumber((double)iv);
  if (xp_parse_double(value, &dv) == 0) return cJSON_CreateNumber(dv);
  return cJSON_CreateString(value);
}

/* A value for env, the environment the run sets: text for the process, as written. Read as a
** number, env.NCCL_NTHREADS=0100 went as 100 (NCCL's ncclLoadParam, strtoll base 0, reads the 0100
** given as 64), and 4e6, +5 and 1.0 went as 4000000, 5 and 1. true and false are a spec's
** booleans (1 and 0 in the environment, as env = { X = true } sets them). */
static cJSON *env_value(const char *value) {
  if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) return cJSON_CreateBool(value[0] == 't');
  return cJSON_CreateString(value);
}

/* --set TABLE.KEY=VALUE: one key of a table (size_range.max, env.NCCL_ALGO), the others the spec
** gives kept. "--set size_range.max=1M" said "unknown key for nccl_burst", and the table whole
** could not be given on the command line at all ("cannot be set from the command line"). 1 where
** key names no table of the kind (the caller says so), else 0 or the exit code after saying why. */
static int set_table_key(cJSON *root, const xp_kind *k, const char *key, const char *given, const char *value) {
  const char *dot = strchr(key, '.');
  char *top = xp_asprintf("%.*s", (int)(dot - key), key);
  const xp_field *t = xp_kind_field(k, top);
  int rc = 1;
  if (t && dot[1] && (t->type == XP_T_TABLE || t->type == XP_T_ANY_SCALAR_TABLE)) {
    const xp_field *f = t->type == XP_T_TABLE ? xp_field_find(t->sub, dot + 1) : NULL;
    cJSON *v = NULL;
    if (t->type == XP_T_TABLE && !f)
      rc = xp_error(XP_EXIT_USAGE, "<command line>: %s: unknown key in %s", given, top);
    else {
      v = f ? typed_value(f, given, value) : strcmp(top, "env") == 0 ? env_value(value) : scalar_value(value);
      rc = v ? 0 : XP_EXIT_USAGE;
    }
    cJSON *table = cJSON_GetObjectItemCaseSensitive(root, top);
    if (v && !cJSON_IsObject(table)) {
      cJSON_DeleteItemFromObjectCaseSensitive(root, top);
      table = cJSON_AddObjectToObject(root, top);
    }
    if (v) {
      cJSON_DeleteItemFromObjectCaseSensitive(table, dot + 1);
      cJSON_AddItemToObject(table, dot + 1, v);
    }
  } else if (t && !dot[1] && (t->type == XP_T_TABLE || t->type == XP_T_ANY_SCALAR_TABLE))
    /* --set env.$KEY=x with KEY unset: "env is no table", of a table */
    rc = xp_error(XP_EXIT_USAGE, "<command line>: %s: no key after the dot (--set %s.KEY=VALUE)", given, top);
  else if (t && t->type == XP_T_TABLES)
    rc = xp_error(XP_EXIT_USAGE, "<command line>: %s: %s is a list of tables, which cannot be set from the command line",
                  given, top);
  else if (t) /* burst.x: "unknown key ...: did you mean \"burst\"?" */
    rc = xp_error(XP_EXIT_USAGE, "<command line>: %s: %s is no table: give it whole (--set %s=VALUE)", given, top, top);
  free(top);
  return rc;
}

/* key set to value, whose errors name it as `given`. */
static int set_field(cJSON *root, const xp_kind *k, const char *key, const char *given, const char *value,
                     int append) {
  const xp_field *f = xp_kind_field(k, key);
  int rc;
  if (!f && strchr(key, '.') && (rc = set_table_key(root, k, key, given, value)) != 1) return rc;
  if (!f && strcmp(key, "kind") == 0) /* a key of every spec: "unknown key for nccl_burst" misled */
    return xp_error(XP_EXIT_USAGE, "<command line>: %s: a spec's kind is not set from the command line (each kind has "
                    "keys of its own: give a spec of the other kind, or import its format)", given);
  if (!f) {
    const char *meant = xp_nearest_key(key, k->fields, 1);
    if (meant)
      xp_error(XP_EXIT_USAGE, "<command line>: %s: unknown key for %s: did you mean \"%s\"?", given, k->name, meant);
    else xp_error(XP_EXIT_USAGE, "<command line>: %s: unknown key for %s", given, k->name);
    return XP_EXIT_USAGE;
  }
  cJSON *v = typed_value(f, given, value);
  if (!v) return XP_EXIT_USAGE;
  /* Array options given several times accumulate (--files a --files b). */
  cJSON *old = cJSON_GetObjectItemCaseSensitive(root, key);
  if (append && old && cJSON_IsArray(old) && cJSON_IsArray(v)) {
    cJSON *e;
    while ((e = cJSON_DetachItemFromArray(v, 0)) != NULL) cJSON_AddItemToArray(old, e);
    cJSON_Delete(v);
    return 0;
  }
  cJSON_DeleteItemFromObjectCaseSensitive(root, key);
  cJSON_AddItemToObject(root, key, v);
  return 0;
}

/* "burst = 5", as a spec's line is written and --where "tp = 2" is taken, as "burst=5": the key
** was "burst ", unknown. A key never holds a space: those before "=" are set aside, and where
** there were some, those after it too. What run and import record and compare (--set twice,
** run_meta spec.set) is this form. Malloc'd. */
char *xp_set_normal(const char *kv) {
  const char *eq = strchr(kv, '=');
  if (!eq) return xp_strdup(kv);
  size_t key_len = (size_t)(eq - kv);
  const char *value = eq + 1;
  while (key_len && isspace((unsigned char)kv[key_len - 1])) key_len--;
  if (key_len < (size_t)(eq - kv))
    while (isspace((unsigned char)*value)) value++;
  return xp_asprintf("%.*s=%s", (int)key_len, kv, value);
}

int xp_spec_set_kv(cJSON *root, const xp_kind *k, const char *kv) {
  const char *eq = strchr(kv, '=');
  if (!eq || eq == kv) {
    char *cut = xp_value_cut(kv);
    xp_error(XP_EXIT_USAGE, "<command line>: --set %s: expected KEY=VALUE", cut);
    free(cut);
    return XP_EXIT_USAGE;
  }
  char *key = xp_asprintf("%.*s", (int)(eq - kv), kv); /* whole: one cut short could name a real key */
  /* its errors name the --set, as those of the spec it makes do (xp_spec_error) */
  char *cut = xp_value_cut(key), *given = xp_asprintf("--set %s", cut);
  int rc = set_field(root, k, key, given, eq + 1, 0);
  free(given);
  free(cut);
  free(key);
  return rc;
}

int xp_spec_set_field(cJSON *root, const xp_kind *k, const char *key, const char *option, const char *value,
                      int append) {
  char *cut = xp_value_cut(option);
  int rc = set_field(root, k, key, cut, value, append);
  free(cut);
  return rc;
}
