/*
** NCCL's topology dump (NCCL_TOPO_DUMP_FILE, src/graph/xml.cc): CPUs holding a PCI tree, GPUs
** under their PCI device with their NVLinks, NICs. A tiny reader for that one dialect of XML
** (elements and quoted attributes; no text content, no entities that matter), then the path
** between two GPUs and the interconnect a run used.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "nccl_info.h"
#include "xp.h"

#define NVSWITCH_CLASS "0x068000"
#define MAX_DEPTH 64

typedef struct frame {
  char name[32];
  int cpu, pci, gpu;
} frame;

typedef struct attrs {
  int n;
  char key[24][32];
  char val[24][96];
} attrs;

static const char *attr(const attrs *a, const char *key) {
  for (int i = 0; i < a->n; i++)
    if (strcmp(a->key[i], key) == 0) return a->val[i];
  return NULL;
}

static int attr_int(const attrs *a, const char *key, int dflt) {
  const char *v = attr(a, key);
  return v && *v ? (int)strtol(v, NULL, 0) : dflt;
}

static void copy_attr(char *dst, size_t n, const attrs *a, const char *key) {
  const char *v = attr(a, key);
  snprintf(dst, n, "%s", v ? v : "");
}

/* Parse "<name k="v" ...>" starting after '<'. Sets *end past '>', *self_closing. */
static int parse_tag(const char *p, const char *lim, char *name, size_t nn, attrs *a,
                     const char **end, int *self_closing) {
  size_t i = 0;
  a->n = 0;
  *self_closing = 0;
  while (p < lim && (isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == ':')) {
    if (i + 1 < nn) name[i++] = *p;
    p++;
  }
  name[i] = 0;
  if (i == 0) return -1;
  for (;;) {
    while (p < lim && isspace((unsigned char)*p)) p++;
    if (p >= lim) return -1;
    if (*p == '>') { *end = p + 1; return 0; }
    if (*p == '/' && p + 1 < lim && p[1] == '>') { *self_closing = 1; *end = p + 2; return 0; }
    const char *k = p;
    while (p < lim && *p != '=' && !isspace((unsigned char)*p) && *p != '>') p++;
    size_t kl = (size_t)(p - k);
    while (p < lim && isspace((unsigned char)*p)) p++;
    if (p >= lim || *p != '=') return -1;
    p++;
    while (p < lim && isspace((unsigned char)*p)) p++;
    if (p >= lim || (*p != '"' && *p != '\'')) return -1;
    char q = *p++;
    const char *v = p;
    while (p < lim && *p != q) p++;
    if (p >= lim) return -1;
    if (a->n < 24) {
      snprintf(a->key[a->n], sizeof a->key[0], "%.*s", (int)(kl < 31 ? kl : 31), k);
      size_t vl = (size_t)(p - v);
      snprintf(a->val[a->n], sizeof a->val[0], "%.*s", (int)(vl < 95 ? vl : 95), v);
      a->n++;
    }
    p++;
  }
}

static void add_pci(xp_topo *t, const attrs *a, const frame *top) {
  t->pci = xp_xrealloc(t->pci, sizeof *t->pci * (size_t)(t->npci + 1));
  xp_topo_pci *c = &t->pci[t->npci++];
  copy_attr(c->busid, sizeof c->busid, a, "busid");
  for (char *s = c->busid; *s; s++) *s = (char)tolower((unsigned char)*s);
  copy_attr(c->cls, sizeof c->cls, a, "class");
  copy_attr(c->link_speed, sizeof c->link_speed, a, "link_speed");
  c->link_width = attr_int(a, "link_width", -1);
  c->parent = top ? top->pci : -1;
  c->cpu = top ? top->cpu : -1;
}

static void add_gpu(xp_topo *t, const attrs *a, const frame *top) {
  t->gpu = xp_xrealloc(t->gpu, sizeof *t->gpu * (size_t)(t->ngpu + 1));
  xp_topo_gpu *g = &t->gpu[t->ngpu++];
  memset(g, 0, sizeof *g);
  g->dev = attr_int(a, "dev", -1);
  g->rank = attr_int(a, "rank", -1);
  g->sm = attr_int(a, "sm", -1);
  g->mlopart = attr_int(a, "mlopart", -1);
  g->pci = top ? top->pci : -1;
}

static void add_link(xp_topo *t, const attrs *a, const frame *top) {
  if (!top || top->gpu < 0) return;
  xp_topo_gpu *g = &t->gpu[top->gpu];
  if (g->nlinks == 16) return;
  xp_topo_link *l = &g->links[g->nlinks++];
  copy_attr(l->target, sizeof l->target, a, "target");
  for (char *s = l->target; *s; s++) *s = (char)tolower((unsigned char)*s);
  copy_attr(l->tclass, sizeof l->tclass, a, "tclass");
  l->count = attr_int(a, "count", 1);
}

static void add_nic(xp_topo *t, const attrs *a, const frame *top) {
  t->nic = xp_xrealloc(t->nic, sizeof *t->nic * (size_t)(t->nnic + 1));
  t->nic_cpu = xp_xrealloc(t->nic_cpu, sizeof *t->nic_cpu * (size_t)(t->nnic + 1));
  t->nic_cpu[t->nnic] = top ? top->cpu : -1;
  const char *name = attr(a, "name"), *speed = attr(a, "speed");
  snprintf(t->nic[t->nnic++], sizeof t->nic[0], "%s %s Mb/s", name ? name : "?", speed ? speed : "?");
}

/* A <cpu>'s host, by its host_hash: the hosts counted once. */
static void add_cpu_host(xp_topo *t, const attrs *a) {
  t->cpu_host = xp_xrealloc(t->cpu_host, sizeof *t->cpu_host * (size_t)(t->ncpu + 1));
  copy_attr(t->cpu_host[t->ncpu], sizeof t->cpu_host[0], a, "host_hash");
  int seen = 0;
  for (int i = 0; i < t->ncpu && !seen; i++) seen = strcmp(t->cpu_host[i], t->cpu_host[t->ncpu]) == 0;
  t->nhosts += !seen;
}

/* cpu's NUMA node, counted once per host; one that states none leaves the count unknown. */
static void add_numa(xp_topo *t, int cpu, int numaid) {
  if (t->nnuma < 0) return;
  if (numaid < 0) {
    t->nnuma = -1;
    return;
  }
  for (int i = 0; i < t->nnuma; i++)
    if (t->numaid[i] == numaid && strcmp(t->cpu_host[t->numa_cpu[i]], t->cpu_host[cpu]) == 0) return;
  if (t->nnuma < (int)(sizeof t->numaid / sizeof *t->numaid)) {
    t->numa_cpu[t->nnuma] = cpu;
    t->numaid[t->nnuma++] = numaid;
  }
}

static void open_element(xp_topo *t, const char *name, const attrs *a, frame *f, const frame *top) {
  *f = top ? *top : (frame){"", -1, -1, -1};
  snprintf(f->name, sizeof f->name, "%s", name);
  if (strcmp(name, "cpu") == 0) {
    add_cpu_host(t, a);
    f->cpu = t->ncpu++;
    add_numa(t, f->cpu, attr_int(a, "numaid", -1));
  }
  else if (strcmp(name, "pci") == 0) { add_pci(t, a, top); f->pci = t->npci - 1; }
  else if (strcmp(name, "gpu") == 0) { add_gpu(t, a, top); f->gpu = t->ngpu - 1; }
  else if (strcmp(name, "nvlink") == 0) add_link(t, a, top);
  else if (strcmp(name, "xgmi") == 0 && top && top->gpu >= 0) { /* RCCL's dump: AMD Infinity Fabric */
    int before = t->gpu[top->gpu].nlinks;
    add_link(t, a, top);
    if (t->gpu[top->gpu].nlinks > before) t->gpu[top->gpu].links[before].xgmi = 1;
  }
  else if (strcmp(name, "net") == 0) add_nic(t, a, top);
}

int xp_topo_parse(const char *xml, size_t len, xp_topo *out, char *err, size_t errn) {
  memset(out, 0, sizeof *out);
  frame stack[MAX_DEPTH];
  int depth = 0, saw_system = 0;
  const char *p = xml, *lim = xml + len;
  while ((p = memchr(p, '<', (size_t)(lim - p))) != NULL) {
    p++;
    if (p < lim && (*p == '?' || *p == '!')) {
      const char *close = *p == '!' && p + 2 < lim && p[1] == '-' && p[2] == '-' ? "-->" : ">";
      const char *e = strstr(p, close);
      if (!e || e >= lim) goto malformed;
      p = e + strlen(close);
      continue;
    }
    if (p < lim && *p == '/') {
      const char *e = memchr(p, '>', (size_t)(lim - p));
      if (!e || depth == 0) goto malformed;
      depth--;
      p = e + 1;
      continue;
    }
    char name[32];
    attrs a;
    int self;
    const char *end;
    if (parse_tag(p, lim, name, sizeof name, &a, &end, &self) != 0) goto malformed;
    if (strcmp(name, "system") == 0) saw_system = 1;
    if (depth == MAX_DEPTH) goto malformed;
    frame f;
    open_element(out, name, &a, &f, depth ? &stack[depth - 1] : NULL);
    if (!self) stack[depth++] = f;
    p = end;
  }
  if (depth > 0) {
    snprintf(err, errn, "malformed XML: <%s> is not closed", stack[depth - 1].name);
    xp_topo_free(out);
    return -1;
  }
  if (!saw_system) {
    snprintf(err, errn, "not an NCCL topology dump (no <system> element)");
    xp_topo_free(out);
    return -1;
  }
  return 0;
malformed:
  snprintf(err, errn, "malformed XML near byte %zu", (size_t)(p - xml));
  xp_topo_free(out);
  return -1;
}

void xp_topo_free(xp_topo *t) {
  free(t->pci);
  free(t->gpu);
  free(t->nic);
  free(t->nic_cpu);
  free(t->cpu_host);
  memset(t, 0, sizeof *t);
}

const xp_topo_gpu *xp_topo_gpu_of_rank(const xp_topo *t, int rank) {
  for (int i = 0; i < t->ngpu; i++)
    if (t->gpu[i].rank == rank) return &t->gpu[i];
  return NULL;
}

static const char *busid_of(const xp_topo *t, const xp_topo_gpu *g) {
  return g->pci >= 0 && g->pci < t->npci ? t->pci[g->pci].busid : "";
}

/* Links from a straight to b (a GPU-to-GPU NVLink bridge or a direct mesh; AMD's xGMI). */
static int direct_links(const xp_topo *t, const xp_topo_gpu *a, const xp_topo_gpu *b, int *xgmi) {
  const char *bus = busid_of(t, b);
  int n = 0;
  for (int i = 0; i < a->nlinks; i++)
    if (*bus && strcmp(a->links[i].target, bus) == 0) {
      n += a->links[i].count;
      *xgmi |= a->links[i].xgmi;
    }
  return n;
}

static int switch_links(const xp_topo_gpu *g) {
  int n = 0;
  for (int i = 0; i < g->nlinks; i++)
    if (strcmp(g->links[i].tclass, NVSWITCH_CLASS) == 0) n += g->links[i].count;
  return n;
}

static int is_ancestor(const xp_topo *t, int anc, int node) {
  for (int p = node; p >= 0; p = t->pci[p].parent)
    if (p == anc) return 1;
  return 0;
}

/* Two <gpu> elements under one <pci> are one physical GPU: its partitions (MLOPart, NCCL 2.27 on:
** one <gpu mlopart=".."> each, which topo.cc joins by a LOC link). */
static int same_gpu(const xp_topo_gpu *a, const xp_topo_gpu *b) { return a->pci >= 0 && a->pci == b->pci; }

int xp_topo_physical_gpus(const xp_topo *t) {
  int n = 0;
  for (int i = 0; i < t->ngpu; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++) seen = same_gpu(&t->gpu[j], &t->gpu[i]);
    n += !seen;
  }
  return n;
}

int xp_topo_pair(const xp_topo *t, int rank_a, int rank_b, xp_topo_path *out) {
  memset(out, 0, sizeof *out);
  const xp_topo_gpu *a = xp_topo_gpu_of_rank(t, rank_a), *b = xp_topo_gpu_of_rank(t, rank_b);
  if (!a || !b) return -1;
  if (same_gpu(a, b)) { /* traffic stays in its memory, whatever NVLinks each lists to the NVSwitch */
    snprintf(out->kind, sizeof out->kind, "local");
    if (a->mlopart >= 0 && b->mlopart >= 0)
      snprintf(out->detail, sizeof out->detail, "one GPU's MLOPart partitions %d and %d, in its memory", a->mlopart,
               b->mlopart);
    else snprintf(out->detail, sizeof out->detail, "one GPU (bus id %s), in its memory", busid_of(t, a));
    return 0;
  }
  int xgmi = 0, n = direct_links(t, a, b, &xgmi);
  if (n == 0) n = direct_links(t, b, a, &xgmi);
  if (n > 0 && xgmi) {
    snprintf(out->kind, sizeof out->kind, "xgmi");
    snprintf(out->detail, sizeof out->detail, "%d xGMI link%s direct", n, n == 1 ? "" : "s");
    return 0;
  }
  if (n > 0) {
    snprintf(out->kind, sizeof out->kind, "nvlink");
    snprintf(out->detail, sizeof out->detail, "%d NVLink%s direct", n, n == 1 ? "" : "s");
    out->nvlinks = n;
    return 0;
  }
  int sa = switch_links(a), sb = switch_links(b);
  if (sa > 0 && sb > 0) {
    n = sa < sb ? sa : sb;
    snprintf(out->kind, sizeof out->kind, "nvlink");
    snprintf(out->detail, sizeof out->detail, "%d NVLink%s through NVSwitch", n, n == 1 ? "" : "s");
    out->nvlinks = n;
    return 0;
  }
  int cpu_a = a->pci >= 0 ? t->pci[a->pci].cpu : -1, cpu_b = b->pci >= 0 ? t->pci[b->pci].cpu : -1;
  if (cpu_a >= 0 && cpu_b >= 0 && strcmp(t->cpu_host[cpu_a], t->cpu_host[cpu_b]) != 0)
    return -1; /* two hosts of an MNNVL domain, one GPU without its NVLinks: no PCIe between them */
  snprintf(out->kind, sizeof out->kind, "pcie");
  int pa = a->pci >= 0 ? t->pci[a->pci].parent : -1, pb = b->pci >= 0 ? t->pci[b->pci].parent : -1;
  int common = -1;
  for (int p = pa; p >= 0 && common < 0; p = t->pci[p].parent)
    if (is_ancestor(t, p, pb)) common = p;
  /* NCCL's names for how far a path goes, nearest first (its PATH_PIX .. PATH_SYS) */
  out->pcie_level = common >= 0 && common == pa && common == pb ? 1 : common >= 0 ? 2 : cpu_a == cpu_b ? 3 : 4;
  if (out->pcie_level == 1)
    snprintf(out->detail, sizeof out->detail, "PCIe PIX (both under switch %s)", t->pci[common].busid);
  else if (out->pcie_level == 2)
    snprintf(out->detail, sizeof out->detail, "PCIe PXB (through switches, meeting at %s)", t->pci[common].busid);
  else if (out->pcie_level == 3)
    snprintf(out->detail, sizeof out->detail, "PCIe PHB (through the CPU's host bridge)");
  else /* a dump's <cpu> is a NUMA node: two sockets, or one split (EPYC NPS2/4, Xeon SNC) */
    snprintf(out->detail, sizeof out->detail, "PCIe SYS (across NUMA nodes, over the CPUs' interconnect)");
  return 0;
}

/* ---- the interconnect a run used ---- */

/* Fastest first. IC_LOCAL: two ranks on one GPU (MLOPart), which names no interconnect alone. */
enum { IC_UNKNOWN, IC_LOCAL, IC_NVLINK, IC_XGMI, IC_PCIE, IC_SHM, IC_NET };
static const char *const ic_names[] = {NULL, NULL, "nvlink", "xgmi", "pcie", "shm", "net"};

static int transport_class(const char *tr) {
  if (strncmp(tr, "SHM", 3) == 0) return IC_SHM;
  if (strncmp(tr, "NET", 3) == 0 || strncmp(tr, "CollNet", 7) == 0 || strncmp(tr, "COLLNET", 7) == 0)
    return IC_NET;
  if (strncmp(tr, "NVLS", 4) == 0) return IC_NVLINK;
  return -1; /* P2P: NVLink or PCIe, as the topology says */
}

/* Whether connection c (class cls over path p) is slower than w (wcls over wp), or as slow and
** first in rank order: the one the basis names, the same whatever order the log printed. */
static int slower(const xp_nccl_conn *c, int cls, const xp_topo_path *p, const xp_nccl_conn *w, int wcls,
                  const xp_topo_path *wp) {
  if (!w || cls != wcls) return !w || cls > wcls;
  if (p->pcie_level != wp->pcie_level) return p->pcie_level > wp->pcie_level;
  if (c->src != w->src) return c->src < w->src;
  if (c->dst != w->dst) return c->dst < w->dst;
  return xp_nccl_transport_cmp(c->transport, w->transport) < 0;
}

/* "; mixed: 2 P2P, 4 SHM connections" where the connections used more than one kind of transport
** (the word before the first '/'), in xp's order of transports; nothing where they used one. */
static void say_mixed(const xp_nccl_info *info, char *out, size_t n) {
  enum { MAX_KINDS = 8 };
  char kinds[MAX_KINDS][16];
  int count[MAX_KINDS], nkinds = 0;
  for (int i = 0; i < info->nconn; i++) {
    char k[16];
    snprintf(k, sizeof k, "%.*s", (int)strcspn(info->conn[i].transport, "/"), info->conn[i].transport);
    int j = 0;
    while (j < nkinds && strcmp(kinds[j], k) != 0) j++;
    if (j == nkinds && nkinds == MAX_KINDS) continue;
    if (j == nkinds) memcpy(kinds[nkinds], k, sizeof k), count[nkinds++] = 0;
    count[j]++;
  }
  if (nkinds < 2) return;
  size_t used = (size_t)snprintf(out, n, "; mixed:");
  for (int done = 0; done < nkinds && used < n; done++) {
    int next = -1;
    for (int j = 0; j < nkinds; j++)
      if (count[j] >= 0 && (next < 0 || xp_nccl_transport_cmp(kinds[j], kinds[next]) < 0)) next = j;
    used += (size_t)snprintf(out + used, n - used, "%s %d %s", done ? "," : "", count[next], kinds[next]);
    count[next] = -1;
  }
  if (used < n) snprintf(out + used, n - used, " connections");
}

/* A P2P connection's path where no topology dump gives it: NCCL's own word in its GRAPH lines, the
** farthest path between a node's GPUs its rings and trees needed (NVL, NVB: NVLink, the second
** through another GPU; PIX to SYS: PCIe), else NVLS channels (NVSwitch); IC_UNKNOWN where the
** log prints none of them. */
static int graph_path(const xp_nccl_info *info, xp_topo_path *path) {
  static const char *const pcie[] = {"PIX", "PXB", "PHB", "SYS"};
  const char *t = info->graph_intra;
  /* RCCL's: "XGMI" where NCCL says NVL, NVB (through another GPU) under the name NCCL gives it */
  if (strcmp(t, "XGMI") == 0 || (strcmp(t, "NVB") == 0 && strncmp(info->version, "RCCL ", 5) == 0)) {
    snprintf(path->kind, sizeof path->kind, "xgmi");
    snprintf(path->detail, sizeof path->detail, "xGMI%s (RCCL's graphs: type %s)",
             t[0] == 'N' ? " through another GPU" : "", t);
    return IC_XGMI;
  }
  if (strcmp(t, "NVL") == 0 || strcmp(t, "NVB") == 0) {
    snprintf(path->kind, sizeof path->kind, "nvlink");
    snprintf(path->detail, sizeof path->detail, "NVLink%s (NCCL's graphs: type %s)",
             t[2] == 'B' ? " through another GPU" : "", t);
    return IC_NVLINK;
  }
  for (int i = 0; i < 4; i++)
    if (strcmp(t, pcie[i]) == 0) {
      snprintf(path->kind, sizeof path->kind, "pcie");
      snprintf(path->detail, sizeof path->detail, "PCIe %s (NCCL's graphs: type %s)", t, t);
      path->pcie_level = i + 1;
      return IC_PCIE;
    }
  /* INIT's "16 coll channels, 0 collnet channels, 16 nvls channels, ...": NVLS (NVLink SHARP) is
  ** set up only where an NVSwitch joins every GPU of the node by NVLink, over which P2P then goes */
  if (!t[0] && info->nvls_channels > 0) {
    snprintf(path->kind, sizeof path->kind, "nvlink");
    snprintf(path->detail, sizeof path->detail, "NVLink through NVSwitch (NCCL set up %d NVLS channels)",
             info->nvls_channels);
    return IC_NVLINK;
  }
  return IC_UNKNOWN;
}

const char *xp_nccl_interconnect(const xp_nccl_info *info, const xp_topo *topo, char *basis,
                                 size_t n) {
  int worst = IC_UNKNOWN, unknown_p2p = 0;
  const xp_nccl_conn *why = NULL;
  xp_topo_path why_path = {"", "", 0, 0};
  if (n) basis[0] = 0;
  for (int i = 0; i < info->nconn; i++) {
    const xp_nccl_conn *c = &info->conn[i];
    int cls = transport_class(c->transport);
    xp_topo_path path = {"", "", 0, 0};
    if (cls < 0) {
      if (topo && xp_topo_pair(topo, c->src, c->dst, &path) == 0)
        cls = strcmp(path.kind, "local") == 0    ? IC_LOCAL
              : strcmp(path.kind, "nvlink") == 0 ? IC_NVLINK
              : strcmp(path.kind, "xgmi") == 0   ? IC_XGMI
                                                 : IC_PCIE;
      else if ((cls = graph_path(info, &path)) == IC_UNKNOWN) {
        unknown_p2p = 1;
        continue;
      }
    }
    if (slower(c, cls, &path, why, worst, &why_path)) {
      worst = cls;
      why = c;
      why_path = path;
    }
  }
  if (worst == IC_UNKNOWN || (unknown_p2p && worst < IC_PCIE)) {
    if (n && info->nconn)
      snprintf(basis, n, "NCCL connected peers with P2P, but no topology says whether over NVLink or PCIe");
    return NULL;
  }
  if (worst == IC_LOCAL) {
    if (n)
      snprintf(basis, n, "NCCL connected rank %d to %d with %s within %s: no link between GPUs", why->src, why->dst,
               why->transport, why_path.detail);
    return NULL;
  }
  if (n) {
    char mixed[128] = "";
    say_mixed(info, mixed, sizeof mixed);
    if (why->src == why->dst) /* a CollNet connection: to the network's collectives, no peer */
      snprintf(basis, n, "NCCL connected rank %d to the network's collectives with %s%s", why->src, why->transport, mixed);
    else if (why_path.kind[0])
      snprintf(basis, n, "NCCL connected rank %d to %d with %s over %s%s", why->src, why->dst, why->transport,
               why_path.detail, mixed);
    else
      snprintf(basis, n, "NCCL connected rank %d to %d with %s%s", why->src, why->dst, why->transport, mixed);
  }
  return ic_names[worst];
}
