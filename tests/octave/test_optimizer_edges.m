## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_optimizer_edges ()
## Suite (run with @code{test test_optimizer_edges}): muon_step / muon_optimizer at the
## edges a review found: states that would make the update complex or non-finite, moments
## that would overflow their class, options given empty or of another class, the classes
## of the state, and the errors' wording.  Each expectation is a closed form or a plain
## computation written here.
## @end deftypefn

function test_optimizer_edges ()
  help test_optimizer_edges
endfunction

## F () must raise muonlab:ID with exactly MSG
%!function raises (f, id, msg)
%!  try
%!    f ();
%!  catch err
%!    assert ({err.identifier, err.message}, {["muonlab:" id], msg});
%!    return;
%!  end_try_catch
%!  error ("no error: expected '%s'", msg);
%!endfunction

%!shared P, G
%! P = struct ("W", reshape (sin (1:20), 4, 5), "b", [1; 2; 3; 4]);
%! G = struct ("W", reshape (cos (1:20), 4, 5), "b", [1; -1; 2; -2]);

%!test
%! ## a negative second moment of the Muon family is a bad state, in a step and a save
%! for p = {"adamuon_eo", "normuon_eo", "namo_eo"}
%!   [~, o] = muon_step (muon_optimizer (P, "Preset", p{1}), P, G);
%!   o.muon.W.family.buffer(1) = -1;
%!   msg = sprintf ("OPT.muon.W.family.buffer must not be negative (the second moment of %s).",
%!                  upper (p{1}(1:end-3)));
%!   raises (@() muon_step (o, P, G), "badState", ["muon_step: " msg]);
%!   raises (@() muon_save_state ([tempname() ".ckpt"], o), "badState", ["muon_save_state: " msg]);
%! endfor

%!test
%! ## a single AdamW gradient whose square overflows single (1e20^2 > 3.4e38) skips the
%! ## step, though its fp64 sum of squares is finite; 1e19 (1e38) is applied, v = 0.05 g^2
%! Ps = struct ("W", single (P.W), "b", single (P.b));
%! Gs = struct ("W", single (G.W), "b", single ([1e20; 1; 1; 1]));
%! o = muon_optimizer (Ps);
%! [Q, o2, info] = muon_step (o, Ps, Gs);
%! assert ([info.skipped, info.applied], [true, false]);
%! assert (Q, Ps);
%! assert (o2.adam, o.adam);
%! Gs.b(1) = 1e19;
%! [Q, o2, info] = muon_step (o, Ps, Gs);
%! assert ([info.skipped, info.applied], [false, true]);
%! assert (o2.adam.b.v, single (0.05 * double (Gs.b) .^ 2), -1e-6);
%! [Q, o2, info] = muon_step (o2, Q, Gs);
%! assert (info.applied && all (isfinite (Q.b)));

%!test
%! ## VEps 0 is refused (a zero row of G gave 0/0 in V's division and a NaN step)
%! Gz = G.W;  Gz(2,:) = 0;
%! raises (@() muon_optimizer (P, "Preset", "normuon_zichongli5", "VEps", 0), "badArg",
%!         "muon_optimizer: parameter 'W': VEPS must be a positive finite scalar.");
%! [Q, ~, info] = muon_step (muon_optimizer (P, "Preset", "normuon_zichongli5"), P,
%!                           struct ("W", Gz, "b", G.b));
%! assert (info.applied && all (isfinite (Q.W(:))));
%! assert (Q.W(2,:), P.W(2,:));             # its V row is 0: O's zero row over VEps

%!test
%! ## a step whose new parameters would not be finite is skipped and writes nothing:
%! ## AdamW with AdamEps 0 on a zero gradient entry (0/0), Muon with an update of Inf
%! o = muon_optimizer (P, "AdamEps", 0);
%! [Q, o2, info] = muon_step (o, P, setfield (G, "b", [0; 1; 2; 3]));
%! assert ([info.skipped, info.applied, o2.skipped, o2.step], [1 0 1 0]);
%! assert (Q, P);
%! assert ({o2.muon, o2.adam}, {o.muon, o.adam});
%! [~, o] = muon_step (muon_optimizer (P, "Scale", "spectral"), P, G);
%! o.update_args.W = {"Scale", "spectral", "ScaleFactor", 1e308};   # U = sqrt (5) 1e308 NS
%! w = warning ("off", "muonlab:nonFiniteResult");
%! unwind_protect
%!   [Q, o2, info] = muon_step (o, P, G);
%! unwind_protect_cleanup
%!   warning (w);
%! end_unwind_protect
%! assert ([info.skipped, info.applied, o2.step], [1 0 1]);
%! assert (Q, P);
%! assert ({o2.muon, o2.adam}, {o.muon, o.adam});

%!test
%! ## muon_step's own reading of the options (Scion's decay, the poisoned momentum's beta)
%! ## is muon_update's: an empty value keeps what the preset set; {} is the default
%! U = muon_update (G.W, [], "Preset", "scion_eo");
%! Q = muon_step (muon_optimizer (P, "Preset", "scion_eo", "Algorithm", "", "LR", 0.1), P, G);
%! assert (Q.W, 0.9 * P.W - 0.1 * U, 1e-15);            # Scion: wd = 1, W *= 1 - lr
%! U = muon_update (G.W, [], "Algorithm", {});
%! Q = muon_step (muon_optimizer (P, "Algorithm", {}, "LR", 0.1, "WeightDecay", 0.5), P, G);
%! assert (Q.W, 0.95 * P.W - 0.1 * U, 1e-15);
%! Q = muon_step (muon_optimizer (P, "DecayFirst", [], "LR", 0.1, "WeightDecay", 0.5), P, G);
%! assert (Q.W, 0.95 * P.W - 0.1 * U, 1e-15);

%!test
%! ## PoisonMomentum with Beta [] (the default 0.95), single (0.5) or int8 (0): the
%! ## non-finite gradient folds into the momentum as M + (1-beta) (g - M), in its class
%! [~, o0] = muon_step (muon_optimizer (P, "PoisonMomentum", true), P, G);
%! H = G;  H.W(1) = Inf;
%! for b = {[], single(0.5), int8(0)}
%!   [~, o] = muon_step (muon_optimizer (P, "PoisonMomentum", true, "Beta", b{1}), P, G);
%!   [~, o2, info] = muon_step (o, P, H);
%!   assert (info.skipped);
%!   beta = merge (isempty (b{1}), 0.95, double (b{1}));
%!   M = o.muon.W.momentum;
%!   assert (class (o2.muon.W.momentum), "double");
%!   assert (o2.muon.W.momentum(2:end), M(2:end) + (1 - beta) * (H.W(2:end) - M(2:end)), 1e-15);
%!   assert (o2.muon.W.momentum(1), Inf);
%! endfor

%!test
%! ## single gradients for double parameters: converted, the state stays double (and the
%! ## step equals the one of double gradients holding the same values); a momentum or
%! ## moment of another class is a bad state
%! Gs = struct ("W", single (G.W), "b", single (G.b));
%! Gd = struct ("W", double (Gs.W), "b", double (Gs.b));
%! for p = {"keller", "normuon_eo"}
%!   [Q, o] = muon_step (muon_optimizer (P, "Preset", p{1}), P, Gs);
%!   [Qd, od] = muon_step (muon_optimizer (P, "Preset", p{1}), P, Gd);
%!   assert ({class(o.adam.b.m), class(o.adam.b.v), class(o.muon.W.momentum)},
%!           {"double", "double", "double"});
%!   assert ({Q, o.muon, o.adam}, {Qd, od.muon, od.adam});
%!   o2 = o;  o2.muon.W.momentum = single (o2.muon.W.momentum);
%!   raises (@() muon_step (o2, P, G), "badState",
%!           "muon_step: OPT.muon.W.momentum must be double, the class of its parameter.");
%!   o2 = o;  o2.adam.b.v = single (o2.adam.b.v);
%!   raises (@() muon_step (o2, P, G), "badState",
%!           "muon_step: OPT.adam.b.v must be double, the class of its parameter.");
%! endfor

%!test
%! ## muon_update: a given momentum keeps its class on the Octave path too (as on the
%! ## core's), U has the class of G
%! M = reshape (sin (1:20), 4, 5);
%! for o = {{}, {"NormScale", 1.02}, {"Preset", "normuon_eo"}, {"Preset", "dion_reference"}}
%!   s = struct ("momentum", M, "step", 1, "form", merge (numel (o{1}) && strncmp (o{1}{end}, "dion", 4), "sgd", "ema"));
%!   if (! isempty (o{1}) && strcmp (o{1}{end}, "normuon_eo"))
%!     s.family = struct ("algorithm", "normuon", "buffer", zeros (1, 5));
%!   elseif (! isempty (o{1}) && strcmp (o{1}{end}, "dion_reference"))
%!     s.family = struct ("algorithm", "dion", "buffer", eye (4));
%!   endif
%!   [U, s2] = muon_update (single (G.W), s, o{1}{:});
%!   assert ({class(U), class(s2.momentum)}, {"single", "double"});
%!   s.momentum = single (M);
%!   [U, s2] = muon_update (G.W, s, o{1}{:});
%!   assert ({class(U), class(s2.momentum)}, {"double", "single"});
%! endfor

%!test
%! ## PerMicroBatchNS: a window of 2 that ends in an overflow (an AdamW gradient) applies
%! ## nothing, and the Muon momentum keeps both micro-batches' advances (muon_step's help)
%! o = muon_optimizer (P, "AccumulationSteps", 2, "PerMicroBatchNS", true);
%! [Q, o] = muon_step (o, P, G);
%! [Q, o, info] = muon_step (o, Q, setfield (G, "b", [Inf; 0; 0; 0]));
%! assert ([info.skipped, info.applied, o.step], [1 0 0]);
%! assert (Q, P);
%! assert (o.muon.W.step, 2);
%! M = 0.05 * (G.W / 2);                         # the EMA of G/2, twice
%! assert (o.muon.W.momentum, M + 0.05 * (G.W / 2 - M), 1e-15);

%!test
%! ## GrowthInterval Inf: the scale never grows but backs off on an overflow (1024 -> 512);
%! ## MinScale equal to InitScale or Backoff 1 keeps it fixed, as muon_optimizer's help says
%! S0 = struct ("W", zeros (4, 5));
%! bad = struct ("W", [Inf, zeros(1, 4); zeros(3, 5)]);
%! good = struct ("W", ones (4, 5));
%! sc = struct ("InitScale", 1024, "GrowthInterval", Inf);
%! cases = {{}, [512 512]; {"MinScale", 1024}, [1024 1024]; {"Backoff", 1}, [1024 1024]};
%! for i = 1:rows (cases)
%!   c = sc;
%!   for j = 1:2:numel (cases{i,1})
%!     c.(cases{i,1}{j}) = cases{i,1}{j+1};
%!   endfor
%!   opt = muon_optimizer (S0, "LossScaler", c);
%!   [~, opt, info] = muon_step (opt, S0, bad);
%!   assert (info.skipped);
%!   s = opt.scaler.scale;
%!   for t = 1:3
%!     [~, opt] = muon_step (opt, S0, good);
%!   endfor
%!   assert ([s, opt.scaler.scale], cases{i,2});
%! endfor

%!test
%! ## a state moved to a device that is not there: the error names the function called
%! ## (not muon_gpu, which the move calls); where a GPU is present the calls succeed
%! P = struct ("b", (1:8)');
%! f = [tempname(), ".mat"];
%! unwind_protect
%!   muon_save_state (f, muon_optimizer (P));
%!   calls = {"muon_optimizer", @() muon_optimizer (P, "Device", "cuda");
%!            "muon_load_state", @() muon_load_state (f, P, "Device", "cuda")};
%!   for k = 1:rows (calls)
%!     try
%!       calls{k,2} ();
%!     catch err
%!       assert (err.identifier, "muonlab:noDevice");
%!       assert (strncmp (err.message, [calls{k,1}, ": no CUDA device"], numel (calls{k,1}) + 16));
%!     end_try_catch
%!   endfor
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

## moved from inst/muon_step.m (its length), with its shared P and G
%!shared P, G
%! randn ("state", 2);
%! P = struct ("W", randn (8, 5), "b", randn (8, 1));
%! G = struct ("W", randn (8, 5), "b", randn (8, 1));

%!test
%! opt = muon_optimizer (P, "LR", 0.1);
%! [Q, opt, info] = muon_step (opt, P, G);
%! U = muon_update (G.W, []);
%! assert (Q.W, P.W - 0.1 * U);
%! assert (info.applied && ! info.skipped);
%! assert ([info.step info.micro info.ns_calls info.clip_coef], [1 1 1 1]);
%! assert (info.global_norm, norm ([G.W(:); G.b(:)]), 1e-14);
%! assert (info.update_norm.W, norm (Q.W - P.W, "fro"), 1e-15);
%! ## the first AdamW step moves every entry by about lr (sign descent)
%! assert (Q.b, P.b - 0.1 * sign (G.b), 1e-8);

%!test
%! opt = muon_optimizer (P, "AccumulationSteps", 2);
%! [Q, opt, info] = muon_step (opt, P, G);
%! assert (Q, P);
%! assert (! info.applied && info.micro == 1 && isnan (info.global_norm));
%! [Q, opt, info] = muon_step (opt, P, G);
%! assert (info.applied && info.micro == 2);

%!test
%! ## no scaler: a non-finite gradient skips the step and leaves the state alone
%! opt = muon_optimizer (P);
%! H = G; H.b(3) = NaN;
%! [Q, opt2, info] = muon_step (opt, P, H);
%! assert (Q, P);
%! assert (info.skipped && ! info.applied);
%! assert (opt2.muon, opt.muon);
%! assert (opt2.adam, opt.adam);
%!test
%! ## a state passed back with a malformed momentum is an error, never a fresh start
%! [~, opt] = muon_step (muon_optimizer (P), P, G);
%! o = opt;  o.muon.W.momentum = {};
%! fail ("muon_step (o, P, G)",
%!       "muon_step: OPT.muon.W.momentum must be a real double or single array.");
%! o = opt;  o.muon.W.momentum = [];
%! fail ("muon_step (o, P, G)", "muon_step: OPT.muon.W.momentum must be of size 8 x 5.");
%! o = opt;  o.muon.W.momentum(3) = NaN;
%! fail ("muon_step (o, P, G)", "muon_step: OPT.muon.W.momentum must not contain NaN or Inf.");
%! o = opt;  o.muon.W = rmfield (o.muon.W, "form");
%! fail ("muon_step (o, P, G)", "muon_step: OPT.muon.W lacks the field 'form'.");
%! o = opt;  o.adam.b.v(1) = -1;
%! fail ("muon_step (o, P, G)", "muon_step: OPT.adam.b.v must not be negative.");
%! o = opt;  o.adam.b.m = single (o.adam.b.m(1:4));
%! fail ("muon_step (o, P, G)", "muon_step: OPT.adam.b.m must be of size 8 x 1.");
%! o = opt;  o.accum.b = {};
%! fail ("muon_step (o, P, G)", "muon_step: OPT.accum.b must be a real double or single array.");
%! ## [] still means no step yet
%! o = opt;  o.muon.W = [];
%! [~, o2] = muon_step (o, P, G);
%! assert (o2.muon.W.step, 1);
%!test
%! ## MomentumArith torch: a single or double matrix takes torch's fused apply
%! ## (test_momentum_torch checks it against torch); Experts, DecayFirst false and after-NS
%! ## clipping keep p = p0 (1 - lr wd) - lr U with U = muon_update's scaled update
%! randn ("seed", 3);
%! P0 = randn (12, 20);  G0 = randn (12, 20);
%! o = {"MomentumArith", "torch", "Scale", "rms"};
%! for v = {{"single", {"Experts", 2}}, {"double", {"DecayFirst", false}}, ...
%!          {"single", {"ClipNorm", 1e-3, "ClipPolicy", "after_ns"}}}
%!   [cls, extra] = v{1}{:};
%!   uextra = extra(1:2 * strcmp (extra{1}, "Experts"));
%!   Q = struct ("W", cast (P0, cls));  Gr = cast (G0, cls);
%!   opt = muon_optimizer (Q, o{:}, extra{:}, "LR", 0.02, "WeightDecay", 0.1);
%!   [Q1, opt1, info] = muon_step (opt, Q, struct ("W", Gr));
%!   U = muon_update (Gr, [], o{:}, uextra{:}) * info.clip_coef;
%!   if (strcmp (extra{1}, "Experts"))
%!     want = Q.W * (1 - 0.02 * 0.1) - 0.02 * U;
%!   elseif (strcmp (extra{1}, "DecayFirst"))
%!     want = (Q.W - 0.02 * U) * (1 - 0.02 * 0.1);
%!   else
%!     assert (info.clip_coef < 1);
%!     want = Q.W * (1 - 0.02 * 0.1) - 0.02 * U;
%!   endif
%!   assert (isequal (Q1.W, want));
%! endfor
%! ## the fused apply: the single parameter one rounding of p0 (1 - lr wd) - lr scale O
%! Q = struct ("W", single (P0));  Gr = single (G0);
%! [Q1, opt1] = muon_step (muon_optimizer (Q, o{:}, "LR", 0.02, "WeightDecay", 0.1), Q,
%!                         struct ("W", Gr));
%! O = muon_update (Gr, [], o{:}, "Scale", "none");
%! q = Q.W * (1 - 0.02 * 0.1);
%! a = double (single (-(0.02 * (0.2 * sqrt (20)))));    # torch's _adjust_lr
%! want = single (double (q) + a * double (O));     # no tie here (checked: exact sum)
%! assert (isequal (Q1.W, want));
%! assert (! isequal (Q1.W, q - 0.02 * muon_update (Gr, [], o{:})));
%! ## a double matrix: alpha in double, one fma
%! Q = struct ("W", P0);
%! Q1 = muon_step (muon_optimizer (Q, o{:}, "LR", 0.02, "WeightDecay", 0.1), Q,
%!                 struct ("W", G0));
%! O = muon_update (G0, [], o{:}, "Scale", "none");
%! assert (isequal (Q1.W, __muon_fma__ (-(0.02 * (0.2 * sqrt (20))), O, P0 * (1 - 0.02 * 0.1))));
%!error <muon_step: OPT\.muon\.W must be \[\] or a muon_update state\.> muon_step (setfield (muon_optimizer (P), "muon", struct ("W", "")), P, G)
%!error id=muonlab:badState muon_step (setfield (muon_optimizer (P), "muon", struct ("W", "")), P, G)
%!error <muon_step: OPT lacks the field 'adam_wd'.>
%! muon_step (rmfield (muon_optimizer (P), "adam_wd"), P, G)
%!error <muon_step: OPT.update_args lacks the field 'W'.>
%! muon_step (setfield (muon_optimizer (P), "update_args", struct ()), P, G)
%!error <muon_step: OPT.scaler must be a scalar struct.>
%! muon_step (setfield (muon_optimizer (P), "scaler", "dynamic"), P, G)
%!error <^muon_step: parameter 'W': unknown coefficient schedule 'foo'\. Coefficient schedules: .*\.$>
%! opt = muon_optimizer (P);
%! opt.update_args.W = {"Coefficients", "foo"};
%! muon_step (opt, P, G);
%!error <muon_step: parameter 'W': STATE.form must be 'ema', the MOMENTUMFORM in use.>
%! [~, opt] = muon_step (muon_optimizer (P), P, G);
%! opt.muon.W.form = "sgd";
%! muon_step (opt, P, G);

%!test
%! ## a loss scale below 1 (MinScale < 1): the unscaled gradient is checked too.  A double
%! ## AdamW gradient of 2e154 (scaled 2e154 / 1024, fine) squares past realmax, and a
%! ## single Muon gradient of 1e36 unscales to Inf: both steps are skipped and the scale
%! ## backs off (the first applied, putting Inf in AdamW's v; the second raised nonFinite)
%! s = 2^-10;
%! randn ("state", 4);
%! P = struct ("W", randn (4, 3), "b", zeros (3, 1));
%! opt = muon_optimizer (P, "LossScaler", struct ("InitScale", s, "MinScale", s / 4));
%! [P2, opt2, info] = muon_step (opt, P, struct ("W", randn (4, 3) * s, "b", [2e154; 1; 1] * s));
%! assert ([info.applied, info.skipped], [false, true]);
%! assert (isequal (P2, P));
%! assert (opt2.scaler.scale, s / 2);
%! Q = struct ("W", single (randn (4, 3)));
%! opt = muon_optimizer (Q, "LossScaler", struct ("InitScale", s, "MinScale", s / 4));
%! g = single (randn (4, 3)) * s;
%! g(1) = 1e36;
%! [Q2, opt2, info] = muon_step (opt, Q, struct ("W", g));
%! assert ([info.applied, info.skipped], [false, true]);
%! assert (isequal (Q2, Q));
%! assert (opt2.scaler.scale, s / 2);

%!test
%! ## with QKClip, info has the same fields on every call (accumulation calls included), so
%! ## a loop can collect them: infos(t) = info
%! randn ("state", 5);
%! P = struct ("Wq", randn (8, 6), "Wk", randn (8, 6));
%! o = muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 2}, "AccumulationSteps", 2);
%! for t = 1:2
%!   [P, o, info] = muon_step (o, P, struct ("Wq", randn (8, 6), "Wk", randn (8, 6)),
%!                             struct ("Wq", [50 120]));
%!   infos(t) = info;
%! endfor
%! assert ([infos.applied], [false, true]);
%! assert (isempty (fieldnames (infos(1).qk_clip)));
%! assert (isfield (infos(2).qk_clip, "Wq"));

%!test
%! ## a single AdamW gradient past sqrt (realmax ("single")) on device arrays: the step is
%! ## skipped as on the host (the check looked at host singles only: the device step was
%! ## applied with Inf in AdamW's v, and every later step was skipped), and the steps after
%! ## it equal the host's bit for bit
%! randn ("state", 6);
%! P = struct ("W", randn (4, 3), "b", single (zeros (3, 1)));
%! g = {struct("W", randn (4, 3), "b", single ([1e20; 1; 1])), ...
%!      struct("W", randn (4, 3), "b", single ([1; 1; 1]))};
%! up = @(s) struct ("W", muon_gpu (s.W, "Device", "cpu"), "b", muon_gpu (s.b, "Device", "cpu"));
%! od = muon_optimizer (P, "Device", "cpu", "Resident", true);
%! oh = muon_optimizer (P);
%! Q = up (P);
%! for t = 1:3
%!   [Q, od, id] = muon_step (od, Q, up (g{min(t, 2)}));
%!   [P, oh, ih] = muon_step (oh, P, g{min(t, 2)});
%!   assert ([id.applied, id.skipped], [t > 1, t == 1]);
%!   assert ([id.applied, id.skipped], [ih.applied, ih.skipped]);
%! endfor
%! assert (isequal (gather (Q.b), P.b) && isequal (gather (Q.W), P.W));

## muon_step's refusals of an edited optimizer state (moved from inst/muon_step.m)
%!shared P, G
%! randn ("state", 2);
%! P = struct ("W", randn (8, 5), "b", randn (8, 1));
%! G = struct ("W", randn (8, 5), "b", randn (8, 1));
%!error <muon_step: OPT.names must be a column cell of distinct parameter names.> muon_step (setfield (struct (muon_optimizer (P)), "names", {1; 2}), P, G)
%!error <muon_step: OPT.names must be a column cell of distinct parameter names.> muon_step (setfield (struct (muon_optimizer (P)), "names", {"W"; "W"}), P, G)
%!error <muon_step: OPT.classes must be 'double' or 'single' per parameter.> muon_step (setfield (struct (muon_optimizer (P)), "classes", {"int8"; "double"}), P, G)
%!error <muon_step: OPT.muon.W must be \[\] or a muon_update state.> muon_step (setfield (muon_optimizer (P), "muon", struct ("W", {{}})), P, G)
