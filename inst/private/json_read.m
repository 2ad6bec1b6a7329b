## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{x} =} json_read (@var{fname}, @var{file})
## @deftypefnx {} {@var{x} =} json_read (@var{fname}, @var{file}, @var{text}, @dots{})
## Read and decode the JSON file @var{file}, checking before the parser sees a byte: a
## regular file (@code{regular_file}) of at most @code{max_config_bytes} (16 MiB) whose
## arrays and objects nest at most @code{max_json_depth} (200) deep (Octave 7's
## @code{jsondecode} crashes the process on a file nested 10,000 deep).  With @var{text}
## (read from @var{file} by the caller, its size checked there) only the depth is checked
## and @var{text} decoded, with @code{jsondecode}'s options @dots{}.  Errors are
## @code{muonlab:badArg} naming @var{fname}, the file and the limit.
## @end deftypefn

function x = json_read (fname, file, text, varargin)
  if (nargin < 3)
    regular_file (fname, file, "max_config_bytes");
    try
      text = fileread (file);
    catch
      error ("muonlab:badArg", "%s: cannot read '%s'.", fname, file);
    end_try_catch
  endif
  depth = json_depth (text);
  lim = core_lists ().limits.max_json_depth;
  if (depth > lim)
    error ("muonlab:badArg",
           "%s: '%s' nests %d deep; at most %d (the limit max_json_depth).", fname, file,
           depth, lim);
  endif
  try
    x = jsondecode (text, varargin{:});
  catch err
    error ("muonlab:badArg", "%s: '%s' is not valid JSON (%s).", fname, file, err.message);
  end_try_catch
endfunction

## The deepest nesting of [ and { outside strings (linear in the text's length), counted
## from the lowest level reached before (so stray closing brackets hide nothing).
function d = json_depth (text)
  t = regexprep (text, '\\.', "");             # escapes: \" does not end a string
  t = regexprep (t, '"[^"]*"', "");             # strings
  c = [0, cumsum(double (t == "[" | t == "{") - double (t == "]" | t == "}"))];
  d = max (c - cummin (c));
endfunction
