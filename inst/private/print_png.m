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
## Octave 7).  The printed bytes must be a complete PNG, the 8-byte PNG signature first and
## the IEND chunk last: Octave's @code{print} returns normally when gnuplot or Ghostscript
## fails (a full or unwritable temporary folder), leaving an empty or cut file, which is
## then the error @qcode{"@var{fname}: cannot print the figure: ..."} and nothing is written
## to @var{file}.  Errors (@code{muonlab:badArg}) name @var{fname}.
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
      error ("muonlab:badArg", ["%s: cannot print the figure: the printer wrote no file " ...
                                "(%s; is the temporary folder '%s' full?)."], fname, msg, root);
    endif
    bytes = fread (fid, Inf, "uint8=>uint8").';
    fclose (fid);
    sig = uint8 ([137 80 78 71 13 10 26 10]);
    iend = uint8 ([0 0 0 0 73 69 78 68 174 66 96 130]);   # length 0, "IEND", its CRC
    if (numel (bytes) < 20 || ! isequal (bytes(1:8), sig)
        || ! isequal (bytes(end-11:end), iend))
      error ("muonlab:badArg", ["%s: cannot print the figure: the printer gave %s (is the " ...
                                "temporary folder '%s' full?)."],
             fname, merge (isempty (bytes), "an empty file", "no complete PNG"), root);
    endif
    write_file (fname, file, bytes);
  unwind_protect_cleanup
    private_dir_remove (d, tmp);
  end_unwind_protect
endfunction
