/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* pool_cuda.cu - device memory of libmuon_cuda.so (cuda_state.h): the buffers a state grows
 * on demand (device and pinned host), and the caching pool of device blocks behind the
 * device arrays.
 *
 * The pool.  A block is rounded up (512 B under 1 MiB, else 2 MiB) and, when freed, kept in
 * the pool; the next request takes the smallest kept block that fits without wasting more
 * than half of it, so a loop of same-shaped calls does one cudaMalloc per buffer in all.  A
 * request the card cannot hold first returns every kept block to the driver and tries once
 * more; then it is MUON_ERR_DEVMEM, with nothing held, and the state goes on; a work
 * buffer that grow cannot get does the same.  trim and release give the kept blocks back,
 * trim the grown buffers too (buffers_free).  That retry also takes back what the process's
 * other states hold between calls (others_give_back: each MEX file has its own state), and
 * so does a pinned host buffer that cudaHostAlloc cannot get.
 */
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "cuda_state.h"

namespace muon_cuda {

//---- buffers ------------------------------------------------------------------------------

static muon_status no_room (ns_state *s, errbuf &E, size_t bytes, cudaError_t e)
{
  size_t free_b = 0, total = 0;
  cudaMemGetInfo (&free_b, &total);
  snprintf (E.msg, E.len, "the device has no room for %zu bytes (%zu free of %zu; %zu held "
            "by device arrays): %s", bytes, free_b, total, list_bytes (&s->live),
            cudaGetErrorString (e));
  return e == cudaErrorMemoryAllocation ? MUON_ERR_DEVMEM : MUON_ERR_CUDA;
}

muon_status dev_malloc (ns_state *s, errbuf &E, void **buf, size_t bytes)
{
  cudaError_t e = cudaMalloc (buf, bytes);
  if (e == cudaErrorMemoryAllocation)             // give the kept blocks back, once more
  {
    cudaGetLastError ();
    pool_trim (s);
    others_give_back (s);
    e = cudaMalloc (buf, bytes);
  }
  if (e != cudaSuccess)
  {
    cudaGetLastError ();
    *buf = NULL;
    return no_room (s, E, bytes, e);
  }
  return MUON_OK;
}

muon_status grow (ns_state *s, errbuf &E, void **buf, size_t *cap, size_t bytes)
{
  if (*cap >= bytes)
    return MUON_OK;
  CUDA_TRY (cudaFree (*buf));
  *buf = NULL;
  *cap = 0;
  TRY (dev_malloc (s, E, buf, bytes));
  *cap = bytes;
  return MUON_OK;
}

void buffers_free (ns_state *s)
{
  cudaDeviceSynchronize ();
  auto dev = [] (void **b, size_t *cap) { cudaFree (*b); *b = NULL; *cap = 0; };
  auto pin = [] (void **b, size_t *cap) { cudaFreeHost (*b); *b = NULL; *cap = 0; };
  dev (&s->work, &s->work_bytes);
  for (lane &l : s->extra)
    dev (&l.work, &l.work_bytes);
  for (int b = 0; b < 2; b++)
  {
    dev (&s->page_in[b], &s->in_bytes[b]);
    dev (&s->page_out[b], &s->out_bytes[b]);
    pin (&s->pin_in[b], &s->pin_in_bytes[b]);
    pin (&s->pin_out[b], &s->pin_out_bytes[b]);
    pin (&s->chunk[b], &s->chunk_bytes[b]);
  }
  cudaGetLastError ();
}

muon_status grow_pinned (ns_state *s, errbuf &E, void **buf, size_t *cap, size_t bytes)
{
  if (*cap >= bytes)
    return MUON_OK;
  CUDA_TRY (cudaFreeHost (*buf));
  *buf = NULL;
  *cap = 0;
  cudaError_t e = cudaHostAlloc (buf, bytes, cudaHostAllocDefault);
  if (e == cudaErrorMemoryAllocation)               // the other states' staging back, once more
  {
    cudaGetLastError ();
    others_give_back (s);
    e = cudaHostAlloc (buf, bytes, cudaHostAllocDefault);
  }
  if (e == cudaErrorMemoryAllocation)               // pinned host memory: the host's, not
  {                                                 // the card's (muonlab:noMemory)
    cudaGetLastError ();
    *buf = NULL;
    return fail_with (E, MUON_ERR_NOMEM, __FILE__, __LINE__, "cudaHostAlloc",
                      "no pinned host memory for the staging buffer");
  }
  CUDA_TRY (e);
  *cap = bytes;
  return MUON_OK;
}

//---- the pool -----------------------------------------------------------------------------

int list_push (block_list *l, block b)
{
  if (l->count == l->cap)
  {
    size_t cap = l->cap ? 2 * l->cap : 16;
    block *at = (block *) realloc (l->at, cap * sizeof *at);
    if (at == NULL)
      return 0;
    l->at = at;
    l->cap = cap;
  }
  l->at[l->count++] = b;
  return 1;
}

block list_take (block_list *l, size_t k)
{
  block b = l->at[k];
  l->at[k] = l->at[--l->count];
  return b;
}

size_t list_bytes (const block_list *l)
{
  size_t sum = 0;
  for (size_t k = 0; k < l->count; k++)
    sum += l->at[k].bytes;
  return sum;
}

void pool_trim (ns_state *s)
{
  cudaDeviceSynchronize ();
  while (s->cached.count)
    cudaFree (list_take (&s->cached, 0).ptr);
}

muon_status pool_alloc (ns_state *s, errbuf &E, size_t bytes, void **ptr)
{
  size_t q = bytes < ((size_t) 1 << 20) ? 512 : ((size_t) 2 << 20);
  if (bytes > SIZE_MAX - q)
  {
    snprintf (E.msg, E.len, "the device has no room for %zu bytes", bytes);
    return MUON_ERR_DEVMEM;
  }
  size_t want = (bytes + q - 1) / q * q, best = SIZE_MAX;
  if (want == 0)
    want = q;
  for (size_t k = 0; k < s->cached.count; k++)
  {
    size_t have = s->cached.at[k].bytes;
    if (have >= want && have / 2 <= want
        && (best == SIZE_MAX || have < s->cached.at[best].bytes))
      best = k;
  }
  block b = { NULL, want };
  if (best != SIZE_MAX)
    b = list_take (&s->cached, best);
  else
  {
    cudaError_t e = cudaMalloc (&b.ptr, want);
    if (e == cudaErrorMemoryAllocation)            // give the kept blocks back, once more
    {
      cudaGetLastError ();
      pool_trim (s);
      others_give_back (s);
      e = cudaMalloc (&b.ptr, want);
    }
    if (e != cudaSuccess)
    {
      cudaGetLastError ();
      return no_room (s, E, want, e);
    }
  }
  if (!list_push (&s->live, b))
  {
    cudaFree (b.ptr);
    snprintf (E.msg, E.len, "out of host memory for the pool's list");
    return MUON_ERR_NOMEM;
  }
  *ptr = b.ptr;
  return MUON_OK;
}

void pool_free (ns_state *s, void *ptr)
{
  for (size_t k = 0; k < s->live.count; k++)
    if (s->live.at[k].ptr == ptr)
    {
      block b = list_take (&s->live, k);
      if (!list_push (&s->cached, b))
        cudaFree (b.ptr);
      return;
    }
}

}  // namespace muon_cuda
