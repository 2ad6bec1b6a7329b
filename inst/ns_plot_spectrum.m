## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {} ns_plot_spectrum (@var{G})
## @deftypefnx {muonlab} {} ns_plot_spectrum (@var{G}, @var{X})
## @deftypefnx {muonlab} {[@var{h}, @var{S}] =} ns_plot_spectrum (@dots{}, @var{name}, @var{value}, @dots{})
## The singular values of a gradient and of its Newton-Schulz outputs: what one looks at
## first for Muon.
##
## Panel (a) is the input spectrum: the singular values of @var{G} (one matrix) as
## Newton-Schulz sees them after normalization, largest first, on a log axis (a zero one,
## from a zero row or a rank-deficient @var{G}: at most @code{max (size (G)) * eps} times
## the largest, at a floor a decade below the smallest other one, marked with a triangle
## and counted in the title; panel (b) marks its outputs there too).  The
## normalization is @code{muon_ns}'s with the options given (@qcode{"Eps"},
## @qcode{"Normalize"}, @qcode{"NormScale"}, @qcode{"EpsPlacement"},
## @qcode{"NormalizeFirst"}), computed in fp64 (the precision's own roundings aside):
## @code{G / (s ||G||_F + Eps)} by default (@code{G / max (s ||G||_F, Eps)} with
## @qcode{"EpsPlacement"} @qcode{"max"}; s is @qcode{"NormScale"}, 1 by default), and with
## @qcode{"Normalize"} @qcode{"aol"} the AOL row scaling on the short side, D X0 with
## D = diag (max (sum_j |X0 X0'|_ij, Eps))^(-1/2) and X0 = G / ||G||_F (@var{G} itself
## with @qcode{"NormalizeFirst"} false), divided by s (with @qcode{"EpsPlacement"}
## @qcode{"add"} and s != 1 the floor is Eps / s; with @qcode{"max"}, no floor and a
## division by max (s ||G||_F, Eps) / ||G||_F: what @code{muon_ns} runs).  Panel (b) is
## the map: each output singular value against the input singular value it came from (log
## x axis), one curve per output, with the target 1 dotted red; an exact polar factor would
## be the line at 1, and the gap below it at the small singular values is what a schedule
## leaves.  The map is known only at the input singular values: a curve is broken where
## neighbouring ones are more than a decade apart (a lone point gets a circle), and a
## log axis spanning under three decades gets 1-2-5 ticks.  The image is signed: a schedule whose map is negative there (@qcode{"aol"}
## above 0.884) reverses that singular direction, and its curve goes below 0.  The outputs are @code{muon_ns (G, ...)} for every schedule of
## @qcode{"Coefficients"} in every precision of @qcode{"Precision"}, or the matrices
## @var{X} given (a matrix or a cell of them, the size of @var{G}).
##
## Options (names are case-insensitive):
## @table @asis
## @item "Coefficients"
## a schedule name or a cellstr of them (default @code{@{"keller", "polar_express"@}}).
## @item "Precision"
## a precision or a cellstr of them (default: the class of @var{G}).
## @item "Method", "Steps", "Restarts", "ScheduleMode", "GramMinAspect", "Eps", "Normalize", "NormScale", "EpsPlacement", "NormalizeFirst", "Fused", "Batched", "SymBlocks", "Gemm", "Threads"
## as in @code{muon_ns}, for every run (on the CPU): every option of @code{muon_ns} but
## @qcode{"Device"} and @qcode{"Trace"}.
## @item "Labels"
## a cellstr naming the matrices @var{X} (default "X1", "X2", @dots{}).
## @item "File"
## a file name: the figure is also written there as a PNG (and closed when there is no
## output argument).
## @end table
##
## @var{h} is the figure handle; @var{S} holds the spectra: @code{S.input} (the singular
## values of the normalized @var{G} above, largest first: panel (a), and panel (b)'s x
## axis), @code{S.labels} and @code{S.output} (a cell of the outputs' singular values, in
## the input's order and with their sign: the i-th is the image of the i-th input singular
## value, u' X v by the uv' of
## the SVD of the normalized @var{G}, which for the Frobenius normalization is that of
## @var{G}).  A @var{G} whose normalized singular values are all below 1e-150 but not all
## zero (such as a subnormal @var{G}: 1e-320 normalizes to about 1e-313 with the default
## @qcode{"Eps"}) is refused (@code{muonlab:badArg}): a log axis cannot show them.  Errors,
## those of @code{muon_ns} included, start with
## @qcode{"ns_plot_spectrum: "}.  Headless (no @env{DISPLAY}) the figure is invisible and
## drawn by gnuplot.
##
## @example
## G = randn (128, 512);
## ns_plot_spectrum (G, "Precision", @{"double", "bf16"@}, "File", fullfile (tempdir, "s.png"));
## @end example
## @seealso{muon_ns, polar_metrics, muon_coeffs}
## @end deftypefn

function [h, S] = ns_plot_spectrum (G, varargin)
  fname = "ns_plot_spectrum";
  if (nargin < 1)
    print_usage ();
  endif
  host_only (fname, "G", G);
  check_matrix (fname, "G", G);
  if (ndims (G) > 2)
    error ("muonlab:badShape", "%s: G must be one matrix (2-D).", fname);
  endif
  X = {};
  if (! isempty (varargin) && ! ischar (varargin{1}))
    X = varargin{1};
    varargin(1) = [];
    if (! iscell (X))
      X = {X};
    endif
    for k = 1:numel (X)
      host_only (fname, "X", X{k});
      check_matrix (fname, "X", X{k});
      if (! isequal (size (X{k}), size (G)))
        error ("muonlab:badShape", "%s: each X must be the size of G (%d x %d).", fname,
               rows (G), columns (G));
      endif
    endfor
  endif
  o = parse_options (fname, "ns_plot_spectrum", varargin);
  pin = blas_one_thread ();              # S: the same bits on any number of threads
  ## the input as Newton-Schulz sees it: muon_ns's normalization with the options given
  [U, Sg, V] = svd (normalized (double (G), o), "econ");
  S.input = diag (Sg);
  ## a log axis cannot span values this small: G = 1e-320 (normalized to 1e-313) failed in
  ## semilogy with no id ("dataaspectratio" must be finite), values below about 1e-160
  ## drew with "Non-positive limit for logarithmic axis" warnings; zero G is drawn
  if (any (S.input > 0) && max (S.input) < 1e-150)
    error ("muonlab:badArg",
           "%s: the singular values of the normalized G are all below 1e-150 (the largest %.3g): a log axis cannot show them; scale G up or use a smaller \"Eps\".",
           fname, max (S.input));
  endif
  if (isempty (X))
    co = cellstr_of (fname, "COEFFICIENTS", o.coefficients);
    pr = o.precision;
    if (isempty (pr))
      pr = {class(G)};
    endif
    pr = cellstr_of (fname, "PRECISION", pr);
    ## the muon_ns options given, as given (parse_options checked them)
    ns = option_spec ("ns_plot_spectrum").names;
    ns = setdiff (ns, {"Coefficients", "Precision", "Labels", "File", "Names"});
    pass = false (size (varargin));
    for i = 1:2:numel (varargin)
      pass(i:i+1) = any (strcmpi (varargin{i}, ns));
    endfor
    args = varargin(pass);
    ## every schedule and precision checked under this name before any run
    for c = co
      for p = pr
        parse_options (fname, "muon_ns", [{"Coefficients", c{1}, "Precision", p{1}}, args],
                       "precision", class (G));
      endfor
    endfor
    labels = {};
    for c = co
      for p = pr
        X{end+1} = ns_as (fname, G, [{"Coefficients", c{1}, "Precision", p{1}}, args]);
        labels{end+1} = sprintf ("%s, %s", c{1}, p{1});
      endfor
    endfor
  else
    labels = o.labels;
    if (isempty (labels))
      labels = arrayfun (@(k) sprintf ("X%d", k), 1:numel (X), "UniformOutput", false);
    elseif (! (iscellstr (labels) && numel (labels) == numel (X)))
      error ("muonlab:badArg", "%s: LABELS must be a cellstr of %d names.", fname, numel (X));
    endif
  endif
  ## each output's singular values in the input's order: diag (U' X V) is the image of
  ## each input singular value when X = U f(S) V' (Newton-Schulz keeps U, V), signed: a
  ## negative one is a direction the schedule reversed
  S.labels = labels;
  S.output = cellfun (@(x) diag (U' * double (x) * V), X, "UniformOutput", false);

  ## a zero singular value (a zero row, a rank-deficient G) has no place on a log axis:
  ## drawn at a floor a decade below the smallest positive one, marked and counted; zero
  ## to rounding (an SVD gives ~1e-17 for an exact zero of a rank-deficient G) counts
  zero = S.input <= max (size (G)) * eps * max (S.input);
  pos = S.input(! zero);
  if (isempty (pos))
    floor_at = 1e-3;                    # G is zero: any floor, the titles say so
  else
    floor_at = min (pos) / 10;
  endif
  sx = S.input;
  sx(zero) = floor_at;
  top_in = max ([sx; floor_at]);
  bottom_in = min (sx);                 # the axes' lower ends: the floor only when used

  hf = plot_figure ([100 100 1100 440]);
  ax1 = subplot (1, 2, 1, "parent", hf);
  semilogy (ax1, 1:numel (S.input), sx, "k-", "linewidth", 1.5);
  if (any (zero))
    hold (ax1, "on");
    semilogy (ax1, find (zero), sx(zero), "kv", "markerfacecolor", "k");
    hold (ax1, "off");
  endif
  set (ax1, "xlim", [0.5, numel(S.input) + 0.5], "ylim", [bottom_in / 1.5, top_in * 1.5]);
  set_log_ticks (ax1, "y");
  grid (ax1, "on");
  xlabel (ax1, "index i (largest first)");
  ylabel (ax1, "sigma_i (normalized G)");
  title (ax1, sprintf ("(a) input spectrum, %d x %d%s", rows (G), columns (G),
                       merge (any (zero), sprintf ("; %d zero (v, at %.2g)", sum (zero),
                                                   floor_at), "")));
  ax2 = subplot (1, 2, 2, "parent", hf);
  styles = {"-", "--", "-.", ":"};
  hold (ax2, "on");
  hc = zeros (1, numel (X));
  ## the map is known only at the input singular values: the curves are broken (NaN)
  ## across an empty stretch of more than a decade (and before the zeros' floor), where a
  ## straight line would show a map that is not there (aol on a nearly rank-1 G would
  ## seem to cross 0 three decades below 0.884); a point left alone gets a marker
  [bx, iso, at] = broken_x (sx, zero);
  for k = 1:numel (X)
    by = NaN (size (bx));
    by(at) = S.output{k};
    hc(k) = semilogx (ax2, bx, by, styles{mod (k - 1, 4) + 1}, "linewidth", 1.5);
    if (any (iso))
      semilogx (ax2, sx(iso), S.output{k}(iso), "o", "color", get (hc(k), "color"),
                "markersize", 7, "linewidth", 1.5);
    endif
    if (any (zero))                     # the outputs of the zero inputs, marked
      semilogx (ax2, sx(zero), S.output{k}(zero), "v", "color", get (hc(k), "color"),
                "markerfacecolor", get (hc(k), "color"));
    endif
  endfor
  xl = [bottom_in / 1.2, top_in * 1.2];
  ht = semilogx (ax2, xl, [1 1], "color", [0.8 0 0], "linestyle", ":", "linewidth", 2);
  hold (ax2, "off");
  set (ax2, "xscale", "log", "xlim", xl);
  set_log_ticks (ax2, "x");
  top = max ([cellfun(@max, S.output), 1]);
  bottom = min ([cellfun(@min, S.output), 0]);   # below 0: a reversed direction
  ylim (ax2, [1.1 * bottom, 1.45 * top]);   # head room: the legend above the curves
  set (ax2, "xgrid", "on", "ygrid", "off");   # (the target line is the grid at 1)
  xlabel (ax2, "input sigma_i (normalized G)");
  ylabel (ax2, "output sigma_i");
  title (ax2, "(b) Newton-Schulz output per input singular value");
  legend (ax2, [hc, ht], [labels, {"target 1"}], "location", "north",
          "orientation", "horizontal", "interpreter", "none");
  h = finish_figure ("ns_plot_spectrum", hf, strtrim (o.file), nargout > 0, "-r90");
endfunction

## The x data of panel (b)'s curves: SX with a NaN between neighbours more than a decade
## apart and before the zeros (drawn at their floor, marked apart); AT: where SX's values
## sit in BX; ISO: the points with no neighbour on their piece of line (marked)
function [bx, iso, at] = broken_x (sx, zero)
  n = numel (sx);
  brk = false (n, 1);                   # brk(i): a break between i-1 and i
  if (n > 1)
    brk(2:end) = sx(1:end-1) ./ sx(2:end) > 10 | (zero(2:end) & ! zero(1:end-1));
  endif
  at = (1:n).' + cumsum (brk);
  bx = NaN (n + sum (brk), 1);
  bx(at) = sx;
  nxt = [brk(2:end); true];             # a break (or the end) after i
  iso = brk & nxt;
  iso(1) = nxt(1);
  iso = iso & ! zero(:);                # the zeros have their own marker
endfunction

## Explicit ticks (1-2-5 per decade, log_ticks) on the log axis WHICH ("x" or "y") of AX
## when its range spans under three decades: gnuplot labels one tick there at most
function set_log_ticks (ax, which)
  [t, lab] = log_ticks (get (ax, [which "lim"]));
  if (numel (t) >= 2)
    set (ax, [which "tick"], t, [which "ticklabel"], lab);
  endif
endfunction

## muon_ns (G, args{:}), its errors raised again under fname, with their identifiers
function X = ns_as (fname, G, args)
  try
    X = muon_ns (G, args{:});
  catch err
    msg = regexprep (err.message, '^muon_ns: ', [fname ": "]);
    rethrow (struct ("message", msg, "identifier", err.identifier));
  end_try_catch
endfunction

## G (double) normalized as muon_ns normalizes it, in fp64: the core's G / (||G|| + e),
## or its AOL scaling with the floor e, divided by t (ns_run: NormScale s and
## EpsPlacement fold into e and the first triple as a division by t)
function X = normalized (G, o)
  s = o.norm_scale;
  nrm = norm (G, "fro");
  if (strcmp (o.eps_placement, "add"))
    [t, e] = deal (s, o.eps / s);
  else                                  # max (s ||G||, Eps): no eps in the core's step
    [t, e] = deal (s, 0);
    if (nrm > 0 && s * nrm < o.eps)
      t = o.eps / nrm;
      if (nrm < realmin)                # ns_run: ||G|| + Eps is Eps exactly there
        [t, e] = deal (1, o.eps);
      endif
    endif
  endif
  if (nrm == 0)                         # zero in, zeros out (the core's rule)
    X = G;
  elseif (strcmp (o.normalize, "aol"))  # on the short side: X = D X0
    tr = rows (G) > columns (G);
    if (tr)
      G = G.';
    endif
    if (o.normalize_first)
      G = G / nrm;
    endif
    d = sum (abs (G * G.'), 2);
    k = d > 0;                          # a zero row stays zero
    d(k) = 1 ./ sqrt (max (d(k), e));
    X = d .* G;
    if (tr)
      X = X.';
    endif
  else
    X = G / (nrm + e);
  endif
  X /= t;
endfunction

function c = cellstr_of (fname, what, v)
  if (ischar (v) && isrow (v))
    c = {v};
  elseif (iscellstr (v) && ! isempty (v))
    c = v(:).';
  else
    error ("muonlab:badArg", "%s: %s must be a name or a cellstr of names.", fname, what);
  endif
endfunction

%!test
%! ## fp64 keller: each output singular value is Keller's quintic applied 5 times to the
%! ## normalized input singular value (the closed form of muon_ns on exact arithmetic)
%! randn ("state", 7);
%! G = randn (24, 64);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller");
%! close (h);
%! s = svd (G) / (norm (G, "fro") + 1e-7);
%! assert (S.input, s, 1e-14);
%! for k = 1:5
%!   s = 3.4445 * s - 4.7750 * s.^3 + 2.0315 * s.^5;
%! endfor
%! assert (S.output{1}, s, 1e-12);
%! assert (S.labels, {"keller, double"});

%!test
%! ## given matrices; every schedule x precision otherwise; the PNG written
%! randn ("state", 8);
%! G = randn (16, 48);
%! f = [tempname() ".png"];
%! unwind_protect
%!   [h, S] = ns_plot_spectrum (G, {muon_ns(G), muon_ns(G, "Precision", "bf16")},
%!                              "Labels", {"fp64", "bf16"}, "File", f);
%!   close (h);
%!   assert (S.labels, {"fp64", "bf16"});
%!   assert (sort (S.output{1}, "descend"), svd (muon_ns (G)), 1e-12);   # the same values
%!   assert (stat (f).size > 5000);
%!   [h, S] = ns_plot_spectrum (G, "Precision", {"double", "bf16"});
%!   close (h);
%!   assert (numel (S.output), 4);
%!   assert (S.labels{4}, "polar_express, bf16");
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     delete (f);
%!   endif
%! end_unwind_protect

%!test
%! ## the options of muon_ns reach every run: "Gemm" and "Threads" accepted, "Eps" and
%! ## "Steps" change the curve as the closed form says (Keller's quintic twice on the input
%! ## singular values normalized with eps 1)
%! randn ("state", 9);
%! G = randn (16, 32);
%! f = [tempname() ".png"];
%! unwind_protect
%!   [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "Gemm", "openblas",
%!                              "Threads", 1, "Eps", 1, "steps", 2, "File", f);
%!   close (h);
%!   s = svd (G) / (norm (G, "fro") + 1);
%!   for k = 1:2
%!     s = 3.4445 * s - 4.7750 * s.^3 + 2.0315 * s.^5;
%!   endfor
%!   assert (S.output{1}, s, 1e-12);
%!   assert (stat (f).size > 5000);
%! unwind_protect_cleanup
%!   if (exist (f, "file"))
%!     delete (f);
%!   endif
%! end_unwind_protect

%!test
%! ## the input spectrum follows the normalization options, as muon_ns normalizes: Eps
%! ## 100 (the closed form svd (G) / (||G|| + 100), and Keller's quintic five times on it
%! ## is the output), NormScale with either EpsPlacement, and max's floor on a small G
%! warning ("off", "muonlab:tinyInput", "local");
%! randn ("state", 9);
%! G = randn (16, 32);
%! q = @(s) 3.4445 * s - 4.7750 * s.^3 + 2.0315 * s.^5;
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "Eps", 100);
%! close (h);
%! s = svd (G) / (norm (G, "fro") + 100);
%! assert (S.input, s, 1e-15);
%! assert (S.input(1), 0.0775, 1e-4);
%! for k = 1:5
%!   s = q (s);
%! endfor
%! assert (S.output{1}, s, 1e-12);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "NormScale", 1.02, "Eps", 1e-2);
%! close (h);
%! assert (S.input, svd (G) / (1.02 * norm (G, "fro") + 1e-2), 1e-15);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "NormScale", 1.02, "Eps", 1e-2,
%!                            "EpsPlacement", "max");
%! close (h);
%! assert (S.input, svd (G) / (1.02 * norm (G, "fro")), 1e-15);
%! Gs = 1e-9 * G;                        # 1.02 ||Gs|| < Eps: divided by Eps
%! [h, S] = ns_plot_spectrum (Gs, "Coefficients", "keller", "NormScale", 1.02, "Eps", 1e-7,
%!                            "EpsPlacement", "max");
%! close (h);
%! assert (S.input, svd (Gs) / 1e-7, 1e-15);
%! s = S.input;
%! for k = 1:5
%!   s = q (s);
%! endfor
%! assert (S.output{1}, s, 1e-12);
%! ## the matrices X given: the same input spectrum
%! [h, S] = ns_plot_spectrum (G, muon_ns (G), "Eps", 100);
%! close (h);
%! assert (S.input, svd (G) / (norm (G, "fro") + 100), 1e-15);

%!test
%! ## AOL: the row scaling on the short side, D X0 with D = diag (max (sum_j |X0 X0'|_ij,
%! ## Eps))^(-1/2), by a plain computation and by the first snapshot of muon_ns's trace;
%! ## the outputs paired through the SVD of D X0 (Keller's quintic five times on it)
%! randn ("state", 10);
%! G = randn (32, 12);                    # tall: the short side is the columns
%! X0 = G.' / norm (G, "fro");
%! d = sum (abs (X0 * X0.'), 2);
%! s = svd ((X0 ./ sqrt (max (d, 1e-7))).');
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "Normalize", "aol");
%! close (h);
%! assert (S.input, s, 1e-14);
%! [~, st] = muon_ns (G, "Coefficients", "keller", "Normalize", "aol", "Trace", true);
%! assert (S.input, svd (struct (st.trace).iterates(:,:,1)), 1e-14);
%! for k = 1:5
%!   s = 3.4445 * s - 4.7750 * s.^3 + 2.0315 * s.^5;
%! endfor
%! assert (S.output{1}, s, 1e-12);
%! ## NormScale s: the same scaling with the floor Eps / s, then divided by s; the floor
%! ## counts (Eps / s = 0.2 is above the smaller row sums); NormalizeFirst false: X0 = G
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "Normalize", "aol",
%!                            "NormScale", 2, "Eps", 0.4);
%! close (h);
%! assert (any (d < 0.2) && any (d > 0.2));
%! assert (S.input, svd ((X0 ./ sqrt (max (d, 0.2))).') / 2, 1e-14);
%! [h, S] = ns_plot_spectrum (G, "Coefficients", "keller", "Normalize", "aol",
%!                            "NormalizeFirst", false, "Eps", 1e-300);
%! close (h);
%! assert (S.input, svd ((G.' ./ sqrt (sum (abs (G.' * G), 2))).'), 1e-14);

%!error <ns_plot_spectrum: PRECISION must be 'double', 'single', 'bf16' or 'fp16'.> ns_plot_spectrum (randn (4, 8), "Precision", "fp8")
%!error <ns_plot_spectrum: PRECISION must be 'double', 'single', 'bf16' or 'fp16'.> ns_plot_spectrum (randn (4, 8), "Precision", {"double", "fp8"})
%!error <ns_plot_spectrum: unknown coefficient schedule 'nope'. Coefficient schedules: keller, you, polar_express, polar_express_dion, polar_express_eo, cans, aol, deepseekv4, cubic5, eo_quintic.> ns_plot_spectrum (randn (4, 8), "Coefficients", "nope")
%!error <ns_plot_spectrum: NORMSCALE 1e-80 is too small: the first step's coefficients \(a/s, b/s\^3, c/s\^5\) overflow.> ns_plot_spectrum (randn (4, 8), "NormScale", 1e-80)

%!test
%! ## the errors keep their identifiers
%! try
%!   ns_plot_spectrum (randn (4, 8), "Coefficients", "nope");
%! catch err
%!   assert (err.identifier, "muonlab:badArg");
%! end_try_catch
%! try
%!   ns_plot_spectrum (randn (4, 8), "NormScale", 1e-80);
%! catch err
%!   assert (err.identifier, "muonlab:badArg");
%! end_try_catch

%!demo
%! randn ("state", 1);
%! G = randn (128, 512);
%! ns_plot_spectrum (G, "Precision", {"double", "bf16"});

%!test
%! ## just above the bound, with Eps 0 (normalized to norm 1) and zero G: drawn
%! warning ("off", "muonlab:tinyInput", "local");
%! [h, S] = ns_plot_spectrum (1e-320 * [1 2; 3 4], "Eps", 0, "Coefficients", "keller");
%! close (h);
%! assert (S.input, svd ([1 2; 3 4]) / norm ([1 2; 3 4], "fro"), 1e-4);   # subnormal G: few bits
%! lastwarn ("");
%! [h, S] = ns_plot_spectrum (1e-145 * [1 2; 3 4], "Coefficients", "keller");
%! close (h);
%! assert (max (S.input) > 1e-150 && max (S.input) < 1e-137);
%! assert (! strcmp (lastwarn (), "Non-positive limit for logarithmic axis ignored"));
%! [h, S] = ns_plot_spectrum (zeros (4, 6), "Coefficients", "keller");
%! close (h);
%! assert (S.input, zeros (4, 1));
%!test
%! ## the file gets exactly the name given; no part of it runs in a shell
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   f = fullfile (d, "a$(touch PWNED).png");
%!   ns_plot_spectrum (randn (6, 12), "Steps", 1, "File", f);
%!   assert (exist (f, "file"), 2);
%!   assert (! exist (fullfile (d, "PWNED"), "file") && ! exist ("PWNED", "file"));
%!   assert (! exist (fullfile (d, "a.png"), "file"));
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!error <ns_plot_spectrum: cannot write '/nonexistent-muonlab/x.png': no such folder.>
%! n = numel (get (0, "children"));
%! unwind_protect
%!   ns_plot_spectrum (randn (6, 12), "Steps", 1, "File", "/nonexistent-muonlab/x.png");
%! unwind_protect_cleanup
%!   assert (numel (get (0, "children")), n);        # no figure left behind
%! end_unwind_protect
