/*
** The report's charts as SVG text: scales with readable ticks (numbers, byte sizes, dates),
** points and lines, and stacked bars of shares. Written in C rather than drawn by a script
** so that the page is complete as a file: it opens anywhere, offline, and a test can read it.
*/
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "report.h"
#include "xp.h"

/* ---- text ---- */

static void grow(xp_buf *b, size_t extra) {
  if (b->n + extra + 1 <= b->cap) return;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap < b->n + extra + 1) cap *= 2;
  b->s = xp_xrealloc(b->s, cap);
  b->cap = cap;
}

void xb_puts(xp_buf *b, const char *s) {
  size_t n = strlen(s);
  grow(b, n);
  memcpy(b->s + b->n, s, n + 1);
  b->n += n;
}

void xb_printf(xp_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n <= 0) return;
  grow(b, (size_t)n);
  va_start(ap, fmt);
  vsnprintf(b->s + b->n, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)n;
}

/* Besides markup, the bytes an XML parser refuses: an SVG saved from the page, or the page read
** as XHTML, must still parse. A database written by another tool, or an older xp, may hold
** text that is not UTF-8 or that has control characters (a note pasted from a terminal); each
** such byte becomes U+FFFD, as a browser would show it, and tab, newline and CR stay. */
static int xml_char_ok(const unsigned char *p, size_t len) {
  if (len == 1) return *p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r';
  return !(len == 3 && p[0] == 0xEF && p[1] == 0xBF && p[2] >= 0xBE); /* U+FFFE, U+FFFF */
}

static const char *entity(unsigned char c) {
  switch (c) {
  case '&': return "&amp;";
  case '<': return "&lt;";
  case '>': return "&gt;";
  case '"': return "&quot;";
  case '\'': return "&#39;";
  default: return NULL;
  }
}

void xb_escape(xp_buf *b, const char *s) {
  size_t left = s ? strlen(s) : 0;
  for (const unsigned char *p = (const unsigned char *)s; left > 0;) {
    size_t len = xp_utf8_sequence(p, left);
    const char *named = len == 1 ? entity(*p) : NULL;
    if (named) xb_puts(b, named);
    else if (len && xml_char_ok(p, len)) {
      grow(b, len);
      memcpy(b->s + b->n, p, len);
      b->n += len;
      b->s[b->n] = 0;
    } else {
      xb_puts(b, "\xEF\xBF\xBD"); /* U+FFFD */
      len = len ? len : 1;
    }
    p += len;
    left -= len;
  }
}

void xb_free(xp_buf *b) {
  free(b->s);
  memset(b, 0, sizeof *b);
}

/* ---- colours ---- */

static const char *const palette[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
                                      "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

const char *rp_palette(size_t i) { return palette[i % (sizeof palette / sizeof palette[0])]; }

/* Kernel categories (importers/torch_trace/categories.tsv): communication in reds and pinks,
** compute in blues, greens and oranges, memory in browns, the rest grey. */
const char *rp_category_color(const char *name) {
  static const struct { const char *name, *color; } fixed[] = {
      {"allreduce", "#e15759"}, {"allgather", "#ff9da7"}, {"reduce_scatter", "#d37295"},
      {"alltoall", "#b6466a"},  {"sendrecv", "#f1a6c4"},  {"broadcast", "#c76a78"},
      {"communication", "#a0324f"}, {"gemm", "#4e79a7"}, {"attention", "#f28e2b"},
      {"moe", "#59a14f"},       {"norm", "#76b7b2"},      {"activation", "#edc948"},
      {"elementwise", "#b07aa1"}, {"sampling", "#8cd17d"}, {"memcpy", "#9c755f"},  {"memset", "#c4a484"},
      {"other", "#bab0ac"},     {"idle", "#e8e8e8"}};
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
    if (strcmp(fixed[i].name, name) == 0) return fixed[i].color;
  unsigned h = 5381;
  for (const char *p = name; *p; p++) h = h * 33 + (unsigned char)*p;
  return rp_palette(h);
}

/* ---- scales ---- */

/* The plot, then the legend under it, one series a line: names such as "allreduce bf16 eager
** · 8x H200 nvlink · 1a2b3c4d" need the width. */
enum { W = 960, PLOT_L = 76, PLOT_T = 20, PLOT_R = 940, PLOT_B = 320, LEGEND_X = PLOT_L,
       LEGEND_T = PLOT_B + 62, LEGEND_ROW = 18 };

typedef struct scale {
  enum rp_scale kind;
  double lo, hi;   /* in data units, after widening */
  double p0, p1;   /* pixels */
} scale;

typedef struct tick {
  double v;
  char label[32];
} tick;

static double tr(const scale *s, double v) {
  switch (s->kind) {
  case RP_LOG10: return log10(v);
  case RP_LOG2:
  case RP_LOG2_BYTES: return log2(v);
  default: return v;
  }
}

static double to_px(const scale *s, double v) {
  double a = tr(s, s->lo), b = tr(s, s->hi);
  return s->p0 + (tr(s, v) - a) / (b - a) * (s->p1 - s->p0);
}

static int scale_holds(enum rp_scale kind, double v) {
  return isfinite(v) && ((kind != RP_LOG10 && kind != RP_LOG2 && kind != RP_LOG2_BYTES) || v > 0);
}

static int in_domain(const scale *s, double v) { return scale_holds(s->kind, v); }

int rp_xy_holds(const rp_xy *c, double x, double y) { return scale_holds(c->x.scale, x) && scale_holds(c->y.scale, y); }

static void fmt_number(char *out, size_t n, double v) {
  double a = fabs(v);
  if (a >= 1e6 || (a > 0 && a < 1e-3)) snprintf(out, n, "%.0e", v);
  else snprintf(out, n, "%g", v);
}

static void fmt_bytes(char *out, size_t n, double v) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  snprintf(out, n, "%g %s", v, units[u]);
}

/* The smallest of 1, 2, 5 times a power of ten that is at least raw: a step people count in. */
static double nice_step(double raw) {
  const double mag = pow(10, floor(log10(raw))), mult[] = {1, 2, 5, 10};
  for (size_t i = 0; i < 4; i++)
    if (mag * mult[i] >= raw) return mag * mult[i];
  return mag * 10;
}

static size_t linear_ticks(scale *s, int zero, tick *t, size_t max) {
  double lo = s->lo, hi = s->hi;
  if (zero && lo > 0) lo = 0;
  if (zero && hi < 0) hi = 0;
  if (hi <= lo) { /* one value: a span around it, but an axis that starts at 0 keeps 0 its floor
                  ** (a throughput of 0 drawn on a scale down to -1 reads as a negative one) */
    double pad = lo == 0 ? 1 : fabs(lo) * 0.1;
    if (!(zero && lo == 0)) lo -= pad;
    hi += pad;
  }
  double step = nice_step((hi - lo) / 5);
  s->lo = floor(lo / step) * step;
  s->hi = ceil(hi / step) * step;
  size_t n = 0;
  for (double v = s->lo; v <= s->hi + step * 1e-9 && n < max; v += step) {
    t[n].v = fabs(v) < step * 1e-9 ? 0 : v;
    fmt_number(t[n].label, sizeof t[n].label, t[n].v);
    n++;
  }
  return n;
}

static size_t log_ticks(scale *s, double base, int bytes, tick *t, size_t max) {
  double a = floor(log(s->lo) / log(base)), b = ceil(log(s->hi) / log(base));
  if (b <= a) b = a + 1;
  s->lo = pow(base, a);
  s->hi = pow(base, b);
  size_t n = 0;
  int stride = (int)ceil((b - a) / 9);
  for (double e = a; e <= b && n < max; e += stride) {
    t[n].v = pow(base, e);
    if (bytes) fmt_bytes(t[n].label, sizeof t[n].label, t[n].v);
    else fmt_number(t[n].label, sizeof t[n].label, t[n].v);
    n++;
  }
  /* Within one decade, 2 and 5 say more than two lone labels. */
  if (base == 10 && b - a == 1)
    for (int m = 2; m <= 5 && n < max; m += 3) {
      t[n].v = pow(10, a) * m;
      fmt_number(t[n].label, sizeof t[n].label, t[n].v);
      n++;
    }
  /* A little room beyond the outer ticks, so that points on them are not cut by the frame. */
  double pad = (b - a) * 0.03;
  s->lo = pow(base, a - pad);
  s->hi = pow(base, b + pad);
  return n;
}

/* Dates: steps from a minute to a year, then 2, 5, 10, ... years (a span of decades, at one
** year a tick, ran past the ticks the chart holds and its later years went unlabelled), aligned
** to UTC multiples of the step. */
static size_t time_ticks(scale *s, tick *t, size_t max) {
  static const double steps[] = {60, 300, 900, 3600, 6 * 3600, 86400, 7 * 86400, 30 * 86400,
                                 365 * 86400.0};
  const double year = steps[8];
  if (s->hi - s->lo < 120) {
    s->lo -= 3600;
    s->hi += 3600;
  }
  double step = year * nice_step((s->hi - s->lo) / year / 7);
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if ((s->hi - s->lo) / steps[i] <= 7) {
      step = steps[i];
      break;
    }
  double pad = (s->hi - s->lo) * 0.04;
  s->lo -= pad;
  s->hi += pad;
  size_t n = 0;
  for (double v = ceil(s->lo / step) * step; v <= s->hi && n < max; v += step) {
    time_t tt = (time_t)v;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(t[n].label, sizeof t[n].label, step >= 86400 ? "%Y-%m-%d" : "%m-%d %H:%M", &tm);
    t[n++].v = v;
  }
  return n;
}

static size_t make_ticks(scale *s, const rp_axis *a, tick *t, size_t max) {
  switch (a->scale) {
  case RP_LOG10: return log_ticks(s, 10, 0, t, max);
  case RP_LOG2: return log_ticks(s, 2, 0, t, max);
  case RP_LOG2_BYTES: return log_ticks(s, 2, 1, t, max);
  case RP_TIME: return time_ticks(s, t, max);
  default: return linear_ticks(s, a->zero, t, max);
  }
}

/* ---- points and lines ---- */

rp_series *rp_xy_series(rp_xy *c, const char *name, const char *color) {
  c->series = xp_xrealloc(c->series, (c->nseries + 1) * sizeof *c->series);
  rp_series *s = &c->series[c->nseries++];
  memset(s, 0, sizeof *s);
  s->name = xp_strdup(name);
  s->color = color ? color : rp_palette(c->nseries - 1);
  return s;
}

void rp_series_add(rp_series *s, double x, double y, char *tip) {
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    s->pts = xp_xrealloc(s->pts, s->cap * sizeof *s->pts);
  }
  s->pts[s->n++] = (rp_point){x, y, tip};
}

static int cmp_x(const void *a, const void *b) {
  double x = ((const rp_point *)a)->x, y = ((const rp_point *)b)->x;
  return x < y ? -1 : x > y;
}

static void data_range(const rp_xy *c, scale *sx, scale *sy) {
  int first = 1;
  for (size_t i = 0; i < c->nseries; i++)
    for (size_t j = 0; j < c->series[i].n; j++) {
      const rp_point *p = &c->series[i].pts[j];
      if (!in_domain(sx, p->x) || !in_domain(sy, p->y)) continue;
      if (first || p->x < sx->lo) sx->lo = p->x;
      if (first || p->x > sx->hi) sx->hi = p->x;
      if (first || p->y < sy->lo) sy->lo = p->y;
      if (first || p->y > sy->hi) sy->hi = p->y;
      first = 0;
    }
  if (first) sx->lo = sx->hi = sy->lo = sy->hi = 1;
}

static void axes_svg(xp_buf *o, const rp_xy *c, const scale *sx, const tick *tx, size_t nx,
                     const scale *sy, const tick *ty, size_t ny) {
  xb_puts(o, "<g class=\"axes\">");
  for (size_t i = 0; i < ny; i++) {
    double y = to_px(sy, ty[i].v);
    xb_printf(o, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", PLOT_L, PLOT_R, y, y);
    xb_printf(o, "<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\" dy=\"0.32em\">", PLOT_L - 6, y);
    xb_escape(o, ty[i].label);
    xb_puts(o, "</text>");
  }
  for (size_t i = 0; i < nx; i++) {
    double x = to_px(sx, tx[i].v);
    xb_printf(o, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>", x, x, PLOT_T, PLOT_B);
    xb_printf(o, "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", x, PLOT_B + 16);
    xb_escape(o, tx[i].label);
    xb_puts(o, "</text>");
  }
  xb_printf(o, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", PLOT_L, PLOT_T,
            PLOT_R - PLOT_L, PLOT_B - PLOT_T);
  xb_printf(o, "<text class=\"axis-label\" x=\"%d\" y=\"%d\" text-anchor=\"middle\">", (PLOT_L + PLOT_R) / 2, PLOT_B + 40);
  xb_escape(o, c->x.label);
  xb_printf(o, "</text><text class=\"axis-label\" transform=\"translate(16 %d) rotate(-90)\" text-anchor=\"middle\">",
            (PLOT_T + PLOT_B) / 2);
  xb_escape(o, c->y.label);
  xb_puts(o, "</text></g>");
}

static void series_svg(xp_buf *o, rp_series *s, const scale *sx, const scale *sy) {
  qsort(s->pts, s->n, sizeof *s->pts, cmp_x);
  if (s->lines || s->dashed) {
    xb_printf(o, "<polyline class=\"mark line%s\" fill=\"none\" stroke=\"%s\" points=\"",
              s->dashed ? " ref" : "", s->color);
    for (size_t j = 0; j < s->n; j++)
      if (in_domain(sx, s->pts[j].x) && in_domain(sy, s->pts[j].y))
        xb_printf(o, "%.1f,%.1f ", to_px(sx, s->pts[j].x), to_px(sy, s->pts[j].y));
    xb_puts(o, "\"><title>");
    xb_escape(o, s->name);
    xb_puts(o, "</title></polyline>");
  }
  if (s->dashed) return;
  for (size_t j = 0; j < s->n; j++) {
    const rp_point *p = &s->pts[j];
    if (!in_domain(sx, p->x) || !in_domain(sy, p->y)) continue;
    xb_printf(o, "<circle class=\"mark point\" cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>",
              to_px(sx, p->x), to_px(sy, p->y), s->color);
    xb_escape(o, p->tip ? p->tip : s->name);
    xb_puts(o, "</title></circle>");
  }
}

/* Legend names are cut to fit beside the plot; the full name is the tooltip. */
static void legend_item(xp_buf *o, int y, const char *color, int dashed, const char *name) {
  xb_printf(o, "<g class=\"legend-item\"><line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\" "
            "stroke-width=\"3\"%s/><text x=\"%d\" y=\"%d\" dy=\"0.32em\"><title>",
            LEGEND_X, LEGEND_X + 18, y, y, color, dashed ? " stroke-dasharray=\"5 3\"" : "",
            LEGEND_X + 24, y);
  xb_escape(o, name);
  xb_puts(o, "</title>");
  char cut[140];
  size_t n = strlen(name);
  if (n < sizeof cut) xb_escape(o, name);
  else {
    size_t keep = sizeof cut - 5;
    while (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80) keep--; /* whole UTF-8 characters */
    snprintf(cut, sizeof cut, "%.*s...", (int)keep, name);
    xb_escape(o, cut);
  }
  xb_puts(o, "</text></g>");
}

void rp_xy_svg(xp_buf *o, rp_xy *c) {
  scale sx = {c->x.scale, 0, 0, PLOT_L, PLOT_R}, sy = {c->y.scale, 0, 0, PLOT_B, PLOT_T};
  data_range(c, &sx, &sy);
  tick tx[24], ty[24];
  size_t nx = make_ticks(&sx, &c->x, tx, 24), ny = make_ticks(&sy, &c->y, ty, 24);
  int h = LEGEND_T + (int)c->nseries * LEGEND_ROW;
  xb_printf(o, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\">", W, h, W, h);
  axes_svg(o, c, &sx, tx, nx, &sy, ty, ny);
  xb_puts(o, "<g class=\"data\">");
  for (size_t i = 0; i < c->nseries; i++) series_svg(o, &c->series[i], &sx, &sy);
  xb_puts(o, "</g><g class=\"legend\">");
  for (size_t i = 0; i < c->nseries; i++)
    legend_item(o, LEGEND_T + (int)i * LEGEND_ROW, c->series[i].color, c->series[i].dashed, c->series[i].name);
  xb_puts(o, "</g></svg>");
}

void rp_xy_free(rp_xy *c) {
  for (size_t i = 0; i < c->nseries; i++) {
    for (size_t j = 0; j < c->series[i].n; j++) free(c->series[i].pts[j].tip);
    free(c->series[i].pts);
    free(c->series[i].name);
  }
  free(c->series);
  xp_strtab_free(&c->dropped);
  memset(c, 0, sizeof *c);
}

/* ---- stacked bars of shares ---- */

/* Each row: its configuration written above its bar, so long labels need not be cut. */
enum { BAR_X0 = 10, BAR_X1 = 940, BAR_H = 22, ROW_H = 46, LABEL_H = 17, DETAIL_H = 15 };

/* Whether a row's label and its detail fit beside each other above the bar, their widths
** estimated as the legend's are (7 px a byte of the 13 px label, 6 of the 11 px detail): a
** declared configuration with its [engine=... dtype=...] and "latest of 3 runs (...)" does not,
** and the detail then takes a line of its own rather than run past the chart's edge. */
static int row_detail_beside(const rp_bar_row *r) {
  return !r->detail || 7 * strlen(r->label) + 10 + 6 * strlen(r->detail) <= BAR_X1 - BAR_X0;
}

size_t rp_bars_category(rp_bars *b, const char *name) {
  for (size_t i = 0; i < b->ncat; i++)
    if (strcmp(b->categories[i], name) == 0) return i;
  b->categories = xp_xrealloc(b->categories, (b->ncat + 1) * sizeof *b->categories);
  b->categories[b->ncat] = xp_strdup(name);
  for (size_t r = 0; r < b->nrows; r++) {
    b->rows[r].share = xp_xrealloc(b->rows[r].share, (b->ncat + 1) * sizeof(double));
    b->rows[r].share[b->ncat] = 0;
  }
  return b->ncat++;
}

rp_bar_row *rp_bars_row(rp_bars *b, const char *label, const char *detail) {
  b->rows = xp_xrealloc(b->rows, (b->nrows + 1) * sizeof *b->rows);
  rp_bar_row *r = &b->rows[b->nrows++];
  r->label = xp_strdup(label);
  r->detail = detail ? xp_strdup(detail) : NULL;
  r->share = xp_xcalloc(b->ncat ? b->ncat : 1, sizeof(double));
  return r;
}

int rp_bars_drop_empty(rp_bars *b, size_t cat) {
  if (cat >= b->ncat) return 0;
  for (size_t r = 0; r < b->nrows; r++)
    if (b->rows[r].share[cat] > 0) return 1;
  free(b->categories[cat]);
  const size_t after = b->ncat - cat - 1;
  memmove(&b->categories[cat], &b->categories[cat + 1], after * sizeof *b->categories);
  for (size_t r = 0; r < b->nrows; r++) memmove(&b->rows[r].share[cat], &b->rows[r].share[cat + 1], after * sizeof(double));
  b->ncat--;
  return 0;
}

/* Legend across the top, wrapping; returns the height it took. */
static int bars_legend(xp_buf *o, const rp_bars *b) {
  int x = BAR_X0, y = 14;
  for (size_t i = 0; i < b->ncat; i++) {
    int w = 38 + 7 * (int)strlen(b->categories[i]);
    if (x + w > BAR_X1 && x > BAR_X0) {
      x = BAR_X0;
      y += 18;
    }
    xb_printf(o, "<g class=\"legend-item\"><rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>"
              "<text x=\"%d\" y=\"%d\" dy=\"0.32em\">", x, y - 6, rp_category_color(b->categories[i]), x + 16, y);
    xb_escape(o, b->categories[i]);
    xb_puts(o, "</text></g>");
    x += w;
  }
  return y + 16;
}

/* The row at top; returns its height. */
static int bar_row_svg(xp_buf *o, const rp_bars *b, const rp_bar_row *r, int top) {
  const int beside = row_detail_beside(r);
  xb_printf(o, "<text x=\"%d\" y=\"%d\"><tspan class=\"row-label\">", BAR_X0, top + 12);
  xb_escape(o, r->label);
  xb_puts(o, "</tspan>");
  if (r->detail) {
    if (beside) xb_puts(o, "<tspan class=\"row-detail\" dx=\"10\">");
    else xb_printf(o, "<tspan class=\"row-detail\" x=\"%d\" dy=\"%d\">", BAR_X0, DETAIL_H);
    xb_escape(o, r->detail);
    xb_puts(o, "</tspan>");
  }
  xb_puts(o, "</text>");
  int y = top + LABEL_H + (beside ? 0 : DETAIL_H);
  double x = BAR_X0, span = BAR_X1 - BAR_X0;
  for (size_t c = 0; c < b->ncat; c++) {
    double w = r->share[c] * span;
    if (!(w > 0)) continue;
    xb_printf(o, "<rect class=\"mark bar\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\"><title>",
              x, y, w, BAR_H, rp_category_color(b->categories[c]));
    xb_escape(o, r->label);
    xb_puts(o, ": ");
    xb_escape(o, b->categories[c]); /* a category is the user's (xp reclassify --rules) */
    xb_printf(o, " %.1f%%</title></rect>", 100 * r->share[c]);
    if (w >= 38)
      xb_printf(o, "<text class=\"bar-value\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" dy=\"0.32em\">%.0f%%</text>",
                x + w / 2, y + BAR_H / 2, 100 * r->share[c]);
    x += w;
  }
  return ROW_H + (beside ? 0 : DETAIL_H);
}

void rp_bars_svg(xp_buf *o, const rp_bars *b) {
  xp_buf body = {0};
  int top = bars_legend(&body, b) + 6;
  for (size_t r = 0; r < b->nrows; r++) top += bar_row_svg(&body, b, &b->rows[r], top);
  int axis_y = top - (ROW_H - LABEL_H - BAR_H) + 4;
  xb_printf(&body, "<line class=\"frame\" x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\"/>", BAR_X0, BAR_X1,
            axis_y, axis_y);
  for (int q = 0; q <= 4; q++) {
    double x = BAR_X0 + (BAR_X1 - BAR_X0) * q / 4.0;
    xb_printf(&body, "<line class=\"frame\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%d\"/>"
              "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%d%%</text>",
              x, x, axis_y, axis_y + 4, x, axis_y + 16, q == 0 ? "start" : q == 4 ? "end" : "middle", q * 25);
  }
  int h = axis_y + 24;
  xb_printf(o, "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\">", W, h, W, h);
  xb_puts(o, body.s ? body.s : "");
  xb_puts(o, "</svg>");
  xb_free(&body);
}

void rp_bars_free(rp_bars *b) {
  for (size_t i = 0; i < b->ncat; i++) free(b->categories[i]);
  for (size_t r = 0; r < b->nrows; r++) {
    free(b->rows[r].label);
    free(b->rows[r].detail);
    free(b->rows[r].share);
  }
  free(b->categories);
  free(b->rows);
  memset(b, 0, sizeof *b);
}
