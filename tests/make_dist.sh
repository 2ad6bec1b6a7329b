#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# usage: tests/make_dist.sh [VERSION]
#
# Writes muonlab-VERSION.tar.gz in the repository root: an Octave package tarball that
# `pkg install` accepts.  Its top folder muonlab-VERSION/ holds
#
#   DESCRIPTION INDEX COPYING README.md   as in the repository (and NEWS)
#   inst/                                 every .m under inst/ (private/ included)
#   inst/tests/                           the numerical suites of tests/octave that need
#                                         neither MPI nor the source tree (all test_*.m but
#                                         test_readme, test_headline, test_moe_demo,
#                                         test_muon_family_demo and test_headers), their
#                                         reference ports
#                                         ref_*.m and helpers (thread_runs.m; not the
#                                         runners run_*.m), fixtures/ and configs/: `pkg test
#                                         muonlab` runs them (it cd's into each folder of the
#                                         package and runs the %! blocks of every .m there)
#   inst/demos/                           the demos (demo/*.m): pkg install copies them with
#                                         inst/, off the path; muonlab_demo ("NAME") runs one
#   src/core/ src/mex/                    the C sources (and .cu files) the build needs
#   src/Makefile.muonlab                  the top-level Makefile, unchanged (with a copy of
#                                         DESCRIPTION beside it, which it reads)
#   src/Makefile                          GENERATED here: builds with Makefile.muonlab, copies
#                                         the .mex files (and libmuon_cuda.so when CUDA was
#                                         built) into src/, and lists them in src/FILES
#
# pkg install runs `make` in src/ and then installs the files named in src/FILES (without a
# FILES file it would take only *.m, *.oct, *.mex and *tst, and leave libmuon_cuda.so
# behind; .so counts as architecture dependent, so it lands beside the .mex files, where
# core/base/plugin.c looks for it).  The generated pieces exist only in the tarball: the
# repository's layout stays as it is.  VERSION defaults to DESCRIPTION's and must match it.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

desc_version=$(sed -n 's/^Version: *//p' DESCRIPTION)
version=${1:-$desc_version}
if [[ "$version" != "$desc_version" ]]; then
  echo "make_dist: VERSION '$version' differs from DESCRIPTION's Version '$desc_version'" >&2
  exit 1
fi
for f in DESCRIPTION INDEX COPYING README.md Makefile; do
  [[ -f $f ]] || { echo "make_dist: $f is missing" >&2; exit 1; }
done

name=muonlab-$version
out=$root/$name.tar.gz
stage=$(mktemp -d "${TMPDIR:-/tmp}/muonlab-dist.XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/$name
mkdir -p "$top/inst" "$top/src"

cp DESCRIPTION INDEX COPYING README.md NEWS "$top/"

# In a git checkout only the files git tracks ship (an untracked scratch file in inst/ or
# core/ would be installed, or compiled in); from an exported tree, every file.
tracked () {   # NUL-separated paths relative to the root on stdin: those to ship
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    grep -z -Fx -f <(git -C "$root" -c core.quotePath=false ls-files) || true
  else
    cat
  fi
}
# Copy the files under DIR whose names match the find(1) tests that follow, keeping paths.
copy_tree () {
  local dir=$1 dest=$2; shift 2
  [[ -d $dir ]] || return 0
  find "$dir" -type f \( "$@" \) ! -name '.*' -print0 | tracked |
    xargs -0 -r cp --preserve=mode --parents -t "$dest"
}
copy_tree inst "$top" -name '*.m' -o -name '*.json'   # inst/models/*.json: muon_model's data
mkdir -p "$top/inst/demos"                                # not demo/output/ (what they write)
find demo -maxdepth 1 -type f -name '*.m' -print0 | tracked |
  xargs -0 -r cp --preserve=mode -t "$top/inst/demos/"
# the suites, their reference ports ref_*.m and helpers (thread_runs.m), but the runners
# run_*.m and the suites that need README.md or demo/; fixtures/ and configs/
mkdir -p "$top/inst/tests"
find tests/octave -maxdepth 1 -type f -name '*.m' ! -name 'run_*.m' ! -name test_readme.m \
     ! -name test_headline.m ! -name test_moe_demo.m ! -name test_muon_family_demo.m \
     ! -name test_headers.m -print0 |
  tracked | xargs -0 -r cp --preserve=mode -t "$top/inst/tests/"
find tests/octave/fixtures tests/octave/configs -type f -print0 | tracked |
  (cd tests/octave && sed -z 's|^tests/octave/||' |
     xargs -0 -r cp --preserve=mode --parents -t "$top/inst/tests/")
copy_tree core "$top/src" -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh'
copy_tree mex "$top/src" -name '*.c' -o -name '*.h'
cp Makefile "$top/src/Makefile.muonlab"
cp DESCRIPTION "$top/src/"            # Makefile.muonlab reads its VERSION from here

# Warn (only) where INDEX and inst/ disagree: functions are being added all the time.
index_names=$(sed -n '/^[[:space:]]/{s/^[[:space:]]*//;p}' INDEX | tr -s ' \t' '\n' | LC_ALL=C sort -u)
# (the files that ship: an untracked inst/scratch.m is not in the tarball, so not INDEX's business)
inst_names=$(find inst -maxdepth 1 -type f -name '*.m' -print0 | tracked | tr '\0' '\n' |
               sed 's|^inst/||; s/\.m$//' | LC_ALL=C sort -u)
for f in $(LC_ALL=C comm -23 <(echo "$index_names") <(echo "$inst_names")); do
  echo "make_dist: warning: INDEX lists $f but inst/$f.m does not exist" >&2
done
for f in $(LC_ALL=C comm -13 <(echo "$index_names") <(echo "$inst_names")); do
  echo "make_dist: warning: inst/$f.m is not listed in INDEX" >&2
done

cat > "$top/src/Makefile" <<EOF
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# GENERATED by tests/make_dist.sh for $name; edit the repository's Makefile instead.
#
# pkg install runs \`make\` here, then installs the files named in FILES.  The real build is
# the project's top-level Makefile, shipped as Makefile.muonlab (core/ and mex/ sit beside
# it, so its relative paths hold): it builds build/libmuon.a, build/mex/*.mex and, when nvcc
# is found, build/mex/libmuon_cuda.so (and libmuon_nccl.so with NCCL).  This file copies those
# here and lists them in FILES, so the GPU libraries are installed next to the MEX files that
# dlopen them.

MUON_MAKE = \$(MAKE) --no-print-directory -f Makefile.muonlab

.PHONY: all clean

all:
	+\$(MUON_MAKE) all
	rm -f *.mex libmuon_cuda.so libmuon_nccl.so FILES
	cp build/mex/*.mex .
	for f in libmuon_cuda.so libmuon_nccl.so; do \
	  if [ -f build/mex/\$\$f ]; then cp build/mex/\$\$f .; fi; done
	for f in *.mex libmuon_cuda.so libmuon_nccl.so; do \
	  if [ -f "\$\$f" ]; then echo "\$\$f"; fi; done > FILES

clean:
	+\$(MUON_MAKE) clean
	rm -f *.mex libmuon_cuda.so libmuon_nccl.so FILES
EOF

# Reproducible and owner-free; written beside the final name, then moved into place.
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner \
    --mtime="@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}" \
    -cf - "$name" | gzip -9n > "$out.tmp"
mv "$out.tmp" "$out"
echo "make_dist: wrote $name.tar.gz ($(du -k "$out" | cut -f1) KiB, $(tar -tzf "$out" | grep -vc '/$') files)"
