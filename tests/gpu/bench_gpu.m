## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {muonlab bench} {@var{R} =} bench_gpu ()
## @deftypefnx {muonlab bench} {@var{R} =} bench_gpu (@var{device}, @var{shapes}, @var{reps}, @var{opt_shape})
## @deftypefnx {muonlab bench} {@var{R} =} bench_gpu (@dots{}, @var{parts})
## Timings of Newton-Schulz on the GPU, run by @code{make bench-gpu} (never by
## @code{make check}), all measured in one run on one device:
##
## @enumerate
## @item per shape, method (standard, gram) and precision (fp32, bf16, fp16, bf16 with
## @qcode{"Fused", true}: the scale-adds in the products' epilogues, labelled bf16f, and on
## stacks bf16 fused with @qcode{"Batched", true}: every product one strided-batched call
## for all pages, labelled bf16fb), keller's schedule, 5 steps, an N(0,1) single input made
## on the device:
## @table @asis
## @item device
## @code{muon_ns} on a device array (@code{muon_gpu}), the median over @var{reps} (default
## 10) calls after a warm-up of the device time each call reports (CUDA events around the
## call: @code{stats.device_ms}), and the rate, TFLOP/s = @code{ns_flops} (general
## products) x pages / that time;
## @item host
## @code{muon_ns} on the same data as a host array, in bf16 (the host side costs the same in
## every precision; wall time, mean of 2 after a warm-up: the pinned staging, the
## conversion on the device and the two streams included);
## @item floor
## the copy floor of the same bytes: a pinned host-to-device and a device-to-host copy (CUDA
## events), the median of 5 after a warm-up, and host / (device + floor), which the issue
## holds to <= 1.25;
## @item octave
## the same trip through Octave arrays: @code{gather (muon_gpu (G))}, wall time after a warm-up
## (the new result array, which a host-array call cannot avoid, included), and
## host / (device + octave);
## @end table
## then (1b) the bf16 standard host and octave times again in a child octave-cli whose
## malloc keeps freed memory (@code{gpu_kept_heap}, the README's setting for host arrays at
## speed: a new result reuses pages instead of faulting fresh ones in), and its
## host / (device + floor);
## @item the peers in the same run, on device tensors with CUDA events
## (tests/bench/bench_ns_torch.py @code{--device cuda}): Keller's NS as the peers write it
## (bf16), torch.optim.Muon's own NS, and Dao's gram-newton-schulz
## @code{StandardNewtonSchulz} / @code{GramNewtonSchulz} (pure torch, eager and
## torch.compile'd) when that package is importable; then the ratios: muonlab's
## device-array bf16 standard against Keller's torch bf16 (geomean over the first three
## shapes, target >= 1.2), muonlab's device Gram against Dao's compiled Gram at the wide
## shapes (target >= 1.0), each for the eager bf16, the fused bf16f and (stacks) bf16fb,
## and bf16f against torch.optim.Muon (whose addmm is the fused form);
## @item three @code{muon_step}s of an optimizer of 8 parameters of @var{opt_shape}
## (default 2048 x 5464) with the state on the device (@qcode{"Resident"}), once with host
## parameters and gradients and once with device ones, against the host path of the same
## optimizer (NS on the CPU), wall time (target >= 10x);
## @item three @code{zero_muon_step}s at one rank (@code{muon_comm ("nccl")} on CUDA, the
## simulated rank on the stand-in) of 8 parameters of @var{opt_shape}, bf16 NS on the
## device, for @code{zero12_allreduce} and @code{alltoall_owner}: host gradients (the
## momenta on the host, every buffer staged) against device gradients
## (@code{muon_zero_step_device}: nothing crosses the bus), wall time;
## @item per shape and method, bf16 fused (batched on stacks), the device time with
## @qcode{"SymBlocks"} 1, 2, 4 and 8 (the symmetric products as k x k blocks of their upper
## triangle) against the automatic choice, and the best of them relative to it: what the
## automatic rule should pick.
## @end enumerate
##
## Shapes (default): 4096 x 4096, 16 x 1024 x 4096, 32 x 2048 x 5464 and 16 pages of the
## largest expert weight of DeepSeek-V3 (@code{muon_model}: 2048 x 7168; 16 is one
## layer's 256 experts over 16 expert-parallel ranks).  @var{device} @qcode{"cuda"}
## (default) or @qcode{"cpu"}: the CPU stand-in device, at small shapes, to try the bench
## without a GPU (no peers, no targets).  Without a CUDA device, or with the CUDA back end
## not built, it prints one line saying so and returns @code{[]}.  @var{parts} (default all)
## picks sections by name: a cell of @qcode{"ns"} (1, and the host ratios of 3),
## @qcode{"peers"} (2, and the peer ratios of 3), @qcode{"optimizer"} (4),
## @qcode{"zero"} (5) and @qcode{"blocks"} (6); empty arguments take their defaults.
## @var{R} is a struct array with fields @code{shape}, @code{method}, @code{precision},
## @code{device_ms}, @code{host_ms}, @code{floor_ms}, @code{octave_ms}, @code{flops} and
## @code{tflops}.
## @end deftypefn

function R = bench_gpu (device, shapes, reps, opt_shape, parts)
  here = fileparts (mfilename ("fullpath"));
  root = fullfile (here, "..", "..");
  for d = {fullfile(root, "inst"), fullfile(root, "build", "mex")}
    if (isfolder (d{1}))
      addpath (d{1});
    endif
  endfor
  if (nargin < 1 || isempty (device))
    device = "cuda";
  endif
  if (nargin < 2 || isempty (shapes))
    shapes = {[4096 4096], [1024 4096 16], [2048 5464 32], [expert_shape() 16]};
  endif
  if (nargin < 3 || isempty (reps))
    reps = 10;
  endif
  if (nargin < 4 || isempty (opt_shape))
    opt_shape = [2048 5464];
  endif
  if (nargin < 5 || isempty (parts))
    parts = {"ns", "peers", "blocks", "optimizer", "zero"};
  endif
  want = @(name) any (strcmp (parts, name));
  R = [];
  if (nargin == 0 && gpu_skip ("bench-gpu"))
    return;
  endif
  cuda = strcmp (device, "cuda");
  if (cuda)
    if (! gpu_probe ("bench-gpu"))
      return;
    endif
    printf ("bench-gpu: %s\n", muon_info ().cuda);
  else
    printf ("bench-gpu: the CPU stand-in device (no GPU: times of the CPU code)\n");
  endif
  t_all = tic ();
  R = [];
  if (want ("ns"))
    R = ns_table (device, shapes, reps);
    heap_table (R, device, shapes);
  endif
  peer = struct ("name", {}, "shape", {}, "ms", {});
  if (cuda && want ("peers"))
    peer = peers (root, shapes, reps);
  endif
  if (! isempty (R))
    ratios (R, peer, shapes);
  endif
  if (want ("optimizer"))
    optimizer_bench (device, opt_shape);
  endif
  if (want ("zero"))
    zero_bench (device, opt_shape);
  endif
  if (want ("blocks"))
    blocks_table (device, shapes, reps);
  endif
  printf ("bench-gpu total %.0f s\n", toc (t_all));
endfunction

## 2048 x 7168: the largest expert weight of DeepSeek-V3 (gate / up projection)
function sz = expert_shape ()
  p = muon_model ("deepseek-v3").params;
  k = find (strcmp (p.kind, "expert"));
  [~, i] = max (p.rows(k) .* p.cols(k));
  sz = [p.rows(k(i)), p.cols(k(i))];
endfunction

function t = shape_text (sz)
  t = strjoin (arrayfun (@num2str, sz, "UniformOutput", false), "x");
endfunction

function R = ns_table (device, shapes, reps)
  printf ("\n(1) muon_ns, keller 5 steps, single N(0,1) input; device = median of %d device times (CUDA events)\n", reps);
  printf ("    of device-array calls; host = mean wall time of 2 host-array calls (bf16 rows); floor = pinned H2D + D2H;\n");
  printf ("    octave = muon_gpu (G) + gather, wall time: the same copies through Octave arrays (a new\n");
  printf ("    result array included)\n");
  printf ("%-16s %-8s %-6s %11s %9s %11s %10s %10s %10s %10s\n", "shape", "method", "prec",
          "device[ms]", "TFLOP/s", "host[ms]", "floor[ms]", "host/(d+f)", "octave[ms]",
          "host/(d+o)");
  precs = {"single", "fp32", {}; "bf16", "bf16", {}; "fp16", "fp16", {};
           "bf16", "bf16f", {"Fused", true}; "bf16", "bf16fb", {"Fused", true, "Batched", true}};
  R = [];
  for i = 1:numel (shapes)
    sz = shapes{i};
    pages = prod (sz(3:end));
    D = muon_gpu ("randn", sz, "Device", device, "Seed", 51);
    G = gather (D);
    floor_ms = copy_floor (device, numel (G) * 4);
    [~, oct_ms] = bench_gpu_host (G, device);
    F = ns_flops (sz(1), sz(2));
    for method = {"standard", "gram"}
      m = method{1};
      gram = strcmp (m, "gram") && sz(1) != sz(2);
      flops = merge (gram, F.gram, F.standard) * pages;
      for k = 1:rows (precs)
        if (strcmp (precs{k,2}, "bf16fb") && pages < 2)
          continue;                          # batched: stacks only
        endif
        a = [{"Method", m, "Precision", precs{k,1}}, precs{k,3}];
        muon_ns (D, a{:});                   # warm-up: buffers, handles, kernels
        t = zeros (reps, 1);
        for r = 1:reps
          [~, st] = muon_ns (D, a{:});
          t(r) = st.device_ms;
        endfor
        th = NaN;
        if (strcmp (precs{k,2}, "bf16"))     # the host side costs the same in any precision
          th = bench_gpu_host (G, device, a);
        endif
        e = struct ("shape", sz, "method", m, "precision", precs{k,2},
                    "device_ms", median (t), "host_ms", median (th), "floor_ms", floor_ms,
                    "octave_ms", oct_ms, "flops", flops, "tflops", flops / median (t) / 1e9);
        R = [R; e];
        printf ("%-16s %-8s %-6s %11.3f %9.1f %11.2f %10.2f %10.2f %10.2f %10.2f\n",
                shape_text (sz), merge (strcmp (m, "gram") && ! gram, "gram*", m),
                e.precision, e.device_ms, e.tflops, e.host_ms, floor_ms,
                e.host_ms / (e.device_ms + floor_ms), oct_ms,
                e.host_ms / (e.device_ms + oct_ms));  # NaN: host timed in bf16 only
        fflush (stdout);
      endfor
    endfor
    clear D G
  endfor
  printf ("* square: gram falls back to standard (GramMinAspect 1); the standard FLOPs are counted\n");
endfunction

## (6) "SymBlocks": the 16-bit symmetric products as k x k blocks, per shape, bf16 fused
## (batched on stacks: the form the targets are measured in), standard and gram, the device
## time of k = 1, 2, 4 and 8 against the automatic choice: what the rule should pick.
function blocks_table (device, shapes, reps)
  printf (["\n(6) \"SymBlocks\" k: bf16 fused (batched on stacks), keller 5 steps; ", ...
           "device ms, median of %d\n"], reps);
  printf ("%-16s %-8s %10s %10s %10s %10s %10s  %s\n", "shape", "method", "auto[ms]", "k=1",
          "k=2", "k=4", "k=8", "best / auto");
  ks = [0 1 2 4 8];
  for i = 1:numel (shapes)
    sz = shapes{i};
    D = muon_gpu ("randn", sz, "Device", device, "Seed", 52);
    for method = {"standard", "gram"}
      if (strcmp (method{1}, "gram") && sz(1) == sz(2))
        continue;                              # square: gram falls back to standard
      endif
      t = zeros (size (ks));
      for j = 1:numel (ks)
        a = {"Method", method{1}, "Precision", "bf16", "Fused", true, "SymBlocks", ks(j)};
        if (prod (sz(3:end)) > 1)
          a = [a {"Batched", true}];
        endif
        muon_ns (D, a{:});
        tr = zeros (reps, 1);
        for r = 1:reps
          [~, st] = muon_ns (D, a{:});
          tr(r) = st.device_ms;
        endfor
        t(j) = median (tr);
      endfor
      printf ("%-16s %-8s %10.3f %10.3f %10.3f %10.3f %10.3f  %.2f (k=%d)\n", shape_text (sz),
              method{1}, t, min (t(2:end)) / t(1), ks(1 + find (t(2:end) == min (t(2:end)), 1)));
      fflush (stdout);
    endfor
    clear D
  endfor
endfunction

## (1b) bf16 standard host-array calls and the trip through Octave's arrays again, in a
## child octave-cli whose malloc keeps freed memory (gpu_kept_heap: the README's setting),
## against this process's times in R: what glibc's page faults cost a host-array call.
function heap_table (R, device, shapes)
  specs = strjoin (cellfun (@mat2str, shapes, "UniformOutput", false), ", ");
  code = sprintf (["for s = {%s}, G = gather (muon_gpu ('randn', s{1}, 'Device', '%s', " ...
                   "'Seed', 51)); [h, o] = bench_gpu_host (G, '%s', {'Method', 'standard', " ...
                   "'Precision', 'bf16'}); printf ('kept %%s %%.3f %%.3f\\n', " ...
                   "mat2str (s{1}), h, o); end"], specs, device, device);
  printf ("\n(1b) bf16 standard host-array calls, glibc's default malloc (above) and one keeping\n");
  printf ("     freed memory (a child octave-cli: %s), wall ms\n", gpu_kept_heap ());
  [rc, txt, logfile] = gpu_child (gpu_kept_heap (), code, "bench-gpu-heap");
  unlink (logfile);
  printf ("%-16s %10s %10s %12s %12s %10s %12s\n", "shape", "host", "host kept", "octave",
          "octave kept", "floor", "kept/(d+f)");
  for i = 1:numel (shapes)
    sz = shapes{i};
    tok = regexp (txt, ['kept ' regexptranslate("escape", mat2str (sz)) ' (\S+) (\S+)'],
                  "tokens", "once");
    k = find (arrayfun (@(e) isequal (e.shape, sz), R(:)) & strcmp ({R.method}(:), "standard")
              & strcmp ({R.precision}(:), "bf16"), 1);
    if (isempty (tok) || isempty (k))
      printf ("%-16s (not measured: the child exited %d)\n", shape_text (sz), rc);
      continue;
    endif
    e = R(k);
    kept = str2double (tok);
    printf ("%-16s %10.2f %10.2f %12.2f %12.2f %10.2f %12.2f\n", shape_text (sz), e.host_ms,
            kept(1), e.octave_ms, kept(2), e.floor_ms, kept(1) / (e.device_ms + e.floor_ms));
  endfor
endfunction

## The peers through tests/bench/bench_ns_torch.py --device cuda, parsed.
function peer = peers (root, shapes, reps)
  peer = struct ("name", {}, "shape", {}, "ms", {});
  py = "python3";
  specs = cellfun (@(s) sprintf ("%s:%d", shape_text (s), reps), shapes, "UniformOutput", false);
  cmd = sprintf ("%s %s --device cuda %s 2>&1", py,
                 fullfile (root, "tests", "bench", "bench_ns_torch.py"), strjoin (specs, " "));
  printf ("\n(2) the peers on device tensors, CUDA events, median of %d: %s\n", max (reps, 10), cmd);
  [rc, out] = system (cmd);
  if (rc != 0)
    printf ("    skipped: bench_ns_torch.py exited %d (2: no torch, 3: no CUDA device)\n%s", rc, out);
    return;
  endif
  for line = strsplit (strtrim (out), "\n")
    w = strsplit (line{1}, " ");
    printf ("    %s\n", line{1});
    if (numel (w) == 3 && ! isnan (str2double (w{3})))
      d = str2double (strsplit (w{2}, "x"));
      peer(end+1) = struct ("name", w{1}, "shape", d(d > 1 | (1:numel (d)) <= 2), "ms",
                            str2double (w{3}));
    endif
  endfor
endfunction

function ms = find_ms (R, sz, method, prec)
  ms = NaN;
  for e = R(:).'
    if (isequal (e.shape, sz) && strcmp (e.method, method) && strcmp (e.precision, prec))
      ms = e.device_ms;
    endif
  endfor
endfunction

## pinned H2D + D2H of BYTES (ms): the median of 5 after a warm-up, as the device times
function ms = copy_floor (device, bytes)
  __muon_gpu__ ("copy_time", device, bytes);
  t = zeros (1, 5);
  for k = 1:5
    [h2d, d2h] = __muon_gpu__ ("copy_time", device, bytes);
    t(k) = h2d + d2h;
  endfor
  ms = median (t);
endfunction

function ms = peer_ms (peer, name, sz)
  ms = NaN;
  for p = peer(:).'
    if (strcmp (p.name, name) && isequal (p.shape, sz))
      ms = p.ms;
    endif
  endfor
endfunction

function ratios (R, peer, shapes)
  printf ("\n(3) ratios, one run, one device (host-array lines: < 1 is better; peer lines: > 1, muonlab faster)\n");
  k = ! isnan ([R.host_ms]);
  host = [R(k).host_ms] ./ ([R(k).device_ms] + [R(k).floor_ms]);
  printf ("    host-array call / (device time + copy floor): max %.2f, median %.2f (target <= 1.25)\n",
          max (host), median (host));
  host = [R(k).host_ms] ./ ([R(k).device_ms] + [R(k).octave_ms]);
  printf ("    host-array call / (device time + the same trip through Octave arrays): max %.2f, median %.2f\n",
          max (host), median (host));
  if (isempty (peer))
    printf ("    no peers timed: the peer ratios are not measured\n");
    return;
  endif
  n = min (3, numel (shapes));
  for prec = {"bf16", "bf16f", "bf16fb"}
    s = NaN (1, n);
    for i = 1:n
      ms = find_ms (R, shapes{i}, "standard", prec{1});
      if (isnan (ms))                        # bf16fb of a single matrix: bf16f's time
        ms = find_ms (R, shapes{i}, "standard", "bf16f");
      endif
      s(i) = peer_ms (peer, "keller", shapes{i}) / ms;
      printf ("    %-16s Keller torch bf16 / muonlab device %-6s standard: %.2f\n",
              shape_text (shapes{i}), prec{1}, s(i));
    endfor
    printf ("    geomean over the %d shapes (%s): %.2f (target >= 1.2)\n", n, prec{1},
            exp (mean (log (s))));
  endfor
  for i = 1:numel (shapes)
    t = peer_ms (peer, "torch_muon", shapes{i}) / find_ms (R, shapes{i}, "standard", "bf16f");
    printf ("    %-16s torch.optim.Muon / muonlab device bf16f standard: %.2f\n",
            shape_text (shapes{i}), t);
  endfor
  for i = 1:numel (shapes)
    sz = shapes{i};
    if (sz(1) == sz(2))
      continue;
    endif
    q = peer_ms (peer, "dao_gram_compiled", sz);
    for prec = {"bf16", "bf16f", "bf16fb"}
      if (strcmp (prec{1}, "bf16fb") && prod (sz(3:end)) < 2)
        continue;                            # batched: stacks only
      endif
      printf ("    %-16s Dao compiled Gram / muonlab device Gram (%s): %s (target >= 1.0)\n",
              shape_text (sz), prec{1}, num2str (q / find_ms (R, sz, "gram", prec{1}), 3));
    endfor
  endfor
endfunction

## Three steps of 8 parameters: the state on the device with host parameters, and with
## device parameters and gradients (made on the device beforehand, as a training loop on
## the GPU hands them over), against the host path.
function optimizer_bench (device, sz)
  printf ("\n(4) muon_optimizer, 8 parameters of %s, 3 steps on %s vs the host path (NS on the CPU)\n",
          shape_text (sz), device);
  P = struct ();
  for k = 1:8
    P.(sprintf ("W%d", k)) = single (randn (sz) / 64);
  endfor
  grads = cell (1, 3);
  for s = 1:3
    for k = 1:8
      grads{s}.(sprintf ("W%d", k)) = single (randn (sz));
    endfor
  endfor
  runs = {{"Device", device, "Resident", true}, {"Device", device, "Resident", true}, ...
          {"Device", "cpu", "Resident", false}};
  t = zeros (1, 3);
  for r = 1:3
    [Q, G] = deal (P, grads);
    if (r == 2)                                   # device parameters and gradients
      Q = on_device (P, device);
      G = cellfun (@(g) on_device (g, device), grads, "UniformOutput", false);
    endif
    opt = muon_optimizer (Q, "LR", 0.02, runs{r}{:});
    t0 = tic ();
    for s = 1:3
      [Q, opt] = muon_step (opt, Q, G{s});
    endfor
    t(r) = toc (t0);                  # every step ends with its norms: on the host
    clear opt Q G
  endfor
  printf ("    host parameters, state on %s  %8.2f s  %6.1fx\n", device, t(1), t(3) / t(1));
  printf ("    device parameters and grads    %8.2f s  %6.1fx (target >= 10x on a GPU)\n",
          t(2), t(3) / t(2));
  printf ("    host path                      %8.2f s\n", t(3));
endfunction

function zero_bench (device, sz)
  printf ("\n(5) zero_muon_step at one rank, 8 parameters of %s, 3 steps, bf16 NS on %s\n",
          shape_text (sz), device);
  L = zero_layout (repmat ({sz}, 1, 8), 1);
  comm = "sim";
  if (strcmp (device, "cuda"))
    comm = muon_comm ("nccl");
  endif
  g = arrayfun (@(k) randn (sz), 1:8, "UniformOutput", false);
  gd = cellfun (@(x) muon_gpu (x, "Device", device, "Class", "double"), g,
                "UniformOutput", false);
  o = {"Comm", comm, "Reference", false, "Precision", "bf16", "Device", device};
  for v = {"zero12_allreduce", "alltoall_owner"}
    t = zeros (1, 2);
    for r = 1:2
      G = merge (r == 1, {g}, {gd}){1};
      zero_muon_step (L, G, [], "Variant", v{1}, o{:});      # warm-up
      st = [];
      t0 = tic ();
      for s = 1:3
        [~, st] = zero_muon_step (L, G, st, "Variant", v{1}, o{:});
      endfor
      t(r) = toc (t0);
      clear st
    endfor
    printf ("    %-18s host gradients %8.2f s   device gradients %8.2f s  %6.1fx\n", v{1},
            t(1), t(2), t(1) / t(2));
  endfor
endfunction

function D = on_device (S, device)
  D = S;
  for f = fieldnames (S).'
    D.(f{1}) = muon_gpu (S.(f{1}), "Device", device);
  endfor
endfunction

%!test
%! ## the whole bench on the CPU stand-in at small shapes: rows, fields, sane values
%! out = evalc ('R = bench_gpu ("cpu", {[16 48], [8 32 2]}, 2, [16 24]);');
%! assert (! isempty (strfind (out, "bench-gpu: the CPU stand-in device")));
%! assert (! isempty (strfind (out, "8x32x2           gram     fp16")));
%! assert (! isempty (strfind (out, "(4) muon_optimizer, 8 parameters of 16x24")));
%! assert (size (R), [18 1]);
%! assert ({R(1:4).precision}, {"fp32", "bf16", "fp16", "bf16f"});
%! assert ({R(9:13).precision}, {"fp32", "bf16", "fp16", "bf16f", "bf16fb"});
%! assert (R(end).flops, 2 * ns_flops (8, 32).gram);
%! assert (R(5).flops, ns_flops (16, 48).gram);
%! assert (all ([R.device_ms] > 0 & [R.floor_ms] >= 0 & [R.octave_ms] > 0));
%! assert (isnan ([R.host_ms]), ! strcmp ({R.precision}, "bf16"));
%! assert (all ([R([2 6 10 15]).host_ms] > 0));
%! assert (muon_gpu ("info").arrays, 0);
%! ## (1b): both shapes timed again in the child that keeps freed memory
%! assert (! isempty (strfind (out, "(1b) bf16 standard host-array calls")));
%! assert (numel (regexp (out, '^(16x48|8x32x2)( +[0-9.]+){6}$', "lineanchors")), 2);

%!test
%! ## the device ZeRO step against the host one, on the stand-in
%! out = evalc ('bench_gpu ("cpu", {}, 2, [16 24], {"zero"});');
%! assert (! isempty (strfind (out, "(5) zero_muon_step at one rank, 8 parameters of 16x24")));
%! assert (! isempty (strfind (out, "alltoall_owner     host gradients")));

%!test
%! ## parts: the SymBlocks table alone (on the stand-in the option changes nothing)
%! out = evalc ('R = bench_gpu ("cpu", {[16 48], [8 32 2]}, 2, [16 24], {"blocks"});');
%! assert (isempty (R));
%! assert (! isempty (strfind (out, "(6) \"SymBlocks\" k")));
%! assert (numel (regexp (out, '\n(16x48|8x32x2) +(standard|gram) ')), 4);

%!test
%! ## parts: the optimizer alone
%! out = evalc ('R = bench_gpu ("cpu", {[16 48]}, 2, [16 24], {"optimizer"});');
%! assert (isempty (R));
%! assert (isempty (strfind (out, "(1) muon_ns")));
%! assert (! isempty (strfind (out, "(4) muon_optimizer")));
