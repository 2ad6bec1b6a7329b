## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} check_aol_eps (@var{fname}, @var{opts})
## Refuse @qcode{"EpsPlacement", "max"} with @qcode{"Normalize", "aol"}: max places Eps in
## the Frobenius division, which AOL does not take (its Eps is the floor of its row sums);
## run, it folded Eps / ||G|| into a tiny page's first step and set the floor to 0.
## @end deftypefn

function check_aol_eps (fname, opts)
  if (strcmp (opts.normalize, "aol") && strcmp (opts.eps_placement, "max"))
    error ("muonlab:badArg",
           "%s: EPSPLACEMENT 'max' places Eps in the Frobenius division; NORMALIZE 'aol' takes Eps as the floor of its row sums (give EPSPLACEMENT 'add').",
           fname);
  endif
endfunction
