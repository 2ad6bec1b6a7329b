/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_zero_cost_wrap.c - the cost model's transient element counts (core/zero: zcost_elems)
 * near 2^64: a design whose collectives already fail on bytes past 2^64 (overflow_fails)
 * still had its `transient` computed in wrapping 64-bit arithmetic (zero3_round_robin on 2
 * ranks: 9 x 2^61 elements came out as 2^61, less than the one matrix).  Now a count that
 * reaches 2^64 - 1 is found before it wraps: the design fails with that reason too and the
 * rank's transient is UINT64_MAX; below that the count is exact.  The expected figures are
 * the step's buffers counted by hand from zero_step*.c (see each case).
 */
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

// zero3_round_robin's buffers on rank r (zero_step_rr.c): the gradients' all-reduce and the
// flat copy (2 total), the gathered momentum chunks (S W), one matrix's G and U (2 big), and
// the round's gathered updates and momenta (2 big W).
static void test_round_robin (void)
{
  size_t n = (size_t) 1 << 61;                        // one 2^31 x 2^30 matrix
  muon_zero_cost_param p[1] = { { (size_t) 1 << 31, (size_t) 1 << 30, 1, NULL, 0 } };
  muon_zero_cost_opts o;
  muon_zero_cost *C = NULL;
  muon_zero_cost_opts_default (&o);
  o.design = MUON_ZERO3_ROUND_ROBIN;
  o.overflow_fails = 1;
  // 1 rank: S = n, 2n + n + 2n + 2n = 7 x 2^61 < 2^64, exact; its all-reduce of 2^61
  // elements is 2^64 bytes: the design fails on that alone
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 1, &o, &C), MUON_OK);
  if (C)
  {
    T_ASSERT (C->transient[0] == 7 * (uint64_t) n);
    T_EQ_STR (C->why, "its allreduce of 2305843009213693952 elements is too many to count "
                      "(64-bit bytes)");
  }
  muon_zero_cost_destroy (&C);
  // 2 ranks: S = n / 2, 2n + n + 2n + 4n = 9 x 2^61, past 2^64 (it wrapped to 2^61)
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_OK);
  if (C)
  {
    T_ASSERT_MSG (C->transient[0] == UINT64_MAX && C->transient[1] == UINT64_MAX,
                  "transient %llu %llu", (unsigned long long) C->transient[0],
                  (unsigned long long) C->transient[1]);
    T_EQ_INT (C->fails, 1);
    T_EQ_STR (C->why, "its allreduce of 2305843009213693952 elements is too many to count "
                      "(64-bit bytes); its transient elements reach 2^64 - 1 (rank 0)");
    T_EQ_INT (C->sent[MUON_COLL_ALL_GATHER], 0);     // collectives left out
  }
  muon_zero_cost_destroy (&C);
  // without overflow_fails the all-reduce's bytes are the error, found first
  o.overflow_fails = 0;
  T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 2, &o, &C), MUON_ERR_BADSHAPE);
  T_EQ_STR (muon_ctx_last_error (ctx), "2305843009213693952 elements are too many to count");
  T_ASSERT (C == NULL);
}

// Every design on one 2^31 x (2^31 - 1) matrix (n = 2^62 - 2^31, the most the model takes
// is below 2^62) on 4 ranks, overflow_fails 1.  By hand (n divisible by 8 = align 2 x 4
// ranks, so the flat buffer is n): reference and zero12_allreduce hold the flat buffer and
// G, M, U (4n = 2^64 - 2^33, exact); the other zero12 designs add the reduced partition to
// that; the layer-wise ones hold one bucket of 4 shards of n (rank 0 owns the matrix
// whole: Megatron's padded shard is n), a shard and the matrix (6n); the round-robin ones
// 2n + n + 2n + 8n; the all-to-all ones at least n + 2n + n on the owner; expert_parallel
// n + 2 (n / 4) + ... + 3n: all but the first two past 2^64.
static void test_every_design (void)
{
  size_t big = ((size_t) 1 << 31) * (((size_t) 1 << 31) - 1);
  muon_zero_cost_param p[1] = { { (size_t) 1 << 31, ((size_t) 1 << 31) - 1, 1, NULL, 0 } };
  static const int exact[] = { MUON_ZERO_REFERENCE, MUON_ZERO12_ALLREDUCE };
  int nover = 0;
  for (int d = 0; d < MUON_ZERO_VARIANT_COUNT; d++)
  {
    muon_zero_cost_opts o;
    muon_zero_cost *C = NULL;
    muon_zero_cost_opts_default (&o);
    o.design = d;
    o.overflow_fails = 1;
    T_EQ_INT (muon_zero_cost_create (ctx, 1, p, 4, &o, &C), MUON_OK);
    if (!C)
      continue;
    int fits = 0;
    for (size_t k = 0; k < sizeof exact / sizeof *exact; k++)
      fits |= exact[k] == d;
    int over = strstr (C->why, "its transient elements reach 2^64 - 1 (rank ") != NULL;
    nover += over;
    T_ASSERT_MSG (over == !fits, "design %d: why '%s'", d, C->why);
    int saturated = 0;
    for (int r = 0; r < 4; r++)
    {
      // never less than the one matrix (a wrapped count was); UINT64_MAX only when over
      T_ASSERT_MSG (C->transient[r] >= big, "design %d rank %d: transient %llu < %zu", d, r,
                    (unsigned long long) C->transient[r], big);
      saturated += C->transient[r] == UINT64_MAX;
    }
    T_ASSERT_MSG (fits ? saturated == 0 : saturated > 0, "design %d: %d ranks at UINT64_MAX",
                  d, saturated);
    if (d == MUON_ZERO_REFERENCE || d == MUON_ZERO12_ALLREDUCE)
      T_ASSERT (C->transient[0] == 4 * (uint64_t) big);
    muon_zero_cost_destroy (&C);
  }
  T_EQ_INT (nover, MUON_ZERO_VARIANT_COUNT - 2);
}

// Three reasons at once, each whole (why held 255 characters: this one is 260, and came
// out ending "(rank 0" cut to "(ra"): zero3_round_robin_aliased_pads gathers matrix 1 with the 2 x 3
// matrix 2 in round 1 (its own reason), all-reduces 2^61 + 6 elements on 2 ranks (past
// 2^64 bytes) and holds about 9 x 2^61 transient elements.
static void test_three_reasons (void)
{
  muon_zero_cost_param p[2] = { { (size_t) 1 << 31, (size_t) 1 << 30, 1, NULL, 0 },
                                { 2, 3, 1, NULL, 0 } };
  muon_zero_cost_opts o;
  muon_zero_cost *C = NULL;
  muon_zero_cost_opts_default (&o);
  o.design = MUON_ZERO3_RR_ALIASED;
  o.overflow_fails = 1;
  T_EQ_INT (muon_zero_cost_create (ctx, 2, p, 2, &o, &C), MUON_OK);
  if (C)
  {
    const char *want = "gather round 1 mixes sizes: slot 1 holds matrix 1 (2147483648 x "
                       "1073741824) and slot 2 holds matrix 2 (2 x 3) (DeepSpeed PR 8628); "
                       "its allreduce of 2305843009213693958 elements is too many to count "
                       "(64-bit bytes); its transient elements reach 2^64 - 1 (rank 0)";
    T_EQ_INT (strlen (want), 260);
    T_EQ_STR (C->why, want);
    T_EQ_INT (C->fails, 1);
  }
  muon_zero_cost_destroy (&C);
}

int main (int argc, char **argv)
{
  (void) argc;
  if (muon_ctx_create (&ctx) != MUON_OK)
    return 1;
  T_RUN (test_round_robin);
  T_RUN (test_every_design);
  T_RUN (test_three_reasons);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
