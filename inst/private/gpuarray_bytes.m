## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{t} =} gpuarray_bytes (@var{sz}, @var{storage})
## The bytes of a device array of size @var{sz} and storage class @var{storage}
## (@qcode{"double"}, @qcode{"single"}, @qcode{"bf16"}, @qcode{"fp16"}) as text in binary
## units, e.g. @qcode{"32 B"} or @qcode{"1.5 MiB"}: what @code{disp} of a
## @code{muon_gpuarray} shows.
## @end deftypefn

function t = gpuarray_bytes (sz, storage)
  t = bytes_text (prod (sz) * elem_bytes (storage));
endfunction

## The bytes of one element of each storage class.  The names are the core's precisions
## (core_lists); the catalogue has no element sizes, so they are given here, and the table
## must name exactly the catalogue's precisions (checked once per session).
function n = elem_bytes (storage)
  persistent B;
  if (isempty (B))
    T = struct ("double", 8, "single", 4, "bf16", 2, "fp16", 2);
    if (! isequal (sort (fieldnames (T)), sort (core_lists ().lists.precision(:))))
      error ("muonlab:internal",
             "muon_gpuarray: the element sizes name %s, the core's precisions %s.",
             strjoin (sort (fieldnames (T)).', ", "),
             strjoin (sort (core_lists ().lists.precision), ", "));
    endif
    B = T;
  endif
  n = B.(storage);
endfunction

function t = bytes_text (b)
  units = {"B", "KiB", "MiB", "GiB", "TiB"};
  k = min (max (floor (log2 (max (b, 1)) / 10), 0), numel (units) - 1);
  t = sprintf ("%.4g %s", b / 1024^k, units{k+1});
endfunction
