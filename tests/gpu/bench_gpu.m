## -*- texinfo -*-
## @deftypefn  {muonlab bench} {@var{R} =} bench_gpu ()
## @deftypefnx {muonlab bench} {@var{R} =} bench_gpu (@var{dev}, @var{shapes}, @var{reps})
## Timings of CUDA Newton-Schulz, run by @code{make bench-gpu} (never by @code{make check}).
##
## For each shape (default 4096 x 4096 and a stack of 16 pages 1024 x 4096), method
## (standard, gram) and precision (fp32, bf16, fp16): one warm-up call, then @var{reps}
## (default 5) timed calls of @code{muon_ns} on a single N(0,1) input with keller's
## schedule (5 steps); prints a table of the median and the fastest wall time and the
## rate, TFLOP/s = @code{ns_flops} (general products, 2pqr each, times the pages) / the
## median.  The time is the whole call from host arrays, so it includes the copies to the
## device and back.  At a square shape Gram falls back to standard (GramMinAspect 1), and
## its row counts the standard FLOPs.
##
## Without a CUDA device, or with the CUDA back end not built, it prints one line saying so
## (muon_ns's message and error identifier) and returns @code{[]}; any other failure of the
## back end is an error.  @var{dev} (default
## @code{@{"Device", "cuda"@}}) selects what is timed; e.g. @code{bench_gpu (@{"Device",
## "cpu"@}, @{[128 512], [64 256 4]@}, 2)} runs the same table on the CPU at small shapes.
## @var{R} is a struct array with fields @code{shape}, @code{method}, @code{precision},
## @code{median}, @code{min}, @code{flops} and @code{tflops}.
## @end deftypefn

function R = bench_gpu (dev, shapes, reps)
  here = fileparts (mfilename ("fullpath"));
  for d = {fullfile(here, "..", "..", "inst"), fullfile(here, "..", "..", "build", "mex")}
    if (isfolder (d{1}))
      addpath (d{1});
    endif
  endfor
  if (nargin < 1 || isempty (dev))
    dev = {"Device", "cuda"};
  endif
  if (nargin < 2 || isempty (shapes))
    shapes = {[4096 4096], [1024 4096 16]};
  endif
  if (nargin < 3 || isempty (reps))
    reps = 5;
  endif
  R = [];
  on_cuda = any (strcmpi (dev, "cuda"));
  if (on_cuda)
    [ok, skip, why] = gpu_probe ();
    if (! ok && skip)
      printf ("bench-gpu: skipped, %s\n", why);
      return;
    elseif (! ok)
      error ("bench-gpu: %s", why);
    endif
    where = muon_info ().cuda;
  else
    where = sprintf ("not CUDA: %s", strjoin (dev, " "));
  endif
  printf ("bench-gpu: %s\n", where);
  printf ("muon_ns wall time from host arrays (copies in and out included), keller 5 steps, single input;\n");
  printf ("median and fastest of %d calls after a warm-up; TFLOP/s = ns_flops (general products) x pages / median\n\n", reps);
  printf ("%-14s %-9s %-5s %10s %10s %9s %10s\n", "shape", "method", "prec", "median[s]",
          "min[s]", "TFLOP/s", "TFLOP/call");
  precs = {"single", "fp32"; "bf16", "bf16"; "fp16", "fp16"};
  square_gram = false;
  t_all = tic ();
  for i = 1:numel (shapes)
    sz = shapes{i};
    pages = prod (sz(3:end));
    randn ("state", 51);
    G = randn (sz, "single");
    for method = {"standard", "gram"}
      m = method{1};
      F = ns_flops (sz(1), sz(2));
      if (strcmp (m, "gram") && sz(1) != sz(2))
        flops = F.gram * pages;
        label = m;
      else
        flops = F.standard * pages;
        label = merge (strcmp (m, "gram"), "gram*", m);
        square_gram = square_gram || strcmp (m, "gram");
      endif
      for k = 1:rows (precs)
        a = {dev{:}, "Method", m, "Precision", precs{k,1}};
        muon_ns (G, a{:});                 # warm-up: buffers, handles, kernels
        t = zeros (reps, 1);
        for r = 1:reps
          t0 = tic ();
          muon_ns (G, a{:});
          t(r) = toc (t0);
        endfor
        e.shape = sz;
        e.method = m;
        e.precision = precs{k,2};
        e.median = median (t);
        e.min = min (t);
        e.flops = flops;
        e.tflops = flops / e.median / 1e12;
        R = [R; e];
        printf ("%-14s %-9s %-5s %10.4f %10.4f %9.2f %10.3f\n",
                strjoin (arrayfun (@num2str, sz, "UniformOutput", false), "x"), label,
                e.precision, e.median, e.min, e.tflops, flops / 1e12);
        fflush (stdout);
      endfor
    endfor
  endfor
  if (square_gram)
    printf ("* square: gram falls back to standard (GramMinAspect 1); the standard FLOPs are counted\n");
  endif
  printf ("bench-gpu total %.0f s\n", toc (t_all));
endfunction

%!test
%! ## the table on the CPU at small shapes: one row per shape x method x precision
%! out = evalc ('R = bench_gpu ({"Device", "cpu"}, {[16 48], [8 32 2]}, 1);');
%! assert (! isempty (strfind (out, "bench-gpu: not CUDA: Device cpu")));
%! assert (! isempty (strfind (out, "8x32x2         gram      fp16")));
%! assert (size (R), [12 1]);
%! assert ({R(1:3).precision}, {"fp32", "bf16", "fp16"});
%! F = ns_flops (8, 32);
%! assert (R(end).flops, 2 * F.gram);
%! assert (R(4).flops, ns_flops (16, 48).gram);
%! assert (all ([R.tflops] > 0));
