## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{T} =} gpu_profile ()
## @deftypefnx {} {@var{T} =} gpu_profile (@var{nsys}, @var{device}, @var{cases}, @var{reps})
## Where the device time of a @code{muon_ns} call goes, run by @code{make profile-gpu}
## (never by @code{make check} or @code{make check-gpu}): each case runs in a child
## octave-cli under Nsight Systems (@code{nsys profile --trace=cuda}, each kernel of a CUDA
## graph traced on its own: @code{gpu_profile_workload}, a warm-up and @var{reps} timed
## calls, default 5), and @code{nsys stats} sums its kernels and memory operations.  Per
## case it prints, per call:
## the device time the calls report (CUDA events), the GPU's busy time (the kernels and
## memory operations summed, every stream together, so lanes that overlap can exceed the
## device time), split into cuBLAS's kernels, muonlab's own kernels (the elementwise passes,
## the mirror, the norms), the copies and memsets and the rest, the launches, and the
## heaviest entries by name.  A busy time well below the device time means the GPU waits
## for the host (launches, synchronization).
##
## The default cases are what @code{make bench-gpu} measures against the peers, bf16 with
## Keller's schedule: 4096 x 4096 eager and fused, and the stacks 16 x 1024 x 4096 and
## 32 x 2048 x 5464 eager, fused and batched (@qcode{"Fused", true, "Batched", true}, bf16fb),
## standard and gram.  @var{cases} is a cell of rows @{label, shape, options@}.
##
## @var{T} is a struct array with fields @code{label}, @code{flops} (the products' work of
## one call, @code{ns_flops}'s general-product count), @code{device_ms}, @code{busy_ms},
## @code{blas_ms}, @code{own_ms}, @code{copy_ms}, @code{other_ms}, @code{launches} (all per
## call) and @code{top} (struct array: @code{name}, @code{kind}, @code{ms} and @code{count}
## per call); a case whose run or report failed has NaN times and says why.
##
## @var{nsys} is the Nsight Systems binary (default or empty: @code{gpu_tool ("nsys")}).
## Without a CUDA device, with the back end not built, or without nsys it prints one line
## saying so and returns @code{[]}.  @var{device} @qcode{"cpu"} runs the workloads on the CPU
## stand-in (no probe): the harness's own test, with a stand-in for nsys.
## @end deftypefn

function T = gpu_profile (nsys, device, cases, reps)
  here = fileparts (mfilename ("fullpath"));
  addpath (fullfile (here, "..", "..", "inst"), fullfile (here, "..", "..", "build", "mex"),
           here);
  T = [];
  if (nargin == 0 && gpu_skip ("profile-gpu"))
    return;
  endif
  if (nargin < 2 || isempty (device))
    device = "cuda";
  endif
  if (nargin < 3 || isempty (cases))
    cases = default_cases ();
  endif
  if (nargin < 4 || isempty (reps))
    reps = 5;
  endif
  if (! strcmp (device, "cpu") && ! gpu_probe ("profile-gpu"))
    return;
  endif
  if (nargin < 1 || isempty (nsys))
    nsys = gpu_tool ("nsys");
  endif
  if (isempty (nsys))
    printf ("profile-gpu: skipped, nsys (Nsight Systems) not found (%s)\n",
            "PATH, $CUDA_HOME, /usr/local/cuda*, /opt/nvidia/nsight-systems");
    return;
  endif
  for i = 1:rows (cases)
    T = [T; profile_case(nsys, device, cases(i,:), reps)];
  endfor
  printf ("\nprofile-gpu: per call, %d calls a case (one of them the warm-up)\n", reps + 1);
  printf ("(TFLOP/s: ns_flops's general-product count over the cuBLAS time, so blocks of a\n");
  printf ("symmetric product raise it above the rate the kernels run at)\n");
  printf ("%-28s %10s %9s %9s %9s %9s %9s %9s %9s\n", "case", "device[ms]", "busy[ms]",
          "cuBLAS", "TFLOP/s", "muonlab", "copies", "other", "launches");
  for e = T'
    printf ("%-28s %10.3f %9.3f %9.3f %9.1f %9.3f %9.3f %9.3f %9.1f\n", e.label,
            e.device_ms, e.busy_ms, e.blas_ms, e.flops / e.blas_ms / 1e9, e.own_ms, e.copy_ms,
            e.other_ms, e.launches);
  endfor
endfunction

function c = default_cases ()
  b = {"Precision", "bf16"};
  f = [b, {"Fused", true}];
  fb = [f, {"Batched", true}];
  g = {"Method", "gram"};
  c = {"bf16", [4096 4096], b; "bf16f", [4096 4096], f;
       "bf16", [1024 4096 16], b; "bf16f", [1024 4096 16], f; "bf16fb", [1024 4096 16], fb;
       "gram bf16", [1024 4096 16], [b g]; "gram bf16fb", [1024 4096 16], [fb g];
       "bf16", [2048 5464 32], b; "bf16fb", [2048 5464 32], fb;
       "gram bf16fb", [2048 5464 32], [fb g]};
endfunction

## One case: the workload under nsys profile, then nsys stats' two summaries.
function e = profile_case (nsys, device, c, reps)
  label = sprintf ("%s %s", strjoin (arrayfun (@num2str, c{2}, "UniformOutput", false), "x"),
                   c{1});
  ## the products' work of one call, as bench-gpu counts it (default steps and restarts)
  sz = c{2};
  F = ns_flops (sz(1), sz(2));
  gram = any (strcmp (c{3}, "gram")) && sz(1) != sz(2);
  flops = merge (gram, F.gram, F.standard) * prod (sz(3:end));
  e = struct ("label", label, "flops", flops, "device_ms", NaN, "busy_ms", NaN, "blas_ms", NaN,
              "own_ms", NaN, "copy_ms", NaN, "other_ms", NaN, "launches", NaN,
              "top", struct ("name", {}, "kind", {}, "ms", {}, "count", {}));
  base = [tempname() "-profile"];
  ## every kernel of a CUDA graph (a lane replays its pages' iteration as one) on its own
  prefix = sprintf (["'%s' profile --trace=cuda --cuda-graph-trace=node --sample=none ", ...
                     "--cpuctxsw=none --force-overwrite=true --output='%s'"], nsys, base);
  code = sprintf ("gpu_profile_workload (%s, %d, '%s', %s);", mat2str (c{2}), reps, device,
                  cell_code (c{3}));
  printf ("\n--- %s\n", label);
  [rc, txt, logfile] = gpu_child (prefix, code, "profile-gpu");
  t = regexp (txt, 'profile workload: calls (\d+) device_ms (\S+)', "tokens");
  if (rc != 0 || isempty (t) || isempty (strfind (txt, "profile workload: done")))
    printf ("%s\nprofile-gpu: %s: the workload failed (exit status %d, log %s)\n",
            txt(max (1, end - 2000):end), label, rc, logfile);
    cellfun (@unlink, glob ([base ".*"]));
    return;
  endif
  calls = str2double (t{1}{1});
  e.device_ms = str2double (t{1}{2});
  [K, M, why] = summaries (nsys, base);
  if (! isempty (why))
    printf ("profile-gpu: %s: %s\n", label, why);
    return;
  endif
  kinds = [cellfun(@kernel_kind, K.name, "UniformOutput", false);
           repmat({"copies"}, numel (M.name), 1)];
  names = [cellfun(@short_name, K.name, "UniformOutput", false);
           cellfun(@memop_name, M.name, "UniformOutput", false)];
  ms = [K.total_ns; M.total_ns] / 1e6 / calls;
  count = [K.count; M.count] / calls;
  e.busy_ms = sum (ms);
  e.blas_ms = sum (ms(strcmp (kinds, "cuBLAS")));
  e.own_ms = sum (ms(strcmp (kinds, "muonlab")));
  e.copy_ms = sum (ms(strcmp (kinds, "copies")));
  e.other_ms = sum (ms(strcmp (kinds, "other")));
  e.launches = sum (count(! strcmp (kinds, "copies")));
  ## entries of one short name (the instances of a template, say) together, heaviest first
  [u, ~, j] = unique (strcat (kinds, "|", names));
  ums = accumarray (j, ms);
  ucount = accumarray (j, count);
  [~, order] = sort (ums, "descend");
  for k = order(1:min (8, end))'
    parts = strsplit (u{k}, "|");
    e.top(end+1) = struct ("name", parts{2}, "kind", parts{1}, "ms", ums(k),
                           "count", ucount(k));
  endfor
  printf (["%s: device %.3f ms a call, GPU busy %.3f ms (cuBLAS %.3f, muonlab %.3f, ", ...
           "copies %.3f, other %.3f), %.1f launches\n"], label, e.device_ms, e.busy_ms,
          e.blas_ms, e.own_ms, e.copy_ms, e.other_ms, e.launches);
  printf ("  %9s %8s  %-8s %s\n", "ms/call", "n/call", "kind", "name");
  for p = e.top
    printf ("  %9.4f %8.1f  %-8s %s\n", p.ms, p.count, p.kind, p.name);
  endfor
  unlink (logfile);
endfunction

## The kernel and the memory-operation summaries of BASE.nsys-rep (the report names of
## Nsight Systems 2023 and later, else the older ones); why: empty, or what failed.
function [K, M, why] = summaries (nsys, base)
  K = M = [];
  why = "";
  for names = {"cuda_gpu_kern_sum,cuda_gpu_mem_time_sum", "gpukernsum,gpumemtimesum"}
    [rc, out] = system (sprintf (["'%s' stats --report %s --format csv --output '%s' ", ...
                                  "'%s.nsys-rep' 2>&1"], nsys, names{1}, base, base));
    kf = glob ([base "*kern*sum*.csv"]);
    if (! isempty (kf))
      break;
    endif
  endfor
  if (isempty (kf))
    why = sprintf ("nsys stats wrote no kernel summary (exit status %d): %s", rc,
                   out(max (1, end - 1000):end));
    return;
  endif
  K = read_summary (kf{1});
  mf = glob ([base "*mem*time*sum*.csv"]);
  M = struct ("name", {{}}, "total_ns", zeros (0, 1), "count", zeros (0, 1));
  if (! isempty (mf))
    M = read_summary (mf{1});
  endif
  cellfun (@unlink, [kf; mf; glob([base ".*"])]);
endfunction

## A summary CSV of nsys stats: the header names the columns; the name is the last one and
## may hold commas and quotes (C++ templates).  Columns "Total Time (ns)" and "Instances" or
## "Count"; no rows (a run without memory operations, say) gives empty fields.
function S = read_summary (file)
  S = struct ("name", {{}}, "total_ns", zeros (0, 1), "count", zeros (0, 1));
  lines = strsplit (fileread (file), "\n");
  h = find (! cellfun (@isempty, strfind (lines, "Total Time")), 1);
  if (isempty (h))
    return;
  endif
  head = strrep (strsplit (strtrim (lines{h}), ","), '"', "");
  it = find (strcmp (head, "Total Time (ns)"), 1);
  ic = find (strcmp (head, "Instances") | strcmp (head, "Count"), 1);
  nc = numel (head);
  for l = lines(h+1:end)
    f = strsplit (strtrim (l{1}), ",");
    if (numel (f) < nc)
      continue;
    endif
    name = strjoin (f(nc:end), ",");
    if (numel (name) >= 2 && name(1) == '"' && name(end) == '"')
      name = strrep (name(2:end-1), '""', '"');
    endif
    S.name{end+1, 1} = name;
    S.total_ns(end+1, 1) = str2double (strrep (f{it}, '"', ""));
    S.count(end+1, 1) = str2double (strrep (f{ic}, '"', ""));
  endfor
endfunction

## cuBLAS's GEMM kernels (their names across generations), muonlab's own (namespace
## muon_cuda, k_*), or anything else.
function k = kernel_kind (name)
  low = lower (name);
  blas = 'gemm|cutlass|nvjet|xmma|syrk|gemv|splitk|cublas|sm\d\d_';
  if (! isempty (regexp (low, blas, "once")))
    k = "cuBLAS";
  elseif (! isempty (regexp (low, 'muon_cuda|(^|\W)k_\w+', "once")))
    k = "muonlab";
  else
    k = "other";
  endif
endfunction

## A kernel's name without "void", its namespaces, template arguments and parameters,
## 48 characters at most.
function s = short_name (name)
  s = regexprep (name, '^void\s+', "");
  while (true)                            # innermost <...> / (...) first
    t = regexprep (s, '<[^<>]*>|\([^()]*\)', "");
    if (strcmp (t, s))
      break;
    endif
    s = t;
  endwhile
  s = regexprep (strtrim (s), '^.*::', "");
  s = s(1:min (48, end));
endfunction

## "[CUDA memcpy Device-to-Device]" -> "memcpy Device-to-Device"
function s = memop_name (name)
  s = strtrim (regexprep (name, '[\[\]]|CUDA\s+', ""));
endfunction

## The cell of options as Octave code inside the child's double-quoted --eval.
function s = cell_code (c)
  parts = cellfun (@(v) value_code (v), c, "UniformOutput", false);
  s = ["{" strjoin(parts, ", ") "}"];
endfunction

function s = value_code (v)
  if (ischar (v))
    s = ["'" v "'"];
  else
    s = mat2str (v);
  endif
endfunction

%!function f = fake_nsys (dir)
%!  ## profile: runs the program after the options, then leaves an empty report;
%!  ## stats: copies DIR's two canned summaries to the --output base
%!  f = fullfile (dir, "nsys");
%!  fid = fopen (f, "w");
%!  fprintf (fid, "#!/bin/sh\ncmd=$1; shift\ncase $cmd in\nprofile)\n");
%!  fprintf (fid, "  while [ \"$1\" != \"${1#--}\" ]; do\n");
%!  fprintf (fid, "    case \"$1\" in --output=*) out=${1#--output=};; esac; shift\n  done\n");
%!  fprintf (fid, "  \"$@\"; rc=$?; touch \"$out.nsys-rep\"; exit $rc;;\nstats)\n");
%!  fprintf (fid, "  while [ $# -gt 1 ]; do\n");
%!  fprintf (fid, "    case \"$1\" in --output) base=$2; shift;; esac; shift\n  done\n");
%!  fprintf (fid, "  cp '%s/kern.csv' \"${base}_cuda_gpu_kern_sum.csv\"\n", dir);
%!  fprintf (fid, "  cp '%s/mem.csv' \"${base}_cuda_gpu_mem_time_sum.csv\";;\nesac\n", dir);
%!  fclose (fid);
%!  system (sprintf ("chmod 700 '%s'", f));
%!  head = ['"Time (%%)","Total Time (ns)","%s","Avg (ns)","Med (ns)","Min (ns)",', ...
%!          '"Max (ns)","StdDev (ns)","%s"\n'];
%!  fid = fopen (fullfile (dir, "kern.csv"), "w");
%!  fprintf (fid, head, "Instances", "Name");
%!  fprintf (fid, '60.0,6000000,30,1,1,1,1,0.0,nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNT\n');
%!  fprintf (fid, ['20.0,2000000,60,1,1,1,1,0.0,"void muon_cuda::k_scale_add<unsigned short>', ...
%!                 '(int, float, const unsigned short *, unsigned short *, unsigned long)"\n']);
%!  fprintf (fid, ['10.0,1000000,30,1,1,1,1,0.0,"void muon_cuda::k_scale_add<float>', ...
%!                 '(int, float, const float *, float *, unsigned long)"\n']);
%!  fprintf (fid, '5.0,300000,3,1,1,1,1,0.0,"void philox_kernel<""odd"">(int, float)"\n');
%!  fclose (fid);
%!  fid = fopen (fullfile (dir, "mem.csv"), "w");
%!  fprintf (fid, head, "Count", "Operation");
%!  fprintf (fid, '90.0,900000,30,1,1,1,1,0,"[CUDA memcpy Device-to-Device]"\n');
%!  fprintf (fid, '10.0,30000,3,1,1,1,1,0,"[CUDA memset]"\n');
%!  fclose (fid);

%!test
%! ## the harness on the stand-in with a stand-in nsys: every sum per call (3 calls a case)
%! d = tempname ();
%! mkdir (d);
%! unwind_protect
%!   f = fake_nsys (d);
%!   before = glob (fullfile (tempdir (), "oct-*-profile*"));
%!   c = {"bf16f", [24 40 2], {"Precision", "bf16", "Fused", true};
%!        "bad", [24 40], {"Precision", "none"}};
%!   out = evalc ("T = gpu_profile (f, 'cpu', c, 2);");
%!   assert ({T.label}, {"24x40x2 bf16f", "24x40 bad"});
%!   assert (T(1).device_ms > 0);
%!   assert ([T(1).blas_ms, T(1).own_ms, T(1).copy_ms, T(1).other_ms], [2 1 0.31 0.1], 1e-12);
%!   assert (T(1).busy_ms, 3.41, 1e-12);
%!   assert (T(1).launches, 41);
%!   assert (T(1).flops, 2 * ns_flops (24, 40).standard);
%!   assert ({T(1).top.name}, {"nvjet_tst_256x128_64x4_2x1_v_bz_coopA_TNT", "k_scale_add", ...
%!                             "memcpy Device-to-Device", "philox_kernel", "memset"});
%!   assert ([T(1).top.count], [10 30 10 1 1]);
%!   assert ({T(1).top.kind}, {"cuBLAS", "muonlab", "copies", "other", "copies"});
%!   assert (isnan ([T(2).device_ms, T(2).busy_ms]));
%!   assert (! isempty (strfind (out, "profile-gpu: 24x40 bad: the workload failed")));
%!   tf = sprintf ("%.1f", T(1).flops / 2 / 1e9);     # over 2 ms of cuBLAS a call
%!   assert (! isempty (regexp (out, ['24x40x2 bf16f\s+[\d.]+\s+3\.410\s+2\.000\s+', ...
%!                                    regexptranslate("escape", tf), '\s+1\.000'])));
%!   ## nothing left behind but the failed case's log
%!   left = setdiff (glob (fullfile (tempdir (), "oct-*-profile*")), before);
%!   assert (numel (left), 1);
%!   assert (regexp (left{1}, '-profile-gpu\.log$'));
%!   assert (! isempty (strfind (out, left{1})));
%!   unlink (left{1});
%! unwind_protect_cleanup
%!   confirm_recursive_rmdir (false, "local");
%!   rmdir (d, "s");
%! end_unwind_protect

%!test
%! ## without a device (or nsys) it says so and returns nothing
%! if (! logical (muon_info ().cuda_usable))
%!   out = evalc ("T = gpu_profile ();");
%!   assert (T, []);
%!   assert (! isempty (strfind (out, "profile-gpu: skipped, ")));
%! endif
%! out = evalc ("T = gpu_profile ('', 'cpu');");   # no nsys on the PATH here
%! if (isempty (gpu_tool ("nsys")))
%!   assert (T, []);
%!   assert (! isempty (strfind (out, "profile-gpu: skipped, nsys")));
%! endif
