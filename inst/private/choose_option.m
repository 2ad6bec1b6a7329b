## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} choose_option (@var{fname}, @var{what}, @var{val}, @var{allowed})
## Match the string @var{val} case-insensitively against the cell @var{allowed} and return
## the canonical spelling; otherwise raise muonlab:badArg,
## "@var{fname}: @var{what} must be 'a', 'b' or 'c'." (or, for a misspelt name,
## "...; did you mean 'b'?", the closest names by @code{suggest})  For an argument that is not a NAME,
## VALUE option (those go through @code{parse_options}), e.g. @code{muon_comm}'s KIND
## from the core's list (@code{core_lists}).
## @end deftypefn

function s = choose_option (fname, what, val, allowed)
  if (ischar (val) && isrow (val))
    k = find (strcmpi (val, allowed), 1);
    if (! isempty (k))
      s = allowed{k};
      return;
    endif
  endif
  hint = ".";
  m = suggest (val, allowed);
  if (! isempty (m))
    hint = sprintf ("; did you mean %s?", quoted_list (m, "or"));
  endif
  error ("muonlab:badArg", "%s: %s must be %s%s", fname, what, quoted_list (allowed, "or"), hint);
endfunction
