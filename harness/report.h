/*
** xp report: one self-contained HTML page of charts drawn from the database. The charts are
** SVG written here, in C, so that the page needs no script library and no network; a short
** inline script only checks, once the page is laid out, that every chart really drew.
**
**   report_svg.c     text buffer, escaping, scales and ticks, the two chart shapes
**                    (stacked bars; points and lines on linear, log or time axes)
**   report_charts.c  the queries behind each chart
**   report_assets.c  the page's CSS and script
**   cmd_report.c     the command: options, page skeleton, atomic write
*/
#ifndef XP_REPORT_H
#define XP_REPORT_H
#include <sqlite3.h>
#include <stddef.h>
#include "table.h"

/* ---- text ---- */

typedef struct xp_buf {
  char *s;
  size_t n, cap;
} xp_buf;
void xb_puts(xp_buf *b, const char *s);
void xb_printf(xp_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Text for HTML or SVG content and attribute values: & < > " ' escaped, and each byte an XML
** parser refuses (not UTF-8, a control character but tab, newline and CR) written as U+FFFD. */
void xb_escape(xp_buf *b, const char *s);
void xb_free(xp_buf *b);

/* ---- charts ---- */

enum rp_scale { RP_LINEAR, RP_LOG10, RP_LOG2, RP_LOG2_BYTES, RP_TIME };

typedef struct rp_axis {
  enum rp_scale scale;
  const char *label;
  double lo, hi; /* data range; the renderer widens it to nice ticks */
  int zero;      /* linear axis: include 0 */
} rp_axis;

typedef struct rp_point {
  double x, y;
  char *tip; /* tooltip text, owned */
} rp_point;

typedef struct rp_series {
  char *name;     /* legend text, owned */
  const char *color;
  int lines;      /* join the points (sorted by x) */
  int dashed;     /* reference lines (rooflines): no markers, dashed */
  rp_point *pts;
  size_t n, cap;
} rp_series;

typedef struct rp_xy {
  rp_axis x, y;
  rp_series *series;
  size_t nseries;
  xp_strtab dropped; /* names of series left out past the chart's limit (report_charts.c) */
} rp_xy;

rp_series *rp_xy_series(rp_xy *c, const char *name, const char *color);
/* Whether the chart's axes can place the point: finite, and above 0 on a log axis. A point
** they cannot is never drawn; the chart counts it and says so rather than add it. */
int rp_xy_holds(const rp_xy *c, double x, double y);
void rp_series_add(rp_series *s, double x, double y, char *tip);
/* The SVG of the chart (marks carry class "mark" so the page's check can count them). */
void rp_xy_svg(xp_buf *out, rp_xy *c);
void rp_xy_free(rp_xy *c);

typedef struct rp_bar_row {
  char *label;   /* owned */
  char *detail;  /* second line (runs, kernels), owned, may be NULL */
  double *share; /* per category, fractions of the row's total */
} rp_bar_row;

typedef struct rp_bars {
  char **categories; /* owned */
  size_t ncat;
  rp_bar_row *rows;
  size_t nrows;
} rp_bars;

size_t rp_bars_category(rp_bars *b, const char *name); /* index, added when new */
rp_bar_row *rp_bars_row(rp_bars *b, const char *label, const char *detail);
/* Category cat left out where no row has a share of it (its legend entry too): 1 if kept. */
int rp_bars_drop_empty(rp_bars *b, size_t cat);
void rp_bars_svg(xp_buf *out, const rp_bars *b);
void rp_bars_free(rp_bars *b);

/* A stable colour for a category name (kernel categories keep theirs across charts). */
const char *rp_category_color(const char *name);
/* The i-th colour of the series palette. */
const char *rp_palette(size_t i);

/* ---- the page ---- */

/* What the page's charts read once and share: the two trace charts draw from one statement
** (the trace runs are the page's costliest reading), the bars' rows first, then the line's. */
typedef struct rp_shared {
  sqlite3_stmt *trace; /* NULL until a trace chart prepares it; build_page finalizes it */
  int step;            /* its last sqlite3_step */
} rp_shared;

/* One chart of the page: title, subtitle, the SVG, or why there is none. */
typedef struct rp_section {
  const char *id;
  const char *title;
  xp_buf note;  /* subtitle: what is plotted, from which runs */
  xp_buf svg;   /* empty: no data */
  xp_buf empty; /* what to run to get data, when svg is empty */
  rp_shared *shared;
} rp_section;

typedef int (*rp_chart_fn)(sqlite3 *db, rp_section *s);
typedef struct rp_chart {
  const char *id, *title;
  rp_chart_fn build;
} rp_chart;
extern const rp_chart rp_charts[]; /* NULL-terminated by id */

extern const char rp_css[];
extern const char rp_error_script[]; /* first in <head>: records script errors */
extern const char rp_script[];       /* last in <body>: checks that the charts drew */

/* Small helpers for the chart queries. */
int rp_table_exists(sqlite3 *db, const char *name);
#endif
