## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_qk_clip ()
## Suite (run with @code{test test_qk_clip}): @code{qk_clip} against oracles outside it.
##   - ref_qk_clip.m, a plain port written per head (per query group) in a loop from the
##     rules of issue 27: bitwise, double and single, MHA, GQA, MQA and MLA, alpha 0, 0.5, 1.
##   - Closed forms on logits computed here from tokens X: every logit of a head is
##     bilinear in its q and k, so a clipped head's logits scale by exactly eta, the head
##     that holds its group's maximum ends at tau, the other heads of a clipped group end
##     below tau (GQA: the maximum is taken over the group), unclipped heads and the value
##     rows are bitwise unchanged.  MLA: q_nope.k_nope + q_pe.k_pe with the shared rope
##     key (not an argument, untouched) scales by eta as well.
## @end deftypefn

function test_qk_clip ()
  help test_qk_clip
endfunction

## Logits of every head for tokens X (T x n): L(:,:,j) = (X Wq_j') (X Wk_g')' / sqrt (d).
%!function L = logits_gqa (Wq, Wk, X, h, g)
%!  d = rows (Wq) / h;
%!  L = zeros (rows (X), rows (X), h);
%!  for j = 1:h
%!    gi = ceil (j / (h / g));
%!    q = X * Wq((j-1)*d + (1:d),:).';
%!    k = X * Wk((gi-1)*d + (1:d),:).';
%!    L(:,:,j) = q * k.' / sqrt (d);
%!  endfor

## MLA logits: [q_nope q_pe] . [k_nope k_pe]; q from X, k_nope from the latent C (T x r),
## k_pe = X Wkr' shared by all heads.
%!function L = logits_mla (Wq, Wkv, Wkr, X, C, h, dq)
%!  wq = rows (Wq) / h;
%!  wk = rows (Wkv) / h;
%!  kpe = X * Wkr.';
%!  L = zeros (rows (X), rows (X), h);
%!  for j = 1:h
%!    q = X * Wq((j-1)*wq + (1:wq),:).';
%!    kn = C * Wkv((j-1)*wk + (1:dq),:).';
%!    L(:,:,j) = q * [kn, kpe].' / sqrt (wq);
%!  endfor

%!function S = head_max (L)
%!  S = reshape (max (max (L, [], 1), [], 2), 1, []);

%!test
%! ## the per-head port, bitwise: MHA, GQA, MQA; double and single; alpha 0, 0.5, 0.3, 1
%! cases = {4, 4; 8, 2; 6, 1; 6, 3};
%! for c = 1:rows (cases)
%!   [h, g] = cases{c,:};
%!   for cls = {"double", "single"}
%!     for alpha = [0 0.5 0.3 1]
%!       randn ("state", 10 * c + alpha * 10);
%!       d = 4;
%!       Wq = cast (randn (h * d, 12), cls{1});
%!       Wk = cast (randn (g * d, 12), cls{1});
%!       S = 150 * rand (1, h) + 20;
%!       [A, B, info] = qk_clip (Wq, Wk, S, "Heads", h, "QueryGroups", g, "Alpha", alpha);
%!       [Ar, Br, eta] = ref_qk_clip (Wq, Wk, S, "gqa", h, g, 100, alpha, []);
%!       assert (isequal (A, Ar) && isequal (B, Br), "h %d g %d %s alpha %g", h, g, cls{1}, alpha);
%!       assert (class (A), cls{1});
%!       assert (info.eta, eta);
%!       assert (info.clipped, eta < 1);
%!     endfor
%!   endfor
%! endfor

%!test
%! ## MLA against the port, bitwise, double and single, a Threshold of 30
%! h = 3; dq = 4; dr = 2; dv = 5;
%! for cls = {"double", "single"}
%!   randn ("state", 3);
%!   Wq = cast (randn (h * (dq + dr), 10), cls{1});
%!   Wkv = cast (randn (h * (dq + dv), 6), cls{1});
%!   S = [20 45 31];
%!   [A, B, info] = qk_clip (Wq, Wkv, S, "Layout", "mla", "Heads", h, "QKHeadDim", dq,
%!                           "RopeHeadDim", dr, "VHeadDim", dv, "Threshold", 30, "Alpha", 0.4);
%!   [Ar, Br, eta] = ref_qk_clip (Wq, Wkv, S, "mla", h, h, 30, 0.4, dq);
%!   assert (isequal (A, Ar) && isequal (B, Br));
%!   assert (info.eta, eta);
%!   assert (info.clipped, [false true true]);
%! endfor

%!test
%! ## closed form, MHA and GQA: logits scale by eta; the group's top head lands on tau
%! for hg = [4 4; 8 2; 4 1].'
%!   h = hg(1); g = hg(2); d = 8; n = 16;
%!   randn ("state", h + g);
%!   X = randn (12, n);
%!   Wq = 2 * randn (h * d, n);
%!   Wk = 2 * randn (g * d, n);
%!   L0 = logits_gqa (Wq, Wk, X, h, g);
%!   S = head_max (L0);
%!   gm = max (reshape (S, h / g, g), [], 1);
%!   tau = 0.5 * (min (gm) + max (gm)) * (g > 1) + 0.8 * max (S) * (g == 1);
%!   [A, B, info] = qk_clip (Wq, Wk, S, "QueryGroups", g, "Threshold", tau);
%!   L1 = logits_gqa (A, B, X, h, g);
%!   S1 = head_max (L1);
%!   grp = ceil ((1:h) / (h / g));
%!   for j = 1:h
%!     gm = max (S(grp == grp(j)));
%!     e = min (1, tau / gm);
%!     assert (L1(:,:,j), e * L0(:,:,j), 1e-12 * max (abs (L0(:))));
%!     if (gm > tau)
%!       assert (S1(j), tau * S(j) / gm, 1e-12 * tau);  # tau for the group's top head
%!       assert (S1(j) <= tau * (1 + 1e-12));
%!     else
%!       r = (j - 1) * d + (1:d);
%!       assert (isequal (A(r,:), Wq(r,:)));           # bitwise unchanged
%!     endif
%!   endfor
%!   assert (max (S1), min (max (S), tau), 1e-12 * tau);
%!   assert (any (info.clipped) && (! all (info.clipped) || g == 1));
%! endfor

%!test
%! ## GQA: a group with one head above tau clips all its query heads and its key head
%! Wq = reshape (sin (1:8*4*6), 32, 6);  Wk = reshape (cos (1:16*6), 16, 6);
%! [A, B, info] = qk_clip (Wq, Wk, [10 10 300 10], "QueryGroups", 2, "Alpha", 0.5);
%! assert (info.clipped, [false false true true]);
%! assert (info.group_max, [10 10 300 300]);
%! assert (isequal (A(1:16,:), Wq(1:16,:)) && isequal (B(1:8,:), Wk(1:8,:)));
%! assert (A(17:32,:), Wq(17:32,:) * sqrt (1/3), 1e-15);
%! assert (B(9:16,:), Wk(9:16,:) * sqrt (1/3), 1e-15);

%!test
%! ## closed form, MLA: q_nope.k_nope + q_pe.k_pe scales by eta (the rope key untouched),
%! ## the top head ends at tau, v rows and unclipped heads bitwise unchanged
%! h = 4; dq = 6; dr = 3; dv = 5; n = 20; r = 8;
%! randn ("state", 5);
%! X = randn (10, n);
%! C = randn (10, r);
%! Wq = 2 * randn (h * (dq + dr), n);
%! Wkv = 2 * randn (h * (dq + dv), r);
%! Wkr = randn (dr, n);
%! for alpha = [0 0.5 1]
%!   L0 = logits_mla (Wq, Wkv, Wkr, X, C, h, dq);
%!   S = head_max (L0);
%!   tau = 0.5 * (min (S) + max (S));
%!   [A, B, info] = qk_clip (Wq, Wkv, S, "Layout", "mla", "QKHeadDim", dq, "Threshold", tau,
%!                           "Alpha", alpha);
%!   L1 = logits_mla (A, B, Wkr, X, C, h, dq);
%!   for j = 1:h
%!     e = min (1, tau / S(j));
%!     assert (L1(:,:,j), e * L0(:,:,j), 1e-12 * max (abs (L0(:))));
%!     v = (j - 1) * (dq + dv) + (dq + 1:dq + dv);
%!     assert (isequal (B(v,:), Wkv(v,:)));
%!     if (S(j) <= tau)
%!       rq = (j - 1) * (dq + dr) + (1:dq + dr);
%!       rk = (j - 1) * (dq + dv) + (1:dq + dv);
%!       assert (isequal (A(rq,:), Wq(rq,:)) && isequal (B(rk,:), Wkv(rk,:)));
%!     endif
%!   endfor
%!   assert (max (head_max (L1)), tau, 1e-12 * tau);
%!   assert (info.clipped, S > tau);
%! endfor

%!test
%! ## muon_optimizer "QKClip": after the applied step, the pair is clipped as the port clips
%! ## the stepped weights; everything else is the plain step's, bitwise
%! randn ("state", 11);
%! P = struct ("Wq", randn (16, 12), "Wk", randn (8, 12), "W", randn (10, 12), "b", randn (10, 1));
%! G = struct ("Wq", randn (16, 12), "Wk", randn (8, 12), "W", randn (10, 12), "b", randn (10, 1));
%! S = struct ("Wq", [30 250 90 20]);              # 4 heads of width 4, 2 key heads
%! pair = {"Wq", "Wk", "Heads", 4, "QueryGroups", 2, "Alpha", 0.3};
%! o0 = muon_optimizer (P, "LR", 0.01);
%! o1 = muon_optimizer (P, "LR", 0.01, "QKClip", pair);
%! [P0, o0, i0] = muon_step (o0, P, G);
%! [P1, o1, i1] = muon_step (o1, P, G, S);
%! [A, B] = ref_qk_clip (P0.Wq, P0.Wk, S.Wq, "gqa", 4, 2, 100, 0.3, []);
%! assert (isequal (P1.Wq, A) && isequal (P1.Wk, B));
%! assert (isequal (P1.W, P0.W) && isequal (P1.b, P0.b));
%! assert (i1.qk_clip.Wq.clipped, [true true false false]);
%! assert (i1.qk_clip.Wq.eta, [0.4 0.4 1 1]);
%! assert (isequal (o1.muon, o0.muon) && isequal (o1.adam, o0.adam));
%! assert (! isfield (i0, "qk_clip"));

%!test
%! ## an MLA pair given as a cell of pairs; no clip while accumulating (no maxlogits needed)
%! randn ("state", 12);
%! P = struct ("Wq", randn (2 * 7, 9), "Wkv", randn (2 * 8, 5));   # dq 4, dr 3, dv 4
%! G = struct ("Wq", randn (2 * 7, 9), "Wkv", randn (2 * 8, 5));
%! o = muon_optimizer (P, "AccumulationSteps", 2,
%!                     "QKClip", {{"Wq", "Wkv", "Heads", 2, "Layout", "mla", "QKHeadDim", 4}});
%! [P1, o, i1] = muon_step (o, P, G);
%! assert (! i1.applied && isequal (P1, P));
%! [P2, o, i2] = muon_step (o, P1, G, struct ("Wq", [10 300]));
%! assert (i2.applied);
%! assert (i2.qk_clip.Wq.eta, [1 1/3]);
%! f = [tempname() ".mat"];                        # the pairs survive a checkpoint
%! unwind_protect
%!   muon_save_state (f, o);
%!   assert (isequal (muon_load_state (f, P2).qk_clip, o.qk_clip));
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!shared P, G
%! P = struct ("Wq", reshape (sin (1:96), 8, 12), "Wk", reshape (cos (1:96), 8, 12));
%! G = P;
%!error <muon_step: MAXLOGITS must be a struct with a field 'Wq' \(the largest logit of each head\).> muon_step (muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 2}), P, G)
%!error <muon_step: MAXLOGITS.Wq must have HEADS \(2\) values, not 3.> muon_step (muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 2}), P, G, struct ("Wq", [1 2 3]))
%!error <muon_step: MAXLOGITS.Wq must be a real vector of finite values.> muon_step (muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 2}), P, G, struct ("Wq", [1 NaN]))
%!error id=muonlab:badShape muon_step (muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 2}), P, G, struct ("Wq", [1 2 3]))
%!error <muon_optimizer: QKCLIP must be a cell {QNAME, KNAME, "Heads", h, ...} or a cell of them.> muon_optimizer (P, "QKClip", {"Wq"})
%!error <muon_optimizer: QKCLIP names 'Wv', which is not a parameter.> muon_optimizer (P, "QKClip", {"Wq", "Wv", "Heads", 2})
%!error <muon_optimizer: QKCLIP must name each parameter once: 'Wq' is named twice.> muon_optimizer (P, "QKClip", {{"Wq", "Wk", "Heads", 2}, {"Wq", "Wk", "Heads", 2}})
%!error <muon_optimizer: QKCLIP must name each parameter once: 'Wk' is named twice.> muon_optimizer (struct ("Wq", P.Wq, "Wq2", P.Wq, "Wk", P.Wk), "QKClip", {{"Wq", "Wk", "Heads", 2}, {"Wq2", "Wk", "Heads", 2}})
%!error <muon_optimizer: QKCLIP must name each parameter once: 'Wq' is named twice.> muon_optimizer (P, "QKClip", {"Wq", "Wq", "Heads", 2})
%!error <muon_optimizer: QKCLIP pair 'Wq', 'Wk' must give "Heads", h.> muon_optimizer (P, "QKClip", {"Wq", "Wk"})
%!error <^muon_optimizer: QKCLIP pair 'Wq', 'Wk': unknown option 'Heds'; did you mean 'Heads'\? Options: Layout, Heads, QueryGroups, Threshold, Alpha, QKHeadDim, RopeHeadDim, VHeadDim\.$> muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heds", 4})
%!error <^muon_optimizer: QKCLIP pair 'Wq', 'Wk': unknown option 'QueryGrups'; did you mean 'QueryGroups'\? Options: Layout, Heads, QueryGroups, Threshold, Alpha, QKHeadDim, RopeHeadDim, VHeadDim\.$> muon_optimizer (P, "QKClip", {"Wq", "Wk", "QueryGrups", 1, "Heads", 2})
%!error <muon_optimizer: QKCLIP pair 'Wq', 'Wk': option names must be strings\.> muon_optimizer (P, "QKClip", {"Wq", "Wk", 3, 4})
%!error <muon_optimizer: QKCLIP pair 'Wq', 'Wk': QUERYGROUPS \(3\) must divide HEADS \(2\).> muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 2, "QueryGroups", 3})
%!error <muon_optimizer: QKCLIP pair 'Wq', 'Wk': HEADS must be a whole number from 1 to the rows of Wq \(8\).> muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 2.5})
%!error <muon_optimizer: QKCLIP pair 'Wq', 'Wk': HEADS must be a whole number from 1 to the rows of Wq \(8\).> muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", NaN})
%!error <muon_optimizer: QKCLIP pair 'Wq', 'Wk': HEADS must be a whole number from 1 to the rows of Wq \(8\).> muon_optimizer (P, "QKClip", {"Wq", "Wk", "Heads", 1e12})
