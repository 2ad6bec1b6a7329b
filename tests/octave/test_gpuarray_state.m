## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_gpuarray_state ()
## Device arrays in the optimizer, on the CPU stand-in device, against the host path:
## @itemize
## @item @code{muon_optimizer}'s @qcode{"Resident"} state on the device and device parameters
## and gradients give the host optimizer's bits over several steps; host and device
## gradients in one accumulation window; a state saved mid-window gathers; QKClip; the state
## and parameters on one device; outputs a caller did not ask for leave no array behind;
## @item a @qcode{"Preset"} expanded as on the host (the host's bits where the device runs
## all it sets); a device gradient of another class than its parameter converted as a host
## gradient is cast; @qcode{"MomentumArith"} torch and the device arrays' fma to the bit.
## @end itemize
## What the device refuses and how it names it: @code{test_gpuarray_refused}.
## @end deftypefn

function test_gpuarray_state ()
  help test_gpuarray_state
endfunction

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
%! ## a window mixing a device and a host micro-batch, the host one holding NaN or Inf
%! ## (either order, with and without a loss scaler), ends skipped as an all-host window
%! ## does: nothing changes, the scaler counts it, and the next window gives the host's bits
%! randn ("state", 55);
%! P = struct ("W", randn (8, 12), "b", randn (8, 1));
%! G1 = struct ("W", randn (8, 12), "b", randn (8, 1));
%! G3 = struct ("W", randn (8, 12), "b", randn (8, 1));
%! G4 = struct ("W", randn (8, 12), "b", randn (8, 1));
%! for bad = [NaN Inf]
%!   Gb = G1;
%!   Gb.W(5) = bad;
%!   for sc = {{}, {"LossScaler", "dynamic"}}
%!     args = [{"AccumulationSteps", 2, "Device", "cpu", "Resident", true}, sc{1}];
%!     oh = muon_optimizer (P, args{:});
%!     [Ph, oh] = muon_step (oh, P, G1);
%!     [Ph, oh, ih] = muon_step (oh, Ph, Gb);
%!     assert (ih.skipped && isequal (Ph, P));
%!     counted = [oh.skipped, oh.scaler.scale];
%!     [Ph, oh] = muon_step (oh, Ph, G3);
%!     [Ph, oh] = muon_step (oh, Ph, G4);
%!     for order = 1:2
%!       od = muon_optimizer (P, args{:});
%!       if (order == 1)                 # the device micro-batch first, then the host NaN
%!         [Pd, od] = muon_step (od, P, to_device (G1));
%!         [Pd, od, id] = muon_step (od, Pd, Gb);
%!       else                            # the host NaN first, then the device micro-batch
%!         [Pd, od] = muon_step (od, P, Gb);
%!         [Pd, od, id] = muon_step (od, Pd, to_device (G1));
%!       endif
%!       assert (id.skipped && ! id.applied);
%!       assert (isequal (to_host (Pd), P));
%!       assert ([od.skipped, od.scaler.scale], counted);
%!       [Pd, od] = muon_step (od, Pd, to_device (G3));
%!       [Pd, od] = muon_step (od, Pd, G4);
%!       assert (isequal (to_host (Pd), Ph));
%!     endfor
%!   endfor
%! endfor

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
%! ## a device array needs the optimizer's state on its device, and a device parameter the
%! ## class of its state; a gradient of another class is cast (the host path's bits)
%! P = struct ("W", randn (4, 3));
%! D = struct ("W", muon_gpu (P.W, "Device", "cpu"));
%! fail ("muon_step (muon_optimizer (P), D, P)",
%!       "muon_step: PARAMS.W is a device array on cpu; make the optimizer with \"Device\", \"cpu\", \"Resident\", true \\(or load it with muon_load_state \\(\\.\\.\\., \"Device\", \"cpu\"\\)\\) to keep its state there too.");
%! fail ("muon_step (muon_optimizer (P), P, D)",
%!       "muon_step: GRADS.W is a device array on cpu;");
%! o = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! Gs = struct ("W", single (randn (4, 3)));
%! [pd, od] = muon_step (o, D, Gs);
%! [ph, oh] = muon_step (muon_optimizer (P), P, Gs);
%! assert (isequal (gather (pd.W), ph.W));
%! fail ("muon_step (o, struct ('W', muon_gpu (P.W, 'Device', 'cpu', 'Class', 'single')), P)",
%!       "muon_step: PARAMS.W must be a double device array, the class of its optimizer state, not single \\(muon_gpu \\(P, \"Class\", \"double\"\\)\\).");
%! B = struct ("W", muon_gpu (P.W, "Device", "cpu", "Class", "bf16"));
%! fail ("muon_step (o, B, B)",
%!       "muon_step: PARAMS.W is a bf16 device array; a parameter must be double or single \\(muon_gpu \\(D, \"Class\", \"single\"\\)\\)\\.");
%! fail ("muon_step (o, struct ('W', muon_gpu (ones (3), 'Device', 'cpu')), P)",
%!       "muon_step: PARAMS.W must be of size 4 x 3.");

%!error <muon_optimizer: RESIDENT must be true or false.> muon_optimizer (struct ("W", ones (4)), "Resident", "yes")
%!error <muon_optimizer: RESIDENT cannot be combined with POISONMOMENTUM or PERMICROBATCHNS \(they read the momentum on the host\).> muon_optimizer (struct ("W", ones (4)), "Resident", true, "PoisonMomentum", true)
%!test
%! ## 1 x n, n x 1 and 1 x 1 device arrays (and stacks of them): the device's NS is the
%! ## host's of the stored (rounded) values, every precision, standard and Gram; a double
%! ## or single update, two steps, is the host's to the bit (the host's NS is checked
%! ## against the closed form of one singular value in muon_ns)
%! g = [0.3 -1.2 0.7 2.1 -0.4 0.9 -1.6 0.05];
%! for G = {g, g.', cat(3, g, -2 * g), 1.5}
%!   for p = {"double", "single", "bf16", "fp16"}
%!     c = merge (any (strcmp (p{1}, {"bf16", "fp16"})), "single", p{1});
%!     h = muon_round (cast (G{1}, c), p{1});
%!     d = muon_gpu (h, "Device", "cpu", "Class", p{1});
%!     for m = {"standard", "gram"}
%!       X = muon_ns (d, "Method", m{1});
%!       assert (size (X), size (G{1}));
%!       assert (isequal (gather (X), muon_ns (h, "Method", m{1}, "Precision", p{1})));
%!     endfor
%!   endfor
%!   for c = {"double", "single"}
%!     h = cast (G{1}, c{1});
%!     [U, s] = muon_update (muon_gpu (h, "Device", "cpu"), [], "Scale", "rms");
%!     [U, s] = muon_update (muon_gpu (-h, "Device", "cpu"), s, "Scale", "rms");
%!     [V, t] = muon_update (h, [], "Scale", "rms");
%!     [V, t] = muon_update (-h, t, "Scale", "rms");
%!     assert (isequal (gather (U), V) && isequal (gather (s.momentum), t.momentum));
%!   endfor
%! endfor
%!error <muon_gpu: X must be a non-empty array of 2 or 3 dimensions.>
%! muon_gpu (zeros (1, 0), "Device", "cpu")
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
%! ## a device gradient of another class than its parameter (double parameter, single or
%! ## bf16 gradient, and the reverse; Muon and AdamW parameters) is converted on the device
%! ## to the parameter's class, as a host gradient is cast: the host path's bits, and a
%! ## momentum in the parameter's class (it became single for a double parameter once, and
%! ## the checkpoint would not load)
%! randn ("state", 34);
%! P = struct ("W", randn (8, 16), "b", randn (8, 1), "S", single (randn (8, 16)));
%! G = struct ("W", randn (8, 16), "b", randn (8, 1), "S", single (randn (8, 16)));
%! od = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! oh = muon_optimizer (P);
%! for c = {{"W", "single"}, {"b", "bf16"}, {"S", "double"}}
%!   [n, got] = c{1}{:};
%!   B = G;
%!   B.(n) = muon_gpu (G.(n), "Device", "cpu", "Class", got);
%!   H = G;
%!   H.(n) = gather (B.(n));
%!   [pd, od] = muon_step (od, P, B);
%!   [ph, oh] = muon_step (oh, P, H);
%!   assert (isequal (pd, ph));
%!   assert (isequal (gather (B.(n)), H.(n)));            # the gradient is not modified
%!   assert (B.(n).Storage, got);
%! endfor
%! assert (classUnderlying (od.muon.W.momentum), "double");
%! assert (classUnderlying (od.muon.S.momentum), "single");
%! assert (isequal (gather (od.muon.W.momentum), oh.muon.W.momentum));

%!test
%! ## MomentumArith torch: host parameters with the state on the device ("Resident"),
%! ## device-array parameters (muon_gpu, "Device", "cpu") and a host checkpoint continued
%! ## with muon_load_state (..., "Device", "cpu") take torch's fused apply as the host path
%! ## does: its bits over four steps, single and double (before: 1-3 of 240 elements off)
%! o = {"MomentumArith", "torch", "Scale", "rms", "LR", 0.02, "WeightDecay", 0.1};
%! for cls = {"single", "double"}
%!   randn ("seed", 1);
%!   P = struct ("W", cast (randn (12, 20), cls{1}));
%!   Gs = arrayfun (@(k) struct ("W", cast (randn (12, 20), cls{1})), 1:4);
%!   oh = muon_optimizer (P, o{:});
%!   orr = muon_optimizer (P, o{:}, "Device", "cpu", "Resident", true);
%!   od = orr;
%!   Ph = P;  Pr = P;  Pd = struct ("W", muon_gpu (P.W, "Device", "cpu"));
%!   for k = 1:4
%!     [Ph, oh] = muon_step (oh, Ph, Gs(k));
%!     [Pr, orr] = muon_step (orr, Pr, Gs(k));
%!     [Pd, od] = muon_step (od, Pd, struct ("W", muon_gpu (Gs(k).W, "Device", "cpu")));
%!     assert (isequal (Pr.W, Ph.W), "%s resident, step %d", cls{1}, k);
%!     assert (isa (Pd.W, "muon_gpuarray"));
%!     assert (isequal (gather (Pd.W), Ph.W), "%s device array, step %d", cls{1}, k);
%!     assert (isequal (gather (od.muon.W.momentum), oh.muon.W.momentum));
%!   endfor
%!   ## a host checkpoint after step 1, continued on the stand-in device for three steps
%!   oh = muon_optimizer (P, o{:});
%!   [Ph, oh] = muon_step (oh, P, Gs(1));
%!   f = [tempname() ".ckpt"];
%!   unwind_protect
%!     muon_save_state (f, oh);
%!     ol = muon_load_state (f, Ph, "Device", "cpu");
%!   unwind_protect_cleanup
%!     unlink (f);
%!   end_unwind_protect
%!   Pl = Ph;
%!   for k = 2:4
%!     [Ph, oh] = muon_step (oh, Ph, Gs(k));
%!     [Pl, ol] = muon_step (ol, Pl, Gs(k));
%!     assert (isequal (Pl.W, Ph.W), "%s loaded, step %d", cls{1}, k);
%!   endfor
%!   ## the host path is torch's fused apply, not p0 (1 - lr wd) - lr U
%!   oh = muon_optimizer (P, o{:});
%!   [Ph, oh] = muon_step (oh, P, Gs(1));
%!   O = muon_update (Gs(1).W, [], "MomentumArith", "torch", "Scale", "none");   # rms: 0.2 sqrt (20)
%!   a = -(0.02 * (0.2 * sqrt (20)));
%!   assert (isequal (Ph.W, __muon_fma__ (a, O, P.W * (1 - 0.02 * 0.1))));
%! endfor

%!test
%! ## the device arrays' element-wise fma (muon_darray_ew "fma", torch's y.add_ (x, alpha=a)):
%! ## the bits of C's fmaf / fma (__muon_fma__), a rounded into the class first; rounding
%! ## a x first misses some
%! randn ("seed", 5);
%! for cls = {"single", "double"}
%!   x = cast (randn (100, 100), cls{1});  y = cast (randn (100, 100), cls{1});
%!   for a = [-0.0123456789, 1 + 2^-30, -3.5e-3 * sqrt(20)]
%!     X = muon_gpu (x, "Device", "cpu");  Y = muon_gpu (y, "Device", "cpu");
%!     Z = muon_gpuarray (__muon_gpu__ ("ew", "fma", X.Handle, Y.Handle, a), X.Size,
%!                        X.Storage, X.Device);
%!     assert (isequal (gather (Z), __muon_fma__ (a, x, y)), "%s, a = %g", cls{1}, a);
%!     assert (isequal (gather (Y), y) && isequal (gather (X), x));
%!   endfor
%!   assert (nnz (gather (Z) != y + cast (a, cls{1}) * x) > 0);
%! endfor
%! fail ('__muon_gpu__ ("ew", "fma", X.Handle, Y.Handle, [])', "A must be a real double scalar");
