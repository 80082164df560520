/* Naming runs on the command line: full UUIDs or unique prefixes, as git names commits. */
#ifndef XP_RUNREF_H
#define XP_RUNREF_H
#include <sqlite3.h>
#include <stdint.h>
/* Resolve a UUID or unique prefix (at least 4 characters). Errors: unknown (XP_EXIT_USAGE),
** ambiguous (XP_EXIT_USAGE, with the number of matches). uuid_out may be NULL. */
int xp_resolve_run(sqlite3 *db, const char *ref, int64_t *id, char uuid_out[37]);
/* 1, with its UUID in uuid, where digits (all decimal digits) are the local id of a run here
** (runs.id: each database's own number, which xp merge renumbers); else 0. */
int xp_local_run_uuid(sqlite3 *db, const char *digits, char uuid[37]);
/* The status to show: a 'running' run whose recording process is gone (same host and boot,
** pid not alive, or an earlier boot) is 'incomplete'. */
const char *xp_effective_status(const char *status, const char *host, const char *boot_id,
                                int64_t pid);
/* For a "database is locked" message: "; recording now: run 3f2a9c1e (KIND, xp pid P on HOST,
** since T)", with how many more, of the runs whose recorder is alive; "" where none. Malloc'd. */
char *xp_recording_runs_hint(sqlite3 *db);
/* Register on db xp_status(status, host, boot_id, pid): the same rule, usable in SQL; and
** xp_run_gpus(kind, gpu_count): the GPUs a run used, as xp runs, xp show and xp export give
** them and --where gpus=N selects them: its gpu_count, else 1 for a kind that drives one
** `device` (gemm, ceilings, kernel_variant: they record no count), else NULL. */
int xp_register_run_fns(sqlite3 *db);
/* The statuses xp_status() gives: running, ok, failed, aborted, incomplete (NULL-terminated). */
extern const char *const xp_run_statuses[];
/* Whether status is one of them. */
int xp_status_known(const char *status);
/* `--where KEY=VALUE` on a metadata key: a KEY no run has matches nothing without a word, so a
** misspelt one (interconect) is warned of. key_len: KEY's length in `key` (KEY=VALUE). */
void xp_warn_unknown_where_key(sqlite3 *db, const char *cmd, const char *key, size_t key_len);
/* The runs column a `--where`/`--a` KEY names: a flattened column (model, tp, gpu_name, ...) or
** the heading xp runs prints for it (gpu, gpus); NULL for a metadata key. */
const char *xp_run_column(const char *key);
/* The same, and status (xp runs and export: --where status=ok, as --status ok). */
const char *xp_where_column(const char *key);
/* cmd's --where kv as *normal, "KEY=VALUE" (malloc'd): spaces around KEY and VALUE set aside
** (--where "tp = 2"), a status in xp's spelling (status=OK). 0, or XP_EXIT_USAGE said: not
** KEY=VALUE (another comparison, tp>=2, tp==2, tp!=2), or a status xp never gives. */
int xp_where_check(const char *cmd, const char *kv, char **normal);
/* The condition `--where COLUMN=VALUE` (COLUMN from xp_run_column) puts on run r, with VALUE
** bound as param ("?3", ":w0"): the column's text equal to it, and for the GPU every name that
** is one GPU with it (view gpu_fold): gpu=h200 selects the "NVIDIA H200" runs, as a
** configuration counts them, and not "H200 NVL"; for uuid, the runs whose UUID it begins, in
** any case, as a run is named everywhere (a prefix xp runs prints). Malloc'd. */
char *xp_where_column_sql(const char *column, const char *param);
#endif
