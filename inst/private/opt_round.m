## -*- texinfo -*-
## @deftypefn {} {@var{y} =} opt_round (@var{x}, @var{prec})
## Round every element of @var{x} once, to nearest-even, to @var{prec}: @qcode{"keep"}
## (no change), @qcode{"double"}, @qcode{"single"}, @qcode{"bf16"} or @qcode{"fp16"}
## (with their subnormals; overflow to Inf).  The result keeps the class of @var{x} and
## holds exactly representable values.  bf16 and fp16 are rounded straight from the value
## of @var{x} (no intermediate rounding to single).
## @end deftypefn

function y = opt_round (x, prec)
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
