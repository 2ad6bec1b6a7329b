## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{T} =} ns_restart_autotune (@var{coeffs})
## @deftypefnx {muonlab} {@var{T} =} ns_restart_autotune (@var{coeffs}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {[@var{T}, @var{best}] =} ns_restart_autotune (@dots{})
## Rank the restart lists of Gram Newton-Schulz by the scalar stability model of
## Dao-AILab/gram-newton-schulz (its restart autotuner, version 0.1.6): why restarts are
## needed is said below.
##
## Gram NS never forms the iterate X_k = Q_k X_0 until a restart or the end; it iterates
## on R = X X' and Q.  In half precision R picks up small negative eigenvalues, which the
## step map r -> r (a + b r + c r^2)^2 can blow up, and Q, a product of polynomials in R,
## becomes ill-conditioned.  The model follows one singular value x of the normalized
## input per grid point: at the start and at each restart r = x^2 + Shift (Shift < 0, the
## most negative spurious Gram eigenvalue) and q = 1; each step multiplies q by
## z = a + r (b + r c) and r by z^2; a restart first sets x = q x.  The metric of a
## restart list is the largest, over the steps, of max |q| / min |q| over the grid (the
## condition number of Q); smaller is more stable.
##
## @var{coeffs} is a schedule name (see @code{muon_coeffs}) or a K x 3 matrix.  Restart
## positions are muonlab's @qcode{"Restarts"} convention (@code{muon_ns}): 0-based step
## indices, a restart happening before that step, so they run from 1 to Steps - 1 (the
## peer's @code{reset_indices} are the same numbers).  Every list of up to MaxRestarts
## distinct positions is scored.
##
## @qcode{"Grid"} and @qcode{"Shift"} default to the peer's values, those of its CLI
## @code{autotune_restarts}; @qcode{"Steps"} and @qcode{"MaxRestarts"} do not: that CLI
## runs as many steps as the coefficient list it is given has rows and looks for 1 restart
## position by default.
##
## Options:
## @table @asis
## @item "Steps", "ScheduleMode"
## as in @code{muon_ns}: default 5 for a single triple, else the schedule's length.
## @item "MaxRestarts"
## largest list length tried (default 2, where the peer's CLI has 1; 0 scores the list
## without restarts only).
## @item "Grid"
## the singular values x, a vector of positive values (default
## @code{logspace (0, -10, 1e4)}), at most 1e6 of them (the limit @code{max_grid}).
## @item "Shift"
## the negative shift of the Gram eigenvalues (default -4e-4, about what fp16 rounding
## leaves on R; fp32 leaves far less).
## @item "Display"
## @qcode{"off"} (default), @qcode{"final"} (one line at the end: the best list) or
## @qcode{"iter"} (also one line per restart list scored, with the elapsed time), as in
## @code{optimset}.
## @end table
##
## The work is bounded before it starts: the restart lists times the steps times (the grid
## points plus 2048, each step's own cost) must be at most 1e9 (the limit
## @code{max_autotune_work}, some 15 s), else a
## @code{muonlab:badArg} error names the limit (e.g. "Steps", 1000 with the default grid).
##
## @var{T} is a table (a @code{ns_restart_result}: its columns read as a struct's, typing
## @var{T} prints the first rows, @code{struct (T)} gives the plain struct), one row per
## list, sorted by metric (ties keep the order of enumeration: fewer restarts first, then
## lexicographic): @code{restarts} (a cell of row vectors), @code{count} and @code{metric}.
## A list whose q overflows (or turns NaN) at some step scores Inf.  @var{best}(k+1) holds
## the best list with exactly k restarts (fields @code{count}, @code{restarts},
## @code{metric}); an @code{ns_best_result}: typing it prints the best list
## first and a row per count, @code{struct (best)} gives the struct array).
##
## The metric agrees with the peer's @code{simulate_perturbed_gram_newton_schulz} +
## @code{stability_metric} (gram-newton-schulz 0.1.6) to 1e-6 relative for every shipped
## schedule and every list of up to 2 restarts (the fixtures of the test suites hold its
## output: tests/octave/fixtures in the source tree, tests/fixtures once installed).
## The model is a scalar caricature: it does not see the actual spectrum of a gradient,
## nor fp32's much smaller Gram error; @code{ns_restart_search} scores the lists by the
## real run instead.
##
## Example:
## @example
## [T, best] = ns_restart_autotune ("keller");
## best(2)          % one restart: [3], not DeepSpeed's [2]
## T.restarts@{1@}   % the best list of at most two
## @end example
##
## @seealso{ns_restart_search, muon_ns, ns_design_coeffs}
## @end deftypefn

function [T, best] = ns_restart_autotune (coeffs, varargin)
  fname = "ns_restart_autotune";
  if (nargin < 1)
    print_usage ();
  endif
  o = parse_options (fname, "ns_restart_autotune", varargin);
  v.MaxRestarts = o.maxrestarts;         # (struct () would expand a cell value)
  v.Grid = o.grid;
  v.Shift = o.shift;
  C = schedule (fname, coeffs, {"Steps", o.steps, "ScheduleMode", o.schedulemode});
  steps = rows (C);
  nr = v.MaxRestarts;
  rmax = core_lists ().limits.max_restarts;     # the core's limit, defined once
  if (! (isnumeric (nr) && isscalar (nr) && isreal (nr) && nr == fix (nr) && nr >= 0
         && nr <= rmax))
    error ("muonlab:badArg", "%s: MAXRESTARTS must be an integer from 0 to %d.", fname, rmax);
  endif
  x = v.Grid;
  if (! (isnumeric (x) && isreal (x) && isvector (x) && all (isfinite (x(:)))
         && all (x(:) > 0)))
    error ("muonlab:badArg", "%s: GRID must be a vector of positive finite values.", fname);
  endif
  shift = v.Shift;
  if (! (isnumeric (shift) && isscalar (shift) && isreal (shift) && isfinite (shift)
         && shift < 0))
    error ("muonlab:badArg", "%s: SHIFT must be a negative finite scalar.", fname);
  endif
  x = double (x(:));
  nr = min (double (nr), steps - 1);
  ## the limits (core_lists), before any work: grid points, and restart lists x steps x
  ## grid points simulated
  lim = core_lists ().limits;
  if (numel (x) > lim.max_grid)
    error ("muonlab:badArg", "%s: GRID must have at most %d points (the limit max_grid).",
           fname, lim.max_grid);
  endif
  k = 0:nr;
  nlists = sum (round (exp (gammaln (steps) - gammaln (k + 1) - gammaln (steps - k))));
  ## a list's step also costs what about 2048 grid points do (the loop's own work: 36 us),
  ## so a small grid is bounded too (Grid 1 at Steps 200 took 156 s)
  work = nlists * steps * (numel (x) + 2048);
  if (work > lim.max_autotune_work)
    error ("muonlab:badArg",
           "%s: %.4g restart lists x %d steps x (%d grid points + 2048 for each step) is more than %d simulated points (the limit max_autotune_work); lower STEPS, MAXRESTARTS or the GRID size.",
           fname, nlists, steps, numel (x), lim.max_autotune_work);
  endif

  lists = {zeros(1, 0)};
  for k = 1:nr
    P = nchoosek (1:steps-1, k);
    lists = [lists; num2cell(P, 2)];
  endfor
  metric = zeros (numel (lists), 1);
  t0 = tic ();
  for i = 1:numel (lists)
    metric(i) = simulate (x, C, double (shift), lists{i});
    if (strcmp (o.display, "iter"))
      printf ("%s: restarts %-12s condition %.4g  (%d of %d, %.2f s)\n", fname,
              mat2str (lists{i}), metric(i), i, numel (lists), toc (t0));
    endif
  endfor
  count = cellfun (@numel, lists);
  [~, order] = sort (metric);            # stable: ties keep the enumeration order
  T = struct ("restarts", {lists(order)}, "count", count(order), "metric", metric(order));
  T = ns_restart_result (T);
  best = struct ("count", {}, "restarts", {}, "metric", {});
  for k = 0:nr
    j = find (T.count == k, 1);
    best(k+1) = struct ("count", k, "restarts", T.restarts{j}, "metric", T.metric(j));
  endfor
  best = ns_best_result (best);
  if (! strcmp (o.display, "off"))
    printf ("%s: %d restart lists in %.2f s; best %s, condition %.4g\n", fname,
            numel (lists), toc (t0), mat2str (T.restarts{1}), T.metric(1));
  endif
endfunction

## The schedule as muon_ns expands it (muon_ns's option table; Steps 0: its default count).
function C = schedule (fname, coeffs, rest)
  if (! (ischar (coeffs) || isnumeric (coeffs)))
    error ("muonlab:badArg",
           "%s: COEFFS must be a schedule name or a K x 3 real matrix.", fname);
  endif
  try
    o = parse_options (fname, "muon_ns", [{"Coefficients", coeffs}, rest], "precision",
                       "double");
  catch err
    error (err.identifier, "%s", strrep (err.message, "COEFFICIENTS", "COEFFS"));
  end_try_catch
  C = expand_schedule (o.coeffs, o.steps, o.schedule_mode);
endfunction

## The peer's scalar model for one restart list: the largest condition max|q|/min|q|.
function m = simulate (x, C, shift, list)
  m = 0;
  q = [];
  r = [];
  for i = 0:rows (C) - 1
    if (i == 0 || any (list == i))
      if (i != 0)
        x = x .* q;
      endif
      r = x .^ 2 + shift;
      q = ones (size (x));
    endif
    z = C(i+1,1) + r .* (C(i+1,2) + r .* C(i+1,3));
    q = q .* z;
    r = r .* z .^ 2;
    aq = abs (q);
    cnd = max (aq) / min (aq);
    if (isnan (cnd) || any (isnan (aq)))
      cnd = Inf;
    endif
    m = max (m, cnd);
  endfor
endfunction

%!test
%! ## closed form: one step, no restart: q = z = a + r (b + r c) with r = x^2 + shift
%! x = [1; 0.5; 0.1];
%! C = [2 -1.5 0.5];
%! r = x.^2 - 1e-3;
%! z = 2 + r .* (-1.5 + 0.5 * r);
%! T = ns_restart_autotune (C, "Steps", 1, "Grid", x, "Shift", -1e-3);
%! assert (T.restarts, {zeros(1, 0)});
%! assert (T.metric, max (abs (z)) / min (abs (z)), -1e-15);

%!test
%! ## a restart restarts q from the rescaled x: two steps, restart before step 1
%! x = [0.9; 0.3];  s = -2e-3;  a = 3; b = -3.2; c = 1.1;
%! z0 = a + (x.^2 + s) .* (b + (x.^2 + s) * c);
%! x1 = x .* z0;  r1 = x1.^2 + s;  z1 = a + r1 .* (b + r1 * c);
%! want = max (max (abs (z0)) / min (abs (z0)), max (abs (z1)) / min (abs (z1)));
%! [T, best] = ns_restart_autotune ([a b c], "Steps", 2, "Grid", x, "Shift", s);
%! assert (best(2).restarts, 1);
%! assert (best(2).metric, want, -1e-14);
%! assert (numel (T.metric), 2);
%! assert (issorted (T.metric));

%!test
%! ## enumeration: every list of up to MaxRestarts positions in 1 .. steps-1, sorted
%! [T, best] = ns_restart_autotune ("you");
%! assert (numel (T.count), 1 + 4 + 6);
%! assert (sort (T.count).', [0 1 1 1 1 2 2 2 2 2 2]);
%! assert (best.count, [0; 1; 2]);
%! assert (issorted (T.metric));
%! assert (best(3).metric <= best(2).metric && best(2).metric < best(1).metric);
%! T3 = ns_restart_autotune ("you", "MaxRestarts", 9);    # capped at steps - 1 = 4
%! assert (numel (T3.count), 2^4);

%!test
%! ## DeepSpeed's constant Keller triple: the model prefers [3] to the default [2]
%! [~, best] = ns_restart_autotune ("keller");
%! assert (best(2).restarts, 3);
%! assert (best(3).restarts, [2 3]);

%!error <Invalid call> ns_restart_autotune ()
%!error <ns_restart_autotune: COEFFS must be a schedule name or a K x 3 real matrix.> ns_restart_autotune ({1})
%!error <ns_restart_autotune: COEFFS must be a schedule name or a K x 3 real matrix.> ns_restart_autotune ([1 2])
%!error <^ns_restart_autotune: unknown coefficient schedule 'foo'\. Coefficient schedules: .*\.$> ns_restart_autotune ("foo")
%!error <ns_restart_autotune: MAXRESTARTS must be an integer from 0 to 64.> ns_restart_autotune ("you", "MaxRestarts", -1)
%!test                                  # the limit and its message are the core's (core_lists)
%! lim = __muon_lists__ ().limits.max_restarts;
%! try
%!   ns_restart_autotune ("you", "MaxRestarts", lim + 1);
%!   error ("no error");
%! catch err
%!   assert (err.message, sprintf ("ns_restart_autotune: MAXRESTARTS must be an integer from 0 to %d.", lim));
%! end_try_catch
%!error <ns_restart_autotune: GRID must be a vector of positive finite values.> ns_restart_autotune ("you", "Grid", [1 0])
%!error <ns_restart_autotune: SHIFT must be a negative finite scalar.> ns_restart_autotune ("you", "Shift", 0)
%!error <ns_restart_autotune: STEPS must be a positive integer \(at most 1000\).> ns_restart_autotune ("you", "Steps", 0)
%!error <^ns_restart_autotune: unknown option 'Method': an option of muon_ns, muon_update, muon_optimizer and [0-9]+ other functions, not of ns_restart_autotune\. Options: .*\.$> ns_restart_autotune ("you", "Method", "gram")
%!error <ns_restart_autotune: options must be NAME, VALUE pairs.> ns_restart_autotune ("you", "Steps")
%!error <ns_restart_autotune: SHIFT must be a negative finite scalar\.> ns_restart_autotune ("you", "Shift", 1)
%!error id=muonlab:badArg ns_restart_autotune ("you", "Shift", 1)
## a small grid: each step's own cost counts (Grid 1 at Steps 200 took 156 s; at Steps 1000,
## hours)
%!error <ns_restart_autotune: 1\.99e\+04 restart lists x 200 steps x \(1 grid points \+ 2048 for each step\) is more than 1000000000 simulated points \(the limit max_autotune_work\); lower STEPS, MAXRESTARTS or the GRID size\.> ns_restart_autotune ("keller", "Steps", 200, "Grid", 1)

%!demo
%! ## Keller's constant triple (DeepSpeed's Gram path) and Polar Express, up to 2 restarts
%! for name = {"keller", "polar_express"}
%!   [~, best] = ns_restart_autotune (name{1});
%!   for b = struct (best)
%!     printf ("%-14s %d restart(s): %-8s condition %.4g\n", name{1}, b.count,
%!             mat2str (b.restarts), b.metric);
%!   endfor
%! endfor
