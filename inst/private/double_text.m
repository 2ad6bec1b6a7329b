## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} double_text (@var{x})
## The decimal texts of the elements of a real double array @var{x}, a cell of its size:
## each finite element in the fewest of 15, 16 or 17 significant digits (@code{%g}) that
## read back, correctly rounded (@code{sscanf}, @code{str2double}, C's @code{strtod},
## Python's @code{float}), as the same double bit for bit (0.1 as 0.1, 0.1 + 0.2 as
## 0.30000000000000004, realmax as 1.7976931348623157e+308: its 16 digits,
## 1.797693134862316e+308, are past it and read as Inf); -0 as @qcode{"-0"}; NaN, Inf and
## -Inf as @qcode{"NaN"}, @qcode{"Inf"} and @qcode{"-Inf"}.  The numbers of
## @code{json_encode} and @code{csv_write}.
## @end deftypefn

function s = double_text (x)
  s = cell (size (x));
  todo = isfinite (x);
  for d = [15 16 17]                     # the fewest digits that read back as x
    if (! any (todo(:)))
      break;
    endif
    txt = sprintf (sprintf ("%%.%dg\n", d), x(todo));
    s(todo) = ostrsplit (txt(1:end-1), "\n");
    if (d < 17)
      back = sscanf (txt, "%f");
      done = find (todo);
      todo(done(back == x(done)(:))) = false;
    endif
  endfor
  nf = ! isfinite (x);
  if (any (nf(:)))
    s(nf) = ostrsplit (sprintf ("%g\n", x(nf))(1:end-1), "\n");
  endif
endfunction

