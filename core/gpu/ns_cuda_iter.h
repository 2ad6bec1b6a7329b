/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_cuda_iter.h - one page's Newton-Schulz iteration on an NVIDIA GPU (ns_cuda_iter.cu), as
 * the pages of ns_cuda.cu run it: the run of a page (its lane, precision and shape), the
 * layout of the work buffer, and iterate / capture, instantiated for double, float and
 * uint16_t (the bits of bf16 / fp16 values) work buffers.
 */
#ifndef MUON_NS_CUDA_ITER_H
#define MUON_NS_CUDA_ITER_H

#include "cuda_state.h"
#include "ns_cuda_steps.h"

namespace muon_cuda {

struct run {
  ns_state *s;
  errbuf E;
  int p;                       // muon_precision
  size_t n, m;                 // the page after the transpose rule, n <= m
  int sym_blocks;              // k: 16-bit symmetric products as k x k blocks (gram_blocks)
  int fused;                   // scale-adds in the products' epilogues (muon_ns_opts.fused)
  cudaStream_t st;             // the lane the page runs on: its stream, cuBLAS handle and
  cublasHandle_t blas;         // norm scratch
  double *small;
  int pages;                   // pages iterated together (muon_ns_opts.batched), 1 otherwise:
  size_t sx, sn;               // then each kind of work array holds them one after another,
};                             // sx (n x m) or sn (n x n) elements apart

// The blocks per side k of a 16-bit symmetric product (gram_blocks: the upper triangle only,
// k (k + 1) / 2 of the k^2 blocks): muon_ns_opts.sym_blocks where given, else 2 (three
// quarters of the work) where each block, a quarter of the output tiles, still fills the
// GPU: n >= 4096, or n >= 2048 on a stack whose lanes run blocks side by side; else 1.  The
// rule sees only the shape, so host and device arrays get the same bits.
inline int sym_blocks_for (size_t n, size_t pages, int given)
{
  if (given > 0)
    return given;
  return n >= 4096 || (n >= 2048 && pages >= (size_t) LANES) ? 2 : 1;
}

// The iteration of one page in X (n x m); work after X: Y (n x m), S1..S5 (n x n each).
template <typename T>
muon_status iterate (run &R, const muon_ns_opts *o, const double *coef, int steps,
                     int use_gram, T *X);

// The same iteration captured as a CUDA graph in *exec (NULL where capture fails: the pages
// then run iterate directly).
template <typename T>
muon_status capture (run &R, const muon_ns_opts *o, const double *coef, int steps,
                     int use_gram, T *X, cudaGraphExec_t *exec);

}  // namespace muon_cuda

#endif
