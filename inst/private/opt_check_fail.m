## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_check_fail (@var{fmt}, @dots{})
## Raise what is wrong with an optimizer state, @code{sprintf (@var{fmt}, @dots{})} (no
## final period), as @code{muonlab:stateCheck}: the checks of @code{opt_check_state} (and
## @code{opt_check_buffers}, @code{opt_check_fields}) raise it, and @code{opt_check_state}
## catches it and returns its message.
## @end deftypefn

function opt_check_fail (fmt, varargin)
  error ("muonlab:stateCheck", fmt, varargin{:});
endfunction
