/* The rank labels of a merged file's pids (importers/torch_trace/tt_label.c): which pids carry
** one, as SGLang's profile merger and the torch_utils script before it write them, what the
** event then reads as its pid, and which global rank each label's is, as SGLang numbers its
** processes (tp_size * pp_rank + tp_rank), or why the labels number none. */
#include <string.h>
#include "check.h"
#include "torch_trace/tt_trace.h"

static tt_slice sl(const char *s) { return (tt_slice){s, strlen(s)}; }

/* The label of pid (JSON text) as "[TP01] tp dp pp ep -> pid", or "none". */
static const char *parsed(const char *pid, char *out, size_t cap) {
  tt_label l;
  if (!tt_label_parse(sl(pid), &l)) return "none";
  tt_event ev;
  memset(&ev, 0, sizeof ev);
  ev.pid = sl(pid);
  char text[TT_LABEL_MAX + 2];
  if (!tt_label_take(&l, &ev)) return "not taken";
  snprintf(out, cap, "%s %lld %lld %lld %lld -> %.*s", tt_label_text(&l, text, sizeof text), (long long)l.tp,
           (long long)l.dp, (long long)l.pp, (long long)l.ep, (int)ev.pid.n, ev.pid.p);
  return out;
}

static void check_parse(void) {
  char b[128];
  CHECK_EQ_STR(parsed("\"[TP00] 0\"", b, sizeof b), "[TP00] 0 -1 -1 -1 -> 0");
  CHECK_EQ_STR(parsed("\"[TP01] 1808\"", b, sizeof b), "[TP01] 1 -1 -1 -1 -> 1808");
  CHECK_EQ_STR(parsed("\"[TP03-DP01-PP02-EP03] Spans\"", b, sizeof b), "[TP03-DP01-PP02-EP03] 3 1 2 3 -> Spans");
  CHECK_EQ_STR(parsed("\"[TP12-PP01] 7\"", b, sizeof b), "[TP12-PP01] 12 -1 1 -1 -> 7");
  CHECK_EQ_STR(parsed("\"[TP100] 3\"", b, sizeof b), "[TP100] 100 -1 -1 -1 -> 3"); /* :02d, 3 digits past 99 */
  CHECK_EQ_STR(parsed("\"[TP01 1808]\"", b, sizeof b), "[TP01] 1 -1 -1 -1 -> 1808"); /* the earlier form */
  /* no label SGLang writes: as before, a string pid */
  CHECK_EQ_STR(parsed("\"[Unknown] 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[DP01] 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[TP] 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[TP01-TP02] 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[TP01-XX02] 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[TP01]0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[TP01] \"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[tp01] 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"TP01 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[TP01] a\\\"b\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("\"[TP1234567890] 0\"", b, sizeof b), "none");
  CHECK_EQ_STR(parsed("1808", b, sizeof b), "none");
  /* a label takes its own rank's pids alone */
  tt_label l;
  CHECK(tt_label_parse(sl("\"[TP01] 0\""), &l));
  tt_event ev;
  memset(&ev, 0, sizeof ev);
  ev.pid = sl("\"[TP01-DP00] 0\"");
  CHECK(!tt_label_take(&l, &ev));
  ev.pid = sl("\"[TP011] 0\"");
  CHECK(!tt_label_take(&l, &ev));
  ev.pid = sl("\"[TP01 0]\"");
  CHECK(!tt_label_take(&l, &ev));
}

/* The labels of the pids given, numbered: "rank:label ..." in rank order, or "refused: why". */
static const char *numbered(const char *const *pids, int n, int64_t world, char *out, size_t cap) {
  tt_label l[16];
  for (int i = 0; i < n; i++) CHECK(tt_label_parse(sl(pids[i]), &l[i]));
  char why[320];
  if (tt_labels_number(l, n, world, why, sizeof why)) {
    snprintf(out, cap, "refused: %s", why);
    return out;
  }
  size_t at = 0;
  for (int i = 0; i < n; i++) {
    char text[TT_LABEL_MAX + 2];
    at += (size_t)snprintf(out + at, cap - at, "%s%lld:%s", i ? " " : "", (long long)l[i].rank,
                           tt_label_text(&l[i], text, sizeof text));
  }
  return out;
}

static void check_number(void) {
  char b[512];
  /* TP alone, in any order: the TP rank */
  const char *tp[] = {"\"[TP02] 1\"", "\"[TP00] 1\"", "\"[TP01] 1\""};
  CHECK_EQ_STR(numbered(tp, 3, 3, b, sizeof b), "0:[TP00] 1:[TP01] 2:[TP02]");
  /* TP 2, PP 2: tp_size * pp + tp */
  const char *pp[] = {"\"[TP00-PP00] 1\"", "\"[TP01-PP00] 1\"", "\"[TP00-PP01] 1\"", "\"[TP01-PP01] 1\""};
  CHECK_EQ_STR(numbered(pp, 4, 4, b, sizeof b), "0:[TP00-PP00] 1:[TP01-PP00] 2:[TP00-PP01] 3:[TP01-PP01]");
  CHECK_EQ_STR(numbered(pp, 4, -1, b, sizeof b), "0:[TP00-PP00] 1:[TP01-PP00] 2:[TP00-PP01] 3:[TP01-PP01]");
  /* TP 4 PP 2, TP rank 3's files missing: the world (8) gives the TP size, not the highest TP */
  const char *gap[] = {"\"[TP00-PP00] 1\"", "\"[TP02-PP00] 1\"", "\"[TP00-PP01] 1\"", "\"[TP02-PP01] 1\""};
  CHECK_EQ_STR(numbered(gap, 4, 8, b, sizeof b), "0:[TP00-PP00] 2:[TP02-PP00] 4:[TP00-PP01] 6:[TP02-PP01]");
  /* DP attention: the TP ranks span the DP groups, each label a TP rank of its own */
  const char *dpa[] = {"\"[TP00-DP00] 1\"", "\"[TP01-DP00] 1\"", "\"[TP02-DP01] 1\"", "\"[TP03-DP01] 1\""};
  CHECK_EQ_STR(numbered(dpa, 4, 4, b, sizeof b), "0:[TP00-DP00] 1:[TP01-DP00] 2:[TP02-DP01] 3:[TP03-DP01]");
  /* EP: the TP ranks' groups */
  const char *ep[] = {"\"[TP00-EP00] 1\"", "\"[TP01-EP01] 1\""};
  CHECK_EQ_STR(numbered(ep, 2, 2, b, sizeof b), "0:[TP00-EP00] 1:[TP01-EP01]");
  /* DP replicas (no DP attention): each its own job, the same TP ranks again */
  const char *dpr[] = {"\"[TP00-DP00] 1\"", "\"[TP01-DP00] 1\"", "\"[TP00-DP01] 1\"", "\"[TP01-DP01] 1\""};
  CHECK(strstr(numbered(dpr, 4, 2, b, sizeof b), "refused: [TP00-DP00] and [TP00-DP01] are one rank of two "
                                                  "data-parallel replicas") == b);
  /* labels of different kinds, one rank twice */
  const char *mixed[] = {"\"[TP00] 1\"", "\"[TP01-PP00] 1\""};
  CHECK_EQ_STR(numbered(mixed, 2, 2, b, sizeof b), "refused: [TP00] and [TP01-PP00] name different kinds of rank");
  const char *twice[] = {"\"[TP00-EP00] 1\"", "\"[TP00-EP01] 1\""};
  CHECK_EQ_STR(numbered(twice, 2, 2, b, sizeof b), "refused: [TP00-EP00] and [TP00-EP01] name one rank (0)");
}

int main(void) {
  check_parse();
  check_number();
  CHECK_DONE();
}
