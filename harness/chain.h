/* The integrity chain over finished runs (xp verify). */
#ifndef XP_CHAIN_H
#define XP_CHAIN_H
#include <sqlite3.h>
#include <stdint.h>
/* Compute the run's content hash and link it to the chain; called by the recorder inside the
** transaction that finishes the run. Returns 0 or an exit code. */
int xp_chain_seal(sqlite3 *db, int64_t run_id);
/* For tests/fuzz, which seal thousands of runs in one connection whose schema stays the same:
** there, reading the run tables' tree from the schema and checking their guards is most of a
** seal. After this, seals in db reuse the tree of an earlier seal while PRAGMA schema_version
** is the one it was read at (any table, index or trigger created or dropped reads it again).
** One connection at a time; NULL (or another connection) forgets it: call it before closing
** db. xp itself never calls it: a command seals few runs. */
void xp_chain_keep_tree(sqlite3 *db);
/* Record the chain's head (newest link, decisions held) in chain_head, in the caller's
** transaction: after a seal, a decision, a merge. Returns 0 or an exit code. */
int xp_chain_head_update(sqlite3 *db);
#endif
