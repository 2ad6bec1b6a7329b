## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab demo} {} zero3_pads
## @deftypefnx {muonlab demo} {@var{T} =} zero3_pads ()
## @deftypefnx {muonlab demo} {@var{T} =} zero3_pads ("Display", @var{how})
## DeepSpeed PR 7919 / 8628: the pads of ZeRO-3's round-robin Muon gather, shipped vs fixed,
## on simulated ranks.
##
## DeepSpeed's stage-3 Muon updates matrix @code{s} of the flat order on rank
## @code{mod (s, W)}; after each round of W matrices every rank all-gathers the round's
## updates and momenta.  When the matrix count is not a multiple of W the last round is
## padded.  The shipped code pads with @code{[empty_like(params[-1])] * k}: k aliases of ONE
## uninitialised buffer shaped like the LAST matrix, and gathers each slot at its own size,
## so a round whose slots differ in size cannot be gathered (PR 8628, "all-gather breaks for
## mixed parameter shapes"); the fix gives each pad slot its own zero-filled buffer as large
## as the round's largest matrix.  @code{zero_muon_step}'s variants
## @qcode{"zero3_round_robin"} (distinct pads) and
## @qcode{"zero3_round_robin_aliased_pads"} (the shipped ones) run both on the same
## gradients, for layouts whose rounds are all one size, one with pads shaped like their
## neighbours, mixed-size rounds, a layer of a transformer, and Keller's pad count
## @code{W - P mod W} (a whole extra round of pads when W divides P: memory only, as the
## gather loop runs over the matrices, so the rounds and bytes stay those of the distinct
## pads).
##
## Prints one row per configuration and design: whether the step ran, the largest
## relative error of the update against the reference design (DDP: every rank updates
## every matrix), the gather rounds, the pad elements and the bytes sent by the busiest
## rank, and the time.  Writes @file{demo/output/zero3_pads.png}.  About 1 s.
##
## Option @qcode{"Display"}: @qcode{"final"} (default) prints the table at the end,
## @qcode{"iter"} also one line per configuration as it finishes (with its elapsed time),
## @qcode{"off"} prints nothing.  With an output argument the rows come back as a struct
## array @var{T}.
## @end deftypefn

function varargout = zero3_pads (varargin)
  if (nargout > 0)
    [varargout{1:nargout}] = demo_run ("zero3_pads", varargin, @run);
  else
    demo_run ("zero3_pads", varargin, @run);     # no "ans" without an output
  endif
endfunction

function T = run (o)
  t_all = tic ();
  d = 32;
  cfgs = {
    "same size, W | P",     {[d d], [d d], [d d], [d d]},              4, "deepspeed"
    "same size, 1 pad",     {[d d], [d d], [d d]},                     4, "deepspeed"
    "pad = last's shape",   {[2*d d], [2*d d], [d d]},                 2, "deepspeed"
    "mixed round",          {[2*d d], [d d], [d d/2]},                 2, "deepspeed"
    "mixed, last round pad",{[d d], [d d], [d d], [d d/2], [d d/2]},   2, "deepspeed"
    "transformer layer",    {[3*d d], [d d], [4*d d], [d 4*d]},        4, "deepspeed"
    "Keller pads, W | P",   {[d d], [d d], [d d], [d d]},              2, "keller"
  };
  designs = {"zero3_round_robin", "zero3_round_robin_aliased_pads"};
  labels = {"distinct pads", "aliased pads"};
  T = struct ([]);
  if (o.iter)
    print_header ();
  endif
  randn ("state", 7919);
  for i = 1:rows (cfgs)
    [name, shapes, W, pads] = cfgs{i,:};
    L = zero_layout (shapes, W, "Stage", 3, "Order", "size_desc");
    g = cell (W, numel (shapes));
    for k = 1:numel (g)
      [~, p] = ind2sub (size (g), k);
      g{k} = randn (shapes{p});
    endfor
    for j = 1:numel (designs)
      t0 = tic ();
      row = struct ("config", name, "design", labels{j}, "world", W, "params", numel (shapes),
                    "ok", true, "why", "", "rel_err", NaN, "rounds", ceil (numel (shapes) / W),
                    "pad_elements", NaN, "bytes_sent", NaN, "seconds", 0);
      try
        R = zero_muon_step (L, g, [], "Variant", designs{j}, "PadCount", pads);
        row.rel_err = max (R.rel_err);
        row.pad_elements = max ([R.ranks.pad_elements]);
        row.bytes_sent = max ([R.ranks.bytes_sent]);
      catch err
        row.ok = false;
        row.why = err.identifier;
      end_try_catch
      row.seconds = toc (t0);
      T = [T, row];
      if (o.iter)
        print_row (row);
      endif
    endfor
  endfor
  png = plot_rows (T, labels);
  print_header ();                      # the table (under "off", demo_run swallows it)
  arrayfun (@print_row, T);
  printf ("wrote %s\n%d steps in %.1f s\n", png, numel (T), toc (t_all));
endfunction

function print_header ()
  printf ("%-22s %-14s %2s %2s %-4s %9s %6s %8s %10s %7s\n", "configuration", "design",
          "W", "P", "ran", "rel. err", "rounds", "pads", "bytes", "time");
endfunction

function print_row (r)
  if (r.ok)
    printf ("%-22s %-14s %2d %2d %-4s %9.1e %6d %8d %10d %6.2fs\n", r.config, r.design,
            r.world, r.params, "yes", r.rel_err, r.rounds, r.pad_elements, r.bytes_sent,
            r.seconds);
  else
    printf ("%-22s %-14s %2d %2d %-4s %9s %6d %8s %10s %6.2fs  (%s)\n", r.config, r.design,
            r.world, r.params, "NO", "-", r.rounds, "-", "-", r.seconds, r.why);
  endif
endfunction

function png = plot_rows (T, labels)
  cfg = unique ({T.config}, "stable");
  nc = numel (cfg);
  B = zeros (nc, 2);
  F = false (nc, 2);
  E = 0;
  for k = 1:numel (T)
    i = find (strcmp (cfg, T(k).config));
    j = find (strcmp (labels, T(k).design));
    F(i,j) = ! T(k).ok;
    if (T(k).ok)
      B(i,j) = T(k).bytes_sent / 1024;
      E = max (E, T(k).rel_err);
    endif
  endfor
  [h, png] = demo_figure ("zero3_pads", [0 0 900 420]);
  unwind_protect
    barh (flipud (B));
    hold on;
    [fi, fj] = find (flipud (F));
    for k = 1:numel (fi)
      text (2, fi(k) + (fj(k) - 1.5) * 0.36, "fails: slots of mixed sizes (muonlab:badShape)",
            "color", "r", "fontsize", 8);
    endfor
    hold off;
    set (gca, "ytick", 1:nc, "yticklabel", flipud (cfg(:)));
    xlabel (sprintf (["KiB sent by the busiest rank in one step (every step that ran: largest " ...
                      "rel. error vs reference %.1e)"], E));
    legend (labels, "location", "southeast");
    title ("ZeRO-3 round-robin Muon, distinct vs aliased gather pads (PR 7919 / 8628)");
    demo_print (h, png);
  unwind_protect_cleanup
    close (h);
  end_unwind_protect
endfunction
