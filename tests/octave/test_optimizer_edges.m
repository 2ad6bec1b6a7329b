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
