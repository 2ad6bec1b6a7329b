## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{X} =} muon_ns (@var{G})
## @deftypefnx {muonlab} {@var{X} =} muon_ns (@var{G}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {[@var{X}, @var{stats}] =} muon_ns (@dots{})
## Newton-Schulz orthogonalization of a matrix or of each page of a stack.
##
## @var{G} is a real double or single M x N matrix, or an M x N x E stack of E matrices
## (each page is treated on its own: its own norm, its own iteration), M, N >= 1: a
## 1 x N or N x 1 page (a scalar too) is a matrix of one singular value, which the
## iteration maps as it maps any, @code{X = p (||g|| / (||g|| + Eps)) * g / ||g||} with
## p the schedule's composed scalar map, as torch.optim.Muon, Keller's Muon and DeepSpeed
## take any 2-D tensor (an empty G is a @code{muonlab:badShape} error).  @var{X} has the
## class and shape of @var{G} and approximates the polar factor U*V' of each page, with the
## singular values mapped by the schedule's scalar polynomial instead of to exactly 1.
##
## Each page is normalized, @code{X = G / (norm (G, "fro") + Eps)} (the norm summed in fp64,
## the division in the compute precision), transposed when M > N, and iterated:
## @example
## standard:  A = X*X';  B = b*A + (c*A)*A;  X = a*X + B*X
## gram:      R = X*X', then only n x n products on R, Z, Q, with X = Q*X at restarts and
##            at the end (n = min (M, N))
## @end example
##
## Options (names are case-insensitive):
## @table @asis
## @item "Method"
## @qcode{"standard"} (default) or @qcode{"gram"}.  Gram falls back to standard when
## max/min aspect <= @qcode{"GramMinAspect"} (default 1: square only, as DeepSpeed).
## @item "Steps"
## number of iterations, at most 1000; default 5 for a single triple, else the schedule's
## length.
## @item "Coefficients"
## a schedule name (see @code{muon_coeffs}; default @qcode{"keller"}) or a K x 3 matrix.
## A schedule whose composed map (over the steps run) is negative somewhere on (0, 1]
## warns @code{muonlab:unsafeSchedule}, once per session and schedule: a singular value
## of the normalized input in that range comes out negative, i.e. the result points
## against that singular direction of @var{G} (the shipped @qcode{"aol"} schedule does
## this above 0.884; see @code{ns_schedule_audit}).
## @item "ScheduleMode"
## beyond the schedule: @qcode{"repeat_last"} (default; DeepSpeed, Dion, Dao) or
## @qcode{"cycle"} (Emerging-Optimizers' quintic, simple and aol schedules; see
## @code{muon_coeffs}).
## @item "Precision"
## compute precision @qcode{"double"}, @qcode{"single"}, @qcode{"bf16"} or @qcode{"fp16"}
## (default: the class of @var{G}).  bf16 and fp16 follow the eager-CUDA model: every
## product accumulates in fp32 and is rounded once, every elementwise op is rounded once.
## @item "Restarts"
## Gram restart list, at most 64 0-based iteration indices (default 2; @code{[]} for none;
## an index of 0 or past the last step restarts nothing).
## @item "GramMinAspect"
## see Method.
## @item "Eps"
## normalization eps (default 1e-7).
## @item "Normalize"
## how a page is scaled before the iteration (CPU only): @qcode{"frobenius"} (default,
## above) or @qcode{"aol"}, Turbo-Muon's Almost-Orthogonal-Layer scaling (Boissin et al.
## 2025): on the short side, X = D X0 with D = diag (max (sum_j |X0 X0'|_ij, Eps))^(-1/2),
## which bounds ||X||_2 <= 1 and leaves X closer to orthogonal than the Frobenius norm
## does, so that (with the @qcode{"aol"} schedule) one step can be dropped.  The first
## step reuses the scaling's Gram, D (X0 X0') D, as Turbo-Muon does, so AOL costs no
## extra product.  With NormalizeFirst true, X0 = G / ||G||_F and everything up to the
## one rounding of X is computed in fp32 (fp64 for the sums and D); with false, X0 = r(G)
## and every step is rounded in the compute precision (Turbo-Muon's order; no Frobenius
## step, so fp16 overflows for large inputs).
## @item "NormScale"
## s > 0 (default 1): the norm is multiplied by s, X = G / (s ||G||_F + Eps): dion's
## Polar Express normalization is s = 1.02 with Eps 1e-8 (@code{muon_optimizer}'s NS_PE; Keller's
## is s = 1, Eps 1e-7).  Computed as the core's G / (||G|| + Eps/s) with the first step's
## triple (a, b, c) taken as (a/s, b/s^3, c/s^5): the same map in real arithmetic, the
## first step rounded differently.  Frobenius or AOL alike (AOL's row-sum floor stays Eps);
## not with Trace.
## @item "EpsPlacement"
## where Eps goes: @qcode{"add"} (default) @code{G / (s ||G|| + Eps)} (Keller, DeepSpeed,
## Moonlight, dion) or @qcode{"max"} @code{G / max (s ||G||, Eps)}, torch.optim.Muon's
## @code{norm.clamp (min=eps)} and the @code{F.normalize} of NVIDIA Emerging-Optimizers
## (with Eps 1e-15: its NS_EO).  With
## max a page whose norm is at least Eps/s is normalized exactly as with Eps 0; a smaller
## page is divided by Eps only (EO's eps floor: a degenerate, non-orthogonal result).
## Not with Trace, nor with Normalize @qcode{"aol"} (no Frobenius division there).
## @item "NormalizeFirst"
## true (default): normalize in fp32, then round.  false: the peers' order, round
## @var{G} to the compute precision first (overflows fp16 past 65504: DeepSpeed PR 8533;
## and underflows below its normal range, 6.1e-5 in fp16, 1.2e-38 in bf16 and single: a
## page that loses more than 10% of its norm to that first rounding gives the result of
## the rounded page, worse or zero, and a call on a host array warns
## @code{muonlab:tinyInput}; on a device array it does not).
## @item "Fused"
## false (default): the peers' eager op order above, every product and every elementwise
## op rounded once.  true: each scale-add is the epilogue of its product, computed in the
## accumulation precision and rounded once, as torch.optim.Muon's @code{addmm} (and a
## compiled Keller NS) do: B = r(b A + c P) with P = A A' (A = X X' is exactly symmetric,
## so P is a symmetric product: half the work), X = r(a X + B X), and in Gram Z = r(b R +
## c R R), Q = r(a Q + Z Q), RZ = r(a R + Z R), R = r(a RZ + Z RZ).  Fewer roundings and
## no separate elementwise passes: on CUDA the scalars are cuBLAS's alpha and beta.  Only
## bf16 and fp16 change on the CPU (double and single already run so there: the same
## bits); on CUDA every precision takes the epilogue form.  torch.optim.Muon's own NS
## (bf16) takes NormalizeFirst false and EpsPlacement "max" as well: its bits where the
## products' fp32 sums come out the same (short inner dimensions: 8 x 8 to 12 x 20 are
## tested) and the page's norm is in [Eps, 1.8e19 / sqrt (numel)]: below Eps torch divides
## the rounded page by bf16 (Eps) where muonlab folds Eps / ||G|| into the first step (about
## 2% apart at 0.9 Eps, as close to the fp64 iteration), and past the top torch's fp32 norm
## is Inf and it returns zeros where muonlab's fp64 norm orthogonalizes; torch's CPU addmm
## sums in another order, 0.3-1.5% apart at 64 x 256.
## @item "Batched"
## CUDA, a device-array stack (M x N x E, E > 1): true runs the pages together, every
## product one strided-batched cuBLAS call for all E pages (one launch where there were E;
## for stacks of pages too small to fill the GPU alone).  A page's bits then depend on the
## stack's page count, as cuBLAS picks its kernels for the batch.  false (default): the
## pages run one by one on four streams, each with the bits of that page alone, but for
## the automatic @qcode{"SymBlocks"} below (a 16-bit page with n from 2048 to 4095 takes
## k = 2 in a stack of four pages or more, k = 1 alone; give k to keep it fixed).  Host
## arrays and the CPU are not affected.
## @item "SymBlocks"
## CUDA, bf16 and fp16: the symmetric products (X X', and with "Fused" the standard
## polynomial's A A') as the upper triangle of k x k blocks, k (k + 1) / 2 products in
## place of one (about (k + 1) / (2 k) of the work), then the mirror.  The rows split every
## n / k rounded up to a multiple of 64 (fewer blocks where n is small).  0 (default):
## automatic, 2 where each block still fills the GPU (n >= 4096, or n >= 2048 on a stack
## of four pages or more), else 1 (one product); 1 to 16: that k, for measuring the rule
## on a GPU (@code{make bench-gpu}).  The bits depend on k.  The CPU (its own tiles) and
## double and single (cuBLAS's SYRK) are not affected.
## @item "Device"
## @qcode{"cpu"} (default) or @qcode{"cuda"} (error @code{muonlab:notBuilt} or
## @code{muonlab:noDevice} where unavailable; see @code{muon_info}).  For a host @var{G}
## on CUDA, the pages travel through pinned buffers kept between calls, converted to the
## compute precision on the device, the copy of page k+1 under the NS of page k.  A device
## array @var{G} (@code{muon_gpu}) is computed on its own device with no copy, and
## @var{X} is a device array like it; @var{stats} then holds @code{device},
## @code{device_ms}, the time on the device (CUDA events), @code{tiny_pages} and
## @code{diverged_pages} (below; the device's bound of a page's largest singular value is
## norm (X, "fro") / sqrt (min (m, n)), from its sum of squares: weaker than the power
## method, it tells gross divergence, such as the two examples below).
## @item "Gemm"
## who computes the CPU products: @qcode{"auto"} (default: oneDNN for bf16 where this CPU
## multiplies bf16 natively, from avx512_core_bf16 up; OpenBLAS for the rest; the
## environment variable @env{MUONLAB_GEMM} changes it), @qcode{"openblas"} or
## @qcode{"onednn"} (@code{muonlab:notBuilt} without it).  With oneDNN, bf16 multiplies bf16
## operands natively where the CPU can (fp32 accumulation, then the same rounding as the
## emulation, but subnormal products flushed to zero; elsewhere the fp32 product of the
## same values), fp16 and single use its fp32
## product; @qcode{"double"} always runs on OpenBLAS.  The providers sum in different orders, so their low-precision
## results differ like two GPUs' would (same statistics, not the same bits); the bitwise
## tests against a plain-Octave port use @qcode{"openblas"}.  See @code{muon_info}.
## @item "Threads"
## CPU threads for the products and the elementwise passes.  0 (default) is a constant of
## the machine: @env{OMP_NUM_THREADS} when set, else the cores this process may use, divided
## among the ranks of an MPI job on the same machine (@code{info.gemm.threads} of @code{info = muon_info ()});
## it is never derived from the machine load (and at most 1024).  A count n from 1 to 1024
## is used as given, even above the number of cores (oversubscribed threads are slower,
## never different: the result is the same bits for any count, and @var{stats}.threads
## says how many ran), but for fewer where the process's address-space limit
## (@code{ulimit -v}) cannot hold their stacks twice over.  The previous
## thread settings of OpenBLAS and OpenMP are restored after the call.
## @item "Trace"
## true: @var{stats} gets a field @code{trace}, the per-step record of this very run
## (@var{G} one matrix, CPU), an @code{ns_trace_result}: typing it prints a table of the
## scalars per step, never the arrays; @code{struct (stats.trace)} gives the plain struct.  The core copies the iterate after every step into a
## snapshot buffer (Gram: the product r(Q X) it would form if it stopped there, made
## apart from the run), and R and Q for Gram, in the run's own precision; the result
## and the statistics are those of the run without the trace.  Fields (one row per step
## k = 0 .. Steps; k = 0 is the normalized input): @code{step}, @code{sv_min} and
## @code{sv_max} (the range of the iterate's singular values), @code{polar_error}
## (||X_k - U V'||_F / ||U V'||_F against the fp64 SVD polar factor of @var{G}),
## @code{r_min_eig} (Gram: the smallest eigenvalue of the R step k used: the spurious
## negative eigenvalues of low precision show here; NaN for k = Steps and for the
## standard path), @code{q_cond} (Gram: the condition number of Q after step k; NaN for
## k = 0), @code{gram}, and the snapshots @code{iterates} (M x N x Steps+1), @code{R} and
## @code{Q} (n x n x Steps+1, n = min (M, N), NaN pages where not defined).
## @end table
##
## The optional @var{stats} says where the call's time went: its products (every GEMM and
## symmetric product of every page) against the whole call, the rest being the
## normalization, the elementwise passes and the copies.  Fields: @code{gemm} (who
## multiplied: @qcode{"openblas"}, @qcode{"onednn"} or @qcode{"cublas"}),
## @code{bf16_products} (true: bf16 operands multiplied natively), @code{threads},
## @code{products} (calls; a symmetric product counts once), @code{product_flops} (what
## the products performed: 2*m*n*k for a general product, n*(n+1)*k for SYRK, the sum over
## the blocks of oneDNN's block form of X*X'), @code{product_seconds} (NaN on CUDA, whose
## products are asynchronous), @code{product_gflops} (their rate) and
## @code{total_seconds}.  @code{make bench} uses it to show how close each shape comes to
## the speed its products allow.  @code{tiny_pages} counts the pages whose norm is
## positive but below @qcode{"Eps"}: their result is about G / Eps, far from orthogonal
## (e.g. 1e-200 G gives norm 4e-189), and the call warns once (@code{muonlab:tinyInput});
## always 0 with @qcode{"Normalize", "aol"}, which uses Eps only as the floor of its row
## sums (a row whose sum is below Eps is scaled by Eps^(-1/2), as Turbo-Muon's clamp: with
## NormalizeFirst false the sums are in G's own scale, so small rows of a small G are
## clamped, far from orthogonal, and not counted here).
## @code{diverged_pages} counts the pages whose result has a singular value above twice the
## largest the schedule's composed map gives on [0, 1], where the normalization puts them
## (a power-method lower bound of the page's largest singular value: cheap, never a false
## alarm on a sound run): the iteration diverged, and the call warns
## (@code{muonlab:diverged}).  A @qcode{"NormScale"} below 1 can leave singular values
## above 1, where a schedule may explode: that is told too.  Gram Newton-Schulz in bf16
## does this over long schedules without restarts (its error grows with the steps since
## its last restart: Keller's coefficients on a random 64 x 256 page, restarted only
## before step 2, give a singular value of 500 at 67 steps and overflow by 69, where a
## restart every 5 steps keeps it at 1.2; fp16 grows far slower, 1.19 at 1000 steps); in
## double and single Gram follows the standard iteration to its rounding over any length
## (1e-13 apart at 1000 steps in double).  CANS in bf16 does it too (its composed map
## explodes just above 1, see @code{muon_coeffs}: one of five random 20 x 20 inputs comes
## out with a singular value of 1200).
##
## Ctrl-C stops a long call on the CPU at its next Newton-Schulz step (the interrupt then
## ends the statement, as for any Octave code; nothing is assigned).
##
## Example:
## @example
## G = randn (256, 1024);
## X = muon_ns (G, "Method", "gram", "Precision", "fp16");
## svd (X)(1:3)   % near 1 (Keller's schedule leaves them in about [0.7, 1.2])
## @end example
##
## @seealso{muon_coeffs, polar_metrics, ns_flops, muon_info}
## @end deftypefn

function [X, stats] = muon_ns (G, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  if (isa (G, "muon_gpuarray"))         # on its device, no host copy
    [X, stats] = gpu_ns (G, varargin);
    return;
  endif
  ## finiteness: __muon_ns__ checks it in C (same error), much faster than isfinite here
  check_matrix ("muon_ns", "G", G, false);
  opts = parse_options ("muon_ns", "muon_ns", varargin, "precision", class (G));
  if (! isempty (varargin))             # the default schedule: test_ns_audit keeps it safe
    unsafe_schedule ("muon_ns", opts);
  endif
  top = schedule_top (opts);             # the largest singular value it may give
  s = opts.norm_scale;
  trace = opts.trace;
  opts = rmfield (opts, "trace");
  if (trace && ndims (G) > 2)
    error ("muonlab:badShape", "muon_ns: G must be one matrix (2-D) for TRACE.");
  endif
  check_aol_eps ("muon_ns", opts);
  if (trace && (opts.norm_scale != 1 || ! strcmp (opts.eps_placement, "add")))
    error ("muonlab:badArg",
           "muon_ns: TRACE needs the core's normalization (NORMSCALE 1, EPSPLACEMENT 'add').");
  endif
  if (trace)
    opts = rmfield (opts, {"norm_scale", "eps_placement"});
    opts.trace = 1;
    [X, stats] = __muon_ns__ (G, opts);
    stats.trace = ns_trace_table (G, stats.trace);
  elseif (nargout > 1)
    [X, stats] = ns_run (G, opts);
  else
    X = ns_run (G, opts);
  endif
  ## a page whose norm (times NormScale) is below Eps is scaled down, not orthogonalized:
  ## say so (AOL's scaling uses Eps only as the floor of its row sums)
  tiny = 0;
  if (opts.eps > 0 && strcmp (opts.normalize, "frobenius"))
    if (ismatrix (G))
      nk = norm (G, "fro");             # (a scaled sum: no underflow, no copy)
    else
      nk = arrayfun (@(k) norm (G(:,:,k), "fro"), 1:size (G, 3));
    endif
    tiny = sum (nk > 0 & s * nk < opts.eps);
  endif
  warn_tiny (tiny, opts.eps, s);
  if (! opts.normalize_first)           # (a host G: device arrays returned above)
    warn_prerounded (G, opts.precision);
  endif
  ## a page with a singular value past twice what the schedule's map allows: the iteration
  ## diverged, e.g. bf16 Gram over a long schedule (its error grows with the steps since its
  ## last restart) or a schedule that amplifies the rounding of a low precision (CANS in bf16).
  ## The sound runs of every shipped schedule stay below 1.35 x (finite pages only:
  ## nonFiniteResult has told of the others).
  sx = sv_max_lower (X);
  diverged = sum (isfinite (sx) & sx > 2 * top);
  if (diverged > 0)
    warn_diverged ("muon_ns", diverged, "page(s) of the result have", max (sx(isfinite (sx))),
                   "this schedule gives", top);
  endif
  if (nargout > 1)
    stats.tiny_pages = tiny;
    stats.diverged_pages = diverged;
  endif
endfunction

%!demo
%! ## orthogonalize a 256 x 1024 gradient: the singular values land in Keller's band
%! randn ("state", 1);
%! G = randn (256, 1024);
%! X = muon_ns (G);
%! s = svd (X);
%! printf ("fp64, keller 5 steps: singular values in [%.3f, %.3f]\n", min (s), max (s));
%! Xb = muon_ns (G, "Precision", "bf16", "Method", "gram");
%! printf ("bf16 Gram vs fp64: relative difference %.3g\n", norm (double (Xb) - X, "fro") / norm (X, "fro"));

%!demo
%! ## where the low-precision error comes from: every rounding of the eager order (the
%! ## peers' default) against one per product ("Fused", torch.optim.Muon's addmm)
%! randn ("state", 1);
%! G = randn (256, 1024);
%! X = muon_ns (G);                     # fp64: the iteration itself, rounding aside
%! for prec = {"bf16", "fp16"}
%!   for m = {"standard", "gram"}
%!     o = {"Precision", prec{1}, "Method", m{1}};
%!     e = @(Y) norm (double (Y) - X, "fro") / norm (X, "fro");
%!     printf ("%-4s %-8s eager %.4f   fused %.4f\n", prec{1}, m{1}, e (muon_ns (G, o{:})),
%!             e (muon_ns (G, o{:}, "Fused", true)));
%!   endfor
%! endfor

%!shared G, s0, U, V, phi
%! randn ("state", 1);
%! G = randn (8, 24);
%! [U, S, V] = svd (G, "econ");
%! s0 = diag (S) / (norm (G, "fro") + 1e-7);
%! phi = @(s, c) c(1)*s + c(2)*s.^3 + c(3)*s.^5;

%!test
%! s = s0;
%! for k = 1:5, s = phi (s, [3.4445 -4.7750 2.0315]); endfor
%! X = muon_ns (G);
%! assert (X, U * diag (s) * V', 1e-12 * norm (X, "fro"));
%! assert (muon_ns (G.'), X.', 1e-12 * norm (X, "fro"));
%! assert (muon_ns (G, "method", "GRAM"), X, 1e-12 * norm (X, "fro"));

%!test
%! ## Gram is the standard iteration over long schedules too (exact in exact arithmetic):
%! ## against a plain Octave loop of the standard iteration.  (With its Q mirrored from the
%! ## upper half, Gram drifted: 1.3e-4 at 300 steps in double, 3.5e-3 at 100 in single.)
%! randn ("state", 1);
%! Gd = randn (32, 96);
%! Xs = Gd / (norm (Gd, "fro") + 1e-7);
%! for k = 1:300
%!   A = Xs * Xs';
%!   Xs = 3.4445 * Xs + (-4.7750 * A + 2.0315 * A * A) * Xs;
%! endfor
%! assert (muon_ns (Gd, "Method", "gram", "Steps", 300), Xs, 1e-12);
%! assert (muon_ns (Gd, "Steps", 300), Xs, 1e-12);
%! randn ("state", 1);
%! Gs = single (randn (128, 512));
%! Xd = muon_ns (double (Gs), "Steps", 100);
%! X1 = muon_ns (Gs, "Steps", 100);
%! Xg = muon_ns (Gs, "Method", "gram", "Steps", 100);
%! assert (X1, single (Xd), 1e-5);          # the standard's own fp32 gap: 3.3e-6
%! assert (Xg, single (Xd), 1e-5);          # Gram's: 5.2e-6
%! assert (Xg, X1, 2e-5);

%!test
%! X = muon_ns (single (G));
%! assert (class (X), "single");
%! assert (double (X), muon_ns (G), 3e-5 * norm (muon_ns (G), "fro"));

%!test
%! Gs = cat (3, G, 1e3 * G, 1e-3 * G);
%! X = muon_ns (Gs, "Eps", 0);
%! assert (size (X), [8 24 3]);
%! assert (X(:,:,2), X(:,:,1), 1e-12);
%! assert (X(:,:,3), X(:,:,1), 1e-12);

%!assert (muon_ns (zeros (4, 6)), zeros (4, 6))
%!assert (muon_ns (zeros (4, 6), "Eps", 0), zeros (4, 6))

%!error <Invalid call> muon_ns ()
%!error <muon_ns: G must be a real numeric matrix.> muon_ns (complex (G))
%!error <muon_ns: G must be a double or single matrix, not int8 \(convert it: double \(G\)\)\.> muon_ns (int8 (G))
%!error <muon_ns: G must be a double or single matrix, not logical \(convert it: double \(G\)\)\.> muon_ns (G > 0)
%!error <^muon_ns: G must be a full matrix, not sparse \(convert it: full \(G\)\)\.$> muon_ns (sparse (G))
%!error <muon_ns: G must be a double or single matrix, not char \(convert it: double \(G\)\)\.> muon_ns ("abc")
%!error <muon_ns: G must not be empty.> muon_ns (zeros (0, 3))
%!error <muon_ns: G must not be empty.> muon_ns (zeros (1, 0))
%!error <muon_ns: G must not be empty.> muon_ns (zeros (3, 1, 0))
%!error <muon_ns: G must have 2 or 3 dimensions.> muon_ns (ones (2, 2, 2, 2))
%!error <muon_ns: G must not contain NaN or Inf.> muon_ns ([1 NaN; 2 3])
%!error <muon_ns: G must not contain NaN or Inf.> muon_ns ([1 Inf; 2 3])
%!error <muon_ns: G must not contain NaN or Inf.> muon_ns (single ([1 2; -Inf 3]))
%!error <muon_ns: G must not contain NaN or Inf.> muon_ns (cat (3, G, G + NaN * (G > 2)))
%!error <muon_ns: G must not contain NaN or Inf.> muon_ns (single (cat (3, G, [G(:,1:end-1), [G(1:end-1,end); Inf]])))
%!error <muon_ns: G must not contain NaN or Inf.> muon_ns ([G; G(1,1:end-1), NaN], "Method", "gram")
%!error <muon_ns: options must be NAME, VALUE pairs.> muon_ns (G, "Steps")
%!error <^muon_ns: unknown option 'Foo'\. Options: .*\.$> muon_ns (G, "Foo", 1)
%!error <muon_ns: option names must be strings.> muon_ns (G, 3, 1)
%!error <muon_ns: STEPS must be a positive integer \(at most 1000\).> muon_ns (G, "Steps", 0)
%!error <muon_ns: STEPS must be a positive integer \(at most 1000\).> muon_ns (G, "Steps", 1.5)
%!error <muon_ns: METHOD must be 'standard' or 'gram'.> muon_ns (G, "Method", "fast")
%!error <muon_ns: PRECISION must be 'double', 'single', 'bf16' or 'fp16'.> muon_ns (G, "Precision", "fp8")
%!error <muon_ns: SCHEDULEMODE must be 'repeat_last' or 'cycle'.> muon_ns (G, "ScheduleMode", 1)
%!error <muon_ns: DEVICE must be 'cpu' or 'cuda'; did you mean 'cpu'\?> muon_ns (G, "Device", "tpu")
%!error <^muon_ns: unknown coefficient schedule 'foo'\. Coefficient schedules: .*\.$> muon_ns (G, "Coefficients", "foo")
%!error <muon_ns: COEFFICIENTS must be a schedule name or a K x 3 real matrix.> muon_ns (G, "Coefficients", {1})
%!error <muon_ns: COEFFICIENTS must be a schedule name or a K x 3 real matrix.> muon_ns (G, "Coefficients", [1 2])
%!error <muon_ns: COEFFICIENTS must be a schedule name or a K x 3 real matrix.> muon_ns (G, "Coefficients", [1 2 NaN])
%!error <muon_ns: RESTARTS must be a vector of non-negative integers \(at most 64\)\.> muon_ns (G, "Restarts", -1)
%!error <muon_ns: GRAMMINASPECT must be a finite scalar of at least 1.> muon_ns (G, "GramMinAspect", 0.5)
%!error <muon_ns: EPS must be a non-negative finite scalar.> muon_ns (G, "Eps", -1)
%!error <muon_ns: NORMALIZEFIRST must be true or false.> muon_ns (G, "NormalizeFirst", 2)

%!test
%! ## NormalizeFirst false rounds G first: below fp16's normal range (6.1e-5) it underflows
%! ## (a page of 3e-8 randn loses 56% of its norm; 1e-9 rounds to zero), and says so (Eps 0:
%! ## not the tinyInput of a norm below Eps);
%! ## a page in range, or the default order, does not warn
%! randn ("state", 1);
%! T = 3e-8 * randn (64, 128);
%! warning ("error", "muonlab:tinyInput", "local");
%! Z = 1e-9 * randn (30, 50);
%! S = cat (3, randn (8, 12), 1e-46 * randn (8, 12));   # its second page
%! for c = {{T, "fp16"}, {Z, "fp16"}, {S, "single"}}
%!   try
%!     muon_ns (c{1}{1}, "Precision", c{1}{2}, "NormalizeFirst", false, "Eps", 0);
%!     error ("no warning");
%!   catch err
%!     assert (err.identifier, "muonlab:tinyInput");
%!     assert (! isempty (regexp (err.message, ['^muon_ns: 1 page\(s\) of G lose [0-9]+% of their norm to the rounding to ' c{1}{2} ' before normalization \(NormalizeFirst false\): their result is that of the rounded G \(zero where all is lost\); normalize first, or scale G\.$'])), err.message);
%!   end_try_catch
%! endfor
%! X = muon_ns (1e4 * T, "Precision", "fp16", "NormalizeFirst", false);   # 3e-4: in range
%! X = muon_ns (T, "Precision", "fp16");                                   # normalized first
%! X = muon_ns (T, "Precision", "double", "NormalizeFirst", false);
%!error <muon_ns: GEMM must be 'auto', 'openblas' or 'onednn'.> muon_ns (G, "Gemm", "mkl")
%!error <muon_ns: THREADS must be a non-negative integer \(0: automatic\), at most 1024.> muon_ns (G, "Threads", -1)
%!error <muon_ns: THREADS must be a non-negative integer \(0: automatic\), at most 1024.> muon_ns (G, "Threads", 1025)
%!error id=muonlab:badType muon_ns (int8 (G))
%!error <muon_ns: G must not contain NaN or Inf\.> muon_ns ([1 NaN; 2 3])
%!error id=muonlab:nonFinite muon_ns ([1 NaN; 2 3])
%!error id=muonlab:badArg muon_ns (G, "Foo", 1)

%!function [s, e] = vec_map (s, C, steps)
%! ## the scalar map of a schedule on one singular value s, in fp64: step k applies
%! ## triple min (k, K) (ScheduleMode "repeat_last"); e is the first-order bound of the
%! ## rounding error of s: each step's own rounding, plus the error so far times |p'(s)|
%! e = eps (s);
%! for k = 1:steps
%!   t = C(min (k, rows (C)),:);
%!   e = abs (t(1) + 3*t(2)*s^2 + 5*t(3)*s^4) * e ...
%!       + eps * (abs (t(1)*s) + abs (t(2)*s^3) + abs (t(3)*s^5));
%!   s = t(1) * s + t(2) * s^3 + t(3) * s^5;
%! endfor
%!endfunction

%!test
%! ## a 1 x n, n x 1 or 1 x 1 G (as torch.optim.Muon, Keller and DeepSpeed take any 2-D
%! ## tensor) has one singular value: X_0 = x / (||x|| + Eps) = s_0 u (u = x / ||x||), and
%! ## each step maps s by its triple, X_k = s_k u (the closed form here, fp64), for the
%! ## standard and the Gram iteration (restarts or none), every schedule and step count:
%! ## within the recursion's rounding bound (4-160 ulps; cans' steep first steps 1.8e4;
%! ## seen: half the bound at most)
%! x = [3 -1 2 0.5 -4 1 2 -2];
%! warning ("off", "muonlab:unsafeSchedule", "local");
%! for g = {x, x.', x(1:5), x(1:5).', -0.75, 2e-3}
%!   u = g{1} / norm (g{1});
%!   s0 = norm (g{1}) / (norm (g{1}) + 1e-7);
%!   for c = {"keller", "you", "polar_express", "cans", "aol", "deepseekv4", "cubic5"}
%!     C = muon_coeffs (c{1});
%!     steps = max (rows (C), 5) + (rows (C) == 1) * 2;     # keller: 7 steps
%!     [s, e] = vec_map (s0, C, steps);
%!     ref = s * u;
%!     for m = {{"Method", "standard"}, {"Method", "gram"}, ...
%!              {"Method", "gram", "Restarts", [1 3]}, {"Method", "gram", "Restarts", []}}
%!       X = muon_ns (g{1}, "Coefficients", c{1}, "Steps", steps, m{1}{:});
%!       assert (size (X), size (g{1}));
%!       assert (X, ref, e + 2 * eps (max (abs (ref))));
%!     endfor
%!   endfor
%! endfor

%!test
%! ## the same in single and the 16-bit models (rounding per step: near the fp64 form),
%! ## stacks of vectors (each page on its own), and the converging schedules' polar factor
%! ## x / ||x||: polar_express_eo's composed map at s_0 ~ 1 is 1 to 1e-7, deepseekv4's to 2e-5
%! x = [3 -1 2 0.5 -4 1 2 -2];
%! u = x / norm (x);
%! ref = vec_map (norm (x) / (norm (x) + 1e-7), muon_coeffs ("keller"), 5) * u;
%! for p = {{"single", 1e-6}, {"fp16", 2e-2}, {"bf16", 8e-2}}
%!   for m = {"standard", "gram"}
%!     X = muon_ns (single (x.'), "Precision", p{1}{1}, "Method", m{1});
%!     assert (class (X), "single");
%!     assert (double (X), ref.', p{1}{2} * max (abs (ref)));
%!   endfor
%! endfor
%! S = cat (3, x, -2 * x(end:-1:1), 1e-3 * x);
%! X = muon_ns (S);
%! for e = 1:3
%!   v = S(:,:,e);
%!   r = vec_map (norm (v) / (norm (v) + 1e-7), muon_coeffs ("keller"), 5) * v / norm (v);
%!   assert (X(:,:,e), r, 16 * eps);
%! endfor
%! assert (muon_ns (permute (S, [2 1 3])), permute (X, [2 1 3]), 16 * eps);
%! assert (muon_ns (x, "Coefficients", "polar_express_eo"), u, 1e-7);
%! assert (muon_ns (x.', "Coefficients", "deepseekv4", "Method", "gram"), u.', 2e-5);
%! assert (muon_ns (zeros (1, 4)), zeros (1, 4));

