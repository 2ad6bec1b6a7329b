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
## @item a @qcode{"Preset"} expanded as on the host (the host's bits where the device runs
## all it sets), what the device cannot run (another ALGORITHM, NORMSCALE or EPSPLACEMENT)
## refused when a device state is made, a device gradient of the other class than its
## parameter refused, and a stale array named as the caller knows it;
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
%!error <muon_update: device arrays run Muon \(ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'\); gather them for ALGORITHM 'normuon'.> muon_update (D, [], "Algorithm", "normuon")

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

%!function D = to_device (S)
%!  D = S;
%!  for f = fieldnames (S).'
%!    D.(f{1}) = muon_gpu (S.(f{1}), "Device", "cpu");
%!  endfor
%!endfunction

%!function H = to_host (S)
%!  H = S;
%!  for f = fieldnames (S).'
%!    if (isa (S.(f{1}), "muon_gpuarray"))
%!      H.(f{1}) = gather (S.(f{1}));
%!    endif
%!  endfor
%!endfunction

%!test
%! ## device parameters and gradients: nothing leaves the device, and three steps give the
%! ## host path's bits, info included, under every clip policy, accumulation, a dynamic
%! ## loss scale and decay after the update (double and single, Muon and AdamW)
%! randn ("state", 47);
%! P = struct ("W", randn (8, 5), "V", single (randn (6, 4)), "b", randn (8, 1));
%! G = cell (1, 4);
%! for t = 1:4
%!   G{t} = struct ("W", randn (8, 5), "V", single (randn (6, 4)), "b", randn (8, 1));
%! endfor
%! cases = {{}, {"ClipPolicy", "before_ns", "ClipNorm", 0.5}, ...
%!          {"ClipPolicy", "after_ns", "ClipNorm", 0.5}, ...
%!          {"ClipPolicy", "skip_muon", "ClipNorm", 0.1}, {"AccumulationSteps", 2}, ...
%!          {"LossScaler", "dynamic"}, {"WeightDecay", 0.1, "DecayFirst", false}};
%! for c = 1:numel (cases)
%!   args = [{"LR", 0.05, "Device", "cpu", "Resident", true}, cases{c}];
%!   oh = muon_optimizer (P, args{:});
%!   od = muon_optimizer (to_device (P), args{:});
%!   Ph = P;  Pd = to_device (P);
%!   for t = 1:4
%!     [Ph, oh, ih] = muon_step (oh, Ph, G{t});
%!     [Pd, od, id] = muon_step (od, Pd, to_device (G{t}));
%!     assert (isequal (to_host (Pd), Ph), "case %d step %d", c, t);
%!     assert (id, ih);                        # NaN norms of a window's first half too
%!   endfor
%!   assert (isa (Pd.W, "muon_gpuarray") && isa (Pd.b, "muon_gpuarray"));
%!   assert (classUnderlying (Pd.V), "single");
%! endfor

%!test
%! ## host and device gradients may meet in one window; a state saved mid-window gathers
%! ## the device gradients it accumulated; the caller's arrays are never touched
%! randn ("state", 48);
%! P = struct ("W", randn (8, 5), "b", randn (8, 1));
%! G1 = struct ("W", randn (8, 5), "b", randn (8, 1));
%! G2 = struct ("W", randn (8, 5), "b", randn (8, 1));
%! args = {"AccumulationSteps", 2, "Device", "cpu", "Resident", true};
%! oh = muon_optimizer (P, args{:});
%! [Ph, oh] = muon_step (oh, P, G1);
%! [Ph, oh] = muon_step (oh, Ph, G2);
%! od = muon_optimizer (P, args{:});
%! Gd = to_device (G1);
%! [Pd, od] = muon_step (od, P, Gd);
%! assert (isa (od.accum.W, "muon_gpuarray"));
%! f = [tempname() ".ckpt"];
%! unwind_protect
%!   muon_save_state (f, od);
%!   o2 = muon_load_state (f, P, "Device", "cpu");
%!   assert (isequal (o2.accum.W, G1.W));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
%! [Pd, od] = muon_step (od, Pd, G2);
%! assert (isequal (Pd, Ph));
%! [Pd2, o2] = muon_step (o2, P, G2);
%! assert (isequal (Pd2, Ph));
%! assert (isequal (gather (Gd.W), G1.W));

%!test
%! ## QKClip on device parameters: clipped on the host, put back on the device
%! randn ("state", 49);
%! P = struct ("q", randn (8, 6), "k", randn (8, 6));
%! G = struct ("q", randn (8, 6), "k", randn (8, 6));
%! args = {"QKClip", {"q", "k", "Heads", 2}, "Device", "cpu", "Resident", true};
%! [Ph, ~, ih] = muon_step (muon_optimizer (P, args{:}), P, G, struct ("q", [300 20]));
%! [Pd, ~, id] = muon_step (muon_optimizer (to_device (P), args{:}), to_device (P),
%!                          to_device (G), struct ("q", [300 20]));
%! assert (ih.qk_clip.q.clipped, [true false]);
%! assert (isa (Pd.q, "muon_gpuarray"));
%! assert (isequal (to_host (Pd), Ph) && isequal (id, ih));

%!test
%! ## a device array needs the optimizer's state on its device, and a device parameter its
%! ## gradient in its class
%! P = struct ("W", randn (4, 3));
%! D = struct ("W", muon_gpu (P.W, "Device", "cpu"));
%! fail ("muon_step (muon_optimizer (P), D, P)",
%!       "muon_step: PARAMS.W is a device array on cpu; make the optimizer with \"Device\", \"cpu\", \"Resident\", true to keep its state there too.");
%! fail ("muon_step (muon_optimizer (P), P, D)",
%!       "muon_step: GRADS.W is a device array on cpu;");
%! o = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! fail ("muon_step (o, D, struct ('W', single (P.W)))",
%!       "muon_step: GRADS.W must be of class double, the class of PARAMS.W.");
%! B = struct ("W", muon_gpu (P.W, "Device", "cpu", "Class", "bf16"));
%! fail ("muon_step (o, B, B)",
%!       "muon_step: PARAMS.W must be a real, non-empty double or single array.");
%! fail ("muon_step (o, struct ('W', muon_gpu (ones (3), 'Device', 'cpu')), P)",
%!       "muon_step: PARAMS.W must be of size 4 x 3.");

%!error <muon_optimizer: RESIDENT must be true or false.> muon_optimizer (struct ("W", ones (4)), "Resident", "yes")
%!error <muon_optimizer: RESIDENT cannot be combined with POISONMOMENTUM or PERMICROBATCHNS \(they read the momentum on the host\).> muon_optimizer (struct ("W", ones (4)), "Resident", true, "PoisonMomentum", true)
%!error <muon_update: G must be a matrix \(at least 2 x 2\), not a vector or scalar.>
%! muon_update (muon_gpu ([1 2 3 4 5 6], "Device", "cpu"), [])
%!error <muon_update: each page of the stack G must be at least 2 x 2, not 1 x 5.>
%! muon_update (muon_gpu (ones (1, 5, 3), "Device", "cpu"), [])
%!error <muon_ns: each page of the stack G must be at least 2 x 2, not 1 x 5.>
%! muon_ns (muon_gpu (ones (1, 5, 3), "Device", "cpu"))
%!error <muon_update: STATE must be \[\] or a struct with fields momentum, step and form.>
%! muon_update (muon_gpu (ones (6, 4), "Device", "cpu"), zeros (1, 0))
%!test
%! ## outputs a caller did not ask for leave no device array behind (update: U, M; adamw:
%! ## P, M, V); the CUDA pool's figures count CUDA memory only (none made here)
%! G = muon_gpu (rand (4), "Device", "cpu");
%! n0 = __muon_gpu__ ("count");
%! h = __muon_gpu__ ("adamw", G.Handle, G.Handle, G.Handle, G.Handle, [.1 .001 .1 .001 1 .01 1e-8]);
%! assert (__muon_gpu__ ("count"), n0 + 1);
%! __muon_gpu__ ("free", h);
%! o = struct ("fname", "muon_update");
%! h = __muon_gpu__ ("update", G.Handle, [], o, 1);
%! assert (__muon_gpu__ ("count"), n0 + 1);
%! __muon_gpu__ ("free", h);
%! I0 = muon_gpu ("info");
%! D = muon_gpu (ones (8), "Device", "cpu");
%! I1 = muon_gpu ("info");
%! assert ([I1.cuda_in_use, I1.cpu_bytes - I0.cpu_bytes], [I0.cuda_in_use, 512]);
%!error <muon_optimizer: a state on the device runs Muon \(ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'\); parameter 'W' runs ALGORITHM 'normuon'.> muon_optimizer (struct ("W", ones (4)), "Device", "cpu", "Resident", true, "Algorithm", "normuon")
%!error <muon_load_state: a state on the device runs Muon \(ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'\); parameter 'W' runs ALGORITHM 'adamuon'.>
%! P = struct ("W", reshape (sin (1:16), 4, 4));
%! [~, o] = muon_step (muon_optimizer (P, "Algorithm", "adamuon"), P, P);
%! f = [tempname() ".ckpt"];
%! muon_save_state (f, o);
%! unwind_protect
%!   muon_load_state (f, P, "Device", "cpu");
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## the device paths tell tiny inputs and diverged results as the host paths do: the
%! ## same counts where the device's bound (norm (X, "fro") / sqrt (min (m, n)), a lower
%! ## bound of the largest singular value, the SVD's here) sees the divergence
%! randn ("state", 7);
%! G = randn (40, 24, 4);
%! G(:,:,2) *= 1e-9;                       # norm below Eps
%! G(:,:,3) *= 1e-200;                     # its sum of squares underflows: found scaled
%! G(:,:,4) = 0;                           # zero: not tiny
%! warning ("off", "muonlab:tinyInput", "local");
%! [~, sh] = muon_ns (G);
%! [X, sd] = muon_ns (muon_gpu (G, "Device", "cpu"));
%! assert ([sh.tiny_pages, sd.tiny_pages, sd.diverged_pages], [2 2 0]);
%! [~, sd] = muon_ns (muon_gpu (single (G(:,:,1:2)), "Device", "cpu"), "Eps", 0);
%! assert (sd.tiny_pages, 0);
%! ## below 1e-154 the norm is measured scaled, against Eps too (norms 1e-199 and 8e-162)
%! for c = {1e-200 * randn(8, 12), 1e-300, 0; 2e-162 * ones(4), 8.5e-162, 1}.'
%!   [~, sh] = muon_ns (c{1}, "Eps", c{2});
%!   [~, sd] = muon_ns (muon_gpu (c{1}, "Device", "cpu"), "Eps", c{2});
%!   assert ([sh.tiny_pages, sd.tiny_pages], [c{3}, c{3}]);
%! endfor
%! warning ("error", "muonlab:tinyInput", "local");
%! try
%!   muon_ns (muon_gpu (G, "Device", "cpu"));
%!   error ("no warning");
%! catch err
%!   assert (err.message, "muon_ns: 2 page(s) of G have 0 < norm (G, 'fro') < EPS (1e-07): their result is about G / EPS, far from orthogonal.");
%! end_try_catch
%! ## Gram over 1000 steps of Keller's schedule in double diverges (1e23); CANS in bf16 on
%! ## this page too (1200): the first page of each stack is sound
%! warning ("off", "muonlab:diverged", "local");
%! randn ("state", 1);
%! Gw = cat (3, randn (64, 256), randn (64, 256));
%! o = {"Method", "gram", "Precision", "double", "Steps", 1000};
%! [Xh, sh] = muon_ns (Gw, o{:});
%! [Xd, sd] = muon_ns (muon_gpu (Gw, "Device", "cpu"), o{:});
%! assert (isequal (gather (Xd), Xh));
%! sv = [max(svd (Xh(:,:,1))), max(svd (Xh(:,:,2)))];
%! assert (sum (sv > 2 * 1.13), sh.diverged_pages);
%! assert (sd.diverged_pages, sh.diverged_pages);
%! assert (sd.diverged_pages >= 1);
%! randn ("state", 4);
%! Gc = cat (3, randn (20, 20), randn (20, 20))(:,:,[2 1]);
%! [Xc, sd] = muon_ns (muon_gpu (Gc, "Device", "cpu"), "Coefficients", "cans",
%!                     "Precision", "bf16");
%! Xc = gather (Xc);
%! assert (sd.diverged_pages, 1);
%! assert (max (svd (Xc(:,:,2))) > 1000 && max (svd (Xc(:,:,1))) < 1.5);
%! warning ("error", "muonlab:diverged", "local");
%! try
%!   muon_ns (muon_gpu (Gc, "Device", "cpu"), "Coefficients", "cans", "Precision", "bf16");
%!   error ("no warning");
%! catch err
%!   assert (regexp (err.message, '^muon_ns: 1 page\(s\) of the result have a singular value of [0-9.e+]+ or more, where this schedule gives at most 1.12: the iteration diverged'));
%! end_try_catch
%! ## and no alarm on sound runs: every shipped schedule in every precision but CANS in
%! ## bf16, standard and Gram, a stack with an ill-conditioned and an orthogonal page
%! warning ("off", "muonlab:unsafeSchedule", "local");
%! Gs = cat (3, randn (24, 40) .* (1:40) .^ 2, [eye(24), zeros(24, 16)]);
%! for n = muon_coeffs ()(:).'
%!   for p = {"double", "single", "bf16", "fp16"}
%!     if (! (strcmp (n{1}, "cans") && strcmp (p{1}, "bf16")))
%!       for m = {"standard", "gram"}
%!         [~, sd] = muon_ns (muon_gpu (Gs, "Device", "cpu"), "Coefficients", n{1},
%!                            "Precision", p{1}, "Method", m{1});
%!         assert (sd.diverged_pages, 0);
%!       endfor
%!     endif
%!   endfor
%! endfor

%!test
%! ## a diverged block of a device update is told: the fused weight of muon_update's test
%! ## (CANS in bf16; the last split block of the second expert goes to 1200), each block
%! ## against its own scale; the same blocks in single are sound, under every scale rule
%! randn ("state", 1);
%! Gf = [randn(20, 20); randn(20, 20)];
%! randn ("state", 2);
%! Gf = [Gf; randn(20, 20)];
%! randn ("state", 4);
%! Gf = [Gf; randn(20, 20)];
%! o = {"Coefficients", "cans", "Experts", 2, "SplitRows", [20 20]};
%! warning ("error", "muonlab:diverged", "local");
%! try
%!   muon_update (muon_gpu (Gf, "Device", "cpu"), [], o{:}, "Precision", "bf16");
%!   error ("no warning");
%! catch err
%!   assert (err.identifier, "muonlab:diverged");
%!   assert (regexp (err.message, '^muon_update: 1 page\(s\) of the update have a block with a singular value of [0-9.e+]+ or more, where this schedule and scale give at most 1.12: the iteration diverged'));
%! end_try_catch
%! warning ("off", "muonlab:diverged", "local");
%! U = gather (muon_update (muon_gpu (Gf, "Device", "cpu"), [], o{:}, "Precision", "bf16"));
%! assert (isequal (U, muon_update (Gf, [], o{:}, "Precision", "bf16")));
%! sv = arrayfun (@(k) max (svd (U(20*k-19:20*k,:))), 1:4);
%! assert (sv(4) > 1000 && all (sv(1:3) < 1.5));
%! warning ("error", "muonlab:diverged", "local");
%! U = muon_update (muon_gpu (Gf, "Device", "cpu"), [], o{:}, "Precision", "single");
%! for s = {"keller", "rms", "spectral", "unit_rms"}
%!   U = muon_update (muon_gpu (Gf, "Device", "cpu"), [], o{:}, "Scale", s{1},
%!                    "ScaleFactor", 3);
%! endfor

## the class itself (moved from inst/muon_gpuarray.m): its methods, sizes, arithmetic
## bits, refusals and errors
%!test
%! X = reshape (1:24, 2, 3, 4);
%! D = muon_gpu (X, "Device", "cpu");
%! assert (isa (D, "muon_gpuarray"));
%! assert (size (D), [2 3 4]);
%! assert (size (D, 3), 4);
%! assert (size (D, 4), 1);
%! [m, n] = size (D);
%! assert ([m n], [2 12]);
%! assert ([rows(D), columns(D), ndims(D)], [2 3 3]);
%! assert (classUnderlying (D), "double");
%! assert (device (D), "cpu");
%! assert (gather (D), X);
%! s = evalc ("disp (D)");
%! assert (! isempty (strfind (s, "2x3x4 double device array on cpu (192 B)")));
%! assert (numel (D), 24);
%! assert (length (D), 4);                   # an array's, not the handle's 1
%! assert (length (muon_gpu (ones (5, 2), "Device", "cpu")), 5);
%! assert (! isscalar (D) && ! isempty (D));
%! assert (D.Size, [2 3 4]);                  # properties and methods by dot still work
%! assert (D.gather (), X);

%!test
%! ## freed when the last reference goes; copies share the data
%! n0 = __muon_gpu__ ("count");
%! A = muon_gpu (ones (3), "Device", "cpu");
%! B = A;
%! assert (__muon_gpu__ ("count"), n0 + 1);
%! clear A
%! assert (__muon_gpu__ ("count"), n0 + 1);
%! assert (gather (B), ones (3));
%! clear B
%! assert (__muon_gpu__ ("count"), n0);

%!error <muon_gpuarray: make a device array with muon_gpu, e.g. muon_gpu \(X\).> muon_gpuarray ()

%!test
%! ## arithmetic gives the bits of the same operation on host arrays of the class, and
%! ## leaves its operands as they were
%! randn ("state", 3);
%! X = randn (5, 4, 2);  Y = randn (5, 4, 2);
%! for cls = {"double", "single"}
%!   x = cast (X, cls{1});  y = cast (Y, cls{1});
%!   A = muon_gpu (x, "Device", "cpu");  B = muon_gpu (y, "Device", "cpu");
%!   assert (gather (A + B), x + y);
%!   assert (gather (A - B), x - y);
%!   assert (gather (A * (1/3)), x * (1/3));
%!   assert (gather ((1/3) * A), (1/3) * x);
%!   assert (gather (A .* 0.7), x .* 0.7);
%!   assert (gather (A / 7), x / 7);
%!   assert (gather (A ./ 0.3), x ./ 0.3);
%!   assert (gather (A * single (0.1)), x * double (single (0.1)));   # keeps A's class
%!   assert (gather (-A), -x);
%!   assert (gather (A), x);
%!   assert (gather (B), y);
%! endfor

%!test
%! ## a 16-bit class computes in single and rounds once into the class
%! randn ("state", 4);
%! A = muon_gpu (randn (6, 3), "Device", "cpu", "Class", "bf16");
%! B = muon_gpu (randn (6, 3), "Device", "cpu", "Class", "bf16");
%! a = gather (A);  b = gather (B);
%! assert (classUnderlying (A + B), "bf16");
%! assert (gather (A + B), muon_round (a + b, "bf16"));
%! assert (gather (A / 3), muon_round (a / single (3), "bf16"));
%! assert (gather (-A), -a);
%! H = muon_gpu (randn (6, 3), "Device", "cpu", "Class", "fp16");
%! h = gather (H);
%! assert (gather (H * 1e5), muon_round (h * single (1e5), "fp16"));

%!error <muon_gpuarray: A \+ B needs two device arrays of one size, class and device.>
%! muon_gpu (ones (2), "Device", "cpu") + ones (2)
%!error id=muonlab:unsupported muon_gpu (ones (2), "Device", "cpu")(1)
%!error <muon_gpuarray: a device array cannot be indexed; gather \(D\) first.>
%! D = muon_gpu (ones (2), "Device", "cpu");
%! D(1, 2)
%!error <muon_gpuarray: a device array cannot be indexed; gather \(D\) first.>
%! D = muon_gpu (ones (2), "Device", "cpu");
%! D{1}
%!error <muon_gpuarray: A - B needs two device arrays of one size, class and device.>
%! muon_gpu (ones (2), "Device", "cpu") - muon_gpu (ones (2), "Device", "cpu", "Class", "single")
%!error <muon_gpuarray: A - B needs two device arrays of one size, class and device.>
%! muon_gpu (ones (2), "Device", "cpu") - muon_gpu (ones (2, 3), "Device", "cpu")
%!error <muon_gpuarray: A \* B needs a device array and a real scalar.>
%! muon_gpu (ones (2), "Device", "cpu") * [1 2]
%!error <muon_gpuarray: A \.\* B needs a device array and a real scalar.>
%! muon_gpu (ones (2), "Device", "cpu") .* muon_gpu (ones (2), "Device", "cpu")
%!error <muon_gpuarray: A \./ B needs a device array divided by a real scalar.>
%! muon_gpu (ones (2), "Device", "cpu") ./ [1 2]
%!error <muon_gpuarray: A / B needs a device array divided by a real scalar.>
%! 2 / muon_gpu (ones (2), "Device", "cpu")
%!error <muon_gpuarray: A / B needs a device array divided by a real scalar.>
%! muon_gpu (ones (2), "Device", "cpu") / 1i
%!error <muon_gpuarray: A \+ B needs two device arrays of one size, class and device.>
%! plus (muon_gpu (ones (2), "Device", "cpu"))
%!error <muon_gpuarray: A \* B needs a device array and a real scalar.>
%! mtimes (muon_gpu (ones (2), "Device", "cpu"))
%!error <muon_gpuarray: a device array cannot be concatenated; gather \(D\) first.>
%! D = muon_gpu (ones (2), "Device", "cpu");
%! horzcat (D, D)
%!error <muon_gpuarray: a device array cannot be concatenated; gather \(D\) first.>
%! vertcat (muon_gpu (ones (2), "Device", "cpu"), ones (2))
## (brackets: Octave 7 replaces the method's message with its own, which names the class)
%!error <muon_gpuarray/horzcat method failed>
%! D = muon_gpu (ones (2), "Device", "cpu");
%! [D, D]
%!error <muon_gpuarray/vertcat method failed>
%! D = muon_gpu (ones (2), "Device", "cpu");
%! [D; ones(2)]
%!error <muon_gpuarray: a device array cannot be concatenated; gather \(D\) first.>
%! cat (3, muon_gpu (ones (2), "Device", "cpu"), ones (2))
%!test
%! ## the functions of arrays that need the elements: an error naming the function;
%! ## the size predicates and isequal answer for the arrays, not the handle objects
%! R = muon_gpu (1:4, "Device", "cpu");
%! E = muon_gpu (1:4, "Device", "cpu");
%! for op = {@any, @all, @abs, @sum, @double, @isnan, @isdiag, @transpose, @ctranspose, ...
%!           @cos, @svd, @median, @int32, @(D) mod (D, 2), @sumsq, ...
%!           @(D) D .^ 2, @(D) D == D, @(D) D > 0, @(D) ! D, @(D) D \ 2, @(D) reshape (D, 4, 1)}
%!   try
%!     op{1} (R);
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:unsupported");
%!     assert (regexp (err.message,
%!                     '^muon_gpuarray: \w+ is not defined for a device array; gather \(D\) first\.$'));
%!   end_try_catch
%! endfor
%! assert (isequal (R, E) && isequal (R, 1:4) && isequal (1:4, E, R));
%! assert (isequaln (R, E) && isequaln (R, 1:4) && ! isequaln (R, 1:3));
%! assert (isequal (gather (+R), 1:4));
%! assert (! isequal (R, muon_gpu (1:3, "Device", "cpu")) && ! isequal (R, [1 2 3 5]));
%! assert (size_equal (R, E) && size_equal (R, ones (1, 4)));
%! assert (! size_equal (R, muon_gpu (ones (2, 5), "Device", "cpu")));
%! assert (! size_equal (R, ones (4, 1)));
%! assert ([isrow(R), isvector(R), isscalar(R), ismatrix(R)], [true true false true]);
%!error <muon_gpuarray: any is not defined for a device array; gather \(D\) first.>
%! any (muon_gpu (ones (2), "Device", "cpu"))
%!error <muon_gpuarray: power is not defined for a device array; gather \(D\) first.>
%! muon_gpu (ones (2), "Device", "cpu") .^ 2
%!error <muon_gpuarray: size: DIM must be positive integers, e.g. size \(D, 1\).>
%! size (muon_gpu (ones (2), "Device", "cpu"), 0)
%!error <muon_gpuarray: size: DIM must be positive integers, e.g. size \(D, 1\).>
%! size (muon_gpu (ones (2), "Device", "cpu"), 1.5)
%!error <muon_gpuarray: size: DIM must be positive integers, e.g. size \(D, 1\).>
%! size (muon_gpu (ones (2), "Device", "cpu"), "a")
%!test
%! ## size with several dimensions, and disp's text as a value, as Octave's arrays do
%! D = muon_gpu (ones (2, 3, 4), "Device", "cpu");
%! X = ones (2, 3, 4);
%! assert (size (D, [1 3]), size (X, [1 3]));
%! assert (size (D, 2, 3), size (X, 2, 3));
%! [a, b] = size (D, [3 1]);
%! assert ([a b], [4 2]);
%! assert (disp (D), evalc ("disp (D)"));
%! assert (disp (D), "  2x3x4 double device array on cpu (192 B); gather () copies it to the host\n");

%!test
%! ## a "Preset" on device arrays is expanded as on the host (it was dropped: plain Muon
%! ## ran).  dion_reference's conventions under ALGORITHM 'muon' (no Nesterov, SGD
%! ## momentum, sqrt (m/n), Keller's NS) are all the device's: the host path's bits over two
%! ## steps, which are those of the preset's pairs written out, and not plain Muon's
%! randn ("state", 6);
%! G1 = randn (32, 64);
%! G2 = randn (32, 64);
%! a = {"Preset", "dion_reference", "Algorithm", "muon"};
%! b = {"Nesterov", false, "MomentumForm", "sgd", "Scale", "unit_rms"};
%! [Uh, sh] = muon_update (G1, [], a{:});
%! [Ud, sd] = muon_update (muon_gpu (G1, "Device", "cpu"), [], a{:});
%! assert (isequal (Uh, muon_update (G1, [], b{:})));
%! assert (isequal (gather (Ud), Uh) && isequal (gather (sd.momentum), sh.momentum));
%! assert ({sd.step, sd.form}, {1, "sgd"});
%! Uh = muon_update (G2, sh, a{:});
%! Ud = muon_update (G2, sd, a{:});                     # a host G joins the device momentum
%! assert (isequal (gather (Ud), Uh));
%! assert (! isequal (Uh, muon_update (G2, nthargout (2, @muon_update, G1, []))));
%! ## and "Keller" (muonlab's defaults) gives plain Muon, on the host as on the device
%! U = gather (muon_update (muon_gpu (G1, "Device", "cpu"), [], "Preset", "keller"));
%! assert (isequal (U, muon_update (G1, [], "Preset", "keller"), muon_update (G1, [])));

%!test
%! ## muon_optimizer "Resident" with a preset the device runs: the host optimizer's bits
%! ## over two steps, not the plain Muon optimizer's
%! randn ("state", 6);
%! P = struct ("W", randn (8, 16), "b", randn (8, 1));
%! g = {struct("W", randn (8, 16), "b", randn (8, 1)), struct("W", randn (8, 16), "b", randn (8, 1))};
%! a = {"Preset", "dion_reference", "Algorithm", "muon", "LR", 0.01};
%! oh = muon_optimizer (P, a{:});
%! od = muon_optimizer (P, a{:}, "Device", "cpu", "Resident", true);
%! op = muon_optimizer (P, "LR", 0.01, "Device", "cpu", "Resident", true);
%! Ph = P;  Pd = P;  Pp = P;
%! for t = 1:2
%!   [Ph, oh] = muon_step (oh, Ph, g{t});
%!   [Pd, od] = muon_step (od, Pd, g{t});
%!   [Pp, op] = muon_step (op, Pp, g{t});
%! endfor
%! assert (isa (od.muon.W.momentum, "muon_gpuarray"));
%! assert (isequal (Pd, Ph) && ! isequal (Pd.W, Pp.W));

%!test
%! ## a preset the device cannot run is refused with the explicit options' error: by
%! ## muon_update at once, and when a device state is made (muon_optimizer "Resident",
%! ## muon_load_state "Device"), not at its first step
%! D = muon_gpu (ones (8, 16), "Device", "cpu");
%! pre = "muon_optimizer: a state on the device runs Muon (ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'); parameter 'W' runs ";
%! P = struct ("W", reshape (sin (1:128), 8, 16));
%! c = {{"Preset", "normuon_zichongli5"}, "ALGORITHM 'normuon'";
%!      {"Preset", "namo_eo"}, "ALGORITHM 'namo' and EPSPLACEMENT 'max'";
%!      {"Preset", "dion2"}, "ALGORITHM 'dion2' and NORMSCALE 1.02";
%!      {"Preset", "normuon_dion", "Algorithm", "muon"}, "NORMSCALE 1.02";
%!      {"Preset", "normuon_eo", "Algorithm", "muon"}, "EPSPLACEMENT 'max'";
%!      {"Algorithm", "normuon"}, "ALGORITHM 'normuon'"};
%! for i = 1:rows (c)
%!   for k = 1:2
%!     try
%!       if (k == 1)
%!         muon_update (D, [], c{i,1}{:});
%!       else
%!         muon_optimizer (P, c{i,1}{:}, "Device", "cpu", "Resident", true);
%!       endif
%!       error ("no error");
%!     catch err
%!       assert (err.identifier, "muonlab:unsupported");
%!       if (k == 1)
%!         assert (err.message, ["muon_update: device arrays run Muon (ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'); gather them for " c{i,2} "."]);
%!       else
%!         assert (err.message, [pre c{i,2} "."]);
%!       endif
%!     end_try_catch
%!   endfor
%! endfor
%! ## a host checkpoint of a normuon preset: muon_load_state "Device" refuses it (it went
%! ## on as plain Muon)
%! [~, o] = muon_step (muon_optimizer (P, "Preset", "normuon_zichongli5"), P, P);
%! f = [tempname() ".ckpt"];
%! muon_save_state (f, o);
%! unwind_protect
%!   fail ("muon_load_state (f, P, 'Device', 'cpu')",
%!         ["muon_load_state: a state on the device runs Muon \\(ALGORITHM 'muon', NORMSCALE 1, " ...
%!          "EPSPLACEMENT 'add'\\); parameter 'W' runs ALGORITHM 'normuon'."]);
%!   assert (isstruct (muon_load_state (f, P).muon.W.family));   # on the host it loads
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## NORMSCALE and EPSPLACEMENT: the refusal names them (it blamed ALGORITHM 'muon'), and a
%! ## device state asking for them is refused when it is made or loaded, not at its first
%! ## step
%! P = struct ("W", reshape (sin (1:24), 4, 6));
%! D = muon_gpu (P.W, "Device", "cpu");
%! fail ("muon_update (D, [], 'NormScale', 1.02)",
%!       "muon_update: device arrays run Muon \\(ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'\\); gather them for NORMSCALE 1.02.");
%! fail ("muon_update (D, [], 'NormScale', 1.02, 'EpsPlacement', 'max', 'Algorithm', 'namo')",
%!       "gather them for ALGORITHM 'namo', NORMSCALE 1.02 and EPSPLACEMENT 'max'.");
%! fail ("muon_optimizer (P, 'NormScale', 1.02, 'Device', 'cpu', 'Resident', true)",
%!       "muon_optimizer: a state on the device runs Muon \\(ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'\\); parameter 'W' runs NORMSCALE 1.02.");
%! fail ("muon_optimizer (P, 'EpsPlacement', 'max', 'Device', 'cpu', 'Resident', true)",
%!       "parameter 'W' runs EPSPLACEMENT 'max'.");
%! [~, o] = muon_step (muon_optimizer (P, "NormScale", 1.02), P, P);
%! f = [tempname() ".ckpt"];
%! muon_save_state (f, o);
%! unwind_protect
%!   fail ("muon_load_state (f, P, 'Device', 'cpu')",
%!         "muon_load_state: a state on the device runs Muon \\(ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'\\); parameter 'W' runs NORMSCALE 1.02.");
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a device gradient of the other class than its host parameter (double parameter,
%! ## single gradient, and the reverse; Muon and AdamW parameters): refused naming the
%! ## parameter and both classes (the momentum became single for a double parameter, the
%! ## step left the host path's and the checkpoint would not load); a host gradient is cast
%! ## to its parameter's class, the host path's bits
%! randn ("state", 34);
%! P = struct ("W", randn (8, 16), "b", randn (8, 1), "S", single (randn (8, 16)));
%! G = struct ("W", randn (8, 16), "b", randn (8, 1), "S", single (randn (8, 16)));
%! od = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! for c = {{"W", "double", "single"}, {"b", "double", "single"}, {"S", "single", "double"}}
%!   [n, want, got] = c{1}{:};
%!   B = G;
%!   B.(n) = muon_gpu (cast (G.(n), got), "Device", "cpu");
%!   try
%!     muon_step (od, P, B);
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:badType");
%!     assert (err.message, sprintf ("muon_step: GRADS.%s must be a %s device array, the class of PARAMS.%s, not %s (device arrays are not converted: muon_gpu (G, \"Class\", \"%s\")).",
%!                                   n, want, n, got, want));
%!   end_try_catch
%! endfor
%! H = G;
%! H.W = single (G.W);
%! [pd, od] = muon_step (od, P, H);
%! [ph, oh] = muon_step (muon_optimizer (P), P, H);
%! assert (isequal (pd, ph));
%! assert (classUnderlying (od.muon.W.momentum), "double");

%!test
%! ## a device momentum or AdamW moment of the other class than its parameter: the state
%! ## check refuses it (it looked at the size only), in muon_step and in muon_save_state,
%! ## which so never writes a file muon_load_state refuses
%! P = struct ("W", reshape (sin (1:128), 8, 16), "b", cos (1:8)');
%! [~, o] = muon_step (muon_optimizer (P, "Device", "cpu", "Resident", true), P, P);
%! f = [tempname() ".ckpt"];
%! for c = {{"muon", "W", "momentum", [8 16]}, {"adam", "b", "m", [8 1]}, {"adam", "b", "v", [8 1]}}
%!   [g, n, k, sz] = c{1}{:};
%!   b = o;
%!   b.(g).(n).(k) = muon_gpu (single (ones (sz)), "Device", "cpu");
%!   msg = sprintf ("OPT.%s.%s.%s must be double, the class of its parameter.", g, n, k);
%!   fail ("muon_step (b, P, P)", ["muon_step: " regexptranslate("escape", msg)]);
%!   fail ("muon_save_state (f, b)", ["muon_save_state: " regexptranslate("escape", msg)]);
%!   assert (! exist (f, "file"));
%! endfor

%!test
%! ## a device array of an earlier session: the error names the function called and the
%! ## array as the caller knows it (it said "gather: D" or "muon_step: X").  Last here: the
%! ## reset makes the shared arrays stale too
%! P = struct ("W", reshape (sin (1:128), 8, 16));
%! [~, o] = muon_step (muon_optimizer (P, "Device", "cpu", "Resident", true), P, P);
%! X = muon_gpu (ones (3), "Device", "cpu");
%! L = zero_layout ({[8 8]}, 1);
%! Z = {muon_gpu(randn (8), "Device", "cpu")};
%! muon_gpu ("reset");
%! rest = " is a device array of an earlier session (cleared by clear functions or muon_gpu (\"reset\")); make it again.";
%! f = [tempname() ".ckpt"];
%! c = {@() polar_metrics (X, X), "polar_metrics: A";
%!      @() polar_metrics (ones (3), X), "polar_metrics: P";
%!      @() muon_save_state (f, o), "muon_save_state: OPT.muon.W.momentum";
%!      @() zero_muon_step (L, Z, []), "zero_muon_step: RANK_GRADS{1,1}"};
%! for i = 1:rows (c)
%!   try
%!     c{i,1} ();
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:staleHandle");
%!     assert (err.message, [c{i,2} rest]);
%!   end_try_catch
%! endfor
%! assert (! exist (f, "file"));
