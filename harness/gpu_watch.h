/*
** The GPUs' state while a measured run runs: SM and memory clocks, the driver's clock-event
** (throttle) reasons, temperature and power, sampled through NVML on a thread of its own and
** recorded with the run as run_meta gpu_state.<device>.*. A GEMM timed while its GPU was thermally
** slowed, or an all-reduce while one rank's clock sat at half speed, looks like a regression;
** with its GPUs' state recorded it can be told from one, and left out of a comparison.
**
** NVML is the driver's own library (libnvidia-ml.so.1, installed with the driver, not the
** toolkit): it is opened with dlopen, so xp needs nothing more to build and runs where it is
** absent, recording why no state was sampled.
*/
#ifndef XP_GPU_WATCH_H
#define XP_GPU_WATCH_H
#include <stddef.h>
#include "recorder.h"

/* Clock-event reasons as NVML's nvmlClocksEventReason* bits (nvml.h; the same bits were called
** nvmlClocksThrottleReason* before driver 535). */
enum {
  XP_CLOCKS_GPU_IDLE = 0x1,
  XP_CLOCKS_APP_CLOCKS_SETTING = 0x2,
  XP_CLOCKS_SW_POWER_CAP = 0x4,
  XP_CLOCKS_HW_SLOWDOWN = 0x8,
  XP_CLOCKS_SYNC_BOOST = 0x10,
  XP_CLOCKS_SW_THERMAL_SLOWDOWN = 0x20,
  XP_CLOCKS_HW_THERMAL_SLOWDOWN = 0x40,
  XP_CLOCKS_HW_POWER_BRAKE_SLOWDOWN = 0x80,
  XP_CLOCKS_DISPLAY_CLOCK_SETTING = 0x100,
};
/* The reasons that slow a busy GPU below the clocks it was set to run at: heat, a power brake, a
** hardware slowdown. A power cap (sw_power_cap) is counted apart: a GPU at full load often sits at
** its cap, and that is its normal speed, not a fault. */
#define XP_CLOCKS_SLOWDOWN (XP_CLOCKS_HW_SLOWDOWN | XP_CLOCKS_SW_THERMAL_SLOWDOWN | \
                            XP_CLOCKS_HW_THERMAL_SLOWDOWN | XP_CLOCKS_HW_POWER_BRAKE_SLOWDOWN)

/* One reading of one GPU. A field NVML could not read is XP_GPU_UNREAD. */
#define XP_GPU_UNREAD 0xffffffffu
typedef struct xp_gpu_sample {
  unsigned sm_mhz, mem_mhz, temp_c, power_mw;
  unsigned long long reasons; /* valid where reasons_read */
  int reasons_read;
  int timed; /* read while xp timed something (xp_gpu_watch_timing), or at a timed loop's end */
} xp_gpu_sample;

/* A GPU's readings over a run: those taken while xp timed (timed = 1) where there are any, as
** those are the state the recorded times were measured in (an idle GPU between cases, building a
** reference or a CUDA graph, drops its clocks, and a median over the whole run would say the
** measurement ran slow); else all the run's (a run too short to be read while timing).
** A figure no sample had is XP_GPU_UNREAD (shares: < 0). */
typedef struct xp_gpu_state {
  size_t samples, samples_run; /* summarized; taken over the whole run */
  int timed;
  unsigned sm_min, sm_median, sm_max, mem_min, temp_max, power_max_mw;
  unsigned power_limit_mw, default_limit_mw; /* read once, not sampled: enforced and the board's
                                              ** default; the sampler sets them, summarize leaves them unread */
  unsigned long long reasons_seen;
  double slowdown_share, power_cap_share; /* of the samples whose reasons were read */
} xp_gpu_state;

void xp_gpu_state_summarize(const xp_gpu_sample *s, size_t n, xp_gpu_state *out);
/* The reasons' names, comma-separated ("hw_thermal_slowdown,sw_power_cap"); "none" for 0; a
** bit NVML may add later as its hex value. */
void xp_gpu_reason_names(unsigned long long bits, char *out, size_t n);
/* run_meta gpu_state.<device>.*: samples, samples_run, scope ("timed" or "run"), sm_clock_mhz_min,
** _median, _max, mem_clock_mhz_min,
** temperature_c_max, power_w_max, power_limit_w, power_limit_default_w, clock_events,
** slowdown_share, power_cap_share (figures no sample had are left out). 0 or XP_EXIT_DB. */
int xp_gpu_state_record(xp_run *r, int device, const xp_gpu_state *st);
/* The warning for a GPU that ran under a power limit below its default, else for one whose clocks
** were slowed (slowdown_share > 0); else 0 and nothing. */
int xp_gpu_state_warning(int device, const xp_gpu_state *st, char *out, size_t n);

/* Sampling. Devices are the CUDA indices a run drives, with their UUIDs ("GPU-..."; NVML's
** indices differ from CUDA's where CUDA_VISIBLE_DEVICES or CUDA_DEVICE_ORDER reorder them).
** The sampler reads every GPU at once, then every period_ms (XP_GPU_WATCH_MS, default 50; 0 turns
** it off) until finished, and once more then. Never fails: without NVML it records why. */
typedef struct xp_gpu_watch xp_gpu_watch;
xp_gpu_watch *xp_gpu_watch_start(const int *devices, const char *const *uuids, int n);
/* Stop, record each GPU's state on r (and gpu_state.sampler: how, or why not), warn of slowed
** clocks on stderr, free w. w may be NULL. Returns 0 or XP_EXIT_DB. */
int xp_gpu_watch_finish(xp_gpu_watch *w, xp_run *r);
/* Stop and free without recording (a run that could not be begun). w may be NULL. */
void xp_gpu_watch_free(xp_gpu_watch *w);
/* The common timing loops (xp_time_graph, xp_time_eager, the NCCL runner's) call this with 1
** before their timed samples and 0 after: readings taken in between are the timed ones, and each
** call asks the sampler for a reading at once, so that a timed loop shorter than the period is
** still read at its start and its end. Costs the timing nothing: it is called outside the
** events' brackets. Nestable; harmless with no sampler running. */
void xp_gpu_watch_timing(int on);
#endif
