/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* harness.h - a tiny minunit-style harness for the C unit tests (one test binary per core
 * module, built with -fsanitize=address,undefined).
 *
 *   static void test_thing (void) { T_ASSERT (x > 0); T_EQ_INT (f (), MUON_OK); }
 *   int main (int argc, char **argv) { T_RUN (test_thing); return T_DONE (argv[0]); }
 *
 * Each T_* macro counts one passed or failed assertion and prints file:line and the values on
 * failure (the first T_MAX_SHOWN failures; the rest are only counted).  T_RUN counts per test
 * and prints a per-test line when that test failed (or always with MUON_TEST_VERBOSE set).
 * T_DONE prints "<binary>: N passed, N failed" counting tests (a test passes when every one
 * of its assertions holds), then the assertion count, and returns non-zero on any failure.
 * The names avoid core/base/muon_internal.h's CHECK / CHECKSTATUS / CHECKMEM.
 */
#ifndef MUON_TEST_HARNESS_H
#define MUON_TEST_HARNESS_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_MAX_SHOWN 40

static long t_passed, t_failed, t_shown;   // assertions
static long t_tests_passed, t_tests_failed; // tests: a test passes when all its assertions do

#if defined(__GNUC__)
__attribute__ ((format (printf, 4, 5)))
#endif
static inline int t_check (int ok, const char *file, int line, const char *fmt, ...)
{
  if (ok) { t_passed++; return 1; }
  t_failed++;
  if (t_shown++ < T_MAX_SHOWN)
  {
    va_list ap;
    va_start (ap, fmt);
    printf ("  FAIL %s:%d: ", file, line);
    vprintf (fmt, ap);
    printf ("\n");
    va_end (ap);
    if (t_shown == T_MAX_SHOWN) printf ("  (further failures are counted, not shown)\n");
  }
  return 0;
}

#define T_ASSERT(cond) t_check ((cond) != 0, __FILE__, __LINE__, "%s", #cond)
#define T_ASSERT_MSG(cond, ...) t_check ((cond) != 0, __FILE__, __LINE__, __VA_ARGS__)
#define T_EQ_INT(a, b)                                                                    \
  do { long long a_ = (long long) (a), b_ = (long long) (b);                              \
       t_check (a_ == b_, __FILE__, __LINE__, "%s == %s (%lld vs %lld)", #a, #b, a_, b_);  \
  } while (0)
#define T_EQ_STR(a, b)                                                                    \
  do { const char *a_ = (a), *b_ = (b);                                                   \
       t_check (a_ && b_ && strcmp (a_, b_) == 0, __FILE__, __LINE__,                     \
                "%s == %s (\"%s\" vs \"%s\")", #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
  } while (0)
// exact equality of two doubles (or floats), printing both in full
#define T_EQ_DBL(a, b)                                                                    \
  do { double a_ = (double) (a), b_ = (double) (b);                                       \
       t_check (a_ == b_, __FILE__, __LINE__, "%s == %s (%.17g vs %.17g)", #a, #b, a_, b_); \
  } while (0)
// |a - b| <= tol (absolute); NaN never passes.
#define T_NEAR(a, b, tol)                                                                 \
  do { double a_ = (double) (a), b_ = (double) (b), t_ = (double) (tol);                  \
       t_check (fabs (a_ - b_) <= t_, __FILE__, __LINE__, "%s ~ %s (%.17g vs %.17g, tol %g)", \
                #a, #b, a_, b_, t_);                                                      \
  } while (0)
// value <= bound, printing both (for error figures).
#define T_LE(a, b)                                                                        \
  do { double a_ = (double) (a), b_ = (double) (b);                                       \
       t_check (a_ <= b_, __FILE__, __LINE__, "%s <= %s (%.6g vs %.6g)", #a, #b, a_, b_);  \
  } while (0)

#define T_RUN(fn)                                                                         \
  do { long p0_ = t_passed, f0_ = t_failed;                                               \
       fn ();                                                                             \
       if (t_failed > f0_) t_tests_failed++; else t_tests_passed++;                       \
       if (t_failed > f0_ || getenv ("MUON_TEST_VERBOSE"))                                \
         printf ("  %s: %ld passed, %ld failed\n", #fn, t_passed - p0_, t_failed - f0_);  \
  } while (0)

// A test counted case by case (a sweep of many cases in one function): t_case_begin (), the
// case's assertions, then t_case_end (what), which counts one test, passed when they all held.
static long t_case_f0;
static inline void t_case_begin (void) { t_case_f0 = t_failed; }
static inline void t_case_end (const char *what)
{
  if (t_failed > t_case_f0)
  {
    t_tests_failed++;
    printf ("  FAILED: %s\n", what);
  }
  else
  {
    t_tests_passed++;
    if (getenv ("MUON_TEST_VERBOSE"))
      printf ("  ok: %s\n", what);
  }
}

static inline int t_done (const char *argv0)
{
  const char *name = strrchr (argv0, '/');
  printf ("%s: %ld passed, %ld failed (tests; %ld of %ld assertions held)\n",
          name ? name + 1 : argv0, t_tests_passed, t_tests_failed, t_passed,
          t_passed + t_failed);
  fflush (stdout);
  return t_failed ? 1 : 0;
}
#define T_DONE(argv0) t_done (argv0)

// t_done, and the layer's "<layer> <passed> <failed>" line written to $MUON_RESULTS when set
// (the gpu-mock binaries: make check-gpu-mock sums those files)
static inline int t_done_results (const char *argv0, const char *layer)
{
  int rc = t_done (argv0);
  const char *res = getenv ("MUON_RESULTS");
  FILE *f = res ? fopen (res, "w") : NULL;
  if (f)
  {
    fprintf (f, "%s %ld %ld\n", layer, t_tests_passed, t_tests_failed);
    fclose (f);
  }
  return rc;
}

// A reproducible uniform stream in [-1, 1) (a 64-bit LCG, its top 53 bits): the same numbers
// on every machine, unlike rand ().  Seed it by setting t_rng.
static uint64_t t_rng = 12345;
static inline double t_urand (void)
{
  t_rng = t_rng * 6364136223846793005ull + 1442695040888963407ull;
  return (double) (t_rng >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

#endif
