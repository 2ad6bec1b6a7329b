// Copyright (C) 2026 muonlab developers
// SPDX-License-Identifier: GPL-3.0-or-later

// cuda_mock.cc - a host-memory stand-in for the CUDA runtime and cuBLAS entries that
// libmuon_cuda.so calls, for `make check-gpu-mock` (tests/gpu_mock/run_mock.m) on machines
// without a GPU.
//
// What it is: allocations are real (mmap MAP_NORESERVE, so a "card" of 141 GB costs nothing
// until touched), copies and memsets are memmove / memset, streams, events and handles are
// small host allocations, and the runtime's last-error slot behaves like the real one (a
// failing call sets it, cudaGetLastError returns and clears it).  It lets the plug-in's host
// logic run for real: the caching pool, work-buffer growth, lanes, staging, error paths and
// what is held afterwards.
// What it is not: kernels and cuBLAS products do nothing (cublas_nop.c), so results are
// garbage and no number computed through it may be checked; there are no sticky errors or
// graphs (capture reports cudaErrorNotSupported).
// Streams are lazy: cudaMemcpyAsync and cudaMemsetAsync (and the NCCL stand-in's
// collectives, tests/gpu_mock/nccl_mock.cc, through mock_enqueue_copy) only queue their work on
// the stream; it runs, in order, at cudaStreamSynchronize of that stream, or at a point that
// waits for everything (cudaDeviceSynchronize, cudaEventSynchronize, cudaStreamWaitEvent,
// cudaFree, cudaFreeHost, cudaStreamDestroy of that stream).  mock_pending () counts what is
// still queued, so "work left on a stream at return" is observable.  A failing (injected)
// cudaStreamSynchronize still runs the stream's work: the wait happened, the report failed.
//
// Environment: MOCK_CAP_GB the card's size in GB (default 141); MOCK_FAIL_AT=k makes the
// k-th counted call (allocations, copies, memsets, stream syncs, launches, cuBLAS products)
// since the value was set fail; MOCK_HIT_FILE names a file the failing call's name is
// appended to; MOCK_USED_FILE names a file rewritten after each allocation and free with
// two numbers, the device bytes and the pinned host bytes held; MOCK_PIN_CAP_MB the pinned
// host memory there is (default: as much as malloc gives); MOCK_LOG=1 logs allocations
// to stderr; MOCK_DEVICES the devices cudaGetDeviceCount finds (default 1; a negative
// value: it fails with cudaErrorNoDevice, as without a driver).
// Control functions for C tests that link this library (tests/gpu_mock/test_nccl_mock.c):
// mock_fail_at (k) the k-th counted call from now fails (0: none; overrides MOCK_FAIL_AT),
// mock_calls () the counted calls since then, mock_last_hit () the failing call's name,
// mock_count_all (1) also counts (so can fail) cudaSetDevice, cudaPointerGetAttributes and
// cudaStreamCreateWithFlags, mock_pending () the operations still queued on streams.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <vector>
#include <sys/mman.h>
#include <cuda_runtime.h>
#include <cublas_v2.h>

static std::map<void *, size_t> live;
static size_t used = 0, pinned = 0;
static std::map<void *, size_t> pins;
static void record ()
{
  const char *u = getenv ("MOCK_USED_FILE");
  FILE *f = u ? fopen (u, "w") : NULL;
  if (f) { fprintf (f, "%zu %zu\n", used, pinned); fclose (f); }
}
static cudaError_t last = cudaSuccess;
static size_t cap ()
{
  const char *c = getenv ("MOCK_CAP_GB");
  return (size_t) ((c ? atof (c) : 141.0) * 1e9);
}
static int logging () { const char *c = getenv ("MOCK_LOG"); return c && *c == '1'; }
static cudaError_t ret (cudaError_t e) { if (e != cudaSuccess) last = e; return e; }
static void *handle () { return malloc (16); }
static long fail_at = -1, ticks = 0;
static long forced = -1;                      // mock_fail_at's k; -1: MOCK_FAIL_AT decides
static int count_all = 0;
static const char *last_hit = "";
extern "C" int mock_tick (const char *who)   // 1: this operation fails (MOCK_FAIL_AT=k: the k-th op since it was set)
{
  long k;
  if (forced >= 0)
    k = forced;
  else
  {
    const char *c = getenv ("MOCK_FAIL_AT");
    k = c ? atol (c) : 0;
    if (k != fail_at) { fail_at = k; ticks = 0; }
  }
  if (k <= 0 && forced < 0) return 0;
  ticks++;
  if (ticks == k) { last_hit = who; const char *h = getenv ("MOCK_HIT_FILE"); if (h) { FILE *f = fopen (h, "a"); if (f) { fprintf (f, "%s\n", who); fclose (f); } } if (logging ()) fprintf (stderr, "mock: injected failure at op %ld\n", k); return 1; }
  return 0;
}
extern "C" void mock_fail_at (long k) { forced = k < 0 ? 0 : k; ticks = 0; last_hit = ""; }
extern "C" long mock_calls (void) { return ticks; }
extern "C" const char *mock_last_hit (void) { return last_hit; }
extern "C" void mock_count_all (int on) { count_all = on; }
static int tick_extra (const char *who) { return count_all && mock_tick (who); }

// the streams' queues (the legacy default stream is the key NULL)
static std::map<cudaStream_t, std::vector<std::function<void ()>>> queues;
static void run_stream (cudaStream_t s)
{
  auto it = queues.find (s);
  if (it == queues.end ()) return;
  std::vector<std::function<void ()>> q;
  q.swap (it->second);
  queues.erase (it);
  for (auto &f : q) f ();
}
static void run_all () { while (!queues.empty ()) run_stream (queues.begin ()->first); }
extern "C" void mock_enqueue_copy (cudaStream_t s, void *d, const void *src, size_t n)
{
  if (n) queues[s].push_back ([d, src, n] () { memmove (d, src, n); });
}
extern "C" int mock_is_device (const void *p)   // inside a live cudaMalloc block
{
  auto it = live.upper_bound ((void *) p);
  if (it == live.begin ()) return 0;
  --it;
  return (const char *) p < (const char *) it->first + (it->second ? it->second : 1);
}
extern "C" long mock_pending (void)
{
  long n = 0;
  for (auto &q : queues) n += (long) q.second.size ();
  return n;
}

extern "C" {
cudaError_t cudaMalloc (void **p, size_t n)
{
  if (mock_tick (__func__)) { *p = NULL; return ret (cudaErrorMemoryAllocation); }
  if (used + n > cap ())
  {
    if (logging ()) fprintf (stderr, "mock: cudaMalloc %.3f GB FAILS (used %.3f GB)\n", n / 1e9, used / 1e9);
    *p = NULL;
    return ret (cudaErrorMemoryAllocation);
  }
  void *m = mmap (NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return ret (cudaErrorMemoryAllocation);
  live[m] = n;
  used += n;
  if (logging ()) fprintf (stderr, "mock: cudaMalloc %.6f GB -> used %.3f GB\n", n / 1e9, used / 1e9);
  *p = m;
  record ();
  return cudaSuccess;
}
cudaError_t cudaFree (void *p)
{
  run_all ();                                 // cudaFree waits for the device
  if (!p) return cudaSuccess;
  auto it = live.find (p);
  if (it == live.end ()) return ret (cudaErrorInvalidValue);
  munmap (p, it->second ? it->second : 1);
  used -= it->second;
  if (logging ()) fprintf (stderr, "mock: cudaFree %.6f GB -> used %.3f GB\n", it->second / 1e9, used / 1e9);
  live.erase (it);
  record ();
  return cudaSuccess;
}
cudaError_t cudaMemGetInfo (size_t *f, size_t *t) { *t = cap (); *f = cap () - used; return cudaSuccess; }
cudaError_t cudaHostAlloc (void **p, size_t n, unsigned int)
{
  const char *c = getenv ("MOCK_PIN_CAP_MB");
  if (mock_tick (__func__) || (c && *c && pinned + n > (size_t) (atof (c) * 1e6)))
  {
    *p = NULL;
    return ret (cudaErrorMemoryAllocation);
  }
  *p = malloc (n ? n : 1);
  if (!*p) return ret (cudaErrorMemoryAllocation);
  pins[*p] = n;
  pinned += n;
  record ();
  return cudaSuccess;
}
cudaError_t cudaFreeHost (void *p)
{
  run_all ();
  if (!p) return cudaSuccess;
  auto it = pins.find (p);
  if (it == pins.end ()) return ret (cudaErrorInvalidValue);
  pinned -= it->second;
  pins.erase (it);
  free (p);
  record ();
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync (void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t st) { if (mock_tick (__func__)) return ret (cudaErrorInvalidValue); mock_enqueue_copy (st, d, s, n); return cudaSuccess; }
cudaError_t cudaMemsetAsync (void *d, int v, size_t n, cudaStream_t st) { if (mock_tick (__func__)) return ret (cudaErrorInvalidValue); if (n) queues[st].push_back ([d, v, n] () { memset (d, v, n); }); return cudaSuccess; }
cudaError_t cudaDeviceSynchronize (void) { run_all (); return cudaSuccess; }
cudaError_t cudaEventCreate (cudaEvent_t *e) { *e = (cudaEvent_t) handle (); return cudaSuccess; }
cudaError_t cudaEventCreateWithFlags (cudaEvent_t *e, unsigned int) { *e = (cudaEvent_t) handle (); return cudaSuccess; }
cudaError_t cudaEventDestroy (cudaEvent_t e) { free (e); return cudaSuccess; }
cudaError_t cudaEventElapsedTime (float *ms, cudaEvent_t, cudaEvent_t) { *ms = 1; return cudaSuccess; }
cudaError_t cudaEventRecord (cudaEvent_t, cudaStream_t) { return mock_tick (__func__) ? ret (cudaErrorInvalidValue) : cudaSuccess; }
cudaError_t cudaEventSynchronize (cudaEvent_t) { if (mock_tick (__func__)) return ret (cudaErrorInvalidValue); run_all (); return cudaSuccess; }
cudaError_t cudaGetDevice (int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaSetDevice (int) { return tick_extra (__func__) ? ret (cudaErrorInvalidDevice) : cudaSuccess; }
// device memory: inside a live cudaMalloc block; anything else is unregistered host memory
cudaError_t cudaPointerGetAttributes (cudaPointerAttributes *a, const void *p)
{
  if (tick_extra (__func__)) return ret (cudaErrorInvalidValue);
  memset (a, 0, sizeof *a);
  a->type = cudaMemoryTypeUnregistered;
  if (mock_is_device (p))
  {
    a->type = cudaMemoryTypeDevice;
    a->devicePointer = (void *) p;
  }
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount (int *c)
{
  const char *d = getenv ("MOCK_DEVICES");
  *c = d && *d ? atoi (d) : 1;
  if (*c >= 0)
    return cudaSuccess;
  *c = 0;
  return ret (cudaErrorNoDevice);
}
cudaError_t cudaGetDeviceProperties (cudaDeviceProp *p, int) { memset (p, 0, sizeof *p); strcpy (p->name, "MOCK H200"); p->major = 9; return cudaSuccess; }
const char *cudaGetErrorString (cudaError_t e) { return e == cudaErrorMemoryAllocation ? "out of memory" : e ? "mock error" : "no error"; }
cudaError_t cudaGetLastError (void) { cudaError_t e = last; last = cudaSuccess; return e; }
cudaError_t cudaGraphDestroy (cudaGraph_t) { return cudaSuccess; }
cudaError_t cudaGraphExecDestroy (cudaGraphExec_t) { return cudaSuccess; }
cudaError_t cudaGraphInstantiate (cudaGraphExec_t *, cudaGraph_t, unsigned long long) { return ret (cudaErrorNotSupported); }
cudaError_t cudaGraphLaunch (cudaGraphExec_t, cudaStream_t) { return cudaSuccess; }
cudaError_t cudaStreamBeginCapture (cudaStream_t, cudaStreamCaptureMode) { return ret (cudaErrorNotSupported); }
cudaError_t cudaStreamEndCapture (cudaStream_t, cudaGraph_t *g) { *g = NULL; return cudaSuccess; }
cudaError_t cudaStreamCreateWithFlags (cudaStream_t *s, unsigned int) { if (tick_extra (__func__)) { *s = NULL; return ret (cudaErrorInvalidValue); } *s = (cudaStream_t) handle (); return cudaSuccess; }
cudaError_t cudaStreamDestroy (cudaStream_t s) { run_stream (s); free (s); return cudaSuccess; }
cudaError_t cudaStreamSynchronize (cudaStream_t s) { run_stream (s); return mock_tick (__func__) ? ret (cudaErrorInvalidValue) : cudaSuccess; }
// the waiting stream's later work must see the event's: the mock runs everything queued
cudaError_t cudaStreamWaitEvent (cudaStream_t, cudaEvent_t, unsigned int) { if (mock_tick (__func__)) return ret (cudaErrorInvalidValue); run_all (); return cudaSuccess; }
// the registration and launch of the nvcc host stubs
void **__cudaRegisterFatBinary (void *) { static void *h[4]; return h; }
void __cudaRegisterFatBinaryEnd (void **) {}
void __cudaUnregisterFatBinary (void **) {}
void __cudaRegisterFunction (void **, const char *, char *, const char *, int, void *, void *, void *, void *, int *) {}
unsigned __cudaPushCallConfiguration (dim3, dim3, size_t, void *) { return 0; }
cudaError_t __cudaPopCallConfiguration (dim3 *, dim3 *, size_t *, void *) { return cudaSuccess; }
cudaError_t __cudaLaunchKernel (const void *, dim3, dim3, void **, size_t, cudaStream_t) { return mock_tick (__func__) ? ret (cudaErrorLaunchOutOfResources) : cudaSuccess; }
cudaError_t __cudaGetKernel (void **k, const void *) { *k = NULL; return cudaSuccess; }
// cuBLAS
cublasStatus_t cublasCreate_v2 (cublasHandle_t *h) { *h = (cublasHandle_t) handle (); return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasDestroy_v2 (cublasHandle_t h) { free (h); return CUBLAS_STATUS_SUCCESS; }
const char *cublasGetStatusString (cublasStatus_t) { return "mock"; }
cublasStatus_t cublasSetMathMode (cublasHandle_t, cublasMath_t) { return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetStream_v2 (cublasHandle_t, cudaStream_t) { return CUBLAS_STATUS_SUCCESS; }
cublasStatus_t cublasSetWorkspace_v2 (cublasHandle_t, void *, size_t) { return CUBLAS_STATUS_SUCCESS; }
}
