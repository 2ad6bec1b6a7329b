## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {[@var{U}, @var{state}] =} muon_update (@var{G}, @var{state})
## @deftypefnx {muonlab} {[@var{U}, @var{state}] =} muon_update (@var{G}, @var{state}, @var{name}, @var{value}, @dots{})
## One Muon update: momentum, Nesterov, Newton-Schulz orthogonalization, update scale.
##
## @var{G} is a real double or single gradient: an M x N matrix, an M x N x E stack of E
## independent matrices (experts: per-page normalization, iteration and scale), or a 4-D
## convolution weight out x in x kh x kw (torch's order), viewed as out x (in*kh*kw)
## (Octave drops a trailing kw = 1: such a weight is out x in x kh, a stack of kh matrices;
## pass @code{reshape (@var{G}, out, [])} for the convolution's view).  The matrix (or a
## page, or a block of @qcode{"SplitRows"} or @qcode{"Experts"}) may be 1 x N or N x 1, a
## scalar too, as torch.optim.Muon, Keller's Muon and DeepSpeed take any 2-D tensor: its
## result is the vector normalized, times the schedule's map of its one singular value
## (@code{muon_ns}), times the scale of its r x c (e.g. @qcode{"keller"} gives an N x 1
## sqrt (N), a 1 x N 1); an empty @var{G} is a @code{muonlab:badShape} error.
## @var{U} has the class and shape of @var{G}.  @var{G} itself is never modified (the peers
## overwrite the gradient in place with the Nesterov input; this function does not).
##
## @var{state} is @code{[]} for the first step (zero momentum) or the state returned by
## the previous call (a @code{muon_state}, which shows a summary of a few lines when typed and
## reads as a struct; @code{struct (state)} is taken too); anything else (a cell such as
## @code{@{@}}, a string, a momentum of another size or of a class other than double and
## single) is a @code{muonlab:badState} error, never a fresh start.  It has the fields
## @table @code
## @item momentum
## the momentum buffer, the size of @var{G} (class of @var{G} when it starts from
## @code{[]}; a given buffer keeps its class);
## @item step
## the number of updates done;
## @item form
## the @qcode{"MomentumForm"} that built it (a different option is an error).
## @end table
##
## The update, for every orthogonalized block (r x c):
## @example
## ema:  M = beta*M + (1-beta)*G;   X = (1-beta)*G + beta*M   (Keller, DeepSpeed, torch)
## sgd:  M = beta*M + G;            X = G + beta*M            (Moonlight, Dion, xtuner)
## without Nesterov X = M;   U = scale (r, c) * ScaleFactor * muon_ns (X)
## @end example
## EMA momentum is (1-beta) times SGD momentum, so after the Frobenius normalization both
## give the same NS output, except where the norm of X comes near Eps.  The scale
## multiplies in @var{G}'s class (U is rounded into it), where torch.optim.Muon folds it
## into its parameter update, @code{add_ (update, alpha=-lr*scale)}, one fused rounding of
## p - (lr scale) O: @code{muon_step} does that under @qcode{"MomentumArith"}
## @qcode{"torch"} for a single or double matrix (see @code{muon_optimizer}; with @qcode{"Scale"}
## @qcode{"none"} this function returns that O), and elsewhere rounds U, lr U and p - lr
## U, which differs from torch's parameters in the last bit of a few elements a step (1-5
## of 240 for a single 12 x 20); with a 16-bit @qcode{"Precision"}, Keller, DeepSpeed and
## xtuner scale the 16-bit NS output in place, one rounding more (@code{muon_round (U,
## "bf16")} gives their product; it matters where scale > 1, r > c), and Dao's Muon (dion's
## Gram path too) returns its fp16 Gram result as bf16 (0.17% off the fp16 one) and scales
## that in bf16.  By default (@qcode{"MomentumArith"} @qcode{"fp64"}) M and X are
## computed in double, M rounded once into its class (X held in double for the NS),
## where torch's @code{lerp_} computes in fp32 with fused multiply-adds: 5-30% of the
## momentum's elements then differ in the last bit (37-44% of a 12 x 20 single after 3
## steps), and a bf16 Newton-Schulz can turn one flipped bf16 element of X into a
## different update.  @qcode{"MomentumArith"} @qcode{"torch"}
## gives torch's bits of M and X (below); bit for bit with the peers' update then holds
## where their NS and scale of the same X do (@code{muon_ns}'s "Fused" says where).
##
## Options (names are case-insensitive):
## @table @asis
## @item "Beta"
## momentum coefficient in [0, 1) (default 0.95).  Every algorithm but dion2.
## @item "Nesterov"
## true (default) or false.  Every algorithm but dion and dion2.
## @item "MomentumForm"
## @qcode{"ema"} (default) or @qcode{"sgd"}, as above.  Every algorithm but dion and dion2.
## @item "MomentumArith"
## @qcode{"fp64"} (default): M and X in double, M rounded once into its class, as above.
## @qcode{"torch"}: torch's element-wise ops as the peers write them, EMA
## @code{buf.lerp_ (g, 1-beta)}, @code{g.lerp (buf, beta)} (Keller, torch.optim.Muon,
## DeepSpeed), SGD @code{buf.mul_ (beta).add_ (g)}, @code{g.add (buf, alpha=beta)}
## (Moonlight, Dion, xtuner), in torch's opmath of the momentum's class (fp32 for single
## and for bf16 / fp16 device arrays, fp64 for double) with its fused multiply-adds
## (@code{lerp (a, b, w)} is @code{fma (w, b-a, a)} for |w| < 0.5, else @code{fma (w-1,
## b-a, b)}; @code{mul_} is rounded before @code{add_}; the add with alpha is
## @code{fma (beta, buf, g)}), each result rounded into its class, X into @var{G}'s before
## the NS.  These are torch 2.15's CPU bits (AVX2, AVX512: 0 of 100003 elements apart,
## the sign of a zero aside: with Beta 0 torch's vectorized lerp gives -0 and its scalar
## tail +0, muonlab always the vectorized -0;
## its unvectorized build, ATEN_CPU_CAPABILITY=default, fuses nothing and differs).  The
## Muon family's rules and @qcode{"NormScale"}, @qcode{"EpsPlacement"} take it too (the
## core computes their momentum: torch.optim.Muon's eps floor is @qcode{"EpsPlacement",
## "max"}).  A @code{muonlab:unsupported} error for the sgd form with Nesterov on bf16 /
## fp16 device arrays (torch's 16-bit add with alpha rounds two ways, by where an element
## falls), for @qcode{"dion"} and @qcode{"dion2"} (M += G), and in @code{zero_muon_step}.
## @item "Scale"
## @qcode{"keller"} (default) @code{sqrt (max (1, r/c))} (Keller, DeepSpeed, torch
## "original"); @qcode{"rms"} @code{0.2*sqrt (max (r, c))} (Moonlight, torch
## "match_rms_adamw"); @qcode{"spectral"} @code{sqrt (max (r, c))} (Emerging-Optimizers);
## @qcode{"unit_rms"} @code{sqrt (r/c)} (Scion, Dion "spectral_norm", torch.optim.Muon's
## "spectral_unclamped" since torch 2.14); @qcode{"none"} 1.
## @item "ScaleFactor"
## positive factor multiplying the scale (default 1).
## @item "Experts"
## @var{E}: @var{G} is a fused 2-D (E*M) x N weight of E row blocks, expert e in rows
## (e-1)*M+1 : e*M (xtuner's view); each block is normalized, orthogonalized and scaled on
## its own (from M x N), and @var{U} is returned fused.  Default 1.
## @item "SplitRows"
## [r1 r2 @dots{}], summing to the rows of each block: orthogonalize and scale these row
## blocks independently (fused QKV, per-head), at most 4096 of them.  Default @code{[]}
## (one block).
## @item "ConvScale"
## for a 4-D @var{G}: @qcode{"flattened"} (default) takes the scale from
## out x (in*kh*kw), the matrix that is orthogonalized; @qcode{"last_two"} reproduces the
## Keller/DeepSpeed quirk: their scale reads the gradient's last two dimensions, kh x kw,
## so a 3 x 3 kernel gets scale 1 under keller whatever out and in are (the presets
## @qcode{"keller"} and @qcode{"normuon_zichongli5"}, whose references do this, set it).
## No effect on 2-D and 3-D inputs.  zichongli5's NorMuon also takes a conv weight's
## second moment per (out, in, kh) over kw and keeps ||O|| per kh x kw kernel: that is
## @qcode{"NormAxis"} @qcode{"conv_kernel"}, which its preset sets too.
## @item @code{muon_ns} options
## every option of @code{muon_ns} (@qcode{"Method"}, @qcode{"Precision"},
## @qcode{"Coefficients"}, @qcode{"Steps"}, @dots{}) but @qcode{"Trace"}
## (@code{muon_ns} only), for the orthogonalization of each block; the default precision
## is the class of @var{G}.  Every algorithm but dion (its QR replaces the Newton-Schulz).
## @item "NormScale", "EpsPlacement"
## @code{muon_ns}'s normalization conventions (dion's @code{/(1.02 ||X|| + eps)}, EO's
## @code{/max (||X||, eps)}); not the defaults: the update runs in Octave (see
## @qcode{"Algorithm"}).  @code{zero_muon_step} does not take them.  Every algorithm but
## dion.
## @item "Algorithm"
## the rule (the Muon family of 2026): @qcode{"muon"} (default, the core's update
## above, unchanged), @qcode{"normuon"}, @qcode{"adamuon"}, @qcode{"namo"},
## @qcode{"polargrad"}, @qcode{"scion"}, @qcode{"dion"} or @qcode{"dion2"}; the rules
## are below.  They run in Octave on top of @code{muon_ns}, for one 2-D matrix (or a 4-D
## convolution weight), without @qcode{"Experts"} or @qcode{"SplitRows"}; so does
## @qcode{"muon"} when @qcode{"NormScale"} or @qcode{"EpsPlacement"} is not the default.
## Each convention not given keeps muonlab's default (Beta 0.95, Nesterov, EMA, Keller's
## NS and scale): @qcode{"Preset"} gives a reference's.  An option given (whatever its
## value) that the algorithm does not read (each item says which do) is an error,
## @qcode{"muon_update: ALGORITHM 'dion' does not read NESTEROV."} (@code{muonlab:badArg}),
## where a @qcode{"Preset"}'s own settings are not; @code{muon_optimizer} and
## @code{muon_step} (one option set for every parameter) leave such options unread.
## @item "Preset"
## a reference implementation: sets @qcode{"Algorithm"} and every convention (momentum,
## Nesterov, NS schedule, its normalization and eps, the second-moment axis and eps,
## RMS matching, scale, @dots{}) to that reference's; options given after it override
## one convention at a time (e.g. @code{"Preset", "normuon_eo", "Nesterov", true}),
## options given before it are overridden.  @code{muon_optimizer ("presets")} lists
## them: @qcode{"keller"}, @qcode{"normuon_zichongli5"}, @qcode{"normuon_dion"},
## @qcode{"normuon_eo"}, @qcode{"adamuon_official"}, @qcode{"adamuon_eo"},
## @qcode{"namo_eo"}, @qcode{"polargrad_eo"}, @qcode{"scion_eo"},
## @qcode{"dion_reference"}, @qcode{"dion2"}.  The precision is not a convention here:
## a preset computes in @var{G}'s class (or @qcode{"Precision"}), where the references
## run their Newton-Schulz in bf16 by default (Emerging-Optimizers' fp32_matmul_prec
## "medium", all but PolarGrad; dion's Polar Express always): for NorMuon a bf16 NS moves
## the update by 2-4% (||U_bf16 - U|| / ||U||, 64 x 32 to 1024 x 256).
## @item "Beta2"
## NorMuon's, AdaMuon's and NAMO's second-moment EMA coefficient in [0, 1) (default 0.95).
## It is not tied to @qcode{"Beta"}: AdaMuon's paper (Algorithm 1) uses the momentum's
## beta for V, and the preset @qcode{"adamuon_official"} sets both to 0.95; a
## @qcode{"Beta"} given after it changes the momentum only (give @qcode{"Beta2"} too).
## normuon, adamuon and namo only.
## @item "NormAxis"
## NorMuon / AdaMuon second moment of O = NS (X): @qcode{"row"} one per row,
## @code{mean (O.^2, 2)} (m x 1; NorMuon's default: zichongli5, dion), @qcode{"col"}
## one per column (1 x n), @qcode{"shorter"} the mean along the shorter side: per row
## when m >= n, per column when m < n (Emerging-Optimizers), @qcode{"element"}
## @code{O.^2} (m x n; AdaMuon's default), @qcode{"conv_kernel"}: for a 4-D
## @var{G} (out x in x kh x kw), O viewed as that 4-D weight (torch's view; the same O,
## to rounding, whatever order the columns are flattened in), V one per (out, in, kh),
## the mean of O's squares over kw (out x in x kh, zichongli5's @code{p[..., 0:1]}), the
## @qcode{"RMSMatch"} rescale once per (out, in) kh x kw kernel, on its norms (its
## @code{norm (dim = (-2, -1))}) and, for a number r, @code{r sqrt (kh kw)}; for a 2-D
## @var{G} the same as @qcode{"row"} (the preset @qcode{"normuon_zichongli5"} sets it).
## normuon and adamuon only.
## @item "SignBeforeNS"
## true: orthogonalize @code{sign (X)} (AdaMuon's official code).  Default false.
## normuon and adamuon only.
## @item "VEps", "VEpsPlacement"
## the division by the second moment: @code{O ./ (sqrt (V) + VEps)} (@qcode{"add"},
## default) or @code{O ./ sqrt (max (V, VEps))} (@qcode{"max"}, EO's
## @code{rsqrt (max (V, eps))}); NAMO's @code{sqrt (v) + VEps} likewise.  Positive (a
## zero row of O would give 0/0); default 1e-8.  normuon, adamuon and namo only.
## @item "RMSMatch"
## the rescale of O2 = O ./ den (V): @qcode{"keep"} @code{O2 *= ||O|| / (||O2|| +
## RMSEps)} (NorMuon's default), a number r: @code{O2 *= r sqrt (m n) / (||O2|| + RMSEps)}
## (AdaMuon's 0.2, its default), @qcode{"none"} (Emerging-Optimizers' AdaMuon; its
## NorMuon keeps ||O||, with @qcode{"RMSEpsPlacement"} @qcode{"max"}); per kh x kw
## kernel of a 4-D @var{G} under @qcode{"NormAxis"} @qcode{"conv_kernel"}.  normuon and
## adamuon only.
## @item "RMSShape"
## the m n of a number @qcode{"RMSMatch"}: @qcode{"matrix"} (default) the m x n matrix
## the NS sees (a 4-D out x in x kh x kw @var{G}: out x (in kh kw)), @qcode{"min_max"}
## the smallest times the largest side of @var{G} itself, AdaMuon's official
## @code{(min (p.shape) * max (p.shape))**0.5} (the preset @qcode{"adamuon_official"}
## sets it): the same for a 2-D @var{G}, 3 * 16 for a 16 x 8 x 3 x 3 weight where the
## matrix gives 16 * 72 (a 4.9x larger update).  normuon and adamuon only.
## @item "RMSEps", "RMSEpsPlacement"
## that rescale's eps (positive, default 1e-8) and where it goes: @qcode{"add"} (default)
## @code{||O2|| + RMSEps} or @qcode{"max"} @code{max (||O2||, RMSEps)} (dion's NorMuon).
## normuon and adamuon only.
## @item "Rank"
## Dion's rank r, a positive integer (default min (m, n): full rank).  A larger r is taken
## as min (m, n), as Dion's own code does (@code{r = min (r, m, n)}), so one
## @qcode{"Rank"} serves matrices of every size (@code{muon_optimizer}); the Q of
## @qcode{"DionQ0"} and of the state then has min (m, n) columns.  dion only.
## @item "DionQ0"
## Dion's starting Q, a min (m, n) x r matrix, for an exact comparison with another
## implementation (default: a Gaussian from a fixed seed; the caller's random streams are
## left as they were, but rand's under Octave's old @code{rand ("seed")} generator, which
## cannot give it back).  Used at the first step only.  For a 4-D G of more rows than
## columns (out > in*kh*kw) Q's rows follow the flattened columns in muonlab's order,
## @var{in} fastest; torch's @code{p.reshape (out, -1)} puts @var{kw} fastest, so a Q from
## torch needs its rows permuted: (0-based) torch row (j*kh + k)*kw + l is row
## j + in*k + in*kh*l here (@code{Q0 (reshape (permute (reshape (0:in*kh*kw-1, kw, kh, in),
## [3 2 1]), [], 1) + 1, :)} reorders it).  dion only.
## @item "Fraction", "EFDecay"
## Dion2: the fraction of rows (m <= n) or columns selected each step (default 0.25) and
## the error-feedback decay of the selected momentum (default 0.95).  dion2 only.
## @item "DecayFirst"
## for @code{muon_step} (this function does no decay): true (default, every reference)
## @code{W *= 1 - lr wd} before @code{W -= lr U}; false after it, @code{W = (W - lr U)
## (1 - lr wd)}, which differs by lr^2 wd U.
## @end table
##
## The family's rules, after the momentum (lerp (a, b, w) = a + w (b - a)):
## @example
## ema: M = lerp (M, G, 1-beta); X = lerp (G, M, beta) | M;  sgd: M = beta M + G;
## X = G + beta M | M   (Nesterov | not); scale = the Scale rule on (m, n) * ScaleFactor
## muon, scion  U = scale NS (X); scion decays with wd = 1 in muon_step (W *= 1 - lr)
## normuon      O = NS (X); V = lerp (V, q, 1-Beta2), q per NormAxis (default row;
##              conv_kernel: per (out, in, kh) of a 4-D G, the rescale per kernel);
## adamuon      O2 = O ./ den (V), rescaled per RMSMatch;  U = scale O2
##              (adamuon: NormAxis element, RMSMatch 0.2 by default; SignBeforeNS)
## namo         v = lerp (v, ||G||^2, 1-Beta2) (a scalar, from the raw G, in fp64
##              whatever the class of G: a single G past 1.8e19 squares past single's range);
##              U = scale ||X|| / den (v) NS (X)
## polargrad    O = NS (X); U = scale sum (O(:) .* X(:)) O
## dion         M += G; on B = M (M' when m < n): P = orth (B Q), R = B' P,
##              M -= (1-beta) P R', Q = R ./ (colnorm (R) + 1e-8), U = scale P Q'
## dion2        M += G; the top ceil (Fraction*m) rows by L1 norm (columns when m > n):
##              S = M(sel); M(sel) *= EFDecay; U(sel) = scale NS (S), 0 elsewhere
## @end example
## Nesterov and MomentumForm do not apply to dion and dion2 (their momentum is M += G,
## with Beta in dion's error feedback, EFDecay in dion2's, which does not read Beta):
## given, they are an error, as every option the algorithm does not read.  Dion's products
## and QR run in Octave in a fixed order, not in its threaded BLAS, so its bits do not
## depend on the thread count (several times slower than BLAS on large matrices).  The
## state then has a fourth field, @code{family}:
## @code{algorithm} and @code{buffer} (V, v or Q in the momentum's class or G's, NAMO's v
## in fp64; [] for the others; V is m x 1, 1 x n, m x n or (conv_kernel, 4-D @var{G})
## out x in x kh by NormAxis, Q min (m, n) x Rank); a state of another algorithm, one
## without @code{family} past its first step, a buffer of another size or class, or a
## negative V or v, is a @code{muonlab:badState} error (@code{muon_save_state} and
## @code{muon_load_state} check the same).
##
## A non-finite momentum or second-moment buffer (a poisoned state) is accepted and gives
## a non-finite @var{U}, with the warning @code{muonlab:nonFiniteResult};
## a non-finite @var{G} is an error, and so is, for NAMO, a @var{G} whose squared norm
## overflows fp64 (@code{muon_step} skips such a step).  A block of @var{U} with a
## singular value past twice what its schedule gives times its scale warns
## @code{muonlab:diverged}, as @code{muon_ns} does (Algorithm @qcode{"muon"}; on device
## arrays from each page's sum of squares, which tells a page holding such a block when its
## norm shows it: gross divergence).
##
## Example:
## @example
## state = [];
## for k = 1:10
##   G = randn (64, 256);
##   [U, state] = muon_update (G, state, "MomentumForm", "sgd", "Scale", "rms");
## endfor
## state.step   % 10
## @end example
##
## @seealso{muon_ns, muon_optimizer, muon_step}
## @end deftypefn

function [U, state] = muon_update (G, state, varargin)
  if (nargin < 2)
    print_usage ();
  endif
  [U, state] = run_update ("muon_update", G, state_plain (state), varargin, true);
  state = muon_state ("update", state);   # typing it shows a summary, not the momentum
endfunction

%!shared G, X0
%! randn ("state", 3);
%! G = randn (12, 20);
%! X0 = muon_ns (G, "Eps", 0);

%!test
%! ## first step from zero momentum: X = (1-beta) g + beta (1-beta) g, a multiple of G
%! [U, s] = muon_update (G, [], "Eps", 0);
%! assert (U, X0, 1e-12);
%! assert (s.momentum, 0.05 * G, 1e-15);
%! assert (s.step, 1);
%! assert (s.form, "ema");
%! [U2, s2] = muon_update (G, s);
%! assert (s2.momentum, 0.95 * 0.05 * G + 0.05 * G, 1e-15);
%! assert (s2.step, 2);

%!test
%! ## scale rules (SGD form without Nesterov: the first NS input is G itself)
%! Gt = G.';
%! X = muon_ns (Gt);
%! o = {"MomentumForm", "sgd", "Nesterov", false};
%! assert (muon_update (Gt, [], o{:}), sqrt (20/12) * X, 1e-14);
%! U = muon_update (Gt, [], o{:}, "Scale", "RMS", "ScaleFactor", 2);
%! assert (U, 2 * 0.2 * sqrt (20) * X, 1e-13);
%! assert (muon_update (Gt, [], o{:}, "Scale", "spectral"), sqrt (20) * X, 1e-13);
%! assert (muon_update (G, [], o{:}, "Scale", "unit_rms"), sqrt (12/20) * muon_ns (G), 1e-14);
%! assert (muon_update (G, [], o{:}, "Scale", "none"), muon_ns (G));

%!test
%! ## single in, single out; a 4-D conv weight keeps its shape
%! [U, s] = muon_update (single (G), []);
%! assert (class (U), "single");
%! assert (class (s.momentum), "single");
%! W = randn (4, 3, 3, 3);
%! [U, s] = muon_update (W, []);
%! assert (size (U), [4 3 3 3]);
%! assert (size (s.momentum), [4 3 3 3]);
%! [U, s] = muon_update (W, s);
%! assert (s.step, 2);

%!test
%! ## experts and split rows: per-block results
%! W = [G; 2 * G(:, end:-1:1)];
%! U = muon_update (W, [], "Experts", 2);
%! assert (U(1:12, :), muon_update (G, []));
%! assert (U(13:24, :), muon_update (2 * G(:, end:-1:1), []));
%! U = muon_update (G, [], "SplitRows", [4 8]);
%! assert (U(1:4, :), muon_update (G(1:4, :), []));
%! assert (U(5:12, :), muon_update (G(5:12, :), []));

%!test
%! ## MomentumArith "torch": torch.optim.Muon's buf.lerp_ (g, 0.05) in fp32 with fmaf
%! ## (torch 2.15 wrote 0x3ee749b4 for these m and g); the default fp64 arithmetic
%! ## rounds to the neighbour
%! m = hex2num ("3f0b155d", "single");
%! g = hex2num ("bfa4da72", "single");
%! s = struct ("momentum", m * ones (2, 2, "single"), "step", 1, "form", "ema");
%! [~, t] = muon_update (g * ones (2, 2, "single"), s, "MomentumArith", "torch");
%! assert (num2hex (t.momentum(1)), "3ee749b4");
%! [~, t] = muon_update (g * ones (2, 2, "single"), s);
%! assert (num2hex (t.momentum(1)), "3ee749b3");
%!test
%! ## a poisoned momentum is accepted and gives a non-finite update, with a warning
%! s = struct ("momentum", NaN (size (G)), "step", 3, "form", "ema");
%! lastwarn ("");
%! U = muon_update (G, s);
%! assert (! any (isfinite (U(:))));
%! [~, id] = lastwarn ();
%! assert (id, "muonlab:nonFiniteResult");

%!demo
%! ## EMA vs SGD momentum: the momentum norms differ by 1/(1-beta), the updates do not
%! randn ("state", 1);
%! se = [];  ss = [];
%! for k = 1:50
%!   G = randn (32, 64);
%!   [Ue, se] = muon_update (G, se);
%!   [Us, ss] = muon_update (G, ss, "MomentumForm", "sgd");
%!   r(k,:) = [norm(se.momentum, "fro"), norm(ss.momentum, "fro"), ...
%!             norm(Ue - Us, "fro") / norm(Us, "fro")];
%! endfor
%! semilogy (r, "linewidth", 1.5);
%! legend ("||M|| ema", "||M|| sgd", "relative ||U_{ema} - U_{sgd}||",
%!         "location", "east");          # the empty decades between the curves
%! xlabel ("step");
%! ylabel ("norm, relative difference (log)");
%! title ("EMA vs SGD momentum, 32 x 64 N(0,1) gradients");

%!test
%! ## the family: a preset, then one convention changed after it (NorMuon of EO with
%! ## Nesterov); the state carries the algorithm's buffer (per-column V on a wide G)
%! [U, s] = muon_update (G, [], "Preset", "normuon_eo");
%! assert (s.family.algorithm, "normuon");
%! assert (size (s.family.buffer), [1 20]);
%! assert (s.form, "ema");
%! G2 = G(:, end:-1:1);
%! U1 = muon_update (G2, s, "Preset", "normuon_eo");
%! [~, t] = muon_update (G, [], "Preset", "normuon_eo", "Nesterov", true);
%! U2 = muon_update (G2, t, "Preset", "normuon_eo", "Nesterov", true);
%! assert (norm (U2 - U1, "fro") > 1e-3);
%! [~, t] = muon_update (G, [], "Nesterov", true, "Preset", "normuon_eo");
%! assert (muon_update (G2, t, "Nesterov", true, "Preset", "normuon_eo"), U1);

%!error <Invalid call> muon_update ()
%!error <Invalid call> muon_update (G)
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form\.> muon_update (G, struct ("momentum", {zeros(4,6), zeros(4,6)}, "step", 1, "form", "ema"))
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form\.> muon_update (G, struct ("momentum", {}))
%!error <muon_update: G must be a double or single matrix, not int8 \(convert it: double \(G\)\)\.> muon_update (int8 (G), [])
%!error <muon_update: G must be a real numeric matrix.> muon_update (complex (G), [])
%!error <^muon_update: G must be a full matrix, not sparse \(convert it: full \(G\)\)\.$> muon_update (sparse (G), [])
%!error <muon_update: G must have 2, 3 or 4 dimensions.> muon_update (ones (2, 2, 2, 2, 2), [])
%!error <muon_update: G must not be empty.> muon_update (zeros (1, 0, 3), [])
%!error <muon_update: EXPERTS must divide the number of rows of G.> muon_update (1:5, [], "Experts", 2)
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(1\)\.> muon_update (1:5, [], "SplitRows", [1 1])
%!error <muon_update: G must not contain NaN or Inf.> muon_update ([1 NaN; 2 3], [])
%!error <muon_update: G must not be empty.> muon_update (zeros (0, 3), [])
%!error <muon_update: options must be NAME, VALUE pairs.> muon_update (G, [], "Beta")
%!error <^muon_update: unknown option 'Foo'\. Options: .*\.$> muon_update (G, [], "Foo", 1)
%!error <muon_update: STEPS must be a positive integer \(at most 1000\).> muon_update (G, [], "Steps", 0)
%!error <^muon_update: unknown coefficient schedule 'foo'\. Coefficient schedules: .*\.$> muon_update (G, [], "Coefficients", "foo")
%!error <muon_update: GEMM must be 'auto', 'openblas' or 'onednn'.> muon_update (G, [], "Gemm", "mkl")
%!error <muon_update: BETA must be a scalar in \[0, 1\).> muon_update (G, [], "Beta", 1)
%!error <muon_update: BETA must be a scalar in \[0, 1\).> muon_update (G, [], "Beta", -0.1)
%!error <muon_update: BETA must be a scalar in \[0, 1\).> muon_update (G, [], "Beta", [0.9 0.9])
%!error <muon_update: NESTEROV must be true or false.> muon_update (G, [], "Nesterov", 2)
%!error <muon_update: MOMENTUMFORM must be 'ema' or 'sgd'.> muon_update (G, [], "MomentumForm", "adam")
%!error <muon_update: MOMENTUMARITH must be 'fp64' or 'torch'.> muon_update (G, [], "MomentumArith", "fp32")
%!error <muon_update: MOMENTUMARITH 'torch' does not apply to ALGORITHM 'dion2' \(its momentum is M \+= G\)\.> muon_update (G, [], "Preset", "dion2", "MomentumArith", "torch")
%!error <muon_update: SCALE must be 'keller', 'rms', 'spectral', 'unit_rms' or 'none'.> muon_update (G, [], "Scale", "muP")
%!error <muon_update: SCALEFACTOR must be a positive finite scalar.> muon_update (G, [], "ScaleFactor", 0)
%!error <muon_update: SCALEFACTOR must be a positive finite scalar.> muon_update (G, [], "ScaleFactor", Inf)
%!error <muon_update: CONVSCALE must be 'flattened' or 'last_two'.> muon_update (G, [], "ConvScale", "kh")
%!error <muon_update: EXPERTS must be a positive integer.> muon_update (G, [], "Experts", 1.5)
%!error <muon_update: EXPERTS must be a positive integer.> muon_update (G, [], "Experts", 0)
%!error <muon_update: EXPERTS needs a 2-D fused \(E\*M\) x N weight G.> muon_update (ones (4, 4, 2), [], "Experts", 2)
%!error <muon_update: EXPERTS must divide the number of rows of G.> muon_update (G, [], "Experts", 5)
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(12\).> muon_update (G, [], "SplitRows", [4 4])
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(6\).> muon_update (G, [], "Experts", 2, "SplitRows", [4 8])
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(12\).> muon_update (G, [], "SplitRows", [0 12])
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(12\).> muon_update (G, [], "SplitRows", {})
%!error <muon_update: SPLITROWS has 4097 row blocks; at most 4096.> muon_update (ones (4097, 2), [], "SplitRows", ones (1, 4097))
%!error <muon_optimizer: parameter 'W': SPLITROWS has 4097 row blocks; at most 4096.> muon_optimizer (struct ("W", zeros (4097, 2)), "SplitRows", ones (1, 4097))
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(12\).> muon_update (G, [], "SplitRows", "")
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, 1)
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, struct ("momentum", G))
%!error <muon_update: STATE.momentum must be a real double or single array.> muon_update (G, struct ("momentum", int8 (G), "step", 1, "form", "ema"))
%!error <muon_update: STATE.momentum must match the size of G.> muon_update (G, struct ("momentum", G.', "step", 1, "form", "ema"))
%!error <muon_update: STATE.step must be a non-negative integer.> muon_update (G, struct ("momentum", G, "step", -1, "form", "ema"))
%!error <muon_update: STATE.form must be 'sgd', the MOMENTUMFORM in use.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema"), "MomentumForm", "sgd")
%!error <muon_update: STATE\.momentum must match the size of G\.> muon_update (G, struct ("momentum", G.', "step", 1, "form", "ema"))
%!error id=muonlab:badState muon_update (G, struct ("momentum", G.', "step", 1, "form", "ema"))
%!error <muon_update: BETA must be a scalar in \[0, 1\)\.> muon_update (G, [], "Beta", 1)
%!error id=muonlab:badArg muon_update (G, [], "Beta", 1)
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form\.> muon_update (G, 1)
%!error id=muonlab:badState muon_update (G, 1)
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, {})
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, "")
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, zeros (0, 3))
%!error <muon_update: STATE.momentum must be a real double or single array.> muon_update (G, struct ("momentum", {{}}, "step", 1, "form", "ema"))
%!error <muon_update: STATE.step must be a non-negative integer.> muon_update (G, struct ("momentum", G, "step", Inf, "form", "ema"))
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form\.> muon_update (G, {})
%!error id=muonlab:badState muon_update (G, {})
%!error <muon_update: M must be the size of G.> __muon_update__ (G, G.', struct ())
%!error <muon_update: experts must divide the rows of a 2-D G.> __muon_update__ (G, [], struct ("experts", 5))
%!error <muon_update: the row blocks sum to 4, not to the 12 rows.> __muon_update__ (G, [], struct ("split_rows", [2 2]))
%!error <muon_update: beta must be in \[0, 1\).> __muon_update__ (G, [], struct ("beta", 1))
%!error <muon_update: unknown scale rule 'x'.> __muon_update__ (G, [], struct ("scale", "x"))
%!error <muon_step: parameter 'W': unknown scale rule 'x'.> __muon_update__ (G, [], struct ("fname", "muon_step: parameter 'W'", "scale", "x"))
%!error <muon_optimizer: parameter 'W': M must be the size of G.> __muon_update__ (G, G.', struct ("fname", "muon_optimizer: parameter 'W'"))
%!error <muon_update: PRESET must be 'keller', 'normuon_zichongli5', 'normuon_dion', 'normuon_eo', 'adamuon_official', 'adamuon_eo', 'namo_eo', 'polargrad_eo', 'scion_eo', 'dion_reference' or 'dion2'.> muon_update (G, [], "Preset", "dion3")
%!error <muon_update: ALGORITHM must be 'muon', 'normuon', 'adamuon', 'namo', 'polargrad', 'scion', 'dion' or 'dion2'; did you mean 'adamuon'\?> muon_update (G, [], "Algorithm", "adam")
%!error <muon_update: NORMAXIS must be 'row', 'col', 'shorter', 'element' or 'conv_kernel'.> muon_update (G, [], "NormAxis", 2)
%!error <muon_update: RMSMATCH must be 'keep', 'none' or a positive finite RMS.> muon_update (G, [], "RMSMatch", -1)
%!error <muon_update: BETA2 must be a scalar in \[0, 1\).> muon_update (G, [], "Beta2", 1)
%!error <muon_update: FRACTION must be a scalar in \(0, 1\].> muon_update (G, [], "Fraction", 0)
%!error <muon_update: RANK must be a positive integer.> muon_update (G, [], "Rank", 0)
%!error <muon_update: DIONQ0 must be a real finite 12 x 3 matrix \(min \(m, n\) x RANK\).> muon_update (G, [], "Algorithm", "dion", "Rank", 3, "DionQ0", ones (12, 2))
%!test
%! ## a rank above min (m, n) is min (m, n), as Dion's r = min (r, m, n): the same update
%! ## and a 4-column Q for a 6 x 4 G
%! H = reshape (sin (1:24), 6, 4);
%! [U5, s5] = muon_update (H, [], "Algorithm", "dion", "Rank", 5);
%! [U4, s4] = muon_update (H, [], "Algorithm", "dion", "Rank", 4);
%! [U9] = muon_update (H, [], "Algorithm", "dion", "Rank", 1e10);
%! assert (U5, U4);
%! assert (U9, U4);
%! assert (size (s5.family.buffer), [4 4]);
%!error <muon_update: ALGORITHM 'dion' \(and NORMSCALE, EPSPLACEMENT\) needs one 2-D matrix G: no EXPERTS, SPLITROWS or stack.> muon_update ([G; G], [], "Algorithm", "dion", "Experts", 2)
%!error <muon_update: ALGORITHM 'muon' \(and NORMSCALE, EPSPLACEMENT\) needs one 2-D matrix G: no EXPERTS, SPLITROWS or stack.> muon_update (cat (3, G, G), [], "NormScale", 1.02)
%!error <muon_update: STATE.family must hold the state of ALGORITHM 'namo'.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema"), "Algorithm", "namo")
%!error <muon_update: STATE.family must hold the state of ALGORITHM 'muon'.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema", "family", struct ("algorithm", "dion", "buffer", [])))
%!error <muon_update: STATE.family.buffer must be the 12 x 12 Q of DION.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema", "family", struct ("algorithm", "dion", "buffer", 1)), "Algorithm", "dion")
%!error <muon_update: STATE\.family must hold the state of ALGORITHM 'namo'\.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema"), "Algorithm", "namo")
%!error id=muonlab:badState muon_update (G, struct ("momentum", G, "step", 1, "form", "ema"), "Algorithm", "namo")
%!error <muon_update: STATE.family.buffer must be the scalar v of NAMO.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema", "family", struct ("algorithm", "namo", "buffer", [1 2])), "Algorithm", "namo")
%!error <muon_update: STATE.family must hold the state of ALGORITHM 'namo'.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema", "family", struct ("algorithm", "namo", "buffer", {{1}})), "Algorithm", "namo")
%!error <muon_update: SCALE must be 'keller', 'rms', 'spectral', 'unit_rms' or 'none'.> muon_update (G, [], "Scale", "Preset")
%!error <muon_update: options must be NAME, VALUE pairs.> muon_update (G, [], "Preset", "keller", "Beta")
%!error <muon_update: STATE.family.buffer must not be negative \(the second moment of NAMO\).> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema", "family", struct ("algorithm", "namo", "buffer", -100)), "Algorithm", "namo")
%!error <muon_update: STATE.family.buffer must not be negative \(the second moment of NORMUON\).> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema", "family", struct ("algorithm", "normuon", "buffer", [ones(11, 1); -1e-300])), "Algorithm", "normuon")
%!error <muon_update: VEPS must be a positive finite scalar.> muon_update (G, [], "Preset", "normuon_zichongli5", "VEps", 0)
%!error <muon_update: RMSEPS must be a positive finite scalar.> muon_update (G, [], "Preset", "adamuon_eo", "RMSEps", 0)

%!test
%! ## the scale multiplies in G's class (torch's alpha); Keller's and DeepSpeed's in-place
%! ## bf16 product is muon_round of it (a 12 x 5: scale sqrt (12/5))
%! randn ("state", 1);
%! Gs = single (randn (12, 5));
%! o = {"Precision", "bf16", "NormalizeFirst", false};
%! U = muon_update (Gs, [], "Beta", 0, o{:});
%! X = muon_ns (Gs, o{:});
%! assert (U, single (sqrt (12/5) * double (X)));
%! assert (muon_round (U, "bf16"), muon_round (single (sqrt (12/5)) * X, "bf16"));
%! assert (nnz (muon_round (U, "bf16") != U) > 0);
