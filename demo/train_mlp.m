## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} train_mlp
## @deftypefnx {muonlab demo} {@var{T} =} train_mlp ()
## @deftypefnx {muonlab demo} {@var{T} =} train_mlp ("Display", @var{how})
## Teacher-student MLP regression trained with AdamW and with the hybrid Muon + AdamW
## optimizer in its correct and its buggy configurations.
##
## A fixed random teacher MLP 32 -> 64 -> 64 -> 8 (tanh hidden layers) labels 1024 N(0,1)
## inputs; a student of the same shape (another seed) is fitted by mean squared error,
## forward and backward written out in plain Octave, on mini-batches of 128 drawn with a
## fixed seed, 200 steps per run, every run from the same initial student:
## @table @asis
## @item AdamW
## every parameter through AdamW (lr 3e-3).
## @item Muon (standard), Muon (Gram)
## the default routing: W1 (64 x 32) and W2 (64 x 64) through Muon (lr 0.02), the biases
## and the output layer @code{lm_head} through AdamW (lr 3e-3).  Gram runs the Gram
## iteration on W1 and, being square, the standard one on W2 (GramMinAspect 1).
## @item Muon + after_ns clip
## DeepSpeed's clip order (#8439): the global norm over the orthogonalized updates
## (about 8 per matrix) clips them to ClipNorm 1, so Muon crawls at about a tenth of its lr.
## @item Muon + fp16 scaler (correct), Muon + fp16 scaler (poisoned)
## a dynamic loss scale starting at 2^16; the scaled gradients overflow as fp16 would
## (|g| * scale > 65504 becomes Inf), and at step 60 one gradient spike (x 1e4) is
## injected.  The correct path skips that step, halves the scale and carries on;
## with PoisonMomentum (DeepSpeed #8432) the Inf is folded into the Muon momentum before
## the overflow check, every later step overflows, the scale falls to its minimum and the
## loss freezes.
## @end table
##
## The loss on the full training set is logged every 10 steps.  Prints a table of final
## losses and the four conclusions checked on it (Muon ends well below AdamW; clipping
## after NS ends above no clipping; the poisoned scaler skips most steps; the correct
## scaler skips only the spike), and writes
## demo/output/train_mlp.png (headless).  @qcode{"Display"}: @qcode{"final"} (default),
## @qcode{"iter"} (also a line every 50 steps of each run, with the elapsed time) or
## @qcode{"off"}.  With an output argument the rows come back as a struct array @var{T}
## too.  About 10 s.  Run it with @code{make demo DEMO=train_mlp}, or from demo/
## with @code{train_mlp}.
## @end deftypefn

function T = train_mlp (varargin)
  o = demo_options ("train_mlp", varargin);

  sizes = [32 64 64 8];
  nsteps = 200;
  batch = 128;
  ntrain = 1024;
  spike_step = 60;
  every = 10;               # the full-set loss is logged every 10 steps
  logged = 0:every:nsteps;

  ## data: a fixed teacher, a fixed student initialization, fixed mini-batches
  randn ("state", 1);
  teacher = init_mlp (sizes, 1.5);
  X = randn (sizes(1), ntrain);
  Y = forward (teacher, X);
  randn ("state", 2);
  P0 = init_mlp (sizes, 1);
  rand ("state", 3);
  idx = zeros (batch, nsteps);
  for t = 1:nsteps
    idx(:,t) = randperm (ntrain, batch).';
  endfor

  adam_only = struct ("W1", "adamw", "W2", "adamw");
  mu = {"MuonLR", 0.02, "AdamLR", 3e-3};
  runs = cell (6, 3);       # {label, muon_optimizer options, fp16 loss scaling}
  runs(1,:) = {"AdamW", {"LR", 3e-3, "Route", adam_only}, false};
  runs(2,:) = {"Muon (standard)", mu, false};
  runs(3,:) = {"Muon (Gram)", [mu, {"Method", "gram"}], false};
  runs(4,:) = {"Muon + after_ns clip", [mu, {"ClipPolicy", "after_ns", "ClipNorm", 1}], ...
               false};
  runs(5,:) = {"Muon + fp16 scaler (correct)", [mu, {"LossScaler", "dynamic"}], true};
  runs(6,:) = {"Muon + fp16 scaler (poisoned)", ...
               [mu, {"LossScaler", "dynamic", "PoisonMomentum", true}], true};
  nr = rows (runs);
  loss = zeros (nr, numel (logged));
  rows_out = struct ("run", {}, "final_loss", {}, "min_loss", {}, "applied", {},
                     "skipped", {}, "final_scale", {}, "seconds", {});
  t_all = tic ();
  for r = 1:nr
    t0 = tic ();
    P = P0;
    opt = muon_optimizer (P, runs{r,2}{:});
    loss(r,1) = mse (forward (P, X), Y);
    for t = 1:nsteps
      b = idx(:,t);
      [~, G] = loss_grad (P, X(:,b), Y(:,b));
      if (runs{r,3})                          # fp16-style loss scaling
        s = opt.scaler.scale;
        if (t == spike_step)
          G.W2 *= 1e4;                        # an injected gradient spike
        endif
        G = scale_fp16 (G, s);
      endif
      [P, opt] = muon_step (opt, P, G);
      if (mod (t, every) == 0)
        loss(r,t/every+1) = mse (forward (P, X), Y);
      endif
      if (o.iter && mod (t, 50) == 0)
        printf ("train_mlp: %-30s step %3d of %d, loss %.4e, skipped %3d  (%.1f s)\n",
                runs{r,1}, t, nsteps, loss(r,t/every+1), opt.skipped, toc (t_all));
      endif
    endfor
    rows_out(r) = struct ("run", runs{r,1}, "final_loss", loss(r,end),
                          "min_loss", min (loss(r,:)), "applied", opt.step,
                          "skipped", opt.skipped, "final_scale", opt.scaler.scale,
                          "seconds", toc (t0));
  endfor
  ## the conclusions the demo stands for
  fl = [rows_out.final_loss];
  checks = {fl(2) < fl(1) / 2, "Muon (standard) ends below half of AdamW's loss";
            fl(4) > fl(2), "after_ns clipping ends above Muon without clipping";
            rows_out(6).skipped > nsteps / 2, "the poisoned scaler skips most steps";
            rows_out(5).skipped <= 2, "the correct scaler skips only the spike"};
  if (! o.final)
    make_plot (runs(:,1), loss, logged, spike_step);
    if (nargout > 0)
      T = rows_out;
    endif
    return;
  endif

  printf ("\nTeacher-student MLP %s, tanh, MSE; %d steps of batch %d from one init\n",
          strjoin (arrayfun (@num2str, sizes, "UniformOutput", false), " -> "), nsteps,
          batch);
  printf ("Muon lr 0.02 on W1, W2; AdamW lr 3e-3 on biases and lm_head (AdamW run: all)\n");
  printf ("scaler runs: fp16 overflow emulated, gradient spike injected at step %d\n\n",
          spike_step);
  printf ("%-31s %11s %11s %8s %8s %11s\n", "run", "final loss", "min loss", "applied",
          "skipped", "final scale");
  printf ("%s\n", repmat ("-", 1, 85));
  printf ("%-31s %11.4e\n", "(initial student)", loss(1,1));
  for r = 1:nr
    o = rows_out(r);
    printf ("%-31s %11.4e %11.4e %8d %8d %11g\n", o.run, o.final_loss, o.min_loss,
            o.applied, o.skipped, o.final_scale);
  endfor
  printf ("%d runs in %.1f s\n", nr, toc (t_all));
  for k = 1:rows (checks)
    printf ("%s %s\n", merge (checks{k,1}, "[ok]  ", "[FAIL]"), checks{k,2});
  endfor

  png = make_plot (runs(:,1), loss, logged, spike_step);
  printf ("wrote %s\n", png);
  if (nargout > 0)
    T = rows_out;
  endif
endfunction

function P = init_mlp (sizes, gain)
  P = struct ();
  names = {"W1", "W2", "lm_head"};
  bn = {"b1", "b2", "b3"};
  for l = 1:3
    P.(names{l}) = gain * randn (sizes(l+1), sizes(l)) / sqrt (sizes(l));
    P.(bn{l}) = 0.1 * gain * randn (sizes(l+1), 1);
  endfor
endfunction

function [Yh, H1, H2] = forward (P, X)
  H1 = tanh (P.W1 * X + P.b1);
  H2 = tanh (P.W2 * H1 + P.b2);
  Yh = P.lm_head * H2 + P.b3;
endfunction

function L = mse (Yh, Y)
  L = mean ((Yh(:) - Y(:)) .^ 2);
endfunction

## loss = mean squared error over the batch and the outputs; backward by hand
function [L, G] = loss_grad (P, X, Y)
  [Yh, H1, H2] = forward (P, X);
  L = mse (Yh, Y);
  dY = 2 * (Yh - Y) / numel (Y);
  G = P;                                # the fields in P's order
  G.lm_head = dY * H2.';
  G.b3 = sum (dY, 2);
  dA2 = (P.lm_head.' * dY) .* (1 - H2 .^ 2);
  G.W2 = dA2 * H1.';
  G.b2 = sum (dA2, 2);
  dA1 = (P.W2.' * dA2) .* (1 - H1 .^ 2);
  G.W1 = dA1 * X.';
  G.b1 = sum (dA1, 2);
endfunction

## multiply by the loss scale; what fp16 cannot hold (> 65504) overflows to Inf
function G = scale_fp16 (G, s)
  f = fieldnames (G);
  for i = 1:numel (f)
    g = G.(f{i}) * s;
    big = abs (g) > 65504;
    g(big) = Inf * sign (g(big));
    G.(f{i}) = g;
  endfor
endfunction

function png = make_plot (names, loss, steps, spike_step)
  [h, png] = demo_figure ("train_mlp", [100 100 1000 520]);
  unwind_protect
    ## the standard, Gram and correct-scaler curves coincide (fp64 NS: Gram = standard up
    ## to round-off; the scaler skips one step): each has its own marker, the markers of
    ## the three staggered along the steps, so all three stay visible
    colors = [0 0 0; 0 0.35 0.8; 0.9 0.55 0; 0.6 0 0.6; 0 0.6 0.3; 0.85 0.1 0.1];
    marks = {"none", "o", "s", "none", "^", "none"};
    styles = {"-", "-", "--", "-", ":", "-"};
    first = [1 1 2 1 3 1];                # markers every 30 steps, 10 steps apart
    n = numel (steps);
    hl = zeros (1, rows (loss));
    for r = 1:rows (loss)
      m = first(r):3:n;
      hl(r) = semilogy (steps, loss(r,:), styles{r}, "color", colors(r,:), "linewidth", 2);
      hold on;
      if (! strcmp (marks{r}, "none"))
        semilogy (steps(m), loss(r,m), marks{r}, "color", colors(r,:), "markersize", 7,
                  "linewidth", 1.5);
      endif
    endfor
    ## markers in the legend: a one-point line of each style out of sight
    for r = 1:rows (loss)
      hl(r) = semilogy (NaN, NaN, styles{r}, "color", colors(r,:), "linewidth", 2,
                        "marker", marks{r}, "markersize", 7);
    endfor
    yl = [min(loss(:)) / 1.5, 1.5 * max(loss(:))];
    hs = semilogy ([spike_step spike_step], yl, ":", "color", [0.5 0.5 0.5]);
    text (spike_step + 5, loss(end,end) * 1.25,
          sprintf ("poisoned scaler: every step after %d skipped", spike_step),
          "color", colors(6,:));
    hold off;
    ylim (yl);
    xlim ([0 steps(end)]);
    set (gca, "ygrid", "on", "xgrid", "off", "yminorgrid", "off");
    xlabel ("optimizer step");
    ylabel ("training MSE (full training set, every 10 steps)");
    title ("teacher-student MLP 32-64-64-8: AdamW vs Muon variants");
    legend ([hl, hs], [names(:).', {sprintf("gradient spike (step %d)", spike_step)}],
            "location", "eastoutside", "interpreter", "none");
    demo_print (h, png, "-r100");
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction
