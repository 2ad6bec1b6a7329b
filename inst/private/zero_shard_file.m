## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{file} =} zero_shard_file (@var{prefix}, @var{r})
## The file of rank @var{r}'s shard: @file{@var{prefix}.rank@var{r}.ckpt}.
## @end deftypefn

function file = zero_shard_file (prefix, r)
  file = sprintf ("%s.rank%d.ckpt", prefix, r);
endfunction
