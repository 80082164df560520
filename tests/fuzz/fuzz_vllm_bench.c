/*
** libFuzzer target: `xp import vllm-bench FILE` on arbitrary bytes: vLLM serving-benchmark
** result JSON (one object, or several separated by newlines), through the real run lifecycle
** (fuzz_common.h). The same file with CRLF line ends (saved on Windows) must import alike.
*/
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fuzz_require_importer("vllm-bench");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import_crlf("vllm-bench", data, size, ".json");
  return 0;
}
