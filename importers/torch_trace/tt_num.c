/* Exact number reading for trace fields (see tt_num.h). */
#include "tt_num.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int64_t pow10_table[19] = {
    1LL, 10LL, 100LL, 1000LL, 10000LL, 100000LL, 1000000LL, 10000000LL, 100000000LL,
    1000000000LL, 10000000000LL, 100000000000LL, 1000000000000LL, 10000000000000LL,
    100000000000000LL, 1000000000000000LL, 10000000000000000LL, 100000000000000000LL,
    1000000000000000000LL};

int tt_us_to_ns(tt_slice s, int64_t *ns) {
  if (!s.p) return -1; /* an absent field */
  const char *p = s.p, *end = s.p + s.n;
  if (s.n >= 2 && *p == '"') p++, end--; /* a number written as a string */
  int neg = 0;
  if (p < end && *p == '-') neg = 1, p++;
  uint64_t mant = 0;
  int digits = 0, exp10 = 3; /* microseconds to nanoseconds */
  int round_digit = -1;      /* first digit dropped, for rounding */
  int seen = 0;
  for (; p < end && *p >= '0' && *p <= '9'; p++, seen++) {
    if (digits < 19) {
      if (mant || *p != '0') digits++;
      mant = mant * 10 + (uint64_t)(*p - '0');
    } else {
      exp10++; /* integer digits past 19: the value is too large anyway, caught below */
    }
  }
  if (!seen) return -1;
  if (p < end && *p == '.') {
    p++;
    int fd = 0;
    for (; p < end && *p >= '0' && *p <= '9'; p++, fd++) {
      if (digits < 19) { /* 19 significant digits: an epoch in us with ns (1693958165862817.259) */
        if (mant || *p != '0') digits++;
        mant = mant * 10 + (uint64_t)(*p - '0');
        exp10--;
      } else if (round_digit < 0) {
        round_digit = *p - '0';
      }
    }
    if (!fd) return -1;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    p++;
    int eneg = 0, e = 0, ed = 0;
    if (p < end && (*p == '+' || *p == '-')) eneg = *p++ == '-';
    for (; p < end && *p >= '0' && *p <= '9'; p++, ed++)
      if (e < 1000) e = e * 10 + (*p - '0');
    if (!ed) return -1;
    exp10 += eneg ? -e : e;
  }
  if (p != end) return -1;
  /* Value = mant * 10^exp10 (plus dropped digits); round to an integer. */
  uint64_t v;
  if (exp10 >= 0) {
    if (mant && exp10 > 18) return -1;
    v = mant;
    if (mant && (uint64_t)pow10_table[exp10] > UINT64_MAX / mant) return -1;
    if (mant) v = mant * (uint64_t)pow10_table[exp10];
    if (round_digit >= 5 && exp10 == 0) v++;
  } else if (exp10 < -18) {
    v = 0;
  } else {
    uint64_t d = (uint64_t)pow10_table[-exp10];
    v = mant / d;
    uint64_t r = mant % d;
    if (r * 2 >= d) v++;
  }
  if (v > (uint64_t)TT_NS_LIMIT) return -1;
  *ns = neg ? -(int64_t)v : (int64_t)v;
  return 0;
}

/* A JSON integer's sign and digits (quoted or not), the digits' value in *x: 0, or -1 where s
** holds anything else or more than 64 bits of value. */
static int read_integer(tt_slice s, int *neg, uint64_t *x) {
  if (!s.p) return -1; /* an absent field */
  const char *p = s.p, *end = s.p + s.n;
  if (s.n >= 2 && *p == '"') p++, end--;
  *neg = 0;
  if (p < end && *p == '-') *neg = 1, p++;
  if (p >= end) return -1;
  *x = 0;
  for (; p < end; p++) {
    if (*p < '0' || *p > '9') return -1;
    const unsigned d = (unsigned)(*p - '0');
    if (*x > (UINT64_MAX - d) / 10) return -1;
    *x = *x * 10 + d;
  }
  return 0;
}

int tt_int(tt_slice s, int64_t *v) {
  int neg;
  uint64_t x;
  if (read_integer(s, &neg, &x) != 0 || x > (uint64_t)INT64_MAX) return -1;
  *v = neg ? -(int64_t)x : (int64_t)x;
  return 0;
}

int tt_uint64(tt_slice s, uint64_t *v) {
  int neg;
  uint64_t x;
  if (read_integer(s, &neg, &x) != 0 || neg) return -1;
  *v = x;
  return 0;
}

tt_slice tt_id_key(tt_slice s, char buf[TT_ID_KEY]) {
  int64_t v;
  if (tt_int(s, &v) != 0) return s;
  return (tt_slice){buf, (size_t)snprintf(buf, TT_ID_KEY, "%lld", (long long)v)};
}

int tt_double(tt_slice s, double *v) {
  char buf[64];
  if (s.n == 0 || s.n >= sizeof buf) return -1;
  memcpy(buf, s.p, s.n);
  buf[s.n] = 0;
  char *e;
  *v = strtod(buf, &e);
  return *e == 0 ? 0 : -1;
}
