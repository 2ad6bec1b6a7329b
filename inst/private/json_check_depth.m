## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} json_check_depth (@var{fname}, @var{file}, @var{text})
## Error @code{muonlab:badArg} naming @var{fname} and @var{file} when the arrays and objects
## of the JSON @var{text} nest more than @code{max_json_depth} (200) deep: Octave 7's
## @code{jsondecode} crashes the process on a file nested 10,000 deep.  The depth is that
## of [ and @{ outside strings, counted from the lowest level reached before (so stray
## closing brackets hide nothing); any bytes, UTF-8 or not.
## @end deftypefn

function json_check_depth (fname, file, text)
  t = json_blank_strings (text);
  c = [0, cumsum(double (t == "[" | t == "{") - double (t == "]" | t == "}"))];
  depth = max (c - cummin (c));
  lim = core_lists ().limits.max_json_depth;
  if (depth > lim)
    error ("muonlab:badArg",
           "%s: '%s' nests %d deep; at most %d (the limit max_json_depth).", fname, file,
           depth, lim);
  endif
endfunction
