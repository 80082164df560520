/*
** nccl-tests' text report. Comment lines (#) carry the version, the test, its options, the
** devices and the column header; result lines are whitespace-separated columns. The column
** header decides what each column is, because options change them (-C prints cputime, -I adds
** i_min i_max i_p99 i_cv%, -S a timestamp, versions before 2.13 print "error" for "#wrong").
** Lines with "NCCL INFO"/"NCCL WARN" are NCCL's own and go to the INFO parser.
**
** Logs as they are kept, not only as one test prints them: several tests appended to one file
** (each a report of its own, with its own options and ranks), a report printed once per
** process where a build without MPI ran under mpirun (refused where the copies' lines are mixed
** without labels), a test that stopped before its first row
** and was run again (or another test after it), an INFO line that NCCL's threads wrote
** into the middle of a result line, a last line cut short by a killed job, and the labels
** launchers put before each line.
*/
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nccl_tests.h"
#include "spec.h"
#include "xp.h"

#define MAX_COLS 48
#define MAX_LINE 1024
#define MAX_HOSTS 16
#define MAX_RANK_MAP 8192 /* ranks whose device lines are told apart */
#define KEY_LEN 96        /* a line's launcher labels (strip_prefixes) */

typedef struct layout {
  int ncols;
  char name[MAX_COLS][16];
  int place[MAX_COLS];   /* NT_OUT / NT_IN for result columns, -1 for identity columns */
  int group_place[2];    /* which placement the first and second result groups are */
  double time_scale;     /* to microseconds: 1000 where the report printed milliseconds (before 2.0) */
  int named;             /* read from the report's own column header */
  int before2;           /* that header named its columns as before 2.0 ("bytes  N  type  op") */
  int end[MAX_COLS];     /* where each label ends, counted from the end of the first (tokens()) */
} layout;

/* One test's report: its options, devices and table. A log may hold several. */
typedef struct report {
  int first_row;         /* its first row in the document */
  char coll[32];         /* "" where it does not name its test (before 2.13) */
  char options[MAX_LINE];/* its "# nThread" line, as printed */
  int nthreads, ngpus, graph, iters, agg, blocking;
  int max_rank, last_rank; /* of its device lines; -1 none */
  int max_group, group0_ranks; /* NCCL_TESTS_SPLIT_MASK: groups beyond 0, and group 0's ranks */
  int distinct, past_map;  /* ranks its device lines list, counted once; a rank past the map's */
  unsigned char listed[MAX_RANK_MAP / 8];
  int info_nranks;         /* nranks its NCCL INFO lines state; 0 none, -1 they disagree */
  int closed;              /* its footer read: later INFO lines are the next test's */
  int footed;              /* its footer read at all (closed is undone by a row after it) */
  int stopped;             /* where it was seen to end before its first row (a failure, a command); 0 none */
  char stop[192];          /* what ended it there, as the warning says it */
  int own_failure;         /* that failure is the one the document keeps */
  int failed;              /* a failure line of its own read (before or among its rows) */
  char run_by[32];         /* the test the command line before it runs ("?": two); "" none */
  int average;             /* -a as that command line gives it: NT_AVG_*, UNSTATED none */
  int device_line;         /* its first device line; 0 none */
  int begin_line;          /* the line after the last the report before owned (parser.last_owned) */
  int shares_host;         /* a device line of it names a host of the file's first report's */
} report;

typedef struct parser {
  nt_doc *d;
  layout L;
  report rep;
  int saw_test;          /* result lines count once a report has begun */
  char pending[MAX_LINE];/* a result line cut short, waiting for the rest */
  int pending_line;
  char hosts[MAX_HOSTS][64]; /* host names of INFO lines, to cut one glued to a row */
  int nhosts;
  int carry_nranks;      /* INFO nranks after a report's footer, for the next report (0 none, -1 disagree) */
  char next_run_by[32];  /* a command line after a report's rows: the next report's */
  int next_average;      /* and its -a (NT_AVG_*) */
  char next_coll[32];    /* a "Collective test starting" after a report's options: the next report's */
  int gin_line;          /* a GIN device-API benchmark's column header (is_gin_header): its line; 0 none */
  int gin_rows;          /* the lines after it are that table's rows, no report's */
  char gin_name[64];     /* "GIN PUT BANDWIDTH/MESSAGE RATE", from its configuration line */
  char gin_cols[96];     /* its column header, spaces squeezed */
  int foreign_line;      /* a failure before anything of a report (another run's, pasted above); 0 none */
  char foreign[160];     /* that failure, as printed */
  int later_line;        /* a failure after a report's footer (a later test's or process's); 0 none */
  char later[160];       /* that failure, as printed */
  int lineno;            /* the line being read */
  int first_device_line; /* the file's first report's first device line; 0 none */
  int other_hosts_line;  /* a later report's first device line, none of whose hosts the first's are; 0 none */
  int per_process_line;  /* where a second process's copy of the report shows in its head; 0 none */
  char per_process[64];  /* how it shows */
  int other_hosts_begin; /* where that report's job begins: the line after the last of the job before */
  int last_owned;        /* the last line a report or NCCL printed (a row, an INFO line, a head or footer line) */
  int table_line;        /* a Markdown table's first line (nt_markdown_row); 0 none */
  int in_table;          /* the line before was one of its lines */
} parser;

enum { ROW_OK = 0, ROW_SHORT = -1 };

static void keep_carried(parser *P);

static void default_layout(layout *L) {
  static const char *const cols[] = {"size", "count", "type", "redop", "root", "time", "algbw",
                                     "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
  L->ncols = 13;
  L->time_scale = 1;
  L->named = L->before2 = 0;
  L->group_place[0] = NT_OUT;
  L->group_place[1] = NT_IN;
  for (int i = 0; i < 13; i++) {
    snprintf(L->name[i], sizeof L->name[i], "%s", cols[i]);
    L->place[i] = i < 5 ? -1 : i < 9 ? NT_OUT : NT_IN;
  }
}

/* Splits buf at blanks into at most max tokens; end[i] is where token i ends, counted from where
** the first ends. nccl-tests prints its header and rows in right-aligned fields of the same
** widths, so a value ends where its column's label does, whatever indent or prefix the line has. */
static int tokens(char *buf, char **tok, int *end, int max) {
  int n = 0;
  for (char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save); t && n < max; t = strtok_r(NULL, " \t\r\n", &save)) {
    tok[n] = t;
    end[n] = (int)(t + strlen(t) - buf) - (n ? end[0] : 0);
    n++;
  }
  if (n) end[0] = 0;
  return n;
}

static int is_time_col(const char *c) { return strcmp(c, "time") == 0 || strcmp(c, "cputime") == 0; }
/* rccl-tests -A 1 (--output_algo_proto_channels) ends each row with the algorithm and protocol RCCL
** chose for its size ("RING    SIMPLE          32"): words, not figures. */
static int is_choice_col(const char *c) { return strcmp(c, "algo") == 0 || strcmp(c, "proto") == 0; }
/* A time or a bandwidth: a figure that is never negative. */
static int is_figure_col(const char *c) { return is_time_col(c) || strcmp(c, "algbw") == 0 || strcmp(c, "busbw") == 0; }

/* Column names of nccl-tests before 2.0 (2017-2018: "bytes  N  type  op  root  time  algbw  busbw
** res"), as today's header names them. */
static const char *column_name(const char *t) {
  static const char *const old[][2] = {{"bytes", "size"}, {"N", "count"}, {"op", "redop"}, {"res", "error"},
                                       {"delta", "error"}};
  for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
    if (strcmp(t, old[i][0]) == 0) return old[i][1];
  return t;
}

/*
** "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...". A header that names
** its first column "bytes" is the report before 2.0, which printed each time in milliseconds
** (deltaSec * 1.0E3, with no units line): its times are scaled to microseconds.
*/
static void read_header(layout *L, const char *line) {
  char buf[MAX_LINE], *tok[MAX_COLS];
  snprintf(buf, sizeof buf, "%s", line + (*line == '#'));
  const int n = tokens(buf, tok, L->end, MAX_COLS);
  int group = -1;
  for (int i = 0; i < n; i++) {
    const char *t = column_name(tok[i]);
    if (i == 0) L->before2 = strcmp(tok[i], "bytes") == 0;
    if (i == 0) L->time_scale = L->before2 ? 1000 : 1;
    if (is_time_col(t)) group++;
    snprintf(L->name[i], sizeof L->name[i], "%s", t);
    L->place[i] = group < 0 ? -1 : group < 2 ? L->group_place[group] : -1;
  }
  L->ncols = n;
  L->named = 1;
}

/* "#  (B)  (elements)  (us)  (GB/s) ...": where a report states its time unit, that unit holds. */
static void read_units(layout *L, const char *line) {
  if (strstr(line, "(us)")) L->time_scale = 1;
  else if (strstr(line, "(ms)")) L->time_scale = 1000;
}

/* A column header, with or without its '#' (a log pasted through Markdown loses it):
** "size  count ... time" from 2.0 on, "bytes  N ... time" before. */
static int is_header(const char *line) {
  char a[16], b[16];
  const char *p = line + (*line == '#');
  if (!strstr(p, " time ") && !strstr(p, " cputime ")) return 0;
  if (strstr(p, " size ") && strstr(p, " count ")) return 1;
  if (sscanf(p, "%15s %15s", a, b) != 2) return 0;
  return (strcmp(a, "size") == 0 && strcmp(b, "count") == 0) || (strcmp(a, "bytes") == 0 && strcmp(b, "N") == 0);
}

/* "#   out-of-place   in-place": the order of the result groups. */
static void read_group_labels(layout *L, const char *line) {
  const char *o = strstr(line, "out-of-place"), *i = strstr(line, "in-place");
  if (o && i) {
    L->group_place[0] = o < i ? NT_OUT : NT_IN;
    L->group_place[1] = o < i ? NT_IN : NT_OUT;
  } else if (i) L->group_place[0] = L->group_place[1] = NT_IN;
  else if (o) L->group_place[0] = L->group_place[1] = NT_OUT;
}

static int number(const nt_doc *d, int line, const char *col, const char *tok, double *out) {
  char *end;
  *out = strtod(tok, &end);
  if (end == tok || *end) {
    xp_error_at(XP_EXIT_USAGE, d->path, line, "column %s: expected a number, got \"%s\"", col, tok);
    return -1;
  }
  return 0;
}

/* A whole-number column (size, count, root, #wrong) within [lo, hi]; NaN, fractions and values
** past either end are errors, never cast. */
static int whole(const nt_doc *d, int line, const char *col, const char *tok, double lo, double hi, int64_t *out) {
  double v;
  if (number(d, line, col, tok, &v)) return -1;
  if (!(v >= lo && v <= hi) || v != floor(v)) {
    xp_error_at(XP_EXIT_USAGE, d->path, line, "column %s: %s is not a whole number in range", col, tok);
    return -1;
  }
  *out = (int64_t)v;
  return 0;
}

/* nccl-tests' "N/A": a result not measured (a time) or not checked (#wrong). */
static int is_na(const char *tok) { return strcmp(tok, "N/A") == 0; }

static int is_number(const char *tok) {
  char *end;
  strtod(tok, &end);
  return end != tok && *end == 0;
}

static int is_integer(const char *tok) {
  const char *p = tok + (*tok == '-');
  if (!isdigit((unsigned char)*p)) return 0;
  while (isdigit((unsigned char)*p)) p++;
  return *p == 0;
}

/* Whether token t can stand in identity column `name`. */
static int fits_identity(const char *name, const char *t) {
  if (strcmp(name, "size") == 0 || strcmp(name, "count") == 0 || strcmp(name, "root") == 0) return is_integer(t);
  if (strcmp(name, "type") == 0 || strcmp(name, "redop") == 0) return !is_number(t) && !is_na(t);
  return 1;
}

/* Whether token t can stand in result column `name`: times and bandwidths are figures, never
** negative, counts whole and never negative; each may be "N/A". A line cut short can otherwise
** be read with its root (-1) as a time. Columns the reader does not know take anything. */
static int fits_result(const char *name, const char *t) {
  char *end;
  if (is_na(t)) return 1;
  if (is_choice_col(name)) return !is_number(t);
  const double v = strtod(t, &end);
  if (end == t) return 0;
  if (strcmp(name, "error") == 0) return *end == 0 || strcmp(end, "*") == 0; /* rccl-tests: "2e-02*" failed */
  if (*end) return 0;
  if (is_figure_col(name)) return v >= 0 || isnan(v); /* "-nan": nccl-tests' 0 / 0 */
  if (strcmp(name, "#wrong") == 0 || strcmp(name, "#bitdiff") == 0) return v >= 0 && v == floor(v);
  return 1;
}

/*
** Which header column each token of a result line is (val[c], NULL where the line has nothing);
** returns 0, or ROW_SHORT for a line that no reading completes. A line as wide as its header,
** or wider (-S prints its timestamp as two tokens), maps one to one. A narrower one has blanks:
** nccl-tests before 2.13 leave redop blank for collectives without one ("  1048576  16384
** float   571.5 ..."), and ports print nothing for a result group they did not run (MSCCL++
** leaves in-place blank). So the identity columns are read with every column present, then
** without redop, without root, without both: the first reading whose tokens fit their columns
** and leave exactly every result column, or exactly one group, is taken (which group:
** lone_group_second). A line as wide as its header that no reading fits is read column by
** column, so that its bad value is named; any narrower one is a line cut short.
*/
/* Whether a line with one result group, its time ending at `end` (tokens()), holds the header's
** second group: the group under whose time label it stands (within a few columns: versions
** differ by a column or two), since a blank group keeps its width (rccl-tests -O 0 leaves the
** out-of-place group blank, MSCCL++ the in-place one). Where that does not decide (no header,
** a header retyped or a line rejoined with other spacing), the out-of-place group: nccl-tests
** always runs it, and a line cut short keeps it whole. */
static int lone_group_second(const layout *L, int end, int nid, int second) {
  if (L->named) {
    const int d1 = abs(end - L->end[nid]), d2 = abs(end - L->end[second]);
    if (d2 <= 3 && d2 < d1) return 1;
    if (d1 <= 3 && d1 < d2) return 0;
  }
  return L->place[second] == NT_OUT;
}

static int align_row(const layout *L, char *const *tok, const int *end, int n, const char *val[MAX_COLS]) {
  for (int c = 0; c < L->ncols; c++) val[c] = NULL;
  int nid = 0, ngroups = 0, second = -1;
  while (nid < L->ncols && !is_time_col(L->name[nid])) nid++;
  for (int c = nid; c < L->ncols; c++)
    if (is_time_col(L->name[c]) && ngroups++ == 1) second = c;
  const int nres = L->ncols - nid, width = second > 0 ? second - nid : nres;
  for (int skip = 0; skip < 4; skip++) { /* bit 0: no redop, bit 1: no root */
    const char *id[MAX_COLS];
    int k = 0, ok = 1;
    for (int c = 0; c < nid && ok; c++) {
      id[c] = NULL;
      if (((skip & 1) && strcmp(L->name[c], "redop") == 0) || ((skip & 2) && strcmp(L->name[c], "root") == 0))
        continue;
      ok = k < n && fits_identity(L->name[c], tok[k]);
      if (ok) id[c] = tok[k++];
    }
    const int m = n - k;
    if (!ok || !(m == nres || (skip == 0 && m > nres) || (ngroups == 2 && m == width))) continue;
    int first = nid;
    if (m < nres && lone_group_second(L, end[k], nid, second)) first = second;
    for (int t = 0; t < m && first + t < L->ncols && ok; t++) ok = fits_result(L->name[first + t], tok[k + t]);
    if (!ok) continue;
    for (int c = 0; c < nid; c++) val[c] = id[c];
    for (int t = 0; t < m && first + t < L->ncols; t++) val[first + t] = tok[k + t];
    return 0;
  }
  if (n < L->ncols) return ROW_SHORT;
  for (int c = 0; c < L->ncols; c++) val[c] = tok[c]; /* as wide as its header: a bad value, said as such */
  return 0;
}

/* Before 2.13 the "error" column is the largest difference from the expected result, failed
** above nccl-tests' DeltaMaxValue for the type (half was 1e-2 in some versions, 5e-2 in
** others: the lower bound is taken; integers 1e-200: any). A row's type is xp's name where it
** has one (fp16, bf16, fp32), else nccl-tests' own ("double"). */
static double error_bound(const char *dtype) {
  if (strcmp(dtype, "fp16") == 0 || strcmp(dtype, "bf16") == 0) return 1e-2;
  if (strcmp(dtype, "fp32") == 0) return 1e-5;
  if (strcmp(dtype, "double") == 0) return 1e-12;
  return 0;
}

static unsigned layout_cols(const layout *L) {
  unsigned cols = (L->named ? NT_COLS_NAMED : 0) | (L->before2 ? NT_COLS_BEFORE2 : 0);
  for (int c = 0; c < L->ncols; c++)
    cols |= strcmp(L->name[c], "redop") == 0   ? NT_COLS_REDOP
            : strcmp(L->name[c], "root") == 0  ? NT_COLS_ROOT
            : strcmp(L->name[c], "#wrong") == 0 ? NT_COLS_WRONG
                                                : 0;
  return cols;
}

static int read_row(parser *P, char *line, int lineno) {
  nt_doc *d = P->d;
  const layout *L = &P->L;
  char *tok[MAX_COLS + 4];
  const char *val[MAX_COLS];
  int end[MAX_COLS + 4];
  const int n = tokens(line, tok, end, MAX_COLS + 4);
  if (align_row(L, tok, end, n, val) == ROW_SHORT) return ROW_SHORT;
  if (P->rep.closed) keep_carried(P); /* a row after the footer: the report goes on (another process's) */
  nt_row *r = nt_doc_add_row(d);
  r->line = lineno;
  r->root = -1;
  r->bytes = -1;
  r->count = -1; /* a table without a count column: not printed (nccl_tests.c checks one printed) */
  for (int c = 0; c < L->ncols; c++) {
    const char *name = L->name[c], *v = val[c];
    double x = 0;
    int p = L->place[c];
    if (!v) continue;
    if (p < 0) {
      if (strcmp(name, "size") == 0 || strcmp(name, "count") == 0 || strcmp(name, "root") == 0) {
        int64_t w;
        if (name[0] == 'r' ? whole(d, lineno, name, v, -1, INT_MAX, &w) : whole(d, lineno, name, v, 0, 9e18, &w))
          return XP_EXIT_USAGE;
        if (name[0] == 's') r->bytes = w;
        else if (name[0] == 'c') r->count = w;
        else r->root = (int)w;
      } else if (strcmp(name, "type") == 0) nt_dtype_from_test(v, r->dtype, sizeof r->dtype);
      else if (strcmp(name, "redop") == 0) snprintf(r->redop, sizeof r->redop, "%s", v);
      continue;
    }
    nt_result *res = &r->r[p];
    if (is_na(v)) continue; /* not measured (a time), or not checked (#wrong) */
    if (is_choice_col(name)) { /* the row's own, before any TUNING line's */
      snprintf(name[0] == 'a' ? r->algo : r->proto, name[0] == 'a' ? sizeof r->algo : sizeof r->proto, "%s", v);
      continue;
    }
    if (is_figure_col(name)) {
      if (number(d, lineno, name, v, &x)) return XP_EXIT_USAGE;
      if (x < 0) return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "column %s: %s is negative", name, v);
      /* "inf", "-nan": a figure nccl-tests divided out of a time of 0 is no figure (NAN), as
      ** its -J file's "nan"; a time so printed was not measured, as N/A */
      if (!isfinite(x) && is_time_col(name)) continue;
      if (!isfinite(x)) x = NAN;
    }
    if (is_time_col(name)) {
      res->have = 1;
      res->time_us = x * L->time_scale;
      res->cputime = name[0] == 'c';
      res->wrong = -1;
    } else if (strcmp(name, "algbw") == 0 || strcmp(name, "busbw") == 0) {
      if (name[0] == 'a') res->algbw = x;
      else res->busbw = x;
    } else if (strcmp(name, "#wrong") == 0) {
      if (whole(d, lineno, name, v, 0, 9e18, &res->wrong)) return XP_EXIT_USAGE;
    } else if (strcmp(name, "#bitdiff") == 0) {
      if (whole(d, lineno, name, v, 0, 9e18, &res->bitdiff)) return XP_EXIT_USAGE;
    } else if (strcmp(name, "error") == 0) {
      /* rccl-tests stars an error past its bound ("2e-02*"): that sample failed */
      char e[64];
      const size_t len = strlen(v);
      const int starred = len > 1 && v[len - 1] == '*';
      snprintf(e, sizeof e, "%.*s", (int)(starred ? len - 1 : len), v);
      if (number(d, lineno, name, e, &res->max_err)) return XP_EXIT_USAGE;
      if (starred) res->wrong = 1;
    }
  }
  if (r->bytes < 0) return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "no message size on this line");
  if (!r->r[NT_OUT].have && !r->r[NT_IN].have)
    return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "no time on this line (every time column is N/A or blank)");
  if (!r->dtype[0]) snprintf(r->dtype, sizeof r->dtype, "unknown"); /* a port's table without a type */
  snprintf(r->coll, sizeof r->coll, "%s", P->rep.coll);
  r->layout = layout_cols(L);
  if (strcmp(P->rep.run_by, "?") != 0) snprintf(r->run_by, sizeof r->run_by, "%s", P->rep.run_by);
  /* the choice NCCL logged while this row ran (its warmup comes before the row is printed):
  ** the latest so far, so -o all's rows and a second test's each get their own */
  const xp_nccl_tuning *t = r->coll[0] && !r->algo[0] ? nt_row_tuning(r, &d->info) : NULL;
  if (t) {
    snprintf(r->algo, sizeof r->algo, "%s", t->algo);
    snprintf(r->proto, sizeof r->proto, "%s", t->proto);
  }
  r->graph = P->rep.graph;
  r->iters = P->rep.iters;
  r->agg = P->rep.agg;
  r->blocking = P->rep.blocking;
  r->average = P->rep.average;
  r->report = d->nreports;
  return ROW_OK;
}

/* ---- what surrounds the lines: launcher labels, timestamps, glued INFO lines ---- */

/* "YYYY-MM-DD" at p, read no further than its first byte that differs. */
static int is_date(const char *p) {
  for (int i = 0; i < 10; i++)
    if (i == 4 || i == 7 ? p[i] != '-' : !isdigit((unsigned char)p[i])) return 0;
  return 1;
}

/* "HH:MM:SS" and a fraction where one is printed (",123" of Python's logging, ".00001" of ts's
** "%.S"): where it ends, or NULL. */
static const char *clock_end(const char *p) {
  for (int i = 0; i < 8; i++)
    if (i % 3 == 2 ? p[i] != ':' : !isdigit((unsigned char)p[i])) return NULL;
  p += 8;
  if ((*p == '.' || *p == ',') && isdigit((unsigned char)p[1]))
    for (p++; isdigit((unsigned char)*p);) p++;
  return p;
}

/* "Jun 01 10:11:12" ("Jun  1" in ctime's form) and a fraction where printed: where it ends, or NULL. */
static const char *month_clock_end(const char *p) {
  if (!isupper((unsigned char)p[0]) || !islower((unsigned char)p[1]) || !islower((unsigned char)p[2]) ||
      p[3] != ' ' || !(isdigit((unsigned char)p[4]) || p[4] == ' ') || !isdigit((unsigned char)p[5]) || p[6] != ' ')
    return NULL;
  return clock_end(p + 7);
}

/* A timestamp, as tools stamp lines: RFC 3339 as kubectl logs --timestamps and docker logs -t
** write, "2025-06-01 10:11:12" as ts '%Y-%m-%d %H:%M:%S' and Python's logging do, moreutils ts'
** defaults, "Jun 01 10:11:12" and with -s or -i "00:00:05" (a job's `| ts`), each and a space; and
** ctime's "Sun Jun  1 10:11:12 2025", which Open MPI's --timestamp-output puts before its tag with
** no space ("...2025[1,0]<stdout>:", iof_base_output.c). Returns where the line goes on. */
static const char *skip_timestamp(const char *p) {
  const char *end;
  if (is_date(p)) {
    if (p[10] == 'T') {
      end = p + 11;
      while (*end && *end != ' ' && *end != '\t') end++;
      return *end ? end + 1 : p;
    }
    end = p[10] == ' ' ? clock_end(p + 11) : NULL;
  } else if (isupper((unsigned char)p[0]) && islower((unsigned char)p[1]) && islower((unsigned char)p[2]) &&
             p[3] == ' ' && (end = month_clock_end(p + 4)) != NULL) {
    if (*end != ' ') return p;
    for (int i = 1; i <= 4; i++) /* ctime's year, read no further than a byte that is not a digit */
      if (!isdigit((unsigned char)end[i])) return p;
    return end[5] == ' ' ? end + 6 : end + 5;
  } else if ((end = month_clock_end(p)) == NULL)
    end = clock_end(p);
  return end && *end == ' ' ? end + 1 : p;
}

/* NCCL's own timestamp before its lines (NCCL_DEBUG_TIMESTAMP_FORMAT, "[2025-06-01 10:11:12] "
** by default): a bracket that opens on a year. Returns where it ends (past its space), or NULL. */
static const char *nccl_timestamp_end(const char *p) {
  if (p[0] != '[' || !isdigit((unsigned char)p[1]) || !isdigit((unsigned char)p[2]) ||
      !isdigit((unsigned char)p[3]) || !isdigit((unsigned char)p[4]) || p[5] != '-')
    return NULL;
  const char *close = strchr(p, ']');
  if (!close) return NULL;
  return close[1] == ' ' ? close + 2 : close + 1;
}

/* The length of the host name (or torchrun role and rank) at p: letters, digits, '.', '-', '_'. */
static size_t host_name_len(const char *p) {
  size_t n = 0;
  while (isalnum((unsigned char)p[n]) || p[n] == '.' || p[n] == '-' || p[n] == '_') n++;
  return n;
}

/* Open MPI's --tag-output ("[1,0]<stdout>:", "[prterun-host-1@1,0]<stdout>: "; "<stdout>:" alone
** after --timestamp-output's stamp), MPICH's
** -prepend-rank ("[0] ") and Slurm's srun --label ("0: "), indented where a tool quoted the log
** (aws-k8s-tester's test output: "        [1,0]<stdout>:# nThread 1 ..."). */
static const char *skip_label(const char *s) {
  const char *p = s;
  while (*p == ' ') p++;
  if (strncmp(p, "<stdout>:", 9) == 0 || strncmp(p, "<stderr>:", 9) == 0)
    return p + 9; /* Open MPI's --timestamp-output without --tag-output: the stream alone */
  if (*p == '[') {
    const char *open = p, *close = strchr(p, ']');
    if (!close) return s;
    if (strncmp(close + 1, "<stdout>:", 9) == 0 || strncmp(close + 1, "<stderr>:", 9) == 0) return close + 10;
    /* torchrun --tee's "[default0]:" ("[${role_name}${local_rank}]:"; log_line_prefix_template's
    ** "[${rank}]:" and the like), a space after it where the template puts one */
    if (close[1] == ':' && close > open + 1 && host_name_len(open + 1) == (size_t)(close - open - 1))
      return close + 2 + (close[2] == ' ');
    for (p = open + 1; p < close && isdigit((unsigned char)*p); p++) {}
    return p == close && p > open + 1 && close[1] == ' ' ? close + 2 : s;
  }
  const char *digits = p;
  while (isdigit((unsigned char)*p)) p++;
  if (p > digits && p[0] == ':' && p[1] == ' ') return p + 2;
  return s;
}

/* Markdown's quote marks: a log quoted in a GitHub issue's reply or an e-mail ("> # nThread 1 ...",
** "> > " quoted twice), each '>' and the space after it. nccl-tests begins no line with '>'. */
static const char *skip_quote(const char *s) {
  const char *p = s;
  while (*p == ' ') p++;
  if (*p != '>') return s;
  while (*p == '>') p += p[1] == ' ' ? 2 : 1;
  return p;
}

/* kubectl logs --prefix's "[pod/NAME/CONTAINER] " (logs.go's addPrefixIfNeeded; "[node/NAME] " for
** a node's), before the stamp --timestamps adds: a job's pods read with one command ("kubectl logs
** -l training.kubeflow.org/job-name=nccl --prefix"). */
static const char *skip_kubectl_prefix(const char *s) {
  if (strncmp(s, "[pod/", 5) != 0 && strncmp(s, "[node/", 6) != 0) return s;
  const char *close = strchr(s, ']');
  return close && close[1] == ' ' && !memchr(s, ' ', (size_t)(close - s)) ? close + 2 : s;
}

/* docker compose logs' "SERVICE-1  | " (the service's container, padded to the longest name; v1
** "service_1  | "; a service's container_name where it has one), before the stamp -t adds. Not where
** a '|' follows in the text: nccl-tests prints none, and a row of a Markdown table without its outer
** pipes ("8 | 4 | bfloat16 | ...", "size | count | type | ...") is no prefix and its text. */
static const char *skip_compose_prefix(const char *s) {
  const char *p = s;
  while (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.') p++;
  if (p == s || *p != ' ') return s;
  while (*p == ' ') p++;
  if (p[0] != '|' || p[1] != ' ') return s;
  const char *text = p + 2 + strspn(p + 2, " ");
  return *text != '|' && strchr(text, '|') ? s : p + 2;
}

/* The stream and tag after the stamp of a container's log as the kubelet keeps it on its node
** (CRI's format, nt_cri.c), copied from there when the pod is gone. */
static const char *skip_cri_stream(const char *p) {
  int stream;
  char tag;
  return p + nt_cri_stream_tag(p, strlen(p), &stream, &tag);
}

/* The source syslog's form puts after its stamp, "HOST IDENT[PID]: ", as journalctl prints a unit's
** log ("Jun 01 10:11:12 gpu-node-1 bash[1234]: # nThread 1 ..."; -o short-iso the same after its
** RFC 3339 stamp): a test run as a service (a node's health check) and read back from the journal. */
static const char *skip_syslog_source(const char *p) {
  const char *q = p + strcspn(p, " ");
  if (q == p || *q != ' ') return p;
  const char *ident = q + 1, *open = ident + strcspn(ident, " [");
  if (open == ident || *open != '[' || !isdigit((unsigned char)open[1])) return p;
  for (q = open + 1; isdigit((unsigned char)*q);) q++;
  return q[0] == ']' && q[1] == ':' && q[2] == ' ' ? q + 3 : p;
}

static int looks_like_row(const char *s);
static int bare_comment(const char *s);

/* pdsh's and clush's "HOST: " before each line a host printed (DeepSpeed's pdsh runner passes it
** on: "node01: # nThread 1 ..."). Only before a line nccl-tests or NCCL prints (a '#' line, a
** row, an INFO or WARN line), so that a word of the text's own ("rccl-tests: Version", a host's
** "node01: Test NCCL failure ...", ssh's "Warning: Permanently added ...") is no label. */
static const char *skip_host_label(const char *p) {
  const size_t n = host_name_len(p);
  if (n == 0 || n > 63 || !isalnum((unsigned char)*p) || p[n] != ':' || p[n + 1] != ' ') return p;
  const char *rest = p + n + 2 + strspn(p + n + 2, " ");
  const int printed = *rest == '#' || looks_like_row(rest) || bare_comment(rest) || strstr(rest, "NCCL INFO ") ||
                      strstr(rest, "NCCL WARN ");
  return printed ? p + n + 2 : p;
}

/* Adds line[from, to), a label, to the key of the process that printed the line: blanks and the
** stream ("<stdout>:", "<stderr>:": one process's two) left out. */
static void add_label(char *key, size_t n, const char *from, const char *to) {
  for (const char *t = from; t + 4 <= to; t++)
    if (strncmp(t, "<std", 4) == 0) to = t;
  while (from < to && *from == ' ') from++;
  while (to > from && to[-1] == ' ') to--;
  const size_t used = strlen(key);
  if (to > from && used + 1 < n) snprintf(key + used, n - used, "%.*s", (int)(to - from), from);
}

/* Where the line nccl-tests printed starts, after Markdown's quote marks, kubectl's or docker
** compose's container prefix, a timestamp (and a container log's stream or the journal's
** source), and a launcher's label or a host's (pdsh)
** (and NCCL's own timestamp, before its INFO lines). key gets the labels that tell which process
** printed the line ("" none): the container's, the launcher's. */
static const char *strip_prefixes(const char *s, char *key, size_t n) {
  const char *q = skip_quote(s);
  key[0] = 0;
  s = skip_compose_prefix(skip_kubectl_prefix(q));
  add_label(key, n, q, s);
  const char *stamped = skip_timestamp(s);
  const char *from = stamped == s ? s : skip_syslog_source(skip_cri_stream(stamped));
  const char *p = skip_label(from);
  if (p != from) p = skip_label(p);
  else p = skip_host_label(from);
  add_label(key, n, from, p);
  const char *t = nccl_timestamp_end(p);
  return t ? t : p;
}

/* An INFO line's host, "host" of "host:pid:tid", kept to find one glued to a row. */
static void note_host(parser *P, const char *s, const char *colon) {
  if (P->nhosts == MAX_HOSTS || colon - s >= 64) return;
  char host[64];
  snprintf(host, sizeof host, "%.*s", (int)(colon - s), s);
  for (int i = 0; i < P->nhosts; i++)
    if (strcmp(P->hosts[i], host) == 0) return;
  snprintf(P->hosts[P->nhosts++], sizeof P->hosts[0], "%s", host);
}

/* Where a launcher's bracketed label that ends at `at` begins ("-1[0] host:1:2 [0] NCCL INFO", as
** MPICH's -prepend-rank left it in nccl issue 1453; Open MPI's "[1,0]<stdout>:"), else `at`. A
** launcher labels each piece of output it reads, and the row's start reached it before NCCL's line
** did: the label belongs to the INFO line, not to the row's root or #wrong. */
static const char *label_before(const char *s, const char *at) {
  for (const char *b = at; b > s;)
    if (*--b == '[') {
      const char *p = skip_label(b);
      while (p != b && p < at && *p == ' ') p++;
      return p == at ? b : at;
    }
  return at;
}

/* How much of s, a result line with an INFO line written into its middle ("  14336  7168
** bfloat16  sum  -1vm:1421:1430 [0] NCCL INFO ..."), comes before the INFO line's host: up to a
** host INFO lines have begun with, else to where the number glued to it ends. */
static size_t row_before_info(const parser *P, const char *s, const char *info) {
  /* NCCL's "[dev]" after the host: the last one before the message (a WARN line puts its
  ** source file between them: "host:1:2 [0] misc/socket.cc:50 NCCL WARN") */
  const char *dev = NULL;
  for (const char *b = s; b < info; b++)
    if (b[0] == '[' && isdigit((unsigned char)b[1])) {
      const char *e = b + 1;
      while (isdigit((unsigned char)*e)) e++;
      if (*e == ']' && e < info) dev = b;
    }
  if (!dev) return 0;
  while (dev > s && dev[-1] == ' ') dev--;
  const char *tok = dev;
  while (tok > s && tok[-1] != ' ' && tok[-1] != '\t') tok--; /* "-1vm:1421:1430" */
  const char *host = NULL;
  for (int i = 0; i < P->nhosts && !host; i++) {
    const char *h = strstr(tok, P->hosts[i]);
    if (h && h < dev && h[strlen(P->hosts[i])] == ':') host = h;
  }
  if (!host) {
    char *end;
    strtod(tok, &end);
    host = end;
  }
  /* NCCL's timestamp before the host belongs to the INFO line: "-1[2025-06-01 10:11:12] host", and
  ** a launcher's label before that: "-1[0] [2025-06-01 10:11:12] host" */
  for (const char *b = host; b > s; b--)
    if (b[-1] == '[' && nccl_timestamp_end(b - 1)) {
      host = b - 1;
      break;
    }
  return (size_t)(label_before(s, host) - s);
}

/* ---- reports ---- */

/*
** What the report's lines say of its ranks (nt_infer_ranks weighs it with the figures). nccl-tests
** numbers ranks process by process, nThread x nGpus each (rank = proc*T*G + thread*G + gpu), so
** a list from 0 with no gap, of whole processes, is the job's; one with a gap (an excerpt) says
** only that the processes up to its highest rank's were there.
*/
static nt_rank_evidence report_evidence(const report *R) {
  nt_rank_evidence e = {R->info_nranks, 0, 0, 0, 0};
  const int64_t per = R->nthreads > 0 && R->ngpus > 0 ? (int64_t)R->nthreads * R->ngpus : 1;
  if (R->max_rank < 0) {
    e.assumed = R->nthreads > 0 && R->ngpus > 0 ? xp_saturate_int((double)per) : 0;
    return e;
  }
  const int64_t top = (int64_t)R->max_rank + 1, whole = (top + per - 1) / per * per;
  const int gapless = !R->past_map && R->distinct == top && top % per == 0;
  if (R->max_group > 0 && R->group0_ranks > 0) { /* split: the figures are group 0's communicator's */
    if (gapless) e.listed = R->group0_ranks;
  } else if (gapless) e.listed = xp_saturate_int((double)top);
  else e.at_least = xp_saturate_int((double)whole);
  return e;
}

/* Whether an INFO line's "nranks N" (or "nRanks N") at p, after "rank R " where one comes just
** before it, states a communicator's size: a word of its own, a positive count, R below it. */
static int nranks_at(const char *msg, const char *p, int *n) {
  char *end;
  if (p > msg && p[-1] != ' ' && p[-1] != ':') return 0;
  const long v = strtol(p + 7, &end, 10);
  if (end == p + 7 || v <= 0 || v > INT_MAX || (*end && *end != ' ' && *end != ',')) return 0;
  const char *r = p - 1; /* "rank R " before it: R must be one of the N */
  while (r > msg && r[-1] == ' ') r--;
  const char *digits = r;
  while (digits > msg && isdigit((unsigned char)digits[-1])) digits--;
  if (digits < r && digits - msg >= 5 && strncmp(digits - 5, "rank ", 5) == 0 && atol(digits) >= v) return 0;
  *n = (int)v;
  return 1;
}

/* The ring rank 0 lists: "Ring 00 :    0   1   2" (NCCL 2.3-2.4), "Channel 00 :    0   1" (2.5-2.11),
** "Channel 00/24 :    0   1" (2.12 on, RCCL too). A ring holds every rank once, so a whole list
** is the communicator's size; before 2.1x dumpLine printed at most 20 ranks with no mark of the
** cut (later ones end a cut line with "..."), so only a list of fewer than 20 that names each of
** 0 .. k-1 once counts. 0 where the line is no such list. */
static int ring_length(const char *msg) {
  const char *p = strncmp(msg, "Ring ", 5) == 0 ? msg + 5 : strncmp(msg, "Channel ", 8) == 0 ? msg + 8 : NULL;
  if (!p) return 0;
  while (isdigit((unsigned char)*p) || *p == '/') p++;
  if (strncmp(p, " : ", 3) != 0) return 0;
  unsigned char seen[19] = {0};
  int k = 0;
  for (p += 3;; k++) {
    char *end;
    while (*p == ' ') p++;
    if (!*p) break;
    const long v = strtol(p, &end, 10);
    if (end == p || (*end && *end != ' ') || v < 0 || v >= (long)sizeof seen || k == (int)sizeof seen || seen[v]++)
      return 0;
    p = end;
  }
  for (int i = 0; i < k; i++)
    if (!seen[i]) return 0;
  return k;
}

/*
** The communicator's size an INFO message states, 0 where it states none: "comm 0x.. rank R
** nranks N ..." (Init START/COMPLETE, Destroy, "Init timings": 2.4 on; 2.3's "comm 0x.. rank R
** nranks N - COMPLETE" and its commAlloc line), "rank R nRanks N nNodes ..." (2.9 on), 2.3's
** ncclCommInitAll "nranks N", RCCL's " comm 0x.. nRanks 02" after its lines, and the ring list.
** Every form of "Init COMPLETE" from 2.3 to 2.28 names "rank R nranks N" (src/init.cc).
*/
static int info_comm_size(const char *msg) {
  int n = ring_length(msg);
  for (const char *p = msg; !n && (p = strchr(p, 'n')) != NULL; p++)
    if ((strncmp(p, "nranks ", 7) == 0 || strncmp(p, "nRanks ", 7) == 0) && nranks_at(msg, p, &n)) break;
  return n;
}

/* A count noted where others may be: one that differs makes the sources disagree (-1). Split
** communicators (NCCL_TESTS_SPLIT_MASK) beside the world's disagree, and then count for nothing. */
static void merge_nranks(int *into, int n) {
  if (n == 0) return;
  *into = *into == 0 ? n : *into == n ? n : -1;
}

/* After a report's footer, an INFO line is the next test's: its other processes' output can reach
** the log before that test's first line. A communicator's Destroy (or Abort) still ends the test
** that ran; what no later report takes goes back to this one (end of file, or rows after it). */
static void note_info_nranks(parser *P, const char *info) {
  const int n = info_comm_size(info + strlen("NCCL INFO "));
  const int ended = strstr(info, " - Destroy COMPLETE") || strstr(info, " - Abort COMPLETE");
  merge_nranks(P->rep.closed && !ended ? &P->carry_nranks : &P->rep.info_nranks, n);
}

/* The counts held for the next report, given to the current one (nothing followed it). */
static void keep_carried(parser *P) {
  merge_nranks(&P->rep.info_nranks, P->carry_nranks);
  P->carry_nranks = 0;
  P->rep.closed = 0;
}

static void begin_report(parser *P) {
  memset(&P->rep, 0, sizeof P->rep);
  P->rep.first_row = P->d->nrows;
  P->rep.agg = 1;
  P->rep.max_rank = P->rep.last_rank = -1;
  P->rep.begin_line = P->last_owned + 1;
  P->rep.info_nranks = P->carry_nranks; /* its processes' INFO lines that came before it */
  P->carry_nranks = 0;
  snprintf(P->rep.run_by, sizeof P->rep.run_by, "%s", P->next_run_by);
  P->next_run_by[0] = 0;
  P->rep.average = P->next_average;
  P->next_average = NT_AVG_UNSTATED;
  snprintf(P->rep.coll, sizeof P->rep.coll, "%s", P->next_coll);
  P->next_coll[0] = 0;
  default_layout(&P->L);
}

/* A report with rows that ends with neither a failure nor its footer ("# Out of bounds values",
** which nccl-tests prints after its last size, whatever went wrong before): the job was killed
** (a time limit, ^C, a signal) or the log cut after its last row. Its rows are whole, but the
** sweep is not: kept as the document's failure where it has none, so that the run says so. */
static void note_no_footer(parser *P) {
  nt_doc *d = P->d;
  if (d->nrows == P->rep.first_row || P->rep.footed || P->rep.failed || d->failure[0]) return;
  if (P->table_line && d->rows[d->nrows - 1].line > P->table_line) return; /* a Markdown table: rows alone */
  snprintf(d->failure, sizeof d->failure, "no footer after the report's last row (line %d): the job was killed "
           "or the log cut there", d->rows[d->nrows - 1].line);
}

/* A report after the first whose device lines name none of the first's hosts: the test run on
** each host (pdsh | dshbak, clush -b print each host's output as a block of its own), each a job
** of its own, not the same test appended and not samples of one case. */
static void note_other_hosts(parser *P) {
  if (P->d->nreports > 0 && P->rep.device_line && !P->rep.shares_host && P->d->hosts.n > 0 && !P->other_hosts_line) {
    P->other_hosts_line = P->rep.device_line;
    P->other_hosts_begin = P->rep.begin_line;
  }
}

/* The report's rows learn its ranks; the first report's also stand for the file. */
static void end_report(parser *P) {
  nt_doc *d = P->d;
  note_no_footer(P);
  note_other_hosts(P);
  nt_rank_evidence e = report_evidence(&P->rep);
  const int ranks = nt_add_rank_evidence(d, &e);
  for (int i = P->rep.first_row; i < d->nrows; i++) d->rows[i].nranks = ranks;
  if (d->nreports == 0) {
    d->nranks = ranks;
    d->hosts_whole = e.listed > 0;
    snprintf(d->coll, sizeof d->coll, "%s", P->rep.coll);
  }
  d->nreports++;
}

/* A test that ended before its first row (a failure, or a command line run after it), and the log
** goes on with a test (the same one run again, or another): the attempt is left out, and said to
** be, and what the document took from it (its failure, devices, blocking) is not the next report's. */
static void drop_attempt(parser *P) {
  nt_doc *d = P->d;
  xp_warn("%s:%d: this test ended before its first result line (%s); the report after it is read", d->path,
          P->rep.stopped, P->rep.stop);
  if (P->rep.own_failure) d->failure[0] = 0;
  if (d->nreports == 0) {
    d->ndev = 0;
    xp_strtab_free(&d->hosts);
    d->blocking = 0;
  }
}

/* The number after KEY in an options line, whichever way a version prints it: "nThread 1",
** "nThread: 1" (rccl-tests of 2021), "warmup iters: 5"; KEY starts a word. -1 where none. */
static int option(const char *line, const char *key, int64_t *out) {
  const size_t n = strlen(key);
  for (const char *p = strstr(line, key); p; p = strstr(p + 1, key)) {
    const char *v = p + n + (p[n] == ':');
    char *end;
    if ((p > line && p[-1] != ' ' && p[-1] != '#') || *v != ' ') continue;
    const long long x = strtoll(v, &end, 10);
    if (end == v) continue;
    *out = x;
    return 0;
  }
  return -1;
}

/* Whether a line is a test's options line: "nThread 1 nGpus 2 ..." (nccl-tests; before 2.0
** without its '#'), "nThread: 1 nGpus: 1 ..." and "nThreads: 1 nGpus: 2 nRanks: 1 ..." (rccl-tests
** of 2021 and of 2023, which print the warmup count as "warmupIters: 5"). */
static int is_options(const char *line) {
  int64_t v;
  return (option(line, "nThread", &v) == 0 || option(line, "nThreads", &v) == 0) && option(line, "nGpus", &v) == 0;
}

/* "# nThread 1 nGpus 2 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 1 iters: 20
**  agg iters: 1 validation: 1 graph: 0 unalign: 0": the report's, and the file's if first. */
static void read_options(parser *P, const char *line) {
  nt_doc *d = P->d;
  report *R = &P->rep;
  int64_t v;
  snprintf(R->options, sizeof R->options, "%s", line);
  if (option(line, "nThread", &v) == 0 || option(line, "nThreads", &v) == 0) R->nthreads = xp_saturate_int((double)v);
  if (option(line, "nGpus", &v) == 0) R->ngpus = xp_saturate_int((double)v);
  const char *w = strstr(line, "warmup iters: ");
  if (!w) w = strstr(line, "warmupIters: ");
  /* before 2.0 no warmup count: "step: 2(factor) iters: 20 validation: 1"; the iterations are
  ** the first "iters" past the warmup's (not "agg iters") */
  if (option(w ? w + 12 : line, "iters", &v) == 0) R->iters = xp_saturate_int((double)v);
  if (option(line, "agg iters", &v) == 0) R->agg = xp_saturate_int((double)v);
  if (option(line, "graph", &v) == 0) R->graph = xp_saturate_int((double)v);
  if (d->nreports > 0) return;
  d->nthreads = R->nthreads;
  d->ngpus = R->ngpus;
  d->iters = R->iters;
  d->agg = R->agg;
  d->graph = R->graph;
  if (option(line, "minBytes", &v) == 0) d->min_bytes = v;
  if (option(line, "maxBytes", &v) == 0) d->max_bytes = v;
  if (w && option(w, strncmp(w, "warmup iters", 12) == 0 ? "warmup iters" : "warmupIters", &v) == 0)
    d->warmup = xp_saturate_int((double)v);
  if (option(line, "validation", &v) == 0) d->validation = xp_saturate_int((double)v);
  if (option(line, "unalign", &v) == 0) d->unalign = xp_saturate_int((double)v);
}

/* A report's head printed a second time within it, before its rows: another process's copy (a build
** without MPI under mpirun -np N prints one per process, each process a job of its own), the two
** processes' lines mixed. */
static void note_per_process(parser *P, const char *how) {
  if (P->per_process_line) return;
  P->per_process_line = P->lineno;
  snprintf(P->per_process, sizeof P->per_process, "%s", how);
}

/* A device line, with or without its '#' (a log pasted through Markdown loses it): "Rank", its
** number, and " device " after them. */
static int is_device_line(const char *line) {
  const char *p = line + (*line == '#');
  int rank;
  while (*p == ' ') p++;
  return strncmp(p, "Rank ", 5) == 0 && sscanf(p + 5, "%d", &rank) == 1 && strstr(p, " device ") != NULL;
}

/* "#  Rank  0 Group  0 Pid   1351 on         vm device  0 [0000:00:06] NVIDIA H200"
** (older: no Group; before 2.0 no Pid either; "[0x18]"). A rank listed again means the report was
** printed twice. */
static void read_device(parser *P, const char *line) {
  nt_doc *d = P->d;
  nt_device v;
  int group = 0, n;
  memset(&v, 0, sizeof v);
  line += *line == '#';
  n = sscanf(line, " Rank %d Group %d Pid %d on %63s device %d [%31[^]]] %95[^\r\n]", &v.rank, &group, &v.pid,
             v.host, &v.device, v.busid, v.name);
  if (n < 5)
    n = sscanf(line, " Rank %d Pid %d on %63s device %d [%31[^]]] %95[^\r\n]", &v.rank, &v.pid, v.host, &v.device,
               v.busid, v.name) + 1;
  if (n < 5)
    n = sscanf(line, " Rank %d on %63s device %d [%31[^]]] %95[^\r\n]", &v.rank, v.host, &v.device, v.busid,
               v.name) + 2;
  if (n < 5 || v.rank < 0) return;
  if (v.rank <= P->rep.last_rank) note_per_process(P, "its device lines list a rank again");
  P->rep.last_rank = v.rank;
  /* NCCL_TESTS_SPLIT_MASK splits the ranks into groups, a communicator each, whose figures
  ** are per communicator: its ranks are those of group 0 */
  if (strstr(line, " Group ")) {
    if (group > P->rep.max_group) P->rep.max_group = group;
    if (group == 0) P->rep.group0_ranks++;
  }
  if (v.rank > P->rep.max_rank) P->rep.max_rank = v.rank;
  if (!P->rep.device_line) P->rep.device_line = P->lineno;
  if (d->nreports == 0 && !P->first_device_line) P->first_device_line = P->lineno;
  if (d->nreports == 0) xp_strtab_intern(&d->hosts, v.host, strlen(v.host), NULL);
  for (uint32_t i = 0; d->nreports > 0 && i < d->hosts.n && !P->rep.shares_host; i++)
    P->rep.shares_host = strcmp(d->hosts.str[i], v.host) == 0;
  /* the job's hosts, before any INFO line starts a line: one glued to the first row cuts there,
  ** where a host led by digits ("10-4-3-3", NVIDIA/nccl issue 1773) read as the root's number */
  note_host(P, v.host, v.host + strlen(v.host));
  if (v.rank >= MAX_RANK_MAP) P->rep.past_map = 1;
  else if (!(P->rep.listed[v.rank / 8] & (1u << (v.rank % 8)))) {
    P->rep.listed[v.rank / 8] |= (unsigned char)(1u << (v.rank % 8));
    P->rep.distinct++;
  }
  if (d->nreports > 0 || d->ndev == (int)(sizeof d->dev / sizeof d->dev[0])) return;
  for (int i = 0; i < d->ndev; i++)
    if (d->dev[i].rank == v.rank) return; /* the same rank from the report's other printing */
  d->dev[d->ndev++] = v;
}

/* A line that begins a test's report; one after rows have been read, or after a failure stopped
** the report before its rows, begins the next report. */
static void report_boundary(parser *P, const char *line, int options) {
  const int has_rows = P->d->nrows > P->rep.first_row;
  if (has_rows) {
    end_report(P);
    begin_report(P);
  } else if (P->rep.stopped) {
    /* the same options again with no command line between: the test run again, which the
    ** command line before the attempt ran */
    char run_by[32] = "";
    int average = NT_AVG_UNSTATED;
    if (options && strcmp(P->rep.options, line) == 0 && !P->next_run_by[0])
      snprintf(run_by, sizeof run_by, "%s", P->rep.run_by), average = P->rep.average;
    drop_attempt(P);
    begin_report(P);
    if (run_by[0]) snprintf(P->rep.run_by, sizeof P->rep.run_by, "%s", run_by), P->rep.average = average;
  } else if (options && P->rep.options[0]) {
    /* a second options line before any row: the same report from another process (a build
    ** without MPI under mpirun, every process its own job), else a test that printed nothing */
    if (strcmp(P->rep.options, line) == 0) {
      note_per_process(P, "its options line again");
      P->next_coll[0] = 0;
    } else begin_report(P);
  }
}

static int same_columns(const layout *a, const layout *b) {
  if (a->ncols != b->ncols) return 0;
  for (int c = 0; c < a->ncols; c++)
    if (strcmp(a->name[c], b->name[c]) != 0) return 0;
  return 1;
}

/* A column header unlike the one the report's rows were read under, after those rows: another
** table, pasted without its options line (a pre-2.13 report quoted in a fenced block or an issue
** below a newer log). nccl-tests prints its head once, before its first row, so the rows that
** follow are a report of their own, read in their own header's layout, not the rows above's. (The
** same header again is another process's copy of the report, whose head can come after the first
** copy's rows where a build without MPI ran under mpirun.) */
static void head_after_rows(parser *P) {
  if (P->d->nrows == P->rep.first_row) return;
  xp_warn("%s:%d: a column header unlike the rows' above, with no options line before it: its rows are read as "
          "a report of their own, in its columns", P->d->path, P->lineno);
  report_boundary(P, "", 0);
}

/*
** nccl-tests 2.30's GIN device-API benchmarks (src/device_api/gin/utils/common.cc: ginPutBW_perf,
** ginPutLatency_pingPong_perf, ...) print "# GIN PUT BANDWIDTH/MESSAGE RATE: rsm=gpu, ..." and a
** table of their own, "Size(B)  Num_Messages  Bandwidth(MiB/s)  Message_Rate(MPPS)" or "Size(B)
** Iters  Latency(us)": one-sided transfers between two ranks, rated in MiB/s and messages per second
** or as half a round trip. No collective's time or bus bandwidth is there, which a case of
** nccl_burst holds and queries compare, so the table is named and not read.
*/
static int is_gin_header(const char *s) {
  char a[16], b[16];
  return sscanf(s, "%15s %15s", a, b) == 2 && strcmp(a, "Size(B)") == 0 &&
         (strcmp(b, "Num_Messages") == 0 || strcmp(b, "Iters") == 0);
}

/* "# GIN PUT BANDWIDTH/MESSAGE RATE: rsm=gpu, ...": the benchmark's name, before its header. */
static void note_gin_name(parser *P, const char *line) {
  const char *end = strstr(line, ": rsm="), *p = line + (*line == '#');
  if (!end || P->gin_name[0]) return;
  while (*p == ' ') p++;
  if (end > p) snprintf(P->gin_name, sizeof P->gin_name, "%.*s", (int)(end - p), p);
}

static void note_gin_header(parser *P, const char *s, int lineno) {
  P->gin_rows = 1;
  if (P->gin_line) return;
  P->gin_line = lineno;
  size_t n = 0;
  for (const char *p = s; *p && n + 2 < sizeof P->gin_cols; p++)
    if (*p != ' ' || (n > 0 && P->gin_cols[n - 1] != ' ')) P->gin_cols[n++] = *p;
  while (n > 0 && P->gin_cols[n - 1] == ' ') n--;
  P->gin_cols[n] = 0;
}

/* What the GIN table is, for the refusal or the warning. */
static void gin_what(const parser *P, char *buf, size_t n) {
  snprintf(buf, n, "nccl-tests' GIN device-API benchmark%s%s%s (%s: one-sided transfers between 2 ranks)",
           P->gin_name[0] ? " \"" : "", P->gin_name, P->gin_name[0] ? "\"" : "", P->gin_cols);
}

static void read_comment(parser *P, const char *line) {
  nt_doc *d = P->d;
  const char *p;
  if ((p = strstr(line, "nccl-tests version ")) != NULL || (p = strstr(line, "rccl-tests version ")) != NULL) {
    report_boundary(P, line, 0); /* rccl-tests: the same header, "rccl-headers=", "rccl-library=" */
    if (d->nreports == 0) {
      sscanf(p + 19, "%31s", d->tests_version);
      const char *h = strstr(line, "ccl-headers="), *l = strstr(line, "ccl-library=");
      if (h) d->nccl_headers = atoi(h + 12);
      if (l) d->nccl_library = atoi(l + 12);
    }
  } else if ((p = strstr(line, "rccl-tests: Version ")) != NULL) {
    /* rccl-tests before its 2.17.9 sync prints its git version alone, after the options line and
    ** without '#': "rccl-tests: Version develop:a7809b3" ("Unknown" where it was built without git) */
    if (d->nreports == 0 && !d->tests_version[0] && strncmp(p + 20, "Unknown", 7) != 0)
      sscanf(p + 20, "%31s", d->tests_version);
  } else if ((p = strstr(line, "Collective test starting: ")) != NULL) {
    char test[64] = "";
    report_boundary(P, line, 0);
    sscanf(p + 26, "%63s", test);
    /* a second one after the report's options: another process's copy, or the next test's (the
    ** report printed no row) */
    if (P->rep.coll[0] && P->rep.options[0]) nt_coll_from_test(test, P->next_coll, sizeof P->next_coll);
    else nt_coll_from_test(test, P->rep.coll, sizeof P->rep.coll);
  } else if (is_options(line)) {
    report_boundary(P, line, 1);
    read_options(P, line);
  } else if (strstr(line, "Blocking Enabled")) {
    P->rep.blocking = nt_blocking_from_line(line);
    if (d->nreports == 0) d->blocking = P->rep.blocking;
  } else if (is_device_line(line)) {
    read_device(P, line);
  } else if (strstr(line, "out-of-place") || strstr(line, "in-place")) {
    read_group_labels(&P->L, line);
  } else if (is_header(line)) {
    layout next = P->L;
    read_header(&next, line);
    if (!same_columns(&P->L, &next)) head_after_rows(P);
    P->L = next;
  } else if (strstr(line, "(elements)")) {
    read_units(&P->L, line);
  } else if ((p = strstr(line, "Out of bounds values : ")) != NULL) {
    /* summed over the file's reports, up to int64's end: a count no test prints (nccl-tests' is an
    ** int, never below 0) must not overflow the sum */
    const long long n = strtoll(p + 23, NULL, 10);
    if (d->out_of_bounds < 0) d->out_of_bounds = 0;
    if (n > 0) d->out_of_bounds = n > INT64_MAX - d->out_of_bounds ? INT64_MAX : d->out_of_bounds + n;
    P->rep.closed = P->rep.footed = 1;
  } else if ((p = strstr(line, "Avg bus bandwidth    : ")) != NULL) {
    if (d->nreports == 0) d->avg_busbw = strtod(p + 23, NULL);
    P->rep.closed = P->rep.footed = 1;
  } else if (strstr(line, "Collective test concluded")) {
    P->rep.closed = P->rep.footed = 1;
  } else if (strstr(line, "# error: ")) {
    d->errors++;
  } else if (strstr(line, ": rsm=")) {
    note_gin_name(P, line);
  }
}

/* A failure that is no report's: the first one kept, with its line, for the warning. */
static void keep_first_failure(int *line, char *text, size_t n, int lineno, const char *p) {
  if (*line) return;
  *line = lineno;
  snprintf(text, n, "%.*s", (int)strcspn(p, "\r\n"), p);
}

/* Where line says the test failed ("host: Test NCCL failure common.cu:915 'unhandled cuda error'"),
** or NULL. rccl-tests says "Test HIP failure"; before 2.0 nccl-tests said "NCCL failure
** all_reduce.cu:95 'unhandled cuda error'" and "Cuda failure ..." (nccl-tests issue 5). */
static const char *failure_in(const char *line) {
  static const char *const says[] = {"Test NCCL failure", "Test CUDA failure", "Test HIP failure",
                                     "Test timeout", /* -T: said before the "Test failure" it causes */
                                     "NCCL failure ", "Cuda failure ", "Test failure", NULL};
  const char *p = NULL;
  for (int i = 0; says[i] && !p; i++) p = strstr(line, says[i]);
  return p;
}

/* A failure: the test stopped there (before its rows: a report begun after it is another test's,
** or the same run again). */
static void note_failure(parser *P, const char *line, int lineno) {
  nt_doc *d = P->d;
  const char *p = failure_in(line);
  if (!p) return;
  /* Before the file's first version, options, device or header line: a test prints its head before
  ** it can fail (its device lines wait for every rank), and a failure ends it, so one above the
  ** first report is another run's that the user pasted there (nccl-tests issue 280), not its. */
  if (!d->tests_version[0] && !P->rep.options[0] && !P->rep.coll[0] && d->ndev == 0 && !P->L.named &&
      d->nrows == 0 && d->nreports == 0) {
    keep_first_failure(&P->foreign_line, P->foreign, sizeof P->foreign, lineno, p);
    return;
  }
  /* After a report's footer: nccl-tests and rccl-tests free their communicators and buffers before
  ** printing it and check nothing after, so the test printed no failure there. It is a later
  ** test's, appended to the log, that died before printing its head (its device count is checked
  ** before), or another process's: the report's rows are whole, and it is not their failure. */
  if (P->rep.closed && d->nrows > P->rep.first_row) {
    keep_first_failure(&P->later_line, P->later, sizeof P->later, lineno, p);
    return;
  }
  P->rep.failed = 1;
  if (!P->rep.stopped && (P->rep.options[0] || P->rep.coll[0]) && d->nrows == P->rep.first_row) {
    P->rep.stopped = lineno;
    snprintf(P->rep.stop, sizeof P->rep.stop, "\"%.*s\"", (int)strcspn(p, "\r\n"), p);
    P->rep.own_failure = !d->failure[0];
  }
  if (d->failure[0]) return;
  snprintf(d->failure, sizeof d->failure, "%s", p);
  d->failure[strcspn(d->failure, "\r\n")] = 0;
}

/* The test a binary name runs: "./build/all_gather_perf", "C:\\nccl\\all_gather_perf.exe" give
** all_gather; "" for a word that is no such name. */
static void test_of_word(const char *w, size_t n, char *out, size_t size) {
  const char *base = w;
  for (const char *c = w; c < w + n; c++)
    if (*c == '/' || *c == '\\') base = c + 1;
  size_t l = (size_t)(w + n - base);
  if (l > 4 && strncmp(base + l - 4, ".exe", 4) == 0) l -= 4;
  out[0] = 0;
  if (l <= 5 || strncmp(base + l - 5, "_perf", 5) != 0 || l - 5 >= size) return;
  for (size_t i = 0; i < l - 5; i++)
    if (!islower((unsigned char)base[i]) && !isdigit((unsigned char)base[i]) && base[i] != '_') return;
  snprintf(out, size, "%.*s", (int)(l - 5), base);
}

/* The -a a test's binary is given: its options, up to the shell's end of the command. */
static int test_average(const char *after_binary) {
  char options[512];
  snprintf(options, sizeof options, "%.*s", (int)strcspn(after_binary, ";|&"), after_binary);
  return nt_average_from_args(options);
}

/* A line that runs a test, as a log keeps it: the shell's ("user@host:~$ ./build/alltoall_perf"),
** mpirun's or a script's ("Running /nix/store/...-nccl-tests-2.13.6/bin/all_gather_perf"). Before
** 2.13 a report does not name its test; the command line before it does. It names the report
** that has not begun its rows (else the next one); two different tests on such lines name none.
** One after a report's options and before its rows ends that report (the test was killed or
** hung, and what follows is the next test or the same run again). */
static void note_command(parser *P, const char *s, int lineno) {
  char test[32] = "", w[32];
  int average = NT_AVG_UNSTATED;
  for (const char *p = s; *p;) {
    p += strspn(p, " \t\"'`");
    if (!*p) break; /* a line ending in blanks or quotes: stepping one past would leave it */
    const size_t n = strcspn(p, " \t\"'`;|&");
    test_of_word(p, n, w, sizeof w);
    if (w[0]) average = test_average(p + n);
    if (w[0] && test[0] && strcmp(w, test) != 0) snprintf(test, sizeof test, "?");
    else if (w[0] && !test[0]) snprintf(test, sizeof test, "%s", w);
    p += n ? n : 1;
  }
  if (!test[0]) return;
  const int has_rows = P->d->nrows > P->rep.first_row;
  if (!has_rows && P->rep.options[0] && !P->rep.stopped) {
    P->rep.stopped = lineno;
    if (strcmp(test, "?") == 0) snprintf(P->rep.stop, sizeof P->rep.stop, "a command line runs tests after it");
    else snprintf(P->rep.stop, sizeof P->rep.stop, "a command line runs %s_perf after it", test);
  }
  char *into = has_rows || P->rep.stopped ? P->next_run_by : P->rep.run_by;
  if (into[0] && strcmp(into, test) != 0) snprintf(test, sizeof test, "?");
  snprintf(into, sizeof P->next_run_by, "%s", test);
  /* two tests, or one line's tests with their own options: which -a the report ran with is not known */
  *(into == P->next_run_by ? &P->next_average : &P->rep.average) = strcmp(test, "?") == 0 ? NT_AVG_UNSTATED : average;
}

/* A command line after a root shell's bare "# " prompt ("# NCCL_DEBUG=INFO ./build/all_reduce_perf
** -b 8 ...", nccl issue 428), not one of nccl-tests' own '#' lines: its first word sets a variable,
** is a launcher or is a test's binary. */
static int root_prompt(const char *line) {
  static const char *const launchers[] = {"mpirun", "mpiexec", "srun", NULL};
  char word[256], test[32];
  if (!strstr(line, "_perf") || sscanf(line + 1, "%255s", word) != 1) return 0;
  for (int i = 0; launchers[i]; i++)
    if (strcmp(word, launchers[i]) == 0) return 1;
  test_of_word(word, strlen(word), test, sizeof test);
  return strchr(word, '=') != NULL || test[0] != 0;
}

/* A result line begins with two whole numbers, size and count; a message that happens to start
** with a digit ("10-0-1-128: Test NCCL failure", "2 total processes killed") does not. */
static int looks_like_row(const char *s) {
  char a[64], b[64];
  if (sscanf(s, "%63s %63s", a, b) != 2) return 0;
  for (const char *p = a; *p; p++)
    if (!isdigit((unsigned char)*p)) return 0;
  for (const char *p = b; *p; p++)
    if (!isdigit((unsigned char)*p)) return 0;
  return 1;
}

/* A piece of a result line, held back until the next line says whether it goes on. */
static void hold(parser *P, const char *s, size_t n, int lineno) {
  snprintf(P->pending, sizeof P->pending, "%.*s", (int)(n < sizeof P->pending ? n : sizeof P->pending - 1), s);
  P->pending_line = lineno;
}

/* The piece held back, read alone: a whole row where it is one, else left out with a warning. */
static int flush_pending(parser *P) {
  if (!P->pending[0]) return 0;
  char row[MAX_LINE];
  snprintf(row, sizeof row, "%s", P->pending);
  P->pending[0] = 0;
  int rc = read_row(P, row, P->pending_line);
  if (rc != ROW_SHORT) return rc;
  xp_warn("%s:%d: result line cut short, left out", P->d->path, P->pending_line);
  return 0;
}

/* A result line: read, or held back where it is cut short (a killed job, an INFO line). */
static int take_row(parser *P, const char *s, int lineno) {
  char row[MAX_LINE];
  int rc = flush_pending(P);
  if (rc) return rc;
  snprintf(row, sizeof row, "%s", s);
  rc = read_row(P, row, lineno);
  if (rc == ROW_SHORT) hold(P, s, strlen(s), lineno);
  return rc == ROW_SHORT ? 0 : rc;
}

/* A row's rest begins with a figure ("20.03", "N/A"), not a word ("2 total processes killed"
** begins with one too, but goes on with words: read_row then refuses the joined line). */
static int starts_with_number(const char *s) {
  char tok[64];
  if (sscanf(s, "%63s", tok) != 1) return 0;
  return is_number(tok) || is_na(tok);
}

static int count_tokens(const char *s) {
  int n = 0;
  for (const char *p = s; *p;) {
    p += strspn(p, " \t");
    if (!*p) break;
    n++;
    p += strcspn(p, " \t");
  }
  return n;
}

/* A piece that goes on the piece held back ("  20.03  0.05 ..." after an INFO line cut its
** row, perhaps cut again by the next INFO line): joined, and read once the row is as wide as
** its header; narrower, it waits for more (or is read as it is at the next row, comment or end). */
static int continue_row(parser *P, const char *s, size_t n) {
  size_t used = strlen(P->pending);
  snprintf(P->pending + used, sizeof P->pending - used, " %.*s", (int)n, s);
  return count_tokens(P->pending) < P->L.ncols ? 0 : flush_pending(P);
}

/* An INFO line: its host is noted where it begins the line; where the start of a result line
** comes before it, that start is held back for its rest. */
static int info_line(parser *P, const char *s, const char *info, int lineno) {
  const size_t first = strcspn(s, " \t");
  const char *colon = memchr(s, ':', first);
  if (colon) {
    if (colon > s) note_host(P, s, colon);
    return 0;
  }
  if (!P->saw_test || P->gin_rows) return 0;
  const size_t n = row_before_info(P, s, info);
  if (n == 0) return 0;
  if (!looks_like_row(s)) /* the row's middle, cut again: "20.03 0.05 0.09 0<INFO line>" */
    return P->pending[0] && starts_with_number(s) ? continue_row(P, s, n) : 0;
  int rc = flush_pending(P);
  if (rc == 0) hold(P, s, n, lineno);
  return rc;
}

/* Two reports that name no test (before 2.13) are one test run again only where their element
** counts agree; else they are different collectives that nothing in the file tells apart. */
static int check_unnamed_reports(const nt_doc *d) {
  for (int i = 0; i < d->nrows; i++) {
    const nt_row *a = &d->rows[i];
    if (a->coll[0]) continue;
    for (int j = i + 1; j < d->nrows; j++) {
      const nt_row *b = &d->rows[j];
      if (b->coll[0] || b->report == a->report || b->bytes != a->bytes || strcmp(a->dtype, b->dtype) != 0 ||
          (a->run_by[0] && b->run_by[0] && strcmp(a->run_by, b->run_by) != 0)) /* told apart by their commands */
        continue;
      if (b->count != a->count)
        return xp_error_at(XP_EXIT_USAGE, d->path, b->line,
                           "this report and the one at line %d name no collective (nccl-tests before 2.13) and "
                           "count %lld against %lld elements for %lld bytes: two different tests; import them "
                           "from separate files, each with --collective", a->line, (long long)b->count,
                           (long long)a->count, (long long)a->bytes);
    }
  }
  return 0;
}

/* Rows of nccl-tests before 2.13 fail where their error passes the type's bound, unless the
** file's "Out of bounds values" says none did. */
static void judge_old_errors(nt_doc *d) {
  for (int i = 0; i < d->nrows; i++)
    for (int p = 0; p < NT_NPLACE; p++) {
      nt_result *res = &d->rows[i].r[p];
      if (!res->have || isnan(res->max_err) || res->wrong >= 0) continue;
      res->wrong = d->out_of_bounds != 0 && res->max_err > error_bound(d->rows[i].dtype) ? 1 : 0;
    }
}

/* A line of the report printed without its '#': the options line and the footer before 2.0
** ("nThread 1 nGpus 4 ...", " Out of bounds values : 0 OK"), and every line of the report's head
** in a log pasted through Markdown, which takes a leading '#' for a heading (nccl-tests issue 249:
** " Blocking Enabled: ...", "  Rank  0 Group  0 Pid ... NVIDIA A10G"). */
static int bare_comment(const char *s) {
  static const char *const starts[] = {"nThread", "Out of bounds values", "Avg bus bandwidth", "out-of-place",
                                       "in-place", "nccl-tests version ", "rccl-tests version ",
                                       "Collective test starting: ", "Collective test concluded", "Blocking Enabled",
                                       "rccl-tests: Version ", NULL};
  for (int i = 0; starts[i]; i++)
    if (strncmp(s, starts[i], strlen(starts[i])) == 0) return 1;
  return is_header(s) || is_device_line(s);
}

/* What terminals and editors add to a log: a UTF-8 byte-order mark at its start, ANSI colour
** sequences (ESC [ ... letter), tabs where nccl-tests printed spaces. */
static void clean_line(char *line, int first) {
  char *o = line;
  const char *p = line;
  if (first) p += nt_bom(p, strlen(p));
  while (*p) {
    if (p[0] == 0x1b && p[1] == '[') {
      p += 2;
      while (*p && !isalpha((unsigned char)*p)) p++;
      if (*p) p++;
      continue;
    }
    *o++ = *p == '\t' ? ' ' : *p;
    p++;
  }
  *o = 0;
}

/* The line at *i copied into line (MAX_LINE bytes), *i moved past it: where what nccl-tests printed
** starts in it, after the prefixes and blanks tools put before it. */
static const char *next_line(const char *text, size_t len, size_t *i, char *line, int first, char *key) {
  const char *nl = memchr(text + *i, '\n', len - *i);
  const size_t l = nl ? (size_t)(nl - (text + *i)) : len - *i;
  size_t o = 0;
  for (size_t k = 0; k < l && o < MAX_LINE - 1; k++) /* without NULs (nt_parse_text) */
    if (text[*i + k]) line[o++] = text[*i + k];
  line[o] = 0;
  line[strcspn(line, "\r")] = 0;
  *i += l + 1;
  clean_line(line, first);
  const char *s = strip_prefixes(line, key, KEY_LEN);
  while (*s == ' ' || *s == '\t') s++;
  return s;
}

/* Whether s is a Markdown table's row: nccl-tests prints no '|' in its report. A table, with its
** outer pipes or without them ("size | count | ..."), as GitHub accepts both, is told by the
** delimiter row under its header, with a '|' and as many cells (GFM's rule: a command line's
** "| tee" above a script's "-----" is none, nor is nvidia-smi's box of "| GPU  Name ... |" lines
** over "|----+----|" rules), then each row holding a '|' is the table's. */
static int is_table_row(const parser *P, const char *s, const char *text, size_t len, size_t i) {
  if (!strchr(s, '|')) return 0;
  if (P->in_table) return 1;
  char line[MAX_LINE];
  char key[KEY_LEN];
  const char *next = i < len ? next_line(text, len, &i, line, 0, key) : "";
  return nt_markdown_delimiter(next) && strchr(next, '|') && nt_markdown_cells(next) == nt_markdown_cells(s);
}

/* Whether s, a line as nccl-tests printed it, is its report's: its head (version, test, options,
** devices, columns), a row, its footer. */
static int is_report_line(const char *s) {
  if (looks_like_row(s)) return 1;
  const char *p = s + (*s == '#');
  return bare_comment(p + strspn(p, " ")) && !strstr(s, "NCCL INFO ");
}

/* What one label's report lines hold: a whole report has its head (the options line or the column
** header) and rows. */
typedef struct label_use {
  char key[KEY_LEN];
  int first_line, head, rows;
} label_use;

static label_use *label_of(label_use *use, int *n, const char *key, int lineno) {
  for (int i = 0; i < *n; i++)
    if (strcmp(use[i].key, key) == 0) return &use[i];
  if (*n == NT_MAX_JOBS) return NULL; /* past what an import splits */
  label_use *u = &use[(*n)++];
  memset(u, 0, sizeof *u);
  snprintf(u->key, sizeof u->key, "%s", key);
  u->first_line = lineno;
  return u;
}

/*
** The labels (strip_prefixes' key) of the process whose lines hold the report, into key ("" where
** none has any). A launcher labels each process's lines (pdsh and clush with the host, mpirun
** --tag-output, srun --label and torchrun --tee with the rank), and where MPI joins the processes
** only rank 0 prints the report; the others print NCCL's lines. Report lines under a second label
** are a second process's report (a test run on each host, a build without MPI: each its own job):
** where every label's lines are a whole report, head and rows, each is a job, named in d->job_keys
** for the caller to read apart (nt_job_text); where one label's are not (a row a second process
** printed, a report whose lines two processes shared), nothing tells which job they belong to, so
** refused, not merged. Unlabelled lines go with the labelled ones: MPICH labels each piece it
** reads, not each line.
*/
static int find_reporter(nt_doc *d, const char *text, size_t len, char *key) {
  label_use use[NT_MAX_JOBS];
  int lineno = 0, n = 0;
  size_t i = 0;
  key[0] = 0;
  while (i < len) {
    char line[MAX_LINE], k[KEY_LEN];
    const char *s = next_line(text, len, &i, line, lineno == 0, k);
    lineno++;
    if (!k[0] || !is_report_line(s)) continue;
    label_use *u = label_of(use, &n, k, lineno);
    if (!u)
      return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "nccl-tests report lines of more than %d processes: "
                         "import each one's lines as a file of its own", NT_MAX_JOBS);
    const char *p = s + (*s == '#');
    p += strspn(p, " ");
    u->head |= is_options(p) || is_header(p);
    u->rows |= looks_like_row(s);
  }
  if (n == 0) return 0;
  snprintf(key, KEY_LEN, "%s", use[0].key);
  if (n == 1) return 0;
  for (int j = 0; j < n; j++) {
    if (use[j].head && use[j].rows) continue;
    const label_use *here = &use[j ? j : 1], *there = &use[0];
    return xp_error_at(XP_EXIT_USAGE, d->path, here->first_line, "nccl-tests report lines of two processes, "
                       "labelled \"%s\" here and \"%s\" at line %d, and \"%s\"'s are no whole report (its head and "
                       "rows) to import as a job of its own: which report they belong to is not told; import each "
                       "one's lines as a file of its own", here->key, there->key, there->first_line, use[j].key);
  }
  for (int j = 0; j < n; j++) memcpy(d->job_keys[j], use[j].key, sizeof d->job_keys[j]); /* both KEY_LEN */
  d->njob_keys = n;
  return 0;
}

/* Whether a line of another process than the reporter's is read: NCCL's lines and a failure are
** the job's, the rest (a cut row's piece, ssh's warnings) no part of the report. */
static int others_line_read(const char *s) {
  return strstr(s, "NCCL INFO ") || strstr(s, "NCCL WARN ") || failure_in(s);
}

/* A log's NUL bytes are left out of its lines, and said: a node that crashed while writing the file
** leaves its unwritten blocks as zeros, and the job run again appends after them, so the line they
** begin would be lost (a C string ends at its first NUL) and the rerun's head with it. */
static void say_nuls(const nt_doc *d, const char *text, size_t len) {
  const char *nul = memchr(text, 0, len);
  if (!nul) return;
  int lines = 0; /* that hold NULs: each crash (and rerun) leaves a block of its own */
  for (const char *p = nul; p; lines++) {
    const char *nl = memchr(p, '\n', len - (size_t)(p - text));
    p = nl ? memchr(nl, 0, len - (size_t)(nl - text)) : NULL;
  }
  const long line = xp_line_of_offset(text, (size_t)(nul - text));
  if (lines == 1)
    xp_warn("%s:%ld: NUL bytes (zeros where a node that crashed left the file unwritten) left out", d->path, line);
  else
    xp_warn("%s:%ld: NUL bytes (zeros where a node that crashed left the file unwritten) on %d lines, left out "
            "(the first here)", d->path, line, lines);
}

int nt_parse_text(nt_doc *d, const char *text, size_t len) {
  say_nuls(d, text, len);
  char reporter[KEY_LEN];
  int rc = find_reporter(d, text, len, reporter);
  if (rc || d->njob_keys > 1) return rc; /* several processes' reports: the caller reads each apart */
  parser P;
  memset(&P, 0, sizeof P);
  P.d = d;
  begin_report(&P);
  int lineno = 0;
  size_t i = 0;
  while (i < len && rc == 0) {
    char line[MAX_LINE], key[KEY_LEN];
    const char *s = next_line(text, len, &i, line, lineno == 0, key);
    lineno++;
    P.lineno = lineno;
    if (key[0] && strcmp(key, reporter) != 0 && !others_line_read(s)) continue;
    char cells[MAX_LINE];
    const int table_row = is_table_row(&P, s, text, len, i);
    if (table_row) {
      if (!P.table_line) P.table_line = lineno;
      const int header = !P.in_table;
      P.in_table = 1;
      if (!nt_markdown_row(s, header, cells, sizeof cells)) continue;
      s = cells + strspn(cells, " ");
    }
    P.in_table = table_row;
    const char *info = strstr(s, "NCCL INFO ");
    if (!info) info = strstr(s, "NCCL WARN ");
    if (info && xp_nccl_info_line(&d->info, s, strlen(s))) {
      if (strncmp(info, "NCCL INFO ", 10) == 0) note_info_nranks(&P, info);
      P.last_owned = lineno;
      rc = info_line(&P, s, info, lineno);
      continue;
    }
    note_failure(&P, s, lineno);
    if (*s == '#' && root_prompt(s)) {
      note_command(&P, s, lineno);
      continue;
    }
    if (is_gin_header(s)) {
      rc = flush_pending(&P);
      note_gin_header(&P, s, lineno);
      continue;
    }
    if (*s == '#' || bare_comment(s)) {
      rc = flush_pending(&P);
      P.gin_rows = 0; /* a report's head: what follows is no GIN table's */
      const int was_closed = P.rep.closed;
      read_comment(&P, s);
      if (!was_closed) P.last_owned = lineno; /* past a footer, a '#' line is the next job's */
      /* Result lines count once the report has begun: its test name (newer versions), its
      ** options line or its column header (all versions). */
      P.saw_test |= P.rep.coll[0] != 0 || P.rep.options[0] != 0 || P.L.named || strstr(s, " size ") != NULL;
      continue;
    }
    if (!looks_like_row(s) && strstr(s, "_perf")) note_command(&P, s, lineno);
    if (!P.saw_test || P.gin_rows || !(isdigit((unsigned char)*s) || *s == '-' || *s == 'N')) continue;
    if (looks_like_row(s)) rc = take_row(&P, s, lineno), P.last_owned = lineno;
    else if (P.pending[0] && starts_with_number(s)) rc = continue_row(&P, s, strlen(s));
  }
  if (rc == 0) rc = flush_pending(&P);
  if (rc) return rc;
  keep_carried(&P);
  end_report(&P);
  /* Unlabelled, two processes' rows cannot be told apart: pooled, each case's samples would be two
  ** jobs' (each process alone on its GPUs), the report's rows neither's whole sweep. */
  if (P.per_process_line && d->nrows > 0)
    return xp_error_at(XP_EXIT_USAGE, d->path, P.per_process_line, "the report's head again (%s): each process "
                       "printed its own report (a build without MPI under mpirun: each a job of its own), their "
                       "lines mixed without labels, so which row is whose is not told; label them (mpirun "
                       "--tag-output: each job is then a run) or write each process's output to a file of its own",
                       P.per_process);
  if (P.other_hosts_line) { /* another job from its first line: the caller reads each apart (nt_job_text) */
    d->next_job_line = P.other_hosts_begin;
    return 0;
  }
  if (d->nrows == 0 && P.rep.stopped) /* the test failed before any result: say so, not "no results" */
    return xp_error_at(XP_EXIT_USAGE, d->path, P.rep.stopped, "the test ended before its first result line (%s): "
                       "no results to import", P.rep.stop);
  /* A failure above a head with no rows after it: with no report to be another run's, it is this
  ** test's (another process printed it before rank 0's head reached the log) */
  if (d->nrows == 0 && P.foreign_line && P.saw_test)
    return xp_error_at(XP_EXIT_USAGE, d->path, P.foreign_line, "the test ended before its first result line "
                       "(\"%s\"): no results to import", P.foreign);
  char gin[256];
  gin_what(&P, gin, sizeof gin);
  if (d->nrows == 0 && P.gin_line)
    return xp_error_at(XP_EXIT_USAGE, d->path, P.gin_line, "%s, not a collective's report: xp imports a "
                       "collective's time and bus bandwidth", gin);
  if (P.gin_line) xp_warn("%s:%d: %s left out: not a collective's report", d->path, P.gin_line, gin);
  if (P.foreign_line && d->nrows > 0)
    xp_warn("%s:%d: \"%s\" comes before the report's head: another run's failure, not recorded as this one's",
            d->path, P.foreign_line, P.foreign);
  if (P.later_line)
    xp_warn("%s:%d: \"%s\" comes after a report's footer, past which a test prints nothing: a later test's "
            "that failed before printing its head, or another process's; not recorded as the report's failure",
            d->path, P.later_line, P.later);
  if (d->nrows == 0 && P.table_line)
    return xp_error_at(XP_EXIT_USAGE, d->path, P.table_line, "no nccl-tests results found: a Markdown table "
                       "without nccl-tests' columns (xp reads one headed \"| size | count | type | redop | root | time | algbw | busbw | #wrong "
                       "|\", as many as the report printed, or the text nccl-tests printed)");
  if (d->nrows == 0)
    return xp_error_at(XP_EXIT_USAGE, d->path, 0, "no nccl-tests results found (no \"# nThread\" or column "
                       "header followed by result lines)");
  judge_old_errors(d);
  return check_unnamed_reports(d);
}

/* Whether key is one of the jobs' labels. */
static int a_job_key(const nt_doc *whole, const char *key) {
  for (int j = 0; j < whole->njob_keys; j++)
    if (strcmp(whole->job_keys[j], key) == 0) return 1;
  return 0;
}

char *nt_job_text(const nt_doc *whole, const char *text, size_t len, const nt_job *job, size_t *out_len,
                  int *left_out) {
  char *out = xp_xmalloc(len + 1);
  size_t i = 0, o = 0;
  int lineno = 0;
  *left_out = 0;
  while (i < len) {
    const size_t at = i;
    char line[MAX_LINE], k[KEY_LEN];
    const char *s = next_line(text, len, &i, line, lineno == 0, k);
    lineno++;
    const size_t end = i < len ? i : len; /* past the line's '\n', where it has one */
    const int in_range = lineno >= job->from && (job->to <= 0 || lineno < job->to);
    if (in_range && (!job->key[0] || strcmp(k, job->key) == 0)) {
      memcpy(out + o, text + at, end - at);
      o += end - at;
      continue;
    }
    /* another job's line, or one no job's label names (NCCL's lines of a process that printed no
    ** report, unlabelled ones): blank, so that every line keeps its number in the file */
    if (in_range && job->key[0] && !a_job_key(whole, k) && others_line_read(s)) ++*left_out;
    if (end > at && text[end - 1] == '\n') out[o++] = '\n';
  }
  out[o] = 0;
  *out_len = o;
  return out;
}
