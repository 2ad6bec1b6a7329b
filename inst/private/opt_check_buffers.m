## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {} opt_check_buffers (@var{opt}, @var{mode})
## The arrays of an optimizer state, for @code{opt_check_state} (which has checked the rest:
## the parameters' names, shapes and classes, and that @code{OPT.muon}, @code{OPT.adam} and
## @code{OPT.accum} are scalar structs): raises @code{muonlab:stateCheck}
## (@code{opt_check_fail}) with what is wrong, as @code{opt_check_state} describes.
##
## @var{mode} @qcode{"step"} or @qcode{"full"}: each parameter's state, with a fast test of
## each one with built-in functions only (this runs on every @code{muon_step}), and the
## detailed check, which names what is wrong, when the fast test fails (or always, in full
## mode, where the Muon states' forms and family buffers are also checked against each
## parameter's @code{muon_update} options).
##
## @var{mode} @qcode{"train"}: the one-process reference momenta @code{T.ref} of the
## training part @var{opt} = T of a @code{zero_train_step} checkpoint (1 x P cell, each []
## or a @code{muon_update} state of the double matrix @code{T.shapes(p,:)} in the form
## @code{T.form}, finite unless @code{T.poison}); messages name @code{STATE.ref@{p@}}.
## @end deftypefn

function opt_check_buffers (opt, mode)
  if (strcmp (mode, "train"))
    check_refs (opt);
  else
    check_params (opt, strcmp (mode, "full"));
  endif
endfunction

## the reference momenta T.ref of a zero_train_step checkpoint's training part T
function check_refs (t)
  if (! (iscell (t.ref) && numel (t.ref) == rows (t.shapes)))
    opt_check_fail ("STATE.ref must hold one reference momentum per matrix");
  endif
  for p = 1:numel (t.ref)
    check_muon (t.ref{p}, sprintf ("STATE.ref{%d}", p), t.shapes(p,:), "double", t.poison,
                t.form);
  endfor
endfunction

## each parameter's state: a fast test of each one with built-in functions only (this
## runs on every muon_step), and the detailed check, which names what is wrong, when the
## fast test fails (or always, in full mode)
function check_params (opt, full)
  names = opt.names;
  poison = opt.poison;
  classes = opt.classes;
  forms = core_lists ().lists.momentum_form;    # (once, not per parameter)
  for i = 1:numel (names)
    n = names{i};
    sz = opt.shapes{i};
    cls = classes{i};
    if (! (isfield (opt.route, n) && ischar (opt.route.(n))))
      opt_check_fail ("OPT.route lacks the parameter '%s'", n);
    endif
    group = merge (strcmp (opt.route.(n), "muon"), "muon", "adam");
    for g = {group, "accum"}
      if (! isfield (opt.(g{1}), n))
        opt_check_fail ("OPT.%s lacks the parameter '%s'", g{1}, n);
      endif
    endfor
    st = opt.(group).(n);
    if (strcmp (group, "muon"))
      ok = isa (st, "double") && ndims (st) == 2 && ! any (size (st));
      if (! ok && isstruct (st) && isscalar (st) && numfields (st) == 3
          && all (isfield (st, {"momentum", "step", "form"})))
        M = st.momentum;
        k = st.step;
        ok = ((on_device (M, sz, cls) || (isfloat (M) && isreal (M) && ! issparse (M)
                                      && ndims (M) == numel (sz) && all (size (M) == sz)
                                      && strcmp (class (M), cls)
                                      && (poison || all (isfinite (M(:))))))
              && isa (k, "double") && isscalar (k) && isreal (k) && isfinite (k) && k >= 0
              && k == fix (k) && ischar (st.form)
              && any (strcmp (st.form, forms)));
      endif
      if (! ok || full)
        form = false;
        uopts = [];
        if (full)
          form = momentum_form (opt.update_args.(n));
          uopts = update_opts (opt.update_args.(n), cls);
        endif
        check_muon (st, sprintf ("OPT.muon.%s", n), sz, cls, poison, form, uopts);
      endif
    else
      ok = (isstruct (st) && isscalar (st) && numfields (st) == 3
            && all (isfield (st, {"m", "v", "step"})));
      if (ok)
        m = st.m;
        v = st.v;
        k = st.step;
        ok = (((on_device (m, sz, cls) && on_device (v, sz, cls))
               || (isfloat (m) && isreal (m) && ! issparse (m) && ndims (m) == numel (sz)
                   && all (size (m) == sz) && all (isfinite (m(:)))
                   && isfloat (v) && isreal (v) && ! issparse (v) && ndims (v) == numel (sz)
                   && all (size (v) == sz) && all (isfinite (v(:))) && ! any (v(:) < 0)
                   && strcmp (class (m), cls) && strcmp (class (v), cls)))
              && isa (k, "double") && isscalar (k) && isreal (k) && isfinite (k) && k >= 0
              && k == fix (k));
      endif
      if (! ok)
        check_adam (st, sprintf ("OPT.adam.%s", n), sz, cls);
      endif
    endif
    a = opt.accum.(n);
    ok = ((isa (a, "double") && ndims (a) == 2 && ! any (size (a))) || on_device (a, sz)
          || (isfloat (a) && isreal (a) && ! issparse (a) && ndims (a) == numel (sz)
              && all (size (a) == sz)));
    if (! ok)
      array_ (a, sprintf ("OPT.accum.%s", n), sz, false);
    endif
  endfor
endfunction

function check_adam (st, where, sz, cls)
  opt_check_fields (st, where, {"m", "v", "step"});
  array_ (st.m, [where ".m"], sz, true);
  array_ (st.v, [where ".v"], sz, true);
  class_ (st.m, [where ".m"], sz, cls);
  class_ (st.v, [where ".v"], sz, cls);
  if (! on_device (st.v, sz) && any (st.v(:) < 0))
    opt_check_fail ("%s.v must not be negative", where);
  endif
  if (! opt_check_count (st.step))
    opt_check_fail ("%s.step must be a non-negative integer", where);
  endif
endfunction

## [] (no step yet) or a muon_update state; FORM: the MomentumForm it must have, or false;
## UOPTS: the parameter's parsed muon_update options, whose family buffer (family_state)
## the state must hold, or [] (not checked here: muon_update checks it at the step)
function check_muon (st, where, sz, cls, poison, form, uopts)
  if (nargin < 7)
    uopts = [];
  endif
  if (isa (st, "double") && ndims (st) == 2 && ! any (size (st)))
    return;                                   # [] : no step yet
  endif
  if (! isstruct (st))
    opt_check_fail ("%s must be [] or a muon_update state", where);
  endif
  if (isfield (st, "family"))                 # the Muon family's buffer (run_update)
    opt_check_fields (st, where, {"momentum", "step", "form", "family"});
    f = st.family;
    if (! (isstruct (f) && isscalar (f) && numfields (f) == 2
           && all (isfield (f, {"algorithm", "buffer"})) && ischar (f.algorithm)
           && isfloat (f.buffer) && isreal (f.buffer)
           && (poison || all (isfinite (f.buffer(:))))))
      opt_check_fail ("%s.family must be a struct with an algorithm name and a finite real buffer",
                      where);
    endif
    if (any (strcmp (f.algorithm, {"normuon", "adamuon", "namo"})) && any (f.buffer(:) < 0))
      opt_check_fail ("%s.family.buffer must not be negative (the second moment of %s)",
                      where, upper (f.algorithm));
    endif
  else
    opt_check_fields (st, where, {"momentum", "step", "form"});
  endif
  array_ (st.momentum, [where ".momentum"], sz, ! poison);
  class_ (st.momentum, [where ".momentum"], sz, cls);
  if (! opt_check_count (st.step))
    opt_check_fail ("%s.step must be a non-negative integer", where);
  endif
  if (! (ischar (st.form) && any (strcmp (st.form, core_lists ().lists.momentum_form))))
    opt_check_fail ("%s.form must be 'ema' or 'sgd'", where);
  endif
  if (ischar (form) && ! strcmp (st.form, form))
    opt_check_fail ("%s.form is '%s' but the parameter's MOMENTUMFORM is '%s'", where,
                    st.form, form);
  endif
  if (isstruct (uopts))
    if (numel (sz) == 4)                      # a conv weight: NormAxis conv_kernel's V
      uopts.conv_shape = sz;
    endif
    msg = family_state (where, st, uopts, sz(1), prod (sz(2:end)), cls);
    if (! isempty (msg))
      opt_check_fail ("%s", msg);
    endif
  endif
endfunction

## the parsed muon_update options of an argument list (its presets expanded)
function o = update_opts (args, cls)
  args = family_presets ("expand", "opt_check_state", args);
  o = parse_options ("opt_check_state", "muon_update", args, "precision", cls);
endfunction

## a device array (muon_gpu) of size sz (and storage class cls, when given and not ""):
## its values stay on the device, unchecked here (reading them would copy the state to the
## host every step; a host state's values are checked).  muon_save_state gathers the state
## and checks it again, values included, so a saved file always loads.
function tf = on_device (x, sz, cls)
  tf = isa (x, "muon_gpuarray") && isequal (size (x), sz);
  if (tf && nargin > 2 && ! isempty (cls))
    tf = strcmp (x.Storage, cls);
  endif
endfunction

function array_ (x, where, sz, finite)
  if (on_device (x, sz))
    return;
  endif
  dev = isa (x, "muon_gpuarray");      # of another size: said as for a host array
  if (! (dev || (isfloat (x) && isreal (x) && ! issparse (x))))
    opt_check_fail ("%s must be a real double or single array", where);
  endif
  if (! (ndims (x) == numel (sz) && all (size (x) == sz)))
    opt_check_fail ("%s must be of size %s", where,
                    strjoin (arrayfun (@num2str, sz, "UniformOutput", false), " x "));
  endif
  if (finite && ! all (isfinite (x(:))))
    opt_check_fail ("%s must not contain NaN or Inf", where);
  endif
endfunction

## a buffer, on the host or on the device, must have its parameter's class CLS ("" : not
## known here)
function class_ (x, where, sz, cls)
  if (isempty (cls))
    return;
  endif
  if (on_device (x, sz))
    c = x.Storage;
  else
    c = class (x);
  endif
  if (! strcmp (c, cls))
    opt_check_fail ("%s must be %s, the class of its parameter", where, cls);
  endif
endfunction

## the MomentumForm a muon_update argument list asks for (its last mention wins)
function f = momentum_form (args)
  args = family_presets ("expand", "opt_check_state", args);
  f = "ema";
  for i = 1:2:numel (args)
    if (strcmpi (args{i}, "MomentumForm"))
      f = lower (args{i+1});
    endif
  endfor
endfunction
