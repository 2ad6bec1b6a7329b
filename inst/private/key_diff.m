## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} key_diff (@var{old}, @var{new})
## What differs between the key a state was made with, @var{old}, and this call's,
## @var{new} (scalar structs of the same kind, e.g. @code{zero_muon_step}'s: variant,
## world, shapes, stage, align_factor, order, form, local_ranks): @qcode{"its variant is
## 'zero12_allreduce', this call's 'layerwise_lpt'; its world is 2, this call's 4"}, for the
## message of a state that belongs to another call.  Fields one of them lacks are named as
## such; values are shown as text (@code{mat2str} for numbers, at most 40 characters).  Of
## two scalar structs (e.g. the loss scaler's settings) the first field that differs is
## named, as deep as it lies: @qcode{"its scaler's growth interval is 2000, this call's
## 100"}.
## @end deftypefn

function s = key_diff (old, new)
  if (! (isstruct (old) && isscalar (old)))
    s = "it holds no key";
    return;
  endif
  parts = {};
  f = union (fieldnames (old), fieldnames (new), "stable");
  for k = 1:numel (f)
    n = strrep (f{k}, "_", " ");
    if (! isfield (old, f{k}))
      parts{end+1} = sprintf ("it has no %s", n);
    elseif (! isfield (new, f{k}))
      parts{end+1} = sprintf ("it has a %s this call has not", n);
    elseif (! isequal (old.(f{k}), new.(f{k})))
      parts{end+1} = differ (n, old.(f{k}), new.(f{k}));
    endif
  endfor
  s = strjoin (parts, "; ");
endfunction

## how the values A (the state's) and B (this call's) of the field named N differ; of two
## scalar structs, the first of their fields that differs
function s = differ (n, a, b)
  if (isstruct (a) && isscalar (a) && isstruct (b) && isscalar (b))
    f = union (fieldnames (a), fieldnames (b), "stable");
    for k = 1:numel (f)
      m = sprintf ("%s's %s", n, strrep (f{k}, "_", " "));
      if (! isfield (b, f{k}))
        s = sprintf ("its %s has a %s this call's has not", n, strrep (f{k}, "_", " "));
        return;
      elseif (! isfield (a, f{k}))
        s = sprintf ("its %s has no %s", n, strrep (f{k}, "_", " "));
        return;
      elseif (! isequal (a.(f{k}), b.(f{k})))
        s = differ (m, a.(f{k}), b.(f{k}));
        return;
      endif
    endfor
  endif
  s = sprintf ("its %s is %s, this call's %s", n, text (a), text (b));
endfunction

function t = text (v)
  if (ischar (v))
    t = ["'" v "'"];
  elseif ((isnumeric (v) || islogical (v)) && ndims (v) == 2)
    t = mat2str (v);
  elseif (isstruct (v))
    t = "another struct";
  else
    t = class (v);
  endif
  if (numel (t) > 40)
    t = [t(1:37) "..."];
  endif
endfunction
