#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# usage: tests/dist_install.sh TARBALL RESULTS_FILE
#
# Proves that the package tarball works as an Octave package: `pkg install` into a temporary
# prefix (its own local and global package lists, so the user's are never read or written),
# `pkg load muonlab`, one Newton-Schulz call checked against a pure-Octave oracle, the demos
# (muonlab_demo lists them from the installed inst/demos/ and runs one), `pkg
# unload`, a second install over the first (re-installing must work), and the tests of the
# installed package, each failing test counted as a failed check: by default the %! blocks
# of the functions that reach every gateway and four of the suites the tarball ships in
# inst/tests/ (tests/make_dist.sh), test_demo_scripts (every demo) among them; with
# MUON_DIST_FULL=1, all of `pkg test muonlab` (every %! block and every shipped suite,
# 3 minutes more on 2 cores).  Prints one
# line per check and writes "dist <passed> <failed>" to RESULTS_FILE; exits non-zero on any
# failure.
# Octave runs under timeout(1) (MUON_DIST_TIMEOUT seconds, default 1800), and the temporary
# directory is removed on exit.
set -uo pipefail

if [[ $# -ne 2 ]]; then
  echo "usage: tests/dist_install.sh TARBALL RESULTS_FILE" >&2
  exit 2
fi
results=$2
mkdir -p "$(dirname "$results")"
if [[ ! -f $1 ]]; then
  echo "dist: FAIL tarball $1 not found"
  echo "dist 0 1" > "$results"
  exit 1
fi
tarball=$(realpath "$1")

tmp=$(mktemp -d "${TMPDIR:-/tmp}/muonlab-check-dist.XXXXXX")
trap 'rm -rf "$tmp" 2>/dev/null || { sleep 2; rm -rf "$tmp"; }' EXIT
log=$tmp/checks.log
: > "$log"

# The package's build makes libmuon_cuda.so exactly when the Makefile's probe finds nvcc,
# CUDA is not 0 and there is CUDA source (core/gpu/*.cu); then it must be installed beside the
# MEX files.  CUDA=0 given to make on its command line reaches us in the environment.
want_cuda=0
if [[ ${CUDA:-auto} != 0 ]] && [[ $(tar -tzf "$tarball" | grep -c '^[^/]*/src/core/gpu/[^/]*\.cu$') -gt 0 ]] &&
   { command -v "${NVCC:-nvcc}" >/dev/null || [[ -x /usr/local/cuda/bin/nvcc ]]; }; then
  want_cuda=1
fi

# the test-only gateways (tests/mex/__*__.c): none of them may be in the package
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
testonly=$(cd "$here/mex" && ls __*__.c 2>/dev/null | sed 's/\.c$//' | tr '\n' ' ' | sed 's/ $//')

cat > "$tmp/dist_check.m" <<'EOF'
1;
function check (ok, what)
  ## Print and record one check.
  global MUON_DIST_LOG
  if (ok)
    tag = "PASS";
  else
    tag = "FAIL";
  endif
  printf ("dist: %s %s\n", tag, what);
  fid = fopen (MUON_DIST_LOG, "a");
  fprintf (fid, "%s %s\n", tag, what);
  fclose (fid);
endfunction

function [X, how] = ns_call (G)
  ## muon_ns when the package has it, else its gateway (muon_ns.m may not exist yet).
  if (exist ("muon_ns") == 2)
    X = muon_ns (G);
    how = "muon_ns (G)";
  else
    X = __muon_ns__ (G, struct ("precision", "double"));
    how = "__muon_ns__ (G, struct (\"precision\", \"double\")) (no muon_ns.m in the package yet)";
  endif
endfunction

function ok = try_install (tarball)
  try
    pkg ("install", "-local", "-nodeps", tarball);
    ok = true;
  catch err
    printf ("dist: pkg install failed: %s\n", err.message);
    ok = false;
  end_try_catch
endfunction

crash_dumps_octave_core (false);
sigterm_dumps_octave_core (false);
sighup_dumps_octave_core (false);
global MUON_DIST_LOG
MUON_DIST_LOG = getenv ("MUON_DIST_LOG");
tmp = getenv ("MUON_DIST_TMP");
tarball = getenv ("MUON_DIST_TARBALL");
want_cuda = strcmp (getenv ("MUON_DIST_WANT_CUDA"), "1");
prefix = fullfile (tmp, "prefix");
mkdir (prefix);
pkg ("prefix", prefix, prefix);
pkg ("local_list", fullfile (tmp, "octave_packages"));
pkg ("global_list", fullfile (tmp, "global_packages"));
page_screen_output (false);

## 1. install
ok = try_install (tarball);
list = pkg ("list");
names = cellfun (@(p) p.name, list, "uniformoutput", false);
check (ok && any (strcmp (names, "muonlab")),
       sprintf ("pkg install %s into a temporary prefix", tarball));
if (! ok)
  printf ("dist: (the other checks need the package: skipped)\n");
  exit (0);
endif
desc = list{strcmp (names, "muonlab")};

## 2. MEX files (and libmuon_cuda.so, when CUDA was built) in the package's arch folder
mexes = glob (fullfile (desc.archprefix, "*", "*.mex"));
archdir = "";
if (! isempty (mexes))
  archdir = fileparts (mexes{1});
endif
has_ns = any (! cellfun (@isempty, regexp (mexes, "__muon_ns__\\.mex$")));
check (has_ns, sprintf ("%d MEX files installed in %s", numel (mexes), archdir));
## the test-only gateways (tests/mex/) stay out of the package
testonly = strsplit (getenv ("MUON_DIST_TESTONLY"), " ");
[~, shipped] = cellfun (@fileparts, mexes, "uniformoutput", false);
check (! isempty (testonly) && ! any (ismember (testonly, shipped)),
       sprintf ("no test-only gateway in the package (%s)", strjoin (testonly, ", ")));
cudalib = exist (fullfile (archdir, "libmuon_cuda.so"), "file") == 2;
if (want_cuda)
  check (cudalib, "nvcc found: libmuon_cuda.so installed beside the MEX files");
else
  printf ("dist: (no nvcc, no core/gpu/*.cu or CUDA=0: libmuon_cuda.so not expected, %s)\n",
          merge (cudalib, "but installed", "none installed"));
endif

## 3. load
try
  pkg ("load", "muonlab");
  w = which ("__muon_ns__");
  check (strncmp (w, prefix, numel (prefix)),
         sprintf ("pkg load muonlab: __muon_ns__ comes from %s", w));
catch err
  check (false, ["pkg load muonlab: " err.message]);
end_try_catch

## 4. one Newton-Schulz call against a pure-Octave oracle (keller, 5 steps, fp64)
try
  randn ("state", 42);
  G = randn (8, 16);
  [X, how] = ns_call (G);
  a = 3.4445; b = -4.7750; c = 2.0315;
  Y = G / (norm (G, "fro") + 1e-7);
  for k = 1:5
    A = Y * Y';
    Y = a * Y + (b * A + c * A * A) * Y;
  endfor
  s = svd (X);
  err = norm (X - Y, "fro") / norm (Y, "fro");
  check (isequal (size (X), [8 16]) && isa (X, "double") && all (isfinite (X(:)))
         && min (s) >= 0.6 && max (s) <= 1.3,
         sprintf ("%s on randn (8, 16): singular values in [%.3f, %.3f] within Keller's band [0.6, 1.3]",
                  how, min (s), max (s)));
  check (err <= 1e-12,
         sprintf ("the same result equals a pure-Octave keller NS loop: relative error %.2e <= 1e-12", err));
catch err
  check (false, ["Newton-Schulz call: " err.message]);
end_try_catch

## 4b. when CUDA was built, the installed MEX files must find libmuon_cuda.so beside them:
##     a 'cuda' call either runs (GPU present) or fails with muonlab:noDevice, never notBuilt
if (want_cuda)
  try
    Xc = __muon_ns__ (G, struct ("precision", "double", "device", "cuda"));
    check (norm (Xc - X, "fro") <= 1e-10 * norm (X, "fro"),
           "device cuda: the installed libmuon_cuda.so runs and matches the CPU result");
  catch err
    check (strcmp (err.identifier, "muonlab:noDevice"),
           sprintf ("device cuda: libmuon_cuda.so is loaded, no GPU here (%s: %s)",
                    err.identifier, err.message));
  end_try_catch
endif

## 4c. the demos ship with the package (inst/demos/): muonlab_demo lists and runs them,
##     and they write under tempdir, not into the package (step 7 runs every demo:
##     inst/tests/test_demo_scripts.m)
try
  names = muonlab_demo ();
  d = muonlab_demo ("folder");
  out = muonlab_demo ("output");
  check (numel (names) >= 10 && strncmp (d, prefix, numel (prefix)),
         sprintf ("muonlab_demo lists %d demos installed in %s", numel (names), d));
  T = muonlab_demo ("zero3_pads", "Display", "off");
  png = fullfile (out, "zero3_pads.png");
  check (isstruct (T) && numel (T) >= 7 && exist (png, "file") == 2
         && strncmp (out, tempdir (), numel (tempdir ())),
         sprintf ("muonlab_demo (\"zero3_pads\") ran: %d rows, wrote %s", numel (T), png));
catch err
  check (false, ["muonlab_demo: " err.message]);
end_try_catch

## 5. unload
try
  pkg ("unload", "muonlab");
  check (isempty (which ("__muon_ns__")) && ! any (strcmp (strsplit (path (), pathsep ()), archdir)),
         "pkg unload muonlab: the package is off the path");
catch err
  check (false, ["pkg unload muonlab: " err.message]);
end_try_catch

## 6. a second install over the first replaces it (clear the loaded MEX files first, or
##    Octave warns that it cannot reload them while generating the new doc cache)
for i = 1:numel (mexes)
  [~, nm] = fileparts (mexes{i});
  clear (nm);
endfor
ok = try_install (tarball);
list = pkg ("list");
n = sum (cellfun (@(p) strcmp (p.name, "muonlab"), list));
check (ok && n == 1, sprintf ("second pkg install over the first: %d muonlab in the list", n));
try
  pkg ("load", "muonlab");
  X2 = ns_call (G);
  pkg ("unload", "muonlab");
  check (isequal (X2, X), "after re-install: load, the same call gives the same X, unload");
catch err
  check (false, ["after re-install: " err.message]);
end_try_catch

## 7. the tests of the installed package, each failing test one failed check.  By default
##    a subset that reaches every gateway the package compiled, and every installed demo
##    (test_demo_scripts; the octave layer of make check has just run all the tests on the
##    build tree); with
##    MUON_DIST_FULL=1 (make check-dist DIST_FULL=1), all of `pkg test muonlab`: every %!
##    block and every shipped suite (inst/tests/), about 3.5 minutes on 2 cores.
full = strcmp (getenv ("MUON_DIST_FULL"), "1");
what = merge (full, "pkg test muonlab",
              "the installed package's tests (a subset; MUON_DIST_FULL=1: pkg test)");
try
  t0 = tic ();
  if (full)
    out = evalc ('pkg ("test", "muonlab")');
    k = strfind (out, "Summary:");
    tail = out(k(end):end);
    np = str2double (regexp (tail, '^\s*PASS\s+(\d+)\s*$', "tokens", "once", "lineanchors"){1});
    nf = str2double (regexp (tail, '^\s*FAIL\s+(\d+)\s*$', "tokens", "once", "lineanchors"){1});
    suites_ok = numel (regexp (out, 'tests/test_\w+\.m', "match")) >= 10;
    f = strfind (out, "Failure Summary:");
    if (! isempty (f))
      printf ("%s", out(f(1):k(end)-1));
    endif
  else
    pkg ("load", "muonlab");
    funcs = {"muon_ns", "muon_update", "muon_coeffs", "ns_flops", "muon_info", "muon_gpu", ...
             "muon_comm", "zero_layout", "zero_cost", "zero_muon_step", "muon_optimizer", ...
             "muon_step", "zero_save_state"};
    suites = cellfun (@(t) fullfile (desc.dir, "tests", [t ".m"]),
                      {"test_muon_update", "test_zero_step", "test_gpuarray", "test_demo_scripts"}, "uniformoutput", false);
    [np, nf] = deal (0);
    suites_ok = true;
    addpath (fullfile (desc.dir, "tests"));   # the suites call their own helpers
    for f = [funcs, suites]
      [n, m] = test (f{1}, "quiet", stdout);
      np += n;
      nf += m - n;
      suites_ok = suites_ok && m > 0;  # a file that is missing tests nothing
    endfor
    rmpath (fullfile (desc.dir, "tests"));
    pkg ("unload", "muonlab");
  endif
  check (nf == 0 && np > 0 && suites_ok,
         sprintf ("%s: %d passed, %d failed (%.0f s)", what, np, nf, toc (t0)));
  for i = 2:nf                         # one failed check per failing test
    check (false, [what ": a failing test (see above)"]);
  endfor
catch err
  check (false, [what ": " err.message]);
end_try_catch
EOF

# Octave's tempdir is a folder of $tmp: what the installed demos and the tests write there
# (the demos' PNG files, muon_mpirun's jobs) goes with it.
mkdir -p "$tmp/tmpdir"

# Build as a user's `pkg install` would: not as a part of the calling make (its jobserver
# descriptors are not passed on); switches such as CUDA=0 stay in the environment.
unset MAKEFLAGS MFLAGS MAKELEVEL

echo "dist: checking $(basename "$tarball") (pkg install, load, muon_ns, demos, unload, re-install, tests)"
(
  cd "$tmp" &&
  MUON_DIST_LOG=$log MUON_DIST_TMP=$tmp MUON_DIST_FULL=${MUON_DIST_FULL:-0} MUON_DIST_TARBALL=$tarball \
  MUON_DIST_WANT_CUDA=$want_cuda MUON_DIST_TESTONLY="$testonly" XDG_CONFIG_HOME=$tmp/config TMPDIR=$tmp/tmpdir \
  timeout -k 10 "${MUON_DIST_TIMEOUT:-1800}" "${OCTAVE:-octave-cli}" \
    --no-gui --norc --silent --no-history dist_check.m
)
rc=$?

passed=$(grep -c '^PASS ' "$log")
failed=$(grep -c '^FAIL ' "$log")
if [[ $rc -ne 0 ]]; then
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then
    echo "dist: FAIL octave timed out after ${MUON_DIST_TIMEOUT:-1800} s"
    sleep 2   # timeout(1) signalled the whole group (make, compilers): let them go first
  else
    echo "dist: FAIL octave exited with status $rc"
  fi
  failed=$((failed + 1))
fi
echo "dist $passed $failed" > "$results"
echo "dist: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
