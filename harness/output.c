/*
** Printing result sets: an aligned table for people (like sqlite3's column mode), CSV
** (RFC 4180 quoting) and JSON for programs. Rows are buffered only for the table format,
** which needs column widths.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "cli.h"
#include "db.h"
#include "xp.h"

int xp_parse_format(const char *s, enum xp_format *out) {
  if (strcmp(s, "table") == 0) *out = XP_FMT_TABLE;
  else if (strcmp(s, "csv") == 0) *out = XP_FMT_CSV;
  else if (strcmp(s, "json") == 0) *out = XP_FMT_JSON;
  else return -1;
  return 0;
}

/* A BLOB as its SQL literal, x'00ff41': text that says what it is (a byte count looked like an
** integer, raw bytes broke CSV and JSON). */
static char *blob_text(sqlite3_stmt *st, int c) {
  const unsigned char *b = sqlite3_column_blob(st, c);
  const int n = sqlite3_column_bytes(st, c);
  char *out = xp_xmalloc(2 * (size_t)n + 4), *o = out;
  *o++ = 'x', *o++ = '\'';
  for (int i = 0; i < n; i++) o += sprintf(o, "%02x", b[i]);
  *o++ = '\'', *o = 0;
  return out;
}

/* Table cells: reals with 6 significant digits (enough to read, not to re-analyse: use csv or
** json for that), NULL as empty. */
static char *cell_text(sqlite3_stmt *st, int c) {
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: return xp_strdup("");
  case SQLITE_FLOAT: return xp_asprintf("%.6g", sqlite3_column_double(st, c));
  case SQLITE_BLOB: return xp_asprintf("<%d bytes>", sqlite3_column_bytes(st, c));
  default: {
    /* a table is for a terminal: a newline in a value would break its row, an escape sequence
    ** would reach the terminal; both are shown as text (CSV and JSON keep them as they are) */
    const char *t = (const char *)sqlite3_column_text(st, c);
    char *out = xp_xmalloc(4 * strlen(t) + 1), *o = out;
    for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
      if (*p == '\n') o += sprintf(o, "\\n");
      else if (*p == '\t') *o++ = ' ';
      else if (*p < 0x20 || *p == 0x7f) o += sprintf(o, "\\x%02x", *p);
      else *o++ = (char)*p;
    }
    *o = 0;
    return out;
  }
  }
}

static size_t display_width(const char *s) {
  size_t w = 0;
  for (; *s; s++)
    if (((unsigned char)*s & 0xC0) != 0x80) w++; /* count UTF-8 code points */
  return w;
}

static int is_numeric_col(sqlite3_stmt *st, int c) {
  int t = sqlite3_column_type(st, c);
  return t == SQLITE_INTEGER || t == SQLITE_FLOAT;
}

static int print_table(sqlite3 *db, sqlite3_stmt *st, FILE *out, size_t *rows) {
  int ncol = sqlite3_column_count(st), rc;
  size_t nrows = 0, cap = 64;
  char **cells = xp_xmalloc(cap * (size_t)ncol * sizeof *cells);
  unsigned char *numeric = xp_xcalloc((size_t)ncol, 1);
  size_t *width = xp_xcalloc((size_t)ncol, sizeof *width);
  for (int c = 0; c < ncol; c++) width[c] = display_width(sqlite3_column_name(st, c));
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (nrows == cap) cells = xp_xrealloc(cells, (cap *= 2) * (size_t)ncol * sizeof *cells);
    for (int c = 0; c < ncol; c++) {
      char *t = cell_text(st, c);
      cells[nrows * (size_t)ncol + (size_t)c] = t;
      if (display_width(t) > width[c]) width[c] = display_width(t);
      if (is_numeric_col(st, c)) numeric[c] = 1;
    }
    nrows++;
  }
  int result = 0;
  if (rc != SQLITE_DONE) result = XP_EXIT_USAGE;
  else {
    for (int c = 0; c < ncol; c++) {
      const char *name = sqlite3_column_name(st, c);
      fprintf(out, "%s%s%*s", c ? "  " : "", name, (int)(width[c] - display_width(name)), "");
    }
    fputc('\n', out);
    for (int c = 0; c < ncol; c++) {
      fputs(c ? "  " : "", out);
      for (size_t i = 0; i < width[c]; i++) fputc('-', out);
    }
    fputc('\n', out);
    for (size_t r = 0; r < nrows; r++) {
      for (int c = 0; c < ncol; c++) {
        const char *t = cells[r * (size_t)ncol + (size_t)c];
        int pad = (int)(width[c] - display_width(t));
        if (numeric[c]) fprintf(out, "%s%*s%s", c ? "  " : "", pad, "", t);
        else fprintf(out, "%s%s%*s", c ? "  " : "", t, c == ncol - 1 ? 0 : pad, "");
      }
      fputc('\n', out);
    }
    if (nrows == 0) fputs("(no rows)\n", out);
  }
  *rows = nrows;
  for (size_t i = 0; i < nrows * (size_t)ncol; i++) free(cells[i]);
  free(cells);
  free(numeric);
  free(width);
  return result;
}

static void csv_field(FILE *out, const char *s) {
  if (strpbrk(s, ",\"\n\r") == NULL) {
    fputs(s, out);
    return;
  }
  fputc('"', out);
  for (; *s; s++) {
    if (*s == '"') fputc('"', out);
    fputc(*s, out);
  }
  fputc('"', out);
}

/* The shortest decimal that reads back as the same double: round(x, 1) prints as 24.3, not
** 24.300000000000001, and no value loses a bit. */
void xp_real_text(double v, char buf[40]) {
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, 40, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) break;
  }
}

/* A real as JSON, every bit kept: cJSON writes 15 digits where the 16th or 17th is within its
** tolerance of the value (370.79999999999995 came back as 370.8). NaN and the infinities are
** no JSON number: null. */
cJSON *xp_json_real(double v) {
  if (!isfinite(v)) return cJSON_CreateNull();
  char buf[40];
  xp_real_text(v, buf);
  return cJSON_CreateRaw(buf);
}

void xp_json_exact(cJSON *node) {
  cJSON *c = node ? node->child : NULL;
  while (c) {
    cJSON *next = c->next;
    if (cJSON_IsNumber(c)) {
      const double v = c->valuedouble;
      cJSON *exact = v == floor(v) && fabs(v) < 9007199254740992.0 ? cJSON_CreateNumber(v) : xp_json_real(v);
      if (c->string) cJSON_ReplaceItemInObjectCaseSensitive(node, c->string, exact); /* keeps the key */
      else cJSON_ReplaceItemViaPointer(node, c, exact);
    } else xp_json_exact(c);
    c = next;
  }
}

/* An integer as JSON, exact past 2^53 (nanosecond timestamps), where a double would round. */
cJSON *xp_json_int(int64_t v) {
  if (v > -9007199254740992LL && v < 9007199254740992LL) return cJSON_CreateNumber((double)v);
  char buf[24];
  snprintf(buf, sizeof buf, "%lld", (long long)v);
  return cJSON_CreateRaw(buf);
}

static void print_real(FILE *out, double v) {
  char buf[40];
  xp_real_text(v, buf);
  fputs(buf, out);
}

static int print_csv(sqlite3_stmt *st, FILE *out, size_t *rows) {
  int ncol = sqlite3_column_count(st), rc;
  for (int c = 0; c < ncol; c++) {
    if (c) fputc(',', out);
    csv_field(out, sqlite3_column_name(st, c));
  }
  fputc('\n', out);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    ++*rows;
    for (int c = 0; c < ncol; c++) {
      if (c) fputc(',', out);
      if (sqlite3_column_type(st, c) == SQLITE_FLOAT) print_real(out, sqlite3_column_double(st, c));
      else if (sqlite3_column_type(st, c) == SQLITE_BLOB) {
        char *t = blob_text(st, c);
        csv_field(out, t);
        free(t);
      } else if (sqlite3_column_type(st, c) != SQLITE_NULL) csv_field(out, (const char *)sqlite3_column_text(st, c));
    }
    fputc('\n', out);
  }
  return rc == SQLITE_DONE ? 0 : XP_EXIT_USAGE;
}

cJSON *xp_rows_json(sqlite3_stmt *st, int *rc_out) {
  int ncol = sqlite3_column_count(st), rc;
  cJSON *arr = cJSON_CreateArray();
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    cJSON *o = cJSON_CreateObject();
    for (int c = 0; c < ncol; c++) {
      const char *name = sqlite3_column_name(st, c);
      switch (sqlite3_column_type(st, c)) {
      case SQLITE_NULL: cJSON_AddNullToObject(o, name); break;
      case SQLITE_INTEGER: cJSON_AddItemToObject(o, name, xp_json_int(sqlite3_column_int64(st, c))); break;
      case SQLITE_FLOAT: cJSON_AddItemToObject(o, name, xp_json_real(sqlite3_column_double(st, c))); break;
      case SQLITE_BLOB: {
        char *t = blob_text(st, c);
        cJSON_AddStringToObject(o, name, t);
        free(t);
        break;
      }
      default: cJSON_AddStringToObject(o, name, (const char *)sqlite3_column_text(st, c));
      }
    }
    cJSON_AddItemToArray(arr, o);
  }
  *rc_out = rc == SQLITE_DONE ? 0 : XP_EXIT_USAGE;
  return arr;
}

char *xp_json_print(const cJSON *doc) {
  char *raw = cJSON_Print(doc), *text = xp_utf8_mend(raw);
  free(raw);
  return text;
}

static int print_json(sqlite3_stmt *st, FILE *out, size_t *rows) {
  int rc;
  cJSON *arr = xp_rows_json(st, &rc);
  *rows = (size_t)cJSON_GetArraySize(arr);
  char *text = xp_json_print(arr);
  fprintf(out, "%s\n", text);
  free(text);
  cJSON_Delete(arr);
  return rc;
}

int xp_print_rows(sqlite3 *db, sqlite3_stmt *st, enum xp_format fmt, FILE *out, size_t *rows) {
  size_t n = 0;
  int rc = fmt == XP_FMT_CSV ? print_csv(st, out, &n) : fmt == XP_FMT_JSON ? print_json(st, out, &n)
                                                      : print_table(db, st, out, &n);
  if (rows) *rows = n;
  if (!rc) return 0;
  /* A damaged, unreadable or locked database is the database's fault (exit 3), not the
  ** query's (exit 2) (tests/bad_inputs: db-corrupt-*). */
  if (xp_db_fault(db)) return xp_db_fail(db, "reading");
  return xp_error(XP_EXIT_USAGE, "query failed: %s", sqlite3_errmsg(db));
}
