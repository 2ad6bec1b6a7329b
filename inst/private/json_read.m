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
  json_check_depth (fname, file, text);
  try
    x = jsondecode (text, varargin{:});
  catch err
    error ("muonlab:badArg", "%s: '%s' is not valid JSON (%s).", fname, file, err.message);
  end_try_catch
endfunction
