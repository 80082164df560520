/*
** Small containers for the trace importer: an interning string table, a map from 64-bit keys
** to slots, and a paged array indexed by the profiler's External id. All grow on demand; the
** importer keeps one entry per distinct name or shape, and eight bytes per CPU operator.
*/
#ifndef XP_TT_TABLE_H
#define XP_TT_TABLE_H
#include <stddef.h>
#include <stdint.h>

/* Strings, each stored once; ids are dense from 0 in order of first appearance. */
typedef struct tt_strtab {
  char **str;
  size_t *len;
  uint64_t *hash;
  uint32_t n, cap;
  uint32_t *slots; /* open addressing: id + 1, 0 = empty */
  uint32_t nslots;
} tt_strtab;

uint64_t tt_hash(const void *p, size_t n);
/* The id of s[0, n), adding it if new (*added set to 1 then). */
uint32_t tt_strtab_intern(tt_strtab *t, const char *s, size_t n, int *added);
void tt_strtab_free(tt_strtab *t);

/* 64-bit key -> uint32 value. */
typedef struct tt_map {
  uint64_t *keys;
  uint32_t *vals; /* value + 1, 0 = empty */
  size_t n, cap;
} tt_map;

/* The value of key; if absent, key is added with `value` (and *added set to 1). */
uint32_t tt_map_put(tt_map *m, uint64_t key, uint32_t value, int *added);
/* 1 with *value if key is present, else 0. */
int tt_map_get(const tt_map *m, uint64_t key, uint32_t *value);
void tt_map_free(tt_map *m);

/* Paged array of 8-byte entries indexed by a non-negative id (External ids are dense counters
** from 1, so pages fill). Entries never written read as zero. */
typedef struct tt_idmap {
  uint64_t **pages;
  size_t npages;
} tt_idmap;
enum { TT_IDMAP_PAGE_BITS = 12, TT_IDMAP_MAX_ID = (1 << 30) };

/* Set entry id; ids past TT_IDMAP_MAX_ID are not kept (returns -1). */
int tt_idmap_set(tt_idmap *m, int64_t id, uint64_t v);
uint64_t tt_idmap_get(const tt_idmap *m, int64_t id);
void tt_idmap_free(tt_idmap *m);

/* A growable array of fixed-size records. */
typedef struct tt_vec {
  void *data;
  size_t n, cap, size;
} tt_vec;
void *tt_vec_push(tt_vec *v, size_t size); /* returns a zeroed new element */
void tt_vec_free(tt_vec *v);
#define TT_VEC_AT(v, T, i) (&((T *)(v)->data)[i])
#endif
