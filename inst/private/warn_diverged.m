## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} warn_diverged (@var{fname}, @var{count}, @var{what}, @var{worst}, @var{schedule}, @var{bound})
## The warning @code{muonlab:diverged} of @code{muon_ns} and @code{muon_update} (host and
## device paths alike): "@var{fname}: @var{count} @var{what} a singular value of
## @var{worst} or more, where @var{schedule} at most @var{bound}: the iteration diverged
## (@dots{})", e.g. @var{what} "page(s) of the result have" and @var{schedule} "this
## schedule gives".
## @end deftypefn

function warn_diverged (fname, count, what, worst, schedule, bound)
  warning ("muonlab:diverged",
           "%s: %d %s a singular value of %.3g or more, where %s at most %.3g: the iteration diverged (rounding this schedule cannot absorb in this precision, or for Gram, too many steps since its last restart).",
           fname, count, what, worst, schedule, bound);
endfunction
