/* A trace file as tt_source hands it over, in chunks: every byte in order, whatever the file's
** size and form, with the promised headroom writable before each chunk. A plain file smaller
** than one chunk is read whole when opened, with no reader thread (a small trace, and every fuzz
** input, paid for a thread and its ring); a larger one, or gzip, is read by the thread. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "check.h"
#include "testutil.h"
#include "torch_trace/tt_source.h"

/* n bytes that differ from chunk to chunk, so a chunk out of place or twice shows */
static char *pattern(size_t n) {
  char *p = xp_xmalloc(n + 1);
  for (size_t i = 0; i < n; i++) p[i] = (char)('a' + (i * 7 + i / 4093) % 26);
  return p;
}

static char *put(const char *name, const char *data, size_t n) {
  char *path = test_path(name);
  FILE *f = fopen(path, "wb");
  CHECK(f && fwrite(data, 1, n, f) == n && fclose(f) == 0);
  return path;
}

/* Read path through tt_source: its bytes must be want's n; *threaded as the source says. */
static void read_back(const char *path, const char *want, size_t n, int *threaded) {
  char err[512];
  tt_source *src = tt_source_open(path, err, sizeof err);
  CHECK(src != NULL);
  if (!src) return;
  *threaded = tt_source_threaded(src);
  const char *data;
  size_t len, seen = 0;
  int got, same = 1;
  while ((got = tt_source_next(src, &data, &len, err, sizeof err)) == 1) {
    memset((char *)data - TT_SOURCE_HEADROOM, '#', TT_SOURCE_HEADROOM); /* the reader's to write */
    same = same && seen + len <= n && memcmp(data, want + seen, len) == 0;
    seen += len;
  }
  CHECK_EQ_INT(got, 0);
  CHECK(same);
  CHECK_EQ_INT(seen, n);
  tt_source_close(src);
}

int main(void) {
  if (!test_dir_make("/tmp/xp-test-source-XXXXXX")) {
    fprintf(stderr, "skipped: no scratch folder\n");
    return 77;
  }
  const size_t chunk = 1 << 20, big = 5 * chunk / 2;
  char *text = pattern(big);
  int threaded = -1;
  /* smaller than a chunk: read when opened, no thread */
  char *small = put("small.json", text, 5000);
  read_back(small, text, 5000, &threaded);
  CHECK_EQ_INT(threaded, 0);
  char *under = put("under.json", text, chunk - 1);
  read_back(under, text, chunk - 1, &threaded);
  CHECK_EQ_INT(threaded, 0);
  char *empty = put("empty.json", text, 0);
  read_back(empty, text, 0, &threaded);
  CHECK_EQ_INT(threaded, 0);
  /* one chunk or more: the thread reads it, chunk after chunk */
  char *whole = put("chunk.json", text, chunk);
  read_back(whole, text, chunk, &threaded);
  CHECK_EQ_INT(threaded, 1);
  char *large = put("large.json", text, big);
  read_back(large, text, big, &threaded);
  CHECK_EQ_INT(threaded, 1);
  /* gzip, however small: inflated by the thread */
  char *gz = test_path("small.json.gz");
  gzFile g = gzopen(gz, "wb");
  CHECK(g && gzwrite(g, text, 5000) == 5000 && gzclose(g) == Z_OK);
  read_back(gz, text, 5000, &threaded);
  CHECK_EQ_INT(threaded, 1);
  free(small), free(under), free(empty), free(whole), free(large), free(gz), free(text);
  test_dir_remove();
  CHECK_DONE();
}
