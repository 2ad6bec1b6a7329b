#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# run.sh RESULTS [LOGDIR] - the valgrind layer of `make check`: tests/valgrind/gateways.m (one
# section per MEX gateway: success paths, every output count, every error path) in one
# octave-cli session under valgrind's memcheck, with full leak checking.  Writes the line
# "valgrind <passed> <failed>" to RESULTS and keeps valgrind's log in LOGDIR (default
# build/valgrind).
#
# Counting: one test per gateway section (it passes when the section's own checks pass and
# valgrind reports no invalid access, uninitialised use, bad free and no definite leak whose
# stack has a frame in that gateway: its .c file or its .mex file, which holds mex/ and
# core/ code), plus one for the session (valgrind ran to the end within the time limit,
# every section reported, no muonlab error left unattributed).  Errors with no muonlab frame
# are Octave's or a library's: printed as notes with their suppression, never counted; name
# and comment them in tests/valgrind/muonlab.supp.
#
# Environment: VALGRIND (valgrind), OCTAVE (octave-cli), MUON_VALGRIND_TIMEOUT (seconds,
# default 300).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../session.sh"
session_args LOGDIR build/valgrind "$@"
logdir=$dir
VALGRIND=${VALGRIND:-valgrind}
OCTAVE=${OCTAVE:-octave-cli}
limit=${MUON_VALGRIND_TIMEOUT:-300}
log=$logdir/valgrind.log
out=$logdir/session.out

if ! command -v "$VALGRIND" >/dev/null 2>&1; then
  echo "valgrind: FAIL valgrind not found (make deps installs it)"
  echo "valgrind 0 1" >"$results"
  exit 1
fi

t0=$(date +%s)
# One BLAS / OpenMP thread: valgrind serializes threads anyway, and fewer threads start
# faster.  --keep-debuginfo: Octave unloads the MEX files at exit, before the leak report,
# which would otherwise show their frames as ???.
( cd "$here" && OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 timeout -k 10 "$limit" \
    "$VALGRIND" --tool=memcheck --leak-check=full --show-leak-kinds=definite \
    --errors-for-leak-kinds=definite --error-exitcode=99 --num-callers=40 \
    --keep-debuginfo=yes --gen-suppressions=all --suppressions="$here/muonlab.supp" \
    --log-file="$log" "$OCTAVE" --no-gui --norc --silent --no-history gateways.m ) \
  >"$out" 2>&1
rc=$?
secs=$(( $(date +%s) - t0 ))

# Error blocks of the log, one per line: kind <TAB> gateway <TAB> header <TAB> first frame.
# kind is "leak" or "error"; gateway is the __name__ of the first frame in a gateway (.c or
# .mex), "muonlab" for a frame in muonlab code of no gateway, or "-" for none.
blocks=$(awk '
  function flush() {
    if (hdr != "") {
      kind = (hdr ~ /definitely lost/) ? "leak" : "error"
      printf "%s\t%s\t%s\t%s\n", kind, (gw == "" ? (mu ? "muonlab" : "-") : gw), hdr, \
        (first == "" ? "-" : first)
    }
    hdr = ""; gw = ""; mu = 0; first = ""
  }
  /^==[0-9]+== / {
    line = $0
    sub(/^==[0-9]+== /, "", line)
    if (line == "") { flush(); next }
    if (line ~ /^(Invalid |Mismatched free|Conditional jump|Use of uninitialised|Syscall param|Source and destination overlap|Argument .* of function|Jump to the invalid address|Process terminating|Stack overflow|Invalid alignment|Illegal memory pool|Memory pool)/ \
        || line ~ /definitely lost in loss record/) {
      flush(); hdr = line; next
    }
    if (hdr != "" && line ~ /^ *(at|by) 0x/) {
      if (match(line, /__[A-Za-z0-9_]+__\.(c|mex)/) && gw == "") {
        gw = substr(line, RSTART, RLENGTH); sub(/\.(c|mex)$/, "", gw)
      }
      if (line ~ /muon_mex|libmuon|\/build\/mex\/|__[A-Za-z0-9_]+__\.(c|mex)/) {
        mu = 1
        if (first == "") { first = line; sub(/^ *(at|by) 0x[0-9A-Fa-f]+: /, "", first) }
      }
    }
  }
  END { flush() }' "$log" 2>/dev/null)

sections=$(grep -E '^vg-section ' "$out" | awk '{print $2}')
passed=0
failed=0
for gw in $sections; do
  line=$(grep -E "^vg-section $gw " "$out" | head -n 1)
  verdict=$(awk '{print $3}' <<<"$line")
  nerr=$(awk -F'\t' -v g="$gw" '$1 == "error" && $2 == g' <<<"$blocks" | grep -c . )
  nleak=$(awk -F'\t' -v g="$gw" '$1 == "leak" && $2 == g' <<<"$blocks" | grep -c . )
  if [ "$verdict" = PASS ] && [ "$nerr" -eq 0 ] && [ "$nleak" -eq 0 ]; then
    echo "valgrind: $gw PASS (0 errors, 0 definite leaks)"
    passed=$((passed + 1))
  else
    echo "valgrind: $gw FAIL ($nerr errors, $nleak definite leaks in its code; section: ${line#vg-section $gw })"
    awk -F'\t' -v g="$gw" '$2 == g { printf "    %s: %s  [%s]\n", $1, $3, $4 }' <<<"$blocks" \
      | sort | uniq -c | head -n 20
    failed=$((failed + 1))
  fi
done

# the session: ran to the end (valgrind's exit status is 0, or 99 for errors counted above)
nmu=$(awk -F'\t' '$2 == "muonlab"' <<<"$blocks" | grep -c .)
why=""
if session_timed_out "$rc"; then
  why="timed out after $limit s"
elif [ "$rc" -ne 0 ] && [ "$rc" -ne 99 ]; then
  why="exit status $rc (a crash, or the script failed)"
elif ! grep -qE '^vg-done [0-9]+' "$out"; then
  why="the session did not reach its end"
elif [ -z "$sections" ]; then
  why="no section reported"
elif [ "$nmu" -gt 0 ]; then
  why="$nmu errors in muonlab code outside any gateway"
fi
if [ -z "$why" ]; then
  echo "valgrind: session PASS ($secs s, valgrind exit status $rc)"
  passed=$((passed + 1))
else
  echo "valgrind: session FAIL: $why ($secs s)"
  tail -n 20 "$out" | sed 's/^/    | /'
  failed=$((failed + 1))
fi

# errors with no muonlab frame: not ours; shown so that they get a named suppression
nother=$(awk -F'\t' '$2 == "-"' <<<"$blocks" | grep -c .)
if [ "$nother" -gt 0 ]; then
  echo "valgrind: note: $nother errors outside muonlab (not counted; suppress them by name in" \
       "tests/valgrind/muonlab.supp, see $log):"
  awk -F'\t' '$2 == "-" { printf "    %s: %s\n", $1, $3 }' <<<"$blocks" | sort | uniq -c | head -n 10
fi

echo "valgrind $passed $failed" >"$results"
echo "valgrind: $passed passed, $failed failed ($secs s; log $log)"
[ "$failed" -eq 0 ]
