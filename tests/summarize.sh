#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# summarize.sh RESULTS_DIR [LAYER...] - sums the per-layer result files of `make check`.
# Every file in RESULTS_DIR holds lines "<layer> <passed> <failed>".  Prints one line per
# layer, then as its last line "N passed, N failed" (the totals).  Exits 1 if anything failed
# or if no test ran at all, else 0.  Optional LAYER names are layers that must have reported:
# a missing one counts as one failure; they are printed first, in that order.  A malformed
# line counts as one failure too.
set -u
if [ $# -lt 1 ]; then
  echo "usage: $0 RESULTS_DIR [LAYER...]" >&2
  exit 2
fi
dir=$1
shift
declare -A lp lf
order=()
extra=0
add () {  # layer passed failed
  if [ -z "${lp[$1]+x}" ]; then order+=("$1"); lp[$1]=0; lf[$1]=0; fi
  lp[$1]=$(( ${lp[$1]} + $2 ))
  lf[$1]=$(( ${lf[$1]} + $3 ))
}
if [ -d "$dir" ]; then
  for f in "$dir"/*; do
    [ -f "$f" ] || continue
    while IFS= read -r line || [ -n "$line" ]; do
      [[ "$line" =~ ^[[:space:]]*$ ]] && continue
      if [[ "$line" =~ ^[[:space:]]*([A-Za-z0-9_.-]+)[[:space:]]+([0-9]+)[[:space:]]+([0-9]+)[[:space:]]*$ ]]; then
        add "${BASH_REMATCH[1]}" "$((10#${BASH_REMATCH[2]}))" "$((10#${BASH_REMATCH[3]}))"
      else
        echo "summarize: malformed line in $(basename "$f"): $line" >&2
        extra=$((extra + 1))
      fi
    done <"$f"
  done
else
  echo "summarize: no results directory $dir" >&2
fi
for want in "$@"; do
  if [ -z "${lp[$want]+x}" ]; then
    echo "summarize: layer $want did not report" >&2
    add "$want" 0 1
  fi
done
shown=("$@")
for l in "${order[@]}"; do
  [[ " $* " == *" $l "* ]] || shown+=("$l")
done
tp=0
tf=$extra
for l in "${shown[@]}"; do
  printf '%-14s %d passed, %d failed\n' "$l:" "${lp[$l]}" "${lf[$l]}"
  tp=$((tp + ${lp[$l]}))
  tf=$((tf + ${lf[$l]}))
done
[ "$extra" -gt 0 ] && printf '%-14s %d passed, %d failed\n' "bad:" 0 "$extra"
echo "$tp passed, $tf failed"
[ "$tf" -eq 0 ] && [ $((tp + tf)) -gt 0 ]
