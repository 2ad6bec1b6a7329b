## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{b} =} file_bytes (@var{file})
## The bytes of @var{file}, a uint8 row: the checkpoint suites flip, cut or rewrite a
## saved file's bytes with it (and @code{put_bytes}).
## @end deftypefn

function b = file_bytes (file)
  fid = fopen (file, "r");
  b = fread (fid, Inf, "uint8=>uint8").';
  fclose (fid);
endfunction
