## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_display ()
## Suite (run with @code{test test_display}): what a user gets back from every function of
## inst/, typed at a prompt (@code{evalc ("R")}) and shown (@code{evalc ("disp (R)")}),
## fits in a screen: at most 40 lines for every result, the answer first where it has one
## (zero_cost: the cheapest design; the restart tools' best: the best list; a trace: its
## polar error; muon_info: the back ends).  (Issue 25 measured 438,849 lines for a
## trace, 431,388 for one zero_cost design, and 27 lines of field names and no answer for
## zero_cost's result.)
##
## Outside the bound, each listed here with its reason: the numeric arrays a function
## returns as its answer (muon_ns's X, muon_round, muon_coeffs's matrix,
## ns_design_coeffs), which Octave prints as it prints any matrix; and ns_flops, a plain
## struct of 16 fields of scalars and small matrices that shows in at most 60 lines.  The
## states handed back to the next call (muon_update's state, the optimizer of
## muon_optimizer and muon_step, zero_muon_step's and zero_train_step's states) hold every
## momentum buffer: they are muon_state objects that show a summary (before: 12,129 lines
## for the state of one 300 x 200 matrix, 9,643 for a two-rank ZeRO state).
## @end deftypefn

function test_display ()
  help test_display
endfunction

%!function n = nlines (R)
%!  n = [numel(strfind (evalc ("R"), "\n")), numel(strfind (evalc ("disp (R)"), "\n"))];
%!endfunction

%!function check_lines (what, R, bound)
%!  n = nlines (R);
%!  printf ("    %-36s %-22s %4d lines typed, %4d shown\n", what, class (R), n);
%!  assert (max (n) <= bound, "%s: %d lines typed, %d shown (bound %d)", what, n, bound);
%!endfunction

%!test
%! ## the NS side: muon_ns's statistics and trace, polar_metrics, the restart tools, info
%! randn ("state", 25);
%! G = randn (256, 1024);
%! [~, st] = muon_ns (G, "Method", "gram", "Precision", "bf16", "Trace", true);
%! check_lines ("muon_ns stats (with a trace)", st, 40);
%! check_lines ("muon_ns stats.trace", st.trace, 40);
%! [~, st] = muon_ns (randn (8, 16), "Steps", 80, "Trace", true);
%! check_lines ("muon_ns trace of 80 steps", st.trace, 40);
%! check_lines ("polar_metrics", polar_metrics (G, muon_ns (G)), 40);
%! check_lines ("ns_flops", ns_flops (1024, 4096), 60);
%! check_lines ("ns_flops (vectors)", ns_flops ([64 128 256], [256 512 1024]), 60);
%! [T, best] = ns_restart_autotune ("keller");
%! check_lines ("ns_restart_autotune T", T, 40);
%! check_lines ("ns_restart_autotune best", best, 40);
%! assert (regexp (evalc ("best"), "best restart list: \\[2 3\\]") > 0);
%! [T, best] = ns_restart_search ({randn(32, 64)}, "MaxRestarts", 2);
%! check_lines ("ns_restart_search T", T, 40);
%! check_lines ("ns_restart_search best", best, 40);
%! check_lines ("muon_info", muon_info (), 40);
%! check_lines ("muon_coeffs ()", muon_coeffs (), 40);
%! [~, info] = muon_collective (muon_comm ("sim", 4), "allreduce", {1, 2, 3, 4});
%! check_lines ("muon_collective info", info, 40);
%! check_lines ("muon_comm", muon_comm ("sim", 4), 40);

%!test
%! ## the optimizer: muon_step's info, the update's statistics
%! p = struct ("w1", randn (64, 32), "b1", zeros (64, 1), "embed", randn (100, 16));
%! opt = muon_optimizer (p);
%! g = structfun (@(x) randn (size (x)), p, "UniformOutput", false);
%! [~, opt2, info] = muon_step (opt, p, g);
%! check_lines ("muon_step info", info, 40);
%! check_lines ("muon_optimizer opt", opt, 40);
%! check_lines ("muon_step opt", opt2, 40);
%! assert (regexp (evalc ("opt2"), "muon_optimizer: 3 parameters \\(1 Muon, 2 AdamW\\), step 1") > 0);
%! [~, st] = muon_update (randn (300, 200), []);
%! check_lines ("muon_update state", st, 40);
%! [~, st] = muon_update (muon_gpu (randn (30, 20), "Device", "cpu"), []);
%! check_lines ("muon_update state on a device", st, 40);
%! P = struct ();
%! for k = 1:40
%!   P.(sprintf ("w%d", k)) = randn (8, 4);
%! endfor
%! check_lines ("muon_optimizer (40 parameters)", muon_optimizer (P), 40);

%!test
%! ## the planning side: a model, its plan (all designs, one design), layouts, steps
%! M = muon_model ("deepseek-v3");
%! check_lines ("muon_model deepseek-v3", M, 40);
%! C = zero_cost (M, 1024);
%! check_lines ("zero_cost (deepseek-v3, 1024)", C, 40);
%! check_lines ("zero_cost (...)(1)", C(1), 40);
%! ## the answer first: the line after the title names the cheapest correct design
%! txt = strsplit (evalc ("disp (C)"), "\n");
%! S = struct (C);
%! t = arrayfun (@(c) c.time.step, S);
%! t(ismember ({S.design}, zero_cost_result.wrong_designs ()) | [S.fails]) = Inf;
%! [~, b] = min (t);
%! assert (strncmp (strtrim (txt{2}), ["cheapest: " S(b).design ","], 11 + numel (S(b).design)));
%! L = zero_layout (repmat ({[64 64]}, 1, 20), 64);
%! check_lines ("zero_layout (20 matrices, 64 ranks)", L, 40);
%! check_lines ("zero_layout (llama-3.1-8b, 64 ranks)",
%!              zero_layout (muon_model ("llama-3.1-8b"), 64), 40);
%! L = zero_layout ({[16 16], [16 16], [8 16]}, 2);
%! g = arrayfun (@(k) randn (L.params(k).rows, 16), [1 2 3; 1 2 3], "UniformOutput", false);
%! R = zero_muon_step (L, g, []);
%! check_lines ("zero_muon_step R", R, 40);
%! [T, ts] = zero_train_step (L, g, []);
%! check_lines ("zero_train_step R", T, 40);
%! check_lines ("zero_train_step state", ts, 40);
%! [~, zs] = zero_muon_step (L, g, []);
%! check_lines ("zero_muon_step state", zs, 40);
%! assert (regexp (evalc ("zs"), "zero_muon_step state: variant zero12_allreduce, world 2") > 0);
%! L = zero_layout (repmat ({[8 8]}, 1, 40), 32);
%! R = zero_muon_step (L, repmat ({ones(8)}, 32, 40), [], "Variant", "layerwise_lpt");
%! check_lines ("zero_muon_step R (40 params, 32 ranks)", R, 40);
