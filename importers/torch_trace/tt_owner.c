/*
** Which process launched each GPU's work, in a trace that holds several processes (a single-file
** multi-rank export, traces of several ranks merged into one). Kineto writes a GPU activity
** under its device ("pid": 0, 1, ...) and its launch and operators under the host process that
** made them, and each process numbers its API calls (correlation ids) and its operators
** (External ids) from its own start: across processes the ids collide, and an activity looked
** up by id alone can find another process's launch, operator or step. So each device is read as
** a rank with its own process's CPU side alone (tt_options.proc), and that process is found here
** by the links the importer already reads: an activity names its launch by correlation id, and
** both carry the External id of the operator that launched it. The process whose launches carry
** the most of a device's (correlation, External id) pairs owns it; where no pair decides, the
** pairs whose launch came before the activity, then the most correlations alone, then which of
** the tied processes owns no other device (settle_ties); a tie still or no match at all leaves
** the device to every process's CPU side, as a file of one process is read, and the import says so.
**
** The same read finds each process's rank in the job, which the file's one distributedInfo cannot
** give (it is one process's): c10d records every collective call as a record_param_comms
** operator whose args name the caller's rank in the call's group ("Rank") and the group's members
** by global rank ("Process Group Ranks"), so the member at that place is the process's global
** rank. A send's or recv's "Rank" is its peer's (torch/csrc/profiler/util.cpp saveNcclMeta), and
** is not read; a process whose calls name two ranks, or none, has none. The same reading gives a
** file of one process its rank where its trace has no distributedInfo (older PyTorch, some
** launchers, tools that drop the key), on the file's own read (tt_rank.c on_cpu_event), and the
** job's size: the "Group size" of a call on the default process group, the world's (tt_comms_read).
**
** A file of one process that drove several GPUs never comes here (tt_rank.launch_procs): this
** pass is one more read of the file, paid only where several processes made launches.
*/
#include <stdlib.h>
#include <string.h>
#include "tt_num.h"
#include "tt_trace.h"
#include "xp.h"

#define MAX_PROCS 64

typedef struct own_rec { /* a launch (who: its process) or an activity (who: its device) */
  int64_t corr, ext, ts; /* ts: the launch's CPU time, the activity's GPU start (raw, ns) */
  uint32_t who;
} own_rec;

typedef struct owners {
  const int64_t *dev;
  int ndev;
  tt_pid proc[MAX_PROCS];
  int nprocs, too_many;
  tt_comms comms[MAX_PROCS]; /* each process's global rank, as its record_param_comms name it */
  xp_vec launches, acts; /* own_rec */
} owners;

static int64_t arg_id(const tt_event *ev, const char *key) {
  int64_t v;
  tt_slice s = tt_event_arg(ev, key);
  return s.n && tt_int(s, &v) == 0 && v > 0 ? v : 0;
}

static int proc_index(owners *o, tt_slice pid) {
  for (int i = 0; i < o->nprocs; i++)
    if (tt_pid_is(&o->proc[i], pid)) return i;
  if (o->nprocs == MAX_PROCS) return o->too_many = 1, -1;
  tt_pid_set(&o->proc[o->nprocs], pid);
  return o->nprocs++;
}

/* A record_param_comms operator: the global rank of the process that made the call. */
static void on_param_comms(owners *o, const tt_event *ev) {
  int64_t rank, world;
  tt_comms_read(ev, &rank, &world);
  const int p = rank >= 0 ? proc_index(o, ev->pid) : -1;
  if (p >= 0) tt_comms_add(&o->comms[p], rank, world);
}

static int on_event(void *ctx, const tt_rank *r, const tt_event *ev) {
  (void)r;
  owners *o = ctx;
  const enum tt_side side = tt_event_side(ev);
  if (side == TT_SIDE_OTHER) {
    if (tt_string_eq(ev->name, "record_param_comms")) on_param_comms(o, ev);
    return 0;
  }
  const int64_t corr = arg_id(ev, "correlation");
  if (!corr) return 0;
  int64_t ext = tt_event_ext(ev), ts;
  if (side == TT_SIDE_LAUNCH) {
    const int p = proc_index(o, ev->pid);
    if (tt_us_to_ns(ev->ts, &ts) != 0) ts = INT64_MIN; /* untimed: never too late */
    if (p >= 0) *(own_rec *)xp_vec_push(&o->launches, sizeof(own_rec)) = (own_rec){corr, ext, ts, (uint32_t)p};
    return 0;
  }
  int64_t dev;
  if (tt_int(ev->pid, &dev) != 0) return 0;
  int d = 0;
  while (d < o->ndev && o->dev[d] != dev) d++;
  if (d == o->ndev) return 0; /* a device left out of the split (peer copies) */
  if (ext == corr) ext = 0;   /* Kineto of 2022-23: the correlation again, no operator's (tt_rank.c on_gpu) */
  if (tt_us_to_ns(ev->ts, &ts) != 0) ts = INT64_MAX;
  *(own_rec *)xp_vec_push(&o->acts, sizeof(own_rec)) = (own_rec){corr, ext, ts, (uint32_t)d};
  return 0;
}

static int by_corr(const void *a, const void *b) {
  const own_rec *x = a, *y = b;
  if (x->corr != y->corr) return x->corr < y->corr ? -1 : 1;
  return (x->ext > y->ext) - (x->ext < y->ext);
}

/* The index of the unique largest of v[0, n) if it is above 0, else -1. */
static int unique_max(const int64_t *v, int n) {
  int best = -1, tie = 0;
  for (int i = 0; i < n; i++) {
    if (!v[i] || (best >= 0 && v[i] < v[best])) continue;
    tie = best >= 0 && v[i] == v[best];
    if (!tie) best = i;
  }
  return tie ? -1 : best;
}

/* Does process p own one of the devices owner[0, ndev) decides? */
static int owns_one(const int *owner, int ndev, int p) {
  for (int d = 0; d < ndev; d++)
    if (owner[d] == p) return 1;
  return 0;
}

/* A device whose ids name several processes alike (each process numbers its calls and operators
** from its own start, so two processes' first launches can carry the very same pair) goes to the
** one of those that owns no device yet, where exactly one does: a process that made launches ran
** their work on some device of the file, and the others' is theirs. Repeated, as each device so
** settled may settle another. votes[0, 3): per device and process, by the first that has any. */
static void settle_ties(const owners *o, int64_t *const votes[3], int *owner) {
  const int np = o->nprocs;
  for (int changed = 1; changed;) {
    changed = 0;
    for (int d = 0; d < o->ndev; d++) {
      if (owner[d] >= 0) continue;
      const int64_t *v = NULL;
      int64_t best = 0;
      for (int k = 0; k < 3 && !best; k++) {
        v = votes[k] + d * np;
        for (int p = 0; p < np; p++) best = v[p] > best ? v[p] : best;
      }
      int free_one = -1, nfree = 0;
      for (int p = 0; p < np && best; p++)
        if (v[p] == best && !owns_one(owner, o->ndev, p)) free_one = p, nfree++;
      if (nfree == 1) owner[d] = free_one, changed = 1;
    }
  }
}

/* Votes of each device for each process, then the winner per device: by the (correlation,
** External id) pairs, else by those pairs whose launch came before the activity began (where two
** processes' ids are alike, the one whose call was made later than the activity ran is not its
** launch; a tie-break only, as processes of several hosts may not share one clock), else by
** correlations alone. */
static void decide(owners *o, int *owner) {
  const int np = o->nprocs;
  int64_t *pair = xp_xcalloc((size_t)(o->ndev * np), sizeof *pair);
  int64_t *timely = xp_xcalloc((size_t)(o->ndev * np), sizeof *timely);
  int64_t *corr = xp_xcalloc((size_t)(o->ndev * np), sizeof *corr);
  own_rec *l = o->launches.data, *a = o->acts.data;
  /* (none of either, as where the activities carry no correlation: qsort of no array is undefined) */
  if (o->launches.n > 1) qsort(l, o->launches.n, sizeof *l, by_corr);
  if (o->acts.n > 1) qsort(a, o->acts.n, sizeof *a, by_corr);
  for (size_t i = 0, j = 0; i < o->acts.n; i++) {
    while (j < o->launches.n && l[j].corr < a[i].corr) j++;
    for (size_t k = j; k < o->launches.n && l[k].corr == a[i].corr; k++) {
      corr[a[i].who * (uint32_t)np + l[k].who]++;
      pair[a[i].who * (uint32_t)np + l[k].who] += l[k].ext == a[i].ext;
      timely[a[i].who * (uint32_t)np + l[k].who] += l[k].ext == a[i].ext && l[k].ts <= a[i].ts;
    }
  }
  for (int d = 0; d < o->ndev; d++) {
    owner[d] = unique_max(pair + d * np, np);
    if (owner[d] < 0) owner[d] = unique_max(timely + d * np, np);
    if (owner[d] < 0) owner[d] = unique_max(corr + d * np, np);
  }
  int64_t *const votes[3] = {timely, pair, corr};
  settle_ties(o, votes, owner);
  free(pair);
  free(timely);
  free(corr);
}

int tt_device_owners(tt_import *imp, const char *path, const tt_label *label, const int64_t *dev, int ndev,
                     tt_pid *proc, int *owned, int64_t *rank) {
  owners o;
  memset(&o, 0, sizeof o);
  o.dev = dev;
  o.ndev = ndev;
  int rc = tt_scan_file(imp, path, label, on_event, &o);
  int owner[TT_MAX_DEVICES];
  if (!rc) decide(&o, owner);
  for (int d = 0; d < ndev; d++) {
    owned[d] = !rc && !o.too_many && owner[d] >= 0;
    if (owned[d]) proc[d] = o.proc[owner[d]];
    rank[d] = owned[d] ? tt_comms_rank(&o.comms[owner[d]]) : -1;
  }
  xp_vec_free(&o.launches);
  xp_vec_free(&o.acts);
  return rc;
}
