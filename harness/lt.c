/*
** cuBLASLt matmul plans: D[M,N] = A[M,K] * W[N,K]^T, row-major, as a linear layer computes it.
**
** cuBLASLt is column-major. A row-major [R,C] matrix is a column-major [C,R] one with the
** same bytes, so the product is computed transposed: D^T[N,M] = W * A^T, which in cuBLASLt's
** terms is op(A_lt)=W^T stored [K,N] with TRANSA=T, B_lt = A^T stored [K,M], D_lt [N,M].
** That is the "TN" layout, the only one Hopper's fp8 kernels accept, so bf16 and fp8 share it.
*/
#ifdef XP_HAVE_CUDA
#include "lt.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ceilings/block_scales.h"
#include "gpu.h"
#include "xp.h"

struct xp_lt {
  cublasLtHandle_t h;
  int m, n, k, batch;
  enum xp_lt_dtype dt;
  size_t workspace;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t lw, la, ld; /* weight [K,N] (transposed), activations [K,M], out [N,M] */
  cublasLtMatmulHeuristicResult_t *cand;
  char (*desc)[256];
  int *algo_id;
  int ncand, sel;
  cublasStatus_t status; /* what the last cublasLtMatmul answered */
  void *stand_in;        /* fp8_block: scales' place until a launch gives the real arrays */
  int act_first;         /* fp8_block: cuBLASLt's A is the activations, B the weights */
};

int xp_lt_elem_bytes(enum xp_lt_dtype dt) { return dt == XP_LT_BF16 ? 2 : 1; }
const char *xp_lt_dtype_name(enum xp_lt_dtype dt) {
  return dt == XP_LT_FP8_BLOCK ? "fp8_block" : dt == XP_LT_FP8_E4M3 ? "fp8" : "bf16";
}
int xp_lt_m(const xp_lt *p) { return p->m; }
int xp_lt_n(const xp_lt *p) { return p->n; }
int xp_lt_k(const xp_lt *p) { return p->k; }
int xp_lt_batch(const xp_lt *p) { return p->batch; }
enum xp_lt_dtype xp_lt_dtype_of(const xp_lt *p) { return p->dt; }
int xp_lt_algo_count(const xp_lt *p) { return p->ncand; }
int xp_lt_out_transposed(const xp_lt *p) { return p->act_first; }

/* Word `idx` of a space-separated table, or NULL past its end. Tables below are cuBLASLt's
** enums in order (cublasLt.h, CUDA 13.0); "-" marks values the enum skips. */
static const char *table_word(const char *table, unsigned idx, char *buf, size_t n) {
  const char *s = table;
  for (unsigned i = 0; i < idx; i++) {
    s = strchr(s, ' ');
    if (!s) return NULL;
    s++;
  }
  const char *e = strchr(s, ' ');
  size_t len = e ? (size_t)(e - s) : strlen(s);
  if (len == 0 || len >= n) return NULL;
  memcpy(buf, s, len);
  buf[len] = 0;
  return buf;
}

/* cublasLtMatmulTile_t from 1 (CUBLASLT_MATMUL_TILE_8x8) on. */
static const char tile_names[] =
    "8x8 8x16 16x8 8x32 16x16 32x8 8x64 16x32 32x16 64x8 32x32 32x64 64x32 32x128 64x64 "
    "128x32 64x128 128x64 64x256 128x128 256x64 64x512 128x256 256x128 512x64 64x96 96x64 "
    "96x128 128x160 160x128 192x128 128x192 128x96 32x256 256x32 8x128 8x192 8x256 8x320 "
    "8x384 8x448 8x512 8x576 8x640 8x704 8x768 16x64 16x128 16x192 16x256 16x320 16x384 "
    "16x448 16x512 16x576 16x640 16x704 16x768 24x64 24x128 24x192 24x256 24x320 24x384 "
    "24x448 24x512 24x576 24x640 24x704 24x768 32x192 32x320 32x384 32x448 32x512 32x576 "
    "32x640 32x704 32x768 40x64 40x128 40x192 40x256 40x320 40x384 40x448 40x512 40x576 "
    "40x640 40x704 40x768 48x64 48x128 48x192 48x256 48x320 48x384 48x448 48x512 48x576 "
    "48x640 48x704 48x768 56x64 56x128 56x192 56x256 56x320 56x384 56x448 56x512 56x576 "
    "56x640 56x704 56x768 64x192 64x320 64x384 64x448 64x576 64x640 64x704 64x768 72x64 "
    "72x128 72x192 72x256 72x320 72x384 72x448 72x512 72x576 72x640 80x64 80x128 80x192 "
    "80x256 80x320 80x384 80x448 80x512 80x576 88x64 88x128 88x192 88x256 88x320 88x384 "
    "88x448 88x512 96x192 96x256 96x320 96x384 96x448 96x512 104x64 104x128 104x192 104x256 "
    "104x320 104x384 104x448 112x64 112x128 112x192 112x256 112x320 112x384 120x64 120x128 "
    "120x192 120x256 120x320 120x384 128x320 128x384 136x64 136x128 136x192 136x256 136x320 "
    "144x64 144x128 144x192 144x256 144x320 152x64 152x128 152x192 152x256 152x320 160x64 "
    "160x192 160x256 168x64 168x128 168x192 168x256 176x64 176x128 176x192 176x256 184x64 "
    "184x128 184x192 184x256 192x64 192x192 192x256 200x64 200x128 200x192 208x64 208x128 "
    "208x192 216x64 216x128 216x192 224x64 224x128 224x192 232x64 232x128 232x192 240x64 "
    "240x128 240x192 248x64 248x128 248x192 256x192 264x64 264x128 272x64 272x128 280x64 "
    "280x128 288x64 288x128 296x64 296x128 304x64 304x128 312x64 312x128 320x64 320x128 "
    "328x64 328x128 336x64 336x128 344x64 344x128 352x64 352x128 360x64 360x128 368x64 "
    "368x128 376x64 376x128 384x64 384x128 392x64 400x64 408x64 416x64 424x64 432x64 440x64 "
    "448x64 456x64 464x64 472x64 480x64 488x64 496x64 504x64 520x64 528x64 536x64 544x64 "
    "552x64 560x64 568x64 576x64 584x64 592x64 600x64 608x64 616x64 624x64 632x64 640x64 "
    "648x64 656x64 664x64 672x64 680x64 688x64 696x64 704x64 712x64 720x64 728x64 736x64 "
    "744x64 752x64 760x64 768x64 64x16 64x24 64x40 64x48 64x56 64x72 64x80 64x88 64x104 "
    "64x112 64x120 64x136 64x144 64x152 64x160 64x168 64x176 64x184 64x200 64x208 64x216 "
    "64x224 64x232 64x240 64x248 64x264 64x272 64x280 64x288 64x296 64x304 64x312 64x328 "
    "64x336 64x344 64x352 64x360 64x368 64x376 64x392 64x400 64x408 64x416 64x424 64x432 "
    "64x440 64x456 64x464 64x472 64x480 64x488 64x496 64x504 64x520 64x528 64x536 64x544 "
    "64x552 64x560 64x568 64x584 64x592 64x600 64x608 64x616 64x624 64x632 64x648 64x656 "
    "64x664 64x672 64x680 64x688 64x696 64x712 64x720 64x728 64x736 64x744 64x752 64x760 "
    "128x8 128x16 128x24 128x40 128x48 128x56 128x72 128x80 128x88 128x104 128x112 128x120 "
    "128x136 128x144 128x152 128x168 128x176 128x184 128x200 128x208 128x216 128x224 "
    "128x232 128x240 128x248 128x264 128x272 128x280 128x288 128x296 128x304 128x312 "
    "128x328 128x336 128x344 128x352 128x360 128x368 128x376 128x392 128x400 128x408 "
    "128x416 128x424 128x432 128x440 128x448 128x456 128x464 128x472 128x480 128x488 "
    "128x496 128x504 128x512 192x8 192x16 192x24 192x32 192x40 192x48 192x56 192x72 192x80 "
    "192x88 192x96 192x104 192x112 192x120 192x136 192x144 192x152 192x160 192x168 192x176 "
    "192x184 192x200 192x208 192x216 192x224 192x232 192x240 192x248 192x264 192x272 "
    "192x280 192x288 192x296 192x304 192x312 192x320 192x328 192x336 256x8 256x16 256x24 "
    "256x40 256x48 256x56 256x72 256x80 256x88 256x96 256x104 256x112 256x120 256x136 "
    "256x144 256x152 256x160 256x168 256x176 256x184 256x200 256x208 256x216 256x224 "
    "256x232 256x240 256x248 256x256 320x8 320x16 320x24 320x32 320x40 320x48 320x56 320x72 "
    "320x80 320x88 320x96 320x104 320x112 320x120 320x136 320x144 320x152 320x160 320x168 "
    "320x176 320x184 320x192 320x200 384x8 384x16 384x24 384x32 384x40 384x48 384x56 384x72 "
    "384x80 384x88 384x96 384x104 384x112 384x120 384x136 384x144 384x152 384x160 384x168 "
    "448x8 448x16 448x24 448x32 448x40 448x48 448x56 448x72 448x80 448x88 448x96 448x104 "
    "448x112 448x120 448x128 448x136 448x144 512x8 512x16 512x24 512x32 512x40 512x48 "
    "512x56 512x72 512x80 512x88 512x96 512x104 512x112 512x120 512x128 576x8 576x16 576x24 "
    "576x32 576x40 576x48 576x56 576x72 576x80 576x88 576x96 576x104 576x112 640x8 640x16 "
    "640x24 640x32 640x40 640x48 640x56 640x72 640x80 640x88 640x96 704x8 704x16 704x24 "
    "704x32 704x40 704x48 704x56 704x72 704x80 704x88 768x8 768x16 768x24 768x32 768x40 "
    "768x48 768x56 768x72 768x80 256x512 256x1024 512x512 512x1024 "
    ;
/* cublasLtMatmulStages_t from 1 (CUBLASLT_MATMUL_STAGES_16x1) on. */
static const char stage_names[] =
    "16x1 16x2 16x3 16x4 16x5 16x6 32x1 32x2 32x3 32x4 32x5 32x6 64x1 64x2 64x3 64x4 64x5 "
    "64x6 128x1 128x2 128x3 128x4 128x5 128x6 32x10 8x4 16x10 8x5 - - 8x3 8xAUTO 16xAUTO "
    "32xAUTO 64xAUTO 128xAUTO 256xAUTO 768xAUTO "
    ;
/* cublasLtClusterShape_t from 0 (CUBLASLT_CLUSTER_SHAPE_AUTO) on. */
static const char cluster_names[] =
    "AUTO - 1x1x1 2x1x1 4x1x1 1x2x1 2x2x1 4x2x1 1x4x1 2x4x1 4x4x1 8x1x1 1x8x1 8x2x1 2x8x1 "
    "16x1x1 1x16x1 3x1x1 5x1x1 6x1x1 7x1x1 9x1x1 10x1x1 11x1x1 12x1x1 13x1x1 14x1x1 15x1x1 "
    "3x2x1 5x2x1 6x2x1 7x2x1 1x3x1 2x3x1 3x3x1 4x3x1 5x3x1 3x4x1 1x5x1 2x5x1 3x5x1 1x6x1 "
    "2x6x1 1x7x1 2x7x1 1x9x1 1x10x1 1x11x1 1x12x1 1x13x1 1x14x1 1x15x1 "
    ;

static const char *enum_name(const char *table, int base, unsigned v, char *buf, size_t n) {
  if (v == 0 && base == 1) return "auto";
  if (v < (unsigned)base || !table_word(table, v - base, buf, n)) snprintf(buf, n, "#%u", v);
  return buf;
}

static const char *reduction_name(uint32_t r) {
  switch (r) {
    case CUBLASLT_REDUCTION_SCHEME_NONE: return "none";
    case CUBLASLT_REDUCTION_SCHEME_INPLACE: return "inplace";
    case CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE: return "compute";
    case CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE: return "output";
    default: return "?";
  }
}

/* One line per candidate from the algorithm's own configuration, so two runs that picked
** different kernels can be told apart in the database. *algo_id gets the algorithm's id. */
static void describe(const cublasLtMatmulHeuristicResult_t *c, char *out, size_t n, int *algo_id) {
  int id = -1;
  uint32_t tile = 0, stages = 0, splitk = 1, red = 0, swizzle = 0, custom = 0;
  uint16_t cluster = 0;
  size_t got;
  const cublasLtMatmulAlgo_t *a = &c->algo;
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &got);
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &got);
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &got);
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &got);
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &red, sizeof red, &got);
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle, &got);
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom, &got);
  cublasLtMatmulAlgoConfigGetAttribute(a, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster, &got);
  char t[24], st[24], cl[24];
  snprintf(out, n, "algo=%d tile=%s stages=%s splitK=%u reduction=%s swizzle=%u custom=%u "
           "cluster=%s workspace=%zuKiB waves=%.3g", id, enum_name(tile_names, 1, tile, t, sizeof t),
           enum_name(stage_names, 1, stages, st, sizeof st), splitk ? splitk : 1,
           splitk > 1 ? reduction_name(red) : "none", swizzle, custom,
           enum_name(cluster_names, 0, cluster, cl, sizeof cl), c->workspaceSize >> 10,
           (double)c->wavesCount);
  *algo_id = id;
}

/* fp8 matmul exists from Ada (8.9) and Hopper (9.0) on; say which device lacks it. */
static int require_fp8(void) {
  int dev = 0, major = 0, minor = 0, rc = XP_EXIT_FAILED;
  XP_CUDA(cudaGetDevice(&dev));
  XP_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
  XP_CUDA(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
  if (major * 10 + minor < 89) {
    struct cudaDeviceProp prop;
    const char *name = cudaGetDeviceProperties(&prop, dev) == cudaSuccess ? prop.name : "?";
    return xp_error(XP_EXIT_ENV, "fp8 (e4m3) matmul needs compute capability 8.9 or newer "
                    "(Ada, Hopper, Blackwell); device %d (%s) is %d.%d", dev, name, major, minor);
  }
  rc = 0;
fail:
  return rc;
}

static int make_layout(cublasLtMatrixLayout_t *l, cudaDataType_t t, int rows, int cols,
                       int batch) {
  int rc = XP_EXIT_FAILED;
  XP_CUBLAS(cublasLtMatrixLayoutCreate(l, t, (uint64_t)rows, (uint64_t)cols, (int64_t)rows));
  if (batch > 1) {
    int32_t b = batch;
    int64_t stride = (int64_t)rows * cols;
    XP_CUBLAS(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b));
    XP_CUBLAS(cublasLtMatrixLayoutSetAttribute(*l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                               &stride, sizeof stride));
  }
  rc = 0;
fail:
  return rc;
}

/* DeepSeek's block scaling: W one scale per 128x128 block (BLK128x128), the activations one
** per token per 128 of K (VEC128); the arrays' layout is kernels/ceilings/block_scales.h's,
** the same whichever of cuBLASLt's A and B an operand is (each is a TN operand, K by its
** rows). The modes go on before the heuristic (they decide which kernels qualify), and
** pointers with them: cuBLASLt 13.1's heuristic answers CUBLAS_STATUS_INVALID_VALUE for
** block scales without them (an H200, driver 580), as NVIDIA's LtBlk128x128Fp8Matmul sample
** and PyTorch's scaled_gemm set both before asking: a device stand-in, never read, until each
** launch sets the real arrays. act_first puts the activations in A (the sample's order). */
static int set_block_modes(xp_lt *p) {
  int rc = XP_EXIT_FAILED;
  const int32_t vec = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
  const int32_t blk = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F;
  const int32_t *amode = p->act_first ? &vec : &blk, *bmode = p->act_first ? &blk : &vec;
  XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, amode, sizeof *amode));
  XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, bmode, sizeof *bmode));
  if (!p->stand_in) XP_CUDA(cudaMalloc(&p->stand_in, 256));
  XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &p->stand_in,
                                           sizeof p->stand_in));
  XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &p->stand_in,
                                           sizeof p->stand_in));
  rc = 0;
fail:
  return rc;
}

/* The heuristic's candidates for the plan's descriptor and operand order, those it says run
** kept. *st gets its answer, CUBLAS_STATUS_NOT_SUPPORTED where it answered success with no
** candidate; returns nonzero only where something else failed (said). */
static int ask_heuristic(xp_lt *p, int top_n, cublasStatus_t *st) {
  int rc = XP_EXIT_FAILED, found = 0;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t *all = xp_xcalloc((size_t)top_n, sizeof *all);
  XP_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  XP_CUBLAS(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                 &p->workspace, sizeof p->workspace));
  *st = cublasLtMatmulAlgoGetHeuristic(p->h, p->op, p->act_first ? p->la : p->lw,
                                       p->act_first ? p->lw : p->la, p->ld, p->ld, pref, top_n,
                                       all, &found);
  if (*st != CUBLAS_STATUS_SUCCESS) found = 0;
  free(p->cand);
  p->cand = xp_xcalloc((size_t)(found > 0 ? found : 1), sizeof *p->cand);
  p->ncand = 0;
  for (int i = 0; i < found; i++)
    if (all[i].state == CUBLAS_STATUS_SUCCESS) p->cand[p->ncand++] = all[i];
  if (*st == CUBLAS_STATUS_SUCCESS && p->ncand == 0) *st = CUBLAS_STATUS_NOT_SUPPORTED;
  rc = 0;
fail:
  if (pref) cublasLtMatmulPreferenceDestroy(pref);
  free(all);
  return rc;
}

/* The matmul descriptor and layouts of the plan's operand order. Weights first is the TN
** layout every dtype takes: D^T[N,M] = W * A^T, D row-major [M,N]. Activations first (an
** fp8_block plan's act_first) is D[M,N] = A * W^T in cuBLASLt's column-major terms, the
** operands the same bytes and still TN (the only layout Hopper's fp8 kernels take), so D is
** written column-major [M,N]: row-major [N,M], the transpose of the other order's. */
static int make_desc(xp_lt *p) {
  int rc = XP_EXIT_FAILED;
  cudaDataType_t in = p->dt == XP_LT_BF16 ? CUDA_R_16BF : CUDA_R_8F_E4M3;
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  XP_CUBLAS(cublasLtMatmulDescCreate(&p->op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (p->dt == XP_LT_FP8_BLOCK && (rc = set_block_modes(p))) goto fail;
  if ((rc = make_layout(&p->lw, in, p->k, p->n, p->batch)) ||
      (rc = make_layout(&p->la, in, p->k, p->m, p->batch)) ||
      (rc = make_layout(&p->ld, CUDA_R_16BF, p->act_first ? p->m : p->n,
                        p->act_first ? p->n : p->m, p->batch)))
    goto fail;
  rc = 0;
fail:
  return rc;
}

static void drop_desc(xp_lt *p) {
  if (p->lw) cublasLtMatrixLayoutDestroy(p->lw);
  if (p->la) cublasLtMatrixLayoutDestroy(p->la);
  if (p->ld) cublasLtMatrixLayoutDestroy(p->ld);
  if (p->op) cublasLtMatmulDescDestroy(p->op);
  p->lw = p->la = p->ld = NULL, p->op = NULL;
}

/* None in either order of a block-scaled plan: skipped (XP_EXIT_ENV, why said) only where
** the device lacks block scales (block_scales.h), else the plan's failure naming the status. */
static int block_no_plan(const xp_lt *p, cublasStatus_t st) {
  int dev = 0, major = 0, minor = 0;
  const size_t v = cublasLtGetVersion();
  if (cudaGetDevice(&dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess ||
      !xp_block_no_plan_skips(st == CUBLAS_STATUS_NOT_SUPPORTED, major, minor, (long)v))
    return 0;
  return xp_error(XP_EXIT_ENV, "cuBLASLt has no fp8_block algorithm for M=%d N=%d K=%d: cuBLASLt "
                  "%zu.%zu.%zu runs block scales on Hopper (sm_90) from 12.9, and device %d is "
                  "compute capability %d.%d%s", p->m, p->n, p->k, v / 10000, v / 100 % 100,
                  v % 100, dev, major, minor,
                  major == 9 ? "" : " (Ada and Blackwell scale fp8 blocks as MXFP8)");
}

/* Candidates in the first operand order the heuristic offers any for at the plan's rows:
** weights first (every dtype's order, D row-major [M,N]), then for fp8_block activations
** first (VEC128 in A, BLK128x128 in B: NVIDIA's LtBlk128x128Fp8Matmul sample's order, D
** transposed), never at one row. cuBLASLt 13.1 on an H200 offers weights first at M = 4, 8,
** 12, 16, ... only, activations first at M = 1, 8, 16, 24, ...; and at M = 1 that one is
** wrong (7074 of 7168 elements of a 1x7168x2048 product; a probe of single blocks found it
** reading W's scales of row block 0 for every row block and A's from 256 apart, past their
** end: scales of the other operand's places). With none, *st gets the heuristic's answer
** (NOT_SUPPORTED unless an order answered something else). Returns nonzero only where
** something else failed (said). */
static int try_orders(xp_lt *p, int top_n, cublasStatus_t *st) {
  cublasStatus_t got = CUBLAS_STATUS_NOT_SUPPORTED;
  const int orders = p->dt == XP_LT_FP8_BLOCK && p->m > 1 ? 2 : 1;
  int rc;
  *st = CUBLAS_STATUS_NOT_SUPPORTED;
  for (int o = 0; o < orders; o++) {
    p->act_first = o == 1;
    drop_desc(p);
    if ((rc = make_desc(p)) || (rc = ask_heuristic(p, top_n, &got))) return rc;
    if (p->ncand > 0) return 0;
    if (got != CUBLAS_STATUS_NOT_SUPPORTED) *st = got;
  }
  return 0;
}

/* The plan's candidates. An fp8_block M cuBLASLt has no plan for (try_orders) runs as the
** fewest rows above it, up to M rounded up to 8, that it has one for: on an H200 with
** cuBLASLt 13.1, M = 1, 2 and 3 run as 4 rows, 5 to 7 as 8 (DeepSeek-V3's decode: every
** GEMM at batch 1, its experts' 2 rows at batch 16 and 5 at batch 128). The added rows are
** padding tokens, as an engine's block-scaled kernel pads M to its tile (64 rows and more),
** at no cost a memory-bound decode GEMM would show; xp_lt_m says how many rows the plan runs.
** None: XP_EXIT_ENV where the device lacks block scales (block_no_plan), else XP_EXIT_FAILED
** naming the heuristic's status. */
static int query_candidates(xp_lt *p, int top_n) {
  const int m = p->m, last = p->dt == XP_LT_FP8_BLOCK ? (m + 7) / 8 * 8 : m;
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS, at_m = CUBLAS_STATUS_SUCCESS;
  int rc;
  for (; p->m <= last; p->m++) {
    if ((rc = try_orders(p, top_n, &st))) return rc;
    if (p->ncand > 0) break;
    if (p->m == m) at_m = st;
    if (st != CUBLAS_STATUS_NOT_SUPPORTED) break; /* an error, not a missing kernel */
  }
  if (p->ncand == 0) {
    char order[96] = "";
    if (p->dt == XP_LT_FP8_BLOCK)
      snprintf(order, sizeof order, " in either operand order%s", last > m ? ", nor padded to "
               "up to 8 rows" : "");
    p->m = m;
    if (p->dt == XP_LT_FP8_BLOCK && (rc = block_no_plan(p, at_m))) return rc;
    if (st != CUBLAS_STATUS_NOT_SUPPORTED)
      return xp_error(XP_EXIT_FAILED, "cuBLASLt's heuristic answered %s for %s M=%d N=%d K=%d "
                      "batch=%d%s: %s", cublasLtGetStatusName(st), xp_lt_dtype_name(p->dt), p->m,
                      p->n, p->k, p->batch, order, cublasLtGetStatusString(st));
    return xp_error(XP_EXIT_FAILED, "cuBLASLt has no %s algorithm for M=%d N=%d K=%d batch=%d "
                    "within a %zu-byte workspace%s (heuristic: CUBLAS_STATUS_NOT_SUPPORTED)",
                    xp_lt_dtype_name(p->dt), m, p->n, p->k, p->batch, p->workspace, order);
  }
  p->desc = xp_xcalloc((size_t)p->ncand, sizeof *p->desc);
  p->algo_id = xp_xcalloc((size_t)p->ncand, sizeof *p->algo_id);
  for (int i = 0; i < p->ncand; i++) {
    describe(&p->cand[i], p->desc[i], sizeof p->desc[i], &p->algo_id[i]);
    if (p->dt == XP_LT_FP8_BLOCK) /* which order ran is part of what was measured */
      snprintf(p->desc[i] + strlen(p->desc[i]), sizeof p->desc[i] - strlen(p->desc[i]),
               " order=%s", p->act_first ? "activations,weights" : "weights,activations");
  }
  return 0;
}

int xp_lt_create_batched(cublasLtHandle_t h, int m, int n, int k, int batch,
                         enum xp_lt_dtype dt, size_t workspace_bytes, int top_n, xp_lt **out) {
  *out = NULL;
  if (m <= 0 || n <= 0 || k <= 0 || batch <= 0)
    return xp_error(XP_EXIT_USAGE, "matmul dimensions must be positive: M=%d N=%d K=%d batch=%d",
                    m, n, k, batch);
  if (dt == XP_LT_FP8_BLOCK && batch > 1)
    return xp_error(XP_EXIT_USAGE, "block-scaled fp8 matmuls run one matrix a launch, not a "
                    "batch of %d", batch);
  if (dt != XP_LT_BF16) {
    int rc = require_fp8();
    if (rc) return rc;
  }
  int rc = XP_EXIT_FAILED;
  xp_lt *p = xp_xcalloc(1, sizeof *p);
  p->h = h;
  p->m = m, p->n = n, p->k = k, p->batch = batch, p->dt = dt;
  p->workspace = workspace_bytes;
  if ((rc = query_candidates(p, top_n > 0 ? top_n : XP_LT_TOP_N_DEFAULT))) goto fail;
  *out = p;
  return 0;
fail:
  xp_lt_destroy(p);
  return rc ? rc : XP_EXIT_FAILED;
}

int xp_lt_create(cublasLtHandle_t h, int m, int n, int k, enum xp_lt_dtype dt,
                 size_t workspace_bytes, int top_n, xp_lt **out) {
  return xp_lt_create_batched(h, m, n, k, 1, dt, workspace_bytes, top_n, out);
}

int xp_lt_select(xp_lt *p, int idx) {
  if (idx < 0 || idx >= p->ncand)
    return xp_error(XP_EXIT_USAGE, "algorithm %d out of range (%d candidates)", idx, p->ncand);
  p->sel = idx;
  p->status = CUBLAS_STATUS_SUCCESS;
  return 0;
}

cublasStatus_t xp_lt_last_status(const xp_lt *p) { return p->status; }

int xp_lt_algo_id(const xp_lt *p, int idx) {
  return idx >= 0 && idx < p->ncand ? p->algo_id[idx] : -1;
}

const char *xp_lt_algo_desc(const xp_lt *p, int idx) {
  return idx >= 0 && idx < p->ncand ? p->desc[idx] : "";
}

size_t xp_lt_algo_workspace(const xp_lt *p, int idx) {
  return idx >= 0 && idx < p->ncand ? p->cand[idx].workspaceSize : 0;
}

/* Per-tensor fp8 scales are applied through alpha, not CUBLASLT_MATMUL_DESC_{A,B}_SCALE_POINTER:
** with cuBLASLt 13.1 on an H200 every algorithm the heuristic offers answers
** CUBLAS_STATUS_NOT_SUPPORTED once those pointers are set (before or after the heuristic,
** in place or not), while the same matmul without them runs. For per-tensor scales the
** result is the same: D = (scale_a * scale_w) * (A * W^T), accumulated in fp32. Block scales
** have no such equivalent: their device arrays go in through the pointers, set at each
** launch (a graph keeps the ones it was captured with). */
int xp_lt_run(xp_lt *p, const void *A, const void *W, void *D, const float *scale_a,
              const float *scale_w, void *workspace, cudaStream_t s) {
  int rc = XP_EXIT_FAILED;
  float alpha = 1.0f;
  const float zero = 0.0f;
  if (p->dt == XP_LT_FP8_E4M3) alpha = (scale_a ? *scale_a : 1.0f) * (scale_w ? *scale_w : 1.0f);
  const void *first = W, *second = A;
  if (p->dt == XP_LT_FP8_BLOCK) {
    if (!scale_a || !scale_w) return xp_error(XP_EXIT_USAGE, "block-scaled fp8 needs both scale arrays");
    const float *sfirst = p->act_first ? scale_a : scale_w, *ssecond = p->act_first ? scale_w : scale_a;
    if (p->act_first) first = A, second = W;
    XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sfirst,
                                             sizeof sfirst));
    XP_CUBLAS(cublasLtMatmulDescSetAttribute(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &ssecond,
                                             sizeof ssecond));
  }
  /* kept: a caller going on past a candidate cuBLASLt refuses asks what it answered */
  XP_CUBLAS(p->status = cublasLtMatmul(p->h, p->op, &alpha, first, p->act_first ? p->la : p->lw,
                                       second, p->act_first ? p->lw : p->la, &zero, D, p->ld, D,
                                       p->ld, &p->cand[p->sel].algo, workspace, p->workspace, s));
  rc = 0;
fail:
  return rc;
}

void xp_lt_destroy(xp_lt *p) {
  if (!p) return;
  drop_desc(p);
  if (p->stand_in) cudaFree(p->stand_in);
  free(p->cand);
  free(p->desc);
  free(p->algo_id);
  free(p);
}

#endif /* XP_HAVE_CUDA */
