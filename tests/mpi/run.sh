#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# run.sh RESULTS_FILE [C_TEST] - the mpi layer of `make check`.
#
# Runs the C test C_TEST (tests/mpi/test_comm_mpi.c, built by make when mpicc is found; also
# on one rank) and
# every suite tests/mpi/run_*.m (run_mpi.m: the collectives; run_agree_mpi.m: ranks that pass
# unlike arguments; run_zero_mpi.m: zero_muon_step; run_zero_agree_mpi.m: its skips and
# disagreements; run_train_mpi.m: zero_train_step and the sharded checkpoints)
# on every rank of `mpirun -np 2`, `-np 3` and `-np 4` (each rank checks its own buffers, the
# ranks agree on pass/fail by all-reducing their failure counts, rank 0 reports), then
# tests/mpi/test_mpirun.m in a plain Octave (muon_mpirun, failing ranks included).  Each run writes "mpi <passed> <failed>" lines to RESULTS_FILE; a run that exits
# non-zero (an aborted job, a crash) or reports nothing counts one more failure.  Every run is
# under timeout(1) (MUON_MPI_TIMEOUT seconds, default 900) as a guard against a hang.  Without
# mpirun the layer is skipped with a message.
set -u
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 RESULTS_FILE [C_TEST]" >&2
  exit 2
fi
results=$1
ctest=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
octave=${OCTAVE:-octave-cli}
limit=${MUON_MPI_TIMEOUT:-900}
mkdir -p "$(dirname "$results")"
: >"$results"
if ! command -v mpirun >/dev/null 2>&1; then
  echo "mpi: mpirun not found: the mpi layer is skipped (install Open MPI: make deps)"
  exit 0
fi
flags="--oversubscribe"
[ "$(id -u)" = 0 ] && flags="--allow-run-as-root $flags"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muonlab-mpi.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# run NAME COMMAND... : runs one test program, appends its result lines (or a failure)
run () {
  local name=$1 out=$tmp/$1.res
  shift
  echo "--- mpi: $name"
  : >"$out"
  MUON_MPI_RESULTS=$out timeout -k 10 "$limit" "$@"
  local rc=$?
  cat "$out" >>"$results"
  if [ "$rc" -ne 0 ] || [ ! -s "$out" ]; then
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
      echo "mpi: $name: FAILED (timed out after $limit s)"
    else
      echo "mpi: $name: FAILED (exit status $rc$([ -s "$out" ] || echo ', no results'))"
    fi
    echo "mpi 0 1" >>"$results"
  fi
}

# the C test also on one rank (a world of one: every block is this rank's)
if [ -n "$ctest" ]; then
  # shellcheck disable=SC2086
  run "c_np1" mpirun $flags -x MUON_MPI_RESULTS -np 1 "$ctest"
fi
for np in 2 3 4; do
  if [ -n "$ctest" ]; then
    # shellcheck disable=SC2086
    run "c_np$np" mpirun $flags -x MUON_MPI_RESULTS -np "$np" "$ctest"
  fi
  for suite in "$here"/run_*.m; do
    name=$(basename "$suite" .m)
    # shellcheck disable=SC2086
    run "${name}_np$np" mpirun $flags -x MUON_MPI_RESULTS -np "$np" "$octave" --no-gui --norc \
      --silent --no-history --eval "cd ('$here'); $name ()"
  done
done
run mpirun "$octave" --no-gui --norc --silent --no-history --eval "cd ('$here'); test_mpirun ()"

awk '{ p += $2; f += $3 } END { printf "mpi: %d passed, %d failed\n", p, f; exit (f > 0) }' \
  "$results"
