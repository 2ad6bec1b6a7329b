## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

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
## The optimizer's state on the device and presets: test_gpuarray_state; classes and stale
## arrays refused: test_gpuarray_refused.
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
%!error <muon_update: SPLITROWS has 4097 row blocks; at most 4096.> muon_update (muon_gpu (ones (4097, 2), "Device", "cpu"), [], "SplitRows", ones (1, 4097))
%!error <muon_update: EXPERTS must divide the number of rows of G.> muon_update (D, [], "Experts", 3)
%!error <muon_update: a 4-D G needs a host momentum.> muon_update (ones (2, 2, 2, 2), struct ("momentum", D, "step", 1, "form", "ema"))
%!error <muon_ns: NORMSCALE and EPSPLACEMENT need a host array G \(gather \(G\) first\).> muon_ns (D, "NormScale", 1.02)
%!error <muon_update: device arrays run Muon \(ALGORITHM 'muon', NORMSCALE 1, EPSPLACEMENT 'add'\); gather them for ALGORITHM 'normuon'.> muon_update (D, [], "Algorithm", "normuon")

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
%! ## Gram over 1000 steps of Keller's schedule in double is sound (it once diverged, 1e23:
%! ## a mirrored Q), host and device alike; CANS in bf16 diverges on the second page of
%! ## a stack (1200), the first is sound
%! warning ("off", "muonlab:diverged", "local");
%! randn ("state", 1);
%! Gw = cat (3, randn (64, 256), randn (64, 256));
%! o = {"Method", "gram", "Precision", "double", "Steps", 1000};
%! [Xh, sh] = muon_ns (Gw, o{:});
%! [Xd, sd] = muon_ns (muon_gpu (Gw, "Device", "cpu"), o{:});
%! assert (isequal (gather (Xd), Xh));
%! sv = [max(svd (Xh(:,:,1))), max(svd (Xh(:,:,2)))];
%! assert (sv < 1.14);
%! assert ([sh.diverged_pages, sd.diverged_pages], [0 0]);
%! randn ("state", 4);
%! Gc = cat (3, randn (20, 20), randn (20, 20))(:,:,[2 1]);
%! [Xc, sd] = muon_ns (muon_gpu (Gc, "Device", "cpu"), "Coefficients", "cans",
%!                     "Precision", "bf16");
%! Xc = gather (Xc);
%! [Xh, sh] = muon_ns (Gc, "Coefficients", "cans", "Precision", "bf16");
%! assert (isequal (Xc, Xh));
%! assert ([sd.diverged_pages, sh.diverged_pages], [1 1]);
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
%!   assert (gather (A * single (0.1)), x * single (0.1));   # single, as Octave's
%!   assert (gather (-A), -x);
%!   assert (gather (A), x);
%!   assert (gather (B), y);
%! endfor

%!test
%! ## a double array and a single scalar: Octave's rule, a single result (the array rounded
%! ## to single, the operation in single), bit for bit, over overflow, subnormals, 0, -0,
%! ## Inf and NaN (it stayed double: about 1000 of 4000 elements differed from the host)
%! randn ("state", 5);
%! x = randn (40, 25) .* 10 .^ randi ([-50 50], 40, 25);
%! x(1:8) = [1e300, -1e300, realmin, 4e-320, 0, -0, 1 + 2^-30, 2^-149];
%! A = muon_gpu (x, "Device", "cpu");
%! for s = single ([0.1, -3, 1e-30, 7e20, 0, -0, Inf, NaN, 1.4e-45, realmax("single")])
%!   C = {A * s, s * A, A .* s, s .* A, A / s, A ./ s};
%!   c = {x * s, s * x, x .* s, s .* x, x / s, x ./ s};
%!   for k = 1:numel (C)
%!     assert (classUnderlying (C{k}), "single");
%!     y = gather (C{k});
%!     assert (class (y), class (c{k}));
%!     assert (isequaln (y, c{k}) && isequal (signbit (y), signbit (c{k})));
%!   endfor
%! endfor
%! assert (nnz (double (single (x)) * double (single (0.1)) != x * double (single (0.1))) > 100);
%! assert (classUnderlying (A * 0.1), "double");          # a double scalar: double
%! assert (classUnderlying (-A), "double");
%! assert (gather (A), x);

%!test
%! ## arithmetic on a deleted array names the operand: by its place in the rule (Octave
%! ## gives an operator's operands no names), by name in a call by name (it said X or Y)
%! G = muon_gpu (ones (3), "Device", "cpu");
%! H = muon_gpu (ones (3), "Device", "cpu");
%! delete (G);
%! del = " is a device array that was deleted; make it again\\.$";
%! fail ("G * 2", ["^muon_gpuarray: A in A \\* B" del]);
%! fail ("2 * G", ["^muon_gpuarray: B in A \\* B" del]);
%! fail ("H - G", ["^muon_gpuarray: B in A - B" del]);
%! fail ("G ./ single (2)", ["^muon_gpuarray: A in A \\./ B" del]);
%! fail ("-G", ["^muon_gpuarray: A in -A" del]);
%! fail ("mtimes (G, 2)", ["^muon_gpuarray: G" del]);
%! fail ("plus (H, G)", ["^muon_gpuarray: G" del]);

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
%! ## assigning into a device array: muonlab:unsupported (it said "cannot convert 'scalar'
%! ## into 'object'", and B(2) = D built a 1 x 2 object array that failed later); D and its
%! ## copies are unchanged.  D.Prop = X of a non-scalar array: Octave 7's own error
%! D = muon_gpu ([1 2; 3 4], "Device", "cpu");
%! S = muon_gpu (5, "Device", "cpu");
%! msg = "muon_gpuarray: a device array cannot be assigned into; gather it, change it and make it again with muon_gpu.";
%! c = {"D(1) = 1;", "D(2, 2) = 0;", "D(:) = [];", "D{1} = 1;", "B = D; B(2) = D;", ...
%!      "B = D; B(1, 1) = D;", "D(3) = D;", "D(2).Size = 1;", "S.Size = [1 1];", ...
%!      "S.Handle = [];", "s.w = D; s.w(1) = 0;"};
%! for i = 1:numel (c)
%!   try
%!     eval (c{i});
%!     error ("no error: %s", c{i});
%!   catch err
%!     assert (err.identifier, "muonlab:unsupported", c{i});
%!     assert (err.message, msg);
%!   end_try_catch
%! endfor
%! assert (size (D), [2 2]);
%! assert (gather (D), [1 2; 3 4]);
%! assert (gather (S), 5);
%! try
%!   D.Size = [1 1];
%!   error ("no error");
%! catch err
%!   assert (err.message, "invalid dot name structure assignment because the structure array is empty.  Specify a subscript on the structure array to resolve.");
%! end_try_catch
%! assert (size (D), [2 2]);
%! ## a device array stored into a struct or a cell, also by setfield and subsasgn
%! ## called by name (Octave dispatches those to the class of the value)
%! s = struct ("w", D);
%! c = {D, S};
%! assert (gather (s.w), [1 2; 3 4]);
%! assert (gather (c{2}), 5);
%! s = setfield (struct ("a", 1), "w", S);
%! assert (gather (s.w), 5);
%! s = subsasgn (struct ("a", 1), substruct (".", "w"), S);
%! assert (gather (s.w), 5);
%! c = subsasgn ({1, 2}, substruct ("{}", {2}), S);
%! assert (gather (c{2}), 5);
%!error <muon_gpuarray: a device array cannot be assigned into; gather it, change it and make it again with muon_gpu\.>
%! D = muon_gpu (ones (2), "Device", "cpu");
%! D(1) = 1;
%!error <muon_gpuarray: a device array cannot be assigned into; gather it, change it and make it again with muon_gpu\.>
%! D = muon_gpu (ones (2), "Device", "cpu");
%! B = D;
%! B(2) = D;
%!test
%! ## as a condition a device array is false whatever its values (Octave's objects are);
%! ## the help says so
%! D = muon_gpu (ones (2), "Device", "cpu");
%! t = 0;
%! if (D)
%!   t = 1;
%! endif
%! assert (t, 0);
%! assert (! (D && true));
%!test
%! ## save: Octave 7 calls no saveobj for a classdef object; the text and binary formats
%! ## refuse it, the MAT-file formats write its properties without the data (the help says
%! ## so: gather first)
%! D = muon_gpu ([1 2; 3 4], "Device", "cpu");
%! f = [tempname() ".dat"];
%! unwind_protect
%!   for fmt = {"-text", "-binary"}
%!     try
%!       save (fmt{1}, f, "D");
%!       error ("no error");
%!     catch err
%!       assert (! isempty (strfind (err.message, "wrong type argument 'object'")), err.message);
%!     end_try_catch
%!   endfor
%!   warning ("off", "Octave:classdef-to-struct", "local");
%!   warning ("off", "Octave:load:classdef-to-struct", "local");
%!   save ("-v7", f, "D");
%!   S = load (f);
%!   assert (isstruct (S.D) && ! isa (S.D, "muon_gpuarray"));
%!   assert (S.D.Size, [2 2]);
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     unlink (f);
%!   endif
%! end_unwind_protect
