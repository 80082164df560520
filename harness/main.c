/*
** xp: the dispatcher. Global options, then one subcommand (the table is in commands.c).
*/
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "db.h"
#include "xp.h"

int cmd_help(int argc, char **argv, const char *db_path);
int cmd_version(int argc, char **argv, const char *db_path);

static int wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}

/* `xp runs --db x.db`: each command would call --db an unknown option of its own. */
static int db_after_command(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--db") == 0 || strncmp(argv[i], "--db=", 5) == 0) return 1;
  }
  return 0;
}

/* the user's word between two texts, cut as every error cuts a value given (xp_value_cut) */
static int usage_value_error(const char *before, const char *value, const char *after) {
  char *cut = xp_value_cut(value);
  xp_error(XP_EXIT_USAGE, "%s%s%s", before, cut, after);
  free(cut);
  return XP_EXIT_USAGE;
}

/* xp rnus: the command meant, where one is near (xp_near, as for spec keys and formats). */
static int unknown_command(const char *word) {
  xp_near near;
  xp_near_init(&near, word);
  for (const xp_cmd *c = xp_cmds(); c->name; c++) xp_near_offer(&near, c->name);
  const char *meant = xp_near_result(&near);
  if (!meant) return usage_value_error("'", word, "' is not an xp command (see `xp help`)");
  char *after = xp_asprintf("' is not an xp command: did you mean '%s'? (see `xp help`)", meant);
  usage_value_error("'", word, after);
  free(after);
  return XP_EXIT_USAGE;
}

/* xp --dbb x.db runs: the option meant, as a command's own options name it (xp_option_meant). */
static int unknown_global_option(const char *word) {
  const char *meant = xp_option_meant(word, (const char *const[]){"--db", "--help", "--version", NULL});
  if (!meant) return usage_value_error("unknown option ", word, " (see `xp help`)");
  char *after = xp_asprintf(": did you mean %s? (see `xp help`)", meant);
  usage_value_error("unknown option ", word, after);
  free(after);
  return XP_EXIT_USAGE;
}

/* rc, or 1 where stdout could not be written: ferror too, since a write past the buffer (xp show
** --format json's one printf of a trace's sections) fails at once, leaving nothing for fflush to
** fail on, and its errno long gone. A command that failed has said so (xp report --out - >
** /dev/full: why it could not write): its one line stands. Help and --version too: `xp runs
** --help > /dev/full` exited 0 with nothing written, where `xp help runs` exited 1. */
static int output_written(int rc) {
  const int flushed = fflush(stdout), why = errno;
  if (rc != 0) return rc;
  if (flushed != 0) return xp_error(XP_EXIT_FAILED, "cannot write output: %s", strerror(why));
  if (ferror(stdout)) return xp_error(XP_EXIT_FAILED, "cannot write output (a write to it failed)");
  return rc;
}

int main(int argc, char **argv) {
  xp_save_argv(argv);
  xp_db_watch_faults();
  const char *db_opt = NULL;
  int i = 1, bad = 0;
  for (; i < argc && argv[i][0] == '-'; i++) {
    const char *v;
    if ((v = xp_opt_value(argc, argv, &i, "--db", &bad))) {
      /* an empty path fell back to $XP_DB or ./xp.db: the run landed where it was not sent */
      if (!*v) return xp_error(XP_EXIT_USAGE, "--db: an empty path (see `xp help`)");
      if (db_opt) return usage_value_error("--db ", v, ": given twice (see `xp help`)");
      db_opt = v;
    }
    else if (bad) return XP_EXIT_USAGE;
    else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return output_written(cmd_help(0, NULL, NULL));
    else if (strcmp(argv[i], "--version") == 0) return output_written(cmd_version(0, NULL, NULL));
    else return unknown_global_option(argv[i]);
  }
  if (i >= argc) {
    /* The overview on stdout, and the one line that says what was wrong on stderr. */
    cmd_help(0, NULL, NULL);
    return xp_error(XP_EXIT_USAGE, "no command given (see `xp help`)");
  }
  const xp_cmd *c = xp_cmd_find(argv[i]);
  if (!c) return unknown_command(argv[i]);
  if (wants_help(argc - i, argv + i)) {
    if (c->usage) fputs(c->usage, stdout);
    else {
      char *help_argv[] = {(char *)c->name, "--help", NULL};
      return output_written(c->fn(2, help_argv, NULL));
    }
    return output_written(0);
  }
  if (db_after_command(argc - i, argv + i))
    return xp_error(XP_EXIT_USAGE, "--db goes before the command: xp --db PATH %s ...", c->name);
  xp_install_signal_handlers();
  int rc = c->fn(argc - i, argv + i, xp_db_path(db_opt));
  /* A command that failed once a signal came failed of it (a spec or query file read from a
  ** FIFO whose writer never came: "cannot read: Interrupted system call"): 130, not 2. */
  if (rc != 0 && xp_interrupted()) rc = XP_EXIT_ABORTED;
  /* A damaged page that a loop took for the end of its rows (xp compare's samples, xp
  ** export's): what was printed or written lacks them, so it did not end well. */
  if (rc == 0) rc = xp_db_faulted(xp_db_path(db_opt), "the output is incomplete");
  return output_written(rc);
}
