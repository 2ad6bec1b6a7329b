## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{x} =} from_le (@var{b}, @var{cls})
## The value of class @var{cls} (a numeric class name) whose little-endian bytes are the
## uint8 row @var{b}, as checkpoints store their header fields and MAT element tags.
## @end deftypefn

function x = from_le (b, cls)
  [~, ~, endian] = computer ();
  if (endian == "B")
    b = fliplr (b);
  endif
  x = typecast (b, cls);
endfunction
