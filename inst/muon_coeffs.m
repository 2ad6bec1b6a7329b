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
## and Scion; not its Polar Express set, @qcode{"polar_express_eo"})
## @item polar_express
## Dao's Polar Express values with safety factor 1.05: (a/1.05, b/1.05^3, c/1.05^5)
## @item polar_express_dion
## Polar Express as in microsoft/dion (safety 1.02 included)
## @item polar_express_eo
## Polar Express as in NVIDIA Emerging-Optimizers, 8 steps
## @item cans
## @itemx aol
## Emerging-Optimizers' CANS and AOL schedules
## @item deepseekv4
## 8 keller steps, then 2 x (2, -1.5, 0.5)
## @item cubic5
## five cubic steps (c = 0)
## @end table
##
## The three Polar Express tables are the construction of @code{ns_design_coeffs} with the
## settings its help states (regenerated there to 1e-12).
##
## @seealso{muon_ns, ns_design_coeffs}
## @end deftypefn

function C = muon_coeffs (name)
  ## the core's table, asked once per session (no probe of the machine)
  [names, all] = coeff_table ();
  if (nargin == 0)
    C = names;
    return;
  endif
  if (! (ischar (name) && isrow (name)))
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
%!error <muon_coeffs: unknown coefficient schedule 'foo'.> muon_coeffs ("foo")
