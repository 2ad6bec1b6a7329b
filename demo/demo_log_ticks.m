## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} demo_log_ticks (@var{ax}, @var{xy})
## On the log axis @var{xy} (@qcode{"x"} or @qcode{"y"}) of axes @var{ax}, whose
## limits span under three decades, set ticks at 1, 2 and 5 times the powers of ten (1,
## 1.5, 2, 3, 4, 5 and 7 under one decade), labelled with @code{%g}: gnuplot labels only
## the powers of ten there, one or two, so the values between could not be read.  A wider
## axis keeps gnuplot's ticks.  The ticks are muonlab's private @code{log_ticks}, as
## @code{ns_plot_spectrum} draws them.
## @end deftypefn

function demo_log_ticks (ax, xy)
  lim = get (ax, [xy "lim"]);
  here = pwd ();
  unwind_protect
    cd (fullfile (fileparts (which ("muon_ns")), "private"));
    [t, lab] = log_ticks (lim);
  unwind_protect_cleanup
    cd (here);
  end_unwind_protect
  if (numel (t) >= 2)
    set (ax, [xy "tick"], t, [xy "ticklabel"], lab);
  endif
endfunction
