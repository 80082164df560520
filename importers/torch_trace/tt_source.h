/*
** A trace file as a stream of decompressed chunks. A reader thread reads the file and
** inflates it (ISA-L's isal_inflate where the build has it, zlib otherwise; plain JSON is
** passed through) into a small ring of buffers while the caller's thread parses the previous
** chunk, so the two cores of a small machine both work. Memory is the ring (a few MiB),
** whatever the size of the trace. A plain file smaller than one chunk (1 MiB) is read whole
** when opened, with no thread.
*/
#ifndef XP_TT_SOURCE_H
#define XP_TT_SOURCE_H
#include <stddef.h>
#include <stdint.h>

typedef struct tt_source tt_source;

/* Open and start reading. On failure returns NULL and writes one line into err. */
/* Why a trace that is no regular file is refused: it may be read more than once. */
#define TT_NOT_REGULAR "not a regular file (a trace may be read more than once, which a pipe cannot be: save it to a file)"
tt_source *tt_source_open(const char *path, char *err, size_t errlen);
/* Writable bytes in front of every chunk: the caller may put the unfinished end of the
** previous chunk there and parse both as one window, without copying the chunk. */
enum { TT_SOURCE_HEADROOM = 256 << 10 };
/* The next chunk: *data is valid (and the TT_SOURCE_HEADROOM bytes before it writable) until
** the next call. Returns 1 with a chunk, 0 at the end of the stream, -1 on error (message in
** err: truncated or corrupt gzip, read error). */
int tt_source_next(tt_source *s, const char **data, size_t *len, char *err, size_t errlen);
/* Progress: bytes of the file read so far, and the file's size. */
uint64_t tt_source_file_pos(tt_source *s);
uint64_t tt_source_file_size(const tt_source *s);
int tt_source_compressed(const tt_source *s);
/* After tt_source_next failed: 1 where the gzip data do not inflate (corrupt, not cut short). */
int tt_source_corrupt(const tt_source *s);
/* Bytes after the end of the gzip stream that start no further member (zero padding, junk),
** left unread as gzip -d leaves them; 0 when none. Known once the stream has ended. */
uint64_t tt_source_trailing(const tt_source *s);
/* Whether a reader thread was started (not for a plain file read whole when opened). */
int tt_source_threaded(const tt_source *s);
/* Stop the reader thread (if still running) and free everything. */
void tt_source_close(tt_source *s);
/* Where *text (len bytes, path's, read whole) is gzip'd: the text it inflates to in its place
** (tt_inflate.c), *len set; 0 where it is no gzip. XP_EXIT_USAGE after one line for a stream cut
** short or damaged, or a pipe (the reader opens the path again); `what` names what the text is in
** that line ("text", "JSON"). */
int tt_inflate_text(const char *path, char **text, size_t *len, const char *what);
/* Whether text (len bytes) opens with gzip's magic bytes, as tt_inflate_text tells one. */
int tt_gzipped(const char *text, size_t len);
#endif
