/*
** xp: shared definitions. Exit codes are part of xp's interface (README lists them);
** errors are reported as one line, "xp: <where>: <what>", and the last one is kept so that
** a failed run can store the same text that the user saw.
*/
#ifndef XP_H
#define XP_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum xp_exit {
  XP_EXIT_OK = 0,        /* success */
  XP_EXIT_FAILED = 1,    /* a run or check failed (wrong results, NCCL error, ...) */
  XP_EXIT_USAGE = 2,     /* bad command line or bad input file (spec, trace, log, query) */
  XP_EXIT_DB = 3,        /* database error: foreign, newer, corrupt, locked, read-only, full */
  XP_EXIT_ENV = 4,       /* the environment cannot do it: no GPU, too few GPUs, built without CUDA */
  XP_EXIT_INTEGRITY = 5, /* xp verify found a broken chain or a failed integrity check */
  XP_EXIT_ABORTED = 130  /* interrupted by SIGINT or SIGTERM; the run is recorded as aborted */
};

extern const char xp_build_version[];
extern const char xp_build_commit[];
extern const int xp_build_dirty;
extern const char xp_build_compiler[];

/* Print "xp: <fmt>" on stderr and remember it as the last error. Returns `code`. */
int xp_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Same, located: "xp: <file>:<line>: <fmt>" (line <= 0 leaves it out). */
int xp_error_at(int code, const char *file, long line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Non-fatal notice on stderr: "xp: warning: <fmt>". */
void xp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The text of the last error (without the "xp: " prefix), "" if none. */
const char *xp_last_error(void);
/* A path as a message names it: '' (a script's "$FILE" with FILE unset) reads as "'' (an empty path)". */
const char *xp_path_shown(const char *path);
int xp_last_error_code(void);
void xp_clear_error(void);
/* Suppress printing (tests and internal retries); errors are still remembered. */
void xp_error_quiet(int on);
/* Warnings from here on held, not said (whatever xp_error_quiet says), until xp_warn_held: a text
** read before it is known whose its warnings are, read once where it was read again to say them. */
void xp_warn_hold(void);
/* Holding stopped: the warnings held, as xp_warn would have said them (malloc'd, "" for none). */
char *xp_warn_held(void);

/* The process's command line, kept by main() so that a command can be handed over whole to
** xp-cuda (harness/exec.c). NULL in programs that did not save it (tests). */
void xp_save_argv(char **argv);
char **xp_saved_argv(void);

/* Set when SIGINT or SIGTERM arrived; long loops poll it and stop early. */
int xp_interrupted(void);
void xp_install_signal_handlers(void);

/* Small utilities used across xp. */
char *xp_strdup(const char *s);
char *xp_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A malloc'd copy of s without the spaces and tabs around it (a value from a script's quoting,
** "--limit $N ", --set "burst=5 "), as TOML sets them aside around a value. */
char *xp_unpadded(const char *s);
void *xp_xmalloc(size_t n);   /* aborts on out-of-memory: there is no sane recovery in xp */
void *xp_xcalloc(size_t n, size_t m);
void *xp_xrealloc(void *p, size_t n);
char *xp_read_file(const char *path, size_t *len); /* NULL with errno set on failure */
char *xp_read_fd(int fd, size_t *len);              /* the same, of an open fd (stdin) */
/* A file read whole that is UTF-16 with its byte-order mark (Windows PowerShell 5.1's > and
** Out-File write it): the error said, naming path, and XP_EXIT_USAGE; else 0. */
int xp_utf16_refused(const char *path, const char *text, size_t len);
/* Whether the two paths name one file (a link or another spelling of it); 0 where either is not there. */
int xp_same_file(const char *a, const char *b);
/* One file given twice among an import's files: one path twice, a link to it, or a copy (the
** same bytes under another name) would count its results twice. Refused as "xp: PATH: given
** twice (CONSEQUENCE)" where one path is given twice, else "xp: PATH: given twice: the same
** contents as FIRST (CONSEQUENCE)", XP_EXIT_USAGE; else 0.
** Regular files only (a pipe is read once; why a file cannot be read is the reader's to say). */
int xp_files_given_twice(const char *const *paths, int n, const char *consequence);
/* A new file beside `path` to be renamed over it once written: created exclusively (never
** through a link planted at a guessable name), mode 0666 less the umask. *tmp gets its name
** (malloc'd). Where `path` is a symbolic link to a regular file, the file is the one replaced
** (the link kept); to a name where nothing is yet, the file is made there. Where it is not a regular file (/dev/null, a FIFO, /dev/stdout, /dev/fd/N)
** it is opened itself and *tmp is NULL: there is nothing to rename. NULL with errno set on
** failure. */
FILE *xp_temp_beside(const char *path, char **tmp);
/* Why xp_temp_beside could not make PATH's file (errno), naming the folder it is made in (a
** link's target's): "PATH: VERB in FOLDER (where the link leads): why"; a folder given as the
** file: "PATH: VERB: Is a directory"; an empty PATH: "'': VERB: an empty path names no file".
** Returns XP_EXIT_USAGE. */
int xp_out_error(const char *path, const char *verb);
/* 0, or XP_EXIT_USAGE said when an --out names an SQLite file (the database itself, as in
** `xp export --out xp.db`, or another history): written over, it would be lost. */
int xp_out_not_database(const char *path);
/* Renames a file xp_temp_beside made over the one it was made beside: rename(2)'s result. */
int xp_temp_commit(const char *tmp);
/* A CUDA version as CUDA numbers it (1000 x major + 10 x minor: 13000) as people write it, "13.0". */
void xp_cuda_version_text(int v, char *buf, size_t n);
int xp_now_iso8601(char *buf, size_t n);           /* UTC, millisecond resolution */
double xp_now_seconds(void);                      /* monotonic */
void xp_sha256_hex(const void *data, size_t len, char out[65]);
/* The SHA-256 of a file's bytes into out: 0, or -1 (errno set) where it cannot be read. */
int xp_file_sha256(const char *path, char out[65]);
/* A text's id in shared dictionaries (trace_names): the first 8 bytes of its SHA-256, as a
** signed integer, so that the same text has the same id in every database. */
int64_t xp_text_id(const char *s, size_t n);
int xp_uuid4(char out[37]);
int xp_parse_int64(const char *s, int64_t *out);   /* whole string, base 10; 0 on success */
int xp_parse_double(const char *s, double *out);  /* whole string, decimal; 0 on success */
int xp_based_integer(const char *s);               /* 0x10, 0o17, 0b101: another base than ten */
#define XP_DECIMAL_ONLY " (the command line's numbers are decimal)" /* said where one is xp_based_integer */
/* A number written out whole but past even a double (an integer of 400 digits, 1e400): 1 with
** *out the largest double of its sign, for a range check to say it is out of range as it says of
** 99999999999999999999; 0 for anything else (a fraction too small to hold, 1e-400, is not one). */
int xp_parse_past_double(const char *s, double *out);
int xp_parse_size(const char *s, int64_t *out);    /* 14336, 1K, 4M, 256MiB, 1G: binary suffixes */
int64_t xp_saturate_int64(double v);              /* NaN 0, out of range: the nearest end */
/* Offset of the first byte of s[0, n) that is not well-formed UTF-8, or -1 when all are. */
long xp_utf8_invalid_at(const char *s, size_t n);
/* Length of the well-formed UTF-8 sequence at s[0, n) (Unicode's table 3-7: no overlong forms,
** no surrogates, nothing past U+10FFFF), or 0 when the bytes there are not one. */
size_t xp_utf8_sequence(const unsigned char *s, size_t n);
/* A copy of s (NUL-terminated) with each byte that is not well-formed UTF-8 replaced by U+FFFD:
** JSON must be UTF-8, and text imported from logs may not be. */
char *xp_utf8_mend(const char *s);
/* A value the user gave, as an error quotes it: whole up to 80 bytes, else its first 60 (whole
** characters) and "... (N bytes)", so that the line still says what is wrong. Malloc'd. */
char *xp_value_cut(const char *s);
/* The same for s[0, n), copying only where needed: NULL when s[0, n) is well-formed UTF-8
** already, else the mended copy (malloc'd, NUL-terminated), its length in *len if len. Text
** that reaches the database passes through here (xp_bind_text, trace names). */
char *xp_utf8_mended(const char *s, size_t n, size_t *len);
int xp_saturate_int(double v);
/* The candidate a misspelt name most likely meant, for "did you mean" (harness/near_name.c):
** one equal to it folded (case, '_', '-', '.' aside), else the one closest to it by at most 1
** edit (names of 4 or fewer letters) or 2, when no other is as close. xp_near_result: NULL when
** none is, or when two are. Offer each candidate in turn; candidates must outlive the result. */
typedef struct xp_near {
  char got[64];
  const char *best;
  size_t dist;
  int ties;
} xp_near;
void xp_near_init(xp_near *n, const char *got);
void xp_near_offer(xp_near *n, const char *candidate);
const char *xp_near_result(const xp_near *n);
#endif
