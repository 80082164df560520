/* Kernel category rules (see tt_rules.h and categories.tsv). */
#include "tt_rules.h"
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "xp.h"
#include "xp_blob.h"

const char *const tt_match_names[] = {"prefix", "contains", "icontains", "regex", NULL};
static const char *const groups[] = {"communication", "compute", "memory", "other", NULL};

static int find_word(const char *const *list, const char *w) {
  for (int i = 0; list[i]; i++)
    if (strcmp(list[i], w) == 0) return i;
  return -1;
}

static int find_category(const tt_rules *r, const char *name) {
  for (int i = 0; i < r->ncats; i++)
    if (strcmp(r->cat[i].name, name) == 0) return i;
  return -1;
}

/* Split a line on TABs into at most max fields; returns the count. Modifies line. */
static int split_tabs(char *line, char **f, int max) {
  int n = 0;
  for (char *p = line; n < max;) {
    f[n++] = p;
    char *t = strchr(p, '\t');
    if (!t) break;
    *t = 0;
    p = t + 1;
  }
  return n;
}

static int parse_line(tt_rules *r, char *line, const char *label, int ln) {
  char *f[5];
  int n = split_tabs(line, f, 5);
  if (strcmp(f[0], "category") == 0) {
    if (n != 3) return xp_error_at(XP_EXIT_USAGE, label, ln, "expected: category<TAB>NAME<TAB>GROUP");
    if (find_word(groups, f[2]) < 0)
      return xp_error_at(XP_EXIT_USAGE, label, ln,
                         "group \"%s\" is not one of communication, compute, memory, other", f[2]);
    if (find_category(r, f[1]) >= 0)
      return xp_error_at(XP_EXIT_USAGE, label, ln, "category \"%s\" declared twice", f[1]);
    r->cat = xp_xrealloc(r->cat, (size_t)(r->ncats + 1) * sizeof *r->cat);
    r->cat[r->ncats++] = (tt_category){xp_strdup(f[1]), xp_strdup(f[2])};
    return 0;
  }
  if (strcmp(f[0], "rule") == 0) {
    if (n != 4 || !*f[3])
      return xp_error_at(XP_EXIT_USAGE, label, ln, "expected: rule<TAB>CATEGORY<TAB>HOW<TAB>PATTERN");
    if (find_category(r, f[1]) < 0)
      return xp_error_at(XP_EXIT_USAGE, label, ln, "rule for undeclared category \"%s\"", f[1]);
    int how = find_word(tt_match_names, f[2]);
    if (how < 0)
      return xp_error_at(XP_EXIT_USAGE, label, ln,
                         "match \"%s\" is not one of prefix, contains, icontains, regex", f[2]);
    tt_rule rule = {xp_strdup(f[1]), (enum tt_match)how, xp_strdup(f[3]), {0}, ln};
    if (how == TT_REGEX) {
      int rc = regcomp(&rule.re, f[3], REG_EXTENDED | REG_NOSUB);
      if (rc != 0) {
        char msg[128];
        regerror(rc, &rule.re, msg, sizeof msg);
        free(rule.category);
        free(rule.pattern);
        return xp_error_at(XP_EXIT_USAGE, label, ln, "bad regex \"%s\": %s", f[3], msg);
      }
    }
    r->rule = xp_xrealloc(r->rule, (size_t)(r->nrules + 1) * sizeof *r->rule);
    r->rule[r->nrules++] = rule;
    return 0;
  }
  return xp_error_at(XP_EXIT_USAGE, label, ln, "line starts with \"%s\", not category or rule", f[0]);
}

int tt_rules_parse(const char *text, size_t len, const char *label, tt_rules *out) {
  memset(out, 0, sizeof *out);
  const char *p = text, *end = text + len;
  int ln = 0;
  while (p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
    ln++;
    char *line = xp_xmalloc(n + 1);
    memcpy(line, p, n);
    line[n] = 0;
    if (n && line[n - 1] == '\r') line[--n] = 0;
    const char *s = line;
    while (*s == ' ') s++;
    int rc = 0;
    /* the rules are stored as text (trace_rule_set, trace_rules): a pattern mended to U+FFFD
    ** there would no longer be the one that matched at import */
    const long bad = xp_utf8_invalid_at(line, n);
    if (bad >= 0) rc = xp_error_at(XP_EXIT_USAGE, label, ln, "not UTF-8 text (byte %ld of the line)", bad + 1);
    else if (*s && *s != '#') rc = parse_line(out, line, label, ln);
    free(line);
    if (rc) {
      tt_rules_free(out);
      return rc;
    }
    p = nl ? nl + 1 : end;
  }
  if (find_category(out, "other") < 0) {
    tt_rules_free(out);
    return xp_error_at(XP_EXIT_USAGE, label, 0, "no \"other\" category declared (names no rule matches go there)");
  }
  return 0;
}

int tt_rules_builtin(tt_rules *out) {
  const struct xp_blob *b = xp_datafile("categories.tsv");
  if (!b) return xp_error(XP_EXIT_ENV, "categories.tsv is not built into this xp");
  return tt_rules_parse(b->data, b->len, "categories.tsv (built in)", out);
}

static int icontains(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (const char *h = hay; *h; h++)
    if (strncasecmp(h, needle, n) == 0) return 1;
  return 0;
}

int tt_rules_match(const tt_rules *r, const char *name) {
  for (int i = 0; i < r->nrules; i++) {
    const tt_rule *u = &r->rule[i];
    int hit = 0;
    switch (u->how) {
      case TT_PREFIX: hit = strncmp(name, u->pattern, strlen(u->pattern)) == 0; break;
      case TT_CONTAINS: hit = strstr(name, u->pattern) != NULL; break;
      case TT_ICONTAINS: hit = icontains(name, u->pattern); break;
      case TT_REGEX: hit = regexec(&u->re, name, 0, NULL, 0) == 0; break;
    }
    if (hit) return i;
  }
  return -1;
}

const char *tt_rules_category_of(const tt_rules *r, int rule, const char *kind) {
  if (rule >= 0) return r->rule[rule].category;
  int c = kind && (strcmp(kind, "memcpy") == 0 || strcmp(kind, "memset") == 0) ? find_category(r, kind) : -1;
  return c < 0 ? "other" : r->cat[c].name;
}

const char *tt_rules_category(const tt_rules *r, const char *name, const char *kind) {
  return tt_rules_category_of(r, tt_rules_match(r, name), kind);
}

const char *tt_rules_group(const tt_rules *r, const char *category) {
  int i = find_category(r, category);
  return i < 0 ? "other" : r->cat[i].group;
}

const char *tt_rules_describe(const tt_rules *r, int i) {
  static char buf[300];
  if (i < 0) return "no rule matched";
  snprintf(buf, sizeof buf, "%s %s (line %d)", tt_match_names[r->rule[i].how], r->rule[i].pattern,
           r->rule[i].line);
  return buf;
}

void tt_rules_free(tt_rules *r) {
  for (int i = 0; i < r->nrules; i++) {
    if (r->rule[i].how == TT_REGEX) regfree(&r->rule[i].re);
    free(r->rule[i].category);
    free(r->rule[i].pattern);
  }
  for (int i = 0; i < r->ncats; i++) {
    free(r->cat[i].name);
    free(r->cat[i].group);
  }
  free(r->rule);
  free(r->cat);
  memset(r, 0, sizeof *r);
}
