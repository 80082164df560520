/*
** The spellings other tools give xp's dtypes: PyTorch's ("bfloat16", "torch.float8_e4m3fn",
** str(dtype) and repr), nccl-tests' ("f8e4m3"), TensorRT-LLM's quantization algorithms
** ("FP8_BLOCK_SCALES"), and xp's own names in capitals ("BF16"). A spec's dtype is a label the
** queries match runs by (decode_gap_analysis.sql pairs a trace's dtype with gemm runs of the
** same one): "bfloat16" and "bf16" would file one configuration as two, so such a spelling is
** refused naming xp's, never taken in its place (one spelling a dtype, recorded as the spec
** says it).
*/
#include <ctype.h>
#include <stddef.h>
#include <string.h>
#include <strings.h>
#include "spec.h"

typedef struct dtype_spelling {
  const char *other[10]; /* spellings, compared ignoring case, '-' as '_' and a "torch." prefix */
  const char *xp[3];     /* what xp calls it, most general first */
} dtype_spelling;

static const dtype_spelling spellings[] = {
    {{"bf16", "bfloat16", "bfloat", NULL}, {"bf16", NULL}},
    {{"fp16", "float16", "half", "f16", NULL}, {"fp16", NULL}},
    {{"fp32", "float32", "float", "f32", NULL}, {"fp32", NULL}},
    /* per-tensor e4m3: what a gemm run's "fp8" and nccl_burst's "fp8_e4m3" both are */
    {{"fp8", "fp8_e4m3", "float8_e4m3fn", "float8_e4m3", "e4m3", "e4m3fn", "f8e4m3", "fp8e4m3",
      "fp8_e4m3fn", NULL},
     {"fp8", "fp8_e4m3", NULL}},
    {{"fp8_e5m2", "float8_e5m2", "e5m2", "f8e5m2", "fp8e5m2", NULL}, {"fp8_e5m2", NULL}},
    /* DeepSeek's 128x128 blocks: TensorRT-LLM's QuantAlgo.FP8_BLOCK_SCALES, vLLM's "block fp8" */
    {{"fp8_block", "fp8_block_scales", "fp8_block_scale", "fp8_blockwise", "block_fp8", NULL},
     {"fp8_block", NULL}},
};

/* got and a spelling alike, case and '-' versus '_' aside, after any "torch." prefix of got. */
static int spelt_as(const char *got, const char *spelling) {
  if (strncasecmp(got, "torch.", 6) == 0) got += 6;
  for (; *got && *spelling; got++, spelling++) {
    const char a = *got == '-' ? '_' : (char)tolower((unsigned char)*got);
    if (a != *spelling) return 0;
  }
  return !*got && !*spelling;
}

static int among(const char *name, const char *const *names) {
  for (; *names; names++)
    if (strcmp(name, *names) == 0) return 1;
  return 0;
}

static int xp_name(const char *got) {
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++)
    if (among(got, spellings[i].xp)) return 1;
  return 0;
}

/* The row whose spellings include got, or NULL (no two rows share a spelling). */
static const dtype_spelling *spelling_of(const char *got) {
  for (size_t i = 0; i < sizeof spellings / sizeof *spellings; i++)
    for (size_t j = 0; spellings[i].other[j]; j++)
      if (spelt_as(got, spellings[i].other[j])) return &spellings[i];
  return NULL;
}

const char *xp_dtype_meant(const char *got, const char *const *names) {
  if (!names && xp_name(got)) return NULL;
  const dtype_spelling *s = spelling_of(got);
  for (size_t j = 0; s && s->xp[j]; j++)
    if (!names || among(s->xp[j], names)) return strcmp(got, s->xp[j]) ? s->xp[j] : NULL;
  return NULL;
}

/* A run's label is its row's first name: fp8_e4m3 names nccl_burst's element type alone (its
** dtypes), and every other run's e4m3 is "fp8", the label decode_gap_analysis.sql pairs a
** trace's with. */
const char *xp_dtype_label_meant(const char *got) {
  const dtype_spelling *s = spelling_of(got);
  return s && strcmp(got, s->xp[0]) ? s->xp[0] : NULL;
}
