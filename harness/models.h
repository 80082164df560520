/*
** Model architectures and the GEMMs one GPU runs in one decode step.
**
** A model file (experiments/models/NAME.toml) copies the keys it needs from the model's
** public Hugging Face config.json under the same names (hidden_size, kv_lora_rank,
** n_routed_experts, ...), plus `name` and `source` (where the config was read).
**
** Shape derivation, for D[m,n] = A[m,k] * W[n,k]^T on one GPU, decode batch B tokens:
**   - Tensor parallelism (tp) shards attention heads, the dense MLP, shared experts and
**     the vocabulary column- or row-wise, as vLLM and SGLang do. Projections into a
**     low-rank latent (MLA's q_a_proj, kv_a_proj) and the router are replicated.
**   - Expert parallelism (ep, dividing tp) gives each GPU n_routed_experts/ep whole experts
**     sharded tp/ep ways; every GPU sees all B tokens (attention stays tensor-parallel).
**   - Routed experts run as one GEMM per active expert (the per-expert launches of the
**     cuBLAS path). With uniform routing, B tokens choosing k of E experts activate
**     E*(1-(1-k/E)^B) experts on average; each GPU runs round(that/ep) of them (at least 1),
**     and their rows add up to the B*k/ep the GPU receives: q or q + 1 rows each (two entries
**     of one name where the rows do not divide evenly).
**   - Shared experts (n_shared_experts of moe_intermediate_size, or Qwen2-MoE's one of
**     shared_expert_intermediate_size) are tensor-parallel as the dense MLP; Qwen2-MoE's is
**     gated per token: shared_expert_gate, hidden_size into 1, replicated. Their output joins
**     the routed experts' before the MLP's one all-reduce, as vLLM and SGLang sum them.
**   - MLA absorbed (the decode form in vLLM and SGLang): kv_b_proj is not applied to the
**     cache; its two halves multiply per head, as batched GEMMs over the GPU's heads:
**     kv_b_proj_k (q_nope into the latent: n=kv_lora_rank, k=qk_nope_head_dim) and
**     kv_b_proj_v (latent into values: n=v_head_dim, k=kv_lora_rank). MLA naive applies
**     kv_b_proj to the step's B tokens only (the prefill form), as a plain GEMM.
**   - DSA's lightning indexer (DeepSeek-V3.2, GLM-5: index_n_heads, index_head_dim), in every
**     layer beside MLA: wq_b (the q latent into the indexer's heads), wk (hidden into one key)
**     and weights_proj (hidden into a weight per head), replicated on every GPU as vLLM and
**     SGLang build them (ReplicatedLinear).
**   - DeepSeek-V4 (o_lora_rank; DeepSeek's inference/model.py, vLLM's deepseek_v4.py): queries
**     through a latent (wq_a replicated, wq_b column-parallel over heads), one head_dim-wide KV
**     head that serves as key and value (wkv, replicated), and a grouped low-rank output: wo_a
**     is a batched GEMM over the GPU's o_groups/tp groups, each group's heads (heads/o_groups x
**     head_dim) into o_lora_rank, and wo_b (row-parallel) takes the groups' o_lora_rank each
**     back to hidden. Each layer of compress ratio 4 or 128 runs a compressor on every token
**     (wkv and wgate from hidden, 2 x head_dim wide at ratio 4, whose windows overlap, head_dim
**     at 128); a ratio-4 layer also runs a DSA indexer: wq_b and weights_proj, and a compressor
**     of its own at index_head_dim, no wk. All of these are replicated, as vLLM builds them.
**   - Hyper-connections (hc_mult streams of the hidden state): before attention and before
**     the MLP of every layer, a GEMM mixes the flattened streams (k = hc_mult x hidden) into
**     (2 + hc_mult) x hc_mult coefficients; hc_head, before lm_head, into hc_mult. Replicated
**     (vLLM fuses each into its mhc kernels with the norm and Sinkhorn; the GEMM is the work).
**   - Checkpoint dtypes (optional; xp's own keys, from the checkpoint's quantization_config and
**     its tensors, as the engines run them): checkpoint_dtype is what the linears run at
**     (DeepSeek-V3: fp8_block), checkpoint_bf16 and checkpoint_fp4 name the GEMMs that differ
**     (lm_head and the router kept in bf16; DeepSeek-V4's routed experts in FP4). A gemm spec's
**     dtype = "checkpoint" measures each GEMM at its own. Experts held in FP4 (gpt-oss's MXFP4)
**     are derived at each GPU's expert width padded as vLLM allocates them for its MXFP4 MoE
**     backend (xp_parallel's mxfp4_backend): its Triton kernels (Hopper's default) to a
**     multiple of 64, gpt-oss-120b at TP=8 384, not 360; Marlin to 128 (and hidden_size to
**     256), FlashInfer's CUTLASS kernels to 128 (128), its TensorRT-LLM ones to 256 (256).
**   - Not counted: attention itself (softmax(QK^T)V), norms, rotary, activations, biases
**     (GLM's qkv bias is an epilogue), the compressors' pooling, multi-token-prediction layers,
**     and vLLM's fusions of q_a_proj with kv_a_proj, of DeepSeek-V4's wq_a with wkv and of a
**     compressor's wkv with its wgate (kept apart here so each is named).
*/
#ifndef XP_MODELS_H
#define XP_MODELS_H
#include <stddef.h>
#include <stdint.h>
#include "spec.h"

typedef struct xp_model {
  char *name, *source, *path;
  char sha256[65];               /* of the file's bytes: which edit of it gave the shapes; "" if unread */
  int64_t hidden, layers, heads, vocab, intermediate;
  int64_t kv_heads, head_dim;                        /* grouped-query attention */
  int64_t q_lora, kv_lora, qk_nope, qk_rope, v_head; /* MLA, when kv_lora > 0 */
  int64_t index_heads, index_head_dim;               /* DSA indexer, when index_heads > 0 */
  int64_t o_lora, o_groups;                          /* DeepSeek-V4 attention, when o_lora > 0 */
  int64_t c4_layers, c128_layers;                    /* its layers of compress ratio 4 and 128 */
  int64_t hc_mult;                                   /* hyper-connection streams, when > 0 */
  int64_t experts, topk, shared, moe_inter, first_dense, moe_freq; /* MoE, when experts > 0 */
  int64_t shared_width;          /* shared experts' intermediate width, all of them together */
  int shared_gated;              /* Qwen2-MoE's: scaled by a per-token gate (shared_expert_gate) */
  int64_t sparse_step;                               /* Qwen's decoder_sparse_step, 0 when absent */
  int64_t *mlp_only;                                 /* Qwen's mlp_only_layers: dense layers */
  int n_mlp_only;
  char *ck_dtype;                /* checkpoint_dtype, or NULL when the file gives none */
  char **ck_bf16, **ck_fp4;      /* GEMMs the checkpoint keeps in bf16, in FP4 */
  int n_ck_bf16, n_ck_fp4;
} xp_model;

/* The keys of a model file, for validation and `xp help models`. */
extern const xp_field xp_model_fields[];

/* Load and validate a model file. Errors are reported at the file's line ("xp: FILE:LINE:
** key: what") and return XP_EXIT_USAGE; a missing file is XP_EXIT_USAGE too. */
int xp_model_load(const char *path, xp_model **out);
void xp_model_free(xp_model *m);
/* The model file that a spec's model label names, models/<name>.toml beside the spec, resolved;
** NULL when there is no such file. */
char *xp_model_file_beside(const xp_spec *spec, const char *name);
/* The model a name without a file beside the spec most likely means: the one of models/ spelt
** alike but for case, of the name or of its last part (a Hugging Face id, org/NAME); NULL when
** none. Said as a suggestion, never taken: the name is the run's model label as written. */
char *xp_model_name_near(const xp_spec *spec, const char *name);
int64_t xp_model_moe_layers(const xp_model *m);

typedef struct xp_parallel {
  int tp, ep;
  int mla_absorbed; /* 1: absorbed (decode), 0: naive kv_b_proj */
  int mxfp4_backend; /* index in xp_mxfp4_backends: how experts held in FP4 are padded (0: triton) */
} xp_parallel;

/* vLLM's MXFP4 MoE backends, as a gemm spec's mxfp4_backend names them (NULL-terminated):
** "triton" (Hopper's default), "marlin", "flashinfer_cutlass", "flashinfer_trtllm". */
extern const char *const xp_mxfp4_backends[];
/* Whether the model's checkpoint holds its routed experts in FP4 (checkpoint_fp4). */
int xp_model_fp4_experts(const xp_model *m);

typedef struct xp_gemm_shape {
  char name[32];
  int64_t m, n, k; /* per-GPU GEMM D[m,n] = A[m,k] * W[n,k]^T */
  int64_t bmm;     /* independent matrices in one batched launch (heads per GPU); else 1 */
  int64_t batch;   /* decode batch (tokens in the step) the shape belongs to */
  int64_t count;   /* launches per decode step on one GPU */
  char dtype[12];  /* what it runs at: the checkpoint's dtype ("" when the model gives none),
                  ** or the gemm spec's */
} xp_gemm_shape;

/* Can the model be split this way? On failure writes one sentence to err and returns
** XP_EXIT_USAGE (the caller locates it in its spec). */
int xp_model_check_parallel(const xp_model *m, const xp_parallel *p, char *err, size_t errlen);
/* Append the decode GEMMs at `batch` tokens to *list (grown with realloc), in the order
** one layer runs them, then lm_head. The parallel split must have passed the check. */
int xp_model_decode_gemms(const xp_model *m, const xp_parallel *p, int64_t batch,
                          xp_gemm_shape **list, size_t *n);
/* The dtype GEMM `name` of the model's checkpoint runs at: "bf16", "fp8", "fp8_block" or
** "fp4"; NULL when the model file gives no checkpoint_dtype. */
const char *xp_model_checkpoint_dtype(const xp_model *m, const char *name);
/* Experts that B tokens choosing k of E uniformly activate, on average. */
double xp_moe_expected_active(int64_t experts, int64_t topk, int64_t tokens);

/* Roofline arithmetic, one definition for runner, plan and tests. Bytes count the weight,
** the activations (both elem_bytes wide) and the bf16 output once each. */
double xp_gemm_bytes(const xp_gemm_shape *s, int elem_bytes);
double xp_gemm_flops(const xp_gemm_shape *s);
/* Below this share of both ceilings a GEMM is called latency-bound: neither memory nor
** the tensor cores are busy enough to explain its time. */
#define XP_GEMM_LATENCY_SHARE 0.5
/* "memory", "compute" or "latency" from the shares of the two ceilings. */
const char *xp_gemm_bound(double bw_share, double compute_share);
#endif
