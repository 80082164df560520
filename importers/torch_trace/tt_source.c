/*
** The reader thread of a trace file (see tt_source.h). One producer, one consumer, a ring of
** RING buffers: the producer fills a free buffer and publishes it; the consumer takes the
** oldest, and hands it back when it asks for the next. A bounded ring keeps memory flat when
** parsing is slower than inflating, and lets inflating run ahead when it is not. Buffers are
** made as the producer first fills them, so a file of one chunk holds one. A plain file smaller
** than a chunk is read whole by tt_source_open, the producer's same step on the caller's
** thread, and no thread starts: it has nothing to overlap, and a thread with its ring cost as
** much as reading a small file.
*/
#include "tt_source.h"
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#ifdef XP_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include "xp.h"

enum { RING = 4, OUT_CHUNK = 1 << 20, IN_CHUNK = 256 << 10 };

struct tt_source {
  FILE *fp;
  char *path;
  uint64_t size;
  int gzip;
  _Atomic uint64_t file_pos;

  pthread_t thread;
  int started;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  char *buf[RING];
  size_t len[RING];
  unsigned head, tail; /* buffers [tail, head) are filled, in order */
  int done;            /* producer finished (end of stream or error) */
  int stop;            /* consumer asks the producer to quit */
  int failed;
  int corrupt;         /* failed on data that do not inflate (not cut short, not a read error) */
  uint64_t trailing;   /* bytes after the last gzip member that start no other: left unread */
  char err[512];
  int holding;         /* the consumer holds buffer tail (given back on the next call) */

  unsigned char *in;
#ifdef XP_HAVE_ISAL
  struct inflate_state *isal;
#endif
  z_stream zs;
  int zs_ready;
};

/* Why a gzip stream breaks in the middle, as the plain JSON's framer says where it can see the
** other trace's events (tt_json.c): every rank exporting to one .gz path (TensorRT-LLM's
** TLLM_TORCH_PROFILE_TRACE before it named each rank's file) truncates it and writes its own
** stream from the start, the last to write a block keeping it, so one stream's blocks are
** followed by another's, which no inflater can continue and none can tell from damage. */
#define OVERWRITTEN                                                                                    \
  ": damaged, or written over by another process's trace (several ranks exporting to one .gz path at " \
  "once?): give each rank its own file"

/* ---- producer side ---- */

/* Wait for a free buffer; NULL when the consumer stopped us. */
static char *take_free(tt_source *s) {
  pthread_mutex_lock(&s->mu);
  while (s->head - s->tail >= RING && !s->stop) pthread_cond_wait(&s->cv, &s->mu);
  const int stop = s->stop;
  pthread_mutex_unlock(&s->mu);
  if (stop) return NULL;
  /* a buffer not yet published is the producer's alone */
  char **b = &s->buf[s->head % RING];
  if (!*b) *b = xp_xmalloc(TT_SOURCE_HEADROOM + OUT_CHUNK);
  return *b + TT_SOURCE_HEADROOM;
}

static void publish(tt_source *s, size_t n) {
  pthread_mutex_lock(&s->mu);
  s->len[s->head % RING] = n;
  s->head++;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

static void finish(tt_source *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void finish(tt_source *s, const char *fmt, ...) {
  pthread_mutex_lock(&s->mu);
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->err, sizeof s->err, fmt, ap);
    va_end(ap);
    s->failed = 1;
  }
  s->done = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* Read more compressed input. Returns bytes read (0 at end of file), -1 on error. */
static long read_in(tt_source *s) {
  size_t n = fread(s->in, 1, IN_CHUNK, s->fp);
  if (n == 0 && ferror(s->fp)) return -1;
  atomic_fetch_add_explicit(&s->file_pos, n, memory_order_relaxed);
  return (long)n;
}

/* The next chunk of a plain file. Returns 1 once the producer has finished (the file's end, a
** read error, or the consumer stopped it), 0 while more may follow. A short read is the file's
** end or an error (fread's promise), so a file smaller than a chunk takes one step. */
static int plain_step(tt_source *s) {
  char *b = take_free(s);
  if (!b) return finish(s, NULL), 1;
  size_t n = fread(b, 1, OUT_CHUNK, s->fp);
  if (n > 0) {
    atomic_fetch_add_explicit(&s->file_pos, n, memory_order_relaxed);
    publish(s, n);
  }
  if (n == OUT_CHUNK) return 0;
  if (ferror(s->fp)) finish(s, "%s: read error: %s", s->path, strerror(errno));
  else finish(s, NULL);
  return 1;
}

static void *plain_main(void *arg) {
  while (!plain_step(arg)) {}
  return NULL;
}

#ifdef XP_HAVE_ISAL
static const char *isal_what(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK: return "invalid deflate distance";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header";
    case ISAL_UNSUPPORTED_METHOD: return "unsupported compression method";
    case ISAL_INCORRECT_CHECKSUM: return "checksum mismatch";
    default: return "corrupt data";
  }
}

/* Whether a further gzip member starts here (its magic bytes 1f 8b); one byte left is taken
** for the start of one, and found wanting by the inflater if it is not. */
static int gzip_magic(const uint8_t *p, uint32_t n) {
  return n == 0 || (p[0] == 0x1f && (n < 2 || p[1] == 0x8b));
}

static void *isal_main(void *arg) {
  tt_source *s = arg;
  struct inflate_state *st = s->isal;
  isal_inflate_init(st);
  st->crc_flag = ISAL_GZIP;
  uint64_t out_total = 0;
  int member_done = 0, eof = 0;
  st->avail_in = 0;
  for (;;) {
    char *b = take_free(s);
    if (!b) break;
    st->next_out = (uint8_t *)b;
    st->avail_out = OUT_CHUNK;
    while (st->avail_out > 0) {
      if (st->avail_in == 0 && !eof) {
        long n = read_in(s);
        if (n < 0) return finish(s, "%s: read error: %s", s->path, strerror(errno)), NULL;
        if (n == 0) eof = 1;
        st->next_in = s->in;
        st->avail_in = (uint32_t)n;
      }
      if (member_done) {
        /* Another gzip member follows (files made with cat a.gz b.gz are valid gzip). */
        if (st->avail_in == 0 && eof) break;
        if (!gzip_magic(st->next_in, st->avail_in)) { /* padding or junk after the stream, as gzip -d allows */
          s->trailing = s->size - (atomic_load(&s->file_pos) - st->avail_in);
          st->avail_in = 0;
          eof = 1;
          break;
        }
        uint8_t *ni = st->next_in, *no = st->next_out;
        uint32_t ai = st->avail_in, ao = st->avail_out;
        isal_inflate_init(st); /* clears the buffer fields too: the output's place with them */
        st->crc_flag = ISAL_GZIP;
        st->next_in = ni, st->avail_in = ai;
        st->next_out = no, st->avail_out = ao;
        member_done = 0;
      }
      uint32_t before = st->avail_out;
      int rc = isal_inflate(st);
      out_total += before - st->avail_out;
      if (rc < 0) {
        uint64_t at = atomic_load(&s->file_pos) - st->avail_in;
        s->corrupt = 1;
        return finish(s, "%s: corrupt gzip data at compressed byte %llu (after %llu bytes of JSON): %s" OVERWRITTEN,
                      s->path, (unsigned long long)at, (unsigned long long)out_total, isal_what(rc)),
               NULL;
      }
      if (st->block_state == ISAL_BLOCK_FINISH) {
        member_done = 1;
        continue;
      }
      if (eof && st->avail_in == 0 && before == st->avail_out) {
        return finish(s, "%s: truncated gzip stream: it ends at compressed byte %llu, after %llu bytes of JSON",
                      s->path, (unsigned long long)s->size, (unsigned long long)out_total),
               NULL;
      }
    }
    size_t n = OUT_CHUNK - st->avail_out;
    if (n) publish(s, n);
    if (member_done && st->avail_in == 0 && eof) break;
    if (s->trailing) break;
  }
  finish(s, NULL);
  return NULL;
}
#endif

static void *zlib_main(void *arg) {
  tt_source *s = arg;
  z_stream *z = &s->zs;
  int eof = 0, member_done = 0;
  for (;;) {
    char *b = take_free(s);
    if (!b) break;
    z->next_out = (Bytef *)b;
    z->avail_out = OUT_CHUNK;
    while (z->avail_out > 0) {
      if (z->avail_in == 0 && !eof) {
        long n = read_in(s);
        if (n < 0) return finish(s, "%s: read error: %s", s->path, strerror(errno)), NULL;
        if (n == 0) eof = 1;
        z->next_in = s->in;
        z->avail_in = (uInt)n;
      }
      if (member_done) {
        if (z->avail_in == 0 && eof) break;
        if (!gzip_magic(z->next_in, z->avail_in)) { /* padding or junk after the stream, as gzip -d allows */
          s->trailing = s->size - (atomic_load(&s->file_pos) - z->avail_in);
          z->avail_in = 0;
          eof = 1;
          break;
        }
        inflateReset(z);
        member_done = 0;
      }
      uInt before = z->avail_out;
      int rc = inflate(z, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_done = 1;
        continue;
      }
      if (rc != Z_OK && rc != Z_BUF_ERROR) {
        uint64_t at = atomic_load(&s->file_pos) - z->avail_in;
        s->corrupt = 1;
        return finish(s, "%s: corrupt gzip data at compressed byte %llu (after %llu bytes of JSON): %s" OVERWRITTEN,
                      s->path, (unsigned long long)at, (unsigned long long)z->total_out,
                      z->msg ? z->msg : "inflate failed"),
               NULL;
      }
      if (eof && z->avail_in == 0 && before == z->avail_out) {
        return finish(s, "%s: truncated gzip stream: it ends at compressed byte %llu, after %llu bytes of JSON",
                      s->path, (unsigned long long)s->size, (unsigned long long)z->total_out),
               NULL;
      }
    }
    size_t n = OUT_CHUNK - z->avail_out;
    if (n) publish(s, n);
    if (member_done && z->avail_in == 0 && eof) break;
    if (s->trailing) break;
  }
  finish(s, NULL);
  return NULL;
}

tt_source *tt_source_open(const char *path, char *err, size_t errlen) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
    return NULL;
  }
  struct stat sb;
  if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
    snprintf(err, errlen, "%s: " TT_NOT_REGULAR, path);
    fclose(fp);
    return NULL;
  }
  unsigned char magic[2] = {0, 0};
  size_t m = fread(magic, 1, 2, fp);
  rewind(fp);
  tt_source *s = xp_xcalloc(1, sizeof *s);
  s->fp = fp;
  s->path = xp_strdup(path);
  s->size = (uint64_t)sb.st_size;
  s->gzip = m == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  pthread_mutex_init(&s->mu, NULL);
  pthread_cond_init(&s->cv, NULL);
  /* Read whole here where one chunk holds it; a file that grew since fstat goes on in the thread. */
  if (!s->gzip && s->size < OUT_CHUNK && plain_step(s)) return s;
  void *(*body)(void *) = plain_main;
  if (s->gzip) {
    s->in = xp_xmalloc(IN_CHUNK);
#ifdef XP_HAVE_ISAL
    s->isal = xp_xmalloc(sizeof *s->isal);
    body = isal_main;
#else
    /* 16 + MAX_WBITS: a gzip wrapper, checked. */
    if (inflateInit2(&s->zs, 16 + MAX_WBITS) != Z_OK) {
      snprintf(err, errlen, "%s: zlib could not start", path);
      tt_source_close(s);
      return NULL;
    }
    s->zs_ready = 1;
    body = zlib_main;
#endif
  }
  (void)zlib_main;
  if (pthread_create(&s->thread, NULL, body, s) != 0) {
    snprintf(err, errlen, "%s: cannot start the reader thread", path);
    tt_source_close(s);
    return NULL;
  }
  s->started = 1;
  return s;
}

int tt_source_next(tt_source *s, const char **data, size_t *len, char *err, size_t errlen) {
  pthread_mutex_lock(&s->mu);
  if (s->holding) {
    s->tail++;
    s->holding = 0;
    pthread_cond_broadcast(&s->cv);
  }
  while (s->head == s->tail && !s->done) pthread_cond_wait(&s->cv, &s->mu);
  int rc;
  if (s->head != s->tail) {
    *data = s->buf[s->tail % RING] + TT_SOURCE_HEADROOM;
    *len = s->len[s->tail % RING];
    s->holding = 1;
    rc = 1;
  } else if (s->failed) {
    snprintf(err, errlen, "%s", s->err);
    rc = -1;
  } else {
    rc = 0;
  }
  pthread_mutex_unlock(&s->mu);
  return rc;
}

uint64_t tt_source_file_pos(tt_source *s) {
  return atomic_load_explicit(&s->file_pos, memory_order_relaxed);
}
uint64_t tt_source_file_size(const tt_source *s) { return s->size; }
uint64_t tt_source_trailing(const tt_source *s) { return s->trailing; }
int tt_source_threaded(const tt_source *s) { return s->started; }
int tt_source_compressed(const tt_source *s) { return s->gzip; }
int tt_source_corrupt(const tt_source *s) { return s->corrupt; }

void tt_source_close(tt_source *s) {
  if (!s) return;
  if (s->started) {
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    pthread_join(s->thread, NULL);
  }
  if (s->zs_ready) inflateEnd(&s->zs);
#ifdef XP_HAVE_ISAL
  free(s->isal);
#endif
  for (int i = 0; i < RING; i++) free(s->buf[i]);
  free(s->in);
  free(s->path);
  fclose(s->fp);
  pthread_mutex_destroy(&s->mu);
  pthread_cond_destroy(&s->cv);
  free(s);
}
