## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{r} =} gpu_parity (@var{G}, @var{dev}, @var{ref}, @var{prec}, @var{method}, @var{sched})
## @deftypefnx {} {@var{hdr} =} gpu_parity ()
## The comparison of the GPU layer: Newton-Schulz of @var{G} (M x N or M x N x E) on the
## device under test against the CPU reference and against the fp64 oracle.
##
## @var{dev} and @var{ref} are the option lists that select the two sides (from
## @code{gpu_target}: @code{@{"Device", "cuda"@}} and @code{@{"Device", "cpu", "Gemm",
## "openblas"@}}; any @code{muon_ns} options), so the same comparison runs on a machine
## without a GPU with @var{dev} naming the CPU.  @var{prec} is the compute precision
## (@qcode{"double"}, @qcode{"single"}, @qcode{"bf16"}, @qcode{"fp16"}), @var{method}
## @qcode{"standard"} or @qcode{"gram"}, @var{sched} a schedule name (its default steps).
## The oracle is @code{gpu_oracle (G, sched)}: the fp64 SVD polar factor with the singular
## values mapped by the schedule's polynomial.
##
## Measured, relative Frobenius norms over all pages (norm (X - Y, "fro") / norm (Y, "fro")):
## @table @code
## @item d
## device against CPU (parity);
## @item e_cpu, e_dev
## CPU and device against the oracle (each side's precision error).
## @end table
## and checked (the tolerances of test_gpu_ns, whose help justifies them):
## @example
## precision   d (parity)         e_dev (oracle)              DESIGN.md 6 bound on e_dev
## double      <= 1e-12           <= 1e-12
## single      <= 3e-5            <= 3e-5
## bf16        <= 0.9 e_cpu       <= 1.25 e_cpu and <= 0.1    keller standard, aspect >= 2: 0.05
## fp16        <= 0.9 e_cpu       <= 1.25 e_cpu and <= 0.02   keller gram, aspect >= 2: 0.008
## @end example
## (at least 8 eps ("single"), about 1e-6, for a single @var{G}, whose result is rounded to
## single), and that the device result has the class and size of the CPU's and is finite.
##
## @var{r} has the fields @code{prec}, @code{method}, @code{sched}, @code{shape},
## @code{gram} (whether the Gram iteration runs, i.e. the aspect exceeds 1),
## @code{d}, @code{e_cpu}, @code{e_dev}, @code{tol_d}, @code{tol_e}, @code{bound}
## (the DESIGN.md 6 bound, or Inf where it states none), @code{ok}, @code{why} (what failed,
## empty when ok) and @code{line} (one printed row under the header @code{gpu_parity ()}).
## @end deftypefn

function r = gpu_parity (G, dev, ref, prec, method, sched)
  if (nargin == 0)
    r = sprintf ("%-6s %-8s %-13s %-10s %10s %9s %9s %9s %9s %7s  %s", "prec", "method",
                 "schedule", "shape", "d(dev,cpu)", "tol", "e_cpu", "e_dev", "tol", "bound",
                 "result");
    return;
  endif
  if (nargin != 6)
    print_usage ();
  endif
  precs = {"double", "single", "bf16", "fp16"};
  if (! (ischar (prec) && any (strcmp (prec, precs))))
    error ("gpu_parity: PREC must be 'double', 'single', 'bf16' or 'fp16'.");
  endif
  if (! (iscell (dev) && iscell (ref)))
    error ("gpu_parity: DEV and REF must be cells of muon_ns options.");
  endif
  opts = {"Precision", prec, "Method", method, "Coefficients", sched};
  Xd = muon_ns (G, dev{:}, opts{:});
  Xc = muon_ns (G, ref{:}, opts{:});
  Xo = gpu_oracle (G, sched);

  r.prec = prec;
  r.method = method;
  r.sched = sched;
  r.shape = size (G);
  r.gram = strcmp (method, "gram") && max (r.shape(1:2)) > min (r.shape(1:2));
  r.d = relerr (Xd, Xc);
  r.e_cpu = relerr (Xc, Xo);
  r.e_dev = relerr (Xd, Xo);
  aspect = max (r.shape(1:2)) / min (r.shape(1:2));
  r.bound = Inf;
  switch (prec)
    case "double"
      r.tol_d = 1e-12;
      r.tol_e = 1e-12;
    case "single"
      r.tol_d = 3e-5;
      r.tol_e = 3e-5;
    case "bf16"
      r.tol_d = 0.9 * r.e_cpu;
      r.tol_e = min (1.25 * r.e_cpu, 0.1);
      if (strcmp (sched, "keller") && strcmp (method, "standard") && aspect >= 2)
        r.bound = 0.05;
      endif
    case "fp16"
      r.tol_d = 0.9 * r.e_cpu;
      r.tol_e = min (1.25 * r.e_cpu, 0.02);
      if (strcmp (sched, "keller") && r.gram && aspect >= 2)
        r.bound = 0.008;
      endif
  endswitch

  if (isa (G, "single"))               # the result is stored in single
    r.tol_d = max (r.tol_d, 8 * eps ("single"));
    r.tol_e = max (r.tol_e, 8 * eps ("single"));
  endif

  why = {};
  if (! (strcmp (class (Xd), class (Xc)) && isequal (size (Xd), size (Xc))))
    why{end+1} = sprintf ("device result is %s %s, the CPU's %s %s", class (Xd),
                          mat2str (size (Xd)), class (Xc), mat2str (size (Xc)));
  endif
  if (! all (isfinite (Xd(:))))
    why{end+1} = "device result not finite";
  endif
  if (! (r.d <= r.tol_d))
    why{end+1} = sprintf ("d %.3g > %.3g", r.d, r.tol_d);
  endif
  if (! (r.e_dev <= r.tol_e))
    why{end+1} = sprintf ("e_dev %.3g > %.3g", r.e_dev, r.tol_e);
  endif
  if (! (r.e_dev <= r.bound))
    why{end+1} = sprintf ("e_dev %.3g > DESIGN.md 6 bound %.3g", r.e_dev, r.bound);
  endif
  r.ok = isempty (why);
  r.why = strjoin (why, "; ");
  shp = strjoin (arrayfun (@num2str, r.shape, "UniformOutput", false), "x");
  if (r.ok)
    res = "ok";
  else
    res = ["FAIL: " r.why];
  endif
  if (strcmp (method, "gram") && ! r.gram)
    res = [res " (square: gram falls back to standard)"];
  endif
  r.line = sprintf ("%-6s %-8s %-13s %-10s %10.2e %9.2e %9.2e %9.2e %9.2e %7s  %s", prec,
                    method, sched, shp, r.d, r.tol_d, r.e_cpu, r.e_dev, r.tol_e,
                    bound_str (r.bound), res);
endfunction

function e = relerr (X, Y)
  e = norm (double (X(:)) - double (Y(:))) / norm (double (Y(:)));
endfunction

function s = bound_str (b)
  if (isinf (b))
    s = "-";
  else
    s = sprintf ("%.3g", b);
  endif
endfunction

%!test
%! ## the comparison itself: CPU against CPU is exact, and the row says so
%! randn ("state", 3);
%! G = randn (16, 40);
%! cpu = {"Device", "cpu", "Gemm", "openblas"};
%! r = gpu_parity (G, cpu, cpu, "bf16", "standard", "keller");
%! assert ({r.ok, r.d, r.gram, r.bound, r.shape}, {true, 0, false, 0.05, [16 40]});
%! assert (r.e_cpu, r.e_dev);
%! assert (r.e_cpu > 1e-3 && r.e_cpu < 0.1);
%! assert (r.tol_d, 0.9 * r.e_cpu);
%! assert (strncmp (r.line, "bf16   standard keller        16x40", 35));
%! r = gpu_parity (single (G), cpu, cpu, "fp16", "gram", "polar_express");
%! assert ({r.ok, r.gram, r.bound}, {true, true, Inf});
%! assert (strncmp (gpu_parity (), "prec   method   schedule", 24));

%!test
%! ## a wrong device result is caught: another schedule on the "device" side
%! randn ("state", 4);
%! G = randn (16, 40);
%! r = gpu_parity (G, {"Steps", 4}, {}, "single", "standard", "keller");
%! assert (! r.ok);
%! assert (strncmp (r.why, "d ", 2));
%! assert (! isempty (strfind (r.line, "FAIL: d ")));

%!error <Invalid call> gpu_parity (1, 2)
%!error <gpu_parity: PREC must be 'double', 'single', 'bf16' or 'fp16'.> gpu_parity (ones (4), {}, {}, "fp8", "standard", "keller")
%!error <gpu_parity: DEV and REF must be cells of muon_ns options.> gpu_parity (ones (4), "cuda", {}, "double", "standard", "keller")
