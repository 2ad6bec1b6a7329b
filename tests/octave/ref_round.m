## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{Y} =} ref_round (@var{X}, @var{prec})
## Test reference: round the values of @var{X} to the precision @var{prec} ("bf16" or
## "fp16"; "single" only converts, "double" returns @var{X} unchanged) with
## round-to-nearest, ties to even.  @var{X} is first converted to single; @var{Y} is a
## single array holding exactly representable bf16 / fp16 values.  NaN stays NaN, values
## past the largest finite number overflow to +-Inf, fp16 has subnormals (and so does
## bf16, inheriting fp32's), the sign of zero is kept.
##
## Written from the definition of the formats, independently of core/: the fp32 bit
## pattern is split into sign, exponent and significand (integers), the significand is
## cut to the quantum of the target format at that exponent (2^(max (e, emin) - p)), the
## remainder decides the rounding (ties to the even quotient), and the value is rebuilt as
## quotient * quantum.  Integer values up to 2^25 are held exactly in doubles.
## @end deftypefn

function Y = ref_round (X, prec)
  switch (prec)
    case "double"
      Y = X;
      return;
    case "single"
      Y = single (X);
      return;
    case "bf16"
      p = 7;    emin = -126;  maxfin = (2 - 2^-7) * 2^127;
    case "fp16"
      p = 10;   emin = -14;   maxfin = 65504;
    otherwise
      error ("ref_round: unknown precision '%s'", prec);
  endswitch
  xs = single (X);
  u = double (typecast (xs(:), "uint32"));           # fp32 bits as exact integers
  sgn = floor (u / 2^31);                            # 0 or 1
  E = mod (floor (u / 2^23), 256);                   # biased exponent
  M = mod (u, 2^23);                                 # stored fraction bits
  ## value = S * 2^k with S an integer significand
  S = M + 2^23 * (E > 0);
  k = max (E, 1) - 150;                              # 2^(E - 127 - 23), subnormals 2^-149
  e = max (E, 1) - 127;                              # unbiased exponent of the leading bit
  qexp = max (e, emin) - p;                          # quantum of the target format here
  d = qexp - k;                                      # bits to drop (>= 0 for bf16/fp16)
  d = max (d, 0);
  den = 2 .^ d;                                      # exact (d <= 40 or so)
  q = floor (S ./ den);
  rem = S - q .* den;
  half = den / 2;
  up = (rem > half) | (rem == half & mod (q, 2) == 1);
  q = q + up;
  val = q .* 2 .^ qexp;                              # exact in double
  val(val > maxfin) = Inf;                           # overflow (only after rounding)
  val = val .* (1 - 2 * sgn);                        # sign; -0 stays -0
  special = (E == 255);                              # Inf stays Inf, NaN stays NaN
  val(special) = double (xs(special));
  Y = reshape (single (val), size (xs));
endfunction
