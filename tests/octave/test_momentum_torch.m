## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_momentum_torch ()
## @code{muon_update}'s @qcode{"MomentumArith", "torch"} against bits torch wrote
## (fixtures/torch_momentum.txt, torch 2.15 on the CPU: torch.optim.Muon's momentum buffer
## and Nesterov input for the EMA form, Moonlight's mul_ / add_ / add with alpha for the
## SGD form; 12 x 20 gradients, 3 steps, beta 0.95, Nesterov on and off): the momentum
## equal bit for bit at every step, single and double; the update equal to
## @code{muon_ns} of torch's X (so X's bits too), and within rounding of torch's own
## float64 Newton-Schulz of it.  The default fp64 arithmetic differs from torch's in some
## elements (the option's reason).  The bf16 cases run on device arrays
## (tests/gpu/test_gpu_update.m).
## @end deftypefn

function test_momentum_torch ()
  help test_momentum_torch
endfunction

%!shared C
%! C = torch_momentum_fixture ();

%!function e = relerr (X, Y)
%!  e = norm (double (X(:)) - double (Y(:))) / norm (double (Y(:)));

%!test
%! ## single and double: M bit for bit with torch's; U = muon_ns (torch's X) bit for bit
%! ## (the keller scale of 12 x 20 is 1); fp64 NS of it within rounding of torch's
%! ncase = 0;
%! for c = C(! strcmp ({C.class}, "bf16"))
%!   o = {"MomentumArith", "torch", "MomentumForm", c.form, "Nesterov", c.nesterov};
%!   s = [];  s64 = [];
%!   for k = 1:3
%!     [U, s] = muon_update (c.G{k}, s, o{:});
%!     assert (class (s.momentum), c.class);
%!     assert (isequal (s.momentum, c.M{k}), sprintf ("%s %s %d step %d: M", c.class,
%!                                                    c.form, c.nesterov, k));
%!     assert (isequal (U, muon_ns (c.X{k})), sprintf ("%s %s %d step %d: U", c.class,
%!                                                     c.form, c.nesterov, k));
%!     [U64, s64] = muon_update (c.G{k}, s64, o{:}, "Precision", "double");
%!     tol = merge (strcmp (c.class, "double"), 1e-13, 1e-6);
%!     assert (relerr (U64, c.U{k}) < tol);
%!   endfor
%!   ncase++;
%! endfor
%! assert (ncase, 6);

%!test
%! ## the default arithmetic (fp64, rounded once) is not torch's: in a few elements M
%! ## differs in the last bit (EMA), and with it the update
%! for c = C(strcmp ({C.class}, "single") & strcmp ({C.form}, "ema"))
%!   s = [];
%!   for k = 1:3
%!     [~, s] = muon_update (c.G{k}, s, "Nesterov", c.nesterov);
%!   endfor
%!   n = nnz (s.momentum != c.M{3});
%!   printf ("    nesterov %d: %d of %d fp64 momentum elements differ from torch's\n",
%!           c.nesterov, n, numel (c.M{3}));
%!   assert (n > 0 && n < numel (c.M{3}) / 2);
%!   assert (relerr (s.momentum, c.M{3}) < 1e-6);
%! endfor

%!test
%! ## the options pass through muon_optimizer / muon_step (one parameter, lr 0: the state)
%! c = C(find (strcmp ({C.class}, "single") & strcmp ({C.form}, "ema") & [C.nesterov], 1));
%! P = struct ("W", zeros (12, 20, "single"));
%! opt = muon_optimizer (P, "MomentumArith", "torch", "LR", 0);
%! for k = 1:3
%!   [P, opt] = muon_step (opt, P, struct ("W", c.G{k}));
%! endfor
%! assert (isequal (opt.muon.W.momentum, c.M{3}));

%!test
%! ## the Muon family's rules take torch's momentum too: torch.optim.Muon's eps floor
%! ## (EpsPlacement max, its NS's G / max (||G||, eps)) keeps the momentum's bits, and Muon's
%! ## U is then muon_ns of torch's X with that placement; NorMuon runs on the same M
%! for c = C(strcmp ({C.class}, "single"))
%!   o = {"MomentumArith", "torch", "MomentumForm", c.form, "Nesterov", c.nesterov};
%!   s = [];  sn = [];
%!   for k = 1:3
%!     [U, s] = muon_update (c.G{k}, s, o{:}, "EpsPlacement", "max");
%!     assert (isequal (s.momentum, c.M{k}));
%!     assert (isequal (U, muon_ns (c.X{k}, "EpsPlacement", "max")));
%!     [~, sn] = muon_update (c.G{k}, sn, o{:}, "Algorithm", "normuon");
%!     assert (isequal (sn.momentum, c.M{k}));
%!   endfor
%! endfor

%!test
%! ## torch.optim.Muon's parameters (fixtures/torch_muon_step.txt: 5 steps, lr 0.02, wd 0.1,
%! ## adjust_lr_fn original / match_rms_adamw, Nesterov on / off, 12 x 20, 20 x 12, 7 x 13,
%! ## 12 single cases and 4 double) bit for bit from muon_step with the README's recipe, at
%! ## every step until torch's bf16 Newton-Schulz output O first differs from muonlab's
%! ## (the NS's summation order, README): 73 of the 80 steps, every step of the 12 cases
%! ## whose O all match (single 53 of 60, double 20 of 20); and the 4 vector cases, a 1 x 8
%! ## and an 8 x 1 weight routed to Muon ("Route", as torch takes any 2-D tensor), 3 steps
%! ## each, both adjust_lr_fn (scale 1 and sqrt (8), 0.2 sqrt (8)): all 12 steps, O too
%! T = torch_muon_step_fixture ();
%! assert ({T.class}, [repmat({"single"}, 1, 12), repmat({"double"}, 1, 4), ...
%!                     repmat({"single"}, 1, 4)]);
%! assert (cellfun ("columns", {T(17:20).P0}) .* cellfun ("rows", {T(17:20).P0}), [8 8 8 8]);
%! recipe = {"MomentumArith", "torch", "Precision", "bf16", "Fused", true, ...
%!           "NormalizeFirst", false, "EpsPlacement", "max"};
%! nsteps = 0;  nfull = 0;
%! for c = T
%!   scale = merge (strcmp (c.adjust, "original"), "keller", "rms");
%!   o = [recipe, {"Nesterov", c.nesterov}];
%!   P = struct ("W", c.P0);
%!   opt = muon_optimizer (P, o{:}, "Scale", scale, "LR", 0.02, "WeightDecay", 0.1,
%!                         "Route", struct ("W", "muon"));
%!   s = [];
%!   for k = 1:numel (c.G)
%!     [O, s] = muon_update (c.G{k}, s, o{:}, "Scale", "none");
%!     [P, opt] = muon_step (opt, P, struct ("W", c.G{k}));
%!     if (! isequal (O, cast (c.O{k}, c.class)))
%!       break;
%!     endif
%!     assert (isequal (P.W, c.P{k}), sprintf ("%s %s %d %dx%d step %d: %d elements differ",
%!                                             c.class, c.adjust, c.nesterov, rows (c.P0),
%!                                             columns (c.P0), k, nnz (P.W != c.P{k})));
%!     nsteps++;
%!   endfor
%!   nfull += isequal (P.W, c.P{end});
%! endfor
%! assert ([nsteps nfull], [73+12 12+4]);

%!test
%! ## the apply alone, from torch's parameter and NS output of each step: its add_ (O,
%! ## alpha = -lr scale) on fp32 and fp64 is one fma; all 92 steps bit for bit, where
%! ## rounding scale O, lr U and then p - lr U (muon_step before this) misses some elements
%! T = torch_muon_step_fixture ();
%! n = 0;  nold = 0;
%! for c = T
%!   [r, m] = size (c.P0);
%!   sc = merge (strcmp (c.adjust, "original"), sqrt (max (1, r / m)), 0.2 * sqrt (max (r, m)));
%!   p = c.P0;
%!   for k = 1:numel (c.G)
%!     q = p * (1 - 0.02 * 0.1);
%!     O = cast (c.O{k}, c.class);
%!     assert (isequal (test_options ("private", "opt_fused_add", q, -(0.02 * sc), O), c.P{k}));
%!     nold += nnz (q - 0.02 * cast (sc * O, c.class) != c.P{k});
%!     n++;
%!     p = c.P{k};
%!   endfor
%! endfor
%! assert (n, 80 + 12);
%! assert (nold > 0);

%!test
%! ## opt_fused_add (the core's fma) rounds once: 1 + 2^-23 + 2^-24 - 2^-70 lies below the
%! ## single midpoint 1 + 2^-23 + 2^-24, where the double sum (1 + 2^-23 + 2^-24) rounds to
%! ## even, 1 + 2^-22; in double 1 + 2^-52 + 2^-53 - 2^-157 below 1 + 3 2^-53 likewise
%! f = @(varargin) test_options ("private", "opt_fused_add", varargin{:});
%! a = 1 + 2^-23;  O = single (2^-24 * (1 - 2^-23));  q = single (1 + 2^-23);
%! assert (single (double (q) + a * double (O)), single (1 + 2^-22));
%! assert (f (q, a, O), q);
%! assert (f (-q, a, -O), -q);
%! assert (f (-q, -a, O), -q);
%! ## above the midpoint: up; an exact midpoint: to even; exact sums and zeros
%! assert (f (q, a, single (2^-24 * (1 + 2^-23))), single (1 + 2^-22));
%! assert (f (single (1), 1, single (2^-24)), single (1));
%! assert (f (single (1 + 2^-23), 1, single (2^-24)), single (1 + 2^-22));
%! assert (f (single ([1 2; -3 0]), 0.5, single ([2 -4; 6 0])), single ([2 0; 0 0]));
%! assert (f (single ([Inf 1]), 1, single ([1 NaN])), single ([Inf NaN]));
%! d = 2^-53 * (1 - 2^-52);
%! assert ((1 + 2^-52) + (1 + 2^-52) * d, 1 + 2^-51);
%! assert (f (1 + 2^-52, 1 + 2^-52, d), 1 + 2^-52);
%! assert (f ([1 2], 0.5, [2 3]), [2 3.5]);
%! assert (f (single (1), 1 + 2^-30, single (1)), single (2));   # alpha rounded to single
%!error <__muon_fma__: X and Y must be of one size\.> __muon_fma__ (1, ones (2), ones (3))
%!error <__muon_fma__: X and Y must be real single or double arrays of one class\.> __muon_fma__ (1, ones (2), single (ones (2)))
%!error <__muon_fma__: A must be a real double scalar\.> __muon_fma__ ([1 2], ones (2), ones (2))
%!error <__muon_fma__: usage: Y = __muon_fma__ \(A, X, Y\)\.> __muon_fma__ (1, 2)
