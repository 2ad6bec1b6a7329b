/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* cuda_state.h - what the parts of libmuon_cuda.so share (C++, CUDA): the error macros, the
 * per-context device state, and the entry points each part gives the others.
 *   ns_cuda.cu   Newton-Schulz on pages of host or device tensors (ns_pages), the pages of
 *                a device stack on the lanes; one page's iteration in ns_cuda_iter.cu
 *                (ns_cuda_iter.h), the kernels of both in ns_cuda_kernels.h
 *   dev_cuda.cu  the state's life (lanes included), pinned staging, host copies on
 *                threads, copies, conversions, fills, timing, and the ABI table
 *   pool_cuda.cu the buffers grown on demand and the caching pool of device blocks
 *   opt_cuda.cu  the Muon update and the AdamW step on device tensors
 *   dmem_cuda.cu the raw-memory steps of the device ZeRO step (core/math/dmem.c)
 * Nothing here is seen outside the plug-in (ns_cuda_abi.h is the only interface).
 */
#ifndef MUON_CUDA_STATE_H
#define MUON_CUDA_STATE_H

#include <cstdint>
#include <cstdio>
#include <cstring>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "ns_cuda_abi.h"
#include "ns_cuda_norm.h"

namespace muon_cuda {

//---- errors -------------------------------------------------------------------------------

// Where a message goes: the caller's msg / len of the ABI.
struct errbuf {
  char *msg;
  size_t len;
};

inline muon_status fail_with (errbuf &E, muon_status code, const char *file, int line,
                              const char *call, const char *text)
{
  if (E.msg && E.len)
    snprintf (E.msg, E.len, "%s:%d: %.*s: %s", file, line, (int) strcspn (call, " ("), call,
              text);
  return code;
}

// Each returns from the enclosing function (which returns muon_status and has `E` in scope).
// An allocation the card cannot hold is MUON_ERR_DEVMEM (muonlab:outOfMemory).
#define CUDA_TRY(call)                                                              \
  do {                                                                              \
    cudaError_t e_ = (call);                                                        \
    if (e_ != cudaSuccess)                                                          \
    {                                                                               \
      muon_status code_ = e_ == cudaErrorMemoryAllocation ? MUON_ERR_DEVMEM         \
                                                          : MUON_ERR_CUDA;          \
      cudaGetLastError ();        /* clear the slot: a stale error fails no next call */ \
      return muon_cuda::fail_with (E, code_, __FILE__, __LINE__, #call,             \
                                   cudaGetErrorString (e_));                        \
    }                                                                               \
  } while (0)

#define CUBLAS_TRY(call)                                                            \
  do {                                                                              \
    cublasStatus_t e_ = (call);                                                     \
    if (e_ != CUBLAS_STATUS_SUCCESS)                                                \
      return muon_cuda::fail_with (E, MUON_ERR_CUBLAS, __FILE__, __LINE__, #call,   \
                                   cublasGetStatusString (e_));                     \
  } while (0)

// A kernel launch (the <<<...>>> commas need __VA_ARGS__), then its launch error.
#define LAUNCH(...)                                                                 \
  do {                                                                              \
    __VA_ARGS__;                                                                    \
    CUDA_TRY (cudaGetLastError ());                                                 \
  } while (0)

#define TRY(call)                                                                   \
  do {                                                                              \
    muon_status s_ = (call);                                                        \
    if (s_ != MUON_OK) return s_;                                                   \
  } while (0)

//---- state --------------------------------------------------------------------------------

const int THREADS = 256;      // threads per block of every kernel
const int NORM_BLOCKS = 256;  // blocks of the norm reduction (fixed: a deterministic sum)
// A page's norm scratch (doubles): k_sumsq's three reductions of NORM_BLOCKS blocks each,
// then the page's scalars (ns_cuda_norm.h) at NORM_SCAL.
const int NORM_SCAL = 3 * NORM_BLOCKS;
const int NORM_SCRATCH = NORM_SCAL + NORM_SCALARS;

// One block of device memory the pool knows: live (held by an array) or free (cached).
struct block {
  void *ptr;
  size_t bytes;
};

struct block_list {
  block *at;
  size_t count, cap;
};

// Compute streams a stack of device pages is spread over, page e on lane e % LANES: one
// page's products leave most of a large GPU idle below n of a few thousand, and pages are
// independent.  Each lane has all a page's NS writes (its own cuBLAS handle and workspace,
// work buffers, norm scratch), so a page runs the same kernels on any lane: same bits.
const int LANES = 4;

struct lane {
  cudaStream_t stream;
  cublasHandle_t blas;
  void *blas_work;             // cuBLAS's workspace, ours so that a graph capture allocates nothing
  void *work;                  // X, Y (n x m each), S1..S5 (n x n each): double, float or
                               // the 16-bit patterns of bf16 / fp16
  size_t work_bytes;
  double *small;               // a page's norm scratch (NORM_SCRATCH doubles)
  cudaEvent_t done;            // the lane's last page, for the main stream to wait on
};

struct ns_state {
  int device;                  // the device current when the state was made
  cudaStream_t stream;         // compute: lane 0, and everything that is not a page
  cudaStream_t copy;           // host <-> device copies of staged pages
  cublasHandle_t blas;
  void *blas_work;             // cuBLAS's workspace, ours so that a graph capture allocates nothing
  void *work;                  // X, Y (n x m each), S1..S5 (n x n each): double, float or
                               // the 16-bit patterns of bf16 / fp16
  size_t work_bytes;
  double *small;               // a page's norm scratch, then bad and bad_scaled
  lane extra[LANES - 1];       // lanes 1.. (made on first use)
  cudaEvent_t begun;           // a call's start on the main stream, for lanes 1.. to wait on
  void *page_in[2];            // two staged pages of G as stored, packed rows x cols
  void *page_out[2];           // two staged pages of X
  size_t in_bytes[2], out_bytes[2];
  void *pin_in[2], *pin_out[2];  // pinned host staging of the same sizes
  size_t pin_in_bytes[2], pin_out_bytes[2];
  cudaEvent_t in_ready[2], in_used[2], out_ready[2], out_copied[2];
  cudaEvent_t t_start, t_stop;  // around the last ns or update
  int timed;                   // t_start / t_stop hold a measurement
  void *chunk[2];              // pinned chunks of the array copies (dev_cuda.cu)
  size_t chunk_bytes[2];
  cudaEvent_t chunk_done[2];
  unsigned long long *bad;     // non-finite count of the batch (after small)
  unsigned long long *bad_scaled;  // non-finite count of an update's scaled blocks
  block_list live, cached;     // the caching pool (pool_cuda.cu)
  ns_state *next_state;        // the plug-in's list of every state of the process (one per
                               // context: each MEX file's, which trim_entry reaches)
};

// Grows a device buffer to at least `bytes` (contents are not kept; pool_cuda.cu); a card
// without room gets s's kept pool blocks back and one more try, then MUON_ERR_DEVMEM.
muon_status grow (ns_state *s, errbuf &E, void **buf, size_t *cap, size_t bytes);
// cudaMalloc with that retry and message (grow's allocation, and compute_init's).
muon_status dev_malloc (ns_state *s, errbuf &E, void **buf, size_t bytes);
// Every buffer s grew (work buffers of s and its lanes, staged pages, pinned staging and
// chunks) back to the driver and the host, after the device is idle (pool_cuda.cu).
void buffers_free (ns_state *s);
// A device block of at least `bytes` from s's caching pool (pool_cuda.cu; MUON_ERR_DEVMEM
// when the card has no room even after the pool's free blocks went back), and its return.
muon_status pool_alloc (ns_state *s, errbuf &E, size_t bytes, void **ptr);
void pool_free (ns_state *s, void *ptr);
// Every kept block back to the driver (after the device is idle).
void pool_trim (ns_state *s);
// A pool list: its k-th block taken out (the last one moves into its place); its bytes.
block list_take (block_list *l, size_t k);
size_t list_bytes (const block_list *l);

// Lane i (1 <= i < LANES) of s, made on first use, its work buffer grown to work_bytes.
muon_status lane_get (errbuf &E, ns_state *s, int i, size_t work_bytes, lane **out);

// Grows a pinned host buffer likewise (s: the state it belongs to; when the host has no
// pinned memory left, the other states' buffers go back first and it tries once more).
muon_status grow_pinned (ns_state *s, errbuf &E, void **buf, size_t *cap, size_t bytes);
// What the process's other states on s's device hold between calls (their kept pool blocks
// and grown buffers) back to the driver and the host: the retry of an allocation that
// failed (dev_cuda.cu, which keeps the list of states).
void others_give_back (ns_state *s);

// Host memory to host memory (pageable and pinned alike): `cols` columns of w bytes from
// src (column stride ss bytes) to dst (stride ds), split over up to 8 threads when there are
// more than 4 MB.  One thread's memcpy moves pageable memory at a fraction of the rate of a
// pinned copy to the device, and the first write into a new result array faults its pages.
void copy_columns (void *dst, size_t ds, const void *src, size_t ss, size_t w, size_t cols);
// The same for one contiguous range of bytes.
void host_copy (void *dst, const void *src, size_t bytes);

// The state of *state, made on first use (NODEVICE with the runtime's text when there is no
// device), with its device made current.
muon_status state_get (errbuf &E, void **state, ns_state **out);

// NS on every page of G into X (both host tensors, or both device tensors: the `device` of
// the tensor says), on s's compute stream; host pages staged through pinned buffers on the
// copy stream, page k+1's copy under page k's NS.  [out] *bad: non-finite values stored.
// Returns with the results in place (host) or queued on s->stream (device).
muon_status ns_pages (ns_state *s, errbuf &E, const muon_tensor *G, muon_tensor *X,
                      const muon_ns_opts *o, const double *coef, int steps,
                      unsigned long long *bad);

// The entries of ns_cuda.cu for the ABI table (dev_cuda.cu fills it).
muon_status device_query (int *count, char *name, size_t len);
muon_status ns_entry (void **state, const muon_tensor *G, muon_tensor *X,
                      const muon_ns_opts *o, const double *coef, int steps, char *msg,
                      size_t len);

// The opening of an ABI entry that takes `void **state` and `char *msg, size_t len`: E,
// the message buffer (msg may be NULL), and s, the state (made on first use).
// The start of an entry: its errbuf and the state (declares E and s).
#define ENTRY_STATE()                                                               \
  char dummy_[1];                                                                   \
  errbuf E = {msg ? msg : dummy_, msg ? len : sizeof dummy_};                       \
  if (E.len)                                                                        \
    E.msg[0] = '\0';                                                                \
  if (state == NULL)                                                                \
  {                                                                                 \
    snprintf (E.msg, E.len, "state must not be NULL");                              \
    return MUON_ERR_NULLPTR;                                                        \
  }                                                                                 \
  ns_state *s = NULL;                                                               \
  TRY (state_get (E, state, &s))

// The entries of opt_cuda.cu for the ABI table.
muon_status update_entry (void **state, const muon_tensor *G, muon_tensor *M, muon_tensor *U,
                          const muon_update_opts *o, const double *coef, int steps, char *msg,
                          size_t len);
muon_status adamw_entry (void **state, muon_tensor *P, const muon_tensor *G, muon_tensor *M,
                         muon_tensor *V, const double coef[7], char *msg, size_t len);
muon_status ew_entry (void **state, int op, const void *x, const void *y, double a, void *z,
                      int st, size_t n, char *msg, size_t len);
muon_status sumsq_entry (void **state, const void *x, const void *y, int st, size_t n,
                         double *sumsq, int *finite, char *msg, size_t len);

// The entries of dmem_cuda.cu for the ABI table.
muon_status rm_copy_entry (void **state, int to_rm, double *A, size_t rows, size_t cols,
                           size_t k0, size_t k1, double *R, char *msg, size_t len);
muon_status block_sum_entry (void **state, const double *in, int W, size_t stride, size_t n,
                             double div, double *out, char *msg, size_t len);
muon_status momentum_entry (void **state, int form, double beta, int nesterov, double *m,
                            double *x, size_t n, char *msg, size_t len);

// A grid for a grid-stride loop over len elements.
inline unsigned grid_for (size_t len)
{
  size_t blocks = (len + THREADS - 1) / THREADS;
  return (unsigned) (blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

#define FOR_EACH(i, len)                                                            \
  for (size_t i = (size_t) blockIdx.x * blockDim.x + threadIdx.x; i < (len);        \
       i += (size_t) gridDim.x * blockDim.x)

}  // namespace muon_cuda

#endif
