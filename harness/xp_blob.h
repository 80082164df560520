/* Files embedded into the binary at build time (cmake/embed.cmake). */
#ifndef XP_BLOB_H
#define XP_BLOB_H
#include <stddef.h>
struct xp_blob {
  const char *name;
  const char *data; /* NUL-terminated as well as length-counted */
  size_t len;
};
extern const struct xp_blob xp_migrations[];   /* schema/NNN_*.sql, sorted by name */
extern const int xp_migrations_count;
extern const struct xp_blob xp_datafiles[];    /* data files of importers (NAME.tsv) */
extern const int xp_datafiles_count;
const struct xp_blob *xp_datafile(const char *name);
extern const struct xp_blob xp_queries[];      /* queries/NAME.sql, as shipped with this xp */
extern const int xp_queries_count;
const struct xp_blob *xp_query_file(const char *name);
#endif
