/*
** libFuzzer target: `xp import nccl-tests FILE` on arbitrary bytes: the text output (with NCCL
** INFO lines interleaved), the -J JSON output or rccl-tests' -x file (CSV or JSON records), as the
** importer tells them by their content, through the real run lifecycle (fuzz_common.h). The same
** file with CRLF line ends (saved on Windows) must import alike. Bytes that begin as gzip does are
** a gzip'd log, inflated first: CR bytes put among them make another (damaged) stream, not the
** same text with CRLF line ends, so that check is the text's alone.
*/
#include "fuzz_common.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  fuzz_require_importer("nccl-tests");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  int json = fuzz_first_char(data, size) == '{';
  int64_t run;
  if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b)
    fuzz_import_run("nccl-tests", fuzz_file(data, size, ".log.gz"), &run);
  else fuzz_import_crlf("nccl-tests", data, size, json ? ".json" : ".txt");
  return 0;
}
