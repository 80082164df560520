/*
** libFuzzer target: `xp import nccl-tests FILE` on arbitrary bytes: the text output (with NCCL
** INFO lines interleaved), the -J JSON output or rccl-tests' -x file (CSV or JSON records), as the
** importer tells them by their content, through the real run lifecycle (fuzz_common.h). The same
** file with CRLF line ends (saved on Windows) must import alike.
*/
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fuzz_require_importer("nccl-tests");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int json = fuzz_first_char(data, size) == '{';
  fuzz_import_crlf("nccl-tests", data, size, json ? ".json" : ".txt");
  return 0;
}
