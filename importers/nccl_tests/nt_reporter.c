/*
** rccl-tests' result file: -x FILE [-Z csv|json] (since ROCm/rccl-tests PR 93, 2024-11; named
** --rccl_output_file, -X, since its sync with nccl-tests 2.17.9). The Reporter class of its
** src/common.cu writes one record per result, out-of-place and in-place apart, as CSV:
**
**   numCycle,collective,gpus,size,type,redop,inplace,time,algbw,busbw,#wrong
**   0,"AllReduce",8,1048576,"float","sum",0,76.260000,13.750000,25.780000,"0"
**
** or as JSON (the default), a list of {"numCycle":0, "name":"AllReduce", "gpus":8, "size":1048576,
** "type":"float", "redop":"sum", "inPlace":0, "time":76.260000, "algBw":..., "busBw":...,
** "wrong":"0"}. An MPI build writes nodes, ranks, ranksPerNode, gpusPerRank for gpus: ranks is
** every process, ranksPerNode the processes of the communicator (nccl-tests' ncclProcs, not per
** node), gpusPerRank nThread x nGpus. Strings are quoted, numbers as std::to_string prints them
** (six decimals), the wrong count "N/A" where nothing was checked. Before PR 140 (2025-07) CSV
** fields were apart by ", ", an MPI build's CSV header left "nodes" out while its lines had it
** (after the collective), and JSON was one object a line with no list around them. nccl-tests
** itself writes no CSV (its -J JSON is nt_json.c's).
*/
#include <cjson/cJSON.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nccl_tests.h"
#include "spec.h"
#include "xp.h"

#define MAX_FIELDS 32

enum col { C_OTHER, C_COLL, C_NODES, C_RANKS, C_PROCS, C_GPUS_PER, C_GPUS, C_SIZE, C_TYPE, C_REDOP, C_INPLACE,
           C_TIME, C_ALGBW, C_BUSBW, C_WRONG };

/* The fields of a record, by name: a CSV header, or a JSON object's keys. */
typedef struct header {
  int n;
  enum col col[MAX_FIELDS];
  char name[MAX_FIELDS][24];
  int nodes_missing;     /* CSV before PR 140: an MPI build's lines hold "nodes" its header lacks */
} header;

static enum col column(const char *name) {
  static const struct {
    const char *name;
    enum col col;
  } known[] = {{"collective", C_COLL}, {"name", C_COLL},        {"nodes", C_NODES},         {"ranks", C_RANKS},
               {"ranksPerNode", C_PROCS}, {"gpusPerRank", C_GPUS_PER}, {"gpus", C_GPUS},   {"size", C_SIZE},
               {"type", C_TYPE},       {"redop", C_REDOP},      {"inplace", C_INPLACE},      {"time", C_TIME},
               {"algbw", C_ALGBW},     {"busbw", C_BUSBW},      {"#wrong", C_WRONG},         {"wrong", C_WRONG}};
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcasecmp(name, known[i].name) == 0) return known[i].col;
  return C_OTHER; /* numCycle (each cycle is a sample), and what a fork adds */
}

static void set_header(header *h, const char *const *names, int n) {
  int ranks = 0, nodes = 0;
  h->n = n;
  for (int i = 0; i < n; i++) {
    h->col[i] = column(names[i]);
    snprintf(h->name[i], sizeof h->name[i], "%s", names[i]);
    ranks |= h->col[i] == C_RANKS, nodes |= h->col[i] == C_NODES;
  }
  h->nodes_missing = ranks && !nodes;
}

/* Whether the names are the Reporter's: a size, a time and a busbw among them. */
static int names_results(const char *const *names, int n) {
  int size = 0, time = 0, busbw = 0;
  for (int i = 0; i < n; i++) {
    const enum col c = column(names[i]);
    size |= c == C_SIZE, time |= c == C_TIME, busbw |= c == C_BUSBW;
  }
  return size && time && busbw;
}

/* ---- one record ---- */

static int number(const nt_doc *d, int at, const char *col, const char *v, double *out) {
  char *end;
  *out = strtod(v, &end);
  if (end == v || *end || !(*out >= 0) || !isfinite(*out))
    return xp_error_at(XP_EXIT_USAGE, d->path, at, "%s: expected a number not below 0, got \"%s\"", col, v);
  return 0;
}

/* A bandwidth std::to_string wrote as "nan", "-nan" or "inf" (a time of 0): no figure (NAN), as in
** the text and -J forms; anything else as number. */
static int bandwidth(const nt_doc *d, int at, const char *col, const char *v, double *out) {
  char *end;
  const double x = strtod(v, &end);
  if (end != v && !*end && (isnan(x) || x == INFINITY)) {
    *out = NAN;
    return 0;
  }
  return number(d, at, col, v, out);
}

static int whole(const nt_doc *d, int at, const char *col, const char *v, double hi, int64_t *out) {
  double x;
  if (number(d, at, col, v, &x)) return -1;
  if (x > hi || x != floor(x))
    return xp_error_at(XP_EXIT_USAGE, d->path, at, "%s: %s is not a whole number in range", col, v);
  *out = (int64_t)x;
  return 0;
}

/* The communicator's ranks a record states: gpus (one process), else ranksPerNode x gpusPerRank. */
typedef struct ranks {
  int64_t gpus, procs, per_proc;
} ranks;

static int stated_ranks(const ranks *r) {
  if (r->gpus > 0) return xp_saturate_int((double)r->gpus);
  if (r->procs > 0 && r->per_proc > 0) return xp_saturate_int((double)r->procs * (double)r->per_proc);
  return 0;
}

/* The identity of a record (collective, size, type, redop, placement, ranks) into r; its place. */
static int read_identity(nt_doc *d, const header *h, char *const *v, int at, nt_row *r, int *place, ranks *rk) {
  for (int i = 0; i < h->n; i++) {
    const char *name = h->name[i];
    int64_t w;
    switch (h->col[i]) {
    case C_COLL: {
      char lower[64];
      size_t k = 0;
      for (; v[i][k] && k + 1 < sizeof lower; k++) lower[k] = (char)tolower((unsigned char)v[i][k]);
      lower[k] = 0;
      nt_coll_from_test(lower, r->coll, sizeof r->coll); /* "AllReduce": allreduce, "SendRecv": sendrecv */
      break;
    }
    case C_SIZE: if (whole(d, at, name, v[i], 9e18, &r->bytes)) return XP_EXIT_USAGE; break;
    case C_TYPE: nt_dtype_from_test(v[i], r->dtype, sizeof r->dtype); break;
    case C_REDOP: snprintf(r->redop, sizeof r->redop, "%s", v[i]); break;
    case C_INPLACE:
      if (whole(d, at, name, v[i], 1, &w)) return XP_EXIT_USAGE;
      *place = w ? NT_IN : NT_OUT;
      break;
    case C_GPUS: if (whole(d, at, name, v[i], INT_MAX, &rk->gpus)) return XP_EXIT_USAGE; break;
    case C_PROCS: if (whole(d, at, name, v[i], INT_MAX, &rk->procs)) return XP_EXIT_USAGE; break;
    case C_GPUS_PER: if (whole(d, at, name, v[i], INT_MAX, &rk->per_proc)) return XP_EXIT_USAGE; break;
    default: break;
    }
  }
  return 0;
}

static int read_figures(nt_doc *d, const header *h, char *const *v, int at, nt_result *res) {
  for (int i = 0; i < h->n; i++) {
    const char *name = h->name[i];
    switch (h->col[i]) {
    case C_TIME:
      if (number(d, at, name, v[i], &res->time_us)) return XP_EXIT_USAGE;
      res->have = 1;
      break;
    case C_ALGBW: if (bandwidth(d, at, name, v[i], &res->algbw)) return XP_EXIT_USAGE; break;
    case C_BUSBW: if (bandwidth(d, at, name, v[i], &res->busbw)) return XP_EXIT_USAGE; break;
    case C_WRONG:
      if (strcmp(v[i], "N/A") != 0 && whole(d, at, name, v[i], 9e18, &res->wrong)) return XP_EXIT_USAGE;
      break;
    default: break;
    }
  }
  return 0;
}

/* A record, its values in the header's order, as a row of one placement; *stated gets the ranks
** it states (-1 where records disagree). at: its line (CSV) or its index (JSON). */
static int read_record(nt_doc *d, const header *h, char *const *v, int at, int *stated) {
  nt_row *r = nt_doc_add_row(d);
  int place = NT_OUT;
  ranks rk = {0, 0, 0};
  r->line = at;
  r->root = -1;
  r->bytes = -1;
  r->count = -1; /* not written: its relation to size is the collective's */
  r->report = d->nev;
  int rc = read_identity(d, h, v, at, r, &place, &rk);
  if (rc == 0) rc = read_figures(d, h, v, at, &r->r[place]);
  if (rc) return rc;
  if (r->bytes < 0) return xp_error_at(XP_EXIT_USAGE, d->path, at, "no message size");
  if (!r->r[place].have) return xp_error_at(XP_EXIT_USAGE, d->path, at, "no time");
  if (!r->dtype[0]) snprintf(r->dtype, sizeof r->dtype, "unknown");
  const int n = stated_ranks(&rk);
  if (n > 0) *stated = *stated == 0 || *stated == n ? n : -1;
  return 0;
}

/* One report per header (a file may hold several runs' records): its records' ranks its evidence. */
static void end_report(nt_doc *d, int stated) {
  nt_rank_evidence e = {0, 0, 0, 0, stated > 0 ? stated : 0};
  const int n = nt_add_rank_evidence(d, &e);
  for (int i = 0; i < d->nrows; i++)
    if (d->rows[i].report == d->nev - 1) d->rows[i].nranks = n;
  if (d->nev == 1) d->nranks = n;
  d->nreports = d->nev;
}

/* ---- CSV ---- */

/* Splits line at commas into trimmed fields without their quotes; the count, -1 past MAX_FIELDS. */
static int fields(char *line, char **f) {
  for (int n = 0;; n++) {
    if (n == MAX_FIELDS) return -1;
    char *comma = strchr(line, ',');
    if (comma) *comma = 0;
    line += strspn(line, " \t");
    char *end = line + strlen(line);
    while (end > line && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) *--end = 0;
    if (end - line >= 2 && *line == '"' && end[-1] == '"') end[-1] = 0, line++;
    f[n] = line;
    if (!comma) return n + 1;
    line = comma + 1;
  }
}

/* A CSV line's fields in its header's order: the same count, or (before PR 140, MPI) one more,
** the nodes value after the collective. */
static int csv_values(const nt_doc *d, const header *h, char **f, int n, int lineno, char **v) {
  if (n != h->n + h->nodes_missing)
    return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "%d fields where the header names %d", n, h->n);
  for (int i = 0, m = 0, skip = h->nodes_missing; m < h->n; i++, m++) {
    v[m] = f[i];
    if (skip && h->col[m] == C_COLL) i++, skip = 0;
  }
  return 0;
}

/* Whether nothing but blanks follows position i: the line before it was the file's last. */
static int at_end(const char *text, size_t len, size_t i) {
  while (i < len && isspace((unsigned char)text[i])) i++;
  return i >= len;
}

static int parse_csv(nt_doc *d, const char *text, size_t len) {
  header h;
  int lineno = 0, stated = 0, rc = 0;
  memset(&h, 0, sizeof h);
  for (size_t i = nt_bom(text, len); i < len && rc == 0;) {
    const char *nl = memchr(text + i, '\n', len - i);
    const size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
    char line[1024], *f[MAX_FIELDS], *v[MAX_FIELDS];
    snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line - 1 ? l : sizeof line - 1), text + i);
    i += l + 1;
    lineno++;
    if (line[strspn(line, " \t\r")] == 0) continue;
    const int n = fields(line, f);
    if (n < 0) return xp_error_at(XP_EXIT_USAGE, d->path, lineno, "more than %d fields", MAX_FIELDS);
    if (names_results((const char *const *)f, n)) {
      if (h.n) end_report(d, stated);
      set_header(&h, (const char *const *)f, n);
      stated = 0;
    } else if (!h.n) {
      rc = xp_error_at(XP_EXIT_USAGE, d->path, lineno, "no rccl-tests CSV header before this line");
    } else if (n < h.n && at_end(text, len, i)) { /* before PR 140 written as results came: a killed job's */
      xp_warn("%s:%d: record cut short, left out", d->path, lineno);
    } else if ((rc = csv_values(d, &h, f, n, lineno, v)) == 0) {
      rc = read_record(d, &h, v, lineno, &stated);
    }
  }
  if (rc == 0) end_report(d, stated);
  return rc;
}

/* ---- JSON ---- */

/* A JSON object's members as a header and values (numbers printed back: read_record reads text). */
static int json_record(nt_doc *d, const cJSON *o, int index, int *stated) {
  const char *names[MAX_FIELDS];
  char *v[MAX_FIELDS], nums[MAX_FIELDS][40];
  header h;
  int n = 0;
  const cJSON *m;
  if (!cJSON_IsObject(o)) return xp_error_at(XP_EXIT_USAGE, d->path, 0, "record %d: not an object", index);
  cJSON_ArrayForEach(m, o) {
    if (n == MAX_FIELDS || !m->string) break;
    names[n] = m->string;
    if (cJSON_IsString(m)) v[n] = m->valuestring;
    else if (cJSON_IsNumber(m)) snprintf(v[n] = nums[n], sizeof nums[n], "%.17g", m->valuedouble);
    else v[n] = (char *)"";
    n++;
  }
  set_header(&h, names, n);
  return read_record(d, &h, v, index, stated);
}

/* Since PR 140: one list of records, text[from, len). A raw control character in a string is
** refused (nt_refuse_control): cJSON keeps it as written, so a file and its CRLF copy would record
** two types or collectives. */
static int json_list(nt_doc *d, const char *text, size_t from, size_t len, int *stated) {
  int rc = 0, index = 0;
  const cJSON *o;
  cJSON *list = cJSON_ParseWithLength(text + from, len - from);
  xp_json_keep_last(list); /* a key given twice: its last value counts, as in json.load */
  if (!cJSON_IsArray(list)) rc = xp_error_at(XP_EXIT_USAGE, d->path, 0, "not valid JSON");
  else rc = nt_refuse_control(d, text, from, len);
  cJSON_ArrayForEach(o, list) {
    if (rc == 0) rc = json_record(d, o, index++, stated);
  }
  cJSON_Delete(list);
  return rc;
}

/* Before: one object a line, written as results came (a killed job's last one may be cut), from
** text[from]; each whole one checked for control characters as json_list's. */
static int json_lines(nt_doc *d, const char *text, size_t from, size_t len, int *stated) {
  int rc = 0, index = 0;
  size_t i = from;
  while (rc == 0 && !at_end(text, len, i)) {
    const char *end = NULL, *nl = memchr(text + i, '\n', len - i);
    cJSON *obj = text[i] == '{' ? cJSON_ParseWithLengthOpts(text + i, len - i, &end, 0) : NULL;
    xp_json_keep_last(obj);
    if (!obj && (!nl || at_end(text, len, (size_t)(nl - text)))) {
      xp_warn("%s: record %d cut short, left out", d->path, index);
      break;
    }
    if (!obj) rc = xp_error_at(XP_EXIT_USAGE, d->path, 0, "record %d: not a JSON object", index);
    else rc = nt_refuse_control(d, text, i, (size_t)(end - text));
    if (rc == 0) rc = json_record(d, obj, index++, stated);
    cJSON_Delete(obj);
    i = end ? (size_t)(end - text) : len;
    while (i < len && (isspace((unsigned char)text[i]) || text[i] == ',')) i++;
  }
  return rc;
}

static int parse_json(nt_doc *d, const char *text, size_t len) {
  int stated = 0;
  size_t i = nt_bom(text, len);
  while (i < len && isspace((unsigned char)text[i])) i++;
  const int list = i < len && text[i] == '[';
  const int rc = list ? json_list(d, text, i, len, &stated) : json_lines(d, text, i, len, &stated);
  if (rc == 0) end_report(d, stated);
  return rc;
}

/* ---- the file ---- */

int nt_reporter_form(const char *text, size_t len) {
  size_t i = nt_bom(text, len);
  while (i < len && isspace((unsigned char)text[i])) i++;
  if (i < len && (text[i] == '[' || text[i] == '{')) { /* nccl-tests' -J names it bus_bw */
    /* in the first record, however it is spaced (a count of bytes read as CRLF another file) */
    const char *close = memchr(text + i, '}', len - i);
    return memmem(text + i, close ? (size_t)(close - (text + i)) : len - i, "\"busBw\"", 7) ? 'j' : 0;
  }
  char line[512], *f[MAX_FIELDS];
  const char *nl = memchr(text + i, '\n', len - i);
  const size_t l = (nl ? (size_t)(nl - text) : len) - i;
  snprintf(line, sizeof line, "%.*s", (int)(l < sizeof line ? l : sizeof line - 1), text + i);
  const int n = strchr(line, ',') ? fields(line, f) : 0;
  return n > 0 && names_results((const char *const *)f, n) ? 'c' : 0;
}

int nt_parse_reporter(nt_doc *d, const char *text, size_t len) {
  const int form = nt_reporter_form(text, len);
  d->precise = 1;
  const int rc = form == 'j' ? parse_json(d, text, len) : parse_csv(d, text, len);
  if (rc) return rc;
  if (d->nrows == 0) return xp_error_at(XP_EXIT_USAGE, d->path, 0, "no results in the file");
  snprintf(d->coll, sizeof d->coll, "%s", d->rows[0].coll);
  return 0;
}
