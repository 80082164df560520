/* Small shared containers (see table.h). */
#include "table.h"
#include <stdlib.h>
#include <string.h>
#include "xp.h"

/* 64-bit FNV-1a over 8-byte words, then a final mix: names are hundreds of bytes and hashed
** once per kernel event, so word-at-a-time matters; quality only needs to spread the keys. */
uint64_t xp_hash(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 0xcbf29ce484222325ULL ^ n;
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, s, 8);
    h = (h ^ w) * 0x100000001b3ULL;
    h ^= h >> 29;
    s += 8;
    n -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, s, n);
  h = (h ^ w) * 0x100000001b3ULL;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ULL;
  h ^= h >> 32;
  return h;
}

static void strtab_rehash(xp_strtab *t, uint32_t nslots) {
  free(t->slots);
  t->slots = xp_xcalloc(nslots, sizeof *t->slots);
  t->nslots = nslots;
  for (uint32_t i = 0; i < t->n; i++) {
    uint32_t j = (uint32_t)t->hash[i] & (nslots - 1);
    while (t->slots[j]) j = (j + 1) & (nslots - 1);
    t->slots[j] = i + 1;
  }
}

uint32_t xp_strtab_intern(xp_strtab *t, const char *s, size_t n, int *added) {
  uint64_t h = xp_hash(s, n);
  if (added) *added = 0;
  if (t->nslots) {
    uint32_t j = (uint32_t)h & (t->nslots - 1);
    while (t->slots[j]) {
      uint32_t id = t->slots[j] - 1;
      if (t->hash[id] == h && t->len[id] == n && memcmp(t->str[id], s, n) == 0) return id;
      j = (j + 1) & (t->nslots - 1);
    }
  }
  if (t->n == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 64;
    t->str = xp_xrealloc(t->str, t->cap * sizeof *t->str);
    t->len = xp_xrealloc(t->len, t->cap * sizeof *t->len);
    t->hash = xp_xrealloc(t->hash, t->cap * sizeof *t->hash);
  }
  uint32_t id = t->n++;
  t->str[id] = xp_xmalloc(n + 1);
  memcpy(t->str[id], s, n);
  t->str[id][n] = 0;
  t->len[id] = n;
  t->hash[id] = h;
  if (added) *added = 1;
  if ((uint64_t)t->n * 2 > t->nslots) strtab_rehash(t, t->nslots ? t->nslots * 2 : 128);
  else {
    uint32_t j = (uint32_t)h & (t->nslots - 1);
    while (t->slots[j]) j = (j + 1) & (t->nslots - 1);
    t->slots[j] = id + 1;
  }
  return id;
}

void xp_strtab_free(xp_strtab *t) {
  for (uint32_t i = 0; i < t->n; i++) free(t->str[i]);
  free(t->str);
  free(t->len);
  free(t->hash);
  free(t->slots);
  memset(t, 0, sizeof *t);
}

static size_t mix(uint64_t k) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdULL;
  k ^= k >> 33;
  return (size_t)k;
}

static void map_grow(xp_map *m) {
  size_t cap = m->cap ? m->cap * 2 : 256;
  uint64_t *keys = xp_xcalloc(cap, sizeof *keys);
  uint32_t *vals = xp_xcalloc(cap, sizeof *vals);
  for (size_t i = 0; i < m->cap; i++) {
    if (!m->vals[i]) continue;
    size_t j = mix(m->keys[i]) & (cap - 1);
    while (vals[j]) j = (j + 1) & (cap - 1);
    keys[j] = m->keys[i];
    vals[j] = m->vals[i];
  }
  free(m->keys);
  free(m->vals);
  m->keys = keys;
  m->vals = vals;
  m->cap = cap;
}

static size_t map_find(const xp_map *m, uint64_t key) {
  size_t j = mix(key) & (m->cap - 1);
  while (m->vals[j] && m->keys[j] != key) j = (j + 1) & (m->cap - 1);
  return j;
}

/* Values are stored plus one so that zero marks an empty slot. */
int xp_map_get(const xp_map *m, uint64_t key, uint32_t *value) {
  if (!m->cap) return 0;
  size_t j = map_find(m, key);
  if (!m->vals[j]) return 0;
  *value = m->vals[j] - 1;
  return 1;
}

uint32_t xp_map_put(xp_map *m, uint64_t key, uint32_t value, int *added) {
  if (added) *added = 0;
  if ((m->n + 1) * 2 > m->cap) map_grow(m);
  size_t j = map_find(m, key);
  if (m->vals[j]) return m->vals[j] - 1;
  m->keys[j] = key;
  m->vals[j] = value + 1;
  m->n++;
  if (added) *added = 1;
  return value;
}

void xp_map_free(xp_map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

static void idmap_set_far(xp_idmap *m, int64_t id, uint64_t v) {
  if (m->nfar == m->far_cap) {
    m->far_cap = m->far_cap ? 2 * m->far_cap : 64;
    m->far_vals = xp_xrealloc(m->far_vals, m->far_cap * sizeof *m->far_vals);
  }
  int added = 0;
  uint32_t at = xp_map_put(&m->far, (uint64_t)id, (uint32_t)m->nfar, &added);
  if (added) m->nfar++;
  m->far_vals[at] = v;
}

void xp_idmap_set(xp_idmap *m, int64_t id, uint64_t v) {
  if (id < 0 || id >= XP_IDMAP_MAX_ID) {
    idmap_set_far(m, id, v);
    return;
  }
  size_t pg = (size_t)id >> XP_IDMAP_PAGE_BITS;
  if (pg >= m->npages) {
    size_t n = m->npages ? m->npages : 16;
    while (n <= pg) n *= 2;
    m->pages = xp_xrealloc(m->pages, n * sizeof *m->pages);
    memset(m->pages + m->npages, 0, (n - m->npages) * sizeof *m->pages);
    m->npages = n;
  }
  if (!m->pages[pg]) m->pages[pg] = xp_xcalloc((size_t)1 << XP_IDMAP_PAGE_BITS, sizeof(uint64_t));
  m->pages[pg][id & ((1 << XP_IDMAP_PAGE_BITS) - 1)] = v;
}

uint64_t xp_idmap_get(const xp_idmap *m, int64_t id) {
  if (id < 0 || id >= XP_IDMAP_MAX_ID) {
    uint32_t at;
    return xp_map_get(&m->far, (uint64_t)id, &at) ? m->far_vals[at] : 0;
  }
  size_t pg = (size_t)id >> XP_IDMAP_PAGE_BITS;
  if (pg >= m->npages || !m->pages[pg]) return 0;
  return m->pages[pg][id & ((1 << XP_IDMAP_PAGE_BITS) - 1)];
}

void xp_idmap_free(xp_idmap *m) {
  for (size_t i = 0; i < m->npages; i++) free(m->pages[i]);
  free(m->pages);
  xp_map_free(&m->far);
  free(m->far_vals);
  memset(m, 0, sizeof *m);
}

void *xp_vec_push(xp_vec *v, size_t size) {
  if (v->n == v->cap) {
    v->cap = v->cap ? v->cap * 2 : 256;
    v->data = xp_xrealloc(v->data, v->cap * size);
  }
  v->size = size;
  void *e = (char *)v->data + v->n++ * size;
  memset(e, 0, size);
  return e;
}

void xp_vec_free(xp_vec *v) {
  free(v->data);
  memset(v, 0, sizeof *v);
}
