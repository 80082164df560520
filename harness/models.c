/*
** Model files and decode-step GEMM shapes (see models.h for the derivation's assumptions).
*/
#include "models.h"
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <strings.h>
#include <sys/stat.h>
#include "spec.h"
#include "xp.h"

#define BIG 1e9 /* upper bound for dimensions: catches typos like 71680000 */

static const char *const checkpoint_dtypes[] = {"bf16", "fp8", "fp8_block", NULL};

const xp_field xp_model_fields[] = {
    {"name", XP_T_STRING, 1, NULL, NULL, 0, 0, "model name as runs record it (Kimi-K2.5)"},
    {"source", XP_T_STRING, 1, NULL, NULL, 0, 0, "where the config was read (URL of config.json)"},
    {"architecture", XP_T_STRING, 0, NULL, NULL, 0, 0, "config.json architectures[0]"},
    {"hidden_size", XP_T_INT, 1, NULL, NULL, 1, BIG, NULL},
    {"num_hidden_layers", XP_T_INT, 1, NULL, NULL, 1, BIG, NULL},
    {"num_attention_heads", XP_T_INT, 1, NULL, NULL, 1, BIG, NULL},
    {"vocab_size", XP_T_INT, 1, NULL, NULL, 1, BIG, NULL},
    {"intermediate_size", XP_T_INT, 0, NULL, NULL, 1, BIG, "dense MLP width"},
    {"num_key_value_heads", XP_T_INT, 0, NULL, NULL, 1, BIG, "GQA (DeepSeek-V4: 1); default num_attention_heads"},
    {"head_dim", XP_T_INT, 0, NULL, NULL, 1, BIG, "GQA, DeepSeek-V4; default hidden_size / heads"},
    {"q_lora_rank", XP_T_INT, 0, NULL, NULL, 0, BIG, "MLA, DeepSeek-V4; 0 or absent: a full q_proj (MLA)"},
    {"kv_lora_rank", XP_T_INT, 0, NULL, NULL, 1, BIG, "present: the model uses MLA"},
    {"qk_nope_head_dim", XP_T_INT, 0, NULL, NULL, 1, BIG, NULL},
    {"qk_rope_head_dim", XP_T_INT, 0, NULL, NULL, 1, BIG, NULL},
    {"v_head_dim", XP_T_INT, 0, NULL, NULL, 1, BIG, NULL},
    {"o_lora_rank", XP_T_INT, 0, NULL, NULL, 1, BIG, "present: DeepSeek-V4's attention (one KV head, grouped low-rank output)"},
    {"o_groups", XP_T_INT, 0, NULL, NULL, 1, BIG, "DeepSeek-V4: output groups (wo_a), dividing the heads"},
    {"compress_ratios", XP_T_INTS, 0, NULL, NULL, 0, BIG, "DeepSeek-V4: per layer 0 (window only), 4 (with indexer) or 128"},
    {"index_n_heads", XP_T_INT, 0, NULL, NULL, 1, BIG, "DSA indexer: each MLA layer, or DeepSeek-V4's compress ratio 4 layers"},
    {"index_head_dim", XP_T_INT, 0, NULL, NULL, 1, BIG, NULL},
    {"hc_mult", XP_T_INT, 0, NULL, NULL, 1, BIG, "hyper-connection streams (DeepSeek-V4): their mixing GEMMs"},
    {"n_routed_experts", XP_T_INT, 0, NULL, NULL, 1, BIG, "present: MoE layers"},
    {"num_experts_per_tok", XP_T_INT, 0, NULL, NULL, 1, BIG, NULL},
    {"n_shared_experts", XP_T_INT, 0, NULL, NULL, 0, BIG, "shared experts, each moe_intermediate_size wide"},
    {"shared_expert_intermediate_size", XP_T_INT, 0, NULL, NULL, 0, BIG,
     "Qwen2-MoE's shared expert width, gated per token (shared_expert_gate); instead of n_shared_experts"},
    {"moe_intermediate_size", XP_T_INT, 0, NULL, NULL, 1, BIG, NULL},
    {"first_k_dense_replace", XP_T_INT, 0, NULL, NULL, 0, BIG, "leading dense layers"},
    {"moe_layer_freq", XP_T_INT, 0, NULL, NULL, 1, BIG, "every n-th layer is MoE"},
    {"decoder_sparse_step", XP_T_INT, 0, NULL, NULL, 1, BIG,
     "Qwen's MoE step (Llama 4's interleave_moe_layer_step): layer i is MoE when (i + 1) % step == 0"},
    {"mlp_only_layers", XP_T_INTS, 0, NULL, NULL, 0, BIG, "Qwen's dense layers, by index from 0"},
    {"checkpoint_dtype", XP_T_STRING, 0, checkpoint_dtypes, NULL, 0, 0,
     "what the checkpoint's linears run at in vLLM and SGLang (a gemm spec's dtype = \"checkpoint\")"},
    {"checkpoint_bf16", XP_T_STRINGS, 0, NULL, NULL, 0, 0, "GEMMs (xp's names) the checkpoint keeps in bf16"},
    {"checkpoint_fp4", XP_T_STRINGS, 0, NULL, NULL, 0, 0, "GEMMs (xp's names) the checkpoint holds in FP4"},
    {NULL, 0, 0, NULL, NULL, 0, 0, NULL}};

void xp_model_free(xp_model *m) {
  if (!m) return;
  free(m->name);
  free(m->source);
  free(m->path);
  free(m->ck_dtype);
  for (int i = 0; i < m->n_ck_bf16; i++) free(m->ck_bf16[i]);
  for (int i = 0; i < m->n_ck_fp4; i++) free(m->ck_fp4[i]);
  free(m->ck_bf16);
  free(m->ck_fp4);
  free(m->mlp_only);
  free(m);
}

char *xp_model_file_beside(const xp_spec *spec, const char *name) {
  char *rel = xp_asprintf("models/%s.toml", name), *path = xp_spec_resolve(spec, rel);
  struct stat st;
  free(rel);
  if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) return path;
  free(path);
  return NULL;
}

char *xp_model_name_near(const xp_spec *spec, const char *name) {
  const char *slash = strrchr(name, '/');
  const char *want = slash ? slash + 1 : name; /* a Hugging Face id: moonshotai/Kimi-K2.5 */
  char *dir = xp_spec_resolve(spec, "models");
  DIR *d = opendir(dir);
  free(dir);
  char *found = NULL;
  const struct dirent *e;
  while (d && !found && (e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n > 5 && strcmp(e->d_name + n - 5, ".toml") == 0 && n - 5 == strlen(want) &&
        strncasecmp(e->d_name, want, n - 5) == 0)
      found = xp_asprintf("%.*s", (int)(n - 5), e->d_name);
  }
  if (d) closedir(d);
  return found;
}

static int has(const xp_spec *s, const char *key) {
  return cJSON_GetObjectItemCaseSensitive(s->root, key) != NULL;
}

static int need(const xp_spec *s, const char *when_key, const char *what, const char *key) {
  if (has(s, key)) return 0;
  return xp_spec_error(s, when_key, "%s needs %s, which is missing", what, key);
}

/* The key that makes layers of a MoE model dense, to name where intermediate_size is missing. */
static const char *dense_key(const xp_spec *s) {
  static const char *const keys[] = {"mlp_only_layers", "decoder_sparse_step", "moe_layer_freq"};
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (has(s, keys[i])) return keys[i];
  return "first_k_dense_replace";
}

/* Qwen's layer keys (transformers' and vLLM's qwen2_moe.py, qwen3_moe.py): decoder_sparse_step
** is a step rule of its own, counted from layer 1 where moe_layer_freq counts from 0 (5 layers
** at step 2: 2 MoE layers, not 3), so one file gives one of the two; mlp_only_layers names
** layers of the model, each once. Kept as read: mlp_only (layer indices). */
static int check_qwen_layers(const xp_spec *s, xp_model *m) {
  if (m->sparse_step > 0 && has(s, "moe_layer_freq"))
    return xp_spec_error(s, "decoder_sparse_step", "two MoE layer steps: give Qwen's decoder_sparse_step "
                         "((i + 1) %% step == 0) or DeepSeek's moe_layer_freq (i %% freq == 0), not both");
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(s->root, "mlp_only_layers"), *e;
  if (!arr) return 0;
  if (xp_spec_check_distinct(s, "mlp_only_layers", NULL)) return XP_EXIT_USAGE;
  m->mlp_only = xp_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof *m->mlp_only);
  cJSON_ArrayForEach(e, arr) {
    const int64_t layer = xp_saturate_int64(e->valuedouble);
    if (layer >= m->layers) {
      char path[48];
      snprintf(path, sizeof path, "mlp_only_layers[%d]", m->n_mlp_only);
      return xp_spec_error(s, path, "layer %lld is past the model's %lld layers (num_hidden_layers; "
                           "layers count from 0)", (long long)layer, (long long)m->layers);
    }
    m->mlp_only[m->n_mlp_only++] = layer;
  }
  return 0;
}

/* The shared experts' width: DeepSeek's n_shared_experts experts of moe_intermediate_size, or
** Qwen2-MoE's one shared_expert_intermediate_size wide, whose output a sigmoid of a per-token
** gate scales (vLLM's qwen2_moe.py: shared_expert_gate, hidden_size into 1). One file gives
** one: both would say two widths of one expert. */
static int check_shared_expert(const xp_spec *s, xp_model *m) {
  const int64_t qwen = xp_spec_int(s->root, "shared_expert_intermediate_size", -1);
  if (qwen >= 0 && has(s, "n_shared_experts"))
    return xp_spec_error(s, "shared_expert_intermediate_size", "two shared expert widths: give "
                         "Qwen's shared_expert_intermediate_size (one gated expert that wide) or "
                         "DeepSeek's n_shared_experts (of moe_intermediate_size each), not both");
  m->shared_width = qwen >= 0 ? qwen : m->shared * m->moe_inter;
  m->shared_gated = qwen > 0;
  return 0;
}

/* The MoE and dense-layer keys a model's layers need. MoE keys without n_routed_experts (a
** Qwen or Mixtral config whose num_experts or num_local_experts was dropped as unknown) would
** leave every layer a dense MLP of intermediate_size in silence: refused, naming the key. */
static int check_moe(const xp_spec *s, xp_model *m) {
  static const char *const moe_keys[] = {"num_experts_per_tok", "moe_intermediate_size", "n_shared_experts",
                                         "shared_expert_intermediate_size", "first_k_dense_replace",
                                         "moe_layer_freq", "decoder_sparse_step", "mlp_only_layers"};
  for (size_t i = 0; m->experts <= 0 && i < sizeof moe_keys / sizeof *moe_keys; i++)
    if (has(s, moe_keys[i]))
      return xp_spec_error(s, moe_keys[i], "a MoE key without n_routed_experts, which makes the "
                           "MLP layers MoE (Qwen's num_experts, Mixtral's and gpt-oss's "
                           "num_local_experts): give it, or drop the MoE keys of a dense model");
  if (m->experts > 0) {
    if (need(s, "n_routed_experts", "a MoE model (n_routed_experts)", "num_experts_per_tok") ||
        need(s, "n_routed_experts", "a MoE model (n_routed_experts)", "moe_intermediate_size"))
      return XP_EXIT_USAGE;
    if (m->topk > m->experts)
      return xp_spec_error(s, "num_experts_per_tok", "%lld experts per token exceed the %lld "
                           "routed experts", (long long)m->topk, (long long)m->experts);
    if (m->first_dense > m->layers)
      return xp_spec_error(s, "first_k_dense_replace", "%lld dense layers exceed the %lld layers",
                           (long long)m->first_dense, (long long)m->layers);
    if (check_qwen_layers(s, m) || check_shared_expert(s, m)) return XP_EXIT_USAGE;
  }
  if (m->layers - xp_model_moe_layers(m) > 0 &&
      need(s, m->experts > 0 ? dense_key(s) : "hidden_size", "a model with dense MLP layers",
           "intermediate_size"))
    return XP_EXIT_USAGE;
  return 0;
}

/* The DSA indexer reads the q latent: it needs q_lora_rank, and its two keys go together.
** Left out, its GEMMs would be missing from the step in silence. */
static int check_indexer(const xp_spec *s, const xp_model *m) {
  const int heads = has(s, "index_n_heads"), dim = has(s, "index_head_dim");
  if (!heads && !dim) return 0;
  if (m->kv_lora <= 0 && m->o_lora <= 0)
    return xp_spec_error(s, heads ? "index_n_heads" : "index_head_dim", "a DSA indexer key without "
                         "kv_lora_rank or o_lora_rank: xp derives the indexer of MLA models "
                         "(DeepSeek-V3.2, GLM-5) and of DeepSeek-V4");
  if (need(s, heads ? "index_n_heads" : "index_head_dim", "a DSA indexer", heads ? "index_head_dim" : "index_n_heads"))
    return XP_EXIT_USAGE;
  if (m->q_lora <= 0)
    return xp_spec_error(s, "index_n_heads", "a DSA indexer projects the q latent: it needs q_lora_rank");
  return 0;
}

/* DeepSeek-V4's compress_ratios, one per layer: 0 keeps the sliding window only, 4 adds a
** compressor with overlapping windows and an indexer, 128 a compressor alone (inference/model.py;
** vLLM's attention supports these three). Counts the layers of each. */
static int check_compress_ratios(const xp_spec *s, xp_model *m) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(s->root, "compress_ratios"), *e;
  const int n = cJSON_GetArraySize(a);
  if (n != m->layers)
    return xp_spec_error(s, "compress_ratios", "%d entries for %lld layers: give one per layer "
                         "(a config's entries for its MTP layers after them are left out)", n,
                         (long long)m->layers);
  int i = 0;
  cJSON_ArrayForEach(e, a) {
    const int64_t r = (int64_t)e->valuedouble;
    if (r != 0 && r != 4 && r != 128) {
      char path[40];
      snprintf(path, sizeof path, "compress_ratios[%d]", i);
      return xp_spec_error(s, path, "compress ratio %lld: xp derives 0 (sliding window only), 4 "
                           "(compressed, with an indexer) and 128 (heavily compressed)", (long long)r);
    }
    m->c4_layers += r == 4;
    m->c128_layers += r == 128;
    i++;
  }
  return 0;
}

/* DeepSeek-V4's attention (o_lora_rank): a q latent, one KV head head_dim wide for keys and
** values alike, a grouped low-rank output, and per-layer KV compression. */
static int check_v4(const xp_spec *s, xp_model *m) {
  static const char *const keys[] = {"o_groups", "q_lora_rank", "head_dim", "num_key_value_heads",
                                     "compress_ratios"};
  static const char *const mla_only[] = {"qk_nope_head_dim", "v_head_dim"};
  if (m->kv_lora > 0)
    return xp_spec_error(s, "kv_lora_rank", "kv_lora_rank with o_lora_rank: DeepSeek-V4's attention "
                         "(o_lora_rank) has no KV latent, MLA (kv_lora_rank) no grouped output; give one");
  for (int i = 0; i < 5; i++)
    if (need(s, "o_lora_rank", "DeepSeek-V4's attention (o_lora_rank)", keys[i])) return XP_EXIT_USAGE;
  for (int i = 0; i < 2; i++)
    if (has(s, mla_only[i]))
      return xp_spec_error(s, mla_only[i], "DeepSeek-V4's heads (o_lora_rank) are head_dim wide, "
                           "keys and values alike: drop this MLA key");
  if (m->q_lora <= 0)
    return xp_spec_error(s, "q_lora_rank", "DeepSeek-V4's queries come through a latent: "
                         "q_lora_rank must be positive");
  if (m->kv_heads != 1)
    return xp_spec_error(s, "num_key_value_heads", "DeepSeek-V4's attention has one key-value "
                         "head (wkv: hidden_size into head_dim), not %lld", (long long)m->kv_heads);
  if (m->heads % m->o_groups)
    return xp_spec_error(s, "o_groups", "%lld output groups do not divide %lld attention heads",
                         (long long)m->o_groups, (long long)m->heads);
  if (check_compress_ratios(s, m)) return XP_EXIT_USAGE;
  const int indexer = has(s, "index_n_heads") || has(s, "index_head_dim");
  if (m->c4_layers > 0 && !indexer)
    return xp_spec_error(s, "compress_ratios", "%lld layers of compress ratio 4 run a DSA indexer "
                         "each: give index_n_heads and index_head_dim", (long long)m->c4_layers);
  if (m->c4_layers == 0 && indexer)
    return xp_spec_error(s, has(s, "index_n_heads") ? "index_n_heads" : "index_head_dim",
                         "no layer has compress ratio 4, the only DeepSeek-V4 layers with an indexer");
  return check_indexer(s, m);
}

/* Architectures (config.json's architectures[0], vLLM's registry names) whose layers are not
** all attention of the kinds xp derives: their config's grouped-query keys alone would derive
** full attention in every layer, and be measured and filed as the model's step. */
static const struct { const char *arch, *layers; } underived[] = {
    {"Qwen3NextForCausalLM", "Gated DeltaNet linear attention in three of every four layers, "
                             "gated attention (a q_proj twice as wide) in the rest"},
    {"Qwen3_5ForConditionalGeneration", "Gated DeltaNet linear attention in three of every four layers"},
    {"Qwen3_5MoeForConditionalGeneration", "Gated DeltaNet linear attention in three of every four layers"},
    {"KimiLinearForCausalLM", "Kimi Delta Attention (linear) in most layers"},
    {"MiniMaxText01ForCausalLM", "lightning (linear) attention in most layers"},
    {"MiniMaxM1ForCausalLM", "lightning (linear) attention in most layers"},
    {"NemotronHForCausalLM", "Mamba-2 state-space layers"},
    {"JambaForCausalLM", "Mamba state-space layers"},
    {"FalconH1ForCausalLM", "Mamba-2 state-space heads beside attention"},
    {"MambaForCausalLM", "Mamba state-space layers, no attention"},
    {"Mamba2ForCausalLM", "Mamba-2 state-space layers, no attention"},
    {"DeciLMForCausalLM", "layers of their own widths in block_configs, some without attention or MLP"},
    {"LongcatFlashForCausalLM", "two MLA blocks and two dense MLPs beside the MoE in every layer"},
    {NULL, NULL}};

/* The key that selects each architecture's attention (or MLP) in xp: left out, the attention
** falls back to grouped-query (or MLA without its indexer) in silence, shapes the model does not
** run, and Qwen2-MoE's shared expert to an ungated one (n_shared_experts) without its gate. */
static const struct { const char *arch, *key, *attention; } attention_keys[] = {
    {"DeepseekV2ForCausalLM", "kv_lora_rank", "MLA"},
    {"DeepseekV3ForCausalLM", "kv_lora_rank", "MLA"},
    /* Kimi-K2.5's config.json names its top level so; its text_config is DeepSeek-V3's */
    {"KimiK25ForConditionalGeneration", "kv_lora_rank", "MLA"},
    {"DeepseekV32ForCausalLM", "kv_lora_rank", "MLA"},
    {"DeepseekV32ForCausalLM", "index_n_heads", "DSA's indexer"},
    {"GlmMoeDsaForCausalLM", "kv_lora_rank", "MLA"},
    {"GlmMoeDsaForCausalLM", "index_n_heads", "DSA's indexer"},
    {"DeepseekV4ForCausalLM", "o_lora_rank", "DeepSeek-V4's attention"},
    /* heads whose width is not hidden_size / heads, the default head_dim (gpt-oss: 64, not 45) */
    {"GptOssForCausalLM", "head_dim", "heads of their own width"},
    {"Qwen3ForCausalLM", "head_dim", "heads of their own width"},
    {"Qwen3MoeForCausalLM", "head_dim", "heads of their own width"},
    {"Glm4MoeForCausalLM", "head_dim", "heads of their own width"},
    {"MiniMaxM2ForCausalLM", "head_dim", "heads of their own width"},
    {"Gemma2ForCausalLM", "head_dim", "heads of their own width"},
    {"Gemma3ForCausalLM", "head_dim", "heads of their own width"},
    {"Qwen2MoeForCausalLM", "shared_expert_intermediate_size", "a shared expert gated per token"},
    {NULL, NULL, NULL}};

static int check_architecture(const xp_spec *s) {
  const char *arch = xp_spec_str(s->root, "architecture", "");
  for (int i = 0; underived[i].arch; i++)
    if (strcmp(arch, underived[i].arch) == 0)
      return xp_spec_error(s, "architecture", "xp derives no GEMMs of %s's layers (%s): give its "
                           "GEMMs as a gemm spec's shapes list", arch, underived[i].layers);
  for (int i = 0; attention_keys[i].arch; i++)
    if (strcmp(arch, attention_keys[i].arch) == 0 && !has(s, attention_keys[i].key))
      return xp_spec_error(s, "architecture", "%s runs %s, which needs %s (in its config.json), "
                           "missing", arch, attention_keys[i].attention, attention_keys[i].key);
  return 0;
}

/* Cross-field rules: which keys an MLA, DeepSeek-V4, GQA or MoE model must carry. */
static int check_model(const xp_spec *s, xp_model *m) {
  const cJSON *r = s->root;
  if (check_architecture(s)) return XP_EXIT_USAGE;
  static const char *const mla_keys[] = {"q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"};
  static const char *const v4_keys[] = {"o_groups", "compress_ratios"};
  if (m->o_lora > 0) return check_v4(s, m) ? XP_EXIT_USAGE : check_moe(s, m);
  for (int i = 0; i < 2; i++)
    if (has(s, v4_keys[i]))
      return xp_spec_error(s, v4_keys[i], "a DeepSeek-V4 attention key without o_lora_rank, "
                           "which selects that attention");
  if (m->kv_lora > 0) {
    for (int i = 1; i < 4; i++)
      if (need(s, "kv_lora_rank", "an MLA model (kv_lora_rank)", mla_keys[i])) return XP_EXIT_USAGE;
    return check_indexer(s, m) ? XP_EXIT_USAGE : check_moe(s, m);
  }
  /* MLA's keys without kv_lora_rank would be dropped in silence for a full q/k/v projection,
  ** deriving grouped-query shapes the model does not run: a DeepSeek-V4 config copied without
  ** o_lora_rank has q_lora_rank so. The message names both attentions that have them. */
  for (int i = 0; i < 4; i++)
    if (xp_spec_int(r, mla_keys[i], 0) != 0)
      return xp_spec_error(s, mla_keys[i], "an MLA key without kv_lora_rank: give kv_lora_rank (MLA) "
                           "or o_lora_rank (DeepSeek-V4), or drop the MLA keys if the attention is "
                           "grouped-query; xp derives no other attention (list its GEMMs in the "
                           "spec's shapes instead)");
  if (check_indexer(s, m)) return XP_EXIT_USAGE;
  if (!has(s, "head_dim") && m->hidden % m->heads != 0)
    return xp_spec_error(s, "num_attention_heads", "hidden_size %lld is not a multiple of %lld "
                         "heads; give head_dim", (long long)m->hidden, (long long)m->heads);
  if (m->kv_heads > m->heads || m->heads % m->kv_heads != 0)
    return xp_spec_error(s, "num_key_value_heads", "%lld key-value heads do not divide %lld "
                         "attention heads", (long long)m->kv_heads, (long long)m->heads);
  return check_moe(s, m);
}

/* Keys other families' config.json give under other names than DeepSeek's, which model files
** use: said with the one to write, where "unknown key" alone left the user to guess (or to
** drop it, and with it the experts). */
static const struct config_name {
  const char *key, *note;
} config_names[] = {
    {"num_experts", "Qwen's name for n_routed_experts: write that"},
    {"num_local_experts", "Mixtral's and gpt-oss's name for n_routed_experts: write that"},
    {"experts_per_token", "gpt-oss's second name for num_experts_per_tok: write that alone"},
    /* Llama 4's intermediate_size is its experts' width: copied as the dense one, the dense
    ** layers of Maverick (16384 wide) were derived at half their width */
    {"intermediate_size_mlp", "Llama 4's dense MLP width: write it as intermediate_size, its "
                              "intermediate_size (the experts') as moe_intermediate_size, and "
                              "n_shared_experts = 1 (its MoE layers' shared expert)"},
    /* vLLM's llama4.py: layer i is MoE when (i + 1) % step == 0, Qwen's rule */
    {"interleave_moe_layer_step", "Llama 4's MoE layer step: write decoder_sparse_step (its rule)"},
    {"moe_layers", "Llama 4's list of MoE layers: leave it out (xp counts them by "
                   "first_k_dense_replace, moe_layer_freq or decoder_sparse_step)"},
    /* gpt-oss alternates sliding and full attention, the same projections; Qwen3-Next's list
    ** names linear_attention layers, which no model file can describe */
    {"layer_types", "each layer's attention: leave it out where it names sliding_attention and "
                    "full_attention alone (the same projections); xp derives no linear_attention "
                    "layer (Qwen3-Next's): give such a model's GEMMs as a gemm spec's shapes list"},
    {NULL, NULL}};

/* The unknown key written first, when it is one of config_names: refused with its note. */
static int check_config_names(const xp_spec *s) {
  const cJSON *v;
  const char *first = NULL;
  int first_line = 0;
  cJSON_ArrayForEach(v, s->root) {
    const int line = xp_spec_line(s, v->string);
    if (!xp_field_find(xp_model_fields, v->string) && (!first || (line > 0 && (first_line <= 0 || line < first_line))))
      first = v->string, first_line = line;
  }
  for (const struct config_name *c = config_names; first && c->key; c++)
    if (strcmp(c->key, first) == 0) return xp_spec_error(s, first, "unknown key: %s", c->note);
  return 0;
}

static int load_checkpoint(const xp_spec *s, xp_model *m);

int xp_model_load(const char *path, xp_model **out) {
  *out = NULL;
  xp_spec *s = xp_spec_load(path);
  if (!s) return XP_EXIT_USAGE;
  int rc = check_config_names(s);
  if (rc == 0) rc = xp_spec_check_fields(s, s->root, "", xp_model_fields, 0);
  if (rc) {
    xp_spec_free(s);
    return rc;
  }
  const cJSON *r = s->root;
  xp_model *m = xp_xcalloc(1, sizeof *m);
  m->name = xp_strdup(xp_spec_str(r, "name", ""));
  m->source = xp_strdup(xp_spec_str(r, "source", ""));
  m->path = xp_strdup(path);
  xp_file_sha256(path, m->sha256); /* left "" where it cannot be read */
  m->hidden = xp_spec_int(r, "hidden_size", 0);
  m->layers = xp_spec_int(r, "num_hidden_layers", 0);
  m->heads = xp_spec_int(r, "num_attention_heads", 0);
  m->vocab = xp_spec_int(r, "vocab_size", 0);
  m->intermediate = xp_spec_int(r, "intermediate_size", 0);
  m->kv_heads = xp_spec_int(r, "num_key_value_heads", m->heads);
  m->head_dim = xp_spec_int(r, "head_dim", m->hidden / m->heads);
  m->q_lora = xp_spec_int(r, "q_lora_rank", 0);
  m->kv_lora = xp_spec_int(r, "kv_lora_rank", 0);
  m->qk_nope = xp_spec_int(r, "qk_nope_head_dim", 0);
  m->qk_rope = xp_spec_int(r, "qk_rope_head_dim", 0);
  m->v_head = xp_spec_int(r, "v_head_dim", 0);
  m->index_heads = xp_spec_int(r, "index_n_heads", 0);
  m->index_head_dim = xp_spec_int(r, "index_head_dim", 0);
  m->o_lora = xp_spec_int(r, "o_lora_rank", 0);
  m->o_groups = xp_spec_int(r, "o_groups", 0);
  m->hc_mult = xp_spec_int(r, "hc_mult", 0);
  m->experts = xp_spec_int(r, "n_routed_experts", 0);
  m->topk = xp_spec_int(r, "num_experts_per_tok", 0);
  m->shared = xp_spec_int(r, "n_shared_experts", 0);
  m->moe_inter = xp_spec_int(r, "moe_intermediate_size", 0);
  m->first_dense = xp_spec_int(r, "first_k_dense_replace", 0);
  m->moe_freq = xp_spec_int(r, "moe_layer_freq", 1);
  m->sparse_step = xp_spec_int(r, "decoder_sparse_step", 0);
  rc = check_model(s, m);
  if (rc == 0) rc = load_checkpoint(s, m);
  xp_spec_free(s);
  if (rc) {
    xp_model_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

/* DeepSeek-V3's rule (modeling_deepseek.py): layer i is MoE when i >= first_k_dense_replace
** and i % moe_layer_freq == 0; Qwen's (qwen2_moe.py, qwen3_moe.py): when (i + 1) %
** decoder_sparse_step == 0 and i is not in mlp_only_layers. */
static int moe_layer(const xp_model *m, int64_t i) {
  if (i < m->first_dense || i % m->moe_freq != 0) return 0;
  if (m->sparse_step > 0 && (i + 1) % m->sparse_step != 0) return 0;
  for (int j = 0; j < m->n_mlp_only; j++)
    if (m->mlp_only[j] == i) return 0;
  return 1;
}

int64_t xp_model_moe_layers(const xp_model *m) {
  if (m->experts <= 0) return 0;
  int64_t n = 0;
  for (int64_t i = m->first_dense; i < m->layers; i++) n += moe_layer(m, i);
  return n;
}

static int refuse(char *err, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, n, fmt, ap);
  va_end(ap);
  return XP_EXIT_USAGE;
}

int xp_model_check_parallel(const xp_model *m, const xp_parallel *p, char *err, size_t n) {
  long long tp = p->tp, ep = p->ep;
  if (tp < 1 || ep < 1) return refuse(err, n, "tp and ep must be at least 1");
  if (m->heads % tp)
    return refuse(err, n, "%s's %lld attention heads do not split over tp=%lld", m->name,
                  (long long)m->heads, tp);
  if (m->o_lora > 0 && m->o_groups % tp)
    return refuse(err, n, "%s's %lld output groups (o_groups) do not split over tp=%lld: wo_a "
                  "gives each GPU whole groups", m->name, (long long)m->o_groups, tp);
  if (m->kv_lora <= 0 && m->kv_heads % tp && tp % m->kv_heads)
    return refuse(err, n, "%s's %lld key-value heads neither split over nor replicate evenly "
                  "across tp=%lld", m->name, (long long)m->kv_heads, tp);
  if (m->layers - xp_model_moe_layers(m) > 0 && m->intermediate % tp)
    return refuse(err, n, "%s's intermediate_size %lld does not split over tp=%lld", m->name,
                  (long long)m->intermediate, tp);
  if (m->experts <= 0) {
    if (ep != 1) return refuse(err, n, "%s has no experts; ep must be 1", m->name);
    return 0;
  }
  if (tp % ep)
    return refuse(err, n, "ep=%lld must divide tp=%lld (experts are split over ep GPUs and "
                  "each expert over tp/ep)", ep, tp);
  if (m->experts % ep)
    return refuse(err, n, "%s's %lld routed experts do not split over ep=%lld", m->name,
                  (long long)m->experts, ep);
  if (m->moe_inter % (tp / ep))
    return refuse(err, n, "%s's moe_intermediate_size %lld does not split over tp/ep=%lld",
                  m->name, (long long)m->moe_inter, tp / ep);
  if (m->shared_width % tp)
    return refuse(err, n, "%s's shared experts (%lld wide) do not split over tp=%lld", m->name,
                  (long long)m->shared_width, tp);
  return 0;
}

double xp_moe_expected_active(int64_t experts, int64_t topk, int64_t tokens) {
  if (experts <= 0 || topk <= 0 || tokens <= 0) return 0;
  return (double)experts * (1.0 - pow(1.0 - (double)topk / (double)experts, (double)tokens));
}

typedef struct list {
  xp_gemm_shape **v;
  size_t *n;
  int64_t batch;
} list;

static void add(list *l, const char *name, int64_t m, int64_t n, int64_t k, int64_t bmm,
                int64_t count) {
  if (count <= 0) return;
  *l->v = xp_xrealloc(*l->v, (*l->n + 1) * sizeof **l->v);
  xp_gemm_shape *s = &(*l->v)[(*l->n)++];
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->m = m, s->n = n, s->k = k, s->bmm = bmm, s->batch = l->batch, s->count = count;
}

/* DeepSeek-V4 (see models.h): every layer's projections, then the compressors and the indexer
** of the layers that have them, then the grouped output. */
static void attention_v4(list *l, const xp_model *m, const xp_parallel *p) {
  const int64_t B = l->batch, L = m->layers, h = m->heads / p->tp, H = m->hidden, d = m->head_dim;
  const int64_t c4 = m->c4_layers, c128 = m->c128_layers, id = m->index_head_dim;
  add(l, "wq_a", B, m->q_lora, H, 1, L);
  add(l, "wkv", B, d, H, 1, L);
  add(l, "wq_b", B, h * d, m->q_lora, 1, L);
  add(l, "c4_compress_wkv", B, 2 * d, H, 1, c4); /* overlapping windows: two halves */
  add(l, "c4_compress_wgate", B, 2 * d, H, 1, c4);
  add(l, "c128_compress_wkv", B, d, H, 1, c128);
  add(l, "c128_compress_wgate", B, d, H, 1, c128);
  add(l, "indexer_wq_b", B, m->index_heads * id, m->q_lora, 1, c4);
  add(l, "indexer_weights_proj", B, m->index_heads, H, 1, c4);
  add(l, "indexer_compress_wkv", B, 2 * id, H, 1, c4);
  add(l, "indexer_compress_wgate", B, 2 * id, H, 1, c4);
  add(l, "wo_a", B, m->o_lora, m->heads / m->o_groups * d, m->o_groups / p->tp, L);
  add(l, "wo_b", B, H, m->o_groups / p->tp * m->o_lora, 1, L);
}

static void attention(list *l, const xp_model *m, const xp_parallel *p) {
  int64_t B = l->batch, L = m->layers, h = m->heads / p->tp, H = m->hidden;
  if (m->o_lora > 0) {
    attention_v4(l, m, p);
    return;
  }
  if (m->kv_lora <= 0) {
    int64_t kvh = m->kv_heads >= p->tp ? m->kv_heads / p->tp : 1; /* replicated below tp */
    add(l, "qkv_proj", B, (h + 2 * kvh) * m->head_dim, H, 1, L);
    add(l, "o_proj", B, H, h * m->head_dim, 1, L);
    return;
  }
  int64_t qk = m->qk_nope + m->qk_rope;
  if (m->q_lora > 0) {
    add(l, "q_a_proj", B, m->q_lora, H, 1, L);
    add(l, "q_b_proj", B, h * qk, m->q_lora, 1, L);
  } else {
    add(l, "q_proj", B, h * qk, H, 1, L);
  }
  add(l, "kv_a_proj", B, m->kv_lora + m->qk_rope, H, 1, L);
  if (m->index_heads > 0) { /* replicated: every GPU scores the keys for its heads */
    add(l, "indexer_wq_b", B, m->index_heads * m->index_head_dim, m->q_lora, 1, L);
    add(l, "indexer_wk", B, m->index_head_dim, H, 1, L);
    add(l, "indexer_weights_proj", B, m->index_heads, H, 1, L);
  }
  if (p->mla_absorbed) {
    add(l, "kv_b_proj_k", B, m->kv_lora, m->qk_nope, h, L);
    add(l, "kv_b_proj_v", B, m->v_head, m->kv_lora, h, L);
  } else {
    add(l, "kv_b_proj", B, h * (m->qk_nope + m->v_head), m->kv_lora, 1, L);
  }
  add(l, "o_proj", B, H, h * m->v_head, 1, L);
}

/* Experts a checkpoint holds in FP4 (gpt-oss's MXFP4) run at the widths vLLM's
** Mxfp4MoEMethod.create_weights allocates for its backend (mxfp4.py): each GPU's expert width
** rounded up to `inter` (whole 32-wide scale blocks on every GPU, and the kernels' tiles) and
** hidden_size to `hidden`. Triton, Hopper's default: gpt-oss-120b's 2880 at TP=8 runs 384
** wide, not 360, at TP=2 1472, not 1440; Marlin ("n % 256 == 0 and k % 128 == 0") 1536 at TP=2
** and a hidden_size of 3072. The padded columns are real work, as lm_head's padded vocabulary's. */
const char *const xp_mxfp4_backends[] = {"triton", "marlin", "flashinfer_cutlass", "flashinfer_trtllm", NULL};
static const struct { int64_t inter, hidden; } mxfp4_padding[] = {{64, 1}, {128, 256}, {128, 128}, {256, 256}};

int xp_model_fp4_experts(const xp_model *m) {
  const char *up = xp_model_checkpoint_dtype(m, "moe_gate_up"), *down = xp_model_checkpoint_dtype(m, "moe_down");
  return (up && strcmp(up, "fp4") == 0) || (down && strcmp(down, "fp4") == 0);
}

static int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

static void mlp(list *l, const xp_model *m, const xp_parallel *p) {
  int64_t B = l->batch, H = m->hidden, moe = xp_model_moe_layers(m);
  int64_t dense = m->layers - moe;
  if (dense > 0) {
    add(l, "dense_gate_up", B, 2 * m->intermediate / p->tp, H, 1, dense);
    add(l, "dense_down", B, H, m->intermediate / p->tp, 1, dense);
  }
  if (moe <= 0) return;
  double active = xp_moe_expected_active(m->experts, m->topk, B);
  /* The GPU's experts receive B*k/ep routed rows, spread over its active experts as evenly as
  ** whole rows go: `more` launches of q + 1 rows and the rest of q, so that the rows add up
  ** to B*k/ep exactly (a ceil of the mean for every launch counted up to 30% too many). */
  const double rows_mean = (double)(B * m->topk) / p->ep, experts_mean = fmin(active / p->ep, rows_mean);
  int64_t rows, launches; /* per step: moe layers x (rows, active experts) of one GPU */
  if (rows_mean >= 1 && experts_mean >= 1) {
    int64_t r = llround(rows_mean), e = llround(experts_mean);
    rows = moe * r, launches = moe * (e > r ? r : e);
  } else {
    /* Under one routed row or expert a layer (B*k < ep): a GPU's experts run in some layers
    ** and not in others. Rounding each layer up to one launch counted 8x the work at batch 1
    ** on 64 GPUs; the step's totals are rounded once instead, so its mean stays right. */
    rows = llround(moe * rows_mean), launches = llround(moe * experts_mean);
    if (rows < 1) rows = 1;
    if (launches < 1) launches = 1;
    if (launches > rows) launches = rows;
  }
  const int64_t q = rows / launches, more = rows - q * launches;
  int64_t inter = m->moe_inter / (p->tp / p->ep), eh = H; /* the experts' widths */
  if (xp_model_fp4_experts(m)) {
    inter = round_up(inter, mxfp4_padding[p->mxfp4_backend].inter);
    eh = round_up(H, mxfp4_padding[p->mxfp4_backend].hidden);
  }
  add(l, "moe_router", B, m->experts, H, 1, moe);
  add(l, "moe_gate_up", q + 1, 2 * inter, eh, 1, more);
  add(l, "moe_gate_up", q, 2 * inter, eh, 1, launches - more);
  add(l, "moe_down", q + 1, eh, inter, 1, more);
  add(l, "moe_down", q, eh, inter, 1, launches - more);
  if (m->shared_width > 0) {
    int64_t sh = m->shared_width / p->tp;
    add(l, "shared_expert_gate_up", B, 2 * sh, H, 1, moe);
    add(l, "shared_expert_down", B, H, sh, 1, moe);
    /* replicated: a plain torch.nn.Linear in vLLM's and SGLang's qwen2_moe.py */
    add(l, "shared_expert_gate", B, 1, H, 1, moe * m->shared_gated);
  }
}

int xp_model_decode_gemms(const xp_model *m, const xp_parallel *p, int64_t batch,
                          xp_gemm_shape **v, size_t *n) {
  if (batch <= 0) return xp_error(XP_EXIT_USAGE, "decode batch must be positive (got %lld)",
                                  (long long)batch);
  list l = {v, n, batch};
  const size_t first = *n;
  const int64_t hc = m->hc_mult, hc_k = hc * m->hidden;
  add(&l, "hc_pre", batch, (2 + hc) * hc, hc_k, 1, 2 * m->layers * (hc > 0)); /* attention, MLP */
  attention(&l, m, p);
  mlp(&l, m, p);
  add(&l, "hc_head", batch, hc, hc_k, 1, hc > 0);
  /* vLLM and SGLang pad the vocabulary to a multiple of 64 (DEFAULT_VOCAB_PADDING_SIZE in
  ** vocab_parallel_embedding.py) and split that; the padded rows are real work. */
  const int64_t vocab_padded = (m->vocab + 63) / 64 * 64;
  add(&l, "lm_head", batch, (vocab_padded + p->tp - 1) / p->tp, m->hidden, 1, 1);
  for (size_t i = first; i < *n; i++) {
    const char *dt = xp_model_checkpoint_dtype(m, (*v)[i].name);
    snprintf((*v)[i].dtype, sizeof (*v)[i].dtype, "%s", dt ? dt : "");
  }
  return 0;
}

double xp_gemm_bytes(const xp_gemm_shape *s, int elem_bytes) {
  double b = (double)s->bmm;
  return b * ((double)s->n * s->k * elem_bytes + (double)s->m * s->k * elem_bytes +
              (double)s->m * s->n * 2.0);
}

double xp_gemm_flops(const xp_gemm_shape *s) {
  return 2.0 * (double)s->bmm * (double)s->m * (double)s->n * (double)s->k;
}

const char *xp_gemm_bound(double bw_share, double compute_share) {
  if (bw_share < XP_GEMM_LATENCY_SHARE && compute_share < XP_GEMM_LATENCY_SHARE) return "latency";
  return bw_share >= compute_share ? "memory" : "compute";
}

/* Does the model derive a GEMM of this name, in either form of MLA? */
static int derives(const xp_model *m, const char *name) {
  int found = 0;
  for (int absorbed = 0; absorbed < 2 && !found; absorbed++) {
    xp_parallel p = {.tp = 1, .ep = 1, .mla_absorbed = absorbed};
    xp_gemm_shape *v = NULL;
    size_t n = 0;
    xp_model_decode_gemms(m, &p, 1, &v, &n);
    for (size_t i = 0; i < n && !found; i++) found = strcmp(v[i].name, name) == 0;
    free(v);
  }
  return found;
}

static int listed(const xp_model *m, const char *name) {
  for (int i = 0; i < m->n_ck_bf16; i++)
    if (strcmp(m->ck_bf16[i], name) == 0) return 1;
  for (int i = 0; i < m->n_ck_fp4; i++)
    if (strcmp(m->ck_fp4[i], name) == 0) return 1;
  return 0;
}

/* checkpoint_bf16 or checkpoint_fp4: names of GEMMs the model derives, each once, and only
** beside checkpoint_dtype (alone they would say nothing about the other GEMMs). */
static int load_names(const xp_spec *s, const xp_model *m, const char *key, char ***out, int *n) {
  const cJSON *arr = cJSON_GetObjectItemCaseSensitive(s->root, key), *e;
  if (!arr) return 0;
  if (!m->ck_dtype)
    return xp_spec_error(s, key, "names GEMMs that differ from checkpoint_dtype, which is missing");
  *out = xp_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof **out);
  int i = 0;
  cJSON_ArrayForEach(e, arr) {
    char path[64];
    snprintf(path, sizeof path, "%s[%d]", key, i);
    if (!derives(m, e->valuestring))
      return xp_spec_error(s, path, "%s derives no GEMM named \"%s\" (xp help models: the names "
                           "a gemm dry run prints)", m->name, e->valuestring);
    if (listed(m, e->valuestring))
      return xp_spec_error(s, path, "\"%s\" is named twice", e->valuestring);
    (*out)[i++] = xp_strdup(e->valuestring);
    (*n)++;
  }
  return 0;
}

static int load_checkpoint(const xp_spec *s, xp_model *m) {
  const char *dt = xp_spec_str(s->root, "checkpoint_dtype", NULL);
  if (dt) m->ck_dtype = xp_strdup(dt);
  if (load_names(s, m, "checkpoint_bf16", &m->ck_bf16, &m->n_ck_bf16)) return XP_EXIT_USAGE;
  return load_names(s, m, "checkpoint_fp4", &m->ck_fp4, &m->n_ck_fp4) ? XP_EXIT_USAGE : 0;
}

const char *xp_model_checkpoint_dtype(const xp_model *m, const char *name) {
  if (!m->ck_dtype) return NULL;
  for (int i = 0; i < m->n_ck_bf16; i++)
    if (strcmp(m->ck_bf16[i], name) == 0) return "bf16";
  for (int i = 0; i < m->n_ck_fp4; i++)
    if (strcmp(m->ck_fp4[i], name) == 0) return "fp4";
  return m->ck_dtype;
}
