## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{h} =} value_hash (@var{v})
## A double (an integer below 2^52) that identifies the value @var{v}: numbers (their class,
## size and every bit; complex parts and 64-bit integers exactly), strings, logicals, cells
## and structs (fields in order), nested; a function handle by its text, another object by
## its class only.
## Equal values give equal @var{h} on every process, so that ranks can compare arguments
## with one number each (@code{comm_agree}); md5 of a text form (of a number array's bytes),
## folded to 52 bits.
## @end deftypefn

function h = value_hash (v)
  h = hex2dec (hash ("md5", text_of (v))(1:13));
endfunction

function t = text_of (v)
  if (ischar (v))
    t = sprintf ("c%s:%s;", mat2str (size (v)), v(:).');
  elseif (isinteger (v))                # every integer exactly (int64 past 2^53 too)
    t = sprintf ("%s%s:%s;", class (v), mat2str (size (v)), num2str (v(:).', "%d,"));
  elseif (isnumeric (v) || islogical (v))  # every bit (the md5 of the bytes: a momentum is big)
    if (islogical (v))
      v = uint8 (v);
    endif
    b = typecast (real (v(:)), "uint8")(:);
    if (iscomplex (v))
      b = [b; typecast(imag (v(:)), "uint8")(:)];
    endif
    t = sprintf ("%s%s%s:%s;", class (v), merge (iscomplex (v), "c", ""), mat2str (size (v)),
                 hash ("md5", char (b.')));
  elseif (iscell (v))
    t = ["{" mat2str(size (v)) strjoin(cellfun (@text_of, v(:).', "UniformOutput", false), "") "}"];
  elseif (isstruct (v))
    f = fieldnames (v);
    t = ["s" mat2str(size (v)) strjoin(f.', ",") "(" ...
         strjoin(cellfun (@(x) text_of (x), struct2cell (v(:))(:).', "UniformOutput", false), "") ")"];
  elseif (is_function_handle (v))
    t = ["f" func2str(v) ";"];
  else
    t = ["o" class(v) ";"];
  endif
endfunction

%!test
%! ## values that differ get different hashes; equal values equal ones
%! v = {0, -0, single(0), int64(2)^53, int64(2)^53 + 1, 1, 1 + 2i, "a", {"a"}, ...
%!      struct("x", 1, "y", 2), struct("y", 2, "x", 1), NaN, Inf, [1 2], [1; 2], true};
%! h = cellfun (@value_hash, v);
%! assert (numel (unique (h)), numel (v));
%! assert (value_hash ({[2 3], struct("x", "ab")}), value_hash ({[2 3], struct("x", "ab")}));
%! x = randn (1e6, 1);
%! y = x;
%! y(end) = y(end) * (1 + eps);
%! assert (value_hash (x) != value_hash (y));

