/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_cuda_abi.h - the ABI between libmuon (CPU, always built) and libmuon_cuda.so (CUDA, cuBLAS,
 * NCCL; built when nvcc is found and opened with dlopen on first use, the way ggml loads its
 * back ends).  Nothing here includes a CUDA header, so libmuon.a and the MEX files never link
 * CUDA.  The shared object exports one symbol, muon_cuda_get_api; every entry returns a
 * muon_status and writes a message into msg (len bytes) on failure.
 */
#ifndef MUON_NS_CUDA_ABI_H
#define MUON_NS_CUDA_ABI_H

#include "muon_math.h"
#include "plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

#define MUON_CUDA_ABI 7

// Directions of copy.
enum { MUON_COPY_H2D = 0, MUON_COPY_D2H = 1, MUON_COPY_D2D = 2 };

// Every entry that takes `void **state` creates the per-context device state on first use
// (cuBLAS handle, two streams, the caching pool of device blocks, pinned staging buffers,
// timing events) on the device current then; `release` frees it.  Device pointers are those
// of alloc; storage classes are muon_precision values (muon_darray_math.h).
typedef struct muon_cuda_api {
  int abi;  // MUON_CUDA_ABI of the shared object
  // [out] *count devices; [out] name: device 0's name and compute capability.  NODEVICE when
  // the driver or a device is missing.
  muon_status (*device_query) (int *count, char *name, size_t len);
  // X = NS (G); coef is steps x 3 (already expanded).  G and X are host tensors (pages staged
  // through pinned buffers, the copy of page k+1 overlapped with the NS of page k), or device
  // tensors when their `device` field is MUON_DEVICE_CUDA (no copy at all).
  muon_status (*ns) (void **state, const muon_tensor *G, muon_tensor *X,
                     const muon_ns_opts *o, const double *coef, int steps, char *msg,
                     size_t len);
  // Frees a state made by any entry (NULL is fine).
  void (*release) (void *state);
  // [out] *ptr: bytes of device memory from the caching pool (MUON_ERR_DEVMEM when the card
  // has no room even after the pool's free blocks went back to the driver).
  muon_status (*alloc) (void **state, size_t bytes, void **ptr, char *msg, size_t len);
  // Returns a block of alloc to the pool (NULL is fine).
  void (*free) (void *state, void *ptr);
  // Copies bytes between host and device (dir MUON_COPY_*); a host side is staged through
  // the pinned buffers; returns when the data is in place.
  muon_status (*copy) (void **state, void *dst, const void *src, size_t bytes, int dir,
                       char *msg, size_t len);
  // dst[i] = src[i] for n elements, converted from storage class st to dt on the device.
  muon_status (*convert) (void **state, void *dst, int dt, const void *src, int st, size_t n,
                          char *msg, size_t len);
  // n elements of storage class st: zeros (kind 0) or the normal stream of seed (kind 1).
  muon_status (*fill) (void **state, void *ptr, int st, size_t n, int kind, uint64_t seed,
                       char *msg, size_t len);
  // One Muon update on device tensors (update.c's order): M = step (M, G), X = nesterov or M,
  // U = scale * NS (X) per block (each page, cut by o->split_rows).  M NULL: no momentum,
  // X = G (muon_update_orthogonalize).  Bad steps, precision or row blocks are refused
  // before anything is queued: M is left as it was.
  muon_status (*update) (void **state, const muon_tensor *G, muon_tensor *M, muon_tensor *U,
                         const muon_update_opts *o, const double *coef, int steps, char *msg,
                         size_t len);
  // One AdamW step on device tensors P, G, M, V of one dtype (muon_darray_adamw).
  muon_status (*adamw) (void **state, muon_tensor *P, const muon_tensor *G, muon_tensor *M,
                        muon_tensor *V, const double coef[7], char *msg, size_t len);
  // z = x op y (op 0 / 1: add, sub), x op a (mul, div) or fma (a, x, y) (op 4) for n
  // elements of storage class st (muon_ew_op, muon_darray_ew); y NULL for mul and div; z
  // may be x or y.
  muon_status (*ew) (void **state, int op, const void *x, const void *y, double a, void *z,
                     int st, size_t n, char *msg, size_t len);
  // [out] *sumsq (fp64, a fixed reduction tree) and *finite of the n elements of x, or of
  // the differences x - y in class st (muon_darray_sumsq).
  muon_status (*sumsq) (void **state, const void *x, const void *y, int st, size_t n,
                        double *sumsq, int *finite, char *msg, size_t len);
  // Row-major elements [k0, k1) of the column-major rows x cols double matrix A to R
  // (to_rm 1: R[k - k0] = element k) or back (to_rm 0: element k = R[k - k0]).
  muon_status (*rm_copy) (void **state, int to_rm, double *A, size_t rows, size_t cols,
                          size_t k0, size_t k1, double *R, char *msg, size_t len);
  // out[i] = muon_block_sum_at (in, W, stride, div, i) for i < n (doubles; out may be in
  // only when W is 1 or stride >= n: the threads write out while others read in).
  muon_status (*block_sum) (void **state, const double *in, int W, size_t stride, size_t n,
                            double div, double *out, char *msg, size_t len);
  // For i < n (doubles): g = x[i], m[i] = muon_momentum_step (form, beta, m[i], g), x[i] =
  // the Newton-Schulz input (muon_nesterov_input when nesterov, else m[i]).
  muon_status (*momentum) (void **state, int form, double beta, int nesterov, double *m,
                           double *x, size_t n, char *msg, size_t len);
  // The copy floor: the time of one pinned host -> device and one device -> pinned host copy
  // of `bytes` (CUDA events; buffers from the pool and the staging, kept).
  muon_status (*copy_time) (void **state, size_t bytes, double *h2d_ms, double *d2h_ms,
                            char *msg, size_t len);
  // Waits for the device and gives the time of the last ns or update in ms (CUDA events).
  muon_status (*last_ms) (void *state, double *ms);
  // Returns the free pool blocks and grown buffers of every state of the process (each
  // context's; `state` may be NULL) to the driver; [out] their bytes in use and cached after.
  muon_status (*trim) (void *state, size_t *in_use, size_t *cached);
} muon_cuda_api;

// Exported by libmuon_cuda.so, a muon_plugin_entry_fn (plugin.h): [out] api, a
// muon_cuda_api.  MUON_ERR_NOTBUILT on an ABI mismatch.
muon_status muon_cuda_get_api (int abi, void *api);

#ifdef __cplusplus
}
#endif
#endif
