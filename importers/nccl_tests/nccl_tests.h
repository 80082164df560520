/*
** Reading nccl-tests output (src/util.cu in NVIDIA/nccl-tests): the text report, with or without
** NCCL's INFO lines interleaved, and the -J JSON file. Both become the same in-memory document,
** which the importer records as a run of kind nccl_burst.
*/
#ifndef XP_NCCL_TESTS_H
#define XP_NCCL_TESTS_H
#include <stddef.h>
#include <stdint.h>
#include "runners/nccl_info.h"

enum { NT_OUT, NT_IN, NT_NPLACE };

typedef struct nt_result {
  int have;
  double time_us;        /* nccl-tests' time: mean over back-to-back launches */
  double algbw, busbw;   /* GB/s as nccl-tests printed them */
  int64_t wrong;         /* -1: not checked (N/A) */
  int64_t bitdiff;       /* elements that differ bitwise between repeats (-R, "#bitdiff"); -1 not checked */
  double max_err;        /* nccl-tests before 2.13: the largest error ("error" column); NAN if none */
  int cputime;           /* -C: host enqueue time, not latency */
  int niter;
  double *iter_us;       /* -I per-iteration times (JSON times_us), or NULL */
} nt_result;

typedef struct nt_row {
  char coll[32];         /* xp's name where it has one (allreduce), else the test's (sendrecv) */
  char run_by[32];       /* unnamed (before 2.13): the test the command line before its report ran */
  char dtype[32];        /* bf16, fp16, fp32, fp8_e4m3, ..., else the test's (int32) */
  char redop[16];
  int root;
  int64_t bytes, count;
  int line;              /* where it was read (text) */
  int graph, iters, agg; /* the options it ran with: -G launches, -n, -m */
  int blocking;          /* -z: NT_BLOCK_* (0 none), as the file tells the mode */
  int average;           /* -a: NT_AVG_*, as the command line or -J's args state it */
  int nranks;            /* ranks of the report it came from; 0 unknown */
  char algo[32], proto[16]; /* NCCL's TUNING choice logged before the row (text), "" none */
  int report;            /* which report of its file (a log may hold several) */
  unsigned layout;       /* NT_COLS_* of the header it was read under (text) */
  nt_result r[NT_NPLACE];
} nt_row;

/* What a text report's column header names: before 2.13 each test printed its own (all_reduce
** "type redop", broadcast "type root", all_gather "type"), since then all "redop root #wrong";
** before 2.0 with other names ("bytes  N  type  op  root": BEFORE2). */
enum { NT_COLS_NAMED = 1, NT_COLS_REDOP = 2, NT_COLS_ROOT = 4, NT_COLS_WRONG = 8, NT_COLS_BEFORE2 = 16 };

typedef struct nt_device {
  int rank, device;
  int pid;               /* its process (0: not printed, before 2.0): tells one run's log from another's */
  char host[64], busid[32], name[96];
} nt_device;

/* What a report says of its ranks; nt_infer_ranks weighs them with busbw / algbw: NCCL's INFO lines
** first, then what the file states, a device list, the figures, nThread x nGpus. */
typedef struct nt_rank_evidence {
  int info;              /* NCCL's INFO lines ("comm 0x.. rank R nranks N"): N; 0 none, -1 they disagree */
  int listed;            /* a device list with no gap: its ranks (a communicator's, split); 0 none */
  int at_least;          /* a device list with a gap: the fewest ranks it implies; 0 none */
  int assumed;           /* no device line: nThread x nGpus, one process assumed; 0 none */
  int stated;            /* the count the file's own fields state (rccl-tests' -x file); 0 none */
} nt_rank_evidence;

/* At most this many jobs are read apart from one text (nt_parse_text's d->job_keys). */
#define NT_MAX_JOBS 16

/* One job of a text holding several: its lines from `from` up to `to` (0: the end), those
** labelled `key` alone where it is not "" (nt_job_text). */
typedef struct nt_job {
  int from, to;
  char key[96];
} nt_job;

typedef struct nt_doc {
  const char *path;
  int precise;                     /* figures written with six decimals (-J, rccl-tests' file), not two */
  char tests_version[32];          /* nccl-tests' own ("# nccl-tests version 2.19.6"), as the file states it */
  int json_format;                 /* a -J file's "version": its format (JSON_FILE_VERSION), 0 none */
  int nccl_headers, nccl_library;  /* version codes, 0 unknown */
  char coll[32];                   /* from "Collective test starting" or the binary name */
  /* Options, devices and ranks of the file's first report (a log may hold several). */
  int nthreads, ngpus, warmup, iters, agg, validation, graph, unalign, blocking;
  int average;                     /* -a: NT_AVG_* as -J's args state it */
  int nranks;                      /* 0 unknown */
  int ranks_inferred;              /* nranks worked out from busbw / algbw */
  int nev;                         /* one per report (row.report indexes it) */
  nt_rank_evidence *ev;
  int nreports;                    /* reports in the file: tests appended to one log */
  int64_t min_bytes, max_bytes;
  int ndev;
  nt_device dev[256];
  xp_strtab hosts;                 /* the hosts the first report's device lines name, each once */
  int hosts_whole;                 /* that list names every process (no gap): hosts.n is the job's */
  int nrows, nrows_alloc;
  nt_row *rows;
  double avg_busbw;                /* < 0 unknown */
  int64_t out_of_bounds;           /* -1 unknown */
  char start_time[32];
  int nenv;
  char (*env)[256];                /* NCCL_* settings of the run (JSON) */
  char args[512];
  int errors;
  char failure[160];               /* "Test NCCL failure ..." and the like: the test stopped */
  xp_nccl_info info;               /* NCCL INFO lines found in the text */
  /* Several jobs in one text (nt_parse_text reads none of their rows then): from this line on,
  ** reports on other hosts (pdsh | dshbak, clush -b: a block per host), 0 none; or the labels of
  ** processes that each printed a whole report (pdsh, mpirun --tag-output). */
  int next_job_line;
  int njob_keys;
  char job_keys[NT_MAX_JOBS][96];
} nt_doc;

void nt_doc_init(nt_doc *d, const char *path);
/* Each report's evidence of its ranks, kept for nt_infer_ranks; returns the count it gives
** without the figures (what the parsers record until then). */
int nt_add_rank_evidence(nt_doc *d, const nt_rank_evidence *e);
/* Each report's ranks from its evidence and its rows' busbw / algbw (where the collective fixes
** that ratio), the strongest first; one warning per report where they disagree, or where only a
** device list with gaps is there (the count is then left unknown, 0). */
void nt_infer_ranks(nt_doc *d);
void nt_doc_free(nt_doc *d);
/* The bytes of a UTF-8 byte-order mark at the start of text (an editor's), 0 where none. */
size_t nt_bom(const char *text, size_t len);
/* 0, or refused at its line where a string in JSON text[from, to) holds a raw control character
** (xp_json_control_in_string: the file and its CRLF copy would record different strings). */
int nt_refuse_control(const nt_doc *d, const char *text, size_t from, size_t to);
nt_row *nt_doc_add_row(nt_doc *d);
/* -z's modes, as nccl-tests (src/util.cu, -J format 3) now prints each ("# Blocking Enabled: wait and barrier after each
** inner iteration (-m)", "wait after each inner iteration (-m), no barrier", "wait and barrier after
** each outer iteration (-n); time excludes barrier"); before, any -z printed mode 1's line ("wait for
** completion and barrier after each collective"). */
enum { NT_BLOCK_BARRIER = 1, NT_BLOCK_NO_BARRIER = 2, NT_BLOCK_OUTER = 3 };
/* The mode a "Blocking Enabled" line says. */
int nt_blocking_from_line(const char *line);
/* The mode -J's "args" name with -z / --blocking (its config says only true), 1 where they name none. */
int nt_blocking_from_args(const char *args);
/* -a: which rank's time a row prints (src/common.cu: "-a,--average <0/1/2/3> report average
** iteration time <0=RANK0/1=AVG/2=MIN/3=MAX>", default 1). No version echoes it in the report's
** head nor in -J's config, so only a command line or -J's args tell it: UNSTATED where neither
** does, taken as the default. */
enum { NT_AVG_UNSTATED = 0, NT_AVG_RANK0, NT_AVG_MEAN, NT_AVG_MIN, NT_AVG_MAX };
/* The last value args (blank-separated, as getopt_long reads them) give to -X or --long, "-X 2",
** "-X2", "--long 2" or "--long=2"; NULL where they give none. *len is the value's length. */
const char *nt_option_value(const char *args, char short_opt, const char *long_opt, size_t *len);
/* The NT_AVG_* args name with -a / --average, UNSTATED where they name none or no known mode. */
int nt_average_from_args(const char *args);
/* The same mode, UNSTATED taken as nccl-tests' default (the mean over ranks): cases compare it. */
int nt_average_effective(int average);
/* What a case name ends with for the mode ("" for the mean, the default). */
const char *nt_average_suffix(int average);
/* What a case name ends with for the mode ("" for none, "/blocking" for 1 as before the modes). */
const char *nt_blocking_suffix(int mode);
/* Name mapping: "all_reduce_perf" -> "allreduce", "bfloat16" -> "bf16". */
void nt_coll_from_test(const char *test, char *out, size_t n);
void nt_dtype_from_test(const char *type, char *out, size_t n);
/* The TUNING choice info holds for the row's collective and size (count x element), or NULL. */
const xp_nccl_tuning *nt_row_tuning(const nt_row *row, const xp_nccl_info *info);

/* A container log's split lines joined (nt_cri.c): a new text, or NULL where none was split. */
char *nt_cri_join(const char *text, size_t len, size_t *out_len);
/* The length of a CRI line's "stdout F " after its stamp (nt_cri.c), 0 where p holds none. */
size_t nt_cri_stream_tag(const char *p, size_t n, int *stream, char *tag);
/* Docker's json-file log of a container (nt_cri.c): in *out the text its records carry (NULL where
** the text is not one); XP_EXIT_USAGE after "xp: FILE:LINE: ..." at a line that is no record. */
int nt_docker_text(const char *path, const char *text, size_t len, char **out, size_t *out_len);
/* A Markdown table's row (nt_markdown.c), s at its first cell or the '|' before it, laid out in out
** as nccl-tests prints its columns; 0 for the table's delimiter row, which holds nothing. */
int nt_markdown_row(const char *s, int header, char *out, size_t n);
/* Whether s is a Markdown table's delimiter row: only '|', '-', ':' and blanks, a '-' among them. */
int nt_markdown_delimiter(const char *s);
/* The cells of a Markdown table's row s, with its outer pipes or without. */
int nt_markdown_cells(const char *s);
/* 0, or XP_EXIT_USAGE after "xp: FILE:LINE: ..." for what is not nccl-tests output. */
int nt_parse_text(nt_doc *d, const char *text, size_t len);
/* A job's text: the lines of text that are not the job's left blank, so that each keeps its number
** (malloc'd, *out_len set); *left_out counts NCCL's and failure lines no job's label names. */
char *nt_job_text(const nt_doc *whole, const char *text, size_t len, const nt_job *job, size_t *out_len,
                  int *left_out);
int nt_parse_json(nt_doc *d, const char *text, size_t len);
/* rccl-tests' result file (-x FILE -Z csv|json, nt_reporter.c): nt_reporter_form says 'c' (CSV),
** 'j' (JSON) or 0 (not one). */
int nt_reporter_form(const char *text, size_t len);
int nt_parse_reporter(nt_doc *d, const char *text, size_t len);
#endif
