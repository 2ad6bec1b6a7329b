/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* ctx.c - the status table's strings, the context object (last error, workspace, the state
 * subsystems attach to it), the clock, aligned allocation and the tensor helpers every other
 * core file uses.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "muon_internal.h"
#include "tensor_check.h"

//---- status table -------------------------------------------------------------------------

// One row per status, generated from MUON_STATUS_LIST like the enum itself.
static const struct { muon_status status; const char *text, *id; } status_rows[] = {
#define MUON_X_ROW(name, value, text, id) { name, text, id },
  MUON_STATUS_LIST (MUON_X_ROW)
#undef MUON_X_ROW
};

static int status_row (muon_status s)
{
  for (size_t i = 0; i < sizeof status_rows / sizeof status_rows[0]; i++)
    if (status_rows[i].status == s)
      return (int) i;
  return -1;
}

const char *muon_status_string (muon_status s)
{
  int i = status_row (s);
  return i < 0 ? "unknown status" : status_rows[i].text;
}

const char *muon_status_id (muon_status s)
{
  int i = status_row (s);
  return i < 0 ? "unknown" : status_rows[i].id;
}

//---- context ------------------------------------------------------------------------------

double muon_clock (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (double) ts.tv_sec + 1e-9 * (double) ts.tv_nsec;
}

void *muon_aligned_alloc (size_t bytes)
{
  void *p = NULL;
  if (bytes == 0)
    bytes = 64;
  if (posix_memalign (&p, 64, bytes) != 0)
    return NULL;
  return p;
}

void muon_aligned_free (void *p)
{
  free (p);
}

muon_status muon_ctx_create (muon_ctx **ctx)
{
  if (ctx == NULL)
    return MUON_ERR_NULLPTR;
  *ctx = calloc (1, sizeof (muon_ctx));
  return *ctx ? MUON_OK : MUON_ERR_NOMEM;
}

muon_status muon_ctx_destroy (muon_ctx **ctx)
{
  if (ctx == NULL)
    return MUON_ERR_NULLPTR;
  if (*ctx && (*ctx)->polling)        // (called from the poll of a call running on it)
    return muon_ctx_busy (*ctx);
  if (*ctx)
  {
    while ((*ctx)->nslots > 0)
      muon_ctx_detach (*ctx, (*ctx)->slots[(*ctx)->nslots - 1].key);
    muon_aligned_free ((*ctx)->workspace);
    free (*ctx);
    *ctx = NULL;
  }
  return MUON_OK;
}

int muon_ctx_poll (muon_ctx *ctx)
{
  if (ctx == NULL || ctx->poll == NULL)
    return 0;
  ctx->polling = 1;
  int stop = ctx->poll (ctx->poll_arg);
  ctx->polling = 0;
  return stop;
}

muon_status muon_ctx_busy (muon_ctx *ctx)
{
  return muon_ctx_set_error (ctx, MUON_ERR_BADARG, "the context is in use by a running call "
                             "(called from its interrupt poll?)");
}

muon_status muon_ctx_set_interrupt_poll (muon_ctx *ctx, int (*poll) (void *arg), void *arg)
{
  CHECKCTX (ctx);
  ctx->poll = poll;
  ctx->poll_arg = poll ? arg : NULL;
  return MUON_OK;
}

const char *muon_ctx_last_error (const muon_ctx *ctx)
{
  return ctx ? ctx->last_error : "no context";
}

muon_status muon_ctx_last_status (const muon_ctx *ctx)
{
  return ctx ? ctx->last_status : MUON_ERR_NULLPTR;
}

const char *muon_ctx_last_where (const muon_ctx *ctx)
{
  return ctx ? ctx->last_where : "";
}

static muon_status set_error (muon_ctx *ctx, muon_status code, const char *file, int line,
                              const char *func, const char *fmt, va_list ap)
{
  if (fmt == NULL)                  // (vsnprintf's format must not be NULL)
  {
    code = MUON_ERR_NULLPTR;
    fmt = "the error message's format must not be NULL";
    file = NULL;                    // the caller's fault, not a place in core
  }
  if (ctx == NULL)
    return code;
  ctx->last_status = code;
  vsnprintf (ctx->last_error, sizeof ctx->last_error, fmt, ap);
  if (file && code != MUON_OK)
    snprintf (ctx->last_where, sizeof ctx->last_where, "%s:%d (%s)", file, line, func);
  else
    ctx->last_where[0] = '\0';
  return code;
}

// The public function (the gateways' errors: no place in core); inside core the macro of
// muon_internal.h calls muon_ctx_set_error_at with the caller's place.
muon_status (muon_ctx_set_error) (muon_ctx *ctx, muon_status code, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  muon_status s = set_error (ctx, code, NULL, 0, NULL, fmt, ap);
  va_end (ap);
  return s;
}

muon_status muon_ctx_set_error_at (muon_ctx *ctx, muon_status code, const char *file, int line,
                                   const char *func, const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  muon_status s = set_error (ctx, code, file, line, func, fmt, ap);
  va_end (ap);
  return s;
}

muon_status muon_workspace_get (muon_ctx *ctx, size_t bytes, void **ptr)
{
  muon_status status = MUON_OK;
  CHECKCTX (ctx);
  CHECK (MUON_ERR_NULLPTR, ptr != NULL, "workspace pointer must not be NULL");
  if (bytes > ctx->workspace_bytes || ctx->workspace == NULL)
  {
    muon_aligned_free (ctx->workspace);
    ctx->workspace_bytes = 0;
    ctx->workspace = muon_aligned_alloc (bytes);
    CHECK (MUON_ERR_NOMEM, ctx->workspace != NULL,
           "out of memory allocating a %zu-byte workspace", bytes);
    ctx->workspace_bytes = bytes;
  }
  *ptr = ctx->workspace;
fail:
  return status;
}

size_t muon_workspace_size (const muon_ctx *ctx)
{
  return ctx ? ctx->workspace_bytes : 0;
}

muon_status muon_ctx_release (muon_ctx *ctx, size_t keep, size_t *freed)
{
  CHECKCTX (ctx);
  size_t held = ctx->workspace_bytes;
  if (held > keep)
  {
    muon_aligned_free (ctx->workspace);
    ctx->workspace = NULL;
    ctx->workspace_bytes = 0;
  }
  for (int i = ctx->nslots - 1; keep == 0 && i >= 0; i--)
    if (ctx->slots[i].kind == MUON_CTX_CACHE)
      muon_ctx_detach (ctx, ctx->slots[i].key);
  if (freed)
    *freed = held > keep ? held : 0;
  return MUON_OK;
}

//---- subsystem state (muon_internal.h) -----------------------------------------------------

static int slot_of (const muon_ctx *ctx, const char *key)
{
  for (int i = 0; i < ctx->nslots; i++)
    if (strcmp (ctx->slots[i].key, key) == 0)
      return i;
  return -1;
}

muon_status muon_ctx_attach (muon_ctx *ctx, const char *key, void *state,
                             muon_ctx_free_fn destroy, int kind)
{
  muon_status status = MUON_OK;
  if (ctx == NULL)
    status = MUON_ERR_NULLPTR;
  else if (key == NULL)
    status = muon_ctx_set_error (ctx, MUON_ERR_NULLPTR, "a context slot needs a key");
  else if (slot_of (ctx, key) >= 0)
    status = muon_ctx_set_error (ctx, MUON_ERR_BADARG, "the context holds %s already", key);
  else if (ctx->nslots == MUON_CTX_SLOTS)
    status = muon_ctx_set_error (ctx, MUON_ERR_NOMEM, "the context's %d slots are taken",
                                 MUON_CTX_SLOTS);
  if (status != MUON_OK)
  {
    if (destroy && state)
      destroy (state);
    return status;
  }
  ctx->slots[ctx->nslots++] = (muon_ctx_slot) { key, state, destroy, kind };
  return MUON_OK;
}

void *muon_ctx_lookup (const muon_ctx *ctx, const char *key)
{
  int i = ctx && key ? slot_of (ctx, key) : -1;
  return i >= 0 ? ctx->slots[i].state : NULL;
}

muon_status muon_ctx_state (muon_ctx *ctx, const char *key, size_t bytes,
                            muon_ctx_free_fn destroy, int kind, void **state)
{
  muon_status status = MUON_OK;
  void *s = muon_ctx_lookup (ctx, key);
  if (s == NULL)
  {
    CHECKMEM (s = calloc (1, bytes));
    CHECKSTATUS (muon_ctx_attach (ctx, key, s, destroy, kind));
  }
  *state = s;
fail:
  return status;
}

void muon_ctx_detach (muon_ctx *ctx, const char *key)
{
  int i = ctx && key ? slot_of (ctx, key) : -1;
  if (i < 0)
    return;
  muon_ctx_slot s = ctx->slots[i];
  memmove (ctx->slots + i, ctx->slots + i + 1, (size_t) (ctx->nslots - i - 1) * sizeof s);
  ctx->nslots--;
  if (s.destroy && s.state)
    s.destroy (s.state);
}

//---- tensors ------------------------------------------------------------------------------

muon_tensor muon_tensor_batch (muon_dtype dtype, void *data, size_t rows, size_t cols,
                               size_t batch)
{
  muon_tensor t = { dtype, MUON_DEVICE_CPU, rows, cols, batch, rows, rows * cols, data };
  return t;
}

muon_tensor muon_tensor_matrix (muon_dtype dtype, void *data, size_t rows, size_t cols)
{
  return muon_tensor_batch (dtype, data, rows, cols, 1);
}

muon_status muon_tensor_check (muon_ctx *ctx, const muon_tensor *t, const char *name)
{
  return muon_tensor_check_on (ctx, t, name, MUON_DEVICE_CPU);
}

muon_status muon_tensor_check_on (muon_ctx *ctx, const muon_tensor *t, const char *name,
                                  muon_device where)
{
  muon_status status = MUON_OK;
  char why[192];
  CHECKCTX (ctx);
  muon_status fault = muon_tensor_fault_on (t, name, where, why, sizeof why); // tensor_check.h
  CHECK (fault, fault == MUON_OK, "%s", why);
fail:
  return status;
}

int muon_size_key_desc (const void *a, const void *b)
{
  const muon_size_key *x = a, *y = b;
  if (x->numel != y->numel)
    return x->numel > y->numel ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}

int muon_shape_key_desc (const void *a, const void *b)
{
  const muon_shape_key *x = a, *y = b;
  if (x->rows != y->rows)
    return x->rows > y->rows ? -1 : 1;
  if (x->cols != y->cols)
    return x->cols > y->cols ? -1 : 1;
  return x->index < y->index ? -1 : (x->index > y->index);
}
