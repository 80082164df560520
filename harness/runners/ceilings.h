/*
** Device ceilings: the copy bandwidth and matmul peaks a GEMM result is judged against.
** Measured by the `ceilings` run kind (once per device and driver) or inline by a `gemm`
** run with ceilings = "measure"; looked up by `gemm` runs otherwise.
*/
#ifndef XP_RUNNERS_CEILINGS_H
#define XP_RUNNERS_CEILINGS_H
#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include "recorder.h"

/* What a GEMM result is divided by. */
typedef struct xp_ceilings {
  double copy_gbps;               /* copy kernel: (read + write bytes) / s, in 1e9 B/s */
  double bf16_tflops, fp8_tflops; /* square matmul peak; 0 when not measured */
  char run_uuid[37];              /* the ceilings run; "" when measured inline */
  char match[8];                  /* "uuid": this very GPU; "name": a GPU of the same model */
} xp_ceilings;

/* Driver version ceilings are filed under: the kernel module's ("580.159.04") where
** /proc/driver/nvidia/version says, else the CUDA driver API version ("cuda 13.0"). */
void xp_ceilings_driver(char *out, size_t n);

/* Latest ok `ceilings` run of the GPU with this UUID under this driver, else of a GPU with
** the same name under this driver. 0: found; 1: none; XP_EXIT_DB: database error. */
int xp_ceilings_lookup(sqlite3 *db, const char *gpu_uuid, const char *gpu_name,
                       const char *driver, xp_ceilings *out);
/* The same, of the runs that measured the matmul peaks asked for (an ok case matmul_bf16,
** matmul_fp8): a later run of matmul_dtypes = [] or ["fp8"], or whose bf16 peak failed, does
** not hide the bf16 peak of an earlier one from a bf16 gemm. */
int xp_ceilings_lookup_peaks(sqlite3 *db, const char *gpu_uuid, const char *gpu_name,
                             const char *driver, int need_bf16, int need_fp8, xp_ceilings *out);

typedef struct xp_ceilings_opts {
  int device;
  int64_t copy_bytes;  /* size of the copy's source (and of its destination) */
  int matmul_size;     /* M = N = K of the peak matmul */
  int samples, warmup, top_n;
  int bf16, fp8;       /* which matmul peaks to measure */
} xp_ceilings_opts;
void xp_ceilings_opts_default(xp_ceilings_opts *o);

/* One measured ceiling with its raw samples (rate: GB/s for the copy, TFLOP/s for matmuls). */
typedef struct xp_ceiling_result {
  char name[24]; /* "copy", "matmul_bf16", "matmul_fp8" */
  char algo[256];
  int64_t bytes, size;
  int blocks, launches, n;
  double *time_us, *rate;
  int ncand, nrefused; /* matmuls: the heuristic's candidates, and those cuBLASLt refused */
  char refused[240];   /* which (xp_gemm_refused_list); "" when none */
  int failed;          /* cuBLASLt has no plan it runs for this peak: a failed case, no samples */
  char note[512];      /* failed: why */
} xp_ceiling_result;

typedef struct xp_ceilings_meas {
  xp_ceiling_result r[3];
  int nr;
} xp_ceilings_meas;

/* Measure on o->device (GPU builds only). Returns 0 or an exit code after reporting. */
int xp_ceilings_measure(const xp_ceilings_opts *o, xp_ceilings_meas *out);
/* File run r under the device it measured (meta ceilings.device, ceilings.gpu_uuid,
** ceilings.gpu_name, ceilings.driver: what xp_ceilings_lookup matches). */
int xp_ceilings_record_identity(xp_run *r, int device, const char *gpu_uuid,
                                const char *gpu_name, const char *driver);
/* Record each ceiling as a case named prefix + name with metrics time_us and gbps/tflops. */
int xp_ceilings_record(xp_run *r, const xp_ceilings_meas *m, const char *prefix);
/* Medians of the measured ceilings. */
void xp_ceilings_summarize(const xp_ceilings_meas *m, xp_ceilings *out);
void xp_ceilings_meas_free(xp_ceilings_meas *m);
#endif
