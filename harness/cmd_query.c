/*
** xp query FILE.sql: every statement in the file runs against the database opened read-only
** (db.c's authorizer refuses writes, ATTACH and extension loading), with named parameters
** bound from --param NAME=VALUE.
*/
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "db.h"
#include "query.h"
#include "xp.h"

static long line_at(const char *text, const char *p) {
  long line = 1;
  for (const char *c = text; c < p; c++)
    if (*c == '\n') line++;
  return line;
}

/* Skip whitespace and comments, so that a statement's line is where its SQL starts. */
static const char *skip_blank(const char *p) {
  for (;;) {
    while (isspace((unsigned char)*p)) p++;
    if (p[0] == '-' && p[1] == '-') {
      while (*p && *p != '\n') p++;
    } else if (p[0] == '/' && p[1] == '*') {
      const char *e = strstr(p + 2, "*/");
      p = e ? e + 2 : p + strlen(p);
    } else return p;
  }
}

/* The line of a statement's error: where SQLite found it (a misspelt column on the tenth line
** of a long query is on the tenth line), else where the statement starts. */
static long error_line(sqlite3 *db, const char *sql, const char *stmt, long stmt_line) {
#if SQLITE_VERSION_NUMBER >= 3038000 /* sqlite3_error_offset */
  const int off = sqlite3_error_offset(db);
  if (off >= 0 && (size_t)off <= strlen(stmt)) return line_at(sql, stmt + off);
#else
  (void)db, (void)sql, (void)stmt;
#endif
  return stmt_line;
}

int xp_param_parse(const char *kv, xp_param *out) {
  const char *eq = strchr(kv, '=');
  if (!eq || eq == kv) return -1;
  size_t n = (size_t)(eq - kv);
  if (n >= sizeof out->name) return -1;
  memcpy(out->name, kv, n);
  out->name[n] = 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)out->name[i]) && out->name[i] != '_') return -1;
  out->value = eq + 1;
  return 0;
}

/* 1 where v is a number as JSON writes one (8, -2, 0.5, 1e-3), *integral set where it has no
** fraction or exponent. Not 007, +8, 0x1f, inf or " 8": strtod takes them all as numbers, but
** such a value is a zero-padded id, a commit or run prefix, a name, which bound as its number
** would lose what it says (007 would be 7, matching no '007%'). */
static int written_as_number(const char *v, int *integral) {
  const char *p = v + (*v == '-');
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') while (isdigit((unsigned char)*p)) p++;
  else return 0;
  *integral = 1;
  if (*p == '.') {
    if (!isdigit((unsigned char)*++p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
    *integral = 0;
  }
  if (*p == 'e' || *p == 'E') {
    p += p[1] == '+' || p[1] == '-';
    if (!isdigit((unsigned char)*++p)) return 0;
    while (isdigit((unsigned char)*p)) p++;
    *integral = 0;
  }
  return *p == 0;
}

/* A value written as a number binds as one, so `tp = :tp` compares numbers (a view's column
** or json_extract's value has no affinity to turn the text '8' into 8); any other as text. */
static void bind_value(sqlite3_stmt *st, int idx, const char *v) {
  int64_t iv;
  double dv;
  int integral = 0;
  const int number = written_as_number(v, &integral);
  /* past what SQLite holds (20 digits, 1e999) it is text too: an id, not a rounded number */
  if (number && integral && xp_parse_int64(v, &iv) == 0)
    sqlite3_bind_int64(st, idx, iv);
  else if (number && !integral && xp_parse_double(v, &dv) == 0)
    sqlite3_bind_double(st, idx, dv);
  else xp_bind_text(st, idx, v); /* mended as stored text is, so a value with a bad byte still matches */
}

int xp_bind_params(sqlite3_stmt *st, const xp_param *params, int nparams, const char *file,
                   long line) {
  for (int i = 1; i <= sqlite3_bind_parameter_count(st); i++) {
    const char *name = sqlite3_bind_parameter_name(st, i);
    if (!name || name[0] == '?') /* ? and ?NNN alike: --param names a parameter, not a position */
      return xp_error_at(XP_EXIT_USAGE, file, line, "positional parameters (?) are not supported; use :name");
    int found = 0;
    for (int j = 0; j < nparams; j++)
      if (strcmp(params[j].name, name + 1) == 0) {
        bind_value(st, i, params[j].value);
        found = 1;
      }
    if (!found)
      return xp_error_at(XP_EXIT_USAGE, file, line, "parameter %s has no value (give --param %s=VALUE)",
                         name, name + 1);
  }
  return 0;
}

void xp_params_named(sqlite3_stmt *st, const xp_param *params, int nparams, char *used) {
  for (int i = 0; i < nparams; i++) {
    char name[80];
    for (const char *prefix = ":@$"; *prefix && !used[i]; prefix++) {
      snprintf(name, sizeof name, "%c%s", *prefix, params[i].name);
      used[i] = sqlite3_bind_parameter_index(st, name) > 0;
    }
  }
}

const char *xp_query_name(const char *file) { return strcmp(file, "-") == 0 ? "<stdin>" : file; }

/* The file's SQL; "-" is standard input, as sqlite3 and psql -f read it (a here-document, a
** pipe from another tool), named <stdin> in messages. */
char *xp_query_read(const char *file, int *rc) {
  size_t len = 0;
  const int from_stdin = strcmp(file, "-") == 0;
  char *sql = from_stdin ? xp_read_fd(0, &len) : xp_read_file(file, &len);
  file = xp_query_name(file);
  *rc = sql ? 0 : xp_error_at(XP_EXIT_USAGE, file, 0, "cannot read: %s", strerror(errno));
  const char *nul = sql ? memchr(sql, 0, len) : NULL;
  if (!nul) return sql;
  /* SQLite stops at the first NUL: the rest of the file was left unread, with no word said,
  ** and a UTF-16 file (Windows PowerShell's > writes it) failed as 'near "\xff\xfeS": syntax error' */
  if (!(*rc = xp_utf16_refused(file, sql, len)))
    *rc = xp_error_at(XP_EXIT_USAGE, file, line_at(sql, nul), "not a text file (NUL byte)");
  free(sql);
  return NULL;
}

/* A line the sqlite3 shell reads as its own command (.mode csv, .headers on, .read FILE):
** not SQL, where SQLite said 'near ".": syntax error' and left the user to guess. xp has no such
** commands: what they set is an option. */
static int dot_command(const char *p, const char *file, long line) {
  static const struct { const char *command, *instead; } instead[] = {
      {".tables", "the tables: SELECT name, sql FROM sqlite_schema"},
      {".schema", "the tables: SELECT name, sql FROM sqlite_schema"},
      {".indexes", "the tables: SELECT name, sql FROM sqlite_schema"},
      {".param", "a parameter: --param NAME=VALUE"},
      {".parameter", "a parameter: --param NAME=VALUE"},
  };
  const int n = (int)strcspn(p, " \t\r\n;");
  const char *say = "the output's form: --format table|csv|json"; /* .mode, .headers, .separator */
  for (size_t i = 0; i < sizeof instead / sizeof instead[0]; i++)
    if ((size_t)n == strlen(instead[i].command) && strncmp(p, instead[i].command, (size_t)n) == 0)
      say = instead[i].instead;
  return xp_error_at(XP_EXIT_USAGE, file, line, "%.*s is a sqlite3 shell command, not SQL: xp query runs SQL alone (%s)",
                     n > 40 ? 40 : n, p, say);
}

int xp_query_text(sqlite3 *db, const char *sql, const char *file, const xp_param *params,
                  int nparams, xp_row_fn on_stmt, void *arg) {
  const char *p = sql;
  int nstmt = 0;
  for (;;) {
    p = skip_blank(p);
    if (!*p) break;
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    long line = line_at(sql, p);
    if (*p == '.') return dot_command(p, file, line);
    if (sqlite3_prepare_v2(db, p, -1, &st, &tail) != SQLITE_OK) {
      if (xp_db_fault(db)) return xp_db_fail(db, "reading the schema"); /* not the query's fault */
      line = error_line(db, sql, p, line);
      if (strstr(sqlite3_errmsg(db), "not authorized"))
        return xp_error_at(XP_EXIT_USAGE, file, line,
                           "query files may only read the database (writes, ATTACH, PRAGMAs that change state and extensions are refused)");
      char *msg = xp_strdup(sqlite3_errmsg(db));
      const int rc = xp_error_at(XP_EXIT_USAGE, file, line, "%s%s", msg, xp_db_older_hint(db, msg));
      free(msg);
      return rc;
    }
    if (!st) { p = tail; continue; } /* a comment-only remainder */
    if (!sqlite3_stmt_readonly(st)) {
      sqlite3_finalize(st);
      return xp_error_at(XP_EXIT_USAGE, file, line, "query files may only read the database");
    }
    int rc = xp_bind_params(st, params, nparams, file, line);
    if (rc == 0) rc = on_stmt(arg, db, st, file, line);
    sqlite3_finalize(st);
    if (rc) return rc;
    nstmt++;
    p = tail;
  }
  if (nstmt == 0) return xp_error_at(XP_EXIT_USAGE, file, 0, "no SQL statement in the file");
  return 0;
}

/* sets: statements that return rows (counted before any runs); count: those printed so far;
** rows: the rows they printed */
struct print_arg {
  enum xp_format fmt;
  FILE *out;
  int count, sets;
  size_t rows;
  const xp_param *params;
  int nparams;
  char *used;
};

/* The first pass: how many result sets the file prints (several, in JSON, are one array of
** arrays: two documents back to back are no JSON), and which --param the statements name, by
** SQLite's own reading of them (:name, @name or $name; never one inside a string or comment). */
static int scan_stmt(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  (void)db, (void)file, (void)line;
  struct print_arg *pa = arg;
  if (sqlite3_column_count(st) > 0) pa->sets++;
  xp_params_named(st, pa->params, pa->nparams, pa->used);
  return 0;
}

/* A statement failed while running: the query's fault (2, located in the file) unless the
** database itself is damaged, unreadable or locked (3, naming the database). */
static int step_error(sqlite3 *db, const char *file, long line) {
  if (xp_db_fault(db)) return xp_db_fail(db, "reading");
  return xp_error_at(XP_EXIT_USAGE, file, line, "%s", sqlite3_errmsg(db));
}

/* A JSON row is an object: a second column of one name (r.uuid beside g.uuid, both "uuid")
** was written as a second key, which json.load and jq read as the last alone, the first lost. */
int xp_json_names_apart(sqlite3_stmt *st, const char *file, long line) {
  const int n = sqlite3_column_count(st);
  for (int j = 1; j < n; j++)
    for (int i = 0; i < j; i++)
      if (strcmp(sqlite3_column_name(st, i), sqlite3_column_name(st, j)) == 0) {
        char *name = xp_value_cut(sqlite3_column_name(st, j));
        xp_error_at(XP_EXIT_USAGE, file, line, "columns %d and %d are both named %s, one key of a JSON row;"
                    " name one apart (AS ...)", i + 1, j + 1, name);
        free(name);
        return XP_EXIT_USAGE;
      }
  return 0;
}

static int print_stmt(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line) {
  struct print_arg *pa = arg;
  if (pa->fmt == XP_FMT_JSON && xp_json_names_apart(st, file, line)) return XP_EXIT_USAGE;
  if (sqlite3_column_count(st) == 0) {
    int rc = sqlite3_step(st);
    return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : step_error(db, file, line);
  }
  if (pa->count++ && pa->fmt != XP_FMT_JSON) fputc('\n', pa->out); /* a blank line between sets */
  if (pa->fmt == XP_FMT_JSON && pa->sets > 1) fputs(pa->count == 1 ? "[\n" : ",\n", pa->out);
  /* Reported once, here, with the statement's line: xp_print_rows would say it without one
  ** (two lines for one error; tests/bad_inputs: query-runtime-error). */
  xp_error_quiet(1);
  size_t rows = 0;
  int rc = xp_print_rows(db, st, pa->fmt, pa->out, &rows);
  xp_error_quiet(0);
  pa->rows += rows;
  return rc ? step_error(db, file, line) : 0;
}

/* A query file may say what an empty answer means, in a comment line of its own:
**   -- if no rows: no nccl_burst runs yet (xp run experiments/allreduce_burst.toml)
** Said on stderr, so that CSV and JSON stay data; "(no rows)" alone leaves a new user guessing
** whether the history is empty, the question has no answer, or the file is wrong. */
static void say_if_no_rows(const char *sql, const char *file) {
  static const char tag[] = "-- if no rows:";
  for (const char *p = sql; p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
    p += strspn(p, " \t");
    if (strncmp(p, tag, sizeof tag - 1) != 0) continue;
    p += sizeof tag - 1;
    p += strspn(p, " \t");
    int n = (int)strcspn(p, "\r\n");
    if (n > 0) fprintf(stderr, "xp: %s: no rows: %.*s\n", file, n, p);
    return;
  }
}

int cmd_query(int argc, char **argv, const char *db_path) {
  const char *file = NULL, *format = NULL;
  xp_param *params = xp_xcalloc((size_t)argc, sizeof *params);
  int nparams = 0, bad = 0, rc = 0;
  struct print_arg pa = {.fmt = XP_FMT_TABLE, .params = params};
  for (int i = 1; i < argc && rc == 0; i++) {
    const char *v;
    if ((v = xp_opt_value(argc, argv, &i, "--param", &bad))) {
      if (xp_param_parse(v, &params[nparams++]) != 0)
        rc = xp_usage_value_error("query", "--param", v, "expected NAME=VALUE with NAME of letters, digits and _");
      for (int j = 0; rc == 0 && j < nparams - 1; j++) /* which one would bind is no guess to leave */
        if (strcmp(params[j].name, params[nparams - 1].name) == 0) {
          char *name = xp_value_cut(params[j].name);
          rc = xp_usage_value_error("query", "--param", v, "%s given twice", name);
          free(name);
        }
    } else if ((v = xp_opt_value(argc, argv, &i, "--format", &bad))) {
      if ((rc = xp_opt_twice("query", "--format", v, format)) == 0)
        rc = xp_opt_format("query", v, (const char *const[]){"table", "csv", "json", NULL}, &pa.fmt);
      format = v;
    } else if (bad) rc = XP_EXIT_USAGE;
    else if (argv[i][0] == '-' && argv[i][1]) rc = xp_unknown_option("query", argv[i], (const char *const[]){"--param", "--format", "--help", NULL});
    else if (file) rc = xp_one_at_a_time("query", "query file", file, argv[i]);
    else file = argv[i];
  }
  if (rc == 0 && !file) rc = xp_usage_error("query", "which query file? (xp query queries/NAME.sql)");
  char *sql = NULL;
  if (rc == 0) sql = xp_query_read(file, &rc);
  if (file) file = xp_query_name(file);
  sqlite3 *db = NULL;
  if (rc == 0) db = xp_db_open(db_path, XP_DB_READONLY, &rc);
  pa.nparams = nparams;
  pa.used = xp_xcalloc((size_t)nparams + 1, 1);
  if (rc == 0) rc = xp_query_text(db, sql, file, params, nparams, scan_stmt, &pa);
  /* The answer is held until every statement has run: one that fails on a later row, or a
  ** later statement, left the rows before it on stdout, in JSON a whole array of some rows
  ** (exit 2, but `> out.json` kept a file that reads as the answer). */
  char *held = NULL;
  size_t held_len = 0;
  pa.out = open_memstream(&held, &held_len);
  if (rc == 0 && !pa.out) rc = xp_error(XP_EXIT_FAILED, "cannot hold the output: %s", strerror(errno));
  if (rc == 0) rc = xp_query_text(db, sql, file, params, nparams, print_stmt, &pa);
  if (rc == 0 && pa.fmt == XP_FMT_JSON && pa.sets > 1) fputs("]\n", pa.out);
  if (pa.out) fclose(pa.out);
  if (rc == 0) rc = xp_print_held(held, held_len);
  free(held);
  if (rc == 0 && pa.sets > 0 && pa.rows == 0) say_if_no_rows(sql, file);
  for (int i = 0; i < nparams && rc == 0; i++)
    if (!pa.used[i])
      xp_warn("%s: --param %s: the query has no :%s (a misspelt name?)", file, params[i].name, params[i].name);
  free(pa.used);
  xp_db_close(db);
  free(sql);
  free(params);
  return rc;
}
