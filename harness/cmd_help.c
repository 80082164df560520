/* xp help [COMMAND | kinds | KIND] */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "kind.h"
#include "models.h"
#include "xp.h"

static const char *type_text(xp_type t) {
  static const char *const names[] = {"string", "integer", "number", "boolean", "strings",
                                      "integers", "numbers", "table", "tables", "sizes", "table"};
  return names[t];
}

/* A range bound as the user writes it: whole numbers whole. */
static void print_bound(double v) {
  if (v == (double)(long long)v) printf("%lld", (long long)v);
  else printf("%g", v);
}

static void print_fields(const xp_field *f, int depth) {
  for (; f && f->key; f++) {
    printf("  %*s%-20s %-9s%s %s", depth * 2, "", f->key, type_text(f->type),
           f->required ? " required" : "", f->help ? f->help : "");
    if (f->choices) {
      printf(" (");
      for (int i = 0; f->choices[i]; i++) printf("%s%s", i ? ", " : "", f->choices[i]);
      printf(")");
    }
    if (f->min < f->max) {
      printf(" [");
      print_bound(f->min);
      printf(", ");
      print_bound(f->max);
      printf("]");
    }
    putchar('\n');
    if (f->sub) print_fields(f->sub, depth + 1);
  }
}

/* xp help kind, xp help Runs: the topic meant, where one is near (xp_near, as for a command). */
static int unknown_topic(const char *topic) {
  xp_near near;
  xp_near_init(&near, topic);
  xp_near_offer(&near, "kinds");
  xp_near_offer(&near, "models");
  for (const xp_cmd *c = xp_cmds(); c->name; c++) xp_near_offer(&near, c->name);
  /* an importer by its format's name alone: nccl_tests and nccl-tests are one topic, no tie */
  for (const xp_kind *const *k = xp_kinds_all(); *k; k++)
    xp_near_offer(&near, (*k)->import_name ? (*k)->import_name : (*k)->name);
  const char *meant = xp_near_result(&near);
  char *cut = xp_value_cut(topic);
  if (meant) xp_error(XP_EXIT_USAGE, "help: no command or run kind named '%s': did you mean '%s'?", cut, meant);
  else xp_error(XP_EXIT_USAGE, "help: no command or run kind named '%s'", cut);
  free(cut);
  return XP_EXIT_USAGE;
}

int cmd_help(int argc, char **argv, const char *db_path) {
  /* `xp help runs show` gave the help of runs alone, as if show were not asked */
  if (argc > 2) return xp_one_at_a_time("help", "topic", argv[1], argv[2]);
  if (argc >= 2 && strcmp(argv[1], "kinds") == 0) {
    for (const xp_kind *const *k = xp_kinds_all(); *k; k++)
      printf("  %-16s %s%s%s%s\n", (*k)->name, (*k)->summary,
             (*k)->import_name ? " (xp import " : "", (*k)->import_name ? (*k)->import_name : "",
             (*k)->import_name ? ")" : "");
    return 0;
  }
  if (argc >= 2) {
    if (strcmp(argv[1], "models") == 0) {
      printf("model files (experiments/models/NAME.toml, or model_file): keys copied from the model's\n"
             "Hugging Face config.json under DeepSeek's names (Qwen's num_experts is n_routed_experts,\n"
             "as is Mixtral's num_local_experts); a model without MLA leaves the MLA keys out.\n"
             "Attention is derived as MLA (kv_lora_rank; with DSA's indexer where index_n_heads is\n"
             "given: DeepSeek-V3.2, GLM-5), as DeepSeek-V4's (o_lora_rank: a q latent, one KV head,\n"
             "an output in o_groups low-rank groups, per-layer compress_ratios, the indexer in its\n"
             "ratio-4 layers; hc_mult adds the hyper-connections' mixing GEMMs), or grouped-query.\n"
             "Other kinds are not: give such a model's GEMMs as a gemm spec's shapes list.\n"
             "keys:\n");
      print_fields(xp_model_fields, 0);
      return 0;
    }
    const xp_cmd *c = xp_cmd_find(argv[1]);
    if (c && c->usage) { fputs(c->usage, stdout); return 0; }
    if (c) { char *a[] = {(char *)c->name, "--help", NULL}; return c->fn(2, a, NULL); }
    /* `xp import torch-trace` names the kind torch_trace: either finds its keys */
    const xp_kind *k = xp_kind_find(argv[1]);
    if (!k) k = xp_importer_find(argv[1]);
    /* the kind xp runs lists (serve_bench) is the one of the importer that records it */
    const char *as = k ? NULL : xp_kind_recorded_as(argv[1]);
    for (const xp_kind *const *r = xp_kinds_all(); as && !k && *r; r++)
      if ((*r)->records_as && strcmp((*r)->records_as, as) == 0) k = *r;
    if (!k) return unknown_topic(argv[1]);
    printf("kind %s: %s\nkeys:\n", k->name, k->summary);
    print_fields(k->fields, 0);
    if (k->notes) printf("%s", k->notes);
    printf("declared keys (any kind):\n");
    print_fields(xp_declared_fields, 0);
    return 0;
  }
  printf("usage: xp [--db PATH] COMMAND [ARGS]\n"
         "  The database is --db PATH (before the command), else $XP_DB, else ./xp.db. The first\n"
         "  command that records (run, import, merge, reclassify) creates it; the others refuse a\n"
         "  missing one (exit 3), and a dry run never creates one.\n\n"
         "commands:\n");
  for (const xp_cmd *c = xp_cmds(); c->name; c++) printf("  %-11s %s\n", c->name, c->summary);
  printf("\nrun kinds: xp help kinds; one kind's keys: xp help KIND (an importer's: xp help\n"
         "            torch-trace, ...); a model file's: xp help models\n"
         "exit codes: 0 ok, 1 run failed, audit found evidence contradicted or the output could\n"
         "            not be written, 2 bad usage or input, 3 database error (missing, not xp's,\n"
         "            newer, corrupt, locked, read-only), 4 environment (no GPU, built without CUDA),\n"
         "            5 integrity check failed (verify, audit, merge, decide), 130 interrupted (run recorded\n"
         "            as aborted)\n");
  return 0;
}
