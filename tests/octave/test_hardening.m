## -*- texinfo -*-
## @deftypefn {} {} test_hardening ()
## Suite (run with @code{test test_hardening}): issue 23's hardening, round 2, each case
## reproduced from the issue and checked against the error id and message it promises (or
## a closed form where the call must succeed).
## @itemize
## @item item 5: scalars edited in an optimizer state between steps (NaN, Inf, -Inf,
## negative; @code{adam_betas} [1 1]) are @code{muonlab:badState} naming the field, and
## nothing is written; NaN / Inf in the parameters are @code{muonlab:nonFinite} naming the
## parameter; a valid edit (learning rate and weight decay 0) leaves the parameter
## exactly as it was.
## @end itemize
## @end deftypefn

function test_hardening ()
  help test_hardening
endfunction

%!function [id, msg] = err_of (f)
%!  id = ""; msg = "";
%!  try
%!    f ();
%!  catch err
%!    id = err.identifier;
%!    msg = err.message;
%!  end_try_catch

## ---- item 5: edited optimizer scalars -------------------------------------------------

%!test
%! P = struct ("W", reshape (sin (1:48), 6, 8), "b", (1:6)');
%! G = struct ("W", reshape (cos (1:48), 6, 8), "b", ones (6, 1));
%! opt = muon_optimizer (P);
%! for f = {"muon_lr", "adam_lr", "muon_wd", "adam_wd", "adam_eps"}
%!   for v = [NaN, Inf, -Inf, -1]
%!     o = opt;
%!     o.(f{1}) = v;
%!     [id, msg] = err_of (@() muon_step (o, P, G));
%!     assert (id, "muonlab:badState");
%!     assert (msg, sprintf ("muon_step: OPT.%s must be a non-negative finite scalar.", f{1}));
%!   endfor
%! endfor
%! for b = {[1 1], [NaN 0.9], [0.9 Inf], [0.9 -0.1], 0.9}
%!   o = opt;
%!   o.adam_betas = b{1};
%!   [id, msg] = err_of (@() muon_step (o, P, G));
%!   assert (id, "muonlab:badState");
%!   assert (msg, "muon_step: OPT.adam_betas must be two numbers in [0, 1).");
%! endfor

%!test
%! ## non-finite parameters: an error naming the parameter
%! P = struct ("W", reshape (sin (1:48), 6, 8), "b", (1:6)');
%! G = struct ("W", reshape (cos (1:48), 6, 8), "b", ones (6, 1));
%! opt = muon_optimizer (P);
%! for v = [NaN, Inf, -Inf]
%!   Q = P;
%!   Q.b(2) = v;
%!   [id, msg] = err_of (@() muon_step (opt, Q, G));
%!   assert ({id, msg}, {"muonlab:nonFinite", "muon_step: PARAMS.b must not contain NaN or Inf."});
%!   Q = P;
%!   Q.W(5) = v;
%!   [id, msg] = err_of (@() muon_step (opt, Q, G));
%!   assert ({id, msg}, {"muonlab:nonFinite", "muon_step: PARAMS.W must not contain NaN or Inf."});
%! endfor

%!test
%! ## a valid edit: no learning rate and no decay leave the parameters as they were
%! P = struct ("W", reshape (sin (1:48), 6, 8), "b", (1:6)');
%! G = struct ("W", reshape (cos (1:48), 6, 8), "b", ones (6, 1));
%! opt = muon_optimizer (P, "WeightDecay", 0.1);
%! opt.muon_lr = 0; opt.adam_lr = 0; opt.muon_wd = 0; opt.adam_wd = 0;
%! Q = muon_step (opt, P, G);
%! assert (Q.W, P.W);
%! assert (Q.b, P.b);
