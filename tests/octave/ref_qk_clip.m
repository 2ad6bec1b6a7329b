## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{A}, @var{B}, @var{eta}] =} ref_qk_clip (@var{Wq}, @var{Wk}, @var{S}, @var{layout}, @var{h}, @var{g}, @var{tau}, @var{alpha}, @var{dq})
## Test reference: QK-clip in plain Octave, one head (or query group) at a time, written
## from the rules of issue 27 (Megatron's @code{clip_qk}, Kimi K2's MuonClip), not from
## inst/qk_clip.m.  @var{layout} "gqa": @var{Wq} (h d) x n, @var{Wk} (g d) x n, query head j
## in group ceil (j / (h/g)).  "mla": @var{Wq} h (dq + dr) x n with rows [q_nope; q_pe] per
## head, @var{Wk} h (dq + dv) x r with rows [k_nope; v] per head (@var{g} ignored, dr and
## dv from the row counts).  For a group whose largest S exceeds tau: eta = min (1, tau /
## that maximum); q (q_nope) rows times eta^alpha, q_pe rows times eta, k (k_nope) rows
## times eta^(1-alpha), each factor computed in double and cast to the class of the weight.
## @var{eta} (1 x h) is each head's factor, 1 where not clipped.
## @end deftypefn

function [A, B, eta] = ref_qk_clip (Wq, Wk, S, layout, h, g, tau, alpha, dq)
  A = Wq;
  B = Wk;
  eta = ones (1, h);
  if (strcmp (layout, "mla"))
    g = h;
  endif
  per = h / g;                                # query heads per group
  for gi = 1:g
    heads = (gi - 1) * per + (1:per);
    m = max (S(heads));
    if (! (m > tau))
      continue;
    endif
    e = min (1, tau / m);
    for j = heads
      eta(j) = e;
    endfor
    if (strcmp (layout, "gqa"))
      d = rows (Wq) / h;
      for j = heads
        r = (j - 1) * d + (1:d);
        A(r,:) = A(r,:) .* cast (e ^ alpha, class (Wq));
      endfor
      r = (gi - 1) * d + (1:d);
      B(r,:) = B(r,:) .* cast (e ^ (1 - alpha), class (Wk));
    else
      wq = rows (Wq) / h;                     # dq + dr
      wk = rows (Wk) / h;                     # dq + dv
      j = gi;
      nope = (j - 1) * wq + (1:dq);
      pe = (j - 1) * wq + (dq + 1:wq);
      A(nope,:) = A(nope,:) .* cast (e ^ alpha, class (Wq));
      A(pe,:) = A(pe,:) .* cast (e, class (Wq));
      knope = (j - 1) * wk + (1:dq);
      B(knope,:) = B(knope,:) .* cast (e ^ (1 - alpha), class (Wk));
    endif
  endfor
endfunction
