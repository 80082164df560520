/*
** The one table of run kinds and importers. GPU kinds are always present: built without CUDA
** they still validate and plan (--dry-run), and refuse to execute (exit 4).
*/
#include <stddef.h>
#include <string.h>
#include "kind.h"

#define XP_KIND(sym) extern const xp_kind sym;
XP_KIND(xp_kind_torch_trace)
XP_KIND(xp_kind_nccl_burst)
XP_KIND(xp_kind_nccl_tests)
XP_KIND(xp_kind_gemm)
XP_KIND(xp_kind_ceilings)
XP_KIND(xp_kind_kernel_variant)
XP_KIND(xp_kind_vllm_bench)
#undef XP_KIND

static const xp_kind *const table[] = {&xp_kind_torch_trace, &xp_kind_nccl_burst,
                                       &xp_kind_nccl_tests,  &xp_kind_gemm,
                                       &xp_kind_ceilings,    &xp_kind_kernel_variant,
                                       &xp_kind_vllm_bench,  NULL};

const xp_kind *const *xp_kinds_all(void) {
  return table;
}

const xp_kind *xp_kind_find(const char *name) {
  for (size_t i = 0; table[i]; i++)
    if (strcmp(table[i]->name, name) == 0) return table[i];
  return NULL;
}

/* "vllm-bench" and "vllm_bench" alike: `xp help kinds` lists kinds with underscores. */
static int same_name(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (*a != *b && !((*a == '-' || *a == '_') && (*b == '-' || *b == '_'))) return 0;
  return *a == *b;
}

const xp_kind *xp_importer_find(const char *import_name) {
  for (size_t i = 0; table[i]; i++)
    if (table[i]->import_name &&
        (same_name(table[i]->import_name, import_name) || same_name(table[i]->name, import_name)))
      return table[i];
  return NULL;
}
