# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# session.sh - sourced by the layers of `make check` that run one octave-cli session under a
# time limit and keep its output in a folder (tests/fuzz/run.sh, tests/valgrind/run.sh):
#
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/../session.sh"
#   session_args OUTDIR build/fuzz "$@"    # results=$1, dir=${2:-build/fuzz} (made, absolute)
#   ... run the session, rc=$? ...
#   session_timed_out "$rc" && why="timed out after $limit s"

# session_args DIRNAME DEFAULT_DIR "$@": the runner's arguments RESULTS_FILE [DIRNAME].
session_args () {
  local name=$1 dflt=$2
  shift 2
  if [ $# -lt 1 ]; then
    echo "usage: $0 RESULTS_FILE [$name]" >&2
    exit 2
  fi
  results=$1
  dir=${2:-$dflt}
  mkdir -p "$dir" "$(dirname "$results")"
  dir=$(cd "$dir" && pwd)
}

# session_timed_out RC: true when timeout(1) ended the session (124, or 137 after -k).
session_timed_out () {
  [ "$1" -eq 124 ] || [ "$1" -eq 137 ]
}
