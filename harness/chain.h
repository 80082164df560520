/* The integrity chain over finished runs (xp verify). */
#ifndef XP_CHAIN_H
#define XP_CHAIN_H
#include <sqlite3.h>
#include <stdint.h>
/* Compute the run's content hash and link it to the chain; called by the recorder inside the
** transaction that finishes the run. The run tables' tree is read from the schema (and their
** guards made) only where the schema differs from the last seal's. Returns 0 or an exit code. */
int xp_chain_seal(sqlite3 *db, int64_t run_id);
/* Record the chain's head (newest link, decisions held) in chain_head, in the caller's
** transaction: after a seal, a decision, a merge. Returns 0 or an exit code. */
int xp_chain_head_update(sqlite3 *db);
#endif
