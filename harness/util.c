/*
** Errors, memory, files, time, hashes and number parsing: the small things every part of xp
** needs, written once.
*/
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "cli.h" /* xp_terminal_text */
#include "xp.h"
#include "xp_blob.h"

/* ---- errors ---- */

/* The last error, as printed: sized to it, so that a long path (up to PATH_MAX, 4096) and
** the message after it are never cut. */
static char *last_error;
static int last_code;
static int quiet;

static void one_line(char *s) {
  for (; *s; s++)
    if (*s == '\n' || *s == '\r') *s = ' ';
}

/* A message as the terminal is to show it: the values in it (a model or kernel name a file
** carries, a declared --set value) with their escape sequences and C1 controls written out, as
** a table shows them ("declared \"<ESC>[31mQwen\"" coloured the terminal). The stored error
** (xp_last_error, a run's error column) keeps the text as it is. */
static void say(FILE *out, const char *prefix, const char *msg) {
  char *shown = xp_terminal_text(msg);
  fprintf(out, "%s%s\n", prefix, shown);
  free(shown);
}

/* vsnprintf into a new string of the length it needs. */
static char *vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  const int n = vsnprintf(NULL, 0, fmt, ap);
  char *s = xp_xmalloc(n > 0 ? (size_t)n + 1 : 1);
  vsnprintf(s, n > 0 ? (size_t)n + 1 : 1, fmt, ap2);
  va_end(ap2);
  return s;
}

const char *xp_path_shown(const char *path) { return *path ? path : "'' (an empty path)"; }

static int report(int code, const char *file, long line, const char *fmt, va_list ap) {
  /* the old text may be an argument (xp_error(rc, "%s", xp_last_error()) says a quiet error
  ** now): formatted first, freed after */
  char *msg = vformat(fmt, ap), *text = msg;
  /* a path given as '' read "xp: : cannot read" */
  if (file) file = xp_path_shown(file);
  if (file && line > 0) text = xp_asprintf("%s:%ld: %s", file, line, msg);
  else if (file) text = xp_asprintf("%s: %s", file, msg);
  if (text != msg) free(msg);
  free(last_error);
  last_error = text;
  /* One line, always: a message, or a file name ($'a\nb.toml'), with a newline inside would
  ** break "one clear line". */
  one_line(last_error);
  last_code = code;
  if (!quiet) say(stderr, "xp: ", last_error);
  return code;
}

int xp_error(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(code, NULL, 0, fmt, ap);
  va_end(ap);
  return code;
}

int xp_error_at(int code, const char *file, long line, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  report(code, file, line, fmt, ap);
  va_end(ap);
  return code;
}

/* Warnings held (xp_warn_hold), NULL while they are said. */
static FILE *held_warnings;
static char *held_text;
static size_t held_len;

void xp_warn_hold(void) {
  if (!held_warnings) held_warnings = open_memstream(&held_text, &held_len);
}

char *xp_warn_held(void) {
  if (!held_warnings) return xp_strdup("");
  fclose(held_warnings);
  held_warnings = NULL;
  char *text = held_text;
  held_text = NULL;
  return text ? text : xp_strdup("");
}

void xp_warn(const char *fmt, ...) {
  if (quiet && !held_warnings) return;
  va_list ap;
  va_start(ap, fmt);
  char *msg = vformat(fmt, ap);
  va_end(ap);
  one_line(msg); /* a file name with a newline inside must not make two lines */
  say(held_warnings ? held_warnings : stderr, "xp: warning: ", msg);
  free(msg);
}

const char *xp_last_error(void) { return last_error ? last_error : ""; }
int xp_last_error_code(void) { return last_code; }
void xp_clear_error(void) {
  free(last_error);
  last_error = NULL;
  last_code = 0;
}
void xp_error_quiet(int on) { quiet = on; }

static char **saved_argv;
void xp_save_argv(char **argv) { saved_argv = argv; }
char **xp_saved_argv(void) { return saved_argv; }

/* ---- signals: the first SIGINT/SIGTERM asks the run to stop and be recorded as aborted;
** a second one ends the process at once (default action). ---- */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig) {
  interrupted = 1;
  signal(sig, SIG_DFL);
}

void xp_install_signal_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* Past a file size limit (ulimit -f) a write raises SIGXFSZ, whose default kills xp without
  ** a word, mid-transaction, its run left 'running'. Ignored, the write fails with EFBIG like a
  ** full disk: the transaction rolls back, the run is marked failed, and one line says why. */
  signal(SIGXFSZ, SIG_IGN);
}

int xp_interrupted(void) { return interrupted != 0; }

/* ---- memory and strings ---- */

static void oom(void) {
  fputs("xp: out of memory\n", stderr);
  abort();
}

void *xp_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom();
  return p;
}

void *xp_xcalloc(size_t n, size_t m) {
  void *p = calloc(n ? n : 1, m ? m : 1);
  if (!p) oom();
  return p;
}

void *xp_xrealloc(void *p, size_t n) {
  p = realloc(p, n ? n : 1);
  if (!p) oom();
  return p;
}

char *xp_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  return memcpy(xp_xmalloc(n), s, n);
}

char *xp_asprintf(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *s = xp_xmalloc((size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  return s;
}

char *xp_unpadded(const char *s) {
  const char *p = s + strspn(s, " \t");
  size_t n = strlen(p);
  while (n && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
  return xp_asprintf("%.*s", (int)n, p);
}

int xp_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The SHA-256 of a file's bytes, read in pieces (a trace may be gigabytes); 0 or -1. */
static int file_sha256(const char *path, char out[65]) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  EVP_MD_CTX *md = EVP_MD_CTX_new();
  EVP_DigestInit_ex(md, EVP_sha256(), NULL);
  char buf[1 << 16];
  ssize_t r;
  while ((r = read(fd, buf, sizeof buf)) > 0 || (r < 0 && errno == EINTR && !xp_interrupted()))
    if (r > 0) EVP_DigestUpdate(md, buf, (size_t)r);
  unsigned char d[32];
  unsigned int dlen = 0;
  EVP_DigestFinal_ex(md, d, &dlen);
  EVP_MD_CTX_free(md);
  close(fd);
  for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", d[i]);
  return r < 0 ? -1 : 0;
}

/* Two regular files are one where they are one inode; else only files of one size can hold the
** same bytes, and only those are read (each once, when first needed). */
static int same_contents(const char *a, const struct stat *sa, char ha[65], const char *b,
                         const struct stat *sb, char hb[65]) {
  if (!S_ISREG(sa->st_mode) || !S_ISREG(sb->st_mode)) return 0;
  if (sa->st_dev == sb->st_dev && sa->st_ino == sb->st_ino) return 1;
  if (sa->st_size != sb->st_size) return 0;
  if (!ha[0] && file_sha256(a, ha) != 0) ha[0] = 0;
  if (!hb[0] && file_sha256(b, hb) != 0) hb[0] = 0;
  return ha[0] && hb[0] && strcmp(ha, hb) == 0;
}

int xp_files_given_twice(const char *const *paths, int n, const char *consequence) {
  struct stat *sb = xp_xcalloc((size_t)(n > 0 ? n : 1), sizeof *sb);
  char(*sum)[65] = xp_xcalloc((size_t)(n > 0 ? n : 1), sizeof *sum);
  for (int i = 0; i < n; i++)
    if (stat(paths[i], &sb[i]) != 0) sb[i].st_mode = 0; /* not there: its reader says so */
  int rc = 0;
  for (int i = 1; i < n && rc == 0; i++)
    for (int j = 0; j < i && rc == 0; j++)
      if (strcmp(paths[j], paths[i]) == 0 && S_ISREG(sb[i].st_mode))
        /* "a.json: given twice: the same contents as a.json" named one path as if two files */
        rc = xp_error_at(XP_EXIT_USAGE, paths[i], 0, "given twice (%s)", consequence);
      else if (same_contents(paths[j], &sb[j], sum[j], paths[i], &sb[i], sum[i]))
        rc = xp_error_at(XP_EXIT_USAGE, paths[i], 0, "given twice: the same contents as %s (%s)", paths[j], consequence);
  free(sb);
  free(sum);
  return rc;
}

int xp_utf16_refused(const char *path, const char *text, size_t len) {
  const unsigned char *u = (const unsigned char *)text;
  if (len < 2 || !((u[0] == 0xff && u[1] == 0xfe) || (u[0] == 0xfe && u[1] == 0xff))) return 0;
  return xp_error_at(XP_EXIT_USAGE, path, 0, "UTF-16 text (as Windows PowerShell's > and Out-File write it); save it as UTF-8");
}

/* All of fd to its end, NUL-terminated; fd is left open. A size fstat knows sizes the buffer. */
char *xp_read_fd(int fd, size_t *len) {
  struct stat st;
  size_t cap = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, n = 0;
  char *buf = xp_xmalloc(cap);
  for (;;) {
    if (n + 1 >= cap) buf = xp_xrealloc(buf, cap *= 2);
    ssize_t r = read(fd, buf + n, cap - n - 1);
    if (r < 0) {
      if (errno == EINTR && !xp_interrupted()) continue; /* SIGINT/SIGTERM: give up the read */
      int e = errno;
      free(buf);
      errno = e;
      return NULL;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  buf[n] = 0;
  if (len) *len = n;
  return buf;
}

char *xp_read_file(const char *path, size_t *len) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0) { close(fd); return NULL; }
  if (S_ISDIR(st.st_mode)) { close(fd); errno = EISDIR; return NULL; }
  /* a device (/dev/zero) or a socket never ends, or not as a file does; pipes and FIFOs do */
  if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode)) { close(fd); errno = ENOTSUP; return NULL; }
  char *buf = xp_read_fd(fd, len);
  int e = errno;
  close(fd);
  errno = e;
  return buf;
}

/* ---- time ---- */

void xp_cuda_version_text(int v, char *buf, size_t n) { snprintf(buf, n, "%d.%d", v / 1000, v % 1000 / 10); }

int xp_now_iso8601(char *buf, size_t n) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  char base[32];
  strftime(base, sizeof base, "%Y-%m-%dT%H:%M:%S", &tm);
  return snprintf(buf, n, "%s.%03ldZ", base, ts.tv_nsec / 1000000);
}

double xp_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- hashes and identifiers ---- */

void xp_sha256_hex(const void *data, size_t len, char out[65]) {
  unsigned char md[32];
  unsigned int mdlen = 0;
  EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
  for (int i = 0; i < 32; i++) sprintf(out + 2 * i, "%02x", md[i]);
  out[64] = 0;
}

int xp_file_sha256(const char *path, char out[65]) {
  size_t len;
  char *bytes = xp_read_file(path, &len);
  if (!bytes) return -1;
  xp_sha256_hex(bytes, len, out);
  free(bytes);
  return 0;
}

int xp_uuid4(char out[37]) {
  unsigned char b[16];
  if (RAND_bytes(b, sizeof b) != 1) return -1;
  b[6] = (unsigned char)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (unsigned char)((b[8] & 0x3f) | 0x80); /* RFC 4122 variant */
  snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
           b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12],
           b[13], b[14], b[15]);
  return 0;
}

/* ---- numbers ---- */

int xp_parse_int64(const char *s, int64_t *out) {
  if (!s || !*s || isspace((unsigned char)*s)) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return -1;
  *out = v;
  return 0;
}

/* Whether s is an integer in another base than ten as C, Python or TOML write one: 0x10, 0o17,
** 0b101 (a sign before it too). No number xp reads from the command line or a JSON file. */
int xp_based_integer(const char *s) {
  while (isspace((unsigned char)*s)) s++;
  const char *d = s + (*s == '-' || *s == '+');
  return d[0] == '0' && strchr("xXoObB", d[1]) && d[1] && isxdigit((unsigned char)d[2]);
}

/* Decimal only: strtod reads C's hexadecimal too, "0x10" as 16 and "0x1p4" as 16, so --set
** burst=0x10 was taken and --set burst=0b101 "not an integer"; a TOML spec's 0x10 is read by
** its parser, not here. */
int xp_parse_double(const char *s, double *out) {
  if (!s || !*s || isspace((unsigned char)*s) || xp_based_integer(s)) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || *end || !isfinite(v)) return -1;
  *out = v;
  return 0;
}

int xp_parse_past_double(const char *s, double *out) {
  /* decimal only, as xp_parse_double: 0x1p5000 is a based number, not one out of range */
  if (!s || !*s || isspace((unsigned char)*s) || xp_based_integer(s)) return 0;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (*end || errno != ERANGE || !isinf(v)) return 0;
  *out = v > 0 ? DBL_MAX : -DBL_MAX;
  return 1;
}

/* A number from a user's file as an integer: a C cast of a double that is NaN or out of the
** target's range is undefined behaviour, and files can say anything (1e300, "nan"). These
** saturate: NaN gives 0, values past either end give that end; in range they truncate, as
** the cast does. */
int64_t xp_saturate_int64(double v) {
  if (v != v) return 0;
  if (v >= 9223372036854775808.0) return INT64_MAX;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return (int64_t)v;
}

int xp_saturate_int(double v) {
  const int64_t x = xp_saturate_int64(v);
  return x > INT_MAX ? INT_MAX : x < INT_MIN ? INT_MIN : (int)x;
}

/* Sizes as people write them for collectives and buffers: K, M, G (and KiB, MiB, GiB, KB,
** MB, GB) are all binary multiples, as in nccl-tests' -b/-e. */
int xp_parse_size(const char *s, int64_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  while (*end == ' ') end++;
  int64_t mult = 1;
  if (*end) {
    char u = (char)toupper((unsigned char)*end);
    if (u == 'K') mult = 1024;
    else if (u == 'M') mult = 1024 * 1024;
    else if (u == 'G') mult = 1024LL * 1024 * 1024;
    else if (u != 'B') return -1;
    const char *rest = end + 1;
    if (u == 'B') rest = end + 1;
    else if (strcasecmp(rest, "iB") == 0 || strcasecmp(rest, "B") == 0) rest += strlen(rest);
    if (*rest) return -1;
  }
  if (v > (unsigned long long)(INT64_MAX / mult)) return -1;
  *out = (int64_t)v * mult;
  return 0;
}

/* The embedded file of that name in a table cmake/embed.cmake wrote (ended by a NULL name). */
static const struct xp_blob *blob_named(const struct xp_blob *table, const char *name) {
  for (const struct xp_blob *b = table; b->name; b++)
    if (strcmp(b->name, name) == 0) return b;
  return NULL;
}

const struct xp_blob *xp_datafile(const char *name) { return blob_named(xp_datafiles, name); }

const struct xp_blob *xp_query_file(const char *name) { return blob_named(xp_queries, name); }

size_t xp_utf8_sequence(const unsigned char *s, size_t n) {
  const unsigned char c = s[0];
  if (c < 0x80) return 1;
  size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (!len || n < len) return 0;
  unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
  if (c == 0xE0) lo = 0xA0;
  else if (c == 0xED) hi = 0x9F;
  else if (c == 0xF0) lo = 0x90;
  else if (c == 0xF4) hi = 0x8F;
  if (s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < len; i++)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return len;
}

char *xp_value_cut(const char *s) {
  const size_t n = strlen(s);
  if (n <= 80) return xp_strdup(s);
  size_t keep = 0; /* up to 60 bytes, never inside a character (a bad byte counts as one) */
  for (size_t l; keep < n; keep += l) {
    l = xp_utf8_sequence((const unsigned char *)s + keep, n - keep);
    if (!l) l = 1;
    if (keep + l > 60) break;
  }
  return xp_asprintf("%.*s... (%zu bytes)", (int)keep, s, n);
}

long xp_utf8_invalid_at(const char *s, size_t n) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < n;) {
    size_t l = xp_utf8_sequence(p + i, n - i);
    if (!l) return (long)i;
    i += l;
  }
  return -1;
}

char *xp_utf8_mended(const char *s, size_t n, size_t *len) {
  const long bad = xp_utf8_invalid_at(s, n);
  if (bad < 0) return NULL;
  /* each bad byte grows to three: U+FFFD */
  char *out = xp_xmalloc(3 * n + 1), *o = out;
  memcpy(o, s, (size_t)bad);
  o += bad;
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = (size_t)bad; i < n;) {
    size_t l = xp_utf8_sequence(p + i, n - i);
    if (l) {
      memcpy(o, p + i, l);
      o += l, i += l;
    } else {
      memcpy(o, "\xEF\xBF\xBD", 3);
      o += 3, i++;
    }
  }
  *o = 0;
  if (len) *len = (size_t)(o - out);
  return out;
}

char *xp_utf8_mend(const char *s) {
  char *m = xp_utf8_mended(s, strlen(s), NULL);
  return m ? m : xp_strdup(s);
}

int64_t xp_text_id(const char *s, size_t n) {
  char hex[65];
  xp_sha256_hex(s, n, hex);
  uint64_t v = 0;
  for (int i = 0; i < 16; i++) {
    char c = hex[i];
    v = v << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
  }
  return (int64_t)v;
}

/* A name of one of the process's descriptors: /dev/stdout, /dev/fd/1, /proc/self/fd/1. */
static int is_descriptor(const char *p) {
  return strncmp(p, "/dev/std", 8) == 0 || strncmp(p, "/dev/fd/", 8) == 0 ||
         (strncmp(p, "/proc/", 6) == 0 && strstr(p, "/fd/"));
}

/* The regular file a symbolic link ends at (relative targets read from the link's folder), or
** the name it leads to where nothing is there yet (the file is made there, as through any
** link), else NULL: a loop, one that ends at a FIFO or device, or a descriptor's name (a
** shell's > or >> file: renamed over, an appending redirection would lose what was there). */
static char *link_target_file(const char *path) {
  char *cur = xp_strdup(path);
  for (int hop = 0; hop < 40; hop++) {
    struct stat lsb;
    if (is_descriptor(cur)) break;
    if (lstat(cur, &lsb) != 0) {
      if (hop > 0 && errno == ENOENT) return cur; /* dangling: renamed over, the link became a file */
      break;
    }
    if (S_ISREG(lsb.st_mode)) return cur;
    char link[PATH_MAX];
    const ssize_t n = S_ISLNK(lsb.st_mode) ? readlink(cur, link, sizeof link - 1) : -1;
    if (n <= 0) break;
    link[n] = '\0';
    const char *slash = strrchr(cur, '/');
    char *next = link[0] == '/' || !slash ? xp_strdup(link) : xp_asprintf("%.*s/%s", (int)(slash - cur), cur, link);
    free(cur);
    cur = next;
  }
  free(cur);
  return NULL;
}

static int is_sqlite_file(const char *path) {
  static const char magic[16] = "SQLite format 3"; /* with its NUL: the file header's 16 bytes */
  char head[16];
  struct stat sb;
  FILE *f = stat(path, &sb) == 0 && S_ISREG(sb.st_mode) ? fopen(path, "rb") : NULL;
  int db = f && fread(head, 1, sizeof head, f) == sizeof head && memcmp(head, magic, sizeof head) == 0;
  if (f) fclose(f);
  return db;
}

int xp_out_not_database(const char *path) {
  if (is_sqlite_file(path))
    return xp_error_at(XP_EXIT_USAGE, path, 0, "is an SQLite database (an xp history?): --out never writes over one;"
                       " nothing written");
  /* A database's -wal (or -journal) holds results not yet in the database file after a killed
  ** writer: written over, they are lost, or the database is left corrupt. */
  static const char *const beside[] = {"-wal", "-journal", "-shm"};
  const size_t n = strlen(path);
  for (size_t i = 0; i < sizeof beside / sizeof beside[0]; i++) {
    const size_t m = strlen(beside[i]);
    if (n <= m || strcmp(path + n - m, beside[i]) != 0) continue;
    char *stem = xp_asprintf("%.*s", (int)(n - m), path);
    const int db = is_sqlite_file(stem);
    free(stem);
    if (db)
      return xp_error_at(XP_EXIT_USAGE, path, 0, "is the %s file of the SQLite database beside it (an xp "
                         "history?): --out never writes over one; nothing written", beside[i] + 1);
  }
  return 0;
}

#define TEMP_SUFFIX ".tmp.XXXXXX"

FILE *xp_temp_beside(const char *path, char **tmp) {
  /* --out "": the temporary file was made in the working folder and only its rename failed,
  ** after the whole output was written, as if the disk were full (exit 1) */
  if (!*path) {
    *tmp = NULL;
    errno = ENOENT;
    return NULL;
  }
  /* renamed over a folder it would fail only after the whole output was written, and with
  ** EBUSY for "." */
  struct stat sb;
  if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
    *tmp = NULL;
    errno = EISDIR;
    return NULL;
  }
  /* A link to a file: the file is replaced, beside itself, and the link kept (renamed over, the
  ** link would become a file, its target left as it was). */
  struct stat lsb;
  if (lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode)) {
    char *target = link_target_file(path);
    if (target) {
      FILE *f = xp_temp_beside(target, tmp);
      free(target);
      return f;
    }
  }
  /* Renamed over, a device or a FIFO would be replaced by a file (run as root, --out /dev/null
  ** made /dev/null a regular file) and a pipe (/dev/stdout, a shell's >(...)) would never get
  ** the data. They are written through; a descriptor's file appended to, as a shell's >> asked
  ** (its > truncated it already): opened "wb", the file lost what the >> kept. */
  if (lstat(path, &lsb) == 0 && (S_ISLNK(lsb.st_mode) || !S_ISREG(lsb.st_mode)) &&
      stat(path, &sb) == 0) {
    *tmp = NULL;
    return fopen(path, S_ISREG(sb.st_mode) ? "ab" : "wb");
  }
  *tmp = xp_asprintf("%s" TEMP_SUFFIX, path);
  int fd = mkstemp(*tmp); /* O_CREAT | O_EXCL: an existing name, link or not, is never opened */
  if (fd < 0) {
    int e = errno;
    free(*tmp);
    *tmp = NULL;
    errno = e;
    return NULL;
  }
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask); /* mkstemp makes 0600; the file replaces one others may read */
  FILE *f = fdopen(fd, "wb");
  if (!f) {
    int e = errno;
    close(fd);
    unlink(*tmp);
    free(*tmp);
    *tmp = NULL;
    errno = e;
  }
  return f;
}

int xp_out_error(const char *path, const char *verb) {
  const int e = errno;
  if (!*path) return xp_error_at(XP_EXIT_USAGE, path, 0, "%s: an empty path names no file", verb);
  if (e == EISDIR) return xp_error_at(XP_EXIT_USAGE, path, 0, "%s: %s", verb, strerror(e));
  struct stat lsb;
  char *target = lstat(path, &lsb) == 0 && S_ISLNK(lsb.st_mode) ? link_target_file(path) : NULL;
  const char *made = target ? target : path, *slash = strrchr(made, '/');
  char *folder = !slash ? xp_strdup(".") : slash == made ? xp_strdup("/") : xp_asprintf("%.*s", (int)(slash - made), made);
  const int rc = xp_error_at(XP_EXIT_USAGE, path, 0, "%s in %s%s: %s", verb, folder,
                             target ? " (where the link leads)" : "", strerror(e));
  free(folder);
  free(target);
  return rc;
}

int xp_temp_commit(const char *tmp) {
  const size_t n = strlen(tmp) - strlen(TEMP_SUFFIX);
  char *path = xp_asprintf("%.*s", (int)n, tmp);
  const int rc = rename(tmp, path);
  free(path);
  return rc;
}
