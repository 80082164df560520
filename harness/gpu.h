/*
** GPU plumbing shared by every GPU runner: checked calls, device facts, and the timing
** harness (CUDA events around CUDA-graph replays or eager loops). Compiled only when xp is
** built with CUDA (XP_HAVE_CUDA); runners guard their GPU code with the same macro.
*/
#ifndef XP_GPU_H
#define XP_GPU_H
#ifdef XP_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <cublasLt.h>
#include <nccl.h>
#include "gpu_watch.h"
#include "recorder.h"
#include "xp.h"

/* Every CUDA, cuBLAS and NCCL call goes through one of these: on error they report
** "xp: <call>: <library's message>" (exit code XP_EXIT_FAILED) and jump to `fail`. */
#define XP_CUDA(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    xp_error(XP_EXIT_FAILED, "%s: CUDA error %s: %s (%s:%d)", #call, cudaGetErrorName(e_), \
             cudaGetErrorString(e_), __FILE__, __LINE__); goto fail; } } while (0)
#define XP_CUBLAS(call) do { cublasStatus_t s_ = (call); if (s_ != CUBLAS_STATUS_SUCCESS) { \
    xp_error(XP_EXIT_FAILED, "%s: cuBLAS error %s: %s (%s:%d)", #call, cublasLtGetStatusName(s_), \
             cublasLtGetStatusString(s_), __FILE__, __LINE__); goto fail; } } while (0)
#define XP_NCCL(call) do { ncclResult_t r_ = (call); if (r_ != ncclSuccess && r_ != ncclInProgress) { \
    xp_error(XP_EXIT_FAILED, "%s: NCCL error: %s (%s) (%s:%d)", #call, ncclGetErrorString(r_), \
             ncclGetLastError(NULL), __FILE__, __LINE__); goto fail; } } while (0)

/* Number of visible devices; 0 (not an error) when there is no GPU or no driver. */
int xp_gpu_count(void);
/* Exit XP_EXIT_ENV with a clear message unless at least `need` GPUs are visible. */
int xp_gpu_require(int need);
/* Facts about device `dev` (name, UUID, PCI bus id, CC, SMs, memory, clocks, PCIe from sysfs). */
int xp_gpu_describe(int dev, xp_gpu_info *g);
/* L2 size in bytes of device `dev` (for cold-cache buffer rotation). */
int64_t xp_gpu_l2_bytes(int dev);
/* After a call failed: is the CUDA context still usable? Waits for the device and clears a
** recoverable error. cudaSuccess when it is; else the sticky error that broke it (illegal
** address, launch failure, ...): nothing can run in this process any more. */
cudaError_t xp_gpu_sticky_error(void);
/* Record every visible GPU plus driver, runtime, cuBLAS and NCCL versions on run r, and the
** GPU it is filed under (gpu_name): that of the devices used[] it drives, none where they differ.
** On success *watch samples the state of those devices (gpu_watch.h), told by the UUIDs just read. */
int xp_gpu_record_all(xp_run *r, const int *used, int nused, xp_gpu_watch **watch);

/* Enqueue one unit of work on stream s. `rep` counts launches within a sample, so callers
** can rotate buffers. Returns 0, or an exit code after reporting the error. Must be
** capturable into a CUDA graph when used with xp_time_graph. */
typedef int (*xp_enqueue_fn)(void *arg, cudaStream_t s, int rep);

/* Kernel engineers' timing: `per_graph` back-to-back launches captured into one CUDA graph;
** `warmup` untimed replays; then `samples` replays, each bracketed by CUDA events.
** out_us[i] = replay time / per_graph, in microseconds. Returns 0 or an exit code. */
int xp_time_graph(cudaStream_t s, xp_enqueue_fn fn, void *arg, int per_graph, int warmup,
                  int samples, double *out_us);
/* Same without a graph: `per_sample` launches between two events (includes launch cost). */
int xp_time_eager(cudaStream_t s, xp_enqueue_fn fn, void *arg, int per_sample, int warmup,
                  int samples, double *out_us);
#endif /* XP_HAVE_CUDA */
#endif
