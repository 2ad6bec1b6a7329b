## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{pf} =} zero_cost_flops (@var{shapes}, @var{experts}, @var{split}, @var{o})
## zero_cost's Newton-Schulz FLOPs of one step of each matrix (P x 1): @code{ns_flops} of
## every expert page ((rows / E) x cols, each distinct shape once), or of every split row
## block where @var{split}@{p@} is given; under @var{o}.method @qcode{"gram"} a page or
## block whose aspect is at most @var{o}.gram_min_aspect counts the standard iteration, as
## muon_ns runs it.  @var{shapes}: P x 2; @var{experts}: P x 1 or [] (one page each);
## @var{o}: zero_cost's options (steps, restarts, symmetric, method, gram_min_aspect).
## @end deftypefn

function pf = zero_cost_flops (shapes, experts, split, o)
  P = rows (shapes);
  if (isempty (experts))
    experts = ones (P, 1);
  endif
  fo = {"Steps", o.steps, "Restarts", o.restarts, "Symmetric", o.symmetric != 0};
  pf = zeros (P, 1);
  [u, ~, j] = unique ([shapes experts], "rows");
  for i = 1:rows (u)
    F = ns_flops (u(i,1) / u(i,3), u(i,2), fo{:}, "Method", o.method);
    f = F.flops;
    if (strcmp (o.method, "gram") && F.alpha <= o.gram_min_aspect)
      f = F.standard;
    endif
    pf(j == i) = u(i,3) * f;
  endfor
  if (! isempty (split))
    for p = find (! cellfun ("isempty", split)).'
      b = split{p}(:);
      F = ns_flops (b, shapes(p,2), fo{:}, "Method", o.method);
      f = F.flops;
      g = strcmp (o.method, "gram") & F.alpha <= o.gram_min_aspect;
      f(g) = F.standard(g);
      pf(p) = experts(p) * sum (f);
    endfor
  endif
endfunction
