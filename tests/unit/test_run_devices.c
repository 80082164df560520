/*
** The GPU a measured run is filed under (runs.gpu, run_meta gpu_name): that of the devices its
** spec drives (`device` for gemm, ceilings and kernel_variant; `gpus`, every visible GPU by
** default, for nccl_burst), where it was always device 0's. On a workstation with a small
** display GPU at device 0 and an RTX PRO 6000 at device 1, `device = 1` runs were filed under
** the display GPU. The names here are as cudaGetDeviceProperties gives them.
*/
#include "check.h"
#include "recorder.h"
#include "xp.h"

static const char *const host[] = {"NVIDIA RTX A400", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                                   "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"};

/* The name a spec's run on this host is filed under (NULL: none) */
static const char *filed_under(const char *spec_json, int all_by_default) {
  cJSON *root = cJSON_Parse(spec_json);
  int used[8];
  int n = xp_spec_devices(root, all_by_default, 3, used, 8);
  cJSON_Delete(root);
  return xp_devices_gpu_name(host, 3, used, n);
}

int main(void) {
  int used[8];
  cJSON *root = cJSON_Parse("{\"kind\": \"nccl_burst\", \"gpus\": [2, 1]}");
  CHECK_EQ_INT(xp_spec_devices(root, 1, 3, used, 8), 2);
  CHECK_EQ_INT(used[0], 2);
  CHECK_EQ_INT(used[1], 1);
  cJSON_Delete(root);

  /* one-device kinds: the device given, else device 0 */
  CHECK_EQ_STR(filed_under("{\"kind\": \"gemm\", \"device\": 1}", 0), host[1]);
  CHECK_EQ_STR(filed_under("{\"kind\": \"gemm\"}", 0), host[0]);
  /* nccl_burst: the devices listed, alike; every visible one by default, here two kinds: none */
  CHECK_EQ_STR(filed_under("{\"kind\": \"nccl_burst\", \"gpus\": [1, 2]}", 1), host[1]);
  CHECK(filed_under("{\"kind\": \"nccl_burst\", \"gpus\": [0, 2]}", 1) == NULL);
  CHECK(filed_under("{\"kind\": \"nccl_burst\"}", 1) == NULL);
  /* a device past those visible (refused by the runner, with its own message) names nothing */
  CHECK(filed_under("{\"kind\": \"ceilings\", \"device\": 7}", 0) == NULL);
  CHECK_DONE();
}
