## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} print_png (@var{fname}, @var{h}, @var{file}, @dots{})
## Print figure @var{h} as a PNG to @var{file} (further arguments go to @code{print}, e.g.
## @qcode{"-r100"}) so that no text of the caller ever reaches a shell: Octave's
## @code{print} hands its file name to gnuplot or ghostscript through a shell, so the
## figure is printed to @file{fig.png} in a private folder (@code{private_dir}) of the
## temporary folder (@code{tempdir}, or @file{/tmp} when its name holds characters other
## than letters, digits and @samp{._+-/}), and the bytes are then written to @var{file} by
## @code{write_file} (exclusive temporary name, rename; @code{movefile} runs a shell in
## Octave 7).  Errors (@code{muonlab:badArg}) name @var{fname}.
## @end deftypefn

function print_png (fname, h, file, varargin)
  root = tempdir ();
  if (isempty (regexp (root, '^[A-Za-z0-9_.+/-]+$', "once")))
    root = "/tmp";
  endif
  d = private_dir (fname, root);
  tmp = fullfile (d, "fig.png");
  unwind_protect
    print (h, "-dpng", varargin{:}, tmp);
    [fid, msg] = fopen (tmp, "r");
    if (fid < 0)
      error ("muonlab:badArg", "%s: cannot print the figure: %s.", fname, msg);
    endif
    bytes = fread (fid, Inf, "uint8=>uint8");
    fclose (fid);
    write_file (fname, file, bytes);
  unwind_protect_cleanup
    private_dir_remove (d, tmp);
  end_unwind_protect
endfunction
