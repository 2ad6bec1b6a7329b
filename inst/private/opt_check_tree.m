## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_check_tree (@var{fname}, @var{argname}, @var{s}, @var{names}, @var{shapes}, @var{finite})
## Validate a struct of named arrays against the parameter names @var{names} (a cellstr)
## and sizes @var{shapes} (a cell of size vectors; @code{@{@}} to skip the size check):
## a scalar struct whose fields are exactly @var{names} (any order), each a real, full,
## non-empty double or single array of the recorded size, or a device array
## (@code{muon_gpuarray}) of class double or single (for @qcode{"GRADS"}, also bf16 or
## fp16: muon_step casts a gradient to its parameter's class) of this session (a stale
## one is @code{muonlab:staleHandle} naming it; a device array of another class is
## @code{muonlab:badType} naming its class).  With @var{finite} true, NaN and
## Inf are errors (muonlab:nonFinite).  Errors are muonlab:badType, muonlab:badArg and
## muonlab:badShape.
## @end deftypefn

function opt_check_tree (fname, argname, s, names, shapes, finite)
  if (! (isstruct (s) && isscalar (s)))
    error ("muonlab:badType", "%s: %s must be a scalar struct of named arrays.", fname,
           argname);
  endif
  f = fieldnames (s);
  if (isempty (f))
    error ("muonlab:badArg", "%s: %s must have at least one field.", fname, argname);
  endif
  if (! isempty (names))
    missing = setdiff (names, f);
    extra = setdiff (f, names);
    if (! isempty (missing))
      error ("muonlab:badArg", "%s: %s lacks the parameter '%s'.", fname, argname,
             missing{1});
    elseif (! isempty (extra))
      error ("muonlab:badArg", "%s: %s has the unknown parameter '%s'.", fname, argname,
             extra{1});
    endif
  endif
  if (strcmp (argname, "GRADS"))        # a gradient: any of the core's precisions
    classes = core_lists ().lists.precision;
  else
    classes = {"double", "single"};
  endif
  for i = 1:numel (f)
    x = s.(f{i});
    dev = isa (x, "muon_gpuarray") && any (strcmp (x.Storage, classes));
    if (isa (x, "muon_gpuarray") && ! dev)   # a 16-bit parameter: say what it is
      error ("muonlab:badType",
             "%s: %s.%s is a %s device array; a parameter must be double or single (muon_gpu (D, \"Class\", \"single\")).",
             fname, argname, f{i}, x.Storage);
    endif
    if (dev)
      try
        __muon_gpu__ ("check", x.Handle);
      catch err
        gpu_stale (err, fname, [argname "." f{i}]);  # muon_step: GRADS.W is a device array ...
      end_try_catch
    endif
    if (! dev && issparse (x))
      error ("muonlab:badType",
             "%s: %s.%s must be a full matrix, not sparse (convert it: full (%s.%s)).",
             fname, argname, f{i}, argname, f{i});
    endif
    if (! dev && (! (isfloat (x) && isreal (x)) || isempty (x)))
      error ("muonlab:badType",
             "%s: %s.%s must be a real, non-empty double or single array.", fname,
             argname, f{i});
    endif
    if (! isempty (shapes))
      k = find (strcmp (f{i}, names), 1);
      if (! isequal (size (x), shapes{k}))
        error ("muonlab:badShape", "%s: %s.%s must be of size %s.", fname, argname, f{i},
               strjoin (arrayfun (@num2str, shapes{k}, "UniformOutput", false), " x "));
      endif
    endif
    if (finite)
      if (dev)
        [~, ok] = opt_sumsq (x);        # (not through nthargout: it drops an error's id)
      else
        ok = all (isfinite (x(:)));
      endif
      if (! ok)
        error ("muonlab:nonFinite", "%s: %s.%s must not contain NaN or Inf.", fname,
               argname, f{i});
      endif
    endif
  endfor
endfunction
