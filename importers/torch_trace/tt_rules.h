/*
** Kernel categories: ordered name-pattern rules read from categories.tsv (embedded in xp, or a
** file given to `xp reclassify --rules`). The importer stores each distinct kernel name once
** with the category the rules give it; queries read categories from that table, so changing
** the rules and running `xp reclassify` re-answers every imported trace.
*/
#ifndef XP_TT_RULES_H
#define XP_TT_RULES_H
#include <regex.h>
#include <stddef.h>

enum tt_match { TT_PREFIX, TT_CONTAINS, TT_ICONTAINS, TT_REGEX };

typedef struct tt_rule {
  char *category;
  enum tt_match how;
  char *pattern;
  regex_t re; /* for TT_REGEX */
  int line;
} tt_rule;

typedef struct tt_category {
  char *name;
  char *group; /* communication, compute, memory, other */
} tt_category;

typedef struct tt_rules {
  tt_rule *rule;
  int nrules;
  tt_category *cat;
  int ncats;
} tt_rules;

/* Parse rules text; label names it in errors ("xp: LABEL:LINE: ..."). 0 or XP_EXIT_USAGE. */
int tt_rules_parse(const char *text, size_t len, const char *label, tt_rules *out);
/* The rules built into xp (importers/torch_trace/categories.tsv). */
int tt_rules_builtin(tt_rules *out);
/* The index of the first rule matching name, or -1 (category "other"). */
int tt_rules_match(const tt_rules *r, const char *name);
/* The category of a GPU activity: the first matching rule's; failing that, for a copy or a fill
** (kind "memcpy" or "memset", whatever the runtime named it) that category where the rules
** declare it; else "other". */
const char *tt_rules_category(const tt_rules *r, const char *name, const char *kind);
/* The same for a name whose match is known (rule: tt_rules_match's answer). */
const char *tt_rules_category_of(const tt_rules *r, int rule, const char *kind);
/* The group of a category, "other" if undeclared. */
const char *tt_rules_group(const tt_rules *r, const char *category);
/* Readable form of rule i, e.g. "icontains allreduce (line 33)". Static buffer. */
const char *tt_rules_describe(const tt_rules *r, int i);
void tt_rules_free(tt_rules *r);

extern const char *const tt_match_names[];
#endif
