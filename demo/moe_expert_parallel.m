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
## (b) is a placeholder until @code{zero_muon_step}'s expert-parallel variant lands.
##
## Writes @file{demo/output/moe_expert_parallel.png}.  A few seconds.  Option
## @qcode{"Display"}: @qcode{"final"} (default) prints the tables at the end,
## @qcode{"iter"} also one line per part as it finishes (with its elapsed time),
## @qcode{"off"} prints nothing.  With an output argument the results come back as a
## struct @var{D}: @code{D.experts} (one row per expert of (a)) and @code{D.summary}.
## @end deftypefn

function D = moe_expert_parallel (varargin)
  if (nargout > 0)
    D = demo_run ("moe_expert_parallel", varargin, @run);
  else
    demo_run ("moe_expert_parallel", varargin, @run);
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
  png = plot_all (D);
  print_a (D);
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
  printf (["\n    largest error: per expert %.1e, fused %.2f, wrong axis %.2f (Keller's 5-step " ...
           "schedule per expert: %.2f)\n    update norms, largest / smallest expert: per " ...
           "expert %.4f, fused %.1f, wrong axis %.1f\n"],
          S.per_expert.max_err, S.fused.max_err, S.wrong_axis.max_err, S.keller5.max_err,
          S.per_expert.norm_spread, S.fused.norm_spread, S.wrong_axis.norm_spread);
  printf ("\n(b) ZeRO-2 + expert parallelism: PLACEHOLDER, waiting for zero_muon_step's variant\n\n");
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
  [h, png] = demo_figure ("moe_expert_parallel", [0 0 1250 500]);
  unwind_protect
    ax1 = axes ("position", [0.06 0.13 0.42 0.74]);
    semilogy (ax1, 1:D.E, Err, "-o", "linewidth", 1.5);
    set (ax1, "xlim", [0.5 D.E + 0.5], "xtick", 1:D.E, "ylim", [1e-16 10],
         "ytick", 10 .^ (-16:2:0));
    xlabel (ax1, "expert (expert e sees 2^{1-e} of expert 1's tokens)");
    ylabel (ax1, "rel. error vs fp64 SVD polar factor x scale");
    title (ax1, sprintf ("(a) %d experts of %d x %d fused in one %d x %d weight", D.E, D.M,
                         D.N, D.E * D.M, D.N));
    legend (ax1, names, "location", "east");
    ax2 = axes ("position", [0.56 0.13 0.42 0.74]);
    semilogy (ax2, 1:D.E, Nrm, "-o", "linewidth", 1.5);
    set (ax2, "xlim", [0.5 D.E + 0.5], "xtick", 1:D.E);
    xlabel (ax2, "expert");
    ylabel (ax2, "||update of expert e||_F / ||truth||_F");
    title (ax2, "(a) the fused update starves the experts with few tokens");
    legend (ax2, names, "location", "southwest");
    print (h, png, "-dpng");
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction
