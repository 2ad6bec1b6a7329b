/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_precision.c - bf16 / fp16 round-to-nearest-even emulation (core/math/muon_precision.h,
 * core/math/precision.c), exhaustively over all 65,536 bit patterns of each format.
 *
 * The references here are independent of the code under test: fp16 values are decoded with
 * ldexp from the bit fields, bf16 values are the top half of an fp32, and every midpoint is
 * computed in fp64 from the two neighbours (it is exact in fp32 for both formats: at most 12
 * significant bits for fp16, 9 for bf16, exponents well inside fp32's range, bf16 subnormal
 * midpoints are fp32 subnormals with bit 15 set).
 */
#include <float.h>
#include <stdint.h>

#include "harness.h"
#include "muon.h"
#include "muon_precision.h"

static float bits_f (uint32_t u) { float f; memcpy (&f, &u, sizeof f); return f; }
static uint32_t f_bits (float f) { uint32_t u; memcpy (&u, &f, sizeof u); return u; }

// Independent decoders.
static double ref_fp16 (uint16_t h)
{
  int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
  double v;
  if (e == 31) v = m ? NAN : INFINITY;
  else if (e == 0) v = ldexp ((double) m, -24);
  else v = ldexp (1024.0 + m, e - 25);
  return s ? -v : v;
}
static double ref_bf16 (uint16_t h) { return (double) bits_f ((uint32_t) h << 16); }
static int is_nan16 (int fp16, uint16_t h)
{
  return fp16 ? (h & 0x7c00) == 0x7c00 && (h & 0x3ff) : (h & 0x7f80) == 0x7f80 && (h & 0x7f);
}

static muon_ctx *ctx;
static uint16_t all_bits[65536];
static float decoded[65536];
static uint16_t encoded[65536];

// Every bit pattern: decode matches the reference, and encode (decode (h)) == h (NaN as NaN).
static void roundtrip (int fp16)
{
  muon_precision p = fp16 ? MUON_PREC_FP16 : MUON_PREC_BF16;
  for (int i = 0; i < 65536; i++) all_bits[i] = (uint16_t) i;
  T_EQ_INT (muon_half_bits_to_float (ctx, p, all_bits, decoded, 65536), MUON_OK);
  T_EQ_INT (muon_float_to_half_bits (ctx, p, decoded, encoded, 65536), MUON_OK);
  long bad_decode = 0, bad_round = 0, bad_scalar = 0, nans = 0;
  for (int i = 0; i < 65536; i++)
  {
    uint16_t h = (uint16_t) i;
    double ref = fp16 ? ref_fp16 (h) : ref_bf16 (h);
    float f = decoded[i];
    if (isnan (ref))
    {
      nans++;
      bad_decode += !isnan (f);
      bad_round += !is_nan16 (fp16, encoded[i]);
      bad_scalar += !isnan (fp16 ? muon_round_fp16 (f) : muon_round_bf16 (f));
      // the sign survives
      bad_round += (encoded[i] >> 15) != (h >> 15);
      continue;
    }
    bad_decode += (double) f != ref || !signbit (f) != !signbit (ref);
    bad_round += encoded[i] != h;
    float scal = fp16 ? muon_round_fp16 (f) : muon_round_bf16 (f);
    bad_scalar += f_bits (scal) != f_bits (f);
    bad_scalar += (fp16 ? muon_fp16_bits_to_f32 (h) : muon_bf16_bits_to_f32 (h)) != f
                  || (fp16 ? muon_f32_to_fp16_bits (f) : muon_f32_to_bf16_bits (f)) != h;
  }
  T_EQ_INT (nans, fp16 ? 2 * 1023 : 2 * 127);
  T_ASSERT_MSG (bad_decode == 0, "%s: %ld patterns decode wrongly", fp16 ? "fp16" : "bf16",
                bad_decode);
  T_ASSERT_MSG (bad_round == 0, "%s: %ld patterns do not round-trip", fp16 ? "fp16" : "bf16",
                bad_round);
  T_ASSERT_MSG (bad_scalar == 0, "%s: %ld scalar mismatches", fp16 ? "fp16" : "bf16",
                bad_scalar);
}
static void test_roundtrip_bf16 (void) { roundtrip (0); }
static void test_roundtrip_fp16 (void) { roundtrip (1); }

static uint16_t enc (int fp16, float f)
{
  return fp16 ? muon_f32_to_fp16_bits (f) : muon_f32_to_bf16_bits (f);
}

// Every pair of adjacent finite values (both signs): the midpoint goes to the neighbour with
// the even last mantissa bit, one fp32 ulp above / below it to the nearer neighbour.
static void midpoints (int fp16)
{
  const uint16_t maxfin = fp16 ? 0x7bff : 0x7f7f;
  long bad_exact = 0, bad_tie = 0, bad_above = 0, bad_below = 0, pairs = 0;
  long bad_array = 0;
  static float mids[4 * 0x8000];
  static uint16_t want[4 * 0x8000], got[4 * 0x8000];
  size_t nm = 0;
  for (uint32_t h = 0; h < maxfin; h++)
  {
    double lo = fp16 ? ref_fp16 ((uint16_t) h) : ref_bf16 ((uint16_t) h);
    double hi = fp16 ? ref_fp16 ((uint16_t) (h + 1)) : ref_bf16 ((uint16_t) (h + 1));
    double mid = 0.5 * (lo + hi);
    float fm = (float) mid;
    pairs++;
    if ((double) fm != mid) { bad_exact++; continue; }
    uint16_t even = (h & 1) ? (uint16_t) (h + 1) : (uint16_t) h;
    for (int sg = 0; sg < 2; sg++)
    {
      float m = sg ? -fm : fm;
      uint16_t s = sg ? 0x8000 : 0;
      bad_tie += enc (fp16, m) != (uint16_t) (even | s);
      bad_above += enc (fp16, nextafterf (m, sg ? -INFINITY : INFINITY)) != (uint16_t) ((h + 1) | s);
      bad_below += enc (fp16, nextafterf (m, 0.0f)) != (uint16_t) (h | s);
      if (nm < sizeof mids / sizeof mids[0])
      { mids[nm] = m; want[nm] = (uint16_t) (even | s); nm++; }
    }
  }
  T_EQ_INT (pairs, maxfin);
  T_ASSERT_MSG (bad_exact == 0, "%ld midpoints not exact in fp32", bad_exact);
  T_ASSERT_MSG (bad_tie == 0, "%s: %ld midpoints not rounded to even", fp16 ? "fp16" : "bf16",
                bad_tie);
  T_ASSERT_MSG (bad_above == 0, "%s: %ld values above a midpoint not rounded up",
                fp16 ? "fp16" : "bf16", bad_above);
  T_ASSERT_MSG (bad_below == 0, "%s: %ld values below a midpoint not rounded down",
                fp16 ? "fp16" : "bf16", bad_below);
  // the array entry point agrees with the scalar one on all midpoints
  T_EQ_INT (muon_float_to_half_bits (ctx, fp16 ? MUON_PREC_FP16 : MUON_PREC_BF16, mids, got,
                                     nm), MUON_OK);
  for (size_t i = 0; i < nm; i++) bad_array += got[i] != want[i];
  T_ASSERT_MSG (bad_array == 0, "%ld array midpoints wrong", bad_array);
}
static void test_midpoints_bf16 (void) { midpoints (0); }
static void test_midpoints_fp16 (void) { midpoints (1); }

static void test_overflow (void)
{
  // fp16: max finite 65504; the midpoint to the next binade step 65536 is 65520
  T_EQ_INT (muon_f32_to_fp16_bits (65504.0f), 0x7bff);
  T_EQ_INT (muon_f32_to_fp16_bits (65519.996f), 0x7bff);
  T_EQ_INT (muon_f32_to_fp16_bits (nextafterf (65520.0f, 0.0f)), 0x7bff);
  T_EQ_INT (muon_f32_to_fp16_bits (65520.0f), 0x7c00);
  T_EQ_INT (muon_f32_to_fp16_bits (-65520.0f), 0xfc00);
  T_EQ_INT (muon_f32_to_fp16_bits (-65504.0f), 0xfbff);
  T_EQ_INT (muon_f32_to_fp16_bits (1e5f), 0x7c00);
  T_EQ_INT (muon_f32_to_fp16_bits (FLT_MAX), 0x7c00);
  T_EQ_INT (muon_f32_to_fp16_bits (INFINITY), 0x7c00);
  T_EQ_INT (muon_f32_to_fp16_bits (-INFINITY), 0xfc00);
  T_ASSERT (isinf (muon_round_fp16 (65520.0f)) && muon_round_fp16 (65520.0f) > 0);
  T_EQ_DBL (muon_round_fp16 (65519.0f), 65504.0f);
  // bf16: max finite 0x7f7f = (2 - 2^-7) 2^127; midpoint to 2^128 is fp32 0x7f7f8000
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (0x7f7f0000u)), 0x7f7f);
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (0x7f7f7fffu)), 0x7f7f);
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (0x7f7f8000u)), 0x7f80);   // tie, 0x7f7f odd: up
  T_EQ_INT (muon_f32_to_bf16_bits (FLT_MAX), 0x7f80);
  T_EQ_INT (muon_f32_to_bf16_bits (-FLT_MAX), 0xff80);
  T_EQ_INT (muon_f32_to_bf16_bits (INFINITY), 0x7f80);
  T_EQ_INT (muon_f32_to_bf16_bits (-INFINITY), 0xff80);
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (0x7f7e8000u)), 0x7f7e);   // tie, 0x7f7e even: down
}

static void test_subnormals_and_zeros (void)
{
  const float t24 = ldexpf (1.0f, -24), t25 = ldexpf (1.0f, -25);
  T_EQ_INT (muon_f32_to_fp16_bits (t24), 0x0001);
  T_EQ_INT (muon_f32_to_fp16_bits (t25), 0x0000);                    // tie to even: 0
  T_EQ_INT (muon_f32_to_fp16_bits (-t25), 0x8000);
  T_EQ_INT (muon_f32_to_fp16_bits (nextafterf (t25, 1.0f)), 0x0001);
  T_EQ_INT (muon_f32_to_fp16_bits (1.5f * t24), 0x0002);             // tie, 1 odd: up
  T_EQ_INT (muon_f32_to_fp16_bits (2.5f * t24), 0x0002);             // tie, 2 even: down
  T_EQ_INT (muon_f32_to_fp16_bits (ldexpf (1.0f, -26)), 0x0000);
  T_EQ_INT (muon_f32_to_fp16_bits (1e-30f), 0x0000);
  T_EQ_INT (muon_f32_to_fp16_bits (bits_f (1u)), 0x0000);
  T_EQ_INT (muon_f32_to_fp16_bits (ldexpf (1.0f, -14)), 0x0400);     // smallest normal
  T_EQ_INT (muon_f32_to_fp16_bits (ldexpf (1023.5f, -24)), 0x0400);  // tie 0x3ff/0x400: even
  T_EQ_INT (muon_f32_to_fp16_bits (ldexpf (1022.5f, -24)), 0x03fe);
  T_EQ_DBL (muon_round_fp16 (1.5f * t24), 2 * t24);
  T_EQ_DBL (muon_round_fp16 (t25), 0.0f);
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (1u)), 0x0000);           // bf16 subnormals
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (0x00010000u)), 0x0001);
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (0x00018000u)), 0x0002);
  T_EQ_INT (muon_f32_to_bf16_bits (bits_f (0x007f8000u)), 0x0080);   // up into the normals
  // signed zeros
  T_EQ_INT (muon_f32_to_fp16_bits (0.0f), 0x0000);
  T_EQ_INT (muon_f32_to_fp16_bits (-0.0f), 0x8000);
  T_EQ_INT (muon_f32_to_bf16_bits (0.0f), 0x0000);
  T_EQ_INT (muon_f32_to_bf16_bits (-0.0f), 0x8000);
  T_ASSERT (signbit (muon_round_fp16 (-0.0f)) && muon_round_fp16 (-0.0f) == 0);
  T_ASSERT (signbit (muon_round_bf16 (-0.0f)) && muon_round_bf16 (-0.0f) == 0);
  T_ASSERT (signbit (muon_round_fp16 (-t25)));                       // -2^-25 -> -0
  T_ASSERT (signbit (muon_fp16_bits_to_f32 (0x8000)));
  T_ASSERT (signbit (muon_bf16_bits_to_f32 (0x8000)));
  // a few ordinary values
  T_EQ_INT (muon_f32_to_fp16_bits (1.0f), 0x3c00);
  T_EQ_INT (muon_f32_to_bf16_bits (1.0f), 0x3f80);
  T_EQ_INT (muon_f32_to_fp16_bits (-2.0f), 0xc000);
  T_EQ_DBL (muon_round_bf16 (1.0f + ldexpf (1.0f, -8)), 1.0f);        // tie to even
  T_EQ_DBL (muon_round_bf16 (1.0f + 3 * ldexpf (1.0f, -8)), 1.0f + ldexpf (1.0f, -6));
  T_EQ_DBL (muon_round_fp16 (1.0f + ldexpf (1.0f, -11)), 1.0f);
  T_EQ_DBL (muon_round_fp16 (0.1f), 0.0999755859375f);
}

static void test_nan (void)
{
  const uint32_t nans[] = { 0x7fc00000u, 0x7f800001u, 0x7fffffffu, 0xff800001u, 0xffc00000u,
                            0x7fa00000u, 0x7f802000u, 0x7f800100u };
  for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++)
  {
    float f = bits_f (nans[i]);
    uint16_t b = muon_f32_to_bf16_bits (f), h = muon_f32_to_fp16_bits (f);
    T_ASSERT_MSG (is_nan16 (0, b), "bf16 of NaN 0x%08x is 0x%04x", nans[i], b);
    T_ASSERT_MSG (is_nan16 (1, h), "fp16 of NaN 0x%08x is 0x%04x", nans[i], h);
    T_EQ_INT (b >> 15, nans[i] >> 31);
    T_EQ_INT (h >> 15, nans[i] >> 31);
    T_ASSERT (isnan (muon_round_bf16 (f)));
    T_ASSERT (isnan (muon_round_fp16 (f)));
    T_ASSERT (isnan (muon_round_to (MUON_PREC_BF16, f)));
    T_ASSERT (isnan (muon_round_to (MUON_PREC_FP16, f)));
  }
  T_ASSERT (isinf (muon_round_to (MUON_PREC_FP16, 1e6f)));
  T_EQ_DBL (muon_round_to (MUON_PREC_SINGLE, 0.1f), 0.1f);
  T_EQ_DBL (muon_round_to (MUON_PREC_DOUBLE, 0.1f), 0.1f);
}

static void test_scale_add (void)
{
  // r(r(s x) + r(p)): each piece rounded once
  float s = 3.0f, x = 1.0f + ldexpf (1.0f, -7), p = ldexpf (1.0f, -9);
  float want_bf = muon_round_bf16 (muon_round_bf16 (s * x) + muon_round_bf16 (p));
  T_EQ_DBL (muon_scale_add (MUON_PREC_BF16, s, x, p), want_bf);
  // s x = 3 + 3 2^-7 rounds to 3 + 2^-5 (tie, even) in bf16 (spacing 2^-6 in [2,4))
  T_EQ_DBL (muon_round_bf16 (s * x), 3.0f + ldexpf (1.0f, -5));
  T_EQ_DBL (muon_scale_add (MUON_PREC_SINGLE, 2.0f, 0.5f, 0.25f), 1.25f);
  T_ASSERT (isinf (muon_scale_add (MUON_PREC_FP16, 1.0f, 60000.0f, 60000.0f)));
}

static void test_round_array (void)
{
  double x[8] = { 0.1, 1.0 + ldexp (1.0, -30), 65520.0, -0.0, NAN, 1e-9, 1.0 / 3, -7.0 };
  double y[8], z[8];
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_DOUBLE, x, y, 8), MUON_OK);
  for (int i = 0; i < 8; i++)
    T_ASSERT (memcmp (&x[i], &y[i], sizeof y[i]) == 0);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_SINGLE, x, y, 8), MUON_OK);
  for (int i = 0; i < 8; i++)
    T_ASSERT ((isnan (x[i]) && isnan (y[i])) || y[i] == (double) (float) x[i]);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_FP16, x, y, 8), MUON_OK);
  for (int i = 0; i < 8; i++)
  {
    double r = (double) muon_round_fp16 ((float) x[i]);
    T_ASSERT ((isnan (r) && isnan (y[i])) || y[i] == r);
  }
  T_ASSERT (isinf (y[2]) && signbit (y[3]) && isnan (y[4]) && y[5] == 0);
  T_EQ_DBL (y[0], 0.0999755859375);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_BF16, x, y, 8), MUON_OK);
  for (int i = 0; i < 8; i++)
  {
    double r = (double) muon_round_bf16 ((float) x[i]);
    T_ASSERT ((isnan (r) && isnan (y[i])) || y[i] == r);
  }
  T_EQ_DBL (y[7], -7.0);
  T_EQ_DBL (y[6], 0.333984375);
  // double -> fp32 first: 1 + 2^-8 + 2^-30 becomes the bf16 tie 1 + 2^-8, then even: 1
  double w = 1.0 + ldexp (1.0, -8) + ldexp (1.0, -30);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_BF16, &w, y, 1), MUON_OK);
  T_EQ_DBL (y[0], 1.0);
  // in place
  memcpy (z, x, sizeof z);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_FP16, z, z, 8), MUON_OK);
  T_EQ_DBL (z[0], 0.0999755859375);
  memcpy (z, x, sizeof z);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_DOUBLE, z, z, 8), MUON_OK);
  T_EQ_DBL (z[6], 1.0 / 3);
  // n = 0 needs no buffers
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_FP16, NULL, NULL, 0), MUON_OK);
  // errors
  T_EQ_INT (muon_round_array (NULL, MUON_PREC_FP16, x, y, 8), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_FP16, NULL, y, 8), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_FP16, x, NULL, 8), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_round_array (ctx, (muon_precision) 4, x, y, 8), MUON_ERR_BADARG);
  T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_BADARG);
  T_ASSERT (*muon_ctx_last_error (ctx) != 0);
  T_EQ_INT (muon_round_array (ctx, (muon_precision) -1, x, y, 8), MUON_ERR_BADARG);
}

// torch's add_ with alpha: one rounding of y + a x (single: a rounded to float first)
static void test_fma_array (void)
{
  // 1 + 2^-23 + (1 + 2^-23) 2^-24 (1 - 2^-23) = 1 + 2^-23 + 2^-24 - 2^-70, just below the
  // single midpoint: 1 + 2^-23 (the double sum rounds to the midpoint, then to even 1 + 2^-22)
  float xs[3] = { ldexpf (1.0f, -24) * (1.0f - ldexpf (1.0f, -23)), 2.0f, -0.0f };
  float ys[3] = { 1.0f + ldexpf (1.0f, -23), 1.0f, -0.0f };
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_SINGLE, 1.0 + ldexp (1.0, -23), xs, ys, 3), MUON_OK);
  T_EQ_DBL (ys[0], 1.0f + ldexpf (1.0f, -23));
  T_EQ_DBL (ys[1], 3.0f + ldexpf (2.0f, -23));
  T_ASSERT (ys[2] == 0 && signbit (ys[2]));
  // a is rounded to float: 1 + 2^-30 is 1
  float one = 1.0f, z = 0.0f;
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_SINGLE, 1.0 + ldexp (1.0, -30), &one, &z, 1), MUON_OK);
  T_EQ_DBL (z, 1.0f);
  // double: a x = 2^-53 (1 - 2^-104), so 1 + a x lies 2^-157 below the midpoint 1 + 2^-53
  // (1), and (1 + 2^-52) + a x below the midpoint 1 + 3 2^-53: 1 + 2^-52, where rounding
  // a x first (2^-53) and then the sum gives 1 + 2^-51
  double xd[2] = { ldexp (1.0, -53) * (1.0 - ldexp (1.0, -52)), ldexp (1.0, -53) * (1.0 - ldexp (1.0, -52)) };
  double yd[2] = { 1.0, 1.0 + ldexp (1.0, -52) };
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_DOUBLE, 1.0 + ldexp (1.0, -52), xd, yd, 2), MUON_OK);
  T_EQ_DBL (yd[0], 1.0);
  T_EQ_DBL (yd[1], 1.0 + ldexp (1.0, -52));
  // in place, n = 0, errors
  double w[2] = { 2.0, 3.0 };
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_DOUBLE, 0.5, w, w, 2), MUON_OK);
  T_EQ_DBL (w[0], 3.0);
  T_EQ_DBL (w[1], 4.5);
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_DOUBLE, 1.0, NULL, NULL, 0), MUON_OK);
  T_EQ_INT (muon_fma_array (NULL, MUON_PREC_DOUBLE, 1.0, w, w, 2), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_DOUBLE, 1.0, NULL, w, 2), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_BF16, 1.0, w, w, 2), MUON_ERR_BADARG);
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_DOUBLE, 1.0, w, w + 1, 1), MUON_OK);
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_DOUBLE, 1.0, w, w + 1, 2), MUON_ERR_BADARG);
}

static void test_bits_arrays (void)
{
  float f[4] = { 1.0f, -2.0f, 65520.0f, 0.1f }, g[4];
  uint16_t h[4];
  T_EQ_INT (muon_float_to_half_bits (ctx, MUON_PREC_FP16, f, h, 4), MUON_OK);
  T_EQ_INT (h[0], 0x3c00);
  T_EQ_INT (h[1], 0xc000);
  T_EQ_INT (h[2], 0x7c00);
  T_EQ_INT (h[3], 0x2e66);
  T_EQ_INT (muon_half_bits_to_float (ctx, MUON_PREC_FP16, h, g, 4), MUON_OK);
  T_EQ_DBL (g[3], 0.0999755859375f);
  T_EQ_INT (muon_float_to_half_bits (ctx, MUON_PREC_BF16, f, h, 4), MUON_OK);
  T_EQ_INT (h[0], 0x3f80);
  T_EQ_INT (h[3], 0x3dcd);
  T_EQ_INT (muon_float_to_half_bits (ctx, MUON_PREC_BF16, NULL, NULL, 0), MUON_OK);
  T_EQ_INT (muon_half_bits_to_float (ctx, MUON_PREC_BF16, NULL, NULL, 0), MUON_OK);
  // errors: NULL, and a precision that has no 16-bit pattern
  T_EQ_INT (muon_float_to_half_bits (NULL, MUON_PREC_FP16, f, h, 4), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_float_to_half_bits (ctx, MUON_PREC_FP16, NULL, h, 4), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_float_to_half_bits (ctx, MUON_PREC_FP16, f, NULL, 4), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_half_bits_to_float (NULL, MUON_PREC_FP16, h, g, 4), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_half_bits_to_float (ctx, MUON_PREC_FP16, NULL, g, 4), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_half_bits_to_float (ctx, MUON_PREC_FP16, h, NULL, 4), MUON_ERR_NULLPTR);
  const muon_precision badp[] = { MUON_PREC_DOUBLE, MUON_PREC_SINGLE, (muon_precision) 4,
                                  (muon_precision) -1 };
  for (int i = 0; i < 4; i++)
  {
    T_EQ_INT (muon_float_to_half_bits (ctx, badp[i], f, h, 4), MUON_ERR_BADARG);
    T_EQ_INT (muon_half_bits_to_float (ctx, badp[i], h, g, 4), MUON_ERR_BADARG);
    T_EQ_INT (muon_ctx_last_status (ctx), MUON_ERR_BADARG);
  }
}

// An element count whose byte size wraps size_t: BADSHAPE before the overlap test (with
// n = SIZE_MAX / 8 + 2, n * 8 wrapped to 8, x + 1 looked like no overlap, and the loop wrote
// past the buffer).  Nothing is written.
static void test_count_overflow (void)
{
  double d[4] = { 1.5, 2.5, 3.5, 4.5 }, dk[4];
  float f[4] = { 1.5f, 2.5f, 3.5f, 4.5f };
  uint16_t h[8] = { 0 };
  char msg[80];
  memcpy (dk, d, sizeof d);
  size_t n = SIZE_MAX / sizeof (double) + 2;
  snprintf (msg, sizeof msg, "%zu elements do not fit in memory", n);
  T_EQ_INT (muon_round_array (ctx, MUON_PREC_BF16, d, d + 1, n), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), msg);
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_DOUBLE, 1.0, d, d + 1, n), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), msg);
  T_ASSERT (memcmp (d, dk, sizeof d) == 0);
  n = SIZE_MAX / sizeof (float) + 2;   // n * 4 wraps to 4
  snprintf (msg, sizeof msg, "%zu elements do not fit in memory", n);
  T_EQ_INT (muon_fma_array (ctx, MUON_PREC_SINGLE, 1.0, f, f + 1, n), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), msg);
  T_EQ_INT (muon_float_to_half_bits (ctx, MUON_PREC_BF16, f, h, n), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), msg);
  T_EQ_INT (muon_half_bits_to_float (ctx, MUON_PREC_FP16, h, f, n), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), msg);
  T_EQ_DBL (f[0], 1.5f);
  T_EQ_DBL (f[3], 4.5f);
}

// Overlap: in place (y is x; dst starts at src) gives the separate call's values; a shifted
// overlap is refused, and nothing is written.
static void test_overlap (void)
{
  const char *round_msg = "y must be x itself or not overlap it";
  for (int p = 0; p < 4; p++)
  {
    double a[12], b[12], ref[8];       // x = a + 2 and y = x + shift, within a
    for (int i = 0; i < 8; i++)
      ref[i] = 1.0 + i / 3.0;
    T_EQ_INT (muon_round_array (ctx, (muon_precision) p, ref, ref, 8), MUON_OK);  // in place
    for (int i = 0; i < 8; i++)         // against the scalar forms (double: unchanged)
    {
      double x = 1.0 + i / 3.0;
      double want = p == MUON_PREC_DOUBLE ? x : p == MUON_PREC_SINGLE ? (double) (float) x
                    : p == MUON_PREC_BF16 ? (double) muon_round_bf16 ((float) x)
                                          : (double) muon_round_fp16 ((float) x);
      T_EQ_DBL (ref[i], want);
    }
    for (int shift = -2; shift <= 2; shift++)
    {
      if (shift == 0)
        continue;
      double *x = a + 2, *y = a + 2 + shift;
      for (int i = 0; i < 12; i++)
        a[i] = 1.0 + (i - 2) / 3.0;
      memcpy (b, a, sizeof a);
      T_EQ_INT (muon_round_array (ctx, (muon_precision) p, x, y, 8), MUON_ERR_BADARG);
      T_EQ_STR (muon_ctx_last_error (ctx), round_msg);
      T_ASSERT_MSG (memcmp (a, b, sizeof a) == 0, "precision %d, shift %d: written", p, shift);
    }
    // next to each other: fine
    for (int i = 0; i < 8; i++)
      a[i] = 1.0 + i / 3.0;
    T_EQ_INT (muon_round_array (ctx, (muon_precision) p, a, a + 8, 2), MUON_OK);
    T_EQ_DBL (a[9], ref[1]);
  }
  // the bit patterns in place: 1 .. 8 are exact in both formats
  for (int fp16 = 0; fp16 <= 1; fp16++)
  {
    muon_precision p = fp16 ? MUON_PREC_FP16 : MUON_PREC_BF16;
    union { float f[8]; uint16_t h[16]; } u;
    float want[8];
    uint16_t bits[8];
    for (int i = 0; i < 8; i++)
      want[i] = 1.0f + (float) i;
    T_EQ_INT (muon_float_to_half_bits (ctx, p, want, bits, 8), MUON_OK);
    memcpy (u.f, want, sizeof want);
    T_EQ_INT (muon_float_to_half_bits (ctx, p, u.f, u.h, 8), MUON_OK);
    T_ASSERT (memcmp (u.h, bits, sizeof bits) == 0);
    T_EQ_INT (muon_half_bits_to_float (ctx, p, u.h, u.f, 8), MUON_OK);
    T_ASSERT_MSG (memcmp (u.f, want, sizeof want) == 0, "%s in place: %g %g ... (1 2 ...)",
                  fp16 ? "fp16" : "bf16", u.f[0], u.f[1]);
    // shifted: refused, nothing written
    union { float f[10]; uint16_t h[20]; } v, w;
    memset (&v, 0, sizeof v);
    memcpy (v.h + 2, bits, sizeof bits);
    w = v;
    T_EQ_INT (muon_half_bits_to_float (ctx, p, v.h + 2, v.f, 8), MUON_ERR_BADARG);
    T_EQ_STR (muon_ctx_last_error (ctx), "dst must start where src starts or not overlap it");
    T_EQ_INT (muon_half_bits_to_float (ctx, p, v.h, v.f + 1, 8), MUON_ERR_BADARG);
    T_EQ_INT (muon_float_to_half_bits (ctx, p, v.f + 1, v.h, 8), MUON_ERR_BADARG);
    T_EQ_INT (muon_float_to_half_bits (ctx, p, v.f, v.h + 6, 8), MUON_ERR_BADARG);
    T_ASSERT (memcmp (&v, &w, sizeof v) == 0);
    // after the src: fine
    T_EQ_INT (muon_half_bits_to_float (ctx, p, v.h + 2, v.f + 3, 2), MUON_OK);
    T_EQ_DBL (v.f[4], 2.0f);
  }
}

static void test_precision_names (void)
{
  const char *names[] = { "double", "single", "bf16", "fp16" };
  for (int i = 0; i < 4; i++)
  {
    int p = 99;
    T_EQ_INT (muon_name_lookup (MUON_LIST_PRECISION, names[i], &p), MUON_OK);
    T_EQ_INT (p, i);
    T_EQ_STR (muon_names (MUON_LIST_PRECISION, i), names[i]);
  }
  int p;
  T_EQ_INT (muon_name_lookup (MUON_LIST_PRECISION, "half", &p), MUON_ERR_BADARG);
  T_EQ_INT (muon_name_lookup (MUON_LIST_PRECISION, "", &p), MUON_ERR_BADARG);
  T_ASSERT (muon_names (MUON_LIST_PRECISION, 4) == NULL);
  T_ASSERT (muon_names (MUON_LIST_PRECISION, -1) == NULL);
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  T_RUN (test_roundtrip_bf16);
  T_RUN (test_roundtrip_fp16);
  T_RUN (test_midpoints_bf16);
  T_RUN (test_midpoints_fp16);
  T_RUN (test_overflow);
  T_RUN (test_subnormals_and_zeros);
  T_RUN (test_nan);
  T_RUN (test_scale_add);
  T_RUN (test_round_array);
  T_RUN (test_fma_array);
  T_RUN (test_bits_arrays);
  T_RUN (test_overlap);
  T_RUN (test_count_overflow);
  T_RUN (test_precision_names);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
