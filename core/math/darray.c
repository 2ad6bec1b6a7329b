/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* darray.c - device arrays (muon_math.h): a rows x cols x batch array on a device, and
 * muon_ns / muon_update run on it where it lives.
 *
 * Two devices behind one small table of operations (dev_ops):
 *   cuda  memory from the CUDA back end's caching pool; every op is an entry of the plug-in
 *         (core/gpu/ns_cuda_abi.h): conversions and fills are kernels, NS and the update run
 *         on device tensors, so nothing crosses the bus but what download asks for.
 *   cpu   the stand-in device of the self-tests (MUONLAB_GPU_SELFTEST, and every test layer
 *         that needs no GPU): host memory, run by the CPU core (muon_ns, muon_update), so an
 *         op on it gives the bits of the host path by construction.
 * A 16-bit storage class (bf16 / fp16) computes from fp32 working copies made on the device,
 * stored back once.  The per-element conversions and the normal generator are
 * muon_darray_math.h's, the code the CUDA kernels run too.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "darray_impl.h"

//---- helpers ------------------------------------------------------------------------------

static int dense_host (const muon_tensor *t, const muon_darray *a)
{
  return t && t->data && (t->dtype == MUON_F64 || t->dtype == MUON_F32)
    && t->device == MUON_DEVICE_CPU && t->rows == a->rows && t->cols == a->cols
    && t->batch == a->batch && t->ld == t->rows
    && (t->batch == 1 || t->stride == t->rows * t->cols);
}

// Gives a block of the CUDA back end's pool back (NULL is fine).
static void cuda_free (muon_ctx *ctx, void *p)
{
  const muon_cuda_api *api;
  void **st;
  if (p && cuda_of (ctx, &api, &st) == MUON_OK)
    api->free (*st, p);
}

//---- create / destroy ---------------------------------------------------------------------

muon_status muon_darray_create (muon_ctx *ctx, muon_device device, muon_precision storage,
                                size_t rows, size_t cols, size_t batch, muon_darray **out)
{
  muon_status status = MUON_OK;
  muon_darray *a = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, out != NULL, "out must not be NULL");
  *out = NULL;
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_DEVICE_LIST, device),
         "unknown device %d", (int) device);
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_PRECISION_LIST, storage),
         "unknown storage class %d", (int) storage);
  CHECK (MUON_ERR_BADSHAPE, rows >= 1 && cols >= 1 && batch >= 1,
         "a device array must not be empty");
  size_t es = muon_storage_bytes ((int) storage);
  // more bytes than an address holds: larger than any device (out of memory, as muon_gpu's
  // help promises for an array larger than the device), not a shape error
  CHECK (MUON_ERR_DEVMEM, cols <= SIZE_MAX / rows && batch <= SIZE_MAX / (rows * cols)
                              && rows * cols * batch <= SIZE_MAX / 8,
         "%zu x %zu x %zu elements do not fit in memory", rows, cols, batch);
  CHECKMEM (a = calloc (1, sizeof *a));
  *a = (muon_darray) { device, storage, rows, cols, batch, rows * cols * batch,
                       rows * cols * batch * es, NULL, ctx };
  if (device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->alloc (st, a->bytes, &a->data, msg, sizeof msg), msg));
  }
  else
  {
    muon_darray_cpu *d = NULL;
    CHECKSTATUS (muon_darray_cpu_dev (ctx, &d));
    a->data = malloc (a->bytes);
    CHECK (MUON_ERR_DEVMEM, a->data != NULL,
           "the CPU stand-in device has no room for %zu bytes", a->bytes);
    d->in_use += a->bytes;
  }
  *out = a;
  a = NULL;
fail:
  free (a);
  return status;
}

muon_status muon_darray_destroy (muon_ctx *ctx, muon_darray **a)
{
  if (a == NULL)
    return MUON_ERR_NULLPTR;
  if (*a == NULL)
    return MUON_OK;
  // no context: nothing to count the bytes back to (the owner may be gone, so its pointer is
  // never followed), and a CUDA block has no pool to go back to; freeing the host memory
  // alone left the owner's in_use counting bytes no array held
  if (ctx == NULL)
    return MUON_ERR_NULLPTR;
  // another context's pool and counter would take the array's bytes (its in_use wrapped
  // below zero)
  if (ctx->polling)                  // (called from the poll of a call running on ctx)
    return muon_ctx_busy (ctx);
  if (ctx != (*a)->owner)
    return muon_ctx_set_error (ctx, MUON_ERR_BADARG, "the array belongs to another context");
  muon_darray *p = *a;
  *a = NULL;
  if (p->device == MUON_DEVICE_CUDA)
    cuda_free (ctx, p->data);
  else
  {
    muon_darray_cpu *d = muon_ctx_lookup (ctx, "darray.cpu");
    if (d)
      d->in_use -= p->bytes;
    free (p->data);
  }
  free (p);
  return MUON_OK;
}

muon_status muon_darray_describe (const muon_darray *a, muon_darray_info *info)
{
  if (a == NULL || info == NULL)
    return MUON_ERR_NULLPTR;
  *info = (muon_darray_info) { a->device, a->storage, a->rows, a->cols, a->batch, a->bytes };
  return MUON_OK;
}

//---- conversions --------------------------------------------------------------------------

// dst[i] = src[i] for n elements, from class st to dt, on `device` (pointers of that device).
static muon_status convert (muon_ctx *ctx, muon_device device, void *dst, int dt,
                            const void *src, int st, size_t n)
{
  muon_status status = MUON_OK;
  if (device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **state;
    char msg[256] = "";
    CHECKSTATUS (cuda_of (ctx, &api, &state));
    CHECKSTATUS (cuda_status (ctx, api->convert (state, dst, dt, src, st, n, msg, sizeof msg),
                              msg));
  }
  else if (dt == st)                 // the same class: the bytes (an upload, a gather)
    memcpy (dst, src, n * muon_storage_bytes (st));
  else
    for (size_t i = 0; i < n; i++)
      muon_elem_store (dt, dst, i, muon_elem_load (st, src, i));
fail:
  return status;
}

// A working array of class `storage` like a (same device and shape).
static muon_status twin (muon_ctx *ctx, const muon_darray *a, muon_precision storage,
                         muon_darray **out)
{
  return muon_darray_create (ctx, a->device, storage, a->rows, a->cols, a->batch, out);
}

// The fp32 working copy of a 16-bit array (NULL and OK for double / single: a is used as it
// is); `load` 0 leaves it uninitialized (an output).
static muon_status work_copy (muon_ctx *ctx, const muon_darray *a, int load, muon_darray **w)
{
  muon_status status = MUON_OK;
  *w = NULL;
  if (!is_half (a->storage))
    return MUON_OK;
  CHECKSTATUS (twin (ctx, a, MUON_PREC_SINGLE, w));
  if (load)
    CHECKSTATUS (convert (ctx, a->device, (*w)->data, MUON_PREC_SINGLE, a->data,
                          (int) a->storage, a->numel));
fail:
  return status;
}

// Between the host tensor t and a: a = t (to_device), else t = a; converted between t's
// type and a's class where a lives (on the CUDA device through a temporary block).  t is
// only read when to_device.
static muon_status transfer (muon_ctx *ctx, muon_darray *a, muon_tensor *t, int to_device)
{
  muon_status status = MUON_OK;
  void *tmp = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, a != NULL, "the device array must not be NULL");
  CHECK (MUON_ERR_BADSHAPE, dense_host (t, a),
         "the %s must be a dense %zu x %zu x %zu double or single host array",
         to_device ? "source" : "destination", a->rows, a->cols, a->batch);
  int hs = t->dtype == MUON_F64 ? MUON_PREC_DOUBLE : MUON_PREC_SINGLE, as = (int) a->storage;
  if (a->device == MUON_DEVICE_CPU)
  {
    if (to_device)
      CHECKSTATUS (convert (ctx, MUON_DEVICE_CPU, a->data, as, t->data, hs, a->numel));
    else
      CHECKSTATUS (convert (ctx, MUON_DEVICE_CPU, t->data, hs, a->data, as, a->numel));
    goto fail;
  }
  const muon_cuda_api *api;
  void **st;
  char msg[256] = "";
  size_t bytes = a->numel * muon_storage_bytes (hs);
  int dir = to_device ? MUON_COPY_H2D : MUON_COPY_D2H;
  CHECKSTATUS (cuda_of (ctx, &api, &st));
  if (hs == as)                                    // raw bytes, no conversion
  {
    CHECKSTATUS (cuda_status (ctx, api->copy (st, to_device ? a->data : t->data,
                                              to_device ? t->data : a->data, bytes, dir, msg,
                                              sizeof msg), msg));
    goto fail;
  }
  CHECKSTATUS (cuda_status (ctx, api->alloc (st, bytes, &tmp, msg, sizeof msg), msg));
  if (to_device)                                   // the host's bytes, converted there
  {
    CHECKSTATUS (cuda_status (ctx, api->copy (st, tmp, t->data, bytes, dir, msg, sizeof msg),
                              msg));
    CHECKSTATUS (convert (ctx, MUON_DEVICE_CUDA, a->data, as, tmp, hs, a->numel));
  }
  else
  {
    CHECKSTATUS (convert (ctx, MUON_DEVICE_CUDA, tmp, hs, a->data, as, a->numel));
    CHECKSTATUS (cuda_status (ctx, api->copy (st, t->data, tmp, bytes, dir, msg, sizeof msg),
                              msg));
  }
fail:
  cuda_free (ctx, tmp);
  return status;
}

muon_status muon_darray_upload (muon_ctx *ctx, muon_darray *a, const muon_tensor *src)
{
  return transfer (ctx, a, (muon_tensor *) src, 1);
}

muon_status muon_darray_download (muon_ctx *ctx, const muon_darray *a, muon_tensor *dst)
{
  return transfer (ctx, (muon_darray *) a, dst, 0);
}

muon_status muon_darray_fill (muon_ctx *ctx, muon_darray *a, muon_fill fill, uint64_t seed)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, a != NULL, "the device array must not be NULL");
  CHECK (MUON_ERR_BADARG, MUON_IN_LIST (MUON_FILL_LIST, fill),
         "unknown fill %d", (int) fill);
  if (a->device == MUON_DEVICE_CUDA)
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->fill (st, a->data, (int) a->storage, a->numel,
                                              (int) fill, seed, msg, sizeof msg), msg));
  }
  else if (fill == MUON_FILL_ZEROS)
    memset (a->data, 0, a->bytes);                 // +0 in every class
  else
    for (size_t i = 0; i < a->numel; i++)
      muon_elem_store ((int) a->storage, a->data, i, muon_randn_at (seed, i));
fail:
  return status;
}

muon_status muon_darray_copy (muon_ctx *ctx, const muon_darray *src, muon_darray *dst)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, src != NULL && dst != NULL, "the device arrays must not be NULL");
  CHECK (MUON_ERR_BADSHAPE, src->device == dst->device && src->rows == dst->rows
                              && src->cols == dst->cols && src->batch == dst->batch,
         "the copy must have the device and shape of the source");
  if (src == dst)
    goto fail;
  if (src->device == MUON_DEVICE_CPU || src->storage != dst->storage)
    CHECKSTATUS (convert (ctx, src->device, dst->data, (int) dst->storage, src->data,
                          (int) src->storage, src->numel));
  else
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (cuda_status (ctx, api->copy (st, dst->data, src->data, src->bytes,
                                              MUON_COPY_D2D, msg, sizeof msg), msg));
  }
fail:
  return status;
}

//---- NS and the update where the data lives -----------------------------------------------

// The fp32 work copy w back into the 16-bit array a.  A value past a's range (fp16's 65504)
// becomes Inf there: *warn becomes MUON_WARN_NONFINITE then, as the NS counts its own.
static muon_status from_work (muon_ctx *ctx, muon_darray *a, const muon_darray *w,
                              muon_status *warn)
{
  muon_status status = MUON_OK;
  int finite = 1;
  double sumsq;
  CHECKSTATUS (convert (ctx, a->device, a->data, (int) a->storage, w->data, MUON_PREC_SINGLE,
                        a->numel));
  if (*warn == MUON_OK)
    CHECKSTATUS (muon_darray_sumsq (ctx, a, NULL, &sumsq, &finite));
  if (!finite)
    *warn = muon_ctx_set_error (ctx, MUON_WARN_NONFINITE,
                                "non-finite values in the result (past its class's range)");
fail:
  return status;
}

muon_status muon_darray_ns (muon_ctx *ctx, const muon_darray *G, muon_darray *X,
                            const muon_ns_opts *o)
{
  muon_status status = MUON_OK;
  muon_darray *gw = NULL, *xw = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, o != NULL, "options must not be NULL");
  CHECKSTATUS (check_pair (ctx, G, "G", X, "X"));
  double t0 = muon_clock ();
  CHECKSTATUS (work_copy (ctx, G, 1, &gw));
  CHECKSTATUS (work_copy (ctx, X, 0, &xw));
  muon_tensor g = view (gw ? gw : G), x = view (xw ? xw : X);
  muon_ns_opts oo = *o;
  oo.device = G->device;
  status = muon_ns (ctx, &g, &x, &oo);
  if (status < 0)                                  // its message is in the context already
    goto fail;
  muon_status warn = status;
  if (xw)
    CHECKSTATUS (from_work (ctx, X, xw, &warn));
  CHECKSTATUS (muon_darray_record_ms (ctx, G->device, t0));
  status = warn;
fail:
  muon_darray_destroy (ctx, &gw);
  muon_darray_destroy (ctx, &xw);
  return status;
}

// E fused row blocks of every page: E pages of (rows / E) x cols, ld = rows, stride rows/E.
static void fuse (muon_tensor *t, size_t E)
{
  t->rows /= E;
  t->batch = E;
  t->stride = t->rows;
}

muon_status muon_darray_update (muon_ctx *ctx, const muon_darray *G, muon_darray *M,
                                muon_darray *U, const muon_update_opts *o, size_t experts)
{
  muon_status status = MUON_OK;
  muon_darray *gw = NULL, *mw = NULL, *uw = NULL;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, o != NULL, "options must not be NULL");
  if (M)
    CHECKSTATUS (check_pair (ctx, G, "G", M, "M"));
  CHECKSTATUS (check_pair (ctx, G, "G", U, "U"));
  CHECK (MUON_ERR_BADARG, G != M && G != U && M != U, "G, M and U must be distinct arrays");
  CHECK (MUON_ERR_BADSHAPE, experts >= 1 && G->rows % experts == 0
                              && (experts == 1 || G->batch == 1),
         "EXPERTS must divide the rows of a 2-D G");
  muon_update_opts here = *o;                    // o->ns.device is ignored: NS runs on G's
  here.ns.device = G->device;                    // device
  // a 16-bit G or M is an fp32 work copy below: torch's arithmetic rounds into its class
  here.g_class = is_half (G->storage) ? G->storage : MUON_PREC_DOUBLE;
  here.m_class = M && is_half (M->storage) ? M->storage : MUON_PREC_DOUBLE;
  CHECKSTATUS (muon_update_check_opts (ctx, &here, G->rows / experts));
  double t0 = muon_clock ();
  CHECKSTATUS (work_copy (ctx, G, 1, &gw));
  if (M)
    CHECKSTATUS (work_copy (ctx, M, 1, &mw));
  CHECKSTATUS (work_copy (ctx, U, 0, &uw));
  muon_tensor g = view (gw ? gw : G), m = M ? view (mw ? mw : M) : g, u = view (uw ? uw : U);
  if (experts > 1)
  {
    fuse (&g, experts);
    fuse (&m, experts);
    fuse (&u, experts);
  }
  if (G->device == MUON_DEVICE_CPU)
  {
    muon_update_opts oo = here;
    oo.ns.device = MUON_DEVICE_CPU;
    status = M ? muon_update (ctx, &g, &m, &u, &oo)
               : muon_update_orthogonalize (ctx, &g, &u, &oo);
  }
  else
  {
    const muon_cuda_api *api;
    void **st;
    char msg[256] = "";
    double coef[3 * MUON_MAX_STEPS];
    int steps = 0;
    muon_ns_opts ns = o->ns;                     // what muon_ns refuses on CUDA (AOL)
    ns.device = G->device;
    CHECKSTATUS (muon_ns_check_opts (ctx, &ns));
    CHECKSTATUS (cuda_of (ctx, &api, &st));
    CHECKSTATUS (muon_ns_schedule (ctx, &o->ns, coef, MUON_MAX_STEPS, &steps));
    muon_update_opts oc = *o;
    oc.g_class = here.g_class;
    oc.m_class = here.m_class;
    status = cuda_status (ctx, api->update (st, &g, M ? &m : NULL, &u, &oc, coef, steps, msg,
                                            sizeof msg), msg);
  }
  if (status < 0)
    goto fail;
  muon_status warn = status;
  if (mw)
    CHECKSTATUS (from_work (ctx, M, mw, &warn));
  if (uw)
    CHECKSTATUS (from_work (ctx, U, uw, &warn));
  CHECKSTATUS (muon_darray_record_ms (ctx, G->device, t0));
  status = warn;
fail:
  muon_darray_destroy (ctx, &gw);
  muon_darray_destroy (ctx, &mw);
  muon_darray_destroy (ctx, &uw);
  return status;
}
