## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{h} =} value_hash (@var{v})
## A double (an integer below 2^52) that identifies the value @var{v}: numbers (their class,
## size and every bit), strings, logicals, cells and structs (fields in order), nested.
## Equal values give equal @var{h} on every process, so that ranks can compare arguments
## with one number each (@code{comm_agree}); md5 of a text form, folded to 52 bits.
## @end deftypefn

function h = value_hash (v)
  h = hex2dec (hash ("md5", text_of (v))(1:13));
endfunction

function t = text_of (v)
  if (ischar (v))
    t = sprintf ("c%s:%s;", mat2str (size (v)), v(:).');
  elseif (isnumeric (v) || islogical (v))
    t = sprintf ("%s%s:%s;", class (v), mat2str (size (v)),
                 sprintf ("%.17g,", double (v(:))));
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
