## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## fuzz_public.m - the fuzz target of `make check` (tests/fuzz/run.sh runs it in a child
## octave-cli, so that a crash fails the layer):
##
##   cd <scratch folder> && FUZZ_SEED=13 FUZZ_CALLS=3000 octave-cli ... fuzz_public.m
##
## Calls the public functions of inst/ (not muon_mpirun, and muon_comm / muon_collective
## only with self and sim communicators) with malformed argument lists drawn from a fixed
## seed: a valid call of the function with one to three mutations (an argument replaced by
## a value of another kind: empty, NaN, Inf, huge, negative, complex, integer types,
## logical, char, cell, struct, function handle, sparse, 3-D and 4-D arrays; a field of a
## struct argument or an element of a cell argument replaced or removed; arguments dropped
## or added; option names misspelled or of the wrong type; option values of other options;
## one output too many).  Every call must return or raise a "muonlab:*" error or Octave's
## own usage error (Octave:invalid-fun-call: "Invalid call to ...", "called with too many
## inputs/outputs").  Any other error is a failing case: printed with its arguments and
## written, one per line, to the file FUZZ_FAILURES (when set).
##
## Environment: FUZZ_SEED (13), FUZZ_CALLS (3000), FUZZ_SECONDS (a soft bound: the calls
## stop there, 50), FUZZ_ONLY (one function name), FUZZ_PROGRESS (a file rewritten with the
## call about to run, so the runner can name the call that crashed), FUZZ_FAILURES,
## FUZZ_OPT_FIELDS (0: do not mutate the fields of an optimizer state OPT passed to
## muon_step and muon_save_state, nor of layouts and ZeRO states; on by default: an OPT is
## checked by the one validator, opt_check_state, that muon_load_state uses on a loaded
## checkpoint; a layout by zero_check_layout, a ZeRO state by its function's own check).
## Output: one line per function "fuzz-fn <name> <calls> <failing> (...)", the count of each error
## id, and last "fuzz-done <calls> <failing> <seconds>".  Calls are scheduled round-robin
## over the functions, so a given seed and count always make the same calls.

1;

##---- the random stream (pre-drawn: the functions under test may use rand themselves) -----

function u = rnd ()
  global FZ_R FZ_I
  FZ_I = mod (FZ_I, numel (FZ_R)) + 1;
  u = FZ_R(FZ_I);
endfunction

function k = pick (n)              # 1..n
  k = min (n, floor (rnd () * n) + 1);
endfunction

function x = choose (c)            # an element of a cell
  x = c{pick (numel (c))};
endfunction

##---- malformed values -------------------------------------------------------------------

function v = junk ()
  k = pick (48);
  switch (k)
    case 1, v = [];
    case 2, v = zeros (0, 3);
    case 3, v = NaN;
    case 4, v = Inf;
    case 5, v = -Inf;
    case 6, v = 1e308;
    case 7, v = -1;
    case 8, v = 0;
    case 9, v = 0.5;
    case 10, v = 2^53 + 2;
    case 11, v = 1 + 2i;
    case 12, v = complex (magic (4), 1);
    case 13, v = int8 (3);
    case 14, v = uint16 (magic (4));
    case 15, v = intmax ("int64");
    case 16, v = true;
    case 17, v = logical (eye (4));
    case 18, v = "abc";
    case 19, v = "";
    case 20, v = ["ab"; "cd"];
    case 21, v = {};
    case 22, v = {1, "a"};
    case 23, v = struct ();
    case 24, v = struct ("a", {1, 2});
    case 25, v = struct ("a", 1);
    case 26, v = @sin;
    case 27, v = sparse (eye (4));
    case 28, v = ones (2, 2, 2);
    case 29, v = ones (2, 2, 1, 2);
    case 30, v = single (magic (4) / 10);
    case 31, v = reshape (mod (1:24, 7), 4, 6) - 3;
    case 32, v = NaN (4);
    case 33, v = [1 2 3];
    case 34, v = 2;
    case 35, v = "keller";
    case 36, v = repmat ("x", 1, 300);
    case 37, v = 1e-320;
    case 38, v = -0;
    case 39, v = Inf (4, 6);
    case 40, v = single (NaN);
    case 41, v = magic (4) * 1e200;
    case 42, v = int32 (-5);
    case 43, v = {[4 3]};
    case 44, v = cell (2, 2);
    case 45, v = "NaN";
    case 46, v = [4 3; 2 5];
    case 47, v = zeros (4, 6);
    otherwise, v = -magic (3);
  endswitch
endfunction

## A short description of a value, for the failure report.
function s = describe (v)
  if (ischar (v))
    if (numel (v) > 12)
      s = sprintf ("char %s", mat2str (size (v)));
    else
      s = sprintf ("'%s'", v(:).');
    endif
  elseif (isa (v, "function_handle"))
    s = ["@" func2str(v)];
  elseif (iscell (v))
    inner = cellfun (@describe, v(1:min (end, 3)), "UniformOutput", false);
    s = sprintf ("{%s%s} %s", strjoin (inner, ", "), merge (numel (v) > 3, ", ...", ""),
                 mat2str (size (v)));
  elseif (isstruct (v))
    f = fieldnames (v);
    s = sprintf ("struct %s (%s)", mat2str (size (v)), strjoin (f(1:min (end, 6)).', ","));
  elseif (isobject (v))                 # a result (zero_layout_result, ...) or device array
    s = sprintf ("%s object", class (v));
  else
    cls = class (v);
    if (issparse (v))
      cls = ["sparse " cls];
    endif
    if (! isreal (v))
      cls = ["complex " cls];
    endif
    if (numel (v) == 1)
      s = sprintf ("%s %s", cls, num2str (double (v)));
    else
      s = sprintf ("%s %s", cls, mat2str (size (v)));
    endif
  endif
endfunction

##---- the functions: a valid call, its options and their valid values -------------------------

##---- mutations ------------------------------------------------------------------------------

## A struct argument with one field replaced by junk, removed, or one junk field added; with
## DEEP, a quarter of the time the change goes into a struct or cell held by a field (an
## element of a struct array such as a layout's params, a cell of buffers), down to 3 levels.
function s = mutate_struct (s, deep)
  if (isa (s, "muon_state"))            # a state: every function takes its plain struct
    s = struct (s);
  endif
  if (! isstruct (s) || isempty (s) || (! isscalar (s) && ! deep))
    s = junk ();
    return;
  endif
  f = fieldnames (s);
  i = pick (numel (s));
  k = pick (3 + deep);
  if (k == 4 && ! isempty (f) && deep < 4)
    n = choose (f);
    v = s(i).(n);
    if (isstruct (v) && ! isempty (v))
      s(i).(n) = mutate_struct (v, deep + 1);
    elseif (iscell (v) && ! isempty (v))
      j = pick (numel (v));
      if (isstruct (v{j}))
        v{j} = mutate_struct (v{j}, deep + 1);
      else
        v{j} = junk ();
      endif
      s(i).(n) = v;
    elseif (isnumeric (v) && numel (v) > 1)
      v(pick (numel (v))) = choose ({NaN, -1, 0, 1e9, 2.5});
      s(i).(n) = v;
    else
      s(i).(n) = junk ();
    endif
  elseif (isempty (f) || k >= 3)
    [s.(choose ({"zz", "Type", "momentum"}))] = deal (junk ());
  elseif (k == 1)
    s(i).(choose (f)) = junk ();
  else
    s = rmfield (s, choose (f));
  endif
endfunction

function c = mutate_cell (c)
  if (isempty (c) || ! iscell (c))
    c = junk ();
    return;
  endif
  if (pick (4) == 1)
    c = c(1:end-1);
  else
    c{pick (numel (c))} = junk ();
  endif
endfunction

## opaque: the indices of the arguments that are states or layouts (OPT of muon_step and
## muon_save_state, a layout L, a ZeRO state), whose fields are mutated, nested fields too
## (unless FUZZ_OPT_FIELDS=0 for an OPT: see the header).
function [args, nout] = mutate (args, opts, nout, opaque)
  nmut = pick (3);
  for m = 1:nmut
    if (isempty (opts))             # no options: mostly the positional arguments
      op = choose ({1, 2, 3, 1, 2, 3, 1, 2, 3, 4, 5});
    else
      op = pick (9);
    endif
    npos = numel (args);
    switch (op)
      case {1, 2}                   # a positional argument replaced by junk
        if (npos > 0)
          args{pick (npos)} = junk ();
        else
          args{end+1} = junk ();
        endif
      case 3                        # a field of a struct / an element of a cell argument
        if (npos > 0)
          i = pick (npos);
          if (isa (args{i}, "muon_state"))   # a state: its plain struct is taken too
            args{i} = struct (args{i});
          endif
          if (any (i == opaque) && ! opt_fields () && isstruct (args{i}) && isscalar (args{i}))
            args{i}.type = junk ();   # only its tag
          elseif (isstruct (args{i}))
            args{i} = mutate_struct (args{i}, any (i == opaque));
          elseif (iscell (args{i}))
            args{i} = mutate_cell (args{i});
          else
            args{i} = junk ();
          endif
        endif
      case 4                        # arguments dropped (a third of the time: the usage
        if (pick (3) == 1)          # error it mostly gives runs makeinfo, 50 ms a call)
          args = args(1:pick (npos + 1) - 1);
        else
          args{pick (npos + 1)} = junk ();
        endif
      case 5                        # one argument too many (a lone option name, or junk)
        args{end+1} = choose ({junk(), "Steps", "Bogus"});
      case {6, 7}                   # an option with a junk value
        if (! isempty (opts))
          args(end+1:end+2) = {opts{2 * pick (numel (opts) / 2) - 1}, junk()};
        else
          args(end+1:end+2) = {"Steps", junk()};
        endif
      case 8                        # a wrong option name, or a valid one in another case
        name = choose ({"Bogus", "", "steps ", 3, {}, "STEPS", "prec", ["ab"; "cd"], ...
                        "Method\0"});
        args(end+1:end+2) = {name, junk()};
      case 9                        # an option with another option's valid value
        if (! isempty (opts))
          k1 = pick (numel (opts) / 2);
          k2 = pick (numel (opts) / 2);
          args(end+1:end+2) = {opts{2 * k1 - 1}, choose(opts{2 * k2})};
        else
          nout += 1;                # or one output too many
        endif
    endswitch
  endfor
  if (pick (10) == 1)
    nout += 1;
  endif
endfunction

## Some valid options first (so that mutations reach past the option parser).
function args = with_options (args, opts)
  n = pick (3) - 1;
  for k = 1:n
    if (isempty (opts))
      break;
    endif
    j = pick (numel (opts) / 2);
    args(end+1:end+2) = {opts{2 * j - 1}, choose(opts{2 * j})};
  endfor
endfunction

##---- the session ----------------------------------------------------------------------------

function tf = opt_fields ()
  tf = ! strcmp (getenv ("FUZZ_OPT_FIELDS"), "0");
endfunction

function n = env_num (name, dflt)
  s = getenv (name);
  n = dflt;
  if (! isempty (s))
    n = str2double (s);
  endif
endfunction

here = fileparts (mfilename ("fullpathext"));
root = fileparts (fileparts (here));
addpath (fullfile (root, "inst"));
addpath (fullfile (root, "build", "mex"));
addpath (here);                        # fuzz_targets.m
more off;
page_screen_output (false);
warning ("off", "all");                # warnings are allowed; only errors are judged

seed = env_num ("FUZZ_SEED", 13);
ncalls = env_num ("FUZZ_CALLS", 3000);
budget = env_num ("FUZZ_SECONDS", 50);
only = getenv ("FUZZ_ONLY");
progress = getenv ("FUZZ_PROGRESS");
failfile = getenv ("FUZZ_FAILURES");

global FZ_R FZ_I
rand ("twister", seed);
FZ_R = rand (1, 1e6);
FZ_I = 0;
scratch = tempname ();
mkdir (scratch);
T = fuzz_targets (scratch);
if (! isempty (only))
  T = T(strcmp ({T.name}, only));
endif
nt = numel (T);
fcalls = zeros (1, nt);
ffail = zeros (1, nt);
fok = zeros (1, nt);
fsec = zeros (1, nt);
fusage = zeros (1, nt);
ids = struct ("id", {}, "n", {});
fails = {};
t0 = tic ();
done = 0;
for c = 1:ncalls
  if (toc (t0) > budget)
    printf ("fuzz: stopped after %d of %d calls (FUZZ_SECONDS = %g)\n", done, ncalls, budget);
    break;
  endif
  t = mod (c - 1, nt) + 1;
  args = with_options (T(t).make (), T(t).opts);
  [args, nout] = mutate (args, T(t).opts, T(t).nout, T(t).opaque);
  desc = sprintf ("#%d %s (%s) with %d outputs", c, T(t).name,
                  strjoin (cellfun (@describe, args, "UniformOutput", false), ", "), nout);
  if (! isempty (progress))
    fid = fopen (progress, "w");
    fputs (fid, [desc "\n"]);
    fclose (fid);
  endif
  id = "ok";
  tc = tic ();
  try
    out = cell (1, nout);
    if (nout == 0)
      feval (T(t).name, args{:});
    else
      [out{1:nout}] = feval (T(t).name, args{:});
    endif
  catch err
    id = err.identifier;
    if (isempty (id))
      id = "(no id)";
    endif
    if (! (strncmp (id, "muonlab:", 8) || strcmp (id, "Octave:invalid-fun-call")))
      ffail(t) += 1;
      msg = strrep (err.message, "\n", " ");
      fails{end+1} = sprintf ("%s -> %s: %s", desc, id, msg(1:min (end, 200)));
      printf ("fuzz: FAIL %s\n", fails{end});
    endif
  end_try_catch
  if (strcmp (T(t).name, "zero_plot_layout"))
    close all;
  endif
  fsec(t) += toc (tc);
  fok(t) += strcmp (id, "ok");
  fusage(t) += strcmp (id, "Octave:invalid-fun-call");
  k = find (strcmp ({ids.id}, id), 1);
  if (isempty (k))
    ids(end+1) = struct ("id", id, "n", 1);
  else
    ids(k).n += 1;
  endif
  fcalls(t) += 1;
  done = c;
endfor
secs = toc (t0);
confirm_recursive_rmdir (false);
rmdir (scratch, "s");

for t = 1:nt
  printf ("fuzz-fn %s %d %d  (%d returned, %d usage errors, %.1f s)\n", T(t).name,
          fcalls(t), ffail(t), fok(t), fusage(t), fsec(t));
endfor
[~, o] = sort (-[ids.n]);
for k = o
  printf ("fuzz-id %-28s %d\n", ids(k).id, ids(k).n);
endfor
if (! isempty (failfile))
  fid = fopen (failfile, "w");
  fprintf (fid, "%s\n", fails{:});
  fclose (fid);
endif
printf ("fuzz-done %d %d %.1f\n", done, numel (fails), secs);
