## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab} {[@var{A}, @var{B}, @var{info}] =} qk_clip (@var{Wq}, @var{Wk}, @var{S}, @var{name}, @var{value}, @dots{})
## @deftypefnx {muonlab} {[@var{A}, @var{B}, @var{info}] =} qk_clip (@var{Wq_proj}, @var{Wkv_up}, @var{S}, "Layout", "mla", @dots{})
## QK-clip (MuonClip): scale the query and key weights of the attention heads whose
## largest attention logit exceeds a threshold, after an optimizer step.
##
## The rule is Megatron-LM's @code{clip_qk} (megatron/core/transformer/attention.py for
## grouped-query attention, multi_latent_attention.py for MLA), which is Kimi K2's MuonClip
## (its per-head form; Kimi K2 tech report, 2025).  @var{S} holds the largest attention
## logit of each head (1 x h or h x 1, measured by the caller in the forward pass).  For
## each query group, eta = min (1, tau / max (@var{S} over the group's heads)); a group is
## clipped only when that maximum exceeds tau (every other row stays bitwise as it was).
## Megatron, once any head exceeds tau, computes min (1, tau / max) for every query group
## (every head where a group is one head: standard attention, MLA): the same factor where
## that maximum is above 0, but a negative eta (and NaN eta^alpha rows, the group's heads
## with S >= 0 included) for a group whose maximum is below 0, which is left alone here.
## The weights are in torch's (out, in) layout: a head's rows are a contiguous block, head
## 1 first.
##
## @table @asis
## @item grouped-query attention (default layout, @qcode{"gqa"})
## @var{Wq} is (h d) x n (head j: rows (j-1) d + 1 : j d), @var{Wk} is (g d) x n' (n' = n
## in self-attention; only rows are read, so a cross-attention key weight of another width
## is taken too), g the
## number of query groups (key heads): query head j uses key head ceil (j / (h/g)), as in
## Megatron and in Hugging Face's @code{repeat_kv}.  A clipped group's query rows (all h/g
## heads) are multiplied by eta^alpha, its key rows by eta^(1-alpha), so every logit
## q.k of the group scales by eta.  Multi-head attention is g = h (the default), multi-query
## attention g = 1.  The value weights are not an argument: they are never touched.
## @item multi-head latent attention (@qcode{"mla"})
## @var{Wq_proj} is h (dq + dr) x n (the query projection, or its up-projection when the
## query is low-rank), each head's rows [q_nope (dq rows); q_pe (dr rows)].  @var{Wkv_up}
## is h (dq + dv) x r (the key/value up-projection of the latent), each head's rows
## [k_nope (dq rows); v (dv rows)].  A clipped head gets q_nope * eta^alpha, q_pe * eta
## (the full factor: the rope key is shared by all heads and has no per-head weight),
## k_nope * eta^(1-alpha); v and the shared rope key are untouched.  Each head is its own
## group.
## @end table
##
## Options (names are case-insensitive):
## @table @asis
## @item "Layout"
## @qcode{"gqa"} (default) or @qcode{"mla"}.
## @item "Heads"
## h, the number of query heads (default: @code{numel (@var{S})}, which must equal it).
## @item "QueryGroups"
## g, the number of key heads (grouped-query attention; default h; must divide h).
## @item "Threshold"
## tau, the largest logit allowed (default 100, as Megatron and Kimi K2).
## @item "Alpha"
## the query's share of the factor, in [0, 1] (default 0.5, as Megatron and Kimi K2).
## @item "QKHeadDim"
## dq, the per-head width of q_nope and k_nope (MLA; required there).
## @item "RopeHeadDim"
## dr, the per-head width of q_pe (MLA; default: what the rows of @var{Wq_proj} leave).
## @item "VHeadDim"
## dv, the per-head width of v (MLA; default: what the rows of @var{Wkv_up} leave).
## @end table
##
## @var{A} and @var{B} are the clipped weights, of the class and shape of the inputs.  The
## factors are computed in double and each clipped row is multiplied by its factor in the
## class of the weights.  @var{info} says what was done: @code{clipped} (1 x h logical: the
## heads whose weights were scaled), @code{eta} (1 x h: the factor of each head's logits, 1
## where not clipped), @code{group} (1 x h: the query group of each head),
## @code{group_max} (1 x h: the largest logit of the head's group), @code{q_factor},
## @code{k_factor} (1 x h: eta^alpha and eta^(1-alpha)), @code{q_pe_factor} (MLA: eta),
## @code{layout}, @code{threshold}, @code{alpha}.
##
## Example (4 heads in 2 groups of 2, head width 8):
## @example
## Wq = randn (32, 64);  Wk = randn (16, 64);
## [Wq, Wk, info] = qk_clip (Wq, Wk, [50 180 90 20], "QueryGroups", 2);
## info.clipped      % [1 1 0 0]: head 2 exceeds 100, so its whole group is clipped
## info.eta          % [100/180 100/180 1 1]
## @end example
##
## @seealso{muon_optimizer, muon_step}
## @end deftypefn

function [A, B, info] = qk_clip (Wq, Wk, S, varargin)
  fname = "qk_clip";
  if (nargin < 3)
    print_usage ();
  endif
  o = parse_options (fname, fname, varargin);
  weight (fname, "WQ", Wq);
  weight (fname, "WK", Wk);
  host_only (fname, "S", S);
  if (! (isnumeric (S) && isreal (S) && isvector (S) && all (isfinite (S(:)))))
    error ("muonlab:badArg", "%s: S must be a real vector of finite values.", fname);
  endif
  S = double (S(:).');
  h = o.heads;
  if (isempty (h) && isempty (S))
    error ("muonlab:badShape", "%s: S must not be empty (one value per query head).", fname);
  elseif (isempty (h))
    h = numel (S);
  elseif (numel (S) != h)
    error ("muonlab:badShape", "%s: S must have HEADS (%d) values, not %d.", fname, h,
           numel (S));
  endif
  mla = strcmp (o.layout, "mla");
  if (mla)
    [rq, rk, group] = mla_rows (fname, o, h, rows (Wq), rows (Wk));
  else
    [rq, rk, group] = gqa_rows (fname, o, h, rows (Wq), rows (Wk));
  endif
  ## eta per head from its group's maximum; only groups above tau are clipped
  g = max (group);
  gmax = accumarray (group(:), S(:), [g 1], @max).';
  hit = gmax > o.threshold;
  eta_g = ones (1, g);
  eta_g(hit) = o.threshold ./ gmax(hit);
  eta = eta_g(group);
  clipped = hit(group);
  qf = ones (1, h);
  kf = ones (1, h);
  qf(clipped) = eta(clipped) .^ o.alpha;
  kf(clipped) = eta(clipped) .^ (1 - o.alpha);
  ## row factors: rq / rk give, per row, [head, part] (part 1: scaled by qf / kf, 2: by
  ## eta (q_pe), 0: untouched (v)); a key row's head is the first head of its group
  fq = row_factor (rq, [qf; eta]);
  fk = row_factor (rk, [kf; eta]);
  A = scale_rows (Wq, fq);
  B = scale_rows (Wk, fk);
  info = struct ("clipped", clipped, "eta", eta, "group", group, "group_max", gmax(group),
                 "q_factor", qf, "k_factor", kf, "layout", o.layout,
                 "threshold", o.threshold, "alpha", o.alpha);
  if (mla)
    info.q_pe_factor = eta;
  endif
endfunction

function weight (fname, argname, W)
  host_only (fname, argname, W);
  if (! (isfloat (W) && isreal (W)) || issparse (W) || ndims (W) != 2 || isempty (W))
    error ("muonlab:badType", "%s: %s must be a real non-empty 2-D matrix.", fname, argname);
  endif
  if (! all (isfinite (W(:))))
    error ("muonlab:nonFinite", "%s: %s must not contain NaN or Inf.", fname, argname);
  endif
endfunction

## Grouped-query layout: per row of Wq / Wk, [head part], part 1 (the q or k factor).
function [rq, rk, group] = gqa_rows (fname, o, h, mq, mk)
  if (! all (cellfun (@isempty, {o.qkheaddim, o.ropeheaddim, o.vheaddim})))
    error ("muonlab:badArg",
           "%s: QKHEADDIM, ROPEHEADDIM and VHEADDIM apply to the \"mla\" layout only.", fname);
  endif
  g = o.querygroups;
  if (isempty (g))
    g = h;
  endif
  if (mod (h, g) != 0)
    error ("muonlab:badArg", "%s: QUERYGROUPS (%d) must divide HEADS (%d).", fname, g, h);
  endif
  if (mod (mq, h) != 0)
    error ("muonlab:badShape", "%s: the rows of WQ (%d) must be a multiple of HEADS (%d).",
           fname, mq, h);
  endif
  d = mq / h;
  if (mk != g * d)
    error ("muonlab:badShape",
           "%s: WK must have QUERYGROUPS * head width = %d rows, not %d.", fname, g * d, mk);
  endif
  group = ceil ((1:h) / (h / g));
  first = (0:g-1) * (h / g) + 1;              # a key head's factor: its group's (equal)
  rq = [kron((1:h)', ones (d, 1)), ones(mq, 1)];
  rk = [kron(first', ones (d, 1)), ones(mk, 1)];
endfunction

## MLA layout: q rows [nope (part 1); pe (part 2)], kv rows [k_nope (part 1); v (part 0)].
function [rq, rk, group] = mla_rows (fname, o, h, mq, mk)
  if (! isempty (o.querygroups) && o.querygroups != h)
    error ("muonlab:badArg", "%s: QUERYGROUPS must equal HEADS for the \"mla\" layout.",
           fname);
  endif
  dq = o.qkheaddim;
  if (isempty (dq))
    error ("muonlab:badArg", "%s: QKHEADDIM must be given for the \"mla\" layout.", fname);
  endif
  dr = o.ropeheaddim;
  if (isempty (dr))
    dr = mq / h - dq;
  endif
  dv = o.vheaddim;
  if (isempty (dv))
    dv = mk / h - dq;
  endif
  if (dr < 0 || dr != fix (dr) || mq != h * (dq + dr))
    error ("muonlab:badShape",
           "%s: WQ must have HEADS * (QKHEADDIM + ROPEHEADDIM) rows, not %d.", fname, mq);
  endif
  if (dv < 1 || dv != fix (dv) || mk != h * (dq + dv))
    error ("muonlab:badShape",
           "%s: WK must have HEADS * (QKHEADDIM + VHEADDIM) rows, not %d.", fname, mk);
  endif
  group = 1:h;
  rq = [kron((1:h)', ones (dq + dr, 1)), repmat([ones(dq, 1); 2 * ones(dr, 1)], h, 1)];
  rk = [kron((1:h)', ones (dq + dv, 1)), repmat([ones(dq, 1); zeros(dv, 1)], h, 1)];
endfunction

function f = row_factor (r, F)
  f = ones (rows (r), 1);
  s = r(:,2) > 0;
  f(s) = F(sub2ind (size (F), r(s,2), r(s,1)));
endfunction

function W = scale_rows (W, f)
  s = f != 1;
  if (any (s))
    W(s,:) = W(s,:) .* cast (f(s), class (W));
  endif
endfunction

%!demo
%! ## 4 heads in 2 query groups; head 2's logit 180 exceeds tau = 100, so group 1 is clipped
%! Wq = reshape (sin (1:32*16), 32, 16);  Wk = reshape (cos (1:16*16), 16, 16);
%! [A, B, info] = qk_clip (Wq, Wk, [50 180 90 20], "QueryGroups", 2);
%! disp (info.clipped), disp (info.eta)

%!shared Wq, Wk, Wm, Wkv
%! Wq = reshape (sin (1:8*5), 8, 5);
%! Wk = reshape (cos (1:4*5), 4, 5);
%! Wm = reshape (sin (1:2*5*7), 10, 7);          # 2 heads, dq 3, dr 2
%! Wkv = reshape (cos (1:2*7*4), 14, 4);         # 2 heads, dq 3, dv 4

%!test
%! ## MHA, 2 heads of width 4: head 1 clipped by 100/400 (q and k by 1/2), head 2 unchanged
%! [A, B, info] = qk_clip (Wq(1:8,:), [Wk; Wk], [400 30]);
%! assert (info.clipped, [true false]);
%! assert (info.eta, [0.25 1]);
%! assert (A, [Wq(1:4,:) / 2; Wq(5:8,:)]);
%! assert (B, [Wk / 2; Wk]);

%!test
%! ## GQA, 2 heads sharing 1 key head: the group's max decides; alpha 1 puts it all on q
%! [A, B, info] = qk_clip (Wq, Wk, [30 200], "QueryGroups", 1, "Alpha", 1);
%! assert (info.clipped, [true true]);
%! assert (info.group_max, [200 200]);
%! assert (A, Wq / 2);
%! assert (B, Wk);

%!test
%! ## nothing above tau: bitwise the inputs, single stays single
%! [A, B, info] = qk_clip (single (Wq), single ([Wk; Wk]), [100 -5]);
%! assert (A, single (Wq));
%! assert (B, single ([Wk; Wk]));
%! assert (class (A), "single");
%! assert (! any (info.clipped));

%!test
%! ## MLA: q_nope * eta^alpha, q_pe * eta, k_nope * eta^(1-alpha), v untouched
%! [A, B, info] = qk_clip (Wm, Wkv, [10 400], "Layout", "mla", "QKHeadDim", 3);
%! assert (info.eta, [1 0.25]);
%! assert (A(1:5,:), Wm(1:5,:));
%! assert (A(6:10,:), [Wm(6:8,:) / 2; Wm(9:10,:) / 4]);
%! assert (B(1:7,:), Wkv(1:7,:));
%! assert (B(8:14,:), [Wkv(8:10,:) / 2; Wkv(11:14,:)]);
%! assert (info.q_pe_factor, [1 0.25]);

%!error <qk_clip: S must be a real vector of finite values.> qk_clip (Wq, Wk, [1 NaN])
%!error <qk_clip: S must have HEADS \(2\) values, not 3.> qk_clip (Wq, Wk, [1 2 3], "Heads", 2)
%!error <qk_clip: S must not be empty \(one value per query head\).> qk_clip (Wq, Wk, zeros (1, 0))
%!error <qk_clip: S must have HEADS \(2\) values, not 0.> qk_clip (Wq, Wk, zeros (1, 0), "Heads", 2)
%!error <qk_clip: QUERYGROUPS \(3\) must divide HEADS \(2\).> qk_clip (Wq, Wk, [1 2], "QueryGroups", 3)
%!error <qk_clip: the rows of WQ \(8\) must be a multiple of HEADS \(3\).> qk_clip (Wq, Wk, [1 2 3])
%!error <qk_clip: WK must have QUERYGROUPS \* head width = 8 rows, not 4.> qk_clip (Wq, Wk, [1 2])
%!test
%! ## a cross-attention key weight (another width) is clipped by its rows as in self-attention
%! Q = reshape (1:48, 8, 6);  K = reshape (1:40, 8, 5);
%! [A, B] = qk_clip (Q, K, [50 1], "Threshold", 10);   # head 1: eta 0.2, split evenly
%! assert (A, [Q(1:4,:) * sqrt(0.2); Q(5:8,:)], 1e-15 * 48);
%! assert (B, [K(1:4,:) * sqrt(0.2); K(5:8,:)], 1e-15 * 40);
%!error <qk_clip: WQ must be a real non-empty 2-D matrix.> qk_clip ({1}, Wk, [1 2])
%!error <qk_clip: WQ is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(WQ\)\.> qk_clip (muon_gpu (randn (32, 16), "Device", "cpu"), randn (16, 16), [1 2 3 4], "QueryGroups", 2)
%!error <qk_clip: WK is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(WK\)\.> qk_clip (randn (32, 16), muon_gpu (randn (16, 16), "Device", "cpu"), [1 2 3 4], "QueryGroups", 2)
%!error <qk_clip: S is a device array \(muon_gpuarray\) on cpu; gather it first: gather \(S\)\.> qk_clip (randn (32, 16), randn (16, 16), muon_gpu ([1 2 3 4], "Device", "cpu"), "QueryGroups", 2)
%!error id=muonlab:badType qk_clip (muon_gpu (randn (32, 16), "Device", "cpu"), randn (16, 16), [1 2 3 4], "QueryGroups", 2)
%!error <qk_clip: WK must not contain NaN or Inf.> qk_clip (Wq, [Wk; NaN(4, 5)], [1 2])
%!error <qk_clip: QKHEADDIM, ROPEHEADDIM and VHEADDIM apply to the "mla" layout only.> qk_clip (Wq, [Wk; Wk], [1 2], "QKHeadDim", 2)
%!error <qk_clip: QKHEADDIM must be given for the "mla" layout.> qk_clip (Wm, Wkv, [1 2], "Layout", "mla")
%!error <qk_clip: QUERYGROUPS must equal HEADS for the "mla" layout.> qk_clip (Wm, Wkv, [1 2], "Layout", "mla", "QKHeadDim", 3, "QueryGroups", 1)
%!error <qk_clip: WQ must have HEADS \* \(QKHEADDIM \+ ROPEHEADDIM\) rows, not 10.> qk_clip (Wm, Wkv, [1 2], "Layout", "mla", "QKHeadDim", 3, "RopeHeadDim", 1)
%!error <qk_clip: WK must have HEADS \* \(QKHEADDIM \+ VHEADDIM\) rows, not 14.> qk_clip (Wm, Wkv, [1 2], "Layout", "mla", "QKHeadDim", 3, "VHeadDim", 2)
%!error <qk_clip: WQ must have HEADS \* \(QKHEADDIM \+ ROPEHEADDIM\) rows, not 10.> qk_clip (randn (10, 4), randn (16, 3), [1 400 1 1], "Layout", "mla", "QKHeadDim", 1)
%!error <qk_clip: THRESHOLD must be a positive finite scalar.> qk_clip (Wq, Wk, [1 2], "QueryGroups", 1, "Threshold", 0)
%!error <qk_clip: ALPHA must be a scalar in \[0, 1\].> qk_clip (Wq, Wk, [1 2], "QueryGroups", 1, "Alpha", 2)
%!error <qk_clip: LAYOUT must be 'gqa' or 'mla'; did you mean 'mla'\?> qk_clip (Wq, Wk, [1 2], "Layout", "mha")
