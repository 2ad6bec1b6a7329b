/* Copyright (C) 2026 muonlab developers
   SPDX-License-Identifier: GPL-3.0-or-later */

/* zero_step_impl.h - what the distributed Muon variants share: zero_step_api.c has the
 * checks, the dispatch and the assembly; one file per family of steps, each paired with its
 * cost model (zero_cost_<family>.c): zero_step_zero12.c (the ZeRO-1/2 family), zero_step_rr.c
 * (round robin, LPT), zero_step_a2a.c (the row-shard designs), zero_step_ep.c (expert
 * parallelism); zero_step_common.c the helpers they all call.  The step function of each
 * variant is named in the variant table, zero_variant.h.
 *
 * Conventions: `l` is a local rank (0 .. nl-1) and r = muon_comm_rank (comm, l) its global
 * rank; matrices handed to muon_update are column-major rows x cols (Octave's layout); the
 * flat and partitioned buffers hold them ROW-major (torch's), element k of matrix p being
 * (k / cols, k % cols).
 */
#ifndef MUON_ZERO_STEP_IMPL_H
#define MUON_ZERO_STEP_IMPL_H

#include "math_internal.h"
#include "zero_variant.h"

struct zstep {
  muon_ctx *ctx;
  muon_comm *comm;
  const muon_zero_plan *P;
  const muon_zero_step_opts *o;
  int nl;                          // local ranks
  const double *const *grads;      // [nl * nparams]
  double *const *mom;              // [nl]
  double *const *upd;              // [nl]
  size_t *upd_at;                  // [world * nparams]: where p's span starts in upd of rank r
  muon_zero_rank_stats *st;        // [nl]
  double *work;                    // three matrices of the largest size (G, M, U or X, U)
  void *scratch;                   // the context's block for the per-rank buffers
  int warned;                      // a muon_update returned MUON_WARN_NONFINITE
  double factor;                   // multiplies the update scale of the NS calls now (1;
                                   // MuonBP's block steps: o->block_scale)
};

static inline int zrank (const zstep *z, int l) { return muon_comm_rank (z->comm, l); }

// Column-major position of row-major element k of a rows x cols matrix.
static inline size_t zcm (size_t k, size_t rows, size_t cols)
{
  return (k % cols) * rows + k / cols;
}

// Local rank l's gradient of matrix p.
static inline const double *zgrad (const zstep *z, int l, size_t p)
{
  return z->grads[(size_t) l * z->P->nparams + p];
}

//---- zero_step_api.c, for the device step too (zero_step_dev.c) ----------------------------

// The checks of a step's communicator, plan and options (not of its buffers).
muon_status zstep_check (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                         const muon_zero_step_opts *o);
// The sharing rules of a step's buffers (muon_zero_step's, for the device step too on the
// arrays' memory): two local ranks' momentum or update buffers sharing memory, BADARG, except
// the reference design's local ranks passing rank 0's momentum pointer (DDP's W equal copies,
// updated once: update_held); a gradient sharing memory with one of them, BADARG.  Non-NULL
// buffers (NULL only where the length is 0).
muon_status zstep_check_buffers (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                                 const double *const *grads, double *const *momentum,
                                 double *const *updates);
// Where each rank's span of p starts in its update buffer.  [out] *at[world * nparams]
// (malloc'ed).
muon_status zstep_span_offsets (muon_ctx *ctx, const muon_zero_plan *P, size_t **at);
// st[l].comm = the counters of every local rank before the step; after it, the difference,
// and st[l].momentum_elements.
muon_status zstep_stats_begin (muon_ctx *ctx, muon_comm *comm, muon_zero_rank_stats *st);
muon_status zstep_stats_end (muon_ctx *ctx, muon_comm *comm, const muon_zero_plan *P,
                             muon_zero_rank_stats *st);

// A step whose ranks are not all driven here (MPI, NCCL: the others wait for this process in
// its collectives) runs to its end without the context's interrupt poll: stopped here alone
// by a Ctrl-C, it would leave them waiting for ever.  (A Ctrl-C at the terminal reaches
// every rank, and mpirun ends the job.)  *saved: the poll to give back with
// zstep_poll_resume, on every exit.
typedef struct
{
  int (*poll) (void *arg);
  void *arg;
} zstep_poll;
muon_status zstep_poll_hold (muon_ctx *ctx, muon_comm *comm, zstep_poll *saved);
muon_status zstep_poll_resume (muon_ctx *ctx, const zstep_poll *saved);

//---- zero_step_rr.c, for the device step too -------------------------------------------------

// The shipped ZeRO-3 pads: the size of the one pad per rank (shaped like the last matrix of
// the flat order) and how many pad slots the rounds list (o->pad_count's rule).
void zstep_rr_pads (const muon_zero_plan *P, const muon_zero_step_opts *o, size_t *pad_numel,
                    size_t *npads);
// The shipped all-gather cannot take a round whose slots differ in size: BADSHAPE (DeepSpeed
// PR 8628), before anything moves.
muon_status zstep_rr_check_rounds (muon_ctx *ctx, const muon_zero_plan *P,
                                   const muon_zero_step_opts *o);

//---- zero_step_ep.c, for the device step too -------------------------------------------------

// Expert parallelism's Newton-Schulz units: an expert page (rows [e M, (e + 1) M) of a fused
// (E M) x N weight) or a whole dense matrix, row-major elements [k0, k1) of matrix p, and the
// rank that orthogonalizes it.
typedef struct {
  size_t p, k0, k1;
  int owner;
} zstep_ep_unit;

typedef struct {
  zstep_ep_unit *u;                // nu units, in matrix order, pages in page order
  size_t nu;
  const muon_zero_piece **piece;   // world * nparams: rank q's piece of p, or NULL
  size_t *sc, *rc;                 // nl * W: all-to-all counts to / from each rank
  size_t most;                     // the largest send or receive total of a local rank
} zstep_ep_plan;

// The units, their owners (expert e of E on rank floor (e W / E), dense matrices by LPT
// after the experts), the pieces and each local rank's counts.  [out] *e, freed with
// zstep_ep_plan_free (also after an error).
muon_status zstep_ep_plan_make (muon_ctx *ctx, const muon_zero_plan *P,
                                const muon_zero_step_opts *o, muon_comm *comm,
                                zstep_ep_plan *e);
void zstep_ep_plan_free (zstep_ep_plan *e);
// The elements [*a, *b) of unit u that rank q holds (returns b - a; 0 when none).
size_t zstep_ep_overlap (const zstep_ep_plan *e, size_t np, int q, const zstep_ep_unit *u,
                         size_t *a, size_t *b);

//---- zero_step_common.c ----------------------------------------------------------------------

// Row-major elements [k0, k1) of the column-major rows x cols matrix A into dst (k0 at
// dst[0]), and back: A gets them from src.  Tiled: what every pack and unpack uses.
void zstep_gather_rm (const double *A, size_t rows, size_t cols, size_t k0, size_t k1,
                      double *dst);
void zstep_scatter_rm (const double *src, size_t rows, size_t cols, size_t k0, size_t k1,
                       double *A);

// Writes the elements of rank r's span of matrix p from the column-major U into its update
// buffer (row-major order).
void zstep_put_owned (zstep *z, int l, size_t p, const double *U);

// One muon_update of a rows x cols matrix (all column-major, distinct buffers); counts the
// call.  G is read only.  p: the matrix of the plan it is (rows, cols its shape), cut into
// its blocks (o->blocks: experts, split row blocks); ZSTEP_PLAIN: one block of rows x cols.
#define ZSTEP_PLAIN SIZE_MAX
muon_status zstep_update (zstep *z, int l, size_t p, const double *G, double *M, double *U,
                          size_t rows, size_t cols);

// U = scale * NS (X) for an already formed Newton-Schulz input X; counts the call.  p as
// for zstep_update.
muon_status zstep_orthogonalize (zstep *z, int l, size_t p, const double *X, double *U,
                                 size_t rows, size_t cols);

// U = scale * NS (X) of one page of matrix p (rows x cols: rows / experts of p's rows), cut
// into p's split row blocks; counts the call.
muon_status zstep_orthogonalize_page (zstep *z, int l, size_t p, const double *X, double *U,
                                      size_t rows, size_t cols);

// Momentum on local rank l's partition (MUON_ZERO_MOM_PART): for every element of its
// pieces, the momentum step from the averaged gradient part[] and the Newton-Schulz input
// into x[] (the same offsets).
void zstep_momentum_part (zstep *z, int l, const double *part, double *x);

// The reduce-scatter frame of the designs on the layout's partition (zero_step_common.c: the
// ZeRO-1/2 family and expert parallelism): every local rank's gradients packed into
// its partitioned buffer flat[l] (W S), reduce-scattered (AVG) into part[l] (S) and written
// back into its own partition of flat[l]; then `then`.
typedef muon_status (*zstep_after_rs) (zstep *z, double **flat, double **part);
muon_status zstep_reduce_scatter_then (zstep *z, zstep_after_rs then);

// Matrix p's blocks: experts (>= 1) and its split row blocks of one page (NULL, 0: none).
void zstep_blocks (const zstep *z, size_t p, size_t *experts, const size_t **split,
                   size_t *nsplit);

// Matrix p (column-major, into out) from a partitioned buffer W * S laid out as `part` says.
void zstep_unpack (const muon_zero_layout *part, const double *buf, size_t p, double *out);

// The step's scratch: the context's block, reset for this step (zero_step_common.c).
muon_status zstep_scratch_begin (zstep *z);
// A vector of nl pointers, each to `count` doubles, distinct for each rank, zeroed when
// `zero` (else uninitialised: for buffers written whole before they are read).  Valid until
// the step ends; zstep_free_bufs frees the vector.
muon_status zstep_alloc_bufs (zstep *z, size_t count, int zero, double ***bufs);
void zstep_free_bufs (zstep *z, double **bufs);

#endif
