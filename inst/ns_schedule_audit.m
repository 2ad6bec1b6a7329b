## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{R} =} ns_schedule_audit ()
## @deftypefnx {muonlab} {@var{R} =} ns_schedule_audit (@var{coeffs})
## @deftypefnx {muonlab} {} ns_schedule_audit (@dots{})
## Audit Newton-Schulz coefficient schedules: where the composed scalar map is safe.
##
## @var{coeffs} is a schedule name (see @code{muon_coeffs}), a K x 3 matrix of triples,
## or a cell array of them; without it, every shipped schedule (@code{muon_coeffs ()}, the
## core's one list, in its order).  Each schedule is audited as @code{muon_ns} runs it by
## default: its default step count (5 for a single triple, else K).  The composed map
## p (x) = p_K (... p_1 (x)), p_k (x) = a x + b x^3 + c x^5, is what the iteration does to
## every singular value x of the normalized input; a good schedule keeps p (x) > 0 on
## (0, 1] (p (x) < 0 reverses that singular direction) and near 1.
##
## The range a normalization can leave is (0, 1] in exact arithmetic: the Frobenius
## normalization G / (||G||_F + Eps) and AOL's (@code{muon_ns} "Normalize") both bound the
## largest singular value by 1, and AOL reaches 1 exactly on a rank-1 input.  The audit
## also looks a little beyond, up to 1 + 2^-8, a margin for the rounding of the normalized
## input to bf16.  The map is sampled on 60 log-spaced points on [1e-6, 1e-3) and 20001
## even points from 1e-3 up: a sign change is placed to within 5e-5 from 1e-3 up, and
## below to within a factor 10^0.05 = 1.122 (the last gap, up to 1e-3, is 1.09e-4).
## Below the grid, the sign of p on (0, eps) for small enough eps is decided exactly: near
## 0, p (x) is L x^e to leading order, L the product of each step's lowest-order nonzero
## coefficient (a, else b, else c), so p < 0 just above 0 exactly when that product is
## negative (e.g. p (x) = -x + 1e13 x^3, negative only below 3.16e-7).
##
## @var{R} is a struct array, one element per schedule, with the fields
## @table @code
## @item name
## the schedule's name (@qcode{""} for a matrix)
## @item steps
## the number of steps audited
## @item p_min, p_min_at, p_max, p_max_at
## the smallest and largest p (x) over x in [1e-3, 1], and where
## @item p_one
## p (1)
## @item overshoot
## max (0, p_max - 1): how far the schedule itself goes above 1 on [1e-3, 1]
## @item ext_min, ext_max, ext_hi
## the smallest and largest p (x) over [1e-3, ext_hi], ext_hi = 1 + 2^-8
## @item negative
## true if p (x) < 0 somewhere on (0, 1]: at a sampled x, or just above 0 (@code{muon_ns}
## then warns @code{muonlab:unsafeSchedule})
## @item negative_from
## the smallest sampled x in (0, ext_hi] with p (x) < 0; 0 when p < 0 just above 0 (the
## exact sign below the grid); NaN if neither
## @item above_from
## the smallest sampled x in (1, ext_hi] with p (x) > 1 + overshoot, i.e. where the
## normalization's margin takes the map above what it reaches on [1e-3, 1] (NaN if
## nowhere)
## @item probe_frobenius, probe_aol
## the near-rank-1 probe: u1' X v1, X = @code{muon_ns} (P, "Coefficients", @dots{},
## "Precision", "double") with @qcode{"Normalize"} @qcode{"frobenius"} and
## @qcode{"aol"}, P a fixed 32 x 64 matrix u v' + 1e-3 E (u, v, E Gaussian with
## ||u|| = ||v|| = ||E||_F = 1; the caller's randn stream is left as it was), u1, v1 its top singular
## vectors.  X keeps the direction of u1 v1' when the probe is near p (1) > 0; a
## negative probe means the update points against the input's dominant direction.
## @end table
##
## Without an output argument the table is printed (@code{demo/ns_design_lab.m} prints
## it for every shipped schedule).
##
## Example:
## @example
## R = ns_schedule_audit ("aol");
## [R.negative_from, R.p_one, R.probe_frobenius]   % about 0.884, -0.99, -0.99
## @end example
##
## @seealso{muon_coeffs, muon_ns, ns_design_coeffs}
## @end deftypefn

function R = ns_schedule_audit (coeffs)
  fname = "ns_schedule_audit";
  if (nargin < 1)
    coeffs = muon_coeffs ();
  endif
  if (! iscell (coeffs))
    coeffs = {coeffs};
  elseif (isempty (coeffs))
    error ("muonlab:badArg",
           "%s: COEFFS must be a schedule name, a K x 3 real matrix or a cell of them.", fname);
  endif
  [P, u1, v1] = probe_input ();
  hi = 1 + 2^-8;
  for i = numel (coeffs):-1:1
    c = coeffs{i};
    name = "";
    if (ischar (c))
      name = c;
    endif
    if (! (ischar (c) || isnumeric (c)) || isempty (c))
      error ("muonlab:badArg",
             "%s: COEFFS must be a schedule name, a K x 3 real matrix or a cell of them.",
             fname);
    endif
    try
      o = parse_options (fname, "muon_ns", {"Coefficients", c}, "precision", "double");
    catch err
      error (err.identifier, "%s", strrep (strrep (err.message, "muon_ns", fname),
                                           "COEFFICIENTS", "COEFFS"));
    end_try_catch
    C = expand_schedule (o.coeffs, o.steps, o.schedule_mode);
    [p, x, s0] = ns_map (C, hi);
    in = x >= 1e-3 & x <= 1;
    xi = x(in);
    pin = p(in);
    [pmin, kmin] = min (pin);
    [pmax, kmax] = max (pin);
    ov = max (0, pmax - 1);
    ext = x >= 1e-3;
    neg = find (p < 0, 1);
    xneg = nan_if_empty (x(neg));
    if (s0 < 0)                         # negative just above 0, below the grid
      xneg = 0;
    endif
    above = find (x > 1 & p > 1 + ov, 1);
    ## the probe runs the core directly: muon_ns would warn (once) for an unsafe schedule
    o.coeffs = C;
    o.steps = rows (C);
    o.normalize = "frobenius";
    Xf = ns_call (fname, P, o, "COEFFICIENTS", "COEFFS");
    o.normalize = "aol";
    Xa = ns_call (fname, P, o, "COEFFICIENTS", "COEFFS");
    R(i) = struct ("name", name, "steps", rows (C), "p_min", pmin, "p_min_at", xi(kmin),
                   "p_max", pmax, "p_max_at", xi(kmax), "p_one", ns_map (C, [], 1),
                   "overshoot", ov, "ext_min", min (p(ext)), "ext_max", max (p(ext)),
                   "ext_hi", hi, "negative", s0 < 0 || any (p(x <= 1) < 0),
                   "negative_from", xneg,
                   "above_from", nan_if_empty (x(above)),
                   "probe_frobenius", u1' * Xf * v1, "probe_aol", u1' * Xa * v1);
  endfor
  if (nargout == 0)
    print_table (R);
    clear R;
  endif
endfunction

## The near-rank-1 probe: u v' + 1e-3 E, fixed, with the caller's generator as it was.
function [P, u1, v1] = probe_input ()
  r = fixed_randn (27, {32 + 64 + 32 * 64, 1});
  u = r(1:32);
  v = r(33:96);
  E = reshape (r(97:end), 32, 64);
  P = (u / norm (u)) * (v / norm (v))' + 1e-3 * E / norm (E, "fro");
  [U, ~, V] = svd (P);
  u1 = U(:,1);
  v1 = V(:,1);
endfunction

function v = nan_if_empty (v)
  if (isempty (v))
    v = NaN;
  endif
endfunction

function print_table (R)
  printf ("%-20s %5s %8s %8s %8s %9s %9s %10s %10s %8s %9s\n", "schedule", "steps",
          "p min", "p max", "p(1)", "overshoot", "ext max", "neg from", "above from",
          "probe F", "probe AOL");
  for r = R
    name = r.name;
    if (isempty (name))
      name = "(matrix)";
    endif
    printf ("%-20s %5d %8.3f %8.3f %8.3f %9.3f %9.3g %10.6g %10.6g %8.3f %9.3f%s\n", name,
            r.steps, r.p_min, r.p_max, r.p_one, r.overshoot, r.ext_max, r.negative_from,
            r.above_from, r.probe_frobenius, r.probe_aol,
            merge (r.negative, "   negative on (0, 1]", ""));
  endfor
endfunction

%!demo
%! ## every shipped schedule: where its composed map is safe, and the near-rank-1 probe
%! ns_schedule_audit ()

%!test
%! ## the caller's randn stream is left as it was, on the new generator and on the old one
%! ## (randn ("seed", s)), which the probe's fixed draw must not switch off
%! for gen = {"state", "seed"}
%!   randn (gen{1}, 7);
%!   a = randn (1, 3);
%!   randn (gen{1}, 7);
%!   ns_schedule_audit ("keller");
%!   assert (randn (1, 3), a);
%! endfor

%!test
%! ## the aol schedule (issue 27): negative above 0.884, p(0.9) = -1.08, p(1) = -0.99
%! R = ns_schedule_audit ("aol");
%! assert (R.negative);
%! assert (R.negative_from, 0.884, 5e-4);
%! assert (R.p_one, -0.99, 5e-3);
%! assert (R.p_min < -1.07);
%! assert (R.probe_frobenius < -0.9 && R.probe_aol < -0.9);

%!test
%! ## keller: positive, in [0.471, 1.202] on [1e-3, 1] after 5 steps (its band [0.68, 1.13]
%! ## is that of the singular values of a normalized random matrix, not of all of [1e-3, 1])
%! R = ns_schedule_audit ({"keller", [3.4445, -4.7750, 2.0315]});
%! assert ({R.name}, {"keller", ""});
%! assert (R(1).steps, 5);
%! assert (! R(1).negative && isnan (R(1).negative_from));
%! assert (R(1).p_min, 0.471, 1e-3);                    # at 1e-3
%! assert (R(1).p_max, 1.202, 1e-3);
%! assert (R(1).probe_frobenius > 0.6);
%! assert (rmfield (R(1), "name"), rmfield (R(2), "name"));

%!error <ns_schedule_audit: COEFFS must be a schedule name, a K x 3 real matrix or a cell of them.> ns_schedule_audit ({{1}})
%!error <ns_schedule_audit: COEFFS must be a schedule name, a K x 3 real matrix or a cell of them.> ns_schedule_audit ({})
%!test
%! ## p_min and p_max are over [1e-3, 1], x = 1 included: p_min <= p (1) <= p_max (the grid
%! ## missed 1, and p_min came out above p_one)
%! R = ns_schedule_audit ([1 -1.00002 0; 1 0 0]);
%! assert (R.p_min <= R.p_one && R.p_one <= R.p_max);
%! assert (R.p_min, 1 - 1.00002, eps);
%!test
%! ## p (x) = -x + 1e13 x^3 is negative only on (0, 1e-6.5 = 3.16e-7), below the grid
%! ## (it starts at 1e-6): the sign near 0, that of -1, flags it; negative was false
%! C = [-1 1e13 0; 1 0 0];
%! x = [1e-7, 3e-7];
%! assert (-x + 1e13 * x.^3 < 0);                      # by hand: p(1e-7) = -9e-8
%! R = ns_schedule_audit (C);
%! assert (R.negative);
%! assert (R.negative_from, 0);
%! ## a zero linear term: the cubic one decides (-x^3 near 0), and a zero step gives p = 0
%! R = ns_schedule_audit ({[0 -1 1e13; 1 0 0], [0 1 -1e-13; 1 0 0], [0 0 0; 1 0 0]});
%! assert ([R.negative], [true false false]);
%! assert ([R.negative_from], [0 NaN NaN]);
%! ## signs multiply over the steps: (-x) twice is x, a positive map
%! R = ns_schedule_audit ([-1 0 0; -1 0 0]);
%! assert (! R.negative && isnan (R.negative_from));
%!error <^ns_schedule_audit: unknown coefficient schedule 'foo'\. Coefficient schedules: .*\.$> ns_schedule_audit ("foo")
%!error <ns_schedule_audit: COEFFS must be a schedule name or a K x 3 real matrix.> ns_schedule_audit (ones (2, 2))
%!error <ns_schedule_audit: COEFFS must be a K x 3 matrix with K from 1 to 1000\.> ns_schedule_audit (repmat ([3.4445 -4.775 2.0315], 1001, 1))
