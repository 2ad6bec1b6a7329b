## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{S} =} read_payload (@var{file})
## The payload of the checkpoint @var{file} (see @code{write_ckpt}): its MAT body between
## the 64-byte header and the 32-byte checksum, loaded.
## @end deftypefn

function S = read_payload (file)
  b = file_bytes (file);
  g = [tempname() ".mat"];
  put_bytes (g, b(65:end-32));
  S = load (g).payload;
  unlink (g);
endfunction
