/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ns_cuda.cu - Newton-Schulz orthogonalization on an NVIDIA GPU with cuBLAS: the CUDA back end
 * of ns.c, built into libmuon_cuda.so and opened with dlopen by cuda_loader.c, which reaches it
 * only through muon_cuda_get_api (the ABI of ns_cuda_abi.h): the pages of a call, each
 * normalized, iterated (ns_cuda_iter.cu) and stored.
 *
 * Host tensors are staged page by page through pinned buffers on a copy stream, page k+1's
 * copy under page k's NS; device tensors are read and written in place, the pages of a stack
 * spread over LANES streams, or with muon_ns_opts.batched iterated together (every product
 * one strided-batched call).  A stream that runs three pages or more replays its iteration
 * as a CUDA graph.  From n = 2048 (on a stack; 4096 alone) the 16-bit X X' is three blocks
 * of its upper triangle.  None of this changes which kernels a page runs, given its shape
 * and the number of pages: same bits on every lane, host or device.  The per-context state
 * (cuBLAS handles, streams, buffers grown on demand) lives across calls and is freed by
 * release.  Errors come back as MUON_ERR_CUDA / MUON_ERR_CUBLAS with
 * "file:line: call: text"; nothing prints, exits or aborts.
 *
 * One known difference from the CPU: the fp64 sum of squares of the norm is a deterministic
 * tree reduction rather than a column-major loop, so the fp32-rounded norm can differ from the
 * CPU's by one ulp when the two fp64 sums straddle an fp32 rounding boundary (rare: about
 * 1e-8 per page).  In double the fp64 sum is the denominator itself, so its last bits
 * differ on most pages (as cuBLAS's products differ from OpenBLAS's: no bitwise claim there).
 */
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_state.h"
#include "muon_precision.h"
#include "ns_cuda_iter.h"
#include "ns_cuda_kernels.h"
#include "ns_shared.h"
#include "tensor_check.h"

namespace muon_cuda {

//---- pages --------------------------------------------------------------------------------

size_t dtype_size (muon_dtype d)
{
  return d == MUON_F64 ? sizeof (double) : sizeof (float);
}

// Page e of t: the address of its first element (host or device, where t lives).
char *page_of (const muon_tensor *t, size_t e)
{
  return (char *) t->data + e * t->stride * dtype_size (t->dtype);
}

// X (n x m) = the page at g (rows x cols, leading dimension ld, type dt, on the device), cast,
// transposed and normalized: one pass for the sum of squares (and the largest magnitude and
// the non-finite flag), one for the scaled form's sum (returning at once unless the page
// needs it), one that divides; the scalars stay on the device (small), so no page waits
// for the host.
template <typename T, typename S>
muon_status load_page_as (run &R, const S *g, size_t rows, size_t cols, size_t ld,
                          const muon_ns_opts *o, T *X, int transposed)
{
  errbuf &E = R.E;
  int cast_first = !o->normalize_first;
  double *scal = R.small + NORM_SCAL;
  LAUNCH (k_sumsq<T, S><<<NORM_BLOCKS, THREADS, 0, R.st>>> (R.p, cast_first, g, rows, cols, ld,
                                                             R.small));
  LAUNCH (k_norm_finish<<<1, 1, 0, R.st>>> (R.p, o->normalize_first, o->eps, R.small,
                                            NORM_BLOCKS, scal));
  LAUNCH (k_sumsq_scaled<S><<<NORM_BLOCKS, THREADS, 0, R.st>>> (g, rows, cols, ld, scal,
                                                                R.small));
  LAUNCH (k_norm_scaled_finish<<<1, 1, 0, R.st>>> (o->eps, R.small, NORM_BLOCKS, scal));
  LAUNCH (k_load_page<T, S><<<grid_for (rows * cols), THREADS, 0, R.st>>> (
    R.p, cast_first, g, rows, cols, ld, transposed, scal, X));
  return MUON_OK;
}

template <typename T>
muon_status load_page (run &R, const void *g, muon_dtype dt, size_t rows, size_t cols,
                       size_t ld, const muon_ns_opts *o, T *X, int transposed)
{
  if (dt == MUON_F64)
    return load_page_as (R, (const double *) g, rows, cols, ld, o, X, transposed);
  return load_page_as (R, (const float *) g, rows, cols, ld, o, X, transposed);
}

// The page at out (rows x cols, leading dimension ld, type dt, on the device) = X (n x m),
// undoing the transpose; counts non-finite values.
template <typename T>
muon_status store_page (run &R, const T *X, int transposed, void *out, muon_dtype dt,
                        size_t rows, size_t cols, size_t ld)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  const double *scal = R.small + NORM_SCAL;
  unsigned grid = grid_for (rows * cols);
  if (dt == MUON_F64)
    LAUNCH (k_store_page<T, double><<<grid, THREADS, 0, R.st>>> (
      R.p, X, rows, cols, ld, transposed, scal, (double *) out, s->bad));
  else
    LAUNCH (k_store_page<T, float><<<grid, THREADS, 0, R.st>>> (
      R.p, X, rows, cols, ld, transposed, scal, (float *) out, s->bad));
  return MUON_OK;
}

// Host page e of t <-> a packed rows x cols buffer (the pinned staging), on several threads.
void pack_page (const muon_tensor *t, size_t e, void *packed)
{
  size_t es = dtype_size (t->dtype), w = t->rows * es;
  copy_columns (packed, w, page_of (t, e), t->ld * es, w, t->cols);
}

void unpack_page (const void *packed, muon_tensor *t, size_t e)
{
  size_t es = dtype_size (t->dtype), w = t->rows * es;
  copy_columns (page_of (t, e), t->ld * es, packed, w, w, t->cols);
}

// Host page e of G on its way to page_in[e % 2]: packed into pinned memory by the host (once
// the copy of page e - 2 has left that buffer), copied on the copy stream once the load of
// page e - 2 has read the device buffer; in_ready says when it has arrived.
muon_status stage_in (run &R, const muon_tensor *G, size_t e)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int b = (int) (e & 1);
  size_t bytes = G->rows * G->cols * dtype_size (G->dtype);
  CUDA_TRY (cudaEventSynchronize (s->in_ready[b]));
  pack_page (G, e, s->pin_in[b]);
  CUDA_TRY (cudaStreamWaitEvent (s->copy, s->in_used[b], 0));
  CUDA_TRY (cudaMemcpyAsync (s->page_in[b], s->pin_in[b], bytes, cudaMemcpyHostToDevice,
                             s->copy));
  CUDA_TRY (cudaEventRecord (s->in_ready[b], s->copy));
  return MUON_OK;
}

// Page e of the result, copied to pin_out[e % 2] on the copy stream, into the host tensor.
muon_status stage_out_finish (run &R, muon_tensor *out, size_t e)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int b = (int) (e & 1);
  CUDA_TRY (cudaEventSynchronize (s->out_copied[b]));
  unpack_page (s->pin_out[b], out, e);
  return MUON_OK;
}

// Host tensors, on lane 0, through two staged pages: while the device runs page e, the host
// packs page e + 1 into pinned memory and the copy stream moves it, and the result of page
// e - 1 comes back the same way.
template <typename T>
muon_status host_pages (run &R, const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                        const double *coef, int steps, int use_gram, T *X,
                        cudaGraphExec_t graph)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int transposed = G->rows > G->cols;
  size_t rows = G->rows, cols = G->cols, pages = G->batch;
  size_t out_bytes = rows * cols * dtype_size (out->dtype);
  TRY (stage_in (R, G, 0));
  for (size_t e = 0; e < pages; e++)
  {
    int b = (int) (e & 1);
    CUDA_TRY (cudaStreamWaitEvent (R.st, s->in_ready[b], 0));
    TRY (load_page (R, s->page_in[b], G->dtype, rows, cols, rows, o, X, transposed));
    CUDA_TRY (cudaEventRecord (s->in_used[b], R.st));
    if (graph)
      CUDA_TRY (cudaGraphLaunch (graph, R.st));
    else
      TRY (iterate (R, o, coef, steps, use_gram, X));
    CUDA_TRY (cudaStreamWaitEvent (R.st, s->out_copied[b], 0));  // page_out[b] is free
    TRY (store_page (R, X, transposed, s->page_out[b], out->dtype, rows, cols, rows));
    CUDA_TRY (cudaEventRecord (s->out_ready[b], R.st));
    // page e + 1 goes on the copy stream before page e's way back, which waits for page e's
    // NS: so the copy in runs under that NS (and the host packs while the device computes)
    if (e + 1 < pages)
      TRY (stage_in (R, G, e + 1));
    if (e >= 2)
      TRY (stage_out_finish (R, out, e - 2));  // pin_out[b] is free
    CUDA_TRY (cudaStreamWaitEvent (s->copy, s->out_ready[b], 0));
    CUDA_TRY (cudaMemcpyAsync (s->pin_out[b], s->page_out[b], out_bytes,
                               cudaMemcpyDeviceToHost, s->copy));
    CUDA_TRY (cudaEventRecord (s->out_copied[b], s->copy));
  }
  for (size_t e = pages >= 2 ? pages - 2 : 0; e < pages; e++)
    TRY (stage_out_finish (R, out, e));
  return MUON_OK;
}

// Device tensors, read and written in place (any leading dimension and page stride), page e
// on lane e % L.
template <typename T>
muon_status device_pages (run *lanes, T **X, cudaGraphExec_t *graph, size_t L,
                          const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                          const double *coef, int steps, int use_gram)
{
  int transposed = G->rows > G->cols;
  for (size_t e = 0; e < G->batch; e++)
  {
    run &R = lanes[e % L];
    errbuf &E = R.E;
    T *Xe = X[e % L];                             // zero pages run on zeros, stored as +0
    TRY (load_page (R, page_of (G, e), G->dtype, G->rows, G->cols, G->ld, o, Xe, transposed));
    if (graph[e % L])
      CUDA_TRY (cudaGraphLaunch (graph[e % L], R.st));
    else
      TRY (iterate (R, o, coef, steps, use_gram, Xe));
    TRY (store_page (R, Xe, transposed, page_of (out, e), out->dtype, G->rows, G->cols,
                     out->ld));
  }
  return MUON_OK;
}

// Device tensors with muon_ns_opts.batched, the pages side by side in work (each kind of
// work array for every page, one after another: iterate's layout with R.pages pages), each
// page its norm scratch in small: the loads and stores page by page, the iteration once for
// all, every product one strided-batched call.
template <typename T>
muon_status batched_pages (run &R, const muon_tensor *G, muon_tensor *out,
                           const muon_ns_opts *o, const double *coef, int steps, int use_gram,
                           T *work, double *small)
{
  int transposed = G->rows > G->cols;
  size_t pages = G->batch, nm = padded (R.n * R.m), sm = NORM_SCRATCH;
  run Re = R;                                     // one page
  for (size_t e = 0; e < pages; e++)
  {
    Re.small = small + e * sm;
    TRY (load_page (Re, page_of (G, e), G->dtype, G->rows, G->cols, G->ld, o, work + e * nm,
                    transposed));
  }
  run B = R;                                      // every page
  B.pages = (int) pages;
  B.sx = nm;
  B.sn = padded (R.n * R.n);
  TRY (iterate (B, o, coef, steps, use_gram, work));
  for (size_t e = 0; e < pages; e++)
  {
    Re.small = small + e * sm;
    TRY (store_page (Re, work + e * nm, transposed, page_of (out, e), out->dtype, G->rows,
                     G->cols, out->ld));
  }
  return MUON_OK;
}

// batched_pages on blocks of the caching pool (work for every page, their norm scratch),
// given back once the stream is done with them, whatever happened.
template <typename T>
muon_status device_batched (run &R, const muon_tensor *G, muon_tensor *out,
                            const muon_ns_opts *o, const double *coef, int steps, int use_gram)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  size_t pages = G->batch, per = steps_work (R.n, R.m, 1);
  if (pages > (size_t) INT_MAX || per > SIZE_MAX / sizeof (T) / pages)
  {
    snprintf (E.msg, E.len, "the device has no room for the work of %zu pages", pages);
    return MUON_ERR_DEVMEM;
  }
  T *work = NULL;
  double *small = NULL;
  TRY (pool_alloc (s, E, pages * per * sizeof (T), (void **) &work));
  muon_status st = pool_alloc (s, E, pages * NORM_SCRATCH * sizeof (double),
                               (void **) &small);
  if (st == MUON_OK)
    st = batched_pages (R, G, out, o, coef, steps, use_gram, work, small);
  cudaStreamSynchronize (R.st);                   // nothing queued reads the blocks now
  pool_free (s, work);
  if (small)
    pool_free (s, small);
  return st;
}

// A lane that runs GRAPH_FROM pages or more replays its iteration as a graph.
const size_t GRAPH_FROM = 3;

// The whole batch: host pages on lane 0, a device stack over up to LANES lanes that start
// after the main stream has cleared the non-finite count and join it at the end, or with
// muon_ns_opts.batched all its pages at once on the main stream.  [out] *bad.
template <typename T>
muon_status batch_queued (run &R, const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                          const double *coef, int steps, unsigned long long *bad)
{
  errbuf &E = R.E;
  ns_state *s = R.s;
  int use_gram = muon_ns_gram_path (G->rows, G->cols, o);
  int host = G->device == MUON_DEVICE_CPU;
  size_t L = host || G->batch < 2 ? 1 : G->batch < (size_t) LANES ? G->batch : LANES;
  run lanes[LANES] = {R};
  T *X[LANES] = {(T *) s->work};
  cudaGraphExec_t graph[LANES] = {NULL};
  CUDA_TRY (cudaMemsetAsync (s->bad, 0, sizeof *s->bad, s->stream));
  if (!host && o->batched && G->batch >= 2)
  {
    TRY (device_batched<T> (R, G, out, o, coef, steps, use_gram));
    CUDA_TRY (cudaMemcpyAsync (bad, s->bad, sizeof *bad, cudaMemcpyDeviceToHost, s->stream));
    CUDA_TRY (cudaStreamSynchronize (s->stream));
    return MUON_OK;
  }
  CUDA_TRY (cudaEventRecord (s->begun, s->stream));
  for (size_t i = 1; i < L; i++)
  {
    lane *l = NULL;
    TRY (lane_get (E, s, (int) i, steps_work (R.n, R.m, 1) * sizeof (T), &l));  // this call's need
    lanes[i] = R;
    lanes[i].st = l->stream;
    lanes[i].blas = l->blas;
    lanes[i].small = l->small;
    X[i] = (T *) l->work;
    CUDA_TRY (cudaStreamWaitEvent (l->stream, s->begun, 0));
  }
  muon_status st = MUON_OK;
  for (size_t i = 0; i < L && st == MUON_OK; i++)
    if ((G->batch + L - 1 - i) / L >= GRAPH_FROM)   // the pages lane i runs
      st = capture (lanes[i], o, coef, steps, use_gram, X[i], &graph[i]);
  if (st == MUON_OK)
    st = host ? host_pages (lanes[0], G, out, o, coef, steps, use_gram, X[0], graph[0])
              : device_pages (lanes, X, graph, L, G, out, o, coef, steps, use_gram);
  for (size_t i = 0; i < L; i++)
    if (graph[i])
      cudaGraphExecDestroy (graph[i]);
  TRY (st);
  for (size_t i = 1; i < L; i++)
  {
    CUDA_TRY (cudaEventRecord (s->extra[i - 1].done, lanes[i].st));
    CUDA_TRY (cudaStreamWaitEvent (s->stream, s->extra[i - 1].done, 0));
  }
  CUDA_TRY (cudaMemcpyAsync (bad, s->bad, sizeof *bad, cudaMemcpyDeviceToHost, s->stream));
  CUDA_TRY (cudaStreamSynchronize (s->stream));
  return MUON_OK;
}

// batch_queued, and on an error anywhere in it (a page, the lanes' join, the last copy)
// every stream drained: nothing of the call left queued, since its arrays and pool blocks
// may be freed next.
template <typename T>
muon_status batch (run &R, const muon_tensor *G, muon_tensor *out, const muon_ns_opts *o,
                   const double *coef, int steps, unsigned long long *bad)
{
  muon_status st = batch_queued<T> (R, G, out, o, coef, steps, bad);
  if (st != MUON_OK)
  {
    ns_state *s = R.s;
    for (int i = 0; i < LANES - 1; i++)
      if (s->extra[i].stream)
        cudaStreamSynchronize (s->extra[i].stream);
    cudaStreamSynchronize (s->copy);
    cudaStreamSynchronize (s->stream);
  }
  return st;
}

muon_status ns_pages (ns_state *s, errbuf &E, const muon_tensor *G, muon_tensor *X,
                      const muon_ns_opts *o, const double *coef, int steps,
                      unsigned long long *bad)
{
  if (steps < 1 || !MUON_IN_LIST (MUON_PRECISION_LIST, o->precision))
  {
    snprintf (E.msg, E.len, "bad steps (%d) or precision (%d)", steps, (int) o->precision);
    return MUON_ERR_BADARG;
  }
  muon_device where = G->device == MUON_DEVICE_CUDA ? MUON_DEVICE_CUDA : MUON_DEVICE_CPU;
  TRY (muon_tensor_fault_on (G, "G", where, E.msg, E.len));   // muon_tensor_check's checks
  TRY (muon_tensor_fault_on (X, "X", where, E.msg, E.len));
  if (G->rows != X->rows || G->cols != X->cols || G->batch != X->batch)
  {
    snprintf (E.msg, E.len, "X must be %zu x %zu x %zu like G", G->rows, G->cols, G->batch);
    return MUON_ERR_BADSHAPE;
  }
  size_t n = G->rows < G->cols ? G->rows : G->cols, m = G->rows < G->cols ? G->cols : G->rows;
  if (m > (size_t) INT_MAX)
  {
    snprintf (E.msg, E.len, "dimensions must fit a cuBLAS int");
    return MUON_ERR_BADSHAPE;
  }
  run R = {s, E, (int) o->precision, n, m, sym_blocks_for (n, G->batch, o->sym_blocks),
           o->fused, s->stream, s->blas, s->small, 1, 0, 0};
  int low = o->precision == MUON_PREC_BF16 || o->precision == MUON_PREC_FP16;
  size_t es = o->precision == MUON_PREC_DOUBLE ? sizeof (double)
            : low ? sizeof (uint16_t) : sizeof (float);
  TRY (grow (s, E, &s->work, &s->work_bytes, steps_work (n, m, 1) * es));
  if (where == MUON_DEVICE_CPU)                   // the staging of host pages
  {
    size_t in = G->rows * G->cols * dtype_size (G->dtype);
    size_t out = X->rows * X->cols * dtype_size (X->dtype);
    for (int b = 0; b < 2; b++)
    {
      CUDA_TRY (cudaStreamSynchronize (s->copy));  // nothing of the last call in flight
      TRY (grow (s, E, &s->page_in[b], &s->in_bytes[b], in));
      TRY (grow (s, E, &s->page_out[b], &s->out_bytes[b], out));
      TRY (grow_pinned (s, E, &s->pin_in[b], &s->pin_in_bytes[b], in));
      TRY (grow_pinned (s, E, &s->pin_out[b], &s->pin_out_bytes[b], out));
    }
  }
  if (o->precision == MUON_PREC_DOUBLE)
    return batch<double> (R, G, X, o, coef, steps, bad);
  if (low)                                        // bf16 / fp16 work buffers
    return batch<uint16_t> (R, G, X, o, coef, steps, bad);
  return batch<float> (R, G, X, o, coef, steps, bad);
}

//---- entries ------------------------------------------------------------------------------

muon_status device_query (int *count, char *name, size_t len)
{
  char dummy[1];
  errbuf E = {name ? name : dummy, name ? len : sizeof dummy};
  int c = 0;
  if (count)
    *count = 0;
  if (E.len)
    E.msg[0] = '\0';
  cudaError_t err = cudaGetDeviceCount (&c);
  if (err != cudaSuccess)                         // no driver, no device, driver too old ...
  {
    cudaGetLastError ();                          // clear it: later calls start clean
    snprintf (E.msg, E.len, "%s", cudaGetErrorString (err));
    return MUON_ERR_NODEVICE;
  }
  if (c < 1)
  {
    snprintf (E.msg, E.len, "no CUDA device found");
    return MUON_ERR_NODEVICE;
  }
  cudaDeviceProp prop;
  CUDA_TRY (cudaGetDeviceProperties (&prop, 0));
  snprintf (E.msg, E.len, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
  if (count)
    *count = c;
  return MUON_OK;
}

muon_status ns_entry (void **state, const muon_tensor *G, muon_tensor *X,
                      const muon_ns_opts *o, const double *coef, int steps, char *msg,
                      size_t len)
{
  char dummy[1];
  errbuf E = {msg ? msg : dummy, msg ? len : sizeof dummy};
  if (E.len)
    E.msg[0] = '\0';
  if (state == NULL || G == NULL || X == NULL || o == NULL || coef == NULL)
  {
    snprintf (E.msg, E.len, "state, G, X, options and coefficients must not be NULL");
    return MUON_ERR_NULLPTR;
  }
  ns_state *s = NULL;
  TRY (state_get (E, state, &s));
  unsigned long long bad = 0;
  s->timed = 0;                                   // until this call has both events
  CUDA_TRY (cudaEventRecord (s->t_start, s->stream));
  TRY (ns_pages (s, E, G, X, o, coef, steps, &bad));
  CUDA_TRY (cudaEventRecord (s->t_stop, s->stream));
  s->timed = 1;
  if (bad)
  {
    snprintf (E.msg, E.len, "%llu non-finite values in the result", bad);
    return MUON_WARN_NONFINITE;
  }
  return MUON_OK;
}

}  // namespace muon_cuda
