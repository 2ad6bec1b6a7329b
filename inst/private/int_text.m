## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} int_text (@var{x})
## The decimal texts of the elements of an integer array @var{x} (any integer class), a
## cell of its size, every digit exact: Octave's @code{sprintf} passes the elements of an
## int64 or uint64 array as doubles (9007199254740993 becomes @dots{}992), so values past
## 2^53 are written as two parts below 2^53, the billions and the rest.
## @end deftypefn

function s = int_text (x)
  s = cell (size (x));
  big = abs (double (x)) >= 2^53;
  if (! all (big(:)))
    s(! big) = ostrsplit (sprintf ("%d\n", double (x(! big)))(1:end-1), "\n");
  endif
  if (any (big(:)))
    v = x(big)(:);
    neg = v < 0;
    u = uint64 (v);                            # (not u(i) = v(i): that goes through double)
    u(neg) = uint64 (-(v(neg) + 1)) + 1;       # |v|, also for intmin
    lo = mod (u, uint64 (1e9));                # (idivide saturates near intmax)
    hi = (u - lo) / uint64 (1e9);
    sign = repmat ({""}, size (v));
    sign(neg) = {"-"};
    txt = sprintf ("%d%09d\n", [double(hi), double(lo)].');
    s(big) = strcat (sign, ostrsplit (txt(1:end-1), "\n").');
  endif
endfunction
