/*
** GPU facts and the timing harness shared by every GPU runner. Device facts come from the
** CUDA runtime, PCIe link state from sysfs (the runtime does not expose it).
*/
#ifdef XP_HAVE_CUDA
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include "gpu.h"
#include "ceilings/ceilings.h"
#include "meta.h"

int xp_gpu_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError(); /* clear the sticky "no device" error */
    return 0;
  }
  return n;
}

/* The errors that poison a context (CUDA's "sticky" errors). */
static int sticky(cudaError_t e) {
  return e == cudaErrorIllegalAddress || e == cudaErrorLaunchFailure || e == cudaErrorMisalignedAddress ||
         e == cudaErrorIllegalInstruction || e == cudaErrorInvalidPc || e == cudaErrorHardwareStackError ||
         e == cudaErrorAssert || e == cudaErrorLaunchTimeout || e == cudaErrorECCUncorrectable;
}

cudaError_t xp_gpu_sticky_error(void) {
  cudaError_t e = cudaDeviceSynchronize();
  cudaGetLastError();
  return sticky(e) ? e : cudaSuccess;
}

int xp_gpu_require(int need) {
  int have = xp_gpu_count();
  if (have >= need) return 0;
  if (have == 0)
    return xp_error(XP_EXIT_ENV, "this run needs %d GPU%s and none is visible (no driver or no device)",
                    need, need == 1 ? "" : "s");
  return xp_error(XP_EXIT_ENV, "this run needs %d GPUs but only %d %s visible", need, have,
                  have == 1 ? "is" : "are");
}

int xp_gpu_describe(int dev, xp_gpu_info *g) {
  struct cudaDeviceProp p;
  memset(g, 0, sizeof *g);
  g->index = dev;
  g->pcie_gen = g->pcie_width = -1;
  XP_CUDA(cudaGetDeviceProperties(&p, dev));
  snprintf(g->name, sizeof g->name, "%.*s", (int)sizeof g->name - 1, p.name); /* names are short */
  char *u = g->uuid;
  u += sprintf(u, "GPU-");
  for (int i = 0; i < 16; i++) {
    u += sprintf(u, "%02x", (unsigned char)p.uuid.bytes[i]);
    if (i == 3 || i == 5 || i == 7 || i == 9) *u++ = '-';
  }
  *u = 0;
  XP_CUDA(cudaDeviceGetPCIBusId(g->pci_bus_id, sizeof g->pci_bus_id, dev));
  for (char *c = g->pci_bus_id; *c; c++) *c = (char)tolower((unsigned char)*c);
  snprintf(g->cc, sizeof g->cc, "%d.%d", p.major, p.minor);
  g->sm_count = p.multiProcessorCount;
  g->mem_bytes = (int64_t)p.totalGlobalMem;
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev) == cudaSuccess) g->clock_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, dev) == cudaSuccess) g->mem_clock_mhz = khz / 1000;
  cudaGetLastError();
  /* sysfs names devices by the full 0000:bb:dd.f form. */
  char bus[32];
  snprintf(bus, sizeof bus, "%s", g->pci_bus_id);
  if (strlen(bus) == 12 && bus[4] == ':') { /* 00000000:bb:dd.f -> 0000:bb:dd.f */
  } else if (strlen(bus) > 12) memmove(bus, bus + strlen(bus) - 12, 13);
  xp_pcie_link("/sys", bus, &g->pcie_gen, &g->pcie_width);
  return 0;
fail:
  return XP_EXIT_FAILED;
}

int64_t xp_gpu_l2_bytes(int dev) {
  int l2 = 0;
  if (cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess) {
    cudaGetLastError();
    return 64LL << 20; /* a safe overestimate for every GPU xp targets */
  }
  return l2;
}

/* The kernel driver's version as nvidia-smi prints it: the first token of
** /proc/driver/nvidia/version shaped like 580.159.04 (the words around it vary). 0 when read. */
static int driver_version(char *out, size_t n) {
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  char line[512], *save = NULL;
  int rc = -1;
  if (!f) return -1;
  if (fgets(line, sizeof line, f)) {
    for (char *t = strtok_r(line, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
      if (isdigit((unsigned char)t[0]) && strchr(t, '.') && strspn(t, "0123456789.") == strlen(t)) {
        snprintf(out, n, "%s", t);
        rc = 0;
        break;
      }
    }
  }
  fclose(f);
  return rc;
}

/* The versions of what the run measured through, each where it can be read. */
static int record_versions(xp_run *r) {
  int drv = 0, rt = 0, nccl = 0, rc = 0;
  char buf[64];
  if (cudaDriverGetVersion(&drv) == cudaSuccess) {
    xp_cuda_version_text(drv, buf, sizeof buf);
    rc = xp_run_meta(r, "cuda.driver_api", buf, "detected");
  }
  if (rc == 0 && cudaRuntimeGetVersion(&rt) == cudaSuccess) {
    xp_cuda_version_text(rt, buf, sizeof buf);
    rc = xp_run_meta(r, "cuda.runtime", buf, "detected");
  }
  if (rc == 0) {
    size_t lt = cublasLtGetVersion();
    snprintf(buf, sizeof buf, "%zu.%zu.%zu", lt / 10000, (lt / 100) % 100, lt % 100);
    rc = xp_run_meta(r, "cublas.version", buf, "detected");
  }
  if (rc == 0 && ncclGetVersion(&nccl) == ncclSuccess) {
    snprintf(buf, sizeof buf, "%d.%d.%d", nccl / 10000, (nccl / 100) % 100, nccl % 100);
    rc = xp_run_meta(r, "nccl.version", buf, "detected");
  }
  if (rc == 0 && driver_version(buf, sizeof buf) == 0) rc = xp_run_meta(r, "gpu.driver", buf, "detected");
  return rc ? XP_EXIT_DB : 0;
}

/* The sampler started on the devices used[] of the n visible ones whose UUIDs are uuids[]: a
** device past the machine's is the runner's to refuse (exit 4), not the sampler's. */
static xp_gpu_watch *watch_used(char *const *uuids, int n, const int *used, int nused) {
  int *devices = xp_xcalloc((size_t)(nused > 0 ? nused : 1), sizeof *devices), k = 0;
  const char **of = xp_xcalloc((size_t)(nused > 0 ? nused : 1), sizeof *of);
  for (int i = 0; i < nused; i++)
    if (used[i] >= 0 && used[i] < n) devices[k] = used[i], of[k++] = uuids[used[i]];
  xp_gpu_watch *w = xp_gpu_watch_start(devices, of, k);
  free(of);
  free(devices);
  return w;
}

int xp_gpu_record_all(xp_run *r, const int *used, int nused, xp_gpu_watch **watch) {
  int n = xp_gpu_count(), rc = 0;
  if (n == 0) {
    *watch = xp_gpu_watch_start(NULL, NULL, 0); /* records that there was no GPU to watch */
    return 0;
  }
  char **names = xp_xcalloc((size_t)n, sizeof *names), **uuids = xp_xcalloc((size_t)n, sizeof *uuids);
  for (int d = 0; d < n && rc == 0; d++) {
    xp_gpu_info g;
    if (xp_gpu_describe(d, &g) != 0) rc = XP_EXIT_FAILED;
    else if (xp_run_gpu(r, &g) != 0) rc = XP_EXIT_DB;
    else names[d] = xp_strdup(g.name), uuids[d] = xp_strdup(g.uuid);
  }
  if (rc == 0) rc = record_versions(r);
  const char *name = rc ? NULL : xp_devices_gpu_name((const char *const *)names, n, used, nused);
  if (rc == 0 && name && xp_run_meta(r, "gpu_name", name, "detected") != 0) rc = XP_EXIT_DB;
  if (rc == 0 && xp_run_meta_int(r, "gpus_visible", n, "detected") != 0) rc = XP_EXIT_DB;
  if (rc == 0) *watch = watch_used(uuids, n, used, nused);
  for (int d = 0; d < n; d++) free(names[d]), free(uuids[d]);
  free(names);
  free(uuids);
  return rc;
}

/* ---- timing ---- */

enum { XP_TIMING_LEAD_NS = 50000 };

static int time_events(cudaStream_t s, cudaEvent_t a, cudaEvent_t b, double *us) {
  float ms = 0;
  XP_CUDA(cudaEventSynchronize(b));
  XP_CUDA(cudaEventElapsedTime(&ms, a, b));
  *us = (double)ms * 1000.0;
  return 0;
fail:
  return XP_EXIT_FAILED;
}

int xp_time_graph(cudaStream_t s, xp_enqueue_fn fn, void *arg, int per_graph, int warmup,
                  int samples, double *out_us) {
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  cudaEvent_t a = NULL, b = NULL;
  int rc = XP_EXIT_FAILED, capturing = 0, timing = 0;
  XP_CUDA(cudaEventCreate(&a));
  XP_CUDA(cudaEventCreate(&b));
  XP_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  capturing = 1;
  for (int i = 0; i < per_graph; i++)
    if ((rc = fn(arg, s, i)) != 0) goto fail;
  capturing = 0;
  XP_CUDA(cudaStreamEndCapture(s, &graph));
  XP_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int i = 0; i < warmup; i++) XP_CUDA(cudaGraphLaunch(exec, s));
  XP_CUDA(cudaStreamSynchronize(s));
  xp_gpu_watch_timing(timing = 1);
  for (int i = 0; i < samples; i++) {
    if (xp_interrupted()) { rc = XP_EXIT_ABORTED; goto fail; }
    double us;
    /* The stream is idle here (each sample synchronizes): recorded now, `a` would be stamped at
    ** once and the graph's work would reach the GPU only after cudaGraphLaunch returned, its
    ** host latency timed as if the GPU worked. A spin ahead of `a` keeps the GPU busy until the
    ** launch is queued behind it (a few us; 50 us leaves room on a loaded host). */
    XP_CUDA(xp_spin_ns(XP_TIMING_LEAD_NS, s));
    XP_CUDA(cudaEventRecord(a, s));
    XP_CUDA(cudaGraphLaunch(exec, s));
    XP_CUDA(cudaEventRecord(b, s));
    if ((rc = time_events(s, a, b, &us)) != 0) goto fail;
    out_us[i] = us / per_graph;
  }
  rc = 0;
  goto done;
fail:
  if (rc == 0) rc = XP_EXIT_FAILED; /* a checked call failed after fn() had succeeded */
done:
  if (timing) xp_gpu_watch_timing(0);
  if (capturing) {
    cudaGraph_t g = NULL;
    cudaStreamEndCapture(s, &g);
    if (g) cudaGraphDestroy(g);
    cudaGetLastError();
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  if (a) cudaEventDestroy(a);
  if (b) cudaEventDestroy(b);
  return rc;
}

int xp_time_eager(cudaStream_t s, xp_enqueue_fn fn, void *arg, int per_sample, int warmup,
                  int samples, double *out_us) {
  cudaEvent_t a = NULL, b = NULL;
  int rc = XP_EXIT_FAILED, timing = 0;
  XP_CUDA(cudaEventCreate(&a));
  XP_CUDA(cudaEventCreate(&b));
  for (int i = 0; i < warmup; i++)
    if ((rc = fn(arg, s, i)) != 0) goto fail;
  XP_CUDA(cudaStreamSynchronize(s));
  xp_gpu_watch_timing(timing = 1);
  for (int i = 0; i < samples; i++) {
    if (xp_interrupted()) { rc = XP_EXIT_ABORTED; goto fail; }
    double us;
    XP_CUDA(cudaEventRecord(a, s));
    for (int j = 0; j < per_sample; j++)
      if ((rc = fn(arg, s, j)) != 0) goto fail;
    XP_CUDA(cudaEventRecord(b, s));
    if ((rc = time_events(s, a, b, &us)) != 0) goto fail;
    out_us[i] = us / per_sample;
  }
  rc = 0;
  goto done;
fail:
  if (rc == 0) rc = XP_EXIT_FAILED;
done:
  if (timing) xp_gpu_watch_timing(0);
  if (a) cudaEventDestroy(a);
  if (b) cudaEventDestroy(b);
  return rc;
}
#endif /* XP_HAVE_CUDA */
