## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {muonlab} {@var{y} =} muon_round (@var{x}, @var{prec})
## Round every element of @var{x} once, to nearest-even, to @var{prec}: @qcode{"keep"}
## (no change), @qcode{"double"}, @qcode{"single"}, @qcode{"bf16"} or @qcode{"fp16"}
## (with their subnormals; overflow to Inf).  The result keeps the class of @var{x} and
## holds exactly representable values.  bf16 and fp16 are rounded straight from the value
## of @var{x} (no intermediate rounding to single), as the C core rounds the fp32 values of
## its bf16 and fp16 emulation (every product and sum of a low-precision muon_ns): use it
## to give a function low-precision data, e.g. gradients as fp16 would hold them.  (The
## peers' cast-first order, @code{muon_ns}'s @qcode{"NormalizeFirst", false}, takes a
## double G through single first, as a float32 gradient is cast: there a double x can
## differ from @code{muon_round (x, "bf16")} by a double rounding, e.g. 1 + 2^-8 + 2^-30.)
##
## @example
## muon_round (1 + 2^-9, "bf16")    # 1: the nearest bf16, ties to even
## muon_round (70000, "fp16")       # Inf: above fp16's largest, 65504
## @end example
## @seealso{muon_ns}
## @end deftypefn

function y = muon_round (x, prec)
  if (nargin != 2)
    print_usage ();
  endif
  host_only ("muon_round", "X", x);
  if (! (isfloat (x) && isreal (x)) || issparse (x))
    error ("muonlab:badType", "muon_round: X must be a real double or single array.");
  endif
  prec = choose_option ("muon_round", "PREC", prec, [{"keep"}, core_lists().lists.precision]);
  switch (prec)
    case {"keep", "double"}
      y = x;
      return;
    case "single"
      y = cast (single (x), class (x));
      return;
    case "bf16"
      sig = 8; emin = -126; fmax = (2 - 2^-7) * 2^127;
    case "fp16"
      sig = 11; emin = -14; fmax = 65504;
  endswitch
  xd = double (x);
  y = xd;
  k = isfinite (xd) & xd != 0;
  a = xd(k);
  [~, e] = log2 (abs (a));           # |a| = f * 2^e, f in [0.5, 1)
  q = 2 .^ (max (e, emin + 1) - sig); # spacing at |a| (subnormal spacing below emin)
  t = a ./ q;                         # exact: a power-of-two scaling
  r = round (t);
  tie = abs (t - fix (t)) == 0.5;
  r(tie) = 2 * round (t(tie) / 2);    # ties to even
  r = r .* q;
  r(abs (r) > fmax) = Inf * sign (r(abs (r) > fmax));
  y(k) = r;
  y = cast (y, class (x));
endfunction

%!demo
%! ## the same numbers rounded to bf16 and fp16 as the core rounds them
%! x = [1 + 2^-9, pi, 1e-6, 70000];
%! printf ("%12s %14s %14s\n", "x", "bf16", "fp16");
%! printf ("%12.6g %14.8g %14.8g\n", [x; muon_round(x, "bf16"); muon_round(x, "fp16")]);

%!assert (muon_round (1 + 2^-9, "bf16"), 1)
%!assert (muon_round (1 + 3 * 2^-9, "bf16"), 1 + 2^-7)
%!assert (muon_round (1 + 2^-11, "fp16"), 1)
%!assert (muon_round ([70000 -70000 65504], "fp16"), [Inf -Inf 65504])
%!assert (muon_round (2^-24 * 0.75, "fp16"), 2^-24)
%!assert (class (muon_round (single (pi), "bf16")), "single")
%!assert (muon_round ([NaN Inf 0], "fp16"), [NaN Inf 0])
%!assert (muon_round (pi, "single"), double (single (pi)))
%!error <muon_round: X must be a real double or single array.> muon_round (int8 (1), "bf16")
%!error <muon_round: X is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(X\)\.> muon_round (muon_gpu (randn (4, 3), "Device", "cpu"), "bf16")
%!error <muon_round: X must be a real double or single array.> muon_round (sparse (eye (2)), "single")
%!error <muon_round: PREC must be 'keep', 'double', 'single', 'bf16' or 'fp16'.> muon_round (1, "fp8")

%!test
%! ## one rounding from the double, not through single: 1 + 2^-8 + 2^-30 is above the tie
%! ## 1 + 2^-8 between bf16's 1 and 1 + 2^-7, its single (1 + 2^-8) is on it (to even: 1)
%! x = 1 + 2^-8 + 2^-30;
%! assert (muon_round (x, "bf16"), 1 + 2^-7);
%! assert (muon_round (single (x), "bf16"), single (1));
