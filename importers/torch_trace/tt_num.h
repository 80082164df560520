/*
** Numbers read straight from a trace's text. Timestamps are kept as integer nanoseconds:
** Kineto writes "ts": 5131127428461.376 (microseconds with three decimals, 16 significant
** digits), one more digit than a double holds exactly, so converting through a double could
** move an event by a nanosecond and sums would drift from the profiler's own. The digits are
** read as an integer and the decimal point moved instead.
*/
#ifndef XP_TT_NUM_H
#define XP_TT_NUM_H
#include <stdint.h>
#include "tt_json.h"

/* The largest magnitude of a time in ns: 4e18 is the year 2096 as an epoch time, and the sum
** or difference of any two such times (a start plus a duration, a trace's base plus its ts, a
** window's end minus its start) still fits in int64, so no later arithmetic can overflow. */
#define TT_NS_LIMIT 4000000000000000000LL

/* A JSON number in microseconds to nanoseconds, rounded half away from zero past the third
** decimal. A quoted number ("ts": "5131127428461.376", as some exporters write times) is read as
** the number. 0 on success, -1 if s is not a number or its magnitude is past TT_NS_LIMIT. */
int tt_us_to_ns(tt_slice s, int64_t *ns);
/* A JSON integer (no fraction, no exponent). A quoted integer ("7") is accepted too: some
** producers write ids as strings. 0 on success, -1 otherwise. */
int tt_int(tt_slice s, int64_t *v);
/* As tt_int, a non-negative integer up to 2^64 - 1 (CUPTI's 64-bit ids, a graph node's). */
int tt_uint64(tt_slice s, uint64_t *v);
/* An id (a pid, a tid) as a key to compare: an integer, whether written as a number or a string
** ("pid": 7 and "pid": "7" name one process, as Perfetto and Chrome's viewer read them, and as a
** GPU activity's device and stream are read), in decimal into buf; any other text as written. A
** string keeps its quotes, so no integer's decimal is another text's key. */
#define TT_ID_KEY 24
tt_slice tt_id_key(tt_slice s, char buf[TT_ID_KEY]);
/* Any JSON number as a double (for figures that are not summed exactly). */
int tt_double(tt_slice s, double *v);
#endif
