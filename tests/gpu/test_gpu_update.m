## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_gpu_update ()
## Suite of the GPU layer (run by @code{make check-gpu}): @code{muon_update} with the
## device's options (@code{gpu_target}: @qcode{"Device", "cuda"}) against the same call on
## the CPU reference, three chained steps each, over momentum forms, Nesterov, scale rules,
## methods, precisions, fused experts and split row blocks (single gradients, double ones
## for the double precision).
##
## The momentum is host arithmetic on both sides (core/math/update.c), so the states must be
## equal bit for bit at every step.  The update is scale * muon_ns (X) per block, so it is
## held to the tolerances of @code{test_gpu_ns} (see there), measured on U: d = the device
## against the CPU, e_cpu = the CPU in the case's precision against the CPU in double
## (fp64 NS is the SVD oracle to 1e-13, checked by test_gpu_ns); d <= 1e-12 (double),
## 3e-5 (single), 0.9 e_cpu (bf16, fp16).
## @end deftypefn

function test_gpu_update ()
  help test_gpu_update
endfunction

%!shared t
%! t = gpu_target ();

%!function nfail = update_case (t, name, sz, opts)
%!  randn ("state", 21);
%!  sd = [];  sc = [];  s64 = [];
%!  prec = opts{find (strcmp (opts, "Precision")) + 1};
%!  nfail = 0;
%!  for k = 1:3
%!    G = randn (sz);
%!    if (! strcmp (prec, "double"))
%!      G = single (G);
%!    endif
%!    [Ud, sd] = muon_update (G, sd, t.dev{:}, opts{:});
%!    [Uc, sc] = muon_update (G, sc, t.ref{:}, opts{:});
%!    u64 = opts;
%!    u64{find (strcmp (opts, "Precision")) + 1} = "double";
%!    [U64, s64] = muon_update (double (G), s64, t.ref{:}, u64{:});
%!    d = relerr (Ud, Uc);
%!    e = relerr (Uc, U64);
%!    switch (prec)
%!      case "double", tol = 1e-12;
%!      case "single", tol = 3e-5;
%!      otherwise,     tol = 0.9 * e;
%!    endswitch
%!    why = {};
%!    if (! isequal (sd.momentum, sc.momentum) || sd.step != k)
%!      why{end+1} = "momentum differs";
%!    endif
%!    if (! (strcmp (class (Ud), class (Uc)) && isequal (size (Ud), size (Uc))))
%!      why{end+1} = "class or size differs";
%!    endif
%!    if (! (d <= tol))
%!      why{end+1} = sprintf ("d %.3g > %.3g", d, tol);
%!    endif
%!    if (isempty (why))
%!      res = "ok";
%!    else
%!      res = ["FAIL: " strjoin(why, "; ")];
%!      nfail++;
%!    endif
%!    printf ("    %-34s step %d  d %9.2e  tol %9.2e  e_cpu %9.2e  %s\n", name, k, d, tol,
%!            e, res);
%!  endfor
%!  fflush (stdout);

%!function e = relerr (X, Y)
%!  e = norm (double (X(:)) - double (Y(:))) / norm (double (Y(:)));

%!assert (update_case (t, "ema nesterov keller, single std", [128 640],
%!                     {"Precision", "single"}), 0)
%!assert (update_case (t, "ema keller, double gram", [640 128],
%!                     {"Precision", "double", "Method", "gram"}), 0)
%!assert (update_case (t, "sgd rms, bf16 standard", [128 640],
%!                     {"Precision", "bf16", "MomentumForm", "sgd", "Scale", "rms"}), 0)
%!assert (update_case (t, "no nesterov spectral, fp16 gram", [96 192],
%!                     {"Precision", "fp16", "Method", "gram", "Nesterov", false, ...
%!                      "Scale", "spectral"}), 0)
%!assert (update_case (t, "experts 4, bf16 gram polar_express", [4*64 256],
%!                     {"Precision", "bf16", "Method", "gram", "Experts", 4, ...
%!                      "Coefficients", "polar_express"}), 0)
%!assert (update_case (t, "stack 96x192x3 splitrows, fp16", [96 192 3],
%!                     {"Precision", "fp16", "SplitRows", [32 64], "Scale", "unit_rms"}), 0)

%!test
%! ## MomentumArith "torch" on device arrays against torch's bits (tests/octave/fixtures/
%! ## torch_momentum.txt, torch 2.15 CPU; 12 x 20, 3 steps, beta 0.95): the momentum bit for
%! ## bit in single, double and bf16 (torch.optim.Muon's bf16 buffer: fp32 lerp rounded to
%! ## bf16), the update equal to muon_ns of torch's X on the device
%! C = torch_momentum_fixture ();
%! for c = C
%!   o = {"MomentumArith", "torch", "MomentumForm", c.form, "Nesterov", c.nesterov};
%!   s = [];
%!   for k = 1:3
%!     Gd = muon_gpu (c.G{k}, "Device", t.array, "Class", c.class);
%!     [Ud, s] = muon_update (Gd, s, t.dev{:}, o{:});
%!     what = sprintf ("%s %s nesterov %d step %d", c.class, c.form, c.nesterov, k);
%!     assert (s.momentum.Storage, c.class);
%!     assert (isequal (gather (s.momentum), c.M{k}), [what ": M"]);
%!     Xd = muon_gpu (c.X{k}, "Device", t.array, "Class", c.class);
%!     assert (isequal (gather (Ud), gather (muon_ns (Xd, t.dev{:}))), [what ": U"]);
%!   endfor
%!   if (strcmp (c.class, "bf16"))        # the default's double rounding is not torch's
%!     s = [];
%!     for k = 1:3
%!       [~, s] = muon_update (muon_gpu (c.G{k}, "Device", t.array, "Class", "bf16"), s,
%!                             t.dev{:}, "MomentumForm", c.form, "Nesterov", c.nesterov);
%!     endfor
%!     printf ("    bf16 %s nesterov %d: %d of 240 fp64 momentum elements differ from torch's\n",
%!             c.form, c.nesterov, nnz (gather (s.momentum) != c.M{3}));
%!   endif
%! endfor

%!test
%! ## a combination without fixed bits: unsupported (as the refusals of dion and ZeRO)
%! try
%!   muon_update (muon_gpu (ones (4, 6), "Device", gpu_target ().array, "Class", "bf16"), [],
%!                gpu_target ().dev{:}, "MomentumArith", "torch", "MomentumForm", "sgd");
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:unsupported");
%!   assert (err.message, ["muon_update: torch's momentum arithmetic of the sgd form with ", ...
%!           "Nesterov has no fixed bits on bf16 or fp16 arrays (torch's add with alpha ", ...
%!           "rounds them two ways)."]);
%! end_try_catch
