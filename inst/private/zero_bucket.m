## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{b} =} zero_bucket (@var{variant}, @var{b})
## The bucket size option @var{b} (Megatron's bucket_size in elements, [] for one bucket) as
## design @var{variant} takes it: itself for the layer-wise designs (@qcode{"layerwise_lpt"},
## @qcode{"layerwise_ns_cost"}), [] for the others, which have no buckets (as
## @qcode{"Period"} is only @code{muon_bp}'s).  What a state's key records.
## @end deftypefn

function b = zero_bucket (variant, b)
  if (! any (strcmp (variant, {"layerwise_lpt", "layerwise_ns_cost"})))
    b = [];
  endif
endfunction
