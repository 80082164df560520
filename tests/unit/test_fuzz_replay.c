/*
** Every fuzz input that matters, replayed in every build (no libFuzzer needed): the seed
** corpora (tests/fuzz/corpus/TARGET/) and the inputs that once crashed a target or broke one of
** its properties (tests/fuzz/regressions/TARGET/). Under the sanitizer build, a regression that
** comes back is caught as the crash, leak or broken property it was.
**
** The targets' sources are compiled in here with their entry points renamed; see
** tests/fuzz/fuzz_common.h for what each checks beyond not crashing.
*/
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"
#include "xp.h"
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPLAY_ASAN 1
#endif
#elif defined(__SANITIZE_ADDRESS__)
#define REPLAY_ASAN 1
#endif
#ifdef REPLAY_ASAN
#include <sanitizer/allocator_interface.h>
#endif

#define LLVMFuzzerTestOneInput fuzz_trace_events_one
#include "../fuzz/fuzz_trace_events.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerTestOneInput fuzz_spec_one
#include "../fuzz/fuzz_spec.c"
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize fuzz_torch_trace_init
#define LLVMFuzzerTestOneInput fuzz_torch_trace_one
#include "../fuzz/fuzz_torch_trace.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize fuzz_nccl_tests_init
#define LLVMFuzzerTestOneInput fuzz_nccl_tests_one
#include "../fuzz/fuzz_nccl_tests.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput
#define LLVMFuzzerInitialize fuzz_vllm_bench_init
#define LLVMFuzzerTestOneInput fuzz_vllm_bench_one
#include "../fuzz/fuzz_vllm_bench.c"
#undef LLVMFuzzerInitialize
#undef LLVMFuzzerTestOneInput

static const struct target {
  const char *name;
  int (*one)(const uint8_t *, size_t);
  const char *importer; /* NULL: needs none */
} targets[] = {
    {"trace_events", fuzz_trace_events_one, NULL},
    {"spec", fuzz_spec_one, NULL},
    {"torch_trace", fuzz_torch_trace_one, "torch-trace"},
    {"nccl_tests", fuzz_nccl_tests_one, "nccl-tests"},
    {"vllm_bench", fuzz_vllm_bench_one, "vllm-bench"},
};

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Feed every file of dir to the target, in name order. Returns the number replayed. */
static int replay_dir(const struct target *t, const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  char **names = NULL;
  size_t n = 0;
  for (struct dirent *e; (e = readdir(d)) != NULL;) {
    if (e->d_name[0] == '.') continue;
    names = xp_xrealloc(names, (n + 1) * sizeof *names);
    names[n++] = xp_strdup(e->d_name);
  }
  closedir(d);
  qsort(names, n, sizeof *names, cmp_names);
  for (size_t i = 0; i < n; i++) {
    char *path = xp_asprintf("%s/%s", dir, names[i]);
    size_t len = 0;
    char *data = xp_read_file(path, &len);
    if (!data) {
      fprintf(stderr, "replay: cannot read %s\n", path);
      exit(1);
    }
    fprintf(stderr, "replay %s: %s\n", t->name, names[i]); /* names the input if it crashes */
    t->one((const uint8_t *)data, len);
    free(data);
    free(path);
    free(names[i]);
  }
  free(names);
  return (int)n;
}

#ifdef REPLAY_ASAN
static long mallocs, frees;
static void on_malloc(const volatile void *p, size_t n) { (void)p, (void)n, mallocs++; }
static void on_free(const volatile void *p) { (void)p, frees++; }
#endif

/* An importer's input leaves nothing allocated: libFuzzer runs an input again, and then checks
** the whole heap for leaks, after any input that made more allocations than it freed. The fuzz
** database's pages come from fuzz_db_pages' buffer, none malloc'd (its slots fit xp's pages), and
** the run's error message is freed; under ASan, an input replayed after the first counts as many
** frees as mallocs. */
static void check_leaves_nothing(const struct target *t, const char *path, int cut) {
  int used = 0, overflow = 0, high;
  sqlite3_status(SQLITE_STATUS_PAGECACHE_USED, &used, &high, 0);
  sqlite3_status(SQLITE_STATUS_PAGECACHE_OVERFLOW, &overflow, &high, 0);
  CHECK(used > 0);
  CHECK_EQ_INT(overflow, 0);
  size_t len = 0;
  char *data = xp_read_file(path, &len);
  CHECK(data != NULL);
  if (!data) return;
  if (cut) len /= 2; /* a file cut short: the importer fails */
#ifdef REPLAY_ASAN
  static int counting;
  if (!counting) CHECK((counting = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free)) != 0);
#endif
  for (int i = 0; i < 4; i++) {
#ifdef REPLAY_ASAN
    const long m = mallocs, f = frees;
#endif
    t->one((const uint8_t *)data, len);
    CHECK_EQ_STR(xp_last_error(), "");
#ifdef REPLAY_ASAN
    if (i > 0) CHECK_EQ_INT(mallocs - m, frees - f); /* the first may fill the process's caches */
#endif
  }
  free(data);
}

/* fuzz_import_crlf imports an input twice, with LF and with CRLF line ends, and the two must meet
** one history: vllm-bench leaves out a result an earlier import recorded from another file. Each
** round imports the regression input's first result alone (one import: no line end to convert),
** then the input (two imports), whose imports leave that result out. The database of a target
** turned every 2000 imports, at any of a round's three: one turn in three fell between an input's
** LF and CRLF imports, and the CRLF import, in a fresh database, recorded the result the LF one had
** left out (found by the fuzzer after 71k inputs). It turns between inputs now: here every 5, so
** that 12 rounds meet 4 turns, at every phase of a round. */
static void check_one_history_per_input(const struct target *t, const char *path) {
  size_t len = 0;
  char *data = xp_read_file(path, &len);
  const char *nl = data ? memchr(data, '\n', len) : NULL;
  CHECK(nl != NULL);
  if (!nl) return;
  const int turn = fuzz_db_turn;
  fuzz_db_turn = 5;
  for (int i = 0; i < 12; i++) {
    t->one((const uint8_t *)data, (size_t)(nl - data));
    t->one((const uint8_t *)data, len);
  }
  fuzz_db_turn = turn;
  free(data);
}

int main(void) {
  const char *src = getenv("XP_SRC");
  if (!src || !*src) {
    fprintf(stderr, "skipped: XP_SRC is not set (run through ctest)\n");
    return 77;
  }
  fuzz_quiet();
  for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
    const struct target *t = &targets[i];
    if (t->importer && !xp_importer_find(t->importer)) {
      fprintf(stderr, "replay %s: skipped: this build has no '%s' importer\n", t->name, t->importer);
      continue;
    }
    char *corpus = xp_asprintf("%s/tests/fuzz/corpus/%s", src, t->name);
    char *regress = xp_asprintf("%s/tests/fuzz/regressions/%s", src, t->name);
    int a = replay_dir(t, corpus), b = replay_dir(t, regress);
    fprintf(stderr, "replay %s: %d seeds, %d regressions: ok\n", t->name, a, b);
    free(corpus);
    free(regress);
  }
  /* a failing input (its error message kept until cleared) and a CRLF-checked one */
  char *trace = xp_asprintf("%s/tests/fuzz/corpus/torch_trace/nccl_data.json", src);
  char *nccl = xp_asprintf("%s/tests/fuzz/corpus/nccl_tests/nccltests_sweep.txt", src);
  if (xp_importer_find("torch-trace")) check_leaves_nothing(&targets[2], trace, 1);
  if (xp_importer_find("nccl-tests")) check_leaves_nothing(&targets[3], nccl, 0);
  char *turned = xp_asprintf("%s/tests/fuzz/regressions/vllm_bench/property-crlf-database-turned-between-lf-and-crlf.json",
                              src);
  if (xp_importer_find("vllm-bench")) check_one_history_per_input(&targets[4], turned);
  free(turned);
  free(trace);
  free(nccl);
  CHECK_DONE();
}
