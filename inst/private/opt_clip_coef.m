## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{c} =} opt_clip_coef (@var{total}, @var{clip})
## The global-norm clip factor of torch / DeepSpeed / Megatron,
## @code{min (1, @var{clip} / (@var{total} + 1e-6))}.
## @end deftypefn

function c = opt_clip_coef (total, clip)
  c = min (1, clip / (total + 1e-6));
endfunction
