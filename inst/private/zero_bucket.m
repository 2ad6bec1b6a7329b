## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{b} =} zero_bucket (@var{variant}, @var{b}, @var{L})
## The bucket size option @var{b} (Megatron's bucket_size in elements, [] for one bucket) as
## design @var{variant} takes it on layout @var{L}: itself for the layer-wise designs
## (@qcode{"layerwise_lpt"}, @qcode{"layerwise_ns_cost"}), [] for the others, which have no
## buckets (as @qcode{"Period"} is only @code{muon_bp}'s), and [] where it holds every
## matrix of @var{L} (Megatron's walk then never closes a bucket: one bucket, the same
## owners and buffer), so a state of one bucket continues under either.  What a state's
## key records.
## @end deftypefn

function b = zero_bucket (variant, b, L)
  if (! any (strcmp (variant, {"layerwise_lpt", "layerwise_ns_cost"})))
    b = [];
  elseif (! isempty (b))
    try                                 # L is checked where it is used: no error here
      if (b >= sum ([L.params.rows] .* [L.params.cols]))
        b = [];
      endif
    end_try_catch
  endif
endfunction
