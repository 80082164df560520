/* The command line: subcommands (one file each, cmd_*.c) behind the dispatcher in main.c. */
#ifndef XP_CLI_H
#define XP_CLI_H
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>

typedef int (*xp_cmd_fn)(int argc, char **argv, const char *db_path);

typedef struct xp_cmd {
  const char *name;
  xp_cmd_fn fn;
  const char *summary;
  const char *usage; /* full help text for `xp CMD --help` */
} xp_cmd;

/* Every command, in help order (main.c). */
const xp_cmd *xp_cmds(void);
const xp_cmd *xp_cmd_find(const char *name);

/* The option among options (NULL-terminated: "--dry-run", ...) that an unknown word ("--dryrun",
** "--formt=csv") most likely meant (xp_near), else NULL. */
const char *xp_option_meant(const char *word, const char *const *options);
/* "CMD: unknown option WORD: did you mean OPTION?" (or without where none is near), exit 2. */
int xp_unknown_option(const char *cmd, const char *word, const char *const *options);

/* Option parsing shared by the commands: matches "--name value" and "--name=value".
** Returns the value and advances *i; NULL if argv[*i] is not that option. A missing value is
** reported (exit 2 via *bad) as the command's, argv[0] (its name, as main.c passes a command's
** words), or as xp's own where argv is main's (xp_saved_argv). */
const char *xp_opt_value(int argc, char **argv, int *i, const char *name, int *bad);
int xp_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An option that takes one value, given again: 0 where `before` (the value given first) is
** NULL, else "CMD: NAME VALUE: given twice (first BEFORE)", exit 2. */
int xp_opt_twice(const char *cmd, const char *name, const char *value, const char *before);
/* A second word where CMD takes one: "CMD: one WHAT at a time (got FIRST and SECOND)", each cut
** as xp_value_cut cuts it, exit 2. */
int xp_one_at_a_time(const char *cmd, const char *what, const char *first, const char *second);
/* "WHAT VALUE: <fmt...>" (or "WHAT VALUE" with fmt NULL), the user's value cut as xp_value_cut
** cuts it: whole, a long one filled the line and left out what is wrong with it. */
int xp_usage_value_error(const char *cmd, const char *what, const char *value, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* VALUE of an integer option (--limit N) into *out: 0, or "CMD: OPTION VALUE: out of range [MIN,
** MAX]" (or "expected an integer from MIN to MAX") said, exit 2. Whole decimals (10.0) count. */
int xp_opt_int(const char *cmd, const char *option, const char *value, int64_t min, int64_t max, int64_t *out);

/* Output of result sets, shared by query, runs and show. */
enum xp_format { XP_FMT_TABLE, XP_FMT_CSV, XP_FMT_JSON };
int xp_parse_format(const char *s, enum xp_format *out);
/* value among choices (NULL-terminated), in any case: the choice as spelt there, or NULL. */
const char *xp_choice_find(const char *value, const char *const *choices);
/* VALUE of OPTION among choices (NULL-terminated), in any case: the choice, or NULL with *rc
** set and "CMD: OPTION VALUE: did you mean C? (expected A, B or C)" said. */
const char *xp_opt_choice(const char *cmd, const char *option, const char *value, const char *const *choices,
                          int *rc);
/* --format VALUE among formats (xp_opt_choice) into *fmt: 0, or the usage error said. */
int xp_opt_format(const char *cmd, const char *value, const char *const *formats, enum xp_format *fmt);
/* Terminal columns `s` takes: East Asian Wide and Fullwidth characters two, combining marks none. */
size_t xp_display_width(const char *s);
/* Text as a table shows it on a terminal: line breaks, control bytes and C1 controls written
** out (\n, \x1b, \u009b), so no escape sequence reaches the terminal. Malloc'd. */
char *xp_terminal_text(const char *t);
/* Print stored text (a name, a setting, a decision's title) to out as xp_terminal_text shows
** it: every place stored text reaches a terminal goes through one of the two. */
void xp_print_text(FILE *out, const char *t);
/* Step `st` to the end and print its rows; *rows (if not NULL) gets how many. Returns 0 or an
** exit code (SQL errors). For JSON, prints one array of objects. */
int xp_print_rows(sqlite3 *db, sqlite3_stmt *st, enum xp_format fmt, FILE *out, size_t *rows);
/* Print an answer held until it was whole (xp query's, xp report --out -'s) and flush it: 0, or
** exit 1 with why it could not be written ("No space left on device"). */
int xp_print_held(const char *text, size_t n);
/* Step st to the end into a JSON array of row objects; *rc gets 0 or an exit code. */
struct cJSON *xp_rows_json(sqlite3_stmt *st, int *rc); /* reals as exact raw numbers (xp_json_real) */
/* A document as xp prints JSON (malloc'd, indented): always UTF-8, as JSON must be; bytes of
** imported text that are not become U+FFFD. */
char *xp_json_print(const struct cJSON *doc);
/* Reals written exactly: the shortest decimal that reads back as the same double. */
void xp_real_text(double v, char buf[40]);
struct cJSON *xp_json_real(double v);
struct cJSON *xp_json_int(int64_t v); /* exact past 2^53 */
/* Every real under node rewritten as xp_json_real, just before printing a tree built for use. */
void xp_json_exact(struct cJSON *node);

#endif
