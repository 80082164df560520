/*
** Printing result sets: an aligned table for people (like sqlite3's column mode), CSV
** (RFC 4180 quoting) and JSON for programs. Rows are buffered only for the table format,
** which needs column widths.
*/
#include <errno.h>
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

/* A table is for a terminal: a newline in a value would break its row, an escape sequence
** would reach the terminal; both are shown as text (CSV and JSON keep them as they are). So
** are the C1 controls written as UTF-8 (U+0080 to U+009F, bytes C2 80 to C2 9F): U+009B is
** CSI, which xterm takes as ESC [ in UTF-8 too, so a kernel or model name carrying it
** coloured or moved the terminal's text as ESC [ did before it was shown. */
char *xp_terminal_text(const char *t) {
  char *out = xp_xmalloc(4 * strlen(t) + 1), *o = out;
  for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
    if (*p == '\n') o += sprintf(o, "\\n");
    else if (*p == '\t') *o++ = ' ';
    else if (*p < 0x20 || *p == 0x7f) o += sprintf(o, "\\x%02x", *p);
    else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) o += sprintf(o, "\\u%04x", *++p);
    else *o++ = (char)*p;
  }
  *o = 0;
  return out;
}

void xp_print_text(FILE *out, const char *t) {
  char *shown = xp_terminal_text(t ? t : "");
  fputs(shown, out);
  free(shown);
}

/* Table cells: reals with 6 significant digits (enough to read, not to re-analyse: use csv or
** json for that), NULL as empty. */
static char *cell_text(sqlite3_stmt *st, int c) {
  switch (sqlite3_column_type(st, c)) {
  case SQLITE_NULL: return xp_strdup("");
  case SQLITE_FLOAT: return xp_asprintf("%.6g", sqlite3_column_double(st, c));
  case SQLITE_BLOB: return xp_asprintf("<%d bytes>", sqlite3_column_bytes(st, c));
  default: return xp_terminal_text((const char *)sqlite3_column_text(st, c));
  }
}

/* Terminal columns, which is what aligns a table: East Asian Wide and Fullwidth characters
** (CJK, Hangul, most emoji) take two, combining marks and other zero-width code points none
** (Unicode 15's EastAsianWidth.txt and general categories Mn, Me, Cf, as wcwidth implementations
** take them). libc's wcwidth would answer only under a UTF-8 locale the user may not have set. */
struct cp_range {
  unsigned lo, hi;
};
static const struct cp_range zero_width[] = {
  {0x0300, 0x036F}, {0x0483, 0x0489}, {0x0591, 0x05BD}, {0x05BF, 0x05BF}, {0x05C1, 0x05C2},
  {0x05C4, 0x05C5}, {0x05C7, 0x05C7}, {0x0610, 0x061A}, {0x064B, 0x065F}, {0x0670, 0x0670},
  {0x06D6, 0x06DC}, {0x06DF, 0x06E4}, {0x06E7, 0x06E8}, {0x06EA, 0x06ED}, {0x0711, 0x0711},
  {0x0730, 0x074A}, {0x07A6, 0x07B0}, {0x07EB, 0x07F3}, {0x0816, 0x0819}, {0x081B, 0x0823},
  {0x0825, 0x0827}, {0x0829, 0x082D}, {0x0859, 0x085B}, {0x08D3, 0x08E1}, {0x08E3, 0x0902},
  {0x093A, 0x093A}, {0x093C, 0x093C}, {0x0941, 0x0948}, {0x094D, 0x094D}, {0x0951, 0x0957},
  {0x0962, 0x0963}, {0x0981, 0x0981}, {0x09BC, 0x09BC}, {0x09C1, 0x09C4}, {0x09CD, 0x09CD},
  {0x09E2, 0x09E3}, {0x0A01, 0x0A02}, {0x0A3C, 0x0A3C}, {0x0A41, 0x0A51}, {0x0A70, 0x0A71},
  {0x0A75, 0x0A75}, {0x0A81, 0x0A82}, {0x0ABC, 0x0ABC}, {0x0AC1, 0x0AC8}, {0x0ACD, 0x0ACD},
  {0x0AE2, 0x0AE3}, {0x0B01, 0x0B01}, {0x0B3C, 0x0B3C}, {0x0B3F, 0x0B3F}, {0x0B41, 0x0B44},
  {0x0B4D, 0x0B4D}, {0x0B56, 0x0B56}, {0x0B62, 0x0B63}, {0x0B82, 0x0B82}, {0x0BC0, 0x0BC0},
  {0x0BCD, 0x0BCD}, {0x0C00, 0x0C00}, {0x0C3E, 0x0C40}, {0x0C46, 0x0C56}, {0x0C62, 0x0C63},
  {0x0CBC, 0x0CBC}, {0x0CCC, 0x0CCD}, {0x0CE2, 0x0CE3}, {0x0D00, 0x0D01}, {0x0D41, 0x0D44},
  {0x0D4D, 0x0D4D}, {0x0D62, 0x0D63}, {0x0DCA, 0x0DCA}, {0x0DD2, 0x0DD6}, {0x0E31, 0x0E31},
  {0x0E34, 0x0E3A}, {0x0E47, 0x0E4E}, {0x0EB1, 0x0EB1}, {0x0EB4, 0x0EBC}, {0x0EC8, 0x0ECD},
  {0x0F18, 0x0F19}, {0x0F35, 0x0F35}, {0x0F37, 0x0F37}, {0x0F39, 0x0F39}, {0x0F71, 0x0F7E},
  {0x0F80, 0x0F84}, {0x0F86, 0x0F87}, {0x0F8D, 0x0FBC}, {0x0FC6, 0x0FC6}, {0x102D, 0x1030},
  {0x1032, 0x1037}, {0x1039, 0x103A}, {0x103D, 0x103E}, {0x1058, 0x1059}, {0x105E, 0x1060},
  {0x1071, 0x1074}, {0x1082, 0x1082}, {0x1085, 0x1086}, {0x108D, 0x108D}, {0x109D, 0x109D},
  {0x1160, 0x11FF}, {0x135D, 0x135F}, {0x1712, 0x1714}, {0x1732, 0x1734}, {0x1752, 0x1753},
  {0x1772, 0x1773}, {0x17B4, 0x17B5}, {0x17B7, 0x17BD}, {0x17C6, 0x17C6}, {0x17C9, 0x17D3},
  {0x17DD, 0x17DD}, {0x180B, 0x180F}, {0x1885, 0x1886}, {0x18A9, 0x18A9}, {0x1920, 0x1922},
  {0x1927, 0x1928}, {0x1932, 0x1932}, {0x1939, 0x193B}, {0x1A17, 0x1A18}, {0x1A1B, 0x1A1B},
  {0x1A56, 0x1A56}, {0x1A58, 0x1A60}, {0x1A62, 0x1A62}, {0x1A65, 0x1A6C}, {0x1A73, 0x1A7F},
  {0x1AB0, 0x1AFF}, {0x1B00, 0x1B03}, {0x1B34, 0x1B34}, {0x1B36, 0x1B3A}, {0x1B3C, 0x1B3C},
  {0x1B42, 0x1B42}, {0x1B6B, 0x1B73}, {0x1B80, 0x1B81}, {0x1BA2, 0x1BA5}, {0x1BA8, 0x1BA9},
  {0x1BAB, 0x1BAD}, {0x1BE6, 0x1BE6}, {0x1BE8, 0x1BE9}, {0x1BED, 0x1BED}, {0x1BEF, 0x1BF1},
  {0x1C2C, 0x1C33}, {0x1C36, 0x1C37}, {0x1CD0, 0x1CD2}, {0x1CD4, 0x1CE0}, {0x1CE2, 0x1CE8},
  {0x1CED, 0x1CED}, {0x1CF4, 0x1CF4}, {0x1CF8, 0x1CF9}, {0x1DC0, 0x1DFF}, {0x200B, 0x200F},
  {0x202A, 0x202E}, {0x2060, 0x2064}, {0x20D0, 0x20F0}, {0x2CEF, 0x2CF1}, {0x2D7F, 0x2D7F},
  {0x2DE0, 0x2DFF}, {0x302A, 0x302D}, {0x3099, 0x309A}, {0xA66F, 0xA672}, {0xA674, 0xA67D},
  {0xA69E, 0xA69F}, {0xA6F0, 0xA6F1}, {0xA802, 0xA802}, {0xA806, 0xA806}, {0xA80B, 0xA80B},
  {0xA825, 0xA826}, {0xA8C4, 0xA8C5}, {0xA8E0, 0xA8F1}, {0xA8FF, 0xA8FF}, {0xA926, 0xA92D},
  {0xA947, 0xA951}, {0xA980, 0xA982}, {0xA9B3, 0xA9B3}, {0xA9B6, 0xA9B9}, {0xA9BC, 0xA9BD},
  {0xA9E5, 0xA9E5}, {0xAA29, 0xAA2E}, {0xAA31, 0xAA32}, {0xAA35, 0xAA36}, {0xAA43, 0xAA43},
  {0xAA4C, 0xAA4C}, {0xAA7C, 0xAA7C}, {0xAAB0, 0xAAB0}, {0xAAB2, 0xAAB4}, {0xAAB7, 0xAAB8},
  {0xAABE, 0xAABF}, {0xAAC1, 0xAAC1}, {0xAAEC, 0xAAED}, {0xAAF6, 0xAAF6}, {0xABE5, 0xABE5},
  {0xABE8, 0xABE8}, {0xABED, 0xABED}, {0xD7B0, 0xD7FF}, {0xFB1E, 0xFB1E}, {0xFE00, 0xFE0F},
  {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}, {0x101FD, 0x101FD}, {0x102E0, 0x102E0}, {0x10376, 0x1037A},
  {0x10A01, 0x10A0F}, {0x10A38, 0x10A3F}, {0x10AE5, 0x10AE6}, {0x10D24, 0x10D27},
  {0x10F46, 0x10F50}, {0x11001, 0x11001}, {0x11038, 0x11046}, {0x1107F, 0x11081},
  {0x110B3, 0x110B6}, {0x110B9, 0x110BA}, {0x11100, 0x11102}, {0x11127, 0x1112B},
  {0x1112D, 0x11134}, {0x1D167, 0x1D169}, {0x1D17B, 0x1D182}, {0x1D185, 0x1D18B},
  {0x1D1AA, 0x1D1AD}, {0x1E000, 0x1E02A}, {0x1E130, 0x1E136}, {0x1E2EC, 0x1E2EF},
  {0x1E8D0, 0x1E8D6}, {0x1E944, 0x1E94A}, {0xE0001, 0xE007F}, {0xE0100, 0xE01EF},
};
static const struct cp_range double_width[] = {
  {0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
  {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
  {0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
  {0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
  {0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728},
  {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
  {0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
  {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
  {0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F},
  {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x16FE4}, {0x16FF0, 0x16FF1}, {0x17000, 0x18CFF},
  {0x18D00, 0x18D08}, {0x1AFF0, 0x1B2FF}, {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF},
  {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F202}, {0x1F210, 0x1F23B},
  {0x1F240, 0x1F248}, {0x1F250, 0x1F251}, {0x1F260, 0x1F265}, {0x1F300, 0x1F320},
  {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
  {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E},
  {0x1F440, 0x1F440}, {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E},
  {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A}, {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4},
  {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC}, {0x1F6D0, 0x1F6D2},
  {0x1F6D5, 0x1F6D7}, {0x1F6DC, 0x1F6DF}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC},
  {0x1F7E0, 0x1F7EB}, {0x1F7F0, 0x1F7F0}, {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945},
  {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD},
};

static int in_ranges(unsigned cp, const struct cp_range *r, size_t n) {
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (cp > r[mid].hi) lo = mid + 1;
    else if (cp < r[mid].lo) hi = mid;
    else return 1;
  }
  return 0;
}

/* The code point at s (its length in *len), or -1 for a byte that starts none: shown as one
** column (the terminal's U+FFFD) by a database written before text was mended on the way in. */
static long next_code_point(const unsigned char *s, size_t *len) {
  const size_t n = xp_utf8_sequence(s, strnlen((const char *)s, 4));
  if (n == 0) {
    *len = 1;
    return -1;
  }
  *len = n;
  if (n == 1) return s[0];
  unsigned cp = s[0] & (0x7F >> n);
  for (size_t i = 1; i < n; i++) cp = cp << 6 | (s[i] & 0x3F);
  return (long)cp;
}

size_t xp_display_width(const char *s) {
  size_t w = 0, len;
  for (const unsigned char *p = (const unsigned char *)s; *p; p += len) {
    long cp = next_code_point(p, &len);
    if (cp < 0x300) w++; /* ASCII, Latin-1, and a byte that is not UTF-8 */
    else if (in_ranges((unsigned)cp, zero_width, sizeof zero_width / sizeof *zero_width)) continue;
    else w += in_ranges((unsigned)cp, double_width, sizeof double_width / sizeof *double_width) ? 2 : 1;
  }
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
  /* a column an expression names is its SQL as written, a line break and all (SELECT round(\n x, 1)) */
  char **names = xp_xmalloc((size_t)ncol * sizeof *names);
  for (int c = 0; c < ncol; c++) {
    names[c] = xp_terminal_text(sqlite3_column_name(st, c));
    width[c] = xp_display_width(names[c]);
  }
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (nrows == cap) cells = xp_xrealloc(cells, (cap *= 2) * (size_t)ncol * sizeof *cells);
    for (int c = 0; c < ncol; c++) {
      char *t = cell_text(st, c);
      cells[nrows * (size_t)ncol + (size_t)c] = t;
      if (xp_display_width(t) > width[c]) width[c] = xp_display_width(t);
      if (is_numeric_col(st, c)) numeric[c] = 1;
    }
    nrows++;
  }
  int result = 0;
  if (rc != SQLITE_DONE) result = XP_EXIT_USAGE;
  else {
    for (int c = 0; c < ncol; c++)
      fprintf(out, "%s%s%*s", c ? "  " : "", names[c], (int)(width[c] - xp_display_width(names[c])), "");
    fputc('\n', out);
    for (int c = 0; c < ncol; c++) {
      fputs(c ? "  " : "", out);
      for (size_t i = 0; i < width[c]; i++) fputc('-', out);
    }
    fputc('\n', out);
    for (size_t r = 0; r < nrows; r++) {
      for (int c = 0; c < ncol; c++) {
        const char *t = cells[r * (size_t)ncol + (size_t)c];
        int pad = (int)(width[c] - xp_display_width(t));
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
  for (int c = 0; c < ncol; c++) free(names[c]);
  free(names);
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

/* Why is said here, while errno holds it: one write larger than stdout's buffer fails at once,
** leaving main's fflush nothing to fail on, and main could only say that a write failed. */
int xp_print_held(const char *text, size_t n) {
  if (fwrite(text, 1, n, stdout) == n && fflush(stdout) == 0) return 0;
  return xp_error(XP_EXIT_FAILED, "cannot write output: %s", strerror(errno));
}
