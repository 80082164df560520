/*
** Small containers, kept once for every reader that needs them: an interning string table, a
** map from 64-bit keys to slots, a paged array indexed by a dense id, and a growable array.
** All grow on demand. The trace importer interns kernel names and shapes, maps correlation ids
** and keeps eight bytes per CPU operator (by External id); the NCCL log reader interns its
** peer connections, of which a 512-rank all-to-all log sets up 260,000.
*/
#ifndef XP_TABLE_H
#define XP_TABLE_H
#include <stddef.h>
#include <stdint.h>

/* Strings, each stored once; ids are dense from 0 in order of first appearance. */
typedef struct xp_strtab {
  char **str;
  size_t *len;
  uint64_t *hash;
  uint32_t n, cap;
  uint32_t *slots; /* open addressing: id + 1, 0 = empty */
  uint32_t nslots;
} xp_strtab;

uint64_t xp_hash(const void *p, size_t n);
/* The id of s[0, n), adding it if new (*added set to 1 then). */
uint32_t xp_strtab_intern(xp_strtab *t, const char *s, size_t n, int *added);
void xp_strtab_free(xp_strtab *t);

/* 64-bit key -> uint32 value. */
typedef struct xp_map {
  uint64_t *keys;
  uint32_t *vals; /* value + 1, 0 = empty */
  size_t n, cap;
} xp_map;

/* The value of key; if absent, key is added with `value` (and *added set to 1). */
uint32_t xp_map_put(xp_map *m, uint64_t key, uint32_t value, int *added);
/* 1 with *value if key is present, else 0. */
int xp_map_get(const xp_map *m, uint64_t key, uint32_t *value);
void xp_map_free(xp_map *m);

/* Paged array of 8-byte entries indexed by a 64-bit id. External ids are dense counters from
** 1, so pages fill; an id past XP_IDMAP_MAX_ID (or negative: a counter that wrapped, or was
** seeded high) goes to a hash map beside the pages instead, so no id is ever refused. Entries
** never written read as zero. */
typedef struct xp_idmap {
  uint64_t **pages;
  size_t npages;
  xp_map far;         /* id -> index in far_vals, for ids the pages do not cover */
  uint64_t *far_vals;
  size_t nfar, far_cap;
} xp_idmap;
enum { XP_IDMAP_PAGE_BITS = 12, XP_IDMAP_MAX_ID = (1 << 30) };

void xp_idmap_set(xp_idmap *m, int64_t id, uint64_t v);
uint64_t xp_idmap_get(const xp_idmap *m, int64_t id);
void xp_idmap_free(xp_idmap *m);

/* A growable array of fixed-size records. */
typedef struct xp_vec {
  void *data;
  size_t n, cap, size;
} xp_vec;
void *xp_vec_push(xp_vec *v, size_t size); /* returns a zeroed new element */
void xp_vec_free(xp_vec *v);
#define XP_VEC_AT(v, T, i) (&((T *)(v)->data)[i])
#endif
