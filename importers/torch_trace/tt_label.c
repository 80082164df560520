/*
** Merged files whose pids name each event's rank. SGLang's profile merger (--merge-profiles, or
** /start_profile with "merge_profiles": python/sglang/srt/utils/profile_merger.py, after
** fzyzcjy's torch_utils sglang_profiler_trace_merger.py) writes every rank's trace into one
** file and rewrites each event's "pid" to the string "<label> <pid>": the label names the ranks
** of the file the event came from as its name gives them, "[TP01]", or with the run's other
** parallel ranks where their size is over 1, in the order TP, DP, PP, EP, each two digits or
** more ("[TP03-DP01]", "[TP00-PP01]"); the pid is the process's, or a GPU activity's device. An
** earlier form of the script wrote "[TP01 <pid>]". The label is all that ties a rank's GPU to its
** process: ranks' ids (correlations, External ids) collide, and ranks run each with its own
** CUDA_VISIBLE_DEVICES all call their GPU device 0. Of the top-level keys the file keeps the
** first rank's: its distributedInfo names rank 0 alone.
**
** Only labels of that shape are read; any other string pid is no label, and a file with one is
** read as before (tt_read.c read_labels).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tt_trace.h"

static const char kinds[4][3] = {"TP", "DP", "PP", "EP"};

/* The place of the kind spelt at p in kinds, -1 where it is none of them. */
static int kind_at(const char *p) {
  for (int k = 0; k < 4; k++)
    if (p[0] == kinds[k][0] && p[1] == kinds[k][1]) return k;
  return -1;
}

/* Whether the bytes of a labelled pid (between the label and the closing quote) are a pid as
** Kineto writes one, a number or a name ("Spans"), and no escapes. */
static int plain_pid(const char *p, const char *end) {
  if (p >= end) return 0;
  for (; p < end; p++)
    if (*p == '"' || *p == '\\' || *p == ']' || (unsigned char)*p < 0x20) return 0;
  return 1;
}

int tt_label_parse(tt_slice pid, tt_label *out) {
  if (pid.n < 8) return 0; /* (before any arithmetic: an absent pid is NULL, and NULL + 0 is undefined) */
  const char *p = pid.p, *end = pid.p + pid.n;
  if (p[0] != '"' || p[1] != '[' || end[-1] != '"') return 0;
  int64_t v[4] = {-1, -1, -1, -1};
  const char *q = p + 2;
  for (;;) { /* KIND DIGITS, joined by "-" */
    const int k = end - q > 2 ? kind_at(q) : -1;
    if (k < 0 || v[k] >= 0) return 0;
    q += 2;
    int64_t x = 0;
    int digits = 0;
    for (; q < end && *q >= '0' && *q <= '9' && digits < 10; q++, digits++) x = x * 10 + (*q - '0');
    if (!digits || digits > 9) return 0;
    v[k] = x;
    if (*q != '-') break;
    q++;
  }
  if (v[0] < 0) return 0; /* SGLang's name a TP rank always: one without is not theirs */
  int inside;
  if (end - q > 2 && q[0] == ']' && q[1] == ' ') inside = 0, q += 2;
  else if (*q == ' ') inside = 1, q++;
  else return 0;
  if ((size_t)(q - p) > TT_LABEL_MAX || (inside && end[-2] != ']')) return 0;
  if (!plain_pid(q, end - 1 - inside)) return 0;
  memset(out, 0, sizeof *out);
  memcpy(out->pre, p, (size_t)(q - p));
  out->pre_n = (uint8_t)(q - p);
  out->inside = (uint8_t)inside;
  out->tp = v[0], out->dp = v[1], out->pp = v[2], out->ep = v[3];
  out->rank = -1;
  return 1;
}

int tt_label_take(const tt_label *l, tt_event *ev) {
  const tt_slice pid = ev->pid;
  const size_t tail = 1u + l->inside; /* the closing quote, and the bracket before it */
  if (pid.n <= l->pre_n + tail || memcmp(pid.p, l->pre, l->pre_n) != 0) return 0;
  if (l->inside && pid.p[pid.n - 2] != ']') return 0;
  ev->pid = (tt_slice){pid.p + l->pre_n, pid.n - l->pre_n - tail};
  return 1;
}

const char *tt_label_text(const tt_label *l, char *buf, size_t cap) {
  /* pre is the quote, the label and "] " (or the label and " ", the pid inside): the label with
  ** its brackets */
  const int n = l->pre_n - 2 - !l->inside;
  snprintf(buf, cap, "%.*s]", n, l->pre + 1);
  return buf;
}

static int by_rank(const void *a, const void *b) {
  const tt_label *x = a, *y = b;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return (x->dp > y->dp) - (x->dp < y->dp);
}

/* Whether two labels name the same kinds of rank. */
static int same_kinds(const tt_label *a, const tt_label *b) {
  return (a->dp < 0) == (b->dp < 0) && (a->pp < 0) == (b->pp < 0) && (a->ep < 0) == (b->ep < 0);
}

/* SGLang's process of TP rank t in pipeline stage p is global rank p * tp_size + t of a world of
** tp_size * pp_size (model_runner.py init_distributed_environment). Its DP rank is no part of
** it: with DP attention it is the TP rank's group (every TP rank a label of its own), without
** it each replica is a torch.distributed job of its own (the same TP ranks again). Its EP rank
** is the TP rank's group too. The TP size is the world's over the stages where the trace gives
** the world (the first rank's distributedInfo, which the merged file keeps), else the highest TP
** rank's plus one. Sorted by rank. */
int tt_labels_number(tt_label *l, int n, int64_t world, char *why, size_t cap) {
  char a[TT_LABEL_MAX + 2], b[TT_LABEL_MAX + 2];
  int64_t max_tp = 0, max_pp = 0;
  for (int i = 0; i < n; i++) {
    if (!same_kinds(&l[i], &l[0])) {
      snprintf(why, cap, "%s and %s name different kinds of rank", tt_label_text(&l[0], a, sizeof a),
               tt_label_text(&l[i], b, sizeof b));
      return -1;
    }
    if (l[i].tp > max_tp) max_tp = l[i].tp;
    if (l[i].pp > max_pp) max_pp = l[i].pp;
  }
  /* (ranks of 9 digits at most: PP * TP size stays far within int64, a world of more is none) */
  int64_t tp_size = max_tp + 1;
  if (l[0].pp >= 0 && world > 0 && world <= 1000000000 && world % (max_pp + 1) == 0 && world / (max_pp + 1) > max_tp)
    tp_size = world / (max_pp + 1);
  for (int i = 0; i < n; i++) l[i].rank = l[i].pp >= 0 ? l[i].pp * tp_size + l[i].tp : l[i].tp;
  qsort(l, (size_t)n, sizeof *l, by_rank);
  for (int i = 1; i < n; i++) {
    if (l[i].rank != l[i - 1].rank) continue;
    tt_label_text(&l[i - 1], a, sizeof a), tt_label_text(&l[i], b, sizeof b);
    if (l[i].dp != l[i - 1].dp)
      snprintf(why, cap, "%s and %s are one rank of two data-parallel replicas, each a job of its own (SGLang's "
               "DP without DP attention), and xp imports one job's ranks", a, b);
    else
      snprintf(why, cap, "%s and %s name one rank (%lld)", a, b, (long long)l[i].rank);
    return -1;
  }
  return 0;
}

void tt_label_note(tt_rank *r, tt_slice pid) {
  /* a rank's events come together in the merged file: the label last met first */
  tt_label *last = r->labels.n ? XP_VEC_AT(&r->labels, tt_label, r->labels.n - 1) : NULL;
  tt_event probe;
  probe.pid = pid;
  if (last && tt_label_take(last, &probe)) return;
  tt_label l;
  if (!tt_label_parse(pid, &l)) {
    r->gpu_unlabelled++;
    return;
  }
  for (size_t i = 0; i < r->labels.n; i++) {
    const tt_label *o = XP_VEC_AT(&r->labels, tt_label, i);
    if (o->pre_n == l.pre_n && o->inside == l.inside && memcmp(o->pre, l.pre, l.pre_n) == 0) return;
  }
  *(tt_label *)xp_vec_push(&r->labels, sizeof l) = l;
}
