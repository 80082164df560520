/*
** NCCL's INFO log, read line by line. NCCL prints "host:pid:tid [dev] NCCL INFO <message>";
** only the message matters here, and only the messages that say what NCCL chose: version,
** ranks and nodes, channels, the transport of every peer connection, the algorithm and
** protocol of every collective (TUNING), and the environment it read. Unknown lines are
** skipped: NCCL adds messages in every release and a log must still be readable.
*/
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "nccl_info.h"
#include "xp.h"

void xp_nccl_info_init(xp_nccl_info *info) {
  memset(info, 0, sizeof *info);
  info->cuda_driver = info->nranks = info->nnodes = info->local_ranks = -1;
  info->ring_channels = info->coll_channels = info->nvls_channels = -1;
  info->p2p_channels = info->p2p_per_peer = -1;
  info->line_thread = -1; /* no line read yet */
}

void xp_nccl_info_free(xp_nccl_info *info) {
  free(info->conn);
  xp_strtab_free(&info->conn_keys);
  free(info->att);
  xp_strtab_free(&info->att_keys);
  free(info->comms);
  free(info->threads);
  free(info->proc_comm);
  free(info->facts);
  xp_strtab_free(&info->comm_keys);
  free(info->handles);
  free(info->proc_handles);
  xp_strtab_free(&info->ptr_keys);
  xp_strtab_free(&info->thread_keys);
  xp_strtab_free(&info->proc_keys);
  free(info->tuning);
  free(info->env);
  xp_nccl_info_init(info);
}

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void copy_trimmed(char *dst, size_t n, const char *src) {
  while (*src == ' ') src++;
  snprintf(dst, n, "%s", src);
  size_t l = strlen(dst);
  while (l && (dst[l - 1] == ' ' || dst[l - 1] == '\r' || dst[l - 1] == '\n')) dst[--l] = 0;
}

/* The count NCCL printed at p ("24", "00"), after any blanks, into *v; NULL where p holds no digits
** or a number past int, which no NCCL prints (a garbled line: sscanf's %d read 4294967320 as 24). */
static const char *count_at(const char *p, int *v) {
  while (*p == ' ') p++;
  if (!isdigit((unsigned char)*p)) return NULL;
  char *end;
  errno = 0;
  const long n = strtol(p, &end, 10);
  if (errno == ERANGE || n > INT_MAX) return NULL;
  *v = (int)n;
  return end;
}

/* Counts one more channel of the connection (src, dst, transport), adding it when new. The
** connections are interned by their bytes, so a key's id is its index in info->conn: a
** 512-rank all-to-all log sets up 260,000 of them, and a list walk per line took minutes. */
enum conn_side { SIDE_NONE, SIDE_SEND, SIDE_RECEIVE };

static void count_side(xp_nccl_conn *c, enum conn_side side) {
  if (side == SIDE_SEND) c->sends++;
  else if (side == SIDE_RECEIVE) c->receives++;
  else c->untagged++;
  c->channels = c->untagged + (c->sends > c->receives ? c->sends : c->receives);
}

/* The entry of key in a table of connections, added where new. */
static xp_nccl_conn *conn_entry(xp_nccl_conn **tab, int *n, int *alloc, xp_strtab *keys, const char *key,
                                size_t kl) {
  int added = 0;
  uint32_t id = xp_strtab_intern(keys, key, kl, &added);
  if (!added) return &(*tab)[id];
  if (*n == *alloc) {
    *alloc = *alloc ? 2 * *alloc : 16;
    *tab = xp_xrealloc(*tab, sizeof **tab * (size_t)*alloc);
  }
  xp_nccl_conn *c = &(*tab)[(*n)++];
  memset(c, 0, sizeof *c);
  c->thread = c->comm = -1;
  return c;
}

/* The connection (src, dst, transport) of info->conn, added where new. */
static xp_nccl_conn *pair_entry(xp_nccl_info *info, int src, int dst, const char *transport) {
  char key[2 * sizeof(int) + sizeof info->conn->transport];
  size_t tl = strnlen(transport, sizeof info->conn->transport - 1);
  memcpy(key, &src, sizeof src);
  memcpy(key + sizeof src, &dst, sizeof dst);
  memcpy(key + 2 * sizeof src, transport, tl);
  xp_nccl_conn *c = conn_entry(&info->conn, &info->nconn, &info->nconn_alloc, &info->conn_keys, key,
                               2 * sizeof src + tl);
  if (!c->transport[0]) {
    c->src = src;
    c->dst = dst;
    memcpy(c->transport, transport, tl);
    c->transport[tl] = 0;
  }
  return c;
}

/* Counted twice: among all (info->conn), and by the thread and span that printed it (info->att),
** where xp_nccl_info_one_comm finds its communicator; comm is the one the line names itself
** (RCCL's), -1 where it names none. */
static void add_conn(xp_nccl_info *info, int src, int dst, const char ends[2][20], const char *transport,
                     enum conn_side side, int comm) {
  count_side(pair_entry(info, src, dst, transport), side);
  const int t = info->line_thread;
  if (t < 0) return;
  xp_nccl_thread *th = &info->threads[t];
  int head[5] = {src, dst, t, th->span, comm};
  char key[sizeof head + sizeof info->conn->transport];
  size_t tl = strnlen(transport, sizeof info->conn->transport - 1);
  memcpy(key, head, sizeof head);
  memcpy(key + sizeof head, transport, tl);
  xp_nccl_conn *a = conn_entry(&info->att, &info->natt, &info->natt_alloc, &info->att_keys, key, sizeof head + tl);
  if (a->thread < 0) {
    a->src = src;
    a->dst = dst;
    memcpy(a->transport, transport, tl);
    a->transport[tl] = 0;
    a->thread = t;
    a->span = th->span;
    a->line = info->info_lines;
    a->comm = comm >= 0 ? comm : th->current;
    memcpy(a->src_dev, ends[0], sizeof a->src_dev);
    memcpy(a->dst_dev, ends[1], sizeof a->dst_dev);
  }
  if (a->comm < 0) th->pending++;
  count_side(a, side);
}

/* The graphs and channels the line's thread printed in its span, added where new (a span's
** lines are consecutive on its thread: the thread's latest entry is the one, if any). */
static xp_nccl_facts *facts_entry(xp_nccl_info *info) {
  const int t = info->line_thread;
  if (t < 0) return NULL;
  const xp_nccl_thread *th = &info->threads[t];
  for (int i = info->nfacts - 1; i >= 0; i--)
    if (info->facts[i].thread == t) {
      if (info->facts[i].span == th->span) return &info->facts[i];
      break;
    }
  info->facts = xp_xrealloc(info->facts, sizeof *info->facts * (size_t)(info->nfacts + 1));
  xp_nccl_facts *f = &info->facts[info->nfacts++];
  *f = (xp_nccl_facts){t, th->span, th->current, "", -1, -1, -1, -1, -1, -1, -1, ""};
  return f;
}

/* A transport as NCCL names its kind, not this connection's instance: RCCL's " comm 0x...
** nRanks 08" after it cut, NCCL 2.12's "direct shared memory" said as SHM, and a NET or COLLNET
** transport's NIC index and PXN proxy rank ("NET/IB/0(4)/GDRDMA", "COLLNET/SHARP/0/GDRDMA") left out. */
static void transport_kind(char *t) {
  char *cut = strstr(t, " comm 0x");
  if (cut) *cut = 0;
  if (strncmp(t, "direct shared memory", 20) == 0) {
    memmove(t + 11, t + 20, strlen(t + 20) + 1);
    memcpy(t, "SHM/direct ", 11);
    t[strcspn(t, " ")] = 0;
  }
  if (strncmp(t, "NET/", 4) != 0 && strncmp(t, "COLLNET/", 8) != 0) return;
  char out[64];
  size_t o = 0;
  for (char *part = t; *part && o + 1 < sizeof out;) {
    size_t n = strcspn(part, "/");
    int index = n > 0;
    for (size_t k = 0; k < n && index; k++) index = isdigit((unsigned char)part[k]) || part[k] == '(' || part[k] == ')';
    if (!index) o += (size_t)snprintf(out + o, sizeof out - o, "%s%.*s", o ? "/" : "", (int)n, part);
    part += n;
    if (*part == '/') part++;
  }
  snprintf(t, 64, "%s", out);
}

/* The "0x..." just after label in msg, its length in *n; NULL where there is none. */
static const char *hex_after(const char *msg, const char *label, size_t *n) {
  const char *p = strstr(msg, label);
  if (!p) return NULL;
  p += strlen(label);
  *n = strspn(p, "0123456789abcdefABCDEFx");
  return *n > 2 && p[0] == '0' && p[1] == 'x' ? p : NULL;
}

/* The handle of (process, comm pointer), added where new (its communicator -1: none yet). A pointer
** is one rank's handle, and two processes' may be alike: never a key alone. */
static xp_nccl_handle *ptr_slot(xp_nccl_info *info, int proc, const char *ptr, size_t pl) {
  char key[sizeof proc + 32];
  if (pl > 32) pl = 32;
  memcpy(key, &proc, sizeof proc);
  memcpy(key + sizeof proc, ptr, pl);
  int added = 0;
  uint32_t id = xp_strtab_intern(&info->ptr_keys, key, sizeof proc + pl, &added);
  if (added) {
    info->handles = xp_xrealloc(info->handles, sizeof *info->handles * (id + 1));
    info->handles[id] = (xp_nccl_handle){-1, proc, -1, -1, -1, 0, INT32_MAX, info->proc_handles[proc], ""};
    info->proc_handles[proc] = (int)id;
  }
  return &info->handles[id];
}

/* The communicator a connection line names: RCCL ends it with its handle ("via P2P/IPC comm
** 0x1f6e0 nRanks 08", transport/p2p.cc), the line's process's communicator of that pointer, which
** holds where the line is printed after set-up (at the first collective, on a thread of its own)
** and its process set up several. NCCL's lines name none: -1. */
static int named_comm(xp_nccl_info *info, const char *via) {
  size_t pl;
  const char *ptr = hex_after(via, " comm ", &pl);
  if (!ptr || info->line_thread < 0) return -1;
  return ptr_slot(info, info->threads[info->line_thread].proc, ptr, pl)->comm;
}

/* "3[3]", "3[1b000]", or "3" alone as NCCL 2.3-2.4 wrote a NET connection's ranks: the rank,
** what its brackets hold into dev ("" none). NULL where p holds no rank. */
static const char *rank_at(const char *p, int *rank, char dev[20]) {
  char *end;
  while (*p == ' ') p++;
  long v = strtol(p, &end, 10);
  if (end == p || v < 0 || v > 1 << 24) return NULL;
  *rank = (int)v;
  dev[0] = 0;
  if (*end != '[') return end;
  const char *close = strchr(end, ']');
  if (!close) return NULL;
  snprintf(dev, 20, "%.*s", (int)(close - end - 1), end + 1);
  return close + 1;
}

/* The connection of a line's " : ... via TRANSPORT" part, from src to dst. A NET or COLLNET
** connection is logged twice, [send] and [receive] (by the two ranks of a NET one): counted once,
** from whichever side the log holds (only one rank's log may have been kept). */
static void add_via(xp_nccl_info *info, const char *colon, const char *via, int src, int dst, char ends[2][20]) {
  const char *recv = strstr(colon, "[receive]"), *send = strstr(colon, "[send]");
  enum conn_side side = recv && recv < via ? SIDE_RECEIVE : send && send < via ? SIDE_SEND : SIDE_NONE;
  char transport[64];
  copy_trimmed(transport, sizeof transport, via + 5);
  transport_kind(transport);
  add_conn(info, src, dst, (const char(*)[20])ends, transport, side, named_comm(info, via));
}

/* "Channel 00/24 : 0 1" lists a ring; "Channel 03/0 : 0[0] -> 1[1] [send] via NET/IB/0" is a
** connection (older NCCL: "Channel 03 : ..."; the brackets may hold a bus id in hex). NCCL 2.3
** and 2.4 said "Ring" for a channel: "Ring 00 : 3[3] -> 2[2] via P2P/IPC", "Ring 00 : 15 -> 0
** [send] via NET/Socket/0". */
static void parse_channel(xp_nccl_info *info, const char *msg) {
  const char *colon = strstr(msg, " : ");
  if (!colon) return;
  const char *via = strstr(colon, " via ");
  if (!via) {
    int ch, total;
    const char *p = starts(msg, "Channel ") ? count_at(msg + 8, &ch) : NULL;
    if (!p || *p != '/' || !(p = count_at(p + 1, &total)) || p != colon) return;
    if (total > info->ring_channels) info->ring_channels = total;
    xp_nccl_facts *f = facts_entry(info);
    if (f && total > f->ring_channels) f->ring_channels = total;
    return;
  }
  int src, dst;
  char ends[2][20];
  const char *p = rank_at(colon + 3, &src, ends[0]);
  while (p && *p == ' ') p++;
  if (!p || strncmp(p, "->", 2) != 0 || !(p = rank_at(p + 2, &dst, ends[1])) || p > via) return;
  add_via(info, colon, via, src, dst, ends);
}

/* "CollNet 00/0 : 0 [send] via COLLNET/SHARP/0/GDRDMA" (NCCL 2.18-2.28, src/transport/coll_net.cc;
** older ones "CollNet 00 : 0 [send] via ...", without the connection index; newer ones may end in
** "GDRDMA(PCI)", GDR through the CPU):
** a rank's connection to the network's own collectives (SHARP), which names no peer: kept as the
** rank's to itself, so that nccl.transports and the interconnect count it. */
static void parse_collnet(xp_nccl_info *info, const char *msg) {
  const char *colon = strstr(msg, " : "), *via = colon ? strstr(colon, " via ") : NULL;
  int rank;
  char ends[2][20];
  const char *p = via ? rank_at(colon + 3, &rank, ends[0]) : NULL;
  if (!p || p > via) return;
  memcpy(ends[1], ends[0], sizeof ends[1]);
  add_via(info, colon, via, rank, rank, ends);
}

/* The number just before `label` in msg ("2 p2p channels,"), -1 where msg has no such label. */
static int count_before(const char *msg, const char *label) {
  const char *p = strstr(msg, label);
  if (!p) return -1;
  while (p > msg && p[-1] >= '0' && p[-1] <= '9') p--;
  return atoi(p);
}

/* NCCL's algorithm and protocol numbers (src/include/devcomm.h), as its newer logs name them. */
static const char *const algo_names[] = {"TREE", "RING", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS", "NVLS_TREE", "PAT"};
static const char *const proto_names[] = {"LL", "LL128", "SIMPLE"};

static void name_code(char *s, size_t n, const char *const *names, size_t count) {
  char *end;
  long v = strtol(s, &end, 10);
  if (end != s && !*end && v >= 0 && (size_t)v < count) snprintf(s, n, "%s", names[v]);
}

/* TUNING's "channel{Lo..Hi}={0..23}" (enqueue.cc) into t's range; left -1 where msg has none. */
static void channel_range(const char *msg, xp_nccl_tuning *t) {
  const char *p = strstr(msg, " channel{Lo..Hi}={");
  int lo, hi;
  if (!p || !(p = count_at(p + 18, &lo)) || strncmp(p, "..", 2) != 0 || !(p = count_at(p + 2, &hi)) || *p != '}')
    return;
  t->ch_lo = lo;
  t->ch_hi = hi;
}

static void parse_tuning(xp_nccl_info *info, const char *msg) {
  xp_nccl_tuning t;
  long long bytes;
  memset(&t, 0, sizeof t);
  t.ch_lo = t.ch_hi = -1;
  int got = sscanf(msg, "%31[^:]: %lld Bytes -> Algo %31s proto %15s", t.func, &bytes, t.algo, t.proto);
  if (got == 4) channel_range(msg, &t);
  int nch = 0;
  const char *nch_at = strstr(msg, " nchannels ");
  /* NCCL 2.27+ symmetric kernels: "AllReduce [Symmetric]: 4194304 Bytes -> Kernel
  ** AllReduce_RSxLDMC_AGxSTMC nchannels 16 nthreads 512 nWorks 1": the kernel is the algorithm */
  if (got < 4 && sscanf(msg, "%31[^ ] [Symmetric]: %lld Bytes -> Kernel %31s", t.func, &bytes, t.algo) == 3) {
    snprintf(t.proto, sizeof t.proto, "symmetric");
    if (nch_at && count_at(nch_at + 11, &nch) && nch > 0) t.ch_lo = 0, t.ch_hi = nch - 1;
    got = 4;
  } else if (got < 4) { /* NCCL 2.19-2.23: "1024 Bytes -> Algo 1 proto 0 time 10.00", no function */
    t.func[0] = 0;
    if (sscanf(msg, "%lld Bytes -> Algo %31s proto %15s", &bytes, t.algo, t.proto) != 3) return;
  }
  name_code(t.algo, sizeof t.algo, algo_names, sizeof algo_names / sizeof *algo_names);
  name_code(t.proto, sizeof t.proto, proto_names, sizeof proto_names / sizeof *proto_names);
  t.bytes = bytes;
  for (int i = 0; i < info->ntuning; i++) {
    xp_nccl_tuning *o = &info->tuning[i];
    if (o->bytes == t.bytes && strcmp(o->func, t.func) == 0) {
      *o = t; /* the latest choice for a size is what later calls ran with */
      return;
    }
  }
  if (info->ntuning == info->ntuning_alloc) {
    info->ntuning_alloc = info->ntuning_alloc ? 2 * info->ntuning_alloc : 32;
    info->tuning = xp_xrealloc(info->tuning, sizeof *info->tuning * (size_t)info->ntuning_alloc);
  }
  info->tuning[info->ntuning++] = t;
}

static void parse_env(xp_nccl_info *info, const char *msg, const char *marker) {
  char key[64], value[192];
  size_t kl = (size_t)(marker - msg);
  if (kl == 0 || kl >= sizeof key) return;
  memcpy(key, msg, kl);
  key[kl] = 0;
  if (strchr(key, ' ')) return;
  copy_trimmed(value, sizeof value, marker + strlen(" set by environment to "));
  size_t vl = strlen(value);
  if (vl && value[vl - 1] == '.') value[vl - 1] = 0;
  for (int i = 0; i < info->nenv; i++)
    if (strcmp(info->env[i].key, key) == 0) {
      snprintf(info->env[i].value, sizeof info->env[i].value, "%s", value);
      return;
    }
  if (info->nenv == info->nenv_alloc) {
    info->nenv_alloc = info->nenv_alloc ? 2 * info->nenv_alloc : 8;
    info->env = xp_xrealloc(info->env, sizeof *info->env * (size_t)info->nenv_alloc);
  }
  xp_nccl_kv *kv = &info->env[info->nenv++];
  snprintf(kv->key, sizeof kv->key, "%s", key);
  snprintf(kv->value, sizeof kv->value, "%s", value);
}

/* Where the version starts in "NCCL version 2.28.9+cuda13.0", "RCCL version : 2.22.3-HEAD:a9b0b4a"
** (RCCL since ROCm/rccl PR 1232) or "RCCL version 2.18.3+hip5.7 HEAD:b502725" (before it), or NULL
** where msg is none of them (a sentence that names a version). */
static const char *version_at(const char *msg) {
  if (!starts(msg, "NCCL version ") && !starts(msg, "RCCL version ")) return NULL;
  const char *v = msg + 13;
  if (msg[0] == 'R' && starts(v, ": ")) v += 2;
  return isdigit((unsigned char)*v) ? v : NULL;
}

/* The library's version; RCCL's said to be RCCL's. Before PR 1232 RCCL put its build's commit after
** the version ("+hip5.7 HEAD:b502725", showVersion's VERSION_STRING and rcclGitHash), where the form
** since then glues it on ("2.22.3-HEAD:a9b0b4a"): kept either way, it tells two builds apart. */
static void parse_version(xp_nccl_info *info, const char *msg) {
  const char *v = version_at(msg);
  char a[58] = "", b[58] = ""; /* room left for "RCCL " */
  if (!v || sscanf(v, "%57s %57s", a, b) < 1) return;
  if (msg[0] == 'N') snprintf(info->version, sizeof info->version, "%s", a);
  else snprintf(info->version, sizeof info->version, "RCCL %s%s%s", a, b[0] ? " " : "", b);
}

/* The thread a line of NCCL's comes from: "host:pid:tid" before " [dev] NCCL INFO", with any
** launcher's label before it (the same on all of a process's lines); its process is the same
** without ":tid". A line without them is of thread "" (one, for all such lines). */
static void note_thread(xp_nccl_info *info, const char *buf, const char *m) {
  const char *e = m;
  while (e > buf && e[-1] == ' ') e--;
  if (e > buf && e[-1] == ']') {
    const char *o = e - 1;
    while (o > buf && o[-1] != '[') o--;
    if (o > buf) e = o - 1;
  }
  while (e > buf && e[-1] == ' ') e--;
  const char *s = e;
  while (s > buf && s[-1] != ' ' && s[-1] != '\t') s--;
  int added = 0;
  info->line_thread = (int)xp_strtab_intern(&info->thread_keys, s, (size_t)(e - s), &added);
  if (!added) return;
  const char *colon = e;
  while (colon > s && colon[-1] != ':') colon--;
  size_t pl = colon > s ? (size_t)(colon - 1 - s) : (size_t)(e - s);
  int padded = 0;
  int proc = (int)xp_strtab_intern(&info->proc_keys, s, pl, &padded);
  if (padded) {
    info->proc_comm = xp_xrealloc(info->proc_comm, sizeof *info->proc_comm * (size_t)(info->nprocs + 1));
    info->proc_handles = xp_xrealloc(info->proc_handles, sizeof *info->proc_handles * (size_t)(info->nprocs + 1));
    info->proc_handles[info->nprocs] = -1;
    info->proc_comm[info->nprocs++] = -1;
  }
  info->threads = xp_xrealloc(info->threads, sizeof *info->threads * (size_t)(info->nthreads + 1));
  info->threads[info->nthreads++] = (xp_nccl_thread){proc, -1, 0, 0};
}

/* A communicator's key: its commId; before NCCL 2.14, which printed none, its size and the
** process's handle ("#4@2:0x7fdf.."; a pointer is one rank's handle in one process, no key across
** ranks: xp_nccl_info_one_comm joins those its connections link); for a split that prints none
** (NCCL after 2.21: "ncclCommSplit
** comm 0x.. rank 0 nranks 2 ... parent 0x.. splitCount 1 color 0 key 0- Init START", 2.28 "childCount")
** its parent's key, split count and color, as NCCL hashes the child's own (init.cc commHash):
** "0x5ae7.. split 1 color 0". 0 where the line names neither (or a parent the log never set up). */
static size_t comm_key(xp_nccl_info *info, const char *msg, int proc, const char *own, size_t own_l, char *key,
                       size_t n) {
  size_t il, pl;
  const char *id = hex_after(msg, "commId ", &il), *parent = hex_after(msg, " parent ", &pl);
  if (id) return (size_t)snprintf(key, n, "%.*s", (int)il, id) < n ? il : 0;
  if (!strstr(msg, "- Init START") && !strstr(msg, "- Init COMPLETE")) return 0;
  const char *nr = strstr(msg, " nranks ");
  if (!parent && nr) { /* before 2.14: "comm 0x.. rank 0 nranks 4 cudaDev 0 busId 1b000 - Init COMPLETE" */
    int w = snprintf(key, n, "#%d@%d:%.*s", atoi(nr + 8), proc, (int)own_l, own);
    return w > 0 && (size_t)w < n ? (size_t)w : 0;
  }
  if (!parent) return 0;
  const int pc = ptr_slot(info, proc, parent, pl)->comm;
  const char *sc = strstr(msg, " splitCount ");
  if (!sc) sc = strstr(msg, " childCount ");
  const char *color = strstr(msg, " color ");
  if (pc < 0 || !color) return 0;
  int w = snprintf(key, n, "%s split %d color %d", info->comms[pc].id, sc ? atoi(sc + 12) : 0, atoi(color + 7));
  return w > 0 && (size_t)w < n ? (size_t)w : 0;
}

/* What an Init line states of its handle: its rank, devices and bus id (-1, "" where it does not). */
static void read_handle(const char *msg, xp_nccl_handle *h) {
  const char *rk = strstr(msg, " rank "), *dev = strstr(msg, " cudaDev "), *nvml = strstr(msg, " nvmlDev ");
  const char *bus = strstr(msg, " busId ");
  h->rank = rk ? atoi(rk + 6) : -1;
  h->dev = dev ? atoi(dev + 9) : -1;
  h->nvml = nvml ? atoi(nvml + 9) : -1;
  h->bus[0] = 0;
  if (bus) snprintf(h->bus, sizeof h->bus, "%.*s", (int)strcspn(bus + 7, " "), bus + 7);
}

/* "comm 0x55.. rank 0 nranks 2 cudaDev 0 busId 60 - Destroy COMPLETE" (or "Abort COMPLETE"): the
** process's handle is gone, and no connection printed after it is its communicator's. */
static int note_destroy(xp_nccl_info *info, const char *msg, const char *own, size_t own_l) {
  if (!strstr(msg, "- Destroy COMPLETE") && !strstr(msg, "- Abort COMPLETE")) return 0;
  xp_nccl_handle *h = ptr_slot(info, info->threads[info->line_thread].proc, own, own_l);
  if (h->comm >= 0 && h->died == INT32_MAX) h->died = info->info_lines;
  return 1;
}

/* "ncclCommInitRankConfig comm 0x55.. rank 0 nranks 8 ... commId 0x5ae7.. - Init START" (2.18
** on), then "... - Init COMPLETE": the communicator the thread sets up between the two, whose are
** the connections it prints there. Those it prints before a COMPLETE with no START (a form
** without one) are that communicator's too; those after a COMPLETE (NCCL 2.22 on connects at the
** first collective, often on threads of its own) are found among the handles the process held then
** (live_comm). */
static void note_comm(xp_nccl_info *info, const char *msg) {
  size_t own_l, il;
  const char *own = hex_after(msg, "comm ", &own_l);
  if (!own || info->line_thread < 0 || note_destroy(info, msg, own, own_l)) return;
  const int proc = info->threads[info->line_thread].proc;
  char id[sizeof info->comms->id];
  if ((il = comm_key(info, msg, proc, own, own_l, id, sizeof id)) == 0) return;
  int added = 0;
  const int c = (int)xp_strtab_intern(&info->comm_keys, id, il, &added);
  xp_nccl_handle *h = ptr_slot(info, proc, own, own_l);
  if (h->comm != c || h->died != INT32_MAX) { /* set up, or its pointer reused by another */
    h->comm = c;
    h->born = info->info_lines;
    h->died = INT32_MAX;
    read_handle(msg, h);
  }
  if (added) {
    info->comms = xp_xrealloc(info->comms, sizeof *info->comms * (size_t)(info->ncomms + 1));
    xp_nccl_comm *k = &info->comms[info->ncomms++];
    memset(k, 0, sizeof *k);
    snprintf(k->id, sizeof k->id, "%s", id[0] == '#' ? "" : id);
    const char *nr = strstr(msg, " nranks ");
    k->nranks = nr ? atoi(nr + 8) : 0;
    k->proc = proc;
    k->rank = h->rank;
    k->dev = h->dev;
    snprintf(k->bus, sizeof k->bus, "%s", h->bus);
  }
  xp_nccl_thread *t = &info->threads[info->line_thread];
  int *pc = &info->proc_comm[t->proc];
  *pc = *pc == -1 || *pc == c ? c : -2;
  if (strstr(msg, "Init COMPLETE")) {
    for (int i = 0; i < info->natt && t->pending; i++) {
      xp_nccl_conn *a = &info->att[i];
      if (a->thread == info->line_thread && a->span == t->span && a->comm < 0) a->comm = c;
    }
    for (int i = 0; i < info->nfacts; i++) {
      xp_nccl_facts *f = &info->facts[i];
      if (f->thread == info->line_thread && f->span == t->span && f->comm < 0) f->comm = c;
    }
    t->current = -1;
  } else {
    t->current = c;
  }
  t->span++;
  t->pending = 0;
}

/* NCCL's path types, nearest first (topo.cc's topoPathTypeStr, PATH_LOC .. PATH_DIS, C2C, P2C and
** PXN among them); RCCL names PATH_NVL "XGMI" (its links are AMD's); -1 for a name neither uses. */
int xp_nccl_path_rank(const char *type) {
  static const char *const order[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                      "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};
  if (strcmp(type, "XGMI") == 0) return 1;
  for (size_t i = 0; i < sizeof order / sizeof *order; i++)
    if (strcmp(type, order[i]) == 0) return (int)i;
  return -1;
}

/* GRAPH's "Pattern 4, crossNic 0, nChannels 4, bw 24.000000/24.000000, type NVL/PIX, sameChannels
** 0" (before 2.12 "speed 1.2/1.2"): a graph's search result, its type the farthest path within a
** node (then to the NIC) it needed. Rings and trees (patterns 1-4) carry the P2P connections; NVLS
** (5) and CollNet's have graphs of their own. The farthest any rank printed is kept. */
/* intra into keep where it is farther than what keep holds. */
static void keep_farthest(char keep[8], const char *intra) {
  if (!keep[0] || xp_nccl_path_rank(intra) > xp_nccl_path_rank(keep)) snprintf(keep, 8, "%s", intra);
}

static void parse_pattern(xp_nccl_info *info, const char *msg) {
  int pattern;
  char intra[8];
  const char *t = strstr(msg, ", type ");
  if (sscanf(msg, "Pattern %d,", &pattern) != 1 || pattern < 1 || pattern > 4 || !t ||
      sscanf(t + 7, "%7[A-Z]/", intra) != 1 || xp_nccl_path_rank(intra) < 0)
    return;
  keep_farthest(info->graph_intra, intra);
  xp_nccl_facts *f = facts_entry(info);
  if (f) keep_farthest(f->graph_intra, intra);
}

static void parse_message(xp_nccl_info *info, const char *msg) {
  const char *p;
  int a, b, c;
  note_comm(info, msg);
  if (version_at(msg)) {
    parse_version(info, msg);
  } else if (sscanf(msg, "ROCr version %d.%d", &a, &b) == 2) {
    /* RCCL's: the HSA runtime's (ROCr's) version, HSA_SYSTEM_INFO_VERSION_MAJOR.MINOR ("ROCr
    ** version 1.14", src/misc/rocmwrap.cc), which ROCm's own version lines do not state; the first
    ** rank's, as the library's version */
    if (!info->rocr_version[0]) snprintf(info->rocr_version, sizeof info->rocr_version, "%d.%d", a, b);
  } else if (starts(msg, "cudaDriverVersion ")) {
    info->cuda_driver = atoi(msg + 18);
  } else if (starts(msg, "Pattern ")) {
    parse_pattern(info, msg);
  } else if (starts(msg, "Channel ") || starts(msg, "Ring ")) {
    parse_channel(info, msg);
  } else if (starts(msg, "CollNet ")) {
    parse_collnet(info, msg);
  } else if (strstr(msg, " Bytes -> Algo ") || (strstr(msg, " [Symmetric]: ") && strstr(msg, " Bytes -> Kernel "))) {
    parse_tuning(info, msg);
  } else if ((p = strstr(msg, " set by environment to ")) != NULL) {
    parse_env(info, msg, p);
  } else if ((p = strstr(msg, "nRanks ")) != NULL && strstr(msg, "nNodes ")) {
    c = -1; /* a form without localRanks */
    const char *q = count_at(p + 7, &a);
    if (q && starts(q, " nNodes ") && (q = count_at(q + 8, &b)) != NULL) {
      if (starts(q, " localRanks ")) count_at(q + 12, &c);
      if (a > info->nranks) info->nranks = a;
      if (b > info->nnodes) info->nnodes = b;
      if (c > info->local_ranks) info->local_ranks = c;
      xp_nccl_facts *f = facts_entry(info);
      if (f && b > f->nnodes) f->nnodes = b;
      if (f && c > f->local_ranks) f->local_ranks = c;
    }
  } else if (strstr(msg, " coll channels, ") != NULL) {
    /* 2.19+: "%d coll, %d collnet, %d nvls, %d p2p channels, %d p2p channels per peer"; 2.17-18
    ** leave collnet out, 2.10-2.16 nvls too: each count is the number before its name */
    info->coll_channels = count_before(msg, " coll channels");
    info->nvls_channels = count_before(msg, " nvls channels");
    info->p2p_channels = count_before(msg, " p2p channels,");
    info->p2p_per_peer = count_before(msg, " p2p channels per peer");
    xp_nccl_facts *f = facts_entry(info);
    if (f) f->coll = info->coll_channels, f->nvls = info->nvls_channels, f->p2p = info->p2p_channels,
           f->per_peer = info->p2p_per_peer;
  } else if (starts(msg, "Connected all rings")) {
    const char *q = msg + strlen("Connected all rings");
    while (*q == ',' || *q == ' ') q++;
    copy_trimmed(info->rings, sizeof info->rings, *q && strncmp(q, "comm 0x", 7) != 0 ? q : "connected");
    char *rccl = strstr(info->rings, " comm 0x"); /* RCCL's suffix: this communicator, not the rings */
    if (rccl) *rccl = 0;
    xp_nccl_facts *f = facts_entry(info);
    if (f) snprintf(f->rings, sizeof f->rings, "%s", info->rings);
  } else if (starts(msg, "Using network ")) {
    copy_trimmed(info->net, sizeof info->net, msg + 14);
  }
}

/* "HIP version  : 7.12.60430-713bdeef5b" (ROCm/rccl src/init.cc showVersion, since PR 1232): the
** version after the label, and since ROCm/rocm-systems PR 6556 the runtime's after it where it
** differs ("HIP version  : 6.4.0 / HIP runtime  : 6.5.1", hip_rocm_version_info.h fmtExtVer). */
static int rccl_build_line(const char *buf, const char *label, char *version, size_t vn, char *runtime,
                           size_t rn) {
  const char *p = strstr(buf, label);
  if (!p || version[0]) return 0;
  p += strlen(label);
  snprintf(version, vn, "%.*s", (int)strcspn(p, " \t"), p);
  if (strcmp(version, "Unknown") == 0) version[0] = 0; /* RCCL built against ROCm before 4.0 (or 5.0) */
  const char *rt = strstr(p, " runtime");
  if (rt && (rt = strstr(rt, " : ")) != NULL) snprintf(runtime, rn, "%.*s", (int)strcspn(rt + 3, " \t"), rt + 3);
  return 1;
}

/* RCCL prints HIP's and ROCm's versions on lines of their own after its version line, whether
** alone or as the rest of its INFO message: only lines after RCCL's version are taken, so that
** hipconfig's "HIP version  :" in the same log is not. */
static void parse_rccl_build(xp_nccl_info *info, const char *buf) {
  if (!rccl_build_line(buf, "HIP version  : ", info->hip_version, sizeof info->hip_version, info->hip_runtime,
                       sizeof info->hip_runtime))
    rccl_build_line(buf, "ROCm version : ", info->rocm_version, sizeof info->rocm_version, info->rocm_runtime,
                    sizeof info->rocm_runtime);
}

/* Ray's log deduplication (vLLM's workers and others run on Ray print through it) ends the first of
** lines alike but for their numbers with " [repeated 27x across cluster]" (vllm-project/vllm issue
** 15769), in colour on a terminal ("\x1b[32m [repeated 6x across cluster] \x1b[0m", issue 2734): cut
** off with the blanks and colour before it, so that a transport or a value read from the line is
** NCCL's alone ("via P2P/CUMEM", "set by environment to NVL"). Returns how many lines it left out. */
static long cut_ray_repeat(char *buf) {
  char *r = strstr(buf, "[repeated "), *end;
  const long n = r ? strtol(r + 10, &end, 10) : 0;
  if (n <= 0 || strncmp(end, "x across cluster]", 17) != 0) return 0;
  size_t l = (size_t)(r - buf);
  for (;;) {
    while (l > 0 && buf[l - 1] == ' ') l--;
    size_t e = l;
    if (e == 0 || buf[e - 1] != 'm') break;
    for (e--; e > 0 && (isdigit((unsigned char)buf[e - 1]) || buf[e - 1] == ';'); e--) {}
    if (e < 2 || buf[e - 1] != '[' || buf[e - 2] != '\x1b') break;
    l = e - 2;
  }
  buf[l] = 0;
  return n < 1000000000L ? n : 1000000000L;
}

int xp_nccl_info_line(xp_nccl_info *info, const char *line, size_t len) {
  char buf[1024];
  if (len >= sizeof buf) len = sizeof buf - 1;
  memcpy(buf, line, len);
  buf[len] = 0;
  buf[strcspn(buf, "\r\n")] = 0;
  const long repeated = cut_ray_repeat(buf);
  if (repeated && (strstr(buf, "NCCL INFO ") || strstr(buf, "NCCL WARN "))) info->ray_repeated += repeated;
  const char *m = strstr(buf, "NCCL INFO ");
  if (m) {
    info->info_lines++;
    note_thread(info, buf, m);
    parse_message(info, m + 10);
    return 1;
  }
  /* NCCL_DEBUG=VERSION prints the version alone: "NCCL version 2.21.5+cuda12.4"; RCCL prints
  ** "RCCL version : 2.22.3-HEAD:7d8d67c" so, then HIP's and ROCm's on lines of their own (an
  ** rccl-tests log between its device lines and its column header), and before PR 1232 printed
  ** "RCCL version 2.18.3+hip5.7 HEAD:b502725" so at every level, INFO too (ROCm/rccl issue 1261) */
  m = strstr(buf, "NCCL version ");
  if (!m) m = strstr(buf, "RCCL version ");
  if (m && version_at(m) && !info->version[0] && !strstr(buf, "nccl-tests")) {
    parse_version(info, m);
    return 0;
  }
  if (strncmp(info->version, "RCCL ", 5) == 0) parse_rccl_build(info, buf);
  m = strstr(buf, "NCCL WARN ");
  if (m) {
    info->info_lines++;
    if (info->warnings++ == 0) copy_trimmed(info->first_warning, sizeof info->first_warning, m + 10);
    return 1;
  }
  return 0;
}

void xp_nccl_info_parse(xp_nccl_info *info, const char *text, size_t len) {
  size_t i = 0;
  while (i < len) {
    const char *nl = memchr(text + i, '\n', len - i);
    size_t l = nl ? (size_t)(nl - (text + i)) : len - i;
    xp_nccl_info_line(info, text + i, l);
    i += l + 1;
  }
}

/* Whether process p's key (host:pid, after any label) names pid. */
static int proc_is(const xp_nccl_info *info, int p, int pid) {
  const char *k = info->proc_keys.str[p];
  size_t l = info->proc_keys.len[p], d = l;
  while (d > 0 && isdigit((unsigned char)k[d - 1])) d--;
  return d < l && d > 0 && k[d - 1] == ':' && atoi(k + d) == pid;
}

/* Whether process pid holds a handle of communicator c. */
static int pid_holds(const xp_nccl_info *info, int c, int pid) {
  for (uint32_t k = 0; pid > 0 && k < info->ptr_keys.n; k++)
    if (info->handles[k].comm == c && proc_is(info, info->handles[k].proc, pid)) return 1;
  return 0;
}

/* The communicator the test reported: of those process pid (its rank 0's) set up with connections,
** one of nranks ranks before another, the last before an earlier (a framework's groups beside the
** test's; nccl_burst's arrival check before the one that measures); else the first with connections of
** nranks ranks, else the first with connections; -1 where none has any. */
static int test_comm(const xp_nccl_info *info, const int *conns, int nranks, int pid) {
  int own = -1;
  for (int c = 0; c < info->ncomms; c++) {
    if (!conns[c] || !pid_holds(info, c, pid)) continue;
    if (own < 0 || nranks <= 0 || info->comms[c].nranks == nranks || info->comms[own].nranks != nranks) own = c;
  }
  if (own >= 0) return own;
  for (int c = 0; c < info->ncomms; c++)
    if (conns[c] && (nranks <= 0 || info->comms[c].nranks == nranks)) return c;
  for (int c = 0; c < info->ncomms; c++)
    if (conns[c]) return c;
  return -1;
}

/* info->conn rebuilt from the connections of communicator c alone. */
static void keep_comm(xp_nccl_info *info, int c) {
  free(info->conn);
  xp_strtab_free(&info->conn_keys);
  info->conn = NULL;
  info->nconn = info->nconn_alloc = 0;
  for (int i = 0; i < info->natt; i++) {
    const xp_nccl_conn *a = &info->att[i];
    if (c < 0 || a->comm != c) continue;
    xp_nccl_conn *k = pair_entry(info, a->src, a->dst, a->transport);
    k->untagged += a->untagged;
    k->sends += a->sends;
    k->receives += a->receives;
    k->channels = k->untagged + (k->sends > k->receives ? k->sends : k->receives);
  }
  if (c >= 0 && info->comms[c].nranks > 0) info->nranks = info->comms[c].nranks;
}

/* The GRAPH type, channel counts, rings and nodes of communicator c alone: another's (a world group's NVLS, a
** split's pair across sockets) are not the kept connections'. Its "Connected all rings" words too: a
** line of no one communicator (printed where several were live) is left out, as its connections are. */
static void keep_comm_facts(xp_nccl_info *info, int c) {
  info->graph_intra[0] = 0;
  info->coll_channels = info->nvls_channels = info->p2p_channels = info->p2p_per_peer = -1;
  info->ring_channels = info->nnodes = info->local_ranks = -1;
  info->rings[0] = 0;
  for (int i = 0; i < info->nfacts; i++) {
    const xp_nccl_facts *f = &info->facts[i];
    if (f->comm != c) continue;
    if (f->rings[0]) snprintf(info->rings, sizeof info->rings, "%s", f->rings);
    if (f->graph_intra[0]) keep_farthest(info->graph_intra, f->graph_intra);
    if (f->ring_channels > info->ring_channels) info->ring_channels = f->ring_channels;
    if (f->nnodes > info->nnodes) info->nnodes = f->nnodes;
    if (f->local_ranks > info->local_ranks) info->local_ranks = f->local_ranks;
    if (f->coll >= 0)
      info->coll_channels = f->coll, info->nvls_channels = f->nvls, info->p2p_channels = f->p2p,
      info->p2p_per_peer = f->per_peer;
  }
}

/* ---- communicators before NCCL 2.14: each process's handles, joined by the connections ---- */

static int transport_tier(const char *t);

/* Process p's host: its key without ":pid". */
static size_t host_of(const xp_nccl_info *info, int p, const char **host) {
  const char *k = info->proc_keys.str[p];
  size_t l = info->proc_keys.len[p];
  while (l > 0 && k[l - 1] != ':') l--;
  *host = k;
  return l ? l - 1 : info->proc_keys.len[p];
}

/* The key of a handle's rank as a connection line names it (rank and what its brackets hold, of a
** communicator of n ranks), on host h where one is given (NCCL's P2P and SHM join GPUs of one host). */
static size_t end_key(char *key, size_t kn, int n, int rank, const char *dev, const char *h, size_t hl) {
  int w = snprintf(key, kn, "%d,%d,%s|%.*s", n, rank, dev, (int)hl, h ? h : "");
  return w > 0 && (size_t)w < kn ? (size_t)w : 0;
}

/* The handles before 2.14 by what a connection line names of one (end_key): for each key a
** chain of handles, more than one where tests appended ran on the same GPUs. */
typedef struct handle_index {
  xp_strtab keys;
  int *head;             /* by key id: its first node, -1 none */
  int nnodes;
  struct { int comm, next; } *node;
} handle_index;

static int *index_slot(handle_index *ix, const char *key, size_t kl) {
  int added = 0;
  uint32_t id = xp_strtab_intern(&ix->keys, key, kl, &added);
  if (added) ix->head = xp_xrealloc(ix->head, sizeof *ix->head * (id + 1)), ix->head[id] = -1;
  return &ix->head[id];
}

static void index_handle(handle_index *ix, int c, const char *key, size_t kl) {
  if (!kl) return;
  int *head = index_slot(ix, key, kl);
  if (*head >= 0 && ix->node[*head].comm == c) return; /* its bus id and device read alike */
  ix->node = xp_xrealloc(ix->node, sizeof *ix->node * (size_t)(ix->nnodes + 1));
  ix->node[ix->nnodes].comm = c;
  ix->node[ix->nnodes].next = *head;
  *head = ix->nnodes++;
}

/* Each handle by rank and bus id, and by rank and device (a line's brackets hold one or the other,
** as versions differ), with its host and without. */
static void index_handles(const xp_nccl_info *info, handle_index *ix) {
  for (int c = 0; c < info->ncomms; c++) {
    const xp_nccl_comm *k = &info->comms[c];
    if (k->id[0] || k->rank < 0) continue;
    char dev[16], key[160];
    const char *h;
    const size_t hl = host_of(info, k->proc, &h);
    snprintf(dev, sizeof dev, "%d", k->dev);
    for (int far = 0; far < 2; far++) {
      if (k->bus[0]) index_handle(ix, c, key, end_key(key, sizeof key, k->nranks, k->rank, k->bus, h, far ? 0 : hl));
      if (k->dev >= 0) index_handle(ix, c, key, end_key(key, sizeof key, k->nranks, k->rank, dev, h, far ? 0 : hl));
    }
  }
}

static void index_free(handle_index *ix) {
  xp_strtab_free(&ix->keys);
  free(ix->head);
  free(ix->node);
}

static int root_of(int *up, int c) {
  while (up[c] != c) c = up[c] = up[up[c]];
  return c;
}

/* The handle at the other end of connection a, printed by handle c: on c's host for P2P and SHM,
** on any for NET (usually another host's). Where several are that rank on those GPUs (tests
** appended: each run's own, one after the other in the log), the one set up nearest c in the
** log's order; -1 none, or two as near. */
static int peer_handle(const xp_nccl_info *info, handle_index *ix, int c, const xp_nccl_conn *a) {
  const xp_nccl_comm *k = &info->comms[c];
  const int peer = a->src == k->rank ? a->dst : a->dst == k->rank ? a->src : -1;
  const char *dev = a->src == k->rank ? a->dst_dev : a->src_dev;
  if (peer < 0 || !dev[0]) return -1;
  const char *h;
  const size_t hl = host_of(info, k->proc, &h);
  char key[160];
  const size_t kl = end_key(key, sizeof key, k->nranks, peer, dev, h, transport_tier(a->transport) == 2 ? 0 : hl);
  if (!kl) return -1;
  int best = -1, tie = 0;
  for (int i = *index_slot(ix, key, kl); i >= 0; i = ix->node[i].next) {
    const int j = ix->node[i].comm, dj = abs(j - c), db = best < 0 ? -1 : abs(best - c);
    if (best < 0 || dj < db) best = j, tie = 0;
    else if (dj == db && j != best) tie = 1;
  }
  return tie ? -1 : best;
}

/* Communicator ids after joining: old to new (its first handle's place among the joined). */
static void renumber_comms(xp_nccl_info *info, const int *to, int n) {
  for (int i = 0; i < info->natt; i++)
    if (info->att[i].comm >= 0) info->att[i].comm = to[info->att[i].comm];
  for (int i = 0; i < info->nfacts; i++)
    if (info->facts[i].comm >= 0) info->facts[i].comm = to[info->facts[i].comm];
  for (int t = 0; t < info->nthreads; t++)
    if (info->threads[t].current >= 0) info->threads[t].current = to[info->threads[t].current];
  for (int p = 0; p < info->nprocs; p++) info->proc_comm[p] = -1;
  for (uint32_t k = 0; k < info->ptr_keys.n; k++) {
    xp_nccl_handle *h = &info->handles[k];
    if (h->comm < 0) continue;
    const int c = h->comm = to[h->comm];
    int *pc = &info->proc_comm[h->proc];
    *pc = *pc == -1 || *pc == c ? c : -2;
  }
  info->ncomms = n;
}

/* Before 2.14 a log names no communicator across processes: each process's handle of one is a
** communicator of its own (note_comm), and those a connection links are one, the handle at its
** other end being the one of that rank and bus id (or device) on its host (P2P, SHM) or on any
** (NET). Split groups or tests appended of one size are then told apart, where a size pooled
** them. */
static void join_old_comms(xp_nccl_info *info) {
  int old = 0;
  for (int c = 0; c < info->ncomms && !old; c++) old = !info->comms[c].id[0];
  if (!old) return;
  handle_index ix = {0};
  int *up = xp_xmalloc(sizeof *up * (size_t)info->ncomms), *to = xp_xmalloc(sizeof *to * (size_t)info->ncomms);
  index_handles(info, &ix);
  for (int c = 0; c < info->ncomms; c++) up[c] = c;
  int linked = 0;
  for (int i = 0; i < info->natt; i++) {
    const xp_nccl_conn *a = &info->att[i];
    const int c = a->comm >= 0 ? a->comm : info->proc_comm[info->threads[a->thread].proc];
    if (c < 0 || info->comms[c].id[0] || info->comms[c].rank < 0) continue;
    const int j = peer_handle(info, &ix, c, a);
    linked += j >= 0;
    const int rc = j >= 0 ? root_of(up, c) : 0, rj = j >= 0 ? root_of(up, j) : 0;
    if (rc != rj) up[rc > rj ? rc : rj] = rc < rj ? rc : rj; /* the first seen stays the root */
  }
  /* no line's ends matched a handle (a version whose Init COMPLETE states neither what its
  ** brackets hold): by size, as before, rather than each process's handles apart */
  for (int c = 0; c < info->ncomms && !linked; c++)
    for (int d = 0; d < c && up[c] == c; d++)
      if (!info->comms[d].id[0] && !info->comms[c].id[0] && info->comms[d].nranks == info->comms[c].nranks) up[c] = d;
  int n = 0;
  for (int c = 0; c < info->ncomms; c++) {
    const int r = root_of(up, c);
    to[c] = r == c ? n++ : to[r];
    if (r == c) info->comms[to[c]] = info->comms[c];
  }
  renumber_comms(info, to, n);
  free(up);
  free(to);
  index_free(&ix);
}

/* ---- connections printed after set-up: the communicators live then ---- */

/* Whether a connection line's end (a rank, what its brackets hold) can be handle h's. */
static int end_fits(const xp_nccl_handle *h, int rank, const char *dev) {
  char *e;
  const long v = strtol(dev, &e, 10);
  return h->rank == rank &&
         (!dev[0] || strcasecmp(dev, h->bus) == 0 || (e != dev && !*e && (v == h->dev || v == h->nvml)));
}

static uint32_t end_id(xp_strtab *ends, const char *fmt, int c, int rank, const char *what) {
  char key[64];
  int added;
  const int w = snprintf(key, sizeof key, fmt, c, rank, what);
  return w > 0 && (size_t)w < sizeof key ? xp_strtab_intern(ends, key, (size_t)w, &added) : UINT32_MAX;
}

/* Every handle's rank in its communicator ("c,r"), and with each of what a connection line's
** brackets may hold of it ("c,r,1b000", "c,r,0"); a look-up past the first n found none. */
static uint32_t index_ends(const xp_nccl_info *info, xp_strtab *ends) {
  for (uint32_t k = 0; k < info->ptr_keys.n; k++) {
    const xp_nccl_handle *h = &info->handles[k];
    char dev[2][16];
    if (h->comm < 0 || h->rank < 0) continue;
    snprintf(dev[0], sizeof dev[0], "%d", h->dev);
    snprintf(dev[1], sizeof dev[1], "%d", h->nvml);
    end_id(ends, "%d,%d%s", h->comm, h->rank, "");
    if (h->bus[0]) end_id(ends, "%d,%d,%s", h->comm, h->rank, h->bus);
    if (h->dev >= 0) end_id(ends, "%d,%d,%s", h->comm, h->rank, dev[0]);
    if (h->nvml >= 0) end_id(ends, "%d,%d,%s", h->comm, h->rank, dev[1]);
  }
  return ends->n;
}

/* Whether communicator c can hold a connection's other end: a rank of its size, on the devices of
** c's handle of that rank where the log set one up. */
static int other_end_fits(const xp_nccl_info *info, xp_strtab *ends, uint32_t n, int c, int rank, const char *dev) {
  if (info->comms[c].nranks > 0 && rank >= info->comms[c].nranks) return 0;
  if (end_id(ends, "%d,%d%s", c, rank, "") >= n || !dev[0]) return 1; /* its handle not in the log */
  return end_id(ends, "%d,%d,%s", c, rank, dev) < n;
}

/* The communicator of connection a, which no thread's set-up claimed (NCCL 2.22 on connects at a
** communicator's first collective, on threads of its own, and its lines name none): of the handles
** its process held when it was printed (set up, not yet destroyed), the one communicator whose handle
** is one end (rank and devices) and which can hold the other; -2 where several or none can. Where the
** process held none then, its one communicator over the log, as before (-1 none, -2 several). */
static int live_comm(const xp_nccl_info *info, xp_strtab *ends, uint32_t n, const xp_nccl_conn *a) {
  const int p = info->threads[a->thread].proc;
  int live = 0, found = -1;
  for (int i = info->proc_handles[p]; i >= 0; i = info->handles[i].next) {
    const xp_nccl_handle *h = &info->handles[i];
    if (h->comm < 0 || a->line < h->born || a->line >= h->died) continue;
    live = 1;
    const int src = end_fits(h, a->src, a->src_dev);
    if (!src && !end_fits(h, a->dst, a->dst_dev)) continue;
    if (!other_end_fits(info, ends, n, h->comm, src ? a->dst : a->src, src ? a->dst_dev : a->src_dev)) continue;
    if (found >= 0 && found != h->comm) return -2;
    found = h->comm;
  }
  return found >= 0 ? found : live ? -2 : info->proc_comm[p];
}

int xp_nccl_info_one_comm(xp_nccl_info *info, int nranks, int pid, char *said, size_t n) {
  if (n) said[0] = 0;
  join_old_comms(info);
  if (info->ncomms < 2) return 0;
  int *conns = xp_xcalloc((size_t)info->ncomms, sizeof *conns), unknown = 0, with = 0;
  xp_strtab ends = {0};
  const uint32_t nends = index_ends(info, &ends);
  for (int i = 0; i < info->natt; i++) {
    xp_nccl_conn *a = &info->att[i];
    if (a->comm < 0) a->comm = live_comm(info, &ends, nends, a); /* -1, -2: none */
    if (a->comm >= 0) with += conns[a->comm]++ == 0;
    else unknown++;
  }
  xp_strtab_free(&ends);
  for (int i = 0; i < info->nfacts; i++)
    if (info->facts[i].comm < 0) info->facts[i].comm = info->proc_comm[info->threads[info->facts[i].thread].proc];
  const int pick = test_comm(info, conns, nranks, pid);
  if (pick >= 0) keep_comm_facts(info, pick);
  int rings_left = 0; /* rings lines of no one communicator, where the kept one has none */
  for (int i = 0; i < info->nfacts && pick >= 0 && !info->rings[0]; i++)
    rings_left += info->facts[i].rings[0] && info->facts[i].comm < 0;
  const int by_pid = pick >= 0 && pid_holds(info, pick, pid);
  free(conns);
  if (with < 2 && !unknown && !rings_left) return 0; /* one communicator's connections: as they are */
  keep_comm(info, pick);
  const int sized = pick >= 0 && nranks > 0 && info->comms[pick].nranks == nranks;
  const char *why = by_pid ? " (rank 0's)" : sized ? " (the test's size)" : "";
  size_t used = (size_t)snprintf(said, n, "%d communicators in the log (", info->ncomms);
  for (int c = 0; c < info->ncomms && used < n; c++) {
    const xp_nccl_comm *k = &info->comms[c];
    if (k->id[0])
      used += (size_t)snprintf(said + used, n - used, "%scommId %s, %d ranks", c ? "; " : "", k->id, k->nranks);
    else
      used += (size_t)snprintf(said + used, n - used, "%sone of %d ranks (no commId: NCCL before 2.14)", c ? "; " : "",
                               k->nranks);
  }
  if (used < n && pick >= 0 && !info->comms[pick].id[0])
    used += (size_t)snprintf(said + used, n - used, "): connections are the one of %d ranks'%s",
                             info->comms[pick].nranks, why);
  else if (used < n && pick >= 0)
    used += (size_t)snprintf(said + used, n - used, "): connections are commId %s's%s", info->comms[pick].id, why);
  else if (used < n)
    used += (size_t)snprintf(said + used, n - used, "): no connection is one communicator's");
  if (used < n && unknown)
    used += (size_t)snprintf(said + used, n - used, "; %d connection%s printed after several were set up (of none "
                             "the log tells) left out", unknown, unknown == 1 ? "" : "s");
  if (used < n && rings_left)
    snprintf(said + used, n - used, "; 'Connected all rings' printed after several were set up (of none the log "
             "tells) left out of nccl.rings");
  return unknown;
}

const xp_nccl_tuning *xp_nccl_info_tuning(const xp_nccl_info *info, const char *func, int64_t bytes) {
  for (int i = 0; i < info->ntuning; i++)
    if (info->tuning[i].bytes == bytes && (!info->tuning[i].func[0] || strcmp(info->tuning[i].func, func) == 0))
      return &info->tuning[i];
  return NULL;
}

const char *xp_nccl_info_env(const xp_nccl_info *info, const char *key) {
  for (int i = 0; i < info->nenv; i++)
    if (strcmp(info->env[i].key, key) == 0) return info->env[i].value;
  return NULL;
}

/* Where a transport's kind stands among the others: P2P (GPU to GPU), then SHM (through host
** memory), then NET and CollNet (through a NIC), then any other NCCL may add. */
static int transport_tier(const char *t) {
  if (strncmp(t, "P2P", 3) == 0 || strncmp(t, "NVLS", 4) == 0) return 0;
  if (strncmp(t, "SHM", 3) == 0) return 1;
  if (strncmp(t, "NET", 3) == 0 || strncasecmp(t, "CollNet", 7) == 0) return 2;
  return 3;
}

int xp_nccl_transport_cmp(const char *a, const char *b) {
  int ta = transport_tier(a), tb = transport_tier(b);
  return ta != tb ? (ta < tb ? -1 : 1) : strcmp(a, b);
}

static int by_transport(const void *x, const void *y) {
  return xp_nccl_transport_cmp(*(const char *const *)x, *(const char *const *)y);
}

void xp_nccl_info_transports(const xp_nccl_info *info, char *buf, size_t n) {
  size_t used = 0;
  if (n) buf[0] = 0;
  /* the distinct kinds: few, so each is looked up among those kept */
  enum { MAX_KINDS = 64 };
  const char *kinds[MAX_KINDS];
  int nkinds = 0;
  for (int i = 0; i < info->nconn && nkinds < MAX_KINDS; i++) {
    int seen = 0;
    for (int j = 0; j < nkinds && !seen; j++) seen = strcmp(kinds[j], info->conn[i].transport) == 0;
    if (!seen) kinds[nkinds++] = info->conn[i].transport;
  }
  /* In a fixed order, not as first seen: one process's ranks are threads whose lines interleave
  ** anew each run, and the same job's mix of P2P and SHM must read the same every time. */
  qsort(kinds, (size_t)nkinds, sizeof *kinds, by_transport);
  for (int k = 0; k < nkinds && used < n; k++) {
    int w = snprintf(buf + used, n - used, "%s%s", used ? ", " : "", kinds[k]);
    if (w > 0) used += (size_t)w;
  }
}
