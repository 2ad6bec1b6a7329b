/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_coeffs.c - named coefficient schedules (core/math/coeffs.c) against the numbers quoted
 * in MUON_FACTS.md (1.2 keller, 4.1 you and Dao's polar_express with safety 1.05, 6.1
 * polar_express_dion, 6.2 polar_express_eo / cans / aol / deepseekv4 / cubic5), the default
 * step count, the expansion modes and every error code.
 */
#include "harness.h"
#include "muon.h"

static muon_ctx *ctx;

typedef struct { const char *name; int count; double first[3], last[3]; } sched;

// Written from MUON_FACTS.md, not from coeffs.c.  polar_express: Dao's raw values, divided
// below by the safety factor as (a / 1.05, b / 1.05^3, c / 1.05^5).
static const sched expected[] = {
  { "keller", 1, { 3.4445, -4.7750, 2.0315 }, { 3.4445, -4.7750, 2.0315 } },
  { "you", 5, { 4.0848, -6.8946, 2.9270 }, { 2.8366, -3.0525, 1.2012 } },
  { "polar_express", 5, { 8.28721201814563, -23.595886519098837, 17.300387312530933 },
    { 2.300652019954817, -1.6689039845747493, 0.4188073119525673 } },
  { "polar_express_dion", 5, { 8.156554524902461, -22.48329292557795, 15.878769915207462 },
    { 2.3465413258596377, -1.7097828382687081, 0.42323551169305323 } },
  { "polar_express_eo", 8, { 8.2051, -22.9019, 16.4607 }, { 1.8750, -1.2500, 0.3750 } },
  { "cans", 5, { 8.4703, -25.1081, 18.6293 }, { 2.2737, -1.6447, 0.4162 } },
  { "aol", 4, { 4.0098, -7.0585, 2.4635 }, { 2.7215, -3.0494, 1.3169 } },
  { "deepseekv4", 10, { 3.4445, -4.7750, 2.0315 }, { 2.0, -1.5, 0.5 } },
  { "cubic5", 5, { 3.3656576, -3.3420992, 0 }, { 2.2230472, -0.9630650, 0 } },
  // Emerging-Optimizers' coefficient_type="quintic" as issue 27 quotes it (NS_EO)
  { "eo_quintic", 5, { 4.0848, -6.8946, 2.9270 }, { 2.8366, -3.0525, 1.2012 } },
};
#define NEXP ((int) (sizeof expected / sizeof expected[0]))

static int same (double a, double b) { return fabs (a - b) <= 1e-15 * fabs (b); }

static void test_named (void)
{
  T_EQ_INT (muon_coeffs_count (), NEXP);
  for (int i = 0; i < NEXP; i++)
  {
    const sched *e = &expected[i];
    const double *t = NULL;
    int count = -1;
    T_EQ_INT (muon_coeffs_lookup (ctx, e->name, &t, &count), MUON_OK);
    T_EQ_INT (count, e->count);
    T_ASSERT (t != NULL);
    if (t == NULL || count != e->count) continue;
    double f[3], l[3];
    memcpy (f, e->first, sizeof f);
    memcpy (l, e->last, sizeof l);
    if (strcmp (e->name, "polar_express") == 0)
    {
      const double s[3] = { 1.05, pow (1.05, 3), pow (1.05, 5) };
      for (int k = 0; k < 3; k++) { f[k] /= s[k]; l[k] /= s[k]; }
    }
    for (int k = 0; k < 3; k++)
    {
      T_ASSERT_MSG (same (t[k], f[k]), "%s first[%d] = %.17g, expected %.17g", e->name, k,
                    t[k], f[k]);
      T_ASSERT_MSG (same (t[3 * (count - 1) + k], l[k]), "%s last[%d] = %.17g, expected %.17g",
                    e->name, k, t[3 * (count - 1) + k], l[k]);
    }
    // every triple finite, a > 0; cubic5 has c = 0 throughout
    for (int j = 0; j < count; j++)
    {
      T_ASSERT (isfinite (t[3 * j]) && isfinite (t[3 * j + 1]) && isfinite (t[3 * j + 2]));
      T_ASSERT (t[3 * j] > 0);
      if (strcmp (e->name, "cubic5") == 0) T_ASSERT (t[3 * j + 2] == 0);
    }
  }
  // deepseekv4 = 8 x keller then 2 x (2, -1.5, 0.5)
  const double *d = NULL;
  int n = 0;
  T_EQ_INT (muon_coeffs_lookup (ctx, "deepseekv4", &d, &n), MUON_OK);
  for (int j = 0; d && j < n; j++)
  {
    const double *want = j < 8 ? expected[0].first : expected[7].last;
    for (int k = 0; k < 3; k++) T_ASSERT (same (d[3 * j + k], want[k]));
  }
  // a middle triple of each multi-step list, quoted in MUON_FACTS
  const double *t = NULL;
  T_EQ_INT (muon_coeffs_lookup (ctx, "you", &t, &n), MUON_OK);
  T_ASSERT (t && same (t[3 * 2], 3.7418) && same (t[3 * 2 + 1], -5.5913) && same (t[3 * 2 + 2], 2.3037));
  T_EQ_INT (muon_coeffs_lookup (ctx, "polar_express_eo", &t, &n), MUON_OK);
  T_ASSERT (t && same (t[3 * 5], 1.8726) && same (t[3 * 5 + 1], -1.2307) && same (t[3 * 5 + 2], 0.3585));
  T_EQ_INT (muon_coeffs_lookup (ctx, "polar_express", &t, &n), MUON_OK);
  T_ASSERT (t && same (t[3], 4.107059111542203 / 1.05)
            && same (t[4], -2.9478499167379106 / pow (1.05, 3))
            && same (t[5], 0.5448431082926601 / pow (1.05, 5)));
}

static void test_names (void)
{
  for (int i = 0; i < muon_coeffs_count (); i++)
  {
    const char *name = muon_coeffs_name (i);
    T_ASSERT (name != NULL);
    int found = 0;
    for (int j = 0; name && j < NEXP; j++) found += strcmp (name, expected[j].name) == 0;
    T_ASSERT_MSG (found == 1, "name %d \"%s\" is one of the documented schedules", i,
                  name ? name : "(null)");
    const double *t;
    int count;
    T_EQ_INT (muon_coeffs_lookup (ctx, name, &t, &count), MUON_OK);
  }
  T_ASSERT (muon_coeffs_name (muon_coeffs_count ()) == NULL);
  T_ASSERT (muon_coeffs_name (-1) == NULL);
  T_ASSERT (muon_coeffs_name (1000) == NULL);
}

static void test_default_steps (void)
{
  T_EQ_INT (muon_coeffs_default_steps (1), 5);
  for (int c = 2; c <= 12; c++) T_EQ_INT (muon_coeffs_default_steps (c), c);
  for (int i = 0; i < NEXP; i++)
    T_EQ_INT (muon_coeffs_default_steps (expected[i].count),
              expected[i].count == 1 ? 5 : expected[i].count);
}

static void test_expand (void)
{
  const double tr[4][3] = { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 }, { 10, 11, 12 } };
  double out[11][3];
  // fewer steps: the head
  memset (out, 0, sizeof out);
  T_EQ_INT (muon_coeffs_expand (ctx, &tr[0][0], 4, 2, MUON_SCHEDULE_REPEAT_LAST, &out[0][0]),
            MUON_OK);
  T_ASSERT (out[0][0] == 1 && out[1][2] == 6 && out[2][0] == 0);   // nothing past steps
  // exactly count, both modes
  for (int mode = 0; mode < 2; mode++)
  {
    T_EQ_INT (muon_coeffs_expand (ctx, &tr[0][0], 4, 4, (muon_schedule_mode) mode, &out[0][0]),
              MUON_OK);
    T_ASSERT (memcmp (out, tr, sizeof tr) == 0);
  }
  // beyond: repeat_last
  T_EQ_INT (muon_coeffs_expand (ctx, &tr[0][0], 4, 11, MUON_SCHEDULE_REPEAT_LAST, &out[0][0]),
            MUON_OK);
  for (int k = 0; k < 11; k++)
    for (int j = 0; j < 3; j++)
      T_EQ_INT (out[k][j], tr[k < 4 ? k : 3][j]);
  // beyond: cycle
  T_EQ_INT (muon_coeffs_expand (ctx, &tr[0][0], 4, 11, MUON_SCHEDULE_CYCLE, &out[0][0]), MUON_OK);
  for (int k = 0; k < 11; k++)
    for (int j = 0; j < 3; j++)
      T_EQ_INT (out[k][j], tr[k % 4][j]);
  // a single triple repeats in both modes
  for (int mode = 0; mode < 2; mode++)
  {
    T_EQ_INT (muon_coeffs_expand (ctx, &tr[1][0], 1, 7, (muon_schedule_mode) mode, &out[0][0]),
              MUON_OK);
    for (int k = 0; k < 7; k++) T_ASSERT (out[k][0] == 4 && out[k][1] == 5 && out[k][2] == 6);
  }
  // a named schedule expanded past its end
  const double *d;
  int n;
  muon_coeffs_lookup (ctx, "aol", &d, &n);
  T_EQ_INT (muon_coeffs_expand (ctx, d, n, 9, MUON_SCHEDULE_CYCLE, &out[0][0]), MUON_OK);
  T_ASSERT (out[8][0] == d[0] && out[5][1] == d[4]);
  T_EQ_INT (muon_coeffs_expand (ctx, d, n, 9, MUON_SCHEDULE_REPEAT_LAST, &out[0][0]), MUON_OK);
  T_ASSERT (out[8][0] == d[9] && out[5][1] == d[10]);
}

// code expected from call, with the status and a message recorded in ctx.
#define T_ERR(call, code)                                                                 \
  do { T_EQ_INT (call, code); T_EQ_INT (muon_ctx_last_status (ctx), code);                \
       T_ASSERT (*muon_ctx_last_error (ctx) != 0);                                        \
       muon_ctx_set_error (ctx, MUON_OK, "%s", ""); } while (0)

static void test_errors (void)
{
  const double *t = NULL;
  int count = 0;
  double tr[3] = { 1, 2, 3 }, out[30];
  T_ERR (muon_coeffs_lookup (ctx, "nope", &t, &count), MUON_ERR_BADARG);
  T_EQ_INT (muon_coeffs_lookup (ctx, "Keller", &t, &count), MUON_ERR_BADARG);   // exact names
  T_EQ_INT (muon_coeffs_lookup (ctx, "", &t, &count), MUON_ERR_BADARG);
  T_EQ_INT (muon_coeffs_lookup (ctx, "keller ", &t, &count), MUON_ERR_BADARG);
  T_ERR (muon_coeffs_lookup (ctx, NULL, &t, &count), MUON_ERR_NULLPTR);
  T_ERR (muon_coeffs_lookup (ctx, "keller", NULL, &count), MUON_ERR_NULLPTR);
  T_ERR (muon_coeffs_lookup (ctx, "keller", &t, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_coeffs_lookup (NULL, "keller", &t, &count), MUON_ERR_NULLPTR);
  T_ERR (muon_coeffs_expand (ctx, tr, 1, 0, MUON_SCHEDULE_REPEAT_LAST, out), MUON_ERR_BADARG);
  T_ERR (muon_coeffs_expand (ctx, tr, 1, -3, MUON_SCHEDULE_REPEAT_LAST, out), MUON_ERR_BADARG);
  T_ERR (muon_coeffs_expand (ctx, tr, 0, 5, MUON_SCHEDULE_REPEAT_LAST, out), MUON_ERR_BADARG);
  T_ERR (muon_coeffs_expand (ctx, tr, -1, 5, MUON_SCHEDULE_CYCLE, out), MUON_ERR_BADARG);
  T_ERR (muon_coeffs_expand (ctx, tr, 1, 5, (muon_schedule_mode) 2, out), MUON_ERR_BADARG);
  T_ERR (muon_coeffs_expand (ctx, tr, 1, 5, (muon_schedule_mode) -1, out), MUON_ERR_BADARG);
  T_ERR (muon_coeffs_expand (ctx, NULL, 1, 5, MUON_SCHEDULE_CYCLE, out), MUON_ERR_NULLPTR);
  T_ERR (muon_coeffs_expand (ctx, tr, 1, 5, MUON_SCHEDULE_CYCLE, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_coeffs_expand (NULL, tr, 1, 5, MUON_SCHEDULE_CYCLE, out), MUON_ERR_NULLPTR);
}

// out overlapping triples: in place (out == triples) expands as into a separate buffer; a
// shifted overlap (out = triples + 3 or triples - 3) is BADARG and writes nothing (it used
// to return OK with 1 2 3 1 2 3 ... for the schedule 1 2 3 4 5 6 7 8 9 1 2 3 4 5 6).
static void test_expand_overlap (void)
{
  double buf[24], keep[24];
  for (int shift = -3; shift <= 3; shift += 6)
  {
    for (int i = 0; i < 24; i++)
      buf[i] = i >= 3 && i < 12 ? i - 2 : -1;   // triples 1 2 3 | 4 5 6 | 7 8 9 at buf + 3
    memcpy (keep, buf, sizeof buf);
    T_EQ_INT (muon_coeffs_expand (ctx, buf + 3, 3, 5, MUON_SCHEDULE_CYCLE, buf + 3 + shift),
              MUON_ERR_BADARG);
    T_EQ_STR (muon_ctx_last_error (ctx), "out must be triples itself or not overlap it");
    T_ASSERT_MSG (memcmp (buf, keep, sizeof buf) == 0, "shift %d: written", shift);
  }
  for (int mode = 0; mode < 2; mode++)
  {
    for (int i = 0; i < 24; i++)
      buf[i] = i < 9 ? i + 1 : -1;
    T_EQ_INT (muon_coeffs_expand (ctx, buf, 3, 5, (muon_schedule_mode) mode, buf), MUON_OK);
    const double cyc[15] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 1, 2, 3, 4, 5, 6 };
    const double last[15] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 7, 8, 9, 7, 8, 9 };
    const double *want = mode == MUON_SCHEDULE_CYCLE ? cyc : last;
    for (int i = 0; i < 15; i++)
      T_EQ_DBL (buf[i], want[i]);
  }
  // right after the triples: not an overlap
  for (int i = 0; i < 24; i++)
    buf[i] = i < 9 ? i + 1 : -1;
  T_EQ_INT (muon_coeffs_expand (ctx, buf, 3, 5, MUON_SCHEDULE_CYCLE, buf + 9), MUON_OK);
  T_EQ_DBL (buf[9 + 9], 1.0);
  T_EQ_DBL (buf[9 + 14], 6.0);
}

int main (int argc, char **argv)
{
  (void) argc;
  muon_ctx_create (&ctx);
  T_RUN (test_named);
  T_RUN (test_names);
  T_RUN (test_default_steps);
  T_RUN (test_expand);
  T_RUN (test_errors);
  T_RUN (test_expand_overlap);
  muon_ctx_destroy (&ctx);
  return T_DONE (argv[0]);
}
