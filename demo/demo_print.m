## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} demo_print (@var{h}, @var{png}, @dots{})
## Print figure @var{h} as a PNG to @var{png} (further arguments go to @code{print}, e.g.
## @qcode{"-r100"}) through muonlab's @code{print_png}: the figure is printed to a private
## temporary name and its bytes written to @var{png} under an exclusive temporary name,
## then renamed, so the folder of the demos (whatever characters its path holds) never
## reaches the shell that Octave's @code{print} runs.
## @end deftypefn

function demo_print (h, png, varargin)
  here = pwd ();
  unwind_protect
    cd (fullfile (fileparts (which ("muon_ns")), "private"));
    print_png ("demo_print", h, png, varargin{:});
  unwind_protect_cleanup
    cd (here);
  end_unwind_protect
endfunction
