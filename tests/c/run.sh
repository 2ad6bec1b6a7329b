#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# run.sh RESULTS BINARY... - runs each C test binary and writes one line "c <passed> <failed>"
# to RESULTS, summed over all binaries.  Each binary prints "<name>: N passed, N failed"; a
# binary that crashes, leaks (ASan/LSan exit status) or exits non-zero without reporting a
# failure counts one extra failure, and so does one that prints no counts at all.  The layer
# name is MUON_LAYER when set (e.g. c-nodnnl for the build without oneDNN), else c.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 RESULTS_FILE TEST_BINARY..." >&2
  exit 2
fi
results=$1
shift
layer=${MUON_LAYER:-c}
passed=0
failed=0
for bin in "$@"; do
  name=$(basename "$bin")
  if [ ! -x "$bin" ]; then
    echo "$name: FAILED (not found or not executable)"
    failed=$((failed + 1))
    continue
  fi
  log=$(mktemp)
  "$bin" >"$log" 2>&1
  rc=$?
  # the binary's own summary line (the last one, in case it printed others)
  line=$(grep -E "^$name: [0-9]+ passed, [0-9]+ failed( \(.*\))?$" "$log" | tail -n 1)
  if [ -n "$line" ]; then
    p=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*$/\1/' <<<"$line")
    f=$(sed -E 's/.*: ([0-9]+) passed, ([0-9]+) failed.*$/\2/' <<<"$line")
  else
    p=0
    f=0
  fi
  if [ "$rc" -ne 0 ] || [ -z "$line" ] || [ "$f" -gt 0 ]; then
    cat "$log"                                   # everything, sanitizer reports included
    if [ -z "$line" ] || { [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; }; then
      if [ -n "$line" ]; then why="after reporting its counts"; else why="without reporting counts"; fi
      echo "$name: FAILED (exit status $rc $why)"
      f=$((f + 1))
    fi
  else
    echo "$line"
  fi
  rm -f "$log"
  passed=$((passed + p))
  failed=$((failed + f))
done
mkdir -p "$(dirname "$results")"
echo "$layer $passed $failed" >"$results"
echo "$layer: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
