/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* test_update.c - the Muon update (core/math/update.c, core/math/muon_update_math.h): option
 * defaults and names, the per-element maths against hand values, momentum after k steps
 * against a plain loop written here, U against muon_ns of the Nesterov input times the
 * closed-form scale, EMA vs SGD, fused experts (strided views) and split row blocks against
 * separate calls (bitwise), fp32 and mixed storage.  Its errors: test_update_errors.c.
 */
#include "harness.h"
#include "muon.h"
#include "muon_update_math.h"
#include "update_fixture.h"

//---- options, names, per-element maths ------------------------------------------------------

static void test_defaults_names (void)
{
  muon_update_opts o;
  muon_update_opts_default (&o);
  T_EQ_DBL (o.beta, 0.95);
  T_EQ_INT (o.nesterov, 1);
  T_EQ_INT (o.form, MUON_MOMENTUM_EMA);
  T_EQ_INT (o.scale, MUON_SCALE_KELLER);
  T_EQ_DBL (o.scale_factor, 1);
  T_ASSERT (o.split_rows == NULL && o.nsplit == 0 && o.scale_rows == 0 && o.scale_cols == 0);
  T_EQ_DBL (o.ns.eps, 1e-7);
  muon_update_opts_default (NULL);                        // no crash

  const char *scales[] = { "keller", "rms", "spectral", "unit_rms", "none" };
  for (int i = 0; i < 5; i++)
  {
    int r = MUON_SCALE_NONE;
    T_EQ_INT (muon_name_lookup (MUON_LIST_SCALE_RULE, scales[i], &r), MUON_OK);
    T_EQ_INT (r, i);
    T_EQ_STR (muon_names (MUON_LIST_SCALE_RULE, r), scales[i]);
  }
  int f = MUON_MOMENTUM_EMA;
  T_EQ_INT (muon_name_lookup (MUON_LIST_MOMENTUM_FORM, "sgd", &f), MUON_OK);
  T_EQ_INT (f, MUON_MOMENTUM_SGD);
  T_EQ_STR (muon_names (MUON_LIST_MOMENTUM_FORM, MUON_MOMENTUM_EMA), "ema");
  T_ASSERT (muon_names (MUON_LIST_MOMENTUM_FORM, 7) == NULL);
  T_EQ_INT (muon_name_lookup (MUON_LIST_MOMENTUM_FORM, "EMA", &f), MUON_ERR_BADARG);  // exact
  T_EQ_INT (muon_name_lookup (MUON_LIST_SCALE_RULE, "muP", &f), MUON_ERR_BADARG);
}

static void test_math (void)
{
  // hand values with beta = 0.5 (exact in binary)
  T_EQ_DBL (muon_momentum_step (0, 0.5, 2, 4), 3);        // 0.5*2 + 0.5*4
  T_EQ_DBL (muon_momentum_step (1, 0.5, 2, 4), 5);        // 0.5*2 + 4
  T_EQ_DBL (muon_nesterov_input (0, 0.5, 3, 4), 3.5);     // 0.5*4 + 0.5*3
  T_EQ_DBL (muon_nesterov_input (1, 0.5, 5, 4), 6.5);     // 4 + 0.5*5
  // EMA state is (1 - beta) times SGD state, step by step (exact for beta = 0.75)
  double me = 0, ms = 0, g[4] = { 1, -2, 0.5, 8 };
  for (int k = 0; k < 4; k++)
  {
    me = muon_momentum_step (0, 0.75, me, g[k]);
    ms = muon_momentum_step (1, 0.75, ms, g[k]);
    T_EQ_DBL (me, 0.25 * ms);
    T_EQ_DBL (muon_nesterov_input (0, 0.75, me, g[k]),
              0.25 * muon_nesterov_input (1, 0.75, ms, g[k]));
  }
  // scale rules, closed forms (MUON_FACTS 8)
  T_EQ_DBL (muon_update_scale_value (0, 8, 2, 1), 2);      // sqrt (max (1, 4))
  T_EQ_DBL (muon_update_scale_value (0, 2, 8, 1), 1);
  T_NEAR (muon_update_scale_value (1, 2, 100, 1), 2, 1e-15);   // 0.2 * sqrt (100)
  T_EQ_DBL (muon_update_scale_value (2, 16, 4, 3), 12);    // 3 * sqrt (16)
  T_EQ_DBL (muon_update_scale_value (3, 4, 16, 1), 0.5);   // sqrt (4 / 16)
  T_EQ_DBL (muon_update_scale_value (4, 4, 16, 2.5), 2.5);
  T_ASSERT (isnan (muon_update_scale_value (5, 4, 16, 1)));

  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  double s = 0;
  T_EQ_INT (muon_update_scale (ctx, MUON_SCALE_SPECTRAL, 9, 4, 2, &s), MUON_OK);
  T_EQ_DBL (s, 6);
  T_EQ_INT (muon_update_scale (NULL, MUON_SCALE_SPECTRAL, 9, 4, 2, &s), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_update_scale (ctx, MUON_SCALE_SPECTRAL, 9, 4, 2, NULL), MUON_ERR_NULLPTR);
  T_EQ_INT (muon_update_scale (ctx, (muon_scale_rule) 9, 9, 4, 2, &s), MUON_ERR_BADARG);
  T_EQ_INT (muon_update_scale (ctx, MUON_SCALE_RMS, 0, 4, 2, &s), MUON_ERR_BADSHAPE);
  T_EQ_INT (muon_update_scale (ctx, MUON_SCALE_RMS, 3, 4, NAN, &s), MUON_ERR_BADARG);
  muon_ctx_destroy (&ctx);
}

//---- the update -----------------------------------------------------------------------------


// Momentum after k steps against a loop written here; U = scale * muon_ns (Nesterov input).
static void test_momentum_and_u (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  double g[3][N], m[N] = { 0 }, mref[N] = { 0 }, u[N], x[N], x_ns[N];
  for (int k = 0; k < 3; k++) fill (g[k], N, 11u + (unsigned) k);
  for (int form = 0; form < 2; form++)
    for (int nest = 0; nest < 2; nest++)
    {
      muon_update_opts o = fp64_opts ();
      o.form = (muon_momentum_form) form;
      o.nesterov = nest;
      o.beta = 0.9;
      o.scale = MUON_SCALE_SPECTRAL;
      o.scale_factor = 0.5;
      memset (m, 0, sizeof m);
      memset (mref, 0, sizeof mref);
      for (int k = 0; k < 3; k++)
      {
        double gcopy[N];
        memcpy (gcopy, g[k], sizeof gcopy);
        muon_tensor G = muon_tensor_matrix (MUON_F64, g[k], R, C);
        muon_tensor M = muon_tensor_matrix (MUON_F64, m, R, C);
        muon_tensor U = muon_tensor_matrix (MUON_F64, u, R, C);
        T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_OK);
        T_ASSERT (memcmp (gcopy, g[k], sizeof gcopy) == 0);       // G untouched
        for (int i = 0; i < N; i++)
        {
          mref[i] = form ? 0.9 * mref[i] + g[k][i] : 0.9 * mref[i] + (1 - 0.9) * g[k][i];
          x[i] = !nest ? mref[i] : form ? g[k][i] + 0.9 * mref[i]
                                        : (1 - 0.9) * g[k][i] + 0.9 * mref[i];
        }
        T_ASSERT_MSG (memcmp (m, mref, sizeof m) == 0, "momentum form %d nesterov %d step %d",
                      form, nest, k);
        muon_tensor X = muon_tensor_matrix (MUON_F64, x, R, C),
                    XN = muon_tensor_matrix (MUON_F64, x_ns, R, C);
        T_EQ_INT (muon_ns (ctx, &X, &XN, &o.ns), MUON_OK);
        double scale = 0.5 * sqrt (10.0), d = 0;
        for (int i = 0; i < N; i++) d = fmax (d, fabs (u[i] - scale * x_ns[i]));
        T_EQ_DBL (d, 0);                                          // same bits
      }
    }
  muon_ctx_destroy (&ctx);
}

// EMA and SGD give the same U to 1e-12 with eps = 0 (MUON_FACTS 8), and differ with eps
// when ||X|| is near eps.
static void test_ema_vs_sgd (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  double g[N], me[N] = { 0 }, ms[N] = { 0 }, ue[N], us[N];
  for (int scaled = 0; scaled < 2; scaled++)
    for (int eps0 = 0; eps0 < 2; eps0++)
    {
      fill (g, N, 5u);
      if (scaled)
        for (int i = 0; i < N; i++) g[i] *= 1e-8;                 // ||G|| ~ 4e-8, near eps
      memset (me, 0, sizeof me);
      memset (ms, 0, sizeof ms);
      muon_update_opts oe = fp64_opts (), os = fp64_opts ();
      os.form = MUON_MOMENTUM_SGD;
      oe.ns.eps = os.ns.eps = eps0 ? 0 : 1e-7;
      muon_tensor G = muon_tensor_matrix (MUON_F64, g, R, C);
      muon_tensor Me = muon_tensor_matrix (MUON_F64, me, R, C),
                  Ms = muon_tensor_matrix (MUON_F64, ms, R, C);
      muon_tensor Ue = muon_tensor_matrix (MUON_F64, ue, R, C),
                  Us = muon_tensor_matrix (MUON_F64, us, R, C);
      for (int k = 0; k < 3; k++)
      {
        T_EQ_INT (muon_update (ctx, &G, &Me, &Ue, &oe), MUON_OK);
        T_EQ_INT (muon_update (ctx, &G, &Ms, &Us, &os), MUON_OK);
      }
      double rel = max_abs_diff (ue, us, N) / fro (us, N);
      if (eps0)
        T_LE (rel, 1e-12);
      else if (scaled)
        T_ASSERT_MSG (rel > 1e-2, "near the eps floor EMA and SGD differ visibly (%g)", rel);
      else
        T_ASSERT_MSG (rel > 1e-9 && rel < 1e-5, "default eps: O(eps/||X||) (%g)", rel);
    }
  muon_ctx_destroy (&ctx);
}

// A fused (E*m) x n weight as E strided pages equals E separate calls, bitwise; split rows
// equal separate calls on the row blocks; a 3-D dense stack equals per-page calls.
static void test_blocks (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  enum { E = 3, m = 4, n = 7, FR = E * m };
  double w[FR * n], mw[FR * n] = { 0 }, uw[FR * n];
  fill (w, FR * n, 21u);
  for (int j = 0; j < n; j++)                      // expert 2 much larger: norms differ
    for (int i = m; i < 2 * m; i++) w[i + j * FR] *= 100;
  muon_update_opts o = fp64_opts ();
  o.scale = MUON_SCALE_RMS;
  muon_tensor G = { MUON_F64, MUON_DEVICE_CPU, m, n, E, FR, m, w };
  muon_tensor M = G, U = G;
  M.data = mw;
  U.data = uw;
  for (int k = 0; k < 2; k++)
    T_EQ_INT (muon_update (ctx, &G, &M, &U, &o), MUON_OK);
  for (int e = 0; e < E; e++)
  {
    double ge[m * n], me[m * n] = { 0 }, ue[m * n];
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++) ge[i + j * m] = w[e * m + i + j * FR];
    muon_tensor Ge = muon_tensor_matrix (MUON_F64, ge, m, n),
                Me = muon_tensor_matrix (MUON_F64, me, m, n),
                Ue = muon_tensor_matrix (MUON_F64, ue, m, n);
    for (int k = 0; k < 2; k++)
      T_EQ_INT (muon_update (ctx, &Ge, &Me, &Ue, &o), MUON_OK);
    int same = 1;
    for (int j = 0; j < n; j++)
      for (int i = 0; i < m; i++)
        same &= uw[e * m + i + j * FR] == ue[i + j * m]
                && mw[e * m + i + j * FR] == me[i + j * m];
    T_ASSERT_MSG (same, "expert %d differs from its own call", e);
  }

  // split rows [2 7 3] of a 12 x 7 matrix
  size_t split[3] = { 2, 7, 3 };
  double ms[FR * n] = { 0 }, us[FR * n];
  muon_update_opts os = o;
  os.split_rows = split;
  os.nsplit = 3;
  muon_tensor Gs = muon_tensor_matrix (MUON_F64, w, FR, n),
              Ms = muon_tensor_matrix (MUON_F64, ms, FR, n),
              Us = muon_tensor_matrix (MUON_F64, us, FR, n);
  T_EQ_INT (muon_update (ctx, &Gs, &Ms, &Us, &os), MUON_OK);
  size_t r0 = 0;
  for (int b = 0; b < 3; b++)
  {
    size_t rb = split[b];
    double gb[FR * n], mb[FR * n] = { 0 }, ub[FR * n];
    for (int j = 0; j < n; j++)
      for (size_t i = 0; i < rb; i++) gb[i + j * rb] = w[r0 + i + j * FR];
    muon_tensor Gb = muon_tensor_matrix (MUON_F64, gb, rb, n),
                Mb = muon_tensor_matrix (MUON_F64, mb, rb, n),
                Ub = muon_tensor_matrix (MUON_F64, ub, rb, n);
    T_EQ_INT (muon_update (ctx, &Gb, &Mb, &Ub, &o), MUON_OK);
    int same = 1;
    for (int j = 0; j < n; j++)
      for (size_t i = 0; i < rb; i++) same &= us[r0 + i + j * FR] == ub[i + j * rb];
    T_ASSERT_MSG (same, "row block %d differs from its own call", b);
    r0 += rb;
  }

  // scale_rows / scale_cols override: only the scale changes, by the closed-form ratio
  muon_update_opts oo = o;
  oo.scale = MUON_SCALE_KELLER;
  oo.scale_rows = 3;
  oo.scale_cols = 1;
  double m1[FR * n] = { 0 }, m2[FR * n] = { 0 }, u1[FR * n], u2[FR * n];
  muon_update_opts ok = oo;
  ok.scale_rows = ok.scale_cols = 0;
  muon_tensor M1 = muon_tensor_matrix (MUON_F64, m1, FR, n),
              M2 = muon_tensor_matrix (MUON_F64, m2, FR, n),
              U1 = muon_tensor_matrix (MUON_F64, u1, FR, n),
              U2 = muon_tensor_matrix (MUON_F64, u2, FR, n);
  T_EQ_INT (muon_update (ctx, &Gs, &M1, &U1, &oo), MUON_OK);
  T_EQ_INT (muon_update (ctx, &Gs, &M2, &U2, &ok), MUON_OK);
  double worst = 0;
  for (int i = 0; i < FR * n; i++)
    worst = fmax (worst, fabs (u1[i] - sqrt (3.0) / sqrt (12.0 / 7) * u2[i]));
  T_LE (worst, 1e-14);
  muon_ctx_destroy (&ctx);
}

// fp32 storage, and mixed: f64 gradient with f32 momentum and f64 update.
static void test_single (void)
{
  muon_ctx *ctx = NULL;
  muon_ctx_create (&ctx);
  double g[N], m64[N] = { 0 }, u64[N], u64b[N];
  float gf[N], mf[N] = { 0 }, uf[N], mmix[N] = { 0 };
  fill (g, N, 9u);
  for (int i = 0; i < N; i++) gf[i] = (float) g[i];
  muon_update_opts o;
  muon_update_opts_default (&o);                  // precision single
  muon_tensor G = muon_tensor_matrix (MUON_F64, g, R, C),
              M64 = muon_tensor_matrix (MUON_F64, m64, R, C),
              U64 = muon_tensor_matrix (MUON_F64, u64, R, C);
  muon_tensor Gf = muon_tensor_matrix (MUON_F32, gf, R, C),
              Mf = muon_tensor_matrix (MUON_F32, mf, R, C),
              Uf = muon_tensor_matrix (MUON_F32, uf, R, C);
  muon_tensor Mmix = muon_tensor_matrix (MUON_F32, mmix, R, C),
              U64b = muon_tensor_matrix (MUON_F64, u64b, R, C);
  for (int k = 0; k < 2; k++)
  {
    T_EQ_INT (muon_update (ctx, &G, &M64, &U64, &o), MUON_OK);
    T_EQ_INT (muon_update (ctx, &Gf, &Mf, &Uf, &o), MUON_OK);
    T_EQ_INT (muon_update (ctx, &G, &Mmix, &U64b, &o), MUON_OK);
  }
  double d = 0, dm = 0;
  for (int i = 0; i < N; i++)
  {
    float m1 = (float) (0.95 * 0.0 + (1 - 0.95) * g[i]);          // rounded once per step
    float m2 = (float) (0.95 * (double) m1 + (1 - 0.95) * g[i]);
    d = fmax (d, fabs ((double) uf[i] - u64[i]));
    dm = fmax (dm, fabs ((double) mmix[i] - (double) m2));
  }
  T_LE (d, 1e-5);
  T_EQ_DBL (dm, 0);                               // fp64 arithmetic, rounded once to fp32
  muon_ctx_destroy (&ctx);
}

int main (int argc, char **argv)
{
  (void) argc;
  T_RUN (test_defaults_names);
  T_RUN (test_math);
  T_RUN (test_momentum_and_u);
  T_RUN (test_ema_vs_sgd);
  T_RUN (test_blocks);
  T_RUN (test_single);
  return T_DONE (argv[0]);
}
