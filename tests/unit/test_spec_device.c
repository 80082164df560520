/*
** A device index past those this machine has, given by the spec (device = 7, gpus = [0, 7]) or by
** --set (xp run allreduce_burst.toml --set gpus=[7]): the environment's exit code (4), said at the
** spec's line, or at the --set where that gave it. nccl_burst blamed the spec file for a --set's
** device, and gemm, ceilings and kernel_variant said 2, bad input, of a spec that runs elsewhere.
*/
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"
#include "kind.h"
#include "spec.h"
#include "xp.h"

static xp_spec *spec_file(const char *name, const char *text) {
  FILE *f = fopen(name, "w");
  fputs(text, f);
  fclose(f);
  return xp_spec_load(name);
}

int main(void) {
  char dir[] = "/tmp/xp_spec_device_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  CHECK(chdir(dir) == 0);
  xp_error_quiet(1);

  /* the spec's own device: its line */
  xp_spec *s = spec_file("nccl.toml", "kind = \"nccl_burst\"\nsizes = [8]\ngpus = [0,\n  7]\n");
  CHECK(s != NULL);
  CHECK_EQ_INT(xp_spec_check_device(s, "gpus[0]", 0, 2), 0);
  CHECK_EQ_INT(xp_spec_check_device(s, "gpus[1]", 7, 2), XP_EXIT_ENV);
  CHECK_EQ_STR(xp_last_error(), "nccl.toml:4: gpus[1]: device 7 does not exist (2 GPUs visible)");

  /* --set gpus=[7]: the command line, not the file's gpus line */
  const xp_kind *k = xp_kind_find("nccl_burst");
  CHECK(k != NULL);
  CHECK_EQ_INT(xp_spec_set_kv(s->root, k, "gpus=[7]"), 0);
  xp_spec_mark_cli(s, "gpus=[7]");
  CHECK_EQ_INT(xp_spec_check_device(s, "gpus[0]", 7, 1), XP_EXIT_ENV);
  CHECK_EQ_STR(xp_last_error(), "<command line>: --set gpus[0]: device 7 does not exist (1 GPU visible)");
  xp_spec_free(s);

  /* one-device kinds: device, from the file, then from --set device=3 */
  s = spec_file("gemm.toml", "kind = \"gemm\"\ndevice = 1\nm = [1]\n");
  CHECK(s != NULL);
  CHECK_EQ_INT(xp_spec_check_device(s, "device", 1, 1), XP_EXIT_ENV);
  CHECK_EQ_STR(xp_last_error(), "gemm.toml:2: device: device 1 does not exist (1 GPU visible)");
  xp_spec_mark_cli(s, "device=3");
  CHECK_EQ_INT(xp_spec_check_device(s, "device", 3, 0), XP_EXIT_ENV);
  CHECK_EQ_STR(xp_last_error(), "<command line>: --set device: device 3 does not exist (0 GPUs visible)");
  xp_spec_free(s);

  unlink("nccl.toml");
  unlink("gemm.toml");
  CHECK(chdir("/") == 0);
  rmdir(dir);
  CHECK_DONE();
}
