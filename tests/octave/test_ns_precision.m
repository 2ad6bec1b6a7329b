## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} test_ns_precision ()
## Suite (run with @code{test test_ns_precision}): precision error of low-precision
## Newton-Schulz against fp64 NS (same schedule, same method), relative Frobenius, on
## N(0,1) inputs.  Asserted (DESIGN.md 6, issue 3), keller schedule, aspect >= 2:
## bf16 standard <= 0.05 (peer figure 0.023-0.035), fp16 Gram <= 0.008 (peer 0.003-0.005;
## MUON_FACTS 1.2-1.3, 4).  Printed, not asserted: every schedule, both methods, both
## precisions, and near-square shapes.  And the fp16 overflow of the peers' cast-first
## order (DeepSpeed PR 8533, MUON_FACTS 1.3) against the default normalize-first order.
## And torch.optim.Muon's own bf16 Newton-Schulz (fixtures/torch_ns_bf16.txt, written by
## torch 2.15 on the CPU): the options README gives for it reproduce its bits on these
## short inner dimensions (torch's CPU addmm sums longer ones in another order).
## @end deftypefn

function test_ns_precision ()
  help test_ns_precision
endfunction

%!function e = relerr (X, Y)
%!  e = norm (double (X(:)) - double (Y(:))) / norm (double (Y(:)));

%!test
%! ## keller, aspect >= 2: the asserted figures next to the peers'
%! randn ("state", 41);
%! shapes = {[128 256], [64 256], [128 640], [256 128]};
%! printf ("    keller, N(0,1)       bf16 std  (peer 0.023-0.035)   fp16 gram (peer 0.003-0.005)\n");
%! eb = []; ef = [];
%! for i = 1:numel (shapes)
%!   G = randn (shapes{i});
%!   X64s = muon_ns (G, "Precision", "double");
%!   X64g = muon_ns (G, "Precision", "double", "Method", "gram");
%!   eb(i) = relerr (muon_ns (G, "Precision", "bf16"), X64s);
%!   ef(i) = relerr (muon_ns (G, "Precision", "fp16", "Method", "gram"), X64g);
%!   printf ("    %4d x %-4d            %.4f                          %.4f\n",
%!           shapes{i}, eb(i), ef(i));
%! endfor
%! assert (all (eb <= 0.05), sprintf ("bf16 standard: %s", mat2str (eb, 3)));
%! assert (all (ef <= 0.008), sprintf ("fp16 gram: %s", mat2str (ef, 3)));

%!test
%! ## every schedule, both methods, both precisions, aspect >= 2 and near-square (printed)
%! randn ("state", 42);
%! shapes = {[128 256], [64 256], [128 640], [128 128], [128 160]};
%! Gs = cellfun (@(s) randn (s), shapes, "UniformOutput", false);
%! printf ("    %-18s %-9s  bf16-std fp16-std bf16-gram fp16-gram\n", "schedule", "shape");
%! for nm = muon_coeffs ()(:)'
%!   for i = 1:numel (Gs)
%!     G = Gs{i};
%!     a = {"Coefficients", nm{1}};
%!     X64s = muon_ns (G, "Precision", "double", a{:});
%!     X64g = muon_ns (G, "Precision", "double", "Method", "gram", a{:});
%!     e = [relerr(muon_ns (G, "Precision", "bf16", a{:}), X64s), ...
%!          relerr(muon_ns (G, "Precision", "fp16", a{:}), X64s), ...
%!          relerr(muon_ns (G, "Precision", "bf16", "Method", "gram", a{:}), X64g), ...
%!          relerr(muon_ns (G, "Precision", "fp16", "Method", "gram", a{:}), X64g)];
%!     printf ("    %-18s %3dx%-5d  %8.4f %8.4f %9.4f %9.4f%s\n", nm{1}, shapes{i}, e,
%!             merge (shapes{i}(1) == shapes{i}(2), "  (gram falls back: square)", ""));
%!     assert (all (isfinite (e)));
%!   endfor
%! endfor

%!test
%! ## cast-first order (peers' bug, DeepSpeed PR 8533): a finite fp32 gradient scaled past
%! ## 65504 overflows fp16 when cast before normalizing -> the whole result is NaN (or zero
%! ## where a caller zeroes NaNs); the default order (normalize in fp32, then cast) is
%! ## finite and as accurate as for the unscaled input.
%! randn ("state", 43);
%! G0 = randn (128, 256);
%! G = single (1e5 * G0);
%! assert (all (isfinite (G(:))) && max (abs (G(:))) > 65504);
%! X64 = muon_ns (double (G), "Precision", "double");
%! for m = {"standard", "gram"}
%!   w = warning ("off", "all");
%!   Xbad = muon_ns (G, "Precision", "fp16", "Method", m{1}, "NormalizeFirst", false);
%!   warning (w);
%!   Xok = muon_ns (G, "Precision", "fp16", "Method", m{1});
%!   e = relerr (Xok, muon_ns (double (G), "Precision", "double", "Method", m{1}));
%!   e0 = relerr (muon_ns (G0, "Precision", "fp16", "Method", m{1}),
%!                muon_ns (G0, "Precision", "double", "Method", m{1}));
%!   printf ("    1e5*randn(128,256) fp16 %-8s cast-first: %d NaN, %d zero of %d;  default: all finite %d, err %.4f (unscaled %.4f)\n",
%!           m{1}, nnz (isnan (Xbad)), nnz (Xbad == 0), numel (Xbad),
%!           all (isfinite (Xok(:))), e, e0);
%!   assert (all (isnan (Xbad(:))) || all (Xbad(:) == 0));
%!   assert (all (isfinite (Xok(:))));
%!   assert (e <= merge (strcmp (m{1}, "gram"), 0.008, 0.01));
%!   assert (abs (e - e0) <= 0.5 * e0);
%! endfor
%! ## bf16 has fp32's range: both orders stay finite there
%! Xb = muon_ns (G, "Precision", "bf16", "NormalizeFirst", false);
%! printf ("    bf16 cast-first: all finite %d, err %.4f\n", all (isfinite (Xb(:))), relerr (Xb, X64));
%! assert (all (isfinite (Xb(:))));

%!test
%! ## torch.optim.Muon's bf16 NS, bit for bit: G rounded to bf16 first, divided by its norm
%! ## clamped at eps, each scale-add the epilogue of its product (5 cases, wide and tall)
%! f = fullfile (fileparts (which ("test_ns_precision")), "fixtures", "torch_ns_bf16.txt");
%! L = strsplit (fileread (f), "\n");
%! L = L(! strncmp (L, "#", 1) & ! cellfun ("isempty", L));
%! assert (numel (L), 15);
%! for k = 1:3:numel (L)
%!   sz = sscanf (L{k}, "%d").';
%!   bits = @(s) reshape (typecast (uint32 (hex2dec (strsplit (strtrim (s)))), "single"),
%!                        sz(2), sz(1)).';
%!   G = bits (L{k+1});
%!   T = bits (L{k+2});
%!   X = muon_ns (G, "Precision", "bf16", "Fused", true, "NormalizeFirst", false,
%!                "EpsPlacement", "max");
%!   assert (X, T);
%!   ## normalizing first in fp32 (the default) is 1.5-3% away: more than a rounding
%!   assert (relerr (muon_ns (G, "Precision", "bf16", "Fused", true), T) > 0.01);
%! endfor
