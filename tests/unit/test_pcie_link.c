/*
** A GPU's PCIe link as xp records it (run_gpus.pcie_gen, pcie_width), read from a sysfs tree laid
** out here as Linux lays it out: /sys/bus/pci/devices/BUS links into /sys/devices/pci0000:00/...,
** the device's directory under its upstream port's, each with current_ and max_link_speed and
** _width ("32.0 GT/s PCIe", "16"; nokyan/resources issue 512 shows a GPU's and its switch's).
** A GPU at rest trains its link down (P8: Gen1, NVIDIA/open-gpu-kernel-modules issue 731; an RTX
** PRO 6000 Blackwell cycles 32, 5 and 2.5 GT/s while idle, local-inference-lab/rtx6kpro PR 88),
** and xp reads the link before its work starts: what the link can carry is recorded, as
** nvidia-smi's pcie.link.gen.max says it, the lesser of the GPU's and its slot's (two RTX PRO
** 6000 at "PCIe Gen5 x8 per GPU", local-inference-lab/rtx6kpro issue 15).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "testutil.h"
#include "meta.h"

/* /sys/bus/pci/devices/BUS -> /sys/devices/PATH, as the kernel links them */
static void link_bus(const char *bus, const char *path) {
  char *cmd = xp_asprintf("mkdir -p '%s/bus/pci/devices'", test_dir);
  if (system(cmd) != 0) fprintf(stderr, "mkdir failed: %s\n", cmd);
  free(cmd);
  char *from = xp_asprintf("%s/bus/pci/devices/%s", test_dir, bus);
  char *to = xp_asprintf("%s/devices/%s", test_dir, path);
  CHECK_EQ_INT(symlink(to, from), 0);
  free(from);
  free(to);
}

static void end(const char *dir, const char *cur_speed, const char *cur_width, const char *max_speed,
                const char *max_width) {
  if (cur_speed) test_put_file(dir, "current_link_speed", cur_speed);
  if (cur_width) test_put_file(dir, "current_link_width", cur_width);
  if (max_speed) test_put_file(dir, "max_link_speed", max_speed);
  if (max_width) test_put_file(dir, "max_link_width", max_width);
}

int main(void) {
  if (!test_dir_make("/tmp/xp-test-pcie-XXXXXX")) {
    fprintf(stderr, "skipped: no scratch folder\n");
    return 77;
  }
  int gen, width;
  /* an RTX PRO 6000 at rest on a root port wired x8: its link at 2.5 GT/s x8 now, Gen5 x16 the
  ** card's, Gen5 x8 the port's: Gen5 x8 (it was recorded Gen1) */
  end("devices/pci0000:00/0000:00:01.1", "32.0 GT/s PCIe", "8", "32.0 GT/s PCIe", "8");
  end("devices/pci0000:00/0000:00:01.1/0000:01:00.0", "2.5 GT/s PCIe", "8", "32.0 GT/s PCIe", "16");
  link_bus("0000:01:00.0", "pci0000:00/0000:00:01.1/0000:01:00.0");
  xp_pcie_link(test_dir, "0000:01:00.0", &gen, &width);
  CHECK_EQ_INT(gen, 5);
  CHECK_EQ_INT(width, 8);

  /* at rest behind a Gen4 switch port, its width trained down too (nvidia-smi: "may be reduced
  ** when the GPU is not in use"): the port's Gen4 x16 bounds the Gen5 x16 card */
  end("devices/pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:08.0", NULL, NULL, "16.0 GT/s PCIe", "16");
  end("devices/pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:08.0/0000:83:00.0", "5.0 GT/s PCIe", "4",
      "32.0 GT/s PCIe", "16");
  link_bus("0000:83:00.0", "pci0000:80/0000:80:01.1/0000:81:00.0/0000:82:08.0/0000:83:00.0");
  xp_pcie_link(test_dir, "0000:83:00.0", &gen, &width);
  CHECK_EQ_INT(gen, 4);
  CHECK_EQ_INT(width, 16);

  /* a VM's device right under the host bridge, which states no link; its own maxima unreadable:
  ** the current link stands (the shared H200 VM's topology says link width 0: unknown, not 0) */
  end("devices/pci0000:00/0000:00:06.0", "32.0 GT/s PCIe", "0", NULL, NULL);
  link_bus("0000:00:06.0", "pci0000:00/0000:00:06.0");
  xp_pcie_link(test_dir, "0000:00:06.0", &gen, &width);
  CHECK_EQ_INT(gen, 5);
  CHECK_EQ_INT(width, -1);

  /* no such device: nothing known */
  xp_pcie_link(test_dir, "0000:ff:00.0", &gen, &width);
  CHECK_EQ_INT(gen, -1);
  CHECK_EQ_INT(width, -1);
  test_dir_remove();
  CHECK_DONE();
}
