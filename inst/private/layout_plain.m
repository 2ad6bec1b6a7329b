## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{x}, @var{live}] =} layout_plain (@var{x})
## The plain struct of a layout (@code{zero_layout_result}) or a model
## (@code{muon_model_result}), also of one made before @code{clear functions}; anything
## else as it is, for the checks that follow.  After @code{clear functions} Octave 7
## reloads the classes: an object made before is no @code{muon_result} (until a function
## loads the class again, when @code{isa} says it is one but its methods fail on it), and
## its @code{struct} is Octave's, which holds the private @code{plan} and warns; its
## properties still read.  So the plain struct is read here for both: Octave's
## @code{struct}, without its warning, cut to the class's public properties (what the
## class's @code{struct} gives).  @var{live} is true for a layout object whose methods work
## (@code{plan_handle}): one of the class now loaded.
## @end deftypefn

function [x, live] = layout_plain (x)
  live = false;
  if (isa (x, "zero_layout_result") || isa (x, "muon_model_result"))
    cls = class (x);
    live = strcmp (cls, "zero_layout_result") && metaclass (x) == meta.class.fromName (cls);
    warning ("off", "Octave:classdef-to-struct", "local");
    keep = properties (cls);
    p = builtin ("struct", x);
    x = orderfields (rmfield (p, setdiff (fieldnames (p), keep)), keep);
  endif
endfunction
