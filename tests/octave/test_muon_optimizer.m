## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_muon_optimizer ()
## @code{muon_optimizer}'s routing and settings, beside the tests of its arguments at the
## end of inst/muon_optimizer.m: a fused model's experts and blocks (each block's update
## that of the block alone), the default routes by name and shape, the settings and the
## dynamic loss scaler as the state holds them, every muon_update option and the presets
## reaching each Muon parameter, a 5-D parameter on AdamW (AdamW's first step in closed
## form), and settings edited to single (the step stays in double, bit for bit).
## @end deftypefn

function test_muon_optimizer ()
  help test_muon_optimizer
endfunction

%!shared P
%! randn ("state", 1);
%! P = struct ("W1", randn (6, 4), "b1", randn (6, 1), "embed_tok", randn (10, 4),
%!             "LM_Head", randn (3, 6), "row", randn (1, 5), "W3", randn (4, 5, 2));


%!test
%! ## a fused model: Newton-Schulz per expert and per fused block (M.params.experts, .split),
%! ## each block's update that of the block alone (its own shape's scale)
%! cfg = struct ("model_type", "mixtral", "vocab_size", 40, "hidden_size", 16,
%!             "intermediate_size", 24, "num_hidden_layers", 1, "num_attention_heads", 2,
%!             "num_key_value_heads", 1, "num_local_experts", 3, "num_experts_per_tok", 2);
%! Mm = muon_model (cfg, "Experts", "fused", "Fuse", "all");
%! Tm = Mm.params;
%! [opt, Pm] = muon_optimizer (Mm);
%! randn ("state", 1);
%! Gm = structfun (@(p) randn (size (p)), Pm, "UniformOutput", false);
%! Q2 = muon_step (opt, Pm, Gm);
%! seen = 0;
%! for k = find (Tm.experts(:).' > 1 | ! cellfun (@isempty, Tm.split(:).'))
%!   f = Tm.field{k};
%!   Um = (Pm.(f) - Q2.(f)) / opt.muon_lr;
%!   e = rows (Um) / Tm.experts(k);
%!   sp = Tm.split{k};
%!   if (isempty (sp))
%!     sp = e;
%!   endif
%!   starts = (0:Tm.experts(k)-1) * e;
%!   for s0 = starts
%!     r0 = s0;
%!     for b = sp(:).'
%!       r = r0 + (1:b);
%!       assert (Um(r,:), muon_update (Gm.(f)(r,:), []), 1e-13);
%!       r0 += b;
%!       seen++;
%!     endfor
%!   endfor
%! endfor
%! assert (seen, 3 + 3 * 2 + 3);         # qkv: 3 blocks; gate_up: 3 experts x 2; down: 3
%! ## struct (M) is the same model: the same parameters, blocks and step
%! [opts, Ps] = muon_optimizer (struct (Mm));
%! assert (Ps, Pm);
%! assert (muon_step (opts, Ps, Gm), Q2);
%! ## an edited struct (M) that is no model's: a clear error naming the column
%! S = struct (Mm);
%! S.params.rows = num2cell (S.params.rows);
%! fail ("muon_optimizer (S)", "muon_optimizer: M is not a model from muon_model: its params.rows must be a positive integer per parameter.");
%! S = struct (Mm);
%! S.params.split = zeros (size (S.params.rows));
%! fail ("zero_layout (S, 2)", "zero_layout: M is not a model from muon_model: its params.split must be a cell of \\[\\] or positive row counts per parameter.");
%! ## a struct (M) without its params table, or a column of it: the same kind of message
%! ## in the three functions that take a model
%! S = struct (Mm);
%! S.params = rmfield (S.params, "rows");
%! for f = {"muon_optimizer (S)", "zero_layout (S, 8)", "zero_cost (S, 8)"}
%!   fail (f{1}, ["^" strtok(f{1}) ": M is not a model from muon_model: its params\\.rows is missing\\.$"]);
%! endfor
%! S = rmfield (struct (Mm), "params");
%! for f = {"muon_optimizer (S)", "zero_layout (S, 8)", "zero_cost (S, 8)"}
%!   fail (f{1}, ["^" strtok(f{1}) ": M is not a model from muon_model: it has no params table\\.$"]);
%! endfor
%! S = struct (Mm);
%! S.params = 1;
%! fail ("zero_cost (S, 8)", "^zero_cost: M is not a model from muon_model: its params must be a scalar struct of columns\\.$");
%! ## a parameter's own Experts (or SplitRows) replaces the model's blocks
%! f = Tm.field{find (Tm.experts > 1, 1)};
%! [opt1, P1] = muon_optimizer (Mm, "ParamOptions", struct (f, {{"Experts", 1}}));
%! Q1 = muon_step (opt1, P1, Gm);
%! assert ((P1.(f) - Q1.(f)) / opt1.muon_lr, muon_update (Gm.(f), []), 1e-13);

%!test
%! opt = muon_optimizer (P);
%! assert (opt.route, struct ("W1", "muon", "b1", "adamw", "embed_tok", "adamw",
%!                            "LM_Head", "adamw", "row", "adamw", "W3", "muon"));
%! assert ([opt.muon_lr opt.adam_lr opt.muon_wd opt.adam_wd], [0.02 3e-4 0 0]);
%! assert (opt.adam_betas, [0.9 0.95]);
%! assert (opt.adam_eps, 1e-10);
%! assert (opt.clip_policy, "none");
%! assert (opt.scaler.enabled, false);
%! assert (opt.adam.b1.m, zeros (6, 1));
%! assert (isempty (opt.muon.W1));

%!test
%! opt = muon_optimizer (P, "LR", 0.1, "AdamLR", 0.01, "weightdecay", 0.2,
%!                       "AdamWeightDecay", 0);
%! assert ([opt.muon_lr opt.adam_lr opt.muon_wd opt.adam_wd], [0.1 0.01 0.2 0]);
%! opt = muon_optimizer (P, "Route", struct ("W1", "adamw", "embed_tok", true));
%! assert ({opt.route.W1, opt.route.embed_tok}, {"adamw", "muon"});
%! opt = muon_optimizer (P, "Route", {"LM_Head", "MUON"});
%! assert (opt.route.LM_Head, "muon");

%!test
%! opt = muon_optimizer (P, "LossScaler", "dynamic");
%! assert ([opt.scaler.scale opt.scaler.growth_interval opt.scaler.backoff ...
%!          opt.scaler.growth opt.scaler.min_scale], [65536 2000 0.5 2 1]);
%! opt = muon_optimizer (P, "LossScaler", struct ("initscale", 8, "GrowthInterval", 3));
%! assert ([opt.scaler.scale opt.scaler.growth_interval], [8 3]);
%! assert (opt.scaler.enabled);

%!test
%! opt = muon_optimizer (P, "Method", "gram", "Beta", 0.9, "Eps", 0,
%!                       "ParamOptions", struct ("W1", {{"Experts", 2}}));
%! assert (opt.update_args.W1, {"Method", "gram", "Beta", 0.9, "Eps", 0, "Experts", 2});

%!test
%! ## every muon_update option is accepted, Gemm and Threads included
%! opt = muon_optimizer (P, "Gemm", "openblas", "Threads", 1);
%! assert (opt.update_args.W1, {"Gemm", "openblas", "Threads", 1});
%! [~, opt] = muon_step (opt, P, P);
%! assert (opt.step, 1);

%!test
%! ## the presets, one line each; a preset reaches every Muon parameter's update
%! L = muon_optimizer ("presets");
%! assert (size (L), [11 2]);
%! assert (L(:,1).', {"keller", "normuon_zichongli5", "normuon_dion", "normuon_eo", ...
%!                    "adamuon_official", "adamuon_eo", "namo_eo", "polargrad_eo", ...
%!                    "scion_eo", "dion_reference", "dion2"});
%! assert (all (cellfun (@ischar, L(:,2))));
%! Q = rmfield (P, "W3");                     # the family takes 2-D matrices
%! opt = muon_optimizer (Q, "Preset", "normuon_dion", "Beta", 0.9);
%! assert (opt.update_args.W1, {"Preset", "normuon_dion", "Beta", 0.9});
%! [~, opt] = muon_step (opt, Q, Q);
%! assert (opt.muon.W1.family.algorithm, "normuon");
%! assert (opt.muon.W1.momentum, Q.W1);        # M = mu M + G from zero

%!test
%! ## a 5-D parameter goes to AdamW (muon_update takes at most 4 dimensions), and steps
%! P5 = struct ("C5", reshape (1:96, 4, 3, 2, 2, 2) / 96, "W", magic (4) / 16);
%! o = muon_optimizer (P5);
%! assert ({o.route.C5, o.route.W}, {"adamw", "muon"});
%! G5 = struct ("C5", ones (4, 3, 2, 2, 2), "W", ones (4));
%! [Q, o] = muon_step (o, P5, G5);
%! ## AdamW's first step on a gradient of ones: mhat = vhat = 1, a step of lr / (1 + eps)
%! assert (Q.C5, P5.C5 * (1 - o.adam_lr * o.adam_wd) - o.adam_lr / (1 + o.adam_eps), 1e-15);
%!test
%! ## a setting edited to single between steps: the step stays in double, bit for bit that
%! ## of the same value in double, and the state it stores can step again and be saved
%! randn ("state", 5);
%! P0 = struct ("W", randn (8, 6), "b", randn (8, 1));
%! G = struct ("W", randn (8, 6), "b", randn (8, 1));
%! a = muon_optimizer (P0);
%! b = a;
%! a.muon_lr = double (single (0.1));  a.adam_lr = double (single (0.01));
%! a.adam_betas = double (single ([0.9 0.95]));
%! b.muon_lr = single (0.1);  b.adam_lr = single (0.01);  b.adam_betas = single ([0.9 0.95]);
%! [Pa, a] = muon_step (a, P0, G);
%! [Pb, b] = muon_step (b, P0, G);
%! assert (isequal (Pa, Pb) && isa (Pb.W, "double") && isa (b.adam.b.m, "double"));
%! assert (Pa.W, P0.W - double (single (0.1)) * muon_update (G.W, []), 0);
%! assert (isequal (muon_step (a, Pa, G), muon_step (b, Pb, G)));
%! s = muon_optimizer (P0, "LossScaler", "dynamic");
%! s.scaler.scale = single (1024);
%! [~, s] = muon_step (s, P0, struct ("W", 1024 * G.W, "b", 1024 * G.b));
%! assert (isa (s.muon.W.momentum, "double") && isa (s.scaler.scale, "double"));
