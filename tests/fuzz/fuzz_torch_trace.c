/*
** libFuzzer target: `xp import torch-trace FILE` on arbitrary bytes: the streaming reader
** (plain JSON, or gzip when the input starts with gzip's magic), the event framer, the event
** handling and aggregation, and recording, through the real run lifecycle (fuzz_common.h).
*/
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fuzz_require_importer("torch-trace");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  fuzz_import("torch-trace", fuzz_file(data, size, gz ? ".trace.json.gz" : ".trace.json"));
  return 0;
}
