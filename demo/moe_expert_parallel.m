## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} moe_expert_parallel
## @deftypefnx {muonlab demo} {@var{D} =} moe_expert_parallel ()
## @deftypefnx {muonlab demo} {@var{D} =} moe_expert_parallel ("Display", @var{how})
## Muon on a fused MoE expert weight: per-expert Newton-Schulz against two mistakes, and
## the per-expert update under ZeRO-2 with expert parallelism on simulated ranks.
##
## A fused expert weight of E experts is one (E*M) x N matrix, expert e in rows
## (e-1)*M+1 : e*M (torch's @code{X.view (E, M, N)}, xtuner's per-expert view).  Muon's
## update for it is the polar factor of each expert block on its own, times the scale of
## the M x N expert shape: @code{muon_update (G, [], "Experts", E)}.
##
## (a) One fused gradient of E = 8 experts of 64 x 32 whose sizes follow a skewed router
## (expert e sees 2^(1-e) of expert 1's tokens, so its gradient is that much smaller) is
## orthogonalized three ways, each by the classic cubic Newton-Schulz iteration run to
## convergence in double (so that what is left is the error of the design, not of a
## schedule):
## @table @asis
## @item per expert
## each expert block on its own, scale sqrt (max (1, M/N)) (correct);
## @item fused as one
## the whole (E*M) x N matrix orthogonalized as one, with the scale of the fused shape;
## @item wrong axis
## the experts taken as interleaved rows e, e+E, e+2E, @dots{}: the (M, E, N) view in place
## of (E, M, N), the kind of expert-axis mistake of maxtext #4798 (an expert stack reduced
## over the expert axis); each such block gets the per-expert treatment.
## @end table
## Each is compared, per expert, with the truth computed here from the fp64 SVD: the polar
## factor U*V' of the expert block times the per-expert scale.  The table gives the
## relative Frobenius error, the norm of the expert's update against the truth's (the
## fused update gives the experts with few tokens tiny updates) and the range of the
## singular values of the expert's update over its scale (1 for a polar factor), with
## Keller's 5-step schedule per expert as the level of an everyday schedule.
##
## (b) One step of ZeRO-2 (stage 2) on W = 4 simulated ranks, @code{zero_muon_step}, for a
## layout of two dense matrices and two fused expert weights of 8 experts each (gradients
## skewed over the experts as in (a), a different draw on every rank), with the same
## converged Newton-Schulz:
## @table @asis
## @item @qcode{"expert_parallel"}, @qcode{"Experts"} [1 8 1 8]
## reduce-scatter, momentum on the partition, one all-to-all brings each expert page's owner
## (expert e of a weight of E on rank floor ((e-1) W / E), the dense matrices by LPT) its
## pieces, each expert orthogonalized once, a second all-to-all returns the pieces;
## @item @qcode{"zero2_multi_owner"}, same experts
## exact too, but every owner of a straddling expert weight orthogonalizes all its experts;
## @item @qcode{"reference"} (DDP), with and without @qcode{"Experts"}
## without, each fused weight is orthogonalized as one matrix: the mistake of (a).
## @end table
## Printed per rank of expert_parallel: the experts it orthogonalizes, its dense matrices and
## Newton-Schulz calls, and the bytes it sent in the reduce-scatter and the all-to-alls;
## per design: @code{R.rel_err}, the error against the reference with the per-expert
## experts and against the fp64 per-expert polar factor of the rank average, the matrices
## each rank orthogonalizes (an expert page counts one) and the bytes of the busiest rank.
##
## Writes @file{demo/output/moe_expert_parallel.png}: panels (a) and (b) for part (a), (c)
## and (d) for part (b).  About 1-2 s.  Option
## @qcode{"Display"}: @qcode{"final"} (default) prints the tables at the end,
## @qcode{"iter"} also one line per part as it finishes (with its elapsed time),
## @qcode{"off"} prints nothing.  With an output argument the results come back as a
## struct @var{D}: @code{D.experts} (one row per expert of (a)), @code{D.summary} (per way of
## (a): largest error, spread of the experts' update norms) and @code{D.b} (part (b):
## @code{designs}, one per run with its result @code{R} (a struct), @code{err_ref},
## @code{err_truth} and @code{pages} per rank; @code{ep_owner}, @code{ep_expert_pages},
## @code{ep_dense}, @code{fused_vs_ep}).
## @end deftypefn

function varargout = moe_expert_parallel (varargin)
  if (nargout > 0)
    [varargout{1:nargout}] = demo_run ("moe_expert_parallel", varargin, @run);
  else
    demo_run ("moe_expert_parallel", varargin, @run);     # no "ans" without an output
  endif
endfunction

function D = run (o)
  t_all = tic ();
  t0 = tic ();
  D = part_a ();
  if (o.iter)
    printf ("(a) per expert, fused, wrong axis on %d experts of %d x %d  (%.1f s)\n",
            D.E, D.M, D.N, toc (t0));
  endif
  t0 = tic ();
  D.b = part_b ();
  if (o.iter)
    printf ("(b) %d designs on %d simulated ranks  (%.1f s)\n\n", numel (D.b.designs),
            D.b.world, toc (t0));
  endif
  png = plot_all (D);
  print_a (D);
  print_b (D.b);
  printf ("wrote %s\ndone in %.1f s\n", png, toc (t_all));
endfunction

#---- (a) one fused expert weight, three ways -------------------------------------------------

function D = part_a ()
  E = 8;  M = 64;  N = 32;
  ns = {"Coefficients", [1.5 -0.5 0], "Steps", 30};   # classic cubic NS, converged in double
  randn ("state", 4798);
  tokens = 2 .^ -(0:E-1);                               # skewed router: expert e's share
  G = randn (E * M, N) .* kron (tokens(:), ones (M, 1));
  s = sqrt (max (1, M / N));                            # keller scale of one expert
  blk = @(e) (e-1)*M+1 : e*M;

  truth = zeros (size (G));                             # fp64 SVD polar factor per expert
  for e = 1:E
    [u, ~, v] = svd (G(blk(e), :), "econ");
    truth(blk(e), :) = s * (u * v');
  endfor
  U.per_expert = muon_update (G, [], "Experts", E, ns{:});
  U.fused = muon_update (G, [], ns{:});
  ## wrong axis: expert e read as rows e, e+E, e+2E, ... (the (M, E, N) view)
  idx = reshape (reshape (1:E*M, E, M).', [], 1);       # wrong expert e = idx(blk(e))
  U.wrong_axis = zeros (size (G));
  U.wrong_axis(idx, :) = muon_update (G(idx, :), [], "Experts", E, ns{:});
  U.keller5 = muon_update (G, [], "Experts", E);        # default schedule, per expert

  ways = fieldnames (U).';
  rows = struct ([]);
  for e = 1:E
    r = struct ("expert", e, "tokens", tokens(e));
    T = truth(blk(e), :);
    for w = ways
      Ue = U.(w{1})(blk(e), :);
      r.(["err_" w{1}]) = norm (Ue - T, "fro") / norm (T, "fro");
      r.(["norm_" w{1}]) = norm (Ue, "fro") / norm (T, "fro");
      sv = svd (Ue) / s;
      r.(["sv_" w{1}]) = [min(sv) max(sv)];
    endfor
    rows = [rows, r];
  endfor
  D.E = E;  D.M = M;  D.N = N;
  D.scale = s;
  D.scale_fused = sqrt (max (1, E * M / N));
  D.ways = ways;
  D.experts = rows;
  for w = ways
    nrm = [rows.(["norm_" w{1}])];
    D.summary.(w{1}) = struct ("max_err", max ([rows.(["err_" w{1}])]),
                               "norm_spread", max (nrm) / min (nrm));
  endfor
endfunction

function print_a (D)
  printf (["(a) one fused (E*M) x N = %d x %d gradient, E = %d experts of %d x %d, expert e " ...
           "with 2^(1-e) of\n    expert 1's tokens; cubic NS to convergence in double; the " ...
           "truth: each expert's fp64 SVD\n    polar factor times the expert scale %.3f " ...
           "(the fused shape's would be %.3f)\n\n"],
          D.E * D.M, D.N, D.E, D.M, D.N, D.scale, D.scale_fused);
  printf ("%6s %7s | %-29s | %-23s | %-17s\n", "", "", "rel. error vs the truth",
          "update norm / truth's", "sv / scale, fused");
  printf ("%6s %7s | %9s %9s %9s | %7s %7s %7s | %8s %8s\n", "expert", "tokens",
          "per exp.", "fused", "wrong ax.", "per ex.", "fused", "wrong", "min", "max");
  for r = D.experts
    printf ("%6d %7.4f | %9.1e %9.1e %9.1e | %7.4f %7.4f %7.4f | %8.4f %8.4f\n", r.expert,
            r.tokens, r.err_per_expert, r.err_fused, r.err_wrong_axis, r.norm_per_expert,
            r.norm_fused, r.norm_wrong_axis, r.sv_fused(1), r.sv_fused(2));
  endfor
  S = D.summary;
  printf (["\n    largest error: per expert %.1e, fused %.2f, wrong axis %.2f\n    (Keller's " ...
           "5-step schedule, per expert: %.2f)\n    update norms, largest / smallest expert: " ...
           "per expert %.4f, fused %.1f, wrong axis %.1f\n\n"],
          S.per_expert.max_err, S.fused.max_err, S.wrong_axis.max_err, S.keller5.max_err,
          S.per_expert.norm_spread, S.fused.norm_spread, S.wrong_axis.norm_spread);
endfunction

#---- (b) ZeRO-2 with expert parallelism on simulated ranks ---------------------------------

function B = part_b ()
  W = 4;
  ns = {"Coefficients", [1.5 -0.5 0], "Steps", 30};
  B.names = {"attn", "w_up (experts)", "proj", "w_down (experts)"};
  B.shapes = {[64 64], [8*64 32], [48 64], [8*32 64]};
  B.experts = [1 8 1 8];
  P = numel (B.shapes);
  B.world = W;
  B.L = zero_layout (B.shapes, W, "Stage", 2);
  randn ("state", 4843);
  g = cell (W, P);                      # each rank's gradient, experts with skewed tokens
  for r = 1:W
    for p = 1:P
      E = B.experts(p);
      share = kron (2 .^ -(0:E-1).', ones (B.shapes{p}(1) / E, 1));
      g{r,p} = randn (B.shapes{p}) .* share;
    endfor
  endfor
  ## the truth: each expert page of the rank average, its fp64 SVD polar factor times the
  ## keller scale of the page (the first step's NS input is a multiple of the average)
  B.truth = cell (1, P);
  for p = 1:P
    E = B.experts(p);
    G = sum (cat (3, g{:,p}), 3) / W;
    m = rows (G) / E;
    for e = 1:E
      k = (e-1)*m+1 : e*m;
      [u, ~, v] = svd (G(k,:), "econ");
      B.truth{p}(k,:) = sqrt (max (1, m / columns (G))) * (u * v');
    endfor
  endfor
  runs = {"expert_parallel",   true
          "zero2_multi_owner", true
          "reference",         true
          "reference",         false};
  B.designs = struct ([]);
  for i = 1:rows (runs)
    [v, ex] = runs{i,:};
    args = {"Variant", v, ns{:}};
    if (ex)
      args = [args, {"Experts", B.experts}];
    endif
    R = struct (zero_muon_step (B.L, g, [], args{:}));
    d = struct ("variant", v, "experts", ex, "R", R);
    d.err_truth = cellfun (@(U, T) norm (U - T, "fro") / norm (T, "fro"), R.updates, B.truth);
    if (i == 1)
      per_expert_ref = R.reference;     # the reference with the same Experts
    endif
    d.err_ref = cellfun (@(U, V) norm (U - V, "fro") / (norm (V, "fro") + 1e-8), R.updates,
                         per_expert_ref);
    ## NS work per rank, an expert page counting one (the steps count so)
    d.pages = [R.ranks.ns_calls];
    B.designs = [B.designs, d];
  endfor
  ## expert parallelism's placement: expert e of a fused weight on rank floor ((e-1) W / E)
  B.ep_owner = cell (1, P);
  for p = find (B.experts > 1)
    B.ep_owner{p} = floor ((0:B.experts(p)-1) * W / B.experts(p));
  endfor
  ep = B.designs(1).R;
  B.ep_expert_pages = zeros (1, W);
  for p = find (B.experts > 1)
    B.ep_expert_pages += accumarray (B.ep_owner{p}(:) + 1, 1, [W 1]).';
  endfor
  B.ep_dense = [ep.ranks.ns_calls] - B.ep_expert_pages;
  ## the fused step against the per-expert one, on the expert weights
  fx = find (B.experts > 1);
  B.fused_vs_ep = cellfun (@(U, V) norm (U - V, "fro") / norm (V, "fro"),
                           B.designs(4).R.updates(fx), ep.updates(fx));
endfunction

function print_b (B)
  printf (["(b) ZeRO-2 (stage 2) on %d simulated ranks, one step, cubic NS as in (a); the " ...
           "flat buffer:\n"], B.world);
  ep = B.designs(1).R;
  printf ("    %-17s %9s %7s  %s\n", "parameter", "shape", "experts", "ranks holding it");
  for p = 1:numel (B.shapes)
    printf ("    %-17s %4d x %-3d %7d  %s\n", B.names{p}, B.shapes{p}, B.experts(p),
            num2str (ep.owners{p}));
  endfor
  printf (["\n    expert_parallel, per rank (expert e of a fused weight on rank " ...
           "floor((e-1) W/E); bytes sent):\n"]);
  printf ("    %4s  %-28s %7s %10s %12s %12s\n", "rank", "experts it orthogonalizes",
          "dense", "NS calls", "reduce-sc.", "all-to-all");
  for r = 1:B.world
    txt = {};
    for p = find (B.experts > 1)
      e = find (B.ep_owner{p} == r - 1);
      txt{end+1} = sprintf ("%s %d-%d", strtok (B.names{p}), e(1), e(end));
    endfor
    k = ep.ranks(r);
    printf ("    %4d  %-28s %7d %10d %12d %12d\n", k.rank, strjoin (txt, ", "), B.ep_dense(r),
            k.ns_calls, k.sent(2), k.sent(6));
  endfor
  printf (["\n    %-32s %10s %10s %10s %14s %12s\n"], "design", "R.rel_err", "vs ref.",
          "vs truth", "NS matrices", "max sent");
  for d = B.designs
    name = d.variant;
    if (d.experts)
      name = [name ", Experts"];
    else
      name = [name ", fused (no Experts)"];
    endif
    pages = strjoin (arrayfun (@num2str, d.pages, "UniformOutput", false), "/");
    printf ("    %-32s %10.1e %10.1e %10.1e %14s %12d\n", name, max (d.R.rel_err),
            max (d.err_ref), max (d.err_truth(B.experts > 1)), pages,
            max ([d.R.ranks.bytes_sent]));
  endfor
  printf (["    (R.rel_err: against the reference the call ran, with the call's Experts; vs " ...
           "ref.: against the\n    reference with the per-expert Experts; vs truth: against " ...
           "the fp64 per-expert polar factor, on\n    the expert weights; NS matrices per " ...
           "rank, an expert page counting one)\n    the fused step against expert_parallel " ...
           "on the two expert weights: %s\n\n"],
          strjoin (arrayfun (@(x) sprintf ("%.2f", x), B.fused_vs_ep, "UniformOutput", false),
                   ", "));
endfunction

#---- the figure ------------------------------------------------------------------------------

function png = plot_all (D)
  names = {"per expert", "fused as one", "wrong axis", "per expert, Keller 5 steps"};
  ways = {"per_expert", "fused", "wrong_axis", "keller5"};
  X = D.experts;
  Err = zeros (D.E, numel (ways));
  Nrm = Err;
  for k = 1:numel (ways)
    Err(:,k) = [X.(["err_" ways{k}])];
    Nrm(:,k) = [X.(["norm_" ways{k}])];
  endfor
  [h, png] = demo_figure ("moe_expert_parallel", [0 0 1250 900]);
  unwind_protect
    ax1 = axes ("position", [0.07 0.58 0.40 0.36]);
    semilogy (ax1, 1:D.E, Err, "-o", "linewidth", 1.5);
    set (ax1, "xlim", [0.5 D.E + 0.5], "xtick", 1:D.E, "ylim", [1e-16 10],
         "ytick", 10 .^ (-16:4:0));
    xlabel (ax1, "expert (expert e sees 2^{1-e} of expert 1's tokens)");
    ylabel (ax1, "rel. error vs fp64 polar factor x scale");
    title (ax1, sprintf ("(a) %d experts of %d x %d fused in one %d x %d weight", D.E, D.M,
                         D.N, D.E * D.M, D.N));
    legend (ax1, names, "location", "east");
    ax2 = axes ("position", [0.57 0.58 0.40 0.36]);
    semilogy (ax2, 1:D.E, Nrm, "-o", "linewidth", 1.5);
    set (ax2, "xlim", [0.5 D.E + 0.5], "xtick", 1:D.E);
    xlabel (ax2, "expert");
    ylabel (ax2, "||update of expert e||_F / ||truth||_F");
    title (ax2, "(b) the fused update starves the experts with few tokens");
    legend (ax2, names, "location", "southwest");

    B = D.b;
    dn = {"expert parallel", "ZeRO-2 multi-owner", "reference (DDP)"};   # no _: TeX
    pages = reshape ([B.designs(1:3).pages], B.world, 3);
    ax3 = axes ("position", [0.07 0.08 0.40 0.36]);
    bar (ax3, 0:B.world-1, pages);
    set (ax3, "xlim", [-0.6 B.world - 0.4], "ylim", [0 1.3 * max(pages(:))]);
    xlabel (ax3, "rank");
    ylabel (ax3, "matrices orthogonalized (an expert page counts one)");
    e = max ([B.designs(1:3).err_ref]);
    how = sprintf ("to %.1e", e);
    if (e == 0)
      how = "bit for bit";
    endif
    title (ax3, sprintf ("(c) ZeRO-2, W = %d: NS work per rank (all 3 equal the reference %s)",
                         B.world, how));
    legend (ax3, dn, "location", "north", "orientation", "horizontal");
    ax4 = axes ("position", [0.57 0.08 0.40 0.36]);
    sent = reshape (arrayfun (@(d) {[d.R.ranks.bytes_sent] / 1024}, B.designs(1:3)), 1, 3);
    sent = cell2mat (cellfun (@(x) x(:), sent, "UniformOutput", false));
    bar (ax4, 0:B.world-1, sent);
    set (ax4, "xlim", [-0.6 B.world - 0.4], "ylim", [0 1.3 * max(sent(:))]);
    xlabel (ax4, "rank");
    ylabel (ax4, "KiB sent in the step");
    title (ax4, sprintf (["(d) bytes per rank; the fused step (no Experts) is off by " ...
                          "%.2f"], max (B.fused_vs_ep)));
    legend (ax4, dn, "location", "north", "orientation", "horizontal");
    demo_print (h, png);
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction
