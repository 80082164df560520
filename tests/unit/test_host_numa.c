/*
** The host's CPU sockets and NUMA nodes (run_meta host.sockets, host.numa_nodes), read from a
** sysfs tree laid out here as Linux lays it out: devices/system/node/online and cpu/online in
** the kernel's list form ("0-3,8-11", Documentation/ABI/stable/sysfs-devices-node and
** sysfs-devices-system-cpu), each CPU's topology/physical_package_id. Two sockets, or one EPYC
** in NPS4 (one socket, four nodes), put GPUs SYS apart to NCCL where one node does not.
*/
#include <stdio.h>
#include <stdlib.h>
#include "check.h"
#include "testutil.h"
#include "meta.h"
#include "xp.h"

/* CPUs lo..hi of a tree under root, each in package pkg */
static void cpus(const char *root, int lo, int hi, const char *pkg) {
  for (int c = lo; c <= hi; c++) {
    char *dir = xp_asprintf("%s/devices/system/cpu/cpu%d/topology", root, c);
    test_put_file(dir, "physical_package_id", pkg);
    free(dir);
  }
}

/* The read system calls this process has made (/proc/self/io's syscr); -1 where the kernel
** keeps no count. Reading it costs the same few reads every time. */
static long reads_made(void) {
  FILE *f = fopen("/proc/self/io", "r");
  char line[128];
  long n = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "syscr: %ld", &n) == 1) break;
  if (f) fclose(f);
  return n;
}

static void numa_of(const char *root, int *sockets, int *nodes) {
  char *sysfs = xp_asprintf("%s/%s", test_dir, root);
  xp_host_numa(sysfs, sockets, nodes);
  free(sysfs);
}

int main(void) {
  if (!test_dir_make("/tmp/xp-test-numa-XXXXXX")) {
    fprintf(stderr, "skipped: no scratch folder\n");
    return 77;
  }
  int sockets, nodes;
  /* two Xeons, a node each; CPU 4 offline (its files stay): 2 sockets, 2 nodes */
  test_put_file("two/devices/system/node", "online", "0-1\n");
  test_put_file("two/devices/system/cpu", "online", "0-3,5-7\n");
  cpus("two", 0, 3, "0\n");
  cpus("two", 4, 7, "1\n");
  numa_of("two", &sockets, &nodes);
  CHECK_EQ_INT(sockets, 2);
  CHECK_EQ_INT(nodes, 2);
  /* one EPYC in NPS4: 1 socket, 4 nodes */
  test_put_file("nps4/devices/system/node", "online", "0-3\n");
  test_put_file("nps4/devices/system/cpu", "online", "0-7\n");
  cpus("nps4", 0, 7, "0\n");
  numa_of("nps4", &sockets, &nodes);
  CHECK_EQ_INT(sockets, 1);
  CHECK_EQ_INT(nodes, 4);
  /* nodes listed apart ("0,2": node 1 has no memory online) */
  test_put_file("apart/devices/system/node", "online", "0,2\n");
  numa_of("apart", &sockets, &nodes);
  CHECK_EQ_INT(nodes, 2);
  CHECK_EQ_INT(sockets, -1);
  /* a kernel without NUMA (no node folder) and CPUs that state no package (-1): unknown */
  test_put_file("none/devices/system/cpu", "online", "0-1\n");
  cpus("none", 0, 1, "-1\n");
  numa_of("none", &sockets, &nodes);
  CHECK_EQ_INT(sockets, -1);
  CHECK_EQ_INT(nodes, -1);
  /* a run records what the machine's /sys states */
  cJSON *host = xp_meta_host();
  xp_host_numa("/sys", &sockets, &nodes);
  const cJSON *s = cJSON_GetObjectItemCaseSensitive(host, "host.sockets");
  const cJSON *n = cJSON_GetObjectItemCaseSensitive(host, "host.numa_nodes");
  CHECK_EQ_INT(s ? atoi(s->valuestring) : -1, sockets);
  CHECK_EQ_INT(n ? atoi(n->valuestring) : -1, nodes);
  /* read once per process: a second run's facts are the first's, and reading them reads no
  ** file (as many reads as two counts in a row make) */
  long before = reads_made(), idle = reads_made() - before;
  before = reads_made();
  cJSON *again = xp_meta_host();
  long made = reads_made() - before;
  if (before >= 0) CHECK_EQ_INT(made, idle);
  CHECK(cJSON_Compare(host, again, 1));
  CHECK(again != host);
  cJSON_Delete(again);
  cJSON_Delete(host);
  test_dir_remove();
  CHECK_DONE();
}
