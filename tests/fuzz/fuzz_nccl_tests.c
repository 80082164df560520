/*
** libFuzzer target: `xp import nccl-tests FILE` on arbitrary bytes: the text output (with NCCL
** INFO lines interleaved), the -J JSON output or rccl-tests' -x file (CSV or JSON records), as the
** importer tells them by their content, through the real run lifecycle (fuzz_common.h).
*/
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fuzz_require_importer("nccl-tests");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int json = fuzz_first_char(data, size) == '{';
  fuzz_import("nccl-tests", fuzz_file(data, size, json ? ".json" : ".txt"));
  return 0;
}
