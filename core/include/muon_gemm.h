/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* muon_gemm.h - part of the public C API (included by muon.h): the CPU product providers
 * (core/gemm/): OpenBLAS, and oneDNN where it has kernels.
 */
#ifndef MUON_GEMM_H
#define MUON_GEMM_H

#include "muon_base.h"

#ifdef __cplusplus
extern "C" {
#endif

// Who computes the CPU products (core/gemm/gemm.c): auto = MUONLAB_GEMM's value when set, else
// oneDNN only for bf16 where it multiplies bf16 natively, OpenBLAS for everything else.
// Precision 'double' always runs on OpenBLAS (dgemm / dsyrk).
#define MUON_GEMM_LIST(X)                                                       \
  X (MUON_GEMM_AUTO,     0, "auto")                                             \
  X (MUON_GEMM_OPENBLAS, 1, "openblas")                                         \
  X (MUON_GEMM_ONEDNN,   2, "onednn")
typedef enum { MUON_GEMM_LIST (MUON_ENUM_ITEM) } muon_gemm_provider;

// The CPU GEMM providers (core/gemm/gemm.c, gemm_onednn.c): what runs here, and why.
typedef struct {
  int onednn_built;              // the build found oneDNN
  char provider[4][16];          // who runs each precision (muon_precision order: double,
                                 // single, bf16, fp16) under 'Gemm' auto: "onednn"/"openblas"
  char reason[4][128];           // and why (muon_gemm_choose)
  char env[64];                  // MUONLAB_GEMM as read once ("" when unset)
  int threads;                   // threads of a call with threads = 0
  int cores;                     // cores this process may run on
  int tile;                      // tile edge of the thread-invariant products
  char openblas[160];            // OpenBLAS config and core ("" when another BLAS)
  char onednn_version[64];       // "2.6.3 (commit ...)", or why not built
  char onednn_isa[48];           // the ISA oneDNN dispatches to ("avx512_core_bf16")
  char onednn_impl_f32[96];      // implementation of an fp32 matmul ("brg:avx512_core"), or
  char onednn_impl_bf16[96];     // of a bf16 x bf16 -> fp32 matmul: "no: <why>" when none
  int onednn_native_bf16;        // bf16 products multiply bf16 natively (else fp32 GEMM)
} muon_gemm_info;

// Fills info (never fails for a missing provider: that is reported in the struct).
muon_status muon_gemm_query (muon_ctx *ctx, muon_gemm_info *info);
// Sets OpenBLAS's own thread count to n (n > 0; 0 leaves it) and returns the count it had
// (tests/octave/ref_ns.m runs its products on one BLAS thread, as each tile here is).
// While muon_ns calls of other threads are running (OpenBLAS held at one thread), it
// returns and sets the count the last of them puts back instead.
// UNSUPPORTED when the BLAS is not OpenBLAS.  [out] *previous.
muon_status muon_gemm_blas_threads (muon_ctx *ctx, int n, int *previous);

#ifdef __cplusplus
}
#endif
#endif
