/*
** What NCCL says about itself: its INFO log (NCCL_DEBUG=INFO, subsystems INIT, GRAPH, TUNING,
** ENV) and its topology dump (NCCL_TOPO_DUMP_FILE). The nccl_burst runner reads the files it
** had NCCL write; the nccl-tests importer reads the same lines interleaved in a log. From both
** together comes the interconnect a run really used, whatever its spec declared.
*/
#ifndef XP_NCCL_INFO_H
#define XP_NCCL_INFO_H
#include <stddef.h>
#include <stdint.h>
#include "table.h"

/* One peer connection NCCL set up: "Channel 03/0 : 0[0] -> 1[1] via P2P/CUMEM". Channels
** with the same ranks and transport are counted together. */
typedef struct xp_nccl_conn {
  int src, dst;          /* ranks */
  char transport[64];    /* as printed after "via", without [send]/[receive] */
  int channels;
  /* lines seen: a NET connection is logged [send] by one rank and [receive] by the other, and a
  ** log may hold either side alone; channels = untagged + the larger side */
  int untagged, sends, receives;
  /* where the line came from, to tell communicators apart (xp_nccl_info_one_comm): the log's
  ** thread (host:pid:tid), its span between communicator lines, and the communicator (-1 not
  ** known yet); kept in the attribution table alone */
  int thread, span, comm;
  /* what the line's brackets hold of each end (its bus id, or its device before NCCL 2.7 and
  ** after 2.19): told apart from another of the ranks, to join a communicator before 2.14 */
  char src_dev[20], dst_dev[20];
  /* the log's count of NCCL lines at its first line: which handles were set up and not yet
  ** destroyed then, where no thread's set-up tells its communicator */
  int line;
} xp_nccl_conn;

/* A communicator a log names by its commId ("... commId 0x5ae77eb5ea4ec1ee - Init START", NCCL
** 2.14 on), or a split printed without one by its parent's, split count and color ("0x5ae7..
** split 1 color 0"), with its size. */
typedef struct xp_nccl_comm {
  char id[64];
  int nranks;
  /* before 2.14 (no commId, id ""): one process's handle, its rank, device and bus id ("" none)
  ** as its "Init COMPLETE" states them; xp_nccl_info_one_comm joins the handles its connections
  ** link into communicators */
  int proc, rank, dev;
  char bus[20];
} xp_nccl_comm;

/* One process's handle of a communicator ("comm 0x55.. rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId
** 1b000" of its Init lines): the communicator (-1 none yet), what a connection line's brackets may
** hold of its rank (its devices and bus id), and the lines it was live between (its first Init line,
** its "Destroy COMPLETE" or "Abort COMPLETE"; INT32_MAX none); next: the process's previous handle. */
typedef struct xp_nccl_handle {
  int comm, proc, rank, dev, nvml, born, died, next;
  char bus[20];
} xp_nccl_handle;

/* A thread of the log (host:pid:tid) and a process (host:pid): the communicator a thread is
** setting up (-1 none), the span its lines are in, how many connections of the span wait for
** a communicator; a process's one communicator (-1 none, -2 several). */
typedef struct xp_nccl_thread {
  int proc, current, span, pending;
} xp_nccl_thread;

/* What a thread's span (as a connection's) printed of the graphs and channels NCCL chose for the
** communicator it set up: GRAPH's farthest type ("" none), the "coll channels" line's counts (coll
** -1: no such line), its rings' channels and nodes (-1 none), its "Connected all rings" words ("" none);
** pooled in xp_nccl_info, these keep them apart for xp_nccl_info_one_comm. */
typedef struct xp_nccl_facts {
  int thread, span, comm;
  char graph_intra[8];
  int coll, nvls, p2p, per_peer;
  int ring_channels, nnodes, local_ranks;
  char rings[96];
} xp_nccl_facts;

/* One TUNING line: "AllReduce: 14336 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}". */
typedef struct xp_nccl_tuning {
  char func[32];
  int64_t bytes;         /* count * element size of the call, as NCCL prints it */
  char algo[32], proto[16];
  int ch_lo, ch_hi;
} xp_nccl_tuning;

typedef struct xp_nccl_kv {
  char key[64], value[192];
} xp_nccl_kv;

typedef struct xp_nccl_info {
  char version[64];      /* "2.28.9+cuda13.0" */
  int cuda_driver;       /* 13000; -1 unknown */
  /* RCCL's lines after its version (NCCL_DEBUG=VERSION or INFO): the HIP and ROCm it was built
  ** with ("7.12.60430-713bdeef5b"), and those it ran with where they differ ("6.5.1"); "" none */
  char hip_version[64], rocm_version[64], hip_runtime[32], rocm_runtime[32];
  char rocr_version[16];  /* RCCL's INFO line "ROCr version 1.14": the HSA runtime's; "" none */
  int nranks, nnodes, local_ranks;
  int ring_channels;     /* from "Channel 00/24 : 0 1": 24 */
  int coll_channels, nvls_channels, p2p_channels, p2p_per_peer;
  char rings[96];        /* "use ring PXN 0 GDR 1" */
  /* the farthest path between a node's GPUs NCCL's ring and tree graphs needed, as its GRAPH lines
  ** say it ("Pattern 4, ..., type NVL/PIX": NVL), "" where none was printed */
  char graph_intra[8];
  char net[64];          /* "Socket", "IB" */
  int nconn, nconn_alloc;
  xp_nccl_conn *conn;
  xp_strtab conn_keys;   /* (src, dst, transport) as bytes; a key's id is its index in conn */
  int natt, natt_alloc;  /* the same connections by thread and span, for their communicators */
  xp_nccl_conn *att;
  xp_strtab att_keys;
  int ncomms, nthreads, nprocs;
  xp_nccl_comm *comms;
  xp_nccl_thread *threads;
  int *proc_comm;
  xp_strtab comm_keys, thread_keys, proc_keys;
  xp_nccl_handle *handles; /* by (process, comm pointer), interned in ptr_keys */
  xp_strtab ptr_keys;
  int *proc_handles;     /* by process: its latest handle, -1 none (a list through next) */
  int line_thread;       /* the thread of the line being read */
  int nfacts;
  xp_nccl_facts *facts;
  int ntuning, ntuning_alloc;
  xp_nccl_tuning *tuning;
  int nenv, nenv_alloc;
  xp_nccl_kv *env;       /* "NCCL_P2P_DISABLE set by environment to 1" */
  int warnings;
  char first_warning[256];
  int info_lines;        /* lines recognised as NCCL's */
  /* NCCL lines Ray's log deduplication left out ("[repeated 27x across cluster]" after the one it
  ** kept): what they said is not counted (their connections and channels among them) */
  int64_t ray_repeated;
} xp_nccl_info;

void xp_nccl_info_init(xp_nccl_info *info);
void xp_nccl_info_free(xp_nccl_info *info);
/* Parse one line; returns 1 if it was an NCCL INFO or WARN line, else 0. */
int xp_nccl_info_line(xp_nccl_info *info, const char *line, size_t len);
/* Parse a whole log (several logs may be fed to one info: the facts accumulate). */
void xp_nccl_info_parse(xp_nccl_info *info, const char *text, size_t len);
/* The last TUNING choice seen for func (NCCL's name, "AllReduce") at `bytes`, or NULL. NCCL
** 2.19-2.23 printed no function ("1024 Bytes -> Algo 1 proto 0"): such a choice answers any. */
const xp_nccl_tuning *xp_nccl_info_tuning(const xp_nccl_info *info, const char *func, int64_t bytes);
/* Where the log holds connections of several communicators (several commIds: split groups,
** tests appended, a framework's TP and world groups), keeps those of one alone: the one process
** pid set up (the test's rank 0; 0 unknown), else the first of nranks ranks (the test's size),
** else the first; says which in said ("" where the log names one communicator or none: nothing
** changes). Its GRAPH type and channel counts are then that communicator's alone. Connections
** a process that set up several printed after their set-up (NCCL 2.22 on: at the first collective)
** are the communicator the line names (RCCL's), else the one of those the process held then (set up,
** not yet destroyed) whose ranks and devices its ends can be; of several or none, left out, said.
** Returns how many connections were left out. */
int xp_nccl_info_one_comm(xp_nccl_info *info, int nranks, int pid, char *said, size_t n);
/* Where a path type NCCL names ("NVL", "PIX", "SYS") stands, nearest first; -1 for another name. */
int xp_nccl_path_rank(const char *type);
/* Value NCCL reported reading from the environment, or NULL. */
const char *xp_nccl_info_env(const xp_nccl_info *info, const char *key);
/* Orders transports GPU to GPU first (P2P), then through host memory (SHM), then through a NIC
** (NET, CollNet), each kind by name: the order xp lists them in, whatever the log's. */
int xp_nccl_transport_cmp(const char *a, const char *b);
/* Distinct transports in that order, comma-separated, into buf. */
void xp_nccl_info_transports(const xp_nccl_info *info, char *buf, size_t n);

/* ---- topology dump ---- */

typedef struct xp_topo_link {
  char target[32];       /* peer PCI bus id, or an NVSwitch's */
  char tclass[16];       /* class of the peer: 0x068000 is an NVSwitch (bridge) */
  int count;
  int xgmi;              /* AMD's Infinity Fabric (RCCL's <xgmi>), not an NVLink */
} xp_topo_link;

typedef struct xp_topo_pci {
  char busid[32], cls[16], link_speed[32];
  int link_width;
  int parent;            /* index of the enclosing <pci>, -1 directly under a CPU */
  int cpu;               /* index of the enclosing <cpu> */
} xp_topo_pci;

typedef struct xp_topo_gpu {
  int dev, rank, sm;
  int mlopart;           /* its partition of one physical GPU (NCCL's MLOPart, "mlopart"), -1 none */
  int pci;               /* index of its <pci> */
  int nlinks;
  xp_topo_link links[16];
} xp_topo_gpu;

typedef struct xp_topo {
  int npci, ngpu, ncpu, nnic;
  /* the distinct NUMA nodes of its <cpu> elements (numaid), those NCCL's GPUs and NICs sit on;
  ** -1 where one states none (numaid="-1": a VM) */
  int nnuma;
  int numaid[64];
  int numa_cpu[64];      /* the first <cpu> of each, whose host tells two hosts' node 0 apart */
  /* each <cpu>'s host_hash ("" where it states none, before NCCL 2.19): one host's, but for a dump
  ** NCCL fused across an MNNVL domain (GB200 NVL72's trays), whose hosts' GPUs share no PCIe */
  char (*cpu_host)[24];
  int nhosts;
  xp_topo_pci *pci;
  xp_topo_gpu *gpu;
  char (*nic)[64];       /* "eth0 10000 Mb/s" */
  int *nic_cpu;          /* each NIC's <cpu> (its host's), -1 outside one */
} xp_topo;

/* Parse NCCL's <system version="1"> dump. 0, or -1 with a reason in err for what is not one. */
int xp_topo_parse(const char *xml, size_t len, xp_topo *out, char *err, size_t errn);
void xp_topo_free(xp_topo *t);
const xp_topo_gpu *xp_topo_gpu_of_rank(const xp_topo *t, int rank);
/* The physical GPUs of the dump: a GPU NCCL lists once per partition (MLOPart: a <gpu> each under
** its one <pci>) counts once, as xp_topo_pair joins its partitions by a "local" path. */
int xp_topo_physical_gpus(const xp_topo *t);

/* How two ranks' GPUs are connected. kind: "nvlink", "xgmi" or "pcie", "local" for two ranks on
** one physical GPU (MLOPart partitions: no link between GPUs), empty if unknown;
** detail: "18 NVLinks through NVSwitch", "PCIe PIX (same switch)", ... */
typedef struct xp_topo_path {
  char kind[16];
  char detail[96];
  int nvlinks;
  int pcie_level;        /* how far a PCIe path goes: 1 PIX, 2 PXB, 3 PHB, 4 SYS; 0 for a link */
} xp_topo_path;
int xp_topo_pair(const xp_topo *t, int rank_a, int rank_b, xp_topo_path *out);

/* The interconnect a run used, from the transports NCCL connected and, for P2P, the path
** between the GPUs: "nvlink", "pcie", "shm" or "net" (the slowest one seen), or NULL when the
** log does not say (no connections, or P2P where neither a topology nor NCCL's GRAPH lines, the
** type of its graphs' paths, tell NVLink from PCIe).
** basis gets a sentence saying why: the slowest connection (the farthest PCIe path among
** equals, then the lowest ranks), and how many of each transport where they were mixed. */
const char *xp_nccl_interconnect(const xp_nccl_info *info, const xp_topo *topo, char *basis,
                                 size_t n);
#endif
