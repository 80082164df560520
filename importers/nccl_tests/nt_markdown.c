/*
** nccl-tests' report pasted as a Markdown table, as people put results in a GitHub issue, a pull
** request or a wiki: "| size | count | type | redop | root | time | algbw | busbw | #wrong | ... |",
** a "|---:|---|" line, then a row per size. Its cells are laid out as nccl-tests lays out its
** columns, right-aligned in fields of one width, so that the text reader takes the header and
** rows as the report's own, and an empty cell (rccl-tests' blank root, a group -O 0 leaves blank)
** keeps its column's place.
*/
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "nccl_tests.h"

#define CELL_WIDTH 24

/* A cell as nccl-tests prints the column: trimmed; in the header, lower case ("Size") and
** without the unit the report prints on its own line ("time (us)", "busbw (GB/s)"). */
static size_t cell_text(const char *cell, size_t n, int header, char *out, size_t size) {
  while (n && isspace((unsigned char)*cell)) cell++, n--;
  while (n && isspace((unsigned char)cell[n - 1])) n--;
  const char *unit = header ? memchr(cell, '(', n) : NULL;
  if (unit && unit > cell && cell[n - 1] == ')') {
    n = (size_t)(unit - cell);
    while (n && isspace((unsigned char)cell[n - 1])) n--;
  }
  if (n >= size) n = size - 1;
  for (size_t i = 0; i < n; i++) out[i] = header ? (char)tolower((unsigned char)cell[i]) : cell[i];
  out[n] = 0;
  return n;
}

int nt_markdown_delimiter(const char *s) {
  return strspn(s, "|-: \t") == strlen(s) && strchr(s, '-') != NULL;
}

int nt_markdown_cells(const char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n && isspace((unsigned char)s[n - 1])) n--;
  if (n && *s == '|') s++, n--;
  if (n && s[n - 1] == '|') n--;
  int cells = 1;
  for (size_t i = 0; i < n; i++) cells += s[i] == '|';
  return cells;
}

int nt_markdown_row(const char *s, int header, char *out, size_t n) {
  if (nt_markdown_delimiter(s)) return 0;
  size_t used = 0;
  out[0] = 0;
  for (const char *cell = *s == '|' ? s + 1 : s; *cell && used < n;) { /* outer pipes or none */
    const char *bar = strchr(cell, '|');
    const size_t len = bar ? (size_t)(bar - cell) : strlen(cell);
    char text[CELL_WIDTH * 2];
    cell_text(cell, len, header, text, sizeof text);
    if (!bar && !text[0]) break; /* after the closing '|' */
    used += (size_t)snprintf(out + used, n - used, " %*s", CELL_WIDTH - 1, text);
    cell += bar ? len + 1 : len;
  }
  return 1;
}
