## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{f} =} path_join (@var{dir}, @var{name})
## @var{dir} and @var{name} joined by one separator, byte for byte: @code{fullfile}'s
## regexprep refuses a folder or a name that is no UTF-8 ("the input string is invalid
## UTF-8", with no identifier), such as a snapshot folder named caf\xe9.
## @end deftypefn

function f = path_join (dir, name)
  if (isempty (dir) || any (dir(end) == "/\\"))
    f = [dir name];
  else
    f = [dir filesep() name];
  endif
endfunction
