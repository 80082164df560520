/*
** Reading torch.profiler traces into per-rank aggregates: the library behind the torch_trace
** importer, usable without a database (the unit tests drive it directly).
**
** One import is the ranks of one job. Each file is streamed once (tt_read_file); what is kept
** per rank is small and does not depend on the trace's length except for a 24-byte record and
** a 4-byte stream lane per GPU activity (for the union of busy intervals and the step split,
** which follows stream order where no link decides; tt_done.c), 8 bytes per CPU operator
** (the External id link from kernels to the operator's shapes), 16 bytes per runtime call
** (its CPU time, which places an activity no operator claims) and per such activity (and per
** activity whose operator the file writes after it, looked up again at the end), and one
** record per collective kernel (for matching across ranks). A file with "B"/"E" duration events
** or "b"/"e" async ones (tt_pair.c) is read twice, with 24 bytes per such event noted on the
** first read and 4 kept for the second; one with events written with no time (TT_NEAR_ZERO), again
** without them. A file whose activities give their correlation as their External id (Kineto of
** 2022-23) is read twice, the second read keeping 40 bytes per operator and 24 per runtime call
** (their times and threads, tt_tree.c). A GPU annotation (gpu_user_annotation, tt_annot.c) keeps 32
** bytes until the file is done. Times are integer nanoseconds since the epoch.
*/
#ifndef XP_TT_TRACE_H
#define XP_TT_TRACE_H
#include <cjson/cJSON.h>
#include <stdint.h>
#include "tt_json.h"
#include "tt_rules.h"
#include "table.h"

/* Collectives, normalised: the names double as category names. */
enum tt_coll {
  TT_COLL_NONE, TT_COLL_ALLREDUCE, TT_COLL_ALLGATHER, TT_COLL_REDUCE_SCATTER, TT_COLL_ALLTOALL,
  TT_COLL_SENDRECV, TT_COLL_BROADCAST, TT_COLL_OTHER, TT_COLL_COUNT
};
extern const char *const tt_coll_names[TT_COLL_COUNT];
/* A collective's name as PyTorch records it ("allreduce", "_allgather_base", "send", ...). */
enum tt_coll tt_coll_from_text(const char *s);

/* A collective's data type (tt_dtype.c): a spelling a trace writes, the name xp stores (torch's
** str(dtype) without "torch."), bytes per element; in_name: NCCL kernel names spell it so. */
typedef struct tt_dtype {
  const char *spelling, *name;
  int size, in_name;
} tt_dtype;
extern const tt_dtype tt_dtypes[];
extern const int tt_ndtypes;
/* The type a "dtype" arg spells (any case), NULL if unknown. */
const tt_dtype *tt_dtype_of(const char *spelt);
/* The type an NCCL kernel's name gives ("..._Sum_bf16_RING_LL"), NULL if none. */
const tt_dtype *tt_dtype_in_name(const char *name);

/* GPU activity kinds. */
enum tt_gpu_kind { TT_KERNEL, TT_MEMCPY, TT_MEMSET };
extern const char *const tt_gpu_kind_name[3]; /* "kernel", "memcpy", "memset" */

/* A kernel "key": name id << 3 | collective from the kernel's args (TT_COLL_NONE if none). */
#define TT_KEY(name, coll) ((uint32_t)(name) << 3 | (uint32_t)(coll))
#define TT_KEY_NAME(k) ((k) >> 3)
#define TT_KEY_COLL(k) ((k)&7)

typedef struct tt_name_info {
  const char *category; /* from the rules at import time (the database re-resolves later) */
  int rule;             /* the rule that gave it (tt_rules_match), -1 if none */
  int comm;             /* the category is in the communication group */
  enum tt_coll coll;    /* collective implied by the category (TT_COLL_OTHER for generic) */
  enum tt_gpu_kind kind;
  /* The name as stored, where the trace's bytes are not well-formed UTF-8 (NULL where they
  ** are): each bad byte U+FFFD, and made distinct from every other name (tt_store.c) */
  char *text;
  size_t text_len;
  int64_t id;           /* trace_names.id of the stored text (xp_text_id), set by store_names */
} tt_name_info;

typedef struct tt_kstat { /* per kernel key */
  uint32_t key;
  int64_t count, total, min, max;
} tt_kstat;

typedef struct tt_ival { /* one GPU activity */
  int64_t start, end;
  uint32_t key;
  int32_t step; /* index into steps, -1 outside every step */
} tt_ival;

/* An activity whose step its launch's CPU time decides, or whose operator the file had not shown
** yet. Kineto writes a kernel before its launch (the runtime event) as often as after, and other
** writers put operators after their kernels, so both are looked up once the file is read: until
** then ts holds the key to look up (TT_BY_CORR, TT_BY_HIP_EXT: a launch; TT_BY_EXT: an operator,
** followed by the activity's TT_BY_CORR record, if it has one, for where none is found;
** TT_BY_TREE: a launch, as TT_BY_CORR, whose operator is the innermost around it, tt_tree.c). */
enum tt_pend_kind { TT_BY_TS, TT_BY_CORR, TT_BY_HIP_EXT, TT_BY_EXT, TT_BY_TREE };
typedef struct tt_pend {
  uint32_t ival;
  uint32_t kind; /* enum tt_pend_kind */
  int64_t ts;    /* raw CPU ts (TT_BY_TS), else the correlation or External id */
} tt_pend;
/* tt_ival.step while placing: launched before the trace began, outside every step for good */
#define TT_BEFORE_TRACE (-2)
#define TT_NO_LANE 0xffffffffu /* tt_rank.lanes: the event names no stream */
/* tt_rank.corrs: an activity a CUDA graph node ran (its "graph node id" not 0). PyTorch 2.12's
** torch.cuda._annotate_cuda_graph_trace moves these onto streams of the user's choosing (61, 62),
** 7 or 8, numbers real streams also have: its stream is no stream it ran on (tt_clip.c) */
#define TT_CORR_GRAPH_NODE 0xffffffffu
/* tt_rank.corrs: an activity with no correlation id, its "External id" with this bit set, apart
** from correlations. ROCm's Kineto writes a GPU activity its operator's External id alone
** (RoctracerActivity_inl.h: its metadataJson is empty; output_json.cpp: the linked operator's
** id), and a hipGraphLaunch's kernels share the launch's: a HIP graph launch is noted under its
** External id so too (tt_rank.graph_launch_ids), so that its kernels' copies are told (tt_clip.c) */
#define TT_CORR_EXT 0x80000000u
/* tt_rank.graph_launch_ids: a graph launch's id written again at another time (two processes'
** numberings, or no time): no copy, and its activities' copies are not told */
#define TT_GRAPH_LAUNCH_APART UINT64_MAX
/* A GPU activity's lane key, device << 32 | stream, as tt_rank.lane_map keys it: the stream its
** tid, else its args' "stream"; -1 where it names none (tt_rank.c, and tt_clip.c finding it again). */
int tt_lane_key(const tt_event *ev, int64_t dev, uint64_t *key);
/* A raw timestamp kept in an idmap, where 0 means absent. */
#define TT_TS_KEEP(ts) ((uint64_t)(ts) ^ (1ull << 63))
#define TT_TS_BACK(v) ((int64_t)((v) ^ (1ull << 63)))

/* A process as the trace names it: its "pid" as a key (tt_id_key: 7 and "7" are one process,
** as "B"/"E" events' threads are paired, tt_pair.c), its first bytes. */
typedef struct tt_pid {
  uint8_t n;
  char p[23];
} tt_pid;
/* Is pid (an event's, as written) the process a? The bytes as written first: one writer spells
** one process alike throughout, and an event's pid is compared on every CPU event. */
int tt_pid_is(const tt_pid *a, tt_slice pid);
int tt_pid_same(const tt_pid *a, const tt_pid *b);
void tt_pid_set(tt_pid *a, tt_slice pid);

typedef struct tt_launch { /* a runtime or driver API call, which may have launched GPU work */
  int64_t corr, ts;           /* its correlation id, and its raw CPU ts */
} tt_launch;

/* The operators around launches (tt_tree.c), kept on the read that links by them
** (tt_options.op_tree): an operator's CPU time (raw ns) on its thread (an id in
** tt_rank.threads), its key in tt_import.ops, its External id; parent, once the file is read,
** the operator it ran in (its place in tt_rank.tree_ops, TT_NO_PARENT: none). */
typedef struct tt_tree_op {
  int64_t start, end, ext;
  uint32_t thread, op, parent;
} tt_tree_op;
#define TT_NO_PARENT UINT32_MAX
typedef struct tt_tree_call { /* a runtime or driver call with a correlation, on that read */
  int64_t corr, ts;
  uint32_t thread;
} tt_tree_call;

/* A step's or the whole trace's communication, and the part of it nothing hid (tt_overlap.c). */
typedef struct tt_comm_time {
  int64_t comm_ns;            /* the union of the communication kernels' intervals */
  int64_t exposed_ns;         /* of it, when no other activity of the rank ran */
  int64_t compute_exposed_ns; /* of it, when no compute kernel of the rank ran (copies, fills hide none) */
} tt_comm_time;

typedef struct tt_step {
  int64_t start, end; /* the annotation on the CPU */
  int64_t number;     /* N of ProfilerStep#N, else its place in start order (once done) */
  int32_t id;         /* order of appearance (the External-id map refers to it) */
  /* computed when the file is done */
  int64_t gpu_start, gpu_end, kernel_ns, busy_ns, kernels;
  tt_comm_time comm;
} tt_step;

typedef struct tt_stepk { /* per step and kernel key */
  int32_t step;
  uint32_t key;
  int64_t count, total;
} tt_stepk;

/* A gpu_user_annotation: a record_function range (vLLM's, SGLang's, a user's) as Kineto draws it on
** the GPU timeline, from its first GPU activity's start to its last one's end, widened as written
** (tt_done.c annot_widening). Kept while the file is read: its times (raw, then shifted as the
** activities are), its name (id in tt_import.annot_names), its External id (its CPU range's), and
** the step (a position in the sorted steps, -1 none) its CPU range ran in. */
typedef struct tt_gpu_annot {
  int64_t start, end, ext;
  uint32_t name;
  int32_t step;
} tt_gpu_annot;
typedef struct tt_annot { /* per step (-1: outside every step) and annotation name, once done */
  int32_t step;
  uint32_t name;
  int64_t count, written; /* written: the durations summed as the trace writes them */
} tt_annot;

typedef struct tt_shape { /* per kernel key and launching operator with its input shapes */
  uint32_t key, op; /* op: id in tt_import.ops ("name\x1fInput Dims\x1fInput type") */
  int64_t count, total, min, max;
} tt_shape;

typedef struct tt_collk { /* one collective kernel */
  int64_t start, end;
  uint32_t key;
  int32_t step;
  uint32_t ival;
  enum tt_coll coll;
  int32_t pg;    /* id in tt_import.pgs, -1 unknown */
  int32_t dtype; /* id in tt_import.strs, -1 unknown */
  int32_t elem_size, group_size, stream, device;
  int64_t in_nelems, out_nelems, seq; /* -1 unknown */
  int64_t peer;                       /* a send's or recv's peer, its global rank; -1 unknown */
  int64_t ext;                        /* its External id (its call's), 0 none */
  int from_args;                      /* collective, dtype and group came from the args */
  /* matching across ranks */
  int64_t group; /* match group id, -1 unmatched */
  int64_t wait, transfer;
} tt_collk;

#define TT_MAX_DEVICES 16
#define TT_CPU_PIDS 8 /* tt_rank.cpu_pids */
/* torch 1.8 could write a kernel at "ts": 0 (pytorch/kineto#109): a GPU activity this long or
** more before the trace's first CPU event is no time the profiler ran, and is left out */
#define TT_GPU_BEFORE_CPU (60 * 1000000000LL)
/* PyTorch 2.12's export_chrome_trace can write "ts": 0 and "dur": 0 for most events of a trace's
** second half (pytorch/pytorch#188481): events with no time. An event so written (its "dur", if
** any, 0) is untimed where no other time the trace holds is within this of 0: in a trace of
** small relative times "ts": 0 is a time like any other (tt_read.c read_untimed) */
#define TT_NEAR_ZERO TT_GPU_BEFORE_CPU
#define TT_ENGINE_STEPS 2 /* tt_engine_steps */
/* The most a rank's GPU activities may last together (1e16 ns, 116 days; a trace's are minutes):
** every total kept, and their sums over a thousand ranks in SQL, stay within int64 */
#define TT_SUM_LIMIT 10000000000000000LL

/* "B"/"E" duration events and "b"/"e" async ones, paired (tt_pair.c): the state of one read,
** and the file's pairs. */
typedef struct tt_be tt_be;
#define TT_UNPAIRED UINT32_MAX
#define TT_AS_IS (UINT32_MAX - 1) /* an async half that is no step's: read as it is, as a half */
typedef struct tt_pairing {
  /* per B/E (or b/e) event, in the file's order: its partner's place, TT_UNPAIRED, or TT_AS_IS */
  uint32_t *partner;
  uint32_t n;
  /* left out: B's never closed, E's with no B open (of their name) on their thread, and B/E
  ** events without a valid "ts" */
  int64_t open_b, lone_e, untimed;
} tt_pairing;

/* What a process's record_param_comms say of its place in the job (tt_comms.c): the global
** ranks they name, and the sizes they give the default (world) process group, as the least and
** greatest seen, so that no order of the events changes what is decided; zero: none seen. */
typedef struct tt_comms {
  int64_t rank_lo, rank_hi, world_lo, world_hi;
  int ranks, worlds; /* calls that named a rank, the world's size */
} tt_comms;
/* The global rank the call at ev (a record_param_comms) names for its caller, and the world's
** size where its group is the default one; -1 where it names none. */
void tt_comms_read(const tt_event *ev, int64_t *rank, int64_t *world);
/* The peer of a send's or recv's record_param_comms, its global rank; -1 for other calls, or
** where the args do not tell it. */
int64_t tt_comms_peer(const tt_event *ev);
void tt_comms_add(tt_comms *c, int64_t rank, int64_t world);
/* The one rank, the one world size the calls name; -1 where they name none or two. */
int64_t tt_comms_rank(const tt_comms *c);
int64_t tt_comms_world(const tt_comms *c);

/* A record_param_comms kept on a device's own read (tt_rank.calls): its External id, and the rank
** and world size it names (tt_comms_read). */
typedef struct tt_call {
  int64_t ext, rank, world;
} tt_call;

/* A record_param_comms's process group (tt_import.pgs, -1: none named), "Group size" and "Seq"
** (-1: none), by its External id: what a collective kernel of that id lacks (tt_rank.group_calls);
** and its collective ("Collective name", TT_COLL_NONE: none), data type (dtype: id in
** tt_import.strs, -1 none; elem_size its bytes, 0 unknown) and elements (-1 unknown), which an XCCL
** kernel lacks. */
typedef struct tt_group_call {
  int64_t ext, seq, in_nelems, out_nelems;
  int32_t pg, size;
  int32_t coll, dtype, elem_size;
} tt_group_call;

/* A rank's label in the pids of a merged file (tt_label.c): SGLang's profile merger writes every
** event of rank TP 1's file under "[TP01] <pid>", its process's and its GPU's alike. */
#define TT_LABEL_MAX 40
typedef struct tt_label {
  char pre[TT_LABEL_MAX]; /* the pid's bytes before the pid it labels: "\"[TP01] " or "\"[TP01 " */
  uint8_t pre_n;
  uint8_t inside;         /* "[TP01 <pid>]": the pid inside the brackets, then "]\"" */
  int64_t tp, dp, pp, ep; /* the ranks it names, -1 where it names none */
  int64_t rank;           /* the global rank it stands for (tt_labels_number), -1 before */
} tt_label;
/* 1 where pid (its JSON text) carries a rank label, *out filled; else 0. */
int tt_label_parse(tt_slice pid, tt_label *out);
/* 1 where ev's pid carries label l: ev->pid is then the pid it labels (its bytes, unquoted). */
int tt_label_take(const tt_label *l, tt_event *ev);
/* The label's text, "[TP01]", into buf. */
const char *tt_label_text(const tt_label *l, char *buf, size_t cap);
/* Each label's global rank (l[i].rank), as c10d numbers the engine's ranks, world the job's size
** where the trace gives it (-1 not): 0, or -1 with why said in why[cap]. */
int tt_labels_number(tt_label *l, int n, int64_t world, char *why, size_t cap);
struct tt_rank;
/* A GPU activity's pid that is no number (tt_rank.c on_gpu): its label noted in r->labels where it
** is new, else counted in r->gpu_unlabelled. */
void tt_label_note(struct tt_rank *r, tt_slice pid);

typedef struct tt_rank {
  char *file;
  int64_t rank;       /* -1 until known (set when the file is done) */
  int64_t trace_rank; /* distributedInfo.rank, -1 if the trace has none */
  int64_t name_rank;  /* the rank the file's name gives (tt_name_rank), -1 if none */
  const char *name_form; /* the name's form (tt_name_rank), or why its ranks were not read; NULL if none */
  /* "trace" (distributedInfo), "comms" (its record_param_comms, tt_comms.c), "file_name"
  ** (tt_name_rank), "option", "default" */
  const char *rank_source;
  /* The record_param_comms of the CPU side read (the process's, in a file of several): the rank
  ** and world size where the trace has no distributedInfo (tt_rank_done) */
  tt_comms comms;
  /* On a device's own read of a file of one process and several GPUs (tt_options.device, not
  ** main_device): the process's calls (tt_call) and the External ids of the device's collective
  ** kernels, which Kineto gives a call's kernels (the shipped sample's NCCL kernels carry their
  ** record_param_comms'). Joined once the file is read (tt_done.c own_calls): own, what the calls
  ** of the device's own collectives name, where the process's calls name several devices' ranks */
  xp_vec calls, coll_exts;
  xp_vec p2p_calls; /* the sends' and recvs' record_param_comms: tt_call, rank its peer's */
  xp_vec group_calls; /* every record_param_comms naming its group, size or Seq: tt_group_call */
  tt_comms own;
  /* A device of a file of several (tt_read.c split_devices), and one whose rank neither the
  ** trace nor the command line gives: numbered once every file is read (tt_import_finish) */
  int split, number_later;
  const char *unranked; /* why the trace names no rank for it (static text), NULL: not said */
  cJSON *meta;    /* top-level keys other than traceEvents */
  int64_t base_ns;
  int have_base;
  int64_t world_size; /* -1 unknown */
  int64_t device;     /* GPU of the rank's activities (their pid), -1 unknown; set once done */
  uint64_t events, json_bytes;
  int64_t kernels, memcpys, memsets, cpu_ops, linked;
  /* Activities whose External id was their correlation id (Kineto of 2022-23 wrote it so): it
  ** names no operator; the innermost operator around their launch on its thread does, which a
  ** read again finds (tt_options.op_tree, tt_tree.c): the operators, threads and calls then */
  int64_t ext_is_corr;
  /* Activities with an External id and no correlation: in ROCm's oldest traces (tt_rank.hip
  ** without hip_ext_ops) that id is their launch's, and the operator is found as above */
  int64_t ext_no_corr;
  xp_vec tree_ops, tree_calls; /* tt_tree_op, tt_tree_call */
  xp_strtab threads;           /* tt_thread_key of each thread seen */
  /* Flows ("ac2g") and what has no correlation but may have a flow, noted as read and matched
  ** once the file is read (tt_flow.c): flow_starts, flow_ends, flow_activities (at their
  ** places), flow_launches */
  xp_vec flow_starts, flow_ends, flow_activities, flow_launches;
  int64_t flow_events, flow_wants; /* counted on every read: the flows, the activities waiting */
  uint64_t nonfinite; /* NaN / inf values the framer let through (tt_json.c scan_literal) */
  int64_t gpu_start, gpu_end, busy_ns, kernel_ns;
  tt_comm_time comm; /* the whole trace's, as tt_step.comm */
  int64_t dur_sum;    /* the GPU activities' durations so far (TT_SUM_LIMIT) */
  int64_t annot_sum;  /* the GPU annotations' durations so far (TT_SUM_LIMIT) */
  int64_t prof_start, prof_end; /* the "Trace" window: the union of several (0, 0: none) */
  int64_t step_annotations_skipped;
  int op_stepped;     /* an operator was given the step holding it as it was read */
  int ext_shared;     /* two operators had one External id (tt_rank.c replaces) */
  int window_step;    /* no step marks: one step spans the whole GPU window */
  int64_t engine_steps[TT_ENGINE_STEPS]; /* tt_engine_steps' annotations, where none was asked for */
  xp_vec kstats; xp_map kmap;  /* tt_kstat */
  xp_vec ivals;                /* tt_ival */
  /* uint32_t per ival: its (device, stream), numbered in order of appearance, TT_NO_LANE
  ** where the event names no stream; lane_map: device << 32 | stream -> lane. Not 16 bits: past
  ** 65,535 streams the ones the file named last would have had no lane, and no stream order */
  xp_vec lanes; xp_map lane_map;
  /* uint32_t per ival: its correlation id, 0 where it names none, TT_CORR_GRAPH_NODE for a CUDA
  ** graph's node. A CUDA or HIP graph's replayed activities all carry their graph launch's, which
  ** is how tt_clip.c tells one launch's concurrent branches (drawn on the launch's stream) from
  ** activities that follow in turn */
  xp_vec corrs;
  xp_vec steps;                /* tt_step, sorted by start once done */
  xp_vec stepk;                /* tt_stepk, once done */
  xp_vec gpu_annots;           /* tt_gpu_annot, while the file is read */
  xp_vec annots;               /* tt_annot, once done */
  int64_t annot_widen;         /* ns each gpu_user_annotation was widened by as written (tt_done.c) */
  xp_vec colls;                /* tt_collk */
  xp_vec shapes; xp_map smap;  /* tt_shape */
  xp_idmap ext;                /* External id -> (op + 1) | (step id + 1) << 32 */
  /* Steps found by CPU time once every step is known (tt_pend): an operator read before the
  ** step that holds it (torch 1.8's step after its children, a thread written first), or the
  ** launch of an activity no operator claims: a ROCm kernel (it carries the launch's
  ** correlation id and no operator's), a CUDA graph's replayed kernels, any kernel, copy or
  ** fill launched outside an operator the profiler recorded. */
  xp_idmap ext_ts;             /* External id -> TT_TS_KEEP(CPU ts) of an op no step held yet */
  xp_idmap ext_dur;            /* External id -> TT_TS_KEEP(op's duration), with op_times only */
  /* tt_launch of every runtime or driver call (cuda_*, xpu_*) with a correlation, in file order,
  ** then sorted by correlation where an activity needs one (a vector, not an idmap: the calls the
  ** profiler filters out, cudaGetDevice and the like, leave most ids of the range unused) */
  xp_vec launches;
  /* HIP's oldest launches and graph launches written with no correlation: tt_launch of each
  ** with its External id for corr, in file order, then sorted by (id, time) where an activity
  ** looks one up (tt_done.c ext_launch_time); and launch_ids, the set of those ids (id -> 1).
  ** Not folded into launches, though both hold launch times: while the file is read, on_runtime
  ** asks the set whether a HIP launch's External id was seen before (two launches under one id:
  ** the id is their operator's, and every kernel's External id names an operator,
  ** tt_rank.hip_ext_ops), which a list sorted only once the file is read cannot answer; the two
  ** also key different numberings (a kernel's External id looks up these alone). Every launch
  ** is kept, not one per id: two under one id (two replays of a graph in one operator) each
  ** place the activities that began after it was made. These launches are few (none in a CUDA
  ** trace that writes correlations): they cost nothing where there are none. */
  xp_vec ext_launches;
  xp_idmap launch_ids;
  /* The ids (correlation, else External id) of graph launches (cudaGraphLaunch, cuGraphLaunch,
  ** hipGraphLaunch) -> the times the launch is written at its first's time (2 or more: a trace
  ** merged with a copy of itself), or TT_GRAPH_LAUNCH_APART: every activity of such a launch
  ** carries its id, so none is told from its copy by the id alone (tt_clip.c). graph_launch_at:
  ** id -> the first's time (raw ns; INT64_MIN where it has none) */
  xp_idmap graph_launch_ids;
  xp_idmap graph_launch_at;
  /* The smallest correlation in launches, and graph launches' External ids (INT64_MAX: none).
  ** CUPTI and roctracer number a process's API calls in the order they are made, so an activity
  ** with a lower correlation whose launch is not in the trace was launched before the profiler
  ** began recording (its warm-up): no step's work. That holds where one process made every
  ** launch of the file: launch_procs (0 none, 1, 2 two or more), launch_pid (the first's). HIP's External ids are another numbering, and not counted. */
  int64_t launch_min;
  int launch_procs;
  tt_pid launch_pid;
  /* The processes whose operators and annotations (steps) were read, the first TT_CPU_PIDS of
  ** them (ncpu_pids one more where there were more): beside the one process that made every
  ** launch, another's (a data loader, a tokenizer profiled beside the GPU worker) is no CPU side
  ** of the rank, its External ids colliding with the worker's (tt_read.c read_launcher) */
  tt_pid cpu_pids[TT_CPU_PIDS];
  int ncpu_pids;
  int64_t before_trace;        /* activities so left out of every step */
  /* ... that would be, but the ids cannot tell (tt_done.c shares_numbering): not left out */
  int64_t before_unknown;
  const char *before_why;      /* ... why not (static text) */
  int driver_calls;            /* the trace records driver API calls (cat cuda_driver, xpu_driver) */
  int64_t corr_max;            /* the largest correlation of a GPU activity (0: none) */
  xp_vec pending;              /* tt_pend */
  int hip;                     /* launches through HIP (hip*LaunchKernel): ROCm's ids */
  int hip_ext_ops;             /* ... whose External ids name operators (tt_rank.c on_runtime) */
  int64_t cpu_min;             /* earliest CPU event, an API call too (raw ts, ns); INT64_MAX before one */
  /* GPU activities before gpu_floor (raw ts) are left out (TT_GPU_BEFORE_CPU); while the file
  ** is read it follows the CPU events read so far (INT64_MIN before one) unless the floor was
  ** given (floor_given: a second read, tt_read.c). The least kept and the latest left out
  ** activity say whether the whole file's floor would have decided alike. */
  int64_t gpu_floor, kept_min, dropped_max;
  int floor_given;
  /* GPU events left out or mended, for the warnings */
  int64_t gpu_before_cpu, neg_dur, not_complete, bad_steps, dup_steps, steps_not_complete;
  int64_t scope_copies; /* the XPU scope profiler's "metrics: NAME" copies of kernels (tt_rank.c) */
  int64_t legacy_gpu; /* events of the legacy autograd profiler's "CUDA functions" */
  int ascend;         /* a process named "Ascend Hardware": torch_npu's trace_view.json */
  int rocpd;          /* a GPU op of rocmProfileData's rpd2tracing ("desc": "KernelExecution") */
  /* Events of the categories read written "ts": 0, "dur": 0 (TT_NEAR_ZERO), CPU (operators,
  ** annotations, API calls, "Trace" spans) and GPU activities; left out on a read with
  ** tt_options.untimed_out. near_zero: a time within TT_NEAR_ZERO of 0 of any other event */
  int64_t zero_cpu, zero_gpu;
  int near_zero;
  /* GPUs (pids of GPU activity) seen, in order; one process that drove several wrote them all
  ** into one trace, and each becomes a rank of its own (tt_read.c) */
  int64_t devices[TT_MAX_DEVICES];
  int ndevices;                /* TT_MAX_DEVICES + 1: more than that */
  /* each one's number as its first activity's args write it ("device"), -1 where they do not:
  ** Kineto writes it as the pid too, but TraceLens' TraceFuse, merging ranks' files into one,
  ** moves each rank's pids apart (pid + rank x 10^k) and leaves the args as they were */
  int64_t dev_numbers[TT_MAX_DEVICES];
  /* GPU activities and kernels per device above: a device with copies and no kernel is not a
  ** GPU the process drove but one its peer copies ran on ("Memcpy PtoP") */
  int64_t dev_activities[TT_MAX_DEVICES], dev_kernels[TT_MAX_DEVICES];
  int64_t coll_matched, coll_unmatched;
  /* The rank labels of a merged file's GPU activities (tt_label, tt_rank.c on_gpu), in order of
  ** appearance, and its GPU activities whose pid is a string that carries none: a file whose
  ** activities all carry one is read per label (tt_read.c read_labels) */
  xp_vec labels;
  int64_t gpu_unlabelled;
  tt_be *be;                   /* "B"/"E" events met on this read (tt_pair.c), NULL: none */
  int done;
} tt_rank;

/* --events (torch_trace.c): each event written as it is read; forget: the events of the file
** being read written so far, dropped, where they are not what its rank reads (tt_read.c) */
typedef struct tt_keep {
  int (*event)(void *ctx, const tt_rank *r, const tt_event *ev);
  int (*forget)(void *ctx);
  void *ctx;
} tt_keep;

typedef struct tt_options {
  const char *step_annotation; /* NULL: ProfilerStep#N */
  int64_t rank;                /* -1: from the trace */
  int progress;                /* report progress on stderr for files over a few MiB */
  const int64_t *device;       /* non-NULL: only GPU activity on this device (pid) is read */
  /* device is the main one of a file that is one rank, its other devices' few activities strays
  ** (tt_read.c keep_main_device): the file's rank is the rank's, not the device's of several */
  int main_device;
  /* non-NULL: only this process's CPU side (operators, annotations, API calls) is read: the
  ** process that launched the device's work, in a file holding several (tt_owner.c), or the
  ** one that made every launch, beside processes that made none (tt_read.c read_launcher) */
  const tt_pid *proc;
  /* non-NULL: GPU activity before this raw ts is left out (tt_read.c reads a file again with
  ** its first CPU event's floor where the events read before it left that open) */
  const int64_t *gpu_floor;
  /* With --events: called for every event, in document order. Nonzero stops the import. Only
  ** on a file's first read: a read again (tt_read.c) leaves it NULL, the events being written. */
  int (*on_event)(void *ctx, const tt_rank *r, const tt_event *ev);
  void *event_ctx;
  /* --events: the file's events are kept under the file's one rank (torch_trace.c label_events),
  ** so a file that would be several ranks is refused (tt_read.c split_devices), and one that is
  ** a rank read on its main device keeps that device's events alone (keep_main_device). Kept on
  ** every read of the file, where on_event is not: which read finds the devices depends on the
  ** file. NULL: not kept. */
  const struct tt_keep *events_kept;
  int scan_only; /* on_event alone sees the events (tt_scan_file) */
  /* every operator's step decided once the file's steps are all read, not the one holding it as
  ** it is read, and of operators sharing an External id the innermost kept: a second read where
  ** steps nest or ids are shared (tt_read.c), 16 bytes more per operator */
  int op_times;
  /* the CPU operators' times by thread, and the threads of the runtime and driver calls, kept
  ** (tt_rank.tree_ops, tree_calls), 40 and 24 bytes each, which link an activity whose External
  ** id is its correlation to its operator: a second read where the first met any (tt_read.c) */
  int op_tree;
  /* the "ac2g" flows kept, with the launches and activities that carry no correlation, 24 to 40
  ** bytes each (tt_flow.c): a second read where the first met flows and such activities */
  int flows;
  /* non-NULL: the file's "B"/"E" events paired, each pair read as the complete event it stands
  ** for: a second read where the first met any (tt_read.c); NULL, the first notes them */
  const tt_pairing *pairs;
  /* non-NULL: GPU activities that outlast the next one on their stream (tt_clip), each read as
  ** ending where that one starts, or written again: a second read where the first found any
  ** (tt_read.c) */
  struct tt_clips *clips;
  /* --events, on the read that pairs (pairs non-NULL) after a first read that kept the file's
  ** events (on_event): the halves that read left to their pair (tt_event_kept_now) are kept by
  ** this one, through events_kept, as each pair is made */
  int keep_halves;
  /* non-NULL: only the events whose pid carries this label are read, each with the pid it labels
  ** (tt_read.c read_labels: a rank of a merged file, whose label gives its rank) */
  const tt_label *label;
  /* events written "ts": 0, "dur": 0 left out: untimed (TT_NEAR_ZERO), as a first read found
  ** them (tt_read.c read_untimed) */
  int untimed_out;
} tt_options;

typedef struct tt_import {
  const tt_rules *rules;
  xp_strtab names; xp_vec name_info; /* tt_name_info per name id */
  uint32_t names_mended;             /* names with a text of their own (tt_name_info.text) */
  xp_strtab ops;                     /* operator + shapes keys */
  xp_strtab pgs;                     /* process group keys */
  xp_strtab strs;                    /* dtypes and other small strings */
  xp_strtab annot_names;             /* gpu_user_annotation names, as the trace's bytes */
  tt_rank **ranks;
  int nranks;
  /* matching summary */
  int64_t match_groups, matched, unmatched;
  int single_rank;   /* one rank imported: collective times include waiting for peers */
  int64_t untimed_events; /* events left out as untimed (TT_NEAR_ZERO), every file's */
  /* The most two hosts' clocks may differ (TT_HOST_SKEW_NS unless given): ranks naming different
  ** hosts are one job where their GPU windows overlap once widened by this much (tt_read.c) */
  int64_t host_skew_ns;
  char match_note[512];
  char *scratch; size_t scratch_cap;
} tt_import;

/* Hosts' clocks differ (NTP keeps them within milliseconds, a host without it drifts seconds): by
** default ranks on different hosts are one job where their windows overlap within 10 s, so that a
** short profile of a multi-node job is not refused for its clocks. */
#define TT_HOST_SKEW_NS 10000000000LL

void tt_import_init(tt_import *imp, const tt_rules *rules);
void tt_import_free(tt_import *imp);
/* Stream one file into a new rank of imp. Errors are reported (one line naming the file and
** the byte offset or event number) and returned as an exit code (XP_EXIT_USAGE for bad input,
** XP_EXIT_ABORTED when interrupted). */
int tt_read_file(tt_import *imp, const char *path, const tt_options *opt);
/* After all files: check the ranks belong to one job, then match collectives across ranks and
** split their time into wait and transfer. 0 or XP_EXIT_USAGE. */
int tt_import_finish(tt_import *imp);

/* Internal steps, shared between the files of the library. */
/* GPU annotations (tt_annot.c): their steps by their CPU ranges' External ids, before the times
** are shifted; then, once the activities are placed and sorted by start, the rest by time, the
** totals per step and name (tt_rank.annots) and the writer's widening (tt_rank.annot_widen). */
void tt_annots_link(tt_rank *r);
/* The per-key totals (tt_rank.kstats) summed again from the activities, in the file's order, where
** their keys changed once the file was read (tt_done.c: a collective named by its call). */
void tt_kstats_again(tt_rank *r);
void tt_annots_done(tt_rank *r);
/* What an event's read returns where --events could not keep an event (the database's error,
** said): not the trace's fault, XP_EXIT_DB; else 0, or -1 with err set. */
#define TT_NOT_KEPT (-2)
int tt_rank_event(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt,
                  char *err, size_t errlen);
/* Whether the read leaves ev out as another device's GPU activity or another process's CPU
** event (tt_options.device, .proc), by its category: what --events leaves out with it. */
int tt_event_elsewhere(const tt_event *ev, const tt_options *opt);
/* Whether --events keeps ev as it is read: not elsewhere, and not a half of a pair ("B"/"E")
** that names no category on a read that leaves some out, whose pair's category decides once the
** pair is known (tt_be_event keeps it then). */
int tt_event_kept_now(const tt_event *ev, const tt_options *opt);
/* Whether ev is written with no time ("ts": 0, "dur": 0) on a read that leaves such events out
** (tt_options.untimed_out): --events keeps it with no time. */
int tt_event_untimed(const tt_event *ev, const tt_options *opt);
int tt_rank_meta(tt_import *imp, tt_rank *r, tt_slice key, tt_slice val, char *err, size_t errlen);
/* A complete event (or any but "B"/"E"), as tt_rank_event hands it on (tt_pair.c makes them). */
int tt_rank_complete(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt,
                     char *err, size_t errlen);
/* A "B" or "E" event (tt_pair.c): noted where opt->pairs is NULL, else held or, with its
** partner, read as the complete event. 0, -1 with err set, or TT_NOT_KEPT. */
int tt_be_event(tt_import *imp, tt_rank *r, const tt_event *ev, const tt_options *opt, char *err, size_t errlen);
/* An async span, a "b"/"e" pair whose "b" marks a step (tt_pair.c), as the "X" it stands for:
** the step's annotation, unless another process's. 0, or -1 with err set. */
int tt_rank_async(tt_import *imp, tt_rank *r, const tt_event *x, const tt_options *opt, char *err, size_t errlen);
/* Does name (n bytes, decoded) mark a step by opt's rule: ProfilerStep#N, or the annotation asked for? */
int tt_marks_step(const tt_options *opt, const char *name, size_t n);
/* Pair the B/E events a first read noted (b may be NULL): 1 with *out filled (tt_pairing_free),
** 0 where there were none. */
int tt_be_pair(tt_be *b, tt_pairing *out);
void tt_pairing_free(tt_pairing *p);
void tt_be_free(tt_be *b);
void tt_rank_done(tt_import *imp, tt_rank *r, const tt_options *opt);
/* The rank's GPU as its activities number it (tt_rank.dev_numbers), else its pid; -1: none. */
int64_t tt_device_number(const tt_rank *r);
/* The rank the file's name gives, TensorRT-LLM's and vLLM's "-rank-N" before an extension or at
** the end ("trace-rank-3.json", "trace.json-rank-3.gz"), or SGLang's "-TP-N" where that is the
** rank; -1 where it gives none. *form: the form, said in warnings, or why the name's ranks were
** not read; NULL where the name has none. */
int64_t tt_name_rank(const char *path, const char **form);
/* Why files a and b of one rank may be two data-parallel replicas' workers, as their names say: a
** clause to end the refusal with, else "". */
const char *tt_name_replicas(const tt_rank *a, const tt_rank *b);
/* Are files a and b of one rank SGLang's traces of two stages (its --profile-by-stage)? */
int tt_name_stages(const tt_rank *a, const tt_rank *b);
/* Link a GPU activity (its kernel key and duration) to the operator of External id ext, whose
** entry in tt_rank.ext is op_step: the operator's shapes count it. Returns the id of the step
** the operator ran in, -1 if none held it when it was read; then *t is TT_TS_KEEP of the
** operator's CPU time (0: none), which places the activity once every step is known. */
int32_t tt_link(tt_rank *r, uint32_t key, int64_t dur, int64_t ext, uint64_t op_step, uint64_t *t);
/* ... the operator op (its id in tt_import.ops) counts the activity: shapes and linked. */
void tt_link_op(tt_rank *r, uint32_t key, int64_t dur, uint32_t op);
/* A thread's key, its pid and tid as keys (tt_id_key: 7 and "7" alike) joined by 0x1f, into out
** (cap bytes), or malloc'd where longer; its length in *n (tt_pair.c). */
char *tt_thread_key(const tt_event *ev, char *out, size_t cap, size_t *n);
/* The thread an event ran on, numbered in the order first seen in tt_rank.threads (tt_thread_key:
** its pid and tid, 7 and "7" alike, as the B/E pairing keys threads; tt_tree.c). */
uint32_t tt_thread_of(tt_rank *r, const tt_event *ev);
/* On the read that keeps them (tt_options.op_tree, tt_tree.c): an operator (a cpu_op) at raw
** ts for dur ns, of External id ext and key op, and a call of correlation corr at raw ts. */
void tt_tree_op_add(tt_rank *r, const tt_event *ev, int64_t ts, int64_t dur, int64_t ext, uint32_t op);
void tt_tree_call_add(tt_rank *r, const tt_event *ev, int64_t corr, int64_t ts);
/* Link each activity waiting on its launch's operator (TT_BY_TREE, and in ROCm's oldest traces
** a TT_BY_EXT with no correlation beside it) to the innermost operator around that launch on its
** thread, where the read kept them; each is then placed by its launch (TT_BY_CORR; ROCm's by
** tt_done.c resolve_launches). Frees what the read kept for it. */
void tt_tree_link(tt_rank *r);
void tt_rank_free(tt_rank *r);
/* The host a rank's trace names ("hostname" and its spellings in the trace's metadata), or NULL. */
const char *tt_rank_host(const tt_rank *r);
int tt_match_ranks(tt_import *imp);
/* Which side of the link an event is: a GPU activity (kernel, copy, fill), a runtime or driver
** API call (a launch), or neither. */
enum tt_side { TT_SIDE_OTHER, TT_SIDE_GPU, TT_SIDE_LAUNCH };
enum tt_side tt_event_side(const tt_event *ev);
/* An event's "External id" (its operator's; Kineto spelt it "external id" until 2022), 0 if none. */
int64_t tt_event_ext(const tt_event *ev);
/* Stream a file already read once (so known to be well-formed) through fn alone, no rank built;
** label non-NULL: its events alone (tt_options.label). 0, or the exit code of an error said. */
int tt_scan_file(tt_import *imp, const char *path, const tt_label *label,
                 int (*fn)(void *ctx, const tt_rank *r, const tt_event *ev), void *ctx);
/* The process that launched the work of each of the file's devices dev[0, ndev) (tt_owner.c), of
** the label's events where label is non-NULL: proc[i] where owned[i], else the ids do not tell;
** rank[i], that process's global rank as its record_param_comms name it, -1 where they do not. 0
** or the exit code of a read error. */
int tt_device_owners(tt_import *imp, const char *path, const tt_label *label, const int64_t *dev, int ndev,
                     tt_pid *proc, int *owned, int64_t *rank);
/* What marks the import's steps: the annotation asked for, "ProfilerStep#N", or, where no
** rank had either, TT_WHOLE_WINDOW (each rank's GPU activity as one step). */
#define TT_WHOLE_WINDOW "(whole window)"
const char *tt_steps_marked_by(const tt_import *imp, const tt_options *opt);
/* The step annotations of vLLM's and of SGLang's profiler hooks, as --step-annotation patterns. */
extern const char *const tt_engine_steps[TT_ENGINE_STEPS];

/* A GPU activity that outlasts the next one on its stream, or is written more than once
** (tt_clip.c): its place as written, where it ends once clipped, and its copies. The CUDA graph
** nodes' activities at one place are one tt_clip, which the read tells apart (tt_node_seen). */
typedef struct tt_clip {
  uint64_t lane;      /* device << 32 | stream, as tt_rank.lane_map keys it */
  int64_t start, end; /* raw ns, as written */
  int64_t to;         /* the next activity's start on the stream; end where not clipped */
  uint32_t key;       /* its kernel key (of a graph place's, the first's) */
  uint32_t corr;      /* its correlation id, 0 where none, TT_CORR_GRAPH_NODE (tt_rank.corrs) */
  int applied;        /* a read of the file met it (tt_clip_event) */
  uint32_t copies;    /* the times it is written again (a graph place's: its other nodes' times) */
  uint32_t met;       /* the times a read of the file met it, the first one kept */
  uint32_t dropped;   /* the copies that read left out */
  uint32_t seen_at;   /* a graph place's: where its nodes met start in tt_clips.seen */
  uint32_t keep;      /* of its copies + 1 writes, how many count: 1, or of a graph launch written
                      ** again, its writes / the launch's */
} tt_clip;
/* A CUDA graph node's activity met by the read that leaves copies out: one replay of one node. */
typedef struct tt_node_seen {
  uint64_t node; /* its "graph node id" */
  int64_t corr;  /* its graph launch's correlation id */
} tt_node_seen;
typedef struct tt_clips {
  xp_vec list; /* tt_clip, sorted by place */
  xp_vec seen; /* tt_node_seen: copies + 1 for each graph place, from its seen_at */
  /* graph launches written again whose activities are not each written as often (their copies
  ** not told, counted as written), and the first one's id */
  int64_t uneven, uneven_first;
  /* where no copy is told: the places of lasting activities, and those holding one written more
  ** than once that nothing tells from like graph nodes (tt_clip.c count_repeated) */
  int64_t places, repeated;
} tt_clips;
/* A GPU activity's "graph node id" (Kineto, CUDA 12 on): 0 outside a CUDA graph, UINT64_MAX
** where written as no number (a node still, which no id tells from another; tt_rank.c). */
#define TT_NODE_UNKNOWN UINT64_MAX
uint64_t tt_graph_node(const tt_event *ev);
/* Flows from launches to activities (tt_flow.c). tt_flow_event: 1 if ev is one (a "s" or "f" of
** category "ac2g"), counted, and noted on the read that keeps them (tt_options.flows); the wants:
** a launch, and an activity (its ival), that carry no correlation, to be given their flow's id as
** one by tt_flows_link once the file is read. */
int tt_flow_event(tt_rank *r, const tt_event *ev, const tt_options *opt);
void tt_flow_want_launch(tt_rank *r, const tt_event *ev, const tt_options *opt, int64_t ts);
void tt_flow_want_activity(tt_rank *r, const tt_event *ev, const tt_options *opt, int64_t ts, uint32_t ival);
void tt_flows_link(tt_rank *r);
/* A launch's id (correlation, or a graph launch's External id) made by process pid (tt_rank.c). */
void tt_launch_id_note(tt_rank *r, tt_slice pid, int64_t id);

/* The activities of r (read, not yet done) that outlast the next one on their stream or are
** written again, added to out (tt_clip, sorted by lane, start and end); their count. */
size_t tt_clips_find(const tt_rank *r, tt_clips *out);
/* ev a GPU activity that clips names: its "dur" rewritten in buf[cap] to end where clipped.
** 1 where ev is a copy of one met before, to be left out; else 0. */
int tt_clip_event(tt_clips *clips, tt_event *ev, char *buf, size_t cap);

/* 1 if no step's window (steps sorted by start) overlaps the next one's (tt_done.c). */
int tt_steps_disjoint(const xp_vec *steps);
/* Whether activities of kernel key `key` communicate (their name's category is in the
** communication group at import time, as trace_collectives counts them). */
#define tt_key_is_comm(imp, key) (XP_VEC_AT(&(imp)->name_info, tt_name_info, TT_KEY_NAME(key))->comm)
typedef struct tt_span {
  int64_t start, end;
} tt_span;
/* What may hide a rank's communication, each merged and in order of start: any of its activities
** that do not communicate, and of them its compute kernels (tt_overlap.c). */
typedef struct tt_hiders {
  tt_span *any, *compute;
  size_t nany, ncompute;
} tt_hiders;
void tt_hiders_of(const tt_import *imp, const tt_ival *iv, size_t n, tt_hiders *h);
void tt_hiders_free(tt_hiders *h);
/* The communication of activities iv[0, n), one step's or the whole trace's, sorted by start, and
** the parts of it that the rank's hiders h (tt_hiders_of) did not overlap (tt_overlap.c). */
void tt_comm_exposed(const tt_import *imp, const tt_ival *iv, size_t n, const tt_hiders *h, tt_comm_time *out);
/* The step (index into the sorted steps) whose CPU window contains t, or -1. */
int32_t tt_step_at(const xp_vec *steps, int64_t t);
#endif
