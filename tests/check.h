/* Minimal assertions for xp's C tests: a failed check prints where and why, and the test
** exits 1 at the end; ctest reports the executable's result. Exit 77 means skipped. */
#ifndef XP_CHECK_H
#define XP_CHECK_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
static int check_failures;
#define CHECK(cond) do { if (!(cond)) { check_failures++; \
  fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ_INT(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); if (a_ != b_) { \
  check_failures++; fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, \
  #a, #b, a_, b_); } } while (0)
#define CHECK_EQ_STR(a, b) do { const char *a_ = (a), *b_ = (b); \
  if (!a_ || !b_ || strcmp(a_, b_) != 0) { check_failures++; \
  fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, \
  a_ ? a_ : "(null)", b_ ? b_ : "(null)"); } } while (0)
#define CHECK_NEAR(a, b, rel) do { double a_ = (a), b_ = (b); \
  if (!(fabs(a_ - b_) <= (rel) * fmax(fabs(a_), fabs(b_)) || a_ == b_)) { check_failures++; \
  fprintf(stderr, "%s:%d: %s ~= %s failed: %.17g vs %.17g\n", __FILE__, __LINE__, #a, #b, a_, b_); } \
  } while (0)
/* main() of a test that cannot run in this build (a GPU test built without CUDA): skipped, said why. */
#define CHECK_SKIP_MAIN(why) \
  int main(void) { (void)check_failures; printf("skipped: %s\n", why); return 77; }
#define CHECK_DONE() do { if (check_failures) { fprintf(stderr, "%d check(s) failed\n", \
  check_failures); return 1; } return 0; } while (0)
#endif
