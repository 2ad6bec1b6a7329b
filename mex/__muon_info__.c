/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

#define USAGE "usage: INFO = __muon_info__ ()"
/* __muon_info__ - gateway of muon_info.m: which back ends are built and usable, the BLAS,
 * the CPU GEMM providers, and the names of the coefficient schedules.
 */
#include "muon_mex.h"

enum { IN_END };
enum { OUT_INFO, OUT_END };

void mexFunction (int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[])
{
  const char *fname = "muon_info";
  if (nrhs != IN_END || nlhs > OUT_END)
    muon_mex_error (fname, "badArg", "%s.", USAGE);
  muon_backend_info info;
  muon_mex_check (fname, muon_backend_query (muon_mex_ctx (), &info));
  const char *fields[] = { "cuda_built", "cuda_usable", "cuda_devices", "cuda_message",
                           "blas", "schedules" };
  mxArray *s = mxCreateStructMatrix (1, 1, 6, fields);
  mxSetField (s, 0, "cuda_built", mxCreateLogicalScalar (info.cuda_built));
  mxSetField (s, 0, "cuda_usable", mxCreateLogicalScalar (info.cuda_usable));
  mxSetField (s, 0, "cuda_devices", mxCreateDoubleScalar (info.cuda_device_count));
  mxSetField (s, 0, "cuda_message", mxCreateString (info.cuda_message));
  mxSetField (s, 0, "blas", mxCreateString (info.blas));
  int n = muon_coeffs_count ();
  mxArray *names = mxCreateCellMatrix (1, n);
  for (int i = 0; i < n; i++)
    mxSetCell (names, i, mxCreateString (muon_coeffs_name (i)));
  mxSetField (s, 0, "schedules", names);
  // the CPU GEMM providers (core/gemm/gemm.c): a nested struct "gemm"
  muon_gemm_info g;
  muon_mex_check (fname, muon_gemm_query (muon_mex_ctx (), &g));
  const char *gf[] = { "provider", "reason", "env", "onednn_built", "onednn_version",
                       "onednn_isa", "onednn_impl_f32", "onednn_impl_bf16",
                       "onednn_native_bf16", "openblas", "threads", "cores", "tile" };
  mxArray *gs = mxCreateStructMatrix (1, 1, 13, gf);
  // provider / reason: one field per precision (the core's list, in muon_precision's order)
  mxArray *prov = mxCreateStructMatrix (1, 1, 0, NULL);
  mxArray *why = mxCreateStructMatrix (1, 1, 0, NULL);
  for (int p = 0; p < muon_list_size (MUON_LIST_PRECISION); p++)
  {
    const char *pf = muon_names (MUON_LIST_PRECISION, p);
    mxAddField (prov, pf);
    mxAddField (why, pf);
    mxSetField (prov, 0, pf, mxCreateString (g.provider[p]));
    mxSetField (why, 0, pf, mxCreateString (g.reason[p]));
  }
  mxSetField (gs, 0, "provider", prov);
  mxSetField (gs, 0, "reason", why);
  mxSetField (gs, 0, "env", mxCreateString (g.env));
  mxSetField (gs, 0, "onednn_built", mxCreateLogicalScalar (g.onednn_built));
  mxSetField (gs, 0, "onednn_version", mxCreateString (g.onednn_version));
  mxSetField (gs, 0, "onednn_isa", mxCreateString (g.onednn_isa));
  mxSetField (gs, 0, "onednn_impl_f32", mxCreateString (g.onednn_impl_f32));
  mxSetField (gs, 0, "onednn_impl_bf16", mxCreateString (g.onednn_impl_bf16));
  mxSetField (gs, 0, "onednn_native_bf16", mxCreateLogicalScalar (g.onednn_native_bf16));
  mxSetField (gs, 0, "openblas", mxCreateString (g.openblas));
  mxSetField (gs, 0, "threads", mxCreateDoubleScalar (g.threads));
  mxSetField (gs, 0, "cores", mxCreateDoubleScalar (g.cores));
  mxSetField (gs, 0, "tile", mxCreateDoubleScalar (g.tile));
  mxAddField (s, "gemm");
  mxSetField (s, 0, "gemm", gs);
  plhs[OUT_INFO] = s;
}
