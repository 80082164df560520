/*
** nccl-tests' text report. Comment lines (#) carry the version, the test, its options, the
** devices and the column header; result lines are whitespace-separated columns. The column
** header decides what each column is, because options change them (-C prints cputime, -I adds
** i_min i_max i_p99 i_cv%, -S a timestamp, versions before 2.13 print "error" for "#wrong").
** Lines with "NCCL INFO"/"NCCL WARN" are NCCL's own and go to the INFO parser.
*/
#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nccl_tests.h"
#include "xp.h"

#define MAX_COLS 48

typedef struct layout {
  int ncols;
  char name[MAX_COLS][16];
  int place[MAX_COLS];   /* NT_OUT / NT_IN for result columns, -1 for identity columns */
  int group_place[2];    /* which placement the first and second result groups are */
} layout;

static void default_layout(layout *L) {
  static const char *const cols[] = {"size", "count", "type", "redop", "root", "time", "algbw",
                                     "busbw", "#wrong", "time", "algbw", "busbw", "#wrong"};
  L->ncols = 13;
  for (int i = 0; i < 13; i++) {
    snprintf(L->name[i], sizeof L->name[i], "%s", cols[i]);
    L->place[i] = i < 5 ? -1 : i < 9 ? NT_OUT : NT_IN;
  }
}

static int is_time_col(const char *c) { return strcmp(c, "time") == 0 || strcmp(c, "cputime") == 0; }

/* "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ..." */
static void read_header(layout *L, const char *line) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", line + 1);
  int n = 0, group = -1;
  for (char *save = NULL, *t = strtok_r(buf, " \t\r\n", &save); t && n < MAX_COLS;
       t = strtok_r(NULL, " \t\r\n", &save)) {
    if (is_time_col(t)) group++;
    snprintf(L->name[n], sizeof L->name[n], "%s", t);
    L->place[n] = group < 0 ? -1 : group < 2 ? L->group_place[group] : -1;
    n++;
  }
  L->ncols = n;
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

/* A whole-number column (size, count, root, #wrong) within [lo, hi]; NaN and values past either
** end are errors, never cast. */
static int whole(const nt_doc *d, int line, const char *col, const char *tok, double lo, double hi, int64_t *out) {
  double v;
  if (number(d, line, col, tok, &v)) return -1;
  if (!(v >= lo && v <= hi)) {
    xp_error_at(XP_EXIT_USAGE, d->path, line, "column %s: %s is out of range", col, tok);
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

/*
** Which header column each token of a result line is (val[c], NULL where the line has nothing).
** A line as wide as its header, or wider (-S prints its timestamp as two tokens), maps one to
** one. A narrower one has blanks: nccl-tests before 2.13 leave redop blank for collectives
** without one ("  1048576  16384  float   571.5 ..."), and ports print nothing for a result
** group they did not run (MSCCL++ leaves in-place blank). The identity columns are then read
** left to right, redop only where the token is a word and root only where more tokens remain
** than result columns; the tokens left fill the last result groups when they are exactly as
** many (a blank leading group), else the result columns from the left (a line cut short).
*/
static void align_row(const layout *L, char *const *tok, int n, const char *val[MAX_COLS]) {
  for (int c = 0; c < L->ncols; c++) val[c] = NULL;
  if (n >= L->ncols) {
    for (int c = 0; c < L->ncols; c++) val[c] = tok[c];
    return;
  }
  int nid = 0;
  while (nid < L->ncols && !is_time_col(L->name[nid])) nid++;
  const int nres = L->ncols - nid;
  int k = 0;
  for (int c = 0; c < nid && k < n; c++) {
    const char *name = L->name[c];
    if (strcmp(name, "redop") == 0 && is_number(tok[k])) continue;
    if (strcmp(name, "root") == 0 && n - k <= nres) continue;
    val[c] = tok[k++];
  }
  /* the tokens left fill whole result groups from the right, else the columns from the left */
  const int m = n - k < nres ? n - k : nres;
  int first = nid;
  for (int c = L->ncols - 1; c >= nid; c--)
    if (is_time_col(L->name[c]) && L->ncols - c == m) first = c;
  for (int t = 0; t < m; t++) val[first + t] = tok[k + t];
}

static int read_row(nt_doc *d, const layout *L, char *line, int lineno) {
  char *tok[MAX_COLS + 4];
  const char *val[MAX_COLS];
  int n = 0;
  for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t && n < MAX_COLS + 4;
       t = strtok_r(NULL, " \t\r\n", &save))
    tok[n++] = t;
  if (n < 4) {
    return xp_error_at(XP_EXIT_USAGE, d->path, lineno,
                       "a result line needs at least size, count, type and a time; found %d column%s", n,
                       n == 1 ? "" : "s");
  }
  align_row(L, tok, n, val);
  nt_row *r = nt_doc_add_row(d);
  r->line = lineno;
  r->root = -1;
  for (int c = 0; c < L->ncols; c++) {
    const char *name = L->name[c], *v = val[c];
    double x;
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
    if (is_time_col(name)) {
      if (number(d, lineno, name, v, &x)) return XP_EXIT_USAGE;
      res->have = 1;
      res->time_us = x;
      res->cputime = name[0] == 'c';
      res->wrong = -1;
    } else if (strcmp(name, "algbw") == 0 || strcmp(name, "busbw") == 0) {
      if (number(d, lineno, name, v, &x)) return XP_EXIT_USAGE;
      if (name[0] == 'a') res->algbw = x;
      else res->busbw = x;
    } else if (strcmp(name, "#wrong") == 0) {
      if (whole(d, lineno, name, v, 0, 9e18, &res->wrong)) return XP_EXIT_USAGE;
    }
  }
  if (r->bytes <= 0) return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "no message size on this line");
  if (!r->r[NT_OUT].have && !r->r[NT_IN].have)
    return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "no time on this line (every time column is N/A or blank)");
  snprintf(r->coll, sizeof r->coll, "%s", d->coll);
  r->graph = d->graph;
  r->iters = d->iters;
  r->agg = d->agg;
  return 0;
}

/* A launcher's label before each line of output: Open MPI's --tag-output ("[1,0]<stdout>:")
** or Slurm's srun --label ("0: "). Returns where the line itself starts. */
static const char *skip_launcher_label(const char *s) {
  const char *p = s;
  if (*p == '[') {
    p++;
    while (isdigit((unsigned char)*p) || *p == ',') p++;
    if (*p == ']' && (strncmp(p + 1, "<stdout>:", 9) == 0 || strncmp(p + 1, "<stderr>:", 9) == 0)) return p + 10;
    return s;
  }
  while (*p == ' ') p++;
  const char *digits = p;
  while (isdigit((unsigned char)*p)) p++;
  if (p > digits && p[0] == ':' && p[1] == ' ') return p + 2;
  return s;
}

static int int_after(const char *line, const char *key, int64_t *out) {
  const char *p = strstr(line, key);
  if (!p) return -1;
  *out = strtoll(p + strlen(key), NULL, 10);
  return 0;
}

/* "# nThread 1 nGpus 2 minBytes 8 maxBytes 268435456 step: 2(factor) warmup iters: 1 iters: 20
**  agg iters: 1 validation: 1 graph: 0 unalign: 0" */
static void read_options(nt_doc *d, const char *line) {
  int64_t v;
  if (int_after(line, "nThread ", &v) == 0) d->nthreads = (int)v;
  if (int_after(line, "nGpus ", &v) == 0) d->ngpus = (int)v;
  if (int_after(line, "minBytes ", &v) == 0) d->min_bytes = v;
  if (int_after(line, "maxBytes ", &v) == 0) d->max_bytes = v;
  const char *w = strstr(line, "warmup iters: ");
  if (w) {
    d->warmup = atoi(w + 14);
    if (int_after(w + 14, " iters: ", &v) == 0) d->iters = (int)v;
  }
  if (int_after(line, "agg iters: ", &v) == 0) d->agg = (int)v;
  if (int_after(line, "validation: ", &v) == 0) d->validation = (int)v;
  if (int_after(line, "graph: ", &v) == 0) d->graph = (int)v;
  if (int_after(line, "unalign: ", &v) == 0) d->unalign = (int)v;
}

/* "#  Rank  0 Group  0 Pid   1351 on         vm device  0 [0000:00:06] NVIDIA H200"
** (older: no Group; "[0x18]"). */
static void read_device(nt_doc *d, const char *line) {
  if (d->ndev == (int)(sizeof d->dev / sizeof d->dev[0])) return;
  nt_device *v = &d->dev[d->ndev];
  int group, pid, n;
  memset(v, 0, sizeof *v);
  n = sscanf(line, "# Rank %d Group %d Pid %d on %63s device %d [%31[^]]] %95[^\r\n]", &v->rank, &group,
             &pid, v->host, &v->device, v->busid, v->name);
  if (n < 5)
    n = sscanf(line, "# Rank %d Pid %d on %63s device %d [%31[^]]] %95[^\r\n]", &v->rank, &pid, v->host,
               &v->device, v->busid, v->name) + 1;
  if (n >= 5) d->ndev++;
}

static void read_comment(nt_doc *d, layout *L, const char *line) {
  const char *p;
  if ((p = strstr(line, "nccl-tests version ")) != NULL) {
    sscanf(p + 19, "%31s", d->tests_version);
    if ((p = strstr(line, "nccl-headers=")) != NULL) d->nccl_headers = atoi(p + 13);
    if ((p = strstr(line, "nccl-library=")) != NULL) d->nccl_library = atoi(p + 13);
  } else if ((p = strstr(line, "Collective test starting: ")) != NULL) {
    char test[64] = "";
    sscanf(p + 26, "%63s", test);
    nt_coll_from_test(test, d->coll, sizeof d->coll);
  } else if (strstr(line, "nThread ")) {
    read_options(d, line);
  } else if (strstr(line, " Rank ") && strstr(line, " device ")) {
    read_device(d, line);
  } else if (strstr(line, "out-of-place") || strstr(line, "in-place")) {
    read_group_labels(L, line);
  } else if (strstr(line, " size ") && strstr(line, " count ") &&
             (strstr(line, " time ") || strstr(line, " cputime "))) {
    read_header(L, line);
  } else if ((p = strstr(line, "Out of bounds values : ")) != NULL) {
    d->out_of_bounds = strtoll(p + 23, NULL, 10);
  } else if ((p = strstr(line, "Avg bus bandwidth    : ")) != NULL) {
    d->avg_busbw = strtod(p + 23, NULL);
  } else if (strstr(line, "# error: ")) {
    d->errors++;
  }
}

int nt_parse_text(nt_doc *d, const char *text, size_t len) {
  layout L;
  memset(&L, 0, sizeof L);
  L.group_place[0] = NT_OUT;
  L.group_place[1] = NT_IN;
  default_layout(&L);
  int lineno = 0, saw_test = 0;
  size_t i = 0;
  while (i < len) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
    char line[1024];
    snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line - 1 ? l : sizeof line - 1), text + i);
    i += l + 1;
    lineno++;
    if (xp_nccl_info_line(&d->info, line, strlen(line))) continue;
    const char *s = skip_launcher_label(line);
    while (*s == ' ' || *s == '\t') s++;
    if (*s == '#') {
      read_comment(d, &L, s);
      /* Result lines count once the report has begun: its test name (newer versions), its
      ** options line or its column header (all versions). */
      saw_test |= d->coll[0] != 0 || d->nthreads > 0 || strstr(s, " size ") != NULL;
      continue;
    }
    if (!isdigit((unsigned char)*s) || !saw_test) continue;
    char row[1024];
    snprintf(row, sizeof row, "%s", s);
    if (read_row(d, &L, row, lineno)) return XP_EXIT_USAGE;
  }
  if (d->nrows == 0)
    return xp_error_at(XP_EXIT_USAGE, d->path, 0, "no nccl-tests results found (no \"# nThread\" or column "
                       "header followed by result lines)");
  return 0;
}
