## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_optimizer ()
## Suite (run with @code{test test_optimizer}): the hybrid Muon + AdamW optimizer
## (muon_optimizer / muon_step / muon_save_state / muon_load_state) against independent
## oracles:
## @itemize
## @item AdamW against the textbook closed-form loop ref_adamw.m (moments by
## @code{b m + (1-b) g}, while inst/ uses the peers' lerp @code{m + (1-b)(g - m)}: the two
## differ by round-off only; bound 1e-15 relative to the parameter's largest entry);
## @item decoupled weight decay with the unadjusted lr (Moonlight, torch) against
## @code{p (1 - lr wd) - lr U}, U from muon_update, bitwise;
## @item routing as DeepSpeed's set_optimizer_flags (vectors, embeddings, lm_head);
## @item clipping: the DeepSpeed #8439 signature (after_ns pins the step norm at
## ClipNorm * lr at two model sizes) and skip_muon == none for Muon parameters, bitwise;
## @item the loss scaler: an Inf gradient skips the step and leaves the momentum finite,
## clean steps equal an unscaled run bitwise (2^k scales are exact); with PoisonMomentum
## (DeepSpeed #8432) the momentum turns non-finite and every later step is skipped;
## @item accumulation: 4 micro-batches == one step on the mean gradient (1e-12), while
## PerMicroBatchNS (DeepSpeed #8443) differs (printed);
## @item save / load: a round trip then a step equals no round trip bitwise; StatePrecision
## rounds each buffer once, against rounding by hand.
## @end itemize
## @end deftypefn

function test_optimizer ()
  help test_optimizer
endfunction

%!function G = rand_like (P, s)
%!  G = struct ();
%!  f = fieldnames (P);
%!  for i = 1:numel (f)
%!    G.(f{i}) = s * randn (size (P.(f{i})));
%!  endfor

%!function P = mlp_params (h)
%!  P = struct ("W1", randn (h, 8) / sqrt (8), "W2", randn (h, h) / sqrt (h),
%!              "W3", randn (8, h) / sqrt (h));

%!function r = relF (A, B)
%!  a = cell2mat (cellfun (@(x) x(:), struct2cell (A), "UniformOutput", false));
%!  b = cell2mat (cellfun (@(x) x(:), struct2cell (B), "UniformOutput", false));
%!  r = norm (a - b) / norm (b);

## ---------------------------------------------------------------- AdamW
%!test
%! randn ("state", 12);
%! P = struct ("bias", randn (7, 1), "embed", randn (10, 4));
%! for c = {{1e-2, 0.1, [0.9 0.95], 1e-10}, {3e-4, 0, [0.8 0.999], 1e-8}}
%!   [lr, wd, betas, ep] = c{1}{:};
%!   opt = muon_optimizer (P, "LR", lr, "WeightDecay", wd, "AdamBetas", betas,
%!                         "AdamEps", ep);
%!   Q = P;
%!   GG = struct ("bias", {{}}, "embed", {{}});
%!   for t = 1:25
%!     G = rand_like (P, 10 ^ (t / 10 - 2));
%!     GG.bias{t} = G.bias;  GG.embed{t} = G.embed;
%!     [Q, opt] = muon_step (opt, Q, G);
%!   endfor
%!   for n = {"bias", "embed"}
%!     [pr, hist] = ref_adamw (P.(n{1}), GG.(n{1}), lr, wd, betas, ep);
%!     err = max (abs (Q.(n{1})(:) - pr(:))) / max (abs (pr(:)));
%!     printf ("  AdamW vs closed form (%s, lr %g, wd %g): max rel diff %.2e\n", n{1}, lr,
%!             wd, err);
%!     assert (err <= 1e-15);
%!     assert (opt.adam.(n{1}).step, 25);
%!   endfor
%! endfor

## ---------------------------------------------------------------- weight decay
%!test
%! ## decoupled decay uses the unadjusted lr, also under the rms (Moonlight) scale
%! randn ("state", 13);
%! P = struct ("W", randn (12, 5), "b", randn (12, 1));
%! G = rand_like (P, 1);
%! lr = 0.03; wd = 0.1;
%! opt = muon_optimizer (P, "MuonLR", lr, "AdamLR", 2e-3, "WeightDecay", wd, "Scale", "rms");
%! [Q, opt] = muon_step (opt, P, G);
%! U = muon_update (G.W, [], "Scale", "rms");
%! assert (Q.W, P.W * (1 - lr * wd) - lr * U);          # bitwise
%! adj = lr * 0.2 * sqrt (12);
%! assert (norm (Q.W - (P.W * (1 - adj * wd) - lr * U), "fro") > 1e-3);
%! ## AdamW: a zero gradient moves a parameter by its decay only, p (1 - adam_lr wd)
%! Z = struct ("W", zeros (12, 5), "b", zeros (12, 1));
%! opt = muon_optimizer (P, "MuonLR", lr, "AdamLR", 2e-3, "WeightDecay", wd);
%! [Q, opt] = muon_step (opt, P, Z);
%! assert (Q.b, P.b * (1 - 2e-3 * wd));
%! ## MuonWeightDecay / AdamWeightDecay split it
%! opt = muon_optimizer (P, "AdamLR", 2e-3, "MuonWeightDecay", 0.5, "AdamWeightDecay", 0);
%! [Q, opt] = muon_step (opt, P, Z);
%! assert (Q.b, P.b);
%! assert (Q.W, P.W * (1 - 0.02 * 0.5) - 0.02 * muon_update (Z.W, []));

## ---------------------------------------------------------------- routing
%!test
%! P = struct ("w_col", ones (5, 1), "w_row", ones (1, 5), "scalar", 1,
%!             "tok_Embeddings", ones (50, 8), "lm_head", ones (50, 8),
%!             "attn_qkv", ones (24, 8), "experts", ones (4, 3, 2), "conv", ones (4, 3, 3, 3),
%!             "thin", ones (1, 1, 3));
%! opt = muon_optimizer (P);
%! want = struct ("w_col", "adamw", "w_row", "adamw", "scalar", "adamw",
%!                "tok_Embeddings", "adamw", "lm_head", "adamw", "attn_qkv", "muon",
%!                "experts", "muon", "conv", "muon", "thin", "adamw");
%! assert (opt.route, want);
%! assert (sort (fieldnames (opt.adam)),
%!         sort ({"w_col"; "w_row"; "scalar"; "tok_Embeddings"; "lm_head"; "thin"}));
%! G = rand_like (P, 1);
%! [Q, opt, info] = muon_step (opt, P, G);
%! assert (info.ns_calls, 3);
%! assert (size (opt.muon.conv.momentum), [4 3 3 3]);
%! assert (opt.muon.experts.step, 1);
%! ## overrides
%! opt = muon_optimizer (P, "Route", {"lm_head", "muon"; "attn_qkv", false});
%! assert ({opt.route.lm_head, opt.route.attn_qkv}, {"muon", "adamw"});

## ---------------------------------------------------------------- clipping
%!test
%! ## DeepSpeed #8439: after_ns clips the orthogonalized update by its own norm, so with
%! ## all-Muon parameters and no decay the applied step norm is ClipNorm * lr at any size
%! lr = 0.02;
%! for h = [16 128]
%!   randn ("state", h);
%!   P = mlp_params (h);
%!   o1 = muon_optimizer (P, "LR", lr, "ClipPolicy", "after_ns", "ClipNorm", 1);
%!   o0 = muon_optimizer (P, "LR", lr);
%!   Q1 = P; Q0 = P;
%!   for t = 1:3
%!     G = rand_like (P, 1);
%!     [Q1, o1, i1] = muon_step (o1, Q1, G);
%!     [Q0, o0, i0] = muon_step (o0, Q0, G);
%!     assert (i1.step_norm, lr * 1, 1e-6 * lr);
%!     assert (i1.clip_coef, 1 / (i1.global_norm + 1e-6), 1e-15);
%!   endfor
%!   printf ("  after_ns, hidden %3d: step norm %.6f (lr %.2f), attenuation %.2fx vs none (%.4f)\n",
%!           h, i1.step_norm, lr, i0.step_norm / i1.step_norm, i0.step_norm);
%!   assert (i0.step_norm / i1.step_norm > 2);
%! endfor

%!test
%! ## skip_muon: the norm is over AdamW gradients only, Muon steps are those of "none"
%! randn ("state", 14);
%! P = struct ("W", randn (10, 6), "V", randn (6, 10), "b", randn (10, 1), "embed", randn (9, 4));
%! on = muon_optimizer (P, "LR", 0.01);
%! os = muon_optimizer (P, "LR", 0.01, "ClipPolicy", "skip_muon", "ClipNorm", 0.5);
%! Qn = P; Qs = P;
%! for t = 1:4
%!   G = rand_like (P, 10);
%!   [Qn, on] = muon_step (on, Qn, G);
%!   [Qs, os, info] = muon_step (os, Qs, G);
%!   assert (info.global_norm, norm ([G.b; G.embed(:)]), 1e-13 * info.global_norm);
%!   assert (info.clip_coef < 0.02);
%! endfor
%! assert (Qs.W, Qn.W);
%! assert (Qs.V, Qn.V);
%! assert (os.muon, on.muon);
%! assert (norm (os.adam.b.m - on.adam.b.m) > 0);

%!test
%! ## before_ns: the raw gradients, Muon and AdamW, are clipped before the momentum
%! randn ("state", 15);
%! P = struct ("W", randn (10, 6), "b", randn (10, 1));
%! G = rand_like (P, 3);
%! opt = muon_optimizer (P, "ClipPolicy", "before_ns", "ClipNorm", 2);
%! [Q, opt, info] = muon_step (opt, P, G);
%! gn = norm ([G.W(:); G.b]);
%! assert (info.global_norm, gn, 1e-14 * gn);
%! assert (info.clip_coef, 2 / (gn + 1e-6), 1e-15);
%! assert (opt.muon.W.momentum, 0.05 * (G.W * info.clip_coef), 1e-15);
%! assert (opt.adam.b.m, 0.1 * (G.b * info.clip_coef), 1e-15);

## ---------------------------------------------------------------- loss scaler
%!test
%! ## correct path: the Inf is caught before the momentum; clean steps equal an unscaled run
%! randn ("state", 16);
%! P = struct ("W", randn (10, 6), "b", randn (10, 1));
%! os = muon_optimizer (P, "LossScaler", struct ("InitScale", 2^16, "GrowthInterval", 3));
%! o1 = muon_optimizer (P);
%! Qs = P; Q1 = P;
%! for t = 1:8
%!   G = rand_like (P, 1);
%!   S = G;
%!   s = os.scaler.scale;
%!   S.W *= s; S.b *= s;
%!   if (t == 3)
%!     S.W(2, 3) = Inf;
%!   endif
%!   M0 = os.muon;
%!   [Qs2, os, info] = muon_step (os, Qs, S);
%!   assert (info.loss_scale, s);
%!   if (t == 3)
%!     assert (info.skipped && ! info.applied);
%!     assert (Qs2, Qs);
%!     assert (os.muon, M0);
%!     assert (all (isfinite (os.muon.W.momentum(:))));
%!     assert (os.scaler.scale, 2^15);
%!   else
%!     [Q1, o1] = muon_step (o1, Q1, G);
%!     assert (info.applied && ! info.skipped);
%!     assert (Qs2, Q1);                             # bitwise: 2^k scales are exact
%!   endif
%!   Qs = Qs2;
%! endfor
%! ## growth after 3 clean steps: 2^16 (t 1, 2), 2^15 after t 3, 2^16 after t 6
%! assert (os.scaler.scale, 2^16);
%! assert ([os.step os.skipped os.scaler.overflows], [7 1 1]);

%!test
%! ## DeepSpeed #8432: the lerp folds Inf into the momentum before the check; the step is
%! ## skipped, but the momentum never recovers: every later step is skipped too
%! randn ("state", 16);
%! P = struct ("W", randn (10, 6), "b", randn (10, 1));
%! op = muon_optimizer (P, "LossScaler", "dynamic", "PoisonMomentum", true);
%! Q = P;
%! nskip = 0;
%! for t = 1:30
%!   S = rand_like (P, op.scaler.scale);
%!   if (t == 3)
%!     S.W(2, 3) = Inf;
%!   endif
%!   [Q2, op, info] = muon_step (op, Q, S);
%!   if (t < 3)
%!     assert (info.applied);
%!   else
%!     assert (info.skipped && ! info.applied);
%!     assert (Q2, Q);
%!     assert (! all (isfinite (op.muon.W.momentum(:))));
%!     nskip++;
%!   endif
%!   Q = Q2;
%! endfor
%! printf ("  PoisonMomentum: %d of 28 steps after the overflow skipped; scale %g -> %g\n",
%!         nskip, 2^16, op.scaler.scale);
%! assert (op.scaler.scale, 1);                       # backed off to the minimum
%! ## the lerp is elementwise: the entry that overflowed stays Inf, and NS of a matrix
%! ## holding an Inf is all non-finite, so no later update can be applied
%! assert (isinf (op.muon.W.momentum(2, 3)) && nnz (! isfinite (op.muon.W.momentum)) == 1);
%! assert (op.step, 2);

## ---------------------------------------------------------------- accumulation
%!test
%! randn ("state", 17);
%! P = struct ("W1", randn (16, 8), "W2", randn (8, 16), "b", randn (8, 1));
%! oa = muon_optimizer (P, "AccumulationSteps", 4, "LR", 0.02);
%! om = muon_optimizer (P, "LR", 0.02);
%! ob = muon_optimizer (P, "AccumulationSteps", 4, "LR", 0.02, "PerMicroBatchNS", true);
%! Qa = P; Qm = P; Qb = P;
%! for step = 1:3
%!   mb = cell (1, 4);
%!   for j = 1:4
%!     mb{j} = rand_like (P, 1);
%!     [Qa, oa, ia] = muon_step (oa, Qa, mb{j});
%!     [Qb, ob, ib] = muon_step (ob, Qb, mb{j});
%!     assert (ia.applied, j == 4);
%!   endfor
%!   M = struct ();
%!   for n = {"W1", "W2", "b"}
%!     M.(n{1}) = (mb{1}.(n{1}) + mb{2}.(n{1}) + mb{3}.(n{1}) + mb{4}.(n{1})) / 4;
%!   endfor
%!   [Qm, om] = muon_step (om, Qm, M);
%!   assert (relF (Qa, Qm) <= 1e-12);
%! endfor
%! ## DeepSpeed #8443 (ZeRO-3 runs NS per micro-batch): 4x the NS calls, another step
%! assert ([oa.ns_calls ob.ns_calls], [6 24]);
%! dw = relF (Qb, Qm);
%! dm = relF (struct ("x", [Qb.W1(:); Qb.W2(:)] - [P.W1(:); P.W2(:)]),
%!            struct ("x", [Qm.W1(:); Qm.W2(:)] - [P.W1(:); P.W2(:)]));
%! printf ("  accumulation 4 vs mean step: %.1e; PerMicroBatchNS vs mean step: weights %.2e, Muon displacement %.2e (MUON_FACTS 1.6: 1.3e-1)\n",
%!         relF (Qa, Qm), dw, dm);
%! assert (dm > 0.1);

## ---------------------------------------------------------------- save / load
%!function fn = ifelse_fn (prec, bf)
%!  switch (prec)
%!    case "single", fn = @(x) double (single (x));
%!    case "bf16",   fn = bf;
%!    case "fp16",   fn = @(x) double (ref_round (x, "fp16"));
%!  endswitch

%!test
%! randn ("state", 18);
%! P = struct ("W", randn (10, 6), "V", single (randn (5, 7)), "b", randn (10, 1));
%! opt = muon_optimizer (P, "AccumulationSteps", 2, "LossScaler", "dynamic",
%!                       "Method", "gram", "WeightDecay", 0.1);
%! Q = P;
%! for t = 1:5                             # ends mid-window: accumulation buffers pending
%!   G = rand_like (P, opt.scaler.scale);
%!   G.V = single (G.V);
%!   [Q, opt] = muon_step (opt, Q, G);
%! endfor
%! f = [tempname() ".bin"];
%! unwind_protect
%!   muon_save_state (f, opt);
%!   o2 = muon_load_state (f, Q);
%!   assert (isequal (o2, opt));
%!   G = rand_like (P, opt.scaler.scale);
%!   G.V = single (G.V);
%!   [Qa, oa, ia] = muon_step (opt, Q, G);
%!   [Qb, ob, ib] = muon_step (o2, Q, G);
%!   assert (ia.applied);
%!   assert (isequal (Qa, Qb) && isequal (oa, ob) && isequal (ia, ib));
%!   assert (class (Qb.V), "single");
%!   ## StatePrecision: each buffer rounded once, against rounding by hand
%!   bf = @(x) double (typecast (bitshift (bitshift (typecast (single (x), "uint32")
%!         + uint32 (32767) + bitand (bitshift (typecast (single (x), "uint32"), -16),
%!         uint32 (1)), -16), 16), "single"));
%!   for prec = {"single", "bf16", "fp16"}
%!     o3 = muon_load_state (f, Q, "StatePrecision", prec{1});
%!     for n = {"W", "V"}
%!       m = opt.muon.(n{1}).momentum;
%!       switch (prec{1})
%!         case "single", r = double (single (m));
%!         case "bf16",   r = bf (m);
%!         case "fp16",   r = double (ref_round (m, "fp16"));
%!       endswitch
%!       assert (o3.muon.(n{1}).momentum, cast (reshape (r, size (m)), class (m)));
%!       assert (isequal (r, double (m)), strcmp (prec{1}, "single") && isa (m, "single"));
%!     endfor
%!     assert (o3.adam.b.m, reshape (feval (ifelse_fn (prec{1}, bf), opt.adam.b.m), 10, 1));
%!     assert (o3.adam.b.v, reshape (feval (ifelse_fn (prec{1}, bf), opt.adam.b.v), 10, 1));
%!     assert (o3.accum, opt.accum);
%!   endfor
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!test
%! ## a different parameter set or an unknown version is refused
%! P = struct ("W", randn (4, 3), "b", randn (4, 1));
%! f = [tempname() ".bin"];
%! unwind_protect
%!   muon_save_state (f, muon_optimizer (P));
%!   fail ("muon_load_state (f, struct ('W', randn (4, 3)))", "lacks the saved parameter 'b'");
%!   fail ("muon_load_state (f, setfield (P, 'W', randn (3, 4)))", "PARAMS.W is 3 x 4");
%!   fid = fopen (f, "r+");
%!   fseek (fid, 8, SEEK_SET);
%!   fwrite (fid, 99, "uint32", 0, "ieee-le");     # the format version field
%!   fclose (fid);
%!   try
%!     muon_load_state (f, P);
%!     error ("no error");
%!   catch err
%!     assert (err.identifier, "muonlab:badState");
%!     assert (! isempty (strfind (err.message, "version 99")));
%!   end_try_catch
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

## ---------------------------------------------------------------- vectors routed to Muon
%!test
%! ## a 1 x 8 and an 8 x 1 weight (a value head and its transpose) sent to Muon by Route,
%! ## as torch.optim.Muon and DeepSpeed take any 2-D tensor: one step from zero momentum is
%! ## p (1 - lr wd) - lr scale O, O = s_5 X / ||X||, X = (1 - beta^2) g, s_5 Keller's triple
%! ## applied 5 times to ||X|| / (||X|| + 1e-7) (one singular value), scale the peers' of
%! ## r x c: torch "original" sqrt (max (1, r/c)), Moonlight / torch "match_rms_adamw"
%! ## 0.2 sqrt (max (r, c)), EO "spectral" sqrt (max (r, c)), Scion / torch
%! ## "spectral_unclamped" sqrt (r/c) (MUON_FACTS 5, 6.3), times ScaleFactor
%! g = [0.3 -1.2 0.7 2.1 -0.4 0.9 -1.6 0.05];
%! p = [1 -2 0.5 0.25 -1 2 0.75 -0.5];
%! X = (1 - 0.95^2) * g;
%! O = ref_vec_ns (X);
%! sc = struct ("keller", [1 sqrt(8)], "rms", 0.2 * sqrt ([8 8]), "spectral", sqrt ([8 8]),
%!              "unit_rms", sqrt ([1/8 8]), "none", [1 1]);
%! for r = fieldnames (sc).'
%!   P = struct ("h", p, "v", p.', "b", p.');
%!   opt = muon_optimizer (P, "LR", 0.02, "WeightDecay", 0.1, "Scale", r{1},
%!                         "ScaleFactor", 1.5, "Route", struct ("h", "muon", "v", "muon"));
%!   assert ({opt.route.h, opt.route.v, opt.route.b}, {"muon", "muon", "adamw"});
%!   [Q, opt] = muon_step (opt, P, struct ("h", g, "v", g.', "b", g.'));
%!   k = sc.(r{1}) * 1.5;
%!   assert (Q.h, p * (1 - 0.002) - 0.02 * k(1) * O, 1e-15);
%!   assert (Q.v, p.' * (1 - 0.002) - 0.02 * k(2) * O.', 1e-15);
%!   assert (opt.muon.h.momentum, 0.05 * g, eps);
%! endfor
%! ## single, torch's fused apply: O from the core, scale as above (one fma a element)
%! P = struct ("v", single (p.'));
%! opt = muon_optimizer (P, "LR", 0.02, "WeightDecay", 0.1, "MomentumArith", "torch",
%!                       "Route", struct ("v", "muon"));
%! Q = muon_step (opt, P, struct ("v", single (g.')));
%! assert (double (Q.v), p.' * (1 - 0.002) - 0.02 * sqrt (8) * O.', 1e-6);
%! ## a checkpoint of it round-trips: a step after save / load equals one without
%! P = struct ("v", p.', "W", reshape (sin (1:12), 3, 4));
%! opt = muon_optimizer (P, "Route", struct ("v", "muon"));
%! G = struct ("v", g.', "W", reshape (cos (1:12), 3, 4));
%! [P, opt] = muon_step (opt, P, G);
%! f = [tempname() ".ckpt"];
%! unwind_protect
%!   muon_save_state (f, opt);
%!   o2 = muon_load_state (f, P);
%! unwind_protect_cleanup
%!   delete (f);
%! end_unwind_protect
%! assert (isequal (muon_step (o2, P, G), muon_step (opt, P, G)));
