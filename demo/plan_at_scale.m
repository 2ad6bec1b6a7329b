## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} plan_at_scale
## @deftypefnx {muonlab demo} {@var{T} =} plan_at_scale ()
## @deftypefnx {muonlab demo} {@var{T} =} plan_at_scale ("Display", @var{how})
## Which distributed Muon design wins where: DeepSeek-V3 (671B + its MTP layer, 45,868 Muon
## matrices with the experts separate, as the checkpoint stores them) and Llama-3.1-70B (560
## Muon matrices) on 8 to 4,096 H100s, every design of @code{zero_muon_step} (the
## all-to-all owner design of FSDP2 / Dion among them), planned by @code{zero_cost} from the shapes of
## @code{muon_model} (ZeRO stage 2, bf16 gradients on the wire, bf16 Newton-Schulz, fp32
## momentum and master weights, the shipped H100 node profile).
##
## Prints, per model: a table of the fastest correct design at each world size (modelled
## step time: collectives, Newton-Schulz, memory passes, no overlap), the one that moves
## the fewest bytes per rank and the one that needs the least memory per rank; then a
## layout summary at W = 256 (DeepSeek-V3) and W = 1,024 (Llama-3.1-70B): the ranks in 8
## bands, each with the decoder layers it holds, the matrices it touches and straddles and
## the NS work per rank of the whole-matrix designs.  Writes
## @file{demo/output/plan_at_scale.png} (bytes sent, NS time and memory per rank against W,
## log axes, one line per design, drawn only where it can run: a design whose step fails,
## as the shipped aliased pads do on rounds of mixed sizes, is marked so in the legend),
## @file{demo/output/plan_imbalance.png} (max / mean NS work
## of round robin, LPT, all-to-all and ZeRO-1/2 against W) and
## @file{demo/output/plan_layout.png} (the layout summaries: what kind of weight each rank
## holds, and the NS work of each rank under the whole-matrix designs, sorted: designs with
## the same curve share it and one key entry, "a = b"), and with
## @code{muon_export} the cheapest-design table (CSV), the per-rank plan of DeepSeek-V3 on
## 256 ranks (CSV, one row per design and rank) and the per-matrix plan of Llama-3.1-70B on
## 1,024 ranks (JSON, one object per matrix) beside them.  About 11 s on 2 cores.
## @qcode{"Display"}: @qcode{"final"} (default: the tables), @qcode{"iter"} (also one line
## per model and world size with the elapsed time) or @qcode{"off"} (the files only).
## With an output argument the rows of the cheapest-design table come back as a struct
## array @var{T}.
## @end deftypefn

function varargout = plan_at_scale (varargin)
  if (nargout > 0)
    [varargout{1:nargout}] = demo_run ("plan_at_scale", varargin, @run);
  else
    demo_run ("plan_at_scale", varargin, @run);     # no "ans" without an output
  endif
endfunction

function T = run (o)
  [~, png1] = demo_figure ("plan_at_scale");
  outdir = fileparts (png1);
  t_all = tic ();
  models = {"deepseek-v3", "llama-3.1-70b"};
  titles = {"DeepSeek-V3", "Llama-3.1-70B"};
  worlds = 2 .^ (3:12);
  opts = {"Stage", 2, "ElementBytes", 2, "Precision", "bf16"};
  X = struct ();
  rows_out = struct ([]);
  for m = 1:numel (models)
    M = muon_model (models{m});
    printf ("%s: %d Muon matrices, %.1fB parameters to Muon (%.2fB to AdamW); planning W = %d..%d\n",
            titles{m}, M.counts.nmuon, M.counts.muon / 1e9, M.counts.adamw / 1e9, worlds(1),
            worlds(end));
    for i = 1:numel (worlds)
      C = zero_cost (M, worlds(i), opts{:});
      if (i == 1)
        designs = C.design.';
        nd = numel (designs);
        S = struct ("bytes", zeros (nd, numel (worlds)), "ns", 0, "mem", 0, "peak", 0,
                    "step", 0, "imb", 0, "fails", false (nd, numel (worlds)));
        S.ns = S.bytes; S.mem = S.bytes; S.peak = S.bytes; S.step = S.bytes; S.imb = S.bytes;
      endif
      for d = 1:nd
        S.bytes(d,i) = C(d).summary.bytes_max;
        S.ns(d,i) = C(d).time.ns;
        S.mem(d,i) = C(d).summary.persistent_max;
        S.peak(d,i) = C(d).summary.memory_max;
        S.step(d,i) = C(d).time.step;
        S.imb(d,i) = C(d).summary.imbalance;
        S.fails(d,i) = C(d).fails;
      endfor
      if (o.iter)
        printf ("plan_at_scale: %s on %d ranks planned  (%.1f s)\n", titles{m}, worlds(i),
                toc (t_all));
      endif
    endfor
    S.designs = designs;
    X.(strrep (models{m}, ".", "_")) = S;
    printf ("  %.1f s so far\n", toc (t_all));
    rows_out = [rows_out, cheapest_table(titles{m}, worlds, S)];
  endfor

  ## layout summaries for W >= 64
  L1 = layout_summary ("deepseek-v3", "DeepSeek-V3", 256, opts);
  L2 = layout_summary ("llama-3.1-70b", "Llama-3.1-70B", 1024, opts);

  ## figures and tables
  png2 = fullfile (outdir, "plan_imbalance.png");
  png3 = fullfile (outdir, "plan_layout.png");
  plot_scaling (png1, X, models, titles, worlds);
  plot_imbalance (png2, X, models, titles, worlds);
  plot_layout (png3, {L1, L2});
  files = {fullfile(outdir, "plan_at_scale.csv"), ...
           fullfile(outdir, "plan_deepseek_v3_w256_ranks.csv"), ...
           fullfile(outdir, "plan_llama_3.1_70b_w1024_params.json")};
  muon_export (rows_out, files{1});                  # the cheapest-design table
  muon_export (L1.C, files{2}, "Table", "ranks");    # one row per design and rank
  muon_export (L2.C(1).params, files{3});            # one object per matrix
  printf ("wrote %s\n", files{:});
  printf ("wrote %s\nwrote %s\nwrote %s\nplan_at_scale: %.1f s\n", png1, png2, png3,
          toc (t_all));
  if (nargout > 0)
    T = rows_out;
  endif
endfunction

## The fastest correct design per W, the fewest bytes and the least memory per rank.
function rows_out = cheapest_table (title, worlds, S)
  bad = ismember (S.designs, bad_designs ()).';
  printf ("\n%s: which design is cheapest at which W (correct designs only; H100 node profile;\n",
          title);
  printf ("  kept memory: momentum, master weights and AdamW state; peak: plus the step's buffers)\n");
  printf ("  %6s  %-18s %9s  %-18s %8s  %-18s %8s  %-18s %8s\n", "W", "fastest step", "ms",
          "fewest bytes", "GB", "least kept memory", "GB", "least peak memory", "GB");
  rows_out = struct ([]);
  for i = 1:numel (worlds)
    ok = ! bad & ! S.fails(:,i);
    [t, a] = min_of (S.step(:,i), ok);
    [b, bb] = min_of (S.bytes(:,i), ok);
    [mm, cm] = min_of (S.mem(:,i), ok);
    [pk, cp] = min_of (S.peak(:,i), ok);
    printf ("  %6d  %-18s %9.1f  %-18s %8.1f  %-18s %8.2f  %-18s %8.2f\n", worlds(i),
            S.designs{a}, 1e3 * t, S.designs{bb}, b / 1e9, S.designs{cm}, mm / 1e9,
            S.designs{cp}, pk / 1e9);
    r = struct ("model", title, "world", worlds(i), "fastest", S.designs{a},
                "step_ms", 1e3 * t, "fewest_bytes", S.designs{bb}, "bytes_gb", b / 1e9,
                "least_kept_memory", S.designs{cm}, "kept_memory_gb", mm / 1e9,
                "least_peak_memory", S.designs{cp}, "peak_memory_gb", pk / 1e9);
    rows_out = [rows_out, r];
  endfor
endfunction

function [v, k] = min_of (x, ok)
  x(! ok) = Inf;
  [v, k] = min (x);
endfunction

## Ranks in 8 bands: layers held, matrices touched and straddled, NS work per rank.
function L = layout_summary (name, title, W, opts)
  M = muon_model (name);
  mu = strcmp (M.params.route, "muon");
  kind = M.params.kind(mu);
  layer = M.params.layer(mu);
  ## the table's columns, in order ("..." keeps the cell one row: a line break inside braces
  ## starts a new row, and zero_cost would read a 2 x 2 cell column by column)
  cols = {"zero12_allreduce", "zero3_round_robin", "layerwise_lpt", "alltoall_owner"};
  C = zero_cost (M, W, opts{:}, "Design", cols);
  [~, col] = ismember (cols, C.design);              # zero_cost's order may be its own
  Z = C(1);
  n = double (Z.params.rows .* Z.params.cols);
  ## what each rank holds, by kind: the flat buffer in slot order, cut every S elements
  [~, ord] = sort (Z.params.slot);
  off = [0; cumsum(n(ord))];
  S = Z.partition_size;
  edges = (0:W) * S;
  kinds = {"attention", "mlp", "shared_expert", "expert", "router", "mtp_proj"};
  held = zeros (W, numel (kinds));
  for k = 1:numel (kinds)
    isk = strcmp (kind(ord), kinds{k});
    ck = [0; cumsum(n(ord) .* isk)];
    p = lookup (off, min (edges, off(end)));             # the matrix each cut falls in
    p = min (max (p, 1), numel (ord));
    F = ck(p) + isk(p) .* (min (edges(:), off(end)) - off(p));
    held(:,k) = diff (F);
  endfor
  L.title = title;
  L.W = W;
  L.kinds = kinds;
  L.held = held;
  L.designs = C.design.';
  L.ns = C.ranks;
  L.C = C;
  nb = 8;
  band = floor ((0:W-1) * nb / W) + 1;
  printf ("\n%s on %d ranks (ZeRO-2, %.2fB elements per rank): the ranks in %d bands\n",
          title, W, S / 1e9, nb);
  printf ("  %-12s %-12s %9s %10s %12s %12s %12s %12s\n", "ranks", "layers", "matrices",
          "straddled", "ZeRO-1/2 TF", "RR TF", "LPT TF", "a2a TF");
  fo = Z.params.first_owner;
  lo = Z.params.last_owner;
  for b = 1:nb
    r = find (band == b) - 1;
    t = fo <= r(end) & lo >= r(1);
    st = t & fo < lo;
    lay = layer(t);
    tf = arrayfun (@(c) mean (c.ranks.ns_flops(r+1)) / 1e12, struct (C));
    tf = tf(col);
    printf ("  %5d-%-6d %4d-%-7d %9d %10d %12.2f %12.2f %12.2f %12.2f\n", r(1), r(end),
            min (lay), max (lay), sum (t), sum (st), tf);
  endfor
  idle = C.summary.idle_ranks.';
  printf ("  ranks with no Newton-Schulz work: %s\n",
          strjoin (cellfun (@(d, i) sprintf ("%s %d", d, i), C.design.', num2cell (idle),
                            "UniformOutput", false), ", "));
endfunction


## The style of design NAME among DESIGNS (zero_cost's list, in its order), derived from the
## list itself so that a new design gets a style of its own: colours spread over the hue
## circle, line styles and markers cycled (12 markers, 3 line styles: any two of up to 36
## designs differ); the designs wrong by construction (BAD) grey and dotted.
function [col, sty, mk] = design_style (name, designs)
  d = find (strcmp (designs, name), 1);
  n = numel (designs);
  mks = {"o", "s", "d", "^", "v", "p", "h", "*", "x", "+", ">", "<"};
  stys = {"-", "--", "-."};
  col = hsv2rgb ([(d - 1) / n, 0.85, 0.8]);
  sty = stys{mod (d - 1, numel (stys)) + 1};
  mk = mks{mod (d - 1, numel (mks)) + 1};
  if (any (strcmp (name, bad_designs ())))
    col = [0.6 0.6 0.6];
    sty = ":";
  endif
endfunction

## The designs whose update is not the reference's (the bug reproductions: wrong on every
## matrix that straddles a cut, as the large models here have; MuonBP's block steps), left
## out of the cheapest-design table
## and drawn grey (the aliased pads fail only on mixed rounds, which zero_cost marks in its
## field fails).
function b = bad_designs ()
  b = zero_cost_result.wrong_designs ();
endfunction

function log_axes (worlds)
  k = [1 3 5 7 10];
  labels = arrayfun (@(w) sprintf ("%d", w), worlds(k), "UniformOutput", false);
  set (gca, "xscale", "log", "yscale", "log", "xtick", worlds(k), "xticklabel", labels,
       "xlim", [worlds(1) / 1.2, worlds(end) * 1.2]);
  demo_log_ticks (gca, "y");            # 1-2-5 ticks where gnuplot would label 1 or 2
  grid on;
  xlabel ("ranks W");
endfunction

function plot_scaling (png, X, models, titles, worlds)
  h = demo_figure ("plan_at_scale", [0 0 1600 860]);
  what = {"bytes", "ns", "mem", "peak"};
  ylab = {"GB sent per rank (busiest)", "seconds (slowest rank)", ...
          "GB per rank (momentum, master, AdamW)", "GB per rank (kept + step buffers)"};
  heads = {"bytes sent per rank", "Newton-Schulz time", "memory kept between steps", ...
           "peak memory in the step"};
  scale = [1e-9 1 1e-9 1e-9];
  for m = 1:numel (models)
    S = X.(strrep (models{m}, ".", "_"));
    for j = 1:4
      subplot (2, 5, (m - 1) * 5 + j);
      Y = S.(what{j}) * scale(j);
      for d = 1:numel (S.designs)
        [col, sty, mk] = design_style (S.designs{d}, S.designs);
        y = Y(d,:);
        y(y <= 0 | S.fails(d,:)) = NaN;         # (a step that fails has no cost to draw)
        plot (worlds, y, "color", col, "linestyle", sty, "marker", mk, "linewidth", 1.3,
              "markersize", 4);
        hold on;
      endfor
      hold off;
      log_axes (worlds);
      ylabel (ylab{j});
      title (sprintf ("(%c) %s: %s", "a" + 4 * (m - 1) + j - 1, titles{m}, heads{j}));
    endfor
  endfor
  ## the legend in its own axes at the right
  axes ("position", [0.80 0.3 0.12 0.4]);     # right of the panels, off their axes
  S = X.(strrep (models{1}, ".", "_"));
  for d = 1:numel (S.designs)
    [col, sty, mk] = design_style (S.designs{d}, S.designs);
    plot (NaN, NaN, "color", col, "linestyle", sty, "marker", mk, "linewidth", 1.3);
    hold on;
  endfor
  hold off;
  axis off;
  names = S.designs;
  fails = false (size (names));                 # fails at every W of every model
  for m = 1:numel (models)
    fails |= all (X.(strrep (models{m}, ".", "_")).fails, 2).';
  endfor
  names(fails) = strcat (names(fails), " (fails: not drawn)");
  legend (names, "location", "west", "interpreter", "none");
  demo_print (h, png, "-r90");
  close (h);
endfunction

function plot_imbalance (png, X, models, titles, worlds)
  h = demo_figure ("plan_at_scale", [0 0 1200 460]);
  show = {"zero12_allreduce", "zero3_round_robin", "layerwise_lpt", "alltoall_owner"};
  for m = 1:numel (models)
    S = X.(strrep (models{m}, ".", "_"));
    subplot (1, 2, m);
    for k = 1:numel (show)
      d = find (strcmp (S.designs, show{k}));
      [col, sty, mk] = design_style (show{k}, S.designs);
      plot (worlds, S.imb(d,:), "color", col, "linestyle", sty, "marker", mk,
            "linewidth", 1.5);
      hold on;
    endfor
    hold off;
    log_axes (worlds);
    ylabel ("NS work: busiest rank / mean rank");
    title (sprintf ("(%c) %s: load imbalance of Newton-Schulz", "a" + m - 1, titles{m}));
    legend (show, "location", "northwest", "interpreter", "none");
  endfor
  demo_print (h, png, "-r90");
  close (h);
endfunction

function plot_layout (png, Ls)
  h = demo_figure ("plan_at_scale", [0 0 1400 1000]);
  all_designs = zero_cost ([2 2], 1).design.';     # every design, in zero_cost's order
  nb = 32;
  for i = 1:numel (Ls)
    L = Ls{i};
    ## (a) the ranks in 32 bands: what their partitions hold, in percent by kind of weight
    subplot (2, 2, 2 * i - 1);
    band = floor ((0:L.W-1) * nb / L.W) + 1;
    H = zeros (nb, numel (L.kinds));
    for k = 1:numel (L.kinds)
      H(:,k) = accumarray (band(:), L.held(:,k), [nb 1]);
    endfor
    H = 100 * H ./ sum (H, 2);
    bar (1:nb, H, "stacked");
    w = L.W / nb;
    k = [1 8 16 24 32];
    set (gca, "xtick", k, "xticklabel", arrayfun (@(b) sprintf ("%d-%d", (b - 1) * w,
                                                             b * w - 1), k,
                                                "UniformOutput", false));
    xlim ([0.4 nb + 0.6]);
    ylim ([0 100]);
    xlabel (sprintf ("ranks, in %d bands of %d", nb, w));
    ylabel ("% of the band's elements");
    title (sprintf ("(%c) %s, ZeRO-2 on %d ranks: what the partitions hold", "a" + 2 * i - 2,
                    L.title, L.W));
    shrink (gca);
    legend (strrep (L.kinds, "_", " "), "location", "eastoutside", "fontsize", 8);
    ## (b) each rank's Newton-Schulz work, ranks sorted from the busiest
    ## designs with the same sorted work (Llama on 1,024 ranks: LPT, round robin and
    ## all-to-all, each rank holding at most one matrix) are one curve with one key entry
    ## naming them all: drawn apart, the last hid the others with the legend listing 4
    subplot (2, 2, 2 * i);
    Y = {};
    names = {};
    for d = 1:numel (L.designs)
      y = sort (L.ns(d).ns_flops / 1e12, "descend");
      j = find (cellfun (@(z) isequal (z, y), Y), 1);
      if (isempty (j))
        [col, sty, mk] = design_style (L.designs{d}, all_designs);
        x = (1:L.W) / L.W * 100;
        plot (x, y, "color", col, "linestyle", sty, "linewidth", 1.8);
        hold on;
        Y{end+1} = y;
        names{end+1} = L.designs{d};
      else
        names{j} = [names{j} " = " L.designs{d}];
      endif
    endfor
    hold off;
    grid on;
    xlabel ("% of the ranks, sorted from the busiest");
    ylabel ("NS work per step (TFLOP)");
    title (sprintf ("(%c) %s on %d ranks: Newton-Schulz work per rank", "a" + 2 * i - 1,
                    L.title, L.W));
    shrink (gca);
    legend (names, "location", "eastoutside", "interpreter", "none", "fontsize", 8);
  endfor
  demo_print (h, png, "-r90");
  close (h);
endfunction

## 15% off the top of an axes, so that its x label does not run into the title below
function shrink (ax)
  p = get (ax, "position");
  set (ax, "position", [p(1) p(2) + 0.1 * p(4) p(3) 0.85 * p(4)]);
endfunction
