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
