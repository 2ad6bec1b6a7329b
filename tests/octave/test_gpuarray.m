## -*- texinfo -*-
## @deftypefn {} {} test_gpuarray ()
## Device arrays on the CPU stand-in device (@code{muon_gpu (X, "Device", "cpu")}: host
## memory run by the CPU code), which every machine has, against outside oracles:
## @itemize
## @item @code{muon_ns} of a device array against the fp64 SVD polar factor U V' (the cubic
## Newton-Schulz map 1.5 x - 0.5 x^3, 40 steps, converges to it: 1e-12 in double), and the
## scalar map of Keller's schedule on an input with known singular values (closed form);
## @item bit for bit against the host-array calls: every precision and method, stacks, the
## Muon update over three steps with each momentum form, experts and split rows;
## @item value semantics: no argument is modified (the old state's momentum keeps its
## values), a host momentum with a device gradient and the other way round;
## @item errors with their full messages, and no array left behind by failing calls.
## @end itemize
## @end deftypefn

function test_gpuarray ()
  help test_gpuarray
endfunction

%!test
%! ## the polar factor (fp64 SVD) of tall, wide and stacked inputs
%! randn ("state", 41);
%! for sz = {[40 24], [24 40], [30 50 3]}
%!   G = randn (sz{1});
%!   X = gather (muon_ns (muon_gpu (G, "Device", "cpu"), "Coefficients", [1.5 -0.5 0],
%!                        "Steps", 40, "Precision", "double"));
%!   for e = 1:size (G, 3)
%!     [U, ~, V] = svd (G(:,:,e), "econ");
%!     assert (X(:,:,e), U * V', 1e-12);
%!   endfor
%! endfor

%!test
%! ## closed form: singular values s -> p(s / ||G||_F), p Keller's map composed 5 times
%! [Q1, ~] = qr (randn (32));
%! [Q2, ~] = qr (randn (64));
%! s = linspace (0.1, 1, 32).';
%! G = Q1 * [diag(s), zeros(32)] * Q2.';
%! X = gather (muon_ns (muon_gpu (G, "Device", "cpu"), "Precision", "double"));
%! x = s / (norm (G, "fro") + 1e-7);
%! for k = 1:5
%!   x = 3.4445 * x - 4.7750 * x.^3 + 2.0315 * x.^5;
%! endfor
%! assert (svd (X), sort (x, "descend"), 1e-12);

%!test
%! ## the host path's bits: every precision and method, a stack, 16-bit storage
%! randn ("state", 42);
%! G = single (randn (48, 80, 2));
%! D = muon_gpu (G, "Device", "cpu");
%! for p = {"double", "single", "bf16", "fp16"}
%!   for m = {"standard", "gram"}
%!     o = {"Precision", p{1}, "Method", m{1}, "Gemm", "openblas"};
%!     assert (isequal (gather (muon_ns (D, o{:})), muon_ns (G, o{:})));
%!   endfor
%! endfor
%! Db = muon_gpu (G, "Device", "cpu", "Class", "bf16");
%! Xb = muon_ns (Db, "Gemm", "openblas");
%! assert (classUnderlying (Xb), "bf16");
%! assert (isequal (gather (Xb),
%!                  muon_ns (single (muon_round (G, "bf16")), "Precision", "bf16", "Gemm", "openblas")));

%!test
%! ## three updates: the host path's bits; the caller's state is never modified
%! randn ("state", 43);
%! opts = {{}, {"MomentumForm", "sgd"}, {"Nesterov", false, "Scale", "spectral"}, ...
%!         {"Experts", 3, "SplitRows", [4 12]}};
%! for o = opts
%!   sd = [];  sh = [];
%!   for k = 1:3
%!     G = randn (48, 40);
%!     old = sd;
%!     if (k > 1)
%!       before = gather (old.momentum);
%!     endif
%!     [Ud, sd] = muon_update (muon_gpu (G, "Device", "cpu"), sd, o{1}{:});
%!     [Uh, sh] = muon_update (G, sh, o{1}{:});
%!     assert (isequal (gather (Ud), Uh));
%!     assert (isequal (gather (sd.momentum), sh.momentum));
%!     assert (sd.step, k);
%!     if (k > 1)
%!       assert (isequal (gather (old.momentum), before));   # untouched
%!     endif
%!   endfor
%! endfor

%!test
%! ## a host gradient with a device momentum (the optimizer's case) runs on the device
%! randn ("state", 44);
%! G1 = randn (20, 30);  G2 = randn (20, 30);
%! [~, sh] = muon_update (G1, []);
%! sd = sh;
%! sd.momentum = muon_gpu (sh.momentum, "Device", "cpu");
%! [Ud, sd] = muon_update (G2, sd);
%! [Uh, sh] = muon_update (G2, sh);
%! assert (isa (Ud, "muon_gpuarray"));
%! assert (isequal (gather (Ud), Uh));
%! assert (isequal (gather (sd.momentum), sh.momentum));

%!test
%! ## polar_metrics gathers device arrays
%! randn ("state", 45);
%! G = randn (16, 24);
%! X = muon_ns (G);
%! assert (polar_metrics (muon_gpu (G, "Device", "cpu"), muon_gpu (X, "Device", "cpu")),
%!         polar_metrics (G, X));

%!test
%! ## failing calls leave no array behind
%! n0 = muon_gpu ("info").arrays;
%! D = muon_gpu (ones (6, 4), "Device", "cpu");
%! fail ("muon_ns (D, 'Steps', 0)");
%! fail ("muon_update (D, [], 'SplitRows', [1 2])");
%! fail ("muon_update (D, struct ('momentum', ones (6, 4), 'step', 1, 'form', 'ema'))");
%! clear D
%! assert (muon_gpu ("info").arrays, n0);

%!shared D
%! D = muon_gpu (reshape (1:12, 4, 3), "Device", "cpu");
%!error <muon_ns: G is a device array on cpu; a device array computes where it lives \(DEVICE 'cuda'\).> muon_ns (D, "Device", "cuda")
%!error <muon_ns: TRACE needs a host array G \(gather \(G\) first\).> muon_ns (D, "Trace", true)
%!error <muon_update: STATE.momentum must be a device array on cpu, like G.> muon_update (D, struct ("momentum", ones (4, 3), "step", 1, "form", "ema"))
%!error <muon_update: STATE.momentum must match the size of G.> muon_update (D, struct ("momentum", muon_gpu (ones (3), "Device", "cpu"), "step", 1, "form", "ema"))
%!error <muon_update: SPLITROWS must be positive integers summing to the rows of each block \(4\).> muon_update (D, [], "SplitRows", [1 2])
%!error <muon_update: EXPERTS must divide the number of rows of G.> muon_update (D, [], "Experts", 3)
%!error <muon_update: a 4-D G needs a host momentum.> muon_update (ones (2, 2, 2, 2), struct ("momentum", D, "step", 1, "form", "ema"))
%!error <muon_ns: NORMSCALE and EPSPLACEMENT need a host array G \(gather \(G\) first\).> muon_ns (D, "NormScale", 1.02)
%!error <muon_update: device arrays run ALGORITHM 'muon' with the core's normalization; gather them for 'normuon'.> muon_update (D, [], "Algorithm", "normuon")

%!test
%! ## muon_optimizer "Resident": the state on the (stand-in) device, the host path's bits
%! ## over three steps (Muon momenta, AdamW moments of double and single parameters);
%! ## save gathers, load with "Device" puts it back, and the loaded run goes on alike
%! randn ("state", 46);
%! P = struct ("W1", randn (24, 40), "b1", randn (24, 1), "W2", single (randn (12, 24)),
%!             "g", single (randn (1, 12)));
%! grads = @() struct ("W1", randn (24, 40), "b1", randn (24, 1),
%!                     "W2", single (randn (12, 24)), "g", single (randn (1, 12)));
%! od = muon_optimizer (P, "LR", 0.01, "WeightDecay", 0.1, "Device", "cpu", "Resident", true);
%! oh = muon_optimizer (P, "LR", 0.01, "WeightDecay", 0.1);
%! assert (od.resident, "cpu");
%! assert (isa (od.adam.b1.m, "muon_gpuarray"));
%! Pd = P;  Ph = P;
%! for k = 1:3
%!   G = grads ();
%!   [Pd, od, id] = muon_step (od, Pd, G);
%!   [Ph, oh, ih] = muon_step (oh, Ph, G);
%!   assert (isequal (Pd, Ph) && isequal (id.step_norm, ih.step_norm), "step %d", k);
%! endfor
%! assert (isa (od.muon.W2.momentum, "muon_gpuarray"));
%! assert (isequal (gather (od.muon.W2.momentum), oh.muon.W2.momentum));
%! assert (isequal (gather (od.adam.g.v), oh.adam.g.v));
%! f = [tempname() ".ckpt"];
%! unwind_protect
%!   muon_save_state (f, od);
%!   oh2 = muon_load_state (f, Pd);
%!   assert (oh2.resident, "");
%!   assert (isequal (oh2.muon.W1.momentum, oh.muon.W1.momentum));
%!   od2 = muon_load_state (f, Pd, "Device", "cpu");
%!   assert (od2.resident, "cpu");
%!   G = grads ();
%!   [Pd2, od2] = muon_step (od2, Pd, G);
%!   [Ph2, oh] = muon_step (oh, Ph, G);
%!   assert (isequal (Pd2, Ph2));
%!   assert (isa (od2.muon.W1.momentum, "muon_gpuarray"));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!error <muon_optimizer: RESIDENT must be true or false.> muon_optimizer (struct ("W", ones (4)), "Resident", "yes")
%!error <muon_optimizer: RESIDENT cannot be combined with POISONMOMENTUM or PERMICROBATCHNS \(they read the momentum on the host\).> muon_optimizer (struct ("W", ones (4)), "Resident", true, "PoisonMomentum", true)
