## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## gateway_sections.m - the sections of the valgrind layer's session (gateways.m sources
## this script after its helpers attempt, ok, bad and outs): one function per MEX gateway,
## sec_<gateway> (), which calls it directly on tiny inputs (the success paths, every
## output count, too few and too many inputs, every error path) and returns the list of
## what went wrong, empty when nothing did.

1;

function fails = sec_muon_ns ()
  f = @__muon_ns__;
  G = reshape (1:12, 4, 3) / 7 + eye (4, 3);
  fails = {};
  fails = outs (fails, "double", 2, f, G, struct ());
  fails = ok (fails, "single bf16 gram", 1, f, single (G), struct ("precision", "bf16", "method", "gram"));
  fails = ok (fails, "batch fp16", 1, f, cat (3, G, 2 * G), struct ("precision", "fp16"));
  fails = ok (fails, "K x 3 coeffs, cycle", 1, f, G', struct ("coeffs", [3 -3 1; 2 -1.5 0.5], "steps", 3, "schedule_mode", "cycle"));
  fails = ok (fails, "restarts, threads", 1, f, G, struct ("method", "gram", "restarts", [1 2], "threads", 1));
  fails = ok (fails, "fused bf16 standard", 1, f, G, struct ("precision", "bf16", "fused", 1));
  fails = ok (fails, "fused fp16 gram", 1, f, G', struct ("precision", "fp16", "method", "gram", "fused", 1));
  fails = bad (fails, "fused 2 (core)", "muonlab:badArg", 1, f, G, struct ("fused", 2));
  fails = bad (fails, "no input", "muonlab:badArg", 1, f);
  fails = bad (fails, "three inputs", "muonlab:badArg", 1, f, G, struct (), 1);
  fails = bad (fails, "int32 G", "muonlab:badType", 1, f, int32 (G), struct ());
  fails = bad (fails, "complex G", "muonlab:badType", 1, f, complex (G), struct ());
  fails = bad (fails, "sparse G", "muonlab:badType", 1, f, sparse (G), struct ());
  fails = bad (fails, "cell G", "muonlab:badType", 1, f, {G}, struct ());
  fails = bad (fails, "empty G", "muonlab:badShape", 1, f, zeros (0, 3), struct ());
  fails = bad (fails, "4-D G", "muonlab:badShape", 1, f, ones (2, 2, 2, 2), struct ());
  fails = bad (fails, "OPTS not a struct", "muonlab:badType", 1, f, G, 3);
  fails = bad (fails, "method 3", "muonlab:badType", 1, f, G, struct ("method", 3));
  fails = bad (fails, "method 'x'", "muonlab:badArg", 1, f, G, struct ("method", "x"));
  fails = bad (fails, "long string option", "muonlab:badType", 1, f, G, struct ("precision", repmat ("a", 1, 200)));
  fails = bad (fails, "precision 'x'", "muonlab:badArg", 1, f, G, struct ("precision", "x"));
  fails = bad (fails, "schedule_mode 'x'", "muonlab:badArg", 1, f, G, struct ("schedule_mode", "x"));
  fails = bad (fails, "device 'x'", "muonlab:badArg", 1, f, G, struct ("device", "x"));
  fails = bad (fails, "gemm 'x'", "muonlab:badArg", 1, f, G, struct ("gemm", "x"));
  fails = bad (fails, "steps 1.5", "muonlab:badArg", 1, f, G, struct ("steps", 1.5));
  fails = bad (fails, "steps NaN", "", 1, f, G, struct ("steps", NaN));
  fails = bad (fails, "steps [1 2]", "muonlab:badShape", 1, f, G, struct ("steps", [1 2]));
  fails = bad (fails, "steps 'a'", "muonlab:badType", 1, f, G, struct ("steps", "a"));
  fails = bad (fails, "restarts too many", "muonlab:badArg", 1, f, G, struct ("restarts", 1:100));
  fails = bad (fails, "restarts NaN", "", 1, f, G, struct ("restarts", NaN));
  fails = bad (fails, "restarts single", "muonlab:badType", 1, f, G, struct ("restarts", single (1)));
  fails = bad (fails, "coeffs K x 2", "muonlab:badShape", 1, f, G, struct ("coeffs", ones (2, 2)));
  fails = bad (fails, "coeffs Inf (core)", "muonlab:badArg", 1, f, G, struct ("coeffs", [Inf 1 1]));
  fails = bad (fails, "steps 0 (core)", "muonlab:badArg", 1, f, G, struct ("steps", -1));
  fails = bad (fails, "eps -1 (core)", "muonlab:badArg", 1, f, G, struct ("eps", -1));
  fails = bad (fails, "threads 1e6 (core)", "muonlab:badArg", 1, f, G, struct ("threads", 1e6));
endfunction

function fails = sec_muon_update ()
  f = @__muon_update__;
  G = reshape (1:24, 6, 4) / 11 + eye (6, 4);
  fails = {};
  fails = outs (fails, "double, M []", 2, f, G, [], struct ());
  fails = ok (fails, "single with M", 2, f, single (G), single (G / 2), struct ("beta", 0.9, "nesterov", 0, "form", "sgd", "scale", "rms"));
  fails = ok (fails, "experts", 2, f, G, [], struct ("experts", 2, "scale", "spectral"));
  fails = ok (fails, "split rows", 2, f, G, [], struct ("split_rows", [2 4], "scale_rows", 6, "scale_cols", 4));
  fails = bad (fails, "two inputs", "muonlab:badArg", 2, f, G, []);
  fails = bad (fails, "char G", "muonlab:badType", 2, f, "abc", [], struct ());
  fails = bad (fails, "logical M", "muonlab:badType", 2, f, G, true (size (G)), struct ());
  fails = bad (fails, "sparse M", "muonlab:badType", 2, f, G, sparse (G), struct ());
  fails = bad (fails, "M of another size", "muonlab:badShape", 2, f, G, ones (2), struct ());
  fails = bad (fails, "M 4-D", "muonlab:badShape", 2, f, G, ones (2, 2, 2, 2), struct ());
  fails = bad (fails, "OPTS a cell", "muonlab:badType", 2, f, G, [], {});
  fails = bad (fails, "form 'x'", "muonlab:badArg", 2, f, G, [], struct ("form", "x"));
  fails = bad (fails, "scale 'x'", "muonlab:badArg", 2, f, G, [], struct ("scale", "x"));
  fails = bad (fails, "scale_rows -1", "muonlab:badArg", 2, f, G, [], struct ("scale_rows", -1));
  fails = bad (fails, "experts 4", "muonlab:badShape", 2, f, G, [], struct ("experts", 4));
  fails = bad (fails, "experts on a batch", "muonlab:badShape", 2, f, cat (3, G, G), [], struct ("experts", 2));
  fails = bad (fails, "split_rows 0", "muonlab:badArg", 2, f, G, [], struct ("split_rows", [0 6]));
  fails = bad (fails, "split_rows sum (core)", "muonlab:badShape", 2, f, G, [], struct ("split_rows", [2 2]));
  fails = bad (fails, "beta 2 (core)", "muonlab:badArg", 2, f, G, [], struct ("beta", 2));
  fails = bad (fails, "nesterov 3 (core)", "muonlab:badArg", 2, f, G, [], struct ("nesterov", 3));
  fails = bad (fails, "scale_rows only (core)", "muonlab:badArg", 2, f, G, [], struct ("scale_rows", 3));
  fails = bad (fails, "ns option (core)", "muonlab:badArg", 2, f, G, [], struct ("steps", -2));
endfunction

function fails = sec_muon_gpu ()
  ## device arrays on the CPU stand-in (the CUDA back end is never loaded here)
  f = @__muon_gpu__;
  G = reshape (1:24, 6, 4) / 11 + eye (6, 4);
  fails = {};
  h = f ("upload", G, "cpu", "single");
  hb = f ("upload", G, "cpu", "bf16");
  fails = ok (fails, "gather", 1, f, "gather", h);
  fails = ok (fails, "fill randn", 1, f, "fill", "randn", [6 4 2], "cpu", "double", 3);
  fails = outs (fails, "ns", 2, f, "ns", h, struct ("precision", "single"));
  fails = ok (fails, "ns bf16", 2, f, "ns", hb, struct ("precision", "bf16"));
  fails = ok (fails, "update, M []", 3, f, "update", h, [], struct (), 2);
  fails = ok (fails, "update with M", 3, f, "update", hb, hb, struct ("split_rows", [2 4]), 1);
  fails = ok (fails, "adamw", 3, f, "adamw", h, f ("upload", G, "cpu", "single"),
              f ("upload", G, "cpu", "single"), f ("upload", G, "cpu", "single"), 1:7);
  fails = ok (fails, "ew add", 1, f, "ew", "add", h, h, []);
  fails = ok (fails, "ew div bf16", 1, f, "ew", "div", hb, [], 3);
  fails = ok (fails, "sumsq", 2, f, "sumsq", h, []);
  fails = ok (fails, "sumsq of a difference", 2, f, "sumsq", hb, hb);
  fails = ok (fails, "page_sumsq", 2, f, "page_sumsq", f ("upload", cat (3, G, -G), "cpu", "fp16"));
  fails = ok (fails, "trim", 2, f, "trim", "cpu");
  fails = ok (fails, "count", 1, f, "count");
  fails = bad (fails, "no command", "muonlab:badArg", 1, f);
  fails = bad (fails, "command 'x'", "muonlab:badArg", 1, f, "x");
  fails = bad (fails, "device 'tpu'", "muonlab:badArg", 1, f, "upload", G, "tpu", "single");
  fails = bad (fails, "class 'int8'", "muonlab:badArg", 1, f, "upload", G, "cpu", "int8");
  fails = bad (fails, "NaN", "muonlab:nonFinite", 1, f, "upload", [1 NaN], "cpu", "single");
  fails = bad (fails, "huge", "muonlab:outOfMemory", 1, f, "fill", "zeros", [1e6 1e6 1e3], "cpu", "double", 0);
  fails = bad (fails, "seed -1", "muonlab:badArg", 1, f, "fill", "randn", [2 2], "cpu", "single", -1);
  fails = bad (fails, "no handle", "muonlab:badArg", 1, f, "gather", "x");
  fails = bad (fails, "stale handle", "muonlab:staleHandle", 1, f, "gather", [1 1]);
  fails = bad (fails, "update shapes", "muonlab:badShape", 3, f, "update", h, f ("upload", ones (2), "cpu", "single"), struct (), 1);
  fails = bad (fails, "update experts 4", "muonlab:badShape", 3, f, "update", h, [], struct (), 4);
  fails = bad (fails, "adamw class", "muonlab:badType", 3, f, "adamw", h, hb, h, h, 1:7);
  fails = bad (fails, "adamw coef", "muonlab:badArg", 3, f, "adamw", h, h, h, h, 1:6);
  fails = bad (fails, "ew op 'pow'", "muonlab:badArg", 1, f, "ew", "pow", h, h, []);
  fails = bad (fails, "ew classes", "muonlab:badType", 1, f, "ew", "sub", h, hb, []);
  fails = bad (fails, "ew shapes", "muonlab:badShape", 1, f, "ew", "add", h, f ("upload", ones (2), "cpu", "single"), []);
  fails = bad (fails, "ew scalar", "muonlab:badArg", 1, f, "ew", "mul", h, [], [1 2]);
  fails = bad (fails, "sumsq classes", "muonlab:badType", 2, f, "sumsq", h, hb);
  fails = bad (fails, "page_sumsq no handle", "muonlab:badArg", 2, f, "page_sumsq", "x");
  fails = bad (fails, "adamw sparse coef", "muonlab:badArg", 3, f, "adamw", h, h, h, h, sparse (1:7));
  ## the ZeRO step on device arrays: two simulated ranks, then from its momenta, then errors
  S = [4 3; 2 5];
  lo = struct ("stage", 1, "align_factor", 2, "order", "given");
  hg = cell (2, 2);
  for k = 1:4
    [~, p] = ind2sub ([2 2], k);
    hg{k} = f ("upload", reshape (mod ((1:prod (S(p,:))) * (k + 2), 7), S(p,:)) - 3, "cpu",
               "double");
  endfor
  for v = setdiff (__muon_lists__ ().lists.zero_variant, {"zero3_round_robin_aliased_pads"})
    fails = ok (fails, ["zero_step " v{1}], 4, f, "zero_step", S, 2, lo, hg, [],
                struct ("variant", v{1}), "sim");
  endfor
  try
    [~, hm] = f ("zero_step", S, 2, lo, hg, [], struct ("variant", "reference"), "sim");
    fails = ok (fails, "zero_step from its momenta", 4, f, "zero_step", S, 2, lo, hg, hm,
                struct ("variant", "reference"), "sim");
  catch err
    fails{end+1} = sprintf ("zero_step, first step: %s", err.message);
  end_try_catch
  fails = bad (fails, "zero_step aliased pads", "muonlab:badShape", 4, f, "zero_step", S, 2,
               lo, hg, [], struct ("variant", "zero3_round_robin_aliased_pads"), "sim");
  fails = bad (fails, "zero_step GRADS shape", "muonlab:badShape", 4, f, "zero_step", S, 2, lo,
               hg(1,:), [], struct (), "sim");
  fails = bad (fails, "zero_step class", "muonlab:badType", 4, f, "zero_step", S, 2, lo,
               [hg(:,1), {h; h}], [], struct (), "sim");
  fails = bad (fails, "zero_step momenta", "muonlab:badState", 4, f, "zero_step", S, 2, lo, hg,
               {h; h}, struct (), "sim");
  fails = bad (fails, "zero_step stale", "muonlab:staleHandle", 4, f, "zero_step", S, 2, lo,
               [hg(:,1), {[1 1]; [1 1]}], [], struct (), "sim");
  fails = bad (fails, "zero_step arguments", "muonlab:badArg", 4, f, "zero_step", S, 2, lo);
  f ("free", h);
  f ("free", [1 1]);
  f ("reset");
  fails = bad (fails, "after reset", "muonlab:staleHandle", 1, f, "gather", hb);
endfunction

function fails = sec_muon_coeffs ()
  f = @__muon_coeffs__;
  fails = {};
  fails = outs (fails, "keller", 1, f, "keller");
  fails = ok (fails, "polar_express", 1, f, "polar_express");
  fails = outs (fails, "the table", 2, f);
  fails = bad (fails, "two inputs", "muonlab:badArg", 1, f, "keller", "keller");
  fails = bad (fails, "numeric name", "muonlab:badArg", 1, f, 3);
  fails = bad (fails, "long name", "muonlab:badArg", 1, f, repmat ("k", 1, 300));
  fails = bad (fails, "unknown name (core)", "", 1, f, "nope");
endfunction

function fails = sec_muon_ns_flops ()
  f = @__muon_ns_flops__;
  fails = {};
  fails = outs (fails, "5 steps, restart 2", 1, f, 5, 1, 5, 2, 0);
  fails = ok (fails, "arrays, symmetric", 1, f, [1 2; 3 4], 2, 3, [0 1 9], 1);
  fails = bad (fails, "four inputs", "muonlab:badArg", 1, f, 5, 1, 5, 2);
  fails = bad (fails, "sizes differ", "muonlab:badShape", 1, f, [1 2], [1 2 3], 5, 2, 0);
  fails = bad (fails, "M 0", "muonlab:badArg", 1, f, 0, 1, 5, 2, 0);
  fails = bad (fails, "N single", "muonlab:badArg", 1, f, 1, single (2), 5, 2, 0);
  fails = bad (fails, "steps 0", "muonlab:badArg", 1, f, 5, 1, 0, 2, 0);
  fails = bad (fails, "restart -1", "muonlab:badArg", 1, f, 5, 1, 5, -1, 0);
  fails = ok (fails, "restart 1e300 (never reached)", 1, f, 5, 1, 5, 1e300, 0);
  fails = bad (fails, "symmetric 2", "muonlab:badArg", 1, f, 5, 1, 5, 2, 2);
endfunction

function fails = sec_muon_lists ()
  f = @__muon_lists__;
  fails = {};
  fails = outs (fails, "the lists", 1, f);
  fails = bad (fails, "an input", "muonlab:badArg", 1, f, 1);
endfunction

function fails = sec_zero_cost ()
  f = @__muon_zero_cost__;
  fails = {};
  fails = outs (fails, "the names", 2, f);
  o = struct ("design", "zero12_allreduce", "stage", 2, "align_factor", 2,
              "order", "given", "pad_count", "deepspeed", "elem_bytes", 2, "symmetric", 0,
              "method", "standard", "steps", 5, "precision", "bf16");
  S = [4 6; 6 4];
  fails = ok (fails, "a plan", 1, f, S, [1; 1], {[], []}, 2, o);
  fails = bad (fails, "shapes not P x 2", "", 1, f, [4 6 2], [1], {[]}, 2, o);
  fails = bad (fails, "world 0", "", 1, f, S, [1; 1], {[], []}, 0, o);
  fails = bad (fails, "unknown design", "", 1, f, S, [1; 1], {[], []}, 2,
               setfield (o, "design", "nope"));
endfunction

function fails = sec_muon_info ()
  f = @__muon_info__;
  fails = {};
  fails = outs (fails, "info", 1, f);
  fails = bad (fails, "an input", "muonlab:badArg", 1, f, 1);
endfunction

function fails = sec_muon_blas_threads ()
  f = @__muon_blas_threads__;
  fails = {};
  fails = outs (fails, "query", 1, f, 0);
  fails = ok (fails, "set 1", 1, f, 1);
  fails = bad (fails, "no input", "muonlab:badArg", 1, f);
  fails = bad (fails, "char", "muonlab:badArg", 1, f, "a");
  fails = bad (fails, "vector", "muonlab:badArg", 1, f, [1 2]);
  fails = bad (fails, "negative", "muonlab:badArg", 1, f, -1);
  fails = bad (fails, "NaN", "muonlab:badArg", 1, f, NaN);
  fails = bad (fails, "huge", "muonlab:badArg", 1, f, 1e10);
endfunction

function fails = sec_muon_fma ()
  f = @__muon_fma__;
  fails = {};
  fails = outs (fails, "single", 1, f, 0.5, single (magic (4)), single (ones (4)));
  fails = ok (fails, "double", 1, f, -0.25, magic (3), ones (3));
  fails = ok (fails, "empty", 1, f, 1, zeros (0, 3), zeros (0, 3));
  fails = bad (fails, "no input", "muonlab:badArg", 1, f);
  fails = bad (fails, "vector A", "muonlab:badArg", 1, f, [1 2], ones (2), ones (2));
  fails = bad (fails, "classes", "muonlab:badArg", 1, f, 1, ones (2), single (ones (2)));
  fails = bad (fails, "int", "muonlab:badArg", 1, f, 1, int8 (ones (2)), int8 (ones (2)));
  fails = bad (fails, "sizes", "muonlab:badShape", 1, f, 1, ones (2), ones (2, 3));
endfunction

## muon_mex_new_array's two ways: mxCreate below 256 KiB, Octave's own zeros above (700 KiB)
function fails = sec_muon_copy_out ()
  f = @__muon_copy_out__;
  fails = {};
  fails = outs (fails, "small, octave", 1, f, magic (4), "octave");
  fails = ok (fails, "large double, octave", 1, f, ones (300), "octave");
  fails = ok (fails, "large single 3-D, octave", 1, f, ones (64, 64, 24, "single"), "octave");
  fails = ok (fails, "large, mx", 1, f, ones (300), "mx");
  r = attempt (0, @(x) assert (isequal (f (x, "octave"), x)), {reshape(1:90000, 300, 300)});
  if (! r.ok)
    fails{end+1} = sprintf ("large copy: %s", r.msg);
  endif
  fails = bad (fails, "int8", "muonlab:badArg", 1, f, int8 (1), "mx");
  fails = bad (fails, "HOW other", "muonlab:badArg", 1, f, 1, "other");
  fails = bad (fails, "one input", "muonlab:badArg", 1, f, 1);
endfunction

function fails = sec_zero_layout ()
  f = @__muon_zero_layout__;
  S = [4 3; 2 5; 3 3];
  fails = {};
  fails = outs (fails, "3 params, W = 2", 4, f, S, 2, struct ());
  fails = ok (fails, "stage 3, size_desc", 4, f, S, 4, struct ("stage", 3, "align_factor", 4, "order", "size_desc"));
  fails = bad (fails, "two inputs", "muonlab:badArg", 4, f, S, 2);
  fails = bad (fails, "SHAPES P x 3", "muonlab:badShape", 4, f, ones (2, 3), 2, struct ());
  fails = bad (fails, "SHAPES int32", "muonlab:badShape", 4, f, int32 (S), 2, struct ());
  fails = bad (fails, "SHAPES complex", "muonlab:badShape", 4, f, complex (S), 2, struct ());
  fails = bad (fails, "SHAPES sparse", "muonlab:badShape", 4, f, sparse (S), 2, struct ());
  fails = bad (fails, "SHAPES 3-D", "muonlab:badShape", 4, f, ones (2, 2, 2), 2, struct ());
  fails = bad (fails, "SHAPES negative", "muonlab:badShape", 4, f, -S, 2, struct ());
  fails = bad (fails, "SHAPES fractional", "muonlab:badShape", 4, f, S + 0.5, 2, struct ());
  fails = bad (fails, "SHAPES NaN", "muonlab:badShape", 4, f, [NaN 1], 2, struct ());
  fails = bad (fails, "SHAPES empty (core)", "muonlab:badShape", 4, f, zeros (0, 2), 2, struct ());
  fails = bad (fails, "SHAPES zero rows (core)", "muonlab:badShape", 4, f, [0 2], 2, struct ());
  fails = bad (fails, "WORLD 0", "muonlab:badArg", 4, f, S, 0, struct ());
  fails = bad (fails, "WORLD cell", "muonlab:badArg", 4, f, S, {2}, struct ());
  fails = bad (fails, "WORLD 1.5", "muonlab:badArg", 4, f, S, 1.5, struct ());
  fails = bad (fails, "OPTS []", "muonlab:badType", 4, f, S, 2, []);
  fails = bad (fails, "order 'x'", "muonlab:badArg", 4, f, S, 2, struct ("order", "x"));
  fails = bad (fails, "stage 'a'", "muonlab:badType", 4, f, S, 2, struct ("stage", "a"));
  fails = bad (fails, "stage 5 (core)", "muonlab:badArg", 4, f, S, 2, struct ("stage", 5));
  fails = bad (fails, "align 0 (core)", "muonlab:badArg", 4, f, S, 2, struct ("align_factor", 0));
  fails = bad (fails, "a fourth input", "muonlab:badArg", 2, f, S, 2, struct (), "zero12_allreduce");
endfunction

function fails = sec_zero_muon_step ()
  f = @__muon_zero_step__;
  S = [4 3; 2 5; 3 3];
  W = 2;
  lo = struct ("stage", 1, "align_factor", 2, "order", "given");
  g = cell (W, rows (S));
  for k = 1:numel (g)
    [l, p] = ind2sub (size (g), k);
    g{k} = reshape (mod ((1:prod (S(p,:))) * (k + 2), 7), S(p,1), S(p,2)) - 3 + eye (S(p,:));
  endfor
  o = struct ("variant", "zero12_allreduce");
  fails = {};
  fails = outs (fails, "zero12_allreduce, assembled", 7, f, S, W, lo, g, [], o, "sim", true);
  variants = {"reference", "zero2_reduce_scatter_buggy", "zero2_slice_only", ...
              "zero2_multi_owner", "zero3_round_robin", "layerwise_lpt", "moonlight_gather"};
  for k = 1:numel (variants)
    fails = ok (fails, variants{k}, 5, f, S, W, lo, g, [], struct ("variant", variants{k}), "sim", false);
  endfor
  ## the next step, from the momentum of this one
  r = attempt (2, f, {S, W, lo, g, [], o, "sim", false});
  if (r.ok)
    [~, mom] = f (S, W, lo, g, [], o, "sim", false);
    fails = ok (fails, "second step", 5, f, S, W, lo, g, mom, o, "sim", true);
    bm = mom;
    bm{1} = sparse (numel (mom{1}), 1);     # no stored element: the data is 0 doubles long
    fails = bad (fails, "sparse momentum", "muonlab:badShape", 5, f, S, W, lo, g, bm, o, "sim", true);
    bm{1} = single (mom{1});
    fails = bad (fails, "single momentum", "muonlab:badShape", 5, f, S, W, lo, g, bm, o, "sim", true);
    fails = bad (fails, "momentum of one rank", "muonlab:badShape", 5, f, S, W, lo, g, mom(1), o, "sim", true);
    bm{1} = [mom{1}; 0];
    fails = bad (fails, "momentum one too long", "muonlab:badShape", 5, f, S, W, lo, g, bm, o, "sim", true);
  endif
  fails = ok (fails, "self comm", 5, f, S, 1, lo, g(1,:), [], o, "self", true);
  fails = ok (fails, "comm struct", 5, f, S, W, lo, g, [], o, struct ("kind", "sim", "size", W), true);
  fails = ok (fails, "keller pads", 5, f, [3 3; 3 3], W, lo, g(:,[3 3]), [], struct ("variant", "zero3_round_robin_aliased_pads", "pad_count", "keller"), "sim", true);
  fails = bad (fails, "seven inputs", "muonlab:badArg", 5, f, S, W, lo, g, [], o, "sim");
  ## a layout's plans in the handle table: made, used twice, stale, of other shapes, freed
  h = f ("plan", S, W, lo);
  fails = ok (fails, "with the plan handle", 7, f, S, W, lo, g, [], o, "sim", true, true, [], h);
  fails = ok (fails, "plan handle again", 5, f, S, W, lo, g, [], o, "sim", true, false, [], h);
  fails = ok (fails, "stale plan handle", 5, f, S, W, lo, g, [], o, "sim", true, false, [], [1 2]);
  fails = ok (fails, "plan of other shapes", 5, f, S, 1, lo, g(1,:), [], o, "self", true, false, [], h);
  fails = ok (fails, "holds", 1, f, "holds", h);
  fails = ok (fails, "count", 1, f, "count");
  fails = bad (fails, "plan of bad shapes", "muonlab:badShape", 1, f, "plan", [0 2], W, lo);
  ## the momentum map of a design's plan (the handle's, or one for the call)
  lo0 = struct ("stage", 2, "align_factor", 1, "order", "given");
  fails = outs (fails, "momentum map, W = 2", 2, f, "map", S, 2, lo0, "zero12_allreduce");
  fails = ok (fails, "momentum map, row shards", 2, f, "map", S, 4, lo0, "alltoall_owner");
  fails = ok (fails, "momentum map, stage 3", 2, f, "map", S, 3, setfield (lo0, "stage", 3), "zero3_round_robin");
  fails = ok (fails, "momentum map, the plan's", 2, f, "map", S, W, lo, "zero3_round_robin", h);
  fails = bad (fails, "VARIANT unknown", "muonlab:badArg", 2, f, "map", S, 2, lo0, "zero9");
  fails = bad (fails, "VARIANT numeric", "muonlab:badArg", 2, f, "map", S, 2, lo0, 3);
  fails = bad (fails, "VARIANT long", "muonlab:badArg", 2, f, "map", S, 2, lo0, repmat ("z", 1, 300));
  fails = bad (fails, "map, SHAPES zero rows", "muonlab:badShape", 2, f, "map", [0 2], 2, lo0, "reference");
  ## a skipped step's facts: the options checked against the plan, its owned spans
  fails = outs (fails, "owned spans", 1, f, "owned", S, W, lo, o);
  fails = ok (fails, "owned spans, the plan's", 1, f, "owned", S, W, lo, struct ("variant", "layerwise_lpt"), h);
  fails = ok (fails, "owned spans, no plan", 1, f, "owned", S, 3, lo, struct ("variant", "alltoall_owner"), []);
  fails = bad (fails, "owned, slice-only blocks (core)", "muonlab:badArg", 1, f, "owned", S, W, lo, struct ("variant", "zero2_slice_only", "param_experts", [2 1 1]));
  fails = bad (fails, "owned, OPTS not a struct", "", 1, f, "owned", S, W, lo, 3);
  fails = bad (fails, "owned, variant 'x'", "muonlab:badArg", 1, f, "owned", S, W, lo, struct ("variant", "x"));
  fails = bad (fails, "owned, SHAPES zero rows", "muonlab:badShape", 1, f, "owned", [0 2], W, lo, o);
  fails = outs (fails, "steps", 1, f, "steps");
  fails = bad (fails, "unknown command", "muonlab:badArg", 1, f, "plans", S, W, lo);
  f ("free", h);
  f ("free", h);
  ## the reference in the same call; one momentum every rank shares (1 x 1 cell)
  fails = ok (fails, "with the reference", 7, f, S, W, lo, g, [], o, "sim", true, true, []);
  ref = struct ("variant", "reference");
  fails = ok (fails, "reference, shared momentum", 2, f, S, W, lo, g, {ones(31, 1)}, ref, "sim", true);
  fails = ok (fails, "with the reference's shared momentum", 7, f, S, W, lo, g, [], o, "sim", true, true, {ones(31, 1)});
  fails = bad (fails, "one momentum, not the reference", "muonlab:badShape", 5, f, S, W, lo, g, {ones(31, 1)}, o, "sim", true);
  fails = bad (fails, "twelve inputs", "muonlab:badArg", 5, f, S, W, lo, g, [], o, "sim", true, true, [], [], 1);
  fails = bad (fails, "SHAPES P x 3", "muonlab:badShape", 5, f, ones (3), W, lo, g, [], o, "sim", true);
  fails = bad (fails, "SHAPES fractional", "muonlab:badShape", 5, f, S + 0.5, W, lo, g, [], o, "sim", true);
  fails = bad (fails, "WORLD 0", "muonlab:badArg", 5, f, S, 0, lo, g, [], o, "sim", true);
  fails = bad (fails, "WORLD []", "muonlab:badArg", 5, f, S, [], lo, g, [], o, "sim", true);
  fails = bad (fails, "WORLD cell", "muonlab:badArg", 5, f, S, {2}, lo, g, [], o, "sim", true);
  fails = bad (fails, "LOPTS order 'x'", "muonlab:badArg", 5, f, S, W, struct ("order", "x"), g, [], o, "sim", true);
  fails = bad (fails, "LOPTS stage 7 (core)", "muonlab:badArg", 5, f, S, W, struct ("stage", 7), g, [], o, "sim", true);
  fails = bad (fails, "OPTS 3", "muonlab:badType", 5, f, S, W, lo, g, [], 3, "sim", true);
  fails = bad (fails, "variant 'x'", "muonlab:badArg", 5, f, S, W, lo, g, [], struct ("variant", "x"), "sim", true);
  fails = bad (fails, "pad_count 'x'", "muonlab:badArg", 5, f, S, W, lo, g, [], struct ("pad_count", "x"), "sim", true);
  ## experts and split row blocks per matrix (S = [4 3; 2 5; 3 3])
  ep = struct ("variant", "expert_parallel", "param_experts", [2 1 3], "param_split", {{[1 1], [], []}});
  fails = ok (fails, "expert_parallel, experts and split rows", 5, f, S, W, lo, g, [], ep, "sim", true);
  fails = bad (fails, "experts 3 on 4 rows (core)", "muonlab:badShape", 5, f, S, W, lo, g, [], struct ("param_experts", [3 1 1]), "sim", true);
  fails = bad (fails, "experts of 2 matrices", "muonlab:badShape", 5, f, S, W, lo, g, [], struct ("param_experts", [1 1]), "sim", true);
  fails = bad (fails, "split not a cell", "muonlab:badShape", 5, f, S, W, lo, g, [], struct ("param_split", [1 3]), "sim", true);
  fails = bad (fails, "split 0 rows (core)", "muonlab:badShape", 5, f, S, W, lo, g, [], struct ("param_split", {{[0 4], [], []}}), "sim", true);
  fails = bad (fails, "split summing to 3 (core)", "muonlab:badShape", 5, f, S, W, lo, g, [], struct ("param_split", {{[1 2], [], []}}), "sim", true);
  fails = bad (fails, "slice-only with experts (core)", "muonlab:badArg", 5, f, S, W, lo, g, [], struct ("variant", "zero2_slice_only", "param_experts", [2 1 1]), "sim", true);
  fails = bad (fails, "beta 2 (core)", "muonlab:badArg", 5, f, S, W, lo, g, [], struct ("beta", 2), "sim", true);
  fails = bad (fails, "GRADS 1 x P", "muonlab:badShape", 5, f, S, W, lo, g(1,:), [], o, "sim", true);
  fails = bad (fails, "GRADS not a cell", "muonlab:badShape", 5, f, S, W, lo, 3, [], o, "sim", true);
  gg = g;
  gg{2,2} = single (gg{2,2});
  fails = bad (fails, "single gradient", "muonlab:badShape", 5, f, S, W, lo, gg, [], o, "sim", true);
  gg{2,2} = sparse (g{2,2});
  fails = bad (fails, "sparse gradient", "muonlab:badShape", 5, f, S, W, lo, gg, [], o, "sim", true);
  gg{2,2} = g{2,2}';
  fails = bad (fails, "transposed gradient", "muonlab:badShape", 5, f, S, W, lo, gg, [], o, "sim", true);
  fails = bad (fails, "MOM 3", "muonlab:badShape", 5, f, S, W, lo, g, 3, o, "sim", true);
  ## bad communicators, after the layout and plan exist: freed before the error
  many = [repmat([3 2], 40, 1)];
  gm = repmat ({ones(3, 2)}, W, rows (many));
  fails = bad (fails, "COMM kind 'x'", "muonlab:badArg", 5, f, many, W, lo, gm, [], o, struct ("kind", "x"), true);
  fails = bad (fails, "COMM 3", "muonlab:badArg", 5, f, many, W, lo, gm, [], o, 3, true);
  fails = bad (fails, "COMM without kind", "muonlab:badArg", 5, f, many, W, lo, gm, [], o, struct ("size", 2), true);
  fails = bad (fails, "COMM size 3", "muonlab:badArg", 5, f, many, W, lo, gm, [], o, struct ("kind", "sim", "size", 3), true);
  fails = bad (fails, "COMM self, world 2", "muonlab:badArg", 5, f, many, W, lo, gm, [], o, "self", true);
  fails = bad (fails, "COMM reduction 'mpi' on sim", "muonlab:badArg", 5, f, many, W, lo, gm, [], o, struct ("kind", "sim", "reduction", "mpi"), true);
  ## a round of different sizes fails in the core (DeepSpeed PR 8628)
  fails = bad (fails, "aliased pads (core)", "muonlab:badShape", 5, f, [4 3; 2 5; 3 3], 2, lo, g, [], struct ("variant", "zero3_round_robin_aliased_pads"), "sim", true);
endfunction

function fails = sec_muon_comm ()
  f = @__muon_comm__;
  fails = {};
  fails = outs (fails, "have_mpi", 1, f, "have_mpi");
  fails = outs (fails, "mpi_live", 1, f, "mpi_live");
  fails = ok (fails, "create self", 1, f, "create", "self");
  fails = ok (fails, "create sim", 1, f, "create", struct ("kind", "sim", "size", 3));
  X = {[1 2; 3 4], [5 6; 7 8]};
  sim = struct ("kind", "sim", "size", 2);
  fails = outs (fails, "allreduce", 2, f, "allreduce", sim, X, "sum");
  fails = ok (fails, "allreduce single avg", 2, f, "allreduce", sim, {single([1 2]), single([3 4])}, "avg");
  fails = ok (fails, "reduce_scatter", 2, f, "reduce_scatter", sim, X, "avg");
  fails = ok (fails, "reduce_scatter column", 2, f, "reduce_scatter", sim, {[1;2], [3;4]}, "sum");
  fails = ok (fails, "all_gather", 2, f, "all_gather", sim, X);
  fails = ok (fails, "broadcast", 2, f, "broadcast", sim, X, 1);
  fails = ok (fails, "all_to_all", 2, f, "all_to_all", sim, X);
  fails = bad (fails, "all_to_all odd", "muonlab:badShape", 2, f, "all_to_all", sim, {1:3, 1:3});
  fails = ok (fails, "self allreduce (array)", 2, f, "allreduce", "self", [1 2 3], "sum");
  fails = outs (fails, "barrier", 1, f, "barrier", sim);
  fails = ok (fails, "counters", 1, f, "counters", sim);
  fails = ok (fails, "counters reset", 1, f, "counters", "self", true);
  fails = bad (fails, "no input", "muonlab:badArg", 1, f);
  fails = bad (fails, "numeric command", "muonlab:badArg", 1, f, 3);
  fails = bad (fails, "unknown command", "muonlab:badArg", 1, f, "x", "self");
  fails = bad (fails, "create without spec", "muonlab:badArg", 1, f, "create");
  fails = bad (fails, "create with two specs", "muonlab:badArg", 1, f, "create", "self", "self");
  fails = bad (fails, "abort without message", "muonlab:badArg", 0, f, "abort");
  fails = bad (fails, "abort with a number", "muonlab:badArg", 0, f, "abort", 3);
  fails = bad (fails, "kind 'x'", "muonlab:badArg", 1, f, "create", "x");
  fails = bad (fails, "kind long", "muonlab:badArg", 1, f, "create", repmat ("s", 1, 100));
  fails = bad (fails, "spec 3", "muonlab:badArg", 1, f, "create", 3);
  fails = bad (fails, "spec without kind", "muonlab:badArg", 1, f, "create", struct ("size", 2));
  fails = bad (fails, "sim size 0", "muonlab:badArg", 1, f, "create", struct ("kind", "sim", "size", 0));
  fails = bad (fails, "sim size 1e9", "muonlab:badArg", 1, f, "create", struct ("kind", "sim", "size", 1e9));
  fails = bad (fails, "self size 2", "muonlab:badArg", 1, f, "create", struct ("kind", "self", "size", 2));
  fails = bad (fails, "sim reduction 'mpi'", "muonlab:badArg", 1, f, "create", struct ("kind", "sim", "reduction", "mpi"));
  fails = bad (fails, "too few inputs", "muonlab:badArg", 2, f, "allreduce", sim, X);
  fails = bad (fails, "too many inputs", "muonlab:badArg", 2, f, "all_gather", sim, X, 1);
  fails = bad (fails, "op 'max'", "muonlab:badArg", 2, f, "allreduce", sim, X, "max");
  fails = bad (fails, "op 3", "muonlab:badArg", 2, f, "allreduce", sim, X, 3);
  fails = bad (fails, "root -1", "muonlab:badArg", 2, f, "broadcast", sim, X, -1);
  fails = bad (fails, "root 'a'", "muonlab:badArg", 2, f, "broadcast", sim, X, "a");
  fails = bad (fails, "X one of two", "muonlab:badArg", 2, f, "allreduce", sim, X(1), "sum");
  fails = bad (fails, "X int32", "muonlab:badType", 2, f, "allreduce", sim, {int32(1), int32(2)}, "sum");
  fails = bad (fails, "X sparse", "muonlab:badType", 2, f, "allreduce", sim, {sparse(1), sparse(2)}, "sum");
  fails = bad (fails, "X complex", "muonlab:badType", 2, f, "all_gather", sim, {1i, 2i});
  fails = bad (fails, "X mixed classes", "muonlab:badShape", 2, f, "allreduce", sim, {1, single(2)}, "sum");
  fails = bad (fails, "X mixed sizes", "muonlab:badShape", 2, f, "all_gather", sim, {1, [1 2]});
  fails = bad (fails, "reduce_scatter 3 of 2", "muonlab:badShape", 2, f, "reduce_scatter", sim, {[1 2 3], [4 5 6]}, "sum");
  fails = bad (fails, "root 5 of 2 (core)", "", 2, f, "broadcast", sim, X, 5);
endfunction
