## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn  {} {@var{opts} =} parse_options (@var{fname}, @var{key}, @var{args})
## @deftypefnx {} {@var{opts} =} parse_options (@var{fname}, @var{key}, @var{args}, @var{field}, @var{value})
## @deftypefnx {} {[@var{opts}, @var{rest}] =} parse_options (@dots{})
## The one option parser of muonlab's user functions: the NAME, VALUE pairs of the cell
## @var{args} against the option table of @var{key} (a user function's name, see
## @code{option_spec}, where the tables are and how to add an option).
##
## Names are case-insensitive.  @var{opts} starts as the table's default struct (each
## option's output field set to its default), with @var{field} set to @var{value} on top
## (a default known only at the call, such as the class of @var{G} for
## @qcode{"precision"}); each option given is then validated and converted by
## its kind, in the table's order whatever the order given (the first error wins; a name
## given twice: the last value wins), and stored in its field.  For the kinds enum, int,
## real, logical and string an empty value means the default; a sparse value is stored
## full (the C core reads full arrays).  @var{rest} holds, in the
## order given, the pairs the table passes through unchecked to another function's table
## (@code{muon_optimizer} hands the @code{muon_update} options to its per-parameter dry
## run).  Errors (muonlab:badArg) start with @var{fname}:
## @qcode{"@var{fname}: options must be NAME, VALUE pairs."},
## @qcode{"@var{fname}: option names must be strings."},
## @qcode{"@var{fname}: unknown option 'Foo'. Options: @dots{}."} (with what a torch,
## DeepSpeed or Dion user meant by the name, or the closest valid names: @code{unknown_name})
## and
## @qcode{"@var{fname}: NAME must be <what the table says>."} (for a misspelt name of a
## list: @qcode{"...; did you mean 'bf16'?"}).
##
## The tables are compiled once per session (persistent) and a call without options returns
## the cached default struct at once, so the cost outside the C core stays small
## (@code{make bench}, table (0)).
## @end deftypefn

function [o, rest] = parse_options (fname, key, args, field, value)
  persistent D C;                       # default structs, compiled tables, by key
  rest = {};
  if (isempty (args))                   # the fast path: nothing given
    try
      o = D.(key);
      if (nargin > 3)
        o.(field) = value;
      endif
      return;
    catch                               # the first call for key, or required options
    end_try_catch
  endif
  try
    S = C.(key);
  catch
    S = option_spec (key);
    C.(key) = S;
    if (isempty (S.required))
      D.(key) = S.defaults;
    endif
  end_try_catch
  o = S.defaults;
  if (nargin > 3)
    o.(field) = value;
  endif
  n = numel (args);
  if (n == 0)
    missing (fname, S, o);
    return;
  endif
  if (mod (n, 2) != 0)
    error ("muonlab:badArg", "%s: options must be NAME, VALUE pairs.", fname);
  endif

  ## each name's row: one lookup of every name in the sorted lower-case names
  names = args(1:2:n);
  if (! iscellstr (names) || any (cellfun ("size", names, 1) != 1))
    error ("muonlab:badArg", "%s: option names must be strings.", fname);
  endif
  k = lookup (S.sorted, lower (names), "m");
  if (! all (k))                        # what was meant, and the valid names
    bad = find (! k, 1);
    error ("muonlab:badArg", "%s", unknown_name (fname, S.unknown, names{bad},
                                                 unique (S.names, "stable"), args{2*bad}));
  endif
  k = S.row(k);
  q = 1:numel (k);                      # the pairs of this table's rows; the rest pass on
  own = k <= S.nown;
  if (! all (own))
    rest = args(reshape ([2*q(! own) - 1; 2*q(! own)], 1, []));
    q = q(own);
    k = k(own);
  endif

  ## validate and store, in table order (sort is stable: a repeated name's last value wins)
  [k, p] = sort (k);
  vpos = 2 * q(p);
  for i = 1:numel (k)
    j = k(i);
    v = args{vpos(i)};
    switch (S.kind(j))
      case 1                            # enum: a name of the list a, any case
        if (isempty (v))
          continue;
        endif
        m = [];
        if (ischar (v) && isrow (v))
          a = S.arg{j};
          m = find (strcmpi (v, a), 1);
        endif
        ok = ! isempty (m);
        if (ok)
          v = a{m};
        endif
      case 2                            # int: an integer in [a(1), a(2)]
        if (isempty (v))
          continue;
        endif
        a = S.arg{j};
        ok = (isnumeric (v) && isscalar (v) && isreal (v) && isfinite (v) && v == fix (v)
              && v >= a(1) && v <= a(2));
        if (ok)
          v = double (v);
        endif
      case 3                            # real: a finite scalar in the interval a
        if (isempty (v))
          continue;
        endif
        a = S.arg{j};
        ok = (isnumeric (v) && isscalar (v) && isreal (v) && isfinite (v)
              && (v > a(1) || (v == a(1) && ! a(3)))
              && (v < a(2) || (v == a(2) && ! a(4))));
        if (ok)
          v = double (v);
        endif
      case 4                            # logical: true / false (or 1 / 0)
        if (isempty (v))
          continue;
        endif
        ok = isscalar (v) && (islogical (v) || (isnumeric (v) && (v == 0 || v == 1)));
        if (ok)
          v = logical (v);
        endif
      case 5                            # string: a character row
        if (isempty (v))
          continue;
        endif
        ok = ischar (v) && isrow (v);
      case 6                            # intvec: at most a(2) integers >= a(1), [] for none
        a = S.arg{j};
        ok = (isnumeric (v) && isreal (v) && (isempty (v) || isvector (v))
              && numel (v) <= a(2) && all (isfinite (v(:)))
              && all (v(:) >= a(1) & v(:) == fix (v(:))));
        if (ok)
          v = double (v(:).');
        endif
      case 7                            # custom: [v, ok] = a (fname, v)
        [v, ok] = S.arg{j} (fname, v);
      otherwise                         # any: the caller checks it
        ok = true;
    endswitch
    if (! ok)
      hint = "";
      if (S.kind(j) == 1)               # a misspelt name of the list: the closest
        m = suggest (v, S.arg{j});
        if (! isempty (m))
          hint = sprintf ("; did you mean %s?", quoted_list (m, "or"));
        endif
      endif
      error ("muonlab:badArg", "%s: %s must be %s%s", fname, S.label{j}, S.what{j},
             merge (isempty (hint), ".", hint));
    endif
    if (issparse (v))                   # a sparse number or vector: taken as full
      v = full (v);
    endif
    o.(S.field{j}) = v;
  endfor
  if (! isempty (S.required))
    missing (fname, S, o);
  endif
endfunction

## A required option left out (or given as []): the error its kind raises for a bad value.
function missing (fname, S, o)
  for j = S.required
    if (isequal (o.(S.field{j}), S.REQUIRED))
      error ("muonlab:badArg", "%s: %s must be %s.", fname, S.label{j}, S.what{j});
    endif
  endfor
endfunction
