## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_plot_spectrum ()
## Suite (run with @code{test test_plot_spectrum}): the figure of @code{ns_plot_spectrum},
## read back from its axes: a reversed direction and a gap in the spectrum drawn as they
## are (curves broken at gaps over a decade, lone points marked), 1-2-5 ticks on short log
## axes, zero singular values drawn at a floor and counted in the title, the axes' limits.
## The closed forms of its values and its errors are tested in inst/ns_plot_spectrum.m.
## @end deftypefn

function test_plot_spectrum ()
  help test_plot_spectrum
endfunction

## the figure's panels (a) and (b), by their titles
%!function [ax1, ax2] = panels (h)
%!  ax = findobj (h, "type", "axes");
%!  t = get (cell2mat (get (ax, "title")), "string");
%!  ax1 = ax(strncmp (t, "(a)", 3));
%!  ax2 = ax(strncmp (t, "(b)", 3));

%!test
%! ## a reversed direction shows as such: aol's map is negative above 0.884, so the top
%! ## singular value of a nearly rank-1 G comes out near -0.99 (ns_schedule_audit's p(1))
%! randn ("state", 5);
%! u = randn (32, 1); v = randn (80, 1);
%! Gr = u * v' / norm (u) / norm (v) + 1e-3 * randn (32, 80) / sqrt (32 * 80);
%! warning ("off", "muonlab:unsafeSchedule", "local");
%! [h, S] = ns_plot_spectrum (Gr, "Coefficients", "aol");
%! close (h);
%! X = muon_ns (Gr, "Coefficients", "aol");
%! [U, ~, V] = svd (Gr, "econ");
%! assert (S.output{1}(1), U(:,1)' * X * V(:,1), 1e-12);
%! assert (S.output{1}(1) < -0.98);

%!test
%! ## panel (b) knows the map only at the input singular values: on the nearly rank-1 G
%! ## (nothing between 3e-4 and 1) aol's curve is broken (NaN) across the gap, not drawn
%! ## as a line from the cluster down to -0.99 that would cross 0 near 5e-4 (aol's map is
%! ## negative only above 0.884), and the lone point at sigma_1 is marked
%! randn ("state", 5);
%! u = randn (32, 1); v = randn (80, 1);
%! Gr = u * v' / norm (u) / norm (v) + 1e-3 * randn (32, 80) / sqrt (32 * 80);
%! warning ("off", "muonlab:unsafeSchedule", "local");
%! [h, S] = ns_plot_spectrum (Gr, "Coefficients", "aol");
%! unwind_protect
%!   assert (S.input(1) > 0.99 && S.input(2) < 1e-3);
%!   [~, ax2] = panels (h);
%!   ln = findobj (ax2, "type", "line", "linestyle", "-");
%!   x = get (ln, "xdata");
%!   y = get (ln, "ydata");
%!   assert (x(:), [S.input(1); NaN; S.input(2:end)]);
%!   assert (y(:), [S.output{1}(1); NaN; S.output{1}(2:end)]);
%!   mk = findobj (ax2, "type", "line", "marker", "o");
%!   assert (get (mk, "xdata"), S.input(1));
%!   assert (get (mk, "ydata"), S.output{1}(1));
%!   assert (get (mk, "color"), get (ln, "color"));
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

%!test
%! ## a log axis spanning under three decades gets 1-2-5 ticks (1-1.5-2-3-4-5-7 under one
%! ## decade), labelled: gnuplot's own labels only 0.1 on the demo's 0.045 .. 0.132
%! randn ("state", 1);
%! G = randn (128, 512);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller");
%! unwind_protect
%!   [ax1, ax2] = panels (h);
%!   assert (get (ax1, "ytick"), [0.04 0.05 0.07 0.1 0.15], 1e-15);
%!   assert (get (ax1, "yticklabel")(:).', {"0.04", "0.05", "0.07", "0.1", "0.15"});
%!   assert (get (ax2, "xtick"), [0.04 0.05 0.07 0.1 0.15], 1e-15);
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect
%! ## 1 .. 2.5 decades: 1-2-5; the nearly rank-1 G's 4 decades keep gnuplot's powers of ten
%! randn ("state", 3);
%! G = [randn(7, 16); zeros(1, 16)];
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller");
%! unwind_protect
%!   ax1 = panels (h);
%!   yl = get (ax1, "ylim");
%!   t = kron (10 .^ (-3:0), [1 2 5]);
%!   assert (get (ax1, "ytick"), t(t >= yl(1) & t <= yl(2)), 1e-15);
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect
%! randn ("state", 5);
%! u = randn (32, 1); v = randn (80, 1);
%! Gr = u * v' / norm (u) / norm (v) + 1e-3 * randn (32, 80) / sqrt (32 * 80);
%! warning ("off", "muonlab:unsafeSchedule", "local");
%! h = ns_plot_spectrum (Gr, "Coefficients", "aol");
%! unwind_protect
%!   ax1 = panels (h);
%!   assert (get (ax1, "ytickmode"), "auto");
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

%!test
%! ## a zero singular value (a zero row) is drawn at a floor a decade below the smallest
%! ## positive one, marked and counted: no point left off the log axes
%! randn ("state", 3);
%! G = [randn(7, 16); zeros(1, 16)];
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller");
%! unwind_protect
%!   ax1 = panels (h);
%!   s = svd (G) / (norm (G, "fro") + 1e-7);
%!   assert (S.input(1:7), s(1:7), 1e-14);
%!   assert (S.input(8), 0);
%!   fl = min (S.input(1:7)) / 10;
%!   assert (get (get (ax1, "title"), "string"), sprintf ("(a) input spectrum, 8 x 16; 1 zero (v, at %.2g)", fl));
%!   y = get (findobj (ax1, "type", "line"), "ydata");
%!   assert (sort (cellfun (@numel, y)), [1; 8]);
%!   assert (ismember (fl, [y{:}]));
%!   yl = get (ax1, "ylim");
%!   assert (yl(1) <= fl && yl(2) >= s(1));
%!   [~, ax2] = panels (h);
%!   x = get (findobj (ax2, "type", "line"), "xdata");
%!   x = x(cellfun (@numel, x) == 9);        # the curve, broken before the zero's floor
%!   assert (numel (x), 1);
%!   assert (x{1}(:), [S.input(1:7); NaN; fl]);
%!   assert (get (ax2, "xlim")(1) <= fl);
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

%!test
%! ## a rank-deficient G: its zero singular values come out of the SVD as ~1e-17 and are
%! ## counted as zeros; a full-rank G's axes start at its own smallest value
%! randn ("state", 2);
%! G = randn (8, 3) * randn (3, 16);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller");
%! unwind_protect
%!   ax1 = panels (h);
%!   assert (! isempty (strfind (get (get (ax1, "title"), "string"), "; 5 zero (v, at")));
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect
%! randn ("state", 1);
%! G = randn (12, 30);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller");
%! unwind_protect
%!   [ax1, ax2] = panels (h);
%!   assert (get (ax1, "ylim")(1), min (S.input) / 1.5, eps);
%!   assert (get (ax2, "xlim")(1), min (S.input) / 1.2, eps);
%! unwind_protect_cleanup
%!   close (h);
%! end_unwind_protect

## argument errors (moved from inst/ns_plot_spectrum.m, which passed 500 lines)
%!error <ns_plot_spectrum: G must be one matrix \(2-D\).> ns_plot_spectrum (randn (4, 4, 2))
%!error <ns_plot_spectrum: G is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(G\)\.> ns_plot_spectrum (muon_gpu (randn (4, 8), "Device", "cpu"))
%!error <ns_plot_spectrum: X is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(X\)\.> ns_plot_spectrum (randn (4, 8), {muon_gpu(randn (4, 8), "Device", "cpu")})
%!error <ns_plot_spectrum: the singular values of the normalized G are all below 1e-150 \(the largest 1e-313\): a log axis cannot show them; scale G up or use a smaller "Eps"\.> ns_plot_spectrum (1e-320)
%!error <ns_plot_spectrum: the singular values of the normalized G are all below 1e-150 \(the largest 5\.4[0-9]e-313\): a log axis cannot show them; scale G up or use a smaller "Eps"\.> ns_plot_spectrum (1e-320 * [1 2; 3 4])
%!error id=muonlab:badArg ns_plot_spectrum (1e-320)
%!error <ns_plot_spectrum: each X must be the size of G \(4 x 8\).> ns_plot_spectrum (randn (4, 8), randn (4, 4))
%!error <ns_plot_spectrum: LABELS must be a cellstr of 1 names.> ns_plot_spectrum (randn (4, 8), randn (4, 8), "Labels", {"a", "b"})
%!error <ns_plot_spectrum: COEFFICIENTS must be a name or a cellstr of names.> ns_plot_spectrum (randn (4, 8), "Coefficients", 3)
%!error <ns_plot_spectrum: GEMM must be 'auto', 'openblas' or 'onednn'\.> ns_plot_spectrum (randn (4, 8), "Gemm", "bogus")
%!error <^ns_plot_spectrum: unknown option 'Device': an option of muon_ns, muon_update, muon_optimizer and [0-9]+ other functions, not of ns_plot_spectrum\. Options: .*\.$> ns_plot_spectrum (randn (4, 8), "Device", "cuda")
