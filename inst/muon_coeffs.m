## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {@var{names} =} muon_coeffs ()
## @deftypefnx {muonlab} {@var{C} =} muon_coeffs (@var{name})
## Newton-Schulz coefficient schedules.
##
## With no argument, return the names of the built-in schedules as a cell array of
## strings (the core's table, read once per session).  With a @var{name}, return its
## K x 3 matrix of triples (a, b, c); step k maps each singular value x to
## a x + b x^3 + c x^5.
##
## @table @code
## @item keller
## (3.4445, -4.7750, 2.0315), the constant quintic of Keller Jordan's Muon and DeepSpeed
## @item you
## You Jiacheng's 5-step schedule
## @item eo_quintic
## the same triples under NVIDIA Emerging-Optimizers' name: its
## @code{coefficient_type="quintic"} (the NS_EO of its NorMuon, AdaMuon, NAMO, PolarGrad
## and Scion; not its Polar Express set, @qcode{"polar_express_eo"}).  Past the end of a
## list, Emerging-Optimizers cycles its @qcode{"quintic"}, @qcode{"simple"} (keller),
## @qcode{"aol"} and custom schedules and repeats the last triple of its Polar Express,
## CANS and DeepSeek-V4 ones: give @code{muon_ns} @qcode{"ScheduleMode"}, @qcode{"cycle"}
## to match it beyond the list's length (the default repeats the last triple; 7 quintic
## steps differ by up to 0.89 over [1e-3, 1] and by 0.37 at 1, where EO's cycled map
## gives 0.62: past its five steps that schedule leaves orthogonality)
## @item polar_express
## Dao's Polar Express values with safety factor 1.05: (a/1.05, b/1.05^3, c/1.05^5)
## @item polar_express_dion
## Polar Express as in microsoft/dion (safety 1.02 included)
## @item polar_express_eo
## Polar Express as in NVIDIA Emerging-Optimizers, 8 steps
## @item cans
## Emerging-Optimizers' CANS schedule.  Its first step maps 1 to 1.99, and the composed
## map explodes just above 1: p(1) = 1.005, p(1 + 1e-5) = 2.6, p(1 + 2e-5) = 10,
## p(1 + 2^-8) = 1e57 (@code{ns_schedule_audit}'s @code{above_from} and @code{ext_max}), so
## it relies on the normalization never leaving a singular value above 1.  In bf16 the
## rounding of its steps is enough to set it off: one of five random 20 x 20 inputs comes
## out with a singular value of 1200 (@code{muon_ns} warns @code{muonlab:diverged}).
## @item aol
## Emerging-Optimizers' 4-step @qcode{"aol"} schedule, for Turbo-Muon's AOL scaling
## (@code{muon_ns} "Normalize", "aol").  @strong{Unsafe}: its composed map is negative for
## singular values above 0.884 (p(0.9) = -1.08, p(1) = -0.99), so @code{muon_ns} warns
## @code{muonlab:unsafeSchedule} when it runs it.  An input with a dominant singular
## direction gets an update that points against it: on a near-rank-1 input the result's
## component along u1 v1' is about -0.99 (Frobenius) and -0.97 (AOL), see
## @code{ns_schedule_audit}.  AOL does not keep the input below 0.884: it bounds the
## largest singular value by 1 only, and a rank-1 input reaches 1 exactly.  Where the
## triples come from (Turbo-Muon's code, thib-s/flash-newton-schulz, which
## Emerging-Optimizers cites): they are the ones of its first commit (b73111d, August
## 2025), found by a cross-entropy search (opt_params.py) that scored the orthogonality
## error ||X X' - I||_F, which cannot see a sign (p = -1 scores as p = +1), on N(0,1)
## square matrices of 64 to 256, where AOL leaves the top singular value at 0.53 to 0.70
## (never in the negative region), and with a first step that is not the one they are
## used with (the Gram rescaled as A/s instead of D A D, no c term).  A week later
## (b536fa8, "fixed bug in second normalization") the author fixed that first step and
## replaced the triples; the current code runs the last four triples of @qcode{"you"}
## after AOL.  So the triples assume the input range of that pool, not one that AOL
## guarantees.  The Turbo-Muon paper (arXiv 2512.04632) motivates AOL by the bound
## ||X||_2 <= 1; we found no narrower range stated for these triples.
## @item deepseekv4
## 8 keller steps, then 2 x (2, -1.5, 0.5)
## @item cubic5
## five cubic steps (c = 0)
## @end table
##
## @code{ns_schedule_audit} checks every schedule's composed map (its minimum and maximum
## on [1e-3, 1], where it goes negative) and a near-rank-1 probe; a schedule whose map goes
## negative on (0, 1] makes @code{muon_ns} warn @code{muonlab:unsafeSchedule}.
##
## The three Polar Express tables are the construction of @code{ns_design_coeffs} with the
## settings its help states, regenerated there: polar_express and polar_express_dion to
## 1e-12 per coefficient, polar_express_eo to 1e-4 (its published table has 4 decimals).
##
## @seealso{muon_ns, ns_design_coeffs, ns_schedule_audit}
## @end deftypefn

function C = muon_coeffs (name)
  ## the core's table, asked once per session (no probe of the machine)
  [names, all] = coeff_table ();
  if (nargin == 0)
    C = names;
    return;
  endif
  if (! (ischar (name) && (isrow (name) || isempty (name))))
    error ("muonlab:badArg", "muon_coeffs: NAME must be a string.");
  endif
  k = find (strcmpi (name, names), 1);
  if (isempty (k))
    error ("muonlab:badArg", "muon_coeffs: unknown coefficient schedule '%s'.", name);
  endif
  C = all{k};
endfunction

%!demo
%! ## the shipped schedules, and how far each takes a small singular value in 5 steps
%! names = muon_coeffs ()
%! for k = 1:numel (names)
%!   C = muon_coeffs (names{k});
%!   x = 1e-3;
%!   for s = 1:5
%!     c = C(min (s, rows (C)),:);
%!     x = c(1) * x + c(2) * x^3 + c(3) * x^5;
%!   endfor
%!   printf ("%-20s %2d step(s) in the table: sigma 1e-3 -> %.4f after 5 steps\n", names{k}, rows (C), x);
%! endfor

%!assert (muon_coeffs ("keller"), [3.4445, -4.7750, 2.0315])
%!assert (muon_coeffs ("KELLER"), [3.4445, -4.7750, 2.0315])
%!assert (size (muon_coeffs ("deepseekv4")), [10 3])
%!assert (muon_coeffs ("deepseekv4")(9:10,:), [2 -1.5 0.5; 2 -1.5 0.5])
%!assert (muon_coeffs ("cubic5")(:,3), zeros (5, 1))
%!assert (muon_coeffs ("polar_express")(1,:),
%!        [8.28721201814563/1.05, -23.595886519098837/1.05^3, 17.300387312530933/1.05^5],
%!        1e-15)
%!test
%! names = muon_coeffs ();
%! assert (iscellstr (names));
%! assert (all (ismember ({"keller", "you", "polar_express", "polar_express_dion", ...
%!                         "polar_express_eo", "cans", "aol", "deepseekv4", "cubic5", ...
%!                         "eo_quintic"}, names)));
%!assert (muon_coeffs ("eo_quintic"), muon_coeffs ("you"))
%!test
%! ## one list: the core's table, in its order, each matrix as the gateway gives it
%! [names, C] = __muon_coeffs__ ();
%! assert (muon_coeffs (), names);
%! for k = 1:numel (names)
%!   assert (muon_coeffs (names{k}), C{k});
%!   assert (__muon_coeffs__ (names{k}), C{k});
%! endfor

%!error <muon_coeffs: NAME must be a string.> muon_coeffs (3)
%!error <muon_coeffs: unknown coefficient schedule ''.> muon_coeffs ("")
%!error <muon_coeffs: unknown coefficient schedule 'foo'.> muon_coeffs ("foo")
