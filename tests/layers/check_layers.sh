#!/usr/bin/env bash
# Copyright (C) 2026 muonlab developers
# SPDX-License-Identifier: GPL-3.0-or-later

# usage: tests/layers/check_layers.sh CORE_DIR [OBJECT.o ...]
#
# Checks the layer rules of DESIGN.md 2 on the tree CORE_DIR (core/ or a copy of it) and
# prints one line per violation; exits 1 when there is any, 0 when there is none.
#
#   Folders.  Every .c/.h/.cu/.cuh file sits in include/, gpu/ or a layer folder; the layers,
#   bottom to top: base < gemm < math < comm < zero < lists (gemm sits below math: ns.c calls
#   the product providers, never the other way; lists, the catalogue of every layer's lists
#   and limits, sits on top because it names them all, and nothing in core calls it).  include/ holds muon.h and one muon_<layer>.h
#   per layer, and a layer's further public headers muon_<layer>_<part>.h (muon_zero_cost.h:
#   the zero layer's cost model), each of its layer.  Header names are unique, since files
#   include them by name.
#   Includes.  A file of a layer includes its own folder, the layers below, and of include/
#   the headers of its own layer and those below (muon.h, the umbrella, only from the top);
#   a header of include/ includes only include/ headers of its layer or below; gpu/ (the
#   plug-ins' sources) includes include/, base/, gpu/ and of math/ only the headers shared
#   with the CUDA code (SHARED_MATH).  A plug-in's ABI header (gpu/*_abi.h) may be included
#   by any layer: it is the contract its host side loads through.  Every rule holds for
#   what a file reaches through its includes too, and no file reaches itself (a cycle).
#   Calls (with objects).  For the objects named (libmuon.a's members, the MPI object: each
#   belongs to the layer of the core source with its name), a symbol an object uses must be
#   defined in its own layer or one below (nm), and no object calls around a cycle.
set -u
SHARED_MATH="muon_precision.h muon_update_math.h muon_darray_math.h ns_shared.h"
LAYERS="base gemm math comm zero lists"

if [[ $# -lt 1 || ! -d $1 ]]; then
  echo "usage: $0 CORE_DIR [OBJECT.o ...]" >&2
  exit 2
fi
core=${1%/}
shift
tmp=$(mktemp -d "${TMPDIR:-/tmp}/check_layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# files: "path-below-core"
(cd "$core" && find . -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) \
   | sed 's|^\./||' | LC_ALL=C sort) > "$tmp/files"
# includes: "file<TAB>line<TAB>name" for every quoted #include (system headers are <...>)
while IFS= read -r f; do
  grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$core/$f" \
    | sed -E 's/^([0-9]+):[^"]*"([^"]*)".*/\1\t\2/' | sed "s|^|$f\t|"
done < "$tmp/files" > "$tmp/includes"
# symbols: "object<TAB>D|U<TAB>symbol" (object named by its source: folder/stem)
: > "$tmp/symbols"
for o in "$@"; do
  stem=$(basename "$o" .o)
  src=$(grep -E "(^|/)$stem\.(c|cu)$" "$tmp/files" | head -n 1)
  if [[ -z $src ]]; then
    echo "check-layers: object $o has no source in $core" >&2
    echo "$o	X	-" >> "$tmp/symbols"
    continue
  fi
  nm -P "$o" 2>/dev/null | awk -v obj="${src%.*}.o" '
    $2 == "U" { print obj "\tU\t" $1; next }
    $2 ~ /^[A-TV-Z]$/ { print obj "\tD\t" $1 }' >> "$tmp/symbols"
done

awk -F '\t' -v layers="$LAYERS" -v shared="$SHARED_MATH" -v nobj="$#" '
function folder (p) { return index (p, "/") ? substr (p, 1, index (p, "/") - 1) : "" }
function base (p,   n) { n = split (p, a_, "/"); return a_[n] }
function bad (msg) { print "check-layers: " msg; violations++ }
# rank of a layer folder (0: not a layer)
function lrank (f) { return (f in rank) ? rank[f] : 0 }
# the layer a header of include/ belongs to (muon.h: the top; muon_<layer>.h and
# muon_<layer>_<part>.h: that layer); 0 for a stray name
function pubrank (h,   n) {
  if (h == "include/muon.h") return top
  n = base (h)
  if (n !~ /^muon_[a-z0-9]+(_[a-z0-9]+)*\.h$/) return 0
  sub (/^muon_/, "", n); sub (/\.h$/, "", n); sub (/_.*$/, "", n)
  return lrank (n)
}
# may file f include (or reach) header h?
function allowed (f, h,   ff, hf, r) {
  ff = folder (f); hf = folder (h)
  if (ff == "gpu")
    return hf == "include" || hf == "base" || hf == "gpu" || (hf == "math" && (base (h) in share))
  if (ff == "include")
    return hf == "include" && pubrank (h) <= pubrank (f)
  r = lrank (ff)
  if (hf == "include") return pubrank (h) <= r && (h != "include/muon.h" || r == top)
  if (hf == "gpu") return base (h) ~ /_abi\.h$/
  return lrank (hf) >= 1 && lrank (hf) <= r
}
# why f may not include h (allowed (f, h) is false)
function why (f, h,   ff, hf) {
  ff = folder (f); hf = folder (h)
  if (ff == "gpu") return "sideways: gpu/ sees include/, base/, gpu/ and the shared maths headers"
  if (ff == "include" && hf != "include") return "a public header includes a layer header"
  if (hf == "gpu") return "sideways: gpu/ is a plug-in; only its *_abi.h are for its hosts"
  if (h == "include/muon.h") return "upward: the umbrella muon.h declares every layer"
  if (hf == "include") return "upward: " h " belongs to " L[pubrank(h)] ", above " (ff == "include" ? L[pubrank(f)] : ff)
  return "upward: " hf "/ is above " ff "/"
}
# depth-first walk from f: a cycle is reported once, at the edge that closes it
function walk (f,   k, h, i, path) {
  state[f] = 1; stack[++depth] = f
  for (k = 1; k <= nout[f]; k++)
  {
    h = out[f, k]
    if (state[h] == 1)
    {
      path = h
      for (i = depth; i >= 1 && stack[i] != h; i--) path = stack[i] " -> " path
      path = h " -> " path
      if (!(path in seen_cycle)) { seen_cycle[path] = 1; bad (kind " cycle: " path) }
    }
    else if (state[h] == 0)
      walk (h)
  }
  depth--; state[f] = 2
}
# the headers f reaches through includes that are allowed one by one (into reach[f, *]: the
# header that includes it), so that only what a legal chain brings in is reported again
function closure (f, h,   k, g) {
  for (k = 1; k <= nout[h]; k++)
  {
    g = out[h, k]
    if (!((h, g) in badedge) && !((f, g) in reach)) { reach[f, g] = h; closure (f, g) }
  }
}
BEGIN {
  nl = split (layers, L, " "); for (i = 1; i <= nl; i++) rank[L[i]] = i; top = nl
  split (shared, S, " "); for (i in S) share[S[i]] = 1
}
FILENAME ~ /files$/ {
  nfiles++; file[$1] = 1; fd = folder ($1)
  if (fd != "include" && fd != "gpu" && !lrank (fd))
    bad ($1 ": outside the layer folders (include, " layers ", gpu)")
  if (fd == "include" && !pubrank ($1))
    bad ($1 ": include/ holds muon.h and per layer muon_<layer>.h and muon_<layer>_<part>.h only")
  if ($1 ~ /\.(h|cuh)$/)
  {
    b = base ($1)
    if (b in header) bad ($1 ": a second header named " b " (also " header[b] ")")
    else header[b] = $1
  }
  next
}
FILENAME ~ /includes$/ {
  nincs++
  f = $1; name = $3
  h = (index (name, "/") && ((name) in file)) ? name : header[base (name)]
  if (h == "") { bad (f ":" $2 ": includes \"" name "\", no header of " "core/"); next }
  if (!allowed (f, h))
  {
    bad (f ":" $2 ": includes " h " (" why (f, h) ")")
    badedge[f, h] = 1
  }
  direct[f, h] = 1
  if (!((f, h) in edge)) { edge[f, h] = 1; out[f, ++nout[f]] = h }
  next
}
FILENAME ~ /symbols$/ {
  if ($2 == "X") { bad ("object " $1 ": no core source of that name"); next }
  obj[$1] = 1
  if ($2 == "D") { if (!($3 in def)) def[$3] = $1 }
  else use[++nuse] = $1 SUBSEP $3
  next
}
END {
  # includes: what each file reaches, then cycles
  for (f in file) closure (f, f)
  for (key in reach)
  {
    split (key, p_, SUBSEP)
    if (!((p_[1], p_[2]) in direct) && !allowed (p_[1], p_[2]))
      bad (p_[1] ": reaches " p_[2] " through " reach[key] " (" why(p_[1], p_[2]) ")")
  }
  kind = "include"
  for (f in file) if (state[f] == 0) walk (f)
  # calls
  for (k = 1; k <= nuse; k++)
  {
    split (use[k], p_, SUBSEP); o = p_[1]; s = p_[2]
    if (!(s in def) || def[s] == o) continue
    d = def[s]
    if (!((o, d) in cedge))
    {
      cedge[o, d] = 1; cout[o, ++ncout[o]] = d; ncalls++
      if (lrank (folder (d)) > lrank (folder (o)))
        bad (o " calls " s " of " d " (upward: " folder (d) "/ is above " folder (o) "/)")
    }
  }
  delete state; delete out; delete nout; depth = 0
  for (key in cedge) { split (key, p_, SUBSEP); out[p_[1], ++nout[p_[1]]] = p_[2] }
  kind = "call"
  for (o in obj) if (state[o] == 0) walk (o)
  objs = nobj > 0 ? sprintf (", %d objects with %d calls between them", nobj, ncalls) : ""
  verdict = violations ? violations " violation" (violations > 1 ? "s" : "") : "the layer rules hold"
  printf "check-layers: %d files, %d includes%s: %s\n", nfiles, nincs, objs, verdict
  exit (violations > 0)
}' "$tmp/files" "$tmp/includes" "$tmp/symbols"
