## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} muon_family
## @deftypefnx {muonlab demo} {@var{D} =} muon_family ()
## @deftypefnx {muonlab demo} {@var{D} =} muon_family ("Display", @var{how})
## The Muon family of 2026 (NorMuon, AdaMuon, Dion, ...) on one small problem: every @qcode{"Preset"} of
## @code{muon_optimizer} trains the same matrix regression, and NorMuon's axis discrepancy
## on a wide matrix.
##
## (a) A wide 24 x 48 weight W is fitted to a teacher W* from ill-conditioned inputs
## (the matrix regression of the PolarGrad paper's kind): loss
## @code{f (W) = ||(W - W*) X||_F^2 / (2 N)}, inputs X of 48 x N = 512 whose directions
## span a condition number of 100, from W = 0, for 80 steps of @code{muon_step} with each
## preset (no weight decay but Scion's own, which is 1).  The presets' first updates
## differ in RMS by about 1300x (PolarGrad's 0.024, Keller's 0.13, NAMO's 0.22, NorMuon
## EO's 1.0, AdaMuon EO's 31: sqrt (48) / sqrt (1 - 0.95), its first step has no bias
## correction), so each preset's lr is set so that its first update has RMS 0.02, then
## decays linearly to 0: the curves compare the directions, not the scale conventions.
## The table gives, per preset, the raw update of the first step (its RMS, its spectral
## spread: the largest over the smallest non-zero singular value, its rank), the lr that
## results and the final loss over the first.
##
## (b) NorMuon's second moment on a wide 16 x 64 matrix: zichongli5 and dion keep one
## value per row (@code{mean (O.^2, 2)}), Emerging-Optimizers one per column when m < n.
## The rows of a wide polar factor are orthonormal, so every row has the same RMS and the
## per-row normalization is a uniform scale (up to the spread NS leaves); the columns'
## RMS vary, so the per-column normalization changes the update's direction.  The picture
## shows O = NS (G), the two normalizations' factors as images, and the column RMS of the
## three updates.
##
## Writes @file{demo/output/muon_family.png} (the loss curves) and
## @file{demo/output/muon_family_axis.png} (part (b)).  About 8 s on 2 cores.  Option
## @qcode{"Display"}: @qcode{"final"} (default) prints the tables at the end,
## @qcode{"iter"} also one line per preset, @qcode{"off"} prints nothing.  With an
## output argument the results come back as a struct @var{D}: @code{D.presets} (one row
## per preset: @code{name}, @code{loss} (the curve), @code{rms}, @code{spread},
## @code{rank}, @code{lr}, @code{ratio}), @code{D.m}, @code{D.n}, @code{D.steps} and
## @code{D.axis} (part (b): @code{O}, @code{row}, @code{col} the updates, @code{dev_row}
## and @code{dev_col} the relative distance of each from the direction of O,
## @code{row_rms} and @code{col_rms}).
## @end deftypefn

function varargout = muon_family (varargin)
  if (nargout > 0)
    [varargout{1:nargout}] = demo_run ("muon_family", varargin, @run);
  else
    demo_run ("muon_family", varargin, @run);     # no "ans" without an output
  endif
endfunction

function D = run (o)
  t_all = tic ();
  D = part_a (o);
  D.axis = part_b ();
  png = plot_loss (D);
  png2 = plot_axis (D.axis);
  print_a (D);
  print_b (D.axis);
  printf ("wrote %s\nwrote %s\ndone in %.1f s\n", png, png2, toc (t_all));
endfunction

#---- (a) every preset on one regression ------------------------------------------------------

function D = part_a (o)
  m = 24;  n = 48;  N = 512;  T = 80;  rms0 = 0.02;
  randn ("state", 27);
  [Q, ~] = qr (randn (n));
  X = Q * diag (logspace (0, -2, n)) * randn (n, N);    # directions of condition 100
  Ws = randn (m, n) / sqrt (n);                         # the teacher
  Cxx = X * X' / N;
  loss = @(W) sum (sum (((W - Ws) * X) .^ 2)) / (2 * N);
  grad = @(W) (W - Ws) * Cxx;
  L = muon_optimizer ("presets");
  R = struct ([]);
  for i = 1:size (L, 1)
    t0 = tic ();
    name = L{i,1};
    P = struct ("W", zeros (m, n));
    G = struct ("W", grad (P.W));
    ## the preset's raw first update fixes its lr
    U = muon_update (G.W, [], "Preset", name);
    sv = svd (U);
    r = struct ("name", name, "rms", sqrt (mean (U(:) .^ 2)),
                "spread", max (sv) / min (sv(sv > 1e-10 * max (sv))),
                "rank", nnz (sv > 1e-10 * max (sv)));
    r.lr = rms0 / r.rms;
    opt = muon_optimizer (P, "Preset", name, "MuonLR", r.lr);
    f = zeros (1, T + 1);
    f(1) = loss (P.W);
    for t = 1:T
      opt.muon_lr = r.lr * (1 - (t - 1) / T);
      [P, opt] = muon_step (opt, P, struct ("W", grad (P.W)));
      f(t+1) = loss (P.W);
    endfor
    r.loss = f;
    r.ratio = f(end) / f(1);
    R = [R, r];
    if (o.iter)
      printf ("%-20s final loss / first %.3g  (%.1f s)\n", name, r.ratio, toc (t0));
    endif
  endfor
  D = struct ("m", m, "n", n, "N", N, "steps", T, "rms0", rms0);
  D.presets = R;
endfunction

function print_a (D)
  printf (["(a) a %d x %d weight fitted to a teacher from inputs of condition 100, %d steps " ...
           "per preset,\n    lr set so that the first update has RMS %.2g, decayed " ...
           "linearly (Scion: its decay wd = 1)\n\n"], D.m, D.n, D.steps, D.rms0);
  printf ("%-20s %10s %10s %5s %10s %12s\n", "preset", "update RMS", "sv spread", "rank",
          "lr", "loss / first");
  for r = D.presets
    printf ("%-20s %10.4f %10.3f %5d %10.4g %12.3g\n", r.name, r.rms, r.spread, r.rank,
            r.lr, r.ratio);
  endfor
  printf ("\n");
endfunction

function png = plot_loss (D)
  [h, png] = demo_figure ("muon_family", [0 0 1000 650]);
  unwind_protect
    ax = axes ();
    F = reshape ([D.presets.loss], D.steps + 1, []);
    F = F ./ F(1,:);
    x = (0:D.steps).';
    ## each preset its own colour (spread over the hue circle) and marker, drawn every 8
    ## steps (offset per preset, so that the markers of curves on top of each other do
    ## not coincide); solid and dashed only: dotted lines render as specks
    np = columns (F);
    mks = {"o", "s", "d", "^", "v", "p", "h", "*", "x", "+", ">", "<"};
    hk = zeros (1, np);
    for k = 1:np
      col = hsv2rgb ([(k - 1) / np, 0.85, 0.8]);
      sty = merge (mod (k, 2) == 1, "-", "--");
      mk = mks{mod (k - 1, numel (mks)) + 1};
      semilogy (ax, x, F(:,k), "color", col, "linestyle", sty, "linewidth", 1.5);
      hold (ax, "on");
      i = (1 + mod (k - 1, 8)):8:numel (x);
      semilogy (ax, x(i), F(i,k), "color", col, "linestyle", "none", "marker", mk,
                "markersize", 7, "linewidth", 1.2);
      hk(k) = semilogy (ax, NaN, NaN, "color", col, "linestyle", sty, "marker", mk,
                        "markersize", 7, "linewidth", 1.5);   # the key's line
    endfor
    hold (ax, "off");
    names = strrep ({D.presets.name}, "_", " ");          # no _: TeX
    legend (ax, hk, names, "location", "eastoutside");
    set (ax, "position", [0.1 0.12 0.66 0.8]);   # (the legend moved it: its labels cut)
    xlabel (ax, "step");
    ylabel (ax, "loss / initial loss");
    title (ax, sprintf ("%d x %d matrix regression, every preset, first update RMS %.2g",
                        D.m, D.n, D.rms0));
    grid (ax, "on");
    demo_print (h, png);
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction

#---- (b) NorMuon's axis on a wide matrix -----------------------------------------------------

function A = part_b ()
  m = 16;  n = 64;
  randn ("state", 64);
  G = randn (m, n) .* (0.2 + (1:n) / n);               # columns of growing scale
  O = muon_ns (G);
  vr = mean (O .^ 2, 2);                                # per row (zichongli5, dion)
  vc = mean (O .^ 2, 1);                                # per column (EO, m < n)
  A.O = O;
  A.row = O ./ sqrt (vr);
  A.col = O ./ sqrt (vc);
  A.factor_row = repmat (1 ./ sqrt (vr), 1, n);
  A.factor_col = repmat (1 ./ sqrt (vc), m, 1);
  dir = @(x) x / norm (x, "fro");
  A.dev_row = norm (dir (A.row) - dir (O), "fro");
  A.dev_col = norm (dir (A.col) - dir (O), "fro");
  A.row_rms = sqrt ([mean(O .^ 2, 2), mean(A.row .^ 2, 2), mean(A.col .^ 2, 2)]);
  A.col_rms = sqrt ([mean(O .^ 2, 1); mean(A.row .^ 2, 1); mean(A.col .^ 2, 1)]);
  A.m = m;
  A.n = n;
  ## the same with the library: the presets' V has the shape of their axis
  [~, s] = muon_update (G, [], "Preset", "normuon_zichongli5");
  A.state_row = size (s.family.buffer);
  [~, s] = muon_update (G, [], "Preset", "normuon_eo");
  A.state_col = size (s.family.buffer);
endfunction

function print_b (A)
  printf (["(b) NorMuon's second moment on a wide %d x %d matrix (O = NS (G), columns of " ...
           "growing scale)\n    V per row (zichongli5, dion: state %d x %d) or per column " ...
           "(Emerging-Optimizers when m < n: state %d x %d)\n\n"], A.m, A.n, A.state_row,
          A.state_col);
  printf ("%-28s %12s %12s %12s %12s\n", "", "row RMS min", "row RMS max", "col RMS min",
          "col RMS max");
  w = {"O = NS (G)", "per-row V (zichongli5)", "per-column V (EO)"};
  for k = 1:3
    printf ("%-28s %12.4f %12.4f %12.4f %12.4f\n", w{k}, min (A.row_rms(:,k)),
            max (A.row_rms(:,k)), min (A.col_rms(k,:)), max (A.col_rms(k,:)));
  endfor
  printf (["\n    distance of the normalized update's direction from O's: per row %.3f, " ...
           "per column %.3f\n\n"], A.dev_row, A.dev_col);
endfunction

function png = plot_axis (A)
  [h, png] = demo_figure ("muon_family_axis", [0 0 1100 750]);
  unwind_protect
    ax1 = axes ("position", [0.06 0.56 0.27 0.36]);
    imagesc (ax1, A.O);
    title (ax1, sprintf ("O = NS (G), %d x %d", A.m, A.n));
    ax2 = axes ("position", [0.38 0.56 0.27 0.36]);
    imagesc (ax2, A.factor_row);
    title (ax2, "1/sqrt(V): per row (zichongli5, dion)");
    ax3 = axes ("position", [0.70 0.56 0.27 0.36]);
    imagesc (ax3, A.factor_col);
    title (ax3, "1/sqrt(V): per column (EO, m < n)");
    for ax = [ax1 ax2 ax3]
      colorbar (ax);
    endfor
    ax4 = axes ("position", [0.06 0.08 0.9 0.36]);
    plot (ax4, 1:A.n, A.col_rms ./ mean (A.col_rms, 2), "linewidth", 1.5);
    xlabel (ax4, "column");
    ylabel (ax4, "column RMS / mean");
    legend (ax4, {"O", "per-row V (a uniform scale of O)", "per-column V"},
            "location", "northwest");
    title (ax4, sprintf (["the axis discrepancy: direction moved %.3f by the per-row V, " ...
                          "%.3f by the per-column V"], A.dev_row, A.dev_col));
    demo_print (h, png);
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction
