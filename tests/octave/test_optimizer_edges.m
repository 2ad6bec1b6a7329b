## -*- texinfo -*-
## @deftypefn {} {} test_optimizer_edges ()
## Suite (run with @code{test test_optimizer_edges}): muon_step / muon_optimizer at the
## edges a review found: states that would make the update complex or non-finite, moments
## that would overflow their class, options given empty or of another class, the classes
## of the state, and the errors' wording.  Each expectation is a closed form or a plain
## computation written here.
## @end deftypefn

function test_optimizer_edges ()
  help test_optimizer_edges
endfunction

## F () must raise muonlab:ID with exactly MSG
%!function raises (f, id, msg)
%!  try
%!    f ();
%!  catch err
%!    assert ({err.identifier, err.message}, {["muonlab:" id], msg});
%!    return;
%!  end_try_catch
%!  error ("no error: expected '%s'", msg);
%!endfunction

%!shared P, G
%! P = struct ("W", reshape (sin (1:20), 4, 5), "b", [1; 2; 3; 4]);
%! G = struct ("W", reshape (cos (1:20), 4, 5), "b", [1; -1; 2; -2]);

%!test
%! ## a negative second moment of the Muon family is a bad state, in a step and a save
%! for p = {"adamuon_eo", "normuon_eo", "namo_eo"}
%!   [~, o] = muon_step (muon_optimizer (P, "Preset", p{1}), P, G);
%!   o.muon.W.family.buffer(1) = -1;
%!   msg = sprintf ("OPT.muon.W.family.buffer must not be negative (the second moment of %s).",
%!                  upper (p{1}(1:end-3)));
%!   raises (@() muon_step (o, P, G), "badState", ["muon_step: " msg]);
%!   raises (@() muon_save_state ([tempname() ".ckpt"], o), "badState", ["muon_save_state: " msg]);
%! endfor

%!test
%! ## a single AdamW gradient whose square overflows single (1e20^2 > 3.4e38) skips the
%! ## step, though its fp64 sum of squares is finite; 1e19 (1e38) is applied, v = 0.05 g^2
%! Ps = struct ("W", single (P.W), "b", single (P.b));
%! Gs = struct ("W", single (G.W), "b", single ([1e20; 1; 1; 1]));
%! o = muon_optimizer (Ps);
%! [Q, o2, info] = muon_step (o, Ps, Gs);
%! assert ([info.skipped, info.applied], [true, false]);
%! assert (Q, Ps);
%! assert (o2.adam, o.adam);
%! Gs.b(1) = 1e19;
%! [Q, o2, info] = muon_step (o, Ps, Gs);
%! assert ([info.skipped, info.applied], [false, true]);
%! assert (o2.adam.b.v, single (0.05 * double (Gs.b) .^ 2), -1e-6);
%! [Q, o2, info] = muon_step (o2, Q, Gs);
%! assert (info.applied && all (isfinite (Q.b)));
