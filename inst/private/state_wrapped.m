## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {[@var{S}, @var{kind}] =} state_wrapped (@var{st})
## The struct a @code{muon_state} wraps, and its kind, read through the builtin
## @code{struct}: after @code{clear functions}, Octave 7 reloads the class, and a state made
## before is no longer inside its class's methods (@code{st.s} there calls @code{subsref}
## again, without end; the file's own local functions are not found), so its methods and
## @code{state_plain} read it from here.
## @end deftypefn

function [S, kind] = state_wrapped (st)
  warning ("off", "Octave:classdef-to-struct", "local");
  p = builtin ("struct", st);
  [S, kind] = deal (p.s, p.kind);
endfunction
