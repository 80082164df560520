/* xp version */
#include <sqlite3.h>
#include <stdio.h>
#include "cli.h"
#include "db.h"
#include "kind.h"
#include "xp.h"
#ifdef XP_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

int cmd_version(int argc, char **argv, const char *db_path) {
  (void)db_path;
  /* `xp version --short` printed the whole text and exit 0, as if the option were known */
  if (argc > 1 && argv[1][0] == '-' && argv[1][1])
    return xp_unknown_option("version", argv[1], (const char *const[]){"--help", NULL});
  if (argc > 1) return xp_usage_error("version", "unexpected argument %s", argv[1]);
  printf("xp %s (commit %s%s, %s)\n", xp_build_version, xp_build_commit,
         xp_build_dirty ? ", dirty" : "", xp_build_compiler);
  printf("schema %d, SQLite %s\n", xp_db_schema_version(), sqlite3_libversion());
#ifdef XP_HAVE_CUDA
  char ver[16];
  xp_cuda_version_text(CUDART_VERSION, ver, sizeof ver);
  printf("built with CUDA %s\n", ver);
#else
  char self[4096];
  if (xp_cuda_sibling(self, sizeof self) == 0)
    printf("GPU kinds run in %s (this binary does not load the CUDA libraries)\n", self);
  else
    printf("no xp-cuda beside this binary: built without CUDA, or copied away from its build folder"
           " (GPU kinds cannot run)\n");
#endif
  return 0;
}
