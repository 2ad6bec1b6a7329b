## Copyright (C) 2026 muonlab developers
## SPDX-License-Identifier: GPL-3.0-or-later

## -*- texinfo -*-
## @deftypefn {} {@var{X} =} ns_call (@var{fname}, @var{G}, @var{opts})
## @deftypefnx {} {@var{X} =} ns_call (@var{fname}, @var{G}, @var{opts}, @var{from}, @var{to}, @dots{})
## @code{__muon_ns__ (@var{G}, @var{opts})} for a function that runs the core directly: an
## error of the core (@qcode{"muon_ns: ..."}) is raised again, with its identifier, under
## @var{fname}, the function the user called, with each argument name @var{from} in it
## replaced by @var{to} (e.g. @qcode{"COEFFICIENTS"}, @qcode{"COEFFS"}).
## @end deftypefn

function X = ns_call (fname, G, opts, varargin)
  try
    X = __muon_ns__ (G, opts);
  catch err
    msg = regexprep (err.message, '^muon_ns: ', [fname ": "]);
    for k = 1:2:numel (varargin)
      msg = strrep (msg, varargin{k}, varargin{k+1});
    endfor
    rethrow (struct ("message", msg, "identifier", err.identifier));
  end_try_catch
endfunction
