## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} zero_fp64_momentum (@var{fname}, @var{arith})
## The distributed steps (@code{zero_muon_step}, @code{zero_train_step}) compute their
## momentum in fp64 on partitions and shards: @var{arith}, their @qcode{"MomentumArith"},
## must be @qcode{"fp64"}; @qcode{"torch"} (@code{muon_update}'s) is a
## @code{muonlab:unsupported} error.
## @end deftypefn

function zero_fp64_momentum (fname, arith)
  if (! strcmp (arith, "fp64"))
    error ("muonlab:unsupported",
           "%s: MOMENTUMARITH '%s' is muon_update's: a distributed step computes its momentum in fp64.",
           fname, arith);
  endif
endfunction
