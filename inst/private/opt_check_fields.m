## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_check_fields (@var{s}, @var{where}, @var{names})
## For the checks of an optimizer state (@code{opt_check_state}): @var{s} must be a scalar
## struct whose fields are exactly the cellstr @var{names} (any order); else
## @code{opt_check_fail} says, of @var{where} (as @qcode{"OPT.route"}), that it is not a
## scalar struct, the first field it lacks, or its first unknown field.
## @end deftypefn

function opt_check_fields (s, where, names)
  if (! (isstruct (s) && isscalar (s)))
    opt_check_fail ("%s must be a scalar struct", where);
  endif
  f = fieldnames (s);
  if (numel (f) == numel (names) && all (isfield (s, names)))
    return;
  endif
  missing = setdiff (names, f);
  extra = setdiff (f, names);
  if (! isempty (missing))
    opt_check_fail ("%s lacks the field '%s'", where, missing{1});
  elseif (! isempty (extra))
    opt_check_fail ("%s has the unknown field '%s'", where, extra{1});
  endif
endfunction
