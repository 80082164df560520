/* The GPU-state sampler's arithmetic and recording, without a GPU: readings chosen by hand are
** summarized (minimum, median, maximum, the share of readings slowed by heat or a power brake,
** apart from a power cap), named, warned of and written as run_meta gpu_state.<device>.*; and a
** sampler given a GPU NVML cannot know records why it sampled nothing, and no figures. The
** sampling itself runs on GPU hosts: tests/gpu/gpu_state.sh. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "testutil.h"
#include "db.h"
#include "gpu_watch.h"
#include "xp.h"

static xp_gpu_sample reading(unsigned sm, unsigned mem, unsigned temp, unsigned mw, unsigned long long why) {
  xp_gpu_sample s = {sm, mem, temp, mw, why, 1, 0};
  return s;
}

static void test_summary(void) {
  xp_gpu_sample s[5] = {
      reading(1980, 3201, 40, 300000, 0),
      reading(1410, 3201, 83, 700000, XP_CLOCKS_SW_POWER_CAP | XP_CLOCKS_HW_THERMAL_SLOWDOWN),
      reading(1755, 2619, 60, 650000, XP_CLOCKS_SW_POWER_CAP),
      reading(XP_GPU_UNREAD, XP_GPU_UNREAD, XP_GPU_UNREAD, XP_GPU_UNREAD, 0),
      reading(1980, 3201, 55, 400000, XP_CLOCKS_GPU_IDLE),
  };
  s[3].reasons_read = 0; /* a reading NVML answered nothing to counts in no share */
  xp_gpu_state st;
  xp_gpu_state_summarize(s, 5, &st);
  CHECK_EQ_INT(st.samples, 5);
  CHECK_EQ_INT(st.sm_min, 1410);
  CHECK_EQ_INT(st.sm_max, 1980);
  CHECK_EQ_INT(st.sm_median, 1755); /* of 1410 1755 1980 1980: the lower middle, a clock seen */
  CHECK_EQ_INT(st.mem_min, 2619);
  CHECK_EQ_INT(st.temp_max, 83);
  CHECK_EQ_INT(st.power_max_mw, 700000);
  CHECK_NEAR(st.slowdown_share, 0.25, 1e-12);  /* 1 of 4 read */
  CHECK_NEAR(st.power_cap_share, 0.5, 1e-12);
  CHECK_EQ_INT(st.reasons_seen, XP_CLOCKS_SW_POWER_CAP | XP_CLOCKS_HW_THERMAL_SLOWDOWN | XP_CLOCKS_GPU_IDLE);

  char line[512];
  CHECK(xp_gpu_state_warning(2, &st, line, sizeof line));
  CHECK_EQ_STR(line, "GPU 2 slowed its clocks during the run (hw_thermal_slowdown in 25% of 5 samples; SM "
                     "clock 1410-1980 MHz): its times may not compare with other runs' (run_meta gpu_state.2.*)");

  /* A power limit below the board's default is said first: the slowdown follows from it. */
  st.power_limit_mw = 500000, st.default_limit_mw = 700000;
  CHECK(xp_gpu_state_warning(2, &st, line, sizeof line));
  CHECK_EQ_STR(line, "GPU 2 ran under a power limit of 500 W, below its default 700 W: its times may not compare "
                     "with other runs' (run_meta gpu_state.2.power_limit_w)");

  /* A power cap alone is a loaded GPU's normal speed: no warning. */
  xp_gpu_sample capped[2] = {reading(1700, 3201, 70, 700000, XP_CLOCKS_SW_POWER_CAP),
                             reading(1690, 3201, 71, 700000, XP_CLOCKS_SW_POWER_CAP)};
  xp_gpu_state_summarize(capped, 2, &st);
  CHECK_EQ_INT(st.sm_median, 1690);
  CHECK_EQ_INT(st.power_limit_mw, XP_GPU_UNREAD); /* the sampler's to set */
  CHECK(!xp_gpu_state_warning(0, &st, line, sizeof line));
  st.power_limit_mw = st.default_limit_mw = 700000; /* at its default: nothing to say */
  CHECK(!xp_gpu_state_warning(0, &st, line, sizeof line));

  /* Nothing read at all: no figure, no share. */
  xp_gpu_state_summarize(s + 3, 1, &st);
  CHECK_EQ_INT(st.sm_min, XP_GPU_UNREAD);
  CHECK_EQ_INT(st.sm_median, XP_GPU_UNREAD);
  CHECK(st.slowdown_share < 0 && st.power_cap_share < 0);
  xp_gpu_state_summarize(NULL, 0, &st);
  CHECK_EQ_INT(st.samples, 0);
  CHECK_EQ_INT(st.sm_max, XP_GPU_UNREAD);
}

/* Readings taken while xp timed are the state the times were measured in: where a run has any,
** they alone are summarized (an idle GPU between cases drops its clocks; a thermal slowdown while
** a reference was computed slowed no timed loop), and the warning says so. */
static void test_timed_scope(void) {
  xp_gpu_sample s[5] = {
      reading(345, 3201, 40, 90000, XP_CLOCKS_GPU_IDLE),                      /* before: idle */
      reading(1980, 3201, 60, 650000, 0),                                     /* timed */
      reading(1410, 3201, 88, 700000, XP_CLOCKS_HW_THERMAL_SLOWDOWN),         /* timed, slowed */
      reading(1200, 3201, 90, 300000, XP_CLOCKS_SW_THERMAL_SLOWDOWN),         /* between loops */
      reading(1965, 3201, 70, 690000, XP_CLOCKS_SW_POWER_CAP),                /* timed */
  };
  s[1].timed = s[2].timed = s[4].timed = 1;
  xp_gpu_state st;
  xp_gpu_state_summarize(s, 5, &st);
  CHECK_EQ_INT(st.timed, 1);
  CHECK_EQ_INT(st.samples, 3);
  CHECK_EQ_INT(st.samples_run, 5);
  CHECK_EQ_INT(st.sm_min, 1410);
  CHECK_EQ_INT(st.sm_median, 1965);
  CHECK_EQ_INT(st.temp_max, 88);
  CHECK_NEAR(st.slowdown_share, 1.0 / 3, 1e-12);
  CHECK_EQ_INT(st.reasons_seen, XP_CLOCKS_HW_THERMAL_SLOWDOWN | XP_CLOCKS_SW_POWER_CAP);
  char line[512];
  CHECK(xp_gpu_state_warning(1, &st, line, sizeof line));
  CHECK_EQ_STR(line, "GPU 1 slowed its clocks while xp timed it (hw_thermal_slowdown in 33% of 3 samples; SM "
                     "clock 1410-1980 MHz): its times may not compare with other runs' (run_meta gpu_state.1.*)");
  /* Slowed only between timed loops: nothing to warn of. */
  s[2].reasons = 0;
  xp_gpu_state_summarize(s, 5, &st);
  CHECK(!xp_gpu_state_warning(1, &st, line, sizeof line));
  /* No timed reading (a run shorter than a period with no timing loop): the whole run, said so. */
  for (int i = 0; i < 5; i++) s[i].timed = 0;
  xp_gpu_state_summarize(s, 5, &st);
  CHECK_EQ_INT(st.timed, 0);
  CHECK_EQ_INT(st.samples, 5);
  CHECK_EQ_INT(st.samples_run, 5);
  CHECK_EQ_INT(st.sm_min, 345);
}

static void test_names(void) {
  char out[256];
  xp_gpu_reason_names(0, out, sizeof out);
  CHECK_EQ_STR(out, "none");
  xp_gpu_reason_names(XP_CLOCKS_SW_POWER_CAP | XP_CLOCKS_SW_THERMAL_SLOWDOWN, out, sizeof out);
  CHECK_EQ_STR(out, "sw_thermal_slowdown,sw_power_cap");
  /* A reason a later driver adds is kept, as its bit. */
  xp_gpu_reason_names(0x200 | XP_CLOCKS_HW_POWER_BRAKE_SLOWDOWN, out, sizeof out);
  CHECK_EQ_STR(out, "hw_power_brake_slowdown,0x200");
  xp_gpu_reason_names(0x1ff, out, sizeof out);
  CHECK_EQ_STR(out, "hw_thermal_slowdown,sw_thermal_slowdown,hw_power_brake_slowdown,hw_slowdown,sw_power_cap,"
                    "applications_clocks_setting,sync_boost,display_clock_setting,gpu_idle");
  char small[8]; /* cut short, still a string */
  xp_gpu_reason_names(0x1ff, small, sizeof small);
  CHECK_EQ_INT(strlen(small), 7);
}

static xp_run *begin(sqlite3 *db, xp_spec *s) {
  xp_run_opts o = {"gemm", 0, s, NULL, 0};
  xp_run *run = NULL;
  CHECK_EQ_INT(xp_run_begin(db, &o, &run), 0);
  return run;
}

static char *meta(sqlite3 *db, const char *key) {
  char *sql = xp_asprintf("SELECT value FROM run_meta WHERE key = '%s' AND run_id = (SELECT max(id) FROM runs)", key);
  char *v = one_text(db, sql);
  free(sql);
  return v;
}

static void check_meta(sqlite3 *db, const char *key, const char *want) {
  char *v = meta(db, key);
  CHECK_EQ_STR(v, want);
  free(v);
}

static void test_record(sqlite3 *db, xp_spec *s) {
  xp_gpu_sample r[3] = {reading(1980, 3201, 50, 450499, 0),
                        reading(1500, 3201, 88, 700500, XP_CLOCKS_SW_THERMAL_SLOWDOWN | XP_CLOCKS_SW_POWER_CAP),
                        reading(1980, 3201, 52, 460000, 0)};
  r[2].temp_c = XP_GPU_UNREAD;
  xp_gpu_state st;
  xp_gpu_state_summarize(r, 3, &st);
  st.power_limit_mw = 699600, st.default_limit_mw = 700000;
  xp_run *run = begin(db, s);
  CHECK_EQ_INT(xp_gpu_state_record(run, 3, &st), 0);
  CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
  check_meta(db, "gpu_state.3.samples", "3");
  check_meta(db, "gpu_state.3.samples_run", "3");
  check_meta(db, "gpu_state.3.scope", "run");
  check_meta(db, "gpu_state.3.sm_clock_mhz_min", "1500");
  check_meta(db, "gpu_state.3.sm_clock_mhz_median", "1980");
  check_meta(db, "gpu_state.3.sm_clock_mhz_max", "1980");
  check_meta(db, "gpu_state.3.mem_clock_mhz_min", "3201");
  check_meta(db, "gpu_state.3.temperature_c_max", "88");
  check_meta(db, "gpu_state.3.power_w_max", "701"); /* 700.5 W, rounded */
  check_meta(db, "gpu_state.3.power_limit_w", "700");
  check_meta(db, "gpu_state.3.power_limit_default_w", "700");
  check_meta(db, "gpu_state.3.clock_events", "sw_thermal_slowdown,sw_power_cap");
  check_meta(db, "gpu_state.3.slowdown_share", "0.333");
  check_meta(db, "gpu_state.3.power_cap_share", "0.333");

  /* Power NVML never read is left out, not written as 0. */
  for (int i = 0; i < 3; i++) r[i].power_mw = XP_GPU_UNREAD;
  xp_gpu_state_summarize(r, 3, &st);
  run = begin(db, s);
  CHECK_EQ_INT(xp_gpu_state_record(run, 0, &st), 0);
  CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM run_meta WHERE key IN ('gpu_state.0.power_w_max', "
                           "'gpu_state.0.power_limit_w', 'gpu_state.0.power_limit_default_w')"), 0);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM run_meta WHERE key='gpu_state.0.sm_clock_mhz_max'"), 1);
}

/* queries/gpu_state.sql over the two runs test_record wrote: newest first, a row per run and
** device, the figures as recorded, power left empty where none was read. */
static void test_query(sqlite3 *db) {
  static const char *const cols[] = {"device", "scope", "samples", "samples_run", "sm_min", "sm_median", "sm_max", "power_max",
                                     "power_limit", "slowdown_share", "clock_events"};
  test_rows rows = {.cols = cols, .ncols = sizeof cols / sizeof *cols};
  CHECK_EQ_INT(test_query_rows(db, "gpu_state.sql", &rows), 0);
  CHECK_EQ_INT(rows.n, 2);
  CHECK_EQ_STR(rows.row[0], "0|run|3|3|1500|1980|1980|||0.333|sw_thermal_slowdown,sw_power_cap");
  CHECK_EQ_STR(rows.row[1], "3|run|3|3|1500|1980|1980|701|700|0.333|sw_thermal_slowdown,sw_power_cap");
}

/* A GPU NVML cannot know: on a machine without the driver NVML is not there at all; on a GPU host
** it does not know this UUID. Either way the run says why and records no figures. */
static void test_unknown_gpu(sqlite3 *db, xp_spec *s) {
  int dev = 5;
  const char *uuid = "GPU-00000000-0000-0000-0000-000000000000";
  xp_run *run = begin(db, s);
  xp_gpu_watch *w = xp_gpu_watch_start(&dev, &uuid, 1);
  usleep(20000);
  CHECK_EQ_INT(xp_gpu_watch_finish(w, run), 0);
  CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
  char *why = meta(db, "gpu_state.sampler");
  CHECK(why && (strncmp(why, "no NVML: ", 9) == 0 || strncmp(why, "NVML does not know GPU 5 (GPU-0000", 34) == 0));
  printf("unknown GPU: %s\n", why ? why : "(none)");
  free(why);
  CHECK_EQ_INT(one_int(db, "SELECT count(*) FROM run_meta WHERE key LIKE 'gpu_state.5.%' "
                           "AND run_id = (SELECT max(id) FROM runs)"), 0);

  /* XP_GPU_WATCH_MS=0: off, said so. */
  setenv("XP_GPU_WATCH_MS", "0", 1);
  run = begin(db, s);
  w = xp_gpu_watch_start(&dev, &uuid, 1);
  CHECK_EQ_INT(xp_gpu_watch_finish(w, run), 0);
  CHECK_EQ_INT(xp_run_finish(run, XP_RUN_OK, NULL), 0);
  check_meta(db, "gpu_state.sampler", "off (XP_GPU_WATCH_MS=0)");
  unsetenv("XP_GPU_WATCH_MS");

  /* A watch dropped without recording (a run that could not begin) frees what it holds. */
  xp_gpu_watch_free(xp_gpu_watch_start(&dev, &uuid, 1));
  xp_gpu_watch_free(NULL);
  CHECK_EQ_INT(xp_gpu_watch_finish(NULL, NULL), 0);
}

int main(void) {
  char dbpath[] = "/tmp/xp-test-gpu-watch-XXXXXX";
  sqlite3 *db = test_db_new(dbpath);
  CHECK(db != NULL);
  if (!db) CHECK_DONE();
  xp_spec *s = xp_spec_parse_json("{\"kind\":\"gemm\",\"shapes\":[{\"name\":\"o\",\"n\":64,\"k\":64}],\"m\":[1]}",
                                  "g.json", ".");
  CHECK(s != NULL);
  test_summary();
  test_timed_scope();
  test_names();
  if (s) {
    test_record(db, s);
    if (getenv("XP_SRC")) test_query(db);
    else printf("queries/gpu_state.sql not checked: XP_SRC (the repository root) is not set\n");
    test_unknown_gpu(db, s);
  }
  xp_spec_free(s);
  xp_db_close(db);
  unlink(dbpath);
  CHECK_DONE();
}
