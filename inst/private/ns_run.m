## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{X}, @var{stats}] =} ns_run (@var{G}, @var{opts})
## Newton-Schulz of @var{G} (a matrix or a stack of pages) by @code{__muon_ns__} with the
## parsed @code{muon_ns} options @var{opts}, including the two normalization conventions
## the core's step does not spell (@qcode{"NormScale"} s and @qcode{"EpsPlacement"}):
## @example
## add:  X = G / (s ||G|| + Eps)       (Keller: s = 1, Eps 1e-7; dion: s = 1.02, Eps 1e-8)
## max:  X = G / max (s ||G||, Eps)    (Emerging-Optimizers' F.normalize, Eps 1e-15)
## @end example
## Both are the core's @code{G / (||G|| + e)} followed by a division by t, and a division
## of the iterate by t is the first step's triple (a, b, c) taken as
## (a/t, b/t^3, c/t^5): add uses t = s and e = Eps/s, max uses e = 0 and, per page,
## t = max (s ||G||, Eps) / ||G|| (the page's scaled norm, @code{norm (.,"fro")}: no
## underflow for tiny pages; t^3 and t^5 may overflow to Inf there, which drops the
## first step's cubic and quintic terms, negligible beside the linear one); a page of
## subnormal norm takes t = 1 and e = Eps instead (||G|| + Eps is Eps exactly there; t
## itself would be inexact or overflow).  Exact in real
## arithmetic; the rounding of the first step differs from a division by t.  The
## defaults (s = 1, add) call the core untouched, so its bits are unchanged.
## @end deftypefn

function [X, stats] = ns_run (G, opts)
  s = opts.norm_scale;
  place = opts.eps_placement;
  opts = rmfield (opts, {"norm_scale", "eps_placement"});
  stats = [];
  if (s == 1 && strcmp (place, "add"))
    if (nargout > 1)
      [X, stats] = __muon_ns__ (G, opts);
    else
      X = __muon_ns__ (G, opts);
    endif
    return;
  endif
  E = size (G, 3);
  if (strcmp (place, "add"))            # every page: t = s, e = Eps / s (AOL: its floor Eps)
    t = s * ones (1, E);
    e = opts.eps / s * ones (1, E);
    if (strcmp (opts.normalize, "aol"))
      e(:) = opts.eps;
    endif
  else
    ## per page: t = max (s ||G||, Eps) / ||G|| (1 where the page is zero: zeros anyway)
    nrm = zeros (1, E);
    for k = 1:E
      nrm(k) = norm (double (G(:,:,k)), "fro");   # scaled: no underflow below 1e-162
    endfor
    t = s * ones (1, E);
    e = zeros (1, E);
    small = nrm > 0 & s * nrm < opts.eps;
    t(small) = opts.eps ./ nrm(small);
    ## a page of subnormal norm: t would be inexact, or overflow (a / Inf: zeros); there
    ## ||G|| + Eps is Eps exactly, so the core's own G / (||G|| + Eps) is G / Eps
    sub = small & nrm < realmin;
    [t(sub), e(sub)] = deal (1, opts.eps);
  endif
  [T, ~, j] = unique ([t(:) e(:)], "rows");
  if (rows (T) == 1)
    [X, stats] = first_scaled (G, fold (setfield (opts, "eps", T(1,2)), T(1,1)));
  else                                  # pages below Eps: each (t, e) its own call
    X = zeros (size (G), class (G));
    for k = 1:rows (T)
      p = find (j == k);
      [X(:,:,p), st] = first_scaled (G(:,:,p), fold (setfield (opts, "eps", T(k,2)), T(k,1)));
      stats = add_stats (stats, st);
    endfor
  endif
endfunction

## the stats of several calls as those of one: counts and times add up
function s = add_stats (s, t)
  if (isempty (s))
    s = t;
    return;
  endif
  for f = {"products", "product_flops", "product_seconds", "total_seconds"}
    s.(f{1}) += t.(f{1});
  endfor
  s.product_gflops = s.product_flops / s.product_seconds / 1e9;
endfunction

function [X, stats] = first_scaled (G, opts)
  [X, stats] = __muon_ns__ (G, opts);
endfunction

## The schedule expanded to its step count (the core's rule: Steps 0 is 5 for one triple,
## else the list's length; beyond the list, repeat_last or cycle) with the first triple
## taken on X / t.
function opts = fold (opts, t)
  C = opts.coeffs;
  if (isempty (C))
    [names, tables] = coeff_table ();
    C = tables{strcmp (names, "keller")};
  endif
  K = rows (C);
  steps = opts.steps;
  if (steps == 0)
    steps = merge (K == 1, 5, K);
  endif
  k = 1:steps;
  if (strcmp (opts.schedule_mode, "cycle"))
    k = mod (k - 1, K) + 1;
  else
    k = min (k, K);
  endif
  C = C(k,:);
  C(1,:) = C(1,:) ./ [t, t^3, t^5];
  if (! all (isfinite (C(1,:))))        # NormScale so small that 1/s^5 overflows
    fname = "muon_ns";
    if (isfield (opts, "fname"))
      fname = opts.fname;
    endif
    error ("muonlab:badArg",
           "%s: NORMSCALE %g is too small: the first step's coefficients (a/s, b/s^3, c/s^5) overflow.",
           fname, t);
  endif
  opts.coeffs = C;
  opts.steps = steps;
endfunction
