/*
** Host, software and environment facts. Each value is read from the system directly
** (/proc, uname, sysconf) so that nothing depends on tools being installed, except git for
** the spec file's commit, which is run without a shell.
*/
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "db.h"
#include "meta.h"
#include "xp.h"

extern char **environ;

static int read_first_match(const char *path, const char *prefix, char *out, size_t n) {
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char line[512];
  int found = -1;
  size_t plen = strlen(prefix);
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, prefix, plen) != 0) continue;
    char *v = line + plen;
    while (*v == ' ' || *v == '\t' || *v == ':' || *v == '=') v++;
    v[strcspn(v, "\n")] = 0;
    if (*v == '"') {
      v++;
      v[strcspn(v, "\"")] = 0;
    }
    snprintf(out, n, "%s", v);
    found = 0;
    break;
  }
  fclose(f);
  return found;
}

static int sysfs_line(const char *dir, const char *file, char *out, size_t n) {
  char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", dir, file);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int ok = fgets(out, (int)n, f) != NULL;
  fclose(f);
  out[strcspn(out, "\n")] = 0;
  return ok ? 0 : -1;
}

/* sysfs speaks transfer rates ("32.0 GT/s PCIe"); the generation follows from the rate. */
static int pcie_gen_from_speed(const char *s) {
  double gts = atof(s);
  if (gts >= 60) return 6;
  if (gts >= 30) return 5;
  if (gts >= 15) return 4;
  if (gts >= 7.5) return 3;
  if (gts >= 4.5) return 2;
  if (gts > 0) return 1;
  return -1;
}

/* One end's link: its generation and width from `speed` and `width` files of dir; -1 unread. */
static void link_of(const char *dir, const char *speed, const char *width, int *gen, int *lanes) {
  char buf[64];
  *gen = *lanes = -1;
  if (sysfs_line(dir, speed, buf, sizeof buf) == 0) *gen = pcie_gen_from_speed(buf);
  if (sysfs_line(dir, width, buf, sizeof buf) == 0 && atoi(buf) > 0) *lanes = atoi(buf);
}

/* The lesser of two figures where both are known, else the known one. */
static int least(int a, int b) {
  return a < 0 ? b : b < 0 ? a : a < b ? a : b;
}

/*
** What the link can carry, as nvidia-smi's pcie.link.gen.max and width.max say it: the lesser of
** the device's and its upstream port's maxima (a Gen5 x16 GPU in a slot wired x8 is x8). Not the
** current link: a GPU at rest trains down to save power (2.5 GT/s in P8; an RTX PRO 6000
** Blackwell cycles 32, 5 and 2.5 GT/s while idle), and xp reads it before the work starts. Never
** below the current one (a VM's emulated port may state less than the link it shows).
*/
void xp_pcie_link(const char *sysfs, const char *bus, int *gen, int *width) {
  char dev[PATH_MAX], real[PATH_MAX];
  int cur_gen, cur_width, max_gen, max_width, up_gen = -1, up_width = -1;
  snprintf(dev, sizeof dev, "%s/bus/pci/devices/%s", sysfs, bus);
  link_of(dev, "current_link_speed", "current_link_width", &cur_gen, &cur_width);
  link_of(dev, "max_link_speed", "max_link_width", &max_gen, &max_width);
  /* the upstream port is the device's parent in the tree its sysfs link points into; a host
  ** bridge ("pci0000:00") has no link files and so states nothing */
  if (realpath(dev, real) != NULL) {
    char *slash = strrchr(real, '/');
    if (slash && slash != real) {
      *slash = 0;
      link_of(real, "max_link_speed", "max_link_width", &up_gen, &up_width);
    }
  }
  int cap_gen = least(max_gen, up_gen), cap_width = least(max_width, up_width);
  *gen = cap_gen > cur_gen ? cap_gen : cur_gen;
  *width = cap_width > cur_width ? cap_width : cur_width;
}

/* The next entry of a sysfs list ("0-3,8-11", the kernel's cpulist form) from *p: its first and
** last number; 0 at its end or where the list is not one. */
static int list_range(const char **p, long *lo, long *hi) {
  char *end;
  while (**p == ',') (*p)++;
  if (!isdigit((unsigned char)**p)) return 0;
  *lo = *hi = strtol(*p, &end, 10);
  if (*end == '-') *hi = strtol(end + 1, &end, 10);
  *p = end;
  return *hi >= *lo && *hi - *lo < 65536;
}

/* How many CPU sockets the online CPUs sit in (their distinct physical_package_id; -1 where
** none states one, as some VMs and ARM firmware leave it). */
static int count_sockets(const char *sysfs) {
  char dir[PATH_MAX], list[4096], buf[32];
  snprintf(dir, sizeof dir, "%s/devices/system/cpu", sysfs);
  if (sysfs_line(dir, "online", list, sizeof list) != 0) return -1;
  enum { MAX_SOCKETS = 256 };
  long ids[MAX_SOCKETS], lo, hi;
  int n = 0;
  for (const char *p = list; list_range(&p, &lo, &hi);)
    for (long cpu = lo; cpu <= hi && n < MAX_SOCKETS; cpu++) {
      char topo[PATH_MAX + 64];
      snprintf(topo, sizeof topo, "%s/cpu%ld/topology", dir, cpu);
      if (sysfs_line(topo, "physical_package_id", buf, sizeof buf) != 0 || !isdigit((unsigned char)buf[0])) continue;
      long id = atol(buf);
      int seen = 0;
      for (int i = 0; i < n && !seen; i++) seen = ids[i] == id;
      if (!seen) ids[n++] = id;
    }
  return n > 0 ? n : -1;
}

/* The kernel's online NUMA nodes (node/online), -1 where it states none (a kernel without NUMA). */
static int count_numa_nodes(const char *sysfs) {
  char dir[PATH_MAX], list[4096];
  snprintf(dir, sizeof dir, "%s/devices/system/node", sysfs);
  if (sysfs_line(dir, "online", list, sizeof list) != 0) return -1;
  long lo, hi, n = 0;
  for (const char *p = list; list_range(&p, &lo, &hi);) n += hi - lo + 1;
  return n > 0 ? (int)n : -1;
}

void xp_host_numa(const char *sysfs, int *sockets, int *numa_nodes) {
  *sockets = count_sockets(sysfs);
  *numa_nodes = count_numa_nodes(sysfs);
}

const char *xp_meta_hostname(void) {
  static char name[256];
  if (!name[0] && gethostname(name, sizeof name - 1) != 0) strcpy(name, "unknown");
  return name;
}

const char *xp_meta_boot_id(void) {
  static char id[64];
  if (!id[0]) {
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f || !fgets(id, sizeof id, f)) strcpy(id, "unknown");
    if (f) fclose(f);
    id[strcspn(id, "\n")] = 0;
  }
  return id;
}

/* The host's facts as read now: a dozen files, one under /sys per online CPU. */
static cJSON *read_host(void) {
  cJSON *o = cJSON_CreateObject();
  struct utsname u;
  char buf[512];
  cJSON_AddStringToObject(o, "host.name", xp_meta_hostname());
  if (uname(&u) == 0) {
    cJSON_AddStringToObject(o, "host.kernel", u.release);
    cJSON_AddStringToObject(o, "host.arch", u.machine);
  }
  if (read_first_match("/etc/os-release", "PRETTY_NAME", buf, sizeof buf) == 0)
    cJSON_AddStringToObject(o, "host.os", buf);
  if (read_first_match("/proc/cpuinfo", "model name", buf, sizeof buf) == 0)
    cJSON_AddStringToObject(o, "host.cpu_model", buf);
  snprintf(buf, sizeof buf, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
  cJSON_AddStringToObject(o, "host.cores", buf);
  /* two sockets (or one split into NUMA nodes) put GPUs SYS apart: NCCL's paths differ */
  int sockets, nodes;
  xp_host_numa("/sys", &sockets, &nodes);
  if (sockets > 0) {
    snprintf(buf, sizeof buf, "%d", sockets);
    cJSON_AddStringToObject(o, "host.sockets", buf);
  }
  if (nodes > 0) {
    snprintf(buf, sizeof buf, "%d", nodes);
    cJSON_AddStringToObject(o, "host.numa_nodes", buf);
  }
  if (read_first_match("/proc/meminfo", "MemTotal", buf, sizeof buf) == 0) {
    long long kb = atoll(buf);
    snprintf(buf, sizeof buf, "%lld", kb * 1024);
    cJSON_AddStringToObject(o, "host.mem_bytes", buf);
  }
  cJSON_AddStringToObject(o, "host.boot_id", xp_meta_boot_id());
  return o;
}

/* Read once per process, as the host name and boot id are: its kernel, OS, CPUs and memory are
** the ones it started on, and a process that records many runs (a fuzz target's thousands of
** inputs, a test's imports) read them all again for each. */
cJSON *xp_meta_host(void) {
  static cJSON *host;
  if (!host) host = read_host();
  return cJSON_Duplicate(host, 1);
}

int xp_capture_line(char *const argv[], char *out, size_t outlen) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    int devnull = open("/dev/null", O_RDWR);
    dup2(fds[1], 1);
    if (devnull >= 0) {
      dup2(devnull, 2);
      dup2(devnull, 0);
    }
    close(fds[0]);
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fds[1]);
  size_t n = 0;
  ssize_t r;
  char tmp[4096];
  out[0] = 0;
  while ((r = read(fds[0], tmp, sizeof tmp)) > 0) {
    for (ssize_t i = 0; i < r && n + 1 < outlen; i++) out[n++] = tmp[i];
  }
  out[n < outlen ? n : outlen - 1] = 0;
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {}
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Whether git knows the spec file, its last commit, and whether it differs from that commit. */
static void spec_git_facts(cJSON *o, const char *spec_path) {
  char *copy = xp_strdup(spec_path), *slash = strrchr(copy, '/');
  const char *dir = ".", *file = copy;
  if (slash) {
    *slash = 0;
    dir = *copy ? copy : "/";
    file = slash + 1;
  }
  char out[4096];
  char *log[] = {"git", "-C", (char *)dir, "log", "-1", "--format=%H", "--", (char *)file, NULL};
  if (xp_capture_line(log, out, sizeof out) == 0 && out[0]) {
    out[strcspn(out, "\n")] = 0;
    cJSON_AddStringToObject(o, "spec.git_commit", out);
    char *st[] = {"git", "-C", (char *)dir, "status", "--porcelain", "--", (char *)file, NULL};
    if (xp_capture_line(st, out, sizeof out) == 0)
      cJSON_AddStringToObject(o, "spec.git_dirty", out[0] ? "1" : "0");
  }
  free(copy);
}

cJSON *xp_meta_software(const char *spec_path) {
  cJSON *o = cJSON_CreateObject();
  char buf[64];
  cJSON_AddStringToObject(o, "xp.version", xp_build_version);
  cJSON_AddStringToObject(o, "xp.commit", xp_build_commit);
  cJSON_AddStringToObject(o, "xp.dirty", xp_build_dirty ? "1" : "0");
  cJSON_AddStringToObject(o, "xp.compiler", xp_build_compiler);
  snprintf(buf, sizeof buf, "%d", xp_db_schema_version());
  cJSON_AddStringToObject(o, "xp.schema", buf);
  if (spec_path && access(spec_path, R_OK) == 0) spec_git_facts(o, spec_path);
  return o;
}

cJSON *xp_meta_env(void) {
  static const char *const prefixes[] = {"NCCL_", "CUDA_", "XP_", "TORCH_", "OMP_", NULL};
  cJSON *o = cJSON_CreateObject();
  for (char **e = environ; e && *e; e++) {
    for (int i = 0; prefixes[i]; i++) {
      if (strncmp(*e, prefixes[i], strlen(prefixes[i])) != 0) continue;
      const char *eq = strchr(*e, '=');
      if (!eq) break;
      char key[256];
      snprintf(key, sizeof key, "env.%.*s", (int)(eq - *e), *e);
      if (!cJSON_GetObjectItemCaseSensitive(o, key)) cJSON_AddStringToObject(o, key, eq + 1);
      break;
    }
  }
  return o;
}
