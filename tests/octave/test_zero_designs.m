## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_zero_designs ()
## Suite (run with @code{test test_zero_designs}): a walk over every row of the variant
## table (core/zero/zero_variant.h), the designs as the core's list names them
## (@code{__muon_lists__}), so that a design added without one of its parts fails here:
## @itemize
## @item its step runs (@code{zero_muon_step}, W = 4, two steps, with the reference beside
## it, whose momentum the checkpoints carry too);
## @item its cost model (@code{zero_cost}, ElementBytes 8) gives, rank by rank, the step's own
## counters: Newton-Schulz calls, momentum elements, pad elements, bytes sent and received,
## and the owned elements (the length of each rank's update);
## @item its momentum map (the plan's, through @code{__muon_zero_layout__}) has the length of each
## rank's momentum buffer and covers every matrix;
## @item it saves (@code{zero_save_state}) and loads at W = 2 (@code{zero_load_state}); the
## oracle is the same design run at W = 2 from the start through the same history, which
## gives every rank the same dyadic gradient (multiples of 1/64) so the rank average is exact
## at any W: the loaded state equals the oracle's (isequal), and the next step on it gives
## the oracle's next step (isequal).
## @end itemize
## The matrices: four 6 x 4 then four 5 x 4 in the given order, so that every round robin
## round (W = 2 or 4) gathers matrices of one size (the aliased pads' design runs).
## @end deftypefn

function test_zero_designs ()
  help test_zero_designs
endfunction

%!function g = dyadic (shapes, W, seed)
%!  randn ("state", seed);
%!  one = cellfun (@(s) round (64 * randn (s)) / 64, shapes, "UniformOutput", false);
%!  g = repmat (one, W, 1);

%!function [R, s] = steps (L, shapes, v, s, seeds)
%!  for k = seeds
%!    [R, s] = zero_muon_step (L, dyadic (shapes, L.world, k), s, "Variant", v);
%!  endfor

%!function same (a, b, what)
%!  if (! isequal (a, b))
%!    error ("test_zero_designs: %s differs", what);
%!  endif

%!test
%! shapes = [repmat({[6 4]}, 1, 4), repmat({[5 4]}, 1, 4)];
%! S = cell2mat (shapes(:));
%! designs = __muon_lists__ ().lists.zero_variant;
%! assert (numel (designs) >= 12);
%! L4 = zero_layout (shapes, 4);
%! L2 = zero_layout (shapes, 2);
%! for d = designs
%!   v = d{1};
%!   ## one step, and the plan's counters against its own
%!   [R, s] = steps (L4, shapes, v, [], 1);
%!   C = zero_cost (L4, [], "Design", v, "ElementBytes", 8);
%!   rk = R.ranks;
%!   same ([rk.ns_calls].', C.ranks.ns_calls, [v ": NS calls"]);
%!   same ([rk.momentum_elements].', C.ranks.momentum, [v ": momentum elements"]);
%!   same ([rk.pad_elements].', C.ranks.pads, [v ": pad elements"]);
%!   same ([rk.bytes_sent].', C.ranks.bytes_sent, [v ": bytes sent"]);
%!   same ([rk.bytes_recv].', C.ranks.bytes_recv, [v ": bytes received"]);
%!   same (cellfun (@numel, {rk.update}).', C.ranks.owned, [v ": owned elements"]);
%!   ## the momentum map: each rank's buffer, every matrix somewhere
%!   [M, len] = __muon_zero_step__ ("map", S, 4, struct ("stage", 2, "align_factor", 2,
%!                                                       "order", "given"), v);
%!   same (len, cellfun (@numel, s.momentum(:)), [v ": momentum map length"]);
%!   held = cell2mat (M);
%!   same (unique (held(:,1)).', 1:numel (shapes), [v ": matrices in the momentum map"]);
%!   [~, s] = steps (L4, shapes, v, s, 2);
%!   ## save at W = 4, load at W = 2, against the design run at W = 2 from the start
%!   pre = tempname ();
%!   f = zero_save_state (pre, L4, s);
%!   unwind_protect
%!     s2 = zero_load_state (pre, L2);
%!   unwind_protect_cleanup
%!     cellfun (@unlink, f);
%!   end_unwind_protect
%!   [~, o] = steps (L2, shapes, v, [], 1:2);
%!   same (s2, o, [v ": the state loaded at W = 2"]);
%!   [R2, s2] = steps (L2, shapes, v, s2, 3);
%!   [Ro, o] = steps (L2, shapes, v, o, 3);
%!   same (R2.updates, Ro.updates, [v ": the next step's updates"]);
%!   same (s2, o, [v ": the next step's state"]);
%! endfor
