## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef zero_plan < handle
  ## -*- texinfo -*-
  ## @deftypefn {muonlab} {@var{p} =} zero_plan ()
  ## The C plans of a layout: what a @code{zero_layout_result} owns so that its steps plan
  ## once.  Made empty with the layout; the first @code{zero_muon_step} on the layout builds
  ## the C layout there and each variant's plan when first asked for (@code{R.plans_built}
  ## counts them), later steps with the same layout and variant reuse them.  Copies of the
  ## layout share it (a handle); the plans are freed with the last copy, so nothing is
  ## cached behind the user's back.  (Octave 7's @code{clear mex} does not unload the MEX
  ## file, so the plans survive it; @code{zero_muon_step ("release")} frees them.)
  ## A layout given as a plain struct (@code{struct (L)}) has none: each step plans for that
  ## call alone (the same bits, more work).
  ##
  ## @code{@var{h} = handle_for (@var{p}, @var{shapes}, @var{world}, @var{lopts})} is the
  ## handle (@code{__muon_zero_step__}'s table) of the plans of those shapes, world and
  ## layout options, built when there are none yet.
  ## @seealso{zero_layout, zero_layout_result, zero_muon_step}
  ## @end deftypefn

  properties (SetAccess = private)
    Handle = [];      # [SESSION ID] in __muon_zero_step__'s table, [] before the first step
  endproperties

  ## No constructor of its own that refuses arguments: print_usage raised in a classdef
  ## constructor leaves Octave 7 unable to find this class's methods for the rest of the
  ## session ('handle_for' undefined in every later zero_muon_step).
  methods
    function h = handle_for (P, shapes, world, lopts)
      if (isempty (P.Handle) || ! __muon_zero_step__ ("holds", P.Handle))
        P.Handle = __muon_zero_step__ ("plan", shapes, world, lopts);
      endif
      h = P.Handle;
    endfunction

    function delete (P)
      try                                # (P of a failed constructor call: nothing to free)
        if (! isempty (P.Handle))
          __muon_zero_step__ ("free", P.Handle);   # a stale handle is ignored there
        endif
      catch
      end_try_catch
    endfunction

    function disp (P)
      if (isempty (P.Handle))
        printf ("  zero_plan: no C plan yet (the first zero_muon_step builds it)\n");
      else
        printf ("  zero_plan: the C layout and plans of a zero_layout, freed with it\n");
      endif
    endfunction
  endmethods
endclassdef

%!demo
%! L = zero_layout ({[64 32], [32 32]}, 4);
%! R = zero_muon_step (L, repmat ({ones(64, 32), ones(32, 32)}, 4, 1), []);
%! R2 = zero_muon_step (L, repmat ({ones(64, 32), ones(32, 32)}, 4, 1), []);
%! printf ("plans built by the two steps: %d (the second reused them)\n",
%!         R2.plans_built - R.plans_built + 1);

%!test
%! ## built by the first step, shared by copies of the layout, freed with the last one
%! n0 = __muon_zero_step__ ("count");
%! L = zero_layout ({[6 4], [5 4]}, 2);
%! g = {ones(6, 4), ones(5, 4); 2 * ones(6, 4), ones(5, 4)};
%! assert (__muon_zero_step__ ("count"), n0);
%! R1 = zero_muon_step (L, g, []);
%! assert (__muon_zero_step__ ("count"), n0 + 1);
%! L2 = L;
%! R2 = zero_muon_step (L2, g, []);
%! assert (R2.plans_built, R1.plans_built);
%! clear L
%! assert (__muon_zero_step__ ("count"), n0 + 1);
%! clear L2
%! assert (__muon_zero_step__ ("count"), n0);

%!test
%! ## a plain struct plans for each call, as does a stale handle or one of other shapes
%! L = zero_layout ({[6 4], [5 4]}, 2);
%! g = {ones(6, 4), ones(5, 4); 2 * ones(6, 4), ones(5, 4)};
%! S = struct (L);
%! R1 = zero_muon_step (S, g, []);
%! R2 = zero_muon_step (S, g, []);
%! assert (R2.plans_built, R1.plans_built + 2);   # the variant's and the reference's
%! assert (R2.updates, R1.updates);
%! shapes = [6 4; 5 4];
%! lo = struct ("stage", 2, "align_factor", 1, "order", "given");
%! [~, ~, ~, f1, i1] = __muon_zero_step__ (shapes, 2, lo, g, [], struct (), "sim", true,
%!                                         false, [], [1 2]);
%! assert (i1.plans_built, R2.plans_built + 1);
%! h = __muon_zero_step__ ("plan", [6 4; 5 5], 2, lo);
%! unwind_protect
%!   [~, ~, ~, f2, i2] = __muon_zero_step__ (shapes, 2, lo, g, [], struct (), "sim", true,
%!                                           false, [], h);
%!   assert (i2.plans_built, i1.plans_built + 1);
%!   assert (f2, f1);
%! unwind_protect_cleanup
%!   __muon_zero_step__ ("free", h);
%! end_unwind_protect
%! assert (__muon_zero_step__ ("holds", h), false);

%!error <zero_muon_step: usage: \[UPD, MOM, STATS, FULL, INFO, RMOM, RFULL\] = __muon_zero_step__ \(SHAPES, WORLD, LOPTS, GRADS, MOM, OPTS, COMM, ASSEMBLE\[, REF, RMOM, PLAN\]\), or __muon_zero_step__ \(CMD, \.\.\.\) with CMD plan, map, owned, holds, free, count, steps or release\.> __muon_zero_step__ ("plans")
%!error <zero_muon_step: SHAPES must be a real P x 2 double matrix.> __muon_zero_step__ ("plan", 1, 2, struct ())
%!test
%! p = zero_plan ();
%! assert (isempty (p.Handle));
