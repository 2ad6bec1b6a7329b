## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{T} =} ns_restart_search (@var{G})
## @deftypefnx {muonlab} {@var{T} =} ns_restart_search (@var{G}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {[@var{T}, @var{best}] =} ns_restart_search (@dots{})
## Rank the restart lists of Gram Newton-Schulz by the error of the real low-precision
## run: for every list of up to MaxRestarts positions, @code{muon_ns} runs Gram NS on
## @var{G} in the given precision (default @qcode{"single"}) and in @qcode{"double"}
## with the same list, and the list is scored by
## @code{norm (X - Xd, "fro") / norm (Xd, "fro")} (the largest over the matrices given).
##
## This is the end-to-end counterpart of @code{ns_restart_autotune}'s scalar model: the
## run sees the actual spectrum of @var{G} and the actual rounding of the precision
## (fp32's Gram error is about 1e-7 relative, far below the model's default shift of
## -4e-4, and a Gaussian matrix of aspect 2 has no singular value near 1e-10), so the
## two can rank lists differently.
##
## @var{G} is a real M x N matrix, an M x N x E stack (each page its own problem) or a
## cell of such arrays (different shapes).  Positions are muonlab's @qcode{"Restarts"}
## convention: 0-based steps, from 1 to Steps - 1.
##
## Options (names are case-insensitive):
## @table @asis
## @item "MaxRestarts"
## the most restarts a list has (default 2).
## @item "Display"
## @qcode{"off"} (default), @qcode{"final"} (one line at the end: the best list) or
## @qcode{"iter"} (also one line per restart list run, with the elapsed time), as in
## @code{optimset}.
## @item "Steps", "Coefficients", "ScheduleMode", "Precision", "GramMinAspect", "Eps"
## @itemx "NormalizeFirst", "Fused", "Batched", "SymBlocks", "Normalize"
## @itemx "Device", "Gemm", "Threads"
## as in @code{muon_ns}, which every run calls; "Precision" defaults to @qcode{"single"}
## (the input is used as given, so a double @var{G} runs fp32 from the fp64-summed norm).
## "Method" is always @qcode{"gram"} and "Restarts" is what is searched: neither can be
## given.  Every matrix's aspect (long side / short side) must exceed "GramMinAspect"
## (default 1: no square matrix), since at or below it @code{muon_ns} runs standard
## Newton-Schulz, which has no restarts to rank (a @code{muonlab:badArg} error says so).
## @end table
##
## The work is bounded before it starts: the restart lists (the sum over k <= MaxRestarts
## of nchoosek (Steps - 1, k)) times (the steps times the matrix entries of @var{G}, plus
## 8192 per matrix: each call's own cost) must be at most 1e9 (the limit
## @code{max_autotune_work}, as for @code{ns_restart_autotune}), else a
## @code{muonlab:badArg} error names the limit (e.g. "Steps", 1000).  A zero page of
## @var{G} (every entry 0: no polar factor) is a @code{muonlab:badArg} error; a tiny
## nonzero one (e.g. 1e-170 @code{randn (4, 8)}) is searched as @code{muon_ns} runs it
## (about G / Eps below Eps: its fp32 run from a double page that small underflows to 0,
## and every list scores 1).
##
## @var{T} is a table (a @code{ns_restart_result}: its columns read as a struct's, typing
## @var{T} prints the first rows, @code{struct (T)} gives the plain struct), one row per
## list, sorted by error (ties keep the enumeration order: fewer restarts first):
## @code{restarts} (a cell of row vectors), @code{count} and @code{error}.  @var{best}(k+1)
## is the best list with exactly k restarts (fields @code{count}, @code{restarts},
## @code{error}); an @code{ns_best_result}: typing it prints the best list
## first and a row per count, @code{struct (best)} gives the struct array).
##
## Example:
## @example
## randn ("state", 1);
## G = @{randn(32, 64), randn(64, 192), randn(128, 512)@};
## [T, best] = ns_restart_search (G, "Coefficients", "deepseekv4");
## T.restarts@{1@}, T.error(1)   % about 6e-7: [3 9] or [2 9], a near tie that the
##                              % CPU's kernels decide; the default [2] about 2e-6
## @end example
##
## @seealso{ns_restart_autotune, muon_ns}
## @end deftypefn

function [T, best] = ns_restart_search (G, varargin)
  fname = "ns_restart_search";
  if (nargin < 1)
    print_usage ();
  endif
  given_cell = iscell (G);
  if (! given_cell)
    G = {G};
  endif
  if (isempty (G))
    error ("muonlab:badShape", "%s: G must not be an empty cell.", fname);
  endif
  for i = 1:numel (G)
    gname = "G";                        # the errors name a cell's element: G{2}
    if (given_cell)
      gname = sprintf ("G{%d}", i);
    endif
    host_only (fname, gname, G{i});
    check_matrix (fname, gname, G{i});
    if (any (all (reshape (G{i}, [], size (G{i}, 3)) == 0, 1)))  # not sumsq: it underflows
      error ("muonlab:badArg",
             "%s: %s must have no zero page: its polar factor is undefined and every list would score NaN.",
             fname, gname);
    endif
  endfor
  for i = 1:2:numel (varargin)
    if (ischar (varargin{i}) && any (strcmpi (varargin{i}, {"Method", "Restarts"})))
      error ("muonlab:badArg", "%s: %s is set by the search and cannot be given.", fname,
             upper (varargin{i}));
    endif
  endfor
  o = parse_options (fname, "ns_restart_search", varargin);
  nr = o.maxrestarts;
  show = o.display;
  o = rmfield (o, {"maxrestarts", "display"});
  rmax = core_lists ().limits.max_restarts;     # the core's limit, defined once
  if (! (isnumeric (nr) && isscalar (nr) && isreal (nr) && nr == fix (nr) && nr >= 0
         && nr <= rmax))
    error ("muonlab:badArg", "%s: MAXRESTARTS must be an integer from 0 to %d.", fname, rmax);
  endif
  for i = 1:numel (G)                   # muon_ns's fallback rule (ns_shared.h)
    sz = size (G{i})(1:2);
    if (! (max (sz) / min (sz) > o.gram_min_aspect))
      error ("muonlab:badArg",
             "%s: the aspect of G (long side / short side; %g for its %d x %d matrix) must exceed GRAMMINASPECT (%g): at or below it muon_ns runs standard Newton-Schulz, which has no restarts.",
             fname, max (sz) / min (sz), sz, o.gram_min_aspect);
    endif
  endfor
  if (o.steps == 0)                     # the schedule's default count, as muon_ns
    K = max (rows (o.coeffs), 1);
    o.steps = 5 * (K == 1) + K * (K > 1);
  endif
  o.method = "gram";
  od = o;
  od.precision = "double";
  nr = min (double (nr), o.steps - 1);
  ## the core's own checks (schedule, device, ...) first, on a small matrix: under this
  ## function's name, and before the work limit, which counts the steps they allow
  o.restarts = zeros (1, 0);
  w = warning ("off", "all");           # its result is not looked at: a long schedule on
  unwind_protect                        # it may overflow, which says nothing of G
    ns_call (fname, ones (2, 4), o);
  unwind_protect_cleanup
    warning (w);
  end_unwind_protect
  ## the limit (core_lists), before any work: restart lists x steps x matrix entries, the
  ## lists counted as sum_k nchoosek (Steps - 1, k) in logs (no overflow, no enumeration)
  k = 0:nr;
  nlists = sum (round (exp (gammaln (o.steps) - gammaln (k + 1) - gammaln (o.steps - k))));
  entries = sum (cellfun (@numel, G));
  ## each muon_ns call also costs what about 8192 entries do (its own work: 0.2 ms): so
  ## many lists of a tiny G are bounded too
  work = nlists * (o.steps * entries + 8192 * numel (G));
  lim = core_lists ().limits;
  if (work > lim.max_autotune_work)
    error ("muonlab:badArg",
           "%s: %.4g restart lists x (%d steps x %d matrix entries + 8192 per matrix for each call) is more than %d (the limit max_autotune_work); lower STEPS, MAXRESTARTS or the size of G.",
           fname, nlists, o.steps, entries, lim.max_autotune_work);
  endif

  lists = {zeros(1, 0)};
  for k = 1:nr
    lists = [lists; num2cell(nchoosek (1:o.steps-1, k), 2)];
  endfor
  err = zeros (numel (lists), 1);
  t0 = tic ();
  for j = 1:numel (lists)
    o.restarts = od.restarts = lists{j};
    for i = 1:numel (G)
      Gi = G{i};
      X = double (ns_call (fname, Gi, o));
      Xd = ns_call (fname, double (Gi), od);
      for e = 1:size (Gi, 3)
        d = norm (X(:,:,e) - Xd(:,:,e), "fro") / norm (Xd(:,:,e), "fro");
        if (isnan (d))
          d = Inf;                        # a run that overflowed ranks last
        endif
        err(j) = max (err(j), d);
      endfor
    endfor
    if (strcmp (show, "iter"))
      printf ("%s: restarts %-12s error %.4g  (%d of %d, %.2f s)\n", fname,
              mat2str (lists{j}), err(j), j, numel (lists), toc (t0));
    endif
  endfor
  count = cellfun (@numel, lists);
  [~, order] = sort (err);
  T = struct ("restarts", {lists(order)}, "count", count(order), "error", err(order));
  T = ns_restart_result (T);
  best = struct ("count", {}, "restarts", {}, "error", {});
  for k = 0:nr
    j = find (T.count == k, 1);
    best(k+1) = struct ("count", k, "restarts", T.restarts{j}, "error", T.error(j));
  endfor
  best = ns_best_result (best);
  if (! strcmp (show, "off"))
    printf ("%s: %d restart lists in %.2f s; best %s, error %.4g\n", fname, numel (lists),
            toc (t0), mat2str (T.restarts{1}), T.error(1));
  endif
endfunction

%!test
%! ## each score is the fp32 run against the fp64 run of muon_ns with the same list
%! randn ("state", 3);
%! G = randn (12, 40);
%! [T, best] = ns_restart_search (G, "Coefficients", "you", "MaxRestarts", 1);
%! assert (numel (T.error), 1 + 4);
%! assert (issorted (T.error));
%! for j = 1:numel (T.error)
%!   o = {"Method", "gram", "Coefficients", "you", "Restarts", T.restarts{j}};
%!   X = muon_ns (G, o{:}, "Precision", "single");
%!   Xd = muon_ns (G, o{:});
%!   assert (T.error(j), norm (X - Xd, "fro") / norm (Xd, "fro"), -1e-12);
%! endfor
%! assert (best.count, [0; 1]);

%!test
%! ## a stack and a cell: the score is the worst page; bf16 precision is honoured
%! randn ("state", 4);
%! G = randn (8, 24, 2);
%! T = ns_restart_search (G, "MaxRestarts", 1);
%! T1 = ns_restart_search (G(:,:,1), "MaxRestarts", 1);
%! T2 = ns_restart_search ({G(:,:,2)}, "MaxRestarts", 1);
%! for j = 1:numel (T.error)
%!   r = T.restarts{j};
%!   e1 = T1.error(cellfun (@(x) isequal (x, r), T1.restarts));
%!   e2 = T2.error(cellfun (@(x) isequal (x, r), T2.restarts));
%!   assert (T.error(j), max (e1, e2));
%! endfor
%! Tb = ns_restart_search (G(:,:,1), "MaxRestarts", 0, "Precision", "bf16");
%! assert (Tb.error > 1e-3 && Tb.error < 0.2);

%!test
%! ## a tiny page is no zero page: its sum of squares underflows (to 0 below ~1e-162 in
%! ## double, ~1e-23 in single), and both were refused as "zero page"
%! randn ("state", 6);
%! G = 1e-170 * randn (4, 8);
%! assert (sumsq (G(:)), 0);
%! T = ns_restart_search (G, "MaxRestarts", 1);
%! ## G / Eps (1e-7) is ~1e-163, below fp32's least subnormal (1.4e-45): the fp32 run is
%! ## 0, the fp64 one not, so every list scores ||0 - Xd|| / ||Xd|| = 1
%! assert (T.error, ones (5, 1));
%! Gs = single (1e-24) * single (randn (4, 8));
%! assert (sumsq (Gs(:)), single (0));
%! T = ns_restart_search (Gs, "MaxRestarts", 1);
%! assert (numel (T.error), 5);
%! assert (all (T.error > 0 & T.error < 1e-6));        # fp32 rounding, ~G / Eps in range
%! o = {"Method", "gram", "Restarts", T.restarts{1}};
%! warning ("off", "muonlab:tinyInput", "local");      # muon_ns says: about G / Eps
%! X = double (muon_ns (Gs, o{:}, "Precision", "single"));
%! Xd = muon_ns (double (Gs), o{:}, "Precision", "double");
%! assert (T.error(1), norm (X - Xd, "fro") / norm (Xd, "fro"), -1e-12);
%! ## a zero page is still refused, next to a tiny one
%! fail ("ns_restart_search (cat (3, Gs, zeros (4, 8, 'single')))", "must have no zero page");

%!test
%! ## the work is refused before any run: the lists are counted, not enumerated
%! ## (Steps 60 with up to 30 restarts: sum_k nchoosek (59, k) ~ 3.6e17 lists)
%! [n, c] = deal (1);
%! for k = 1:30
%!   c *= (60 - k) / k;                # nchoosek (59, k)
%!   n += c;
%! endfor
%! t0 = tic ();
%! try
%!   ns_restart_search (ones (4, 8), "Steps", 60, "MaxRestarts", 30);
%!   assert (false);
%! catch e
%!   assert (e.identifier, "muonlab:badArg");
%!   want = sprintf ("ns_restart_search: %.4g restart lists x (60 steps x 32 matrix entries", n);
%!   assert (strncmp (e.message, want, numel (want)), true);
%! end_try_catch
%! assert (toc (t0) < 5);
%! ## one restart of up to 30 positions: 31 lists x 31 steps x 32 entries runs
%! T = ns_restart_search (ones (4, 8) + eye (4, 8), "Steps", 31, "MaxRestarts", 1);
%! assert (numel (T.error), 31);

%!test
%! ## why a square G is refused: muon_ns runs it without Gram, every list alike; past
%! ## GramMinAspect the lists differ
%! randn ("state", 5);
%! G = randn (8, 8);
%! o = {"Method", "gram", "Precision", "single"};
%! assert (isequal (muon_ns (G, o{:}, "Restarts", []), muon_ns (G, o{:}, "Restarts", 1)));
%! T = ns_restart_search ([G; randn(8, 8)], "GramMinAspect", 1.9, "MaxRestarts", 1);
%! assert (numel (unique (T.error)) > 1);

%!test
%! ## without a CUDA device the core's error is told under this function's name
%! if (! muon_info ().cuda_usable)
%!   try
%!     ns_restart_search (randn (4, 8), "Device", "cuda");
%!     error ("no error");
%!   catch err
%!     assert (any (strcmp (err.identifier, {"muonlab:noDevice", "muonlab:notBuilt"})));
%!     assert (strncmp (err.message, "ns_restart_search: ", 19));
%!   end_try_catch
%! endif

%!error <Invalid call> ns_restart_search ()
%!error <ns_restart_search: G is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(G\)\.> ns_restart_search (muon_gpu (randn (4, 8), "Device", "cpu"))
%!error <ns_restart_search: G\{2\} is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(G\{2\}\)\.> ns_restart_search ({randn(4, 8), muon_gpu(randn (4, 8), "Device", "cpu")})
%!error <ns_restart_search: the aspect of G \(long side / short side; 1 for its 8 x 8 matrix\) must exceed GRAMMINASPECT \(1\): at or below it muon_ns runs standard Newton-Schulz, which has no restarts\.> ns_restart_search (randn (8, 8), "MaxRestarts", 1)
%!error <ns_restart_search: the aspect of G \(long side / short side; 1 for its 6 x 6 matrix\) must exceed GRAMMINASPECT \(1\): at or below it muon_ns runs standard Newton-Schulz, which has no restarts\.> ns_restart_search ({randn(4, 8), randn(6, 6, 2)})
%!error <ns_restart_search: the aspect of G \(long side / short side; 2 for its 16 x 8 matrix\) must exceed GRAMMINASPECT \(2\): at or below it muon_ns runs standard Newton-Schulz, which has no restarts\.> ns_restart_search (randn (16, 8), "GramMinAspect", 2)
%!error <ns_restart_search: COEFFICIENTS must be a K x 3 matrix with K from 1 to 1000\.> ns_restart_search (randn (4, 8), "Coefficients", repmat ([3.4445 -4.775 2.0315], 1001, 1))
%!error <ns_restart_search: COEFFICIENTS must be a K x 3 matrix with K from 1 to 1000\.> ns_restart_search (randn (4, 8), "Coefficients", repmat ([3.4445 -4.775 2.0315], 1001, 1), "Steps", 3)
%!error <ns_restart_search: G must be a double or single matrix, not char \(convert it: double \(G\)\)\.> ns_restart_search ("abc")
%!error <ns_restart_search: G\{2\} must be a double or single matrix, not int8 \(convert it: double \(G\{2\}\)\)\.> ns_restart_search ({ones(3), int8(ones (3))})
%!error <ns_restart_search: G\{2\} must be a double or single matrix, not char \(convert it: double \(G\{2\}\)\)\.> ns_restart_search ({randn(4, 8), "a"})
%!error <ns_restart_search: G\{1\} must have no zero page: its polar factor is undefined and every list would score NaN\.> ns_restart_search ({zeros(4, 8)})
%!error <ns_restart_search: G must not be an empty cell.> ns_restart_search ({})
%!error <ns_restart_search: G must not contain NaN or Inf.> ns_restart_search ([1 NaN; 2 3])
%!error <ns_restart_search: MAXRESTARTS must be an integer from 0 to 64.> ns_restart_search (ones (4, 8), "MaxRestarts", 1.5)
%!test                                  # the limit and its message are the core's (core_lists)
%! lim = __muon_lists__ ().limits.max_restarts;
%! try
%!   ns_restart_search (ones (4, 8), "MaxRestarts", lim + 1);
%!   error ("no error");
%! catch err
%!   assert (err.message, sprintf ("ns_restart_search: MAXRESTARTS must be an integer from 0 to %d.", lim));
%! end_try_catch
%!error <ns_restart_search: RESTARTS is set by the search and cannot be given.> ns_restart_search (ones (4, 8), "Restarts", 2)
%!error <ns_restart_search: METHOD is set by the search and cannot be given.> ns_restart_search (ones (4, 8), "method", "gram")
%!error <^ns_restart_search: unknown option 'Foo'\. Options: .*\.$> ns_restart_search (ones (4, 8), "Foo", 1)
%!error <ns_restart_search: PRECISION must be 'double', 'single', 'bf16' or 'fp16'.> ns_restart_search (ones (4, 8), "Precision", "fp8")
%!error <ns_restart_search: STEPS must be a positive integer \(at most 1000\)\.> ns_restart_search (ones (4, 8), "Steps", 0)
%!error id=muonlab:badArg ns_restart_search (ones (4, 8), "Steps", 0)
%!error <ns_restart_search: 4\.995e\+05 restart lists x \(1000 steps x 32 matrix entries \+ 8192 per matrix for each call\) is more than 1000000000 \(the limit max_autotune_work\); lower STEPS, MAXRESTARTS or the size of G\.> ns_restart_search (ones (4, 8), "Steps", 1000)
## many lists of a tiny G: each call's own cost counts (4.2 million lists took 800 s)
%!error <^ns_restart_search: 4\.194e\+06 restart lists x .* is more than 1000000000 \(the limit max_autotune_work\); lower STEPS, MAXRESTARTS or the size of G\.$> ns_restart_search (ones (2, 3), "Steps", 23, "MaxRestarts", 64)
%!error <ns_restart_search: G must have no zero page: its polar factor is undefined and every list would score NaN\.> ns_restart_search (zeros (4, 8))
%!error <ns_restart_search: G\{2\} must have no zero page: its polar factor is undefined and every list would score NaN\.> ns_restart_search ({ones(4, 8), cat(3, ones (4, 8), zeros (4, 8))})
%!test
%! ## a long schedule: no warning from the check run on a matrix of its own (it said
%! ## "muon_ns: 8 non-finite values in the result" for this finite G)
%! randn ("state", 1);
%! G = randn (8, 24);
%! lastwarn ("");
%! T = ns_restart_search (G, "Steps", 100, "MaxRestarts", 0);
%! assert (lastwarn (), "");
%! assert (isfinite (T.error(1)) && T.error(1) < 0.1);

%!demo
%! ## fp32 Gram with deepseekv4 (10 steps): DeepSpeed's [2] against the searched list
%! randn ("state", 1);
%! G = {randn(32, 64), randn(64, 192), randn(128, 512)};
%! [T, best] = ns_restart_search (G, "Coefficients", "deepseekv4");
%! r2 = T.error(cellfun (@(r) isequal (r, 2), T.restarts));
%! printf ("[2]: %.3g   best of <= 2: %s %.3g\n", r2, mat2str (T.restarts{1}), T.error(1));
