## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_gpu_array ()
## Suite of the GPU layer (run by @code{make check-gpu}): device arrays
## (@code{muon_gpu}, on @code{gpu_target}'s @code{array} device: CUDA, or the CPU stand-in
## in self-test mode) against the host-array calls on the same device.
##
## The device-array path runs the same kernels in the same order as the host-array path
## (it only skips the staging copies), so @code{muon_ns} and three chained
## @code{muon_update} steps must give the same bits, for every precision and method, tall,
## wide and stacked inputs (the stack exercises the two-stream staging of the host path),
## fused experts and split rows; the host path itself is held to the CPU reference by
## test_gpu_ns and test_gpu_update.  16-bit arrays: NS of a bf16 / fp16 array equals NS of
## the rounded input in that precision.  Plus the device's own behaviour: the normal
## generator against the CPU stand-in's stream, an allocation larger than the device
## (@code{muonlab:outOfMemory}, nothing kept, the session goes on), stale handles after
## @code{muon_gpu ("reset")}, no array left behind by a loop of calls, a gradient with NaN
## or Inf rejected as on the host, and a positive device time.  The optimizer on device parameters: the arithmetic of @code{muon_gpuarray} equals
## the host's bit for bit, and @code{muon_step} on device parameters and gradients equals
## the same optimizer on host parameters (its sums of squares within 1e-13).
## @end deftypefn

function test_gpu_array ()
  help test_gpu_array
endfunction

%!shared t
%! t = gpu_target ();

%!test
%! ## NS: device array == host array on the same device, bit for bit
%! randn ("state", 31);
%! for sz = {[96 160], [160 96], [64 128 5]}
%!   G = randn (sz{1});
%!   for p = {"double", "single", "bf16", "fp16"}
%!     Gp = G;
%!     if (! strcmp (p{1}, "double"))
%!       Gp = single (G);
%!     endif
%!     D = muon_gpu (Gp, "Device", t.array);
%!     for m = {"standard", "gram"}
%!       for fused = [false true]
%!         o = {t.dev{:}, "Precision", p{1}, "Method", m{1}, "Fused", fused};
%!         X = muon_ns (D, o{:});
%!         assert (isa (X, "muon_gpuarray"));
%!         assert (isequal (gather (X), muon_ns (Gp, o{:})),
%!                 sprintf ("%s %s %s fused %d", mat2str (sz{1}), p{1}, m{1}, fused));
%!       endfor
%!     endfor
%!   endfor
%! endfor

%!test
%! ## Normalize "aol": a device array's update does what the host call on the same device
%! ## does (the CPU applies it, CUDA refuses it), never a Frobenius update in its place
%! randn ("state", 33);
%! G = randn (24, 40);
%! D = muon_gpu (G, "Device", t.array);
%! o = {t.dev{:}, "Normalize", "aol", "Coefficients", "aol"};
%! herr = derr = "";
%! try, Uh = muon_update (G, [], o{:}); catch e, herr = e.identifier; end_try_catch
%! try, Ud = gather (muon_update (D, [], o{:})); catch e, derr = e.identifier; end_try_catch
%! assert (derr, herr);
%! if (isempty (herr))
%!   assert (isequal (Ud, Uh));
%!   assert (! isequal (Uh, muon_update (G, [], t.dev{:}, "Coefficients", "aol")));
%! endif

%!test
%! ## an fp16 update past its range (65520 and up round to Inf) is Inf in its class: the
%! ## host's warning, never silently
%! randn ("state", 34);
%! G = single (randn (16, 32));
%! D = muon_gpu (G, "Device", t.array, "Class", "fp16");
%! lastwarn ("");
%! U = gather (muon_update (D, [], t.dev{:}, "ScaleFactor", 1e6));
%! [~, id] = lastwarn ();
%! assert (id, "muonlab:nonFiniteResult");
%! Uh = muon_update (gather (D), [], t.dev{:}, "Precision", "fp16", "ScaleFactor", 1e6);
%! assert (nnz (isinf (U)), nnz (abs (Uh) >= 65520));
%! assert (nnz (isinf (U)) > 0);
%! lastwarn ("");
%! gather (muon_update (D, [], t.dev{:}));
%! assert (lastwarn (), "");

%!test
%! ## arrays of several 32 MB staging chunks and a tail (82 MB of single, 20.5 M elements:
%! ## more than one pass of a 65536-block grid): the round trip keeps every bit, in the
%! ## class and converted on the device
%! sz = [4100 5000];
%! G = single (reshape (mod (1:prod (sz), 65521) - 32760, sz)) / 7;
%! assert (isequal (gather (muon_gpu (G, "Device", t.array)), G));
%! assert (isequal (gather (muon_gpu (G, "Device", t.array, "Class", "bf16")),
%!                  single (muon_round (G, "bf16"))));
%! Gd = double (G(:, 1:2600)) * pi;               # 85 MB of double, to single on the device
%! assert (isequal (gather (muon_gpu (Gd, "Device", t.array, "Class", "single")), single (Gd)));

%!test
%! ## 16-bit storage: NS of the array == NS of the rounded input in that precision
%! randn ("state", 32);
%! G = randn (80, 200);
%! for p = {"bf16", "fp16"}
%!   D = muon_gpu (G, "Device", t.array, "Class", p{1});
%!   X = muon_ns (D, t.dev{:});
%!   assert (classUnderlying (X), p{1});
%!   R = single (muon_round (G, p{1}));
%!   assert (isequal (gather (X), muon_ns (R, t.dev{:}, "Precision", p{1})));
%! endfor

%!test
%! ## three chained updates: device arrays == host arrays on the device, U and momentum
%! randn ("state", 33);
%! cases = {{[64 160], {}}, {[160 64], {"MomentumForm", "sgd", "Nesterov", false}}, ...
%!          {[128 96], {"Experts", 4, "SplitRows", [12 20], "Scale", "rms"}}, ...
%!          {[48 96 3], {"Precision", "bf16"}}};
%! for c = cases
%!   [sz, opts] = deal (c{1}{:});
%!   sd = [];  sh = [];
%!   for k = 1:3
%!     G = single (randn (sz));
%!     [Ud, sd] = muon_update (muon_gpu (G, "Device", t.array), sd, t.dev{:}, opts{:});
%!     [Uh, sh] = muon_update (G, sh, t.dev{:}, opts{:});
%!     assert (isequal (gather (Ud), Uh) && isequal (gather (sd.momentum), sh.momentum)
%!             && sd.step == k, sprintf ("%s step %d", mat2str (sz), k));
%!   endfor
%! endfor

%!test
%! ## randn on the device: the CPU stand-in's stream (single: the same bits)
%! A = gather (muon_gpu ("randn", [512 300], "Device", t.array, "Seed", 9));
%! B = gather (muon_gpu ("randn", [512 300], "Device", "cpu", "Seed", 9));
%! assert (isequal (A, B));

%!test
%! ## larger than the device: outOfMemory, nothing kept, the session goes on
%! n0 = muon_gpu ("info").arrays;
%! try
%!   muon_gpu ("zeros", [1e6 1e6 1e3], "Device", t.array, "Class", "double");
%!   error ("no error");
%! catch err
%!   assert (err.identifier, "muonlab:outOfMemory");
%! end_try_catch
%! assert (muon_gpu ("info").arrays, n0);
%! X = muon_ns (muon_gpu (eye (4), "Device", t.array), t.dev{:}, "Precision", "double");
%! assert (gather (X), muon_ns (eye (4), t.dev{:}, "Precision", "double"));

%!test
%! ## a G with NaN or Inf is muonlab:nonFinite with the host's message, in every precision,
%! ## and leaves nothing behind; a finite G whose result is not finite keeps it, as on the
%! ## host (a poisoned momentum, fp16 without NormalizeFirst)
%! n0 = muon_gpu ("info").arrays;
%! G = reshape (cos (1:288), 8, 12, 3);
%! G(5, 7, 2) = 1e300;
%! D = muon_gpu (G, "Device", t.array);
%! E = D * 1e10;                         # Inf at (5, 7, 2) only
%! F = D - D;
%! F = F * NaN;                          # NaN everywhere
%! for p = {"double", "single", "bf16", "fp16"}
%!   for X = {E, F}
%!     fail ("muon_ns (X{1}, t.dev{:}, 'Precision', p{1})",
%!           "muon_ns: G must not contain NaN or Inf.");
%!     fail ("muon_update (X{1}, [], t.dev{:}, 'Precision', p{1})",
%!           "muon_update: G must not contain NaN or Inf.");
%!   endfor
%! endfor
%! fail ("muon_ns (E * 1e10, t.dev{:})", "muon_ns: G must not contain NaN or Inf.");
%! assert (muon_gpu ("info").arrays, n0 + 3);
%! [~, s] = muon_update (D, [], t.dev{:});
%! s.momentum = s.momentum * NaN;
%! U = gather (muon_update (D, s, t.dev{:}));
%! sh = s;
%! sh.momentum = gather (s.momentum);
%! Uh = muon_update (G, sh, t.dev{:});
%! assert (! any (isfinite (U(:))) && ! any (isfinite (Uh(:))));
%! B = muon_gpu (1e5 * ones (64, 96), "Device", t.array);
%! Xb = gather (muon_ns (B, t.dev{:}, "Precision", "fp16", "NormalizeFirst", false));
%! Xh = muon_ns (1e5 * ones (64, 96), t.dev{:}, "Precision", "fp16", "NormalizeFirst", false);
%! assert (! all (isfinite (Xb(:))) && ! all (isfinite (Xh(:))));
%! clear D E F B X s sh
%! assert (muon_gpu ("info").arrays, n0);

%!test
%! ## a loop of calls leaves nothing behind; the device time is measured
%! n0 = muon_gpu ("info").arrays;
%! D = muon_gpu ("randn", [256 512], "Device", t.array);
%! for k = 1:20
%!   [X, st] = muon_ns (D, t.dev{:});
%! endfor
%! assert (st.device, t.array);
%! assert (st.device_ms > 0 && isfinite (st.device_ms));
%! clear D X
%! assert (muon_gpu ("info").arrays, n0);

%!test
%! ## arrays of two devices in one call: a clear error (needs a CUDA device)
%! if (strcmp (t.array, "cuda"))
%!   D = muon_gpu (ones (4), "Device", "cuda");
%!   [~, s] = muon_update (muon_gpu (ones (4), "Device", "cpu"), []);
%!   fail ("muon_update (D, s)", "the arrays of one call must share a device");
%!   fail ("muon_ns (D, 'Device', 'cpu')", "computes where it lives");
%! endif

%!test
%! ## reset: every array stale, the pool given back
%! D = muon_gpu (ones (8), "Device", t.array);
%! muon_gpu ("reset");
%! fail ("muon_ns (D)", "a device array of an earlier session");
%! s = muon_gpu ("info");
%! assert (s.arrays, 0);

%!test
%! ## arithmetic on device arrays gives the host's bits; a sum of squares is within a few
%! ## ulps of Octave's ordered sum (a fixed tree on CUDA) and the same on every run
%! randn ("state", 38);
%! for cls = {"double", "single"}
%!   x = cast (randn (300, 70), cls{1});
%!   y = cast (randn (300, 70), cls{1});
%!   A = muon_gpu (x, "Device", t.array);
%!   B = muon_gpu (y, "Device", t.array);
%!   assert (isequal (gather (A + B), x + y) && isequal (gather (A - B), x - y), cls{1});
%!   assert (isequal (gather (0.3 * A), 0.3 * x) && isequal (gather (A / 7), x / 7), cls{1});
%!   [s, fin] = __muon_gpu__ ("sumsq", A.Handle, []);
%!   assert (fin && abs (s - sumsq (double (x(:)))) <= 1e-13 * s, cls{1});
%!   assert (__muon_gpu__ ("sumsq", A.Handle, []), s);
%!   d = __muon_gpu__ ("sumsq", A.Handle, B.Handle);
%!   assert (abs (d - sumsq (double (x(:) - y(:)))) <= 1e-13 * d, cls{1});
%! endfor
%! H = muon_gpu (1e200 * ones (3), "Device", t.array);
%! [s, fin] = __muon_gpu__ ("sumsq", H.Handle, []);
%! assert (isinf (s) && fin);

%!test
%! ## muon_step on device parameters and gradients gives the bits of the same optimizer on
%! ## host parameters (its state on the device in both); info's norms within 1e-12
%! randn ("state", 39);
%! P = struct ("W", single (randn (64, 96)), "b", single (randn (64, 1)));
%! args = {"LR", 0.02, "WeightDecay", 0.1, t.dev{:}, "Resident", true};
%! oh = muon_optimizer (P, args{:});
%! od = muon_optimizer (P, args{:});
%! up = @(S) struct ("W", muon_gpu (S.W, "Device", t.array),
%!                   "b", muon_gpu (S.b, "Device", t.array));
%! Ph = P;
%! Pd = up (P);
%! for k = 1:3
%!   G = struct ("W", single (randn (64, 96)), "b", single (randn (64, 1)));
%!   [Ph, oh, ih] = muon_step (oh, Ph, G);
%!   [Pd, od, id] = muon_step (od, Pd, up (G));
%!   assert (isa (Pd.W, "muon_gpuarray"));
%!   assert (isequal (gather (Pd.W), Ph.W) && isequal (gather (Pd.b), Ph.b), "step %d", k);
%!   assert (id.global_norm, ih.global_norm, -1e-12);
%!   assert (id.update_norm.W, ih.update_norm.W, -1e-12);
%! endfor


%!test
%! ## the device arrays' element-wise fma (torch's y.add_ (x, alpha=a)) on the device under
%! ## test: the bits of C's fmaf / fma (__muon_fma__), a rounded into the class first
%! randn ("seed", 5);
%! for cls = {"single", "double"}
%!   x = cast (randn (300, 200), cls{1});  y = cast (randn (300, 200), cls{1});
%!   X = muon_gpu (x, "Device", t.array);  Y = muon_gpu (y, "Device", t.array);
%!   for a = [-0.0123456789, 1 + 2^-30, -3.5e-3 * sqrt(20)]
%!     Z = muon_gpuarray (__muon_gpu__ ("ew", "fma", X.Handle, Y.Handle, a), X.Size,
%!                        X.Storage, X.Device);
%!     assert (isequal (gather (Z), __muon_fma__ (a, x, y)), "%s, a = %g", cls{1}, a);
%!   endfor
%! endfor

%!test
%! ## MomentumArith torch: device parameters take torch's fused apply on the device,
%! ## p = fma (-lr scale, O, p0 (1 - lr wd)) with O the device's NS output; host parameters
%! ## with the state on the device the same bits, over three steps
%! randn ("seed", 7);
%! for cls = {"single", "double"}
%!   P = struct ("W", cast (randn (64, 96), cls{1}));
%!   args = {"MomentumArith", "torch", "Scale", "rms", "LR", 0.02, "WeightDecay", 0.1, ...
%!           t.dev{:}, "Resident", true};
%!   oh = muon_optimizer (P, args{:});
%!   od = muon_optimizer (P, args{:});
%!   Ph = P;  Pd = struct ("W", muon_gpu (P.W, "Device", t.array));
%!   for k = 1:3
%!     G = cast (randn (64, 96), cls{1});
%!     M = [];
%!     if (k > 1)
%!       M = od.muon.W;
%!     endif
%!     O = gather (muon_update (muon_gpu (G, "Device", t.array), M, t.dev{:},
%!                              "MomentumArith", "torch", "Scale", "none"));
%!     want = __muon_fma__ (-(0.02 * (0.2 * sqrt (96))), O, gather (Pd.W) * (1 - 0.02 * 0.1));
%!     [Ph, oh] = muon_step (oh, Ph, struct ("W", G));
%!     [Pd, od] = muon_step (od, Pd, struct ("W", muon_gpu (G, "Device", t.array)));
%!     assert (isequal (gather (Pd.W), want), "%s, step %d", cls{1}, k);
%!     assert (isequal (Ph.W, want), "%s host, step %d", cls{1}, k);
%!   endfor
%! endfor
