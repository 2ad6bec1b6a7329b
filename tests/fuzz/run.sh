#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# run.sh RESULTS [OUTDIR] - the fuzz layer of `make check`: tests/fuzz/fuzz_public.m (the
# public functions called with malformed argument lists from a fixed seed) in a child
# octave-cli, from a scratch folder (so that a file name the fuzzer makes up lands there).
# Writes the line "fuzz <passed> <failed>" to RESULTS; keeps the session's output, the
# failing calls and the last call started in OUTDIR (default build/fuzz).
#
# Counting: one test per public function (it passes when none of its calls raised an error
# other than a muonlab:* one or Octave's usage error), plus one for the session: the child
# exited normally within the time limit and printed its summary.  A crash (segfault,
# abort) or a hang fails the session test and names the call that was running.
#
# Environment: OCTAVE (octave-cli), FUZZ_SEED (13), FUZZ_CALLS (3000), FUZZ_SECONDS (the
# calls stop there, 50), MUON_FUZZ_TIMEOUT (the child's hard limit, 120 s), FUZZ_OPT_FIELDS.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../session.sh"
session_args OUTDIR build/fuzz "$@"
outdir=$dir
OCTAVE=${OCTAVE:-octave-cli}
limit=${MUON_FUZZ_TIMEOUT:-120}
out=$outdir/session.out
fails=$outdir/failures.txt
progress=$outdir/last_call.txt
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rm -f "$fails" "$progress"

t0=$(date +%s)
( cd "$scratch" && OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 FUZZ_FAILURES="$fails" \
    FUZZ_PROGRESS="$progress" timeout -k 10 "$limit" "$OCTAVE" --no-gui --norc --silent \
    --no-history "$here/fuzz_public.m" ) >"$out" 2>&1
rc=$?
secs=$(( $(date +%s) - t0 ))

passed=0
failed=0
while read -r _ name calls nfail _; do
  if [ "$nfail" -eq 0 ]; then
    passed=$((passed + 1))
  else
    echo "fuzz: $name FAIL ($nfail of $calls calls raised a non-muonlab error)"
    grep -F " $name (" "$fails" 2>/dev/null | head -n 5 | cut -c1-400 | sed 's/^/    /'
    failed=$((failed + 1))
  fi
done < <(grep -E '^fuzz-fn ' "$out")

done_line=$(grep -E '^fuzz-done ' "$out" | tail -n 1)
why=""
if session_timed_out "$rc"; then
  why="timed out after $limit s"
elif [ -z "$done_line" ]; then
  why="exit status $rc before the summary (a crash)"
elif [ "$rc" -ne 0 ]; then
  why="exit status $rc"
fi
if [ -z "$why" ]; then
  passed=$((passed + 1))
else
  echo "fuzz: session FAIL: $why; the call running: $(cat "$progress" 2>/dev/null || echo '?')"
  tail -n 15 "$out" | sed 's/^/    | /'
  failed=$((failed + 1))
fi

# the error ids and the totals
grep -E '^fuzz-id ' "$out" | sed 's/^fuzz-id /fuzz:   /'
grep -E '^fuzz: stopped after' "$out"
read -r _ ncalls nbad fsecs <<<"${done_line:-x 0 0 0}"
echo "fuzz $passed $failed" >"$results"
echo "fuzz: $ncalls calls, $nbad non-muonlab errors; $passed passed, $failed failed" \
     "($secs s; seed ${FUZZ_SEED:-13}; details in $outdir)"
[ "$failed" -eq 0 ]
