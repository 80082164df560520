/* Facts xp records about every run without being asked: host, software, environment. */
#ifndef XP_META_H
#define XP_META_H
#include <cjson/cJSON.h>
#include <stddef.h>

/* Host facts as key -> value strings (host.name, host.os, host.kernel, host.arch,
** host.cpu_model, host.cores, host.sockets, host.numa_nodes, host.mem_bytes, host.boot_id), read
** once per process; the caller's copy. */
cJSON *xp_meta_host(void);
/* Software facts: xp.version, xp.commit, xp.dirty, xp.compiler, xp.schema and, for a spec
** file inside a git checkout, spec.git_commit and spec.git_dirty. spec_path may be NULL. */
cJSON *xp_meta_software(const char *spec_path);
/* Environment variables that change what GPUs and libraries do: NCCL_*, CUDA_*, XP_*,
** TORCH_*, OMP_*. */
cJSON *xp_meta_env(void);
const char *xp_meta_hostname(void);
const char *xp_meta_boot_id(void);

/* What a PCI device's link can carry, as sysfs under `sysfs` ("/sys") states it: *gen the PCIe
** generation (5 for "32.0 GT/s PCIe"), *width its lanes, the lesser of the device's and its
** upstream port's maxima and never below the current link (a GPU at rest trains its link down);
** -1 where unreadable. bus is the full "0000:bb:dd.f". */
void xp_pcie_link(const char *sysfs, const char *bus, int *gen, int *width);

/* The host's CPU sockets (the online CPUs' distinct physical_package_id) and online NUMA nodes,
** as sysfs under `sysfs` ("/sys") states them; -1 where it states none. */
void xp_host_numa(const char *sysfs, int *sockets, int *numa_nodes);

/* Run a program (no shell) and capture the first line of its stdout; 0 on exit status 0. */
int xp_capture_line(char *const argv[], char *out, size_t outlen);
#endif
