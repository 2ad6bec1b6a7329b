/* muon_update.h - part of the public C API (included by muon.h): the Muon update
 * (core/update.c).  The per-element maths is in muon_update_math.h, shared with CUDA.
 *
 * One update, for every page of G (MUON_FACTS 1.4, 2, 3, 5, 8):
 *   M = beta M + (1 - beta) G      (EMA)   or   M = beta M + G          (SGD)
 *   X = (1 - beta) G + beta M      (EMA)   or   X = G + beta M          (SGD)   [Nesterov]
 *   X = M                                                                       [no Nesterov]
 *   U = scale (rows, cols) * muon_ns (X)     per orthogonalized block
 *
 * Blocks.  Each page of the tensors is one block, so E experts are a batch: a dense 3-D
 * stack (stride rows * cols) or a fused (E*m) x n weight viewed without a copy as E pages of
 * m x n with ld = E*m and stride = m.  split_rows cuts every page further into row blocks
 * (fused QKV, per-head) that are orthogonalized and scaled independently (strided views, no
 * copies).  The scale of a block comes from its own rows x cols unless scale_rows /
 * scale_cols say otherwise (the Keller/DeepSpeed conv quirk scales a 4-D out x in x kh x kw
 * weight by kh / kw).
 *
 * Usage
 *   muon_update_opts o;  muon_update_opts_default (&o);  o.ns.precision = MUON_PREC_DOUBLE;
 *   muon_tensor G = muon_tensor_matrix (MUON_F64, g, m, n), M = ..., U = ...;  // M zeroed
 *   for (step ...) muon_update (ctx, &G, &M, &U, &o);
 */
#ifndef MUON_UPDATE_H
#define MUON_UPDATE_H

#ifdef __cplusplus
extern "C" {
#endif

#define MUON_MOMENTUM_FORM_LIST(X)                                              \
  X (MUON_MOMENTUM_EMA, 0, "ema")                                               \
  X (MUON_MOMENTUM_SGD, 1, "sgd")
typedef enum { MUON_MOMENTUM_FORM_LIST (MUON_ENUM_ITEM) } muon_momentum_form;

#define MUON_SCALE_RULE_LIST(X)                                                 \
  X (MUON_SCALE_KELLER,   0, "keller")   /* sqrt (max (1, rows / cols)) (default) */ \
  X (MUON_SCALE_RMS,      1, "rms")      /* 0.2 sqrt (max (rows, cols)) */      \
  X (MUON_SCALE_SPECTRAL, 2, "spectral") /* sqrt (max (rows, cols)) */          \
  X (MUON_SCALE_UNIT_RMS, 3, "unit_rms") /* sqrt (rows / cols) */               \
  X (MUON_SCALE_NONE,     4, "none")     /* 1 */
typedef enum { MUON_SCALE_RULE_LIST (MUON_ENUM_ITEM) } muon_scale_rule;

#define MUON_MAX_SPLITS 4096

typedef struct {
  double beta;                 // momentum coefficient in [0, 1) (0.95)
  int nesterov;                // 1 (default): NS input from the Nesterov formula; 0: M
  muon_momentum_form form;     // EMA (default) | SGD
  muon_scale_rule scale;       // KELLER (default)
  double scale_factor;         // finite, multiplies the scale (1)
  const size_t *split_rows;    // NULL (default): one block per page; else nsplit row counts
  size_t nsplit;               //   (each >= 1) summing to the page's rows
  size_t scale_rows, scale_cols; // 0, 0 (default): each block's own shape; else both > 0
  muon_ns_opts ns;             // Newton-Schulz options (muon_ns_opts_default)
} muon_update_opts;

void muon_update_opts_default (muon_update_opts *o);

// One Muon update.  [in] G: the gradient (never written).  [in,out] M: the momentum, same
// rows, cols and batch as G (zeros before the first step).  [out] U: the update, same rows,
// cols and batch.  Each of G, M, U may be F64 or F32 and has its own ld and stride; M and U
// must not overlap G or each other.  The momentum arithmetic is fp64, rounded once into M's
// type; the NS input is held in fp64.  Errors: NULLPTR, BADSHAPE (shapes, splits), BADARG
// (options), BADTYPE, UNSUPPORTED, NOMEM, and those of muon_ns; MUON_WARN_NONFINITE when U
// holds non-finite values.
muon_status muon_update (muon_ctx *ctx, const muon_tensor *G, muon_tensor *M, muon_tensor *U,
                         const muon_update_opts *o);

// The scale of a rows x cols block under rule, times factor.  [out] *scale.
muon_status muon_update_scale (muon_ctx *ctx, muon_scale_rule rule, size_t rows, size_t cols,
                               double factor, double *scale);

// Names <-> values: "ema" | "sgd"; "keller" | "rms" | "spectral" | "unit_rms" | "none".
// BADARG for an unknown name, NULLPTR for NULL arguments.
MUON_DECLARE_NAMES (muon_momentum_form, muon_momentum_form)
MUON_DECLARE_NAMES (muon_scale_rule, muon_scale_rule)

#ifdef __cplusplus
}
#endif
#endif
