## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## run_mock.m - make check's layer gpu-mock: the real CUDA plug-in built against the
## host-memory stand-in of tests/gpu_mock/cuda_mock.cc (MUON_CUDA_LIB names it; MUON_MEXDIR
## the MEX files).  Kernels and products do nothing there, so no number is checked: these
## tests check what the plug-in holds, gives back and reports, and how it fails.
##   lanes      after one large muon_ns, a small device stack sizes its lanes to its own need
##   grow       a work buffer the card cannot hold while the pool keeps free blocks: they go
##              back and the buffer is made (no muonlab:outOfMemory)
##   oom        a work buffer the card cannot hold at all: muonlab:outOfMemory naming the
##              bytes, no source path in the message
##   give back  muon_gpu ("info") and ("reset") leave on the card only the fixed per-stream
##              buffers: work, staging and pinned buffers the calls on device arrays grew go
##              back, those of host arrays on "cuda" (muon_ns's own context) too, also
##              when muon_gpu's context has not used CUDA
##   sweep      every counted CUDA / cuBLAS call of small workloads failing in turn: the
##              error is a muonlab:* one (or none: where the pool's retry absorbed a failed
##              cudaMalloc or cudaHostAlloc, and for cudaEventSynchronize, which reads the
##              call's device time last, a failure leaving stats.device_ms NaN by design),
##              nothing stays held, and the same call then succeeds (no stale error from the
##              runtime's last-error slot)
## It ends with "N passed, N failed" and writes "gpu-mock N M" to MUON_RESULTS when set.

1;

function b = mock_used (f)
  ## the stand-in's device and pinned host bytes held (cuda_mock.cc's MOCK_USED_FILE)
  b = sscanf (fileread (f), "%d %d")';
endfunction

function [r, who] = attempt (op, k, hit)
  ## op () with the k-th counted CUDA / cuBLAS call failing: the error id (or "OK") and the
  ## failing call's name ("" when op made fewer than k calls)
  if (exist (hit, "file"))
    delete (hit);
  endif
  setenv ("MOCK_FAIL_AT", sprintf ("%d", k));
  try
    out = op ();
    r = "OK";
  catch err
    r = err.identifier;
    if (isempty (r))
      r = ["(no id) " err.message];
    endif
  end_try_catch
  setenv ("MOCK_FAIL_AT", "0");
  who = "";
  if (exist (hit, "file"))
    who = strtrim (fileread (hit));
  endif
endfunction

mexdir = getenv ("MUON_MEXDIR");
addpath (genpath (fullfile (pwd, "..", "..", "inst")), mexdir);
tmp = tempname ();
mkdir (tmp);
used_file = fullfile (tmp, "used");
hit = fullfile (tmp, "hit");
setenv ("MOCK_USED_FILE", used_file);
setenv ("MOCK_HIT_FILE", hit);
setenv ("MOCK_FAIL_AT", "0");
setenv ("MOCK_CAP_GB", "141");
passed = 0;
failed = 0;
function [passed, failed] = tally (passed, failed, ok, name, why)
  if (ok)
    passed++;
  else
    failed++;
    printf ("FAIL %s: %s\n", name, why);
  endif
endfunction

## lanes: 1500 x 1500 double needs 7 n^2 doubles of work (126 MB); 3 lanes of that and
## their 32 MB cuBLAS workspaces do not fit a 0.4 GB card, the 8 x 8 x 4 stack's own need does
try
  muon_gpu ("reset");
  setenv ("MOCK_CAP_GB", "0.4");
  A = muon_gpu ("randn", [1500 1500], "Class", "double");
  X = muon_ns (A);
  clear X A
  B = muon_gpu ("randn", [8 8 4], "Class", "double");
  Y = muon_ns (B);
  clear B Y
  ok = true; why = "";
catch err
  ok = false; why = [err.identifier ": " err.message];
end_try_catch
[passed, failed] = tally (passed, failed, ok, "lanes sized by the call's need", why);
setenv ("MOCK_CAP_GB", "141");

## grow: 7 x 32 MB arrays freed into the pool, then a 126 MB work buffer on a 0.4 GB card
## that holds 4 x 32 MB cuBLAS workspaces: only with the kept blocks back does it fit
try
  muon_gpu ("reset");
  setenv ("MOCK_CAP_GB", "0.4");
  T = cell (1, 7);
  for k = 1:7
    T{k} = muon_gpu ("randn", [2000 2000], "Class", "double");
  endfor
  clear T
  cached = muon_gpu ("info").cuda_cached;   # info trims: fill the pool again
  for k = 1:7
    T{k} = muon_gpu ("randn", [2000 2000], "Class", "double");
  endfor
  clear T
  G = muon_gpu ("randn", [1500 1500], "Class", "double");
  X = muon_ns (G);
  clear X G
  ok = true; why = "";
catch err
  ok = false; why = [err.identifier ": " err.message];
end_try_catch
[passed, failed] = tally (passed, failed, ok, "work buffer after cached pool blocks", why);

## oom: 3000 x 3000 double needs 504 MB of work, more than the 0.4 GB card
try
  muon_gpu ("reset");
  G = muon_gpu ("randn", [3000 3000], "Class", "double");
  X = muon_ns (G);
  ok = false; why = "no error";
catch err
  b = str2double (regexp (err.message, 'no room for (\d+) bytes', "tokens", "once"));
  ok = strcmp (err.identifier, "muonlab:outOfMemory") && ! isempty (b) ...
       && b >= 7 * 3000^2 * 8 && b < 7 * 3000^2 * 8 * 1.01 ...
       && isempty (regexp (err.message, '\.cu:\d+', "once"));
  why = [err.identifier ": " err.message];
end_try_catch
[passed, failed] = tally (passed, failed, ok, "outOfMemory of a work buffer", why);
clear G X
setenv ("MOCK_CAP_GB", "141");

## give back: after info and after reset only the fixed per-stream buffers stay
try
  S = muon_gpu ("randn", [8 8 4], "Class", "double");
  Y = muon_ns (S);                          # every lane made
  clear S Y
  muon_gpu ("reset");
  base = mock_used (used_file);
  G = muon_gpu ("randn", [300 200], "Class", "double");
  S = muon_gpu ("randn", [40 30 5], "Class", "bf16");
  X = muon_ns (G); Y = muon_ns (S);
  H = gather (X);                           # pinned chunks of the copies
  clear G S X Y H
  info = muon_gpu ("info");
  after_info = mock_used (used_file);
  G = muon_gpu (randn (300, 200));
  X = muon_ns (G);
  clear G X
  muon_gpu ("reset");
  after_reset = mock_used (used_file);
  ok = info.cuda_in_use == 0 && info.cuda_cached == 0 && isequal (after_info, base) ...
       && isequal (after_reset, base) && base(2) == 0;
  why = sprintf ("base %d/%d, after info %d/%d, after reset %d/%d (device/pinned bytes)", ...
                 base, after_info, after_reset);
catch err
  ok = false; why = [err.identifier ": " err.message];
end_try_catch
[passed, failed] = tally (passed, failed, ok, "info and reset give the grown buffers back", why);

## sweep
Gd = muon_gpu (randn (64, 32, 5));
Gb = muon_gpu (randn (64, 32, 5), "Class", "bf16");
G2 = muon_gpu (randn (48, 96));
[~, s2] = muon_update (G2, []);
Gh = randn (64, 32, 3);
Pz = struct ("W", randn (16, 24), "b", randn (8, 1));
oz = muon_optimizer (Pz, "Device", "cuda", "Resident", true);
Pzd = structfun (@(x) muon_gpu (x, "Class", "double"), Pz, "UniformOutput", false);
Gr = muon_gpu (randn (1, 40));                       # 1 x n, n x 1: ld 1, n = 1 products
Gc = muon_gpu (randn (40, 1, 3), "Class", "bf16");
Gs = muon_gpu (randn (40, 1), "Class", "single");
ops = {
  "ns device 1 x n",          @() muon_ns (Gr);
  "ns device 1 x n gram",     @() muon_ns (Gr, "Method", "gram", "Restarts", [1 3]);
  "ns device n x 1 bf16 stack", @() muon_ns (Gc);
  "ns device n x 1 bf16 fused", @() muon_ns (Gc, "Fused", true, "Batched", true);
  "update device n x 1",      @() muon_update (Gs, []);
  "ns device stack",          @() muon_ns (Gd);
  "ns device bf16 stack",     @() muon_ns (Gb);
  "ns device stack batched",  @() muon_ns (Gd, "Batched", true);
  "ns device gram",           @() muon_ns (G2, "Method", "gram");
  "ns host stack on cuda",    @() muon_ns (Gh, "Device", "cuda");
  "update device",            @() muon_update (G2, []);
  "update device nesterov",   @() muon_update (G2, s2, "Nesterov", true);
  "upload bf16",              @() muon_gpu (randn (50, 40), "Class", "bf16");
  "gather bf16",              @() gather (Gb);
  "optimizer step device",    @() muon_step (oz, Pzd, Pzd);
};
for i = 1:rows (ops)
  base = muon_gpu ("info").cuda_in_use;
  bad = {};
  for k = 1:1000
    [r, who] = attempt (ops{i,2}, k, hit);
    if (isempty (who))
      break;                                # op made fewer than k counted calls
    endif
    absorbed = {"cudaMalloc", "cudaHostAlloc", "cudaEventSynchronize"};
    if ((strcmp (r, "OK") && ! any (strcmp (who, absorbed)))
        || (! strcmp (r, "OK") && ! strncmp (r, "muonlab:", 8)))
      bad{end+1} = sprintf ("call %d (%s) -> %s", k, who, r);
    endif
    held = muon_gpu ("info").cuda_in_use - base;
    if (held != 0)
      bad{end+1} = sprintf ("call %d (%s): %d bytes left held", k, who, held);
    endif
    [r2, who2] = attempt (ops{i,2}, 0, hit);
    if (! strcmp (r2, "OK"))
      bad{end+1} = sprintf ("call %d (%s) failed; the next call then -> %s", k, who, r2);
    endif
  endfor
  ok = isempty (bad) && k > 1 && k < 1000;
  [passed, failed] = tally (passed, failed, ok, sprintf ("sweep %s (%d calls)", ops{i,1}, k - 1), ...
                            strjoin (bad(1:min (end, 5)), "; "));
endfor
clear ops Gd Gb G2 s2 Gh oz Pzd Gr Gc Gs
info = muon_gpu ("info");
[passed, failed] = tally (passed, failed, info.cuda_in_use == 0 && info.arrays == 0, ...
                          "nothing held after the sweep", sprintf ("%d bytes", info.cuda_in_use));

## host calls: muon_ns of a host array on "cuda" grows work, staging and pinned buffers in
## __muon_ns__'s own context; muon_gpu ("info") and ("reset") give them back too, also as the
## first muon_gpu call of a session (a fresh Octave: muon_gpu's context had not used CUDA)
code = sprintf (["addpath (genpath ('%s'), '%s');" ...
                 "used = @() sscanf (fileread ('%s'), '%%d %%d')';" ...
                 "H = randn (600, 400); X = muon_ns (H, 'Device', 'cuda'); grown = used ();" ...
                 "info = muon_gpu ('info'); base = used ();" ...
                 "X = muon_ns (H, 'Device', 'cuda'); muon_gpu ('reset'); after = used ();" ...
                 "printf ('%%d ', grown, base, after, info.cuda_cached);"], ...
                fullfile (pwd, "..", "..", "inst"), mexdir, used_file);
[rc, txt] = system (sprintf ("octave-cli --no-gui --norc --silent --eval \"%s\" 2>/dev/null", code));
v = sscanf (txt, "%d")';
work = 2 * 600 * 400 * 8 + 5 * 400^2 * 8;   # X, Y and S1..S5 of a 600 x 400 double page
ok = rc == 0 && numel (v) == 7 && v(2) > 0 && v(4) == 0 && v(1) - v(3) >= work ...
     && isequal (v(5:6), v(3:4)) && v(7) == 0;
[passed, failed] = tally (passed, failed, ok, "info and reset give host calls' buffers back", ...
                          sprintf ("rc %d: %s", rc, txt));

## an allocation that fails takes back what the other contexts hold between calls, once more:
## pinned staging (a 70 MB host: muon_gpu's two 32 MiB chunks and muon_ns's four 1.92 MB
## pages do not fit together) and device buffers (a card with 12 MB to spare gets a 24 MB
## array once muon_ns's work buffers are back)
code = sprintf (["addpath (genpath ('%s'), '%s');" ...
                 "used = @() sscanf (fileread ('%s'), '%%d %%d')';" ...
                 "A = muon_gpu ('randn', [2 2]); H = randn (600, 400); ok = 0;" ...
                 "X = muon_ns (H, 'Device', 'cuda'); p1 = used ();" ...
                 "setenv ('MOCK_PIN_CAP_MB', '70');" ...
                 "try, D = muon_gpu (randn (10)); ok++; end_try_catch; p2 = used ();" ...
                 "try, X = muon_ns (H, 'Device', 'cuda'); ok++; end_try_catch; p3 = used ();" ...
                 "setenv ('MOCK_PIN_CAP_MB', ''); u = used ();" ...
                 "setenv ('MOCK_CAP_GB', sprintf ('%%.9f', (u(1) + 12e6) / 1e9));" ...
                 "try, B = muon_gpu ('randn', [2000 1500], 'Class', 'double'); ok++; end_try_catch;" ...
                 "printf ('%%d ', ok, p1(2), p2(2), p3(2));"], ...
                fullfile (pwd, "..", "..", "inst"), mexdir, used_file);
[rc, txt] = system (sprintf ("octave-cli --no-gui --norc --silent --eval \"%s\" 2>/dev/null", code));
v = sscanf (txt, "%d")';
pages = 4 * 600 * 400 * 8;
ok = rc == 0 && isequal (v, [3, pages, 2 * 2^25, pages]);
[passed, failed] = tally (passed, failed, ok, "a failed allocation takes other contexts' buffers back", ...
                          sprintf ("rc %d: %s (want 3 %d %d %d)", rc, txt, pages, 2 * 2^25, pages));

confirm_recursive_rmdir (false);
rmdir (tmp, "s");
printf ("gpu-mock: %d passed, %d failed\n", passed, failed);
res = getenv ("MUON_RESULTS");
if (! isempty (res))
  fid = fopen (res, "w");
  fprintf (fid, "gpu-mock %d %d\n", passed, failed);
  fclose (fid);
endif
exit (failed > 0);
