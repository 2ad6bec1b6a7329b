## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} put_bytes (@var{file}, @var{b})
## Writes the uint8 row @var{b} to @var{file} as it is (see @code{file_bytes}).
## @end deftypefn

function put_bytes (file, b)
  fid = fopen (file, "w");
  fwrite (fid, b);
  fclose (fid);
endfunction
