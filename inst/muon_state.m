## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

classdef muon_state < muon_result
  ## -*- texinfo -*-
  ## @deftypefn  {muonlab} {@var{S} =} struct (@var{state})
  ## @deftypefnx {muonlab} {@var{state} =} muon_state (@var{kind}, @var{S})
  ## The state an optimizer hands back for its next call: @code{muon_update}'s state
  ## (@var{kind} @qcode{"update"}), the optimizer of @code{muon_optimizer} and
  ## @code{muon_step} (@qcode{"optimizer"}), @code{zero_muon_step}'s state
  ## (@qcode{"zero_step"}) and @code{zero_train_step}'s (@qcode{"zero_train"}).  It holds
  ## the momentum buffers of every parameter, so typed at the prompt it shows a summary of
  ## a few lines instead of every element: its kind, step and what it holds, and its field
  ## names.
  ##
  ## Otherwise it is the struct it wraps: fields read and change as in a struct, nested too
  ## (@code{opt.muon_lr = 0.01}, @code{opt.muon.W.momentum}, @code{st.step},
  ## @code{setfield}, @code{isfield}, @code{fieldnames}, @code{rmfield}), and every function
  ## takes either the state or @code{struct (@var{state})}, the plain struct (for
  ## @code{save}, @code{jsonencode}, or @code{assert} in a test).  The checks a function
  ## makes of a state it is given are those of the plain struct.  One difference: Octave 7
  ## hands an overloaded index one output where a comma list goes, so an index of several
  ## values inside braces or an argument list (@code{@{opt.update_args.W@{:@}@}}) is a
  ## @code{muonlab:unsupported} error, not its first value; take the field first
  ## (@code{a = opt.update_args.W; @{a@{:@}@}}).  @code{[a, b] = opt.f@{1:2@}} works.
  ##
  ## After @code{clear functions} (or @code{clear classes}), Octave 7 reloads the class: a
  ## state made before still reads, writes, shows and steps, but @code{struct (@var{state})}
  ## is then Octave's own, whose fields are @code{kind} and @code{s} (the plain struct is
  ## @code{struct (@var{state}).s}).  The results of the other functions
  ## (@code{muon_result}) made before no longer index at all: make them again.
  ##
  ## @example
  ## [U, st] = muon_update (randn (64, 32), []);
  ## st              # a few lines: the kind, the step, the momentum's size
  ## st.step
  ## @end example
  ## @seealso{muon_update, muon_optimizer, zero_muon_step, zero_train_step, muon_result}
  ## @end deftypefn

  properties (Access = private)
    kind = "";
    s = struct ();
  endproperties

  methods
    function st = muon_state (kind, S)
      if (nargin != 2)
        error ("muonlab:badArg", "muon_state: give KIND and S.");
      elseif (! any (strcmp (kind, {"update", "optimizer", "zero_step", "zero_train"})))
        error ("muonlab:badArg",
               "muon_state: KIND must be 'update', 'optimizer', 'zero_step' or 'zero_train'.");
      elseif (! (isstruct (S) && isscalar (S)))
        error ("muonlab:badArg", "muon_state: S must be a scalar struct.");
      endif
      st.kind = kind;
      st.s = S;
    endfunction

    function S = struct (st, varargin)
      if (nargin > 1)                    # struct ("a", st, ...): Octave's, st a value
        S = builtin ("struct", st, varargin{:});
        return;
      endif
      S = state_wrapped (st);
    endfunction

    function varargout = subsref (st, idx)
      S = state_wrapped (st);
      if (nargout <= 1)
        n = comma_list_length (S, idx);
        if (n > 1)
          ## Octave 7 asks an overloaded subsref for one value where a comma list goes
          ## ({st.f{:}}, f (st.f{:})): refuse it rather than hand back its first element
          error ("muonlab:unsupported",
                 "muon_state: this index gives a comma list of %d values, which Octave passes on as its first only: index struct (STATE) or a copy of the field (c = st.f; c{:}).",
                 n);
        endif
      endif
      [varargout{1:nargout}] = subsref (S, idx);
    endfunction

    function st = subsasgn (st, idx, v)
      st = muon_state (nthargout (2, @state_wrapped, st), subsasgn (state_wrapped (st), idx, v));
    endfunction

    function tf = isfield (st, f)
      tf = isfield (state_wrapped (st), f);
    endfunction

    function f = fieldnames (st)
      f = fieldnames (state_wrapped (st));
    endfunction

    function n = numfields (st)
      n = numfields (state_wrapped (st));
    endfunction

    function st = rmfield (st, f)
      st = muon_state (nthargout (2, @state_wrapped, st), rmfield (state_wrapped (st), f));
    endfunction

    function tf = isequal (a, varargin)
      tf = isequal (plain (a), cellfun (@plain, varargin, "UniformOutput", false){:});
    endfunction

    function disp (st)
      [S, kind] = state_wrapped (st);
      try                                  # a state edited by hand shows what it can
        switch (kind)
          case "update",     show_update (S);
          case "optimizer",  show_optimizer (S);
          case "zero_step",  show_zero_step (S, "zero_muon_step state");
          case "zero_train", show_zero_train (S);
        endswitch
      catch err
        printf ("  this %s state does not read as one (%s)\n", kind, err.message);
      end_try_catch
      show_fields (fieldnames (S));
    endfunction
  endmethods
endclassdef

## "fields: a, b, ...; struct () gives them", wrapped at 88 columns
function show_fields (f)
  line = "  fields:";
  for k = 1:numel (f)
    word = [" " f{k} merge(k < numel (f), ",", ";")];
    if (numel (line) + numel (word) > 88)
      printf ("%s\n", line);
      line = "         ";
    endif
    line = [line word];
  endfor
  printf ("%s struct () gives them\n", line);
endfunction

## S itself, or the struct a muon_state wraps
## How many values the index idx of the plain struct S gives: more than one only where its
## last part is {} of several cells or . of a struct array (0 where it cannot index: the
## indexing itself then gives Octave's error).
function n = comma_list_length (S, idx)
  n = 1;
  last = idx(end).type;
  if (strcmp (last, "()"))
    return;
  endif
  try
    x = S;
    if (numel (idx) > 1)
      x = subsref (S, idx(1:end-1));
    endif
    if (strcmp (last, "{}") && iscell (x))
      n = numel (x(idx(end).subs{:}));
    elseif (strcmp (last, ".") && isstruct (x))
      n = numel (x);
    endif
  catch
    n = 0;
  end_try_catch
endfunction

function S = plain (S)
  if (isa (S, "muon_state"))
    S = struct (S);
  endif
endfunction

## "64x32 double", "64x32 single device array on cuda", or the class and size of anything
function t = array_text (x)
  if (isa (x, "muon_gpuarray"))
    t = sprintf ("%s %s device array on %s", dims_text (size (x)), classUnderlying (x),
                 device (x));
  else
    t = sprintf ("%s %s", dims_text (size (x)), class (x));
  endif
endfunction

function t = dims_text (sz)
  t = strjoin (arrayfun (@num2str, sz, "UniformOutput", false), "x");
endfunction

function t = field_text (S, f, fmt)
  t = "?";
  if (isfield (S, f) && isnumeric (S.(f)) && isscalar (S.(f)))
    t = sprintf (fmt, S.(f));
  elseif (isfield (S, f) && ischar (S.(f)))
    t = S.(f);
  endif
endfunction

function show_update (S)
  m = [];
  if (isfield (S, "momentum"))
    m = S.momentum;
  endif
  form = field_text (S, "form", "%s");
  if (isfield (S, "family") && isstruct (S.family) && isfield (S.family, "algorithm")
      && any (strcmp (S.family.algorithm, {"dion", "dion2"})))
    form = S.family.algorithm;          # (their own rule, M += G: no MomentumForm applies)
  endif
  printf ("  muon_update state: step %s, %s momentum %s", field_text (S, "step", "%d"),
          form, array_text (m));
  if (isnumeric (m) && isreal (m) && ! isempty (m))
    printf (" (norm %.4g)", norm (double (m(:))));
  endif
  printf ("\n");
  if (isfield (S, "family") && isstruct (S.family) && isfield (S.family, "algorithm"))
    printf ("  %s buffer %s\n", S.family.algorithm, array_text (S.family.buffer));
  endif
endfunction

function show_optimizer (S)
  names = {};
  if (isfield (S, "names") && iscellstr (S.names))
    names = S.names;
  endif
  route = @(n) field_text (S.route, n, "%s");
  nmuon = sum (cellfun (@(n) strcmp (route (n), "muon"), names));
  printf ("  muon_optimizer: %d parameters (%d Muon, %d AdamW), step %s (%s skipped), micro-batch %s of %s\n",
          numel (names), nmuon, numel (names) - nmuon, field_text (S, "step", "%d"),
          field_text (S, "skipped", "%d"), field_text (S, "micro", "%d"),
          field_text (S, "accum_steps", "%d"));
  printf ("  lr Muon %s, AdamW %s; weight decay %s, %s; clip %s; loss scale %s\n",
          field_text (S, "muon_lr", "%g"), field_text (S, "adam_lr", "%g"),
          field_text (S, "muon_wd", "%g"), field_text (S, "adam_wd", "%g"),
          field_text (S, "clip_policy", "%s"), field_text (S.scaler, "scale", "%g"));
  where = "the host";
  if (isfield (S, "resident") && ! isempty (S.resident))
    where = sprintf ("%s (device arrays)", S.resident);
  endif
  printf ("  state on %s\n", where);
  printf ("  %-24s %-6s %-14s %s\n", "parameter", "route", "shape", "state");
  for i = 1:min (numel (names), 16)
    n = names{i};
    r = route (n);
    if (strcmp (r, "muon"))
      st = S.muon.(n);
      if (isempty (st))
        what = "no step yet";
      else
        what = sprintf ("momentum %s, step %s", array_text (st.momentum),
                        field_text (st, "step", "%d"));
      endif
    else
      what = sprintf ("AdamW moments %s, step %s", array_text (S.adam.(n).m),
                      field_text (S.adam.(n), "step", "%d"));
    endif
    printf ("  %-24s %-6s %-14s %s\n", n, r, dims_text (S.shapes{i}), what);
  endfor
  if (numel (names) > 16)
    printf ("  ... %d more parameters\n", numel (names) - 16);
  endif
endfunction

function show_zero_step (S, title)
  k = struct ();
  if (isfield (S, "key") && isstruct (S.key))
    k = S.key;
  endif
  printf ("  %s: variant %s, world %s (%s local ranks), step %s, %s momentum\n", title,
          field_text (k, "variant", "%s"), field_text (k, "world", "%d"),
          field_text (k, "local_ranks", "%d"), field_text (S, "step", "%d"),
          field_text (k, "form", "%s"));
  if (isfield (S, "momentum") && iscell (S.momentum) && ! isempty (S.momentum))
    len = cellfun (@numel, S.momentum);
    printf ("  momentum buffers: %d, %d to %d elements\n", numel (len), min (len), max (len));
  endif
  if (isfield (S, "has_ref"))
    printf ("  the reference's momentum kept: %s\n", merge (isequal (S.has_ref, true), "yes",
                                                           "no"));
  endif
endfunction

function show_zero_train (S)
  k = struct ();
  if (isfield (S, "key") && isstruct (S.key))
    k = S.key;
  endif
  printf ("  zero_train_step state: variant %s, world %s, step %s (%s skipped), micro-batch %s of %s\n",
          field_text (k, "variant", "%s"), field_text (k, "world", "%d"),
          field_text (S, "step", "%d"), field_text (S, "skipped", "%d"),
          field_text (S, "micro", "%d"), field_text (k, "accum_steps", "%d"));
  printf ("  clip %s, loss scale %s\n", field_text (k, "clip_policy", "%s"),
          field_text (S.scaler, "scale", "%g"));
  if (isfield (S, "zero") && isstruct (S.zero))
    show_zero_step (S.zero, "its zero_muon_step state");
  endif
endfunction

%!demo
%! [U, st] = muon_update (randn (64, 32), []);
%! st
%! st.momentum(1:2, 1:3)
%! S = struct (st);
%! printf ("isstruct (st) = %d, isstruct (struct (st)) = %d\n", isstruct (st), isstruct (S));

%!test
%! ## a state made before `clear functions` (Octave reloads the class) still steps, reads
%! ## and writes: its methods recursed without end, and muon_step refused it
%! octave = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%! if (exist (octave, "file"))
%!   code = ["P = struct ('w', reshape (1:48, 8, 6)); o = muon_optimizer (P); " ...
%!           "[P1, o1] = muon_step (o, P, P); clear functions; " ...
%!           "[P2, o2] = muon_step (o, P, P); o.muon_lr = 0.5; " ...
%!           "printf ('same %d %d step %d lr %g has %d\\n', isequal (P1, P2), isequal (o1, o2), " ...
%!           "o.step, o.muon_lr, isfield (o, 'step'));"];
%!   [rc, out] = system (sprintf ("%s --no-gui --norc --silent --eval \"addpath ('%s', '%s'); %s\" 2>&1",
%!                                octave, fileparts (which ("muon_state")),
%!                                fileparts (which ("__muon_ns__")), code));
%!   assert (! isempty (strfind (out, "same 1 1 step 0 lr 0.5 has 1")), out);
%! endif

%!test
%! [~, st] = muon_update (randn (300, 200), []);
%! assert (isa (st, "muon_state") && isa (st, "muon_result"));
%! s = evalc ("st");
%! assert (numel (strfind (s, "\n")) <= 8);
%! assert (! isempty (strfind (s, "muon_update state: step 1, ema momentum 300x200 double")));
%! S = struct (st);
%! assert (isstruct (S) && isequal (fieldnames (S), {"momentum"; "step"; "form"}));
%! ## reads and writes as the struct does, nested and through setfield / rmfield
%! st.momentum(2, 3) = 7;
%! assert (st.momentum(2, 3), 7);
%! assert (getfield (setfield (st, "step", 4), "step"), 4);
%! assert (isfield (st, "form") && ! isfield (rmfield (st, "form"), "form"));
%! assert (! isequal (st, S) && isequal (st, struct (st)));

%!test
%! ## a state edited by hand still shows: what is wrong, and its fields
%! o = rmfield (muon_optimizer (struct ("W", ones (4))), "route");
%! s = evalc ("o");
%! assert (! isempty (strfind (s, "this optimizer state does not read as one")));
%! assert (! isempty (strfind (s, "fields: type,")));

%!error <muon_state: KIND must be 'update', 'optimizer', 'zero_step' or 'zero_train'\.> muon_state ("x", struct ())
%!error <muon_state: S must be a scalar struct\.> muon_state ("update", 1)
%!error <muon_state: give KIND and S\.> muon_state ("update")
%!test
%! ## a comma list through the state: refused, not cut to its first value (Octave 7 asks an
%! ## overloaded index for one output); a copy of the field, or several outputs, give all
%! st = muon_state ("optimizer", struct ("c", {{1, 2, 3, 4}}, "a", struct ("x", {5, 6})));
%! fail ("{st.c{:}}", "muon_state: this index gives a comma list of 4 values");
%! fail ("numel (st.c{2:3})", "comma list of 2 values");
%! fail ("{st.a.x}", "comma list of 2 values");
%! c = st.c;
%! assert ({c{:}}, {1, 2, 3, 4});
%! [p, q] = st.c{2:3};
%! assert ([p q], [2 3]);
%! assert (st.c{4}, 4);
%! assert (st.a(2).x, 6);
%! assert (size (st.c), [1 4]);
%! s = struct (st);
%! assert ({s.c{:}}, {1, 2, 3, 4});
