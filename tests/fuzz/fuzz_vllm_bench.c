/*
** libFuzzer target: `xp import vllm-bench FILE` on arbitrary bytes: vLLM serving-benchmark
** result JSON (one object, or several separated by newlines), through the real run lifecycle
** (fuzz_common.h).
*/
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fuzz_require_importer("vllm-bench");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  fuzz_import("vllm-bench", fuzz_file(data, size, ".json"));
  return 0;
}
