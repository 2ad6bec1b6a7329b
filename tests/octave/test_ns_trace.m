## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_ns_trace ()
## Suite (run with @code{test test_ns_trace}): @code{muon_ns}'s @qcode{"Trace"} against
## outside values.  In fp64 every iterate is the SVD closed form U diag (phi_k (s)) V', and
## Gram's R and Q have the eigenvalues that form gives; in bf16 and fp16 a traced run keeps
## the untraced run's result and product statistics; fp16 Gram shows R's spurious negative
## eigenvalues where fp64 has none.
## @end deftypefn

function test_ns_trace ()
  help test_ns_trace
endfunction

%!shared G, s0, U, V, phi
%! [G, s0, U, V, phi] = ns_fixture ();

%!test
%! ## Trace, fp64: every iterate is the closed form U diag (phi_k (s)) V', both methods;
%! ## Gram's R_k has eigenvalues phi_k (s)^2 and Q_k = U diag (phi_k (s) ./ b) U', with b
%! ## the singular values at the last (re)start (default restart before step 2)
%! c = muon_coeffs ("you");
%! for meth = {"standard", "gram"}
%!   [X, st] = muon_ns (G, "Coefficients", "you", "Method", meth{1}, "Trace", true);
%!   t = st.trace;
%!   assert (t.step.', 0:5);
%!   assert (t.iterates(:,:,end), X);                   # the run's own result
%!   assert (muon_ns (G, "Coefficients", "you", "Method", meth{1}), X);
%!   s = s0;
%!   base = s0;
%!   for k = 0:5
%!     assert (t.iterates(:,:,k+1), U * diag (s) * V', 1e-12);
%!     assert ([t.sv_min(k+1), t.sv_max(k+1)], [min(s), max(s)], 1e-12);
%!     assert (t.polar_error(k+1), norm (s - 1) / sqrt (numel (s)), 1e-12);
%!     if (strcmp (meth{1}, "gram"))
%!       if (k < 5)
%!         assert (t.r_min_eig(k+1), min (s)^2, 1e-12);
%!       endif
%!       if (k > 0)
%!         assert (t.q_cond(k+1), max (s ./ base) / min (s ./ base), -1e-9);
%!       endif
%!     endif
%!     if (k == 2)
%!       base = s;
%!     endif
%!     if (k < 5)
%!       s = phi (s, c(k+1,:));
%!     endif
%!   endfor
%!   assert (t.gram, strcmp (meth{1}, "gram"));
%! endfor
%! assert (all (isnan (t.r_min_eig(end))) && isnan (t.q_cond(1)));

%!test
%! ## Trace of a low-precision run, eager and fused: the result and the product statistics
%! ## are unchanged; a tall G is traced in its own orientation
%! for prec = {"bf16", "fp16"}
%!   for meth = {"standard", "gram"}
%!    for fused = [false true]
%!     o = {"Precision", prec{1}, "Method", meth{1}, "Gemm", "openblas", "Fused", fused};
%!     [X0, s0st] = muon_ns (G.', o{:});
%!     [X1, s1st] = muon_ns (G.', o{:}, "Trace", true);
%!     assert (X1, X0);
%!     assert (s1st.products, s0st.products);
%!     assert (s1st.product_flops, s0st.product_flops);
%!     assert (size (s1st.trace.iterates), [24 8 6]);
%!     assert (s1st.trace.iterates(:,:,end), X0);
%!    endfor
%!   endfor
%! endfor

%!test
%! ## fp16 Gram on an ill-conditioned input: R picks up negative eigenvalues (the Gram
%! ## blog's spurious negative eigenvalues); in fp64 it has none
%! randn ("state", 7);
%! [Ua, ~] = qr (randn (32));  [Va, ~] = qr (randn (128));
%! Gi = Ua * diag (logspace (0, -5, 32)) * Va(:,1:32)';
%! [~, sh] = muon_ns (Gi, "Method", "gram", "Precision", "fp16", "Trace", true);
%! [~, sd] = muon_ns (Gi, "Method", "gram", "Trace", true);
%! printf ("    min eig R per step: fp16 %s\n                        fp64 %s\n",
%!         sprintf ("%9.2g", sh.trace.r_min_eig(1:5)), sprintf ("%9.2g", sd.trace.r_min_eig(1:5)));
%! assert (any (sh.trace.r_min_eig(1:5) < 0));
%! assert (all (sd.trace.r_min_eig(1:5) > -1e-15));

%!test
%! ## a run that overflows: the trace is NaN from the first non-finite snapshot on (the
%! ## steps before it are the closed form c^k s), with the result's warning; no Octave error
%! warning ("off", "muonlab:nonFiniteResult", "local");
%! [~, st] = muon_ns (G, "Trace", true, "Coefficients", [1e30 0 0], "Steps", 12);
%! t = struct (st.trace);
%! k = find (isnan (t.sv_max), 1);
%! assert (k > 2 && all (isnan (t.sv_max(k:end))) && all (isnan (t.polar_error(k:end))));
%! assert (t.sv_max(1:k-1), max (s0) * 1e30 .^ (0:k-2).', -1e-12);
%! ## Gram in fp16 cast first: R and Q go non-finite too, NaN where they do
%! [~, st] = muon_ns (1e5 * G, "Trace", true, "Precision", "fp16", "NormalizeFirst", false,
%!                    "Method", "gram");
%! t = struct (st.trace);
%! assert (all (isnan (t.r_min_eig)) && all (isnan (t.sv_max)));

%!test
%! ## an all-zero G has no polar factor: its polar error is NaN, as polar_metrics says
%! [X, st] = muon_ns (zeros (4, 6), "Trace", true);
%! t = struct (st.trace);
%! assert (X, zeros (4, 6));
%! assert (all (isnan (t.polar_error)) && all (t.sv_max == 0));
