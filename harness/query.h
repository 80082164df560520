/* Running query files: shared by xp query and by decisions (xp decide / xp audit), which
** keep a query's text and re-run it later. */
#ifndef XP_QUERY_H
#define XP_QUERY_H
#include <sqlite3.h>

typedef struct xp_param {
  char name[64];
  const char *value;
} xp_param;

/* "NAME=VALUE" -> param; -1 when malformed. value points into kv. */
int xp_param_parse(const char *kv, xp_param *out);
/* Bind every named parameter of st; a parameter without a value is an error (file:line). */
int xp_bind_params(sqlite3_stmt *st, const xp_param *params, int nparams, const char *file,
                   long line);
/* Marks used[i] for each of params that st names (:NAME, @NAME or $NAME), by SQLite's own
** reading of it: never a name inside a string or a comment. */
void xp_params_named(sqlite3_stmt *st, const xp_param *params, int nparams, char *used);
/* Called for each prepared, bound statement; must step it. Returns 0 or an exit code. */
typedef int (*xp_row_fn)(void *arg, sqlite3 *db, sqlite3_stmt *st, const char *file, long line);
/* A query file's text ("-": standard input), else NULL and *rc (said: unreadable, UTF-16, a NUL byte). */
char *xp_query_read(const char *file, int *rc);
/* The name messages give a query file: <stdin> for "-". */
const char *xp_query_name(const char *file);
/* 0 where st's columns are named apart, else says which two share a name (a JSON row keeps one
** key of a name) and returns 2. */
int xp_json_names_apart(sqlite3_stmt *st, const char *file, long line);
/* Run every statement of sql (read-only statements only). */
int xp_query_text(sqlite3 *db, const char *sql, const char *file, const xp_param *params,
                  int nparams, xp_row_fn on_stmt, void *arg);
#endif
