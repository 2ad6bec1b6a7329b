## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} written_whole (@var{fname}, @var{file}, @var{tmp}, @var{n})
## Check that the closed temporary file @var{tmp} holds the @var{n} bytes meant for
## @var{file}, by its size on disk (@code{stat}), before it is renamed over @var{file}.
## Octave's @code{fwrite} and @code{fprintf} count the bytes they hand to the stdio buffer
## and @code{fclose} reports no failed flush, so on a full file system they say every byte
## was written while the file is empty or cut short; only its size tells.  A mismatch is
## the @code{muonlab:badArg} error @qcode{"@var{fname}: cannot write '@var{file}': the
## disk is full or the file was cut short (@var{m} of @var{n} bytes written)."}; the
## caller removes @var{tmp}.
## @end deftypefn

function written_whole (fname, file, tmp, n)
  [st, err] = stat (tmp);
  if (err != 0)
    m = 0;
  else
    m = st.size;
  endif
  if (m != n)
    error ("muonlab:badArg", ["%s: cannot write '%s': the disk is full or the file was cut " ...
                              "short (%d of %d bytes written)."], fname, file, m, n);
  endif
endfunction
