/*
** xp report [--out FILE.html]: the database as one self-contained HTML page of charts.
** The database is opened read-only; the page is built in memory and written to a temporary
** file that is renamed over FILE, so a failed report never leaves half a page behind.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "db.h"
#include "report.h"
#include "runref.h"
#include "xp.h"

static const char usage[] =
    "usage: xp report [--out FILE.html]\n"
    "  Writes one self-contained HTML page (no network needed) with charts of the database:\n"
    "  kernel-category shares per configuration, the AllReduce share over time and each job's\n"
    "  communication hidden by compute or exposed (imported traces), bus bandwidth against\n"
    "  message size (nccl_burst), GEMMs against the roofline (gemm: each GPU's latest run,\n"
    "  against its own ceilings), and serving throughput against\n"
    "  concurrency (serve_bench: xp import vllm-bench). The runs table counts the runs whose\n"
    "  GPU slowed down or ran under a lowered power limit, and names them.\n"
    "  A chart whose runs are missing says \"no data yet\" and what would produce them; one of\n"
    "  more series (8) or configurations (16) than it can show draws those measured last and\n"
    "  says how many it left out. The database is only read.\n"
    "  --out FILE   where to write (default xp-report.html; - for standard output)\n";

/* ---- the runs table at the top ---- */

/* The runs whose GPU was not at full speed while they ran (schema view run_gpu_state, which
** queries/gpu_state.sql lists): clocks held down by heat, a power brake or a hardware slowdown in
** some readings, or a power limit set below the board's default. Such a run measured a slower GPU
** than its neighbours: a reader of the history must see it before taking its times for a
** regression. */
#define SLOW_CTE "slow AS (SELECT * FROM run_gpu_state WHERE slowed)"

/* By status as xp runs shows it (xp_status): a run whose process died, its row still
** 'running', is incomplete, not running. */
static const char runs_summary_sql[] =
    "WITH " SLOW_CTE ","
    " r AS (SELECT id, kind, origin, xp_status(status, host, boot_id, pid) AS status, started_at FROM runs)"
    " SELECT kind, origin, sum(status = 'ok'), sum(status = 'failed'), sum(status = 'aborted'),"
    "        sum(status = 'incomplete'), sum(status = 'running'), sum(id IN (SELECT run_id FROM slow)),"
    "        max(started_at)"
    " FROM r GROUP BY kind, origin ORDER BY kind, origin";

/* The runs counted as slowed, newest first, each GPU that was and how. */
static const char slowed_runs_sql[] =
    "WITH " SLOW_CTE
    " SELECT substr(r.uuid, 1, 8), r.kind, r.started_at, group_concat('GPU ' || d.device || ': '"
    "        || CASE WHEN d.slowdown_share > 0"
    "                THEN printf('clocks held down in %.1f%% of readings', 100 * d.slowdown_share)"
    "                     || coalesce(' (' || nullif(d.clock_events, '') || ')', '') ELSE '' END"
    "        || CASE WHEN d.slowdown_share > 0 AND d.power_limit < d.power_default THEN ', ' ELSE '' END"
    "        || CASE WHEN d.power_limit < d.power_default"
    "                THEN 'power limit ' || d.power_limit || ' W, below its default ' || d.power_default || ' W'"
    "                ELSE '' END, '; ')"
    " FROM slow d JOIN runs r ON r.id = d.run_id"
    " GROUP BY r.id ORDER BY r.started_at DESC, r.id DESC";

static int slowed_runs(sqlite3 *db, xp_buf *o) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, slowed_runs_sql, -1, &st, NULL) != SQLITE_OK) return xp_db_fail(db, "reading");
  int rows = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (rows++ == 0)
      xb_puts(o, "<p class=\"note\">Runs whose GPU was not at full speed: their times measured a slower GPU "
                 "than their neighbours' (xp query queries/gpu_state.sql gives every reading).</p>"
                 "<table class=\"runs slowed\"><tr><th>run</th><th>kind</th><th>started</th><th>GPU state</th></tr>");
    xb_puts(o, "<tr>");
    for (int i = 0; i < 4; i++) {
      xb_puts(o, "<td>");
      xb_escape(o, (const char *)sqlite3_column_text(st, i));
      xb_puts(o, "</td>");
    }
    xb_puts(o, "</tr>");
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return xp_db_fail(db, "reading");
  if (rows) xb_puts(o, "</table>");
  return 0;
}

static int runs_summary(sqlite3 *db, xp_buf *o) {
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, runs_summary_sql, -1, &st, NULL) != SQLITE_OK) return xp_db_fail(db, "reading");
  xb_puts(o, "<section class=\"summary\"><h2>Runs</h2>");
  int rows = 0, rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    if (rows++ == 0)
      xb_puts(o, "<table class=\"runs\"><tr><th>kind</th><th>origin</th><th>ok</th><th>failed</th>"
                 "<th>aborted</th><th>incomplete (its process died)</th><th>running</th>"
                 "<th>GPU slowed</th><th>latest</th></tr>");
    xb_puts(o, "<tr><td>");
    xb_escape(o, (const char *)sqlite3_column_text(st, 0));
    xb_puts(o, "</td><td>");
    xb_escape(o, (const char *)sqlite3_column_text(st, 1));
    xb_puts(o, "</td>");
    for (int i = 2; i <= 7; i++) xb_printf(o, "<td class=\"n\">%lld</td>", (long long)sqlite3_column_int64(st, i));
    xb_puts(o, "<td>");
    xb_escape(o, (const char *)sqlite3_column_text(st, 8));
    xb_puts(o, "</td></tr>");
  }
  sqlite3_finalize(st);
  if (rc != SQLITE_DONE) return xp_db_fail(db, "reading");
  xb_puts(o, rows ? "</table>" : "<p class=\"nodata\">No runs recorded yet.</p>");
  rc = rows ? slowed_runs(db, o) : 0;
  xb_puts(o, "</section>");
  return rc;
}

/* ---- the page ---- */

static void section_html(xp_buf *o, const rp_chart *c, const rp_section *s) {
  xb_printf(o, "<section class=\"chart-section\" id=\"%s\" data-has-data=\"%d\"><h2>", c->id, s->svg.n > 0);
  xb_escape(o, c->title);
  xb_puts(o, "</h2>");
  if (s->svg.n) {
    xb_puts(o, "<p class=\"note\">");
    xb_escape(o, s->note.s);
    xb_puts(o, "</p><figure>");
    xb_puts(o, s->svg.s);
    xb_puts(o, "</figure>");
  } else {
    xb_puts(o, "<p class=\"nodata\"><strong>No data yet.</strong> ");
    xb_escape(o, s->empty.s);
    xb_puts(o, "</p>");
  }
  xb_puts(o, "</section>\n");
}

static void page_head(xp_buf *o, const char *db_path) {
  char now[40];
  xp_now_iso8601(now, sizeof now);
  xb_puts(o, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
             "<title>xp report</title><style>");
  xb_puts(o, rp_css);
  xb_puts(o, "</style><script>");
  xb_puts(o, rp_error_script);
  xb_puts(o, "</script></head>\n<body data-xp-report=\"loading\"><header><h1>xp report</h1><p class=\"meta\">");
  xb_escape(o, db_path);
  xb_printf(o, " &middot; generated %s by xp %s (commit ", now, xp_build_version);
  xb_escape(o, xp_build_commit);
  xb_printf(o, "%s, schema %d)</p><nav>", xp_build_dirty ? ", modified" : "", xp_db_schema_version());
  for (const rp_chart *c = rp_charts; c->id; c++) {
    xb_printf(o, "<a href=\"#%s\">", c->id);
    xb_escape(o, c->title);
    xb_puts(o, "</a>");
  }
  xb_puts(o, "</nav></header>\n");
}

static int build_page(sqlite3 *db, const char *db_path, xp_buf *o, int *with_data, int *charts) {
  page_head(o, db_path);
  int rc = runs_summary(db, o);
  *with_data = *charts = 0;
  rp_shared shared = {NULL, 0};
  for (const rp_chart *c = rp_charts; c->id && rc == 0; c++) {
    rp_section s = {c->id, c->title, {0}, {0}, {0}, &shared};
    rc = c->build(db, &s);
    if (rc == 0) section_html(o, c, &s);
    *with_data += s.svg.n > 0;
    (*charts)++;
    xb_free(&s.note);
    xb_free(&s.svg);
    xb_free(&s.empty);
  }
  sqlite3_finalize(shared.trace);
  xb_puts(o, "<footer><p>Hover a point or bar for its numbers. Every chart is drawn from the "
             "database above; `xp runs` and `xp show RUN` give the runs behind it.</p></footer>\n<script>");
  xb_puts(o, rp_script);
  xb_puts(o, "</script></body></html>\n");
  return rc;
}

/* A reading command stops at the first signal (README's exit 130), also one that came after
** the last query, which SQLite's progress handler never saw: the page is not written. */
static int interrupted(void) { return xp_error(XP_EXIT_ABORTED, "interrupted: no report written"); }

/* Written beside the target and renamed over it: readers see the old page or the new one. */
static int write_atomically(const char *path, const xp_buf *page) {
  char *tmp = NULL;
  FILE *f = xp_temp_beside(path, &tmp);
  int rc = 0;
  if (!f) rc = xp_out_error(path, "cannot create");
  else {
    int bad = fwrite(page->s, 1, page->n, f) != page->n;
    bad |= fclose(f) != 0;
    if (!bad && xp_interrupted()) rc = interrupted(); /* while it was written: the old page stays */
    else if (bad || (tmp && xp_temp_commit(tmp) != 0)) /* a disk full, not a bad --out: as xp export */
      rc = xp_error_at(XP_EXIT_FAILED, path, 0, "cannot write: %s", strerror(errno));
    if (rc && tmp) unlink(tmp);
  }
  free(tmp);
  return rc;
}

int cmd_report(int argc, char **argv, const char *db_path) {
  const char *out = "xp-report.html", *given = NULL;
  int bad = 0;
  for (int i = 1; i < argc; i++) {
    const char *v;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      fputs(usage, stdout);
      return 0;
    }
    if ((v = xp_opt_value(argc, argv, &i, "--out", &bad))) {
      if (xp_opt_twice("report", "--out", v, given)) return XP_EXIT_USAGE;
      out = given = v;
    }    else if (bad) return XP_EXIT_USAGE;
    else if (argv[i][0] == '-') return xp_unknown_option("report", argv[i], (const char *const[]){"--out", "--help", NULL});
    else return xp_usage_value_error("report", "unexpected argument", argv[i], NULL);
  }
  int rc = strcmp(out, "-") == 0 ? 0 : xp_out_not_database(out);
  sqlite3 *db = rc ? NULL : xp_db_open(db_path, XP_DB_READONLY, &rc);
  if (!db) return rc;
  xp_buf page = {0};
  int with_data = 0, charts = 0;
  rc = xp_register_run_fns(db) == SQLITE_OK ? 0 : xp_db_fail(db, "reading"); /* xp_run_gpus */
  if (rc == 0) rc = xp_db_snapshot(db); /* every chart of one history, whatever is recorded meanwhile */
  if (rc == 0) rc = build_page(db, db_path, &page, &with_data, &charts);
  if (rc == 0) rc = xp_db_faulted(db_path, "nothing was written"); /* a chart short of its rows */
  xp_db_close(db);
  if (rc == 0 && xp_interrupted()) rc = interrupted();
  if (rc == 0 && strcmp(out, "-") == 0) rc = xp_print_held(page.s, page.n);
  else if (rc == 0 && (rc = write_atomically(out, &page)) == 0) {
    /* a page sent to standard output by a name (/dev/stdout > page.html) must not get the note
    ** too: after it in a pipe, over its start in a file the shell opened */
    if (xp_same_file(out, "/dev/stdout")) fprintf(stderr, "xp: wrote %s: %d of %d charts with data\n", out, with_data, charts);
    else printf("wrote %s: %d of %d charts with data\n", out, with_data, charts);
  }
  xb_free(&page);
  return rc;
}
