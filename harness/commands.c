/*
** The table of subcommands (one file each, cmd_*.c) and the option parsing they share.
*/
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "cli.h"
#include "xp.h"

int cmd_run(int argc, char **argv, const char *db_path);
int cmd_import(int argc, char **argv, const char *db_path);
int cmd_query(int argc, char **argv, const char *db_path);
int cmd_runs(int argc, char **argv, const char *db_path);
int cmd_show(int argc, char **argv, const char *db_path);
int cmd_version(int argc, char **argv, const char *db_path);
int cmd_help(int argc, char **argv, const char *db_path);
/* Commands that print their own usage (xp CMD --help reaches them with argv[1] = "--help"). */
int cmd_reclassify(int argc, char **argv, const char *db_path);
int cmd_compare(int argc, char **argv, const char *db_path);
int cmd_decide(int argc, char **argv, const char *db_path);
int cmd_audit(int argc, char **argv, const char *db_path);
int cmd_rerun(int argc, char **argv, const char *db_path);
int cmd_verify(int argc, char **argv, const char *db_path);
int cmd_merge(int argc, char **argv, const char *db_path);
int cmd_export(int argc, char **argv, const char *db_path);
int cmd_report(int argc, char **argv, const char *db_path);

static const xp_cmd commands[] = {
    {"run", cmd_run, "run an experiment spec and record it",
     "usage: xp run SPEC.toml [--dry-run] [--set KEY=VALUE]...\n"
     "  Validates the spec, records a run ('running' until it finishes), measures, and stores\n"
     "  the results and metadata in one transaction.\n"
     "  --dry-run        print what would be measured; touch nothing\n"
     "  --set KEY=VALUE  override a top-level key of the spec (typed like the spec's field);\n"
     "                   a list as comma-separated values: --set m=1,16,256\n"
     "  Keys of a kind and their ranges: xp help KIND; keys of a model file: xp help models\n"},
    {"import", cmd_import, "import existing results (profiler traces, nccl-tests logs, ...)",
     "usage: xp import FORMAT FILE... [--OPTION VALUE]... [--set KEY=VALUE]... [--dry-run]\n"
     "  All files of one invocation become one run. Formats: see `xp help kinds`.\n"
     "  Options map to the kind's spec keys (--step-annotation NAME -> step_annotation) and\n"
     "  take two dashes (a one-dash argument that is no file is refused).\n"
     "  --set KEY=VALUE  declare the configuration (model, tp, batch, interconnect, ...; gpu for\n"
     "                   results that do not name their GPU)\n"
     "  --dry-run        say what would be imported; record nothing\n"
     "  vllm-bench reads vLLM's result JSON and SGLang's sglang.bench_serving JSONL (a case a\n"
     "  line, told apart per line, under vLLM's metric names); SGLang's model and TP are its\n"
     "  server_info's (later versions); else give the model with --set model=NAME. SGLang's\n"
     "  bench_offline_throughput, bench_one_batch_server and bench_one_batch lines too (cases\n"
     "  \"offline\", \"batch=B,input=I,output=O\"); vllm bench throughput and latency\n"
     "  --output-json is refused (no model or load in it): import their .pytorch.json side\n"
     "  files (SAVE_TO_PYTORCH_BENCHMARK_FORMAT=1), which name both. genai-perf's and AIPerf's\n"
     "  profile export JSON too (model and load from its input_config; not their CSV), and\n"
     "  trtllm-bench --report_json (case \"offline\"; held-back requests: --set concurrency=N)\n"},
    {"query", cmd_query, "run the SQL in a file against the database, read-only",
     "usage: xp query FILE.sql|- [--param NAME=VALUE]... [--format table|csv|json]\n"
     "  Opens the database read-only; every statement in the file (-: standard input) runs and\n"
     "  prints its rows. sqlite3 shell lines (.mode, .headers) are not SQL: use --format.\n"
     "  Parameters are bound by name (:NAME, @NAME or $NAME in the SQL); a VALUE written as a\n"
     "  number (8, -2, 0.5, 1e-3) as that number, any other as text (007, +8, 0x1f as given).\n"
     "  A line '-- if no rows: TEXT' in the file is said on stderr when it printed no row.\n"
     "  Rows are printed once every statement has run: an error prints none (exit 2).\n"},
    {"runs", cmd_runs, "list runs, newest first",
     "usage: xp runs [--kind K] [--status S] [--where KEY=VALUE]... [--limit N] [--format F]\n"
     "  --kind K    a run kind (xp help kinds)\n"
     "  --status S  running, ok, failed, aborted or incomplete (a run whose recording process\n"
     "              died)\n"
     "  --where     flattened columns (model, tp, batch, gpu_name or gpu, gpu_count or gpus,\n"
     "              interconnect, ...) or any metadata key (env.NCCL_P2P_DISABLE=1); a GPU in\n"
     "              any case and spacing, with or without NVIDIA/AMD (gpu=h200: NVIDIA H200);\n"
     "              uuid=3f2a9c1e: a run's UUID or a prefix of it; equality only (tp=2,\n"
     "              \"tp = 2\"): xp query compares otherwise\n"
     "  --limit N   the newest N runs (default 50)\n"
     "  --format F  table (default), csv or json\n"},
    {"show", cmd_show, "show everything recorded for a run",
     "usage: xp show RUN [--format table|json]\n"
     "  RUN is a UUID or a unique prefix of one.\n"},
    {"reclassify", cmd_reclassify, "re-apply kernel category rules to all history", NULL},
    {"compare", cmd_compare, "compare two runs or two groups of runs", NULL},
    {"decide", cmd_decide, "record a decision with its evidence", NULL},
    {"audit", cmd_audit, "re-check decisions against today's history", NULL},
    {"rerun", cmd_rerun, "run a recorded run's spec again", NULL},
    {"verify", cmd_verify, "check the database's integrity chain", NULL},
    {"merge", cmd_merge, "merge another xp database into this one", NULL},
    {"export", cmd_export, "export runs as CSV or JSON", NULL},
    {"report", cmd_report, "write a self-contained HTML report", NULL},
    {"version", cmd_version, "print xp's version, commit and schema",
     "usage: xp version\n"},
    {"help", cmd_help, "list commands, kinds, or help on one",
     "usage: xp help [COMMAND | kinds | KIND | models]\n"
     "  KIND is a run kind (xp help kinds), an import format (torch-trace, nccl-tests, ...) or\n"
     "  the kind xp runs lists its runs under (serve_bench)\n"},
    {NULL, NULL, NULL, NULL}};

const xp_cmd *xp_cmds(void) { return commands; }

const xp_cmd *xp_cmd_find(const char *name) {
  for (const xp_cmd *c = xp_cmds(); c->name; c++)
    if (strcmp(c->name, name) == 0) return c;
  return NULL;
}

/* A value missing names whose option it is, as every other option error does: `xp runs --limit`
** said "--limit needs a value" alone, which of a script's xp lines had failed left to guess. A
** command's argv[0] is its name (main.c passes it its words); main's own is xp's, for --db. */
static void value_missing(char **argv, const char *name) {
  if (argv == xp_saved_argv()) xp_error(XP_EXIT_USAGE, "%s needs a value (see `xp help`)", name);
  else xp_usage_error(argv[0], "%s needs a value", name);
}

const char *xp_opt_value(int argc, char **argv, int *i, const char *name, int *bad) {
  const char *a = argv[*i];
  size_t n = strlen(name);
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] != 0) return NULL;
  if (*i + 1 >= argc) {
    value_missing(argv, name);
    *bad = 1;
    return NULL;
  }
  return argv[++*i];
}

int xp_usage_error(const char *cmd, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return xp_error(XP_EXIT_USAGE, "%s: %s (see `xp %s --help`)", cmd, msg, cmd);
}

/* Which of two values was meant is no guess to leave, as for --param NAME given twice: the last
** silently won, so `--kind nccl_burst --kind torch_trace` listed one kind where both were asked
** for, and a decision recorded the second --because alone, for good. */
int xp_opt_twice(const char *cmd, const char *name, const char *value, const char *before) {
  if (!before) return 0;
  char *cut = xp_value_cut(before);
  int rc = xp_usage_value_error(cmd, name, value, "given twice (first %s)", cut);
  free(cut);
  return rc;
}

/* `xp show a b` said "one run at a time" without which two, and run's and help's own "(got A and
** B)" printed a long word whole, cut at the line's end mid-word. */
int xp_one_at_a_time(const char *cmd, const char *what, const char *first, const char *second) {
  char *a = xp_value_cut(first), *b = xp_value_cut(second);
  int rc = xp_usage_error(cmd, "one %s at a time (got %s and %s)", what, a, b);
  free(a);
  free(b);
  return rc;
}

int xp_usage_value_error(const char *cmd, const char *what, const char *value, const char *fmt, ...) {
  char why[512] = "";
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
  }
  char *cut = xp_value_cut(value);
  int rc = xp_usage_error(cmd, "%s %s%s%s", what, cut, fmt ? ": " : "", why);
  free(cut);
  return rc;
}


/* An option's integer value (--limit N), whole and from min to max: 0 with *out set, else the
** usage error said. A whole number past either end is out of range, however many digits it has
** (--limit 99999999999999999999 was "expected a positive integer", as if it were none), and one
** written as a decimal (10.0, 1e3) is taken, as --set and a spec file take it. */
/* Whether t is a whole number as written: a decimal of no fraction (10, 10.0, 1e3), or one past
** even a double's range (400 digits, 1e400), as --set takes it (xp_parse_past_double). */
static int whole_text(const char *t) {
  double dv;
  return (xp_parse_double(t, &dv) == 0 && dv == floor(dv)) || xp_parse_past_double(t, &dv);
}

/* t, a whole number, as an int64 in *iv: 0, or -1 where it is past int64's range. */
static int whole_int64(const char *t, int64_t *iv) {
  double dv;
  if (xp_parse_int64(t, iv) == 0) return 0;
  if (xp_parse_double(t, &dv) != 0 || fabs(dv) >= 9e18) return -1;
  *iv = (int64_t)dv;
  return 0;
}

int xp_opt_int(const char *cmd, const char *option, const char *value, int64_t min, int64_t max, int64_t *out) {
  /* the spaces around it set aside, as --set sets them aside ("--limit $N " from a script's quoting) */
  char *t = xp_unpadded(value);
  int64_t iv = 0;
  int rc = 0;
  if (!*t)
    rc = xp_usage_error(cmd, "%s: an empty value (an unset shell variable?): expected an integer from %lld to %lld",
                        option, (long long)min, (long long)max);
  else if (!whole_text(t))
    rc = xp_usage_value_error(cmd, option, value, "expected an integer from %lld to %lld%s", (long long)min,
                              (long long)max, xp_based_integer(t) ? XP_DECIMAL_ONLY : "");
  else if (whole_int64(t, &iv) != 0 || iv < min || iv > max)
    rc = xp_usage_value_error(cmd, option, value, "out of range [%lld, %lld]", (long long)min, (long long)max);
  else *out = iv;
  free(t);
  return rc;
}


/* "table, csv or json" */
static char *choices_text(const char *const *choices) {
  char *text = xp_strdup("");
  for (size_t i = 0; choices[i]; i++) {
    char *joined = xp_asprintf("%s%s%s", text, i == 0 ? "" : choices[i + 1] ? ", " : " or ", choices[i]);
    free(text);
    text = joined;
  }
  return text;
}

/* A value of fixed choices (--format, --status) is matched whatever its case: it selects, and
** nothing stores it as typed, so `--format CSV` has one meaning; it was refused, where a spec's
** choices (stored) keep their one spelling. Another word is refused naming the choice it was
** likely meant as (xp_near, as for spec keys and commands) and every choice. */
const char *xp_choice_find(const char *value, const char *const *choices) {
  for (size_t i = 0; choices[i]; i++)
    if (strcasecmp(value, choices[i]) == 0) return choices[i];
  return NULL;
}

const char *xp_opt_choice(const char *cmd, const char *option, const char *value, const char *const *choices,
                          int *rc) {
  const char *found = xp_choice_find(value, choices);
  if (found) return found;
  xp_near near;
  xp_near_init(&near, value);
  for (size_t i = 0; choices[i]; i++) xp_near_offer(&near, choices[i]);
  const char *meant = xp_near_result(&near);
  char *list = choices_text(choices);
  if (meant) *rc = xp_usage_value_error(cmd, option, value, "did you mean %s? (expected %s)", meant, list);
  else *rc = xp_usage_value_error(cmd, option, value, "expected %s", list);
  free(list);
  return NULL;
}

int xp_opt_format(const char *cmd, const char *value, const char *const *formats, enum xp_format *fmt) {
  int rc = 0;
  const char *f = xp_opt_choice(cmd, "--format", value, formats, &rc);
  if (f) xp_parse_format(f, fmt);
  return rc;
}

const char *xp_option_meant(const char *word, const char *const *options) {
  char *name = xp_asprintf("%.*s", (int)strcspn(word, "="), word); /* --formt=csv: --formt */
  xp_near near;
  xp_near_init(&near, name);
  for (size_t i = 0; options[i]; i++) xp_near_offer(&near, options[i]);
  free(name);
  return xp_near_result(&near);
}

/* xp run --dryrun was "unknown option --dryrun" alone, where a misspelt command, spec key or
** import format named the one meant: an option is a name like those, and is matched alike. */
int xp_unknown_option(const char *cmd, const char *word, const char *const *options) {
  const char *meant = xp_option_meant(word, options);
  if (meant) return xp_usage_value_error(cmd, "unknown option", word, "did you mean %s?", meant);
  return xp_usage_value_error(cmd, "unknown option", word, NULL);
}
