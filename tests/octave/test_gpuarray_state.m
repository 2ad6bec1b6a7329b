## -*- texinfo -*-
## @deftypefn {} {} test_gpuarray_state ()
## Device arrays in the optimizer, on the CPU stand-in device, against the host path:
## @itemize
## @item @code{muon_optimizer}'s @qcode{"Resident"} state on the device and device parameters
## and gradients give the host optimizer's bits over several steps; host and device
## gradients in one accumulation window; a state saved mid-window gathers; QKClip; the state
## and parameters on one device; outputs a caller did not ask for leave no array behind;
## @item a @qcode{"Preset"} expanded as on the host (the host's bits where the device runs
## all it sets), what the device cannot run (another ALGORITHM, NORMSCALE or EPSPLACEMENT)
## refused when a device state is made or loaded, a device gradient or state array of the
## other class than its parameter refused, and a stale array named as the caller knows it.
## @end itemize
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
%! ## a device buffer of the wrong size is named with its size, as on the host (it said
%! ## "must be a real double or single array")
%! P = struct ("w", reshape (sin (1:48), 8, 6), "b", cos (1:6).');
%! o = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! [P1, o] = muon_step (o, P, P);
%! c = {"muon", "w", "momentum", ones(6, 8), "OPT.muon.w.momentum must be of size 8 x 6";
%!      "adam", "b", "m", ones(1, 6), "OPT.adam.b.m must be of size 6 x 1";
%!      "adam", "b", "v", ones(1, 6), "OPT.adam.b.v must be of size 6 x 1"};
%! for i = 1:rows (c)
%!   s = struct (o);
%!   s.(c{i,1}).(c{i,2}).(c{i,3}) = muon_gpu (c{i,4}, "Device", "cpu");
%!   for f = {@() muon_step (s, P1, P), "muon_step"; @() muon_save_state ("x", s), "muon_save_state"}.'
%!     try
%!       f{1} ();
%!       error ("no error");
%!     catch err
%!       assert (err.identifier, "muonlab:badState");
%!       assert (err.message, sprintf ("%s: %s.", f{2}, c{i,5}));
%!     end_try_catch
%!   endfor
%! endfor
%! s = struct (o);
%! s.accum.b = muon_gpu (ones (1, 6), "Device", "cpu");
%! fail ("muon_step (s, P1, P)", "muon_step: OPT.accum.b must be of size 6 x 1.");
%!error <muon_optimizer: PARAMS.w is a bf16 device array; a parameter must be double or single \(muon_gpu \(D, "Class", "single"\)\)\.>
%! ## a 16-bit device parameter: named with its class (it said "must be a real, non-empty
%! ## double or single array", which a device array of class single is not either)
%! muon_optimizer (struct ("w", muon_gpu (ones (4, 3), "Device", "cpu", "Class", "bf16")),
%!                 "Device", "cpu", "Resident", true);
%!error <muon_step: PARAMS.w is a fp16 device array; a parameter must be double or single \(muon_gpu \(D, "Class", "single"\)\)\.>
%! P = struct ("w", ones (4, 3));
%! o = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! muon_step (o, struct ("w", muon_gpu (ones (4, 3), "Device", "cpu", "Class", "fp16")), P);
%!error id=muonlab:badType
%! muon_optimizer (struct ("w", muon_gpu (ones (4, 3), "Device", "cpu", "Class", "fp16")));

%!test
%! ## muon_save_state gathers a device-resident state and checks its values as
%! ## muon_load_state does: a negative AdamW v or an Inf momentum made on the device is
%! ## refused with load's message and no file is written (it wrote a file load refused)
%! P = struct ("w", reshape (sin (1:48), 8, 6), "b", cos (1:6).');
%! o = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! [~, o] = muon_step (o, P, P);
%! f = [tempname() ".ckpt"];
%! s = struct (o);
%! s.adam.b.v = muon_gpu (-ones (6, 1), "Device", "cpu");
%! t = struct (o);
%! t.muon.w.momentum = muon_gpu (ones (8, 6), "Device", "cpu") * Inf;
%! c = {s, "muon_save_state: OPT.adam.b.v must not be negative.";
%!      t, "muon_save_state: OPT.muon.w.momentum must not contain NaN or Inf."};
%! for i = 1:rows (c)
%!   try
%!     muon_save_state (f, c{i,1});
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:badState");
%!     assert (err.message, c{i,2});
%!   end_try_catch
%!   assert (! exist (f, "file"));
%! endfor
%! ## the state the step made saves and loads, and the caller's device arrays stay
%! unwind_protect
%!   muon_save_state (f, o);
%!   o2 = muon_load_state (f, P, "Device", "cpu");
%!   assert (isequal (gather (o2.adam.b.v), gather (o.adam.b.v)));
%!   assert (isa (o.adam.b.v, "muon_gpuarray"));
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     unlink (f);
%!   endif
%! end_unwind_protect

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
%!      @() zero_muon_step (L, Z, []), "zero_muon_step: RANK_GRADS{1,1}";
%!      @() muon_step (o, P, struct ("W", X)), "muon_step: GRADS.W";
%!      @() muon_step (o, struct ("W", X), P), "muon_step: PARAMS.W";
%!      @() muon_optimizer (struct ("b", X)), "muon_optimizer: PARAMS.b"};
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

## a host G with a device momentum: the momentum decides where the update runs, and a
## "Device" naming another device names it (the uploaded copy of G was named: "G is a
## device array on cpu" of a host G)
%!shared s_dev
%! [~, s_dev] = muon_update (reshape (sin (1:48), 8, 6), []);
%! s_dev.momentum = muon_gpu (s_dev.momentum, "Device", "cpu");
%!error <^muon_update: STATE.momentum is a device array on cpu; a device array computes where it lives \(DEVICE 'cuda'\)\.$>
%! muon_update (reshape (cos (1:48), 8, 6), s_dev, "Device", "cuda")
%!test
%! n0 = muon_gpu ("info").arrays;
%! try
%!   muon_update (reshape (cos (1:48), 8, 6), s_dev, "Device", "cuda");
%! catch
%! end_try_catch
%! assert (muon_gpu ("info").arrays, n0);          # refused before the upload
%! [U, s2] = muon_update (reshape (cos (1:48), 8, 6), s_dev, "Device", "cpu");
%! assert ([U.Device, s2.momentum.Device], "cpucpu");

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
