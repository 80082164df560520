/*
** Sampling the GPUs' clocks, clock-event reasons, temperature and power while a run measures
** (gpu_watch.h). The sampler is a thread of its own so that the run's timing loop never waits on
** the driver; it opens NVML itself, as late as it can, so that a run where NVML is missing or slow
** to initialise loses nothing but the state it would have sampled.
*/
#include "gpu_watch.h"
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "xp.h"

/* ---- summaries (no NVML: unit-tested without a GPU) ---- */

static int cmp_unsigned(const void *a, const void *b) {
  unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
  return (x > y) - (x < y);
}

static void fold_max(unsigned *acc, unsigned v) {
  if (v != XP_GPU_UNREAD && (*acc == XP_GPU_UNREAD || v > *acc)) *acc = v;
}

static void fold_min(unsigned *acc, unsigned v) {
  if (v != XP_GPU_UNREAD && (*acc == XP_GPU_UNREAD || v < *acc)) *acc = v;
}

void xp_gpu_state_summarize(const xp_gpu_sample *s, size_t n, xp_gpu_state *out) {
  size_t timed = 0; /* where any reading is timed, the others are left out (gpu_watch.h) */
  for (size_t i = 0; i < n; i++) timed += s[i].timed != 0;
  memset(out, 0, sizeof *out);
  out->samples = timed ? timed : n;
  out->samples_run = n;
  out->timed = timed > 0;
  out->sm_min = out->sm_median = out->sm_max = out->mem_min = XP_GPU_UNREAD;
  out->temp_max = out->power_max_mw = out->power_limit_mw = out->default_limit_mw = XP_GPU_UNREAD;
  unsigned *sm = xp_xmalloc(sizeof *sm * (n ? n : 1));
  size_t nsm = 0, nreasons = 0, slowed = 0, capped = 0;
  for (size_t i = 0; i < n; i++) {
    if (out->timed && !s[i].timed) continue;
    if (s[i].sm_mhz != XP_GPU_UNREAD) sm[nsm++] = s[i].sm_mhz;
    fold_min(&out->sm_min, s[i].sm_mhz);
    fold_max(&out->sm_max, s[i].sm_mhz);
    fold_min(&out->mem_min, s[i].mem_mhz);
    fold_max(&out->temp_max, s[i].temp_c);
    fold_max(&out->power_max_mw, s[i].power_mw);
    if (!s[i].reasons_read) continue;
    nreasons++;
    out->reasons_seen |= s[i].reasons;
    slowed += (s[i].reasons & XP_CLOCKS_SLOWDOWN) != 0;
    capped += (s[i].reasons & XP_CLOCKS_SW_POWER_CAP) != 0;
  }
  if (nsm) {
    /* The lower middle of an even count: a clock NVML reported, never a mean of two. */
    qsort(sm, nsm, sizeof *sm, cmp_unsigned);
    out->sm_median = sm[(nsm - 1) / 2];
  }
  free(sm);
  out->slowdown_share = nreasons ? (double)slowed / (double)nreasons : -1;
  out->power_cap_share = nreasons ? (double)capped / (double)nreasons : -1;
}

static const struct { unsigned long long bit; const char *name; } reason_names[] = {
    {XP_CLOCKS_HW_THERMAL_SLOWDOWN, "hw_thermal_slowdown"},
    {XP_CLOCKS_SW_THERMAL_SLOWDOWN, "sw_thermal_slowdown"},
    {XP_CLOCKS_HW_POWER_BRAKE_SLOWDOWN, "hw_power_brake_slowdown"},
    {XP_CLOCKS_HW_SLOWDOWN, "hw_slowdown"},
    {XP_CLOCKS_SW_POWER_CAP, "sw_power_cap"},
    {XP_CLOCKS_APP_CLOCKS_SETTING, "applications_clocks_setting"},
    {XP_CLOCKS_SYNC_BOOST, "sync_boost"},
    {XP_CLOCKS_DISPLAY_CLOCK_SETTING, "display_clock_setting"},
    {XP_CLOCKS_GPU_IDLE, "gpu_idle"},
};

void xp_gpu_reason_names(unsigned long long bits, char *out, size_t n) {
  size_t at = 0;
  out[0] = 0;
  if (!bits) {
    snprintf(out, n, "none");
    return;
  }
  for (size_t i = 0; i < sizeof reason_names / sizeof reason_names[0]; i++)
    if (bits & reason_names[i].bit) {
      at += (size_t)snprintf(out + at, at < n ? n - at : 0, "%s%s", at ? "," : "", reason_names[i].name);
      bits &= ~reason_names[i].bit;
    }
  if (bits) snprintf(out + at, at < n ? n - at : 0, "%s0x%llx", at ? "," : "", bits);
}

static int meta_unsigned(xp_run *r, int device, const char *what, unsigned v) {
  if (v == XP_GPU_UNREAD) return 0;
  char key[96];
  snprintf(key, sizeof key, "gpu_state.%d.%s", device, what);
  return xp_run_meta_int(r, key, v, "detected");
}

static int meta_text(xp_run *r, int device, const char *what, const char *v) {
  char key[96];
  snprintf(key, sizeof key, "gpu_state.%d.%s", device, what);
  return xp_run_meta(r, key, v, "detected");
}

static int meta_share(xp_run *r, int device, const char *what, double share) {
  if (share < 0) return 0;
  char v[32];
  snprintf(v, sizeof v, "%.3f", share);
  return meta_text(r, device, what, v);
}

/* A count as meta_unsigned takes it: UINT_MAX is its "unread". */
static unsigned count_of(size_t n) { return (unsigned)(n < UINT_MAX ? n : UINT_MAX - 1); }

static unsigned watts(unsigned mw) { return mw == XP_GPU_UNREAD ? XP_GPU_UNREAD : (mw + 500) / 1000; }

int xp_gpu_state_record(xp_run *r, int device, const xp_gpu_state *st) {
  char names[256];
  xp_gpu_reason_names(st->reasons_seen, names, sizeof names);
  unsigned power_w = watts(st->power_max_mw);
  unsigned limit_w = watts(st->power_limit_mw), default_w = watts(st->default_limit_mw);
  int rc = meta_unsigned(r, device, "samples", count_of(st->samples));
  if (!rc) rc = meta_unsigned(r, device, "samples_run", count_of(st->samples_run));
  if (!rc) rc = meta_text(r, device, "scope", st->timed ? "timed" : "run");
  if (!rc) rc = meta_unsigned(r, device, "sm_clock_mhz_min", st->sm_min);
  if (!rc) rc = meta_unsigned(r, device, "sm_clock_mhz_median", st->sm_median);
  if (!rc) rc = meta_unsigned(r, device, "sm_clock_mhz_max", st->sm_max);
  if (!rc) rc = meta_unsigned(r, device, "mem_clock_mhz_min", st->mem_min);
  if (!rc) rc = meta_unsigned(r, device, "temperature_c_max", st->temp_max);
  if (!rc) rc = meta_unsigned(r, device, "power_w_max", power_w);
  if (!rc) rc = meta_unsigned(r, device, "power_limit_w", limit_w);
  if (!rc) rc = meta_unsigned(r, device, "power_limit_default_w", default_w);
  if (!rc && st->slowdown_share >= 0) rc = meta_text(r, device, "clock_events", names);
  if (!rc) rc = meta_share(r, device, "slowdown_share", st->slowdown_share);
  if (!rc) rc = meta_share(r, device, "power_cap_share", st->power_cap_share);
  return rc ? XP_EXIT_DB : 0;
}

int xp_gpu_state_warning(int device, const xp_gpu_state *st, char *out, size_t n) {
  if (st->power_limit_mw != XP_GPU_UNREAD && st->default_limit_mw != XP_GPU_UNREAD &&
      st->power_limit_mw < st->default_limit_mw) {
    snprintf(out, n, "GPU %d ran under a power limit of %u W, below its default %u W: its times may not compare "
             "with other runs' (run_meta gpu_state.%d.power_limit_w)", device, watts(st->power_limit_mw),
             watts(st->default_limit_mw), device);
    return 1;
  }
  if (!(st->slowdown_share > 0)) return 0;
  char names[256];
  xp_gpu_reason_names(st->reasons_seen & XP_CLOCKS_SLOWDOWN, names, sizeof names);
  int at = snprintf(out, n, "GPU %d slowed its clocks %s (%s in %.0f%% of %zu samples", device,
                    st->timed ? "while xp timed it" : "during the run", names, st->slowdown_share * 100, st->samples);
  if (st->sm_min != XP_GPU_UNREAD && at >= 0 && (size_t)at < n)
    at += snprintf(out + at, n - (size_t)at, "; SM clock %u-%u MHz", st->sm_min, st->sm_max);
  if (at >= 0 && (size_t)at < n)
    snprintf(out + at, n - (size_t)at, "): its times may not compare with other runs' (run_meta gpu_state.%d.*)",
             device);
  return 1;
}

/* ---- NVML, opened at run time ---- */

typedef int nvml_return;              /* nvmlReturn_t; 0 is NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;
enum { NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 };

typedef struct nvml_api {
  nvml_return (*init)(void);
  nvml_return (*shutdown)(void);
  const char *(*error_string)(nvml_return);
  nvml_return (*by_uuid)(const char *, nvml_device *);
  nvml_return (*clock)(nvml_device, int, unsigned *);
  nvml_return (*reasons)(nvml_device, unsigned long long *);
  nvml_return (*temperature)(nvml_device, int, unsigned *);
  nvml_return (*power)(nvml_device, unsigned *);
  nvml_return (*power_limit)(nvml_device, unsigned *);
  nvml_return (*default_limit)(nvml_device, unsigned *);
} nvml_api;

/* The functions xp reads with, from the driver's library; 0, or -1 with why. Symbols kept since
** NVML's first releases, except the clock-event reasons, renamed in driver 535 (the old name is
** still exported, so either serves). */
static int nvml_open(nvml_api *a, char *why, size_t n) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    snprintf(why, n, "no NVML: %s", dlerror());
    return -1;
  }
  *(void **)&a->init = dlsym(lib, "nvmlInit_v2");
  *(void **)&a->shutdown = dlsym(lib, "nvmlShutdown");
  *(void **)&a->error_string = dlsym(lib, "nvmlErrorString");
  *(void **)&a->by_uuid = dlsym(lib, "nvmlDeviceGetHandleByUUID");
  *(void **)&a->clock = dlsym(lib, "nvmlDeviceGetClockInfo");
  *(void **)&a->reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!a->reasons) *(void **)&a->reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
  *(void **)&a->temperature = dlsym(lib, "nvmlDeviceGetTemperature");
  *(void **)&a->power = dlsym(lib, "nvmlDeviceGetPowerUsage");
  *(void **)&a->power_limit = dlsym(lib, "nvmlDeviceGetEnforcedPowerLimit");
  *(void **)&a->default_limit = dlsym(lib, "nvmlDeviceGetPowerManagementDefaultLimit");
  if (!a->init || !a->shutdown || !a->error_string || !a->by_uuid || !a->clock) {
    snprintf(why, n, "no NVML: libnvidia-ml.so.1 lacks nvmlInit_v2 or the clock queries");
    return -1; /* the library stays loaded: unloading a driver library is not worth its risks */
  }
  nvml_return e = a->init();
  if (e != 0) {
    snprintf(why, n, "no NVML: nvmlInit: %s", a->error_string(e));
    return -1;
  }
  return 0;
}

static void nvml_read(const nvml_api *a, nvml_device d, xp_gpu_sample *s) {
  s->sm_mhz = s->mem_mhz = s->temp_c = s->power_mw = XP_GPU_UNREAD;
  s->reasons = 0;
  s->reasons_read = 0;
  unsigned v;
  if (a->clock(d, NVML_CLOCK_SM, &v) == 0) s->sm_mhz = v;
  if (a->clock(d, NVML_CLOCK_MEM, &v) == 0) s->mem_mhz = v;
  if (a->temperature && a->temperature(d, NVML_TEMPERATURE_GPU, &v) == 0) s->temp_c = v;
  if (a->power && a->power(d, &v) == 0) s->power_mw = v;
  unsigned long long bits;
  if (a->reasons && a->reasons(d, &bits) == 0) {
    s->reasons = bits;
    s->reasons_read = 1;
  }
}

/* ---- the sampler thread ---- */

/* A run of hours at 50 ms stays in a few MB per GPU; past this many, readings are dropped
** (the state already sampled stands; the count says how many were kept). */
enum { MAX_SAMPLES = 1 << 20, DEFAULT_PERIOD_MS = 50 };

typedef struct watched {
  int device;
  char *uuid;
  nvml_device handle;
  unsigned power_limit_mw, default_limit_mw; /* enforced (an admin's nvidia-smi -pl) and the board's
                                              ** default, or unread */
  xp_gpu_sample *s;
  size_t n, cap;
} watched;

struct xp_gpu_watch {
  int n, period_ms, stop, running;
  int read_now; /* a timed loop began or ended: read at once, counted as timed (under mu) */
  watched *g;
  pthread_t thread;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char why[256]; /* why nothing was sampled; "" when the sampler ran */
};

static void keep_sample(watched *g, const xp_gpu_sample *s) {
  if (g->n == MAX_SAMPLES) return;
  if (g->n == g->cap) {
    g->cap = g->cap ? g->cap * 2 : 256;
    g->s = xp_xrealloc(g->s, sizeof *g->s * g->cap);
  }
  g->s[g->n++] = *s;
}

/* Each GPU's handle, and what stays put while a run runs: its enforced power limit. */
static int find_handles(xp_gpu_watch *w, const nvml_api *a) {
  for (int i = 0; i < w->n; i++) {
    nvml_return e = a->by_uuid(w->g[i].uuid, &w->g[i].handle);
    if (e != 0) {
      snprintf(w->why, sizeof w->why, "NVML does not know GPU %d (%s): %s", w->g[i].device, w->g[i].uuid,
               a->error_string(e));
      return -1;
    }
    unsigned mw;
    w->g[i].power_limit_mw = a->power_limit && a->power_limit(w->g[i].handle, &mw) == 0 ? mw : XP_GPU_UNREAD;
    w->g[i].default_limit_mw = a->default_limit && a->default_limit(w->g[i].handle, &mw) == 0 ? mw : XP_GPU_UNREAD;
  }
  return 0;
}

/* ---- timed windows (xp_gpu_watch_timing) ---- */

static atomic_int timing_depth;                                /* timed loops open now */
static pthread_mutex_t active_mu = PTHREAD_MUTEX_INITIALIZER; /* taken before a watch's mu */
static xp_gpu_watch *active;                                   /* the watch sampling now */

void xp_gpu_watch_timing(int on) {
  atomic_fetch_add(&timing_depth, on ? 1 : -1);
  pthread_mutex_lock(&active_mu);
  if (active) {
    pthread_mutex_lock(&active->mu);
    active->read_now = 1;
    pthread_cond_signal(&active->cv);
    pthread_mutex_unlock(&active->mu);
  }
  pthread_mutex_unlock(&active_mu);
}

static void set_active(xp_gpu_watch *w, int on) {
  pthread_mutex_lock(&active_mu);
  if (on) active = w;
  else if (active == w) active = NULL;
  pthread_mutex_unlock(&active_mu);
}

/* A reading asked for by a timed loop's start or end is timed, whatever the depth by the time it
** is taken (the loop that just ended was). */
static void read_all(xp_gpu_watch *w, const nvml_api *a, int asked) {
  int timed = asked || atomic_load(&timing_depth) > 0;
  for (int i = 0; i < w->n; i++) {
    xp_gpu_sample s;
    nvml_read(a, w->g[i].handle, &s);
    s.timed = timed;
    keep_sample(&w->g[i], &s);
  }
}

static void due_in(struct timespec *t, int ms) {
  clock_gettime(CLOCK_REALTIME, t);
  long ns = t->tv_nsec + (long)ms * 1000000L;
  t->tv_sec += ns / 1000000000L;
  t->tv_nsec = ns % 1000000000L;
}

static void *sample_loop(void *arg) {
  xp_gpu_watch *w = arg;
  nvml_api a;
  memset(&a, 0, sizeof a);
  /* Readings, handles and w->why belong to this thread until watch_stop joins it. */
  if (nvml_open(&a, w->why, sizeof w->why) != 0) return NULL;
  if (find_handles(w, &a) == 0) {
    read_all(w, &a, 0);
    struct timespec due;
    due_in(&due, w->period_ms);
    pthread_mutex_lock(&w->mu);
    while (!w->stop) {
      int e = 0; /* anything but 0 from the wait (ETIMEDOUT) means the period's reading is due */
      while (!w->stop && !w->read_now && e == 0) e = pthread_cond_timedwait(&w->cv, &w->mu, &due);
      if (w->stop) break;
      int asked = w->read_now;
      w->read_now = 0;
      if (!asked) due_in(&due, w->period_ms); /* a reading asked for leaves the period's due */
      pthread_mutex_unlock(&w->mu);
      read_all(w, &a, asked);
      pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    read_all(w, &a, 0); /* the state the run ended in */
  }
  a.shutdown();
  return NULL;
}

/* XP_GPU_WATCH_MS: milliseconds between readings, 0 for none; anything else is said and the default
** taken (a typo must not stop a measurement). */
static int watch_period_ms(void) {
  const char *v = getenv("XP_GPU_WATCH_MS");
  if (!v || !*v) return DEFAULT_PERIOD_MS;
  int64_t ms;
  if (xp_parse_int64(v, &ms) != 0 || ms < 0 || ms > 3600000) {
    xp_warn("XP_GPU_WATCH_MS=%s is not a number of milliseconds (0 to 3600000): sampling every %d ms", v,
            DEFAULT_PERIOD_MS);
    return DEFAULT_PERIOD_MS;
  }
  return (int)ms;
}

xp_gpu_watch *xp_gpu_watch_start(const int *devices, const char *const *uuids, int n) {
  xp_gpu_watch *w = xp_xcalloc(1, sizeof *w);
  w->period_ms = watch_period_ms();
  w->g = xp_xcalloc((size_t)(n > 0 ? n : 1), sizeof *w->g);
  for (int i = 0; i < n; i++) {
    int seen = 0; /* a device named twice is watched once */
    for (int j = 0; j < w->n; j++) seen |= strcmp(w->g[j].uuid, uuids[i]) == 0;
    if (seen) continue;
    w->g[w->n].device = devices[i];
    w->g[w->n++].uuid = xp_strdup(uuids[i]);
  }
  pthread_mutex_init(&w->mu, NULL);
  pthread_cond_init(&w->cv, NULL);
  if (w->period_ms == 0) snprintf(w->why, sizeof w->why, "off (XP_GPU_WATCH_MS=0)");
  else if (w->n == 0) snprintf(w->why, sizeof w->why, "no GPU to watch");
  else if (pthread_create(&w->thread, NULL, sample_loop, w) == 0) {
    w->running = 1;
    set_active(w, 1);
  }
  else snprintf(w->why, sizeof w->why, "the sampler thread could not be started");
  return w;
}

static void watch_stop(xp_gpu_watch *w) {
  if (!w->running) return;
  set_active(w, 0);
  pthread_mutex_lock(&w->mu);
  w->stop = 1;
  pthread_cond_signal(&w->cv);
  pthread_mutex_unlock(&w->mu);
  pthread_join(w->thread, NULL);
  w->running = 0;
}

void xp_gpu_watch_free(xp_gpu_watch *w) {
  if (!w) return;
  watch_stop(w);
  for (int i = 0; i < w->n; i++) {
    free(w->g[i].uuid);
    free(w->g[i].s);
  }
  free(w->g);
  pthread_mutex_destroy(&w->mu);
  pthread_cond_destroy(&w->cv);
  free(w);
}

int xp_gpu_watch_finish(xp_gpu_watch *w, xp_run *r) {
  if (!w) return 0;
  watch_stop(w);
  char how[96];
  snprintf(how, sizeof how, "nvml, every %d ms", w->period_ms);
  int rc = xp_run_meta(r, "gpu_state.sampler", w->why[0] ? w->why : how, "detected") ? XP_EXIT_DB : 0;
  int warned = 0; /* eight GPUs at their power cap are one finding, not eight lines */
  for (int i = 0; i < w->n && rc == 0 && !w->why[0]; i++) {
    xp_gpu_state st;
    xp_gpu_state_summarize(w->g[i].s, w->g[i].n, &st);
    st.power_limit_mw = w->g[i].power_limit_mw;
    st.default_limit_mw = w->g[i].default_limit_mw;
    rc = xp_gpu_state_record(r, w->g[i].device, &st);
    char line[512];
    if (rc == 0 && xp_gpu_state_warning(w->g[i].device, &st, line, sizeof line) && warned++ == 0) xp_warn("%s", line);
  }
  if (warned > 1)
    xp_warn("and %d more of the run's GPUs slowed or ran under a lowered power limit (xp query queries/gpu_state.sql)",
            warned - 1);
  xp_gpu_watch_free(w);
  return rc;
}
