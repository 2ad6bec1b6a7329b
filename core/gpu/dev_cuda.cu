/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* dev_cuda.cu - the device half of libmuon_cuda.so that serves the device arrays
 * (core/math/darray.c): the per-context state's life, pinned staging of array copies,
 * conversions between storage classes, fills, event timing, and the ABI table
 * (ns_cuda_abi.h).  The caching pool of device blocks is pool_cuda.cu's; the Muon update
 * and AdamW are in opt_cuda.cu.
 */
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "cuda_state.h"
#include "plugin.h"
#include "muon_darray_math.h"
#include "tensor_check.h"

namespace muon_cuda {

//---- the state ----------------------------------------------------------------------------

// A compute stream with its cuBLAS handle (on that stream, on a workspace of ours, every
// lane configured alike so that a page gets the same products on any) and norm scratch.
muon_status compute_init (ns_state *s, errbuf &E, cudaStream_t *stream, cublasHandle_t *blas,
                          void **blas_work, double **small, size_t small_count)
{
  CUDA_TRY (cudaStreamCreateWithFlags (stream, cudaStreamNonBlocking));
  CUBLAS_TRY (cublasCreate (blas));
  CUBLAS_TRY (cublasSetStream (*blas, *stream));
  // No TF32 and no reduced-precision split-K reduction: every product accumulates in fp32
  // (or fp64), as the rounding model assumes.
  CUBLAS_TRY (cublasSetMathMode (*blas, (cublasMath_t) (CUBLAS_DEFAULT_MATH
                                 | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)));
  const size_t bytes = (size_t) 32 << 20;        // what cuBLAS advises for Hopper
  TRY (dev_malloc (s, E, blas_work, bytes));
  CUBLAS_TRY (cublasSetWorkspace (*blas, *blas_work, bytes));
  TRY (dev_malloc (s, E, (void **) small, small_count * sizeof (double)));
  return MUON_OK;
}

void compute_free (cudaStream_t stream, cublasHandle_t blas, void *blas_work, double *small,
                   void *work)
{
  if (blas)
    cublasDestroy (blas);
  cudaFree (blas_work);                           // after the handle that uses it
  cudaFree (small);
  cudaFree (work);
  if (stream)
    cudaStreamDestroy (stream);
}

// Every state made and not freed, whichever context holds it: the library is loaded once
// per process, so a trim through one MEX file's context reaches the buffers another's host
// calls grew.  Octave calls one gateway at a time, so the list needs no lock.
static ns_state *all_states = NULL;

void others_give_back (ns_state *self)
{
  for (ns_state *s = all_states; s; s = s->next_state)
    if (s != self && s->device == self->device)
    {
      pool_trim (s);
      buffers_free (s);           // Octave runs one gateway at a time: s is between calls
    }
}

void state_free (ns_state *s)
{
  if (s == NULL)
    return;
  for (ns_state **p = &all_states; *p; p = &(*p)->next_state)
    if (*p == s)
    {
      *p = s->next_state;
      break;
    }
  cudaSetDevice (s->device);
  cudaDeviceSynchronize ();
  for (int b = 0; b < 2; b++)
  {
    cudaFree (s->page_in[b]);
    cudaFree (s->page_out[b]);
    cudaFreeHost (s->pin_in[b]);
    cudaFreeHost (s->pin_out[b]);
    cudaFreeHost (s->chunk[b]);
  }
  cudaEvent_t *ev[] = { s->in_ready, s->in_used, s->out_ready, s->out_copied, s->chunk_done };
  for (cudaEvent_t *e : ev)
    for (int b = 0; b < 2; b++)
      if (e[b])
        cudaEventDestroy (e[b]);
  if (s->t_start)
    cudaEventDestroy (s->t_start);
  if (s->t_stop)
    cudaEventDestroy (s->t_stop);
  if (s->begun)
    cudaEventDestroy (s->begun);
  for (lane &l : s->extra)
  {
    if (l.done)
      cudaEventDestroy (l.done);
    compute_free (l.stream, l.blas, l.blas_work, l.small, l.work);
  }
  while (s->live.count)
    cudaFree (list_take (&s->live, 0).ptr);
  pool_trim (s);
  free (s->live.at);
  free (s->cached.at);
  compute_free (s->stream, s->blas, s->blas_work, s->small, s->work);
  if (s->copy)
    cudaStreamDestroy (s->copy);
  free (s);
}

void copy_columns (void *dst, size_t ds, const void *src, size_t ss, size_t w, size_t cols)
{
  char *to = (char *) dst;
  const char *from = (const char *) src;
  auto part = [=] (size_t j0, size_t j1) {
    if (ds == w && ss == w)
      memcpy (to + j0 * w, from + j0 * w, (j1 - j0) * w);
    else
      for (size_t j = j0; j < j1; j++)
        memcpy (to + j * ds, from + j * ss, w);
  };
  size_t hw = std::thread::hardware_concurrency ();
  size_t nt = w * cols < ((size_t) 4 << 20) || hw < 2 ? 1 : hw < 8 ? hw : 8;
  nt = nt < cols ? nt : 1;
  std::vector<std::thread> pool;
  size_t started = 1;
  try                               // no exception may leave the plug-in's C entries
  {
    for (; started < nt; started++)
      pool.emplace_back (part, cols * started / nt, cols * (started + 1) / nt);
  }
  catch (...)                       // no thread (or no memory for one): the rest copied here
  {
  }
  part (0, cols / nt);
  for (size_t t = started; t < nt; t++)
    part (cols * t / nt, cols * (t + 1) / nt);
  for (std::thread &th : pool)
    th.join ();
}

void host_copy (void *dst, const void *src, size_t bytes)
{
  const size_t col = 1 << 16;                     // 64 KB columns, then the tail
  size_t cols = bytes / col;
  copy_columns (dst, col, src, col, col, cols);
  memcpy ((char *) dst + cols * col, (const char *) src + cols * col, bytes - cols * col);
}

muon_status lane_get (errbuf &E, ns_state *s, int i, size_t work_bytes, lane **out)
{
  lane *l = &s->extra[i - 1];
  if (l->stream == NULL)
  {
    muon_status st = compute_init (s, E, &l->stream, &l->blas, &l->blas_work, &l->small,
                                   NORM_SCRATCH);
    if (st == MUON_OK && cudaEventCreateWithFlags (&l->done, cudaEventDisableTiming)
                         != cudaSuccess)
      st = fail_with (E, MUON_ERR_CUDA, __FILE__, __LINE__, "cudaEventCreateWithFlags",
                      cudaGetErrorString (cudaGetLastError ()));
    if (st != MUON_OK)
    {
      compute_free (l->stream, l->blas, l->blas_work, l->small, l->work);
      memset (l, 0, sizeof *l);
      return st;
    }
  }
  TRY (grow (s, E, &l->work, &l->work_bytes, work_bytes));
  *out = l;
  return MUON_OK;
}

muon_status state_init (errbuf &E, ns_state *s)
{
  CUDA_TRY (cudaGetDevice (&s->device));
  TRY (compute_init (s, E, &s->stream, &s->blas, &s->blas_work, &s->small, NORM_SCRATCH + 2));
  CUDA_TRY (cudaStreamCreateWithFlags (&s->copy, cudaStreamNonBlocking));
  CUDA_TRY (cudaEventCreateWithFlags (&s->begun, cudaEventDisableTiming));
  s->bad = (unsigned long long *) (s->small + NORM_SCRATCH);
  s->bad_scaled = (unsigned long long *) (s->small + NORM_SCRATCH + 1);
  cudaEvent_t *ev[] = { s->in_ready, s->in_used, s->out_ready, s->out_copied, s->chunk_done };
  for (cudaEvent_t *e : ev)
    for (int b = 0; b < 2; b++)
      CUDA_TRY (cudaEventCreateWithFlags (&e[b], cudaEventDisableTiming));
  CUDA_TRY (cudaEventCreate (&s->t_start));
  CUDA_TRY (cudaEventCreate (&s->t_stop));
  return MUON_OK;
}

muon_status state_get (errbuf &E, void **state, ns_state **out)
{
  ns_state *s = (ns_state *) *state;
  if (s == NULL)                                  // first use
  {
    char why[200];
    int count = 0;
    if (device_query (&count, why, sizeof why) == MUON_ERR_NODEVICE)
    {                                             // as the loader reports it: not a CUDA error
      snprintf (E.msg, E.len, "no CUDA device (%s)", why);
      return MUON_ERR_NODEVICE;
    }
    // under mpirun (muon_mpirun), local rank r works on device r % count, as the NCCL
    // communicator places it; alone, the device current now
    if (muon_node_rank (-1) >= 0)
      CUDA_TRY (cudaSetDevice (muon_node_rank (0) % count));
    s = (ns_state *) calloc (1, sizeof *s);
    if (s == NULL)
    {
      snprintf (E.msg, E.len, "out of memory allocating the CUDA state");
      return MUON_ERR_NOMEM;
    }
    muon_status st = state_init (E, s);
    if (st != MUON_OK)
    {
      state_free (s);
      return st;
    }
    s->next_state = all_states;
    all_states = s;
    *state = s;
  }
  CUDA_TRY (cudaSetDevice (s->device));
  *out = s;
  return MUON_OK;
}

//---- kernels ------------------------------------------------------------------------------

__global__ void k_convert (void *dst, int dt, const void *src, int st, size_t n)
{
  FOR_EACH (i, n)
    muon_elem_store (dt, dst, i, muon_elem_load (st, src, i));
}

__global__ void k_randn (void *dst, int st, size_t n, uint64_t seed)
{
  FOR_EACH (i, n)
    muon_elem_store (st, dst, i, muon_randn_at (seed, i));
}

// The momentum step and the Newton-Schulz input of every element (update.c step 1): M is
// rounded once into its type, X (dense, fp64; NULL without Nesterov) is formed from the
// stored M.
//---- entries ------------------------------------------------------------------------------

muon_status alloc_entry (void **state, size_t bytes, void **ptr, char *msg, size_t len)
{
  ENTRY_STATE ();
  if (ptr == NULL)
  {
    snprintf (E.msg, E.len, "ptr must not be NULL");
    return MUON_ERR_NULLPTR;
  }
  return pool_alloc (s, E, bytes, ptr);
}

void free_entry (void *state, void *ptr)
{
  if (state && ptr)
    pool_free ((ns_state *) state, ptr);
}

// Host <-> device through two pinned chunks: the host fills (or drains) one chunk while the
// copy stream moves the other.
const size_t CHUNK = (size_t) 32 << 20;

// The copy itself (copy_entry); an error may leave chunks queued on s->copy.
static muon_status copy_run (ns_state *s, errbuf &E, void *dst, const void *src, size_t bytes,
                             int dir)
{
  CUDA_TRY (cudaStreamSynchronize (s->stream));   // no kernel still using the array
  if (dir == MUON_COPY_D2D)
  {
    CUDA_TRY (cudaMemcpyAsync (dst, src, bytes, cudaMemcpyDeviceToDevice, s->copy));
    CUDA_TRY (cudaStreamSynchronize (s->copy));
    return MUON_OK;
  }
  for (int b = 0; b < 2; b++)
    TRY (grow_pinned (s, E, &s->chunk[b], &s->chunk_bytes[b], CHUNK));
  size_t nchunks = (bytes + CHUNK - 1) / CHUNK;
  for (size_t k = 0; k < nchunks; k++)
  {
    int b = (int) (k & 1);
    size_t off = k * CHUNK, n = bytes - off < CHUNK ? bytes - off : CHUNK;
    if (dir == MUON_COPY_H2D)
    {
      CUDA_TRY (cudaEventSynchronize (s->chunk_done[b]));   // chunk b has left
      host_copy (s->chunk[b], (const char *) src + off, n);
      CUDA_TRY (cudaMemcpyAsync ((char *) dst + off, s->chunk[b], n, cudaMemcpyHostToDevice,
                                 s->copy));
      CUDA_TRY (cudaEventRecord (s->chunk_done[b], s->copy));
    }
    else
    {
      CUDA_TRY (cudaMemcpyAsync (s->chunk[b], (const char *) src + off, n,
                                 cudaMemcpyDeviceToHost, s->copy));
      CUDA_TRY (cudaEventRecord (s->chunk_done[b], s->copy));
      if (k > 0)                                  // drain the chunk before while b moves
      {
        size_t prev = off - CHUNK;
        CUDA_TRY (cudaEventSynchronize (s->chunk_done[1 - b]));
        host_copy ((char *) dst + prev, s->chunk[1 - b], CHUNK);
      }
    }
  }
  if (dir == MUON_COPY_D2H && nchunks)
  {
    int b = (int) ((nchunks - 1) & 1);
    size_t off = (nchunks - 1) * CHUNK;
    CUDA_TRY (cudaEventSynchronize (s->chunk_done[b]));
    host_copy ((char *) dst + off, s->chunk[b], bytes - off);
  }
  CUDA_TRY (cudaStreamSynchronize (s->copy));
  return MUON_OK;
}

muon_status copy_entry (void **state, void *dst, const void *src, size_t bytes, int dir,
                        char *msg, size_t len)
{
  ENTRY_STATE ();
  muon_status st = copy_run (s, E, dst, src, bytes, dir);
  if (st != MUON_OK)              // a chunk still queued would land on dst after the caller
    cudaStreamSynchronize (s->copy);   // gave its block back to the pool
  return st;
}

muon_status convert_entry (void **state, void *dst, int dt, const void *src, int st, size_t n,
                           char *msg, size_t len)
{
  ENTRY_STATE ();
  LAUNCH (k_convert<<<grid_for (n), THREADS, 0, s->stream>>> (dst, dt, src, st, n));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

muon_status fill_entry (void **state, void *ptr, int st, size_t n, int kind, uint64_t seed,
                        char *msg, size_t len)
{
  ENTRY_STATE ();
  if (kind == 0)
    CUDA_TRY (cudaMemsetAsync (ptr, 0, n * muon_storage_bytes (st), s->stream));
  else
    LAUNCH (k_randn<<<grid_for (n), THREADS, 0, s->stream>>> (ptr, st, n, seed));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

muon_status copy_time_entry (void **state, size_t bytes, double *h2d_ms, double *d2h_ms,
                             char *msg, size_t len)
{
  ENTRY_STATE ();
  void *dev = NULL;
  TRY (grow_pinned (s, E, &s->pin_in[0], &s->pin_in_bytes[0], bytes));
  TRY (pool_alloc (s, E, bytes, &dev));
  cudaEvent_t ev[3] = { NULL, NULL, NULL };
  muon_status st = MUON_OK;
  float a = 0, b = 0;
  for (int k = 0; k < 3 && st == MUON_OK; k++)
    if (cudaEventCreate (&ev[k]) != cudaSuccess)
    {
      snprintf (E.msg, E.len, "timing the copies failed: %s",
                cudaGetErrorString (cudaGetLastError ()));
      st = MUON_ERR_CUDA;
    }
  if (st == MUON_OK
      && (cudaEventRecord (ev[0], s->copy) != cudaSuccess
          || cudaMemcpyAsync (dev, s->pin_in[0], bytes, cudaMemcpyHostToDevice, s->copy)
             != cudaSuccess
          || cudaEventRecord (ev[1], s->copy) != cudaSuccess
          || cudaMemcpyAsync (s->pin_in[0], dev, bytes, cudaMemcpyDeviceToHost, s->copy)
             != cudaSuccess
          || cudaEventRecord (ev[2], s->copy) != cudaSuccess
          || cudaEventSynchronize (ev[2]) != cudaSuccess
          || cudaEventElapsedTime (&a, ev[0], ev[1]) != cudaSuccess
          || cudaEventElapsedTime (&b, ev[1], ev[2]) != cudaSuccess))
  {
    snprintf (E.msg, E.len, "timing the copies failed: %s",
              cudaGetErrorString (cudaGetLastError ()));
    st = MUON_ERR_CUDA;
  }
  for (int k = 0; k < 3; k++)
    if (ev[k])
      cudaEventDestroy (ev[k]);
  cudaStreamSynchronize (s->copy);                // after an error too: no copy still queued
  pool_free (s, dev);                             // on the block
  *h2d_ms = a;
  *d2h_ms = b;
  return st;
}

muon_status last_ms_entry (void *state, double *ms)
{
  ns_state *s = (ns_state *) state;
  *ms = NAN;
  if (s == NULL || !s->timed)
    return MUON_OK;
  float f = 0;
  if (cudaEventSynchronize (s->t_stop) != cudaSuccess
      || cudaEventElapsedTime (&f, s->t_start, s->t_stop) != cudaSuccess)
  {
    cudaGetLastError ();
    return MUON_ERR_CUDA;
  }
  *ms = f;
  return MUON_OK;
}

// Trims every state of the process, not only `state` (see all_states); in_use and cached
// are their sums.
muon_status trim_entry (void *, size_t *in_use, size_t *cached)
{
  size_t u = 0, c = 0;
  for (ns_state *s = all_states; s; s = s->next_state)
  {
    cudaSetDevice (s->device);
    pool_trim (s);
    buffers_free (s);             // between calls: no work buffer is in use
    u += list_bytes (&s->live);
    c += list_bytes (&s->cached);
  }
  if (in_use)
    *in_use = u;
  if (cached)
    *cached = c;
  return MUON_OK;
}

void release (void *state)
{
  state_free ((ns_state *) state);
}

}  // namespace muon_cuda

extern "C" __attribute__ ((visibility ("default")))
muon_status muon_cuda_get_api (int abi, void *table)
{
  using namespace muon_cuda;
  muon_cuda_api *api = (muon_cuda_api *) table;
  if (api == NULL || abi != MUON_CUDA_ABI)
    return MUON_ERR_NOTBUILT;
  api->abi = MUON_CUDA_ABI;
  api->device_query = device_query;
  api->ns = ns_entry;
  api->release = release;
  api->alloc = alloc_entry;
  api->free = free_entry;
  api->copy = copy_entry;
  api->convert = convert_entry;
  api->fill = fill_entry;
  api->update = update_entry;
  api->adamw = adamw_entry;
  api->ew = ew_entry;
  api->sumsq = sumsq_entry;
  api->rm_copy = rm_copy_entry;
  api->block_sum = block_sum_entry;
  api->momentum = momentum_entry;
  api->copy_time = copy_time_entry;
  api->last_ms = last_ms_entry;
  api->trim = trim_entry;
  return MUON_OK;
}
