## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_hardening ()
## Suite (run with @code{test test_hardening}): issue 23's hardening, round 2, each case
## reproduced from the issue and checked against the error id and message it promises (or
## a closed form where the call must succeed).
## @itemize
## @item item 5: scalars edited in an optimizer state between steps (NaN, Inf, -Inf,
## negative; @code{adam_betas} [1 1]) are @code{muonlab:badState} naming the field, and
## nothing is written; NaN / Inf in the parameters are @code{muonlab:nonFinite} naming the
## parameter; a valid edit (learning rate and weight decay 0) leaves the parameter
## exactly as it was.
## @item item 6: the fuzzed calls of the issue: column shapes in @code{zero_cost} give the
## result of the row shapes; @code{"Grid", @{@}} is the GRID error; a layout with one
## hand-edited field (nested ones too) given to @code{zero_cost}, @code{zero_train_step},
## @code{zero_plot_layout}, @code{zero_save_state} and @code{zero_load_state} is
## @code{muonlab:badType} naming the field; hand-edited ZeRO states are
## @code{muonlab:badState} naming the field.
## @item item 3: the sizes of the issue are refused at once with @code{muonlab:badArg}
## naming the limit of @code{__muon_lists__} (the values the core reports): model configs
## with 2^31 layers, an Inf or 4096e200 size, 1e7 experts; @code{ns_restart_autotune} with
## "Steps" 1000, a long schedule with "MaxRestarts" 64, a grid over the limit; a FIFO,
## @file{/dev/zero} and files over the size limits (sparse files made by the test) given
## as checkpoint or config, and a 4 GiB non-checkpoint refused after its header (well
## under 2 s, without reading it).
## @item item 7: @code{muon_ns} of 1e-200 G warns @code{muonlab:tinyInput} and counts the
## page in @code{stats.tiny_pages} (the output's norm is that of G / Eps up to the NS
## polynomial: below 1e-180), a normal and a zero input do not; @code{zero_muon_step
## ("release")} empties the plan cache (the plan counter, which lives in the cache, starts
## again: a layout planned before is planned anew).  The signal names, TMPDIR quoting and
## the NP cap are in tests/mpi/test_mpirun.m and muon_mpirun's own tests.
## @item item 2: crafted files, built here, loaded in a child Octave (so that a crash
## before the fix fails this test instead of ending the suite): a checkpoint whose MAT
## payload has a field-name length of 0, 1, 1e6 or 2^32-1 (Octave 7's @code{load} loops
## forever or crashes on them) and 400 random changes of payload bytes and 32-bit words,
## each resealed with a recomputed SHA-256, then config.json files nested 201 and 10,000
## deep (10,000 crashes @code{jsondecode}): the child must end normally within its time
## limit and every call must return or raise a @code{muonlab:*} error; the specific cases
## give the message naming the defect or the limit.
## @end itemize
## @end deftypefn

function test_hardening ()
  help test_hardening
endfunction

%!function [id, msg] = err_of (f)
%!  id = ""; msg = "";
%!  try
%!    f ();
%!  catch err
%!    id = err.identifier;
%!    msg = err.message;
%!  end_try_catch

## ---- item 5: edited optimizer scalars -------------------------------------------------

%!test
%! P = struct ("W", reshape (sin (1:48), 6, 8), "b", (1:6)');
%! G = struct ("W", reshape (cos (1:48), 6, 8), "b", ones (6, 1));
%! opt = muon_optimizer (P);
%! for f = {"muon_lr", "adam_lr", "muon_wd", "adam_wd", "adam_eps"}
%!   for v = [NaN, Inf, -Inf, -1]
%!     o = opt;
%!     o.(f{1}) = v;
%!     [id, msg] = err_of (@() muon_step (o, P, G));
%!     assert (id, "muonlab:badState");
%!     assert (msg, sprintf ("muon_step: OPT.%s must be a non-negative finite scalar.", f{1}));
%!   endfor
%! endfor
%! for b = {[1 1], [NaN 0.9], [0.9 Inf], [0.9 -0.1], 0.9}
%!   o = opt;
%!   o.adam_betas = b{1};
%!   [id, msg] = err_of (@() muon_step (o, P, G));
%!   assert (id, "muonlab:badState");
%!   assert (msg, "muon_step: OPT.adam_betas must be two numbers in [0, 1).");
%! endfor
%! ## the other settings and counters: a negative clip norm or loss scale negated the
%! ## gradients without a word, a fractional accum_steps stepped every third call
%! edits = {"clip_norm", -1, "OPT.clip_norm must be a positive finite scalar";
%!          "clip_policy", "bogus", "OPT.clip_policy must be 'none', 'before_ns', 'after_ns' or 'skip_muon'";
%!          "accum_steps", 2.5, "OPT.accum_steps must be a positive integer";
%!          "step", -1, "OPT.step must be a non-negative integer";
%!          "micro", 1, "OPT.micro must be an integer in [0, accum_steps)"};
%! for k = 1:rows (edits)
%!   o = opt;
%!   o.(edits{k,1}) = edits{k,2};
%!   [id, msg] = err_of (@() muon_step (o, P, G));
%!   assert ({id, msg}, {"muonlab:badState", ["muon_step: " edits{k,3} "."]});
%! endfor
%! o = muon_optimizer (P, "LossScaler", "dynamic");
%! o.scaler.scale = -2;
%! [id, msg] = err_of (@() muon_step (o, P, G));
%! assert ({id, msg}, {"muonlab:badState", ...
%!                     "muon_step: OPT.scaler.scale must be finite, at least min_scale, and 1 without a scaler."});

%!test
%! ## non-finite parameters: an error naming the parameter
%! P = struct ("W", reshape (sin (1:48), 6, 8), "b", (1:6)');
%! G = struct ("W", reshape (cos (1:48), 6, 8), "b", ones (6, 1));
%! opt = muon_optimizer (P);
%! for v = [NaN, Inf, -Inf]
%!   Q = P;
%!   Q.b(2) = v;
%!   [id, msg] = err_of (@() muon_step (opt, Q, G));
%!   assert ({id, msg}, {"muonlab:nonFinite", "muon_step: PARAMS.b must not contain NaN or Inf."});
%!   Q = P;
%!   Q.W(5) = v;
%!   [id, msg] = err_of (@() muon_step (opt, Q, G));
%!   assert ({id, msg}, {"muonlab:nonFinite", "muon_step: PARAMS.W must not contain NaN or Inf."});
%! endfor

%!test
%! ## a valid edit: no learning rate and no decay leave the parameters as they were
%! P = struct ("W", reshape (sin (1:48), 6, 8), "b", (1:6)');
%! G = struct ("W", reshape (cos (1:48), 6, 8), "b", ones (6, 1));
%! opt = muon_optimizer (P, "WeightDecay", 0.1);
%! opt.muon_lr = 0; opt.adam_lr = 0; opt.muon_wd = 0; opt.adam_wd = 0;
%! Q = muon_step (opt, P, G);
%! assert (Q.W, P.W);
%! assert (Q.b, P.b);

## ---- item 6: fuzzed calls and hand-edited layouts and states ----------------------------

%!test
%! C1 = zero_cost ({[6;4], [5 4]}, 2);
%! C2 = zero_cost ({[6 4], [5 4]}, 2);
%! assert (isequal (C1, C2));
%! [id, msg] = err_of (@() ns_restart_autotune ("keller", "Grid", {}));
%! assert ({id, msg}, {"muonlab:badArg", "ns_restart_autotune: GRID must be a vector of positive finite values."});
%! [id, msg] = err_of (@() ns_restart_autotune ("keller", "Shift", {}));
%! assert ({id, msg}, {"muonlab:badArg", "ns_restart_autotune: SHIFT must be a negative finite scalar."});

%!test
%! L = zero_layout ({[6 4], [5 4], [6 4]}, 2);
%! g = reshape (arrayfun (@(k) reshape (sin (k * (1:4 * L.params(ceil (k / 2)).rows)), [], 4),
%!                        1:6, "UniformOutput", false), 2, 3);
%! [~, s] = zero_muon_step (L, g, []);
%! pre = tempname ();
%! files = zero_save_state (pre, L, s);
%! unwind_protect
%!   edits = {@(M) setfield (M, "total", 1), "L.total";
%!            @(M) setfield (M, "order", {1}), "L.order";
%!            @(M) setfield (M, "params", setfield (M.params, {2}, "offset", {1})), "L.params(2).offset";
%!            @(M) setfield (M, "params", setfield (M.params, {3}, "owners", [])), "L.params(3).owners";
%!            @(M) setfield (M, "ranks", setfield (M.ranks, {2}, "stop", NaN)), "L.ranks(2).stop"};
%!   calls = {"zero_cost", @(M) zero_cost (M, 2);
%!            "zero_save_state", @(M) zero_save_state ([pre "x"], M, s);
%!            "zero_load_state", @(M) zero_load_state (pre, M);
%!            "zero_train_step", @(M) zero_train_step (M, g, []);
%!            "zero_plot_layout", @(M) zero_plot_layout (M)};
%!   for i = 1:rows (edits)
%!     M = edits{i,1} (L);
%!     for j = 1:rows (calls)
%!       [id, msg] = err_of (@() calls{j,2} (M));
%!       assert ({id, msg}, {"muonlab:badType", sprintf("%s: L must be a layout from zero_layout (%s differs).", calls{j,1}, edits{i,2})});
%!     endfor
%!   endfor
%!   [id, msg] = err_of (@() zero_cost (setfield (L, "stage", 4), 2));
%!   assert ({id, msg}, {"muonlab:badType", "zero_cost: L must be a layout from zero_layout (L.stage: STAGE must be 1, 2 or 3)."});
%!   ## hand-edited ZeRO states
%!   t = s; t.step = {1};
%!   [id, msg] = err_of (@() zero_save_state ([pre "x"], L, t));
%!   assert ({id, msg}, {"muonlab:badState", "zero_save_state: STATE.step must be a non-negative integer."});
%!   t = s; t.key.variant = 3;
%!   [id, msg] = err_of (@() zero_save_state ([pre "x"], L, t));
%!   assert ({id, msg}, {"muonlab:badState", "zero_save_state: STATE.key.variant must be a design of zero_muon_step."});
%!   [~, T] = zero_train_step (L, g, [], "AccumulationSteps", 2);
%!   for f = {"micro", "step", "pending", "ns_calls", "accum", "scaler"}
%!     U = T; U.(f{1}) = struct ();
%!     [id, msg] = err_of (@() zero_train_step (L, g, U, "AccumulationSteps", 2));
%!     assert (id, "muonlab:badState");
%!     assert (strncmp (msg, ["zero_train_step: STATE." f{1} " must be"], 29 + numel (f{1})), msg);
%!   endfor
%! unwind_protect_cleanup
%!   cellfun (@unlink, files);
%! end_unwind_protect

## ---- item 3: limits, checked before any work ----------------------------------------------

%!test
%! lim = __muon_lists__ ().limits;
%! c = jsondecode (fileread (fullfile (fileparts (which ("muon_model")), "models", "llama-3.1-8b.json")));
%! cases = {"num_hidden_layers", 2^31, "max_model_layers";
%!          "intermediate_size", Inf, "max_model_dim";
%!          "hidden_size", 4096e200, "max_model_dim"};
%! for i = 1:rows (cases)
%!   d = c;
%!   d.(cases{i,1}) = cases{i,2};
%!   t0 = tic ();
%!   [id, msg] = err_of (@() muon_model (d));
%!   assert ({id, msg}, {"muonlab:badArg", sprintf("muon_model: config field '%s' must be at most %d (the limit %s).", cases{i,1}, lim.(cases{i,3}), cases{i,3})});
%!   assert (toc (t0) < 2);
%! endfor
%! q = jsondecode (fileread (fullfile (fileparts (which ("muon_model")), "models", "qwen3-30b-a3b.json")));
%! q.num_experts = 1e7;
%! [id, msg] = err_of (@() muon_model (q));
%! assert ({id, msg}, {"muonlab:badArg", sprintf("muon_model: config field 'num_experts' must be at most %d (the limit max_model_experts).", lim.max_model_experts)});
%! q.num_experts = 60000;
%! [id, msg] = err_of (@() muon_model (q));
%! assert (id, "muonlab:badArg");
%! assert (regexp (msg, "limit max_model_matrices", "once") > 0);

%!test
%! lim = __muon_lists__ ().limits;
%! t0 = tic ();
%! [id, msg] = err_of (@() ns_restart_autotune ("keller", "Steps", 1000));
%! assert (id, "muonlab:badArg");
%! assert (regexp (msg, "^ns_restart_autotune: .* \\(the limit max_autotune_work\\)", "once"), 1);
%! [id, msg] = err_of (@() ns_restart_autotune ("keller", "Steps", 40, "MaxRestarts", 64));
%! assert (regexp (msg, "the limit max_autotune_work", "once") > 0);
%! [id, msg] = err_of (@() ns_restart_autotune ("keller", "Grid", ones (1, lim.max_grid + 1)));
%! assert ({id, msg}, {"muonlab:badArg", sprintf("ns_restart_autotune: GRID must have at most %d points (the limit max_grid).", lim.max_grid)});
%! assert (toc (t0) < 5);

%!function sparse_file (name, nbytes, head)
%!  ## HEAD, then zeros up to NBYTES (a sparse file: Octave's fseek stops at the end)
%!  fid = fopen (name, "w");
%!  fwrite (fid, head, "uint8");
%!  fclose (fid);
%!  assert (system (sprintf ("truncate -s %d '%s'", nbytes, name)), 0);
%!  assert (stat (name).size, nbytes);

%!test
%! lim = __muon_lists__ ().limits;
%! P = struct ("W", ones (4, 8));
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   fifo = fullfile (d, "fifo.json");
%!   assert (mkfifo (fifo, 600), 0);
%!   [id, msg] = err_of (@() muon_load_state (fifo, P));
%!   assert ({id, msg}, {"muonlab:badArg", sprintf("muon_load_state: cannot read '%s': not a regular file (a FIFO, a device or a socket).", fifo)});
%!   [id, msg] = err_of (@() zero_load_state (fullfile (d, "fifo"), zero_layout ({[4 8]}, 1)));
%!   assert (id, "muonlab:badArg");
%!   [id, msg] = err_of (@() muon_model (fifo));
%!   assert ({id, msg}, {"muonlab:badArg", sprintf("muon_model: cannot read '%s': not a regular file (a FIFO, a device or a socket).", fifo)});
%!   [id, msg] = err_of (@() muon_load_state ("/dev/zero", P));
%!   assert ({id, msg}, {"muonlab:badArg", "muon_load_state: cannot read '/dev/zero': not a regular file (a FIFO, a device or a socket)."});
%!   big = fullfile (d, "big.json");
%!   sparse_file (big, lim.max_config_bytes + 1, uint8 ("{}"));
%!   [id, msg] = err_of (@() muon_model (big));
%!   assert ({id, msg}, {"muonlab:badArg", sprintf("muon_model: '%s' is %d bytes; at most %d bytes are read (the limit max_config_bytes).", big, lim.max_config_bytes + 1, lim.max_config_bytes)});
%!   ## a 4 GiB file that is no checkpoint: refused from its header, the rest never read
%!   huge = fullfile (d, "huge.ckpt");
%!   sparse_file (huge, 2^32, uint8 ("MUONCKPT"));
%!   t0 = tic ();
%!   [id, msg] = err_of (@() muon_load_state (huge, P));
%!   assert (id, "muonlab:badState");
%!   assert (toc (t0) < 2);
%!   over = fullfile (d, "over.ckpt");
%!   sparse_file (over, lim.max_checkpoint_mib * 2^20 + 1, uint8 ("MUONCKPT"));
%!   [id, msg] = err_of (@() muon_load_state (over, P));
%!   assert (id, "muonlab:badArg");
%!   assert (regexp (msg, "\\(the limit max_checkpoint_mib\\)\\.$", "once") > 0);
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

## ---- item 7: smaller things ---------------------------------------------------------------

%!test
%! G = reshape (sin (1:24), 4, 6);
%! lastwarn ("");
%! [X, st] = muon_ns (1e-200 * G);
%! [msg, id] = lastwarn ();
%! assert (id, "muonlab:tinyInput");
%! assert (msg, "muon_ns: 1 page(s) of G have 0 < norm (G, 'fro') < EPS (1e-07): their result is about G / EPS, far from orthogonal.");
%! assert (st.tiny_pages, 1);
%! assert (norm (X, "fro") < 1e-180);
%! lastwarn ("");
%! [X, st] = muon_ns (cat (3, G, zeros (4, 6), 1e-9 * G));
%! assert (st.tiny_pages, 1);
%! lastwarn ("");
%! [X, st] = muon_ns (cat (3, G, zeros (4, 6)));
%! assert (st.tiny_pages, 0);
%! assert (lastwarn (), "");

%!test
%! L1 = zero_layout ({[6 4], [5 4]}, 2);
%! L2 = zero_layout ({[6 4], [5 4]}, 2, "Stage", 3);
%! g = {ones(6, 4), ones(5, 4); 2 * ones(6, 4), ones(5, 4)};
%! ## each layout object keeps its own plans (the variant's and the reference's); "release"
%! ## gives back the communicator and buffers, never a layout's plans
%! R = zero_muon_step (L1, g, []);   n1 = R.plans_built;
%! R = zero_muon_step (L2, g, []);   n2 = R.plans_built;
%! R = zero_muon_step (L1, g, []);   n3 = R.plans_built;     # L1's own plans
%! zero_muon_step ("release");
%! R = zero_muon_step (L1, g, []);   n4 = R.plans_built;
%! assert ([n2 - n1, n3 - n2, n4 - n3], [2, 0, 0]);

## ---- item 2: crafted files never crash Octave -------------------------------------------

%!function seal (file, b)
%!  ## B (uint8 row: header and payload) with its SHA-256 appended, written to FILE
%!  d = hash ("sha256", char (b));
%!  fid = fopen (file, "w");
%!  fwrite (fid, [b, uint8(hex2dec (reshape (d, 2, []).')).']);
%!  fclose (fid);

%!test
%! ## a compressed payload (save -v7): its element is not padded to 8 bytes, and whatever
%! ## its length the refusal says it is not an uncompressed miMATRIX (before: "an element
%! ## at byte 128 claims N bytes; N are left" when N was not a multiple of 8)
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   P = struct ("W", reshape (sin (1:12), 4, 3));
%!   payload = struct (muon_optimizer (P));
%!   h = fullfile (d, "p.mat");
%!   lens = [];
%!   for k = 1:24                          # lengths that are a multiple of 8 and not
%!     payload.pad = 1:k;
%!     save ("-v7", h, "payload");
%!     fid = fopen (h); pb = fread (fid, Inf, "uint8=>uint8").'; fclose (fid);
%!     assert (double (typecast (pb(129:132), "uint32")), 15);       # miCOMPRESSED
%!     len = double (typecast (pb(133:136), "uint32"));
%!     lens(end+1) = len;
%!     head = zeros (1, 64, "uint8");
%!     head(1:8) = uint8 ("MUONCKPT");
%!     head(9) = 2;
%!     head(17:24) = typecast (uint64 (numel (pb)), "uint8");
%!     head(25:38) = uint8 ("muon_optimizer");
%!     f = fullfile (d, sprintf ("c%d.ckpt", k));
%!     seal (f, [head, pb]);
%!     try
%!       muon_load_state (f, P);
%!       error ("the load did not fail");
%!     catch err
%!       assert (err.identifier, "muonlab:badState");
%!       assert (err.message, sprintf (["muon_load_state: '%s' has a payload that does not " ...
%!                                      "decode (its variable is not an uncompressed miMATRIX " ...
%!                                      "element)."], f));
%!     end_try_catch
%!   endfor
%!   assert (any (mod (lens, 8) != 0) && any (mod (lens, 8) == 0));   # both cases met
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## an empty char array whose other dimension is huge (a 0 x 0 char's first dimension made
%! ## 2^20; the random sweep below met 620756992 x 0, and strcmp on its rows took 19 GB and
%! ## 30 s): refused by the payload check, as no array's extent passes the file's bytes
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   P = struct ("W", reshape (sin (1:32), 4, 8), "b", (1:4)');
%!   f = fullfile (d, "ok.ckpt");
%!   muon_save_state (f, muon_optimizer (P));
%!   fid = fopen (f); b = fread (fid, Inf, "uint8=>uint8").'; fclose (fid);
%!   b = b(1:end-32);
%!   ## a 0 x 0 char: its dimensions [0 0] after array flags of class 4
%!   k = strfind (char (b), char (uint8 ([6 0 0 0 8 0 0 0])));
%!   k = k(k > 192 & b(k + 8) == 4 & arrayfun (@(i) isequal (b(i+16:i+31), ...
%!         uint8 ([5 0 0 0 8 0 0 0 0 0 0 0 0 0 0 0])), k));
%!   assert (! isempty (k));
%!   at = k(1) + 16 + 8;
%!   b(at:at+3) = typecast (int32 (2^20), "uint8");
%!   f2 = fullfile (d, "huge_empty.ckpt");
%!   seal (f2, b);
%!   fail ("muon_load_state (f2, P)",
%!         sprintf ("has a payload that does not decode \\(a dimension of 1048576, past the file's %d bytes\\)", numel (b) - 64));
%!   ## in a larger file (a 100 x 100 parameter: 160 kB), 70000 empty rows are within its
%!   ## bytes and still refused (a 620 MB checkpoint admitted the 620756992 x 0 char)
%!   P = struct ("W", reshape (sin (1:1e4), 100, 100));
%!   [~, o] = muon_step (muon_optimizer (P), P, P);     # (a momentum of 80 kB)
%!   muon_save_state (f, o);
%!   fid = fopen (f); b = fread (fid, Inf, "uint8=>uint8").'; fclose (fid);
%!   b = b(1:end-32);
%!   k = strfind (char (b), char (uint8 ([6 0 0 0 8 0 0 0])));
%!   k = k(k > 192 & b(k + 8) == 4 & arrayfun (@(i) isequal (b(i+16:i+31), ...
%!         uint8 ([5 0 0 0 8 0 0 0 0 0 0 0 0 0 0 0])), k));
%!   b(k(1)+24:k(1)+27) = typecast (int32 (70000), "uint8");
%!   assert (numel (b) > 70000);
%!   seal (f2, b);
%!   fail ("muon_load_state (f2, P)",
%!         "has a payload that does not decode \\(an empty char array with a dimension of 70000\\)");
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   P = struct ("W", reshape (sin (1:32), 4, 8), "b", (1:4)');
%!   opt = muon_optimizer (P, "LossScaler", "dynamic");
%!   [P, opt] = muon_step (opt, P, P);
%!   f0 = fullfile (d, "ok.ckpt");
%!   muon_save_state (f0, opt);
%!   fid = fopen (f0); b0 = fread (fid, Inf, "uint8=>uint8").'; fclose (fid);
%!   b0 = b0(1:end-32);
%!   ## a field-name length element (a small miINT32 element: type 5, 4 bytes)
%!   k = strfind (char (b0(65+128:end)), char (uint8 ([5 0 4 0]))) + 64 + 128;
%!   assert (! isempty (k));
%!   files = {};
%!   for L = [0 1 1e6 2^32-1]
%!     b = b0;
%!     b(k(1)+4:k(1)+7) = typecast (uint32 (L), "uint8");
%!     files{end+1} = fullfile (d, sprintf ("len%d.ckpt", numel (files)));
%!     seal (files{end}, b);
%!   endfor
%!   rand ("state", 23);
%!   for i = 1:400
%!     b = b0;
%!     at = 64 + 128 + randi (numel (b0) - 64 - 128);
%!     if (mod (i, 2))
%!       b(at) = randi (255);
%!     else
%!       at = min (at, numel (b) - 3);
%!       b(at:at+3) = typecast (uint32 (randi (2^32) - 1), "uint8");
%!     endif
%!     files{end+1} = fullfile (d, sprintf ("r%d.ckpt", i));
%!     seal (files{end}, b);
%!   endfor
%!   deep = {201, 10000};
%!   for j = 1:2
%!     files{end+1} = fullfile (d, sprintf ("deep%d.json", deep{j}));
%!     fid = fopen (files{end}, "w");
%!     fputs (fid, [repmat("[", 1, deep{j}), repmat("]", 1, deep{j})]);
%!     fclose (fid);
%!   endfor
%!   ## the child: every file loaded, one line per outcome that is not ok or muonlab:*
%!   out = fullfile (d, "out.txt");
%!   script = fullfile (d, "child.m");
%!   fid = fopen (script, "w");
%!   fprintf (fid, "addpath ('%s', '%s');\n", fileparts (which ("muon_ns")), fileparts (which ("__muon_ns__")));
%!   fprintf (fid, "P = struct ('W', zeros (4, 8), 'b', zeros (4, 1));\n");
%!   fprintf (fid, "F = glob ('%s');\n", fullfile (d, "*.*"));
%!   fprintf (fid, "fid = fopen ('%s', 'w'); bad = 0; n = 0;\n", out);
%!   fprintf (fid, "for i = 1:numel (F)\n  [~, ~, e] = fileparts (F{i}); if (! any (strcmp (e, {'.ckpt', '.json'}))) continue; end\n  n++;\n");
%!   fprintf (fid, "  try\n    if (strcmp (e, '.json')) muon_model (F{i}); else muon_load_state (F{i}, P); end\n    id = 'ok'; m = '';\n");
%!   fprintf (fid, "  catch err\n    id = err.identifier; m = err.message;\n  end\n");
%!   fprintf (fid, "  if (! (strcmp (id, 'ok') || strncmp (id, 'muonlab:', 8))) bad++; end\n");
%!   fprintf (fid, "  fprintf (fid, '%%s|%%s|%%s\\n', F{i}, id, m);\nend\n");
%!   fprintf (fid, "fprintf (fid, 'done %%d %%d\\n', n, bad); fclose (fid);\n");
%!   fclose (fid);
%!   octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!   [rc, txt] = system (sprintf ("timeout -k 5 240 '%s' --no-gui --norc --silent '%s' 2>&1", octave, script));
%!   assert (rc == 0, "exit %d: %s", rc, txt);
%!   lines = strsplit (strtrim (fileread (out)), "\n");
%!   assert (lines{end}, sprintf ("done %d 0", numel (files) + 1));    # and ok.ckpt
%!   res = cellfun (@(l) strsplit (l, "|"), lines(1:end-1), "UniformOutput", false);
%!   got = containers.Map (cellfun (@(r) r{1}, res, "UniformOutput", false),
%!                         cellfun (@(r) [r{2} " " r{3}], res, "UniformOutput", false));
%!   why = {"a field name length of 0", "a malformed field name", "a field name length of 1000000", "a field name length of 4294967295"};
%!   for j = 1:4
%!     assert (got(files{j}), sprintf ("muonlab:badState muon_load_state: '%s' has a payload that does not decode (%s).", files{j}, why{j}));
%!   endfor
%!   for j = 1:2
%!     f = files{end-2+j};
%!     assert (got(f), sprintf ("muonlab:badArg muon_model: '%s' nests %d deep; at most 200 (the limit max_json_depth).", f, deep{j}));
%!   endfor
%!   ids = cellfun (@(r) r{2}, res, "UniformOutput", false);
%!   printf ("      %d crafted files: %d ok, %d muonlab:badState, %d other muonlab errors\n",
%!           numel (files), sum (strcmp (ids, "ok")), sum (strcmp (ids, "muonlab:badState")),
%!           sum (! strcmp (ids, "ok") & ! strcmp (ids, "muonlab:badState")));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## an empty option value with many rows (zeros (1e4, 0): "the default") saves and loads
%! ## (the dimension rule is for char arrays, whose rows are strings)
%! P = struct ("W", randn (4, 3));
%! G = struct ("W", randn (4, 3));
%! opt = muon_optimizer (P, "Rank", zeros (1e4, 0));
%! [~, opt] = muon_step (opt, P, G);
%! f = [tempname() ".ckpt"];
%! unwind_protect
%!   muon_save_state (f, opt);
%!   opt2 = muon_load_state (f, P);
%!   assert (isequal (struct (opt2), struct (opt)));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect
