## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{opt} =} opt_map_state (@var{opt}, @var{f}, @var{accum})
## The optimizer state @var{opt} with @code{@var{f} (x, where)} in place of each
## per-parameter state array x, where is its name for messages (as
## @qcode{"OPT.muon.W.momentum"}): every Muon momentum (of the parameters that took a
## step) and both AdamW moments, and with @var{accum} true the accumulation buffers too.
## What @code{muon_load_state}'s StatePrecision rounds and @code{opt_state_device} moves.
## @end deftypefn

function opt = opt_map_state (opt, f, accum)
  for i = 1:numel (opt.names)
    n = opt.names{i};
    if (isfield (opt.muon, n) && isstruct (opt.muon.(n)))
      opt.muon.(n).momentum = f (opt.muon.(n).momentum, ["OPT.muon." n ".momentum"]);
    endif
    if (accum && isfield (opt.accum, n))
      opt.accum.(n) = f (opt.accum.(n), ["OPT.accum." n]);
    endif
    if (isfield (opt.adam, n))
      opt.adam.(n).m = f (opt.adam.(n).m, ["OPT.adam." n ".m"]);
      opt.adam.(n).v = f (opt.adam.(n).v, ["OPT.adam." n ".v"]);
    endif
  endfor
endfunction
