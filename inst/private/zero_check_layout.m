## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {[@var{W}, @var{shapes}, @var{S}] =} zero_check_layout (@var{fname}, @var{L})
## @deftypefnx {} {[@var{W}, @var{shapes}, @var{S}] =} zero_check_layout (@var{fname}, @var{L}, "light")
## Check that @var{L} is a layout from @code{zero_layout} (a @code{zero_layout_result}, or
## the struct of one; else a @code{muonlab:badType} error naming @var{fname}) and return its
## world, its P x 2 @code{[rows cols]} and its plain struct @var{S}.  The one check of a
## layout for every zero_* function.
##
## @qcode{"light"} (@code{zero_muon_step}, which runs in a loop): the fields a step reads
## only, their types and the shapes.
## Every field is checked: the layout is made again by @code{zero_layout} from its shapes
## and options (@code{world}, @code{stage}, @code{align_factor}, @code{order_mode}) and
## must equal @var{L}, so a hand-edited field is an error that names it, e.g.
## @qcode{"zero_save_state: L must be a layout from zero_layout (L.params(2).offset
## differs)."}  This costs what @code{zero_layout} costs.
## @end deftypefn

function [W, shapes, L] = zero_check_layout (fname, L, light)
  L = layout_plain (L);                 # (also one made before `clear functions`)
  light = nargin > 2;
  cnt = @(x) isnumeric (x) && isreal (x) && isscalar (x) && x >= 1 && x == fix (x);
  need = {"world", "stage", "align_factor", "order_mode", "params"};
  if (! light)
    need = [need, {"ranks", "partition_size"}];
  endif
  if (! (isstruct (L) && isscalar (L) && all (isfield (L, need))
         && cnt (L.world) && cnt (L.stage) && cnt (L.align_factor) && ischar (L.order_mode)
         && isstruct (L.params) && ! isempty (L.params)
         && all (isfield (L.params, {"rows", "cols"}))
         && (light || isfield (L.params, "owners"))
         && all (arrayfun (@(q) cnt (q.rows) && cnt (q.cols), L.params(:)))))
    error ("muonlab:badType", "%s: L must be a layout from zero_layout.", fname);
  endif
  W = L.world;
  shapes = [[L.params.rows]; [L.params.cols]].';
  if (light)
    return;
  endif
  try
    L2 = zero_layout (shapes, W, "Stage", L.stage, "AlignFactor", L.align_factor,
                      "Order", L.order_mode);
  catch err
    msg = regexprep (err.message, '^zero_layout: |\.$', "");
    map = {"STAGE", "L.stage"; "ALIGNFACTOR", "L.align_factor"; "ORDER", "L.order_mode";
           "WORLD", "L.world"; "SHAPES", "L.params"};
    k = find (strncmp (msg, map(:,1), cellfun ("length", map(:,1))), 1);
    if (! isempty (k))
      msg = [map{k,2} ": " msg];
    endif
    error ("muonlab:badType", "%s: L must be a layout from zero_layout (%s).", fname, msg);
  end_try_catch
  L2 = struct (L2);
  L2.names = {};                        # the names and blocks are the model's, not the
  cmp = L;                              # layout's
  cmp.names = {};
  if (isfield (cmp, "blocks"))
    check_blocks (fname, cmp.blocks, rows (shapes));
  endif
  cmp.blocks = [];                      # (a layout saved before blocks existed has none:
  if (isempty (setxor (fieldnames (cmp), fieldnames (L2))))   # put it where L2 has it)
    cmp = orderfields (cmp, fieldnames (L2));
  endif
  if (! same (cmp, L2))
    error ("muonlab:badType", "%s: L must be a layout from zero_layout (%s differs).", fname,
           first_diff (cmp, L2, "L"));
  endif
endfunction

## A model layout's blocks: [] or experts (P x 1) and split (P x 1 cell).
function check_blocks (fname, b, P)
  if (! (isempty (b) && isnumeric (b)
         || (isstruct (b) && isscalar (b) && isfield (b, "experts") && isfield (b, "split")
             && isnumeric (b.experts) && numel (b.experts) == P && iscell (b.split)
             && numel (b.split) == P)))
    error ("muonlab:badType", "%s: L must be a layout from zero_layout (L.blocks differs).",
           fname);
  endif
endfunction

## isequal for structs, a field at a time over a whole struct array (nested ones joined):
## isequal walks a struct array element by element, seconds for a layout of 192 matrices
## on 64 ranks; this takes milliseconds.  False may also mean "could not tell quickly".
function tf = same (a, b)
  tf = false;
  if (! (isstruct (a) && isequal (size (a), size (b))
         && isequal (fieldnames (a), fieldnames (b))))
    return;
  endif
  for f = fieldnames (b).'
    ca = {a.(f{1})};
    cb = {b.(f{1})};
    if (all (cellfun ("isclass", cb, "struct")))
      if (! (all (cellfun ("isclass", ca, "struct"))
             && isequal (cellfun ("numel", ca), cellfun ("numel", cb))
             && same (joined (ca), joined (cb))))
        return;
      endif
    elseif (! (isequal (cellfun ("ndims", ca), cellfun ("ndims", cb))
               && isequal (cellfun ("size", ca, 1), cellfun ("size", cb, 1))
               && isequal (cellfun ("size", ca, 2), cellfun ("size", cb, 2))
               && same_class (ca, cb)
               && isequal (joined (ca), joined (cb))))
      return;                           # (equal sizes: equal pieces iff equal joins)
    endif
  endfor
  tf = true;
endfunction

## The same class element by element (one test a cell when B's are all of one class).
function tf = same_class (ca, cb)
  cls = class (cb{1});
  if (all (cellfun ("isclass", cb, cls)))
    tf = all (cellfun ("isclass", ca, cls));
  else
    tf = isequal (cellfun (@class, ca, "UniformOutput", false),
                  cellfun (@class, cb, "UniformOutput", false));
  endif
endfunction

## The arrays of cell C joined into one (side by side, else one below the other); [] and a
## mark of failure ({}) when neither works.
function x = joined (c)
  try
    x = [c{:}];
  catch
    try
      x = vertcat (c{:});
    catch
      x = {c};                          # compared whole by isequal (slow, rare)
    end_try_catch
  end_try_catch
endfunction

## The path of the first field where A differs from B.
function where = first_diff (a, b, where)
  if (isstruct (a) && isstruct (b) && ! isequal (fieldnames (a), fieldnames (b)))
    f = [setdiff(fieldnames (a), fieldnames (b)); setdiff(fieldnames (b), fieldnames (a))];
    if (! isempty (f))
      where = sprintf ("the field set of %s (%s)", where, f{1});
    endif
  elseif (isstruct (a) && isstruct (b) && isequal (size (a), size (b)))
    f = fieldnames (b);
    for i = 1:numel (b)
      for j = 1:numel (f)
        if (! isequal (a(i).(f{j}), b(i).(f{j})))
          if (isscalar (b))
            w = sprintf ("%s.%s", where, f{j});
          else
            w = sprintf ("%s(%d).%s", where, i, f{j});
          endif
          where = first_diff (a(i).(f{j}), b(i).(f{j}), w);
          return;
        endif
      endfor
    endfor
  endif
endfunction
