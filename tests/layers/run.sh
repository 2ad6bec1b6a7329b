#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# usage: tests/layers/run.sh RESULTS_FILE CORE_DIR [OBJECT.o ...]
#
# The layers layer of `make check` (make check-layers).  Runs tests/layers/check_layers.sh on
# CORE_DIR with the objects named (the layer rules of DESIGN.md 2 on the real tree: includes,
# include cycles, calls between the objects), then proves that the checker fails where it
# must, on copies of CORE_DIR each with one fault planted: an upward include, a sideways one
# into gpu/, an upward public header (among them a layer's second header, the catalogue of
# lists and the umbrella muon.h, which only the top layer, lists/, may include), a public
# header of no layer, a forbidden header reached through a plug-in's ABI
# header, an include cycle, a file outside the layer folders, and on small objects an upward
# call and a call cycle (and passes a clean pair).  Prints one line per check, writes
# "<layer> <passed> <failed>" to RESULTS_FILE (layer: MUON_LAYER, else layers) and exits 1 on
# any failure.
set -u
if [[ $# -lt 2 ]]; then
  echo "usage: $0 RESULTS_FILE CORE_DIR [OBJECT.o ...]" >&2
  exit 2
fi
results=$1
core=${2%/}
shift 2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
checker=$here/check_layers.sh
layer=${MUON_LAYER:-layers}
CC=${CC:-cc}
passed=0
failed=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/muon-layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

report () {  # ok what [output]
  if [[ $1 == 1 ]]; then
    echo "layers: PASS $2"
    passed=$((passed + 1))
  else
    echo "layers: FAIL $2"
    [[ -n ${3:-} ]] && sed 's/^/    /' <<<"$3"
    failed=$((failed + 1))
  fi
}

# 1. the tree itself
out=$("$checker" "$core" "$@" 2>&1)
rc=$?
echo "$out" | sed 's/^/  /'
report $((rc == 0)) "the layer rules hold in $core ($# objects)" "$out"

# 2. planted faults: a fresh copy of the tree, one change, the checker must fail and say so
plant () {  # what expected-text file text
  rm -rf "$tmp/core" && cp -r "$core" "$tmp/core"
  mkdir -p "$(dirname "$tmp/core/$3")"
  printf '%b\n' "$4" >> "$tmp/core/$3"
  out=$("$checker" "$tmp/core" 2>&1)
  rc=$?
  report $((rc == 1 && $(grep -cF -- "$2" <<<"$out") > 0)) "fails on $1" "$out"
}
plant "an upward include (base/ctx.c includes gemm.h)" \
      "base/ctx.c:" base/ctx.c '#include "gemm.h"'
plant "a sideways include (gpu/ns_cuda.cu includes ns_impl.h)" \
      "sideways" gpu/ns_cuda.cu '#include "ns_impl.h"'
plant "an upward public header (math/ns.c includes muon_zero.h)" \
      "math/ns.c:" math/ns.c '#include "muon_zero.h"'
plant "an upward second header of a layer (comm/comm.c includes muon_zero_cost.h)" \
      "comm/comm.c:" comm/comm.c '#include "muon_zero_cost.h"'
plant "a public header of no layer (include/muon_extra.h)" \
      "include/muon_extra.h: include/ holds" include/muon_extra.h '/* extra */'
plant "an include of the catalogue below it (zero/zero_plan.c includes muon_lists.h)" \
      "zero/zero_plan.c:" zero/zero_plan.c '#include "muon_lists.h"'
plant "the umbrella below the top (comm/comm.c includes muon.h)" \
      "comm/comm.c:" comm/comm.c '#include "muon.h"'
plant "a public header including a layer's (include/muon_base.h includes muon_internal.h)" \
      "include/muon_base.h:" include/muon_base.h '#include "muon_internal.h"'
plant "what a plug-in ABI header brings in (comm_nccl_abi.h includes muon_zero.h)" \
      "comm/comm_nccl.c: reaches include/muon_zero.h" gpu/comm_nccl_abi.h '#include "muon_zero.h"'
rm -rf "$tmp/core" && cp -r "$core" "$tmp/core"
printf '#include "cyc_b.h"\n' > "$tmp/core/math/cyc_a.h"
printf '#include "cyc_a.h"\n' > "$tmp/core/math/cyc_b.h"
out=$("$checker" "$tmp/core" 2>&1)
report $(($? == 1 && $(grep -c 'include cycle' <<<"$out") > 0)) "fails on an include cycle" "$out"
plant "a file outside the layer folders (core/stray.c)" \
      "stray.c: outside" stray.c '/* stray */'

# 3. calls, on objects of a small tree: an upward call, a call cycle, and a clean pair
mkdir -p "$tmp/calls/base" "$tmp/calls/math" "$tmp/calls/zero" "$tmp/obj"
printf 'int t_top (void);\nint t_low (void) { return t_top (); }\n' > "$tmp/calls/base/t_low.c"
printf 'int t_top (void) { return 1; }\n' > "$tmp/calls/zero/t_top.c"
printf 'int t_b (int);\nint t_a (int n) { return n ? t_b (n - 1) : 0; }\n' > "$tmp/calls/math/t_a.c"
printf 'int t_a (int);\nint t_b (int n) { return n ? t_a (n - 1) : 1; }\n' > "$tmp/calls/math/t_b.c"
printf 'int t_low (void);\nint t_up (void) { return t_low (); }\n' > "$tmp/calls/math/t_up.c"
for f in base/t_low zero/t_top math/t_a math/t_b math/t_up; do
  "$CC" -c "$tmp/calls/$f.c" -o "$tmp/obj/$(basename "$f").o" || report 0 "compiling $f.c"
done
o=$tmp/obj
out=$("$checker" "$tmp/calls" "$o/t_low.o" "$o/t_top.o" 2>&1)
report $(($? == 1 && $(grep -c 'base/t_low.o calls t_top' <<<"$out") > 0)) "fails on an upward call (base calls zero)" "$out"
out=$("$checker" "$tmp/calls" "$o/t_a.o" "$o/t_b.o" 2>&1)
report $(($? == 1 && $(grep -c 'call cycle' <<<"$out") > 0)) "fails on a call cycle (math/t_a.c <-> math/t_b.c)" "$out"
out=$("$checker" "$tmp/calls" "$o/t_up.o" "$o/t_low.o" 2>&1)
report $(($? == 0 && $(grep -c 'with 1 calls' <<<"$out") == 1)) "passes a downward call (math calls base)" "$out"

mkdir -p "$(dirname "$results")"
echo "$layer $passed $failed" > "$results"
echo "$layer: $passed passed, $failed failed"
[[ $failed -eq 0 ]]
