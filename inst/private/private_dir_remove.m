## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} private_dir_remove (@var{d}, @var{tmp})
## Removes a folder of @code{private_dir} and the one file @var{tmp} in it, if that is
## still there (the cleanup of every exclusive temporary file).
## @end deftypefn

function private_dir_remove (d, tmp)
  if (exist (tmp, "file"))
    unlink (tmp);
  endif
  rmdir (d);
endfunction
