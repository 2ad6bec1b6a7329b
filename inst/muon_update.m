## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {[@var{U}, @var{state}] =} muon_update (@var{G}, @var{state})
## @deftypefnx {muonlab} {[@var{U}, @var{state}] =} muon_update (@var{G}, @var{state}, @var{name}, @var{value}, @dots{})
## One Muon update: momentum, Nesterov, Newton-Schulz orthogonalization, update scale.
##
## @var{G} is a real double or single gradient: an M x N matrix, an M x N x E stack of E
## independent matrices (experts: per-page normalization, iteration and scale), or a 4-D
## convolution weight out x in x kh x kw (torch's order), viewed as out x (in*kh*kw).
## @var{U} has the class and shape of @var{G}.  @var{G} itself is never modified (the peers
## overwrite the gradient in place with the Nesterov input; this function does not).
##
## @var{state} is @code{[]} for the first step (zero momentum) or the struct returned by
## the previous call; anything else (a cell such as @code{@{@}}, a string, a momentum of
## another class or size) is a @code{muonlab:badState} error, never a fresh start.  The
## struct has the fields
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
## give the same NS output, except where the norm of X comes near Eps.
##
## Options (names are case-insensitive):
## @table @asis
## @item "Beta"
## momentum coefficient in [0, 1) (default 0.95).
## @item "Nesterov"
## true (default) or false.
## @item "MomentumForm"
## @qcode{"ema"} (default) or @qcode{"sgd"}, as above.
## @item "Scale"
## @qcode{"keller"} (default) @code{sqrt (max (1, r/c))} (Keller, DeepSpeed, torch
## "original"); @qcode{"rms"} @code{0.2*sqrt (max (r, c))} (Moonlight, torch
## "match_rms_adamw"); @qcode{"spectral"} @code{sqrt (max (r, c))} (Emerging-Optimizers);
## @qcode{"unit_rms"} @code{sqrt (r/c)} (Scion, Dion "spectral_norm"); @qcode{"none"} 1.
## @item "ScaleFactor"
## positive factor multiplying the scale (default 1).
## @item "Experts"
## @var{E}: @var{G} is a fused 2-D (E*M) x N weight of E row blocks, expert e in rows
## (e-1)*M+1 : e*M (xtuner's view); each block is normalized, orthogonalized and scaled on
## its own (from M x N), and @var{U} is returned fused.  Default 1.
## @item "SplitRows"
## [r1 r2 @dots{}], summing to the rows of each block: orthogonalize and scale these row
## blocks independently (fused QKV, per-head).  Default @code{[]} (one block).
## @item "ConvScale"
## for a 4-D @var{G}: @qcode{"flattened"} (default) takes the scale from
## out x (in*kh*kw), the matrix that is orthogonalized; @qcode{"last_two"} reproduces the
## Keller/DeepSpeed quirk: their scale reads the gradient's last two dimensions, kh x kw,
## so a 3 x 3 kernel gets scale 1 under keller whatever out and in are.  No effect on 2-D
## and 3-D inputs.
## @item @code{muon_ns} options
## every option of @code{muon_ns} (@qcode{"Method"}, @qcode{"Precision"},
## @qcode{"Coefficients"}, @qcode{"Steps"}, @dots{}), for the orthogonalization of each
## block; the default precision is the class of @var{G}.
## @end table
##
## A non-finite momentum (a poisoned state) is accepted and gives a non-finite @var{U};
## a non-finite @var{G} is an error.
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
  [U, state] = run_update ("muon_update", G, state, varargin);
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
%! ## a poisoned momentum is accepted and gives a non-finite update
%! s = struct ("momentum", NaN (size (G)), "step", 3, "form", "ema");
%! U = muon_update (G, s);
%! assert (! any (isfinite (U(:))));

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
%! semilogy (r);
%! legend ("||M|| ema", "||M|| sgd", "relative ||U_{ema} - U_{sgd}||");
%! xlabel ("step");

%!error <Invalid call> muon_update ()
%!error <Invalid call> muon_update (G)
%!error <muon_update: G must be a double or single matrix, not int8 \(convert it: double \(G\)\)\.> muon_update (int8 (G), [])
%!error <muon_update: G must be a real numeric matrix.> muon_update (complex (G), [])
%!error <muon_update: G must have 2, 3 or 4 dimensions.> muon_update (ones (2, 2, 2, 2, 2), [])
%!error <muon_update: G must be a matrix \(at least 2 x 2\), not a vector or scalar.> muon_update (1:5, [])
%!error <muon_update: G must not contain NaN or Inf.> muon_update ([1 NaN; 2 3], [])
%!error <muon_update: G must not be empty.> muon_update (zeros (0, 3), [])
%!error <muon_update: options must be NAME, VALUE pairs.> muon_update (G, [], "Beta")
%!error <muon_update: unknown option 'Foo'.> muon_update (G, [], "Foo", 1)
%!error <muon_update: STEPS must be a positive integer \(at most 1000\).> muon_update (G, [], "Steps", 0)
%!error <muon_update: unknown coefficient schedule 'foo'.> muon_update (G, [], "Coefficients", "foo")
%!error <muon_update: GEMM must be 'auto', 'openblas' or 'onednn'.> muon_update (G, [], "Gemm", "mkl")
%!error <muon_update: BETA must be a scalar in \[0, 1\).> muon_update (G, [], "Beta", 1)
%!error <muon_update: BETA must be a scalar in \[0, 1\).> muon_update (G, [], "Beta", -0.1)
%!error <muon_update: BETA must be a scalar in \[0, 1\).> muon_update (G, [], "Beta", [0.9 0.9])
%!error <muon_update: NESTEROV must be true or false.> muon_update (G, [], "Nesterov", 2)
%!error <muon_update: MOMENTUMFORM must be 'ema' or 'sgd'.> muon_update (G, [], "MomentumForm", "adam")
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
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(12\).> muon_update (G, [], "SplitRows", "")
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, 1)
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, struct ("momentum", G))
%!error <muon_update: STATE.momentum must be a real double or single array.> muon_update (G, struct ("momentum", int8 (G), "step", 1, "form", "ema"))
%!error <muon_update: STATE.momentum must match the size of G.> muon_update (G, struct ("momentum", G.', "step", 1, "form", "ema"))
%!error <muon_update: STATE.step must be a non-negative integer.> muon_update (G, struct ("momentum", G, "step", -1, "form", "ema"))
%!error <muon_update: STATE.form must be 'sgd', the MOMENTUMFORM in use.> muon_update (G, struct ("momentum", G, "step", 1, "form", "ema"), "MomentumForm", "sgd")
%!error id=muonlab:badState muon_update (G, struct ("momentum", G.', "step", 1, "form", "ema"))
%!error id=muonlab:badArg muon_update (G, [], "Beta", 1)
%!error id=muonlab:badState muon_update (G, 1)
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, {})
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, "")
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.> muon_update (G, zeros (0, 3))
%!error <muon_update: STATE.momentum must be a real double or single array.> muon_update (G, struct ("momentum", {{}}, "step", 1, "form", "ema"))
%!error <muon_update: STATE.step must be a non-negative integer.> muon_update (G, struct ("momentum", G, "step", Inf, "form", "ema"))
%!error id=muonlab:badState muon_update (G, {})
%!error <muon_update: M must be the size of G.> __muon_update__ (G, G.', struct ())
%!error <muon_update: experts must divide the rows of a 2-D G.> __muon_update__ (G, [], struct ("experts", 5))
%!error <muon_update: the row blocks sum to 4, not to the 12 rows.> __muon_update__ (G, [], struct ("split_rows", [2 2]))
%!error <muon_update: beta must be in \[0, 1\).> __muon_update__ (G, [], struct ("beta", 1))
%!error <muon_update: unknown scale rule 'x'.> __muon_update__ (G, [], struct ("scale", "x"))
%!error <muon_step: parameter 'W': unknown scale rule 'x'.> __muon_update__ (G, [], struct ("fname", "muon_step: parameter 'W'", "scale", "x"))
%!error <muon_optimizer: parameter 'W': M must be the size of G.> __muon_update__ (G, G.', struct ("fname", "muon_optimizer: parameter 'W'"))
