## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_gpuarray_refused ()
## Device arrays in the optimizer, on the CPU stand-in device: what is refused and how it is
## named (split from @code{test_gpuarray_state}, the host path's bits on the device):
## @itemize
## @item a device state for another ALGORITHM, NORMSCALE or EPSPLACEMENT (a
## @qcode{"Preset"} the device cannot run among them) refused when it is made or loaded, or
## at once by @code{muon_update};
## @item a device momentum or AdamW moment of the other class than its parameter, a buffer
## of the wrong size, a 16-bit device parameter, named with its size or class;
## @item @code{muon_save_state} of a device-resident state checks its values as
## @code{muon_load_state} does; a stale array is named as the caller knows it; a device
## momentum with a host gradient and another @qcode{"Device"}.
## @end itemize
## @end deftypefn

function test_gpuarray_refused ()
  help test_gpuarray_refused
endfunction

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
## a host G holding NaN or Inf with a device momentum: muon_update names G, as with a host
## or a device momentum (the upload was named: "muon_gpu: X must not contain NaN or Inf.")
%!error <^muon_update: G must not contain NaN or Inf\.$>
%! muon_update (reshape ([NaN, cos(2:48)], 8, 6), s_dev)
%!error id=muonlab:nonFinite muon_update (reshape ([cos(1:47), -Inf], 8, 6), s_dev)
